//! `compare` from the outside: one table, the self-test exit code, Ctrl-C, and bad flags.

mod common;

use common::shuffle_bias;
use predicates::prelude::*;
use serde_json::Value;

fn compare_json(args: &[&str]) -> (Value, i32) {
    let output = shuffle_bias()
        .args(["compare", "--quiet", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
    (json, output.status.code().unwrap())
}

#[test]
fn the_classic_comparison_prints_one_table_and_exits_zero() {
    shuffle_bias()
        .args([
            "compare",
            "fisher-yates",
            "naive",
            "sattolo",
            "comparator-merge",
            "-n",
            "4",
            "-t",
            "1M",
            "--seed",
            "7",
            "-q",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("ALL AS EXPECTED"))
        .stdout(predicate::str::contains("comparator-merge"))
        .stdout(predicate::str::contains("fair ✓"))
        .stdout(predicate::str::contains("biased ✓"));
}

#[test]
fn each_row_matches_the_run_of_that_algorithm_with_the_same_seed() {
    let (compare, code) = compare_json(&["naive", "fisher-yates", "-t", "300k", "--seed", "11"]);
    assert_eq!(code, 0);
    for (row, algorithm) in compare["rows"]
        .as_array()
        .unwrap()
        .iter()
        .zip(["naive", "fisher-yates"])
    {
        let output = shuffle_bias()
            .args([
                "run", algorithm, "-t", "300k", "--seed", "11", "-q", "--format", "json",
            ])
            .output()
            .unwrap();
        let run: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(row["algorithm"], algorithm);
        assert_eq!(row["chi_square"], run["tests"][0]["statistic"]);
        assert_eq!(row["identity_frequency"], run["identity"]["frequency"]);
        assert_eq!(row["tv_distance"], run["tv_distance"]);
        assert_eq!(row["bias_detected"], run["bias_detected"]);
        assert_eq!(row["position_frequencies"], run["positions"]["frequencies"]);
    }
}

#[test]
fn a_biased_shuffle_that_is_missed_makes_the_self_test_fail_with_exit_one() {
    // naive at 4 cards needs about 2,500 trials for 99% power (the two-sided permutations
    // test's upper tail at alpha/(2·tests)); 100 trials miss it with this seed (and the report
    // says how many trials would catch it).
    let (json, code) = compare_json(&["naive", "fisher-yates", "-t", "100", "--seed", "7"]);
    assert_eq!(code, 1);
    assert_eq!(json["all_as_expected"], false);
    let naive = &json["rows"][0];
    assert_eq!(naive["bias_detected"], false);
    assert_eq!(naive["as_expected"], false);
    assert_eq!(naive["trials_to_detect"], 2455);
    assert!(
        json["verdict"]
            .as_str()
            .unwrap()
            .contains("naive's bias was not detected")
    );
}

#[test]
fn all_compares_every_built_in_algorithm_in_list_order() {
    let (json, code) = compare_json(&["--all", "-t", "200k", "--seed", "3"]);
    assert_eq!(code, 0, "{json}");
    let names: Vec<&str> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["algorithm"].as_str().unwrap())
        .collect();
    let listed = shuffle_bias()
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let expected: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, expected);
}

#[test]
fn csv_has_one_row_per_algorithm() {
    let output = shuffle_bias()
        .args([
            "compare", "naive", "sattolo", "-t", "100k", "--seed", "1", "-q", "--format", "csv",
        ])
        .output()
        .unwrap();
    let mut reader = csv::Reader::from_reader(output.stdout.as_slice());
    let headers = reader.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2);
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
    assert_eq!(&rows[1][column("algorithm")], "sattolo");
    assert_eq!(&rows[1][column("identity_frequency")], "0");
    assert_eq!(&rows[1][column("as_expected")], "true");
}

#[test]
fn bad_compare_flags_exit_two_with_a_message_naming_the_flag() {
    for (args, needle) in [
        (vec!["naive", "naive"], "naive is given twice"),
        (vec!["naive", "--deck", "12"], "--deck 12"),
        (vec!["naive", "--trials", "0"], "--trials 0"),
        (
            vec!["naive", "--format", "csv", "--table", "tests"],
            "--table",
        ),
        (vec!["naive", "--all"], "--all"),
        (vec!["--alpha", "2", "naive"], "'2' for '--alpha"),
    ] {
        shuffle_bias()
            .arg("compare")
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle));
    }
    shuffle_bias().arg("compare").assert().code(2);
}

#[test]
fn ctrl_c_writes_the_rows_run_so_far_and_exits_130() {
    let output = common::interrupted_after(
        &[
            "compare",
            "fisher-yates",
            "naive",
            "-n",
            "6",
            "-t",
            "100G",
            "--seed",
            "1",
            "-q",
            "--format",
            "json",
        ],
        800,
    );
    assert_eq!(output.status.code(), Some(130));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["interrupted"], true);
    assert_eq!(json["all_as_expected"], false);
    assert_eq!(json["rows"][0]["interrupted"], true);
    assert!(json["rows"][0]["trials"].as_u64().unwrap() < 100_000_000_000);
    assert_eq!(json["not_run"], serde_json::json!(["naive"]));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("interrupted after 1 of 2 algorithms"),
        "{stderr}"
    );
}

#[test]
fn the_compare_picture_shows_each_algorithms_orderings_beside_its_heat_map() {
    // comparator-merge has uniform positions (every heat-map cell 25%) yet a TV distance of
    // 1/6 from uniform: only its ordering chart shows the bias the table reports.
    let dir = tempfile::tempdir().unwrap();
    let picture = dir.path().join("compare.svg");
    shuffle_bias()
        .args([
            "compare",
            "fisher-yates",
            "comparator-merge",
            "-n",
            "4",
            "-t",
            "10k",
            "--seed",
            "7",
            "-q",
            "-o",
            "/dev/null",
            "--plot",
        ])
        .arg(&picture)
        .assert()
        .code(0);
    let svg = std::fs::read_to_string(&picture).unwrap();
    assert_eq!(svg.matches("how often each ordering came up").count(), 2);
}
