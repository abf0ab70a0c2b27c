//! The element-wise statistics and the cycles of a deck with AVX2, for CPUs without the
//! AVX-512 path of `wide::statistics`: the deck as 64 bytes in two 256-bit vectors (the lanes
//! past n hold their own position, fixed points that every count masks off), so that fixed
//! points, adjacent pairs, descents, the descents of the inverse, valleys and colour changes
//! are a comparison and a bit mask each, the footrule a sum of absolute differences, and the
//! cycles are counted by pointer doubling instead of a walk of dependent loads: after k rounds
//! of `m ← min(m, m∘p)`, `p ← p∘p` (from m = identity), m(i) is the least of i, p(i), …,
//! p^(2^k − 1)(i), so after six rounds (2^6 = 64 ≥ any cycle) the least card of i's cycle, and
//! the cycles are the i with m(i) = i. AVX2 has no byte permutation across 64 bytes; each is
//! made of four 16-byte lookups (`vpshufb`, one per 16-byte block of the table, broadcast to
//! both halves of a vector) and three byte blends chosen by bits 4 and 5 of the index.

use super::{Card, FUSED_MAX_DECK, LANES};

/// Whether this CPU runs [`statistics`].
pub(super) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `[fixed points, cycles, descents of the inverse, adjacent pairs kept, descents, footrule,
/// valleys, colour changes]` of each deck of `n` (1 ≤ n ≤ 64) cards laid end to end in `decks`
/// (at most [`LANES`]), whose inverses are `inverses[..][..n]` — or, without them, with the
/// descents of the inverse left 0 (the caller has them from elsewhere); the entries past the
/// decks are left 0. Only after [`available`].
#[inline(always)]
pub(super) fn statistics(
    decks: &[Card],
    n: usize,
    inverses: Option<&[[u8; FUSED_MAX_DECK]; LANES]>,
) -> [[u16; 8]; LANES] {
    debug_assert!(available() && (1..=FUSED_MAX_DECK).contains(&n) && decks.len() <= LANES * n);
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `available()` was true (asked in `FusedMarginalTally::new`).
        unsafe { x86::statistics_of_decks(decks, n, inverses) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (decks, n, inverses);
        unreachable!("available() is false off x86-64")
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Card, FUSED_MAX_DECK, LANES};
    use crate::engine::statistics::reds;
    use std::arch::x86_64::*;

    /// 64 bytes: positions 0..32 in the first vector, 32..64 in the second.
    type Bytes = [__m256i; 2];

    /// See [`super::statistics`]: one call for the batch, the decks' work inlined.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) fn statistics_of_decks(
        decks: &[Card],
        n: usize,
        inverses: Option<&[[u8; FUSED_MAX_DECK]; LANES]>,
    ) -> [[u16; 8]; LANES] {
        let mut values = [[0; 8]; LANES];
        for (index, values) in values.iter_mut().take(decks.len() / n).enumerate() {
            let inverse = inverses.map(|inverses| &inverses[index]);
            let start = index * n;
            // A deck is read as 64 cards; the last decks of a batch are copied out first, so
            // that no read passes the end of `decks` (the cards past n are blended away).
            let window: &[Card; FUSED_MAX_DECK] = match decks.get(start..start + FUSED_MAX_DECK) {
                Some(window) => window.try_into().expect("64 cards"),
                None => {
                    let mut copy = [0; FUSED_MAX_DECK];
                    copy[..n].copy_from_slice(&decks[start..start + n]);
                    *values = statistics(&copy, n, inverse);
                    continue;
                }
            };
            *values = statistics(window, n, inverse);
        }
        values
    }

    /// The positions 0..64 as bytes.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn identity() -> Bytes {
        [
            _mm256_setr_epi8(
                0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                23, 24, 25, 26, 27, 28, 29, 30, 31,
            ),
            _mm256_setr_epi8(
                32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52,
                53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
            ),
        ]
    }

    /// One bit per byte: bit i set when byte i has its top bit set.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn mask(bytes: Bytes) -> u64 {
        let low = _mm256_movemask_epi8(bytes[0]) as u32;
        let high = _mm256_movemask_epi8(bytes[1]) as u32;
        u64::from(low) | u64::from(high) << 32
    }

    /// `bytes[i + 1]` at position i (position 63 reads 0).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn next(bytes: Bytes) -> Bytes {
        let [low, high] = bytes;
        // The 16-byte blocks above each block of `low`, and of `high` (zeros past the end).
        let above_low = _mm256_permute2x128_si256::<0x21>(low, high);
        let above_high = _mm256_permute2x128_si256::<0x81>(high, high);
        [
            _mm256_alignr_epi8::<1>(above_low, low),
            _mm256_alignr_epi8::<1>(above_high, high),
        ]
    }

    /// `table[index[i]]` at every position i, for indices below 64.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn look_up(table: Bytes, index: Bytes) -> Bytes {
        // Each 16-byte block of the table in both halves of a vector.
        let blocks = [
            _mm256_permute2x128_si256::<0x00>(table[0], table[0]),
            _mm256_permute2x128_si256::<0x11>(table[0], table[0]),
            _mm256_permute2x128_si256::<0x00>(table[1], table[1]),
            _mm256_permute2x128_si256::<0x11>(table[1], table[1]),
        ];
        index.map(|index| {
            // `vpshufb` reads the low four bits of an index; the byte blends read the top bit
            // of a byte, so bits 4 and 5 are shifted there (the bits shifted in from the byte
            // below land under bit 7 and are not read).
            let bit_4 = _mm256_slli_epi16::<3>(index);
            let bit_5 = _mm256_slli_epi16::<2>(index);
            let first = _mm256_blendv_epi8(
                _mm256_shuffle_epi8(blocks[0], index),
                _mm256_shuffle_epi8(blocks[1], index),
                bit_4,
            );
            let second = _mm256_blendv_epi8(
                _mm256_shuffle_epi8(blocks[2], index),
                _mm256_shuffle_epi8(blocks[3], index),
                bit_4,
            );
            _mm256_blendv_epi8(first, second, bit_5)
        })
    }

    /// The statistics of one deck (see [`super::statistics`]), read from the first n of 64
    /// cards.
    #[target_feature(enable = "avx2,popcnt")]
    #[inline]
    fn statistics(
        window: &[Card; FUSED_MAX_DECK],
        n: usize,
        inverse: Option<&[u8; FUSED_MAX_DECK]>,
    ) -> [u16; 8] {
        let lanes = if n == FUSED_MAX_DECK {
            u64::MAX
        } else {
            (1u64 << n) - 1
        };
        let pairs = lanes >> 1;
        let identity = identity();
        // The cards as bytes (they are below 64): `packus` packs 128-bit blocks in turn, so the
        // 64-bit quarters are put back in order.
        let words: [__m256i; 4] = std::array::from_fn(|quarter| {
            // SAFETY: 16 cards of the 64 in `window`.
            unsafe { _mm256_loadu_si256(window[quarter * 16..].as_ptr().cast()) }
        });
        let packed = [
            _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(words[0], words[1])),
            _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(words[2], words[3])),
        ];
        // The positions past n hold themselves.
        let count = _mm256_set1_epi8(n as i8);
        let deck: Bytes = std::array::from_fn(|half| {
            let inside = _mm256_cmpgt_epi8(count, identity[half]);
            _mm256_blendv_epi8(identity[half], packed[half], inside)
        });
        let fixed = mask(std::array::from_fn(|half| {
            _mm256_cmpeq_epi8(deck[half], identity[half])
        })) & lanes;
        let following = next(deck);
        let one = _mm256_set1_epi8(1);
        let adjacent = mask(std::array::from_fn(|half| {
            _mm256_cmpeq_epi8(following[half], _mm256_add_epi8(deck[half], one))
        })) & pairs;
        // Bytes below 128 compare the same signed or not.
        let descents = mask(std::array::from_fn(|half| {
            _mm256_cmpgt_epi8(deck[half], following[half])
        })) & pairs;
        let inverse_descents = inverse.map_or(0, |inverse| {
            // SAFETY: `inverse` is 64 bytes.
            let inverse: Bytes = std::array::from_fn(|half| unsafe {
                _mm256_loadu_si256(inverse[half * 32..].as_ptr().cast())
            });
            let after_inverse = next(inverse);
            mask(std::array::from_fn(|half| {
                _mm256_cmpgt_epi8(inverse[half], after_inverse[half])
            })) & pairs
        });
        // A valley at i: a descent ending at i (bit i − 1) and a rise after it (no descent at i).
        let valleys = (descents << 1) & !descents & pairs;
        // Red cards are those below reds(n); a change of colour between i and i + 1.
        let red_limit = _mm256_set1_epi8(reds(n) as i8);
        let red = mask(std::array::from_fn(|half| {
            _mm256_cmpgt_epi8(red_limit, deck[half])
        })) & lanes;
        let colour = (red ^ (red >> 1)) & pairs;
        // Σ|card − position|: sums of absolute byte differences, eight bytes to a 64-bit lane
        // (the positions past n hold themselves: 0).
        let sums = _mm256_add_epi64(
            _mm256_sad_epu8(deck[0], identity[0]),
            _mm256_sad_epu8(deck[1], identity[1]),
        );
        let sums = _mm_add_epi64(
            _mm256_castsi256_si128(sums),
            _mm256_extracti128_si256::<1>(sums),
        );
        let footrule = (_mm_cvtsi128_si64(sums) + _mm_extract_epi64::<1>(sums)) as u16;
        // The cycles, by pointer doubling.
        let mut least = identity;
        let mut power = deck;
        for round in 0..6 {
            let further = look_up(least, power);
            least = std::array::from_fn(|half| _mm256_min_epu8(least[half], further[half]));
            if round < 5 {
                power = look_up(power, power);
            }
        }
        let cycles = mask(std::array::from_fn(|half| {
            _mm256_cmpeq_epi8(least[half], identity[half])
        })) & lanes;
        super::super::values_of_masks(
            [
                fixed,
                cycles,
                inverse_descents,
                adjacent,
                descents,
                valleys,
                colour,
            ],
            footrule,
        )
    }
}
