//! The marginal tally: what is kept of each shuffle when n! orderings are too many to count.
//!
//! Per shuffle it records where every card ended (the n×n position matrix), whether the deck
//! came back unchanged, and the value of every [`Statistic`] (fixed points, cycles, rising
//! sequences, adjacent pairs kept, descents, inversions, the longest increasing subsequence,
//! Spearman's footrule) whose law under a uniform shuffle is computed exactly at that deck size
//! (see [`crate::theory::permutation_statistics`] and [`Statistic::max_exact_deck`]; a
//! statistic beyond its size keeps an empty histogram). Memory is O(n²) whatever the number of
//! trials, so a 52-card deck — or a 1000-card one — can be tested.

use crate::engine::algorithms::Card;
use crate::engine::statistics::{
    Statistic, StatisticValues, guess_after, reds, scratch_len,
};

mod order_avx2;
mod stats_avx2;
mod words;

/// The largest deck the marginal mode accepts.
pub const MAX_MARGINAL_DECK: usize = 1000;

// The cheap statistics' exact laws reach every deck marginal mode takes.
const _: () = assert!(crate::engine::statistics::EVERY_DECK >= MAX_MARGINAL_DECK);

/// How many shuffles produced each value of each statistic, each card at each position, and the
/// identity.
#[derive(Debug, Clone)]
pub struct MarginalTally {
    /// Number of cards.
    pub deck: usize,
    /// Shuffles tallied.
    pub trials: u64,
    /// `positions[card * deck + position]`: shuffles that left `card` at `position`.
    pub positions: Vec<u64>,
    /// Shuffles that left the deck unchanged.
    pub identity: u64,
    /// `histograms[i][v]`: shuffles in which statistic `Statistic::ALL[i]` had the value `v`;
    /// empty for a statistic not tallied at this deck size (`Statistic::cells`).
    pub histograms: Vec<Vec<u64>>,
    /// Working space for the statistics (the inverse permutation, a Fenwick tree, piles).
    scratch: Vec<usize>,
}

/// Two tallies are equal when they counted the same things (the working space is not compared).
impl PartialEq for MarginalTally {
    fn eq(&self, other: &Self) -> bool {
        self.deck == other.deck
            && self.trials == other.trials
            && self.positions == other.positions
            && self.identity == other.identity
            && self.histograms == other.histograms
    }
}

impl Eq for MarginalTally {}

impl MarginalTally {
    /// An empty tally for decks of `deck` cards.
    pub fn new(deck: usize) -> Self {
        MarginalTally {
            deck,
            trials: 0,
            positions: vec![0; deck * deck],
            identity: 0,
            histograms: Statistic::ALL
                .iter()
                .map(|s| vec![0; s.cells(deck)])
                .collect(),
            scratch: vec![0; scratch_len(deck)],
        }
    }

    /// Count one shuffled deck (a permutation of `0..deck`).
    #[inline]
    pub fn add(&mut self, deck: &[Card]) {
        let n = self.deck;
        debug_assert_eq!(deck.len(), n);
        for (position, &card) in deck.iter().enumerate() {
            self.positions[usize::from(card) * n + position] += 1;
        }
        self.add_all_but_positions(deck);
    }

    /// [`Self::add`] but for the position matrix, which the caller counts (see
    /// [`FusedMarginalTally`]).
    #[inline]
    fn add_all_but_positions(&mut self, deck: &[Card]) {
        debug_assert_eq!(deck.len(), self.deck);
        let unchanged = deck
            .iter()
            .enumerate()
            .all(|(position, &card)| usize::from(card) == position);
        self.identity += u64::from(unchanged);
        let values = StatisticValues::of(deck, &mut self.scratch);
        for (histogram, &statistic) in self.histograms.iter_mut().zip(Statistic::ALL.iter()) {
            if let Some(count) = histogram.get_mut(values.get(statistic)) {
                *count += 1;
            }
        }
        self.trials += 1;
    }

    /// Add another tally of the same deck size into this one.
    pub fn merge(&mut self, other: &MarginalTally) {
        assert_eq!(self.deck, other.deck, "tallies of different decks");
        for (total, count) in self.positions.iter_mut().zip(&other.positions) {
            *total += count;
        }
        for (totals, counts) in self.histograms.iter_mut().zip(&other.histograms) {
            for (total, count) in totals.iter_mut().zip(counts) {
                *total += count;
            }
        }
        self.identity += other.identity;
        self.trials += other.trials;
    }

    /// The position counts as a matrix `[card][position]`.
    pub fn position_matrix(&self) -> Vec<Vec<u64>> {
        self.positions
            .chunks(self.deck)
            .map(<[u64]>::to_vec)
            .collect()
    }

    /// The histogram of one statistic (empty when it is not tallied at this deck size).
    pub fn histogram(&self, statistic: Statistic) -> &[u64] {
        let index = Statistic::ALL
            .iter()
            .position(|&s| s == statistic)
            .expect("every statistic is in ALL");
        &self.histograms[index]
    }
}

/// Decks the fused pass of [`FusedMarginalTally`] takes at a time (a multiple of the cycle walks
/// run interleaved, so that one deck's chain of dependent loads overlaps the others').
pub const LANES: usize = 8;

/// The largest deck the fused pass handles (one bit per card in a `u64`); larger decks go
/// through the [`words`] passes (up to 256 cards, on CPUs with AVX-512) or through the plain
/// statistics of [`MarginalTally`].
pub const FUSED_MAX_DECK: usize = 64;

/// Shuffles the 32-bit position counts of [`FusedMarginalTally`] take before they are added into
/// the 64-bit tally: far below `u32::MAX`, so that no cell can overflow in between.
const NARROW_LIMIT: u64 = 1 << 31;

/// The simulation's accumulator of a [`MarginalTally`]: the same counts, taken [`LANES`] decks
/// at a time in one fused pass per deck, for decks of up to [`FUSED_MAX_DECK`] cards.
///
/// Per deck, one scan over the positions tallies the (card, position) cell, the fixed points,
/// the adjacent pairs, the identity and the rising sequences — r = 1 + #{c : c + 1 lies before
/// c}, read off the inverse permutation built in bytes in the same scan — and the cycles are counted by walking the map position → card (a permutation and its
/// inverse have the same cycles) with a bit set of visited positions, every step branch-free
/// (a closed cycle jumps to the lowest unvisited position), the walks of [`LANES`] decks
/// interleaved, four at a time. Where the CPU has AVX-512 ([`wide`]) or AVX2 ([`stats_avx2`]),
/// the element-wise statistics are vector comparisons over the deck's bytes instead, and the
/// cycles are counted by pointer doubling; there a full batch's rising sequences come from the
/// vector walk of the order statistics (card + 1 among the cards seen), and no inverse is made.
/// The position counts are 32-bit (52 rows of 64: 13 KiB, in L1 beside the deck)
/// and are added into the 64-bit tally every `NARROW_LIMIT` shuffles and at the end.
/// The definitions stay those of [`crate::theory::permutation_statistics`]; the tests check
/// this pass against [`MarginalTally::add`] deck by deck.
#[derive(Debug, Clone)]
pub struct FusedMarginalTally {
    tally: MarginalTally,
    /// `narrow[position][card]`: shuffles since the last flush (rows of 64 so that a card
    /// indexes its row without a bounds check; the scan walks the rows in order).
    narrow: Vec<[u32; FUSED_MAX_DECK]>,
    /// Decks of more than [`FUSED_MAX_DECK`] cards: `narrow_wide[card * deck + position]`,
    /// shuffles since the last flush, in 16 bits (2 MB at 1000 cards, where the 64-bit tally
    /// takes 8 MB: a quarter of the cache lines for the increments to miss).
    narrow_wide: Vec<u16>,
    in_narrow: u64,
    /// The CPU runs [`wide::statistics`] (AVX-512 with VBMI, asked once, in [`Self::new`]).
    wide: bool,
    /// Whether [`Self::add_decks`] counts the positions (see [`Self::leave_positions`]).
    count_positions: bool,
    /// The CPU counts bits in one instruction ([`bit_counts::order_of_batch`]).
    bit_counts: bool,
    /// The CPU runs [`wide::order_statistics`] (AVX-512 F and VPOPCNTDQ: eight decks' order
    /// statistics in the lanes of one vector; BW and VBMI: the decks transposed in vectors),
    /// asked once, in [`Self::new`].
    wide_order: bool,
    /// The CPU runs [`order_avx2::order_statistics`] (eight decks' order statistics in two
    /// vectors of four), asked once, in [`Self::new`]: for CPUs with AVX2 and without
    /// [`Self::wide_order`].
    avx2_order: bool,
    /// The CPU runs [`stats_avx2::statistics`] (the element-wise statistics and the cycles of
    /// a deck in 256-bit vectors), asked once, in [`Self::new`]: for CPUs with AVX2 and without
    /// [`Self::wide`].
    avx2_stats: bool,
    /// Decks of 65 to 256 cards on a CPU that runs the [`words`] passes (AVX-512), asked
    /// once, in [`Self::new`].
    word_passes: bool,
}

impl FusedMarginalTally {
    /// An empty accumulator for decks of `deck` cards (any size; above [`FUSED_MAX_DECK`] it
    /// counts the positions in 16 bits, added into the tally every 65,535 decks, and takes the
    /// rest of each deck through the [`words`] passes, full batches of up to 256 cards on a CPU
    /// with AVX-512, or through the tally's plain statistics).
    pub fn new(deck: usize) -> Self {
        let fused = deck <= FUSED_MAX_DECK;
        FusedMarginalTally {
            tally: MarginalTally::new(deck),
            narrow: vec![[0; FUSED_MAX_DECK]; if fused { deck } else { 0 }],
            narrow_wide: vec![0; if fused { 0 } else { deck * deck }],
            in_narrow: 0,
            wide: wide::available(),
            count_positions: true,
            bit_counts: bit_counts::available(),
            wide_order: wide::order_available(),
            avx2_order: order_avx2::available(),
            avx2_stats: stats_avx2::available(),
            word_passes: (FUSED_MAX_DECK + 1..=words::WORDS_MAX_DECK).contains(&deck)
                && words::available(),
        }
    }

    /// Whether decks of this size take the fused pass (at most [`FUSED_MAX_DECK`] cards).
    pub fn is_fused(&self) -> bool {
        self.tally.deck <= FUSED_MAX_DECK
    }

    /// Stop counting positions in [`Self::add_decks`]: the caller counts the same decks'
    /// positions elsewhere and hands them over with [`Self::add_positions`] before
    /// [`Self::finish`]. (A run that feeds every deck to the deal stream has them already: the
    /// slot tables' row sums, [`crate::engine::deal_stream::DealStream::slot_card_counts`], so
    /// the 52 increments a deck would be made twice.) Fused decks only.
    pub fn leave_positions(&mut self) {
        assert!(self.is_fused(), "only the fused pass leaves the positions");
        self.count_positions = false;
    }

    /// Whether [`Self::add_decks`] counts the positions (until [`Self::leave_positions`]).
    pub fn counts_positions(&self) -> bool {
        self.count_positions
    }

    /// Add position counts made elsewhere, laid out as [`MarginalTally::positions`].
    pub fn add_positions(&mut self, positions: &[u64]) {
        assert_eq!(positions.len(), self.tally.positions.len(), "another deck");
        for (total, &count) in self.tally.positions.iter_mut().zip(positions) {
            *total += count;
        }
    }

    /// Count the decks laid end to end in `decks` (each a permutation of `0..deck`; at most
    /// [`LANES`] of them), in that order.
    #[inline]
    pub fn add_decks(&mut self, decks: &[Card]) {
        let n = self.tally.deck;
        if n == 0 {
            return;
        }
        debug_assert_eq!(decks.len() % n, 0);
        if n > FUSED_MAX_DECK {
            // A full batch of 65 to 256 cards on a CPU with AVX-512: the word passes.
            let order = (self.word_passes && decks.len() == LANES * n)
                .then(|| words::order_statistics(decks, n));
            for (lane, deck) in decks.chunks_exact(n).enumerate() {
                if self.in_narrow == u64::from(u16::MAX) {
                    self.flush();
                }
                self.in_narrow += 1;
                for (position, &card) in deck.iter().enumerate() {
                    self.narrow_wide[usize::from(card) * n + position] += 1;
                }
                match order {
                    Some(order) => {
                        let [inversions, guessing, rising] = order[lane];
                        let mut values = words::statistics(deck);
                        values[2] = rising;
                        // The longest increasing subsequence is not tallied on these decks
                        // (its exact law stops at 56 cards).
                        self.record_avx2(&[values], &[[inversions, 0, guessing]], n);
                    }
                    None => self.tally.add_all_but_positions(deck),
                }
            }
            return;
        }
        let count = decks.len() / n;
        debug_assert!(count <= LANES);
        if self.in_narrow + count as u64 > NARROW_LIMIT {
            self.flush();
        }
        self.in_narrow += count as u64;
        // A full batch on a CPU with both AVX-512 paths, or with both AVX2 paths: the walk of
        // the order statistics counts the descents of the inverses too, and no inverse is made.
        let both_wide = self.wide && self.wide_order;
        let both_avx2 = self.avx2_stats && self.avx2_order && !self.wide && !self.wide_order;
        if (both_wide || both_avx2) && count == LANES {
            if self.count_positions {
                for deck in decks.chunks_exact(n) {
                    for (&card, row) in deck.iter().zip(self.narrow.iter_mut()) {
                        // `& 63`: a card of a deck of at most 64 (no bounds check needed).
                        row[usize::from(card) & (FUSED_MAX_DECK - 1)] += 1;
                    }
                }
            }
            let (order, mut values) = if both_wide {
                (
                    wide::order_statistics(decks, n),
                    wide::statistics(decks, n, None),
                )
            } else {
                (
                    order_avx2::order_statistics(decks, n),
                    stats_avx2::statistics(decks, n, None),
                )
            };
            for (values, &[.., rising]) in values.iter_mut().zip(&order) {
                values[2] = rising;
            }
            let order = order.map(|[inversions, longest, guessing, _]| {
                [inversions, longest, guessing]
            });
            self.record_avx2(&values, &order, n);
            return;
        }
        // First every deck's positions and inverse, then the descents of the inverses: by then
        // the bytes of each inverse have left the store buffer, which a vector load of bytes
        // just written one at a time would wait for.
        let mut inverses = [[0u8; FUSED_MAX_DECK]; LANES];
        if self.count_positions {
            for (deck, inverse) in decks.chunks_exact(n).zip(inverses.iter_mut()) {
                for (position, (&card, row)) in deck.iter().zip(self.narrow.iter_mut()).enumerate()
                {
                    // `& 63`: a card of a deck of at most 64 (no bounds check needed).
                    let card = usize::from(card) & (FUSED_MAX_DECK - 1);
                    row[card] += 1;
                    inverse[card] = position as u8;
                }
            }
        } else {
            for (deck, inverse) in decks.chunks_exact(n).zip(inverses.iter_mut()) {
                for (position, &card) in deck.iter().enumerate() {
                    inverse[usize::from(card) & (FUSED_MAX_DECK - 1)] = position as u8;
                }
            }
        }
        let order = if self.wide_order && count == LANES {
            wide::order_statistics(decks, n).map(|[inversions, longest, guessing, _]| {
                [inversions, longest, guessing]
            })
        } else if self.avx2_order && count == LANES {
            order_avx2::order_statistics(decks, n).map(|[inversions, longest, guessing, _]| {
                [inversions, longest, guessing]
            })
        } else if self.bit_counts {
            // SAFETY: the CPU has POPCNT, BMI1 and LZCNT (asked in `new`).
            unsafe { bit_counts::order_of_batch(decks, n) }
        } else {
            order_of_batch(decks, n)
        };
        if self.wide {
            let values = wide::statistics(decks, n, Some(&inverses));
            self.record_avx2(&values[..count], &order, n);
            return;
        }
        if self.avx2_stats {
            let values = stats_avx2::statistics(decks, n, Some(&inverses));
            self.record_avx2(&values[..count], &order, n);
            return;
        }
        let mut cycles = [0u32; LANES];
        for (group, counts) in decks
            .chunks(WALK_LANES * n)
            .zip(cycles.chunks_exact_mut(WALK_LANES))
        {
            if group.len() == WALK_LANES * n {
                counts.copy_from_slice(&cycle_counts::<WALK_LANES>(group, n));
            } else {
                for (deck, count) in group.chunks_exact(n).zip(counts.iter_mut()) {
                    *count = cycle_counts::<1>(deck, n)[0];
                }
            }
        }
        for (((deck, &cycles), inverse), order) in
            decks.chunks_exact(n).zip(&cycles).zip(&inverses).zip(order)
        {
            self.statistics(deck, inverse, cycles as usize, order);
        }
    }

    /// Tally each deck of a batch from its values of [`stats_avx2::statistics`] and its
    /// `[inversions, longest increasing subsequence, guessing]`.
    #[inline(always)]
    fn record_avx2(&mut self, values: &[[u16; 8]], order: &[[u16; 3]], n: usize) {
        for (
            &[fixed, cycles, rising, adjacent, descents, footrule, valleys, colour],
            &[inversions, longest, guessing],
        ) in values.iter().zip(order)
        {
            self.record(
                [
                    fixed, cycles, rising, adjacent, descents, inversions, longest, footrule,
                    valleys, guessing, colour,
                ],
                n,
            );
        }
    }

    /// Tally one deck's statistics, in [`Statistic::ALL`] order except the rising sequences,
    /// given as the descents of the inverse (one less).
    #[inline(always)]
    fn record(&mut self, values: [u16; 11], n: usize) {
        let histograms = &mut self.tally.histograms;
        let [
            fixed,
            cycles,
            rising_descents,
            adjacent,
            descents,
            inversions,
            longest,
            footrule,
            valleys,
            guessing,
            colour,
        ] = values.map(usize::from);
        histograms[0][fixed] += 1;
        histograms[1][cycles] += 1;
        histograms[2][1 + rising_descents] += 1;
        histograms[3][adjacent] += 1;
        histograms[4][descents] += 1;
        // These three are tallied only up to their exact laws' decks (the others on any deck).
        for (histogram, value) in histograms[5..8]
            .iter_mut()
            .zip([inversions, longest, footrule])
        {
            if let Some(count) = histogram.get_mut(value) {
                *count += 1;
            }
        }
        histograms[8][valleys] += 1;
        histograms[9][guessing] += 1;
        histograms[10][colour] += 1;
        self.tally.identity += u64::from(fixed == n);
        self.tally.trials += 1;
    }

    /// Tally the statistics of a deck, its inverse (`inverse[c]`: where card c lies), its
    /// cycles and its `[inversions, longest increasing subsequence]` given.
    #[inline(always)]
    fn statistics(
        &mut self,
        deck: &[Card],
        inverse: &[u8; FUSED_MAX_DECK],
        cycles: usize,
        [inversions, longest, guessing]: [u16; 3],
    ) {
        let n = self.tally.deck;
        // Element-wise comparisons summed in bytes (at most 64), which vectorise.
        let fixed = deck
            .iter()
            .zip(0..)
            .map(|(&card, position): (&Card, Card)| u8::from(card == position))
            .sum::<u8>();
        let adjacent = deck[1..]
            .iter()
            .zip(deck)
            .map(|(&next, &card)| u8::from(next == card.wrapping_add(1)))
            .sum::<u8>();
        // Descents of the inverse: card c + 1 before card c.
        let rising_descents = inverse[1..n]
            .iter()
            .zip(&inverse[..n - 1])
            .map(|(&after, &before)| u8::from(after < before))
            .sum::<u8>();
        let descents = deck[1..]
            .iter()
            .zip(deck)
            .map(|(&next, &card)| u8::from(next < card))
            .sum::<u8>();
        // At most ⌊64²/2⌋ = 2048.
        let footrule = deck
            .iter()
            .zip(0..)
            .map(|(&card, position): (&Card, Card)| card.abs_diff(position))
            .sum::<u16>();
        let [valleys, colour] = shape_statistics(deck);
        self.record(
            [
                fixed.into(),
                cycles as u16,
                rising_descents.into(),
                adjacent.into(),
                descents.into(),
                inversions,
                longest,
                footrule,
                valleys,
                guessing,
                colour,
            ],
            n,
        );
    }

    /// Add the 32-bit (or, above [`FUSED_MAX_DECK`] cards, 16-bit) position counts into the
    /// 64-bit tally.
    fn flush(&mut self) {
        let n = self.tally.deck;
        for (total, count) in self.tally.positions.iter_mut().zip(&mut self.narrow_wide) {
            *total += u64::from(std::mem::take(count));
        }
        for (position, row) in self.narrow.iter_mut().enumerate() {
            for (card, count) in row[..n].iter_mut().enumerate() {
                self.tally.positions[card * n + position] += u64::from(std::mem::take(count));
            }
        }
        self.in_narrow = 0;
    }

    /// The tally of every deck added.
    pub fn finish(mut self) -> MarginalTally {
        self.flush();
        self.tally
    }
}

/// `[valleys, colour changes]` of a deck of at most [`FUSED_MAX_DECK`] cards, by element-wise
/// comparisons combined with `&` and `^` (no short-circuit, so that they vectorise) (the guessing game is scored apart, several decks interleaved:
/// [`guessing_scores`]).
#[inline(always)]
fn shape_statistics(deck: &[Card]) -> [u16; 2] {
    let n = deck.len();
    let valleys = if n >= 3 {
        deck[2..]
            .iter()
            .zip(&deck[1..])
            .zip(deck)
            .map(|((&after, &card), &before)| u8::from(before > card) & u8::from(card < after))
            .sum::<u8>()
    } else {
        0
    };
    let red = reds(n) as Card;
    let colour = deck[1..]
        .iter()
        .zip(deck)
        .map(|(&next, &card)| u8::from(card < red) ^ u8::from(next < red))
        .sum::<u8>();
    [valleys.into(), colour.into()]
}

/// The values of the vector statistics ([`stats_avx2::statistics`], [`wide::statistics`]):
/// `[fixed points, cycles, descents of the inverse, adjacent pairs kept, descents, footrule,
/// valleys, colour changes]`, the footrule given, the others the bits set in their masks (one
/// bit a position). Inlined, so that it counts with the caller's `popcnt`.
#[inline(always)]
fn values_of_masks(masks: [u64; 7], footrule: u16) -> [u16; 8] {
    let [fixed, cycles, inverse_descents, adjacent, descents, valleys, colour] =
        masks.map(|bits| bits.count_ones() as u16);
    [
        fixed,
        cycles,
        inverse_descents,
        adjacent,
        descents,
        footrule,
        valleys,
        colour,
    ]
}

/// Decks whose cycle walks run interleaved in [`cycle_counts`]: enough to hide the latency of
/// one walk's dependent loads, few enough that every walk's state stays in registers.
const WALK_LANES: usize = 4;

/// The cycle counts of the first `L` decks of `n` (≤ 64) cards laid end to end in `decks`,
/// their walks interleaved.
///
/// Each walk takes exactly n steps, one per position: mark the position visited, follow it to
/// its card; if that card's position was visited already a cycle has closed — count it and jump
/// to the lowest unvisited position (`trailing_zeros` of the unvisited set). The decks are
/// copied into 64-byte maps first, so that a step reads its map without a bounds check.
#[inline(always)]
fn cycle_counts<const L: usize>(decks: &[Card], n: usize) -> [u32; L] {
    let mut maps = [[0u8; FUSED_MAX_DECK]; L];
    for (map, deck) in maps.iter_mut().zip(decks.chunks_exact(n)) {
        for (slot, &card) in map.iter_mut().zip(deck) {
            *slot = card as u8;
        }
    }
    let all = if n == FUSED_MAX_DECK {
        u64::MAX
    } else {
        (1u64 << n) - 1
    };
    let mut unvisited = [all; L];
    let mut at = [0usize; L];
    let mut cycles = [0u32; L];
    for _ in 0..n {
        for lane in 0..L {
            unvisited[lane] &= !(1u64 << at[lane]);
            let next = usize::from(maps[lane][at[lane] & (FUSED_MAX_DECK - 1)]);
            let closed = (unvisited[lane] >> next) & 1 == 0;
            cycles[lane] += u32::from(closed);
            // Bit 63 set changes nothing while a lower position is unvisited, and makes the
            // argument non-zero (no special case for an empty set, after the last step).
            let lowest = (unvisited[lane] | 1 << 63).trailing_zeros() as usize;
            at[lane] = if closed { lowest } else { next };
        }
    }
    cycles
}

/// Whether this machine runs the AVX-512 path of the marginal statistics (decks of up to
/// [`FUSED_MAX_DECK`] cards; `--version` says so).
pub fn wide_statistics_available() -> bool {
    wide::available()
}

/// Whether this machine runs the AVX-512 passes of decks of 65 to 256 cards (`--version` says
/// so).
pub fn word_statistics_available() -> bool {
    words::available()
}

/// Whether this machine runs the AVX2 path of the element-wise statistics and the cycles
/// (decks of up to [`FUSED_MAX_DECK`] cards, on CPUs without the AVX-512 one; `--version` says
/// so).
pub fn avx2_statistics_available() -> bool {
    stats_avx2::available() && !wide::available()
}

/// Whether this machine runs the AVX2 path of the inversions, the longest increasing
/// subsequence and the guessing game (decks of up to [`FUSED_MAX_DECK`] cards, on CPUs without
/// the AVX-512 one; `--version` says so).
pub fn avx2_order_statistics_available() -> bool {
    order_avx2::available()
}

/// [`order_statistics`] of every deck of a batch (at most [`LANES`]), [`WALK_LANES`] at a time.
#[inline(always)]
fn order_of_batch(decks: &[Card], n: usize) -> [[u16; 3]; LANES] {
    let mut order = [[0u16; 3]; LANES];
    for (group, values) in decks
        .chunks(WALK_LANES * n)
        .zip(order.chunks_exact_mut(WALK_LANES))
    {
        if group.len() == WALK_LANES * n {
            values.copy_from_slice(&order_statistics::<WALK_LANES>(group, n));
        } else {
            for (deck, values) in group.chunks_exact(n).zip(values.iter_mut()) {
                *values = order_statistics::<1>(deck, n)[0];
            }
        }
    }
    order
}

/// [`order_of_batch`] compiled for CPUs with a population count, BMI1 and LZCNT (x86-64 builds
/// target the baseline CPU, whose bit count is a dozen instructions and whose leading and
/// trailing zero counts need a branch or a select for an empty word).
mod bit_counts {
    use super::{Card, LANES};

    /// Whether this CPU runs [`order_of_batch`].
    pub(super) fn available() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("popcnt")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("lzcnt")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// See [`super::order_of_batch`]. Only after [`available`].
    #[cfg_attr(target_arch = "x86_64", target_feature(enable = "popcnt,bmi1,lzcnt"))]
    pub(super) unsafe fn order_of_batch(decks: &[Card], n: usize) -> [[u16; 3]; LANES] {
        super::order_of_batch(decks, n)
    }
}

/// `[inversions, longest increasing subsequence, guessing game score]` of the first `L` decks
/// of `n` (≤ 64) cards laid end to end in `decks`, position by position across the decks so that
/// their chains overlap. All three keep a bit set of cards: the cards seen (an inversion per card
/// above the new one seen before it; the guessing game's next guess is the nearest unseen card
/// beside the last, [`guess_after`]) and the tops of the piles of patience sorting (a card
/// replaces the least top above it, or starts a pile; the piles are the longest increasing
/// subsequence), as [`crate::theory::rank_statistics`] and
/// [`crate::engine::statistics::guessing_score`] define them.
#[inline(always)]
fn order_statistics<const L: usize>(decks: &[Card], n: usize) -> [[u16; 3]; L] {
    let all = if n == FUSED_MAX_DECK {
        u64::MAX
    } else {
        (1u64 << n) - 1
    };
    let mut seen = [0u64; L];
    let mut tops = [0u64; L];
    let mut inversions = [0u32; L];
    let mut right = [0u32; L];
    let mut last = [0usize; L];
    let mut rising = [true; L];
    for position in 0..n {
        for lane in 0..L {
            let card = u32::from(decks[lane * n + position]) & (FUSED_MAX_DECK as u32 - 1);
            let above = !1u64 << card;
            // The first guess is card 0; every later one the nearest unseen card beside the last.
            let (guess, _) = guess_after(all & !seen[lane], last[lane], rising[lane]);
            let guess = if position == 0 { 0 } else { guess };
            right[lane] += u32::from(guess == card as usize);
            rising[lane] = position == 0 || card as usize > last[lane];
            last[lane] = card as usize;
            inversions[lane] += (seen[lane] & above).count_ones();
            seen[lane] |= 1 << card;
            let higher = tops[lane] & above;
            tops[lane] = (tops[lane] & !(higher & higher.wrapping_neg())) | 1 << card;
        }
    }
    std::array::from_fn(|lane| {
        [
            inversions[lane] as u16,
            tops[lane].count_ones() as u16,
            right[lane] as u16,
        ]
    })
}

/// The statistics of one deck of at most 64 cards with AVX-512 (F, BW, VBMI): the deck is one
/// vector of bytes, so fixed points, adjacent pairs and the descents of the inverse are a
/// comparison each, and the cycles are counted by pointer doubling instead of a walk — after
/// k rounds of `m ← min(m, m∘p)`, `p ← p∘p` (from m = identity), m(i) is the least of
/// i, p(i), …, p^(2^k − 1)(i), so after six rounds (2^6 = 64 ≥ any cycle) the least card of i's
/// cycle, and the cycles are the i with m(i) = i. Every round is two byte permutations across
/// the vector and a minimum: no chain of dependent loads.
mod wide {
    use crate::engine::algorithms::Card;

    use super::{FUSED_MAX_DECK, LANES};

    /// Whether this CPU runs [`statistics`].
    pub(super) fn available() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vbmi")
                && std::arch::is_x86_feature_detected!("popcnt")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// Whether this CPU runs [`order_statistics`] (whose decks are transposed by
    /// [`crate::engine::byte_columns`]).
    pub(super) fn order_available() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
                && crate::engine::byte_columns::available()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// [`super::order_statistics`] of exactly [`LANES`] decks of `n` (≤ 64) cards laid end to
    /// end in `decks`, one deck to a 64-bit lane of a vector, and a fourth value: the descents
    /// of each deck's inverse (the cards c with c + 1 before them, counted from the cards
    /// seen), so that a caller needs no inverse for them. Only after [`order_available`].
    #[inline(always)]
    pub(super) fn order_statistics(decks: &[Card], n: usize) -> [[u16; 4]; LANES] {
        debug_assert!(order_available() && n <= FUSED_MAX_DECK && decks.len() == LANES * n);
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `order_available()` was true (asked in `FusedMarginalTally::new`).
            unsafe { x86::order_statistics(decks, n) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (decks, n);
            unreachable!("order_available() is false off x86-64")
        }
    }

    /// `[fixed points, cycles, descents of the inverse, adjacent pairs kept, descents,
    /// footrule, valleys, colour changes]` of each deck of `n` (≤ 64) cards laid end to end in
    /// `decks` (at most [`LANES`]), whose inverses, when given, are `inverses[..][..n]` (without
    /// them the descents of the inverse are left 0, for the caller to fill in from
    /// [`order_statistics`]); the entries past the decks are left 0. Only after [`available`].
    #[inline(always)]
    pub(super) fn statistics(
        decks: &[Card],
        n: usize,
        inverses: Option<&[[u8; FUSED_MAX_DECK]; LANES]>,
    ) -> [[u16; 8]; LANES] {
        debug_assert!(available() && n <= FUSED_MAX_DECK && decks.len() <= LANES * n);
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `available()` was true (asked in `FusedMarginalTally::new`).
            unsafe { x86::statistics_of_decks(decks, n, inverses) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (decks, n, inverses);
            unreachable!("available() is false off x86-64")
        }
    }

    #[cfg(target_arch = "x86_64")]
    mod x86 {
        use super::{Card, FUSED_MAX_DECK, LANES};
        use crate::engine::byte_columns;
        use crate::engine::statistics::reds;
        use std::arch::x86_64::*;

        /// See [`super::order_statistics`]: the scalar walk of [`crate::engine::marginal`]'s
        /// `order_statistics`, step for step, with lane l of every vector holding deck l's
        /// state (cards seen, the piles' tops, the last card and the side of it the next guess
        /// looks on first).
        ///
        /// The guess is never formed as a number. Let G be that side: the cards above the last
        /// after a rise, below it after a fall. The guesser takes the nearest unseen card to
        /// the last on G, or on the other side when G has no unseen card ([`guess_after`]'s
        /// `up`). The card is guessed exactly when (1) it lies on the side taken, which is to
        /// say it is on G, or G has no unseen card besides it; and (2) no unseen card lies
        /// strictly between the last and the card, the nearest being then the card. Both are
        /// tests of bit sets against the cards unseen after this one: G itself for (1), and
        /// for (2) the cards above the last ⊕ those above the card (the cards in (lower,
        /// higher] of the two, among which the last is seen and the card now is too).
        ///
        /// [`guess_after`]: crate::engine::statistics::guess_after
        #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vpopcntdq")]
        pub(super) fn order_statistics(decks: &[Card], n: usize) -> [[u16; 4]; LANES] {
            // The decks transposed: `columns[position][deck]`, the cards as bytes.
            let mut columns = [[0u8; LANES]; FUSED_MAX_DECK];
            let rows: [__m512i; LANES] =
                std::array::from_fn(|lane| byte_columns::deck_bytes(&decks[lane * n..][..n]));
            byte_columns::rows_to_columns(&rows, &mut columns);
            let all = _mm512_set1_epi64(if n == FUSED_MAX_DECK {
                -1
            } else {
                ((1u64 << n) - 1) as i64
            });
            let ones = _mm512_set1_epi64(1);
            let all_but_zero = _mm512_set1_epi64(!1u64 as i64);
            let zero = _mm512_setzero_si512();
            // The first card: nothing seen; the guess is card 0; it counts as a rise.
            let card = load_column(&columns[0]);
            let bit = _mm512_sllv_epi64(ones, card);
            let mut seen = bit;
            let mut tops = bit;
            let mut inversions = zero;
            // Descents of the inverse: none at the first card, before which nothing was seen.
            let mut inverse_descents = zero;
            let mut right = _mm512_maskz_mov_epi64(_mm512_cmpeq_epi64_mask(card, zero), ones);
            let mut last = card;
            // The cards above the last card (none above card 63).
            let mut last_above = _mm512_sllv_epi64(all_but_zero, card);
            // G: the first card counts as a rise.
            let mut guess_side = last_above;
            for column in &columns[1..n] {
                let card = load_column(column);
                let bit = _mm512_sllv_epi64(ones, card);
                let above = _mm512_sllv_epi64(all_but_zero, card);
                // The guessing game (see above), against the cards unseen after this one.
                let unseen_after = _mm512_andnot_si512(_mm512_or_si512(seen, bit), all);
                let on_side = _mm512_test_epi64_mask(guess_side, bit)
                    | _mm512_testn_epi64_mask(guess_side, unseen_after);
                let hit = _mm512_mask_testn_epi64_mask(
                    on_side,
                    _mm512_xor_si512(last_above, above),
                    unseen_after,
                );
                right = _mm512_mask_add_epi64(right, hit, right, ones);
                // The next G: above this card after a rise, below it (bit − 1) after a fall.
                let rising = _mm512_cmpgt_epu64_mask(card, last);
                guess_side = _mm512_mask_blend_epi64(rising, _mm512_sub_epi64(bit, ones), above);
                last = card;
                last_above = above;
                // A descent of the inverse: card + 1 seen before this card (no card + 1 for
                // card 63, whose bit shifted up is 0).
                let next_seen = _mm512_test_epi64_mask(seen, _mm512_slli_epi64::<1>(bit));
                inverse_descents =
                    _mm512_mask_add_epi64(inverse_descents, next_seen, inverse_descents, ones);
                // Inversions: the cards above this one seen before it.
                inversions = _mm512_add_epi64(
                    inversions,
                    _mm512_popcnt_epi64(_mm512_and_si512(seen, above)),
                );
                seen = _mm512_or_si512(seen, bit);
                // Patience sorting: the card replaces the least top above it, or starts a pile.
                let higher = _mm512_and_si512(tops, above);
                let least = _mm512_and_si512(higher, _mm512_sub_epi64(zero, higher));
                tops = _mm512_or_si512(_mm512_andnot_si512(least, tops), bit);
            }
            let piles = _mm512_popcnt_epi64(tops);
            let mut lanes = [[0u64; LANES]; 4];
            for (out, vector) in lanes
                .iter_mut()
                .zip([inversions, piles, right, inverse_descents])
            {
                // SAFETY: eight 64-bit lanes into eight u64.
                unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), vector) };
            }
            std::array::from_fn(|lane| lanes.map(|values| values[lane] as u16))
        }

        /// The eight cards of one position, one to a 64-bit lane. The cards are below 64;
        /// masked to 6 bits, the compiler knows it too, and the walk's shifts by a card need no
        /// test of each lane for a shift of 64 or more.
        #[target_feature(enable = "avx512f")]
        #[inline]
        fn load_column(column: &[u8; LANES]) -> __m512i {
            // SAFETY: a column is 8 × 8 bits, one 64-bit load.
            let bytes = unsafe { _mm_loadl_epi64(column.as_ptr().cast()) };
            _mm512_cvtepu8_epi64(_mm_and_si128(bytes, _mm_set1_epi8(63)))
        }

        /// See [`super::statistics`]: one call for the batch, the decks' work inlined.
        #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
        pub(super) fn statistics_of_decks(
            decks: &[Card],
            n: usize,
            inverses: Option<&[[u8; FUSED_MAX_DECK]; LANES]>,
        ) -> [[u16; 8]; LANES] {
            let mut values = [[0; 8]; LANES];
            for (lane, (deck, values)) in decks.chunks_exact(n).zip(&mut values).enumerate() {
                *values = statistics(deck, inverses.map(|inverses| &inverses[lane]));
            }
            values
        }

        /// The statistics of one deck (see [`super::statistics`]).
        #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,popcnt")]
        #[inline]
        pub(super) fn statistics(deck: &[Card], inverse: Option<&[u8; FUSED_MAX_DECK]>) -> [u16; 8] {
            let n = deck.len();
            let lanes = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
            // SAFETY: the masks cover `deck[..n]` only; masked-off lanes are not read (the
            // second pointer may pass the end of a short deck, so it is formed by wrapping_add).
            let (low, high) = unsafe {
                (
                    _mm512_maskz_loadu_epi16(lanes as u32, deck.as_ptr().cast()),
                    _mm512_maskz_loadu_epi16(
                        (lanes >> 32) as u32,
                        deck.as_ptr().wrapping_add(32).cast(),
                    ),
                )
            };
            let identity = _mm512_set_epi8(
                63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43,
                42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22,
                21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
            );
            // The deck in bytes (cards are below 64), the lanes past n fixed points.
            let packed = _mm512_inserti64x4::<1>(
                _mm512_castsi256_si512(_mm512_cvtepi16_epi8(low)),
                _mm512_cvtepi16_epi8(high),
            );
            let permutation = _mm512_mask_blend_epi8(lanes, identity, packed);
            let fixed = _mm512_cmpeq_epi8_mask(permutation, identity) & lanes;
            // next[i] = deck[i + 1]: the lane above (lane 63 reads lane 0, and is masked off).
            let up = _mm512_add_epi8(identity, _mm512_set1_epi8(1));
            let next = _mm512_permutexvar_epi8(up, permutation);
            let pairs = lanes >> 1;
            let adjacent =
                _mm512_cmpeq_epi8_mask(next, _mm512_add_epi8(permutation, _mm512_set1_epi8(1)))
                    & pairs;
            let inverse_descents = inverse.map_or(0, |inverse| {
                // SAFETY: `inverse` is 64 bytes.
                let inverse = unsafe { _mm512_loadu_si512(inverse.as_ptr().cast()) };
                _mm512_cmplt_epu8_mask(_mm512_permutexvar_epi8(up, inverse), inverse) & pairs
            });
            let mut least = identity;
            let mut power = permutation;
            for round in 0..6 {
                least = _mm512_min_epu8(least, _mm512_permutexvar_epi8(power, least));
                if round < 5 {
                    power = _mm512_permutexvar_epi8(power, power);
                }
            }
            let cycles = _mm512_cmpeq_epi8_mask(least, identity) & lanes;
            // The deck's own descents: the next card below this one.
            let deck_descents = _mm512_cmplt_epu8_mask(next, permutation) & pairs;
            // A valley at i: a descent ending at i (bit i − 1) and a rise after it (no descent
            // at i).
            let valleys = (deck_descents << 1) & !deck_descents & pairs;
            // Red cards are those below reds(n); a change of colour between i and i + 1.
            let red = _mm512_cmplt_epu8_mask(permutation, _mm512_set1_epi8(reds(n) as i8)) & lanes;
            let colour = (red ^ (red >> 1)) & pairs;
            // Σ|card − position|: sums of absolute byte differences, eight bytes to a 64-bit
            // lane (the lanes past n hold their own position: 0).
            let footrule = _mm512_reduce_add_epi64(_mm512_sad_epu8(permutation, identity)) as u16;
            super::super::values_of_masks(
                [
                    fixed,
                    cycles,
                    inverse_descents,
                    adjacent,
                    deck_descents,
                    valleys,
                    colour,
                ],
                footrule,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_counts_positions_identity_and_every_statistic() {
        let mut tally = MarginalTally::new(4);
        tally.add(&[0, 1, 2, 3]);
        tally.add(&[1, 2, 3, 0]);
        assert_eq!(tally.trials, 2);
        assert_eq!(tally.identity, 1);
        // Card 0 at position 0 once, at position 3 once.
        assert_eq!(tally.position_matrix()[0], vec![1, 0, 0, 1]);
        // The identity has 4 fixed points, the rotation none.
        assert_eq!(tally.histogram(Statistic::FixedPoints), &[1, 0, 0, 0, 1]);
        // The identity has 4 cycles, the rotation 1.
        assert_eq!(tally.histogram(Statistic::Cycles)[4], 1);
        assert_eq!(tally.histogram(Statistic::Cycles)[1], 1);
        // 1 2 3 0 keeps the pairs (1,2) and (2,3); the identity keeps all three.
        assert_eq!(tally.histogram(Statistic::AdjacentPairs)[2], 1);
        assert_eq!(tally.histogram(Statistic::AdjacentPairs)[3], 1);
    }

    #[test]
    fn merging_two_tallies_equals_tallying_everything_in_one() {
        let decks: [[Card; 3]; 4] = [[0, 1, 2], [2, 1, 0], [1, 0, 2], [2, 0, 1]];
        let mut whole = MarginalTally::new(3);
        let mut first = MarginalTally::new(3);
        let mut second = MarginalTally::new(3);
        for (i, deck) in decks.iter().enumerate() {
            whole.add(deck);
            if i < 2 {
                first.add(deck);
            } else {
                second.add(deck);
            }
        }
        first.merge(&second);
        assert_eq!(first, whole);
    }

    /// Decks of `n` cards to check the fused pass on: the identity, its reversal, rotations,
    /// and Fisher–Yates shuffles of a fixed ChaCha8 stream.
    fn decks_to_check(n: usize) -> Vec<Vec<Card>> {
        use crate::engine::algorithms::fisher_yates::fisher_yates;
        use crate::engine::random_source::{BlockRng, FastSource};
        use rand_chacha::ChaCha8Rng;
        let identity: Vec<Card> = (0..n as Card).collect();
        let mut decks = vec![identity.clone(), identity.iter().rev().copied().collect()];
        for shift in [1, n / 2] {
            let mut deck = identity.clone();
            deck.rotate_left(shift % n);
            decks.push(deck);
        }
        let mut source = FastSource::new(ChaCha8Rng::for_block(7, n as u64));
        for _ in 0..300 {
            let mut deck = identity.clone();
            fisher_yates(&mut deck, &mut source);
            decks.push(deck);
        }
        decks
    }

    #[test]
    fn the_fused_pass_counts_what_the_plain_tally_counts_deck_by_deck() {
        for n in [1, 2, 3, 5, 13, 52, 63, 64, 65, 100] {
            let decks = decks_to_check(n);
            let mut plain = MarginalTally::new(n);
            for deck in &decks {
                plain.add(deck);
            }
            // Batches of every size from 1 to LANES, in turn, so both walks are exercised; the
            // AVX-512 statistics and the one-instruction bit counts where the CPU has them, and
            // the baseline ones everywhere.
            for (wide, bits, wide_order) in [
                (false, false, false),
                (wide::available(), false, false),
                (false, bit_counts::available(), false),
                (wide::available(), bit_counts::available(), false),
                (false, false, wide::order_available()),
                (wide::available(), bit_counts::available(), wide::order_available()),
            ] {
                for avx2_order in [false, order_avx2::available()] {
                    for avx2_stats in [false, stats_avx2::available()] {
                        let mut fused = FusedMarginalTally::new(n);
                        fused.wide = wide;
                        fused.bit_counts = bits;
                        fused.wide_order = wide_order;
                        fused.avx2_order = avx2_order;
                        fused.avx2_stats = avx2_stats;
                        check_fused(fused, &decks, &plain, n);
                    }
                }
            }
        }
    }

    #[test]
    fn large_decks_position_counts_are_added_in_before_a_16_bit_count_could_wrap() {
        // Decks of more than 64 cards count their positions in 16 bits between flushes: a deck
        // repeated 65,535 + 1,000 times takes a cell past u16::MAX, and a shuffled deck between
        // the copies moves the other cells, all as the plain tally counts them.
        let n = 65;
        let start: Vec<Card> = (0..n as Card).collect();
        let shuffled = &decks_to_check(n)[10];
        let mut plain = MarginalTally::new(n);
        let mut fused = FusedMarginalTally::new(n);
        for copy in 0..usize::from(u16::MAX) + 1_000 {
            let deck = if copy % 1_000 == 999 { shuffled } else { &start };
            plain.add(deck);
            fused.add_decks(deck);
        }
        let fused = fused.finish();
        assert!(fused.positions[0] > u64::from(u16::MAX));
        assert_eq!(fused, plain);
    }

    /// Feed `decks` to `fused` in batches of 1 to LANES decks and compare with `plain`.
    fn check_fused(
        mut fused: FusedMarginalTally,
        decks: &[Vec<Card>],
        plain: &MarginalTally,
        n: usize,
    ) {
        let flat: Vec<Card> = decks.concat();
        let mut start = 0;
        let mut size = 1;
        while start < decks.len() {
            let end = (start + size).min(decks.len());
            fused.add_decks(&flat[start * n..end * n]);
            start = end;
            size = size % LANES + 1;
        }
        assert_eq!(&fused.finish(), plain, "{n} cards");
    }

    #[test]
    fn the_vector_order_statistics_are_the_scalar_walks_at_every_deck_size() {
        for n in 1..=FUSED_MAX_DECK {
            let decks = decks_to_check(n);
            // Every window of eight consecutive decks, so that each deck is seen in every lane.
            for batch in decks.windows(LANES) {
                let flat = batch.concat();
                // The fourth value, the descents of the inverse: the cards c with c + 1 before
                // them, found from each card's position.
                let scalar: Vec<[u16; 4]> = batch
                    .iter()
                    .map(|deck| {
                        let [inversions, longest, guessing] = order_statistics::<1>(deck, n)[0];
                        let mut position = vec![0; n];
                        for (at, &card) in deck.iter().enumerate() {
                            position[usize::from(card)] = at;
                        }
                        let descents = (1..n).filter(|&c| position[c] < position[c - 1]).count();
                        [inversions, longest, guessing, descents as u16]
                    })
                    .collect();
                if order_avx2::available() {
                    let avx2 = order_avx2::order_statistics(&flat, n);
                    assert_eq!(avx2.to_vec(), scalar, "AVX2, {n} cards");
                }
                if wide::order_available() {
                    let wide = wide::order_statistics(&flat, n);
                    assert_eq!(wide.to_vec(), scalar, "AVX-512, {n} cards");
                }
            }
        }
    }

    #[test]
    fn the_vector_statistics_count_what_the_plain_tally_counts_at_every_deck_size() {
        for n in 1..=FUSED_MAX_DECK {
            let decks = decks_to_check(n);
            let mut plain = MarginalTally::new(n);
            for deck in &decks {
                plain.add(deck);
            }
            if stats_avx2::available() {
                let mut fused = FusedMarginalTally::new(n);
                fused.wide = false;
                fused.wide_order = false;
                fused.avx2_stats = true;
                check_fused(fused, &decks, &plain, n);
            }
            // The AVX-512 statistics with and without the inverses (the order walk counting
            // their descents in full batches).
            if wide::available() {
                for wide_order in [false, wide::order_available()] {
                    let mut fused = FusedMarginalTally::new(n);
                    fused.wide = true;
                    fused.wide_order = wide_order;
                    check_fused(fused, &decks, &plain, n);
                }
            }
        }
    }

    #[test]
    fn the_word_passes_are_the_plain_statistics_deck_by_deck() {
        // Decks of 65 to 256 cards (two words and four): every window of eight consecutive
        // decks (each deck in every lane) through the word walk, and every deck through the
        // byte statistics, against the plain statistics of the same deck, on a CPU that runs
        // them; on any CPU, the whole tally against the plain one.
        for n in FUSED_MAX_DECK + 1..=words::WORDS_MAX_DECK {
            let decks = decks_to_check(n);
            let mut whole = MarginalTally::new(n);
            for deck in &decks {
                whole.add(deck);
            }
            // In batches of every size, with and without the word passes, and in full batches.
            for two in [false, words::available()] {
                let mut fused = FusedMarginalTally::new(n);
                fused.word_passes = two;
                check_fused(fused, &decks, &whole, n);
            }
            let mut fused = FusedMarginalTally::new(n);
            for batch in decks.chunks(LANES) {
                fused.add_decks(&batch.concat());
            }
            assert_eq!(fused.finish(), whole, "{n} cards, full batches");
            if !words::available() {
                continue;
            }
            let mut scratch = vec![0; scratch_len(n)];
            let plain: Vec<StatisticValues> = decks
                .iter()
                .map(|deck| StatisticValues::of(deck, &mut scratch))
                .collect();
            let value = |deck: usize, statistic: Statistic| plain[deck].get(statistic) as u16;
            for (first, batch) in decks.windows(LANES).enumerate() {
                let order = words::order_statistics(&batch.concat(), n);
                for (lane, &[inversions, guessing, inverse_descents]) in order.iter().enumerate() {
                    let deck = first + lane;
                    assert_eq!(
                        [inversions, guessing, inverse_descents + 1],
                        [
                            value(deck, Statistic::Inversions),
                            value(deck, Statistic::Guessing),
                            value(deck, Statistic::RisingSequences),
                        ],
                        "{n} cards, deck {deck} in lane {lane}"
                    );
                }
            }
            for (deck, cards) in decks.iter().enumerate() {
                let [fixed, cycles, _, adjacent, descents, footrule, valleys, colour] =
                    words::statistics(cards);
                assert_eq!(
                    [fixed, cycles, adjacent, descents, valleys, colour],
                    [
                        Statistic::FixedPoints,
                        Statistic::Cycles,
                        Statistic::AdjacentPairs,
                        Statistic::Descents,
                        Statistic::Valleys,
                        Statistic::ColourChanges,
                    ]
                    .map(|statistic| value(deck, statistic)),
                    "{n} cards, deck {deck}"
                );
                // The footrule by its definition (the plain statistics leave it out past its
                // exact law's 100 cards).
                let sum: usize = cards
                    .iter()
                    .enumerate()
                    .map(|(place, &card)| usize::from(card).abs_diff(place))
                    .sum();
                assert_eq!(usize::from(footrule), sum, "{n} cards, deck {deck}");
            }
        }
    }

    #[test]
    fn interleaved_cycle_walks_count_each_decks_cycles() {
        // Known counts: the identity has n cycles, a rotation by one a single cycle, the
        // reversal ⌈n/2⌉ (n/2 swaps, plus the middle card for odd n).
        let n = 52;
        let identity: Vec<Card> = (0..n as Card).collect();
        let mut rotation = identity.clone();
        rotation.rotate_left(1);
        let reversal: Vec<Card> = identity.iter().rev().copied().collect();
        let decks = [
            &identity, &rotation, &reversal, &identity, &rotation, &reversal, &identity, &rotation,
        ]
        .map(|deck| deck.as_slice())
        .concat();
        assert_eq!(
            cycle_counts::<LANES>(&decks, n),
            [52, 1, 26, 52, 1, 26, 52, 1]
        );
    }
}
