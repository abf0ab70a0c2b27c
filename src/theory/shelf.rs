//! The exact law of the casino shelf shuffler ([`crate::engine::algorithms::shelf`]) for decks of
//! any size, after Diaconis, Fulman & Holmes, "Analysis of casino shelf shuffling machines",
//! Ann. Appl. Probab. 23(4) (2013) 1692–1720 (DFH; arXiv:1107.2961).
//!
//! One pass with m shelves makes (2m)^n equally likely choice sequences (a shelf and a side per
//! card). Each pile reads, from the top, rising then falling in starting position, so the deck it
//! produces is m such piles end to end, and the number of sequences that produce an ordering w
//! depends only on its number of valleys v(w) (positions i, 0 < i < n − 1, with
//! w\[i − 1\] > w\[i\] < w\[i + 1\]): by DFH Theorem 3.1 it is
//!
//! N_m(v) = 2^(2v + 1) · Σ_{a = v}^{m − 1} C(n − 1 − 2v, a − v) · C(n + m − a − 1, n),
//!
//! and P(w) = N_m(v(w)) / (2m)^n. Two passes with m and m' shelves make one pass with 2mm'
//! shelves (DFH, from the peak algebra), so K passes of m shelves are one pass of 2^(K−1)·m^K.
//!
//! The number of orderings of n cards with k valleys (equivalently k interior peaks, by turning
//! the card values upside down) is V(n, k) = (2k + 2)·V(n − 1, k) + (n − 2k)·V(n − 1, k − 1),
//! V(1, 0) = 1 (insert the largest card: at either end or beside a peak it adds no peak, in any
//! other gap one; OEIS A008303). With both, the total variation and separation distances to
//! uniform are exact sums over at most n/2 + 1 valley counts, in big integers, rounded once:
//! for 52 cards and one pass, 0.99999928 at 10 shelves (DFH's figure), 0.7201 at 20, 0.0409 at
//! 100 and 0.0103 at 200.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use num_bigint::BigUint;
use num_traits::{One, Zero};

pub use crate::engine::statistics::valleys;
pub use crate::theory::rank_statistics::valley_counts;
use crate::theory::permutation_statistics::{
    ValueLaw,
    big_factorial, fraction_below, least_passes_from, ratio_to_f64,
};

/// The most valleys an ordering of n cards can have: ⌊(n − 1)/2⌋ (0 for n ≤ 2).
pub fn max_valleys(n: usize) -> usize {
    n.saturating_sub(1) / 2
}

/// The number of shelves of one pass equal in law to `passes` passes of `shelves` shelves:
/// 2^(K−1)·m^K (DFH: m then m' shelves make 2mm').
pub fn equivalent_shelves(shelves: u16, passes: u32) -> BigUint {
    assert!(
        shelves >= 1 && passes >= 1,
        "at least one shelf and one pass"
    );
    BigUint::from(shelves).pow(passes) << (passes - 1)
}

/// C(top, n) for a big `top` and a small `n`.
fn big_binomial(top: &BigUint, n: usize) -> BigUint {
    let mut product = BigUint::one();
    for i in 0..n {
        if *top < BigUint::from(i + 1) {
            return BigUint::zero();
        }
        product *= top - BigUint::from(i);
    }
    product / big_factorial(n)
}

/// N_m(v) of DFH Theorem 3.1: how many of the (2m)^n choice sequences of one pass with m =
/// `shelves` shelves produce a given ordering of n cards with v valleys (v ≤ ⌊(n − 1)/2⌋).
pub fn sequences_per_ordering(n: usize, shelves: &BigUint, v: usize) -> BigUint {
    assert!(n >= 1 && v <= max_valleys(n), "{v} valleys in {n} cards");
    let free = n - 1 - 2 * v;
    let mut sum = BigUint::zero();
    for a in v..=v + free {
        if BigUint::from(a) >= *shelves {
            break;
        }
        let choose_free = big_binomial(&BigUint::from(free), a - v);
        sum += choose_free * big_binomial(&(shelves + BigUint::from(n) - BigUint::from(a + 1)), n);
    }
    sum << (2 * v + 1)
}

/// C(m + n − 1 − a, n) for a = 0 … n − 1, the second factor of each term of DFH Theorem 3.1
/// (zero from a = m on, where the top falls below n). The first is m(m + 1)…(m + n − 1)/n!;
/// each next one follows by C(t − 1, n) = C(t, n)·(t − n)/t, an exact division.
fn top_binomials(n: usize, shelves: &BigUint) -> Vec<BigUint> {
    let mut row = Vec::with_capacity(n);
    let mut current =
        (0..n).fold(BigUint::one(), |product, i| product * (shelves + i)) / big_factorial(n);
    for a in 0..n {
        let falls_to_zero = *shelves <= BigUint::from(a + 1);
        if falls_to_zero {
            row.push(std::mem::take(&mut current));
            row.resize(n, BigUint::zero());
            break;
        }
        let top = shelves + (n - 1 - a);
        let next = &current * (shelves - (a + 1)) / top;
        row.push(std::mem::replace(&mut current, next));
    }
    row
}

/// The exact law of `passes` passes of `shelves` shelves on n cards, by valley count: the
/// numerators N(v) for v = 0 … ⌊(n − 1)/2⌋ over the common denominator (2M)^n, M the
/// [`equivalent_shelves`]. An ordering with v valleys has probability N(v)/(2M)^n.
///
/// The same numbers as [`sequences_per_ordering`] for each v, by fewer operations: with
/// B(a) = C(M + n − 1 − a, n), the sum of Theorem 3.1 is S_f(v) = Σ_j C(f, j)·B(v + j) for
/// f = n − 1 − 2v, and S_{f+1}(i) = S_f(i) + S_f(i + 1) (Pascal's rule), so the rows of
/// additions S_0 = B, S_1, …, S_{n−1} give every N(v) = 2^(2v+1)·S_{n−1−2v}(v): n²/2 big
/// additions instead of a big binomial per term (n³ big products in all).
pub fn shelf_law(n: usize, shelves: u16, passes: u32) -> (Vec<BigUint>, BigUint) {
    law_unless_stopped(n, shelves, passes, &NEVER).expect("a flag never raised")
}

/// Stopped by its flag (Ctrl-C) before the distance asked for was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

/// The flag of the computations nothing stops.
static NEVER: AtomicBool = AtomicBool::new(false);

/// [`shelf_law`], polling `stop` before each row of additions (a few milliseconds each even for
/// 1,000 cards and hundreds of passes).
fn law_unless_stopped(
    n: usize,
    shelves: u16,
    passes: u32,
    stop: &AtomicBool,
) -> Result<(Vec<BigUint>, BigUint), Stopped> {
    assert!(n >= 1, "a deck needs at least one card");
    let m = equivalent_shelves(shelves, passes);
    let mut numerators = vec![BigUint::zero(); max_valleys(n) + 1];
    let mut row = top_binomials(n, &m);
    for free in 0..n {
        if stop.load(Ordering::Relaxed) {
            return Err(Stopped);
        }
        // Row `free` holds S_free(i) for i = 0 … n − 1 − free.
        if (n - 1 - free).is_multiple_of(2) {
            let v = (n - 1 - free) / 2;
            numerators[v] = &row[v] << (2 * v + 1);
        }
        for i in 1..row.len() {
            let (left, right) = row.split_at_mut(i);
            left[i - 1] += &right[0];
        }
        row.pop();
    }
    Ok((numerators, (m << 1u32).pow(n as u32)))
}

/// The probability of one ordering with `v` valleys after `passes` passes of `shelves` shelves.
pub fn shelf_probability(n: usize, shelves: u16, passes: u32, v: usize) -> f64 {
    let (numerators, denominator) = shelf_law(n, shelves, passes);
    ratio_to_f64(&numerators[v], &denominator)
}

/// ½ Σ_w |P(w) − 1/n!| as an exact fraction, from the law and the valley counts V(n, v) and
/// n! of the deck.
fn tv_fraction_of(
    (numerators, denominator): (&[BigUint], BigUint),
    counts: &[BigUint],
    total: &BigUint,
) -> (BigUint, BigUint) {
    let mut sum = BigUint::zero();
    for (count, numerator) in counts.iter().zip(numerators) {
        let weighted = numerator * total;
        let difference = if weighted >= denominator {
            weighted - &denominator
        } else {
            &denominator - weighted
        };
        sum += count * difference;
    }
    (sum, (denominator * total) << 1u32)
}

/// 1 − n!·N(v)/(2M)^n at the least likely valley count, as an exact fraction (0 when every
/// ordering is at least as likely as under the uniform law).
fn separation_fraction(
    (numerators, denominator): (&[BigUint], &BigUint),
    total: &BigUint,
) -> (BigUint, BigUint) {
    let least = numerators.iter().min().expect("at least one valley count") * total;
    if least >= *denominator {
        return (BigUint::zero(), BigUint::one());
    }
    (denominator - least, denominator.clone())
}

/// The distances to uniform of K passes of `shelves` shelves on one deck, for several K: the
/// valley counts and n! are computed once, and the exact total variation of each K once however
/// many thresholds ask for it (the searches of [`ShelfDistances::passes_needed`] for 0.5, 0.1
/// and 0.01 visit mostly the same K). A `stop` flag, when given, ends any computation early.
pub struct ShelfDistances<'a> {
    n: usize,
    shelves: u16,
    counts: Vec<BigUint>,
    total: BigUint,
    tv_fractions: BTreeMap<u32, (BigUint, BigUint)>,
    stop: &'a AtomicBool,
}

impl ShelfDistances<'static> {
    /// The distances of the shelf shuffler with `shelves` shelves on n ≥ 1 cards.
    pub fn new(n: usize, shelves: u16) -> Self {
        ShelfDistances {
            n,
            shelves,
            counts: valley_counts(n),
            total: big_factorial(n),
            tv_fractions: BTreeMap::new(),
            stop: &NEVER,
        }
    }
}

impl ShelfDistances<'_> {
    /// The same distances, each computation abandoned with [`Stopped`] once `stop` is raised
    /// (the Ctrl-C flag, [`crate::system::interrupt::flag`]).
    pub fn stopped_by(self, stop: &AtomicBool) -> ShelfDistances<'_> {
        ShelfDistances {
            n: self.n,
            shelves: self.shelves,
            counts: self.counts,
            total: self.total,
            tv_fractions: self.tv_fractions,
            stop,
        }
    }

    /// The exact total variation distance after `passes` passes, as a fraction.
    fn tv_fraction(&mut self, passes: u32) -> Result<&(BigUint, BigUint), Stopped> {
        if !self.tv_fractions.contains_key(&passes) {
            let (numerators, denominator) =
                law_unless_stopped(self.n, self.shelves, passes, self.stop)?;
            let fraction = tv_fraction_of((&numerators, denominator), &self.counts, &self.total);
            self.tv_fractions.insert(passes, fraction);
        }
        Ok(&self.tv_fractions[&passes])
    }

    /// The total variation distance after `passes` passes, exact, rounded once.
    pub fn tv_distance(&mut self, passes: u32) -> Result<f64, Stopped> {
        let (numerator, denominator) = self.tv_fraction(passes)?;
        Ok(ratio_to_f64(numerator, denominator))
    }

    /// The total variation and separation distances after `passes` passes, each exact and
    /// rounded once, from one computation of the law.
    pub fn tv_and_separation(&mut self, passes: u32) -> Result<(f64, f64), Stopped> {
        let (numerators, denominator) =
            law_unless_stopped(self.n, self.shelves, passes, self.stop)?;
        let (gap, of) = separation_fraction((&numerators, &denominator), &self.total);
        let separation = ratio_to_f64(&gap, &of);
        let tv = self.tv_fractions.entry(passes).or_insert_with(|| {
            tv_fraction_of((&numerators, denominator), &self.counts, &self.total)
        });
        Ok((ratio_to_f64(&tv.0, &tv.1), separation))
    }

    /// The least number of passes after which the total variation distance is below
    /// `threshold` (compared exactly). The distance never increases with K (a random walk on a
    /// group), so the search doubles K and then bisects. Panics unless threshold > 0.
    pub fn passes_needed(&mut self, threshold: f64) -> Result<u32, Stopped> {
        assert!(threshold > 0.0, "the threshold must be > 0");
        let mut stopped = None;
        // Once stopped, every K counts as below: the search ends at once and is discarded.
        let passes = least_passes_from(1, |passes| match self.tv_fraction(passes) {
            Ok((numerator, denominator)) => fraction_below(numerator, denominator, threshold),
            Err(error) => {
                stopped = Some(error);
                true
            }
        });
        stopped.map_or(Ok(passes), Err)
    }
}

/// Total variation distance to uniform after `passes` passes of the shelf shuffler with
/// `shelves` shelves on n ≥ 1 cards: ½ Σ_v V(n, v)·|N(v)/(2M)^n − 1/n!|, exact, rounded once.
pub fn shelf_tv_distance(n: usize, shelves: u16, passes: u32) -> f64 {
    ShelfDistances::new(n, shelves)
        .tv_distance(passes)
        .expect("never stopped")
}

/// Separation distance to uniform, max_w (1 − n!·P(w)): 1 − n!·N(v)/(2M)^n at the least likely
/// valley count (every valley count occurs, so its least numerator is the least probability).
pub fn shelf_separation(n: usize, shelves: u16, passes: u32) -> f64 {
    let (numerators, denominator) = shelf_law(n, shelves, passes);
    let (gap, of) = separation_fraction((&numerators, &denominator), &big_factorial(n));
    ratio_to_f64(&gap, &of)
}

/// The least number of passes after which the total variation distance is below `threshold`
/// (compared exactly); see [`ShelfDistances::passes_needed`]. Panics unless threshold > 0.
pub fn shelf_passes_needed(n: usize, shelves: u16, threshold: f64) -> u32 {
    ShelfDistances::new(n, shelves)
        .passes_needed(threshold)
        .expect("never stopped")
}

/// The law of the number of valleys after `passes` passes of `shelves` shelves on n ≥ 1 cards:
/// P(v) = V(n, v)·N(v)/(2M)^n, exact fractions rounded once (with their logarithms, which stay
/// finite where an f64 would underflow).
pub fn shelf_valley_law(n: usize, shelves: u16, passes: u32) -> ValueLaw {
    let (numerators, denominator) = shelf_law(n, shelves, passes);
    let counts: Vec<BigUint> = valley_counts(n)
        .iter()
        .zip(&numerators)
        .map(|(orderings, numerator)| orderings * numerator)
        .collect();
    ValueLaw::from_counts(&counts, &denominator)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::permutation::for_each_in_rank_order;

    /// Theorem 3.1 term by term, a big binomial per term ([`sequences_per_ordering`]): the
    /// oracle the law by rows of additions is checked against.
    fn law_term_by_term(n: usize, shelves: u16, passes: u32) -> Vec<BigUint> {
        let m = equivalent_shelves(shelves, passes);
        (0..=max_valleys(n))
            .map(|v| sequences_per_ordering(n, &m, v))
            .collect()
    }

    /// The exact total variation distance from the oracle's law, and the least K with it below
    /// `threshold`, found by trying K = 1, 2, 3, … in turn.
    fn tv_term_by_term(n: usize, shelves: u16, passes: u32) -> (BigUint, BigUint) {
        let numerators = law_term_by_term(n, shelves, passes);
        let denominator = (equivalent_shelves(shelves, passes) << 1u32).pow(n as u32);
        let total = big_factorial(n);
        let mut sum = BigUint::zero();
        for (count, numerator) in valley_counts(n).iter().zip(&numerators) {
            let weighted = numerator * &total;
            let (high, low) = if weighted >= denominator {
                (weighted, denominator.clone())
            } else {
                (denominator.clone(), weighted)
            };
            sum += count * (high - low);
        }
        (sum, (denominator * total) << 1u32)
    }

    #[test]
    fn the_law_by_rows_of_additions_is_theorem_3_1_term_by_term() {
        // Few equivalent shelves (M < n: the binomials fall to zero early) and many (M ≫ n).
        for n in (1..=40).chain([52, 77]) {
            for (shelves, passes) in [(1, 1), (1, 2), (2, 1), (3, 1), (1, 5), (10, 1), (10, 3)] {
                assert_eq!(
                    shelf_law(n, shelves, passes).0,
                    law_term_by_term(n, shelves, passes),
                    "n={n} m={shelves} K={passes}"
                );
            }
        }
        assert_eq!(shelf_law(120, 10000, 2).0, law_term_by_term(120, 10000, 2));
    }

    #[test]
    fn the_top_binomials_are_the_binomials_of_theorem_3_1() {
        for n in 1..=12 {
            for m in [1u32, 2, 3, 5, 11, 12, 13, 1000] {
                let m = BigUint::from(m);
                let direct: Vec<BigUint> = (0..n)
                    .map(|a| big_binomial(&(&m + (n - 1 - a)), n))
                    .collect();
                assert_eq!(top_binomials(n, &m), direct, "n={n} m={m}");
            }
        }
    }

    #[test]
    fn the_distances_are_the_exact_fractions_of_the_term_by_term_law() {
        for n in [2, 3, 4, 7, 16, 33, 52] {
            for (shelves, passes) in [(1, 1), (1, 4), (2, 2), (10, 1), (10, 2), (10, 3)] {
                let mut distances = ShelfDistances::new(n, shelves);
                let (numerator, denominator) = tv_term_by_term(n, shelves, passes);
                assert_eq!(
                    *distances.tv_fraction(passes).unwrap(),
                    (numerator.clone(), denominator.clone()),
                    "n={n} m={shelves} K={passes}"
                );
                let numerators = law_term_by_term(n, shelves, passes);
                let d = (equivalent_shelves(shelves, passes) << 1u32).pow(n as u32);
                let least = numerators.iter().min().unwrap() * big_factorial(n);
                let separation = if least >= d {
                    0.0
                } else {
                    ratio_to_f64(&(&d - least), &d)
                };
                let tv = ratio_to_f64(&numerator, &denominator);
                assert_eq!(distances.tv_and_separation(passes), Ok((tv, separation)));
                assert_eq!(shelf_tv_distance(n, shelves, passes), tv);
                assert_eq!(shelf_separation(n, shelves, passes), separation);
            }
        }
    }

    #[test]
    fn one_set_of_distances_answers_every_threshold_as_a_search_from_scratch_would() {
        // The thresholds are asked in an order that reuses the K of earlier searches, and the
        // answers are checked against trying K = 1, 2, … with the term-by-term law.
        for n in [2, 3, 5, 8, 20, 52] {
            for shelves in [1, 2, 10] {
                let mut distances = ShelfDistances::new(n, shelves);
                for threshold in [0.01, 0.5, 0.1, 1e-6, 0.999] {
                    let scanned = (1..)
                        .find(|&k| {
                            let (numerator, denominator) = tv_term_by_term(n, shelves, k);
                            fraction_below(&numerator, &denominator, threshold)
                        })
                        .unwrap();
                    assert_eq!(
                        distances.passes_needed(threshold),
                        Ok(scanned),
                        "n={n} m={shelves}"
                    );
                    assert_eq!(shelf_passes_needed(n, shelves, threshold), scanned);
                }
            }
        }
    }

    #[test]
    fn a_raised_stop_flag_ends_every_distance_and_search_with_stopped() {
        let stop = AtomicBool::new(false);
        let mut distances = ShelfDistances::new(60, 10).stopped_by(&stop);
        assert_eq!(distances.passes_needed(0.5), Ok(2));
        stop.store(true, Ordering::Relaxed);
        // K = 1 and 2 are kept from the search; any other K is refused, and so is a search needing
        // one.
        assert_eq!(distances.tv_distance(2), Ok(shelf_tv_distance(60, 10, 2)));
        assert_eq!(distances.tv_distance(4), Err(Stopped));
        assert_eq!(distances.tv_and_separation(1), Err(Stopped));
        assert_eq!(distances.passes_needed(1e-9), Err(Stopped));
    }

    #[test]
    fn valley_counts_agree_with_counting_every_ordering_up_to_eight_cards() {
        for n in 1..=8 {
            let mut counted = vec![0u64; max_valleys(n) + 1];
            for_each_in_rank_order(n, |_, deck| counted[valleys(deck)] += 1);
            let counted: Vec<BigUint> = counted.into_iter().map(BigUint::from).collect();
            assert_eq!(valley_counts(n), counted, "n={n}");
        }
    }

    #[test]
    fn the_law_sums_to_one_for_every_deck_shelves_and_passes() {
        for n in [1, 2, 3, 5, 8, 13, 30, 52] {
            let counts = valley_counts(n);
            for shelves in [1, 2, 3, 10, 200] {
                for passes in 1..=3 {
                    let (numerators, denominator) = shelf_law(n, shelves, passes);
                    let total: BigUint = counts.iter().zip(&numerators).map(|(c, p)| c * p).sum();
                    assert_eq!(total, denominator, "n={n} m={shelves} K={passes}");
                }
            }
        }
    }

    #[test]
    fn one_pass_of_52_cards_is_as_far_from_uniform_as_dfh_report() {
        // Diaconis, Fulman & Holmes (2013): 10 shelves leave 0.99999928; the other figures to
        // the 4 places quoted (rounding error at most half a unit of the last place).
        let tv = |shelves| shelf_tv_distance(52, shelves, 1);
        assert!((tv(10) - 0.999_999_28).abs() <= 0.5e-8, "{}", tv(10));
        assert!((tv(20) - 0.7201).abs() <= 0.5e-4, "{}", tv(20));
        assert!((tv(100) - 0.0409).abs() <= 0.5e-4, "{}", tv(100));
        assert!((tv(200) - 0.0103).abs() <= 0.5e-4, "{}", tv(200));
    }

    #[test]
    fn ten_shelves_cannot_make_an_ordering_with_ten_valleys_so_the_separation_is_one() {
        // m piles that each rise then fall leave at most m − 1 valleys.
        let (numerators, _) = shelf_law(52, 10, 1);
        assert!(numerators[..10].iter().all(|n| !n.is_zero()));
        assert!(numerators[10..].iter().all(Zero::is_zero));
        assert_eq!(shelf_separation(52, 10, 1), 1.0);
        assert!(shelf_separation(52, 200, 1) < 1.0);
    }

    #[test]
    fn three_cards_on_one_shelf_by_hand() {
        // 2^3 choice sequences; the four orderings with no valley arise twice each (the first
        // card's side does not matter), 1 0 2 and 2 0 1 never: TV = ½(4·(1/4 − 1/6) + 2·1/6).
        let (numerators, denominator) = shelf_law(3, 1, 1);
        assert_eq!(numerators, vec![BigUint::from(2u32), BigUint::zero()]);
        assert_eq!(denominator, BigUint::from(8u32));
        assert!((shelf_tv_distance(3, 1, 1) - 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(shelf_separation(3, 1, 1), 1.0);
        // Two cards: every pass is uniform.
        assert_eq!(shelf_tv_distance(2, 7, 1), 0.0);
        assert_eq!(shelf_separation(2, 7, 1), 0.0);
        assert!((shelf_probability(3, 1, 1, 0) - 0.25).abs() < 1e-15);
    }

    #[test]
    fn the_passes_needed_are_the_first_below_each_threshold() {
        for shelves in [1, 10, 20] {
            for threshold in [0.5, 0.1, 0.01] {
                let k = shelf_passes_needed(52, shelves, threshold);
                assert!(shelf_tv_distance(52, shelves, k) < threshold);
                if k > 1 {
                    assert!(shelf_tv_distance(52, shelves, k - 1) >= threshold);
                }
            }
        }
    }

    #[test]
    fn k_passes_are_one_pass_of_two_to_the_k_minus_one_times_m_to_the_k_shelves() {
        assert_eq!(equivalent_shelves(10, 1), BigUint::from(10u32));
        assert_eq!(equivalent_shelves(10, 2), BigUint::from(200u32));
        assert_eq!(equivalent_shelves(3, 3), BigUint::from(108u32));
        let (two_passes, _) = shelf_law(9, 3, 2);
        let eighteen: Vec<BigUint> = (0..=max_valleys(9))
            .map(|v| sequences_per_ordering(9, &BigUint::from(18u32), v))
            .collect();
        assert_eq!(two_passes, eighteen);
    }
}
