//! Permutation statistics with exact laws, for decks too large to tally all n! orderings.
//!
//! Each [`Statistic`] maps a shuffled deck to a small integer in O(n) time without allocating
//! (O(n log n) for inversions and the longest increasing subsequence above 64 cards),
//! and its law under a uniform shuffle is known exactly for every n, so a histogram of it over
//! many shuffles can be χ²-tested against that law:
//! * fixed points — rencontres numbers D(n, k) = C(n, k)·D(n − k), D(m) the derangements,
//!   D(m) = (m − 1)(D(m − 1) + D(m − 2)) (Montmort 1708; Riordan 1958, *An Introduction to
//!   Combinatorial Analysis*, ch. 3; OEIS A008290, A000166);
//! * cycles — unsigned Stirling numbers of the first kind c(n, k), the coefficients of the rising
//!   factorial x(x + 1)⋯(x + n − 1) (Stanley, *Enumerative Combinatorics* 1, §1.3;
//!   OEIS A132393);
//! * rising sequences (Bayer & Diaconis 1992, "Trailing the dovetail shuffle to its lair",
//!   *Ann. Appl. Probab.* 2(2)) — r(π) is one more than the number of descents of π⁻¹, so the
//!   count with r rising sequences is the Eulerian number ⟨n, r − 1⟩ (r − 1 descents), from
//!   ⟨m, d⟩ = (d + 1)⟨m − 1, d⟩ + (m − d)⟨m − 1, d − 1⟩ (Graham, Knuth & Patashnik, *Concrete
//!   Mathematics*, §6.2; OEIS A173018). Bayer & Diaconis write A(n, r) for ⟨n, r − 1⟩;
//! * adjacent pairs kept (card c directly followed by card c + 1, "successions") —
//!   T(n, k) = C(n − 1, k)·S(n − k), where S(m) = D(m) + D(m − 1) counts the permutations of m
//!   cards with no succession (Roselle 1968, "Permutations by number of rises and successions",
//!   *Proc. AMS* 19; David, Kendall & Barton 1966, *Symmetric Function and Allied Tables*,
//!   p. 263; OEIS A010027, A000255). Derivation:
//!   choose which k of the n − 1 pairs (c, c + 1) are kept and glue each into a block; the
//!   n − k blocks, renumbered in card order, must then be arranged with no further succession,
//!   since a block followed by the next block would keep one more pair.
//!
//! The counts are computed with big integers (one row of O(n) numbers; O(n²) operations for the
//! Stirling and Eulerian rows) and divided by n! with a correctly rounded big-rational → f64
//! conversion, so every probability is the f64 nearest the truth: a tail of 1e−2000 becomes 0
//! only because f64 cannot hold it (anything below 2^−1075 ≈ 2.5e−324 rounds to 0; between that
//! and 2^−1022 the result is subnormal, correctly rounded but with fewer significant bits).
//! Measured in release on a busy 2-core machine: at most 0.06 ms per law at n = 52; at
//! n = 1000, 2 ms for fixed points and adjacent pairs, 83 ms for cycles, 91 ms for rising
//! sequences.
//!
//! Four more see the order of the whole deck — descents, inversions, the longest increasing
//! subsequence and Spearman's footrule — with their values and exact laws in
//! [`crate::theory::rank_statistics`] (Eulerian and Mahonian numbers, the RSK count by hook
//! lengths, a transfer matrix for the footrule). Three of those laws cost more than O(n²), so
//! each statistic has a largest deck ([`Statistic::max_exact_deck`]) and marginal mode tallies
//! it only up to there, where it stays exact; beyond, the report says it is not tallied rather
//! than test it against an approximation:
//! * inversions up to 300 cards. An earlier version left them out altogether, because exactness
//!   is out of reach at n = 1000: the law has n(n − 1)/2 + 1 = 499 501 values whose exact counts
//!   would take about 530 MB (≈ 8 500 bits each) and Θ(n³) ≈ 1.7·10⁸ big-integer additions.
//!   At 300 cards the half of the row that symmetry leaves is 22 426 values of at most 2 000
//!   bits, computed in about 0.2 s. Counting them costs O(n) per shuffle on decks of up to 64
//!   cards (a bit set: each card adds the cards above it already seen) and O(n log n) above (a
//!   Fenwick tree). They are a different lens, not a better one: measured on 52 cards before
//!   (200 000 shuffles per algorithm, seed 42, trials for power 0.9 at α = 0.01 from the
//!   observed effect size) the best of the first four statistics needed 296 trials for `naive`
//!   (cycles; inversions 603), 1 for `sattolo` (cycles; 115), 22 for `comparator-merge`
//!   (adjacent pairs; 17), 1 344 for `comparator-quick` (adjacent pairs; 57 218) and 1 109 for
//!   `comparator-timsort` (rising sequences; 695): inversions help two algorithms by less than
//!   2× and are far weaker on the others, their effect being spread over ~440 pooled cells;
//! * the longest increasing subsequence up to 56 cards (the 526 823 partitions of 56);
//! * the footrule up to 100 cards (a transfer matrix of O(n⁴) big-integer steps);
//! * descents, like the first four, up to the largest marginal deck (1000 cards).
//!
//! `check --single` ([`crate::analysis::single_permutation`]), which judges one permutation, uses
//! the same exact laws and, beyond them, says which p-values are normal approximations.
//!
//! The riffle-shuffle laws of Bayer & Diaconis 1992 are here too: after K Gilbert–Shannon–Reeds
//! riffles of n cards, an ordering π has probability C(2^K + n − r(π), n)/2^(Kn), which gives the
//! exact law of the rising-sequence count ([`riffle_rising_law`]), the total variation distance
//! to uniform ([`riffle_tv_distance`]) and the number of riffles needed to get below a distance
//! ([`riffle_passes_needed`]).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};

use crate::engine::algorithms::Card;
use crate::stats::probability::Probability;
use crate::theory::rank_statistics;

/// Entries of working space [`Statistic::value`] and [`StatisticValues::of`] need for a deck of
/// n cards: the inverse permutation, then a Fenwick tree or the piles of patience sorting.
pub fn scratch_len(n: usize) -> usize {
    2 * n + 1
}

/// The largest deck any tally takes (marginal mode's 1000 cards, which
/// `engine::marginal` checks against this at compile time): the statistics whose law is cheap
/// at any size have their exact law up to here.
pub const EVERY_DECK: usize = 1000;

/// A permutation statistic whose law under a uniform shuffle is known exactly.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Statistic {
    /// Cards left at their starting position.
    FixedPoints,
    /// Cycles of the permutation, fixed points included.
    Cycles,
    /// Rising sequences (Bayer & Diaconis 1992).
    RisingSequences,
    /// Pairs (c, c + 1) left next to each other in that order.
    AdjacentPairs,
    /// Positions i whose card is above the next one's.
    Descents,
    /// Pairs of cards out of their starting order (Kendall's distance to the start).
    Inversions,
    /// The length of the longest increasing subsequence.
    LongestIncreasing,
    /// Spearman's footrule: the sum over cards of the distance moved.
    Footrule,
}

impl Statistic {
    /// Every statistic, in report order.
    pub const ALL: [Statistic; 8] = [
        Statistic::FixedPoints,
        Statistic::Cycles,
        Statistic::RisingSequences,
        Statistic::AdjacentPairs,
        Statistic::Descents,
        Statistic::Inversions,
        Statistic::LongestIncreasing,
        Statistic::Footrule,
    ];

    /// The largest deck whose exact law is computed (and so, in marginal mode, the largest deck
    /// on which the statistic is tallied and tested). The three costly laws stop where a
    /// report's wait stays well under a second (user CPU time of a whole 100-shuffle run in
    /// release on the busy 2-core machine: 0.19 s at 52 cards; 0.36 s at 56 cards, most of it the
    /// 526 823 partitions of 56 — 60 cards would take 0.9 s and 64 cards 1.8 s; 0.36 s at 100
    /// cards for the footrule's transfer matrix; 0.37 s at 300 cards for the 44 851 Mahonian
    /// numbers); the other laws take at most 0.1 s at 1000 cards.
    pub const fn max_exact_deck(self) -> usize {
        match self {
            Statistic::Inversions => 300,
            Statistic::LongestIncreasing => 56,
            Statistic::Footrule => 100,
            _ => EVERY_DECK,
        }
    }

    /// Whether the statistic has its exact law, and is tallied, on decks of n cards.
    pub const fn tallied_at(self, n: usize) -> bool {
        n <= self.max_exact_deck()
    }

    /// The statistics tallied on decks of n cards, in report order.
    pub fn tallied(n: usize) -> impl Iterator<Item = Statistic> {
        Statistic::ALL.into_iter().filter(move |s| s.tallied_at(n))
    }

    /// Cells of the histogram kept on decks of n cards: one per value, none when the statistic
    /// is not tallied at that size.
    pub fn cells(self, n: usize) -> usize {
        if self.tallied_at(n) {
            self.max_value(n) + 1
        } else {
            0
        }
    }

    /// The name used on the command line and in every report.
    pub fn name(self) -> &'static str {
        match self {
            Statistic::FixedPoints => "fixed-points",
            Statistic::Cycles => "cycles",
            Statistic::RisingSequences => "rising-sequences",
            Statistic::AdjacentPairs => "adjacent-pairs",
            Statistic::Descents => "descents",
            Statistic::Inversions => "inversions",
            Statistic::LongestIncreasing => "longest-increasing",
            Statistic::Footrule => "footrule",
        }
    }

    /// The exact definition, in one line.
    pub fn definition(self) -> &'static str {
        match self {
            Statistic::FixedPoints => "number of cards c still at position c",
            Statistic::Cycles => {
                "number of cycles of the map position -> card, fixed points included"
            }
            Statistic::RisingSequences => {
                "1 + number of cards c whose successor c+1 lies at an earlier position"
            }
            Statistic::AdjacentPairs => "number of cards c (c < n-1) directly followed by card c+1",
            Statistic::Descents => "number of positions whose card is above the next card",
            Statistic::Inversions => {
                "number of pairs of cards in the reverse of their starting order"
            }
            Statistic::LongestIncreasing => "length of the longest increasing subsequence",
            Statistic::Footrule => "sum over cards of |position - starting position|",
        }
    }

    /// The largest value the statistic can take on n cards: the histogram has
    /// `max_value(n) + 1` cells, one per value 0..=max.
    pub fn max_value(self, n: usize) -> usize {
        match self {
            Statistic::FixedPoints
            | Statistic::Cycles
            | Statistic::RisingSequences
            | Statistic::LongestIncreasing => n,
            Statistic::AdjacentPairs | Statistic::Descents => n.saturating_sub(1),
            Statistic::Inversions => n * n.saturating_sub(1) / 2,
            Statistic::Footrule => n * n / 2,
        }
    }

    /// The statistic of one shuffled deck (`deck[position] = card`, cards 0..n each once).
    ///
    /// O(n) (O(n log n) for inversions and the longest increasing subsequence above 64 cards),
    /// no allocation. `scratch` must hold at least [`scratch_len`]`(deck.len())` entries; it is
    /// overwritten (the inverse permutation, a Fenwick tree, the piles of patience sorting).
    #[inline]
    pub fn value(self, deck: &[Card], scratch: &mut [usize]) -> usize {
        match self {
            Statistic::FixedPoints => fixed_points(deck),
            Statistic::Cycles => {
                let positions = inverse_into(deck, scratch);
                count_cycles_destroying(positions)
            }
            Statistic::RisingSequences => {
                let positions = inverse_into(deck, scratch);
                rising_sequences_of_inverse(positions)
            }
            Statistic::AdjacentPairs => adjacent_pairs(deck),
            Statistic::Descents => rank_statistics::descents(deck),
            Statistic::Inversions => rank_statistics::inversions(deck, scratch),
            Statistic::LongestIncreasing => rank_statistics::longest_increasing(deck, scratch),
            Statistic::Footrule => rank_statistics::footrule(deck),
        }
    }

    /// The exact number of permutations of n cards taking each value 0..=max (they sum to n!).
    ///
    /// Computed once per process for each (statistic, n), then cloned from a cache: the longer
    /// laws (see [`Statistic::max_exact_deck`]) are asked for by several parts of a report.
    /// Panics if n = 0; any n works, at a cost that grows past `max_exact_deck`.
    pub fn exact_counts(self, n: usize) -> Vec<BigUint> {
        assert!(n >= 1, "a deck needs at least one card");
        type Cache = Mutex<HashMap<(Statistic, usize), Arc<Vec<BigUint>>>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(Cache::default);
        let cached = cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(&(self, n))
            .cloned();
        let counts = cached.unwrap_or_else(|| {
            let counts = Arc::new(self.compute_counts(n));
            cache
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .insert((self, n), Arc::clone(&counts));
            counts
        });
        counts.as_ref().clone()
    }

    fn compute_counts(self, n: usize) -> Vec<BigUint> {
        match self {
            Statistic::FixedPoints => fixed_point_counts(n),
            Statistic::Cycles => cycle_counts(n),
            Statistic::RisingSequences => rising_sequence_counts(n),
            Statistic::AdjacentPairs => adjacent_pair_counts(n),
            Statistic::Descents => rank_statistics::descent_counts(rising_sequence_counts(n)),
            Statistic::Inversions => rank_statistics::inversion_counts(n),
            Statistic::LongestIncreasing => rank_statistics::longest_increasing_counts(n),
            Statistic::Footrule => rank_statistics::footrule_counts(n),
        }
    }

    /// The law under a uniform shuffle: `law[v]` = P(value = v) for v in 0..=max, each the
    /// correctly rounded f64 of exact_counts(n)\[v\] / n!. Panics if n = 0.
    pub fn uniform_law(self, n: usize) -> Vec<f64> {
        self.uniform_value_law(n).probabilities
    }

    /// The same law with each probability's natural logarithm beside it, finite wherever the
    /// value is possible (P(1 rising sequence) = 1/1000! is 0 as an f64, not as a log).
    /// Panics if n = 0.
    pub fn uniform_value_law(self, n: usize) -> ValueLaw {
        ValueLaw::from_counts(&self.exact_counts(n), &big_factorial(n))
    }
}

/// Every statistic of one deck, computed in one pass that shares the inverse permutation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StatisticValues {
    /// See [`Statistic::FixedPoints`].
    pub fixed_points: usize,
    /// See [`Statistic::Cycles`].
    pub cycles: usize,
    /// See [`Statistic::RisingSequences`].
    pub rising_sequences: usize,
    /// See [`Statistic::AdjacentPairs`].
    pub adjacent_pairs: usize,
    /// See [`Statistic::Descents`].
    pub descents: usize,
    /// See [`Statistic::Inversions`] (0 when not tallied at this deck size).
    pub inversions: usize,
    /// See [`Statistic::LongestIncreasing`] (0 when not tallied at this deck size).
    pub longest_increasing: usize,
    /// See [`Statistic::Footrule`] (0 when not tallied at this deck size).
    pub footrule: usize,
}

impl StatisticValues {
    /// Every statistic tallied at this deck size ([`Statistic::tallied_at`]; the others are
    /// left 0); `scratch` as for [`Statistic::value`]. No allocation, cheaper than separate
    /// calls (one inverse, one scan of the deck).
    #[inline]
    pub fn of(deck: &[Card], scratch: &mut [usize]) -> Self {
        let n = deck.len();
        let mut fixed = 0;
        let mut adjacent = 0;
        let mut descents = 0;
        let mut footrule = 0;
        let mut previous = 0;
        for (position, &card) in deck.iter().enumerate() {
            let card = usize::from(card);
            fixed += usize::from(card == position);
            adjacent += usize::from(position > 0 && card == previous + 1);
            descents += usize::from(position > 0 && card < previous);
            footrule += card.abs_diff(position);
            previous = card;
        }
        let (inverse, rest) = scratch.split_at_mut(n);
        let inversions = if Statistic::Inversions.tallied_at(n) {
            rank_statistics::inversions(deck, rest)
        } else {
            0
        };
        let longest_increasing = if Statistic::LongestIncreasing.tallied_at(n) {
            rank_statistics::longest_increasing(deck, rest)
        } else {
            0
        };
        let positions = inverse_into(deck, inverse);
        let rising = rising_sequences_of_inverse(positions);
        let cycles = count_cycles_destroying(positions);
        StatisticValues {
            fixed_points: fixed,
            cycles,
            rising_sequences: rising,
            adjacent_pairs: adjacent,
            descents,
            inversions,
            longest_increasing,
            footrule: if Statistic::Footrule.tallied_at(n) {
                footrule
            } else {
                0
            },
        }
    }

    /// The value of one statistic.
    pub fn get(&self, statistic: Statistic) -> usize {
        match statistic {
            Statistic::FixedPoints => self.fixed_points,
            Statistic::Cycles => self.cycles,
            Statistic::RisingSequences => self.rising_sequences,
            Statistic::AdjacentPairs => self.adjacent_pairs,
            Statistic::Descents => self.descents,
            Statistic::Inversions => self.inversions,
            Statistic::LongestIncreasing => self.longest_increasing,
            Statistic::Footrule => self.footrule,
        }
    }
}

#[inline]
fn fixed_points(deck: &[Card]) -> usize {
    deck.iter()
        .enumerate()
        .filter(|&(position, &card)| usize::from(card) == position)
        .count()
}

#[inline]
fn adjacent_pairs(deck: &[Card]) -> usize {
    deck.windows(2)
        .filter(|pair| u32::from(pair[1]) == u32::from(pair[0]) + 1)
        .count()
}

/// Writes the inverse permutation (`positions[card] = position`) into the first n cells of
/// `scratch` and returns them.
#[inline]
fn inverse_into<'a>(deck: &[Card], scratch: &'a mut [usize]) -> &'a mut [usize] {
    let positions = &mut scratch[..deck.len()];
    for (position, &card) in deck.iter().enumerate() {
        positions[usize::from(card)] = position;
    }
    positions
}

/// r = 1 + #{c : pos(c + 1) < pos(c)}, for n ≥ 1 (0 for the empty deck).
#[inline]
fn rising_sequences_of_inverse(positions: &[usize]) -> usize {
    if positions.is_empty() {
        return 0;
    }
    1 + positions
        .windows(2)
        .filter(|pair| pair[1] < pair[0])
        .count()
}

/// The number of cycles of a permutation, marking visited entries with `usize::MAX` (the
/// permutation is destroyed). A permutation and its inverse have the same cycles.
#[inline]
fn count_cycles_destroying(permutation: &mut [usize]) -> usize {
    const VISITED: usize = usize::MAX;
    let mut cycles = 0;
    for start in 0..permutation.len() {
        if permutation[start] == VISITED {
            continue;
        }
        cycles += 1;
        let mut at = start;
        while permutation[at] != VISITED {
            let next = permutation[at];
            permutation[at] = VISITED;
            at = next;
        }
    }
    cycles
}

/// n! as a big integer.
pub fn big_factorial(n: usize) -> BigUint {
    (2..=n as u64).fold(BigUint::one(), |product, i| product * i)
}

/// The row C(n, 0), …, C(n, n), each from the previous by C(n, k + 1) = C(n, k)(n − k)/(k + 1).
fn binomial_row(n: usize) -> Vec<BigUint> {
    let mut row = Vec::with_capacity(n + 1);
    let mut current = BigUint::one();
    for k in 0..=n {
        row.push(current.clone());
        current = current * (n - k) as u64 / (k + 1) as u64;
    }
    row
}

/// The derangement numbers D(0), …, D(n): D(0) = 1, D(1) = 0, D(m) = (m − 1)(D(m − 1) + D(m − 2)).
fn derangements(n: usize) -> Vec<BigUint> {
    let mut row: Vec<BigUint> = Vec::with_capacity(n + 1);
    for m in 0..=n {
        let next = match m {
            0 => BigUint::one(),
            1 => BigUint::zero(),
            _ => (&row[m - 1] + &row[m - 2]) * (m - 1) as u64,
        };
        row.push(next);
    }
    row
}

/// Rencontres numbers: permutations of n with exactly k fixed points, C(n, k)·D(n − k).
fn fixed_point_counts(n: usize) -> Vec<BigUint> {
    let binomials = binomial_row(n);
    let derangements = derangements(n);
    (0..=n)
        .map(|k| &binomials[k] * &derangements[n - k])
        .collect()
}

/// Unsigned Stirling numbers of the first kind c(n, 0..=n): the coefficients of
/// x(x + 1)⋯(x + n − 1), built by multiplying in one factor (x + m) at a time, in place.
fn cycle_counts(n: usize) -> Vec<BigUint> {
    let mut row = vec![BigUint::zero(); n + 1];
    row[0] = BigUint::one();
    for m in 0..n {
        // Multiply the polynomial of degree m by (x + m): new[k] = old[k − 1] + m·old[k].
        for k in (1..=m + 1).rev() {
            let (lower, upper) = row.split_at_mut(k);
            let coefficient = &mut upper[0];
            *coefficient *= m as u64;
            *coefficient += &lower[k - 1];
        }
        row[0] *= m as u64;
    }
    row
}

/// Permutations of n with exactly r rising sequences, r = 0..=n (none with r = 0): the Eulerian
/// number ⟨n, r − 1⟩, built in place row by row from
/// ⟨m, d⟩ = (d + 1)⟨m − 1, d⟩ + (m − d)⟨m − 1, d − 1⟩. Rows are symmetric,
/// ⟨m, d⟩ = ⟨m, m − 1 − d⟩, so only d ≤ (m − 1)/2 is computed and the top half mirrored at the end.
fn rising_sequence_counts(n: usize) -> Vec<BigUint> {
    // eulerian[d] = ⟨m, d⟩ (permutations of m with d descents), valid for d ≤ (m − 1)/2.
    let mut eulerian = vec![BigUint::zero(); n];
    eulerian[0] = BigUint::one();
    let mut term = BigUint::zero();
    for m in 2..=n {
        let half = (m - 1) / 2;
        if half > (m - 2) / 2 {
            // m odd: ⟨m − 1, half⟩ lies in the unkept top half; it mirrors ⟨m − 1, half − 1⟩.
            let (lower, upper) = eulerian.split_at_mut(half);
            upper[0].clone_from(&lower[half - 1]);
        }
        for d in (1..=half).rev() {
            term.clone_from(&eulerian[d - 1]);
            term *= (m - d) as u64;
            eulerian[d] *= (d + 1) as u64;
            eulerian[d] += &term;
        }
    }
    for d in n.div_ceil(2)..n {
        let (lower, upper) = eulerian.split_at_mut(d);
        upper[0].clone_from(&lower[n - 1 - d]);
    }
    let mut counts = Vec::with_capacity(n + 1);
    counts.push(BigUint::zero());
    counts.extend(eulerian);
    counts
}

/// Permutations of n with exactly k kept adjacent pairs: C(n − 1, k)·S(n − k), S(m) = D(m) + D(m − 1).
fn adjacent_pair_counts(n: usize) -> Vec<BigUint> {
    let binomials = binomial_row(n - 1);
    let derangements = derangements(n);
    (0..n)
        .map(|k| {
            let m = n - k;
            &binomials[k] * (&derangements[m] + &derangements[m - 1])
        })
        .collect()
}

/// The law of a statistic over its values 0..=max under some hypothesis, each probability kept
/// twice: as the nearest f64 (what reports show and χ² uses) and as its natural logarithm, which
/// stays finite where the f64 underflows, so that "impossible" (ln = −∞, an exact zero) is
/// never confused with "below 1e−308".
#[derive(Debug, Clone, PartialEq)]
pub struct ValueLaw {
    /// `probabilities[v]` = P(value = v), the nearest f64 (0.0 when it underflows).
    pub probabilities: Vec<f64>,
    /// `ln_probabilities[v]` = ln P(value = v); −∞ exactly where the value is impossible.
    pub ln_probabilities: Vec<f64>,
}

impl ValueLaw {
    /// From exact counts out of `total` (e.g. permutations with each value, out of n!).
    pub fn from_counts(counts: &[BigUint], total: &BigUint) -> Self {
        ValueLaw {
            probabilities: counts.iter().map(|c| ratio_to_f64(c, total)).collect(),
            ln_probabilities: counts.iter().map(|c| ratio_to_ln(c, total)).collect(),
        }
    }

    /// From f64 probabilities that did not underflow (e.g. sums of an exact law's f64
    /// probabilities on at most 11 cards), so that 0.0 means impossible.
    pub fn from_probabilities(probabilities: Vec<f64>) -> Self {
        let ln_probabilities = probabilities
            .iter()
            .map(|&p| Probability::from_p(p).ln)
            .collect();
        ValueLaw {
            probabilities,
            ln_probabilities,
        }
    }

    /// P(value = v); values past the end are impossible.
    pub fn get(&self, value: usize) -> Probability {
        match (
            self.probabilities.get(value),
            self.ln_probabilities.get(value),
        ) {
            (Some(&p), Some(&ln)) => Probability::from_parts(p, ln),
            _ => Probability::ZERO,
        }
    }

    /// How many values the law lists.
    pub fn len(&self) -> usize {
        self.probabilities.len()
    }

    /// Whether the law lists no value.
    pub fn is_empty(&self) -> bool {
        self.probabilities.is_empty()
    }
}

/// ln(`numerator / denominator`) for any size of the operands (−∞ for a zero numerator): each
/// operand's top 64 bits as an f64, plus the bits shifted out times ln 2. Absolute error about
/// 1e−16 per operand plus the rounding of (bits shifted)·ln 2, ~1e−12 at 10^5 bits. Panics on a
/// zero denominator.
pub fn ratio_to_ln(numerator: &BigUint, denominator: &BigUint) -> f64 {
    assert!(!denominator.is_zero(), "division by zero");
    if numerator.is_zero() {
        return f64::NEG_INFINITY;
    }
    let ln = |x: &BigUint| {
        let shift = x.bits().saturating_sub(64);
        let top = (x >> shift).to_f64().expect("64 bits fit an f64");
        top.ln() + shift as f64 * std::f64::consts::LN_2
    };
    ln(numerator) - ln(denominator)
}

/// The f64 nearest to `numerator / denominator` (ties to even), correct for any size of the
/// operands: subnormal results are rounded on the subnormal grid, anything below 2^−1075 is
/// 0 and anything from 2^1024 up (after rounding) is +∞. Panics on a zero denominator.
///
/// Method: find e with 2^e ≤ q < 2^(e+1), choose the grid spacing 2^u of f64 at that magnitude
/// (u = max(e − 52, −1074)), take the integer quotient and remainder of q / 2^u, and round up
/// when the remainder is over half the divisor (or exactly half and the quotient odd).
pub fn ratio_to_f64(numerator: &BigUint, denominator: &BigUint) -> f64 {
    assert!(!denominator.is_zero(), "division by zero");
    if numerator.is_zero() {
        return 0.0;
    }
    let mut exponent = numerator.bits() as i64 - denominator.bits() as i64;
    let below = if exponent >= 0 {
        *numerator < (denominator << exponent as u64)
    } else {
        (numerator << exponent.unsigned_abs()) < *denominator
    };
    if below {
        exponent -= 1;
    }
    if exponent > 1023 {
        return f64::INFINITY;
    }
    if exponent < -1075 {
        return 0.0;
    }
    let grid = (exponent - 52).max(-1074);
    let (dividend, divisor) = if grid >= 0 {
        (numerator.clone(), denominator << grid as u64)
    } else {
        (numerator << grid.unsigned_abs(), denominator.clone())
    };
    let quotient = &dividend / &divisor;
    let remainder = dividend - &quotient * &divisor;
    let mut mantissa = quotient.to_u64().expect("the quotient has at most 53 bits");
    match (remainder << 1u32).cmp(&divisor) {
        std::cmp::Ordering::Greater => mantissa += 1,
        std::cmp::Ordering::Equal => mantissa += mantissa & 1,
        std::cmp::Ordering::Less => {}
    }
    // mantissa ≤ 2^53 is exact in f64, and so is 2^grid; their product is on the f64 grid.
    mantissa as f64 * power_of_two(grid)
}

/// 2^e as an f64, exactly, for −1074 ≤ e ≤ 1023.
fn power_of_two(exponent: i64) -> f64 {
    debug_assert!((-1074..=1023).contains(&exponent));
    if exponent >= -1022 {
        f64::from_bits(((exponent + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (exponent + 1074))
    }
}

/// Pools adjacent cells of a histogram so that every pooled cell expects at least
/// `min_expected` observations (and more than zero), for a χ² test.
///
/// The sparse tails are pooled inwards from both ends: the first cell grows from the left until
/// it reaches `min_expected`, the last grows from the right likewise, and the cells between are
/// kept one by one where they are large enough, otherwise pooled left to right, a short
/// remainder joining the last cell. Cells of probability zero (values outside the support) are
/// thus absorbed into a neighbour. The result is deterministic and partitions
/// `0..expected_counts.len()`. When fewer than two pooled cells can reach `min_expected`, the
/// result is the single cell `0..len` (the caller then needs another test than χ²; and since
/// pooling hides which value was seen, values of probability zero must be checked before it).
/// Expected counts must
/// be finite and non-negative; the comparisons use the sums accumulated cell by cell, so a
/// pooled cell may fall short of `min_expected` by rounding (a few ulps) at most.
pub fn pool_bins(expected_counts: &[f64], min_expected: f64) -> Vec<Range<usize>> {
    let len = expected_counts.len();
    let enough = |sum: f64| sum >= min_expected && sum > 0.0;
    debug_assert!(expected_counts.iter().all(|e| e.is_finite() && *e >= 0.0));

    // The left tail: the shortest prefix that is large enough.
    let mut sum = 0.0;
    let mut left_end = len;
    for (i, &expected) in expected_counts.iter().enumerate() {
        sum += expected;
        if enough(sum) {
            left_end = i + 1;
            break;
        }
    }
    // The right tail: the shortest suffix that is large enough, not reaching into the left tail.
    let mut sum = 0.0;
    let mut right_start = None;
    for i in (left_end..len).rev() {
        sum += expected_counts[i];
        if enough(sum) {
            right_start = Some(i);
            break;
        }
    }
    let Some(right_start) = right_start else {
        return std::iter::once(0..len).collect();
    };

    let mut bins = Vec::new();
    bins.push(0..left_end);
    let mut start = left_end;
    let mut sum = 0.0;
    for (i, &expected) in expected_counts
        .iter()
        .enumerate()
        .take(right_start)
        .skip(left_end)
    {
        sum += expected;
        if enough(sum) {
            bins.push(start..i + 1);
            start = i + 1;
            sum = 0.0;
        }
    }
    // Cells left over before the right tail (too small on their own) join it.
    bins.push(start..len);
    bins
}

/// C(a + n − r, n) for r = 0..=n, with a = 2^passes: the number of ways an a-shuffle can
/// produce one given ordering with r rising sequences (Bayer & Diaconis 1992, Theorem 1),
/// each from the previous by C(m − 1, n) = C(m, n)(m − n)/m.
fn riffle_ways(n: usize, passes: u32) -> Vec<BigUint> {
    let a = BigUint::one() << passes;
    let top = &a + n; // m for r = 0
    // C(a + n, n) = Π_{i=1..n} (a + i)/i, exact at every step.
    let mut current = BigUint::one();
    for i in 1..=n {
        current = current * (&a + i) / i;
    }
    let mut ways = Vec::with_capacity(n + 1);
    let mut m = top;
    for _ in 0..=n {
        ways.push(current.clone());
        if current.is_zero() {
            continue;
        }
        // C(m − 1, n) = C(m, n)·(m − n)/m; zero once m − 1 < n.
        current = current * (&m - n) / &m;
        m -= 1u32;
    }
    ways
}

/// The law of the rising-sequence count after `passes` Gilbert–Shannon–Reeds riffles of n
/// cards: `law[r]` = P(R = r) = A(n, r)·C(2^K + n − r, n)/2^(Kn), r = 0..=n (Bayer & Diaconis
/// 1992; A(n, r) the Eulerian number with r rising sequences), each value correctly rounded.
/// Indexed like [`Statistic::RisingSequences`]`.uniform_law(n)`, to which it tends as K grows.
/// Panics if n = 0.
pub fn riffle_rising_law(n: usize, passes: u32) -> Vec<f64> {
    riffle_rising_value_law(n, passes).probabilities
}

/// [`riffle_rising_law`] with the logarithms beside the probabilities: P(R = 1), the identity,
/// is C(2^K + n − 1, n)/2^(Kn), below f64's range for 200 cards and 7 riffles, yet its log is
/// exact; values with A(n, r) = 0 or r > 2^K are impossible (ln = −∞). Panics if n = 0.
pub fn riffle_rising_value_law(n: usize, passes: u32) -> ValueLaw {
    assert!(n >= 1, "a deck needs at least one card");
    let counts = rising_sequence_counts(n);
    let ways = riffle_ways(n, passes);
    let denominator = BigUint::one() << (u64::from(passes) * n as u64);
    let numerators: Vec<BigUint> = counts
        .iter()
        .zip(&ways)
        .map(|(count, ways)| count * ways)
        .collect();
    ValueLaw::from_counts(&numerators, &denominator)
}

/// The total variation distance to uniform after K riffles, as an exact fraction
/// (numerator, denominator): ½ Σ_r A(n, r)·|C(2^K + n − r, n)·n! − 2^(Kn)| / (2^(Kn)·n!).
fn riffle_tv_fraction(counts: &[BigUint], n: usize, passes: u32) -> (BigUint, BigUint) {
    let ways = riffle_ways(n, passes);
    let total = big_factorial(n);
    let scale = BigUint::one() << (u64::from(passes) * n as u64);
    let mut numerator = BigUint::zero();
    for (count, ways) in counts.iter().zip(&ways).skip(1) {
        let weighted = ways * &total;
        let difference = if weighted >= scale {
            weighted - &scale
        } else {
            &scale - weighted
        };
        numerator += count * difference;
    }
    (numerator, (scale * total) << 1u32)
}

/// Total variation distance between the deck after `passes` GSR riffles of n cards and the
/// uniform law: ½ Σ_π |P_K(π) − 1/n!| = ½ Σ_r A(n, r)·|C(2^K + n − r, n)/2^(Kn) − 1/n!|
/// (Bayer & Diaconis 1992, Table 1 for n = 52), computed exactly and rounded once. Panics if
/// n = 0.
pub fn riffle_tv_distance(n: usize, passes: u32) -> f64 {
    assert!(n >= 1, "a deck needs at least one card");
    let counts = rising_sequence_counts(n);
    let (numerator, denominator) = riffle_tv_fraction(&counts, n, passes);
    ratio_to_f64(&numerator, &denominator)
}

/// The least number of GSR riffles after which the total variation distance to uniform is
/// below `threshold` (compared exactly, not after rounding). The distance never increases
/// with K (the riffle is a random walk on a group), so the search doubles K and then bisects.
/// Panics unless threshold > 0 (the distance is never exactly 0 for n ≥ 2) or if n = 0.
pub fn riffle_passes_needed(n: usize, threshold: f64) -> u32 {
    assert!(n >= 1, "a deck needs at least one card");
    assert!(
        threshold > 0.0,
        "the riffle never reaches total variation distance 0; threshold must be > 0"
    );
    let counts = rising_sequence_counts(n);
    let below = |passes: u32| {
        let (numerator, denominator) = riffle_tv_fraction(&counts, n, passes);
        fraction_below(&numerator, &denominator, threshold)
    };
    least_passes_from(0, below)
}

/// The least K ≥ `first` at which `below(K)` holds, for a `below` that stays true once true
/// (a distance to uniform that never increases with the passes): doubling, then bisecting.
pub fn least_passes_from(first: u32, mut below: impl FnMut(u32) -> bool) -> u32 {
    if below(first) {
        return first;
    }
    // Invariant: not below at `low`, below at `high`.
    let (mut low, mut high) = (first, first.max(1) * 2);
    while !below(high) {
        low = high;
        high *= 2;
    }
    while high - low > 1 {
        let middle = low + (high - low) / 2;
        if below(middle) {
            high = middle;
        } else {
            low = middle;
        }
    }
    high
}

/// Whether numerator/denominator < x exactly, for a finite or infinite x > 0.
pub(crate) fn fraction_below(numerator: &BigUint, denominator: &BigUint, x: f64) -> bool {
    if x.is_infinite() {
        return true;
    }
    // x = mantissa·2^exponent exactly.
    let bits = x.to_bits();
    let raw_exponent = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mantissa, exponent) = if raw_exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), raw_exponent - 1075)
    };
    let right = denominator * mantissa;
    if exponent >= 0 {
        *numerator < (right << exponent as u64)
    } else {
        (numerator << exponent.unsigned_abs()) < right
    }
}

#[cfg(test)]
// Single-cell pooling results are meant as one-element vectors of ranges.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;
    use crate::engine::algorithms::Algorithm;
    use crate::engine::permutation::{
        cycle_count, factorial as small_factorial, for_each_in_rank_order,
    };
    use crate::engine::random_source::{BlockRng, FastSource};
    use num_rational::BigRational;
    use rand_chacha::ChaCha8Rng;

    fn big(values: &[u64]) -> Vec<BigUint> {
        values.iter().map(|&v| BigUint::from(v)).collect()
    }

    /// Rising sequences the way a magician reads them (Bayer & Diaconis 1992, §1): sweep the
    /// deck left to right picking up 0, 1, 2, … in turn; each sweep is one rising sequence.
    fn rising_sequences_by_sweeps(deck: &[Card]) -> usize {
        let mut next = 0;
        let mut sweeps = 0;
        while usize::from(next) < deck.len() {
            sweeps += 1;
            for &card in deck {
                if card == next {
                    next += 1;
                }
            }
        }
        sweeps
    }

    /// Each statistic straight from its definition, independently of the module's code.
    fn brute_force_value(statistic: Statistic, deck: &[Card]) -> usize {
        match statistic {
            Statistic::FixedPoints => (0..deck.len())
                .filter(|&i| usize::from(deck[i]) == i)
                .count(),
            Statistic::Cycles => cycle_count(deck),
            Statistic::RisingSequences => rising_sequences_by_sweeps(deck),
            Statistic::AdjacentPairs => (1..deck.len())
                .filter(|&i| usize::from(deck[i]) == usize::from(deck[i - 1]) + 1)
                .count(),
            Statistic::Descents => (1..deck.len()).filter(|&i| deck[i] < deck[i - 1]).count(),
            Statistic::Inversions => (0..deck.len())
                .map(|i| (0..i).filter(|&j| deck[j] > deck[i]).count())
                .sum(),
            Statistic::LongestIncreasing => {
                // The O(n²) dynamic programme: best[j] = longest ending at j.
                let mut best = vec![1usize; deck.len()];
                for j in 0..deck.len() {
                    for i in 0..j {
                        if deck[i] < deck[j] {
                            best[j] = best[j].max(best[i] + 1);
                        }
                    }
                }
                best.into_iter().max().unwrap_or(0)
            }
            Statistic::Footrule => (0..deck.len())
                .map(|i| (i as i64 - i64::from(deck[i])).unsigned_abs() as usize)
                .sum(),
        }
    }

    fn shuffled_deck(n: usize, seed: u64) -> Vec<Card> {
        let mut deck: Vec<Card> = (0..n as Card).collect();
        let mut scratch = vec![0; n];
        let mut source = FastSource::new(ChaCha8Rng::for_block(seed, 0));
        Algorithm::FisherYates.shuffle(&mut deck, &mut scratch, &mut source);
        deck
    }

    fn mean(law: &[f64]) -> f64 {
        law.iter().enumerate().map(|(v, p)| v as f64 * p).sum()
    }

    #[test]
    fn names_are_kebab_case_and_match_serde() {
        for statistic in Statistic::ALL {
            let json = serde_json::to_string(&statistic).unwrap();
            assert_eq!(json, format!("\"{}\"", statistic.name()));
            assert!(!statistic.definition().is_empty());
        }
    }

    #[test]
    fn values_of_a_hand_worked_deck_follow_the_definitions() {
        // Deck 3 4 0 1 2 5: fixed point 5; cycles (0 3 1 4 2)(5) = 2; card 0 and 1 and 2 read
        // left to right after 3, 4, so rising sequences {0,1,2}, {3,4,5} = 2; kept pairs 3-4,
        // 0-1, 1-2 = 3; one descent (4 > 0); inversions: 3 and 4 each above 0, 1, 2 = 6;
        // longest increasing 0 1 2 5 = 4; footrule 3 + 3 + 2 + 2 + 2 + 0 = 12.
        let deck = [3, 4, 0, 1, 2, 5];
        let mut scratch = [0; 13];
        let expected = [1, 2, 2, 3, 1, 6, 4, 12];
        for (statistic, want) in Statistic::ALL.into_iter().zip(expected) {
            assert_eq!(statistic.value(&deck, &mut scratch), want, "{statistic:?}");
        }
        let all = StatisticValues::of(&deck, &mut scratch);
        assert_eq!(
            all,
            StatisticValues {
                fixed_points: 1,
                cycles: 2,
                rising_sequences: 2,
                adjacent_pairs: 3,
                descents: 1,
                inversions: 6,
                longest_increasing: 4,
                footrule: 12,
            }
        );
    }

    #[test]
    fn the_identity_and_the_reversal_take_the_extreme_values() {
        let n = 52;
        let identity: Vec<Card> = (0..n as Card).collect();
        let reversal: Vec<Card> = identity.iter().rev().copied().collect();
        let mut scratch = vec![0; scratch_len(n)];
        let of_identity = StatisticValues::of(&identity, &mut scratch);
        assert_eq!(of_identity.fixed_points, n);
        assert_eq!(of_identity.cycles, n);
        assert_eq!(of_identity.rising_sequences, 1);
        assert_eq!(of_identity.adjacent_pairs, n - 1);
        assert_eq!(of_identity.descents, 0);
        assert_eq!(of_identity.inversions, 0);
        assert_eq!(of_identity.longest_increasing, n);
        assert_eq!(of_identity.footrule, 0);
        let of_reversal = StatisticValues::of(&reversal, &mut scratch);
        assert_eq!(of_reversal.fixed_points, 0);
        assert_eq!(of_reversal.cycles, n / 2);
        assert_eq!(of_reversal.rising_sequences, n);
        assert_eq!(of_reversal.adjacent_pairs, 0);
        assert_eq!(of_reversal.descents, n - 1);
        assert_eq!(of_reversal.inversions, n * (n - 1) / 2);
        assert_eq!(of_reversal.longest_increasing, 1);
        assert_eq!(of_reversal.footrule, n * n / 2);
    }

    #[test]
    fn one_pass_and_single_values_agree_with_the_definitions_on_random_large_decks() {
        for (seed, n) in [(1, 52), (2, 53), (5, 100), (6, 300), (3, 1000), (4, 5000)] {
            let deck = shuffled_deck(n, seed);
            let mut scratch = vec![7; scratch_len(n)];
            let all = StatisticValues::of(&deck, &mut scratch);
            for statistic in Statistic::ALL {
                let want = brute_force_value(statistic, &deck);
                assert_eq!(
                    statistic.value(&deck, &mut scratch),
                    want,
                    "{statistic:?} n={n}"
                );
                // One pass computes what is tallied at this size (the rest is left 0).
                if statistic.tallied_at(n) {
                    assert_eq!(all.get(statistic), want, "{statistic:?} n={n}");
                } else if matches!(
                    statistic,
                    Statistic::Inversions | Statistic::LongestIncreasing | Statistic::Footrule
                ) {
                    assert_eq!(all.get(statistic), 0, "{statistic:?} n={n}");
                }
                assert!(want <= statistic.max_value(n));
            }
        }
    }

    #[test]
    fn exact_counts_match_brute_force_enumeration_up_to_eight_cards() {
        for n in 1..=8 {
            let mut tallies: Vec<Vec<u64>> = Statistic::ALL
                .iter()
                .map(|s| vec![0; s.max_value(n) + 1])
                .collect();
            let mut scratch = vec![0; scratch_len(n)];
            for_each_in_rank_order(n, |_, deck| {
                let all = StatisticValues::of(deck, &mut scratch);
                for (statistic, tally) in Statistic::ALL.iter().zip(&mut tallies) {
                    let value = brute_force_value(*statistic, deck);
                    assert_eq!(all.get(*statistic), value);
                    tally[value] += 1;
                }
            });
            for (statistic, tally) in Statistic::ALL.iter().zip(&tallies) {
                assert_eq!(statistic.exact_counts(n), big(tally), "{statistic:?} n={n}");
            }
        }
    }

    #[test]
    fn counts_match_published_rows() {
        // Derangements, OEIS A000166.
        assert_eq!(
            derangements(10),
            big(&[1, 0, 1, 2, 9, 44, 265, 1854, 14833, 133496, 1334961])
        );
        // Rencontres numbers, n = 5 (OEIS A008290): 44 45 20 10 0 1.
        assert_eq!(
            Statistic::FixedPoints.exact_counts(5),
            big(&[44, 45, 20, 10, 0, 1])
        );
        // Unsigned Stirling numbers of the first kind c(5, k), OEIS A132393.
        assert_eq!(
            Statistic::Cycles.exact_counts(5),
            big(&[0, 24, 50, 35, 10, 1])
        );
        // c(10, 1) = 9!, c(10, 2) = 1 026 576 (OEIS A000254).
        let cycles_10 = Statistic::Cycles.exact_counts(10);
        assert_eq!(cycles_10[1], BigUint::from(362_880u32));
        assert_eq!(cycles_10[2], BigUint::from(1_026_576u32));
        // Eulerian numbers A(5, ·) = 1 26 66 26 1, OEIS A008292; index = rising sequences.
        assert_eq!(
            Statistic::RisingSequences.exact_counts(5),
            big(&[0, 1, 26, 66, 26, 1])
        );
        assert_eq!(
            Statistic::RisingSequences.exact_counts(10),
            big(&[
                0, 1, 1013, 47840, 455_192, 1_310_354, 1_310_354, 455_192, 47840, 1013, 1
            ])
        );
        // Descents: Eulerian numbers ⟨5, d⟩ = 1 26 66 26 1 (OEIS A008292), d = 0..4.
        assert_eq!(
            Statistic::Descents.exact_counts(5),
            big(&[1, 26, 66, 26, 1])
        );
        // Inversions: Mahonian numbers, n = 4 (OEIS A008302): 1 3 5 6 5 3 1.
        assert_eq!(
            Statistic::Inversions.exact_counts(4),
            big(&[1, 3, 5, 6, 5, 3, 1])
        );
        // Successions, OEIS A010027 (rows listed there from k = n−1 down to 0).
        assert_eq!(
            Statistic::AdjacentPairs.exact_counts(5),
            big(&[53, 44, 18, 4, 1])
        );
        assert_eq!(
            Statistic::AdjacentPairs.exact_counts(10),
            big(&[
                1_468_457, 1_334_961, 600_732, 177_996, 38934, 6678, 924, 108, 9, 1
            ])
        );
    }

    #[test]
    fn counts_sum_to_n_factorial_exactly_for_52_and_200_cards() {
        for n in [52, 200] {
            let total = big_factorial(n);
            for statistic in Statistic::tallied(n) {
                let counts = statistic.exact_counts(n);
                assert_eq!(counts.len(), statistic.max_value(n) + 1);
                let sum: BigUint = counts.iter().sum();
                assert_eq!(sum, total, "{statistic:?} n={n}");
            }
        }
    }

    #[test]
    fn law_means_match_closed_forms_for_52_and_1000_cards() {
        for n in [52usize, 1000] {
            let harmonic: f64 = (1..=n).map(|i| 1.0 / i as f64).sum();
            let nf = n as f64;
            let expected = [
                1.0,
                harmonic,
                (nf + 1.0) / 2.0,
                (nf - 1.0) / nf,
                (nf - 1.0) / 2.0,
                nf * (nf - 1.0) / 4.0,
                f64::NAN, // no closed form; tested against brute force and published rows
                (nf * nf - 1.0) / 3.0,
            ];
            for (statistic, want) in Statistic::ALL.into_iter().zip(expected) {
                if !statistic.tallied_at(n) || want.is_nan() {
                    continue;
                }
                let law = statistic.uniform_law(n);
                let total: f64 = law.iter().sum();
                assert!(
                    (total - 1.0).abs() < 1e-12,
                    "{statistic:?} n={n} sum {total}"
                );
                let got = mean(&law);
                assert!(
                    ((got - want) / want).abs() < 1e-9,
                    "{statistic:?} n={n}: mean {got}, closed form {want}"
                );
            }
        }
    }

    #[test]
    fn uniform_laws_keep_tiny_tails_and_impossible_values_exact() {
        let n = 52;
        // P(52 fixed points) = 1/52! ≈ 1.24e−68, P(51) = 0 exactly.
        let fixed = Statistic::FixedPoints.uniform_law(n);
        let one_over = 1.0 / 8.065_817_517_094_388e67;
        assert!((fixed[52] / one_over - 1.0).abs() < 1e-15);
        assert_eq!(fixed[51], 0.0);
        assert_eq!(Statistic::Cycles.uniform_law(n)[0], 0.0);
        assert_eq!(Statistic::RisingSequences.uniform_law(n)[0], 0.0);
        // At n = 1000, P(1 rising sequence) = 1/1000! ≈ 10^−2568 underflows to 0, while
        // P(2 rising sequences) = (2^1000 − 1001)/1000! ≈ 10^−2267 too; the first value above
        // 2^−1075 must be there and positive.
        let rising = Statistic::RisingSequences.uniform_law(1000);
        assert_eq!(rising[1], 0.0);
        assert!(rising.iter().any(|&p| p > 0.0 && p < 1e-300));
    }

    #[test]
    fn value_laws_keep_the_logarithm_where_the_f64_underflows() {
        // P(1 rising sequence) = 1/1000!: 0 as an f64, −ln 1000! as a log (summed here term by
        // term, independently of the big-integer route); no permutation has 0 rising sequences.
        let law = Statistic::RisingSequences.uniform_value_law(1000);
        let ln_factorial: f64 = (2..=1000).map(|i| (i as f64).ln()).sum();
        assert_eq!(law.probabilities[1], 0.0);
        assert!((law.ln_probabilities[1] + ln_factorial).abs() < 1e-9);
        assert!(law.get(0).is_impossible());
        assert!(!law.get(1).is_impossible());
        assert!(law.get(1001).is_impossible(), "past the end is impossible");
        // Fixed points: n − 1 is impossible, n (the identity) merely tiny.
        let fixed = Statistic::FixedPoints.uniform_value_law(52);
        assert!(fixed.get(51).is_impossible());
        let ln_52: f64 = (2..=52).map(|i| (i as f64).ln()).sum();
        assert!((fixed.ln_probabilities[52] + ln_52).abs() < 1e-12);
        assert_eq!(fixed.probabilities, Statistic::FixedPoints.uniform_law(52));
        // Where nothing underflows the log is the log of the f64.
        for (p, ln) in fixed.probabilities.iter().zip(&fixed.ln_probabilities) {
            if *p > 1e-300 {
                assert!((p.ln() - ln).abs() < 1e-12 * ln.abs().max(1.0), "{p} {ln}");
            }
        }
    }

    #[test]
    fn the_identity_after_seven_riffles_of_200_cards_keeps_its_logarithm() {
        // P(identity) = P(R = 1) = C(2^7 + 199, 200)/2^1400 (Bayer & Diaconis 1992), and
        // ln C(327, 200) = Σ_{i=1..127} ln((200 + i)/i), summed independently: about
        // 10^−327.9, below f64's range.
        let law = riffle_rising_value_law(200, 7);
        let ln_choose: f64 = (1..=127).map(|i| ((200 + i) as f64 / i as f64).ln()).sum();
        let expected = ln_choose - 1400.0 * std::f64::consts::LN_2;
        assert!(expected < -700.0);
        assert!(law.probabilities[1] < f64::MIN_POSITIVE);
        assert!((law.ln_probabilities[1] - expected).abs() < 1e-9);
        // An a-shuffle has at most a = 128 rising sequences: 129 and up are impossible.
        assert!(!law.get(128).is_impossible());
        assert!(law.get(129).is_impossible());
        assert_eq!(law.probabilities, riffle_rising_law(200, 7));
    }

    #[test]
    fn ratio_to_ln_matches_the_log_of_the_f64_ratio() {
        let third = ratio_to_ln(&BigUint::from(1u8), &BigUint::from(3u8));
        assert!((third + 3f64.ln()).abs() < 1e-15);
        // 2^300 / 3^150: both beyond 64 bits.
        let (a, b) = (BigUint::one() << 300u32, BigUint::from(3u8).pow(150));
        let expected = 300.0 * std::f64::consts::LN_2 - 150.0 * 3f64.ln();
        assert!((ratio_to_ln(&a, &b) - expected).abs() < 1e-12);
        assert_eq!(
            ratio_to_ln(&BigUint::zero(), &BigUint::from(7u8)),
            f64::NEG_INFINITY
        );
    }

    #[test]
    fn ratio_to_f64_is_correctly_rounded_for_small_operands() {
        // For integers below 2^53 both conversions are exact and IEEE division rounds correctly.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..10_000 {
            let a = next() >> (11 + next() % 53);
            let b = (next() >> (11 + next() % 53)).max(1);
            let got = ratio_to_f64(&BigUint::from(a), &BigUint::from(b));
            assert_eq!(got, a as f64 / b as f64, "{a}/{b}");
        }
    }

    #[test]
    fn ratio_to_f64_agrees_with_num_rational_on_huge_and_subnormal_ratios() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..3000 {
            let mut numerator = BigUint::from(next() | 1);
            let mut denominator = BigUint::from(next() | 1);
            numerator <<= next() % 1200;
            denominator <<= next() % 2300;
            numerator += next() % 1000;
            let reference = BigRational::new(numerator.clone().into(), denominator.clone().into());
            let want = reference.to_f64().unwrap();
            assert_eq!(
                ratio_to_f64(&numerator, &denominator),
                want,
                "{numerator}/{denominator}"
            );
        }
    }

    #[test]
    fn ratio_to_f64_rounds_ties_to_even_and_underflows_at_half_the_least_subnormal() {
        let one = BigUint::one();
        // 1 + 2^−53 is halfway between 1 and 1 + 2^−52: ties to 1 (even).
        let halfway = (BigUint::one() << 53u32) + 1u32;
        assert_eq!(ratio_to_f64(&halfway, &(BigUint::one() << 53u32)), 1.0);
        // 1 + 3·2^−53 is halfway between 1 + 2^−52 and 1 + 2^−51: ties to the even 1 + 2^−51.
        let halfway = (BigUint::one() << 53u32) + 3u32;
        assert_eq!(
            ratio_to_f64(&halfway, &(BigUint::one() << 53u32)),
            1.0 + f64::EPSILON * 2.0
        );
        // 2^−1074 is the least subnormal; 2^−1075 (a tie) rounds to 0, a hair more rounds up.
        assert_eq!(
            ratio_to_f64(&one, &(BigUint::one() << 1074u32)),
            f64::from_bits(1)
        );
        assert_eq!(ratio_to_f64(&one, &(BigUint::one() << 1075u32)), 0.0);
        let just_above = (BigUint::one() << 100u32) + 1u32;
        assert_eq!(
            ratio_to_f64(&just_above, &(BigUint::one() << 1175u32)),
            f64::from_bits(1)
        );
        assert_eq!(ratio_to_f64(&BigUint::zero(), &one), 0.0);
        assert_eq!(
            ratio_to_f64(&(BigUint::one() << 1024u32), &one),
            f64::INFINITY
        );
        assert_eq!(
            ratio_to_f64(&(BigUint::one() << 1023u32), &one),
            2f64.powi(1023)
        );
    }

    fn assert_pooling_invariants(expected: &[f64], min: f64) {
        let bins = pool_bins(expected, min);
        assert!(!bins.is_empty());
        // A partition of 0..len into consecutive ranges.
        assert_eq!(bins[0].start, 0);
        assert_eq!(bins.last().unwrap().end, expected.len());
        for pair in bins.windows(2) {
            assert_eq!(pair[0].end, pair[1].start);
        }
        let sums: Vec<f64> = bins
            .iter()
            .map(|b| expected[b.clone()].iter().sum())
            .collect();
        if bins.len() > 1 {
            for (bin, sum) in bins.iter().zip(&sums) {
                assert!(!bin.is_empty());
                assert!(*sum >= min * (1.0 - 1e-12) && *sum > 0.0, "{bin:?}: {sum}");
            }
        } else {
            // One bin only when no split into two large enough cells exists.
            let total: f64 = expected.iter().sum();
            let mut prefix = 0.0;
            for (i, &e) in expected.iter().enumerate() {
                prefix += e;
                let suffix = total - prefix;
                let splittable = prefix >= min && prefix > 0.0 && suffix >= min && suffix > 0.0;
                assert!(
                    !splittable || i + 1 == expected.len(),
                    "could split after {i}: {prefix} | {suffix}"
                );
            }
        }
    }

    #[test]
    fn pooling_partitions_and_reaches_the_minimum_on_every_law() {
        for n in [2, 3, 5, 8, 52, 200] {
            for statistic in Statistic::tallied(n) {
                let law = statistic.uniform_law(n);
                for trials in [1.0, 10.0, 100.0, 1e4, 1e6, 1e9] {
                    let expected: Vec<f64> = law.iter().map(|p| p * trials).collect();
                    for min in [0.0, 1.0, 5.0, 20.0] {
                        assert_pooling_invariants(&expected, min);
                    }
                }
            }
        }
    }

    #[test]
    fn pooling_partitions_and_reaches_the_minimum_on_arbitrary_histograms() {
        let mut state = 0x1234_5678_9ABC_DEF1u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..5000 {
            let len = (next() % 30) as usize;
            let expected: Vec<f64> = (0..len)
                .map(|_| match next() % 4 {
                    0 => 0.0,
                    1 => (next() % 100) as f64 / 10.0,
                    _ => (next() % 40) as f64,
                })
                .collect();
            assert_pooling_invariants(&expected, 5.0);
        }
    }

    #[test]
    fn pooling_merges_both_tails_and_zero_cells_inwards() {
        // Value 0 is impossible, values 1..=2 and 7..=8 are sparse; 3..=6 stand alone.
        let expected = [0.0, 1.0, 4.5, 20.0, 30.0, 30.0, 10.0, 3.0, 2.5];
        assert_eq!(
            pool_bins(&expected, 5.0),
            vec![0..3, 3..4, 4..5, 5..6, 6..7, 7..9]
        );
        // The right tail grows inwards until it is large enough, even past a large cell.
        let expected = [0.0, 1.0, 4.5, 20.0, 30.0, 30.0, 10.0, 3.0, 1.5];
        assert_eq!(
            pool_bins(&expected, 5.0),
            vec![0..3, 3..4, 4..5, 5..6, 6..9]
        );
        // A small interior cell is pooled with its right neighbour.
        let expected = [6.0, 2.0, 4.0, 9.0, 6.0];
        assert_eq!(pool_bins(&expected, 5.0), vec![0..1, 1..3, 3..4, 4..5]);
        // An interior remainder too small to stand alone joins the right tail.
        let expected = [6.0, 9.0, 2.0, 6.0];
        assert_eq!(pool_bins(&expected, 5.0), vec![0..1, 1..2, 2..4]);
        // Too little in total for two cells: one cell, nothing to test.
        assert_eq!(pool_bins(&[1.0, 3.0, 4.0, 1.0], 5.0), vec![0..4]);
        assert_eq!(pool_bins(&[], 5.0), vec![0..0]);
        assert_eq!(pool_bins(&[0.0, 0.0], 0.0), vec![0..2]);
        // With no minimum, only the zero cells are pooled.
        assert_eq!(pool_bins(&[0.0, 1.0, 0.0, 2.0, 0.0], 0.0), vec![0..2, 2..5]);
    }

    #[test]
    fn riffle_law_sums_to_one_and_starts_from_the_sorted_deck() {
        assert_eq!(riffle_rising_law(52, 0)[1], 1.0);
        for (n, passes) in [(2, 1), (5, 3), (52, 1), (52, 7), (52, 30), (1000, 12)] {
            let law = riffle_rising_law(n, passes);
            assert_eq!(law.len(), n + 1);
            let total: f64 = law.iter().sum();
            assert!((total - 1.0).abs() < 1e-12, "n={n} K={passes}: {total}");
            // At most 2^K rising sequences after K riffles.
            let most = 1usize.checked_shl(passes).unwrap_or(usize::MAX);
            assert!(law.iter().skip(most + 1).all(|&p| p == 0.0));
        }
        // One riffle: P(R = 1) = (n + 1)/2^n, P(R = 2) = 1 − that.
        let law = riffle_rising_law(52, 1);
        assert_eq!(law[1], 53.0 / 2f64.powi(52));
        assert_eq!(law[2], 1.0 - 53.0 / 2f64.powi(52));
    }

    #[test]
    fn riffle_law_tends_to_the_uniform_law() {
        let uniform = Statistic::RisingSequences.uniform_law(52);
        let riffled = riffle_rising_law(52, 80);
        for (r, (u, p)) in uniform.iter().zip(&riffled).enumerate() {
            assert!((u - p).abs() <= 1e-13 * u, "r={r}: {u} vs {p}");
        }
    }

    #[test]
    fn riffle_distance_matches_bayer_and_diaconis_table_for_52_cards() {
        // Bayer & Diaconis 1992, Table 1 (three decimals): K = 1..10.
        let published = [
            1.000, 1.000, 1.000, 1.000, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043,
        ];
        for (k, want) in (1..=10).zip(published) {
            let got = riffle_tv_distance(52, k);
            assert!(
                (got - want).abs() <= 0.0005 + 1e-12,
                "K={k}: computed {got}, published {want}"
            );
        }
        assert_eq!(riffle_passes_needed(52, 0.5), 7);
        assert_eq!(riffle_passes_needed(52, 0.1), 9);
        assert_eq!(riffle_passes_needed(52, 0.05), 10);
        assert_eq!(riffle_passes_needed(52, 1.0), 0);
    }

    #[test]
    fn riffle_distance_matches_a_sum_over_every_ordering() {
        for n in 1..=7 {
            for passes in 0..=5u32 {
                let a = 1u64 << passes;
                let scale = (a as f64).powi(n as i32);
                let uniform = 1.0 / small_factorial(n) as f64;
                let mut distance = 0.0;
                for_each_in_rank_order(n, |_, deck| {
                    let r = rising_sequences_by_sweeps(deck) as u64;
                    // C(a + n − r, n), zero when a + n − r < n.
                    let ways = if a >= r {
                        (1..=n as u64).fold(1u64, |c, i| c * (a - r + i) / i)
                    } else {
                        0
                    };
                    distance += (ways as f64 / scale - uniform).abs();
                });
                distance /= 2.0;
                let got = riffle_tv_distance(n, passes);
                assert!(
                    (got - distance).abs() <= 1e-12,
                    "n={n} K={passes}: {got} vs {distance}"
                );
            }
        }
    }

    /// The exact law of an a-shuffle, by enumerating all a^n equally likely label sequences
    /// (Bayer & Diaconis 1992, §2: label positions with iid uniform digits 0..a; packet j holds
    /// as many cards as positions labelled j, cut from the top in order, and position p takes the
    /// next card of packet label[p]). Returns how many sequences give each ordering, by rank.
    fn a_shuffle_ways_by_enumeration(n: usize, a: usize) -> Vec<u64> {
        let mut ways = vec![0u64; small_factorial(n) as usize];
        let mut labels = vec![0usize; n];
        let mut deck = vec![0 as Card; n];
        loop {
            let mut next_card = vec![0usize; a];
            let mut start = 0;
            for (packet, next) in next_card.iter_mut().enumerate() {
                *next = start;
                start += labels.iter().filter(|&&l| l == packet).count();
            }
            for (position, &label) in labels.iter().enumerate() {
                deck[position] = next_card[label] as Card;
                next_card[label] += 1;
            }
            ways[crate::engine::permutation::rank(&deck)] += 1;
            // Odometer step over {0..a}^n.
            let Some(digit) = labels.iter().rposition(|&l| l + 1 < a) else {
                return ways;
            };
            labels[digit] += 1;
            labels[digit + 1..].fill(0);
        }
    }

    #[test]
    fn riffle_formula_matches_enumerated_a_shuffles() {
        for (n, passes) in [(3, 1), (4, 1), (4, 2), (5, 2), (5, 3), (6, 2)] {
            let a = 1usize << passes;
            let ways = a_shuffle_ways_by_enumeration(n, a);
            let formula = riffle_ways(n, passes);
            let mut by_r = vec![0.0; n + 1];
            for_each_in_rank_order(n, |rank, deck| {
                let r = rising_sequences_by_sweeps(deck);
                assert_eq!(
                    BigUint::from(ways[rank]),
                    formula[r],
                    "n={n} a={a} rank {rank}"
                );
                by_r[r] += ways[rank] as f64;
            });
            let scale = (a as f64).powi(n as i32);
            let law = riffle_rising_law(n, passes);
            for (r, count) in by_r.iter().enumerate() {
                assert!(
                    (count / scale - law[r]).abs() < 1e-15,
                    "n={n} K={passes} r={r}"
                );
            }
            let uniform = 1.0 / small_factorial(n) as f64;
            let distance: f64 = ways
                .iter()
                .map(|&w| (w as f64 / scale - uniform).abs())
                .sum::<f64>()
                / 2.0;
            assert!((riffle_tv_distance(n, passes) - distance).abs() < 1e-13);
        }
    }

    #[test]
    fn passes_needed_is_the_first_pass_below_the_threshold() {
        for n in [2, 5, 13, 52] {
            let distances: Vec<f64> = (0..=40).map(|k| riffle_tv_distance(n, k)).collect();
            for pair in distances.windows(2) {
                assert!(pair[1] <= pair[0], "n={n}: distance went up");
            }
            for threshold in [0.9, 0.5, 0.25, 0.01, 1e-6] {
                let first = distances.iter().position(|&d| d < threshold).unwrap() as u32;
                assert_eq!(
                    riffle_passes_needed(n, threshold),
                    first,
                    "n={n} t={threshold}"
                );
            }
        }
        // A threshold far below f64's usual range still terminates (doubling, then bisection).
        let passes = riffle_passes_needed(52, 1e-300);
        assert!(riffle_tv_distance(52, passes) < 1e-300);
        assert!(riffle_tv_distance(52, passes - 1) >= 1e-300);
    }
}
