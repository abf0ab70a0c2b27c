//! Whole outputs with fixed seeds, snapshot-tested (insta): any change in a figure or in the
//! layout shows up in review. Timing fields are the only parts redacted.

use assert_cmd::Command;

fn stdout(args: &[&str]) -> String {
    let output = Command::cargo_bin("shuffle-bias")
        .unwrap()
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap();
    String::from_utf8(output.stdout).unwrap()
}

/// The run header's second line holds the wall time and speed: replace it.
fn without_timing(text: &str) -> String {
    text.lines()
        .map(|line| {
            if line.starts_with("seed ") && line.contains("shuffles/s") {
                "seed … (timing redacted)"
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn theory_table_of_the_naive_shuffle_on_four_cards() {
    insta::assert_snapshot!(stdout(&["theory", "naive", "-n", "4"]));
}

#[test]
fn theory_json_of_the_timsort_comparator_on_four_cards() {
    let json: serde_json::Value = serde_json::from_str(&stdout(&[
        "theory",
        "comparator-timsort",
        "-n",
        "4",
        "--format",
        "json",
    ]))
    .unwrap();
    insta::assert_json_snapshot!(json, { ".version" => "[version]" });
}

#[test]
fn run_table_of_the_quick_start() {
    let text = stdout(&[
        "run",
        "naive",
        "--deck",
        "4",
        "--trials",
        "240k",
        "--seed",
        "42",
        "--threads",
        "2",
        "-q",
    ]);
    insta::assert_snapshot!(without_timing(&text));
}

#[test]
fn run_json_of_sattolo_against_its_model() {
    let json: serde_json::Value = serde_json::from_str(&stdout(&[
        "run",
        "sattolo",
        "-n",
        "4",
        "-t",
        "100k",
        "--seed",
        "3",
        "--threads",
        "2",
        "-q",
        "--against",
        "model",
        "--format",
        "json",
    ]))
    .unwrap();
    insta::assert_json_snapshot!(json, {
        ".version" => "[version]",
        ".elapsed_seconds" => "[elapsed]",
        ".shuffles_per_second" => "[rate]",
    });
}

#[test]
fn run_csv_tests_table_of_comparator_merge() {
    insta::assert_snapshot!(stdout(&[
        "run",
        "comparator-merge",
        "-n",
        "5",
        "-t",
        "500k",
        "--seed",
        "9",
        "--threads",
        "2",
        "-q",
        "--format",
        "csv",
        "--table",
        "tests",
    ]));
}
