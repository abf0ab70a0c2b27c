//! `check`'s inputs counted once: a file given again as standard input redirected from it is
//! refused, and so is saving the tally of an early-stopped `--until-decided` check (issue #33,
//! items 2 and 3).

mod common;

use std::path::{Path, PathBuf};

use common::shuffle_bias;

/// `run fisher-yates -n 4 -t 3000 --seed SEED --emit-permutations dir/name`: fair decks.
fn fair_decks(dir: &Path, name: &str, seed: u64) -> PathBuf {
    let path = dir.join(name);
    shuffle_bias()
        .args(["run", "fisher-yates", "-n", "4", "-t", "3000", "--seed"])
        .arg(seed.to_string())
        .arg("--emit-permutations")
        .arg(&path)
        .args(["-q", "-o", "/dev/null"])
        .assert()
        .code(predicates::ord::lt(2));
    path
}

#[test]
fn check_refuses_a_file_given_again_as_standard_input_redirected_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let fair = fair_decks(dir.path(), "fair.txt", 1);
    let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("shuffle-bias"))
        .args(["check", fair.to_str().unwrap(), "-", "-q"])
        .stdin(std::fs::File::open(&fair).unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(output.stdout.is_empty());
    assert!(stderr.contains("counted twice"), "{stderr}");
    // Standard input from a pipe is another input.
    let other = std::fs::read_to_string(fair_decks(dir.path(), "other.txt", 2)).unwrap();
    shuffle_bias()
        .args(["check", fair.to_str().unwrap(), "-", "-q"])
        .write_stdin(other)
        .assert()
        .code(predicates::ord::lt(2));
}

#[test]
fn check_until_decided_refuses_to_save_its_early_stopped_tally() {
    let dir = tempfile::tempdir().unwrap();
    let fair = fair_decks(dir.path(), "fair.txt", 1);
    let tally = dir.path().join("early.tally");
    let output = shuffle_bias()
        .args([
            "check",
            fair.to_str().unwrap(),
            "--until-decided",
            "--save-tally",
        ])
        .arg(&tally)
        .arg("-q")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--until-decided") && stderr.contains("--save-tally"),
        "{stderr}"
    );
    assert!(!tally.exists());
}
