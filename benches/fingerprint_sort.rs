//! The deal-stream fingerprints in isolation (issue #16): the radix sort of
//! `shuffle_bias::engine::fingerprint_sort` against `sort_unstable` on the same lists (random
//! 128-bit values, as hash outputs are, and packed 5-card deals of 52), and `hash_deal` on
//! 52-card decks. Each figure is the best of REPS (default 5) runs, the contenders taking turns,
//! so that a busy machine disturbs both alike.
//!
//! Usage: `cargo bench --bench fingerprint_sort -- [VALUES] [REPS]` (defaults 5000000, 5: the
//! per-worker list of `run -n 52 -t 10M --threads 2`). Prints ns per value and per deal.

use std::time::Instant;

use shuffle_bias::engine::deal_stream::hash_deal;
use shuffle_bias::engine::fingerprint_sort::sort_fingerprints;

/// SplitMix64 (Steele, Lea and Flood 2014): seeded test values.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        shuffle_bias::engine::random_source::splitmix64(&mut self.0)
    }
}

/// Best ns per value of each sort on `values`, taking turns.
fn time_sorts(values: &[u128], reps: usize) -> [f64; 2] {
    let sorts: [fn(&mut [u128]); 2] = [<[u128]>::sort_unstable, sort_fingerprints];
    let mut best = [f64::MAX; 2];
    let mut list = values.to_vec();
    let mut expected: Option<Vec<u128>> = None;
    for _ in 0..reps {
        for (best, sort) in best.iter_mut().zip(sorts) {
            list.copy_from_slice(values);
            let started = Instant::now();
            sort(&mut list);
            *best = best.min(started.elapsed().as_nanos() as f64 / values.len() as f64);
            match &expected {
                Some(expected) => assert!(&list == expected, "the sorts disagree"),
                None => expected = Some(list.clone()),
            }
        }
    }
    best
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let n: usize = args
        .next()
        .map_or(5_000_000, |a| a.parse().expect("VALUES"));
    let reps: usize = args.next().map_or(5, |a| a.parse().expect("REPS"));
    let mut random = SplitMix(1);
    let hashes: Vec<u128> = (0..n)
        .map(|_| (u128::from(random.next()) << 64) | u128::from(random.next()))
        .collect();
    let packed: Vec<u128> = (0..n)
        .map(|_| (0..5).fold(0u128, |acc, _| (acc << 6) | u128::from(random.next() % 52)))
        .collect();
    println!("{n} values, best of {reps}:");
    println!(
        "{:<34} {:>14} {:>14} {:>7}",
        "list", "sort_unstable", "radix", "ratio"
    );
    for (name, values) in [
        ("random 128-bit (hash outputs)", &hashes),
        ("packed 5 of 52", &packed),
    ] {
        let [plain, radix] = time_sorts(values, reps);
        println!(
            "{name:<34} {plain:>11.1} ns {radix:>11.1} ns {:>6.2}x",
            plain / radix
        );
    }
    // hash_deal on 2,000 decks (in the cache, as in the deal stream), 100 times over.
    let decks: Vec<u16> = (0..2_000 * 52)
        .map(|_| (random.next() % 52) as u16)
        .collect();
    let mut best = f64::MAX;
    for _ in 0..reps {
        let started = Instant::now();
        let mut sum = 0u128;
        for _ in 0..100 {
            for deck in decks.chunks_exact(52) {
                sum = sum.wrapping_add(hash_deal(std::hint::black_box(deck)));
            }
        }
        std::hint::black_box(sum);
        best = best.min(started.elapsed().as_nanos() as f64 / 200_000.0);
    }
    println!("hash_deal, 52 cards: {best:.1} ns a deal");
}
