//! `case`: the ten famous shuffles are listed; each one's published figures are reproduced by a
//! run at the default settings (fixed seed); the emitted permutations feed `check` to the same
//! counts; at 5 cards `--explain` names each case's bug; and the predictability enumeration
//! agrees with its estimate on a 2^20-seed space.

mod common;

use std::sync::atomic::AtomicBool;

use common::shuffle_bias;
use serde_json::Value;
use shuffle_bias::analysis::predictability::{Visible, enumerate, estimate};
use shuffle_bias::engine::generators::GeneratorKind;
use shuffle_bias::engine::mapped_source::{Generator, Reseed, SeedSequence};
use shuffle_bias::engine::mapping::Mapping;
use shuffle_bias::{Algorithm, Shuffle, SourceSpec};

const NAMES: [&str; 10] = [
    "planet-poker",
    "browser-ballot",
    "laravel-shuffle",
    "dotnet-random",
    "php-mt-rand",
    "v8-mwc1616",
    "go-seed-1",
    "java-counter-seed",
    "sql-order-by-rand",
    "pokerstars",
];

/// The JSON report and exit code of `shuffle-bias ARGS --format json --quiet`.
fn report(args: &[&str]) -> (Value, i32) {
    let output = shuffle_bias()
        .args(args)
        .args(["--format", "json", "--quiet"])
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

#[test]
fn case_list_shows_all_ten_cases() {
    let output = shuffle_bias().args(["case", "--list"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    for name in NAMES {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
    let output = shuffle_bias()
        .args(["case", "--list", "--format", "json"])
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&output.stdout).unwrap();
    let listed: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, NAMES);
}

#[test]
fn an_unknown_case_is_refused_with_the_list() {
    let output = shuffle_bias()
        .args(["case", "planet-pokr"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("planet-poker"), "{message}");
}

/// Every figure of a case run at its published deck is reproduced (or shown beside, with
/// nothing published to compare), and the exit code says what the case is: bias detected for
/// the nine failures, none for the positive reference. The runs are fixed-seed; the figures
/// compared by sampling state their own tolerance (`src/cases/figures.rs`): 4 standard errors
/// for a frequency, p > 0.001 for a χ² fit.
#[test]
fn every_case_reproduces_its_published_figures() {
    for name in NAMES {
        let (report, code) = report(&["case", name, "--seed", "2010"]);
        let case = &report["case"];
        assert_eq!(case["name"], name);
        let figures = case["figures"].as_array().unwrap();
        assert!(!figures.is_empty(), "{name}: no figures");
        for figure in figures {
            let agreement = figure["agreement"].as_str().unwrap();
            assert!(
                agreement == "reproduced" || agreement == "beside",
                "{name}: {} — published {}, tool {} ({}): {agreement}",
                figure["claim"],
                figure["published"],
                figure["tool"],
                figure["how"]
            );
        }
        assert!(
            figures.iter().any(|f| f["agreement"] == "reproduced"),
            "{name}: nothing compared"
        );
        if name == "planet-poker" {
            // "The two hole cards and the flop identify the deck": 5 visible cards, over the
            // whole day's 86,400,000 seeds, every one shuffled.
            let predictability = &report["predictability"];
            assert_eq!(predictability["seeds"], 86_400_000);
            assert_eq!(predictability["method"], "enumerated");
            assert_eq!(predictability["distinct_decks"], 86_400_000);
            assert_eq!(predictability["cards_to_identify"], 5);
        }
        let expected = if name == "pokerstars" || name == "v8-mwc1616" {
            0
        } else {
            1
        };
        assert_eq!(code, expected, "{name}: {}", report["verdict"]);
    }
}

#[test]
fn emitted_case_permutations_check_to_the_same_counts() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("decks.txt");
    let file = file.to_str().unwrap();
    let (case, _) = report(&[
        "case",
        "java-counter-seed",
        "-t",
        "100k",
        "--seed",
        "7",
        "--emit-permutations",
        file,
    ]);
    let header = std::fs::read_to_string(file).unwrap();
    assert!(
        header.starts_with("# shuffle-bias case java-counter-seed --deck 8 --trials 100000"),
        "{}",
        header.lines().next().unwrap()
    );
    let (checked, _) = report(&["check", file]);
    assert_eq!(checked["positions"]["counts"], case["positions"]["counts"]);
    assert_eq!(checked["identity"]["count"], case["identity"]["count"]);
    assert_eq!(checked["trials"], 100_000);
}

/// At 5 cards each case's bug is named: by the model that fits (the deployed loop's exact
/// law), by a signature, or between deals (the repeated-decks or dependence tests). A million
/// decks suffice for the fits: tests/explain.rs derives it for the built-in biased algorithms.
#[test]
fn explain_names_each_cases_bug_at_five_cards() {
    let expect: [(&str, &str); 10] = [
        ("planet-poker", "naive-off-by-one"),
        ("browser-ballot", "comparator-insertion"),
        ("laravel-shuffle", "zend-sort"),
        ("dotnet-random", "Between deals"),
        ("php-mt-rand", "No bug seen"),
        ("v8-mwc1616", "No bug seen"),
        ("go-seed-1", "Between deals"),
        ("java-counter-seed", "Between deals"),
        ("sql-order-by-rand", "unshuffled"),
        ("pokerstars", "No bug seen"),
    ];
    for (name, named) in expect {
        let (report, _) = report(&["case", name, "--deck", "5", "--seed", "5", "--explain"]);
        let finding = report["diagnosis"]["finding"].as_str().unwrap();
        assert!(finding.contains(named), "{name}: {finding}");
    }
}

/// The enumeration of 2^20 seeds (Fisher–Yates on 52 cards from Python's Mersenne Twister,
/// one seed a deal) against the estimate exp(−(S − 1)/P(52, k)) for the seeds' decks taken as
/// independent and uniform. The share identified by k cards is a mean of 2^20 indicators,
/// each dependent only on the few seeds sharing its prefix: its standard deviation is about
/// √(2·p(1 − p)/S) ≤ 0.0007 (the 2 for the pairs). A tolerance of 0.01 is over 14 of them.
#[test]
fn the_enumeration_agrees_with_the_estimate_on_a_2_to_the_20_seed_space() {
    let seeds = 1u64 << 20;
    let source = SourceSpec {
        generator: Generator::Other(GeneratorKind::Mt19937),
        mapping: Mapping::Lemire,
        bits: None,
        reseed: Some(Reseed {
            bits: 20,
            seeds: SeedSequence::Counter,
        }),
    };
    let stop = AtomicBool::new(false);
    let found = enumerate(
        Shuffle::once(Algorithm::FisherYates),
        52,
        &source,
        seeds,
        2,
        &stop,
        &mut |_| {},
    )
    .expect("2^20 seeds are enumerated")
    .expect("not interrupted");
    let (visible, distinct, exact, kept) =
        (found.visible, found.distinct, found.exact, found.compared);
    assert_eq!(kept, 10);
    assert!(exact && distinct == seeds, "{distinct} distinct decks");
    let estimated: Vec<Visible> = estimate(seeds, 52);
    for k in 1..=kept {
        let (got, want) = (visible[k - 1].identified, estimated[k - 1].identified);
        assert!(
            (got - want).abs() < 0.01,
            "{k} cards: enumerated {got}, estimated {want}"
        );
    }
    // 4 cards identify exp(−(2^20 − 1)/6,497,400) ≈ 85% of the decks, 5 cards over 99%.
    assert!((estimated[3].identified - 0.851).abs() < 0.001);
}

#[test]
fn case_list_refuses_the_flags_of_a_case_run_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    // Each was accepted and did nothing: the list is the same whatever the run would be.
    let cases: [(&[&str], &str); 13] = [
        (&["--brief"], "'--brief'"),
        (&["-t", "5"], "'--trials <TRIALS>'"),
        (&["-n", "5"], "'--deck <DECK>'"),
        (&["--alpha", "0.01"], "'--alpha <ALPHA>'"),
        (&["--explain"], "'--explain'"),
        (&["--seed", "3"], "'--seed <SEED>'"),
        (&["--color", "always"], "'--color <WHEN>'"),
        (&["--threads", "2"], "'--threads <THREADS>'"),
        (&["--max-paths", "5"], "'--max-paths <PATHS>'"),
        (&["--no-deal-tests"], "'--no-deal-tests'"),
        (
            &["--emit-permutations", "decks.txt"],
            "'--emit-permutations <FILE>'",
        ),
        (&["--plot", "cases.svg"], "'--plot <FILE.svg>'"),
        (
            &["--format", "csv", "--table", "tests"],
            "'--table <TABLE>'",
        ),
    ];
    for (flags, named) in cases {
        let output = shuffle_bias()
            .current_dir(dir.path())
            .args(["case", "--list"])
            .args(flags)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flags:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "the argument '--list' cannot be used with {named}"
            )),
            "{flags:?}: {stderr}"
        );
        assert!(output.stdout.is_empty(), "{flags:?}");
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no file written"
    );
    // The flags of the list itself still go with it.
    let output = shuffle_bias()
        .args(["case", "--list", "-q", "--format", "csv"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("name,year,title,deck,expect"));
}
