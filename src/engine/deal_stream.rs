//! The deal-stream accumulator: what the repeated-deals and serial tests of
//! [`crate::analysis::deal_stream`] need from a stream of deals, kept as the deals go by.
//!
//! Per deal (K cards out of n, K = n for a whole deck) it keeps a 128-bit fingerprint for the
//! repeated-deals test ([`BYTES_PER_DEAL`] bytes a deal, within a memory limit, beyond which
//! the fingerprints are dropped and the test is reported as skipped with the reason); and per
//! consecutive pair of deals the number of matching slots, the per-slot table of (card group at
//! the slot in deal t, card group in deal t+1), and, for whole decks in full mode, the rank of
//! the composition σ_{t+1}∘σ_t⁻¹. Memory besides the fingerprints is K·G² + (K + 1) counters,
//! G = min(n, [`MAX_GROUPS`]), and n! for the compositions.
//!
//! **Consecutive.** `check` feeds the deals in line order: deal t and t+1 are lines t and t+1.
//! `run` produces deals in blocks, block b drawing from its own stream, and workers take blocks
//! in any order; each block is fed between [`DealStream::start_block`] and
//! [`DealStream::end_block`], which record its first and last deal, and [`DealStream::finish`]
//! adds the seam pairs (last deal of block b, first of block b+1). So the pairs are exactly the
//! consecutive pairs of trial order, the same whatever `--threads` (after an interruption, the
//! seams between blocks that were not both reached are left out).

use crate::engine::algorithms::Card;
use crate::engine::fingerprint_sort;
use crate::engine::permutation::{composition_into, factorial, rank};

/// Bytes kept per deal for the repeated-deals test: one 128-bit fingerprint.
pub const BYTES_PER_DEAL: u64 = 16;

/// Most card groups in a slot table: decks of up to 64 cards get one group per card; larger
/// decks group consecutive cards (card c in group c·G/n), so that memory stays K·64² counters.
pub const MAX_GROUPS: usize = 64;

/// Counters of one slot's table in `narrow`: 64 × 64 whatever G, so that a cell is found
/// with a shift and no bounds check (rows of G cells used out of 64).
const TABLE: usize = MAX_GROUPS * MAX_GROUPS;

/// Deals kept before their pairs are added, slot by slot, into the slot tables (see
/// [`DealStream::drain_pending`]): with a few hundred pairs per slot, most of a slot table's
/// cache lines take several updates while in L1. The buffer, 2·K·256 bytes (26 KiB at 52
/// cards), is written in order, one copy of each deal.
const PENDING_DEALS: usize = 256;

/// The largest deck whose compositions are counted: 10! = 3,628,800 counters (29 MB) a
/// worker; 11! would add 320 MB a worker to the run.
pub const MAX_COMPOSITION_DECK: usize = 10;

/// What to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DealStreamOptions {
    /// n, cards in the deck.
    pub deck: usize,
    /// K, cards per deal.
    pub dealt: usize,
    /// How the repeated deals are counted.
    pub repeats: RepeatSource,
    /// Whether to count the compositions σ_{t+1}∘σ_t⁻¹ (whole decks of at most
    /// [`MAX_COMPOSITION_DECK`] cards only).
    pub compositions: bool,
}

/// Where the repeated-deals counts come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepeatSource {
    /// From the full tally (every ordering's count): nothing kept per deal.
    FullTally,
    /// A fingerprint per deal, up to `limit` deals (beyond, the test is skipped).
    Fingerprints {
        /// Most fingerprints kept.
        limit: u64,
    },
    /// Too many deals for the fingerprints to fit under `limit`: known before the run, so
    /// nothing is kept.
    TooMany {
        /// Most fingerprints allowed.
        limit: u64,
    },
    /// Not asked for.
    Off,
}

/// Why the repeated-deals test has no counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepeatsSkipped {
    /// The fingerprints would pass the memory limit.
    Memory {
        /// Deals the limit allows.
        limit: u64,
        /// Deals seen (or to be run).
        deals: u64,
    },
    /// Not asked for.
    Off,
}

/// The repeated-deals counts of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeats {
    /// To be computed from the full tally.
    FromTally,
    /// Counted from fingerprints.
    Counted {
        /// Distinct deals.
        distinct: u64,
        /// Pairs of identical deals, Σ C(c, 2).
        repeated_pairs: u64,
    },
    /// Not counted.
    Skipped(RepeatsSkipped),
}

/// What a stream of deals left: plain counts for [`crate::analysis::deal_stream`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealStreamTally {
    /// n.
    pub deck: usize,
    /// K.
    pub dealt: usize,
    /// Deals seen.
    pub deals: u64,
    /// Consecutive pairs counted.
    pub pairs: u64,
    /// The repeated-deals counts.
    pub repeats: Repeats,
    /// `matches[m]`: consecutive pairs with m matching slots (0..=K).
    pub matches: Vec<u64>,
    /// G, the card groups of the slot tables.
    pub groups: usize,
    /// `slots[(s·G + a)·G + b]`: pairs with group a at slot s in deal t and b in deal t+1.
    pub slots: Vec<u64>,
    /// `compositions[rank]`: pairs whose composition σ_{t+1}∘σ_t⁻¹ has that rank (whole decks
    /// in full mode).
    pub compositions: Option<Vec<u64>>,
    /// The ends of the runs of consecutive blocks (a run's stream only): what a later merge
    /// needs to pair the seams with the blocks of other shards ([`DealStreamMerger`]).
    pub ends: Vec<StreamEnd>,
    /// The fingerprints of the deals, each list sorted, when the repeated deals were counted
    /// from them: what a later merge needs to count repeats across parts.
    pub fingerprints: Vec<Vec<u128>>,
}

/// A block's first and last deal, for the seams.
#[derive(Debug, Clone)]
struct Seam {
    block: u64,
    first: Vec<Card>,
    last: Vec<Card>,
    complete: bool,
}

/// The accumulator (see the module documentation).
#[derive(Debug, Clone)]
pub struct DealStream {
    options: DealStreamOptions,
    groups: usize,
    group_of: Vec<u16>,
    fingerprints: Vec<Vec<u128>>,
    kept: u64,
    dropped: Option<RepeatsSkipped>,
    deals: u64,
    pairs: u64,
    matches: Vec<u64>,
    slots: Vec<u64>,
    /// The slot counts of the last pairs, in 16 bits: a quarter of the memory traffic of
    /// `slots` (the 52 slot tables of a 52-card deck, 52 rows of 104 bytes each, stay in the
    /// L2 cache), added into `slots` before any could overflow. `narrow[(s·64 + a)·64 + b]`
    /// (see [`TABLE`]).
    narrow: Vec<u16>,
    /// Pairs counted in `narrow` since it was last emptied (those still in `pending`
    /// included).
    in_narrow: u32,
    /// The deals of the last pairs, not yet added into `narrow`, one after the other
    /// ([`PENDING_DEALS`] of K cards).
    pending: Vec<Card>,
    /// `paired[i]`: whether pending deal i is paired with deal i − 1.
    paired: Vec<bool>,
    /// Deals in `pending`.
    in_pending: usize,
    compositions: Option<Vec<u64>>,
    previous: Vec<Card>,
    has_previous: bool,
    /// Where each card sits in the previous deal (compositions only).
    slot_of: Vec<usize>,
    composition: Vec<Card>,
    block: Option<(u64, Vec<Card>)>,
    seams: Vec<Seam>,
    /// Bits per card when a deal fits in 128 bits exactly (then the fingerprint is the deal).
    packed_bits: Option<u32>,
    /// Whether every pair counted here was made from deals added here (no merge, no pairs
    /// counted elsewhere): what [`DealStream::slot_card_counts`] relies on.
    own_pairs_only: bool,
}

/// Bits a card takes in a packed fingerprint: ⌈log2 n⌉ (at least 1).
fn card_bits(deck: usize) -> u32 {
    usize::BITS - (deck - 1).max(1).leading_zeros()
}

/// Whether the fingerprints of deals of `dealt` cards out of `deck` are 128-bit hashes (K·⌈log2
/// n⌉ > 128 bits: 52-card decks) rather than the deals themselves packed. Two distinct deals then
/// share a fingerprint with probability 2^−128 a pair, so a count of repeated deals is exact only
/// up to C(N, 2)·2^−128 — the smallest p-value of too many repeats that can be resolved.
pub fn fingerprints_are_hashes(deck: usize, dealt: usize) -> bool {
    card_bits(deck) as usize * dealt > 128
}

impl DealStream {
    /// An empty accumulator.
    pub fn new(options: DealStreamOptions) -> Self {
        let DealStreamOptions { deck, dealt, .. } = options;
        assert!(
            dealt <= deck && dealt >= 1,
            "{dealt} cards dealt out of {deck}"
        );
        let groups = deck.min(MAX_GROUPS);
        let compositions = options.compositions && dealt == deck && deck <= MAX_COMPOSITION_DECK;
        let bits = card_bits(deck);
        let dropped = match options.repeats {
            RepeatSource::Off => Some(RepeatsSkipped::Off),
            RepeatSource::TooMany { limit } => Some(RepeatsSkipped::Memory { limit, deals: 0 }),
            _ => None,
        };
        DealStream {
            options,
            groups,
            group_of: (0..deck).map(|c| (c * groups / deck) as u16).collect(),
            fingerprints: vec![Vec::new()],
            kept: 0,
            dropped,
            deals: 0,
            pairs: 0,
            matches: vec![0; dealt + 1],
            slots: vec![0; dealt * groups * groups],
            narrow: vec![0; dealt * TABLE],
            in_narrow: 0,
            pending: vec![0; dealt * PENDING_DEALS],
            paired: vec![false; PENDING_DEALS],
            in_pending: 0,
            compositions: compositions.then(|| vec![0; factorial(deck) as usize]),
            previous: vec![0; dealt],
            has_previous: false,
            slot_of: vec![0; if compositions { deck } else { 0 }],
            composition: vec![0; if compositions { deck } else { 0 }],
            block: None,
            seams: Vec::new(),
            packed_bits: (!fingerprints_are_hashes(deck, dealt)).then_some(bits),
            own_pairs_only: true,
        }
    }

    /// Count one deal (`deal[slot] = card`), paired with the previous one.
    #[inline]
    pub fn add(&mut self, deal: &[Card]) {
        debug_assert_eq!(deal.len(), self.options.dealt);
        if let RepeatSource::Fingerprints { limit } = self.options.repeats
            && self.dropped.is_none()
        {
            if self.kept < limit {
                let print = self.fingerprint(deal);
                self.fingerprints[0].push(print);
                self.kept += 1;
            } else {
                self.fingerprints = vec![Vec::new()];
                self.dropped = Some(RepeatsSkipped::Memory { limit, deals: 0 });
            }
        }
        if self.has_previous {
            let previous = std::mem::take(&mut self.previous);
            self.pair(&previous, deal);
            self.previous = previous;
        } else if let Some((_, first)) = &mut self.block
            && first.is_empty()
        {
            first.extend_from_slice(deal);
        }
        self.remember(deal);
        self.deals += 1;
    }

    /// Count the deals `deals` (one after the other, K cards each), in order, each paired with
    /// the one before: the same counts as [`DealStream::add`] called on each, with less work per
    /// deal. Each deal is copied once, into the buffer of pending pairs, where the pair with
    /// the deal before it needs no copy of that deal again (it is the one just kept); the
    /// matching slots are counted against the deal before it in `deals` and the previous deal
    /// is kept once, at the end. Streams that count compositions take the deals one by one.
    pub fn add_deals(&mut self, deals: &[Card]) {
        let k = self.options.dealt;
        debug_assert_eq!(deals.len() % k, 0);
        if self.compositions.is_some() {
            for deal in deals.chunks_exact(k) {
                self.add(deal);
            }
            return;
        }
        if deals.is_empty() {
            return;
        }
        if let RepeatSource::Fingerprints { limit } = self.options.repeats
            && self.dropped.is_none()
        {
            let count = (deals.len() / k) as u64;
            if self.kept + count <= limit {
                let bits = self.packed_bits;
                self.fingerprints[0].extend(deals.chunks_exact(k).map(|deal| {
                    match bits {
                        Some(bits) => deal
                            .iter()
                            .fold(0u128, |acc, &c| (acc << bits) | u128::from(c)),
                        None => hash_deal(deal),
                    }
                }));
                self.kept += count;
            } else {
                self.fingerprints = vec![Vec::new()];
                self.dropped = Some(RepeatsSkipped::Memory { limit, deals: 0 });
            }
        }
        if !self.has_previous
            && let Some((_, first)) = &mut self.block
            && first.is_empty()
        {
            first.extend_from_slice(&deals[..k]);
        }
        // The last pending deal is `previous` whenever there is one (every deal of the stream
        // goes into `pending`, the first of a block unpaired); a seam pair made by `finish`
        // breaks this, and is followed by no deal.
        if self.has_previous && !self.previous_is_pending() {
            let previous = std::mem::take(&mut self.previous);
            self.push_unpaired(&previous);
            self.previous = previous;
        }
        let count = deals.len() / k;
        let pairs = count - usize::from(!self.has_previous);
        if self.in_narrow as usize + pairs > usize::from(u16::MAX) {
            self.flush();
        }
        self.in_narrow += pairs as u32;
        self.pairs += pairs as u64;
        // The matching slots of each pair, summed in 16 bits (K ≤ 1000), which vectorises.
        let same = |a: &[Card], b: &[Card]| {
            usize::from(
                a.iter()
                    .zip(b)
                    .map(|(&x, &y)| u16::from(x == y))
                    .sum::<u16>(),
            )
        };
        if self.has_previous {
            self.matches[same(&self.previous, &deals[..k])] += 1;
        }
        for (before, after) in deals.chunks_exact(k).zip(deals[k..].chunks_exact(k)) {
            self.matches[same(before, after)] += 1;
        }
        let mut paired = self.has_previous;
        for deal in deals.chunks_exact(k) {
            if self.in_pending == PENDING_DEALS {
                self.drain_pending();
            }
            let at = self.in_pending;
            for (kept, &card) in self.pending[at * k..(at + 1) * k].iter_mut().zip(deal) {
                *kept = card;
            }
            self.paired[at] = paired;
            self.in_pending += 1;
            paired = true;
        }
        let last = &deals[deals.len() - k..];
        for (kept, &card) in self.previous.iter_mut().zip(last) {
            *kept = card;
        }
        self.has_previous = true;
        self.deals += count as u64;
    }

    /// Whether the last pending deal is the previous deal.
    fn previous_is_pending(&self) -> bool {
        let k = self.options.dealt;
        self.in_pending > 0 && self.pending[(self.in_pending - 1) * k..][..k] == self.previous[..]
    }

    /// Put `deal` in the pending buffer, paired with nothing.
    fn push_unpaired(&mut self, deal: &[Card]) {
        let k = self.options.dealt;
        if self.in_pending == PENDING_DEALS {
            self.drain_pending();
        }
        self.pending[self.in_pending * k..][..k].copy_from_slice(deal);
        self.paired[self.in_pending] = false;
        self.in_pending += 1;
    }

    /// Keep `deal` as the previous one (and, for compositions, where each card sits in it).
    #[inline]
    fn remember(&mut self, deal: &[Card]) {
        // A loop, not copy_from_slice: for a few cards a call to memmove costs more.
        for (kept, &card) in self.previous.iter_mut().zip(deal) {
            *kept = card;
        }
        if self.compositions.is_some() {
            for (slot, &card) in deal.iter().enumerate() {
                self.slot_of[usize::from(card)] = slot;
            }
        }
        self.has_previous = true;
    }

    /// Count the consecutive pair (`previous`, `next`); `slot_of` must describe `previous`.
    #[inline]
    fn pair(&mut self, previous: &[Card], next: &[Card]) {
        if self.in_narrow == u32::from(u16::MAX) {
            self.flush();
        }
        self.in_narrow += 1;
        // The matching slots: an element-wise comparison summed in 16 bits (K ≤ 1000), which
        // vectorises.
        let same = usize::from(
            previous
                .iter()
                .zip(next)
                .map(|(&a, &b)| u16::from(a == b))
                .sum::<u16>(),
        );
        self.push_pending(previous, next);
        self.matches[same] += 1;
        if let Some(counts) = &mut self.compositions {
            // π(c) = the card that took c's slot: its fixed points are the matching slots.
            composition_into(&self.slot_of, next, &mut self.composition);
            counts[rank(&self.composition)] += 1;
        }
        self.pairs += 1;
    }

    /// The fingerprint of a deal: the deal itself, packed, when K·⌈log2 n⌉ ≤ 128 bits (exact);
    /// otherwise a 128-bit hash of its cards (see [`hash_deal`]).
    #[inline]
    fn fingerprint(&self, deal: &[Card]) -> u128 {
        if let Some(bits) = self.packed_bits {
            return deal
                .iter()
                .fold(0u128, |acc, &c| (acc << bits) | u128::from(c));
        }
        hash_deal(deal)
    }

    /// Sort the fingerprints kept so far (a worker does this for its own deals before the
    /// accumulators are merged, so that the sorting is shared among the threads; the count of
    /// repeats is the same sorted or not).
    pub fn sort_fingerprints(&mut self) {
        for list in &mut self.fingerprints {
            sort_fingerprints(list);
        }
    }

    /// Start block `block` of a run: its first deal is not paired with the deal before (which
    /// belongs to another block); [`DealStream::finish`] pairs it with the previous block's last.
    pub fn start_block(&mut self, block: u64) {
        self.has_previous = false;
        self.block = Some((block, Vec::new()));
    }

    /// End the current block; `complete` when all its deals were made (not interrupted).
    pub fn end_block(&mut self, complete: bool) {
        if let Some((block, first)) = self.block.take()
            && !first.is_empty()
        {
            self.seams.push(Seam {
                block,
                first,
                last: self.previous.clone(),
                complete,
            });
        }
        self.has_previous = false;
    }

    /// Keep the pair (`previous`, `next`) for [`DealStream::drain_pending`]: `next` is copied
    /// after `previous`, which is usually the deal kept last (then only `next` is copied).
    #[inline]
    fn push_pending(&mut self, previous: &[Card], next: &[Card]) {
        let k = self.options.dealt;
        if self.in_pending + 2 > PENDING_DEALS {
            self.drain_pending();
        }
        // Whether the last deal kept is `previous` (compared whole, without branches).
        let follows = self.in_pending > 0
            && self.pending[(self.in_pending - 1) * k..][..k]
                .iter()
                .zip(previous)
                .fold(0, |differ, (&a, &b)| differ | (a ^ b))
                == 0;
        if !follows {
            self.pending[self.in_pending * k..][..k].copy_from_slice(previous);
            self.paired[self.in_pending] = false;
            self.in_pending += 1;
        }
        self.pending[self.in_pending * k..][..k].copy_from_slice(next);
        self.paired[self.in_pending] = true;
        self.in_pending += 1;
    }

    /// Add the pending pairs into the 16-bit slot counts, one slot's table at a time: the
    /// table of a slot stays in L1 while the pairs' cells of that slot land in it, where one
    /// pair at a time would touch K tables spread over the whole of `narrow`, a cache miss
    /// per slot. Every two neighbours in the buffer are counted, without a test, and the few
    /// that are not a pair (the first deal of a block after the last of another) are taken
    /// back out; the 16-bit counts wrap in between, and are right once they are taken out.
    /// The last deal stays, unpaired, as the first of the next pairs.
    fn drain_pending(&mut self) {
        let (k, g) = (self.options.dealt, self.groups);
        let count = self.in_pending;
        if count == 0 {
            return;
        }
        let deals = &self.pending[..count * k];
        let paired = &self.paired[..count];
        let grouped = g != self.options.deck;
        let group_of = &self.group_of;
        let group = |card: Card| {
            if grouped {
                usize::from(group_of[usize::from(card)])
            } else {
                usize::from(card)
            }
        };
        // The deals i ≥ 1 not paired with deal i − 1 (few: one per block started).
        let mut unpaired = [0usize; PENDING_DEALS];
        let mut unpaired_count = 0;
        for (i, &is_pair) in paired.iter().enumerate().skip(1) {
            unpaired[unpaired_count] = i;
            unpaired_count += usize::from(!is_pair);
        }
        let unpaired = &unpaired[..unpaired_count];
        // Take back the neighbours counted at `slot` that are not a pair.
        let take_back = |table: &mut [u16; TABLE], slot: usize| {
            for &after in unpaired {
                let (a, b) = (deals[(after - 1) * k + slot], deals[after * k + slot]);
                let cell = &mut table[(group(a) * MAX_GROUPS + group(b)) % TABLE];
                *cell = cell.wrapping_sub(1);
            }
        };
        for (slot, table) in self.narrow.chunks_exact_mut(TABLE).enumerate() {
            let table: &mut [u16; TABLE] = table.try_into().expect("tables of TABLE counts");
            let mut before = group(deals[slot]);
            for deal in deals[k..].chunks_exact(k) {
                let after = group(deal[slot]);
                let cell = &mut table[(before * MAX_GROUPS + after) % TABLE];
                *cell = cell.wrapping_add(1);
                before = after;
            }
            take_back(table, slot);
        }
        self.pending.copy_within((count - 1) * k..count * k, 0);
        self.paired[0] = false;
        self.in_pending = 1;
    }

    /// Add the 16-bit slot counts into the 64-bit ones.
    fn flush(&mut self) {
        self.drain_pending();
        let g = self.groups;
        for (totals, table) in self
            .slots
            .chunks_exact_mut(g * g)
            .zip(self.narrow.chunks_exact_mut(TABLE))
        {
            for (totals, counts) in totals
                .chunks_exact_mut(g)
                .zip(table.chunks_exact_mut(MAX_GROUPS))
            {
                for (total, count) in totals.iter_mut().zip(counts) {
                    *total += u64::from(std::mem::take(count));
                }
            }
        }
        self.in_narrow = 0;
    }

    /// Add another worker's accumulator of the same stream.
    pub fn merge(&mut self, mut other: DealStream) {
        self.own_pairs_only = false;
        self.flush();
        other.flush();
        self.fingerprints.extend(other.fingerprints);
        self.kept += other.kept;
        self.dropped = self.dropped.or(other.dropped);
        self.deals += other.deals;
        self.pairs += other.pairs;
        for (total, count) in self.matches.iter_mut().zip(&other.matches) {
            *total += count;
        }
        for (total, count) in self.slots.iter_mut().zip(&other.slots) {
            *total += count;
        }
        if let (Some(totals), Some(counts)) = (&mut self.compositions, &other.compositions) {
            for (total, count) in totals.iter_mut().zip(counts) {
                *total += count;
            }
        }
        self.seams.extend(other.seams);
    }

    /// Pair the blocks' seams, count the repeated deals, and hand over the counts.
    pub fn finish(mut self) -> DealStreamTally {
        let mut seams = std::mem::take(&mut self.seams);
        seams.sort_by_key(|seam| seam.block);
        for window in seams.windows(2) {
            let (before, after) = (&window[0], &window[1]);
            if before.complete && after.block == before.block + 1 {
                self.remember(&before.last);
                self.pair(&before.last, &after.first);
            }
        }
        let ends = stream_ends(&seams);
        self.flush();
        let repeats = match (self.options.repeats, self.dropped) {
            (_, Some(RepeatsSkipped::Memory { limit, .. })) => {
                Repeats::Skipped(RepeatsSkipped::Memory {
                    limit,
                    deals: self.deals,
                })
            }
            (_, Some(reason)) => Repeats::Skipped(reason),
            (RepeatSource::FullTally, None) => Repeats::FromTally,
            (RepeatSource::Off | RepeatSource::TooMany { .. }, None) => {
                Repeats::Skipped(RepeatsSkipped::Off)
            }
            (RepeatSource::Fingerprints { .. }, None) => {
                let (distinct, repeated_pairs) = count_repeats(&mut self.fingerprints);
                Repeats::Counted {
                    distinct,
                    repeated_pairs,
                }
            }
        };
        DealStreamTally {
            deck: self.options.deck,
            dealt: self.options.dealt,
            deals: self.deals,
            pairs: self.pairs,
            repeats,
            matches: self.matches,
            groups: self.groups,
            slots: self.slots,
            compositions: self.compositions,
            ends,
            fingerprints: self.fingerprints,
        }
    }
}

/// Odd 64-bit multipliers of [`hash_deal`]'s two halves: digits of π and e, as in the
/// constants of many hash functions; any odd constants with mixed bits would do.
const HASH_MULTIPLIERS: [u64; 2] = [0x243f_6a88_85a3_08d3, 0xb7e1_5162_8aed_2a6b];

/// A 128-bit hash of a deal of any length: its cards, four 16-bit cards to a 64-bit word w_i,
/// each word offset by its place, (w_i + (i + 1)·φ) with φ = 2^64/golden ratio, so that words at
/// different places count differently; each half sums the folded products
/// fold(x · m) = high ⊕ low of the 128-bit product of the offset word with its own multiplier m,
/// and ends in a multiply–xorshift avalanche. Each word's terms are independent of the others',
/// so the work is a few multiplies per word with no chain of dependent steps between words;
/// two deals that differ collide only if both 64-bit sums agree, about 2^−128 for unrelated
/// deals (a false repeat among N distinct deals: about N²/2^129, under 10⁻²³ for 10⁹ deals).
#[inline]
pub fn hash_deal(deal: &[Card]) -> u128 {
    const PLACE: u64 = 0x9e37_79b9_7f4a_7c15;
    let chunks = deal.chunks_exact(4);
    let tail = chunks
        .remainder()
        .iter()
        .fold(0u64, |acc, &c| (acc << 16) | u64::from(c));
    let mut halves = [0u64; 2];
    let mut place = 0u64;
    let mut absorb = |word: u64, halves: &mut [u64; 2]| {
        place = place.wrapping_add(PLACE);
        let x = word.wrapping_add(place);
        for (half, &m) in halves.iter_mut().zip(&HASH_MULTIPLIERS) {
            let product = u128::from(x ^ m) * u128::from(m);
            *half = half.wrapping_add((product >> 64) as u64 ^ product as u64);
        }
    };
    for chunk in chunks {
        let word = u64::from(chunk[0])
            | (u64::from(chunk[1]) << 16)
            | (u64::from(chunk[2]) << 32)
            | (u64::from(chunk[3]) << 48);
        absorb(word, &mut halves);
    }
    // The length joins the last word, so that deals of different lengths differ.
    absorb(tail ^ ((deal.len() as u64) << 48), &mut halves);
    (u128::from(mix(halves[1], 0x1656_67b1_9e37_79f9)) << 64)
        | u128::from(mix(halves[0], 0xff51_afd7_ed55_8ccd))
}

/// Sort fingerprints (one worker's, or the merged lists before counting): a radix sort with the
/// order of `sort_unstable` ([`fingerprint_sort::sort_fingerprints`]).
fn sort_fingerprints(list: &mut [u128]) {
    fingerprint_sort::sort_fingerprints(list);
}

/// Counts made elsewhere: full mode counts its pairs from the ranks of the decks
/// ([`crate::engine::full_stream`]) and hands them over here, with each block's first and last
/// deal so that [`DealStream::finish`] pairs the seams as for deals fed one by one.
impl DealStream {
    /// Add `pairs` consecutive pairs counted elsewhere: `matches[m]` pairs with m matching slots,
    /// the slot table `slots` (laid out as [`DealStreamTally::slots`]) and, when this stream counts
    /// them, the compositions by rank.
    pub fn add_counted_pairs(
        &mut self,
        pairs: u64,
        matches: &[u64],
        slots: &[u64],
        compositions: Option<&[u64]>,
    ) {
        assert_eq!(
            matches.len(),
            self.matches.len(),
            "matches of another deal size"
        );
        assert_eq!(slots.len(), self.slots.len(), "slot table of another shape");
        self.own_pairs_only = false;
        self.pairs += pairs;
        for (total, count) in self.matches.iter_mut().zip(matches) {
            *total += count;
        }
        for (total, count) in self.slots.iter_mut().zip(slots) {
            *total += count;
        }
        if let (Some(totals), Some(counts)) = (&mut self.compositions, compositions) {
            assert_eq!(
                totals.len(),
                counts.len(),
                "compositions of another deck size"
            );
            for (total, count) in totals.iter_mut().zip(counts) {
                *total += count;
            }
        }
    }

    /// Record block `block` whose `deals` deals were counted elsewhere (its pairs through
    /// [`DealStream::add_counted_pairs`]): its first and last deal, for the seams, and whether it
    /// was complete. Nothing is recorded for an empty block.
    pub fn add_counted_block(
        &mut self,
        block: u64,
        first: &[Card],
        last: &[Card],
        deals: u64,
        complete: bool,
    ) {
        if deals == 0 {
            return;
        }
        self.deals += deals;
        self.seams.push(Seam {
            block,
            first: first.to_vec(),
            last: last.to_vec(),
            complete,
        });
    }

    /// Whether this stream counts the compositions σ_{t+1}∘σ_t⁻¹.
    pub fn counts_compositions(&self) -> bool {
        self.compositions.is_some()
    }
}

/// The position matrix of the deals, read off the slot tables.
impl DealStream {
    /// Whether [`DealStream::slot_card_counts`] will have the counts: whole decks of at most
    /// [`MAX_GROUPS`] cards (one group a card), every pair made from deals added here.
    pub fn has_slot_card_counts(&self) -> bool {
        let n = self.options.deck;
        self.options.dealt == n && self.groups == n && self.own_pairs_only
    }

    /// How many of the deals added here had each card at each slot, `counts[card · n + slot]`
    /// (the layout of [`crate::engine::marginal::MarginalTally::positions`]), read off the slot
    /// tables instead of being counted a second time. The row of card a in slot s's table
    /// counts the consecutive pairs whose first deal has a at s, and every deal opens exactly
    /// one pair except the last of each run of consecutive deals: the last deal of each block
    /// (kept for the seams) and, outside blocks or in a block not yet ended, the last deal
    /// added. So the row sums plus those last deals are the position counts. `None` unless
    /// [`DealStream::has_slot_card_counts`].
    pub fn slot_card_counts(&mut self) -> Option<Vec<u64>> {
        if !self.has_slot_card_counts() {
            return None;
        }
        let n = self.options.deck;
        self.flush();
        let mut counts = vec![0u64; n * n];
        for (slot, table) in self.slots.chunks_exact(n * n).enumerate() {
            for (card, row) in table.chunks_exact(n).enumerate() {
                counts[card * n + slot] = row.iter().sum();
            }
        }
        let open = self.has_previous.then_some(&self.previous);
        for last in self.seams.iter().map(|seam| &seam.last).chain(open) {
            for (slot, &card) in last.iter().enumerate() {
                counts[usize::from(card) * n + slot] += 1;
            }
        }
        Some(counts)
    }
}

#[cfg(test)]
mod slot_card_count_tests {
    use super::*;
    use crate::engine::algorithms::fisher_yates::fisher_yates;
    use crate::engine::random_source::{BlockRng, FastSource};
    use rand_chacha::ChaCha8Rng;

    fn stream(deck: usize, dealt: usize) -> DealStream {
        DealStream::new(DealStreamOptions {
            deck,
            dealt,
            repeats: RepeatSource::Off,
            compositions: false,
        })
    }

    /// Each card's slots counted deal by deal, the plain way.
    fn plain(deck: usize, deals: &[Vec<Card>]) -> Vec<u64> {
        let mut counts = vec![0u64; deck * deck];
        for deal in deals {
            for (slot, &card) in deal.iter().enumerate() {
                counts[usize::from(card) * deck + slot] += 1;
            }
        }
        counts
    }

    #[test]
    fn the_slot_tables_give_the_position_counts_of_every_deal_added() {
        // Blocks of many sizes (none, one deal, more than the pending buffer), fed in batches
        // and one by one, ended complete or not, the last one left open; and a stream without
        // blocks, as `check` feeds it.
        for deck in [2usize, 5, 52, 64] {
            let mut source = FastSource::new(ChaCha8Rng::for_block(11, deck as u64));
            let mut next_deal = || {
                let mut cards: Vec<Card> = (0..deck as Card).collect();
                fisher_yates(&mut cards, &mut source);
                cards
            };
            let mut blocks = stream(deck, deck);
            let mut loose = stream(deck, deck);
            let mut all = Vec::new();
            let sizes = [0usize, 1, 3, PENDING_DEALS + 5, 2, 700, 9];
            for (block, &size) in sizes.iter().enumerate() {
                blocks.start_block(block as u64);
                let deals: Vec<Vec<Card>> = (0..size).map(|_| next_deal()).collect();
                // Alternate: a few one by one, then the rest in batches of 8.
                let (single, batched) = deals.split_at(size.min(block));
                for deal in single {
                    blocks.add(deal);
                    loose.add(deal);
                }
                for batch in batched.chunks(8) {
                    blocks.add_deals(&batch.concat());
                    loose.add_deals(&batch.concat());
                }
                if block + 1 < sizes.len() {
                    blocks.end_block(block % 2 == 0);
                }
                all.extend(deals);
            }
            let expected = plain(deck, &all);
            assert_eq!(blocks.slot_card_counts(), Some(expected.clone()), "{deck}");
            assert_eq!(loose.slot_card_counts(), Some(expected.clone()), "{deck}");
            // Asked again after more deals: still every deal.
            let more = next_deal();
            loose.add(&more);
            all.push(more);
            assert_eq!(loose.slot_card_counts(), Some(plain(deck, &all)), "{deck}");
        }
    }

    #[test]
    fn the_counts_are_refused_where_the_tables_do_not_hold_them() {
        // Part of the deck dealt, grouped slots (over 64 cards), merged or foreign pairs.
        assert_eq!(stream(52, 5).slot_card_counts(), None);
        assert_eq!(stream(65, 65).slot_card_counts(), None);
        let mut merged = stream(5, 5);
        merged.merge(stream(5, 5));
        assert!(!merged.has_slot_card_counts());
        let mut counted = stream(3, 3);
        counted.add_counted_pairs(0, &[0; 4], &[0; 27], None);
        assert_eq!(counted.slot_card_counts(), None);
        assert!(stream(64, 64).has_slot_card_counts());
    }
}

/// A 64-bit multiply–xorshift step.
#[inline(always)]
fn mix(x: u64, multiplier: u64) -> u64 {
    let x = (x ^ (x >> 31)).wrapping_mul(multiplier);
    x ^ (x >> 29)
}

/// Distinct values and pairs of equal values, Σ C(c, 2), over several lists: each is sorted
/// (in place, and left sorted), then they are merged, so that no list is ever copied into
/// another.
fn count_repeats(lists: &mut [Vec<u128>]) -> (u64, u64) {
    if let [first, second] = lists
        && first.len() + second.len() >= PARALLEL_COUNT
        && std::thread::available_parallelism().is_ok_and(|cpus| cpus.get() >= 2)
    {
        return count_two_in_parallel(first, second);
    }
    for list in lists.iter_mut() {
        sort_fingerprints(list);
    }
    match lists {
        [list] => return count_sorted_repeats(list),
        [first, second] => return count_merged_repeats(first, second),
        _ => {}
    }
    let mut heads: Vec<usize> = vec![0; lists.len()];
    let mut distinct = 0u64;
    let mut pairs = 0u64;
    let mut current: Option<(u128, u64)> = None;
    loop {
        // The smallest head (lists are few: one per worker).
        let mut best: Option<(usize, u128)> = None;
        for (i, list) in lists.iter().enumerate() {
            if let Some(&value) = list.get(heads[i])
                && best.is_none_or(|(_, b)| value < b)
            {
                best = Some((i, value));
            }
        }
        let Some((i, value)) = best else { break };
        // Take the run of equal values in this list at once.
        let list = &lists[i];
        let start = heads[i];
        let mut end = start + 1;
        while end < list.len() && list[end] == value {
            end += 1;
        }
        heads[i] = end;
        let run = (end - start) as u64;
        current = match current {
            Some((v, c)) if v == value => Some((v, c + run)),
            Some((_, c)) => {
                distinct += 1;
                pairs += c * (c - 1) / 2;
                Some((value, run))
            }
            None => Some((value, run)),
        };
    }
    if let Some((_, c)) = current {
        distinct += 1;
        pairs += c * (c - 1) / 2;
    }
    (distinct, pairs)
}

/// Values in two lists from which [`count_repeats`] counts on two threads: the two lists of a
/// two-thread run of 10M deals take about 0.1 s to sort-check and merge on one, while the
/// other core has nothing to do.
const PARALLEL_COUNT: usize = 1 << 20;

/// [`count_repeats`] of two lists on two threads: each list sorted (or found sorted) on its
/// own thread, then the values split at a pivot p, those below p in both lists counted on one
/// thread and the rest on the other. Every value equal to p is in the upper part of both lists,
/// so no value is counted in both parts, and the counts add up.
fn count_two_in_parallel(first: &mut [u128], second: &mut [u128]) -> (u64, u64) {
    std::thread::scope(|scope| {
        scope.spawn(|| sort_fingerprints(first));
        sort_fingerprints(second);
    });
    let pivot = match (first.get(first.len() / 2), second.get(second.len() / 2)) {
        (Some(&p), _) | (None, Some(&p)) => p,
        (None, None) => return (0, 0),
    };
    let split_first = first.partition_point(|&value| value < pivot);
    let split_second = second.partition_point(|&value| value < pivot);
    let (below, (distinct, pairs)) = std::thread::scope(|scope| {
        let below =
            scope.spawn(|| count_merged_repeats(&first[..split_first], &second[..split_second]));
        let above = count_merged_repeats(&first[split_first..], &second[split_second..]);
        (below.join().expect("the count of the lower values"), above)
    });
    (below.0 + distinct, below.1 + pairs)
}

/// Distinct values and pairs of equal values of a sorted stream, fed value by value.
struct RepeatCounter {
    distinct: u64,
    pairs: u64,
    /// How many values before the last one equal it (each makes a pair with the next equal).
    run: u64,
    last: u128,
}

impl RepeatCounter {
    /// A counter that has seen `first`.
    fn new(first: u128) -> Self {
        RepeatCounter {
            distinct: 1,
            pairs: 0,
            run: 0,
            last: first,
        }
    }

    /// Count `value`, not below the values before it.
    #[inline(always)]
    fn push(&mut self, value: u128) {
        if value == self.last {
            self.run += 1;
            self.pairs += self.run;
        } else {
            self.run = 0;
            self.distinct += 1;
            self.last = value;
        }
    }

    fn counts(&self) -> (u64, u64) {
        (self.distinct, self.pairs)
    }
}

/// [`count_repeats`] of one sorted list: one scan, each value compared with the one before.
fn count_sorted_repeats(list: &[u128]) -> (u64, u64) {
    let Some((&first, rest)) = list.split_first() else {
        return (0, 0);
    };
    let mut counter = RepeatCounter::new(first);
    for &value in rest {
        counter.push(value);
    }
    counter.counts()
}

/// [`count_repeats`] of two sorted lists (a two-thread run's): their merge, fed to a
/// [`RepeatCounter`] as it goes. The step takes the smaller head with a conditional move rather
/// than a branch (which list holds the next hash output is a coin toss, so a branch is
/// mispredicted half the time): 3 ns a value where the general merge took 8.5 (BENCHMARKS.md).
fn count_merged_repeats(a: &[u128], b: &[u128]) -> (u64, u64) {
    let (mut i, mut j) = (0, 0);
    let mut counter = match (a.first(), b.first()) {
        (None, _) => return count_sorted_repeats(b),
        (_, None) => return count_sorted_repeats(a),
        (Some(&x), Some(&y)) if x <= y => {
            i = 1;
            RepeatCounter::new(x)
        }
        (_, Some(&y)) => {
            j = 1;
            RepeatCounter::new(y)
        }
    };
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        let from_a = x <= y;
        counter.push(if from_a { x } else { y });
        i += usize::from(from_a);
        j += usize::from(!from_a);
    }
    for &value in a[i..].iter().chain(&b[j..]) {
        counter.push(value);
    }
    counter.counts()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(deck: usize, dealt: usize) -> DealStreamOptions {
        DealStreamOptions {
            deck,
            dealt,
            repeats: RepeatSource::Fingerprints { limit: 1000 },
            compositions: true,
        }
    }

    #[test]
    fn consecutive_deals_are_paired_and_counted() {
        let mut stream = DealStream::new(options(3, 3));
        for deal in [[0, 1, 2], [0, 2, 1], [0, 1, 2], [0, 1, 2]] {
            stream.add(&deal);
        }
        let tally = stream.finish();
        assert_eq!(tally.deals, 4);
        assert_eq!(tally.pairs, 3);
        // Matches: (012, 021) → 1, (021, 012) → 1, (012, 012) → 3.
        assert_eq!(tally.matches, vec![0, 2, 0, 1]);
        // Slot 0 always shows card 0 → 0.
        assert_eq!(tally.slots[0], 3);
        // [0,1,2] three times: C(3,2) = 3 pairs; 2 distinct.
        assert_eq!(
            tally.repeats,
            Repeats::Counted {
                distinct: 2,
                repeated_pairs: 3
            }
        );
        // Compositions: the swap of cards 1 and 2 twice (rank 1), the identity once.
        let compositions = tally.compositions.unwrap();
        assert_eq!(compositions[0], 1);
        assert_eq!(compositions[1], 2);
    }

    #[test]
    fn blocks_in_any_order_give_the_pairs_of_the_whole_stream() {
        let deals: Vec<[Card; 4]> = (0..12u16)
            .map(|i| {
                let mut d = [0, 1, 2, 3];
                d.rotate_left((i % 4) as usize);
                if i % 3 == 0 {
                    d.swap(0, 1);
                }
                d
            })
            .collect();
        let mut whole = DealStream::new(options(4, 4));
        for deal in &deals {
            whole.add(deal);
        }
        // Blocks of 4 deals taken by two workers in the order 2, 0 / 1.
        let mut first = DealStream::new(options(4, 4));
        let mut second = DealStream::new(options(4, 4));
        for (worker, block) in [(0, 2u64), (0, 0), (1, 1)] {
            let stream = if worker == 0 { &mut first } else { &mut second };
            stream.start_block(block);
            for deal in &deals[block as usize * 4..block as usize * 4 + 4] {
                stream.add(deal);
            }
            stream.end_block(true);
        }
        first.merge(second);
        let (mut blocked, mut whole) = (first.finish(), whole.finish());
        // What is kept for a later merge differs (block ends, one fingerprint list per worker).
        for tally in [&mut blocked, &mut whole] {
            tally.ends.clear();
            tally.fingerprints.clear();
        }
        assert_eq!(blocked, whole);
    }

    #[test]
    fn past_the_limit_the_fingerprints_are_dropped_and_the_reason_kept() {
        let mut stream = DealStream::new(DealStreamOptions {
            repeats: RepeatSource::Fingerprints { limit: 2 },
            ..options(3, 3)
        });
        for _ in 0..3 {
            stream.add(&[0, 1, 2]);
        }
        assert_eq!(
            stream.finish().repeats,
            Repeats::Skipped(RepeatsSkipped::Memory { limit: 2, deals: 3 })
        );
    }

    #[test]
    fn large_decks_are_hashed_and_distinct_decks_stay_distinct() {
        let mut stream = DealStream::new(options(52, 52));
        let identity: Vec<Card> = (0..52).collect();
        let mut reversed = identity.clone();
        reversed.reverse();
        // 104 distinct decks (the rotations of two orders), then the last one again.
        for base in [&identity, &reversed] {
            for shift in 0..52 {
                let mut deal = base.clone();
                deal.rotate_left(shift);
                stream.add(&deal);
            }
        }
        let mut last = reversed.clone();
        last.rotate_left(51);
        stream.add(&last);
        let tally = stream.finish();
        assert_eq!(
            tally.repeats,
            Repeats::Counted {
                distinct: 104,
                repeated_pairs: 1
            }
        );
        assert!(tally.compositions.is_none());
        // 52 cards: one group per card.
        assert_eq!(tally.groups, 52);
        assert_eq!(tally.slots.len(), 52 * 52 * 52);
    }

    #[test]
    fn slot_counts_pass_the_16_bit_range_without_overflowing() {
        // 70,000 identical deals: 69,999 pairs all in the cells (s, s, s), past u16::MAX; fed
        // one by one, and in batches of 7 (compositions off: with them `add_deals` takes the
        // deals one by one).
        for batched in [false, true] {
            let mut stream = DealStream::new(DealStreamOptions {
                repeats: RepeatSource::Off,
                compositions: !batched,
                ..options(3, 3)
            });
            if batched {
                let batch = [0, 1, 2].repeat(7);
                for _ in 0..10_000 {
                    stream.add_deals(&batch);
                }
            } else {
                for _ in 0..70_000 {
                    stream.add(&[0, 1, 2]);
                }
            }
            let tally = stream.finish();
            for slot in 0..3 {
                assert_eq!(tally.slots[(slot * 3 + slot) * 3 + slot], 69_999);
            }
            assert_eq!(tally.matches[3], 69_999);
            assert_eq!(tally.repeats, Repeats::Skipped(RepeatsSkipped::Off));
        }
    }

    #[test]
    fn repeats_are_counted_across_lists() {
        let mut lists = vec![vec![5, 1, 5], vec![5, 2], vec![], vec![2, 9]];
        // 5 three times (3 pairs), 2 twice (1 pair), 1 and 9 once: 4 distinct.
        assert_eq!(count_repeats(&mut lists), (4, 4));
    }

    #[test]
    fn repeats_of_one_list_or_of_its_pieces_are_those_of_a_plain_count() {
        // 60,000 values drawn from 20,000 (SplitMix64, Steele, Lea and Flood 2014), high bits
        // set so that the radix sort splits them: many repeats, runs of every small length.
        let mut state = 5u64;
        let mut next = || crate::engine::random_source::splitmix64(&mut state);
        let values: Vec<u128> = (0..60_000)
            .map(|_| {
                u128::from(next() % 20_000).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)
            })
            .collect();
        let mut plain = std::collections::HashMap::<u128, u64>::new();
        for &value in &values {
            *plain.entry(value).or_default() += 1;
        }
        let expected = (
            plain.len() as u64,
            plain.values().map(|&c| c * (c - 1) / 2).sum::<u64>(),
        );
        assert_eq!(count_repeats(&mut [values.clone()]), expected);
        // Two lists (merged two at a time), four (the general merge), uneven and empty ones.
        for piece in [30_000, 17_000, 59_990] {
            let mut pieces: Vec<Vec<u128>> = values.chunks(piece).map(<[u128]>::to_vec).collect();
            assert_eq!(count_repeats(&mut pieces), expected, "pieces of {piece}");
            pieces.push(Vec::new());
            pieces.rotate_right(1);
            assert_eq!(count_repeats(&mut pieces), expected, "and an empty list");
        }
        let mut with_empty = [Vec::new(), values.clone()];
        assert_eq!(count_repeats(&mut with_empty), expected);
        let mut with_empty = [values.clone(), Vec::new()];
        assert_eq!(count_repeats(&mut with_empty), expected);
        assert_eq!(count_repeats(&mut []), (0, 0));
        assert_eq!(count_repeats(&mut [Vec::new()]), (0, 0));
        assert_eq!(count_repeats(&mut [Vec::new(), Vec::new()]), (0, 0));
        assert_eq!(count_repeats(&mut [vec![3; 1000]]), (1, 1000 * 999 / 2));
        // Two lists counted on two threads (above PARALLEL_COUNT values): split at a pivot, the
        // values equal to it all above, whatever the runs around it; uneven, empty, all equal.
        for piece in [30_000, 17_000, 43_000, 59_999, 60_000] {
            let (mut a, mut b) = (values[..piece].to_vec(), values[piece..].to_vec());
            assert_eq!(
                count_two_in_parallel(&mut a, &mut b),
                expected,
                "split at {piece}"
            );
            assert_eq!(
                count_two_in_parallel(&mut b, &mut a),
                expected,
                "the other way"
            );
        }
        assert_eq!(
            count_two_in_parallel(&mut vec![3; 1000], &mut vec![3; 500]),
            (1, 1500 * 1499 / 2)
        );
        assert_eq!(
            count_two_in_parallel(&mut [5, 3, 3], &mut [3, 9, 3]),
            (3, 6)
        );
        assert_eq!(count_two_in_parallel(&mut [], &mut []), (0, 0));
        // Equal values across the two lists, runs on both sides, the first value in either.
        let mut two = [vec![1, 4, 4, 9], vec![0, 4, 9, 9, 9]];
        // 0, 1 once; 4 three times (3 pairs); 9 four times (6 pairs).
        assert_eq!(count_repeats(&mut two), (4, 9));
        let mut two = [vec![2, 2], vec![5]];
        assert_eq!(count_repeats(&mut two), (2, 1));
    }

    /// `hash_deal` as its documentation defines it, written plainly: the words, each offset by
    /// its place, folded products summed, then the avalanche.
    fn hash_by_definition(deal: &[Card]) -> u128 {
        const PLACE: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut words: Vec<u64> = deal
            .chunks_exact(4)
            .map(|c| (0..4).map(|i| u64::from(c[i]) << (16 * i)).sum())
            .collect();
        let tail = deal.chunks_exact(4).remainder();
        let tail = tail
            .iter()
            .fold(0u64, |word, &card| (word << 16) | u64::from(card));
        words.push(tail ^ ((deal.len() as u64) << 48));
        let mut halves = [0u64; 2];
        for (place, word) in words.iter().enumerate() {
            let x = word.wrapping_add((place as u64 + 1).wrapping_mul(PLACE));
            for (half, m) in halves.iter_mut().zip(HASH_MULTIPLIERS) {
                let product = u128::from(x ^ m) * u128::from(m);
                *half = half.wrapping_add((product >> 64) as u64 ^ product as u64);
            }
        }
        (u128::from(mix(halves[1], 0x1656_67b1_9e37_79f9)) << 64)
            | u128::from(mix(halves[0], 0xff51_afd7_ed55_8ccd))
    }

    #[test]
    fn deal_hashes_follow_their_definition_at_every_length() {
        // Lengths 1..=70 (every remainder of 4, one to 17 words), cards up to 999, 40 deals a
        // length, from a fixed SplitMix64 stream (Steele, Lea and Flood 2014).
        let mut state = 11u64;
        let mut next = || crate::engine::random_source::splitmix64(&mut state);
        for length in 1..=70 {
            for _ in 0..40 {
                let deal: Vec<Card> = (0..length).map(|_| (next() % 1000) as Card).collect();
                assert_eq!(hash_deal(&deal), hash_by_definition(&deal), "{deal:?}");
            }
        }
    }

    #[test]
    fn deal_hashes_keep_their_values() {
        // Fingerprints are stored in tally files and pooled across shards: the values must not
        // change. Computed independently (Python, from the definition in `hash_deal`'s
        // documentation): whole decks in order and reversed (no tail word), one card, 7 cards
        // (a tail of 3) with large card numbers.
        let identity: Vec<Card> = (0..52).collect();
        let reversed: Vec<Card> = (0..52).rev().collect();
        for (deal, expected) in [
            (identity, 0x97c3_93e4_cc32_74dd_1902_e37a_edd0_91fb_u128),
            (reversed, 0x4833_4441_5012_9a93_766c_525f_c64c_f0d2),
            (vec![7], 0x3626_e617_980d_2577_6038_ca5d_7795_7f79),
            (
                vec![999, 0, 3, 500, 1, 2, 998],
                0x4450_0718_cd67_c206_14a7_91d2_3e67_04e7,
            ),
        ] {
            assert_eq!(hash_deal(&deal), expected, "{deal:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Persistence: what a saved tally keeps of a stream, and the merge of several parts of one
// stream (the shards of a run, or the check tallies of several inputs).
//
// `simulate_blocks_deals_from` and the `check` reader hand over a finished [`DealStreamTally`];
// it keeps, besides the counts, the ends of its runs of consecutive blocks
// ([`DealStreamTally::ends`]) and the sorted fingerprints ([`DealStreamTally::fingerprints`]),
// so that [`DealStreamMerger`] can pair the seams between shards and count repeats across
// parts exactly as one accumulator of the whole stream would.
// ---------------------------------------------------------------------------------------------

/// The ends of a run of consecutive blocks of a stream whose inner seams are paired: the first
/// deal of its first block and the last deal of its last block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamEnd {
    /// The first block of the run.
    pub first_block: u64,
    /// Its first deal.
    pub first: Vec<Card>,
    /// The last block of the run.
    pub last_block: u64,
    /// Its last deal.
    pub last: Vec<Card>,
    /// Whether the last block was made whole (else its last deal is not the block's last, and
    /// it pairs with nothing after it).
    pub complete: bool,
}

/// The runs of consecutive blocks of `seams` (sorted by block), paired as
/// [`DealStream::finish`] pairs them: a seam continues the run when the block before was
/// complete and is the block just before.
fn stream_ends(seams: &[Seam]) -> Vec<StreamEnd> {
    let mut ends: Vec<StreamEnd> = Vec::new();
    for seam in seams {
        match ends.last_mut() {
            Some(end) if end.complete && seam.block == end.last_block + 1 => {
                end.last_block = seam.block;
                end.last.clone_from(&seam.last);
                end.complete = seam.complete;
            }
            _ => ends.push(StreamEnd {
                first_block: seam.block,
                first: seam.first.clone(),
                last_block: seam.block,
                last: seam.last.clone(),
                complete: seam.complete,
            }),
        }
    }
    ends
}

/// Adds the [`DealStreamTally`]s of several parts of one stream — the shards of a run, the
/// tallies of several `check` inputs — into the tally one accumulator of the whole stream
/// would give: counts added, fingerprints pooled (repeats counted across parts), and the seams
/// between the parts' runs of blocks paired in block order. Parts without blocks (`check`)
/// have no ends, so nothing pairs them with each other: each input's stream stands alone.
/// Memory is one part's counters plus the fingerprints pooled, which the fingerprint limit
/// bounds as in a single run.
#[derive(Debug)]
pub struct DealStreamMerger {
    stream: DealStream,
    ends: Vec<StreamEnd>,
}

impl DealStreamMerger {
    /// An empty merge of parts of a stream kept with `options` (the options the single run
    /// would use).
    pub fn new(options: DealStreamOptions) -> Self {
        DealStreamMerger {
            stream: DealStream::new(options),
            ends: Vec::new(),
        }
    }

    /// How many more fingerprints the pool may take before the repeats are skipped for
    /// memory (0 when they are not counted from fingerprints).
    pub fn fingerprint_room(&self) -> u64 {
        match (self.stream.options.repeats, self.stream.dropped) {
            (RepeatSource::Fingerprints { limit }, None) => limit.saturating_sub(self.stream.kept),
            _ => 0,
        }
    }

    /// Add one part; an error says how its shape differs from the stream's.
    pub fn add(&mut self, part: DealStreamTally) -> Result<(), String> {
        let stream = &mut self.stream;
        let options = stream.options;
        if part.deck != options.deck
            || part.dealt != options.dealt
            || part.groups != stream.groups
            || part.matches.len() != stream.matches.len()
            || part.slots.len() != stream.slots.len()
            || part.compositions.as_ref().map(Vec::len)
                != stream.compositions.as_ref().map(Vec::len)
            || part
                .ends
                .iter()
                .any(|end| end.first.len() != options.dealt || end.last.len() != options.dealt)
        {
            return Err(format!(
                "its deal-stream counts are not those of deals of {} cards out of {}",
                options.dealt, options.deck
            ));
        }
        if part.pairs > part.deals {
            return Err(format!(
                "{} pairs of deals out of {} deals",
                part.pairs, part.deals
            ));
        }
        stream.deals += part.deals;
        stream.pairs += part.pairs;
        for (total, count) in stream.matches.iter_mut().zip(&part.matches) {
            *total += count;
        }
        for (total, count) in stream.slots.iter_mut().zip(&part.slots) {
            *total += count;
        }
        if let (Some(totals), Some(counts)) = (&mut stream.compositions, &part.compositions) {
            for (total, count) in totals.iter_mut().zip(counts) {
                *total += count;
            }
        }
        match (part.repeats, options.repeats) {
            (Repeats::Skipped(RepeatsSkipped::Memory { limit, .. }), repeats) => {
                // The whole stream's limit when the merge counts fingerprints (a part read
                // without room for its fingerprints says how much room was left).
                let limit = match repeats {
                    RepeatSource::Fingerprints { limit } => limit,
                    _ => limit,
                };
                stream.fingerprints = vec![Vec::new()];
                stream.dropped = stream
                    .dropped
                    .or(Some(RepeatsSkipped::Memory { limit, deals: 0 }));
            }
            (Repeats::Counted { .. }, RepeatSource::Fingerprints { limit })
                if stream.dropped.is_none() =>
            {
                let count: u64 = part.fingerprints.iter().map(|l| l.len() as u64).sum();
                if stream.kept + count > limit {
                    stream.fingerprints = vec![Vec::new()];
                    stream.dropped = Some(RepeatsSkipped::Memory { limit, deals: 0 });
                } else {
                    stream.kept += count;
                    stream.fingerprints.extend(part.fingerprints);
                }
            }
            _ => {}
        }
        self.ends.extend(part.ends);
        Ok(())
    }

    /// Pair the seams between the parts, count the repeated deals, and hand over the counts.
    pub fn finish(self) -> DealStreamTally {
        let DealStreamMerger {
            mut stream,
            mut ends,
        } = self;
        ends.sort_by_key(|end| end.first_block);
        let mut joined: Vec<StreamEnd> = Vec::new();
        for end in ends {
            match joined.last_mut() {
                Some(before) if before.complete && end.first_block == before.last_block + 1 => {
                    stream.remember(&before.last);
                    stream.pair(&before.last, &end.first);
                    before.last_block = end.last_block;
                    before.last = end.last;
                    before.complete = end.complete;
                }
                _ => joined.push(end),
            }
        }
        let mut tally = stream.finish();
        tally.ends = joined;
        tally
    }
}

#[cfg(test)]
mod persistence_tests {
    use super::*;

    fn options(repeats: RepeatSource) -> DealStreamOptions {
        DealStreamOptions {
            deck: 4,
            dealt: 4,
            repeats,
            compositions: true,
        }
    }

    /// Deals of 4 cards that repeat now and then.
    fn deals(count: usize) -> Vec<[Card; 4]> {
        (0..count)
            .map(|i| {
                let mut deal = [0, 1, 2, 3];
                deal.rotate_left(i % 4);
                if i % 3 == 0 {
                    deal.swap(1, 2);
                }
                if i % 5 == 0 {
                    deal.swap(0, 3);
                }
                deal
            })
            .collect()
    }

    /// The tally of the blocks `blocks` (of 4 deals each) of `all`, as one shard computes it.
    fn shard(
        all: &[[Card; 4]],
        blocks: std::ops::Range<u64>,
        repeats: RepeatSource,
    ) -> DealStreamTally {
        let mut stream = DealStream::new(options(repeats));
        for block in blocks {
            stream.start_block(block);
            let at = block as usize * 4;
            for deal in &all[at..(at + 4).min(all.len())] {
                stream.add(deal);
            }
            stream.end_block(true);
        }
        stream.finish()
    }

    #[test]
    fn shards_merged_in_any_order_give_the_tally_of_the_whole_run() {
        let all = deals(40);
        for repeats in [
            RepeatSource::Fingerprints { limit: 1000 },
            RepeatSource::FullTally,
        ] {
            let mut whole = shard(&all, 0..10, repeats);
            let mut merger = DealStreamMerger::new(options(repeats));
            for blocks in [6..10, 0..3, 3..6] {
                merger.add(shard(&all, blocks, repeats)).unwrap();
            }
            let mut merged = merger.finish();
            assert_eq!(merged.ends, whole.ends);
            assert_eq!(merged.pairs, 39);
            whole.fingerprints.clear();
            merged.fingerprints.clear();
            assert_eq!(merged, whole);
        }
    }

    #[test]
    fn a_missing_shard_leaves_its_seams_unpaired() {
        let all = deals(40);
        let repeats = RepeatSource::Off;
        let mut merger = DealStreamMerger::new(options(repeats));
        merger.add(shard(&all, 0..3, repeats)).unwrap();
        merger.add(shard(&all, 6..10, repeats)).unwrap();
        let merged = merger.finish();
        // 12 + 16 deals in two runs of blocks: 11 + 15 pairs.
        assert_eq!(merged.deals, 28);
        assert_eq!(merged.pairs, 26);
        assert_eq!(merged.ends.len(), 2);
        assert_eq!(merged.ends[1].first_block, 6);
    }

    #[test]
    fn parts_without_blocks_are_not_paired_and_their_repeats_are_pooled() {
        let repeats = RepeatSource::Fingerprints { limit: 1000 };
        let day = |deals: &[[Card; 4]]| {
            let mut stream = DealStream::new(options(repeats));
            for deal in deals {
                stream.add(deal);
            }
            stream.finish()
        };
        let mut merger = DealStreamMerger::new(options(repeats));
        merger.add(day(&[[0, 1, 2, 3], [1, 0, 2, 3]])).unwrap();
        merger
            .add(day(&[[1, 0, 2, 3], [3, 2, 1, 0], [0, 1, 2, 3]]))
            .unwrap();
        let merged = merger.finish();
        assert_eq!(merged.deals, 5);
        assert_eq!(merged.pairs, 1 + 2);
        // Two decks seen twice each, across the parts: 2 pairs, 3 distinct.
        assert_eq!(
            merged.repeats,
            Repeats::Counted {
                distinct: 3,
                repeated_pairs: 2
            }
        );
    }

    #[test]
    fn fingerprints_past_the_limit_in_all_the_parts_skip_the_repeats() {
        let all = deals(40);
        let repeats = RepeatSource::Fingerprints { limit: 30 };
        let mut merger = DealStreamMerger::new(options(repeats));
        merger.add(shard(&all, 0..5, repeats)).unwrap();
        merger.add(shard(&all, 5..10, repeats)).unwrap();
        assert_eq!(
            merger.finish().repeats,
            Repeats::Skipped(RepeatsSkipped::Memory {
                limit: 30,
                deals: 40
            })
        );
    }

    #[test]
    fn a_part_of_another_shape_is_refused() {
        let mut merger = DealStreamMerger::new(options(RepeatSource::Off));
        let other = DealStream::new(DealStreamOptions {
            deck: 5,
            dealt: 5,
            repeats: RepeatSource::Off,
            compositions: true,
        })
        .finish();
        assert!(merger.add(other).is_err());
    }

    /// The counts of a stream of deals computed the plain way: every consecutive pair compared
    /// slot by slot, every deal kept whole in an ordered map.
    fn plain_counts(deck: usize, deals: &[Vec<Card>]) -> (Vec<u64>, Vec<u64>, u64, u64) {
        let dealt = deals[0].len();
        let groups = deck.min(MAX_GROUPS);
        let group = |card: Card| usize::from(card) * groups / deck;
        let mut matches = vec![0u64; dealt + 1];
        let mut slots = vec![0u64; dealt * groups * groups];
        for pair in deals.windows(2) {
            let mut same = 0;
            for slot in 0..dealt {
                let (a, b) = (pair[0][slot], pair[1][slot]);
                same += usize::from(a == b);
                slots[(slot * groups + group(a)) * groups + group(b)] += 1;
            }
            matches[same] += 1;
        }
        let mut seen = std::collections::BTreeMap::<&[Card], u64>::new();
        for deal in deals {
            *seen.entry(deal.as_slice()).or_default() += 1;
        }
        let pairs = seen.values().map(|&c| c * (c - 1) / 2).sum();
        (matches, slots, seen.len() as u64, pairs)
    }

    /// `count` deals of `dealt` cards out of `deck`: the first cards of Fisher–Yates shuffles
    /// of a fixed ChaCha8 stream, every seventh deal a repeat of an earlier one.
    fn shuffled_deals(deck: usize, dealt: usize, count: usize) -> Vec<Vec<Card>> {
        use crate::engine::algorithms::fisher_yates::fisher_yates;
        use crate::engine::random_source::{BlockRng, FastSource};
        use rand_chacha::ChaCha8Rng;
        let mut source = FastSource::new(ChaCha8Rng::for_block(3, deck as u64));
        let mut deals: Vec<Vec<Card>> = Vec::with_capacity(count);
        for i in 0..count {
            if i % 7 == 6 {
                deals.push(deals[i / 2].clone());
                continue;
            }
            let mut cards: Vec<Card> = (0..deck as Card).collect();
            fisher_yates(&mut cards, &mut source);
            cards.truncate(dealt);
            deals.push(cards);
        }
        deals
    }

    #[test]
    fn the_counts_are_those_of_a_plain_count_of_the_same_deals() {
        // Whole 52-card decks (hashed fingerprints), 100-card decks (grouped slots), 5 cards
        // dealt out of 52 (packed fingerprints); more deals than the pending buffer holds, in
        // blocks taken by two workers out of order.
        // Fed one by one, or in batches of 1 to 9 deals through `add_deals`, some single deals
        // still through `add` between them.
        for (deck, dealt, batched) in [
            (52, 52, false),
            (100, 100, false),
            (52, 5, false),
            (52, 52, true),
            (100, 100, true),
            (52, 5, true),
        ] {
            let deals = shuffled_deals(deck, dealt, 5 * PENDING_DEALS + 37);
            let (matches, slots, distinct, repeated_pairs) = plain_counts(deck, &deals);
            let options = DealStreamOptions {
                deck,
                dealt,
                repeats: RepeatSource::Fingerprints { limit: 1 << 20 },
                compositions: false,
            };
            let block = 300;
            let mut workers = [DealStream::new(options), DealStream::new(options)];
            let blocks = deals.len().div_ceil(block);
            for b in (0..blocks).rev() {
                let worker = &mut workers[b % 2];
                worker.start_block(b as u64);
                let mine = &deals[b * block..((b + 1) * block).min(deals.len())];
                if batched {
                    let mut at = 0;
                    while at < mine.len() {
                        let size = (1 + (at + b) % 9).min(mine.len() - at);
                        if size == 4 {
                            worker.add(&mine[at]);
                            at += 1;
                            continue;
                        }
                        worker.add_deals(&mine[at..at + size].concat());
                        at += size;
                    }
                } else {
                    for deal in mine {
                        worker.add(deal);
                    }
                }
                worker.end_block(true);
            }
            let [mut first, second] = workers;
            first.sort_fingerprints();
            first.merge(second);
            let tally = first.finish();
            assert_eq!(tally.deals, deals.len() as u64, "{deck}/{dealt}");
            assert_eq!(tally.pairs, deals.len() as u64 - 1, "{deck}/{dealt}");
            assert_eq!(tally.matches, matches, "{deck}/{dealt}");
            assert_eq!(tally.slots, slots, "{deck}/{dealt}");
            assert_eq!(
                tally.repeats,
                Repeats::Counted {
                    distinct,
                    repeated_pairs
                },
                "{deck}/{dealt}"
            );
        }
    }

    #[test]
    fn structured_decks_get_distinct_hashes() {
        // Every transposition of the 52-card identity, every rotation, and their reversals:
        // 2·(1326 + 52) decks, all distinct, so all fingerprints must differ.
        let identity: Vec<Card> = (0..52).collect();
        let mut decks = Vec::new();
        for i in 0..52 {
            for j in i + 1..52 {
                let mut deck = identity.clone();
                deck.swap(i, j);
                decks.push(deck);
            }
            let mut deck = identity.clone();
            deck.rotate_left(i);
            decks.push(deck);
        }
        let reversed: Vec<Vec<Card>> = decks
            .iter()
            .map(|deck| deck.iter().rev().copied().collect())
            .collect();
        decks.extend(reversed);
        let mut hashes: Vec<u128> = decks.iter().map(|deck| hash_deal(deck)).collect();
        hashes.sort_unstable();
        hashes.dedup();
        // The rotation by 0 is the identity, which is no transposition: all distinct.
        assert_eq!(hashes.len(), decks.len());
    }
}
