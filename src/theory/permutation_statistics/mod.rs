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

use crate::stats::probability::Probability;
use crate::theory::rank_statistics;

pub use crate::engine::statistics::{EVERY_DECK, Statistic, StatisticValues, scratch_len};
pub use riffle_shape::{MAX_SHAPE_DECK, riffle_descent_law, riffle_valley_law};

mod riffle_shape;

impl Statistic {
    /// The exact number of permutations of n cards taking each value 0..=max (they sum to n!).
    ///
    /// Computed once per process for each (statistic, n), then cloned from a cache: the longer
    /// laws (see [`Statistic::max_exact_deck`]) are asked for by several parts of a report,
    /// and [`prepare_exact_counts`] may have computed them already, on a thread of its own. A
    /// law being computed when it is asked for is waited for, not computed twice.
    /// Panics if n = 0; any n works, at a cost that grows past `max_exact_deck`.
    pub fn exact_counts(self, n: usize) -> Vec<BigUint> {
        assert!(n >= 1, "a deck needs at least one card");
        type Cache = Mutex<HashMap<(Statistic, usize), Arc<OnceLock<Vec<BigUint>>>>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(Cache::default);
        // The cache's lock is held only to find the law's cell, not while it is computed.
        let cell = Arc::clone(
            cache
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .entry((self, n))
                .or_default(),
        );
        cell.get_or_init(|| self.compute_counts(n)).clone()
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
            Statistic::Valleys => rank_statistics::valley_counts(n),
            // Any strategy guessing unseen cards has the law of the cycles against a uniform
            // deck (see `engine::statistics::guessing_score`).
            Statistic::Guessing => cycle_counts(n),
            Statistic::ColourChanges => rank_statistics::colour_change_counts(n),
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

/// Start computing the exact laws of the statistics tallied on decks of `n` cards
/// ([`Statistic::tallied`]), the costliest first, on a thread of its own, into the cache that
/// [`Statistic::exact_counts`] reads: a marginal-mode report asks for all of them after the
/// shuffles are tallied, and at 52 cards they take about 20 ms (the longest increasing
/// subsequence's sum over the partitions of n, then the footrule's transfer matrix), which this
/// overlaps with reading or simulating. The values are the same either way; if no thread can
/// be started, each law is computed when it is first asked for, as without this call.
pub fn prepare_exact_counts(n: usize) {
    if n == 0 {
        return;
    }
    let mut statistics: Vec<Statistic> = Statistic::tallied(n).collect();
    statistics.sort_by_key(|statistic| match statistic {
        Statistic::LongestIncreasing => 0,
        Statistic::Footrule => 1,
        Statistic::Inversions => 2,
        _ => 3,
    });
    // A thread not started leaves the laws to be computed when asked for.
    let _ = std::thread::Builder::new()
        .name("exact laws".into())
        .spawn(move || {
            for statistic in statistics {
                statistic.exact_counts(n);
            }
        });
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
mod tests;
