//! The sort of the deals' 128-bit fingerprints ([`crate::engine::deal_stream`]): the same order
//! as `sort_unstable`, about twice as fast on the millions of hash outputs a run keeps
//! (BENCHMARKS.md), with a scratch buffer of under 1% of the list and an O(n log n) worst case.
//!
//! **How.** A radix sort on a 32-bit key, the 32 bits of the fingerprints below the highest bit
//! that any of them sets (so that packed small-deck fingerprints, whose high bits are all zero,
//! are split as well as hashes), then a fix-up of the values whose keys are equal:
//! 1. one pass counts the top byte of the keys (and ORs the values, for the key's place);
//! 2. the list is permuted in place into its 256 buckets by that byte (American flag sort:
//!    McIlroy, Bostic and McIlroy, "Engineering radix sort", Computing Systems 6(1), 1993),
//!    following [`CHAINS`] chains of moves at once;
//! 3. each bucket, a 256th of the list on hash outputs (20,000 values of a 5M list: in the L2
//!    cache), is sorted by the key's low 24 bits, least significant byte first, through a
//!    scratch buffer (three stable scatters, then a copy back);
//! 4. runs of equal keys are sorted by the whole value. Hash outputs have few (about n²/2³³
//!    pairs among n values), but packed deals or crafted `check` input can have long ones: runs
//!    of up to [`INSERTION`] values take an insertion sort, longer ones `sort_unstable`, so the
//!    worst case stays O(n log n).
//!
//! **Memory.** The scratch holds one bucket, at most [`scratch_capacity`] values (twice a
//! uniform bucket, at least [`MIN_SCRATCH`]): 1/128 of the list, 16 bytes a value, so the
//! fingerprints' quarter of the memory limit grows by under 1%, where a whole-list LSD sort
//! (measured slower: 4 passes through main memory) would double it. A bucket larger than the
//! scratch (fingerprints far from uniform) and every bucket when the scratch cannot be had
//! (`try_reserve`) are sorted by `sort_unstable`, so the result never depends on memory.
//! Lists shorter than [`SMALL`] are left to `sort_unstable`; a list already sorted (the
//! workers' lists, counted again after the merge) is found by one scan and left as it is.

use crate::engine::counters::prefetch;

/// Lists shorter than this are sorted by `sort_unstable` (the radix passes' fixed costs, 256
/// buckets of a few values, would dominate).
pub const SMALL: usize = 1 << 14;

/// Runs of equal keys (and buckets) of at most this many values are sorted by insertion; longer
/// ones by `sort_unstable`.
pub const INSERTION: usize = 32;

/// Buckets of fewer values than this are sorted by `sort_unstable` (the three passes' 768
/// counters would cost more than they save).
const SMALL_BUCKET: usize = 512;

/// The least scratch allocated (values), so that moderately uneven buckets of a small list
/// still take the radix passes: 16 KiB.
pub const MIN_SCRATCH: usize = 1 << 10;

/// The values the scratch buffer holds for a list of `n`: twice the mean bucket, at least
/// [`MIN_SCRATCH`].
pub fn scratch_capacity(n: usize) -> usize {
    (n / 128).max(MIN_SCRATCH)
}

/// Where a value's 32-bit key sits: `key(v) = ((v >> right) as u32) << left`, the 32 bits below
/// the highest bit set in any value (left-aligned when the values have fewer than 32 bits).
#[derive(Clone, Copy)]
struct Key {
    right: u32,
    left: u32,
}

impl Key {
    /// The key of values whose OR is `or` (not 0).
    fn of(or: u128) -> Key {
        let top = 128 - or.leading_zeros();
        if top >= 32 {
            Key {
                right: top - 32,
                left: 0,
            }
        } else {
            Key {
                right: 0,
                left: 32 - top,
            }
        }
    }

}

/// How the passes read a value's 32-bit key: [`Key`] wherever it sits, or [`TopBits`], the
/// same key written as a constant for hash outputs (the highest bit set), so that each pass
/// takes it with one shift rather than a shift by a variable across 128 bits (hash outputs
/// sort about a fifth faster, measured on 10M values).
trait KeyOf: Copy + Send + Sync {
    /// The 32-bit key of `value`.
    fn of_value(self, value: u128) -> u32;

    /// The key's top byte: the bucket of steps 1 and 2.
    #[inline(always)]
    fn top(self, value: u128) -> usize {
        (self.of_value(value) >> 24) as usize
    }
}

impl KeyOf for Key {
    #[inline(always)]
    fn of_value(self, value: u128) -> u32 {
        ((value >> self.right) as u32) << self.left
    }
}

/// The key of values whose highest bit is set in some value, `Key::of(or)` for any such `or`:
/// their top 32 bits.
#[derive(Clone, Copy)]
struct TopBits;

impl KeyOf for TopBits {
    #[inline(always)]
    fn of_value(self, value: u128) -> u32 {
        (value >> 96) as u32
    }
}

/// Sort `list` ascending: the same result as `list.sort_unstable()` (see the module
/// documentation for how, and for the memory it takes).
pub fn sort_fingerprints(list: &mut [u128]) {
    sort_with_scratch(list, scratch_capacity(list.len()), false);
}

/// Lists of at least this many values take the second thread of
/// [`sort_fingerprints_on_two_threads`]: 2^18 values sort in about 4 ms, a thread starts in
/// tens of microseconds.
pub const TWO_THREADS: usize = 1 << 18;

/// [`sort_fingerprints`] with the buckets of step 3 and 4 (about two thirds of the time) shared
/// by two threads, when the list has at least [`TWO_THREADS`] values: the same order, for one
/// long list sorted while the other core has nothing to do (`check`'s fingerprints, counted
/// at the end of the input). Each thread has a scratch of its own, so the scratch is at most
/// 1/64 of the list.
pub fn sort_fingerprints_on_two_threads(list: &mut [u128]) {
    sort_with_scratch(list, scratch_capacity(list.len()), list.len() >= TWO_THREADS);
}

/// [`sort_fingerprints`] with a scratch of at most `most` values (0: as when none can be had)
/// for each thread that sorts buckets, on two threads when `two` (one if the second cannot be
/// started).
fn sort_with_scratch(list: &mut [u128], most: usize, two: bool) {
    if list.len() < SMALL {
        list.sort_unstable();
        return;
    }
    if list.is_sorted() {
        return;
    }
    // Pass 1: the OR of the values (for the key's place) and the top byte's counts, at the place
    // of hash outputs (the highest bit is set in some value); counted again elsewhere.
    let mut counts = [0usize; 256];
    let mut or = 0u128;
    for &value in list.iter() {
        or |= value;
        counts[TopBits.top(value)] += 1;
    }
    if or >> 127 == 1 {
        sort_by_key(list, TopBits, &counts, most, two);
        return;
    }
    let key = Key::of(or);
    counts = [0; 256];
    for &value in list.iter() {
        counts[key.top(value)] += 1;
    }
    sort_by_key(list, key, &counts, most, two);
}

/// Steps 2 to 4 of [`sort_with_scratch`] on `list` with its `key` and the counts of the key's
/// top byte.
fn sort_by_key<K: KeyOf>(list: &mut [u128], key: K, counts: &[usize; 256], most: usize, two: bool) {
    let mut starts = [0usize; 257];
    for (digit, &count) in counts.iter().enumerate() {
        starts[digit + 1] = starts[digit] + count;
    }
    partition(list, key, &starts);
    // Pass 3: each bucket by the key's low 24 bits.
    let largest = counts.iter().copied().max().unwrap_or(0);
    let room = largest.min(most);
    if two {
        // The buckets below the first that starts at or past the middle, and the others.
        let cut = starts.partition_point(|&start| start < list.len() / 2);
        let (low, high) = list.split_at_mut(starts[cut]);
        let (low_bounds, high_bounds) = (&starts[..=cut], &starts[cut..]);
        let finished = std::thread::scope(|scope| {
            let other = std::thread::Builder::new()
                .name("fingerprint sort".to_string())
                .spawn_scoped(scope, || sort_buckets(low, low_bounds, 0, key, room));
            sort_buckets(high, high_bounds, starts[cut], key, room);
            other.map(|thread| thread.join())
        });
        match finished {
            Ok(Ok(())) => {}
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            // No second thread: the low buckets are sorted here.
            Err(_) => sort_buckets(&mut list[..starts[cut]], low_bounds, 0, key, room),
        }
    } else {
        sort_buckets(list, &starts, 0, key, room);
    }
}

/// Steps 3 and 4 on the buckets laid out in `part` (which starts at `offset` in the list) at
/// the list's places `bounds[i]..bounds[i + 1]`, with a scratch of `room` values if it can be
/// had.
fn sort_buckets<K: KeyOf>(part: &mut [u128], bounds: &[usize], offset: usize, key: K, room: usize) {
    let mut scratch: Vec<u128> = Vec::new();
    if room >= SMALL_BUCKET && scratch.try_reserve_exact(room).is_ok() {
        scratch.resize(room, 0);
    }
    for bucket in bounds.windows(2) {
        let bucket = &mut part[bucket[0] - offset..bucket[1] - offset];
        if bucket.len() <= INSERTION {
            insertion_sort(bucket);
        } else if bucket.len() < SMALL_BUCKET || bucket.len() > scratch.len() {
            bucket.sort_unstable();
        } else {
            sort_low_bytes(bucket, &mut scratch[..bucket.len()], key);
            sort_equal_keys(bucket, key);
        }
    }
}

/// Chains of moves `partition` follows at once: each waits on a load from a far part of the
/// list, so several hide each other's latency (4 chains: 15–16 ns a value for the whole sort,
/// one chain 19–20).
pub const CHAINS: usize = 4;

/// How far ahead of a bucket's next free slot `partition` asks for the list's values (a cache
/// line of four values, two lines ahead): each bucket's free slots are taken in order, so
/// the value a chain will take there next is in the cache when it gets there. Measured
/// (`cargo bench --bench fingerprint_sort`, 5M hash outputs): the whole sort from 34.7 to 19–20
/// ns a value, where more chains (8, 16) or a longer reach (16) gained nothing more.
const PREFETCH_AHEAD: usize = 8;

/// A chain of moves of [`partition`]: the value in hand, its home bucket, and the hole it
/// opened (a slot of bucket `bucket`, whose value it took) for the value that will close it.
#[derive(Clone, Copy)]
struct Chain {
    hole: usize,
    bucket: usize,
    value: u128,
    home: usize,
}

/// Pass 2: permute `list` in place so that bucket d (values whose key's top byte is d) fills
/// `starts[d]..starts[d + 1]`, each value moved once.
///
/// `next[d]` is bucket d's first slot not yet claimed; the slots from there on hold values not
/// yet moved. A chain claims such a slot as its hole and takes its value, then moves the value
/// in hand to the next free slot of its home bucket, taking the value found there, until the
/// value in hand belongs to the hole's bucket and closes the hole. [`CHAINS`] chains run side by
/// side. Every claimed slot of a bucket is closed by a value of that bucket, so when a value's
/// home h has no free slot left, some chain's hole is in h (h's unplaced values are as many as
/// its holes and free slots): the value closes that hole, takes that chain's value in hand, and
/// that chain starts anew.
fn partition<K: KeyOf>(list: &mut [u128], key: K, starts: &[usize; 257]) {
    let mut next: [usize; 256] = std::array::from_fn(|digit| starts[digit]);
    // The first bucket that may still have a free slot.
    let mut seed = 0;
    let mut start = |list: &[u128], next: &mut [usize; 256]| -> Option<Chain> {
        while seed < 256 && next[seed] == starts[seed + 1] {
            seed += 1;
        }
        if seed == 256 {
            return None;
        }
        let hole = next[seed];
        next[seed] += 1;
        let value = list[hole];
        Some(Chain {
            hole,
            bucket: seed,
            value,
            home: key.top(value),
        })
    };
    let mut chains: [Option<Chain>; CHAINS] = [None; CHAINS];
    for chain in &mut chains {
        *chain = start(list, &mut next);
    }
    while chains.iter().any(Option::is_some) {
        for i in 0..CHAINS {
            let Some(mut chain) = chains[i] else {
                continue;
            };
            let home = chain.home;
            if home == chain.bucket {
                list[chain.hole] = chain.value;
                chains[i] = start(list, &mut next);
            } else if next[home] < starts[home + 1] {
                let slot = next[home];
                next[home] += 1;
                prefetch(list, slot + PREFETCH_AHEAD);
                std::mem::swap(&mut chain.value, &mut list[slot]);
                chain.home = key.top(chain.value);
                chains[i] = Some(chain);
            } else {
                // Another chain's hole is in `home` (this chain's own hole is not).
                let j = (0..CHAINS)
                    .find(|&j| chains[j].is_some_and(|other| other.bucket == home))
                    .expect("a bucket with no free slot and a value to take has a hole");
                let other = chains[j].expect("found above");
                list[other.hole] = chain.value;
                chain.value = other.value;
                chain.home = other.home;
                chains[i] = Some(chain);
                chains[j] = start(list, &mut next);
            }
        }
    }
}

/// Sort `bucket` stably by the low 24 bits of its keys: three counting scatters of one byte
/// each, least significant first, bucket → scratch → bucket → scratch, then a copy back.
fn sort_low_bytes<K: KeyOf>(bucket: &mut [u128], scratch: &mut [u128], key: K) {
    // What the unchecked writes of `scatter` rest on, checked here, once a bucket.
    assert_eq!(
        bucket.len(),
        scratch.len(),
        "a scratch of the bucket's length"
    );
    let mut counts = [[0u32; 256]; 3];
    for &value in bucket.iter() {
        let k = key.of_value(value);
        counts[0][(k & 0xff) as usize] += 1;
        counts[1][((k >> 8) & 0xff) as usize] += 1;
        counts[2][((k >> 16) & 0xff) as usize] += 1;
    }
    let mut offsets = [[0u32; 256]; 3];
    for (offsets, counts) in offsets.iter_mut().zip(&counts) {
        let mut sum = 0;
        for (offset, &count) in offsets.iter_mut().zip(counts) {
            *offset = sum;
            sum += count;
        }
    }
    let scatter = |from: &[u128], to: &mut [u128], offsets: &mut [u32; 256], shift: u32| {
        for &value in from {
            let digit = ((key.of_value(value) >> shift) & 0xff) as usize;
            let at = offsets[digit] as usize;
            debug_assert!(at < to.len());
            // SAFETY: `offsets[digit]` starts at the count of the values of smaller digits and
            // goes up by one per value of this digit, so it stays below `from.len()` =
            // `to.len()` (the offsets are prefix sums of the counts of these values, in any order).
            unsafe { *to.get_unchecked_mut(at) = value };
            offsets[digit] += 1;
        }
    };
    let [low, middle, high] = &mut offsets;
    scatter(bucket, scratch, low, 0);
    scatter(scratch, bucket, middle, 8);
    scatter(bucket, scratch, high, 16);
    bucket.copy_from_slice(scratch);
}

/// Sort each run of values with equal keys in `list` (sorted by key) by the whole value.
fn sort_equal_keys<K: KeyOf>(list: &mut [u128], key: K) {
    let mut start = 0;
    while start < list.len() {
        let k = key.of_value(list[start]);
        let mut end = start + 1;
        while end < list.len() && key.of_value(list[end]) == k {
            end += 1;
        }
        let run = &mut list[start..end];
        if run.len() <= INSERTION {
            insertion_sort(run);
        } else {
            run.sort_unstable();
        }
        start = end;
    }
}

/// Insertion sort, for a few values.
fn insertion_sort(list: &mut [u128]) {
    for i in 1..list.len() {
        let value = list[i];
        let mut j = i;
        while j > 0 && list[j - 1] > value {
            list[j] = list[j - 1];
            j -= 1;
        }
        list[j] = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64 (Steele, Lea and Flood 2014): a seeded stream of test values.
    struct SplitMix(u64);

    impl SplitMix {
        fn next(&mut self) -> u64 {
            crate::engine::random_source::splitmix64(&mut self.0)
        }

        fn wide(&mut self) -> u128 {
            (u128::from(self.next()) << 64) | u128::from(self.next())
        }
    }

    /// Sorts `list` with `sort_unstable`, and here on one thread and on two (whatever its
    /// length), and compares them.
    fn sorts_like_sort_unstable(list: Vec<u128>, what: &str) {
        let mut expected = list.clone();
        expected.sort_unstable();
        let mut two = list.clone();
        let mut sorted = list;
        sort_fingerprints(&mut sorted);
        assert!(
            sorted == expected,
            "{what}, {} values: not sort_unstable's order",
            sorted.len()
        );
        let most = scratch_capacity(two.len());
        sort_with_scratch(&mut two, most, true);
        assert!(
            two == expected,
            "{what}, {} values on two threads: not sort_unstable's order",
            two.len()
        );
    }

    /// Sizes around the thresholds: the small-list cut-off, and lists whose 256 buckets hold
    /// about `INSERTION`, `SMALL_BUCKET` and `MIN_SCRATCH` values (each side of them).
    fn sizes() -> Vec<usize> {
        let mut sizes = vec![0, 1, 2, 3, 100, SMALL - 1, SMALL, SMALL + 1];
        for per_bucket in [INSERTION, SMALL_BUCKET, MIN_SCRATCH] {
            for size in [
                per_bucket * 256 - 257,
                per_bucket * 256,
                per_bucket * 256 + 255,
            ] {
                sizes.push(size.max(SMALL));
            }
        }
        sizes.push(300_000);
        sizes
    }

    #[test]
    fn random_fingerprints_sort_as_sort_unstable_does() {
        let mut random = SplitMix(1);
        for size in sizes() {
            let list: Vec<u128> = (0..size).map(|_| random.wide()).collect();
            sorts_like_sort_unstable(list, "random");
        }
    }

    #[test]
    fn packed_small_deck_fingerprints_sort_as_sort_unstable_does() {
        // Deals packed as `DealStream` packs them (⌈log2 n⌉ bits a card): 5 cards of 52 (30
        // bits, fewer than the key's 32), 10 of 52 (60 bits) and whole 4-card decks (8 bits:
        // 24 distinct values, long runs of equal values).
        let mut random = SplitMix(2);
        for (deck, dealt) in [(52u64, 5), (52, 10), (4, 4)] {
            let bits = 64 - (deck - 1).leading_zeros();
            for size in sizes() {
                let list: Vec<u128> = (0..size)
                    .map(|_| {
                        let mut cards: Vec<u64> = (0..deck).collect();
                        // Fisher–Yates, dealing the first `dealt` cards.
                        for i in 0..dealt {
                            let j = i + (random.next() % (deck - i as u64)) as usize;
                            cards.swap(i, j);
                        }
                        cards[..dealt]
                            .iter()
                            .fold(0u128, |acc, &c| (acc << bits) | u128::from(c))
                    })
                    .collect();
                sorts_like_sort_unstable(list, &format!("{dealt} of {deck} packed"));
            }
        }
    }

    #[test]
    fn equal_and_few_distinct_and_presorted_lists_sort_as_sort_unstable_does() {
        let mut random = SplitMix(3);
        for size in sizes() {
            let value = random.wide();
            sorts_like_sort_unstable(vec![value; size], "all equal");
            sorts_like_sort_unstable(vec![0; size], "all zero");
            let few: Vec<u128> = (0..4).map(|_| random.wide()).collect();
            let list: Vec<u128> = (0..size).map(|_| few[random.next() as usize % 4]).collect();
            sorts_like_sort_unstable(list.clone(), "four distinct values");
            let mut sorted: Vec<u128> = (0..size).map(|_| random.wide()).collect();
            sorted.sort_unstable();
            sorts_like_sort_unstable(sorted.clone(), "already sorted");
            sorted.reverse();
            sorts_like_sort_unstable(sorted.clone(), "sorted backwards");
            // Two sorted lists one after the other (a tally file's lists, read as one).
            let mut halves: Vec<u128> = (0..size).map(|_| random.wide()).collect();
            halves[..size / 2].sort_unstable();
            halves[size / 2..].sort_unstable();
            sorts_like_sort_unstable(halves, "two sorted halves");
        }
    }

    #[test]
    fn equal_keys_and_uneven_buckets_sort_as_sort_unstable_does() {
        let mut random = SplitMix(4);
        for size in sizes() {
            // The top 32 bits shared by all (one run of equal keys: the fix-up's worst case).
            let top = u128::from(random.next()) << 96 | 1 << 127;
            let list: Vec<u128> = (0..size).map(|_| top | random.wide() >> 32).collect();
            sorts_like_sort_unstable(list, "one key");
            // Runs of equal keys of every length up to 3·INSERTION, across bucket bounds.
            let mut list = Vec::with_capacity(size);
            while list.len() < size {
                let key = u128::from(random.next() as u32) << 96;
                let run = random.next() as usize % (3 * INSERTION) + 1;
                for _ in 0..run.min(size - list.len()) {
                    list.push(key | random.wide() >> 32);
                }
            }
            sorts_like_sort_unstable(list, "runs of equal keys");
            // Half the values in one bucket (larger than the scratch), half spread.
            let list: Vec<u128> = (0..size)
                .map(|i| {
                    let value = random.wide();
                    if i % 2 == 0 { value >> 8 } else { value }
                })
                .collect();
            sorts_like_sort_unstable(list, "one crowded bucket");
            // Values with only their low bits set, and a single high bit besides.
            let list: Vec<u128> = (0..size)
                .map(|i| u128::from(random.next() as u16) | u128::from(i == 7) << 127)
                .collect();
            sorts_like_sort_unstable(list, "16-bit values and one large one");
        }
    }

    #[test]
    fn without_scratch_or_with_little_the_order_is_the_same() {
        // No scratch (the allocation failed: every bucket by `sort_unstable`), and a scratch
        // just above the smallest radix bucket (the larger buckets by `sort_unstable`, the
        // others by the radix passes).
        let mut random = SplitMix(5);
        for most in [0, SMALL_BUCKET + 40] {
            for size in [SMALL, 150_000, 300_000] {
                let list: Vec<u128> = (0..size).map(|_| random.wide()).collect();
                let mut expected = list.clone();
                expected.sort_unstable();
                for two in [false, true] {
                    let mut sorted = list.clone();
                    sort_with_scratch(&mut sorted, most, two);
                    assert!(sorted == expected, "scratch of {most}, {size} values, {two}");
                }
            }
        }
    }

    #[test]
    fn the_key_is_the_32_bits_below_the_highest_bit_set() {
        let key = Key::of(u128::MAX);
        assert_eq!(key.of_value(0xdead_beef << 96 | 0x1234), 0xdead_beef);
        // Hash outputs' key written as a constant: the same key for any OR with the top bit.
        let mut random = SplitMix(9);
        for _ in 0..1000 {
            let (value, or) = (random.wide(), random.wide() | 1 << 127);
            assert_eq!(TopBits.of_value(value), Key::of(or).of_value(value));
            assert_eq!(TopBits.top(value), Key::of(or).top(value));
        }
        // Highest bit 40: the key is bits 9..41.
        let key = Key::of(1 << 40);
        assert_eq!(key.of_value(0xdead_beef << 9 | 0x1ff), 0xdead_beef);
        // Fewer than 32 bits: left-aligned, so that the top byte still splits the values.
        let key = Key::of(0x3fff_ffff);
        assert_eq!(key.of_value(0x3fff_ffff), 0xffff_fffc);
        assert_eq!(key.top(0x2000_0000), 0x80);
    }

    #[test]
    fn the_scratch_is_a_128th_of_the_list() {
        assert_eq!(scratch_capacity(5_000_000), 39_062);
        assert_eq!(scratch_capacity(1000), MIN_SCRATCH);
    }
}
