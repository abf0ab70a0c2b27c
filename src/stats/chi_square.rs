//! The central chi-square law: its survival function (the p-value of a Pearson
//! test), Pearson's statistic itself, and the inverse survival function (critical
//! values) used by the power analysis. Everything is accurate for degrees of
//! freedom from 1 to 4e7 and for p-values far below 1e−300 (reported in log10).

use super::pvalue::PValue;
use super::special::{ln_gamma_p, ln_gamma_prefix, ln_gamma_q};
use super::summation::CompensatedSum;
use statrs::function::erf::erfc_inv;
use statrs::function::gamma::ln_gamma;
use std::f64::consts::SQRT_2;

/// Survival function P(X >= statistic) of the central chi-square law with `df` degrees of freedom.
///
/// P(X ≥ s) = Q(df/2, s/2), the regularized upper incomplete gamma function
/// (Abramowitz & Stegun 26.4.19), computed in log space by `special::ln_gamma_q`:
/// series for P = 1 − Q left of the mode, Legendre's continued fraction right of
/// it, Temme's uniform expansion for df > 40 within 40 % of the mean (see
/// `special.rs` for sources). Measured against mpmath on 968 points (df 0.5 …
/// 39 916 799, statistics up to 1e12): relative error ≤ 2e−13 where p ≥ 1e−300;
/// below that, log10 p has relative error ≤ 5e−16 (absolute ≤ 3e−11 at
/// log10 p ≈ −5e4; f64 itself cannot resolve log10 p ≈ −2e11 better than ~3e−5).
/// Each call takes 0.1–4 µs, at any df.
///
/// Edge cases: a statistic ≤ 0 gives [`PValue::ONE`], +∞ gives [`PValue::ZERO`];
/// `df` ≤ 0 is the point mass at 0 (ONE for a statistic ≤ 0, else ZERO); `df` = +∞
/// gives ONE; NaN in either argument gives ONE.
pub fn chi_square_sf(statistic: f64, df: f64) -> PValue {
    if statistic.is_nan() || df.is_nan() || statistic <= 0.0 {
        return PValue::ONE;
    }
    if df <= 0.0 {
        return PValue::ZERO;
    }
    PValue::from_ln(ln_gamma_q(0.5 * df, 0.5 * statistic))
}

/// Lower tail P(X ≤ statistic) of the central chi-square law with `df` degrees of freedom:
/// P(df/2, s/2), the regularized lower incomplete gamma function (Abramowitz & Stegun
/// 26.4.19), in log space (`special::ln_gamma_p`). Small when a statistic is *too small*: counts
/// closer to their expectation than independent draws ever come (a too-regular stream).
///
/// Edge cases: a statistic ≤ 0 gives [`PValue::ZERO`] for df > 0 (ONE for df ≤ 0, the point
/// mass at 0), +∞ gives ONE; NaN in either argument gives ONE.
pub fn chi_square_cdf(statistic: f64, df: f64) -> PValue {
    if statistic.is_nan() || df.is_nan() || df <= 0.0 || statistic == f64::INFINITY {
        return PValue::ONE;
    }
    if statistic <= 0.0 {
        return PValue::ZERO;
    }
    PValue::from_ln(ln_gamma_p(0.5 * df, 0.5 * statistic))
}

/// The two-sided p-value of a χ² statistic, min(1, 2·min(P(X ≥ s), P(X ≤ s_lower))): both too
/// large a statistic (counts far from their expectation) and too small a one (counts closer to
/// it than chance allows) reject, as the generator batteries do (L'Ecuyer & Simard 2007,
/// TestU01, §2: "p-values too close to 0 or to 1"). `lower_statistic` is where the lower tail
/// is read: the statistic itself, or a continuity-corrected value for a lattice statistic
/// that can be exactly 0.
pub fn chi_square_two_sided(statistic: f64, lower_statistic: f64, df: f64) -> PValue {
    let upper = chi_square_sf(statistic, df);
    let lower = chi_square_cdf(lower_statistic, df);
    let smaller = if upper.log10 <= lower.log10 {
        upper
    } else {
        lower
    };
    smaller.scaled(2.0)
}

/// Pearson's chi-square test of observed counts against expected counts.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct PearsonTest {
    /// Σ (o − e)² / e over the cells.
    pub statistic: f64,
    /// Degrees of freedom used for the p-value.
    pub df: f64,
    /// P(X ≥ statistic) under the central chi-square law with `df` degrees of freedom.
    pub p_value: PValue,
}

/// Pearson's statistic Σ (o − e)²/e and its p-value for observed counts against
/// expected counts (Pearson 1900; Agresti 2013, *Categorical Data Analysis* §1.5).
///
/// `df` is the degrees of freedom; pass `f64::NAN` (or any value ≤ 0) to use
/// `cells − 1`. Each term is formed directly (no Σo²/e − N shortcut, which cancels
/// catastrophically) and summed with Neumaier's compensated summation, so the
/// statistic is accurate to a few ulps even over 40 million cells.
///
/// The caller should merge or drop cells whose expected count is 0; if one is
/// passed anyway, it contributes 0 when its observed count is 0 and makes the
/// statistic +∞ (p = [`PValue::ZERO`], an impossible outcome) otherwise. A
/// negative or NaN expected count is treated like 0. If the slices differ in
/// length, only the common prefix is used.
pub fn pearson(observed: &[u64], expected: &[f64], df: f64) -> PearsonTest {
    let cells = observed.len().min(expected.len());
    let statistic = pearson_statistic(observed.iter().copied().zip(expected.iter().copied()));
    let df = if df > 0.0 {
        df
    } else {
        cells.saturating_sub(1) as f64
    };
    PearsonTest {
        statistic,
        df,
        p_value: chi_square_sf(statistic, df),
    }
}

/// Pearson's statistic Σ (o − e)²/e over (observed, expected) pairs streamed one cell at a
/// time (so that 40 million orderings need no second copy), summed as [`pearson`] sums it
/// (Neumaier 1974). A cell expected 0 times (or a negative or NaN expectation) contributes 0
/// when empty and makes the statistic +∞ otherwise.
pub fn pearson_statistic(cells: impl IntoIterator<Item = (u64, f64)>) -> f64 {
    let mut sum = CompensatedSum::default();
    let mut impossible = false;
    for (o, e) in cells {
        let o = o as f64;
        if e > 0.0 {
            let diff = o - e;
            sum.add(diff * diff / e);
        } else if o > 0.0 {
            impossible = true;
        }
    }
    if impossible {
        f64::INFINITY
    } else {
        sum.total()
    }
}

/// Critical value c with P(X >= c) = alpha (inverse survival), used by the power analysis.
///
/// Starts from the Wilson–Hilferty cube-root approximation (Wilson & Hilferty 1931;
/// Johnson, Kotz & Balakrishnan 1994, eq. 18.24) and refines it by safeguarded
/// Newton iteration on ln Q(df/2, c/2) − ln alpha in the variable ln c, using
/// d ln Q / d ln x = −x^a e^−x / (Γ(a) Q). The result is accurate to a few ulps.
///
/// Edge cases: alpha ≥ 1 or `df` ≤ 0 gives 0; alpha ≤ 0 gives +∞; NaN gives NaN.
pub fn chi_square_critical(df: f64, alpha: f64) -> f64 {
    if df.is_nan() || alpha.is_nan() {
        return f64::NAN;
    }
    if alpha >= 1.0 || df <= 0.0 {
        return 0.0;
    }
    if alpha <= 0.0 || df == f64::INFINITY {
        return f64::INFINITY;
    }
    let a = 0.5 * df;
    let target = alpha.ln();
    // Newton on g(u) = ln Q(a, e^u / 2) − ln alpha, which decreases in u.
    let mut u = initial_log_critical(df, alpha);
    let mut lo = f64::NEG_INFINITY; // g(lo) > 0
    let mut hi = f64::INFINITY; // g(hi) < 0
    for _ in 0..200 {
        let x = 0.5 * u.exp();
        let ln_q = ln_gamma_q(a, x);
        let value = ln_q - target;
        if value == 0.0 {
            return 2.0 * x;
        }
        if value > 0.0 {
            lo = lo.max(u);
        } else {
            hi = hi.min(u);
        }
        // g'(u) = −x^a e^−x / (Γ(a) Q).
        let slope = -(ln_gamma_prefix(a, x) - ln_q).exp();
        let mut next = u - value / slope;
        if !next.is_finite() || next <= lo || next >= hi {
            next = if lo.is_finite() && hi.is_finite() {
                0.5 * (lo + hi)
            } else if lo.is_finite() {
                lo + 1.0
            } else {
                hi - 1.0
            };
        }
        let step = next - u;
        u = next;
        if step.abs() <= 1e-12 * u.abs().max(1.0) {
            break;
        }
        if lo.is_finite() && hi.is_finite() && hi - lo <= 1e-12 * u.abs().max(1.0) {
            break;
        }
    }
    // Polish in c itself: ln c carries only ~ulp(ln c)·c of resolution, which is
    // several ulps of c when c is large. d ln Q/dc = −(x^a e^−x/(Γ(a) Q))/c.
    let mut c = u.exp();
    let mut best = (c, f64::INFINITY);
    for _ in 0..4 {
        let x = 0.5 * c;
        let ln_q = ln_gamma_q(a, x);
        let value = ln_q - target;
        if value.is_nan() || value.abs() >= best.1 {
            break; // no longer improving: keep the best point seen
        }
        best = (c, value.abs());
        let slope = -(ln_gamma_prefix(a, x) - ln_q).exp() / c;
        let next = c - value / slope;
        if !next.is_finite() || next <= 0.0 || (next - c).abs() <= f64::EPSILON * c {
            break;
        }
        c = next;
    }
    c = best.0;
    c
}

/// ln of a starting guess for the critical value: Wilson–Hilferty, or for small
/// upper quantiles near 0 the leading term of P(a, x) ≈ x^a / Γ(a + 1).
fn initial_log_critical(df: f64, alpha: f64) -> f64 {
    let a = 0.5 * df;
    let z = SQRT_2 * erfc_inv(2.0 * alpha);
    let h = 2.0 / (9.0 * df);
    let cube = 1.0 - h + z * h.sqrt();
    if cube > 0.1 {
        (df * cube * cube * cube).ln()
    } else {
        // P(a, x) ≈ x^a / Γ(a + 1) = 1 − alpha  ⇒  x = ((1 − alpha) Γ(a + 1))^{1/a}.
        let ln_x = ((-alpha).ln_1p() + ln_gamma(a + 1.0)) / a;
        std::f64::consts::LN_2 + ln_x
    }
}

#[cfg(test)]
// Reference values keep the 20 significant digits that mpmath printed.
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use approx::{assert_abs_diff_eq, assert_relative_eq};

    /// Checks a p-value against a reference log10 p: relative error of p below
    /// 1e−11 where p ≥ 1e−300, else log10 p within max(1e−8, 1e−14·|log10 p|).
    fn assert_log10_matches(actual: PValue, expected_log10: f64) {
        if expected_log10 > -300.0 {
            let expected = 10f64.powf(expected_log10);
            assert_relative_eq!(actual.p, expected, max_relative = 1e-11);
        } else {
            let tolerance = 1e-8f64.max(1e-14 * expected_log10.abs());
            assert_abs_diff_eq!(actual.log10, expected_log10, epsilon = tolerance);
        }
        assert!(actual.log10.is_finite());
    }

    // (statistic, df, log10 P(X ≥ statistic)) computed with mpmath 1.3 at 40 digits,
    // with the statistic and df taken as the exact f64 values shown, a = df/2, x = statistic/2:
    // * "gammainc": mpmath.log10(mpmath.gammainc(a, x, mpmath.inf, regularized=True));
    // * "quad" (gammainc does not converge for these a): with m = a − 1,
    //   log10 of exp(m·log(x) − x − loggamma(a)) · quad(lambda u: exp(m·log1p(u/x) − u),
    //   [0, L/4, L/2, L, 2L, …, 2^11·L, inf]), L = min(1/(1 − m/x), x/sqrt(m)), when x ≥ m;
    //   and log10(1 − P) with P = exp(m·log(x) − x − loggamma(a)) · quad(lambda u:
    //   exp(m·log1p(−u/x) + u), [0, …, x]) when x < m. The two methods agree to all
    //   printed digits where both converge (checked at a = 5, 500, 900).
    const REFERENCE: [(f64, f64, f64); 31] = [
        (3.841458820694124, 1.0, -1.3010299956639806963), // gammainc
        (1e-10, 1.0, -3.4651824435633312896e-6),          // gammainc
        (7.814727903251178, 3.0, -1.3010299956639808683), // gammainc
        (49.728, 23.0, -2.9999696082048542981),           // gammainc
        (30.0, 23.0, -0.82564461281864621064),            // gammainc
        (10.0, 23.0, -0.0038051257910957010941),          // gammainc
        (200.0, 119.0, -5.3163227823297289545),           // gammainc
        (119.0, 119.0, -0.31626986740831462143),          // gammainc
        (40.0, 119.0, -3.2035372458539583995e-13),        // gammainc
        (40319.0, 40319.0, -0.30184426941068505234),      // quad
        (41200.0, 40319.0, -2.9886890841232315037),       // quad
        (41528.704992467174, 40319.0, -4.9140031923959172657), // quad
        (43000.0, 40319.0, -19.917441875291325808),       // quad
        (60000.0, 40319.0, -795.54856822201190957),       // quad
        (362879.0, 362879.0, -0.30130124758968426021),    // quad
        (365000.0, 362879.0, -2.1893624950388130208),     // quad
        (380000.0, 362879.0, -86.74303295433531462),      // quad
        (360000.0, 362879.0, -0.00015310666005879755925), // quad
        (3628799.0, 3628799.0, -0.30111575463063997827),  // quad
        (3640000.0, 3628799.0, -4.7863810706520192921),   // quad
        (3700000.0, 3628799.0, -151.54829087748143892),   // quad
        (39916799.0, 39916799.0, -0.30105585117883219418), // quad
        (39900000.0, 39916799.0, -0.01324236847935258877), // quad
        (39950000.0, 39916799.0, -3.9929199010525726682), // quad
        (40000000.0, 39916799.0, -20.175816810457378514), // quad
        (40250000.0, 39916799.0, -302.28306393234585306), // quad
        (41000000.0, 39916799.0, -3137.3368243065235917), // quad
        (60000000.0, 39916799.0, -828467.67598081708198), // quad
        (1e9, 39916799.0, -180560730.37656627155),        // quad
        (1e12, 39916799.0, -217050779245.56852798),       // quad
        (1e12, 1.0, -217147240957.72397376),              // gammainc
    ];

    #[test]
    fn sf_matches_mpmath_from_one_to_forty_million_degrees_of_freedom() {
        for &(statistic, df, log10) in REFERENCE.iter() {
            assert_log10_matches(chi_square_sf(statistic, df), log10);
        }
    }

    #[test]
    fn sf_matches_closed_form_for_two_degrees_of_freedom() {
        // df = 2: P(X ≥ x) = exp(−x/2) (Abramowitz & Stegun 26.4.21 with ν = 2).
        for x in [1e-8, 0.5, 1.0, 10.0, 100.0, 1000.0] {
            let v = chi_square_sf(x, 2.0);
            assert_relative_eq!(v.p, (-x / 2.0).exp(), max_relative = 1e-13);
        }
        let tiny = chi_square_sf(5000.0, 2.0);
        assert_relative_eq!(
            tiny.log10,
            -2500.0 * std::f64::consts::LOG10_E,
            max_relative = 1e-14
        );
        assert_eq!(tiny.p, 0.0);
    }

    #[test]
    fn sf_reports_p_values_below_1e_300_as_finite_log10() {
        let v = chi_square_sf(60_000_000.0, 39_916_799.0);
        assert_eq!(v.p, 0.0);
        assert!(v.log10.is_finite());
        assert_abs_diff_eq!(v.log10, -828467.67598081708198, epsilon = 1e-8);
    }

    #[test]
    fn sf_is_one_near_zero_and_handles_degenerate_inputs() {
        // df = 1, tiny x: P(X < x) = erf(√(x/2)) ≈ √(2x/π), so ln p ≈ −√(2x/π).
        let near_one = chi_square_sf(1e-300, 1.0);
        assert_eq!(near_one.p, 1.0);
        let expected = -(2e-300 / std::f64::consts::PI).sqrt() * std::f64::consts::LOG10_E;
        assert_relative_eq!(near_one.log10, expected, max_relative = 1e-12);
        assert_eq!(chi_square_sf(0.0, 5.0), PValue::ONE);
        assert_eq!(chi_square_sf(-3.0, 5.0), PValue::ONE);
        assert_eq!(chi_square_sf(f64::NAN, 5.0), PValue::ONE);
        assert_eq!(chi_square_sf(f64::INFINITY, 5.0), PValue::ZERO);
        assert_eq!(chi_square_sf(1.0, 0.0), PValue::ZERO);
        assert_eq!(chi_square_sf(1.0, f64::INFINITY), PValue::ONE);
    }

    #[test]
    fn sf_at_forty_million_degrees_of_freedom_matches_wilson_hilferty() {
        // Wilson & Hilferty (1931): (X/df)^(1/3) is nearly normal with mean 1 − 2/(9 df) and
        // variance 2/(9 df); its error shrinks like 1/df, about 1e-8 here.
        let df = 39_916_799.0;
        let v = 2.0 / (9.0 * df);
        for i in 0..200 {
            let statistic = df + (i as f64 - 100.0) * 100.0;
            let z = ((statistic / df).cbrt() - (1.0 - v)) / v.sqrt();
            let expected = 0.5 * statrs::function::erf::erfc(z / SQRT_2);
            let p = chi_square_sf(statistic, df);
            assert!(p.log10 <= 0.0);
            assert_relative_eq!(p.p, expected, max_relative = 1e-6);
        }
    }

    #[test]
    fn pearson_matches_a_hand_computed_example() {
        // (10−20)²/20 + 0 + (30−20)²/20 = 10 with 2 degrees of freedom: p = e^−5.
        let test = pearson(&[10, 20, 30], &[20.0, 20.0, 20.0], f64::NAN);
        assert_eq!(test.statistic, 10.0);
        assert_eq!(test.df, 2.0);
        assert_relative_eq!(test.p_value.p, (-5.0f64).exp(), max_relative = 1e-13);
        let given = pearson(&[10, 20, 30], &[20.0, 20.0, 20.0], 1.0);
        assert_eq!(given.df, 1.0);
    }

    #[test]
    fn pearson_sums_a_million_cells_without_rounding_drift() {
        // Cells alternate 101 and 99 against 100: each term is exactly 0.01 in real
        // arithmetic, so the statistic is 10 000 (0.01 is not a binary fraction, so a
        // naive sum drifts by ~1e−9 relative here).
        let n = 1_000_000;
        let observed: Vec<u64> = (0..n).map(|i| if i % 2 == 0 { 101 } else { 99 }).collect();
        let expected = vec![100.0; n];
        let test = pearson(&observed, &expected, f64::NAN);
        assert_relative_eq!(test.statistic, 10_000.0, max_relative = 1e-15);
        assert_eq!(test.df, 999_999.0);
    }

    #[test]
    fn pearson_treats_a_count_in_an_impossible_cell_as_impossible() {
        let test = pearson(&[5, 0, 3], &[4.0, 0.0, 4.0], f64::NAN);
        assert_relative_eq!(test.statistic, 0.5, max_relative = 1e-15);
        let impossible = pearson(&[5, 1, 3], &[4.0, 0.0, 5.0], f64::NAN);
        assert_eq!(impossible.statistic, f64::INFINITY);
        assert_eq!(impossible.p_value, PValue::ZERO);
    }

    #[test]
    fn critical_values_match_a_published_chi_square_table() {
        // NIST/SEMATECH e-Handbook of Statistical Methods, §1.3.6.7.4
        // (upper-tail critical values of the chi-square distribution).
        assert_abs_diff_eq!(chi_square_critical(1.0, 0.05), 3.841, epsilon = 5e-4);
        assert_abs_diff_eq!(chi_square_critical(3.0, 0.05), 7.815, epsilon = 5e-4);
        assert_abs_diff_eq!(chi_square_critical(10.0, 0.05), 18.307, epsilon = 5e-4);
        assert_abs_diff_eq!(chi_square_critical(23.0, 0.001), 49.728, epsilon = 5e-4);
        assert_abs_diff_eq!(chi_square_critical(100.0, 0.01), 135.807, epsilon = 5e-4);
    }

    #[test]
    fn critical_values_match_closed_forms_and_mpmath() {
        // df = 1: c = 2·erfinv(1 − alpha)², mpmath: 2*mpmath.erfinv(mpmath.mpf('0.95'))**2.
        assert_relative_eq!(
            chi_square_critical(1.0, 0.05),
            3.8414588206941259584,
            max_relative = 1e-14
        );
        // df = 2: c = −2 ln alpha.
        for alpha in [0.5, 0.05, 1e-6, 1e-300] {
            assert_relative_eq!(
                chi_square_critical(2.0, alpha),
                -2.0 * f64::ln(alpha),
                max_relative = 1e-13
            );
        }
    }

    #[test]
    fn critical_values_invert_the_survival_function_at_huge_degrees_of_freedom() {
        for &df in &[3.0, 119.0, 40319.0, 3628799.0, 39916799.0] {
            for &alpha in &[0.999, 0.5, 0.05, 1e-6, 1e-300] {
                let c = chi_square_critical(df, alpha);
                let back = chi_square_sf(c, df);
                // Conditioning: d ln Q / d ln c can reach ~1e6 at df = 4e7, alpha = 1e−300.
                assert_relative_eq!(back.ln(), alpha.ln(), max_relative = 1e-9);
            }
        }
        assert_eq!(chi_square_critical(5.0, 1.0), 0.0);
        assert_eq!(chi_square_critical(5.0, 0.0), f64::INFINITY);
        assert!(chi_square_critical(5.0, f64::NAN).is_nan());
    }

    #[test]
    fn the_lower_tail_matches_mpmath_far_below_the_mean() {
        // Reference: mpmath 1.3 at 40 digits, gammainc(df/2, 0, x/2, regularized=True).
        for (x, df, expected) in [
            (330.0, 719.0, 2.950_370_774_649_665_1e-39),
            (1.0, 10.0, 1.721_156_299_558_407_8e-4),
            (5.0, 30.0, 6.915_313_866_992_888_2e-8),
            (0.5, 1.0, 0.520_499_877_813_046_54),
        ] {
            assert_log10_matches(chi_square_cdf(x, df), f64::log10(expected));
        }
        // Beyond f64: log10 of mpmath's 2.0608141987333272e-304571 and 3.2100401803474731e-511.
        assert_log10_matches(
            chi_square_cdf(1e5, 1e6),
            -304_571.0 + 2.060_814_198_733_327_2f64.log10(),
        );
        assert_log10_matches(
            chi_square_cdf(3.5e6, 3_628_799.0),
            -511.0 + 3.210_040_180_347_473_1f64.log10(),
        );
    }

    #[test]
    fn the_lower_tail_of_two_degrees_of_freedom_is_one_minus_an_exponential() {
        // χ²(2) is exponential with mean 2: P(X ≤ x) = 1 − e^{−x/2} exactly.
        for x in [1e-6, 0.3, 2.0, 9.0, 40.0] {
            assert_relative_eq!(
                chi_square_cdf(x, 2.0).p,
                -(-x / 2.0f64).exp_m1(),
                max_relative = 1e-13
            );
        }
    }

    #[test]
    fn the_two_sided_p_doubles_the_nearer_tail() {
        let (x, df) = (330.0, 719.0);
        assert_relative_eq!(
            chi_square_two_sided(x, x, df).p,
            2.0 * chi_square_cdf(x, df).p,
            max_relative = 1e-12
        );
        assert_relative_eq!(
            chi_square_two_sided(800.0, 800.0, df).p,
            2.0 * chi_square_sf(800.0, df).p,
            max_relative = 1e-12
        );
        // Near the median (≈ df − 2/3, Wilson–Hilferty) both tails are about ½: p ≈ 1.
        assert!(chi_square_two_sided(df - 2.0 / 3.0, df - 2.0 / 3.0, df).p > 0.999);
    }
}
