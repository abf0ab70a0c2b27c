//! Five-card poker hands: the standard 52-card order, the nine hand categories, the category of
//! a hand, and the exact number of hands of each category out of C(52, 5) = 2,598,960.
//!
//! The standard order (the identity of `--cards standard`, and how `--game poker` reads numbered
//! cards): card c has suit c / 13 in the order ♠ ♥ ♦ ♣ and rank c mod 13 in the order A, 2, …,
//! 10, J, Q, K — so card 0 is A♠, 12 is K♠, 13 is A♥ and 51 is K♣.
//!
//! The exact counts are closed forms (choose the ranks, then the suits: e.g. Epstein, *The
//! Theory of Gambling and Statistical Logic*, 1977, ch. 8; the table is the well-known one of
//! 40, 624, 3,744, 5,108, 10,200, 54,912, 123,552, 1,098,240 and 1,302,540 hands). They are
//! computed here from binomial coefficients, independently of [`classify`]; a test enumerates
//! all 2,598,960 hands through [`classify`] and checks that both agree with the published table.

pub use crate::engine::poker::{
    Category, HAND, HANDS, RANK_NAMES, RANKS, STANDARD_DECK, SUITS, card_name, classify, rank_of,
    suit_of,
};

impl Category {
    /// The number of the C(52, 5) hands in this category, from its closed form (choose the
    /// ranks, then the suits), never from [`classify`].
    pub fn exact_count(self) -> u64 {
        // Rank sets of five distinct ranks that are not a straight: C(13,5) − 10 straights
        // (A-2-3-4-5 up to 10-J-Q-K-A); suit choices of five cards that are not one suit:
        // 4^5 − 4.
        let plain_ranks = choose(13, 5) - 10;
        let mixed_suits = 4u64.pow(5) - 4;
        match self {
            Category::StraightFlush => 10 * 4,
            Category::FourOfAKind => 13 * 48,
            Category::FullHouse => 13 * choose(4, 3) * 12 * choose(4, 2),
            Category::Flush => 4 * plain_ranks,
            Category::Straight => 10 * mixed_suits,
            Category::ThreeOfAKind => 13 * choose(4, 3) * choose(12, 2) * 4 * 4,
            Category::TwoPair => choose(13, 2) * choose(4, 2) * choose(4, 2) * 11 * 4,
            Category::OnePair => 13 * choose(4, 2) * choose(12, 3) * 4 * 4 * 4,
            Category::HighCard => plain_ranks * mixed_suits,
        }
    }

    /// The probability of the category for a uniformly dealt hand: exact count / 2,598,960.
    pub fn probability(self) -> f64 {
        self.exact_count() as f64 / HANDS as f64
    }
}

/// C(n, k) for the small numbers of this module.
fn choose(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closed_forms_give_the_published_counts_and_sum_to_all_hands() {
        let published = [
            1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40,
        ];
        let counts: Vec<u64> = Category::ALL.iter().map(|c| c.exact_count()).collect();
        assert_eq!(counts, published);
        assert_eq!(counts.iter().sum::<u64>(), HANDS);
        assert_eq!(choose(52, 5), HANDS);
    }
}
