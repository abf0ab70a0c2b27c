//! What an input is, whatever it is called: the size of its bytes and a 128-bit digest of them.
//!
//! `check --save-tally` records it for every input read to its end, so that `merge` can refuse
//! the same data tallied twice however it was named (`fair.txt`, `./fair.txt`, a symlink, a
//! copy, a pipe) and accept two different files that share a name. The digest is SipHash-1-3
//! with 128-bit output (Aumasson and Bernstein 2012) under fixed keys: stable across machines
//! and versions, and fast enough to run beside the reading thread's I/O. It is not a defence
//! against someone forging a collision on purpose; it tells accidents apart, which is its job.
//!
//! A source read only in part (`check --trials`, Ctrl-C, `--until-decided`) has no whole
//! digest, and a source that grew between two reads (a log) has two. What still identifies it
//! is how it begins: [`PrefixHasher`] records the digests of its first 4, 8, 16, 32 and 64 KiB
//! ([`PREFIX_LENGTHS`]), as far as it was read. Two reads of one source agree on every prefix
//! both reached, and two reads that agree on one have at least that much data in common.

use std::hash::Hasher;

use siphasher::sip128::{Hasher128, SipHasher13};

/// Fixed keys of the digest ("shuffle-bias inp" in ASCII): every build digests alike.
const KEYS: (u64, u64) = (0x7368_7566_666c_652d, 0x6269_6173_2069_6e70);

/// The lengths of the prefixes digested by [`PrefixHasher`]: 4 KiB doubling to 64 KiB. The
/// first is above the header lines that any deck the tool reads could have (a 500-card CSV
/// header is about 4 KB), so two inputs that agree on a prefix agree on data, not on a header;
/// the last is less than the first chunk a file is read in, so any read of a file of at least
/// 64 KiB reaches it.
pub const PREFIX_LENGTHS: [u64; 5] = [4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10];

/// The size and digest of an input's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContentDigest {
    /// Bytes read.
    pub bytes: u64,
    /// SipHash-1-3 (128-bit output) of those bytes.
    pub digest: u128,
}

impl ContentDigest {
    /// The digest as 32 lowercase hexadecimal digits.
    pub fn hex(&self) -> String {
        format!("{:032x}", self.digest)
    }

    /// The digest written by [`ContentDigest::hex`], with its size.
    pub fn parse(bytes: u64, hex: &str) -> Option<ContentDigest> {
        if hex.len() != 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u128::from_str_radix(hex, 16)
            .ok()
            .map(|digest| ContentDigest { bytes, digest })
    }
}

/// The digest of bytes given a piece at a time.
#[derive(Debug, Clone)]
pub struct ContentHasher {
    hasher: SipHasher13,
    bytes: u64,
}

impl Default for ContentHasher {
    fn default() -> Self {
        ContentHasher::new()
    }
}

impl ContentHasher {
    /// Nothing digested yet.
    pub fn new() -> Self {
        ContentHasher {
            hasher: SipHasher13::new_with_keys(KEYS.0, KEYS.1),
            bytes: 0,
        }
    }

    /// Digest the next bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.hasher.write(bytes);
        self.bytes += bytes.len() as u64;
    }

    /// The size and digest of everything given.
    pub fn finish(&self) -> ContentDigest {
        ContentDigest {
            bytes: self.bytes,
            digest: self.hasher.finish128().as_u128(),
        }
    }
}

/// The digests of the first [`PREFIX_LENGTHS`] bytes of a source, given a piece at a time.
#[derive(Debug, Clone, Default)]
pub struct PrefixHasher {
    hasher: ContentHasher,
    digests: Vec<u128>,
}

impl PrefixHasher {
    /// Nothing digested yet.
    pub fn new() -> Self {
        PrefixHasher::default()
    }

    /// Digest the next bytes of the source (those past the last prefix are ignored).
    pub fn update(&mut self, mut bytes: &[u8]) {
        while let Some(&length) = PREFIX_LENGTHS.get(self.digests.len()) {
            let room = (length - self.hasher.bytes) as usize;
            if bytes.len() < room {
                self.hasher.update(bytes);
                return;
            }
            self.hasher.update(&bytes[..room]);
            self.digests.push(self.hasher.finish().digest);
            bytes = &bytes[room..];
        }
    }

    /// The digests of the prefixes reached: `digests[k]` is of the first `PREFIX_LENGTHS[k]`
    /// bytes.
    pub fn finish(self) -> Vec<u128> {
        self.digests
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest_of(pieces: &[&[u8]]) -> ContentDigest {
        let mut hasher = ContentHasher::new();
        for piece in pieces {
            hasher.update(piece);
        }
        hasher.finish()
    }

    #[test]
    fn the_digest_of_bytes_does_not_depend_on_how_they_were_cut_into_chunks() {
        let whole = digest_of(&[b"0 1 2\n2 1 0\n"]);
        assert_eq!(whole, digest_of(&[b"0 1", b" 2\n2 1 ", b"0\n"]));
        assert_eq!(whole.bytes, 12);
    }

    #[test]
    fn different_bytes_of_one_size_have_different_digests() {
        assert_ne!(
            digest_of(&[b"0 1 2\n"]).digest,
            digest_of(&[b"0 2 1\n"]).digest
        );
    }

    #[test]
    fn prefix_digests_are_the_digests_of_the_first_bytes_however_the_bytes_came() {
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        // Independent: each prefix digested whole.
        let expected: Vec<u128> = PREFIX_LENGTHS
            .iter()
            .map(|&length| digest_of(&[&bytes[..length as usize]]).digest)
            .collect();
        for piece in [1, 1000, 4096, 5000, 100_000] {
            let mut prefixes = PrefixHasher::new();
            for chunk in bytes.chunks(piece) {
                prefixes.update(chunk);
            }
            assert_eq!(prefixes.finish(), expected, "pieces of {piece} bytes");
        }
        // A read that stopped between two prefixes has the ones before.
        let mut short = PrefixHasher::new();
        short.update(&bytes[..20_000]);
        assert_eq!(short.finish(), expected[..3]);
        let mut tiny = PrefixHasher::new();
        tiny.update(&bytes[..4095]);
        assert!(tiny.finish().is_empty());
    }

    #[test]
    fn a_digest_reads_back_from_its_hex() {
        let digest = digest_of(&[b"2 0 1\n"]);
        assert_eq!(ContentDigest::parse(6, &digest.hex()), Some(digest));
        assert_eq!(ContentDigest::parse(6, "xyz"), None);
    }
}
