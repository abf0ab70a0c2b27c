//! The simulation in marginal mode: decks of any size, a [`MarginalTally`] instead of n! counts.
//!
//! Blocks, seeds and threads work exactly as in [`crate::engine::simulate`]: block b draws from ChaCha
//! stream b of the seed, workers take blocks from one queue and their tallies are summed, so a
//! seed gives the same tally on any number of threads — and, for a deck small enough for both
//! modes, the shuffles are the very ones the full mode tallies. The loop is monomorphised per
//! generator; the deck size is a run-time value.
//!
//! Each worker shuffles [`LANES`] decks into one buffer, then tallies them together in the fused
//! pass of [`FusedMarginalTally`] (positions and every statistic in one scan per deck, the cycle
//! walks of the decks interleaved) and feeds them, in trial order, to the deal stream.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::engine::algorithms::Card;
use crate::engine::blocks::{BlockQueue, SimulationSpec, run_reporting};
use crate::engine::choice_table::dispatch_run;
use crate::engine::deal_stream::{DealStream, DealStreamOptions, DealStreamTally};
use crate::engine::mapped_source::{SourceSpec, SourcesVisitor};
use crate::engine::marginal::{FusedMarginalTally, LANES, MarginalTally};
use crate::engine::random_source::{BlockSources, RandomSource};
use crate::engine::shard::BlockCoverage;

/// The blocks `blocks` of the run tallied in marginal mode (see
/// [`crate::engine::simulate::simulate`]), their coverage, and the deal-stream accumulator of
/// those blocks when `deals` is given.
pub(crate) fn simulate_marginal(
    spec: &SimulationSpec,
    source: &SourceSpec,
    blocks: Range<u64>,
    deals: Option<DealStreamOptions>,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> (MarginalTally, BlockCoverage, Option<DealStreamTally>) {
    struct Marginal<'a> {
        spec: &'a SimulationSpec,
        queue: &'a BlockQueue,
        deals: Option<DealStreamOptions>,
        stop: &'a AtomicBool,
        progress: &'a mut dyn FnMut(u64),
    }
    impl SourcesVisitor for Marginal<'_> {
        type Output = (MarginalTally, Option<DealStreamTally>);
        fn visit<B: BlockSources>(self, sources: &B) -> Self::Output {
            // One match per shuffle is nothing next to the O(n) work of a large deck, so the
            // loop is not compiled once per algorithm.
            let shuffle = self.spec.shuffle;
            marginal_workers(
                self.spec,
                sources,
                self.queue,
                self.deals,
                self.stop,
                self.progress,
                move |deck, scratch, source| shuffle.apply(deck, scratch, source),
            )
        }
    }
    let queue = BlockQueue::range(spec.trials, blocks);
    let (tally, deals) = dispatch_run(
        spec.shuffle,
        spec.deck,
        source,
        Marginal {
            spec,
            queue: &queue,
            deals,
            stop,
            progress,
        },
    );
    (tally, queue.coverage(), deals)
}

fn marginal_workers<B, S>(
    spec: &SimulationSpec,
    sources: &B,
    queue: &BlockQueue,
    deals: Option<DealStreamOptions>,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
    shuffle: S,
) -> (MarginalTally, Option<DealStreamTally>)
where
    B: BlockSources,
    S: Fn(&mut [Card], &mut [Card], &mut B::Source) + Sync,
{
    let work = || {
        let n = spec.deck;
        let identity: Vec<Card> = (0..n as Card).collect();
        // LANES decks are shuffled into `decks`, then tallied together (and fed to the deal
        // stream in trial order).
        let mut decks: Vec<Card> = identity.repeat(LANES);
        let mut scratch = identity.clone();
        let mut tally = FusedMarginalTally::new(n);
        let mut stream = deals.map(DealStream::new);
        // Every deck goes to the deal stream, whose slot tables hold the position matrix
        // already (whole decks of at most 64 cards): it is read off them at the end.
        let positions_from_stream = tally.is_fused()
            && stream
                .as_ref()
                .is_some_and(DealStream::has_slot_card_counts);
        if positions_from_stream {
            tally.leave_positions();
        }
        let chunk = spec.chunk_trials();
        let mut tally_decks = |decks: &[Card], stream: &mut Option<DealStream>| {
            tally.add_decks(decks);
            if let Some(stream) = stream {
                stream.add_deals(decks);
            }
        };
        while let Some((block, length)) = queue.take(stop) {
            let mut source = sources.for_block(spec.seed, block);
            if let Some(stream) = &mut stream {
                stream.start_block(block);
            }
            let mut done = 0;
            let mut filled = 0;
            // Trials until the next look at `stop` (every `chunk`, at ≥ 1): a countdown, not a
            // remainder, which would be a division per deck.
            let mut to_look = chunk;
            for trial in 1..=length {
                let deck = &mut decks[filled * n..(filled + 1) * n];
                // A loop, not copy_from_slice: for a few dozen cards a call to memmove costs more.
                for (card, &start) in deck.iter_mut().zip(&identity) {
                    *card = start;
                }
                if B::Source::STARTS_SHUFFLES {
                    source.start_shuffle();
                }
                shuffle(deck, &mut scratch, &mut source);
                filled += 1;
                if filled == LANES {
                    tally_decks(&decks, &mut stream);
                    filled = 0;
                }
                done = trial;
                to_look -= 1;
                if to_look == 0 {
                    to_look = chunk;
                    if trial < length && stop.load(Ordering::Relaxed) {
                        break;
                    }
                }
            }
            tally_decks(&decks[..filled * n], &mut stream);
            if let Some(stream) = &mut stream {
                stream.end_block(done == length);
            }
            queue.finished(block, length, done);
        }
        if let Some(stream) = &mut stream {
            if positions_from_stream {
                let positions = stream
                    .slot_card_counts()
                    .expect("the stream was asked whether it has them");
                tally.add_positions(&positions);
            }
            stream.sort_fingerprints();
        }
        (tally.finish(), stream)
    };
    let mut total = MarginalTally::new(spec.deck);
    let mut streams: Option<DealStream> = None;
    for (partial, stream) in run_reporting(spec.threads, queue, progress, &work) {
        total.merge(&partial);
        if let Some(part) = stream {
            match &mut streams {
                Some(whole) => whole.merge(part),
                None => streams = Some(part),
            }
        }
    }
    (total, streams.map(DealStream::finish))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::algorithms::{Algorithm, Shuffle};
    use crate::engine::permutation::for_each_in_rank_order;
    use crate::engine::random_source::RngKind;
    use crate::engine::simulate::{BLOCK_TRIALS, Simulation, simulate};

    fn spec(algorithm: Algorithm, deck: usize, threads: usize) -> SimulationSpec {
        SimulationSpec {
            shuffle: Shuffle::from(algorithm),
            deck,
            trials: 2 * BLOCK_TRIALS + 777,
            seed: 5,
            rng: RngKind::Chacha8,
            threads,
        }
    }

    #[test]
    fn the_tally_for_a_seed_does_not_depend_on_the_number_of_threads() {
        let stop = AtomicBool::new(false);
        let one = simulate(
            &spec(Algorithm::Naive, 52, 1),
            &Simulation::marginal(),
            &stop,
            &mut |_| {},
        )
        .into_marginal();
        let three = simulate(
            &spec(Algorithm::Naive, 52, 3),
            &Simulation::marginal(),
            &stop,
            &mut |_| {},
        )
        .into_marginal();
        assert_eq!(one, three);
        assert_eq!(one.trials, spec(Algorithm::Naive, 52, 1).trials);
    }

    #[test]
    fn on_a_small_deck_the_marginals_are_those_of_the_full_tally() {
        // Same seed, same blocks, same shuffles: the marginal tally must be exactly what the
        // n! counts of the full mode imply.
        let stop = AtomicBool::new(false);
        for algorithm in [Algorithm::Naive, Algorithm::ComparatorMerge] {
            let spec = spec(algorithm, 5, 2);
            let full = simulate(&spec, &Simulation::default(), &stop, &mut |_| {}).into_full();
            let marginal =
                simulate(&spec, &Simulation::marginal(), &stop, &mut |_| {}).into_marginal();
            let mut expected = MarginalTally::new(5);
            let mut implied = MarginalTally::new(5);
            for_each_in_rank_order(5, |rank, deck| {
                for _ in 0..full.counts[rank] {
                    implied.add(deck);
                }
            });
            expected.merge(&implied);
            assert_eq!(marginal, expected, "{}", algorithm.name());
        }
    }

    #[test]
    fn positions_read_off_the_deal_stream_are_those_counted_deck_by_deck() {
        // With whole decks of at most 64 cards the run reads the position matrix off the deal
        // stream's slot tables; without the stream, or over 64 cards (grouped slots), it counts
        // it in the fused pass or deck by deck. Same seed, same decks: same tally, at any
        // number of threads.
        use crate::engine::deal_stream::RepeatSource;
        let stop = AtomicBool::new(false);
        for deck in [52, 64, 7, 65] {
            for threads in [1, 3] {
                let spec = spec(Algorithm::Naive, deck, threads);
                let source = SourceSpec::chacha(spec.rng);
                let plain =
                    simulate(&spec, &Simulation::marginal(), &stop, &mut |_| {}).into_marginal();
                let options = DealStreamOptions {
                    deck,
                    dealt: deck,
                    repeats: RepeatSource::Off,
                    compositions: false,
                };
                let how = Simulation {
                    deals: Some(options),
                    source: Some(source),
                    ..Simulation::marginal()
                };
                let simulated = simulate(&spec, &how, &stop, &mut |_| {});
                let deals = simulated.deals;
                let tally = simulated.counts.into_marginal().unwrap();
                assert_eq!(tally, plain, "{deck} cards, {threads} threads");
                assert_eq!(deals.expect("asked for").deals, spec.trials);
            }
        }
    }

    #[test]
    fn a_stop_before_the_start_tallies_nothing() {
        let stop = AtomicBool::new(true);
        let tally = simulate(
            &spec(Algorithm::FisherYates, 52, 2),
            &Simulation::marginal(),
            &stop,
            &mut |_| {},
        )
        .into_marginal();
        assert_eq!(tally.trials, 0);
        assert_eq!(tally.positions.len(), 52 * 52);
    }
}
