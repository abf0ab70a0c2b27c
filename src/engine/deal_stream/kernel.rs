//! The Mallows kernel between consecutive decks, for the serial Mallows MMD test of
//! [`crate::analysis::mallows`]: per consecutive pair of whole decks (σ_t, σ_{t+1}), the kernel
//! k = exp(−λ·d) of their Kendall distance d (pairs of cards in opposite order in the two
//! decks, the inversions of σ_{t+1}∘σ_t⁻¹), summed with its square.
//!
//! **Bandwidth.** λ = 1/s, s² = n(n−1)(2n+5)/72 the variance of the Mahonian law (the law of d
//! when one deck is uniform): the kernel moves by a factor e per standard deviation of d.
//!
//! **Deterministic sums.** The sums must not depend on the order in which workers' parts are
//! added (threads, shards merged later), so they are integers: each term is the kernel
//! *centred* on the Mahonian mean μ = n(n−1)/4, k̃ = exp(λ(μ − d)) = k·e^{λμ}, in fixed point
//! with 64 fraction bits, floor(k̃·2^64), added into a 256-bit integer ([`WideSum`]). The centring
//! is a constant factor, which changes neither the test's z nor its p-value, but keeps the
//! terms near 1: the uncentred kernel is about e^{−1.5√n} (e^{−47} at 1000 cards), far below any
//! fixed point. k̃ lies in [e^{−λμ}, e^{λμ}]; at 1000 cards λμ = 47.4 (68.3 bits), so k̃²·2^64
//! stays below 2^201 and a sum has room for 2^55 pairs even if every pair were the same deck
//! twice.

use crate::engine::algorithms::Card;
use crate::engine::byte_columns;
use crate::engine::permutation::MAX_FULL_DECK;
use crate::engine::statistics::inversions;

/// The smallest deck whose kernel is counted: decks beyond full mode's ([`MAX_FULL_DECK`]
/// cards). Up to 10 cards the serial compositions test already tests the whole law of
/// σ_{t+1}∘σ_t⁻¹, of which the mean kernel is one linear function, and full mode counts its
/// pairs from the decks' ranks in its hot loop, where a distance per pair would cost.
pub const KERNEL_MIN_DECK: usize = MAX_FULL_DECK + 1;

/// Whether a stream of deals of `dealt` cards out of `deck` counts the kernel: whole decks of
/// at least [`KERNEL_MIN_DECK`] cards.
pub fn counts_kernel(deck: usize, dealt: usize) -> bool {
    dealt == deck && deck >= KERNEL_MIN_DECK
}

/// Every how many pairs the kernel is counted on decks of `deck` cards: the pairs whose second
/// deal has an index in its block (in the stream, outside blocks) divisible by the stride, so
/// the same pairs whatever the threads and the shards (a seam, index 0, always counts). A
/// deterministic choice of pairs keeps the test exact (the kernels of the pairs chosen are a
/// martingale difference sequence under the null like those of all pairs) at the price of
/// √stride in z.
///
/// Up to 64 cards the distance is one pass over a bit set and every pair counts (measured:
/// `run fisher-yates -n 52 -t 2M --threads 1` took 2.6–2.9 s of CPU before the kernel and
/// 2.2–3.3 s with it, within the noise of a shared machine). Above, it is a Fenwick tree,
/// O(n log n) a pair: at 1000 cards every pair cost 30–50% more CPU (`-n 1000 -t 50k`: 3.4–3.8 s
/// before, 4.1–5.5 s after), so one pair in [`KERNEL_STRIDE_ABOVE_64`] counts.
pub fn kernel_stride(deck: usize) -> u64 {
    if deck <= 64 {
        1
    } else {
        KERNEL_STRIDE_ABOVE_64
    }
}

/// The stride of decks of more than 64 cards (see [`kernel_stride`]).
pub const KERNEL_STRIDE_ABOVE_64: u64 = 4;

/// The Mallows kernel of decks of n cards (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MallowsKernel {
    /// n.
    pub deck: usize,
    /// λ = 1/s, s the Mahonian standard deviation.
    pub lambda: f64,
    /// μ = n(n−1)/4, the Mahonian mean, on which the summed kernel is centred.
    pub center: f64,
}

impl MallowsKernel {
    /// The kernel of decks of `deck` cards.
    pub fn new(deck: usize) -> Self {
        let n = deck as f64;
        let variance = n * (n - 1.0) * (2.0 * n + 5.0) / 72.0;
        MallowsKernel {
            deck,
            lambda: if variance > 0.0 {
                1.0 / variance.sqrt()
            } else {
                1.0
            },
            center: n * (n - 1.0) / 4.0,
        }
    }

    /// The centred kernel k̃ = exp(λ(μ − d)) of two decks at Kendall distance `distance`.
    #[inline]
    pub fn centred(&self, distance: usize) -> f64 {
        (self.lambda * (self.center - distance as f64)).exp()
    }
}

/// A sum of non-negative reals in fixed point with 64 fraction bits, in a 256-bit integer
/// (little-endian words): integer addition, so the same whatever the order of the terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WideSum(pub [u64; 4]);

impl WideSum {
    /// Add floor(`value`·2^64) (`value` finite, ≥ 0, below 2^191; the sum wraps at 2^192
    /// times the unit, which the module documentation shows out of reach).
    #[inline]
    pub fn add_real(&mut self, value: f64) {
        debug_assert!(value >= 0.0 && value < 2f64.powi(191));
        let bits = value.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as i32;
        if exponent == 0 {
            return; // zero or subnormal: below 2^−1022, nothing at 2^−64
        }
        let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
        // value·2^64 = mantissa·2^shift.
        let shift = exponent - 1075 + 64;
        if shift <= -64 {
            return;
        }
        if shift < 0 {
            self.add_at(0, u128::from(mantissa >> -shift));
        } else {
            let shift = shift as u32;
            let word = (shift / 64) as usize;
            self.add_at(word, u128::from(mantissa) << (shift % 64));
        }
    }

    /// Add floor(`value`·2^64) `times` times: the very integer `times` calls of
    /// [`Self::add_real`] would add (both wrap at 2^256).
    pub fn add_real_times(&mut self, value: f64, times: u64) {
        let mut once = WideSum::default();
        once.add_real(value);
        let mut product = [0u64; 4];
        let mut carry = 0u128;
        for (slot, &word) in product.iter_mut().zip(&once.0) {
            let wide = u128::from(word) * u128::from(times) + carry;
            *slot = wide as u64;
            carry = wide >> 64;
        }
        self.add(&WideSum(product));
    }

    /// Add `value`·2^(64·`word`).
    #[inline]
    fn add_at(&mut self, word: usize, value: u128) {
        let mut carry = value;
        for slot in &mut self.0[word..] {
            if carry == 0 {
                break;
            }
            let sum = u128::from(*slot) + (carry & u128::from(u64::MAX));
            *slot = sum as u64;
            carry = (carry >> 64) + (sum >> 64);
        }
    }

    /// Add another sum.
    pub fn add(&mut self, other: &WideSum) {
        for (word, &value) in other.0.iter().enumerate() {
            self.add_at(word, u128::from(value));
        }
    }

    /// The sum as a real (rounded).
    pub fn to_f64(self) -> f64 {
        self.0
            .iter()
            .enumerate()
            .map(|(word, &value)| value as f64 * 2f64.powi(64 * word as i32 - 64))
            .sum()
    }

    /// The 256-bit integer in hexadecimal, 64 digits (most significant first): how a tally file
    /// stores it.
    pub fn to_hex(self) -> String {
        self.0.iter().rev().map(|w| format!("{w:016x}")).collect()
    }

    /// The sum [`WideSum::to_hex`] wrote; None unless 1 to 64 hexadecimal digits.
    pub fn from_hex(text: &str) -> Option<WideSum> {
        if text.is_empty() || text.len() > 64 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let padded = format!("{text:0>64}");
        let mut words = [0u64; 4];
        for (i, word) in words.iter_mut().enumerate() {
            let at = 64 - 16 * (i + 1);
            *word = u64::from_str_radix(&padded[at..at + 16], 16).ok()?;
        }
        Some(WideSum(words))
    }
}

/// The kernel's sums over the consecutive pairs of a stream: what the serial Mallows MMD test
/// reads, and what a tally file stores and `merge` adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelSums {
    /// Pairs whose kernel is summed.
    pub pairs: u64,
    /// Σ floor(k̃·2^64) over them.
    pub sum: WideSum,
    /// Σ floor(k̃²·2^64) over them.
    pub squares: WideSum,
}

impl KernelSums {
    /// Add the pair whose centred kernel is `centred`.
    #[inline]
    pub fn add_pair(&mut self, centred: f64) {
        self.pairs += 1;
        self.sum.add_real(centred);
        self.squares.add_real(centred * centred);
    }

    /// Add `pairs` pairs whose centred kernel is `centred`: the same sums as `pairs` calls of
    /// [`Self::add_pair`].
    pub fn add_pairs(&mut self, centred: f64, pairs: u64) {
        self.pairs += pairs;
        self.sum.add_real_times(centred, pairs);
        self.squares.add_real_times(centred * centred, pairs);
    }

    /// Add another part's sums.
    pub fn add(&mut self, other: &KernelSums) {
        self.pairs += other.pairs;
        self.sum.add(&other.sum);
        self.squares.add(&other.squares);
    }
}

/// A stream's kernel counter: the kernel, its sums, and the buffers for one distance.
///
/// The distance d is an integer in [0, n(n−1)/2], so the pairs are counted by distance and
/// the kernel summed once per distance seen ([`Self::sums`]): floor(k̃(d)·2^64) added c times
/// is the integer c·floor(k̃(d)·2^64), so the sums are those of adding every pair's kernel in
/// turn, to the last bit, without an exponential per pair.
#[derive(Debug, Clone)]
pub(super) struct KernelCounter {
    kernel: MallowsKernel,
    stride: u64,
    /// Sums added from elsewhere (a saved tally's, another part's).
    pub(super) sums: KernelSums,
    /// `distances[d]`: pairs counted here at Kendall distance d.
    distances: Vec<u64>,
    /// How the pairs of decks of at most 64 cards that are not counted in lanes are counted
    /// ([`Self::pair`]; asked once, in [`Self::new`]).
    sets_by: SetCount,
    /// The CPU has AVX-512 F and VPOPCNTDQ: eight pairs' distances at once
    /// ([`Self::pairs_at`]; asked once, in [`Self::new`]).
    lanes: bool,
    /// With `lanes`, the CPU also has AVX-512 BW and VBMI: a batch's decks are relabelled and
    /// transposed in vector registers ([`relabel_lanes`]; asked once, in [`Self::new`]).
    vbmi: bool,
    /// Two batches of eight pairs' relabelled next decks, transposed: `columns[b][slot][pair]`
    /// (64 slots, the first `kernel.deck` counted).
    /// A batch is counted when the next one has been written (or in [`Self::distances`]): its
    /// stores have long left the store buffer by then, and a column's one vector load is not
    /// stalled waiting on the eight stores that wrote it.
    columns: [Box<[[u8; PAIR_LANES]; 64]>; 2],
    /// The batch written but not yet counted, if any.
    pending: Option<usize>,
    /// `slot_of[card]`: the card's slot in the previous deck.
    slot_of: Vec<usize>,
    /// `relabelled[s]`: the slot in the previous deck of the card at slot s of the next.
    relabelled: Vec<Card>,
    scratch: Vec<usize>,
    /// Two decks' [`after_sets`] (decks of at most 64 cards), the earlier and the later of a
    /// pair in turn.
    sets: Box<[[u64; 64]; 2]>,
}

/// How the discordant pairs of two decks' [`after_sets`] are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SetCount {
    /// Four sets a vector, their bits counted by nibble look-ups (AVX2).
    Avx2,
    /// A set at a time, one instruction a count (POPCNT).
    Popcnt,
    /// A set at a time, the portable bit count.
    Plain,
}

impl KernelCounter {
    /// A counter for decks of `deck` cards.
    pub(super) fn new(deck: usize) -> Self {
        KernelCounter {
            kernel: MallowsKernel::new(deck),
            stride: kernel_stride(deck),
            sums: KernelSums::default(),
            distances: vec![0; deck * deck.saturating_sub(1) / 2 + 1],
            sets_by: if avx2_available() {
                SetCount::Avx2
            } else if popcnt_available() {
                SetCount::Popcnt
            } else {
                SetCount::Plain
            },
            lanes: deck <= 64 && lanes_available(),
            vbmi: deck <= 64 && lanes_available() && byte_columns::available(),
            columns: std::array::from_fn(|_| Box::new([[0; PAIR_LANES]; 64])),
            pending: None,
            slot_of: vec![0; deck],
            relabelled: vec![0; deck],
            scratch: vec![0; deck + 1],
            sets: Box::new([[0; 64]; 2]),
        }
    }

    /// Count the pair (`previous`, `next`), `next` the deal of index `index` in its block, if
    /// the stride picks it.
    #[inline]
    pub(super) fn pair_at(&mut self, index: u64, previous: &[Card], next: &[Card]) {
        if index.is_multiple_of(self.stride) {
            self.pair(previous, next);
        }
    }

    /// Count the pair (`previous`, `next`). Up to 64 cards, by the cards that follow each card
    /// in either deck ([`after_sets`], [`Self::discordant`]); above, their Kendall distance is
    /// the inversions of the next deck with each card replaced by its slot in the previous one
    /// (pairs of slots s < s' whose cards come in the opposite order in the previous deck).
    #[inline]
    pub(super) fn pair(&mut self, previous: &[Card], next: &[Card]) {
        let distance = if self.kernel.deck <= 64 {
            let [earlier, later] = &mut *self.sets;
            after_sets(previous, earlier);
            after_sets(next, later);
            self.discordant(0)
        } else {
            for (slot, &card) in previous.iter().enumerate() {
                self.slot_of[usize::from(card)] = slot;
            }
            for (target, &card) in self.relabelled.iter_mut().zip(next) {
                *target = self.slot_of[usize::from(card)] as Card;
            }
            inversions(&self.relabelled, &mut self.scratch)
        };
        self.distances[distance] += 1;
    }

    /// The pairs of cards in opposite order in the decks whose [`after_sets`] are
    /// `sets[earlier]` and `sets[1 − earlier]`: Σ_c |after_σ(c) \ after_τ(c)|, each
    /// discordant pair counted once, at its card that comes first in σ.
    #[inline]
    fn discordant(&self, earlier: usize) -> usize {
        let (a, b) = (&self.sets[earlier], &self.sets[1 - earlier]);
        match self.sets_by {
            // SAFETY: `Avx2` and `Popcnt` are only chosen where the CPU has them (in `new`).
            SetCount::Avx2 => unsafe { discordant_avx2(a, b) },
            SetCount::Popcnt => unsafe { discordant_popcnt(a, b) },
            SetCount::Plain => discordant_pairs(a, b),
        }
    }

    /// Count the consecutive pairs of decks of at most 64 cards one after another, each deck's
    /// [`after_sets`] made once for both of its pairs: (`previous`, first deal) when there is a
    /// previous deal, then each deal of `deals` (`k` cards each) with the next.
    fn pairs_by_sets(&mut self, previous: Option<&[Card]>, deals: &[Card], k: usize) {
        debug_assert!(k <= 64 && self.stride == 1);
        let mut earlier = 0;
        let mut paired = false;
        if let Some(previous) = previous {
            after_sets(previous, &mut self.sets[earlier]);
            paired = true;
        }
        for deal in deals.chunks_exact(k) {
            let later = 1 - earlier;
            after_sets(deal, &mut self.sets[later]);
            if paired {
                let distance = self.discordant(earlier);
                self.distances[distance] += 1;
            }
            earlier = later;
            paired = true;
        }
    }

    /// Count the consecutive pairs of a batch: (`previous`, first deal) when there is a
    /// previous deal, then each deal of `deals` (`k` cards each) with the next; the batch's
    /// first deal has index `index` in its block. The same counts as [`Self::pair_at`] on each
    /// pair in turn; with AVX-512 (decks of at most 64 cards, where every pair counts) eight
    /// pairs' distances are counted at once, one to a 64-bit lane.
    pub(super) fn pairs_at(
        &mut self,
        index: u64,
        previous: Option<&[Card]>,
        deals: &[Card],
        k: usize,
    ) {
        let count = deals.len() / k;
        let pairs = count.saturating_sub(1) + usize::from(previous.is_some());
        if !self.lanes && k <= 64 {
            self.pairs_by_sets(previous, deals, k);
            return;
        }
        if !self.lanes || pairs < PAIR_LANES {
            if let Some(previous) = previous {
                self.pair_at(index, previous, &deals[..k]);
            }
            for (i, (before, after)) in deals
                .chunks_exact(k)
                .zip(deals[k..].chunks_exact(k))
                .enumerate()
            {
                self.pair_at(index + 1 + i as u64, before, after);
            }
            return;
        }
        debug_assert_eq!(self.stride, 1, "decks of at most 64 cards count every pair");
        // Pair p is (deal p − 1, deal p), deal −1 being `previous`.
        let first = usize::from(previous.is_none());
        let before = |p: usize| match (p, previous) {
            (0, Some(previous)) => previous,
            _ => &deals[(p - 1) * k..p * k],
        };
        let mut p = first;
        while p + PAIR_LANES <= count {
            let batch = self.pending.map_or(0, |pending| 1 - pending);
            if self.vbmi {
                // Each previous deck's inverse (card → slot) as bytes; the rest in vectors.
                let mut inverses = [[0u8; 64]; PAIR_LANES];
                for (lane, inverse) in inverses.iter_mut().enumerate() {
                    for (slot, &card) in before(p + lane).iter().enumerate() {
                        // Cards are below 64 here: the mask only spares a bounds check.
                        inverse[usize::from(card) & 63] = slot as u8;
                    }
                }
                let nexts = &deals[p * k..(p + PAIR_LANES) * k];
                // SAFETY: `vbmi` is only set where the CPU has AVX-512 F, BW and VBMI; the
                // decks have k ≤ 64 cards, each below 64.
                unsafe { relabel_lanes(&inverses, nexts, k, &mut self.columns[batch]) };
            } else {
                for lane in 0..PAIR_LANES {
                    let pair = p + lane;
                    for (slot, &card) in before(pair).iter().enumerate() {
                        self.slot_of[usize::from(card)] = slot;
                    }
                    let next = &deals[pair * k..(pair + 1) * k];
                    for (column, &card) in self.columns[batch].iter_mut().zip(next) {
                        column[lane] = self.slot_of[usize::from(card)] as u8;
                    }
                }
            }
            if let Some(pending) = self.pending {
                // SAFETY: `lanes` is only set where the CPU has AVX-512 F and VPOPCNTDQ.
                let distances =
                    unsafe { inversions_of_lanes(&self.columns[pending][..self.kernel.deck]) };
                for distance in distances {
                    self.distances[distance as usize] += 1;
                }
            }
            self.pending = Some(batch);
            p += PAIR_LANES;
        }
        for pair in p..count {
            let next = &deals[pair * k..(pair + 1) * k];
            match (pair, previous) {
                (0, Some(previous)) => self.pair(previous, next),
                _ => {
                    let (before, after) = deals[(pair - 1) * k..(pair + 1) * k].split_at(k);
                    self.pair(before, after);
                }
            }
        }
    }

    /// `distances[d]`: the pairs counted here at Kendall distance d, the batch still pending
    /// included.
    fn distances(&self) -> Vec<u64> {
        let mut distances = self.distances.clone();
        if let Some(pending) = self.pending {
            let columns = &self.columns[pending][..self.kernel.deck];
            // SAFETY: a batch is only pending where `lanes` was set, which the CPU's AVX-512 F
            // and VPOPCNTDQ allow.
            for distance in unsafe { inversions_of_lanes(columns) } {
                distances[distance as usize] += 1;
            }
        }
        distances
    }

    /// The sums of every pair counted, and of those added from elsewhere.
    pub(super) fn sums(&self) -> KernelSums {
        let mut sums = self.sums;
        for (distance, &pairs) in self.distances().iter().enumerate() {
            if pairs > 0 {
                sums.add_pairs(self.kernel.centred(distance), pairs);
            }
        }
        sums
    }
}

/// Pairs whose distances [`KernelCounter::pairs_at`] counts at once: the 64-bit lanes of a
/// 512-bit vector.
const PAIR_LANES: usize = 8;

/// Whether this CPU counts eight pairs at once ([`inversions_of_lanes`]).
fn lanes_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The inversions of eight sequences of distinct values below 64 given column by column
/// (`columns[slot][lane]`), one sequence to a 64-bit lane:
/// [`crate::engine::statistics::inversions_in_bit_set`] in every lane at once (the values seen
/// so far as a bit set; each new value adds the count of those above it). Only where
/// [`lanes_available`] (the caller's promise).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
unsafe fn inversions_of_lanes(columns: &[[u8; PAIR_LANES]]) -> [u64; PAIR_LANES] {
    use std::arch::x86_64::*;
    let ones = _mm512_set1_epi64(1);
    let all_but_zero = _mm512_set1_epi64(!1u64 as i64);
    let mut seen = _mm512_setzero_si512();
    let mut inversions = _mm512_setzero_si512();
    // The values are below 64; masked to 6 bits, the compiler knows it too, and shifts them
    // without first testing each lane for a shift of 64 or more (five instructions a column
    // without AVX-512 BW).
    let six_bits = _mm_set1_epi8(63);
    for column in columns {
        // SAFETY: a column is 8 × 8 bits, one 64-bit load.
        let bytes = unsafe { _mm_loadl_epi64(column.as_ptr().cast()) };
        let value = _mm512_cvtepu8_epi64(_mm_and_si128(bytes, six_bits));
        let above = _mm512_sllv_epi64(all_but_zero, value);
        inversions = _mm512_add_epi64(
            inversions,
            _mm512_popcnt_epi64(_mm512_and_si512(seen, above)),
        );
        seen = _mm512_or_si512(seen, _mm512_sllv_epi64(ones, value));
    }
    let mut out = [0u64; PAIR_LANES];
    // SAFETY: `out` is 8 × 64 bits, one 512-bit store.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), inversions) };
    out
}

/// Never called off x86-64 ([`lanes_available`] is false there).
#[cfg(not(target_arch = "x86_64"))]
unsafe fn inversions_of_lanes(_: &[[u8; PAIR_LANES]]) -> [u64; PAIR_LANES] {
    unreachable!("no lanes off x86-64")
}

/// Writes `columns[slot][lane]` = `inverses[lane][next[slot]]` for the eight decks `nexts`
/// (`k` ≤ 64 cards each, one after another): each deck's cards packed to bytes and looked up
/// in its lane's inverse with one byte permutation, then transposed
/// ([`byte_columns::rows_to_columns`]). Slots from `k` on hold nothing meaningful. Only where
/// [`byte_columns::available`] (the caller's promise).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn relabel_lanes(
    inverses: &[[u8; 64]; PAIR_LANES],
    nexts: &[Card],
    k: usize,
    columns: &mut [[u8; PAIR_LANES]; 64],
) {
    use std::arch::x86_64::*;
    assert!(k <= 64 && nexts.len() == PAIR_LANES * k);
    let rows: [__m512i; PAIR_LANES] = std::array::from_fn(|lane| {
        let cards = byte_columns::deck_bytes(&nexts[lane * k..(lane + 1) * k]);
        // SAFETY: `inverses[lane]` is 64 bytes, one 512-bit load.
        let inverse = unsafe { _mm512_loadu_si512(inverses[lane].as_ptr().cast()) };
        _mm512_permutexvar_epi8(cards, inverse)
    });
    byte_columns::rows_to_columns(&rows, columns);
}

/// Never called off x86-64 ([`byte_columns::available`] is false there).
#[cfg(not(target_arch = "x86_64"))]
unsafe fn relabel_lanes(_: &[[u8; 64]; PAIR_LANES], _: &[Card], _: usize, _: &mut [[u8; PAIR_LANES]]) {
    unreachable!("no byte permutations off x86-64")
}

/// Whether this CPU has a one-instruction population count.
fn popcnt_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this CPU has AVX2 and POPCNT.
fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && popcnt_available()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `sets[c]`, for each card c of `deck` (a whole deck of at most 64 cards, each below 64): the
/// cards that come after c in `deck`, as bits.
#[inline(always)]
fn after_sets(deck: &[Card], sets: &mut [u64; 64]) {
    let mut after = 0u64;
    for &card in deck.iter().rev() {
        // Cards are below 64 here: the mask only spares a bounds check.
        let card = usize::from(card) & 63;
        sets[card] = after;
        after |= 1 << card;
    }
}

/// The pairs of cards in opposite order in two whole decks of at most 64 cards, from their
/// [`after_sets`] `a` (σ) and `b` (τ): a pair {c, d} with d after c in σ is discordant exactly
/// when d is not after c in τ, so it is counted once, in |a[c] \ b[c]|; a concordant pair is
/// in both or neither. Cells of cards absent from the decks are zero in both (never written).
#[inline(always)]
fn discordant_pairs(a: &[u64; 64], b: &[u64; 64]) -> usize {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| u64::from((x & !y).count_ones()))
        .sum::<u64>() as usize
}

/// [`discordant_pairs`] compiled for AVX2 (four sets a vector; the compiler counts their bits
/// by nibble look-ups). Only after [`avx2_available`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn discordant_avx2(a: &[u64; 64], b: &[u64; 64]) -> usize {
    discordant_pairs(a, b)
}

/// Never called off x86-64 ([`avx2_available`] is false there).
#[cfg(not(target_arch = "x86_64"))]
unsafe fn discordant_avx2(a: &[u64; 64], b: &[u64; 64]) -> usize {
    discordant_pairs(a, b)
}

/// [`discordant_pairs`] compiled for a CPU with POPCNT (x86-64 builds target the baseline
/// CPU, whose bit count is a dozen instructions). Only after [`popcnt_available`].
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "popcnt"))]
unsafe fn discordant_popcnt(a: &[u64; 64], b: &[u64; 64]) -> usize {
    discordant_pairs(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wide_sum_adds_reals_in_fixed_point_whatever_their_order() {
        let values = [1.5, 3.0e-10, 2.0f64.powi(100), 0.25, 7.0e30, 1.0e-25];
        let mut forward = WideSum::default();
        let mut backward = WideSum::default();
        for &v in &values {
            forward.add_real(v);
        }
        for &v in values.iter().rev() {
            backward.add_real(v);
        }
        assert_eq!(forward, backward);
        let mut one = WideSum::default();
        one.add_real(1.0);
        assert_eq!(one.0, [0, 1, 0, 0]);
        one.add_real(0.5);
        assert_eq!(one.0, [1 << 63, 1, 0, 0]);
        let total: f64 = values.iter().sum();
        assert!((forward.to_f64() / total - 1.0).abs() < 1e-15);
        // Carries cross words.
        let mut carry = WideSum([u64::MAX, u64::MAX, 0, 0]);
        carry.add_real(2.0f64.powi(-64));
        assert_eq!(carry.0, [0, 0, 1, 0]);
    }

    #[test]
    fn a_wide_sum_reads_back_its_hexadecimal() {
        let sum = WideSum([1, 2, 3, u64::MAX]);
        assert_eq!(WideSum::from_hex(&sum.to_hex()), Some(sum));
        assert_eq!(WideSum::from_hex("ff"), Some(WideSum([255, 0, 0, 0])));
        assert_eq!(WideSum::from_hex(""), None);
        assert_eq!(WideSum::from_hex("xyz"), None);
        assert_eq!(WideSum::from_hex(&"1".repeat(65)), None);
    }

    #[test]
    fn pairs_counted_by_distance_sum_to_the_bit_what_adding_each_pair_sums() {
        // Every distance of 20-card decks, each a different number of times (up to 2^40, where
        // the products carry across words), against one add per pair (one add of c copies, the
        // multiplication checked by repeated doubling for the large counts).
        let kernel = MallowsKernel::new(20);
        let mut by_count = KernelSums::default();
        let mut one_by_one = KernelSums::default();
        for distance in 0..=190 {
            let centred = kernel.centred(distance);
            let times = (distance as u64 * 7919) % 13 + 1;
            by_count.add_pairs(centred, times);
            for _ in 0..times {
                one_by_one.add_pair(centred);
            }
        }
        assert_eq!(by_count, one_by_one);
        let centred = kernel.centred(0); // the largest term, e^{λμ}
        let mut large = WideSum::default();
        large.add_real_times(centred, 1 << 40);
        let mut doubled = WideSum::default();
        doubled.add_real(centred);
        for _ in 0..40 {
            let copy = doubled;
            doubled.add(&copy);
        }
        assert_eq!(large, doubled);
    }

    #[test]
    fn a_batch_of_pairs_counts_what_its_pairs_count_one_by_one() {
        // Decks of 52, 64 and 17 cards from a fixed generator, batches of every length 1 to 20
        // (below, at and past the eight lanes, with and without a previous deal): the distances
        // counted in lanes (where the CPU has them, relabelled in vectors where it has VBMI
        // and card by card) and pair by pair are the same integers.
        use rand::seq::SliceRandom;
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for n in [52usize, 64, 17] {
            for count in 1..=20usize {
                let mut deals: Vec<Card> = Vec::new();
                for _ in 0..count {
                    let mut deck: Vec<Card> = (0..n as Card).collect();
                    deck.shuffle(&mut rng);
                    deals.extend(deck);
                }
                let previous: Vec<Card> = {
                    let mut deck: Vec<Card> = (0..n as Card).collect();
                    deck.shuffle(&mut rng);
                    deck
                };
                let with_previous = rng.random_bool(0.5);
                let mut batched = KernelCounter::new(n);
                batched.pairs_at(3, with_previous.then_some(&previous[..]), &deals, n);
                let mut one_by_one = KernelCounter::new(n);
                one_by_one.lanes = false;
                one_by_one.pairs_at(3, with_previous.then_some(&previous[..]), &deals, n);
                // Pair by pair through `pair_at`, each pair's sets made afresh.
                let mut pair_at = KernelCounter::new(n);
                let decks: Vec<&[Card]> = with_previous
                    .then_some(&previous[..])
                    .into_iter()
                    .chain(deals.chunks_exact(n))
                    .collect();
                let again: Vec<&[Card]> = deals.chunks_exact(n).collect();
                for pair in decks.windows(2).chain(again.windows(2)) {
                    pair_at.pair_at(0, pair[0], pair[1]);
                }
                // Lanes relabelled card by card (the CPUs without AVX-512 VBMI).
                let mut scalar_relabel = KernelCounter::new(n);
                scalar_relabel.vbmi = false;
                scalar_relabel.pairs_at(3, with_previous.then_some(&previous[..]), &deals, n);
                // Twice: the second call's first batch counts the first call's, left pending.
                batched.pairs_at(9, None, &deals, n);
                one_by_one.pairs_at(9, None, &deals, n);
                scalar_relabel.pairs_at(9, None, &deals, n);
                assert_eq!(
                    batched.distances(),
                    one_by_one.distances(),
                    "{n} cards, {count}"
                );
                assert_eq!(
                    scalar_relabel.distances(),
                    one_by_one.distances(),
                    "{n} cards, {count}, relabelled card by card"
                );
                assert_eq!(
                    pair_at.distances(),
                    one_by_one.distances(),
                    "{n} cards, {count}, pair by pair"
                );
                assert_eq!(batched.sums(), one_by_one.sums());
                let pairs = 2 * (count - 1) + usize::from(with_previous);
                assert_eq!(batched.distances().iter().sum::<u64>(), pairs as u64);
            }
        }
        // The lanes agree with the definition: pairs of cards in opposite order.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        let mut decks: Vec<Vec<Card>> = Vec::new();
        for _ in 0..9 {
            let mut deck: Vec<Card> = (0..40).collect();
            deck.shuffle(&mut rng);
            decks.push(deck);
        }
        let mut counter = KernelCounter::new(40);
        counter.pairs_at(0, None, &decks.concat(), 40);
        assert!(
            !counter.lanes || counter.pending.is_some(),
            "eight pairs, one batch"
        );
        let mut expected = vec![0u64; counter.distances.len()];
        for pair in decks.windows(2) {
            let slot = |deck: &[Card], card: Card| deck.iter().position(|&c| c == card);
            let mut opposite = 0;
            for a in 0..40 {
                for b in a + 1..40 {
                    let before = slot(&pair[0], a) < slot(&pair[0], b);
                    let after = slot(&pair[1], a) < slot(&pair[1], b);
                    opposite += usize::from(before != after);
                }
            }
            expected[opposite] += 1;
        }
        assert_eq!(counter.distances(), expected);
    }

    #[test]
    fn the_after_sets_count_the_inversions_of_the_relabelled_deck_at_every_size() {
        // Decks of 1 to 64 cards from a fixed generator, 40 pairs each (and a deck with itself
        // and with its reverse): the discordant pairs of the after sets, by every bit count this
        // CPU has, are the inversions of the next deck relabelled by slot in the previous one
        // (the Fenwick count of decks above 64 cards), 0 for a deck with itself and n(n−1)/2
        // for its reverse.
        use rand::SeedableRng;
        use rand::seq::SliceRandom;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        for n in 1..=64usize {
            let mut decks: Vec<Vec<Card>> = Vec::new();
            for _ in 0..41 {
                let mut deck: Vec<Card> = (0..n as Card).collect();
                deck.shuffle(&mut rng);
                decks.push(deck);
            }
            let mut pairs: Vec<(Vec<Card>, Vec<Card>, usize)> = decks
                .windows(2)
                .map(|pair| {
                    let mut slot_of = vec![0; n];
                    for (slot, &card) in pair[0].iter().enumerate() {
                        slot_of[usize::from(card)] = slot as Card;
                    }
                    let relabelled: Vec<Card> =
                        pair[1].iter().map(|&c| slot_of[usize::from(c)]).collect();
                    let expected = inversions(&relabelled, &mut vec![0; n + 1]);
                    (pair[0].clone(), pair[1].clone(), expected)
                })
                .collect();
            let reversed: Vec<Card> = decks[0].iter().rev().copied().collect();
            pairs.push((decks[0].clone(), decks[0].clone(), 0));
            pairs.push((decks[0].clone(), reversed, n * (n - 1) / 2));
            for sets_by in [SetCount::Plain, SetCount::Popcnt, SetCount::Avx2] {
                if sets_by == SetCount::Avx2 && !avx2_available()
                    || sets_by == SetCount::Popcnt && !popcnt_available()
                {
                    continue;
                }
                for (previous, next, expected) in &pairs {
                    let mut counter = KernelCounter::new(n);
                    counter.sets_by = sets_by;
                    after_sets(previous, &mut counter.sets[0]);
                    after_sets(next, &mut counter.sets[1]);
                    assert_eq!(counter.discordant(0), *expected, "{n} cards, {sets_by:?}");
                    assert_eq!(counter.discordant(1), *expected, "{n} cards, symmetric");
                }
            }
        }
    }

    #[test]
    fn the_kendall_distance_counts_the_pairs_of_cards_in_opposite_order() {
        let mut counter = KernelCounter::new(12);
        let previous: Vec<Card> = vec![3, 1, 4, 0, 5, 9, 2, 6, 8, 7, 11, 10];
        let next: Vec<Card> = vec![11, 0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9];
        let slot = |deck: &[Card], card: usize| deck.iter().position(|&c| usize::from(c) == card);
        let mut opposite = 0;
        for a in 0..12 {
            for b in a + 1..12 {
                let before = slot(&previous, a) < slot(&previous, b);
                let after = slot(&next, a) < slot(&next, b);
                opposite += usize::from(before != after);
            }
        }
        counter.pair(&previous, &next);
        let kernel = MallowsKernel::new(12);
        let mut expected = KernelSums::default();
        expected.add_pair(kernel.centred(opposite));
        assert_eq!(counter.sums(), expected);
        // Every way of counting the sets' bits, the same.
        for sets_by in [SetCount::Plain, SetCount::Popcnt, SetCount::Avx2] {
            if sets_by == SetCount::Avx2 && !avx2_available()
                || sets_by == SetCount::Popcnt && !popcnt_available()
            {
                continue;
            }
            let mut other = KernelCounter::new(12);
            other.sets_by = sets_by;
            other.pair(&previous, &next);
            assert_eq!(other.sums(), expected, "{sets_by:?}");
        }
        // λ = 1/s with s² = 12·11·29/72.
        assert!((kernel.lambda - (72.0f64 / (12.0 * 11.0 * 29.0)).sqrt()).abs() < 1e-15);
    }
}
