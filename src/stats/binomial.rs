//! The exact two-sided binomial test, used to ask whether one ordering of the
//! deck came up more or less often than its probability p0 = 1/n! allows. Tail
//! probabilities come from the binomial law itself, in log space, so a p-value
//! such as (23/24)^240000 ≈ 10^−4436 is reported as log10 p = −4436.x, never 0.

use super::probability::Probability;
use super::pvalue::PValue;
use super::special::{LN_2PI, gauss_legendre, ln_gamma_star, log1pmx};
use std::f64::consts::LN_2;

/// Two-sided exact binomial test of k successes in n trials with success probability p0.
/// Two-sided p = min(1, 2*min(P(X<=k), P(X>=k))) (the "doubling" method; document why in a comment).
///
/// Why doubling: it is the equal-tailed ("central") exact test, the one whose
/// acceptance region is the matching Clopper–Pearson interval, and its p-value is
/// monotone in k on each side of the mean (Fay 2010, "Two-sided exact tests and
/// matching confidence intervals for discrete data", *R Journal* 2(1); Agresti
/// 2013, *Categorical Data Analysis* §1.4.4). The alternative "minimum-likelihood"
/// rule (R's binom.test) needs the whole opposite tail up to the point of equal
/// probability, is not monotone in k, and would cost a second tail search at
/// n ≈ 2^63; doubling needs only the tail beyond k and is never anti-conservative.
///
/// Only the tail on the far side of the mean is computed: when k ≥ n·p0 the
/// median argument (Kaas & Buhrman 1980: the median lies in [⌊np⌋, ⌈np⌉]) gives
/// P(X ≤ k) ≥ ½, so min(1, 2·min(…)) = min(1, 2·P(X ≥ k)); symmetrically for k < n·p0.
/// That tail is computed from the binomial law itself:
/// * by summing pmf terms from k outward (each term from the previous by the exact
///   ratio (n − j)p/((j + 1)q)), anchored on ln pmf(k) from Loader's saddle-point
///   formula (Loader 2000, "Fast and accurate computation of binomial
///   probabilities"), when the terms fall off fast enough or there are ≤ 20 000;
/// * otherwise (k within ~1/500 of the mean in ratio terms, n huge) from the exact
///   integral P(X ≥ k) = k·C(n, k)∫₀ᵖ t^{k−1}(1 − t)^{n−k} dt (the regularized
///   incomplete beta I_p(k, n − k + 1), DLMF 8.17.5), written relative to pmf(k)
///   and integrated by composite Gauss–Legendre quadrature over the window where
///   the integrand exceeds e^−60 of its peak.
///
/// k − n·p0 is formed in double-double arithmetic, so n up to 2^64 − 1 keeps full
/// accuracy (measured relative error ≲ 1e−13 against mpmath).
///
/// Edge cases: k > n is impossible ([`PValue::ZERO`]); p0 = 0 or 1 is degenerate
/// (ZERO for an outcome impossible under it, ONE for the certain one); p0 outside
/// [0, 1] is clamped into it; NaN p0 gives ONE.
pub fn binomial_two_sided(k: u64, n: u64, p0: f64) -> PValue {
    if p0.is_nan() {
        return PValue::ONE;
    }
    if k > n {
        return PValue::ZERO;
    }
    let p0 = p0.clamp(0.0, 1.0);
    if p0 == 0.0 {
        return if k == 0 { PValue::ONE } else { PValue::ZERO };
    }
    if p0 == 1.0 {
        return if k == n { PValue::ONE } else { PValue::ZERO };
    }
    if n == 0 {
        return PValue::ONE;
    }
    let excess = excess_over_mean(k, n, p0);
    let ln_tail = if excess >= 0.0 {
        Binomial::successes(n, p0).ln_upper_tail(k, excess)
    } else {
        Binomial::failures(n, p0).ln_upper_tail(n - k, -excess)
    };
    PValue::from_ln(ln_tail + LN_2)
}

/// [`binomial_two_sided`] for a success probability given with its logarithm, so that p0
/// below f64's range (1/n! from n = 171 on) is tested as what it is, not as 0.
///
/// When n·p0 < 1e−20 (the only case in which p0 can have underflowed, since n < 2^64) the
/// test is computed in log space:
/// * k = 0: P(X ≤ 0) = (1 − p0)^n ≥ 1 − n·p0, doubled above 1, so p = 1;
/// * k ≥ 1 > n·p0: P(X ≤ k) ≥ P(X = 0) > ½, so by the doubling rule p = min(1, 2·P(X ≥ k)),
///   and P(X ≥ k) = pmf(k)·(1 + r_k + r_k·r_{k+1} + …) with term ratios
///   r_j = (n − j)·p0 / ((j + 1)(1 − p0)) ≤ n·p0/(1 − p0) < 1.1e−20, so
///   ln P(X ≥ k) = ln C(n, k) + k·ln p0 + (n − k)·ln(1 − p0) to a relative error below
///   2e−20 (far under f64's rounding).
///
/// Otherwise p0 is an ordinary f64 (n·p0 ≥ 1e−20 gives p0 ≥ 5e−40) and `p0.p` is passed to
/// [`binomial_two_sided`] unchanged, so an f64 probability gives exactly the p-value it gave
/// before. An impossible p0 (ln = −∞) gives ZERO for k ≥ 1 and ONE for k = 0.
pub fn binomial_two_sided_at(k: u64, n: u64, p0: Probability) -> PValue {
    if k > n {
        return PValue::ZERO;
    }
    if n == 0 || p0.is_impossible() || p0.ln.is_nan() {
        return binomial_two_sided(k, n, p0.p);
    }
    if p0.ln + (n as f64).ln() >= TINY_MEAN.ln() {
        return binomial_two_sided(k, n, p0.p);
    }
    if k == 0 {
        return PValue::ONE;
    }
    let ln_tail = ln_choose(n, k) + k as f64 * p0.ln + (n - k) as f64 * (-p0.p).ln_1p();
    PValue::from_ln(ln_tail + LN_2)
}

/// Below this expected count n·p0, [`binomial_two_sided_at`] works in log space.
const TINY_MEAN: f64 = 1e-20;

/// ln C(n, k) for 0 ≤ k ≤ n, by Stirling's series with its exact remainder δ (as in Loader
/// 2000): with m = n − k,
/// ln C(n, k) = k·ln(1 + m/k) + m·ln(1 + k/m) + ½·ln(n / (2π·k·m)) + δ(n) − δ(k) − δ(m);
/// the first two terms are positive and their arguments exact ratios of integers, so nothing
/// cancels.
fn ln_choose(n: u64, k: u64) -> f64 {
    if k == 0 || k == n {
        return 0.0;
    }
    let (nf, kf, mf) = (n as f64, k as f64, (n - k) as f64);
    kf * (mf / kf).ln_1p()
        + mf * (kf / mf).ln_1p()
        + 0.5 * (nf.ln() - LN_2PI - kf.ln() - mf.ln())
        + ln_gamma_star(nf)
        - ln_gamma_star(kf)
        - ln_gamma_star(mf)
}

/// k − n·p exactly to about one ulp of the result, via Dekker's two-product and
/// two-sum (Dekker 1971; Ogita, Rump & Oishi 2005), with k and n split into an f64
/// and an exact integer remainder when they exceed 2^53.
fn excess_over_mean(k: u64, n: u64, p: f64) -> f64 {
    let n_hi = n as f64;
    let n_lo = (n as i128 - n_hi as i128) as f64;
    let k_hi = k as f64;
    let k_lo = (k as i128 - k_hi as i128) as f64;
    let prod = n_hi * p;
    let prod_err = n_hi.mul_add(p, -prod);
    let (sum, sum_err) = two_sum(k_hi, -prod);
    sum + (sum_err + k_lo - prod_err - n_lo * p)
}

/// Knuth's two-sum: a + b = s + e exactly.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// Bin(n, x) seen from one side: x is the probability of the counted outcome and
/// y = 1 − x, each as a double-double (hi + lo) so that 1 − p0 loses nothing.
#[derive(Debug, Clone, Copy)]
struct Binomial {
    n: u64,
    x: f64,
    x_lo: f64,
    y: f64,
    y_lo: f64,
    ln_x: f64,
    ln_y: f64,
}

impl Binomial {
    /// Counting successes, probability p0 each.
    fn successes(n: u64, p0: f64) -> Self {
        // Fast two-sum (Dekker 1971): 1 − p0 = q + q_lo exactly, since 1 ≥ p0.
        let q = 1.0 - p0;
        let q_lo = (1.0 - q) - p0;
        Binomial {
            n,
            x: p0,
            x_lo: 0.0,
            y: q,
            y_lo: q_lo,
            ln_x: p0.ln(),
            ln_y: (-p0).ln_1p(),
        }
    }

    /// Counting failures, probability 1 − p0 each.
    fn failures(n: u64, p0: f64) -> Self {
        let s = Self::successes(n, p0);
        Binomial {
            n,
            x: s.y,
            x_lo: s.y_lo,
            y: s.x,
            y_lo: s.x_lo,
            ln_x: s.ln_y,
            ln_y: s.ln_x,
        }
    }

    /// x / y to about one ulp.
    fn odds(&self) -> f64 {
        (self.x / self.y) * (1.0 + self.x_lo / self.x - self.y_lo / self.y)
    }

    /// ln P(X = k), given d = k − n·x accurately (Loader 2000):
    /// ln pmf = ½ ln(n / (2π k (n−k))) − bd0(k, nx) − bd0(n−k, ny)
    ///          + δ(n) − δ(k) − δ(n−k),
    /// with bd0(k, m) = k ln(k/m) + m − k and δ the Stirling remainder of ln m!.
    fn ln_pmf(&self, k: u64, d: f64) -> f64 {
        let n = self.n;
        if k == 0 {
            return n as f64 * self.ln_y;
        }
        if k == n {
            return n as f64 * self.ln_x;
        }
        let nf = n as f64;
        let kf = k as f64;
        let mf = (n - k) as f64;
        let deviance = bd0(kf, nf * self.x, d) + bd0(mf, nf * self.y, -d);
        0.5 * (nf.ln() - LN_2PI - kf.ln() - mf.ln()) - deviance + ln_gamma_star(nf)
            - ln_gamma_star(kf)
            - ln_gamma_star(mf)
    }

    /// ln P(X ≥ k) for k ≥ n·x (d = k − n·x ≥ 0), so that the pmf falls from k on.
    fn ln_upper_tail(&self, k: u64, d: f64) -> f64 {
        let n = self.n;
        let ln_pmf_k = self.ln_pmf(k, d);
        if k >= n {
            return ln_pmf_k;
        }
        let odds = self.odds();
        let first_ratio = (n - k) as f64 / (k as f64 + 1.0) * odds;
        if n - k <= SUMMATION_TERMS || first_ratio <= 1.0 - 40.0 / SUMMATION_TERMS as f64 {
            ln_pmf_k + self.relative_tail_sum(k, odds).ln()
        } else {
            ln_pmf_k + self.ln_tail_integral(k, d)
        }
    }

    /// Σ_{j≥k} pmf(j)/pmf(k) by the exact term ratio (n − j)·x / ((j + 1)·y). The
    /// ratios decrease with j, so once one is r < 1 the rest of the series is below
    /// term·r/(1 − r), which bounds the truncation error.
    fn relative_tail_sum(&self, k: u64, odds: f64) -> f64 {
        let n = self.n;
        let mut sum = 1.0;
        let mut term = 1.0;
        let mut j = k;
        while j < n {
            term *= (n - j) as f64 / (j as f64 + 1.0) * odds;
            sum += term;
            j += 1;
            if j >= n {
                break;
            }
            let next_ratio = (n - j) as f64 / (j as f64 + 1.0) * odds;
            if next_ratio < 1.0 && term * next_ratio < 1e-17 * sum * (1.0 - next_ratio) {
                break;
            }
        }
        sum
    }

    /// ln[(k/x)·∫₀ˣ e^{G(s)} ds] with G(s) = ln[(1 − s/x)^{k−1} (1 + s/y)^{n−k}], so that
    /// P(X ≥ k) = pmf(k)·(k/x)·∫₀ˣ e^{G} (substitute t = x − s in I_x(k, n − k + 1)).
    /// G is written without cancellation as
    /// (k−1)·[ln(1 − s/x) + s/x] + (n−k)·[ln(1 + s/y) − s/y] + s·(y − d)/(x·y),
    /// using (n−k)/y − (k−1)/x = (y − d)/(x·y). G is concave, peaking at
    /// s* = (y − d)/(n − 1) (clamped to [0, x]).
    fn ln_tail_integral(&self, k: u64, d: f64) -> f64 {
        let (x, y) = (self.x, self.y);
        let a = k as f64 - 1.0;
        let b = (self.n - k) as f64;
        let slope = (y - d) / (x * y);
        let g = |s: f64| a * log1pmx(-s / x) + b * log1pmx(s / y) + s * slope;
        let peak = ((y - d) / (self.n as f64 - 1.0)).clamp(0.0, x);
        let g_peak = g(peak);
        let curvature = a / ((x - peak) * (x - peak)) + b / ((y + peak) * (y + peak));
        let mut scale = 1.0 / curvature.sqrt();
        if peak == 0.0 && slope < 0.0 {
            scale = scale.min(1.0 / -slope);
        }
        let floor = g_peak - 60.0;
        let upper = window_edge(&g, peak, x, scale, floor);
        let lower = window_edge(&g, peak, 0.0, scale, floor);
        let f = |s: f64| (g(s) - g_peak).exp();
        let mut integral = gauss_legendre(f, peak, upper, QUADRATURE_PANELS);
        if lower < peak {
            integral += gauss_legendre(f, lower, peak, QUADRATURE_PANELS);
        }
        (k as f64).ln() - x.ln() + g_peak + integral.ln()
    }
}

/// Tails with at most this many terms (or falling off at least this fast) are summed.
const SUMMATION_TERMS: u64 = 20_000;

/// Composite Gauss–Legendre panels on each side of the integrand's peak.
const QUADRATURE_PANELS: usize = 8;

/// Point between `from` and `limit` where the concave g first drops below `floor`
/// (or `limit` itself), found by doubling steps of `scale` then bisection.
fn window_edge<G: Fn(f64) -> f64>(g: &G, from: f64, limit: f64, scale: f64, floor: f64) -> f64 {
    let direction = if limit >= from { 1.0 } else { -1.0 };
    let span = (limit - from).abs();
    if span == 0.0 {
        return from;
    }
    let mut inside = 0.0;
    let mut step = (0.25 * scale).min(span);
    loop {
        if step >= span {
            if g(limit) >= floor {
                return limit;
            }
            step = span;
            break;
        }
        if g(from + direction * step) < floor {
            break;
        }
        inside = step;
        step *= 2.0;
    }
    let mut outside = step;
    for _ in 0..30 {
        let mid = 0.5 * (inside + outside);
        if g(from + direction * mid) >= floor {
            inside = mid;
        } else {
            outside = mid;
        }
    }
    from + direction * outside
}

/// Loader's deviance term bd0(k, m) = k ln(k/m) + m − k ≥ 0, given d = k − m
/// accurately; near k = m it is m·[ε ln(1 + ε) + (ln(1 + ε) − ε)] with ε = d/m,
/// which has no cancellation.
fn bd0(k: f64, m: f64, d: f64) -> f64 {
    let eps = d / m;
    if eps.abs() <= 0.5 || (eps > 0.0 && eps <= 1.0) {
        m * (eps * eps.ln_1p() + log1pmx(eps))
    } else {
        k * (k.ln() - m.ln()) - d
    }
}

#[cfg(test)]
// Reference values keep the 20 significant digits that mpmath printed.
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use approx::{assert_abs_diff_eq, assert_relative_eq};
    use std::f64::consts::LN_10;

    /// Relative error of p below 1e−11 where p ≥ 1e−300, else log10 p within
    /// max(1e−8, 1e−14·|log10 p|).
    fn assert_log10_matches(actual: PValue, expected_log10: f64) {
        if expected_log10 > -300.0 {
            assert_relative_eq!(actual.p, 10f64.powf(expected_log10), max_relative = 1e-11);
        } else {
            let tolerance = 1e-8f64.max(1e-14 * expected_log10.abs());
            assert_abs_diff_eq!(actual.log10, expected_log10, epsilon = tolerance);
        }
    }

    // (k, n, p0, log10 of min(1, 2·min(P(X ≤ k), P(X ≥ k)))) from mpmath 1.3 at 60 digits,
    // p0 taken as the exact f64 shown:
    // * "exact": Fraction sums Σ comb(n, j)·p^j·(1−p)^(n−j) over each tail, p = Fraction(p0);
    // * "quad": P(X ≥ k) = I_p(k, n−k+1) (DLMF 8.17.5) as
    //   exp(Lref − lnB)·quad(lambda t: exp((a−1)·log(t) + (b−1)·log1p(−t) − Lref), pts)
    //   with a = k, b = n−k+1, lnB = loggamma(a)+loggamma(b)−loggamma(a+b), Lref the
    //   log-integrand at min(p, mode), pts = p − sd·2^j (j = −12..59) plus 0, p and the
    //   mode; P(X ≤ k) = I_{1−p}(n−k, k+1) likewise. It agrees with "exact" to 25 digits
    //   on n = 3000 checks.
    const REFERENCE: [(u64, u64, f64, f64); 20] = [
        (0, 240000, 1.0 / 24.0, -4435.7163365674903437), // quad
        (0, 1_000_000_000, 1.0 / 120.0, -3634284.3540640727555), // quad
        (7, 20, 0.5, -0.57975377700506690089),           // exact
        (9, 10, 0.3, -3.5415558517386011068),            // exact
        (0, 10, 0.3, -1.2479896041934504288),            // exact
        (41867, 1_000_000, 1.0 / 24.0, -0.49853935952067591727), // quad
        (40867, 1_000_000, 1.0 / 24.0, -4.2182732873484754792), // quad
        (43000, 1_000_000, 1.0 / 24.0, -10.495130668255417283), // quad
        (
            8334000,
            1_000_000_000,
            1.0 / 120.0,
            -0.087936198660481498503,
        ), // quad
        (
            4611686022927387904,
            9223372036854775807,
            0.5,
            -2.5168248050345443112,
        ), // quad
        (
            4611686077427387904,
            9223372036854775807,
            0.5,
            -329.50261935340932248,
        ), // quad
        (
            4611686017427387904,
            9223372036854775807,
            0.5,
            -0.29226949867870649933,
        ), // quad
        (
            462130000000,
            u64::MAX,
            1.0 / 39916800.0,
            -0.094373830469026214541,
        ), // quad
        (0, u64::MAX, 1.0 / 39916800.0, -200700438427.7240336), // quad
        (12, 10_000_000, 1.0 / 3628800.0, -4.1918804196629196509), // quad
        (0, 10_000_000, 1.0 / 3628800.0, -0.89576933674127993474), // quad
        (2, 10_000_000, 1.0 / 3628800.0, -0.017663444651497482648), // quad
        (49990, 50000, 0.999, -10.896394776232614272),   // quad
        (41667, 1_000_000, 1.0 / 24.0, 0.0),             // quad (p = 1)
        (8333333, 1_000_000_000, 1.0 / 120.0, 0.0),      // quad (p = 1)
    ];

    #[test]
    fn two_sided_p_values_match_mpmath_for_small_and_huge_n() {
        for &(k, n, p0, log10) in REFERENCE.iter() {
            assert_log10_matches(binomial_two_sided(k, n, p0), log10);
        }
    }

    #[test]
    fn identity_never_seen_in_240000_trials_gives_log10_near_minus_4436() {
        // P(X = 0) = (23/24)^240000; doubled: log10 2 + 240000·log10(23/24)
        // = −4435.716336567490343673 (mpmath: log10(2) + 240000*log10(1 − mpf(1/24.))).
        let v = binomial_two_sided(0, 240_000, 1.0 / 24.0);
        assert_eq!(v.p, 0.0);
        assert_abs_diff_eq!(v.log10, -4435.716336567490343673, epsilon = 1e-9);
    }

    #[test]
    fn small_n_matches_hand_computed_tails() {
        // n = 3, p0 = ½, k = 3: P(X ≥ 3) = 1/8, doubled 1/4.
        assert_relative_eq!(binomial_two_sided(3, 3, 0.5).p, 0.25, max_relative = 1e-15);
        // n = 4, p0 = ¼, k = 0: P(X ≤ 0) = (3/4)^4 = 81/256, doubled 81/128.
        assert_relative_eq!(
            binomial_two_sided(0, 4, 0.25).p,
            81.0 / 128.0,
            max_relative = 1e-15
        );
        // n = 5, p0 = 0.1, k = 4: P(X ≥ 4) = 5·0.1⁴·0.9 + 0.1⁵ = 0.00046, doubled 0.00092.
        assert_relative_eq!(
            binomial_two_sided(4, 5, 0.1).p,
            0.00092,
            max_relative = 1e-13
        );
        // Near the mean the doubled tail exceeds 1: p = 1.
        assert_eq!(binomial_two_sided(5, 10, 0.5), PValue::ONE);
    }

    #[test]
    fn two_sided_p_value_is_symmetric_under_swapping_successes_and_failures() {
        for &(k, n, p0) in &[
            (17u64, 100u64, 0.25),
            (30_000, 1_000_000, 1.0 / 24.0),
            (3, 10_000_000, 1.0 / 3628800.0),
        ] {
            let a = binomial_two_sided(k, n, p0);
            let b = binomial_two_sided(n - k, n, 1.0 - p0);
            // 1 − p0 is rounded to f64, so agreement is to that rounding only.
            assert_relative_eq!(a.log10, b.log10, max_relative = 1e-9);
        }
    }

    #[test]
    fn degenerate_hypotheses_give_zero_or_one() {
        assert_eq!(binomial_two_sided(0, 100, 0.0), PValue::ONE);
        assert_eq!(binomial_two_sided(1, 100, 0.0), PValue::ZERO);
        assert_eq!(binomial_two_sided(100, 100, 1.0), PValue::ONE);
        assert_eq!(binomial_two_sided(99, 100, 1.0), PValue::ZERO);
        assert_eq!(binomial_two_sided(5, 4, 0.5), PValue::ZERO);
        assert_eq!(binomial_two_sided(0, 0, 0.5), PValue::ONE);
        assert_eq!(binomial_two_sided(1, 10, f64::NAN), PValue::ONE);
        assert_eq!(binomial_two_sided(1, 10, 7.0), PValue::ZERO);
    }

    /// log10 n! summed term by term, independently of the Stirling series in `ln_choose`.
    fn log10_factorial(n: u64) -> f64 {
        (2..=n).map(|i| (i as f64).log10()).sum()
    }

    #[test]
    fn identity_seen_once_among_171_card_shuffles_is_tested_in_log_space() {
        // p0 = 1/171!, below f64's normal range (log10 171! = 309.0937781052204740, mpmath): as
        // an f64 it is subnormal, with 11 significant bits, and 0 from 178 cards on. One
        // identity in N = 1000 shuffles: P(X ≥ 1) = 1 − (1 − p0)^N = N·p0·(1 − O(N·p0)), and
        // N·p0 ≈ 1e−306, so log10 P(X ≥ 1) = log10 N − log10 171! to every digit f64 holds;
        // the doubling rule adds log10 2 (P(X ≤ 1) ≈ 1 is the larger tail).
        let log10_factorial_171 = log10_factorial(171);
        assert_abs_diff_eq!(log10_factorial_171, 309.093_778_105_220_47, epsilon = 1e-9);
        let p0 = Probability::from_ln(-log10_factorial_171 * LN_10);
        assert!(p0.p < f64::MIN_POSITIVE, "1/171! is subnormal");
        let once = binomial_two_sided_at(1, 1000, p0);
        assert_abs_diff_eq!(
            once.log10,
            2f64.log10() + 1000f64.log10() - log10_factorial_171,
            epsilon = 1e-9
        );
        // Twice: P(X ≥ 2) = C(N, 2)·p0²·(1 + O(N·p0)); mpmath gives log10 of the doubled
        // tail −612.18799072221496575.
        assert_abs_diff_eq!(
            binomial_two_sided_at(2, 1000, p0).log10,
            -612.187_990_722_214_97,
            epsilon = 1e-9
        );
        // Never: the likeliest outcome, p = 1.
        assert_eq!(binomial_two_sided_at(0, 1000, p0), PValue::ONE);
    }

    #[test]
    fn identity_seen_once_among_1000_card_shuffles_is_tested_in_log_space() {
        // The same derivation at 1000 cards (log10 1000! = 2567.6046442221328488, mpmath) and
        // N = 10^9 shuffles: log10 p = log10 2 + 9 − log10 1000!.
        let log10_factorial_1000 = log10_factorial(1000);
        assert_abs_diff_eq!(log10_factorial_1000, 2_567.604_644_222_133, epsilon = 1e-8);
        let p0 = Probability::from_ln(-log10_factorial_1000 * LN_10);
        assert_abs_diff_eq!(
            binomial_two_sided_at(1, 1_000_000_000, p0).log10,
            2f64.log10() + 9.0 - log10_factorial_1000,
            epsilon = 1e-8
        );
    }

    #[test]
    fn log_space_path_agrees_with_the_f64_path_where_both_apply() {
        // p0 = 1e−25 is an ordinary f64 but n·p0 < 1e−20 sends it down the log-space path;
        // the f64 path (Loader's pmf and the summed tail) must give the same p-value.
        for &(k, n) in &[(1u64, 10u64), (3, 1000), (2, 100_000)] {
            let p0 = 1e-25;
            let direct = binomial_two_sided(k, n, p0);
            let logged = binomial_two_sided_at(k, n, Probability::from_p(p0));
            assert_relative_eq!(logged.log10, direct.log10, max_relative = 1e-12);
        }
        // Above the threshold the f64 is used as given: bit-for-bit the same p-value.
        let p0 = 1.0 / 3628800.0;
        assert_eq!(
            binomial_two_sided_at(12, 10_000_000, Probability::from_p(p0)),
            binomial_two_sided(12, 10_000_000, p0)
        );
        assert_eq!(
            binomial_two_sided_at(1, 10, Probability::ZERO),
            PValue::ZERO
        );
        assert_eq!(binomial_two_sided_at(0, 10, Probability::ZERO), PValue::ONE);
        assert_eq!(
            binomial_two_sided_at(11, 10, Probability::from_ln(-800.0)),
            PValue::ZERO
        );
    }

    #[test]
    fn ln_choose_matches_a_term_by_term_sum() {
        for &(n, k) in &[
            (10u64, 3u64),
            (52, 5),
            (1000, 1),
            (1000, 500),
            (1_000_000, 999_999),
            (123_456, 7_890),
        ] {
            // ln C(n, k) = Σ_{i=1..k} ln((n − k + i)/i), summed independently.
            let k_small = k.min(n - k);
            let sum: f64 = (1..=k_small)
                .map(|i| ((n - k_small + i) as f64 / i as f64).ln())
                .sum();
            assert_relative_eq!(ln_choose(n, k), sum, max_relative = 1e-11);
        }
        assert_eq!(ln_choose(7, 0), 0.0);
        assert_eq!(ln_choose(7, 7), 0.0);
        assert_relative_eq!(ln_choose(10, 3), 120f64.ln(), max_relative = 1e-14);
    }

    #[test]
    fn excess_over_mean_is_exact_beyond_two_to_the_53() {
        // n = 2^63 − 1, p = ½: n·p = 2^62 − ½ exactly, so k − n·p = 4 500 000 000.5.
        let d = excess_over_mean(4611686022927387904, 9223372036854775807, 0.5);
        assert_eq!(d, 4_500_000_000.5);
    }

    #[test]
    fn binomial_near_the_mean_at_huge_n_matches_the_normal_law() {
        // n ≈ 9.2e18, σ = √n / 2 ≈ 1.5e9: for p = ½ the law is symmetric, so the two-sided
        // p-value is close to erfc(|k − n/2| / (σ√2)); the lattice (continuity) term of ½
        // moves z by ½/σ and the p-value by about z/(2σ) relatively: at most 1.1e-8 for these
        // z < 33, hence the bound 2e-8.
        let n = u64::MAX / 2;
        let sigma = (n as f64).sqrt() / 2.0;
        for i in 0..50u64 {
            let k = (1u64 << 62) + i * 1_000_000_000;
            let expected = statrs::function::erf::erfc(
                excess_over_mean(k, n, 0.5).abs() / (sigma * std::f64::consts::SQRT_2),
            );
            let p = binomial_two_sided(k, n, 0.5);
            assert!(p.log10 <= 0.0);
            assert_relative_eq!(p.p, expected, max_relative = 2e-8);
        }
    }
}
