//! `shuffle-bias check --exec COMMAND`: the tool starts the program that shuffles, gives it a
//! seed in `SHUFFLE_BIAS_SEED`, reads its standard output, and stops it at `--trials`, when
//! `--until-decided` decides, or at Ctrl-C (exit 130), without the broken pipe that a producer
//! would otherwise complain of; a command that fails is an error (exit 2) showing its exit
//! status and the end of its standard error. Producers are `python3 -c` (Python's own
//! `print(deck)`, as users write them) and `sh -c`.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use predicates::prelude::*;
use serde_json::Value;

/// A Python producer: `count` shuffles (forever when None) of a `deck`-card deck with
/// `random.Random(SHUFFLE_BIAS_SEED)`, each printed with `print(deck)`.
fn python_shuffles(deck: usize, count: Option<u64>) -> String {
    let each = count.map_or("while True".to_string(), |count| {
        format!("for _ in range({count})")
    });
    format!(
        "python3 -c 'import os, random\n\
         r = random.Random(int(os.environ[\"SHUFFLE_BIAS_SEED\"]))\n\
         deck = list(range({deck}))\n\
         {each}:\n    r.shuffle(deck); print(deck)'"
    )
}

/// The JSON report of `check --quiet --format json ARGS`, and the exit code (0 or 1).
fn check_json(args: &[&str]) -> (Value, i32) {
    let output = common::shuffle_bias()
        .args(["check", "--quiet", "--format", "json"])
        .args(args)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let code = output.status.code().unwrap();
    assert!(
        code == 0 || code == 1,
        "{args:?}: exit {code}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (serde_json::from_slice(&output.stdout).unwrap(), code)
}

/// An empty directory of this test's own, under Cargo's scratch directory for tests.
fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("check_exec")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_python_producer_is_read_to_its_end_and_the_same_seed_repeats_the_counts() {
    let command = python_shuffles(4, Some(2400));
    let (first, _) = check_json(&["--exec", &command, "--seed", "7"]);
    let (again, _) = check_json(&["--exec", &command, "--seed", "7"]);
    let (other, _) = check_json(&["--exec", &command, "--seed", "8"]);
    assert_eq!(first["trials"], 2400);
    assert_eq!(first["input"]["format"], "brackets");
    assert_eq!(first["input"]["command"], command.as_str());
    assert_eq!(first["input"]["seed"], 7);
    assert_eq!(first["permutations"], again["permutations"]);
    assert_ne!(first["permutations"], other["permutations"]);
}

#[test]
fn without_seed_a_random_one_below_2_to_the_53_is_given_and_reported() {
    let (report, _) = check_json(&[
        "--exec",
        "sh -c 'echo \"$SHUFFLE_BIAS_SEED\" >&2; for i in 1 2 3; do echo 0 1 2; echo 2 1 0; done'",
    ]);
    let seed = report["input"]["seed"].as_u64().unwrap();
    assert!(seed < 1 << 53, "{seed}");
    assert_eq!(report["trials"], 6);
    let sources = report["input"]["sources"][0].as_str().unwrap();
    assert!(
        sources.ends_with(&format!("(SHUFFLE_BIAS_SEED={seed})")),
        "{sources}"
    );
}

#[test]
fn trials_stops_an_endless_producer_without_a_broken_pipe() {
    // Regression guard: a producer that gets EPIPE prints a traceback and exits 1, which would
    // be reported as its failure; it is stopped before the pipe closes.
    let (report, _) = check_json(&[
        "--exec",
        &python_shuffles(5, None),
        "--seed",
        "1",
        "--trials",
        "5000",
    ]);
    assert_eq!(report["trials"], 5000);
    assert_eq!(report["interrupted"], false);
}

#[test]
fn trials_also_limits_a_file() {
    let (report, _) = check_json(&[
        &format!(
            "{}/fixtures/check/zero-based.txt",
            env!("CARGO_MANIFEST_DIR")
        ),
        "--trials",
        "3",
    ]);
    assert_eq!(report["trials"], 3);
}

#[test]
fn until_decided_stops_an_endless_biased_producer_with_bias_detected() {
    let (report, code) = check_json(&["--exec", "yes '[0, 1, 2, 3]'", "--until-decided"]);
    assert_eq!(code, 1);
    assert_eq!(report["sequential"]["decided"], true);
}

#[test]
fn a_failing_producer_is_exit_2_with_its_status_and_the_end_of_its_stderr() {
    common::shuffle_bias()
        .args([
            "check",
            "--quiet",
            "--exec",
            "echo '0 1 2'; echo '2 1 0'; echo 'Traceback: boom' >&2; exit 3",
        ])
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains(
                "--exec: `echo '0 1 2'; echo '2 1 0'; echo 'Traceback: boom' >&2; exit 3` \
                 failed (exit status 3)",
            )
            .and(predicate::str::contains("Traceback: boom")),
        );
}

#[test]
fn a_producer_that_cannot_be_found_is_exit_2_naming_it() {
    common::shuffle_bias()
        .args([
            "check",
            "--quiet",
            "--exec",
            "no-such-shuffler-program --deck 4",
        ])
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("failed (exit status 127)")
                .and(predicate::str::contains("not found")),
        );
}

#[test]
fn a_producer_that_dies_mid_line_is_reported_as_failed_not_as_a_bad_line() {
    common::shuffle_bias()
        .args([
            "check",
            "--quiet",
            "--exec",
            "printf '0 1 2\\n2 1 0\\n2 1'; kill -SEGV $$",
        ])
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("failed (killed by signal 11)"));
}

#[test]
fn ctrl_c_stops_the_producer_and_exits_130_with_what_was_read() {
    let dir = scratch("ctrl_c");
    let pid_file = dir.join("producer.pid");
    let command = format!(
        "echo $$ > '{}'; while true; do echo 0 1 2 3; echo 3 2 1 0; sleep 0.01; done",
        pid_file.display()
    );
    let output = common::interrupted_after(
        &["check", "--quiet", "--format", "json", "--exec", &command],
        1500,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["interrupted"], true);
    assert!(report["trials"].as_u64().unwrap() > 0);
    // The producer is gone: no process has its id any more.
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let alive = std::process::Command::new("kill")
        .args(["-0", pid.trim()])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!alive.success(), "the producer {pid} still runs");
}

#[test]
fn exec_with_files_or_seed_without_exec_is_refused() {
    common::shuffle_bias()
        .args(["check", "--exec", "true", "decks.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--exec"));
    common::shuffle_bias()
        .args(["check", "--seed", "3", "decks.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--exec"));
}
