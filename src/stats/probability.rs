//! [`Probability`]: a null-hypothesis probability carried together with its natural
//! logarithm, so that a probability below f64's range (1/171! ≈ 10^−309.1, or a riffle's
//! chance of leaving 200 cards in order) still reaches the tests exactly, while 0 keeps its
//! meaning of "impossible".

/// A probability in [0, 1] and its natural logarithm.
///
/// Invariants (kept by every constructor): `ln` is in [−∞, 0] and never NaN; `p` is the f64
/// nearest e^ln, so `p` is 0.0 either because the probability is exactly 0 (then `ln` is −∞)
/// or because it underflows f64 (then `ln` is finite and is what the tests use).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probability {
    /// The probability as an f64 (0.0 when it underflows; then read `ln`).
    pub p: f64,
    /// Its natural logarithm; −∞ only when the probability is exactly 0.
    pub ln: f64,
}

impl Probability {
    /// Exactly 0: the outcome is impossible.
    pub const ZERO: Probability = Probability {
        p: 0.0,
        ln: f64::NEG_INFINITY,
    };

    /// Exactly 1: the outcome is certain.
    pub const ONE: Probability = Probability { p: 1.0, ln: 0.0 };

    /// From an f64 probability that did not underflow (so 0.0 means impossible). Values are
    /// clamped into [0, 1]; NaN is treated as 0.
    pub fn from_p(p: f64) -> Self {
        if p.is_nan() || p <= 0.0 {
            Self::ZERO
        } else if p >= 1.0 {
            Self::ONE
        } else {
            Probability { p, ln: p.ln() }
        }
    }

    /// From a natural logarithm (values ≥ 0 clamp to 1; NaN and −∞ give 0).
    pub fn from_ln(ln: f64) -> Self {
        if ln.is_nan() || ln == f64::NEG_INFINITY {
            Self::ZERO
        } else if ln >= 0.0 {
            Self::ONE
        } else {
            Probability { p: ln.exp(), ln }
        }
    }

    /// From both forms when they were computed separately (e.g. the f64 nearest an exact
    /// fraction, and the fraction's logarithm), keeping the f64 as given.
    pub fn from_parts(p: f64, ln: f64) -> Self {
        if ln.is_nan() || ln == f64::NEG_INFINITY {
            Self::ZERO
        } else {
            Probability {
                p: p.clamp(0.0, 1.0),
                ln: ln.min(0.0),
            }
        }
    }

    /// Whether the probability is exactly 0.
    pub fn is_impossible(&self) -> bool {
        self.ln == f64::NEG_INFINITY
    }

    /// log10 of the probability.
    pub fn log10(&self) -> f64 {
        self.ln * std::f64::consts::LOG10_E
    }
}

/// ln Σ e^{ln_i}, the natural logarithm of a sum of probabilities given by their logarithms,
/// without overflow or underflow (the largest term is factored out). −∞ for an empty sum or
/// one of impossible terms only.
pub fn ln_sum(lns: impl Iterator<Item = f64> + Clone) -> f64 {
    let max = lns.clone().fold(f64::NEG_INFINITY, f64::max);
    if max == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    max + lns.map(|ln| (ln - max).exp()).sum::<f64>().ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn a_probability_below_the_f64_range_keeps_its_logarithm() {
        let tiny = Probability::from_ln(-1000.0);
        assert_eq!(tiny.p, 0.0);
        assert_eq!(tiny.ln, -1000.0);
        assert!(!tiny.is_impossible());
        assert_relative_eq!(tiny.log10(), -434.294_481_903_251_8, max_relative = 1e-15);
    }

    #[test]
    fn zero_is_impossible_and_clamping_is_conservative() {
        assert!(Probability::from_p(0.0).is_impossible());
        assert!(Probability::from_p(f64::NAN).is_impossible());
        assert_eq!(Probability::from_p(1.5), Probability::ONE);
        assert_eq!(Probability::from_ln(0.5), Probability::ONE);
        assert_eq!(Probability::from_parts(0.0, -800.0).ln, -800.0);
        assert!(Probability::from_parts(0.0, f64::NEG_INFINITY).is_impossible());
        let quarter = Probability::from_p(0.25);
        assert_eq!(quarter.p, 0.25);
        assert_relative_eq!(quarter.ln, -(4f64.ln()), max_relative = 1e-15);
    }

    #[test]
    fn ln_sum_adds_probabilities_far_below_the_f64_range() {
        // e^−2000 + e^−2000 = 2·e^−2000: ln = −2000 + ln 2.
        let lns = [-2000.0, -2000.0, f64::NEG_INFINITY];
        assert_relative_eq!(
            ln_sum(lns.iter().copied()),
            -2000.0 + std::f64::consts::LN_2,
            max_relative = 1e-15
        );
        assert_relative_eq!(
            ln_sum([0.5f64.ln(), 0.25f64.ln()].into_iter()),
            0.75f64.ln(),
            max_relative = 1e-15
        );
        assert_eq!(ln_sum(std::iter::empty()), f64::NEG_INFINITY);
        assert_eq!(ln_sum([f64::NEG_INFINITY].into_iter()), f64::NEG_INFINITY);
    }
}
