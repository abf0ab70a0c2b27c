//! Sattolo's algorithm: Fisher–Yates with the "swap with itself" option removed.
//!
//! It produces exactly the (n−1)! orderings that form a single n-cycle, each with probability
//! 1/(n−1)!, and never any other — a correct algorithm for random cyclic permutations, and a
//! badly biased shuffle (the deck never comes back in its starting order; no card stays put).

use super::Card;
use crate::engine::random_source::RandomSource;

/// `sattolo`: for i from n−1 down to 1, swap card i with a card j uniform in [0, i−1].
pub fn sattolo<R: RandomSource>(deck: &mut [Card], rng: &mut R) {
    for i in (1..deck.len()).rev() {
        let j = rng.below(i);
        deck.swap(i, j);
    }
}
