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
            "adjacent-pairs",
            "descents",
            "inversions",
            "longest-increasing",
            "footrule",
            "valleys",
            "guessing",
            "colour-changes"
        ]
    );
    // 52 position tests, the identity, 11 statistics and the deal-stream tests (repeated decks,
    // serial matches, serial slots, serial Mallows MMD) form the family.
    assert_eq!(report["tests"].as_array().unwrap().len(), 52 + 1 + 11 + 4);
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

/// A scratch directory for one test, named after it and the process.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("shuffle-bias-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn test_named<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test {name}"))
}

#[test]
fn fisher_yates_deals_checked_against_one_riffle_are_rejected_not_passed() {
    // Regression: one riffle of 52 cards has 1 or 2 rising sequences (Bayer & Diaconis 1992),
    // so pooling its law gave a single cell and the test of 2,000 uniform deals (mean 26.5
    // rising sequences) said "nothing to test" and the check passed with exit 0.
    let dir = scratch("false-pass");
    let file = dir.join("d.txt");
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "52",
            "-t",
            "2000",
            "--seed",
            "1",
        ])
        .args(["-q", "-o", "/dev/null", "--emit-permutations"])
        .arg(&file)
        .assert()
        .success();
    let (report, code) = json(&["check", file.to_str().unwrap(), "-q", "--against", "riffle"]);
    assert_eq!(code, 1, "{}", report["verdict"]);
    let rising = test_named(&report, "rising-sequences");
    assert_eq!(rising["rejected"], true);
    assert_eq!(rising["log10_p_value"], Value::Null, "p = 0 exactly");
    let note = rising["note"].as_str().unwrap();
    assert!(
        note.contains("impossible under the hypothesis but were seen 2000 times"),
        "{note}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_riffle_against_its_own_law_passes_when_pooling_leaves_one_cell() {
    // One riffle of 52 cards: P(R = 1) = C(53, 52)/2^52 = 53/2^52 ≈ 1.18e−14, P(R = 2) the
    // rest, so 2,000 trials expect 2.4e−11 shuffles at R = 1 and pooling leaves one cell: the
    // rising-sequences test is the exact binomial test of K, the shuffles outside R = 2.
    // Under the riffle's own law K ~ Bin(2000, 53/2^52). K = 0 gives p = 1; only K ≥ 1 can
    // reject, which happens with probability at most 2000·53/2^52 ≈ 2.4e−11 per seed (the
    // identity test is the same event, R = 1 being the identity). So these fixed seeds cannot
    // fail by luck beyond 1e−10 together, while the test is live (the regression test above
    // rejects through it).
    for seed in ["1", "2", "3"] {
        let (report, code) = json(&[
            "run",
            "riffle",
            "-n",
            "52",
            "-t",
            "2000",
            "--seed",
            seed,
            "-q",
            "--against",
            "model",
        ]);
        assert_eq!(code, 0, "seed {seed}: {}", report["verdict"]);
        let rising = test_named(&report, "rising-sequences");
        assert_eq!(rising["method"], "exact-binomial-outside-mode");
        assert_eq!(rising["statistic"], 0.0);
        assert_eq!(rising["p_value"], 1.0);
        let statistic = &report["statistics"][0];
        assert_eq!(statistic["name"], "rising-sequences");
        assert_eq!(statistic["bins"].as_array().unwrap().len(), 1);
    }
}

/// 2,000 lines of `n`-card deals: 1,999 from the run `args` (seed 3), then the identity.
fn deals_ending_in_the_identity(dir: &std::path::Path, args: &[&str], n: usize) -> String {
    let file = dir.join("deals.txt");
    shuffle_bias()
        .args(args)
        .args(["-n", &n.to_string(), "-t", "1999", "--seed", "3"])
        .args(["-q", "-o", "/dev/null", "--emit-permutations"])
        .arg(&file)
        .assert()
        .code(predicates::ord::lt(2)); // 0 or 1: a riffle is biased against uniform
    let identity: Vec<String> = (0..n).map(|card| card.to_string()).collect();
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str(&identity.join(" "));
    text.push('\n');
    std::fs::write(&file, text).unwrap();
    file.to_str().unwrap().to_string()
}

#[test]
fn the_identity_of_200_cards_is_rare_not_impossible() {
    // 1/200! is 0 as an f64, and the identity test used to call the deck's starting order
    // impossible. A uniform run sees no identity: p = 1.
    let (run, code) = json(&[
        "run",
        "fisher-yates",
        "-n",
        "200",
        "-t",
        "1000",
        "--seed",
        "3",
        "-q",
    ]);
    assert_eq!(code, 0, "{}", run["verdict"]);
    let identity = test_named(&run, "identity");
    assert_eq!(identity["rejected"], false);
    assert_eq!(identity["p_value"], 1.0);
    assert_eq!(identity["note"], Value::Null);
    // Seen once in N = 2000 deals, the identity is overwhelming evidence, with a real p-value:
    // P(X ≥ 1) = 1 − (1 − 1/200!)^N = N/200!·(1 − O(N/200!)), doubled for the two-sided test,
    // so log10 p = log10 2 + log10 2000 − log10 200! (log10 200! = 374.8968886400402524,
    // mpmath), which the JSON writes exactly.
    let dir = scratch("identity-200");
    let file = deals_ending_in_the_identity(&dir, &["run", "fisher-yates"], 200);
    let (check, _) = json(&["check", &file, "-q"]);
    let identity = test_named(&check, "identity");
    assert_eq!(identity["note"], Value::Null, "not impossible");
    let log10_p = identity["log10_p_value"].as_f64().unwrap();
    let expected = 2f64.log10() + 2000f64.log10() - 374.896_888_640_040_25;
    assert!((log10_p - expected).abs() < 1e-9, "{log10_p} vs {expected}");
    assert_eq!(identity["rejected"], true);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn seven_riffles_of_200_cards_keep_a_sane_identity_test_against_their_law() {
    // P(identity) after 7 riffles of 200 cards is C(327, 200)/2^1400 ≈ 10^−327.9 (Bayer &
    // Diaconis 1992), 0 as an f64. Against the model, 1000 riffles see no identity: p = 1.
    let (run, code) = json(&[
        "run",
        "riffle",
        "-n",
        "200",
        "--passes",
        "7",
        "-t",
        "1000",
        "--seed",
        "3",
        "-q",
        "--against",
        "model",
    ]);
    assert_eq!(code, 0, "{}", run["verdict"]);
    let identity = test_named(&run, "identity");
    assert_eq!(identity["p_value"], 1.0);
    assert_eq!(identity["note"], Value::Null);
    // Once in 2000 riffled deals: log10 p = log10 2 + log10 2000 + log10 C(327, 200) − 1400
    // log10 2, the binomial coefficient summed here term by term; R = 1 is possible under the
    // riffle, so rising sequences do not reject outright either.
    let dir = scratch("riffle-200");
    let file = deals_ending_in_the_identity(&dir, &["run", "riffle", "--passes", "7"], 200);
    let (check, _) = json(&["check", &file, "-q", "--against", "riffle", "--passes", "7"]);
    let identity = test_named(&check, "identity");
    assert_eq!(identity["note"], Value::Null, "not impossible");
    let log10_choose: f64 = (1..=127)
        .map(|i| ((200 + i) as f64 / i as f64).log10())
        .sum();
    let expected = 2f64.log10() + 2000f64.log10() + log10_choose - 1400.0 * 2f64.log10();
    let log10_p = identity["log10_p_value"].as_f64().unwrap();
    assert!((log10_p - expected).abs() < 1e-9, "{log10_p} vs {expected}");
    let rising = test_named(&check, "rising-sequences");
    assert_ne!(rising["log10_p_value"], Value::Null, "R = 1 is possible");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn statistics_beyond_their_exact_laws_deck_are_left_out_with_a_note() {
    // 120 cards: past the longest increasing subsequence's 56 and the footrule's 100, within the
    // inversions' 300.
    let (report, _) = json(&[
        "run",
        "fisher-yates",
        "--deck",
        "120",
        "-t",
        "300",
        "--seed",
        "3",
        "-q",
        "--no-deal-tests",
    ]);
    let names: Vec<&str> = report["statistics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"inversions") && names.contains(&"descents"));
    assert!(!names.contains(&"longest-increasing") && !names.contains(&"footrule"));
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("longest-increasing (up to 56 cards), footrule (up to 100 cards)"),
        "{notes}"
    );
}

#[test]
fn a_fair_shuffle_on_fewer_trials_than_cards_is_not_called_biased() {
    // Null: Fisher–Yates with ChaCha8 is exactly uniform. At 1,000 cards and 20 shuffles each
    // card is expected 0.02 times at a position; Pearson's χ² over the 1,000 cards is then far
    // from its chi-square law (three shuffles putting one card at the same place, about once
    // among 1,000 positions by chance, gave p ≈ 3·10⁻⁹), and 15 of 20 fair runs were called
    // biased. With the cards pooled into groups expected 5 times each, each run's family keeps
    // its level α = 0.001 (Holm), so among these 20 fixed-seed runs two or more rejections have
    // probability at most C(20, 2)·α² ≈ 2·10⁻⁴; none is allowed here beyond one.
    let mut rejected = Vec::new();
    for (deck, trials, seeds) in [("1000", "20", 1..=10), ("200", "50", 1..=10)] {
        for seed in seeds {
            let seed = seed.to_string();
            let (report, code) = json(&[
                "run",
                "fisher-yates",
                "-n",
                deck,
                "-t",
                trials,
                "--seed",
                &seed,
                "-q",
            ]);
            let position = report["tests"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == "position 0")
                .unwrap();
            assert!(
                position["note"].as_str().unwrap().contains("pooled into"),
                "{position}"
            );
            if code != 0 {
                rejected.push(format!(
                    "-n {deck} -t {trials} --seed {seed}: {}",
                    report["verdict"]
                ));
            }
        }
    }
    assert!(rejected.len() <= 1, "{rejected:#?}");
}
