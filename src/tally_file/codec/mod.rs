//! The bytes of a tally file: writing one in a stream, reading its header, and adding its
//! counts into a tally, checking on the way its magic, format version, sizes and CRC-32.
//!
//! Counters are fixed-width little-endian words or unsigned LEB128 varints (the `leb128`
//! crate), whichever is smaller for the file ([`Encoding::choose`]); the checksum is CRC-32
//! (IEEE, the `crc32fast` crate, which folds with carry-less multiplication where the CPU has
//! it) of every byte before it. Both directions work in buffers of [`CHUNK_BYTES`]: words are
//! added into the tally straight from the read buffer, so a file of any size costs a buffer of
//! memory beside the tally.

use std::io;
use std::path::PathBuf;

use super::header::DealStreamPart;
use super::{FORMAT_VERSION, MAGIC};
use crate::engine::deal_stream::{DealStreamTally, MAX_COMPOSITION_DECK};
use crate::engine::marginal::MAX_MARGINAL_DECK;
use crate::engine::permutation::{MAX_FULL_DECK, factorial};
use crate::engine::tally::TallyMode;
use crate::input::source_name::printable_path;
use crate::theory::permutation_statistics::Statistic;

mod read;
mod split;
mod write;

pub use read::{OpenTally, open_tally, read_header, read_tally_into};
pub use split::{SPLIT_MIN_CELLS, add_counts_split, splittable};
pub use write::write_tally;

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

#[cfg(test)]
mod tests;
