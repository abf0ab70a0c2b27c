//! Counting into tallies indexed by a rank: the increment, without a bounds check where the rank
//! is known to be below n!, and the prefetch hint that lets the cache misses of a batch of
//! increments overlap. Shared by the full-mode tally ([`crate::engine::simulate`]) and the
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
pub(crate) fn prefetch(counts: &[u32], index: usize) {
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
