//! How a `W`-bit word becomes an integer in `[0, k)`: the five range mappings real code uses,
//! each as the draw itself and as its exact law.
//!
//! The draw ([`Mapping::draw`]) consumes words exactly as the real code does: the rejection
//! mappings draw again after a rejected word, `float` draws the words its ecosystem's double
//! needs. The law ([`Mapping::weights`]) says, for an ideal source of uniform `W`-bit words, how
//! many words land on each outcome; with [`Mapping::denominator`] that is the exact probability
//! of each outcome, which the exact engine uses in place of `1/k` so that a biased mapping has an
//! exact law too. Every law is in closed form, derived in a comment beside it, and checked in
//! the tests against a brute-force count over all words up to 16 bits (and `float`'s law for
//! 52- and 53-bit doubles at every threshold, in real `f64` arithmetic).
//!
//! `--bits W` (`W` at most the generator's native width) narrows a generator's native words to
//! their **top** `W` bits (`word >> (BITS - W)`, see [`View`]). That is what code that asks
//! for fewer bits gets from its library: a C `rand()` is bits 16..=30 of its LCG state, Java's
//! `next(bits)` and Python's `getrandbits(k)` keep the top bits of a word, and the top bits
//! are the good ones of an LCG. A 15-bit generator (`msvc`, `ansi-c`) is seen unchanged with
//! `--bits 15`: exactly what `rand()` code sees.

use std::fmt;

use crate::engine::generators::{DOTNET_MBIG, WordSource};

pub mod native;

pub use native::NativeDraw;

/// A stream of words of a known width, and of the doubles in `[0, 1)` built from them: what a
/// mapping consumes.
pub trait Words {
    /// The width `W` of a word (1..=64): every [`Words::next_word`] is below `2^W`.
    fn bits(&self) -> u32;
    /// The next word.
    fn next_word(&mut self) -> u64;
    /// The precision `P` of [`Words::next_unit`] (1..=53).
    fn unit_bits(&self) -> u32;
    /// The next double in `[0, 1)`, `m / 2^P` for an integer `m`.
    fn next_unit(&mut self) -> f64;
    /// The bounded draw of the generator's own language (`--map native`), if the words are a
    /// generator's native words and its language has one.
    fn native_draw(&self) -> Option<NativeDraw> {
        None
    }
}

/// A generator as `--bits` shows it to a mapping: its native words and its ecosystem's doubles,
/// or its words narrowed to their top `W` bits.
///
/// Narrowed, a double is built from one narrowed word as `(word >> (W - P)) / 2^P` with
/// `P = min(W, 53)`: C's `rand() / (RAND_MAX + 1.0)` for a `W`-bit `rand()`, and the usual top
/// 53 bits of a wider word.
#[derive(Debug, Clone)]
pub struct View<S> {
    source: S,
    narrowed_to: Option<u32>,
}

impl<S: WordSource> View<S> {
    /// The generator's native words and doubles (no `--bits`).
    pub fn native(source: S) -> Self {
        View {
            source,
            narrowed_to: None,
        }
    }

    /// The generator's words narrowed to their top `bits` bits (`--bits`), for
    /// `1 <= bits <= S::BITS`. `--bits` equal to the native width still changes how `float`
    /// builds its double: from one word, not the ecosystem's way.
    pub fn narrowed(source: S, bits: u32) -> Result<Self, MappingError> {
        if bits == 0 || bits > S::BITS {
            return Err(MappingError::BitsWiderThanGenerator {
                bits,
                generator: S::NAME,
                native: S::BITS,
            });
        }
        Ok(View {
            source,
            narrowed_to: Some(bits),
        })
    }

    /// The generator, in its current state.
    pub fn into_inner(self) -> S {
        self.source
    }
}

impl<S: WordSource> Words for View<S> {
    fn bits(&self) -> u32 {
        self.narrowed_to.unwrap_or(S::BITS)
    }

    fn next_word(&mut self) -> u64 {
        self.source.next_word() >> (S::BITS - self.bits())
    }

    fn unit_bits(&self) -> u32 {
        match self.narrowed_to {
            None => S::DOUBLE_BITS,
            Some(bits) => bits.min(53),
        }
    }

    fn next_unit(&mut self) -> f64 {
        match self.narrowed_to {
            None => self.source.next_double(),
            Some(bits) => {
                let precision = self.unit_bits();
                let m = self.next_word() >> (bits - precision);
                m as f64 / (1u64 << precision) as f64
            }
        }
    }
}

/// Words replayed from a script, for tests and for walking a mapping word by word: the words
/// in order, each below `2^bits`; a double is a word's top `min(bits, 53)` bits over
/// `2^min(bits, 53)`. Panics when the script runs out.
#[derive(Debug, Clone)]
pub struct ScriptedWords {
    bits: u32,
    words: Vec<u64>,
    position: usize,
}

impl ScriptedWords {
    /// A stream of `bits`-bit words (1..=64) answering with `words`, in order.
    pub fn new(bits: u32, words: Vec<u64>) -> Self {
        assert!(
            (1..=64).contains(&bits),
            "word width {bits} is not in 1..=64"
        );
        assert!(
            bits == 64 || words.iter().all(|&w| w >> bits == 0),
            "a scripted word is wider than {bits} bits"
        );
        ScriptedWords {
            bits,
            words,
            position: 0,
        }
    }

    /// How many words have been taken so far.
    pub fn used(&self) -> usize {
        self.position
    }
}

impl Words for ScriptedWords {
    fn bits(&self) -> u32 {
        self.bits
    }

    fn next_word(&mut self) -> u64 {
        let word = *self
            .words
            .get(self.position)
            .expect("the scripted words ran out");
        self.position += 1;
        word
    }

    fn unit_bits(&self) -> u32 {
        self.bits.min(53)
    }

    fn next_unit(&mut self) -> f64 {
        let precision = self.unit_bits();
        let m = self.next_word() >> (self.bits - precision);
        m as f64 / (1u64 << precision) as f64
    }
}

/// The range mappings offered by `--map`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mapping {
    /// Lemire's multiply-and-reject (D. Lemire, "Fast Random Integer Generation in an
    /// Interval", ACM TOMACS 29(1), 2019): the high half of `word * k`, rejecting the word when
    /// the low half is below `2^W mod k`. Unbiased.
    Lemire,
    /// Threshold then modulo, as OpenBSD's `arc4random_uniform`: reject words below
    /// `2^W mod k`, return `word % k`. Unbiased.
    Rejection,
    /// PokerStars' draw (its published shuffle description): the top `b = ⌈log₂ k⌉` bits of a
    /// word, the word drawn again while they are `k` or more. Unbiased.
    Bitmask,
    /// `word % k`, no rejection: the low outcomes get one extra word each.
    Modulo,
    /// `(word * k) >> W`, no rejection: the extra words are spread over the range.
    Multiply,
    /// `floor(u * k)` in `f64` arithmetic, `u` a double in `[0, 1)` (Python's
    /// `int(random() * k)`, JavaScript's `Math.floor(Math.random() * k)`, Java's
    /// `(int) (nextDouble() * k)`, C's `rand() / (RAND_MAX + 1.0) * k`).
    Float,
    /// The generator's own language's draw ([`NativeDraw`]): Java's `nextInt(bound)`,
    /// Python's `randbelow`, …; drawn through [`Words::native_draw`], and its law is the
    /// [`NativeDraw::law`] of that draw (never asked of this variant).
    Native,
    /// .NET's `(int) (Sample() * k)`, `Sample()` a word below `int.MaxValue` times
    /// `1.0 / int.MaxValue` (the law of `--map native` on `dotnet`; not a `--map` of its own).
    /// Its input is the 31-bit words below `2^31 - 1`.
    DotnetSample,
}

/// A mapping asked for something it cannot do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MappingError {
    /// `k` is 0: there is no integer below it.
    EmptyRange,
    /// The word width is not in 1..=64 (or above 53 for `float`, whose doubles hold 53 bits).
    BadWidth {
        /// The mapping.
        mapping: Mapping,
        /// The width asked for.
        bits: u32,
    },
    /// A rejection mapping cannot draw below a `k` larger than `2^W`: it would reject every
    /// word.
    RangeWiderThanWords {
        /// The mapping.
        mapping: Mapping,
        /// The range.
        k: u64,
        /// The word width.
        bits: u32,
    },
    /// `float` takes `k` up to 2^52, where the rounding of `u * k` has the law derived here.
    RangeTooLargeForFloat {
        /// The range.
        k: u64,
    },
    /// `--bits` asked for more bits than the generator's words have.
    BitsWiderThanGenerator {
        /// The width asked for.
        bits: u32,
        /// The generator's name.
        generator: &'static str,
        /// The generator's native width.
        native: u32,
    },
}

impl fmt::Display for MappingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            MappingError::EmptyRange => write!(f, "cannot draw an integer below 0"),
            MappingError::BadWidth { mapping, bits } => write!(
                f,
                "--map {} cannot use {bits}-bit words (it takes 1..={})",
                mapping.name(),
                mapping.max_bits()
            ),
            MappingError::RangeWiderThanWords { mapping, k, bits } => write!(
                f,
                "--map {} cannot draw below {k} from {bits}-bit words: every word would be \
                 rejected; use more --bits or a mapping without rejection",
                mapping.name()
            ),
            MappingError::RangeTooLargeForFloat { k } => {
                write!(f, "--map float draws below at most 2^52, not {k}")
            }
            MappingError::BitsWiderThanGenerator {
                bits,
                generator,
                native,
            } => write!(
                f,
                "--bits {bits} is not available from --rng {generator}, whose words have \
                 {native} bits; use --bits 1..={native}"
            ),
        }
    }
}

impl std::error::Error for MappingError {}

impl Mapping {
    /// Every mapping `--map` takes, in the order of the help text.
    pub const ALL: [Mapping; 7] = [
        Mapping::Lemire,
        Mapping::Rejection,
        Mapping::Bitmask,
        Mapping::Modulo,
        Mapping::Multiply,
        Mapping::Float,
        Mapping::Native,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Mapping::Lemire => "lemire",
            Mapping::Rejection => "rejection",
            Mapping::Bitmask => "bitmask",
            Mapping::Modulo => "modulo",
            Mapping::Multiply => "multiply",
            Mapping::Float => "float",
            Mapping::Native => "native",
            Mapping::DotnetSample => "dotnet-sample",
        }
    }

    /// Whether the mapping's law on uniform words is its own (it may favour some outcomes), as
    /// opposed to the rejection mappings' uniform law. `native` has no law until resolved
    /// with its generator ([`NativeDraw::law`]).
    pub fn has_biased_law(self) -> bool {
        matches!(
            self,
            Mapping::Modulo | Mapping::Multiply | Mapping::Float | Mapping::DotnetSample
        )
    }

    /// Whether the mapping rejects words (and so draws a variable number of them).
    pub fn rejects(self) -> bool {
        matches!(self, Mapping::Lemire | Mapping::Rejection | Mapping::Bitmask)
    }

    /// The width of the uniform input that [`Mapping::weights`] is counted over for draws from
    /// `words`: the word width `W`, or for `float` the precision `P` of its doubles.
    pub fn input_bits<W: Words + ?Sized>(self, words: &W) -> u32 {
        match self {
            Mapping::Float => words.unit_bits(),
            _ => words.bits(),
        }
    }

    fn max_bits(self) -> u32 {
        match self {
            Mapping::Float => 53,
            Mapping::DotnetSample => 31,
            _ => 64,
        }
    }

    /// Whether the mapping can draw below `k` from `bits`-bit input (the word width, or the
    /// double's precision for `float`); every other method panics where this is an error.
    pub fn check(self, k: u64, bits: u32) -> Result<(), MappingError> {
        if k == 0 {
            return Err(MappingError::EmptyRange);
        }
        if bits == 0 || bits > self.max_bits() {
            return Err(MappingError::BadWidth {
                mapping: self,
                bits,
            });
        }
        if self.rejects() && u128::from(k) > 1u128 << bits {
            return Err(MappingError::RangeWiderThanWords {
                mapping: self,
                k,
                bits,
            });
        }
        if self == Mapping::Float && k > 1 << 52 {
            return Err(MappingError::RangeTooLargeForFloat { k });
        }
        if self == Mapping::DotnetSample && (bits != 31 || k > DOTNET_MBIG as u64) {
            return Err(MappingError::RangeWiderThanWords {
                mapping: self,
                k,
                bits,
            });
        }
        Ok(())
    }

    fn assert_valid(self, k: u64, bits: u32) {
        if let Err(error) = self.check(k, bits) {
            panic!("{error}");
        }
    }

    /// An integer in `[0, k)` drawn from `words`, consuming words exactly as the real code
    /// does.
    pub fn draw<W: Words + ?Sized>(self, words: &mut W, k: u64) -> u64 {
        if self == Mapping::Native {
            let native = words
                .native_draw()
                .expect("--map native is only offered for generators with a native draw");
            return native.draw(words, k);
        }
        let bits = self.input_bits(words);
        self.assert_valid(k, bits);
        let k_wide = u128::from(k);
        let mask = (1u128 << bits) - 1;
        match self {
            Mapping::Lemire => {
                // The low half is compared with 2^W mod k only when it is below k (the only case
                // where it can be below the threshold), as Lemire's code does: the division is
                // skipped, the words drawn are the same.
                let mut product = u128::from(words.next_word()) * k_wide;
                if product & mask < k_wide {
                    let threshold = (1u128 << bits) % k_wide;
                    while product & mask < threshold {
                        product = u128::from(words.next_word()) * k_wide;
                    }
                }
                (product >> bits) as u64
            }
            Mapping::Rejection => {
                let threshold = ((1u128 << bits) % k_wide) as u64;
                loop {
                    let word = words.next_word();
                    if word >= threshold {
                        return word % k;
                    }
                }
            }
            Mapping::Bitmask => {
                // The top b bits: word >> (W - b), in 128 bits so that b = 0 (k = 1) shifts by W.
                let shift = bits - ceil_log2(k);
                loop {
                    let value = u128::from(words.next_word()) >> shift;
                    if value < k_wide {
                        return value as u64;
                    }
                }
            }
            Mapping::Modulo => words.next_word() % k,
            Mapping::Multiply => ((u128::from(words.next_word()) * k_wide) >> bits) as u64,
            Mapping::Float => {
                let outcome = (words.next_unit() * k as f64).floor() as u64;
                debug_assert!(outcome < k, "floor(u * k) reached k");
                outcome
            }
            Mapping::DotnetSample => native::dotnet_next(words.next_word(), k),
            Mapping::Native => unreachable!("drawn above"),
        }
    }

    /// How many of the `2^bits` equally likely inputs land on each outcome `0..k` (for the
    /// rejection mappings: how many of the accepted words). `bits` is the word width `W`, or
    /// for `float` the precision `P` of its doubles (see [`Mapping::input_bits`]). The
    /// probability of outcome `j` is `weights[j] / denominator`. The vector has `k` entries;
    /// [`Mapping::weight`] gives one of them for a large `k`.
    pub fn weights(self, k: u64, bits: u32) -> Vec<u128> {
        self.assert_valid(k, bits);
        (0..k).map(|j| self.weight(k, bits, j)).collect()
    }

    /// How many of the `2^bits` equally likely inputs land on outcome `j < k` (see
    /// [`Mapping::weights`]), in closed form.
    pub fn weight(self, k: u64, bits: u32, j: u64) -> u128 {
        self.assert_valid(k, bits);
        assert!(j < k, "outcome {j} is not below {k}");
        let words = 1u128 << bits;
        let (k_wide, j_wide) = (u128::from(k), u128::from(j));
        match self {
            // Lemire: the words x with high half floor(x·k / 2^W) = j have low halves
            // l = x·k - j·2^W = l0, l0 + k, l0 + 2k, ... up to 2^W, starting at some l0 < k:
            // every integer in [l0, 2^W) that is congruent to l0 mod k, hence (as l0 < k) every
            // such integer in [0, 2^W). The accepted ones are those in [t, 2^W), t = 2^W mod k,
            // an interval of exactly k·floor(2^W / k) integers, which holds floor(2^W / k) of
            // every residue class. Rejection: the accepted words are that same interval, and
            // their residues mod k are the outcomes, floor(2^W / k) each.
            Mapping::Lemire | Mapping::Rejection => words / k_wide,
            // Bitmask: the value v = word >> (W - b) is j for the 2^(W - b) words j·2^(W - b) ..
            // (j + 1)·2^(W - b); the values k..2^b are rejected (b ≤ W as k ≤ 2^W).
            Mapping::Bitmask => words >> ceil_log2(k),
            // Modulo: 2^W = q·k + r with q = floor(2^W / k), r = 2^W mod k. The words 0..q·k
            // hold every residue q times; the r words q·k..2^W add one to residues 0..r.
            Mapping::Modulo => words / k_wide + u128::from(j_wide < words % k_wide),
            // Multiply: floor(x·k / 2^W) >= j  <=>  x·k >= j·2^W  <=>  x >= ceil(j·2^W / k),
            // so outcome j gets ceil((j+1)·2^W / k) - ceil(j·2^W / k) words. ((j+1)·2^W <
            // 2^128 since j < k < 2^64.)
            Mapping::Multiply => {
                let at_least = |j: u128| (j << bits).div_ceil(k_wide);
                at_least(j_wide + 1) - at_least(j_wide)
            }
            // Float: see float_inputs_below.
            Mapping::Float => float_inputs_below(j + 1, k, bits) - float_inputs_below(j, k, bits),
            // .NET: see dotnet_words_below.
            Mapping::DotnetSample => dotnet_words_below(j + 1, k) - dotnet_words_below(j, k),
            Mapping::Native => panic!("{}", NATIVE_HAS_NO_LAW_OF_ITS_OWN),
        }
    }

    /// The number of equally likely inputs the [`Mapping::weights`] share out: `2^bits`, or for
    /// the rejection mappings the accepted words, `2^bits - (2^bits mod k)`.
    pub fn denominator(self, k: u64, bits: u32) -> u128 {
        self.assert_valid(k, bits);
        let words = 1u128 << bits;
        match self {
            Mapping::DotnetSample => DOTNET_MBIG as u128,
            Mapping::Native => panic!("{}", NATIVE_HAS_NO_LAW_OF_ITS_OWN),
            // The accepted words: 2^(W - b) for each of the k values.
            Mapping::Bitmask => u128::from(k) * (words >> ceil_log2(k)),
            _ if self.rejects() => words - words % u128::from(k),
            _ => words,
        }
    }
}

/// `⌈log₂ k⌉` for `k ≥ 1`: the bits `bitmask` takes to draw below `k` (0 for `k = 1`).
fn ceil_log2(k: u64) -> u32 {
    64 - (k - 1).leading_zeros()
}

const NATIVE_HAS_NO_LAW_OF_ITS_OWN: &str =
    "--map native has the law of its generator's draw: resolve it with NativeDraw::law";

/// How many of .NET's words `w < int.MaxValue` give `(int) (w * (1.0 / int.MaxValue) * k) < j`
/// (for `1 <= k <= int.MaxValue`, `0 <= j <= k`).
///
/// Derivation. The outcome is `trunc(RN(RN(w · c) · k))` with `c = RN(1 / (2^31 − 1))`: every
/// step is monotone in `w` (rounding to nearest is monotone, and so are the products by the
/// positive `c` and `k` and the truncation), so the words giving less than `j` are exactly
/// `0..t` for the smallest `t` whose outcome reaches `j`. That `t` is found by bisection over
/// `[0, 2^31 − 1]` in the same `f64` arithmetic as the draw, 31 steps per threshold.
fn dotnet_words_below(j: u64, k: u64) -> u128 {
    let all = DOTNET_MBIG as u64;
    if j == 0 {
        return 0;
    }
    // The first word whose outcome reaches j; `all` if none does.
    let (mut low, mut high) = (0u64, all);
    while low < high {
        let middle = low + (high - low) / 2;
        if native::dotnet_next(middle, k) >= j {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    u128::from(low)
}

/// How many of the doubles `u = m / 2^p`, `0 <= m < 2^p`, give `floor(u * k) < j` when `u * k`
/// is computed in `f64` (for `p <= 53`, `1 <= k <= 2^52`, `0 <= j <= k`).
///
/// Derivation. `u` and `k` are exact doubles, so the computed product is `RN(m·k / 2^p)`, the
/// exact product rounded once to the nearest double, ties to even. `RN` is monotone, so
/// `floor(RN(v)) >= j` exactly when `v` reaches the smallest real that rounds to `j` or more:
/// the midpoint between `j` and the double `pred(j)` below it, where a tie rounds to `j`
/// because `j < 2^52` has an even significand. With `e = floor(log2 j)`, the doubles just
/// below `j` are spaced `2^(e-52)`, or `2^(e-53)` when `j = 2^e` (below a power of two the
/// spacing halves), so the midpoint is `j - h / 2^54` with `h = 2^(e+1)`, or `2^e` for a power
/// of two. Multiplying by `2^54`: `floor(RN(m·k / 2^p)) >= j  <=>  m·k·2^(54-p) >= j·2^54 -
/// h`, hence `ceil((j·2^54 - h) / (k·2^(54-p)))` values of `m` fall below `j` (capped at
/// `2^p`). When `m·k` fits in 53 bits there is no rounding and this is the `multiply` count;
/// otherwise a product just below an integer can round up to it (for `k = 3`, `m = (2^54 -
/// 1) / 3` gives `u·3 = 2 - 2^-53`, which rounds to 2). For `j = k` the count is all `2^p`
/// doubles: `u·k <= k - k / 2^p`, more than half a spacing below `k` for `p <= 53`.
fn float_inputs_below(j: u64, k: u64, p: u32) -> u128 {
    let all = 1u128 << p;
    if j == 0 {
        return 0;
    }
    if j == k {
        return all;
    }
    let e = 63 - j.leading_zeros();
    let h = if j.is_power_of_two() {
        1u128 << e
    } else {
        1u128 << (e + 1)
    };
    let threshold = (u128::from(j) << 54) - h;
    let step = u128::from(k) << (54 - p);
    threshold.div_ceil(step).min(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::generators::{JavaRandom, MsvcRand, Mt19937, V8MathRandom};

    /// Counts, for every `bits`-bit word, which outcome the mapping gives when that word is the
    /// first one drawn; a word a rejection mapping rejects counts for nothing (the draw is then
    /// completed with a word that the mapping always accepts: `2^W - 1`, or 0 for `bitmask`,
    /// whose top bits are then 0).
    fn brute_force(mapping: Mapping, k: u64, bits: u32) -> Vec<u128> {
        let mut counts = vec![0u128; k as usize];
        let always_accepted = if mapping == Mapping::Bitmask {
            0
        } else {
            (1u64 << bits) - 1
        };
        for word in 0..1u64 << bits {
            let mut words = ScriptedWords::new(bits, vec![word, always_accepted]);
            let outcome = mapping.draw(&mut words, k);
            if words.used() == 1 {
                counts[outcome as usize] += 1;
            }
        }
        counts
    }

    /// The ranges tried for `bits`-bit words: 1..=52, a few larger, and around `2^bits`
    /// (beyond it only for the mappings without rejection).
    fn ranges(mapping: Mapping, bits: u32) -> impl Iterator<Item = u64> {
        let words = 1u64 << bits;
        (1..=52)
            .chain([
                53,
                100,
                1000,
                4096,
                words - 1,
                words,
                words + 1,
                3 * words + 5,
            ])
            .filter(move |&k| !mapping.rejects() || k <= words)
    }

    #[test]
    fn every_closed_form_law_equals_a_brute_force_count_for_words_up_to_16_bits() {
        for bits in 8..=16 {
            for mapping in Mapping::ALL.into_iter().filter(|&m| m != Mapping::Native) {
                for k in ranges(mapping, bits) {
                    let law = mapping.weights(k, bits);
                    assert_eq!(
                        law,
                        brute_force(mapping, k, bits),
                        "{} k={k} W={bits}",
                        mapping.name()
                    );
                    assert_eq!(law.iter().sum::<u128>(), mapping.denominator(k, bits));
                }
            }
        }
    }

    #[test]
    fn bitmask_gives_every_outcome_two_to_the_w_minus_b_words_and_the_rejected_ones_none() {
        // Exhaustive over every word of 1 to 12 bits: the top b = ceil(log2 k) bits are the
        // value; a word is accepted (drawn alone) exactly when that value is below k.
        for bits in 1..=12u32 {
            for k in 1..=(1u64 << bits) {
                let b = 64 - (k - 1).leading_zeros();
                let counts = brute_force(Mapping::Bitmask, k, bits);
                assert!(
                    counts.iter().all(|&c| c == 1u128 << (bits - b)),
                    "k={k} W={bits}"
                );
                assert_eq!(Mapping::Bitmask.weights(k, bits), counts, "k={k} W={bits}");
                assert_eq!(
                    Mapping::Bitmask.denominator(k, bits),
                    u128::from(k) << (bits - b)
                );
            }
        }
    }

    #[test]
    fn bitmask_draws_again_while_the_top_bits_reach_k() {
        // k = 5 on 8-bit words: b = 3, the value is word >> 5; 7 and 5 are rejected, 4 taken.
        let mut words = ScriptedWords::new(8, vec![7 << 5, (5 << 5) | 31, 4 << 5]);
        assert_eq!(Mapping::Bitmask.draw(&mut words, 5), 4);
        assert_eq!(words.used(), 3);
        // k = 4 takes two bits (a power of two is never rejected); k = 1 takes none, one word.
        let mut words = ScriptedWords::new(8, vec![0b1100_0000, 0xFF]);
        assert_eq!(Mapping::Bitmask.draw(&mut words, 4), 3);
        assert_eq!(Mapping::Bitmask.draw(&mut words, 1), 0);
        assert_eq!(words.used(), 2);
        // 64-bit words: the top bits of the full width.
        let mut words = ScriptedWords::new(64, vec![u64::MAX, 1 << 62]);
        assert_eq!(Mapping::Bitmask.draw(&mut words, 3), 1);
        assert_eq!(words.used(), 2);
        assert_eq!(
            Mapping::Bitmask.check(257, 8),
            Err(MappingError::RangeWiderThanWords {
                mapping: Mapping::Bitmask,
                k: 257,
                bits: 8
            })
        );
    }

    #[test]
    fn mappings_without_rejection_give_zero_weight_beyond_the_words() {
        // rand() % 100000 with a 15-bit rand() never exceeds 32767: real code has this bug.
        for mapping in [Mapping::Modulo, Mapping::Multiply, Mapping::Float] {
            for k in [257, 300, 1000] {
                assert_eq!(mapping.weights(k, 8), brute_force(mapping, k, 8));
                assert_eq!(
                    mapping.weights(k, 8).iter().filter(|&&w| w == 0).count(),
                    k as usize - 256
                );
            }
        }
    }

    #[test]
    fn lemire_and_rejection_give_every_outcome_the_same_weight() {
        for bits in [8, 15, 16, 31, 32, 53, 64] {
            let ks = (1..=52).chain([1000, 1 << 20, (1 << 20) + 1]);
            for k in ks.filter(|&k| u128::from(k) <= 1 << bits) {
                let lemire = Mapping::Lemire.weights(k, bits);
                assert_eq!(lemire, Mapping::Rejection.weights(k, bits));
                assert!(lemire.iter().all(|&w| w == lemire[0]));
                assert_eq!(
                    lemire[0] * u128::from(k),
                    Mapping::Lemire.denominator(k, bits)
                );
            }
        }
    }

    #[test]
    fn modulo_of_a_byte_by_six_favours_the_first_four_residues() {
        // 256 = 42·6 + 4: residues 0..=3 get 43 words, residues 4 and 5 get 42.
        assert_eq!(Mapping::Modulo.weights(6, 8), [43, 43, 43, 43, 42, 42]);
    }

    #[test]
    fn multiply_spreads_the_extra_words_and_modulo_bunches_them() {
        // 2^8 = 256 words over k = 10: 6 outcomes get 26 words and 4 get 25. Modulo gives the
        // extras to outcomes 0..=5; multiply to those j where ceil((j+1)·25.6) - ceil(j·25.6)
        // = 26: the thresholds are 0 26 52 77 103 128 154 180 205 231 256, so j = 0, 1, 3, 5,
        // 6, 8.
        assert_eq!(
            Mapping::Modulo.weights(10, 8),
            [26, 26, 26, 26, 26, 26, 25, 25, 25, 25]
        );
        assert_eq!(
            Mapping::Multiply.weights(10, 8),
            [26, 26, 25, 26, 25, 26, 26, 25, 26, 25]
        );
    }

    #[test]
    fn float_equals_multiply_while_the_product_is_exact() {
        // With P + bits(k) <= 53 the product m·k / 2^P is exact, so floor(u·k) = floor(m·k /
        // 2^P): the multiply law.
        for p in [15, 31, 32, 40] {
            for k in (1..=52).chain([1000, 12_345]) {
                assert_eq!(
                    Mapping::Float.weights(k, p),
                    Mapping::Multiply.weights(k, p)
                );
            }
        }
    }

    #[test]
    fn float_rounding_can_push_a_product_up_to_the_next_integer() {
        // m = (2^54 - 1) / 3: exactly, m·3 / 2^53 = 2 - 2^-53 (floor 1), but that is a tie
        // between 2 - 2^-52 and 2, and rounds to the even one, 2.
        let m = ((1u64 << 54) - 1) / 3;
        let mut words = ScriptedWords::new(53, vec![m]);
        assert_eq!(Mapping::Float.draw(&mut words, 3), 2);
        // So outcome 1 loses exactly that double to outcome 2, against the multiply law.
        let multiply = Mapping::Multiply.weights(3, 53);
        let float = Mapping::Float.weights(3, 53);
        assert_eq!(
            multiply,
            [
                3_002_399_751_580_331,
                3_002_399_751_580_331,
                3_002_399_751_580_330
            ]
        );
        assert_eq!(
            float,
            [
                3_002_399_751_580_331,
                3_002_399_751_580_330,
                3_002_399_751_580_331
            ]
        );
    }

    #[test]
    fn float_law_for_53_bit_doubles_changes_outcome_exactly_at_its_thresholds() {
        // floor(u·k) never decreases as m grows, so the law is right exactly when, at every
        // threshold c_j = float_inputs_below(j), the double m = c_j - 1 gives j - 1 and
        // m = c_j gives j, in real f64 arithmetic through the draw itself.
        for p in [52, 53] {
            let ks = (2u64..=52).chain([100, 1000, 65_537, 1 << 20, 123_456_789, (1 << 32) + 1]);
            for k in ks {
                let js = (1..k.min(200)).chain((k.saturating_sub(3)..k).filter(|&j| j > 0));
                for j in js {
                    let c = float_inputs_below(j, k, p) as u64;
                    let at = |m: u64| Mapping::Float.draw(&mut ScriptedWords::new(p, vec![m]), k);
                    assert_eq!(at(c - 1), j - 1, "k={k} j={j} p={p}");
                    assert_eq!(at(c), j, "k={k} j={j} p={p}");
                }
                if k <= 1 << 20 {
                    let law = Mapping::Float.weights(k, p);
                    assert_eq!(law.iter().sum::<u128>(), 1u128 << p);
                }
            }
        }
    }

    #[test]
    fn rejection_mappings_draw_again_after_a_rejected_word() {
        // W = 8, k = 6: 256 mod 6 = 4. Rejection refuses words 0..=3; Lemire refuses words whose
        // low byte of x·6 is below 4 (x = 0: 0; x = 43: 258 mod 256 = 2; x = 86: 4 passes).
        let mut words = ScriptedWords::new(8, vec![3, 0, 200]);
        assert_eq!(Mapping::Rejection.draw(&mut words, 6), 200 % 6);
        assert_eq!(words.used(), 3);
        let mut words = ScriptedWords::new(8, vec![0, 43, 86]);
        assert_eq!(Mapping::Lemire.draw(&mut words, 6), (86 * 6) >> 8);
        assert_eq!(words.used(), 3);
    }

    #[test]
    fn narrowing_keeps_the_top_bits_like_pythons_getrandbits() {
        // CPython 3.11: random.seed(42); getrandbits(15) x3 -> 20952, 3648, 819, which is
        // genrand_int32() >> 17.
        let mut view = View::narrowed(Mt19937::from_u64(42), 15).unwrap();
        let words: Vec<u64> = (0..3).map(|_| view.next_word()).collect();
        assert_eq!(words, [20_952, 3_648, 819]);
    }

    #[test]
    fn a_15_bit_rand_is_seen_unchanged_with_bits_15() {
        let mut view = View::narrowed(MsvcRand::new(1), 15).unwrap();
        assert_eq!(view.next_word(), 41);
        assert_eq!(view.next_unit(), 18_467.0 / 32_768.0);
        let mut byte = View::narrowed(MsvcRand::new(1), 8).unwrap();
        assert_eq!(byte.next_word(), 41 >> 7);
    }

    #[test]
    fn narrowing_beyond_the_native_width_is_refused_with_a_message() {
        let error = View::narrowed(MsvcRand::new(1), 16).unwrap_err();
        assert_eq!(
            error.to_string(),
            "--bits 16 is not available from --rng msvc, whose words have 15 bits; \
             use --bits 1..=15"
        );
    }

    #[test]
    fn java_next_int_of_a_power_of_two_is_multiply_on_31_bit_words() {
        // Java's nextInt(2^n) is (2^n · next(31)) >> 31: the multiply mapping on the top 31
        // bits of next(32).
        let mut java = JavaRandom::new(42);
        let mut view = View::narrowed(JavaRandom::new(42), 31).unwrap();
        for bound in [2, 4, 64, 1 << 20] {
            assert_eq!(
                java.next_int_bounded(bound) as u64,
                Mapping::Multiply.draw(&mut view, bound as u64)
            );
        }
    }

    #[test]
    fn float_on_the_native_view_uses_the_ecosystems_double() {
        // Java: (int) (new Random(42).nextDouble() * 52) from nextDouble() = 0.7275636800328681.
        let mut view = View::native(JavaRandom::new(42));
        assert_eq!(Mapping::Float.input_bits(&view), 53);
        assert_eq!(Mapping::Float.draw(&mut view, 52), 37);
        // Node.js 20 (legacy doubles): node --random_seed=42, Math.floor(Math.random() * 52)
        // x6 = 41 27 18 50 28 25.
        let mut view = View::narrowed(V8MathRandom::with_random_seed(42), 52).unwrap();
        let draws: Vec<u64> = (0..6).map(|_| Mapping::Float.draw(&mut view, 52)).collect();
        assert_eq!(draws, [41, 27, 18, 50, 28, 25]);
    }

    #[test]
    fn impossible_requests_are_refused_before_drawing() {
        assert_eq!(Mapping::Modulo.check(0, 8), Err(MappingError::EmptyRange));
        assert!(Mapping::Lemire.check(257, 8).is_err());
        assert!(Mapping::Lemire.check(256, 8).is_ok());
        assert!(Mapping::Modulo.check(257, 8).is_ok());
        assert!(Mapping::Float.check(10, 54).is_err());
        assert!(Mapping::Float.check((1 << 52) + 1, 53).is_err());
        assert!(Mapping::Multiply.check(u64::MAX, 64).is_ok());
    }

    #[test]
    fn dotnet_law_changes_outcome_exactly_at_its_thresholds() {
        // The draw is monotone in the word (see dotnet_words_below), so the law is right exactly
        // when, at every threshold c_j, the word c_j - 1 gives j - 1 and c_j gives j.
        for k in [2u64, 3, 7, 10, 52, 1000, 65_537, 1 << 20, DOTNET_MBIG as u64] {
            for j in (1..k.min(100)).chain(k.saturating_sub(2).max(1)..k) {
                let c = dotnet_words_below(j, k) as u64;
                assert_eq!(native::dotnet_next(c - 1, k), j - 1, "k={k} j={j}");
                assert_eq!(native::dotnet_next(c, k), j, "k={k} j={j}");
            }
            assert_eq!(
                native::dotnet_next(DOTNET_MBIG as u64 - 1, k),
                k - 1,
                "the largest word reaches the last outcome"
            );
            if k <= 1000 {
                let law = Mapping::DotnetSample.weights(k, 31);
                assert_eq!(law.iter().sum::<u128>(), DOTNET_MBIG as u128);
            }
        }
        // 2^31 - 1 words over 52 outcomes: 41297762 or 41297763 each (2^31 - 1 = 52 ·
        // 41297762 + 23), so 23 outcomes get one word more.
        let law = Mapping::DotnetSample.weights(52, 31);
        assert_eq!(law.iter().filter(|&&w| w == 41_297_763).count(), 23);
        assert_eq!(law.iter().filter(|&&w| w == 41_297_762).count(), 29);
    }

    #[test]
    fn sixty_four_bit_words_have_exact_laws_too() {
        let k = 52;
        let modulo = Mapping::Modulo.weights(k, 64);
        // 2^64 = 354745078340568300·52 + 16.
        assert_eq!(modulo[15], 354_745_078_340_568_301);
        assert_eq!(modulo[16], 354_745_078_340_568_300);
        assert_eq!(modulo.iter().sum::<u128>(), 1u128 << 64);
        assert_eq!(
            Mapping::Multiply.weights(k, 64).iter().sum::<u128>(),
            1u128 << 64
        );
    }
}
