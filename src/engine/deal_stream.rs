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
use crate::engine::permutation::{factorial, rank};

/// Bytes kept per deal for the repeated-deals test: one 128-bit fingerprint.
pub const BYTES_PER_DEAL: u64 = 16;

/// Most card groups in a slot table: decks of up to 64 cards get one group per card; larger
/// decks group consecutive cards (card c in group c·G/n), so that memory stays K·64² counters.
pub const MAX_GROUPS: usize = 64;

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
    /// `slots` (the tables of 52 slots then fit in a 512 KiB cache), added into `slots` before
    /// any could overflow.
    narrow: Vec<u16>,
    /// Pairs counted in `narrow` since it was last emptied.
    in_narrow: u32,
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
        let bits = usize::BITS - (deck - 1).max(1).leading_zeros();
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
            narrow: vec![0; dealt * groups * groups],
            in_narrow: 0,
            compositions: compositions.then(|| vec![0; factorial(deck) as usize]),
            previous: vec![0; dealt],
            has_previous: false,
            slot_of: vec![0; if compositions { deck } else { 0 }],
            composition: vec![0; if compositions { deck } else { 0 }],
            block: None,
            seams: Vec::new(),
            packed_bits: ((bits as usize) * dealt <= 128).then_some(bits),
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
        let g = self.groups;
        let mut same = 0;
        if g == self.options.deck {
            // One group per card (decks of up to MAX_GROUPS cards): no look-up.
            for (row, (&a, &b)) in self
                .narrow
                .chunks_exact_mut(g * g)
                .zip(previous.iter().zip(next))
            {
                same += usize::from(a == b);
                row[usize::from(a) * g + usize::from(b)] += 1;
            }
        } else {
            for (slot, (&a, &b)) in previous.iter().zip(next).enumerate() {
                same += usize::from(a == b);
                let a = usize::from(self.group_of[usize::from(a)]);
                let b = usize::from(self.group_of[usize::from(b)]);
                self.narrow[(slot * g + a) * g + b] += 1;
            }
        }
        self.matches[same] += 1;
        if let Some(counts) = &mut self.compositions {
            // π(c) = the card that took c's slot: its fixed points are the matching slots.
            for (card, target) in self.composition.iter_mut().enumerate() {
                *target = next[self.slot_of[card]];
            }
            counts[rank(&self.composition)] += 1;
        }
        self.pairs += 1;
    }

    /// The fingerprint of a deal: the deal itself, packed, when K·⌈log2 n⌉ ≤ 128 bits (exact);
    /// otherwise two independent 64-bit multiply–xorshift hashes of its cards (a false repeat
    /// among N distinct deals has probability about N²/2^129).
    #[inline]
    fn fingerprint(&self, deal: &[Card]) -> u128 {
        if let Some(bits) = self.packed_bits {
            return deal
                .iter()
                .fold(0u128, |acc, &c| (acc << bits) | u128::from(c));
        }
        let mut low: u64 = 0x243f_6a88_85a3_08d3;
        let mut high: u64 = 0x1319_8a2e_0370_7344;
        for chunk in deal.chunks(4) {
            let word = chunk
                .iter()
                .fold(0u64, |acc, &c| (acc << 16) | u64::from(c));
            low = mix(low ^ word, 0x9e37_79b9_7f4a_7c15);
            high = mix(high.wrapping_add(word), 0xc2b2_ae3d_27d4_eb4f);
        }
        (u128::from(mix(high, 0x1656_67b1_9e37_79f9)) << 64)
            | u128::from(mix(low, 0xff51_afd7_ed55_8ccd))
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

    /// Add the 16-bit slot counts into the 64-bit ones.
    fn flush(&mut self) {
        for (total, count) in self.slots.iter_mut().zip(self.narrow.iter_mut()) {
            *total += u64::from(std::mem::take(count));
        }
        self.in_narrow = 0;
    }

    /// Add another worker's accumulator of the same stream.
    pub fn merge(&mut self, mut other: DealStream) {
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
                let (distinct, repeated_pairs) =
                    count_repeats(std::mem::take(&mut self.fingerprints));
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
        }
    }
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

/// A 64-bit multiply–xorshift step.
#[inline(always)]
fn mix(x: u64, multiplier: u64) -> u64 {
    let x = (x ^ (x >> 31)).wrapping_mul(multiplier);
    x ^ (x >> 29)
}

/// Distinct values and pairs of equal values, Σ C(c, 2), over several lists: each is sorted,
/// then they are merged, so that no list is ever copied into another.
fn count_repeats(mut lists: Vec<Vec<u128>>) -> (u64, u64) {
    for list in &mut lists {
        list.sort_unstable();
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
        assert_eq!(first.finish(), whole.finish());
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
        // 70,000 identical deals: 69,999 pairs all in the cells (s, s, s), past u16::MAX.
        let mut stream = DealStream::new(DealStreamOptions {
            repeats: RepeatSource::Off,
            ..options(3, 3)
        });
        for _ in 0..70_000 {
            stream.add(&[0, 1, 2]);
        }
        let tally = stream.finish();
        for slot in 0..3 {
            assert_eq!(tally.slots[(slot * 3 + slot) * 3 + slot], 69_999);
        }
        assert_eq!(tally.matches[3], 69_999);
        assert_eq!(tally.repeats, Repeats::Skipped(RepeatsSkipped::Off));
    }

    #[test]
    fn repeats_are_counted_across_lists() {
        let lists = vec![vec![5, 1, 5], vec![5, 2], vec![], vec![2, 9]];
        // 5 three times (3 pairs), 2 twice (1 pair), 1 and 9 once: 4 distinct.
        assert_eq!(count_repeats(lists), (4, 4));
    }
}
