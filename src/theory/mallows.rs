//! The exact mean and variance of the Mallows kernel k(σ, τ) = q^{d(σ, τ)}, q = e^{−λ}, d
//! Kendall's distance, when one of the two decks is uniform (the serial Mallows MMD test of
//! [`crate::analysis::mallows`]).
//!
//! For τ uniform and any σ, d(σ, τ) = inv(σ∘τ⁻¹) has the Mahonian law, whose generating
//! function is Π_{j=1..n} (1 + q + … + q^{j−1}) / n! (Rodrigues 1839; Stanley, *Enumerative
//! Combinatorics I*, Cor. 1.3.13). So
//!
//! E[k(σ, τ)] = c_n(q) = Π_{j=1..n} (1 − q^j) / (j(1 − q)),
//!
//! the same for every σ, and for independent uniform decks Var k = c_n(q²) − c_n(q)². The products
//! are taken in logarithms, each factor as ln(−expm1(−λj)) − ln j − ln(−expm1(−λ)), which keeps
//! its accuracy for the small λ of large decks (q close to 1).

/// ln c_n(e^{−λ}), the logarithm of the mean kernel against a uniform deck of n cards.
pub fn ln_mean_kernel(deck: usize, lambda: f64) -> f64 {
    let ln_one_minus_q = (-(-lambda).exp_m1()).ln();
    (1..=deck)
        .map(|j| {
            let j = j as f64;
            (-(-lambda * j).exp_m1()).ln() - j.ln() - ln_one_minus_q
        })
        .sum()
}

/// The kernel's mean and variance over a pair of independent uniform decks, both scaled by
/// e^{λ·center} (its square for the variance): the moments of the centred kernel
/// exp(λ(center − d)) that [`crate::engine::deal_stream::kernel`] sums.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KernelMoments {
    /// E[exp(λ(center − d))] = c_n(q)·e^{λ·center}.
    pub mean: f64,
    /// Var[exp(λ(center − d))] = (c_n(q²) − c_n(q)²)·e^{2λ·center}.
    pub variance: f64,
}

/// The centred kernel's moments for decks of `deck` cards (see [`KernelMoments`]).
pub fn kernel_moments(deck: usize, lambda: f64, center: f64) -> KernelMoments {
    let ln_mean = ln_mean_kernel(deck, lambda) + lambda * center;
    let ln_square = ln_mean_kernel(deck, 2.0 * lambda) + 2.0 * lambda * center;
    let mean = ln_mean.exp();
    // c_n(q²) ≥ c_n(q)² (Jensen): no cancellation worse than their ratio, e − 1 or so.
    KernelMoments {
        mean,
        variance: (ln_square.exp() - mean * mean).max(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::permutation::for_each_in_rank_order;
    use crate::engine::statistics::inversions;
    use crate::theory::permutation_statistics::Statistic;
    use num_traits::ToPrimitive;

    /// E over all n! decks τ of q^{inv(τ)} and of q^{2 inv(τ)}, by enumeration.
    fn brute_force(n: usize, lambda: f64) -> (f64, f64) {
        let mut scratch = vec![0; n + 1];
        let (mut sum, mut squares, mut count) = (0.0, 0.0, 0.0);
        for_each_in_rank_order(n, |_, deck| {
            let k = (-lambda * inversions(deck, &mut scratch) as f64).exp();
            sum += k;
            squares += k * k;
            count += 1.0;
        });
        (sum / count, squares / count)
    }

    #[test]
    fn the_mean_kernel_equals_the_average_over_every_deck_up_to_seven_cards() {
        for n in 1..=7 {
            for lambda in [0.05, 0.3, 1.0, 2.5] {
                let (mean, square) = brute_force(n, lambda);
                let exact = ln_mean_kernel(n, lambda).exp();
                assert!((exact / mean - 1.0).abs() < 1e-12, "n {n} λ {lambda}");
                let moments = kernel_moments(n, lambda, 0.0);
                assert!((moments.mean / mean - 1.0).abs() < 1e-12);
                let variance = square - mean * mean;
                assert!(
                    (moments.variance - variance).abs() < 1e-12 * square,
                    "n {n} λ {lambda}: {} vs {variance}",
                    moments.variance
                );
            }
        }
    }

    #[test]
    fn the_mean_kernel_equals_the_mahonian_sum_up_to_sixty_cards() {
        for n in [8, 13, 21, 34, 52, 60] {
            let counts = Statistic::Inversions.exact_counts(n);
            let total: f64 = counts.iter().map(|c| c.to_f64().unwrap()).sum();
            for lambda in [0.01, 1.0 / (n as f64).powf(1.5) * 6.0, 0.5] {
                let mean: f64 = counts
                    .iter()
                    .enumerate()
                    .map(|(d, c)| c.to_f64().unwrap() / total * (-lambda * d as f64).exp())
                    .sum();
                let exact = ln_mean_kernel(n, lambda).exp();
                assert!(
                    (exact / mean - 1.0).abs() < 1e-10,
                    "n {n} λ {lambda}: {exact} vs {mean}"
                );
            }
        }
    }

    #[test]
    fn centring_scales_the_mean_and_the_standard_deviation_alike() {
        let (plain, centred) = (kernel_moments(52, 0.0158, 0.0), kernel_moments(52, 0.0158, 663.0));
        let factor = (0.0158f64 * 663.0).exp();
        assert!((centred.mean / (plain.mean * factor) - 1.0).abs() < 1e-12);
        assert!((centred.variance / (plain.variance * factor * factor) - 1.0).abs() < 1e-9);
    }
}
