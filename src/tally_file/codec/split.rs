//! Adding the counters of many full tally files at once: the range of cells split between threads,
//! each reading its slice of every file at its offset.

use super::read::{OpenTally, add_fixed, decode_word};
use super::{Encoding, TallyFileError};
use crate::engine::tally::TallyMode;
use crate::tally_file::header::TallyHeader;
use std::fs::File;
use std::io::{self, Seek, SeekFrom};
use std::sync::atomic::{AtomicBool, Ordering};

/// Counters of a full tally from which [`add_counts_split`] reads a file (below, one read of
/// the whole file is quicker than starting threads).
pub const SPLIT_MIN_CELLS: u64 = 1 << 16;

/// Cells a thread of [`add_counts_split`] takes from every file in turn: 256 KiB of the total,
/// which stays in the cache while each file's slice is added into it, so that the total is
/// written to memory once whatever the number of files.
pub(super) const SPLIT_CHUNK_CELLS: usize = 1 << 15;

/// Whether [`add_counts_split`] reads the file of `header`: a full tally of at least
/// [`SPLIT_MIN_CELLS`] counters written as fixed-width words, so that the counters of cells
/// [a, b) sit at a known offset. (Varints must be decoded in order; marginal tallies are small.)
pub fn splittable(header: &TallyHeader) -> bool {
    header.tally_mode() == Some(TallyMode::Full)
        && header.cells >= SPLIT_MIN_CELLS
        && matches!(Encoding::parse(&header.encoding), Some(Encoding::Fixed(_)))
}

/// One file as a thread of [`add_counts_split`] sees it.
pub(super) struct SplitFile<'a> {
    file: &'a File,
    counts_at: u64,
    width: usize,
}

/// What one thread of [`add_counts_split`] computed for each file: the CRC-32 of its slice of
/// the counters, and their sum; None when stopped; the file's index with a read error.
pub(super) type SplitPart = Result<Option<Vec<(crc32fast::Hasher, u128)>>, (usize, io::Error)>;

/// Add the counters of `files` (each [`splittable`], opened by [`open_tally`](super::open_tally)
/// on the total's deck) into `total`, the range of cells split into `threads` parts, one per thread: each
/// thread reads its slice of every file at the slice's offset (`pread`), a chunk of cells at
/// a time, and adds it into its own part of the total. Each file's CRC-32 is the CRC of the
/// parts combined in order (`crc32fast::Hasher::combine`), so [`OpenTally::finish`] checks
/// the same value as a sequential read. With `fresh` (`total` all zeros, never written), each
/// thread first faults in its own part of the total, and the first file's counters are
/// stored rather than added.
///
/// Returns each file's counter sum, for [`OpenTally::finish`]; None when `stop` was set
/// (checked between chunks). On an error `total` holds part of the counts and must be dropped.
pub fn add_counts_split(
    files: &mut [OpenTally],
    total: &mut [u64],
    fresh: bool,
    threads: usize,
    stop: &AtomicBool,
) -> Result<Option<Vec<u128>>, TallyFileError> {
    let views: Vec<SplitFile> = files
        .iter()
        .map(|open| {
            debug_assert!(splittable(open.header) && open.header.cells == total.len() as u64);
            let Some(Encoding::Fixed(width)) = Encoding::parse(&open.header.encoding) else {
                unreachable!("add_counts_split takes fixed-width files only")
            };
            SplitFile {
                file: &open.reader.file,
                counts_at: open.counts_at,
                width,
            }
        })
        .collect();
    // Parts of whole pages of the total (512 counters), so that no two threads share a page.
    let part_cells = total
        .len()
        .div_ceil(threads.max(1))
        .next_multiple_of(512)
        .max(1);
    let parts: Vec<SplitPart> = std::thread::scope(|scope| {
        let workers: Vec<_> = total
            .chunks_mut(part_cells)
            .enumerate()
            .map(|(index, part)| {
                let views = &views;
                scope.spawn(move || add_part(views, part, index * part_cells, fresh, stop))
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("a merge thread panicked"))
            .collect()
    });
    let mut sums = vec![0u128; files.len()];
    for part in parts {
        match part {
            Err((index, source)) => return Err(files[index].read_error(source)),
            Ok(None) => return Ok(None),
            Ok(Some(results)) => {
                for ((open, sum), (hasher, part_sum)) in
                    files.iter_mut().zip(&mut sums).zip(results)
                {
                    open.reader.hasher.combine(&hasher);
                    *sum += part_sum;
                }
            }
        }
    }
    for open in files.iter_mut() {
        let end = open.counts_at + open.header.counts_bytes;
        if let Err(source) = open.reader.file.seek(SeekFrom::Start(end)) {
            return Err(open.read_error(source));
        }
    }
    Ok(Some(sums))
}

/// One thread of [`add_counts_split`]: the cells of `part`, the first of which is cell
/// `first_cell` of the tally.
pub(super) fn add_part(
    files: &[SplitFile],
    part: &mut [u64],
    first_cell: usize,
    fresh: bool,
    stop: &AtomicBool,
) -> SplitPart {
    let widest = files.iter().map(|f| f.width).max().unwrap_or(1);
    let mut buffer = vec![0u8; SPLIT_CHUNK_CELLS.min(part.len()) * widest];
    let mut results: Vec<(crc32fast::Hasher, u128)> = files
        .iter()
        .map(|_| (crc32fast::Hasher::new(), 0))
        .collect();
    for (chunk, cells) in part.chunks_mut(SPLIT_CHUNK_CELLS).enumerate() {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        if fresh {
            crate::tally_file::populate_pages(cells);
        }
        let first = (first_cell + chunk * SPLIT_CHUNK_CELLS) as u64;
        for (index, (view, (hasher, sum))) in files.iter().zip(&mut results).enumerate() {
            let bytes = &mut buffer[..cells.len() * view.width];
            read_exact_at(view.file, bytes, view.counts_at + first * view.width as u64)
                .map_err(|e| (index, e))?;
            hasher.update(bytes);
            let store = fresh && index == 0;
            *sum += match (view.width, store) {
                (1, false) => add_fixed::<1>(bytes, cells),
                (2, false) => add_fixed::<2>(bytes, cells),
                (4, false) => add_fixed::<4>(bytes, cells),
                (_, false) => add_fixed::<8>(bytes, cells),
                (1, true) => store_fixed::<1>(bytes, cells),
                (2, true) => store_fixed::<2>(bytes, cells),
                (4, true) => store_fixed::<4>(bytes, cells),
                (_, true) => store_fixed::<8>(bytes, cells),
            };
        }
    }
    Ok(Some(results))
}

/// Fill `buffer` from `file` at `offset`, leaving the file's own position alone (`pread`).
#[cfg(unix)]
pub(super) fn read_exact_at(file: &File, buffer: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buffer, offset)
}

/// Fill `buffer` from `file` at `offset` (the file's position moves; [`add_counts_split`]
/// seeks afterwards).
#[cfg(windows)]
pub(super) fn read_exact_at(file: &File, mut buffer: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buffer.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buffer, offset) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buffer = &mut buffer[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Store the little-endian words of W bytes of `bytes` into `cells`; their sum.
#[inline]
pub(super) fn store_fixed<const W: usize>(bytes: &[u8], cells: &mut [u64]) -> u128 {
    if W == 1 {
        for (cell, &byte) in cells.iter_mut().zip(bytes) {
            *cell = u64::from(byte);
        }
        return u128::from(bytes.iter().map(|&b| u64::from(b)).sum::<u64>());
    }
    let mut sum = 0u128;
    for (cell, word) in cells.iter_mut().zip(bytes.chunks_exact(W)) {
        let value = decode_word::<W>(word);
        *cell = value;
        sum += u128::from(value);
    }
    sum
}
