//! The hand-written reference loop for small decks that issue #16 measures shuffle-bias against:
//! ChaCha8 from `rand_chacha`, `random_range` per draw, Fisher–Yates on a byte array, the
//! Lehmer-code rank, and a `u64` tally of the n! orderings, on the same number of threads as
//! the run (each thread its own stream and tally, summed at the end).
//!
//! It prints one line, `shuffles_per_second <rate>` (then the check sum of the tally), so that
//! `benches/throughput.sh` can put it beside the tool's own figure in one run.
//!
//! Usage: cargo bench --bench reference_small -- DECK TRIALS THREADS
//! (defaults 4, 400000000, 2).

use std::time::Instant;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// n!, for the tally's size.
fn factorial(n: usize) -> usize {
    (1..=n).product()
}

/// Lexicographic rank (Lehmer code) of `deck`, a permutation of 0..N.
#[inline(always)]
fn lehmer_rank<const N: usize>(deck: &[u8; N]) -> usize {
    let mut rank = 0;
    for i in 0..N {
        let mut smaller_after = 0;
        for j in i + 1..N {
            smaller_after += usize::from(deck[j] < deck[i]);
        }
        rank = rank * (N - i) + smaller_after;
    }
    rank
}

/// One thread: `trials` Fisher–Yates shuffles of N cards (a byte array of a size fixed at
/// compile time, so the loops unroll), tallied by rank.
fn worker<const N: usize>(trials: u64, stream: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    rng.set_stream(stream);
    let mut counts = vec![0u64; factorial(N)];
    let identity: [u8; N] = std::array::from_fn(|i| i as u8);
    for _ in 0..trials {
        let mut deck = identity;
        for i in (1..N).rev() {
            let j = rng.random_range(0..=i);
            deck.swap(i, j);
        }
        counts[lehmer_rank(&deck)] += 1;
    }
    counts
}

/// [`worker`] for a deck size known at run time.
fn worker_for(n: usize, trials: u64, stream: u64) -> Vec<u64> {
    match n {
        4 => worker::<4>(trials, stream),
        5 => worker::<5>(trials, stream),
        6 => worker::<6>(trials, stream),
        7 => worker::<7>(trials, stream),
        8 => worker::<8>(trials, stream),
        9 => worker::<9>(trials, stream),
        10 => worker::<10>(trials, stream),
        _ => panic!("deck size {n} is outside 4..=10"),
    }
}

fn main() {
    // `cargo bench` passes `--bench`; keep only the numbers.
    let numbers: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|arg| arg.replace('_', "").parse().ok())
        .collect();
    let n = numbers.first().copied().unwrap_or(4) as usize;
    let trials = numbers.get(1).copied().unwrap_or(400_000_000);
    let threads = numbers.get(2).copied().unwrap_or(2).max(1);
    assert!((4..=10).contains(&n), "deck size {n} is outside 4..=10");
    let started = Instant::now();
    let tallies: Vec<Vec<u64>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let share = trials / threads + u64::from(t < trials % threads);
                scope.spawn(move || worker_for(n, share, t))
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let elapsed = started.elapsed().as_secs_f64();
    let total: u64 = tallies.iter().flatten().sum();
    assert_eq!(total, trials);
    println!("shuffles_per_second {:.0}", trials as f64 / elapsed);
    println!("deck {n} trials {trials} threads {threads} seconds {elapsed:.3}");
}
