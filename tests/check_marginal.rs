//! The permutation reader in marginal mode, at the API level: 52-card deals written 0-based,
//! 1-based or with labels give the same [`MarginalTally`] as adding the same decks directly;
//! every kind of bad line is reported at its `FILE:LINE`; `--skip-invalid` counts and skips;
//! the deck size comes from `--deck`, `--labels` or the first permutation, up to 1000 cards.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use shuffle_bias::engine::algorithms::Card;
use shuffle_bias::engine::marginal::{MAX_MARGINAL_DECK, MarginalTally};
use shuffle_bias::engine::tally::TallyMode;
use shuffle_bias::input::permutation_reader::{
    Input, InputError, InputSource, InputTally, Numbering, ReaderOptions, open_sources,
    read_permutations,
};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(format!(
        "{}/fixtures/check/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
}

/// The 52 labels of the fixtures: AS..KS, AH..KH, AD..KD, AC..KC.
fn card_labels() -> Vec<String> {
    let ranks = [
        "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
    ];
    ["S", "H", "D", "C"]
        .iter()
        .flat_map(|suit| ranks.iter().map(move |rank| format!("{rank}{suit}")))
        .collect()
}

fn marginal() -> ReaderOptions {
    ReaderOptions {
        mode: TallyMode::Marginal,
        ..Default::default()
    }
}

fn labelled() -> ReaderOptions {
    ReaderOptions {
        labels: Some(card_labels()),
        ..marginal()
    }
}

fn read_files(names: &[&str], options: &ReaderOptions) -> Result<InputTally, InputError> {
    let sources: Vec<InputSource> = names
        .iter()
        .map(|name| InputSource::File(fixture(name)))
        .collect();
    let inputs = open_sources(&sources)?;
    read_permutations(
        &sources,
        inputs,
        options,
        &AtomicBool::new(false),
        &mut |_| {},
    )
}

fn read_file(name: &str, options: &ReaderOptions) -> Result<InputTally, InputError> {
    read_files(&[name], options)
}

fn read_text(text: &str, options: &ReaderOptions) -> Result<InputTally, InputError> {
    let sources = [InputSource::File("deals.txt".into())];
    let inputs = vec![Input::from_reader(std::io::Cursor::new(
        text.as_bytes().to_vec(),
    ))];
    read_permutations(
        &sources,
        inputs,
        options,
        &AtomicBool::new(false),
        &mut |_| {},
    )
}

fn tally_of(input: &InputTally) -> &MarginalTally {
    input
        .counts
        .marginal()
        .expect("marginal mode gives a marginal tally")
}

/// The six deals of the `deal52-*` fixtures, parsed here independently of the reader: every
/// line of the 0-based file that is neither blank nor a comment, split on spaces, tabs, commas.
fn fixture_deals() -> Vec<Vec<Card>> {
    std::fs::read_to_string(fixture("deal52-zero-based.txt"))
        .unwrap()
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            line.split([' ', '\t', ','])
                .filter(|token| !token.is_empty())
                .map(|token| token.parse().unwrap())
                .collect()
        })
        .collect()
}

fn tally_directly(n: usize, decks: &[Vec<Card>]) -> MarginalTally {
    let mut tally = MarginalTally::new(n);
    for deck in decks {
        tally.add(deck);
    }
    tally
}

/// A deterministic shuffle of 0..n (Fisher–Yates on a 64-bit LCG, Knuth's MMIX constants):
/// test data only, not a statistical source.
fn scrambled(n: usize, seed: u64) -> Vec<Card> {
    let mut state = seed;
    let mut deck: Vec<Card> = (0..n as Card).collect();
    for i in (1..n).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        deck.swap(i, ((state >> 33) % (i as u64 + 1)) as usize);
    }
    deck
}

fn line_of(deck: &[Card], offset: usize) -> String {
    let tokens: Vec<String> = deck
        .iter()
        .map(|&card| (usize::from(card) + offset).to_string())
        .collect();
    tokens.join(" ") + "\n"
}

#[test]
fn zero_based_one_based_and_labelled_deals_give_the_tally_of_the_decks_themselves() {
    let deals = fixture_deals();
    assert_eq!(deals.len(), 6);
    let expected = tally_directly(52, &deals);
    assert_eq!(
        expected.identity, 1,
        "the first deal is the unshuffled deck"
    );
    for (name, options, numbering) in [
        ("deal52-zero-based.txt", marginal(), Numbering::ZeroBased),
        ("deal52-one-based.txt", marginal(), Numbering::OneBased),
        ("deal52-labels.txt", labelled(), Numbering::Labels),
    ] {
        let input = read_file(name, &options).unwrap();
        assert_eq!(input.deck, 52, "{name}");
        assert_eq!(input.permutations, 6, "{name}");
        assert_eq!(input.numbering, numbering, "{name}");
        assert_eq!(input.invalid, 0, "{name}");
        assert_eq!(tally_of(&input), &expected, "{name}");
    }
}

#[test]
fn several_files_are_tallied_together_and_lines_are_counted_in_each() {
    let input = read_files(
        &["deal52-zero-based.txt", "deal52-zero-based.txt"],
        &marginal(),
    )
    .unwrap();
    let deals = fixture_deals();
    let twice: Vec<Vec<Card>> = deals.iter().chain(&deals).cloned().collect();
    assert_eq!(tally_of(&input), &tally_directly(52, &twice));
    assert_eq!(input.lines, 16);
    // Line numbers restart in every file.
    let error = read_files(
        &["deal52-zero-based.txt", "bad-deal52-repeated.txt"],
        &marginal(),
    )
    .unwrap_err();
    assert!(
        error.location.ends_with("bad-deal52-repeated.txt:3"),
        "{error}"
    );
}

#[test]
fn many_generated_deals_in_each_numbering_give_the_tally_of_the_decks_themselves() {
    let decks: Vec<Vec<Card>> = (0..500).map(|seed| scrambled(52, seed)).collect();
    let expected = tally_directly(52, &decks);
    let labels = card_labels();
    let zero: String = decks.iter().map(|deck| line_of(deck, 0)).collect();
    let one: String = decks.iter().map(|deck| line_of(deck, 1)).collect();
    let named: String = decks
        .iter()
        .map(|deck| {
            let tokens: Vec<&str> = deck
                .iter()
                .map(|&card| labels[usize::from(card)].as_str())
                .collect();
            tokens.join(",") + "\r\n"
        })
        .collect();
    for (text, options) in [(zero, marginal()), (one, marginal()), (named, labelled())] {
        let input = read_text(&text, &options).unwrap();
        assert_eq!(tally_of(&input), &expected);
        assert_eq!(input.permutations, 500);
    }
}

/// `(fixture, options, line, start of the message)` for every class of bad line.
#[test]
fn every_bad_52_card_line_is_reported_at_its_file_and_line() {
    let cases = [
        (
            "bad-deal52-repeated.txt",
            marginal(),
            3,
            "card '", // the repeated card's number follows
        ),
        (
            "bad-deal52-out-of-range.txt",
            marginal(),
            4,
            "card 60 is out of range: cards are 0..51 or 1..52",
        ),
        (
            "bad-deal52-too-few.txt",
            marginal(),
            3,
            "expected 52 cards, found 51",
        ),
        (
            "bad-deal52-too-many.txt",
            marginal(),
            3,
            "too many cards: expected 52, found more (extra token '7')",
        ),
        (
            "bad-deal52-unknown-label.txt",
            labelled(),
            3,
            "unknown label 'XS' (the labels are AS,2S,3S,4S,5S,6S,7S,8S,9S,10S,JS,QS,KS,… (52 \
             labels))",
        ),
        (
            "bad-deal52-mixed-numbering.txt",
            marginal(),
            3,
            "this permutation is 1-based but ",
        ),
        (
            "bad-deal52-zero-and-fifty-two.txt",
            marginal(),
            3,
            "mixes 0-based and 1-based values (both 0 and 52 appear)",
        ),
        (
            "bad-deal52-binary.txt",
            marginal(),
            3,
            "binary data (a NUL byte)",
        ),
    ];
    for (name, options, line, message) in cases {
        let error = read_file(name, &options).unwrap_err();
        let location = format!("{}:{line}", fixture(name).display());
        assert_eq!(error.location, location, "{name}: {error}");
        assert!(error.message().starts_with(message), "{name}: {error}");
        assert!(
            error
                .message()
                .ends_with("pass --skip-invalid to count and skip bad lines)"),
            "{name}: {error}"
        );
    }
}

#[test]
fn a_repeated_card_and_a_mixed_numbering_name_the_card_and_the_first_line() {
    let error = read_file("bad-deal52-repeated.txt", &marginal()).unwrap_err();
    let third = std::fs::read_to_string(fixture("bad-deal52-repeated.txt")).unwrap();
    let repeated = third.lines().nth(2).unwrap().split(' ').nth(10).unwrap();
    assert!(
        error
            .message()
            .starts_with(&format!("card '{repeated}' appears twice")),
        "{error}"
    );
    let error = read_file("bad-deal52-mixed-numbering.txt", &marginal()).unwrap_err();
    let first = format!("{}:1", fixture("bad-deal52-mixed-numbering.txt").display());
    assert!(
        error.message().starts_with(&format!(
            "this permutation is 1-based but {first} was 0-based"
        )),
        "{error}"
    );
}

#[test]
fn invalid_utf8_and_a_label_repeated_are_reported_at_their_line() {
    let deck = scrambled(52, 9);
    let mut bytes = line_of(&deck, 0).into_bytes();
    bytes.extend_from_slice(b"\xff ");
    bytes.extend_from_slice(line_of(&deck[1..], 0).as_bytes());
    let sources = [InputSource::File("deals.txt".into())];
    let inputs = vec![Input::from_reader(std::io::Cursor::new(bytes))];
    let error = read_permutations(
        &sources,
        inputs,
        &marginal(),
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap_err();
    assert_eq!(error.location, "deals.txt:2");
    assert!(error.message().starts_with("invalid UTF-8"), "{error}");

    let labels = card_labels();
    let mut named: Vec<&str> = labels.iter().map(String::as_str).collect();
    named[51] = "QH";
    let text = format!("# a deal\n{}\n{}\n", labels.join(" "), named.join(" "));
    let error = read_text(&text, &labelled()).unwrap_err();
    assert_eq!(error.location, "deals.txt:3");
    assert!(
        error.message().starts_with("card 'QH' appears twice"),
        "{error}"
    );
}

#[test]
fn skip_invalid_counts_the_bad_deals_and_tallies_only_the_good_ones() {
    let options = ReaderOptions {
        skip_invalid: true,
        ..marginal()
    };
    let input = read_file("skip-deal52.txt", &options).unwrap();
    assert_eq!(input.lines, 6);
    assert_eq!(input.permutations, 3);
    assert_eq!(input.invalid, 3);
    let name = fixture("skip-deal52.txt").display().to_string();
    let locations: Vec<&str> = input
        .invalid_examples
        .iter()
        .map(|example| example.location.as_str())
        .collect();
    assert_eq!(
        locations,
        [
            format!("{name}:2"),
            format!("{name}:4"),
            format!("{name}:6")
        ]
    );
    let problems: Vec<&str> = input
        .invalid_examples
        .iter()
        .map(|example| example.problem.as_str())
        .collect();
    assert_eq!(problems[0], "expected 52 cards, found 51");
    assert!(problems[1].ends_with("appears twice"), "{}", problems[1]);
    assert_eq!(
        problems[2],
        "'x' is not a card number (use integers, or give --labels for named cards)"
    );
    // The good lines are deals 1, 3 and 4 of the fixtures.
    let deals = fixture_deals();
    let good = [deals[1].clone(), deals[3].clone(), deals[4].clone()];
    assert_eq!(tally_of(&input), &tally_directly(52, &good));
}

#[test]
fn the_deck_size_comes_from_the_deck_option_the_labels_or_the_first_permutation() {
    // The first permutation.
    let input = read_text("2 0 1\n", &marginal()).unwrap();
    assert_eq!(input.deck, 3);
    assert_eq!(tally_of(&input).deck, 3);
    // The labels, even when the first line disagrees.
    let error = read_text("AS 2S 3S\n", &labelled()).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("deals.txt:1: expected 52 cards, found 3"),
        "{error}"
    );
    // The deck option.
    let error = read_text(
        "0 1 2\n",
        &ReaderOptions {
            deck: Some(52),
            ..marginal()
        },
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("deals.txt:1: expected 52 cards, found 3"),
        "{error}"
    );
}

#[test]
fn decks_up_to_1000_cards_are_read_and_larger_ones_are_refused() {
    let decks: Vec<Vec<Card>> = (0..3).map(|seed| scrambled(1000, seed)).collect();
    let text: String = decks.iter().map(|deck| line_of(deck, 1)).collect();
    let input = read_text(&text, &marginal()).unwrap();
    assert_eq!(input.deck, MAX_MARGINAL_DECK);
    assert_eq!(input.numbering, Numbering::OneBased);
    assert_eq!(tally_of(&input), &tally_directly(1000, &decks));

    let too_large = line_of(&scrambled(1001, 0), 0);
    let error = read_text(&too_large, &marginal()).unwrap_err();
    assert!(
        error.to_string().starts_with(
            "deals.txt:1: the first permutation has 1001 cards; decks of 2 to 1000 cards can be \
             tallied"
        ),
        "{error}"
    );
    let far_too_large = line_of(&scrambled(1002, 0), 0);
    let error = read_text(&far_too_large, &marginal()).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("deals.txt:1: too many cards: expected 1000, found more"),
        "{error}"
    );
    let error = read_text(
        "0 1\n",
        &ReaderOptions {
            deck: Some(1001),
            ..marginal()
        },
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "deals.txt: decks of 1001 cards cannot be tallied in this mode; give 2 to 1000 cards"
    );
    let error = read_text("0\n", &marginal()).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("deals.txt:1: the first permutation has 1 card;"),
        "{error}"
    );
}

#[test]
fn the_full_mode_still_refuses_a_52_card_deal() {
    let error = read_file("deal52-zero-based.txt", &ReaderOptions::default()).unwrap_err();
    assert_eq!(
        error.location,
        format!("{}:2", fixture("deal52-zero-based.txt").display())
    );
    assert!(
        error
            .message()
            .starts_with("too many cards: expected 11, found more"),
        "{error}"
    );
}
