//! The deal tally: what is kept of each dealt hand — K cards drawn from a deck of n, in the
//! order dealt (`check --deal K`).
//!
//! A deal is the top K cards of a shuffled deck, so slot k of a deal is position k of the deck:
//! the tally keeps which card came in each slot (an n×K matrix), how often the top K cards came
//! in their starting order (the identity of a deal), and, for five-card poker hands, the
//! category of every hand and of every pair of consecutive hands. Memory is O(n·K) whatever the
//! number of deals.
//!
//! Every deal passes through [`DealTally::add`] once, in the order of the input: that is where
//! an accumulator of tests between consecutive deals is fed.

use crate::engine::algorithms::Card;
use crate::engine::poker::{Category, HAND, classify};

/// How many deals had each card in each slot, the identity, and the poker categories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealTally {
    /// The deck the cards are drawn from (n).
    pub deck: usize,
    /// Cards per deal (K, 1 ≤ K ≤ n).
    pub deal: usize,
    /// Deals tallied.
    pub deals: u64,
    /// `slots[card * deal + slot]`: deals whose `slot`-th card was `card`.
    pub slots: Vec<u64>,
    /// Deals that were the top K cards in their starting order (cards 0, 1, …, K−1).
    pub identity: u64,
    /// The poker categories, when the deals are five-card poker hands (`--game poker`).
    pub poker: Option<Box<PokerTally>>,
}

/// The categories of five-card hands, one at a time and in pairs of consecutive hands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PokerTally {
    /// `categories[c]`: hands of category `Category::ALL[c]`.
    pub categories: [u64; 9],
    /// `transitions[a][b]`: hands of category b dealt right after a hand of category a.
    pub transitions: [[u64; 9]; 9],
    /// The category of the last hand tallied.
    previous: Option<Category>,
}

impl PokerTally {
    fn new() -> Self {
        PokerTally {
            categories: [0; 9],
            transitions: [[0; 9]; 9],
            previous: None,
        }
    }

    #[inline]
    fn add(&mut self, hand: &[Card; HAND]) {
        let category = classify(hand);
        self.categories[category.index()] += 1;
        if let Some(previous) = self.previous {
            self.transitions[previous.index()][category.index()] += 1;
        }
        self.previous = Some(category);
    }
}

impl DealTally {
    /// An empty tally of deals of `deal` cards from `deck`; `poker` also classifies each hand
    /// (only for five cards of the standard 52).
    pub fn new(deck: usize, deal: usize, poker: bool) -> Self {
        assert!((1..=deck).contains(&deal), "a deal holds 1 to n cards");
        assert!(
            !poker || (deck == 52 && deal == HAND),
            "poker hands are five cards of 52"
        );
        DealTally {
            deck,
            deal,
            deals: 0,
            slots: vec![0; deck * deal],
            identity: 0,
            poker: poker.then(|| Box::new(PokerTally::new())),
        }
    }

    /// Count one deal: `cards[slot]` is the card dealt in `slot` (K distinct cards below n).
    #[inline]
    pub fn add(&mut self, cards: &[Card]) {
        debug_assert_eq!(cards.len(), self.deal);
        let mut identity = true;
        for (slot, &card) in cards.iter().enumerate() {
            self.slots[usize::from(card) * self.deal + slot] += 1;
            identity &= usize::from(card) == slot;
        }
        self.identity += u64::from(identity);
        if let Some(poker) = &mut self.poker {
            let hand: &[Card; HAND] = cards.try_into().expect("poker hands hold five cards");
            poker.add(hand);
        }
        self.deals += 1;
    }

    /// The slot matrix `[card][slot]`.
    pub fn slot_matrix(&self) -> Vec<Vec<u64>> {
        self.slots.chunks(self.deal).map(<[u64]>::to_vec).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_card_is_counted_in_its_slot_and_the_identity_is_the_top_cards_in_order() {
        let mut tally = DealTally::new(4, 2, false);
        for deal in [[0, 1], [1, 0], [3, 2], [0, 1]] {
            tally.add(&deal);
        }
        assert_eq!(tally.deals, 4);
        assert_eq!(tally.identity, 2);
        assert_eq!(
            tally.slot_matrix(),
            vec![vec![2, 1], vec![1, 2], vec![0, 1], vec![1, 0]]
        );
    }

    #[test]
    fn poker_hands_are_classified_and_paired_with_the_previous_hand() {
        let mut tally = DealTally::new(52, 5, true);
        // A♠ A♥ 2♠ 3♠ 4♠ is one pair; the five spades A–5 a straight flush.
        tally.add(&[0, 13, 1, 2, 3]);
        tally.add(&[0, 1, 2, 3, 4]);
        tally.add(&[0, 13, 1, 2, 3]);
        let poker = tally.poker.unwrap();
        assert_eq!(poker.categories[Category::OnePair.index()], 2);
        assert_eq!(poker.categories[Category::StraightFlush.index()], 1);
        let pair = Category::OnePair.index();
        let straight_flush = Category::StraightFlush.index();
        assert_eq!(poker.transitions[pair][straight_flush], 1);
        assert_eq!(poker.transitions[straight_flush][pair], 1);
        assert_eq!(poker.transitions.iter().flatten().sum::<u64>(), 2);
    }
}
