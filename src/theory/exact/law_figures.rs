//! The figures of a law read off its tables ([`Law`]'s methods): its support, the position
//! matrix, the distance and the noncentrality against uniform, the ratio of its extremes and
//! the exact fraction of one ordering.

use super::positions::position_sums;
use super::{Law, UNIFORM, UNIFORM_BY_CONSTRUCTION};
use crate::engine::permutation::{factorial, for_each_in_rank_order};
use crate::theory::permutation_statistics::ratio_to_f64;
use num_bigint::BigUint;

impl Law {
    /// How many permutations have non-zero probability.
    pub fn support_size(&self) -> usize {
        self.probabilities.iter().filter(|&&p| p > 0.0).count()
    }

    /// Whether this is the uniform law, every ordering 1/n!: built as the uniform law, or
    /// uniform by the algorithm's construction (a theorem, not a computed table).
    pub fn is_uniform(&self) -> bool {
        matches!(self.method, UNIFORM | UNIFORM_BY_CONSTRUCTION)
    }

    /// The position matrix: `[card][position]` = P(card ends at position).
    ///
    /// Under the uniform law each card sits at each position in (n − 1)! of the n! orderings:
    /// every cell is (n − 1)!/n!, the correctly rounded 1/n, without a walk of the n! orderings
    /// (which would sum (n − 1)! roundings of 1/n!). With exact fractions each cell is the sum
    /// of the numerators of the orderings that put the card there (summed exactly, by blocks)
    /// over the denominator, rounded once; otherwise the probabilities are summed.
    pub fn position_matrix(&self) -> Vec<Vec<f64>> {
        let n = self.deck;
        if self.is_uniform() && n > 0 {
            return vec![vec![factorial(n - 1) as f64 / factorial(n) as f64; n]; n];
        }
        if let Some(exact) = &self.exact {
            let denominator = BigUint::from(exact.denominator);
            return position_sums(exact.numerators.as_slice(), n)
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|&sum| ratio_to_f64(&BigUint::from(sum), &denominator))
                        .collect()
                })
                .collect();
        }
        let mut matrix = vec![vec![0.0; n]; n];
        for_each_in_rank_order(n, |cell, deck| {
            let p = self.probabilities[cell];
            if p > 0.0 {
                for (position, &card) in deck.iter().enumerate() {
                    matrix[usize::from(card)][position] += p;
                }
            }
        });
        matrix
    }

    /// Total variation distance from uniform: ½ Σ |p − 1/n!|.
    pub fn tv_distance_from_uniform(&self) -> f64 {
        let u = 1.0 / self.probabilities.len() as f64;
        0.5 * self
            .probabilities
            .iter()
            .map(|p| (p - u).abs())
            .sum::<f64>()
    }

    /// Cohen's effect size w² = Σ (p − u)² / u = n!·Σ p² − 1: the χ² noncentrality per trial of
    /// this law against uniform (Cohen 1988, ch. 7).
    ///
    /// With exact fractions num_i/den it is computed exactly, (n!·Σ num_i² − den²)/den², and
    /// rounded once: a bias of one word in 2^32 (w² near 10^-20) is not lost to the rounding
    /// of the f64 probabilities.
    pub fn noncentrality_per_trial(&self) -> f64 {
        // Uniform: n!·n!·(1/n!)² − 1 = 0 exactly, as the sums below give it (without a sweep
        // of the n! numerators, 15 ms at 10 cards, in the fixed cost of every run).
        if self.is_uniform() {
            return 0.0;
        }
        if let Some(exact) = &self.exact {
            // Σ num² ≤ (Σ num)² = den², so while den < 2^64 the sum fits in 128 bits and the
            // big integers are needed only once, at the end.
            let squares: BigUint = if exact.denominator <= u128::from(u64::MAX) {
                BigUint::from(exact.numerators.iter().map(|&n| n * n).sum::<u128>())
            } else {
                exact
                    .numerators
                    .iter()
                    .map(|&numerator| {
                        let numerator = BigUint::from(numerator);
                        &numerator * &numerator
                    })
                    .sum()
            };
            let scaled = squares * BigUint::from(self.probabilities.len());
            let denominator = BigUint::from(exact.denominator);
            let denominator_squared = &denominator * &denominator;
            // n!·Σ num² ≥ den² by Cauchy–Schwarz (Σ num = den).
            let excess = scaled - &denominator_squared;
            return ratio_to_f64(&excess, &denominator_squared);
        }
        let cells = self.probabilities.len() as f64;
        let u = 1.0 / cells;
        self.probabilities
            .iter()
            .map(|p| (p - u) * (p - u) / u)
            .sum()
    }

    /// max p / min p over all permutations (infinite when some permutation is impossible).
    pub fn max_min_ratio(&self) -> f64 {
        let max = self.probabilities.iter().cloned().fold(0.0, f64::max);
        let min = self
            .probabilities
            .iter()
            .cloned()
            .fold(f64::INFINITY, f64::min);
        if min > 0.0 { max / min } else { f64::INFINITY }
    }

    /// The probability of `rank` as an exact reduced fraction, if known exactly.
    pub fn fraction(&self, rank: usize) -> Option<String> {
        self.exact.as_ref().map(|e| e.fraction(rank))
    }
}
