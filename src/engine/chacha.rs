//! The ChaCha block function, sixteen blocks at a time with AVX-512 (eight at a time, twice,
//! with AVX2): the simulation's words written straight into
//! [`FastSource`](super::random_source::FastSource)'s buffer.
//!
//! ChaCha (D. J. Bernstein, "ChaCha, a variant of Salsa20", 2008; RFC 8439 §2.1–2.3) keeps a
//! state of sixteen 32-bit words: four constants ("expand 32-byte k"), the eight words of the
//! 256-bit key, and four words of position. The quarter round on words (a, b, c, d) is
//! `a += b; d ^= a; d <<<= 16; c += d; b ^= c; b <<<= 12; a += b; d ^= a; d <<<= 8;
//! c += d; b ^= c; b <<<= 7` (RFC 8439 §2.1); a double round is four quarter rounds on the
//! columns (0, 4, 8, 12) … (3, 7, 11, 15) then four on the diagonals (0, 5, 10, 15),
//! (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14) (§2.3); ChaCha-R runs R/2 double rounds and
//! adds the input state to the result, word by word, which is the block's keystream.
//!
//! The position words follow `rand_chacha`'s layout, not RFC 8439's 32-bit counter and 96-bit
//! nonce: a 64-bit block counter in words 12 (low half) and 13, and a 64-bit stream number in
//! words 14 and 15. Word k of block b of a stream is word `16 b + k` of
//! `ChaCha{8,12,20}Rng::from_seed(key)` with `set_stream(stream)` read by `next_u32()`, and
//! the tests check exactly that against `rand_chacha` (and the published vectors).
//!
//! Layout: sixteen 512-bit registers, register i holding word i of sixteen consecutive blocks,
//! one block per 32-bit lane (block counter `counter + lane`, the carry into word 13 taken
//! lane by lane). The rounds then need no shuffles (a quarter round is the same instruction on
//! every lane, and `vprold` rotates in one instruction); at the end a 16 × 16 transpose of
//! 32-bit words (unpack 32-bit pairs, unpack 64-bit pairs, then two rounds of 128-bit lane
//! shuffles) turns the registers into blocks, stored in stream order. `rand_chacha` makes four
//! blocks a call with AVX2 and copies them out through `fill_bytes`; here the sixteen blocks of
//! one buffer cost one call and no copy.
//!
//! With AVX2 and without AVX-512 the same layout runs on 256-bit registers, eight blocks a
//! call and two calls a fill: the rotations by 16 and 8 bits are byte shuffles, those by 12
//! and 7 two shifts and an or, the carry into word 13 a signed comparison of biased words, and
//! the transpose two 8 × 8 ones (unpacks, then one round of 128-bit lane permutes).
//!
//! Machines with neither get `None` from [`WideChaCha::new`] and the caller keeps its
//! `rand_chacha` generator: the same words either way.

/// Words of one ChaCha block.
pub const BLOCK_WORDS: usize = 16;

/// Blocks made by one call of [`WideChaCha::fill`]: one per 32-bit lane of a 512-bit register.
pub const WIDE_BLOCKS: usize = 16;

/// Words made by one call of [`WideChaCha::fill`]: sixteen blocks.
pub const WIDE_WORDS: usize = BLOCK_WORDS * WIDE_BLOCKS;

/// A buffer of [`WIDE_WORDS`] words, aligned to 64 bytes so each block fills one cache line
/// and one aligned 512-bit store.
#[derive(Clone)]
#[repr(C, align(64))]
pub struct WordBuffer(pub [u32; WIDE_WORDS]);

impl Default for WordBuffer {
    fn default() -> Self {
        WordBuffer([0; WIDE_WORDS])
    }
}

/// Whether this CPU runs the sixteen-block function (AVX-512 F, asked at run time).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this CPU runs the eight-block function (AVX2, asked at run time); it is used where
/// the sixteen-block one is not [`available`].
pub fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The instructions a [`WideChaCha`] runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
enum Width {
    /// Sixteen blocks a call, 512-bit registers (AVX-512 F).
    Avx512,
    /// Eight blocks a call, two calls a fill, 256-bit registers (AVX2).
    Avx2,
}

/// A ChaCha stream positioned on a block, whose keystream is made sixteen blocks at a time.
/// It exists only where [`available`] or [`avx2_available`] is true, so holding one is the
/// proof that [`WideChaCha::fill`] may run.
#[derive(Debug, Clone)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub struct WideChaCha {
    /// The key, as eight little-endian words (state words 4–11).
    key: [u32; 8],
    /// The block the next [`WideChaCha::fill`] starts at (state words 12–13).
    counter: u64,
    /// The stream number (state words 14–15).
    stream: u64,
    /// Rounds / 2.
    double_rounds: u32,
    width: Width,
}

impl WideChaCha {
    /// ChaCha with `rounds` rounds (an even number ≥ 2: 8, 12 and 20 are the ones in use) on
    /// `key`, stream `stream`, starting at block `counter`; `None` if this CPU lacks both
    /// AVX-512 F and AVX2.
    ///
    /// # Panics
    /// If `rounds` is odd or 0.
    pub fn new(rounds: u32, key: &[u8; 32], stream: u64, counter: u64) -> Option<Self> {
        let width = if available() {
            Width::Avx512
        } else if avx2_available() {
            Width::Avx2
        } else {
            None?
        };
        Self::with_width(rounds, key, stream, counter, width)
    }

    /// [`WideChaCha::new`] on the instructions of `width`, whatever the CPU offers beyond
    /// them (`None` if it lacks them): the tests run both widths on a CPU with AVX-512.
    fn with_width(
        rounds: u32,
        key: &[u8; 32],
        stream: u64,
        counter: u64,
        width: Width,
    ) -> Option<Self> {
        assert!(
            rounds >= 2 && rounds.is_multiple_of(2),
            "ChaCha rounds must be even, got {rounds}"
        );
        let runs = match width {
            Width::Avx512 => available(),
            Width::Avx2 => avx2_available(),
        };
        if !runs {
            return None;
        }
        let mut words = [0u32; 8];
        for (word, bytes) in words.iter_mut().zip(key.chunks_exact(4)) {
            *word = u32::from_le_bytes(bytes.try_into().expect("4-byte chunk"));
        }
        Some(WideChaCha {
            key: words,
            counter,
            stream,
            double_rounds: rounds / 2,
            width,
        })
    }

    /// The block the next [`WideChaCha::fill`] starts at.
    pub fn counter(&self) -> u64 {
        self.counter
    }

    /// Write blocks `counter .. counter + 16` (the counter wrapping at 2^64, as `rand_chacha`'s
    /// does) into `out`, in stream order, and move on by sixteen blocks.
    pub fn fill(&mut self, out: &mut WordBuffer) {
        #[cfg(target_arch = "x86_64")]
        {
            match self.width {
                // SAFETY: a WideChaCha of this width is only made when `available()` was true
                // (AVX-512 F).
                Width::Avx512 => unsafe {
                    x86::sixteen_blocks(
                        &self.key,
                        self.counter,
                        self.stream,
                        self.double_rounds,
                        out,
                    )
                },
                Width::Avx2 => {
                    let (first, second) = out.0.split_at_mut(WIDE_WORDS / 2);
                    for (half, words) in [first, second].into_iter().enumerate() {
                        let counter = self.counter.wrapping_add(8 * half as u64);
                        let words: &mut [u32; WIDE_WORDS / 2] =
                            words.try_into().expect("half a buffer");
                        // SAFETY: a WideChaCha of this width is only made when
                        // `avx2_available()` was true.
                        unsafe {
                            x86::eight_blocks(
                                &self.key,
                                counter,
                                self.stream,
                                self.double_rounds,
                                words,
                            )
                        };
                    }
                }
            }
            self.counter = self.counter.wrapping_add(WIDE_BLOCKS as u64);
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = out;
            unreachable!("a WideChaCha is only made where AVX-512 or AVX2 is available");
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::WordBuffer;
    use std::arch::x86_64::*;

    /// The four constant words, "expand 32-byte k" read as little-endian words (RFC 8439 §2.3).
    const CONSTANTS: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

    /// The input state of the blocks of a call, one register a word: the constants, the key and
    /// the stream number each `splat` to every lane, words 12 and 13 the lanes' block counters
    /// `low` and `high`.
    #[inline(always)]
    fn input_state<V: Copy>(
        key: &[u32; 8],
        low: V,
        high: V,
        stream: u64,
        splat: impl Fn(u32) -> V,
    ) -> [V; 16] {
        std::array::from_fn(|word| match word {
            0..4 => splat(CONSTANTS[word]),
            4..12 => splat(key[word - 4]),
            12 => low,
            13 => high,
            14 => splat(stream as u32),
            _ => splat((stream >> 32) as u32),
        })
    }

    /// One quarter round (RFC 8439 §2.1) on state words a, b, c, d of all sixteen blocks.
    macro_rules! quarter_round {
        ($x:ident, $a:literal, $b:literal, $c:literal, $d:literal) => {
            $x[$a] = _mm512_add_epi32($x[$a], $x[$b]);
            $x[$d] = _mm512_rol_epi32::<16>(_mm512_xor_si512($x[$d], $x[$a]));
            $x[$c] = _mm512_add_epi32($x[$c], $x[$d]);
            $x[$b] = _mm512_rol_epi32::<12>(_mm512_xor_si512($x[$b], $x[$c]));
            $x[$a] = _mm512_add_epi32($x[$a], $x[$b]);
            $x[$d] = _mm512_rol_epi32::<8>(_mm512_xor_si512($x[$d], $x[$a]));
            $x[$c] = _mm512_add_epi32($x[$c], $x[$d]);
            $x[$b] = _mm512_rol_epi32::<7>(_mm512_xor_si512($x[$b], $x[$c]));
        };
    }

    /// See [`super::WideChaCha::fill`]: blocks `counter + lane` for lanes 0..16.
    #[target_feature(enable = "avx512f")]
    pub(super) fn sixteen_blocks(
        key: &[u32; 8],
        counter: u64,
        stream: u64,
        double_rounds: u32,
        out: &mut WordBuffer,
    ) {
        let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let low = _mm512_add_epi32(_mm512_set1_epi32(counter as u32 as i32), lanes);
        // The low word of lane i wrapped past 2^32 exactly when it came out below i.
        let carried = _mm512_cmplt_epu32_mask(low, lanes);
        let high = _mm512_set1_epi32((counter >> 32) as u32 as i32);
        let high = _mm512_mask_add_epi32(high, carried, high, _mm512_set1_epi32(1));
        let input = input_state(key, low, high, stream, |word| _mm512_set1_epi32(word as i32));
        let mut x = input;
        for _ in 0..double_rounds {
            quarter_round!(x, 0, 4, 8, 12);
            quarter_round!(x, 1, 5, 9, 13);
            quarter_round!(x, 2, 6, 10, 14);
            quarter_round!(x, 3, 7, 11, 15);
            quarter_round!(x, 0, 5, 10, 15);
            quarter_round!(x, 1, 6, 11, 12);
            quarter_round!(x, 2, 7, 8, 13);
            quarter_round!(x, 3, 4, 9, 14);
        }
        for (word, start) in x.iter_mut().zip(input) {
            *word = _mm512_add_epi32(*word, start);
        }

        // Transpose: x[i] lane j is word i of block j; block j must come out as one register.
        // Step 1, 32-bit pairs: within each 128-bit lane k, p[2g] holds words 2g, 2g + 1 of
        // blocks 4k, 4k + 1 and p[2g + 1] those of blocks 4k + 2, 4k + 3.
        let mut pairs = [_mm512_setzero_si512(); 16];
        for g in 0..8 {
            pairs[2 * g] = _mm512_unpacklo_epi32(x[2 * g], x[2 * g + 1]);
            pairs[2 * g + 1] = _mm512_unpackhi_epi32(x[2 * g], x[2 * g + 1]);
        }
        // Step 2, 64-bit pairs: quads[4q + m], 128-bit lane k, is words 4q .. 4q + 4 of block
        // 4k + m.
        let mut quads = [_mm512_setzero_si512(); 16];
        for q in 0..4 {
            let (a, b) = (pairs[4 * q], pairs[4 * q + 1]);
            let (c, d) = (pairs[4 * q + 2], pairs[4 * q + 3]);
            quads[4 * q] = _mm512_unpacklo_epi64(a, c);
            quads[4 * q + 1] = _mm512_unpackhi_epi64(a, c);
            quads[4 * q + 2] = _mm512_unpacklo_epi64(b, d);
            quads[4 * q + 3] = _mm512_unpackhi_epi64(b, d);
        }
        // Step 3, 128-bit lanes: block 4k + m is lane k of quads[m], quads[4 + m],
        // quads[8 + m], quads[12 + m], gathered by two rounds of lane shuffles.
        let blocks = out.0.as_mut_ptr().cast::<__m512i>();
        for m in 0..4 {
            let (q0, q1, q2, q3) = (quads[m], quads[4 + m], quads[8 + m], quads[12 + m]);
            let low01 = _mm512_shuffle_i32x4::<0x44>(q0, q1); // q0.0 q0.1 q1.0 q1.1
            let low23 = _mm512_shuffle_i32x4::<0x44>(q2, q3); // q2.0 q2.1 q3.0 q3.1
            let high01 = _mm512_shuffle_i32x4::<0xEE>(q0, q1); // q0.2 q0.3 q1.2 q1.3
            let high23 = _mm512_shuffle_i32x4::<0xEE>(q2, q3); // q2.2 q2.3 q3.2 q3.3
            let rows = [
                _mm512_shuffle_i32x4::<0x88>(low01, low23), // lane 0 of each: block m
                _mm512_shuffle_i32x4::<0xDD>(low01, low23), // lane 1: block 4 + m
                _mm512_shuffle_i32x4::<0x88>(high01, high23), // lane 2: block 8 + m
                _mm512_shuffle_i32x4::<0xDD>(high01, high23), // lane 3: block 12 + m
            ];
            for (k, row) in rows.into_iter().enumerate() {
                // SAFETY: block 4k + m < 16 lies inside the 64-byte aligned 1024-byte buffer.
                unsafe { _mm512_store_si512(blocks.add(4 * k + m), row) };
            }
        }
    }

    /// One quarter round (RFC 8439 §2.1) on state words a, b, c, d of all eight blocks.
    macro_rules! quarter_round_avx2 {
        ($x:ident, $r16:ident, $r8:ident, $a:literal, $b:literal, $c:literal, $d:literal) => {
            $x[$a] = _mm256_add_epi32($x[$a], $x[$b]);
            $x[$d] = _mm256_shuffle_epi8(_mm256_xor_si256($x[$d], $x[$a]), $r16);
            $x[$c] = _mm256_add_epi32($x[$c], $x[$d]);
            let t = _mm256_xor_si256($x[$b], $x[$c]);
            $x[$b] = _mm256_or_si256(_mm256_slli_epi32::<12>(t), _mm256_srli_epi32::<20>(t));
            $x[$a] = _mm256_add_epi32($x[$a], $x[$b]);
            $x[$d] = _mm256_shuffle_epi8(_mm256_xor_si256($x[$d], $x[$a]), $r8);
            $x[$c] = _mm256_add_epi32($x[$c], $x[$d]);
            let t = _mm256_xor_si256($x[$b], $x[$c]);
            $x[$b] = _mm256_or_si256(_mm256_slli_epi32::<7>(t), _mm256_srli_epi32::<25>(t));
        };
    }

    /// Blocks `counter + lane` for lanes 0..8 into `out`, in stream order: the sixteen-block
    /// function on 256-bit registers (see the module documentation).
    #[target_feature(enable = "avx2")]
    pub(super) fn eight_blocks(
        key: &[u32; 8],
        counter: u64,
        stream: u64,
        double_rounds: u32,
        out: &mut [u32; 128],
    ) {
        let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let low = _mm256_add_epi32(_mm256_set1_epi32(counter as u32 as i32), lanes);
        // The low word of lane i wrapped past 2^32 exactly when it came out below i: an
        // unsigned comparison, made signed by flipping the top bits. The mask is −1 there.
        let bias = _mm256_set1_epi32(i32::MIN);
        let carried = _mm256_cmpgt_epi32(_mm256_xor_si256(lanes, bias), _mm256_xor_si256(low, bias));
        let high = _mm256_sub_epi32(_mm256_set1_epi32((counter >> 32) as u32 as i32), carried);
        let input = input_state(key, low, high, stream, |word| _mm256_set1_epi32(word as i32));
        // Byte shuffles rotating each 32-bit word left by 16 and by 8 bits.
        let r16 = _mm256_setr_epi8(
            2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11,
            8, 9, 14, 15, 12, 13,
        );
        let r8 = _mm256_setr_epi8(
            3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5, 6, 11, 8,
            9, 10, 15, 12, 13, 14,
        );
        let mut x = input;
        for _ in 0..double_rounds {
            quarter_round_avx2!(x, r16, r8, 0, 4, 8, 12);
            quarter_round_avx2!(x, r16, r8, 1, 5, 9, 13);
            quarter_round_avx2!(x, r16, r8, 2, 6, 10, 14);
            quarter_round_avx2!(x, r16, r8, 3, 7, 11, 15);
            quarter_round_avx2!(x, r16, r8, 0, 5, 10, 15);
            quarter_round_avx2!(x, r16, r8, 1, 6, 11, 12);
            quarter_round_avx2!(x, r16, r8, 2, 7, 8, 13);
            quarter_round_avx2!(x, r16, r8, 3, 4, 9, 14);
        }
        for (word, start) in x.iter_mut().zip(input) {
            *word = _mm256_add_epi32(*word, start);
        }
        // Two 8 × 8 transposes: x[8h + r] lane j is word 8h + r of block j; words 8h .. 8h + 8
        // of block j must come out as one register.
        let rows = out.as_mut_ptr().cast::<__m256i>();
        for h in 0..2 {
            let x = &x[8 * h..8 * h + 8];
            // 32-bit pairs: within each 128-bit lane, t[2g] holds words (2g, 2g + 1) of
            // blocks (0, 1) (lane 0) or (4, 5) (lane 1), t[2g + 1] those of blocks 2, 3 / 6, 7.
            let t: [__m256i; 8] = std::array::from_fn(|i| {
                let (a, b) = (x[i & !1], x[i | 1]);
                if i % 2 == 0 {
                    _mm256_unpacklo_epi32(a, b)
                } else {
                    _mm256_unpackhi_epi32(a, b)
                }
            });
            // 64-bit pairs: u[4q + m], 128-bit lane k, is words 4q .. 4q + 4 (of the eight)
            // of block 4k + m.
            let mut u = [_mm256_setzero_si256(); 8];
            for q in 0..2 {
                let (a, b) = (t[4 * q], t[4 * q + 1]);
                let (c, d) = (t[4 * q + 2], t[4 * q + 3]);
                u[4 * q] = _mm256_unpacklo_epi64(a, c);
                u[4 * q + 1] = _mm256_unpackhi_epi64(a, c);
                u[4 * q + 2] = _mm256_unpacklo_epi64(b, d);
                u[4 * q + 3] = _mm256_unpackhi_epi64(b, d);
            }
            // 128-bit lanes: block m is lane 0 of u[m] then of u[4 + m]; block 4 + m, lane 1.
            for m in 0..4 {
                let first = _mm256_permute2x128_si256::<0x20>(u[m], u[4 + m]);
                let second = _mm256_permute2x128_si256::<0x31>(u[m], u[4 + m]);
                // SAFETY: row 2·block + h of the sixteen 32-byte rows of the 512-byte `out`.
                unsafe {
                    _mm256_storeu_si256(rows.add(2 * m + h), first);
                    _mm256_storeu_si256(rows.add(2 * (4 + m) + h), second);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::{ChaCha8Rng, ChaCha12Rng, ChaCha20Rng};
    use rand_core::{Rng, SeedableRng};

    /// The next `WIDE_WORDS` words of a `rand_chacha` generator.
    fn reference_words(rng: &mut impl Rng) -> Vec<u32> {
        (0..WIDE_WORDS).map(|_| rng.next_u32()).collect()
    }

    /// A generator of each width this CPU runs (the AVX2 one also on a CPU with AVX-512).
    fn wide(rounds: u32, key: &[u8; 32], stream: u64, counter: u64) -> Vec<WideChaCha> {
        let made: Vec<WideChaCha> = [Width::Avx512, Width::Avx2]
            .into_iter()
            .filter_map(|width| WideChaCha::with_width(rounds, key, stream, counter, width))
            .collect();
        if made.len() < 2 {
            eprintln!("this CPU lacks AVX-512 or AVX2: not every width is tested here");
        }
        made
    }

    /// A key whose bytes all differ, varied by `salt`.
    fn key(salt: u8) -> [u8; 32] {
        std::array::from_fn(|i| {
            (i as u8)
                .wrapping_mul(37)
                .wrapping_add(salt.wrapping_mul(101))
        })
    }

    macro_rules! compare_with_rand_chacha {
        ($rng:ty, $rounds:expr, $key:expr, $stream:expr, $word_pos:expr, $refills:expr) => {{
            for mut ours in wide($rounds, &$key, $stream, ($word_pos / 16) as u64) {
                let mut reference = <$rng>::from_seed($key);
                reference.set_stream($stream);
                reference.set_word_pos($word_pos);
                let mut buffer = WordBuffer::default();
                for refill in 0..$refills {
                    ours.fill(&mut buffer);
                    assert_eq!(
                        buffer.0.to_vec(),
                        reference_words(&mut reference),
                        "{} rounds, stream {}, word {} + refill {refill}, {:?}",
                        $rounds,
                        $stream,
                        $word_pos,
                        ours.width
                    );
                }
            }
        }};
    }

    #[test]
    fn sixteen_blocks_match_rand_chacha_for_every_round_count_key_and_stream() {
        let streams = [0, 1, 2, 15, 16, 0xFFFF_FFFF, 0x1_0000_0000, u64::MAX];
        for salt in 0..6 {
            let key = key(salt);
            for stream in streams {
                for word_pos in [0u128, 16 * 16, 16 * 1000 + 16 * 3] {
                    compare_with_rand_chacha!(ChaCha8Rng, 8, key, stream, word_pos, 3);
                    compare_with_rand_chacha!(ChaCha12Rng, 12, key, stream, word_pos, 3);
                    compare_with_rand_chacha!(ChaCha20Rng, 20, key, stream, word_pos, 3);
                }
            }
        }
    }

    #[test]
    fn the_block_counter_carries_into_its_high_word_inside_a_fill() {
        // Blocks 2^32 − 5 .. 2^32 + 11 cross the carry from word 12 into word 13 in lane 5 of
        // the first fill; the later fills start past it. Also the counter just below 2^64, where
        // both halves wrap to 0 (rand_chacha's counter wraps too).
        let key = key(9);
        for first_block in [(1u128 << 32) - 5, (1u128 << 33) - 1, (1u128 << 64) - 7] {
            let word_pos = first_block * 16;
            compare_with_rand_chacha!(ChaCha8Rng, 8, key, 77, word_pos, 3);
            compare_with_rand_chacha!(ChaCha12Rng, 12, key, 77, word_pos, 2);
            compare_with_rand_chacha!(ChaCha20Rng, 20, key, u64::MAX, word_pos, 2);
        }
    }

    #[test]
    fn chacha20_with_a_zero_key_gives_the_published_keystream() {
        // Bernstein's ChaCha20 with an all-zero key and nonce, blocks 0 and 1 (RFC 8439
        // Appendix A.1, test vectors #1 and #2), as little-endian words.
        let block0 = [
            0xade0_b876,
            0x903d_f1a0,
            0xe56a_5d40,
            0x28bd_8653,
            0xb819_d2bd,
            0x1aed_8da0,
            0xccef_36a8,
            0xc70d_778b,
            0x7c59_41da,
            0x8d48_5751,
            0x3fe0_2477,
            0x374a_d8b8,
            0xf4b8_436a,
            0x1ca1_1815,
            0x69b6_87c3,
            0x8665_eeb2,
        ];
        let block1 = [
            0xbee7_079f,
            0x7a38_5155,
            0x7c97_ba98,
            0x0d08_2d73,
            0xa029_0fcb,
            0x6965_e348,
            0x3e53_c612,
            0xed7a_ee32,
            0x7621_b729,
            0x434e_e69c,
            0xb033_71d5,
            0xd539_d874,
            0x281f_ed31,
            0x45fb_0a51,
            0x1f0a_e1ac,
            0x6f4d_794b,
        ];
        for mut ours in wide(20, &[0; 32], 0, 0) {
            let mut buffer = WordBuffer::default();
            ours.fill(&mut buffer);
            assert_eq!(buffer.0[..16], block0, "{:?}", ours.width);
            assert_eq!(buffer.0[16..32], block1, "{:?}", ours.width);
        }
    }

    #[test]
    fn the_rfc_8439_block_maps_onto_the_64_bit_counter_layout() {
        // RFC 8439 §2.3.2: key 00 01 .. 1f, nonce 00 00 00 09 00 00 00 4a 00 00 00 00, block
        // counter 1. Its state words 12..15 are (1, 0x09000000, 0x4a000000, 0): in this layout
        // block counter 1 + 0x09000000 · 2^32 of stream 0x4a000000.
        let expected = [
            0xe4e7_f110,
            0x1559_3bd1,
            0x1fdd_0f50,
            0xc471_20a3,
            0xc7f4_d1c7,
            0x0368_c033,
            0x9aaa_2204,
            0x4e6c_d4c3,
            0x4664_82d2,
            0x09aa_9f07,
            0x05d7_c214,
            0xa202_8bd9,
            0xd19c_12b5,
            0xb94e_16de,
            0xe883_d0cb,
            0x4e3c_50a2,
        ];
        let key: [u8; 32] = std::array::from_fn(|i| i as u8);
        for mut ours in wide(20, &key, 0x4a00_0000, 1 | (0x0900_0000 << 32)) {
            let mut buffer = WordBuffer::default();
            ours.fill(&mut buffer);
            assert_eq!(buffer.0[..16], expected, "{:?}", ours.width);
        }
    }

    #[test]
    fn a_fill_moves_the_counter_on_by_sixteen_blocks() {
        for mut ours in wide(8, &key(1), 3, u64::MAX - 3) {
            let mut buffer = WordBuffer::default();
            ours.fill(&mut buffer);
            assert_eq!(ours.counter(), 12);
        }
    }

    #[test]
    #[should_panic(expected = "rounds must be even")]
    fn odd_round_counts_are_refused() {
        let _ = WideChaCha::new(7, &[0; 32], 0, 0);
    }
}
