//! The report model of `compare`: several algorithms run with the same settings, one row each.
//!
//! Each row is distilled from the full [`RunReport`] of that algorithm (built by the same
//! [`crate::report::run::build_run_report`] as `run`, against uniform), so `compare` judges exactly
//! as `run` would. A row also says whether its verdict is the one expected of the algorithm
//! (uniform ones pass, biased ones are detected): that is what makes `compare` usable as a
//! self-test in CI.

use schemars::JsonSchema;
use serde::Serialize;

use crate::engine::random_source::RngKind;
use crate::report::notes::{AlgorithmWarning, MAX_LISTED_DECK, Note, Warning};
use crate::report::run::{PermutationTable, PositionDeviation, RunReport};

/// One algorithm's line in the comparison.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CompareRow {
    /// The algorithm's name.
    pub algorithm: &'static str,
    /// Its exact definition.
    pub definition: &'static str,
    /// Whether it is meant to be uniform.
    pub meant_uniform: bool,
    /// Shuffles tallied.
    pub trials: u64,
    /// Pearson's χ² of the permutations test against uniform.
    pub chi_square: f64,
    /// Its degrees of freedom.
    pub df: f64,
    /// Its p-value (null below 1e-300; then read `log10_p_value`).
    pub p_value: Option<f64>,
    /// log10 of that p-value.
    pub log10_p_value: f64,
    /// The smallest Holm-adjusted p-value of the algorithm's family, as log10.
    pub log10_smallest_adjusted_p_value: f64,
    /// Largest over smallest ordering count (null when some ordering was never seen).
    pub max_min_ratio: Option<f64>,
    /// The same ratio under the exact law (null when some ordering is impossible or the law is
    /// not available).
    pub max_min_ratio_theory: Option<f64>,
    /// How often the deck came back unchanged.
    pub identity_frequency: f64,
    /// The exact probability of that.
    pub identity_theory: Option<f64>,
    /// The position-matrix cell furthest from 1/n.
    pub largest_deviation: PositionDeviation,
    /// Total variation distance of the observed frequencies from uniform.
    pub tv_distance: f64,
    /// Total variation distance of the exact law from uniform.
    pub tv_distance_theory: Option<f64>,
    /// Trials for 99% power of the permutations test (null when the law is uniform or unknown).
    pub trials_to_detect: Option<u64>,
    /// Whether bias was detected (some test of the family rejected uniform).
    pub bias_detected: bool,
    /// With 99% confidence, the total variation distance from uniform is at most this (what a
    /// pass rules out; see `ruled_out` in `run`'s JSON).
    pub tv_distance_at_most: Option<f64>,
    /// With 99% confidence, every card's chance of each position is within this of 1/n.
    pub position_within: Option<f64>,
    /// Whether the verdict is the one expected: no bias for an algorithm meant to be uniform,
    /// bias for the others.
    pub as_expected: bool,
    /// Observed position matrix, `[card][position]` (fractions of the trials).
    pub position_frequencies: Vec<Vec<f64>>,
    /// Exact position matrix, when the law is available.
    pub position_theory: Option<Vec<Vec<f64>>>,
    /// The run's notes (e.g. orderings the algorithm cannot reach).
    pub notes: Vec<Note>,
    /// The run's warnings (e.g. expected counts below 5).
    pub warnings: Vec<Warning>,
    /// Whether Ctrl-C cut this algorithm's run short.
    pub interrupted: bool,
    /// `--until-decided`: whether the anytime-valid sequential test decided (then `trials` is
    /// where it stopped, and the verdict is its own); left out of JSON without the flag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequential_decided: Option<bool>,
    /// Every ordering's count and exact probability, for the picture, while the orderings are
    /// few enough to keep (up to [`MAX_LISTED_DECK`] cards); not serialised.
    #[serde(skip)]
    pub orderings: Option<PermutationTable>,
}

impl CompareRow {
    /// Distil a row from an algorithm's full run report.
    pub fn from_run(run: &RunReport) -> Self {
        let permutations = run
            .tests
            .iter()
            .find(|t| t.name == "permutations")
            .expect("every run report has the permutations test");
        let full = run.full().expect("compare tallies every ordering");
        let meant_uniform = run.header.meant_uniform.unwrap_or(false);
        CompareRow {
            algorithm: run.header.algorithm.unwrap_or("the input"),
            definition: run.header.definition.unwrap_or(""),
            meant_uniform,
            trials: run.header.trials,
            chi_square: permutations.statistic,
            df: permutations.df.unwrap_or(0.0),
            p_value: permutations.p_value,
            log10_p_value: permutations.log10_p_value,
            log10_smallest_adjusted_p_value: run
                .tests
                .iter()
                .map(|t| t.log10_adjusted_p_value)
                .fold(f64::INFINITY, f64::min),
            max_min_ratio: full.max_min_ratio,
            max_min_ratio_theory: full.max_min_ratio_theory,
            identity_frequency: run.identity.frequency,
            identity_theory: run.identity.theory_frequency,
            largest_deviation: run.positions.largest_deviation.clone(),
            tv_distance: full.tv_distance,
            tv_distance_theory: full.tv_distance_theory,
            trials_to_detect: run.model.trials_for_99_power,
            bias_detected: run.bias_detected,
            tv_distance_at_most: run
                .ruled_out
                .as_ref()
                .and_then(|r| r.total_variation.map(|tv| tv.at_most)),
            position_within: run
                .ruled_out
                .as_ref()
                .and_then(|r| r.position_chances.map(|p| p.within)),
            as_expected: run.bias_detected
                != expected_uniform(meant_uniform, full.tv_distance_theory),
            position_frequencies: run.positions.frequencies.clone(),
            position_theory: run.positions.theory.clone(),
            notes: run.notes.clone(),
            warnings: run.warnings.clone(),
            interrupted: run.header.interrupted,
            sequential_decided: run.sequential.as_ref().map(|s| s.decided),
            orderings: (run.header.deck <= MAX_LISTED_DECK).then(|| full.permutations.clone()),
        }
    }
}

/// Whether an algorithm's verdict is expected to be "no bias": it is meant to be uniform, or
/// its exact law at this deck is uniform (total variation 0 up to rounding: at 2 cards every
/// algorithm that can swap the two cards with probability ½ is, so "missing" its bias would
/// be no miss).
fn expected_uniform(meant_uniform: bool, tv_distance_theory: Option<f64>) -> bool {
    meant_uniform || tv_distance_theory.is_some_and(|tv| tv < 1e-12)
}

/// The report of `compare`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CompareReport {
    /// Always `shuffle-bias`.
    pub tool: &'static str,
    /// This program's version.
    pub version: &'static str,
    /// Always `compare`.
    pub command: &'static str,
    /// Number of cards.
    pub deck: usize,
    /// n!.
    pub orderings: u64,
    /// Shuffles asked for, per algorithm.
    pub trials_requested: u64,
    /// The seed every algorithm was run with.
    pub seed: u64,
    /// The generator.
    pub rng: RngKind,
    /// Worker threads.
    pub threads: usize,
    /// Family-wise level of each algorithm's verdict (each algorithm is its own family).
    pub alpha: f64,
    /// Wall-clock seconds for the whole comparison (simulations and exact laws).
    pub elapsed_seconds: f64,
    /// Whether Ctrl-C cut the comparison short (the rows cover what was run).
    pub interrupted: bool,
    /// Algorithms asked for but not run because of the interruption.
    pub not_run: Vec<&'static str>,
    /// Whether every row's verdict is the expected one (and nothing was interrupted).
    pub all_as_expected: bool,
    /// One sentence for humans.
    pub verdict: String,
    /// Warnings (also printed to stderr), each prefixed with the algorithm's name.
    pub warnings: Vec<AlgorithmWarning>,
    /// One row per algorithm, in the order given.
    pub rows: Vec<CompareRow>,
}

/// Facts about a comparison that are not in the rows.
#[derive(Debug, Clone)]
pub struct CompareFacts {
    /// Cards.
    pub deck: usize,
    /// Shuffles asked for per algorithm.
    pub trials_requested: u64,
    /// Seed.
    pub seed: u64,
    /// Generator.
    pub rng: RngKind,
    /// Threads.
    pub threads: usize,
    /// Level.
    pub alpha: f64,
    /// Seconds.
    pub elapsed_seconds: f64,
    /// Algorithms not run because of Ctrl-C.
    pub not_run: Vec<&'static str>,
}

/// Assemble the comparison from the algorithms' rows, in order (a row is distilled from each
/// run report as soon as it is built, so that only one algorithm's tally is held at a time).
pub fn build_compare_report(facts: CompareFacts, rows: Vec<CompareRow>) -> CompareReport {
    let interrupted = !facts.not_run.is_empty() || rows.iter().any(|r| r.interrupted);
    let unexpected: Vec<String> = rows
        .iter()
        .filter(|row| !row.as_expected)
        .map(|row| {
            if row.meant_uniform {
                format!("{} (meant uniform) was flagged as biased", row.algorithm)
            } else if expected_uniform(false, row.tv_distance_theory) {
                format!(
                    "{} (exactly uniform at {} cards) was flagged as biased",
                    row.algorithm, facts.deck
                )
            } else {
                match row.trials_to_detect {
                    Some(needed) => format!(
                        "{}'s bias was not detected ({} trials give 99% power)",
                        row.algorithm,
                        crate::report::text::group(needed)
                    ),
                    None => format!("{}'s bias was not detected", row.algorithm),
                }
            }
        })
        .collect();
    let all_as_expected = unexpected.is_empty() && !interrupted;
    let verdict = if interrupted {
        format!(
            "interrupted: {} of {} algorithms run{}",
            rows.len(),
            rows.len() + facts.not_run.len(),
            if unexpected.is_empty() {
                String::new()
            } else {
                format!("; not as expected: {}", unexpected.join("; "))
            }
        )
    } else if all_as_expected {
        format!(
            "every verdict is as expected at alpha = {}: the uniform shuffles show no bias and \
             every biased one is detected",
            facts.alpha
        )
    } else {
        format!("not as expected: {}", unexpected.join("; "))
    };
    let warnings = rows
        .iter()
        .flat_map(|row| {
            row.warnings.iter().map(|warning| AlgorithmWarning {
                algorithm: row.algorithm,
                warning: warning.clone(),
            })
        })
        .collect();
    CompareReport {
        tool: "shuffle-bias",
        version: env!("CARGO_PKG_VERSION"),
        command: "compare",
        deck: facts.deck,
        orderings: crate::engine::permutation::factorial(facts.deck),
        trials_requested: facts.trials_requested,
        seed: facts.seed,
        rng: facts.rng,
        threads: facts.threads,
        alpha: facts.alpha,
        elapsed_seconds: facts.elapsed_seconds,
        interrupted,
        not_run: facts.not_run,
        all_as_expected,
        verdict,
        warnings,
        rows,
    }
}
