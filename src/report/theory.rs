//! The report model of `theory`: an algorithm's exact law without simulation — its
//! probabilities, the orderings it favours and shuns, its position matrix and what it implies
//! for detection.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;

use crate::analysis::ruled_out::{BiasSize, SizePlan};

use crate::theory::reachable::{Reachable, log2_factorial};

use super::notes::{MAX_LISTED_DECK, Note};
use super::run::serialize_rows;
use crate::analysis::figures::{SECOND_THREAD_FROM_ORDERINGS, extreme_probability_ranks};
use crate::analysis::power::{ModelSummary, power_summary};
use crate::engine::algorithms::{Card, CutProbability, Shuffle, shuffle_label};
use crate::engine::permutation::{factorial, unrank};
use crate::theory::exact::Law;

/// One row of a law's most/least likely orderings.
#[derive(Debug, Clone, Serialize, JsonSchema)]
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
    /// As [`super::run::PermutationTable`]'s: whether JSON and CSV list every row.
    listed: bool,
}

impl LawTable {
    /// Whether every row is to be listed in JSON and CSV.
    pub fn listed(&self) -> bool {
        self.listed
    }

    /// The probabilities in rank order.
    pub fn probabilities(&self) -> &[f64] {
        self.law.probabilities.as_slice()
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

/// In the JSON schema as what it serialises to: null, or every ordering's row.
impl JsonSchema for LawTable {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LawTable".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Option<Vec<LawRow>>>::json_schema(generator)
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
#[derive(Debug, Clone, Serialize, JsonSchema)]
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
    /// The shelf shuffler's number of shelves (null, and left out of JSON, for the other
    /// algorithms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shelves: Option<u16>,
    /// Its exact definition.
    pub definition: &'static str,
    /// Whether it is meant to be uniform.
    pub meant_uniform: bool,
    /// Number of cards.
    pub deck: usize,
    /// n!.
    pub orderings: u64,
    /// log2(n!): the bits a source needs to reach every ordering.
    pub ordering_bits: f64,
    /// With `--state-bits`: what a source of that many bits can reach (null without it).
    pub reachable: Option<Reachable>,
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
    pub notes: Vec<Note>,
    /// `--max-bias SIZE`: the trials a run needs to show this law within SIZE (left out of JSON
    /// without the flag).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bias: Option<SizePlan>,
}

/// Build the report of `theory`; `all_orderings` lists every ordering in JSON and CSV whatever
/// the deck (see [`MAX_LISTED_DECK`]).
pub fn build_theory_report(
    shuffle: impl Into<Shuffle>,
    law: Arc<Law>,
    alpha: f64,
    all_orderings: bool,
    state_bits: Option<u32>,
) -> TheoryReport {
    let shuffle = shuffle.into();
    let algorithm = shuffle.algorithm;
    let n = law.deck;
    let orderings = factorial(n);
    let probabilities = &law.probabilities;
    let table = LawTable {
        law: law.clone(),
        listed: all_orderings || n <= MAX_LISTED_DECK,
    };
    let reachable = state_bits.map(|bits| Reachable::of(bits, n));
    let mut notes = Vec::new();
    if !table.listed {
        notes.push(Note::UnlistedOrderings { deck: n });
    }
    if let Some(reach) = reachable.filter(|reach| reach.limited) {
        notes.push(Note::Reachable {
            source: "a source of --state-bits".to_string(),
            reach,
            deck: n,
        });
    }
    let result = Ok(law.clone());
    // The position matrix (a walk of the law's blocks: 15 ms at 10 cards) is summed on a thread
    // of its own while this one sweeps the probabilities.
    let apart = probabilities.len() >= SECOND_THREAD_FROM_ORDERINGS;
    let (((most, least), tv_distance, model), positions) =
        beside(apart, || law.position_matrix(), || {
            // Rank by probability, ties broken by rank, in one pass.
            let extremes = extreme_probability_ranks(probabilities.as_slice());
            let tv_distance = law.tv_distance_from_uniform();
            (extremes, tv_distance, power_summary(Some(&result), None, alpha, n + 2))
        });
    // The largest and the smallest probabilities are those ranked first (in the order of
    // `total_cmp`, which on probabilities, never negative, is that of their values).
    let max_probability = most.first().map_or(0.0, |&r| probabilities[r]);
    let min_probability = least.first().map_or(f64::INFINITY, |&r| probabilities[r]);
    let most_likely: Vec<LawRow> = most.iter().map(|&r| table.row(r)).collect();
    let least_likely = least.iter().map(|&r| table.row(r)).collect();
    TheoryReport {
        tool: "shuffle-bias",
        version: env!("CARGO_PKG_VERSION"),
        command: "theory",
        algorithm: algorithm.name(),
        passes: shuffle.passes,
        cut_probability: shuffle.cut_probability_used(),
        shelves: shuffle.shelves_used(),
        definition: algorithm.definition(),
        meant_uniform: algorithm.meant_uniform(),
        deck: n,
        orderings,
        ordering_bits: log2_factorial(n),
        reachable,
        paths: law.paths,
        exact_fractions: law.exact.is_some(),
        support_size: law.support_size(),
        identity_probability: probabilities[0],
        identity_fraction: law.fraction(0),
        uniform_probability: 1.0 / orderings as f64,
        max_probability,
        min_probability,
        max_min_ratio: Some(max_probability / min_probability)
            .filter(|r| min_probability > 0.0 && r.is_finite()),
        tv_distance,
        alpha,
        model,
        positions,
        most_likely,
        least_likely,
        permutations: table,
        notes,
        max_bias: None,
    }
}

/// `here()` and `aside()`, as (here's, aside's): `aside` on a thread of its own if `apart`.
fn beside<H, A: Send>(
    apart: bool,
    aside: impl FnOnce() -> A + Send,
    here: impl FnOnce() -> H,
) -> (H, A) {
    if !apart {
        let here = here();
        return (here, aside());
    }
    std::thread::scope(|scope| {
        let aside = scope.spawn(aside);
        let here = here();
        let aside = aside
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (here, aside)
    })
}

impl TheoryReport {
    /// The report with the plan for `--max-bias size`: the law's own measure (its largest
    /// position deviation, or its TV distance) and the trials a run needs.
    pub fn with_size_plan(mut self, size: BiasSize) -> TheoryReport {
        let n = self.deck as f64;
        let measure = match size {
            BiasSize::Positions(_) => self
                .positions
                .iter()
                .flatten()
                .map(|p| (p - 1.0 / n).abs())
                .fold(0.0, f64::max),
            BiasSize::TvDistance(_) => self.tv_distance,
        };
        self.max_bias = Some(SizePlan::of(size, measure, self.deck));
        self
    }

    /// The shuffle as headers name it (`riffle · 3 passes`).
    pub fn shuffle_label(&self) -> String {
        shuffle_label(
            self.algorithm,
            self.cut_probability,
            self.shelves,
            self.passes,
        )
    }
}

fn is_one(passes: &u32) -> bool {
    *passes == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::algorithms::Algorithm;
    use crate::theory::exact::exact_law;

    #[test]
    fn the_figures_of_the_report_are_the_laws_own() {
        // Against the law's own folds: the largest and smallest probabilities (a sweep of
        // each), their ratio (infinite when an ordering is impossible: Sattolo), the distance
        // from uniform and the position matrix; on 8 cards the matrix is summed on a second
        // thread, on fewer on this one.
        for (algorithm, n) in [
            (Algorithm::Naive, 4),
            (Algorithm::Naive, 8),
            (Algorithm::Sattolo, 5),
            (Algorithm::Sattolo, 8),
            (Algorithm::NaiveOffByOne, 8),
            (Algorithm::FisherYates, 8),
        ] {
            let law = Arc::new(exact_law(algorithm, n, 1 << 40).expect("an exact law"));
            let report = build_theory_report(algorithm, law.clone(), 0.01, false, None);
            let p = &law.probabilities;
            let largest = p.iter().copied().fold(0.0, f64::max);
            let smallest = p.iter().copied().fold(f64::INFINITY, f64::min);
            let label = format!("{} on {n} cards", algorithm.name());
            assert_eq!(report.max_probability.to_bits(), largest.to_bits(), "{label}");
            assert_eq!(report.min_probability.to_bits(), smallest.to_bits(), "{label}");
            let ratio = law.max_min_ratio();
            assert_eq!(
                report.max_min_ratio.map(f64::to_bits),
                ratio.is_finite().then_some(ratio.to_bits()),
                "{label}"
            );
            assert_eq!(
                report.tv_distance.to_bits(),
                law.tv_distance_from_uniform().to_bits(),
                "{label}"
            );
            assert_eq!(report.positions, law.position_matrix(), "{label}");
            assert_eq!(report.support_size, law.support_size(), "{label}");
            assert_eq!(p[report.most_likely[0].rank], largest, "{label}");
            assert_eq!(p[report.least_likely[0].rank], smallest, "{label}");
        }
    }
}
