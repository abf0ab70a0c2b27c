//! The naive "swap every card with any card" shuffle: the classic biased loop.
//!
//! It makes n choices of n positions, so its n^n equally likely choice sequences cannot spread
//! evenly over n! orderings (n! does not divide n^n for n ≥ 3): some orderings must be more
//! likely than others.

use super::Card;
use crate::engine::random_source::RandomSource;

/// `naive`: for i from 0 to n−1, swap card i with a card j uniform in [0, n−1].
pub fn naive<R: RandomSource>(deck: &mut [Card], rng: &mut R) {
    let n = deck.len();
    for i in 0..n {
        let j = rng.below(n);
        deck.swap(i, j);
    }
}
