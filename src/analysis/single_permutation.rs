//! One permutation judged on its own (`check --single`), as the 1969 US draft lottery was: is
//! its order correlated with the starting order, or unusual in any statistic of the whole order?
//!
//! A single permutation has no frequencies to count, so each test asks how extreme one value
//! is under a uniform shuffle, two-sided: p = min(1, 2·min(P(X ≤ x), P(X ≥ x))) (the doubled
//! smaller tail). The family, adjusted by Holm (1979):
//! * Spearman's ρ with the starting order — exact by enumeration up to
//!   [`SPEARMAN_EXACT_DECK`] cards, an Edgeworth expansion with exact moments beyond
//!   ([`crate::theory::rank_statistics::spearman`]);
//! * every [`Statistic`] with its exact law at this deck size (counts out of n!, summed exactly,
//!   so a tail far below 1e−300 keeps its logarithm); beyond the law's deck, the inversions
//!   (Kendall's τ) and the footrule by the normal law with their exact mean and variance
//!   (inversions: n(n − 1)/4 and n(n − 1)(2n + 5)/72, Kendall 1938; footrule: Diaconis &
//!   Graham 1977) with a continuity correction, said so in the test's method; the longest
//!   increasing subsequence is then left out.

use num_bigint::BigUint;
use serde::Serialize;

use crate::engine::algorithms::Card;
use crate::stats::holm::holm_adjust;
use crate::stats::normal::normal_cdf;
use crate::stats::pvalue::PValue;
use crate::theory::permutation_statistics::{
    Statistic, StatisticValues, big_factorial, ratio_to_ln, scratch_len,
};
use crate::theory::rank_statistics::{
    PValueMethod, SPEARMAN_EXACT_DECK, footrule_moments, spearman,
};

/// One test of a single permutation.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SingleTest {
    /// `spearman-rho` or a statistic's name.
    pub name: &'static str,
    /// What it measures.
    pub definition: &'static str,
    /// The permutation's value.
    pub value: f64,
    /// The mean under a uniform shuffle.
    pub uniform_mean: f64,
    /// The standard deviation under a uniform shuffle.
    pub uniform_sd: f64,
    /// `exact`, `edgeworth` or `normal` (the last two are approximations).
    pub method: &'static str,
    /// The two-sided p-value (null below 1e-300; see `log10_p_value`).
    pub p_value: Option<f64>,
    /// log10 of the p-value.
    pub log10_p_value: f64,
    /// Holm-adjusted over the family (null below 1e-300).
    pub adjusted_p_value: Option<f64>,
    /// log10 of the adjusted p-value.
    pub log10_adjusted_p_value: f64,
    /// Whether the adjusted p-value is at most alpha.
    pub rejected: bool,
}

/// The tests of one permutation (`deck[position] = card`, at least 2 cards) at family-wise
/// level `alpha`, in report order: Spearman's ρ, then the statistics.
pub fn single_permutation_tests(deck: &[Card], alpha: f64) -> Vec<SingleTest> {
    let n = deck.len();
    let nf = n as f64;
    let mut drafts: Vec<(SingleTest, PValue)> = Vec::new();
    let rho = spearman(deck);
    drafts.push(draft(
        "spearman-rho",
        "Spearman's rank correlation between positions and cards: 1 - 6 Σ d² / (n(n² - 1))",
        rho.rho,
        0.0,
        (1.0 / (nf - 1.0)).sqrt(),
        if n <= SPEARMAN_EXACT_DECK {
            PValueMethod::Exact.name()
        } else {
            PValueMethod::Edgeworth.name()
        },
        at_least_one_deck(PValue::from_p(rho.p_value), n),
    ));
    let mut scratch = vec![0; scratch_len(n)];
    let values = StatisticValues::of(deck, &mut scratch);
    for statistic in Statistic::ALL {
        let value = if statistic.tallied_at(n) {
            values.get(statistic)
        } else {
            statistic.value(deck, &mut scratch)
        };
        let test = if statistic.tallied_at(n) {
            exact_test(statistic, n, value)
        } else {
            let (mean, variance) = match statistic {
                Statistic::Inversions => (
                    nf * (nf - 1.0) / 4.0,
                    nf * (nf - 1.0) * (2.0 * nf + 5.0) / 72.0,
                ),
                Statistic::Footrule => footrule_moments(n),
                _ => continue,
            };
            // The footrule moves in steps of 2, the inversions in steps of 1.
            let step = if statistic == Statistic::Footrule {
                2.0
            } else {
                1.0
            };
            let sd = variance.sqrt();
            let x = value as f64;
            let lower = normal_cdf((x + step / 2.0 - mean) / sd);
            let upper = normal_cdf((mean - (x - step / 2.0)) / sd);
            (
                mean,
                sd,
                "normal",
                at_least_one_deck(PValue::from_p((2.0 * lower.min(upper)).min(1.0)), n),
            )
        };
        let (mean, sd, method, p) = test;
        drafts.push(draft(
            statistic.name(),
            statistic.definition(),
            value as f64,
            mean,
            sd,
            method,
            p,
        ));
    }
    let adjusted = holm_adjust(&drafts.iter().map(|(_, p)| *p).collect::<Vec<_>>());
    drafts
        .into_iter()
        .zip(adjusted)
        .map(|((mut test, _), adjusted)| {
            test.adjusted_p_value = plain(adjusted);
            test.log10_adjusted_p_value = adjusted.log10;
            test.rejected = adjusted.is_below(alpha);
            test
        })
        .collect()
}

/// An approximate two-sided p-value `p` of a statistic of one deck of `n` cards, never below
/// 2/n!: each tail holds at least the deck observed, of probability 1/n! under uniform. (The
/// Edgeworth and normal tails of the starting order of 20 cards or more fall below it, to 0
/// in doubles: the report printed p = 0 and JSON a null.)
fn at_least_one_deck(p: PValue, n: usize) -> PValue {
    let ln_orderings: f64 = (2..=n).map(|k| (k as f64).ln()).sum();
    let floor = PValue::from_ln(std::f64::consts::LN_2 - ln_orderings);
    if p.log10 < floor.log10 { floor } else { p }
}

/// The exact two-sided test of a statistic's value: `(mean, sd, method, p)`.
fn exact_test(statistic: Statistic, n: usize, value: usize) -> (f64, f64, &'static str, PValue) {
    let counts = statistic.exact_counts(n);
    let total = big_factorial(n);
    let lower: BigUint = counts[..=value.min(counts.len() - 1)].iter().sum();
    let upper: BigUint = counts.get(value..).into_iter().flatten().sum();
    let tail = (lower.min(upper)) << 1u32;
    let p = if tail >= total {
        PValue::ONE
    } else {
        PValue::from_ln(ratio_to_ln(&tail, &total))
    };
    let law = statistic.uniform_law(n);
    let mean: f64 = law.iter().enumerate().map(|(v, p)| v as f64 * p).sum();
    let variance: f64 = law
        .iter()
        .enumerate()
        .map(|(v, p)| (v as f64 - mean).powi(2) * p)
        .sum();
    (mean, variance.sqrt(), PValueMethod::Exact.name(), p)
}

fn draft(
    name: &'static str,
    definition: &'static str,
    value: f64,
    uniform_mean: f64,
    uniform_sd: f64,
    method: &'static str,
    p: PValue,
) -> (SingleTest, PValue) {
    (
        SingleTest {
            name,
            definition,
            value,
            uniform_mean,
            uniform_sd,
            method,
            p_value: plain(p),
            log10_p_value: p.log10,
            adjusted_p_value: None,
            log10_adjusted_p_value: 0.0,
            rejected: false,
        },
        p,
    )
}

/// A p-value as a plain number, or None below 1e-300 (its log10 is reported beside it).
fn plain(p: PValue) -> Option<f64> {
    (p.log10 >= -300.0).then_some(p.p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starting_order_is_rejected_by_every_rank_statistic() {
        let identity: Vec<Card> = (0..52).collect();
        let tests = single_permutation_tests(&identity, 0.001);
        let by_name = |name: &str| tests.iter().find(|t| t.name == name).unwrap();
        assert_eq!(by_name("spearman-rho").value, 1.0);
        // No inversion: P(I ≤ 0) = 1/52!, doubled.
        let inversions = by_name("inversions");
        assert_eq!(inversions.value, 0.0);
        let ln_52: f64 = (2..=52).map(|i| (i as f64).ln()).sum();
        let want = (2f64.ln() - ln_52) / std::f64::consts::LN_10;
        assert!((inversions.log10_p_value - want).abs() < 1e-9);
        assert!(inversions.rejected && by_name("longest-increasing").rejected);
        assert_eq!(tests.len(), 1 + Statistic::ALL.len());
    }

    #[test]
    fn an_approximate_p_value_is_never_below_one_deck_in_n_factorial_twice() {
        // ρ = 1 for the starting order of 20 cards: the Edgeworth tail is 0 in doubles; P(ρ ≥ 1)
        // is 1/20! exactly (one deck), 20! = 2,432,902,008,176,640,000 (published), doubled.
        let identity: Vec<Card> = (0..20).collect();
        let tests = single_permutation_tests(&identity, 0.001);
        let rho = tests.iter().find(|t| t.name == "spearman-rho").unwrap();
        assert_eq!(rho.method, "edgeworth");
        let want = (2.0 / 2_432_902_008_176_640_000f64).log10();
        assert!((rho.log10_p_value - want).abs() < 1e-9, "{}", rho.log10_p_value);
        assert!(rho.rejected);
        // 1000 cards reversed: every p-value is finite (the JSON never holds a null), and none
        // is below 2/1000!.
        let reversal: Vec<Card> = (0..1000).rev().collect();
        let ln_1000: f64 = (2..=1000).map(|i| (i as f64).ln()).sum();
        let floor = (2f64.ln() - ln_1000) / std::f64::consts::LN_10;
        for test in single_permutation_tests(&reversal, 0.001) {
            assert!(test.log10_p_value.is_finite(), "{}", test.name);
            assert!(test.log10_p_value >= floor - 1e-9, "{}", test.name);
        }
    }

    #[test]
    fn a_two_sided_exact_p_value_doubles_the_smaller_tail() {
        // 4 cards, 1 inversion: P(I ≤ 1) = (1 + 3)/24 (Mahonian row 1 3 5 6 5 3 1), doubled.
        let deck: Vec<Card> = vec![1, 0, 2, 3];
        let tests = single_permutation_tests(&deck, 0.05);
        let inversions = tests.iter().find(|t| t.name == "inversions").unwrap();
        assert!((inversions.p_value.unwrap() - 8.0 / 24.0).abs() < 1e-15);
        assert_eq!(inversions.method, "exact");
        // The median value's p-value is capped at 1.
        let deck: Vec<Card> = vec![2, 0, 3, 1]; // 3 inversions
        let tests = single_permutation_tests(&deck, 0.05);
        let inversions = tests.iter().find(|t| t.name == "inversions").unwrap();
        assert_eq!(inversions.p_value, Some(1.0));
    }

    #[test]
    fn large_decks_use_the_normal_law_beyond_the_exact_ones() {
        let deck: Vec<Card> = (0..400).rev().collect();
        let tests = single_permutation_tests(&deck, 0.001);
        let by_name = |name: &str| tests.iter().find(|t| t.name == name);
        assert_eq!(by_name("inversions").unwrap().method, "normal");
        assert_eq!(by_name("footrule").unwrap().method, "normal");
        assert_eq!(by_name("spearman-rho").unwrap().method, "edgeworth");
        assert!(by_name("longest-increasing").is_none());
        assert_eq!(by_name("descents").unwrap().method, "exact");
    }
}
