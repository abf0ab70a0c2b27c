//! Writing a tally file in a stream: the header, then each section of counters in its encoding
//! through a writer that keeps the CRC-32.

use super::{
    CHUNK_BYTES, Encoding, FINGERPRINT_BYTES, MAX_HEADER_BYTES, MAX_VARINT_BYTES, stream_parts,
};
use crate::engine::deal_stream::DealStreamTally;
use crate::tally_file::header::{DealStreamPart, TallyHeader};
use crate::tally_file::{Counts, FORMAT_VERSION, MAGIC};
use std::io::{self, Write};

/// A writer that keeps the CRC-32 of what passes through it, in large buffered writes.
pub(super) struct BodyWriter<'a> {
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
pub(super) fn encode_fixed<const W: usize>(values: &[u64], out: &mut [u8]) {
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
