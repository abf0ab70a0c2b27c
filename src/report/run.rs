//! The report model of `run` and `check`: plain, serialisable data that every exporter reads.
//!
//! A [`RunReport`] is a common header ([`RunHeader`]: what was tallied and how), the family of
//! tests with its verdict and the figures every mode has, and a [`ModePart`]: the figures of a
//! full tally (every ordering), of a marginal one (positions, identity, statistics), or of dealt
//! hands (`check --deal K`: slots, identity, poker hands).
//! [`build_run_report`] (in `run/full.rs`), [`build_marginal_report`] (in `run/marginal.rs`)
//! and [`build_deal_report`] (in `run/deal.rs`) build it in named steps, calling
//! [`crate::analysis`] for every test and figure; nothing here prints or formats for a
//! terminal. The JSON schema is this module's `Serialize` output, one flat object whose field
//! order never changes; every field is documented here and in the README.

use crate::engine::mapped_source::SourceSpec;
use crate::theory::reachable::Reachable;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde::ser::{SerializeSeq, SerializeStruct};

pub use crate::analysis::decision::TestResult;
pub use crate::analysis::figures::PositionDeviation;
pub use crate::analysis::power::ModelSummary;
pub use crate::analysis::sequential::SequentialOutcome;
pub use deal::{DealTheory, build_deal_report};
pub use deal_stream::{
    CompositionsReport, DealStreamReport, MatchesReport, NotRun, RepeatsReport, SlotsReport,
};
pub use full::{build_run_report, build_run_report_with_deals};
pub use marginal::{build_marginal_report, build_marginal_report_with_deals};

mod deal;
mod deal_stream;
mod full;
mod marginal;
mod ruled_out;
mod sequential;

pub use sequential::format_e_value;

use super::notes::{Note, TrialUnit, Warning};
use crate::analysis::decision::{bias_detected, decide, verdict_sentence};
use crate::analysis::diagnosis::Diagnosis;
use crate::analysis::figures::mean;
use crate::analysis::figures::{frequencies, largest_deviation};
use crate::analysis::goodness_of_fit::position_test;
use crate::analysis::predictability::Predictability;
use crate::analysis::ruled_out::{Gate, RuledOut};
use crate::analysis::{Draft, ratio};
use crate::engine::algorithms::{Algorithm, Card, CutProbability, Shuffle, shuffle_label};
use crate::engine::permutation::{factorial, for_each_in_rank_order, unrank};
use crate::input::line_format::LineFormat;
use crate::input::permutation_reader::{InvalidLine, Numbering};
use crate::report::case::CaseReport;
use crate::stats::probability::Probability;
use crate::theory::exact::Law;
use crate::theory::permutation_statistics::{
    Statistic, StatisticValues, ValueLaw, ratio_to_f64, ratio_to_ln, riffle_descent_law,
    riffle_rising_value_law, riffle_valley_law,
};
use crate::theory::shelf::{shelf_law, shelf_valley_law};

/// Which hypothesis the verdict tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Against {
    /// Every ordering equally likely (1/n!).
    Uniform,
    /// The algorithm's own exact law (does the output match what this algorithm should do?).
    Model,
}

/// How often the deck came back in its starting order.
#[derive(Debug, Clone, Serialize, JsonSchema)]
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
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Positions {
    /// `counts[card][position]`: shuffles in which `card` (starting at position `card`) ended
    /// at `position` (in deal mode `counts[card][slot]`: deals whose `slot`-th card was `card`,
    /// n rows of K columns).
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
#[derive(Debug, Clone, Serialize, JsonSchema)]
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
pub(super) fn serialize_rows<S: serde::Serializer, R: Serialize>(
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

/// In the JSON schema as what it serialises to: null, or every ordering's row.
impl JsonSchema for PermutationTable {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PermutationTable".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Option<Vec<PermutationRow>>>::json_schema(generator)
    }
}

impl Serialize for PermutationTable {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.listed {
            return serializer.serialize_none();
        }
        serialize_rows(serializer, self.len(), self.rows())
    }
}

/// The report of `run` and `check`: a header saying what was tallied and how, the family of
/// tests with its verdict and the figures every mode has, and the part only one tally mode has.
///
/// JSON keeps one flat object in a fixed field order (see the `Serialize` impl): the fields of
/// the other mode's part are null or empty there, as they always were.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// What was run or checked, and how.
    pub header: RunHeader,
    /// Whether any test of the family rejected the hypothesis after Holm's adjustment.
    pub bias_detected: bool,
    /// One sentence saying what was found.
    pub verdict: String,
    /// Facts worth reading beside the verdict.
    pub notes: Vec<Note>,
    /// Conditions that weaken the tests (printed on stderr; kept here for machine readers).
    pub warnings: Vec<Warning>,
    /// The family: permutations (full mode), identity, one per position, and the statistics
    /// (marginal mode).
    pub tests: Vec<TestResult>,
    /// Identity frequency.
    pub identity: Identity,
    /// The exact law and detection power.
    pub model: ModelSummary,
    /// Position marginals.
    pub positions: Positions,
    /// What only the tally's mode has.
    pub part: ModePart,
    /// The tests of the stream of deals and their figures (null with `--no-deal-tests`).
    pub deal_stream: Option<DealStreamReport>,
    /// The anytime-valid sequential test, under `--until-decided` (JSON `sequential`, left out
    /// otherwise).
    pub sequential: Option<SequentialOutcome>,
    /// What the sample rules out, each statement at 99% confidence (against uniform; null
    /// against a model, whose pass is not a claim of fairness).
    pub ruled_out: Option<RuledOut>,
    /// The equivalence gate of `--max-bias SIZE` (JSON `gate`, left out without the flag).
    pub gate: Option<Gate>,
    /// `--explain`: which bug the tally looks like — the models that fit and the signatures
    /// (JSON `diagnosis`, left out without the flag).
    pub diagnosis: Option<Diagnosis>,
    /// A source re-seeded from at most 2^32 seeds: how many visible cards identify the deck.
    pub predictability: Option<Predictability>,
    /// `case NAME` only: the deployed shuffle emulated and its published figures.
    pub case: Option<CaseReport>,
}

/// What was run or checked, and how: the fields every run report starts with.
#[derive(Debug, Clone)]
pub struct RunHeader {
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
    pub passes: Option<u32>,
    /// The overhand shuffle's cut probability (null, and left out of JSON, for the other
    /// algorithms).
    pub cut_probability: Option<CutProbability>,
    /// The shelf shuffler's number of shelves (null, and left out of JSON, for the other
    /// algorithms).
    pub shelves: Option<u16>,
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
    /// Shuffles tallied (for `check`, permutations read).
    pub trials: u64,
    /// Shuffles asked for (more than `trials` only when interrupted).
    pub trials_requested: u64,
    /// Whether the run was interrupted before all trials were done.
    pub interrupted: bool,
    /// The seed; the same seed gives the same counts, whatever the threads (null for `check`).
    pub seed: Option<u64>,
    /// The random source (null for `check`): in JSON `rng`, `map`, `bits` (the width of the
    /// words the mapping sees), `state_bits` (the generator's), and `reseed`, `seed_bits` and
    /// `seeds` (null unless re-seeded before every shuffle).
    pub source: Option<SourceSpec>,
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
    /// What the random source can reach of the deck's orderings: its state (or seed) bits
    /// beside log2(n!) (always for `run`; for `check` only with `--state-bits`).
    pub reachable: Option<SourceReach>,
    /// For `merge` only (left out of JSON otherwise): the tally files merged, and the time of
    /// the merge itself. `elapsed_seconds` of a merged report is then the sum of the files'
    /// own times, and `threads` the most any of them used.
    pub merged: Option<MergedFrom>,
}

/// What a merged report was made of.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct MergedFrom {
    /// The tally files, in the order given.
    pub files: Vec<MergedFile>,
    /// Wall-clock seconds of the merge: reading, checking and adding the files.
    pub merge_seconds: f64,
}

/// One tally file of a merge.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct MergedFile {
    /// The file, as given.
    pub file: String,
    /// Shuffles (or permutations) it holds.
    pub trials: u64,
    /// Wall-clock seconds of its simulation or reading.
    pub elapsed_seconds: f64,
    /// Its `--shard` `[I, K]` (null for `check`).
    pub shard: Option<[u64; 2]>,
    /// Worker threads of its process (null for `check`).
    pub threads: Option<usize>,
    /// The inputs it read, in order (null for `run`).
    pub sources: Option<Vec<String>>,
    /// Lines read from its inputs (null for `run`).
    pub lines: Option<u64>,
    /// Whether it was cut short (Ctrl-C).
    pub interrupted: bool,
}

/// The random source's bits of state (or of seed) beside the bits of the deck's orderings.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SourceReach {
    /// The source, e.g. `xorshift128+` or `mt19937 re-seeded from 32 bits before every shuffle`.
    pub source: String,
    /// What its bits are of: `state`, or `seed` when it is re-seeded before every shuffle.
    pub bits_of: &'static str,
    /// Its state bits, log2(n!), whether some orderings are out of reach, and the largest
    /// fraction it can reach.
    #[serde(flatten)]
    pub reach: Reachable,
}

/// What only one tally mode has.
#[derive(Debug, Clone)]
pub enum ModePart {
    /// Every ordering tallied.
    Full(FullPart),
    /// Positions, identity and permutation statistics only.
    Marginal(MarginalPart),
    /// Dealt hands (`check --deal K`): slots, identity and the game's hands.
    Deal(DealPart),
}

/// The kind of report, as JSON's `mode` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReportMode {
    /// Every ordering tallied.
    Full,
    /// Positions, identity and permutation statistics.
    Marginal,
    /// Dealt hands.
    Deal,
}

/// The figures of a deal tally (`check --deal K`). The family's slot tests are named `slot 0`
/// … `slot K−1`; the report's `positions` matrix is `[card][slot]` (n rows of K columns).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DealPart {
    /// Cards per deal (K).
    pub cards_per_deal: usize,
    /// The deck the cards are drawn from (n).
    pub deck: usize,
    /// Possible ordered deals, n!/(n−K)! (null above 2^64).
    pub possible_deals: Option<u64>,
    /// The game whose hands are tested: `poker`, or null.
    pub game: Option<&'static str>,
    /// The five-card poker hands, with `--game poker` (null otherwise).
    pub poker: Option<PokerPart>,
}

/// One poker hand category in a report.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CategoryRow {
    /// `high card`, `one pair`, …, `straight flush`.
    pub category: &'static str,
    /// Hands of this category.
    pub observed: u64,
    /// observed / hands.
    pub frequency: f64,
    /// Its hands among the C(52, 5) = 2,598,960 (the exact count).
    pub exact_count: u64,
    /// exact_count / 2,598,960.
    pub probability: f64,
    /// hands × probability.
    pub expected: f64,
}

/// The poker hands of a deal report: categories and consecutive categories, with their tests.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PokerPart {
    /// The nine categories, weakest first.
    pub categories: Vec<CategoryRow>,
    /// The pooled cells of the category test, `[start, end)` ranges of category indices (0 =
    /// high card), each expected ≥ 5 times.
    pub cells: Vec<[usize; 2]>,
    /// The category test's χ² (for `exact-binomial-outside-mode`, the hands outside the
    /// likeliest category).
    pub chi_square: f64,
    /// Its degrees of freedom (cells − 1).
    pub df: f64,
    /// Its p-value (null below 1e-300; see the test `poker hands`).
    pub p_value: Option<f64>,
    /// log10 of the p-value.
    pub log10_p_value: f64,
    /// The category of each hand against the category of the hand before it.
    pub transitions: TransitionPart,
}

/// The table of consecutive hands' categories and its test of independence.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TransitionPart {
    /// `counts[a][b]`: hands of category b (index in `categories`) dealt right after a hand of
    /// category a; hands − 1 pairs in all.
    pub counts: Vec<Vec<u64>>,
    /// The classes the table was pooled into for the test, `[start, end)` ranges of category
    /// indices, each holding at least √(5·pairs) hands.
    pub classes: Vec<[usize; 2]>,
    /// `pooled[a][b]`: the table over those classes.
    pub pooled: Vec<Vec<u64>>,
    /// The smallest expected cell of the pooled table (row sum × column sum / pairs).
    pub smallest_expected: f64,
    /// Pearson's χ² of independence.
    pub chi_square: f64,
    /// Its degrees of freedom, (classes − 1)².
    pub df: f64,
    /// Its p-value (null below 1e-300; see the test `poker transitions`).
    pub p_value: Option<f64>,
    /// log10 of the p-value.
    pub log10_p_value: f64,
}

/// The figures of a full tally: every ordering's count.
#[derive(Debug, Clone)]
pub struct FullPart {
    /// Largest count / smallest count over all n! orderings (null when one was never seen).
    pub max_min_ratio: Option<f64>,
    /// The same ratio of exact probabilities (null when some ordering is impossible).
    pub max_min_ratio_theory: Option<f64>,
    /// Orderings never seen.
    pub never_seen: u64,
    /// ½ Σ |frequency − 1/n!|.
    pub tv_distance: f64,
    /// The exact law's distance from uniform.
    pub tv_distance_theory: Option<f64>,
    /// The most frequent orderings.
    pub most_frequent: Vec<PermutationRow>,
    /// The least frequent orderings.
    pub least_frequent: Vec<PermutationRow>,
    /// Every ordering.
    pub permutations: PermutationTable,
}

/// The guessing game of a marginal report, in one line: how many cards of the deck a player shown
/// each card after guessing it got right on average (the strategy of
/// [`Statistic::Guessing`]), against what any player gets by chance from a uniform deck, H_n.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct GuessingGame {
    /// Cards in the deck.
    pub deck: usize,
    /// The mean number of cards guessed right over the tallied decks.
    pub guessed: f64,
    /// The mean by chance, from a uniform deck: H_n = 1 + 1/2 + … + 1/n.
    pub by_chance: f64,
    /// The mean under the algorithm's law, when known.
    pub theory: Option<f64>,
}

impl GuessingGame {
    /// "a player could guess 9.30 of 52 cards, 4.54 by chance".
    pub fn sentence(&self) -> String {
        format!(
            "a player shown each card after guessing it could guess {:.2} of {} cards, {:.2} by \
             chance",
            self.guessed, self.deck, self.by_chance
        )
    }
}

/// The figures of a marginal tally.
#[derive(Debug, Clone)]
pub struct MarginalPart {
    /// The permutation statistics and their tests.
    pub statistics: Vec<StatisticResult>,
}

impl RunReport {
    /// `full`, `marginal` or `deal`.
    pub fn mode(&self) -> ReportMode {
        match self.part {
            ModePart::Full(_) => ReportMode::Full,
            ModePart::Marginal(_) => ReportMode::Marginal,
            ModePart::Deal(_) => ReportMode::Deal,
        }
    }

    /// The full part, when every ordering was tallied.
    pub fn full(&self) -> Option<&FullPart> {
        match &self.part {
            ModePart::Full(full) => Some(full),
            _ => None,
        }
    }

    /// The deal part, when dealt hands were tallied.
    pub fn deal(&self) -> Option<&DealPart> {
        match &self.part {
            ModePart::Deal(deal) => Some(deal),
            _ => None,
        }
    }

    /// The permutation statistics (marginal mode; none in full mode, where the permutations
    /// test covers every ordering, nor in deal mode).
    pub fn statistics(&self) -> &[StatisticResult] {
        match &self.part {
            ModePart::Marginal(marginal) => &marginal.statistics,
            _ => &[],
        }
    }

    /// Marginal mode: the guessing game's line (None in the other modes).
    pub fn guessing_game(&self) -> Option<GuessingGame> {
        let game = self
            .statistics()
            .iter()
            .find(|s| s.name == Statistic::Guessing.name())?;
        Some(GuessingGame {
            deck: self.header.deck,
            guessed: game.mean_observed,
            by_chance: mean(game.uniform.iter().copied()),
            theory: game.theory.as_ref().map(|law| mean(law.iter().copied())),
        })
    }

    /// The shuffle as headers name it (`riffle · 3 passes`), or None without an algorithm.
    pub fn shuffle_label(&self) -> Option<String> {
        let header = &self.header;
        header.algorithm.map(|name| {
            shuffle_label(
                name,
                header.cut_probability,
                header.shelves,
                header.passes.unwrap_or(1),
            )
        })
    }
}

/// One flat JSON object, in the order the report has always had: the header (with `mode` after
/// `orderings`), the verdict and the tests, the full part's figures (null or empty in marginal
/// and deal mode) around the model and positions, then the statistics (empty in full and deal
/// mode), and last, in deal mode only, `deal`.
impl Serialize for RunReport {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let h = &self.header;
        let skip_passes = h.passes.is_none_or(|passes| passes == 1);
        let skip_cut = h.cut_probability.is_none();
        let skip_shelves = h.shelves.is_none();
        let deal = self.deal();
        let fields =
            52 - usize::from(skip_passes) - usize::from(skip_cut) - usize::from(skip_shelves)
                + usize::from(deal.is_some())
                - usize::from(self.sequential.is_none())
                - usize::from(self.gate.is_none())
                - usize::from(self.diagnosis.is_none())
                - usize::from(self.predictability.is_none())
                - usize::from(self.case.is_none());
        let mut s = serializer.serialize_struct("RunReport", fields)?;
        s.serialize_field("tool", h.tool)?;
        s.serialize_field("version", h.version)?;
        s.serialize_field("command", h.command)?;
        s.serialize_field("algorithm", &h.algorithm)?;
        if skip_passes {
            s.skip_field("passes")?;
        } else {
            s.serialize_field("passes", &h.passes)?;
        }
        if skip_cut {
            s.skip_field("cut_probability")?;
        } else {
            s.serialize_field("cut_probability", &h.cut_probability)?;
        }
        if skip_shelves {
            s.skip_field("shelves")?;
        } else {
            s.serialize_field("shelves", &h.shelves)?;
        }
        s.serialize_field("definition", &h.definition)?;
        s.serialize_field("meant_uniform", &h.meant_uniform)?;
        s.serialize_field("input", &h.input)?;
        s.serialize_field("deck", &h.deck)?;
        s.serialize_field("orderings", &h.orderings)?;
        s.serialize_field("mode", &self.mode())?;
        s.serialize_field("trials", &h.trials)?;
        s.serialize_field("trials_requested", &h.trials_requested)?;
        s.serialize_field("interrupted", &h.interrupted)?;
        s.serialize_field("seed", &h.seed)?;
        let source = h.source;
        s.serialize_field("rng", &source.map(|source| source.generator.name()))?;
        s.serialize_field("map", &source.map(|source| source.mapping.name()))?;
        s.serialize_field("bits", &source.map(|source| source.word_bits()))?;
        s.serialize_field(
            "state_bits",
            &source.map(|source| source.generator.state_bits()),
        )?;
        let reseed = source.and_then(|source| source.reseed);
        s.serialize_field("reseed", &reseed.map(|_| "every-shuffle"))?;
        s.serialize_field("seed_bits", &reseed.map(|reseed| reseed.bits))?;
        s.serialize_field("seeds", &reseed.map(|reseed| reseed.seeds.name()))?;
        s.serialize_field("reachable", &h.reachable)?;
        s.serialize_field("threads", &h.threads)?;
        s.serialize_field("elapsed_seconds", &h.elapsed_seconds)?;
        s.serialize_field("shuffles_per_second", &h.shuffles_per_second)?;
        match &h.merged {
            Some(merged) => s.serialize_field("merged", merged)?,
            None => s.skip_field("merged")?,
        }
        s.serialize_field("alpha", &h.alpha)?;
        s.serialize_field("against", &h.against)?;
        s.serialize_field("bias_detected", &self.bias_detected)?;
        s.serialize_field("verdict", &self.verdict)?;
        s.serialize_field("notes", &self.notes)?;
        s.serialize_field("warnings", &self.warnings)?;
        match &self.gate {
            Some(gate) => s.serialize_field("gate", gate)?,
            None => s.skip_field("gate")?,
        }
        s.serialize_field("tests", &self.tests)?;
        s.serialize_field("ruled_out", &self.ruled_out)?;
        s.serialize_field("identity", &self.identity)?;
        let full = self.full();
        s.serialize_field("max_min_ratio", &full.and_then(|f| f.max_min_ratio))?;
        s.serialize_field(
            "max_min_ratio_theory",
            &full.and_then(|f| f.max_min_ratio_theory),
        )?;
        s.serialize_field("never_seen", &full.map(|f| f.never_seen))?;
        s.serialize_field("tv_distance", &full.map(|f| f.tv_distance))?;
        s.serialize_field(
            "tv_distance_theory",
            &full.and_then(|f| f.tv_distance_theory),
        )?;
        s.serialize_field("model", &self.model)?;
        s.serialize_field("positions", &self.positions)?;
        let no_rows: &[PermutationRow] = &[];
        s.serialize_field("most_frequent", full.map_or(no_rows, |f| &f.most_frequent))?;
        s.serialize_field(
            "least_frequent",
            full.map_or(no_rows, |f| &f.least_frequent),
        )?;
        match full {
            Some(full) => s.serialize_field("permutations", &full.permutations)?,
            None => s.serialize_field("permutations", no_rows)?,
        }
        s.serialize_field("statistics", self.statistics())?;
        s.serialize_field("guessing_game", &self.guessing_game())?;
        s.serialize_field("deal_stream", &self.deal_stream)?;
        // Only deal reports have it, so the JSON of the other modes is unchanged.
        if let Some(deal) = deal {
            s.serialize_field("deal", deal)?;
        }
        match &self.sequential {
            Some(sequential) => s.serialize_field("sequential", sequential)?,
            None => s.skip_field("sequential")?,
        }
        match &self.diagnosis {
            Some(diagnosis) => s.serialize_field("diagnosis", diagnosis)?,
            None => s.skip_field("diagnosis")?,
        }
        match &self.predictability {
            Some(predictability) => s.serialize_field("predictability", predictability)?,
            None => s.skip_field("predictability")?,
        }
        match &self.case {
            Some(case) => s.serialize_field("case", case)?,
            None => s.skip_field("case")?,
        }
        s.end()
    }
}

// The JSON object the `Serialize` impl above writes, field for field and in its order, for the
// JSON schema: the schema of `RunReport` is this struct's, so a field added there and not here
// makes real reports fail the schema test (`tests/json_schema.rs`), and one removed too.
/// The report of `run`, `check` and `merge`: one flat object; the keys of the other tally
/// modes' figures are null or empty.
#[derive(JsonSchema)]
#[schemars(rename = "RunReport", deny_unknown_fields)]
#[allow(dead_code)] // never built: it only describes the JSON
struct RunReportJson {
    /// Always `shuffle-bias`.
    tool: String,
    /// The tool's version.
    version: String,
    /// `run` or `check`.
    command: String,
    /// The algorithm simulated, or the one `check --against` tests (null for `check` against
    /// uniform).
    algorithm: Option<String>,
    /// How many times the algorithm is applied per shuffle (left out when 1 or unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    passes: Option<u32>,
    /// The overhand shuffle's cut probability (left out for the other algorithms).
    #[serde(skip_serializing_if = "Option::is_none")]
    cut_probability: Option<f64>,
    /// The shelf shuffler's number of shelves (left out for the other algorithms).
    #[serde(skip_serializing_if = "Option::is_none")]
    shelves: Option<u16>,
    /// The algorithm's exact definition.
    definition: Option<String>,
    /// Whether the algorithm is meant to be uniform.
    meant_uniform: Option<bool>,
    /// What `check` read (null for `run`).
    input: Option<InputSummary>,
    /// Number of cards.
    deck: usize,
    /// n! (null when it exceeds 2^64).
    orderings: Option<u64>,
    /// `full`, `marginal` or `deal`.
    mode: ReportMode,
    /// Shuffles tallied (for `check`, permutations read).
    trials: u64,
    /// Shuffles asked for (more than `trials` only when interrupted or stopped by
    /// `--until-decided`).
    trials_requested: u64,
    /// Whether the run was interrupted before all trials were done.
    interrupted: bool,
    /// The seed (null for `check`).
    seed: Option<u64>,
    /// The word generator (null for `check`).
    rng: Option<String>,
    /// The mapping of a word into [0, k) (null for `check`).
    map: Option<String>,
    /// The width of the words the mapping sees (null for `check`).
    bits: Option<u32>,
    /// The generator's bits of state (null for `check`).
    state_bits: Option<u32>,
    /// `every-shuffle` when re-seeded before every shuffle, else null.
    reseed: Option<String>,
    /// The bits of each seed when re-seeded, else null.
    seed_bits: Option<u32>,
    /// How the seeds follow one another when re-seeded (`random` or `counter`), else null.
    seeds: Option<String>,
    /// What the random source can reach of the deck's orderings.
    reachable: Option<SourceReach>,
    /// Worker threads used (null for `check`).
    threads: Option<usize>,
    /// Wall-clock seconds of the simulation, or of the reading for `check`.
    elapsed_seconds: f64,
    /// trials / elapsed_seconds.
    shuffles_per_second: f64,
    /// `merge` only: the tally files merged and the time of the merge.
    #[serde(skip_serializing_if = "Option::is_none")]
    merged: Option<MergedFrom>,
    /// The family-wise significance level.
    alpha: f64,
    /// The hypothesis tested.
    against: Against,
    /// Whether any test of the family rejected the hypothesis.
    bias_detected: bool,
    /// One sentence saying what was found.
    verdict: String,
    /// Facts worth reading beside the verdict.
    notes: Vec<Note>,
    /// Conditions that weaken the tests.
    warnings: Vec<Warning>,
    /// `--max-bias SIZE` only: the equivalence gate.
    #[serde(skip_serializing_if = "Option::is_none")]
    gate: Option<Gate>,
    /// The family of tests.
    tests: Vec<TestResult>,
    /// What the sample rules out at 99% confidence (null against a model).
    ruled_out: Option<RuledOut>,
    /// Identity frequency.
    identity: Identity,
    /// Full mode: largest count / smallest count (null when one was never seen, and outside
    /// full mode).
    max_min_ratio: Option<f64>,
    /// Full mode: the same ratio of exact probabilities.
    max_min_ratio_theory: Option<f64>,
    /// Full mode: orderings never seen.
    never_seen: Option<u64>,
    /// Full mode: the total variation distance from uniform.
    tv_distance: Option<f64>,
    /// Full mode: the exact law's distance from uniform.
    tv_distance_theory: Option<f64>,
    /// The exact law and detection power.
    model: ModelSummary,
    /// Position marginals.
    positions: Positions,
    /// Full mode: the most frequent orderings (empty otherwise).
    most_frequent: Vec<PermutationRow>,
    /// Full mode: the least frequent orderings (empty otherwise).
    least_frequent: Vec<PermutationRow>,
    /// Full mode: every ordering (null above 8 cards without `--all-orderings`; empty outside
    /// full mode).
    permutations: PermutationTable,
    /// Marginal mode: the permutation statistics (empty otherwise).
    statistics: Vec<StatisticResult>,
    /// Marginal mode: the guessing game in one line (null otherwise).
    guessing_game: Option<GuessingGame>,
    /// The tests of the stream of deals (null with `--no-deal-tests`).
    deal_stream: Option<DealStreamReport>,
    /// Deal mode only: the figures of dealt hands.
    #[serde(skip_serializing_if = "Option::is_none")]
    deal: Option<DealPart>,
    /// `--until-decided` only: the anytime-valid sequential test.
    #[serde(skip_serializing_if = "Option::is_none")]
    sequential: Option<SequentialOutcome>,
    /// `--explain` only: which bug the tally looks like.
    #[serde(skip_serializing_if = "Option::is_none")]
    diagnosis: Option<Diagnosis>,
    /// A source re-seeded from at most 2^32 seeds (`run --reseed`, `case`): how many visible
    /// cards identify the whole deck.
    #[serde(skip_serializing_if = "Option::is_none")]
    predictability: Option<Predictability>,
    /// `case NAME` only: the deployed shuffle emulated and its published figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    case: Option<CaseReport>,
}

/// In the JSON schema as the object its `Serialize` impl writes (`RunReportJson`, beside it).
impl JsonSchema for RunReport {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RunReport".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        RunReportJson::json_schema(generator)
    }
}

/// Where the tallied permutations came from.
#[derive(Debug, Clone)]
pub enum Origin {
    /// `run`: a seeded simulation.
    Simulation {
        /// The seed.
        seed: u64,
        /// The random source.
        source: SourceSpec,
        /// Threads.
        threads: usize,
    },
    /// `check`: permutations read from files or stdin.
    Input(InputSummary),
}

/// What `check` read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct InputSummary {
    /// The files read, in order (`<stdin>` for standard input).
    pub sources: Vec<String>,
    /// Lines read, including blank, comment and rejected lines.
    pub lines: u64,
    /// Permutations tallied.
    pub permutations: u64,
    /// How the cards were written: `zero-based`, `one-based` or `labels`.
    pub numbering: Numbering,
    /// How the lines were written, detected from the first valid one: `plain`, `brackets`
    /// (`[3, 0, 1, 2]`) or `quoted-brackets` (`["As", "Kd"]`); left out of JSON when the
    /// permutations did not come from text (a merge of tallies, the library API).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<LineFormat>,
    /// `check --exec`: the command whose standard output was read (left out of JSON otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// `check --exec`: the seed the command was given in `SHUFFLE_BIAS_SEED` (left out of JSON
    /// otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// `check --exec --threads K`: the copies of the command run side by side, copy i with the
    /// seed + i (left out of JSON for one copy).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copies: Option<u64>,
    /// The labels, in starting order, when `--labels` was given.
    pub labels: Option<Vec<String>>,
    /// Lines rejected under `--skip-invalid`.
    pub invalid_lines: u64,
    /// The first rejected lines, with their location and problem.
    pub invalid_examples: Vec<InvalidLine>,
    /// `--state-bits`: the bits of state (or seed) of the source that produced the input, when
    /// given (left out of JSON otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_bits: Option<u32>,
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
    fn simulation(&self) -> Option<(u64, SourceSpec, usize)> {
        match self.origin {
            Origin::Simulation {
                seed,
                source,
                threads,
            } => Some((seed, source, threads)),
            Origin::Input(_) => None,
        }
    }

    /// The algorithm as notes name it, or `the input` without one.
    fn algorithm_label(&self) -> String {
        self.shuffle.map_or("the input".to_string(), Shuffle::label)
    }

    /// The hypothesis as the verdict names it.
    fn hypothesis_name(&self) -> String {
        match self.against {
            Against::Uniform => "uniform".to_string(),
            Against::Model => format!("the exact law of {}", self.algorithm_label()),
        }
    }

    /// What the trials are called in advice.
    fn trial_unit(&self) -> TrialUnit {
        match self.origin {
            Origin::Simulation { .. } => TrialUnit::Trials,
            Origin::Input(_) => TrialUnit::Permutations,
        }
    }

    /// The note on lines skipped under `--skip-invalid`, if any were.
    fn skipped_lines_note(&self) -> Option<Note> {
        let input = self.input().filter(|input| input.invalid_lines > 0)?;
        Some(Note::SkippedLines {
            count: input.invalid_lines,
            first: input
                .invalid_examples
                .iter()
                .map(|line| format!("{}: {}", line.location, line.problem))
                .collect(),
        })
    }

    /// What theory says of a riffle's passes on `deck` cards, when the shuffle is a riffle.
    /// What the random source can reach of the orderings of `deck` cards: for `run` always
    /// (its state, or with re-seeding its seed, beside log2 n!), for `check` when
    /// `--state-bits` tells the size of the source that produced the input.
    pub(crate) fn source_reach(&self, deck: usize) -> Option<SourceReach> {
        if let Some(bits) = self.input().and_then(|input| input.state_bits) {
            return Some(SourceReach {
                source: "the source of the input (--state-bits)".to_string(),
                bits_of: "state",
                reach: Reachable::of(bits, deck),
            });
        }
        let (_, source, _) = self.simulation()?;
        let (name, bits) = match source.reseed {
            Some(reseed) => (
                format!(
                    "{} re-seeded from {} bits before every shuffle",
                    source.generator.name(),
                    reseed.bits
                ),
                reseed.bits.min(source.generator.state_bits()),
            ),
            None => (
                source.generator.name().to_string(),
                source.generator.state_bits(),
            ),
        };
        Some(SourceReach {
            source: name,
            bits_of: if source.reseed.is_some() {
                "seed"
            } else {
                "state"
            },
            reach: Reachable::of(bits, deck),
        })
    }

    /// The note on the orderings the source can reach, when it cannot reach them all: its
    /// state, or with re-seeding its seed, has fewer bits than log2(n!).
    pub(crate) fn reachable_note(&self, deck: usize) -> Option<Note> {
        let SourceReach { source, reach, .. } = self.source_reach(deck)?;
        reach.limited.then_some(Note::Reachable {
            source,
            reach,
            deck,
        })
    }

    fn riffle_note(&self, deck: usize) -> Option<Note> {
        self.shuffle
            .filter(|shuffle| shuffle.algorithm == Algorithm::Riffle)
            .map(|shuffle| Note::Riffle {
                deck,
                passes: shuffle.passes,
            })
    }

    /// The header of a report on `deck` cards and `trials` shuffles.
    fn header(&self, deck: usize, orderings: Option<u64>, trials: u64) -> RunHeader {
        RunHeader {
            tool: "shuffle-bias",
            version: env!("CARGO_PKG_VERSION"),
            command: self.command,
            algorithm: self.shuffle.map(|s| s.algorithm.name()),
            passes: self.shuffle.map(|s| s.passes),
            cut_probability: self.shuffle.and_then(Shuffle::cut_probability_used),
            shelves: self.shuffle.and_then(Shuffle::shelves_used),
            definition: self.shuffle.map(|s| s.algorithm.definition()),
            meant_uniform: self.shuffle.map(|s| s.algorithm.meant_uniform()),
            input: self.input().cloned(),
            deck,
            orderings,
            trials,
            trials_requested: self.trials_requested,
            interrupted: self.interrupted,
            // The operating system's generator ignores the seed: none is reported.
            seed: self
                .simulation()
                .filter(|(_, source, _)| source.generator.is_reproducible())
                .map(|(seed, _, _)| seed),
            source: self.simulation().map(|(_, source, _)| source),
            threads: self.simulation().map(|(_, _, threads)| threads),
            elapsed_seconds: self.elapsed_seconds,
            shuffles_per_second: ratio(trials as f64, self.elapsed_seconds),
            alpha: self.alpha,
            against: self.against,
            reachable: self.source_reach(deck),
            merged: None,
        }
    }
}

/// What every report mode computes, before the verdict is drawn from the family.
struct Common {
    header: RunHeader,
    drafts: Vec<Draft>,
    notes: Vec<Note>,
    warnings: Vec<Warning>,
    identity: Identity,
    model: ModelSummary,
    positions: Positions,
    deal_stream: Option<DealStreamReport>,
}

impl Common {
    /// Decide the family (Holm), word the verdict and put the report together.
    fn into_report(self, facts: &RunFacts, part: ModePart) -> RunReport {
        let tests = decide(self.drafts, facts.alpha);
        RunReport {
            header: self.header,
            bias_detected: bias_detected(&tests),
            verdict: verdict_sentence(&tests, facts.alpha, &facts.hypothesis_name()),
            notes: self.notes,
            warnings: self.warnings,
            tests,
            identity: self.identity,
            model: self.model,
            positions: self.positions,
            part,
            deal_stream: self.deal_stream,
            sequential: None,
            ruled_out: None,
            gate: None,
            diagnosis: None,
            predictability: None,
            case: None,
        }
        .ruling_out(false)
    }
}

/// The position marginals of a tally, with the theory's matrix when known.
fn positions(counts: Vec<Vec<u64>>, trials: u64, theory: Option<Vec<Vec<f64>>>) -> Positions {
    let frequencies = frequencies(&counts, trials);
    let largest_deviation = largest_deviation(&frequencies);
    Positions {
        expected_frequency: 1.0 / counts.len() as f64,
        counts,
        frequencies,
        theory,
        largest_deviation,
    }
}

/// One χ² test per final position: the cards found there against `matrix`'s column, or 1/n
/// without a matrix (the cards pooled when each is expected fewer than 5 times, see
/// [`position_test`]).
fn position_drafts(counts: &[Vec<u64>], matrix: Option<&Vec<Vec<f64>>>, trials: u64) -> Vec<Draft> {
    let n = counts.len();
    (0..n)
        .map(|position| {
            position_test(
                format!("position {position}"),
                (0..n).map(|card| {
                    let p = matrix.map_or(1.0 / n as f64, |matrix| matrix[card][position]);
                    (counts[card][position], p)
                }),
                trials,
            )
        })
        .collect()
}

/// One permutation statistic in a marginal report: its histogram, its law, and its χ² test.
#[derive(Debug, Clone, Serialize, JsonSchema)]
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
        let mut scratch = vec![0usize; crate::theory::permutation_statistics::scratch_len(n)];
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
    ///
    /// Up to [`crate::theory::permutation_statistics::MAX_SHAPE_DECK`] cards (and while 2^K packets stay cheap), the laws of the
    /// descents and the valleys too, from the packet sequences of the same model.
    pub fn riffle(n: usize, passes: u32) -> Self {
        let rising = riffle_rising_value_law(n, passes);
        let descents = riffle_descent_law(n, passes);
        let valleys = riffle_valley_law(n, passes);
        let source = if descents.is_some() || valleys.is_some() {
            "the riffle closed form of Bayer & Diaconis (1992), and the descents and valleys of \
             its packet sequences"
        } else {
            "the riffle closed form of Bayer & Diaconis (1992)"
        };
        MarginalTheory {
            positions: None,
            identity: Some(rising.get(1)),
            statistics: Statistic::ALL
                .iter()
                .map(|&s| match s {
                    Statistic::RisingSequences => Some(rising.clone()),
                    Statistic::Descents => descents.clone(),
                    Statistic::Valleys => valleys.clone(),
                    _ => None,
                })
                .collect(),
            source: Some(source.to_string()),
        }
    }

    /// What Diaconis, Fulman & Holmes's Theorem 3.1 gives for `passes` passes of the shelf
    /// shuffler with `shelves` shelves on `n` cards: the law of the valleys, on which the chance
    /// of an ordering depends alone, and the identity (no valley).
    pub fn shelf(n: usize, shelves: u16, passes: u32) -> Self {
        let valleys = shelf_valley_law(n, shelves, passes);
        let (numerators, denominator) = shelf_law(n, shelves, passes);
        MarginalTheory {
            positions: None,
            identity: Some(Probability::from_parts(
                ratio_to_f64(&numerators[0], &denominator),
                ratio_to_ln(&numerators[0], &denominator),
            )),
            statistics: Statistic::ALL
                .iter()
                .map(|&s| (s == Statistic::Valleys).then(|| valleys.clone()))
                .collect(),
            source: Some(
                "the shelf shuffler's closed form of Diaconis, Fulman & Holmes (2013)".to_string(),
            ),
        }
    }

    fn statistic(&self, index: usize) -> Option<&ValueLaw> {
        self.statistics.get(index).and_then(Option::as_ref)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::marginal::MarginalTally;
    use crate::engine::random_source::RngKind;
    use crate::engine::simulate::Tally;
    use crate::report::notes::MarginalLaws;
    use approx::assert_relative_eq;

    pub(super) fn facts() -> RunFacts {
        RunFacts {
            command: "run",
            shuffle: None,
            origin: Origin::Simulation {
                seed: 1,
                source: SourceSpec::chacha(RngKind::Chacha8),
                threads: 1,
            },
            trials_requested: 40,
            elapsed_seconds: 2.0,
            interrupted: false,
            alpha: 0.01,
            against: Against::Uniform,
            all_orderings: false,
        }
    }

    /// The top-level JSON keys in the order written (none of them also names a nested field
    /// of these small reports, whose `input` is null).
    fn keys(report: &RunReport) -> Vec<&'static str> {
        let json = serde_json::to_string(report).unwrap();
        let mut found: Vec<(usize, &'static str)> = FIELDS
            .iter()
            .filter_map(|&key| json.find(&format!("\"{key}\":")).map(|at| (at, key)))
            .collect();
        found.sort();
        found.into_iter().map(|(_, key)| key).collect()
    }

    /// The JSON field order of every run report (passes and cut_probability are left out when
    /// 1 and absent).
    const FIELDS: [&str; 40] = [
        "tool",
        "version",
        "command",
        "algorithm",
        "definition",
        "meant_uniform",
        "input",
        "deck",
        "orderings",
        "mode",
        "trials",
        "trials_requested",
        "interrupted",
        "seed",
        "rng",
        "threads",
        "elapsed_seconds",
        "shuffles_per_second",
        "alpha",
        "against",
        "bias_detected",
        "verdict",
        "notes",
        "warnings",
        "tests",
        "ruled_out",
        "identity",
        "max_min_ratio",
        "max_min_ratio_theory",
        "never_seen",
        "tv_distance",
        "tv_distance_theory",
        "model",
        "positions",
        "most_frequent",
        "least_frequent",
        "permutations",
        "statistics",
        "guessing_game",
        "deal_stream",
    ];

    #[test]
    fn a_full_report_of_two_cards_has_the_hand_computed_tests_and_figures() {
        // 30 identities and 10 swaps in 40 shuffles against 20 expected each: χ² = 2·10²/20 =
        // 10 with 1 df for the orderings and for each position (a card's position decides the
        // ordering); the identity is Bin(40, ½), 30 seen.
        let tally = Tally {
            deck: 2,
            counts: vec![30, 10],
            trials: 40,
        };
        let report = build_run_report(&facts(), tally, None);
        assert_eq!(report.mode(), ReportMode::Full);
        let names: Vec<&str> = report.tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            ["permutations", "identity", "position 0", "position 1"]
        );
        for chi_square in [&report.tests[0], &report.tests[2], &report.tests[3]] {
            assert_relative_eq!(chi_square.statistic, 10.0, max_relative = 1e-14);
            assert_eq!(chi_square.df, Some(1.0));
        }
        assert_eq!(report.tests[1].statistic, 30.0);
        assert!(report.bias_detected);
        let full = report.full().unwrap();
        assert_eq!(full.tv_distance, 0.25);
        assert_eq!(full.max_min_ratio, Some(3.0));
        assert_eq!(full.never_seen, 0);
        assert_eq!(report.header.shuffles_per_second, 20.0);
        assert_eq!(report.identity.frequency, 0.75);
        assert!(report.statistics().is_empty());
        // 2 orderings of ≥ 5 expected and 40 trials: no warning; no algorithm: no note.
        assert!(report.warnings.is_empty());
        assert!(report.notes.is_empty());
        assert_eq!(keys(&report), FIELDS);
    }

    #[test]
    fn a_marginal_report_keeps_the_same_fields_with_the_full_ones_null_or_empty() {
        let mut tally = MarginalTally::new(3);
        for deck in [[0, 1, 2], [1, 2, 0], [2, 0, 1]] {
            tally.add(&deck);
        }
        let report = build_marginal_report(&facts(), tally, MarginalTheory::default());
        assert_eq!(report.mode(), ReportMode::Marginal);
        assert!(report.full().is_none());
        assert_eq!(report.statistics().len(), Statistic::ALL.len());
        // 3 positions, the identity, one test per statistic.
        assert_eq!(report.tests.len(), 3 + 1 + Statistic::ALL.len());
        // 3 trials over 3 cards: each card is expected once per position (< 5).
        assert_eq!(
            report.warnings,
            [Warning::FewPerPosition {
                per_cell: 1.0,
                needed: 15,
                unit: TrialUnit::Trials
            }]
        );
        assert_eq!(
            report.notes,
            [Note::MarginalMode {
                deck: 3,
                statistics: Statistic::ALL.len(),
                laws: MarginalLaws::NoAlgorithm
            }]
        );
        assert_eq!(keys(&report), FIELDS);
        let json = serde_json::to_value(&report).unwrap();
        for null in [
            "max_min_ratio",
            "never_seen",
            "tv_distance",
            "tv_distance_theory",
        ] {
            assert!(json[null].is_null(), "{null}");
        }
        for empty in ["most_frequent", "least_frequent", "permutations"] {
            assert_eq!(json[empty], serde_json::json!([]), "{empty}");
        }
        assert_eq!(json["mode"], "marginal");
    }
}
