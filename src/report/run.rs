//! The report model: plain, serialisable data that every exporter reads.
//!
//! [`build_run_report`] turns a tally (and, when available, the algorithm's exact law) into the
//! family of tests, the verdict and every figure shown to the user; [`build_theory_report`] does
//! the same for the law alone. Nothing here prints or formats for a terminal: that is the
//! exporters' job. The JSON schema is this module's `Serialize` output; every field is
//! documented here and in the README.

use std::sync::Arc;

use serde::Serialize;
use serde::ser::SerializeSeq;

pub use crate::analysis::MIN_EXPECTED_COUNT;
pub use crate::analysis::decision::{TestResult, format_p};
pub use crate::analysis::figures::{EXTREMES, PositionDeviation};
pub use crate::analysis::power::{ModelSummary, TARGET_POWER};

use crate::analysis::decision::{bias_detected, decide, verdict_sentence};
use crate::analysis::figures::{
    extreme_ranks, frequencies, largest_deviation, max_min_ratio, mean, observed_mean,
    position_counts, tv_distance,
};
use crate::analysis::goodness_of_fit::{goodness_of_fit, pooled_cells, statistic_test};
use crate::analysis::identity::{identity_test, uniform_ordering_probability};
use crate::analysis::power::power_summary;
use crate::analysis::{Draft, plain, ratio};
use crate::engine::algorithms::{Card, CutProbability, Shuffle, shuffle_label};
use crate::engine::marginal::MarginalTally;
use crate::engine::permutation::{factorial, for_each_in_rank_order, unrank};
use crate::engine::random_source::RngKind;
use crate::engine::simulate::Tally;
use crate::engine::tally::TallyMode;
use crate::input::permutation_reader::{InvalidLine, Numbering};
use crate::stats::probability::Probability;
use crate::theory::exact::{ExactError, Law};
use crate::theory::mixing::riffle_note;
use crate::theory::permutation_statistics::{
    Statistic, StatisticValues, ValueLaw, riffle_rising_value_law,
};

/// Which hypothesis the verdict tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Against {
    /// Every ordering equally likely (1/n!).
    Uniform,
    /// The algorithm's own exact law (does the output match what this algorithm should do?).
    Model,
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
    let bias_detected = bias_detected(&tests);

    // Figures.
    let never_seen = counts.iter().filter(|&&c| c == 0).count() as u64;
    let frequencies = frequencies(&positions, trials);
    let largest_deviation = largest_deviation(&frequencies);

    let table = PermutationTable {
        deck: n,
        trials,
        counts: counts.clone(),
        law: model.cloned(),
        listed: facts.all_orderings || n <= MAX_LISTED_DECK,
    };
    let (most, least) = extreme_ranks(&counts);
    let most_frequent: Vec<PermutationRow> = most.into_iter().map(|r| table.row(r)).collect();
    let least_frequent: Vec<PermutationRow> = least.into_iter().map(|r| table.row(r)).collect();

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

    let verdict = verdict_sentence(&tests, facts.alpha, &hypothesis_name);
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
        max_min_ratio: max_min_ratio(&counts),
        max_min_ratio_theory: model.map(|l| l.max_min_ratio()).filter(|r| r.is_finite()),
        never_seen: Some(never_seen),
        tv_distance: Some(tv_distance(&counts, trials)),
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
        let bins = pooled_cells(law, trials);
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
            mean_observed: observed_mean(observed, trials),
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
        drafts.push(Draft::nothing_to_test(
            "the model gives no law to test against",
        ));
    }
    let tests = decide(drafts, facts.alpha);
    let bias_detected = bias_detected(&tests);

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
    let verdict = verdict_sentence(&tests, facts.alpha, &hypothesis_name);
    let frequencies = frequencies(&positions, trials);
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
