//! The bytes of a tally file: writing one in a stream, reading its header, and adding its
//! counts into a tally, checking on the way its magic, format version, size and CRC-32.
//!
//! Counters are unsigned LEB128 varints (the `leb128` crate); the checksum is CRC-32 (IEEE, the
//! `crc32fast` crate) of every byte before it. Both directions work in chunks of
//! [`CHUNK_BYTES`], so a file of any size costs a buffer of memory beside the tally.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::header::TallyHeader;
use super::{Counts, FORMAT_VERSION, MAGIC};
use crate::engine::marginal::MAX_MARGINAL_DECK;
use crate::engine::permutation::{MAX_FULL_DECK, factorial};
use crate::engine::tally::TallyMode;
use crate::theory::permutation_statistics::Statistic;

/// Bytes encoded or decoded at a time.
pub const CHUNK_BYTES: usize = 1 << 20;

/// The longest header accepted (a header lists the input files of `check`; 64 MiB is
/// hundreds of thousands of names).
const MAX_HEADER_BYTES: u32 = 64 << 20;

/// Bytes before the header: the magic, the format version and the header's length.
const PREFIX_BYTES: u64 = MAGIC.len() as u64 + 2 + 4;

/// The longest LEB128 encoding of a `u64`.
const MAX_VARINT_BYTES: usize = 10;

/// Why a tally file cannot be used. Every message starts with the file's name.
#[derive(Debug, thiserror::Error)]
pub enum TallyFileError {
    /// The file cannot be opened or read.
    #[error("{}: cannot read the tally file: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// It does not start with the magic.
    #[error(
        "{}: not a shuffle-bias tally file (it does not start with the tally magic); give files \
         written by `run --save-tally` or `check --save-tally`",
        .path.display()
    )]
    NotATally {
        /// The file.
        path: PathBuf,
    },
    /// Written in a format version this build does not read.
    #[error(
        "{}: tally format version {found}, but this shuffle-bias ({}) reads version {}; merge \
         it with the shuffle-bias that wrote it",
        .path.display(), env!("CARGO_PKG_VERSION"), FORMAT_VERSION
    )]
    FormatVersion {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u16,
    },
    /// The header is not what format version 1 describes.
    #[error("{}: the tally header is invalid: {problem}", .path.display())]
    BadHeader {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// Shorter than its header says.
    #[error(
        "{}: truncated: {size} bytes, but its header promises {expected}; copy the file again \
         or re-run its shard",
        .path.display()
    )]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The size the header promises.
        expected: u64,
    },
    /// Longer than its header says.
    #[error(
        "{}: {size} bytes, more than the {expected} its header promises (something was appended)",
        .path.display()
    )]
    TrailingBytes {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The size the header promises.
        expected: u64,
    },
    /// The checksum does not match the bytes.
    #[error(
        "{}: corrupted: its CRC-32 is {stored:08x} but its bytes give {computed:08x}; copy the \
         file again or re-run its shard",
        .path.display()
    )]
    Corrupted {
        /// The file.
        path: PathBuf,
        /// The checksum stored.
        stored: u32,
        /// The checksum of the bytes.
        computed: u32,
    },
    /// The counters do not decode, or do not add up to the trials.
    #[error("{}: corrupted: {problem}", .path.display())]
    BadCounts {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
}

/// Bytes of the LEB128 encoding of `value`.
fn varint_bytes(value: u64) -> u64 {
    u64::from((64 - value.leading_zeros()).max(1).div_ceil(7))
}

/// Counters of a tally of `mode` on `deck` cards, or None when the deck is out of the mode's range.
pub fn expected_cells(mode: TallyMode, deck: usize) -> Option<u64> {
    match mode {
        TallyMode::Full => (2..=MAX_FULL_DECK).contains(&deck).then(|| factorial(deck)),
        TallyMode::Marginal => (2..=MAX_MARGINAL_DECK).contains(&deck).then(|| {
            let histograms: usize = Statistic::ALL.iter().map(|s| s.max_value(deck) + 1).sum();
            (deck * deck + 1 + histograms) as u64
        }),
    }
}

/// A writer that keeps the CRC-32 of what passes through it.
struct Checksummed<'a> {
    out: &'a mut dyn Write,
    hasher: crc32fast::Hasher,
}

impl Checksummed<'_> {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.hasher.update(bytes);
        self.out.write_all(bytes)
    }
}

/// Write `counts` with `header` (its `cells` and `body_bytes` are filled in here) to `out`.
pub fn write_tally(header: &TallyHeader, counts: &Counts, out: &mut dyn Write) -> io::Result<()> {
    let parts = counts.parts();
    let mut header = header.clone();
    header.cells = counts.cells();
    header.body_bytes = parts
        .iter()
        .flat_map(|part| part.iter())
        .map(|&v| varint_bytes(v))
        .sum();
    let json = serde_json::to_vec(&header).map_err(io::Error::other)?;
    let length = u32::try_from(json.len())
        .ok()
        .filter(|&l| l <= MAX_HEADER_BYTES)
        .ok_or_else(|| io::Error::other("the tally header is too long"))?;
    let mut out = Checksummed {
        out,
        hasher: crc32fast::Hasher::new(),
    };
    out.put(MAGIC)?;
    out.put(&FORMAT_VERSION.to_le_bytes())?;
    out.put(&length.to_le_bytes())?;
    out.put(&json)?;
    let mut buffer = Vec::with_capacity(CHUNK_BYTES + MAX_VARINT_BYTES);
    for part in parts {
        // Eight counters below 128 at once (one byte each), then the rest one by one.
        let mut words = part.chunks_exact(8);
        for eight in &mut words {
            if eight.iter().all(|&v| v < 0x80) {
                buffer.extend(eight.iter().map(|&v| v as u8));
            } else {
                for &value in eight {
                    leb128::write::unsigned(&mut buffer, value)?;
                }
            }
            if buffer.len() >= CHUNK_BYTES {
                out.put(&buffer)?;
                buffer.clear();
            }
        }
        for &value in words.remainder() {
            if value < 0x80 {
                buffer.push(value as u8);
            } else {
                leb128::write::unsigned(&mut buffer, value)?;
            }
            if buffer.len() >= CHUNK_BYTES {
                out.put(&buffer)?;
                buffer.clear();
            }
        }
    }
    out.put(&buffer)?;
    let crc = out.hasher.clone().finalize();
    out.out.write_all(&crc.to_le_bytes())
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
    let mut file = File::open(path).map_err(read)?;
    let size = file.metadata().map_err(read)?.len();
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
    if header.body_bytes < cells || header.body_bytes > cells * MAX_VARINT_BYTES as u64 {
        return Err(bad(format!(
            "{} bytes cannot hold {cells} counters",
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
fn read_up_to(file: &mut impl Read, buffer: &mut [u8]) -> io::Result<usize> {
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

/// Add the counts of the tally file `path`, whose header [`read_header`] gave, into `counts`
/// (of the same mode and deck), checking its CRC-32 and that its counters add up to its trials.
/// On an error `counts` holds part of the file's counts and must be dropped.
pub fn read_tally_into(
    path: &Path,
    header: &TallyHeader,
    counts: &mut Counts,
) -> Result<(), TallyFileError> {
    let read = |source| TallyFileError::Read {
        path: path.to_path_buf(),
        source,
    };
    let bad_counts = |problem: String| TallyFileError::BadCounts {
        path: path.to_path_buf(),
        problem,
    };
    let mut file = File::open(path).map_err(read)?;
    let mut hasher = crc32fast::Hasher::new();
    // The prefix and the header again (the file is read twice rather than kept open, so that
    // any number of files can be merged one at a time).
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
        return Err(bad_counts(
            "the file changed while it was merged".to_string(),
        ));
    }

    let mut body_left = header.body_bytes;
    let mut buffer = vec![0u8; CHUNK_BYTES + MAX_VARINT_BYTES];
    let (mut start, mut end) = (0usize, 0usize);
    // The sum of the orderings' counts (full) or of the position matrix (marginal), to compare
    // with the trials.
    let mut first_part_sum: u64 = 0;
    for (index, part) in counts.parts_mut().into_iter().enumerate() {
        let mut at = 0;
        while at < part.len() {
            // Decode every varint that surely lies whole in the buffer: all of them once the
            // body is read, else those starting at least MAX_VARINT_BYTES before its end.
            if end - start <= MAX_VARINT_BYTES && body_left > 0 {
                buffer.copy_within(start..end, 0);
                end -= start;
                start = 0;
                let want = (CHUNK_BYTES as u64).min(body_left) as usize;
                file.read_exact(&mut buffer[end..end + want])
                    .map_err(read)?;
                hasher.update(&buffer[end..end + want]);
                end += want;
                body_left -= want as u64;
            }
            let limit = if body_left == 0 {
                end
            } else {
                end - MAX_VARINT_BYTES
            };
            if start >= limit {
                return Err(bad_counts(
                    "its bytes end before its counters do".to_string(),
                ));
            }
            let mut sum = 0u64;
            while start < limit && at < part.len() {
                // Eight counters below 128 (one byte each, high bits clear) at once: the common
                // case of a large tally.
                if start + 8 <= limit && at + 8 <= part.len() {
                    let word = u64::from_le_bytes(buffer[start..start + 8].try_into().unwrap());
                    if word & 0x8080_8080_8080_8080 == 0 {
                        for (k, cell) in part[at..at + 8].iter_mut().enumerate() {
                            let value = (word >> (8 * k)) & 0x7f;
                            *cell = cell.saturating_add(value);
                            sum = sum.saturating_add(value);
                        }
                        start += 8;
                        at += 8;
                        continue;
                    }
                }
                let first = buffer[start];
                let value = if first < 0x80 {
                    start += 1;
                    u64::from(first)
                } else {
                    let mut slice = &buffer[start..end];
                    let value = leb128::read::unsigned(&mut slice)
                        .map_err(|e| bad_counts(format!("a counter does not decode ({e})")))?;
                    start = end - slice.len();
                    value
                };
                part[at] = part[at].saturating_add(value);
                sum = sum.saturating_add(value);
                at += 1;
            }
            if index == 0 {
                first_part_sum = first_part_sum.saturating_add(sum);
            }
        }
    }
    if start != end || body_left != 0 {
        return Err(bad_counts(
            "its counters end before the bytes its header promises".to_string(),
        ));
    }
    let mut stored = [0u8; 4];
    file.read_exact(&mut stored).map_err(read)?;
    let stored = u32::from_le_bytes(stored);
    let computed = hasher.finalize();
    if stored != computed {
        return Err(TallyFileError::Corrupted {
            path: path.to_path_buf(),
            stored,
            computed,
        });
    }
    let expected_sum = match counts.mode() {
        TallyMode::Full => Some(header.trials),
        TallyMode::Marginal => header.trials.checked_mul(header.deck as u64),
    };
    if Some(first_part_sum) != expected_sum {
        return Err(bad_counts(format!(
            "its counters add up to {first_part_sum}, not to what {} shuffles give",
            header.trials
        )));
    }
    *counts.trials_mut() += header.trials;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_take_one_byte_below_128_and_ten_for_the_largest_u64() {
        for (value, bytes) in [(0u64, 1u64), (127, 1), (128, 2), (16_383, 2), (16_384, 3)] {
            let mut encoded = Vec::new();
            leb128::write::unsigned(&mut encoded, value).unwrap();
            assert_eq!(encoded.len() as u64, bytes, "{value}");
            assert_eq!(varint_bytes(value), bytes, "{value}");
        }
        assert_eq!(varint_bytes(u64::MAX), 10);
    }

    fn header(mode: TallyMode, deck: usize, trials: u64) -> TallyHeader {
        TallyHeader {
            tool: "shuffle-bias".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            command: "check".into(),
            mode: super::super::header::mode_name(mode).into(),
            deck,
            trials,
            interrupted: false,
            elapsed_seconds: 1.5,
            against: "uniform".into(),
            alpha: 0.001,
            max_paths: 1,
            run: None,
            check: Some(super::super::CheckPart {
                sources: vec!["a.txt".into()],
                lines: trials,
                numbering: "zero-based".into(),
                labels: None,
                invalid_lines: 0,
                invalid_examples: Vec::new(),
                state_bits: None,
                model: None,
            }),
            cells: 0,
            body_bytes: 0,
        }
    }

    #[test]
    fn a_tally_written_and_read_back_twice_is_the_tally_doubled() {
        // Counts of many sizes of varint, up to one of nine bytes.
        let mut full = Counts::empty(TallyMode::Full, 4);
        let values = [0u64, 1, 127, 128, 300, 1 << 20, 1 << 40, 1 << 60];
        if let Counts::Full(tally) = &mut full {
            for (i, cell) in tally.counts.iter_mut().enumerate() {
                *cell = values[i % values.len()];
            }
            tally.trials = tally.counts.iter().sum();
        }
        let mut marginal = Counts::empty(TallyMode::Marginal, 6);
        if let Counts::Marginal(tally) = &mut marginal {
            tally.add(&[0, 1, 2, 3, 4, 5]);
            tally.add(&[5, 4, 3, 2, 1, 0]);
            tally.add(&[1, 0, 3, 2, 5, 4]);
        }
        let dir = tempfile::tempdir().unwrap();
        for counts in [full, marginal] {
            let path = dir.path().join("t.tally");
            let written = header(
                counts.mode(),
                match &counts {
                    Counts::Full(t) => t.deck,
                    Counts::Marginal(t) => t.deck,
                },
                counts.trials(),
            );
            let mut bytes = Vec::new();
            write_tally(&written, &counts, &mut bytes).unwrap();
            std::fs::write(&path, &bytes).unwrap();
            let read = read_header(&path).unwrap();
            assert_eq!(read.cells, counts.cells());
            assert_eq!(read.elapsed_seconds, 1.5);
            let mut total = Counts::empty(counts.mode(), read.deck);
            read_tally_into(&path, &read, &mut total).unwrap();
            read_tally_into(&path, &read, &mut total).unwrap();
            let doubled: Vec<u64> = counts.parts().concat().iter().map(|v| v * 2).collect();
            assert_eq!(total.parts().concat(), doubled);
            assert_eq!(total.trials(), 2 * counts.trials());
            assert!(total.adds_up());
        }
    }

    #[test]
    fn the_checksum_is_the_standard_crc_32() {
        // The check value of CRC-32/ISO-HDLC (the CRC of zlib, PNG and Ethernet) is CBF43926
        // for the ASCII string 123456789 (Greg Cook's catalogue of parametrised CRCs).
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(b"123456789");
        assert_eq!(hasher.finalize(), 0xCBF4_3926);
    }
}
