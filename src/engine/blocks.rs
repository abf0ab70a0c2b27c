//! What every simulation shares, full or marginal: what to simulate ([`SimulationSpec`]), the
//! queue that hands a run's blocks to whichever worker asks first, and the scoped threads that
//! run the workers while the calling thread reports progress.

use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use crate::engine::algorithms::Shuffle;
use crate::engine::random_source::{BLOCK_TRIALS, RngKind};
use crate::engine::shard::{BlockCoverage, block_count};

/// What to simulate.
#[derive(Debug, Clone)]
pub struct SimulationSpec {
    /// The shuffle to run (all its passes make one trial).
    pub shuffle: Shuffle,
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

impl SimulationSpec {
    /// Shuffles between two looks at the stop flag inside a block: a whole block for one pass
    /// over a small deck (the hot loop is unchanged), fewer when a trial is costly (many passes,
    /// a large deck), so that Ctrl-C is answered within milliseconds whatever the shuffle.
    pub(crate) fn chunk_trials(&self) -> u64 {
        // Roughly the card moves of one trial; 2^20 of them take about a millisecond.
        let work = u64::from(self.shuffle.passes) * self.deck as u64;
        ((1u64 << 20) / work.max(1)).clamp(1, BLOCK_TRIALS)
    }
}

/// The blocks of a run (or of a range of them), handed out one at a time to whichever worker
/// asks first, in increasing order.
pub(crate) struct BlockQueue {
    trials: u64,
    blocks: u64,
    end: u64,
    next: AtomicU64,
    done: AtomicU64,
    /// Blocks cut short by a stop, with the shuffles done of each.
    cut_short: Mutex<Vec<(u64, u64)>>,
}

impl BlockQueue {
    /// The blocks `blocks` of a run of `trials` shuffles (clamped to the run's blocks).
    pub(crate) fn range(trials: u64, blocks: Range<u64>) -> Self {
        let end = blocks.end.min(block_count(trials));
        BlockQueue {
            trials,
            blocks: end.saturating_sub(blocks.start),
            end,
            next: AtomicU64::new(blocks.start.min(end)),
            done: AtomicU64::new(0),
            cut_short: Mutex::new(Vec::new()),
        }
    }

    /// The next block and its number of trials, or None when all are taken or `stop` is set.
    pub(crate) fn take(&self, stop: &AtomicBool) -> Option<(u64, u64)> {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let block = self.next.fetch_add(1, Ordering::Relaxed);
        (block < self.end).then(|| (block, BLOCK_TRIALS.min(self.trials - block * BLOCK_TRIALS)))
    }

    /// Record `done` shuffles of block `block`, of `length`, done (for progress, and to know
    /// which blocks a stop cut short).
    pub(crate) fn finished(&self, block: u64, length: u64, done: u64) {
        self.done.fetch_add(done, Ordering::Relaxed);
        if done < length
            && let Ok(mut cut_short) = self.cut_short.lock()
        {
            cut_short.push((block, done));
        }
    }

    /// What was done: the blocks taken (each finished, or cut short by a stop).
    pub(crate) fn coverage(&self) -> BlockCoverage {
        let start = self.end - self.blocks;
        let taken = start..self.next.load(Ordering::Relaxed).clamp(start, self.end);
        let mut partial = self
            .cut_short
            .lock()
            .map(|cut| cut.clone())
            .unwrap_or_default();
        partial.sort_unstable();
        BlockCoverage { taken, partial }
    }
}

/// Run `work` on up to `threads` scoped threads (no more than there are blocks) and collect
/// their results. Meanwhile the calling thread reports the shuffles done every 50 ms, and it
/// returns the moment the last worker finishes (a short run must not wait).
pub(crate) fn run_reporting<T: Send>(
    threads: usize,
    queue: &BlockQueue,
    progress: &mut dyn FnMut(u64),
    work: &(dyn Fn() -> T + Sync),
) -> Vec<T> {
    let threads = threads.clamp(1, queue.blocks.max(1) as usize);
    std::thread::scope(|scope| {
        let (finished_sender, finished) = std::sync::mpsc::channel::<()>();
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let finished_sender = finished_sender.clone();
                scope.spawn(move || {
                    let result = work();
                    let _ = finished_sender.send(());
                    result
                })
            })
            .collect();
        drop(finished_sender);
        let mut running = workers.len();
        while running > 0 {
            match finished.recv_timeout(Duration::from_millis(50)) {
                Ok(()) => running -= 1,
                Err(RecvTimeoutError::Timeout) => progress(queue.done.load(Ordering::Relaxed)),
                // A worker that panicked dropped its sender; join() below reports the panic.
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        progress(queue.done.load(Ordering::Relaxed));
        workers
            .into_iter()
            .map(|worker| worker.join().expect("a simulation worker panicked"))
            .collect()
    })
}
