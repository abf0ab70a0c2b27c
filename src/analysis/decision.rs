//! The decision on a family of tests: Holm's step-down adjustment (Holm 1979), each test
//! rejected when its adjusted p-value is at most alpha, and the one-sentence verdict.

use serde::Serialize;

use super::test_note::TestNote;
use super::{Draft, TestMethod, plain};
use crate::stats::holm::holm_adjust;
use crate::stats::pvalue::PValue;

/// One test of the family, decided.
#[derive(Debug, Clone, Serialize)]
pub struct TestResult {
    /// `permutations`, `identity` or `position K`.
    pub name: String,
    /// The method: `pearson-chi-square`, `exact-binomial-two-sided` (the identity), or
    /// `exact-binomial-outside-mode` (a statistic whose cells cannot be pooled into two
    /// expected at least 5 times: the exact two-sided binomial test of the number of shuffles
    /// outside the statistic's likeliest value, whose probability is 1 − P(that value)).
    pub method: TestMethod,
    /// χ² statistic, or the observed count for the binomial tests.
    pub statistic: f64,
    /// Degrees of freedom (χ² tests only).
    pub df: Option<f64>,
    /// The p-value, or null when it is below 1e-300 (then read `log10_p_value`).
    pub p_value: Option<f64>,
    /// log10 of the p-value; always present (null only for an impossible outcome, p = 0).
    pub log10_p_value: f64,
    /// The Holm–Bonferroni adjusted p-value (null below 1e-300).
    pub adjusted_p_value: Option<f64>,
    /// log10 of the adjusted p-value.
    pub log10_adjusted_p_value: f64,
    /// Whether the adjusted p-value is at most alpha (false when `descriptive`).
    pub rejected: bool,
    /// True when the test only describes the data and takes no part in the verdict: after a
    /// `--until-decided` run stopped on its sequential test, whose sample size the data chose
    /// (JSON: present only then).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub descriptive: bool,
    /// Why a test failed outright or could not be run, when it did.
    pub note: Option<TestNote>,
}

/// Adjust a family of drafts with Holm's method (Holm 1979) and decide each at `alpha`: the
/// family-wise error rate stays at most alpha whatever the dependence between the tests.
pub fn decide(drafts: Vec<Draft>, alpha: f64) -> Vec<TestResult> {
    let raw: Vec<PValue> = drafts.iter().map(|d| d.p).collect();
    let adjusted = holm_adjust(&raw);
    drafts
        .into_iter()
        .zip(adjusted)
        .map(|(draft, adjusted)| TestResult {
            name: draft.name,
            method: draft.method,
            statistic: draft.statistic,
            df: draft.df,
            p_value: plain(draft.p),
            log10_p_value: draft.p.log10,
            adjusted_p_value: plain(adjusted),
            log10_adjusted_p_value: adjusted.log10,
            rejected: adjusted.p <= alpha,
            descriptive: false,
            note: draft.note,
        })
        .collect()
}

/// Whether any test of the family was rejected.
pub fn bias_detected(tests: &[TestResult]) -> bool {
    tests.iter().any(|t| t.rejected)
}

/// The verdict: which tests reject `hypothesis` at `alpha` and the strongest of them, or that
/// none does, with the smallest Holm-adjusted p-value either way.
pub fn verdict_sentence(tests: &[TestResult], alpha: f64, hypothesis: &str) -> String {
    let strongest = tests
        .iter()
        .min_by(|a, b| {
            a.log10_adjusted_p_value
                .total_cmp(&b.log10_adjusted_p_value)
        })
        .expect("the family is never empty");
    let p = format_p(strongest.log10_adjusted_p_value);
    if bias_detected(tests) {
        let mut rejected: Vec<String> = tests
            .iter()
            .filter(|t| t.rejected)
            .map(|t| t.name.clone())
            .collect();
        // On a large deck, name the position tests by their number rather than one by one.
        let positions = rejected
            .iter()
            .filter(|name| name.starts_with("position "))
            .count();
        if positions > 6 {
            let total = tests
                .iter()
                .filter(|t| t.name.starts_with("position "))
                .count();
            rejected.retain(|name| !name.starts_with("position "));
            rejected.insert(0, format!("{positions} of the {total} position tests"));
        }
        format!(
            "bias detected: {hypothesis} is rejected at alpha = {alpha} by {} (strongest: {}, \
             Holm-adjusted p = {p})",
            rejected.join(", "),
            strongest.name
        )
    } else {
        format!(
            "no bias detected: nothing rejects {hypothesis} at alpha = {alpha} (smallest \
             Holm-adjusted p = {p})"
        )
    }
}

/// A p-value for humans from its log10: `0.2314`, `3.1e-12`, `10^-4436.2`, or `0`.
pub fn format_p(log10: f64) -> String {
    if log10 == f64::NEG_INFINITY {
        "0".to_string()
    } else if log10 >= -300.0 {
        let p = 10f64.powf(log10);
        if p >= 1e-4 {
            format!("{p:.4}")
        } else {
            format!("{p:.2e}")
        }
    } else {
        format!("10^{log10:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn draft(name: &str, p: f64) -> Draft {
        Draft {
            name: name.to_string(),
            method: TestMethod::PearsonChiSquare,
            statistic: 1.0,
            df: Some(1.0),
            p: PValue::from_p(p),
            note: None,
        }
    }

    #[test]
    fn holm_multiplies_the_smallest_p_by_the_family_size_and_steps_down() {
        // Holm (1979): sorted p = 0.01, 0.02, 0.04 are adjusted to 3·0.01 = 0.03,
        // max(0.03, 2·0.02) = 0.04, max(0.04, 1·0.04) = 0.04; at alpha 0.035 only the first
        // is rejected.
        let tests = decide(
            vec![draft("a", 0.04), draft("b", 0.01), draft("c", 0.02)],
            0.035,
        );
        let adjusted: Vec<f64> = tests.iter().map(|t| t.adjusted_p_value.unwrap()).collect();
        assert_relative_eq!(adjusted[0], 0.04, max_relative = 1e-12);
        assert_relative_eq!(adjusted[1], 0.03, max_relative = 1e-12);
        assert_relative_eq!(adjusted[2], 0.04, max_relative = 1e-12);
        let rejected: Vec<bool> = tests.iter().map(|t| t.rejected).collect();
        assert_eq!(rejected, vec![false, true, false]);
        assert!(bias_detected(&tests));
        assert_eq!(
            verdict_sentence(&tests, 0.035, "uniform"),
            "bias detected: uniform is rejected at alpha = 0.035 by b (strongest: b, \
             Holm-adjusted p = 0.0300)"
        );
    }

    #[test]
    fn a_family_that_rejects_nothing_says_so_with_its_smallest_adjusted_p() {
        let tests = decide(vec![draft("a", 0.5), draft("b", 0.2)], 0.01);
        assert!(!bias_detected(&tests));
        assert_eq!(
            verdict_sentence(&tests, 0.01, "uniform"),
            "no bias detected: nothing rejects uniform at alpha = 0.01 (smallest \
             Holm-adjusted p = 0.4000)"
        );
    }

    #[test]
    fn many_rejected_positions_are_counted_rather_than_listed() {
        let drafts: Vec<Draft> = (0..8)
            .map(|k| draft(&format!("position {k}"), 1e-9))
            .chain([draft("identity", 0.9)])
            .collect();
        let tests = decide(drafts, 0.01);
        assert!(
            verdict_sentence(&tests, 0.01, "uniform")
                .starts_with("bias detected: uniform is rejected at alpha = 0.01 by 8 of the 8 position tests (strongest: position 0")
        );
    }

    #[test]
    fn p_values_read_as_decimals_then_scientific_then_powers_of_ten() {
        assert_eq!(format_p(f64::NEG_INFINITY), "0");
        assert_eq!(format_p(0.5f64.log10()), "0.5000");
        assert_eq!(format_p(-12.0), "1.00e-12");
        assert_eq!(format_p(-4436.2), "10^-4436.2");
    }
}
