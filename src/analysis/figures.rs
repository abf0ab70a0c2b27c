//! The descriptive figures of a tally that sit beside the tests: the position matrix summed
//! from the ordering counts, its cell furthest from 1/n, the total variation distance of the
//! observed frequencies from uniform, the most and least frequent orderings, and the mean of a
//! statistic.

use serde::Serialize;

use super::ratio;
use crate::engine::permutation::factorial;

/// How many most- and least-frequent permutations the report lists.
pub const EXTREMES: usize = 5;

/// The largest gap between an observed position frequency and 1/n.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PositionDeviation {
    /// The card.
    pub card: usize,
    /// The final position.
    pub position: usize,
    /// Observed frequency of that card at that position.
    pub frequency: f64,
    /// frequency − 1/n.
    pub deviation: f64,
}

/// The n×n position counts `[card][position]`, summed from the ordering counts (in rank order).
///
/// The ranks are lexicographic, so the orderings that begin with the same k cards form one
/// contiguous block of (n − k)! ranks, and its i-th sub-block of (n − k − 1)! ranks puts the
/// i-th smallest of the remaining cards at position k. The matrix is summed down that tree:
/// each block's total is added once to the cell of the card that opens it, and the blocks of
/// the last three cards (six orderings of a < b < c) are added by a table. That is about one
/// addition per count instead of n for a walk that visits every ordering, and the sums are
/// the same integers in another order, so the matrix is identical to the walk's.
pub fn position_counts(n: usize, counts: &[u64]) -> Vec<Vec<u64>> {
    assert_eq!(
        counts.len() as u64,
        factorial(n),
        "a full tally of {n} cards"
    );
    let mut flat = vec![0u64; n * n];
    if counts.len() < SECOND_THREAD_FROM_ORDERINGS {
        let remaining: Vec<usize> = (0..n).collect();
        block_positions(n, 0, counts, &remaining, &mut flat);
    } else {
        // The blocks of the first cards 0..n/2 summed here, those of the others on a second
        // thread into a matrix of its own (10 cards: 15 ms of each report of a full tally
        // shared); the counts are integers, so the sums are the same.
        let size = counts.len() / n;
        let first_cards = |cards: std::ops::Range<usize>, flat: &mut [u64]| {
            for first in cards {
                let rest: Vec<usize> = (0..n).filter(|&card| card != first).collect();
                let block = &counts[first * size..(first + 1) * size];
                flat[first * n] += block_positions(n, 1, block, &rest, flat);
            }
        };
        let mut other = vec![0u64; n * n];
        std::thread::scope(|scope| {
            scope.spawn(|| first_cards(n / 2..n, &mut other));
            first_cards(0..n / 2, &mut flat);
        });
        for (total, part) in flat.iter_mut().zip(other) {
            *total += part;
        }
    }
    flat.chunks(n.max(1)).map(<[u64]>::to_vec).collect()
}

/// Orderings from which a sweep of the position matrix ([`position_counts`], the theory report's
/// exact one) is shared with a second thread (8! = 40,320: below, the sums take less than a
/// thread costs to start).
pub const SECOND_THREAD_FROM_ORDERINGS: usize = 40_320;

/// Add into `flat` (`[card · n + position]`) the positions of the orderings of `block`: those
/// whose first `depth` cards are fixed and whose other cards are `remaining` (increasing), in
/// rank order. Returns the block's total.
fn block_positions(
    n: usize,
    depth: usize,
    block: &[u64],
    remaining: &[usize],
    flat: &mut [u64],
) -> u64 {
    match remaining.len() {
        0 => 0,
        1 => {
            flat[remaining[0] * n + depth] += block[0];
            block[0]
        }
        2 => {
            // a b, then b a.
            let (a, b) = (remaining[0] * n + depth, remaining[1] * n + depth);
            let (ab, ba) = (block[0], block[1]);
            flat[a] += ab;
            flat[b + 1] += ab;
            flat[b] += ba;
            flat[a + 1] += ba;
            ab + ba
        }
        3 => {
            // abc, acb, bac, bca, cab, cba, in rank order.
            let [x0, x1, x2, x3, x4, x5] = block[..6].try_into().expect("3! orderings");
            let (a, b, c) = (
                remaining[0] * n + depth,
                remaining[1] * n + depth,
                remaining[2] * n + depth,
            );
            flat[a] += x0 + x1;
            flat[b] += x2 + x3;
            flat[c] += x4 + x5;
            flat[a + 1] += x2 + x4;
            flat[b + 1] += x0 + x5;
            flat[c + 1] += x1 + x3;
            flat[a + 2] += x3 + x5;
            flat[b + 2] += x1 + x4;
            flat[c + 2] += x0 + x2;
            x0 + x1 + x2 + x3 + x4 + x5
        }
        left => {
            let size = block.len() / left;
            let mut total = 0;
            // The remaining cards but the i-th, on the stack (a full tally has at most 20
            // cards: 21! counters exceed any memory).
            let mut rest = [0usize; 20];
            rest[..left - 1].copy_from_slice(&remaining[1..]);
            for (i, sub) in block.chunks_exact(size).enumerate() {
                let card = remaining[i];
                if i > 0 {
                    rest[i - 1] = remaining[i - 1];
                }
                let sum = block_positions(n, depth + 1, sub, &rest[..left - 1], flat);
                flat[card * n + depth] += sum;
                total += sum;
            }
            total
        }
    }
}

/// Counts divided by `trials` (0 without trials).
pub fn frequencies(counts: &[Vec<u64>], trials: u64) -> Vec<Vec<f64>> {
    counts
        .iter()
        .map(|row| {
            row.iter()
                .map(|&c| ratio(c as f64, trials as f64))
                .collect()
        })
        .collect()
}

/// The cell of the `[card][position]` frequency matrix furthest from 1/n (the first one in
/// card-then-position order on ties).
pub fn largest_deviation(frequencies: &[Vec<f64>]) -> PositionDeviation {
    let n = frequencies.len();
    let u = 1.0 / n as f64;
    let mut best = PositionDeviation {
        card: 0,
        position: 0,
        frequency: frequencies[0][0],
        deviation: frequencies[0][0] - u,
    };
    for (card, row) in frequencies.iter().enumerate() {
        for (position, &f) in row.iter().enumerate() {
            if (f - u).abs() > best.deviation.abs() {
                best = PositionDeviation {
                    card,
                    position,
                    frequency: f,
                    deviation: f - u,
                };
            }
        }
    }
    best
}

/// Total variation distance ½ Σ |count/trials − 1/orderings| of the observed frequencies from
/// uniform.
pub fn tv_distance(counts: &[u64], trials: u64) -> f64 {
    let uniform = 1.0 / counts.len() as f64;
    0.5 * counts
        .iter()
        .map(|&c| (ratio(c as f64, trials as f64) - uniform).abs())
        .sum::<f64>()
}

/// Largest count over smallest, or None when some ordering was never seen.
pub fn max_min_ratio(counts: &[u64]) -> Option<f64> {
    let max = counts.iter().copied().max().unwrap_or(0);
    let min = counts.iter().copied().min().unwrap_or(0);
    (min > 0).then(|| max as f64 / min as f64)
}

/// The ranks of the [`EXTREMES`] most and least frequent orderings, most frequent first and
/// least frequent first (ties broken by rank).
///
/// One pass over the counts, each list kept sorted as it fills: the ranks come in increasing
/// order, so a count equal to the last one kept never displaces it (the earlier rank wins the
/// tie), and almost every count is one comparison against each list's last entry.
pub fn extreme_ranks(counts: &[u64]) -> (Vec<usize>, Vec<usize>) {
    let mut extremes = Extremes::new(counts.len());
    extremes.offer_all(counts, |count| count);
    extremes.ranks()
}

/// The ranks of the [`EXTREMES`] most and least likely orderings of a law, most likely first
/// and least likely first (ties broken by rank), in one pass as [`extreme_ranks`]: the order of
/// probabilities is `f64::total_cmp`'s, which on probabilities (never negative, never NaN) is
/// the order of their bits as integers.
pub fn extreme_probability_ranks(probabilities: &[f64]) -> (Vec<usize>, Vec<usize>) {
    let mut extremes = Extremes::new(probabilities.len());
    extremes.offer_all(probabilities, |p| {
        debug_assert!(p.is_sign_positive() && !p.is_nan());
        p.to_bits()
    });
    extremes.ranks()
}

/// Ranks that [`Extremes::offer_all`] sweeps at once to pass them over.
const SKIPPED_RUN: usize = 32;

/// The [`EXTREMES`] most and least frequent ranks seen so far, ranks offered in increasing
/// order (so that of equal counts the lower rank stays first).
struct Extremes {
    k: usize,
    /// (count, rank), most frequent first.
    most: Vec<(u64, usize)>,
    /// (count, rank), least frequent first.
    least: Vec<(u64, usize)>,
}

impl Extremes {
    /// For `cells` ranks.
    fn new(cells: usize) -> Self {
        let k = EXTREMES.min(cells);
        Extremes {
            k,
            most: Vec::with_capacity(k + 1),
            least: Vec::with_capacity(k + 1),
        }
    }

    /// Consider `rank`, counted `count` times.
    #[inline]
    fn offer(&mut self, rank: usize, count: u64) {
        let k = self.k;
        if self.most.len() < k || count > self.most[k - 1].0 {
            let at = self.most.partition_point(|&(c, _)| c >= count);
            self.most.insert(at, (count, rank));
            self.most.truncate(k);
        }
        if self.least.len() < k || count < self.least[k - 1].0 {
            let at = self.least.partition_point(|&(c, _)| c <= count);
            self.least.insert(at, (count, rank));
            self.least.truncate(k);
        }
    }

    /// Consider every rank of `values` (rank 0 first), each counted `count(value)` times.
    ///
    /// Once both lists are full, a run of [`SKIPPED_RUN`] ranks none of which would enter
    /// either (its largest count at most the last most frequent one kept, its smallest at
    /// least the last least frequent one) is passed over after one sweep without branches: the
    /// lists are what offering each rank gives, at a fraction of the cost (the 3.6 million
    /// probabilities of a 10-card law: about 9 ms offered one by one).
    fn offer_all<T: Copy>(&mut self, values: &[T], count: impl Fn(T) -> u64) {
        for (run, first) in values.chunks(SKIPPED_RUN).zip((0..).step_by(SKIPPED_RUN)) {
            let (largest, smallest) = run.iter().fold((0, u64::MAX), |(high, low), &v| {
                let c = count(v);
                (high.max(c), low.min(c))
            });
            if self.could_change(largest, smallest) {
                for (rank, &value) in (first..).zip(run) {
                    self.offer(rank, count(value));
                }
            }
        }
    }

    /// Whether ranks whose counts lie between `smallest` and `largest` could enter either
    /// list: not once both are full, `largest` at most the last most frequent count kept and
    /// `smallest` at least the last least frequent one.
    #[inline]
    fn could_change(&self, largest: u64, smallest: u64) -> bool {
        match (self.most.last(), self.least.last()) {
            (Some(&(most, _)), Some(&(least, _)))
                if self.most.len() == self.k && self.least.len() == self.k =>
            {
                largest > most || smallest < least
            }
            _ => true,
        }
    }

    /// The most and the least frequent ranks.
    fn ranks(self) -> (Vec<usize>, Vec<usize>) {
        (
            self.most.into_iter().map(|(_, rank)| rank).collect(),
            self.least.into_iter().map(|(_, rank)| rank).collect(),
        )
    }
}

/// The figures of a full tally's counts that [`count_figures`] gives in one pass.
#[derive(Debug, Clone, PartialEq)]
pub struct CountFigures {
    /// [`max_min_ratio`].
    pub max_min_ratio: Option<f64>,
    /// Orderings never seen.
    pub never_seen: u64,
    /// [`tv_distance`].
    pub tv_distance: f64,
    /// The most frequent ranks, as [`extreme_ranks`] gives them.
    pub most: Vec<usize>,
    /// The least frequent ranks, as [`extreme_ranks`] gives them.
    pub least: Vec<usize>,
}

/// [`max_min_ratio`], the orderings never seen, [`tv_distance`] and [`extreme_ranks`] of
/// `counts` over `trials` shuffles, in one pass over the counts instead of five (for n = 11
/// each pass reads 320 MB). Every figure is computed as its own function computes it, in the
/// same order, so it is the same value to the bit: the distance's terms are added in rank
/// order, and the term of a count below 256 (almost all of them in a large tally) is taken
/// from a table of those terms computed once.
pub fn count_figures(counts: &[u64], trials: u64) -> CountFigures {
    let uniform = 1.0 / counts.len() as f64;
    let term = |count: u64| (ratio(count as f64, trials as f64) - uniform).abs();
    let terms: Vec<f64> = (0..256).map(term).collect();
    let mut extremes = Extremes::new(counts.len());
    let (mut max, mut min, mut never_seen) = (0u64, u64::MAX, 0u64);
    // The start of `Sum for f64`; the terms are never −0, so any zero would do.
    let mut distance = -0.0f64;
    for (run, first) in counts.chunks(SKIPPED_RUN).zip((0..).step_by(SKIPPED_RUN)) {
        let (mut largest, mut smallest) = (0u64, u64::MAX);
        for &count in run {
            distance += match terms.get(count as usize) {
                Some(&t) => t,
                None => term(count),
            };
            largest = largest.max(count);
            smallest = smallest.min(count);
            never_seen += u64::from(count == 0);
        }
        max = max.max(largest);
        min = min.min(smallest);
        // The run offered to the extremes only if one of its counts could enter them (as
        // `Extremes::offer_all` passes runs over).
        if extremes.could_change(largest, smallest) {
            for (rank, &count) in (first..).zip(run) {
                extremes.offer(rank, count);
            }
        }
    }
    if counts.is_empty() {
        min = 0;
    }
    let (most, least) = extremes.ranks();
    CountFigures {
        max_min_ratio: (min > 0).then(|| max as f64 / min as f64),
        never_seen,
        tv_distance: 0.5 * distance,
        most,
        least,
    }
}

/// The mean Σ v·p(v) of a law given by its probabilities, indexed by value.
pub fn mean(probabilities: impl Iterator<Item = f64>) -> f64 {
    probabilities.enumerate().map(|(v, p)| v as f64 * p).sum()
}

/// The mean value of a histogram indexed by value, over `trials` shuffles (0 without trials).
pub fn observed_mean(histogram: &[u64], trials: u64) -> f64 {
    ratio(
        histogram
            .iter()
            .enumerate()
            .map(|(v, &c)| v as f64 * c as f64)
            .sum(),
        trials as f64,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::permutation::for_each_in_rank_order;

    #[test]
    fn position_counts_sum_the_orderings_of_three_cards() {
        // Rank order of 3 cards: 012, 021, 102, 120, 201, 210. One shuffle each of 012 and 120.
        let counts = [1, 0, 0, 1, 0, 0];
        let matrix = position_counts(3, &counts);
        // 012: card k at position k; 120: card 1 at 0, card 2 at 1, card 0 at 2.
        assert_eq!(matrix, vec![vec![1, 0, 1], vec![1, 1, 0], vec![0, 1, 1]]);
        let frequencies = frequencies(&matrix, 2);
        assert_eq!(frequencies[0], vec![0.5, 0.0, 0.5]);
        let largest = largest_deviation(&frequencies);
        // |0.5 − 1/3| = 1/6 = |0 − 1/3| / 2; the first cell of the largest gap, 1/3, is (0, 1).
        assert_eq!((largest.card, largest.position), (0, 1));
        assert_eq!(largest.deviation, -1.0 / 3.0);
    }

    /// The position matrix by visiting every ordering in rank order (the definition).
    fn position_counts_by_walk(n: usize, counts: &[u64]) -> Vec<Vec<u64>> {
        let mut matrix = vec![vec![0u64; n]; n];
        for_each_in_rank_order(n, |rank, deck| {
            for (position, &card) in deck.iter().enumerate() {
                matrix[usize::from(card)][position] += counts[rank];
            }
        });
        matrix
    }

    /// Pseudo-random counts (SplitMix64 of the rank), some zero, some large.
    fn scattered_counts(len: usize, seed: u64) -> Vec<u64> {
        (0..len as u64)
            .map(|i| {
                let mut z = (i ^ seed.rotate_left(17)).wrapping_add(0x9E37_79B9_7F4A_7C15);
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                if z.is_multiple_of(5) {
                    0
                } else {
                    z % 1_000_003
                }
            })
            .collect()
    }

    #[test]
    fn position_counts_down_the_rank_tree_equal_the_walk_over_every_ordering() {
        for n in 1..=8 {
            for seed in [1, 2, 3] {
                let counts = scattered_counts(factorial(n) as usize, seed);
                assert_eq!(
                    position_counts(n, &counts),
                    position_counts_by_walk(n, &counts),
                    "{n} cards, seed {seed}"
                );
            }
        }
        // Each row and column adds up to the trials.
        let counts = scattered_counts(720, 9);
        let trials: u64 = counts.iter().sum();
        let matrix = position_counts(6, &counts);
        assert!(matrix.iter().all(|row| row.iter().sum::<u64>() == trials));
        assert!((0..6).all(|p| matrix.iter().map(|row| row[p]).sum::<u64>() == trials));
    }

    /// The extremes by sorting every rank (the definition).
    fn extreme_ranks_by_sorting(counts: &[u64]) -> (Vec<usize>, Vec<usize>) {
        let k = EXTREMES.min(counts.len());
        let mut ranks: Vec<usize> = (0..counts.len()).collect();
        ranks.sort_by(|a, b| counts[*b].cmp(&counts[*a]).then(a.cmp(b)));
        let most = ranks[..k].to_vec();
        ranks.sort_by(|a, b| counts[*a].cmp(&counts[*b]).then(a.cmp(b)));
        (most, ranks[..k].to_vec())
    }

    #[test]
    fn extremes_in_one_pass_equal_those_of_a_full_sort() {
        for (len, seed) in [(1, 1), (2, 2), (6, 3), (24, 4), (720, 5), (40_320, 6)] {
            let counts = scattered_counts(len, seed);
            assert_eq!(extreme_ranks(&counts), extreme_ranks_by_sorting(&counts));
            // Many ties: counts 0..3 only.
            let tied: Vec<u64> = counts.iter().map(|c| c % 3).collect();
            assert_eq!(extreme_ranks(&tied), extreme_ranks_by_sorting(&tied));
        }
    }

    #[test]
    fn extremes_of_probabilities_are_those_of_a_full_sort_in_total_order() {
        // The definition the theory report used: every rank sorted by probability with
        // `total_cmp`, ties by rank. Probabilities with ties, zeros and subnormals.
        for (len, seed) in [(1, 1), (2, 2), (6, 3), (24, 4), (720, 5), (40_320, 6)] {
            let counts = scattered_counts(len, seed);
            for spread in [3u64, 1_000_003] {
                let probabilities: Vec<f64> = counts
                    .iter()
                    .map(|&c| match c % spread {
                        0 => 0.0,
                        1 => f64::MIN_POSITIVE / 4.0,
                        c => c as f64 / 7.0,
                    })
                    .collect();
                let k = EXTREMES.min(len);
                let mut ranks: Vec<usize> = (0..len).collect();
                ranks.sort_by(|&a, &b| {
                    probabilities[b]
                        .total_cmp(&probabilities[a])
                        .then(a.cmp(&b))
                });
                let most = ranks[..k].to_vec();
                ranks.sort_by(|&a, &b| {
                    probabilities[a]
                        .total_cmp(&probabilities[b])
                        .then(a.cmp(&b))
                });
                assert_eq!(
                    extreme_probability_ranks(&probabilities),
                    (most, ranks[..k].to_vec()),
                    "{len} orderings, spread {spread}"
                );
            }
        }
    }

    #[test]
    fn the_figures_of_one_pass_are_those_of_each_function_to_the_bit() {
        for (len, seed) in [(2, 1), (6, 2), (120, 3), (40_320, 4)] {
            for spread in [3u64, 300, 1_000_003] {
                let counts: Vec<u64> = scattered_counts(len, seed)
                    .iter()
                    .map(|c| c % spread)
                    .collect();
                for trials in [counts.iter().sum::<u64>(), 0] {
                    let figures = count_figures(&counts, trials);
                    let (most, least) = extreme_ranks(&counts);
                    assert_eq!(
                        figures.tv_distance.to_bits(),
                        tv_distance(&counts, trials).to_bits()
                    );
                    assert_eq!(
                        figures.max_min_ratio.map(f64::to_bits),
                        max_min_ratio(&counts).map(f64::to_bits)
                    );
                    assert_eq!(
                        figures.never_seen,
                        counts.iter().filter(|&&c| c == 0).count() as u64
                    );
                    assert_eq!((figures.most, figures.least), (most, least));
                }
            }
        }
    }

    #[test]
    fn tv_distance_and_max_min_ratio_of_small_tallies() {
        // Two orderings, 3 and 1 of 4 trials: ½(|3/4 − 1/2| + |1/4 − 1/2|) = 1/4.
        assert_eq!(tv_distance(&[3, 1], 4), 0.25);
        assert_eq!(max_min_ratio(&[3, 1]), Some(3.0));
        assert_eq!(max_min_ratio(&[3, 0]), None);
        assert_eq!(tv_distance(&[0, 0], 0), 0.5);
    }

    #[test]
    fn extremes_are_ordered_by_count_then_rank() {
        let counts = [4, 9, 1, 9, 0, 4, 7];
        let (most, least) = extreme_ranks(&counts);
        assert_eq!(most, vec![1, 3, 6, 0, 5]);
        assert_eq!(least, vec![4, 2, 0, 5, 6]);
        assert_eq!(extreme_ranks(&[2, 1]), (vec![0, 1], vec![1, 0]));
    }

    #[test]
    fn means_of_a_law_and_of_a_histogram() {
        assert_eq!(mean([0.25, 0.5, 0.25].into_iter()), 1.0);
        assert_eq!(observed_mean(&[1, 2, 1], 4), 1.0);
        assert_eq!(observed_mean(&[0, 0], 0), 0.0);
    }
}
