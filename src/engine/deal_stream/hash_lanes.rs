//! [`hash_deal`] of eight deals at once on CPUs with AVX-512: deal j in 64-bit lane j, each
//! 64×64→128-bit product built from four 32×32→64-bit ones. The values are [`hash_deal`]'s,
//! bit for bit (fingerprints are kept in shards and tally files); the words, offsets and
//! avalanche are the functions it is written with.

use super::repeats::hash_deal;
use crate::engine::algorithms::Card;

/// Deals hashed at once: the 64-bit lanes of a 512-bit register.
const LANES: usize = 8;

/// `each(hash_deal(deal))` for the deals of `deals` (K = `dealt` cards each) in order: eight
/// at a time where the CPU has AVX-512, the rest one at a time.
#[inline]
pub(super) fn hash_deals(deals: &[Card], dealt: usize, mut each: impl FnMut(u128)) {
    debug_assert!(dealt > 0 && deals.len().is_multiple_of(dealt));
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if deals.len() >= LANES * dealt && x86::available() {
        let mut prints = [0u128; LANES];
        for group in deals.chunks_exact(LANES * dealt) {
            // SAFETY: `available` found AVX-512F on this CPU.
            unsafe { x86::hash_eight(group, dealt, &mut prints) };
            for &print in &prints {
                each(print);
            }
        }
        done = deals.len() / (LANES * dealt) * LANES * dealt;
    }
    for deal in deals[done..].chunks_exact(dealt) {
        each(hash_deal(deal));
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::LANES;
    use crate::engine::algorithms::Card;
    use crate::engine::deal_stream::repeats::{
        HASH_MULTIPLIERS, HASH_PLACE, hash_finish, hash_last_word, hash_word,
    };
    use std::arch::x86_64::{
        __m512i, _mm512_add_epi64, _mm512_and_si512, _mm512_loadu_si512, _mm512_mul_epu32,
        _mm512_or_si512, _mm512_set1_epi64, _mm512_setzero_si512, _mm512_slli_epi64,
        _mm512_srli_epi64, _mm512_storeu_si512, _mm512_xor_si512,
    };

    /// Whether this CPU runs [`hash_eight`].
    pub(super) fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
    }

    /// The hashes of the eight deals of `group` (K = `dealt` cards each) into `prints`.
    ///
    /// # Safety
    /// The CPU must support AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn hash_eight(group: &[Card], dealt: usize, prints: &mut [u128; LANES]) {
        assert_eq!(group.len(), LANES * dealt);
        let low32 = _mm512_set1_epi64(0xffff_ffff);
        let multipliers = HASH_MULTIPLIERS
            .map(|m| (_mm512_set1_epi64(m as i64), _mm512_set1_epi64((m >> 32) as i64)));
        let mut halves = [_mm512_setzero_si512(); 2];
        let mut place = 0u64;
        // One word of each deal: offset by its place, then each half adds high ⊕ low of the
        // 128-bit product (x ⊕ m)·m, from the 32-bit halves of x ⊕ m and of m.
        let mut absorb = |words: [u64; LANES], halves: &mut [__m512i; 2]| {
            place = place.wrapping_add(HASH_PLACE);
            // SAFETY: an unaligned load of 64 bytes from an array of 64 bytes.
            let words = unsafe { _mm512_loadu_si512(words.as_ptr().cast()) };
            let x = _mm512_add_epi64(words, _mm512_set1_epi64(place as i64));
            for (half, &(m, m_high)) in halves.iter_mut().zip(&multipliers) {
                let y = _mm512_xor_si512(x, m);
                let y_high = _mm512_srli_epi64::<32>(y);
                let low_low = _mm512_mul_epu32(y, m);
                let low_high = _mm512_mul_epu32(y, m_high);
                let high_low = _mm512_mul_epu32(y_high, m);
                let high_high = _mm512_mul_epu32(y_high, m_high);
                // Bits 32 to 95 of the product's middle: at most 3·(2^32 − 1), no overflow.
                let middle = _mm512_add_epi64(
                    _mm512_srli_epi64::<32>(low_low),
                    _mm512_add_epi64(
                        _mm512_and_si512(low_high, low32),
                        _mm512_and_si512(high_low, low32),
                    ),
                );
                let low = _mm512_or_si512(
                    _mm512_and_si512(low_low, low32),
                    _mm512_slli_epi64::<32>(middle),
                );
                let high = _mm512_add_epi64(
                    _mm512_add_epi64(high_high, _mm512_srli_epi64::<32>(middle)),
                    _mm512_add_epi64(
                        _mm512_srli_epi64::<32>(low_high),
                        _mm512_srli_epi64::<32>(high_low),
                    ),
                );
                *half = _mm512_add_epi64(*half, _mm512_xor_si512(high, low));
            }
        };
        for word in 0..dealt / 4 {
            let words: [u64; LANES] =
                std::array::from_fn(|lane| hash_word(&group[lane * dealt + 4 * word..][..4]));
            absorb(words, &mut halves);
        }
        let last: [u64; LANES] =
            std::array::from_fn(|lane| hash_last_word(&group[lane * dealt..][..dealt]));
        absorb(last, &mut halves);
        let mut sums = [[0u64; LANES]; 2];
        for (sums, half) in sums.iter_mut().zip(halves) {
            // SAFETY: an unaligned store of 64 bytes into an array of 64 bytes.
            unsafe { _mm512_storeu_si512(sums.as_mut_ptr().cast(), half) };
        }
        for (lane, print) in prints.iter_mut().enumerate() {
            *print = hash_finish([sums[0][lane], sums[1][lane]]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deals_hashed_eight_at_a_time_have_the_hashes_of_one_at_a_time() {
        // Lengths 1 to 70 and 130 (every remainder of 4), 0 to 20 deals (none, fewer than
        // eight, two groups of eight and a rest), cards up to 999 from a fixed SplitMix64
        // stream. On a CPU without AVX-512 both sides are `hash_deal`.
        let mut state = 29u64;
        let mut next = || crate::engine::random_source::splitmix64(&mut state);
        for dealt in (1..=70).chain([130]) {
            for count in [0, 1, 7, 8, 9, 16, 20] {
                let deals: Vec<Card> = (0..count * dealt)
                    .map(|_| (next() % 1000) as Card)
                    .collect();
                let mut hashed = Vec::new();
                hash_deals(&deals, dealt, |print| hashed.push(print));
                let one_at_a_time: Vec<u128> =
                    deals.chunks_exact(dealt).map(hash_deal).collect();
                assert_eq!(hashed, one_at_a_time, "{dealt} cards, {count} deals");
            }
        }
    }
}
