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

    /// See [`super::order_statistics`]. The guess is never formed as a number: after a rise it
    /// is the least unseen card above the last, which the card equals exactly when the unseen
    /// cards above the last, masked to those up to the card, are the card's bit alone; after a
    /// fall (or with nothing unseen above) the greatest unseen card below, which the card
    /// equals exactly when the unseen cards below the last, shifted down by the card, are 1.
    #[target_feature(enable = "avx2")]
    pub(super) fn order_statistics(decks: &[Card], n: usize) -> [[u16; 4]; LANES] {
        // The decks transposed: `columns[position][deck]`, the cards as bytes.
        let mut columns = [[0u8; LANES]; FUSED_MAX_DECK];
        for (lane, deck) in decks.chunks_exact(n).enumerate() {
            for (column, &card) in columns.iter_mut().zip(deck) {
                column[lane] = card as u8;
            }
        }
        let all = _mm256_set1_epi64x(if n == FUSED_MAX_DECK {
            -1
        } else {
            ((1u64 << n) - 1) as i64
        });
        let ones = _mm256_set1_epi64x(1);
        let all_but_zero = _mm256_set1_epi64x(!1u64 as i64);
        let every = _mm256_set1_epi64x(-1);
        let zero = _mm256_setzero_si256();
        let mut lanes = [[0u64; LANES]; 4];
        // One vector of four decks at a time, so that its state (seven vectors) and the
        // constants stay in registers: a value spilled and reloaded within a step would lengthen
        // the chain carried from step to step. The steps of one walk still overlap (each step's
        // card is loaded afresh, and the state carried is a few instructions deep).
        for half in 0..HALVES {
            // The first card: nothing seen; the guess is card 0; it counts as a rise.
            let card = load_column(&columns[0], half);
            let bit = _mm256_sllv_epi64(ones, card);
            let mut seen = bit;
            let mut tops = bit;
            let mut inversions = zero;
            let mut bytes = zero;
            let mut right = _mm256_and_si256(_mm256_cmpeq_epi64(card, zero), ones);
            let mut last = card;
            let mut rising = every;
            let mut inverse_descents = zero;
            for chunk in columns[1..n].chunks(BYTE_SUMS) {
                for column in chunk {
                    let card = load_column(column, half);
                    let bit = _mm256_sllv_epi64(ones, card);
                    let above = _mm256_sllv_epi64(all_but_zero, card);
                    // The guessing game, against the state before this card.
                    let unseen = _mm256_andnot_si256(seen, all);
                    let unseen_above =
                        _mm256_and_si256(unseen, _mm256_sllv_epi64(all_but_zero, last));
                    let unseen_below =
                        _mm256_andnot_si256(_mm256_sllv_epi64(every, last), unseen);
                    let none_above = _mm256_cmpeq_epi64(unseen_above, zero);
                    let none_below = _mm256_cmpeq_epi64(unseen_below, zero);
                    let up = _mm256_or_si256(
                        _mm256_andnot_si256(none_above, rising),
                        _mm256_andnot_si256(rising, none_below),
                    );
                    let up_to_card = _mm256_or_si256(bit, _mm256_sub_epi64(bit, ones));
                    let hit_up =
                        _mm256_cmpeq_epi64(_mm256_and_si256(unseen_above, up_to_card), bit);
                    let hit_down =
                        _mm256_cmpeq_epi64(_mm256_srlv_epi64(unseen_below, card), ones);
                    // Every lane of `up` is all ones or all zeros: the byte blend picks lanes.
                    let hit = _mm256_blendv_epi8(hit_down, hit_up, up);
                    right = _mm256_sub_epi64(right, hit);
                    // Cards are below 64: the signed comparison is the unsigned one.
                    rising = _mm256_cmpgt_epi64(card, last);
                    last = card;
                    // A descent of the inverse: card + 1 seen before this card (a shift by 64,
                    // for card 63, gives 0).
                    inverse_descents = _mm256_add_epi64(
                        inverse_descents,
                        _mm256_and_si256(
                            _mm256_srlv_epi64(seen, _mm256_add_epi64(card, ones)),
                            ones,
                        ),
                    );
                    // Inversions: the cards above this one seen before it.
                    bytes = _mm256_add_epi8(bytes, byte_counts(_mm256_and_si256(seen, above)));
                    seen = _mm256_or_si256(seen, bit);
                    // Patience sorting: the card replaces the least top above it, or starts a
                    // pile.
                    let higher = _mm256_and_si256(tops, above);
                    let least = _mm256_and_si256(higher, _mm256_sub_epi64(zero, higher));
                    tops = _mm256_or_si256(_mm256_andnot_si256(least, tops), bit);
                }
                widen(&mut inversions, &mut bytes);
            }
            for (out, vector) in lanes
                .iter_mut()
                .zip([inversions, tops, right, inverse_descents])
            {
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

    /// The four cards of one position of decks `4·half..4·half + 4`, one to a 64-bit lane.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn load_column(column: &[u8; LANES], half: usize) -> __m256i {
        let four = u32::from_le_bytes(std::array::from_fn(|byte| column[half * 4 + byte]));
        // Cards are below 64; saying so lets the compiler drop its handling of shifts by 64
        // or more in the variable shifts by a card.
        _mm256_and_si256(
            _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(four as i32)),
            _mm256_set1_epi64x(FUSED_MAX_DECK as i64 - 1),
        )
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
