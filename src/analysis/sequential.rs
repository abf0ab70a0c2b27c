//! Anytime-valid sequential testing (`--until-decided`): one e-process per test of the family,
//! updated after every shuffle, and the family's decision by e-Bonferroni.
//!
//! Each test of the family looks at one categorical variable per shuffle (the ordering, whether
//! the deck came back unchanged, the card landing at position k, the cell of a permutation
//! statistic) whose law under the null hypothesis is known. Its e-process is the mixture
//! likelihood ratio of a Dirichlet–multinomial against that law,
//!
//! E_t = [Γ(A)/Γ(A+t) · Π_i Γ(a_i+c_i)/Γ(a_i)] / Π_i p_i^{c_i},
//!
//! with the Krichevsky–Trofimov prior a_i = ½ (Krichevsky & Trofimov 1981), c_i the counts after
//! t observations and A = Σ a_i. Under the null, E is a nonnegative (super)martingale with
//! E_0 = 1 — a test martingale — so by Ville's inequality (Ville 1939) P(sup_t E_t ≥ 1/α) ≤ α:
//! the evidence may be watched after every shuffle and the run stopped the moment it crosses
//! the threshold, with the false-alarm rate still at most α (Ramdas, Grünwald, Vovk & Shafer
//! 2023, "Game-theoretic statistics and safe anytime-valid inference"; Grünwald, de Heide &
//! Koolen 2024, "Safe testing"). It is updated in log space, one term per observation of cell
//! j: ln E += ln((a_j + c_j)/(A + t)) − ln p_j, then c_j += 1 and t += 1.
//!
//! Cells of null probability 0 share one cell's prior mass (½ in all): observing one makes
//! E = ∞ and rejects at once, as the fixed-sample tests reject outright; under the null they
//! are never observed, so each step's expected factor is 1 minus their prior share — a
//! supermartingale, for which Ville's inequality holds as well.
//!
//! The family of K tests is combined by e-Bonferroni (Vovk & Wang 2021, "E-values: calibration,
//! combination and applications"): the mean of K e-values is an e-value under any dependence,
//! so rejecting the family when some E_k ≥ K/α_s keeps its family-wise error at most α_s.
//!
//! **The whole decision and its level.** `--until-decided` decides with two parts and splits
//! the family-wise α between them (Bonferroni): the e-processes above spend
//! α_s = [`sequential_alpha`]`(α)` = α/2, rejecting once some E_k ≥ K/α_s = 2K/α; the report's
//! fixed-sample family (Holm 1979 over the tests of one deal and the deal-stream tests) spends
//! the rest, α_f = α − α_s, and only at the planned end of the run (`--trials`, or the end of
//! `check`'s input). For T that planned end,
//!
//! P(bias detected) ≤ P(sup_{t ≤ T} max_k E_{k,t} ≥ K/α_s) + P(Holm on the first T rejects at α_f)
//! ≤ α_s + α_f = α,
//!
//! the first term by Ville's inequality with e-Bonferroni, the second because T was fixed
//! before any data, so the fixed-sample p-values are exact there. When the sequential part
//! stops the run at τ < T, the fixed-sample p-values of the first τ deals are not valid: τ was
//! chosen by the data, and the stream tests' statistics (repeats, serial matches, slots,
//! compositions) are functions of the same deals as the e-processes that chose it, so their law
//! at τ is not their fixed-sample law (optional stopping: Armitage, McPherson & Rowe 1969). They
//! need not be valid: the verdict is then already "bias detected", and the report shows them as
//! descriptive only. This is the α-spending of group-sequential designs (Lan & DeMets 1983) with
//! two looks of different kinds, one continuous and anytime-valid, one fixed-sample at the end.
//! Its cost: a bias that only the deal-stream tests see (repeated decks from a small seed
//! space), having no e-process, is found at the planned end rather than earlier.

use std::ops::ControlFlow;
use std::sync::Arc;

use serde::Serialize;

use crate::analysis::ruled_out::{
    BiasSize, CONFIDENCE, every_trial_delta, flat_position_bound, tv_bound,
};
use crate::engine::algorithms::Card;
use crate::engine::marginal::MarginalTally;
use crate::engine::permutation::{factorial, rank};
use crate::engine::simulate::Tally;
use crate::stats::probability::{Probability, ln_sum};
use crate::theory::exact::Law;
use crate::theory::permutation_statistics::{Statistic, StatisticValues, ValueLaw};

/// The Dirichlet prior weight of each cell: ½, the Krichevsky–Trofimov mixture (Krichevsky &
/// Trofimov 1981), whose regret is (K−1)/2 · ln t + O(1) nats for K cells.
pub const KT_PRIOR: f64 = 0.5;

/// Values of a permutation statistic at either end of its law are pooled into one cell while
/// their total probability stays below this, decided from the law alone before any data:
/// every cell costs about ½ ln t nats of evidence, and a tail this rare adds almost no power.
pub const POOLED_TAIL: f64 = 1e-3;

/// The share of the family-wise `alpha` that the e-processes of `--until-decided` spend: half.
/// The other half, `alpha − sequential_alpha(alpha)`, is the fixed-sample family's at the
/// planned end of the run (see the module documentation for why the sum holds the level).
///
/// ```
/// use shuffle_bias::analysis::sequential::sequential_alpha;
/// assert_eq!(sequential_alpha(0.001), 0.0005);
/// ```
pub fn sequential_alpha(alpha: f64) -> f64 {
    alpha / 2.0
}

/// One cell of a null law, ready for [`MixtureEValue::observe_cell`]: the logarithm of its
/// probability (−∞ when impossible) and the inverse of the probability (∞ when it does not
/// fit an f64: impossible, or so small that 1/p overflows; the logarithm is used then).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NullCell {
    /// ln p.
    pub ln_p: f64,
    /// 1/p, or ∞.
    pub inverse_p: f64,
}

impl NullCell {
    /// The cell of probability e^`ln_p`.
    pub fn from_ln(ln_p: f64) -> Self {
        NullCell {
            ln_p,
            inverse_p: (-ln_p).exp(),
        }
    }
}

/// The gate's decision from an upper and a lower bound on its measure: within `limit` when the
/// upper bound is at most it, beyond when the lower bound exceeds it.
fn decide_bounds(at_most: f64, at_least: f64, limit: f64) -> Option<bool> {
    if at_most <= limit {
        Some(true)
    } else if at_least > limit {
        Some(false)
    } else {
        None
    }
}

/// The gate of `--max-bias` first looks after this many shuffles (no bound is tight before).
const GATE_FIRST_CHECK: u64 = 100;

/// Between two folds the e-value is kept as a plain product; it is folded into its logarithm
/// once it leaves [1/FOLD_AT, FOLD_AT], far inside f64's range.
const FOLD_AT: f64 = 1e200;

/// The e-process of one categorical test: the Dirichlet–multinomial (KT) mixture likelihood
/// ratio against the null law.
///
/// It does not hold the counts: the caller passes the count of the observed cell before the
/// observation (the tally being filled holds them), so an n!-cell test costs no second table.
/// E_t is kept as e^`ln_folded` · `pending`: each observation multiplies `pending` by
/// (a_j + c_j)/((A + t) p_j) — a multiplication and a division instead of two logarithms — and
/// the product is folded into the logarithm before it could overflow or underflow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MixtureEValue {
    /// A = Σ a_i: ½ per cell of positive probability, and ½ for all impossible cells together.
    total_prior: f64,
    /// Observations so far.
    trials: u64,
    /// The folded part of ln E_t.
    ln_folded: f64,
    /// E_t / e^ln_folded.
    pending: f64,
    /// Whether an impossible cell was seen (E = ∞).
    infinite: bool,
    /// ln of the threshold this e-process is compared with (∞: none).
    ln_threshold: f64,
    /// The `pending` at which E_t reaches the threshold: e^(ln_threshold − ln_folded).
    bound: f64,
}

impl MixtureEValue {
    /// A fresh e-process (E_0 = 1) over `support` cells of positive probability, plus cells of
    /// probability 0 when `impossible_cells` is true.
    pub fn new(support: usize, impossible_cells: bool) -> Self {
        let cells = support + usize::from(impossible_cells);
        MixtureEValue {
            total_prior: KT_PRIOR * cells as f64,
            trials: 0,
            ln_folded: 0.0,
            pending: 1.0,
            infinite: false,
            ln_threshold: f64::INFINITY,
            bound: f64::INFINITY,
        }
    }

    /// The same e-process, to be compared with the threshold e^`ln_threshold`
    /// ([`MixtureEValue::reached`]).
    pub fn with_threshold(mut self, ln_threshold: f64) -> Self {
        self.ln_threshold = ln_threshold;
        self.set_bound();
        self
    }

    fn set_bound(&mut self) {
        self.bound = (self.ln_threshold - self.ln_folded).exp();
    }

    /// Observe one outcome in a cell seen `seen_before` times so far, whose null probability
    /// has logarithm `ln_p` (−∞ for an impossible cell: E becomes +∞).
    pub fn observe(&mut self, seen_before: u64, ln_p: f64) {
        if ln_p == f64::NEG_INFINITY {
            self.infinite = true;
        } else {
            // ln((a_j + c_j)/(A + t)) − ln p_j.
            self.ln_folded += (KT_PRIOR + seen_before as f64).ln()
                - (self.total_prior + self.trials as f64).ln()
                - ln_p;
            self.set_bound();
        }
        self.trials += 1;
    }

    /// Observe one outcome in a cell of probability 1/`inverse_p` (finite and positive) seen
    /// `seen_before` times so far: E_t is multiplied by (a_j + c_j) · inverse_p / (A + t).
    #[inline]
    pub fn observe_inverse(&mut self, seen_before: u64, inverse_p: f64) {
        self.pending *=
            (KT_PRIOR + seen_before as f64) * inverse_p / (self.total_prior + self.trials as f64);
        self.trials += 1;
        if !(1.0 / FOLD_AT..=FOLD_AT).contains(&self.pending) {
            self.ln_folded += self.pending.ln();
            self.pending = 1.0;
            self.set_bound();
        }
    }

    /// Observe one outcome in `cell`, seen `seen_before` times so far.
    #[inline]
    pub fn observe_cell(&mut self, seen_before: u64, cell: NullCell) {
        if cell.inverse_p.is_finite() {
            self.observe_inverse(seen_before, cell.inverse_p);
        } else {
            self.observe(seen_before, cell.ln_p);
        }
    }

    /// Whether E_t has reached the threshold given by [`MixtureEValue::with_threshold`].
    #[inline]
    pub fn reached(&self) -> bool {
        self.infinite || self.pending >= self.bound
    }

    /// ln E_t.
    pub fn ln_e(&self) -> f64 {
        if self.infinite {
            f64::INFINITY
        } else {
            self.ln_folded + self.pending.ln()
        }
    }

    /// log10 E_t.
    pub fn log10_e(&self) -> f64 {
        self.ln_e() * std::f64::consts::LOG10_E
    }

    /// Observations so far.
    pub fn trials(&self) -> u64 {
        self.trials
    }
}

/// ln E_t of the KT mixture in closed form, from the counts `counts[i]` of every cell and the
/// logarithms of their null probabilities (−∞ for impossible cells, which share ½ of prior
/// mass): lnΓ(A) − lnΓ(A+t) + Σ_i [lnΓ(½+c_i) − lnΓ(½)] − Σ_i c_i ln p_i, +∞ when an impossible
/// cell was observed. What [`MixtureEValue`] accumulates one observation at a time.
pub fn ln_mixture_e_value(counts: &[u64], ln_p: &[f64]) -> f64 {
    use statrs::function::gamma::ln_gamma;
    assert_eq!(counts.len(), ln_p.len(), "one probability per cell");
    let impossible = ln_p.contains(&f64::NEG_INFINITY);
    if counts
        .iter()
        .zip(ln_p)
        .any(|(&c, &l)| c > 0 && l == f64::NEG_INFINITY)
    {
        return f64::INFINITY;
    }
    let support = ln_p.iter().filter(|&&l| l > f64::NEG_INFINITY).count();
    let total_prior = KT_PRIOR * (support + usize::from(impossible)) as f64;
    let trials: u64 = counts.iter().sum();
    let mut ln_e = ln_gamma(total_prior) - ln_gamma(total_prior + trials as f64);
    for (&c, &l) in counts.iter().zip(ln_p) {
        if l > f64::NEG_INFINITY && c > 0 {
            ln_e += ln_gamma(KT_PRIOR + c as f64) - ln_gamma(KT_PRIOR) - c as f64 * l;
        }
    }
    ln_e
}

/// The laws a marginal family is tested against: each part is tested when its law is given.
#[derive(Debug, Clone, Default)]
pub struct MarginalNull {
    /// `[card][position]` probabilities (None: the positions are not tested).
    pub positions: Option<Vec<Vec<f64>>>,
    /// The probability that the deck comes back unchanged (None: the identity is not tested).
    pub identity: Option<Probability>,
    /// The statistics tested, each with its law.
    pub statistics: Vec<(Statistic, ValueLaw)>,
}

/// One test of the family after the run.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SequentialTest {
    /// `permutations`, `identity`, `position K` or a statistic's name, as in `tests`.
    pub name: String,
    /// The categorical cells its e-process mixes over (impossible cells count as one).
    pub cells: usize,
    /// log10 of its e-value at the stop (null when infinite: an outcome of null probability 0
    /// was seen).
    pub log10_e_value: Option<f64>,
    /// Whether it reached the family's threshold K/sequential_alpha.
    pub rejected: bool,
}

/// The running evidence at one point of the run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct EvidencePoint {
    /// Shuffles (or permutations) observed.
    pub trials: u64,
    /// log10(max_k E_k / threshold): the family rejects once it reaches 0 (null when
    /// infinite).
    pub log10_ratio: Option<f64>,
}

/// The outcome of the sequential test, for the report.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SequentialOutcome {
    /// Whether the family rejected (then the run stopped there, and the verdict is bias).
    pub decided: bool,
    /// `--max-bias`: the size within which the confidence sequences showed the bias, when that
    /// stopped the run (JSON: present only then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shown_within: Option<String>,
    /// `--max-bias`: the size beyond which the confidence sequences showed the bias, when that
    /// stopped the run (JSON: present only then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shown_beyond: Option<String>,
    /// `--max-bias SIZEpp`: the test whose rejection stopped the run, one of a part of the law
    /// that a size in position points does not measure (the orderings, the identity, a
    /// statistic): the verdict is then bias whatever the positions show, so the run need not
    /// go on (JSON: present only then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmeasured: Option<String>,
    /// Whether a `--max-bias` gate watched the run (a rejection alone did not stop it then).
    #[serde(skip)]
    pub gated: bool,
    /// Shuffles (or permutations) observed: where the run stopped.
    pub trials_used: u64,
    /// The family-wise level of the whole decision (`--alpha`).
    pub alpha: f64,
    /// The share of `alpha` the e-processes spend: alpha/2 ([`sequential_alpha`]).
    pub sequential_alpha: f64,
    /// The share left to the fixed-sample family, which decides only at the planned end of a
    /// run the sequential part did not stop: alpha − sequential_alpha.
    pub fixed_sample_alpha: f64,
    /// The number of tests K.
    pub family_size: usize,
    /// The threshold on every e-value, K/sequential_alpha = 2K/alpha (e-Bonferroni, Vovk &
    /// Wang 2021).
    pub threshold: f64,
    /// log10 of the threshold.
    pub log10_threshold: f64,
    /// Each test's e-value, in the order of `tests`.
    pub tests: Vec<SequentialTest>,
    /// The test with the largest e-value.
    pub strongest: String,
    /// log10 of the largest e-value (null when infinite).
    pub log10_strongest: Option<f64>,
    /// log10(max_k E_k / threshold) at checkpoints: every shuffle up to 16, then about four
    /// per doubling (t → ⌈t·2^¼⌉), and at the stop.
    pub evidence: Vec<EvidencePoint>,
}

impl SequentialOutcome {
    /// Whether the sequential part ended the run before its planned trials: the confidence
    /// sequences showed the bias within or beyond `--max-bias` (when `gated`), a test the size
    /// does not measure rejected, or the family rejected (without a gate: a rejection the size
    /// measures alone does not stop a gated run). A run cut short otherwise was interrupted.
    pub fn stopped_the_run(&self, gated: bool) -> bool {
        self.shown_within.is_some()
            || self.shown_beyond.is_some()
            || self.unmeasured.is_some()
            || (self.decided && !gated)
    }
}

/// The tally a sequential run filled, in its mode.
#[derive(Debug, Clone)]
pub enum SequentialTally {
    /// Every ordering counted.
    Full(Tally),
    /// Positions, identity and statistics.
    Marginal(MarginalTally),
}

/// A statistic's cells: values pooled at the tails, impossible values apart.
#[derive(Debug, Clone)]
struct StatisticCells {
    /// `cell_of[value]`: the cell, or [`IMPOSSIBLE`].
    cell_of: Vec<usize>,
    /// ln of each cell's null probability.
    ln_p: Vec<f64>,
    /// Each cell's null probability, ready to observe.
    null: Vec<NullCell>,
    /// Observations per cell.
    counts: Vec<u64>,
    /// Its index in the family.
    test: usize,
    /// Its statistic.
    statistic: Statistic,
}

/// The cell of a value of null probability 0.
const IMPOSSIBLE: usize = usize::MAX;

impl StatisticCells {
    /// The cells of `law`: possible values one per cell, except that the leading and the
    /// trailing possible values are pooled while their total probability stays below
    /// [`POOLED_TAIL`]; impossible values stay impossible.
    fn new(statistic: Statistic, law: &ValueLaw, values: usize, test: usize) -> Self {
        let ln_of = |v: usize| {
            law.ln_probabilities
                .get(v)
                .copied()
                .unwrap_or(f64::NEG_INFINITY)
        };
        let possible: Vec<usize> = (0..values)
            .filter(|&v| ln_of(v) > f64::NEG_INFINITY)
            .collect();
        let mut cell_of = vec![IMPOSSIBLE; values];
        let mut ln_p = Vec::new();
        if !possible.is_empty() {
            // How many leading and trailing possible values fit below the pooled tail.
            let tail = |order: &mut dyn Iterator<Item = &usize>| {
                let mut ln_total = f64::NEG_INFINITY;
                let mut count = 0;
                for &v in order {
                    let next = ln_sum([ln_total, ln_of(v)].into_iter());
                    if next >= POOLED_TAIL.ln() {
                        break;
                    }
                    ln_total = next;
                    count += 1;
                }
                count
            };
            let low = tail(&mut possible.iter());
            let high = tail(&mut possible.iter().rev()).min(possible.len() - low);
            let mut groups: Vec<&[usize]> = Vec::new();
            if low > 0 {
                groups.push(&possible[..low]);
            }
            groups.extend(possible[low..possible.len() - high].chunks(1));
            if high > 0 {
                groups.push(&possible[possible.len() - high..]);
            }
            for group in groups {
                for &v in group {
                    cell_of[v] = ln_p.len();
                }
                ln_p.push(ln_sum(group.iter().map(|&v| ln_of(v))));
            }
        }
        StatisticCells {
            counts: vec![0; ln_p.len()],
            null: ln_p.iter().map(|&l| NullCell::from_ln(l)).collect(),
            cell_of,
            ln_p,
            test,
            statistic,
        }
    }
}

/// What the family observes, in its mode.
#[derive(Debug, Clone)]
enum Parts {
    Full {
        /// The tally (counts by rank) being filled.
        tally: Tally,
        /// The hypothesis' law (None: uniform).
        law: Option<Arc<Law>>,
        /// 1/n!, each ordering's probability under uniform.
        uniform: NullCell,
        /// P(identity), P(not identity).
        identity: [NullCell; 2],
        /// `[card * n + position]` counts.
        positions: Vec<u64>,
        /// The null probability of each `[card * n + position]`.
        null_positions: Vec<NullCell>,
    },
    Marginal {
        /// The tally being filled.
        tally: MarginalTally,
        /// The null probability of each `[card * n + position]`, when tested.
        null_positions: Option<Vec<NullCell>>,
        /// The identity's test index with P(identity), P(not identity), when tested.
        identity: Option<(usize, [NullCell; 2])>,
        /// The statistics tested.
        statistics: Vec<StatisticCells>,
        /// Working space for the statistics.
        scratch: Vec<usize>,
    },
}

/// ln P(identity) and ln P(not identity).
fn identity_lns(p0: Probability) -> [f64; 2] {
    [p0.ln, (-p0.ln.exp()).ln_1p()]
}

/// ln of a `[card][position]` matrix laid out as `[card * n + position]`.
fn ln_matrix(matrix: &[Vec<f64>]) -> Vec<f64> {
    matrix
        .iter()
        .flat_map(|row| {
            row.iter()
                .map(|&p| if p > 0.0 { p.ln() } else { f64::NEG_INFINITY })
        })
        .collect()
}

/// The cells of one position test under `ln_positions` (position `k`'s column).
fn position_test(ln_positions: &[f64], n: usize, position: usize) -> MixtureEValue {
    let column = (0..n).map(|card| ln_positions[card * n + position]);
    let support = column.clone().filter(|&l| l > f64::NEG_INFINITY).count();
    MixtureEValue::new(support, support < n)
}

/// The family of e-processes of a run, fed one shuffled deck at a time in trial order.
#[derive(Debug, Clone)]
pub struct SequentialFamily {
    alpha: f64,
    ln_threshold: f64,
    names: Vec<String>,
    cells: Vec<usize>,
    tests: Vec<MixtureEValue>,
    parts: Parts,
    deck: usize,
    trials: u64,
    /// The largest ln E_k after the last observation.
    ln_max: f64,
    evidence: Vec<EvidencePoint>,
    next_checkpoint: u64,
    decided: bool,
    /// `--max-bias`: the size the run stops within, once its confidence sequences show it.
    size_gate: Option<BiasSize>,
    /// The trials at which the gate looks next.
    next_gate_check: u64,
    /// Whether the gate stopped the run: the bias shown within its size (`Some(true)`) or
    /// beyond it (`Some(false)`).
    gate_stop: Option<bool>,
    /// The test, one the gate's size does not measure, whose rejection stopped the run.
    unmeasured_stop: Option<String>,
}

impl SequentialFamily {
    /// The full-mode family on `deck` cards (at most 11): every ordering, the identity and
    /// each position, against `law` (None: uniform), as the fixed-sample family tests them.
    /// `alpha` is the family-wise level of the whole decision, of which the e-processes spend
    /// [`sequential_alpha`].
    pub fn full(deck: usize, law: Option<Arc<Law>>, alpha: f64) -> Self {
        let orderings = factorial(deck) as usize;
        let n = deck;
        let (permutations, ln_identity, ln_positions) = match &law {
            None => (
                MixtureEValue::new(orderings, false),
                identity_lns(Probability::from_p(1.0 / orderings as f64)),
                vec![-(n as f64).ln(); n * n],
            ),
            Some(law) => {
                let support = law.probabilities.iter().filter(|&&p| p > 0.0).count();
                (
                    MixtureEValue::new(support, support < orderings),
                    identity_lns(Probability::from_p(law.probabilities[0])),
                    ln_matrix(&law.position_matrix()),
                )
            }
        };
        let identity_support = ln_identity.iter().filter(|l| l.is_finite()).count();
        let mut tests = vec![
            permutations,
            MixtureEValue::new(identity_support, identity_support < 2),
        ];
        let mut names = vec!["permutations".to_string(), "identity".to_string()];
        let mut cells = vec![orderings, 2];
        for position in 0..n {
            tests.push(position_test(&ln_positions, n, position));
            names.push(format!("position {position}"));
            cells.push(n);
        }
        let parts = Parts::Full {
            tally: Tally {
                deck,
                counts: vec![0; orderings],
                trials: 0,
            },
            law,
            uniform: NullCell::from_ln(-(orderings as f64).ln()),
            identity: ln_identity.map(NullCell::from_ln),
            positions: vec![0; n * n],
            null_positions: ln_positions.iter().map(|&l| NullCell::from_ln(l)).collect(),
        };
        Self::assemble(deck, alpha, names, cells, tests, parts)
    }

    /// The marginal-mode family on `deck` cards: the positions, the identity and the
    /// statistics whose laws `null` gives; `alpha` as for [`SequentialFamily::full`].
    pub fn marginal(deck: usize, null: MarginalNull, alpha: f64) -> Self {
        let n = deck;
        let mut tests = Vec::new();
        let mut names = Vec::new();
        let mut cells = Vec::new();
        let ln_positions = null.positions.as_deref().map(ln_matrix);
        if let Some(ln_positions) = &ln_positions {
            for position in 0..n {
                tests.push(position_test(ln_positions, n, position));
                names.push(format!("position {position}"));
                cells.push(n);
            }
        }
        let identity = null.identity.map(|p0| {
            let lns = identity_lns(p0);
            let support = lns.iter().filter(|l| l.is_finite()).count();
            tests.push(MixtureEValue::new(support, support < 2));
            names.push("identity".to_string());
            cells.push(2);
            (tests.len() - 1, lns.map(NullCell::from_ln))
        });
        let statistics = null
            .statistics
            .iter()
            .map(|(statistic, law)| {
                let statistic_cells =
                    StatisticCells::new(*statistic, law, statistic.max_value(n) + 1, tests.len());
                let support = statistic_cells.ln_p.len();
                let impossible = statistic_cells.cell_of.contains(&IMPOSSIBLE);
                tests.push(MixtureEValue::new(support, impossible));
                names.push(statistic.name().to_string());
                cells.push(support + usize::from(impossible));
                statistic_cells
            })
            .collect();
        let parts = Parts::Marginal {
            tally: MarginalTally::new(n),
            null_positions: ln_positions
                .map(|lns| lns.iter().map(|&l| NullCell::from_ln(l)).collect()),
            identity,
            statistics,
            scratch: vec![0; crate::theory::permutation_statistics::scratch_len(n)],
        };
        Self::assemble(deck, alpha, names, cells, tests, parts)
    }

    fn assemble(
        deck: usize,
        alpha: f64,
        names: Vec<String>,
        cells: Vec<usize>,
        tests: Vec<MixtureEValue>,
        parts: Parts,
    ) -> Self {
        let family = tests.len().max(1);
        let ln_threshold = (family as f64 / sequential_alpha(alpha)).ln();
        SequentialFamily {
            alpha,
            ln_threshold,
            names,
            cells,
            tests: tests
                .into_iter()
                .map(|test| test.with_threshold(ln_threshold))
                .collect(),
            parts,
            deck,
            trials: 0,
            ln_max: 0.0,
            evidence: Vec::new(),
            next_checkpoint: 1,
            decided: false,
            size_gate: None,
            next_gate_check: GATE_FIRST_CHECK,
            gate_stop: None,
            unmeasured_stop: None,
        }
    }

    /// The family of an equivalence gate (`--max-bias` with `--until-decided`): the run stops
    /// once its confidence sequences show the bias within `size`, or beyond it — every card's
    /// chance of each position (full and marginal mode) or the total variation distance (full
    /// mode) — and no longer at the family's first rejection: a bias detected but smaller than
    /// `size` is what the gate lets pass, so the run goes on until the bound decides. The
    /// bounds are those of [`crate::analysis::ruled_out`] at the stop — the positions'
    /// Krichevsky–Trofimov confidence sequences and the TV bound at δ/(N(N + 1)) — which hold
    /// at every N together, so looking after any shuffle keeps their 99% confidence.
    pub fn with_size_gate(mut self, size: BiasSize) -> Self {
        self.size_gate = Some(size);
        self
    }

    /// Whether the gate stopped the run: the bias was shown within its size.
    pub fn shown_within(&self) -> bool {
        self.gate_stop == Some(true)
    }

    /// The test, one the gate's size does not measure, whose rejection stopped the run.
    pub fn stopped_unmeasured(&self) -> Option<&str> {
        self.unmeasured_stop.as_deref()
    }

    /// Whether the gate stopped the run: the bias was shown beyond its size.
    pub fn shown_beyond(&self) -> bool {
        self.gate_stop == Some(false)
    }

    /// What the bounds now show: within the gate's size (`Some(true)`), beyond it
    /// (`Some(false)`), or neither yet.
    fn gate_decision(&self, size: BiasSize) -> Option<bool> {
        let delta = 1.0 - CONFIDENCE;
        let n = self.deck;
        match (&self.parts, size) {
            (Parts::Full { positions, .. }, BiasSize::Positions(limit))
            | (
                Parts::Marginal {
                    tally: MarginalTally { positions, .. },
                    ..
                },
                BiasSize::Positions(limit),
            ) => {
                let bound = flat_position_bound(positions, n, self.trials, delta, true);
                decide_bounds(bound.within, bound.at_least, limit)
            }
            (Parts::Full { tally, .. }, BiasSize::TvDistance(limit)) => {
                let bound = tv_bound(
                    &tally.counts,
                    self.trials,
                    every_trial_delta(delta, self.trials),
                );
                decide_bounds(bound.at_most, bound.at_least, limit)
            }
            (Parts::Marginal { .. }, BiasSize::TvDistance(_)) => None,
        }
    }

    /// The number of tests K.
    pub fn family_size(&self) -> usize {
        self.tests.len()
    }

    /// ln of the threshold K/sequential_alpha.
    pub fn ln_threshold(&self) -> f64 {
        self.ln_threshold
    }

    /// Shuffles observed so far.
    pub fn trials(&self) -> u64 {
        self.trials
    }

    /// Whether the family has rejected.
    pub fn decided(&self) -> bool {
        self.decided
    }

    /// Each test's e-process, in family order, with its name.
    pub fn tests(&self) -> impl Iterator<Item = (&str, &MixtureEValue)> {
        self.names.iter().map(String::as_str).zip(&self.tests)
    }

    /// Observe one shuffled deck (`deck[position] = card`): tally it, update every e-process,
    /// and break once some e-value reaches K/sequential_alpha (the family rejects; the caller
    /// stops).
    /// After a break, further decks are not observed.
    pub fn observe(&mut self, deck: &[Card]) -> ControlFlow<()> {
        if self.gate_stop.is_some()
            || self.unmeasured_stop.is_some()
            || (self.decided && self.size_gate.is_none())
        {
            return ControlFlow::Break(());
        }
        let was_decided = self.decided;
        let n = self.deck;
        debug_assert_eq!(deck.len(), n);
        let tests = &mut self.tests;
        match &mut self.parts {
            Parts::Full {
                tally,
                law,
                uniform,
                identity,
                positions,
                null_positions,
            } => {
                let r = rank(deck);
                let seen = tally.counts[r];
                match law {
                    None => tests[0].observe_cell(seen, *uniform),
                    Some(law) => {
                        let p = law.probabilities[r];
                        let inverse_p = 1.0 / p;
                        if inverse_p.is_finite() {
                            tests[0].observe_inverse(seen, inverse_p);
                        } else {
                            let ln_p = if p > 0.0 { p.ln() } else { f64::NEG_INFINITY };
                            tests[0].observe(seen, ln_p);
                        }
                    }
                }
                let identities = tally.counts[0];
                if r == 0 {
                    tests[1].observe_cell(identities, identity[0]);
                } else {
                    tests[1].observe_cell(tally.trials - identities, identity[1]);
                }
                tally.counts[r] += 1;
                tally.trials += 1;
                for (position, &card) in deck.iter().enumerate() {
                    let cell = usize::from(card) * n + position;
                    tests[2 + position].observe_cell(positions[cell], null_positions[cell]);
                    positions[cell] += 1;
                }
            }
            Parts::Marginal {
                tally,
                null_positions,
                identity,
                statistics,
                scratch,
            } => {
                if let Some(null_positions) = null_positions {
                    for (position, &card) in deck.iter().enumerate() {
                        let cell = usize::from(card) * n + position;
                        tests[position].observe_cell(tally.positions[cell], null_positions[cell]);
                    }
                }
                if let Some((test, null)) = identity {
                    let unchanged = deck.iter().enumerate().all(|(i, &c)| usize::from(c) == i);
                    if unchanged {
                        tests[*test].observe_cell(tally.identity, null[0]);
                    } else {
                        tests[*test].observe_cell(tally.trials - tally.identity, null[1]);
                    }
                }
                if !statistics.is_empty() {
                    let values = StatisticValues::of(deck, scratch);
                    for cells in statistics.iter_mut() {
                        let cell = cells.cell_of[values.get(cells.statistic)];
                        if cell == IMPOSSIBLE {
                            tests[cells.test].observe(0, f64::NEG_INFINITY);
                        } else {
                            tests[cells.test].observe_cell(cells.counts[cell], cells.null[cell]);
                            cells.counts[cell] += 1;
                        }
                    }
                }
                tally.add(deck);
            }
        }
        self.trials += 1;
        let reached = self.tests.iter().any(MixtureEValue::reached);
        self.decided = was_decided || reached;
        let newly_decided = self.decided && !was_decided;
        // Under a size in position points, a rejection by a test the size does not measure
        // makes the verdict bias whatever the bounds show later (`Gate::decide`): stop there.
        // The e-processes are anytime-valid, so stopping at a rejection keeps its level.
        if reached
            && let Some(size) = self.size_gate
            && let Some(name) = self
                .names
                .iter()
                .zip(&self.tests)
                .find(|(name, test)| test.reached() && !size.measures(name))
                .map(|(name, _)| name.clone())
        {
            self.unmeasured_stop = Some(name);
            self.checkpoint();
            return ControlFlow::Break(());
        }
        if let Some(size) = self.size_gate
            && self.trials >= self.next_gate_check
        {
            // Every 1% more shuffles (5% for a TV bound, which reads all n! counts).
            let step = match size {
                BiasSize::Positions(_) => 1.01,
                BiasSize::TvDistance(_) => 1.05,
            };
            self.next_gate_check = (self.trials + 1).max((self.trials as f64 * step).ceil() as u64);
            if let Some(within) = self.gate_decision(size) {
                self.gate_stop = Some(within);
                self.checkpoint();
                return ControlFlow::Break(());
            }
        }
        if self.trials == self.next_checkpoint || newly_decided {
            self.checkpoint();
            self.next_checkpoint = if self.trials < 16 {
                self.trials + 1
            } else {
                (self.trials as f64 * 2f64.powf(0.25)).ceil() as u64
            };
        }
        if self.decided && self.size_gate.is_none() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }

    /// Record the running evidence now (once per number of trials).
    fn checkpoint(&mut self) {
        if self
            .evidence
            .last()
            .is_some_and(|p| p.trials == self.trials)
        {
            return;
        }
        self.ln_max = self
            .tests
            .iter()
            .map(MixtureEValue::ln_e)
            .fold(f64::NEG_INFINITY, f64::max);
        let ratio = (self.ln_max - self.ln_threshold) * std::f64::consts::LOG10_E;
        self.evidence.push(EvidencePoint {
            trials: self.trials,
            log10_ratio: ratio.is_finite().then_some(ratio),
        });
    }

    /// The outcome and the tally of what was observed.
    pub fn finish(mut self) -> (SequentialOutcome, SequentialTally) {
        if self.trials > 0 {
            self.checkpoint();
        }
        let finite = |ln: f64| ln.is_finite().then_some(ln * std::f64::consts::LOG10_E);
        let tests: Vec<SequentialTest> = self
            .names
            .iter()
            .zip(&self.tests)
            .zip(&self.cells)
            .map(|((name, test), &cells)| SequentialTest {
                name: name.clone(),
                cells,
                log10_e_value: finite(test.ln_e()),
                rejected: test.ln_e() >= self.ln_threshold,
            })
            .collect();
        let strongest = self
            .names
            .iter()
            .zip(&self.tests)
            .max_by(|a, b| a.1.ln_e().total_cmp(&b.1.ln_e()))
            .map(|(name, test)| (name.clone(), test.ln_e()));
        let (strongest, ln_strongest) = strongest.unwrap_or(("none".to_string(), 0.0));
        let family_size = self.tests.len();
        let outcome = SequentialOutcome {
            decided: self.decided,
            shown_within: self
                .size_gate
                .filter(|_| self.shown_within())
                .map(BiasSize::label),
            shown_beyond: self
                .size_gate
                .filter(|_| self.shown_beyond())
                .map(BiasSize::label),
            unmeasured: self.unmeasured_stop,
            gated: self.size_gate.is_some(),
            trials_used: self.trials,
            alpha: self.alpha,
            sequential_alpha: sequential_alpha(self.alpha),
            fixed_sample_alpha: self.alpha - sequential_alpha(self.alpha),
            family_size,
            threshold: family_size.max(1) as f64 / sequential_alpha(self.alpha),
            log10_threshold: self.ln_threshold * std::f64::consts::LOG10_E,
            tests,
            strongest,
            log10_strongest: finite(ln_strongest),
            evidence: self.evidence,
        };
        let tally = match self.parts {
            Parts::Full { tally, .. } => SequentialTally::Full(tally),
            Parts::Marginal { tally, .. } => SequentialTally::Marginal(tally),
        };
        (outcome, tally)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn the_incremental_e_value_equals_the_closed_form_through_ln_gamma() {
        // A K = 4 null with one impossible cell; a sequence that never hits it.
        let p = [0.5, 0.3, 0.2, 0.0];
        let ln_p: Vec<f64> = p
            .iter()
            .map(|&p: &f64| if p > 0.0 { p.ln() } else { f64::NEG_INFINITY })
            .collect();
        let sequence = [0usize, 2, 2, 1, 2, 2, 0, 2, 2, 2, 1, 2, 2, 2, 2, 0, 2];
        let mut e = MixtureEValue::new(3, true);
        let mut counts = [0u64; 4];
        for &cell in &sequence {
            e.observe(counts[cell], ln_p[cell]);
            counts[cell] += 1;
            assert_relative_eq!(
                e.ln_e(),
                ln_mixture_e_value(&counts, &ln_p),
                max_relative = 1e-12,
                epsilon = 1e-12
            );
        }
        assert_eq!(e.trials(), sequence.len() as u64);
        // Hitting the impossible cell makes the evidence infinite, in both forms.
        e.observe(0, ln_p[3]);
        counts[3] += 1;
        assert_eq!(e.ln_e(), f64::INFINITY);
        assert_eq!(ln_mixture_e_value(&counts, &ln_p), f64::INFINITY);
        e.observe(counts[0], ln_p[0]);
        assert_eq!(e.ln_e(), f64::INFINITY, "infinite evidence stays infinite");
    }

    #[test]
    fn the_product_form_folds_into_logarithms_and_matches_the_closed_form() {
        // 5000 draws of cell 0 against p = (0.01, 0.99): E grows to about 10^9990, past f64's
        // range many times over, so the product is folded again and again.
        let ln_p = [0.01f64.ln(), 0.99f64.ln()];
        let cells = ln_p.map(NullCell::from_ln);
        let mut fast = MixtureEValue::new(2, false).with_threshold(1e6f64.ln());
        let mut slow = MixtureEValue::new(2, false);
        for seen in 0..5000u64 {
            if seen == 0 {
                assert!(!fast.reached());
            }
            fast.observe_cell(seen, cells[0]);
            slow.observe(seen, ln_p[0]);
        }
        let exact = ln_mixture_e_value(&[5000, 0], &ln_p);
        assert!(exact > 9000.0 * std::f64::consts::LN_10);
        assert_relative_eq!(fast.ln_e(), exact, max_relative = 1e-12);
        assert_relative_eq!(slow.ln_e(), exact, max_relative = 1e-12);
        assert!(fast.reached());
        // A probability whose inverse overflows takes the logarithm's path.
        let tiny = NullCell::from_ln(-800.0);
        assert_eq!(tiny.inverse_p, f64::INFINITY);
        let mut e = MixtureEValue::new(2, false);
        e.observe_cell(0, tiny);
        assert_relative_eq!(e.ln_e(), (0.5f64 / 1.0).ln() + 800.0, max_relative = 1e-15);
    }

    #[test]
    fn the_kt_mixture_of_a_fair_coin_matches_its_hand_computed_value() {
        // Heads then tails against p = ½: the KT probability of HT is ½ · (½/2) = 1/8
        // (Krichevsky & Trofimov 1981), the null's 1/4, so E = ½.
        let mut e = MixtureEValue::new(2, false);
        e.observe(0, 0.5f64.ln());
        assert_relative_eq!(e.ln_e(), 0.0, epsilon = 1e-15);
        e.observe(0, 0.5f64.ln());
        assert_relative_eq!(e.ln_e(), 0.5f64.ln(), max_relative = 1e-15);
    }

    /// E[E_{t+1} / E_t] under the null, summed exactly over the K outcomes of one step.
    fn one_step_expectation(counts: &[u64], p: &[f64]) -> f64 {
        let ln_p: Vec<f64> = p
            .iter()
            .map(|&p| if p > 0.0 { p.ln() } else { f64::NEG_INFINITY })
            .collect();
        let support = p.iter().filter(|&&p| p > 0.0).count();
        let trials: u64 = counts.iter().sum();
        let mut base = MixtureEValue::new(support, support < p.len());
        base.trials = trials;
        (0..p.len())
            .filter(|&j| p[j] > 0.0)
            .map(|j| {
                let mut e = base;
                e.observe(counts[j], ln_p[j]);
                p[j] * e.ln_e().exp()
            })
            .sum()
    }

    #[test]
    fn the_e_process_is_a_martingale_under_the_null() {
        // Σ_j p_j · (½ + c_j)/((A + t) p_j) = (K/2 + t)/(A + t) = 1 from any state.
        for counts in [[0u64, 0, 0], [3, 0, 1], [10, 7, 2], [0, 0, 50]] {
            let expectation = one_step_expectation(&counts, &[0.2, 0.3, 0.5]);
            assert_relative_eq!(expectation, 1.0, max_relative = 1e-14);
        }
        // Over every sequence of three draws the expectation of E_3 is exactly 1.
        let p = [0.1, 0.6, 0.3];
        let ln_p: Vec<f64> = p.iter().map(|p: &f64| p.ln()).collect();
        let mut expectation = 0.0;
        for a in 0..3 {
            for b in 0..3 {
                for c in 0..3 {
                    let mut e = MixtureEValue::new(3, false);
                    let mut counts = [0u64; 3];
                    for cell in [a, b, c] {
                        e.observe(counts[cell], ln_p[cell]);
                        counts[cell] += 1;
                    }
                    expectation += p[a] * p[b] * p[c] * e.ln_e().exp();
                }
            }
        }
        assert_relative_eq!(expectation, 1.0, max_relative = 1e-14);
        // With an impossible cell sharing ½ of prior mass the step's expectation is
        // (A − ½ + t)/(A + t) < 1: a supermartingale.
        let expectation = one_step_expectation(&[2, 1, 0], &[0.5, 0.5, 0.0]);
        assert_relative_eq!(expectation, (1.0 + 3.0) / (1.5 + 3.0), max_relative = 1e-14);
    }

    #[test]
    fn the_family_rejects_when_one_e_value_reaches_k_over_half_of_alpha() {
        // Two cards, always the identity: permutations, identity and both positions are the
        // same fair coin, E_t = Γ(1)Γ(½+t)/(Γ(½)Γ(1+t)) · 2^t; K = 4, alpha = 0.01 of which the
        // e-processes spend 0.005 → 800.
        let mut family = SequentialFamily::full(2, None, 0.01);
        assert_eq!(family.family_size(), 4);
        assert_relative_eq!(family.ln_threshold(), 800f64.ln(), max_relative = 1e-15);
        let mut stopped = None;
        for t in 1..=100u64 {
            if family.observe(&[0, 1]).is_break() {
                stopped = Some(t);
                break;
            }
        }
        // Independently: the first t with ln E_t ≥ ln 400.
        let first = (1..=100u64)
            .find(|&t| ln_mixture_e_value(&[t, 0], &[0.5f64.ln(); 2]) >= 800f64.ln())
            .unwrap();
        assert_eq!(stopped, Some(first));
        let (outcome, tally) = family.finish();
        assert!(outcome.decided);
        assert_eq!(outcome.trials_used, first);
        assert_eq!(outcome.threshold, 800.0);
        assert_eq!(outcome.alpha, 0.01);
        assert_eq!(outcome.sequential_alpha, 0.005);
        assert_eq!(outcome.fixed_sample_alpha, 0.005);
        assert!(outcome.tests.iter().all(|t| t.rejected));
        let SequentialTally::Full(tally) = tally else {
            panic!("full mode")
        };
        assert_eq!(tally.counts, vec![first, 0]);
        assert_eq!(tally.trials, first);
        assert_eq!(outcome.evidence.last().unwrap().trials, first);
        assert!(outcome.evidence.last().unwrap().log10_ratio.unwrap() >= 0.0);
    }

    #[test]
    fn an_ordering_the_model_forbids_rejects_at_once() {
        // Sattolo's law on 3 cards: only the two 3-cycles, rank 3 (1 2 0) and rank 4 (2 0 1).
        let mut probabilities = vec![0.0; 6];
        probabilities[3] = 0.5;
        probabilities[4] = 0.5;
        let law = Arc::new(Law {
            deck: 3,
            probabilities: probabilities.into(),
            exact: None,
            paths: 2,
            method: "test",
        });
        let mut family = SequentialFamily::full(3, Some(law), 0.01);
        assert!(family.observe(&[1, 2, 0]).is_continue());
        assert!(family.observe(&[0, 1, 2]).is_break());
        let (outcome, _) = family.finish();
        assert_eq!(outcome.trials_used, 2);
        assert_eq!(outcome.log10_strongest, None);
        assert_eq!(outcome.tests[0].log10_e_value, None);
    }

    #[test]
    fn the_marginal_family_pools_the_rare_tails_and_keeps_impossible_values_apart() {
        // Fixed points of 10 cards under uniform: P(10) = 1/10!, P(9) = 0, and values 5..8 each
        // below 1e-3 in total (P(≥5) ≈ 0.00366 is too much; P(≥6) ≈ 5.9e-4 is not).
        let n = 10;
        let law = Statistic::FixedPoints.uniform_value_law(n);
        let cells = StatisticCells::new(Statistic::FixedPoints, &law, n + 1, 0);
        assert_eq!(cells.cell_of[9], IMPOSSIBLE);
        let tail = cells.cell_of[6];
        assert_eq!(cells.cell_of[7], tail);
        assert_eq!(cells.cell_of[8], tail);
        assert_eq!(cells.cell_of[10], tail);
        assert_ne!(cells.cell_of[5], tail);
        let total: f64 = cells.ln_p.iter().map(|l| l.exp()).sum();
        assert_relative_eq!(total, 1.0, max_relative = 1e-12);
        // A uniform family on the marginals of 5 cards: positions, identity, 8 statistics.
        let null = MarginalNull {
            positions: Some(vec![vec![0.2; 5]; 5]),
            identity: Some(Probability::from_p(1.0 / 120.0)),
            statistics: Statistic::ALL
                .iter()
                .map(|&s| (s, s.uniform_value_law(5)))
                .collect(),
        };
        let mut family = SequentialFamily::marginal(5, null, 0.01);
        assert_eq!(family.family_size(), 5 + 1 + Statistic::ALL.len());
        // The identity again and again: 5 fixed points (probability 1/120) every time.
        let mut used = 0;
        while family.observe(&[0, 1, 2, 3, 4]).is_continue() {
            used += 1;
        }
        used += 1;
        let (outcome, tally) = family.finish();
        assert!(outcome.decided);
        assert_eq!(outcome.trials_used, used);
        // The identity test alone: ln E_t = lnΓ(1) − lnΓ(1+t) + lnΓ(½+t) − lnΓ(½) + t ln 120,
        // which passes ln(10/0.005) = ln 2000 (the e-processes spend alpha/2) at t = 2
        // (E_1 = 60, E_2 = 60 · 1.5/2 · 120 = 5400).
        assert_eq!(used, 2);
        let SequentialTally::Marginal(tally) = tally else {
            panic!("marginal mode")
        };
        assert_eq!(tally.trials, used);
        assert_eq!(tally.identity, used);
    }
}
