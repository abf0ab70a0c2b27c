//! The AVX-512 reading of a line of one- or two-digit card numbers (a 52-card deck written by
//! `run --emit-permutations`, say): 64 bytes at a time, every test of the line done on whole
//! blocks, with no loop over the bytes and none over the tokens but the final widening.
//!
//! Per 64-byte block, one compare-to-mask finds the digits and one per separator byte the
//! separators; shifts of those 64-bit masks (with the bit carried in from the neighbouring block)
//! find where tokens end and check the shape of the line: every byte a digit or a separator, no
//! two separators in a row, no run of three digits, a digit first and last. The value of every
//! byte read as the end of a token, 10·(digit before) + digit, is computed for the whole block
//! (the digit before comes from a byte permutation across the block and its predecessor), and the
//! values at the token ends are packed together with one `vpcompressb`. The cards are then
//! checked all at once: 1 << card for every card, OR-ed, must have exactly `count` bits, all
//! below n — so every card is in range and none repeats (n ≤ 64).
//!
//! [`parse_long`] reads the lines of decks of 65 to 256 cards the same way: tokens of up to
//! three digits, each value in two bytes at its token's end (ones and tens; hundreds, counted
//! only when the byte between is a digit too), packed by `vpcompressb` straight into two arrays
//! block after block, then made into 16-bit cards 32 at a time and checked as four 64-bit words
//! of bits. The lines it refuses go to the scalar path it stands before.
//!
//! [`parse`] accepts exactly the lines, with exactly the cards, that the scalar fast paths of
//! [`crate::input::permutation_reader`] accept (tested there on mutated lines), and the lines it
//! refuses go to the careful parser, which gives the exact message: so it only decides speed.
//! The CPU is asked at run time ([`available`]); without AVX-512 (or on another architecture)
//! the scalar path is used.

use crate::engine::algorithms::Card;

/// The largest deck this parser reads: a card is one bit of a 64-bit mask.
pub const WIDE_MAX_DECK: usize = 64;

/// Blocks of 64 bytes a line may span: 256 bytes, above the longest line of 64 one- or two-digit
/// tokens with single separators (10 + 2·54 + 63 = 181 bytes). A longer line cannot be one the
/// fast paths accept, and is refused.
const BLOCKS: usize = 4;

/// The longest line the vector readings take ([`BLOCKS`] of 64 bytes; the AVX2 one,
/// [`crate::input::avx2_line_parser`], too).
pub const MAX_LINE: usize = 64 * BLOCKS;

/// Whether this CPU runs [`parse`] (AVX-512 F, BW and VBMI2, asked once per call site).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("avx512vbmi2")
            && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Read `line` (without its newline; a final CR is dropped) as exactly `count` integers in
/// `offset..n + offset` separated by single spaces, tabs or commas, none repeated, into
/// `deck[..count]` shifted to 0-based; false for any other line (nothing else is promised of
/// `deck` then). Needs `n` ≤ [`WIDE_MAX_DECK`] and `n + offset` ≤ 100.
///
/// # Panics
/// If [`available`] is false (checked in debug builds; call it only after [`available`]).
#[inline]
pub fn parse(line: &[u8], count: usize, n: usize, offset: usize, deck: &mut [Card]) -> bool {
    debug_assert!(available());
    debug_assert!(n <= WIDE_MAX_DECK && n + offset <= 100 && offset <= 1);
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the caller asked `available()`, which checks every feature enabled on `blocks`.
        unsafe { x86::parse(line, count, n, offset, deck) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (line, count, n, offset, deck);
        unreachable!("available() is false off x86-64")
    }
}

/// The largest deck [`parse_long`] reads: a card is a 16-bit lane, and the cards seen are
/// four 64-bit words.
pub const LONG_MAX_DECK: usize = 256;

/// Blocks of 64 bytes a line of [`parse_long`] may span: 1,024 bytes, above the longest line of
/// 256 tokens of at most three digits with single separators (1,023 bytes).
const LONG_BLOCKS: usize = 16;

/// Read `line` (without its newline; a final CR is dropped) as exactly `count` integers of 1 to
/// `digits` digits (2 or 3) in `offset..n + offset`, separated by single spaces, tabs or commas,
/// none repeated, into `deck[..count]` shifted to 0-based; false for any other line (nothing
/// else is promised of `deck` then). For decks of 65 to 256 cards, which [`parse`] does not
/// take: a line it accepts is one the scalar fast paths accept with the same cards, and a line
/// it refuses is left to them (`parse_two_digits` for `digits` 2, `parse_plain`, which also
/// takes four-digit tokens, for 3). Needs `n` ≤ [`LONG_MAX_DECK`], `offset` ≤ 1.
///
/// # Panics
/// If [`available`] is false (checked in debug builds; call it only after [`available`]).
#[inline]
pub fn parse_long(
    line: &[u8],
    count: usize,
    n: usize,
    offset: usize,
    digits: usize,
    deck: &mut [Card],
) -> bool {
    debug_assert!(available());
    debug_assert!(n <= LONG_MAX_DECK && offset <= 1 && (2..=3).contains(&digits));
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the caller asked `available()`, which checks every feature enabled here.
        unsafe { x86::parse_long(line, count, n, offset, digits, deck) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (line, count, n, offset, digits, deck);
        unreachable!("available() is false off x86-64")
    }
}

/// The token ends of a line of `length` bytes (1 ≤ length ≤ [`MAX_LINE`]) from the masks of
/// its digits and of its separators (bit i of word w: byte 64w + i; bits past the line are
/// ignored), and how many there are; `None` unless the line has the shape of one the fast
/// paths accept: every byte a digit or a separator, no two separators in a row, no run of
/// three digits, a digit first and last. Shared by the AVX-512 and AVX2 readings.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn token_ends(
    digit_bits: &[u64; BLOCKS],
    separator_bits: &[u64; BLOCKS],
    length: usize,
) -> Option<([u64; BLOCKS], usize)> {
    let words = length.div_ceil(64);
    let mut digits_of = [0u64; BLOCKS + 1];
    let mut bad = 0u64;
    let mut previous_separators = 0u64;
    for word in 0..words {
        let rest = length - 64 * word;
        let valid = if rest >= 64 {
            u64::MAX
        } else {
            (1u64 << rest) - 1
        };
        let digits = digit_bits[word] & valid;
        let separators = separator_bits[word] & valid;
        // Every byte a digit or a separator; never two separators in a row.
        bad |= (digits | separators) ^ valid;
        bad |= separators & (separators << 1 | previous_separators >> 63);
        previous_separators = separators;
        digits_of[word] = digits;
    }
    // A digit first and last: with the above, every token is a run of digits.
    bad |= !digits_of[0] & 1;
    bad |= !(digits_of[words - 1] >> ((length - 1) % 64)) & 1;
    // Token ends: a digit whose next byte is none (bit 0 of the word after, 0 past the end).
    let mut ends = [0u64; BLOCKS];
    let mut tokens = 0;
    let mut carry = 0u64;
    for word in 0..words {
        let digits = digits_of[word];
        let before = digits << 1 | carry >> 63;
        let two_before = digits << 2 | carry >> 62;
        // No token of three digits or more.
        bad |= digits & before & two_before;
        carry = digits;
        ends[word] = digits & !(digits >> 1 | digits_of[word + 1] << 63);
        tokens += ends[word].count_ones() as usize;
    }
    (bad == 0).then_some((ends, tokens))
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{BLOCKS, Card, LONG_BLOCKS, LONG_MAX_DECK, WIDE_MAX_DECK};
    use std::arch::x86_64::*;

    /// The bytes of `line[64·block..]` that belong to the line, as a mask.
    #[inline(always)]
    fn valid_bits(length: usize, block: usize) -> u64 {
        let rest = length - 64 * block;
        if rest >= 64 {
            u64::MAX
        } else {
            (1u64 << rest) - 1
        }
    }

    /// The lanes below `count` (≤ 64), as a mask.
    #[inline(always)]
    fn lanes_below(count: usize) -> u64 {
        if count >= 64 {
            u64::MAX
        } else {
            (1u64 << count) - 1
        }
    }

    /// Block `block` (64 bytes) of `line`, which reaches into it: the masks of its digits and
    /// of its separators (space, tab, comma; bits past the line's end 0), and the digits'
    /// values (0 on every other byte).
    #[target_feature(enable = "avx512f,avx512bw")]
    fn read_block(line: &[u8], block: usize) -> (u64, u64, __m512i) {
        let valid = valid_bits(line.len(), block);
        // SAFETY: the masked-off lanes (past the line's end) are neither read nor faulted on.
        let bytes =
            unsafe { _mm512_maskz_loadu_epi8(valid, line.as_ptr().add(64 * block).cast::<i8>()) };
        let digit = _mm512_sub_epi8(bytes, _mm512_set1_epi8(b'0' as i8));
        let digits = _mm512_cmplt_epu8_mask(digit, _mm512_set1_epi8(10)) & valid;
        let separators = (_mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8(b' ' as i8))
            | _mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8(b'\t' as i8))
            | _mm512_cmpeq_epi8_mask(bytes, _mm512_set1_epi8(b',' as i8)))
            & valid;
        (digits, separators, _mm512_maskz_mov_epi8(digits, digit))
    }

    /// See [`super::parse`].
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt")]
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
            || length > 64 * BLOCKS
            || count == 0
            || count > n
            || n > WIDE_MAX_DECK
            || deck.len() < count
        {
            return false;
        }
        let blocks = length.div_ceil(64);
        // The digit and separator masks and the digits' values (0 on other bytes) of every
        // block.
        let mut digit_bits = [0u64; BLOCKS];
        let mut separator_bits = [0u64; BLOCKS];
        let mut values = [_mm512_setzero_si512(); BLOCKS];
        for block in 0..blocks {
            (digit_bits[block], separator_bits[block], values[block]) = read_block(line, block);
        }
        let Some((ends, tokens)) = super::token_ends(&digit_bits, &separator_bits, length) else {
            return false;
        };
        if tokens != count {
            return false;
        }
        // Each token's value at its end: its digit plus ten times the digit before (0 when the
        // byte before is a separator), the byte before taken across the block boundary by a
        // permutation of two blocks; then the ends packed together.
        let shift_index = _mm512_set_epi8(
            62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41,
            40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19,
            18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 127,
        );
        // The cards gather in one vector: each block's values at its ends, packed by
        // `vpcompressb`, then spread by `vpexpandb` into the lanes after those already found.
        // Lanes past `count` keep 0xff, out of every deck.
        let mut gathered = _mm512_set1_epi8(-1);
        let mut found = 0;
        let mut previous = _mm512_setzero_si512();
        for block in 0..blocks {
            let digit = values[block];
            let before = _mm512_permutex2var_epi8(digit, shift_index, previous);
            previous = digit;
            let twice = _mm512_add_epi8(before, before);
            let eight_times = _mm512_slli_epi16::<2>(twice);
            // Bytes of at most 9·8 = 72: the 16-bit shift moves no bit into the next byte.
            let value = _mm512_add_epi8(digit, _mm512_add_epi8(twice, eight_times));
            let packed = _mm512_maskz_compress_epi8(ends[block], value);
            let here = ends[block].count_ones() as usize;
            // Lanes found..found + here (found + here ≤ count ≤ 64).
            let lanes = lanes_below(found + here) & !lanes_below(found);
            gathered = _mm512_mask_expand_epi8(gathered, lanes, packed);
            found += here;
        }
        // The cards, 0-based (a byte below the offset wraps to 255: out of range), widened
        // into the deck, and a bit per card.
        let cards = _mm512_sub_epi8(gathered, _mm512_set1_epi8(offset as i8));
        let wanted = lanes_below(count);
        let low = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(cards));
        let high = _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(cards));
        // SAFETY: at most `count` ≤ deck.len() cards are stored (the masks).
        unsafe {
            _mm512_mask_storeu_epi16(deck.as_mut_ptr().cast(), wanted as u32, low);
            if count > 32 {
                _mm512_mask_storeu_epi16(
                    deck.as_mut_ptr().add(32).cast(),
                    (wanted >> 32) as u32,
                    high,
                );
            }
        }
        // Eight cards at a time, each zero-extended into a 64-bit lane (byte 8j of the index
        // picks card 8k + j; the other bytes are zeroed by the mask), shifted into a bit.
        let one = _mm512_set1_epi64(1);
        let mut seen = _mm512_setzero_si512();
        let mut index = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
        let mut eight = 0;
        while eight < count {
            let lanes = _mm512_maskz_permutexvar_epi8(0x0101_0101_0101_0101, index, cards);
            // A shift by 64 or more gives 0: a card out of every deck sets no bit.
            seen = _mm512_or_si512(seen, _mm512_sllv_epi64(one, lanes));
            index = _mm512_add_epi64(index, _mm512_set1_epi64(8));
            eight += 8;
        }
        let seen = _mm512_reduce_or_epi64(seen) as u64;
        // `count` bits, all below n: every card in range, and none twice.
        seen.count_ones() as usize == count && (n == 64 || seen >> n == 0)
    }

    /// See [`super::parse_long`].
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt")]
    pub(super) fn parse_long(
        line: &[u8],
        count: usize,
        n: usize,
        offset: usize,
        most_digits: usize,
        deck: &mut [Card],
    ) -> bool {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let length = line.len();
        if length == 0
            || length > 64 * LONG_BLOCKS
            || count == 0
            || count > n
            || n > LONG_MAX_DECK
            || deck.len() < count
            || !(2..=3).contains(&most_digits)
        {
            return false;
        }
        let blocks = length.div_ceil(64);
        // Pass 1: the digit and separator masks and the digits' values (0 on other bytes).
        let mut digit_bits = [0u64; LONG_BLOCKS + 1];
        let mut separator_bits = [0u64; LONG_BLOCKS];
        let mut values = [_mm512_setzero_si512(); LONG_BLOCKS];
        let mut bad = 0u64;
        for block in 0..blocks {
            let (digits, separators, digit) = read_block(line, block);
            // Every byte a digit or a separator.
            bad |= (digits | separators) ^ valid_bits(length, block);
            digit_bits[block] = digits;
            separator_bits[block] = separators;
            values[block] = digit;
        }
        // A digit first and last: with the rest, every token is a run of digits.
        bad |= !digit_bits[0] & 1;
        bad |= !(digit_bits[blocks - 1] >> ((length - 1) % 64)) & 1;
        // Byte i − 1 and byte i − 2 of each lane, across the block boundary.
        let back_one = _mm512_set_epi8(
            62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41,
            40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19,
            18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 127,
        );
        let back_two = _mm512_set_epi8(
            61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40,
            39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18,
            17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 127, 126,
        );
        // Pass 2: each token's value at its end, in two bytes (ones and tens; hundreds), packed
        // in line order by `vpcompressb` into `low` and `high`.
        let mut low = [0u8; LONG_MAX_DECK + 64];
        let mut high = [0u8; LONG_MAX_DECK + 64];
        let mut found = 0;
        let mut previous = _mm512_setzero_si512();
        let mut previous_digits = 0u64;
        let mut previous_separators = 0u64;
        for block in 0..blocks {
            let digits = digit_bits[block];
            let separators = separator_bits[block];
            // Never two separators in a row.
            bad |= separators & (separators << 1 | previous_separators >> 63);
            previous_separators = separators;
            // Whether the byte 1, 2 and 3 before each byte is a digit.
            let one_before = digits << 1 | previous_digits >> 63;
            let two_before = digits << 2 | previous_digits >> 62;
            let three_before = digits << 3 | previous_digits >> 61;
            // No token of more digits than allowed.
            bad |= if most_digits == 2 {
                digits & one_before & two_before
            } else {
                digits & one_before & two_before & three_before
            };
            previous_digits = digits;
            // Token ends: a digit whose next byte is none (bit 0 of the next block, 0 past the
            // end).
            let ends = digits & !(digits >> 1 | digit_bits[block + 1] << 63);
            let here = ends.count_ones() as usize;
            if found + here > count {
                return false;
            }
            let digit = values[block];
            // The byte before is 0 unless a digit; the one before it counts only when the byte
            // between is a digit too (else it belongs to the token before).
            let tens = _mm512_permutex2var_epi8(digit, back_one, previous);
            let hundreds = _mm512_maskz_mov_epi8(
                one_before & two_before,
                _mm512_permutex2var_epi8(digit, back_two, previous),
            );
            previous = digit;
            let twice = _mm512_add_epi8(tens, tens);
            let eight_times = _mm512_slli_epi16::<2>(twice);
            // Bytes of at most 9·8 = 72: the 16-bit shift moves no bit into the next byte.
            let value = _mm512_add_epi8(digit, _mm512_add_epi8(twice, eight_times));
            // SAFETY: found + here ≤ count ≤ 256, so the 64 bytes from `found` are in the arrays.
            unsafe {
                _mm512_mask_compressstoreu_epi8(low.as_mut_ptr().add(found).cast(), ends, value);
                _mm512_mask_compressstoreu_epi8(
                    high.as_mut_ptr().add(found).cast(),
                    ends,
                    hundreds,
                );
            }
            found += here;
        }
        if bad != 0 || found != count {
            return false;
        }
        // The cards, 32 at a time in 16-bit lanes: 100·hundreds + the rest − offset (a value
        // below the offset wraps to 65,535: out of range), each below n, stored; and a bit per
        // card in four words, eight cards at a time in 64-bit lanes.
        let hundred = _mm512_set1_epi16(100);
        let limit = _mm512_set1_epi16(n as i16);
        let shift = _mm512_set1_epi16(offset as i16);
        let one = _mm512_set1_epi64(1);
        let mut seen = [_mm512_setzero_si512(); 4];
        let mut start = 0;
        while start < count {
            let lanes = lanes_below(count - start) as u32;
            // SAFETY: 32 bytes from `start` < count ≤ 256 are in the arrays.
            let (ones, hundreds) = unsafe {
                (
                    _mm256_loadu_si256(low.as_ptr().add(start).cast()),
                    _mm256_loadu_si256(high.as_ptr().add(start).cast()),
                )
            };
            let value = _mm512_add_epi16(
                _mm512_cvtepu8_epi16(ones),
                _mm512_mullo_epi16(_mm512_cvtepu8_epi16(hundreds), hundred),
            );
            let cards = _mm512_sub_epi16(value, shift);
            if _mm512_mask_cmplt_epu16_mask(lanes, cards, limit) != lanes {
                return false;
            }
            // SAFETY: lanes below count − start, all within deck[..count].
            unsafe { _mm512_mask_storeu_epi16(deck.as_mut_ptr().add(start).cast(), lanes, cards) };
            // Lanes past the count hold 65,535: every shift of it is 64 or more, so no bit.
            let cards = _mm512_mask_mov_epi16(_mm512_set1_epi16(-1), lanes, cards);
            for eight in 0..4 {
                let lanes = _mm512_cvtepu16_epi64(match eight {
                    0 => _mm512_extracti32x4_epi32::<0>(cards),
                    1 => _mm512_extracti32x4_epi32::<1>(cards),
                    2 => _mm512_extracti32x4_epi32::<2>(cards),
                    _ => _mm512_extracti32x4_epi32::<3>(cards),
                });
                for (word, seen) in seen.iter_mut().enumerate() {
                    // Card c sets bit c − 64·word of word `word`; the others shift by 64 or more
                    // (below 64·word the difference wraps), which gives 0.
                    let at = _mm512_sub_epi64(lanes, _mm512_set1_epi64(64 * word as i64));
                    *seen = _mm512_or_si512(*seen, _mm512_sllv_epi64(one, at));
                }
            }
            start += 32;
        }
        // `count` distinct bits among cards all below n: none twice.
        let bits: u32 = seen
            .iter()
            .map(|&words| (_mm512_reduce_or_epi64(words) as u64).count_ones())
            .sum();
        bits as usize == count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `token_ends` of a line, its masks made byte by byte.
    fn ends_of(line: &[u8]) -> Option<(Vec<usize>, usize)> {
        let mut digits = [0u64; BLOCKS];
        let mut separators = [0u64; BLOCKS];
        for (at, &byte) in line.iter().enumerate() {
            digits[at / 64] |= u64::from(byte.is_ascii_digit()) << (at % 64);
            separators[at / 64] |= u64::from(matches!(byte, b' ' | b'\t' | b',')) << (at % 64);
        }
        token_ends(&digits, &separators, line.len()).map(|(ends, tokens)| {
            let at = (0..64 * BLOCKS).filter(|&i| ends[i / 64] >> (i % 64) & 1 == 1);
            (at.collect(), tokens)
        })
    }

    #[test]
    fn token_ends_are_the_last_digits_of_lines_of_the_right_shape_only() {
        assert_eq!(ends_of(b"12 3,45\t6"), Some((vec![1, 3, 6, 8], 4)));
        // Across words: a token ending at byte 63, the last of a word, its separator in the next.
        let mut long = b"1 ".repeat(31);
        long.extend_from_slice(b"23 4");
        assert_eq!(long.len(), 66);
        assert_eq!(ends_of(&long).map(|(ends, _)| ends[31..].to_vec()), Some(vec![63, 65]));
        for bad in [&b"1  2"[..], b"123", b" 1", b"1 ", b"1 x", b"1,,2", b"12 345"] {
            assert_eq!(ends_of(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }
}
