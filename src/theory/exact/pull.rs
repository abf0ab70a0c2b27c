//! A stage of an exact law pulled rather than pushed: each ordering sums the orderings the
//! stage takes to it ([`pull_exact`]), for laws whose support covers a good share of the n!
//! orderings.

use super::MAX_EXACT_DECK;
use crate::engine::algorithms::Card;
use crate::engine::permutation::{for_each_in_rank_range, rank};
use crate::system::interrupt;

/// The exact stage from a law whose support is at least 1/this of the orderings is pulled
/// ([`pull_exact`]) rather than pushed: pushing costs a random update per ordering of the
/// support and move, on one n! table per thread summed at the end; pulling a random read per
/// ordering and move, each ordering's sum written once.
pub(super) const PULL_FROM_SUPPORT_SHARE: usize = 4;

/// The numerators of x ∘ m (x from `numerators`, m from `moves` with `weights`) by ordering:
/// next(y) = Σ_m weight(m)·numerators(y ∘ m⁻¹), where (y ∘ m⁻¹)[p] = y[m⁻¹(p)] is the one deck
/// that the move takes to y (a push writes `composed[slot] = x[m[slot]]`). The orderings y
/// are walked in rank order, split in `threads` ranges written by their own thread; the sums
/// are integers, so they are a push's exactly. When the product `denominator` fits 64 bits
/// so does every numerator, product and partial sum (each at most the whole next numerator,
/// at most the denominator): the law is read from a 64-bit copy, half the memory that the
/// random reads walk (29 MB at 10 cards). Ctrl-C is polled at every ordering; the caller
/// reads it after.
pub(super) fn pull_exact(
    numerators: &[u128],
    moves: &[Vec<Card>],
    weights: &[u128],
    denominator: u128,
    n: usize,
    threads: usize,
) -> Vec<u128> {
    let inverses: Vec<Vec<usize>> = moves
        .iter()
        .map(|m| {
            let mut inverse = vec![0; m.len()];
            for (slot, &position) in m.iter().enumerate() {
                inverse[usize::from(position)] = slot;
            }
            inverse
        })
        .collect();
    if let Ok(denominator) = u64::try_from(denominator) {
        debug_assert!(numerators.iter().all(|&x| x <= u128::from(denominator)));
        let narrow: Vec<u64> = numerators.iter().map(|&x| x as u64).collect();
        let narrow_weights: Vec<u64> = weights.iter().map(|&w| w as u64).collect();
        return pull_in(&narrow, &inverses, &narrow_weights, n, threads);
    }
    pull_in(numerators, &inverses, weights, n, threads)
}

/// An integer [`pull_exact`] sums in: u64 or u128.
trait Numerator:
    Copy + Default + Send + Sync + Into<u128> + std::ops::Mul<Output = Self> + std::ops::AddAssign
{
}
impl Numerator for u64 {}
impl Numerator for u128 {}

/// [`pull_exact`] in the integers `T`, the sums widened to u128 as they are written.
fn pull_in<T: Numerator>(
    numerators: &[T],
    inverses: &[Vec<usize>],
    weights: &[T],
    n: usize,
    threads: usize,
) -> Vec<u128> {
    let cells = numerators.len();
    let mut next = vec![0u128; cells];
    let share = cells.div_ceil(threads.max(1));
    #[cfg(target_arch = "x86_64")]
    let popcnt = std::arch::is_x86_feature_detected!("popcnt");
    std::thread::scope(|scope| {
        for (part, chunk) in next.chunks_mut(share).enumerate() {
            scope.spawn(move || {
                let start = part * share;
                #[cfg(target_arch = "x86_64")]
                if popcnt {
                    // SAFETY: the CPU has popcnt (checked above).
                    unsafe {
                        pull_range_with_popcnt(numerators, inverses, weights, n, start, chunk)
                    };
                    return;
                }
                pull_range(numerators, inverses, weights, n, start, chunk);
            });
        }
    });
    next
}

/// [`pull_range`] compiled with the POPCNT instruction, which [`rank`] counts with.
///
/// # Safety
/// The CPU must support `popcnt`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn pull_range_with_popcnt<T: Numerator>(
    numerators: &[T],
    inverses: &[Vec<usize>],
    weights: &[T],
    n: usize,
    start: usize,
    chunk: &mut [u128],
) {
    pull_range(numerators, inverses, weights, n, start, chunk);
}

/// [`pull_exact`]'s sums for the orderings of ranks `start..start + chunk.len()`, into `chunk`.
#[inline(always)]
fn pull_range<T: Numerator>(
    numerators: &[T],
    inverses: &[Vec<usize>],
    weights: &[T],
    n: usize,
    start: usize,
    chunk: &mut [u128],
) {
    let mut source = [0 as Card; MAX_EXACT_DECK];
    let source = &mut source[..n];
    for_each_in_rank_range(n, start..start + chunk.len(), |cell, deck| {
        if interrupt::requested() {
            return;
        }
        let mut sum = T::default();
        for (inverse, &weight) in inverses.iter().zip(weights) {
            for (slot, &from) in source.iter_mut().zip(inverse) {
                *slot = deck[from];
            }
            sum += numerators[rank(source)] * weight;
        }
        chunk[cell - start] = sum.into();
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::permutation::{factorial, for_each_in_rank_order};

    #[test]
    fn a_pulled_stage_gives_the_numerators_a_pushed_one_gives() {
        // Six cards, every ordering weighted, moves that are not their own inverses (a 6-cycle,
        // a 3-cycle with a 2-cycle) and the identity: each x carried to x ∘ m by hand.
        let n = 6;
        let cells = factorial(n) as usize;
        let numerators: Vec<u128> = (0..cells as u128).map(|r| (r * 7919 + 3) % 1009).collect();
        let moves: Vec<Vec<Card>> = vec![
            vec![1, 2, 3, 4, 5, 0],
            vec![2, 0, 1, 4, 3, 5],
            vec![0, 1, 2, 3, 4, 5],
        ];
        let weights = [5u128, 11, 2];
        check_pull_against_push(n, &numerators, &moves, &weights);
        // A stage of swaps, as the naive shuffle's third step (position 2 with each position).
        let swaps: Vec<Vec<Card>> = (0..n as Card)
            .map(|j| {
                let mut m: Vec<Card> = (0..n as Card).collect();
                m.swap(2, usize::from(j));
                m
            })
            .collect();
        check_pull_against_push(n, &numerators, &swaps, &[1, 2, 3, 4, 5, 6]);
    }

    fn check_pull_against_push(
        n: usize,
        numerators: &[u128],
        moves: &[Vec<Card>],
        weights: &[u128],
    ) {
        let cells = numerators.len();
        let mut pushed = vec![0u128; cells];
        let mut composed = vec![0 as Card; n];
        for_each_in_rank_order(n, |cell, deck| {
            for (m, &w) in moves.iter().zip(weights) {
                for (slot, &position) in composed.iter_mut().zip(m) {
                    *slot = deck[usize::from(position)];
                }
                pushed[rank(&composed)] += numerators[cell] * w;
            }
        });
        // In 64 bits (the denominator fits) and in 128 (it does not).
        for denominator in [1 << 40, u128::MAX] {
            for threads in [1, 3] {
                assert_eq!(
                    pull_exact(numerators, moves, weights, denominator, n, threads),
                    pushed,
                    "{threads} threads, denominator {denominator}"
                );
            }
        }
    }
}
