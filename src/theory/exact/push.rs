//! A stage of an exact law pushed: each ordering x of the law's support carried to x ∘ m for
//! every move m of the stage, into counters of its own thread ([`push_part`]), for laws whose
//! support is a small share of the n! orderings (a dense one is pulled, [`super::pull`]).

use super::MAX_EXACT_DECK;
use super::swaps::{SwapRanks, SwapStage};
use crate::engine::algorithms::Card;
use crate::engine::permutation::{rank, unrank_into};
use crate::system::interrupt;

/// The counters of one thread: Σ over the orderings x of ranks `support` (the law's non-zero
/// cells) of numerators\[x\] · weight(m) at x ∘ m, for each move m (`composed[slot] =
/// x[m[slot]]`), in a table of `cells` numerators. Ctrl-C is polled at every ordering; the
/// caller reads it after.
pub(super) fn push_part(
    numerators: &[u128],
    moves: &[Vec<Card>],
    weights: &[u128],
    n: usize,
    support: &[usize],
    cells: usize,
) -> Vec<u128> {
    let mut next = vec![0u128; cells];
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has popcnt (checked above).
        unsafe { push_with_popcnt(numerators, moves, weights, n, support, &mut next) };
        return next;
    }
    push(numerators, moves, weights, n, support, &mut next);
    next
}

/// [`push`] compiled with the POPCNT instruction, which the ranks count with.
///
/// # Safety
/// The CPU must support `popcnt`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn push_with_popcnt(
    numerators: &[u128],
    moves: &[Vec<Card>],
    weights: &[u128],
    n: usize,
    support: &[usize],
    next: &mut [u128],
) {
    push(numerators, moves, weights, n, support, next);
}

/// [`push_part`]'s sums into `next`: a stage of swaps ([`SwapStage`]) ranks each image of x
/// from the tables of [`SwapRanks`] formed for x ∘ t, any other composes and ranks it.
#[inline(always)]
fn push(
    numerators: &[u128],
    moves: &[Vec<Card>],
    weights: &[u128],
    n: usize,
    support: &[usize],
    next: &mut [u128],
) {
    let stage = SwapStage::of(moves);
    let mut deck = [0 as Card; MAX_EXACT_DECK];
    let deck = &mut deck[..n];
    let mut composed = [0 as Card; MAX_EXACT_DECK];
    let composed = &mut composed[..n];
    let mut swapping = SwapRanks::new(n);
    for &cell in support {
        if interrupt::requested() {
            return;
        }
        let count = numerators[cell];
        unrank_into(cell, deck);
        match &stage {
            Some(stage) => {
                match stage.first {
                    Some((low, high)) => {
                        deck.swap(low, high);
                        swapping.load(deck, rank(deck));
                    }
                    None => swapping.load(deck, cell),
                }
                for (&swap, &weight) in stage.swaps.iter().zip(weights) {
                    next[swapping.rank_after(swap)] += count * weight;
                }
            }
            None => {
                for (step_move, &weight) in moves.iter().zip(weights) {
                    for (slot, &position) in composed.iter_mut().zip(step_move) {
                        *slot = deck[usize::from(position)];
                    }
                    next[rank(composed)] += count * weight;
                }
            }
        }
    }
}
