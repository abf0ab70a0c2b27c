//! The riffle shuffle as people do it, in the Gilbert–Shannon–Reeds model (Gilbert 1955, "Theory
//! of shuffling", Bell Labs memorandum; Reeds 1981, unpublished manuscript; analysed by Bayer &
//! Diaconis 1992, "Trailing the dovetail shuffle to its lair", Ann. Appl. Probab. 2(2)).
//!
//! The deck is cut into a top packet of k cards and a bottom packet of n − k, k binomial(n, 1/2),
//! and the two packets are riffled together by dropping cards one at a time from the bottom of
//! either packet, each time from a packet with probability proportional to the cards it still
//! holds. Every one of the C(n, k) interleavings of a cut is then equally likely, and after K
//! riffles an ordering with r rising sequences has probability C(2^K + n − r, n) / 2^(Kn) (Bayer
//! & Diaconis 1992, Theorem 1): far from uniform for one riffle, close for 52 cards only after
//! about seven.

use super::Card;
use crate::engine::random_source::RandomSource;

/// `riffle`: one GSR riffle of `deck` (any length), using `scratch` (at least as long) to hold
/// the packets.
///
/// The draws, in order: n coins, the top packet being as many cards as coins came up true; then,
/// while both packets hold cards (a in the top one, b in the bottom one), `bernoulli(a, a + b)`
/// (that is `below(a + b) < a`) drops the bottom card of the top packet, otherwise that of the
/// bottom packet, onto the new deck, which is built from its bottom position up. Once a packet is
/// empty the rest of the other lands on top in its order, without further draws.
pub fn riffle<R: RandomSource>(deck: &mut [Card], scratch: &mut [Card], rng: &mut R) {
    let n = deck.len();
    let cut = (0..n).filter(|_| rng.coin()).count();
    let held = &mut scratch[..n];
    held.copy_from_slice(deck);
    let (top, bottom) = held.split_at(cut);
    let (mut a, mut b) = (cut, n - cut);
    while a > 0 && b > 0 {
        if rng.bernoulli(a, a + b) {
            deck[a + b - 1] = top[a - 1];
            a -= 1;
        } else {
            deck[a + b - 1] = bottom[b - 1];
            b -= 1;
        }
    }
    // What is left is the top of one packet, in order: the top packet's cards are still where
    // they started; the bottom packet's move up to the top of the deck.
    deck[..b].copy_from_slice(&bottom[..b]);
}
