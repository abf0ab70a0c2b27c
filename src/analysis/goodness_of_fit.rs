//! Goodness-of-fit tests of counts against a hypothesis: Pearson's χ² over the cells the
//! hypothesis allows (orderings, positions), and the test of a permutation statistic's
//! histogram, whose cells are first pooled to an expected count of at least
//! [`MIN_EXPECTED_COUNT`] (Cochran 1954), with an exact binomial fallback when pooling leaves a
//! single cell.

use std::ops::Range;

use super::test_note::TestNote;
use super::{Draft, MIN_EXPECTED_COUNT, Question, TestMethod};
use crate::stats::binomial::binomial_two_sided_at;
use crate::stats::chi_square::{chi_square_sf, pearson_statistic};
use crate::stats::probability::{Probability, ln_sum};
use crate::stats::pvalue::PValue;
use crate::theory::permutation_statistics::{ValueLaw, pool_bins};

/// A χ² goodness-of-fit test (Pearson 1900) of observed counts against probabilities, over the
/// cells the hypothesis allows: `cells` yields (observed count, probability) pairs, and df is
/// the number of cells of positive probability minus one. Observations in cells of probability
/// 0 make the test fail outright (p = 0).
pub fn goodness_of_fit(
    name: String,
    cells: impl Iterator<Item = (u64, f64)>,
    trials: u64,
) -> Draft {
    let trials_f = trials as f64;
    let mut impossible = 0u64;
    let mut support = 0u64;
    let statistic = pearson_statistic(cells.filter_map(|(observed, p)| {
        if p > 0.0 {
            support += 1;
            Some((observed, p * trials_f))
        } else {
            impossible += observed;
            None
        }
    }));
    let df = support.saturating_sub(1) as f64;
    let (p, note) = if impossible > 0 {
        (
            PValue::ZERO,
            Some(TestNote::ImpossibleCells {
                shuffles: impossible,
            }),
        )
    } else if df == 0.0 {
        (PValue::ONE, Some(TestNote::OneCell))
    } else if trials == 0 {
        (PValue::ONE, Some(TestNote::NoTrials))
    } else {
        (chi_square_sf(statistic, df), None)
    };
    Draft {
        question: Question::OneDeal,
        name,
        method: TestMethod::PearsonChiSquare,
        statistic,
        df: Some(df),
        p,
        note,
    }
}

/// [`goodness_of_fit`] of a position's cards, pooled when the cards possible there are expected
/// fewer than [`MIN_EXPECTED_COUNT`] times each on average (fewer than 5 shuffles a card):
/// `cells` are (observed, probability) of each card in order.
///
/// Pearson's χ² is far from its chi-square law when every cell is expected much less than once
/// (Cochran 1954): at 1,000 cards and 20 shuffles (0.02 a cell) three shuffles that put one
/// card at the same place raise χ² with 999 df to about 1,280, a p-value of about 3·10⁻⁹,
/// though among 1,000 positions such a triple happens about once by chance; a fair shuffle
/// was then reported biased in most runs. Pooled by [`pool_bins`] (consecutive cards until each
/// group is expected at least 5 times, Cochran's rule, as the permutation statistics' values
/// are), χ² is close to its law at ordinary levels; in the far tail that Holm's first steps read
/// (p near 10⁻⁶) it still overstates the evidence, by a factor of about 1.5 for 20 shuffles in 4
/// groups and 4 for 50 in 10 (exact multinomial sizes), far from the 10⁶ of the unpooled test.
/// Cards the hypothesis makes impossible there still reject outright when seen, before any
/// pooling.
pub fn position_test(
    name: String,
    cells: impl Iterator<Item = (u64, f64)>,
    trials: u64,
) -> Draft {
    let cells: Vec<(u64, f64)> = cells.collect();
    let trials_f = trials as f64;
    // Sparse as a whole: fewer than 5 shuffles for each card possible here, counted in
    // integers (5·n trials exactly are not sparse, whatever 1/n rounds to). Against a model a
    // few cards may be expected less than that at any trial count; they are left to χ², as
    // they were, so that a shuffle landing on a card the model makes all but impossible still
    // counts for what it is.
    let support = cells.iter().filter(|&&(_, p)| p > 0.0).count() as u128;
    let sparse = u128::from(trials) < MIN_EXPECTED_COUNT as u128 * support;
    let impossible = cells.iter().any(|&(observed, p)| p <= 0.0 && observed > 0);
    if !sparse || impossible || trials == 0 {
        return goodness_of_fit(name, cells.into_iter(), trials);
    }
    let expected: Vec<f64> = cells.iter().map(|&(_, p)| p * trials_f).collect();
    let groups = pool_bins(&expected, MIN_EXPECTED_COUNT);
    let pooled = groups.iter().map(|group| {
        cells[group.clone()]
            .iter()
            .fold((0u64, 0.0f64), |(observed, p), cell| (observed + cell.0, p + cell.1))
    });
    let mut draft = goodness_of_fit(name, pooled, trials);
    // One group (fewer than about 10 shuffles): nothing to test, said as pooling did it.
    if matches!(draft.note, None | Some(TestNote::OneCell)) {
        draft.note = Some(TestNote::PooledCards {
            groups: groups.len(),
            cards: cells.len(),
        });
    }
    draft
}

/// The cells of a statistic's χ² test: consecutive values pooled by [`pool_bins`] until each
/// cell is expected at least [`MIN_EXPECTED_COUNT`] times in `trials` shuffles under `law`.
pub fn pooled_cells(law: &ValueLaw, trials: u64) -> Vec<Range<usize>> {
    let expected: Vec<f64> = law
        .probabilities
        .iter()
        .map(|p| p * trials as f64)
        .collect();
    pool_bins(&expected, MIN_EXPECTED_COUNT)
}

/// The test of one permutation statistic's histogram `observed` (indexed by value) against
/// its law under the hypothesis, with `bins` the cells of [`pooled_cells`].
///
/// * Values the law makes impossible (probability exactly 0; a probability that merely
///   underflows f64 is not 0) reject outright when seen, p = 0, as impossible orderings do in
///   full mode: pooling would otherwise hide them in a neighbouring cell, or in the single cell
///   that leaves nothing to test.
/// * With two cells or more, Pearson's χ² over the pooled cells (Cochran 1954 for the ≥ 5 rule).
/// * With one cell (few trials, or a law concentrated on one value), χ² has nothing to compare,
///   yet the data may sit on values the law makes rare. Then the exact two-sided binomial test
///   of K, the number of shuffles outside the likeliest value m: under the hypothesis
///   K ~ Bin(trials, 1 − P(m)) exactly, so the test keeps its level at any trial count
///   (doubling rule, Fay 2010), and data concentrated away from m makes K far exceed its mean.
///   1 − P(m) is summed from the other values' logarithms, so it is right even when tiny.
pub fn statistic_test(
    name: &str,
    observed: &[u64],
    law: &ValueLaw,
    bins: &[Range<usize>],
    trials: u64,
) -> Draft {
    let mut draft = if bins.len() >= 2 {
        goodness_of_fit(
            name.to_string(),
            bins.iter().map(|bin| {
                (
                    observed[bin.clone()].iter().sum::<u64>(),
                    law.probabilities[bin.clone()].iter().sum::<f64>(),
                )
            }),
            trials,
        )
    } else {
        outside_mode_test(name, observed, law, trials)
    };
    let impossible: Vec<usize> = (0..observed.len())
        .filter(|&value| observed[value] > 0 && law.get(value).is_impossible())
        .collect();
    if !impossible.is_empty() {
        let seen: u64 = impossible.iter().map(|&value| observed[value]).sum();
        draft.p = PValue::ZERO;
        draft.note = Some(TestNote::ImpossibleValues {
            values: impossible,
            seen,
        });
    }
    draft
}

/// The exact binomial test of the shuffles outside the likeliest value (see [`statistic_test`]).
fn outside_mode_test(name: &str, observed: &[u64], law: &ValueLaw, trials: u64) -> Draft {
    // The first of the likeliest values, by logarithm so that a law below f64's range still
    // has a mode.
    let mode = (0..law.len())
        .rev()
        .max_by(|&a, &b| law.ln_probabilities[a].total_cmp(&law.ln_probabilities[b]))
        .unwrap_or(0);
    let at_mode = observed.get(mode).copied().unwrap_or(0);
    let outside = trials - at_mode;
    let p0 = Probability::from_ln(ln_sum(
        law.ln_probabilities
            .iter()
            .enumerate()
            .filter(|&(value, _)| value != mode)
            .map(|(_, &ln)| ln),
    ));
    let (p, note) = if trials == 0 {
        (PValue::ONE, TestNote::NoTrials)
    } else {
        (
            binomial_two_sided_at(outside, trials, p0),
            TestNote::OutsideMode { outside, mode, p0 },
        )
    };
    Draft {
        question: Question::OneDeal,
        name: name.to_string(),
        method: TestMethod::ExactBinomialOutsideMode,
        statistic: outside as f64,
        df: None,
        p,
        note: Some(note),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn law(probabilities: &[f64]) -> ValueLaw {
        ValueLaw::from_probabilities(probabilities.to_vec())
    }

    #[test]
    fn goodness_of_fit_matches_a_hand_computed_chi_square() {
        // 60 trials against (1/3, 1/3, 1/3): expected 20 each; (10−20)²/20 + 0 + (30−20)²/20
        // = 10 with 2 degrees of freedom, p = e^−5 (χ² with 2 df is exponential with mean 2).
        let draft = goodness_of_fit(
            "t".to_string(),
            [10, 20, 30].into_iter().map(|o| (o, 1.0 / 3.0)),
            60,
        );
        assert_eq!(draft.method, TestMethod::PearsonChiSquare);
        assert_relative_eq!(draft.statistic, 10.0, max_relative = 1e-14);
        assert_eq!(draft.df, Some(2.0));
        assert_relative_eq!(draft.p.p, (-5.0f64).exp(), max_relative = 1e-12);
        assert_eq!(draft.note, None);
    }

    #[test]
    fn goodness_of_fit_leaves_out_impossible_cells_and_rejects_when_one_is_seen() {
        // The cell of probability 0 is not a degree of freedom: 2 cells, df 1.
        let cells = [(5, 0.5), (0, 0.0), (5, 0.5)];
        let fine = goodness_of_fit("t".to_string(), cells.into_iter(), 10);
        assert_eq!(fine.df, Some(1.0));
        assert_eq!(fine.statistic, 0.0);
        assert_eq!(fine.p, PValue::ONE);
        let seen = [(4, 0.5), (2, 0.0), (4, 0.5)];
        let rejected = goodness_of_fit("t".to_string(), seen.into_iter(), 10);
        assert_eq!(rejected.p, PValue::ZERO);
        assert_eq!(
            rejected.note.unwrap().to_string(),
            "2 shuffles fell on cells the hypothesis gives probability 0"
        );
    }

    #[test]
    fn goodness_of_fit_with_one_possible_cell_or_no_trials_has_nothing_to_test() {
        let one = goodness_of_fit("t".to_string(), [(3, 1.0), (0, 0.0)].into_iter(), 3);
        assert_eq!(one.p, PValue::ONE);
        assert_eq!(one.note, Some(TestNote::OneCell));
        let none = goodness_of_fit("t".to_string(), [(0, 0.5), (0, 0.5)].into_iter(), 0);
        assert_eq!(none.p, PValue::ONE);
        assert_eq!(none.note, Some(TestNote::NoTrials));
    }

    #[test]
    fn one_pooled_cell_falls_back_to_the_binomial_test_outside_the_likeliest_value() {
        // Values 0..4 with P = 0, 0.998, 0.001, 0.001; 4 trials expect 3.992 at value 1 and
        // 0.008 elsewhere, so pooling gives one cell. All 4 shuffles at value 2, outside the
        // likeliest value 1: K ~ Bin(4, 0.002) under the hypothesis, P(K ≥ 4) = 0.002^4,
        // and the doubled tail is 2·0.002^4 = 3.2e−11.
        let law = law(&[0.0, 0.998, 0.001, 0.001]);
        assert_eq!(pooled_cells(&law, 4), vec![0..4]);
        let draft = statistic_test("s", &[0, 0, 4, 0], &law, &pooled_cells(&law, 4), 4);
        assert_eq!(draft.method, TestMethod::ExactBinomialOutsideMode);
        assert_eq!(draft.statistic, 4.0);
        assert_relative_eq!(draft.p.p, 2.0 * 0.002f64.powi(4), max_relative = 1e-9);
        assert!(
            draft
                .note
                .unwrap()
                .to_string()
                .contains("outside the likeliest value 1")
        );
        // All at the likeliest value: K = 0, P(K ≤ 0) = 0.998^4 > ½, so p = 1.
        let fair = statistic_test("s", &[0, 4, 0, 0], &law, &pooled_cells(&law, 4), 4);
        assert_eq!(fair.p, PValue::ONE);
        // One shuffle off the mode: P(K ≥ 1) = 1 − 0.998^4, doubled.
        let one = statistic_test("s", &[0, 3, 1, 0], &law, &pooled_cells(&law, 4), 4);
        assert_relative_eq!(one.p.p, 2.0 * (1.0 - 0.998f64.powi(4)), max_relative = 1e-9);
        // No trials: nothing to test.
        assert_eq!(
            statistic_test("s", &[0, 0, 0, 0], &law, &pooled_cells(&law, 0), 0).p,
            PValue::ONE
        );
    }

    #[test]
    fn a_value_of_probability_zero_rejects_even_when_pooled_into_a_neighbour() {
        // P = ½, ½, 0 over 100 trials: pooling folds value 2 into the cell [1, 3), where its one
        // observation would vanish into χ² = 0.01.
        let law = law(&[0.5, 0.5, 0.0]);
        let pooled = pooled_cells(&law, 100);
        assert_eq!(pooled, vec![0..1, 1..3]);
        let draft = statistic_test("s", &[50, 49, 1], &law, &pooled, 100);
        assert_eq!(draft.p, PValue::ZERO);
        assert_eq!(draft.method, TestMethod::PearsonChiSquare);
        assert_eq!(
            draft.note.unwrap().to_string(),
            "the value 2 is impossible under the hypothesis but was seen 1 time"
        );
        // Without it, the same law fits.
        let fine = statistic_test("s", &[50, 50, 0], &law, &pooled, 100);
        assert_eq!(fine.p, PValue::ONE);
    }

    #[test]
    fn a_probability_below_the_f64_range_is_rare_not_impossible() {
        // P(value 1) = e^−1000 is 0 as an f64 yet possible: seeing it once in 10 trials is
        // tested (log10 p = log10 2 + log10 10 − 1000·log10 e), not declared impossible.
        let law = ValueLaw {
            probabilities: vec![1.0, 0.0],
            ln_probabilities: vec![0.0, -1000.0],
        };
        let pooled = pooled_cells(&law, 10);
        let draft = statistic_test("s", &[9, 1], &law, &pooled, 10);
        assert_eq!(draft.method, TestMethod::ExactBinomialOutsideMode);
        assert_relative_eq!(
            draft.p.log10,
            2f64.log10() + 1.0 - 1000.0 * std::f64::consts::LOG10_E,
            max_relative = 1e-12
        );
        assert!(!draft.note.unwrap().to_string().contains("impossible"));
    }

    #[test]
    fn a_sparse_position_is_tested_on_groups_of_consecutive_cards() {
        // 12 cards, 12 shuffles: each card expected once, so cards are pooled. pool_bins takes
        // the shortest prefix and suffix expected at least 5 times (cards 0–4 and 7–11) and
        // folds the 2 cards between, expected 2 times, into the last group it opens: groups
        // {0..5} and {5..12}, expected 5 and 7. Observed: 5 shuffles put card 0 there, the rest
        // cards 5 to 11 once each (7 in the second group, none else in the first): χ² =
        // (5 − 5)²/5 + (7 − 7)²/7 = 0 with df 1, the cards' bias hidden within the groups
        // (the price of pooling: only the groups' totals are tested).
        let p = 1.0 / 12.0;
        let mut observed = [0u64; 12];
        observed[0] = 5;
        observed[5..].fill(1);
        let cells = observed.iter().map(|&o| (o, p));
        let draft = position_test("position 0".to_string(), cells, 12);
        let expected: Vec<f64> = vec![1.0; 12];
        let groups = pool_bins(&expected, MIN_EXPECTED_COUNT);
        assert_eq!(groups, vec![0..5, 5..12]);
        assert_eq!(draft.df, Some(1.0));
        assert_relative_eq!(draft.statistic, 0.0, epsilon = 1e-12);
        assert_eq!(
            draft.note,
            Some(TestNote::PooledCards {
                groups: 2,
                cards: 12
            })
        );
        // All 12 shuffles put cards 0–4 there: χ² = (12 − 5)²/5 + (0 − 7)²/7 = 9.8 + 7 = 16.8
        // with df 1, p = erfc(√(16.8/2)) = 4.1533e−5 (the χ² law with 1 df is that of a
        // squared standard normal); the unpooled 12 cells give χ² = Σ o²/e − n = 30 − 12 = 18
        // with df 11, p ≈ 0.08.
        let mut lopsided = [0u64; 12];
        lopsided[..5].copy_from_slice(&[3, 3, 2, 2, 2]);
        let draft = position_test("position 0".to_string(), lopsided.iter().map(|&o| (o, p)), 12);
        assert_relative_eq!(draft.statistic, 16.8, max_relative = 1e-12);
        assert_relative_eq!(draft.p.ln().exp(), 4.153_33e-5, max_relative = 1e-5);
        // Every card expected at least 5 times: no pooling, the plain χ² over the cards.
        let plenty = [(6u64, 0.5), (4, 0.5)];
        let draft = position_test("position 0".to_string(), plenty.into_iter(), 10);
        assert_eq!(draft, goodness_of_fit("position 0".to_string(), plenty.into_iter(), 10));
        // 5·n trials exactly are not sparse, though 1/249 · 1245 rounds below 5 in f64.
        let edge: Vec<(u64, f64)> = (0..249).map(|_| (5, 1.0 / 249.0)).collect();
        let draft = position_test("position 0".to_string(), edge.iter().copied(), 1245);
        assert_eq!(draft.df, Some(248.0));
        assert_eq!(draft.note, None);
        // Against a model, a card all but impossible here at plenty of trials is left to χ²
        // (expected 10⁻⁶ times, seen once: χ² ≈ 10⁶), not hidden in a group.
        let model = [(5_000u64, 0.5), (4_999, 0.5 - 1e-10), (1, 1e-10)];
        let draft = position_test("position 0".to_string(), model.into_iter(), 10_000);
        assert_eq!(
            draft,
            goodness_of_fit("position 0".to_string(), model.into_iter(), 10_000)
        );
        assert!(draft.statistic > 9e5, "{}", draft.statistic);
        // A card the hypothesis puts elsewhere, seen here: rejected outright, before pooling.
        let mut cells: Vec<(u64, f64)> = (0..12).map(|_| (1, 1.0 / 11.0)).collect();
        cells[3] = (1, 0.0);
        let draft = position_test("position 3".to_string(), cells.into_iter(), 12);
        assert_eq!(draft.p, PValue::ZERO);
        assert_eq!(draft.note, Some(TestNote::ImpossibleCells { shuffles: 1 }));
    }
}
