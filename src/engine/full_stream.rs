//! The deal-stream counters of a full-mode run: what [`crate::engine::deal_stream::DealStream`]
//! counts per consecutive pair of decks (matching slots, the per-slot table, the composition
//! σ_{t+1}∘σ_t⁻¹), counted from each deck's rank at the pace of the simulation's hot loop.
//!
//! Every one of those counts is a function of the pair (rank_t, rank_{t+1}). So:
//! - up to [`PAIR_TALLY_MAX_DECK`] cards the worker only tallies the pairs of ranks (n!² byte
//!   counters with a carry: 576 bytes for 4 cards, 506 KiB for 6), and the matches, slots and
//!   compositions are derived once at the end, from each pair of orderings that occurred and
//!   its count;
//! - from 7 cards it counts per pair, on a deck of a size fixed at compile time: the slot table
//!   in `u32` (n tables of 16 × 16 counters, 10 KiB at n = 10), the matches, and the
//!   composition's rank into n! byte counters with a carry, prefetched in batches like the main
//!   tally when they outgrow the cache. Where the decks are ranked in vectors (9 to 11 cards on
//!   AVX-512), a pair's cells of the slot tables and its matching slots are found in vectors too.
//!
//! `u32` counters are added into `u64` ones before any could overflow (checked per block, as the
//! main tally does). Each block's first and last rank are kept, and
//! [`FullStream::into_deal_stream`] hands the counts and the blocks' ends to a `DealStream`,
//! whose `finish` pairs the seams between blocks: so the pairs are exactly the consecutive pairs
//! of trial order, and every count equals what `DealStream::add` gives on the same decks
//! (tested below).

use crate::engine::algorithms::Card;
use crate::engine::counters::{ByteAdder, ByteTally};
use crate::engine::deal_stream::{DealStream, DealStreamOptions, DealStreamTally, RepeatSource};
use crate::engine::permutation::{FACTORIALS, MAX_FULL_DECK, Ranks, ScalarRanks, rank, unrank};

/// The largest deck whose pairs of ranks are tallied whole, in bytes with a carry: 6!² = 518,400
/// bytes, within the L2 cache (7!² would take 25 MB).
pub const PAIR_TALLY_MAX_DECK: usize = 6;

/// The width of a slot table in a [`FullStream`]: a power of two, at least the largest deck
/// counted by slots (`MAX_FULL_DECK`).
const SLOT_WIDTH: usize = 16;

/// A card below [`SLOT_WIDTH`] is itself under this mask.
const SLOT_MASK: usize = SLOT_WIDTH - 1;

/// The cells of a slot table: a card of the previous deck (row) by one of the next (column),
/// at `row · SLOT_WIDTH + column`, an index that fits in a byte.
const SLOT_CELLS: usize = SLOT_WIDTH * SLOT_WIDTH;

const _: () = assert!(
    SLOT_WIDTH.is_power_of_two() && MAX_FULL_DECK <= SLOT_WIDTH && SLOT_CELLS <= 256
);

/// Composition tallies with more cells than this are prefetched (as the main tally's are).
const PREFETCH_FROM_CELLS: u64 = 1 << 14;

/// Compositions ranked (and prefetched) before they are counted.
const PREFETCH_BATCH: usize = 16;

/// Most decks [`FullStream::push_batch_with`] takes at once.
pub const PUSH_BATCH: usize = 16;

/// Write where each card of `deck` sits into `slots`: `slots[card] = slot` (cards below N; the
/// `min` only spares a bounds check). Written in place: a copy of bytes just stored one by one
/// would wait for them to reach the cache.
#[inline(always)]
fn write_slots<const N: usize>(slots: &mut [u8; N], deck: &[Card; N]) {
    for (s, &card) in deck.iter().enumerate() {
        slots[usize::from(card).min(N - 1)] = s as u8;
    }
}

/// For each slot s, the cell of its table that the pair (`previous`, `deck`) counts: the
/// previous deck's card there as the row and this deck's as the column, each under
/// [`SLOT_MASK`] (cards are below N ≤ SLOT_WIDTH; the mask only spares bounds checks); and how
/// many slots hold the same card in both decks. In vectors when `R` ranks decks of N cards in
/// vectors (the CPU then has AVX-512 F and BW), the same cells.
///
/// # Safety
/// The CPU must support the features `R` names.
#[inline(always)]
unsafe fn slot_cells<R: Ranks, const N: usize>(
    previous: &[Card; N],
    deck: &[Card; N],
) -> ([u8; N], usize) {
    #[cfg(target_arch = "x86_64")]
    if R::in_vectors::<N>() {
        // SAFETY: the CPU has AVX-512 F and BW, as `R` needs (the caller's to ensure).
        return unsafe { vector::slot_cells(previous, deck) };
    }
    let mut same = 0;
    let cells = std::array::from_fn(|s| {
        let (a, b) = (
            usize::from(previous[s]) & SLOT_MASK,
            usize::from(deck[s]) & SLOT_MASK,
        );
        same += usize::from(a == b);
        (a * SLOT_WIDTH + b) as u8
    });
    (cells, same)
}

/// [`slot_cells`] in AVX-512 vectors: the decks in 16-bit lanes, masked, the cells made and
/// narrowed to bytes, and the matching slots counted from one compare.
#[cfg(target_arch = "x86_64")]
mod vector {
    use super::{Card, SLOT_MASK, SLOT_WIDTH};
    use std::arch::x86_64::{
        __mmask32, _mm256_storeu_si256, _mm512_and_si512, _mm512_cmpeq_epi16_mask,
        _mm512_cvtepi16_epi8, _mm512_maskz_loadu_epi16, _mm512_or_si512, _mm512_set1_epi16,
        _mm512_slli_epi16,
    };

    const _: () = assert!(SLOT_WIDTH == 1 << 4);

    /// # Safety
    /// The CPU must support AVX-512 F and BW.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn slot_cells<const N: usize>(
        previous: &[Card; N],
        deck: &[Card; N],
    ) -> ([u8; N], usize) {
        const { assert!(N <= 32) };
        let lanes: __mmask32 = ((1u64 << N) - 1) as __mmask32;
        // SAFETY: the mask loads the N cards of each deck and nothing past them.
        let (a, b) = unsafe {
            (
                _mm512_maskz_loadu_epi16(lanes, previous.as_ptr().cast()),
                _mm512_maskz_loadu_epi16(lanes, deck.as_ptr().cast()),
            )
        };
        let mask = _mm512_set1_epi16(SLOT_MASK as i16);
        let (a, b) = (_mm512_and_si512(a, mask), _mm512_and_si512(b, mask));
        let same = (_mm512_cmpeq_epi16_mask(a, b) & lanes).count_ones() as usize;
        let cells = _mm512_cvtepi16_epi8(_mm512_or_si512(_mm512_slli_epi16::<4>(a), b));
        let mut bytes = [0u8; 32];
        // SAFETY: stores 32 bytes into a 32-byte array.
        unsafe { _mm256_storeu_si256(bytes.as_mut_ptr().cast(), cells) };
        (std::array::from_fn(|s| bytes[s]), same)
    }
}

/// A block's ends: its number, first and last rank, deals, and whether it was completed.
#[derive(Debug, Clone, Copy)]
struct BlockEnds {
    block: u64,
    first: usize,
    last: usize,
    deals: u64,
    complete: bool,
}

/// One worker's deal-stream counters for decks of N cards (see the module documentation).
pub struct FullStream<const N: usize> {
    /// Receives the counts at the end; also says whether compositions are counted.
    stream: DealStream,
    compositions_on: bool,
    /// `pairs[a · N! + b]`: pairs of ranks (a, b) (decks up to [`PAIR_TALLY_MAX_DECK`]).
    pairs: ByteTally,
    /// `slots[s][a · SLOT_WIDTH + b]` (decks from 7 cards), in tables of [`SLOT_CELLS`] cells
    /// whatever N, so that a card is made an index by a mask, without a bounds check (rows and
    /// columns of N cells used); N of them, so that a loop over the slots has a fixed length.
    slots: Box<[[u32; SLOT_CELLS]; N]>,
    slots_wide: Vec<u64>,
    /// `matches[m]`: pairs with m matching slots (decks from 7 cards).
    matches: [u64; 16],
    /// `compositions[rank]` (decks from 6 to 10 cards), in bytes with a carry: n! cells of
    /// about trials/n! each, so a byte holds most, and the 10! cells take 3.6 MB, not 14.5.
    compositions: Option<ByteTally>,
    pending: [usize; PREFETCH_BATCH],
    pending_len: usize,
    previous: [Card; N],
    /// Where each card sits in the previous deck.
    slot_of: [u8; N],
    previous_rank: usize,
    has_previous: bool,
    /// Pairs counted in the `u32` counters since they were last emptied.
    in_narrow: u64,
    current: Option<BlockEnds>,
    blocks: Vec<BlockEnds>,
}

/// A [`FullStream`]'s pairs of ranks, borrowed by [`FullStream::push_ranks`].
pub struct RankPairs<'a> {
    pairs: ByteAdder<'a>,
    /// N!, the ranks.
    cells: usize,
    previous: usize,
    has_previous: bool,
    current: &'a mut Option<BlockEnds>,
}

impl RankPairs<'_> {
    /// Count the next deck, known by its rank only: [`FullStream::push_rank`].
    #[inline(always)]
    pub fn push(&mut self, rank: usize) {
        debug_assert!(rank < self.cells);
        if self.has_previous {
            self.pairs.add(self.previous * self.cells + rank);
        } else {
            if let Some(ends) = self.current {
                ends.first = rank;
            }
            self.has_previous = true;
        }
        self.previous = rank;
    }
}

impl<const N: usize> FullStream<N> {
    /// Empty counters for the stream `options` describes (whole decks of N cards). The repeated
    /// decks of a full-mode run come from its tally, so nothing is kept per deal.
    pub fn new(options: DealStreamOptions) -> Self {
        assert!(
            options.deck == N && options.dealt == N,
            "whole decks of {N} cards"
        );
        let options = DealStreamOptions {
            repeats: match options.repeats {
                RepeatSource::Off => RepeatSource::Off,
                _ => RepeatSource::FullTally,
            },
            ..options
        };
        let stream = DealStream::new(options);
        let compositions_on = stream.counts_compositions();
        let cells = FACTORIALS[N] as usize;
        let by_pairs = N <= PAIR_TALLY_MAX_DECK;
        FullStream {
            stream,
            compositions_on,
            pairs: ByteTally::new(if by_pairs { cells * cells } else { 0 }),
            slots: vec![[0; SLOT_CELLS]; N]
                .into_boxed_slice()
                .try_into()
                .expect("N tables"),
            slots_wide: Vec::new(),
            matches: [0; 16],
            compositions: (compositions_on && !by_pairs).then(|| ByteTally::new(cells)),
            pending: [0; PREFETCH_BATCH],
            pending_len: 0,
            previous: [0; N],
            slot_of: [0; N],
            previous_rank: 0,
            has_previous: false,
            in_narrow: 0,
            current: None,
            blocks: Vec::new(),
        }
    }

    /// Start block `block` of `length` deals: its first deal is not paired here (the seam is
    /// paired at the end).
    pub fn start_block(&mut self, block: u64, length: u64) {
        if self.in_narrow + length > u64::from(u32::MAX) {
            self.widen();
        }
        self.has_previous = false;
        self.current = Some(BlockEnds {
            block,
            first: 0,
            last: 0,
            deals: 0,
            complete: false,
        });
    }

    /// End the current block after `deals` deals; `complete` when all its deals were made.
    pub fn end_block(&mut self, deals: u64, complete: bool) {
        self.count_pending();
        self.in_narrow += deals;
        if let Some(mut ends) = self.current.take()
            && deals > 0
        {
            ends.last = self.previous_rank;
            ends.deals = deals;
            ends.complete = complete;
            self.blocks.push(ends);
        }
        self.has_previous = false;
    }

    /// The first deal of a block.
    #[inline(always)]
    fn first(&mut self, rank: usize) {
        if let Some(ends) = &mut self.current {
            ends.first = rank;
        }
        self.has_previous = true;
    }

    /// Count the next deck, known by its rank only (decks up to [`PAIR_TALLY_MAX_DECK`]).
    #[inline(always)]
    pub fn push_rank(&mut self, rank: usize) {
        debug_assert!(N <= PAIR_TALLY_MAX_DECK && rank < FACTORIALS[N] as usize);
        if self.has_previous {
            self.pairs
                .add(self.previous_rank * FACTORIALS[N] as usize + rank);
        } else {
            self.first(rank);
        }
        self.previous_rank = rank;
    }

    /// [`FullStream::push_rank`] for each rank `feed` pushes into its [`RankPairs`], with the
    /// previous rank and the tally's addresses held in locals (see [`ByteTally::adder`]), not
    /// read back from the stream after each count.
    #[inline(always)]
    pub fn push_ranks(&mut self, feed: impl FnOnce(&mut RankPairs<'_>)) {
        debug_assert!(N <= PAIR_TALLY_MAX_DECK);
        let mut pairs = RankPairs {
            pairs: self.pairs.adder(),
            cells: FACTORIALS[N] as usize,
            previous: self.previous_rank,
            has_previous: self.has_previous,
            current: &mut self.current,
        };
        feed(&mut pairs);
        self.previous_rank = pairs.previous;
        self.has_previous = pairs.has_previous;
    }

    /// Whether decks of N cards are counted by the pairs of their ranks alone (up to
    /// [`PAIR_TALLY_MAX_DECK`] cards), which then hold the orderings' counts too
    /// ([`FullStream::ordering_counts`]): a loop that pushes each deck here counts no ordering
    /// beside it.
    pub const COUNTS_ORDERINGS: bool = N <= PAIR_TALLY_MAX_DECK;

    /// How many decks of each ordering were pushed (decks up to [`PAIR_TALLY_MAX_DECK`] cards,
    /// whose pairs of ranks are tallied): each deck is the second of one pair, or the first of
    /// its block, so the count of ordering b is the sum of column b of the pairs plus the
    /// blocks that began with b.
    pub fn ordering_counts(&self) -> Vec<u64> {
        assert!(Self::COUNTS_ORDERINGS, "the pairs of ranks are tallied");
        let cells = FACTORIALS[N] as usize;
        let mut counts: Vec<u64> = (0..cells)
            .map(|b| (0..cells).map(|a| self.pairs.get(a * cells + b)).sum())
            .collect();
        for ends in &self.blocks {
            counts[ends.first] += 1;
        }
        counts
    }

    /// Count the next deck, `deck` of rank `rank`.
    #[inline(always)]
    pub fn push(&mut self, deck: &[Card; N], rank: usize) {
        // SAFETY: `ScalarRanks` needs no CPU feature.
        unsafe { self.push_with::<ScalarRanks>(deck, rank) }
    }

    /// [`FullStream::push`], the compositions ranked by `R`.
    ///
    /// # Safety
    /// The CPU must support the features `R` names.
    #[inline(always)]
    pub(crate) unsafe fn push_with<R: Ranks>(&mut self, deck: &[Card; N], rank: usize) {
        if Self::COUNTS_ORDERINGS {
            return self.push_rank(rank);
        }
        if self.has_previous {
            // SAFETY (both): the CPU features are the caller's to ensure.
            let (cells, same) = unsafe { slot_cells::<R, N>(&self.previous, deck) };
            unsafe { self.count_pair::<R>(deck, cells, same, None) };
        } else {
            self.first(rank);
        }
        self.previous = *deck;
        self.previous_rank = rank;
        if self.compositions_on {
            write_slots(&mut self.slot_of, deck);
        }
    }

    /// [`FullStream::push`] of `decks` in turn, of ranks `ranks`, the compositions ranked by
    /// `R`: first where each card sits in every deck, then the decks, so that a vector rank
    /// reads slots written well before (a load of bytes just stored one by one waits for the
    /// stores to reach the cache).
    ///
    /// # Safety
    /// The CPU must support the features `R` names.
    #[inline(always)]
    pub(crate) unsafe fn push_batch_with<R: Ranks>(&mut self, decks: &[[Card; N]], ranks: &[usize]) {
        assert!(decks.len() == ranks.len() && decks.len() <= PUSH_BATCH);
        if N <= PAIR_TALLY_MAX_DECK {
            for &rank in ranks {
                self.push_rank(rank);
            }
            return;
        }
        let mut slots = [[0u8; N]; PUSH_BATCH + 1];
        slots[0] = self.slot_of;
        if self.compositions_on {
            for (slots, deck) in slots[1..].iter_mut().zip(decks) {
                write_slots(slots, deck);
            }
        }
        for (i, (deck, &rank)) in decks.iter().zip(ranks).enumerate() {
            if self.has_previous {
                // The batch's previous deck, not a copy in `self.previous`: a vector load of a
                // deck just copied would wait for the copy's stores to reach the cache.
                let previous = if i == 0 { &self.previous } else { &decks[i - 1] };
                // SAFETY (both): the CPU features are the caller's to ensure.
                let (cells, same) = unsafe { slot_cells::<R, N>(previous, deck) };
                unsafe { self.count_pair::<R>(deck, cells, same, Some(&slots[i])) };
            } else {
                self.first(rank);
            }
            self.previous_rank = rank;
        }
        if let Some(last) = decks.last() {
            self.previous = *last;
        }
        if self.compositions_on {
            self.slot_of = slots[decks.len()];
        }
    }

    /// Count the pair of the previous deck and `deck`: its cells of the slot tables and its
    /// matching slots ([`slot_cells`]), and the rank of its composition, the previous deck's
    /// card c having sat in slot `slot_of_previous[c]` (`self.slot_of` when `None`: a copy of
    /// it would be a load of bytes just stored one by one).
    ///
    /// # Safety
    /// The CPU must support the features `R` names.
    #[inline(always)]
    unsafe fn count_pair<R: Ranks>(
        &mut self,
        deck: &[Card; N],
        cells: [u8; N],
        same: usize,
        slot_of_previous: Option<&[u8; N]>,
    ) {
        for (table, &cell) in self.slots.iter_mut().zip(&cells) {
            table[usize::from(cell)] += 1;
        }
        self.matches[same.min(15)] += 1;
        if self.compositions_on {
            // π(c) = the card that took c's slot: its fixed points are the matching slots.
            let slot_of = slot_of_previous.unwrap_or(&self.slot_of);
            // SAFETY: the CPU features are the caller's to ensure.
            let rank = unsafe { R::composition_rank(deck, slot_of) };
            if let Some(compositions) = &mut self.compositions {
                if FACTORIALS[N] > PREFETCH_FROM_CELLS {
                    compositions.prefetch(rank);
                    self.pending[self.pending_len] = rank;
                    self.pending_len += 1;
                    if self.pending_len == PREFETCH_BATCH {
                        self.count_pending();
                    }
                } else {
                    compositions.add(rank);
                }
            }
        }
    }

    /// Count the compositions ranked and prefetched so far.
    #[inline(always)]
    fn count_pending(&mut self) {
        if let Some(compositions) = &mut self.compositions {
            for &rank in &self.pending[..self.pending_len] {
                compositions.add(rank);
            }
        }
        self.pending_len = 0;
    }

    /// Add the `u32` counters into the `u64` ones.
    fn widen(&mut self) {
        fn add(wide: &mut Vec<u64>, narrow: &mut [u32]) {
            wide.resize(narrow.len(), 0);
            for (total, count) in wide.iter_mut().zip(narrow) {
                *total += u64::from(std::mem::take(count));
            }
        }
        self.count_pending();
        add(
            &mut self.slots_wide,
            self.slots.as_flattened_mut(),
        );
        self.in_narrow = 0;
    }

    /// Hand the counts and the blocks' ends to a `DealStream` (to be merged with the other
    /// workers' and finished).
    pub fn into_deal_stream(mut self) -> DealStream {
        self.widen();
        let n = N;
        let mut matches = vec![0u64; n + 1];
        let mut compositions = self.compositions_on.then(Vec::new);
        let slots = if N <= PAIR_TALLY_MAX_DECK {
            let cells = FACTORIALS[n] as usize;
            let decks: Vec<Vec<Card>> = (0..cells).map(|r| unrank(r, n)).collect();
            let mut slots = vec![0u64; n * n * n];
            let mut slot_of = vec![0usize; n];
            let mut composition: Vec<Card> = vec![0; n];
            let pair_counts = std::mem::replace(&mut self.pairs, ByteTally::new(0)).into_counts();
            for (cell, &pairs) in pair_counts.iter().enumerate() {
                if pairs == 0 {
                    continue;
                }
                let (previous, next) = (&decks[cell / cells], &decks[cell % cells]);
                let mut same = 0;
                for (s, (&a, &b)) in previous.iter().zip(next).enumerate() {
                    same += usize::from(a == b);
                    slots[(s * n + usize::from(a)) * n + usize::from(b)] += pairs;
                    slot_of[usize::from(a)] = s;
                }
                matches[same] += pairs;
                if let Some(counts) = &mut compositions {
                    if counts.is_empty() {
                        counts.resize(cells, 0);
                    }
                    for (card, target) in composition.iter_mut().enumerate() {
                        *target = next[slot_of[card]];
                    }
                    counts[rank(&composition)] += pairs;
                }
            }
            slots
        } else {
            matches.copy_from_slice(&self.matches[..=n]);
            if let (Some(counts), Some(tally)) = (&mut compositions, self.compositions.take()) {
                *counts = tally.into_counts();
            }
            // The N × N corner of each slot's table, as `slots[(s·n + a)·n + b]`.
            self.slots_wide
                .chunks_exact(SLOT_CELLS)
                .flat_map(|table| table.chunks_exact(SLOT_WIDTH).take(n))
                .flat_map(|row| &row[..n])
                .copied()
                .collect()
        };
        let pairs = matches.iter().sum();
        self.stream
            .add_counted_pairs(pairs, &matches, &slots, compositions);
        for ends in &self.blocks {
            self.stream.add_counted_block(
                ends.block,
                &unrank(ends.first, n),
                &unrank(ends.last, n),
                ends.deals,
                ends.complete,
            );
        }
        self.stream
    }
}

/// Decks a [`RankedStream`] counts in one block before it starts the next (the seams are paired
/// at the end, so the blocks change nothing but let the `u32` counters widen in time).
const RANKED_BLOCK: u64 = 1 << 24;

/// Declares [`SizedStream`], a [`FullStream`] of each whole-deck size, chosen at run time.
macro_rules! sized_streams {
    ($($variant:ident = $n:literal),* $(,)?) => {
        /// A [`FullStream`] of a deck size known only at run time (2 to 11 cards).
        enum SizedStream {
            $(
                #[doc = concat!("Decks of ", stringify!($n), " cards.")]
                $variant(FullStream<$n>),
            )*
        }

        impl SizedStream {
            /// The stream for whole decks of `options.deck` cards, if that size is served.
            fn new(options: DealStreamOptions) -> Option<Self> {
                match options.deck {
                    $($n => Some(SizedStream::$variant(FullStream::new(options))),)*
                    _ => None,
                }
            }

            #[inline(always)]
            fn push(&mut self, deck: &[Card], rank: usize) {
                match self {
                    $(SizedStream::$variant(stream) => stream.push(
                        deck.try_into().expect("a deck of the stream's size"),
                        rank,
                    ),)*
                }
            }

            fn start_block(&mut self, block: u64, length: u64) {
                match self {
                    $(SizedStream::$variant(stream) => stream.start_block(block, length),)*
                }
            }

            fn end_block(&mut self, deals: u64, complete: bool) {
                match self {
                    $(SizedStream::$variant(stream) => stream.end_block(deals, complete),)*
                }
            }

            fn into_deal_stream(self) -> DealStream {
                match self {
                    $(SizedStream::$variant(stream) => stream.into_deal_stream(),)*
                }
            }
        }
    };
}

sized_streams!(
    Two = 2,
    Three = 3,
    Four = 4,
    Five = 5,
    Six = 6,
    Seven = 7,
    Eight = 8,
    Nine = 9,
    Ten = 10,
    Eleven = 11,
);

/// One unbroken stream of whole decks (2 to 11 cards) given with their ranks, one by one, as
/// `check` reads them: the counts of [`DealStream::add`] fed the same decks, counted as a run's
/// full mode counts them (pairs of ranks up to [`PAIR_TALLY_MAX_DECK`] cards, slot tables
/// above). The decks go into blocks of `RANKED_BLOCK` whose seams are paired at the end, so
/// every consecutive pair is counted, whatever the length of the stream.
pub struct RankedStream {
    stream: SizedStream,
    /// The current block's number, and the decks counted in it.
    block: u64,
    in_block: u64,
    /// Decks per block ([`RANKED_BLOCK`]; fewer in tests).
    block_length: u64,
}

impl RankedStream {
    /// The stream `options` describes, if it is one of whole decks of 2 to 11 cards whose
    /// repeats come from the full tally (or are off); None otherwise.
    pub fn new(options: DealStreamOptions) -> Option<Self> {
        if options.dealt != options.deck
            || !matches!(options.repeats, RepeatSource::FullTally | RepeatSource::Off)
        {
            return None;
        }
        let mut stream = SizedStream::new(options)?;
        stream.start_block(0, RANKED_BLOCK);
        Some(RankedStream {
            stream,
            block: 0,
            in_block: 0,
            block_length: RANKED_BLOCK,
        })
    }

    /// Count the next deck, `deck` (of the stream's size), whose rank is `rank`.
    #[inline(always)]
    pub fn push(&mut self, deck: &[Card], rank: usize) {
        if self.in_block == self.block_length {
            self.stream.end_block(self.in_block, true);
            self.block += 1;
            self.in_block = 0;
            self.stream.start_block(self.block, self.block_length);
        }
        self.stream.push(deck, rank);
        self.in_block += 1;
    }

    /// The counts, as [`DealStream::finish`] gives them for the same decks fed one by one (one
    /// unbroken stream: no ends of runs of blocks are kept).
    pub fn finish(mut self) -> DealStreamTally {
        self.stream.end_block(self.in_block, true);
        let mut tally = self.stream.into_deal_stream().finish();
        tally.ends.clear();
        tally
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::permutation::rank_array;

    fn options(n: usize) -> DealStreamOptions {
        DealStreamOptions {
            deck: n,
            dealt: n,
            repeats: RepeatSource::FullTally,
            compositions: true,
        }
    }

    /// Decks from a small linear congruential walk (any sequence will do, repeats included).
    fn decks<const N: usize>(count: usize, seed: u64) -> Vec<[Card; N]> {
        let mut state = seed;
        (0..count)
            .map(|_| {
                let mut deck: [Card; N] = std::array::from_fn(|i| i as Card);
                for i in (1..N).rev() {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    deck.swap(i, ((state >> 33) % (i as u64 + 1)) as usize);
                }
                deck
            })
            .collect()
    }

    /// How [`same_as_plain`] feeds the fast counters.
    #[derive(Clone, Copy, Debug)]
    enum Push {
        /// Deck by deck ([`FullStream::push`]).
        One,
        /// In batches of up to [`PUSH_BATCH`] decks, ranked by [`ScalarRanks`].
        Batch,
        /// In batches, ranked by [`crate::engine::permutation::VectorRanks`] (skipped where
        /// the CPU lacks its features).
        #[cfg(target_arch = "x86_64")]
        VectorBatch,
    }

    /// Feed `decks` in blocks of `block` (taken by two workers, in the order given) to the fast
    /// counters, deck by deck, and all of them one by one to `DealStream::add`: the tallies
    /// must be equal.
    fn same_as_plain<const N: usize>(decks: &[[Card; N]], block: usize, order: &[u64]) {
        same_as_plain_by::<N>(decks, block, order, Push::One);
    }

    /// [`same_as_plain`], the fast counters fed by `push`.
    fn same_as_plain_by<const N: usize>(
        decks: &[[Card; N]],
        block: usize,
        order: &[u64],
        push: Push,
    ) {
        let mut plain = DealStream::new(options(N));
        for deck in decks {
            plain.add(deck);
        }
        let mut workers = [
            FullStream::<N>::new(options(N)),
            FullStream::<N>::new(options(N)),
        ];
        for (i, &b) in order.iter().enumerate() {
            let worker = &mut workers[i % 2];
            let part = &decks[b as usize * block..((b as usize + 1) * block).min(decks.len())];
            worker.start_block(b, part.len() as u64);
            for batch in part.chunks(PUSH_BATCH) {
                let ranks: Vec<usize> = batch.iter().map(rank_array).collect();
                match push {
                    Push::One => {
                        for (deck, &rank) in batch.iter().zip(&ranks) {
                            worker.push(deck, rank);
                        }
                    }
                    // SAFETY: `ScalarRanks` needs no CPU feature.
                    Push::Batch => unsafe {
                        worker.push_batch_with::<ScalarRanks>(batch, &ranks);
                    },
                    // SAFETY: the caller checked the CPU's features.
                    #[cfg(target_arch = "x86_64")]
                    Push::VectorBatch => unsafe {
                        worker.push_batch_with::<crate::engine::permutation::VectorRanks>(
                            batch, &ranks,
                        );
                    },
                }
            }
            worker.end_block(part.len() as u64, true);
        }
        let [first, second] = workers;
        let mut fast = first.into_deal_stream();
        fast.merge(second.into_deal_stream());
        let (mut fast, mut plain) = (fast.finish(), plain.finish());
        // The counts must agree; the ends of the runs of blocks (kept for merging saved
        // tallies) exist only for the stream fed in blocks.
        for tally in [&mut fast, &mut plain] {
            tally.ends.clear();
            tally.fingerprints.clear();
        }
        assert_eq!(fast, plain, "{N} cards, {push:?}");
        assert_eq!(fast.pairs, decks.len() as u64 - 1);
    }

    /// The orderings' counts read off the pairs of ranks are the decks' own counts: over
    /// blocks of several lengths (one of a single deck, one cut short), with cells past 255
    /// (the bytes' carries), at every deck size whose pairs are tallied.
    #[test]
    fn the_pairs_of_ranks_give_the_orderings_counts() {
        fn check<const N: usize>(seed: u64) {
            let decks = decks::<N>(3000, seed);
            let mut stream = FullStream::<N>::new(options(N));
            let mut expected = vec![0u64; FACTORIALS[N] as usize];
            let mut at = 0;
            for (block, length) in [1000usize, 1, 1500, 499].into_iter().enumerate() {
                stream.start_block(block as u64, length as u64 + 7);
                for deck in &decks[at..at + length] {
                    let rank = rank_array(deck);
                    stream.push_rank(rank);
                    expected[rank] += 1;
                }
                // Each block ends short of the length it was given.
                stream.end_block(length as u64, false);
                at += length;
            }
            assert_eq!(stream.ordering_counts(), expected, "{N} cards");
        }
        check::<2>(1);
        check::<3>(2);
        check::<4>(3);
        check::<5>(4);
        check::<6>(5);
    }

    /// Batches count what single decks count, seams between batches and blocks included, with
    /// the slot cells and compositions made in vectors where the CPU can.
    #[test]
    fn batches_of_decks_count_what_single_decks_count() {
        fn check<const N: usize>(seed: u64) {
            // Blocks of 37 decks: batches of 16, 16 and 5, each block's first deck unpaired.
            let decks = decks::<N>(1000, seed);
            let order: Vec<u64> = (0..28).rev().collect();
            same_as_plain_by::<N>(&decks, 37, &order, Push::Batch);
            #[cfg(target_arch = "x86_64")]
            if crate::engine::permutation::VectorRanks::available() {
                same_as_plain_by::<N>(&decks, 37, &order, Push::VectorBatch);
            }
        }
        check::<4>(1);
        check::<7>(2);
        check::<8>(3);
        check::<9>(4);
        check::<10>(5);
        check::<11>(6);
    }

    /// The vector slot cells are the scalar ones, for permutations and for any other cards
    /// (each under the mask), at every deck size the vector loop takes.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_vector_slot_cells_are_the_scalar_slot_cells() {
        use crate::engine::permutation::VectorRanks;
        if !VectorRanks::available() {
            return;
        }
        fn check<const N: usize>() {
            let mut state = 17u64;
            let mut next = || {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (state >> 48) as Card
            };
            let mut pairs: Vec<([Card; N], [Card; N])> = decks::<N>(200, 9)
                .windows(2)
                .map(|pair| (pair[0], pair[1]))
                .collect();
            // Equal decks (every slot matching), and cards of any value.
            pairs.push((decks::<N>(1, 3)[0], decks::<N>(1, 3)[0]));
            pairs.extend((0..200).map(|_| {
                (
                    std::array::from_fn(|_| next()),
                    std::array::from_fn(|_| next() % 20),
                )
            }));
            for (previous, deck) in &pairs {
                // SAFETY: `ScalarRanks` needs no feature; the CPU has AVX-512 F and BW.
                let (scalar, vector) = unsafe {
                    (
                        slot_cells::<ScalarRanks, N>(previous, deck),
                        vector::slot_cells(previous, deck),
                    )
                };
                assert_eq!(vector, scalar, "{previous:?} then {deck:?}");
            }
            let identity: [Card; N] = std::array::from_fn(|i| i as Card);
            // SAFETY: as above.
            let (cells, same) = unsafe { vector::slot_cells(&identity, &identity) };
            assert_eq!(same, N);
            assert!(cells.iter().enumerate().all(|(s, &c)| usize::from(c) == s * 17));
        }
        check::<7>();
        check::<9>();
        check::<10>();
        check::<11>();
    }

    #[test]
    fn the_pair_counts_equal_those_of_deals_fed_one_by_one_across_blocks_and_workers() {
        same_as_plain::<3>(
            &decks::<3>(1000, 1),
            64,
            &[2, 0, 1, 3, 15, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14],
        );
        same_as_plain::<4>(
            &decks::<4>(5000, 2),
            300,
            &(0..17).rev().collect::<Vec<_>>(),
        );
        same_as_plain::<5>(&decks::<5>(5000, 3), 1000, &[4, 3, 2, 1, 0]);
        same_as_plain::<6>(&decks::<6>(5000, 4), 700, &[0, 2, 4, 6, 1, 3, 5, 7]);
        same_as_plain::<8>(&decks::<8>(3000, 5), 1000, &[1, 0, 2]);
        same_as_plain::<10>(&decks::<10>(3000, 6), 128, &(0..24).collect::<Vec<_>>());
        same_as_plain::<11>(&decks::<11>(500, 7), 100, &[0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_block_cut_short_leaves_its_seam_out_as_the_plain_stream_does() {
        let decks = decks::<4>(300, 9);
        let mut expected = DealStream::new(options(4));
        let mut fast = FullStream::<4>::new(options(4));
        for (b, range) in [(0u64, 0..100), (1, 100..150), (2, 200..300)] {
            let complete = b != 1;
            expected.start_block(b);
            fast.start_block(b, 100);
            for deck in &decks[range.clone()] {
                expected.add(deck);
                fast.push(deck, rank_array(deck));
            }
            expected.end_block(complete);
            fast.end_block(range.len() as u64, complete);
        }
        assert_eq!(fast.into_deal_stream().finish(), expected.finish());
    }

    #[test]
    fn counters_pass_the_32_bit_range_by_widening() {
        let mut fast = FullStream::<7>::new(options(7));
        let deck: [Card; 7] = [1, 0, 2, 3, 5, 4, 6];
        fast.start_block(0, 10);
        for _ in 0..10 {
            fast.push(&deck, rank_array(&deck));
        }
        fast.end_block(10, true);
        // Pretend the narrow counters are full: the next block widens them first.
        fast.in_narrow = u64::from(u32::MAX) - 5;
        fast.start_block(1, 10);
        assert_eq!(fast.in_narrow, 0);
        fast.push(&deck, rank_array(&deck));
        fast.end_block(1, true);
        let tally = fast.into_deal_stream().finish();
        assert_eq!(tally.pairs, 10);
        assert_eq!(tally.matches[7], 10);
        // Every slot table, widened, holds the 10 pairs at (card, card) of its slot's card.
        for (slot, &card) in deck.iter().enumerate() {
            let table = &tally.slots[slot * 49..(slot + 1) * 49];
            let cell = usize::from(card) * 7 + usize::from(card);
            assert_eq!(table[cell], 10, "slot {slot}");
            assert_eq!(table.iter().sum::<u64>(), 10, "slot {slot}");
        }
        assert_eq!(tally.compositions.unwrap()[0], 10);
    }
    #[test]
    fn a_ranked_stream_counts_what_deals_fed_one_by_one_count_across_its_blocks() {
        fn check<const N: usize>(count: usize, seed: u64) {
            let decks = decks::<N>(count, seed);
            let mut plain = DealStream::new(options(N));
            let mut ranked = RankedStream::new(options(N)).expect("whole decks");
            // Small blocks, so that several seams are paired.
            ranked.block_length = 97;
            for deck in &decks {
                plain.add(deck);
                ranked.push(deck, rank_array(deck));
            }
            assert_eq!(ranked.finish(), plain.finish(), "{N} cards");
        }
        check::<2>(100, 1);
        check::<4>(5000, 2);
        check::<6>(3000, 3);
        check::<7>(2000, 4);
        check::<11>(300, 5);
        let deal = DealStreamOptions {
            dealt: 3,
            ..options(5)
        };
        assert!(RankedStream::new(deal).is_none());
    }
}
