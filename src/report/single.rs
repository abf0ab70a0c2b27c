//! The report of `check --single`: one permutation (a lottery's draw, a dealt deck) judged on
//! its own by rank correlation with the starting order and the statistics of the whole order.

use schemars::JsonSchema;
use serde::Serialize;

use crate::analysis::single_permutation::{SingleTest, single_permutation_tests};
use crate::engine::algorithms::Card;

/// Everything `check --single` says of one permutation.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SingleReport {
    /// `check`.
    pub command: &'static str,
    /// The tool's version.
    pub version: &'static str,
    /// Number of cards (items) in the permutation.
    pub deck: usize,
    /// Where it was read.
    pub sources: Vec<String>,
    /// The permutation, 0-based: `permutation[position]` is the card (item) found there.
    pub permutation: Vec<usize>,
    /// How its cards were numbered (`0-based`, `1-based`, `labels`, `names`).
    pub numbering: String,
    /// Family-wise level of the verdict.
    pub alpha: f64,
    /// Whether some test of the family rejects a uniform shuffle at `alpha` (Holm).
    pub bias_detected: bool,
    /// The verdict as a sentence.
    pub verdict: String,
    /// Spearman's ρ between positions and cards.
    pub spearman_rho: f64,
    /// Kendall's τ = 1 − 4·inversions/(n(n − 1)).
    pub kendall_tau: f64,
    /// The family of tests, Spearman's ρ first.
    pub tests: Vec<SingleTest>,
    /// What the reader should know of the methods.
    pub notes: Vec<String>,
}

/// Judge one permutation (`deck[position] = card`, 0-based, at least 2 cards) at level `alpha`.
pub fn build_single_report(
    deck: &[Card],
    sources: Vec<String>,
    numbering: String,
    alpha: f64,
) -> SingleReport {
    let n = deck.len();
    let tests = single_permutation_tests(deck, alpha);
    let rejected: Vec<&str> = tests
        .iter()
        .filter(|t| t.rejected)
        .map(|t| t.name)
        .collect();
    let spearman_rho = tests[0].value;
    let inversions = tests
        .iter()
        .find(|t| t.name == "inversions")
        .map_or(f64::NAN, |t| t.value);
    let pairs = (n * (n - 1)) as f64 / 2.0;
    let verdict = if rejected.is_empty() {
        format!(
            "no bias detected: no test rejects a uniform shuffle at alpha = {alpha} (Holm); one \
             permutation can only show a gross departure"
        )
    } else {
        format!(
            "bias detected: a uniform shuffle is rejected at alpha = {alpha} (Holm) by {}",
            rejected.join(", ")
        )
    };
    let mut notes = vec![
        "each p-value is two-sided: twice the smaller tail of the statistic's law under a uniform \
         shuffle, at most 1; the family is adjusted by Holm (1979)"
            .to_string(),
    ];
    if tests.iter().any(|t| t.method != "exact") {
        notes.push(
            "approximate p-values (marked ≈ in tables): `edgeworth` for Spearman's rho beyond 10 cards (exact variance \
             1/(n-1) and exact fourth moment, continuity-corrected), `normal` for inversions and \
             the footrule beyond the decks whose exact laws are computed (exact mean and \
             variance, continuity-corrected); every other p-value is exact"
                .to_string(),
        );
    }
    SingleReport {
        command: "check",
        version: env!("CARGO_PKG_VERSION"),
        deck: n,
        sources,
        permutation: deck.iter().map(|&card| usize::from(card)).collect(),
        numbering,
        alpha,
        bias_detected: !rejected.is_empty(),
        verdict,
        spearman_rho,
        kendall_tau: 1.0 - 2.0 * inversions / pairs,
        tests,
        notes,
    }
}
