//! The serial Mallows MMD test: a kernel two-sample test of a stream of whole decks against
//! independent uniform decks, for decks of hundreds of cards, where no law of whole decks can be
//! tallied (the test used on GPU shuffles by Mitchell, Stokes, Frank and Holmes, "Bandwidth-optimal
//! random shuffling for GPUs", arXiv:2106.06161, after Gretton et al., "A kernel two-sample
//! test", JMLR 2012).
//!
//! With the Mallows kernel k(σ, τ) = exp(−λ·d(σ, τ)) (d Kendall's distance; λ and the sums in
//! [`crate::engine::deal_stream::kernel`]), the squared maximum mean discrepancy between the law
//! P of a deck and the uniform law U is MMD² = E_P k(X, X′) − 2 E k(X, U) + E k(U, U′), and
//! E k(σ, U) = c_n(q) for every σ ([`crate::theory::mallows`]), so MMD² = E_P k(X, X′) − c_n(q):
//! zero exactly when P is uniform (the Mallows kernel is characteristic on permutations,
//! Mania et al. 2018). The linear-time estimator averages h_t = k(σ_t, σ_{t+1}) over the
//! consecutive pairs of the stream (Gretton et al. §6 pair disjoint samples; consecutive pairs
//! share a deck, but under the null the h_t are uncorrelated: given σ_{t+1}, h_t and h_{t+1}
//! are independent with the same conditional mean c_n(q) whatever σ_{t+1}).
//!
//! **Null**: consecutive decks independent and uniform. Then each h_t has mean c_n(q) and
//! variance v = c_n(q²) − c_n(q)² exactly, and the h_t are uncorrelated (above), so
//! z = (h̄ − c_n(q))/√(v/pairs) is asymptotically standard normal (a martingale-difference
//! central limit theorem: h_t − c is a martingale difference with respect to σ_1..σ_{t+1}).
//! **Two-sided**: a shuffle that is not uniform, its decks drawn afresh, raises E_P k(X, X′)
//! above c_n(q) (MMD² > 0, the kernel being positive definite), and so do consecutive decks
//! that are alike; but consecutive decks *unlike* each other lower it (a generator re-seeded
//! from a counter before every shuffle of 52 cards: z = −21 over 300,000 decks), which an upper
//! test would miss. So p = 2·(1 − Φ(|z|)), at the price of a factor 2 in p against a biased
//! shuffle (0.3 in z at the 1% level).
//!
//! **Few pairs.** Under the null the distances d(σ_t, σ_{t+1}) are independent, each
//! distributed as the inversions of a uniform permutation (σ_t⁻¹σ_{t+1} is uniform whatever
//! came before), so the mean kernel of `pairs` pairs can go no further than all of them at
//! distance 0 (or all at the largest distance, below), which has probability exactly
//! (1/n!)^pairs. The normal tail can fall far below that when the pairs are few (one pair of
//! identical 52-card decks: 10^−1313 against 1/52! ≈ 10^−67.9), so each tail is floored there:
//! a figure no stream of that many pairs could show is never printed.
//!
//! **A known limit.** Between the floor and the bulk the normal tail is only an approximation,
//! and at few pairs it overstates the evidence above the mean: each pair's kernel is a copy of
//! one skewed law (e^{−λd} at the Mahonian probabilities; skewness 5.5 at 52 cards, a few close
//! pairs weighing more than many far apart). Simulated null streams of 52-card pairs (200,000
//! streams of 100 and of 1,000 pairs, 20,000 of 10,000) put the chance of z ≥ 4 (normal tail
//! 3.2·10⁻⁵) at about 1.1·10⁻³ at 100 pairs and 1·10⁻⁴ at 1,000; and of z ≥ 3 (normal tail
//! 1.35·10⁻³) at 6·10⁻³, 2.6·10⁻³ and, at 10,000 pairs, 1.6·10⁻³. A saddlepoint tail does
//! not mend it: the kernel's cumulant generating function is ruled by the rare close pairs from a
//! small tilt on, so the saddlepoint falls outside the bulk. The test is one of Holm's family,
//! whose other tests do not depend on it; an exact tail (the law of the mean kernel by
//! convolution on a grid) would remove the limit.
//!
//! A rejection says the decks are not independent uniform decks. Above (z > 0) that is, for a
//! biased shuffle (the usual case, each deck drawn afresh), a fact about the law of one deck,
//! so the test is filed with the tests of one deal's law; below (z < 0) only dependence can
//! explain it (independent decks of one law have E k ≥ c_n(q)), so it is filed under
//! dependence between deals.

use super::test_note::TestNote;
use super::{Draft, Question, TestMethod};
use crate::engine::deal_stream::kernel::{KernelSums, MallowsKernel, kernel_stride};
use crate::stats::normal::normal_cdf;
use crate::stats::pvalue::PValue;
use crate::theory::mallows::kernel_moments;

/// The test's name in reports.
pub const NAME: &str = "serial Mallows MMD";

/// The figures of the test, reported beside the family's row (JSON `deal_stream.mallows`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct MallowsFigures {
    /// Consecutive pairs of decks whose kernel is averaged.
    pub pairs: u64,
    /// One pair in `stride` is averaged, chosen by its place in trial (or line) order: every
    /// pair up to 64 cards, one in 4 above, where Kendall's distance costs O(n log n) a pair
    /// (see [`kernel_stride`]).
    pub stride: u64,
    /// λ, the kernel's bandwidth: k = exp(−λ·d), d Kendall's distance, λ = 1/s with s² =
    /// n(n−1)(2n+5)/72 the variance of d between a deck and a uniform one.
    pub lambda: f64,
    /// The mean kernel of consecutive decks.
    pub mean_kernel: f64,
    /// Its exact mean if consecutive decks are independent and uniform, c_n(e^{−λ}) =
    /// Π_{j≤n} (1 − e^{−λj})/(j(1 − e^{−λ})).
    pub exact_mean: f64,
    /// z = (mean − exact mean)/√(exact variance/pairs); the test is two-sided (above: a biased
    /// shuffle or decks alike; below: consecutive decks unlike each other).
    pub z: f64,
}

/// The test of the kernel sums `sums` of a stream of decks of `deck` cards, and its figures.
pub fn serial_mallows_test(deck: usize, sums: &KernelSums) -> (MallowsFigures, Draft) {
    let kernel = MallowsKernel::new(deck);
    let moments = kernel_moments(deck, kernel.lambda, kernel.center);
    // Back from the centred kernel exp(λ(μ − d)) to exp(−λd).
    let scale = (-kernel.lambda * kernel.center).exp();
    let pairs = sums.pairs;
    let mut draft = Draft {
        question: Question::OneDeal,
        name: NAME.to_string(),
        method: TestMethod::NormalTwoSided,
        statistic: 0.0,
        df: None,
        p: PValue::ONE,
        note: None,
    };
    let mut figures = MallowsFigures {
        pairs,
        stride: kernel_stride(deck),
        lambda: kernel.lambda,
        mean_kernel: 0.0,
        exact_mean: moments.mean * scale,
        z: 0.0,
    };
    if pairs == 0 {
        draft.note = Some(TestNote::NoTrials);
        return (figures, draft);
    }
    let mean = sums.sum.to_f64() / pairs as f64;
    figures.mean_kernel = mean * scale;
    let z = (mean - moments.mean) / (moments.variance / pairs as f64).sqrt();
    figures.z = z;
    draft.statistic = z;
    if z < 0.0 {
        draft.question = Question::Dependence;
    }
    let (tail, floor) = (normal_upper(z.abs()), most_extreme(deck, pairs));
    draft.p = if tail.log10 < floor.log10 { floor } else { tail }.scaled(2.0);
    (figures, draft)
}

/// (1/n!)^pairs: the probability, under the null, of `pairs` independent distances all at 0
/// (or all at the largest, n(n−1)/2, each reached by one deck of n!): no tail of the mean
/// kernel of that many pairs is smaller.
fn most_extreme(deck: usize, pairs: u64) -> PValue {
    let ln_orderings: f64 = (2..=deck).map(|k| (k as f64).ln()).sum();
    PValue::from_ln(-(pairs as f64) * ln_orderings)
}

/// P(Z ≥ z) for a standard normal Z; beyond the range of doubles, from Mills' ratio
/// ln P ≈ −z²/2 − ln(z√(2π)) (relative error below 1/z², under 0.1% there).
fn normal_upper(z: f64) -> PValue {
    let p = normal_cdf(-z);
    if p > 0.0 || z.is_nan() {
        PValue::from_p(p)
    } else {
        PValue::from_ln(-z * z / 2.0 - (z * (2.0 * std::f64::consts::PI).sqrt()).ln())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal_stream::kernel::MallowsKernel;

    /// Sums of `pairs` pairs all at Kendall distance `distance`.
    fn sums_at(deck: usize, distance: usize, pairs: u64) -> KernelSums {
        let kernel = MallowsKernel::new(deck);
        let mut sums = KernelSums::default();
        for _ in 0..pairs {
            sums.add_pair(kernel.centred(distance));
        }
        sums
    }

    #[test]
    fn decks_alike_give_a_large_z_and_a_tiny_p() {
        // Consecutive decks one transposition apart: k ≈ 1, far above c_n ≈ e^{−10}.
        let (figures, draft) = serial_mallows_test(52, &sums_at(52, 1, 1000));
        assert!(figures.z > 100.0, "{figures:?}");
        assert!(draft.p.log10 < -1000.0);
        assert!(figures.mean_kernel > 0.9);
        assert_eq!(draft.question, Question::OneDeal);
    }

    #[test]
    fn decks_unlike_each_other_give_a_negative_z_and_a_small_p() {
        // d = μ every time gives k = e^{−λμ}, below c_n(q) = E e^{−λd} (Jensen): the kernel
        // never varies as independent decks' would, z < 0, and the two-sided test rejects.
        let (figures, draft) = serial_mallows_test(200, &sums_at(200, 200 * 199 / 4, 10_000));
        assert!(figures.z < -10.0 && draft.p.p < 1e-20, "{figures:?}");
        // Only dependence makes the kernel fall below its mean: filed there.
        assert_eq!(draft.question, Question::Dependence);
        assert!((figures.exact_mean / figures.mean_kernel).ln() > 0.0);
    }

    #[test]
    fn one_pair_of_identical_decks_is_as_unlikely_as_one_deck_in_n_factorial_never_less() {
        // Independent: 52! = 8.0658175170943878e67 (published), so log10 52! = 67.90665; the
        // two-sided p is twice 1/52!. The normal tail alone gives about 10^−1313.
        let (figures, draft) = serial_mallows_test(52, &sums_at(52, 0, 1));
        assert!(figures.z > 50.0, "{figures:?}");
        let expected = 2f64.log10() - 8.065_817_517_094_388e67_f64.log10();
        assert!((draft.p.log10 - expected).abs() < 1e-6, "{}", draft.p.log10);
        // Two pairs: (1/52!)^2.
        let (_, two) = serial_mallows_test(52, &sums_at(52, 0, 2));
        assert!((two.p.log10 - (expected - 67.906_65)).abs() < 1e-3, "{}", two.p.log10);
        // 1,000 pairs one transposition apart: the normal tail (z in the thousands) is below
        // even (1/52!)^1000, so the floor holds.
        let (_, alike) = serial_mallows_test(52, &sums_at(52, 1, 1000));
        assert!((alike.p.log10 - (2f64.log10() - 1000.0 * 67.906_65)).abs() < 0.1);
        // Pairs all at a distance near the mean (663): a z of a few units, whose normal tail is
        // far above the floor and is the p-value.
        let (figures, many) = serial_mallows_test(52, &sums_at(52, 620, 1000));
        assert!(figures.z.abs() > 1.0 && figures.z.abs() < 10.0, "{figures:?}");
        let normal = normal_upper(figures.z.abs()).scaled(2.0);
        assert!((many.p.log10 - normal.log10).abs() < 1e-9);
    }

    #[test]
    fn an_empty_stream_is_not_tested() {
        let (_, draft) = serial_mallows_test(52, &KernelSums::default());
        assert_eq!(draft.note, Some(TestNote::NoTrials));
        assert_eq!(draft.p.p, 1.0);
    }

    #[test]
    fn the_upper_tail_stays_finite_beyond_the_doubles() {
        let far = normal_upper(50.0);
        // ln P(Z ≥ 50) = −1254.8... (Mills: −1250 − ln(50·√(2π))).
        assert!((far.ln() + 1254.8).abs() < 0.1, "{}", far.ln());
        assert!((normal_upper(0.0).p - 0.5).abs() < 1e-15);
    }
}
