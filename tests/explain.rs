//! `--explain`: the diagnosis names the bug of every built-in biased algorithm at 5 cards from
//! a fixed-seed tally (the unshuffled deck included), gives Fisher–Yates none, names an
//! off-by-one stream and a modulo-biased one by their signatures and models, reads only
//! signatures in marginal mode, and is absent without the flag.
//!
//! The trials of each run are justified by [`trials_to_tell_apart`], computed from the exact
//! laws, and checked before the run.

mod common;

use common::shuffle_bias;
use serde_json::Value;
use shuffle_bias::analysis::diagnosis::model_grid;
use shuffle_bias::stats::chi_square::chi_square_critical;
use shuffle_bias::theory::exact::{ChoiceLaw, Law, exact_law_under};
use shuffle_bias::{Algorithm, Shuffle};

/// The fits' level, the default `--alpha`.
const ALPHA: f64 = 0.001;

/// Trials after which the fit tells the law `truth` (labelled `label`) from every other model
/// of the grid. Against a wrong model q, Pearson's χ² over N decks is about noncentral
/// χ²(df, λ) with λ = N · Σ (p − q)² / q (Patnaik 1949): mean df + λ, standard deviation
/// √(2(df + 2λ)). With df = 119 (5 cards; pooling only lowers df and the critical value c), q
/// is rejected at α = 0.001 all but surely when the mean minus 5 standard deviations clears c
/// (≈ 173.6). A wrong model that cannot produce decks of total probability g under the truth is
/// ruled out by the first such deck: all but surely once (1 − g)^N < 10^−9. The true model
/// itself fits with probability 1 − α. The smallest N (to a power of two) meeting all that.
fn trials_to_tell_apart(truth: &Law, label: &str) -> u64 {
    let df = 119.0;
    let critical = chi_square_critical(df, ALPHA);
    let mut needed = 1u64;
    for model in model_grid() {
        if model.label() == label {
            continue;
        }
        let law = exact_law_under(model.shuffle, truth.deck, u64::MAX, model.choices).unwrap();
        let (mut distance, mut gap) = (0.0, 0.0);
        for (&p, &q) in truth.probabilities.iter().zip(&law.probabilities) {
            if q > 0.0 {
                distance += (p - q) * (p - q) / q;
            } else {
                gap += p;
            }
        }
        let enough = |n: f64| {
            let lambda = n * distance;
            let by_fit = df + lambda - 5.0 * (2.0 * (df + 2.0 * lambda)).sqrt() > critical;
            let by_gap = gap > 0.0 && n * (1.0 - gap).ln() < -9.0 * std::f64::consts::LN_10;
            by_fit || by_gap
        };
        let mut n = 1u64;
        while !enough(n as f64) {
            n *= 2;
            assert!(
                n < 1 << 40,
                "{label} and {} are not told apart",
                model.label()
            );
        }
        needed = needed.max(n);
    }
    needed
}

/// The JSON report of `shuffle-bias ARGS --explain --format json`.
fn explained(args: &[&str]) -> Value {
    let output = shuffle_bias()
        .args(args)
        .args(["--explain", "--format", "json", "--quiet"])
        .output()
        .unwrap();
    assert!(
        output.status.code() == Some(0) || output.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn signature_kinds(report: &Value) -> Vec<String> {
    report["diagnosis"]["signatures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["kind"].as_str().unwrap().to_string())
        .collect()
}

/// One million decks: at least what [`trials_to_tell_apart`] asks of every built-in biased
/// algorithm at 5 cards (checked in the test, which prints the figure when it fails).
const TRIALS: u64 = 1_000_000;

#[test]
fn the_diagnosis_names_every_built_in_biased_algorithm_at_five_cards() {
    let cases: [(&str, &[&str], &str); 14] = [
        ("naive", &[], "naive"),
        ("naive-off-by-one", &[], "naive-off-by-one"),
        ("sattolo", &[], "sattolo"),
        ("comparator-insertion", &[], "comparator-insertion"),
        ("comparator-merge", &[], "comparator-merge"),
        ("comparator-quick", &[], "comparator-quick"),
        ("comparator-timsort", &[], "comparator-timsort"),
        ("zend-sort", &[], "zend-sort"),
        ("zend-sort-coin", &[], "zend-sort-coin"),
        ("zend-sort-stable", &[], "zend-sort-stable"),
        ("riffle", &[], "riffle"),
        ("overhand", &[], "overhand · cut probability 0.5"),
        ("shelf", &[], "shelf · 10 shelves"),
        ("unshuffled", &[], "unshuffled"),
    ];
    for (algorithm, extra, label) in cases {
        let shuffle: Algorithm = clap::ValueEnum::from_str(algorithm, false).unwrap();
        let truth = exact_law_under(Shuffle::once(shuffle), 5, u64::MAX, None).unwrap();
        let needed = trials_to_tell_apart(&truth, label);
        assert!(
            TRIALS >= needed,
            "{algorithm}: {needed} trials needed to tell it from the other models"
        );
        let trials = TRIALS.to_string();
        let mut args = vec!["run", algorithm, "-n", "5", "-t", &trials, "--seed", "29"];
        args.extend_from_slice(extra);
        let report = explained(&args);
        assert_eq!(
            report["diagnosis"]["suspect"], label,
            "{algorithm}: {}",
            report["diagnosis"]["finding"]
        );
        let best = &report["diagnosis"]["fits"][0];
        assert_eq!(best["model"], label);
        assert_eq!(best["fits"], true);
    }
}

#[test]
fn fisher_yates_is_given_no_bug() {
    let report = explained(&["run", "fisher-yates", "-n", "5", "-t", "1M", "--seed", "29"]);
    let diagnosis = &report["diagnosis"];
    assert_eq!(diagnosis["suspect"], Value::Null);
    assert!(
        diagnosis["finding"]
            .as_str()
            .unwrap()
            .starts_with("No bug seen"),
        "{}",
        diagnosis["finding"]
    );
    assert_eq!(signature_kinds(&report), Vec::<String>::new());
    let uniform = diagnosis["fits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|fit| fit["uniform"] == true)
        .unwrap();
    assert_eq!(uniform["fits"], true);
}

/// SplitMix64 (Steele, Lea & Flood 2014): a small fixed-seed source for the streams written
/// here, independent of the tool's own generators.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, k: u64) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        // The high half of z · k: a bias below k / 2^64, far beneath what 20,000 decks see.
        ((u128::from(z) * u128::from(k)) >> 64) as usize
    }
}

/// `decks` decks of 5 cards from `for i in 0..5: swap(i, partner(i))`, one per line.
fn swap_stream(decks: usize, mut partner: impl FnMut(&mut SplitMix) -> usize) -> String {
    let mut rng = SplitMix(29);
    let mut text = String::new();
    for _ in 0..decks {
        let mut deck = [0, 1, 2, 3, 4];
        for i in 0..5 {
            let j = partner(&mut rng);
            deck.swap(i, j);
        }
        let line: Vec<String> = deck.iter().map(|c| c.to_string()).collect();
        text.push_str(&line.join(" "));
        text.push('\n');
    }
    text
}

/// Check the stream `text` with `--explain`.
fn check_explained(text: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("decks.txt");
    std::fs::write(&path, text).unwrap();
    explained(&["check", path.to_str().unwrap()])
}

// 20,000 decks: uniform leaves the last card last in 1 deck in 5, so none in 20,000 has
// probability 0.8^20000 ≈ 10^−1938, far below α/6.

#[test]
fn planet_poker_s_off_by_one_range_is_named_by_its_model_and_the_last_card_never_last() {
    // Planet Poker's `for ctr := 1 to 52: swap(card[ctr], card[random(51)+1])` swaps with a
    // card among the first 51 of 52: 0-based, `swap(i, below(n − 1))`, never the last place.
    // That loop is the built-in `naive-off-by-one`, whose exact law the stream fits.
    let report = check_explained(&swap_stream(20_000, |rng| rng.below(4)));
    assert_eq!(signature_kinds(&report), ["last-never-last"]);
    assert_eq!(report["diagnosis"]["suspect"], "naive-off-by-one");
}

#[test]
fn a_partner_drawn_from_one_to_n_minus_one_is_named_by_the_first_card_never_first() {
    // The loop `swap(i, 1 + below(n − 1))`: the partner is never place 0.
    let report = check_explained(&swap_stream(20_000, |rng| 1 + rng.below(4)));
    let kinds = signature_kinds(&report);
    assert!(
        kinds.contains(&"first-never-first".to_string()),
        "{kinds:?}"
    );
    assert!(!kinds.contains(&"last-never-last".to_string()), "{kinds:?}");
}

#[test]
fn a_modulo_biased_fisher_yates_shows_the_modulo_pattern_and_fits_its_model() {
    // 8-bit words mod k: at 5 cards the last place takes card 0 with probability 52/256 =
    // 0.203125 against 0.2. The step test's z over N decks is 0.003125 · √N / √(0.2 · 0.8),
    // ≈ 17 at N = 5M, against the level's z ≈ 4.3 (α/6 over 8 splits, one-sided).
    let label = "fisher-yates · word mod k, 8-bit words";
    let law = exact_law_under(
        Shuffle::once(Algorithm::FisherYates),
        5,
        u64::MAX,
        Some(ChoiceLaw {
            mapping: shuffle_bias::engine::mapping::Mapping::Modulo,
            bits: 8,
        }),
    )
    .unwrap();
    let needed = trials_to_tell_apart(&law, label);
    let trials: u64 = 5_000_000;
    assert!(trials >= needed, "{needed} trials needed");
    let report = explained(&[
        "run",
        "fisher-yates",
        "-n",
        "5",
        "-t",
        &trials.to_string(),
        "--seed",
        "29",
        "--map",
        "modulo",
        "--bits",
        "8",
    ]);
    assert_eq!(signature_kinds(&report), ["modulo-pattern"]);
    assert_eq!(report["diagnosis"]["suspect"], label);
}

#[test]
fn marginal_mode_reads_the_signatures_only_and_says_so() {
    let report = explained(&["run", "sattolo", "-n", "20", "-t", "2000", "--seed", "29"]);
    let diagnosis = &report["diagnosis"];
    assert_eq!(diagnosis["fits"].as_array().unwrap().len(), 0);
    assert!(
        diagnosis["limitation"]
            .as_str()
            .unwrap()
            .contains("full mode"),
        "{}",
        diagnosis["limitation"]
    );
    assert_eq!(signature_kinds(&report), ["no-fixed-point"]);
}

#[test]
fn without_explain_the_report_has_no_diagnosis() {
    let output = shuffle_bias()
        .args([
            "run", "naive", "-n", "4", "-t", "10k", "--seed", "1", "--format", "json",
        ])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(report.get("diagnosis").is_none());
    let output = shuffle_bias()
        .args(["run", "naive", "-n", "4", "-t", "10k", "--seed", "1"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&output.stdout).contains("Diagnosis"));
}

#[test]
fn the_table_and_markdown_show_the_diagnosis_section() {
    for format in ["table", "markdown"] {
        let output = shuffle_bias()
            .args([
                "run",
                "naive",
                "-n",
                "4",
                "-t",
                "100k",
                "--seed",
                "1",
                "--explain",
            ])
            .args(["--format", format])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(text.contains("Diagnosis (--explain)"), "{format}: {text}");
        assert!(text.contains("Looks like naive"), "{format}: {text}");
    }
}

#[test]
fn explain_is_refused_with_dealt_hands() {
    shuffle_bias()
        .args(["check", "--deal", "5", "--deck", "52", "--explain", "-"])
        .write_stdin("0 1 2 3 4\n")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--explain"));
}

#[test]
fn the_naive_tilt_is_seen_on_a_full_deck_in_marginal_mode_and_not_on_fisher_yates() {
    // On 52 cards the naive shuffle puts card c at c − 1 about 2.41% of the time against
    // uniform's 1.92% (a seeded 100k run): over 51 cards and N decks the ridge's z is about
    // 0.0049 · 51 · √N ≈ 35 at N = 20k, against the level's z ≈ 3.9 (α/6); and it puts card 1
    // first 2.5% of the time against 1.4% for card 51, 7.8 standard deviations apart at 20k.
    let naive = explained(&["run", "naive", "-n", "52", "-t", "20k", "--seed", "29"]);
    assert_eq!(signature_kinds(&naive), ["naive-tilt"]);
    let fair = explained(&[
        "run",
        "fisher-yates",
        "-n",
        "52",
        "-t",
        "20k",
        "--seed",
        "29",
    ]);
    assert_eq!(signature_kinds(&fair), Vec::<String>::new());
}
