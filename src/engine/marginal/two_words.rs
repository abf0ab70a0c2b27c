//! The vector passes of the fused tally for decks of 65 to [`TWO_WORD_MAX_DECK`] cards on CPUs
//! with AVX-512 (F, BW, VBMI, VPOPCNTDQ): the AVX-512 walks of decks of at most 64 cards
//! (`wide` in [`super`]) with every bit set of cards in two 64-bit words and every deck in two
//! vectors of bytes. Tarot's 78 cards, two decks of 52 (104) and canasta's 108 take this path;
//! without it each deck went through the scalar statistics of [`super::MarginalTally`] one at a
//! time (a chain of dependent loads for the cycles, a branch per card for the guessing game).
//!
//! - [`order_statistics`]: eight decks position by position, one deck to a 64-bit lane, the
//!   cards seen in two vectors (cards 0–63 and 64–127): inversions, the guessing game and the
//!   descents of the inverse. The longest increasing subsequence is not walked: its exact law
//!   stops below 65 cards, so it is not tallied here.
//! - [`statistics`]: one deck in two vectors of bytes: fixed points, adjacent pairs, descents,
//!   valleys, colour changes and the footrule by comparisons, the cycles by pointer doubling
//!   over a 128-entry table (seven rounds: 2^7 ≥ any cycle).
//!
//! The definitions stay those of [`crate::engine::statistics`]; the tests check both passes
//! against [`super::MarginalTally::add`] deck by deck.

use super::{Card, LANES};
use crate::engine::statistics::Statistic;

/// The largest deck the two-word passes take.
pub(super) const TWO_WORD_MAX_DECK: usize = 128;

// The longest increasing subsequence is tallied only where its exact law is computed, below the
// decks of this path, which leaves it out.
const _: () = assert!(Statistic::LongestIncreasing.max_exact_deck() < 65);

/// Whether this CPU runs [`order_statistics`] and [`statistics`].
pub(super) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
            && std::arch::is_x86_feature_detected!("popcnt")
            && crate::engine::byte_columns::available()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `[inversions, guessing game score, descents of the inverse]` of exactly [`LANES`] decks of
/// `n` (65 to [`TWO_WORD_MAX_DECK`]) cards laid end to end in `decks`. Only after
/// [`available`].
#[inline(always)]
pub(super) fn order_statistics(decks: &[Card], n: usize) -> [[u16; 3]; LANES] {
    debug_assert!(
        available() && (65..=TWO_WORD_MAX_DECK).contains(&n) && decks.len() == LANES * n
    );
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `available()` was true (the caller's promise).
        unsafe { x86::order_statistics(decks, n) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (decks, n);
        unreachable!("available() is false off x86-64")
    }
}

/// `[fixed points, cycles, 0, adjacent pairs kept, descents, footrule, valleys, colour
/// changes]` of one deck of 65 to [`TWO_WORD_MAX_DECK`] cards (the third, the descents of the
/// inverse, comes from [`order_statistics`]). Only after [`available`].
#[inline(always)]
pub(super) fn statistics(deck: &[Card]) -> [u16; 8] {
    debug_assert!(available() && (65..=TWO_WORD_MAX_DECK).contains(&deck.len()));
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `available()` was true (the caller's promise).
        unsafe { x86::statistics(deck) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = deck;
        unreachable!("available() is false off x86-64")
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Card, LANES};
    use crate::engine::byte_columns;
    use crate::engine::statistics::reds;
    use std::arch::x86_64::*;

    /// A card of each lane as bits of the two words: its own bit, the cards above it, and
    /// whether it lies in the second word (cards 64–127).
    struct Bits {
        bit: [__m512i; 2],
        above: [__m512i; 2],
        high: __mmask8,
    }

    /// [`Bits`] of the cards of the lanes of `card`. A shift by 64 or more gives 0, so the
    /// word a card is not in gets no bit; below card 64 every card of the second word is
    /// above it.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn bits(card: __m512i) -> Bits {
        let ones = _mm512_set1_epi64(1);
        let all_but_zero = _mm512_set1_epi64(!1u64 as i64);
        // Card − 64: wraps, far past 63, for the cards of the first word.
        let in_high = _mm512_sub_epi64(card, _mm512_set1_epi64(64));
        let high = _mm512_cmpge_epu64_mask(card, _mm512_set1_epi64(64));
        Bits {
            bit: [_mm512_sllv_epi64(ones, card), _mm512_sllv_epi64(ones, in_high)],
            above: [
                _mm512_sllv_epi64(all_but_zero, card),
                _mm512_mask_mov_epi64(
                    _mm512_sllv_epi64(all_but_zero, in_high),
                    !high,
                    _mm512_set1_epi64(-1),
                ),
            ],
            high,
        }
    }

    /// The eight cards of one position, one to a 64-bit lane (masked to 7 bits: cards are
    /// below 128).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn load_column(column: &[u8; LANES]) -> __m512i {
        // SAFETY: a column is 8 × 8 bits, one 64-bit load.
        let bytes = unsafe { _mm_loadl_epi64(column.as_ptr().cast()) };
        _mm512_cvtepu8_epi64(_mm_and_si128(bytes, _mm_set1_epi8(127)))
    }

    /// Lanes whose two words `a` and `b` share a bit.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn meet(a: [__m512i; 2], b: [__m512i; 2]) -> __mmask8 {
        _mm512_test_epi64_mask(a[0], b[0]) | _mm512_test_epi64_mask(a[1], b[1])
    }

    /// See [`super::order_statistics`]: the walk of `wide::x86::order_statistics` in
    /// [`super::super`], step for step, on two words. G, the side the next guess looks on
    /// first, and the cards above the last are two words each; "no unseen card in a set" is a
    /// test of both words.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vpopcntdq")]
    pub(super) fn order_statistics(decks: &[Card], n: usize) -> [[u16; 3]; LANES] {
        // The decks transposed: `columns[position][deck]`, cards 0–63 of each deck, then the
        // rest.
        let mut columns = [[0u8; LANES]; 2 * 64];
        let (first, second) = columns.split_at_mut(64);
        let first: &mut [[u8; LANES]; 64] = first.try_into().expect("64 positions");
        let second: &mut [[u8; LANES]; 64] = second.try_into().expect("64 positions");
        let rows: [__m512i; LANES] =
            std::array::from_fn(|lane| byte_columns::deck_bytes(&decks[lane * n..][..64]));
        byte_columns::rows_to_columns(&rows, first);
        let rows: [__m512i; LANES] =
            std::array::from_fn(|lane| byte_columns::deck_bytes(&decks[lane * n + 64..][..n - 64]));
        byte_columns::rows_to_columns(&rows, second);
        let all = [
            _mm512_set1_epi64(-1),
            _mm512_set1_epi64(if n == 128 {
                -1
            } else {
                ((1u64 << (n - 64)) - 1) as i64
            }),
        ];
        let ones = _mm512_set1_epi64(1);
        let zero = _mm512_setzero_si512();
        // The first card: nothing seen; the guess is card 0; it counts as a rise.
        let card = load_column(&columns[0]);
        let Bits { bit, above, .. } = bits(card);
        let mut seen = bit;
        let mut inversions = zero;
        let mut inverse_descents = zero;
        let mut right = _mm512_maskz_mov_epi64(_mm512_cmpeq_epi64_mask(card, zero), ones);
        let mut last = card;
        let mut last_above = above;
        let mut guess_side = above;
        for column in &columns[1..n] {
            let card = load_column(column);
            let Bits { bit, above, high } = bits(card);
            let unseen_after: [__m512i; 2] =
                std::array::from_fn(|w| _mm512_andnot_si512(_mm512_or_si512(seen[w], bit[w]), all[w]));
            // On the side taken: the card is on G, or G has no unseen card.
            let on_side = meet(guess_side, bit) | !meet(guess_side, unseen_after);
            // No unseen card in (lower, higher] of the last and this card.
            let between: [__m512i; 2] =
                std::array::from_fn(|w| _mm512_xor_si512(last_above[w], above[w]));
            let hit = on_side & !meet(between, unseen_after);
            right = _mm512_mask_add_epi64(right, hit, right, ones);
            // The next G: above this card after a rise, below it after a fall (bit − 1 over
            // both words: all of the first word below a card of the second, nothing of the
            // second below a card of the first).
            let rising = _mm512_cmpgt_epu64_mask(card, last);
            let below = [
                _mm512_sub_epi64(bit[0], ones),
                _mm512_maskz_sub_epi64(high, bit[1], ones),
            ];
            guess_side = std::array::from_fn(|w| _mm512_mask_blend_epi64(rising, below[w], above[w]));
            last = card;
            last_above = above;
            // A descent of the inverse: card + 1 seen before this card (bit 63 moves up into
            // bit 0 of the second word; card 127 has no card + 1).
            let next = [
                _mm512_slli_epi64::<1>(bit[0]),
                _mm512_or_si512(_mm512_slli_epi64::<1>(bit[1]), _mm512_srli_epi64::<63>(bit[0])),
            ];
            inverse_descents =
                _mm512_mask_add_epi64(inverse_descents, meet(seen, next), inverse_descents, ones);
            // Inversions: the cards above this one seen before it.
            inversions = _mm512_add_epi64(
                inversions,
                _mm512_add_epi64(
                    _mm512_popcnt_epi64(_mm512_and_si512(seen[0], above[0])),
                    _mm512_popcnt_epi64(_mm512_and_si512(seen[1], above[1])),
                ),
            );
            seen = std::array::from_fn(|w| _mm512_or_si512(seen[w], bit[w]));
        }
        let mut lanes = [[0u64; LANES]; 3];
        for (out, vector) in lanes.iter_mut().zip([inversions, right, inverse_descents]) {
            // SAFETY: eight 64-bit lanes into eight u64.
            unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), vector) };
        }
        std::array::from_fn(|lane| lanes.map(|values| values[lane] as u16))
    }

    /// See [`super::statistics`].
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
    pub(super) fn statistics(deck: &[Card]) -> [u16; 8] {
        let n = deck.len();
        // The positions of the second vector that hold a card (64 + i for i below this).
        let second: u64 = if n == 128 {
            u64::MAX
        } else {
            (1u64 << (n - 64)) - 1
        };
        let identity = _mm512_set_epi8(
            63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42,
            41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20,
            19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
        );
        let places = [identity, _mm512_add_epi8(identity, _mm512_set1_epi8(64))];
        // The deck in bytes, the places past n fixed points.
        let permutation = [
            byte_columns::deck_bytes(&deck[..64]),
            _mm512_mask_blend_epi8(second, places[1], byte_columns::deck_bytes(&deck[64..])),
        ];
        let fixed = (_mm512_cmpeq_epi8_mask(permutation[0], places[0]), {
            _mm512_cmpeq_epi8_mask(permutation[1], places[1]) & second
        });
        // next[i] = deck[i + 1]: place 63 reads place 0 of the second vector; the last place
        // of the second reads its own place 0 and is masked off.
        let up = _mm512_add_epi8(identity, _mm512_set1_epi8(1));
        let next = [
            _mm512_permutex2var_epi8(permutation[0], up, permutation[1]),
            _mm512_permutexvar_epi8(up, permutation[1]),
        ];
        // Places 0..n − 1: each with a next card.
        let pairs = u128::from(u64::MAX) | u128::from(second >> 1) << 64;
        let both = |low: u64, high: u64| (u128::from(low) | u128::from(high) << 64) & pairs;
        let one = _mm512_set1_epi8(1);
        let adjacent = both(
            _mm512_cmpeq_epi8_mask(next[0], _mm512_add_epi8(permutation[0], one)),
            _mm512_cmpeq_epi8_mask(next[1], _mm512_add_epi8(permutation[1], one)),
        );
        let descents = both(
            _mm512_cmplt_epu8_mask(next[0], permutation[0]),
            _mm512_cmplt_epu8_mask(next[1], permutation[1]),
        );
        // Cycles by pointer doubling over the 128-entry table (see `wide`): x∘y in two
        // two-source byte permutations, which read the low 7 bits of each index.
        let compose = |x: [__m512i; 2], y: [__m512i; 2]| {
            [
                _mm512_permutex2var_epi8(x[0], y[0], x[1]),
                _mm512_permutex2var_epi8(x[0], y[1], x[1]),
            ]
        };
        let mut least = places;
        let mut power = permutation;
        for round in 0..7 {
            let further = compose(least, power);
            least = [
                _mm512_min_epu8(least[0], further[0]),
                _mm512_min_epu8(least[1], further[1]),
            ];
            if round < 6 {
                power = compose(power, power);
            }
        }
        let cycles = (
            _mm512_cmpeq_epi8_mask(least[0], places[0]),
            _mm512_cmpeq_epi8_mask(least[1], places[1]) & second,
        );
        // A valley at i: a descent ending at i and none starting there.
        let valleys = (descents << 1) & !descents & pairs;
        let red = _mm512_set1_epi8(reds(n) as i8);
        let red = (u128::from(_mm512_cmplt_epu8_mask(permutation[0], red))
            | u128::from(_mm512_cmplt_epu8_mask(permutation[1], red) & second) << 64)
            & (u128::from(u64::MAX) | u128::from(second) << 64);
        let colour = (red ^ (red >> 1)) & pairs;
        // Σ|card − place|; the places past n hold their own place.
        let footrule = _mm512_reduce_add_epi64(_mm512_add_epi64(
            _mm512_sad_epu8(permutation[0], places[0]),
            _mm512_sad_epu8(permutation[1], places[1]),
        )) as u16;
        let count = |(low, high): (u64, u64)| (low.count_ones() + high.count_ones()) as u16;
        [
            count(fixed),
            count(cycles),
            0,
            adjacent.count_ones() as u16,
            descents.count_ones() as u16,
            footrule,
            valleys.count_ones() as u16,
            colour.count_ones() as u16,
        ]
    }
}
