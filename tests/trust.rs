//! Regression tests for the promises a user stakes a CI job or a file on: no lost verdict
//! behind a closed pipe, no destroyed or half-written file, Ctrl-C answered in every phase,
//! bounded work and sizes. Each test is named after the failure it pins.

mod common;

use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command as Process, Stdio};
use std::time::{Duration, Instant};

use common::shuffle_bias;
use predicates::prelude::*;

fn binary() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("shuffle-bias")
}

/// Wait for `child` to end, at most `limit`; a child still running then is killed and the test
/// fails (the process ignored Ctrl-C).
fn wait_at_most(mut child: Child, limit: Duration) -> std::process::Output {
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("the process was still running {limit:?} after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn send_ctrl_c(child: &Child) {
    let status = Process::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Start `args` in `dir`, press Ctrl-C `presses` times (10 ms apart) after `millis`, and
/// return the output; the process must end within 20 s of the first press.
fn interrupted_in(dir: &Path, args: &[&str], millis: u64, presses: usize) -> std::process::Output {
    let child = Process::new(binary())
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(millis));
    for _ in 0..presses {
        send_ctrl_c(&child);
        std::thread::sleep(Duration::from_millis(10));
    }
    wait_at_most(child, Duration::from_secs(20))
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_closed_pipe_does_not_turn_bias_detected_into_exit_0() {
    // 8! = 40,320 rows of CSV, far more than a pipe holds: the writer meets the closed pipe.
    let mut child = Process::new(binary())
        .args([
            "run",
            "naive",
            "-n",
            "8",
            "-t",
            "1M",
            "--seed",
            "1",
            "--format",
            "csv",
            "--table",
            "permutations",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout); // `| head -c 64`
    let output = wait_at_most(child, Duration::from_secs(60));
    assert_eq!(output.status.code(), Some(1), "the verdict's code, not 0");
    assert!(
        output.stderr.is_empty(),
        "a closed pipe ends quietly: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn check_refuses_to_write_its_report_or_picture_over_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let deals = dir.path().join("deals.txt");
    fs::write(&deals, "0 1 2\n2 1 0\n").unwrap();
    for flag in ["-o", "--plot"] {
        let target = if flag == "--plot" {
            // An SVG name that is the input too, through a symbolic link.
            let link = dir.path().join("deals.svg");
            let _ = fs::remove_file(&link);
            std::os::unix::fs::symlink(&deals, &link).unwrap();
            link
        } else {
            dir.path().join(".").join("deals.txt")
        };
        shuffle_bias()
            .arg("check")
            .arg(&deals)
            .arg(flag)
            .arg(&target)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!("{flag} ")))
            .stderr(predicate::str::contains("also an input"));
        assert_eq!(fs::read_to_string(&deals).unwrap(), "0 1 2\n2 1 0\n");
    }
}

#[test]
fn check_refuses_to_write_over_the_file_stdin_reads() {
    let dir = tempfile::tempdir().unwrap();
    let deals = dir.path().join("deals.txt");
    fs::write(&deals, "0 1 2\n2 1 0\n").unwrap();
    // `shuffle-bias check -o deals.txt < deals.txt`: stdin is the file itself, not a pipe.
    let output = Process::new(binary())
        .arg("check")
        .arg("-o")
        .arg(&deals)
        .stdin(fs::File::open(&deals).unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("stdin is redirected from it"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(fs::read_to_string(&deals).unwrap(), "0 1 2\n2 1 0\n");
}

#[test]
fn two_outputs_naming_the_same_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    shuffle_bias()
        .current_dir(dir.path())
        .args([
            "run",
            "fisher-yates",
            "-t",
            "1000",
            "--plot",
            "same.svg",
            "--emit-permutations",
            "./same.svg",
            "-o",
            "report.txt",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--plot same.svg and --emit-permutations ./same.svg",
        ));
    assert!(files_in(dir.path()).is_empty(), "nothing was created");
}

#[test]
fn check_refuses_the_same_file_given_twice_under_two_names() {
    // Counted twice, a fair file would look biased (every ordering seen an even number of
    // times); it is refused instead.
    shuffle_bias()
        .args([
            "check",
            "fixtures/check/zero-based.txt",
            "./fixtures/check/zero-based.txt",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("same file"));
}

#[test]
fn a_failed_run_leaves_an_existing_report_untouched_and_no_stray_file() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.txt");
    fs::write(&report, "yesterday's report\n").unwrap();
    // The output is opened first, then the exact law fails on its budget: exit 2.
    shuffle_bias()
        .args([
            "run",
            "comparator-merge",
            "-n",
            "8",
            "--against",
            "model",
            "--max-paths",
            "1",
        ])
        .arg("-o")
        .arg(&report)
        .assert()
        .code(2);
    assert_eq!(fs::read_to_string(&report).unwrap(), "yesterday's report\n");
    assert_eq!(files_in(dir.path()), vec!["report.txt"]);
}

#[test]
fn a_successful_run_replaces_the_report_and_leaves_no_stray_file() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    fs::write(&report, "old").unwrap();
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-t",
            "10k",
            "--seed",
            "1",
            "--format",
            "json",
        ])
        .arg("-o")
        .arg(&report)
        .assert()
        .code(0);
    let text = fs::read_to_string(&report).unwrap();
    assert!(text.starts_with('{'), "{text}");
    assert_eq!(files_in(dir.path()), vec!["report.json"]);
}

#[test]
fn a_dash_means_stdout_and_creates_no_file_named_dash() {
    let dir = tempfile::tempdir().unwrap();
    shuffle_bias()
        .current_dir(dir.path())
        .args([
            "run",
            "fisher-yates",
            "-t",
            "1000",
            "--seed",
            "1",
            "-o",
            "-",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with(
            "shuffle-bias run: fisher-yates",
        ));
    let output = shuffle_bias()
        .current_dir(dir.path())
        .args([
            "run",
            "fisher-yates",
            "-n",
            "3",
            "-t",
            "5",
            "--seed",
            "1",
            "--emit-permutations",
            "-",
            "-o",
            "report.txt",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let lines: Vec<&str> = std::str::from_utf8(&output.stdout)
        .unwrap()
        .lines()
        .collect();
    assert_eq!(lines.len(), 6, "a header and five permutations: {lines:?}");
    assert!(lines[0].starts_with("# shuffle-bias run fisher-yates"));
    assert_eq!(files_in(dir.path()), vec!["report.txt"]);
    // Two outputs on stdout would mix: refused.
    shuffle_bias()
        .current_dir(dir.path())
        .args(["run", "fisher-yates", "-t", "5", "--emit-permutations", "-"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "-o and --emit-permutations would both",
        ));
}

#[test]
fn ctrl_c_during_the_exact_law_of_theory_ends_with_130() {
    // The exact law of naive on 10 cards takes seconds (10 sweeps of 10! orderings per card).
    let dir = tempfile::tempdir().unwrap();
    let output = interrupted_in(dir.path(), &["theory", "naive", "-n", "10"], 300, 1);
    assert_eq!(output.status.code(), Some(130));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("interrupted"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn ctrl_c_during_the_exact_law_at_the_start_of_a_run_ends_with_130() {
    let dir = tempfile::tempdir().unwrap();
    let output = interrupted_in(
        dir.path(),
        &["run", "naive", "-n", "10", "-o", "report.txt"],
        300,
        1,
    );
    assert_eq!(output.status.code(), Some(130));
    assert!(files_in(dir.path()).is_empty(), "no half-written report");
}

#[test]
fn ctrl_c_inside_costly_trials_writes_the_partial_report() {
    // 1000 riffles per trial: a block of 65,536 trials would take over a minute; the run
    // looks at Ctrl-C between chunks of a few hundred trials.
    let dir = tempfile::tempdir().unwrap();
    let output = interrupted_in(
        dir.path(),
        &[
            "run",
            "riffle",
            "-n",
            "4",
            "--passes",
            "1000",
            "-t",
            "10M",
            "--seed",
            "1",
            "--threads",
            "1",
            "--format",
            "json",
        ],
        500,
        1,
    );
    assert_eq!(output.status.code(), Some(130));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["interrupted"], true);
    let trials = report["trials"].as_u64().unwrap();
    assert!(trials > 0 && trials < 10_000_000, "{trials}");
}

#[test]
fn a_second_ctrl_c_ends_at_once_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let output = interrupted_in(
        dir.path(),
        &[
            "run",
            "fisher-yates",
            "-n",
            "10",
            "-t",
            "10G",
            "-o",
            "report.txt",
        ],
        300,
        2,
    );
    assert_eq!(output.status.code(), Some(130));
    // Either the first press's report was written in time or nothing was: never a stray file.
    let files = files_in(dir.path());
    assert!(files.is_empty() || files == vec!["report.txt"], "{files:?}");
}

#[test]
fn passes_beyond_1000_are_refused_by_run_and_check() {
    shuffle_bias()
        .args(["run", "riffle", "-t", "1000", "--passes", "1000000"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--passes 1000000: at most 1000"));
    shuffle_bias()
        .args([
            "check",
            "fixtures/check/zero-based.txt",
            "--against",
            "riffle",
            "--passes",
            "1001",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--passes 1001"));
}

#[test]
fn compare_refuses_trials_whose_total_overflows() {
    shuffle_bias()
        .args(["compare", "--all", "-t", "9223372036854775808"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--trials"));
    shuffle_bias()
        .args(["compare", "--all", "-t", "1e15"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("more than 2^53"));
}

#[test]
fn a_picture_is_refused_under_a_name_that_is_not_svg() {
    shuffle_bias()
        .args(["run", "fisher-yates", "-t", "1000", "--plot", "x.png"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--plot x.png").and(predicate::str::contains("x.svg")));
}

#[test]
fn table_without_csv_is_refused_rather_than_ignored() {
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-t",
            "1000",
            "--format",
            "json",
            "--table",
            "tests",
        ])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("--table tests").and(predicate::str::contains("--format csv")),
        );
}

#[test]
fn a_path_budget_the_exact_engine_does_not_use_is_said_to_be_unused() {
    // Naive's law is propagated step by step; --max-paths limits path walks only.
    shuffle_bias()
        .args(["theory", "naive", "-n", "5", "--max-paths", "10"])
        .assert()
        .code(0)
        .stderr(predicate::str::contains("--max-paths 10 was not used"));
    // Where the budget is used, nothing is said.
    shuffle_bias()
        .args([
            "theory",
            "comparator-merge",
            "-n",
            "4",
            "--max-paths",
            "1e6",
        ])
        .assert()
        .code(0)
        .stderr(predicate::str::is_empty());
}

#[test]
fn json_and_csv_list_every_ordering_only_up_to_8_cards_unless_asked() {
    // Regression: 11 cards wrote 15.4 GB of JSON (every one of 39,916,800 orderings).
    let output = shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "9",
            "-t",
            "1000",
            "--seed",
            "1",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(report["permutations"].is_null());
    assert_eq!(report["most_frequent"].as_array().unwrap().len(), 5);
    let notes = report["notes"].to_string();
    assert!(notes.contains("--all-orderings"), "{notes}");
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "9",
            "-t",
            "1000",
            "--format",
            "csv",
            "--table",
            "permutations",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--all-orderings"));
    let output = shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "9",
            "-t",
            "1000",
            "--format",
            "csv",
            "--table",
            "permutations",
            "--all-orderings",
        ])
        .output()
        .unwrap();
    assert_eq!(
        output.stdout.iter().filter(|&&b| b == b'\n').count(),
        362_880 + 1
    );
    // 8 cards are listed as before.
    let output = shuffle_bias()
        .args(["theory", "naive", "-n", "8", "--format", "json"])
        .output()
        .unwrap();
    let law: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(law["permutations"].as_array().unwrap().len(), 40_320);
}

#[test]
fn flag_errors_from_the_parser_carry_the_same_prefix_as_every_other_error() {
    shuffle_bias()
        .args(["run", "naive", "--deck", "abc"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "shuffle-bias: error: invalid value 'abc'",
        ))
        .stderr(predicate::str::contains("not a number of cards"));
    shuffle_bias()
        .args(["run", "naive", "--alpha", "1e-400"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "'1e-400' is below the smallest level",
        ));
    shuffle_bias()
        .args(["run", "fisher-yates", "-t", "1000", "--seed", "1e3"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("seed 1000"));
}
