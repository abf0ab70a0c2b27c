//! A stage of an exact law pulled rather than pushed: each ordering sums the orderings the
//! stage takes to it ([`pull_exact`]), for laws whose support covers a good share of the n!
//! orderings.

use super::MAX_EXACT_DECK;
use super::swaps::{SwapRanks, SwapStage};
use super::tables::{FillRange, Kept, Spare, fill_in_parts};
use crate::engine::algorithms::Card;
use crate::engine::permutation::{next_permutation, rank, unrank_into};
use crate::system::interrupt;

/// The exact stage from a law whose support is at least this share of the orderings (a
/// numerator and a denominator) is pulled ([`pull_exact`]) rather than pushed: pushing costs a
/// random update per ordering of the support and move, on one n! table per thread summed at
/// the end; pulling a random read per ordering and move, each ordering's sum written once. At
/// 10 cards (`theory naive`, one thread a core on two cores) a pull takes about 0.2 s, a push
/// about 0.3 s at the whole support (64-bit counters) and 0.15 s at half of it (32-bit): the
/// two cost the same near two thirds.
pub(super) const PULL_FROM_SUPPORT_SHARE: (usize, usize) = (2, 3);

/// The numerators of x ∘ m (x from `numerators`, m from `moves` with `weights`) by ordering:
/// next(y) = Σ_m weight(m)·numerators(y ∘ m⁻¹), where (y ∘ m⁻¹)[p] = y[m⁻¹(p)] is the one deck
/// that the move takes to y (a push writes `composed[slot] = x[m[slot]]`). The orderings y
/// are walked in rank order, split in `threads` ranges written by their own thread; the sums
/// are integers, so they are a push's exactly. When the product `denominator` fits 64 bits
/// so does every numerator, product and partial sum (each at most the whole next numerator,
/// at most the denominator): the law is read from a 64-bit copy, half the memory that the
/// random reads walk (29 MB at 10 cards), or a 32-bit one when every numerator fits (the
/// largest does; the naive shuffle's last stage at 10 cards reads numerators over
/// 10⁹). The sums are written into a table of `spare`, and the copy is kept there after.
/// Ctrl-C is polled at every ordering; the caller reads it after.
///
/// A stage of swaps ([`SwapStage`]: m = t ∘ u with t fixed, u a swap or nothing) is read
/// from a copy relabelled by t, x ↦ numerators(x ∘ t) (y ∘ m⁻¹ = (y ∘ u) ∘ t), in which each
/// move is one swap ranked from [`SwapRanks`]' tables.
pub(super) fn pull_exact(
    PulledLaw {
        numerators,
        largest,
    }: PulledLaw,
    moves: &[Vec<Card>],
    weights: &[u128],
    denominator: u128,
    n: usize,
    threads: usize,
    spare: &mut Spare,
) -> Vec<u128> {
    let into = spare.overwritten(numerators.len());
    let stage = SwapStage::of(moves);
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
    let (first, images) = match &stage {
        Some(stage) => (stage.first, Images::Swaps(&stage.swaps)),
        None => (None, Images::Moves(&inverses)),
    };
    if let Ok(denominator) = u64::try_from(denominator) {
        debug_assert!(numerators.iter().all(|&x| x <= u128::from(denominator)));
        debug_assert_eq!(numerators.iter().max().copied().unwrap_or(0), largest);
        let narrow_weights: Vec<u64> = weights.iter().map(|&w| w as u64).collect();
        if largest <= u128::from(u32::MAX) {
            let narrow = relabelled(numerators, first, n, threads, |x| x as u32, spare);
            let next = pull_in(&narrow, images, &narrow_weights, n, threads, into);
            spare.keep(narrow);
            return next;
        }
        let narrow = relabelled(numerators, first, n, threads, |x| x as u64, spare);
        let next = pull_in(&narrow, images, &narrow_weights, n, threads, into);
        spare.keep(narrow);
        return next;
    }
    match first {
        None => pull_in(numerators, images, weights, n, threads, into),
        Some(_) => {
            let relabelled = relabelled(numerators, first, n, threads, |x| x, spare);
            let next = pull_in(&relabelled, images, weights, n, threads, into);
            spare.keep(relabelled);
            next
        }
    }
}

/// The law a stage is pulled from ([`pull_exact`]): its numerators, and the largest of them
/// (which chooses the width of the copy read).
#[derive(Clone, Copy, Debug)]
pub(super) struct PulledLaw<'a> {
    pub(super) numerators: &'a [u128],
    pub(super) largest: u128,
}

/// An integer [`pull_exact`] sums in: u64 or u128.
trait Numerator:
    Copy + Default + Send + Sync + Into<u128> + std::ops::Mul<Output = Self> + std::ops::AddAssign
{
}
impl Numerator for u64 {}
impl Numerator for u128 {}

/// An integer [`pull_exact`] reads the law from: u32 (when every numerator fits, a quarter of
/// the memory of u128), u64 or u128.
trait Cell: Copy + Default + Send + Sync + Kept {}
impl Cell for u32 {}
impl Cell for u64 {}
impl Cell for u128 {}

/// The orderings a pull reads for each ordering y: y ∘ m⁻¹ for each move's inverse map
/// (`source[slot] = y[inverse[slot]]`), or y with the positions of each swap exchanged.
#[derive(Clone, Copy)]
enum Images<'a> {
    Moves(&'a [Vec<usize>]),
    Swaps(&'a [Option<(usize, usize)>]),
}

/// `numerators` as `C`, relabelled by the swap `first` if there is one: cell x holds
/// numerators(x ∘ first), x ∘ first being x with the two positions exchanged. The copy is
/// written into a table of `spare`.
fn relabelled<C: Cell>(
    numerators: &[u128],
    first: Option<(usize, usize)>,
    n: usize,
    threads: usize,
    narrow: impl Fn(u128) -> C + Copy + Send + Sync,
    spare: &mut Spare,
) -> Vec<C> {
    let mut table = spare.overwritten(numerators.len());
    let Some(first) = first else {
        fill_in_parts(&mut table, threads, &Narrow { numerators, narrow });
        return table;
    };
    fill_in_parts(
        &mut table,
        threads,
        &Relabel {
            numerators,
            first,
            n,
            narrow,
        },
    );
    table
}

/// [`relabelled`]'s cells without a swap: numerators(x), narrowed (a copy of a fresh table at
/// 10 cards is 29 MB of pages for the kernel to zero on the threads that first write them).
struct Narrow<'a, N> {
    numerators: &'a [u128],
    narrow: N,
}

impl<C: Cell, N: Fn(u128) -> C + Sync> FillRange<C> for Narrow<'_, N> {
    #[inline(always)]
    fn fill(&self, start: usize, chunk: &mut [C]) {
        for (cell, &x) in chunk.iter_mut().zip(&self.numerators[start..]) {
            *cell = (self.narrow)(x);
        }
    }
}

/// [`relabelled`]'s cells: numerators(x ∘ first), narrowed.
struct Relabel<'a, N> {
    numerators: &'a [u128],
    first: (usize, usize),
    n: usize,
    narrow: N,
}

impl<C: Cell, N: Fn(u128) -> C + Sync> FillRange<C> for Relabel<'_, N> {
    #[inline(always)]
    fn fill(&self, start: usize, chunk: &mut [C]) {
        let (low, high) = self.first;
        let mut deck = [0 as Card; MAX_EXACT_DECK];
        let deck = &mut deck[..self.n];
        unrank_into(start, deck);
        for cell in chunk.iter_mut() {
            deck.swap(low, high);
            *cell = (self.narrow)(self.numerators[rank(deck)]);
            deck.swap(low, high);
            next_permutation(deck);
        }
    }
}

/// [`pull_exact`] in the integers `T`, the sums widened to u128 as they are written.
fn pull_in<C: Cell, T: Numerator + From<C>>(
    numerators: &[C],
    images: Images<'_>,
    weights: &[T],
    n: usize,
    threads: usize,
    mut next: Vec<u128>,
) -> Vec<u128> {
    next.resize(numerators.len(), 0);
    fill_in_parts(
        &mut next,
        threads,
        &Pull {
            numerators,
            images,
            weights,
            n,
        },
    );
    next
}

/// [`pull_exact`]'s sums.
struct Pull<'a, C, T> {
    numerators: &'a [C],
    images: Images<'a>,
    weights: &'a [T],
    n: usize,
}

impl<C: Cell, T: Numerator + From<C>> FillRange<u128> for Pull<'_, C, T> {
    /// The sums for the orderings of ranks `start..start + chunk.len()`, into `chunk`.
    #[inline(always)]
    fn fill(&self, start: usize, chunk: &mut [u128]) {
        let Pull {
            numerators,
            images,
            weights,
            n,
        } = *self;
        let mut source = [0 as Card; MAX_EXACT_DECK];
        let source = &mut source[..n];
        let mut swapping = SwapRanks::new(n);
        // A loop of its own rather than `for_each_in_rank_range`'s closure, which would be
        // compiled apart, without the POPCNT of the caller.
        let mut deck = [0 as Card; MAX_EXACT_DECK];
        let deck = &mut deck[..n];
        unrank_into(start, deck);
        for (cell, sum) in (start..).zip(chunk.iter_mut()) {
            if interrupt::requested() {
                return;
            }
            let mut total = T::default();
            match images {
                Images::Swaps(swaps) => {
                    swapping.load(deck, cell);
                    for (&swap, &weight) in swaps.iter().zip(weights) {
                        total += T::from(numerators[swapping.rank_after(swap)]) * weight;
                    }
                }
                Images::Moves(inverses) => {
                    for (inverse, &weight) in inverses.iter().zip(weights) {
                        for (slot, &from) in source.iter_mut().zip(inverse) {
                            *slot = deck[from];
                        }
                        total += T::from(numerators[rank(source)]) * weight;
                    }
                }
            }
            *sum = total.into();
            next_permutation(deck);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::push::{Support, push_part, widened_sum};
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
        // A stage of 3-cycles that one swap makes swaps, as the naive shuffle's stages relative
        // to its all-zero path: m_c = t ∘ u_c with t = (1 4) and u_c = (1 c), so m_c[p] =
        // t[u_c[p]]; u_1 is nothing, and m_4 = t ∘ t is the identity.
        let cycles: Vec<Vec<Card>> = (0..n as Card)
            .map(|c| {
                let mut u: Vec<Card> = (0..n as Card).collect();
                u.swap(1, usize::from(c));
                u.iter()
                    .map(|&p| match p {
                        1 => 4,
                        4 => 1,
                        p => p,
                    })
                    .collect()
            })
            .collect();
        assert!(cycles.iter().any(|m| {
            let moved = m.iter().enumerate().filter(|&(p, &c)| usize::from(c) != p);
            moved.count() == 3
        }));
        check_pull_against_push(n, &numerators, &cycles, &[3, 1, 4, 1, 5, 9]);
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
        // The push of this module's sibling, over the whole support in two parts: the left
        // from the table, the right from (rank, numerator) pairs.
        let support: Vec<usize> = (0..cells).filter(|&c| numerators[c] != 0).collect();
        let (left, right) = support.split_at(support.len() / 3);
        let right_pairs: Vec<(usize, u128)> = right.iter().map(|&c| (c, numerators[c])).collect();
        let left_part = Support::Table {
            numerators,
            ranks: left,
        };
        let right_part = Support::Pairs(&right_pairs);
        let mut parts = push_part(left_part, moves, weights, n, vec![0; cells]);
        for (total, count) in parts
            .iter_mut()
            .zip(push_part(right_part, moves, weights, n, vec![0; cells]))
        {
            *total += count;
        }
        assert_eq!(parts, pushed, "push_part");
        // The same parts counted in 32 bits (every sum here is below 2^20), and shifted 33 bits
        // up (above 2^32) in 64 bits, then widened and added as a pushed stage adds them.
        let narrow = vec![
            push_part(left_part, moves, weights, n, vec![0u32; cells]),
            push_part(right_part, moves, weights, n, vec![0u32; cells]),
        ];
        assert_eq!(widened_sum(&narrow, vec![7; 2], 1), pushed, "32-bit push_part");
        let shifted: Vec<u128> = numerators.iter().map(|&x| x << 33).collect();
        let shifted_pairs: Vec<(usize, u128)> = right.iter().map(|&c| (c, shifted[c])).collect();
        let left_part = Support::Table {
            numerators: &shifted,
            ranks: left,
        };
        let right_part = Support::Pairs(&shifted_pairs);
        let wide = vec![
            push_part(left_part, moves, weights, n, vec![0u64; cells]),
            push_part(right_part, moves, weights, n, vec![0u64; cells]),
        ];
        let expected: Vec<u128> = pushed.iter().map(|&x| x << 33).collect();
        assert_eq!(widened_sum(&wide, Vec::new(), 3), expected, "64-bit, 3 ranges");
        // Numerators below 2^10 read from 32-bit cells and summed in 64 bits (the denominator
        // fits), the same shifted 33 bits up (above 2^32) read from 64-bit cells, and either
        // in 128 bits (a denominator that does not fit): the sums are linear in the numerators.
        for (shift, denominator) in [(0, 1u128 << 40), (33, 1 << 62), (0, u128::MAX)] {
            let shifted: Vec<u128> = numerators.iter().map(|&x| x << shift).collect();
            let expected: Vec<u128> = pushed.iter().map(|&x| x << shift).collect();
            for threads in [1, 3] {
                assert_eq!(
                    pull_exact(
                        PulledLaw {
                            numerators: &shifted,
                            largest: shifted.iter().copied().max().unwrap_or(0),
                        },
                        moves,
                        weights,
                        denominator,
                        n,
                        threads,
                        &mut Spare::default(),
                    ),
                    expected,
                    "{threads} threads, numerators shifted {shift}, denominator {denominator}"
                );
            }
        }
    }
}
