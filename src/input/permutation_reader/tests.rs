//! Tests of the permutation reader: the fast paths against the careful parser, every rejection, the
//! sources and the tallies fed.

use super::fast_paths::{
    CardBits, CardSet, CardStamps, LabelIndex, TWO_DIGIT_VALUES, parse_labelled, parse_plain,
    parse_two_digits,
};
use super::sources::Lines;
use super::*;
use crate::engine::marginal::MarginalTally;
use crate::engine::permutation::MAX_FULL_DECK;
use crate::input::avx2_line_parser::{self, AVX2_MAX_DECK};
use crate::input::wide_line_parser::{self, WIDE_MAX_DECK};
use std::io::Read;
use std::sync::mpsc;
use std::thread;

fn tally(text: &str, options: &ReaderOptions) -> Result<InputTally, InputError> {
    tally_bytes(text.as_bytes(), options)
}

fn tally_bytes(bytes: &[u8], options: &ReaderOptions) -> Result<InputTally, InputError> {
    let sources = [InputSource::File(PathBuf::from("deals.txt"))];
    let inputs = vec![Input::from_reader(io::Cursor::new(bytes.to_vec()))];
    read_permutations(
        &sources,
        inputs,
        options,
        &AtomicBool::new(false),
        &mut |_| {},
    )
}

fn error(text: &str) -> String {
    tally(text, &ReaderOptions::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn zero_based_lines_with_comments_blanks_commas_and_crlf_are_tallied() {
    let t = tally(
        "# deals\r\n0 1 2\r\n\r\n2,1,0\n  1\t0 2\n0, 1, 2\n",
        &ReaderOptions::default(),
    )
    .unwrap();
    assert_eq!(t.deck, 3);
    assert_eq!(t.permutations, 4);
    assert_eq!(t.lines, 6);
    assert_eq!(t.numbering, Numbering::ZeroBased);
    assert_eq!(t.counts.full().unwrap()[0], 2);
    assert_eq!(t.counts.full().unwrap()[rank(&[2, 1, 0])], 1);
    assert_eq!(t.counts.full().unwrap()[rank(&[1, 0, 2])], 1);
}

#[test]
fn each_source_is_digested_only_when_asked() {
    use crate::input::content_digest::ContentHasher;
    let text = "0 1 2\n2 1 0\n";
    let plain = tally(text, &ReaderOptions::default()).unwrap();
    assert!(plain.contents.is_empty());
    let digested = tally(
        text,
        &ReaderOptions {
            digest: true,
            ..Default::default()
        },
    )
    .unwrap();
    let mut hasher = ContentHasher::new();
    hasher.update(text.as_bytes());
    assert_eq!(digested.contents, vec![hasher.finish()]);
    assert_eq!(digested.contents[0].bytes, text.len() as u64);
    // The tallies are the same either way.
    assert_eq!(digested.counts.full(), plain.counts.full());
}

#[test]
fn one_based_lines_are_shifted_to_zero_based() {
    let t = tally("1 2 3\n3 2 1\n", &ReaderOptions::default()).unwrap();
    assert_eq!(t.numbering, Numbering::OneBased);
    assert_eq!(t.counts.full().unwrap()[0], 1);
    assert_eq!(t.counts.full().unwrap()[5], 1);
}

#[test]
fn labels_fix_the_starting_order() {
    let options = ReaderOptions {
        labels: Some(vec!["A".into(), "K".into(), "Q".into(), "10".into()]),
        ..Default::default()
    };
    let t = tally("A K Q 10\n10 Q K A\n", &options).unwrap();
    assert_eq!(t.numbering, Numbering::Labels);
    assert_eq!(t.counts.full().unwrap()[0], 1);
    assert_eq!(t.counts.full().unwrap()[23], 1);
}

#[test]
fn every_bad_line_names_its_file_line_and_token() {
    assert!(error("0 1 2\n0 1\n").starts_with("deals.txt:2: expected 3 cards, found 2"));
    assert!(error("0 1 2\n0 1 1\n").starts_with("deals.txt:2: card '1' appears twice"));
    assert!(error("0 1 2\n0 1 7\n").starts_with("deals.txt:2: card 7 is out of range"));
    assert!(error("0 1 x\n").starts_with("deals.txt:1: 'x' is not a card number"));
    assert!(error("0 1 2\n1 2 3\n").starts_with("deals.txt:2: this permutation is 1-based"));
    assert!(error("0 3 1\n").starts_with("deals.txt:1: mixes 0-based and 1-based"));
    assert!(error("0 1 2\n0 1 2 3\n").starts_with("deals.txt:2: too many cards"));
    assert!(error("0 1 \u{0}\n").starts_with("deals.txt:1: binary data"));
    assert!(error("# nothing\n\n").contains("no permutations"));
    assert!(error("").contains("no permutations"));
    let invalid_utf8 = tally_bytes(b"0 1 2\n2 \xff 0\n", &ReaderOptions::default());
    let message = invalid_utf8.unwrap_err().to_string();
    assert!(
        message.starts_with("deals.txt:2: invalid UTF-8"),
        "{message}"
    );
}

#[test]
fn undecided_deals_past_the_cap_are_read_as_0_based_and_a_later_1_based_line_is_an_error() {
    let options = ReaderOptions {
        deck: Some(52),
        deal: Some(5),
        mode: TallyMode::Marginal,
        ..Default::default()
    };
    // 2^20 values are 209,715 deals of five: the next one passes the cap.
    let undecided = PENDING_VALUES / 5 + 1;
    let mut text = "2 3 4 5 6\n".repeat(undecided);
    text.push_str("0 1 2 3 4\n");
    let t = tally(&text, &options).unwrap();
    assert_eq!(t.numbering, Numbering::ZeroBased);
    // The kept deals are read as 0-based when the cap is reached; the one after them
    // follows that numbering.
    assert_eq!(t.numbering_assumed, (PENDING_VALUES / 5) as u64);
    assert_eq!(t.permutations, undecided as u64 + 1);
    assert_eq!(
        t.counts.deal().unwrap().slot_matrix()[2][0],
        undecided as u64
    );
    text.push_str("1 2 3 4 52\n");
    let message = tally(&text, &options).unwrap_err().to_string();
    let last = undecided + 2;
    assert!(
        message.starts_with(&format!(
            "deals.txt:{last}: this deal is 1-based but deals.txt:"
        )),
        "{message}"
    );
    assert!(
        message.contains("read as 0-based: no line up to it held 0 or 52"),
        "{message}"
    );
}

#[test]
fn skip_invalid_counts_bad_lines_and_keeps_the_first_examples() {
    let options = ReaderOptions {
        skip_invalid: true,
        ..Default::default()
    };
    let t = tally("0 1 2\n0 1\n2 1 0\nx y z\n", &options).unwrap();
    assert_eq!(t.permutations, 2);
    assert_eq!(t.invalid, 2);
    assert_eq!(t.invalid_examples[0].location, "deals.txt:2");
    assert_eq!(t.invalid_examples[1].location, "deals.txt:4");
}

#[test]
fn a_given_deck_that_disagrees_with_the_input_is_an_error() {
    let options = ReaderOptions {
        deck: Some(4),
        ..Default::default()
    };
    let message = tally("0 1 2\n", &options).unwrap_err().to_string();
    assert!(
        message.starts_with("deals.txt:1: expected 4 cards, found 3"),
        "{message}"
    );
}

#[test]
fn a_digit_run_too_long_for_any_card_is_out_of_range_not_an_overflow() {
    // Regression: the fast path once multiplied by ten without bound, which overflows (and
    // panics in a debug build) on a run of 20 digits.
    let message = error("0 1 2\n0 1 99999999999999999999999\n");
    assert!(
        message.starts_with("deals.txt:2: card '99999999999999999999999' is out of range"),
        "{message}"
    );
    let options = ReaderOptions {
        mode: TallyMode::Marginal,
        ..Default::default()
    };
    let message = tally("0 1 2\n0 1 2999999999999999999999999\n", &options)
        .unwrap_err()
        .to_string();
    assert!(message.starts_with("deals.txt:2: card '"), "{message}");
}

#[test]
fn long_labels_and_runs_of_separators_are_read_in_both_modes() {
    let labels: Vec<String> = ["ace of spades, the long one", "K", "Q"]
        .iter()
        .map(|l| l.replace([' ', ','], "-"))
        .collect();
    let long = &labels[0];
    let text = format!("{long} K Q\nQ,K,{long}\n  K\t\t{long} ,Q\r\nQ K {long}\n");
    for mode in [TallyMode::Full, TallyMode::Marginal] {
        let options = ReaderOptions {
            labels: Some(labels.clone()),
            mode,
            ..Default::default()
        };
        let t = tally(&text, &options).unwrap();
        assert_eq!(t.permutations, 4);
        let decks: [&[Card]; 4] = [&[0, 1, 2], &[2, 1, 0], &[1, 0, 2], &[2, 1, 0]];
        match &t.counts {
            InputCounts::Full(counts) => {
                for deck in decks {
                    assert!(counts[rank(deck)] > 0);
                }
                assert_eq!(counts[rank(&[2, 1, 0])], 2);
            }
            InputCounts::Marginal(marginal) => {
                let mut expected = MarginalTally::new(3);
                for deck in decks {
                    expected.add(deck);
                }
                assert_eq!(marginal, &expected);
            }
            InputCounts::Deal(_) => unreachable!("no --deal here"),
        }
    }
}

#[test]
fn a_label_that_is_a_prefix_of_another_or_padded_with_nothing_is_not_confused() {
    let options = ReaderOptions {
        labels: Some(vec!["A".into(), "AA".into(), "AAA".into()]),
        mode: TallyMode::Marginal,
        ..Default::default()
    };
    let t = tally("A AA AAA\nAAA AA A\n", &options).unwrap();
    assert_eq!(t.counts.marginal().unwrap().identity, 1);
    let message = tally("A AA AAAA\n", &options).unwrap_err().to_string();
    assert!(
        message.starts_with("deals.txt:1: unknown label 'AAAA' (the labels are A,AA,AAA)"),
        "{message}"
    );
}

#[test]
fn the_cards_met_on_a_line_are_forgotten_at_the_next_even_when_the_stamp_wraps() {
    let mut seen = CardStamps::new(4);
    seen.stamp = u32::MAX - 1;
    for _ in 0..4 {
        let line = seen.start_line();
        assert!(line.insert(3));
        assert!(!line.insert(3));
        assert!(line.insert(0));
    }
    assert_eq!(
        seen.stamp, 3,
        "u32::MAX, then 1, 2, 3: zero is never a stamp"
    );
}

/// A source that hands out its bytes `step` at a time, as a pipe or a terminal may.
struct Trickle {
    bytes: Vec<u8>,
    at: usize,
    step: usize,
}

impl Read for Trickle {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let end = self.bytes.len().min(self.at + self.step.min(buffer.len()));
        let length = end - self.at;
        buffer[..length].copy_from_slice(&self.bytes[self.at..end]);
        self.at = end;
        Ok(length)
    }
}

fn trickle(bytes: &[u8], step: usize) -> Input {
    Input::from_reader(Trickle {
        bytes: bytes.to_vec(),
        at: 0,
        step,
    })
}

/// A source whose read blocks until the test lets it go (by dropping the sender): a FIFO
/// nobody writes to, a terminal nobody types at.
struct Blocked(mpsc::Receiver<()>);

impl Read for Blocked {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        let _ = self.0.recv();
        Ok(0)
    }
}

/// Tally named sources in order.
fn tally_sources(
    inputs: Vec<(&str, Input)>,
    options: &ReaderOptions,
) -> Result<InputTally, InputError> {
    let sources: Vec<InputSource> = inputs
        .iter()
        .map(|(name, _)| InputSource::File(PathBuf::from(name)))
        .collect();
    let inputs = inputs.into_iter().map(|(_, input)| input).collect();
    read_permutations(
        &sources,
        inputs,
        options,
        &AtomicBool::new(false),
        &mut |_| {},
    )
}

/// Read `text` and then block until stopped: the flag is set after 100 ms, and the result
/// must come within 10 s (a liveness bound, not a speed test).
fn tally_then_stop(text: &str) -> Result<InputTally, InputError> {
    let (release, blocked) = mpsc::channel::<()>();
    let input =
        Input::from_reader(io::Cursor::new(text.as_bytes().to_vec()).chain(Blocked(blocked)));
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let (done, result) = mpsc::channel();
    let reading_stop = std::sync::Arc::clone(&stop);
    thread::spawn(move || {
        let sources = [InputSource::Stdin];
        let tally = read_permutations(
            &sources,
            vec![input],
            &ReaderOptions::default(),
            &reading_stop,
            &mut |_| {},
        );
        let _ = done.send(tally);
    });
    thread::sleep(Duration::from_millis(100));
    stop.store(true, Ordering::Relaxed);
    let tally = result
        .recv_timeout(Duration::from_secs(10))
        .expect("the reading ends once stopped, though its source still blocks");
    drop(release);
    tally
}

#[test]
fn full_tallies_counted_in_batches_count_every_deck_read_or_stopped() {
    // From 8 cards (8! cells) the fast path counts its decks 16 at a time, in bytes with a
    // carry; 1,000 + 7 decks leave a part batch to be counted at the end, and the stopped
    // reading counts its part too.
    let mut decks: Vec<Vec<Card>> = Vec::new();
    let mut deck: Vec<Card> = (0..8).collect();
    for i in 0..1007usize {
        // The identity every third line (336 times, so that its byte carries past 255).
        if i % 3 == 0 {
            decks.push((0..8).collect());
            continue;
        }
        deck.rotate_left(1 + i % 7);
        deck.swap(i % 8, (3 * i + 1) % 8);
        decks.push(deck.clone());
    }
    let text: String = decks
        .iter()
        .map(|deck| {
            let line: Vec<String> = deck.iter().map(Card::to_string).collect();
            line.join(" ") + "\n"
        })
        .collect();
    let mut expected = vec![0u64; 40320];
    for deck in &decks {
        expected[rank(deck)] += 1;
    }
    let read = tally(&text, &ReaderOptions::default()).unwrap();
    let stopped = tally_then_stop(&text).unwrap();
    assert!(stopped.interrupted);
    for t in [read, stopped] {
        assert_eq!(t.permutations, 1007);
        let InputCounts::Full(counts) = &t.counts else {
            panic!("a full tally");
        };
        assert_eq!(counts, &expected);
        assert_eq!(counts[0], 336);
    }
}

#[test]
fn a_stop_while_the_source_blocks_ends_the_reading_with_what_was_read() {
    // Regression: the stop flag was only read between buffer refills, so a read that never
    // returned (a terminal, a FIFO without a writer) could not be interrupted.
    let t = tally_then_stop("0 1 2\n2 1 0\n").unwrap();
    assert!(t.interrupted);
    assert_eq!(t.permutations, 2);
    assert_eq!(t.sources, ["<stdin>"]);
}

#[test]
fn a_stop_before_any_permutation_is_an_error_marked_interrupted() {
    let error = tally_then_stop("# nothing yet\n").unwrap_err();
    assert!(error.is_interrupted());
    assert_eq!(
        error.to_string(),
        "<stdin>: interrupted before any permutation was read; nothing to report"
    );
}

#[test]
fn sources_are_read_in_order_with_lines_numbered_per_source() {
    let t = tally_sources(
        vec![
            ("a.txt", trickle(b"0 1 2\n2 1 0", 2)),
            ("b.txt", trickle(b"1 0 2\n", 5)),
        ],
        &ReaderOptions::default(),
    )
    .unwrap();
    assert_eq!(t.permutations, 3);
    assert_eq!(t.sources, ["a.txt", "b.txt"]);
    let error = tally_sources(
        vec![
            ("a.txt", trickle(b"0 1 2\n2 1 0", 3)),
            ("b.txt", trickle(b"\n1 0 9\n", 3)),
        ],
        &ReaderOptions::default(),
    )
    .unwrap_err();
    assert!(error.to_string().starts_with("b.txt:2: card 9"), "{error}");
}

#[test]
fn a_missing_file_or_a_directory_fails_before_any_reading_and_names_itself() {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let sources = [
        InputSource::File(here.join("Cargo.toml")),
        InputSource::File(here.join("no-such-file.txt")),
    ];
    let error = open_sources(&sources).err().unwrap();
    assert!(error.location.ends_with("no-such-file.txt"), "{error}");
    assert!(
        error.message().starts_with("cannot open the file ("),
        "{error}"
    );
    let error = open_sources(&[InputSource::File(here.join("src"))])
        .err()
        .unwrap();
    assert!(
        error.message().starts_with("this is a directory"),
        "{error}"
    );
}

/// "0 1 2" padded with spaces to `length` bytes: a valid line of any length.
fn padded_line(length: usize) -> Vec<u8> {
    let mut line = b"0 1 2".to_vec();
    line.resize(length, b' ');
    line
}

#[test]
fn a_line_of_exactly_the_cap_is_read_and_one_byte_more_is_rejected_at_its_line() {
    for step in [MAX_LINE + 3, 4096, 1000] {
        let mut text = b"2 1 0\n".to_vec();
        text.extend(padded_line(MAX_LINE));
        text.extend(b"\n");
        let t = tally_sources(
            vec![("deals.txt", trickle(&text, step))],
            &ReaderOptions::default(),
        );
        assert_eq!(t.unwrap().permutations, 2, "reads of {step} bytes");

        let mut text = b"2 1 0\n".to_vec();
        text.extend(padded_line(MAX_LINE + 1));
        text.extend(b"\n0 1 2\n");
        let error = tally_sources(
            vec![("deals.txt", trickle(&text, step))],
            &ReaderOptions::default(),
        )
        .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("deals.txt:2: line longer than 1048576 bytes: '0 1 2 "),
            "reads of {step} bytes: {error}"
        );
    }
}

#[test]
fn an_over_long_line_without_a_newline_is_rejected_without_being_stored() {
    // Regression: a 200 MB line without a newline was gathered whole (199 MB of memory)
    // before it was rejected. Now at most the cap is held, and the rest is skipped.
    let options = ReaderOptions {
        skip_invalid: true,
        ..Default::default()
    };
    let mut reader = Reader::new(&options, None);
    let mut lines = Lines::new("deals.txt");
    reader.chunk(&mut lines, b"0 1 2\n").unwrap();
    let mut held = 0;
    let block = vec![b'7'; 64 * 1024];
    for _ in 0..(5 * MAX_LINE / block.len()) {
        reader.chunk(&mut lines, &block).unwrap();
        held = held.max(lines.carry.capacity());
    }
    reader.chunk(&mut lines, b"77\n2 1 0\n").unwrap();
    reader.end(&mut lines).unwrap();
    assert!(held <= 2 * MAX_LINE, "{held} bytes held for one line");
    assert_eq!(reader.permutations, 2);
    assert_eq!(reader.lines, 3);
    assert_eq!(reader.invalid, 1);
    assert_eq!(reader.invalid_examples[0].location, "deals.txt:2");
    assert!(
        reader.invalid_examples[0]
            .problem
            .starts_with("line longer than 1048576 bytes: '7777")
    );
}

#[test]
fn a_byte_order_mark_at_the_start_of_each_source_is_skipped_even_when_split() {
    // Regression: a UTF-8 byte-order mark (as some Windows editors write) made the first
    // card of the first line "not a card number".
    let t = tally_sources(
        vec![
            ("a.txt", trickle(b"\xEF\xBB\xBF0 1 2\n", 1)),
            ("b.txt", trickle(b"\xEF\xBB\xBF# deals\n2 1 0\n", 2)),
            ("c.txt", trickle(b"\xEF\xBB\xBF1 0 2", 64)),
        ],
        &ReaderOptions::default(),
    )
    .unwrap();
    assert_eq!(t.permutations, 3);
    let options = ReaderOptions {
        labels: Some(vec!["A".into(), "K".into(), "Q".into()]),
        ..Default::default()
    };
    let t = tally_bytes(b"\xEF\xBB\xBFA K Q\n", &options).unwrap();
    assert_eq!(t.counts.full().unwrap()[0], 1);
}

#[test]
fn a_byte_order_mark_after_the_start_of_a_source_is_still_an_error() {
    let message = tally_bytes(b"0 1 2\n\xEF\xBB\xBF2 1 0\n", &ReaderOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("deals.txt:2: '\\u{feff}2' is not a card number"),
        "{message}"
    );
    let message = tally_bytes(b" \xEF\xBB\xBF0 1 2\n", &ReaderOptions::default())
        .unwrap_err()
        .to_string();
    assert!(message.starts_with("deals.txt:1:"), "{message}");
}

#[test]
fn an_empty_field_between_commas_is_rejected_by_number_on_any_line() {
    // Regression: `0,,1,2,3` was read as `0 1 2 3`, since empty tokens were dropped.
    let cases = [
        (
            "0,,1,2,3\n",
            "deals.txt:1: empty field 2: nothing between two commas after '0'",
        ),
        (
            "0,1,2,3\n0,,1,2,3\n",
            "deals.txt:2: empty field 2: nothing between two commas after '0'",
        ),
        (
            "0,1,2,3\n0, 1 ,\t, 2,3\n",
            "deals.txt:2: empty field 3: nothing between two commas after '1'",
        ),
        (
            "0 1 2 3\n,0 1 2 3\n",
            "deals.txt:2: empty field 1: the line starts with a comma",
        ),
        (
            "0 1 2 3\n  , 0 1 2 3\n",
            "deals.txt:2: empty field 1: the line starts with a comma",
        ),
        (
            "0 1 2 3\n0 1 2 3,\n",
            "deals.txt:2: empty field 5: the line ends with a comma after '3'",
        ),
        (
            "0 1 2 3\n0 1 2 3 , \r\n",
            "deals.txt:2: empty field 5: the line ends with a comma after '3'",
        ),
    ];
    for (text, expected) in cases {
        let message = error(text);
        assert!(message.starts_with(expected), "{text:?}: {message}");
    }
    let options = ReaderOptions {
        labels: Some(vec!["A".into(), "K".into(), "Q".into()]),
        ..Default::default()
    };
    let message = tally("A K Q\nA,,K,Q\n", &options).unwrap_err().to_string();
    assert!(
        message.starts_with("deals.txt:2: empty field 2: nothing between two commas after 'A'"),
        "{message}"
    );
}

#[test]
fn runs_of_blanks_around_at_most_one_comma_are_one_separator() {
    let t = tally(
        "0 1 2 3\n0  1\t\t2 3\n0 , 1\t,\t2,3\n0,1 2 ,3 \n",
        &ReaderOptions::default(),
    )
    .unwrap();
    assert_eq!(t.permutations, 4);
    assert_eq!(t.counts.full().unwrap()[0], 4);
}

/// One of the edits a bad line can show, `edit` 0 to 15 (others: none), at byte `at` of the
/// line (`at` < its length): a doubled, missing, trailing or odd separator, a digit more or a
/// token cut, a leading zero, a token too many or `outside` (a card out of range), a CR, a
/// non-digit, a NUL, a byte next to the digits.
fn mutate(bytes: &mut Vec<u8>, edit: usize, at: usize, outside: usize) {
    match edit {
        0 => bytes.insert(at, b' '),
        1 => bytes.insert(at, b'7'),
        2 => bytes.push(b' '),
        3 => bytes.push(b'\r'),
        4 => bytes.extend_from_slice(b" 5"),
        5 => bytes.truncate(at),
        6 => bytes[at] = b'x',
        7 => bytes[at] = b'.',
        8 => bytes.insert(0, b','),
        9 => bytes.extend_from_slice(format!(" {outside}").as_bytes()),
        10 => bytes[at] = 0,
        11 => bytes[at] = b'#',
        // The bytes just below '0' and above '9', and '0' with its high bit set.
        12 => bytes[at] = b'/',
        13 => bytes[at] = b':',
        14 => bytes[at] = 0xb0,
        15 => bytes.insert(at, b'0'),
        _ => {}
    }
}

#[test]
fn the_two_digit_fast_path_accepts_exactly_the_lines_and_cards_of_the_plain_one() {
    // Lines of up to 52 cards, 0- and 1-based, whole decks and deals, each mutated by one
    // of the edits a bad line can show (a doubled, missing, trailing or odd separator, a
    // third digit, a card out of range, a repeat, a token too few or too many, a CR, a
    // non-digit, a NUL, a byte next to the digits); the fast paths — the scalar ones and,
    // on a CPU that has them, the AVX2 and AVX-512 ones — must agree on every line, and on the
    // cards when they accept it.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |bound: usize| {
        (crate::engine::random_source::splitmix64(&mut state) % bound as u64) as usize
    };
    let mut accepted = 0;
    let mut wide_checked = 0;
    let mut avx2_checked = 0;
    for case in 0..40_000 {
        let n = [2, 3, 9, 10, 11, 52, 64, 99, 100][case % 9];
        let offset = usize::from(case % 2 == 1 && n < TWO_DIGIT_VALUES);
        let count = if case % 3 == 0 { 1 + next(n) } else { n };
        let mut cards: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            cards.swap(i, next(i + 1));
        }
        let tokens: Vec<String> = cards[..count]
            .iter()
            .map(|c| (c + offset).to_string())
            .collect();
        let separators = [" ", "\t", ","];
        let mut line = String::new();
        for (i, token) in tokens.iter().enumerate() {
            if i > 0 {
                line.push_str(separators[next(3)]);
            }
            line.push_str(token);
        }
        let edit = next(19);
        let mut bytes = line.into_bytes();
        let at = next(bytes.len());
        // Not the leading zero (15): `parse_plain` takes a third digit, the two-digit paths not.
        if edit < 15 {
            mutate(&mut bytes, edit, at, n + offset);
        }
        let mut fast = [0 as Card; 128];
        let mut plain = [0 as Card; 128];
        let ok = parse_two_digits(&bytes, count, n, offset, &mut fast);
        let mut seen = CardStamps::new(n);
        let expected = parse_plain(&bytes, count, n, offset, &mut plain, seen.start_line());
        assert_eq!(ok, expected, "{:?}", String::from_utf8_lossy(&bytes));
        if ok {
            assert_eq!(fast[..count], plain[..count]);
            accepted += 1;
        }
        if avx2_line_parser::available() && n <= AVX2_MAX_DECK {
            let mut vector = [0 as Card; 128];
            let vector_ok = avx2_line_parser::parse(&bytes, count, n, offset, &mut vector);
            assert_eq!(vector_ok, expected, "{:?}", String::from_utf8_lossy(&bytes));
            if vector_ok {
                assert_eq!(vector[..count], plain[..count]);
                avx2_checked += 1;
            }
        }
        if wide_line_parser::available() && n <= WIDE_MAX_DECK {
            let mut wide = [0 as Card; 128];
            let wide_ok = wide_line_parser::parse(&bytes, count, n, offset, &mut wide);
            assert_eq!(wide_ok, expected, "{:?}", String::from_utf8_lossy(&bytes));
            if wide_ok {
                assert_eq!(wide[..count], plain[..count]);
                wide_checked += 1;
            }
        }
    }
    // Both outcomes are exercised.
    assert!((10_000..38_000).contains(&accepted), "{accepted}");
    if wide_line_parser::available() {
        assert!(wide_checked > 5_000, "{wide_checked}");
    }
    if avx2_line_parser::available() {
        assert!(avx2_checked > 5_000, "{avx2_checked}");
    }
}

/// `line` as it is, then once for each place of `places` within it with a bad byte there (a
/// digit made ':', anything else '/': the bytes next to the digits).
fn with_a_bad_byte_at(line: &str, places: impl IntoIterator<Item = usize>) -> Vec<Vec<u8>> {
    let mut variants = vec![line.as_bytes().to_vec()];
    for at in places.into_iter().filter(|&at| at < line.len()) {
        let mut bad = line.as_bytes().to_vec();
        bad[at] = if bad[at].is_ascii_digit() { b':' } else { b'/' };
        variants.push(bad);
    }
    variants
}

#[test]
fn the_vector_readings_agree_with_the_plain_one_at_every_line_length() {
    // The vector readings take a line in blocks of 32 or 64 bytes, the last one read where it
    // overlaps the one before: every length from 1 to the longest line of 64 cards (181 bytes),
    // accepted, and refused for a bad byte at the first, the last, and each block's edge; the
    // line lies between two digits, which no reading may take for its own.
    // A line of c tokens, d of them two-digit, is 2c − 1 + d bytes long.
    let n = 64;
    let mut lengths = 0;
    for length in 1..=181usize {
        let Some((count, two)) = (1..=n)
            .flat_map(|c| (0..=c).map(move |d| (c, d)))
            .find(|&(c, d)| 2 * c - 1 + d == length && c - d <= 10 && d <= 54)
        else {
            continue;
        };
        lengths += 1;
        // One-digit and two-digit cards alternating while both last, separators in turn.
        let (mut ones, mut twos) = ((0..count - two).peekable(), (10..10 + two).peekable());
        let mut line = String::new();
        for i in 0..count {
            let card = match (i % 2, ones.peek(), twos.peek()) {
                (0, Some(_), _) | (_, Some(_), None) => ones.next(),
                _ => twos.next(),
            }
            .unwrap();
            if i > 0 {
                line.push([' ', ',', '\t'][i % 3]);
            }
            line.push_str(&card.to_string());
        }
        assert_eq!(line.len(), length);
        let edges = [0, length - 1, 31, 32, 33, 63, 64, 65, 95, 96, 127, 128, 159, 160];
        let variants = with_a_bad_byte_at(&line, edges);
        for (v, variant) in variants.iter().enumerate() {
            // Digits just outside the line, where a reading that strays would see them.
            let framed = [&b"9"[..], variant, b"9"].concat();
            let bytes = &framed[1..=length];
            let mut plain = [0 as Card; 64];
            let expected =
                parse_plain(bytes, count, n, 0, &mut plain, CardStamps::new(n).start_line());
            assert_eq!(expected, v == 0, "{length}: {:?}", String::from_utf8_lossy(bytes));
            if avx2_line_parser::available() {
                let mut vector = [0 as Card; 64];
                let ok = avx2_line_parser::parse(bytes, count, n, 0, &mut vector);
                assert_eq!(ok, expected, "{:?}", String::from_utf8_lossy(bytes));
                assert!(!ok || vector[..count] == plain[..count], "{length}");
            }
            if wide_line_parser::available() {
                let mut wide = [0 as Card; 64];
                let ok = wide_line_parser::parse(bytes, count, n, 0, &mut wide);
                assert_eq!(ok, expected, "{:?}", String::from_utf8_lossy(bytes));
                assert!(!ok || wide[..count] == plain[..count], "{length}");
            }
        }
    }
    // Every length from 1 to 181 but 180 (64 cards with 53 two-digit would need 11 one-digit).
    assert_eq!(lengths, 180);
}

#[test]
fn the_fast_paths_leave_empty_fields_to_the_careful_parser() {
    let labels = ["A", "K", "Q"].map(String::from);
    let index = LabelIndex::new(&labels);
    for line in ["0,,1,2", ",0,1,2", "0,1,2,", "0,1,2,,"] {
        let mut deck = [0; MAX_FULL_DECK];
        assert!(
            !parse_plain(line.as_bytes(), 3, 3, 0, &mut deck, &mut CardBits(0)),
            "{line}"
        );
        let labelled = line.replace('0', "A").replace('1', "K").replace('2', "Q");
        assert!(
            !parse_labelled(labelled.as_bytes(), 3, &index, &mut deck, &mut CardBits(0)),
            "{labelled}"
        );
    }
    let mut deck = [0; MAX_FULL_DECK];
    assert!(parse_plain(b"0,1,2", 3, 3, 0, &mut deck, &mut CardBits(0)));
    assert!(parse_labelled(
        b"A,K,Q",
        3,
        &index,
        &mut deck,
        &mut CardBits(0)
    ));
}

#[test]
fn messages_about_one_card_or_one_rejected_line_are_singular() {
    assert!(error("0\n").starts_with("deals.txt:1: the first permutation has 1 card;"));
    let options = ReaderOptions {
        skip_invalid: true,
        ..Default::default()
    };
    let message = tally("# deals\n0 1 1\n", &options).unwrap_err().to_string();
    assert_eq!(
        message,
        "deals.txt: no valid permutation: the only non-blank line was rejected: \
             deals.txt:2: card '1' appears twice"
    );
    let message = tally("0 1 1\n0 0 1\n", &options).unwrap_err().to_string();
    assert!(
        message.ends_with(
            "all 2 non-blank lines were rejected; the first: deals.txt:1: card '1' appears \
                 twice"
        ),
        "{message}"
    );
}

#[test]
fn a_list_printed_over_several_lines_is_one_permutation_named_by_its_first_line() {
    let t = tally(
        "[\n  2, 0,\n  1, 3\n]\n[ 0, 1,\r\n 2, 3 ]\n# end\n[3, 2, 1, 0]\n",
        &ReaderOptions::default(),
    )
    .unwrap();
    assert_eq!(t.permutations, 3);
    assert_eq!(t.lines, 8);
    assert_eq!(t.format, Some(LineFormat::Brackets));
    let counts = t.counts.full().unwrap();
    assert_eq!(counts[rank(&[2, 0, 1, 3])], 1);
    assert_eq!(counts[rank(&[0, 1, 2, 3])], 1);
    assert_eq!(counts[rank(&[3, 2, 1, 0])], 1);
    assert!(
        error("[0, 1, 2]\n[\n 2, 2,\n 1\n]\n").starts_with("deals.txt:2: card '2' appears twice"),
    );
    assert!(
        error("[\n 0, 1,\n[1, 0]\n").starts_with(
            "deals.txt:1: the list in brackets has no closing ']' before line 3 opens \
                 another; the line is '[ 0, 1,'"
        ),
        "{}",
        error("[\n 0, 1,\n[1, 0]\n")
    );
}

#[test]
fn an_unclosed_list_under_skip_invalid_is_counted_and_the_next_source_reads_on() {
    let options = ReaderOptions {
        skip_invalid: true,
        ..Default::default()
    };
    let t = tally("[0, 1]\n[1, 0]\n[\n 0,\n", &options).unwrap();
    assert_eq!(t.permutations, 2);
    assert_eq!(t.invalid, 1);
    assert_eq!(t.invalid_examples[0].location, "deals.txt:3");
}

#[test]
fn the_fast_paths_are_kept_for_plain_lines_only() {
    // A plain first line fixes the format: a list after it is a mix, not a misread.
    let message = error("0 1 2 3\n0 1 2 3\n[3, 2, 1, 0]\n");
    assert!(
        message.starts_with("deals.txt:3: this line is a list in brackets but deals.txt:1 was"),
        "{message}"
    );
    // Lists of 52 cards, which the plain fast paths would refuse, are all read.
    let deck: Vec<String> = (0..52).rev().map(|card| card.to_string()).collect();
    let line = format!("[{}]\n", deck.join(", "));
    let options = ReaderOptions {
        mode: TallyMode::Marginal,
        ..Default::default()
    };
    let t = tally(&line.repeat(40), &options).unwrap();
    assert_eq!(t.permutations, 40);
    assert_eq!(t.format, Some(LineFormat::Brackets));
}
/// Numbers below `bound` from a xorshift64* generator seeded with `seed` (Vigna 2016).
fn xorshift(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed;
    move |bound| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) % bound
    }
}

/// `lines` lines of text, each one of `others` (blank, comment, rejected lines) one time in
/// `one_in` for each of them, else a valid line made of the cards that `valid_line` gives,
/// joined by the separator it gives; and the valid lines' cards, in order.
fn mixed_text<N: FnMut(u64) -> u64>(
    lines: usize,
    one_in: u64,
    others: &[&str],
    next: &mut N,
    mut valid_line: impl FnMut(&mut N) -> (Vec<Card>, &'static str),
) -> (String, Vec<Vec<Card>>) {
    let mut text = String::new();
    let mut valid = Vec::new();
    for _ in 0..lines {
        match others.get(next(one_in) as usize) {
            Some(other) => text.push_str(other),
            None => {
                let (cards, separator) = valid_line(next);
                let line: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
                text.push_str(&line.join(separator));
                text.push('\n');
                valid.push(cards);
            }
        }
    }
    (text, valid)
}

/// A Fisher–Yates shuffle of `0..n` drawn from `next`.
fn shuffled(n: usize, next: &mut impl FnMut(u64) -> u64) -> Vec<Card> {
    let mut deck: Vec<Card> = (0..n as Card).collect();
    for i in (1..n).rev() {
        deck.swap(i, next(i as u64 + 1) as usize);
    }
    deck
}

#[test]
fn whole_decks_counted_by_rank_pair_across_blank_comment_and_rejected_lines() {
    // The deal stream of the full mode is counted from ranks; the pairs are the consecutive
    // permutations tallied, whatever blank, comment or rejected lines lie between them: the
    // counts must equal those of the valid lines fed one by one to `DealStream::add`.
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    for n in [3usize, 4, 5, 7] {
        let others = ["\n", "# a comment\n", "0 0 1\n", "  \t \r\n"];
        let (text, valid) = mixed_text(4000, 20, &others, &mut next, |next| {
            let deck = shuffled(n, next);
            let separator = if next(2) == 0 { " " } else { ", " };
            (deck, separator)
        });
        let options = ReaderOptions {
            skip_invalid: true,
            deals: Some(DealsRequest {
                fingerprint_limit: 1 << 20,
                // Ranked whole decks are counted in place whatever this says.
                thread: true,
            }),
            ..Default::default()
        };
        let t = tally(&text, &options).unwrap();
        assert!(t.invalid > 0);
        let mut plain = deal_stream_for(&options, n).unwrap();
        for deck in &valid {
            plain.add(deck);
        }
        assert_eq!(t.deals.unwrap(), plain.finish(), "{n} cards");
    }
}

#[test]
fn marginal_decks_reach_the_deal_stream_in_line_order_in_batches_or_not() {
    // Marginal mode hands the decks parsed by the fast path to the deal stream a batch at a
    // time, and those of other lines (tabs, doubled spaces: the general parser) one by one
    // after the batch's: the counts must equal those of the valid lines fed one by one, with
    // blank, comment and rejected lines between them.
    // With the stream counted on its own thread or in place: the same counts. 3,000 lines of
    // 52 cards fill more buffers than the thread has, so buffers are given back and refilled.
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    for (n, thread) in [(20usize, false), (20, true), (52, false), (52, true), (100, true)] {
        let mut text = String::new();
        let mut valid: Vec<Vec<Card>> = Vec::new();
        for _ in 0..3000 {
            match next(24) {
                0 => text.push('\n'),
                1 => text.push_str("# a comment\n"),
                2 => text.push_str("0 0 1\n"),
                choice => {
                    let deck = shuffled(n, &mut next);
                    let separator = match choice % 4 {
                        0 => "\t",
                        1 => "  ",
                        _ => " ",
                    };
                    let line: Vec<String> = deck.iter().map(|c| c.to_string()).collect();
                    text.push_str(&line.join(separator));
                    text.push('\n');
                    valid.push(deck);
                }
            }
        }
        let options = ReaderOptions {
            skip_invalid: true,
            mode: TallyMode::Marginal,
            deals: Some(DealsRequest {
                fingerprint_limit: 1 << 20,
                thread,
            }),
            ..Default::default()
        };
        let t = tally(&text, &options).unwrap();
        assert!(t.invalid > 0);
        assert_eq!(t.permutations, valid.len() as u64);
        // The marginal tally, whose positions the fused pass leaves to the deal stream's slot
        // tables here, is that of the valid decks added one by one, and the same as without
        // the deal stream (when the pass counts them itself).
        let mut marginal = MarginalTally::new(n);
        for deck in &valid {
            marginal.add(deck);
        }
        assert_eq!(t.counts.marginal(), Some(&marginal), "{n} cards, thread {thread}");
        let alone = ReaderOptions {
            deals: None,
            ..options.clone()
        };
        assert_eq!(
            tally(&text, &alone).unwrap().counts.marginal(),
            Some(&marginal),
            "{n} cards, no deal stream"
        );
        let mut plain = deal_stream_for(&options, n).unwrap();
        for deck in &valid {
            plain.add(deck);
        }
        assert_eq!(t.deals.unwrap(), plain.finish(), "{n} cards, thread {thread}");
    }
}

#[test]
fn deals_counted_on_the_stream_thread_are_counted_as_in_place() {
    // `--deal 5 --deck 52`: 5-card deals, 4,096 to a buffer of the stream's thread, so the
    // 27,000 or so here fill seven buffers, more than the thread has: buffers come back and are
    // refilled.
    // With blank, comment and rejected lines between them, the deal stream counted on its
    // thread, in place, and deal by deal through `DealStream::add` must be the same.
    let mut next = xorshift(0x5851_f42d_4c95_7f2d);
    let others = ["\n", "# a comment\n", "0 0 1 2 3\n"];
    let (text, valid) = mixed_text(30_000, 40, &others, &mut next, |next| {
        (shuffled(52, next)[..5].to_vec(), " ")
    });
    let mut tallies = Vec::new();
    for thread in [false, true] {
        let options = ReaderOptions {
            deck: Some(52),
            skip_invalid: true,
            mode: TallyMode::Marginal,
            deal: Some(5),
            deals: Some(DealsRequest {
                fingerprint_limit: 1 << 20,
                thread,
            }),
            ..Default::default()
        };
        let t = tally(&text, &options).unwrap();
        assert_eq!(t.permutations, valid.len() as u64);
        let mut plain = deal_stream_for(&options, 52).unwrap();
        for deal in &valid {
            plain.add(deal);
        }
        let counted = t.deals.unwrap();
        assert_eq!(counted, plain.finish(), "thread {thread}");
        tallies.push(counted);
    }
    assert_eq!(tallies[0], tallies[1]);
}

#[test]
fn a_rejected_first_line_does_not_fix_the_deck_size() {
    // With --skip-invalid, a first line that is no permutation ("0 0 1": card 0 twice) is
    // rejected and counted, and the deck's size is that of the first valid line: before, its
    // three tokens fixed the size, so every 5-card line after it was rejected too.
    let text = "0 0 1\n2 0 3 1 4\n4 3 2 1 0\n9 9\n1 0 2 3 4\n";
    for mode in [TallyMode::Full, TallyMode::Marginal] {
        let options = ReaderOptions {
            skip_invalid: true,
            mode,
            ..Default::default()
        };
        let t = tally(text, &options).unwrap();
        assert_eq!((t.deck, t.permutations, t.invalid), (5, 3, 2), "{mode:?}");
        assert!(
            t.invalid_examples[1].problem.contains("expected 5 cards, found 2"),
            "{:?}",
            t.invalid_examples
        );
    }
    // Without --skip-invalid the first line is the error.
    assert!(error(text).starts_with("deals.txt:1:"), "{}", error(text));
}

#[test]
fn the_long_lines_reading_accepts_only_lines_and_cards_the_plain_ones_accept() {
    // Decks of 65 to 256 cards (tarot's 78, two and four decks of 52, …), 0- and 1-based,
    // whole decks and deals of 16 cards or more, some tokens written with leading zeros (up to
    // four digits), each line mutated by one of the edits a bad line can show. The AVX-512
    // reading of long lines (two-digit tokens up to 100 cards, three-digit ones beyond) must
    // accept a line only when the scalar path it stands before accepts it, with the same
    // cards, and must accept every such line whose tokens have at most its digits.
    if !wide_line_parser::available() {
        return;
    }
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |bound: usize| {
        (crate::engine::random_source::splitmix64(&mut state) % bound as u64) as usize
    };
    let (mut accepted, mut refused) = (0, 0);
    for case in 0..12_000 {
        let n = [65, 78, 99, 100, 101, 104, 128, 200, 208, 255, 256][case % 11];
        let offset = case % 2;
        let digits = if n + offset <= TWO_DIGIT_VALUES { 2 } else { 3 };
        let count = if case % 3 == 0 { 16 + next(n - 15) } else { n };
        let mut cards: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            cards.swap(i, next(i + 1));
        }
        let separators = [" ", "\t", ","];
        let mut line = String::new();
        for (i, card) in cards[..count].iter().enumerate() {
            if i > 0 {
                line.push_str(separators[next(3)]);
            }
            let value = (card + offset).to_string();
            // In one line of five, now and then a leading zero or two (up to four digits).
            let zeros = if case % 5 == 4 && next(40) == 0 {
                1 + next(2)
            } else {
                0
            };
            line.push_str(&"0".repeat(zeros));
            line.push_str(&value);
        }
        let mut bytes = line.into_bytes();
        let at = next(bytes.len());
        mutate(&mut bytes, next(26), at, n + offset);
        let mut plain = [0 as Card; 256];
        let mut seen = CardStamps::new(n);
        let expected = if digits == 2 {
            parse_two_digits(&bytes, count, n, offset, &mut plain)
        } else {
            parse_plain(&bytes, count, n, offset, &mut plain, seen.start_line())
        };
        let longest = bytes
            .strip_suffix(b"\r")
            .unwrap_or(&bytes)
            .split(|b| matches!(b, b' ' | b'\t' | b','))
            .map(<[u8]>::len)
            .max()
            .unwrap_or(0);
        let mut long = [0 as Card; 256];
        let ok = wide_line_parser::parse_long(&bytes, count, n, offset, digits, &mut long);
        let text = String::from_utf8_lossy(&bytes);
        assert!(!ok || expected, "{n} cards: accepted a line the plain path refuses: {text:?}");
        assert_eq!(ok, expected && longest <= digits, "{n} cards: {text:?}");
        if ok {
            assert_eq!(long[..count], plain[..count], "{n} cards: {text:?}");
            accepted += 1;
        } else {
            refused += 1;
        }
    }
    // Both outcomes are exercised.
    assert!(accepted > 2_000 && refused > 2_000, "{accepted} {refused}");
}

#[test]
fn the_long_lines_reading_takes_every_line_length_and_block_edge() {
    // 256-card lines of 1-, 2- and 3-digit tokens, cut to every count from 16 to 256 (lengths
    // up to 1,023 bytes, sixteen 64-byte blocks), accepted; and refused for a bad byte at
    // every block's edge, with a digit just outside the line that no reading may take.
    if !wide_line_parser::available() {
        return;
    }
    let n = 256;
    let order: Vec<usize> = (0..n).rev().collect();
    for count in 16..=n {
        let separator = |i: usize| if i == 0 { "" } else { [" ", ",", "\t"][i % 3] };
        let line: String = order[..count]
            .iter()
            .enumerate()
            .map(|(i, card)| format!("{}{card}", separator(i)))
            .collect();
        let length = line.len();
        let edge = |at: &usize| *at == 0 || at + 1 == length || at % 64 <= 1 || at % 64 >= 62;
        let variants = with_a_bad_byte_at(&line, (0..length).filter(edge));
        for (v, variant) in variants.iter().enumerate() {
            let framed = [&b"9"[..], variant, b"9"].concat();
            let bytes = &framed[1..=length];
            let mut long = [0 as Card; 256];
            let ok = wide_line_parser::parse_long(bytes, count, n, 0, 3, &mut long);
            assert_eq!(ok, v == 0, "{count} cards, variant {v}");
            if ok {
                let cards: Vec<usize> = long[..count].iter().map(|&c| usize::from(c)).collect();
                assert_eq!(cards, order[..count], "{count} cards");
            }
        }
    }
}

#[test]
fn wrapped_lists_of_numpy_node_and_r_are_gathered_into_one_permutation_each() {
    // NumPy's repr with its dtype on a line of its own; Node's typed array over three lines; R's
    // vector over two, its second line headed by the index of its first item.
    for (text, lines) in [
        (
            "array([2, 0,\n       1, 3],\n      dtype=int8)\narray([0, 1, 2, 3], dtype=int8)\n",
            4,
        ),
        ("Uint8Array(4) [\n  2, 0,\n  1, 3\n]\nUint8Array(4) [ 0, 1, 2, 3 ]\n", 5),
        ("[1] 3 1\n[3] 2 4\n[1] 1 2 3 4\n", 3),
        (" [1] 3 1\n [3] 2 4\n\n# R\n [1] 1 2\n [3] 3 4\n", 6),
    ] {
        let t = tally(text, &ReaderOptions::default()).unwrap();
        assert_eq!(t.permutations, 2, "{text}");
        assert_eq!(t.lines, lines, "{text}");
        let counts = t.counts.full().unwrap();
        assert_eq!(counts[rank(&[2, 0, 1, 3])], 1, "{text}");
        assert_eq!(counts[rank(&[0, 1, 2, 3])], 1, "{text}");
    }
}

#[test]
fn an_r_vector_ends_at_the_next_line_that_does_not_go_on_with_it() {
    // Its last line is read at the end of the source, even without a newline.
    let t = tally("[1] 1 2\n[3] 3\n[1] 3 2\n[3] 1", &ReaderOptions::default()).unwrap();
    assert_eq!(t.permutations, 2);
    // A vector whose lines were cut or shuffled is refused at its first line.
    assert!(
        error("[1] 1 2\n[4] 3\n").starts_with(
            "deals.txt:1: a line of the R vector starts at [4] after 2 items, not [3]"
        ),
        "{}",
        error("[1] 1 2\n[4] 3\n")
    );
    assert!(error("[3] 3 1\n").starts_with("deals.txt:1: the R vector starts at [3], not [1]"));
    // A wrapped vector is no shorter deck followed by a stray line, even under --skip-invalid.
    let options = ReaderOptions {
        skip_invalid: true,
        ..Default::default()
    };
    let t = tally("[1] 1 2\n[3] 3 4\n[1] 4 3\n[3] 2 1\n", &options).unwrap();
    assert_eq!((t.deck, t.permutations, t.invalid), (4, 2, 0));
    // --trials stops at the vector that reaches it, not at the one after.
    let options = ReaderOptions {
        limit: Some(1),
        ..Default::default()
    };
    let t = tally("[1] 1 2\n[3] 3 4\n[1] 4 3\n[3] 2 1\n", &options).unwrap();
    assert_eq!(t.permutations, 1);
    assert_eq!(t.counts.full().unwrap()[0], 1);
}

#[test]
fn lines_wrapped_in_different_ways_are_a_mix_of_formats() {
    for (text, problem) in [
        (
            "(3, 0, 1, 2)\n[3, 0, 1, 2]\n",
            "deals.txt:2: this line is a list in brackets but deals.txt:1 was a Python tuple",
        ),
        (
            "[np.int64(3), np.int64(0), np.int64(1), np.int64(2)]\n[3, 0, 1, 2]\n",
            "deals.txt:2: this line is a list in brackets but deals.txt:1 was a list in brackets \
             of NumPy scalars (`np.int64(…)`)",
        ),
        (
            "Uint8Array(3) [ 2, 0, 1 ]\nInt8Array(3) [ 2, 0, 1 ]\n",
            "deals.txt:2: this line is a Node Int8Array but deals.txt:1 was a Node Uint8Array",
        ),
        (
            "[1] 3 1 2\n[3, 1, 2]\n",
            "deals.txt:2: this line is a list in brackets but deals.txt:1 was an R vector",
        ),
        (
            "array([2, 0, 1])\n2 0 1\n",
            "deals.txt:2: this line is a plain line but deals.txt:1 was a NumPy array",
        ),
        (
            "2 0 1\n(2, 0, 1)\n",
            "deals.txt:2: this line is a list in brackets but deals.txt:1 was a plain line",
        ),
    ] {
        let message = error(text);
        assert!(message.starts_with(problem), "{text}: {message}");
    }
    // The line expected is shown in the shape of the first.
    let message = error("(2, 0, 1)\n(2, 0, 1\n");
    assert!(
        message.contains("expected a Python tuple (`(3, 0, 1, 2)`) as on deals.txt:1"),
        "{message}"
    );
}

#[test]
fn a_wrapper_that_is_not_numpy_s_is_no_card_number() {
    let message = error("[foo(3), foo(0), foo(1), foo(2)]\n");
    assert!(
        message.starts_with("deals.txt:1: 'foo(3)' is not a card number"),
        "{message}"
    );
    let message = error("[np.int64(3), np.int64(0), np.int64(1), np.int64(2]\n");
    assert!(message.starts_with("deals.txt:1: the NumPy scalar 'np.int64(2' has no closing ')'"), "{message}");
}
