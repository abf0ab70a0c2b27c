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

/// The exact law of `passes` passes of `shelves` shelves on n cards, by valley count: the
/// numerators N(v) for v = 0 … ⌊(n − 1)/2⌋ over the common denominator (2M)^n, M the
/// [`equivalent_shelves`]. An ordering with v valleys has probability N(v)/(2M)^n.
pub fn shelf_law(n: usize, shelves: u16, passes: u32) -> (Vec<BigUint>, BigUint) {
    let m = equivalent_shelves(shelves, passes);
    let numerators = (0..=max_valleys(n))
        .map(|v| sequences_per_ordering(n, &m, v))
        .collect();
    (numerators, (m << 1u32).pow(n as u32))
}

/// The probability of one ordering with `v` valleys after `passes` passes of `shelves` shelves.
pub fn shelf_probability(n: usize, shelves: u16, passes: u32, v: usize) -> f64 {
    let (numerators, denominator) = shelf_law(n, shelves, passes);
    ratio_to_f64(&numerators[v], &denominator)
}

/// ½ Σ_w |P(w) − 1/n!| as an exact fraction.
fn tv_fraction(n: usize, shelves: u16, passes: u32) -> (BigUint, BigUint) {
    let (numerators, denominator) = shelf_law(n, shelves, passes);
    let total = big_factorial(n);
    let mut sum = BigUint::zero();
    for (count, numerator) in valley_counts(n).iter().zip(&numerators) {
        let weighted = numerator * &total;
        let difference = if weighted >= denominator {
            weighted - &denominator
        } else {
            &denominator - weighted
        };
        sum += count * difference;
    }
    (sum, (denominator * total) << 1u32)
}

/// Total variation distance to uniform after `passes` passes of the shelf shuffler with
/// `shelves` shelves on n ≥ 1 cards: ½ Σ_v V(n, v)·|N(v)/(2M)^n − 1/n!|, exact, rounded once.
pub fn shelf_tv_distance(n: usize, shelves: u16, passes: u32) -> f64 {
    let (numerator, denominator) = tv_fraction(n, shelves, passes);
    ratio_to_f64(&numerator, &denominator)
}

/// Separation distance to uniform, max_w (1 − n!·P(w)): 1 − n!·N(v)/(2M)^n at the least likely
/// valley count (every valley count occurs, so its least numerator is the least probability).
pub fn shelf_separation(n: usize, shelves: u16, passes: u32) -> f64 {
    let (numerators, denominator) = shelf_law(n, shelves, passes);
    let least = numerators.iter().min().expect("at least one valley count") * big_factorial(n);
    if least >= denominator {
        return 0.0;
    }
    ratio_to_f64(&(&denominator - least), &denominator)
}

/// The least number of passes after which the total variation distance is below `threshold`
/// (compared exactly). The distance never increases with K (a random walk on a group), so the
/// search doubles K and then bisects. Panics unless threshold > 0.
pub fn shelf_passes_needed(n: usize, shelves: u16, threshold: f64) -> u32 {
    assert!(threshold > 0.0, "the threshold must be > 0");
    let below = |passes: u32| {
        let (numerator, denominator) = tv_fraction(n, shelves, passes);
        fraction_below(&numerator, &denominator, threshold)
    };
    least_passes_from(1, below)
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
