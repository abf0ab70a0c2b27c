//! What an exact law implies for detection: its χ² noncentrality per trial against uniform
//! (Cohen's w²), the power of the permutations test at a given number of trials, and the
//! trials that 99% power takes (noncentral χ²: Patnaik 1949, via [`crate::stats::power`]).

use std::sync::Arc;

use serde::Serialize;

use crate::stats::power::{detection_power, noncentrality_for_power, trials_for_power};
use crate::theory::exact::{ExactError, Law};

/// The power that "trials needed to detect" refers to.
pub const TARGET_POWER: f64 = 0.99;

/// What is known of the algorithm's exact law, and what it implies for detection.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ModelSummary {
    /// Whether the exact law was computed.
    pub available: bool,
    /// Why not, when it was not.
    pub unavailable_reason: Option<String>,
    /// Whether its probabilities are exact fractions (otherwise f64, relative error ≤ 1e-12).
    pub exact_fractions: bool,
    /// Choice paths the law accounts for (u64::MAX standing for that many or more).
    pub paths: Option<u64>,
    /// How it was computed: `path-walk` (every choice path run), `step-propagation` (the law
    /// carried one choice at a time, for shuffles whose choices act on positions),
    /// `convolution` (several passes: the one-pass law convolved with itself) or
    /// `uniform-by-construction` (Fisher–Yates with exactly uniform draws: uniform by a theorem,
    /// which the tests check against the walk of its code).
    pub method: Option<&'static str>,
    /// Permutations with non-zero probability.
    pub support_size: Option<usize>,
    /// Cohen's w² = Σ (p − u)²/u: the χ² noncentrality per trial of the law against uniform.
    pub noncentrality_per_trial: Option<f64>,
    /// Probability that this many trials detect the bias (the permutations test alone at the
    /// Bonferroni level alpha/m, a lower bound for the whole family; noncentral χ²). Null when
    /// the law is uniform (nothing to detect) or for `theory` (no trials).
    pub detection_power: Option<f64>,
    /// Trials needed for 99% detection power at the same level (null when there is no bias,
    /// or when they are more than 2^64).
    pub trials_for_99_power: Option<u64>,
    /// log10 of the trials for 99% power when they are more than 2^64 (a bias of one word in
    /// 2^32 needs about 10^20); left out of JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log10_trials_for_99_power: Option<f64>,
    /// The level of the permutations test's upper tail used for power: alpha / (2 · number of
    /// tests in the family) — the test's share of alpha under Bonferroni, halved because the
    /// test is two-sided (its lower tail rejects too-regular counts).
    pub power_alpha: f64,
}

/// log10 of the trials a bias of `w2` per trial needs for 99% power, λ/w² (λ the noncentrality
/// that gives 99% power), when that is more than 2^64 trials; None otherwise.
fn beyond_counting(df: f64, alpha: f64, w2: f64, biased: bool) -> Option<f64> {
    if !biased {
        return None;
    }
    let trials = noncentrality_for_power(df, alpha, TARGET_POWER) / w2;
    (trials.is_finite() && trials >= u64::MAX as f64).then(|| trials.log10())
}

/// Power figures of a law against uniform, for a family of `tests` tests at level `alpha`: the
/// permutations test (n! − 1 degrees of freedom), whose upper tail has the Bonferroni level
/// alpha/(2·tests) (two-sided), with
/// noncentrality λ = trials·w² (Cohen 1988). `law` is None without an algorithm, an error when
/// the law could not be computed; `trials` is None for `theory`.
pub fn power_summary(
    law: Option<&Result<Arc<Law>, ExactError>>,
    trials: Option<u64>,
    alpha: f64,
    tests: usize,
) -> ModelSummary {
    // The permutations test is two-sided: its upper tail rejects at half its share.
    let power_alpha = alpha / tests as f64 / 2.0;
    match law {
        Some(Ok(law)) => {
            let df = (law.probabilities.len() - 1) as f64;
            let w2 = law.noncentrality_per_trial();
            // An exact law is biased whenever w² > 0 (it is computed exactly); a float law within
            // rounding of uniform has nothing to detect.
            let biased = if law.exact.is_some() {
                w2 > 0.0
            } else {
                w2 > 1e-12
            };
            ModelSummary {
                available: true,
                unavailable_reason: None,
                exact_fractions: law.exact.is_some(),
                paths: Some(law.paths),
                method: Some(law.method),
                support_size: Some(law.support_size()),
                noncentrality_per_trial: Some(if biased { w2 } else { 0.0 }),
                detection_power: trials
                    .filter(|_| biased)
                    .map(|t| detection_power(df, power_alpha, w2, t as f64)),
                trials_for_99_power: if biased {
                    trials_for_power(df, power_alpha, w2, TARGET_POWER)
                } else {
                    None
                },
                log10_trials_for_99_power: beyond_counting(df, power_alpha, w2, biased),
                power_alpha,
            }
        }
        _ => ModelSummary {
            available: false,
            unavailable_reason: law
                .and_then(|law| law.as_ref().err())
                .map(ToString::to_string),
            exact_fractions: false,
            paths: None,
            method: None,
            support_size: None,
            noncentrality_per_trial: None,
            detection_power: None,
            trials_for_99_power: None,
            log10_trials_for_99_power: None,
            power_alpha,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn law(probabilities: Vec<f64>) -> Result<Arc<Law>, ExactError> {
        Ok(Arc::new(Law {
            deck: 2,
            probabilities: probabilities.into(),
            exact: None,
            paths: 4,
            method: "path-walk",
        }))
    }

    #[test]
    fn a_biased_law_has_cohens_w2_and_the_power_of_its_noncentral_chi_square() {
        // P = (3/4, 1/4) against u = 1/2: w² = Σ (p − u)²/u = 2 · (1/16)/(1/2) = 1/4. Four
        // tests at alpha 0.01 give the Bonferroni level 0.0025, whose half, 0.00125, is the
        // upper tail's of the two-sided permutations test; 1 degree of freedom.
        let summary = power_summary(Some(&law(vec![0.75, 0.25])), Some(100), 0.01, 4);
        assert!(summary.available);
        assert_eq!(summary.power_alpha, 0.00125);
        assert_relative_eq!(
            summary.noncentrality_per_trial.unwrap(),
            0.25,
            max_relative = 1e-15
        );
        assert_eq!(
            summary.detection_power,
            Some(detection_power(1.0, 0.00125, 0.25, 100.0))
        );
        assert_eq!(
            summary.trials_for_99_power,
            trials_for_power(1.0, 0.00125, 0.25, TARGET_POWER)
        );
        assert_eq!(summary.support_size, Some(2));
    }

    #[test]
    fn a_uniform_or_unknown_law_has_nothing_to_detect() {
        let uniform = power_summary(Some(&law(vec![0.5, 0.5])), Some(100), 0.01, 4);
        assert_eq!(uniform.noncentrality_per_trial, Some(0.0));
        assert_eq!(uniform.detection_power, None);
        assert_eq!(uniform.trials_for_99_power, None);
        let unknown = power_summary(None, Some(100), 0.01, 4);
        assert!(!unknown.available);
        assert_eq!(unknown.unavailable_reason, None);
        assert_eq!(unknown.power_alpha, 0.00125);
    }
}
