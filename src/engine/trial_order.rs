//! The shuffles of a run visited one by one in trial order — block 0's shuffles first, in the
//! order drawn, then block 1's, … — with a visitor that can stop the run (`--until-decided`).
//!
//! The shuffles are exactly those [`crate::engine::simulate::simulate`] tallies and
//! [`crate::engine::emit::emit_permutations_from`] writes: the same algorithm code, the same
//! per-block sources from [`dispatch_run`] (the one-draw sources of
//! [`crate::engine::choice_table`] when the run takes that path). Worker threads shuffle whole blocks (worker w takes
//! blocks w, w + T, w + 2T, … of T workers) and hand them over in chunks through one bounded
//! channel each; the calling thread reads block b from worker b mod T, so the visitor sees the
//! shuffles in trial order whatever the number of threads, and memory stays a few chunks per
//! worker. When the visitor breaks, or the stop flag (Ctrl-C) is set, the channels are dropped
//! and the workers end at their next hand-over.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use crate::engine::algorithms::Card;
use crate::engine::choice_table::dispatch_run;
use crate::engine::mapped_source::{SourceSpec, SourcesVisitor};
use crate::engine::random_source::{BlockSources, RandomSource};
use crate::engine::simulate::{BLOCK_TRIALS, SimulationSpec};

/// Shuffles per chunk handed from a worker to the visitor (at most; fewer for costly shuffles,
/// see [`SimulationSpec::chunk_trials`]).
const CHUNK_TRIALS: u64 = 4096;

/// Chunks a worker may have shuffled ahead of the visitor.
const CHUNKS_AHEAD: usize = 4;

/// How a visit in trial order ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visited {
    /// Shuffles visited.
    pub trials: u64,
    /// Whether the visitor asked to stop (the last shuffle visited is where it broke).
    pub broke: bool,
}

/// Visit the shuffles of the run `spec` with the random source `source`, in trial order,
/// calling `visit` with each deck (`deck[position] = card`) until it breaks, the run ends, or
/// `stop` is set (checked between chunks). `progress` gets the shuffles visited so far after
/// every chunk.
pub fn visit_in_trial_order(
    spec: &SimulationSpec,
    source: &SourceSpec,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
    visit: &mut dyn FnMut(&[Card]) -> ControlFlow<()>,
) -> Visited {
    struct InOrder<'a> {
        spec: &'a SimulationSpec,
        stop: &'a AtomicBool,
        progress: &'a mut dyn FnMut(u64),
        visit: &'a mut dyn FnMut(&[Card]) -> ControlFlow<()>,
    }
    impl SourcesVisitor for InOrder<'_> {
        type Output = Visited;
        fn visit<B: BlockSources>(self, sources: &B) -> Visited {
            if self.spec.threads <= 1 {
                visit_here(self.spec, sources, self.stop, self.progress, self.visit)
            } else {
                visit_with_workers(self.spec, sources, self.stop, self.progress, self.visit)
            }
        }
    }
    dispatch_run(
        spec.shuffle,
        spec.deck,
        source,
        InOrder {
            spec,
            stop,
            progress,
            visit,
        },
    )
}

/// The number of shuffles of block `block`.
fn block_length(spec: &SimulationSpec, block: u64) -> u64 {
    BLOCK_TRIALS.min(spec.trials - block * BLOCK_TRIALS)
}

/// Shuffles per chunk.
fn chunk_trials(spec: &SimulationSpec) -> u64 {
    spec.chunk_trials().min(CHUNK_TRIALS)
}

/// Shuffle `length` fresh decks with `source` into `out` (n cards each, appended).
fn shuffle_chunk<S: RandomSource>(
    spec: &SimulationSpec,
    source: &mut S,
    length: u64,
    identity: &[Card],
    scratch: &mut [Card],
    out: &mut Vec<Card>,
) {
    let n = identity.len();
    for _ in 0..length {
        let start = out.len();
        out.extend_from_slice(identity);
        if S::STARTS_SHUFFLES {
            source.start_shuffle();
        }
        spec.shuffle
            .apply(&mut out[start..start + n], scratch, source);
    }
}

/// Hand `chunk`'s decks to the visitor; Break when it breaks.
fn visit_chunk(
    chunk: &[Card],
    n: usize,
    visited: &mut u64,
    visit: &mut dyn FnMut(&[Card]) -> ControlFlow<()>,
) -> ControlFlow<()> {
    for deck in chunk.chunks_exact(n) {
        *visited += 1;
        visit(deck)?;
    }
    ControlFlow::Continue(())
}

/// One thread: shuffle and visit in turn.
fn visit_here<B: BlockSources>(
    spec: &SimulationSpec,
    sources: &B,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
    visit: &mut dyn FnMut(&[Card]) -> ControlFlow<()>,
) -> Visited {
    let n = spec.deck;
    let identity: Vec<Card> = (0..n as Card).collect();
    let mut scratch = identity.clone();
    let mut chunk = Vec::new();
    let per_chunk = chunk_trials(spec);
    let mut visited = 0;
    for block in 0..spec.trials.div_ceil(BLOCK_TRIALS) {
        let length = block_length(spec, block);
        let mut source = sources.for_block(spec.seed, block);
        let mut done = 0;
        while done < length {
            if stop.load(Ordering::Relaxed) {
                return Visited {
                    trials: visited,
                    broke: false,
                };
            }
            let part = per_chunk.min(length - done);
            chunk.clear();
            shuffle_chunk(spec, &mut source, part, &identity, &mut scratch, &mut chunk);
            done += part;
            let flow = visit_chunk(&chunk, n, &mut visited, visit);
            progress(visited);
            if flow.is_break() {
                return Visited {
                    trials: visited,
                    broke: true,
                };
            }
        }
    }
    Visited {
        trials: visited,
        broke: false,
    }
}

/// Worker threads shuffle whole blocks ahead; this thread visits them in block order.
fn visit_with_workers<B: BlockSources>(
    spec: &SimulationSpec,
    sources: &B,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
    visit: &mut dyn FnMut(&[Card]) -> ControlFlow<()>,
) -> Visited {
    let n = spec.deck;
    let blocks = spec.trials.div_ceil(BLOCK_TRIALS);
    let workers = (spec.threads as u64).clamp(1, blocks.max(1));
    let per_chunk = chunk_trials(spec);
    std::thread::scope(|scope| {
        let mut receivers: Vec<Receiver<Vec<Card>>> = Vec::new();
        for worker in 0..workers {
            let (sender, receiver) = sync_channel::<Vec<Card>>(CHUNKS_AHEAD);
            receivers.push(receiver);
            scope.spawn(move || {
                shuffle_blocks(spec, sources, worker, workers, per_chunk, &sender);
            });
        }
        let mut visited = 0;
        let mut outcome = Visited {
            trials: 0,
            broke: false,
        };
        'blocks: for block in 0..blocks {
            let receiver = &receivers[(block % workers) as usize];
            let mut remaining = block_length(spec, block);
            while remaining > 0 {
                if stop.load(Ordering::Relaxed) {
                    break 'blocks;
                }
                let Ok(chunk) = receiver.recv() else {
                    // A worker that panicked dropped its sender; the scope reports the panic.
                    break 'blocks;
                };
                remaining -= (chunk.len() / n) as u64;
                let flow = visit_chunk(&chunk, n, &mut visited, visit);
                progress(visited);
                if flow.is_break() {
                    outcome.broke = true;
                    break 'blocks;
                }
            }
        }
        outcome.trials = visited;
        // The workers end at their next send.
        drop(receivers);
        outcome
    })
}

/// One worker: blocks `first`, `first + step`, … shuffled in chunks and sent in order, until
/// the run ends or the visitor has gone.
fn shuffle_blocks<B: BlockSources>(
    spec: &SimulationSpec,
    sources: &B,
    first: u64,
    step: u64,
    per_chunk: u64,
    sender: &SyncSender<Vec<Card>>,
) {
    let n = spec.deck;
    let identity: Vec<Card> = (0..n as Card).collect();
    let mut scratch = identity.clone();
    let blocks = spec.trials.div_ceil(BLOCK_TRIALS);
    let mut block = first;
    while block < blocks {
        let length = block_length(spec, block);
        let mut source = sources.for_block(spec.seed, block);
        let mut done = 0;
        while done < length {
            let part = per_chunk.min(length - done);
            let mut chunk = Vec::with_capacity(part as usize * n);
            shuffle_chunk(spec, &mut source, part, &identity, &mut scratch, &mut chunk);
            done += part;
            if sender.send(chunk).is_err() {
                return;
            }
        }
        block += step;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::algorithms::Algorithm;
    use crate::engine::emit::emit_permutations_from;
    use crate::engine::random_source::RngKind;

    fn spec(threads: usize) -> SimulationSpec {
        SimulationSpec {
            shuffle: Algorithm::Naive.into(),
            deck: 5,
            trials: 2 * BLOCK_TRIALS + 999,
            seed: 3,
            rng: RngKind::Chacha8,
            threads,
        }
    }

    /// Every deck visited, as the lines `--emit-permutations` writes.
    fn visited_text(spec: &SimulationSpec, limit: u64) -> (String, Visited) {
        let stop = AtomicBool::new(false);
        let mut text = String::new();
        let mut seen = 0;
        let visited = visit_in_trial_order(
            spec,
            &SourceSpec::chacha(spec.rng),
            &stop,
            &mut |_| {},
            &mut |deck| {
                let line: Vec<String> = deck.iter().map(ToString::to_string).collect();
                text.push_str(&line.join(" "));
                text.push('\n');
                seen += 1;
                if seen == limit {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        (text, visited)
    }

    #[test]
    fn the_visit_sees_the_emitted_permutations_in_the_same_order_on_any_threads() {
        let stop = AtomicBool::new(false);
        let mut emitted = Vec::new();
        let spec = spec(1);
        emit_permutations_from(&spec, &SourceSpec::chacha(spec.rng), &mut emitted, &stop).unwrap();
        let emitted = String::from_utf8(emitted).unwrap();
        let body: String = emitted.lines().skip(1).map(|l| format!("{l}\n")).collect();
        for threads in [1, 2, 3] {
            let (text, visited) = visited_text(&self::spec(threads), u64::MAX);
            assert_eq!(visited.trials, spec.trials, "{threads} threads");
            assert!(!visited.broke);
            assert!(text == body, "{threads} threads: another order");
        }
    }

    #[test]
    fn the_deal_stream_of_a_full_run_counts_what_deals_fed_one_by_one_in_trial_order_give() {
        use crate::engine::deal_stream::{DealStream, DealStreamOptions, RepeatSource};
        use crate::engine::simulate::{Simulation, simulate};
        // Both the one-draw path (Fisher–Yates, naive, Sattolo on small decks) and the
        // choice-by-choice loop (larger decks, another algorithm), with blocks taken by several
        // workers in any order: the counts must equal DealStream::add on the decks of the run in
        // trial order, so the seams between blocks pair exactly the consecutive shuffles.
        let stop = AtomicBool::new(false);
        for (algorithm, deck) in [
            (Algorithm::FisherYates, 4),
            (Algorithm::Naive, 5),
            (Algorithm::Sattolo, 6),
            (Algorithm::FisherYates, 7),
            (Algorithm::FisherYates, 9),
            (Algorithm::ComparatorMerge, 4),
        ] {
            let spec = SimulationSpec {
                shuffle: algorithm.into(),
                deck,
                trials: 3 * BLOCK_TRIALS + 777,
                seed: 5,
                rng: RngKind::Chacha8,
                threads: 3,
            };
            let options = DealStreamOptions {
                deck,
                dealt: deck,
                repeats: RepeatSource::FullTally,
                compositions: true,
            };
            let source = SourceSpec::chacha(spec.rng);
            let how = Simulation {
                deals: Some(options),
                ..Simulation::from_source(&source)
            };
            let fast = simulate(&spec, &how, &stop, &mut |_| {}).deals;
            let mut plain = DealStream::new(options);
            visit_in_trial_order(&spec, &source, &stop, &mut |_| {}, &mut |cards| {
                plain.add(cards);
                ControlFlow::Continue(())
            });
            let mut fast = fast.unwrap();
            let mut plain = plain.finish();
            // The counts must agree; the ends of the runs of blocks (kept for merging saved
            // tallies) exist only for the run, which is fed in blocks.
            for tally in [&mut fast, &mut plain] {
                tally.ends.clear();
                tally.fingerprints.clear();
            }
            assert_eq!(
                fast.pairs,
                spec.trials - 1,
                "{} on {deck}",
                algorithm.name()
            );
            assert_eq!(fast, plain, "{} on {deck}", algorithm.name());
        }
    }

    #[test]
    fn a_break_stops_the_visit_at_that_shuffle_on_any_threads() {
        for (threads, limit) in [
            (1, 17),
            (2, 17),
            (2, BLOCK_TRIALS + 5),
            (3, 2 * BLOCK_TRIALS),
        ] {
            let (text, visited) = visited_text(&spec(threads), limit);
            assert_eq!(visited.trials, limit);
            assert!(visited.broke);
            assert_eq!(text.lines().count() as u64, limit);
        }
    }

    #[test]
    fn a_stop_before_the_start_visits_nothing() {
        let stop = AtomicBool::new(true);
        for threads in [1, 2] {
            let spec = spec(threads);
            let visited = visit_in_trial_order(
                &spec,
                &SourceSpec::chacha(spec.rng),
                &stop,
                &mut |_| {},
                &mut |_| ControlFlow::Continue(()),
            );
            assert_eq!(visited.trials, 0);
        }
    }
}
