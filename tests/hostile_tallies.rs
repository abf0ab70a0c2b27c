//! Tally files are input from other machines, and a tally's inputs are what they hold: the same
//! data tallied under two names, seams holding cards beyond the deck, header values the command
//! line refuses, a sparse file claiming millions of fingerprints, names that try to write lines
//! of their own into a report. Each is refused with exit 2 and a message naming the file, never
//! a panic and never a report (issue #33, items 1, 4, 5 and the escaping of names).

mod common;

use std::path::{Path, PathBuf};

use common::shuffle_bias;
use serde_json::Value;

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

/// `check FILE --save-tally dir/name` (FILE as spelled by `input`, from `dir`).
fn check_tally(dir: &Path, input: &str, name: &str) -> PathBuf {
    check_tally_of(dir, &[input], None, name)
}

/// `check ARGS --save-tally dir/name` from `dir`, `stdin` on standard input if given.
fn check_tally_of(dir: &Path, args: &[&str], stdin: Option<Vec<u8>>, name: &str) -> PathBuf {
    let tally = dir.join(name);
    let mut command = shuffle_bias();
    command
        .current_dir(dir)
        .arg("check")
        .args(args)
        .arg("--save-tally")
        .arg(&tally)
        .args(["-q", "-o", "/dev/null"]);
    if let Some(stdin) = stdin {
        command.write_stdin(stdin);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.code().unwrap() < 2,
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    tally
}

/// `merge` of `files`: exit code, stdout, stderr.
fn merge(files: &[&Path]) -> (i32, String, String) {
    let output = shuffle_bias()
        .arg("merge")
        .args(files)
        .args(["--quiet", "--format", "json"])
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn merge_refuses_one_input_tallied_under_two_spellings_a_symlink_or_a_copy() {
    let dir = tempfile::tempdir().unwrap();
    fair_decks(dir.path(), "fair.txt", 1);
    let plain = check_tally(dir.path(), "fair.txt", "plain.tally");
    std::os::unix::fs::symlink("fair.txt", dir.path().join("link.txt")).unwrap();
    std::fs::copy(dir.path().join("fair.txt"), dir.path().join("copy.txt")).unwrap();
    let absolute = dir.path().join("fair.txt");
    for (input, name) in [
        ("./fair.txt", "dot.tally"),
        (absolute.to_str().unwrap(), "absolute.tally"),
        ("link.txt", "link.tally"),
        ("copy.txt", "copy.tally"),
    ] {
        let again = check_tally(dir.path(), input, name);
        let (code, stdout, stderr) = merge(&[&plain, &again]);
        assert_eq!(code, 2, "{input}: {stderr}");
        assert!(stdout.is_empty(), "{input}: a report was written");
        assert!(
            stderr.contains("plain.tally and ") && stderr.contains("counted twice"),
            "{input}: {stderr}"
        );
    }
}

#[test]
fn merge_adds_two_different_files_that_share_a_name() {
    let dir = tempfile::tempdir().unwrap();
    for (sub, seed) in [("monday", 1), ("tuesday", 2)] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
        fair_decks(&dir.path().join(sub), "deals.txt", seed);
    }
    let monday = check_tally(dir.path(), "monday/deals.txt", "monday.tally");
    let tuesday = check_tally(&dir.path().join("tuesday"), "deals.txt", "tuesday.tally");
    let (code, stdout, stderr) = merge(&[&monday, &tuesday]);
    assert!(code < 2, "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["trials"], 6000);
}

#[test]
fn merge_refuses_data_read_in_part_or_grown_between_two_reads_and_adds_files_that_differ() {
    // 3,000 four-card decks of 8 bytes: 24,000 bytes, so every read reaches the 16 KiB prefix.
    let dir = tempfile::tempdir().unwrap();
    let fair = fair_decks(dir.path(), "fair.txt", 1);
    let text = std::fs::read(&fair).unwrap();
    let whole = check_tally(dir.path(), "fair.txt", "whole.tally");
    let first: Vec<u8> = text
        .split_inclusive(|&b| b == b'\n')
        .take(2500)
        .flatten()
        .copied()
        .collect();
    std::fs::write(dir.path().join("earlier.txt"), &first).unwrap();
    let partial = [
        check_tally_of(
            dir.path(),
            &["fair.txt", "--trials", "1000"],
            None,
            "part.tally",
        ),
        check_tally_of(
            dir.path(),
            &["./fair.txt", "-t", "2000"],
            None,
            "dot-part.tally",
        ),
        check_tally_of(
            dir.path(),
            &["-", "-t", "1000"],
            Some(text.clone()),
            "pipe.tally",
        ),
        // The file as it was before its last 500 lines were written, read whole.
        check_tally(dir.path(), "earlier.txt", "earlier.tally"),
    ];
    for again in &partial {
        for pair in [[&whole, again], [again, &whole]] {
            let (code, stdout, stderr) = merge(&[pair[0], pair[1]]);
            assert_eq!(code, 2, "{}: {stderr}", again.display());
            assert!(
                stdout.is_empty(),
                "{}: a report was written",
                again.display()
            );
            assert!(
                stderr.contains("the same first 16,384 bytes") && stderr.contains("counted twice"),
                "{}: {stderr}",
                again.display()
            );
        }
    }
    // Two reads in part of one file overlap too.
    let (code, _, stderr) = merge(&[&partial[0], &partial[1]]);
    assert_eq!(code, 2, "{stderr}");

    // A file of other decks, read in part under the same name elsewhere, is another input; and
    // a file listed after the point where a read in part stopped was never read.
    std::fs::create_dir(dir.path().join("tuesday")).unwrap();
    let tuesday = fair_decks(&dir.path().join("tuesday"), "fair.txt", 2);
    std::fs::copy(&tuesday, dir.path().join("other.txt")).unwrap();
    let elsewhere = check_tally_of(
        &dir.path().join("tuesday"),
        &["fair.txt", "-t", "1000"],
        None,
        "tuesday.tally",
    );
    let (code, stdout, stderr) = merge(&[&whole, &elsewhere]);
    assert!(code < 2, "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["trials"], 4000);
    let stopped_before_other = check_tally_of(
        dir.path(),
        &["fair.txt", "other.txt", "-t", "500"],
        None,
        "stopped.tally",
    );
    let other = check_tally(dir.path(), "other.txt", "other.tally");
    let (code, stdout, stderr) = merge(&[&stopped_before_other, &other]);
    assert!(code < 2, "{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["trials"], 3500);
}

/// Rewrite a tally file's header with `edit` and recompute its CRC-32: a sound file that says
/// something else.
fn rewrite_header(path: &Path, to: &Path, edit: impl Fn(&mut Value)) {
    let bytes = std::fs::read(path).unwrap();
    let length = u32::from_le_bytes(bytes[21..25].try_into().unwrap()) as usize;
    let mut header: Value = serde_json::from_slice(&bytes[25..25 + length]).unwrap();
    edit(&mut header);
    let json = serde_json::to_vec(&header).unwrap();
    let mut out = bytes[..21].to_vec();
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(&bytes[25 + length..bytes.len() - 4]);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    std::fs::write(to, out).unwrap();
}

/// `run fisher-yates -n N -t TRIALS --seed 7 --save-tally dir/name` (N > 11: marginal).
fn run_tally(dir: &Path, name: &str, deck: &str, trials: &str) -> PathBuf {
    let path = dir.join(name);
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            deck,
            "-t",
            trials,
            "--seed",
            "7",
        ])
        .arg("--save-tally")
        .arg(&path)
        .args(["-q", "-o", "/dev/null"])
        .assert()
        .code(predicates::ord::lt(2));
    path
}

fn assert_refused_with(file: &Path, expected: &str) {
    let (code, stdout, stderr) = merge(&[file]);
    assert_eq!(code, 2, "{}: {stderr}", file.display());
    assert!(
        stdout.is_empty(),
        "{}: a report was written",
        file.display()
    );
    assert!(
        stderr.contains("the tally header is invalid") && stderr.contains(expected),
        "{expected:?} not in: {stderr}"
    );
}

#[test]
fn merge_refuses_seams_holding_a_card_beyond_the_deck_or_a_card_twice_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let five = run_tally(dir.path(), "five.tally", "5", "20000");
    type Edit = fn(&mut Value);
    let edits: [(&str, Edit, &str); 4] = [
        (
            "first.tally",
            |h| h["deal_stream"]["ends"][0]["first"][0] = 9.into(),
            "card 9, beyond a deck of 5",
        ),
        (
            "last.tally",
            |h| h["deal_stream"]["ends"][0]["last"][4] = 5.into(),
            "card 5, beyond a deck of 5",
        ),
        (
            "zeros.tally",
            |h| h["deal_stream"]["ends"][0]["last"] = serde_json::json!([0, 0, 0, 0, 0]),
            "card 0 twice",
        ),
        (
            "block.tally",
            |h| h["deal_stream"]["ends"][0]["last_block"] = 3.into(),
            "not blocks of this run",
        ),
    ];
    for (name, edit, expected) in edits {
        let bad = dir.path().join(name);
        rewrite_header(&five, &bad, edit);
        assert_refused_with(&bad, expected);
    }
    let deck = run_tally(dir.path(), "deck.tally", "52", "1000");
    let bad = dir.path().join("card60.tally");
    rewrite_header(&deck, &bad, |h| {
        h["deal_stream"]["ends"][0]["first"][51] = 60.into();
    });
    assert_refused_with(&bad, "card 60, beyond a deck of 52");
}

#[test]
fn header_values_the_command_line_refuses_are_refused_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_tally(dir.path(), "run.tally", "5", "200000");
    type Edit = fn(&mut Value);
    let run_edits: [(&str, Edit, &str); 9] = [
        ("alpha.tally", |h| h["alpha"] = (-0.5).into(), "alpha -0.5"),
        ("alpha1.tally", |h| h["alpha"] = 1.0.into(), "alpha 1"),
        (
            "deals.tally",
            |h| h["deal_stream"]["deals"] = (1u64 << 63).into(),
            "deal stream saw 9223372036854775808 deals",
        ),
        (
            "shard.tally",
            |h| h["run"]["shard"] = serde_json::json!([5, 2]),
            "shard [5, 2]",
        ),
        ("paths.tally", |h| h["max_paths"] = 0.into(), "max_paths 0"),
        (
            "passes.tally",
            |h| h["run"]["passes"] = 0.into(),
            "passes 0",
        ),
        (
            "elapsed.tally",
            |h| h["elapsed_seconds"] = 1e308.into(),
            "elapsed_seconds",
        ),
        ("bits.tally", |h| h["run"]["bits"] = 3.into(), "bits 3"),
        (
            "threads.tally",
            |h| h["run"]["threads"] = 0.into(),
            "threads 0",
        ),
    ];
    for (name, edit, expected) in run_edits {
        let bad = dir.path().join(name);
        rewrite_header(&run, &bad, edit);
        assert_refused_with(&bad, expected);
    }
    let input = dir.path().join("labels.txt");
    std::fs::write(&input, "A K Q\nK Q A\nQ A K\nA Q K\nK A Q\nQ K A\n").unwrap();
    let check = dir.path().join("check.tally");
    shuffle_bias()
        .args(["check", input.to_str().unwrap(), "--labels", "A,K,Q"])
        .args(["--state-bits", "8", "--save-tally"])
        .arg(&check)
        .args(["-q", "-o", "/dev/null"])
        .assert()
        .code(predicates::ord::lt(2));
    let check_edits: [(&str, Edit, &str); 3] = [
        (
            "state.tally",
            |h| h["check"]["state_bits"] = 0.into(),
            "state_bits 0",
        ),
        (
            "twice.tally",
            |h| h["check"]["labels"] = serde_json::json!(["A", "K", "A"]),
            "label 'A' twice",
        ),
        (
            "count.tally",
            |h| h["check"]["labels"] = serde_json::json!(["A", "K"]),
            "2 labels for a deck of 3",
        ),
    ];
    for (name, edit, expected) in check_edits {
        let bad = dir.path().join(name);
        rewrite_header(&check, &bad, edit);
        assert_refused_with(&bad, expected);
    }
}

#[test]
fn a_sparse_file_claiming_millions_of_fingerprints_is_refused_before_they_are_allocated() {
    // A 52-card check keeps 16 bytes a deck. The header is made to claim 40 million decks
    // (640 MB of fingerprints, within the fingerprint room of a machine with 2.6 GB free) and
    // the file is extended, sparse, to the size that promises; its counters still add up to
    // 300 decks. Under a 500 MB address-space limit, allocating the fingerprints would abort
    // the process; refusing the counters first exits 2.
    let dir = tempfile::tempdir().unwrap();
    let decks = dir.path().join("decks.txt");
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "52",
            "-t",
            "300",
            "--seed",
            "1",
        ])
        .arg("--emit-permutations")
        .arg(&decks)
        .args(["-q", "-o", "/dev/null"])
        .assert()
        .code(predicates::ord::lt(2));
    let tally = check_tally(dir.path(), "decks.txt", "decks.tally");
    let claimed: u64 = 40_000_000;
    let bytes = std::fs::read(&tally).unwrap();
    let length = u32::from_le_bytes(bytes[21..25].try_into().unwrap()) as usize;
    let mut header: Value = serde_json::from_slice(&bytes[25..25 + length]).unwrap();
    let counts = header["counts_bytes"].as_u64().unwrap()
        + header["deal_stream"]["counts_bytes"].as_u64().unwrap();
    header["trials"] = claimed.into();
    header["check"]["lines"] = claimed.into();
    header["deal_stream"]["deals"] = claimed.into();
    header["deal_stream"]["fingerprints"] = claimed.into();
    header["body_bytes"] = (counts + 16 * claimed).into();
    let json = serde_json::to_vec(&header).unwrap();
    let mut out = bytes[..21].to_vec();
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(&bytes[25 + length..25 + length + counts as usize]);
    let size = (out.len() as u64) + 16 * claimed + 4;
    let sparse = dir.path().join("sparse.tally");
    std::fs::write(&sparse, &out).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&sparse)
        .unwrap()
        .set_len(size)
        .unwrap();
    let binary = assert_cmd::cargo::cargo_bin("shuffle-bias");
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 500000 && exec \"$0\" merge \"$1\" -q --format json")
        .arg(&binary)
        .arg(&sparse)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(output.stdout.is_empty());
    assert!(stderr.contains("sparse.tally: corrupted"), "{stderr}");
}

#[test]
fn a_file_name_with_a_newline_cannot_write_a_verdict_line_into_a_markdown_report() {
    let dir = tempfile::tempdir().unwrap();
    let name = "a\n## NO BIAS DETECTED\u{1b}[0m.txt";
    let decks = fair_decks(dir.path(), "decks.txt", 1);
    std::fs::rename(&decks, dir.path().join(name)).unwrap();
    let output = shuffle_bias()
        .current_dir(dir.path())
        .args(["check", name, "--format", "markdown", "-q", "--save-tally"])
        .arg(dir.path().join("named.tally"))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.code().unwrap() < 2, "{report}");
    assert!(
        report.contains("a\\n## NO BIAS DETECTED\\u{1b}[0m.txt"),
        "{report}"
    );
    assert!(
        !report.lines().any(|line| line.starts_with("## NO BIAS")),
        "{report}"
    );
    assert!(!report.contains('\u{1b}'), "{report}");
    // A tally file's recorded name is escaped too when merge reports it.
    let merged = shuffle_bias()
        .args(["merge", "--format", "markdown", "-q"])
        .arg(dir.path().join("named.tally"))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&merged.stdout);
    assert!(report.contains("a\\n## NO BIAS DETECTED"), "{report}");
    assert!(
        !report.lines().any(|line| line.starts_with("## NO BIAS")),
        "{report}"
    );
}

/// The counters of a tally file saved without the deal tests (its body is the tally's counters
/// only), decoded from the header's `encoding`.
fn counters(path: &Path) -> (Value, Vec<u64>) {
    let bytes = std::fs::read(path).unwrap();
    let length = u32::from_le_bytes(bytes[21..25].try_into().unwrap()) as usize;
    let header: Value = serde_json::from_slice(&bytes[25..25 + length]).unwrap();
    assert!(
        header["deal_stream"].is_null(),
        "saved with --no-deal-tests"
    );
    let body = &bytes[25 + length..bytes.len() - 4];
    let counters = match header["encoding"].as_str().unwrap() {
        "leb128" => {
            let (mut values, mut value, mut shift) = (Vec::new(), 0u64, 0);
            for &byte in body {
                value |= u64::from(byte & 0x7f) << shift;
                shift += 7;
                if byte < 0x80 {
                    values.push(value);
                    (value, shift) = (0, 0);
                }
            }
            values
        }
        word => {
            let width = word[1..].parse::<usize>().unwrap() / 8;
            body.chunks_exact(width)
                .map(|w| w.iter().rev().fold(0u64, |acc, &b| acc << 8 | u64::from(b)))
                .collect()
        }
    };
    (header, counters)
}

/// Write a sound tally file (CRC-32 recomputed) of `header` and `counters`, as `u64` words.
fn write_counters(to: &Path, mut header: Value, counters: &[u64]) {
    let body: Vec<u8> = counters.iter().flat_map(|c| c.to_le_bytes()).collect();
    header["encoding"] = "u64".into();
    header["counts_bytes"] = body.len().into();
    header["body_bytes"] = body.len().into();
    let json = serde_json::to_vec(&header).unwrap();
    let mut out = b"shuffle-bias tally\n".to_vec();
    out.extend_from_slice(&5u16.to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(&body);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    std::fs::write(to, out).unwrap();
}

#[test]
fn counts_that_would_pass_two_to_the_64_in_a_merge_are_refused_never_wrapped() {
    // Counters are u64: a file claiming 2^63 shuffles merged with another would wrap to 0, and
    // a wrapped tally reported "no bias" for two files that each showed it. A file holds at most
    // 2^53 shuffles (as --trials), the files of a merge at most 2^53 in all, and every part of a
    // file's counters must add up to its shuffles, so no sum can wrap.
    let dir = tempfile::tempdir().unwrap();
    let decks = dir.path().join("decks.txt");
    std::fs::write(&decks, "0 1 2 3\n3 2 1 0\n1 0 3 2\n2 3 0 1\n").unwrap();
    let base = dir.path().join("base.tally");
    shuffle_bias()
        .arg("check")
        .arg(&decks)
        .args(["--no-deal-tests", "--save-tally"])
        .arg(&base)
        .args(["-q", "-o", "/dev/null"])
        .assert()
        .code(predicates::ord::lt(2));
    let (header, cells) = counters(&base);
    assert_eq!(cells.len(), 24);
    // One ordering seen `trials` times, in files of two different inputs.
    let crafted = |name: &str, trials: u64, input: u32| {
        let mut header = header.clone();
        header["trials"] = trials.into();
        header["check"]["lines"] = trials.into();
        let source = format!("day{input}.txt");
        header["check"]["sources"] = serde_json::json!([source]);
        header["check"]["contents"] = serde_json::json!([
            {"source": source, "bytes": 100 + input, "digest": format!("{input:032x}")}
        ]);
        let mut counts = vec![0u64; 24];
        counts[0] = trials;
        let path = dir.path().join(name);
        write_counters(&path, header, &counts);
        path
    };
    let huge = crafted("huge.tally", 1 << 63, 1);
    let (code, stdout, stderr) = merge(&[&huge]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("trials 9223372036854775808: more than 2^53"),
        "{stderr}"
    );
    // Each within 2^53, together beyond it: refused before any counter is added.
    let (a, b) = (
        crafted("a.tally", 3 << 51, 2),
        crafted("b.tally", 3 << 51, 3),
    );
    for file in [&a, &b] {
        let (code, _, stderr) = merge(&[file]);
        assert_eq!(code, 1, "one file alone is a sound, biased tally: {stderr}");
    }
    let (code, stdout, stderr) = merge(&[&a, &b]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("13510798882111488 shuffles in all, more than 2^53"),
        "{stderr}"
    );

    // Marginal mode: a histogram's counter of 2^63 in a file of 300 shuffles. Its position
    // matrix adds up, so only the check of every part finds it.
    let marginal = dir.path().join("marginal.tally");
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "20",
            "-t",
            "300",
            "--seed",
            "3",
        ])
        .args(["--no-deal-tests", "--save-tally"])
        .arg(&marginal)
        .args(["-q", "-o", "/dev/null"])
        .assert()
        .code(predicates::ord::lt(2));
    let (header, mut cells) = counters(&marginal);
    let histograms = 20 * 20 + 1;
    cells[histograms] += 1 << 63;
    let bad = dir.path().join("histogram.tally");
    write_counters(&bad, header.clone(), &cells);
    let (code, stdout, stderr) = merge(&[&bad]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("its histogram of fixed-points adds up to 9223372036854776108"),
        "{stderr}"
    );
    // The identity count above the shuffles.
    cells[histograms] -= 1 << 63;
    cells[20 * 20] = 301;
    write_counters(&bad, header.clone(), &cells);
    let (code, _, stderr) = merge(&[&bad]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("identity count 301 is more than its 300 shuffles"),
        "{stderr}"
    );
    // Re-encoded but sound: accepted, with the verdict and trials of the file the run wrote.
    cells[20 * 20] = counters(&marginal).1[20 * 20];
    write_counters(&bad, header, &cells);
    let (code, stdout, stderr) = merge(&[&marginal]);
    let (rewritten_code, rewritten, _) = merge(&[&bad]);
    assert_eq!(rewritten_code, code, "{stderr}");
    let json = |text: &str| serde_json::from_str::<Value>(text).unwrap();
    let (good, rewritten) = (json(&stdout), json(&rewritten));
    assert_eq!(rewritten["trials"], 300);
    assert_eq!(rewritten["bias_detected"], good["bias_detected"]);
}
