//! The analysis of a tally: the tests of the family, Holm's decision and the verdict, and the
//! power figures of an exact law — pure functions over counts and probabilities that never know
//! where the counts came from (a simulation, `check`'s reader or a saved tally).
//!
//! [`crate::report`] builds its models by calling these; this module imports only
//! [`crate::stats`], [`crate::theory`] and [`crate::engine`], never the report or the exporters.

pub mod deal_stream;
pub mod diagnosis;
pub mod dealt_hand;
pub mod decision;
pub mod figures;
pub mod goodness_of_fit;
pub mod identity;
pub mod mallows;
pub mod poker;
pub mod power;
pub mod predictability;
pub mod ruled_out;
pub mod sequential;
pub mod single_permutation;
pub mod test_note;

use serde::Serialize;

use crate::stats::pvalue::PValue;
use test_note::TestNote;

/// Pearson's χ² is trusted when every expected count is at least this (Cochran 1954).
pub const MIN_EXPECTED_COUNT: f64 = 5.0;

/// How a test of the family computes its p-value; serialised as today's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TestMethod {
    /// Pearson's χ² goodness-of-fit test (`pearson-chi-square`).
    PearsonChiSquare,
    /// Pearson's χ² goodness-of-fit test with both tails: counts too far from the law and too
    /// close to it (`pearson-chi-square-two-sided`).
    PearsonChiSquareTwoSided,
    /// Pearson's χ² test of independence of a contingency table, expected counts from its
    /// margins (`pearson-chi-square-independence`).
    #[serde(rename = "pearson-chi-square-independence")]
    PearsonIndependence,
    /// The exact two-sided binomial test of the identity count (`exact-binomial-two-sided`).
    ExactBinomialTwoSided,
    /// The exact two-sided binomial test of the shuffles outside a statistic's likeliest value
    /// (`exact-binomial-outside-mode`).
    ExactBinomialOutsideMode,
    /// The two-sided test of a count against its Poisson law: the repeated deals
    /// (`poisson-two-sided`).
    PoissonTwoSided,
    /// The two-sided test of the number of distinct deals against its normal approximation with
    /// the exact occupancy mean and variance (`normal-occupancy`).
    NormalOccupancy,
    /// A statistic's two-sided test against its normal approximation (`normal-two-sided`): the
    /// serial matches, conditional on the law of one deal.
    NormalTwoSided,
    /// The serial Mallows MMD's two-sided test against the law of the summed kernel of
    /// independent uniform pairs, twice the smaller tail (`mean-kernel-law-two-sided`; see
    /// [`crate::theory::mean_kernel_law`]).
    MeanKernelLawTwoSided,
    /// Pearson's χ² test of independence per slot, Bonferroni over the slots
    /// (`chi-square-independence`).
    ChiSquareIndependence,
    /// No test: the family had nothing to test (`none`).
    None,
}

impl TestMethod {
    /// The name JSON and CSV show.
    pub fn name(self) -> &'static str {
        match self {
            TestMethod::PearsonChiSquare => "pearson-chi-square",
            TestMethod::PearsonChiSquareTwoSided => "pearson-chi-square-two-sided",
            TestMethod::PearsonIndependence => "pearson-chi-square-independence",
            TestMethod::ExactBinomialTwoSided => "exact-binomial-two-sided",
            TestMethod::ExactBinomialOutsideMode => "exact-binomial-outside-mode",
            TestMethod::PoissonTwoSided => "poisson-two-sided",
            TestMethod::NormalOccupancy => "normal-occupancy",
            TestMethod::ChiSquareIndependence => "chi-square-independence",
            TestMethod::NormalTwoSided => "normal-two-sided",
            TestMethod::MeanKernelLawTwoSided => "mean-kernel-law-two-sided",
            TestMethod::None => "none",
        }
    }

    /// Whether the test's statistic is a count, not a χ² (the binomial tests, the repeated
    /// pairs and the collisions).
    pub fn is_count(self) -> bool {
        self.is_binomial()
            || matches!(
                self,
                TestMethod::PoissonTwoSided | TestMethod::NormalOccupancy
            )
    }

    /// Whether the test is an exact binomial test (its statistic is a count, not a χ²).
    pub fn is_binomial(self) -> bool {
        matches!(
            self,
            TestMethod::ExactBinomialTwoSided | TestMethod::ExactBinomialOutsideMode
        )
    }
}

impl std::fmt::Display for TestMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The question a test of the family answers. A rejection is reported under its question, so
/// that a biased but independent shuffle is never said to have dependent deals, nor a small
/// seed space to have a biased law.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Question {
    /// Is one deal drawn from the hypothesis's law? Every test of the counts of single deals:
    /// the permutations, the identity, the positions, the permutation statistics, the slots
    /// and hands of dealt hands, the repeated decks of a full tally (a function of the
    /// ordering counts alone), and the serial Mallows MMD when its z is positive (against
    /// independent *uniform* decks, so a biased shuffle fails it; see [`mallows`]). JSON
    /// `law-of-one-deal`.
    #[serde(rename = "law-of-one-deal")]
    OneDeal,
    /// Are consecutive deals independent, whatever the law of one deal? The serial tests,
    /// each conditional on the observed law (see [`deal_stream`]), the poker transitions, and
    /// the serial Mallows MMD when its z is negative (consecutive decks less alike than
    /// independent ones of any law). JSON `dependence-between-deals`.
    #[serde(rename = "dependence-between-deals")]
    Dependence,
    /// Does the source reach as many decks as the hypothesis says? The repeated decks of a
    /// stream counted by fingerprints, where a small seed space shows as repeats. JSON `reach`.
    Reach,
}

impl Question {
    /// Every question, in the order reports list them.
    pub const ALL: [Question; 3] = [Question::OneDeal, Question::Dependence, Question::Reach];

    /// The question's name in JSON and CSV: `law-of-one-deal`, `dependence-between-deals`,
    /// `reach`.
    pub fn name(self) -> &'static str {
        match self {
            Question::OneDeal => "law-of-one-deal",
            Question::Dependence => "dependence-between-deals",
            Question::Reach => "reach",
        }
    }

    /// The question in words, as verdicts and tables name it.
    pub fn words(self) -> &'static str {
        match self {
            Question::OneDeal => "the law of one deal",
            Question::Dependence => "dependence between deals",
            Question::Reach => "too few reachable decks",
        }
    }
}

/// One test before Holm's adjustment: what [`goodness_of_fit`], [`identity`] and the statistic
/// tests return, and what [`decision::decide`] adjusts.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    /// The question the test answers.
    pub question: Question,
    /// `permutations`, `identity`, `position K` or a statistic's name.
    pub name: String,
    /// How the p-value was computed.
    pub method: TestMethod,
    /// χ² statistic, or the observed count for the binomial tests.
    pub statistic: f64,
    /// Degrees of freedom (χ² tests only).
    pub df: Option<f64>,
    /// The unadjusted p-value.
    pub p: PValue,
    /// Why the test failed outright or could not be run, when it did.
    pub note: Option<TestNote>,
}

impl Draft {
    /// The placeholder of an empty family: nothing to test, p = 1.
    pub fn nothing_to_test(note: TestNote) -> Self {
        Draft {
            question: Question::OneDeal,
            name: "none".to_string(),
            method: TestMethod::None,
            statistic: 0.0,
            df: None,
            p: PValue::ONE,
            note: Some(note),
        }
    }
}

impl Draft {
    /// The same test, filed under `question`.
    pub fn answering(mut self, question: Question) -> Self {
        self.question = question;
        self
    }
}

/// A p-value as the optional plain number reports show (null below 1e-300).
pub fn plain(p: PValue) -> Option<f64> {
    (p.log10 >= -300.0).then_some(p.p)
}

/// a / b, or 0 when b is not positive (no trials, no time).
pub fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_questions_name_in_csv_is_its_name_in_json() {
        for question in Question::ALL {
            assert_eq!(
                serde_json::to_value(question).unwrap(),
                question.name(),
                "{question:?}"
            );
        }
    }
}
