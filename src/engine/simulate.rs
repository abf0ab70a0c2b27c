//! The simulation engine: shuffle a fresh deck `trials` times and tally every resulting ordering.
//!
//! Trials are cut into fixed blocks of [`BLOCK_TRIALS`]; block b draws its numbers from the
//! ChaCha stream b of the run's seed ([`BlockRng::for_block`](crate::engine::random_source::BlockRng::for_block)). Threads take blocks from a shared
//! counter and keep private tallies that are summed at the end, so the counts for a given seed are
//! identical whatever the number of threads. The hot loop is monomorphised per algorithm and per
//! generator and allocates nothing. The engine never prints: it reports progress through a
//! callback and can be stopped between blocks through a flag.
//!
//! On the default source, a shuffle with a choice table ([`crate::engine::choice_table`]) is one
//! bounded draw and a look-up instead of the algorithm's choices one by one; and with the
//! deal-stream tests on, each worker counts the consecutive pairs from the ranks
//! ([`crate::engine::full_stream`]).

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::engine::algorithms::{Algorithm, Card};
use crate::engine::choice_table::{ChoiceTable, each_entry, entry_deck, entry_rank};
use crate::engine::counters::{ByteTally, count, prefetch};
use crate::engine::deal_stream::{DealStream, DealStreamOptions, DealStreamTally};
use crate::engine::full_stream::FullStream;
use crate::engine::mapped_source::{SourceSpec, SourcesVisitor, dispatch};
use crate::engine::marginal::MarginalTally;
use crate::engine::permutation::{MAX_FULL_DECK, Ranks, ScalarRanks, factorial};
#[cfg(target_arch = "x86_64")]
use crate::engine::permutation::VectorRanks;
use crate::engine::random_source::{BlockSources, RandomSource};
use crate::engine::shard::{BlockCoverage, block_count};
use crate::engine::simulate_marginal::simulate_marginal;
use crate::engine::tally::{Counts, TallyMode};

pub use crate::engine::blocks::SimulationSpec;
pub use crate::engine::random_source::BLOCK_TRIALS;
pub use crate::engine::tally::Tally;

use crate::engine::blocks::{BlockQueue, run_reporting};

/// How to run a simulation, besides what to simulate ([`SimulationSpec`]); the default is
/// every ordering tallied over the whole run, from ChaCha with Lemire's reduction.
#[derive(Debug, Clone, Default)]
pub struct Simulation {
    /// Every ordering (the default), or the marginals (positions, identity, statistics).
    pub mode: TallyMode,
    /// The random source (a generator, a range mapping and a word width); `None` is ChaCha of
    /// the spec's variant with Lemire's reduction, the fast path. Any other source shuffles
    /// as real code driven by it would.
    pub source: Option<SourceSpec>,
    /// The blocks of `BLOCK_TRIALS` (65,536) shuffles to run (a shard's range); `None` is every block.
    pub blocks: Option<Range<u64>>,
    /// Feed the shuffles, in trial order, to a deal-stream accumulator
    /// (the repeated-deck and serial tests) with these options.
    pub deals: Option<DealStreamOptions>,
}

impl Simulation {
    /// Every ordering tallied, from `source`.
    pub fn from_source(source: &SourceSpec) -> Simulation {
        Simulation {
            source: Some(*source),
            ..Simulation::default()
        }
    }

    /// Tally the marginals instead of every ordering.
    pub fn marginal() -> Simulation {
        Simulation {
            mode: TallyMode::Marginal,
            ..Simulation::default()
        }
    }
}

/// What a simulation produced: the tally of the blocks run, which blocks were completed, and
/// the deal stream of the same shuffles when one was asked for.
#[derive(Debug)]
pub struct Simulated {
    /// The tally, in the mode asked for.
    pub counts: Counts,
    /// The blocks completed (all those asked for, unless the run was stopped).
    pub coverage: BlockCoverage,
    /// The deal-stream accumulator, when [`Simulation::deals`] asked for one.
    pub deals: Option<DealStreamTally>,
}

impl Simulated {
    /// The tally of every ordering (a simulation in [`TallyMode::Full`]).
    pub fn into_full(self) -> Tally {
        self.counts
            .into_full()
            .expect("the simulation tallied every ordering")
    }

    /// The tally of the marginals (a simulation in [`TallyMode::Marginal`]).
    pub fn into_marginal(self) -> MarginalTally {
        self.counts
            .into_marginal()
            .expect("the simulation tallied the marginals")
    }
}

/// Run the simulation of `spec` as `how` says. `progress` is called from the calling thread
/// with the number of shuffles done so far, a few times a second; setting `stop` ends the run
/// after the blocks in flight, and the tally then holds only the completed blocks (see
/// [`Simulated::coverage`]).
pub fn simulate(
    spec: &SimulationSpec,
    how: &Simulation,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> Simulated {
    let source = &how.source.unwrap_or_else(|| SourceSpec::chacha(spec.rng));
    let blocks = how.blocks.clone().unwrap_or(0..block_count(spec.trials));
    let deals = how.deals;
    match how.mode {
        TallyMode::Full => {
            let (tally, coverage, deals) =
                simulate_full(spec, source, blocks, deals, stop, progress);
            Simulated {
                counts: Counts::Full(tally),
                coverage,
                deals,
            }
        }
        TallyMode::Marginal => {
            let (tally, coverage, deals) =
                simulate_marginal(spec, source, blocks, deals, stop, progress);
            Simulated {
                counts: Counts::Marginal(tally),
                coverage,
                deals,
            }
        }
    }
}

/// The blocks `blocks` of the run tallied in full, their coverage, and the deal-stream
/// accumulator of those blocks when `deals` is given.
fn simulate_full(
    spec: &SimulationSpec,
    source: &SourceSpec,
    blocks: Range<u64>,
    deals: Option<DealStreamOptions>,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> (Tally, BlockCoverage, Option<DealStreamTally>) {
    struct Full<'a> {
        job: Job<'a>,
        progress: &'a mut dyn FnMut(u64),
    }
    impl SourcesVisitor for Full<'_> {
        type Output = (Tally, Option<DealStreamTally>);
        fn visit<B: BlockSources>(self, sources: &B) -> Self::Output {
            simulate_with(self.job, sources, self.progress)
        }
    }
    let queue = BlockQueue::range(spec.trials, blocks);
    let table = ChoiceTable::for_run(spec.shuffle, spec.deck, source);
    let job = Job {
        spec,
        table: table.as_ref(),
        queue: &queue,
        deals,
        stop,
    };
    let (tally, deals) = dispatch(source, Full { job, progress });
    (tally, queue.coverage(), deals)
}

/// Dispatch once on the algorithm, so that each worker loop is compiled for one algorithm.
///
/// One pass, the common case and the one benchmarks measure, gets a loop per algorithm with the
/// algorithm a constant in the closure's code (not a captured value, which the compiler could
/// not see through from the worker loop). Several passes share one loop that dispatches on the algorithm at every
/// pass: a match per pass costs nothing beside a pass, and it keeps the number of compiled loops
/// (algorithms × deck sizes × generators) from doubling.
fn simulate_with<B: BlockSources>(
    job: Job<'_>,
    sources: &B,
    progress: &mut dyn FnMut(u64),
) -> (Tally, Option<DealStreamTally>) {
    let shuffle = job.spec.shuffle;
    if shuffle.passes != 1 || job.table.is_some() {
        // The one-draw path never calls the shuffle (its table came from it): one loop serves.
        return run_workers::<B, _>(job, sources, progress, move |deck, scratch, source| {
            shuffle.apply(deck, scratch, source)
        });
    }
    macro_rules! run_as {
        ($($variant:ident),*) => {
            match shuffle.algorithm {
                $(Algorithm::$variant => {
                    let (cut, shelves) = (shuffle.cut_probability, shuffle.shelves);
                    run_workers::<B, _>(job, sources, progress, move |deck, scratch, source| {
                        Algorithm::$variant.shuffle_with(cut, shelves, deck, scratch, source)
                    })
                })*
            }
        };
    }
    run_as!(
        FisherYates,
        FisherYatesForward,
        InsideOut,
        Naive,
        NaiveOffByOne,
        Sattolo,
        ComparatorInsertion,
        ComparatorMerge,
        ComparatorQuick,
        ComparatorTimsort,
        ZendSort,
        ZendSortCoin,
        ZendSortStable,
        Riffle,
        Overhand,
        Shelf,
        Unshuffled
    )
}

/// What every worker of a full-mode run shares: the run, its one-draw table if any, the queue
/// of blocks, the deal-stream options and the stop flag.
#[derive(Clone, Copy)]
struct Job<'a> {
    spec: &'a SimulationSpec,
    table: Option<&'a ChoiceTable>,
    queue: &'a BlockQueue,
    deals: Option<DealStreamOptions>,
    stop: &'a AtomicBool,
}

/// Dispatch once on the deck size, so that each worker loop works on a fixed-size array: the
/// compiler then unrolls the shuffle, the rank and the deck reset completely.
fn run_workers<B, S>(
    job: Job<'_>,
    sources: &B,
    progress: &mut dyn FnMut(u64),
    shuffle: S,
) -> (Tally, Option<DealStreamTally>)
where
    B: BlockSources,
    S: Fn(&mut [Card], &mut [Card], &mut B::Source) + Sync,
{
    match job.spec.deck {
        2 => run_sized::<B, S, 2>(job, sources, progress, shuffle),
        3 => run_sized::<B, S, 3>(job, sources, progress, shuffle),
        4 => run_sized::<B, S, 4>(job, sources, progress, shuffle),
        5 => run_sized::<B, S, 5>(job, sources, progress, shuffle),
        6 => run_sized::<B, S, 6>(job, sources, progress, shuffle),
        7 => run_sized::<B, S, 7>(job, sources, progress, shuffle),
        8 => run_sized::<B, S, 8>(job, sources, progress, shuffle),
        9 => run_sized::<B, S, 9>(job, sources, progress, shuffle),
        10 => run_sized::<B, S, 10>(job, sources, progress, shuffle),
        11 => run_sized::<B, S, 11>(job, sources, progress, shuffle),
        n => panic!("deck size {n} is outside 2..={MAX_FULL_DECK}; the config must refuse it"),
    }
}

fn run_sized<B, S, const N: usize>(
    job: Job<'_>,
    sources: &B,
    progress: &mut dyn FnMut(u64),
    shuffle: S,
) -> (Tally, Option<DealStreamTally>)
where
    B: BlockSources,
    S: Fn(&mut [Card], &mut [Card], &mut B::Source) + Sync,
{
    let (spec, table, queue) = (job.spec, job.table, job.queue);
    let partial_tallies: Vec<PartialTally<N>> =
        run_reporting(spec.threads, queue, progress, &|| match table {
            Some(table) => tally_blocks_table::<B, N>(job, sources, table),
            None => tally_blocks::<B, S, N>(job, sources, &shuffle),
        });

    let mut counts = vec![0u64; factorial(N) as usize];
    let mut trials = 0;
    let mut stream: Option<DealStream> = None;
    for mut partial in partial_tallies {
        if let Some(part) = partial.stream.take() {
            match &mut stream {
                Some(total) => total.merge(part),
                None => stream = Some(part),
            }
        }
        partial.tally.add_into(&mut counts);
        trials += partial.trials;
    }
    let tally = Tally {
        deck: spec.deck,
        counts,
        trials,
    };
    (tally, stream.map(DealStream::finish))
}

/// One worker's result: its tally of the orderings, the shuffles done and its deal-stream
/// accumulator.
struct PartialTally<const N: usize> {
    tally: WorkerTally<N>,
    trials: u64,
    /// The worker's deal-stream accumulator, when asked for.
    stream: Option<DealStream>,
}

/// Decks from this size are tallied in bytes with a carry ([`ByteTally`]): 9! and 10! cells of
/// `u32` (1.4 and 14.5 MB a worker) outgrow the L2 cache and, at 10 cards with two workers and
/// the compositions beside them, the L3 cache; bytes take a quarter of that.
const BYTE_TALLY_FROM_DECK: usize = 9;

/// One worker's tally of the orderings of N cards: `u32` counters added into `u64` ones before
/// any could overflow (the worker counts in `u32`, half the memory traffic of `u64`), or, from
/// [`BYTE_TALLY_FROM_DECK`] cards, bytes with a carry.
struct WorkerTally<const N: usize> {
    narrow: Vec<u32>,
    wide: Option<Vec<u64>>,
    /// Shuffles tallied in `narrow` since it was last emptied: no counter can exceed this.
    in_narrow: u64,
    bytes: ByteTally,
}

impl<const N: usize> WorkerTally<N> {
    fn new() -> Self {
        let cells = factorial(N) as usize;
        let in_bytes = N >= BYTE_TALLY_FROM_DECK;
        WorkerTally {
            narrow: vec![0; if in_bytes { 0 } else { cells }],
            wide: None,
            in_narrow: 0,
            bytes: ByteTally::new(if in_bytes { cells } else { 0 }),
        }
    }

    /// Make room for `length` more shuffles: widen the `u32` counters if they could overflow.
    fn before_block(&mut self, length: u64) {
        if self.in_narrow + length > u64::from(u32::MAX) {
            let cells = self.narrow.len();
            let wide = self.wide.get_or_insert_with(|| vec![0u64; cells]);
            for (total, count) in wide.iter_mut().zip(self.narrow.iter_mut()) {
                *total += u64::from(std::mem::take(count));
            }
            self.in_narrow = 0;
        }
    }

    /// `length` shuffles were tallied.
    fn after_block(&mut self, length: u64) {
        self.in_narrow += length;
    }

    /// Count the ordering of rank `rank` (below N!).
    #[inline(always)]
    fn add(&mut self, rank: usize) {
        if N >= BYTE_TALLY_FROM_DECK {
            self.bytes.add(rank);
        } else {
            count::<N>(&mut self.narrow, rank);
        }
    }

    /// Prefetch the counter of `rank`.
    #[inline(always)]
    fn prefetch(&self, rank: usize) {
        if N >= BYTE_TALLY_FROM_DECK {
            self.bytes.prefetch(rank);
        } else {
            prefetch(&self.narrow, rank);
        }
    }

    /// Add `counts` (N! cells), counted elsewhere (decks below [`BYTE_TALLY_FROM_DECK`] cards).
    fn add_counts(&mut self, counts: &[u64]) {
        assert!(N < BYTE_TALLY_FROM_DECK && counts.len() == self.narrow.len());
        let cells = self.narrow.len();
        let wide = self.wide.get_or_insert_with(|| vec![0u64; cells]);
        for (total, &count) in wide.iter_mut().zip(counts) {
            *total += count;
        }
    }

    /// Add the counts into `totals` (N! cells).
    fn add_into(self, totals: &mut [u64]) {
        if N >= BYTE_TALLY_FROM_DECK {
            self.bytes.add_into(totals);
            return;
        }
        if let Some(wide) = self.wide {
            for (total, count) in totals.iter_mut().zip(wide) {
                *total += count;
            }
        }
        for (total, count) in totals.iter_mut().zip(self.narrow) {
            *total += u64::from(count);
        }
    }
}

/// Decks with more orderings than this have their counters prefetched: a tally of 8! `u32`
/// counters (157 KiB) no longer fits in the L1 cache, and from 10! (14 MiB) every increment
/// misses the L2 cache too.
const PREFETCH_FROM_CELLS: u64 = 1 << 14;

/// Shuffles ranked (and their counters prefetched) before the batch is tallied: enough misses
/// in flight to hide the cache latency, few enough that the prefetched lines are still there
/// (measured at n = 10: 4 → 3.5 s, 8 → 2.7 s, 16 → 2.5 s, 32 and 64 no better).
const PREFETCH_BATCH: usize = crate::engine::full_stream::PUSH_BATCH;

/// One worker: take blocks until none are left (or `stop` is set) and tally them.
///
/// On x86-64 the loop is compiled a second time with the `popcnt` instruction enabled (the rank
/// counts the bits of a mask; the baseline x86-64 target emulates that with a dozen
/// instructions), and that copy runs when the CPU has it; decks of 9 to 11 cards get a third
/// copy with AVX-512 F, BW and VBMI as well, which ranks in vectors ([`VectorRanks`]). All
/// copies compute the same counts.
fn tally_blocks<B, S, const N: usize>(job: Job<'_>, sources: &B, shuffle: &S) -> PartialTally<N>
where
    B: BlockSources,
    S: Fn(&mut [Card], &mut [Card], &mut B::Source),
{
    // A constant condition, so that the vector loop is compiled for those deck sizes only.
    #[cfg(target_arch = "x86_64")]
    if const { VectorRanks::ranks_deck(N) }
        && std::arch::is_x86_feature_detected!("popcnt")
        && VectorRanks::available()
    {
        // SAFETY: the CPU supports the features the function enables.
        return unsafe { tally_blocks_with_vector_ranks::<B, S, N>(job, sources, shuffle) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU supports `popcnt`, the only feature the function enables.
        return unsafe { tally_blocks_with_popcnt::<B, S, N>(job, sources, shuffle) };
    }
    tally_blocks_portable::<B, S, N>(job, sources, shuffle)
}

/// The body of [`tally_blocks_portable`] and its copies, decks ranked by `$ranks`: the worker
/// loop of [`work_blocks`] with a closure that tallies a part. A macro, so that the closure is
/// written in each copy: a closure gets the target features of the function it is written in,
/// so one written in the portable function would be compiled without `popcnt` (and, being
/// called from every copy, is not inlined into them). Unsafe: the CPU must support the features
/// `$ranks` names.
macro_rules! tally_blocks_body {
    ($job:ident, $sources:ident, $shuffle:ident, $ranks:ty) => {{
        let mut scratch: [Card; N] = std::array::from_fn(|i| i as Card);
        work_blocks::<B, N>($job, $sources, |counts, part, source, stream| {
            tally_block::<B, S, $ranks, N>(counts, part, source, &mut scratch, stream, $shuffle)
        })
    }};
}

/// [`tally_blocks_portable`] compiled with `popcnt` enabled.
///
/// # Safety
/// The CPU must support `popcnt`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn tally_blocks_with_popcnt<B, S, const N: usize>(
    job: Job<'_>,
    sources: &B,
    shuffle: &S,
) -> PartialTally<N>
where
    B: BlockSources,
    S: Fn(&mut [Card], &mut [Card], &mut B::Source),
{
    // SAFETY: `ScalarRanks` needs no CPU feature.
    unsafe { tally_blocks_body!(job, sources, shuffle, ScalarRanks) }
}

/// [`tally_blocks_with_popcnt`] with AVX-512 F, BW and VBMI enabled as well, the decks and their
/// compositions ranked in vectors ([`VectorRanks`]); the same counts.
///
/// # Safety
/// The CPU must support `popcnt`, AVX-512 F, BW and VBMI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,avx512f,avx512bw,avx512vbmi")]
unsafe fn tally_blocks_with_vector_ranks<B, S, const N: usize>(
    job: Job<'_>,
    sources: &B,
    shuffle: &S,
) -> PartialTally<N>
where
    B: BlockSources,
    S: Fn(&mut [Card], &mut [Card], &mut B::Source),
{
    // SAFETY: the CPU has the features `VectorRanks` needs (this function's).
    unsafe { tally_blocks_body!(job, sources, shuffle, VectorRanks) }
}

fn tally_blocks_portable<B, S, const N: usize>(
    job: Job<'_>,
    sources: &B,
    shuffle: &S,
) -> PartialTally<N>
where
    B: BlockSources,
    S: Fn(&mut [Card], &mut [Card], &mut B::Source),
{
    // SAFETY: `ScalarRanks` needs no CPU feature.
    unsafe { tally_blocks_body!(job, sources, shuffle, ScalarRanks) }
}

/// One worker of the one-draw path ([`crate::engine::choice_table`]): each shuffle is one draw
/// below P and a look-up in the table.
fn tally_blocks_table<B, const N: usize>(
    job: Job<'_>,
    sources: &B,
    table: &ChoiceTable,
) -> PartialTally<N>
where
    B: BlockSources,
{
    assert_eq!(table.deck(), N);
    let entries = table.entries();
    work_blocks::<B, N>(job, sources, |counts, part, source, stream| match stream {
        // The pairs of ranks hold the orderings' counts too ([`work_blocks`] reads them off).
        Some(stream) if FullStream::<N>::COUNTS_ORDERINGS => {
            stream.push_ranks(|pairs| {
                each_entry(entries, part, source, |entry| pairs.push(entry_rank(entry)));
            });
        }
        Some(stream) => each_entry(entries, part, source, |entry| {
            let rank = entry_rank(entry);
            counts.add(rank);
            stream.push(&entry_deck::<N>(entry), rank);
        }),
        None => each_entry(entries, part, source, |entry| {
            counts.add(entry_rank(entry));
        }),
    })
}

/// The block loop of a worker: take blocks until none are left (or `stop` is set), and have
/// `tally_part(counts, shuffles, source, stream)` tally each block in chunks, with a look at
/// `stop` between them (after a stop the shuffles of the chunks done are kept).
#[inline(always)]
fn work_blocks<B, const N: usize>(
    job: Job<'_>,
    sources: &B,
    mut tally_part: impl FnMut(&mut WorkerTally<N>, u64, &mut B::Source, &mut Option<FullStream<N>>),
) -> PartialTally<N>
where
    B: BlockSources,
{
    let Job {
        spec,
        queue,
        deals,
        stop,
        ..
    } = job;
    let mut tally = WorkerTally::<N>::new();
    let mut tallied = 0;
    let chunk = spec.chunk_trials();
    let mut stream = deals.map(FullStream::<N>::new);
    while let Some((block, length)) = queue.take(stop) {
        if let Some(stream) = &mut stream {
            stream.start_block(block, length);
        }
        tally.before_block(length);
        let mut source = sources.for_block(spec.seed, block);
        let mut done = 0;
        while done < length {
            let part = chunk.min(length - done);
            tally_part(&mut tally, part, &mut source, &mut stream);
            done += part;
            if done < length && stop.load(Ordering::Relaxed) {
                break;
            }
        }
        tally.after_block(done);
        tallied += done;
        if let Some(stream) = &mut stream {
            stream.end_block(done, done == length);
        }
        queue.finished(block, length, done);
    }
    // The loops count no ordering beside a stream that holds their counts.
    if FullStream::<N>::COUNTS_ORDERINGS
        && let Some(stream) = &stream
    {
        tally.add_counts(&stream.ordering_counts());
    }
    PartialTally {
        tally,
        trials: tallied,
        stream: stream.map(FullStream::into_deal_stream),
    }
}

/// Shuffle a fresh deck `length` times and count each ordering (through
/// [`tally_block_prefetched`] when the tally outgrows the cache), each ranked by `R`.
///
/// # Safety
/// The CPU must support the features `R` names.
#[inline(always)]
unsafe fn tally_block<B, S, R, const N: usize>(
    counts: &mut WorkerTally<N>,
    length: u64,
    source: &mut B::Source,
    scratch: &mut [Card; N],
    stream: &mut Option<FullStream<N>>,
    shuffle: &S,
) where
    B: BlockSources,
    S: Fn(&mut [Card], &mut [Card], &mut B::Source),
    R: Ranks,
{
    if factorial(N) > PREFETCH_FROM_CELLS {
        // SAFETY: the CPU features are the caller's to ensure.
        return unsafe {
            tally_block_prefetched::<B, S, R, N>(counts, length, source, scratch, stream, shuffle)
        };
    }
    let identity: [Card; N] = std::array::from_fn(|i| i as Card);
    for _ in 0..length {
        let mut deck = identity;
        if B::Source::STARTS_SHUFFLES {
            source.start_shuffle();
        }
        shuffle(&mut deck, scratch, source);
        // SAFETY (both): the CPU features are the caller's to ensure.
        let rank = unsafe { R::rank(&deck) };
        match stream {
            // The pairs of ranks hold the orderings' counts too ([`work_blocks`] reads them off).
            Some(stream) if FullStream::<N>::COUNTS_ORDERINGS => stream.push_rank(rank),
            Some(stream) => {
                counts.add(rank);
                unsafe { stream.push_with::<R>(&deck, rank) };
            }
            None => counts.add(rank),
        }
    }
}

/// [`tally_block`] for large tallies: rank a batch of shuffles, prefetching each one's counter,
/// then count the batch, so that the cache misses overlap instead of queueing one by one. The
/// counts are the same (addition commutes).
///
/// # Safety
/// The CPU must support the features `R` names.
#[inline(always)]
unsafe fn tally_block_prefetched<B, S, R, const N: usize>(
    counts: &mut WorkerTally<N>,
    length: u64,
    source: &mut B::Source,
    scratch: &mut [Card; N],
    stream: &mut Option<FullStream<N>>,
    shuffle: &S,
) where
    B: BlockSources,
    S: Fn(&mut [Card], &mut [Card], &mut B::Source),
    R: Ranks,
{
    let identity: [Card; N] = std::array::from_fn(|i| i as Card);
    let mut deal = |deck: &mut [Card; N]| {
        *deck = identity;
        if B::Source::STARTS_SHUFFLES {
            source.start_shuffle();
        }
        shuffle(deck, scratch, source);
    };
    let mut ranks = [0usize; PREFETCH_BATCH];
    let mut decks = [identity; PREFETCH_BATCH];
    let mut remaining = length as usize;
    while remaining > 0 {
        let batch = remaining.min(PREFETCH_BATCH);
        if R::in_vectors::<N>() {
            // The batch is shuffled before any deck is ranked, so that a vector rank's load of
            // a deck comes long after the deck's cards were stored one by one.
            for deck in &mut decks[..batch] {
                deal(deck);
            }
            for (rank, deck) in ranks[..batch].iter_mut().zip(&decks) {
                // SAFETY: the CPU features are the caller's to ensure.
                *rank = unsafe { R::rank(deck) };
                counts.prefetch(*rank);
            }
            if let Some(stream) = stream.as_mut() {
                // SAFETY: as above.
                unsafe { stream.push_batch_with::<R>(&decks[..batch], &ranks[..batch]) };
            }
        } else {
            // Deck by deck (shuffling a batch first was slower here, at 8 cards).
            for rank in &mut ranks[..batch] {
                let mut deck = identity;
                deal(&mut deck);
                // SAFETY (both): the CPU features are the caller's to ensure.
                *rank = unsafe { R::rank(&deck) };
                counts.prefetch(*rank);
                if let Some(stream) = stream.as_mut() {
                    unsafe { stream.push_with::<R>(&deck, *rank) };
                }
            }
        }
        for &rank in &ranks[..batch] {
            counts.add(rank);
        }
        remaining -= batch;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::random_source::RngKind;

    fn spec(threads: usize) -> SimulationSpec {
        SimulationSpec {
            shuffle: Algorithm::Naive.into(),
            deck: 4,
            trials: 3 * BLOCK_TRIALS + 1234,
            seed: 7,
            rng: RngKind::Chacha8,
            threads,
        }
    }

    #[test]
    fn the_assembled_source_for_chacha8_and_lemire_tallies_what_the_fast_path_tallies() {
        // The fast path and MappedSource draw the same integers from ChaCha8 by Lemire's method
        // (coins differ: the fast path spends one bit per coin), so algorithms that only draw
        // integers give identical counts either way — on 10 cards, where none of these has a
        // choice table (with one, the run makes one draw per shuffle instead).
        let stop = AtomicBool::new(false);
        let source = SourceSpec::chacha(RngKind::Chacha8);
        for algorithm in [Algorithm::FisherYates, Algorithm::Naive, Algorithm::Sattolo] {
            let spec = SimulationSpec {
                shuffle: algorithm.into(),
                deck: 10,
                ..spec(2)
            };
            let fast = simulate(&spec, &Simulation::default(), &stop, &mut |_| {}).into_full();
            let assembled =
                simulate(&spec, &Simulation::from_source(&source), &stop, &mut |_| {}).into_full();
            assert_eq!(fast, assembled, "{}", algorithm.name());
        }
    }

    /// The loop that ranks decks and compositions in vectors (decks of 9 to 11 cards) tallies
    /// the orderings, the slot tables, the matches and the compositions exactly as the portable
    /// loop does, on a fair and a biased shuffle, over several blocks (a seam between them).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_vector_ranks_tally_what_the_scalar_ranks_tally() {
        use crate::engine::deal_stream::{MAX_COMPOSITION_DECK, RepeatSource};
        if !(VectorRanks::available() && std::arch::is_x86_feature_detected!("popcnt")) {
            return;
        }
        struct Both<const N: usize> {
            spec: SimulationSpec,
        }
        impl<const N: usize> SourcesVisitor for Both<N> {
            type Output = ();
            fn visit<B: BlockSources>(self, sources: &B) {
                let stop = AtomicBool::new(false);
                let options = DealStreamOptions {
                    deck: N,
                    dealt: N,
                    repeats: RepeatSource::FullTally,
                    compositions: N <= MAX_COMPOSITION_DECK,
                };
                let (algorithm, cut, shelves) = (
                    self.spec.shuffle.algorithm,
                    self.spec.shuffle.cut_probability,
                    self.spec.shuffle.shelves,
                );
                let shuffle = |deck: &mut [Card], scratch: &mut [Card], source: &mut B::Source| {
                    algorithm.shuffle_with(cut, shelves, deck, scratch, source)
                };
                let run = |vector: bool| {
                    let queue =
                        BlockQueue::range(self.spec.trials, 0..block_count(self.spec.trials));
                    let job = Job {
                        spec: &self.spec,
                        table: None,
                        queue: &queue,
                        deals: Some(options),
                        stop: &stop,
                    };
                    let partial = if vector {
                        // SAFETY: the CPU has the features (checked above).
                        unsafe { tally_blocks_with_vector_ranks::<B, _, N>(job, sources, &shuffle) }
                    } else {
                        tally_blocks_portable::<B, _, N>(job, sources, &shuffle)
                    };
                    let mut counts = vec![0u64; factorial(N) as usize];
                    partial.tally.add_into(&mut counts);
                    (counts, partial.stream.map(DealStream::finish))
                };
                let (vector, portable) = (run(true), run(false));
                assert!(vector.1.is_some());
                assert_eq!(vector, portable, "{} on {N} cards", algorithm.name());
            }
        }
        let source = SourceSpec::chacha(RngKind::Chacha8);
        for algorithm in [Algorithm::FisherYates, Algorithm::Naive] {
            let spec = |deck| SimulationSpec {
                shuffle: algorithm.into(),
                deck,
                trials: 2 * BLOCK_TRIALS + 777,
                ..spec(1)
            };
            dispatch(&source, Both::<9> { spec: spec(9) });
            dispatch(&source, Both::<10> { spec: spec(10) });
            dispatch(&source, Both::<11> { spec: spec(11) });
        }
    }

    #[test]
    fn the_one_draw_path_tallies_the_decks_the_algorithm_makes_from_the_same_draws() {
        // The table path and the algorithm's own code driven by the one-draw source (which the
        // plain loops use) must make the same decks from the same words.
        use crate::engine::choice_table::ChoiceTable;
        let stop = AtomicBool::new(false);
        for (algorithm, deck) in [
            (Algorithm::FisherYates, 4),
            (Algorithm::Naive, 5),
            (Algorithm::Sattolo, 8),
            (Algorithm::FisherYatesForward, 6),
        ] {
            let spec = SimulationSpec {
                shuffle: algorithm.into(),
                deck,
                ..spec(2)
            };
            let table = ChoiceTable::derive(spec.shuffle, deck).unwrap();
            let fast = simulate(&spec, &Simulation::default(), &stop, &mut |_| {}).into_full();
            let queue = BlockQueue::range(spec.trials, 0..block_count(spec.trials));
            let job = Job {
                spec: &spec,
                table: None,
                queue: &queue,
                deals: None,
                stop: &stop,
            };
            let (plain, _) = simulate_with(job, &table.sources(), &mut |_| {});
            assert_eq!(fast, plain, "{} on {deck}", algorithm.name());
        }
    }

    #[test]
    fn a_run_on_rand_modulo_k_is_reproducible_on_any_number_of_threads() {
        use crate::engine::generators::GeneratorKind;
        use crate::engine::mapped_source::Generator;
        use crate::engine::mapping::Mapping;
        let stop = AtomicBool::new(false);
        let source = SourceSpec {
            generator: Generator::Other(GeneratorKind::Msvc),
            mapping: Mapping::Modulo,
            bits: None,
            reseed: None,
        };
        let one = simulate(
            &spec(1),
            &Simulation::from_source(&source),
            &stop,
            &mut |_| {},
        )
        .into_full();
        let three = simulate(
            &spec(3),
            &Simulation::from_source(&source),
            &stop,
            &mut |_| {},
        )
        .into_full();
        assert_eq!(one, three);
        assert_eq!(one.trials, spec(1).trials);
        assert_ne!(
            one,
            simulate(&spec(1), &Simulation::default(), &stop, &mut |_| {}).into_full(),
            "another stream"
        );
    }

    #[test]
    fn a_generator_reseeded_from_4_bits_before_every_shuffle_makes_at_most_16_decks() {
        use crate::engine::generators::GeneratorKind;
        use crate::engine::mapped_source::{Generator, Reseed, SeedSequence};
        use crate::engine::mapping::Mapping;
        let stop = AtomicBool::new(false);
        for seeds in [SeedSequence::Counter, SeedSequence::Random] {
            let source = SourceSpec {
                generator: Generator::Other(GeneratorKind::Mt19937),
                mapping: Mapping::Lemire,
                bits: None,
                reseed: Some(Reseed { bits: 4, seeds }),
            };
            let spec = SimulationSpec {
                shuffle: Algorithm::FisherYates.into(),
                deck: 6,
                ..spec(2)
            };
            let tally =
                simulate(&spec, &Simulation::from_source(&source), &stop, &mut |_| {}).into_full();
            let seen = tally.counts.iter().filter(|&&c| c > 0).count();
            assert!(seen <= 16, "{seeds:?}: {seen} orderings from 16 seeds");
            assert!(seen >= 8, "{seeds:?}: {seen}");
            assert_eq!(
                tally,
                simulate(
                    &SimulationSpec { threads: 3, ..spec },
                    &Simulation::from_source(&source),
                    &stop,
                    &mut |_| {}
                )
                .into_full()
            );
        }
    }

    #[test]
    fn counts_for_a_seed_do_not_depend_on_the_number_of_threads() {
        let stop = AtomicBool::new(false);
        let one = simulate(&spec(1), &Simulation::default(), &stop, &mut |_| {}).into_full();
        let two = simulate(&spec(2), &Simulation::default(), &stop, &mut |_| {}).into_full();
        let three = simulate(&spec(3), &Simulation::default(), &stop, &mut |_| {}).into_full();
        assert_eq!(one, two);
        assert_eq!(one, three);
        assert_eq!(one.counts.iter().sum::<u64>(), spec(1).trials);
        assert_eq!(one.trials, spec(1).trials);
    }

    #[test]
    fn a_different_seed_gives_different_counts() {
        let stop = AtomicBool::new(false);
        let a = simulate(&spec(1), &Simulation::default(), &stop, &mut |_| {}).into_full();
        let mut other = spec(1);
        other.seed = 8;
        let b = simulate(&other, &Simulation::default(), &stop, &mut |_| {}).into_full();
        assert_ne!(a.counts, b.counts);
    }

    #[test]
    fn the_tallies_of_the_shards_of_a_run_add_up_to_the_tally_of_the_run() {
        use crate::engine::shard::{BlockCoverage, shard_blocks};
        let stop = AtomicBool::new(false);
        let source = SourceSpec::chacha(RngKind::Chacha8);
        let spec = spec(2);
        let whole = simulate(&spec, &Simulation::default(), &stop, &mut |_| {}).into_full();
        let mut sum = vec![0u64; whole.counts.len()];
        let mut trials = 0;
        for index in 0..3 {
            let blocks = shard_blocks(spec.trials, index, 3);
            let (tally, coverage, _) =
                simulate_full(&spec, &source, blocks.clone(), None, &stop, &mut |_| {});
            assert_eq!(coverage, BlockCoverage::whole(blocks));
            for (total, count) in sum.iter_mut().zip(&tally.counts) {
                *total += count;
            }
            trials += tally.trials;
        }
        assert_eq!(sum, whole.counts);
        assert_eq!(trials, whole.trials);
    }

    #[test]
    fn a_stop_before_the_start_tallies_nothing() {
        let stop = AtomicBool::new(true);
        let (tally, coverage, _) = simulate_full(
            &spec(2),
            &SourceSpec::chacha(RngKind::Chacha8),
            1..3,
            None,
            &stop,
            &mut |_| {},
        );
        assert_eq!(coverage.taken, 1..1, "no block begun");
        assert_eq!(tally.trials, 0);
        let tally = simulate(&spec(2), &Simulation::default(), &stop, &mut |_| {}).into_full();
        assert_eq!(tally.trials, 0);
        assert_eq!(tally.counts.len(), 24);
    }
}
