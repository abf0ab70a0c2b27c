//! Messages that say what is true and advise only what works: seeds in the count notation up to
//! 2^64 − 1, levels below the smallest double, `theory -q`, pictures thrown into `/dev/null`,
//! shard errors, CSV tables refused before the work, the mixing curve and a biased mapping,
//! `compare` at 2 cards (issue #33, items 9 and 10 and the small messages).

mod common;

use common::shuffle_bias;
use serde_json::Value;

/// The command's exit code and stderr.
fn run_args(args: &[&str]) -> (i32, String) {
    let output = shuffle_bias().args(args).output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn seeds_above_two_to_the_63_are_taken_in_the_count_notation() {
    let (code, stderr) = run_args(&[
        "run",
        "fisher-yates",
        "-n",
        "3",
        "-t",
        "600",
        "--seed",
        "1e19",
        "-q",
        "-o",
        "/dev/null",
    ]);
    assert!(code < 2, "{stderr}");
}

#[test]
fn an_alpha_below_the_smallest_double_is_refused_for_what_it_is() {
    let (code, stderr) = run_args(&["theory", "fisher-yates", "-n", "3", "--alpha", "1e-320"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("below the smallest level"), "{stderr}");
    assert!(!stderr.contains("strictly between 0 and 1"), "{stderr}");
}

#[test]
fn theory_takes_quiet_as_every_command_does() {
    let (code, stderr) = run_args(&["theory", "fisher-yates", "-n", "3", "-q"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_picture_may_be_thrown_away_into_dev_null() {
    let (code, stderr) = run_args(&[
        "run",
        "fisher-yates",
        "-n",
        "3",
        "-t",
        "600",
        "--seed",
        "1",
        "-q",
        "-o",
        "/dev/null",
        "--plot",
        "/dev/null",
    ]);
    assert!(code < 2, "{stderr}");
    assert!(!stderr.contains("/dev/null.svg"), "{stderr}");
}

#[test]
fn shard_errors_advise_only_flags_that_exist_and_work() {
    let dir = tempfile::tempdir().unwrap();
    let tally = dir.path().join("s.tally");
    let tally = tally.to_str().unwrap();
    let (code, stderr) = run_args(&[
        "run",
        "naive",
        "-n",
        "4",
        "-t",
        "200000",
        "--rng",
        "os",
        "--shard",
        "0/2",
        "--save-tally",
        tally,
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("os generator takes no seed"), "{stderr}");
    let (code, stderr) = run_args(&[
        "run",
        "naive",
        "-n",
        "4",
        "-t",
        "200000",
        "--seed",
        "1",
        "--shard",
        "0/2",
        "--save-tally",
        tally,
        "--emit-permutations",
        "p.txt",
    ]);
    assert_eq!(code, 2);
    assert!(!stderr.contains("give --emit-permutations to"), "{stderr}");
    assert!(stderr.contains("without --shard"), "{stderr}");
}

#[test]
fn a_csv_of_every_ordering_of_eleven_cards_is_refused_before_the_simulation() {
    // 10^12 shuffles would take hours: the refusal must come before them (a run still going
    // after 60 s is stopped and fails the test, rather than hang it).
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("shuffle-bias"))
        .args(["run", "fisher-yates", "-n", "11", "-t", "1T", "--seed", "1"])
        .args(["--format", "csv", "--table", "permutations", "-q"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("still simulating after 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--all-orderings"), "{stderr}");
}

#[test]
fn the_mixing_curve_refuses_a_biased_mapping_it_would_ignore() {
    let (code, stderr) = run_args(&[
        "theory", "riffle", "-n", "6", "--passes", "1..3", "--map", "modulo", "--bits", "8",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--map modulo"), "{stderr}");
    // An unbiased mapping changes nothing, and is taken.
    let (code, stderr) = run_args(&[
        "theory", "riffle", "-n", "6", "--passes", "1..3", "--map", "lemire",
    ]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn compare_at_two_cards_expects_no_bias_from_algorithms_exactly_uniform_there() {
    let output = shuffle_bias()
        .args(["compare", "--all", "-n", "2", "-t", "20000", "--seed", "1"])
        .args(["--format", "json", "-q"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    for row in json["rows"].as_array().unwrap() {
        let exactly_uniform = row["tv_distance_theory"].as_f64() == Some(0.0);
        if exactly_uniform {
            assert_eq!(
                row["as_expected"],
                !row["bias_detected"].as_bool().unwrap(),
                "{row}"
            );
        }
    }
    assert_eq!(output.status.code(), Some(0), "{}", json["verdict"]);
}

/// `check ARGS` reading a stdin pipe that this test fills with `lines` and keeps open; its
/// exit code and stderr (a check still waiting after 20 s is killed and fails the test).
fn check_with_open_stdin(args: &[&str], lines: &str) -> (i32, String) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("shuffle-bias"))
        .arg("check")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(lines.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("still reading after 20 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn check_refuses_a_csv_of_every_ordering_of_eleven_cards_before_reading() {
    // Regression: the refusal came at export, after the whole input was read and judged. With
    // --deck given it comes before any line (stdin stays open and empty); without, at the
    // first permutation (stdin stays open after it).
    let csv = ["--format", "csv", "--table", "permutations", "-q"];
    let (code, stderr) = check_with_open_stdin(&[&["-n", "11"][..], &csv].concat(), "");
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--table permutations: 11 cards have 39916800 orderings"),
        "{stderr}"
    );
    let (code, stderr) = check_with_open_stdin(&csv, "0 1 2 3 4 5 6 7 8 9 10\n");
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("add --all-orderings"), "{stderr}");
    // Small decks are listed as before.
    let (code, stderr) = check_with_open_stdin(&[&["--trials", "1"][..], &csv].concat(), "0 1 2\n");
    assert!(code == 0 || code == 1, "{stderr}");
}

#[test]
fn merge_refuses_a_csv_of_every_ordering_of_eleven_cards_before_reading_the_counts() {
    // Regression: merge refused it at export, after reading every file. A tally whose checksum
    // is damaged shows the order: the refusal of the flags comes first, the damage is never
    // read (and merging the file without --table is refused for its checksum).
    let dir = tempfile::tempdir().unwrap();
    let tally = dir.path().join("eleven.tally");
    let output = shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "11",
            "-t",
            "1000",
            "--seed",
            "1",
            "-q",
        ])
        .args(["--no-deal-tests", "-o", "/dev/null", "--save-tally"])
        .arg(&tally)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut bytes = std::fs::read(&tally).unwrap();
    *bytes.last_mut().unwrap() ^= 0xff;
    std::fs::write(&tally, bytes).unwrap();
    let tally = tally.to_str().unwrap();
    let (code, stderr) = run_args(&[
        "merge",
        tally,
        "--format",
        "csv",
        "--table",
        "permutations",
        "-q",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--table permutations: 11 cards have 39916800 orderings"),
        "{stderr}"
    );
    let (code, stderr) = run_args(&["merge", tally, "-q"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("corrupted"), "{stderr}");
}

#[test]
fn check_refuses_trials_zero_as_a_flag_not_as_an_empty_input() {
    // Regression: `check --trials 0 FILE` read nothing and said the file was empty.
    let file = format!(
        "{}/fixtures/check/zero-based.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let (code, stderr) = run_args(&["check", "--trials", "0", &file]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--trials 0:"), "{stderr}");
    assert!(!stderr.contains("empty"), "{stderr}");
}

#[test]
fn check_deal_save_tally_is_refused_as_the_flag_table_of_the_reference_says() {
    // A tally file holds orderings or marginals, not dealt hands: `check --deal K
    // --save-tally` is refused before reading, leaves no file, and the flag table of
    // docs/reference.md offers --save-tally to `check` only without --deal (it used to offer it).
    let dir = tempfile::tempdir().unwrap();
    let tally = dir.path().join("deals.tally");
    let file = format!(
        "{}/fixtures/check/zero-based.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let (code, stderr) = run_args(&[
        "check",
        "--deal",
        "2",
        "-n",
        "4",
        "--save-tally",
        tally.to_str().unwrap(),
        &file,
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--save-tally") && stderr.contains("--deal"),
        "{stderr}"
    );
    assert!(!tally.exists());
    let reference =
        std::fs::read_to_string(format!("{}/docs/reference.md", env!("CARGO_MANIFEST_DIR")))
            .unwrap();
    let row = reference
        .lines()
        .find(|line| line.starts_with("| `--save-tally FILE`"))
        .expect("the flag table has a --save-tally row");
    assert!(row.contains("not with `--deal`"), "{row}");
}

#[test]
fn more_shards_than_blocks_are_refused_in_words_that_agree_in_number() {
    // Regression: "use at most 1 shards".
    let (code, stderr) = run_args(&[
        "run",
        "naive",
        "-n",
        "5",
        "-t",
        "10",
        "--seed",
        "1",
        "--shard",
        "0/3",
        "--save-tally",
        "unused.tally",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("use at most 1 shard or more --trials"),
        "{stderr}"
    );
}
