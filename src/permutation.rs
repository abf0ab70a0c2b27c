//! Permutations of a small deck: factorials, and the Lehmer-code rank that indexes the tally.
//!
//! A permutation is written as the deck after shuffling: `deck[position] = card`, card `c`
//! having started at position `c`. Ranks are lexicographic, so rank 0 is the identity (the deck
//! unchanged) and rank n!−1 is the reversed deck.

use crate::algorithms::Card;

/// The largest deck whose n! orderings are tallied one by one.
pub const MAX_FULL_DECK: usize = 11;

/// n! for n = 0..=20 (20! is the largest factorial that fits in a u64).
pub const FACTORIALS: [u64; 21] = {
    let mut table = [1u64; 21];
    let mut i = 1;
    while i < 21 {
        table[i] = table[i - 1] * i as u64;
        i += 1;
    }
    table
};

/// n!, for n ≤ 20.
pub fn factorial(n: usize) -> u64 {
    FACTORIALS[n]
}

/// The lexicographic rank of `deck` among the permutations of its length (n ≤ 16).
///
/// Lehmer code: the digit of position i is the number of cards not yet placed that are smaller
/// than `deck[i]`, computed with one popcount over a bit mask of the cards already placed.
#[inline(always)]
pub fn rank(deck: &[Card]) -> usize {
    let n = deck.len();
    debug_assert!(n <= 16);
    let mut placed: u32 = 0;
    let mut rank = 0u64;
    for (i, &card) in deck.iter().enumerate().take(n.saturating_sub(1)) {
        let card = u32::from(card);
        let smaller_placed = (placed & ((1u32 << card) - 1)).count_ones();
        rank += u64::from(card - smaller_placed) * FACTORIALS[n - 1 - i];
        placed |= 1 << card;
    }
    rank as usize
}

/// The permutation of n cards with lexicographic rank `rank` (the inverse of [`rank`]).
pub fn unrank(mut rank: usize, n: usize) -> Vec<Card> {
    let mut remaining: Vec<Card> = (0..n as Card).collect();
    let mut deck = Vec::with_capacity(n);
    for i in 0..n {
        let weight = FACTORIALS[n - 1 - i] as usize;
        let digit = rank / weight;
        rank %= weight;
        deck.push(remaining.remove(digit));
    }
    deck
}

/// Call `visit(rank, deck)` for every permutation of n cards in rank order (lexicographic), stepping
/// from one to the next with the classic next-permutation algorithm (amortised O(1) per step),
/// which is much cheaper than unranking each one.
pub fn for_each_in_rank_order(n: usize, mut visit: impl FnMut(usize, &[Card])) {
    let mut deck: Vec<Card> = (0..n as Card).collect();
    let mut rank = 0;
    loop {
        visit(rank, &deck);
        rank += 1;
        // The longest non-increasing suffix; the card before it is the pivot.
        let Some(pivot) = (1..n).rev().find(|&i| deck[i - 1] < deck[i]).map(|i| i - 1) else {
            return;
        };
        let successor = (pivot + 1..n)
            .rev()
            .find(|&i| deck[i] > deck[pivot])
            .expect("a larger card follows the pivot");
        deck.swap(pivot, successor);
        deck[pivot + 1..].reverse();
    }
}

/// A permutation as text: cards separated by spaces, e.g. `2 0 3 1`.
pub fn format_permutation(deck: &[Card]) -> String {
    let mut text = String::with_capacity(deck.len() * 3);
    for (i, card) in deck.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(&card.to_string());
    }
    text
}

/// The number of cycles of a permutation, counting fixed points.
pub fn cycle_count(deck: &[Card]) -> usize {
    let mut seen = vec![false; deck.len()];
    let mut cycles = 0;
    for start in 0..deck.len() {
        if !seen[start] {
            cycles += 1;
            let mut at = start;
            while !seen[at] {
                seen[at] = true;
                at = usize::from(deck[at]);
            }
        }
    }
    cycles
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factorials_match_known_values() {
        assert_eq!(factorial(0), 1);
        assert_eq!(factorial(4), 24);
        assert_eq!(factorial(11), 39_916_800);
        assert_eq!(factorial(20), 2_432_902_008_176_640_000);
    }

    #[test]
    fn rank_and_unrank_are_inverse_bijections_up_to_eight_cards() {
        for n in 1..=8 {
            let count = factorial(n) as usize;
            let mut previous: Option<Vec<Card>> = None;
            for r in 0..count {
                let deck = unrank(r, n);
                assert_eq!(rank(&deck), r, "n={n} rank {r}");
                let mut sorted = deck.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, (0..n as Card).collect::<Vec<_>>());
                // Strictly increasing in lexicographic order means no rank is reused.
                if let Some(prev) = &previous {
                    assert!(prev < &deck);
                }
                previous = Some(deck);
            }
        }
    }

    #[test]
    fn rank_zero_is_the_identity_and_the_last_rank_is_the_reversal() {
        assert_eq!(unrank(0, 5), vec![0, 1, 2, 3, 4]);
        assert_eq!(unrank(119, 5), vec![4, 3, 2, 1, 0]);
        assert_eq!(rank(&[10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]), 39_916_799);
    }

    #[test]
    fn rank_order_iteration_agrees_with_unrank() {
        for n in 1..=6 {
            let mut visited = 0;
            for_each_in_rank_order(n, |r, deck| {
                assert_eq!(deck, unrank(r, n).as_slice());
                visited += 1;
            });
            assert_eq!(visited, factorial(n) as usize);
        }
    }

    #[test]
    fn cycles_are_counted_with_fixed_points() {
        assert_eq!(cycle_count(&[0, 1, 2]), 3);
        assert_eq!(cycle_count(&[1, 2, 0]), 1);
        assert_eq!(cycle_count(&[1, 0, 2]), 2);
    }
}
