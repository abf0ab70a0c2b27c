//! The repeated-deals test's counts: each deal's fingerprint (its cards packed, or a 128-bit hash
//! of them), the lists sorted, and the distinct values and pairs of equal values counted over
//! several lists, on two threads for the two long lists of a two-thread run.
//!
//! **Sampling, so that memory stays bounded** (hash-threshold sampling, the "adaptive
//! sampling" of distinct-element counting: Wegman's, in Flajolet 1990, "Adaptive sampling").
//! Each fingerprint has a 64-bit sampling key ([`sample_key`]); at level s a fingerprint is
//! kept iff the top s bits of its key are zero ([`sampled_at`]), so a sampled value is kept at
//! every lower level too. The level starts at 0 (everything kept, the exact count) and rises
//! by one whenever more than the cap are kept ([`fit_under`]), halving the lists. The key is a
//! function of the deal alone, so all copies of a deck are kept or all dropped: the repeats
//! among the kept deals are *exactly* the repeats among the deals whose value lies in the
//! sampled part of the deck space, whatever order the deals came in and however they were
//! split among threads, shards and files. The level reached is the smallest s at which at most
//! `cap` deals of the whole stream are kept, when each part keeps at most `cap` of its own: a
//! part rises to s only if more than `cap` of its own deals, so of the stream's, are kept at
//! s − 1. So the counts depend only on the deals and the cap, never on how they were split.

use crate::engine::algorithms::Card;
use crate::engine::fingerprint_sort;

/// Odd 64-bit multipliers of [`hash_deal`]'s two halves: digits of π and e, as in the
/// constants of many hash functions; any odd constants with mixed bits would do.
pub(super) const HASH_MULTIPLIERS: [u64; 2] = [0x243f_6a88_85a3_08d3, 0xb7e1_5162_8aed_2a6b];

/// A 128-bit hash of a deal of any length: its cards, four 16-bit cards to a 64-bit word w_i,
/// each word offset by its place, (w_i + (i + 1)·φ) with φ = 2^64/golden ratio, so that words at
/// different places count differently; each half sums the folded products
/// fold(x · m) = high ⊕ low of the 128-bit product of the offset word with its own multiplier m,
/// and ends in a multiply–xorshift avalanche. Each word's terms are independent of the others',
/// so the work is a few multiplies per word with no chain of dependent steps between words;
/// two deals that differ collide only if both 64-bit sums agree, about 2^−128 for unrelated
/// deals (a false repeat among N distinct deals: about N²/2^129, under 10⁻²³ for 10⁹ deals).
#[inline]
pub fn hash_deal(deal: &[Card]) -> u128 {
    let mut halves = [0u64; 2];
    let mut place = 0u64;
    let mut absorb = |word: u64, halves: &mut [u64; 2]| {
        place = place.wrapping_add(HASH_PLACE);
        let x = word.wrapping_add(place);
        for (half, &m) in halves.iter_mut().zip(&HASH_MULTIPLIERS) {
            let product = u128::from(x ^ m) * u128::from(m);
            *half = half.wrapping_add((product >> 64) as u64 ^ product as u64);
        }
    };
    for chunk in deal.chunks_exact(4) {
        absorb(hash_word(chunk), &mut halves);
    }
    absorb(hash_last_word(deal), &mut halves);
    hash_finish(halves)
}

/// φ = 2^64/golden ratio: word i of [`hash_deal`] is offset by (i + 1)·φ.
pub(super) const HASH_PLACE: u64 = 0x9e37_79b9_7f4a_7c15;

/// Word i of [`hash_deal`] before its offset: cards 4i to 4i + 3 (`four`), 16 bits each,
/// the first lowest.
#[inline(always)]
pub(super) fn hash_word(four: &[Card]) -> u64 {
    u64::from(four[0])
        | (u64::from(four[1]) << 16)
        | (u64::from(four[2]) << 32)
        | (u64::from(four[3]) << 48)
}

/// The last word of [`hash_deal`]: the cards past the last four (0 to 3 of them, the first
/// highest), and the length, so that deals of different lengths differ.
#[inline(always)]
pub(super) fn hash_last_word(deal: &[Card]) -> u64 {
    let tail = deal
        .chunks_exact(4)
        .remainder()
        .iter()
        .fold(0u64, |acc, &c| (acc << 16) | u64::from(c));
    tail ^ ((deal.len() as u64) << 48)
}

/// [`hash_deal`]'s avalanche: each half's sum mixed, the second in the high 64 bits.
#[inline(always)]
pub(super) fn hash_finish(halves: [u64; 2]) -> u128 {
    (u128::from(mix(halves[1], 0x1656_67b1_9e37_79f9)) << 64)
        | u128::from(mix(halves[0], 0xff51_afd7_ed55_8ccd))
}

/// The highest sampling level: 2^−63 of the deck space is kept (the key's top bit is never
/// the only one tested, see [`sampled_at`]). A level that high is reached only if more than
/// the cap of deals share a few keys, 2^−63 a deal under any law that is not built to collide
/// on the key; the lists then stay above the cap rather than the level wrapping.
pub const MAX_SAMPLE_LEVEL: u32 = 63;

/// The sampling key of a fingerprint: both halves mixed, since a packed deal's bits are not
/// uniform (its high bits are the first cards); for a hashed deal it is as uniform as the hash.
#[inline]
pub fn sample_key(print: u128) -> u64 {
    mix(
        (print >> 64) as u64 ^ mix(print as u64, HASH_MULTIPLIERS[0]),
        HASH_MULTIPLIERS[1],
    )
}

/// Whether a fingerprint is in the sample at `level`: the top `level` bits of its key are zero
/// (all are at level 0). Probability 2^−level for a key uniform over 64 bits.
#[inline]
pub fn sampled_at(print: u128, level: u32) -> bool {
    level == 0 || sample_key(print) >> (64 - level) == 0
}

/// Keep only the fingerprints sampled at `level` in each list (their order kept, so a sorted
/// list stays sorted); the number left.
pub(super) fn retain_sampled(lists: &mut [Vec<u128>], level: u32) -> u64 {
    let mut kept = 0;
    for list in lists.iter_mut() {
        if level > 0 {
            list.retain(|&print| sampled_at(print, level));
        }
        kept += list.len() as u64;
    }
    kept
}

/// Raise `level` one step at a time until at most `cap` fingerprints are left in `lists` (or
/// the level is [`MAX_SAMPLE_LEVEL`]); the number left.
pub(super) fn fit_under(lists: &mut [Vec<u128>], level: &mut u32, cap: u64) -> u64 {
    let mut kept: u64 = lists.iter().map(|list| list.len() as u64).sum();
    while kept > cap && *level < MAX_SAMPLE_LEVEL {
        *level += 1;
        kept = retain_sampled(lists, *level);
    }
    kept
}

/// Sort fingerprints (one worker's, or the merged lists before counting): a radix sort with the
/// order of `sort_unstable` ([`fingerprint_sort::sort_fingerprints`]).
pub(super) fn sort_fingerprints(list: &mut [u128]) {
    fingerprint_sort::sort_fingerprints(list);
}

/// A 64-bit multiply–xorshift step.
#[inline(always)]
pub(super) fn mix(x: u64, multiplier: u64) -> u64 {
    let x = (x ^ (x >> 31)).wrapping_mul(multiplier);
    x ^ (x >> 29)
}

/// Distinct values and pairs of equal values, Σ C(c, 2), over several lists: each is sorted
/// (in place, and left sorted), then they are merged, so that no list is ever copied into
/// another.
pub(super) fn count_repeats(lists: &mut [Vec<u128>]) -> (u64, u64) {
    if let [first, second] = lists
        && first.len() + second.len() >= PARALLEL_COUNT
        && std::thread::available_parallelism().is_ok_and(|cpus| cpus.get() >= 2)
    {
        return count_two_in_parallel(first, second);
    }
    if let [list] = lists {
        // One list (`check`'s, at the end of the input): its buckets sorted on two threads.
        if std::thread::available_parallelism().is_ok_and(|cpus| cpus.get() >= 2) {
            fingerprint_sort::sort_fingerprints_on_two_threads(list);
        } else {
            sort_fingerprints(list);
        }
        return count_sorted_repeats(list);
    }
    for list in lists.iter_mut() {
        sort_fingerprints(list);
    }
    if let [first, second] = lists {
        return count_merged_repeats(first, second);
    }
    let mut heads: Vec<usize> = vec![0; lists.len()];
    let mut distinct = 0u64;
    let mut pairs = 0u64;
    let mut current: Option<(u128, u64)> = None;
    loop {
        // The smallest head (lists are few: one per worker).
        let mut best: Option<(usize, u128)> = None;
        for (i, list) in lists.iter().enumerate() {
            if let Some(&value) = list.get(heads[i])
                && best.is_none_or(|(_, b)| value < b)
            {
                best = Some((i, value));
            }
        }
        let Some((i, value)) = best else { break };
        // Take the run of equal values in this list at once.
        let list = &lists[i];
        let start = heads[i];
        let mut end = start + 1;
        while end < list.len() && list[end] == value {
            end += 1;
        }
        heads[i] = end;
        let run = (end - start) as u64;
        current = match current {
            Some((v, c)) if v == value => Some((v, c + run)),
            Some((_, c)) => {
                distinct += 1;
                pairs += c * (c - 1) / 2;
                Some((value, run))
            }
            None => Some((value, run)),
        };
    }
    if let Some((_, c)) = current {
        distinct += 1;
        pairs += c * (c - 1) / 2;
    }
    (distinct, pairs)
}

/// Values in two lists from which [`count_repeats`] counts on two threads: the two lists of a
/// two-thread run of 10M deals take about 0.1 s to sort-check and merge on one, while the
/// other core has nothing to do.
pub(super) const PARALLEL_COUNT: usize = 1 << 20;

/// [`count_repeats`] of two lists on two threads: each list sorted (or found sorted) on its
/// own thread, then the values split at a pivot p, those below p in both lists counted on one
/// thread and the rest on the other. Every value equal to p is in the upper part of both lists,
/// so no value is counted in both parts, and the counts add up.
pub(super) fn count_two_in_parallel(first: &mut [u128], second: &mut [u128]) -> (u64, u64) {
    std::thread::scope(|scope| {
        scope.spawn(|| sort_fingerprints(first));
        sort_fingerprints(second);
    });
    let pivot = match (first.get(first.len() / 2), second.get(second.len() / 2)) {
        (Some(&p), _) | (None, Some(&p)) => p,
        (None, None) => return (0, 0),
    };
    let split_first = first.partition_point(|&value| value < pivot);
    let split_second = second.partition_point(|&value| value < pivot);
    let (below, (distinct, pairs)) = std::thread::scope(|scope| {
        let below =
            scope.spawn(|| count_merged_repeats(&first[..split_first], &second[..split_second]));
        let above = count_merged_repeats(&first[split_first..], &second[split_second..]);
        (below.join().expect("the count of the lower values"), above)
    });
    (below.0 + distinct, below.1 + pairs)
}

/// Distinct values and pairs of equal values of a sorted stream, fed value by value.
pub(super) struct RepeatCounter {
    distinct: u64,
    pairs: u64,
    /// How many values before the last one equal it (each makes a pair with the next equal).
    run: u64,
    last: u128,
}

impl RepeatCounter {
    /// A counter that has seen `first`.
    fn new(first: u128) -> Self {
        RepeatCounter {
            distinct: 1,
            pairs: 0,
            run: 0,
            last: first,
        }
    }

    /// Count `value`, not below the values before it.
    #[inline(always)]
    fn push(&mut self, value: u128) {
        if value == self.last {
            self.run += 1;
            self.pairs += self.run;
        } else {
            self.run = 0;
            self.distinct += 1;
            self.last = value;
        }
    }

    fn counts(&self) -> (u64, u64) {
        (self.distinct, self.pairs)
    }
}

/// [`count_repeats`] of one sorted list: one scan, each value compared with the one before.
pub(super) fn count_sorted_repeats(list: &[u128]) -> (u64, u64) {
    let Some((&first, rest)) = list.split_first() else {
        return (0, 0);
    };
    let mut counter = RepeatCounter::new(first);
    for &value in rest {
        counter.push(value);
    }
    counter.counts()
}

/// [`count_repeats`] of two sorted lists (a two-thread run's): their merge, fed to a
/// [`RepeatCounter`] as it goes. The step takes the smaller head with a conditional move rather
/// than a branch (which list holds the next hash output is a coin toss, so a branch is
/// mispredicted half the time): 3 ns a value where the general merge took 8.5 (BENCHMARKS.md).
pub(super) fn count_merged_repeats(a: &[u128], b: &[u128]) -> (u64, u64) {
    let (mut i, mut j) = (0, 0);
    let mut counter = match (a.first(), b.first()) {
        (None, _) => return count_sorted_repeats(b),
        (_, None) => return count_sorted_repeats(a),
        (Some(&x), Some(&y)) if x <= y => {
            i = 1;
            RepeatCounter::new(x)
        }
        (_, Some(&y)) => {
            j = 1;
            RepeatCounter::new(y)
        }
    };
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        let from_a = x <= y;
        counter.push(if from_a { x } else { y });
        i += usize::from(from_a);
        j += usize::from(!from_a);
    }
    for &value in a[i..].iter().chain(&b[j..]) {
        counter.push(value);
    }
    counter.counts()
}
