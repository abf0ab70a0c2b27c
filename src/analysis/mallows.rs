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
//! **Null**: consecutive decks independent and uniform. Then the distances d(σ_t, σ_{t+1}) of
//! the pairs counted are independent, each distributed as the inversions of a uniform deck
//! (σ_t⁻¹σ_{t+1} is uniform whatever came before), so the summed kernel is a sum of independent
//! copies of one known law, and its p-value is read from that sum's law
//! ([`crate::theory::mean_kernel_law`]: the transform of one pair's law raised to the number of
//! pairs, and exact bounds beyond 10⁻¹²). Its mean is c_n(q) a pair and its variance
//! c_n(q²) − c_n(q)²; z = (h̄ − c_n(q))/√(v/pairs) is reported as the effect's size in standard
//! deviations.
//!
//! **Why not the normal tail.** Each pair's kernel is skewed (e^{−λd} at the Mahonian
//! probabilities, skewness about 6: a few close pairs weigh more than many far apart), and the
//! normal tail of z overstated the evidence above the mean by orders of magnitude at few pairs:
//! at 100 pairs of 52 cards P(z ≥ 4) is 1.1·10⁻³ (normal 3.2·10⁻⁵) and P(z ≥ 8) is 6·10⁻⁶
//! (normal 6·10⁻¹⁶); at 10,000 pairs P(z ≥ 6) is 6.9·10⁻⁹ (normal 10⁻⁹); only beyond millions
//! of pairs does it come within a few percent at z ≤ 6. Below the mean it understated it.
//!
//! **Two-sided**: a shuffle that is not uniform, its decks drawn afresh, raises E_P k(X, X′)
//! above c_n(q) (MMD² > 0, the kernel being positive definite), and so do consecutive decks
//! that are alike; but consecutive decks *unlike* each other lower it (a generator re-seeded
//! from a counter before every shuffle of 52 cards: z = −21 over 300,000 decks), which an upper
//! test would miss. So p = 2·min(P(S ≥ s), P(S ≤ s)), at the price of a factor 2 in p against a
//! biased shuffle.
//!
//! A rejection says the decks are not independent uniform decks. Above (z > 0) that is, for a
//! biased shuffle (the usual case, each deck drawn afresh), a fact about the law of one deck,
//! so the test is filed with the tests of one deal's law; below (z < 0) only dependence can
//! explain it (independent decks of one law have E k ≥ c_n(q)), so it is filed under
//! dependence between deals.

use super::test_note::TestNote;
use super::{Draft, Question, TestMethod};
use crate::engine::deal_stream::kernel::{KernelSums, MallowsKernel, kernel_stride};
use crate::stats::pvalue::PValue;
use crate::theory::mallows::kernel_moments;
use crate::theory::mean_kernel_law::MeanKernelLaw;

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
    /// z = (mean − exact mean)/√(exact variance/pairs), the effect in standard deviations; the
    /// p-value is from the exact law of the summed kernel, two-sided (above: a biased shuffle
    /// or decks alike; below: consecutive decks unlike each other).
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
        method: TestMethod::MeanKernelLawTwoSided,
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
    let law = MeanKernelLaw::new(deck, pairs);
    let sum = sums.sum.to_f64();
    let (upper, lower) = (law.upper(sum), law.lower(sum));
    draft.p = if upper.log10 < lower.log10 { upper } else { lower }.scaled(2.0);
    (figures, draft)
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
        // Consecutive decks one transposition apart: k ≈ 1, far above c_n ≈ e^{−10}. The p-value
        // is twice the jump bound, 1000·P(D ≤ 1) = 1000·52/52! (log10 52! = 67.90665).
        let (figures, draft) = serial_mallows_test(52, &sums_at(52, 1, 1000));
        assert!(figures.z > 100.0, "{figures:?}");
        let expected = (2.0 * 1000.0 * 52.0f64).log10() - 67.906_648;
        assert!((draft.p.log10 - expected).abs() < 1e-4, "{}", draft.p.log10);
        assert!(figures.mean_kernel > 0.9);
        assert_eq!(draft.question, Question::OneDeal);
        assert_eq!(draft.method, TestMethod::MeanKernelLawTwoSided);
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
    fn one_pair_of_identical_decks_is_as_unlikely_as_one_deck_in_n_factorial() {
        // Independent: 52! = 8.0658175170943878e67 (published), so log10 52! = 67.90665; the
        // two-sided p is twice 1/52! (the normal tail said about 10^−1313).
        let (figures, draft) = serial_mallows_test(52, &sums_at(52, 0, 1));
        assert!(figures.z > 50.0, "{figures:?}");
        let expected = 2f64.log10() - 67.906_648;
        assert!((draft.p.log10 - expected).abs() < 1e-5, "{}", draft.p.log10);
        // Two pairs: exactly (1/52!)²; the p-value is the bound 2·P(D = 0) a pair needs to
        // reach, never below the exact figure.
        let (_, two) = serial_mallows_test(52, &sums_at(52, 0, 2));
        assert!((two.p.log10 - (4f64.log10() - 67.906_648)).abs() < 1e-5, "{}", two.p.log10);
        assert!(two.p.log10 > 2f64.log10() - 2.0 * 67.906_648);
    }

    #[test]
    fn pairs_closer_than_the_mean_weigh_more_than_the_normal_tail_says() {
        // 100 pairs all at distance 610 (the mean is 663): z of a few units above the mean,
        // where the summed kernel's law has a heavier tail than the normal (one pair's kernel is
        // skewed to the right), so the p-value is larger than the normal tail's.
        let (figures, p) = serial_mallows_test(52, &sums_at(52, 610, 100));
        assert!(figures.z > 1.0 && figures.z < 4.0, "{figures:?}");
        let normal = 2.0 * crate::stats::normal::normal_cdf(-figures.z);
        assert!(p.p.p > 1.2 * normal, "{} against the normal's {normal}", p.p.p);
    }

    #[test]
    fn an_empty_stream_is_not_tested() {
        let (_, draft) = serial_mallows_test(52, &KernelSums::default());
        assert_eq!(draft.note, Some(TestNote::NoTrials));
        assert_eq!(draft.p.p, 1.0);
    }
}
