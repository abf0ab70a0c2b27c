//! Poisson tails in log space, for counts whose mean can be far below f64's range (the number
//! of repeated decks among a million 52-card deals has mean ≈ 10^−56 under a fair shuffle), the
//! two-sided test of such a count, and the exact (Garwood 1936) confidence interval of a mean.
//!
//! The tails use the Poisson–gamma identity P(X ≥ r) = P(r, λ), the regularized lower
//! incomplete gamma function, and P(X ≤ r) = Q(r + 1, λ) (Abramowitz & Stegun 26.4.21 with
//! 6.5.1); the lower gamma function is summed from its series (DLMF 8.7.1) whenever λ < r, so
//! that its logarithm stays exact when the value itself underflows.

use statrs::function::gamma::ln_gamma;

use super::chi_square::chi_square_critical;
use super::pvalue::PValue;
use super::special::ln_gamma_q;

/// P(X ≥ r) for X ~ Poisson(λ), given ln λ (−∞ for λ = 0).
///
/// For λ < r: ln P = r ln λ − λ − ln r! + ln Σ_{k≥0} λ^k r!/(r+k)! (DLMF 8.7.1), every term
/// positive, so the logarithm is exact even when P underflows f64; otherwise 1 − Q(r, λ), which
/// is then at least about ½.
pub fn poisson_upper_tail(r: u64, ln_lambda: f64) -> PValue {
    if r == 0 || ln_lambda == f64::INFINITY {
        return PValue::ONE;
    }
    if ln_lambda.is_nan() {
        return PValue::ONE;
    }
    if ln_lambda == f64::NEG_INFINITY {
        return PValue::ZERO;
    }
    let a = r as f64;
    let lambda = ln_lambda.exp();
    if lambda < a {
        let mut term = 1.0f64;
        let mut sum = 1.0f64;
        let mut k = 1.0;
        while term > sum * 1e-17 && k < 1e7 {
            term *= lambda / (a + k);
            sum += term;
            k += 1.0;
        }
        PValue::from_ln(a * ln_lambda - lambda - ln_gamma(a + 1.0) + sum.ln())
    } else {
        let ln_q = ln_gamma_q(a, lambda);
        PValue::from_ln((-ln_q.exp_m1()).ln())
    }
}

/// P(X ≤ r) for X ~ Poisson(λ), given ln λ: Q(r + 1, λ).
pub fn poisson_lower_tail(r: u64, ln_lambda: f64) -> PValue {
    if ln_lambda.is_nan() || ln_lambda == f64::NEG_INFINITY {
        return PValue::ONE;
    }
    PValue::from_ln(ln_gamma_q(r as f64 + 1.0, ln_lambda.exp()))
}

/// The two-sided test of a Poisson count r against mean λ (given as ln λ): twice the smaller
/// tail, at most 1 (the doubling rule, as for the binomial tests; Fay 2010).
pub fn poisson_two_sided(r: u64, ln_lambda: f64) -> PValue {
    let upper = poisson_upper_tail(r, ln_lambda);
    let lower = poisson_lower_tail(r, ln_lambda);
    let smaller = if upper.log10 < lower.log10 {
        upper
    } else {
        lower
    };
    smaller.scaled(2.0)
}

/// The exact central confidence interval of a Poisson mean from one count r at level
/// `confidence` (Garwood 1936): [χ²_{α/2}(2r)/2, χ²_{1−α/2}(2r + 2)/2] with α = 1 − confidence,
/// the lower end 0 when r = 0.
pub fn poisson_mean_interval(r: u64, confidence: f64) -> (f64, f64) {
    let alpha = 1.0 - confidence;
    let lower = if r == 0 {
        0.0
    } else {
        chi_square_critical(2.0 * r as f64, 1.0 - alpha / 2.0) / 2.0
    };
    let upper = chi_square_critical(2.0 * r as f64 + 2.0, alpha / 2.0) / 2.0;
    (lower, upper)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// P(X ≤ r) summed term by term.
    fn direct_cdf(r: u64, lambda: f64) -> f64 {
        let mut term = (-lambda).exp();
        let mut sum = term;
        for k in 1..=r {
            term *= lambda / k as f64;
            sum += term;
        }
        sum
    }

    #[test]
    fn tails_match_the_sums_of_the_probabilities() {
        for &(r, lambda) in &[
            (3u64, 2.0f64),
            (0, 0.5),
            (1, 0.5),
            (10, 10.0),
            (25, 7.5),
            (4, 30.0),
        ] {
            let lower = poisson_lower_tail(r, lambda.ln());
            assert_relative_eq!(lower.p, direct_cdf(r, lambda), max_relative = 1e-10);
            let upper = poisson_upper_tail(r, lambda.ln());
            // The upper tail summed term by term (no 1 − cdf cancellation).
            let expected: f64 = (r..r + 400)
                .map(|k| (k as f64 * lambda.ln() - lambda - ln_gamma(k as f64 + 1.0)).exp())
                .sum();
            assert_relative_eq!(upper.p, expected, max_relative = 1e-10);
        }
        // P(X ≥ 3 | λ = 2) = 1 − 5e^−2 = 0.323323583816936...
        assert_relative_eq!(
            poisson_upper_tail(3, 2f64.ln()).p,
            0.323_323_583_816_936_5,
            max_relative = 1e-12
        );
    }

    #[test]
    fn an_upper_tail_below_the_f64_range_keeps_its_logarithm() {
        // λ = 10^−58, r = 10: P(X ≥ 10) = λ^10/10! · (1 + O(λ)), log10 = −580 − log10 10!.
        let p = poisson_upper_tail(10, -58.0 * std::f64::consts::LN_10);
        let expected = -580.0 - 3_628_800f64.log10();
        assert_relative_eq!(p.log10, expected, max_relative = 1e-12);
        // λ = e^−5000 (below f64): ln P(X ≥ 1) = −5000 + O(e^−5000).
        let tiny = poisson_upper_tail(1, -5000.0);
        assert_relative_eq!(tiny.ln(), -5000.0, max_relative = 1e-12);
    }

    #[test]
    fn the_two_sided_test_doubles_the_smaller_tail() {
        // r = 0 against λ = 3: P(X ≤ 0) = e^−3 is the smaller tail.
        assert_relative_eq!(
            poisson_two_sided(0, 3f64.ln()).p,
            2.0 * (-3f64).exp(),
            max_relative = 1e-12
        );
        // A count at a tiny mean: only the upper tail matters, and it is tiny.
        assert!(poisson_two_sided(2, -30.0).log10 < -20.0);
        assert_eq!(poisson_two_sided(0, -30.0), PValue::ONE);
    }

    #[test]
    fn garwood_intervals_match_published_values() {
        // The ends solve P(X ≥ r | lo) = 0.025 and P(X ≤ r | hi) = 0.025; the values were
        // found independently by bisection on the Poisson sums (and agree with Garwood's
        // table to its decimals: r = 0 → [0, 3.689], r = 1 → [0.0253, 5.572], r = 10 →
        // [4.795, 18.390]).
        let (lo, hi) = poisson_mean_interval(0, 0.95);
        assert_eq!(lo, 0.0);
        assert_relative_eq!(hi, 3.688_879, max_relative = 1e-5);
        let (lo, hi) = poisson_mean_interval(10, 0.95);
        assert_relative_eq!(lo, 4.795_389, max_relative = 1e-5);
        assert_relative_eq!(hi, 18.390_356, max_relative = 1e-6);
        let (lo, hi) = poisson_mean_interval(1, 0.95);
        assert_relative_eq!(lo, 0.025_317_8, max_relative = 1e-4);
        assert_relative_eq!(hi, 5.571_643, max_relative = 1e-5);
    }
}
