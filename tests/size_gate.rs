//! What a pass rules out, and the size gate `--max-bias SIZE`, through the binary: every "no
//! bias detected" states its bounds in every format, and the gate says FAIR WITHIN (exit 0),
//! BIAS DETECTED (exit 1) or INCONCLUSIVE (exit 3), also under `--until-decided`.
//!
//! Nulls and thresholds: Fisher–Yates with ChaCha8 is exactly uniform, so the 99% bounds hold
//! for it with probability ≥ 0.99 and the fixed seeds below make each outcome the same on every
//! run. `theory fisher-yates -n 4 --max-bias 1pp` puts the trials a fair 4-card shuffle needs at
//! about 70,700 (fixed sample, where 9 fair runs in 10 pass) and 113,800 (`--until-decided`);
//! the runs below take 400,000 (5.7×)
//! or stop on their own. The naive shuffle's largest position deviation is 4.30 points
//! (`theory naive -n 4 --max-bias 1pp`), far above 1pp, and 99% power needs 2,455 trials.

mod common;

use common::shuffle_bias;
use serde_json::Value;

fn run_json(args: &[&str]) -> (Value, i32) {
    let output = shuffle_bias()
        .args(args)
        .args(["--format", "json", "-q"])
        .output()
        .unwrap();
    let json = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!(
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr).trim_end()
        )
    });
    (json, output.status.code().unwrap())
}

#[test]
fn a_pass_on_one_shuffle_states_that_it_rules_out_almost_nothing_in_every_format() {
    // One shuffle cannot bound anything: the TV bound sits at its largest value, 1 − 1/24.
    for format in ["table", "markdown"] {
        let output = shuffle_bias()
            .args([
                "run", "naive", "-n", "4", "-t", "1", "--seed", "1", "--format", format,
            ])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0));
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(
            stdout.contains("What this sample rules out (99% confidence each)")
                && stdout.contains("total variation distance from uniform is at most 0.9583"),
            "{format}: {stdout}"
        );
    }
    let (json, code) = run_json(&["run", "naive", "-n", "4", "-t", "1", "--seed", "1"]);
    assert_eq!(code, 0);
    let ruled_out = &json["ruled_out"];
    assert_eq!(ruled_out["confidence"], 0.99);
    assert!(ruled_out["total_variation"]["at_most"].as_f64().unwrap() > 0.95);
    assert!(ruled_out["position_chances"]["within"].as_f64().unwrap() > 0.7);
    let csv = shuffle_bias()
        .args([
            "run", "naive", "-n", "4", "-t", "1", "--seed", "1", "--format", "csv",
        ])
        .output()
        .unwrap();
    let csv = String::from_utf8(csv.stdout).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| {
        let at = header.iter().position(|h| *h == name).expect(name);
        row[at].parse::<f64>().unwrap()
    };
    assert!(column("tv_distance_at_most_99") > 0.95);
    assert!(column("position_within_99") > 0.7);
}

#[test]
fn a_large_fair_run_bounds_its_bias_and_a_gate_of_one_point_says_fair_within() {
    let args = [
        "run",
        "fisher-yates",
        "-n",
        "4",
        "-t",
        "400000",
        "--seed",
        "3",
        "--max-bias",
        "1pp",
    ];
    let (json, code) = run_json(&args);
    assert_eq!(code, 0, "{}", json["gate"]);
    assert_eq!(json["gate"]["outcome"], "fair-within");
    assert_eq!(
        json["gate"]["size"],
        serde_json::json!({"measure": "positions", "size": 0.01})
    );
    let within = json["ruled_out"]["position_chances"]["within"]
        .as_f64()
        .unwrap();
    assert!(within <= 0.01 && within == json["gate"]["at_most"].as_f64().unwrap());
    let output = shuffle_bias().args(args).output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("FAIR WITHIN 1pp"), "{stdout}");
}

#[test]
fn a_fair_shuffle_stops_early_within_one_point_and_a_naive_one_on_its_bias() {
    let (fair, code) = run_json(&[
        "run",
        "fisher-yates",
        "-n",
        "4",
        "-t",
        "10M",
        "--seed",
        "1",
        "--max-bias",
        "1pp",
        "--until-decided",
    ]);
    assert_eq!(code, 0, "{}", fair["gate"]);
    assert_eq!(fair["gate"]["outcome"], "fair-within");
    assert_eq!(fair["sequential"]["shown_within"], "1pp");
    assert_eq!(fair["interrupted"], false);
    let used = fair["trials"].as_u64().unwrap();
    assert!(used < 1_000_000, "a fair shuffle stopped early: {used}");
    assert_eq!(fair["ruled_out"]["anytime"], true);
    let (naive, code) = run_json(&[
        "run",
        "naive",
        "-n",
        "4",
        "-t",
        "10M",
        "--seed",
        "1",
        "--max-bias",
        "1pp",
        "--until-decided",
    ]);
    assert_eq!(code, 1);
    assert_eq!(naive["gate"]["outcome"], "bias-detected");
    assert!(naive["trials"].as_u64().unwrap() < 20_000);
    // A run ends early on either of two stops: the family's rejection (seed 1 above) or the
    // confidence sequences showing the bias beyond 1pp (seed 3). Neither is an interruption:
    // exit 1, and the report is not marked interrupted.
    let (beyond, code) = run_json(&[
        "run",
        "naive",
        "-n",
        "4",
        "-t",
        "1M",
        "--seed",
        "3",
        "--max-bias",
        "1pp",
        "--until-decided",
    ]);
    assert_eq!(
        beyond["sequential"]["shown_beyond"], "1pp",
        "{}",
        beyond["sequential"]
    );
    assert_eq!(beyond["sequential"]["decided"], false);
    assert_eq!(code, 1);
    assert_eq!(beyond["gate"]["outcome"], "bias-detected");
    assert_eq!(beyond["interrupted"], false);
}

#[test]
fn too_few_trials_for_the_size_are_inconclusive_with_their_own_exit_code_and_the_trials_needed() {
    let output = shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "4",
            "-t",
            "5000",
            "--seed",
            "2",
            "--max-bias",
            "1pp",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stdout.contains("INCONCLUSIVE"), "{stdout}");
    // Before running, the trials a size needs are said on stderr.
    assert!(stderr.contains("a fair shuffle needs about"), "{stderr}");
    let (json, code) = run_json(&[
        "run",
        "fisher-yates",
        "-n",
        "4",
        "-t",
        "5000",
        "--seed",
        "2",
        "--max-bias",
        "1pp",
    ]);
    assert_eq!(code, 3);
    assert_eq!(json["gate"]["outcome"], "inconclusive");
    let needed = json["gate"]["trials_needed"].as_u64().unwrap();
    assert!((65_000..76_000).contains(&needed), "{needed}");
}

#[test]
fn a_size_gate_is_refused_against_a_model_and_tv_without_every_ordering() {
    for (args, words) in [
        (
            vec![
                "run",
                "naive",
                "-n",
                "4",
                "--against",
                "model",
                "--max-bias",
                "1pp",
            ],
            "distance from uniform",
        ),
        (
            vec!["run", "fisher-yates", "-n", "20", "--max-bias", "0.02tv"],
            "every ordering tallied",
        ),
        (
            vec!["run", "fisher-yates", "--max-bias", "5"],
            "not a size of bias",
        ),
        (
            vec!["run", "fisher-yates", "--max-bias", "150pp"],
            "out of range",
        ),
    ] {
        let output = shuffle_bias().args(&args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.contains("--max-bias") && stderr.contains(words),
            "{stderr}"
        );
    }
}

#[test]
fn theory_says_the_trials_a_size_needs_and_when_no_number_suffices() {
    let output = shuffle_bias()
        .args([
            "theory",
            "fisher-yates",
            "-n",
            "4",
            "--max-bias",
            "1pp",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let trials = json["max_bias"]["trials"].as_u64().unwrap();
    // (z + z_m)²·(3/16)/0.01² with z for 0.01/32 and z_m the largest of 16 deviations 9 fair
    // samples in 10 stay under.
    assert!((65_000..76_000).contains(&trials), "{trials}");
    assert!(json["max_bias"]["trials_until_decided"].as_u64().unwrap() > trials);
    let output = shuffle_bias()
        .args(["theory", "naive", "-n", "4", "--max-bias", "1pp"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.contains("never shown within it: the law's own bias is 4.30 percentage"),
        "{stdout}"
    );
}

#[test]
fn check_and_merge_gate_on_size_too() {
    let dir = tempfile::tempdir().unwrap();
    let emitted = dir.path().join("fy.txt");
    let status = shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "4",
            "-t",
            "300000",
            "--seed",
            "9",
            "-q",
        ])
        .arg("--emit-permutations")
        .arg(&emitted)
        .output()
        .unwrap();
    assert_eq!(status.status.code(), Some(0));
    let output = shuffle_bias()
        .arg("check")
        .arg(&emitted)
        .args(["--max-bias", "1pp", "-q"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(
        String::from_utf8(output.stdout)
            .unwrap()
            .contains("FAIR WITHIN 1pp")
    );
    let tally = dir.path().join("fy.tally");
    shuffle_bias()
        .arg("check")
        .arg(&emitted)
        .arg("--save-tally")
        .arg(&tally)
        .args(["-q", "--format", "json"])
        .output()
        .unwrap();
    let output = shuffle_bias()
        .arg("merge")
        .arg(&tally)
        .args(["--max-bias", "0.0001pp", "-q"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
}

#[test]
fn the_brief_line_of_a_sequential_stop_says_what_stopped_it() {
    // Seed 1: the e-processes reject (the fixed-sample tests are then descriptive, so no Holm
    // p-value is quoted); seed 3: the confidence sequences show the bias beyond 1pp.
    let brief = |seed: &str| {
        let output = shuffle_bias()
            .args(["run", "naive", "-n", "4", "-t", "1M", "--seed", seed])
            .args(["--max-bias", "1pp", "--until-decided", "--brief", "-q"])
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&output.stdout).into_owned(),
            output.status.code().unwrap(),
        )
    };
    let (decided, code) = brief("1");
    assert_eq!(code, 1, "{decided}");
    assert!(decided.starts_with("BIAS DETECTED"), "{decided}");
    assert!(decided.contains("sequential test: "), "{decided}");
    assert!(decided.contains("e-value"), "{decided}");
    assert!(!decided.contains("Holm p"), "{decided}");
    assert!(!decided.contains("rejected by 0"), "{decided}");
    let (beyond, code) = brief("3");
    assert_eq!(code, 1, "{beyond}");
    assert!(
        beyond.contains("the 99% confidence sequences show the bias beyond 1pp"),
        "{beyond}"
    );
    assert!(!beyond.contains("interrupted"), "{beyond}");
}

#[test]
fn a_random_cut_with_every_position_fair_is_never_fair_within_points_of_a_position() {
    // Cutting the deck at a random place puts every card at every position with chance 1/n
    // exactly, so the position bounds shrink below 1pp; but only n of the n! orderings occur
    // (5 of 120 here), which the permutations and identity tests reject. A size in points of a
    // position's chance does not measure that bias: the gate says BIAS DETECTED, with and
    // without --until-decided, naming the tests. A 0.02tv gate measures it and fails too.
    let dir = tempfile::tempdir().unwrap();
    let cuts = dir.path().join("cuts.txt");
    let mut text = String::new();
    // SplitMix64 (Steele, Lea and Flood 2014): cuts independent of each other.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..200_000 {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        let cut = ((z ^ (z >> 31)) % 5) as usize;
        let deck: Vec<String> = (0..5).map(|i| ((i + cut) % 5).to_string()).collect();
        text.push_str(&deck.join(" "));
        text.push('\n');
    }
    std::fs::write(&cuts, text).unwrap();
    let file = cuts.to_str().unwrap();
    for extra in [&[][..], &["--until-decided"][..]] {
        let mut args = vec!["check", file, "--max-bias", "1pp"];
        args.extend_from_slice(extra);
        let (json, code) = run_json(&args);
        assert_eq!(code, 1, "{extra:?}: {}", json["gate"]);
        assert_eq!(json["gate"]["outcome"], "bias-detected", "{extra:?}");
        let reason = json["gate"]["reason"].as_str().unwrap();
        // The fixed-sample family names the permutations test; the sequential run stops at
        // its first rejection, the identity's (below).
        assert!(
            reason.contains("does not measure")
                && reason.contains(if extra.is_empty() {
                    "permutations"
                } else {
                    "identity"
                }),
            "{extra:?}: {reason}"
        );
        if extra.is_empty() {
            // Every position is within the size: the bound alone would have passed.
            assert!(json["gate"]["at_most"].as_f64().unwrap() < 0.01);
        } else {
            // The sequential run stops at the rejection the size cannot measure (it ran on
            // to the positions' bounds before). The identity comes back a fifth of the time
            // against 1/120: each unchanged deck multiplies its e-value by up to 24, so it
            // passes 2K/alpha (about 10^4) within a few dozen cuts (9 with this stream); the
            // permutations e-value, a mixture over 120 cells whose log grows as t·ln 24 less
            // about (120 − 1)/2·ln t, passes it near t = 200. Either is far below 2,000.
            let sequential = &json["sequential"];
            let test = sequential["unmeasured"].as_str().unwrap();
            assert!(test == "permutations" || test == "identity", "{test}");
            let used = sequential["trials_used"].as_u64().unwrap();
            assert!(used < 2_000, "stopped after {used} cuts");
            assert_eq!(json["trials"], used);
            let notes = json["notes"].to_string();
            assert!(
                notes.contains("as soon as the sequential test of"),
                "{notes}"
            );
        }
    }
    let (json, code) = run_json(&["check", file, "--max-bias", "0.02tv"]);
    assert_eq!(
        (code, json["gate"]["outcome"].as_str()),
        (1, Some("bias-detected"))
    );
}
