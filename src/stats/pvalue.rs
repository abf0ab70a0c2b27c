//! [`PValue`]: a probability carried together with its base-10 logarithm, so that
//! p-values far below f64's smallest positive number (p < 1e−308, e.g. 10^−4436)
//! are still reported exactly, as log10 p, instead of collapsing to 0.

use serde::Serialize;
use std::f64::consts::{LN_10, LOG10_E};

/// A p-value that stays meaningful below f64's range.
///
/// Invariants (kept by every constructor in this module):
/// * `p` is in `[0, 1]` and equals `10^log10` to within rounding; it is `0.0` only
///   when that power underflows f64 (p < ~4.9e−324) or the p-value is exactly 0;
/// * `log10` is in `[−∞, 0]` and never NaN; it is `−∞` only for [`PValue::ZERO`],
///   the p-value of an outcome that is impossible under the null hypothesis
///   (e.g. a success when p0 = 0, or a count in a cell whose expected count is 0).
///
/// Serialization note: serde_json writes `−∞` as `null`; report `log10` only when
/// it is finite, or say "impossible under the hypothesis" for [`PValue::ZERO`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PValue {
    /// The probability itself (0.0 when it underflows f64; then read `log10`).
    pub p: f64,
    /// Base-10 logarithm of the probability; finite unless the p-value is exactly 0.
    pub log10: f64,
}

impl PValue {
    /// p = 1: no evidence at all against the hypothesis.
    pub const ONE: PValue = PValue { p: 1.0, log10: 0.0 };

    /// p = 0 exactly (log10 = −∞): the outcome is impossible under the hypothesis.
    pub const ZERO: PValue = PValue {
        p: 0.0,
        log10: f64::NEG_INFINITY,
    };

    /// From a probability. Values above 1 clamp to [`PValue::ONE`]; 0 and below give
    /// [`PValue::ZERO`] (so pass an underflowed value through [`PValue::from_ln`]
    /// instead); NaN gives [`PValue::ONE`], which can never look significant.
    pub fn from_p(p: f64) -> Self {
        if p.is_nan() || p >= 1.0 {
            Self::ONE
        } else if p <= 0.0 {
            Self::ZERO
        } else {
            PValue {
                p,
                log10: p.log10(),
            }
        }
    }

    /// From log10 p. Values ≥ 0 clamp to [`PValue::ONE`]; −∞ gives [`PValue::ZERO`];
    /// NaN gives [`PValue::ONE`].
    pub fn from_log10(log10: f64) -> Self {
        if log10.is_nan() || log10 >= 0.0 {
            Self::ONE
        } else if log10 == f64::NEG_INFINITY {
            Self::ZERO
        } else {
            PValue {
                p: 10f64.powf(log10),
                log10,
            }
        }
    }

    /// From the natural logarithm ln p. Values ≥ 0 clamp to [`PValue::ONE`]; −∞ gives
    /// [`PValue::ZERO`]; NaN gives [`PValue::ONE`].
    pub fn from_ln(ln: f64) -> Self {
        if ln.is_nan() || ln >= 0.0 {
            Self::ONE
        } else if ln == f64::NEG_INFINITY {
            Self::ZERO
        } else {
            PValue {
                p: ln.exp(),
                log10: ln * LOG10_E,
            }
        }
    }

    /// Natural logarithm of the p-value (−∞ for [`PValue::ZERO`]).
    pub fn ln(&self) -> f64 {
        self.log10 * LN_10
    }

    /// Whether p < alpha (strictly), compared in log space so it works below 1e−308.
    /// Always false for alpha ≤ 0 or NaN; always true for alpha > 1.
    pub fn is_below(&self, alpha: f64) -> bool {
        if alpha.is_nan() || alpha <= 0.0 {
            return false;
        }
        if alpha > 1.0 {
            return true;
        }
        self.log10 < alpha.log10()
    }

    /// min(1, factor · p), computed in log space (used by Holm's step-down method).
    /// A factor ≤ 0 gives [`PValue::ZERO`]; NaN in the factor or in `self` gives
    /// [`PValue::ONE`]; [`PValue::ZERO`] stays ZERO for any factor.
    pub fn scaled(&self, factor: f64) -> Self {
        if factor.is_nan() || self.log10.is_nan() {
            return Self::ONE;
        }
        if self.log10 == f64::NEG_INFINITY || factor <= 0.0 {
            return Self::ZERO;
        }
        if factor == f64::INFINITY {
            return Self::ONE;
        }
        let log10 = self.log10 + factor.log10();
        if log10 >= 0.0 {
            return Self::ONE;
        }
        let direct = self.p * factor;
        let p = if self.p > 0.0 && direct >= f64::MIN_POSITIVE {
            direct.min(1.0)
        } else {
            10f64.powf(log10)
        };
        PValue { p, log10 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn from_p_keeps_the_probability_and_its_logarithm() {
        let v = PValue::from_p(0.05);
        assert_eq!(v.p, 0.05);
        assert_relative_eq!(v.log10, -1.3010299956639812, max_relative = 1e-15);
    }

    #[test]
    fn from_log10_below_the_f64_range_keeps_the_logarithm() {
        let v = PValue::from_log10(-4436.25);
        assert_eq!(v.p, 0.0);
        assert_eq!(v.log10, -4436.25);
        let w = PValue::from_log10(-300.5);
        assert_relative_eq!(w.p, 3.1622776601683795e-301, max_relative = 1e-14);
    }

    #[test]
    fn from_ln_converts_to_base_ten() {
        let v = PValue::from_ln(-10_000.0);
        assert_relative_eq!(v.log10, -4342.944819032518, max_relative = 1e-15);
        assert_eq!(v.p, 0.0);
        let w = PValue::from_ln(-2.0);
        assert_relative_eq!(w.p, (-2.0f64).exp(), max_relative = 1e-16);
        assert_relative_eq!(w.ln(), -2.0, max_relative = 1e-15);
    }

    #[test]
    fn out_of_range_and_nan_inputs_are_clamped_conservatively() {
        assert_eq!(PValue::from_p(1.5), PValue::ONE);
        assert_eq!(PValue::from_p(f64::NAN), PValue::ONE);
        assert_eq!(PValue::from_p(0.0), PValue::ZERO);
        assert_eq!(PValue::from_log10(0.3), PValue::ONE);
        assert_eq!(PValue::from_log10(f64::NAN), PValue::ONE);
        assert_eq!(PValue::from_ln(f64::NEG_INFINITY), PValue::ZERO);
        assert_eq!(PValue::from_ln(f64::NAN), PValue::ONE);
    }

    #[test]
    fn is_below_compares_in_log_space_even_when_p_underflows() {
        assert!(PValue::from_log10(-5000.0).is_below(1e-300));
        assert!(!PValue::from_log10(-5000.0).is_below(0.0));
        assert!(PValue::from_p(0.01).is_below(0.05));
        assert!(!PValue::from_p(0.05).is_below(0.05));
        assert!(!PValue::ONE.is_below(1.0));
        assert!(PValue::ZERO.is_below(1e-300));
    }

    #[test]
    fn scaled_multiplies_and_caps_at_one() {
        let v = PValue::from_p(0.01).scaled(4.0);
        assert_relative_eq!(v.p, 0.04, max_relative = 1e-15);
        assert_relative_eq!(v.log10, 0.04f64.log10(), max_relative = 1e-15);
        assert_eq!(PValue::from_p(0.3).scaled(4.0), PValue::ONE);
        let tiny = PValue::from_log10(-5000.0).scaled(1000.0);
        assert_relative_eq!(tiny.log10, -4997.0, max_relative = 1e-15);
        assert_eq!(PValue::ZERO.scaled(1e300), PValue::ZERO);
        assert_eq!(PValue::from_p(0.5).scaled(f64::NAN), PValue::ONE);
    }
}
