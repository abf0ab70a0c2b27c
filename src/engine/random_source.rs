//! The random-source trait every shuffle algorithm is written against, and the fast source that
//! drives the simulation.
//!
//! An algorithm asks only three questions of its source: "an integer below k", "a fair coin" and
//! "true with probability a/b". Three sources answer them: [`FastSource`] (ChaCha streams, exact Lemire reduction) for the
//! simulation, the path walker in [`crate::theory::exact`] that enumerates every answer with its
//! probability, and scripted sources in the tests. Because all three drive the *same* algorithm
//! code, the simulated counts and the exact theory can never drift apart.

use rand_chacha::{ChaCha8Rng, ChaCha12Rng, ChaCha20Rng};
use rand_core::{Rng, SeedableRng};

use crate::engine::chacha::{BLOCK_WORDS, WIDE_WORDS, WideChaCha, WordBuffer};

/// A source of the kinds of random choice a shuffle algorithm makes.
pub trait RandomSource {
    /// A uniformly distributed integer in `0..bound`; `bound` is at least 1.
    fn below(&mut self, bound: usize) -> usize;
    /// A fair coin: `true` with probability exactly 1/2.
    fn coin(&mut self) -> bool;
    /// `true` with probability exactly `numerator / denominator` (0 ≤ numerator ≤ denominator,
    /// denominator ≥ 1): a two-way choice with unequal weights.
    ///
    /// The draw is defined as `below(denominator) < numerator`, with the fraction taken as given
    /// (not reduced), and that is what the simulation does; so the counts of a seed are fixed by
    /// this definition. The exact engine overrides it with one weighted two-way branch instead of
    /// `denominator` equally likely ones.
    #[inline(always)]
    fn bernoulli(&mut self, numerator: usize, denominator: usize) -> bool {
        self.below(denominator) < numerator
    }

    /// `count` draws below `bound` handed to `each` in turn: the same draws as `count` calls of
    /// [`RandomSource::below`]. A source may override it with a loop that keeps its read
    /// position in a register (the one-draw path's hot loop is nothing else).
    #[inline(always)]
    fn each_below(&mut self, bound: usize, count: u64, mut each: impl FnMut(usize))
    where
        Self: Sized,
    {
        for _ in 0..count {
            each(self.below(bound));
        }
    }

    /// For i from `top − 1` down to 1, a draw j below i + 1 handed to `each(i, j)` in turn: the
    /// same draws as that many calls of [`RandomSource::below`] (Fisher–Yates' draws, which do
    /// not depend on the deck). A source may override it to make the draws of a whole deck at
    /// once, apart from what is done with them.
    #[inline(always)]
    fn each_below_descending(&mut self, top: usize, each: impl FnMut(usize, usize))
    where
        Self: Sized,
    {
        descending_one_at_a_time(self, top, each);
    }

    /// Whether [`RandomSource::start_shuffle`] does anything: the loops test this constant, so
    /// for a one-stream source the call is not even compiled.
    const STARTS_SHUFFLES: bool = false;

    /// Called by the simulation before each shuffle. Nothing for a source that is one stream
    /// (it compiles away); a source that re-seeds its generator before every shuffle, as a game
    /// calling `srand(time(NULL))` before each deal does, starts afresh here.
    #[inline(always)]
    fn start_shuffle(&mut self) {}
}

/// Fisher–Yates' draws one at a time: for i from `top − 1` down to 1, `each(i, below(i + 1))`.
/// The default of [`RandomSource::each_below_descending`], and what [`FastSource`] does for
/// decks under [`DESCENDING_FROM`] cards.
#[inline(always)]
fn descending_one_at_a_time<S: RandomSource>(
    source: &mut S,
    top: usize,
    mut each: impl FnMut(usize, usize),
) {
    for i in (1..top).rev() {
        each(i, source.below(i + 1));
    }
}

/// A machine word on which Lemire's multiply-and-reject reduction can run.
///
/// Production uses `u32`; `u16` exists so that the tests can check exhaustively, over every
/// possible input word, that the reduction is exactly unbiased.
pub trait Word: Copy + Ord {
    /// `(self * bound) >> BITS` and `(self * bound) mod 2^BITS`.
    fn widening_mul(self, bound: Self) -> (Self, Self);
    /// `2^BITS mod bound`: low products below this are rejected.
    fn rejection_threshold(bound: Self) -> Self;
}

macro_rules! impl_word {
    ($word:ty, $wide:ty) => {
        impl Word for $word {
            #[inline(always)]
            fn widening_mul(self, bound: Self) -> (Self, Self) {
                let product = <$wide>::from(self) * <$wide>::from(bound);
                ((product >> <$word>::BITS) as $word, product as $word)
            }
            #[inline(always)]
            fn rejection_threshold(bound: Self) -> Self {
                bound.wrapping_neg() % bound
            }
        }
    };
}
impl_word!(u16, u32);
impl_word!(u32, u64);

/// An exactly uniform integer below `bound` (bound ≥ 1) from uniform words, by Lemire's
/// multiply-and-reject method (D. Lemire, "Fast Random Integer Generation in an Interval",
/// ACM TOMACS 29(1), 2019).
///
/// The high half of `x * bound` is the result; the low half is rejected when it is below
/// `2^BITS mod bound`, which leaves exactly `floor(2^BITS / bound)` accepted words for every
/// result, so every result is equally likely. The threshold (one division) is computed only
/// when the low half is small enough to possibly be rejected.
#[inline(always)]
pub fn lemire<W: Word>(bound: W, mut next_word: impl FnMut() -> W) -> W {
    let (mut high, mut low) = next_word().widening_mul(bound);
    if low < bound {
        let threshold = W::rejection_threshold(bound);
        while low < threshold {
            (high, low) = next_word().widening_mul(bound);
        }
    }
    high
}

/// The ChaCha variants offered by `--rng`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RngKind {
    /// ChaCha with 8 rounds (default: fastest, statistically indistinguishable from random).
    Chacha8,
    /// ChaCha with 12 rounds.
    Chacha12,
    /// ChaCha with 20 rounds (the cryptographic standard).
    Chacha20,
}

impl RngKind {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            RngKind::Chacha8 => "chacha8",
            RngKind::Chacha12 => "chacha12",
            RngKind::Chacha20 => "chacha20",
        }
    }
}

/// A ChaCha generator that can be positioned on the stream of one block of trials.
pub trait BlockRng: Rng + Sized {
    /// Its rounds: 8, 12 or 20.
    const ROUNDS: u32;

    /// The generator for block `block` of a run with seed `seed`: the 256-bit key is expanded
    /// from `seed` by SplitMix64 and the ChaCha stream number is `block`, so every block's
    /// numbers are fixed by `(seed, block)` alone, whichever thread runs it.
    fn for_block(seed: u64, block: u64) -> Self;

    /// Where the generator stands: its key, its stream number and the position of its next
    /// word from the start of the stream, in words (16 to a block), as `rand_chacha` reports
    /// them. [`FastSource`] carries on from there with [`WideChaCha`].
    fn position(&self) -> ([u8; 32], u64, u128);
}

/// The next output of SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): `state` moves on by the golden gamma 0x9E3779B97F4A7C15 and its
/// new value is mixed. What expands seeds here, and the seeded stream of test values.
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The 256-bit ChaCha key for a 64-bit seed: four outputs of [`splitmix64`] started at the
/// seed, little-endian.
pub fn key_from_seed(seed: u64) -> [u8; 32] {
    let mut state = seed;
    let mut key = [0u8; 32];
    for chunk in key.chunks_exact_mut(8) {
        chunk.copy_from_slice(&splitmix64(&mut state).to_le_bytes());
    }
    key
}

macro_rules! impl_block_rng {
    ($rng:ty, $rounds:literal) => {
        impl BlockRng for $rng {
            const ROUNDS: u32 = $rounds;

            fn for_block(seed: u64, block: u64) -> Self {
                let mut rng = <$rng>::from_seed(key_from_seed(seed));
                rng.set_stream(block);
                rng
            }

            fn position(&self) -> ([u8; 32], u64, u128) {
                (self.get_seed(), self.get_stream(), self.get_word_pos())
            }
        }
    };
}
impl_block_rng!(ChaCha8Rng, 8);
impl_block_rng!(ChaCha12Rng, 12);
impl_block_rng!(ChaCha20Rng, 20);

/// Trials per block: block b of a run draws from its own stream, fixed by (seed, b). Part of
/// the reproducibility contract: changing it changes every count.
pub const BLOCK_TRIALS: u64 = 1 << 16;

/// How each block of a run gets its random source: the simulation's loops are generic over
/// this, so the fast ChaCha path and a source assembled at run time
/// ([`crate::engine::mapped_source::SourceSpec`]) drive the same code.
pub trait BlockSources: Sync {
    /// The source of one block.
    type Source: RandomSource;
    /// The source of block `block` of a run seeded with `seed`: fixed by `(seed, block)` alone.
    fn for_block(&self, seed: u64, block: u64) -> Self::Source;
}

/// The simulation's default sources: ChaCha `R` through [`FastSource`].
pub struct FastSources<R>(std::marker::PhantomData<fn() -> R>);

impl<R> Default for FastSources<R> {
    fn default() -> Self {
        FastSources(std::marker::PhantomData)
    }
}

impl<R: BlockRng> BlockSources for FastSources<R> {
    type Source = FastSource<R>;

    #[inline]
    fn for_block(&self, seed: u64, block: u64) -> FastSource<R> {
        FastSource::new(R::for_block(seed, block))
    }
}

/// Words the simulation's source buffers at a time: sixteen ChaCha blocks.
const BUFFER_WORDS: usize = WIDE_WORDS;

/// Most draws [`FastSource::each_below_descending`] makes in one batch: a whole deck of up to
/// 65 cards.
const DESCENDING_BATCH: usize = 64;

/// The smallest deck whose draws [`FastSource::each_below_descending`] makes in batches: below,
/// one by one (measured: batches made `run fisher-yates -n 10` 13% slower and `-n 52
/// --no-deal-tests` 6–9% faster, on one thread).
const DESCENDING_FROM: usize = 16;

/// The simulation's source: 32-bit words from a ChaCha generator, bounded integers by
/// [`lemire`], and coins taken one bit at a time from a buffered word (so 32 coins cost one
/// word).
///
/// The words are those of `rng.next_u32()`, in the same order, [`WIDE_WORDS`] (sixteen
/// blocks) at a time in the source's own buffer: on a CPU with AVX-512 or AVX2 [`WideChaCha`]
/// writes them there straight from the generator's key, stream and position; elsewhere the
/// generator's `fill_bytes` (which continues the same little-endian word stream) copies them
/// in. Either way the read position stays in a register in the hot loop, where `rand_chacha`
/// would store it into its result buffer after every word.
pub struct FastSource<R> {
    words: WordBuffer,
    next_word: usize,
    coin_bits: u32,
    coins_left: u32,
    /// The sixteen-block generator, on a CPU that has it; then `rng` is never advanced.
    wide: Option<WideChaCha>,
    rng: R,
}

impl<R: BlockRng> FastSource<R> {
    /// A source reading on from where `rng` stands, with [`WideChaCha`] where the CPU allows.
    pub fn new(rng: R) -> Self {
        let (key, stream, word_pos) = rng.position();
        let first_block = (word_pos / BLOCK_WORDS as u128) as u64;
        let wide = WideChaCha::new(R::ROUNDS, &key, stream, first_block);
        let mut source = FastSource::with_generator(rng, wide);
        let skip = (word_pos % BLOCK_WORDS as u128) as usize;
        if source.wide.is_some() && skip != 0 {
            // Start inside the block `rng` is in: make its sixteen blocks, skip what was read.
            refill(&mut source.wide, &mut source.rng, &mut source.words);
            source.next_word = skip;
        }
        source
    }

    /// A source that takes its words from `rng.fill_bytes` whatever the CPU: the path of CPUs
    /// without AVX-512 and AVX2, for tests and benchmarks of it (the words are the same as
    /// [`FastSource::new`]'s).
    pub fn with_rand_chacha(rng: R) -> Self {
        FastSource::with_generator(rng, None)
    }

    fn with_generator(rng: R, wide: Option<WideChaCha>) -> Self {
        FastSource {
            words: WordBuffer::default(),
            next_word: BUFFER_WORDS,
            coin_bits: 0,
            coins_left: 0,
            wide,
            rng,
        }
    }

    /// Whether the words come from [`WideChaCha`] (else from `rand_chacha`).
    pub fn is_wide(&self) -> bool {
        self.wide.is_some()
    }

    /// The next word of the generator's stream.
    #[inline(always)]
    fn word(&mut self) -> u32 {
        if self.next_word >= BUFFER_WORDS {
            refill(&mut self.wide, &mut self.rng, &mut self.words);
            self.next_word = 0;
        }
        let word = self.words.0[self.next_word];
        self.next_word += 1;
        word
    }
}

/// Replace `words` with the next [`BUFFER_WORDS`] words of the stream (out of line: it runs
/// once per buffer, and keeping it out of the hot loop keeps the read position out of memory).
#[inline(never)]
fn refill<R: Rng>(wide: &mut Option<WideChaCha>, rng: &mut R, words: &mut WordBuffer) {
    match wide {
        Some(wide) => wide.fill(words),
        None => {
            // SAFETY: the buffer is 1024 bytes of plain `u32`s, any bytes a valid word; the byte
            // view lives only for this call, during which `words` is not otherwise touched.
            let bytes = unsafe {
                std::slice::from_raw_parts_mut(words.0.as_mut_ptr().cast::<u8>(), BUFFER_WORDS * 4)
            };
            rng.fill_bytes(bytes);
            // fill_bytes writes little-endian words; on a big-endian CPU, turn them around.
            for word in &mut words.0 {
                *word = u32::from_le(*word);
            }
        }
    }
}

impl<R: BlockRng> RandomSource for FastSource<R> {
    #[inline(always)]
    fn below(&mut self, bound: usize) -> usize {
        debug_assert!(bound >= 1 && bound <= u32::MAX as usize);
        let value = lemire(bound as u32, || self.word()) as usize;
        // SAFETY: Lemire's value is the high half of w·bound for a 32-bit word w, that is
        // ⌊w·bound / 2^32⌋ < bound. Said to the compiler, it drops the bounds check of the
        // algorithm's `deck[j]` (j < i + 1 ≤ n) from every step of the hot loop.
        unsafe { std::hint::assert_unchecked(value < bound) };
        value
    }

    /// The words of a buffer are read by a local position, stored back once at the end; a
    /// rejected word is skipped and the next one tried afresh, as [`lemire`] does.
    #[inline(always)]
    fn each_below(&mut self, bound: usize, count: u64, mut each: impl FnMut(usize)) {
        debug_assert!(bound >= 1 && bound <= u32::MAX as usize);
        let bound = bound as u32;
        let mut next = self.next_word;
        let mut left = count;
        while left > 0 {
            if next >= BUFFER_WORDS {
                refill(&mut self.wide, &mut self.rng, &mut self.words);
                next = 0;
            }
            for &word in &self.words.0[next..] {
                next += 1;
                let (high, low) = Word::widening_mul(word, bound);
                if low < bound && low < u32::rejection_threshold(bound) {
                    continue;
                }
                // SAFETY: as in `below`, the high half of w·bound is below bound.
                unsafe { std::hint::assert_unchecked(high < bound) };
                each(high as usize);
                left -= 1;
                if left == 0 {
                    break;
                }
            }
        }
        self.next_word = next;
    }

    /// Decks under [`DESCENDING_FROM`] cards take their draws one at a time, as the default does.
    /// From there the draws are made [`DESCENDING_BATCH`] words at a time (fewer at the end of the
    /// buffer): every product word · bound first, in a loop that vectorises, then the draws
    /// handed on. Lemire rejects a word only when its low half is below 2^32 mod bound, which is
    /// below the bound; so when no low half of a batch is below its bound, every word of the
    /// batch is accepted and the high halves are the draws. Otherwise (at 52 cards a chance of
    /// (2 + 3 + … + 52)/2^32, about 2^−21.6, a deck) the batch is drawn again one word at a time by
    /// [`RandomSource::below`], from the same words: the same draws either way.
    #[inline(always)]
    fn each_below_descending(&mut self, top: usize, each: impl FnMut(usize, usize)) {
        debug_assert!(top <= u32::MAX as usize);
        if top < DESCENDING_FROM {
            descending_one_at_a_time(self, top, each);
        } else {
            self.each_below_descending_in_batches(top, each);
        }
    }

    #[inline(always)]
    fn coin(&mut self) -> bool {
        if self.coins_left == 0 {
            self.coin_bits = self.word();
            self.coins_left = 32;
        }
        let bit = self.coin_bits & 1 == 1;
        self.coin_bits >>= 1;
        self.coins_left -= 1;
        bit
    }
}

impl<R: BlockRng> FastSource<R> {
    /// [`FastSource::each_below_descending`] from [`DESCENDING_FROM`] cards (out of line, so that
    /// the loops of smaller decks stay as they were).
    #[inline(never)]
    fn each_below_descending_in_batches(&mut self, top: usize, mut each: impl FnMut(usize, usize)) {
        let mut i = top - 1;
        let mut draws = [0u32; DESCENDING_BATCH];
        while i >= 1 {
            if self.next_word >= BUFFER_WORDS {
                refill(&mut self.wide, &mut self.rng, &mut self.words);
                self.next_word = 0;
            }
            let count = i.min(BUFFER_WORDS - self.next_word).min(DESCENDING_BATCH);
            let words = &self.words.0[self.next_word..self.next_word + count];
            let small = match &self.wide {
                // SAFETY: a `WideChaCha` exists only on a CPU with AVX2 (or AVX-512).
                #[cfg(target_arch = "x86_64")]
                Some(_) => unsafe { descending_batch_avx2(words, i as u32 + 1, &mut draws) },
                _ => descending_batch(words, i as u32 + 1, &mut draws),
            };
            if small {
                for _ in 0..count {
                    each(i, self.below(i + 1));
                    i -= 1;
                }
                continue;
            }
            self.next_word += count;
            for &draw in &draws[..count] {
                let draw = draw as usize;
                // SAFETY: the high half of word · (i + 1) is below i + 1.
                unsafe { std::hint::assert_unchecked(draw <= i) };
                each(i, draw);
                i -= 1;
            }
        }
    }
}

/// A batch of [`FastSource::each_below_descending`]: `draws[k]` = the high half of
/// `words[k] · (bound − k)`; whether some low half is below its bound (the batch must then be
/// drawn one word at a time).
#[inline(always)]
fn descending_batch(words: &[u32], bound: u32, draws: &mut [u32; DESCENDING_BATCH]) -> bool {
    let mut small = false;
    for ((draw, &word), k) in draws.iter_mut().zip(words).zip(0u32..) {
        let bound = bound.wrapping_sub(k);
        let product = u64::from(word) * u64::from(bound);
        *draw = (product >> 32) as u32;
        small |= (product as u32) < bound;
    }
    small
}

/// [`descending_batch`] in 256-bit registers, eight draws at a time: the even words' products
/// and the odd words' (each 32 × 32 → 64 bits) blended into eight high halves, the draws, and
/// eight low halves, each compared with its bound. The last eight may be fewer: their words
/// are read by a masked load (a copy of the words would be read back before its stores had
/// reached the cache), and the lanes past the words count for nothing.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn descending_batch_avx2(
    words: &[u32],
    bound: u32,
    draws: &mut [u32; DESCENDING_BATCH],
) -> bool {
    use std::arch::x86_64::{
        _mm256_andnot_si256, _mm256_blend_epi32, _mm256_cmpeq_epi32, _mm256_cmpgt_epi32,
        _mm256_loadu_si256, _mm256_maskload_epi32, _mm256_max_epu32, _mm256_mul_epu32,
        _mm256_or_si256, _mm256_set1_epi32, _mm256_setr_epi32, _mm256_setzero_si256,
        _mm256_slli_epi64, _mm256_srli_epi64, _mm256_storeu_si256, _mm256_sub_epi32,
        _mm256_testz_si256,
    };
    const EIGHT: usize = 8;
    let count = words.len();
    assert!(count <= DESCENDING_BATCH);
    let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let eight = _mm256_set1_epi32(EIGHT as i32);
    let every_lane = _mm256_set1_epi32(-1);
    // Word k's bound is bound − k.
    let mut bounds = _mm256_sub_epi32(_mm256_set1_epi32(bound as i32), lanes);
    let mut small = _mm256_setzero_si256();
    for (start, draws) in (0..count)
        .step_by(EIGHT)
        .zip(draws.chunks_exact_mut(EIGHT))
    {
        // The words, and the lanes that hold one (all but past the end of the last eight).
        let (words, holds_word) = if start + EIGHT <= count {
            // SAFETY: eight words of `words`, one 256-bit load.
            let words = unsafe { _mm256_loadu_si256(words[start..].as_ptr().cast()) };
            (words, every_lane)
        } else {
            // The lanes below count − start (their mask's top bit set); the others are not read.
            let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((count - start) as i32), lanes);
            // SAFETY: the masked-in lanes are words `start` to `count − 1` of `words`.
            let words = unsafe { _mm256_maskload_epi32(words[start..].as_ptr().cast(), mask) };
            (words, mask)
        };
        let even = _mm256_mul_epu32(words, bounds);
        let odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(words), _mm256_srli_epi64::<32>(bounds));
        let high = _mm256_blend_epi32::<0b1010_1010>(_mm256_srli_epi64::<32>(even), odd);
        let low = _mm256_blend_epi32::<0b1010_1010>(even, _mm256_slli_epi64::<32>(odd));
        // SAFETY: eight draws, one 256-bit store.
        unsafe { _mm256_storeu_si256(draws.as_mut_ptr().cast(), high) };
        // A low half below its bound: max(low, bound) ≠ low, in a lane that holds a word.
        let not_below = _mm256_cmpeq_epi32(_mm256_max_epu32(low, bounds), low);
        small = _mm256_or_si256(small, _mm256_andnot_si256(not_below, holds_word));
        bounds = _mm256_sub_epi32(bounds, eight);
    }
    _mm256_testz_si256(small, small) == 0
}

/// A source that replays a fixed script of answers, for tests: `below(k)` and `coin()` take the
/// next number of the script (a coin is `true` for a non-zero entry).
#[derive(Debug, Clone)]
pub struct ScriptedSource {
    script: Vec<usize>,
    position: usize,
}

impl ScriptedSource {
    /// A source answering with `script`, in order.
    pub fn new(script: Vec<usize>) -> Self {
        ScriptedSource {
            script,
            position: 0,
        }
    }

    /// How many answers have been taken so far.
    pub fn used(&self) -> usize {
        self.position
    }

    fn next(&mut self) -> usize {
        let value = *self
            .script
            .get(self.position)
            .expect("the scripted source ran out of answers");
        self.position += 1;
        value
    }
}

impl RandomSource for ScriptedSource {
    fn below(&mut self, bound: usize) -> usize {
        let value = self.next();
        assert!(
            value < bound,
            "scripted answer {value} is not below {bound}"
        );
        value
    }

    fn coin(&mut self) -> bool {
        self.next() != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lemire_gives_every_result_the_same_number_of_accepted_words() {
        // Exhaustive over all 2^16 input words: for each bound, feed every word once (a word that
        // is rejected produces no result) and count the results. Exactly floor(2^16 / bound)
        // words must map to each result, which is what "exactly unbiased" means.
        for bound in 1u16..=700 {
            let mut counts = vec![0u32; bound as usize];
            for word in 0..=u16::MAX {
                let mut fed = false;
                let mut rejected = false;
                let result = lemire(bound, || {
                    if fed {
                        // The word under test was rejected; answer with a word that is always
                        // accepted (low half 2^16 − bound ≥ threshold) so the call returns.
                        rejected = true;
                        u16::MAX
                    } else {
                        fed = true;
                        word
                    }
                });
                if !rejected {
                    counts[result as usize] += 1;
                }
            }
            let expected = 65536 / u32::from(bound);
            assert!(
                counts.iter().all(|&c| c == expected),
                "bound {bound}: counts are not all {expected}"
            );
        }
    }

    #[test]
    fn same_seed_and_block_give_the_same_stream_and_blocks_differ() {
        let mut a = ChaCha8Rng::for_block(42, 3);
        let mut b = ChaCha8Rng::for_block(42, 3);
        let mut c = ChaCha8Rng::for_block(42, 4);
        let xs: Vec<u32> = (0..8).map(|_| a.next_u32()).collect();
        let ys: Vec<u32> = (0..8).map(|_| b.next_u32()).collect();
        let zs: Vec<u32> = (0..8).map(|_| c.next_u32()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
    }

    #[test]
    fn splitmix_key_matches_the_reference_sequence() {
        // SplitMix64 seeded with 0 starts 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4 (the values
        // printed by the reference C implementation of Vigna's splitmix64.c).
        let key = key_from_seed(0);
        assert_eq!(
            u64::from_le_bytes(key[0..8].try_into().unwrap()),
            0xE220_A839_7B1D_CDAF
        );
        assert_eq!(
            u64::from_le_bytes(key[8..16].try_into().unwrap()),
            0x6E78_9E6A_A1B9_65F4
        );
    }

    #[test]
    fn the_fast_source_draws_the_generators_words_in_order_across_refills() {
        // 32 coins consume exactly one word, so coin 32 i + k must be bit k of word i, across
        // several refills of the source's buffer.
        let mut source = FastSource::new(ChaCha8Rng::for_block(9, 2));
        let mut reference = ChaCha8Rng::for_block(9, 2);
        for _ in 0..3 * BUFFER_WORDS + 5 {
            let word = reference.next_u32();
            for bit in 0..32 {
                assert_eq!(source.coin(), (word >> bit) & 1 == 1);
            }
        }
    }

    /// The first `count` words of `source`, read 32 coins to a word (a coin is one bit, from
    /// the lowest up), so nothing but the word stream is under test.
    fn words_by_coins<R: BlockRng>(source: &mut FastSource<R>, count: usize) -> Vec<u32> {
        (0..count)
            .map(|_| (0..32).fold(0u32, |word, bit| word | (u32::from(source.coin()) << bit)))
            .collect()
    }

    /// Both paths of the fast source, from where `rng` stands, give `rng.next_u32()`'s words
    /// over several refills; the wide one is used whenever this CPU has AVX-512 or AVX2.
    fn check_both_paths<R: BlockRng + Clone>(rng: R) {
        let count = 4 * BUFFER_WORDS + 3;
        let mut reference = rng.clone();
        let expected: Vec<u32> = (0..count).map(|_| reference.next_u32()).collect();
        let mut wide = FastSource::new(rng.clone());
        assert_eq!(
            wide.is_wide(),
            crate::engine::chacha::available() || crate::engine::chacha::avx2_available()
        );
        assert_eq!(words_by_coins(&mut wide, count), expected, "wide path");
        let mut portable = FastSource::with_rand_chacha(rng);
        assert!(!portable.is_wide());
        assert_eq!(
            words_by_coins(&mut portable, count),
            expected,
            "rand_chacha path"
        );
    }

    #[test]
    fn both_paths_of_the_fast_source_give_rand_chachas_words_for_every_variant() {
        for seed in [0, 1, 42, u64::MAX] {
            for block in [0, 1, 7, 1 << 20, u64::MAX] {
                check_both_paths(ChaCha8Rng::for_block(seed, block));
                check_both_paths(ChaCha12Rng::for_block(seed, block));
                check_both_paths(ChaCha20Rng::for_block(seed, block));
            }
        }
    }

    #[test]
    fn the_fast_source_carries_on_from_a_generator_already_part_way_into_a_block() {
        // Positions inside a block (5 words in), on a block boundary, and where the 64-bit block
        // counter crosses 2^32 (the carry into state word 13) within the first refill.
        for word_pos in [5u128, 16, 16 * 16 + 15, ((1u128 << 32) - 3) * 16 + 9] {
            let mut rng = ChaCha8Rng::for_block(11, 5);
            rng.set_word_pos(word_pos);
            check_both_paths(rng);
            let mut rng = ChaCha20Rng::for_block(11, 5);
            rng.set_word_pos(word_pos);
            check_both_paths(rng);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Any key, stream and position in the 2^68-word stream (the high bits of the block
        /// counter included), any of the three round counts.
        #[test]
        fn both_paths_give_rand_chachas_words_from_any_key_stream_and_position(
            key in proptest::prelude::any::<[u8; 32]>(),
            stream in proptest::prelude::any::<u64>(),
            word_pos in 0u128..(1 << 68),
            rounds in 0usize..3,
        ) {
            match rounds {
                0 => {
                    let mut rng = ChaCha8Rng::from_seed(key);
                    rng.set_stream(stream);
                    rng.set_word_pos(word_pos);
                    check_both_paths(rng);
                }
                1 => {
                    let mut rng = ChaCha12Rng::from_seed(key);
                    rng.set_stream(stream);
                    rng.set_word_pos(word_pos);
                    check_both_paths(rng);
                }
                _ => {
                    let mut rng = ChaCha20Rng::from_seed(key);
                    rng.set_stream(stream);
                    rng.set_word_pos(word_pos);
                    check_both_paths(rng);
                }
            }
        }
    }

    #[test]
    fn bounded_draws_are_the_same_on_both_paths() {
        let mut wide = FastSource::new(ChaCha12Rng::for_block(3, 9));
        let mut portable = FastSource::with_rand_chacha(ChaCha12Rng::for_block(3, 9));
        for i in 0..5000 {
            let bound = 1 + (i * 7919) % 100_000;
            assert_eq!(wide.below(bound), portable.below(bound));
        }
    }

    #[test]
    fn runs_of_draws_are_the_draws_below_takes_one_by_one() {
        // Bounds 24 (almost never rejects), 2^31 + 1 (rejects a word in two, so rejections
        // fall on the buffer's last word too), and 3 · 2^30 (a third); runs of 0 to 700 draws,
        // so they start and end at every offset in a 256-word buffer and span refills; a
        // coin between runs moves the read position off a run's own boundaries.
        for (portable, bound) in [(false, 24), (true, 24), (false, (1 << 31) + 1), (false, 3 << 30)]
        {
            let rng = ChaCha8Rng::for_block(11, 4);
            let (mut runs, mut reference) = if portable {
                (
                    FastSource::with_rand_chacha(rng.clone()),
                    FastSource::with_rand_chacha(rng),
                )
            } else {
                (FastSource::new(rng.clone()), FastSource::new(rng))
            };
            for run in 0..60u64 {
                let count = (run * 97) % 701;
                let mut drawn = Vec::new();
                runs.each_below(bound, count, |x| drawn.push(x));
                let expected: Vec<usize> = (0..count).map(|_| reference.below(bound)).collect();
                assert_eq!(drawn, expected, "bound {bound}, run {run}");
                assert_eq!(runs.coin(), reference.coin());
            }
        }
    }

    #[test]
    fn descending_draws_are_the_draws_below_takes_one_by_one() {
        // Fisher–Yates' draws of decks of 1 to 130 cards (one batch, a batch and a part, two),
        // starting anywhere in the 256-word buffer so that batches are cut by refills, with one
        // word of the first batch replaced by 0: its low half, 0, is below the bound, so the
        // batch is drawn again word by word, and the word is rejected unless the bound is a
        // power of two (2^32 mod bound = 0), when it is taken as 0.
        for portable in [false, true] {
            for top in [1, 2, 3, 17, 33, 52, 64, 65, 66, 130] {
                for start in [0, 1, 100, 200, 230, 250, 255, 256] {
                    for zero in [None, Some(0), Some(19), Some(20), Some(31)] {
                        let rng = ChaCha8Rng::for_block(13, top as u64);
                        let (mut batched, mut reference) = if portable {
                            (
                                FastSource::with_rand_chacha(rng.clone()),
                                FastSource::with_rand_chacha(rng),
                            )
                        } else {
                            (FastSource::new(rng.clone()), FastSource::new(rng))
                        };
                        for source in [&mut batched, &mut reference] {
                            source.word();
                            source.next_word = start;
                            if let Some(at) = zero.map(|k| start + k).filter(|&at| at < 256) {
                                source.words.0[at] = 0;
                            }
                        }
                        let mut drawn = Vec::new();
                        batched.each_below_descending(top, |i, j| drawn.push((i, j)));
                        let expected: Vec<(usize, usize)> = (1..top)
                            .rev()
                            .map(|i| (i, reference.below(i + 1)))
                            .collect();
                        let case = format!("top {top}, start {start}, zero {zero:?}");
                        assert_eq!(drawn, expected, "{case}");
                        assert_eq!(batched.next_word, reference.next_word, "{case}");
                        assert_eq!(batched.below(1000), reference.below(1000), "{case}");
                    }
                }
            }
        }
    }

    #[test]
    fn coins_use_every_bit_of_a_word() {
        let mut source = FastSource::new(ChaCha8Rng::for_block(1, 0));
        let mut reference = ChaCha8Rng::for_block(1, 0);
        let word = reference.next_u32();
        for bit in 0..32 {
            assert_eq!(source.coin(), (word >> bit) & 1 == 1);
        }
    }
}
