use super::*;
use crate::engine::random_source::splitmix64;
use crate::theory::rank_statistics::inversion_counts;
use num_bigint::BigUint;
use num_traits::ToPrimitive;

fn factorial(n: usize) -> BigUint {
    (1..=n as u64).map(BigUint::from).product()
}

#[test]
fn the_inversion_law_is_the_mahonian_numbers_over_n_factorial_to_the_last_digits() {
    // Against the exact integers (`inversion_counts`, big integers), each probability to a
    // relative 10⁻¹², the far tails included (P(D = 0) = 1/52! ≈ 1.2·10⁻⁶⁸).
    for n in (1..=12).chain([20, 52]) {
        let law = inversion_law(n);
        let counts = inversion_counts(n);
        let total = factorial(n).to_f64().unwrap();
        assert_eq!(law.len(), counts.len(), "n {n}");
        for (d, (p, count)) in law.iter().zip(&counts).enumerate() {
            let exact = count.to_f64().unwrap() / total;
            assert!(
                (p / exact - 1.0).abs() < 1e-12,
                "n {n} d {d}: {p:e} against {exact:e}"
            );
        }
    }
}

#[test]
fn the_inversion_law_of_a_thousand_cards_sums_to_one_and_is_symmetric() {
    let law = inversion_law(1000);
    assert_eq!(law.len(), 1000 * 999 / 2 + 1);
    let sum: f64 = law.iter().sum();
    assert!((sum - 1.0).abs() < 1e-10, "{sum}");
    let max = law.len() - 1;
    for d in [0, 10, 1000, 100_000, max / 2] {
        assert_eq!(law[d], law[max - d]);
    }
    // Mean n(n − 1)/4 and variance n(n − 1)(2n + 5)/72 (the Mahonian moments).
    let mean: f64 = law.iter().enumerate().map(|(d, p)| d as f64 * p).sum();
    let variance: f64 = law
        .iter()
        .enumerate()
        .map(|(d, p)| (d as f64 - mean).powi(2) * p)
        .sum();
    assert!((mean / (1000.0 * 999.0 / 4.0) - 1.0).abs() < 1e-10);
    assert!((variance / (1000.0 * 999.0 * 2005.0 / 72.0) - 1.0).abs() < 1e-9);
}

/// The exact law of the sum of `pairs` ∈ {1, 2} centred kernels, as (value, probability)
/// sorted by value, from the exact law of one distance.
fn exact_sum(deck: usize, pairs: usize) -> Vec<(f64, f64)> {
    let kernel = MallowsKernel::new(deck);
    let law = inversion_law(deck);
    let atoms: Vec<(f64, f64)> = law
        .iter()
        .enumerate()
        .map(|(d, &p)| (kernel.centred(d), p))
        .collect();
    let mut sums = match pairs {
        1 => atoms,
        2 => atoms
            .iter()
            .flat_map(|&(x, p)| atoms.iter().map(move |&(y, q)| (x + y, p * q)))
            .collect(),
        _ => unreachable!(),
    };
    sums.sort_by(|a, b| a.0.total_cmp(&b.0));
    sums
}

#[test]
fn the_grid_tails_lie_between_the_exact_tails_a_step_a_pair_either_side() {
    // Each term moves by less than a step on the grid (and the variance correction by far
    // less), so P(S ≥ s + 2mh) ≤ grid P(S ≥ s) ≤ P(S ≥ s − 2mh), up to the grid's resolution
    // and the capped mass; likewise below.
    for deck in [11, 20, 52] {
        for pairs in [1, 2] {
            let law = MeanKernelLaw::new(deck, pairs as u64);
            let exact = exact_sum(deck, pairs);
            let upper = |s: f64| -> f64 { exact.iter().filter(|a| a.0 >= s).map(|a| a.1).sum() };
            let lower = |s: f64| -> f64 { exact.iter().filter(|a| a.0 <= s).map(|a| a.1).sum() };
            let margin = 2.0 * pairs as f64 * law.step();
            let slack = 2.0 * RESOLUTION + law.capped;
            for s in [0.05, 0.3, 0.7, 1.0, 1.5, 2.5, 4.0, 8.0, 20.0, 60.0, 150.0] {
                let s = s * pairs as f64;
                let grid = law.grid_upper(s);
                assert!(
                    grid >= upper(s + margin) - slack && grid <= upper(s - margin) + slack,
                    "{deck} cards, {pairs} pairs, P(S ≥ {s}) = {grid:e}: not within [{:e}, {:e}]",
                    upper(s + margin),
                    upper(s - margin)
                );
                let grid = law.grid_lower(s);
                assert!(
                    grid >= lower(s - margin) - slack && grid <= lower(s + margin) + slack,
                    "{deck} cards, {pairs} pairs, P(S ≤ {s}) = {grid:e}"
                );
            }
        }
    }
}

#[test]
fn one_pair_of_identical_decks_has_the_probability_one_in_n_factorial() {
    // One pair: the jump bound is exact. 52! = 8.0658175170943878e67 (published).
    let kernel = MallowsKernel::new(52);
    let law = MeanKernelLaw::new(52, 1);
    let p = law.upper(kernel.centred(0));
    assert!((p.log10 + 67.906_648).abs() < 1e-5, "{}", p.log10);
    // At most five inversions: 1 + 51 + 1,325 + 22,050 + 281,525 + 2,869,685 decks (the
    // Mahonian numbers of 52, from `inversion_counts`).
    let counts = inversion_counts(52);
    let at_most_five: f64 = counts[..=5].iter().map(|c| c.to_f64().unwrap()).sum();
    let p = law.upper(kernel.centred(5));
    let expected = at_most_five.log10() - 67.906_648;
    assert!((p.log10 - expected).abs() < 1e-5, "{} {expected}", p.log10);
    // Beyond the doubles (1,000 cards: 1/1000! ≈ 10^−2567.6), the bound of the inversion
    // tables: C(n, n)/n! for distance 0, so exactly 1/n!.
    let kernel = MallowsKernel::new(1000);
    let law = MeanKernelLaw::new(1000, 1);
    let p = law.upper(kernel.centred(0));
    let ln_factorial_1000 = statrs::function::gamma::ln_gamma(1001.0);
    assert!((p.ln() + ln_factorial_1000).abs() < 1e-6, "{}", p.log10);
}

/// `streams` null streams of `pairs` pairs of decks of `deck` cards (each distance drawn from
/// the exact Mahonian law by its inverse distribution function, from SplitMix64 with `seed`),
/// and the sum of the centred kernels of each.
fn null_sums(deck: usize, pairs: usize, streams: usize, seed: u64) -> Vec<f64> {
    let kernel = MallowsKernel::new(deck);
    let law = inversion_law(deck);
    let values: Vec<f64> = (0..law.len()).map(|d| kernel.centred(d)).collect();
    let mut below = Vec::with_capacity(law.len());
    let mut sum = 0.0;
    for &p in &law {
        sum += p;
        below.push(sum);
    }
    let mut state = seed;
    (0..streams)
        .map(|_| {
            (0..pairs)
                .map(|_| {
                    let u = (splitmix64(&mut state) >> 11) as f64 / (1u64 << 53) as f64;
                    values[below.partition_point(|&c| c <= u).min(values.len() - 1)]
                })
                .sum()
        })
        .collect()
}

/// The sum s at which `tail(s)` = `target`, by bisection between `low` and `high` (`tail`
/// decreasing if `decreasing`).
fn solve(tail: impl Fn(f64) -> f64, target: f64, mut low: f64, mut high: f64) -> f64 {
    let decreasing = tail(low) > tail(high);
    for _ in 0..100 {
        let middle = (low + high) / 2.0;
        if (tail(middle) > target) == decreasing {
            low = middle;
        } else {
            high = middle;
        }
    }
    (low + high) / 2.0
}

#[test]
fn null_streams_of_few_pairs_land_beyond_the_laws_quantiles_as_often_as_it_says() {
    // Null: the distances are independent Mahonian draws. At the sum s where the law puts
    // P(S ≥ s) = 10⁻³ (and, below, P(S ≤ s) = 10⁻³), the count of simulated streams beyond s
    // is Binomial(streams, ~10⁻³); with 200,000 streams its mean is 200 and its standard
    // deviation 14.1, so a law off by more than 5 deviations (71, a third of the mean) fails
    // (a fair law fails with probability below 10⁻⁶). The normal tail puts its 10⁻³ point at
    // z = 3.09, beyond which (at 100 pairs) about 0.5% of the streams land: 1,000, not 200.
    for (pairs, streams, target) in [(100, 200_000, 1e-3), (1000, 20_000, 1e-2)] {
        let law = MeanKernelLaw::new(52, pairs as u64);
        let sums = null_sums(52, pairs, streams, 0x5eed + pairs as u64);
        let m = pairs as f64;
        let moments = crate::theory::mallows::kernel_moments(
            52,
            MallowsKernel::new(52).lambda,
            MallowsKernel::new(52).center,
        );
        let spread = (m * moments.variance).sqrt();
        let mean = m * moments.mean;
        let expected = streams as f64 * target;
        let allowed = 5.0 * (expected * (1.0 - target)).sqrt();
        let high = solve(|s| law.upper(s).p, target, mean, mean + 50.0 * spread);
        let above = sums.iter().filter(|&&s| s >= high).count() as f64;
        assert!(
            (above - expected).abs() <= allowed,
            "{pairs} pairs: {above} streams at or above the law's 1 - {target} point, \
             {expected} ± {allowed} expected"
        );
        let low = solve(|s| law.lower(s).p, target, mean - 50.0 * spread, mean);
        let below = sums.iter().filter(|&&s| s <= low).count() as f64;
        assert!(
            (below - expected).abs() <= allowed,
            "{pairs} pairs: {below} streams at or below the law's {target} point, \
             {expected} ± {allowed} expected"
        );
        // At 100 pairs the normal tail's point is far off (the limit this law removes).
        if pairs > 100 {
            continue;
        }
        let z = statrs::distribution::ContinuousCDF::inverse_cdf(
            &statrs::distribution::Normal::standard(),
            1.0 - target,
        );
        let normal = sums.iter().filter(|&&s| s >= mean + z * spread).count() as f64;
        assert!(normal > expected + 3.0 * allowed, "{pairs} pairs: {normal}");
    }
}

#[test]
fn many_pairs_approach_the_edgeworth_tail_and_the_grid_coarsens_within_its_points() {
    // At m pairs the tail of the standardised sum is Φ̄(z) + φ(z)·γ(z² − 1)/(6√m) + O(1/m)
    // (Edgeworth), γ one pair's skewness, computed here from the law of one distance. At a
    // million pairs and more the O(1/m) rest is below 10⁻⁵ of the tail at z ≤ 3.
    let kernel = MallowsKernel::new(52);
    let law = inversion_law(52);
    let values: Vec<f64> = (0..law.len()).map(|d| kernel.centred(d)).collect();
    let mean: f64 = law.iter().zip(&values).map(|(p, x)| p * x).sum();
    let moment = |k: i32| -> f64 {
        law.iter()
            .zip(&values)
            .map(|(p, x)| p * (x - mean).powi(k))
            .sum()
    };
    let (variance, skewness) = (moment(2), moment(3) / moment(2).powf(1.5));
    // Farther out (z = ±5 at a million pairs, ±6 at twenty million) the O(1/m) rest, about
    // γ²z⁶/(72m), is below 1%: checked to 5% and 2%, which a smear of the transform's rounding
    // over the window (m·10⁻¹⁵ of the mass) would break.
    for (pairs, far, far_tolerance) in [(1_000_000u64, 5.0, 0.05), (20_000_000, 6.0, 0.02)] {
        let sum_law = MeanKernelLaw::new(52, pairs);
        assert!(sum_law.points() <= MAX_POINTS);
        let m = pairs as f64;
        for z in [-far, -3.0, -2.0, 2.0, 3.0, far] {
            let tolerance = if z == far || z == -far { far_tolerance } else { 2e-3 };
            let s = m * mean + z * (m * variance).sqrt();
            let density = (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
            let correction = density * skewness * (z * z - 1.0) / (6.0 * m.sqrt());
            let upper = crate::stats::normal::normal_cdf(-z) + correction;
            let (got, expected) = if z > 0.0 {
                (sum_law.grid_upper(s), upper)
            } else {
                (sum_law.grid_lower(s), 1.0 - upper)
            };
            assert!(
                (got / expected - 1.0).abs() < tolerance,
                "{pairs} pairs, z {z}: {got:e} against Edgeworth's {expected:e}"
            );
        }
    }
}

#[test]
fn chernoffs_bound_is_never_below_the_lower_tail() {
    // A bound: at sums where the grid reads the tail (above its resolution), Chernoff's
    // figure is at least the tail, and within a few orders of magnitude of it.
    let law = MeanKernelLaw::new(52, 1000);
    let mean = law.mean;
    for s in [0.95, 0.9, 0.85, 0.8] {
        let s = s * mean;
        let grid = law.grid_lower(s);
        let bound = law.chernoff_lower(s);
        assert!(grid > 1e-10, "{s}: {grid:e}");
        assert!(bound.p >= grid && bound.log10 < grid.log10() + 3.0, "{s}: {bound:?} {grid:e}");
    }
}
