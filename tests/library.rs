//! The library API against the binary: a naive shuffle is flagged and Fisher–Yates passes, with
//! fixed seeds, and the report of `ShuffleTest` equals the report of `shuffle-bias check
//! --format json` on the same permutations, field for field (the input's name and the timings
//! aside), in full mode, in marginal mode and against an algorithm's exact law.
//!
//! Thresholds: the verdicts are Holm-adjusted at alpha = 0.001, so a truly uniform shuffle is
//! flagged on at most 0.1% of seeds (Holm 1979 bounds the family-wise error by alpha); the
//! seeds are fixed, so each verdict is the same on every run. The naive shuffle of 4 cards
//! has an exact law with w² = 0.0298 per trial, and `shuffle-bias theory naive -n 4` gives
//! 2,359 trials for 99% power at alpha 0.001: the 24,000 trials used here are ten times that.

mod common;

use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};

use common::shuffle_bias;
use serde_json::Value;
use shuffle_bias::rand::{Rng, RngExt};
use shuffle_bias::{Algorithm, RunReport, ShuffleRng, ShuffleTest, verdict_summary};

/// Swap every card with any card (n^n choice sequences on n! orderings: biased).
fn naive<T>(deck: &mut [T], rng: &mut impl Rng) {
    let n = deck.len();
    for i in 0..n {
        deck.swap(i, rng.random_range(0..n));
    }
}

/// Fisher–Yates, downwards: exactly uniform.
fn fisher_yates<T>(deck: &mut [T], rng: &mut impl Rng) {
    for i in (1..deck.len()).rev() {
        deck.swap(i, rng.random_range(0..=i));
    }
}

/// Run `shuffle` through `test`, recording each permutation as a line of `check`'s input.
fn recorded(
    test: &ShuffleTest,
    mut shuffle: impl FnMut(&mut [usize], &mut ShuffleRng),
) -> (RunReport, String) {
    let mut lines = String::new();
    let report = test
        .check_shuffle(|deck, rng| {
            shuffle(deck, rng);
            let cards: Vec<String> = deck.iter().map(ToString::to_string).collect();
            writeln!(lines, "{}", cards.join(" ")).unwrap();
        })
        .unwrap();
    (report, lines)
}

/// The JSON report of `shuffle-bias check FILE --format json ARGS` on `lines`, and its exit
/// code.
fn check_json(lines: &str, args: &[&str]) -> (Value, i32) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("permutations.txt");
    std::fs::write(&input, lines).unwrap();
    let output = shuffle_bias()
        .arg("check")
        .arg(&input)
        .args(["--format", "json", "--quiet"])
        .args(args)
        .output()
        .unwrap();
    let code = output.status.code().unwrap();
    assert!(
        code == 0 || code == 1,
        "check failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (serde_json::from_slice(&output.stdout).unwrap(), code)
}

/// A report as JSON without what differs between two readings of the same permutations: the
/// name of the input, the format of its lines (the library reads no text) and the timings.
fn comparable(mut report: Value) -> Value {
    let object = report.as_object_mut().unwrap();
    object.remove("elapsed_seconds");
    object.remove("shuffles_per_second");
    let input = object["input"].as_object_mut().unwrap();
    input.remove("sources");
    input.remove("format");
    report
}

/// A report as JSON text read back, as the binary's output is read (serde_json reads a float
/// back to within one unit in the last place, so both sides are read the same way).
fn as_json(report: &RunReport) -> Value {
    serde_json::from_str(&serde_json::to_string(report).unwrap()).unwrap()
}

/// The library's report equals the binary's on the same permutations, and the exit code is
/// the verdict's.
fn assert_same_as_check(report: &RunReport, lines: &str, args: &[&str]) {
    let (binary, code) = check_json(lines, args);
    assert_eq!(
        code,
        i32::from(report.bias_detected),
        "exit code and verdict"
    );
    let library = as_json(report);
    assert_eq!(library["verdict"], binary["verdict"]);
    assert_eq!(library["tests"], binary["tests"]);
    assert_eq!(comparable(library), comparable(binary));
}

#[test]
fn a_naive_shuffle_is_flagged_and_check_says_the_same_of_its_permutations() {
    let test = ShuffleTest::new(4).trials(24_000).seed(7);
    let (report, lines) = recorded(&test, naive);
    assert!(report.bias_detected, "{}", report.verdict);
    assert!(
        report
            .tests
            .iter()
            .any(|t| t.name == "permutations" && t.rejected)
    );
    assert_same_as_check(&report, &lines, &[]);
}

#[test]
fn fisher_yates_passes_and_check_says_the_same_of_its_permutations() {
    let test = ShuffleTest::new(4).trials(24_000).seed(7);
    let (report, lines) = recorded(&test, fisher_yates);
    assert!(!report.bias_detected, "{}", report.verdict);
    assert_same_as_check(&report, &lines, &[]);
}

#[test]
fn against_an_algorithm_the_library_and_check_compare_with_the_same_exact_law() {
    // The naive shuffle follows naive's exact law (no bias against it) and not riffle's: one
    // riffle of n cards reaches only 2^n − n orderings (12 of the 24 for n = 4), so the naive
    // shuffle's other 12 orderings, each of probability at least 8/256, are impossible under
    // it and are met about 24,000 · 12 · 8/256 = 9,000 times.
    let test = ShuffleTest::new(4)
        .trials(24_000)
        .seed(11)
        .against(Algorithm::Naive);
    let (report, lines) = recorded(&test, naive);
    assert!(!report.bias_detected, "{}", report.verdict);
    assert_same_as_check(&report, &lines, &["--against", "naive"]);

    let test = ShuffleTest::new(4)
        .trials(24_000)
        .seed(11)
        .against(Algorithm::Riffle);
    let (report, lines) = recorded(&test, naive);
    assert!(report.bias_detected, "{}", report.verdict);
    assert_same_as_check(&report, &lines, &["--against", "riffle"]);
}

#[test]
fn a_large_deck_is_judged_on_its_marginals_as_check_judges_it() {
    // 52 cards: positions, identity and permutation statistics, as `check --mode auto`. The
    // naive shuffle's position bias does not fade with the deck (its exact position law is
    // Robbins and Bolker 1981's; a card is likelier to end one place before where it started,
    // as `shuffle-bias theory naive` shows for small decks): at 20,000 trials `run naive -n
    // 52 --seed 1` rejects 50 of the 52 position tests.
    let test = ShuffleTest::new(52).trials(20_000).seed(3);
    let (report, lines) = recorded(&test, naive);
    assert!(report.bias_detected, "{}", report.verdict);
    assert_same_as_check(&report, &lines, &[]);

    let (report, lines) = recorded(&test, fisher_yates);
    assert!(!report.bias_detected, "{}", report.verdict);
    assert_same_as_check(&report, &lines, &[]);
}

#[test]
fn a_closure_that_deals_permutations_is_judged_like_a_shuffle_in_place() {
    let test = ShuffleTest::new(5).trials(10_000).seed(5);
    let in_place = test.check_shuffle(fisher_yates).unwrap();
    let dealt = test
        .check_permutations(|rng| {
            let mut deck: Vec<usize> = (0..5).collect();
            fisher_yates(&mut deck, rng);
            deck
        })
        .unwrap();
    assert_eq!(comparable(as_json(&in_place)), comparable(as_json(&dealt)));
}

#[test]
fn the_same_seed_gives_the_same_report_and_another_seed_other_counts() {
    let counts = |seed| {
        let report = ShuffleTest::new(4)
            .trials(2_400)
            .seed(seed)
            .check_shuffle(fisher_yates)
            .unwrap();
        report.full().unwrap().permutations.counts().to_vec()
    };
    assert_eq!(counts(1), counts(1));
    assert_ne!(counts(1), counts(2));
}

/// The message of a panic.
fn panic_message(run: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(run)).unwrap_err();
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(ToString::to_string))
        .unwrap()
}

#[test]
fn assert_no_bias_panics_with_the_verdict_and_the_strongest_failing_tests() {
    let test = ShuffleTest::new(4).trials(24_000).seed(7);
    let report = test.check_shuffle(naive).unwrap();
    let message = panic_message(|| {
        test.assert_no_bias(naive);
    });
    let mut lines = message.lines();
    assert_eq!(
        lines.next().unwrap(),
        format!("shuffle-bias: {}", report.verdict)
    );
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("strongest failing tests (of 9 in the family, alpha = 0.001):"),
        "{message}"
    );
    // The strongest test, named first, is the one the verdict calls strongest.
    let strongest = report
        .tests
        .iter()
        .min_by(|a, b| {
            a.log10_adjusted_p_value
                .total_cmp(&b.log10_adjusted_p_value)
        })
        .unwrap();
    assert!(
        lines
            .next()
            .unwrap()
            .trim_start()
            .starts_with(&strongest.name),
        "{message}"
    );
    assert!(
        message.ends_with("(ShuffleTest: 4 cards, 24000 shuffles, seed 7, alpha 0.001)"),
        "{message}"
    );
    assert!(message.starts_with(&verdict_summary(&report)));
}

#[test]
fn assert_bias_panics_with_the_verdict_when_nothing_is_found() {
    let test = ShuffleTest::new(4).trials(24_000).seed(7);
    test.assert_bias(naive);
    let report = test.assert_no_bias(fisher_yates);
    let message = panic_message(|| {
        test.assert_bias(fisher_yates);
    });
    assert!(
        message.starts_with(&format!("shuffle-bias: {}", report.verdict)),
        "{message}"
    );
    assert!(message.contains("the test closest to failing"), "{message}");
}

#[test]
fn a_shuffle_that_loses_a_card_fails_with_the_trial_and_the_duplicate() {
    let message = panic_message(|| {
        ShuffleTest::new(4).trials(100).assert_no_bias(|deck, rng| {
            let i = rng.random_range(0..deck.len());
            deck[0] = deck[i];
        });
    });
    assert!(
        message.starts_with("shuffle-bias: shuffle ")
            && message.contains("did not return a permutation of 0..4: card"),
        "{message}"
    );
}

#[test]
fn the_readme_example_passes_a_fisher_yates_shuffle_of_five_cards() {
    // README and docs/library.md: 240,000 shuffles of 5 cards with seed 1; a uniform shuffle fails on
    // at most 0.1% of seeds (Holm at alpha = 0.001), and this seed is fixed.
    ShuffleTest::new(5)
        .trials(240_000)
        .seed(1)
        .assert_no_bias(fisher_yates);
}

#[test]
fn assert_fair_within_passes_a_fair_shuffle_and_says_what_it_ruled_out() {
    // 200,000 Fisher–Yates shuffles of 4 cards: `theory fisher-yates -n 4 --max-bias 1pp` puts
    // the need at about 70,700, so the 99% bound falls within 1 point (fixed seed).
    let report = ShuffleTest::new(4)
        .trials(200_000)
        .assert_fair_within("1pp", fisher_yates);
    let gate = report.gate.as_ref().unwrap();
    assert!(gate.at_most <= 0.01);
    assert!(verdict_summary(&report).contains("What this sample rules out (99% confidence each)"));
}

#[test]
fn assert_fair_within_panics_on_a_bias_and_on_too_few_shuffles() {
    // The naive shuffle's positions are 4.30 points off at 4 cards: 24,000 shuffles (ten times
    // what 99% power needs) detect it.
    let message = panic_message(|| {
        ShuffleTest::new(4)
            .trials(24_000)
            .assert_fair_within("1pp", naive);
    });
    assert!(
        message.starts_with("shuffle-bias: BIAS DETECTED"),
        "{message}"
    );
    // 2,000 fair shuffles cannot bound the positions within 1 point.
    let message = panic_message(|| {
        ShuffleTest::new(4)
            .trials(2_000)
            .assert_fair_within("1pp", fisher_yates);
    });
    assert!(
        message.starts_with("shuffle-bias: INCONCLUSIVE") && message.contains("trials in all"),
        "{message}"
    );
    let message = panic_message(|| {
        ShuffleTest::new(4).assert_fair_within("one point", fisher_yates);
    });
    assert!(message.contains("not a size of bias"), "{message}");
}
