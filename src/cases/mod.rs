//! Famous shuffles, reproduced bit for bit: the catalogue of the `case` command.
//!
//! Each [`Case`] is a deployed shuffle with a published story — the online poker room whose
//! 52nd card never landed 52nd, the browser ballot sorted with a coin, Laravel's seeded
//! `usort` — written as what the tool already runs: a built-in algorithm (the deployed loop,
//! written once against the random-source trait, so its exact law comes from the same code),
//! a generator with its language's own bounded draw (`--map native`), and the way the deployed
//! code seeded it. `case NAME` runs that through `run`'s pipeline, so the report, the formats,
//! the exit code and `--emit-permutations` are `run`'s; [`figures`] then sets each published
//! figure beside the tool's.
//!
//! The generators' published test vectors are tests beside the generators
//! (`src/engine/generators/legacy.rs`, `src/engine/mapping/native.rs`); a case's figures
//! recompute the ones its story rests on, so that the report shows them too.

mod figures;

pub use figures::{FigureContext, figures};

use crate::engine::algorithms::{Algorithm, Shuffle};
use crate::engine::generators::GeneratorKind;
use crate::engine::mapped_source::{Generator, Reseed, SeedSequence, SourceSpec};
use crate::engine::mapping::Mapping;
use crate::engine::random_source::RngKind;
use crate::report::case::CaseEntry;

/// A deployed shuffle: its story, and the run that emulates it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Case {
    /// The name on the command line.
    pub name: &'static str,
    /// When it was deployed or published.
    pub year: &'static str,
    /// The shuffle in a few words.
    pub title: &'static str,
    /// What went wrong, in two sentences.
    pub story: &'static str,
    /// The code emulated: generator, seeding, range mapping, loop.
    pub emulates: &'static str,
    /// Where it was published.
    pub reference: &'static str,
    /// The deck of the published figures (the default `--deck`).
    pub deck: usize,
    /// The default `--trials`.
    pub trials: u64,
    /// The deployed loop.
    pub algorithm: Algorithm,
    /// The generator.
    pub generator: Generator,
    /// How its words become a card (`Native` for the language's own draw).
    pub mapping: Mapping,
    /// How the deployed code seeded the generator before each shuffle (`None`: seeded once).
    pub reseed: Option<Reseed>,
    /// Whether the emulation is expected to be found biased at the default settings.
    pub biased: bool,
}

impl Case {
    /// The shuffle the case runs.
    pub fn shuffle(&self) -> Shuffle {
        Shuffle::once(self.algorithm)
    }

    /// The random source the case runs.
    pub fn source(&self) -> SourceSpec {
        SourceSpec {
            generator: self.generator,
            mapping: self.mapping,
            bits: None,
            reseed: self.reseed,
        }
    }

    /// Its line in `case --list`.
    pub fn entry(&self) -> CaseEntry {
        CaseEntry {
            name: self.name,
            year: self.year,
            title: self.title,
            deck: self.deck,
            expect: if self.biased {
                "bias detected"
            } else {
                "no bias detected"
            },
        }
    }
}

const fn other(kind: GeneratorKind) -> Generator {
    Generator::Other(kind)
}

/// Milliseconds in a day: the seeds of a clock read as milliseconds since midnight.
pub const MILLISECONDS_A_DAY: u64 = 86_400_000;

/// The catalogue, in the order `case --list` shows it.
pub const CASES: [Case; 10] = [
    Case {
        name: "planet-poker",
        year: "1999",
        title: "ASF Software's Texas Hold'em (Planet Poker)",
        story: "The deck was shuffled by swapping each card with one drawn by Delphi's \
                Random(51)+1, which never draws the last place, and the generator was seeded \
                with the milliseconds since midnight before each shuffle: 86,400,000 decks of \
                the 52! possible, few enough to try them all.",
        emulates: "Delphi Random (RandSeed := RandSeed*134775813 + 1; Random(n) = \
                   (RandSeed*n) >> 32), Randomize from the milliseconds since midnight before \
                   every shuffle, and for ctr := 1 to 52: swap(card[ctr], \
                   card[Random(51)+1]) (the run draws each seed at random below 86,400,000)",
        reference: "Arkin, Hill, Marks, Schmid & Walls, \"How We Learned to Cheat at Online \
                    Poker: A Study in Software Security\", Reliable Software Technologies, 1999",
        deck: 52,
        trials: 1_000_000,
        algorithm: Algorithm::NaiveOffByOne,
        generator: other(GeneratorKind::Delphi),
        mapping: Mapping::Native,
        reseed: Some(Reseed {
            bits: 32,
            seeds: SeedSequence::RandomBelow(MILLISECONDS_A_DAY),
        }),
        biased: true,
    },
    Case {
        name: "browser-ballot",
        year: "2010",
        title: "The EU browser-choice screen",
        story: "Microsoft's ballot of five browsers was shuffled with \
                sort(() => 0.5 - Math.random()), whose law depends on the browser's sort: \
                the browser last in the list ended last about half of the time.",
        emulates: "array.sort(function (a, b) { return 0.5 - Math.random(); }) on five \
                   browsers under V8's insertion sort for short arrays (Chrome, 2010), \
                   Math.random being V8's MWC1616; Firefox's merge sort is the tool's \
                   comparator-merge model, shown beside as an exact law",
        reference: "R. Weir, \"Doing the Microsoft Shuffle: Algorithm Fail in Browser Ballot\", \
                    2010; DSL.sk's test of browserchoice.eu, 2010",
        deck: 5,
        trials: 1_000_000,
        algorithm: Algorithm::ComparatorInsertion,
        generator: other(GeneratorKind::Mwc1616),
        mapping: Mapping::Native,
        reseed: None,
        biased: true,
    },
    Case {
        name: "laravel-shuffle",
        year: "2019",
        title: "Laravel's seeded Arr::shuffle on PHP 7",
        story: "With a seed, Laravel shuffled by srand($seed) and \
                usort($array, fn () => rand(-1, 1)); under PHP 7's zend_sort the first element \
                stayed first 56% of the time out of five.",
        emulates: "srand($seed); usort($a, function () { return rand(-1, 1); }) under PHP \
                   7's zend_sort (insertion sort up to 16 elements, zend_sort_5 for five), \
                   rand being PHP's mt_rand and its range draw, a counter of seeds",
        reference: "illuminate/support pull request 72 (Laravel), 2019: 1,000,000 runs and \
                    the exact law of the first element",
        deck: 5,
        trials: 1_000_000,
        algorithm: Algorithm::ZendSort,
        generator: other(GeneratorKind::PhpMt),
        mapping: Mapping::Native,
        reseed: Some(Reseed {
            bits: 32,
            seeds: SeedSequence::Counter,
        }),
        biased: true,
    },
    Case {
        name: "dotnet-random",
        year: "2002",
        title: ".NET's new Random() per deal",
        story: "A new System.Random() is seeded from Environment.TickCount, a millisecond \
                clock that ticks every 15.6 ms: a server dealing faster than the clock \
                ticks deals the same deck again and again.",
        emulates: ".NET's legacy seeded System.Random (Knuth's subtractive generator, \
                   inextp = 21), Next(n) as (int)(Sample() * n), a Fisher-Yates over it, \
                   and new Random() before every deal seeded from a clock read once a \
                   millisecond that ticks every 16 ms",
        reference: "Microsoft, System.Random documentation (.NET Framework): \"Random objects \
                    that are created in close succession ... produce identical sequences\"",
        deck: 52,
        trials: 1_000_000,
        algorithm: Algorithm::FisherYates,
        generator: other(GeneratorKind::Dotnet),
        mapping: Mapping::Native,
        reseed: Some(Reseed {
            bits: 31,
            seeds: SeedSequence::Clock { tick: 16 },
        }),
        biased: true,
    },
    Case {
        name: "php-mt-rand",
        year: "2016",
        title: "PHP before 7.1: mt_rand's legacy Mersenne Twister",
        story: "Before PHP 7.1, mt_rand ran a Mersenne Twister with a typo in its twist and \
                scaled a 31-bit word into a range with a float (RAND_RANGE); every deck is \
                one of the 2^32 seeds of mt_srand.",
        emulates: "mt_srand($seed) with a 32-bit seed before each deal, then for \
                   ($i = 51; $i > 0; $i--) swap($a[$i], $a[mt_rand(0, $i)]) on PHP 7.0's \
                   mt_rand (the twist bug, RAND_RANGE float scaling)",
        reference: "php-src, ext/standard/tests/math/mt_rand_value.phpt (the legacy \
                    MT_RAND_PHP values) and the PHP 7.1 changelog (the fixed twist)",
        deck: 52,
        trials: 1_000_000,
        algorithm: Algorithm::FisherYates,
        generator: other(GeneratorKind::PhpMtLegacy),
        mapping: Mapping::Native,
        reseed: Some(Reseed {
            bits: 32,
            seeds: SeedSequence::Random,
        }),
        biased: true,
    },
    Case {
        name: "v8-mwc1616",
        year: "2015",
        title: "Chrome's Math.random before version 49",
        story: "V8's MWC1616 built each double from 32 bits, so Math.random() took only 2^32 \
                values and short cycles showed in generated identifiers; a Fisher-Yates on \
                it deals a fair-looking 5-card law.",
        emulates: "Math.floor(Math.random() * (i + 1)) in a Fisher-Yates, Math.random being \
                   V8's MWC1616 (two 16-bit multiply-with-carry lanes, one 32-bit word a \
                   double)",
        reference: "V8 blog, \"There's Math.random(), and then there's Math.random()\", 2015; \
                    M. Malone, \"TIFU by using Math.random()\", 2015",
        deck: 5,
        trials: 1_000_000,
        algorithm: Algorithm::FisherYates,
        generator: other(GeneratorKind::Mwc1616),
        mapping: Mapping::Native,
        reseed: None,
        biased: false,
    },
    Case {
        name: "go-seed-1",
        year: "2023",
        title: "Go's math/rand seeded with 1 before Go 1.20",
        story: "Until Go 1.20 the top-level math/rand generator was seeded with 1 at start-up, \
                so a program dealing with rand.Perm dealt the same deck on every run.",
        emulates: "rand.Perm(52) on Go's math/rand source (Intn, the inside-out loop), the \
                   generator seeded with 1 at the start of each run of the program, one deck \
                   a run",
        reference: "Go 1.20 release notes (math/rand: \"the generator was seeded with \
                    Seed(1) at program startup\"); golang/go src/math/rand/regress_test.go",
        deck: 52,
        trials: 100_000,
        algorithm: Algorithm::InsideOut,
        generator: other(GeneratorKind::Go),
        mapping: Mapping::Native,
        reseed: Some(Reseed {
            bits: 64,
            seeds: SeedSequence::Fixed(1),
        }),
        biased: true,
    },
    Case {
        name: "java-counter-seed",
        year: "1997",
        title: "Collections.shuffle with new Random(k), k a counter",
        story: "Seeding java.util.Random with consecutive numbers gives nearly the same first \
                outputs, so consecutive deals are alike: every deck differs, and at 8 cards \
                card 5 lands last in almost every one.",
        emulates: "Collections.shuffle(list, new Random(k)) for k = seed, seed + 1, …: \
                   java.util.Random's 48-bit LCG, nextInt(bound) (multiply for powers of \
                   two, rejection otherwise), the loop for (i = size; i > 1; i--) \
                   swap(list, i - 1, rnd.nextInt(i))",
        reference: "java.util.Random and java.util.Collections (OpenJDK); reproduced against \
                    Java 17 by tests/native_map.rs",
        deck: 8,
        trials: 1_000_000,
        algorithm: Algorithm::FisherYates,
        generator: other(GeneratorKind::Java),
        mapping: Mapping::Native,
        reseed: Some(Reseed {
            bits: 48,
            seeds: SeedSequence::Counter,
        }),
        biased: true,
    },
    Case {
        name: "sql-order-by-rand",
        year: "2005",
        title: "SQL Server's ORDER BY RAND()",
        story: "SQL Server evaluates RAND() once per query, so every row gets the same key and \
                ORDER BY RAND() returns the rows in the order they were read; ORDER BY NEWID() \
                gives each row its own random key.",
        emulates: "SELECT … ORDER BY RAND(): one key for every row, the rows in scan order \
                   (the tool's unshuffled algorithm); ORDER BY NEWID() shown beside",
        reference: "Microsoft, RAND (Transact-SQL) documentation: RAND is evaluated once per \
                    query; NEWID (Transact-SQL)",
        deck: 5,
        trials: 1_000_000,
        algorithm: Algorithm::Unshuffled,
        generator: Generator::ChaCha(RngKind::Chacha8),
        mapping: Mapping::Lemire,
        reseed: None,
        biased: true,
    },
    Case {
        name: "pokerstars",
        year: "2001",
        title: "PokerStars' shuffle (the positive reference)",
        story: "PokerStars publishes a shuffle that draws 249 random bits per deck, more than \
                log2(52!) = 225.6, and turns bits into a card by rejection: every deck is \
                reachable and equally likely.",
        emulates: "Fisher-Yates with each draw below k taken as the top ceil(log2 k) bits of a \
                   32-bit word, rejected while >= k, on ChaCha20 words (a cryptographic \
                   stream, as its hardware and software entropy pool)",
        reference: "PokerStars, \"Shuffling\" (its published description of the deck's \
                    random number generator)",
        deck: 52,
        trials: 1_000_000,
        algorithm: Algorithm::FisherYates,
        generator: Generator::ChaCha(RngKind::Chacha20),
        mapping: Mapping::Bitmask,
        reseed: None,
        biased: false,
    },
];

/// The case named `name`.
pub fn find(name: &str) -> Option<&'static Case> {
    CASES.iter().find(|case| case.name == name)
}

/// Every case's line of `case --list`.
pub fn entries() -> Vec<CaseEntry> {
    CASES.iter().map(Case::entry).collect()
}

/// The case names, for a message that lists them.
pub fn names() -> Vec<&'static str> {
    CASES.iter().map(|case| case.name).collect()
}
