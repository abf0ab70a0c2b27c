//! Fisher–Yates (Durstenfeld's in-place form), in both directions: the textbook uniform shuffle.
//!
//! Each of the n! orderings comes from exactly one sequence of choices, and there are
//! n · (n−1) · … · 2 = n! equally likely sequences, so the law is exactly uniform.

use super::Card;
use crate::engine::random_source::RandomSource;

/// `fisher-yates`: for i from n−1 down to 1, swap card i with a card j uniform in [0, i].
pub fn fisher_yates<R: RandomSource>(deck: &mut [Card], rng: &mut R) {
    for i in (1..deck.len()).rev() {
        let j = rng.below(i + 1);
        deck.swap(i, j);
    }
}

/// `fisher-yates-forward`: for i from 0 to n−2, swap card i with a card j uniform in [i, n−1].
pub fn fisher_yates_forward<R: RandomSource>(deck: &mut [Card], rng: &mut R) {
    let n = deck.len();
    for i in 0..n.saturating_sub(1) {
        let j = i + rng.below(n - i);
        deck.swap(i, j);
    }
}
