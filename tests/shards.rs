//! `run --shard I/K --save-tally FILE` then `merge`: K shards run as separate processes at the
//! same time give, once merged, exactly the counts, tests, verdict and exit code of the single
//! run with the same seed — in full and in marginal mode, for several algorithms and random
//! sources. Also the recipes of docs/scaling-out.md (xargs -P, GNU parallel when installed) and
//! a shard cut short by Ctrl-C.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::shuffle_bias;
use serde_json::Value;

fn binary() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("shuffle-bias")
}

/// The JSON report and exit code of `args`.
fn report(args: &[&str]) -> (Value, i32) {
    let mut command = shuffle_bias();
    command.args(args);
    let output = command.output().unwrap();
    let code = output.status.code().unwrap();
    assert!(
        code == 0 || code == 1,
        "{args:?}: exit {code}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (serde_json::from_slice(&output.stdout).unwrap(), code)
}

/// Run `run_args` as `count` shards, all started at once as separate processes (each with
/// `--threads` 1 or 2 in turn), then merge them; the merged report and exit code.
fn sharded(dir: &Path, run_args: &[&str], count: u64) -> (Value, i32) {
    let files: Vec<String> = (0..count)
        .map(|i| dir.join(format!("shard-{i}.tally")).display().to_string())
        .collect();
    let children: Vec<_> = (0..count)
        .map(|i| {
            let shard = format!("{i}/{count}");
            let threads = (1 + i % 2).to_string();
            Command::new(binary())
                .args(run_args)
                .args(["--shard", &shard, "--save-tally", &files[i as usize]])
                .args(["--threads", &threads, "--quiet"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.stdout.is_empty(), "a shard writes no report");
    }
    let mut merge = vec!["merge", "--format", "json", "--quiet"];
    merge.extend(files.iter().map(String::as_str));
    report(&merge)
}

/// Every field of the single run's report equals the merged one's — the deal-stream tests
/// (`deal_stream`, and their lines in `tests`) included — except the measures of time, the
/// threads of the process, and `merged` (what the merge read), which only a merge has.
fn assert_same_report(single: &Value, merged: &Value, what: &str) {
    let (Value::Object(single), Value::Object(merged)) = (single, merged) else {
        panic!("reports are objects");
    };
    assert_eq!(
        single.keys().collect::<Vec<_>>(),
        merged
            .keys()
            .filter(|key| *key != "merged")
            .collect::<Vec<_>>(),
        "{what}: the same fields in the same order"
    );
    assert!(
        merged["merged"].is_object(),
        "{what}: a merge says what it read"
    );
    for (key, value) in single {
        if ["elapsed_seconds", "shuffles_per_second", "threads"].contains(&key.as_str()) {
            continue;
        }
        assert_eq!(value, &merged[key], "{what}: field {key}");
    }
    assert!(
        single["deal_stream"].is_object(),
        "{what}: the deal-stream tests are compared"
    );
}

#[test]
fn four_shards_in_parallel_processes_merge_into_the_counts_and_verdict_of_the_single_run() {
    let dir = tempfile::tempdir().unwrap();
    // 600,000 trials are 10 blocks: shards of 2, 3, 2 and 3 blocks, the last block short.
    let cases: [&[&str]; 5] = [
        &["naive", "-n", "6"],
        &["fisher-yates", "-n", "6"],
        &["sattolo", "-n", "5"],
        &["comparator-merge", "-n", "5"],
        &["riffle", "-n", "6", "--passes", "3"],
    ];
    let mut verdicts = Vec::new();
    for case in cases {
        let mut args = vec!["run"];
        args.extend_from_slice(case);
        args.extend(["-t", "600000", "--seed", "7", "--mode", "full"]);
        let mut single_args = args.clone();
        single_args.extend(["--format", "json", "--quiet", "--all-orderings"]);
        let (single, single_code) = report(&single_args);
        // --all-orderings is a report flag: given to merge, not to the shards.
        let (merged, merged_code) =
            sharded_with_report_flags(dir.path(), &args, 4, &["--all-orderings"]);
        assert_same_report(&single, &merged, case[0]);
        assert_eq!(
            single["permutations"], merged["permutations"],
            "{}",
            case[0]
        );
        assert_eq!(single_code, merged_code, "{}: exit code", case[0]);
        verdicts.push(single_code);
    }
    // Both verdicts occur: naive, sattolo and comparator-merge are biased, Fisher–Yates is not.
    assert_eq!(verdicts[..4], [1, 0, 1, 1]);
}

/// [`sharded`] with extra flags for `merge`.
fn sharded_with_report_flags(
    dir: &Path,
    run_args: &[&str],
    count: u64,
    merge_flags: &[&str],
) -> (Value, i32) {
    sharded(dir, run_args, count);
    let mut merge = vec!["merge", "--format", "json", "--quiet"];
    merge.extend_from_slice(merge_flags);
    let files: Vec<String> = (0..count)
        .map(|i| dir.join(format!("shard-{i}.tally")).display().to_string())
        .collect();
    merge.extend(files.iter().map(String::as_str));
    report(&merge)
}

#[test]
fn four_shards_merge_into_the_single_run_in_marginal_mode() {
    let dir = tempfile::tempdir().unwrap();
    for algorithm in ["naive", "fisher-yates", "overhand"] {
        let args = [
            "run", algorithm, "-n", "20", "--mode", "marginal", "-t", "400000", "--seed", "11",
        ];
        let mut single_args = args.to_vec();
        single_args.extend(["--format", "json", "--quiet"]);
        let (single, single_code) = report(&single_args);
        let (merged, merged_code) = sharded(dir.path(), &args, 4);
        assert_same_report(&single, &merged, algorithm);
        assert_eq!(single["positions"]["counts"], merged["positions"]["counts"]);
        assert_eq!(single["statistics"], merged["statistics"]);
        assert_eq!(single["identity"], merged["identity"]);
        assert_eq!(single_code, merged_code, "{algorithm}");
    }
}

#[test]
fn shards_of_a_deployed_source_merge_into_the_single_run() {
    // The whole random source travels with the tally: rand() % k on 15-bit words, and a
    // generator re-seeded from a 12-bit counter before every shuffle.
    let dir = tempfile::tempdir().unwrap();
    let sources: [&[&str]; 2] = [
        &["--rng", "msvc", "--map", "modulo"],
        &[
            "--rng",
            "mt19937",
            "--reseed",
            "every-shuffle",
            "--seed-bits",
            "12",
            "--seeds",
            "counter",
        ],
    ];
    for source in sources {
        let mut args = vec![
            "run",
            "fisher-yates",
            "-n",
            "5",
            "-t",
            "300000",
            "--seed",
            "3",
        ];
        args.extend_from_slice(source);
        let mut single_args = args.clone();
        single_args.extend(["--format", "json", "--quiet"]);
        let (single, single_code) = report(&single_args);
        let (merged, merged_code) = sharded(dir.path(), &args, 3);
        assert_same_report(&single, &merged, source[1]);
        assert_eq!(single_code, merged_code);
    }
}

#[test]
fn a_whole_run_saved_and_merged_alone_gives_its_own_report() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("whole.tally");
    let file = file.to_str().unwrap();
    let output = shuffle_bias()
        .args(["run", "naive", "-n", "4", "-t", "100000", "--seed", "5"])
        .args(["--format", "json", "--quiet", "--save-tally", file])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "the report is written beside"
    );
    let single: Value = serde_json::from_slice(&output.stdout).unwrap();
    let (merged, code) = report(&["merge", file, "--format", "json", "--quiet"]);
    assert_same_report(&single, &merged, "whole run");
    assert_eq!(single["threads"], merged["threads"]);
    assert_eq!(code, 1);
}

#[test]
fn the_shuffles_of_a_shard_are_the_blocks_the_documentation_names() {
    // 2G trials are 30,518 blocks of 65,536 (the last of 37,888); shard 3/4 is blocks
    // ⌊30518·3/4⌋ = 22,888 to 30,517: 7,630 blocks, 7,629 × 65,536 + 37,888 = 500,012,032
    // shuffles. The shard is cut short by Ctrl-C after 0.3 s (far fewer shuffles than that), so
    // this also checks the partial tally that is saved.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s3.tally");
    let output = common::interrupted_after(
        &[
            "run",
            "naive",
            "-n",
            "9",
            "-t",
            "2G",
            "--seed",
            "7",
            "--shard",
            "3/4",
            "--save-tally",
            file.to_str().unwrap(),
            "--threads",
            "1",
        ],
        300,
    );
    assert_eq!(output.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("shard 3/4: blocks 22888–30517 of 30518 (500,012,032 of 2,000,000,000"),
        "{stderr}"
    );
    assert!(stderr.contains("marked partial"), "{stderr}");
    // merge refuses the partial file, naming it and the blocks missing …
    let refused = shuffle_bias()
        .args(["merge", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(
        message.contains("s3.tally was cut short by Ctrl-C"),
        "{message}"
    );
    assert!(message.contains("(shards 0–3/4)"), "{message}");
    assert!(message.contains("--allow-partial"), "{message}");
    // … and with --allow-partial reports honestly on what is there.
    let (partial, _) = report(&[
        "merge",
        file.to_str().unwrap(),
        "--allow-partial",
        "--format",
        "json",
        "--quiet",
    ]);
    assert_eq!(partial["interrupted"], true);
    assert_eq!(partial["trials_requested"], 2_000_000_000u64);
    assert!(partial["trials"].as_u64().unwrap() < 500_012_032);
    let warnings = partial["warnings"].to_string();
    assert!(warnings.contains("partial merge"), "{warnings}");
}

#[test]
fn shard_flags_that_cannot_work_exit_two_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.tally");
    let file = file.to_str().unwrap();
    let cases: [(&[&str], &str); 7] = [
        (&["--shard", "0/4", "--save-tally", file], "--seed"),
        (&["--seed", "1", "--shard", "0/4"], "--save-tally"),
        (
            &[
                "--seed",
                "1",
                "--shard",
                "0/4",
                "--save-tally",
                file,
                "-o",
                "r.txt",
            ],
            "-o",
        ),
        (
            &[
                "--seed",
                "1",
                "--shard",
                "0/4",
                "--save-tally",
                file,
                "--format",
                "json",
            ],
            "--format",
        ),
        (
            &["--seed", "1", "--shard", "4/4", "--save-tally", file],
            "0 ≤ I < K",
        ),
        (
            &["--seed", "1", "--shard", "0/40", "--save-tally", file],
            "at most 16 shards",
        ),
        (&["--seed", "1", "--save-tally", "-"], "goes to a file"),
    ];
    for (flags, expected) in cases {
        let output = shuffle_bias()
            .args(["run", "naive", "-n", "5", "-t", "1M"])
            .args(flags)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{flags:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{flags:?}: {stderr}");
        assert!(
            stderr.contains("--shard") || stderr.contains("--save-tally"),
            "{stderr}"
        );
    }
    assert!(!Path::new(file).exists(), "nothing was saved");
}

/// The one-host recipes of docs/scaling-out.md: `xargs -P` always, GNU parallel when it is installed.
#[test]
fn the_readme_recipes_for_one_host_merge_into_the_single_run() {
    let dir = tempfile::tempdir().unwrap();
    let bin = binary();
    let bin = bin.to_str().unwrap();
    let (single, code) = report(&[
        "run", "naive", "-n", "6", "-t", "500000", "--seed", "7", "--format", "json", "--quiet",
    ]);
    let mut recipes = vec![format!(
        "seq 0 3 | xargs -P 4 -I{{}} {bin} run naive -n 6 -t 500000 --seed 7 --threads 1 \
         --shard {{}}/4 --save-tally naive.{{}}.tally --quiet"
    )];
    let parallel = Command::new("parallel")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if parallel {
        recipes.push(format!(
            "parallel -j 4 {bin} run naive -n 6 -t 500000 --seed 7 --threads 1 \
             --shard {{}}/4 --save-tally naive.{{}}.tally --quiet ::: 0 1 2 3"
        ));
    } else {
        eprintln!("GNU parallel is not installed: its recipe is not run here");
    }
    for recipe in recipes {
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            std::fs::remove_file(entry.unwrap().path()).unwrap();
        }
        let status = Command::new("sh")
            .args(["-c", &recipe])
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(status.success(), "{recipe}");
        let output = Command::new("sh")
            .args([
                "-c",
                &format!("{bin} merge naive.*.tally --format json --quiet"),
            ])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(code), "{recipe}");
        let merged: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_same_report(&single, &merged, &recipe);
    }
}

#[test]
fn shards_past_the_fingerprint_limit_merge_into_the_sample_of_the_single_run() {
    // Issue #32: past the fingerprint limit the repeated-decks test samples the decks by value,
    // and the level it reaches depends on the deals and the limit alone, not on how they were
    // split. 600,000 52-card shuffles with room for 50,000 fingerprints: the single run (one
    // thread, which may keep the whole limit) keeps 1 in 16 deck values (600,000/16 ≈ 37,500
    // ± 190 ≤ 50,000 < 75,000 ≈ 600,000/8); three one-thread shards, each sampled under the
    // same limit, merged under it, give the same sample and the same counts.
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "run",
        "fisher-yates",
        "-n",
        "52",
        "-t",
        "600000",
        "--seed",
        "3",
    ];
    let limit = ("SHUFFLE_BIAS_FINGERPRINT_LIMIT", "50000");
    let single = Command::new(binary())
        .args(args)
        .args(["--threads", "1", "--quiet", "--format", "json"])
        .env(limit.0, limit.1)
        .output()
        .unwrap();
    let single: Value = serde_json::from_slice(&single.stdout).unwrap();
    let files: Vec<String> = (0..3)
        .map(|i| dir.path().join(format!("s{i}.tally")).display().to_string())
        .collect();
    for (i, file) in files.iter().enumerate() {
        let shard = format!("{i}/3");
        let output = Command::new(binary())
            .args(args)
            .args([
                "--shard",
                &shard,
                "--save-tally",
                file,
                "--threads",
                "1",
                "--quiet",
            ])
            .env(limit.0, limit.1)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{output:?}");
    }
    let merged = Command::new(binary())
        .args(["merge", "--format", "json", "--quiet"])
        .args(&files)
        .env(limit.0, limit.1)
        .output()
        .unwrap();
    let merged: Value = serde_json::from_slice(&merged.stdout).unwrap();
    let repeats = &single["deal_stream"]["repeats"];
    assert_eq!(repeats["sample"]["level"], 4, "{repeats}");
    assert_eq!(merged["deal_stream"]["repeats"], *repeats);
    assert_eq!(merged["bias_detected"], single["bias_detected"]);
}

#[test]
fn a_shard_refuses_the_flags_of_the_report_and_verdict_that_merge_gives() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.tally");
    let file = file.to_str().unwrap();
    // Each was accepted and did nothing: a shard's blocks are part of the run, and a brief line
    // or a gate on them would be a verdict on part of the experiment.
    let cases: [(&[&str], &str, &str); 4] = [
        (&["--brief"], "--brief", "nothing to write"),
        (&["--max-bias", "1pp"], "--max-bias", "nothing to judge"),
        (&["--color", "always"], "--color", "nothing to colour"),
        (&["--all-orderings"], "--all-orderings", "nothing to list"),
    ];
    for (flags, flag, what) in cases {
        let output = shuffle_bias()
            .args(["run", "naive", "-n", "4", "-t", "200k", "--seed", "1", "-q"])
            .args(["--shard", "0/2", "--save-tally", file])
            .args(flags)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flags:?}: {stderr}");
        assert!(
            stderr.contains("--shard 0/2: a shard writes no report and gives no verdict"),
            "{flags:?}: {stderr}"
        );
        assert!(
            stderr.contains(&format!(
                "so {flag} has {what}; give {flag} to `shuffle-bias merge`"
            )),
            "{flags:?}: {stderr}"
        );
        assert!(output.stdout.is_empty(), "{flags:?}");
    }
    assert!(!Path::new(file).exists(), "nothing was saved");
}
