//! The AVX2 reading of a line of one- or two-digit card numbers, for CPUs without the AVX-512
//! one ([`crate::input::wide_line_parser`]): the same lines accepted, with the same cards.
//!
//! The line is read where it lies, 32 bytes at a time: each block with the 32 bytes one earlier
//! (the first block with a zero shifted in, no digit before the line), and the bytes past the
//! whole blocks from the line's last 32 bytes, their masks shifted down; a line shorter than 32
//! bytes is copied into 32 zeroed bytes. Per block, comparisons find the digits and the
//! separators as bit masks, and the value of every byte read as the end of a token,
//! 10·(digit before) + digit, is computed for the whole block and kept. The masks, joined into
//! 64-bit words, check the shape of the line exactly as the AVX-512 reading does (every byte a
//! digit or a separator, no two separators in a row, no run of three digits, a digit first and
//! last) and give the token ends. AVX2 has no instruction that packs the values at the ends
//! together, so they are packed 8 bytes at a time by a byte shuffle looked up by those 8 bytes'
//! bits of ends. The cards are checked all at once: 1 << card for every card, OR-ed, must have
//! exactly `count` bits, all below n.
//!
//! The lines it refuses go to the careful parser, which gives the exact message: so it only
//! decides speed (tested against the scalar fast path on mutated lines).

use crate::engine::algorithms::Card;
pub use crate::input::wide_line_parser::WIDE_MAX_DECK as AVX2_MAX_DECK;
use crate::input::wide_line_parser::{MAX_LINE, token_ends};

/// Whether this CPU runs [`parse`] (AVX2, BMI1 and POPCNT).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// [`crate::input::wide_line_parser::parse`]'s reading of `line` (the same contract: `count`
/// cards of `offset..n + offset`, n ≤ [`AVX2_MAX_DECK`], into `deck`; false for any other line).
/// Only after [`available`] (checked in debug builds).
#[inline]
pub fn parse(line: &[u8], count: usize, n: usize, offset: usize, deck: &mut [Card]) -> bool {
    debug_assert!(available());
    debug_assert!(n <= AVX2_MAX_DECK && n + offset <= 100 && offset <= 1);
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the caller asked `available()`, which checks every feature enabled on `parse`.
        unsafe { x86::parse(line, count, n, offset, deck) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (line, count, n, offset, deck);
        unreachable!("available() is false off x86-64")
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{AVX2_MAX_DECK, Card, MAX_LINE, token_ends};
    use std::arch::x86_64::*;

    /// 64-bit words of the line's masks.
    const WORDS: usize = MAX_LINE / 64;

    /// Value vectors a line may need: its whole blocks of 32 bytes and its last 32 bytes.
    const VECTORS: usize = MAX_LINE / 32 + 1;

    /// Bits `at..at + 32` of `bits` (bit i of word w: byte 64w + i; zeros past the words).
    #[inline(always)]
    fn bits_at(bits: &[u64; WORDS], at: usize) -> u32 {
        let (word, shift) = (at / 64, at % 64);
        let low = bits.get(word).map_or(0, |&w| w >> shift);
        let high = match bits.get(word + 1) {
            Some(&w) if shift > 0 => w << (64 - shift),
            _ => 0,
        };
        (low | high) as u32
    }

    /// `PACK[m]`: the byte shuffle that moves the bytes of an 8-byte group whose bits are set in
    /// `m` to the front, in order (the rest of the shuffle zeroes its byte).
    static PACK: [[u8; 8]; 256] = {
        let mut table = [[0x80u8; 8]; 256];
        let mut mask = 0;
        while mask < 256 {
            let (mut bit, mut out) = (0, 0);
            while bit < 8 {
                if mask >> bit & 1 == 1 {
                    table[mask][out] = bit as u8;
                    out += 1;
                }
                bit += 1;
            }
            mask += 1;
        }
        table
    };

    /// The masks and values of 32 bytes of a line (`bytes`), `before` the 32 bytes one earlier:
    /// which bytes are digits, which are separators (bit i: byte i), and every byte read as the
    /// end of a token, 10·(digit before) + digit (0 before a non-digit: bytes of at most 99).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn block(bytes: __m256i, before: __m256i) -> (u32, u32, __m256i) {
        let zero_digit = _mm256_set1_epi8(b'0' as i8);
        let nine = _mm256_set1_epi8(9);
        let digit = _mm256_sub_epi8(bytes, zero_digit);
        let is_digit = _mm256_cmpeq_epi8(_mm256_min_epu8(digit, nine), digit);
        let digit_before = _mm256_sub_epi8(before, zero_digit);
        let was_digit = _mm256_cmpeq_epi8(_mm256_min_epu8(digit_before, nine), digit_before);
        let separators = _mm256_or_si256(
            _mm256_or_si256(
                _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b' ' as i8)),
                _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b'\t' as i8)),
            ),
            _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b',' as i8)),
        );
        let tens = _mm256_and_si256(digit_before, was_digit);
        let twice = _mm256_add_epi8(tens, tens);
        // Bytes of at most 9·8 = 72: the 16-bit shift moves no bit into the next byte.
        let eight_times = _mm256_slli_epi16::<2>(twice);
        let value = _mm256_add_epi8(
            _mm256_and_si256(digit, is_digit),
            _mm256_add_epi8(twice, eight_times),
        );
        (
            _mm256_movemask_epi8(is_digit) as u32,
            _mm256_movemask_epi8(separators) as u32,
            value,
        )
    }

    /// The 32 bytes one earlier than `bytes` when these are a line's first: a zero (no digit
    /// before the line), then bytes 0..31.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn shifted_in_zero(bytes: __m256i) -> __m256i {
        // [zero, low half], then each half shifted up a byte with the top byte of the other.
        _mm256_alignr_epi8::<15>(bytes, _mm256_permute2x128_si256::<0x08>(bytes, bytes))
    }

    /// See [`super::parse`].
    #[target_feature(enable = "avx2,bmi1,popcnt")]
    pub(super) fn parse(
        line: &[u8],
        count: usize,
        n: usize,
        offset: usize,
        deck: &mut [Card],
    ) -> bool {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let length = line.len();
        if length == 0
            || length > MAX_LINE
            || count == 0
            || count > n
            || n > AVX2_MAX_DECK
            || deck.len() < count
        {
            return false;
        }
        // `digit_bits[w]`, `separator_bits[w]`: bytes 64w..64w + 64 of the line (bits past it
        // are ignored by `token_ends`).
        let mut digit_bits = [0u64; WORDS];
        let mut separator_bits = [0u64; WORDS];
        // The masks of bytes `at`.. (`at` a multiple of 32 below MAX_LINE).
        let mut put = |at: usize, digits: u32, separators: u32| {
            digit_bits[at / 64] |= u64::from(digits) << (at % 64);
            separator_bits[at / 64] |= u64::from(separators) << (at % 64);
        };
        // The blocks' values, in line order: `values[v]` holds bytes 32·v.. read as token ends,
        // but for the line's last 32 bytes, which overlap the whole blocks (see below). They are
        // kept as whole vectors, not bytes, so that reading them back is never a load that only
        // part of a store can serve.
        let mut values = [_mm256_setzero_si256(); VECTORS];
        let mut kept = 0;
        if length < 32 {
            // A short line: copied into 32 zeroed bytes (zeros are neither digits nor
            // separators, and bits past the line are ignored).
            let mut copy = [0u8; 32];
            copy[..length].copy_from_slice(line);
            // SAFETY: `copy` is 32 bytes.
            let bytes = unsafe { _mm256_loadu_si256(copy.as_ptr().cast()) };
            let (digits, separators, value) = block(bytes, shifted_in_zero(bytes));
            values[0] = value;
            kept = 1;
            put(0, digits, separators);
        } else {
            // Read in place: the whole blocks of 32 bytes, each with the 32 bytes one earlier
            // (the first with a zero shifted in), then the last 32 bytes of the line, whose
            // masks give the bytes past the whole blocks.
            let whole = length / 32;
            let at = line.as_ptr();
            for b in 0..whole {
                // SAFETY: 32·b + 32 ≤ length, and 32·b − 1 ≥ 0 when b ≥ 1.
                let bytes = unsafe { _mm256_loadu_si256(at.add(32 * b).cast()) };
                let before = if b == 0 {
                    shifted_in_zero(bytes)
                } else {
                    // SAFETY: as above.
                    unsafe { _mm256_loadu_si256(at.add(32 * b - 1).cast()) }
                };
                let (digits, separators, value) = block(bytes, before);
                values[kept] = value;
                kept += 1;
                put(32 * b, digits, separators);
            }
            let rest = length % 32;
            if rest > 0 {
                // The last 32 bytes, from `start` ≥ 1 (length > 32): their masks shifted down
                // by 32 − rest are those of bytes 32·whole.. .
                let start = length - 32;
                // SAFETY: start ≥ 1 and start + 32 = length.
                let (bytes, before) = unsafe {
                    (
                        _mm256_loadu_si256(at.add(start).cast()),
                        _mm256_loadu_si256(at.add(start - 1).cast()),
                    )
                };
                let (digits, separators, value) = block(bytes, before);
                let drop = 32 - rest as u32;
                values[kept] = value;
                kept += 1;
                put(32 * whole, digits >> drop, separators >> drop);
            }
        }
        let Some((ends, tokens)) = token_ends(&digit_bits, &separator_bits, length) else {
            return false;
        };
        if tokens != count {
            return false;
        }
        // The values at the token ends, 0-based (a value below the offset wraps to 255, out of
        // range), packed to the front 8 bytes at a time: a shuffle looked up by the 8 bits of
        // ends of each quarter of a block (moved up 8 bytes for the upper quarter of a half).
        // `cards` has room for the last 8-byte store: it starts at most at `count` ≤ 64, since
        // the ends number `count`.
        let mut cards = [0u8; AVX2_MAX_DECK + 8];
        let mut found = 0;
        let offset_bytes = _mm256_set1_epi8(offset as i8);
        let upper = _mm_set1_epi8(8);
        for (v, &value) in values[..kept].iter().enumerate() {
            // The vector's first byte: 32·v, or for the line's last 32 bytes length − 32,
            // whose bytes below 32·v were the whole blocks' (a line shorter than 32 bytes
            // has one vector, from 0).
            let first = (32 * v).min(length.saturating_sub(32));
            let taken = (32 * v - first) as u32;
            let ends_here = (bits_at(&ends, first) >> taken) << taken;
            let value = _mm256_sub_epi8(value, offset_bytes);
            let halves = [
                _mm256_castsi256_si128(value),
                _mm256_extracti128_si256::<1>(value),
            ];
            for (h, half) in halves.into_iter().enumerate() {
                for quarter in 0..2 {
                    let mask = (ends_here >> (16 * h + 8 * quarter)) as u8;
                    // SAFETY: `PACK[mask]` is 8 bytes.
                    let mut shuffle =
                        unsafe { _mm_loadl_epi64(PACK[usize::from(mask)].as_ptr().cast()) };
                    if quarter == 1 {
                        // The 0x80 of a byte zeroed stays above 0x7f: still zeroed.
                        shuffle = _mm_add_epi8(shuffle, upper);
                    }
                    let out = &mut cards[found..found + 8];
                    // SAFETY: `out` is 8 bytes.
                    unsafe {
                        _mm_storel_epi64(out.as_mut_ptr().cast(), _mm_shuffle_epi8(half, shuffle));
                    }
                    found += mask.count_ones() as usize;
                }
            }
        }
        debug_assert_eq!(found, count);
        // A bit per card (1 << card, none for a card of 64 or more), four cards a vector.
        let ones = _mm256_set1_epi64x(1);
        let mut bits = _mm256_setzero_si256();
        let mut i = 0;
        while i + 4 <= count {
            let four = u32::from_le_bytes([cards[i], cards[i + 1], cards[i + 2], cards[i + 3]]);
            let shifts = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(four as i32));
            bits = _mm256_or_si256(bits, _mm256_sllv_epi64(ones, shifts));
            i += 4;
        }
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` is 4 × 64 bits.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), bits) };
        let mut seen = lanes[0] | lanes[1] | lanes[2] | lanes[3];
        for &card in &cards[i..count] {
            seen |= 1u64.checked_shl(u32::from(card)).unwrap_or(0);
        }
        for (slot, &card) in deck[..count].iter_mut().zip(&cards) {
            *slot = Card::from(card);
        }
        // `count` bits, all below n: every card in range, and none twice.
        let below_n = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        seen.count_ones() as usize == count && seen & !below_n == 0
    }
}
