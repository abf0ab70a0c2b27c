//! Test two shuffle functions with the library, as a test suite would: a deliberately naive
//! one (swap every card with any card), which must be flagged, and Fisher–Yates, which must
//! pass. Each report is the one `shuffle-bias check` would give for the same permutations.
//!
//! Run with `cargo run --release --example test_your_shuffle`; it exits 1 if a verdict is not
//! the expected one. In a test suite, `ShuffleTest::assert_no_bias` does the same in one line.

use std::process::ExitCode;

use shuffle_bias::rand::{Rng, RngExt};
use shuffle_bias::{ShuffleTest, verdict_summary};

/// The classic mistake: every card swapped with a card drawn from the whole deck. The n^n
/// equally likely draw sequences cannot fall evenly on the n! orderings.
fn naive_shuffle<T>(deck: &mut [T], rng: &mut impl Rng) {
    let n = deck.len();
    for i in 0..n {
        let j = rng.random_range(0..n);
        deck.swap(i, j);
    }
}

/// Fisher–Yates (Durstenfeld's form): each card swapped with one at or below it.
fn fisher_yates<T>(deck: &mut [T], rng: &mut impl Rng) {
    for i in (1..deck.len()).rev() {
        let j = rng.random_range(0..=i);
        deck.swap(i, j);
    }
}

fn main() -> ExitCode {
    // Five cards, 240,000 shuffles: every one of the 120 orderings is expected 2,000 times.
    let test = ShuffleTest::new(5).trials(240_000).seed(2024);
    let mut as_expected = true;
    for (name, biased, shuffle) in [
        ("naive", true, naive_shuffle as fn(&mut [usize], &mut _)),
        (
            "fisher-yates",
            false,
            fisher_yates as fn(&mut [usize], &mut _),
        ),
    ] {
        let report = match test.check_shuffle(shuffle) {
            Ok(report) => report,
            Err(error) => {
                eprintln!("{name}: {error}");
                return ExitCode::from(2);
            }
        };
        println!("{name}:\n{}\n", verdict_summary(&report));
        as_expected &= report.bias_detected == biased;
    }
    if as_expected {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
