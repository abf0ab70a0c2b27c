//! Whole outputs with fixed seeds, snapshot-tested (insta): any change in a figure or in the
//! layout shows up in review. Every format of every subcommand is covered; only what depends on
//! the machine or the clock is redacted (wall time, speed, the version), and `--threads 2` is
//! pinned because the report prints the thread count (the counts do not depend on it).
//!
//! Pictures (`--plot`) are too large to review byte by byte: they are snapshotted as a digest
//! (canvas, element counts, the fill colours of the rectangles, every text, the data points).

use std::collections::BTreeMap;

use assert_cmd::Command;
use serde_json::Value;

/// The quick start of the README: naive on 4 cards, a biased shuffle in full mode.
const QUICK_START: &[&str] = &[
    "run",
    "naive",
    "--deck",
    "4",
    "--trials",
    "240k",
    "--seed",
    "42",
    "--threads",
    "2",
    "-q",
];

/// Marginal mode on a real deck: 7 riffles of 52 cards, with the Bayer–Diaconis theory.
const SEVEN_RIFFLES: &[&str] = &[
    "run",
    "riffle",
    "-n",
    "52",
    "--passes",
    "7",
    "-t",
    "2000",
    "--seed",
    "1",
    "--threads",
    "2",
    "-q",
];

/// Marginal mode on a deck small enough for the exact law of every statistic.
const NAIVE_MARGINAL: &[&str] = &[
    "run",
    "naive",
    "-n",
    "5",
    "--mode",
    "marginal",
    "-t",
    "20k",
    "--seed",
    "1",
    "--threads",
    "2",
    "-q",
];

/// The comparison of docs/test-a-shuffle.md: two uniform shuffles, two biased ones.
const FOUR_ALGORITHMS: &[&str] = &[
    "compare",
    "fisher-yates",
    "naive",
    "sattolo",
    "comparator-merge",
    "-n",
    "4",
    "-t",
    "100k",
    "--seed",
    "7",
    "--threads",
    "2",
    "-q",
];

/// Five permutations of four cards, with comments and blank lines (a relative path, so the
/// header that names it is the same on every machine).
const ZERO_BASED_CHECK: &[&str] = &["check", "fixtures/check/zero-based.txt", "-q"];

const NAIVE_THEORY: &[&str] = &["theory", "naive", "-n", "4"];

const RIFFLE_MIXING_CURVE: &[&str] = &["theory", "riffle", "-n", "52", "--passes", "1..12"];

/// `base` followed by `extra`.
fn with(base: &[&'static str], extra: &[&'static str]) -> Vec<&'static str> {
    [base, extra].concat()
}

/// The standard output of a run that succeeded (exit 0, no bias, or 1, bias detected).
fn stdout(args: &[&str]) -> String {
    let output = Command::cargo_bin("shuffle-bias")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap();
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The timing lines of the headers: `seed … · 0.04 s · 45.5 k shuffles/s` (run), `seed … ·
/// 0.01 s` (compare) and `7 lines read · 0.00 s · 48.1 k permutations/s` (check). The run and
/// compare lines are replaced whole; the check line keeps its count of lines.
fn without_timing(text: &str) -> String {
    text.lines()
        .map(|line| {
            if line.starts_with("seed ") && (line.contains("shuffles/s") || line.ends_with(" s")) {
                "seed … (timing redacted)".to_string()
            } else if line.contains(" lines read · ") && line.ends_with("permutations/s") {
                let lines_read = line.split(" · ").next().unwrap();
                format!("{lines_read} · … (timing redacted)")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A CSV table with the timing columns (`elapsed_seconds`, `shuffles_per_second`) redacted.
fn csv_without_timing(text: &str) -> String {
    let mut lines = text.lines();
    let header = lines.next().expect("a header row");
    let columns: Vec<&str> = header.split(',').collect();
    let mut out = vec![header.to_string()];
    for line in lines {
        assert!(!line.contains('"'), "a quoted field in {line}");
        assert_eq!(line.split(',').count(), columns.len(), "{line}");
        let fields: Vec<&str> = line
            .split(',')
            .zip(&columns)
            .map(|(field, column)| match *column {
                "elapsed_seconds" => "[elapsed]",
                "shuffles_per_second" => "[rate]",
                _ => field,
            })
            .collect();
        out.push(fields.join(","));
    }
    out.join("\n")
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&stdout(args)).expect("stdout is JSON")
}

/// Run `--plot` into a temporary file and digest the picture: what a reviewer can read (texts,
/// colours, counts, data points) without the bytes of every path.
fn plot_digest(name: &str, args: &[&str]) -> String {
    let dir = std::env::temp_dir().join(format!("shuffle-bias-snapshots-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.svg"));
    let mut all = args.to_vec();
    all.extend(["--plot", path.to_str().unwrap()]);
    stdout(&all);
    let svg = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    svg_digest(&svg)
}

fn svg_digest(svg: &str) -> String {
    let document = roxmltree::Document::parse(svg).expect("well-formed SVG");
    let root = document.root_element();
    let mut elements: BTreeMap<&str, usize> = BTreeMap::new();
    let mut rect_fills: BTreeMap<&str, usize> = BTreeMap::new();
    let mut texts = Vec::new();
    let mut circles = Vec::new();
    for node in document.descendants().filter(|node| node.is_element()) {
        let tag = node.tag_name().name();
        *elements.entry(tag).or_default() += 1;
        match tag {
            "rect" => {
                *rect_fills
                    .entry(node.attribute("fill").unwrap_or("-"))
                    .or_default() += 1
            }
            "text" => texts.push(node.text().unwrap_or_default().trim().to_string()),
            "circle" => circles.push(format!(
                "({}, {})",
                node.attribute("cx").unwrap_or("?"),
                node.attribute("cy").unwrap_or("?")
            )),
            _ => {}
        }
    }
    let mut out = format!(
        "canvas {} × {}\nelements: {}\n",
        root.attribute("width").unwrap_or("?"),
        root.attribute("height").unwrap_or("?"),
        elements
            .iter()
            .map(|(tag, count)| format!("{tag} {count}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let fills: Vec<String> = rect_fills
        .iter()
        .map(|(fill, count)| format!("{fill} ×{count}"))
        .collect();
    out.push_str(&format!("rect fills ({} colours):", fills.len()));
    for chunk in fills.chunks(8) {
        out.push_str(&format!("\n  {}", chunk.join(" ")));
    }
    out.push_str(&format!("\ncircle centres ({}):", circles.len()));
    for chunk in circles.chunks(8) {
        out.push_str(&format!("\n  {}", chunk.join(" ")));
    }
    out.push_str(&format!("\ntexts ({}):\n", texts.len()));
    for text in &texts {
        out.push_str(&format!("  {text}\n"));
    }
    out
}

/// Snapshot a table or Markdown report, its command line in the snapshot's header.
macro_rules! assert_text_snapshot {
    ($args:expr) => {{
        let args = $args;
        insta::with_settings!({
            description => format!("shuffle-bias {}", args.join(" ")),
            omit_expression => true,
        }, {
            insta::assert_snapshot!(without_timing(&stdout(&args)));
        });
    }};
}

/// Snapshot a CSV table, timing columns redacted.
macro_rules! assert_csv_snapshot {
    ($args:expr) => {{
        let args = $args;
        insta::with_settings!({
            description => format!("shuffle-bias {}", args.join(" ")),
            omit_expression => true,
        }, {
            insta::assert_snapshot!(csv_without_timing(&stdout(&args)));
        });
    }};
}

/// Snapshot a JSON report with the house redactions (version, wall time, speed).
macro_rules! assert_json_report_snapshot {
    ($args:expr) => {{
        let args = $args;
        insta::with_settings!({
            description => format!("shuffle-bias {}", args.join(" ")),
            omit_expression => true,
        }, {
            insta::assert_json_snapshot!(json(&args), {
                ".version" => "[version]",
                ".elapsed_seconds" => "[elapsed]",
                ".shuffles_per_second" => "[rate]",
            });
        });
    }};
}

/// Snapshot the digest of a `--plot` picture.
macro_rules! assert_plot_snapshot {
    ($name:expr, $args:expr) => {{
        let args = $args;
        insta::with_settings!({
            description => format!("shuffle-bias {} --plot FILE.svg (digest)", args.join(" ")),
            omit_expression => true,
        }, {
            insta::assert_snapshot!(plot_digest($name, &args));
        });
    }};
}

#[test]
fn theory_table_of_the_naive_shuffle_on_four_cards() {
    insta::assert_snapshot!(stdout(&["theory", "naive", "-n", "4"]));
}

#[test]
fn theory_json_of_the_timsort_comparator_on_four_cards() {
    let json: serde_json::Value = serde_json::from_str(&stdout(&[
        "theory",
        "comparator-timsort",
        "-n",
        "4",
        "--format",
        "json",
    ]))
    .unwrap();
    insta::assert_json_snapshot!(json, { ".version" => "[version]" });
}

#[test]
fn run_table_of_the_quick_start() {
    let text = stdout(&[
        "run",
        "naive",
        "--deck",
        "4",
        "--trials",
        "240k",
        "--seed",
        "42",
        "--threads",
        "2",
        "-q",
    ]);
    insta::assert_snapshot!(without_timing(&text));
}

#[test]
fn run_json_of_sattolo_against_its_model() {
    let json: serde_json::Value = serde_json::from_str(&stdout(&[
        "run",
        "sattolo",
        "-n",
        "4",
        "-t",
        "100k",
        "--seed",
        "3",
        "--threads",
        "2",
        "-q",
        "--against",
        "model",
        "--format",
        "json",
    ]))
    .unwrap();
    insta::assert_json_snapshot!(json, {
        ".version" => "[version]",
        ".elapsed_seconds" => "[elapsed]",
        ".shuffles_per_second" => "[rate]",
    });
}

#[test]
fn run_csv_tests_table_of_comparator_merge() {
    insta::assert_snapshot!(stdout(&[
        "run",
        "comparator-merge",
        "-n",
        "5",
        "-t",
        "500k",
        "--seed",
        "9",
        "--threads",
        "2",
        "-q",
        "--format",
        "csv",
        "--table",
        "tests",
    ]));
}

// `run`, full mode: the quick start in every format and every CSV table.

#[test]
fn run_markdown_of_the_quick_start() {
    assert_text_snapshot!(with(QUICK_START, &["--format", "markdown"]));
}

#[test]
fn run_json_of_the_quick_start() {
    assert_json_report_snapshot!(with(QUICK_START, &["--format", "json"]));
}

#[test]
fn run_csv_summary_of_the_quick_start() {
    assert_csv_snapshot!(with(
        QUICK_START,
        &["--format", "csv", "--table", "summary"]
    ));
}

#[test]
fn run_csv_tests_of_the_quick_start() {
    assert_csv_snapshot!(with(QUICK_START, &["--format", "csv", "--table", "tests"]));
}

#[test]
fn run_csv_permutations_of_the_quick_start() {
    assert_csv_snapshot!(with(
        QUICK_START,
        &["--format", "csv", "--table", "permutations"]
    ));
}

#[test]
fn run_csv_positions_of_the_quick_start() {
    assert_csv_snapshot!(with(
        QUICK_START,
        &["--format", "csv", "--table", "positions"]
    ));
}

// `run`, marginal mode: a 52-card deck (closed-form theory) and a 5-card deck (exact law).

#[test]
fn run_table_of_seven_riffles_of_a_full_deck() {
    assert_text_snapshot!(SEVEN_RIFFLES.to_vec());
}

#[test]
fn run_markdown_of_seven_riffles_of_a_full_deck() {
    assert_text_snapshot!(with(SEVEN_RIFFLES, &["--format", "markdown"]));
}

#[test]
fn run_json_of_seven_riffles_of_a_full_deck() {
    assert_json_report_snapshot!(with(SEVEN_RIFFLES, &["--format", "json"]));
}

#[test]
fn run_csv_statistics_of_seven_riffles_of_a_full_deck() {
    assert_csv_snapshot!(with(
        SEVEN_RIFFLES,
        &["--format", "csv", "--table", "statistics"]
    ));
}

#[test]
fn run_csv_summary_of_seven_riffles_of_a_full_deck() {
    assert_csv_snapshot!(with(
        SEVEN_RIFFLES,
        &["--format", "csv", "--table", "summary"]
    ));
}

#[test]
fn run_table_of_the_naive_shuffle_on_five_cards_in_marginal_mode() {
    assert_text_snapshot!(NAIVE_MARGINAL.to_vec());
}

#[test]
fn run_markdown_of_the_naive_shuffle_on_five_cards_in_marginal_mode() {
    assert_text_snapshot!(with(NAIVE_MARGINAL, &["--format", "markdown"]));
}

#[test]
fn run_json_of_the_naive_shuffle_on_five_cards_in_marginal_mode() {
    assert_json_report_snapshot!(with(NAIVE_MARGINAL, &["--format", "json"]));
}

#[test]
fn run_csv_statistics_of_the_naive_shuffle_on_five_cards_in_marginal_mode() {
    assert_csv_snapshot!(with(
        NAIVE_MARGINAL,
        &["--format", "csv", "--table", "statistics"]
    ));
}

#[test]
fn run_csv_summary_of_the_naive_shuffle_on_five_cards_in_marginal_mode() {
    assert_csv_snapshot!(with(
        NAIVE_MARGINAL,
        &["--format", "csv", "--table", "summary"]
    ));
}

// `compare`.

#[test]
fn compare_table_of_four_algorithms_on_four_cards() {
    assert_text_snapshot!(FOUR_ALGORITHMS.to_vec());
}

#[test]
fn compare_markdown_of_four_algorithms_on_four_cards() {
    assert_text_snapshot!(with(FOUR_ALGORITHMS, &["--format", "markdown"]));
}

#[test]
fn compare_json_of_four_algorithms_on_four_cards() {
    assert_json_report_snapshot!(with(FOUR_ALGORITHMS, &["--format", "json"]));
}

#[test]
fn compare_csv_of_four_algorithms_on_four_cards() {
    assert_csv_snapshot!(with(FOUR_ALGORITHMS, &["--format", "csv"]));
}

// `check`: a committed fixture, against uniform and against an algorithm it cannot come from.

#[test]
fn check_table_of_the_zero_based_fixture() {
    assert_text_snapshot!(ZERO_BASED_CHECK.to_vec());
}

#[test]
fn check_markdown_of_the_zero_based_fixture() {
    assert_text_snapshot!(with(ZERO_BASED_CHECK, &["--format", "markdown"]));
}

#[test]
fn check_json_of_the_zero_based_fixture() {
    assert_json_report_snapshot!(with(ZERO_BASED_CHECK, &["--format", "json"]));
}

#[test]
fn check_csv_summary_of_the_zero_based_fixture() {
    assert_csv_snapshot!(with(
        ZERO_BASED_CHECK,
        &["--format", "csv", "--table", "summary"]
    ));
}

#[test]
fn check_table_of_the_zero_based_fixture_against_sattolo() {
    assert_text_snapshot!(with(ZERO_BASED_CHECK, &["--against", "sattolo"]));
}

#[test]
fn check_json_of_the_zero_based_fixture_against_sattolo() {
    assert_json_report_snapshot!(with(
        ZERO_BASED_CHECK,
        &["--against", "sattolo", "--format", "json"]
    ));
}

// `theory`: one exact law in the formats not covered above, and the riffle's mixing curve.

#[test]
fn theory_markdown_of_the_naive_shuffle_on_four_cards() {
    assert_text_snapshot!(with(NAIVE_THEORY, &["--format", "markdown"]));
}

#[test]
fn theory_csv_summary_of_the_naive_shuffle_on_four_cards() {
    assert_csv_snapshot!(with(
        NAIVE_THEORY,
        &["--format", "csv", "--table", "summary"]
    ));
}

#[test]
fn theory_csv_permutations_of_the_naive_shuffle_on_four_cards() {
    assert_csv_snapshot!(with(
        NAIVE_THEORY,
        &["--format", "csv", "--table", "permutations"]
    ));
}

#[test]
fn theory_csv_positions_of_the_naive_shuffle_on_four_cards() {
    assert_csv_snapshot!(with(
        NAIVE_THEORY,
        &["--format", "csv", "--table", "positions"]
    ));
}

#[test]
fn theory_table_of_the_riffle_mixing_curve_on_a_full_deck() {
    assert_text_snapshot!(RIFFLE_MIXING_CURVE.to_vec());
}

/// The shelf shuffler's distances of docs/big-decks.md: one to three passes of ten shelves, 52 cards.
const SHELF_DISTANCES: &[&str] = &["theory", "shelf", "-n", "52", "--passes", "1..3"];

#[test]
fn theory_table_of_the_shelf_shuffler_distances_on_a_full_deck() {
    assert_text_snapshot!(SHELF_DISTANCES.to_vec());
}

#[test]
fn theory_json_of_the_shelf_shuffler_distances_on_a_full_deck() {
    assert_json_report_snapshot!(with(SHELF_DISTANCES, &["--format", "json"]));
}

#[test]
fn theory_markdown_of_the_riffle_mixing_curve_on_a_full_deck() {
    assert_text_snapshot!(with(RIFFLE_MIXING_CURVE, &["--format", "markdown"]));
}

#[test]
fn theory_json_of_the_riffle_mixing_curve_on_a_full_deck() {
    assert_json_report_snapshot!(with(RIFFLE_MIXING_CURVE, &["--format", "json"]));
}

#[test]
fn theory_csv_of_the_riffle_mixing_curve_on_a_full_deck() {
    assert_csv_snapshot!(with(RIFFLE_MIXING_CURVE, &["--format", "csv"]));
}

// `list`.

#[test]
fn list_table_of_the_algorithms() {
    assert_text_snapshot!(vec!["list"]);
}

#[test]
fn list_markdown_of_the_algorithms() {
    assert_text_snapshot!(vec!["list", "--format", "markdown"]);
}

#[test]
fn list_json_of_the_algorithms() {
    assert_json_report_snapshot!(vec!["list", "--format", "json"]);
}

#[test]
fn list_csv_of_the_algorithms() {
    // The definitions hold commas, so they are quoted: no timing column to redact here.
    insta::with_settings!({
        description => "shuffle-bias list --format csv",
        omit_expression => true,
    }, {
        insta::assert_snapshot!(stdout(&["list", "--format", "csv"]));
    });
}

// `--plot`: digests of the pictures.

#[test]
fn plot_of_the_quick_start_digested() {
    assert_plot_snapshot!("quick-start", QUICK_START.to_vec());
}

#[test]
fn plot_of_four_algorithms_compared_digested() {
    assert_plot_snapshot!("compare", FOUR_ALGORITHMS.to_vec());
}

#[test]
fn plot_of_the_riffle_mixing_curve_digested() {
    assert_plot_snapshot!("mixing-curve", RIFFLE_MIXING_CURVE.to_vec());
}

/// `--until-decided` on the quick start: where it stops, the sequential section and the verdict.
const QUICK_START_UNTIL_DECIDED: &[&str] = &[
    "run",
    "naive",
    "--deck",
    "4",
    "--trials",
    "240k",
    "--seed",
    "42",
    "--threads",
    "2",
    "-q",
    "--until-decided",
];

#[test]
fn run_table_of_the_quick_start_until_decided() {
    insta::assert_snapshot!(without_timing(&stdout(QUICK_START_UNTIL_DECIDED)));
}

#[test]
fn run_json_sequential_part_of_the_quick_start_until_decided() {
    let json = json(&with(QUICK_START_UNTIL_DECIDED, &["--format", "json"]));
    insta::assert_json_snapshot!(serde_json::json!({
        "trials": json["trials"],
        "bias_detected": json["bias_detected"],
        "verdict": json["verdict"],
        "notes": json["notes"],
        "sequential": json["sequential"],
    }));
}

#[test]
fn run_csv_summary_of_the_quick_start_until_decided() {
    let text = stdout(&with(QUICK_START_UNTIL_DECIDED, &["--format", "csv"]));
    insta::assert_snapshot!(csv_without_timing(&text));
}

#[test]
fn plot_of_the_quick_start_until_decided_digested() {
    insta::assert_snapshot!(plot_digest(
        "quick-start-until-decided",
        QUICK_START_UNTIL_DECIDED
    ));
}
