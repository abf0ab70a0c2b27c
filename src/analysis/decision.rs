//! The decision on a family of tests: Holm's step-down adjustment (Holm 1979), each test
//! rejected when its adjusted p-value is at most alpha, and the one-sentence verdict.

use serde::Serialize;

use super::test_note::TestNote;
use super::{Draft, Question, TestMethod, plain};
use crate::stats::holm::holm_adjust;
use crate::stats::pvalue::PValue;

/// One test of the family, decided.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct TestResult {
    /// The question the test answers: `law-of-one-deal`, `dependence-between-deals` or
    /// `reach`.
    pub question: Question,
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
            question: draft.question,
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

/// The verdict: for each question the family asks (the law of one deal, dependence between
/// deals, reach), which tests reject `hypothesis` at `alpha` and the strongest of them, and the
/// questions asked where nothing was detected; or that nothing rejects, with the smallest
/// Holm-adjusted p-value.
pub fn verdict_sentence(tests: &[TestResult], alpha: f64, hypothesis: &str) -> String {
    let strongest = |tests: &[&TestResult]| -> Option<(String, String)> {
        tests
            .iter()
            .min_by(|a, b| {
                a.log10_adjusted_p_value
                    .total_cmp(&b.log10_adjusted_p_value)
            })
            .map(|t| (t.name.clone(), format_p(t.log10_adjusted_p_value)))
    };
    let asked: Vec<Question> = Question::ALL
        .into_iter()
        .filter(|&q| tests.iter().any(|t| t.question == q))
        .collect();
    if bias_detected(tests) {
        let mut found = Vec::new();
        let mut clear = Vec::new();
        for &question in &asked {
            let of_question: Vec<&TestResult> =
                tests.iter().filter(|t| t.question == question).collect();
            let rejected: Vec<&TestResult> =
                of_question.iter().copied().filter(|t| t.rejected).collect();
            if rejected.is_empty() {
                clear.push(question.words());
                continue;
            }
            let (name, p) = strongest(&rejected).expect("one test rejected");
            let names = rejected_names(&rejected, &of_question);
            let detail = if rejected.len() == 1 {
                format!("Holm-adjusted p = {p}")
            } else {
                format!("strongest: {name}, Holm-adjusted p = {p}")
            };
            found.push(format!(
                "on {}, by {} ({detail})",
                question.words(),
                names.join(", ")
            ));
        }
        let mut sentence = format!(
            "bias detected: {hypothesis} is rejected at alpha = {alpha} {}",
            found.join(", and ")
        );
        if !clear.is_empty() {
            sentence.push_str(&format!("; not detected: {}", clear.join(", ")));
        }
        sentence
    } else {
        let all: Vec<&TestResult> = tests.iter().collect();
        let (_, p) = strongest(&all).expect("the family is never empty");
        let words: Vec<&str> = asked.iter().map(|q| q.words()).collect();
        format!(
            "no bias detected: nothing rejects {hypothesis} at alpha = {alpha} on {} (smallest \
             Holm-adjusted p = {p})",
            join_or(&words)
        )
    }
}

/// The names of the `rejected` tests among `of_question`; on a large deck the position tests
/// are counted rather than listed one by one.
fn rejected_names(rejected: &[&TestResult], of_question: &[&TestResult]) -> Vec<String> {
    let is_position = |name: &str| name.starts_with("position ");
    let mut names: Vec<String> = rejected.iter().map(|t| t.name.clone()).collect();
    let positions = names.iter().filter(|name| is_position(name)).count();
    if positions > 6 {
        let total = of_question.iter().filter(|t| is_position(&t.name)).count();
        names.retain(|name| !is_position(name));
        names.insert(0, format!("{positions} of the {total} position tests"));
    }
    names
}

/// "a", "a or b", "a, b or c".
fn join_or(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
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
            question: Question::OneDeal,
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
            "bias detected: uniform is rejected at alpha = 0.035 on the law of one deal, by b \
             (Holm-adjusted p = 0.0300)"
        );
    }

    #[test]
    fn a_family_that_rejects_nothing_says_so_with_its_smallest_adjusted_p() {
        let tests = decide(vec![draft("a", 0.5), draft("b", 0.2)], 0.01);
        assert!(!bias_detected(&tests));
        assert_eq!(
            verdict_sentence(&tests, 0.01, "uniform"),
            "no bias detected: nothing rejects uniform at alpha = 0.01 on the law of one deal \
             (smallest Holm-adjusted p = 0.4000)"
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
                .starts_with("bias detected: uniform is rejected at alpha = 0.01 on the law of one deal, by 8 of the 8 position tests (strongest: position 0")
        );
    }

    #[test]
    fn p_values_read_as_decimals_then_scientific_then_powers_of_ten() {
        assert_eq!(format_p(f64::NEG_INFINITY), "0");
        assert_eq!(format_p(0.5f64.log10()), "0.5000");
        assert_eq!(format_p(-12.0), "1.00e-12");
        assert_eq!(format_p(-4436.2), "10^-4436.2");
    }

    #[test]
    fn a_verdict_names_each_question_that_failed_and_those_that_did_not() {
        let drafts = vec![
            draft("permutations", 1e-9),
            draft("serial slots", 1e-6).answering(Question::Dependence),
            draft("serial matches", 0.3).answering(Question::Dependence),
            draft("repeated decks", 0.8).answering(Question::Reach),
        ];
        let tests = decide(drafts, 0.01);
        assert_eq!(tests[1].question, Question::Dependence);
        assert_eq!(
            verdict_sentence(&tests, 0.01, "uniform"),
            "bias detected: uniform is rejected at alpha = 0.01 on the law of one deal, by \
             permutations (Holm-adjusted p = 4.00e-9), and on dependence between deals, by \
             serial slots (Holm-adjusted p = 3.00e-6); not detected: too few reachable decks"
        );
        let calm = decide(
            vec![
                draft("permutations", 0.5),
                draft("serial slots", 0.4).answering(Question::Dependence),
            ],
            0.01,
        );
        assert_eq!(
            verdict_sentence(&calm, 0.01, "uniform"),
            "no bias detected: nothing rejects uniform at alpha = 0.01 on the law of one deal \
             or dependence between deals (smallest Holm-adjusted p = 0.8000)"
        );
    }
}
