//! `merge` refuses what is not one experiment, or not all of it, or not a sound file — exit 2
//! with a message naming the file and the mismatch — and adds `check --save-tally` files of
//! different inputs into the report of one check of them all.

mod common;

use std::path::{Path, PathBuf};

use common::shuffle_bias;
use serde_json::Value;

/// Save shard `shard` of `run naive -n 5 -t 300000 --seed 7` to `dir/name`, with `extra`
/// (pairs of a flag and its value) replacing those settings or added to them.
fn shard(dir: &Path, name: &str, shard: &str, extra: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut flags = vec![["-n", "5"], ["-t", "300000"], ["--seed", "7"]];
    for pair in extra.chunks(2) {
        match flags.iter_mut().find(|f| f[0] == pair[0]) {
            Some(flag) => flag[1] = pair[1],
            None => flags.push([pair[0], pair[1]]),
        }
    }
    let output = shuffle_bias()
        .args(["run", "naive"])
        .args(flags.concat())
        .args([
            "--shard",
            shard,
            "--save-tally",
            path.to_str().unwrap(),
            "--quiet",
        ])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    path
}

/// `merge` of `files`: its exit code and stderr.
fn merge(files: &[&Path], flags: &[&str]) -> (i32, String) {
    let output = shuffle_bias()
        .arg("merge")
        .args(files)
        .args(flags)
        .args(["--quiet", "--format", "json"])
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn assert_refused(files: &[&Path], flags: &[&str], expected: &[&str]) {
    let (code, stderr) = merge(files, flags);
    assert_eq!(code, 2, "{files:?}: {stderr}");
    for text in expected {
        assert!(stderr.contains(text), "{text:?} not in: {stderr}");
    }
}

#[test]
fn files_of_different_experiments_are_refused_naming_the_file_and_the_setting() {
    let dir = tempfile::tempdir().unwrap();
    let first = shard(dir.path(), "first.tally", "0/2", &[]);
    let cases: [(&str, Vec<&str>, &str, &str); 6] = [
        ("seed.tally", vec!["--seed", "8"], "seed 8", "seed 7"),
        ("deck.tally", vec!["-n", "6"], "deck 6", "deck 5"),
        (
            "rng.tally",
            vec!["--rng", "pcg32"],
            "rng pcg32",
            "rng chacha8",
        ),
        (
            "passes.tally",
            vec!["--passes", "2"],
            "passes 2",
            "passes 1",
        ),
        (
            "trials.tally",
            vec!["-t", "400000"],
            "trials 400000",
            "trials 300000",
        ),
        (
            "map.tally",
            vec!["--map", "modulo"],
            "map modulo",
            "map lemire",
        ),
    ];
    for (name, flags, theirs, ours) in cases {
        let other = shard(dir.path(), name, "1/2", &flags);
        assert_refused(&[&first, &other], &[], &[name, theirs, ours, "first.tally"]);
    }
    // Another algorithm (the helper runs naive).
    let path = dir.path().join("algorithm.tally");
    shuffle_bias()
        .args(["run", "sattolo", "-n", "5", "-t", "300000", "--seed", "7"])
        .args([
            "--shard",
            "1/2",
            "--save-tally",
            path.to_str().unwrap(),
            "-q",
        ])
        .assert()
        .code(0);
    assert_refused(
        &[&first, &path],
        &[],
        &["algorithm.tally", "algorithm sattolo", "algorithm naive"],
    );
    // Another mode.
    let marginal = shard(dir.path(), "marginal.tally", "1/2", &["--mode", "marginal"]);
    assert_refused(&[&first, &marginal], &[], &["mode marginal", "mode full"]);
}

#[test]
fn overlapping_shards_are_refused_naming_both_files_and_the_blocks() {
    // 300,000 trials are 5 blocks: 0/2 is blocks 0–1, 0/3 is block 0, 1/3 blocks 1–2.
    let dir = tempfile::tempdir().unwrap();
    let half = shard(dir.path(), "half.tally", "0/2", &[]);
    let third = shard(dir.path(), "third.tally", "1/3", &[]);
    assert_refused(
        &[&half, &third],
        &[],
        &[
            "half.tally and ",
            "third.tally both cover block 1:",
            "overlap",
        ],
    );
}

#[test]
fn missing_shards_are_refused_unless_allowed_and_the_report_then_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let a = shard(dir.path(), "a.tally", "0/3", &[]);
    let c = shard(dir.path(), "c.tally", "2/3", &[]);
    // 5 blocks in 3 shards: 0–0, 1–2, 3–4.
    assert_refused(
        &[&a, &c],
        &[],
        &[
            "blocks 1–2 of the run's 5 are missing (shard 1/3)",
            "--allow-partial",
        ],
    );
    let output = shuffle_bias()
        .args(["merge", "--allow-partial", "--format", "json", "-q"])
        .args([&a, &c])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["interrupted"], true);
    assert_eq!(json["trials_requested"], 300_000);
    assert_eq!(json["trials"], 65_536 + 2 * 65_536 - (5 * 65_536 - 300_000));
    assert!(json["warnings"].to_string().contains("blocks 1–2"));
    // A biased shuffle is still detected on part of its trials: the verdict's exit code.
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn truncated_corrupted_and_foreign_files_are_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let a = shard(dir.path(), "a.tally", "0/2", &[]);
    let b = shard(dir.path(), "b.tally", "1/2", &[]);
    let bytes = std::fs::read(&b).unwrap();

    let truncated = dir.path().join("truncated.tally");
    std::fs::write(&truncated, &bytes[..bytes.len() - 10]).unwrap();
    assert_refused(&[&a, &truncated], &[], &["truncated.tally: truncated"]);

    let appended = dir.path().join("appended.tally");
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"more");
    std::fs::write(&appended, &longer).unwrap();
    assert_refused(&[&a, &appended], &[], &["appended.tally", "more than"]);

    // One bit flipped in the counters: the CRC-32 no longer matches.
    let corrupted = dir.path().join("corrupted.tally");
    let mut flipped = bytes.clone();
    let at = flipped.len() - 20;
    flipped[at] ^= 0x10;
    std::fs::write(&corrupted, &flipped).unwrap();
    assert_refused(
        &[&a, &corrupted],
        &[],
        &["corrupted.tally: corrupted", "CRC-32"],
    );

    let foreign = dir.path().join("foreign.tally");
    std::fs::write(&foreign, b"PK\x03\x04 a zip file, not a tally").unwrap();
    assert_refused(
        &[&a, &foreign],
        &[],
        &["foreign.tally: not a shuffle-bias tally"],
    );

    // A newer format: version 6 in the two bytes after the magic; and the older ones, version
    // 4 (no Mallows kernel sums), 3 (eight statistics in marginal mode), 2 (four) and 1 (varints only, no
    // deal stream), which this build refuses rather than reads.
    for (found, name) in [
        (6u8, "newer.tally"),
        (4, "old.tally"),
        (3, "older-statistics.tally"),
        (2, "older.tally"),
        (1, "oldest.tally"),
    ] {
        let other = dir.path().join(name);
        let mut version = bytes.clone();
        version[19] = found;
        std::fs::write(&other, &version).unwrap();
        assert_refused(
            &[&a, &other],
            &[],
            &[
                &format!("{name}: tally format version {found}"),
                "reads version 5",
                "save the tally again",
            ],
        );
    }

    // A bit flipped anywhere in the counters (the tally's, then the deal stream's, the
    // fingerprint-free body of a full run) is caught by the CRC-32, or by a count that no
    // longer adds up.
    let length = u32::from_le_bytes(bytes[21..25].try_into().unwrap()) as usize;
    let body = 25 + length;
    for at in [body, body + 7, body + 60, bytes.len() - 5] {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x01;
        std::fs::write(&corrupted, &flipped).unwrap();
        assert_refused(&[&a, &corrupted], &[], &["corrupted.tally: corrupted"]);
    }
}

#[test]
fn headers_whose_sizes_or_deal_stream_cannot_be_the_body_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = shard(dir.path(), "a.tally", "0/2", &[]);
    type Edit = fn(&mut Value);
    let edits: [(&str, Edit, &str); 4] = [
        (
            "encoding.tally",
            // The shard's counts (about 1,250 an ordering) are u16 words: not u32 ones.
            |h| h["encoding"] = "u32".into(),
            "cannot hold",
        ),
        (
            "unknown.tally",
            |h| h["encoding"] = "zstd".into(),
            "unknown encoding",
        ),
        (
            "dealt.tally",
            |h| h["deal_stream"]["dealt"] = 4.into(),
            "deal stream",
        ),
        (
            "pairs.tally",
            |h| h["deal_stream"]["pairs"] = 10_000_000.into(),
            "deal stream",
        ),
    ];
    for (name, edit, expected) in edits {
        let bad = dir.path().join(name);
        rewrite_header(&a, &bad, edit);
        assert_refused(
            &[&bad],
            &[],
            &[&format!("{name}: the tally header is invalid"), expected],
        );
    }
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

#[test]
fn a_file_from_another_version_of_the_tool_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = shard(dir.path(), "a.tally", "0/2", &[]);
    let b = shard(dir.path(), "b.tally", "1/2", &[]);
    let other = dir.path().join("other-version.tally");
    rewrite_header(&b, &other, |h| h["version"] = "9.9.9".into());
    assert_refused(
        &[&a, &other],
        &[],
        &["other-version.tally: version 9.9.9", "a.tally has version"],
    );
    // The rewritten file itself is sound: with a's version back, the pair merges.
    let same = dir.path().join("same-version.tally");
    rewrite_header(&other, &same, |h| {
        h["version"] = env!("CARGO_PKG_VERSION").into();
    });
    assert_eq!(merge(&[&a, &same], &[]).0, 1);
    // Another tool's header in a file with our magic.
    let tool = dir.path().join("tool.tally");
    rewrite_header(&b, &tool, |h| h["tool"] = "deck-stats".into());
    assert_refused(&[&tool], &[], &["tool.tally: not a shuffle-bias tally"]);
}

#[test]
fn the_level_comes_from_the_files_unless_merge_chooses_it() {
    let dir = tempfile::tempdir().unwrap();
    let a = shard(dir.path(), "a.tally", "0/2", &["--alpha", "0.01"]);
    let b = shard(dir.path(), "b.tally", "1/2", &["--alpha", "0.05"]);
    assert_refused(
        &[&a, &b],
        &[],
        &["b.tally: --alpha 0.05", "0.01", "merge --alpha"],
    );
    let output = shuffle_bias()
        .args(["merge", "--alpha", "0.02", "--format", "json", "-q"])
        .args([&a, &b])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["alpha"], 0.02);
}

#[test]
fn check_tallies_of_several_inputs_merge_into_one_check_of_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    // 30,000 deals of a biased shuffle, cut into three "days".
    let all = path("all.txt");
    shuffle_bias()
        .args([
            "run", "naive", "-n", "5", "-t", "30000", "--seed", "2", "-q",
        ])
        .args([
            "-o",
            "/dev/null",
            "--emit-permutations",
            all.to_str().unwrap(),
        ])
        .assert()
        .code(1);
    let text = std::fs::read_to_string(&all).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let mut tallies = Vec::new();
    for (day, deals) in lines.chunks(10_000).enumerate() {
        let input = path(&format!("day{day}.txt"));
        std::fs::write(&input, deals.join("\n") + "\n").unwrap();
        let tally = path(&format!("day{day}.tally"));
        shuffle_bias()
            .arg("check")
            .arg(&input)
            .args([
                "--save-tally",
                tally.to_str().unwrap(),
                "-q",
                "-o",
                "/dev/null",
            ])
            .assert()
            .code(1);
        tallies.push(tally);
    }
    let check_json = |input: &Path| -> Value {
        let output = shuffle_bias()
            .arg("check")
            .arg(input)
            .args(["--format", "json", "-q"])
            .output()
            .unwrap();
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let one = check_json(&all);
    let merged = shuffle_bias()
        .arg("merge")
        .args(&tallies)
        .args(["--format", "json", "-q"])
        .output()
        .unwrap();
    assert_eq!(merged.status.code(), Some(1));
    let merged: Value = serde_json::from_slice(&merged.stdout).unwrap();
    for key in ["permutations", "positions", "identity", "verdict", "trials"] {
        assert_eq!(one[key], merged[key], "{key}");
    }
    assert_eq!(merged["command"], "check");
    assert_eq!(merged["input"]["permutations"], 30_000);
    assert_eq!(merged["input"]["lines"], 30_000, "the three days' lines");
    let sources = merged["input"]["sources"].to_string();
    assert!(sources.contains("day0.txt") && sources.contains("day2.txt"));
    // Each day's lines, named by its tally file and its input.
    for (day, file) in merged["merged"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        assert!(
            file["file"]
                .as_str()
                .unwrap()
                .ends_with(&format!("day{day}.tally"))
        );
        assert_eq!(
            file["sources"][0].as_str().unwrap(),
            path(&format!("day{day}.txt")).to_str().unwrap()
        );
        assert_eq!(file["lines"], 10_000);
        assert_eq!(file["trials"], 10_000);
    }
    // The deal stream of each day stands alone: the last deal of a day is not paired with the
    // first of the next (the merge cannot know the days follow each other). So the merged
    // stream is the three days' streams added: 3 × 9,999 pairs, where one check of the
    // concatenated file has 29,999; the repeated decks come from the merged counts, as in one
    // check.
    let stream = &merged["deal_stream"];
    assert_eq!(stream["deals"], 30_000);
    assert_eq!(stream["pairs"], 29_997);
    assert_eq!(one["deal_stream"]["pairs"], 29_999);
    assert_eq!(stream["repeats"], one["deal_stream"]["repeats"]);
    let days: Vec<Value> = (0..3)
        .map(|day| check_json(&path(&format!("day{day}.txt"))))
        .collect();
    let matches = &stream["matches"]["observed"];
    for (m, observed) in matches.as_array().unwrap().iter().enumerate() {
        let sum: u64 = days
            .iter()
            .map(|d| d["deal_stream"]["matches"]["observed"][m].as_u64().unwrap())
            .sum();
        assert_eq!(observed.as_u64().unwrap(), sum, "pairs with {m} matches");
    }

    // The same day saved twice is refused: it would be counted twice.
    let again = path("day0-again.tally");
    shuffle_bias()
        .arg("check")
        .arg(path("day0.txt"))
        .args([
            "--save-tally",
            again.to_str().unwrap(),
            "-q",
            "-o",
            "/dev/null",
        ])
        .assert()
        .code(1);
    assert_refused(
        &[&tallies[0], &again],
        &[],
        &[
            "day0.tally and ",
            "day0-again.tally both tallied",
            "day0.txt",
        ],
    );
    // A check tally and a run tally are not one experiment.
    let run = shard(dir.path(), "run.tally", "0/2", &[]);
    assert_refused(&[&tallies[0], &run], &[], &["command run", "command check"]);
}

/// A 52-card deck shuffled by a small xorshift Fisher–Yates from `seed`, as a line.
fn deck_line(seed: u64) -> String {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut deck: Vec<u32> = (0..52).collect();
    for i in (1..52).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        deck.swap(i, (state % (i as u64 + 1)) as usize);
    }
    deck.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn repeated_decks_are_counted_across_the_days_of_a_merge_of_check_tallies() {
    // Three days of 52-card decks (marginal mode: the repeats come from the decks'
    // fingerprints, kept in each tally file); day 0's second deck comes back on day 2.
    let dir = tempfile::tempdir().unwrap();
    let mut days: Vec<Vec<String>> = (0..3u64)
        .map(|day| (0..200).map(|i| deck_line(day * 1000 + i)).collect())
        .collect();
    days[2][50] = days[0][1].clone();
    let mut tallies = Vec::new();
    for (day, decks) in days.iter().enumerate() {
        let input = dir.path().join(format!("day{day}.txt"));
        std::fs::write(&input, decks.join("\n") + "\n").unwrap();
        let tally = dir.path().join(format!("day{day}.tally"));
        shuffle_bias()
            .arg("check")
            .arg(&input)
            .arg("--save-tally")
            .arg(&tally)
            .args(["-q", "-o", "/dev/null"])
            .assert()
            .code(predicates::ord::lt(2));
        tallies.push(tally);
    }
    let output = shuffle_bias()
        .arg("merge")
        .args(&tallies)
        .args(["--format", "json", "-q"])
        .output()
        .unwrap();
    let merged: Value = serde_json::from_slice(&output.stdout).unwrap();
    let repeats = &merged["deal_stream"]["repeats"];
    assert_eq!(repeats["repeated_pairs"], 1, "{repeats}");
    assert_eq!(repeats["distinct"], 599);
    assert_eq!(merged["deal_stream"]["pairs"], 3 * 199);
    // Alone, no day repeats a deck.
    let alone = shuffle_bias()
        .arg("merge")
        .arg(&tallies[2])
        .args(["--format", "json", "-q"])
        .output()
        .unwrap();
    let alone: Value = serde_json::from_slice(&alone.stdout).unwrap();
    assert_eq!(alone["deal_stream"]["repeats"]["repeated_pairs"], 0);
}

#[test]
fn check_tallies_read_from_stdin_merge_and_labels_must_agree() {
    let dir = tempfile::tempdir().unwrap();
    let save = |name: &str, input: &str, labels: &str| {
        let tally = dir.path().join(name);
        shuffle_bias()
            .args(["check", "--labels", labels, "--save-tally"])
            .arg(&tally)
            .args(["-q", "-o", "/dev/null"])
            .write_stdin(input)
            .assert()
            .code(predicates::ord::lt(2));
        tally
    };
    let monday = save("monday.tally", "A K Q\nK Q A\nQ A K\n", "A,K,Q");
    let tuesday = save("tuesday.tally", "A Q K\nK A Q\n", "A,K,Q");
    let output = shuffle_bias()
        .arg("merge")
        .args([&monday, &tuesday])
        .args(["--format", "json", "-q"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["trials"], 5);
    assert_eq!(json["input"]["sources"].as_array().unwrap().len(), 2);
    let other = save("other.tally", "1 2 3\n", "1,2,3");
    assert_refused(
        &[&monday, &other],
        &[],
        &["other.tally: labels 1,2,3", "A,K,Q"],
    );
}

#[test]
fn save_tally_is_never_an_input_nor_another_output() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("deals.txt");
    std::fs::write(&input, "0 1 2\n2 1 0\n").unwrap();
    let output = shuffle_bias()
        .arg("check")
        .arg(&input)
        .arg("--save-tally")
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--save-tally"));
    assert_eq!(std::fs::read_to_string(&input).unwrap(), "0 1 2\n2 1 0\n");
    let report = dir.path().join("r.txt");
    let output = shuffle_bias()
        .args(["run", "naive", "-n", "4", "-t", "1000", "--seed", "1"])
        .arg("-o")
        .arg(&report)
        .arg("--save-tally")
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    // merge never writes over one of its tally files.
    let a = shard(dir.path(), "a.tally", "0/1", &[]);
    let before = std::fs::read(&a).unwrap();
    let output = shuffle_bias()
        .arg("merge")
        .arg(&a)
        .arg("-o")
        .arg(&a)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(std::fs::read(&a).unwrap(), before);
}

#[test]
fn merge_writes_every_format_of_run_to_a_file_and_a_picture() {
    let dir = tempfile::tempdir().unwrap();
    let a = shard(dir.path(), "a.tally", "0/2", &[]);
    let b = shard(dir.path(), "b.tally", "1/2", &[]);
    let single = shuffle_bias()
        .args([
            "run", "naive", "-n", "5", "-t", "300000", "--seed", "7", "-q",
        ])
        .args(["--format", "csv", "--table", "permutations"])
        .output()
        .unwrap();
    let report = dir.path().join("merged.csv");
    let plot = dir.path().join("merged.svg");
    shuffle_bias()
        .arg("merge")
        .args([&a, &b])
        .args(["-q", "--format", "csv", "--table", "permutations", "-o"])
        .arg(&report)
        .arg("--plot")
        .arg(&plot)
        .assert()
        .code(1)
        .stdout("");
    // The CSV of the orderings holds no time: it is the single run's, byte for byte.
    assert_eq!(std::fs::read(&report).unwrap(), single.stdout);
    assert!(std::fs::read_to_string(&plot).unwrap().starts_with("<svg"));
    // The statistics are tallied in marginal mode only, as `run` says before it starts.
    let refused = shuffle_bias()
        .arg("merge")
        .args([&a, &b])
        .args(["--format", "csv", "--table", "statistics"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    for text in [
        "--table statistics",
        "a.tally holds a full tally",
        "--mode marginal",
    ] {
        assert!(stderr.contains(text), "{stderr}");
    }
}

#[test]
fn a_whole_run_cut_short_saves_a_partial_tally_beside_its_report() {
    let dir = tempfile::tempdir().unwrap();
    let tally = dir.path().join("cut.tally");
    let output = common::interrupted_after(
        &[
            "run",
            "fisher-yates",
            "-n",
            "52",
            "--mode",
            "marginal",
            "-t",
            "5G",
            "--seed",
            "1",
            "--threads",
            "2",
            "--format",
            "json",
            "--save-tally",
            tally.to_str().unwrap(),
        ],
        1500,
    );
    assert_eq!(output.status.code(), Some(130));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["interrupted"], true);
    let (code, stderr) = merge(&[&tally], &[]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("cut.tally was cut short by Ctrl-C"),
        "{stderr}"
    );
    // With --allow-partial the merged counts are the interrupted report's, exactly.
    let merged = shuffle_bias()
        .arg("merge")
        .arg(&tally)
        .args(["--allow-partial", "--format", "json", "-q"])
        .output()
        .unwrap();
    let merged: Value = serde_json::from_slice(&merged.stdout).unwrap();
    // The deal stream too: the seams of the blocks done are paired as the run paired them.
    for key in [
        "trials",
        "positions",
        "identity",
        "tests",
        "statistics",
        "deal_stream",
    ] {
        assert_eq!(report[key], merged[key], "{key}");
    }
}

#[test]
fn a_shard_saved_without_the_deal_tests_leaves_them_out_of_the_merge_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let a = shard(dir.path(), "a.tally", "0/2", &[]);
    let b = dir.path().join("b.tally");
    shuffle_bias()
        .args(["run", "naive", "-n", "5", "-t", "300000", "--seed", "7"])
        .args(["--shard", "1/2", "--no-deal-tests", "-q", "--save-tally"])
        .arg(&b)
        .assert()
        .code(0);
    let output = shuffle_bias()
        .arg("merge")
        .args([&a, &b])
        .args(["--format", "json", "-q"])
        .output()
        .unwrap();
    let merged: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(merged["deal_stream"], Value::Null);
    let notes = merged["notes"].to_string();
    assert!(
        notes.contains("saved without them (--no-deal-tests)"),
        "{notes}"
    );
}

#[test]
fn a_check_cut_short_saves_what_it_read_marked_partial() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let tally = dir.path().join("today.tally");
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("shuffle-bias"))
        .args(["check", "--quiet", "-o", "/dev/null", "--save-tally"])
        .arg(&tally)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"0 1 2\n2 1 0\n").unwrap();
    stdin.flush().unwrap();
    let output = common::interrupt(child, 500);
    drop(stdin);
    assert_eq!(output.status.code(), Some(130));
    let (code, stderr) = merge(&[&tally], &[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("today.tally was cut short"), "{stderr}");
    let merged = shuffle_bias()
        .arg("merge")
        .arg(&tally)
        .args(["--allow-partial", "--format", "json", "-q"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!(json["trials"], 2);
    assert_eq!(json["interrupted"], true);
    assert_eq!(json["input"]["sources"][0], "<stdin>");
}

/// The counts of a JSON report: `permutations[].count` in rank order.
fn permutation_counts(json: &Value) -> Vec<u64> {
    json["permutations"]
        .as_array()
        .expect("permutations listed")
        .iter()
        .map(|row| row["count"].as_u64().unwrap())
        .collect()
}

#[test]
fn shards_of_nine_cards_read_by_several_threads_merge_into_the_single_run() {
    // 9! = 362,880 counters of one-byte words: the tallies every thread reads at once, each its
    // own range of counters in every file.
    let dir = tempfile::tempdir().unwrap();
    let run = ["fisher-yates", "-n", "9", "-t", "500000", "--seed", "3"];
    let save = |i: u64| {
        let path = dir.path().join(format!("s{i}.tally"));
        let output = shuffle_bias()
            .arg("run")
            .args(run)
            .args(["--shard", &format!("{i}/3"), "--save-tally"])
            .arg(&path)
            .arg("-q")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0));
        path
    };
    let shards: Vec<PathBuf> = (0..3).map(save).collect();
    let single = shuffle_bias()
        .arg("run")
        .args(run)
        .args(["--all-orderings", "--format", "json", "-q"])
        .output()
        .unwrap();
    let single: Value = serde_json::from_slice(&single.stdout).unwrap();
    let expected = permutation_counts(&single);
    assert_eq!(expected.len(), 362_880);
    for threads in ["1", "2", "3", "5"] {
        let output = shuffle_bias()
            .arg("merge")
            .args(&shards)
            .args([
                "--threads",
                threads,
                "--all-orderings",
                "--format",
                "json",
                "-q",
            ])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "--threads {threads}");
        let merged: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(permutation_counts(&merged), expected, "--threads {threads}");
        assert_eq!(merged["positions"], single["positions"]);
        assert_eq!(merged["verdict"], single["verdict"]);
    }

    // A counter changed in the middle of the last shard, read by the second thread: refused
    // by its CRC-32, naming the file.
    let mut bytes = std::fs::read(&shards[2]).unwrap();
    let length = u32::from_le_bytes(bytes[21..25].try_into().unwrap()) as usize;
    bytes[25 + length + 300_000] ^= 0x01;
    let corrupted = dir.path().join("corrupted.tally");
    std::fs::write(&corrupted, &bytes).unwrap();
    assert_refused(
        &[&shards[0], &shards[1], &corrupted],
        &["--threads", "2"],
        &["corrupted.tally: corrupted", "CRC-32"],
    );
    assert_refused(
        &[&shards[0]],
        &["--threads", "0"],
        &["--threads", "1 to 256"],
    );
}

#[test]
fn a_fifo_given_to_merge_is_refused_at_once_rather_than_waited_on() {
    // Regression: opening a FIFO nobody writes to blocked `merge` for ever, and Ctrl-C was not
    // heard there. A tally is read twice and checked against its size, so only a regular file
    // will do: the FIFO is refused with exit 2 before any file is read, and a directory too.
    let dir = tempfile::tempdir().unwrap();
    let good = shard(dir.path(), "a.tally", "1/2", &[]);
    let fifo = dir.path().join("b.tally");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let output = shuffle_bias()
        .arg("merge")
        .arg(&good)
        .arg(&fifo)
        .arg("--quiet")
        .timeout(std::time::Duration::from_secs(10))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("b.tally: not a regular file (a FIFO)") && stderr.contains("merge"),
        "{stderr}"
    );
    assert_refused(
        &[&good, dir.path()],
        &[],
        &["not a regular file (a directory)"],
    );
}

#[test]
fn shelf_tallies_keep_their_shelves_and_shards_of_other_shelves_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let save = |name: &str, shard: &str, shelves: &str| {
        let path = dir.path().join(name);
        shuffle_bias()
            .args(["run", "shelf", "-n", "5", "-t", "300000", "--seed", "7"])
            .args(["--shelves", shelves, "--shard", shard, "--save-tally"])
            .arg(&path)
            .arg("-q")
            .assert()
            .code(0);
        path
    };
    let first = save("first.tally", "0/2", "3");
    let second = save("second.tally", "1/2", "3");
    let output = shuffle_bias()
        .arg("merge")
        .args([&first, &second])
        .args(["--quiet", "--format", "json"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["shelves"], 3);
    assert_eq!(json["trials"], 300_000);
    let other = save("other.tally", "1/2", "4");
    assert_refused(
        &[&first, &other],
        &[],
        &["other.tally", "shelves 4", "shelves 3"],
    );
}
