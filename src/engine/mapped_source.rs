//! A random source assembled at run time from a word generator ([`super::generators`]), a
//! range mapping ([`super::mapping`]) and a word width: the shuffle as deployed, where the words
//! come from `rand()`, `Math.random()` or a Mersenne Twister and `% k` turns them into a card.
//!
//! [`MappedSource`] answers the algorithms' questions the way real code does: `below(k)` is the
//! mapping's draw on the generator's (possibly narrowed) words, rejection loops included, and a
//! coin is `below(2)` — one draw per coin, as `rand() % 2` would be. The default source of the
//! simulation, ChaCha8 with Lemire's reduction ([`super::random_source::FastSource`]), stays the
//! fast path; this one serves every other choice, and for ChaCha8 + Lemire on 32-bit words it
//! draws exactly the integers the fast path draws (tested).

use rand_chacha::{ChaCha8Rng, ChaCha12Rng, ChaCha20Rng};
use rand_core::Rng;

use super::generators::{
    AnsiCRand, DelphiRandom, DotnetRandom, GeneratorKind, GoRandom, JavaRandom, MinstdRand0,
    MsvcRand, Mt19937, Mwc1616, OsWords, Pcg32, PhpMtRand, PhpMtRandLegacy, StdMt19937,
    V8LegacyMathRandom, V8MathRandom, WordSource, Xoshiro256PlusPlus,
};
use super::mapping::{Mapping, MappingError, NativeDraw, View, Words};
use super::random_source::{
    BLOCK_TRIALS, BlockRng, BlockSources, FastSources, RandomSource, RngKind,
};

/// A ChaCha stream as a word generator: its 32-bit words (`next_u32`), block `b` of seed `s`
/// being ChaCha stream `b` under the key SplitMix64 expands from `s`, as in the fast path.
#[derive(Debug, Clone)]
pub struct ChaChaWords<R>(R);

macro_rules! chacha_words {
    ($rng:ty, $name:literal) => {
        impl WordSource for ChaChaWords<$rng> {
            const NAME: &'static str = $name;
            const BITS: u32 = 32;
            /// A 256-bit key and a 64-bit stream number.
            const STATE_BITS: u32 = 320;

            /// The key expanded from `seed`, stream 0.
            fn from_u64(seed: u64) -> Self {
                ChaChaWords(<$rng as BlockRng>::for_block(seed, 0))
            }

            fn for_block(seed: u64, block: u64) -> Self {
                ChaChaWords(<$rng as BlockRng>::for_block(seed, block))
            }

            fn next_word(&mut self) -> u64 {
                u64::from(self.0.next_u32())
            }
        }
    };
}
chacha_words!(ChaCha8Rng, "chacha8");
chacha_words!(ChaCha12Rng, "chacha12");
chacha_words!(ChaCha20Rng, "chacha20");

/// The word generator of a run: one of the ChaCha variants, or a generator real code uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generator {
    /// ChaCha8, 12 or 20.
    ChaCha(RngKind),
    /// One of [`GeneratorKind`].
    Other(GeneratorKind),
}

impl Generator {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Generator::ChaCha(kind) => kind.name(),
            Generator::Other(kind) => kind.name(),
        }
    }

    /// The width of the generator's native word.
    pub fn bits(self) -> u32 {
        match self {
            Generator::ChaCha(_) => 32,
            Generator::Other(kind) => kind.bits(),
        }
    }

    /// Whether a seed fixes its words (all but the operating system's generator).
    pub fn is_reproducible(self) -> bool {
        self != Generator::Other(GeneratorKind::Os)
    }

    /// The bits of state behind the generator's output: at most 2^bits streams exist.
    pub fn state_bits(self) -> u32 {
        match self {
            Generator::ChaCha(_) => 320,
            Generator::Other(kind) => kind.state_bits(),
        }
    }

    /// The bounded draw of the generator's own language (`--map native`), if it has one.
    pub fn native_draw(self) -> Option<NativeDraw> {
        match self {
            Generator::ChaCha(_) => None,
            Generator::Other(kind) => NativeDraw::of(kind),
        }
    }

    /// The precision of the generator's native doubles.
    pub fn double_bits(self) -> u32 {
        match self {
            Generator::ChaCha(_) => 32,
            Generator::Other(kind) => kind.double_bits(),
        }
    }
}

/// Where the seeds of a re-seeded generator come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedSequence {
    /// Each shuffle's seed drawn at random (SplitMix64 of the run's seed and the shuffle's
    /// number), keeping its low `bits`: a game seeding each deal from a good but short seed.
    Random,
    /// The run's seed plus the shuffle's number, modulo 2^bits: a clock ticking once per deal,
    /// the classic `srand(time(NULL))` before every shuffle.
    Counter,
    /// Each shuffle's seed drawn at random below `space` (the [`SeedSequence::Random`] value
    /// modulo `space`, whose bias is below space/2^64): a clock read at unpredictable times,
    /// such as the milliseconds since midnight (86,400,000 values) of a deal. Used by the
    /// `case` command's emulations; no `--seeds` value names it.
    RandomBelow(u64),
    /// A clock in milliseconds read once a shuffle, one shuffle a millisecond, that advances in
    /// steps of `tick` milliseconds: shuffle t gets the run's seed plus `t - t mod tick`, so
    /// `tick` shuffles in a row share a seed (`new Random()` seeded from
    /// `Environment.TickCount`, whose clock ticks every 15.6 ms). Used by the `case` command's
    /// emulations; no `--seeds` value names it.
    Clock {
        /// The clock's resolution in shuffles (milliseconds); at least 1.
        tick: u64,
    },
    /// Every shuffle seeded with this same value, whatever the run's seed: a program that
    /// seeds its generator with a constant at start-up and deals one deck a run (Go before
    /// 1.20 seeded `math/rand` with 1). Used by the `case` command's emulations.
    Fixed(u64),
}

/// `--reseed every-shuffle`: a fresh generator before every shuffle, seeded (by the
/// generator's own convention, e.g. `srand`) with a `bits`-bit value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reseed {
    /// Bits of each seed (1..=64): at most 2^bits different decks exist.
    pub bits: u32,
    /// How the seeds follow one another.
    pub seeds: SeedSequence,
}

impl SeedSequence {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SeedSequence::Random => "random",
            SeedSequence::Counter => "counter",
            SeedSequence::RandomBelow(_) => "random below a bound",
            SeedSequence::Clock { .. } => "a millisecond clock",
            SeedSequence::Fixed(_) => "one fixed seed",
        }
    }
}

impl Reseed {
    /// How many different seeds the sequence can give: 2^bits, fewer for a bound below it, one
    /// for a fixed seed (at most 2^64 - 1 is said for 64 bits).
    pub fn seed_space(self) -> u64 {
        let all = if self.bits >= 64 {
            u64::MAX
        } else {
            1u64 << self.bits
        };
        match self.seeds {
            SeedSequence::RandomBelow(space) => space.clamp(1, all),
            SeedSequence::Fixed(_) => 1,
            _ => all,
        }
    }

    /// The seed of shuffle number `trial` (0-based, counted over the whole run) of a run seeded
    /// with `seed`.
    pub fn seed_of(self, seed: u64, trial: u64) -> u64 {
        let value = match self.seeds {
            SeedSequence::Counter => seed.wrapping_add(trial),
            SeedSequence::Random => super::generators::block_seed(seed, trial),
            SeedSequence::RandomBelow(space) => {
                super::generators::block_seed(seed, trial) % space.max(1)
            }
            SeedSequence::Clock { tick } => seed.wrapping_add(trial - trial % tick.max(1)),
            SeedSequence::Fixed(value) => value,
        };
        if self.bits >= 64 {
            value
        } else {
            value & ((1u64 << self.bits) - 1)
        }
    }
}

/// What a run's random source is made of: the generator, the mapping of a word into `[0, k)`,
/// the width of the words the mapping sees (`None`: the generator's native width), and whether
/// the generator is re-seeded before every shuffle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceSpec {
    /// The word generator.
    pub generator: Generator,
    /// How a word becomes an integer below k.
    pub mapping: Mapping,
    /// `--bits`: the words narrowed to their top W bits, if given.
    pub bits: Option<u32>,
    /// `--reseed every-shuffle`, if given.
    pub reseed: Option<Reseed>,
}

impl SourceSpec {
    /// The width of the words the mapping sees.
    pub fn word_bits(&self) -> u32 {
        self.bits.unwrap_or_else(|| self.generator.bits())
    }

    /// Whether the words are mapped as the default does: Lemire's reduction on the generator's
    /// own words, no re-seeding (whatever the generator).
    pub fn is_default(&self) -> bool {
        self.mapping == Mapping::Lemire && self.bits.is_none() && self.reseed.is_none()
    }

    /// One phrase for a report: `msvc · modulo of 15-bit words · re-seeded from 32 bits`.
    pub fn describe(&self) -> String {
        let mut text = match self.generator.native_draw() {
            Some(native) if self.mapping == Mapping::Native => {
                format!("{} · native draw, {}", self.generator.name(), native.call())
            }
            _ => format!(
                "{} · {} of {}-bit words",
                self.generator.name(),
                self.mapping.name(),
                self.word_bits()
            ),
        };
        if let Some(reseed) = self.reseed {
            text.push_str(&format!(
                " · re-seeded from {} bits ({})",
                reseed.bits,
                reseed.seeds.name()
            ));
        }
        text
    }

    /// Whether this is the simulation's default, ChaCha with Lemire's reduction on native
    /// 32-bit words, which the fast path draws.
    pub fn is_fast_path(&self) -> bool {
        matches!(self.generator, Generator::ChaCha(_))
            && self.reseed.is_none()
            && self.mapping == Mapping::Lemire
            && self.bits.is_none_or(|bits| bits == 32)
    }
}

macro_rules! any_words {
    ($($variant:ident($ty:ty) = $generator:expr),* $(,)?) => {
        /// One generator's [`View`], chosen at run time. The Mersenne Twister's 2.5 KB of state
        /// makes the variants unequal; boxing it would add an indirection to every word, for a
        /// value made once per block of 65,536 shuffles.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone)]
        enum AnyWords {
            $($variant(View<$ty>),)*
        }

        impl AnyWords {
            /// The words of `generator` for block `block` of seed `seed`, narrowed to `bits`.
            fn for_block(
                generator: Generator,
                bits: Option<u32>,
                seed: u64,
                block: u64,
            ) -> Result<AnyWords, MappingError> {
                $(
                    if generator == $generator {
                        let source = <$ty as WordSource>::for_block(seed, block);
                        return Ok(AnyWords::$variant(match bits {
                            None => View::native(source),
                            Some(bits) => View::narrowed(source, bits)?,
                        }));
                    }
                )*
                unreachable!("every generator has a view")
            }

            /// The words of `generator` seeded with `value` by its own convention.
            fn seeded(
                generator: Generator,
                bits: Option<u32>,
                value: u64,
            ) -> Result<AnyWords, MappingError> {
                $(
                    if generator == $generator {
                        let source = <$ty as WordSource>::from_u64(value);
                        return Ok(AnyWords::$variant(match bits {
                            None => View::native(source),
                            Some(bits) => View::narrowed(source, bits)?,
                        }));
                    }
                )*
                unreachable!("every generator has a view")
            }
        }

        impl Words for AnyWords {
            fn bits(&self) -> u32 {
                match self { $(AnyWords::$variant(view) => view.bits(),)* }
            }
            fn next_word(&mut self) -> u64 {
                match self { $(AnyWords::$variant(view) => view.next_word(),)* }
            }
            fn unit_bits(&self) -> u32 {
                match self { $(AnyWords::$variant(view) => view.unit_bits(),)* }
            }
            fn next_unit(&mut self) -> f64 {
                match self { $(AnyWords::$variant(view) => view.next_unit(),)* }
            }
            fn native_draw(&self) -> Option<NativeDraw> {
                match self { $(AnyWords::$variant(_) => $generator.native_draw(),)* }
            }
        }

        /// Call `visitor` with the type of `generator`'s words, so that a loop over many seeds
        /// is compiled for that generator ([`TypedSource`]).
        pub fn dispatch_typed<V: TypedVisitor>(generator: Generator, visitor: V) -> V::Output {
            $(
                if generator == $generator {
                    return visitor.visit::<$ty>();
                }
            )*
            unreachable!("every generator has a view")
        }
    };
}

/// Work to do with a generator's type known: see [`dispatch_typed`].
pub trait TypedVisitor {
    /// What the work gives.
    type Output;
    /// Do the work with the generator `S`.
    fn visit<S: WordSource + Send>(self) -> Self::Output;
}

/// [`MappedSource`] with its generator's type known and no re-seeding: one generator seeded
/// by its own convention, its words mapped as `spec` says. It draws exactly what a
/// `MappedSource` re-seeded with the same value draws (tested), with every word inlined — the
/// enumeration of a seed space shuffles once per seed, millions of times.
#[derive(Debug, Clone)]
pub struct TypedSource<S> {
    words: View<S>,
    mapping: Mapping,
    /// The language's own draw, with `--map native`.
    native: Option<NativeDraw>,
}

impl<S: WordSource> TypedSource<S> {
    /// `S` seeded with `value`, narrowed to `spec.bits`, mapped by `spec.mapping`.
    pub fn seeded(spec: &SourceSpec, value: u64) -> Result<Self, MappingError> {
        let source = S::from_u64(value);
        Ok(TypedSource {
            words: match spec.bits {
                None => View::native(source),
                Some(bits) => View::narrowed(source, bits)?,
            },
            mapping: spec.mapping,
            native: if spec.mapping == Mapping::Native {
                spec.generator.native_draw()
            } else {
                None
            },
        })
    }
}

impl<S: WordSource> RandomSource for TypedSource<S> {
    #[inline]
    fn below(&mut self, bound: usize) -> usize {
        match self.native {
            Some(native) => native.draw(&mut self.words, bound as u64) as usize,
            None => self.mapping.draw(&mut self.words, bound as u64) as usize,
        }
    }

    #[inline]
    fn coin(&mut self) -> bool {
        self.below(2) == 1
    }
}

any_words! {
    ChaCha8(ChaChaWords<ChaCha8Rng>) = Generator::ChaCha(RngKind::Chacha8),
    ChaCha12(ChaChaWords<ChaCha12Rng>) = Generator::ChaCha(RngKind::Chacha12),
    ChaCha20(ChaChaWords<ChaCha20Rng>) = Generator::ChaCha(RngKind::Chacha20),
    Mt19937(Mt19937) = Generator::Other(GeneratorKind::Mt19937),
    StdMt19937(StdMt19937) = Generator::Other(GeneratorKind::StdMt19937),
    XorShift128Plus(V8MathRandom) = Generator::Other(GeneratorKind::XorShift128Plus),
    XorShift128PlusLegacy(V8LegacyMathRandom) = Generator::Other(GeneratorKind::XorShift128PlusLegacy),
    Mwc1616(Mwc1616) = Generator::Other(GeneratorKind::Mwc1616),
    Java(JavaRandom) = Generator::Other(GeneratorKind::Java),
    Msvc(MsvcRand) = Generator::Other(GeneratorKind::Msvc),
    AnsiC(AnsiCRand) = Generator::Other(GeneratorKind::AnsiC),
    Minstd(MinstdRand0) = Generator::Other(GeneratorKind::Minstd),
    Pcg32(Pcg32) = Generator::Other(GeneratorKind::Pcg32),
    Xoshiro256PlusPlus(Xoshiro256PlusPlus) = Generator::Other(GeneratorKind::Xoshiro256PlusPlus),
    Delphi(DelphiRandom) = Generator::Other(GeneratorKind::Delphi),
    Dotnet(DotnetRandom) = Generator::Other(GeneratorKind::Dotnet),
    PhpMt(PhpMtRand) = Generator::Other(GeneratorKind::PhpMt),
    PhpMtLegacy(PhpMtRandLegacy) = Generator::Other(GeneratorKind::PhpMtLegacy),
    Go(GoRandom) = Generator::Other(GeneratorKind::Go),
    Os(OsWords) = Generator::Other(GeneratorKind::Os),
}

/// A source of the algorithms' choices made as real code makes them: a generator's words, a
/// mapping into `[0, k)`, a coin as `below(2)`.
#[derive(Debug, Clone)]
pub struct MappedSource {
    words: AnyWords,
    mapping: Mapping,
    /// With `--reseed`: what to re-seed with, and the number of the next shuffle in the run.
    reseed: Option<Reseeding>,
}

#[derive(Debug, Clone, Copy)]
struct Reseeding {
    reseed: Reseed,
    generator: Generator,
    bits: Option<u32>,
    seed: u64,
    next_trial: u64,
}

impl MappedSource {
    /// The source of block `block` of a run with seed `seed`; fails only on a word width the
    /// generator cannot give (which the configuration refuses first).
    pub fn for_block(spec: &SourceSpec, seed: u64, block: u64) -> Result<Self, MappingError> {
        Ok(MappedSource {
            words: AnyWords::for_block(spec.generator, spec.bits, seed, block)?,
            mapping: spec.mapping,
            reseed: spec.reseed.map(|reseed| Reseeding {
                reseed,
                generator: spec.generator,
                bits: spec.bits,
                seed,
                next_trial: block * BLOCK_TRIALS,
            }),
        })
    }
}

impl SourceSpec {
    /// The simulation's default for a ChaCha variant: Lemire's reduction on its 32-bit words.
    pub fn chacha(rng: RngKind) -> SourceSpec {
        SourceSpec {
            generator: Generator::ChaCha(rng),
            mapping: Mapping::Lemire,
            bits: None,
            reseed: None,
        }
    }
}

/// Work to do with a run's block sources, whatever their type: [`dispatch`] calls
/// [`SourcesVisitor::visit`] with the concrete sources, so each loop is compiled for them.
pub trait SourcesVisitor {
    /// What the work gives.
    type Output;
    /// Do the work with `sources`.
    fn visit<B: BlockSources>(self, sources: &B) -> Self::Output;
}

/// The one place a run's random source is chosen: ChaCha with Lemire's reduction on native
/// words takes the buffered fast path ([`FastSources`]), anything else a [`MappedSource`].
pub fn dispatch<V: SourcesVisitor>(source: &SourceSpec, visitor: V) -> V::Output {
    match source.generator {
        Generator::ChaCha(RngKind::Chacha8) if source.is_fast_path() => {
            visitor.visit(&FastSources::<ChaCha8Rng>::default())
        }
        Generator::ChaCha(RngKind::Chacha12) if source.is_fast_path() => {
            visitor.visit(&FastSources::<ChaCha12Rng>::default())
        }
        Generator::ChaCha(RngKind::Chacha20) if source.is_fast_path() => {
            visitor.visit(&FastSources::<ChaCha20Rng>::default())
        }
        _ => visitor.visit(source),
    }
}

impl BlockSources for SourceSpec {
    type Source = MappedSource;

    fn for_block(&self, seed: u64, block: u64) -> MappedSource {
        MappedSource::for_block(self, seed, block)
            .expect("the configuration refuses a word width the generator cannot give")
    }
}

impl RandomSource for MappedSource {
    const STARTS_SHUFFLES: bool = true;

    #[inline]
    fn below(&mut self, bound: usize) -> usize {
        self.mapping.draw(&mut self.words, bound as u64) as usize
    }

    #[inline]
    fn coin(&mut self) -> bool {
        self.below(2) == 1
    }

    fn start_shuffle(&mut self) {
        if let Some(reseeding) = &mut self.reseed {
            let value = reseeding
                .reseed
                .seed_of(reseeding.seed, reseeding.next_trial);
            reseeding.next_trial += 1;
            self.words = AnyWords::seeded(reseeding.generator, reseeding.bits, value)
                .expect("the word width was checked when the source was made");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::random_source::FastSource;

    fn spec(generator: Generator, mapping: Mapping, bits: Option<u32>) -> SourceSpec {
        SourceSpec {
            generator,
            mapping,
            bits,
            reseed: None,
        }
    }

    #[test]
    fn chacha8_with_lemire_draws_exactly_what_the_fast_path_draws() {
        let spec = spec(Generator::ChaCha(RngKind::Chacha8), Mapping::Lemire, None);
        assert!(spec.is_fast_path());
        for block in [0, 1, 7] {
            let mut mapped = MappedSource::for_block(&spec, 42, block).unwrap();
            let mut fast = FastSource::new(ChaCha8Rng::for_block(42, block));
            for bound in (1..=52).cycle().take(5000) {
                assert_eq!(mapped.below(bound), fast.below(bound), "bound {bound}");
            }
        }
    }

    #[test]
    fn msvc_rand_modulo_gives_the_classic_rand_percent_k() {
        // With --bits 15 the mapping sees rand() itself: block 0's seed is block_seed(s, 0),
        // and `rand() % k` of that stream is what a C program seeded with it would compute.
        let spec = spec(
            Generator::Other(GeneratorKind::Msvc),
            Mapping::Modulo,
            Some(15),
        );
        let seed = crate::engine::generators::block_seed(9, 0);
        let mut rand = MsvcRand::new(seed as u32);
        let mut source = MappedSource::for_block(&spec, 9, 0).unwrap();
        for k in (2..=52).rev().cycle().take(200) {
            assert_eq!(source.below(k) as u64, rand.next_word() % k as u64);
        }
    }

    #[test]
    fn a_word_width_beyond_the_generator_is_refused() {
        let spec = spec(
            Generator::Other(GeneratorKind::AnsiC),
            Mapping::Modulo,
            Some(16),
        );
        assert!(MappedSource::for_block(&spec, 1, 0).is_err());
    }

    #[test]
    fn generators_report_their_word_and_state_sizes() {
        let xorshift = Generator::Other(GeneratorKind::XorShift128Plus);
        assert_eq!(xorshift.state_bits(), 128);
        assert_eq!(xorshift.bits(), 64);
        assert_eq!(Generator::ChaCha(RngKind::Chacha20).bits(), 32);
        assert_eq!(Generator::Other(GeneratorKind::Msvc).bits(), 15);
    }
}
