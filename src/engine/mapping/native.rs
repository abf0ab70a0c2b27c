//! `--map native`: each generator's own bounded draw, the way its language turns the
//! generator's words into an integer below `k`, so that `--rng X --map native` is the shuffle
//! of language X.
//!
//! Each draw is written from its library's source, cited on its variant, and consumes the
//! generator's native words ([`Words`] as [`super::View::native`] shows them) exactly as that
//! library does, rejection loops included. Where a language's draw is one of the five
//! mappings on some word width, the draw *is* that mapping's code ([`Mapping::draw`]), so it is
//! written once; the others (Java, Python, PHP, Go, .NET, libstdc++'s fallback) are written
//! here. [`NativeDraw::law`] names the exact law of each draw on uniform words, for the exact
//! engine: a mapping and a width from [`super`], .NET's division by `int.MaxValue` included
//! ([`Mapping::DotnetSample`]).
//!
//! The loop around the draw is the algorithm's, not the draw's: Java's `Collections.shuffle`,
//! Python's `random.shuffle`, PHP's `shuffle()` and V8 code's usual loop are `fisher-yates`
//! (from the last card down); Go's `rand.Perm` is the built-in `inside-out` (`m[i] = m[j];
//! m[j] = i` with `j = Intn(i + 1)`, `Intn(1)` drawn too), and libstdc++'s `std::shuffle`
//! (`bits/stl_algo.h`, GCC 10 and later) goes upward and, while `2^32 / n >= n`, draws two
//! positions from one `uniform_int_distribution` call below `(i + 1)(i + 2)`, split as
//! `x / (i + 2)` and `x % (i + 2)`. The loops that are not built-ins are the `case` command's
//! to build from these draws.

use super::{Mapping, Words};
use crate::engine::generators::{GeneratorKind, dotnet_sample};

/// A language's own bounded draw of an integer in `[0, k)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NativeDraw {
    /// Java's `Random.nextInt(bound)` (OpenJDK `java/util/Random.java`): `r = next(31)`; a
    /// power of two gives `(bound * r) >> 31`, any other bound `r % bound`, drawn again while
    /// `r - r % bound + (bound - 1)` overflows an `int`.
    JavaNextInt,
    /// Python's `random._randbelow_with_getrandbits(n)` (CPython `Lib/random.py`, read in the
    /// 3.11 installed here): `k = n.bit_length()`, `r = getrandbits(k)` drawn again while `r >= n`;
    /// `getrandbits(k)` for `k <= 32` is `genrand_uint32() >> (32 - k)`
    /// (`Modules/_randommodule.c`).
    PythonRandbelow,
    /// JavaScript's `Math.floor(Math.random() * n)` over V8's `Math.random()`: the `float`
    /// mapping on the engine's doubles.
    JavaScriptFloor,
    /// libstdc++'s `std::uniform_int_distribution` over a 32-bit engine (`bits/
    /// uniform_int_dist.h`, GCC 11 and later: `_S_nd`, Lemire's nearly-divisionless
    /// reduction): the `lemire` mapping on 32-bit words.
    LibstdcxxUniformInt,
    /// libstdc++'s `std::uniform_int_distribution` over `std::minstd_rand0`, whose range
    /// `max() - min() = 2^31 - 3` is not a full word width, so it takes the division fallback:
    /// `scaling = urngrange / k`, `past = k * scaling`, `ret = g() - min()` drawn again while
    /// `ret >= past`, then `ret / scaling`.
    LibstdcxxDownscale,
    /// PCG's `pcg32_boundedrand_r` (pcg-c basic): `threshold = -bound % bound`, words below it
    /// drawn again, then `r % bound`: the `rejection` mapping on 32-bit words.
    PcgBoundedRand,
    /// .NET's `Random.Next(maxValue)` on a seeded `Random`: `(int) (Sample() * maxValue)`
    /// with `Sample() = InternalSample() * (1.0 / int.MaxValue)` (dotnet/runtime
    /// `Random.Net5CompatImpl.cs`; .NET Framework's `Random.cs`).
    DotnetNext,
    /// PHP's `mt_rand(min, max)` and `shuffle()` since 7.2 (`php_mt_rand_range`, `rand_range32`
    /// in `ext/standard/mt_rand.c`; `ext/random` since 8.2): `umax = k - 1`; a power of two `k`
    /// takes `word & (k - 1)`, any other `k` draws again while `word > UINT32_MAX -
    /// (UINT32_MAX % k) - 1`, then `word % k`.
    PhpMtRandRange,
    /// PHP's `mt_rand(min, max)` before 7.1, and in `MT_RAND_PHP` mode since:
    /// `RAND_RANGE_BADSCALING`, `min + (zend_long) ((max - min + 1.0) * (n / (PHP_MT_RAND_MAX
    /// + 1.0)))` with `n = php_mt_rand() >> 1`: the `float` mapping on 31-bit doubles.
    PhpRandRangeBadScaling,
    /// Delphi's `Random(n)` (`System.pas`): `(RandSeed * n) >> 32` after the step: the
    /// `multiply` mapping on 32-bit words.
    DelphiRandom,
    /// Go's `rand.Intn(n)` for `n < 2^31` (`src/math/rand/rand.go`, `Int31n`): `v = Int31()`
    /// (the top 31 bits of `Int63()`); a power of two takes `v & (n - 1)`, any other `n` draws
    /// again while `v > 2^31 - 1 - 2^31 % n`, then `v % n`.
    GoIntn,
}

impl NativeDraw {
    /// The native draw of a generator, if its language has one.
    pub fn of(kind: GeneratorKind) -> Option<NativeDraw> {
        Some(match kind {
            GeneratorKind::Mt19937 => NativeDraw::PythonRandbelow,
            GeneratorKind::StdMt19937 => NativeDraw::LibstdcxxUniformInt,
            GeneratorKind::XorShift128Plus
            | GeneratorKind::XorShift128PlusLegacy
            | GeneratorKind::Mwc1616 => NativeDraw::JavaScriptFloor,
            GeneratorKind::Java => NativeDraw::JavaNextInt,
            GeneratorKind::Minstd => NativeDraw::LibstdcxxDownscale,
            GeneratorKind::Pcg32 => NativeDraw::PcgBoundedRand,
            GeneratorKind::Delphi => NativeDraw::DelphiRandom,
            GeneratorKind::Dotnet => NativeDraw::DotnetNext,
            GeneratorKind::PhpMt => NativeDraw::PhpMtRandRange,
            GeneratorKind::PhpMtLegacy => NativeDraw::PhpRandRangeBadScaling,
            GeneratorKind::Go => NativeDraw::GoIntn,
            GeneratorKind::Msvc
            | GeneratorKind::AnsiC
            | GeneratorKind::Xoshiro256PlusPlus
            | GeneratorKind::Os => return None,
        })
    }

    /// The generators that have a native draw, by name, in the order of `--rng`'s help.
    pub fn generators() -> Vec<&'static str> {
        GeneratorKind::ALL
            .into_iter()
            .filter(|&kind| NativeDraw::of(kind).is_some())
            .map(GeneratorKind::name)
            .collect()
    }

    /// The call this draw is, in its language: `Random.nextInt(bound)`, ….
    pub fn call(self) -> &'static str {
        match self {
            NativeDraw::JavaNextInt => "Java Random.nextInt(bound)",
            NativeDraw::PythonRandbelow => "Python random._randbelow(n) (getrandbits)",
            NativeDraw::JavaScriptFloor => "JavaScript Math.floor(Math.random() * n)",
            NativeDraw::LibstdcxxUniformInt | NativeDraw::LibstdcxxDownscale => {
                "C++ std::uniform_int_distribution (libstdc++)"
            }
            NativeDraw::PcgBoundedRand => "pcg32_boundedrand",
            NativeDraw::DotnetNext => ".NET Random.Next(maxValue)",
            NativeDraw::PhpMtRandRange => "PHP mt_rand(min, max) (7.2+)",
            NativeDraw::PhpRandRangeBadScaling => "PHP mt_rand(min, max) (before 7.1)",
            NativeDraw::DelphiRandom => "Delphi Random(n)",
            NativeDraw::GoIntn => "Go rand.Intn(n)",
        }
    }

    /// The largest `k` the draw takes.
    pub fn max_range(self) -> u64 {
        match self {
            NativeDraw::JavaNextInt | NativeDraw::DotnetNext | NativeDraw::GoIntn => {
                i32::MAX as u64
            }
            NativeDraw::LibstdcxxDownscale => (1 << 31) - 2,
            NativeDraw::PhpRandRangeBadScaling => 1 << 31,
            NativeDraw::PythonRandbelow => u32::MAX as u64,
            _ => 1 << 32,
        }
    }

    /// The exact law of one draw below `k` on uniform words: the mapping and the width of its
    /// uniform input (see [`Mapping::weights`]), for a generator whose doubles have
    /// `double_bits` bits. The rejection draws are uniform on their accepted words, which is
    /// the `rejection` law at any width that holds `k`.
    pub fn law(self, double_bits: u32) -> (Mapping, u32) {
        match self {
            // Accepted: the words of the complete runs of k below 2^31 (Java, Go), 2^32 (PHP,
            // PCG), or below 2^bit_length(k) (Python); each outcome holds the same number.
            NativeDraw::JavaNextInt | NativeDraw::GoIntn => (Mapping::Rejection, 31),
            NativeDraw::PythonRandbelow
            | NativeDraw::PhpMtRandRange
            | NativeDraw::PcgBoundedRand
            | NativeDraw::LibstdcxxDownscale => (Mapping::Rejection, 32),
            NativeDraw::LibstdcxxUniformInt => (Mapping::Lemire, 32),
            NativeDraw::JavaScriptFloor => (Mapping::Float, double_bits),
            NativeDraw::PhpRandRangeBadScaling => (Mapping::Float, 31),
            NativeDraw::DelphiRandom => (Mapping::Multiply, 32),
            NativeDraw::DotnetNext => (Mapping::DotnetSample, 31),
        }
    }

    /// An integer in `[0, k)` drawn from a generator's native `words`, as its language does.
    /// Panics when `k` is 0 or above [`NativeDraw::max_range`] (the configuration refuses
    /// those first).
    pub fn draw<W: Words + ?Sized>(self, words: &mut W, k: u64) -> u64 {
        assert!(
            (1..=self.max_range()).contains(&k),
            "{} cannot draw below {k}",
            self.call()
        );
        match self {
            NativeDraw::JavaNextInt => {
                // next(31) is next(32) >> 1: the top 31 of the 48 state bits.
                let mut r = words.next_word() >> 1;
                if k.is_power_of_two() {
                    return (k * r) >> 31;
                }
                loop {
                    let value = r % k;
                    // r - value + (k - 1) overflows an int exactly when it reaches 2^31.
                    if r - value + (k - 1) < 1 << 31 {
                        return value;
                    }
                    r = words.next_word() >> 1;
                }
            }
            NativeDraw::PythonRandbelow => {
                let bits = 64 - k.leading_zeros();
                loop {
                    let r = words.next_word() >> (32 - bits);
                    if r < k {
                        return r;
                    }
                }
            }
            NativeDraw::JavaScriptFloor => Mapping::Float.draw(words, k),
            NativeDraw::PhpRandRangeBadScaling => {
                // n = php_mt_rand() >> 1, then (k as double) * (n / 2^31): both exact doubles,
                // so this is floor(u * k) for u = n / 2^31, the float law on 31-bit doubles.
                let n = words.next_word() >> 1;
                (k as f64 * (n as f64 / 2_147_483_648.0)) as u64
            }
            NativeDraw::LibstdcxxUniformInt => Mapping::Lemire.draw(words, k),
            NativeDraw::PcgBoundedRand => Mapping::Rejection.draw(words, k),
            NativeDraw::DelphiRandom => Mapping::Multiply.draw(words, k),
            NativeDraw::DotnetNext => Mapping::DotnetSample.draw(words, k),
            NativeDraw::LibstdcxxDownscale => {
                // minstd_rand0: min() = 1, max() = 2^31 - 2.
                let urngrange = (1u64 << 31) - 3;
                let scaling = urngrange / k;
                let past = k * scaling;
                loop {
                    let ret = words.next_word() - 1;
                    if ret < past {
                        return ret / scaling;
                    }
                }
            }
            NativeDraw::PhpMtRandRange => {
                let mut word = words.next_word();
                if k == 1 << 32 {
                    return word;
                }
                if k.is_power_of_two() {
                    return word & (k - 1);
                }
                let limit = u64::from(u32::MAX) - (u64::from(u32::MAX) % k) - 1;
                while word > limit {
                    word = words.next_word();
                }
                word % k
            }
            NativeDraw::GoIntn => {
                // Int31() = Int63() >> 32.
                let mut v = words.next_word() >> 32;
                if k.is_power_of_two() {
                    return v & (k - 1);
                }
                let max = (1u64 << 31) - 1 - (1u64 << 31) % k;
                while v > max {
                    v = words.next_word() >> 32;
                }
                v % k
            }
        }
    }
}

/// .NET's `(int) (Sample() * k)` of a word below `int.MaxValue`.
pub(super) fn dotnet_next(word: u64, k: u64) -> u64 {
    (dotnet_sample(word) * k as f64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::generators::{
        DelphiRandom, DotnetRandom, GoRandom, JavaRandom, PhpMtRand, WordSource,
    };
    use crate::engine::mapping::{ScriptedWords, View};

    fn draws<S: WordSource>(source: S, ks: &[u64]) -> Vec<u64> {
        let kind = GeneratorKind::ALL
            .into_iter()
            .find(|kind| kind.name() == S::NAME)
            .unwrap();
        let native = NativeDraw::of(kind).unwrap();
        let mut view = View::native(source);
        ks.iter().map(|&k| native.draw(&mut view, k)).collect()
    }

    #[test]
    fn java_native_draw_is_the_jdks_next_int() {
        // The same calls as JavaRandom::next_int_bounded, which is tested against OpenJDK 17.
        let ks = [52u64, 64, 7, (1 << 30) + 1, 1 << 20, 3, 1_000_000_007];
        for seed in [0i64, 42, -7] {
            let mut java = JavaRandom::new(seed);
            let expected: Vec<u64> = ks
                .iter()
                .map(|&k| java.next_int_bounded(k as i32) as u64)
                .collect();
            assert_eq!(draws(JavaRandom::new(seed), &ks), expected);
        }
    }

    #[test]
    fn go_native_draw_matches_the_go_regression_goldens() {
        // golang/go src/math/rand/regress_test.go, from Seed(0): Int31n(n) for n = 1, 10, 32,
        // 1048576, 1048577, 1000000000, 1073741824, 2147483646, 2147483647, 1, 10, 32, 1048576,
        // 1048577 = 0 4 25 310570 857611 621654496 413258767 1407315077 1926657288 0 8 27
        // 367019 209005 (Intn gives the same for n < 2^31).
        let ks = [
            1,
            10,
            32,
            1_048_576,
            1_048_577,
            1_000_000_000,
            1_073_741_824,
            2_147_483_646,
            2_147_483_647,
            1,
            10,
            32,
            1_048_576,
            1_048_577,
        ];
        assert_eq!(
            draws(GoRandom::new(0), &ks),
            [
                0, 4, 25, 310_570, 857_611, 621_654_496, 413_258_767, 1_407_315_077,
                1_926_657_288, 0, 8, 27, 367_019, 209_005
            ]
        );
    }

    #[test]
    fn go_native_draw_feeds_rand_perm_like_go() {
        // regress_test.go, Perm from Seed(0): Perm(0), Perm(1), then Perm(5) = [0 4 1 3 2] and
        // Perm(8) = [3 1 0 4 7 5 2 6]; Perm(n) is m[i] = m[j]; m[j] = i with j = Intn(i + 1).
        let mut view = View::native(GoRandom::new(0));
        let mut perm = |n: usize| {
            let mut m = vec![0usize; n];
            for i in 0..n {
                let j = NativeDraw::GoIntn.draw(&mut view, i as u64 + 1) as usize;
                m[i] = m[j];
                m[j] = i;
            }
            m
        };
        assert_eq!(perm(0), Vec::<usize>::new());
        assert_eq!(perm(1), [0]);
        assert_eq!(perm(5), [0, 4, 1, 3, 2]);
        assert_eq!(perm(8), [3, 1, 0, 4, 7, 5, 2, 6]);
    }

    #[test]
    fn dotnet_native_draw_scales_the_sample_by_int_max_value() {
        // new Random(0).Next() = 1559595546 (dotnet/runtime's expected values), so Next(52) is
        // (int) (1559595546 / 2147483647.0 * 52) = 37.
        let ks = [52u64, 52, 10];
        let mut dotnet = DotnetRandom::new(0);
        let expected: Vec<u64> = ks
            .iter()
            .map(|&k| dotnet.next_below(k as i32) as u64)
            .collect();
        assert_eq!(expected[0], 37);
        assert_eq!(draws(DotnetRandom::new(0), &ks), expected);
    }

    #[test]
    fn delphi_native_draw_is_the_high_half_of_rand_seed_times_n() {
        // DelphiBasics (delphibasics.co.uk), example output without Randomize (RandSeed 0):
        // the Randomize page's first five `1 + Random(100)` are 1 4 87 21 28; the Random page
        // draws five `Random` first, then `1 + Random(100)` gives 68 32 17 38 43.
        let ones: Vec<u64> = draws(DelphiRandom::new(0), &[100; 5])
            .iter()
            .map(|r| r + 1)
            .collect();
        assert_eq!(ones, [1, 4, 87, 21, 28]);
        let mut view = View::native(DelphiRandom::new(0));
        for _ in 0..5 {
            view.next_unit();
        }
        let later: Vec<u64> = (0..5)
            .map(|_| NativeDraw::DelphiRandom.draw(&mut view, 100) + 1)
            .collect();
        assert_eq!(later, [68, 32, 17, 38, 43]);
    }

    #[test]
    fn php_native_draw_takes_the_mask_for_powers_of_two_and_rejects_above_the_limit() {
        // k = 3: limit = 2^32 - 1 - (2^32 - 1) % 3 - 1 = 4294967294 - 0 ... (2^32 - 1) % 3 = 0,
        // so the limit is 2^32 - 2 and the word 2^32 - 1 is drawn again.
        let mut words = ScriptedWords::new(32, vec![u64::from(u32::MAX), 7]);
        assert_eq!(NativeDraw::PhpMtRandRange.draw(&mut words, 3), 7 % 3);
        assert_eq!(words.used(), 2);
        let mut words = ScriptedWords::new(32, vec![0xFFFF_FFF5]);
        assert_eq!(NativeDraw::PhpMtRandRange.draw(&mut words, 8), 5);
        // From a real generator: the same as the 7.2+ algorithm written on its words.
        let mut php = PhpMtRand::new(42);
        let mut expected = Vec::new();
        for k in [52u64, 51, 50, 2, 49] {
            let mut word = php.next_word();
            if !k.is_power_of_two() {
                let limit = u64::from(u32::MAX) - (u64::from(u32::MAX) % k) - 1;
                while word > limit {
                    word = php.next_word();
                }
                expected.push(word % k);
            } else {
                expected.push(word & (k - 1));
            }
        }
        assert_eq!(draws(PhpMtRand::new(42), &[52, 51, 50, 2, 49]), expected);
    }

    #[test]
    fn python_native_draw_keeps_the_top_bit_length_bits_and_rejects() {
        // n = 5: bit_length 3, r = word >> 29; 7 and 5 are drawn again, 4 is taken.
        let words_for = |r: u64| r << 29;
        let mut words = ScriptedWords::new(32, vec![words_for(7), words_for(5), words_for(4)]);
        assert_eq!(NativeDraw::PythonRandbelow.draw(&mut words, 5), 4);
        assert_eq!(words.used(), 3);
    }

    #[test]
    fn libstdcxx_downscale_subtracts_min_and_divides_by_the_scaling() {
        // k = 2: scaling = (2^31 - 3) / 2 = 1073741822, past = 2147483644; the word 1 gives
        // 0, the word 2^31 - 2 (ret 2^31 - 3 >= past) is drawn again.
        let mut words = ScriptedWords::new(31, vec![(1 << 31) - 2, 1_073_741_824]);
        assert_eq!(NativeDraw::LibstdcxxDownscale.draw(&mut words, 2), 1);
        assert_eq!(words.used(), 2);
    }

    #[test]
    fn every_native_law_sums_to_its_denominator_and_the_uniform_ones_are_flat() {
        for kind in GeneratorKind::ALL {
            let Some(native) = NativeDraw::of(kind) else {
                continue;
            };
            let (mapping, bits) = native.law(kind.double_bits());
            for k in [2u64, 3, 7, 52] {
                let weights = mapping.weights(k, bits);
                assert_eq!(
                    weights.iter().sum::<u128>(),
                    mapping.denominator(k, bits),
                    "{}",
                    kind.name()
                );
                if mapping.rejects() {
                    assert!(weights.iter().all(|&w| w == weights[0]));
                }
            }
        }
    }

    #[test]
    fn generators_without_a_native_draw_are_named() {
        assert_eq!(NativeDraw::of(GeneratorKind::Msvc), None);
        let names = NativeDraw::generators();
        assert!(names.contains(&"java") && names.contains(&"go"));
        assert!(!names.contains(&"msvc") && !names.contains(&"os"));
    }
}
