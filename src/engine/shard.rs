//! Shards: a run cut into parts that separate processes (or machines) compute, and the
//! bookkeeping of which blocks of trials a tally covers.
//!
//! A run of T trials is [`block_count`]`(T)` = ⌈T / BLOCK_TRIALS⌉ blocks; block b holds trials
//! `b·BLOCK_TRIALS ..` and draws from its own stream of the seed, so its shuffles are the same
//! whoever computes it. Shard I of K (I counted from 0) is the contiguous range of blocks
//! `⌊B·I/K⌋ .. ⌊B·(I+1)/K⌋` ([`shard_blocks`]): the K ranges are disjoint, cover every block, and
//! differ in size by at most one block. A tally records the blocks it covers as a
//! [`BlockCoverage`]; [`combine`] checks that several coverages of one run are disjoint and says
//! which blocks none of them covers (or covers only in part).

use std::ops::Range;

use super::random_source::BLOCK_TRIALS;

/// Blocks of a run of `trials` shuffles: ⌈trials / BLOCK_TRIALS⌉.
pub fn block_count(trials: u64) -> u64 {
    trials.div_ceil(BLOCK_TRIALS)
}

/// The blocks of shard `index` of `count` (0 ≤ index < count) of a run of `trials` shuffles:
/// `⌊B·index/count⌋ .. ⌊B·(index+1)/count⌋` with B = [`block_count`]`(trials)`.
pub fn shard_blocks(trials: u64, index: u64, count: u64) -> Range<u64> {
    let blocks = u128::from(block_count(trials));
    let at = |i: u64| (blocks * u128::from(i) / u128::from(count)) as u64;
    at(index)..at(index + 1)
}

/// Shuffles in block `block` of a run of `trials` (BLOCK_TRIALS, less for the last block).
pub fn block_trials(trials: u64, block: u64) -> u64 {
    BLOCK_TRIALS.min(trials.saturating_sub(block.saturating_mul(BLOCK_TRIALS)))
}

/// Shuffles in the blocks `blocks` of a run of `trials`.
pub fn range_trials(trials: u64, blocks: &Range<u64>) -> u64 {
    let start = blocks.start.saturating_mul(BLOCK_TRIALS).min(trials);
    let end = blocks.end.saturating_mul(BLOCK_TRIALS).min(trials);
    end.saturating_sub(start)
}

/// Which blocks a tally covers: the blocks `taken` (a contiguous range, taken in order), each
/// done whole except those in `partial`, which a stop cut short after the given number of their
/// first shuffles.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BlockCoverage {
    /// The blocks begun.
    pub taken: Range<u64>,
    /// `(block, shuffles done)` for each block of `taken` cut short, in block order.
    pub partial: Vec<(u64, u64)>,
}

impl BlockCoverage {
    /// Every block of `blocks`, done whole.
    pub fn whole(blocks: Range<u64>) -> Self {
        BlockCoverage {
            taken: blocks,
            partial: Vec::new(),
        }
    }

    /// Whether this coverage can be one of a run of `blocks` blocks: blocks taken in order
    /// within the run, each block cut short at most once, inside the blocks taken, and cut
    /// short before its end.
    pub fn is_consistent(&self, blocks: u64, trials: u64) -> bool {
        self.taken.start <= self.taken.end
            && self.taken.end <= blocks
            && self.partial.iter().all(|&(block, done)| {
                self.taken.contains(&block) && done < block_trials(trials, block)
            })
            && self.partial.windows(2).all(|pair| pair[0].0 < pair[1].0)
    }

    /// Whether every block of `asked` was done whole.
    pub fn covers(&self, asked: &Range<u64>) -> bool {
        self.partial.is_empty() && (asked.is_empty() || self.taken == *asked)
    }

    /// Shuffles covered in a run of `trials`.
    pub fn trials(&self, trials: u64) -> u64 {
        let cut: u64 = self
            .partial
            .iter()
            .map(|&(block, done)| block_trials(trials, block).saturating_sub(done))
            .fold(0, u64::saturating_add);
        range_trials(trials, &self.taken).saturating_sub(cut)
    }
}

/// Blocks as people read them: `7`, `7–9` (inclusive).
pub fn describe_blocks(blocks: &Range<u64>) -> String {
    match blocks.end - blocks.start {
        0 => "none".to_string(),
        1 => format!("{}", blocks.start),
        _ => format!("{}–{}", blocks.start, blocks.end - 1),
    }
}

/// Why coverages of one run cannot be added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    /// The two coverages (their indices) that share blocks.
    pub first: usize,
    /// The second.
    pub second: usize,
    /// The blocks both cover.
    pub blocks: Range<u64>,
}

/// What several disjoint coverages of a run of `blocks` blocks cover together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Combined {
    /// Ranges of blocks no coverage begins, in order.
    pub missing: Vec<Range<u64>>,
    /// Blocks begun but cut short, in order.
    pub partial: Vec<u64>,
}

impl Combined {
    /// Whether every block of the run was done whole.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty() && self.partial.is_empty()
    }
}

/// Check that `coverages` of one run of `blocks` blocks share no block, and say which blocks
/// none of them covers and which are covered only in part. Empty coverages are ignored.
pub fn combine(blocks: u64, coverages: &[&BlockCoverage]) -> Result<Combined, Overlap> {
    let mut order: Vec<usize> = (0..coverages.len())
        .filter(|&i| !coverages[i].taken.is_empty())
        .collect();
    order.sort_by_key(|&i| (coverages[i].taken.start, coverages[i].taken.end));
    for pair in order.windows(2) {
        let (a, b) = (&coverages[pair[0]].taken, &coverages[pair[1]].taken);
        if b.start < a.end {
            let (first, second) = (pair[0].min(pair[1]), pair[0].max(pair[1]));
            return Err(Overlap {
                first,
                second,
                blocks: b.start..a.end.min(b.end),
            });
        }
    }
    let mut missing = Vec::new();
    let mut at = 0;
    for &i in &order {
        let taken = &coverages[i].taken;
        if taken.start > at {
            missing.push(at..taken.start.min(blocks));
        }
        at = at.max(taken.end);
    }
    if at < blocks {
        missing.push(at..blocks);
    }
    missing.retain(|range| !range.is_empty());
    let mut partial: Vec<u64> = order
        .iter()
        .flat_map(|&i| coverages[i].partial.iter().map(|&(block, _)| block))
        .collect();
    partial.sort_unstable();
    Ok(Combined { missing, partial })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shards_of_a_run_are_disjoint_cover_every_block_and_differ_by_at_most_one() {
        for trials in [1, BLOCK_TRIALS, 10 * BLOCK_TRIALS + 3, 2_000_000_000] {
            let blocks = block_count(trials);
            for count in 1..=9u64.min(blocks) {
                let shards: Vec<Range<u64>> =
                    (0..count).map(|i| shard_blocks(trials, i, count)).collect();
                assert_eq!(shards[0].start, 0);
                assert_eq!(shards.last().unwrap().end, blocks);
                for pair in shards.windows(2) {
                    assert_eq!(pair[0].end, pair[1].start);
                }
                let sizes: Vec<u64> = shards.iter().map(|s| s.end - s.start).collect();
                assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
                let total: u64 = shards.iter().map(|s| range_trials(trials, s)).sum();
                assert_eq!(total, trials);
            }
        }
    }

    #[test]
    fn two_billion_trials_make_30518_blocks_and_four_shards_of_7629_or_7630() {
        // 2e9 / 65536 = 30517.58…, so 30518 blocks, the last of 2e9 − 30517·65536 = 37,888.
        assert_eq!(block_count(2_000_000_000), 30_518);
        assert_eq!(block_trials(2_000_000_000, 30_517), 37_888);
        assert_eq!(shard_blocks(2_000_000_000, 0, 4), 0..7629);
        assert_eq!(shard_blocks(2_000_000_000, 3, 4), 22_888..30_518);
    }

    #[test]
    fn a_coverage_cut_short_counts_only_the_shuffles_done() {
        let trials = 3 * BLOCK_TRIALS + 10;
        let coverage = BlockCoverage {
            taken: 1..4,
            partial: vec![(2, 5)],
        };
        assert_eq!(coverage.trials(trials), BLOCK_TRIALS + 5 + 10);
        assert!(!coverage.covers(&(1..4)));
        assert!(BlockCoverage::whole(1..4).covers(&(1..4)));
        assert!(coverage.is_consistent(4, trials));
        // A block outside the run, one cut short outside the blocks taken, or "cut short"
        // after all its shuffles, cannot come from a run.
        assert!(!BlockCoverage::whole(1..5).is_consistent(4, trials));
        let outside = BlockCoverage {
            taken: 1..3,
            partial: vec![(3, 5)],
        };
        assert!(!outside.is_consistent(4, trials));
        let whole_block = BlockCoverage {
            taken: 1..3,
            partial: vec![(1, BLOCK_TRIALS)],
        };
        assert!(!whole_block.is_consistent(4, trials));
        assert_eq!(BlockCoverage::whole(0..4).trials(trials), trials);
    }

    #[test]
    fn combining_names_overlaps_missing_blocks_and_blocks_cut_short() {
        let a = BlockCoverage::whole(0..5);
        let b = BlockCoverage::whole(4..8);
        let overlap = combine(10, &[&a, &b]).unwrap_err();
        assert_eq!(
            overlap,
            Overlap {
                first: 0,
                second: 1,
                blocks: 4..5
            }
        );
        let c = BlockCoverage {
            taken: 7..9,
            partial: vec![(8, 3)],
        };
        let combined = combine(10, &[&c, &a]).unwrap();
        assert_eq!(combined.missing, vec![5..7, 9..10]);
        assert_eq!(combined.partial, vec![8]);
        assert!(!combined.is_complete());
        let whole = combine(10, &[&BlockCoverage::whole(5..10), &a]).unwrap();
        assert!(whole.is_complete());
        assert_eq!(describe_blocks(&(5..7)), "5–6");
    }
}
