//! `shuffle-bias check` from the outside: accepted inputs, one bad file per error class (exit 2
//! with FILE:LINE), stdin, several files, labels, `--against ALGORITHM` and `--skip-invalid`.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn fixture(name: &str) -> String {
    format!("{}/fixtures/check/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn check_json(args: &[&str]) -> (Value, i32) {
    let output = Command::cargo_bin("shuffle-bias")
        .unwrap()
        .args(["check", "--quiet", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let code = output.status.code().unwrap();
    let json = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("no JSON: {}", String::from_utf8_lossy(&output.stderr)));
    (json, code)
}

fn count_of(json: &Value, permutation: &[u64]) -> u64 {
    json["permutations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| {
            row["permutation"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .eq(permutation.iter().copied())
        })
        .map(|row| row["count"].as_u64().unwrap())
        .unwrap()
}

#[test]
fn zero_based_input_with_comments_blanks_commas_and_tabs_is_read() {
    let (json, _) = check_json(&[&fixture("zero-based.txt")]);
    assert_eq!(json["command"], "check");
    assert_eq!(json["deck"], 4);
    assert_eq!(json["trials"], 5);
    assert_eq!(json["input"]["numbering"], "zero-based");
    assert_eq!(json["input"]["lines"], 7);
    assert_eq!(json["input"]["permutations"], 5);
    assert_eq!(count_of(&json, &[2, 0, 3, 1]), 1);
    assert_eq!(count_of(&json, &[0, 1, 3, 2]), 1);
    assert!(json["seed"].is_null());
}

#[test]
fn one_based_input_is_detected_and_shifted() {
    let (json, _) = check_json(&[&fixture("one-based.txt")]);
    assert_eq!(json["input"]["numbering"], "one-based");
    assert_eq!(json["identity"]["count"], 1);
    assert_eq!(count_of(&json, &[3, 2, 1, 0]), 1);
}

#[test]
fn labels_define_the_starting_order() {
    let (json, _) = check_json(&[&fixture("labels.txt"), "--labels", "A,K,Q,J"]);
    assert_eq!(json["input"]["numbering"], "labels");
    assert_eq!(json["identity"]["count"], 1);
    assert_eq!(count_of(&json, &[3, 2, 1, 0]), 1);
    assert_eq!(count_of(&json, &[1, 0, 3, 2]), 1);
}

#[test]
fn crlf_input_is_read() {
    let (json, _) = check_json(&[&fixture("crlf.txt")]);
    assert_eq!(json["deck"], 3);
    assert_eq!(json["trials"], 3);
}

#[test]
fn several_files_and_stdin_are_tallied_together() {
    let output = Command::cargo_bin("shuffle-bias")
        .unwrap()
        .args([
            "check",
            "-q",
            "--format",
            "json",
            &fixture("zero-based.txt"),
            "-",
        ])
        .write_stdin("3 1 2 0\n")
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["trials"], 6);
    assert_eq!(json["input"]["sources"][1], "<stdin>");
    assert_eq!(count_of(&json, &[3, 1, 2, 0]), 1);
}

#[test]
fn every_error_class_exits_two_naming_file_and_line() {
    let cases: &[(&str, &[&str], &str)] = &[
        ("bad-token-count.txt", &[], ":2: expected 4 cards, found 3"),
        ("bad-repeated.txt", &[], ":3: card '1' appears twice"),
        ("bad-out-of-range.txt", &[], ":2: card 9 is out of range"),
        (
            "bad-not-a-number.txt",
            &[],
            ":3: 'two' is not a card number",
        ),
        (
            "bad-unknown-label.txt",
            &["--labels", "A,K,Q,J"],
            ":2: unknown label '10'",
        ),
        (
            "bad-mixed-numbering.txt",
            &[],
            ":2: this permutation is 1-based",
        ),
        ("bad-empty.txt", &[], ": no permutations"),
        ("bad-invalid-utf8.txt", &[], ":2: invalid UTF-8"),
        ("bad-binary.txt", &[], ":2: binary data"),
        ("no-such-file.txt", &[], ": cannot open the file"),
    ];
    for (file, extra, message) in cases {
        let path = fixture(file);
        Command::cargo_bin("shuffle-bias")
            .unwrap()
            .args(["check", "-q", &path])
            .args(*extra)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(format!("{path}{message}")));
    }
}

#[test]
fn a_deck_flag_that_disagrees_with_the_input_is_an_error() {
    Command::cargo_bin("shuffle-bias")
        .unwrap()
        .args(["check", "-q", "--deck", "5", &fixture("zero-based.txt")])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "zero-based.txt:2: expected 5 cards, found 4",
        ));
}

#[test]
fn bad_check_flags_name_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["--labels", "A,K,A"], "--labels A,K,A"),
        (&["--labels", "A,,K"], "--labels A,,K"),
        (&["--labels", "A"], "--labels A"),
        (&["--labels", "A,K,Q", "--deck", "4"], "--deck 4"),
        (&["--deck", "12", "--mode", "full"], "--mode marginal"),
        (&["--deck", "1001"], "--deck 1001"),
        (&["--against", "bogus"], "--against"),
        (&["--alpha", "1"], "'1' for '--alpha"),
        (&["-", "-"], "stdin"),
    ];
    for (args, flag) in cases {
        Command::cargo_bin("shuffle-bias")
            .unwrap()
            .arg("check")
            .args(*args)
            .write_stdin("0 1 2\n")
            .assert()
            .code(2)
            .stderr(predicate::str::contains(*flag));
    }
}

#[test]
fn skip_invalid_counts_bad_lines_and_reports_the_first() {
    let (json, _) = check_json(&[&fixture("bad-repeated.txt"), "--skip-invalid"]);
    assert_eq!(json["trials"], 2);
    assert_eq!(json["input"]["invalid_lines"], 1);
    let example = &json["input"]["invalid_examples"][0];
    assert!(
        example["location"]
            .as_str()
            .unwrap()
            .ends_with("bad-repeated.txt:3")
    );
    assert!(
        json["notes"][0]
            .as_str()
            .unwrap()
            .contains("1 invalid lines were skipped")
    );
}

#[test]
fn an_input_that_always_gives_the_same_ordering_is_detected() {
    // 1000 copies of one ordering: under uniform its count is Binomial(1000, 1/24), so the
    // permutations test's p-value is astronomically small whatever the seed of anything.
    let input = "1 0 3 2\n".repeat(1000);
    Command::cargo_bin("shuffle-bias")
        .unwrap()
        .args(["check", "-q"])
        .write_stdin(input)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("BIAS DETECTED"));
}

#[test]
fn run_emits_permutations_that_check_reads_back_to_the_same_counts_and_verdict() {
    let dir = std::env::temp_dir().join(format!("shuffle-bias-emit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (algorithm, deck, trials) in [
        ("naive", "4", "240k"),
        ("comparator-merge", "5", "150k"),
        ("fisher-yates", "7", "300k"),
    ] {
        let emitted = dir.join(format!("{algorithm}.txt"));
        let output = Command::cargo_bin("shuffle-bias")
            .unwrap()
            .args(["run", algorithm, "-n", deck, "-t", trials, "--seed", "17"])
            .args([
                "--threads",
                "2",
                "-q",
                "--format",
                "json",
                "--emit-permutations",
            ])
            .arg(&emitted)
            .output()
            .unwrap();
        let run: Value = serde_json::from_slice(&output.stdout).unwrap();
        let (check, code) = check_json(&[emitted.to_str().unwrap()]);
        assert_eq!(
            output.status.code(),
            Some(code),
            "{algorithm}: exit codes differ"
        );
        assert_eq!(run["trials"], check["trials"]);
        assert_eq!(run["bias_detected"], check["bias_detected"]);
        let counts = |json: &Value| -> Vec<u64> {
            json["permutations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|row| row["count"].as_u64().unwrap())
                .collect()
        };
        assert!(counts(&run) == counts(&check), "{algorithm}: counts differ");
        assert_eq!(run["tests"], check["tests"], "{algorithm}: tests differ");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ctrl_c_while_reading_a_pipe_reports_what_was_read_and_exits_130() {
    use std::io::Write;
    use std::process::{Command as Process, Stdio};
    let mut child = Process::new(assert_cmd::cargo::cargo_bin("shuffle-bias"))
        .args(["check", "-q", "--format", "json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all("0 1 2\n2 1 0\n".repeat(500).as_bytes())
        .unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let status = Process::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    std::thread::sleep(std::time::Duration::from_millis(200));
    // More input wakes the blocked read; the reader then sees the stop flag.
    let _ = stdin.write_all(b"1 0 2\n");
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["interrupted"], true);
    assert!(json["trials"].as_u64().unwrap() >= 1000);
}

#[test]
fn check_against_several_passes_of_a_physical_shuffle_reproduces_the_run() {
    let dir = std::env::temp_dir().join(format!("shuffle-bias-passes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (algorithm, extra) in [
        ("riffle", &["--passes", "2"][..]),
        (
            "overhand",
            &["--passes", "3", "--cut-probability", "0.25"][..],
        ),
        ("shelf", &["--passes", "2", "--shelves", "3"][..]),
    ] {
        let emitted = dir.join(format!("{algorithm}.txt"));
        let output = Command::cargo_bin("shuffle-bias")
            .unwrap()
            .args(["run", algorithm, "-n", "5", "-t", "200k", "--seed", "23"])
            .args(extra)
            .args(["--against", "model", "-q", "--format", "json"])
            .arg("--emit-permutations")
            .arg(&emitted)
            .output()
            .unwrap();
        let run: Value = serde_json::from_slice(&output.stdout).unwrap();
        let mut args = vec![emitted.to_str().unwrap(), "--against", algorithm];
        args.extend_from_slice(extra);
        let (check, code) = check_json(&args);
        assert_eq!(output.status.code(), Some(code), "{algorithm}");
        assert_eq!(run["permutations"], check["permutations"], "{algorithm}");
        assert_eq!(run["tests"], check["tests"], "{algorithm}");
        assert_eq!(run["passes"], check["passes"], "{algorithm}");
        let header = std::fs::read_to_string(&emitted).unwrap();
        assert!(
            header.starts_with(&format!("# shuffle-bias run {algorithm} ")),
            "{header:.80}"
        );
        for flag in extra.chunks(2) {
            assert!(header.lines().next().unwrap().contains(&flag.join(" ")));
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
