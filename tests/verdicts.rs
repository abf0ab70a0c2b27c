//! Verdicts that mean what they say, through the binary: a rejection names its question, a
//! tally too regular to be a sample of shuffles is rejected, and the repeated decks of a
//! 52-card stream never claim a p-value finer than their 128-bit fingerprints resolve.

mod common;

use common::shuffle_bias;
use serde_json::Value;

/// Every ordering of 4 cards in rank order, `rounds` times over: a tally whose counts equal
/// their expectation exactly.
fn every_ordering_in_turn(rounds: usize) -> String {
    let mut orderings = Vec::new();
    let mut deck = [0usize, 1, 2, 3];
    loop {
        orderings.push(format!("{} {} {} {}", deck[0], deck[1], deck[2], deck[3]));
        // The next permutation in lexicographic order.
        let Some(i) = (0..3).rev().find(|&i| deck[i] < deck[i + 1]) else {
            break;
        };
        let j = (i + 1..4).rev().find(|&j| deck[j] > deck[i]).unwrap();
        deck.swap(i, j);
        deck[i + 1..].reverse();
    }
    assert_eq!(orderings.len(), 24);
    let mut text = String::new();
    for _ in 0..rounds {
        for line in &orderings {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

fn json_of(args: &[&str], input: &str) -> (Value, i32) {
    let output = shuffle_bias()
        .args(args)
        .args(["--format", "json", "-q"])
        .write_stdin(input)
        .output()
        .unwrap();
    (
        serde_json::from_slice(&output.stdout).unwrap(),
        output.status.code().unwrap(),
    )
}

#[test]
fn a_tally_too_regular_to_be_a_sample_of_shuffles_is_rejected_by_the_lower_tail() {
    // 240 lines, each ordering exactly 10 times: χ² = 0 on 23 df. Before, p = P(χ² ≥ 0) = 1 and
    // the check passed. Two-sided, the lower tail is read at the lattice's first step, 1/e_max =
    // 0.1: P(χ²₂₃ ≤ 0.1) is about 10^-30, far below alpha.
    let (report, code) = json_of(
        &["check", "-", "--no-deal-tests"],
        &every_ordering_in_turn(10),
    );
    assert_eq!(code, 1);
    let permutations = &report["tests"][0];
    assert_eq!(permutations["name"], "permutations");
    assert_eq!(permutations["method"], "pearson-chi-square-two-sided");
    assert_eq!(permutations["statistic"], 0.0);
    assert!(permutations["log10_p_value"].as_f64().unwrap() < -20.0);
    assert_eq!(permutations["rejected"], true);
    assert_eq!(permutations["question"], "law-of-one-deal");
}

#[test]
fn every_test_in_json_names_its_question_and_the_verdict_names_the_one_that_failed() {
    // Naive on 4 cards: biased, each deal drawn afresh. The law of one deal fails; dependence
    // between deals is tested and not detected.
    let output = shuffle_bias()
        .args([
            "run", "naive", "-n", "4", "-t", "240k", "--seed", "42", "--format", "json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    for test in report["tests"].as_array().unwrap() {
        let name = test["name"].as_str().unwrap();
        let expected = if name.starts_with("serial") {
            "dependence-between-deals"
        } else {
            "law-of-one-deal"
        };
        assert_eq!(test["question"], expected, "{name}");
        if name.starts_with("serial") {
            assert_eq!(test["rejected"], false, "{name}");
        }
    }
    let verdict = report["verdict"].as_str().unwrap();
    assert!(
        verdict.contains("on the law of one deal, by permutations"),
        "{verdict}"
    );
    assert!(
        verdict.ends_with("; not detected: dependence between deals"),
        "{verdict}"
    );
}

#[test]
fn repeated_decks_of_hashed_fingerprints_claim_no_p_value_finer_than_the_hashes_resolve() {
    // 300,000 52-card decks from 32-bit seeds repeat (about C(N,2)/2^32 ≈ 10.5 pairs). The
    // count comes from 128-bit hashes, which may merge two distinct decks with probability
    // C(N,2)·2^-128 ≈ 1.3·10^-28; the p-value is at least twice that (it was 10^-752).
    let output = shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "52",
            "--reseed",
            "every-shuffle",
            "--seed-bits",
            "32",
            "--seeds",
            "random",
            "-t",
            "300000",
            "--seed",
            "1",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let repeated = report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "repeated decks")
        .unwrap();
    assert_eq!(repeated["question"], "reach");
    assert_eq!(repeated["rejected"], true);
    let pairs = 300_000f64 * 299_999.0 / 2.0;
    let floor = (2.0 * pairs).log10() - 128.0 * 2f64.log10();
    let log10_p = repeated["log10_p_value"].as_f64().unwrap();
    assert!(log10_p >= floor - 1e-9, "{log10_p} < {floor}");
    assert!(
        report["verdict"]
            .as_str()
            .unwrap()
            .contains("on too few reachable decks, by repeated decks")
    );
}

#[test]
fn an_emitted_file_of_a_reseeded_run_names_the_command_that_makes_it_again() {
    // The header once dropped --reseed, --seed-bits and --seeds, so running it gave other decks.
    let first = shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "6",
            "-t",
            "500",
            "--seed",
            "3",
            "--reseed",
            "every-shuffle",
            "--seed-bits",
            "12",
            "--seeds",
            "counter",
            "--emit-permutations",
            "-",
            "-o",
            "/dev/null",
            "-q",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(first.stdout).unwrap();
    let header = text.lines().next().unwrap();
    assert!(
        header.contains("--reseed every-shuffle --seed-bits 12 --seeds counter"),
        "{header}"
    );
    // The header's command, run again, emits the same file.
    let command = header
        .strip_prefix("# shuffle-bias ")
        .and_then(|rest| rest.split(':').next())
        .unwrap();
    let mut args: Vec<&str> = command.split_whitespace().collect();
    args.extend(["--emit-permutations", "-", "-o", "/dev/null", "-q"]);
    let again = shuffle_bias().args(&args).output().unwrap();
    assert_eq!(String::from_utf8(again.stdout).unwrap(), text);
}

#[test]
fn a_pass_on_too_few_trials_says_so_in_the_table_and_the_markdown_not_only_on_stderr() {
    // One shuffle of 4 cards: every ordering expected 1/24 times, far below Cochran's 5. The
    // report a CI job publishes (Markdown) and the table must carry the warning beside the
    // verdict.
    for format in ["table", "markdown"] {
        let output = shuffle_bias()
            .args([
                "run", "naive", "-n", "4", "-t", "1", "--seed", "1", "--format", format,
            ])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0));
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(
            stdout.contains("warning: the smallest expected count per ordering is 0.042"),
            "{format}: {stdout}"
        );
    }
}
