//! The vector passes of the fused tally for decks of 65 to [`WORDS_MAX_DECK`] cards on CPUs
//! with AVX-512 (F, BW, VBMI, VPOPCNTDQ): the AVX-512 walks of decks of at most 64 cards
//! (`wide` in [`super`]) with every bit set of cards in W = 2 or 4 words of 64 bits (up to 128
//! cards, up to 256) and every deck in as many vectors of bytes. Tarot's 78 cards, two decks of
//! 52 (104), canasta's 108 and shoes of three or four decks (156, 208) take this path; without
//! it each deck went through the scalar statistics of [`super::MarginalTally`] one at a time (a
//! chain of dependent loads for the cycles, a search over words per card for the guessing game).
//!
//! - [`order_statistics`]: eight decks position by position, one deck to a 64-bit lane, the
//!   cards seen in W vectors (cards 0–63, 64–127, …): inversions, the guessing game and the
//!   descents of the inverse. The longest increasing subsequence is not walked: its exact law
//!   stops below 65 cards, so it is not tallied here.
//! - [`statistics`]: one deck in W vectors of bytes: fixed points, adjacent pairs, descents,
//!   valleys, colour changes and the footrule by comparisons, the cycles by pointer doubling
//!   over a table of 64·W entries (log2 of that many rounds: as many as any cycle needs).
//!
//! The definitions stay those of [`crate::engine::statistics`]; the tests check both passes
//! against the plain statistics deck by deck.

use super::{Card, LANES};
use crate::engine::statistics::Statistic;

/// The largest deck the word passes take (its cards are bytes).
pub(super) const WORDS_MAX_DECK: usize = 256;

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
/// `n` (65 to [`WORDS_MAX_DECK`]) cards laid end to end in `decks`. Only after [`available`].
#[inline(always)]
pub(super) fn order_statistics(decks: &[Card], n: usize) -> [[u16; 3]; LANES] {
    debug_assert!(available() && (65..=WORDS_MAX_DECK).contains(&n) && decks.len() == LANES * n);
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `available()` was true (the caller's promise).
        unsafe {
            if n <= 128 {
                x86::order_statistics::<2>(decks, n)
            } else {
                x86::order_statistics::<4>(decks, n)
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (decks, n);
        unreachable!("available() is false off x86-64")
    }
}

/// `[fixed points, cycles, 0, adjacent pairs kept, descents, footrule, valleys, colour
/// changes]` of one deck of 65 to [`WORDS_MAX_DECK`] cards (the third, the descents of the
/// inverse, comes from [`order_statistics`]). Only after [`available`].
#[inline(always)]
pub(super) fn statistics(deck: &[Card]) -> [u16; 8] {
    debug_assert!(available() && (65..=WORDS_MAX_DECK).contains(&deck.len()));
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `available()` was true (the caller's promise).
        unsafe {
            if deck.len() <= 128 {
                x86::statistics::<2>(deck)
            } else {
                x86::statistics::<4>(deck)
            }
        }
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

    /// A card of each lane as bits of the W words: its own bit, the cards above it, and the
    /// lanes whose card lies below each word (every card of that word above it).
    struct Bits<const W: usize> {
        bit: [__m512i; W],
        above: [__m512i; W],
        beyond: [__mmask8; W],
    }

    /// [`Bits`] of the cards of the lanes of `card`. Word w holds cards 64w to 64w + 63; a
    /// shift by card − 64w of 64 or more (wrapping, for a card below the word) gives 0, so the
    /// words a card is not in get no bit.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn bits<const W: usize>(card: __m512i) -> Bits<W> {
        let ones = _mm512_set1_epi64(1);
        let all_but_zero = _mm512_set1_epi64(!1u64 as i64);
        let start = |w: usize| _mm512_set1_epi64(64 * w as i64);
        let shift: [__m512i; W] = std::array::from_fn(|w| _mm512_sub_epi64(card, start(w)));
        let beyond: [__mmask8; W] = std::array::from_fn(|w| _mm512_cmplt_epu64_mask(card, start(w)));
        Bits {
            bit: std::array::from_fn(|w| _mm512_sllv_epi64(ones, shift[w])),
            above: std::array::from_fn(|w| {
                _mm512_mask_mov_epi64(
                    _mm512_sllv_epi64(all_but_zero, shift[w]),
                    beyond[w],
                    _mm512_set1_epi64(-1),
                )
            }),
            beyond,
        }
    }

    /// The eight cards of one position, one to a 64-bit lane.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn load_column(column: &[u8; LANES]) -> __m512i {
        // SAFETY: a column is 8 × 8 bits, one 64-bit load.
        let bytes = unsafe { _mm_loadl_epi64(column.as_ptr().cast()) };
        _mm512_cvtepu8_epi64(bytes)
    }

    /// Lanes whose sets `a` and `b` (W words each) share a card.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn meet<const W: usize>(a: [__m512i; W], b: [__m512i; W]) -> __mmask8 {
        let mut both = _mm512_and_si512(a[0], b[0]);
        for w in 1..W {
            both = _mm512_or_si512(both, _mm512_and_si512(a[w], b[w]));
        }
        _mm512_test_epi64_mask(both, both)
    }

    /// See [`super::order_statistics`]: the walk of `wide::x86::order_statistics` in
    /// [`super::super`], step for step, on W words. G, the side the next guess looks on first,
    /// and the cards above the last are W words each; "no unseen card in a set" is a test of
    /// every word.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vpopcntdq")]
    pub(super) fn order_statistics<const W: usize>(decks: &[Card], n: usize) -> [[u16; 3]; LANES] {
        // The decks transposed: `columns[word][position in the word][deck]`.
        let mut columns = [[[0u8; LANES]; 64]; W];
        for (word, columns) in columns.iter_mut().enumerate() {
            let cards = (64 * word).min(n)..(64 * word + 64).min(n);
            let rows: [__m512i; LANES] = std::array::from_fn(|lane| {
                byte_columns::deck_bytes(&decks[lane * n..][..n][cards.clone()])
            });
            byte_columns::rows_to_columns(&rows, columns);
        }
        let columns = &columns.as_flattened()[..n];
        let all: [__m512i; W] = std::array::from_fn(|w| {
            let cards = n.saturating_sub(64 * w).min(64);
            _mm512_set1_epi64(if cards == 64 {
                -1
            } else {
                ((1u64 << cards) - 1) as i64
            })
        });
        let ones = _mm512_set1_epi64(1);
        let zero = _mm512_setzero_si512();
        // The first card: nothing seen; the guess is card 0; it counts as a rise.
        let card = load_column(&columns[0]);
        let Bits { bit, above, .. } = bits::<W>(card);
        let mut seen = bit;
        let mut inversions = zero;
        let mut inverse_descents = zero;
        let mut right = _mm512_maskz_mov_epi64(_mm512_cmpeq_epi64_mask(card, zero), ones);
        let mut last = card;
        let mut last_above = above;
        let mut guess_side = above;
        for column in &columns[1..] {
            let card = load_column(column);
            let Bits { bit, above, beyond } = bits::<W>(card);
            let unseen_after: [__m512i; W] = std::array::from_fn(|w| {
                _mm512_andnot_si512(_mm512_or_si512(seen[w], bit[w]), all[w])
            });
            // On the side taken: the card is on G, or G has no unseen card.
            let on_side = meet(guess_side, bit) | !meet(guess_side, unseen_after);
            // No unseen card in (lower, higher] of the last and this card.
            let between: [__m512i; W] =
                std::array::from_fn(|w| _mm512_xor_si512(last_above[w], above[w]));
            let hit = on_side & !meet(between, unseen_after);
            right = _mm512_mask_add_epi64(right, hit, right, ones);
            // The next G: above this card after a rise, below it after a fall (bit − 1 over
            // the words: all of the words below the card's, nothing of those above it).
            let rising = _mm512_cmpgt_epu64_mask(card, last);
            guess_side = std::array::from_fn(|w| {
                let below = _mm512_maskz_sub_epi64(!beyond[w], bit[w], ones);
                _mm512_mask_blend_epi64(rising, below, above[w])
            });
            last = card;
            last_above = above;
            // A descent of the inverse: card + 1 seen before this card (the top bit of a word
            // moves up into bit 0 of the next; the last card has no card + 1).
            let next: [__m512i; W] = std::array::from_fn(|w| {
                let up = _mm512_slli_epi64::<1>(bit[w]);
                if w == 0 {
                    up
                } else {
                    _mm512_or_si512(up, _mm512_srli_epi64::<63>(bit[w - 1]))
                }
            });
            inverse_descents =
                _mm512_mask_add_epi64(inverse_descents, meet(seen, next), inverse_descents, ones);
            // Inversions: the cards above this one seen before it.
            for w in 0..W {
                inversions = _mm512_add_epi64(
                    inversions,
                    _mm512_popcnt_epi64(_mm512_and_si512(seen[w], above[w])),
                );
            }
            seen = std::array::from_fn(|w| _mm512_or_si512(seen[w], bit[w]));
        }
        let mut lanes = [[0u64; LANES]; 3];
        for (out, vector) in lanes
            .iter_mut()
            .zip([inversions, right, inverse_descents])
        {
            // SAFETY: eight 64-bit lanes into eight u64.
            unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), vector) };
        }
        std::array::from_fn(|lane| lanes.map(|values| values[lane] as u16))
    }

    /// See [`super::statistics`].
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
    pub(super) fn statistics<const V: usize>(deck: &[Card]) -> [u16; 8] {
        let n = deck.len();
        // The places of vector v that hold a card (64v + i), and those with a next card.
        let below = |end: usize, v: usize| {
            let count = end.saturating_sub(64 * v).min(64);
            if count == 64 {
                u64::MAX
            } else {
                (1u64 << count) - 1
            }
        };
        let cards: [u64; V] = std::array::from_fn(|v| below(n, v));
        let pairs: [u64; V] = std::array::from_fn(|v| below(n - 1, v));
        let identity = _mm512_set_epi8(
            63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42,
            41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20,
            19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
        );
        let places: [__m512i; V] = std::array::from_fn(|v| {
            _mm512_add_epi8(identity, _mm512_set1_epi8((64 * v) as u8 as i8))
        });
        // The deck in bytes, the places past n fixed points.
        let permutation: [__m512i; V] = std::array::from_fn(|v| {
            let part = &deck[(64 * v).min(n)..(64 * v + 64).min(n)];
            _mm512_mask_blend_epi8(cards[v], places[v], byte_columns::deck_bytes(part))
        });
        // next[i] = deck[i + 1]: place 63 of a vector reads place 0 of the next; the last
        // place of the last vector reads its own place 0 and is not a pair.
        let up = _mm512_add_epi8(identity, _mm512_set1_epi8(1));
        let next: [__m512i; V] = std::array::from_fn(|v| {
            if v + 1 < V {
                _mm512_permutex2var_epi8(permutation[v], up, permutation[v + 1])
            } else {
                _mm512_permutexvar_epi8(up, permutation[v])
            }
        });
        let one = _mm512_set1_epi8(1);
        let fixed: [u64; V] =
            std::array::from_fn(|v| _mm512_cmpeq_epi8_mask(permutation[v], places[v]) & cards[v]);
        // Card c followed by c + 1, but for card 255 (of 256), whose c + 1 wraps to card 0.
        let last_card = _mm512_set1_epi8(-1);
        let adjacent: [u64; V] = std::array::from_fn(|v| {
            _mm512_cmpeq_epi8_mask(next[v], _mm512_add_epi8(permutation[v], one))
                & !_mm512_cmpeq_epi8_mask(permutation[v], last_card)
                & pairs[v]
        });
        let descents: [u64; V] =
            std::array::from_fn(|v| _mm512_cmplt_epu8_mask(next[v], permutation[v]) & pairs[v]);
        // Cycles by pointer doubling (see `wide`): after k rounds least(i) is the least of
        // i, p(i), …, p^(2^k − 1)(i); 2^rounds = 64·V ≥ any cycle. A lookup in the table of
        // 128 entries is one two-source byte permutation, in that of 256 two and a blend.
        let rounds = (64 * V).trailing_zeros();
        let mut least = places;
        let mut power = permutation;
        for round in 0..rounds {
            least = std::array::from_fn(|v| _mm512_min_epu8(least[v], byte_columns::look_up(&least, power[v])));
            if round + 1 < rounds {
                power = std::array::from_fn(|v| byte_columns::look_up(&power, power[v]));
            }
        }
        let cycles: [u64; V] =
            std::array::from_fn(|v| _mm512_cmpeq_epi8_mask(least[v], places[v]) & cards[v]);
        // A valley at i: a descent ending at i (bit i − 1, across the words) and none starting
        // there.
        let valleys: [u64; V] = std::array::from_fn(|v| {
            let before = if v == 0 { 0 } else { descents[v - 1] >> 63 };
            ((descents[v] << 1) | before) & !descents[v] & pairs[v]
        });
        // Red cards are those below reds(n); a change of colour between i and i + 1.
        let red_below = _mm512_set1_epi8(reds(n) as u8 as i8);
        let red: [u64; V] = std::array::from_fn(|v| {
            _mm512_cmplt_epu8_mask(permutation[v], red_below) & cards[v]
        });
        let colour: [u64; V] = std::array::from_fn(|v| {
            let after = if v + 1 < V { red[v + 1] << 63 } else { 0 };
            (red[v] ^ ((red[v] >> 1) | after)) & pairs[v]
        });
        // Σ|card − place|; the places past n hold their own place.
        let mut footrule = _mm512_setzero_si512();
        for v in 0..V {
            footrule = _mm512_add_epi64(footrule, _mm512_sad_epu8(permutation[v], places[v]));
        }
        let footrule = _mm512_reduce_add_epi64(footrule) as u16;
        let count = |words: [u64; V]| words.iter().map(|w| w.count_ones()).sum::<u32>() as u16;
        [
            count(fixed),
            count(cycles),
            0,
            count(adjacent),
            count(descents),
            footrule,
            count(valleys),
            count(colour),
        ]
    }
}
