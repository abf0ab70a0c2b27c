//! `--map native`: each generator's own bounded draw, checked deck for deck against the
//! languages themselves where they are installed (Java, Python, Node.js, g++), and against
//! independent implementations in Python where the language is not (.NET, Delphi, MWC1616),
//! through the binary. A test whose language is missing says so on stderr and passes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::shuffle_bias;
use predicates::prelude::*;
use shuffle_bias::engine::generators::GeneratorKind;
use shuffle_bias::engine::mapped_source::{Generator, Reseed, SeedSequence, SourceSpec};
use shuffle_bias::engine::mapping::Mapping;
use shuffle_bias::engine::random_source::{BlockSources, RandomSource};

/// The decks `run fisher-yates -n DECK --rng RNG --map native` deals when re-seeded before
/// every shuffle with the counter `seed, seed + 1, …` (`--seed-bits BITS`), one line each.
fn native_decks(rng: &str, deck: usize, trials: u64, seed: u64, bits: u32) -> Vec<String> {
    let output = shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-q",
            "-o",
            "/dev/null",
            "--map",
            "native",
        ])
        .args([
            "--rng",
            rng,
            "-n",
            &deck.to_string(),
            "-t",
            &trials.to_string(),
        ])
        .args(["--seed", &seed.to_string(), "--reseed", "every-shuffle"])
        .args(["--seed-bits", &bits.to_string(), "--seeds", "counter"])
        .args(["--emit-permutations", "-"])
        .output()
        .unwrap();
    assert!(output.status.code().unwrap() <= 1, "{output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// Whether `program` runs here (`program --version` or `-version` succeeds).
fn installed(program: &str, version_flag: &str) -> bool {
    let found = Command::new(program)
        .arg(version_flag)
        .output()
        .is_ok_and(|output| output.status.success());
    if !found {
        eprintln!("skipped: {program} is not installed here");
    }
    found
}

/// A fresh directory under the target directory for a test's sources.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn lines(output: std::process::Output) -> Vec<String> {
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn python(script: &str, args: &[&str]) -> Vec<String> {
    lines(
        Command::new("python3")
            .arg("-c")
            .arg(script)
            .args(args)
            .output()
            .unwrap(),
    )
}

#[test]
fn java_native_decks_are_collections_shuffle_with_new_random_k() {
    // Issue #29: `Collections.shuffle(list, new Random(k))` for k = 0..199, 8 cards. OpenJDK's
    // Collections.shuffle is `for (int i = size; i > 1; i--) swap(list, i - 1,
    // rnd.nextInt(i))`: fisher-yates from the last card down, with nextInt as the draw.
    if !installed("javac", "-version") || !installed("java", "-version") {
        return;
    }
    let dir = scratch("native_map_java");
    std::fs::write(
        dir.join("Shuffle.java"),
        r#"import java.util.*;
public class Shuffle {
  public static void main(String[] args) {
    int n = Integer.parseInt(args[0]), decks = Integer.parseInt(args[1]);
    for (int k = 0; k < decks; k++) {
      List<Integer> list = new ArrayList<>();
      for (int i = 0; i < n; i++) list.add(i);
      Collections.shuffle(list, new Random(k));
      StringJoiner line = new StringJoiner(" ");
      for (int card : list) line.add(Integer.toString(card));
      System.out.println(line);
    }
  }
}
"#,
    )
    .unwrap();
    let compiled = Command::new("javac")
        .arg("Shuffle.java")
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(compiled.success());
    let java = lines(
        Command::new("java")
            .args(["-cp", dir.to_str().unwrap(), "Shuffle", "8", "200"])
            .output()
            .unwrap(),
    );
    assert_eq!(java.len(), 200);
    assert_eq!(native_decks("java", 8, 200, 0, 32), java);
}

#[test]
fn python_native_decks_are_random_shuffle_after_random_seed() {
    // CPython's random.shuffle: `for i in reversed(range(1, len(x))): j = randbelow(i + 1)`,
    // fisher-yates from the last card down, randbelow by getrandbits with rejection.
    if !installed("python3", "--version") {
        return;
    }
    let script = "import random, sys
n, decks = int(sys.argv[1]), int(sys.argv[2])
for s in range(decks):
    random.seed(s)
    x = list(range(n))
    random.shuffle(x)
    print(' '.join(map(str, x)))";
    let expected = python(script, &["8", "200"]);
    assert_eq!(native_decks("mt19937", 8, 200, 0, 32), expected);
    // A deck of 52 draws ranges that are not powers of two, so rejection happens.
    let expected = python(script, &["52", "20"]);
    assert_eq!(native_decks("mt19937", 52, 20, 0, 32), expected);
}

#[test]
fn node_native_decks_are_math_floor_math_random_with_a_fixed_random_seed() {
    // `node --random_seed=S` seeds V8's xorshift128+ (S = 0 means entropy, so seeds start at
    // 1); the JavaScript is the usual Fisher–Yates with Math.floor(Math.random() * (i + 1)).
    // Node.js ≤ 23 makes 52-bit doubles (xorshift128+-legacy), 24 and later 53-bit ones.
    if !installed("node", "--version") {
        return;
    }
    let version = lines(Command::new("node").arg("--version").output().unwrap());
    let major: u32 = version[0]
        .trim_start_matches('v')
        .split('.')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let rng = if major >= 24 {
        "xorshift128+"
    } else {
        "xorshift128+-legacy"
    };
    let script = "const n = 8; const x = [...Array(n).keys()];
for (let i = n - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); [x[i], x[j]] = [x[j], x[i]]; }
console.log(x.join(' '));";
    let node: Vec<String> = (1..=20)
        .map(|seed| {
            lines(
                Command::new("node")
                    .arg(format!("--random_seed={seed}"))
                    .args(["-e", script])
                    .output()
                    .unwrap(),
            )
            .remove(0)
        })
        .collect();
    assert_eq!(native_decks(rng, 8, 20, 1, 32), node);
}

const CXX_SHUFFLES: &str = r#"#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>
// argv: n decks mode; mode 0: Fisher-Yates from the last card down with
// std::uniform_int_distribution<unsigned>(0, i); mode 1: std::shuffle.
int main(int argc, char** argv) {
  int n = std::atoi(argv[1]), decks = std::atoi(argv[2]), mode = std::atoi(argv[3]);
  for (int seed = 0; seed < decks; seed++) {
    std::mt19937 g(seed);
    std::vector<int> x(n);
    std::iota(x.begin(), x.end(), 0);
    if (mode == 0) {
      for (int i = n - 1; i > 0; i--) {
        std::uniform_int_distribution<unsigned> d(0, i);
        std::swap(x[i], x[d(g)]);
      }
    } else {
      std::shuffle(x.begin(), x.end(), g);
    }
    for (int i = 0; i < n; i++) std::printf(i ? " %d" : "%d", x[i]);
    std::printf("\n");
  }
}
"#;

/// libstdc++'s `std::shuffle` (GCC 12 `bits/stl_algo.h`) written over a `below(k)` source: for
/// a range whose square fits the generator's (`2^32 - 1 >= n * n`), upward from the second
/// card, the first swap alone when `n` is even, then two positions per draw below
/// `(i + 1)(i + 2)`, split as `x / (i + 2)` and `x % (i + 2)`. The case command owns this loop;
/// here it checks that the native draw feeds it bit for bit.
fn libstdcxx_shuffle<R: RandomSource>(n: usize, source: &mut R) -> Vec<usize> {
    let mut x: Vec<usize> = (0..n).collect();
    assert!(n > 0 && (u32::MAX as usize) / n >= n);
    let mut i = 1;
    if n.is_multiple_of(2) {
        let j = source.below(2);
        x.swap(i, j);
        i += 1;
    }
    while i < n {
        let swap_range = i + 1;
        let pair = source.below(swap_range * (swap_range + 1));
        x.swap(i, pair / (swap_range + 1));
        x.swap(i + 1, pair % (swap_range + 1));
        i += 2;
    }
    x
}

#[test]
fn cpp_native_draws_are_libstdcxx_uniform_int_distribution_and_feed_std_shuffle() {
    if !installed("g++", "--version") {
        return;
    }
    let dir = scratch("native_map_cpp");
    std::fs::write(dir.join("shuffles.cpp"), CXX_SHUFFLES).unwrap();
    let binary = dir.join("shuffles");
    let compiled = Command::new("g++")
        .args(["-O1", "-std=c++17", "-o"])
        .arg(&binary)
        .arg(dir.join("shuffles.cpp"))
        .status()
        .unwrap();
    assert!(compiled.success());
    let cxx = |n: &str, decks: &str, mode: &str| {
        lines(
            Command::new(&binary)
                .args([n, decks, mode])
                .output()
                .unwrap(),
        )
    };
    // A Fisher–Yates written with the distribution is `run fisher-yates` with the native draw.
    assert_eq!(
        native_decks("std-mt19937", 8, 200, 0, 32),
        cxx("8", "200", "0")
    );
    assert_eq!(
        native_decks("std-mt19937", 52, 20, 0, 32),
        cxx("52", "20", "0")
    );
    // std::shuffle itself: the pairing loop above over the same native draw.
    let spec = SourceSpec {
        generator: Generator::Other(GeneratorKind::StdMt19937),
        mapping: Mapping::Native,
        bits: None,
        reseed: Some(Reseed {
            bits: 32,
            seeds: SeedSequence::Counter,
        }),
    };
    for n in [7usize, 8, 52] {
        let mut source = spec.for_block(0, 0);
        let ours: Vec<String> = (0..50)
            .map(|_| {
                source.start_shuffle();
                let deck = libstdcxx_shuffle(n, &mut source);
                deck.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(ours, cxx(&n.to_string(), "50", "1"), "n = {n}");
    }
}

/// Fisher–Yates from the last card down over three other languages' draws, written in Python
/// from their published sources (not from this crate's code), for the generators whose
/// language is not installed here and which have no published shuffles to cite.
const INDEPENDENT_SHUFFLES: &str = r#"import sys
rng, n, seed, decks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

def delphi(s):
    # System.pas: RandSeed := RandSeed * $08088405 + 1; Random(n) = (RandSeed * n) shr 32.
    state = [s & 0xFFFFFFFF]
    def below(k):
        state[0] = (state[0] * 0x08088405 + 1) & 0xFFFFFFFF
        return (state[0] * k) >> 32
    return below

def dotnet(s):
    # .NET Framework Random.cs: Knuth's subtractive generator, Next(n) = (int)(Sample() * n).
    mbig = 2**31 - 1
    s = s & 0xFFFFFFFF
    s = s - 2**32 if s >= 2**31 else s
    a = [0] * 56
    mj = 161803398 - (mbig if s == -2**31 else abs(s))
    a[55] = mj
    mk, ii = 1, 0
    for _ in range(1, 55):
        ii = (ii + 21) % 55
        a[ii] = mk
        mk = (mj - mk) % mbig
        mj = a[ii]
    for _ in range(4):
        for i in range(1, 56):
            a[i] = (a[i] - a[1 + (i + 30) % 55]) % mbig
    lags = [0, 21]
    def below(k):
        lags[0] = lags[0] % 55 + 1
        lags[1] = lags[1] % 55 + 1
        r = a[lags[0]] - a[lags[1]]
        if r == mbig:
            r -= 1
        if r < 0:
            r += mbig
        a[lags[0]] = r
        return int(r * (1.0 / mbig) * k)
    return below

def mwc1616(s):
    # V8 src/math.js (3.30 to 4.8): two multiply-with-carry lanes, x / 2^32.
    st = [s & 0xFFFFFFFF, s >> 32]
    def below(k):
        st[0] = 18030 * (st[0] & 0xFFFF) + (st[0] >> 16)
        st[1] = 36969 * (st[1] & 0xFFFF) + (st[1] >> 16)
        x = ((st[0] << 16) + (st[1] & 0xFFFF)) & 0xFFFFFFFF
        return int((x / 2**32) * k)
    return below

for t in range(decks):
    below = {'delphi': delphi, 'dotnet': dotnet, 'mwc1616': mwc1616}[rng](seed + t)
    x = list(range(n))
    for i in range(n - 1, 0, -1):
        j = below(i + 1)
        x[i], x[j] = x[j], x[i]
    print(' '.join(map(str, x)))
"#;

#[test]
fn delphi_dotnet_and_mwc1616_native_decks_equal_independent_implementations() {
    // No published shuffles of Delphi, .NET or MWC1616 were found to cite (the published
    // vectors — DelphiBasics' Random(100) outputs, dotnet/runtime's Next() words — are tested
    // beside the draws and generators; none exists for MWC1616 with a known state); so the
    // decks are checked against implementations written separately, in Python, from the
    // primary sources.
    if !installed("python3", "--version") {
        return;
    }
    for (rng, seed, bits) in [
        ("delphi", 0u64, 32u32),
        ("dotnet", 0, 32),
        ("dotnet", (1 << 31) - 10, 32),
        ("mwc1616", (5 << 32) | 1, 64),
    ] {
        for n in [8usize, 52] {
            let expected = python(
                INDEPENDENT_SHUFFLES,
                &[rng, &n.to_string(), &seed.to_string(), "30"],
            );
            assert_eq!(
                native_decks(rng, n, 30, seed, bits),
                expected,
                "{rng} n={n}"
            );
        }
    }
}

#[test]
fn a_generator_without_a_native_draw_is_refused_naming_the_flag_and_the_choices() {
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "4",
            "-t",
            "10",
            "--rng",
            "msvc",
        ])
        .args(["--map", "native"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--map"))
        .stderr(predicate::str::contains("msvc has no bounded draw"))
        .stderr(predicate::str::contains("java"))
        .stderr(predicate::str::contains("php-mt-legacy"));
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "4",
            "-t",
            "10",
            "--map",
            "native",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("chacha8 has no bounded draw"));
}

#[test]
fn native_with_bits_and_theory_with_native_are_refused_with_the_fix() {
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "4",
            "-t",
            "10",
            "--rng",
            "java",
        ])
        .args(["--map", "native", "--bits", "16"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--bits"))
        .stderr(predicate::str::contains("drop --bits"));
    shuffle_bias()
        .args(["theory", "fisher-yates", "-n", "4", "--map", "native"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--rng NAME --map native"));
}

#[test]
fn native_draws_have_exact_laws_for_the_model_hypothesis() {
    // .NET's Next(n) divides by int.MaxValue and Delphi's Random(n) is a 32-bit multiply: both
    // slightly biased, and the exact engine knows their laws, so a run against its own model
    // is judged (exit 0 or 1), not refused; the law's source is named in the report.
    for rng in ["dotnet", "delphi", "java", "go", "php-mt-legacy", "mwc1616"] {
        let output = shuffle_bias()
            .args(["run", "fisher-yates", "-q", "-n", "5", "-t", "20000"])
            .args(["--seed", "3", "--rng", rng, "--map", "native"])
            .args(["--against", "model"])
            .output()
            .unwrap();
        let code = output.status.code().unwrap();
        assert!(code == 0 || code == 1, "{rng}: {output:?}");
        let report = String::from_utf8(output.stdout).unwrap();
        assert!(report.contains("native draw"), "{rng}: {report}");
    }
}

#[test]
fn inside_out_over_go_native_draws_is_go_rand_perm_word_for_word() {
    // Go's regress_test.go, from rand.Seed(0): Perm(0), Perm(1), then Perm(5) = [0 4 1 3 2]
    // and Perm(8) = [3 1 0 4 7 5 2 6]. Perm(1) calls Intn(1), which consumes a word: if the
    // algorithm skipped that draw, Perm(5) would start one word early and differ.
    use shuffle_bias::engine::algorithms::{Algorithm, Card};
    let spec = SourceSpec {
        generator: Generator::Other(GeneratorKind::Go),
        mapping: Mapping::Native,
        bits: None,
        reseed: Some(Reseed {
            bits: 32,
            seeds: SeedSequence::Counter,
        }),
    };
    let mut source = spec.for_block(0, 0);
    source.start_shuffle();
    let mut perm = |n: usize| {
        let mut deck: Vec<Card> = (0..n as Card).collect();
        let mut scratch = deck.clone();
        Algorithm::InsideOut.shuffle(&mut deck, &mut scratch, &mut source);
        deck
    };
    assert_eq!(perm(0), Vec::<Card>::new());
    assert_eq!(perm(1), [0]);
    assert_eq!(perm(5), [0, 4, 1, 3, 2]);
    assert_eq!(perm(8), [3, 1, 0, 4, 7, 5, 2, 6]);
}
