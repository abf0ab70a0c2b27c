//! The order statistics of eight decks with AVX2, for CPUs without AVX-512: the scalar walk of
//! [`super::order_statistics`] step for step, four decks to a 256-bit vector (one to each
//! 64-bit lane), one vector walked to the end and then the other (both side by side needed more
//! registers than there are, and the values spilled lengthened every step). It is the AVX-512
//! walk of `wide::x86::order_statistics` with the masks held as lanes of all ones, and with the
//! one thing AVX2 lacks, a 64-bit population count, made of two 16-entry lookups of nibbles
//! (`vpshufb`), summed in bytes over at most [`BYTE_SUMS`] positions and then into the 64-bit
//! lanes by a sum of absolute differences.

use super::{Card, FUSED_MAX_DECK, LANES};

/// Whether this CPU runs [`order_statistics`].
pub(super) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Positions whose inversion counts are summed in bytes before they are widened: each adds at
/// most 8 to a byte (the bits of that byte of a 64-bit set), and 31 · 8 = 248 ≤ 255.
const BYTE_SUMS: usize = 31;

/// [`super::order_statistics`] of exactly [`LANES`] decks of `n` (≤ 64) cards laid end to end
/// in `decks`, and a fourth value: the descents of each deck's inverse (the cards c with c + 1
/// before them, counted from the cards seen), so that a caller needs no inverse for them. Only
/// after [`available`].
#[inline(always)]
pub(super) fn order_statistics(decks: &[Card], n: usize) -> [[u16; 4]; LANES] {
    debug_assert!(available() && (1..=FUSED_MAX_DECK).contains(&n) && decks.len() == LANES * n);
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `available()` was true (asked in `FusedMarginalTally::new`).
        unsafe { x86::order_statistics(decks, n) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (decks, n);
        unreachable!("available() is false off x86-64")
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{BYTE_SUMS, Card, FUSED_MAX_DECK, LANES};
    use std::arch::x86_64::*;

    /// Vectors of four decks each.
    const HALVES: usize = LANES / 4;

    /// Positions walked between two widenings of the byte sums: whole groups of four (one
    /// load of four cards a deck), at most [`BYTE_SUMS`].
    const CHUNK: usize = BYTE_SUMS / 4 * 4;

    /// The walk's state for one vector of four decks.
    struct Walk {
        seen: __m256i,
        tops: __m256i,
        inversions: __m256i,
        bytes: __m256i,
        right: __m256i,
        /// The cards above the last card.
        last_above: __m256i,
        /// The side of the last card the next guess looks on first (G).
        guess_side: __m256i,
        inverse_descents: __m256i,
    }

    /// See [`super::order_statistics`]. The guess is never formed as a number: the card is
    /// guessed exactly when it lies on the side of the last card the guess looks on first, or
    /// that side has no unseen card besides it, and no unseen card lies strictly between the
    /// last and the card (the AVX-512 walk's documentation shows why).
    ///
    /// The decks are read where they lie, not transposed: each 64-bit lane takes four
    /// consecutive cards of its deck in one load (cards are 16-bit), and each step takes the
    /// lowest card of every lane and shifts the next one down.
    #[target_feature(enable = "avx2")]
    pub(super) fn order_statistics(decks: &[Card], n: usize) -> [[u16; 4]; LANES] {
        let all = _mm256_set1_epi64x(if n == FUSED_MAX_DECK {
            -1
        } else {
            ((1u64 << n) - 1) as i64
        });
        let zero = _mm256_setzero_si256();
        let low_card = _mm256_set1_epi64x(FUSED_MAX_DECK as i64 - 1);
        let mut lanes = [[0u64; LANES]; 4];
        // One vector of four decks at a time, so that its state (eight vectors) and the
        // constants stay in registers: a value spilled and reloaded within a step would lengthen
        // the chain carried from step to step. The steps of one walk still overlap (each group
        // of cards is loaded afresh, and the state carried is a few instructions deep).
        for half in 0..HALVES {
            let four: [&[Card]; 4] = std::array::from_fn(|lane| {
                let deck = half * 4 + lane;
                &decks[deck * n..(deck + 1) * n]
            });
            // The first card: nothing seen; the guess is card 0; it counts as a rise.
            let card = _mm256_and_si256(load_four(&four, 0), low_card);
            let bit = _mm256_sllv_epi64(_mm256_set1_epi64x(1), card);
            let above = _mm256_sllv_epi64(_mm256_set1_epi64x(!1u64 as i64), card);
            let mut walk = Walk {
                seen: bit,
                tops: bit,
                inversions: zero,
                bytes: zero,
                right: _mm256_and_si256(_mm256_cmpeq_epi64(card, zero), _mm256_set1_epi64x(1)),
                last_above: above,
                // The first card counts as a rise: the next guess looks above it first.
                guess_side: above,
                inverse_descents: zero,
            };
            let mut position = 1;
            while position < n {
                let end = n.min(position + CHUNK);
                // Whole groups of four with a fixed count (unrolled), then the deck's last
                // cards, fewer than four.
                while position + 4 <= end {
                    let mut cards = load_four(&four, position);
                    for _ in 0..4 {
                        step(&mut walk, _mm256_and_si256(cards, low_card), all);
                        cards = _mm256_srli_epi64::<16>(cards);
                    }
                    position += 4;
                }
                if position < end {
                    let mut cards = load_four(&four, position);
                    for _ in position..end {
                        step(&mut walk, _mm256_and_si256(cards, low_card), all);
                        cards = _mm256_srli_epi64::<16>(cards);
                    }
                    position = end;
                }
                widen(&mut walk.inversions, &mut walk.bytes);
            }
            for (out, vector) in lanes.iter_mut().zip([
                walk.inversions,
                walk.tops,
                walk.right,
                walk.inverse_descents,
            ]) {
                // SAFETY: four 64-bit lanes into four u64.
                unsafe { _mm256_storeu_si256(out[half * 4..].as_mut_ptr().cast(), vector) };
            }
        }
        std::array::from_fn(|lane| {
            [
                lanes[0][lane] as u16,
                // The piles: the tops left.
                lanes[1][lane].count_ones() as u16,
                lanes[2][lane] as u16,
                lanes[3][lane] as u16,
            ]
        })
    }

    /// One step of the walk: `card` (each lane's, below 64) follows the cards seen.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn step(walk: &mut Walk, card: __m256i, all: __m256i) {
        let ones = _mm256_set1_epi64x(1);
        let all_but_zero = _mm256_set1_epi64x(!1u64 as i64);
        let zero = _mm256_setzero_si256();
        let bit = _mm256_sllv_epi64(ones, card);
        let above = _mm256_sllv_epi64(all_but_zero, card);
        // The guessing game, against the cards unseen after this one. Comparisons with zero
        // give lanes of all ones (true) or zeros.
        let unseen_after = _mm256_andnot_si256(_mm256_or_si256(walk.seen, bit), all);
        let off_side = _mm256_cmpeq_epi64(_mm256_and_si256(walk.guess_side, bit), zero);
        let side_empty = _mm256_cmpeq_epi64(_mm256_and_si256(walk.guess_side, unseen_after), zero);
        let between = _mm256_xor_si256(walk.last_above, above);
        let gap_empty = _mm256_cmpeq_epi64(_mm256_and_si256(between, unseen_after), zero);
        let hit = _mm256_andnot_si256(_mm256_andnot_si256(side_empty, off_side), gap_empty);
        walk.right = _mm256_sub_epi64(walk.right, hit);
        // The next side: above this card after a rise, below it (bit − 1) after a fall, when
        // the card is not above the last.
        let falling = _mm256_cmpeq_epi64(_mm256_and_si256(bit, walk.last_above), zero);
        walk.guess_side = _mm256_blendv_epi8(above, _mm256_sub_epi64(bit, ones), falling);
        walk.last_above = above;
        // A descent of the inverse: card + 1 seen before this card (a shift by 64, for card
        // 63, gives 0).
        walk.inverse_descents = _mm256_add_epi64(
            walk.inverse_descents,
            _mm256_and_si256(
                _mm256_srlv_epi64(walk.seen, _mm256_add_epi64(card, ones)),
                ones,
            ),
        );
        // Inversions: the cards above this one seen before it.
        walk.bytes = _mm256_add_epi8(walk.bytes, byte_counts(_mm256_and_si256(walk.seen, above)));
        walk.seen = _mm256_or_si256(walk.seen, bit);
        // Patience sorting: the card replaces the least top above it, or starts a pile.
        let higher = _mm256_and_si256(walk.tops, above);
        let least = _mm256_and_si256(higher, _mm256_sub_epi64(zero, higher));
        walk.tops = _mm256_or_si256(_mm256_andnot_si256(least, walk.tops), bit);
    }

    /// Cards `position..position + 4` of each of the four decks (those past a deck's end 0),
    /// 16 bits each, one deck to a 64-bit lane, the first card lowest.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn load_four(four: &[&[Card]; 4], position: usize) -> __m256i {
        let word = |deck: &[Card]| -> i64 {
            let cards = &deck[position..deck.len().min(position + 4)];
            if cards.len() == 4 {
                // SAFETY: four u16 in a row are eight bytes; x86 is little-endian, so the first
                // card is the lowest 16 bits.
                unsafe { cards.as_ptr().cast::<u64>().read_unaligned() as i64 }
            } else {
                cards
                    .iter()
                    .rev()
                    .fold(0u64, |word, &card| word << 16 | u64::from(card)) as i64
            }
        };
        _mm256_set_epi64x(word(four[3]), word(four[2]), word(four[1]), word(four[0]))
    }

    /// The bits set in each byte of `x`: the counts of its two nibbles, looked up.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn byte_counts(x: __m256i) -> __m256i {
        let nibble_counts = _mm256_setr_epi8(
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2,
            3, 3, 4,
        );
        let low = _mm256_set1_epi8(0x0f);
        _mm256_add_epi8(
            _mm256_shuffle_epi8(nibble_counts, _mm256_and_si256(x, low)),
            _mm256_shuffle_epi8(nibble_counts, _mm256_and_si256(_mm256_srli_epi16(x, 4), low)),
        )
    }

    /// Add the byte sums of each 64-bit lane into `total`, and empty them.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn widen(total: &mut __m256i, bytes: &mut __m256i) {
        *total = _mm256_add_epi64(*total, _mm256_sad_epu8(*bytes, _mm256_setzero_si256()));
        *bytes = _mm256_setzero_si256();
    }
}
