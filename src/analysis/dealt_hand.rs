//! The tests of a deal tally (`check --deal K`): which card comes in each slot of a deal, and
//! how often a deal is the top K cards in their starting order.
//!
//! Slot k of a deal is position k of the shuffled deck, so under a uniform shuffle each card
//! is dealt in each slot with probability 1/n; against an algorithm whose exact law is known,
//! with the probability of its position matrix's column k (the model's marginal). The K slot
//! tests are Pearson χ² tests with n − 1 degrees of freedom (Pearson 1900), one per slot, as
//! the position tests of a whole deck are (consecutive cards pooled when each is expected fewer
//! than 5 times, see [`position_test`]). A deal equals the top K cards in order (cards 0, 1,
//! …, K−1) with probability (n − K)!/n! under a uniform shuffle; its count is tested by the
//! exact binomial test of [`identity_test`].

use super::Draft;
use super::goodness_of_fit::position_test;
use super::identity::identity_test;
use crate::engine::permutation::factorial;
use crate::stats::probability::Probability;
use crate::theory::exact::Law;

/// The name of slot `slot`'s test: `slot 0` is the first card dealt.
pub fn slot_test_name(slot: usize) -> String {
    format!("slot {slot}")
}

/// One χ² test per slot: the cards dealt in it (`counts[card][slot]`) against `matrix`'s
/// column (`[card][position]`, the model's marginals), or 1/n without a matrix.
pub fn slot_drafts(counts: &[Vec<u64>], matrix: Option<&[Vec<f64>]>, deals: u64) -> Vec<Draft> {
    let n = counts.len();
    let slots = counts.first().map_or(0, Vec::len);
    (0..slots)
        .map(|slot| {
            position_test(
                slot_test_name(slot),
                (0..n).map(|card| {
                    let p = matrix.map_or(1.0 / n as f64, |matrix| matrix[card][slot]);
                    (counts[card][slot], p)
                }),
                deals,
            )
        })
        .collect()
}

/// The probability that a uniform deal of `deal` cards from `deck` is cards 0, 1, …, K−1 in
/// that order: (n − K)!/n! = 1/(n·(n−1)·…·(n−K+1)), with its logarithm (it underflows f64 for
/// large deals of large decks).
pub fn uniform_deal_probability(deck: usize, deal: usize) -> Probability {
    let ln: f64 = -((deck - deal + 1)..=deck)
        .map(|factor| (factor as f64).ln())
        .sum::<f64>();
    Probability::from_ln(ln)
}

/// The identity test of a deal tally: `count` deals were the top K cards in order, out of
/// `deals`, against the probability `p0` of that.
pub fn deal_identity_test(count: u64, deals: u64, p0: Probability) -> Draft {
    identity_test(count, deals, p0)
}

/// The probability under an exact law of n cards that a deal of `deal` cards is the top cards
/// in their starting order: the orderings that start 0, 1, …, K−1 are the first (n − K)! in
/// lexicographic rank, so it is the sum of their probabilities.
pub fn model_deal_identity(law: &Law, deal: usize) -> f64 {
    let prefixed = factorial(law.deck - deal) as usize;
    law.probabilities.iter().take(prefixed).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn the_top_five_cards_in_order_are_one_deal_in_311875200() {
        // 52·51·50·49·48 = 311,875,200 ordered five-card deals.
        let p = uniform_deal_probability(52, 5);
        assert_relative_eq!(p.p, 1.0 / 311_875_200.0, max_relative = 1e-12);
        // A whole deck: 1/4! for four cards.
        assert_relative_eq!(
            uniform_deal_probability(4, 4).p,
            1.0 / 24.0,
            max_relative = 1e-12
        );
    }

    #[test]
    fn the_model_probability_of_the_top_cards_in_order_sums_the_orderings_that_start_so() {
        // Brute force over every ordering of the naive shuffle's exact law on 5 cards.
        use crate::engine::algorithms::Algorithm;
        use crate::engine::permutation::unrank;
        use crate::theory::exact::exact_law;
        let law = exact_law(Algorithm::Naive, 5, 1_000_000).unwrap();
        for deal in 1..=5 {
            let brute: f64 = (0..law.probabilities.len())
                .filter(|&rank| {
                    unrank(rank, 5)[..deal]
                        .iter()
                        .enumerate()
                        .all(|(slot, &card)| usize::from(card) == slot)
                })
                .map(|rank| law.probabilities[rank])
                .sum();
            assert_relative_eq!(model_deal_identity(&law, deal), brute, max_relative = 1e-12);
        }
    }

    #[test]
    fn each_slot_is_tested_against_one_card_in_n() {
        // 3 cards, 2 slots, 30 deals: slot 0 holds cards 10/10/10 (χ² 0), slot 1 20/10/0
        // (χ² = (10² + 0 + 10²)/10 = 20), df 2 each.
        let counts = vec![vec![10, 20], vec![10, 10], vec![10, 0]];
        let drafts = slot_drafts(&counts, None, 30);
        assert_eq!(drafts.len(), 2);
        assert_eq!(drafts[0].name, "slot 0");
        assert_relative_eq!(drafts[0].statistic, 0.0);
        assert_relative_eq!(drafts[1].statistic, 20.0, max_relative = 1e-12);
        assert_eq!(drafts[1].df, Some(2.0));
        // P(χ²₂ > 20) = e^−10.
        assert_relative_eq!(drafts[1].p.p, (-10f64).exp(), max_relative = 1e-9);
    }
}
