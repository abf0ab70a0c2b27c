//! Counting into tallies indexed by a rank: the increment, without a bounds check where the rank
//! is known to be below n!, and the prefetch hint that lets the cache misses of a batch of
//! increments overlap; and byte counters with a carry into `u64` ones, for tallies of millions of
//! cells that are mostly small (a quarter of the cache footprint of `u32`). Shared by the full-mode tally ([`crate::engine::simulate`]) and the
//! full-mode deal-stream counters ([`crate::engine::full_stream`]).

use crate::engine::permutation::{FACTORIALS, TABLE_RANK_MAX_DECK};

/// Add one to `counts[rank]`, where `counts` has N! cells (checked once per block by the caller)
/// and `rank` comes from [`crate::engine::permutation::rank_array`] for the same N (or is
/// otherwise below N!).
#[inline(always)]
pub(crate) fn count<const N: usize>(counts: &mut [u32], rank: usize) {
    debug_assert!(counts.len() as u64 == FACTORIALS[N] && rank < counts.len());
    if N <= TABLE_RANK_MAX_DECK {
        // SAFETY: `counts` has N! cells, and up to TABLE_RANK_MAX_DECK cards `rank_array` is below
        // N! for every deck, a permutation or not (its tables are bounded; a unit test checks it);
        // the callers that pass other ranks (a choice table's) pass ranks of permutations.
        unsafe { *counts.get_unchecked_mut(rank) += 1 };
    } else {
        counts[rank] += 1;
    }
}

/// Ask the CPU to bring `counts[index]` into the cache (a hint: no effect on the result).
#[inline(always)]
pub(crate) fn prefetch<T>(counts: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: every x86-64 CPU has SSE, the feature `_mm_prefetch` needs; a prefetch never
        // faults, even on an address outside `counts` (which `wrapping_add` may produce).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(counts.as_ptr().wrapping_add(index).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (counts, index);
}

/// A tally in bytes with a carry: cell i is `carries[i] + bytes[i]`, where `carries` takes 256
/// each time a byte wraps around. An increment touches one byte (one cache line of 64 cells);
/// the carries are touched once per 256 increments of a cell at most, and their pages are only
/// allocated where touched (a zeroed allocation).
#[derive(Debug, Clone)]
pub(crate) struct ByteTally {
    bytes: Vec<u8>,
    carries: Vec<u64>,
}

impl ByteTally {
    /// `cells` zero counters.
    pub(crate) fn new(cells: usize) -> Self {
        ByteTally {
            bytes: vec![0; cells],
            carries: vec![0; cells],
        }
    }

    /// Add one to cell `index` (below the number of cells).
    #[inline(always)]
    pub(crate) fn add(&mut self, index: usize) {
        let byte = &mut self.bytes[index];
        *byte = byte.wrapping_add(1);
        if *byte == 0 {
            self.carries[index] += 256;
        }
    }

    /// Prefetch cell `index`'s byte.
    #[inline(always)]
    pub(crate) fn prefetch(&self, index: usize) {
        prefetch(&self.bytes, index);
    }

    /// Add the counts into `totals` (as many cells).
    pub(crate) fn add_into(&self, totals: &mut [u64]) {
        for ((total, &carry), &byte) in totals.iter_mut().zip(&self.carries).zip(&self.bytes) {
            *total += carry + u64::from(byte);
        }
    }

    /// The counts.
    pub(crate) fn into_counts(self) -> Vec<u64> {
        let mut counts = self.carries;
        for (count, &byte) in counts.iter_mut().zip(&self.bytes) {
            *count += u64::from(byte);
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_tally_carries_past_255_exactly() {
        let mut tally = ByteTally::new(3);
        for _ in 0..1000 {
            tally.add(1);
        }
        for _ in 0..256 {
            tally.add(2);
        }
        tally.add(0);
        assert_eq!(tally.into_counts(), vec![1, 1000, 256]);
    }
}
