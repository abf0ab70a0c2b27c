//! Raw word rate of the simulation's ChaCha generators, one thread: the wide core
//! (`engine::chacha::WideChaCha`, sixteen blocks with AVX-512 or twice eight with AVX2, 256
//! words a call straight into an aligned buffer)
//! beside `rand_chacha`'s `fill_bytes` into a 1024-byte buffer (what the fast source did before),
//! and the fast source itself read one word at a time (`below(2^31)` takes exactly one word:
//! 2^32 mod 2^31 = 0, so Lemire's method never rejects) on each of its two paths.
//!
//! Usage: `cargo bench --bench chacha_words -- [WORDS] [REPEATS]` (defaults 400000000, 3).
//! Prints, per generator and round count, the best of REPEATS runs in M words/s and the ratio
//! of the wide core to `rand_chacha`'s `fill_bytes`.

use std::hint::black_box;
use std::time::Instant;

use rand_chacha::{ChaCha8Rng, ChaCha12Rng, ChaCha20Rng};
use shuffle_bias::engine::chacha::{WIDE_WORDS, WideChaCha, WordBuffer};
use shuffle_bias::engine::random_source::{BlockRng, FastSource, RandomSource, key_from_seed};

/// Best words per second of `run(words)` over `repeats` runs.
fn best_rate(words: u64, repeats: u32, mut run: impl FnMut(u64) -> u64) -> f64 {
    let mut best = 0.0f64;
    for _ in 0..repeats {
        let started = Instant::now();
        black_box(run(words));
        best = best.max(words as f64 / started.elapsed().as_secs_f64());
    }
    best
}

/// The four rates of one ChaCha variant, M words/s: wide core, fill_bytes, and the fast
/// source on each path.
fn rates<R: BlockRng>(rounds: u32, words: u64, repeats: u32) -> [f64; 4] {
    let buffers = words / WIDE_WORDS as u64;
    let wide = best_rate(words, repeats, |_| {
        let Some(mut chacha) = WideChaCha::new(rounds, &key_from_seed(1), 0, 0) else {
            return 0;
        };
        let mut buffer = WordBuffer::default();
        let mut sum = 0u64;
        for _ in 0..buffers {
            chacha.fill(&mut buffer);
            sum = sum.wrapping_add(u64::from(black_box(&buffer).0[0]));
        }
        sum
    });
    let fill_bytes = best_rate(words, repeats, |_| {
        let mut rng = R::for_block(1, 0);
        let mut bytes = [0u8; WIDE_WORDS * 4];
        let mut sum = 0u64;
        for _ in 0..buffers {
            rng.fill_bytes(&mut bytes);
            sum = sum.wrapping_add(u64::from(black_box(&bytes)[0]));
        }
        sum
    });
    let draw = |mut source: FastSource<R>| {
        move |words: u64| {
            let mut sum = 0u64;
            for _ in 0..words {
                sum = sum.wrapping_add(source.below(1 << 31) as u64);
            }
            sum
        }
    };
    let source_wide = best_rate(words, repeats, draw(FastSource::new(R::for_block(1, 0))));
    let source_portable = best_rate(
        words,
        repeats,
        draw(FastSource::with_rand_chacha(R::for_block(1, 0))),
    );
    [wide, fill_bytes, source_wide, source_portable].map(|rate| rate / 1e6)
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let words: u64 = args
        .next()
        .map_or(400_000_000, |a| a.parse().expect("WORDS"));
    let repeats: u32 = args.next().map_or(3, |a| a.parse().expect("REPEATS"));
    if shuffle_bias::engine::chacha::available() {
        println!("wide core: sixteen blocks a call (AVX-512)");
    } else if shuffle_bias::engine::chacha::avx2_available() {
        println!("wide core: eight blocks a call, two a fill (AVX2; this CPU lacks AVX-512)");
    } else {
        println!(
            "no AVX-512 or AVX2 on this CPU: the wide core is not available (its column reads 0)"
        );
    }
    println!(
        "{:<9} {:>10} {:>12} {:>9} {:>14} {:>18}",
        "M words/s", "wide core", "fill_bytes", "ratio", "source, wide", "source, fill_bytes"
    );
    for (name, [wide, fill, source_wide, source_portable]) in [
        ("chacha8", rates::<ChaCha8Rng>(8, words, repeats)),
        ("chacha12", rates::<ChaCha12Rng>(12, words, repeats)),
        ("chacha20", rates::<ChaCha20Rng>(20, words, repeats)),
    ] {
        println!(
            "{name:<9} {wide:>10.0} {fill:>12.0} {:>8.2}x {source_wide:>14.0} {source_portable:>18.0}",
            wide / fill
        );
    }
}
