//! The deal-stream accumulator: what the repeated-deals and serial tests of
//! [`crate::analysis::deal_stream`] need from a stream of deals, kept as the deals go by.
//!
//! Per deal (K cards out of n, K = n for a whole deck) it keeps a 128-bit fingerprint for the
//! repeated-deals test ([`BYTES_PER_DEAL`] bytes a deal, at most a cap of them: beyond it the
//! fingerprints are sampled by value, 1 in 2^s of the deck space, see [`repeats`]); and per
//! consecutive pair of deals the number of matching slots, the per-slot table of (card group at
//! the slot in deal t, card group in deal t+1), for whole decks in full mode the rank of
//! the composition σ_{t+1}∘σ_t⁻¹, and for whole decks beyond full mode the Mallows kernel of the
//! pair ([`kernel`]). Memory besides the fingerprints is K·G² + (K + 1) counters,
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
use crate::engine::byte_columns;
use crate::engine::permutation::{composition_into, factorial, rank};

mod hash_lanes;
pub mod kernel;
mod merge;
mod repeats;

use hash_lanes::hash_deals;
use kernel::{KernelCounter, KernelSums, counts_kernel};
use merge::stream_ends;
pub use merge::{DealStreamMerger, FingerprintBudget, StreamEnd};
pub use repeats::hash_deal;
pub use repeats::{MAX_SAMPLE_LEVEL, sample_key, sampled_at};
use repeats::{count_repeats, fit_under, retain_sampled, sort_fingerprints};

/// Bytes kept per deal for the repeated-deals test: one 128-bit fingerprint.
pub const BYTES_PER_DEAL: u64 = 16;

/// Most card groups in a slot table: decks of up to 64 cards get one group per card; larger
/// decks group consecutive cards (card c in group c·G/n), so that memory stays K·64² counters.
pub const MAX_GROUPS: usize = 64;

/// Counters of one slot's table in `narrow`: 64 × 64 whatever G, so that a cell is found
/// with a shift and no bounds check (rows of G cells used out of 64).
const TABLE: usize = MAX_GROUPS * MAX_GROUPS;

/// Deals kept before their pairs are added, slot by slot, into the slot tables (see
/// [`DealStream::drain_pending`]): a slot table's cache lines come back from L2 once per drain,
/// and with a thousand pairs per slot most take several updates while in L1. The buffer is
/// kept by columns ([`PENDING_COLUMN`]), so that a drain reads each slot's 1 KiB column in
/// order beside its 8 KiB table. Kept deal by deal (53 KiB at 52 cards), a slot's bytes would
/// be 52 bytes apart and every slot would read the whole buffer again. Columns pay when deals
/// are written into them eight at a time ([`columns::keep_eight`]); 2,048 deals gained nothing
/// more than 1,024.
const PENDING_DEALS: usize = 1024;

/// The length of a column of `pending`: one cache line more than [`PENDING_DEALS`], so that a
/// deal's K bytes, a column apart, fall in different sets of the L1 cache (columns a power of
/// two apart would share a few sets, and evict one another as each deal is written).
const PENDING_COLUMN: usize = PENDING_DEALS + 64;

/// The slots of two deals that hold the same card: 32 slots a comparison of two vectors where
/// `wide` ([`matches_wide::available`]), else summed in 16 bits (K ≤ 1000), which the compiler
/// vectorises in the baseline's 128-bit registers.
#[inline(always)]
fn matching_slots(a: &[Card], b: &[Card], wide: bool) -> usize {
    debug_assert_eq!(a.len(), b.len());
    #[cfg(target_arch = "x86_64")]
    if wide {
        // SAFETY: `wide` is only set where `matches_wide::available()`.
        return unsafe { matches_wide::matching_slots(a, b) };
    }
    let _ = wide;
    usize::from(
        a.iter()
            .zip(b)
            .map(|(&x, &y)| u16::from(x == y))
            .sum::<u16>(),
    )
}

/// [`matching_slots`] with AVX-512 BW (and POPCNT): 32 cards of each deal to a vector, the
/// equal ones a mask whose bits are counted.
mod matches_wide {
    #[cfg(target_arch = "x86_64")]
    use crate::engine::algorithms::Card;

    /// Whether this CPU runs [`matching_slots`].
    pub(super) fn available() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("popcnt")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// See [`super::matching_slots`]; the last vector's cards past the deals are masked off
    /// (never read).
    ///
    /// # Safety
    /// The CPU must have AVX-512 F and BW, and POPCNT ([`available`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    pub(super) unsafe fn matching_slots(a: &[Card], b: &[Card]) -> usize {
        use std::arch::x86_64::{_mm512_mask_cmpeq_epi16_mask, _mm512_maskz_loadu_epi16};
        let n = a.len().min(b.len());
        let mut same = 0;
        let mut at = 0;
        while at < n {
            let left = n - at;
            let lanes = if left >= 32 { u32::MAX } else { (1u32 << left) - 1 };
            // SAFETY: `at` < n, so both pointers are inside their deals; the masked loads read
            // only the `left.min(32)` cards from there on.
            let (x, y) = unsafe {
                (
                    _mm512_maskz_loadu_epi16(lanes, a.as_ptr().add(at).cast()),
                    _mm512_maskz_loadu_epi16(lanes, b.as_ptr().add(at).cast()),
                )
            };
            same += _mm512_mask_cmpeq_epi16_mask(lanes, x, y).count_ones() as usize;
            at += 32;
        }
        same
    }
}

/// Deals written into `pending` eight at a time (x86-64 with AVX-512 F, BW and VBMI).
mod columns {
    #[cfg(target_arch = "x86_64")]
    use super::PENDING_COLUMN;
    use crate::engine::algorithms::Card;
    #[cfg(target_arch = "x86_64")]
    use crate::engine::byte_columns::{self, ROWS};

    /// Writes the eight deals of `deals` (K = `dealt` ≤ 256 cards each, every card below 256)
    /// into `pending` as deals `at` to `at + 7`, as [`super::keep_groups`] does one at a time:
    /// each 64 slots of the eight deals turned into 64 columns of eight bytes
    /// ([`byte_columns::rows_to_columns`]), the cards first made their groups by a lookup in
    /// `groups` (`groups[card]`, 256 bytes) when the deck has more than [`super::MAX_GROUPS`]
    /// cards (a smaller deck's cards are their own groups, and `groups` is `None`), and column
    /// s written at once into `pending`'s column s.
    ///
    /// # Safety
    /// The CPU must have what [`byte_columns`] needs ([`byte_columns::available`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) unsafe fn keep_eight(
        pending: &mut [u8],
        at: usize,
        deals: &[Card],
        dealt: usize,
        groups: Option<&[u8; 256]>,
    ) {
        use std::arch::x86_64::{__m512i, _mm512_loadu_si512};
        assert!(dealt <= 256 && deals.len() == ROWS * dealt);
        // SAFETY: four loads of 64 bytes from a table of 256.
        let table = groups.map(|groups| -> [__m512i; 4] {
            std::array::from_fn(|q| unsafe { _mm512_loadu_si512(groups[64 * q..].as_ptr().cast()) })
        });
        for (first, pending) in (0..dealt)
            .step_by(64)
            .zip(pending.chunks_mut(64 * PENDING_COLUMN))
        {
            let slots = first..(first + 64).min(dealt);
            let rows = std::array::from_fn(|lane| {
                let cards = byte_columns::deck_bytes(&deals[lane * dealt..][slots.clone()]);
                match &table {
                    Some(table) => byte_columns::look_up(table, cards),
                    None => cards,
                }
            });
            let mut columns = [[0u8; ROWS]; 64];
            byte_columns::rows_to_columns(&rows, &mut columns);
            for (column, bytes) in pending.chunks_exact_mut(PENDING_COLUMN).zip(&columns) {
                column[at..at + ROWS].copy_from_slice(bytes);
            }
        }
    }

    /// Never called off x86-64 ([`crate::engine::byte_columns::available`] is false there).
    #[cfg(not(target_arch = "x86_64"))]
    pub(super) unsafe fn keep_eight(_: &mut [u8], _: usize, _: &[Card], _: usize, _: Option<&[u8; 256]>) {
        unreachable!("byte_columns::available() is false off x86-64")
    }
}

/// Card `card`'s group in the slot tables as a byte (`group_of[card]`, below [`MAX_GROUPS`];
/// the card itself in a deck of at most [`MAX_GROUPS`] cards).
#[inline(always)]
fn group_byte(card: Card, group_of: &[u16]) -> u8 {
    if group_of.len() <= MAX_GROUPS {
        card as u8
    } else {
        group_of[usize::from(card)] as u8
    }
}

/// The fingerprint of a deal short enough to be kept whole: its cards packed, `bits` each,
/// the first highest.
#[inline(always)]
fn pack_deal(deal: &[Card], bits: u32) -> u128 {
    deal.iter()
        .fold(0u128, |acc, &c| (acc << bits) | u128::from(c))
}

/// Writes the groups of `deal`'s cards ([`group_byte`]) into `pending` as deal `at`: the
/// group at slot s goes to column s, `pending[s · PENDING_COLUMN + at]`.
#[inline(always)]
fn keep_groups(pending: &mut [u8], at: usize, deal: &[Card], group_of: &[u16]) {
    for (column, &card) in pending.chunks_exact_mut(PENDING_COLUMN).zip(deal) {
        column[at] = group_byte(card, group_of);
    }
}

/// Whether deal `at` of `pending` holds the groups of `deal`'s cards (compared whole,
/// without branches).
#[inline(always)]
fn kept_is(pending: &[u8], at: usize, deal: &[Card], group_of: &[u16]) -> bool {
    pending
        .chunks_exact(PENDING_COLUMN)
        .zip(deal)
        .fold(0, |differ, (column, &card)| {
            differ | (column[at] ^ group_byte(card, group_of))
        })
        == 0
}

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
    /// A fingerprint per deal, at most `limit` of them kept by each accumulator (each worker's,
    /// and the whole stream's once merged); beyond, the deals whose value falls in a sampled
    /// 1/2^s of the deck space (see [`repeats`]).
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
    /// Counted from the fingerprints of a sample: the deals whose value falls in the sampled
    /// 1/2^`level` of the deal space (all copies of a deal are in it or none are).
    Sampled {
        /// Distinct deals among the sampled ones.
        distinct: u64,
        /// Pairs of identical deals among them (all the repeats of the sampled values).
        repeated_pairs: u64,
        /// s: a deal is sampled when the top s bits of its [`sample_key`] are zero.
        level: u32,
        /// Deals sampled.
        kept: u64,
    },
    /// Not counted.
    Skipped(RepeatsSkipped),
}

impl Repeats {
    /// The repeats of fingerprints not counted yet (a saved part's, counted when the parts are
    /// merged), sampled at `level`, `kept` of them.
    pub fn to_count(level: u32, kept: u64) -> Self {
        if level == 0 {
            Repeats::Counted {
                distinct: 0,
                repeated_pairs: 0,
            }
        } else {
            Repeats::Sampled {
                distinct: 0,
                repeated_pairs: 0,
                level,
                kept,
            }
        }
    }
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
    /// The Mallows kernel's sums over the pairs (whole decks of at least
    /// [`kernel::KERNEL_MIN_DECK`] cards; see [`kernel`]).
    pub kernel: Option<KernelSums>,
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
    /// The sampling level of the fingerprints (0: every deal's is kept).
    level: u32,
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
    /// The deals of the last pairs, not yet added into `narrow` (up to [`PENDING_DEALS`] of
    /// K cards), slot by slot: K columns of [`PENDING_COLUMN`] bytes, column s holding the
    /// group of the card at slot s of each deal in turn (below [`MAX_GROUPS`]: the card itself
    /// up to 64 cards), all that the slot tables count.
    pending: Vec<u8>,
    /// Whether deals go into `pending` eight at a time, transposed in vector registers
    /// ([`columns::keep_eight`]): decks of at most 256 cards (cards that fit a byte) on CPUs
    /// with what [`byte_columns`] needs.
    keeps_eight: bool,
    /// `group_bytes[card]` = `group_of[card]`, 256 bytes, for [`columns::keep_eight`]: decks of
    /// more than [`MAX_GROUPS`] cards (in a smaller deck a card is its own group: `None`).
    group_bytes: Option<Box<[u8; 256]>>,
    /// Whether the matching slots of a batch's pairs are counted 32 slots to a vector
    /// ([`matching_slots`]; asked once, in [`DealStream::new`]).
    wide_matches: bool,
    /// `paired[i]`: whether pending deal i is paired with deal i − 1.
    paired: Vec<bool>,
    /// Deals in `pending`.
    in_pending: usize,
    compositions: Option<Vec<u64>>,
    kernel: Option<KernelCounter>,
    /// Deals added since the block started (or since the stream did, outside blocks): the
    /// index of the next deal, which picks the pairs whose kernel is counted
    /// ([`kernel::kernel_stride`]).
    in_block: u64,
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
        let group_of: Vec<u16> = (0..deck).map(|c| (c * groups / deck) as u16).collect();
        // The same groups as bytes, for the lookup in vectors (entries past the deck unused).
        let group_bytes = (deck > MAX_GROUPS && deck <= 256).then(|| {
            Box::new(std::array::from_fn(|c| group_of[c.min(deck - 1)] as u8))
        });
        DealStream {
            options,
            groups,
            group_of,
            fingerprints: vec![Vec::new()],
            kept: 0,
            level: 0,
            dropped,
            deals: 0,
            pairs: 0,
            matches: vec![0; dealt + 1],
            slots: vec![0; dealt * groups * groups],
            narrow: vec![0; dealt * TABLE],
            in_narrow: 0,
            pending: vec![0; dealt * PENDING_COLUMN],
            keeps_eight: deck <= 256 && byte_columns::available(),
            group_bytes,
            wide_matches: matches_wide::available(),
            paired: vec![false; PENDING_DEALS],
            in_pending: 0,
            // Empty until the first count (see `add_composition_counts`).
            compositions: compositions.then(Vec::new),
            kernel: counts_kernel(deck, dealt).then(|| KernelCounter::new(deck)),
            in_block: 0,
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
            let print = self.fingerprint(deal);
            if sampled_at(print, self.level) {
                self.fingerprints[0].push(print);
                self.kept += 1;
                if self.kept > limit {
                    self.kept = fit_under(&mut self.fingerprints, &mut self.level, limit);
                }
            }
        }
        if self.has_previous {
            let previous = std::mem::take(&mut self.previous);
            self.pair(&previous, deal, self.in_block);
            self.previous = previous;
        } else if let Some((_, first)) = &mut self.block
            && first.is_empty()
        {
            first.extend_from_slice(deal);
        }
        self.remember(deal);
        self.deals += 1;
        self.in_block += 1;
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
            let list = &mut self.fingerprints[0];
            let before = list.len();
            list.reserve(deals.len() / k);
            // At level 0 (every run short enough to be counted exactly) no key is computed.
            let level = self.level;
            let keep = |print: u128| {
                if sampled_at(print, level) {
                    list.push(print);
                }
            };
            match self.packed_bits {
                Some(bits) => deals
                    .chunks_exact(k)
                    .map(|deal| pack_deal(deal, bits))
                    .for_each(keep),
                None => hash_deals(deals, k, keep),
            }
            self.kept += (list.len() - before) as u64;
            if self.kept > limit {
                self.kept = fit_under(&mut self.fingerprints, &mut self.level, limit);
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
        let wide = self.wide_matches;
        let same = |a: &[Card], b: &[Card]| matching_slots(a, b, wide);
        if self.has_previous {
            self.matches[same(&self.previous, &deals[..k])] += 1;
        }
        for (before, after) in deals.chunks_exact(k).zip(deals[k..].chunks_exact(k)) {
            self.matches[same(before, after)] += 1;
        }
        if let Some(kernel) = &mut self.kernel {
            // Deal i of the batch has index in_block + i.
            let previous = self.has_previous.then_some(&self.previous[..]);
            kernel.pairs_at(self.in_block, previous, deals, k);
        }
        let mut paired = self.has_previous;
        let mut rest = deals;
        if self.keeps_eight {
            let eight = byte_columns::ROWS;
            while rest.len() >= eight * k {
                if self.in_pending + eight > PENDING_DEALS {
                    self.drain_pending();
                }
                let at = self.in_pending;
                // SAFETY: `keeps_eight` says the CPU has what `keep_eight` needs.
                unsafe {
                    columns::keep_eight(
                        &mut self.pending,
                        at,
                        &rest[..eight * k],
                        k,
                        self.group_bytes.as_deref(),
                    )
                };
                self.paired[at] = paired;
                self.paired[at + 1..at + eight].fill(true);
                self.in_pending += eight;
                paired = true;
                rest = &rest[eight * k..];
            }
        }
        for deal in rest.chunks_exact(k) {
            if self.in_pending == PENDING_DEALS {
                self.drain_pending();
            }
            let at = self.in_pending;
            keep_groups(&mut self.pending, at, deal, &self.group_of);
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
        self.in_block += count as u64;
    }

    /// Whether the last pending deal is the previous deal, in groups (all that the slot
    /// tables count).
    fn previous_is_pending(&self) -> bool {
        self.in_pending > 0
            && kept_is(
                &self.pending,
                self.in_pending - 1,
                &self.previous,
                &self.group_of,
            )
    }

    /// Put `deal` in the pending buffer, paired with nothing.
    fn push_unpaired(&mut self, deal: &[Card]) {
        if self.in_pending == PENDING_DEALS {
            self.drain_pending();
        }
        keep_groups(&mut self.pending, self.in_pending, deal, &self.group_of);
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

    /// Count the consecutive pair (`previous`, `next`), `next` the deal of index `index` in its
    /// block (0 for a seam); `slot_of` must describe `previous`.
    #[inline]
    fn pair(&mut self, previous: &[Card], next: &[Card], index: u64) {
        if self.in_narrow == u32::from(u16::MAX) {
            self.flush();
        }
        self.in_narrow += 1;
        // The matching slots of one pair: the plain sum, inlined (the vector form is a call).
        let same = matching_slots(previous, next, false);
        self.push_pending(previous, next);
        self.matches[same] += 1;
        if let Some(counts) = &mut self.compositions {
            if counts.is_empty() {
                counts.resize(factorial(self.options.deck) as usize, 0);
            }
            // π(c) = the card that took c's slot: its fixed points are the matching slots.
            composition_into(&self.slot_of, next, &mut self.composition);
            counts[rank(&self.composition)] += 1;
        }
        if let Some(kernel) = &mut self.kernel {
            kernel.pair_at(index, previous, next);
        }
        self.pairs += 1;
    }

    /// The fingerprint of a deal: the deal itself, packed, when K·⌈log2 n⌉ ≤ 128 bits (exact);
    /// otherwise a 128-bit hash of its cards (see [`hash_deal`]).
    #[inline]
    fn fingerprint(&self, deal: &[Card]) -> u128 {
        match self.packed_bits {
            Some(bits) => pack_deal(deal, bits),
            None => hash_deal(deal),
        }
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
        self.in_block = 0;
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
        if self.in_pending + 2 > PENDING_DEALS {
            self.drain_pending();
        }
        // Whether the last deal kept is `previous`, in groups.
        let group_of = &self.group_of;
        let follows =
            self.in_pending > 0 && kept_is(&self.pending, self.in_pending - 1, previous, group_of);
        if !follows {
            keep_groups(&mut self.pending, self.in_pending, previous, group_of);
            self.paired[self.in_pending] = false;
            self.in_pending += 1;
        }
        keep_groups(&mut self.pending, self.in_pending, next, &self.group_of);
        self.paired[self.in_pending] = true;
        self.in_pending += 1;
    }

    /// Add the pending pairs into the 16-bit slot counts, one slot's table at a time, from
    /// that slot's column of `pending`: the table of a slot stays in L1 while the pairs' cells
    /// of that slot land in it, where one pair at a time would touch K tables spread over the
    /// whole of `narrow`, a cache miss per slot. Every two neighbours in the buffer are counted, without a test, and the few
    /// that are not a pair (the first deal of a block after the last of another) are taken
    /// back out; the 16-bit counts wrap in between, and are right once they are taken out.
    /// The last deal stays, unpaired, as the first of the next pairs.
    fn drain_pending(&mut self) {
        let count = self.in_pending;
        if count == 0 {
            return;
        }
        let paired = &self.paired[..count];
        // The deals i ≥ 1 not paired with deal i − 1 (few: one per block started).
        let mut unpaired = [0usize; PENDING_DEALS];
        let mut unpaired_count = 0;
        for (i, &is_pair) in paired.iter().enumerate().skip(1) {
            unpaired[unpaired_count] = i;
            unpaired_count += usize::from(!is_pair);
        }
        let unpaired = &unpaired[..unpaired_count];
        for (column, table) in self
            .pending
            .chunks_exact_mut(PENDING_COLUMN)
            .zip(self.narrow.chunks_exact_mut(TABLE))
        {
            let table: &mut [u16; TABLE] = table.try_into().expect("tables of TABLE counts");
            let deals = &column[..count];
            let mut before = usize::from(deals[0]);
            for &after in &deals[1..] {
                let after = usize::from(after);
                let cell = &mut table[(before * MAX_GROUPS + after) % TABLE];
                *cell = cell.wrapping_add(1);
                before = after;
            }
            // Take back the neighbours counted that are not a pair.
            for &after in unpaired {
                let (a, b) = (deals[after - 1], deals[after]);
                let cell = &mut table[(usize::from(a) * MAX_GROUPS + usize::from(b)) % TABLE];
                *cell = cell.wrapping_sub(1);
            }
            // The last deal stays, as the first of the next pairs.
            column[0] = column[count - 1];
        }
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
        self.absorb_fingerprints(other.fingerprints, other.level);
        self.dropped = self.dropped.or(other.dropped);
        self.deals += other.deals;
        self.pairs += other.pairs;
        for (total, count) in self.matches.iter_mut().zip(&other.matches) {
            *total += count;
        }
        for (total, count) in self.slots.iter_mut().zip(&other.slots) {
            *total += count;
        }
        if let (Some(totals), Some(counts)) = (&mut self.compositions, other.compositions) {
            add_composition_counts(totals, counts);
        }
        if let (Some(total), Some(part)) = (&mut self.kernel, &other.kernel) {
            total.sums.add(&part.sums());
        }
        self.seams.extend(other.seams);
    }

    /// Pool `lists` of fingerprints sampled at `level` (another part's of the same stream)
    /// with these: both brought to the higher level, then raised until at most the limit are
    /// kept (see [`repeats`]). Nothing happens unless this stream keeps fingerprints.
    fn absorb_fingerprints(&mut self, mut lists: Vec<Vec<u128>>, level: u32) {
        let RepeatSource::Fingerprints { limit } = self.options.repeats else {
            return;
        };
        if self.dropped.is_some() {
            return;
        }
        if level > self.level {
            self.level = level;
            retain_sampled(&mut self.fingerprints, level);
        } else {
            retain_sampled(&mut lists, self.level);
        }
        self.fingerprints.extend(lists);
        self.kept = fit_under(&mut self.fingerprints, &mut self.level, limit);
    }

    /// Pair the blocks' seams, count the repeated deals, and hand over the counts.
    pub fn finish(mut self) -> DealStreamTally {
        let mut seams = std::mem::take(&mut self.seams);
        seams.sort_by_key(|seam| seam.block);
        for window in seams.windows(2) {
            let (before, after) = (&window[0], &window[1]);
            if before.complete && after.block == before.block + 1 {
                self.remember(&before.last);
                // The first deal of a block has index 0.
                self.pair(&before.last, &after.first, 0);
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
                if self.level == 0 {
                    Repeats::Counted {
                        distinct,
                        repeated_pairs,
                    }
                } else {
                    Repeats::Sampled {
                        distinct,
                        repeated_pairs,
                        level: self.level,
                        kept: self.kept,
                    }
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
            compositions: self.compositions.map(|counts| {
                if counts.is_empty() {
                    vec![0; factorial(self.options.deck) as usize]
                } else {
                    counts
                }
            }),
            kernel: self.kernel.map(|kernel| kernel.sums()),
            ends,
            fingerprints: self.fingerprints,
        }
    }
}

/// Add a worker's composition counts (n! of them) to `totals`, which stay empty until the first
/// counts: those are moved in rather than added to n! zeros (29 MB at 10 cards), so a short
/// run touches one table, not one per worker and stage.
fn add_composition_counts(totals: &mut Vec<u64>, counts: Vec<u64>) {
    if counts.is_empty() {
        return;
    }
    if totals.is_empty() {
        *totals = counts;
        return;
    }
    assert_eq!(
        totals.len(),
        counts.len(),
        "compositions of another deck size"
    );
    for (total, count) in totals.iter_mut().zip(counts) {
        *total += count;
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
        compositions: Option<Vec<u64>>,
    ) {
        assert_eq!(
            matches.len(),
            self.matches.len(),
            "matches of another deal size"
        );
        assert_eq!(slots.len(), self.slots.len(), "slot table of another shape");
        assert!(
            self.kernel.is_none() || pairs == 0,
            "pairs counted elsewhere carry no kernel (decks beyond full mode's)"
        );
        self.own_pairs_only = false;
        self.pairs += pairs;
        for (total, count) in self.matches.iter_mut().zip(matches) {
            *total += count;
        }
        for (total, count) in self.slots.iter_mut().zip(slots) {
            *total += count;
        }
        if let (Some(totals), Some(counts)) = (&mut self.compositions, compositions) {
            assert!(
                counts.is_empty() || counts.len() as u64 == factorial(self.options.deck),
                "compositions of another deck size"
            );
            add_composition_counts(totals, counts);
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
mod slot_card_count_tests;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod persistence_tests;
