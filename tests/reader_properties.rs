//! Property tests of the permutation reader: no input whatever makes it panic (every failure is
//! an error with a location), and any valid file round-trips to the counts it was written from.

use std::io::Read;
use std::sync::atomic::AtomicBool;

use proptest::prelude::*;
use shuffle_bias::algorithms::Card;
use shuffle_bias::permutation::{factorial, rank, unrank};
use shuffle_bias::permutation_reader::{InputSource, ReaderOptions, read_permutations};

fn read(bytes: Vec<u8>, options: &ReaderOptions) -> Result<Vec<u64>, String> {
    let sources = [InputSource::File("input.txt".into())];
    let inputs: Vec<Box<dyn Read>> = vec![Box::new(std::io::Cursor::new(bytes))];
    read_permutations(
        &sources,
        inputs,
        options,
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .map(|tally| tally.counts.into_full().expect("full mode"))
    .map_err(|error| error.to_string())
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
}
