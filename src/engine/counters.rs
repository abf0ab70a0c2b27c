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
///
/// A tally that never carried (every cell below 256: all short runs) is read from its bytes
/// alone, and only its non-zero cells are written out: at 10 cards, 1,000 shuffles touch a few
/// hundred pages of the 29 MB of `u64` counts, not all 7,000 (each a page fault).
#[derive(Debug, Clone)]
pub(crate) struct ByteTally {
    bytes: Vec<u8>,
    carries: Vec<u64>,
    /// Whether some byte has wrapped around (some carry is non-zero).
    carried: bool,
}

/// A [`ByteTally`] borrowed by [`ByteTally::adder`].
pub(crate) struct ByteAdder<'a> {
    bytes: &'a mut [u8],
    carries: &'a mut [u64],
    carried: &'a mut bool,
}

impl ByteAdder<'_> {
    /// [`ByteTally::add`].
    #[inline(always)]
    pub(crate) fn add(&mut self, index: usize) {
        let byte = &mut self.bytes[index];
        *byte = byte.wrapping_add(1);
        if *byte == 0 {
            self.carries[index] += 256;
            *self.carried = true;
        }
    }
}

impl ByteTally {
    /// `cells` zero counters.
    pub(crate) fn new(cells: usize) -> Self {
        ByteTally {
            bytes: vec![0; cells],
            carries: vec![0; cells],
            carried: false,
        }
    }

    /// Add one to cell `index` (below the number of cells).
    #[inline(always)]
    pub(crate) fn add(&mut self, index: usize) {
        self.adder().add(index);
    }

    /// The tally's parts, borrowed for a loop of [`ByteAdder::add`]: held in locals, the
    /// vectors' addresses stay in registers, where the fields of a tally behind a reference
    /// are read again after each byte written (a byte store may change any memory).
    #[inline(always)]
    pub(crate) fn adder(&mut self) -> ByteAdder<'_> {
        ByteAdder {
            bytes: &mut self.bytes,
            carries: &mut self.carries,
            carried: &mut self.carried,
        }
    }

    /// The count of cell `index`.
    pub(crate) fn get(&self, index: usize) -> u64 {
        let carry = if self.carried { self.carries[index] } else { 0 };
        carry + u64::from(self.bytes[index])
    }

    /// Prefetch cell `index`'s byte.
    #[inline(always)]
    pub(crate) fn prefetch(&self, index: usize) {
        prefetch(&self.bytes, index);
    }

    /// Add the counts into `totals` (as many cells).
    pub(crate) fn add_into(&self, totals: &mut [u64]) {
        assert_eq!(totals.len(), self.bytes.len(), "a tally of another size");
        if self.carried {
            for ((total, &carry), &byte) in totals.iter_mut().zip(&self.carries).zip(&self.bytes) {
                *total += carry + u64::from(byte);
            }
        } else {
            self.add_bytes_into(totals);
        }
    }

    /// Add the bytes alone into `totals`, touching only the cells whose byte is non-zero (eight
    /// zero bytes are skipped at once).
    fn add_bytes_into(&self, totals: &mut [u64]) {
        let mut words = self.bytes.chunks_exact(8);
        let mut at = 0;
        for word in words.by_ref() {
            if u64::from_ne_bytes(word.try_into().expect("eight bytes")) != 0 {
                for (total, &byte) in totals[at..at + 8].iter_mut().zip(word) {
                    *total += u64::from(byte);
                }
            }
            at += 8;
        }
        for (total, &byte) in totals[at..].iter_mut().zip(words.remainder()) {
            *total += u64::from(byte);
        }
    }

    /// The counts.
    pub(crate) fn into_counts(self) -> Vec<u64> {
        if !self.carried {
            // The carries are all zero and (never written) take no memory yet: they are the
            // zero counts the bytes are added to.
            let mut counts = self.carries;
            let bytes = ByteTally {
                bytes: self.bytes,
                carries: Vec::new(),
                carried: false,
            };
            bytes.add_bytes_into(&mut counts);
            return counts;
        }
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

    #[test]
    fn a_byte_tally_that_never_carried_reads_the_same_sparse_or_dense() {
        // Cells spread so that some 8-byte words are all zero, some partly, over a length that
        // is not a multiple of 8; then the same cells after one carry (the dense path).
        let cells = 61;
        let hits = [0usize, 3, 3, 17, 40, 41, 60, 60, 60];
        let mut tally = ByteTally::new(cells);
        let mut expected = vec![0u64; cells];
        for &cell in &hits {
            tally.add(cell);
            expected[cell] += 1;
        }
        let mut totals = vec![5u64; cells];
        tally.add_into(&mut totals);
        let with_five: Vec<u64> = expected.iter().map(|c| c + 5).collect();
        assert_eq!(totals, with_five);
        assert_eq!(tally.clone().into_counts(), expected);
        for _ in 0..300 {
            tally.add(59);
            expected[59] += 1;
        }
        assert!(tally.carried);
        let mut totals = vec![0u64; cells];
        tally.add_into(&mut totals);
        assert_eq!(totals, expected);
        assert_eq!(tally.into_counts(), expected);
    }
}
