//! `--until-decided` from the outside: where `run`, `check` and `compare` stop, what the report
//! says in each format, the stopping point on any number of threads, a live producer cut off,
//! and the flags it does not go with.

mod common;

use common::shuffle_bias;
use predicates::prelude::*;
use serde_json::Value;

fn json_of(args: &[&str]) -> (Value, i32) {
    let output = shuffle_bias()
        .args(args)
        .args(["--quiet", "--format", "json"])
        .output()
        .unwrap();
    let json = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("no JSON: {}", String::from_utf8_lossy(&output.stderr)));
    (json, output.status.code().unwrap())
}

#[test]
fn a_biased_run_stops_when_decided_with_the_tally_of_the_trials_used() {
    let (json, code) = json_of(&[
        "run",
        "sattolo",
        "-n",
        "4",
        "--seed",
        "1",
        "--until-decided",
    ]);
    assert_eq!(code, 1);
    let sequential = &json["sequential"];
    assert_eq!(sequential["decided"], true);
    let used = sequential["trials_used"].as_u64().unwrap();
    assert!(used < 100, "Sattolo reaches 6 of 24 orderings: {used}");
    assert_eq!(json["trials"].as_u64(), Some(used));
    assert_eq!(json["trials_requested"].as_u64(), Some(1_000_000));
    assert_eq!(json["interrupted"], false);
    assert_eq!(json["bias_detected"], true);
    let counted: u64 = json["permutations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, used);
    // K = permutations, identity and 4 positions; alpha 0.001, of which the e-processes spend
    // half: K/0.0005.
    assert_eq!(sequential["family_size"], 6);
    assert_eq!(sequential["threshold"], 12000.0);
    assert_eq!(sequential["sequential_alpha"], 0.0005);
    assert_eq!(sequential["fixed_sample_alpha"], 0.0005);
    assert!(sequential["log10_strongest"].as_f64().unwrap() >= 12000f64.log10());
    let last = sequential["evidence"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["trials"].as_u64(), Some(used));
    assert!(
        json["verdict"]
            .as_str()
            .unwrap()
            .starts_with("bias detected: the anytime-valid sequential test rejects uniform")
    );
}

#[test]
fn a_fair_run_that_never_decides_is_judged_by_the_fixed_sample_tests() {
    let (json, code) = json_of(&[
        "run",
        "fisher-yates",
        "-n",
        "4",
        "-t",
        "50k",
        "--seed",
        "2",
        "--until-decided",
    ]);
    assert_eq!(code, 0);
    assert_eq!(json["sequential"]["decided"], false);
    assert_eq!(json["sequential"]["trials_used"], 50_000);
    assert_eq!(json["trials"], 50_000);
    let notes = json["notes"].to_string();
    assert!(notes.contains("the sequential test did not decide within 50000 trials"));
    assert!(notes.contains("the fixed-sample tests decide, at alpha = 0.0005"));
}

#[test]
fn without_the_flag_the_json_has_no_sequential_field() {
    let (json, _) = json_of(&["run", "naive", "-n", "3", "-t", "1000", "--seed", "1"]);
    assert!(json.get("sequential").is_none());
}

#[test]
fn the_stopping_point_for_a_seed_is_the_same_on_one_and_two_threads() {
    // Six riffles of 6 cards are close to uniform: deciding takes more than one block of
    // 65,536 shuffles for seeds 1 and 2, so the order in which the threads' blocks are
    // consumed matters.
    let cases: [&[&str]; 3] = [
        &["run", "naive", "-n", "5"],
        &["run", "comparator-merge", "-n", "6"],
        &["run", "riffle", "--passes", "6", "-n", "6", "-t", "2M"],
    ];
    for args in cases {
        for seed in ["1", "2", "3"] {
            let mut stops = Vec::new();
            for threads in ["1", "2"] {
                let mut all = args.to_vec();
                all.extend(["--seed", seed, "--threads", threads, "--until-decided"]);
                let (json, code) = json_of(&all);
                assert_eq!(code, 1, "{all:?}");
                stops.push((
                    json["sequential"]["trials_used"].as_u64().unwrap(),
                    json["sequential"]["tests"].clone(),
                    json["positions"]["counts"].clone(),
                ));
            }
            assert_eq!(stops[0], stops[1], "{args:?} seed {seed}");
        }
    }
}

#[test]
fn a_decision_past_the_first_block_is_reproducible() {
    let args = [
        "run",
        "riffle",
        "--passes",
        "6",
        "-n",
        "6",
        "-t",
        "2M",
        "--seed",
        "1",
        "--until-decided",
    ];
    let (json, _) = json_of(&args);
    let used = json["sequential"]["trials_used"].as_u64().unwrap();
    assert!(used > 65_536, "decided within the first block: {used}");
}

#[test]
fn marginal_mode_decides_on_the_positions_and_statistics() {
    let (json, code) = json_of(&[
        "run",
        "naive",
        "-n",
        "30",
        "--mode",
        "marginal",
        "--seed",
        "4",
        "--until-decided",
    ]);
    assert_eq!(code, 1);
    assert_eq!(json["mode"], "marginal");
    assert_eq!(json["sequential"]["decided"], true);
    // 30 positions, the identity, 11 statistics.
    assert_eq!(json["sequential"]["family_size"], 42);
    assert_eq!(
        json["trials"].as_u64(),
        json["sequential"]["trials_used"].as_u64()
    );
}

#[test]
fn check_stops_reading_a_live_producer_which_then_gets_sigpipe() {
    // `yes` writes the identity forever: check must stop reading once decided, and `yes`
    // then dies of SIGPIPE (status 141 in the shell), so the pipeline ends.
    let binary = assert_cmd::cargo::cargo_bin("shuffle-bias");
    let script = format!(
        "yes '0 1 2 3' | '{}' check --until-decided --quiet --format json > \"$OUT\"; \
         echo \"${{PIPESTATUS[@]}}\"",
        binary.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let output = std::process::Command::new("bash")
        .args(["-c", &script])
        .env("OUT", &out)
        .output()
        .unwrap();
    let statuses = String::from_utf8(output.stdout).unwrap();
    assert_eq!(statuses.trim(), "141 1", "{statuses}");
    let json: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(json["sequential"]["decided"], true);
    let used = json["sequential"]["trials_used"].as_u64().unwrap();
    assert_eq!(json["input"]["permutations"].as_u64(), Some(used));
    assert!(used < 10, "the identity every time: {used}");
}

#[test]
fn check_against_the_model_does_not_decide_on_the_models_own_output() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sattolo.txt");
    let file = file.to_str().unwrap();
    shuffle_bias()
        .args([
            "run", "sattolo", "-n", "4", "-t", "3000", "--seed", "5", "--quiet",
        ])
        .args(["--emit-permutations", file, "-o", "/dev/null"])
        .assert()
        .code(1);
    let (json, code) = json_of(&["check", file, "--against", "sattolo", "--until-decided"]);
    assert_eq!(code, 0);
    assert_eq!(json["sequential"]["decided"], false);
    assert_eq!(json["sequential"]["trials_used"], 3000);
    let (json, code) = json_of(&["check", file, "--until-decided"]);
    assert_eq!(code, 1);
    let used = json["sequential"]["trials_used"].as_u64().unwrap();
    assert!(used < 3000);
    assert_eq!(json["trials"].as_u64(), Some(used));
}

#[test]
fn compare_until_decided_stops_each_biased_algorithm_and_keeps_the_fair_ones_going() {
    let (json, code) = json_of(&[
        "compare",
        "--all",
        "-n",
        "4",
        "-t",
        "200k",
        "--seed",
        "1",
        "--until-decided",
    ]);
    assert_eq!(code, 0, "every verdict as expected");
    for row in json["rows"].as_array().unwrap() {
        // Ten shelves leave 4 cards only 1/150 from uniform (TV; Diaconis, Fulman & Holmes's
        // closed form): its exact law needs about 366,000 trials for 99% power, more than the
        // 200,000 here, so no test can be expected to decide it within them.
        if row["algorithm"] == "shelf" {
            assert!(row["trials_to_detect"].as_u64().unwrap() > 200_000, "{row}");
            continue;
        }
        let fair = row["meant_uniform"].as_bool().unwrap();
        assert_eq!(row["sequential_decided"].as_bool(), Some(!fair), "{row}");
        if !fair {
            assert!(
                row["trials"].as_u64().unwrap() < 200_000,
                "{}",
                row["algorithm"]
            );
        }
    }
}

#[test]
fn the_table_csv_and_markdown_carry_the_sequential_test() {
    let base = [
        "run",
        "naive",
        "-n",
        "4",
        "--seed",
        "1",
        "--until-decided",
        "-q",
    ];
    shuffle_bias()
        .args(base)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "Sequential test (--until-decided): e-Bonferroni over 6 tests",
        ))
        .stdout(predicate::str::contains("running evidence"));
    shuffle_bias()
        .args(base)
        .args(["--format", "markdown"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "Sequential test (--until-decided)",
        ));
    let output = shuffle_bias()
        .args(base)
        .args(["--format", "csv"])
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header
        .iter()
        .position(|&h| h == "sequential_decided")
        .unwrap();
    assert_eq!(row[at], "true");
    assert_eq!(header.len(), row.len());
}

#[test]
fn the_plot_draws_the_running_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("evidence.svg");
    shuffle_bias()
        .args([
            "run",
            "naive",
            "-n",
            "4",
            "--seed",
            "1",
            "--until-decided",
            "-q",
        ])
        .arg("--plot")
        .arg(&svg)
        .assert()
        .code(1);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("threshold: the family rejects"));
    assert!(text.contains("running evidence"));
}

#[test]
fn until_decided_with_emit_permutations_is_a_usage_error_naming_the_flag() {
    shuffle_bias()
        .args([
            "run",
            "naive",
            "--until-decided",
            "--emit-permutations",
            "x.txt",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--emit-permutations"))
        .stderr(predicate::str::contains("--until-decided"));
}

#[test]
fn ctrl_c_during_a_sequential_run_ends_it_with_exit_130_and_a_report_of_what_was_done() {
    let output = common::interrupted_after(
        &[
            "run",
            "fisher-yates",
            "-n",
            "4",
            "-t",
            "2G",
            "--seed",
            "1",
            "--until-decided",
            "--quiet",
            "--format",
            "json",
        ],
        500,
    );
    assert_eq!(output.status.code(), Some(130));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["interrupted"], true);
    assert_eq!(json["sequential"]["decided"], false);
    assert_eq!(json["trials"], json["sequential"]["trials_used"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("interrupted"));
}

#[test]
fn a_sequential_run_to_the_end_tallies_exactly_what_the_simulation_tallies() {
    use shuffle_bias::analysis::sequential::{MarginalNull, SequentialFamily, SequentialTally};
    use shuffle_bias::engine::algorithms::Algorithm;
    use shuffle_bias::engine::mapped_source::SourceSpec;
    use shuffle_bias::engine::random_source::RngKind;
    use shuffle_bias::engine::simulate::{BLOCK_TRIALS, Simulation, SimulationSpec, simulate};
    use shuffle_bias::engine::trial_order::visit_in_trial_order;
    use std::sync::atomic::AtomicBool;
    let stop = AtomicBool::new(false);
    for threads in [1, 2] {
        let spec = SimulationSpec {
            shuffle: Algorithm::FisherYates.into(),
            deck: 5,
            trials: 2 * BLOCK_TRIALS + 321,
            seed: 9,
            rng: RngKind::Chacha8,
            threads,
        };
        let source = SourceSpec::chacha(spec.rng);
        // alpha = 1e-300 keeps a fair run from ever deciding.
        let mut family = SequentialFamily::full(5, None, 1e-300);
        visit_in_trial_order(&spec, &source, &stop, &mut |_| {}, &mut |d| {
            family.observe(d)
        });
        let (outcome, SequentialTally::Full(tally)) = family.finish() else {
            panic!("full mode")
        };
        assert!(!outcome.decided);
        assert_eq!(
            tally,
            simulate(&spec, &Simulation::default(), &stop, &mut |_| {}).into_full(),
            "{threads} threads"
        );
        let null = MarginalNull {
            positions: Some(vec![vec![0.2; 5]; 5]),
            ..MarginalNull::default()
        };
        let mut family = SequentialFamily::marginal(5, null, 1e-300);
        visit_in_trial_order(&spec, &source, &stop, &mut |_| {}, &mut |d| {
            family.observe(d)
        });
        let (_, SequentialTally::Marginal(tally)) = family.finish() else {
            panic!("marginal mode")
        };
        assert_eq!(
            tally,
            simulate(&spec, &Simulation::marginal(), &stop, &mut |_| {}).into_marginal()
        );
    }
}

/// The section of a table or Markdown report from the fixed-sample family's heading to the
/// figures of a full tally.
fn fixed_sample_section(text: &str) -> &str {
    let start = text
        .find("Tests against")
        .expect("the fixed-sample family's heading");
    let rest = &text[start..];
    let end = rest.find("figure").expect("the figures after the family");
    &rest[..end]
}

#[test]
fn after_a_sequential_stop_the_fixed_sample_tests_are_marked_descriptive_in_every_format() {
    // Sattolo on 4 cards stops after about 20 shuffles; on those the permutations χ² has a
    // Holm p near 10^-6, which a fixed-sample verdict would call REJECTED.
    let base = [
        "run",
        "sattolo",
        "-n",
        "4",
        "--seed",
        "1",
        "--until-decided",
        "-q",
    ];
    let (json, code) = json_of(&base[..base.len() - 1]);
    assert_eq!(code, 1);
    assert_eq!(json["sequential"]["decided"], true);
    for test in json["tests"].as_array().unwrap() {
        assert_eq!(test["descriptive"], true, "{test}");
        assert_eq!(test["rejected"], false, "{test}");
    }
    for format in ["table", "markdown"] {
        let output = shuffle_bias()
            .args(base)
            .args(["--format", format])
            .output()
            .unwrap();
        let text = String::from_utf8(output.stdout).unwrap();
        let section = fixed_sample_section(&text);
        let rows: Vec<&str> = section
            .lines()
            .filter(|line| line.starts_with('│') || line.starts_with('|'))
            .filter(|line| line.contains("permutations") || line.contains("position "))
            .collect();
        assert_eq!(rows.len(), 5, "{format}: {section}");
        for row in rows {
            assert!(row.contains("descriptive"), "{format}: {row}");
        }
        assert!(!section.contains("REJECTED"), "{format}: {section}");
        assert!(!section.contains(" ok "), "{format}: {section}");
    }
    let output = shuffle_bias()
        .args(base)
        .args(["--format", "csv", "--table", "tests"])
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|&h| h == "rejected").unwrap();
    for line in lines {
        let row: Vec<&str> = line.split(',').collect();
        assert_eq!(row[at], "descriptive", "{line}");
    }
}

#[test]
fn until_decided_keeps_the_deal_stream_tests_and_rejects_a_32_bit_seed_space() {
    // The example of docs/deal-streams.md: 300,000 decks of 52 cards from 2^32 seeds repeat
    // about C(300000, 2)/2^32 ≈ 10.5 times, against C(300000, 2)/52! ≈ 0 for uniform decks. The
    // positions and statistics are uniform, so the sequential part never decides and the
    // repeated decks must still reject at the planned end.
    let (json, code) = json_of(&[
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
        "--until-decided",
    ]);
    assert_eq!(code, 1, "{}", json["verdict"]);
    assert_eq!(json["sequential"]["decided"], false);
    assert!(
        json["deal_stream"].is_object(),
        "the deal-stream part is kept"
    );
    let tests = json["tests"].as_array().unwrap();
    let repeats = tests
        .iter()
        .find(|t| t["name"] == "repeated decks")
        .expect("the repeated-decks test is in the family");
    assert_eq!(repeats["rejected"], true);
    for name in ["serial matches", "serial slots"] {
        assert!(
            tests.iter().any(|t| t["name"] == name),
            "{name} is in the family"
        );
    }
    assert!(json["verdict"].as_str().unwrap().contains("repeated decks"));
    // The second case: msvc's rand() % k re-seeded from a counting clock before every
    // 6-card shuffle. Its decks are uniform one by one but consecutive ones share their first
    // swaps; only the serial tests see it.
    let (json, code) = json_of(&[
        "run",
        "fisher-yates",
        "-n",
        "6",
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
        "--until-decided",
    ]);
    assert_eq!(code, 1, "{}", json["verdict"]);
    assert_eq!(json["sequential"]["decided"], false);
    assert!(json["verdict"].as_str().unwrap().contains("serial"));
}

#[test]
fn a_sequential_run_to_its_end_has_the_deal_stream_of_the_plain_run() {
    let args = [
        "run",
        "fisher-yates",
        "-n",
        "4",
        "-t",
        "70000",
        "--seed",
        "2",
        "--threads",
        "2",
    ];
    let (plain, _) = json_of(&args);
    let mut sequential = args.to_vec();
    sequential.push("--until-decided");
    let (until, _) = json_of(&sequential);
    assert_eq!(until["sequential"]["decided"], false);
    assert!(plain["deal_stream"].is_object());
    assert_eq!(until["deal_stream"], plain["deal_stream"]);
    let names = |json: &Value| -> Vec<Value> {
        json["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].clone())
            .collect()
    };
    assert_eq!(names(&until), names(&plain));
}
