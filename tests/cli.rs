//! The binary from the outside: exit codes, formats, determinism and error messages.

mod common;

use common::shuffle_bias;
use predicates::prelude::*;
use serde_json::Value;

fn run_json(args: &[&str]) -> (Value, i32) {
    let output = shuffle_bias()
        .args(["run", "--quiet", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
    (json, output.status.code().unwrap())
}

fn counts(json: &Value) -> Vec<u64> {
    json["permutations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["count"].as_u64().unwrap())
        .collect()
}

#[test]
fn naive_on_four_cards_is_detected_with_exit_code_one() {
    shuffle_bias()
        .args([
            "run", "naive", "--deck", "4", "--trials", "240k", "--seed", "42", "-q",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("BIAS DETECTED"))
        .stdout(predicate::str::contains("theory (naive)"));
}

#[test]
fn fisher_yates_passes_with_exit_code_zero() {
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "5",
            "-t",
            "1M",
            "--seed",
            "1",
            "-q",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("NO BIAS DETECTED"));
}

#[test]
fn json_has_every_documented_key() {
    let (json, code) = run_json(&["sattolo", "-n", "4", "-t", "100k", "--seed", "3"]);
    assert_eq!(code, 1);
    for key in [
        "algorithm",
        "deck",
        "trials",
        "seed",
        "threads",
        "alpha",
        "bias_detected",
        "tests",
        "permutations",
        "identity",
        "max_min_ratio",
        "max_min_ratio_theory",
        "positions",
        "tv_distance",
        "tv_distance_theory",
        "model",
        "verdict",
    ] {
        assert!(json.get(key).is_some(), "missing key {key}");
    }
    let test = &json["tests"][0];
    for key in [
        "name",
        "statistic",
        "df",
        "p_value",
        "log10_p_value",
        "adjusted_p_value",
        "rejected",
    ] {
        assert!(test.get(key).is_some(), "missing tests[].{key}");
    }
    let row = &json["permutations"][0];
    for key in [
        "permutation",
        "count",
        "expected",
        "theory",
        "theory_expected",
    ] {
        assert!(row.get(key).is_some(), "missing permutations[].{key}");
    }
    for key in [
        "count",
        "frequency",
        "expected_frequency",
        "theory_frequency",
    ] {
        assert!(
            json["identity"].get(key).is_some(),
            "missing identity.{key}"
        );
    }
    assert!(json["positions"]["counts"].is_array());
    assert!(json["positions"]["theory"].is_array());
    assert_eq!(json["permutations"].as_array().unwrap().len(), 24);
    // Sattolo never returns the identity: its theory is exactly 0 and it was never seen.
    assert_eq!(json["identity"]["count"], 0);
    assert_eq!(json["identity"]["theory_frequency"], 0.0);
    // p below 1e-300 is null with its log10 given instead, never 0.
    assert!(json["tests"][0]["p_value"].is_null());
    assert!(json["tests"][0]["log10_p_value"].as_f64().unwrap() < -300.0);
}

#[test]
fn the_same_seed_gives_the_same_counts_on_one_and_two_threads() {
    let args = ["comparator-merge", "-n", "5", "-t", "300k", "--seed", "99"];
    let (one, _) = run_json(&[&args[..], &["--threads", "1"]].concat());
    let (two, _) = run_json(&[&args[..], &["--threads", "2"]].concat());
    assert_eq!(counts(&one), counts(&two));
    assert_eq!(one["threads"], 1);
    assert_eq!(two["threads"], 2);
}

#[test]
fn a_run_without_a_seed_reports_the_seed_it_drew_and_that_seed_repeats_it() {
    let (first, _) = run_json(&["naive", "-n", "3", "-t", "70k"]);
    let seed = first["seed"].as_u64().unwrap().to_string();
    let (again, _) = run_json(&["naive", "-n", "3", "-t", "70k", "--seed", &seed]);
    assert_eq!(counts(&first), counts(&again));
}

#[test]
fn every_csv_table_parses_with_a_header_row() {
    for (table, rows) in [
        ("summary", 1),
        // permutations, identity, 4 positions, and serial matches, slots and compositions
        // (the repeated decks add nothing when all 24 orderings are seen: not run).
        ("tests", 9),
        ("permutations", 24),
        ("positions", 16),
    ] {
        let output = shuffle_bias()
            .args(["run", "naive", "-n", "4", "-t", "50k", "--seed", "5", "-q"])
            .args(["--format", "csv", "--table", table])
            .output()
            .unwrap();
        let mut reader = csv::Reader::from_reader(output.stdout.as_slice());
        let header = reader.headers().unwrap().clone();
        assert!(header.len() > 1, "{table}");
        let records: Vec<_> = reader.records().map(|r| r.unwrap()).collect();
        assert_eq!(records.len(), rows, "{table}");
        assert!(records.iter().all(|r| r.len() == header.len()));
    }
}

#[test]
fn list_names_every_algorithm_with_its_definition() {
    let assert = shuffle_bias().arg("list").assert().code(0);
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    for name in [
        "fisher-yates",
        "fisher-yates-forward",
        "naive",
        "sattolo",
        "comparator-insertion",
        "comparator-merge",
        "comparator-quick",
        "comparator-timsort",
        "naive-off-by-one",
        "inside-out",
        "zend-sort",
        "zend-sort-coin",
        "zend-sort-stable",
        "unshuffled",
    ] {
        assert!(stdout.contains(name), "{name}");
    }
}

#[test]
fn sattolo_fits_its_own_model_but_not_uniform_and_says_why() {
    shuffle_bias()
        .args([
            "run", "sattolo", "-n", "4", "-t", "240k", "--seed", "8", "-q",
        ])
        .args(["--against", "model"])
        .assert()
        .code(0);
    shuffle_bias()
        .args([
            "run", "sattolo", "-n", "4", "-t", "240k", "--seed", "8", "-q",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "the algorithm reaches only 6 of the 24 orderings",
        ));
}

#[test]
fn theory_gives_the_naive_identity_as_an_exact_fraction() {
    let output = shuffle_bias()
        .args(["theory", "naive", "-n", "4", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["identity_fraction"], "5/128");
    assert_eq!(json["support_size"], 24);
    assert_eq!(json["max_min_ratio"], 15.0 / 8.0);
}

#[test]
fn output_file_receives_the_report_and_stdout_stays_empty() {
    let dir = std::env::temp_dir().join(format!("shuffle-bias-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("report.json");
    shuffle_bias()
        .args(["run", "naive", "-n", "3", "-t", "10k", "--seed", "1", "-q"])
        .args(["--format", "json", "-o"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::is_empty());
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(json["algorithm"], "naive");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_flags_exit_two_with_a_message_naming_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["run", "naive", "--deck", "12", "--mode", "full"],
            "--mode marginal",
        ),
        (&["run", "naive", "--deck", "1001"], "--deck 1001"),
        (
            &[
                "run",
                "naive",
                "-n",
                "52",
                "--format",
                "csv",
                "--table",
                "permutations",
            ],
            "--table permutations",
        ),
        (
            &[
                "run",
                "naive",
                "-n",
                "5",
                "--format",
                "csv",
                "--table",
                "statistics",
            ],
            "--mode marginal",
        ),
        (&["run", "naive", "--deck", "1"], "--deck 1"),
        (&["run", "naive", "--trials", "ten"], "--trials"),
        (&["run", "naive", "--trials", "0"], "--trials 0"),
        (&["run", "naive", "--trials", "1.5"], "--trials"),
        (&["run", "naive", "--alpha", "2"], "'2' for '--alpha"),
        (&["run", "naive", "--alpha", "0"], "'0' for '--alpha"),
        (&["run", "naive", "--threads", "0"], "--threads 0"),
        (&["run", "naive", "--max-paths", "0"], "--max-paths 0"),
        // 256 workers × 11! counters: about 40 GiB, refused before anything is allocated (in
        // full mode; the default mode falls back to marginal instead).
        (
            &[
                "run",
                "naive",
                "-n",
                "11",
                "--threads",
                "256",
                "-t",
                "1k",
                "--mode",
                "full",
            ],
            "--mode marginal",
        ),
        (&["run", "bogus"], "bogus"),
        (&["run", "naive", "--format", "xml"], "--format"),
        (
            &["run", "naive", "-o", "/nonexistent-dir/report.txt"],
            "-o /nonexistent-dir",
        ),
        (&["theory", "naive", "--deck", "11"], "--deck 11"),
        (
            &["theory", "naive", "--format", "csv", "--table", "tests"],
            "'tests' for '--table",
        ),
        (
            &[
                "run",
                "comparator-insertion",
                "-n",
                "7",
                "--against",
                "model",
                "--max-paths",
                "1000",
                "-t",
                "1k",
            ],
            "--against model",
        ),
    ];
    for (args, flag) in cases {
        shuffle_bias()
            .args(*args)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(*flag));
    }
}

#[test]
fn a_closed_stdout_ends_quietly() {
    use std::io::Read;
    use std::process::{Command as Process, Stdio};
    let mut child = Process::new(assert_cmd::cargo::cargo_bin("shuffle-bias"))
        .args([
            "run",
            "fisher-yates",
            "-n",
            "8",
            "-t",
            "1M",
            "--seed",
            "1",
            "-q",
        ])
        .args(["--format", "csv", "--table", "permutations"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one chunk, then close our end of the pipe, like `| head -c 100`.
    let mut stdout = child.stdout.take().unwrap();
    let mut buffer = [0u8; 100];
    stdout.read_exact(&mut buffer).unwrap();
    drop(stdout);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert_ne!(status.code(), Some(2));
    assert_ne!(status.code(), Some(101));
}

#[test]
fn no_color_and_pipes_give_plain_text() {
    shuffle_bias()
        .env("NO_COLOR", "1")
        .args(["run", "naive", "-n", "3", "-t", "10k", "--seed", "1", "-q"])
        .assert()
        .stdout(predicate::str::contains("\x1b[").not());
}

#[test]
fn ctrl_c_writes_the_report_of_what_was_tallied_and_exits_130() {
    let output = common::interrupted_after(
        &[
            "run",
            "fisher-yates",
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
    let trials = json["trials"].as_u64().unwrap();
    assert!(trials < 100_000_000_000);
    assert_eq!(counts(&json).iter().sum::<u64>(), trials);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("interrupted after"), "{stderr}");
}

#[test]
fn the_low_count_warning_names_exactly_the_trials_that_fix_it() {
    // 4 cards: 5 expected per ordering needs 5 × 24 = 120 trials, not 121 (float rounding).
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "4",
            "-t",
            "100",
            "--seed",
            "1",
            "-q",
        ])
        .assert()
        .stderr(predicate::str::contains("use at least 120 trials"));
}

#[test]
fn bad_passes_and_cut_probabilities_exit_two_with_a_message_naming_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", "riffle", "--passes", "0"], "--passes 0"),
        (&["theory", "riffle", "--passes", "0"], "--passes"),
        (&["theory", "riffle", "--passes", "5..2"], "--passes"),
        (
            &["theory", "naive", "-n", "11", "--passes", "1..3"],
            "--deck 11",
        ),
        (
            &["theory", "riffle", "-n", "1001", "--passes", "1..3"],
            "--deck 1001",
        ),
        (&["list", "--plot", "/tmp/x.svg"], "--plot"),
        (
            &["check", "--against", "riffle", "--passes", "0"],
            "--passes 0",
        ),
        (&["run", "riffle", "--passes", "two"], "--passes"),
        (
            &["run", "overhand", "--cut-probability", "1.5"],
            "--cut-probability",
        ),
        (
            &["run", "overhand", "--cut-probability", "0"],
            "--cut-probability",
        ),
        (
            &["run", "overhand", "--cut-probability", "1"],
            "--cut-probability",
        ),
        (
            &["theory", "overhand", "--cut-probability", "half"],
            "--cut-probability",
        ),
        (
            &["run", "riffle", "--cut-probability", "0.5"],
            "--cut-probability 0.5",
        ),
        (&["check", "--passes", "2"], "--passes 2"),
        (&["run", "riffle", "--shelves", "3"], "--shelves 3"),
        (&["run", "shelf", "--shelves", "0"], "--shelves 0"),
        (
            &["theory", "shelf", "--shelves", "10001"],
            "--shelves 10001",
        ),
        (&["check", "--shelves", "3"], "--shelves 3"),
        (
            &["check", "--against", "naive", "--cut-probability", "0.5"],
            "--cut-probability 0.5",
        ),
        // Three riffles of 8 cards compose about 2e7 permutations: refused, naming the budget.
        (
            &[
                "theory",
                "riffle",
                "-n",
                "8",
                "--passes",
                "3",
                "--max-paths",
                "1e6",
            ],
            "--max-paths",
        ),
    ];
    for (args, flag) in cases {
        shuffle_bias()
            .args(*args)
            .write_stdin("")
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(*flag));
    }
}

#[test]
fn theory_of_the_shelf_shuffler_on_52_cards_gives_the_dfh_distances_from_the_closed_form() {
    // Diaconis, Fulman & Holmes (2013): one pass of 20 shelves leaves TV 0.7201.
    shuffle_bias()
        .args(["theory", "shelf", "-n", "52", "--shelves", "20"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "shuffle-bias theory: shelf · 20 shelves · 52 cards",
        ))
        .stdout(predicate::str::contains("0.72008899"));
    let output = shuffle_bias()
        .args(["theory", "shelf", "-n", "52", "--format", "json"])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["method"], "shelf-closed-form");
    assert_eq!(json["shelves"], 10);
    let tv = json["points"][0]["tv_distance"].as_f64().unwrap();
    assert!((tv - 0.999_999_28).abs() <= 0.5e-8, "{tv}");
    assert_eq!(json["points"][0]["separation"], 1.0);
    // A deck the exact engine can walk gets the exact law of every ordering instead.
    shuffle_bias()
        .args(["theory", "shelf", "-n", "5", "--shelves", "3"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("exact law from 7,776 choice"));
}

#[test]
fn a_shelf_run_names_its_shelves_in_the_header_and_the_json() {
    let (json, code) = run_json(&[
        "shelf",
        "-n",
        "52",
        "-t",
        "20k",
        "--seed",
        "5",
        "--shelves",
        "10",
    ]);
    assert_eq!(code, 1, "one pass of ten shelves is far from uniform");
    assert_eq!(json["algorithm"], "shelf");
    assert_eq!(json["shelves"], 10);
    let (json, _) = run_json(&["riffle", "-n", "4", "-t", "20k", "--seed", "5"]);
    assert!(json.get("shelves").is_none());
}

#[test]
fn reports_show_passes_and_the_cut_probability_beside_the_algorithm() {
    shuffle_bias()
        .args(["run", "riffle", "-n", "4", "-t", "20k", "--seed", "5", "-q"])
        .args(["--passes", "3"])
        .assert()
        .stdout(predicate::str::contains(
            "shuffle-bias run: riffle · 3 passes · 4 cards · 20,000 shuffles",
        ));
    let (json, _) = run_json(&[
        "overhand",
        "-n",
        "4",
        "-t",
        "20k",
        "--seed",
        "5",
        "--passes",
        "2",
        "--cut-probability",
        "0.25",
    ]);
    assert_eq!(json["algorithm"], "overhand");
    assert_eq!(json["passes"], 2);
    assert_eq!(json["cut_probability"], 0.25);
    // One pass of an algorithm without a cut probability: neither key (the JSON of existing
    // runs is unchanged).
    let (json, _) = run_json(&["naive", "-n", "4", "-t", "20k", "--seed", "5"]);
    assert!(json.get("passes").is_none() && json.get("cut_probability").is_none());
    shuffle_bias()
        .args(["theory", "overhand", "-n", "4", "--cut-probability", "1/3"])
        .args(["--passes", "2"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "shuffle-bias theory: overhand · cut probability 1/3 · 2 passes · 4 cards",
        ));
}

/// A run without `--seed` reports the random seed it drew; JSON readers that hold numbers as
/// doubles (JavaScript, jq) read integers exactly only below 2^53, so the seed is drawn there.
/// Sixteen runs: with seeds drawn from all 64 bits, each would be below 2^53 with chance 2^-11,
/// so all sixteen with chance 2^-176 — this test cannot pass by luck.
#[test]
fn a_drawn_seed_is_below_2_to_the_53_so_json_readers_repeat_the_run() {
    for _ in 0..16 {
        let (json, _) = run_json(&["fisher-yates", "-n", "3", "-t", "100"]);
        let seed = json["seed"].as_u64().expect("the seed is an integer");
        assert!(seed < 1 << 53, "seed {seed} is not exact in a double");
        let (again, _) = run_json(&[
            "fisher-yates",
            "-n",
            "3",
            "-t",
            "100",
            "--seed",
            &seed.to_string(),
        ]);
        assert_eq!(
            counts(&json),
            counts(&again),
            "the reported seed repeats the run"
        );
    }
}

/// `--version` says what the build can do: its target, each CPU-specific path and whether this
/// machine runs it — checked against the CPU's own flags in /proc/cpuinfo where there is one —
/// and the generators and mappings it has; `-V` stays one line.
#[test]
fn version_states_the_fast_paths_this_machine_runs_and_the_generators() {
    let output = shuffle_bias().arg("--version").output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.starts_with(&format!("shuffle-bias {}\n", env!("CARGO_PKG_VERSION"))));
    assert!(
        text.contains(&format!("build: {}-", std::env::consts::ARCH)),
        "{text}"
    );
    for name in ["chacha8", "mt19937", "java", "xorshift128+", "pcg32"] {
        assert!(text.contains(name), "{name} missing from {text}");
    }
    assert!(
        text.contains("mappings (--map): lemire, rejection, bitmask, modulo"),
        "{text}"
    );
    let flags = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    if cfg!(target_arch = "x86_64") && !flags.is_empty() {
        let has = |flag: &str| flags.split_whitespace().any(|word| word == flag);
        let chacha = if has("avx512f") {
            "(AVX-512F): on"
        } else {
            "(AVX-512F): off"
        };
        assert!(text.contains(chacha), "expected '{chacha}' in {text}");
        let wide = has("avx512f") && has("avx512bw") && has("avx512vbmi");
        let wide_text = if wide {
            "(AVX-512F/BW/VBMI): on"
        } else {
            "(AVX-512F/BW/VBMI): off"
        };
        assert!(text.contains(wide_text), "expected '{wide_text}' in {text}");
        let avx2 = if has("avx2") && has("bmi1") && has("popcnt") {
            "(AVX2): on"
        } else {
            "(AVX2): off"
        };
        assert!(text.contains(avx2), "expected '{avx2}' in {text}");
        let eight = format!(
            "ChaCha keystream, eight blocks at once where sixteen are not (AVX2): {}",
            if has("avx2") { "on" } else { "off" }
        );
        assert!(text.contains(&eight), "expected '{eight}' in {text}");
        let two = format!(
            "marginal statistics, 64 cards in two vectors where one is not (AVX2/POPCNT): {}",
            if has("avx2") && has("popcnt") && !wide {
                "on"
            } else {
                "off"
            }
        );
        assert!(text.contains(&two), "expected '{two}' in {text}");
    }
    let short = shuffle_bias().arg("-V").output().unwrap();
    assert_eq!(
        String::from_utf8(short.stdout).unwrap(),
        format!("shuffle-bias {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_negative_value_is_refused_by_its_flag_with_how_to_write_it() {
    // clap took "-1" for a flag ("unexpected argument '-1'", with a tip to write `-- -1`); each
    // flag's own parser now says what is wrong.
    for (args, flag) in [
        (&["run", "fisher-yates", "-n", "-1"][..], "--deck"),
        (&["run", "fisher-yates", "-t", "-1"], "--trials"),
        (&["run", "fisher-yates", "--threads", "-1"], "--threads"),
        (&["run", "riffle", "--passes", "-1"], "--passes"),
        (
            &["run", "riffle", "--cut-probability", "-1/3"],
            "--cut-probability",
        ),
        (&["theory", "fisher-yates", "-n", "-1"], "--deck"),
        (&["check", "--deck", "-1", "-"], "--deck"),
    ] {
        let output = shuffle_bias().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("invalid value '-1") && stderr.contains(flag),
            "{args:?}: {stderr}"
        );
        assert!(
            !stderr.contains("unexpected argument"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_whole_number_flag_given_something_else_says_what_it_takes() {
    // These said only "invalid digit found in string" (or "number too large to fit in target
    // type"), Rust's integer parser's words.
    let cases: [(&[&str], &str); 10] = [
        (
            &["run", "riffle", "--passes", "1.5"],
            "'1.5' is not a number of passes; write a whole number from 1 to 1000",
        ),
        (
            &["check", "--against", "riffle", "--passes", "1.5"],
            "'1.5' is not a number of passes; write a whole number from 1 to 1000",
        ),
        (
            &["run", "shelf", "--shelves", "1.5"],
            "'1.5' is not a number of shelves; write a whole number from 1 to 10000",
        ),
        (
            &["theory", "shelf", "--shelves", "70000"],
            "'70000' is not a number of shelves; write a whole number from 1 to 10000",
        ),
        (
            &["check", "--against", "shelf", "--shelves", "x"],
            "'x' is not a number of shelves",
        ),
        (
            &["run", "fisher-yates", "--bits", "x"],
            "'x' is not a word width; write a whole number of bits from 8 to 64",
        ),
        (
            &["theory", "naive", "--bits", "1.5"],
            "'1.5' is not a word width; write a whole number of bits from 8 to 64",
        ),
        (
            &[
                "run",
                "fisher-yates",
                "--reseed",
                "every-shuffle",
                "--seed-bits",
                "x",
            ],
            "'x' is not a number of seed bits; write a whole number from 1 to 64",
        ),
        (
            &["theory", "naive", "--state-bits", "x"],
            "'x' is not a number of bits; write a whole number of at least 1",
        ),
        (
            &["check", "--state-bits", "99999999999"],
            "'99999999999' is not a number of bits; write a whole number of at least 1",
        ),
    ];
    for (args, message) in cases {
        let flag = args.iter().rev().nth(1).unwrap();
        let output = shuffle_bias().args(args).write_stdin("").output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("for '{flag} <")),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("invalid digit") && !stderr.contains("too large to fit"),
            "{args:?}: {stderr}"
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}
