//! What a sample rules out, and the equivalence gate `--max-bias SIZE`.
//!
//! A test that does not reject says nothing of the size of bias that went unseen: a pass on one
//! shuffle and a pass on a billion print the same verdict. [`RuledOut`] is what the same sample
//! excludes, each statement at [`CONFIDENCE`]: the total variation distance from uniform (every
//! ordering tallied), every card's chance of each position, the identity's frequency, each
//! statistic's mean, and the smallest bias the sample would have detected with 99% power.
//!
//! The gate turns those bounds into a decision (an equivalence test, the "two one-sided tests"
//! idea of Schuirmann 1987 with the bound on the size of bias in place of the two tests):
//! FAIR WITHIN SIZE when the upper bound is at most SIZE and no test found dependence or too few
//! decks; BIAS DETECTED when the family rejects or the lower bound exceeds SIZE; otherwise
//! INCONCLUSIVE, with the trials that would settle it. A shuffle whose bias exceeds SIZE is
//! called FAIR WITHIN only when its bound fails, which happens with probability at most
//! 1 − CONFIDENCE; after `--until-decided` the bounds are confidence sequences, which hold at
//! every stop together, so stopping on them keeps that guarantee.

use serde::Serialize;
use statrs::function::erf::erfc_inv;

use super::Question;
use crate::stats::confidence::{
    bernstein_mean_interval, binomial_confidence_sequence, clopper_pearson, tv_deviation_bound,
};
use crate::stats::power::noncentrality_for_power;

/// The confidence of every statement of what a sample rules out, and of the gate's bounds.
pub const CONFIDENCE: f64 = 0.99;

/// The power at which the smallest detectable bias is stated.
pub const DETECTION_POWER: f64 = 0.99;

/// A size of bias, as `--max-bias` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "measure", content = "size", rename_all = "kebab-case")]
pub enum BiasSize {
    /// Every card's chance of each position within this of 1/n (a probability: `1pp` is 0.01).
    Positions(f64),
    /// The total variation distance of the ordering law from uniform (every ordering tallied).
    TvDistance(f64),
}

impl BiasSize {
    /// Parse `1pp`, `0.5pp` (percentage points of a position's chance) or `0.02tv` (total
    /// variation distance).
    pub fn parse(text: &str) -> Result<BiasSize, String> {
        let text = text.trim();
        let refuse = || {
            format!(
                "'{text}' is not a size of bias: write percentage points of a position's chance, \
                 e.g. 1pp, or a total variation distance, e.g. 0.02tv"
            )
        };
        let (number, make): (&str, fn(f64) -> BiasSize) =
            if let Some(number) = text.strip_suffix("pp") {
                (number, |x| BiasSize::Positions(x / 100.0))
            } else if let Some(number) = text.strip_suffix("tv") {
                (number, BiasSize::TvDistance)
            } else {
                return Err(refuse());
            };
        let value: f64 = number.trim().parse().map_err(|_| refuse())?;
        let size = make(value);
        let limit = match size {
            BiasSize::Positions(_) => "100pp",
            BiasSize::TvDistance(_) => "1tv",
        };
        if value.is_finite() && size.value() > 0.0 && size.value() < 1.0 {
            Ok(size)
        } else {
            Err(format!(
                "'{text}' is out of range: a size of bias is above 0 and below {limit}"
            ))
        }
    }

    /// The size as a probability.
    pub fn value(self) -> f64 {
        match self {
            BiasSize::Positions(x) | BiasSize::TvDistance(x) => x,
        }
    }

    /// As the user writes it: `1pp`, `0.02tv`.
    pub fn label(self) -> String {
        match self {
            BiasSize::Positions(x) => format!("{}pp", trim(x * 100.0)),
            BiasSize::TvDistance(x) => format!("{}tv", trim(x)),
        }
    }

    /// Whether a rejection by the test `name` of the law of one deal shows a bias that this
    /// size measures: for a position's chance, the position tests (and the slots of dealt
    /// hands); for the total variation distance of the ordering law, every test of one deal,
    /// each an event or statistic of that law. A bias that only other tests detect — the
    /// orderings, the identity, a statistic, with every position fair, as a random cut of the
    /// deck — is no bias in percentage points of a position, however large it is.
    pub fn measures(self, name: &str) -> bool {
        match self {
            BiasSize::Positions(_) => name.starts_with("position ") || name.starts_with("slot "),
            BiasSize::TvDistance(_) => true,
        }
    }

    /// What the size measures, in words.
    pub fn words(self) -> String {
        match self {
            BiasSize::Positions(x) => format!(
                "every card's chance of each position is within {} of 1/n",
                points(x * 100.0)
            ),
            BiasSize::TvDistance(x) => {
                format!(
                    "the total variation distance from uniform is at most {}",
                    trim(x)
                )
            }
        }
    }
}

/// `1 percentage point`, `0.5 percentage points`.
fn points(x: f64) -> String {
    let number = trim(x);
    if number == "1" {
        "1 percentage point".to_string()
    } else {
        format!("{number} percentage points")
    }
}

/// A number without trailing zeros: six decimals, or six significant digits where that takes
/// more (below 0.1).
fn trim(x: f64) -> String {
    // Six decimals, or more for a small x so that it keeps six significant digits (1e−9pp
    // would print as 0pp, a size no flag accepts), without the float noise of its shortest
    // round-trip form (3e−5 from 3e−7·100 prints as 0.000029999999999999997).
    let decimals = if x != 0.0 && x.abs() < 1.0 {
        (5 - x.abs().log10().floor() as i32).max(6) as usize
    } else {
        6
    };
    let text = format!("{x:.decimals$}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// An upper bound on the total variation distance from uniform.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TvBound {
    /// ½ Σ |frequency − 1/n!| of the sample.
    pub observed: f64,
    /// The distance of the true law is at most this (at the report's confidence).
    pub at_most: f64,
    /// And at least this.
    pub at_least: f64,
    /// The orderings the distance is taken over (n!).
    pub cells: u64,
}

/// How far every card's chance of each position can be from 1/n.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PositionBound {
    /// The largest |frequency − 1/n| observed over every card and position.
    pub largest_observed: f64,
    /// Every card's chance of each position is within this of 1/n (simultaneously).
    pub within: f64,
    /// Some card's chance of some position is at least this far from 1/n (0 when the intervals
    /// all contain 1/n).
    pub at_least: f64,
    /// The cells the statement covers together (cards × positions).
    pub cells: usize,
}

/// An interval for a frequency or a mean, beside its value under uniform shuffling.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Interval {
    /// `identity`, or a statistic's name.
    pub name: String,
    /// The value under uniform shuffling.
    pub uniform: f64,
    /// The value observed.
    pub observed: f64,
    /// The lower end.
    pub low: f64,
    /// The upper end.
    pub high: f64,
}

/// The smallest biases the sample would have detected with [`DETECTION_POWER`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Detectable {
    /// A shift of this much probability from one card to another at one position (each
    /// position's χ² test at its Bonferroni share of alpha; noncentral χ², λ = 2n·N·shift²);
    /// null when even the largest shift, 1/n, would not be detected.
    pub position_shift: Option<f64>,
    /// Cohen's w of the ordering law against uniform that the permutations test detects (full
    /// mode; its upper tail at alpha/(2m)); null when no law on the n! orderings is that far.
    pub cohen_w: Option<f64>,
}

/// What the sample rules out, each statement at `confidence`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RuledOut {
    /// The confidence of each statement.
    pub confidence: f64,
    /// Whether the bounds are confidence sequences, valid at a stop the data chose
    /// (`--until-decided`); otherwise fixed-sample bounds.
    pub anytime: bool,
    /// The total variation distance from uniform (every ordering tallied; null otherwise).
    pub total_variation: Option<TvBound>,
    /// Every card's chance of each position.
    pub position_chances: Option<PositionBound>,
    /// The frequency of the unchanged deck (null when not tallied).
    pub unchanged_deck: Option<Interval>,
    /// Each permutation statistic's mean (marginal mode).
    pub statistic_means: Vec<Interval>,
    /// The smallest biases the sample would have detected.
    pub detectable: Detectable,
}

/// The counts a [`RuledOut`] is computed from: views into a tally of `trials` shuffles.
#[derive(Debug, Clone, Default)]
pub struct Evidence<'a> {
    /// Shuffles (or permutations) tallied.
    pub trials: u64,
    /// Every ordering's count, in rank order (full mode).
    pub orderings: Option<&'a [u64]>,
    /// `[card][position]` counts (positions, or slots of dealt hands).
    pub positions: &'a [Vec<u64>],
    /// The unchanged deck's count and its probability under uniform.
    pub identity: Option<(u64, f64)>,
    /// Each statistic's name, histogram, uniform mean and largest possible value.
    pub statistics: Vec<(&'a str, &'a [u64], f64, f64)>,
    /// Tests in the family (for the Bonferroni share of the detectable bias).
    pub family_size: usize,
    /// The family-wise level.
    pub alpha: f64,
    /// Confidence sequences (valid at a stop the data chose) instead of fixed-sample bounds.
    pub anytime: bool,
}

/// The share of δ a bound without a confidence sequence spends at a stop after `trials` that
/// the data chose: δ/(N(N + 1)), whose sum over every N is δ, so the bound holds at every
/// stop together (a union bound; it costs about 2 ln N in the bound's logarithm). Used for the
/// total variation distance and the statistics' means after `--until-decided`.
pub fn every_trial_delta(delta: f64, trials: u64) -> f64 {
    let n = trials.max(1) as f64;
    delta / (n * (n + 1.0))
}

/// The share of δ a bound without a confidence sequence spends after `trials`: all of it at a
/// fixed sample, [`every_trial_delta`] when the stop may be the data's (`anytime`).
fn share_at(delta: f64, trials: u64, anytime: bool) -> f64 {
    if anytime {
        every_trial_delta(delta, trials)
    } else {
        delta
    }
}

/// An interval for a binomial proportion: Clopper–Pearson, or the confidence sequence.
fn proportion_interval(k: u64, n: u64, delta: f64, anytime: bool) -> (f64, f64) {
    if anytime {
        binomial_confidence_sequence(k, n, delta)
    } else {
        clopper_pearson(k, n, delta)
    }
}

/// The total variation bound of a full tally, fixed-sample or at a checkpoint.
pub fn tv_bound(counts: &[u64], trials: u64, delta: f64) -> TvBound {
    let cells = counts.len() as f64;
    let observed = if trials == 0 {
        0.0
    } else {
        counts
            .iter()
            .map(|&c| (c as f64 / trials as f64 - 1.0 / cells).abs())
            .sum::<f64>()
            / 2.0
    };
    let width = tv_deviation_bound(counts.len() as u64, trials, delta);
    TvBound {
        observed,
        at_most: (observed + width).min(1.0 - 1.0 / cells),
        at_least: (observed - width).max(0.0),
        cells: counts.len() as u64,
    }
}

/// The simultaneous bound on every cell of a `[card][position]` matrix of `trials` rows each:
/// each cell's interval at δ/cells (Bonferroni), read at the largest and smallest counts (the
/// interval's ends are monotone in the count).
pub fn position_bound(
    counts: &[Vec<u64>],
    trials: u64,
    delta: f64,
    anytime: bool,
) -> PositionBound {
    let cells: Vec<u64> = counts.iter().flatten().copied().collect();
    flat_position_bound(&cells, counts.len(), trials, delta, anytime)
}

/// [`position_bound`] of the cells of a matrix of `cards` rows, in any order.
pub fn flat_position_bound(
    counts: &[u64],
    cards: usize,
    trials: u64,
    delta: f64,
    anytime: bool,
) -> PositionBound {
    let cells = counts.len();
    let p = 1.0 / cards as f64;
    let all = counts.iter().copied();
    let (min, max) = (all.clone().min().unwrap_or(0), all.max().unwrap_or(0));
    let share = delta / cells.max(1) as f64;
    let (low_of_max, high) = proportion_interval(max, trials, share, anytime);
    let (low, high_of_min) = proportion_interval(min, trials, share, anytime);
    let frequency = |c: u64| c as f64 / trials.max(1) as f64;
    PositionBound {
        largest_observed: (frequency(max) - p).abs().max((p - frequency(min)).abs()),
        within: (high - p).max(p - low).max(0.0),
        at_least: (low_of_max - p).max(p - high_of_min).max(0.0),
        cells,
    }
}

/// The normal quantile z with P(Z > z) = `tail`.
fn upper_quantile(tail: f64) -> f64 {
    std::f64::consts::SQRT_2 * erfc_inv(2.0 * tail)
}

impl RuledOut {
    /// What `evidence` rules out at [`CONFIDENCE`].
    pub fn of(evidence: &Evidence) -> RuledOut {
        let delta = 1.0 - CONFIDENCE;
        let n = evidence.trials;
        let anytime = evidence.anytime;
        let tv_distance = evidence
            .orderings
            .map(|counts| tv_bound(counts, n, share_at(delta, n, anytime)));
        let positions = (!evidence.positions.is_empty())
            .then(|| position_bound(evidence.positions, n, delta, anytime));
        let identity = evidence.identity.map(|(count, uniform)| {
            let (low, high) = proportion_interval(count, n, delta, anytime);
            Interval {
                name: "identity".to_string(),
                uniform,
                observed: count as f64 / n.max(1) as f64,
                low,
                high,
            }
        });
        let statistic_delta = share_at(delta, n, anytime);
        let statistics = evidence
            .statistics
            .iter()
            .filter_map(|&(name, counts, uniform, range)| {
                let (low, high) = bernstein_mean_interval(counts, range, statistic_delta)?;
                let observed = counts
                    .iter()
                    .enumerate()
                    .map(|(v, &c)| v as f64 * c as f64)
                    .sum::<f64>()
                    / n.max(1) as f64;
                Some(Interval {
                    name: name.to_string(),
                    uniform,
                    observed,
                    low: low.max(0.0),
                    high: high.min(range),
                })
            })
            .collect();
        RuledOut {
            confidence: CONFIDENCE,
            anytime,
            total_variation: tv_distance,
            position_chances: positions,
            unchanged_deck: identity,
            statistic_means: statistics,
            detectable: detectable(evidence),
        }
    }

    /// The bound on `size`'s measure: (at most, at least), or None when this sample has no
    /// such bound (a TV size without every ordering tallied).
    pub fn bounds_of(&self, size: BiasSize) -> Option<(f64, f64)> {
        match size {
            BiasSize::Positions(_) => self.position_chances.map(|b| (b.within, b.at_least)),
            BiasSize::TvDistance(_) => self.total_variation.map(|b| (b.at_most, b.at_least)),
        }
    }

    /// The statement in one sentence per figure, as the table and Markdown print them.
    pub fn sentences(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(tv) = &self.total_variation {
            lines.push(format!(
                "the total variation distance from uniform is at most {:.4} (observed {:.4})",
                tv.at_most, tv.observed
            ));
        }
        if let Some(positions) = &self.position_chances {
            lines.push(format!(
                "every card's chance of each position is within ±{:.2} percentage points of 1/n \
                 (largest seen {:.2})",
                positions.within * 100.0,
                positions.largest_observed * 100.0
            ));
        }
        if let Some(identity) = &self.unchanged_deck {
            lines.push(format!(
                "the unchanged deck's frequency is in [{}, {}] (uniform: {})",
                short(identity.low),
                short(identity.high),
                short(identity.uniform)
            ));
        }
        for statistic in &self.statistic_means {
            lines.push(format!(
                "the mean of {} is in [{:.4}, {:.4}] (uniform: {:.4})",
                statistic.name, statistic.low, statistic.high, statistic.uniform
            ));
        }
        let mut detect = Vec::new();
        if let Some(shift) = self.detectable.position_shift {
            detect.push(format!(
                "a shift of {:.2} percentage points between two cards at one position",
                shift * 100.0
            ));
        }
        if let (Some(w), Some(tv)) = (self.detectable.cohen_w, &self.total_variation) {
            // Moving ε from one ordering to another has w² = 2ε²·K (K = n!) and TV distance ε.
            // That shift is at most 1/K (all of one ordering's chance); beyond, only w is said.
            let shift = w / (2.0 * tv.cells as f64).sqrt();
            detect.push(if shift <= 1.0 / tv.cells as f64 {
                format!(
                    "a shift of {:.2} percentage points between two orderings (Cohen's w = \
                     {w:.4})",
                    shift * 100.0
                )
            } else {
                format!("an ordering law at Cohen's w = {w:.4} from uniform")
            });
        }
        if detect.is_empty() {
            lines.push(
                "too few trials to detect any shift between two cards at one position with 99% \
                 power"
                    .to_string(),
            );
        } else {
            lines.push(format!(
                "it would have detected {} (99% power)",
                detect.join(", or ")
            ));
        }
        lines
    }

    /// The heading of the statement.
    pub fn heading(&self) -> String {
        format!(
            "What this sample rules out ({:.0}% confidence each{})",
            self.confidence * 100.0,
            if self.anytime {
                ", valid at the stop"
            } else {
                ""
            }
        )
    }
}

/// A probability for humans: 4 significant digits.
fn short(x: f64) -> String {
    if x == 0.0 {
        "0".to_string()
    } else if x >= 1e-3 {
        format!("{x:.4}")
    } else {
        format!("{x:.3e}")
    }
}

/// The smallest biases `evidence` would detect with 99% power.
fn detectable(evidence: &Evidence) -> Detectable {
    let n = evidence.trials as f64;
    let m = evidence.family_size.max(1) as f64;
    let cards = evidence.positions.len();
    let position_shift = (cards >= 2 && n > 0.0).then(|| {
        let lambda =
            noncentrality_for_power((cards - 1) as f64, evidence.alpha / m, DETECTION_POWER);
        (lambda / (2.0 * cards as f64 * n)).sqrt()
    });
    let cohen_w = evidence
        .orderings
        .filter(|counts| counts.len() >= 2 && n > 0.0)
        .map(|counts| {
            let df = (counts.len() - 1) as f64;
            let lambda = noncentrality_for_power(df, evidence.alpha / (2.0 * m), DETECTION_POWER);
            (lambda / n).sqrt()
        });
    // A shift between two cards at one position is at most 1/n (all of one card's chance), and
    // Cohen's w of a law on K orderings at most √(K − 1) (all mass on one ordering): beyond
    // those, no bias of that kind is detected with 99% power.
    let most_shift = 1.0 / cards.max(1) as f64;
    let most_w = evidence
        .orderings
        .map_or(0.0, |counts| ((counts.len() as f64) - 1.0).sqrt());
    Detectable {
        position_shift: position_shift.filter(|x| x.is_finite() && *x <= most_shift),
        cohen_w: cohen_w.filter(|x| x.is_finite() && *x <= most_w),
    }
}

/// The equivalence gate's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum GateOutcome {
    /// The bias is shown to be at most SIZE (exit 0).
    FairWithin,
    /// A bias is detected, or shown to exceed SIZE (exit 1).
    BiasDetected,
    /// Neither is shown yet (exit 3).
    Inconclusive,
}

/// The gate `--max-bias SIZE` and its decision.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Gate {
    /// The size, as written (`1pp`, `0.02tv`).
    pub max_bias: String,
    /// The size and what it measures.
    pub size: BiasSize,
    /// `fair-within`, `bias-detected` or `inconclusive`.
    pub outcome: GateOutcome,
    /// The upper bound on the measure.
    pub at_most: f64,
    /// The lower bound on the measure.
    pub at_least: f64,
    /// Why the gate decided so, in one sentence.
    pub reason: String,
    /// For an inconclusive gate: about how many trials in all would show a fair shuffle (or one
    /// that keeps the deviation seen so far, when that needs more) within the size.
    pub trials_needed: Option<u64>,
}

impl Gate {
    /// Decide the gate for `size` from `ruled_out`, the questions on which the family
    /// rejected (`rejected`) and the names of the tests of the law of one deal that rejected
    /// (`rejected_tests`, fixed-sample or sequential), after `trials` shuffles of `cards`
    /// cards. None when the sample has no bound of `size`'s kind.
    pub fn decide(
        size: BiasSize,
        ruled_out: &RuledOut,
        rejected: &[Question],
        rejected_tests: &[&str],
        trials: u64,
        cards: usize,
    ) -> Option<Gate> {
        let (at_most, at_least) = ruled_out.bounds_of(size)?;
        let rejected_on = |question: Question| rejected.contains(&question);
        let label = size.label();
        let other = [Question::Dependence, Question::Reach]
            .into_iter()
            .find(|&q| rejected_on(q));
        let unmeasured: Vec<&str> = rejected_tests
            .iter()
            .copied()
            .filter(|name| !size.measures(name))
            .collect();
        let (outcome, reason) = if let Some(question) = other {
            (
                GateOutcome::BiasDetected,
                format!(
                    "the family detected {}, which a size of bias on one deal does not measure",
                    question.words()
                ),
            )
        } else if at_least > size.value() {
            (
                GateOutcome::BiasDetected,
                format!(
                    "the bias is at least {} with {:.0}% confidence, more than {label}",
                    measure_text(size, at_least),
                    ruled_out.confidence * 100.0
                ),
            )
        } else if !unmeasured.is_empty() {
            (
                GateOutcome::BiasDetected,
                format!(
                    "the family detected a bias in the law of one deal that {label} does not \
                     measure (rejected by {}), so it cannot be shown within {label}",
                    if unmeasured.len() > 3 {
                        format!(
                            "{} and {} more",
                            unmeasured[..3].join(", "),
                            unmeasured.len() - 3
                        )
                    } else {
                        unmeasured.join(", ")
                    }
                ),
            )
        } else if at_most <= size.value() {
            let also = if rejected_on(Question::OneDeal) {
                " (a bias was detected in the positions, smaller than that)"
            } else {
                ""
            };
            (
                GateOutcome::FairWithin,
                format!(
                    "with {:.0}% confidence, {}{also}",
                    ruled_out.confidence * 100.0,
                    size.words()
                ),
            )
        } else if rejected_on(Question::OneDeal) {
            (
                GateOutcome::BiasDetected,
                format!(
                    "the family rejects the law of one deal, and the bound {} does not show the \
                     bias within {label}",
                    measure_text(size, at_most)
                ),
            )
        } else {
            (
                GateOutcome::Inconclusive,
                format!(
                    "no bias detected, but the sample only bounds it by {}, more than {label}",
                    measure_text(size, at_most)
                ),
            )
        };
        let trials_needed = (outcome == GateOutcome::Inconclusive)
            .then(|| more_trials_needed(size, ruled_out, trials, cards))
            .flatten();
        Some(Gate {
            max_bias: label,
            size,
            outcome,
            at_most,
            at_least,
            reason,
            trials_needed,
        })
    }

    /// The headline: `FAIR WITHIN 1pp`, `BIAS DETECTED` or `INCONCLUSIVE`.
    pub fn headline(&self) -> String {
        match self.outcome {
            GateOutcome::FairWithin => format!("FAIR WITHIN {}", self.max_bias),
            GateOutcome::BiasDetected => "BIAS DETECTED".to_string(),
            GateOutcome::Inconclusive => "INCONCLUSIVE".to_string(),
        }
    }

    /// The gate's sentence under the headline.
    pub fn sentence(&self) -> String {
        let mut sentence = format!("--max-bias {}: {}", self.max_bias, self.reason);
        if let Some(trials) = self.trials_needed {
            sentence.push_str(&format!(
                "; about {trials} trials in all would show a fair shuffle within {}",
                self.max_bias
            ));
        }
        sentence
    }
}

/// A bound on `size`'s measure in words: `0.63 percentage points`, `TV 0.0123`.
fn measure_text(size: BiasSize, value: f64) -> String {
    match size {
        BiasSize::Positions(_) => format!("{:.2} percentage points", value * 100.0),
        BiasSize::TvDistance(_) => format!("TV {value:.4}"),
    }
}

/// Trials, in all, after which the bound would show the bias within `size`: what a fair shuffle
/// of `cards` cards typically needs ([`trials_to_show_fair`]), or more when the deviation seen so
/// far leaves less room (normal approximation of the interval's half-width at the same share of
/// δ). None when nothing in the sample bounds that measure.
fn more_trials_needed(
    size: BiasSize,
    ruled_out: &RuledOut,
    trials: u64,
    cards: usize,
) -> Option<u64> {
    let delta = 1.0 - ruled_out.confidence;
    let fair = trials_to_show_fair(size, cards, ruled_out.anytime);
    let from_room = match size {
        BiasSize::Positions(limit) => {
            let positions = ruled_out.position_chances?;
            let room = limit - positions.largest_observed;
            let p = 1.0 / cards.max(2) as f64;
            (room > 0.0).then(|| {
                half_width_trials(p, delta / positions.cells as f64, room, ruled_out.anytime)
            })
        }
        BiasSize::TvDistance(limit) => {
            let tv = ruled_out.total_variation?;
            let room = limit - tv.observed;
            (room > 0.0).then(|| {
                let mut n = trials.max(1);
                while tv_deviation_bound(tv.cells, n, share_at(delta, n, ruled_out.anytime)) > room
                    && n < u64::MAX / 2
                {
                    n *= 2;
                }
                n
            })
        }
    };
    Some(fair.max(from_room.unwrap_or(0)).max(trials))
}

/// The trials at which a proportion p's interval at `delta` has half-width `room`:
/// z²p(1 − p)/room² for Clopper–Pearson (normal approximation); the confidence sequence's
/// half-width √(2p(1 − p)(ln(1/δ) + ½ ln(N p(1 − p)))/N) solved by iteration.
pub fn half_width_trials(p: f64, delta: f64, room: f64, anytime: bool) -> u64 {
    let variance = p * (1.0 - p);
    if anytime {
        let mut n = 2.0 * variance * (1.0 / delta).ln() / (room * room);
        for _ in 0..50 {
            let ln_term = (1.0 / delta).ln() + 0.5 * (n * variance).max(1.0).ln() + 0.5;
            n = 2.0 * variance * ln_term / (room * room);
        }
        n.ceil() as u64
    } else {
        let z = upper_quantile(delta / 2.0);
        (z * z * variance / (room * room)).ceil() as u64
    }
}

/// The chance with which a fair shuffle run for [`trials_to_show_fair`] trials is shown within
/// the size (the planning figure is where 9 runs in 10 pass).
pub const PLAN_PASS: f64 = 0.9;

/// The trials a fair shuffle of `cards` cards takes, about, to be shown within `size`: for
/// positions, the half-width at the Bonferroni share plus the largest deviation a fair sample
/// shows with probability [`PLAN_PASS`] (the largest of n² independent normal cells, a close
/// approximation for the nearly independent cells of a position matrix); for TV, the mean
/// distance of a fair sample √((K − 1)/(2πN)) plus the deviation bound.
pub fn trials_to_show_fair(size: BiasSize, cards: usize, anytime: bool) -> u64 {
    let delta = 1.0 - CONFIDENCE;
    match size {
        BiasSize::Positions(limit) => {
            let cells = (cards * cards) as f64;
            let p = 1.0 / cards as f64;
            let typical = upper_quantile((1.0 - PLAN_PASS.powf(1.0 / cells)) / 2.0);
            let variance = p * (1.0 - p);
            // Largest deviation z_typ·σ plus the half-width: solve for N where they add to the
            // limit (the half-width alone at limit' = limit − z_typ σ, by iteration).
            let mut n = half_width_trials(p, delta / cells, limit, anytime) as f64;
            for _ in 0..60 {
                let room = limit - typical * (variance / n).sqrt();
                if room <= 0.0 {
                    n *= 2.0;
                    continue;
                }
                n = half_width_trials(p, delta / cells, room, anytime) as f64;
            }
            n.ceil() as u64
        }
        BiasSize::TvDistance(limit) => {
            let cells = crate::engine::permutation::factorial(cards);
            let bound = |n: u64| {
                ((cells as f64 - 1.0) / (2.0 * std::f64::consts::PI * n as f64)).sqrt()
                    + tv_deviation_bound(cells, n, share_at(delta, n, anytime))
            };
            let mut hi = 1u64;
            while bound(hi) > limit && hi < u64::MAX / 4 {
                hi *= 2;
            }
            let mut lo = hi / 2;
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if bound(mid) > limit {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            hi
        }
    }
}

/// What a run needs to show a law within a size (`theory --max-bias`, and `run` before it
/// starts).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SizePlan {
    /// The size, as written.
    pub max_bias: String,
    /// The size and what it measures.
    pub size: BiasSize,
    /// The law's own value of the measure: its largest |P(card at position) − 1/n|, or its
    /// total variation distance from uniform (0 for a fair shuffle).
    pub law_measure: f64,
    /// About how many trials a fixed-sample run needs for its 99% bound to show the bias within
    /// the size (null when the law's own bias is at least the size: the run would rather show
    /// the bias).
    pub trials: Option<u64>,
    /// The same with `--until-decided`, whose confidence sequences are wider.
    pub trials_until_decided: Option<u64>,
}

/// The most shuffles one run takes, 2^53 (`config::MAX_TRIALS`; the analysis does not see the
/// command line's settings).
const MOST_TRIALS: u64 = 1 << 53;

/// "about N trials", or, past what one run takes (a size so small that the count is
/// astronomical, or past u64), that no run reaches it.
pub fn about_trials(trials: u64) -> String {
    if trials > MOST_TRIALS {
        format!("more than 2^53 = {MOST_TRIALS} trials (the most one run takes)")
    } else {
        format!("about {trials} trials")
    }
}

impl SizePlan {
    /// The plan for a law of `cards` cards whose measure of `size` is `law_measure`: the trials
    /// a fair shuffle needs to be shown within the room left, size − law_measure
    /// ([`trials_to_show_fair`]).
    pub fn of(size: BiasSize, law_measure: f64, cards: usize) -> SizePlan {
        let room = size.value() - law_measure;
        let within = |anytime: bool| {
            (room > 1e-12).then(|| {
                let smaller = match size {
                    BiasSize::Positions(_) => BiasSize::Positions(room),
                    BiasSize::TvDistance(_) => BiasSize::TvDistance(room),
                };
                trials_to_show_fair(smaller, cards, anytime)
            })
        };
        SizePlan {
            max_bias: size.label(),
            size,
            law_measure,
            trials: within(false),
            trials_until_decided: within(true),
        }
    }

    /// One sentence: the trials needed, or why none suffice.
    pub fn sentence(&self) -> String {
        match (self.trials, self.trials_until_decided) {
            (Some(fixed), Some(anytime)) => format!(
                "--max-bias {}: {} to show it within {} ({} with --until-decided)",
                self.max_bias,
                about_trials(fixed),
                self.max_bias,
                about_trials(anytime)
            ),
            _ => format!(
                "--max-bias {}: never shown within it: the law's own bias is {}",
                self.max_bias,
                measure_text(self.size, self.law_measure)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn sizes_parse_as_points_or_total_variation_and_refuse_the_rest() {
        assert_eq!(BiasSize::parse("1pp"), Ok(BiasSize::Positions(0.01)));
        assert_eq!(BiasSize::parse("0.02tv"), Ok(BiasSize::TvDistance(0.02)));
        assert_eq!(BiasSize::parse("0.5pp").unwrap().label(), "0.5pp");
        // Sizes below six decimals keep their digits, and read back as themselves; the trials
        // they need are more than any run takes, said as such rather than as a count.
        assert_eq!(MOST_TRIALS, crate::config::MAX_TRIALS);
        let plan = SizePlan::of(BiasSize::parse("0.000000001pp").unwrap(), 0.0, 3);
        assert!(
            plan.sentence()
                .contains("0.000000001pp: more than 2^53 = 9007199254740992 trials"),
            "{}",
            plan.sentence()
        );
        assert_eq!(about_trials(1 << 53), "about 9007199254740992 trials");
        for tiny in [
            "0.000000001pp",
            "0.0000001tv",
            "0.00003pp",
            "0.000012345pp",
            "0.00012345pp",
        ] {
            let label = BiasSize::parse(tiny).unwrap().label();
            assert_eq!(label, tiny);
            assert_eq!(BiasSize::parse(&label), BiasSize::parse(tiny));
        }
        for bad in ["1", "pp", "0pp", "-1pp", "100pp", "1tv", "nanpp", "1 %"] {
            assert!(BiasSize::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_position_bound_reads_the_extreme_counts_with_a_bonferroni_share() {
        // 4 cards, 1000 trials: counts 250 everywhere except 280 and 220 in one column. The
        // bound is the Clopper–Pearson interval at 0.01/16 of the extreme counts.
        let mut counts = vec![vec![250u64; 4]; 4];
        counts[0][0] = 280;
        counts[1][0] = 220;
        let bound = position_bound(&counts, 1000, 0.01, false);
        let (_, high) = clopper_pearson(280, 1000, 0.01 / 16.0);
        let (low, _) = clopper_pearson(220, 1000, 0.01 / 16.0);
        assert_relative_eq!(
            bound.within,
            (high - 0.25).max(0.25 - low),
            max_relative = 1e-12
        );
        assert_relative_eq!(bound.largest_observed, 0.03, max_relative = 1e-12);
        assert_eq!(bound.cells, 16);
        // The intervals at 0.01/16 of 280/1000 still contain ¼, so nothing is shown larger.
        assert_eq!(bound.at_least, 0.0);
    }

    #[test]
    fn a_gate_passes_a_tight_fair_sample_and_waits_on_a_loose_one() {
        let fair = |trials: u64| {
            let per = trials / 4;
            vec![vec![per; 4]; 4]
        };
        let make = |trials: u64| {
            let counts = fair(trials);
            RuledOut::of(&Evidence {
                trials,
                positions: &counts,
                family_size: 5,
                alpha: 0.001,
                ..Evidence::default()
            })
        };
        let size = BiasSize::Positions(0.01);
        let tight = Gate::decide(size, &make(400_000), &[], &[], 400_000, 4).unwrap();
        assert_eq!(tight.outcome, GateOutcome::FairWithin, "{}", tight.reason);
        let loose = Gate::decide(size, &make(4_000), &[], &[], 4_000, 4).unwrap();
        assert_eq!(loose.outcome, GateOutcome::Inconclusive);
        // A fair shuffle needs the half-width (z for 0.01/32) and the largest of 16 deviations
        // it stays under 9 times in 10 (z_m ≈ 2.93) to fit in 1pp: about
        // (z + z_m)²·(3/16)/0.01² ≈ 75,000.
        let needed = loose.trials_needed.unwrap();
        assert_eq!(needed, trials_to_show_fair(size, 4, false));
        let z = upper_quantile(0.01 / 32.0);
        let z_m = upper_quantile((1.0 - 0.9f64.powf(1.0 / 16.0)) / 2.0);
        let hand = (z + z_m).powi(2) * 0.1875 / 1e-4;
        assert!(
            (needed as f64 - hand).abs() < 0.01 * hand,
            "{needed} vs {hand}"
        );
        assert!(Gate::decide(BiasSize::TvDistance(0.01), &make(4000), &[], &[], 4000, 4).is_none());
        // A bias that a test other than the positions' detected is not measured in points of a
        // position's chance: the gate fails however tight the position bounds (a random cut of
        // the deck has every position fair and 5 of 120 orderings). One the positions detected
        // and bound within the size passes.
        let cut = Gate::decide(
            size,
            &make(400_000),
            &[Question::OneDeal],
            &["position 0", "permutations", "identity"],
            400_000,
            4,
        )
        .unwrap();
        assert_eq!(cut.outcome, GateOutcome::BiasDetected);
        assert!(cut.reason.contains("rejected by permutations, identity"), "{}", cut.reason);
        let small = Gate::decide(
            size,
            &make(400_000),
            &[Question::OneDeal],
            &["position 0", "position 3"],
            400_000,
            4,
        )
        .unwrap();
        assert_eq!(small.outcome, GateOutcome::FairWithin, "{}", small.reason);
    }
}
