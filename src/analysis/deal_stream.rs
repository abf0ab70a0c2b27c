//! Tests of a stream of deals rather than of each deal alone: repeated deals (the collision
//! test) and independence between consecutive deals (the serial tests). Pure functions over
//! counts, like the rest of [`crate::analysis`].
//!
//! # Interface (for whole decks and for partial deals alike)
//!
//! A *deal* is K distinct cards out of a deck of n, in the order dealt ([`DealShape`]); a whole
//! shuffled deck is the deal K = n. There are M = n!/(n−K)! equally likely deals under a fair
//! shuffle ([`DealShape::ln_outcomes`]). The engine's accumulator
//! ([`crate::engine::deal_stream`]) reduces N deals to counts, and these functions test them:
//!
//! - [`collision_test`]: R, the number of pairs of deals that are identical (repeated pairs),
//!   against its law among N draws from M outcomes; [`reachable_estimate`] turns R into an
//!   estimate of how many distinct outcomes the source reaches.
//! - [`matches_law`] and [`serial_matches_test`]: serial (a), the number of slots at which deal
//!   t+1 shows the same card as deal t. Under independent uniform deals its law is exact for
//!   any K ≤ n (see [`matches_law`]); for K = n it is the rencontres law (the fixed points of
//!   the composition σ_{t+1}∘σ_t⁻¹).
//! - [`slot_independence`] and [`serial_slots_test`]: serial (b), per slot the contingency
//!   table of (card at that slot in deal t, card at that slot in deal t+1), tested for
//!   independence with the margins estimated (valid however biased the marginals are).
//! - [`serial_compositions_test`]: serial (c), whole decks in full mode, the count of each
//!   composition σ_{t+1}∘σ_t⁻¹ over the n! orderings against uniform.
//!
//! "Consecutive" is the caller's order: line order for `check`, trial order for `run` (see
//! [`crate::engine::deal_stream`]). Under independent uniform deals the compositions of
//! consecutive pairs are themselves independent and uniform (σ_{t+1} is uniform given
//! σ_{t+1}∘σ_t⁻¹, so the next composition is independent of the previous one), and likewise
//! the match counts of consecutive pairs are independent; so (a) and (c) are ordinary
//! multinomial tests over N − 1 independent observations.

mod compositions;

pub use compositions::{
    CompositionLaw, CompositionWorkTooLarge, MAX_COMPOSITION_WORK, compositions_if_independent,
    serial_compositions_test,
};

use super::test_note::TestNote;
use super::{Draft, MIN_EXPECTED_COUNT, Question, TestMethod};
use crate::stats::chi_square::chi_square_sf;
use crate::stats::poisson::{poisson_mean_interval, poisson_two_sided};
use crate::stats::pvalue::PValue;
use crate::theory::permutation_statistics::ValueLaw;

/// The Chen–Stein bound on the total variation distance between the pair count and its
/// Poisson approximation up to which the Poisson law is used (it bounds the error of any tail
/// probability, so of the p-value, by this much).
pub const MAX_POISSON_ERROR: f64 = 0.01;

/// The normal approximation of the number of distinct outcomes is used only when its standard
/// deviation is at least this: below, almost every outcome has been seen and the test has
/// nothing to add to the χ² over the cells.
pub const MIN_OCCUPANCY_SD: f64 = 2.0;

/// A deal: `dealt` distinct cards out of a deck of `deck` (K = n for a whole deck).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DealShape {
    /// n, the cards in the deck.
    pub deck: usize,
    /// K, the cards in one deal (K ≤ n).
    pub dealt: usize,
}

impl DealShape {
    /// A whole deck of `deck` cards.
    pub fn whole(deck: usize) -> Self {
        DealShape { deck, dealt: deck }
    }

    /// ln M, M = n!/(n−K)! the number of possible deals.
    pub fn ln_outcomes(&self) -> f64 {
        ((self.deck - self.dealt + 1)..=self.deck)
            .map(|k| (k as f64).ln())
            .sum()
    }

    /// What one deal is called: `deck` for a whole deck, `deal` otherwise.
    pub fn noun(&self) -> &'static str {
        if self.dealt == self.deck {
            "deck"
        } else {
            "deal"
        }
    }
}

/// How often deals repeated among the N of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RepeatCounts {
    /// N, deals in the stream.
    pub deals: u64,
    /// D, distinct deals among them.
    pub distinct: u64,
    /// R = Σ C(c, 2) over the distinct deals seen c times: pairs of identical deals.
    pub repeated_pairs: u64,
}

impl RepeatCounts {
    /// The counts implied by how often each outcome was seen (a full tally).
    pub fn from_counts(counts: &[u64]) -> Self {
        let mut repeats = RepeatCounts {
            deals: 0,
            distinct: 0,
            repeated_pairs: 0,
        };
        for &c in counts.iter().filter(|&&c| c > 0) {
            repeats.deals += c;
            repeats.distinct += 1;
            repeats.repeated_pairs += c * (c - 1) / 2;
        }
        repeats
    }

    /// C(N, 2), the pairs of deals.
    pub fn pairs_of_deals(&self) -> f64 {
        let n = self.deals as f64;
        n * (n - 1.0) / 2.0
    }
}

/// The law the repeated-deals test compares with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CollisionNull {
    /// Every one of the M deals equally likely.
    Uniform,
    /// An exact law over the outcomes, through its power sums Σp² and Σp³.
    Law {
        /// Σ p², the probability that two independent deals are identical.
        sum_p2: f64,
        /// Σ p³, that three are.
        sum_p3: f64,
    },
}

/// Which law gave the p-value of the repeated-deals test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CollisionLaw {
    /// R against Poisson(C(N,2)·Σp²), two-sided.
    Poisson,
    /// D, the distinct deals, against its normal approximation with exact mean and variance.
    NormalOccupancy,
}

/// The repeated-deals test, with the figures a report shows.
#[derive(Debug, Clone, PartialEq)]
pub struct CollisionOutcome {
    /// The law used.
    pub law: CollisionLaw,
    /// E\[R\] under the hypothesis: C(N,2)·Σp² (C(N,2)/M under uniform).
    pub expected_pairs: f64,
    /// E\[D\] under uniform (normal law only).
    pub expected_distinct: Option<f64>,
    /// The Chen–Stein bound on the Poisson approximation's error.
    pub poisson_error_bound: f64,
    /// The test, for the family.
    pub draft: Draft,
}

/// Why the repeated-deals test was not run on counts that exist.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CollisionNotRun {
    /// N is too large next to M for the Poisson law, and against a non-uniform law the
    /// occupancy law's variance is not available.
    NoLawAtThisSize {
        /// The Chen–Stein bound that was too large.
        bound: f64,
    },
    /// A sample of the deal space whose uncertain size would move the statistic by more than
    /// [`MAX_SAMPLE_SHIFT`] standard deviations (small deal spaces, many deals).
    SampleSizeUncertain {
        /// The standard deviation of that move, in standard deviations of the statistic.
        shift: f64,
    },
    /// Almost every outcome has been seen (N ≫ M): nothing to test beyond the χ² over the cells.
    Saturated {
        /// E\[D\] and its standard deviation.
        expected_distinct: f64,
        /// Standard deviation of D.
        sd: f64,
    },
}

/// The repeated-deals (collision) test of `counts` among deals of `shape` under `null`.
///
/// R = Σ_{i<j} 1[deal i = deal j]. Under independent deals from a law p, E\[R\] = C(N,2)·Σp²;
/// under uniform the indicators are pairwise independent, so Var R = C(N,2)(1/M)(1 − 1/M)
/// exactly. The law used for the p-value:
///
/// * **Poisson(λ = C(N,2)·Σp²)** when the Chen–Stein bound on its total variation distance
///   from R's law, (1 − e^−λ)/λ · C(N,2)·[(2N − 3)(Σp²)² + 2(N − 2)Σp³] (Arratia, Goldstein &
///   Gordon 1990, the birthday problem; neighbourhoods: pairs sharing a deal), is at most
///   [`MAX_POISSON_ERROR`]. Under uniform the bound is about 4N/M: always for 52-card decks,
///   whose M = 52! ≈ 8·10^67. Two-sided: too many repeats (few reachable outcomes) and too
///   few (a source that avoids repeating itself) both reject. This is the collision test of
///   Knuth, TAOCP vol. 2, §3.3.2 J, in the sparse case where collisions are pairs.
/// * **Normal approximation of D**, the distinct deals, when the bound is larger and the
///   hypothesis is uniform: E\[D\] = M(1 − (1 − 1/M)^N) and Var D = M(M−1)(1 − 2/M)^N +
///   M(1 − 1/M)^N − M²(1 − 1/M)^{2N} exactly (the classical occupancy problem; Feller vol. 1
///   §IV.2), D asymptotically normal (Rényi 1962); two-sided. Not run when sd(D) <
///   [`MIN_OCCUPANCY_SD`] (every outcome seen: nothing to add to the χ² over the cells).
/// * Against a non-uniform law outside the Poisson range: not run.
pub fn collision_test(
    name: &str,
    shape: DealShape,
    counts: RepeatCounts,
    null: CollisionNull,
) -> Result<CollisionOutcome, CollisionNotRun> {
    collision_test_among(name, shape.ln_outcomes(), counts, null)
}

/// The most standard deviations by which the uncertain size of a sample of the deal space may
/// move the sampled repeated-deals test's statistic (see [`sampled_collision_test`]).
pub const MAX_SAMPLE_SHIFT: f64 = 0.1;

/// The repeated-deals test of a sample: `counts` are those of the N_s deals whose value falls in
/// the sampled 1/2^`level` of the M deals (all copies of a deal are in the sample or none:
/// [`crate::engine::deal_stream`]), against uniform.
///
/// Let S be the sampled deals (those whose sampling key has its top s bits zero). Whether a
/// deal of the stream is in S depends on that deal alone, so under independent uniform deals
/// the N_s that fell in S are, given N_s, independent and uniform over S: the test is
/// [`collision_test`] among N_s draws from |S| outcomes (E\[R_s\] = C(N_s,2)/|S|; unconditionally
/// each of the C(N,2) pairs is identical with probability 1/M and then sampled with 2^−s, the
/// same C(N,2)/(M·2^s) to first order). |S| itself is not known exactly: the keys of the M deals
/// behave as uniform, so |S| is Binomial(M, 2^−s), |S| = M·2^−s·(1 + ε) with
/// sd(ε) = √((2^s − 1)/M). The test takes |S| = M·2^−s, which moves its expectation λ by λε, its
/// statistic by √λ·ε standard deviations: it is run when √λ·sd(ε) ≤ [`MAX_SAMPLE_SHIFT`]
/// (always for 52-card decks, whose M = 52! puts it below 10^−30), else not
/// ([`CollisionNotRun::SampleSizeUncertain`]).
pub fn sampled_collision_test(
    name: &str,
    shape: DealShape,
    counts: RepeatCounts,
    level: u32,
) -> Result<CollisionOutcome, CollisionNotRun> {
    let ln_m = shape.ln_outcomes();
    let ln_sampled = ln_m - f64::from(level) * std::f64::consts::LN_2;
    let ln_lambda = counts.pairs_of_deals().ln() - ln_sampled;
    // √λ·√((2^s − 1)/M), in logs (M up to 52! and beyond).
    let ln_shift = 0.5 * (ln_lambda + (2f64.powi(level as i32) - 1.0).ln() - ln_m);
    let shift = ln_shift.exp();
    if level > 0 && counts.deals >= 2 && shift > MAX_SAMPLE_SHIFT {
        return Err(CollisionNotRun::SampleSizeUncertain { shift });
    }
    collision_test_among(name, ln_sampled, counts, CollisionNull::Uniform)
}

/// How far a sample of 1/2^`level` of the deal space still sees a source that reaches few
/// deals: the most equally likely deals S a source may reach for the sample of `deals` deals
/// to show a repeated pair with probability 0.9. Each of the C(N,2) pairs is identical with
/// probability 1/S and then in the sample with probability 2^−s (the sampling key is a function
/// of the deal, which the source does not know), so the sample's repeated pairs are about
/// Poisson(C(N,2)/(S·2^s)), and P(at least one) ≥ 0.9 when that mean is at least ln 10:
/// S ≤ C(N,2)/(2^s·ln 10). Level 0 gives the power of the whole stream.
pub fn repeats_seen_up_to(deals: u64, level: u32) -> f64 {
    let n = deals as f64;
    n * (n - 1.0) / 2.0 / 2f64.powi(level as i32) / std::f64::consts::LN_10
}

/// [`collision_test`] among M = e^`ln_m` outcomes.
fn collision_test_among(
    name: &str,
    ln_m: f64,
    counts: RepeatCounts,
    null: CollisionNull,
) -> Result<CollisionOutcome, CollisionNotRun> {
    let n = counts.deals as f64;
    let pairs = counts.pairs_of_deals();
    let (ln_s2, ln_s3) = match null {
        CollisionNull::Uniform => (-ln_m, -2.0 * ln_m),
        CollisionNull::Law { sum_p2, sum_p3 } => (sum_p2.ln(), sum_p3.ln()),
    };
    let ln_lambda = pairs.ln() + ln_s2;
    let lambda = ln_lambda.exp();
    // (1 − e^−λ)/λ · C(N,2)[(2N−3)s2² + 2(N−2)s3], with C(N,2)/λ = 1/s2.
    let factor = if lambda > 0.0 {
        -(-lambda).exp_m1()
    } else {
        0.0
    };
    let bound = factor
        * ((2.0 * n - 3.0).max(0.0) * ln_s2.exp()
            + 2.0 * (n - 2.0).max(0.0) * (ln_s3 - ln_s2).exp());
    if counts.deals < 2 {
        return Ok(CollisionOutcome {
            law: CollisionLaw::Poisson,
            expected_pairs: 0.0,
            expected_distinct: None,
            poisson_error_bound: 0.0,
            draft: Draft {
                question: Question::OneDeal,
                name: name.to_string(),
                method: TestMethod::PoissonTwoSided,
                statistic: 0.0,
                df: None,
                p: PValue::ONE,
                note: Some(TestNote::NoTrials),
            },
        });
    }
    if bound <= MAX_POISSON_ERROR {
        let p = poisson_two_sided(counts.repeated_pairs, ln_lambda);
        return Ok(CollisionOutcome {
            law: CollisionLaw::Poisson,
            expected_pairs: lambda,
            expected_distinct: None,
            poisson_error_bound: bound,
            draft: Draft {
                question: Question::OneDeal,
                name: name.to_string(),
                method: TestMethod::PoissonTwoSided,
                statistic: counts.repeated_pairs as f64,
                df: None,
                p,
                note: None,
            },
        });
    }
    if null != CollisionNull::Uniform {
        return Err(CollisionNotRun::NoLawAtThisSize { bound });
    }
    let (mean, variance) = occupancy_moments(ln_m.exp(), n);
    let sd = variance.max(0.0).sqrt();
    if sd < MIN_OCCUPANCY_SD {
        return Err(CollisionNotRun::Saturated {
            expected_distinct: mean,
            sd,
        });
    }
    let z = (counts.distinct as f64 - mean) / sd;
    Ok(CollisionOutcome {
        law: CollisionLaw::NormalOccupancy,
        expected_pairs: lambda,
        expected_distinct: Some(mean),
        poisson_error_bound: bound,
        draft: Draft {
            question: Question::OneDeal,
            name: name.to_string(),
            method: TestMethod::NormalOccupancy,
            statistic: (counts.deals - counts.distinct) as f64,
            df: None,
            p: normal_two_sided(z),
            note: None,
        },
    })
}

/// E\[D\] and Var D for the distinct cells among `n` uniform draws from `m` cells (Feller vol. 1
/// §IV.2), written with ln1p/expm1 so that nothing cancels when m is large:
/// with a = (1 − 1/m)^n, Var D = −m·a·expm1(n·ln1p(−1/(m−1))) + m²a²·expm1(n·ln1p(−1/(m−1)²)).
pub fn occupancy_moments(m: f64, n: f64) -> (f64, f64) {
    let ln_a = n * (-1.0 / m).ln_1p();
    let a = ln_a.exp();
    let mean = -m * ln_a.exp_m1();
    let first = -m * a * (n * (-1.0 / (m - 1.0)).ln_1p()).exp_m1();
    let second = m * m * a * a * (n * (-1.0 / ((m - 1.0) * (m - 1.0))).ln_1p()).exp_m1();
    (mean, first + second)
}

/// P(|Z| ≥ |z|) for a standard normal Z, in log space far into the tail.
fn normal_two_sided(z: f64) -> PValue {
    let x = z.abs() / std::f64::consts::SQRT_2;
    // erfc(x) = e^{−x²} erfcx(x); the log keeps very small p-values.
    let erfc = libm_erfc(x);
    if erfc > 0.0 {
        PValue::from_p(erfc)
    } else {
        // Asymptotically erfc(x) ≈ e^{−x²}/(x√π).
        PValue::from_ln(-x * x - (x * std::f64::consts::PI.sqrt()).ln())
    }
}

/// erfc from statrs (accurate to ~1e−16 relative where it does not underflow).
fn libm_erfc(x: f64) -> f64 {
    statrs::function::erf::erfc(x)
}

/// An estimate of the number of distinct outcomes a source reaches, from the repeated pairs:
/// if the source reaches M' outcomes equally often, E\[R\] = C(N,2)/M', so M̂ = C(N,2)/R, with
/// the 95% interval C(N,2)/[Garwood interval of R's mean] (R is Poisson, or has variance equal
/// to its mean to within 1/M'). For a source whose outcomes are not equally likely, M̂
/// estimates 1/Σp², the number of equally likely outcomes that repeat as often (so never more
/// than the outcomes it reaches). The estimate and its interval are capped at M, the outcomes
/// that exist: a count of repeats as small as M outcomes give (or smaller) says every outcome
/// may be reachable, never that more are.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct ReachableEstimate {
    /// min(C(N,2)/R, M) (null when no pair repeated: only a lower bound is known).
    pub estimate: Option<f64>,
    /// Lower end of the 95% interval (at most M).
    pub low: f64,
    /// Upper end, at most M (null when R = 0 and the lower end is below M: unbounded but by M).
    pub high: Option<f64>,
    /// The seed sizes B (bits) whose 2^B lies in the interval, smallest and largest (null when
    /// none from 1 to 256 does, or when the interval reaches M).
    pub seed_bits: Option<[u32; 2]>,
    /// Whether the interval reaches M: the repeats are consistent with every outcome reachable.
    pub every_outcome_possible: bool,
}

/// The estimate of reachable outcomes from `counts` among M = e^`ln_outcomes` outcomes (see
/// [`ReachableEstimate`]).
pub fn reachable_estimate(counts: RepeatCounts, ln_outcomes: f64) -> ReachableEstimate {
    reachable_estimate_of(counts.pairs_of_deals(), counts.repeated_pairs, ln_outcomes)
}

/// [`reachable_estimate`] from the repeated pairs of a sample of 1/2^`level` of the outcomes,
/// `counts` the sample's and `deals` the whole stream's N: a source that reaches M' outcomes
/// equally often shows C(N,2)/(M'·2^s) repeated pairs in the sample (see
/// [`repeats_seen_up_to`]), so M̂ = C(N,2)/(2^s·R_s), with the interval scaled alike.
pub fn sampled_reachable_estimate(
    counts: RepeatCounts,
    deals: u64,
    level: u32,
    ln_outcomes: f64,
) -> ReachableEstimate {
    let n = deals as f64;
    let pairs = n * (n - 1.0) / 2.0 / 2f64.powi(level as i32);
    reachable_estimate_of(pairs, counts.repeated_pairs, ln_outcomes)
}

/// [`reachable_estimate`] of `r` repeated pairs where a source of M' equally likely outcomes
/// shows `pairs`/M'.
fn reachable_estimate_of(pairs: f64, r: u64, ln_outcomes: f64) -> ReachableEstimate {
    let outcomes = ln_outcomes.exp();
    let (lo_mean, hi_mean) = poisson_mean_interval(r, 0.95);
    let low = (pairs / hi_mean).min(outcomes);
    let uncapped_high = (r > 0).then(|| pairs / lo_mean);
    let every_outcome_possible = uncapped_high.is_none_or(|high| high >= outcomes);
    let high = uncapped_high.map(|high| high.min(outcomes));
    let inside = |bits: u32| {
        let value = 2f64.powi(bits as i32);
        value >= low && high.is_none_or(|high| value <= high)
    };
    let fitting: Vec<u32> = (1..=256).filter(|&b| inside(b)).collect();
    ReachableEstimate {
        estimate: (r > 0).then(|| (pairs / r as f64).min(outcomes)),
        low,
        high: if every_outcome_possible && r == 0 {
            None
        } else {
            high
        },
        // An open interval fits every size above its lower end: name none then.
        seed_bits: match (fitting.first(), fitting.last(), high) {
            (Some(&a), Some(&b), Some(_)) if !every_outcome_possible => Some([a, b]),
            _ => None,
        },
        every_outcome_possible,
    }
}

/// The exact law of serial (a), the number of slots at which two independent uniform deals of
/// K cards out of n show the same card.
///
/// Fix the first deal; the second is a uniform arrangement of K of the n cards. By inclusion–
/// exclusion over the set of matching slots, P(exactly m matches) = C(K,m) Σ_{j=0}^{K−m}
/// (−1)^j C(K−m, j) (n−m−j)!/n! (the arrangements agreeing on m + j given slots number
/// (n−m−j)!/(n−K)! out of n!/(n−K)!). For K = n this is the rencontres law
/// (1/m!) Σ_j (−1)^j/j! (Riordan 1958, ch. 3). The alternating sum is formed from term ratios
/// (K−m−j)/((j+1)(n−m−j)) ≤ 1/(j+1), so it converges like e^−1 and does not cancel.
pub fn matches_law(deck: usize, dealt: usize) -> ValueLaw {
    assert!(
        dealt <= deck && deck >= 1,
        "a deal of {dealt} cards out of {deck}"
    );
    let ln_factorial = |k: usize| -> f64 { (2..=k).map(|i| (i as f64).ln()).sum() };
    let ln_n = ln_factorial(deck);
    let mut ln_probabilities = Vec::with_capacity(dealt + 1);
    for m in 0..=dealt {
        // t_0 = C(K,m)(n−m)!/n!.
        let ln_t0 = ln_factorial(dealt) - ln_factorial(m) - ln_factorial(dealt - m)
            + ln_factorial(deck - m)
            - ln_n;
        let mut ratio = 1.0f64;
        let mut sum = 1.0f64;
        for j in 0..(dealt - m) {
            ratio *= -((dealt - m - j) as f64) / (((j + 1) * (deck - m - j)) as f64);
            sum += ratio;
        }
        ln_probabilities.push(if sum > 0.0 {
            ln_t0 + sum.ln()
        } else {
            f64::NEG_INFINITY
        });
    }
    // m = K − 1 is impossible when K = n (a permutation cannot fix all but one card): the sum
    // 1 − 1 is exactly 0 there, which the loop above gives.
    ValueLaw {
        probabilities: ln_probabilities.iter().map(|ln| ln.exp()).collect(),
        ln_probabilities,
    }
}

/// Σ_s Σ_c p(c, s)², the expected number of matching slots between two *independent* deals
/// drawn from the law of one deal, estimated without bias from `positions[card][slot]`, the
/// deals among `deals` that show that card at that slot: Σ_s Σ_c n_cs(n_cs − 1)/(N(N − 1)) (a
/// U-statistic; E[n(n − 1)] = N(N − 1)p²). 1 − … exactly K/n for uniform deals.
pub fn matches_if_independent(positions: &[Vec<u64>], deals: u64) -> f64 {
    if deals < 2 {
        return 0.0;
    }
    let n = deals as f64;
    positions
        .iter()
        .flatten()
        .map(|&c| {
            let c = c as f64;
            c * (c - 1.0)
        })
        .sum::<f64>()
        / (n * (n - 1.0))
}

/// Serial (a), conditional on the law of one deal: are consecutive deals more (or less) alike
/// than two independent deals of the same law?
///
/// T = Σ_t m_t, the matching slots summed over the `pairs` consecutive pairs (from
/// `histogram[m]`), against (N − 1)·μ̂ with μ̂ = [`matches_if_independent`] (the review
/// `shared/notes/dependence-tests.md`, proposal (b)). Z = (T − Pμ̂)/√(P·s²), s² the sample
/// variance of the m_t, two-sided normal p-value.
///
/// *Why it holds its level whatever the law of one deal.* Write h(x, y) for the matches of
/// two deals and g(x) = E h(x, Y). Under independent deals from any law p, the first-order
/// (Hoeffding) terms of T and of Pμ̂ are both Σ_i 2g(X_i) + O_p(1), so they cancel: T − Pμ̂ is
/// a sum of the degenerate parts h₂(X_t, X_{t+1}), uncorrelated at different t, whose variance
/// Var h − 2 Var g is at most Var h, which s² estimates. So Z is asymptotically normal with
/// variance at most 1: the test is conservative when the positions are biased and exact when
/// they are uniform (then g is constant). A biased but independent shuffle (naive, a sort with
/// a random comparator, Sattolo) therefore does not reject it; a deck carried between deals,
/// a generator re-seeded from a clock (consecutive deals alike) or one that avoids repeating a
/// card's slot (consecutive deals unlike) does. When every m_t is the same (s² = 0) the
/// Bhatia–Davis bound Var h ≤ μ̂(K − μ̂) (m lies in [0, K]) takes its place.
pub fn serial_matches_test(histogram: &[u64], pairs: u64, mean_if_independent: f64) -> Draft {
    let name = "serial matches".to_string();
    if pairs < 2 {
        return Draft {
            question: Question::Dependence,
            name,
            method: TestMethod::NormalTwoSided,
            statistic: 0.0,
            df: None,
            p: PValue::ONE,
            note: Some(TestNote::NoTrials),
        };
    }
    let p = pairs as f64;
    let (total, squares) = histogram
        .iter()
        .enumerate()
        .fold((0.0, 0.0), |(t, q), (m, &count)| {
            let (m, count) = (m as f64, count as f64);
            (t + m * count, q + m * m * count)
        });
    let mean = total / p;
    let sample_variance = ((squares - p * mean * mean) / (p - 1.0)).max(0.0);
    let dealt = histogram.len().saturating_sub(1) as f64;
    let variance = if sample_variance > 0.0 {
        sample_variance
    } else {
        mean_if_independent * (dealt - mean_if_independent)
    };
    let difference = total - p * mean_if_independent;
    let (z, p_value) = if variance > 0.0 {
        let z = difference / (p * variance).sqrt();
        (z, normal_two_sided(z))
    } else if difference.abs() <= 1e-9 * p {
        (0.0, PValue::ONE)
    } else {
        // μ̂ = 0 or K makes every independent pair match nowhere or everywhere; a sum that
        // differs cannot come from independent deals.
        (difference.signum() * f64::INFINITY, PValue::ZERO)
    };
    Draft {
        question: Question::Dependence,
        name,
        method: TestMethod::NormalTwoSided,
        statistic: z,
        df: None,
        p: p_value,
        note: None,
    }
}

/// One slot's independence test (serial (b)).
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct SlotIndependence {
    /// The slot (position in the deal).
    pub slot: usize,
    /// Pearson's χ² for independence.
    pub statistic: f64,
    /// (r − 1)(c − 1) over the rows and columns seen.
    pub df: f64,
    /// The p-value (null below 1e-300).
    pub p_value: Option<f64>,
    /// log10 of the p-value.
    pub log10_p_value: f64,
    /// The smallest expected count R_a·C_b/P of the table.
    pub min_expected: f64,
}

/// Pairs a cell of a balanced slot table is expected to hold at least, before the groups of
/// cards are pooled. Twice Cochran's 5: the slot tables have thousands of cells, and at 5 a
/// cell the calibration over 1000 fair seeds showed per-slot p-values slightly too small in
/// the lower tail (the χ² law holds for all cells large, not just the smallest ≥ 5).
pub const SLOT_MIN_EXPECTED: f64 = 10.0;

/// How many card groups the slot tables are pooled to, from `groups` (what was accumulated)
/// and `pairs` consecutive pairs: the largest g ≤ groups with pairs/g² ≥
/// [`SLOT_MIN_EXPECTED`], so that a table of balanced margins expects every cell at least that
/// often. 0 or 1: too few pairs.
pub fn pooled_groups(groups: usize, pairs: u64) -> usize {
    let g = ((pairs as f64 / SLOT_MIN_EXPECTED).sqrt().floor() as usize).min(groups);
    g.max(usize::from(groups > 0 && pairs > 0))
}

/// Pearson's χ² test of independence on a `size`×`size` table (`table[a·size + b]`: pairs
/// with card group a at the slot in deal t and b in deal t+1), its cards first pooled into
/// `pooled` groups (group h goes to h·pooled/size). Expected counts are R_a·C_b/P from the
/// observed margins, and df = (r − 1)(c − 1).
///
/// Skewed margins (a biased shuffle puts few cards at some slots) would leave cells expected
/// far fewer than 5 times, where χ² is no longer its law. So the groups are then merged with
/// their neighbours (in card order, the same merging for rows and columns) until every merged
/// group has R_a ≥ √(5P) and C_a ≥ √(5P), which makes every expected count R_a·C_b/P ≥ 5
/// (Cochran 1954); the merging depends on the margins only, which independence leaves free.
///
/// For overlapping consecutive pairs of a sequence of independent deals, this statistic is
/// asymptotically χ² with (r−1)(c−1) df whatever the marginal law: it is Anderson & Goodman's
/// (1957) test that a Markov chain has order 0 against order 1, applied to the chain of the
/// cards at one slot.
pub fn slot_independence(
    slot: usize,
    table: &[u64],
    size: usize,
    pooled: usize,
) -> SlotIndependence {
    let g = pooled.max(1);
    let mut cells = vec![0u64; g * g];
    for a in 0..size {
        for b in 0..size {
            cells[(a * g / size) * g + b * g / size] += table[a * size + b];
        }
    }
    let rows: Vec<u64> = (0..g)
        .map(|a| cells[a * g..(a + 1) * g].iter().sum())
        .collect();
    let columns: Vec<u64> = (0..g)
        .map(|b| (0..g).map(|a| cells[a * g + b]).sum())
        .collect();
    let total: u64 = rows.iter().sum();
    // Merge neighbouring groups until both margins reach √(5P).
    let needed = (MIN_EXPECTED_COUNT * total as f64).sqrt();
    let mut merged_of = vec![0usize; g];
    let mut merged = 0usize;
    let (mut row, mut column) = (0u64, 0u64);
    let mut open = false;
    for a in 0..g {
        merged_of[a] = merged;
        row += rows[a];
        column += columns[a];
        open = true;
        if row as f64 >= needed && column as f64 >= needed {
            merged += 1;
            row = 0;
            column = 0;
            open = false;
        }
    }
    if open && merged > 0 {
        // The short last group joins the one before it.
        for m in merged_of.iter_mut().filter(|m| **m == merged) {
            *m = merged - 1;
        }
    } else if open {
        merged = 1;
    }
    let k = merged.max(1);
    let mut pooled_cells = vec![0u64; k * k];
    for a in 0..g {
        for b in 0..g {
            pooled_cells[merged_of[a] * k + merged_of[b]] += cells[a * g + b];
        }
    }
    let rows: Vec<u64> = (0..k)
        .map(|a| pooled_cells[a * k..(a + 1) * k].iter().sum())
        .collect();
    let columns: Vec<u64> = (0..k)
        .map(|b| (0..k).map(|a| pooled_cells[a * k + b]).sum())
        .collect();
    let seen_rows: Vec<usize> = (0..k).filter(|&a| rows[a] > 0).collect();
    let seen_columns: Vec<usize> = (0..k).filter(|&b| columns[b] > 0).collect();
    let df = (seen_rows.len().saturating_sub(1) * seen_columns.len().saturating_sub(1)) as f64;
    let mut statistic = 0.0;
    let mut min_expected = f64::INFINITY;
    for &a in &seen_rows {
        for &b in &seen_columns {
            let expected = rows[a] as f64 * columns[b] as f64 / total as f64;
            let difference = pooled_cells[a * k + b] as f64 - expected;
            statistic += difference * difference / expected;
            min_expected = min_expected.min(expected);
        }
    }
    let p = if df > 0.0 {
        chi_square_sf(statistic, df)
    } else {
        PValue::ONE
    };
    SlotIndependence {
        slot,
        statistic,
        df,
        p_value: super::plain(p),
        log10_p_value: p.log10,
        min_expected: if min_expected.is_finite() {
            min_expected
        } else {
            0.0
        },
    }
}

/// Serial (b) for the family: one test from the K slot tables, p = min(1, K·min_s p_s)
/// (Bonferroni over the slots, valid whatever the dependence between them — the cards at the
/// slots of one deal are dependent, so the tables are not independent and their statistics
/// may not simply be summed). The statistic shown is the smallest slot's χ², its df that
/// slot's; a note says when some expected count is below 5.
pub fn serial_slots_test(slots: &[SlotIndependence]) -> Draft {
    let Some(worst) = slots
        .iter()
        .min_by(|a, b| a.log10_p_value.total_cmp(&b.log10_p_value))
    else {
        return Draft {
            question: Question::Dependence,
            name: "serial slots".to_string(),
            method: TestMethod::ChiSquareIndependence,
            statistic: 0.0,
            df: None,
            p: PValue::ONE,
            note: Some(TestNote::NoTrials),
        };
    };
    let p = PValue::from_log10(worst.log10_p_value).scaled(slots.len() as f64);
    let smallest = slots
        .iter()
        .map(|s| s.min_expected)
        .fold(f64::INFINITY, f64::min);
    Draft {
        question: Question::Dependence,
        name: "serial slots".to_string(),
        method: TestMethod::ChiSquareIndependence,
        statistic: worst.statistic,
        df: Some(worst.df),
        p,
        note: (smallest < MIN_EXPECTED_COUNT).then_some(TestNote::FewExpected { smallest }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::algorithms::Card;
    use crate::engine::permutation::for_each_in_rank_order;
    use crate::theory::permutation_statistics::Statistic;
    use approx::assert_relative_eq;

    /// Every arrangement of `k` cards out of `n`.
    fn arrangements(n: usize, k: usize) -> Vec<Vec<Card>> {
        let mut out = Vec::new();
        for_each_in_rank_order(n, |_, deck| {
            let prefix = deck[..k].to_vec();
            if !out.contains(&prefix) {
                out.push(prefix);
            }
        });
        out
    }

    #[test]
    fn the_matches_law_of_whole_decks_is_the_rencontres_law() {
        for n in [2, 5, 9, 52] {
            let law = matches_law(n, n);
            let rencontres = Statistic::FixedPoints.uniform_value_law(n);
            for m in 0..=n {
                assert_relative_eq!(
                    law.probabilities[m],
                    rencontres.probabilities[m],
                    max_relative = 1e-12,
                    epsilon = 1e-300
                );
            }
            assert_eq!(
                law.probabilities[n - 1],
                0.0,
                "n − 1 matches are impossible"
            );
        }
    }

    #[test]
    fn the_matches_law_of_partial_deals_counts_every_pair_of_arrangements() {
        // Brute force over all pairs of arrangements of K cards out of n.
        for (n, k) in [(4, 2), (5, 3), (6, 1), (5, 5), (6, 4)] {
            let all = arrangements(n, k);
            let mut counts = vec![0u64; k + 1];
            for a in &all {
                for b in &all {
                    counts[a.iter().zip(b).filter(|(x, y)| x == y).count()] += 1;
                }
            }
            let total = (all.len() * all.len()) as f64;
            let law = matches_law(n, k);
            let sum: f64 = law.probabilities.iter().sum();
            assert_relative_eq!(sum, 1.0, max_relative = 1e-12);
            for (&p, &count) in law.probabilities.iter().zip(&counts) {
                assert_relative_eq!(
                    p,
                    count as f64 / total,
                    max_relative = 1e-12,
                    epsilon = 1e-15
                );
            }
        }
    }

    #[test]
    fn repeats_are_counted_as_pairs_and_distinct_outcomes() {
        // Counts 3, 0, 1, 2: C(3,2) + C(2,2) = 4 pairs, 3 distinct of 6 deals.
        let r = RepeatCounts::from_counts(&[3, 0, 1, 2]);
        assert_eq!(
            r,
            RepeatCounts {
                deals: 6,
                distinct: 3,
                repeated_pairs: 4
            }
        );
    }

    #[test]
    fn on_a_52_card_deck_a_single_repeat_is_overwhelming_evidence() {
        // N = 300,000: λ = C(N,2)/52! ≈ 4.5·10^10/8.07·10^67 ≈ 5.6·10^−58, so P(R ≥ 1) ≈ λ and
        // the two-sided p is 2λ.
        let shape = DealShape::whole(52);
        let counts = RepeatCounts {
            deals: 300_000,
            distinct: 299_999,
            repeated_pairs: 1,
        };
        let outcome = collision_test("repeated decks", shape, counts, CollisionNull::Uniform)
            .expect("Poisson range");
        assert_eq!(outcome.law, CollisionLaw::Poisson);
        let lambda = counts.pairs_of_deals() / 8.065_817_517_094_388e67;
        assert_relative_eq!(outcome.expected_pairs, lambda, max_relative = 1e-9);
        assert_relative_eq!(
            outcome.draft.p.log10,
            (2.0 * lambda).log10(),
            max_relative = 1e-9
        );
        // Without a repeat, nothing to see.
        let none = RepeatCounts {
            repeated_pairs: 0,
            distinct: 300_000,
            ..counts
        };
        let fair = collision_test("repeated decks", shape, none, CollisionNull::Uniform).unwrap();
        assert_eq!(fair.draft.p, PValue::ONE);
    }

    #[test]
    fn a_sample_of_52_card_decks_is_tested_among_its_share_of_the_decks() {
        // 9,000 decks sampled at level 5 (1 in 32 deck values): E[R] = C(9000,2)·32/52!, and
        // one repeat among them is as overwhelming as in the whole stream.
        let shape = DealShape::whole(52);
        let counts = RepeatCounts {
            deals: 9_000,
            distinct: 8_999,
            repeated_pairs: 1,
        };
        let outcome = sampled_collision_test("repeated decks", shape, counts, 5).unwrap();
        let expected = (9_000.0f64 * 8_999.0 / 2.0).ln() + 32f64.ln() - shape.ln_outcomes();
        approx::assert_relative_eq!(outcome.expected_pairs.ln(), expected, epsilon = 1e-9);
        assert!(outcome.draft.p.ln() < -100.0);
        // Level 0 is the plain test.
        let plain = collision_test("repeated decks", shape, counts, CollisionNull::Uniform);
        assert_eq!(
            sampled_collision_test("repeated decks", shape, counts, 0).unwrap(),
            plain.unwrap()
        );
    }

    #[test]
    fn a_coarse_sample_of_a_small_deal_space_is_not_tested() {
        // 12! = 479,001,600 decks, 10^8 sampled at level 3: λ = C(10^8,2)·8/12! ≈ 8.4·10^7, and
        // the sample's size is uncertain by √(7/12!) ≈ 1.2·10^−4 of itself, which would move
        // the statistic by √λ·1.2·10^−4 ≈ 1.1 standard deviations: more than 0.1.
        let counts = RepeatCounts {
            deals: 100_000_000,
            distinct: 50_000_000,
            repeated_pairs: 80_000_000,
        };
        let Err(CollisionNotRun::SampleSizeUncertain { shift }) =
            sampled_collision_test("repeated decks", DealShape::whole(12), counts, 3)
        else {
            panic!("tested")
        };
        approx::assert_relative_eq!(shift, 1.1, epsilon = 0.05);
    }

    #[test]
    fn a_sample_sees_sources_of_up_to_c_n_2_over_2_to_the_s_ln_10_decks() {
        let whole = 300_000.0f64 * 299_999.0 / 2.0 / std::f64::consts::LN_10;
        approx::assert_relative_eq!(repeats_seen_up_to(300_000, 0), whole);
        approx::assert_relative_eq!(repeats_seen_up_to(300_000, 5), whole / 32.0);
        // The estimate from a sample scales its pairs alike: R_s = 10 at level 5 among 300,000
        // deals estimates C(300000,2)/(32·10) reachable decks.
        let estimate = sampled_reachable_estimate(
            RepeatCounts {
                deals: 9_400,
                distinct: 9_390,
                repeated_pairs: 10,
            },
            300_000,
            5,
            DealShape::whole(52).ln_outcomes(),
        );
        approx::assert_relative_eq!(
            estimate.estimate.unwrap(),
            300_000.0 * 299_999.0 / 2.0 / 320.0,
            max_relative = 1e-12
        );
    }

    #[test]
    fn the_occupancy_moments_match_a_direct_computation() {
        // m = 10 cells, n = 7 draws: E[D] = 10(1 − 0.9^7), Var D = 90·0.8^7 + 10·0.9^7 −
        // 100·0.9^14 (Feller vol. 1 §IV.2).
        let (mean, variance) = occupancy_moments(10.0, 7.0);
        assert_relative_eq!(mean, 10.0 * (1.0 - 0.9f64.powi(7)), max_relative = 1e-12);
        assert_relative_eq!(
            variance,
            90.0 * 0.8f64.powi(7) + 10.0 * 0.9f64.powi(7) - 100.0 * 0.9f64.powi(14),
            max_relative = 1e-10
        );
    }

    #[test]
    fn many_deals_of_few_outcomes_use_the_occupancy_law_or_are_not_tested() {
        // 5-card decks (M = 120), 60 deals: the Poisson bound ≈ 4·60/120 is far above 1%.
        let shape = DealShape::whole(5);
        let counts = RepeatCounts {
            deals: 60,
            distinct: 47,
            repeated_pairs: 15,
        };
        let outcome = collision_test("repeated decks", shape, counts, CollisionNull::Uniform)
            .expect("normal range");
        assert_eq!(outcome.law, CollisionLaw::NormalOccupancy);
        let (mean, variance) = occupancy_moments(120.0, 60.0);
        let z: f64 = (47.0 - mean) / variance.sqrt();
        assert_relative_eq!(
            outcome.draft.p.p,
            statrs::function::erf::erfc(z.abs() / std::f64::consts::SQRT_2),
            max_relative = 1e-12
        );
        // A million such deals see every ordering: nothing to test.
        let saturated = RepeatCounts {
            deals: 1_000_000,
            distinct: 120,
            repeated_pairs: 0,
        };
        assert!(matches!(
            collision_test("repeated decks", shape, saturated, CollisionNull::Uniform),
            Err(CollisionNotRun::Saturated { .. })
        ));
    }

    #[test]
    fn ten_repeats_in_300000_decks_estimate_about_four_billion_reachable_decks() {
        // C(300000, 2) = 44,999,850,000; R = 10 → M̂ ≈ 4.5·10^9, and the Garwood interval of R,
        // [4.795, 18.390], gives [2.45·10^9, 9.38·10^9], which holds 2^32 and 2^33.
        let estimate = reachable_estimate(
            RepeatCounts {
                deals: 300_000,
                distinct: 299_990,
                repeated_pairs: 10,
            },
            DealShape::whole(52).ln_outcomes(),
        );
        assert_relative_eq!(
            estimate.estimate.unwrap(),
            4_499_985_000.0,
            max_relative = 1e-12
        );
        assert_relative_eq!(
            estimate.low,
            44_999_850_000.0 / 18.390_356,
            max_relative = 1e-6
        );
        assert_relative_eq!(
            estimate.high.unwrap(),
            44_999_850_000.0 / 4.795_389,
            max_relative = 1e-6
        );
        assert_eq!(estimate.seed_bits, Some([32, 33]));
        // No repeat: a lower bound only, C(N,2)/3.689.
        let none = reachable_estimate(
            RepeatCounts {
                deals: 300_000,
                distinct: 300_000,
                repeated_pairs: 0,
            },
            DealShape::whole(52).ln_outcomes(),
        );
        assert_eq!(none.estimate, None);
        assert_eq!(none.high, None);
        assert_eq!(none.seed_bits, None);
        assert_relative_eq!(none.low, 44_999_850_000.0 / 3.688_879, max_relative = 1e-6);
    }

    #[test]
    fn an_independent_table_has_a_small_chi_square_and_a_dependent_one_a_large_one() {
        // 2×2: [[25, 25], [25, 25]] is exactly independent; [[50, 0], [0, 50]] has χ² = 100
        // with 1 df.
        let fair = slot_independence(0, &[25, 25, 25, 25], 2, 2);
        assert_eq!(fair.statistic, 0.0);
        assert_eq!(fair.df, 1.0);
        let tied = slot_independence(3, &[50, 0, 0, 50], 2, 2);
        assert_relative_eq!(tied.statistic, 100.0, max_relative = 1e-12);
        assert_relative_eq!(
            10f64.powf(tied.log10_p_value),
            statrs::function::erf::erfc((50.0f64).sqrt()),
            max_relative = 1e-9
        );
        // A card never seen is merged into its neighbour: 3×3 with card 2 absent is 2×2.
        let absent = slot_independence(0, &[10, 10, 0, 10, 10, 0, 0, 0, 0], 3, 3);
        assert_eq!(absent.df, 1.0);
        // Skewed margins: group 2 holds 1% of the cards, so alone it would expect
        // 1000·0.01·0.01 = 0.1 pairs; it is merged into group 1 (√(5·1000) ≈ 70.7 needed).
        let skewed = slot_independence(0, &[245, 245, 5, 245, 245, 5, 5, 5, 0], 3, 3);
        assert_eq!(skewed.df, 1.0);
        assert!(skewed.min_expected >= 5.0);
        // Bonferroni over two slots.
        let draft = serial_slots_test(&[fair, tied.clone()]);
        assert_relative_eq!(
            draft.p.log10,
            tied.log10_p_value + 2f64.log10(),
            max_relative = 1e-12
        );
    }

    #[test]
    fn groups_are_pooled_until_every_balanced_cell_expects_five() {
        assert_eq!(pooled_groups(52, 1_000_000), 52);
        assert_eq!(pooled_groups(52, 1000), 10);
        assert_eq!(pooled_groups(52, 39), 1);
        assert_eq!(pooled_groups(52, 0), 0);
    }

    #[test]
    fn the_reachable_estimate_never_exceeds_the_decks_that_exist() {
        // 6 cards, M = 720. 3000 deals from every deck equally: C(3000, 2)/720 ≈ 6245.8
        // repeated pairs expected; fewer seen (6240) would put the estimate above 720.
        let estimate = reachable_estimate(
            RepeatCounts {
                deals: 3000,
                distinct: 720,
                repeated_pairs: 6240,
            },
            DealShape::whole(6).ln_outcomes(),
        );
        assert!(estimate.every_outcome_possible);
        assert_relative_eq!(estimate.estimate.unwrap(), 720.0, max_relative = 1e-12);
        assert_relative_eq!(estimate.high.unwrap(), 720.0, max_relative = 1e-12);
        assert!(estimate.low < 720.0);
        assert_eq!(estimate.seed_bits, None);
        // Many repeats: a small seed space, well inside M.
        let small = reachable_estimate(
            RepeatCounts {
                deals: 3000,
                distinct: 64,
                repeated_pairs: 70_000,
            },
            DealShape::whole(6).ln_outcomes(),
        );
        assert!(!small.every_outcome_possible);
        assert!(small.high.unwrap() < 720.0);
    }
}
