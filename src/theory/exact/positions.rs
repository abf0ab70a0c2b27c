//! Where each card ends in an exact law, from its integer numerators: sums over blocks of the
//! rank order rather than a walk of the n! orderings ([`position_sums`]).

use super::MAX_EXACT_DECK;
use crate::engine::algorithms::Card;
use crate::engine::permutation::{factorial, unrank};

/// The last positions summed ordering by ordering, inside blocks of TAIL! consecutive ranks;
/// the positions before them are summed block by block.
const TAIL: usize = 4;

/// `sums[card][position]`: the sum of `numerators[rank]` over the orderings of `n` cards (in
/// rank order) that put `card` at `position`.
///
/// In rank order the orderings that share their first p cards are consecutive: a block of
/// (n − p)! ranks, split in n − p blocks of (n − p − 1)! by the card at position p, the
/// smallest card left first. So each card at position p adds up whole blocks, and only the
/// last [`TAIL`] positions are read ordering by ordering, from a table of TAIL! arrangements
/// of the cards left: n!·TAIL additions and n!/TAIL!·… block sums, where a walk of every
/// ordering makes n!·n additions and n! steps to the next ordering. The numerators are
/// integers, so the order of the additions does not matter; every sum is at most their
/// total.
pub(super) fn position_sums(numerators: &[u128], n: usize) -> Vec<Vec<u128>> {
    assert!(n <= MAX_EXACT_DECK, "{n} cards");
    let mut sums = [[0u128; MAX_EXACT_DECK]; MAX_EXACT_DECK];
    if n > 0 {
        let tail = TAIL.min(n);
        let arrangements: Vec<Vec<Card>> = (0..factorial(tail) as usize)
            .map(|r| unrank(r, tail))
            .collect();
        let mut left: Vec<usize> = (0..n).collect();
        let walk = Walk {
            tail,
            arrangements: &arrangements,
        };
        walk.block(numerators, 0, &mut left, &mut sums);
    }
    sums[..n].iter().map(|row| row[..n].to_vec()).collect()
}

/// [`position_sums`]' walk down the blocks.
struct Walk<'a> {
    tail: usize,
    /// The arrangements of `tail` cards in rank order, each as indexes into the cards left.
    arrangements: &'a [Vec<Card>],
}

impl Walk<'_> {
    /// Adds the block of the orderings whose first `position` cards are fixed (`left`: the
    /// cards after them, in increasing order) into `sums`; gives the block's total.
    fn block(
        &self,
        block: &[u128],
        position: usize,
        left: &mut Vec<usize>,
        sums: &mut [[u128; MAX_EXACT_DECK]; MAX_EXACT_DECK],
    ) -> u128 {
        let remaining = left.len();
        if remaining == self.tail {
            // local[i][q]: the numerators that put the i-th smallest card left at position
            // `position + q`.
            let mut local = [[0u128; TAIL]; TAIL];
            let mut total = 0;
            for (&count, arrangement) in block.iter().zip(self.arrangements) {
                if count == 0 {
                    continue;
                }
                total += count;
                for (q, &i) in arrangement.iter().enumerate() {
                    local[usize::from(i)][q] += count;
                }
            }
            for (i, row) in local[..remaining].iter().enumerate() {
                for (q, &sum) in row[..remaining].iter().enumerate() {
                    sums[left[i]][position + q] += sum;
                }
            }
            return total;
        }
        let share = block.len() / remaining;
        let mut total = 0;
        for i in 0..remaining {
            let card = left.remove(i);
            let part = &block[i * share..(i + 1) * share];
            let sum = if part.iter().all(|&count| count == 0) {
                0
            } else {
                self.block(part, position + 1, left, sums)
            };
            left.insert(i, card);
            sums[card][position] += sum;
            total += sum;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::permutation::for_each_in_rank_order;

    #[test]
    fn block_sums_are_the_sums_of_every_ordering_walked() {
        // Every deck from 0 to 8 cards, numerators scattered (some zero, some large, whole
        // blocks zero): against the definition, each ordering's numerator added at each
        // (card, position) it has.
        for n in 0..=8 {
            let cells = factorial(n) as usize;
            for zeros in [2u128, 7, 1_000] {
                let numerators: Vec<u128> = (0..cells as u128)
                    .map(|r| {
                        let x = (r * 0x9E37_79B9 + 17) % 1_000_003;
                        if x % zeros == 0 || (r / 24) % 5 == 3 {
                            0
                        } else {
                            x << 70 | r
                        }
                    })
                    .collect();
                let mut expected = vec![vec![0u128; n]; n];
                for_each_in_rank_order(n, |cell, deck| {
                    for (position, &card) in deck.iter().enumerate() {
                        expected[usize::from(card)][position] += numerators[cell];
                    }
                });
                assert_eq!(position_sums(&numerators, n), expected, "{n} cards");
            }
        }
    }
}
