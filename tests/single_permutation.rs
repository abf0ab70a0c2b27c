//! `check --single`: one permutation judged on its own — the 1969 US draft lottery, whose
//! published Spearman correlation between birthday and draft number is −0.226 (Fienberg 1971),
//! a planted uniform permutation, and the refusals of inputs that hold more or less than one.

mod common;

use std::path::PathBuf;

use common::shuffle_bias;
use predicates::prelude::*;
use predicates::str::contains;
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(format!(
        "{}/fixtures/single/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
}

fn single_json(file: &std::path::Path) -> (Value, i32) {
    let output = shuffle_bias()
        .args(["check", "--single", "--format", "json"])
        .arg(file)
        .output()
        .unwrap();
    let code = output.status.code().unwrap();
    (serde_json::from_slice(&output.stdout).unwrap(), code)
}

fn test_named<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test {name}"))
}

#[test]
fn the_1969_draft_lottery_reproduces_the_published_spearman_rho_and_is_biased() {
    let (report, code) = single_json(&fixture("draft-lottery-1969.txt"));
    assert_eq!(report["deck"], 366);
    assert_eq!(report["numbering"], "1-based");
    let rho = report["spearman_rho"].as_f64().unwrap();
    // Fienberg (1971): −0.226; the exact value of the data is −0.22568614.
    assert!((rho - (-0.226)).abs() < 0.0005, "rho = {rho}");
    assert!((rho - (-0.225_686_14)).abs() < 1e-8, "rho = {rho}");
    // ρ√(n − 1) = −4.31: a two-sided normal tail of 1.6e−5; the Edgeworth correction moves it
    // little. Holm over the family keeps it below the default alpha 0.001.
    let spearman = test_named(&report, "spearman-rho");
    assert_eq!(spearman["method"], "edgeworth");
    let p = spearman["p_value"].as_f64().unwrap();
    assert!((5e-6..5e-5).contains(&p), "p = {p}");
    assert_eq!(spearman["rejected"], true);
    assert_eq!(report["bias_detected"], true);
    assert_eq!(code, 1, "bias detected");
    // Kendall's τ from the inversions: 38,369 pairs out of order of 66,795.
    assert_eq!(test_named(&report, "inversions")["value"], 38369.0);
    let tau = report["kendall_tau"].as_f64().unwrap();
    assert!((tau - (1.0 - 4.0 * 38369.0 / (366.0 * 365.0))).abs() < 1e-12);
    // The permutation is read back in draw order: draft number 1 went to September 14.
    assert_eq!(report["permutation"][0], 257);
}

#[test]
fn the_draft_lottery_table_names_the_verdict_and_the_approximations() {
    shuffle_bias()
        .args(["check", "--single"])
        .arg(fixture("draft-lottery-1969.txt"))
        .assert()
        .code(1)
        .stdout(contains("BIAS DETECTED"))
        .stdout(contains("spearman-rho"))
        .stdout(contains("-0.2257"))
        .stdout(contains("edgeworth"));
}

#[test]
fn a_permutation_drawn_uniformly_is_not_flagged() {
    // A fixed Fisher–Yates permutation of 200 cards from run --emit-permutations: under a
    // uniform shuffle a family-wise rejection at alpha = 0.001 happens with probability at
    // most 0.001, and this seed's permutation is fixed, so the outcome is deterministic.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("one.txt");
    let emitted = shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "200",
            "-t",
            "1",
            "--seed",
            "11",
            "--emit-permutations",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert!(emitted.status.code().unwrap() <= 1, "{emitted:?}");
    let (report, code) = single_json(&file);
    assert_eq!(report["deck"], 200);
    assert_eq!(report["bias_detected"], false);
    assert_eq!(code, 0);
    for test in report["tests"].as_array().unwrap() {
        assert_eq!(test["rejected"], false, "{test}");
    }
}

#[test]
fn single_refuses_an_input_of_several_permutations() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("two.txt");
    std::fs::write(&file, "0 1 2 3\n3 2 1 0\n").unwrap();
    shuffle_bias()
        .args(["check", "--single"])
        .arg(&file)
        .assert()
        .code(2)
        .stderr(contains("--single"))
        .stderr(contains("2 permutations"));
}

#[test]
fn single_refuses_a_model_to_test_against() {
    shuffle_bias()
        .args(["check", "--single", "--against", "naive"])
        .arg(fixture("draft-lottery-1969.txt"))
        .assert()
        .code(2)
        .stderr(contains("--single"));
}

#[test]
fn the_starting_order_of_twenty_cards_has_a_finite_p_value_and_a_table_other_than_tests_is_refused()
{
    // ρ = 1: the Edgeworth tail underflows to 0; the p-value is 2/20! (one deck of 20!),
    // 20! = 2,432,902,008,176,640,000, and the JSON holds a number, never a null.
    let dir = tempfile::tempdir().unwrap();
    let identity = dir.path().join("identity.txt");
    let deck: Vec<String> = (0..20).map(|c| c.to_string()).collect();
    std::fs::write(&identity, format!("{}\n", deck.join(" "))).unwrap();
    let (report, code) = single_json(&identity);
    assert_eq!(code, 1);
    let rho = test_named(&report, "spearman-rho");
    let want = (2.0 / 2_432_902_008_176_640_000f64).log10();
    assert!(
        (rho["log10_p_value"].as_f64().unwrap() - want).abs() < 1e-9,
        "{rho}"
    );
    assert!(rho["p_value"].as_f64().unwrap() > 0.0);
    // Its CSV is the tests table: another is refused, naming the flag.
    shuffle_bias()
        .args([
            "check",
            "--single",
            "--format",
            "csv",
            "--table",
            "positions",
        ])
        .arg(&identity)
        .assert()
        .code(2)
        .stderr(contains("--table").and(contains("--single")));
    shuffle_bias()
        .args(["check", "--single", "--format", "csv", "--table", "tests"])
        .arg(&identity)
        .assert()
        .code(1)
        .stdout(contains("spearman-rho"));
}
