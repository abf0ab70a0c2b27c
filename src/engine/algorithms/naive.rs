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

/// `naive-off-by-one`: the loop of the online poker site Arkin et al. found (Arkin, Hill, Marks,
/// Schmid & Walzer, "How We Learned to Cheat at Online Poker", 1999), `for ctr := 1 to 52:
/// swap(card[ctr], card[random(51) + 1])` with `random(51)` in [0, 50]: for i from 0 to n−1,
/// swap card i with a card j uniform in [0, n−2]. The last position is only ever swapped out of
/// (at i = n−1, with a position below it), never chosen as j, so the card that ends there came
/// from below: the last card never ends in the last place.
pub fn naive_off_by_one<R: RandomSource>(deck: &mut [Card], rng: &mut R) {
    let n = deck.len();
    if n < 2 {
        return;
    }
    for i in 0..n {
        let j = rng.below(n - 1);
        deck.swap(i, j);
    }
}
