//! The descriptive figures of a tally that sit beside the tests: the position matrix summed
//! from the ordering counts, its cell furthest from 1/n, the total variation distance of the
//! observed frequencies from uniform, the most and least frequent orderings, and the mean of a
//! statistic.

use serde::Serialize;

use super::ratio;
use crate::engine::permutation::for_each_in_rank_order;

/// How many most- and least-frequent permutations the report lists.
pub const EXTREMES: usize = 5;

/// The largest gap between an observed position frequency and 1/n.
#[derive(Debug, Clone, Serialize)]
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
pub fn position_counts(n: usize, counts: &[u64]) -> Vec<Vec<u64>> {
    let mut matrix = vec![vec![0u64; n]; n];
    for_each_in_rank_order(n, |rank, deck| {
        let count = counts[rank];
        if count > 0 {
            for (position, &card) in deck.iter().enumerate() {
                matrix[usize::from(card)][position] += count;
            }
        }
    });
    matrix
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
pub fn extreme_ranks(counts: &[u64]) -> (Vec<usize>, Vec<usize>) {
    let k = EXTREMES.min(counts.len());
    let mut ranks: Vec<usize> = (0..counts.len()).collect();
    let by_count_desc = |a: &usize, b: &usize| counts[*b].cmp(&counts[*a]).then(a.cmp(b));
    let by_count_asc = |a: &usize, b: &usize| counts[*a].cmp(&counts[*b]).then(a.cmp(b));
    ranks.select_nth_unstable_by(k - 1, by_count_desc);
    let mut most: Vec<usize> = ranks[..k].to_vec();
    most.sort_by(by_count_desc);
    ranks.select_nth_unstable_by(k - 1, by_count_asc);
    let mut least: Vec<usize> = ranks[..k].to_vec();
    least.sort_by(by_count_asc);
    (most, least)
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
