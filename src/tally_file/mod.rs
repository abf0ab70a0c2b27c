//! Saved tallies (`run --save-tally`, `check --save-tally`) and their addition (`merge`).
//!
//! A tally file holds everything a report needs and everything that must match for two tallies
//! to be parts of one experiment: the tool and its version, the command, the shuffle and every
//! flag that changes the counts, the deck and mode, the seed and the whole random source, which
//! blocks of trials (or which input files) it covers, whether it was cut short — and the counts.
//! The layout (format version 5, documented in `docs/tally-format.md`):
//!
//! | bytes | what |
//! |---|---|
//! | 19 | the magic `shuffle-bias tally\n` |
//! | 2 | format version, little-endian `u16` (3) |
//! | 4 | header length H, little-endian `u32` |
//! | H | the header, a UTF-8 JSON object ([`TallyHeader`]) |
//! | `counts_bytes` | the `cells` counters in [`Counts`] order, in the header's `encoding` |
//! | … | the deal stream's counters and fingerprints, when the header's `deal_stream` is set |
//! | 4 | CRC-32 (IEEE 802.3, as zlib and PNG) of every byte before it, little-endian |
//!
//! Each section of counters is written as fixed-width little-endian words of the narrowest
//! width that holds its largest counter (`u8` … `u64`), or as LEB128 varints when those are
//! smaller ([`codec::Encoding`]): n = 11 (39,916,800 counters) takes 40 MB while no ordering
//! is counted more than 255 times, and is read at the speed of adding bytes into the
//! counters. Files are written and read in a stream, a few MiB at a time: memory is the tally
//! itself plus a buffer.
//!
//! [`header`] is the header and the checks of one experiment, [`codec`] the bytes.

pub mod codec;
pub mod header;

pub use codec::{
    OpenTally, SPLIT_MIN_CELLS, TallyFileError, add_counts_split, open_tally, read_header,
    read_tally_into, splittable, write_tally,
};
pub use header::{
    CheckPart, ContentPart, DealStreamPart, EndPart, Mismatch, ModelPart, PrefixPart, RunPart,
    TallyHeader,
};

use crate::engine::marginal::MarginalTally;
use crate::engine::permutation::factorial;
use crate::engine::simulate::Tally;
use crate::engine::tally::TallyMode;

/// The first bytes of every tally file.
pub const MAGIC: &[u8; 19] = b"shuffle-bias tally\n";

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u16 = 5;

pub use crate::engine::tally::Counts;

impl Counts {
    /// An empty tally of `mode` for decks of `deck` cards.
    pub fn empty(mode: TallyMode, deck: usize) -> Counts {
        match mode {
            TallyMode::Full => Counts::Full(Tally {
                deck,
                counts: zeroed_counters(factorial(deck) as usize),
                trials: 0,
            }),
            TallyMode::Marginal => Counts::Marginal(MarginalTally::new(deck)),
        }
    }

    /// An empty tally like [`Counts::empty`], but a full one's counters are not faulted in:
    /// the total of a merge that `add_counts_split` fills (`fresh`), each thread faulting in
    /// its own part.
    pub fn empty_unpopulated(mode: TallyMode, deck: usize) -> Counts {
        match mode {
            TallyMode::Full => Counts::Full(Tally {
                deck,
                counts: vec![0u64; factorial(deck) as usize],
                trials: 0,
            }),
            TallyMode::Marginal => Counts::Marginal(MarginalTally::new(deck)),
        }
    }

    /// The full tally's counters, if this is one.
    pub fn full_counters_mut(&mut self) -> Option<&mut [u64]> {
        match self {
            Counts::Full(tally) => Some(&mut tally.counts),
            Counts::Marginal(_) => None,
        }
    }

    fn trials_mut(&mut self) -> &mut u64 {
        match self {
            Counts::Full(tally) => &mut tally.trials,
            Counts::Marginal(tally) => &mut tally.trials,
        }
    }

    /// Counters stored.
    pub fn cells(&self) -> u64 {
        match self {
            Counts::Full(tally) => tally.counts.len() as u64,
            Counts::Marginal(tally) => {
                (tally.positions.len() + 1 + tally.histograms.iter().map(Vec::len).sum::<usize>())
                    as u64
            }
        }
    }

    /// The counters, in file order, as slices (the identity as a one-cell slice).
    fn parts(&self) -> Vec<&[u64]> {
        match self {
            Counts::Full(tally) => vec![&tally.counts],
            Counts::Marginal(tally) => {
                let mut parts: Vec<&[u64]> =
                    vec![&tally.positions, std::slice::from_ref(&tally.identity)];
                parts.extend(tally.histograms.iter().map(Vec::as_slice));
                parts
            }
        }
    }

    /// The counters, in file order, as mutable slices.
    fn parts_mut(&mut self) -> Vec<&mut [u64]> {
        match self {
            Counts::Full(tally) => vec![&mut tally.counts],
            Counts::Marginal(tally) => {
                let mut parts: Vec<&mut [u64]> = vec![
                    &mut tally.positions,
                    std::slice::from_mut(&mut tally.identity),
                ];
                parts.extend(tally.histograms.iter_mut().map(Vec::as_mut_slice));
                parts
            }
        }
    }

    /// Whether the counters agree with `trials` shuffles: the orderings' counts (full mode) or
    /// each card's row of the position matrix, and each histogram (marginal mode), add up to it.
    pub fn adds_up(&self) -> bool {
        match self {
            Counts::Full(tally) => tally.counts.iter().sum::<u64>() == tally.trials,
            Counts::Marginal(tally) => {
                tally.identity <= tally.trials
                    && tally
                        .positions
                        .chunks(tally.deck)
                        .all(|row| row.iter().sum::<u64>() == tally.trials)
                    && tally
                        .histograms
                        .iter()
                        .all(|h| h.iter().sum::<u64>() == tally.trials)
            }
        }
    }
}

/// `len` zero counters, their pages faulted in at once. A merge adds every file into them: a
/// page first read (by the first addition) is mapped to the shared zero page, then copied on
/// the write, two page faults each; on Linux one `madvise(MADV_POPULATE_WRITE)` (5.14 and
/// later) instead allocates every page of a large total in one call, which for n = 11 (320 MB)
/// measured faster than 160,000 faults in a virtual machine (BENCHMARKS.md). Where the call is
/// refused the pages fault in as before. (Transparent huge pages were tried and dropped: the
/// kernel's compaction for them stalled merges for over a second on a busy machine.)
fn zeroed_counters(len: usize) -> Vec<u64> {
    let counts = vec![0u64; len];
    populate(&counts);
    counts
}

/// Bytes of a page.
const PAGE: usize = 4096;

/// Fault in the pages of a large `counts` at once (below 1 MiB, first writes will do).
fn populate(counts: &[u64]) {
    if std::mem::size_of_val(counts) >= 256 * PAGE {
        populate_pages(counts);
    }
}

/// Fault in, for writing, every whole page of `counts` in one call: [`codec::add_counts_split`]
/// calls it on each chunk of the total just before writing the chunk, so the pages the kernel
/// has just zeroed are still in the cache when the counters overwrite them, rather than sent
/// out to memory and read back (BENCHMARKS.md: no slower than faulting in a thread's whole
/// part first, and up to twice as fast when the shared cache is not busy).
#[cfg(target_os = "linux")]
fn populate_pages(counts: &[u64]) {
    crate::system::pages::advise_whole_pages(counts, PAGE, libc::MADV_POPULATE_WRITE);
}

#[cfg(not(target_os = "linux"))]
fn populate_pages(_counts: &[u64]) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marginal_tally_of_n_cards_stores_its_positions_identity_and_histograms() {
        // n² positions, the identity, fixed points, cycles and rising sequences (0..=n each)
        // and adjacent pairs (0..=n−1): n² + 1 + 3(n + 1) + n = (n + 2)²; then descents
        // (0..=n−1), inversions (0..=n(n−1)/2), the longest increasing subsequence (0..=n) and
        // the footrule (0..=⌊n²/2⌋), up to 56 cards; then the valleys (0..=⌊(n−1)/2⌋), the
        // guessing game (0..=n) and the colour changes (0..=min(n−1, 2⌊n/2⌋)) (5,832 counters
        // at 52 cards).
        for n in [2, 5, 52] {
            let counts = Counts::empty(TallyMode::Marginal, n);
            let order = n + (n * (n - 1) / 2 + 1) + (n + 1) + (n * n / 2 + 1);
            let shape = ((n - 1) / 2 + 1) + (n + 1) + ((n - 1).min(2 * (n / 2)) + 1);
            let order = order + shape;
            assert_eq!(counts.cells(), ((n + 2) * (n + 2) + order) as u64);
            assert_eq!(
                codec::expected_cells(TallyMode::Marginal, n),
                Some(counts.cells())
            );
        }
        assert_eq!(Counts::empty(TallyMode::Full, 5).cells(), 120);
        assert_eq!(codec::expected_cells(TallyMode::Full, 11), Some(39_916_800));
    }
}
