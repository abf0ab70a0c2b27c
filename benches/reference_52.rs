//! The 52-card reference loop of issue #16: what a careful hand-written program does to tally
//! where every card of a 52-card deck lands, and nothing more — ChaCha8 from `rand_chacha`,
//! `random_range` for every draw, Fisher–Yates on a byte array, and a 52×52 `u32` tally of
//! (card, position) per thread, summed at the end. `run fisher-yates -n 52` is measured against
//! it (benches/throughput.sh prints both side by side and the ratio).
//!
//! Usage: `cargo bench --bench reference_52 -- [TRIALS] [THREADS] [SEED]`
//! (defaults 20000000, 2, 1). Prints one line: `reference_52: … shuffles/s`.

use std::time::Instant;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

const N: usize = 52;

/// One thread's share: `trials` shuffles from its own ChaCha8 stream, tallied by position.
fn tally(seed: u64, stream: u64, trials: u64) -> Vec<[u32; N]> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    let mut counts = vec![[0u32; N]; N];
    let mut deck = [0u8; N];
    for _ in 0..trials {
        for (position, card) in deck.iter_mut().enumerate() {
            *card = position as u8;
        }
        for i in (1..N).rev() {
            let j = rng.random_range(0..=i);
            deck.swap(i, j);
        }
        for (position, &card) in deck.iter().enumerate() {
            counts[usize::from(card)][position] += 1;
        }
    }
    counts
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let trials: u64 = args
        .next()
        .map_or(20_000_000, |a| a.parse().expect("TRIALS"));
    let threads: u64 = args.next().map_or(2, |a| a.parse().expect("THREADS"));
    let seed: u64 = args.next().map_or(1, |a| a.parse().expect("SEED"));
    let started = Instant::now();
    let parts: Vec<Vec<[u32; N]>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let share = trials / threads + u64::from(t < trials % threads);
                scope.spawn(move || tally(seed, t, share))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut total = vec![[0u64; N]; N];
    for part in &parts {
        for (row, counts) in total.iter_mut().zip(part) {
            for (cell, &count) in row.iter_mut().zip(counts) {
                *cell += u64::from(count);
            }
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    // Every card is somewhere in every shuffle: a check that also keeps the tally alive.
    let placed: u64 = total.iter().map(|row| row.iter().sum::<u64>()).sum();
    assert_eq!(placed, trials * N as u64);
    println!(
        "reference_52: {trials} shuffles, {threads} threads, {elapsed:.3} s, {:.0} shuffles/s",
        trials as f64 / elapsed
    );
}
