//! Fisher–Yates (Durstenfeld's in-place form), in both directions: the textbook uniform shuffle.
//!
//! Each of the n! orderings comes from exactly one sequence of choices, and there are
//! n · (n−1) · … · 2 = n! equally likely sequences, so the law is exactly uniform.

use super::Card;
use crate::engine::random_source::RandomSource;

/// `fisher-yates`: for i from n−1 down to 1, swap card i with a card j uniform in [0, i].
pub fn fisher_yates<R: RandomSource>(deck: &mut [Card], rng: &mut R) {
    rng.each_below_descending(deck.len(), |i, j| deck.swap(i, j));
}

/// `fisher-yates-forward`: for i from 0 to n−2, swap card i with a card j uniform in [i, n−1].
pub fn fisher_yates_forward<R: RandomSource>(deck: &mut [Card], rng: &mut R) {
    let n = deck.len();
    for i in 0..n.saturating_sub(1) {
        let j = i + rng.below(n - i);
        deck.swap(i, j);
    }
}

/// `inside-out`: the inside-out form of Fisher–Yates, as Go's `rand.Perm(n)` writes it
/// (`src/math/rand/rand.go` up to Go 1.19): for i from 0 to n−1, j uniform in [0, i] (`below(1)`
/// is drawn too, as Go's `Intn(1)` consumes a word), `m[i] = m[j]; m[j] = i`.
///
/// Go fills an empty `m` with the values `0..n`; here the value put at position j is the card
/// that stood at position i, which on the unshuffled deck is card i, so the deck ends equal to
/// Go's `m` (`deck[position] = card`), and on any other deck the step is the swap of positions
/// i and j. Exactly uniform: after step i the first i + 1 positions hold cards 0..=i in an
/// order fixed by the choices so far, and the i + 1 choices of step i put card i at each of
/// those positions once, so the n! choice sequences give the n! orderings once each.
pub fn inside_out<R: RandomSource>(deck: &mut [Card], rng: &mut R) {
    for i in 0..deck.len() {
        let j = rng.below(i + 1);
        // m[i] = m[j]; m[j] = (the card at i): Go's two assignments, which are a swap.
        deck.swap(i, j);
    }
}
