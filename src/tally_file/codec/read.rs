//! Reading a tally file: its header checked against the format and the file's size, then its
//! counters added into a tally, section by section, and its CRC-32 and sums checked.

use super::{
    CHUNK_BYTES, Encoding, FINGERPRINT_BYTES, MAX_HEADER_BYTES, MAX_VARINT_BYTES, PREFIX_BYTES,
    TallyFileError, expected_cells, stream_cells,
};
use crate::engine::deal_stream::{
    DealStreamTally, FingerprintBudget, MAX_GROUPS, MAX_SAMPLE_LEVEL, Repeats, RepeatsSkipped,
};
use crate::engine::statistics::Statistic;
use crate::engine::tally::TallyMode;
use crate::tally_file::header::TallyHeader;
use crate::tally_file::{Counts, FORMAT_VERSION, MAGIC};
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Add the little-endian words of W bytes of `bytes` into `cells`; their sum.
#[inline]
pub(super) fn add_fixed<const W: usize>(bytes: &[u8], cells: &mut [u64]) -> u128 {
    if W == 1 {
        // The common case of a large tally: a loop the compiler vectorises.
        for (cell, &byte) in cells.iter_mut().zip(bytes) {
            *cell = cell.wrapping_add(u64::from(byte));
        }
        return u128::from(bytes.iter().map(|&b| u64::from(b)).sum::<u64>());
    }
    if W == 2 {
        let mut sum = 0u64;
        for (cell, word) in cells.iter_mut().zip(bytes.chunks_exact(2)) {
            let value = u64::from(u16::from_le_bytes([word[0], word[1]]));
            *cell = cell.wrapping_add(value);
            sum += value;
        }
        return u128::from(sum);
    }
    let mut sum = 0u128;
    for (cell, word) in cells.iter_mut().zip(bytes.chunks_exact(W)) {
        let value = decode_word::<W>(word);
        *cell = cell.wrapping_add(value);
        sum += u128::from(value);
    }
    sum
}

/// The little-endian word of W bytes `word`.
#[inline(always)]
pub(super) fn decode_word<const W: usize>(word: &[u8]) -> u64 {
    let mut wide = [0u8; 8];
    wide[..W].copy_from_slice(word);
    u64::from_le_bytes(wide)
}

/// Open the tally file `path` for reading, refusing anything but a regular file. It is
/// opened without waiting (`O_NONBLOCK`), so that a FIFO nobody writes to is refused at once
/// rather than blocking the open (where Ctrl-C was not heard); the flag changes nothing for
/// the reads of a regular file. Returns the file and its size.
pub(super) fn open_regular(path: &Path) -> Result<(File, u64), TallyFileError> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let read = |source| TallyFileError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(read)?;
    let metadata = file.metadata().map_err(read)?;
    let kind = metadata.file_type();
    let not_regular = |kind| TallyFileError::NotRegular {
        path: path.to_path_buf(),
        kind,
    };
    if kind.is_fifo() {
        return Err(not_regular("a FIFO"));
    }
    if kind.is_dir() {
        return Err(not_regular("a directory"));
    }
    if kind.is_char_device() || kind.is_block_device() {
        return Err(not_regular("a device"));
    }
    if kind.is_socket() || !kind.is_file() {
        return Err(not_regular("a special file"));
    }
    Ok((file, metadata.len()))
}

/// A tally file's header, checked against the format and against the file's size.
pub fn read_header(path: &Path) -> Result<TallyHeader, TallyFileError> {
    let read = |source| TallyFileError::Read {
        path: path.to_path_buf(),
        source,
    };
    let bad = |problem: String| TallyFileError::BadHeader {
        path: path.to_path_buf(),
        problem,
    };
    let (mut file, size) = open_regular(path)?;
    let mut magic = [0u8; MAGIC.len()];
    let got = read_up_to(&mut file, &mut magic).map_err(read)?;
    if magic[..got] != MAGIC[..got] {
        return Err(TallyFileError::NotATally {
            path: path.to_path_buf(),
        });
    }
    let truncated = |expected| TallyFileError::Truncated {
        path: path.to_path_buf(),
        size,
        expected,
    };
    if got < MAGIC.len() || size < PREFIX_BYTES {
        return Err(truncated(PREFIX_BYTES));
    }
    let mut version = [0u8; 2];
    file.read_exact(&mut version).map_err(read)?;
    let version = u16::from_le_bytes(version);
    if version != FORMAT_VERSION {
        return Err(TallyFileError::FormatVersion {
            path: path.to_path_buf(),
            found: version,
        });
    }
    let mut length = [0u8; 4];
    file.read_exact(&mut length).map_err(read)?;
    let length = u32::from_le_bytes(length);
    if length > MAX_HEADER_BYTES {
        return Err(bad(format!(
            "its length, {length} bytes, is beyond any header"
        )));
    }
    if size < PREFIX_BYTES + u64::from(length) {
        return Err(truncated(PREFIX_BYTES + u64::from(length)));
    }
    let mut json = vec![0u8; length as usize];
    file.read_exact(&mut json).map_err(read)?;
    let header: TallyHeader = serde_json::from_slice(&json).map_err(|e| bad(e.to_string()))?;
    if header.tool != "shuffle-bias" {
        return Err(TallyFileError::NotATally {
            path: path.to_path_buf(),
        });
    }
    if let Some(problem) = header.problem() {
        return Err(bad(problem));
    }
    let mode = header
        .tally_mode()
        .ok_or_else(|| bad(format!("unknown mode '{}'", header.mode)))?;
    let cells = expected_cells(mode, header.deck)
        .ok_or_else(|| bad(format!("{} cards in {} mode", header.deck, header.mode)))?;
    if header.cells != cells {
        return Err(bad(format!(
            "{} counters, but a {} tally of {} cards has {cells}",
            header.cells, header.mode, header.deck
        )));
    }
    let encoding = Encoding::parse(&header.encoding)
        .ok_or_else(|| bad(format!("unknown encoding '{}'", header.encoding)))?;
    if !encoding.fits(cells, header.counts_bytes) {
        return Err(bad(format!(
            "{} bytes cannot hold {cells} counters as {}",
            header.counts_bytes, header.encoding
        )));
    }
    let mut body = header.counts_bytes;
    if let Some(stream) = &header.deal_stream {
        let stream_encoding = Encoding::parse(&stream.encoding).ok_or_else(|| {
            bad(format!(
                "unknown encoding '{}' of the deal stream",
                stream.encoding
            ))
        })?;
        let shape_ok = stream.dealt >= 1
            && stream.dealt <= header.deck
            && stream.groups == header.deck.min(MAX_GROUPS)
            && stream.pairs <= stream.deals
            && stream.fingerprints <= stream.deals
            && (stream.fingerprints == 0 || stream.repeats == "fingerprints")
            && stream.sample_level <= MAX_SAMPLE_LEVEL
            && (stream.sample_level == 0 || stream.repeats == "fingerprints")
            && ["from-tally", "fingerprints", "memory", "off"].contains(&stream.repeats.as_str())
            && stream
                .ends
                .iter()
                .all(|end| end.first.len() == stream.dealt && end.last.len() == stream.dealt);
        let stream_cells = stream_cells(header.deck, stream).filter(|_| shape_ok);
        match stream_cells {
            Some(cells) if stream_encoding.fits(cells, stream.counts_bytes) => {}
            _ => {
                return Err(bad(
                    "its deal stream is not one of deals of this deck".to_string()
                ));
            }
        }
        body = body
            .checked_add(stream.counts_bytes)
            .and_then(|b| b.checked_add(stream.fingerprints.checked_mul(FINGERPRINT_BYTES)?))
            .ok_or_else(|| bad("its sizes overflow".to_string()))?;
    }
    if header.body_bytes != body {
        return Err(bad(format!(
            "its body is {} bytes, but its parts take {body}",
            header.body_bytes
        )));
    }
    match (&header.run, &header.check, header.command.as_str()) {
        (Some(run), None, "run") => {
            run.shuffle().map_err(bad)?;
            run.source().map_err(bad)?;
            let blocks = crate::engine::shard::block_count(run.trials);
            if run.blocks != blocks || !run.coverage().is_consistent(blocks, run.trials) {
                return Err(bad(format!(
                    "its blocks ({:?}, cut short {:?}) are not blocks of a run of {} shuffles",
                    run.taken, run.partial, run.trials
                )));
            }
            if run.coverage().trials(run.trials) != header.trials {
                return Err(bad(format!(
                    "its blocks hold {} shuffles, but it says {}",
                    run.coverage().trials(run.trials),
                    header.trials
                )));
            }
        }
        (None, Some(check), "check") => {
            if let Some(model) = &check.model {
                model.shuffle().map_err(bad)?;
            }
        }
        _ => {
            return Err(bad(format!(
                "command '{}' with the wrong description",
                header.command
            )));
        }
    }
    let expected = PREFIX_BYTES + u64::from(length) + header.body_bytes + 4;
    if size < expected {
        return Err(truncated(expected));
    }
    if size > expected {
        return Err(TallyFileError::TrailingBytes {
            path: path.to_path_buf(),
            size,
            expected,
        });
    }
    Ok(header)
}

/// Read into `buffer` until it is full or the file ends; the bytes read.
pub(super) fn read_up_to(file: &mut impl Read, buffer: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buffer.len() {
        match file.read(&mut buffer[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Reads a body section by section, exactly the bytes asked for, hashing them on the way.
pub(super) struct BodyReader {
    pub(super) file: File,
    pub(super) hasher: crc32fast::Hasher,
    buffer: Vec<u8>,
}

impl BodyReader {
    /// The next `want` bytes (at most [`CHUNK_BYTES`]).
    fn next(&mut self, want: usize) -> io::Result<&[u8]> {
        if self.buffer.len() < want {
            self.buffer.resize(want, 0);
        }
        self.file.read_exact(&mut self.buffer[..want])?;
        self.hasher.update(&self.buffer[..want]);
        Ok(&self.buffer[..want])
    }
}

#[cfg(test)]
impl BodyReader {
    /// A reader of `file` from where it stands.
    pub(super) fn of_file(file: File) -> Self {
        BodyReader {
            file,
            hasher: crc32fast::Hasher::new(),
            buffer: Vec::new(),
        }
    }
}

/// Why a section of counters does not decode (its file is named by the caller).
pub(super) type Problem = String;

/// Add the `bytes` bytes of counters in `encoding` into `parts`; the sum of what was added
/// to each part.
pub(super) fn add_counters(
    reader: &mut BodyReader,
    encoding: Encoding,
    bytes: u64,
    parts: Vec<&mut [u64]>,
) -> Result<Result<Vec<u128>, Problem>, io::Error> {
    match encoding {
        Encoding::Fixed(1) => add_fixed_parts::<1>(reader, parts),
        Encoding::Fixed(2) => add_fixed_parts::<2>(reader, parts),
        Encoding::Fixed(4) => add_fixed_parts::<4>(reader, parts),
        Encoding::Fixed(_) => add_fixed_parts::<8>(reader, parts),
        Encoding::Leb128 => add_varints(reader, bytes, parts),
    }
}

/// [`add_counters`] of words of W bytes: each read straight into the buffer and added from it.
pub(super) fn add_fixed_parts<const W: usize>(
    reader: &mut BodyReader,
    parts: Vec<&mut [u64]>,
) -> Result<Result<Vec<u128>, Problem>, io::Error> {
    let mut sums = vec![0u128; parts.len()];
    for (sum, part) in sums.iter_mut().zip(parts) {
        for cells in part.chunks_mut(CHUNK_BYTES / W) {
            let bytes = reader.next(cells.len() * W)?;
            *sum += add_fixed::<W>(bytes, cells);
        }
    }
    Ok(Ok(sums))
}

/// [`add_counters`] of LEB128 varints, decoded from a buffer refilled as it empties.
pub(super) fn add_varints(
    reader: &mut BodyReader,
    bytes: u64,
    parts: Vec<&mut [u64]>,
) -> Result<Result<Vec<u128>, Problem>, io::Error> {
    let mut left = bytes;
    let mut buffer = vec![0u8; CHUNK_BYTES + MAX_VARINT_BYTES];
    let (mut start, mut end) = (0usize, 0usize);
    let mut sums = vec![0u128; parts.len()];
    for (sum, part) in sums.iter_mut().zip(parts) {
        let mut at = 0;
        while at < part.len() {
            // Decode every varint that surely lies whole in the buffer: all of them once the
            // section is read, else those starting at least MAX_VARINT_BYTES before its end.
            if end - start <= MAX_VARINT_BYTES && left > 0 {
                buffer.copy_within(start..end, 0);
                end -= start;
                start = 0;
                let want = (CHUNK_BYTES as u64).min(left) as usize;
                buffer[end..end + want].copy_from_slice(reader.next(want)?);
                end += want;
                left -= want as u64;
            }
            let limit = if left == 0 {
                end
            } else {
                end - MAX_VARINT_BYTES
            };
            if start >= limit {
                return Ok(Err("its bytes end before its counters do".to_string()));
            }
            while start < limit && at < part.len() {
                let first = buffer[start];
                let value = if first < 0x80 {
                    start += 1;
                    u64::from(first)
                } else {
                    let mut slice = &buffer[start..end];
                    match leb128::read::unsigned(&mut slice) {
                        Ok(value) => {
                            start = end - slice.len();
                            value
                        }
                        Err(e) => return Ok(Err(format!("a counter does not decode ({e})"))),
                    }
                };
                part[at] = part[at].wrapping_add(value);
                *sum += u128::from(value);
                at += 1;
            }
        }
    }
    if start != end || left != 0 {
        return Ok(Err(
            "its counters end before the bytes its header promises".to_string()
        ));
    }
    Ok(Ok(sums))
}

/// Add the counts of the tally file `path`, whose header [`read_header`] gave, into `counts`
/// (of the same mode and deck), checking its CRC-32 and that its counters add up to its
/// trials; and hand over its deal stream, if it kept one. Its fingerprints are read within
/// `budget` (sampled by value past its cap, see [`FingerprintBudget`]); without a budget they
/// are not kept (the stream then says the repeats were skipped for memory). On an error
/// `counts` holds part of the file's counts and must be dropped.
pub fn read_tally_into(
    path: &Path,
    header: &TallyHeader,
    counts: &mut Counts,
    budget: Option<FingerprintBudget>,
) -> Result<Option<DealStreamTally>, TallyFileError> {
    let mut open = open_tally(path, header)?;
    let sums = open.add_counts(counts)?;
    open.finish(&sums, counts, budget)
}

/// A tally file opened to be added: its prefix and header read again (and hashed), the file
/// positioned at its first counter. [`read_tally_into`] is [`open_tally`], then
/// [`OpenTally::add_counts`] (or [`add_counts_split`](super::add_counts_split) for several files
/// at once), then [`OpenTally::finish`].
pub struct OpenTally<'a> {
    path: &'a Path,
    pub(super) header: &'a TallyHeader,
    pub(super) reader: BodyReader,
    /// Offset of the first counter in the file.
    pub(super) counts_at: u64,
}

/// Open the tally file `path`, whose header [`read_header`] gave, to add its counts: its
/// prefix and header are read again and must not have changed.
pub fn open_tally<'a>(
    path: &'a Path,
    header: &'a TallyHeader,
) -> Result<OpenTally<'a>, TallyFileError> {
    let read = |source| TallyFileError::Read {
        path: path.to_path_buf(),
        source,
    };
    let (mut file, _) = open_regular(path)?;
    let mut hasher = crc32fast::Hasher::new();
    // The prefix and the header again (the file is read twice rather than kept open, so that
    // any number of files can be merged a few at a time).
    let mut prefix = [0u8; PREFIX_BYTES as usize];
    file.read_exact(&mut prefix).map_err(read)?;
    hasher.update(&prefix);
    let length = u32::from_le_bytes(prefix[PREFIX_BYTES as usize - 4..].try_into().unwrap());
    let mut json = vec![0u8; length as usize];
    file.read_exact(&mut json).map_err(read)?;
    hasher.update(&json);
    let on_disk: TallyHeader =
        serde_json::from_slice(&json).map_err(|e| TallyFileError::BadHeader {
            path: path.to_path_buf(),
            problem: e.to_string(),
        })?;
    if on_disk != *header {
        return Err(TallyFileError::BadCounts {
            path: path.to_path_buf(),
            problem: "the file changed while it was merged".to_string(),
        });
    }
    Ok(OpenTally {
        path,
        header,
        reader: BodyReader {
            file,
            hasher,
            buffer: Vec::new(),
        },
        counts_at: PREFIX_BYTES + u64::from(length),
    })
}

/// What is wrong with the sums of a file's parts of counters (`sums`, as
/// [`OpenTally::add_counts`] gives them) for `trials` shuffles of `deck` cards in `mode`: the
/// orderings' counts add up to the trials; in marginal mode the position matrix adds up to
/// trials × deck, the identity count is at most the trials, and each statistic's histogram adds
/// up to the trials. So no counter of a file exceeds trials × deck ≤ 2^53 · 2^10 (the header's
/// limits), and neither does a sum of files whose trials add up to at most 2^53 (`merge` refuses
/// more): adding files' counters never wraps.
pub(super) fn parts_problem(
    mode: TallyMode,
    trials: u64,
    deck: usize,
    sums: &[u128],
) -> Option<String> {
    let trials_wide = u128::from(trials);
    let first = sums.first().copied().unwrap_or(0);
    match mode {
        TallyMode::Full => (first != trials_wide).then(|| {
            format!("its counters add up to {first}, not to what {trials} shuffles give")
        }),
        TallyMode::Marginal => {
            if first != trials_wide * deck as u128 {
                return Some(format!(
                    "its position matrix adds up to {first}, not to what {trials} shuffles of \
                     {deck} cards give"
                ));
            }
            let identity = sums.get(1).copied().unwrap_or(0);
            if identity > trials_wide {
                return Some(format!(
                    "its identity count {identity} is more than its {trials} shuffles"
                ));
            }
            Statistic::ALL
                .iter()
                .zip(sums.iter().skip(2))
                .filter(|(statistic, _)| statistic.cells(deck) > 0)
                .find(|&(_, &sum)| sum != trials_wide)
                .map(|(statistic, sum)| {
                    format!(
                        "its histogram of {} adds up to {sum}, not to its {trials} shuffles",
                        statistic.name()
                    )
                })
        }
    }
}

impl OpenTally<'_> {
    pub(super) fn read_error(&self, source: io::Error) -> TallyFileError {
        TallyFileError::Read {
            path: self.path.to_path_buf(),
            source,
        }
    }

    fn bad_counts(&self, problem: String) -> TallyFileError {
        TallyFileError::BadCounts {
            path: self.path.to_path_buf(),
            problem,
        }
    }

    /// Add the file's counters into `counts`, reading them in order; the sum of each part (the
    /// orderings' counts; or the position matrix, the identity count and each histogram in
    /// marginal mode), for [`Self::finish`].
    pub fn add_counts(&mut self, counts: &mut Counts) -> Result<Vec<u128>, TallyFileError> {
        let encoding = Encoding::parse(&self.header.encoding).expect("read_header checked it");
        match add_counters(
            &mut self.reader,
            encoding,
            self.header.counts_bytes,
            counts.parts_mut(),
        ) {
            Err(e) => Err(self.read_error(e)),
            Ok(Err(problem)) => Err(self.bad_counts(problem)),
            Ok(Ok(sum)) => Ok(sum),
        }
    }

    /// Read the rest of the file once its counters were added (`sums` is what
    /// [`Self::add_counts`] gave, or for a full tally [`add_counts_split`](super::add_counts_split)'s
    /// one sum): the deal stream (its fingerprints read within `budget`, as [`read_tally_into`]),
    /// the CRC-32, and that the counters add up to the file's trials, which are then added to
    /// `counts`.
    pub fn finish(
        mut self,
        sums: &[u128],
        counts: &mut Counts,
        budget: Option<FingerprintBudget>,
    ) -> Result<Option<DealStreamTally>, TallyFileError> {
        let path = self.path;
        let header = self.header;
        let read = |source| TallyFileError::Read {
            path: path.to_path_buf(),
            source,
        };
        let bad_counts = |problem: String| TallyFileError::BadCounts {
            path: path.to_path_buf(),
            problem,
        };
        // The counters bound the trials, which bound the deals and fingerprints the header
        // claims: when they do not add up, the fingerprints are read only for the CRC-32, not
        // kept (a sparse file claiming millions of them allocates nothing), and the file is
        // refused after its CRC-32 is checked.
        let counts_problem = parts_problem(counts.mode(), header.trials, header.deck, sums);
        let counts_add_up = counts_problem.is_none();
        let reader = &mut self.reader;
        let deals = match &header.deal_stream {
            None => None,
            Some(part) => {
                let mut tally = part.empty_tally(header.deck);
                let stream_parts: Vec<&mut [u64]> = {
                    let DealStreamTally {
                        matches,
                        slots,
                        compositions,
                        ..
                    } = &mut tally;
                    let mut parts: Vec<&mut [u64]> = vec![matches, slots];
                    if let Some(compositions) = compositions {
                        parts.push(compositions);
                    }
                    parts
                };
                let encoding = Encoding::parse(&part.encoding).expect("read_header checked it");
                add_counters(reader, encoding, part.counts_bytes, stream_parts)
                    .map_err(read)?
                    .map_err(bad_counts)?;
                // Kept when there is a budget (or nothing to keep), sampled within it.
                let budget = budget.filter(|_| counts_add_up);
                let keep = part.fingerprints == 0 || budget.is_some();
                let mut level = part.sample_level.max(budget.map_or(0, |b| b.level));
                let mut prints = Vec::with_capacity(match budget {
                    Some(budget) => part.fingerprints.min(budget.cap) as usize,
                    None => 0,
                });
                let mut left = part.fingerprints;
                let per_chunk = CHUNK_BYTES as u64 / FINGERPRINT_BYTES;
                while left > 0 {
                    let take = left.min(per_chunk);
                    let bytes = reader
                        .next((take * FINGERPRINT_BYTES) as usize)
                        .map_err(read)?;
                    if let Some(budget) = budget {
                        budget.read(
                            &mut prints,
                            &mut level,
                            bytes
                                .chunks_exact(FINGERPRINT_BYTES as usize)
                                .map(|b| u128::from_le_bytes(b.try_into().unwrap())),
                        );
                    }
                    left -= take;
                }
                if keep {
                    if let Repeats::Counted { .. } | Repeats::Sampled { .. } = tally.repeats {
                        tally.repeats = Repeats::to_count(level, prints.len() as u64);
                    }
                    tally.fingerprints = vec![prints];
                } else {
                    tally.repeats = Repeats::Skipped(RepeatsSkipped::Memory {
                        limit: 0,
                        deals: tally.deals,
                    });
                }
                Some(tally)
            }
        };
        let mut stored = [0u8; 4];
        reader.file.read_exact(&mut stored).map_err(read)?;
        let stored = u32::from_le_bytes(stored);
        let computed = reader.hasher.clone().finalize();
        if stored != computed {
            return Err(TallyFileError::Corrupted {
                path: path.to_path_buf(),
                stored,
                computed,
            });
        }
        if let Some(problem) = counts_problem {
            return Err(bad_counts(problem));
        }
        if let Some(tally) = &deals
            && let Some(compositions) = &tally.compositions
            && compositions.iter().map(|&c| u128::from(c)).sum::<u128>() != u128::from(tally.pairs)
        {
            return Err(bad_counts(
                "its deal stream counts another number of compositions than of pairs".to_string(),
            ));
        }
        // Every pair has one number of matching slots, and one pair of groups at each slot.
        if let Some(tally) = &deals {
            let pairs = u128::from(tally.pairs);
            let sum = |counts: &[u64]| counts.iter().map(|&c| u128::from(c)).sum::<u128>();
            let table = tally.groups * tally.groups;
            if sum(&tally.matches) != pairs
                || table == 0
                || tally.slots.chunks(table).any(|slot| sum(slot) != pairs)
            {
                return Err(bad_counts(format!(
                    "its deal stream's counters do not add up to its {} pairs",
                    tally.pairs
                )));
            }
        }
        *counts.trials_mut() += header.trials;
        Ok(deals)
    }
}
