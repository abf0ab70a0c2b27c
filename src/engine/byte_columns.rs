//! Eight decks of at most 64 cards turned into columns in vector registers: each deck packed
//! to one 512-bit row of bytes ([`deck_bytes`]), and eight rows transposed to 64 columns of
//! eight bytes, `columns[slot][lane]` ([`rows_to_columns`]), for the loops that walk eight
//! decks position by position, one deck to a 64-bit lane (the Mallows kernel's distances,
//! the order statistics of the marginal tally). Card by card, the transposition costs a load
//! and a store per card; here it is 24 two-source byte, word and double-word permutations for
//! the eight decks. x86-64 with AVX-512 F, BW and VBMI only ([`available`]).

/// Decks a transposition takes, one to a 64-bit lane.
pub const ROWS: usize = 8;

/// Whether this CPU runs [`deck_bytes`] and [`rows_to_columns`] (AVX-512 F, BW and VBMI).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// An index vector of a two-source permutation, as its 64 bytes: elements of `width` bytes
/// (64/width of them in each source), element i taking element `offset + i/2` of the first
/// source when i is even and of the second when it is odd; with `width` 0, the packing of
/// sixteen-bit cards (byte i takes byte 2i, the low byte of card i).
#[cfg(target_arch = "x86_64")]
const fn picks(width: usize, offset: usize) -> [u8; 64] {
    let mut bytes = [0; 64];
    if width == 0 {
        let mut i = 0;
        while i < 64 {
            bytes[i] = (2 * i) as u8;
            i += 1;
        }
        return bytes;
    }
    let per_source = 64 / width;
    let mut i = 0;
    while i < per_source {
        let pick = offset + i / 2 + per_source * (i % 2);
        let mut byte = 0;
        while byte < width {
            bytes[i * width + byte] = (pick >> (8 * byte)) as u8;
            byte += 1;
        }
        i += 1;
    }
    bytes
}

/// The low bytes of 64 sixteen-bit cards, 32 from each source.
#[cfg(target_arch = "x86_64")]
const PACK: [u8; 64] = picks(0, 0);
/// Round 1: bytes of slots 0..32, then of slots 32..64.
#[cfg(target_arch = "x86_64")]
const PAIRS: [[u8; 64]; 2] = [picks(1, 0), picks(1, 32)];
/// Round 2: 16-bit words 0..16, then 16..32.
#[cfg(target_arch = "x86_64")]
const WORDS: [[u8; 64]; 2] = [picks(2, 0), picks(2, 16)];
/// Round 3: 32-bit words 0..8, then 8..16.
#[cfg(target_arch = "x86_64")]
const DWORDS: [[u8; 64]; 2] = [picks(4, 0), picks(4, 8)];

#[cfg(target_arch = "x86_64")]
pub use x86::{deck_bytes, look_up, rows_to_columns};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{DWORDS, PACK, PAIRS, ROWS, WORDS};
    use crate::engine::algorithms::Card;
    use std::arch::x86_64::*;

    /// The cards of `deck` (at most 64, each below 256) as the bytes of one vector, 0 past
    /// them. Only where [`super::available`] (the caller's promise).
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    #[inline]
    pub fn deck_bytes(deck: &[Card]) -> __m512i {
        let k = deck.len();
        assert!(k <= 64, "at most 64 cards");
        let low_mask = if k >= 32 { u32::MAX } else { (1u32 << k) - 1 };
        let high_mask = if k >= 64 {
            u32::MAX
        } else if k > 32 {
            (1u32 << (k - 32)) - 1
        } else {
            0
        };
        // SAFETY: masked loads read the deck's k cards only, and fault on nothing past them
        // (the second pointer may pass the end of a short deck, so it is formed by
        // wrapping_add); PACK is 64 bytes.
        unsafe {
            let low = _mm512_maskz_loadu_epi16(low_mask, deck.as_ptr().cast());
            let high = _mm512_maskz_loadu_epi16(high_mask, deck.as_ptr().wrapping_add(32).cast());
            _mm512_permutex2var_epi8(low, _mm512_loadu_si512(PACK.as_ptr().cast()), high)
        }
    }

    /// `table[index]` for each byte of `index`, `table` being V = 2 or 4 vectors of 64 bytes
    /// (128 or 256 entries): one two-source permutation, which reads the low 7 bits of each
    /// index, or two, the 8th bit choosing between their results. Only where
    /// [`super::available`] (the caller's promise).
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    #[inline]
    pub fn look_up<const V: usize>(table: &[__m512i; V], index: __m512i) -> __m512i {
        const { assert!(V == 2 || V == 4, "a table of 128 or 256 bytes") };
        let low = _mm512_permutex2var_epi8(table[0], index, table[1]);
        if V == 2 {
            low
        } else {
            let high = _mm512_permutex2var_epi8(table[2], index, table[3]);
            _mm512_mask_blend_epi8(_mm512_movepi8_mask(index), low, high)
        }
    }

    /// Writes `columns[slot][lane]` = byte `slot` of `rows[lane]`, for the 64 slots: three
    /// rounds of two-source permutations (bytes to pairs, pairs to fours, fours to eights),
    /// each keeping the slots in order. Only where [`super::available`] (the caller's
    /// promise).
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    #[inline]
    pub fn rows_to_columns(rows: &[__m512i; ROWS], columns: &mut [[u8; ROWS]; 64]) {
        // SAFETY (the loads): each table is 64 bytes, one 512-bit load.
        let load = |table: &[u8; 64]| unsafe { _mm512_loadu_si512(table.as_ptr().cast()) };
        // Round 1: rows 2a and 2a + 1 to byte pairs: pairs[2a + h] holds slots 32h..32h + 32.
        let pair_picks = [load(&PAIRS[0]), load(&PAIRS[1])];
        let mut pairs = [_mm512_setzero_si512(); 8];
        for a in 0..4 {
            for h in 0..2 {
                pairs[2 * a + h] =
                    _mm512_permutex2var_epi8(rows[2 * a], pair_picks[h], rows[2 * a + 1]);
            }
        }
        // Round 2: the pairs of lanes 4g, 4g + 1 with those of 4g + 2, 4g + 3: fours[4g + q]
        // holds slots 16q..16q + 16 of lanes 4g..4g + 4.
        let word_picks = [load(&WORDS[0]), load(&WORDS[1])];
        let mut fours = [_mm512_setzero_si512(); 8];
        for g in 0..2 {
            for half in 0..2 {
                let (first, second) = (pairs[4 * g + half], pairs[4 * g + 2 + half]);
                for h in 0..2 {
                    fours[4 * g + 2 * half + h] =
                        _mm512_permutex2var_epi16(first, word_picks[h], second);
                }
            }
        }
        // Round 3: the fours of lanes 0–3 with those of 4–7: slots 16q + 8h..16q + 8h + 8,
        // eight bytes each, one to a lane.
        let dword_picks = [load(&DWORDS[0]), load(&DWORDS[1])];
        for q in 0..4 {
            for h in 0..2 {
                let eights = _mm512_permutex2var_epi32(fours[q], dword_picks[h], fours[4 + q]);
                // SAFETY: `columns` has 64 slots of 8 bytes; the store writes slots
                // 16q + 8h..16q + 8h + 8.
                unsafe {
                    _mm512_storeu_si512(columns[16 * q + 8 * h..].as_mut_ptr().cast(), eights)
                };
            }
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::engine::algorithms::Card;

    #[test]
    fn eight_decks_become_their_columns() {
        if !available() {
            println!("note: no AVX-512 VBMI on this CPU; the transposition was not run");
            return;
        }
        for k in [1usize, 5, 17, 32, 33, 52, 64] {
            let decks: Vec<Vec<Card>> = (0..ROWS)
                .map(|lane| {
                    (0..k)
                        .map(|slot| ((slot * 7 + lane * 13) % 64) as Card)
                        .collect()
                })
                .collect();
            let mut columns = [[0xAAu8; ROWS]; 64];
            // SAFETY: `available()` above.
            unsafe {
                let rows: [std::arch::x86_64::__m512i; ROWS] =
                    std::array::from_fn(|lane| deck_bytes(&decks[lane]));
                rows_to_columns(&rows, &mut columns);
            }
            for (slot, column) in columns.iter().enumerate() {
                for (lane, &byte) in column.iter().enumerate() {
                    let expected = decks[lane].get(slot).map_or(0, |&card| card as u8);
                    assert_eq!(byte, expected, "{k} cards, slot {slot}, lane {lane}");
                }
            }
        }
    }
}
