//! Property tests of the permutation reader: no input whatever makes it panic (every failure is
//! an error with a location), and any valid file round-trips to the counts it was written from,
//! in every mode: all orderings of a small deck, the marginal tally of a 52-card deal, and the
//! deal tally of five-card hands (numbered 0-based or 1-based, or named); and a deck printed as
//! programs print it (plain, JSON, Python's and Node's prints, over several lines, NumPy's; numbers
//! or quoted labels) reads back to the same permutation.

use std::sync::atomic::AtomicBool;

use proptest::prelude::*;
use shuffle_bias::engine::algorithms::Card;
use shuffle_bias::engine::deal::DealTally;
use shuffle_bias::engine::marginal::MarginalTally;
use shuffle_bias::engine::permutation::{factorial, rank, unrank};
use shuffle_bias::engine::tally::TallyMode;
use shuffle_bias::input::cards::CardNames;
use shuffle_bias::input::permutation_reader::{
    DealsRequest, Input, InputSource, InputTally, ReaderOptions, read_permutations,
};
use shuffle_bias::theory::poker::card_name;

fn read_tally(bytes: Vec<u8>, options: &ReaderOptions) -> Result<InputTally, String> {
    let sources = [InputSource::File("input.txt".into())];
    let inputs = vec![Input::from_reader(std::io::Cursor::new(bytes))];
    read_permutations(
        &sources,
        inputs,
        options,
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .map_err(|error| error.to_string())
}

fn read(bytes: Vec<u8>, options: &ReaderOptions) -> Result<Vec<u64>, String> {
    read_tally(bytes, options).map(|tally| tally.counts.into_full().expect("full mode"))
}

fn read_marginal(bytes: Vec<u8>, options: &ReaderOptions) -> Result<MarginalTally, String> {
    read_tally(bytes, options).map(|tally| tally.counts.into_marginal().expect("marginal mode"))
}

/// The 52 labels AS..KS, AH..KH, AD..KD, AC..KC.
fn card_labels() -> Vec<String> {
    let ranks = [
        "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
    ];
    ["S", "H", "D", "C"]
        .iter()
        .flat_map(|suit| ranks.iter().map(move |rank| format!("{rank}{suit}")))
        .collect()
}

/// Options of every kind the marginal mode can be given: deck known or not, labels or not.
fn marginal_options() -> impl Strategy<Value = ReaderOptions> {
    (
        any::<bool>(),
        prop_oneof![Just(None), Just(Some(3)), Just(Some(52))],
        any::<bool>(),
    )
        .prop_map(|(skip_invalid, deck, labelled)| ReaderOptions {
            deck: deck.filter(|_| !labelled),
            labels: labelled.then(card_labels),
            skip_invalid,
            mode: TallyMode::Marginal,
            marginal_if_large: false,
            // The deal-stream hook sees every permutation too; it must never panic either.
            deals: Some(DealsRequest {
                fingerprint_limit: 64,
                thread: true,
            }),
            ..Default::default()
        })
}

/// Options of every kind a deal can be read with: five cards of 52 numbered or named, with or
/// without poker, or three cards of a ten-card deck.
fn deal_options() -> impl Strategy<Value = ReaderOptions> {
    (any::<bool>(), 0..3usize).prop_map(|(skip_invalid, kind)| ReaderOptions {
        deck: Some(if kind == 2 { 10 } else { 52 }),
        skip_invalid,
        mode: TallyMode::Marginal,
        deal: Some(if kind == 2 { 3 } else { 5 }),
        cards: (kind == 1).then_some(CardNames::Standard),
        poker: kind < 2,
        ..Default::default()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic_and_errors_carry_a_location(
        bytes in proptest::collection::vec(any::<u8>(), 0..400),
        skip in any::<bool>(),
    ) {
        let options = ReaderOptions { skip_invalid: skip, ..Default::default() };
        if let Err(message) = read(bytes, &options) {
            prop_assert!(message.starts_with("input.txt"), "{}", message);
        }
    }

    #[test]
    fn near_valid_lines_never_panic(
        lines in proptest::collection::vec(
            proptest::collection::vec(prop_oneof![Just(" "), Just(","), Just("\t"), Just("0"),
                Just("1"), Just("2"), Just("3"), Just("12"), Just("#"), Just("\r"), Just("x")],
                0..12),
            0..30),
    ) {
        let text: String = lines.iter().map(|l| l.concat() + "\n").collect();
        if let Err(message) = read(text.into_bytes(), &ReaderOptions::default()) {
            prop_assert!(message.starts_with("input.txt"), "{}", message);
        }
    }

    #[test]
    fn a_valid_file_round_trips_to_its_counts(
        n in 2usize..=6,
        ranks in proptest::collection::vec(any::<u32>(), 1..200),
        one_based in any::<bool>(),
        separator in prop_oneof![Just(" "), Just(","), Just("\t"), Just(", ")],
        crlf in any::<bool>(),
    ) {
        let cells = factorial(n) as usize;
        let mut expected = vec![0u64; cells];
        let mut text = String::from("# generated\n");
        for r in &ranks {
            let cell = *r as usize % cells;
            expected[cell] += 1;
            let deck: Vec<Card> = unrank(cell, n);
            assert_eq!(rank(&deck), cell);
            let tokens: Vec<String> =
                deck.iter().map(|&c| (usize::from(c) + usize::from(one_based)).to_string()).collect();
            text.push_str(&tokens.join(separator));
            text.push_str(if crlf { "\r\n" } else { "\n" });
        }
        // Every valid line carries its numbering (a 0-based line contains 0, a 1-based one n),
        // so the reader needs no hint to recover the counts.
        prop_assert_eq!(read(text.into_bytes(), &ReaderOptions::default()), Ok(expected));
    }

    #[test]
    fn arbitrary_bytes_never_panic_in_marginal_mode(
        bytes in proptest::collection::vec(any::<u8>(), 0..400),
        options in marginal_options(),
    ) {
        if let Err(message) = read_marginal(bytes, &options) {
            prop_assert!(message.starts_with("input.txt"), "{}", message);
        }
    }

    #[test]
    fn near_valid_lines_never_panic_in_marginal_mode(
        lines in proptest::collection::vec(
            proptest::collection::vec(prop_oneof![Just(" "), Just(","), Just("\t"), Just("0"),
                Just("1"), Just("2"), Just("3"), Just("51"), Just("52"), Just("999"),
                Just("1000"), Just("1001"), Just("AS"), Just("KC"), Just("#"), Just("\r"),
                Just("x"), Just("\u{0}"), Just("\u{e9}")],
                0..12),
            0..30),
        options in marginal_options(),
    ) {
        let text: String = lines.iter().map(|l| l.concat() + "\n").collect();
        if let Err(message) = read_marginal(text.into_bytes(), &options) {
            prop_assert!(message.starts_with("input.txt"), "{}", message);
        }
    }

    #[test]
    fn a_valid_52_card_file_round_trips_to_its_marginal_tally(
        decks in proptest::collection::vec(
            Just((0..52).collect::<Vec<Card>>()).prop_shuffle(), 1..40),
        numbering in 0..3usize,
        separator in prop_oneof![Just(" "), Just(","), Just("\t"), Just(", "), Just("  ")],
        crlf in any::<bool>(),
    ) {
        let labels = card_labels();
        let mut expected = MarginalTally::new(52);
        let mut text = String::from("# generated\n\n");
        for deck in &decks {
            expected.add(deck);
            let tokens: Vec<String> = deck
                .iter()
                .map(|&card| match numbering {
                    0 => card.to_string(),
                    1 => (card + 1).to_string(),
                    _ => labels[usize::from(card)].clone(),
                })
                .collect();
            text.push_str(&tokens.join(separator));
            text.push_str(if crlf { "\r\n" } else { "\n" });
        }
        let options = ReaderOptions {
            labels: (numbering == 2).then(card_labels),
            mode: TallyMode::Marginal,
            ..Default::default()
        };
        prop_assert_eq!(read_marginal(text.into_bytes(), &options), Ok(expected));
    }

    #[test]
    fn near_valid_lines_never_panic_in_deal_mode(
        lines in proptest::collection::vec(
            proptest::collection::vec(prop_oneof![Just(" "), Just(","), Just("\t"), Just("0"),
                Just("1"), Just("2"), Just("3"), Just("9"), Just("10"), Just("51"), Just("52"),
                Just("53"), Just("As"), Just("10h"), Just("T♥"), Just("kc"), Just("Zz"),
                Just("#"), Just("\r"), Just("x"), Just("\u{0}"), Just("\u{e9}")],
                0..8),
            0..30),
        options in deal_options(),
    ) {
        let text: String = lines.iter().map(|l| l.concat() + "\n").collect();
        match read_tally(text.into_bytes(), &options) {
            Err(message) => prop_assert!(message.starts_with("input.txt"), "{}", message),
            Ok(tally) => {
                let deal = tally.counts.deal().expect("deal mode");
                prop_assert_eq!(deal.deals, tally.permutations);
            }
        }
    }

    #[test]
    fn a_valid_deal_file_round_trips_to_its_deal_tally_in_order(
        decks in proptest::collection::vec(
            Just((0..52).collect::<Vec<Card>>()).prop_shuffle(), 1..60),
        numbering in 0..3usize,
        separator in prop_oneof![Just(" "), Just(","), Just("\t"), Just(", ")],
    ) {
        // The first five cards of each deck; in 1-based files the lines before the first one
        // holding card 52 cannot tell their numbering and are kept until it comes.
        let mut expected = DealTally::new(52, 5, true);
        let mut text = String::new();
        for deck in &decks {
            expected.add(&deck[..5]);
            let tokens: Vec<String> = deck[..5]
                .iter()
                .map(|&card| match numbering {
                    0 => card.to_string(),
                    1 => (card + 1).to_string(),
                    _ => card_name(card),
                })
                .collect();
            text.push_str(&tokens.join(separator));
            text.push('\n');
        }
        let options = ReaderOptions {
            deck: Some(52),
            deal: Some(5),
            cards: (numbering == 2).then_some(CardNames::Standard),
            poker: true,
            mode: TallyMode::Marginal,
            ..Default::default()
        };
        let tally = read_tally(text.into_bytes(), &options).unwrap();
        let decided = |card: Card| match numbering {
            0 => card == 0,
            1 => card == 51,
            _ => true,
        };
        let undecided = decks.iter().all(|deck| !deck[..5].iter().any(|&c| decided(c)));
        if undecided && numbering < 2 {
            // No line held 0 or 52: read as 0-based (for a 1-based file, shifted by one), and
            // said so.
            prop_assert_eq!(tally.numbering_assumed, decks.len() as u64);
            if numbering == 0 {
                prop_assert_eq!(tally.counts.deal(), Some(&expected));
            }
        } else {
            prop_assert_eq!(tally.numbering_assumed, 0);
            prop_assert_eq!(tally.counts.deal(), Some(&expected));
        }
    }
}

/// The labels of the format round trip: suits, as programs print them (escaped in JSON).
const SUITED: [&str; 7] = ["A♠", "K♥", "Q♦", "10♣", "J♣", "9♦", "8♥"];

/// `text` as Python's `json.dumps` writes a string: quoted, every non-ASCII character escaped.
fn json_string(text: &str) -> String {
    let mut quoted = String::from("\"");
    for character in text.chars() {
        if character.is_ascii() {
            quoted.push(character);
        } else {
            quoted.push_str(&format!("\\u{:04x}", u32::from(character)));
        }
    }
    quoted.push('"');
    quoted
}

/// The tokens of a deck printed by program `style` (0 `print(*deck)`, 1 `deck.join(",")`,
/// 2 `JSON.stringify`, 3 Python's `print(deck)`, 4 Node's `console.log` on one line, 5 the same
/// over several lines of `row` items, 6 NumPy's `print`): quoted labels in the bracketed styles
/// but NumPy's when `labelled`.
fn printed(tokens: &[String], labelled: bool, style: usize, row: usize) -> String {
    let quoted: Vec<String> = tokens
        .iter()
        .map(|token| match (labelled, style) {
            (false, _) | (true, 0 | 1 | 6) => token.clone(),
            (true, 2) => json_string(token),
            (true, _) => format!("'{token}'"),
        })
        .collect();
    match style {
        0 => quoted.join(" "),
        1 => quoted.join(","),
        2 => format!("[{}]", quoted.join(",")),
        3 => format!("[{}]", quoted.join(", ")),
        4 => format!("[ {} ]", quoted.join(", ")),
        5 => {
            let rows: Vec<String> = quoted
                .chunks(row)
                .map(|items| format!("  {}", items.join(", ")))
                .collect();
            format!("[\n{}\n]", rows.join(",\n"))
        }
        _ => format!("[{}]", quoted.join(" ")),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn any_permutation_printed_in_any_format_reads_back_to_its_counts(
        n in 2usize..=7,
        ranks in proptest::collection::vec(any::<u32>(), 1..60),
        style in 0usize..7,
        labelled in any::<bool>(),
        row in 1usize..=7,
        crlf in any::<bool>(),
    ) {
        let cells = factorial(n) as usize;
        let mut expected = vec![0u64; cells];
        let mut text = String::new();
        let labels: Vec<String> = SUITED[..n].iter().map(|label| label.to_string()).collect();
        for r in &ranks {
            let cell = *r as usize % cells;
            expected[cell] += 1;
            let deck: Vec<Card> = unrank(cell, n);
            let tokens: Vec<String> = deck
                .iter()
                .map(|&card| if labelled { labels[usize::from(card)].clone() } else { card.to_string() })
                .collect();
            let line = printed(&tokens, labelled, style, row);
            text.push_str(&line.replace('\n', if crlf { "\r\n" } else { "\n" }));
            text.push_str(if crlf { "\r\n" } else { "\n" });
        }
        let options = ReaderOptions {
            labels: labelled.then_some(labels),
            ..Default::default()
        };
        let tally = read_tally(text.into_bytes(), &options);
        let tally = tally.map_err(TestCaseError::fail)?;
        prop_assert_eq!(tally.permutations, ranks.len() as u64);
        prop_assert_eq!(tally.counts.into_full().expect("full mode"), expected);
    }
}
