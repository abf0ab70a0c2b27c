//! `shuffle-bias check` and the inputs that once broke its promises: Ctrl-C while it waits on a
//! FIFO nobody writes to or on a stdin that never closes (exit 130, with the report of what was
//! read), a thousand files (opened one at a time), a missing file (refused before any reading),
//! an endless line (rejected at the cap, memory bounded), a byte-order mark, an empty field.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::Duration;

use predicates::prelude::*;
use serde_json::Value;

fn fixture(name: &str) -> String {
    format!("{}/fixtures/check/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// An empty directory of this test's own, under Cargo's scratch directory for tests.
fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("check_input")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A FIFO at `path` (with the system's `mkfifo`).
fn make_fifo(path: &Path) {
    let status = Process::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

/// `check ARGS` started with a stdin pipe that the caller holds open.
fn check_with_stdin(args: &[&str]) -> std::process::Child {
    Process::new(assert_cmd::cargo::cargo_bin("shuffle-bias"))
        .arg("check")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn ctrl_c_ends_a_check_waiting_for_a_writer_on_a_fifo_with_exit_130() {
    // Regression: opening a FIFO blocks until a writer comes, and Ctrl-C was not heard there.
    let dir = scratch("fifo");
    let fifo = dir.join("deals.fifo");
    make_fifo(&fifo);
    let output = common::interrupted_after(&["check", "--quiet", fifo.to_str().unwrap()], 500);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("deals.fifo: interrupted before any permutation was read"),
        "{stderr}"
    );
}

#[test]
fn ctrl_c_ends_a_check_waiting_on_a_stdin_that_never_closes_with_exit_130() {
    // Regression: a read of a terminal (or of a pipe whose writer is idle) never returned, and
    // the stop flag was only looked at between reads.
    let mut child = check_with_stdin(&["--quiet"]);
    let stdin = child.stdin.take();
    let output = common::interrupt(child, 500);
    drop(stdin);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("<stdin>: interrupted before any permutation was read"),
        "{stderr}"
    );
}

#[test]
fn ctrl_c_after_some_lines_of_an_open_stdin_reports_those_lines_and_exits_130() {
    let mut child = check_with_stdin(&["--quiet", "--format", "json"]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"0 1 2\n").unwrap();
    stdin.flush().unwrap();
    let output = common::interrupt(child, 500);
    drop(stdin);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["interrupted"], true);
    assert_eq!(json["input"]["permutations"], 1);
    assert!(
        stderr.contains("interrupted after 1 permutation; the report covers those only"),
        "{stderr}"
    );
}

#[test]
fn the_table_of_an_interrupted_check_says_it_was_interrupted() {
    // Regression: the JSON said "interrupted" but the table did not.
    let mut child = check_with_stdin(&["--quiet"]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"0 1 2\n2 1 0\n").unwrap();
    stdin.flush().unwrap();
    let output = common::interrupt(child, 500);
    drop(stdin);
    assert_eq!(output.status.code(), Some(130));
    let table = String::from_utf8(output.stdout).unwrap();
    // The title, wrapped at 80 columns over its first lines.
    let title = table
        .split("\n\n")
        .next()
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        title.starts_with("shuffle-bias check: 2 permutations of 3 cards")
            && title.contains("(interrupted: the input was not read to its end)"),
        "{title}"
    );
}

#[test]
fn more_files_than_the_open_files_limit_are_read_one_at_a_time() {
    // Regression: every file was opened before the first was read, so 1,100 files hit the
    // limit of open files. Here 300 files under a limit of 64.
    let dir = scratch("many-files");
    let files: Vec<String> = (0..300)
        .map(|i| {
            let path = dir.join(format!("deals-{i:03}.txt"));
            std::fs::write(&path, ["0 1 2\n", "2 1 0\n", "1 2 0\n"][i % 3]).unwrap();
            path.display().to_string()
        })
        .collect();
    let mut shell = std::process::Command::new("sh");
    shell
        .arg("-c")
        .arg(r#"ulimit -n 64 && exec "$0" "$@""#)
        .arg(assert_cmd::cargo::cargo_bin("shuffle-bias"))
        .args(["check", "--quiet", "--format", "json"])
        .args(&files);
    let output = assert_cmd::Command::from_std(shell)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let json: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| panic!("{stderr}"));
    assert_eq!(json["input"]["permutations"], 300);
    assert_eq!(json["input"]["sources"].as_array().unwrap().len(), 300);
}

#[test]
fn a_missing_file_fails_with_exit_2_before_an_earlier_source_is_read() {
    // The FIFO first would block any reading: the missing file must be refused before.
    let dir = scratch("missing");
    let fifo = dir.join("deals.fifo");
    make_fifo(&fifo);
    let missing = dir.join("missing.txt");
    common::shuffle_bias()
        .args(["check", "--quiet"])
        .arg(&fifo)
        .arg(&missing)
        .timeout(Duration::from_secs(10))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "{}: cannot open the file (",
            missing.display()
        )));
}

#[test]
fn a_directory_given_as_input_fails_with_exit_2_naming_it() {
    let dir = fixture("");
    let dir = dir.trim_end_matches('/');
    common::shuffle_bias()
        .args(["check", "--quiet", dir])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "{dir}: this is a directory"
        )));
}

/// A file of `0 1 2`, then a line of `length` digits (with a newline if `ended`), then `2 1 0`
/// if `ended`.
fn file_with_a_long_line(dir: &Path, length: usize, ended: bool) -> String {
    let path = dir.join(if ended { "long.txt" } else { "endless.txt" });
    let mut text = b"0 1 2\n".to_vec();
    text.resize(text.len() + length, b'7');
    if ended {
        text.extend_from_slice(b"\n2 1 0\n");
    }
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn a_line_longer_than_one_mib_is_an_error_at_its_file_and_line() {
    // Regression: a 200 MB line without a newline was gathered whole before it was rejected.
    let dir = scratch("long-line");
    let endless = file_with_a_long_line(&dir, 3 << 20, false);
    common::shuffle_bias()
        .args(["check", "--quiet", &endless])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "{endless}:2: line longer than 1048576 bytes: '7777"
        )));
}

#[test]
fn skip_invalid_counts_and_skips_a_line_longer_than_one_mib() {
    let dir = scratch("long-line-skipped");
    let long = file_with_a_long_line(&dir, 3 << 20, true);
    let output = common::shuffle_bias()
        .args([
            "check",
            "--quiet",
            "--format",
            "json",
            "--skip-invalid",
            &long,
        ])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["input"]["lines"], 3);
    assert_eq!(json["input"]["permutations"], 2);
    assert_eq!(json["input"]["invalid_lines"], 1);
    assert_eq!(
        json["input"]["invalid_examples"][0]["location"],
        format!("{long}:2")
    );
}

#[test]
fn a_byte_order_mark_at_the_start_of_a_file_or_of_stdin_is_accepted() {
    // Regression: the mark that Windows editors write was read as part of the first token.
    let output = common::shuffle_bias()
        .args(["check", "--quiet", "--format", "json", &fixture("bom.txt")])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!("{}", String::from_utf8_lossy(&output.stderr));
    });
    assert_eq!(json["input"]["permutations"], 3);
    let output = common::shuffle_bias()
        .args(["check", "--quiet", "--format", "json"])
        .write_stdin(b"\xEF\xBB\xBF0 1 2\n2 1 0\n".as_slice())
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!("{}", String::from_utf8_lossy(&output.stderr));
    });
    assert_eq!(json["input"]["permutations"], 2);
}

#[test]
fn an_empty_field_between_commas_fails_with_exit_2_at_its_line() {
    // Regression: `0,,1,2,3` was accepted as `0 1 2 3`.
    let path = fixture("bad-empty-field.txt");
    common::shuffle_bias()
        .args(["check", "--quiet", &path])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "{path}:3: empty field 2: nothing between two commas after '0'"
        )));
}

#[test]
fn a_single_label_is_refused_in_the_singular() {
    common::shuffle_bias()
        .args(["check", "--quiet", "--labels", "A", &fixture("labels.txt")])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--labels A: 1 label given; give 2 to",
        ));
}
