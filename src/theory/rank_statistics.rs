//! Statistics of the whole order of a deck — inversions, descents, the longest increasing
//! subsequence, Spearman's footrule and ρ — their values on one deck, and their exact laws
//! under a uniform shuffle.
//!
//! These see what the position matrix cannot: a deck whose every card is uniformly placed can
//! still keep most of its order (a riffle keeps long increasing runs, a shelf machine keeps
//! V-shaped piles). Each law is an exact count out of n!, computed with big integers:
//! * inversions (pairs out of order; Kendall's distance to the start, τ = 1 − 4I/(n(n − 1))) —
//!   the Mahonian numbers, the coefficients of Π_{m=1..n} (1 + q + ⋯ + q^(m − 1)) (Rodrigues
//!   1839; Knuth, *TAOCP* 3, §5.1.1; OEIS A008302). Row m is row m − 1 convolved with a window
//!   of m ones, a running sum: O(n³) big-integer additions over the half of the row that the
//!   symmetry I ↔ n(n − 1)/2 − I leaves to compute;
//! * descents (positions i with deck\[i\] > deck\[i + 1\]) — the Eulerian numbers ⟨n, d⟩ (OEIS
//!   A008292), the law of the rising sequences shifted by one, since π and π⁻¹ have the same
//!   law under uniform;
//! * the longest increasing subsequence — by the Robinson–Schensted correspondence the
//!   permutations whose longest increasing subsequence has length k number Σ f_λ² over the
//!   partitions λ of n with first part k, f_λ the number of standard Young tableaux of shape
//!   λ, given by the hook-length formula f_λ = n!/Π hooks (Frame, Robinson & Thrall 1954;
//!   Schensted 1961; Stanley, *EC* 2, §7.11 and §7.23; OEIS A047874). Computed over every
//!   partition of n (281 589 for 52 cards, about 20 ms), grown a row at a time so that each
//!   new cell adds its hook's prime exponents, f_λ multiplied out from those of n! less those
//!   of its hooks;
//! * Spearman's footrule D = Σ|deck\[i\] − i| (Diaconis & Graham 1977, "Spearman's footrule
//!   as a measure of disarray", *J. R. Stat. Soc. B* 39) — by a transfer matrix: read positions
//!   and cards 0, 1, … together; after step t let k be the number of positions ≤ t whose card
//!   is > t (as many cards ≤ t lie at positions > t). D = 2 Σ_t k_t, and step t + 1 moves k to
//!   k (the new position takes the new card, or one of them pairs with an open one: 2k + 1
//!   ways), to k − 1 (both pair with open ones: k² ways) or to k + 1 (neither: 1 way). O(n⁴)
//!   big-integer operations (OEIS A062869, whose rows list the counts of D = 0, 2, 4, …);
//! * Spearman's ρ = 1 − 6 Σ d²/(n(n² − 1)), d = deck\[i\] − i, for one permutation
//!   ([`spearman`]): its law by enumeration of the n! orderings up to
//!   [`SPEARMAN_EXACT_DECK`] cards, beyond that an Edgeworth expansion with the exact variance
//!   1/(n − 1) and the exact fourth moment of ρ (Kendall, *Rank Correlation Methods*, ch. 5:
//!   E ρ⁴ = 3(25n³ − 38n² − 35n + 72)/(25n(n + 1)(n − 1)³); the odd moments vanish), with a
//!   continuity correction of half the lattice step of ρ. That tail is an approximation, said
//!   so in every report; the tests bound its error against the exact law.
//!
//! Exactness has a price that grows with the deck, so each law has a largest deck
//! ([`crate::theory::permutation_statistics::Statistic::max_exact_deck`]); marginal mode tallies
//! a statistic only up to it, and `check --single` says when a p-value is approximate.

use std::sync::atomic::{AtomicUsize, Ordering};

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};

use crate::engine::algorithms::Card;

/// The largest deck whose law of Spearman's Σd² is enumerated exactly (10! = 3 628 800
/// orderings, a few tens of milliseconds).
pub const SPEARMAN_EXACT_DECK: usize = 10;

pub use crate::engine::statistics::{descents, footrule, inversions, longest_increasing};

/// Σ d² = Σ (deck\[i\] − i)², the sum of squared displacements.
pub fn squared_displacements(deck: &[Card]) -> u64 {
    deck.iter()
        .enumerate()
        .map(|(position, &card)| {
            let d = usize::from(card).abs_diff(position) as u64;
            d * d
        })
        .sum()
}

/// Spearman's rank correlation between the deck's order and the starting order:
/// ρ = 1 − 6 Σ d²/(n(n² − 1)); 1 for the starting order, −1 for its reversal. NaN below 2 cards.
pub fn spearman_rho(deck: &[Card]) -> f64 {
    let n = deck.len() as f64;
    1.0 - 6.0 * squared_displacements(deck) as f64 / (n * (n * n - 1.0))
}

/// Permutations of n with I inversions, I = 0..=n(n − 1)/2: the Mahonian numbers. Panics if
/// n = 0.
pub fn inversion_counts(n: usize) -> Vec<BigUint> {
    assert!(n >= 1, "a deck needs at least one card");
    let max = n * (n - 1) / 2;
    let half = max / 2;
    // Only k ≤ half is computed: row m at k depends on row m − 1 at k' ≤ k alone.
    let mut row = vec![BigUint::zero(); half + 1];
    let mut previous = row.clone();
    row[0] = BigUint::one();
    let mut window = BigUint::zero();
    for m in 2..=n {
        std::mem::swap(&mut row, &mut previous);
        let top = (m * (m - 1) / 2).min(half);
        window.set_zero();
        for k in 0..=top {
            window += &previous[k];
            if k >= m {
                window -= &previous[k - m];
            }
            row[k].clone_from(&window);
        }
    }
    let mut counts = row;
    counts.reserve(max + 1 - counts.len());
    for k in half + 1..=max {
        let mirrored = counts[max - k].clone();
        counts.push(mirrored);
    }
    counts
}

/// Permutations of n with d descents, d = 0..=n − 1: the Eulerian numbers (from the rising
/// sequences' law, r = d + 1). Panics if n = 0.
pub fn descent_counts(rising_sequence_counts: Vec<BigUint>) -> Vec<BigUint> {
    rising_sequence_counts.into_iter().skip(1).collect()
}

/// The largest n [`longest_increasing_counts`] takes (its prime exponents have one lane per
/// prime: 31 primes up to 128).
pub const LONGEST_INCREASING_MAX_N: usize = 128;

/// Permutations of n whose longest increasing subsequence has length k, k = 0..=n (none with
/// k = 0): Σ f_λ² over the partitions λ of n with λ₁ = k, f_λ = n!/Π hooks.
///
/// The partitions are grown a row at a time from the shortest row up. A row laid on top of the
/// others, at least as long as each, leaves every hook below it unchanged (a cell's hook counts
/// the cells to its right and below it), and the new row's cell in column c has hook
/// (length − c) + (the column's height so far). So Π hooks is carried down the walk as the
/// exponents of the primes up to n, one small vector addition per new cell, and f_λ is
/// multiplied out only at a leaf: from a table of prime powers, in u128 (always up to 57 cards,
/// where f_λ ≤ √n! < 2^128, and the squares then add in 256 bits), in big integers beyond.
/// Panics unless 1 ≤ n ≤ [`LONGEST_INCREASING_MAX_N`].
pub fn longest_increasing_counts(n: usize) -> Vec<BigUint> {
    let threads = if n < LONGEST_INCREASING_THREADS_FROM {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |cpus| cpus.get().min(4))
    };
    longest_increasing_counts_on(n, threads)
}

/// Decks from which [`longest_increasing_counts`] sums on several threads: the 5,604
/// partitions of 30 take no time, the 281,589 of 52 about 20 ms on one core.
const LONGEST_INCREASING_THREADS_FROM: usize = 40;

/// [`longest_increasing_counts`] summed by `threads` threads (at least one).
fn longest_increasing_counts_on(n: usize, threads: usize) -> Vec<BigUint> {
    assert!(
        (1..=LONGEST_INCREASING_MAX_N).contains(&n),
        "1 to {LONGEST_INCREASING_MAX_N} cards"
    );
    let primes: Vec<usize> = (2..=n)
        .filter(|&p| (2..p).take_while(|d| d * d <= p).all(|d| p % d != 0))
        .collect();
    // 15 primes up to 52 cards: half the lanes to add at each cell.
    if primes.len() <= 16 {
        TableauxSquares::<16>::sum(n, &primes, threads)
    } else {
        TableauxSquares::<32>::sum(n, &primes, threads)
    }
}

/// Exponents of the primes up to n (lane i: the i-th prime), as many lanes as `L` ≥ the
/// primes; i16 holds v_p(n!) ≤ n − 1 < 2^15.
type Exponents<const L: usize> = [i16; L];

/// The walk of [`longest_increasing_counts`] over the partitions of n, for exponent vectors of
/// `L` lanes.
struct TableauxSquares<'a, const L: usize> {
    n: usize,
    primes: &'a [usize],
    /// Exponents of each integer 0..=n (0 unused): a hook's contribution to Π hooks.
    of: Vec<Exponents<L>>,
    /// Exponents of n! (Legendre).
    of_factorial: Exponents<L>,
    /// `powers[lane * stride + e]` = p^e, wrapped in u128: exact wherever it is used, since
    /// with f_λ < 2^128 every prime power dividing f_λ fits.
    powers: Vec<u128>,
    stride: usize,
}

/// One thread's sums and walking state.
struct Walker<const L: usize> {
    /// Column heights of the rows laid so far.
    heights: Vec<usize>,
    /// Σ f_λ² by λ₁ in 256 bits, `[high, low]` (up to 57 cards).
    wide: Vec<[u128; 2]>,
    /// Σ f_λ² by λ₁ in big integers (beyond 57 cards).
    counts: Vec<BigUint>,
}

impl<'a, const L: usize> TableauxSquares<'a, L> {
    fn sum(n: usize, primes: &'a [usize], threads: usize) -> Vec<BigUint> {
        assert!(primes.len() <= L, "a lane for each prime");
        let mut of = vec![[0i16; L]; n + 1];
        for (value, exponents) in of.iter_mut().enumerate().skip(1) {
            let mut rest = value;
            for (lane, &p) in primes.iter().enumerate() {
                while rest % p == 0 {
                    rest /= p;
                    exponents[lane] += 1;
                }
            }
        }
        let mut of_factorial = [0i16; L];
        for exponents in &of[1..] {
            for (total, &e) in of_factorial.iter_mut().zip(exponents) {
                *total += e;
            }
        }
        let stride = usize::try_from(of_factorial[0]).unwrap_or(0) + 1;
        let mut powers = vec![0u128; primes.len() * stride];
        for (lane, &p) in primes.iter().enumerate() {
            let mut power = 1u128;
            for slot in &mut powers[lane * stride..(lane + 1) * stride] {
                *slot = power;
                power = power.wrapping_mul(p as u128);
            }
        }
        let walk = TableauxSquares {
            n,
            primes,
            of,
            of_factorial,
            powers,
            stride,
        };
        // A partition is m rows of one card under a partition of n − m into rows of at least
        // two, whose shortest row p starts its walk: the items (m, p) the threads share, the
        // largest first (m = 0, p = 2: a ninth of the partitions of 52), each from a counter.
        // Integer sums, so the counts are the same whichever thread summed which item.
        let mut items: Vec<(usize, usize)> = Vec::new();
        for ones in 0..=n {
            let rest = n - ones;
            if rest == 0 {
                items.push((ones, 0));
            }
            items.extend(
                (2..=rest)
                    .filter(|&p| rest - p == 0 || rest - p >= p)
                    .map(|p| (ones, p)),
            );
        }
        let taken = AtomicUsize::new(0);
        let sums: Vec<Walker<L>> = std::thread::scope(|scope| {
            let worker = || {
                let mut walker = Walker {
                    heights: vec![0; n + 1],
                    wide: vec![[0; 2]; n + 1],
                    counts: vec![BigUint::zero(); n + 1],
                };
                loop {
                    let index = taken.fetch_add(1, Ordering::Relaxed);
                    let Some(&(ones, shortest)) = items.get(index) else {
                        break;
                    };
                    // m rows of one card: hooks 1, 2, …, m.
                    let mut hooks = [0i16; L];
                    for hook in 1..=ones {
                        walk.add(&mut hooks, hook);
                    }
                    walker.heights.fill(0);
                    walker.heights[0] = ones;
                    if shortest == 0 {
                        walk.leaf(&mut walker, &hooks, 1);
                    } else {
                        let hooks = walk.lay_row(&mut walker, hooks, shortest);
                        walk.grow(&mut walker, &hooks, n - ones - shortest, shortest);
                    }
                }
                walker
            };
            let helpers: Vec<_> = (1..threads.max(1)).map(|_| scope.spawn(worker)).collect();
            let mut sums = vec![worker()];
            sums.extend(
                helpers
                    .into_iter()
                    .map(|helper| helper.join().expect("a partition-summing thread panicked")),
            );
            sums
        });
        let mut counts = vec![BigUint::zero(); n + 1];
        for walker in sums {
            for ((count, [high, low]), add) in counts.iter_mut().zip(walker.wide).zip(walker.counts)
            {
                *count += (BigUint::from(high) << 128u32) + low + add;
            }
        }
        counts
    }

    fn add(&self, hooks: &mut Exponents<L>, hook: usize) {
        for (total, &e) in hooks.iter_mut().zip(&self.of[hook]) {
            *total += e;
        }
    }

    /// Lays a row of `length` cards on top of the rows so far (none shorter): its hooks added
    /// to `hooks`, the columns it covers one higher.
    fn lay_row(
        &self,
        walker: &mut Walker<L>,
        mut hooks: Exponents<L>,
        length: usize,
    ) -> Exponents<L> {
        for (column, height) in walker.heights[..length].iter_mut().enumerate() {
            self.add(&mut hooks, length - column + *height);
            *height += 1;
        }
        hooks
    }

    /// Every way to finish the partition with `remaining` cards in rows of at least `top`.
    fn grow(&self, walker: &mut Walker<L>, hooks: &Exponents<L>, remaining: usize, top: usize) {
        if remaining == 0 {
            self.leaf(walker, hooks, top);
            return;
        }
        // A row of p leaves remaining − p, none or at least p for the rows above it.
        let rows = (top..=remaining / 2).chain(std::iter::once(remaining));
        for length in rows {
            let above = self.lay_row(walker, *hooks, length);
            self.grow(walker, &above, remaining - length, length);
            for height in &mut walker.heights[..length] {
                *height -= 1;
            }
        }
    }

    /// Adds f_λ² to the cell of λ₁ = `first`, f_λ = n!/Π hooks.
    fn leaf(&self, walker: &mut Walker<L>, hooks: &Exponents<L>, first: usize) {
        let exponent = |lane: usize| {
            let e = self.of_factorial[lane] - hooks[lane];
            debug_assert!(e >= 0, "the hook-length formula gives an integer");
            e as usize
        };
        if self.n <= 57 {
            let tableaux = (0..self.primes.len()).fold(1u128, |product, lane| {
                product.wrapping_mul(self.powers[lane * self.stride + exponent(lane)])
            });
            let [high, low] = square_wide(tableaux);
            let total = &mut walker.wide[first];
            let (sum, carry) = total[1].overflowing_add(low);
            total[1] = sum;
            total[0] += high + u128::from(carry);
        } else {
            let tableaux = self
                .primes
                .iter()
                .enumerate()
                .fold(BigUint::one(), |product, (lane, &p)| {
                    product * BigUint::from(p).pow(exponent(lane) as u32)
                });
            walker.counts[first] += &tableaux * &tableaux;
        }
    }
}

/// x² as 256 bits, `[high, low]`.
fn square_wide(x: u128) -> [u128; 2] {
    let (hi, lo) = (x >> 64, x & u128::from(u64::MAX));
    let middle = hi * lo; // < 2^128
    let low = lo * lo;
    let (low, carry_a) = low.overflowing_add(middle << 65);
    let high = hi * hi + (middle >> 63) + u128::from(carry_a);
    [high, low]
}

/// Permutations of n with footrule D, D = 0..=⌊n²/2⌋ (odd D never occur), by the transfer
/// matrix of the module documentation. Panics if n = 0.
pub fn footrule_counts(n: usize) -> Vec<BigUint> {
    assert!(n >= 1, "a deck needs at least one card");
    let half_max = n * n / 4; // the largest Σ k_t = D/2
    let open_max = n / 2;
    // ways[k][s]: orderings of the first t positions and cards with k open, Σ k so far = s.
    let mut ways = vec![vec![BigUint::zero(); half_max + 1]; open_max + 2];
    let mut next = ways.clone();
    ways[0][0] = BigUint::one();
    let mut reach = 0; // the largest s reached so far
    let mut term = BigUint::zero();
    for t in 1..=n {
        // After step t at most min(t, n − t) are open.
        let most_open = t.min(n - t);
        for row in next.iter_mut() {
            for cell in row[..=reach.min(half_max)].iter_mut() {
                cell.set_zero();
            }
        }
        let mut new_reach = 0;
        for (k, row) in ways.iter().enumerate().take(open_max.min(t - 1) + 1) {
            for (s, from) in row.iter().enumerate().take(reach + 1) {
                if from.is_zero() {
                    continue;
                }
                // To k − 1 (k² ways), to k (2k + 1 ways), to k + 1 (1 way); s grows by the new k.
                for (to, weight) in [
                    (k.wrapping_sub(1), (k * k) as u64),
                    (k, (2 * k + 1) as u64),
                    (k + 1, 1),
                ] {
                    if to > most_open || weight == 0 {
                        continue;
                    }
                    let at = s + to;
                    term.clone_from(from);
                    term *= weight;
                    next[to][at] += &term;
                    new_reach = new_reach.max(at);
                }
            }
        }
        std::mem::swap(&mut ways, &mut next);
        // Clear what the swap brought back beyond the new reach on the next round.
        reach = reach.max(new_reach);
    }
    let mut counts = vec![BigUint::zero(); n * n / 2 + 1];
    for (s, count) in ways[0].iter().enumerate() {
        counts[2 * s].clone_from(count);
    }
    counts
}

/// The law of Σd² over the n! orderings, by enumeration (Heap's algorithm, Σd² updated at each
/// swap): `counts[v]` orderings with Σd² = v, v = 0..=(n³ − n)/3. Panics unless
/// 1 ≤ n ≤ [`SPEARMAN_EXACT_DECK`].
pub fn squared_displacement_counts(n: usize) -> Vec<u64> {
    assert!(
        (1..=SPEARMAN_EXACT_DECK).contains(&n),
        "enumerated up to 10 cards"
    );
    let max = (n * n * n - n) / 3;
    let mut counts = vec![0u64; max + 1];
    let mut deck: Vec<i64> = (0..n as i64).collect();
    let square = |card: i64, position: usize| (card - position as i64).pow(2);
    let mut sum = 0i64;
    counts[0] += 1;
    // Heap's algorithm, iterative.
    let mut c = vec![0usize; n];
    let mut i = 1;
    while i < n {
        if c[i] < i {
            let j = if i % 2 == 0 { 0 } else { c[i] };
            sum -= square(deck[j], j) + square(deck[i], i);
            deck.swap(j, i);
            sum += square(deck[j], j) + square(deck[i], i);
            counts[sum as usize] += 1;
            c[i] += 1;
            i = 1;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
    counts
}

/// How a p-value was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PValueMethod {
    /// From the exact law under uniform (exact counts out of n!).
    Exact,
    /// An Edgeworth expansion with the exact second and fourth moments (an approximation).
    Edgeworth,
}

impl PValueMethod {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            PValueMethod::Exact => "exact",
            PValueMethod::Edgeworth => "edgeworth",
        }
    }
}

/// Spearman's ρ of one deck and its two-sided p-value under a uniform shuffle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spearman {
    /// ρ.
    pub rho: f64,
    /// P(|ρ| at least as far from 0 as observed, on the side observed, doubled; at most 1).
    pub p_value: f64,
    /// Exact (enumerated) or Edgeworth.
    pub method: PValueMethod,
}

/// Spearman's ρ between a deck's order and the starting order, with the two-sided p-value
/// 2·min(P(Σd² ≤ v), P(Σd² ≥ v)) (at most 1): exact up to [`SPEARMAN_EXACT_DECK`] cards, an
/// Edgeworth expansion beyond (module documentation). Panics below 2 cards.
pub fn spearman(deck: &[Card]) -> Spearman {
    let n = deck.len();
    assert!(n >= 2, "a rank correlation needs two cards");
    let v = squared_displacements(deck);
    let rho = spearman_rho(deck);
    if n <= SPEARMAN_EXACT_DECK {
        let counts = squared_displacement_counts(n);
        let total: u64 = counts.iter().sum();
        let at_most: u64 = counts[..=v as usize].iter().sum();
        let at_least: u64 = counts[v as usize..].iter().sum();
        let p = 2.0 * at_most.min(at_least) as f64 / total as f64;
        return Spearman {
            rho,
            p_value: p.min(1.0),
            method: PValueMethod::Exact,
        };
    }
    // ρ lies on a lattice of step 12/(n(n² − 1)) (Σd² is even); a tail is read at half a step
    // beyond the value observed. Σd² small means ρ large.
    let nf = n as f64;
    let step = 12.0 / (nf * (nf * nf - 1.0));
    let lower = spearman_cdf(rho + step / 2.0, n); // P(ρ ≤ observed)
    let upper = spearman_cdf(-rho + step / 2.0, n); // P(ρ ≥ observed), by symmetry
    Spearman {
        rho,
        p_value: (2.0 * lower.min(upper)).clamp(0.0, 1.0),
        method: PValueMethod::Edgeworth,
    }
}

/// P(ρ ≤ r) under uniform by the Edgeworth expansion of ρ/σ (σ² = 1/(n − 1)) with its exact
/// excess kurtosis γ₂: Φ(z) − φ(z)·γ₂/24·(z³ − 3z).
pub fn spearman_cdf(r: f64, n: usize) -> f64 {
    let nf = n as f64;
    let variance = 1.0 / (nf - 1.0);
    let fourth = 3.0 * (25.0 * nf.powi(3) - 38.0 * nf * nf - 35.0 * nf + 72.0)
        / (25.0 * nf * (nf + 1.0) * (nf - 1.0).powi(3));
    let excess = fourth / (variance * variance) - 3.0;
    let z = r / variance.sqrt();
    let density = (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let cdf = crate::stats::normal::normal_cdf(z) - density * excess / 24.0 * (z.powi(3) - 3.0 * z);
    cdf.clamp(0.0, 1.0)
}

/// E and Var of the footrule under uniform: (n² − 1)/3 and (n + 1)(2n² + 7)/45 (Diaconis &
/// Graham 1977).
pub fn footrule_moments(n: usize) -> (f64, f64) {
    let nf = n as f64;
    (
        (nf * nf - 1.0) / 3.0,
        (nf + 1.0) * (2.0 * nf * nf + 7.0) / 45.0,
    )
}

/// A big count as f64 (for sums in tests and moments).
pub fn approximate(count: &BigUint) -> f64 {
    count.to_f64().unwrap_or(f64::INFINITY)
}

/// V(n, k) for k = 0 … ⌊(n − 1)/2⌋: how many orderings of n ≥ 1 cards have k valleys.
pub fn valley_counts(n: usize) -> Vec<BigUint> {
    assert!(n >= 1, "a deck needs at least one card");
    let mut row = vec![BigUint::one()];
    for cards in 2..=n {
        let mut next = vec![BigUint::zero(); cards.saturating_sub(1) / 2 + 1];
        for (k, slot) in next.iter_mut().enumerate() {
            if let Some(same) = row.get(k) {
                *slot += same * BigUint::from(2 * k + 2);
            }
            if k >= 1
                && let Some(fewer) = row.get(k - 1)
            {
                *slot += fewer * BigUint::from(cards - 2 * k);
            }
        }
        row = next;
    }
    row
}

/// How many orderings of n ≥ 1 cards have each number of colour changes 0 … (see
/// [`crate::engine::statistics::colour_changes`]), when the top r = ⌊n/2⌋ cards of the start are
/// red and the b = n − r others black.
///
/// A colour sequence with R runs is counted by the runs distribution (Wald & Wolfowitz 1940):
/// R = 2k in 2·C(r − 1, k − 1)·C(b − 1, k − 1) ways, R = 2k + 1 in
/// C(r − 1, k)·C(b − 1, k − 1) + C(r − 1, k − 1)·C(b − 1, k) ways; each sequence is made by r!·b!
/// orderings, and the changes are R − 1.
pub fn colour_change_counts(n: usize) -> Vec<BigUint> {
    assert!(n >= 1, "a deck needs at least one card");
    let r = crate::engine::statistics::reds(n);
    let b = n - r;
    let max = crate::engine::statistics::Statistic::ColourChanges.max_value(n);
    if r == 0 {
        return vec![BigUint::one()];
    }
    let choose = |top: usize, k: usize| -> BigUint {
        if k > top {
            return BigUint::zero();
        }
        let mut value = BigUint::one();
        for i in 0..k {
            value = value * BigUint::from(top - i) / BigUint::from(i + 1);
        }
        value
    };
    let factorial = |m: usize| -> BigUint { (1..=m).map(BigUint::from).product() };
    let orderings_per_sequence = factorial(r) * factorial(b);
    (0..=max)
        .map(|changes| {
            let runs = changes + 1;
            let k = runs / 2;
            let sequences = if runs % 2 == 0 {
                choose(r - 1, k - 1) * choose(b - 1, k - 1) * 2u32
            } else if k == 0 {
                BigUint::zero()
            } else {
                choose(r - 1, k) * choose(b - 1, k - 1) + choose(r - 1, k - 1) * choose(b - 1, k)
            };
            sequences * &orderings_per_sequence
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::permutation::for_each_in_rank_order;
    use crate::theory::permutation_statistics::big_factorial;

    fn big(values: &[u64]) -> Vec<BigUint> {
        values.iter().map(|&v| BigUint::from(v)).collect()
    }

    /// Straight from the definitions, O(n²).
    fn brute_inversions(deck: &[Card]) -> usize {
        (0..deck.len())
            .flat_map(|i| (i + 1..deck.len()).map(move |j| (i, j)))
            .filter(|&(i, j)| deck[i] > deck[j])
            .count()
    }

    /// The longest increasing subsequence by the O(n²) dynamic programme.
    fn brute_longest(deck: &[Card]) -> usize {
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

    fn pseudo_random_deck(n: usize, seed: u64) -> Vec<Card> {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut deck: Vec<Card> = (0..n as Card).collect();
        for i in (1..n).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            deck.swap(i, (state % (i as u64 + 1)) as usize);
        }
        deck
    }

    #[test]
    fn fast_values_agree_with_the_definitions_on_small_and_large_decks() {
        let mut scratch = vec![0usize; 2001];
        for (seed, n) in [
            (1, 1),
            (2, 2),
            (3, 7),
            (4, 52),
            (5, 64),
            (6, 65),
            (7, 300),
            (8, 2000),
        ] {
            for round in 0..5 {
                let deck = pseudo_random_deck(n, seed * 10 + round);
                assert_eq!(
                    inversions(&deck, &mut scratch),
                    brute_inversions(&deck),
                    "{n}"
                );
                assert_eq!(
                    longest_increasing(&deck, &mut scratch),
                    brute_longest(&deck),
                    "{n}"
                );
            }
        }
        let reversal: Vec<Card> = (0..52).rev().collect();
        assert_eq!(inversions(&reversal, &mut scratch), 52 * 51 / 2);
        assert_eq!(longest_increasing(&reversal, &mut scratch), 1);
        assert_eq!(descents(&reversal), 51);
        // Footrule of the reversal: Σ|51 − 2i| = 2·(51 + 49 + … + 1) = 1352 = ⌊52²/2⌋.
        assert_eq!(footrule(&reversal), 1352);
    }

    #[test]
    fn exact_counts_match_brute_force_enumeration_up_to_eight_cards() {
        let mut scratch = vec![0usize; 9];
        for n in 1..=8 {
            let mut inv = vec![0u64; n * (n - 1) / 2 + 1];
            let mut lis = vec![0u64; n + 1];
            let mut foot = vec![0u64; n * n / 2 + 1];
            let mut squares = vec![0u64; (n * n * n - n) / 3 + 1];
            for_each_in_rank_order(n, |_, deck| {
                inv[brute_inversions(deck)] += 1;
                lis[brute_longest(deck)] += 1;
                let d: usize = (0..n).map(|i| usize::from(deck[i]).abs_diff(i)).sum();
                foot[d] += 1;
                squares[squared_displacements(deck) as usize] += 1;
                assert_eq!(inversions(deck, &mut scratch), brute_inversions(deck));
            });
            assert_eq!(inversion_counts(n), big(&inv), "inversions n={n}");
            assert_eq!(longest_increasing_counts(n), big(&lis), "LIS n={n}");
            assert_eq!(footrule_counts(n), big(&foot), "footrule n={n}");
            assert_eq!(squared_displacement_counts(n), squares, "Σd² n={n}");
        }
    }

    #[test]
    fn counts_match_published_rows() {
        // Mahonian numbers, OEIS A008302, n = 5: 1 4 9 15 20 22 20 15 9 4 1.
        assert_eq!(
            inversion_counts(5),
            big(&[1, 4, 9, 15, 20, 22, 20, 15, 9, 4, 1])
        );
        // Longest increasing subsequence, OEIS A047874, n = 5: 1 41 61 16 1 (k = 1..5).
        assert_eq!(longest_increasing_counts(5), big(&[0, 1, 41, 61, 16, 1]));
        // Total displacement 2k, OEIS A062869, n = 5: 1 4 12 24 35 24 20 (D = 0, 2, …, 12).
        let footrule_5 = footrule_counts(5);
        let even: Vec<BigUint> = footrule_5.iter().step_by(2).cloned().collect();
        assert_eq!(even, big(&[1, 4, 12, 24, 35, 24, 20]));
        assert!(footrule_5.iter().skip(1).step_by(2).all(Zero::is_zero));
        // Involutions (OEIS A000085) are the f_λ summed, not squared; the squares sum to n!.
        // Permutations with no increasing subsequence of length 3, the Catalan numbers
        // (OEIS A000108): C_10 = 16 796.
        let lis_10 = longest_increasing_counts(10);
        assert_eq!(&lis_10[1] + &lis_10[2], BigUint::from(16_796u32));
        // At 40 and 52 cards, by other counts: only the reversal has no increasing pair;
        // (n − 1)² permutations have a longest increasing subsequence of n − 1 (move one card
        // elsewhere: n(n − 1) moves, the n − 1 swaps of neighbours each counted twice); and
        // those without an increasing subsequence of 3 are the Catalan numbers
        // C_m = (2m)!/(m!(m + 1)!) (C_40 = 2 622 127 042 276 492 108 820, C_52 from the
        // factorials).
        for n in [40usize, 52] {
            let lis = longest_increasing_counts(n);
            assert_eq!(lis[1], BigUint::one(), "n={n}");
            assert_eq!(lis[n], BigUint::one(), "n={n}");
            assert_eq!(lis[n - 1], BigUint::from((n - 1) * (n - 1)), "n={n}");
            let catalan = big_factorial(2 * n) / (big_factorial(n) * big_factorial(n + 1));
            assert_eq!(&lis[1] + &lis[2], catalan, "n={n}");
            if n == 40 {
                assert_eq!(
                    catalan,
                    "2622127042276492108820".parse::<BigUint>().unwrap()
                );
            }
        }
    }

    #[test]
    fn the_longest_increasing_law_is_the_same_summed_by_any_number_of_threads() {
        // Each thread sums the first parts it takes into cells of its own: the integers cannot
        // depend on how the parts were shared (and 52 cards' sum is n! below, on the CPUs').
        let one = longest_increasing_counts_on(40, 1);
        for threads in [2, 3, 7] {
            assert_eq!(
                longest_increasing_counts_on(40, threads),
                one,
                "{threads} threads"
            );
        }
        let sum: BigUint = one.iter().sum();
        assert_eq!(sum, big_factorial(40));
    }

    #[test]
    fn counts_sum_to_n_factorial_for_52_cards() {
        let n = 52;
        for counts in [
            inversion_counts(n),
            longest_increasing_counts(n),
            footrule_counts(n),
        ] {
            let sum: BigUint = counts.iter().sum();
            assert_eq!(sum, big_factorial(n));
        }
    }

    #[test]
    fn means_and_variances_match_closed_forms() {
        // Inversions: mean n(n − 1)/4, variance n(n − 1)(2n + 5)/72 (Knuth, TAOCP 3, §5.1.1).
        // Footrule: (n² − 1)/3 and (n + 1)(2n² + 7)/45 (Diaconis & Graham 1977).
        for n in [9usize, 30, 52] {
            let nf = n as f64;
            let total = approximate(&big_factorial(n));
            let moments = |counts: &[BigUint]| {
                let p: Vec<f64> = counts.iter().map(|c| approximate(c) / total).collect();
                let mean: f64 = p.iter().enumerate().map(|(v, p)| v as f64 * p).sum();
                let var: f64 = p
                    .iter()
                    .enumerate()
                    .map(|(v, p)| (v as f64 - mean).powi(2) * p)
                    .sum();
                (mean, var)
            };
            let (mean, var) = moments(&inversion_counts(n));
            assert!((mean / (nf * (nf - 1.0) / 4.0) - 1.0).abs() < 1e-12);
            assert!((var / (nf * (nf - 1.0) * (2.0 * nf + 5.0) / 72.0) - 1.0).abs() < 1e-10);
            let (mean, var) = moments(&footrule_counts(n));
            let (want_mean, want_var) = footrule_moments(n);
            assert!((mean / want_mean - 1.0).abs() < 1e-12);
            assert!((var / want_var - 1.0).abs() < 1e-10);
        }
    }

    #[test]
    fn the_fourth_moment_of_rho_matches_enumeration() {
        // The closed form of E ρ⁴ behind the Edgeworth tail, against the exact law.
        for n in 3..=SPEARMAN_EXACT_DECK {
            let nf = n as f64;
            let counts = squared_displacement_counts(n);
            let total: u64 = counts.iter().sum();
            let scale = 6.0 / (nf * (nf * nf - 1.0));
            let (mut second, mut fourth) = (0.0, 0.0);
            for (v, &c) in counts.iter().enumerate() {
                let rho = 1.0 - scale * v as f64;
                second += rho.powi(2) * c as f64 / total as f64;
                fourth += rho.powi(4) * c as f64 / total as f64;
            }
            let want = 3.0 * (25.0 * nf.powi(3) - 38.0 * nf * nf - 35.0 * nf + 72.0)
                / (25.0 * nf * (nf + 1.0) * (nf - 1.0).powi(3));
            assert!((second * (nf - 1.0) - 1.0).abs() < 1e-12, "n={n}");
            assert!(
                (fourth / want - 1.0).abs() < 1e-12,
                "n={n}: {fourth} vs {want}"
            );
        }
    }

    #[test]
    fn the_edgeworth_tail_is_close_to_the_exact_law_at_ten_cards() {
        // At n = 10 the approximation is at its worst of the decks it serves (n ≥ 11); its
        // error on every lower tail P(ρ ≤ r) must stay below 0.004.
        let n = 10;
        let counts = squared_displacement_counts(n);
        let total: u64 = counts.iter().sum();
        let step = 12.0 / (n as f64 * 99.0);
        let mut upper_tail = 0u64; // P(Σd² ≥ v) = P(ρ ≤ 1 − 6v/990)
        for v in (0..counts.len()).rev() {
            upper_tail += counts[v];
            if counts[v] == 0 {
                continue;
            }
            let rho = 1.0 - 6.0 * v as f64 / 990.0;
            let exact = upper_tail as f64 / total as f64;
            let approximate = spearman_cdf(rho + step / 2.0, n);
            assert!(
                (exact - approximate).abs() < 0.004,
                "ρ = {rho}: {exact} vs {approximate}"
            );
        }
    }

    #[test]
    fn spearman_of_small_decks_is_exact_and_two_sided() {
        // The identity of 5 cards: ρ = 1, P(ρ ≥ 1) = 1/120, doubled.
        let identity: Vec<Card> = (0..5).collect();
        let s = spearman(&identity);
        assert_eq!(s.rho, 1.0);
        assert_eq!(s.method, PValueMethod::Exact);
        assert!((s.p_value - 2.0 / 120.0).abs() < 1e-15);
        let reversal: Vec<Card> = (0..5).rev().collect();
        assert_eq!(spearman(&reversal).rho, -1.0);
        assert!((spearman(&reversal).p_value - 2.0 / 120.0).abs() < 1e-15);
        // Large decks: the starting order is far out in the tail, a random one is not.
        let identity: Vec<Card> = (0..100).collect();
        let s = spearman(&identity);
        assert_eq!(s.method, PValueMethod::Edgeworth);
        assert!(s.p_value < 1e-15);
    }
}
