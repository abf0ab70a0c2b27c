//! The simulation engine: shuffle a fresh deck `trials` times and tally every resulting ordering.
//!
//! Trials are cut into fixed blocks of [`BLOCK_TRIALS`]; block b draws its numbers from the
//! ChaCha stream b of the run's seed ([`BlockRng::for_block`]). Threads take blocks from a shared
//! counter and keep private tallies that are summed at the end, so the counts for a given seed are
//! identical whatever the number of threads. The hot loop is monomorphised per algorithm and per
//! generator and allocates nothing. The engine never prints: it reports progress through a
//! callback and can be stopped between blocks through a flag.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use rand_chacha::{ChaCha8Rng, ChaCha12Rng, ChaCha20Rng};

use crate::algorithms::{Algorithm, Card};
use crate::permutation::{MAX_FULL_DECK, factorial, rank};
use crate::random_source::{BlockRng, FastSource, RngKind};

/// Trials per block. Part of the reproducibility contract: changing it changes every count.
pub const BLOCK_TRIALS: u64 = 1 << 16;

/// What to simulate.
#[derive(Debug, Clone)]
pub struct SimulationSpec {
    /// The shuffle to run.
    pub algorithm: Algorithm,
    /// Number of cards, 2..=MAX_FULL_DECK.
    pub deck: usize,
    /// Number of shuffles.
    pub trials: u64,
    /// The run's seed; block b uses ChaCha stream b of the key expanded from it.
    pub seed: u64,
    /// Which ChaCha variant.
    pub rng: RngKind,
    /// Worker threads (at least 1).
    pub threads: usize,
}

/// The result of a simulation: how often each ordering (indexed by lexicographic rank) came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    /// Number of cards.
    pub deck: usize,
    /// `counts[rank]`: how many shuffles produced the permutation of that rank.
    pub counts: Vec<u64>,
    /// Shuffles actually tallied (less than asked for if the run was interrupted).
    pub trials: u64,
}

/// Run the simulation. `progress` is called from the calling thread with the number of shuffles
/// done so far, a few times a second; setting `stop` ends the run after the blocks in flight,
/// and the tally then holds only the completed blocks.
pub fn simulate(spec: &SimulationSpec, stop: &AtomicBool, progress: &mut dyn FnMut(u64)) -> Tally {
    match spec.rng {
        RngKind::Chacha8 => simulate_with::<ChaCha8Rng>(spec, stop, progress),
        RngKind::Chacha12 => simulate_with::<ChaCha12Rng>(spec, stop, progress),
        RngKind::Chacha20 => simulate_with::<ChaCha20Rng>(spec, stop, progress),
    }
}

/// Dispatch once on the algorithm, so that each worker loop is compiled for one algorithm.
fn simulate_with<R: BlockRng>(
    spec: &SimulationSpec,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> Tally {
    macro_rules! run_as {
        ($($variant:ident),*) => {
            match spec.algorithm {
                $(Algorithm::$variant => run_workers::<R, _>(spec, stop, progress, |deck, scratch, source| {
                    Algorithm::$variant.shuffle(deck, scratch, source)
                }),)*
            }
        };
    }
    run_as!(
        FisherYates,
        FisherYatesForward,
        Naive,
        Sattolo,
        ComparatorInsertion,
        ComparatorMerge,
        ComparatorQuick,
        ComparatorTimsort
    )
}

/// Dispatch once on the deck size, so that each worker loop works on a fixed-size array: the
/// compiler then unrolls the shuffle, the rank and the deck reset completely.
fn run_workers<R, S>(
    spec: &SimulationSpec,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
    shuffle: S,
) -> Tally
where
    R: BlockRng,
    S: Fn(&mut [Card], &mut [Card], &mut FastSource<R>) + Sync,
{
    match spec.deck {
        2 => run_sized::<R, S, 2>(spec, stop, progress, shuffle),
        3 => run_sized::<R, S, 3>(spec, stop, progress, shuffle),
        4 => run_sized::<R, S, 4>(spec, stop, progress, shuffle),
        5 => run_sized::<R, S, 5>(spec, stop, progress, shuffle),
        6 => run_sized::<R, S, 6>(spec, stop, progress, shuffle),
        7 => run_sized::<R, S, 7>(spec, stop, progress, shuffle),
        8 => run_sized::<R, S, 8>(spec, stop, progress, shuffle),
        9 => run_sized::<R, S, 9>(spec, stop, progress, shuffle),
        10 => run_sized::<R, S, 10>(spec, stop, progress, shuffle),
        11 => run_sized::<R, S, 11>(spec, stop, progress, shuffle),
        n => panic!("deck size {n} is outside 2..={MAX_FULL_DECK}; the config must refuse it"),
    }
}

fn run_sized<R, S, const N: usize>(
    spec: &SimulationSpec,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
    shuffle: S,
) -> Tally
where
    R: BlockRng,
    S: Fn(&mut [Card], &mut [Card], &mut FastSource<R>) + Sync,
{
    let blocks = spec.trials.div_ceil(BLOCK_TRIALS);
    let next_block = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let threads = spec.threads.clamp(1, blocks.max(1) as usize);

    let partial_tallies: Vec<(Vec<u64>, u64)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    tally_blocks::<R, S, N>(spec, blocks, &next_block, &done, stop, &shuffle)
                })
            })
            .collect();
        while !workers.iter().all(|worker| worker.is_finished()) {
            progress(done.load(Ordering::Relaxed));
            std::thread::sleep(Duration::from_millis(50));
        }
        progress(done.load(Ordering::Relaxed));
        workers
            .into_iter()
            .map(|worker| worker.join().expect("a simulation worker panicked"))
            .collect()
    });

    let mut partials = partial_tallies.into_iter();
    let (mut counts, mut trials) = partials.next().unwrap_or_default();
    for (partial, partial_trials) in partials {
        for (total, count) in counts.iter_mut().zip(partial) {
            *total += count;
        }
        trials += partial_trials;
    }
    if counts.is_empty() {
        counts = vec![0; factorial(spec.deck) as usize];
    }
    Tally {
        deck: spec.deck,
        counts,
        trials,
    }
}

/// One worker: take blocks until none are left (or `stop` is set) and tally them.
fn tally_blocks<R, S, const N: usize>(
    spec: &SimulationSpec,
    blocks: u64,
    next_block: &AtomicU64,
    done: &AtomicU64,
    stop: &AtomicBool,
    shuffle: &S,
) -> (Vec<u64>, u64)
where
    R: BlockRng,
    S: Fn(&mut [Card], &mut [Card], &mut FastSource<R>),
{
    let mut counts = vec![0u64; factorial(N) as usize];
    let identity: [Card; N] = std::array::from_fn(|i| i as Card);
    let mut scratch = identity;
    let mut tallied = 0;
    while !stop.load(Ordering::Relaxed) {
        let block = next_block.fetch_add(1, Ordering::Relaxed);
        if block >= blocks {
            break;
        }
        let length = BLOCK_TRIALS.min(spec.trials - block * BLOCK_TRIALS);
        let mut source = FastSource::new(R::for_block(spec.seed, block));
        for _ in 0..length {
            let mut deck = identity;
            shuffle(&mut deck, &mut scratch, &mut source);
            counts[rank(&deck)] += 1;
        }
        tallied += length;
        done.fetch_add(length, Ordering::Relaxed);
    }
    (counts, tallied)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(threads: usize) -> SimulationSpec {
        SimulationSpec {
            algorithm: Algorithm::Naive,
            deck: 4,
            trials: 3 * BLOCK_TRIALS + 1234,
            seed: 7,
            rng: RngKind::Chacha8,
            threads,
        }
    }

    #[test]
    fn counts_for_a_seed_do_not_depend_on_the_number_of_threads() {
        let stop = AtomicBool::new(false);
        let one = simulate(&spec(1), &stop, &mut |_| {});
        let two = simulate(&spec(2), &stop, &mut |_| {});
        let three = simulate(&spec(3), &stop, &mut |_| {});
        assert_eq!(one, two);
        assert_eq!(one, three);
        assert_eq!(one.counts.iter().sum::<u64>(), spec(1).trials);
        assert_eq!(one.trials, spec(1).trials);
    }

    #[test]
    fn a_different_seed_gives_different_counts() {
        let stop = AtomicBool::new(false);
        let a = simulate(&spec(1), &stop, &mut |_| {});
        let mut other = spec(1);
        other.seed = 8;
        let b = simulate(&other, &stop, &mut |_| {});
        assert_ne!(a.counts, b.counts);
    }

    #[test]
    fn a_stop_before_the_start_tallies_nothing() {
        let stop = AtomicBool::new(true);
        let tally = simulate(&spec(2), &stop, &mut |_| {});
        assert_eq!(tally.trials, 0);
        assert_eq!(tally.counts.len(), 24);
    }
}
