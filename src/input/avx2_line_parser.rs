//! The AVX2 reading of a line of one- or two-digit card numbers, for CPUs without the AVX-512
//! one ([`crate::input::wide_line_parser`]): the same lines accepted, with the same cards.
//!
//! The line is copied one byte into a zeroed buffer, so that the byte before every byte is one
//! unaligned load away. Per 32-byte block, comparisons find the digits and the separators as bit
//! masks, and the value of every byte read as the end of a token, 10·(digit before) + digit, is
//! computed for the whole block and stored. The masks, joined into 64-bit words, check the shape
//! of the line exactly as the AVX-512 reading does (every byte a digit or a separator, no two
//! separators in a row, no run of three digits, a digit first and last) and give the token ends.
//! AVX2 has no instruction that packs the values at the ends together, so a loop over the ends
//! (a trailing-zero count each) reads them; the cards are checked all at once after it: 1 << card
//! for every card, OR-ed, must have exactly `count` bits, all below n.
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
        // The copy: a zero (no digit before the first byte), the line, zeros.
        let mut copy = [0u8; MAX_LINE + 32];
        copy[1..=length].copy_from_slice(line);
        let blocks = length.div_ceil(32);
        let zero_digit = _mm256_set1_epi8(b'0' as i8);
        let nine = _mm256_set1_epi8(9);
        // `digit_bits[w]`, `separator_bits[w]`: bytes 64w..64w + 64 of the line (zeros past it).
        let mut digit_bits = [0u64; WORDS];
        let mut separator_bits = [0u64; WORDS];
        // `values[i]`: byte i read as the end of a token.
        let mut values = [0u8; MAX_LINE];
        for block in 0..blocks {
            // SAFETY: `copy` holds 32 bytes from 32·block + 1 and from 32·block (block < 8).
            let (bytes, before) = unsafe {
                (
                    _mm256_loadu_si256(copy.as_ptr().add(32 * block + 1).cast()),
                    _mm256_loadu_si256(copy.as_ptr().add(32 * block).cast()),
                )
            };
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
            // 10·(digit before) + digit, 0 before a non-digit: bytes of at most 99.
            let tens = _mm256_and_si256(digit_before, was_digit);
            let twice = _mm256_add_epi8(tens, tens);
            let eight_times = _mm256_slli_epi16::<2>(twice);
            // Bytes of at most 9·8 = 72: the 16-bit shift moves no bit into the next byte.
            let value = _mm256_add_epi8(
                _mm256_and_si256(digit, is_digit),
                _mm256_add_epi8(twice, eight_times),
            );
            // SAFETY: `values` holds 32 bytes from 32·block (block < 8).
            unsafe { _mm256_storeu_si256(values.as_mut_ptr().add(32 * block).cast(), value) };
            let shift = 32 * (block % 2);
            digit_bits[block / 2] |= u64::from(_mm256_movemask_epi8(is_digit) as u32) << shift;
            separator_bits[block / 2] |=
                u64::from(_mm256_movemask_epi8(separators) as u32) << shift;
        }
        let Some((ends, tokens)) = token_ends(&digit_bits, &separator_bits, length) else {
            return false;
        };
        if tokens != count {
            return false;
        }
        let words = length.div_ceil(64);
        // The cards, 0-based (a value below the offset wraps to a large one: out of range), and
        // a bit per card (an out-of-range card is flagged, so the bit it sets does not matter).
        let mut cards = [0u8; AVX2_MAX_DECK];
        let mut seen = 0u64;
        let mut out_of_range = false;
        let mut found = 0;
        for (word, &ends) in ends.iter().enumerate().take(words) {
            let mut bits = ends;
            while bits != 0 {
                let at = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let card = values[at % MAX_LINE].wrapping_sub(offset as u8);
                out_of_range |= usize::from(card) >= n;
                seen |= 1u64 << (card % 64);
                // `found` < count ≤ 64 (the tokens were counted).
                cards[found % AVX2_MAX_DECK] = card;
                found += 1;
            }
        }
        for (slot, &card) in deck[..count].iter_mut().zip(&cards) {
            *slot = Card::from(card);
        }
        // `count` bits, all below n: every card in range, and none twice.
        !out_of_range && seen.count_ones() as usize == count
    }
}
