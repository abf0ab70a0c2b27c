//! The law of the summed Mallows kernel of independent uniform pairs of decks: the tails the
//! serial Mallows MMD test ([`crate::analysis::mallows`]) takes its p-value from.
//!
//! Under the null (consecutive decks independent and uniform) the Kendall distances D_1..D_m of
//! the m pairs counted are independent, each with the Mahonian law of the inversions of a
//! uniform deck ([`inversion_law`]), so the summed centred kernel S = Σ X_i, X_i =
//! exp(λ(μ − D_i)) ([`MallowsKernel::centred`]), is a sum of m independent copies of one
//! discrete law. That law is skewed (a few close pairs weigh more than many far apart; X is
//! close to e^Z for a standard normal Z, skewness about 6), so the normal tail of S overstates
//! the evidence above the mean by orders of magnitude when the pairs are few (at 100 pairs of
//! 52 cards P(z ≥ 4) is 1.1·10⁻³, not 3.2·10⁻⁵; at 10,000, P(z ≥ 6) is 6.9·10⁻⁹, not 10⁻⁹).
//!
//! [`MeanKernelLaw`] computes the law of S itself:
//!
//! 1. **Cap.** X is replaced by min(X, c), c the smallest kernel value with m·P(X > c) ≤
//!    [`CAP_MASS`]: P(S ≥ s) ≤ P(S_c ≥ s) + m·P(X > c) (if no X_i exceeds c, S = S_c), and
//!    P(S ≤ s) ≤ P(S_c ≤ s) (S ≥ S_c); the capped mass is added to the upper tail.
//! 2. **Grid.** min(X, c) is put on a grid of step h, each atom's probability split between the
//!    two grid points around it in the proportions that keep its mean (so S's mean is exact,
//!    and its variance grows by a known δ = Σ p·f(1 − f)·h² a pair, f the atom's place between
//!    the points; the query is stretched by √(1 + δ/σ²) to undo it). h is a hundredth of the
//!    sum's standard deviation σ√m, kept between σ/100 and σ/6 (σ about 2.1 at every deck
//!    size, λ being one over the Mahonian standard deviation).
//! 3. **Window.** The m-fold sum is taken modulo L grid points by the discrete Fourier
//!    transform (the transform of one pair's law raised to the m-th power, its mean's phase
//!    taken out first so that the power keeps its precision): L covers the mean ± the Bernstein
//!    bounds at which S_c's tails fall below 10⁻¹⁶ (S_c − mμ_c ≤ c a term, and mμ_c − S_c ≤
//!    μ_c), so that mass folded in from beyond the window is below that.
//! 4. **Tails** are summed from each end, and read at the query by linear interpolation of
//!    the grid point's mass. The transform's rounding (about 10⁻¹⁶ of the largest mass) makes
//!    figures below [`RESOLUTION`] noise: a tail is never shown below it from the grid.
//! 5. **Bounds** that hold exactly take over beyond the grid's resolution: above, S ≥ s needs a
//!    pair with X ≥ s/m, so P(S ≥ s) ≤ m·P(D ≤ μ − ln(s/m)/λ) (exact when m = 1, and the
//!    heavy tail's own shape at few pairs); below, Chernoff's bound inf_{θ<0} E[e^{θX}]^m
//!    e^{−θs}. Each tail is the smaller of the grid's figure and its bound.
//!
//! Costs: the Mahonian law (n³/12 additions: 0.1 s at 1,000 cards) and two real transforms
//! of at most [`MAX_POINTS`] points.

use crate::engine::deal_stream::kernel::MallowsKernel;
use crate::stats::pvalue::PValue;
use realfft::RealFftPlanner;
use realfft::num_complex::Complex;

/// The most grid points: beyond, the step grows past a sixth of one pair's standard
/// deviation (its variance is corrected, see the module documentation).
pub const MAX_POINTS: usize = 1 << 19;

/// Tails below this are not read from the grid (the transform's rounding), only from the
/// exact bounds.
pub const RESOLUTION: f64 = 1e-12;

/// The most probability capped in all: m·P(X > c).
pub const CAP_MASS: f64 = 1e-14;

/// ln of the mass a Bernstein bound leaves beyond the window: e^{−37} ≈ 10⁻¹⁶.
const WINDOW_LN_MASS: f64 = 37.0;

/// The Mahonian law: P(D = d), d = 0..=n(n − 1)/2, D the inversions of a uniform deck of n
/// cards, as doubles. Each probability has a small relative error, the far tails included
/// (the left half is summed from the left by a sliding window, whose terms only grow there,
/// and mirrored), down to where it underflows (1/n! below 10⁻³⁰⁸ beyond 170 cards).
pub fn inversion_law(n: usize) -> Vec<f64> {
    assert!(n >= 1, "a deck needs at least one card");
    let mut law = vec![1.0];
    for j in 2..=n {
        let top = j * (j - 1) / 2;
        let half = top / 2;
        let previous = law;
        let mut next = vec![0.0; top + 1];
        let share = 1.0 / j as f64;
        let mut window = 0.0f64;
        for (k, slot) in next.iter_mut().enumerate().take(half + 1) {
            if let Some(&p) = previous.get(k) {
                window += p;
            }
            if k >= j {
                window -= previous[k - j];
            }
            *slot = window.max(0.0) * share;
        }
        for k in half + 1..=top {
            next[k] = next[top - k];
        }
        law = next;
    }
    law
}

/// The law of S, the sum of the centred kernels of `pairs` independent uniform pairs of decks of
/// `deck` cards (see the module documentation).
#[derive(Debug, Clone)]
pub struct MeanKernelLaw {
    pairs: f64,
    kernel: MallowsKernel,
    /// P(D = d).
    law: Vec<f64>,
    /// P(D ≤ d), summed from the left.
    below: Vec<f64>,
    /// The grid step h.
    step: f64,
    /// The value, in steps, of the grid's first point.
    first: i64,
    /// The grid's masses, from the value `first` up.
    mass: Vec<f64>,
    /// P(grid ≥ point i), summed from the top.
    at_least: Vec<f64>,
    /// P(grid ≤ point i), summed from the bottom.
    at_most: Vec<f64>,
    /// m·μ_c, the mean of the capped sum.
    mean: f64,
    /// √(1 + δ/σ_c²): the grid's spread over the capped sum's.
    stretch: f64,
    /// m·P(X > c), added to the upper tail.
    capped: f64,
}

impl MeanKernelLaw {
    /// The law for `pairs` ≥ 1 pairs of decks of `deck` ≥ 2 cards.
    pub fn new(deck: usize, pairs: u64) -> Self {
        assert!(deck >= 2 && pairs >= 1);
        let kernel = MallowsKernel::new(deck);
        let law = inversion_law(deck);
        let below: Vec<f64> = law
            .iter()
            .scan(0.0, |sum, &p| {
                *sum += p;
                Some(*sum)
            })
            .collect();
        let m = pairs as f64;
        // The cap: atoms d < `capped_below` (the largest kernels) go to c = X(capped_below).
        let mut capped_below = 0;
        let mut capped_mass = 0.0;
        while capped_below + 1 < law.len() && m * (capped_mass + law[capped_below]) <= CAP_MASS
        {
            capped_mass += law[capped_below];
            capped_below += 1;
        }
        let cap = kernel.centred(capped_below);
        let value = |d: usize| kernel.centred(d.max(capped_below));
        let mean_one: f64 = law.iter().enumerate().map(|(d, &p)| p * value(d)).sum();
        let variance_one: f64 = law
            .iter()
            .enumerate()
            .map(|(d, &p)| p * (value(d) - mean_one).powi(2))
            .sum();
        let mean = m * mean_one;
        // Bernstein: P(S_c − mμ ≥ t) ≤ exp(−t²/(2(mσ² + bt/3))), b bounding a term's excess.
        let reach = |bound: f64| {
            let (a, b) = (
                2.0 * WINDOW_LN_MASS * bound / 3.0,
                2.0 * WINDOW_LN_MASS * m * variance_one,
            );
            (a + (a * a + 4.0 * b).sqrt()) / 2.0
        };
        let low = (mean - reach(mean_one)).max(0.0);
        let high = (mean + reach(cap)).min(m * cap);
        let span = (high - low).max(cap);
        // A hundredth of the sum's standard deviation, between a hundredth and a sixth of
        // one pair's.
        let spread = variance_one.sqrt();
        let mut step = (spread * m.sqrt() / 100.0).clamp(spread / 100.0, spread / 6.0);
        let mut points = ((span / step).ceil() as usize + 2).next_power_of_two();
        if points > MAX_POINTS {
            points = MAX_POINTS;
            step = span / (MAX_POINTS - 2) as f64;
        }
        // One pair's law on the grid, each atom split to keep its mean.
        let mut grid = vec![0.0; points];
        let mut added_variance = 0.0;
        let mut mean_steps = 0.0;
        for (d, &p) in law.iter().enumerate() {
            if p == 0.0 {
                continue;
            }
            let at = value(d) / step;
            let whole = at.floor();
            let part = at - whole;
            let k = whole as usize;
            grid[k % points] += p * (1.0 - part);
            grid[(k + 1) % points] += p * part;
            added_variance += p * part * (1.0 - part);
            mean_steps += p * at;
        }
        added_variance *= step * step;
        let stretch = if variance_one > 0.0 {
            (1.0 + added_variance / variance_one).sqrt()
        } else {
            1.0
        };
        let summed = sum_of_copies(&mut grid, pairs, mean_steps, variance_one.sqrt() / step);
        // Point j of `summed` holds the values ≡ j (mod L); unfold from the window's start.
        let first = (low / step).floor() as i64;
        let offset = first.rem_euclid(points as i64) as usize;
        let mass: Vec<f64> = (0..points)
            .map(|i| summed[(offset + i) % points])
            .collect();
        let mut at_least = mass.clone();
        for i in (0..points - 1).rev() {
            at_least[i] += at_least[i + 1];
        }
        let mut at_most = mass.clone();
        for i in 1..points {
            at_most[i] += at_most[i - 1];
        }
        MeanKernelLaw {
            pairs: m,
            kernel,
            law,
            below,
            step,
            first,
            mass,
            at_least,
            at_most,
            mean,
            stretch,
            capped: capped_mass * m,
        }
    }

    /// The grid's step (for tests and reports).
    pub fn step(&self) -> f64 {
        self.step
    }

    /// The grid's points.
    pub fn points(&self) -> usize {
        self.mass.len()
    }

    /// The query `sum` as a place on the grid: its point and the share of that point's mass
    /// on its upper side (points spread uniformly over their step).
    fn place(&self, sum: f64) -> (i64, f64) {
        let stretched = self.mean + (sum - self.mean) * self.stretch;
        let at = stretched / self.step - self.first as f64;
        let point = (at + 0.5).floor();
        (point as i64, point + 0.5 - at)
    }

    /// P(S ≥ `sum`) from the grid alone, the capped mass added.
    pub fn grid_upper(&self, sum: f64) -> f64 {
        let (point, upper_share) = self.place(sum);
        let tail = if point < 0 {
            1.0
        } else if point as usize >= self.mass.len() {
            0.0
        } else {
            let i = point as usize;
            self.at_least.get(i + 1).copied().unwrap_or(0.0) + upper_share * self.mass[i]
        };
        tail.max(RESOLUTION) + self.capped
    }

    /// P(S ≤ `sum`) from the grid alone.
    pub fn grid_lower(&self, sum: f64) -> f64 {
        let (point, upper_share) = self.place(sum);
        let tail = if point < 0 {
            0.0
        } else if point as usize >= self.mass.len() {
            1.0
        } else {
            let i = point as usize;
            let before = if i == 0 { 0.0 } else { self.at_most[i - 1] };
            before + (1.0 - upper_share) * self.mass[i]
        };
        tail.max(RESOLUTION)
    }

    /// m·P(X ≥ sum/m): S ≥ `sum` needs one pair with X ≥ sum/m. X ≥ x ⇔ D ≤ μ − ln(x)/λ; the
    /// distance is rounded up a little, so that a sum of pairs all at one distance (kept in
    /// fixed point) still counts that distance.
    pub fn jump_bound(&self, sum: f64) -> PValue {
        let per_pair = sum / self.pairs;
        if per_pair <= 0.0 {
            return PValue::ONE;
        }
        let limit = self.kernel.center - per_pair.ln() / self.kernel.lambda + 1e-6;
        if limit < 0.0 {
            return PValue::ZERO;
        }
        let d = (limit.floor() as usize).min(self.law.len() - 1);
        let ln_pairs = self.pairs.ln();
        let counted = self.below[d];
        if counted > 1e-280 {
            return PValue::from_ln(ln_pairs + counted.ln());
        }
        // Beyond the doubles: permutations of n with at most d inversions are at most the
        // n-tuples of non-negative integers summing to at most d (their inversion tables),
        // C(d + n, n), of n! in all.
        let n = self.kernel.deck as f64;
        let ln_count = ln_factorial(d as f64 + n) - ln_factorial(d as f64) - ln_factorial(n);
        PValue::from_ln(ln_pairs + ln_count - ln_factorial(n))
    }

    /// Chernoff's bound on P(S ≤ `sum`): inf over θ < 0 of exp(m·ln E[e^{θX}] − θ·sum),
    /// minimised where the tilted mean of X is sum/m (bisection on θ).
    pub fn chernoff_lower(&self, sum: f64) -> PValue {
        let target = sum / self.pairs;
        let tilted = |theta: f64| -> (f64, f64) {
            // (ln E[e^{θX}], E_θ[X]); θ < 0 and X ≥ 0, so no term overflows.
            let (mut total, mut first) = (0.0, 0.0);
            for (d, &p) in self.law.iter().enumerate() {
                if p > 0.0 {
                    let x = self.kernel.centred(d);
                    let w = p * (theta * x).exp();
                    total += w;
                    first += w * x;
                }
            }
            (total.ln(), if total > 0.0 { first / total } else { 0.0 })
        };
        if target.is_nan() {
            return PValue::ONE;
        }
        if target <= 0.0 {
            return PValue::ZERO;
        }
        if tilted(0.0).1 <= target {
            return PValue::ONE;
        }
        let (mut near, mut far) = (0.0, -1.0);
        while tilted(far).1 > target && far > -1e12 {
            near = far;
            far *= 2.0;
        }
        for _ in 0..80 {
            let middle = (near + far) / 2.0;
            if tilted(middle).1 > target {
                near = middle;
            } else {
                far = middle;
            }
        }
        let theta = far;
        let (ln_mgf, _) = tilted(theta);
        PValue::from_ln((self.pairs * ln_mgf - theta * sum).min(0.0))
    }

    /// P(S ≥ `sum`): the grid's figure or the jump bound, the smaller.
    pub fn upper(&self, sum: f64) -> PValue {
        let grid = PValue::from_p(self.grid_upper(sum));
        let bound = self.jump_bound(sum);
        if bound.log10 < grid.log10 { bound } else { grid }
    }

    /// P(S ≤ `sum`): the grid's figure or Chernoff's bound, the smaller.
    pub fn lower(&self, sum: f64) -> PValue {
        let grid = PValue::from_p(self.grid_lower(sum));
        if grid.p > 1e-6 {
            return grid;
        }
        let bound = self.chernoff_lower(sum);
        if bound.log10 < grid.log10 { bound } else { grid }
    }
}

/// ln x! for x ≥ 0, by the log-gamma function.
fn ln_factorial(x: f64) -> f64 {
    statrs::function::gamma::ln_gamma(x + 1.0)
}

/// The law of the sum of `copies` independent copies of the law in `grid` (one copy's masses
/// at points 0..L), modulo L points: the transform, raised to the power, transformed back.
/// `mean_steps` is one copy's mean in steps: its phase is taken out before the power and put
/// back after, as a whole number of steps plus a fraction, so that a power of millions keeps
/// the phases of the transform exact to rounding.
fn sum_of_copies(grid: &mut [f64], copies: u64, mean_steps: f64, spread_steps: f64) -> Vec<f64> {
    let points = grid.len();
    let masses: Vec<(usize, f64)> = grid
        .iter()
        .enumerate()
        .filter(|&(_, &g)| g > 0.0)
        .map(|(j, &g)| (j, g))
        .collect();
    let m = copies as f64;
    // The frequencies at which the power is not negligible carry the sum's bulk: |φ(k)|^m is
    // about exp(−2π²k²σ²m/L²), e^{−79} at k = 2L/(σ√m) (σ in steps). There the forward
    // transform's rounding (a relative 10⁻¹⁵ or so) raised to the m-th power would smear
    // m·10⁻¹⁵ of the mass over the window, so beyond a thousand copies ln φ is summed directly
    // at those frequencies, as ln(1 + w), w = Σ g_j(e^{−iθ_j} − 1), each term's real part
    // −2g_j sin²(θ_j/2) (no cancellation), and the others are 0 (no forward transform).
    let direct = (copies > 1000).then(|| {
        ((2.0 * points as f64 / (spread_steps * m.sqrt())).ceil() as usize + 2)
            .min(points / 2 + 1)
    });
    let mut planner = RealFftPlanner::<f64>::new();
    let inverse = planner.plan_fft_inverse(points);
    let mut spectrum = inverse.make_input_vec();
    if direct.is_none() {
        planner
            .plan_fft_forward(points)
            .process(grid, &mut spectrum)
            .expect("buffers made by the plan");
    }
    let direct = direct.unwrap_or(0);
    let zero_beyond = direct > 0;
    // The sum's mean, m·mean_steps, as a whole number of steps (mod L) and a fraction.
    let total = m * mean_steps;
    let whole = (total.floor() as u128 % points as u128) as u64;
    let fraction = total - total.floor();
    let tau = std::f64::consts::TAU;
    for (k, value) in spectrum.iter_mut().enumerate() {
        let share = k as f64 / points as f64;
        let (ln_radius, angle) = if k < direct {
            let (mut re, mut im) = (0.0, 0.0);
            let turn_of_mean = (share * mean_steps).fract();
            for &(j, g) in &masses {
                let turns = ((k as u128 * j as u128) % points as u128) as f64 / points as f64;
                let theta = tau * (turns - turn_of_mean);
                let half = (theta / 2.0).sin();
                re -= 2.0 * g * half * half;
                im -= g * theta.sin();
            }
            // ln(1 + w): ln|1 + w| = ½·ln(1 + 2 Re w + |w|²), arg = atan2(Im w, 1 + Re w).
            let ln_radius = 0.5 * (2.0 * re + re * re + im * im).ln_1p();
            (ln_radius, im.atan2(1.0 + re) * m)
        } else if zero_beyond {
            *value = Complex::new(0.0, 0.0);
            continue;
        } else {
            // Centre one copy: multiply by e^{+2πi·k·mean/L}.
            let centred = *value * Complex::from_polar(1.0, tau * (share * mean_steps).fract());
            let radius = centred.norm();
            if radius == 0.0 {
                *value = Complex::new(0.0, 0.0);
                continue;
            }
            (radius.ln(), centred.arg() * m)
        };
        // The sum's shift e^{−2πi·k·(whole + fraction)/L}, its turns reduced exactly.
        let turns = ((k as u128 * whole as u128) % points as u128) as f64 / points as f64
            + share * fraction;
        let magnitude = (m * ln_radius).exp();
        *value = Complex::from_polar(magnitude, angle - tau * turns.fract());
    }
    spectrum[0].im = 0.0;
    if let Some(last) = spectrum.last_mut() {
        last.im = 0.0;
    }
    let mut summed = inverse.make_output_vec();
    inverse
        .process(&mut spectrum, &mut summed)
        .expect("buffers made by the plan");
    let scale = 1.0 / points as f64;
    for x in &mut summed {
        *x *= scale;
    }
    summed
}

#[cfg(test)]
mod tests;
