//! The casino shelf shuffler, as analysed by Diaconis, Fulman & Holmes ("Analysis of casino
//! shelf shuffling machines", Ann. Appl. Probab. 23(4) (2013) 1692–1720; arXiv:1107.2961).
//!
//! The machine deals the cards one at a time from the bottom of the deck, each onto one of m
//! shelves chosen uniformly at random, and puts it on top of or under the pile already on that
//! shelf with probability ½ each; the piles are then stacked in shelf order. The casino machine
//! DFH were asked to evaluate had ten shelves, and one pass of it is far from random on 52 cards
//! (total variation distance 0.99999928 from uniform); the makers' own tests — where the top and
//! bottom cards go, where neighbours end up — had not seen it. Every pile reads, from the top,
//! rising then falling in starting position (its first card is its peak), so the deck is m such
//! piles end to end, and the chance of an ordering depends only on its number of valleys (DFH
//! Theorem 3.1; [`crate::theory::shelf`]).

use super::Card;
use crate::engine::random_source::RandomSource;

/// `--shelves` when not given: the ten shelves of the machine DFH evaluated.
pub const DEFAULT_SHELVES: u16 = 10;

/// The most shelves `--shelves` takes (a shelf number is held in one card-sized word).
pub const MAX_SHELVES: u16 = 10_000;

/// `shelf`: one pass of the shelf shuffler with `shelves` shelves (at least 1) over `deck` (any
/// length), using `scratch` (at least as long) for the shelf of each card already dealt.
///
/// The draws, in order, for each card from the bottom of the deck up: `below(shelves)` picks its
/// shelf, then a coin puts it on top of that shelf's pile (true) or under it (false). The piles
/// are stacked with shelf 0 on top. The piles are built in place at the bottom of `deck`, shelf
/// by shelf, as the cards still to deal shrink above them: placing a card moves the cards of the
/// piles before its place up by one slot, so a pass costs O(n²) moves at worst and allocates
/// nothing.
pub fn shelf<R: RandomSource>(deck: &mut [Card], scratch: &mut [Card], shelves: u16, rng: &mut R) {
    let n = deck.len();
    let shelf_of = &mut scratch[..n];
    for feed in (0..n).rev() {
        // deck[..=feed] still waits, its bottom card deck[feed] next; deck[feed + 1..] holds the
        // piles so far in shelf order, shelf_of[p] the shelf of the card at p.
        let card = deck[feed];
        let shelf = rng.below(usize::from(shelves)) as Card;
        let on_top = rng.coin();
        let mut place = feed + 1;
        while place < n && (shelf_of[place] < shelf || (!on_top && shelf_of[place] == shelf)) {
            place += 1;
        }
        deck.copy_within(feed + 1..place, feed);
        shelf_of.copy_within(feed + 1..place, feed);
        deck[place - 1] = card;
        shelf_of[place - 1] = shelf;
    }
}
