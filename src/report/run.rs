//! The report model: plain, serialisable data that every exporter reads.
//!
//! [`build_run_report`] turns a tally (and, when available, the algorithm's exact law) into the
//! family of tests, the verdict and every figure shown to the user; [`build_theory_report`] does
//! the same for the law alone. Nothing here prints or formats for a terminal: that is the
//! exporters' job. The JSON schema is this module's `Serialize` output; every field is
//! documented here and in the README.

use std::sync::Arc;

use num_bigint::BigUint;
use serde::Serialize;
use serde::ser::SerializeSeq;

use crate::engine::algorithms::{Card, CutProbability, Shuffle, shuffle_label};
use crate::engine::marginal::MarginalTally;
use crate::engine::permutation::{factorial, for_each_in_rank_order, unrank};
use crate::engine::random_source::RngKind;
use crate::engine::simulate::Tally;
use crate::engine::tally::TallyMode;
use crate::input::permutation_reader::{InvalidLine, Numbering};
use crate::stats::binomial::binomial_two_sided_at;
use crate::stats::chi_square::chi_square_sf;
use crate::stats::holm::holm_adjust;
use crate::stats::power::{detection_power, trials_for_power};
use crate::stats::probability::{Probability, ln_sum};
use crate::stats::pvalue::PValue;
use crate::theory::exact::{ExactError, Law};
use crate::theory::mixing::riffle_note;
use crate::theory::permutation_statistics::{
    Statistic, StatisticValues, ValueLaw, big_factorial, pool_bins, ratio_to_f64, ratio_to_ln,
    riffle_rising_value_law,
};

/// How many most- and least-frequent permutations the report lists.
pub const EXTREMES: usize = 5;
/// The power that "trials needed to detect" refers to.
pub const TARGET_POWER: f64 = 0.99;
/// Pearson's χ² is trusted when every expected count is at least this (Cochran 1954).
pub const MIN_EXPECTED_COUNT: f64 = 5.0;

/// Which hypothesis the verdict tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Against {
    /// Every ordering equally likely (1/n!).
    Uniform,
    /// The algorithm's own exact law (does the output match what this algorithm should do?).
    Model,
}

/// One test of the family.
#[derive(Debug, Clone, Serialize)]
pub struct TestResult {
    /// `permutations`, `identity` or `position K`.
    pub name: String,
    /// The method: `pearson-chi-square`, `exact-binomial-two-sided` (the identity), or
    /// `exact-binomial-outside-mode` (a statistic whose cells cannot be pooled into two
    /// expected at least 5 times: the exact two-sided binomial test of the number of shuffles
    /// outside the statistic's likeliest value, whose probability is 1 − P(that value)).
    pub method: &'static str,
    /// χ² statistic, or the observed count for the binomial tests.
    pub statistic: f64,
    /// Degrees of freedom (χ² tests only).
    pub df: Option<f64>,
    /// The p-value, or null when it is below 1e-300 (then read `log10_p_value`).
    pub p_value: Option<f64>,
    /// log10 of the p-value; always present (null only for an impossible outcome, p = 0).
    pub log10_p_value: f64,
    /// The Holm–Bonferroni adjusted p-value (null below 1e-300).
    pub adjusted_p_value: Option<f64>,
    /// log10 of the adjusted p-value.
    pub log10_adjusted_p_value: f64,
    /// Whether the adjusted p-value is at most alpha.
    pub rejected: bool,
    /// Why a test failed outright or could not be run, when it did.
    pub note: Option<String>,
}

/// How often the deck came back in its starting order.
#[derive(Debug, Clone, Serialize)]
pub struct Identity {
    /// Shuffles that left the deck unchanged.
    pub count: u64,
    /// count / trials.
    pub frequency: f64,
    /// 1/n!, the uniform expectation (0 from 178 cards on, where it is below f64's range; the
    /// identity test uses its logarithm).
    pub expected_frequency: f64,
    /// The algorithm's exact probability of the identity (null when the law is unavailable; 0
    /// when below f64's range, as for 7 riffles of 200 cards).
    pub theory_frequency: Option<f64>,
    /// The same as an exact fraction, e.g. `5/128`.
    pub theory_fraction: Option<String>,
}

/// The largest gap between an observed position frequency and 1/n.
#[derive(Debug, Clone, Serialize)]
pub struct PositionDeviation {
    /// The card.
    pub card: usize,
    /// The final position.
    pub position: usize,
    /// Observed frequency of that card at that position.
    pub frequency: f64,
    /// frequency − 1/n.
    pub deviation: f64,
}

/// Which card lands where.
#[derive(Debug, Clone, Serialize)]
pub struct Positions {
    /// `counts[card][position]`: shuffles in which `card` (starting at position `card`) ended
    /// at `position`.
    pub counts: Vec<Vec<u64>>,
    /// counts / trials.
    pub frequencies: Vec<Vec<f64>>,
    /// 1/n.
    pub expected_frequency: f64,
    /// The algorithm's exact `[card][position]` probabilities (null when unavailable).
    pub theory: Option<Vec<Vec<f64>>>,
    /// The cell furthest from 1/n.
    pub largest_deviation: PositionDeviation,
}

/// One permutation's line.
#[derive(Debug, Clone, Serialize)]
pub struct PermutationRow {
    /// Lexicographic rank (0 = identity).
    pub rank: usize,
    /// The deck after the shuffle: `permutation[position] = card`.
    pub permutation: Vec<Card>,
    /// Shuffles that produced it.
    pub count: u64,
    /// count / trials.
    pub frequency: f64,
    /// Expected count under uniform: trials / n!.
    pub expected: f64,
    /// count / expected.
    pub ratio_to_expected: f64,
    /// The algorithm's exact probability (null when unavailable).
    pub theory: Option<f64>,
    /// trials × theory.
    pub theory_expected: Option<f64>,
    /// The exact probability as a fraction.
    pub theory_fraction: Option<String>,
}

/// The largest deck whose orderings JSON and CSV list one by one unless `--all-orderings` asks
/// for every deck: 8! = 40,320 rows (a few MB); 9! is 362,880 rows and 11! about 40 million
/// (15 GB of JSON).
pub const MAX_LISTED_DECK: usize = 8;

/// The note a report carries when its orderings are not listed one by one.
fn unlisted_orderings_note(deck: usize) -> String {
    format!(
        "the {} orderings of {deck} cards are not listed one by one in JSON and CSV (more than \
         {MAX_LISTED_DECK} cards); add --all-orderings to list every one",
        factorial(deck)
    )
}

/// Every permutation's row, produced on demand (n! rows can be tens of millions, so they are
/// never all held in memory: exporters stream them).
#[derive(Debug, Clone)]
pub struct PermutationTable {
    deck: usize,
    trials: u64,
    counts: Arc<Vec<u64>>,
    law: Option<Arc<Law>>,
    /// Whether the rows are listed (JSON `permutations` is null, and CSV refuses the table,
    /// when they are not: see [`MAX_LISTED_DECK`]).
    listed: bool,
}

impl PermutationTable {
    /// The row of `rank`.
    pub fn row(&self, rank: usize) -> PermutationRow {
        let expected = self.trials as f64 / factorial(self.deck) as f64;
        let count = self.counts[rank];
        let theory = self.law.as_ref().map(|law| law.probabilities[rank]);
        PermutationRow {
            rank,
            permutation: unrank(rank, self.deck),
            count,
            frequency: ratio(count as f64, self.trials as f64),
            expected,
            ratio_to_expected: ratio(count as f64, expected),
            theory,
            theory_expected: theory.map(|p| p * self.trials as f64),
            theory_fraction: self.law.as_ref().and_then(|law| law.fraction(rank)),
        }
    }

    /// All rows in rank order.
    pub fn rows(&self) -> impl Iterator<Item = PermutationRow> + '_ {
        (0..self.counts.len()).map(|rank| self.row(rank))
    }

    /// How many rows there are (n!).
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// The counts in rank order.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// The exact probabilities in rank order, when the law is known.
    pub fn theory(&self) -> Option<&[f64]> {
        self.law.as_ref().map(|law| law.probabilities.as_slice())
    }

    /// Whether the table is empty (never: n! ≥ 1).
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Whether every row is to be listed in JSON and CSV.
    pub fn listed(&self) -> bool {
        self.listed
    }
}

/// Serialise rows produced on demand as one sequence, without collecting them.
fn serialize_rows<S: serde::Serializer, R: Serialize>(
    serializer: S,
    length: usize,
    rows: impl Iterator<Item = R>,
) -> Result<S::Ok, S::Error> {
    let mut seq = serializer.serialize_seq(Some(length))?;
    for row in rows {
        seq.serialize_element(&row)?;
    }
    seq.end()
}

impl Serialize for PermutationTable {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.listed {
            return serializer.serialize_none();
        }
        serialize_rows(serializer, self.len(), self.rows())
    }
}

/// What is known of the algorithm's exact law, and what it implies for detection.
#[derive(Debug, Clone, Serialize)]
pub struct ModelSummary {
    /// Whether the exact law was computed.
    pub available: bool,
    /// Why not, when it was not.
    pub unavailable_reason: Option<String>,
    /// Whether its probabilities are exact fractions (otherwise f64, relative error ≤ 1e-12).
    pub exact_fractions: bool,
    /// Choice paths the law accounts for (u64::MAX standing for that many or more).
    pub paths: Option<u64>,
    /// How it was computed: `path-walk` (every choice path run), `step-propagation` (the law
    /// carried one choice at a time, for shuffles whose choices act on positions) or
    /// `convolution` (several passes: the one-pass law convolved with itself).
    pub method: Option<&'static str>,
    /// Permutations with non-zero probability.
    pub support_size: Option<usize>,
    /// Cohen's w² = Σ (p − u)²/u: the χ² noncentrality per trial of the law against uniform.
    pub noncentrality_per_trial: Option<f64>,
    /// Probability that this many trials detect the bias (the permutations test alone at the
    /// Bonferroni level alpha/m, a lower bound for the whole family; noncentral χ²). Null when
    /// the law is uniform (nothing to detect) or for `theory` (no trials).
    pub detection_power: Option<f64>,
    /// Trials needed for 99% detection power at the same level (null when there is no bias).
    pub trials_for_99_power: Option<u64>,
    /// The per-test level used for power: alpha / number of tests in the family.
    pub power_alpha: f64,
}

/// The report of `run`.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// Always `shuffle-bias`.
    pub tool: &'static str,
    /// The tool's version.
    pub version: &'static str,
    /// `run` or `check`.
    pub command: &'static str,
    /// The algorithm simulated, or the one `check --against` tests (null for `check` against
    /// uniform).
    pub algorithm: Option<&'static str>,
    /// How many times the algorithm is applied per shuffle (null for `check` against uniform;
    /// left out of JSON when 1).
    #[serde(skip_serializing_if = "is_one_pass")]
    pub passes: Option<u32>,
    /// The overhand shuffle's cut probability (null, and left out of JSON, for the other
    /// algorithms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut_probability: Option<CutProbability>,
    /// Its exact definition.
    pub definition: Option<&'static str>,
    /// Whether it is meant to be uniform.
    pub meant_uniform: Option<bool>,
    /// What `check` read (null for `run`).
    pub input: Option<InputSummary>,
    /// Number of cards.
    pub deck: usize,
    /// n! (null when it exceeds 2^64, in marginal mode).
    pub orderings: Option<u64>,
    /// `full` (every ordering tallied) or `marginal` (positions, identity and statistics only).
    pub mode: TallyMode,
    /// Shuffles tallied (for `check`, permutations read).
    pub trials: u64,
    /// Shuffles asked for (more than `trials` only when interrupted).
    pub trials_requested: u64,
    /// Whether the run was interrupted before all trials were done.
    pub interrupted: bool,
    /// The seed; the same seed gives the same counts, whatever the threads (null for `check`).
    pub seed: Option<u64>,
    /// The generator (null for `check`).
    pub rng: Option<RngKind>,
    /// Worker threads used (null for `check`).
    pub threads: Option<usize>,
    /// Wall-clock seconds of the simulation, or of the reading for `check`.
    pub elapsed_seconds: f64,
    /// trials / elapsed_seconds (for `check`: permutations read per second).
    pub shuffles_per_second: f64,
    /// The family-wise significance level.
    pub alpha: f64,
    /// The hypothesis tested.
    pub against: Against,
    /// Whether any test of the family rejected the hypothesis after Holm's adjustment.
    pub bias_detected: bool,
    /// One sentence saying what was found.
    pub verdict: String,
    /// Facts worth reading beside the verdict.
    pub notes: Vec<String>,
    /// Conditions that weaken the tests (printed on stderr; kept here for machine readers).
    pub warnings: Vec<String>,
    /// The family: permutations, identity, one per position.
    pub tests: Vec<TestResult>,
    /// Identity frequency.
    pub identity: Identity,
    /// Largest count / smallest count over all n! orderings (null when one was never seen).
    pub max_min_ratio: Option<f64>,
    /// The same ratio of exact probabilities (null when some ordering is impossible).
    pub max_min_ratio_theory: Option<f64>,
    /// Orderings never seen (null in marginal mode).
    pub never_seen: Option<u64>,
    /// ½ Σ |frequency − 1/n!| (null in marginal mode).
    pub tv_distance: Option<f64>,
    /// The exact law's distance from uniform.
    pub tv_distance_theory: Option<f64>,
    /// The exact law and detection power.
    pub model: ModelSummary,
    /// Position marginals.
    pub positions: Positions,
    /// The most frequent orderings.
    pub most_frequent: Vec<PermutationRow>,
    /// The least frequent orderings.
    pub least_frequent: Vec<PermutationRow>,
    /// Every ordering (none in marginal mode).
    pub permutations: PermutationTable,
    /// The permutation statistics and their tests (marginal mode; empty in full mode, where
    /// the permutations test covers every ordering).
    pub statistics: Vec<StatisticResult>,
}

/// Where the tallied permutations came from.
#[derive(Debug, Clone)]
pub enum Origin {
    /// `run`: a seeded simulation.
    Simulation {
        /// The seed.
        seed: u64,
        /// The generator.
        rng: RngKind,
        /// Threads.
        threads: usize,
    },
    /// `check`: permutations read from files or stdin.
    Input(InputSummary),
}

/// What `check` read.
#[derive(Debug, Clone, Serialize)]
pub struct InputSummary {
    /// The files read, in order (`<stdin>` for standard input).
    pub sources: Vec<String>,
    /// Lines read, including blank, comment and rejected lines.
    pub lines: u64,
    /// Permutations tallied.
    pub permutations: u64,
    /// How the cards were written: `zero-based`, `one-based` or `labels`.
    pub numbering: Numbering,
    /// The labels, in starting order, when `--labels` was given.
    pub labels: Option<Vec<String>>,
    /// Lines rejected under `--skip-invalid`.
    pub invalid_lines: u64,
    /// The first rejected lines, with their location and problem.
    pub invalid_examples: Vec<InvalidLine>,
}

/// The facts of a run that are not counts.
#[derive(Debug, Clone)]
pub struct RunFacts {
    /// `run` or `check`.
    pub command: &'static str,
    /// The shuffle simulated (`run`) or tested against (`check --against ALGORITHM`).
    pub shuffle: Option<Shuffle>,
    /// Simulation or input.
    pub origin: Origin,
    /// Trials asked for.
    pub trials_requested: u64,
    /// Wall time of the simulation or of the reading.
    pub elapsed_seconds: f64,
    /// Whether Ctrl-C stopped the simulation or the reading early.
    pub interrupted: bool,
    /// Family-wise level.
    pub alpha: f64,
    /// Hypothesis.
    pub against: Against,
    /// List every ordering in JSON and CSV whatever the deck (`--all-orderings`).
    pub all_orderings: bool,
}

impl RunFacts {
    /// What was read, for `check`.
    fn input(&self) -> Option<&InputSummary> {
        match &self.origin {
            Origin::Input(input) => Some(input),
            Origin::Simulation { .. } => None,
        }
    }

    /// Seed, generator and threads, for `run`.
    fn simulation(&self) -> Option<(u64, RngKind, usize)> {
        match self.origin {
            Origin::Simulation { seed, rng, threads } => Some((seed, rng, threads)),
            Origin::Input(_) => None,
        }
    }

    /// The note on lines skipped under `--skip-invalid`, if any were.
    fn skipped_lines_note(&self) -> Option<String> {
        let input = self.input().filter(|input| input.invalid_lines > 0)?;
        Some(format!(
            "{} invalid lines were skipped (--skip-invalid); the first: {}",
            input.invalid_lines,
            input
                .invalid_examples
                .iter()
                .map(|line| format!("{}: {}", line.location, line.problem))
                .collect::<Vec<_>>()
                .join("; ")
        ))
    }

    /// What theory says of a riffle's passes on `deck` cards, when the shuffle is a riffle.
    fn riffle_note(&self, deck: usize) -> Option<String> {
        self.shuffle
            .filter(|shuffle| shuffle.algorithm == crate::engine::algorithms::Algorithm::Riffle)
            .map(|shuffle| riffle_note(deck, shuffle.passes))
    }
}

/// A p-value as the optional plain number the report shows (null below 1e-300).
fn plain(p: PValue) -> Option<f64> {
    (p.log10 >= -300.0).then_some(p.p)
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

/// Pearson's statistic over (observed, expected) pairs, compensated; cells with zero expectation
/// must be filtered out by the caller.
fn pearson_statistic(cells: impl Iterator<Item = (u64, f64)>) -> f64 {
    let (mut sum, mut carry) = (0.0f64, 0.0f64);
    for (observed, expected) in cells {
        let d = observed as f64 - expected;
        let term = d * d / expected;
        let t = sum + term;
        carry += if sum.abs() >= term.abs() {
            (sum - t) + term
        } else {
            (term - t) + sum
        };
        sum = t;
    }
    sum + carry
}

/// A χ² goodness-of-fit test of observed counts against probabilities, over the cells the
/// hypothesis allows. Observations in impossible cells make the test fail outright.
fn goodness_of_fit(name: String, cells: impl Iterator<Item = (u64, f64)>, trials: u64) -> Draft {
    let trials_f = trials as f64;
    let mut impossible = 0u64;
    let mut support = 0u64;
    let statistic = pearson_statistic(cells.filter_map(|(observed, p)| {
        if p > 0.0 {
            support += 1;
            Some((observed, p * trials_f))
        } else {
            impossible += observed;
            None
        }
    }));
    let df = support.saturating_sub(1) as f64;
    if impossible > 0 {
        return Draft {
            name,
            method: "pearson-chi-square",
            statistic,
            df: Some(df),
            p: PValue::ZERO,
            note: Some(format!(
                "{impossible} shuffle{} fell on cells the hypothesis gives probability 0",
                if impossible == 1 { "" } else { "s" }
            )),
        };
    }
    let (p, note) = if df == 0.0 {
        (
            PValue::ONE,
            Some("only one cell is possible: nothing to test".to_string()),
        )
    } else if trials == 0 {
        (PValue::ONE, Some("no trials".to_string()))
    } else {
        (chi_square_sf(statistic, df), None)
    };
    Draft {
        name,
        method: "pearson-chi-square",
        statistic,
        df: Some(df),
        p,
        note,
    }
}

/// The test of one permutation statistic's histogram `observed` (indexed by value) against
/// its law under the hypothesis, with `bins` the cells pooled to an expected count of at least
/// [`MIN_EXPECTED_COUNT`] by [`pool_bins`].
///
/// * Values the law makes impossible (probability exactly 0; a probability that merely
///   underflows f64 is not 0) reject outright when seen, p = 0, as impossible orderings do in
///   full mode: pooling would otherwise hide them in a neighbouring cell, or in the single cell
///   that leaves nothing to test.
/// * With two cells or more, Pearson's χ² over the pooled cells (Cochran 1954 for the ≥ 5 rule).
/// * With one cell (few trials, or a law concentrated on one value), χ² has nothing to compare,
///   yet the data may sit on values the law makes rare. Then the exact two-sided binomial test
///   of K, the number of shuffles outside the likeliest value m: under the hypothesis
///   K ~ Bin(trials, 1 − P(m)) exactly, so the test keeps its level at any trial count
///   (doubling rule, Fay 2010), and data concentrated away from m makes K far exceed its mean.
///   1 − P(m) is summed from the other values' logarithms, so it is right even when tiny.
fn statistic_test(
    name: &str,
    observed: &[u64],
    law: &ValueLaw,
    bins: &[std::ops::Range<usize>],
    trials: u64,
) -> Draft {
    let mut draft = if bins.len() >= 2 {
        goodness_of_fit(
            name.to_string(),
            bins.iter().map(|bin| {
                (
                    observed[bin.clone()].iter().sum::<u64>(),
                    law.probabilities[bin.clone()].iter().sum::<f64>(),
                )
            }),
            trials,
        )
    } else {
        outside_mode_test(name, observed, law, trials)
    };
    let impossible: Vec<usize> = (0..observed.len())
        .filter(|&value| observed[value] > 0 && law.get(value).is_impossible())
        .collect();
    if !impossible.is_empty() {
        let seen: u64 = impossible.iter().map(|&value| observed[value]).sum();
        draft.p = PValue::ZERO;
        draft.note = Some(format!(
            "{} impossible under the hypothesis but {} seen {seen} time{}",
            match impossible.len() {
                1 => format!("the value {} is", impossible[0]),
                _ => format!("the values {} are", value_list(&impossible)),
            },
            if impossible.len() == 1 { "was" } else { "were" },
            if seen == 1 { "" } else { "s" }
        ));
    }
    draft
}

/// The exact binomial test of the shuffles outside the likeliest value (see [`statistic_test`]).
fn outside_mode_test(name: &str, observed: &[u64], law: &ValueLaw, trials: u64) -> Draft {
    // The first of the likeliest values, by logarithm so that a law below f64's range still
    // has a mode.
    let mode = (0..law.len())
        .rev()
        .max_by(|&a, &b| law.ln_probabilities[a].total_cmp(&law.ln_probabilities[b]))
        .unwrap_or(0);
    let at_mode = observed.get(mode).copied().unwrap_or(0);
    let outside = trials - at_mode;
    let p0 = Probability::from_ln(ln_sum(
        law.ln_probabilities
            .iter()
            .enumerate()
            .filter(|&(value, _)| value != mode)
            .map(|(_, &ln)| ln),
    ));
    let (p, note) = if trials == 0 {
        (PValue::ONE, "no trials".to_string())
    } else {
        (
            binomial_two_sided_at(outside, trials, p0),
            format!(
                "no two cells can be expected at least {MIN_EXPECTED_COUNT} times each, so χ² \
                 does not apply: exact binomial test of the {outside} shuffle{} outside the \
                 likeliest value {mode} (probability {} under the hypothesis)",
                if outside == 1 { "" } else { "s" },
                format_probability(p0)
            ),
        )
    };
    Draft {
        name: name.to_string(),
        method: "exact-binomial-outside-mode",
        statistic: outside as f64,
        df: None,
        p,
        note: Some(note),
    }
}

/// A probability for a note: `0.0312`, `3.1e-12`, `10^-1085.3`.
fn format_probability(p: Probability) -> String {
    if p.p >= 1e-4 {
        format!("{:.4}", p.p)
    } else if p.log10() >= -300.0 {
        format!("{:.2e}", p.p)
    } else {
        format!("10^{:.1}", p.log10())
    }
}

/// Increasing values as runs, e.g. `3, 19–34`, the first eight runs then `and N more`.
fn value_list(values: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &value in values {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == value => *end = value,
            _ => runs.push((value, value)),
        }
    }
    const SHOWN: usize = 8;
    let text: Vec<String> = runs
        .iter()
        .take(SHOWN)
        .map(|&(start, end)| match end - start {
            0 => start.to_string(),
            1 => format!("{start}, {end}"),
            _ => format!("{start}–{end}"),
        })
        .collect();
    let more: usize = runs.iter().skip(SHOWN).map(|(s, e)| e - s + 1).sum();
    match more {
        0 => text.join(", "),
        _ => format!("{} and {more} more", text.join(", ")),
    }
}

/// A test before Holm's adjustment.
struct Draft {
    name: String,
    method: &'static str,
    statistic: f64,
    df: Option<f64>,
    p: PValue,
    note: Option<String>,
}

/// Adjust a family of drafts with Holm's method and decide each at `alpha`.
fn decide(drafts: Vec<Draft>, alpha: f64) -> Vec<TestResult> {
    let raw: Vec<PValue> = drafts.iter().map(|d| d.p).collect();
    let adjusted = holm_adjust(&raw);
    drafts
        .into_iter()
        .zip(adjusted)
        .map(|(draft, adjusted)| TestResult {
            name: draft.name,
            method: draft.method,
            statistic: draft.statistic,
            df: draft.df,
            p_value: plain(draft.p),
            log10_p_value: draft.p.log10,
            adjusted_p_value: plain(adjusted),
            log10_adjusted_p_value: adjusted.log10,
            rejected: adjusted.p <= alpha,
            note: draft.note,
        })
        .collect()
}

/// The n×n position counts `[card][position]`, summed from the tally.
fn position_counts(n: usize, counts: &[u64]) -> Vec<Vec<u64>> {
    let mut matrix = vec![vec![0u64; n]; n];
    for_each_in_rank_order(n, |rank, deck| {
        let count = counts[rank];
        if count > 0 {
            for (position, &card) in deck.iter().enumerate() {
                matrix[usize::from(card)][position] += count;
            }
        }
    });
    matrix
}

/// Power figures of a law against uniform, for a family of `tests` tests at level `alpha`.
fn power_summary(
    law: Option<&Result<Arc<Law>, ExactError>>,
    trials: Option<u64>,
    alpha: f64,
    tests: usize,
) -> ModelSummary {
    let power_alpha = alpha / tests as f64;
    match law {
        Some(Ok(law)) => {
            let df = (law.probabilities.len() - 1) as f64;
            let w2 = law.noncentrality_per_trial();
            // A law within rounding of uniform has nothing to detect.
            let biased = w2 > 1e-12;
            ModelSummary {
                available: true,
                unavailable_reason: None,
                exact_fractions: law.exact.is_some(),
                paths: Some(law.paths),
                method: Some(law.method),
                support_size: Some(law.support_size()),
                noncentrality_per_trial: Some(if biased { w2 } else { 0.0 }),
                detection_power: trials
                    .filter(|_| biased)
                    .map(|t| detection_power(df, power_alpha, w2, t as f64)),
                trials_for_99_power: if biased {
                    trials_for_power(df, power_alpha, w2, TARGET_POWER)
                } else {
                    None
                },
                power_alpha,
            }
        }
        _ => ModelSummary {
            available: false,
            unavailable_reason: law
                .and_then(|law| law.as_ref().err())
                .map(ToString::to_string),
            exact_fractions: false,
            paths: None,
            method: None,
            support_size: None,
            noncentrality_per_trial: None,
            detection_power: None,
            trials_for_99_power: None,
            power_alpha,
        },
    }
}

/// Build the report of a run from its tally and, when computed, the algorithm's exact law.
///
/// `law` is None when there is no algorithm (`check` against uniform).
pub fn build_run_report(
    facts: &RunFacts,
    tally: Tally,
    law: Option<Result<Arc<Law>, ExactError>>,
) -> RunReport {
    let algorithm_name = facts
        .shuffle
        .map_or("the input".to_string(), Shuffle::label);
    let n = tally.deck;
    let orderings = factorial(n);
    let trials = tally.trials;
    let trials_f = trials as f64;
    let uniform_p = 1.0 / orderings as f64;
    let counts = Arc::new(tally.counts);
    let model = law.as_ref().and_then(|law| law.as_ref().ok());
    let hypothesis: Option<&Law> = match facts.against {
        Against::Uniform => None,
        Against::Model => model.map(|l| l.as_ref()),
    };
    let hypothesis_name = match facts.against {
        Against::Uniform => "uniform".to_string(),
        Against::Model => format!("the exact law of {algorithm_name}"),
    };

    // The family of tests.
    let mut drafts = Vec::with_capacity(n + 2);
    drafts.push(goodness_of_fit(
        "permutations".to_string(),
        counts.iter().enumerate().map(|(rank, &observed)| {
            (
                observed,
                hypothesis.map_or(uniform_p, |law| law.probabilities[rank]),
            )
        }),
        trials,
    ));
    let identity_p0 = hypothesis.map_or(uniform_p, |law| law.probabilities[0]);
    let identity_count = counts[0];
    drafts.push(identity_test(
        identity_count,
        trials,
        Probability::from_p(identity_p0),
    ));
    let positions = position_counts(n, &counts);
    let theory_matrix = model.map(|law| law.position_matrix());
    for position in 0..n {
        drafts.push(goodness_of_fit(
            format!("position {position}"),
            (0..n).map(|card| {
                let p = match (facts.against, &theory_matrix) {
                    (Against::Model, Some(matrix)) => matrix[card][position],
                    _ => 1.0 / n as f64,
                };
                (positions[card][position], p)
            }),
            trials,
        ));
    }
    let family_size = drafts.len();
    let tests = decide(drafts, facts.alpha);
    let bias_detected = tests.iter().any(|t| t.rejected);

    // Figures.
    let max_count = counts.iter().copied().max().unwrap_or(0);
    let min_count = counts.iter().copied().min().unwrap_or(0);
    let never_seen = counts.iter().filter(|&&c| c == 0).count() as u64;
    let tv_distance = 0.5
        * counts
            .iter()
            .map(|&c| (ratio(c as f64, trials_f) - uniform_p).abs())
            .sum::<f64>();
    let frequencies: Vec<Vec<f64>> = positions
        .iter()
        .map(|row| row.iter().map(|&c| ratio(c as f64, trials_f)).collect())
        .collect();
    let largest_deviation = largest_deviation(&frequencies);

    let table = PermutationTable {
        deck: n,
        trials,
        counts: counts.clone(),
        law: model.cloned(),
        listed: facts.all_orderings || n <= MAX_LISTED_DECK,
    };
    let (most_frequent, least_frequent) = extremes(&counts, &table);

    let model_summary = power_summary(law.as_ref(), Some(trials), facts.alpha, family_size);

    // Words.
    let mut notes = Vec::new();
    let mut warnings = Vec::new();
    notes.extend(facts.riffle_note(n));
    if let Some(law) = model {
        let support = law.support_size();
        if (support as u64) < orderings {
            notes.push(format!(
                "only {support} of the {orderings} orderings are reachable under the exact law \
                 of {algorithm_name}; the other {} have probability 0",
                orderings - support as u64
            ));
        }
    } else if let Some(Err(error)) = &law {
        notes.push(format!(
            "no exact law for {algorithm_name} at {n} cards: {error}; theory columns are empty \
             and only the uniform hypothesis can be tested"
        ));
    }
    notes.extend(facts.skipped_lines_note());
    if !table.listed {
        notes.push(unlisted_orderings_note(n));
    }
    let smallest_expected = match hypothesis {
        None => uniform_p * trials_f,
        Some(law) => {
            law.probabilities
                .iter()
                .copied()
                .filter(|&p| p > 0.0)
                .fold(f64::INFINITY, f64::min)
                * trials_f
        }
    };
    if trials > 0 && smallest_expected < MIN_EXPECTED_COUNT {
        let smallest_p = smallest_expected / trials_f;
        // The 1e-12 keeps a ratio like 5 / (1/24) = 120.00000000000001 from rounding up to 121.
        let needed = (MIN_EXPECTED_COUNT / smallest_p * (1.0 - 1e-12)).ceil() as u64;
        warnings.push(format!(
            "the smallest expected count per ordering is {smallest_expected:.3} (< 5): the χ² \
             p-value of the permutations test is unreliable; use at least {needed} {}",
            match facts.origin {
                Origin::Simulation { .. } => "trials",
                Origin::Input(_) => "permutations",
            }
        ));
    }

    let verdict = verdict_sentence(&tests, bias_detected, facts.alpha, &hypothesis_name);
    RunReport {
        tool: "shuffle-bias",
        version: env!("CARGO_PKG_VERSION"),
        command: facts.command,
        algorithm: facts.shuffle.map(|s| s.algorithm.name()),
        passes: facts.shuffle.map(|s| s.passes),
        cut_probability: facts.shuffle.and_then(Shuffle::cut_probability_used),
        definition: facts.shuffle.map(|s| s.algorithm.definition()),
        meant_uniform: facts.shuffle.map(|s| s.algorithm.meant_uniform()),
        input: facts.input().cloned(),
        deck: n,
        orderings: Some(orderings),
        mode: TallyMode::Full,
        trials,
        trials_requested: facts.trials_requested,
        interrupted: facts.interrupted,
        seed: facts.simulation().map(|(seed, _, _)| seed),
        rng: facts.simulation().map(|(_, rng, _)| rng),
        threads: facts.simulation().map(|(_, _, threads)| threads),
        elapsed_seconds: facts.elapsed_seconds,
        shuffles_per_second: ratio(trials_f, facts.elapsed_seconds),
        alpha: facts.alpha,
        against: facts.against,
        bias_detected,
        verdict,
        notes,
        warnings,
        tests,
        identity: Identity {
            count: identity_count,
            frequency: ratio(identity_count as f64, trials_f),
            expected_frequency: uniform_p,
            theory_frequency: model.map(|l| l.probabilities[0]),
            theory_fraction: model.and_then(|l| l.fraction(0)),
        },
        max_min_ratio: (min_count > 0).then(|| max_count as f64 / min_count as f64),
        max_min_ratio_theory: model.map(|l| l.max_min_ratio()).filter(|r| r.is_finite()),
        never_seen: Some(never_seen),
        tv_distance: Some(tv_distance),
        tv_distance_theory: model.map(|l| l.tv_distance_from_uniform()),
        model: model_summary,
        positions: Positions {
            counts: positions,
            frequencies,
            expected_frequency: 1.0 / n as f64,
            theory: theory_matrix,
            largest_deviation,
        },
        most_frequent,
        least_frequent,
        permutations: table,
        statistics: Vec::new(),
    }
}

/// The identity test: two-sided exact binomial test of the identity count, from the
/// hypothesis' probability of the identity with its logarithm (1/n! is below f64's range from
/// 171 cards on, yet the identity is possible: only an exact 0 makes it impossible).
fn identity_test(count: u64, trials: u64, p0: Probability) -> Draft {
    let (p, note) = if p0.is_impossible() && count > 0 {
        (
            PValue::ZERO,
            Some(format!(
                "the identity is impossible under the hypothesis but was seen {count} time{}",
                if count == 1 { "" } else { "s" }
            )),
        )
    } else if trials == 0 {
        (PValue::ONE, Some("no trials".to_string()))
    } else {
        (binomial_two_sided_at(count, trials, p0), None)
    };
    Draft {
        name: "identity".to_string(),
        method: "exact-binomial-two-sided",
        statistic: count as f64,
        df: None,
        p,
        note,
    }
}

fn largest_deviation(frequencies: &[Vec<f64>]) -> PositionDeviation {
    let n = frequencies.len();
    let u = 1.0 / n as f64;
    let mut best = PositionDeviation {
        card: 0,
        position: 0,
        frequency: frequencies[0][0],
        deviation: frequencies[0][0] - u,
    };
    for (card, row) in frequencies.iter().enumerate() {
        for (position, &f) in row.iter().enumerate() {
            if (f - u).abs() > best.deviation.abs() {
                best = PositionDeviation {
                    card,
                    position,
                    frequency: f,
                    deviation: f - u,
                };
            }
        }
    }
    best
}

/// The EXTREMES most and least frequent rows (ties broken by rank).
fn extremes(
    counts: &[u64],
    table: &PermutationTable,
) -> (Vec<PermutationRow>, Vec<PermutationRow>) {
    let k = EXTREMES.min(counts.len());
    let mut ranks: Vec<usize> = (0..counts.len()).collect();
    let by_count_desc = |a: &usize, b: &usize| counts[*b].cmp(&counts[*a]).then(a.cmp(b));
    let by_count_asc = |a: &usize, b: &usize| counts[*a].cmp(&counts[*b]).then(a.cmp(b));
    ranks.select_nth_unstable_by(k - 1, by_count_desc);
    let mut most: Vec<usize> = ranks[..k].to_vec();
    most.sort_by(by_count_desc);
    ranks.select_nth_unstable_by(k - 1, by_count_asc);
    let mut least: Vec<usize> = ranks[..k].to_vec();
    least.sort_by(by_count_asc);
    (
        most.into_iter().map(|r| table.row(r)).collect(),
        least.into_iter().map(|r| table.row(r)).collect(),
    )
}

fn verdict_sentence(tests: &[TestResult], biased: bool, alpha: f64, hypothesis: &str) -> String {
    let strongest = tests
        .iter()
        .min_by(|a, b| {
            a.log10_adjusted_p_value
                .total_cmp(&b.log10_adjusted_p_value)
        })
        .expect("the family is never empty");
    let p = format_p(strongest.log10_adjusted_p_value);
    if biased {
        let mut rejected: Vec<String> = tests
            .iter()
            .filter(|t| t.rejected)
            .map(|t| t.name.clone())
            .collect();
        // On a large deck, name the position tests by their number rather than one by one.
        let positions = rejected
            .iter()
            .filter(|name| name.starts_with("position "))
            .count();
        if positions > 6 {
            let total = tests
                .iter()
                .filter(|t| t.name.starts_with("position "))
                .count();
            rejected.retain(|name| !name.starts_with("position "));
            rejected.insert(0, format!("{positions} of the {total} position tests"));
        }
        format!(
            "bias detected: {hypothesis} is rejected at alpha = {alpha} by {} (strongest: {}, \
             Holm-adjusted p = {p})",
            rejected.join(", "),
            strongest.name
        )
    } else {
        format!(
            "no bias detected: nothing rejects {hypothesis} at alpha = {alpha} (smallest \
             Holm-adjusted p = {p})"
        )
    }
}

/// A p-value for humans from its log10: `0.2314`, `3.1e-12`, `10^-4436.2`, or `0`.
pub fn format_p(log10: f64) -> String {
    if log10 == f64::NEG_INFINITY {
        "0".to_string()
    } else if log10 >= -300.0 {
        let p = 10f64.powf(log10);
        if p >= 1e-4 {
            format!("{p:.4}")
        } else {
            format!("{p:.2e}")
        }
    } else {
        format!("10^{log10:.1}")
    }
}

/// One row of a law's most/least likely orderings.
#[derive(Debug, Clone, Serialize)]
pub struct LawRow {
    /// Lexicographic rank.
    pub rank: usize,
    /// The deck: `permutation[position] = card`.
    pub permutation: Vec<Card>,
    /// Exact probability.
    pub probability: f64,
    /// As a reduced fraction, when exact.
    pub fraction: Option<String>,
    /// The numerator over the law's common denominator (for equally likely paths, the number of
    /// choice paths that give this ordering).
    pub numerator: Option<u128>,
    /// The law's common denominator (n! for Fisher–Yates, n^n for naive, 2^k for the sorts).
    pub denominator: Option<u128>,
    /// probability × n!.
    pub ratio_to_uniform: f64,
}

/// Every ordering's exact probability, streamed.
#[derive(Debug, Clone)]
pub struct LawTable {
    law: Arc<Law>,
    /// As [`PermutationTable`]'s: whether JSON and CSV list every row.
    listed: bool,
}

impl LawTable {
    /// Whether every row is to be listed in JSON and CSV.
    pub fn listed(&self) -> bool {
        self.listed
    }

    /// The probabilities in rank order.
    pub fn probabilities(&self) -> &[f64] {
        &self.law.probabilities
    }

    /// The row of `rank`.
    pub fn row(&self, rank: usize) -> LawRow {
        let p = self.law.probabilities[rank];
        LawRow {
            rank,
            permutation: unrank(rank, self.law.deck),
            probability: p,
            fraction: self.law.fraction(rank),
            numerator: self.law.exact.as_ref().map(|e| e.numerators[rank]),
            denominator: self.law.exact.as_ref().map(|e| e.denominator),
            ratio_to_uniform: p * self.law.probabilities.len() as f64,
        }
    }

    /// All rows in rank order.
    pub fn rows(&self) -> impl Iterator<Item = LawRow> + '_ {
        (0..self.law.probabilities.len()).map(|rank| self.row(rank))
    }
}

impl Serialize for LawTable {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.listed {
            return serializer.serialize_none();
        }
        serialize_rows(serializer, self.law.probabilities.len(), self.rows())
    }
}

/// The report of `theory`: an algorithm's exact law, without simulation.
#[derive(Debug, Clone, Serialize)]
pub struct TheoryReport {
    /// Always `shuffle-bias`.
    pub tool: &'static str,
    /// The tool's version.
    pub version: &'static str,
    /// Always `theory`.
    pub command: &'static str,
    /// The algorithm's name.
    pub algorithm: &'static str,
    /// How many times the algorithm is applied (left out of JSON when 1).
    #[serde(skip_serializing_if = "is_one")]
    pub passes: u32,
    /// The overhand shuffle's cut probability (null, and left out of JSON, for the other
    /// algorithms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut_probability: Option<CutProbability>,
    /// Its exact definition.
    pub definition: &'static str,
    /// Whether it is meant to be uniform.
    pub meant_uniform: bool,
    /// Number of cards.
    pub deck: usize,
    /// n!.
    pub orderings: u64,
    /// Choice paths the law accounts for (walked, or implied by propagation or convolution);
    /// 18446744073709551615 (u64::MAX) stands for that many or more.
    pub paths: u64,
    /// Whether the probabilities are exact fractions.
    pub exact_fractions: bool,
    /// Permutations with non-zero probability.
    pub support_size: usize,
    /// P(deck unchanged).
    pub identity_probability: f64,
    /// The same as a fraction.
    pub identity_fraction: Option<String>,
    /// 1/n!.
    pub uniform_probability: f64,
    /// Largest probability.
    pub max_probability: f64,
    /// Smallest probability.
    pub min_probability: f64,
    /// max / min (null when some ordering is impossible).
    pub max_min_ratio: Option<f64>,
    /// Total variation distance from uniform.
    pub tv_distance: f64,
    /// The family-wise level the detection figures refer to.
    pub alpha: f64,
    /// w², detection power figures (power itself is null: no trials).
    pub model: ModelSummary,
    /// `[card][position]` probabilities.
    pub positions: Vec<Vec<f64>>,
    /// The most likely orderings.
    pub most_likely: Vec<LawRow>,
    /// The least likely orderings.
    pub least_likely: Vec<LawRow>,
    /// Every ordering (null above [`MAX_LISTED_DECK`] cards unless `--all-orderings`).
    pub permutations: LawTable,
    /// Remarks on the report (left out of JSON when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Build the report of `theory`; `all_orderings` lists every ordering in JSON and CSV whatever
/// the deck (see [`MAX_LISTED_DECK`]).
pub fn build_theory_report(
    shuffle: impl Into<Shuffle>,
    law: Arc<Law>,
    alpha: f64,
    all_orderings: bool,
) -> TheoryReport {
    let shuffle = shuffle.into();
    let algorithm = shuffle.algorithm;
    let n = law.deck;
    let orderings = factorial(n);
    let probabilities = &law.probabilities;
    let max_probability = probabilities.iter().copied().fold(0.0, f64::max);
    let min_probability = probabilities.iter().copied().fold(f64::INFINITY, f64::min);
    let table = LawTable {
        law: law.clone(),
        listed: all_orderings || n <= MAX_LISTED_DECK,
    };
    let notes = if table.listed {
        Vec::new()
    } else {
        vec![unlisted_orderings_note(n)]
    };
    // Rank by probability; the exact numerators break float ties consistently.
    let mut ranks: Vec<usize> = (0..probabilities.len()).collect();
    ranks.sort_by(|&a, &b| {
        probabilities[b]
            .total_cmp(&probabilities[a])
            .then(a.cmp(&b))
    });
    let k = EXTREMES.min(ranks.len());
    let most_likely: Vec<LawRow> = ranks[..k].iter().map(|&r| table.row(r)).collect();
    ranks.sort_by(|&a, &b| {
        probabilities[a]
            .total_cmp(&probabilities[b])
            .then(a.cmp(&b))
    });
    let least_likely = ranks[..k].iter().map(|&r| table.row(r)).collect();
    let result = Ok(law.clone());
    TheoryReport {
        tool: "shuffle-bias",
        version: env!("CARGO_PKG_VERSION"),
        command: "theory",
        algorithm: algorithm.name(),
        passes: shuffle.passes,
        cut_probability: shuffle.cut_probability_used(),
        definition: algorithm.definition(),
        meant_uniform: algorithm.meant_uniform(),
        deck: n,
        orderings,
        paths: law.paths,
        exact_fractions: law.exact.is_some(),
        support_size: law.support_size(),
        identity_probability: probabilities[0],
        identity_fraction: law.fraction(0),
        uniform_probability: 1.0 / orderings as f64,
        max_probability,
        min_probability,
        max_min_ratio: Some(law.max_min_ratio()).filter(|r| r.is_finite()),
        tv_distance: law.tv_distance_from_uniform(),
        alpha,
        model: power_summary(Some(&result), None, alpha, n + 2),
        positions: law.position_matrix(),
        most_likely,
        least_likely,
        permutations: table,
        notes,
    }
}

/// One permutation statistic in a marginal report: its histogram, its law, and its χ² test.
#[derive(Debug, Clone, Serialize)]
pub struct StatisticResult {
    /// `fixed-points`, `cycles`, `rising-sequences` or `adjacent-pairs`.
    pub name: &'static str,
    /// What it counts.
    pub definition: &'static str,
    /// `observed[v]`: shuffles in which the statistic was v (v from 0; trailing values that
    /// were never seen and have probability below 1e-12 everywhere are left out).
    pub observed: Vec<u64>,
    /// Probability of each value under the hypothesis tested (uniform or the model).
    pub expected: Vec<f64>,
    /// Probability of each value under uniform shuffling (exact, Statistic::uniform_law).
    pub uniform: Vec<f64>,
    /// Probability of each value under the algorithm's own law, when known.
    pub theory: Option<Vec<f64>>,
    /// Mean of the observed values.
    pub mean_observed: f64,
    /// Mean under the hypothesis tested.
    pub mean_expected: f64,
    /// The pooled cells of the χ² test, `[start, end)` value ranges, each expected ≥ 5 times
    /// (the last may run past `observed`). A single cell means that χ² could not be used and
    /// the test is `exact-binomial-outside-mode` (see `tests`).
    pub bins: Vec<[usize; 2]>,
    /// The χ² statistic over the pooled cells; for `exact-binomial-outside-mode`, the number of
    /// shuffles outside the likeliest value.
    pub chi_square: f64,
    /// Its degrees of freedom (cells − 1; 0 for `exact-binomial-outside-mode`).
    pub df: f64,
    /// Its p-value (null below 1e-300; see the test of the same name in `tests`).
    pub p_value: Option<f64>,
    /// log10 of the p-value.
    pub log10_p_value: f64,
}

/// The exact laws a marginal report can compare with, where known.
#[derive(Debug, Clone, Default)]
pub struct MarginalTheory {
    /// The algorithm's position matrix `[card][position]`.
    pub positions: Option<Vec<Vec<f64>>>,
    /// The probability that the deck comes back unchanged (with its logarithm: it can be below
    /// f64's range).
    pub identity: Option<Probability>,
    /// The law of each statistic (in `Statistic::ALL` order), when known.
    pub statistics: Vec<Option<ValueLaw>>,
    /// Where these laws come from, for the notes (e.g. "the exact law", "Bayer & Diaconis").
    pub source: Option<String>,
}

impl MarginalTheory {
    /// Everything a full exact law implies: its position matrix, its identity probability and
    /// the law of each statistic (the law pushed through the statistic).
    pub fn from_law(law: &Law) -> Self {
        let n = law.deck;
        let mut statistics: Vec<Vec<f64>> = Statistic::ALL
            .iter()
            .map(|s| vec![0.0; s.max_value(n) + 1])
            .collect();
        let mut scratch = vec![0usize; n];
        for_each_in_rank_order(n, |rank, deck| {
            let p = law.probabilities[rank];
            if p > 0.0 {
                let values = StatisticValues::of(deck, &mut scratch);
                for (law, &statistic) in statistics.iter_mut().zip(Statistic::ALL.iter()) {
                    law[values.get(statistic)] += p;
                }
            }
        });
        MarginalTheory {
            positions: Some(law.position_matrix()),
            identity: Some(Probability::from_p(law.probabilities[0])),
            statistics: statistics
                .into_iter()
                .map(|law| Some(ValueLaw::from_probabilities(law)))
                .collect(),
            source: Some("the exact law".to_string()),
        }
    }

    /// What the Gilbert–Shannon–Reeds model gives in closed form for `passes` riffles of `n`
    /// cards (Bayer & Diaconis 1992): the law of the rising sequences, and the identity (the one
    /// ordering with a single rising sequence).
    pub fn riffle(n: usize, passes: u32) -> Self {
        let rising = riffle_rising_value_law(n, passes);
        MarginalTheory {
            positions: None,
            identity: Some(rising.get(1)),
            statistics: Statistic::ALL
                .iter()
                .map(|&s| (s == Statistic::RisingSequences).then(|| rising.clone()))
                .collect(),
            source: Some("the riffle closed form of Bayer & Diaconis (1992)".to_string()),
        }
    }

    fn statistic(&self, index: usize) -> Option<&ValueLaw> {
        self.statistics.get(index).and_then(Option::as_ref)
    }
}

/// 1/n! as the nearest f64 (subnormal from n = 171 on and 0 from 178 on, below the f64 range)
/// with its logarithm −ln n!, which the identity test uses.
fn uniform_ordering_probability(n: usize) -> Probability {
    let (one, total) = (BigUint::from(1u8), big_factorial(n));
    Probability::from_parts(ratio_to_f64(&one, &total), ratio_to_ln(&one, &total))
}

fn mean(probabilities: impl Iterator<Item = f64>) -> f64 {
    probabilities.enumerate().map(|(v, p)| v as f64 * p).sum()
}

/// Build the report of a run or check in marginal mode.
///
/// The family: one χ² test per final position (the cards found there, against 1/n or the
/// theory's column), the exact binomial test of the identity (from the log of its probability,
/// which may be below f64's range), and one test per statistic ([`statistic_test`]): χ² over
/// cells pooled to an expected count of at least 5, the exact binomial test outside the
/// likeliest value when fewer than two such cells exist, and an outright rejection when a
/// value of probability zero is seen. Against the model, a test whose law the model does not
/// give is left out (and a note says so).
pub fn build_marginal_report(
    facts: &RunFacts,
    tally: MarginalTally,
    theory: MarginalTheory,
) -> RunReport {
    let algorithm_name = facts.shuffle.map_or("the input".to_string(), |s| s.label());
    let n = tally.deck;
    let trials = tally.trials;
    let trials_f = trials as f64;
    let uniform_identity = uniform_ordering_probability(n);
    let against_model = facts.against == Against::Model;
    let mut notes = Vec::new();
    let mut warnings = Vec::new();
    let mut left_out = Vec::new();
    notes.extend(facts.riffle_note(n));

    let positions = tally.position_matrix();
    let mut drafts = Vec::with_capacity(n + 1 + Statistic::ALL.len());
    match (against_model, &theory.positions) {
        (true, None) => left_out.push("the positions".to_string()),
        (_, matrix) => {
            for position in 0..n {
                drafts.push(goodness_of_fit(
                    format!("position {position}"),
                    (0..n).map(|card| {
                        let p = match (against_model, matrix) {
                            (true, Some(matrix)) => matrix[card][position],
                            _ => 1.0 / n as f64,
                        };
                        (positions[card][position], p)
                    }),
                    trials,
                ));
            }
        }
    }
    match (against_model, theory.identity) {
        (true, None) => left_out.push("the identity".to_string()),
        (true, Some(p0)) => drafts.push(identity_test(tally.identity, trials, p0)),
        (false, _) => drafts.push(identity_test(tally.identity, trials, uniform_identity)),
    }

    // The statistics: their drafts go into the family, their tables into the report.
    let mut statistics = Vec::new();
    for (index, &statistic) in Statistic::ALL.iter().enumerate() {
        let uniform_law = statistic.uniform_value_law(n);
        let model = theory.statistic(index);
        let law = match (against_model, model) {
            (true, None) => {
                left_out.push(statistic.name().to_string());
                continue;
            }
            (true, Some(model)) => model,
            (false, _) => &uniform_law,
        };
        let uniform = &uniform_law.probabilities;
        let model = model.map(|m| &m.probabilities);
        let expected = &law.probabilities;
        let observed = tally.histogram(statistic);
        let expected_counts: Vec<f64> = expected.iter().map(|p| p * trials_f).collect();
        let bins = pool_bins(&expected_counts, MIN_EXPECTED_COUNT);
        let draft = statistic_test(statistic.name(), observed, law, &bins, trials);
        let significant = |p: &f64| *p >= 1e-12;
        let shown = observed
            .iter()
            .rposition(|&c| c > 0)
            .into_iter()
            .chain(expected.iter().rposition(significant))
            .chain(uniform.iter().rposition(significant))
            .chain(model.and_then(|m| m.iter().rposition(significant)))
            .max()
            .map_or(0, |last| last + 1);
        statistics.push(StatisticResult {
            name: statistic.name(),
            definition: statistic.definition(),
            observed: observed[..shown].to_vec(),
            mean_observed: ratio(
                observed
                    .iter()
                    .enumerate()
                    .map(|(v, &c)| v as f64 * c as f64)
                    .sum(),
                trials_f,
            ),
            mean_expected: mean(expected.iter().copied()),
            expected: expected[..shown].to_vec(),
            uniform: uniform[..shown].to_vec(),
            theory: model.map(|m| m[..shown].to_vec()),
            bins: bins.iter().map(|b| [b.start, b.end]).collect(),
            chi_square: draft.statistic,
            df: draft.df.unwrap_or(0.0),
            p_value: plain(draft.p),
            log10_p_value: draft.p.log10,
        });
        drafts.push(draft);
    }
    if drafts.is_empty() {
        drafts.push(Draft {
            name: "none".to_string(),
            method: "none",
            statistic: 0.0,
            df: None,
            p: PValue::ONE,
            note: Some("the model gives no law to test against".to_string()),
        });
    }
    let tests = decide(drafts, facts.alpha);
    let bias_detected = tests.iter().any(|t| t.rejected);

    if let Some(source) = &theory.source {
        notes.push(format!(
            "marginal mode: positions, identity and {} statistics are tallied instead of \
             the {n}! orderings; theory from {source}",
            Statistic::ALL.len()
        ));
    } else if facts.shuffle.is_none() {
        notes.push(format!(
            "marginal mode: positions, identity and {} statistics are tallied instead of \
             the {n}! orderings",
            Statistic::ALL.len()
        ));
    } else {
        notes.push(format!(
            "marginal mode: positions, identity and {} statistics are tallied instead of \
             the {n}! orderings; no exact law of {algorithm_name} is known at {n} cards, so \
             theory columns are empty",
            Statistic::ALL.len()
        ));
    }
    if !left_out.is_empty() {
        notes.push(format!(
            "against the model, {} could not be tested: the model gives no law for them",
            left_out.join(", ")
        ));
    }
    notes.extend(facts.skipped_lines_note());
    let per_cell = trials_f / n as f64;
    if trials > 0 && per_cell < MIN_EXPECTED_COUNT {
        warnings.push(format!(
            "each card is expected {per_cell:.2} times at each position (< 5): the χ² \
             p-values of the position tests are unreliable; use at least {} {}",
            (MIN_EXPECTED_COUNT * n as f64).ceil() as u64,
            match facts.origin {
                Origin::Simulation { .. } => "trials",
                Origin::Input(_) => "permutations",
            }
        ));
    }

    let hypothesis_name = if against_model {
        format!("the exact law of {algorithm_name}")
    } else {
        "uniform".to_string()
    };
    let verdict = verdict_sentence(&tests, bias_detected, facts.alpha, &hypothesis_name);
    let frequencies: Vec<Vec<f64>> = positions
        .iter()
        .map(|row| row.iter().map(|&c| ratio(c as f64, trials_f)).collect())
        .collect();
    let largest_deviation = largest_deviation(&frequencies);
    let orderings = (n <= 20).then(|| factorial(n));
    RunReport {
        tool: "shuffle-bias",
        version: env!("CARGO_PKG_VERSION"),
        command: facts.command,
        algorithm: facts.shuffle.map(|s| s.algorithm.name()),
        passes: facts.shuffle.map(|s| s.passes),
        cut_probability: facts.shuffle.and_then(Shuffle::cut_probability_used),
        definition: facts.shuffle.map(|s| s.algorithm.definition()),
        meant_uniform: facts.shuffle.map(|s| s.algorithm.meant_uniform()),
        input: facts.input().cloned(),
        deck: n,
        orderings,
        mode: TallyMode::Marginal,
        trials,
        trials_requested: facts.trials_requested,
        interrupted: facts.interrupted,
        seed: facts.simulation().map(|(seed, _, _)| seed),
        rng: facts.simulation().map(|(_, rng, _)| rng),
        threads: facts.simulation().map(|(_, _, threads)| threads),
        elapsed_seconds: facts.elapsed_seconds,
        shuffles_per_second: ratio(trials_f, facts.elapsed_seconds),
        alpha: facts.alpha,
        against: facts.against,
        bias_detected,
        verdict,
        notes,
        warnings,
        tests,
        identity: Identity {
            count: tally.identity,
            frequency: ratio(tally.identity as f64, trials_f),
            expected_frequency: uniform_identity.p,
            theory_frequency: theory.identity.map(|p0| p0.p),
            theory_fraction: None,
        },
        max_min_ratio: None,
        max_min_ratio_theory: None,
        never_seen: None,
        tv_distance: None,
        tv_distance_theory: None,
        model: power_summary(None, Some(trials), facts.alpha, 1),
        positions: Positions {
            counts: positions,
            frequencies,
            expected_frequency: 1.0 / n as f64,
            theory: theory.positions,
            largest_deviation,
        },
        most_frequent: Vec::new(),
        least_frequent: Vec::new(),
        permutations: PermutationTable {
            deck: n,
            trials,
            counts: Arc::new(Vec::new()),
            law: None,
            listed: true,
        },
        statistics,
    }
}

fn is_one(passes: &u32) -> bool {
    *passes == 1
}

fn is_one_pass(passes: &Option<u32>) -> bool {
    passes.is_none_or(|passes| passes == 1)
}

impl RunReport {
    /// The shuffle as headers name it (`riffle · 3 passes`), or None without an algorithm.
    pub fn shuffle_label(&self) -> Option<String> {
        self.algorithm
            .map(|name| shuffle_label(name, self.cut_probability, self.passes.unwrap_or(1)))
    }
}

impl TheoryReport {
    /// The shuffle as headers name it (`riffle · 3 passes`).
    pub fn shuffle_label(&self) -> String {
        shuffle_label(self.algorithm, self.cut_probability, self.passes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn law(probabilities: &[f64]) -> ValueLaw {
        ValueLaw::from_probabilities(probabilities.to_vec())
    }

    fn bins(law: &ValueLaw, trials: u64) -> Vec<std::ops::Range<usize>> {
        let expected: Vec<f64> = law
            .probabilities
            .iter()
            .map(|p| p * trials as f64)
            .collect();
        pool_bins(&expected, MIN_EXPECTED_COUNT)
    }

    #[test]
    fn one_pooled_cell_falls_back_to_the_binomial_test_outside_the_likeliest_value() {
        // Values 0..4 with P = 0, 0.998, 0.001, 0.001; 4 trials expect 3.992 at value 1 and
        // 0.008 elsewhere, so pooling gives one cell. All 4 shuffles at value 2, outside the
        // likeliest value 1: K ~ Bin(4, 0.002) under the hypothesis, P(K ≥ 4) = 0.002^4,
        // and the doubled tail is 2·0.002^4 = 3.2e−11.
        let law = law(&[0.0, 0.998, 0.001, 0.001]);
        assert_eq!(bins(&law, 4), vec![0..4]);
        let draft = statistic_test("s", &[0, 0, 4, 0], &law, &bins(&law, 4), 4);
        assert_eq!(draft.method, "exact-binomial-outside-mode");
        assert_eq!(draft.statistic, 4.0);
        assert_relative_eq!(draft.p.p, 2.0 * 0.002f64.powi(4), max_relative = 1e-9);
        assert!(
            draft
                .note
                .unwrap()
                .contains("outside the likeliest value 1")
        );
        // All at the likeliest value: K = 0, P(K ≤ 0) = 0.998^4 > ½, so p = 1.
        let fair = statistic_test("s", &[0, 4, 0, 0], &law, &bins(&law, 4), 4);
        assert_eq!(fair.p, PValue::ONE);
        // One shuffle off the mode: P(K ≥ 1) = 1 − 0.998^4, doubled.
        let one = statistic_test("s", &[0, 3, 1, 0], &law, &bins(&law, 4), 4);
        assert_relative_eq!(one.p.p, 2.0 * (1.0 - 0.998f64.powi(4)), max_relative = 1e-9);
        // No trials: nothing to test.
        assert_eq!(
            statistic_test("s", &[0, 0, 0, 0], &law, &bins(&law, 0), 0).p,
            PValue::ONE
        );
    }

    #[test]
    fn a_value_of_probability_zero_rejects_even_when_pooled_into_a_neighbour() {
        // P = ½, ½, 0 over 100 trials: pooling folds value 2 into the cell [1, 3), where its one
        // observation would vanish into χ² = 0.01.
        let law = law(&[0.5, 0.5, 0.0]);
        let pooled = bins(&law, 100);
        assert_eq!(pooled, vec![0..1, 1..3]);
        let draft = statistic_test("s", &[50, 49, 1], &law, &pooled, 100);
        assert_eq!(draft.p, PValue::ZERO);
        assert_eq!(draft.method, "pearson-chi-square");
        assert_eq!(
            draft.note.as_deref(),
            Some("the value 2 is impossible under the hypothesis but was seen 1 time")
        );
        // Without it, the same law fits.
        let fine = statistic_test("s", &[50, 50, 0], &law, &pooled, 100);
        assert_eq!(fine.p, PValue::ONE);
    }

    #[test]
    fn a_probability_below_the_f64_range_is_rare_not_impossible() {
        // P(value 1) = e^−1000 is 0 as an f64 yet possible: seeing it once in 10 trials is
        // tested (log10 p = log10 2 + log10 10 − 1000·log10 e), not declared impossible.
        let law = ValueLaw {
            probabilities: vec![1.0, 0.0],
            ln_probabilities: vec![0.0, -1000.0],
        };
        let pooled = bins(&law, 10);
        let draft = statistic_test("s", &[9, 1], &law, &pooled, 10);
        assert_eq!(draft.method, "exact-binomial-outside-mode");
        assert_relative_eq!(
            draft.p.log10,
            2f64.log10() + 1.0 - 1000.0 * std::f64::consts::LOG10_E,
            max_relative = 1e-12
        );
        assert!(!draft.note.unwrap().contains("impossible"));
    }

    #[test]
    fn impossible_values_are_listed_as_runs() {
        assert_eq!(value_list(&[3, 19, 20, 21, 22, 40, 41]), "3, 19–22, 40, 41");
        assert_eq!(
            value_list(&[0, 2, 4, 6, 8, 10, 12, 14, 16, 17, 18, 30]),
            "0, 2, 4, 6, 8, 10, 12, 14 and 4 more"
        );
    }

    #[test]
    fn the_uniform_identity_of_200_cards_is_possible() {
        // 1/200! is 0 as an f64; its log is −ln 200! (log10 200! = 374.8968886400402524).
        let p0 = uniform_ordering_probability(200);
        assert_eq!(p0.p, 0.0);
        assert_relative_eq!(p0.log10(), -374.896_888_640_040_25, max_relative = 1e-13);
        let seen_once = identity_test(1, 1000, p0);
        assert!(seen_once.note.is_none());
        assert_relative_eq!(
            seen_once.p.log10,
            2f64.log10() + 3.0 - 374.896_888_640_040_25,
            max_relative = 1e-12
        );
        assert_eq!(identity_test(0, 1000, p0).p, PValue::ONE);
        assert_eq!(identity_test(1, 1000, Probability::ZERO).p, PValue::ZERO);
    }
}
