//! Confidence bounds for what a sample rules out: a binomial proportion (Clopper–Pearson for a
//! sample of fixed size, and a confidence sequence valid at any stop), the mean of a bounded
//! statistic (empirical Bernstein), and the total variation distance between a multinomial law
//! and its empirical frequencies.
//!
//! A "no bias detected" says only that no test rejected; these bounds say how large a bias the
//! same sample excludes, which is what a pass is worth.

use statrs::function::gamma::ln_gamma;

use super::binomial::binomial_two_sided;

/// Bisection steps for an interval's end: 2^-90 of the unit interval, far below any printed
/// digit.
const STEPS: usize = 90;

/// The Clopper–Pearson interval (Clopper & Pearson 1934) for a binomial proportion after `k`
/// successes in `n` trials, at confidence 1 − `delta`: the proportions p whose equal-tailed
/// exact two-sided test ([`binomial_two_sided`], the doubling rule) does not reject k at level
/// `delta`. Each tail has δ/2, so P(p below the interval) ≤ δ/2 and P(above) ≤ δ/2 for every p.
///
/// The ends are found by bisection on that test's p-value, which is monotone in p on each side
/// of k/n; `n = 0` gives [0, 1].
pub fn clopper_pearson(k: u64, n: u64, delta: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let k = k.min(n);
    let centre = k as f64 / n as f64;
    let accepts = |p: f64| binomial_two_sided(k, n, p).p > delta;
    let lower = if k == 0 {
        0.0
    } else {
        bisect(0.0, centre, |p| !accepts(p))
    };
    let upper = if k == n {
        1.0
    } else {
        bisect(centre, 1.0, accepts)
    };
    (lower, upper)
}

/// The largest x in [lo, hi] (to [`STEPS`] halvings) at which `below` still holds, for a
/// predicate true at `lo` and false beyond some point.
fn bisect(mut lo: f64, mut hi: f64, below: impl Fn(f64) -> bool) -> f64 {
    for _ in 0..STEPS {
        let mid = 0.5 * (lo + hi);
        if below(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// ln of the Krichevsky–Trofimov mixture likelihood ratio of `k` successes in `n` Bernoulli
/// trials against proportion `p`: ln[B(k + ½, n − k + ½)/B(½, ½)] − k ln p − (n − k) ln(1 − p).
pub fn ln_kt_ratio(k: u64, n: u64, p: f64) -> f64 {
    let (k, m) = (k as f64, (n - k.min(n)) as f64);
    let ln_beta = ln_gamma(k + 0.5) + ln_gamma(m + 0.5) - ln_gamma(k + m + 1.0);
    let ln_prior = std::f64::consts::PI.ln();
    let ln_likelihood =
        if k > 0.0 { k * p.ln() } else { 0.0 } + if m > 0.0 { m * (-p).ln_1p() } else { 0.0 };
    ln_beta - ln_prior - ln_likelihood
}

/// A confidence sequence for a binomial proportion: after `k` successes in `n` trials, the
/// proportions p whose Krichevsky–Trofimov mixture likelihood ratio ([`ln_kt_ratio`]) is below
/// 1/`delta`. Under p the ratio is a nonnegative martingale with mean 1, so by Ville's
/// inequality (Ville 1939) P(it ever reaches 1/δ) ≤ δ: the intervals hold together at every n
/// with probability at least 1 − δ, so they stay valid at a stop the data chose (Robbins 1970;
/// Howard, Ramdas, McAuliffe & Sekhon 2021). The set is an interval because the ratio is convex
/// in p around its minimum at k/n.
pub fn binomial_confidence_sequence(k: u64, n: u64, delta: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let k = k.min(n);
    let threshold = -delta.ln();
    let centre = k as f64 / n as f64;
    let inside = |p: f64| ln_kt_ratio(k, n, p) < threshold;
    let lower = if k == 0 || !inside(centre) {
        if k == 0 { 0.0 } else { centre }
    } else {
        bisect(0.0, centre, |p| !inside(p))
    };
    let upper = if k == n {
        1.0
    } else {
        bisect(centre, 1.0, inside)
    };
    (lower, upper)
}

/// A two-sided interval for the mean of a statistic with values in [0, `range`], from its
/// histogram (`counts[v]` observations of value v), at confidence 1 − `delta`: the empirical
/// Bernstein bound of Maurer & Pontil (2009, Theorem 4), each side at δ/2,
/// mean ± (√(2 V ln(4/δ)/N) + 7 R ln(4/δ)/(3(N − 1))), with V the sample variance (divisor
/// N − 1). None with fewer than two observations.
pub fn bernstein_mean_interval(counts: &[u64], range: f64, delta: f64) -> Option<(f64, f64)> {
    let n: u64 = counts.iter().sum();
    if n < 2 {
        return None;
    }
    let nf = n as f64;
    let mean = counts
        .iter()
        .enumerate()
        .map(|(v, &c)| v as f64 * c as f64)
        .sum::<f64>()
        / nf;
    let variance = counts
        .iter()
        .enumerate()
        .map(|(v, &c)| (v as f64 - mean).powi(2) * c as f64)
        .sum::<f64>()
        / (nf - 1.0);
    let ln_term = (4.0 / delta).ln();
    let half = (2.0 * variance * ln_term / nf).sqrt() + 7.0 * range * ln_term / (3.0 * (nf - 1.0));
    Some((mean - half, mean + half))
}

/// How far, at confidence 1 − `delta`, the empirical frequencies of `trials` draws from a law on
/// `cells` cells can be from that law in total variation: the smaller of two bounds, both fixed
/// before the data are seen (so taking the smaller keeps the level):
/// - Weissman et al. (2003): P(‖p̂ − p‖₁ ≥ ε) ≤ (2^K − 2)e^{−Nε²/2}, so
///   TV ≤ √((K ln 2 + ln(1/δ))/(2N));
/// - McDiarmid's inequality on TV(p̂, p), whose differences are bounded by 1/N, above its mean
///   E TV ≤ ½ Σ √(p_i(1 − p_i)/N) ≤ ½ √((K − 1)/N): TV ≤ ½ √((K − 1)/N) + √(ln(1/δ)/(2N)).
pub fn tv_deviation_bound(cells: u64, trials: u64, delta: f64) -> f64 {
    if trials == 0 {
        return 1.0;
    }
    let (k, n) = (cells as f64, trials as f64);
    let ln_delta = (1.0 / delta).ln();
    let weissman = ((k * std::f64::consts::LN_2 + ln_delta) / (2.0 * n)).sqrt();
    let mcdiarmid = 0.5 * ((k - 1.0) / n).sqrt() + (ln_delta / (2.0 * n)).sqrt();
    weissman.min(mcdiarmid).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn clopper_pearson_matches_published_intervals() {
        // Clopper & Pearson's own example style, values checked against R's binom.test
        // (exact, two-sided, conf.level 0.95): 7 of 20 → [0.1539092, 0.5921885];
        // 0 of 10 → [0, 0.3084971]; 10 of 10 → [0.6915029, 1].
        let (lo, hi) = clopper_pearson(7, 20, 0.05);
        assert_relative_eq!(lo, 0.153_909_2, max_relative = 1e-6);
        assert_relative_eq!(hi, 0.592_188_5, max_relative = 1e-6);
        let (lo, hi) = clopper_pearson(0, 10, 0.05);
        assert_eq!(lo, 0.0);
        assert_relative_eq!(hi, 0.308_497_1, max_relative = 1e-6);
        let (lo, hi) = clopper_pearson(10, 10, 0.05);
        assert_relative_eq!(lo, 0.691_502_9, max_relative = 1e-6);
        assert_eq!(hi, 1.0);
    }

    #[test]
    fn clopper_pearson_ends_are_the_beta_quantiles() {
        // An independent computation: the lower end is the δ/2 quantile of Beta(k, n − k + 1),
        // i.e. I_lo(k, n − k + 1) = δ/2, and the upper the 1 − δ/2 quantile of
        // Beta(k + 1, n − k), i.e. I_hi(k + 1, n − k) = 1 − δ/2 (statrs' regularized beta).
        use statrs::function::beta::beta_reg;
        for (k, n) in [(3u64, 40u64), (250, 1000), (999, 1000)] {
            let delta = 0.01;
            let (lo, hi) = clopper_pearson(k, n, delta);
            let (kf, nf) = (k as f64, n as f64);
            assert_relative_eq!(
                beta_reg(kf, nf - kf + 1.0, lo),
                delta / 2.0,
                max_relative = 1e-6
            );
            assert_relative_eq!(
                beta_reg(kf + 1.0, nf - kf, hi),
                1.0 - delta / 2.0,
                max_relative = 1e-6
            );
        }
    }

    #[test]
    fn the_kt_ratio_is_the_closed_form_of_a_small_case() {
        // One success in one trial: the mixture gives B(3/2, 1/2)/B(1/2, 1/2) = (π/2)/π = ½,
        // so the ratio against p is 1/(2p).
        assert_relative_eq!(ln_kt_ratio(1, 1, 0.25), (2.0f64).ln(), max_relative = 1e-12);
    }

    #[test]
    fn the_confidence_sequence_is_wider_than_clopper_pearson_and_contains_the_estimate() {
        for (k, n) in [(50u64, 200u64), (2500, 10_000), (0, 100)] {
            let (cp_lo, cp_hi) = clopper_pearson(k, n, 0.01);
            let (cs_lo, cs_hi) = binomial_confidence_sequence(k, n, 0.01);
            let centre = k as f64 / n as f64;
            assert!(cs_lo <= cp_lo && cp_hi <= cs_hi, "{k}/{n}");
            assert!(cs_lo <= centre && centre <= cs_hi);
            // Its ends are where the ratio crosses 1/δ.
            if k > 0 {
                assert_relative_eq!(ln_kt_ratio(k, n, cs_lo), 100f64.ln(), max_relative = 1e-9);
            }
            assert_relative_eq!(ln_kt_ratio(k, n, cs_hi), 100f64.ln(), max_relative = 1e-9);
        }
    }

    #[test]
    fn the_confidence_sequence_covers_a_fair_coin_at_every_step_in_most_runs() {
        // Null: a fair coin. Ville's inequality bounds the chance that the interval at δ = 0.1
        // ever misses ½ by 0.1; over 200 seeded walks of 2000 flips each the misses are
        // Binomial(200, ≤ 0.1): mean ≤ 20, sd ≤ 4.3, so 40 (≈ 4.7 sd above) is the bound.
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut missed = 0;
        for _ in 0..200 {
            let mut heads = 0u64;
            let mut ever = false;
            for n in 1..=2000u64 {
                heads += rng.next_u64() >> 63;
                if n % 50 == 0 {
                    let (lo, hi) = binomial_confidence_sequence(heads, n, 0.1);
                    ever |= !(lo <= 0.5 && 0.5 <= hi);
                }
            }
            missed += u32::from(ever);
        }
        assert!(missed <= 40, "{missed} of 200 walks left ½");
    }

    #[test]
    fn the_bernstein_interval_is_centred_on_the_mean_and_shrinks_with_n() {
        let small = bernstein_mean_interval(&[10, 20, 10], 2.0, 0.01).unwrap();
        let large = bernstein_mean_interval(&[1000, 2000, 1000], 2.0, 0.01).unwrap();
        assert_relative_eq!(0.5 * (small.0 + small.1), 1.0, max_relative = 1e-12);
        assert!(large.1 - large.0 < small.1 - small.0);
        // N = 4000, V = 2000/3999, ln(400): half = √(2V ln 400/N) + 7·2·ln 400/(3·3999).
        let v = 2000.0 / 3999.0;
        let half = (2.0 * v * 400f64.ln() / 4000.0).sqrt() + 14.0 * 400f64.ln() / (3.0 * 3999.0);
        assert_relative_eq!(large.1 - 1.0, half, max_relative = 1e-12);
        assert!(bernstein_mean_interval(&[1], 1.0, 0.01).is_none());
    }

    #[test]
    fn the_tv_bound_takes_the_smaller_of_weissman_and_mcdiarmid() {
        // 24 cells, 240,000 draws, δ = 0.01: Weissman √((24 ln 2 + ln 100)/480000) = 0.006652;
        // McDiarmid ½√(23/240000) + √(ln 100/480000) = 0.004895 + 0.003097 = 0.007992.
        assert_relative_eq!(
            tv_deviation_bound(24, 240_000, 0.01),
            0.006_652,
            epsilon = 1e-6
        );
        // 720 cells: Weissman 0.032393, McDiarmid 0.027367 + 0.003097 = 0.030465.
        assert_relative_eq!(
            tv_deviation_bound(720, 240_000, 0.01),
            0.030_465,
            epsilon = 1e-6
        );
        assert_eq!(tv_deviation_bound(24, 0, 0.01), 1.0);
    }

    #[test]
    fn the_tv_bound_holds_for_fair_samples() {
        // Null: 24 equally likely cells. The bound at δ = 0.05 is exceeded with probability at
        // most 0.05; over 100 seeded samples of 2400 draws the exceedances are
        // Binomial(100, ≤ 0.05): mean ≤ 5, so 15 (≈ 4.6 sd) bounds them.
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let bound = tv_deviation_bound(24, 2400, 0.05);
        let mut over = 0;
        for _ in 0..100 {
            let mut counts = [0u64; 24];
            for _ in 0..2400 {
                // The multiply mapping: a bias below 24/2^32, far under what 2400 draws see.
                counts[((u64::from(rng.next_u32()) * 24) >> 32) as usize] += 1;
            }
            let tv: f64 = counts
                .iter()
                .map(|&c| (c as f64 / 2400.0 - 1.0 / 24.0).abs())
                .sum::<f64>()
                / 2.0;
            over += u32::from(tv > bound);
        }
        assert!(over <= 15, "{over}");
    }
}
