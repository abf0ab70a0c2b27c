//! The bytes of a tally file: writing one in a stream, reading its header, and adding its
//! counts into a tally, checking on the way its magic, format version, sizes and CRC-32.
//!
//! Counters are fixed-width little-endian words or unsigned LEB128 varints (the `leb128`
//! crate), whichever is smaller for the file ([`Encoding::choose`]); the checksum is CRC-32
//! (IEEE, the `crc32fast` crate, which folds with carry-less multiplication where the CPU has
//! it) of every byte before it. Both directions work in buffers of [`CHUNK_BYTES`]: words are
//! added into the tally straight from the read buffer, so a file of any size costs a buffer of
//! memory beside the tally.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use super::header::{DealStreamPart, TallyHeader};
use super::{Counts, FORMAT_VERSION, MAGIC};
use crate::engine::deal_stream::{
    DealStreamTally, MAX_COMPOSITION_DECK, MAX_GROUPS, Repeats, RepeatsSkipped,
};
use crate::engine::marginal::MAX_MARGINAL_DECK;
use crate::engine::permutation::{MAX_FULL_DECK, factorial};
use crate::engine::tally::TallyMode;
use crate::input::source_name::printable_path;
use crate::theory::permutation_statistics::Statistic;

/// Bytes encoded or decoded at a time.
pub const CHUNK_BYTES: usize = 4 << 20;

/// The longest header accepted (a header lists the input files of `check`; 64 MiB is
/// hundreds of thousands of names).
const MAX_HEADER_BYTES: u32 = 64 << 20;

/// Bytes before the header: the magic, the format version and the header's length.
const PREFIX_BYTES: u64 = MAGIC.len() as u64 + 2 + 4;

/// The longest LEB128 encoding of a `u64`.
const MAX_VARINT_BYTES: usize = 10;

/// Bytes of a deal's fingerprint in the body (a little-endian `u128`).
const FINGERPRINT_BYTES: u64 = 16;

/// Why a tally file cannot be used. Every message starts with the file's name.
#[derive(Debug, thiserror::Error)]
pub enum TallyFileError {
    /// The file cannot be opened or read.
    #[error("{}: cannot read the tally file: {source}", printable_path(.path))]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Not a regular file (a FIFO, a device, a directory): a tally is read twice and checked
    /// against its size, which only a file on disk has.
    #[error(
        "{}: not a regular file ({kind}); merge reads a tally file twice and checks it against \
         its size, so it needs the file itself: save or copy the tally to a file and merge that",
        printable_path(.path)
    )]
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What it is instead ("a FIFO", "a directory", …).
        kind: &'static str,
    },
    /// It does not start with the magic.
    #[error(
        "{}: not a shuffle-bias tally file (it does not start with the tally magic); give files \
         written by `run --save-tally` or `check --save-tally`",
        printable_path(.path)
    )]
    NotATally {
        /// The file.
        path: PathBuf,
    },
    /// Written in a format version this build does not read.
    #[error(
        "{}: tally format version {found}, but this shuffle-bias ({}) reads version {}; merge \
         it with the shuffle-bias that wrote it, or save the tally again with this one",
        printable_path(.path), env!("CARGO_PKG_VERSION"), FORMAT_VERSION
    )]
    FormatVersion {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u16,
    },
    /// The header is not what the format describes.
    #[error("{}: the tally header is invalid: {problem}", printable_path(.path))]
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
        printable_path(.path)
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
        printable_path(.path)
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
        printable_path(.path)
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
    #[error("{}: corrupted: {problem}", printable_path(.path))]
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
            let histograms: usize = Statistic::ALL.iter().map(|s| s.cells(deck)).sum();
            (deck * deck + 1 + histograms) as u64
        }),
    }
}

/// How a section of counters is written: fixed-width little-endian words of 1, 2, 4 or 8
/// bytes, or unsigned LEB128 varints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Words of this many bytes (1, 2, 4 or 8).
    Fixed(usize),
    /// Unsigned LEB128 varints: 7 bits a byte, low bits first.
    Leb128,
}

impl Encoding {
    /// Its name in a header.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Fixed(1) => "u8",
            Encoding::Fixed(2) => "u16",
            Encoding::Fixed(4) => "u32",
            Encoding::Fixed(_) => "u64",
            Encoding::Leb128 => "leb128",
        }
    }

    /// The encoding of a header's name.
    pub fn parse(name: &str) -> Option<Encoding> {
        Some(match name {
            "u8" => Encoding::Fixed(1),
            "u16" => Encoding::Fixed(2),
            "u32" => Encoding::Fixed(4),
            "u64" => Encoding::Fixed(8),
            "leb128" => Encoding::Leb128,
            _ => return None,
        })
    }

    /// The smallest encoding of the counters `parts`, and its bytes: the narrowest word that
    /// holds the largest counter, unless varints take fewer bytes (they never do when every
    /// counter fits a byte, so the varints are sized only when some counter does not).
    pub fn choose(parts: &[&[u64]]) -> (Encoding, u64) {
        let cells: u64 = parts.iter().map(|p| p.len() as u64).sum();
        // The OR of all counters has the bit length of the largest (and vectorises).
        let all = parts
            .iter()
            .map(|part| part.iter().fold(0u64, |acc, &v| acc | v))
            .fold(0u64, |acc, v| acc | v);
        let width = match all {
            0..=0xff => 1,
            0x100..=0xffff => 2,
            0x1_0000..=0xffff_ffff => 4,
            _ => 8,
        };
        let fixed = Encoding::Fixed(width);
        if width == 1 {
            return (fixed, cells);
        }
        let varints: u64 = parts
            .iter()
            .map(|part| part.iter().map(|&v| varint_bytes(v)).sum::<u64>())
            .sum();
        if varints < cells * width as u64 {
            (Encoding::Leb128, varints)
        } else {
            (fixed, cells * width as u64)
        }
    }

    /// Whether `bytes` can hold `cells` counters in this encoding.
    fn fits(self, cells: u64, bytes: u64) -> bool {
        match self {
            Encoding::Fixed(width) => cells.checked_mul(width as u64) == Some(bytes),
            Encoding::Leb128 => bytes >= cells && bytes <= cells.saturating_mul(10),
        }
    }
}

/// A writer that keeps the CRC-32 of what passes through it, in large buffered writes.
struct BodyWriter<'a> {
    out: &'a mut dyn Write,
    hasher: crc32fast::Hasher,
    buffer: Vec<u8>,
}

impl BodyWriter<'_> {
    /// Hash and write the buffer.
    fn drain(&mut self) -> io::Result<()> {
        self.hasher.update(&self.buffer);
        self.out.write_all(&self.buffer)?;
        self.buffer.clear();
        Ok(())
    }

    /// Append `bytes`.
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.buffer.len() + bytes.len() > CHUNK_BYTES {
            self.drain()?;
        }
        if bytes.len() > CHUNK_BYTES {
            self.hasher.update(bytes);
            return self.out.write_all(bytes);
        }
        self.buffer.extend_from_slice(bytes);
        Ok(())
    }

    /// Append the counters `parts` in `encoding`.
    fn counters(&mut self, parts: &[&[u64]], encoding: Encoding) -> io::Result<()> {
        match encoding {
            Encoding::Fixed(1) => self.fixed::<1>(parts),
            Encoding::Fixed(2) => self.fixed::<2>(parts),
            Encoding::Fixed(4) => self.fixed::<4>(parts),
            Encoding::Fixed(_) => self.fixed::<8>(parts),
            Encoding::Leb128 => {
                for part in parts {
                    for &value in *part {
                        if self.buffer.len() + MAX_VARINT_BYTES > CHUNK_BYTES {
                            self.drain()?;
                        }
                        if value < 0x80 {
                            self.buffer.push(value as u8);
                        } else {
                            leb128::write::unsigned(&mut self.buffer, value)?;
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// Counters as words of W bytes, a buffer at a time.
    fn fixed<const W: usize>(&mut self, parts: &[&[u64]]) -> io::Result<()> {
        for part in parts {
            for piece in part.chunks(CHUNK_BYTES / W) {
                if self.buffer.len() + piece.len() * W > CHUNK_BYTES {
                    self.drain()?;
                }
                let at = self.buffer.len();
                self.buffer.resize(at + piece.len() * W, 0);
                encode_fixed::<W>(piece, &mut self.buffer[at..]);
            }
        }
        Ok(())
    }
}

/// Write `values` as little-endian words of W bytes into `out` (W bytes each).
#[inline]
fn encode_fixed<const W: usize>(values: &[u64], out: &mut [u8]) {
    if W == 1 {
        for (byte, &value) in out.iter_mut().zip(values) {
            *byte = value as u8;
        }
        return;
    }
    for (word, &value) in out.chunks_exact_mut(W).zip(values) {
        word.copy_from_slice(&value.to_le_bytes()[..W]);
    }
}

/// Add the little-endian words of W bytes of `bytes` into `cells`; their sum.
#[inline]
fn add_fixed<const W: usize>(bytes: &[u8], cells: &mut [u64]) -> u128 {
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
fn decode_word<const W: usize>(word: &[u8]) -> u64 {
    let mut wide = [0u8; 8];
    wide[..W].copy_from_slice(word);
    u64::from_le_bytes(wide)
}

/// The deal stream's counters in file order: matches, slot tables, compositions.
fn stream_parts(tally: &DealStreamTally) -> Vec<&[u64]> {
    let mut parts: Vec<&[u64]> = vec![&tally.matches, &tally.slots];
    if let Some(compositions) = &tally.compositions {
        parts.push(compositions);
    }
    parts
}

/// Counters of the deal stream a header describes.
fn stream_cells(deck: usize, part: &DealStreamPart) -> Option<u64> {
    let slots = (part.dealt as u64).checked_mul((part.groups as u64).checked_pow(2)?)?;
    let compositions = if part.compositions {
        (deck <= MAX_COMPOSITION_DECK).then(|| factorial(deck))?
    } else {
        0
    };
    Some(part.dealt as u64 + 1 + slots + compositions)
}

/// Write `counts` (and the deal stream `deals`, if kept) with `header` (its sizes and
/// encodings are filled in here) to `out`.
pub fn write_tally(
    header: &TallyHeader,
    counts: &Counts,
    deals: Option<&DealStreamTally>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let parts = counts.parts();
    let mut header = header.clone();
    header.cells = counts.cells();
    let (encoding, counts_bytes) = Encoding::choose(&parts);
    header.encoding = encoding.name().to_string();
    header.counts_bytes = counts_bytes;
    let stream = deals.map(|tally| {
        let stream_parts = stream_parts(tally);
        let (encoding, bytes) = Encoding::choose(&stream_parts);
        (
            stream_parts,
            encoding,
            DealStreamPart::of(tally, encoding.name(), bytes),
        )
    });
    header.deal_stream = stream.as_ref().map(|(_, _, part)| part.clone());
    header.body_bytes = counts_bytes
        + header.deal_stream.as_ref().map_or(0, |part| {
            part.counts_bytes + FINGERPRINT_BYTES * part.fingerprints
        });
    let json = serde_json::to_vec(&header).map_err(io::Error::other)?;
    let length = u32::try_from(json.len())
        .ok()
        .filter(|&l| l <= MAX_HEADER_BYTES)
        .ok_or_else(|| io::Error::other("the tally header is too long"))?;
    let mut out = BodyWriter {
        out,
        hasher: crc32fast::Hasher::new(),
        buffer: Vec::with_capacity(CHUNK_BYTES),
    };
    out.put(MAGIC)?;
    out.put(&FORMAT_VERSION.to_le_bytes())?;
    out.put(&length.to_le_bytes())?;
    out.put(&json)?;
    out.counters(&parts, encoding)?;
    if let (Some((stream_parts, encoding, _)), Some(tally)) = (&stream, deals) {
        out.counters(stream_parts, *encoding)?;
        for list in &tally.fingerprints {
            for piece in list.chunks(CHUNK_BYTES / FINGERPRINT_BYTES as usize) {
                let bytes: Vec<u8> = piece.iter().flat_map(|f| f.to_le_bytes()).collect();
                out.put(&bytes)?;
            }
        }
    }
    out.drain()?;
    let crc = out.hasher.clone().finalize();
    out.out.write_all(&crc.to_le_bytes())
}

/// Open the tally file `path` for reading, refusing anything but a regular file. It is
/// opened without waiting (`O_NONBLOCK`), so that a FIFO nobody writes to is refused at once
/// rather than blocking the open (where Ctrl-C was not heard); the flag changes nothing for
/// the reads of a regular file. Returns the file and its size.
fn open_regular(path: &Path) -> Result<(File, u64), TallyFileError> {
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

/// Reads a body section by section, exactly the bytes asked for, hashing them on the way.
struct BodyReader {
    file: File,
    hasher: crc32fast::Hasher,
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

/// Why a section of counters does not decode (its file is named by the caller).
type Problem = String;

/// Add the `bytes` bytes of counters in `encoding` into `parts`; the sum of what was added
/// to the first part.
fn add_counters(
    reader: &mut BodyReader,
    encoding: Encoding,
    bytes: u64,
    parts: Vec<&mut [u64]>,
) -> Result<Result<u128, Problem>, io::Error> {
    match encoding {
        Encoding::Fixed(1) => add_fixed_parts::<1>(reader, parts),
        Encoding::Fixed(2) => add_fixed_parts::<2>(reader, parts),
        Encoding::Fixed(4) => add_fixed_parts::<4>(reader, parts),
        Encoding::Fixed(_) => add_fixed_parts::<8>(reader, parts),
        Encoding::Leb128 => add_varints(reader, bytes, parts),
    }
}

/// [`add_counters`] of words of W bytes: each read straight into the buffer and added from it.
fn add_fixed_parts<const W: usize>(
    reader: &mut BodyReader,
    parts: Vec<&mut [u64]>,
) -> Result<Result<u128, Problem>, io::Error> {
    let mut first_sum = 0u128;
    for (index, part) in parts.into_iter().enumerate() {
        for cells in part.chunks_mut(CHUNK_BYTES / W) {
            let bytes = reader.next(cells.len() * W)?;
            let sum = add_fixed::<W>(bytes, cells);
            if index == 0 {
                first_sum += sum;
            }
        }
    }
    Ok(Ok(first_sum))
}

/// [`add_counters`] of LEB128 varints, decoded from a buffer refilled as it empties.
fn add_varints(
    reader: &mut BodyReader,
    bytes: u64,
    parts: Vec<&mut [u64]>,
) -> Result<Result<u128, Problem>, io::Error> {
    let mut left = bytes;
    let mut buffer = vec![0u8; CHUNK_BYTES + MAX_VARINT_BYTES];
    let (mut start, mut end) = (0usize, 0usize);
    let mut first_sum = 0u128;
    for (index, part) in parts.into_iter().enumerate() {
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
                if index == 0 {
                    first_sum += u128::from(value);
                }
                at += 1;
            }
        }
    }
    if start != end || left != 0 {
        return Ok(Err(
            "its counters end before the bytes its header promises".to_string()
        ));
    }
    Ok(Ok(first_sum))
}

/// Add the counts of the tally file `path`, whose header [`read_header`] gave, into `counts`
/// (of the same mode and deck), checking its CRC-32 and that its counters add up to its
/// trials; and hand over its deal stream, if it kept one. Fingerprints beyond
/// `fingerprint_room` are not kept in memory (the stream then says the repeats were skipped
/// for memory). On an error `counts` holds part of the file's counts and must be dropped.
pub fn read_tally_into(
    path: &Path,
    header: &TallyHeader,
    counts: &mut Counts,
    fingerprint_room: u64,
) -> Result<Option<DealStreamTally>, TallyFileError> {
    let mut open = open_tally(path, header)?;
    let first_sum = open.add_counts(counts)?;
    open.finish(first_sum, counts, fingerprint_room)
}

/// A tally file opened to be added: its prefix and header read again (and hashed), the file
/// positioned at its first counter. [`read_tally_into`] is [`open_tally`], then
/// [`OpenTally::add_counts`] (or [`add_counts_split`] for several files at once), then
/// [`OpenTally::finish`].
pub struct OpenTally<'a> {
    path: &'a Path,
    header: &'a TallyHeader,
    reader: BodyReader,
    /// Offset of the first counter in the file.
    counts_at: u64,
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

impl OpenTally<'_> {
    fn read_error(&self, source: io::Error) -> TallyFileError {
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

    /// Add the file's counters into `counts`, reading them in order; their sum (of the
    /// orderings' counts, or of the position matrix in marginal mode), for [`Self::finish`].
    pub fn add_counts(&mut self, counts: &mut Counts) -> Result<u128, TallyFileError> {
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

    /// Read the rest of the file once its counters were added (`first_sum` is what
    /// [`Self::add_counts`] or [`add_counts_split`] gave): the deal stream (fingerprints
    /// beyond `fingerprint_room` not kept), the CRC-32, and that the counters add up to the
    /// file's trials, which are then added to `counts`.
    pub fn finish(
        mut self,
        first_sum: u128,
        counts: &mut Counts,
        fingerprint_room: u64,
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
        let expected_sum = match counts.mode() {
            TallyMode::Full => u128::from(header.trials),
            TallyMode::Marginal => u128::from(header.trials) * header.deck as u128,
        };
        let counts_add_up = first_sum == expected_sum;
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
                let keep = counts_add_up && part.fingerprints <= fingerprint_room;
                let mut prints =
                    Vec::with_capacity(if keep { part.fingerprints as usize } else { 0 });
                let mut left = part.fingerprints;
                let per_chunk = CHUNK_BYTES as u64 / FINGERPRINT_BYTES;
                while left > 0 {
                    let take = left.min(per_chunk);
                    let bytes = reader
                        .next((take * FINGERPRINT_BYTES) as usize)
                        .map_err(read)?;
                    if keep {
                        prints.extend(
                            bytes
                                .chunks_exact(FINGERPRINT_BYTES as usize)
                                .map(|b| u128::from_le_bytes(b.try_into().unwrap())),
                        );
                    }
                    left -= take;
                }
                if keep {
                    tally.fingerprints = vec![prints];
                } else {
                    tally.repeats = Repeats::Skipped(RepeatsSkipped::Memory {
                        limit: fingerprint_room,
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
        if !counts_add_up {
            return Err(bad_counts(format!(
                "its counters add up to {first_sum}, not to what {} shuffles give",
                header.trials
            )));
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

/// Counters of a full tally from which [`add_counts_split`] reads a file (below, one read of
/// the whole file is quicker than starting threads).
pub const SPLIT_MIN_CELLS: u64 = 1 << 16;

/// Cells a thread of [`add_counts_split`] takes from every file in turn: 256 KiB of the total,
/// which stays in the cache while each file's slice is added into it, so that the total is
/// written to memory once whatever the number of files.
const SPLIT_CHUNK_CELLS: usize = 1 << 15;

/// Whether [`add_counts_split`] reads the file of `header`: a full tally of at least
/// [`SPLIT_MIN_CELLS`] counters written as fixed-width words, so that the counters of cells
/// [a, b) sit at a known offset. (Varints must be decoded in order; marginal tallies are small.)
pub fn splittable(header: &TallyHeader) -> bool {
    header.tally_mode() == Some(TallyMode::Full)
        && header.cells >= SPLIT_MIN_CELLS
        && matches!(Encoding::parse(&header.encoding), Some(Encoding::Fixed(_)))
}

/// One file as a thread of [`add_counts_split`] sees it.
struct SplitFile<'a> {
    file: &'a File,
    counts_at: u64,
    width: usize,
}

/// What one thread of [`add_counts_split`] computed for each file: the CRC-32 of its slice of
/// the counters, and their sum; None when stopped; the file's index with a read error.
type SplitPart = Result<Option<Vec<(crc32fast::Hasher, u128)>>, (usize, io::Error)>;

/// Add the counters of `files` (each [`splittable`], opened by [`open_tally`] on the total's
/// deck) into `total`, the range of cells split into `threads` parts, one per thread: each
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
fn add_part(
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
            super::populate_pages(cells);
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
fn read_exact_at(file: &File, buffer: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buffer, offset)
}

/// Fill `buffer` from `file` at `offset` (the file's position moves; [`add_counts_split`]
/// seeks afterwards).
#[cfg(windows)]
fn read_exact_at(file: &File, mut buffer: &mut [u8], mut offset: u64) -> io::Result<()> {
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
fn store_fixed<const W: usize>(bytes: &[u8], cells: &mut [u64]) -> u128 {
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
                contents: Vec::new(),
            }),
            cells: 0,
            encoding: String::new(),
            counts_bytes: 0,
            deal_stream: None,
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
            write_tally(&written, &counts, None, &mut bytes).unwrap();
            std::fs::write(&path, &bytes).unwrap();
            let read = read_header(&path).unwrap();
            assert_eq!(read.cells, counts.cells());
            assert_eq!(read.elapsed_seconds, 1.5);
            let mut total = Counts::empty(counts.mode(), read.deck);
            read_tally_into(&path, &read, &mut total, 0).unwrap();
            read_tally_into(&path, &read, &mut total, 0).unwrap();
            let doubled: Vec<u64> = counts.parts().concat().iter().map(|v| v * 2).collect();
            assert_eq!(total.parts().concat(), doubled);
            assert_eq!(total.trials(), 2 * counts.trials());
            assert!(total.adds_up());
        }
    }

    #[test]
    fn each_file_takes_the_narrowest_word_unless_varints_are_smaller() {
        // 120 counters of 5 cards, all equal to v: the narrowest word that holds v, unless v's
        // varint is shorter (70,000 takes 3 bytes as a varint, 4 as a u32); a tie keeps the
        // word (300: 2 bytes either way).
        for (value, name, bytes) in [
            (5u64, "u8", 120u64),
            (300, "u16", 240),
            (70_000, "leb128", 360),
            (1 << 31, "u32", 480),
            (1 << 62, "u64", 960),
        ] {
            let (encoding, size) = Encoding::choose(&[&vec![value; 120]]);
            assert_eq!((encoding.name(), size), (name, bytes), "{value}");
        }
        let mut skewed = vec![3u64; 120];
        skewed[7] = 1 << 40;
        // 119 + 6 bytes (41 bits in 7-bit groups) against 120 u64 words.
        assert_eq!(Encoding::choose(&[&skewed]), (Encoding::Leb128, 119 + 6));
        for name in ["u8", "u16", "u32", "u64", "leb128"] {
            assert_eq!(Encoding::parse(name).unwrap().name(), name);
        }
    }

    #[test]
    fn tallies_of_every_encoding_and_their_deal_stream_read_back_exactly() {
        use crate::engine::deal_stream::{DealStream, DealStreamOptions, RepeatSource};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tally");
        let mut stream = DealStream::new(DealStreamOptions {
            deck: 4,
            dealt: 4,
            repeats: RepeatSource::Fingerprints { limit: 100 },
            compositions: true,
        });
        stream.start_block(3);
        for deal in [[0, 1, 2, 3], [1, 0, 2, 3], [0, 1, 2, 3]] {
            stream.add(&deal);
        }
        stream.end_block(true);
        let deals = stream.finish();
        // u8, u16, leb128, u32 and u64 in turn (as the test above), the sums within a u64.
        let mut seen = Vec::new();
        for value in [1u64, 300, 70_000, 1 << 31, 1 << 58] {
            let mut counts = Counts::empty(TallyMode::Full, 4);
            if let Counts::Full(tally) = &mut counts {
                for (i, cell) in tally.counts.iter_mut().enumerate() {
                    *cell = value + i as u64 % 2;
                }
                tally.trials = tally.counts.iter().sum();
            }
            let mut bytes = Vec::new();
            write_tally(
                &header(TallyMode::Full, 4, counts.trials()),
                &counts,
                Some(&deals),
                &mut bytes,
            )
            .unwrap();
            std::fs::write(&path, &bytes).unwrap();
            // The stream (3 deals) is not that of these counts, which read_header refuses: the
            // header is taken as written, to test the encodings alone.
            let length = u32::from_le_bytes(bytes[21..25].try_into().unwrap()) as usize;
            let read: TallyHeader = serde_json::from_slice(&bytes[25..25 + length]).unwrap();
            let mut total = Counts::empty(TallyMode::Full, 4);
            let back = read_tally_into(&path, &read, &mut total, 100)
                .unwrap()
                .unwrap();
            assert_eq!(total, counts, "{}", read.encoding);
            seen.push(read.encoding.clone());
            assert_eq!(back.matches, deals.matches);
            assert_eq!(back.slots, deals.slots);
            assert_eq!(back.compositions, deals.compositions);
            assert_eq!(back.ends, deals.ends);
            assert_eq!(back.fingerprints.concat(), deals.fingerprints.concat());
            assert_eq!((back.deals, back.pairs), (3, 2));
            // No room for the fingerprints: the repeats are skipped for memory, not kept.
            let mut total = Counts::empty(TallyMode::Full, 4);
            let tight = read_tally_into(&path, &read, &mut total, 2)
                .unwrap()
                .unwrap();
            assert!(tight.fingerprints.is_empty());
            assert!(matches!(
                tight.repeats,
                Repeats::Skipped(RepeatsSkipped::Memory { .. })
            ));
        }
        assert_eq!(seen, ["u8", "u16", "leb128", "u32", "u64"]);
    }

    /// A full tally of 9 cards (above [`SPLIT_MIN_CELLS`]) whose counts are `base` plus a
    /// pattern of 0..=36, written to `dir/name`; its path and header.
    fn nine_card_file(dir: &Path, name: &str, base: u64) -> (PathBuf, TallyHeader, Counts) {
        let mut counts = Counts::empty(TallyMode::Full, 9);
        if let Counts::Full(tally) = &mut counts {
            for (i, cell) in tally.counts.iter_mut().enumerate() {
                *cell = base + (i as u64 * 7919) % 37;
            }
            tally.trials = tally.counts.iter().sum();
        }
        let path = dir.join(name);
        let mut bytes = Vec::new();
        write_tally(
            &header(TallyMode::Full, 9, counts.trials()),
            &counts,
            None,
            &mut bytes,
        )
        .unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let read = read_header(&path).unwrap();
        (path, read, counts)
    }

    /// Merge `files` as `merge` does: the splittable ones by [`add_counts_split`] on
    /// `threads`, the others one at a time, then each finished in order.
    fn merge_split(
        files: &[(PathBuf, TallyHeader)],
        threads: usize,
    ) -> Result<Counts, TallyFileError> {
        let mut total = Counts::empty_unpopulated(TallyMode::Full, 9);
        let mut opened = files
            .iter()
            .filter(|(_, h)| splittable(h))
            .map(|(p, h)| open_tally(p, h))
            .collect::<Result<Vec<_>, _>>()?;
        let sums = add_counts_split(
            &mut opened,
            total.full_counters_mut().unwrap(),
            true,
            threads,
            &AtomicBool::new(false),
        )?
        .expect("not stopped");
        let mut split = opened.into_iter().zip(sums);
        for (path, header) in files {
            if splittable(header) {
                let (open, sum) = split.next().unwrap();
                open.finish(sum, &mut total, 0)?;
            } else {
                read_tally_into(path, header, &mut total, 0)?;
            }
        }
        Ok(total)
    }

    #[test]
    fn tallies_read_by_several_threads_add_up_to_the_same_total_as_read_in_turn() {
        let dir = tempfile::tempdir().unwrap();
        // u8, u16 and u32 words (2^24 takes 4 bytes as a varint too: the word wins the tie),
        // and varints (70,000 + 36 < 2^21: three bytes against a u32's four), which are read in
        // turn.
        let made: Vec<_> = [
            (1u64, "u8"),
            (300, "u16"),
            (1 << 24, "u32"),
            (70_000, "leb128"),
        ]
        .iter()
        .map(|&(base, encoding)| {
            let (path, header, counts) = nine_card_file(dir.path(), encoding, base);
            assert_eq!(header.encoding, encoding);
            assert_eq!(splittable(&header), encoding != "leb128");
            (path, header, counts)
        })
        .collect();
        let files: Vec<_> = made
            .iter()
            .map(|(p, h, _)| (p.clone(), h.clone()))
            .collect();
        let mut sequential = Counts::empty(TallyMode::Full, 9);
        for (path, header) in &files {
            read_tally_into(path, header, &mut sequential, 0).unwrap();
        }
        let mut expected = vec![0u64; 362_880];
        for (_, _, counts) in &made {
            for (e, c) in expected.iter_mut().zip(counts.parts()[0]) {
                *e += c;
            }
        }
        assert_eq!(sequential.parts()[0], &expected[..]);
        // One thread, two, a number that does not divide the cells, more threads than pages.
        for threads in [1, 2, 3, 7, 200] {
            assert_eq!(
                merge_split(&files, threads).unwrap(),
                sequential,
                "{threads}"
            );
        }
        // In another order (the varints first, so the total is no longer fresh for them).
        let reversed: Vec<_> = files.iter().rev().cloned().collect();
        assert_eq!(merge_split(&reversed, 2).unwrap(), sequential);
    }

    #[test]
    fn the_crc_of_the_threads_parts_combined_is_the_crc_of_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let (path, header, _) = nine_card_file(dir.path(), "t.tally", 1);
        let bytes = std::fs::read(&path).unwrap();
        let whole = crc32fast::hash(&bytes[..header_end(&bytes) + header.counts_bytes as usize]);
        for threads in [1, 2, 5] {
            let mut opened = vec![open_tally(&path, &header).unwrap()];
            let mut total = vec![0u64; 362_880];
            add_counts_split(
                &mut opened,
                &mut total,
                true,
                threads,
                &AtomicBool::new(false),
            )
            .unwrap()
            .unwrap();
            assert_eq!(
                opened[0].reader.hasher.clone().finalize(),
                whole,
                "{threads}"
            );
        }
    }

    /// Bytes before the counters of a tally file's `bytes`.
    fn header_end(bytes: &[u8]) -> usize {
        let at = PREFIX_BYTES as usize;
        at + u32::from_le_bytes(bytes[at - 4..at].try_into().unwrap()) as usize
    }

    #[test]
    fn a_corrupted_counter_read_by_threads_is_refused_as_the_sequential_reading_refuses_it() {
        let dir = tempfile::tempdir().unwrap();
        let (good, good_header, _) = nine_card_file(dir.path(), "good.tally", 1);
        let (path, header, _) = nine_card_file(dir.path(), "bad.tally", 3);
        let mut bytes = std::fs::read(&path).unwrap();
        // A counter in the second thread's half, one more.
        let at = header_end(&bytes) + 300_000;
        bytes[at] = bytes[at].wrapping_add(1);
        std::fs::write(&path, &bytes).unwrap();
        let sequential =
            read_tally_into(&path, &header, &mut Counts::empty(TallyMode::Full, 9), 0).unwrap_err();
        let files = vec![(good, good_header), (path.clone(), header)];
        let split = merge_split(&files, 2).unwrap_err();
        assert_eq!(split.to_string(), sequential.to_string());
        assert!(
            matches!(split, TallyFileError::Corrupted { path: ref p, .. } if *p == path),
            "{split}"
        );
    }

    #[test]
    fn a_file_cut_short_after_its_header_was_checked_is_a_read_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let (path, header, _) = nine_card_file(dir.path(), "t.tally", 1);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let error = merge_split(&[(path.clone(), header)], 2).unwrap_err();
        assert!(matches!(error, TallyFileError::Read { path: ref p, .. } if *p == path));
    }

    #[test]
    fn a_stop_request_ends_the_threads_without_a_total() {
        let dir = tempfile::tempdir().unwrap();
        let (path, header, _) = nine_card_file(dir.path(), "t.tally", 1);
        let mut opened = vec![open_tally(&path, &header).unwrap()];
        let mut total = vec![0u64; 362_880];
        let stopped =
            add_counts_split(&mut opened, &mut total, true, 2, &AtomicBool::new(true)).unwrap();
        assert!(stopped.is_none());
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
