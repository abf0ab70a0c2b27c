//! A stage of an exact law pushed ([`push_stage`]): each ordering x of the law's support
//! carried to x ∘ m for every move m of the stage, into counters of its own thread
//! ([`push_part`]), for laws whose support is a small share of the n! orderings (a dense one is
//! pulled, [`super::pull`]); or, for a law on so few orderings that an n! table would cost more
//! than the stage, into a sorted list of (rank, numerator) pairs ([`push_sparse`]).

use super::MAX_EXACT_DECK;
use super::swaps::{SwapRanks, SwapStage};
use super::tables::{
    Kept, PIECES_PER_THREAD, Pieces, Spare, fill_in_parts, range_length, read_in_parts,
};
use crate::engine::algorithms::Card;
use crate::engine::permutation::{factorial, next_permutation, rank, unrank_into};
use crate::system::{interrupt, pages};

/// Compositions (orderings of the support times moves) from which a pushed stage is split
/// between threads: below, a second n! table to zero and add would cost more than it saves.
const PUSH_SPLIT_FROM_COMPOSITIONS: usize = 1 << 20;

/// The numerators over the product `denominator` of the stage of `moves` and `weights` pushed
/// from the orderings x of `support`, split in ranges of ranks each carried into the counters
/// of its own thread (one thread when the stage is too small for a second table to pay). The
/// threads count in the narrowest integers that hold `denominator`, then their parts are
/// added, widened, into one table of n! numerators. The numerators are integers, so the
/// ranges' sums (and the pull's) add up to the same law whatever the split or the way (the
/// float branch of [`super::push_through_split`] keeps one order, and one thread).
pub(super) fn push_stage(
    support: Support,
    moves: &[Vec<Card>],
    weights: &[u128],
    denominator: u128,
    n: usize,
    threads: usize,
    spare: &mut Spare,
) -> Vec<u128> {
    let threads = if support.len() * moves.len() < PUSH_SPLIT_FROM_COMPOSITIONS {
        1
    } else {
        threads
    };
    let push = PushedStage {
        support,
        moves,
        weights,
        n,
        threads,
    };
    let cells = factorial(n) as usize;
    if denominator <= <u32 as Counter>::LARGEST {
        push.summed::<u32>(cells, spare)
    } else if denominator <= <u64 as Counter>::LARGEST {
        push.summed::<u64>(cells, spare)
    } else {
        push.summed_wide(cells, spare)
    }
}

/// The ranks of the non-zero cells of `numerators`, in increasing order, given how many of
/// them each of the ranges that [`super::tables::read_in_parts`] splits the table in for
/// `threads` holds (`counts`, one a range): each range's ranks are written by a thread of its
/// own into its own part of the list (half the n! orderings at 10 cards: 14 MB that one
/// thread took 13 ms to gather).
pub(super) fn support_ranks(numerators: &[u128], counts: &[usize], threads: usize) -> Vec<usize> {
    let mut ranks = pages::zeroed(counts.iter().sum());
    let share = range_length(numerators.len(), threads);
    debug_assert_eq!(counts.len(), numerators.len().div_ceil(share).max(1));
    let gather = |start: usize, cells: &[u128], into: &mut [usize]| {
        let nonzero = (start..).zip(cells).filter(|&(_, &count)| count != 0);
        for (slot, (rank, _)) in into.iter_mut().zip(nonzero) {
            *slot = rank;
        }
    };
    if counts.len() <= 1 {
        gather(0, numerators, &mut ranks);
        return ranks;
    }
    std::thread::scope(|scope| {
        let mut rest = &mut ranks[..];
        for (part, (cells, &count)) in numerators.chunks(share).zip(counts).enumerate() {
            let (into, after) = std::mem::take(&mut rest).split_at_mut(count);
            rest = after;
            scope.spawn(move || gather(part * share, cells, into));
        }
    });
    ranks
}

/// The orderings a pushed stage carries, in rank order, with their numerators.
#[derive(Clone, Copy, Debug)]
pub(super) enum Support<'a> {
    /// The cells of ranks `ranks` (its non-zero ones) of the table `numerators`.
    Table {
        numerators: &'a [u128],
        ranks: &'a [usize],
    },
    /// (rank, numerator) pairs: a law carried without an n! table ([`push_sparse`]).
    Pairs(&'a [(usize, u128)]),
}

impl<'a> Support<'a> {
    /// The number of orderings.
    pub(super) fn len(self) -> usize {
        match self {
            Support::Table { ranks, .. } => ranks.len(),
            Support::Pairs(pairs) => pairs.len(),
        }
    }

    /// The orderings in ranges of `share` (the last shorter), in rank order.
    fn chunks(self, share: usize) -> Vec<Support<'a>> {
        match self {
            Support::Table { numerators, ranks } => ranks
                .chunks(share)
                .map(|ranks| Support::Table { numerators, ranks })
                .collect(),
            Support::Pairs(pairs) => pairs.chunks(share).map(Support::Pairs).collect(),
        }
    }
}

/// The counters of one thread: Σ over the orderings x of `support` of numerator(x) ·
/// weight(m) at x ∘ m, for each move m (`composed[slot] = x[m[slot]]`), added into `next`
/// (n! numerators, zero or a part already counted). Ctrl-C is polled at every ordering; the
/// caller reads it after.
///
/// The counters are of any width `C` that holds the stage's product denominator (which bounds
/// every numerator, product and partial sum of the stage): a narrow table is a smaller share
/// of the caches that its random updates walk, and fewer pages to fault and zero (u32 at 10
/// cards is 14.5 MB, u128 58 MB).
pub(super) fn push_part<C: Counter>(
    support: Support,
    moves: &[Vec<Card>],
    weights: &[u128],
    n: usize,
    mut next: Vec<C>,
) -> Vec<C> {
    let mut add = |image: usize, count: u128| next[image] += C::narrowed(count);
    match support {
        Support::Table { numerators, ranks } => {
            let support = ranks.iter().map(|&cell| (cell, numerators[cell]));
            push_compiled(support, moves, weights, n, &mut add);
        }
        Support::Pairs(pairs) => push_compiled(pairs.iter().copied(), moves, weights, n, &mut add),
    }
    next
}

/// A stage pushed from the orderings of `support`, split in `threads` ranges of ranks, each
/// carried into the counters of its own thread.
pub(super) struct PushedStage<'a> {
    pub(super) support: Support<'a>,
    pub(super) moves: &'a [Vec<Card>],
    pub(super) weights: &'a [u128],
    pub(super) n: usize,
    pub(super) threads: usize,
}

impl PushedStage<'_> {
    /// The threads' counters, each table from `table` (n! zeros): each thread (the calling
    /// one among them) carries the next of [`PIECES_PER_THREAD`] ranges of the support a
    /// thread into its own counters until none is left, so that a thread slowed takes fewer
    /// (the numerators are integers: the same sums whichever counters a range went to).
    pub(super) fn counted<C: Counter>(&self, mut table: impl FnMut() -> Vec<C>) -> Vec<Vec<C>> {
        let PushedStage {
            support,
            moves,
            weights,
            n,
            threads,
        } = *self;
        let threads = threads.max(1);
        let share = range_length(support.len(), threads * PIECES_PER_THREAD);
        let pieces = Pieces::new(support.chunks(share).into_iter());
        let carry = |mut table: Vec<C>| {
            while let Some(piece) = pieces.next() {
                table = push_part(piece, moves, weights, n, table);
            }
            table
        };
        if threads == 1 {
            return vec![carry(table())];
        }
        let first_table = table();
        let tables: Vec<Vec<C>> = (1..threads).map(|_| table()).collect();
        std::thread::scope(|scope| {
            let workers: Vec<_> = tables
                .into_iter()
                .map(|table| scope.spawn(|| carry(table)))
                .collect();
            let mut parts = vec![carry(first_table)];
            parts.extend(
                workers
                    .into_iter()
                    .map(|w| w.join().expect("a stage thread")),
            );
            parts
        })
    }
}

impl PushedStage<'_> {
    /// The stage's numerators over `cells` orderings: counted by the threads in `C`, their
    /// tables taken from `spare` and kept there after, and summed into a table of `spare`.
    pub(super) fn summed<C: Counter + Kept + Sync>(
        &self,
        cells: usize,
        spare: &mut Spare,
    ) -> Vec<u128> {
        let parts = self.counted(|| spare.zeroed::<C>(cells));
        let next = widened_sum(&parts, spare.overwritten(cells), self.threads);
        for part in parts {
            spare.keep(part);
        }
        next
    }

    /// [`PushedStage::summed`] in u128, the threads' tables summed into the first.
    pub(super) fn summed_wide(&self, cells: usize, spare: &mut Spare) -> Vec<u128> {
        let mut parts = self.counted(|| spare.zeroed::<u128>(cells));
        let mut next = parts.swap_remove(0);
        for part in parts {
            for (total, &count) in next.iter_mut().zip(&part) {
                *total += count;
            }
            spare.keep(part);
        }
        next
    }
}

/// The sum of the threads' counters `parts` (one table or more, of one length), widened to
/// u128 and written over `into`, which takes their length: in `threads` ranges of cells, each
/// summed by a thread of its own (a fresh `into` is faulted in and zeroed by the kernel on the
/// thread that first writes it, so that those faults are split too).
pub(super) fn widened_sum<C: Counter + Sync>(
    parts: &[Vec<C>],
    mut into: Vec<u128>,
    threads: usize,
) -> Vec<u128> {
    let Some(first) = parts.first() else {
        into.clear();
        return into;
    };
    into.resize(first.len(), 0);
    let sum_range = |start: usize, totals: &mut [u128]| {
        let range = start..start + totals.len();
        for (total, &count) in totals.iter_mut().zip(&first[range.clone()]) {
            *total = count.widened();
        }
        for part in &parts[1..] {
            for (total, &count) in totals.iter_mut().zip(&part[range.clone()]) {
                *total += count.widened();
            }
        }
    };
    fill_in_parts(&mut into, threads, &sum_range);
    into
}

/// An integer a pushed stage counts in ([`push_part`]): u32, u64 or u128, chosen so that the
/// stage's product denominator fits.
pub(super) trait Counter: Copy + Default + Send + std::ops::AddAssign {
    /// The largest value the counter holds.
    const LARGEST: u128;
    /// `value` as a counter: the caller has checked that it fits ([`Counter::LARGEST`]).
    fn narrowed(value: u128) -> Self;
    /// The counter as a u128.
    fn widened(self) -> u128;
}

/// [`Counter`] for a primitive integer narrower than u128.
macro_rules! narrow_counter {
    ($($integer:ty),*) => {$(
        impl Counter for $integer {
            const LARGEST: u128 = <$integer>::MAX as u128;
            #[inline(always)]
            fn narrowed(value: u128) -> $integer {
                debug_assert!(value <= <Self as Counter>::LARGEST);
                value as $integer
            }
            #[inline(always)]
            fn widened(self) -> u128 {
                u128::from(self)
            }
        }
    )*};
}

narrow_counter!(u32, u64);

impl Counter for u128 {
    const LARGEST: u128 = u128::MAX;
    #[inline(always)]
    fn narrowed(value: u128) -> u128 {
        value
    }
    #[inline(always)]
    fn widened(self) -> u128 {
        self
    }
}

/// Images (orderings of a sparse law times moves) from which [`push_sparse`] is split between
/// threads: the naive shuffle's last sparse stage at 10 cards gathers and sorts 302,400 pairs,
/// 20 ms on one thread; below a few thousand a thread costs more than it saves.
const SPARSE_SPLIT_FROM_IMAGES: usize = 1 << 16;

/// A law on few orderings pushed through a stage without an n! table: `entries` are its
/// (rank, numerator) pairs in rank order; the stage's images are gathered as pairs, sorted
/// by rank and those of one ordering added, so the result is again in rank order, without
/// zeros, the same numerators [`push_part`] gives at those ranks. A large law is split in
/// `threads` ranges of its pairs, each pushed and sorted by a thread of its own, and the
/// sorted lists merged (the numerators are integers: the same sums whatever the split).
/// Ctrl-C is polled at every ordering; the caller reads it after.
pub(super) fn push_sparse(
    entries: &[(usize, u128)],
    moves: &[Vec<Card>],
    weights: &[u128],
    n: usize,
    threads: usize,
) -> Vec<(usize, u128)> {
    let threads = if entries.len() * moves.len() < SPARSE_SPLIT_FROM_IMAGES {
        1
    } else {
        threads
    };
    let parts = read_in_parts(entries, threads, |_, part| {
        sorted_images(part, moves, weights, n)
    });
    let mut merged = parts.into_iter().reduce(merged_images).unwrap_or_default();
    merged.retain(|&(_, count)| count != 0);
    merged
}

/// The images of `entries` through the stage, sorted by rank, those of one rank added.
fn sorted_images(
    entries: &[(usize, u128)],
    moves: &[Vec<Card>],
    weights: &[u128],
    n: usize,
) -> Vec<(usize, u128)> {
    let mut images = Vec::with_capacity(entries.len() * moves.len());
    push_compiled(entries.iter().copied(), moves, weights, n, |image, count| {
        images.push((image, count));
    });
    images.sort_unstable_by_key(|&(image, _)| image);
    let mut merged: Vec<(usize, u128)> = Vec::with_capacity(images.len());
    for (image, count) in images {
        match merged.last_mut() {
            Some((last, total)) if *last == image => *total += count,
            _ => merged.push((image, count)),
        }
    }
    merged
}

/// Two lists of [`sorted_images`] as one, sorted by rank, the numerators of a rank in both
/// added.
fn merged_images(left: Vec<(usize, u128)>, right: Vec<(usize, u128)>) -> Vec<(usize, u128)> {
    let mut merged = Vec::with_capacity(left.len() + right.len());
    let (mut left, mut right) = (left.into_iter().peekable(), right.into_iter().peekable());
    loop {
        let next = match (left.peek(), right.peek()) {
            (Some(&(a, x)), Some(&(b, y))) if a == b => {
                left.next();
                right.next();
                (a, x + y)
            }
            (Some(&(a, _)), Some(&(b, _))) if a < b => left.next().expect("peeked"),
            (_, Some(_)) => right.next().expect("peeked"),
            (Some(_), None) => left.next().expect("peeked"),
            (None, None) => return merged,
        };
        merged.push(next);
    }
}

/// Ranks ahead of the last ordering pushed from which the next is unranked rather than
/// stepped to: a lexicographic step costs about a tenth of an unranking of 10 cards.
const STEPS_BEFORE_UNRANKING: usize = 6;

/// [`push`], compiled with POPCNT where the CPU has it.
fn push_compiled(
    support: impl Iterator<Item = (usize, u128)>,
    moves: &[Vec<Card>],
    weights: &[u128],
    n: usize,
    sink: impl FnMut(usize, u128),
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has popcnt (checked above).
        unsafe { push_with_popcnt(support, moves, weights, n, sink) };
        return;
    }
    push(support, moves, weights, n, sink);
}

/// [`push`] compiled with the POPCNT instruction, which the ranks count with.
///
/// # Safety
/// The CPU must support `popcnt`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn push_with_popcnt(
    support: impl Iterator<Item = (usize, u128)>,
    moves: &[Vec<Card>],
    weights: &[u128],
    n: usize,
    sink: impl FnMut(usize, u128),
) {
    push(support, moves, weights, n, sink);
}

/// Gives `sink` (rank of x ∘ m, numerator(x) · weight(m)) for each ordering x of `support`
/// (its rank and numerator) and each move m of the stage (`composed[slot] = x[m[slot]]`): a
/// stage of swaps ([`SwapStage`]) ranks each image of x from the tables of [`SwapRanks`]
/// formed for x ∘ t, any other composes and ranks it.
#[inline(always)]
fn push(
    support: impl Iterator<Item = (usize, u128)>,
    moves: &[Vec<Card>],
    weights: &[u128],
    n: usize,
    mut sink: impl FnMut(usize, u128),
) {
    let stage = SwapStage::of(moves);
    let mut deck = [0 as Card; MAX_EXACT_DECK];
    let deck = &mut deck[..n];
    let mut composed = [0 as Card; MAX_EXACT_DECK];
    let composed = &mut composed[..n];
    let mut swapping = SwapRanks::new(n);
    // The rank `deck` holds: the support comes in rank order, so the next ordering is
    // usually a few lexicographic steps on (a step costs a few comparisons, an unranking a
    // division per card).
    let mut at: Option<usize> = None;
    for (cell, count) in support {
        if interrupt::requested() {
            return;
        }
        match at {
            Some(at) if cell > at && cell - at <= STEPS_BEFORE_UNRANKING => {
                for _ in at..cell {
                    next_permutation(deck);
                }
            }
            _ => unrank_into(cell, deck),
        }
        at = Some(cell);
        match &stage {
            Some(stage) => {
                match stage.first {
                    Some((low, high)) => {
                        composed.copy_from_slice(deck);
                        composed.swap(low, high);
                        swapping.load(composed, rank(composed));
                    }
                    None => swapping.load(deck, cell),
                }
                for (&swap, &weight) in stage.swaps.iter().zip(weights) {
                    sink(swapping.rank_after(swap), count * weight);
                }
            }
            None => {
                for (step_move, &weight) in moves.iter().zip(weights) {
                    for (slot, &position) in composed.iter_mut().zip(step_move) {
                        *slot = deck[usize::from(position)];
                    }
                    sink(rank(composed), count * weight);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tables::read_in_parts;
    use super::*;

    #[test]
    fn a_sparse_law_pushed_by_several_threads_is_the_law_pushed_by_one() {
        // Eight cards, 9,000 orderings of a scattered law (some numerators zero, some above
        // 2^64), through the eight swaps of position 3 weighted unequally: 72,000 images, past
        // the split, pushed by 1, 2 and 3 threads; each against the push into a table.
        let n = 8;
        let cells = factorial(n) as usize;
        let entries: Vec<(usize, u128)> = (0..9_000usize)
            .map(|i| (i * 4 + i % 3, ((i as u128 * 7_919) % 1_013) << (i % 70)))
            .collect();
        let moves: Vec<Vec<Card>> = (0..n as Card)
            .map(|c| {
                let mut m: Vec<Card> = (0..n as Card).collect();
                m.swap(3, usize::from(c));
                m
            })
            .collect();
        let weights: Vec<u128> = (1..=n as u128).map(|w| w * w % 5).collect();
        assert!(entries.len() * moves.len() >= SPARSE_SPLIT_FROM_IMAGES);
        let table = push_part(Support::Pairs(&entries), &moves, &weights, n, vec![0u128; cells]);
        let expected: Vec<(usize, u128)> = (0..cells)
            .filter(|&c| table[c] != 0)
            .map(|c| (c, table[c]))
            .collect();
        for threads in [1, 2, 3] {
            assert_eq!(
                push_sparse(&entries, &moves, &weights, n, threads),
                expected,
                "{threads} threads"
            );
        }
    }

    #[test]
    fn merged_images_add_the_numerators_of_a_rank_in_both_lists() {
        let left = vec![(1, 5u128), (4, 1), (9, 2)];
        let right = vec![(0, 3u128), (4, 6), (7, 1), (12, 8)];
        assert_eq!(
            merged_images(left.clone(), right.clone()),
            vec![(0, 3), (1, 5), (4, 7), (7, 1), (9, 2), (12, 8)]
        );
        assert_eq!(merged_images(left.clone(), Vec::new()), left);
        assert_eq!(merged_images(Vec::new(), right.clone()), right);
    }

    #[test]
    fn the_support_gathered_by_ranges_is_the_non_zero_ranks_in_order() {
        // Lengths that split evenly and not, zeros in runs and alone, and ranges with none.
        for len in [0usize, 1, 7, 100, 1_001] {
            let numerators: Vec<u128> = (0..len as u128)
                .map(|r| if r % 3 == 0 || (40..90).contains(&r) { 0 } else { r << 65 })
                .collect();
            let expected: Vec<usize> = (0..len).filter(|&r| numerators[r] != 0).collect();
            for threads in [1, 2, 3, 4] {
                let counts = read_in_parts(&numerators, threads, |_, cells| {
                    cells.iter().filter(|&&x| x != 0).count()
                });
                assert_eq!(
                    support_ranks(&numerators, &counts, threads),
                    expected,
                    "{len} cells, {threads} threads"
                );
            }
        }
    }
}
