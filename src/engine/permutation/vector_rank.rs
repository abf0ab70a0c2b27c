//! The lexicographic rank of a deck of 9 to 11 cards in a few vector instructions (x86-64 with
//! AVX-512 F, BW and VBMI): the same value as [`super::rank`], for the full tallies' decks and
//! their compositions, where the popcount chain of [`super::rank`] (one dependent step a card)
//! took a fifth of a 10-card run.
//!
//! **How.** The rank is Σ_r d_r·(n−1−r)!, where the Lehmer digit d_r counts the cards after slot
//! r that are smaller than card r; so it is a weighted count of the pairs of slots r < c whose
//! cards are out of order, deck[r] > deck[c]. A deck of n ≤ 11 cards has at most 55 such
//! pairs, one to a byte of a 64-byte vector:
//! 1. two byte permutations put deck[r] and deck[c] of each pair at the pair's byte, and one
//!    compare marks the pairs out of order;
//! 2. each marked byte takes its pair's weight, an integer ≤ 255, and the bytes are summed in
//!    groups of eight (`vpsadbw`);
//! 3. each group's sum is multiplied by the group's scale, and the eight products added.
//!
//! A pair of weight (n−1−r)! sits in a group whose scale divides it, at the quotient
//! ([`Layout`], built at compile time: rows of smaller weights first, each pair in the first
//! group with room whose scale divides its weight by at most 255, or else a new group of that
//! scale). At 10 cards the 45 pairs take six groups.
//!
//! Any 16 bytes give a rank below n! (each digit d_r is at most n−1−r, and
//! Σ (n−1−r)·(n−1−r)! = n! − 1), as the table rank's does, so the tally can be indexed with no
//! bounds check whatever the deck.

use crate::engine::algorithms::Card;
use crate::engine::permutation::FACTORIALS;
use std::arch::x86_64::{
    __m512i, _mm512_add_epi8, _mm512_cmpgt_epu8_mask, _mm512_loadu_si512,
    _mm512_maskz_loadu_epi8, _mm512_maskz_loadu_epi16, _mm512_maskz_mov_epi8, _mm512_mul_epu32,
    _mm512_permutexvar_epi8, _mm512_reduce_add_epi64, _mm512_sad_epu8, _mm512_setzero_si512,
};

/// The smallest deck ranked here (below it, two table look-ups are cheaper).
pub const FROM_DECK: usize = 9;

/// The largest: 55 pairs, the most that fit in 64 bytes.
pub const TO_DECK: usize = 11;

/// Where the pairs of slots of an n-card deck sit in a 64-byte vector, and what each counts.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
pub struct Layout {
    /// Byte k compares the card in slot `first[k]`…
    first: [u8; 64],
    /// …with the card in the later slot `later[k]` (unused bytes compare slot 0 with itself).
    later: [u8; 64],
    /// `first` and `later` as byte offsets of the low bytes of sixteen-bit cards: 2·slot.
    first_word: [u8; 64],
    later_word: [u8; 64],
    /// What byte k adds to its group of eight when its pair is out of order (0 if unused).
    weight: [u8; 64],
    /// Each group's scale, in the low half of a 64-bit lane.
    scale: [u64; 8],
}

/// The layout of `n`-card decks, or `None` if its pairs do not fit in eight groups.
pub const fn layout(n: usize) -> Option<Layout> {
    let mut layout = Layout {
        first: [0; 64],
        later: [0; 64],
        first_word: [0; 64],
        later_word: [0; 64],
        weight: [0; 64],
        scale: [0; 8],
    };
    let mut used = [0usize; 8];
    let mut groups = 0;
    if n < 2 || n > TO_DECK {
        return None;
    }
    // Rows of smaller weight first, so that a large weight finds a group whose scale divides it.
    let mut row = n - 1;
    while row > 0 {
        row -= 1;
        let weight = FACTORIALS[n - 1 - row];
        let mut later = row + 1;
        while later < n {
            let mut group = 0;
            while group < groups
                && !(used[group] < 8
                    && weight.is_multiple_of(layout.scale[group])
                    && weight / layout.scale[group] <= 255)
            {
                group += 1;
            }
            if group == groups {
                if groups == 8 {
                    return None;
                }
                layout.scale[group] = weight;
                groups += 1;
            }
            let byte = 8 * group + used[group];
            used[group] += 1;
            layout.first[byte] = row as u8;
            layout.later[byte] = later as u8;
            layout.first_word[byte] = 2 * row as u8;
            layout.later_word[byte] = 2 * later as u8;
            layout.weight[byte] = (weight / layout.scale[group]) as u8;
            later += 1;
        }
    }
    Some(layout)
}

/// The layouts by deck size, 2 to [`TO_DECK`] cards (those below [`FROM_DECK`] only tested).
static LAYOUTS: [Layout; TO_DECK + 1] = {
    let mut layouts = [match layout(2) {
        Some(layout) => layout,
        None => panic!("two cards fit"),
    }; TO_DECK + 1];
    let mut n = 2;
    while n <= TO_DECK {
        layouts[n] = match layout(n) {
            Some(layout) => layout,
            None => panic!("the pairs of a deck of at most 11 cards fit in eight groups"),
        };
        n += 1;
    }
    layouts
};

/// The rank of the deck whose cards' low bytes sit at the byte offsets `first` and `later`
/// name in `cards` (step 1 to 3 of the module documentation).
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn weighted_inversions(cards: __m512i, first: &[u8; 64], later: &[u8; 64], layout: &Layout) -> usize {
    // SAFETY (loads): each reads 64 bytes of a 64-byte array.
    let (first, later, weight, scale) = unsafe {
        (
            _mm512_loadu_si512(first.as_ptr().cast()),
            _mm512_loadu_si512(later.as_ptr().cast()),
            _mm512_loadu_si512(layout.weight.as_ptr().cast()),
            _mm512_loadu_si512(layout.scale.as_ptr().cast()),
        )
    };
    let before = _mm512_permutexvar_epi8(first, cards);
    let after = _mm512_permutexvar_epi8(later, cards);
    let out_of_order = _mm512_cmpgt_epu8_mask(before, after);
    let weights = _mm512_maskz_mov_epi8(out_of_order, weight);
    let sums = _mm512_sad_epu8(weights, _mm512_setzero_si512());
    _mm512_reduce_add_epi64(_mm512_mul_epu32(sums, scale)) as usize
}

/// The lexicographic rank of `deck` ([`super::rank`]), for FROM_DECK ≤ N ≤ TO_DECK.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub unsafe fn rank<const N: usize>(deck: &[Card; N]) -> usize {
    debug_assert!((FROM_DECK..=TO_DECK).contains(&N));
    let layout = &LAYOUTS[N];
    // SAFETY: the mask loads the N cards of `deck` and nothing past them.
    let cards = unsafe { _mm512_maskz_loadu_epi16((1 << N) - 1, deck.as_ptr().cast()) };
    // SAFETY: the CPU features are the caller's to ensure.
    unsafe { weighted_inversions(cards, &layout.first_word, &layout.later_word, layout) }
}

/// The rank of the composition π(c) = deck[slot_of[c]] (the card of `deck` at the slot where
/// the previous deck held card c), for FROM_DECK ≤ N ≤ TO_DECK; `slot_of` holds slots below N
/// (other values give a rank below N! all the same).
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub unsafe fn composition_rank<const N: usize>(deck: &[Card; N], slot_of: &[u8; N]) -> usize {
    debug_assert!((FROM_DECK..=TO_DECK).contains(&N));
    let layout = &LAYOUTS[N];
    // SAFETY: the masks load the N cards of `deck` and the N slots of `slot_of`, nothing past.
    let (cards, slots) = unsafe {
        (
            _mm512_maskz_loadu_epi16((1 << N) - 1, deck.as_ptr().cast()),
            _mm512_maskz_loadu_epi8((1 << N) - 1, slot_of.as_ptr().cast()),
        )
    };
    // Byte c of `composition` is the low byte of card slot_of[c] (at byte 2·slot_of[c]).
    let composition = _mm512_permutexvar_epi8(_mm512_add_epi8(slots, slots), cards);
    // SAFETY: the CPU features are the caller's to ensure.
    unsafe { weighted_inversions(composition, &layout.first, &layout.later, layout) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::permutation::{factorial, rank as scalar_rank, unrank};

    fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
    }

    /// The weights of each layout add up to the rank's: every pair (r, c) once, at weight
    /// (n−1−r)! = weight × scale, and the unused bytes at 0.
    #[test]
    fn each_layout_holds_every_pair_once_at_its_weight() {
        for n in 2..=TO_DECK {
            let layout = layout(n).expect("fits");
            let mut seen = vec![vec![0; n]; n];
            for byte in 0..64 {
                let weight = u64::from(layout.weight[byte]);
                if weight == 0 {
                    assert_eq!((layout.first[byte], layout.later[byte]), (0, 0));
                    continue;
                }
                let (r, c) = (usize::from(layout.first[byte]), usize::from(layout.later[byte]));
                assert!(r < c && c < n, "{n} cards: pair ({r}, {c})");
                assert_eq!(weight * layout.scale[byte / 8], FACTORIALS[n - 1 - r]);
                assert_eq!(usize::from(layout.first_word[byte]), 2 * r);
                assert_eq!(usize::from(layout.later_word[byte]), 2 * c);
                seen[r][c] += 1;
            }
            for (r, row) in seen.iter().enumerate() {
                for (c, &times) in row.iter().enumerate() {
                    assert_eq!(times, usize::from(r < c), "{n} cards: pair ({r}, {c})");
                }
            }
        }
        assert_eq!(layout(10).map(|l| l.scale.iter().filter(|&&s| s > 0).count()), Some(6));
    }

    /// Every 9-card deck, and 10- and 11-card decks spread over their ranks, against the
    /// popcount rank.
    #[test]
    fn ranks_as_the_popcount_chain_does() {
        if !available() {
            return;
        }
        fn check<const N: usize>(step: usize) {
            let cells = factorial(N) as usize;
            for r in (0..cells).step_by(step).chain([cells - 1]) {
                let deck: [Card; N] = unrank(r, N).try_into().expect("N cards");
                assert_eq!(scalar_rank(&deck), r);
                // SAFETY: the CPU has the features (checked above).
                assert_eq!(unsafe { rank(&deck) }, r, "{N} cards, rank {r}");
            }
        }
        check::<9>(1);
        check::<10>(101);
        check::<11>(10_007);
    }

    /// The composition's rank is the rank of the composition written out, for consecutive
    /// decks and for slots outside the deck (bounded all the same).
    #[test]
    fn ranks_compositions_as_written_out() {
        if !available() {
            return;
        }
        let cells = factorial(10) as usize;
        let mut previous: [Card; 10] = unrank(0, 10).try_into().expect("10 cards");
        for r in (0..cells).step_by(7919) {
            let deck: [Card; 10] = unrank(r, 10).try_into().expect("10 cards");
            let mut slot_of = [0u8; 10];
            for (s, &card) in previous.iter().enumerate() {
                slot_of[usize::from(card)] = s as u8;
            }
            let composition: [Card; 10] =
                std::array::from_fn(|c| deck[usize::from(slot_of[c])]);
            // SAFETY: the CPU has the features (checked above).
            assert_eq!(unsafe { composition_rank(&deck, &slot_of) }, scalar_rank(&composition));
            previous = deck;
        }
        // Not a permutation: still below 10!.
        let deck: [Card; 10] = [9; 10];
        // SAFETY: as above.
        assert!(unsafe { composition_rank(&deck, &[200; 10]) } < cells);
        assert!(unsafe { rank(&[300; 10]) } < cells);
    }
}
