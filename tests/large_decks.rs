//! Real decks and physical shuffles from the outside: marginal mode on 52 cards, the riffle
//! against its closed form, the Bayer–Diaconis mixing table, and the pictures.

mod common;

use common::shuffle_bias;
use serde_json::Value;

fn json(args: &[&str]) -> (Value, i32) {
    let output = shuffle_bias()
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let json = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
    (json, output.status.code().unwrap())
}

fn test_p(report: &Value, name: &str) -> f64 {
    report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test {name}"))["p_value"]
        .as_f64()
        .unwrap_or(0.0)
}

#[test]
fn fifty_two_cards_are_tallied_in_marginal_mode_with_every_statistic() {
    let (report, code) = json(&[
        "run",
        "fisher-yates",
        "-n",
        "52",
        "-t",
        "100k",
        "--seed",
        "3",
        "-q",
    ]);
    assert_eq!(code, 0, "{}", report["verdict"]);
    assert_eq!(report["mode"], "marginal");
    assert_eq!(report["orderings"], Value::Null);
    let names: Vec<&str> = report["statistics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "fixed-points",
            "cycles",
            "rising-sequences",
            "adjacent-pairs"
        ]
    );
    // 52 position tests, the identity and 4 statistics form the family.
    assert_eq!(report["tests"].as_array().unwrap().len(), 52 + 1 + 4);
    for statistic in report["statistics"].as_array().unwrap() {
        let observed: u64 = statistic["observed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .sum();
        assert_eq!(observed, 100_000, "{}", statistic["name"]);
        let expected: f64 = statistic["uniform"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_f64().unwrap())
            .sum();
        assert!((expected - 1.0).abs() < 1e-9, "{}", statistic["name"]);
    }
}

#[test]
fn seven_riffles_of_52_cards_are_biased_yet_follow_the_bayer_diaconis_law() {
    // The rising-sequence count after 7 riffles has mean about 21.3 against 26.5 under
    // uniform: 2,000 shuffles detect that beyond doubt (p far below 1e-100), while the same
    // shuffles fit the closed-form law of the riffle itself.
    let (uniform, code) = json(&[
        "run", "riffle", "-n", "52", "--passes", "7", "-t", "2000", "--seed", "1", "-q",
    ]);
    assert_eq!(code, 1);
    assert!(test_p(&uniform, "rising-sequences") < 1e-100);
    let (model, code) = json(&[
        "run",
        "riffle",
        "-n",
        "52",
        "--passes",
        "7",
        "-t",
        "200k",
        "--seed",
        "1",
        "-q",
        "--against",
        "model",
    ]);
    assert_eq!(code, 0, "{}", model["verdict"]);
    assert!(test_p(&model, "rising-sequences") > 0.001);
    let notes = model["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().unwrap().contains("TV < 0.1 takes 9 riffles"))
    );
}

#[test]
fn marginal_mode_on_a_small_deck_matches_the_full_mode_positions() {
    // Same seed, same shuffles: the position counts of the two modes are identical.
    let args = ["run", "naive", "-n", "6", "-t", "300k", "--seed", "9", "-q"];
    let (full, _) = json(&[&args[..], &["--mode", "full"]].concat());
    let (marginal, _) = json(&[&args[..], &["--mode", "marginal"]].concat());
    assert_eq!(full["positions"]["counts"], marginal["positions"]["counts"]);
    assert_eq!(full["identity"]["count"], marginal["identity"]["count"]);
    // At 6 cards the exact law is known, so the statistics have a theory column.
    assert!(marginal["statistics"][0]["theory"].is_array());
}

#[test]
fn theory_of_52_riffles_prints_the_published_table_in_every_format() {
    let (mixing, code) = json(&["theory", "riffle", "--deck", "52", "--passes", "1..12"]);
    assert_eq!(code, 0);
    let tv: Vec<f64> = mixing["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["tv_distance"].as_f64().unwrap())
        .collect();
    // Bayer & Diaconis (1992), Table 1, to the three decimals they print.
    for (k, published) in [(5, 0.924), (6, 0.614), (7, 0.334), (8, 0.167), (9, 0.085)] {
        assert!((tv[k - 1] - published).abs() < 0.0005, "{k}: {}", tv[k - 1]);
    }
    for format in ["table", "csv", "markdown"] {
        let output = shuffle_bias()
            .args([
                "theory", "riffle", "-n", "52", "--passes", "1..12", "--format", format,
            ])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0));
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.contains("0.6135"), "{format}: {text}");
    }
}

#[test]
fn plots_are_written_as_svg_for_run_theory_compare_and_mixing() {
    let dir = std::env::temp_dir().join(format!("shuffle-bias-plots-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&[&str], &str); 4] = [
        (
            &["run", "naive", "-n", "4", "-t", "100k", "--seed", "1", "-q"],
            "naive",
        ),
        (
            &["theory", "comparator-merge", "-n", "4"],
            "comparator-merge",
        ),
        (
            &[
                "compare",
                "naive",
                "fisher-yates",
                "-t",
                "100k",
                "--seed",
                "1",
                "-q",
            ],
            "fisher-yates",
        ),
        (
            &["theory", "riffle", "-n", "52", "--passes", "1..10"],
            "riffle",
        ),
    ];
    for (index, (args, expected)) in cases.iter().enumerate() {
        let path = dir.join(format!("{index}.svg"));
        // naive is biased (exit 1); the others exit 0. Either way the picture is written.
        let status = shuffle_bias()
            .args(*args)
            .arg("--plot")
            .arg(&path)
            .output()
            .unwrap()
            .status;
        assert!(matches!(status.code(), Some(0 | 1)), "{args:?}: {status}");
        let svg = std::fs::read_to_string(&path).unwrap();
        let document = roxmltree::Document::parse(&svg).expect("well-formed SVG");
        assert_eq!(document.root_element().tag_name().name(), "svg");
        assert!(
            document
                .descendants()
                .any(|node| node.text().is_some_and(|t| t.contains(expected))),
            "{args:?}: no text naming {expected}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unwritable_plot_fails_before_the_run_with_exit_two() {
    shuffle_bias()
        .args([
            "run",
            "naive",
            "-t",
            "100G",
            "--plot",
            "/nonexistent-dir/x.svg",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--plot /nonexistent-dir/x.svg"));
}

/// The 52 labels of the labelled fixture, spades, hearts, diamonds, clubs.
fn deck_labels() -> String {
    let ranks = [
        "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
    ];
    ["S", "H", "D", "C"]
        .iter()
        .flat_map(|suit| ranks.iter().map(move |rank| format!("{rank}{suit}")))
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn checking_a_runs_52_card_deals_reproduces_its_marginal_tally_and_verdict() {
    // `run --emit-permutations` writes the very shuffles it tallied; `check` of that file (its
    // deck size read off the first line, marginal mode chosen automatically) must tally exactly
    // the same positions, identity and statistics.
    let dir = std::env::temp_dir().join(format!("shuffle-bias-deals-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("riffles.txt");
    let (run, run_code) = json(&[
        "run",
        "riffle",
        "-n",
        "52",
        "--passes",
        "6",
        "-t",
        "3000",
        "--seed",
        "5",
        "-q",
        "--emit-permutations",
        file.to_str().unwrap(),
    ]);
    let (check, check_code) = json(&["check", file.to_str().unwrap(), "-q"]);
    assert_eq!(check["mode"], "marginal");
    assert_eq!(check["deck"], 52);
    assert_eq!(run["positions"]["counts"], check["positions"]["counts"]);
    assert_eq!(run["identity"]["count"], check["identity"]["count"]);
    for (a, b) in run["statistics"]
        .as_array()
        .unwrap()
        .iter()
        .zip(check["statistics"].as_array().unwrap())
    {
        assert_eq!(a["observed"], b["observed"], "{}", a["name"]);
        assert_eq!(a["chi_square"], b["chi_square"], "{}", a["name"]);
    }
    assert_eq!((run_code, check_code), (1, 1));
    // Against the riffle's own law, the same deals fit.
    let (model, code) = json(&[
        "check",
        file.to_str().unwrap(),
        "-q",
        "--against",
        "riffle",
        "--passes",
        "6",
    ]);
    assert_eq!(code, 0, "{}", model["verdict"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn labelled_52_card_deals_are_checked_like_numbered_ones() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/check");
    let labels = deck_labels();
    let (labelled, code) = json(&[
        "check",
        fixtures.join("deal52-labels.txt").to_str().unwrap(),
        "--labels",
        &labels,
        "-q",
    ]);
    assert!(matches!(code, 0 | 1), "{labelled}");
    let (numbered, _) = json(&[
        "check",
        fixtures.join("deal52-zero-based.txt").to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(labelled["mode"], "marginal");
    assert_eq!(
        labelled["positions"]["counts"],
        numbered["positions"]["counts"]
    );
    assert_eq!(
        labelled["statistics"][1]["observed"],
        numbered["statistics"][1]["observed"]
    );
}

#[test]
fn a_bad_52_card_deal_names_its_file_and_line_and_exits_two() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/check");
    for (file, needle) in [
        ("bad-deal52-repeated.txt", "appears twice"),
        ("bad-deal52-too-few.txt", "expected 52 cards"),
        ("bad-deal52-out-of-range.txt", "out of range"),
    ] {
        let path = fixtures.join(file);
        let output = shuffle_bias()
            .args(["check", path.to_str().unwrap(), "-q"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{file}");
        assert!(output.stdout.is_empty(), "{file}: half a report");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(&format!("{file}:")), "{file}: {stderr}");
        assert!(stderr.contains(needle), "{file}: {stderr}");
    }
}

#[test]
fn a_permutations_table_of_a_deck_found_to_be_large_is_refused_with_exit_two() {
    // `--mode auto` learns the deck size from the input; marginal mode has no orderings to list.
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/check");
    let output = shuffle_bias()
        .args(["check", "-q", "--format", "csv", "--table", "permutations"])
        .arg(fixtures.join("deal52-zero-based.txt"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("--table permutations"), "{stderr}");
}
