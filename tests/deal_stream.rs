//! The tests of a stream of deals through the binary: repeated decks and the serial tests, in
//! `run` and `check`, full and marginal modes, in every format.
//!
//! Thresholds are derived in the comments; every run has a fixed seed, so a test that passes
//! passes every time.

mod common;

use common::shuffle_bias;
use serde_json::Value;

/// The JSON report of `args`, whatever the exit code.
fn json(args: &[&str]) -> Value {
    let output = shuffle_bias()
        .args(args)
        .args(["-q", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        output.status.code().is_some_and(|code| code <= 1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The test of that name in a JSON report.
fn test<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test {name}"))
}

fn rejected(report: &Value, name: &str) -> bool {
    test(report, name)["rejected"].as_bool().unwrap()
}

#[test]
fn a_32_bit_seed_per_shuffle_is_caught_by_repeated_decks_and_the_estimate_holds_2_to_the_32() {
    // 300,000 decks from 2^32 equally likely seeds repeat about C(300000, 2)/2^32 ≈ 10.5 times;
    // under a fair shuffle the mean is C(300000,2)/52! ≈ 5.6·10^−58, so even one repeat gives
    // p ≈ 10^−57. P(R ≤ 3 | mean 10.5) ≈ 0.006, so the test (Holm over ~60 tests at 0.001
    // needs R ≥ 1) cannot miss unless R = 0, probability e^−10.5 ≈ 3·10^−5.
    let report = json(&[
        "run",
        "fisher-yates",
        "-n",
        "52",
        "--reseed",
        "every-shuffle",
        "--seed-bits",
        "32",
        "--seeds",
        "random",
        "-t",
        "300000",
        "--seed",
        "1",
    ]);
    assert_eq!(report["bias_detected"], true);
    assert!(rejected(&report, "repeated decks"));
    let repeats = &report["deal_stream"]["repeats"];
    let pairs = repeats["repeated_pairs"].as_u64().unwrap();
    assert!(pairs >= 1);
    assert_eq!(repeats["law"], "poisson");
    let reachable = &repeats["reachable"];
    let two_32 = 2f64.powi(32);
    assert!(reachable["low"].as_f64().unwrap() <= two_32);
    assert!(reachable["high"].as_f64().unwrap() >= two_32);
    assert!(
        repeats["reachable_summary"]
            .as_str()
            .unwrap()
            .contains("consistent with a")
    );
    // The serial tests see nothing: the seeds are independent.
    assert!(!rejected(&report, "serial matches"));
    assert!(!rejected(&report, "serial slots"));
}

#[test]
fn a_generator_reseeded_from_a_counting_clock_is_caught_by_the_serial_tests() {
    // msvc's rand() re-seeded with seeds t, t+1, … before each shuffle: the first outputs of
    // consecutive seeds differ by the constant 214013/2^16 ≈ 3.3 (mod 2^15), so `rand() % k`
    // draws nearly the same j for the first swaps of consecutive deals. Under independence
    // the slot tables of 52 cards expect 100,000/2704 ≈ 37 pairs a cell; such repetition gives
    // χ² in the millions (df 2601, p far below 10^−300).
    for deck in ["52", "6"] {
        let report = json(&[
            "run",
            "fisher-yates",
            "-n",
            deck,
            "--rng",
            "msvc",
            "--map",
            "modulo",
            "--reseed",
            "every-shuffle",
            "--seed-bits",
            "32",
            "--seeds",
            "counter",
            "-t",
            "100000",
            "--seed",
            "1",
        ]);
        assert!(rejected(&report, "serial slots"), "{deck} cards");
        assert!(rejected(&report, "serial matches"), "{deck} cards");
        if deck == "6" {
            assert!(rejected(&report, "serial compositions"));
        }
    }
}

#[test]
fn a_fair_stream_passes_every_deal_stream_test_in_both_modes() {
    // A fixed seed of ChaCha8: the new tests' p-values are far from alpha = 0.001.
    for (deck, trials) in [("52", "200000"), ("5", "100000")] {
        let report = json(&[
            "run",
            "fisher-yates",
            "-n",
            deck,
            "-t",
            trials,
            "--seed",
            "11",
        ]);
        assert_eq!(report["bias_detected"], false, "{deck} cards");
        for name in ["serial matches", "serial slots"] {
            assert!(!rejected(&report, name), "{name}");
        }
    }
}

#[test]
fn the_deal_stream_is_the_same_whatever_the_number_of_threads() {
    // 3 blocks of 2^16 and a partial one: pairs within blocks and the three seams.
    let args = |threads: &'static str| {
        vec![
            "run",
            "naive",
            "-n",
            "5",
            "-t",
            "200000",
            "--seed",
            "4",
            "--threads",
            threads,
        ]
    };
    let one = json(&args("1"));
    let three = json(&args("3"));
    assert_eq!(one["deal_stream"], three["deal_stream"]);
    assert_eq!(one["deal_stream"]["pairs"], 199_999);
    // The same in marginal mode.
    let marginal = |threads: &'static str| {
        json(&[
            "run",
            "naive",
            "-n",
            "30",
            "-t",
            "140000",
            "--seed",
            "4",
            "--threads",
            threads,
        ])
    };
    assert_eq!(marginal("1")["deal_stream"], marginal("2")["deal_stream"]);
}

#[test]
fn check_reads_the_deals_in_line_order() {
    // The deals a run emits are the run's own, in trial order: check finds the same counts.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deals.txt");
    let file = file.to_str().unwrap();
    for (deck, mode) in [("5", "full"), ("20", "marginal")] {
        let run = json(&[
            "run",
            "fisher-yates",
            "-n",
            deck,
            "--mode",
            mode,
            "-t",
            "150000",
            "--seed",
            "9",
            "--rng",
            "msvc",
            "--map",
            "modulo",
            "--reseed",
            "every-shuffle",
            "--seed-bits",
            "32",
            "--seeds",
            "counter",
            "--emit-permutations",
            file,
        ]);
        let check = json(&["check", file, "--mode", mode]);
        for field in ["deals", "pairs", "matches", "slots", "compositions"] {
            assert_eq!(
                run["deal_stream"][field], check["deal_stream"][field],
                "{field}, {deck} cards"
            );
        }
        assert_eq!(check["deal_stream"]["order"], "line order");
        assert!(rejected(&check, "serial slots"));
    }
}

#[test]
fn repeats_in_a_small_file_are_counted_exactly() {
    // 12 cards (marginal mode, fingerprints packed exactly): the deck a b a c b a has pairs
    // C(3,2) + C(2,2) = 4, 3 distinct.
    let a = "0 1 2 3 4 5 6 7 8 9 10 11\n";
    let b = "1 0 2 3 4 5 6 7 8 9 10 11\n";
    let c = "11 10 9 8 7 6 5 4 3 2 1 0\n";
    let text = [a, b, a, c, b, a].concat();
    let output = shuffle_bias()
        .args(["check", "-", "-q", "--format", "json"])
        .write_stdin(text)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let repeats = &report["deal_stream"]["repeats"];
    assert_eq!(repeats["repeated_pairs"], 4);
    assert_eq!(repeats["distinct"], 3);
    assert_eq!(repeats["bytes_per_deal"], 16);
    // 4 repeats where 12! ≈ 4.8·10^8 decks expect C(6,2)/12! ≈ 3·10^−8: rejected.
    assert!(rejected(&report, "repeated decks"));
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn every_format_shows_the_deal_stream_tests() {
    let base = [
        "run",
        "fisher-yates",
        "-n",
        "4",
        "-t",
        "5000",
        "--seed",
        "2",
        "-q",
    ];
    let table = shuffle_bias().args(base).output().unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    for name in [
        "repeated decks",
        "serial matches",
        "serial slots",
        "serial compositions",
        "Deals in sequence",
    ] {
        assert!(table.contains(name), "table lacks {name}");
    }
    let markdown = shuffle_bias()
        .args(base)
        .args(["--format", "markdown"])
        .output()
        .unwrap();
    let markdown = String::from_utf8(markdown.stdout).unwrap();
    assert!(markdown.contains("| serial slots"));
    assert!(markdown.contains("Deals in sequence"));
    let csv = shuffle_bias()
        .args(base)
        .args(["--format", "csv", "--table", "tests"])
        .output()
        .unwrap();
    let csv = String::from_utf8(csv.stdout).unwrap();
    assert!(csv.contains("serial compositions,pearson-chi-square"));
    assert!(csv.contains("serial slots,chi-square-independence"));
    let summary = shuffle_bias()
        .args(base)
        .args(["--format", "csv"])
        .output()
        .unwrap();
    let summary = String::from_utf8(summary.stdout).unwrap();
    assert!(summary.lines().next().unwrap().contains("repeated_pairs"));
}

#[test]
fn no_deal_tests_leaves_them_out() {
    let report = json(&[
        "run",
        "fisher-yates",
        "-n",
        "4",
        "-t",
        "5000",
        "--no-deal-tests",
    ]);
    assert!(report["deal_stream"].is_null());
    assert_eq!(report["tests"].as_array().unwrap().len(), 1 + 1 + 4);
}

#[test]
fn against_the_model_the_dependence_tests_run_conditional_on_the_observed_law() {
    // The naive shuffle is biased; the serial tests condition on the observed law of one deal
    // (not on the model's, against which consecutive compositions would share a deal and be
    // dependent), so they run against the model as against uniform, and independent naive
    // deals pass them; the repeated decks use Σp² of the exact law.
    let report = json(&[
        "run",
        "naive",
        "-n",
        "4",
        "-t",
        "20000",
        "--seed",
        "3",
        "--against",
        "model",
    ]);
    let names: Vec<&str> = report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"serial slots"));
    assert!(names.contains(&"serial matches"));
    assert!(names.contains(&"serial compositions"));
    let not_run = report["deal_stream"]["not_run"].as_array().unwrap();
    assert!(!not_run.iter().any(|n| n["test"] == "serial matches"));
    // 20,000 deals of 24 orderings: every ordering seen, nothing to add to the permutations
    // test (repeated decks not run either).
    assert!(not_run.iter().any(|n| n["test"] == "repeated decks"));
    assert_eq!(report["bias_detected"], false);
}

/// The serial Mallows MMD's row and figures in a JSON report.
fn mallows(report: &Value) -> (&Value, &Value) {
    (
        test(report, "serial Mallows MMD"),
        &report["deal_stream"]["mallows"],
    )
}

#[test]
fn the_serial_mallows_mmd_passes_fisher_yates_and_catches_riffles_on_52_and_200_cards() {
    // Fisher–Yates with a fixed seed: z is that of independent uniform decks, within the
    // two-sided 1% points ±2.58 at this seed.
    for (deck, trials, stride) in [("52", "20000", 1), ("200", "8000", 4)] {
        let report = json(&[
            "run",
            "fisher-yates",
            "-n",
            deck,
            "-t",
            trials,
            "--seed",
            "5",
        ]);
        let (row, figures) = mallows(&report);
        assert_eq!(row["rejected"], false, "{deck} cards: {figures}");
        assert_eq!(row["method"], "mean-kernel-law-two-sided");
        // Filed by the sign of z: above, the law of one deal; below, dependence.
        let z = figures["z"].as_f64().unwrap();
        assert_eq!(
            row["question"],
            if z < 0.0 {
                "dependence-between-deals"
            } else {
                "law-of-one-deal"
            }
        );
        assert_eq!(figures["stride"], stride);
        // One block: the pairs whose second deal has an index divisible by the stride.
        let pairs = trials.parse::<u64>().unwrap() - 1;
        assert_eq!(figures["pairs"], pairs / stride);
        for field in ["lambda", "mean_kernel", "exact_mean", "z"] {
            assert!(figures[field].is_f64(), "{field}");
        }
        assert_eq!(row["statistic"], figures["z"]);
    }
    // Biased shuffles whose decks are independent: the mean kernel exceeds c_n(q) by δ standard
    // deviations (under the null) of one pair's kernel, so z ≈ δ·√pairs. Measured at seed 1:
    // one riffle on 52 cards δ ≈ 1000 (z = 21,580 over 399 pairs); five riffles on 52 cards
    // δ = 0.076 (20,000 trials); six riffles on 200 cards δ = 0.126 per pair counted (one in 4).
    // The trials below expect z ≈ 0.076·√19,999 = 10.7 and 0.126·√4,999 = 8.9, against Holm's
    // bar for the smallest p of a family of at most 220 tests at α = 0.01, p < 4.6·10^−5
    // (z > 3.9 for the normal tail; the summed kernel's exact law, heavier above, puts the bar
    // near z = 4.5 at 5,000 pairs of 52 cards): over four standard deviations of z to spare. The shelf shuffler, whose bias is in
    // the slots, is not seen by this kernel (z = −0.6 over 200,000 decks of 52 cards); the
    // position tests catch it.
    for (algorithm, deck, trials, passes) in [
        ("riffle", "52", "200", "1"),
        ("riffle", "52", "20000", "5"),
        ("riffle", "200", "20000", "6"),
    ] {
        let report = json(&[
            "run", algorithm, "-n", deck, "-t", trials, "--passes", passes, "--seed", "5",
        ]);
        let (row, figures) = mallows(&report);
        assert_eq!(
            row["rejected"], true,
            "{algorithm} ×{passes} on {deck} cards: {figures}"
        );
        assert!(figures["z"].as_f64().unwrap() > 5.0, "{algorithm} {deck}");
        assert_eq!(row["question"], "law-of-one-deal");
        assert!(figures["mean_kernel"].as_f64().unwrap() > figures["exact_mean"].as_f64().unwrap());
    }
}

#[test]
fn the_serial_mallows_mmd_shows_in_the_text_and_the_csv_and_not_against_the_model() {
    let base = [
        "run",
        "fisher-yates",
        "-n",
        "20",
        "-t",
        "3000",
        "--seed",
        "2",
        "-q",
    ];
    let table = shuffle_bias().args(base).output().unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.contains("serial Mallows MMD: mean kernel exp(−λ·d) of consecutive decks"));
    assert!(table.contains("if independent and uniform"));
    let csv = shuffle_bias()
        .args(base)
        .args(["--format", "csv", "--table", "tests"])
        .output()
        .unwrap();
    let csv = String::from_utf8(csv.stdout).unwrap();
    assert!(
        csv.contains("serial Mallows MMD,mean-kernel-law-two-sided"),
        "{csv}"
    );
    // Against the model the kernel's exact mean is not known: not run, with the reason.
    let model = json(&[
        "run",
        "riffle",
        "-n",
        "20",
        "-t",
        "3000",
        "--seed",
        "2",
        "--against",
        "model",
    ]);
    assert!(model["deal_stream"]["mallows"].is_null());
    let not_run = model["deal_stream"]["not_run"].as_array().unwrap();
    assert!(not_run.iter().any(|n| n["test"] == "serial Mallows MMD"
        && n["reason"].as_str().unwrap().contains("uniform decks only")));
    // Full mode's decks (up to 11 cards) have the serial compositions instead.
    let small = json(&["run", "fisher-yates", "-n", "8", "-t", "3000"]);
    assert!(small["deal_stream"]["mallows"].is_null());
}

#[test]
fn a_run_too_long_for_the_repeated_decks_fingerprints_says_so_before_it_starts() {
    // 20G shuffles would keep 320 GB of fingerprints: past the memory of any machine this runs
    // on, so the test samples the decks by value (it was skipped before issue #32), and the
    // run must say so at once (not only in the report at the end). The run is interrupted
    // once the warning has had time to be printed.
    let output = common::interrupted_after(
        &[
            "run",
            "fisher-yates",
            "-n",
            "52",
            "-t",
            "20G",
            "--seed",
            "1",
        ],
        3000,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("warning: the repeated-decks test keeps at most"),
        "{stderr}"
    );
    assert!(
        stderr.contains("beyond that it samples the decks by value: about 1 in"),
        "{stderr}"
    );
    assert!(
        stderr.contains("deck values for these 20,000,000,000 shuffles"),
        "{stderr}"
    );
    assert_eq!(output.status.code(), Some(130), "{stderr}");
}

/// The JSON report and stderr of `run fisher-yates -n 52 -t 300000 --threads 2` with `extra`
/// arguments, the repeated-decks test limited to 20,000 fingerprints.
fn sampled_run(extra: &[&str]) -> (Value, String) {
    let output = shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "52",
            "-t",
            "300000",
            "--threads",
            "2",
            "--seed",
            "1",
            "-q",
            "--format",
            "json",
        ])
        .args(extra)
        .env("SHUFFLE_BIAS_FINGERPRINT_LIMIT", "20000")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.code().is_some_and(|code| code <= 1),
        "{stderr}"
    );
    (serde_json::from_slice(&output.stdout).unwrap(), stderr)
}

#[test]
fn past_the_fingerprint_limit_a_sampled_run_still_catches_a_24_bit_seed() {
    // Regression (issue #32): past its memory the repeated-decks test was skipped. Now, with
    // room for 20,000 fingerprints (10,000 a thread), 300,000 decks are sampled by value: the
    // level is the smallest s with 300,000·2^−s ≤ 10,000 kept, s = 5 (at s = 4 about 18,750
    // ± 140 decks would be kept, at s = 5 about 9,375 ± 100: each side 6σ from the cap).
    // 2^24 equally likely seeds repeat about C(300000,2)/2^24 ≈ 2,682 times in the stream and
    // 2,682/32 ≈ 84 times in the sample (Poisson: R_s = 0 has probability e^−84). Under a fair
    // shuffle the sample's mean is C(9375,2)·32/52! ≈ 10^−59, so one repeat gives p ≈ 10^−30
    // at most (the floor of 128-bit hash collisions), far below Holm's 0.001/68.
    let (report, stderr) = sampled_run(&[
        "--reseed",
        "every-shuffle",
        "--seed-bits",
        "24",
        "--seeds",
        "random",
    ]);
    assert!(
        stderr.contains("beyond that it samples the decks by value: about 1 in 32 deck values"),
        "{stderr}"
    );
    assert_eq!(report["bias_detected"], true);
    assert!(rejected(&report, "repeated decks"));
    let repeats = &report["deal_stream"]["repeats"];
    let sample = &repeats["sample"];
    assert_eq!(sample["level"], 5);
    assert_eq!(sample["one_in"], 32);
    let kept = sample["deals_sampled"].as_u64().unwrap();
    assert!((8_800..=10_000).contains(&kept), "{sample}");
    // R_s within a factor 2 of its mean 84 (42..168: Poisson tails beyond 4.5σ), so the
    // estimate C(N,2)/(32·R_s) is within a factor 2 of 2^24.
    let pairs = repeats["repeated_pairs"].as_u64().unwrap();
    assert!((42..=168).contains(&pairs), "{repeats}");
    let estimate = repeats["reachable"]["estimate"].as_f64().unwrap();
    let two_24 = 2f64.powi(24);
    assert!(
        estimate > two_24 / 2.0 && estimate < two_24 * 2.0,
        "{estimate}"
    );
    // The power left: C(300000,2)/(32·ln 10) ≈ 6.1·10^8 decks, 32 times less than unsampled.
    let seen = sample["sees_repeats_up_to"].as_f64().unwrap();
    assert!((seen - 300_000.0 * 299_999.0 / 2.0 / 32.0 / 10f64.ln()).abs() < 1.0);
}

#[test]
fn past_the_fingerprint_limit_a_sampled_run_of_a_fair_shuffle_passes_the_same_way_every_time() {
    // A fair shuffle's sample of about 9,375 decks repeats with mean C(9375,2)·32/52! ≈
    // 10^−59: no repeat, and the run passes (its other tests are those of the unsampled run,
    // fixed by the seed). The level a run reaches does not depend on which worker ran which
    // blocks, so two runs give the same counts.
    let (report, stderr) = sampled_run(&[]);
    assert!(stderr.contains("about 1 in 32 deck values"), "{stderr}");
    assert_eq!(report["bias_detected"], false, "{}", report["deal_stream"]);
    let repeats = &report["deal_stream"]["repeats"];
    assert_eq!(repeats["repeated_pairs"], 0);
    assert_eq!(repeats["sample"]["level"], 5);
    assert!(!rejected(&report, "repeated decks"));
    let (again, _) = sampled_run(&[]);
    assert_eq!(again["deal_stream"]["repeats"], *repeats);
    // Within the limit nothing is sampled: no `sample` in the report.
    let output = shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "52",
            "-t",
            "20000",
            "--seed",
            "1",
        ])
        .args(["--threads", "2", "-q", "--format", "json"])
        .env("SHUFFLE_BIAS_FINGERPRINT_LIMIT", "20000")
        .output()
        .unwrap();
    let exact: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(exact["deal_stream"]["repeats"].get("sample").is_none());
    assert_eq!(exact["deal_stream"]["repeats"]["distinct"], 20_000);
}

#[test]
fn check_past_the_fingerprint_limit_samples_the_decks_as_the_run_that_made_them() {
    // 3,000 decks from 2^12 seeds (a 12-bit seed before every shuffle), read back by `check`
    // with room for 260 fingerprints. About 2,130 distinct decks and 1,100 repeated pairs:
    // 1 in 2^s deck values keeps 3,000/2^s decks, variance (3,000 + 2·1,100)/2^s (the copies
    // of a deck are kept together). 1 in 16 keeps about 190 ± 18, 4σ below 260; 1 in 8 would
    // keep about 375 ± 25, 4.5σ above: both sample
    // 1 in 16 and, reading the same decks under the same limit, reach the same sample (a
    // one-thread run keeps the whole limit). The sample repeats about C(3000,2)/(2^12·16) ≈ 69
    // times against 10^−63 for a fair shuffle: rejected.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("decks.txt");
    let file = file.to_str().unwrap();
    let limited = |args: &[&str]| -> Value {
        let output = shuffle_bias()
            .args(args)
            .args(["-q", "--format", "json"])
            .env("SHUFFLE_BIAS_FINGERPRINT_LIMIT", "260")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let run = limited(&[
        "run",
        "fisher-yates",
        "-n",
        "52",
        "-t",
        "3000",
        "--threads",
        "1",
        "--seed",
        "2",
        "--reseed",
        "every-shuffle",
        "--seed-bits",
        "12",
        "--seeds",
        "random",
        "--emit-permutations",
        file,
    ]);
    let check = limited(&["check", file]);
    let repeats = &check["deal_stream"]["repeats"];
    assert_eq!(repeats["sample"]["level"], 4, "{repeats}");
    assert!(rejected(&check, "repeated decks"));
    assert_eq!(run["deal_stream"]["repeats"], *repeats);
}
