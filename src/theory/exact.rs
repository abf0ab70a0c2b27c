//! The exact engine: the true law of a shuffle, computed by running the algorithm's own code
//! once for every possible sequence of random choices.
//!
//! [`PathWalker`] is a [`RandomSource`] that answers `below(k)`, `coin()` and `bernoulli(a, b)`
//! from a recorded path of choices and extends the path with the first option whenever the
//! algorithm asks for more; after each run the path is advanced like an odometer (the last choice
//! that can grow grows, later ones are dropped). Every choice sequence is visited exactly once,
//! each weighted by the product of its choices' probabilities: 1/k for `below(k)`, 1/2 for a
//! coin, a/b or (b − a)/b for a Bernoulli draw, which is one weighted two-way branch (not b
//! equally likely ones). There is no second copy of any algorithm: theory and simulation run the
//! same code.
//!
//! Probabilities are kept as exact integers over a common denominator (the least common multiple
//! of the paths' denominators: n! for Fisher–Yates, n^n for the naive shuffle, a power of two for
//! the comparator sorts, b^(n−1) for the overhand shuffle with p = a/b), with a compensated f64
//! sum alongside for the case where that denominator would not fit in 128 bits. The number of
//! paths is estimated before the walk (Knuth 1975, "Estimating the efficiency of backtrack
//! programs": the mean of Π kᵢ over random root-to-leaf walks is an unbiased estimate of the
//! number of leaves), and a walk that would exceed the budget is refused up front, never
//! approximated.
//!
//! K passes of a shuffle are a random walk on the orderings: with P₁ the law of one pass,
//! P_K(σ) = Σ_τ P₁(τ) · P_{K−1}(σ ∘ τ⁻¹) (the last pass moves the cards of the deck the first
//! K − 1 passes produced by position, see [`convolve_passes`]). The engine computes P_K whichever
//! way is cheapest — walking the K-pass shuffle's paths, propagating its steps, or convolving
//! P₁ with itself over P₁'s support — and refuses, never approximates, what exceeds the budget.
//!
//! One law needs no walk: Fisher–Yates (either direction, or inside out) with exactly uniform
//! draws is uniform by a theorem ([`uniform_by_construction`]); its code is walked by the tests
//! instead, which check the theorem against every choice path up to eight cards.

use rand_chacha::ChaCha8Rng;

use crate::engine::algorithms::{Card, Shuffle};
use crate::engine::mapping::Mapping;
use crate::engine::permutation::{factorial, for_each_in_rank_order, rank};
use crate::engine::random_source::{BlockRng, FastSource, RandomSource, ScriptedSource};
use crate::stats::summation::CompensatedSum;
use crate::system::{interrupt, pages};

mod law_figures;
mod law_cells;
mod positions;
mod pull;
mod push;
mod swaps;
mod tables;
use pull::{PULL_FROM_SUPPORT_SHARE, PulledLaw, pull_exact};
use push::{Support, push_sparse, push_stage, support_ranks};
use swaps::lead_with_swaps;
use tables::{Spare, fill_in_parts, read_in_parts};

pub use law_cells::{CellIter, LawCells};

/// The largest deck whose exact law is computed (10! probabilities with exact numerators take
/// about 90 MB; 11! would take about 1 GB).
pub const MAX_EXACT_DECK: usize = 10;

/// The default budget of choice paths (`--max-paths`).
pub const DEFAULT_MAX_PATHS: u64 = 100_000_000;

/// The [`Law::method`] of a law computed by [`propagate_steps`], which no path budget limits.
pub const STEP_PROPAGATION: &str = "step-propagation";

/// The [`Law::method`] of a law known without a walk: Fisher–Yates with exactly uniform draws.
pub const UNIFORM_BY_CONSTRUCTION: &str = "uniform-by-construction";

/// The method of [`uniform_law`]: the uniform law itself, for reports with no model.
pub const UNIFORM: &str = "uniform";

/// The path walk looks for Ctrl-C once per this many paths (a few microseconds of work).
const INTERRUPT_CHECK_PATHS: u64 = 1024;

/// The exact law of one shuffle on one deck size.
#[derive(Debug, Clone)]
pub struct Law {
    /// Number of cards.
    pub deck: usize,
    /// `probabilities[rank]`: the probability of the permutation of that rank (one value
    /// repeated, not written out, for the uniform law).
    pub probabilities: LawCells<f64>,
    /// The same probabilities as exact fractions, when the common denominator fits in 128 bits.
    pub exact: Option<ExactFractions>,
    /// How many choice sequences the law accounts for (at most `u64::MAX`: several passes of a
    /// shuffle can have more).
    pub paths: u64,
    /// How it was computed: `path-walk`, `step-propagation`, `convolution` or
    /// `uniform-by-construction` (Fisher–Yates with exactly uniform draws, by a theorem).
    pub method: &'static str,
}

/// Probabilities as integers over one common denominator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExactFractions {
    /// `numerators[rank]`, summing to `denominator` (one value repeated, not written out, for
    /// the uniform law).
    pub numerators: LawCells<u128>,
    /// The common denominator.
    pub denominator: u128,
}

impl ExactFractions {
    /// The probability of `rank` as a reduced fraction, e.g. `5/128`.
    pub fn fraction(&self, rank: usize) -> String {
        let numerator = self.numerators[rank];
        if numerator == 0 {
            return "0".to_string();
        }
        let divisor = gcd(numerator, self.denominator);
        format!("{}/{}", numerator / divisor, self.denominator / divisor)
    }
}

/// Why an exact law could not be computed. The `Display` is the reason as the user reads it,
/// after the command's own context ("no exact law for naive at 9 cards: …").
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExactError {
    /// The walk would visit more choice paths than the budget allows.
    #[error(
        "the exact law needs about {estimated:.3e} choice paths, more than the budget of \
         {budget} (raise it with --max-paths)"
    )]
    TooManyPaths {
        /// Estimated (or, once exceeded, at least this many) paths.
        estimated: f64,
        /// The budget (`--max-paths`).
        budget: u64,
    },
    /// The deck is larger than `MAX_EXACT_DECK` (10 cards).
    #[error("exact laws are computed up to {MAX_EXACT_DECK} cards, not {0}")]
    DeckTooLarge(usize),
    /// Carrying the law through the passes after the first would compose more permutations than
    /// the budget allows.
    #[error(
        "carrying the law through {passes} passes needs {work:.3e} composed permutations, more \
         than the budget of {budget} (raise it with --max-paths, or ask for fewer --passes)"
    )]
    TooManyPassSteps {
        /// The passes asked for.
        passes: u32,
        /// Permutations to compose and rank: |support of one pass| · n! · (passes − 1) for a
        /// convolution, (choices per pass) · n! · (passes − 1) for step propagation.
        work: f64,
        /// The budget (`--max-paths`).
        budget: u64,
    },
    /// Ctrl-C was pressed while the law was being computed (the process's Ctrl-C flag).
    #[error("interrupted (Ctrl-C) while computing the exact law")]
    Interrupted,
}

/// How the integer of a `below(k)` is distributed: uniformly (the default), or as a range
/// mapping on uniform words gives it ([`Mapping::weights`]): `--map modulo --bits 8` makes the
/// residues below 2^8 mod k one word in 2^8 likelier than the others, and the exact law follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChoiceLaw {
    /// The mapping of a word into `[0, k)`.
    pub mapping: Mapping,
    /// The width of its uniform input (the word width, or for `float` the precision of its
    /// doubles: [`Mapping::input_bits`]).
    pub bits: u32,
}

impl ChoiceLaw {
    /// P(j) for a draw below `k`, as a reduced fraction.
    fn probability(self, k: u64, j: u64) -> (u128, u128) {
        reduced(
            self.mapping.weight(k, self.bits, j),
            self.mapping.denominator(k, self.bits),
        )
    }

    /// P(draw below `k` is below `a`), as a reduced fraction.
    fn probability_below(self, k: u64, a: u64) -> (u128, u128) {
        let weight = (0..a).map(|j| self.mapping.weight(k, self.bits, j)).sum();
        reduced(weight, self.mapping.denominator(k, self.bits))
    }
}

/// A count as a float, by the fast 64-bit conversion whenever it fits.
#[inline]
fn as_f64(value: u128) -> f64 {
    match u64::try_from(value) {
        Ok(value) => value as f64,
        Err(_) => value as f64,
    }
}

fn reduced(numerator: u128, denominator: u128) -> (u128, u128) {
    let divisor = gcd(numerator, denominator).max(1);
    (numerator / divisor, denominator / divisor)
}

/// One choice of a recorded path.
#[derive(Debug, Clone, Copy)]
struct Branch {
    /// The option taken, `0..options`.
    choice: u32,
    /// How many options there are.
    options: u32,
    /// For a Bernoulli draw `below(b) < a`, (a, b), option 1 being `true`; None for a choice
    /// among `options`.
    bernoulli: Option<(u64, u64)>,
}

impl Branch {
    /// The probability of the option taken, as (numerator, denominator), when every
    /// `below(k)` follows `law` (None: uniformly).
    #[inline(always)]
    fn probability(self, law: Option<ChoiceLaw>) -> (u128, u128) {
        match (self.bernoulli, law) {
            (Some((a, b)), None) if self.choice == 1 => (u128::from(a), u128::from(b)),
            (Some((a, b)), None) => (u128::from(b - a), u128::from(b)),
            (Some((a, b)), Some(law)) => {
                let (p, q) = law.probability_below(b, a);
                if self.choice == 1 { (p, q) } else { (q - p, q) }
            }
            (None, None) => (1, u128::from(self.options)),
            (None, Some(law)) => law.probability(u64::from(self.options), u64::from(self.choice)),
        }
    }
}

/// A random source that walks every choice sequence in turn (see the module documentation).
#[derive(Debug, Default)]
pub struct PathWalker {
    /// The current path.
    path: Vec<Branch>,
    /// How many choices of the path the current run has consumed.
    position: usize,
    /// How a `below(k)` is distributed (None: uniformly).
    law: Option<ChoiceLaw>,
}

impl PathWalker {
    /// A walker whose `below(k)` follows `law` (None: uniform).
    pub fn with_law(law: Option<ChoiceLaw>) -> Self {
        PathWalker {
            law,
            ..PathWalker::default()
        }
    }

    /// The current path's probability as a reduced fraction (None if a product overflows 128
    /// bits even after reducing), and as a float. The fraction is reduced once, at the end,
    /// unless a product would overflow first: this runs once per path, millions of times.
    #[inline(always)]
    fn weight(&self) -> (Option<(u128, u128)>, f64) {
        let mut exact = Some((1u128, 1u128));
        let mut float = 1.0;
        for branch in &self.path {
            if self.law.is_none() && branch.bernoulli.is_none() {
                // The common case, a uniform choice: 1/options, in 64-bit arithmetic.
                float /= f64::from(branch.options);
                exact = exact.and_then(|(numerator, denominator): (u128, u128)| {
                    Some((
                        numerator,
                        denominator.checked_mul(u128::from(branch.options))?,
                    ))
                });
                continue;
            }
            let (a, b) = branch.probability(self.law);
            float *= as_f64(a) / as_f64(b);
            exact = exact.and_then(|(numerator, denominator): (u128, u128)| {
                match (numerator.checked_mul(a), denominator.checked_mul(b)) {
                    (Some(numerator), Some(denominator)) => Some((numerator, denominator)),
                    _ => {
                        let (numerator, denominator) = reduced(numerator, denominator);
                        let (a, b) = reduced(a, b);
                        Some((numerator.checked_mul(a)?, denominator.checked_mul(b)?))
                    }
                }
            });
        }
        (
            exact.map(|(numerator, denominator)| reduced(numerator, denominator)),
            float,
        )
    }

    /// Move to the next path; false when every path has been walked.
    fn advance(&mut self) -> bool {
        self.path.truncate(self.position);
        self.position = 0;
        while let Some(last) = self.path.last_mut() {
            if last.choice + 1 < last.options {
                last.choice += 1;
                return true;
            }
            self.path.pop();
        }
        false
    }

    /// The recorded choice at the current position, or the first option of a new branch.
    fn choose(&mut self, options: u32, bernoulli: Option<(u64, u64)>) -> u32 {
        let choice = match self.path.get(self.position) {
            Some(branch) => {
                debug_assert_eq!(
                    (branch.options, branch.bernoulli),
                    (options, bernoulli),
                    "the algorithm is not deterministic"
                );
                branch.choice
            }
            None => {
                self.path.push(Branch {
                    choice: 0,
                    options,
                    bernoulli,
                });
                0
            }
        };
        self.position += 1;
        choice
    }
}

impl RandomSource for PathWalker {
    fn below(&mut self, bound: usize) -> usize {
        self.choose(bound as u32, None) as usize
    }

    fn coin(&mut self) -> bool {
        self.below(2) == 1
    }

    /// A two-way branch weighted a/b and (b − a)/b — under a mapping, P(below(b) < a) and its
    /// complement — with no branch at all when one side is impossible.
    fn bernoulli(&mut self, numerator: usize, denominator: usize) -> bool {
        if numerator == 0 || numerator >= denominator {
            return numerator > 0;
        }
        if let Some(law) = self.law {
            // Under a mapping one side may be impossible (no word lands there): no branch.
            let (a, b) = law.probability_below(denominator as u64, numerator as u64);
            if a == 0 || a == b {
                return a > 0;
            }
        }
        self.choose(2, Some((numerator as u64, denominator as u64))) == 1
    }
}

/// A random source that records Π (number of options) along one random path (for Knuth's
/// estimate). A Bernoulli draw is taken as a fair coin here: Knuth's estimate needs each branch
/// chosen uniformly, and only the size of the tree is estimated, not its weights.
struct ProbeSource<R> {
    inner: FastSource<R>,
    leaves: f64,
}

impl<R: BlockRng> RandomSource for ProbeSource<R> {
    fn below(&mut self, bound: usize) -> usize {
        self.leaves *= bound as f64;
        self.inner.below(bound)
    }
    fn coin(&mut self) -> bool {
        self.leaves *= 2.0;
        self.inner.coin()
    }
    fn bernoulli(&mut self, numerator: usize, denominator: usize) -> bool {
        if numerator == 0 || numerator >= denominator {
            return numerator > 0;
        }
        self.coin()
    }
}

/// Knuth's unbiased estimate of the number of choice paths of `shuffle` (all its passes), from
/// `probes` random walks.
pub fn estimate_paths(shuffle: impl Into<Shuffle>, n: usize, probes: u32) -> f64 {
    let shuffle = shuffle.into();
    let mut source = ProbeSource {
        inner: FastSource::new(ChaCha8Rng::for_block(0x5EED, 0)),
        leaves: 1.0,
    };
    let mut deck: Vec<Card> = (0..n as Card).collect();
    let mut scratch = deck.clone();
    let mut total = 0.0;
    for _ in 0..probes {
        source.leaves = 1.0;
        deck.iter_mut()
            .enumerate()
            .for_each(|(i, c)| *c = i as Card);
        shuffle.apply(&mut deck, &mut scratch, &mut source);
        total += source.leaves;
    }
    total / f64::from(probes)
}

/// The exact law of `shuffle` (all its passes) on `n` cards (n ≤ MAX_EXACT_DECK), walking at
/// most `max_paths` paths (see the module documentation for how several passes are handled and
/// budgeted).
pub fn exact_law(shuffle: impl Into<Shuffle>, n: usize, max_paths: u64) -> Result<Law, ExactError> {
    exact_law_under(shuffle, n, max_paths, None)
}

/// [`exact_law`] when every `below(k)` the algorithm draws follows `law` (a range mapping on
/// uniform words) instead of the uniform law; `None` is [`exact_law`].
pub fn exact_law_under(
    shuffle: impl Into<Shuffle>,
    n: usize,
    max_paths: u64,
    law: Option<ChoiceLaw>,
) -> Result<Law, ExactError> {
    let shuffle = shuffle.into();
    if n > MAX_EXACT_DECK {
        return Err(ExactError::DeckTooLarge(n));
    }
    let passes = shuffle.passes;
    if let Some(law) = uniform_by_construction(shuffle, n, law) {
        return Ok(law);
    }
    let estimated = estimate_paths(shuffle, n, 256);
    if shuffle.algorithm.choices_act_on_positions() {
        let (bounds, _) = first_path(shuffle, n);
        let propagation_work = factorial(n) as f64 * bounds.iter().sum::<usize>() as f64;
        if propagation_work < estimated * n as f64 {
            if passes > 1 {
                // The work of the passes after the first, in composed permutations.
                let work = propagation_work / f64::from(passes) * f64::from(passes - 1);
                if work > max_paths as f64 {
                    return Err(ExactError::TooManyPassSteps {
                        passes,
                        work,
                        budget: max_paths,
                    });
                }
            }
            return propagate_steps_under(shuffle, n, &bounds, law);
        }
    }
    if passes <= 1 {
        return walk_paths_under(shuffle, n, max_paths, estimated, law);
    }
    // Walk the K-pass shuffle, or convolve one pass's law with itself: whichever is cheaper.
    // Before the one-pass law is known, its support is at most min(n!, its paths).
    let cells = factorial(n) as f64;
    let one_pass_paths = estimate_paths(shuffle.with_passes(1), n, 256);
    let convolution_bound =
        one_pass_paths + one_pass_paths.min(cells) * cells * f64::from(passes - 1);
    let walk_fits = estimated <= max_paths as f64;
    if walk_fits && estimated <= convolution_bound {
        return walk_paths_under(shuffle, n, max_paths, estimated, law);
    }
    let one_pass = exact_law_under(shuffle.with_passes(1), n, max_paths, law)?;
    match convolve_passes(&one_pass, passes, max_paths) {
        Err(_) if walk_fits => walk_paths_under(shuffle, n, max_paths, estimated, law),
        result => result,
    }
}

/// The law of a shuffle that is uniform by construction, without walking its paths: Fisher–Yates
/// in either direction or inside out (any number of passes) when every draw is exactly uniform
/// (no mapping, or an unbiased one: Lemire's, the rejection threshold or the bitmask). None for
/// anything else.
///
/// The theorem: downwards, the draws j_{n−1} ∈ [0, n−1], …, j_1 ∈ [0, 1] are n! equally likely
/// sequences, and step i fixes the card left at position i for good (later steps touch only
/// positions below i), choosing it among the i + 1 cards still below, so distinct sequences give
/// distinct decks: a bijection onto the n! orderings, each of probability 1/n! (upwards the same
/// with the positions mirrored). Inside out, j_0 ∈ [0, 0], …, j_{n−1} ∈ [0, n−1] are again n!
/// sequences, and the last step's j_{n−1} is the final position of card n − 1 (no later step
/// moves it); removing it leaves the deck of the first n − 1 steps, so by induction distinct
/// sequences give distinct decks. A uniform deck shuffled again stays uniform, so K passes are too.
/// The numerators are then all 1 over n!, exactly what a walk of one pass gives; the paths are
/// (n!)^K. `tests/exact_laws.rs` walks both directions' code up to eight cards and checks this
/// law against the walk, and that nothing else takes this way.
pub fn uniform_by_construction(shuffle: Shuffle, n: usize, law: Option<ChoiceLaw>) -> Option<Law> {
    let unbiased = law.is_none_or(|law| {
        matches!(
            law.mapping,
            Mapping::Lemire | Mapping::Rejection | Mapping::Bitmask
        ) && (law.bits >= u64::BITS || n as u64 <= 1u64 << law.bits)
    });
    if !shuffle.algorithm.meant_uniform() || !unbiased || n > MAX_EXACT_DECK {
        return None;
    }
    let mut uniform = uniform_law(n);
    uniform.paths = (0..shuffle.passes).fold(1u64, |paths, _| paths.saturating_mul(factorial(n)));
    uniform.method = UNIFORM_BY_CONSTRUCTION;
    Some(uniform)
}

/// The exact law by walking every choice path (at most `max_paths`; `estimated` is Knuth's
/// estimate of their number, used to refuse a walk that could not finish).
pub fn walk_paths(
    shuffle: impl Into<Shuffle>,
    n: usize,
    max_paths: u64,
    estimated: f64,
) -> Result<Law, ExactError> {
    walk_paths_under(shuffle, n, max_paths, estimated, None)
}

/// [`walk_paths`] with every `below(k)` following `law` (None: uniform).
fn walk_paths_under(
    shuffle: impl Into<Shuffle>,
    n: usize,
    max_paths: u64,
    estimated: f64,
    law: Option<ChoiceLaw>,
) -> Result<Law, ExactError> {
    let shuffle = shuffle.into();
    if estimated > max_paths as f64 * 1.5 {
        return Err(ExactError::TooManyPaths {
            estimated,
            budget: max_paths,
        });
    }
    // First in exact fractions alone; if their common denominator overflows, walked again in
    // compensated floats alone (the very sums a walk keeping both would give), so that the
    // common case touches one n!-cell array per path, not two.
    if let Some(law) = walk_once(shuffle, n, max_paths, estimated, law, Arithmetic::Exact)? {
        return Ok(law);
    }
    let law = walk_once(shuffle, n, max_paths, estimated, law, Arithmetic::Float)?;
    Ok(law.expect("a walk in floats always ends with a law"))
}

/// How [`walk_once`] adds up the paths' weights.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arithmetic {
    /// Exact fractions over a common denominator (None if it overflows).
    Exact,
    /// Neumaier-compensated f64 sums.
    Float,
}

/// One walk of every choice path (see [`walk_paths_under`]); `Ok(None)` when the exact
/// fractions overflow.
fn walk_once(
    shuffle: Shuffle,
    n: usize,
    max_paths: u64,
    estimated: f64,
    law: Option<ChoiceLaw>,
    arithmetic: Arithmetic,
) -> Result<Option<Law>, ExactError> {
    let cells = factorial(n) as usize;
    let exact_only = arithmetic == Arithmetic::Exact;
    let mut numerators = vec![0u128; if exact_only { cells } else { 0 }];
    let mut denominator: u128 = 1;
    let mut sums = vec![CompensatedSum::default(); if exact_only { 0 } else { cells }];

    let mut walker = PathWalker::with_law(law);
    let identity: Vec<Card> = (0..n as Card).collect();
    let mut deck = identity.clone();
    let mut scratch = identity.clone();
    let mut paths = 0u64;
    loop {
        deck.copy_from_slice(&identity);
        shuffle.apply(&mut deck, &mut scratch, &mut walker);
        paths += 1;
        if paths.is_multiple_of(INTERRUPT_CHECK_PATHS) && interrupt::requested() {
            return Err(ExactError::Interrupted);
        }
        if paths > max_paths {
            return Err(ExactError::TooManyPaths {
                estimated: estimated.max(paths as f64),
                budget: max_paths,
            });
        }
        let cell = rank(&deck);
        let (exact_weight, float_weight) = walker.weight();
        if exact_only {
            let Some((weight, path)) = exact_weight else {
                return Ok(None);
            };
            match add_fraction(&mut numerators, denominator, cell, weight, path) {
                Some(common) => denominator = common,
                None => return Ok(None),
            }
        } else {
            sums[cell].add(float_weight);
        }
        if !walker.advance() {
            break;
        }
    }

    let (probabilities, exact) = if exact_only {
        let probabilities: Vec<f64> = numerators
            .iter()
            .map(|&num| num as f64 / denominator as f64)
            .collect();
        let exact = ExactFractions {
            numerators: numerators.into(),
            denominator,
        };
        (probabilities.into(), Some(exact))
    } else {
        let probabilities: Vec<f64> = sums.iter().map(CompensatedSum::total).collect();
        (probabilities.into(), None)
    };
    Ok(Some(Law {
        deck: n,
        probabilities,
        exact,
        paths,
        method: "path-walk",
    }))
}

/// The bounds of the all-zero path and the deck it produces.
pub fn first_path(shuffle: impl Into<Shuffle>, n: usize) -> (Vec<usize>, Vec<Card>) {
    let shuffle = shuffle.into();
    let mut walker = PathWalker::default();
    let mut deck: Vec<Card> = (0..n as Card).collect();
    let mut scratch = deck.clone();
    shuffle.apply(&mut deck, &mut scratch, &mut walker);
    let bounds = walker
        .path
        .iter()
        .map(|branch| branch.options as usize)
        .collect();
    (bounds, deck)
}

/// The deck after running `shuffle` with exactly the choices `script`.
fn run_script(shuffle: Shuffle, n: usize, script: Vec<usize>) -> Vec<Card> {
    let mut deck: Vec<Card> = (0..n as Card).collect();
    let mut scratch = deck.clone();
    shuffle.apply(&mut deck, &mut scratch, &mut ScriptedSource::new(script));
    deck
}

/// (a ∘ b)[p] = a[b[p]]: the deck `a` rearranged by the position permutation `b`.
fn compose(a: &[Card], b: &[Card]) -> Vec<Card> {
    b.iter().map(|&p| a[usize::from(p)]).collect()
}

fn inverse(a: &[Card]) -> Vec<Card> {
    let mut inverse = vec![0; a.len()];
    for (position, &card) in a.iter().enumerate() {
        inverse[usize::from(card)] = position as Card;
    }
    inverse
}

/// The exact law of a shuffle whose choices act on positions
/// ([`crate::engine::algorithms::Algorithm::choices_act_on_positions`]; several passes of such a shuffle
/// are one), one choice at a time, by running its own code.
///
/// Let D(c) be the deck produced by the choices c, Z = D(0, …, 0) and G_i the deck produced by
/// the first i choices followed by zeros. Because every choice moves cards by position only,
/// running the remaining steps from any deck x gives x ∘ T for a position permutation T that
/// depends only on the remaining choices; it follows that G_i = G_{i−1} ∘ M_i(c_i) with
/// M_i(c) = Z⁻¹ ∘ D(0, …, c at step i, …, 0), the same for every earlier choice. So the law is
/// that of Z ∘ M_1(c_1) ∘ … ∘ M_k(c_k) with independent uniform c_i: k·b + 1 runs of the
/// algorithm and a sweep over n! orderings per choice, instead of Π b_i paths (9^9 for naive at
/// 9 cards). All paths being equally likely, the numerators are path counts over Π b_i (or, if
/// that does not fit in 128 bits, f64 probabilities).
pub fn propagate_steps(
    shuffle: impl Into<Shuffle>,
    n: usize,
    bounds: &[usize],
) -> Result<Law, ExactError> {
    propagate_steps_under(shuffle, n, bounds, None)
}

/// [`propagate_steps`] with every choice following `law` (None: uniform); the paths are then
/// not equally likely, and each choice's stage carries the mapping's weights.
fn propagate_steps_under(
    shuffle: impl Into<Shuffle>,
    n: usize,
    bounds: &[usize],
    law: Option<ChoiceLaw>,
) -> Result<Law, ExactError> {
    let operator = PassOperator::steps(shuffle.into(), n, bounds, law);
    let paths = bounds
        .iter()
        .fold(1u64, |acc, &bound| acc.saturating_mul(bound as u64));
    Ok(operator
        .apply_to_point_mass(0, n)?
        .into_law(n, paths, STEP_PROPAGATION))
}

/// The exact law of `passes` passes of a shuffle whose one-pass law is `one_pass`, by convolution:
/// P_K(σ) = Σ_τ P₁(τ) · P_{K−1}(σ ∘ τ⁻¹).
///
/// The order of composition: the K-th pass, run on the deck ρ that the first K − 1 passes
/// produced, moves cards by position exactly as it would on the unshuffled deck, so it turns ρ
/// into ρ ∘ τ, where τ is the deck that pass alone would produce (the card at position p comes
/// from position τ\[p\] of ρ). Each sweep pushes every ρ of P_{K−1} through every τ of P₁'s
/// support: |support| · n! compositions per pass after the first, refused beyond `max_work`.
/// Fractions stay exact while the denominator (at most that of P₁ to the power K, once reduced)
/// fits in 128 bits, f64 after that.
pub fn convolve_passes(one_pass: &Law, passes: u32, max_work: u64) -> Result<Law, ExactError> {
    let n = one_pass.deck;
    if passes == 0 {
        let unchanged = Weights::Exact {
            numerators: point_mass(n, 0),
            denominator: 1,
        };
        return Ok(unchanged.into_law(n, 1, "convolution"));
    }
    let operator = PassOperator::convolution(one_pass);
    let work = operator.work(n) * f64::from(passes.saturating_sub(1));
    if work > max_work as f64 {
        return Err(ExactError::TooManyPassSteps {
            passes,
            work,
            budget: max_work,
        });
    }
    let mut weights = Weights::of_law(one_pass);
    for _ in 1..passes {
        weights = operator.apply(weights, n)?;
    }
    let paths = (1..passes).fold(one_pass.paths, |acc, _| acc.saturating_mul(one_pass.paths));
    Ok(weights.into_law(n, paths, "convolution"))
}

/// The mixing curve of `shuffle` on `n` cards: the total variation distance from uniform after
/// 1, 2, …, `steps` applications of it (each application being all of its `passes`).
///
/// The law after k + 1 applications is that after k carried through one more, by step
/// propagation for the swap shuffles or by convolution with the one-application law, whichever
/// composes fewer permutations: so `steps` = 12 costs 11 sweeps of n! orderings, not 78. Refused
/// when (steps − 1) sweeps compose more than `max_paths` permutations.
pub fn mixing_curve(
    shuffle: impl Into<Shuffle>,
    n: usize,
    steps: u32,
    max_paths: u64,
) -> Result<Vec<f64>, ExactError> {
    let shuffle = shuffle.into();
    let law = exact_law(shuffle, n, max_paths)?;
    let mut operator = PassOperator::convolution(&law);
    if shuffle.algorithm.choices_act_on_positions() {
        let (bounds, _) = first_path(shuffle, n);
        let steps_operator = PassOperator::steps(shuffle, n, &bounds, None);
        if steps_operator.work(n) < operator.work(n) {
            operator = steps_operator;
        }
    }
    let work = operator.work(n) * f64::from(steps.saturating_sub(1));
    if work > max_paths as f64 {
        return Err(ExactError::TooManyPassSteps {
            passes: steps,
            work,
            budget: max_paths,
        });
    }
    let mut curve = vec![law.tv_distance_from_uniform()];
    let mut weights = Weights::of_law(&law);
    for _ in 1..steps {
        weights = operator.apply(weights, n)?;
        curve.push(weights.tv_distance_from_uniform());
    }
    Ok(curve)
}

/// A law in the making: exact numerators over one denominator, or f64 probabilities once the
/// denominator would not fit in 128 bits.
#[derive(Debug, Clone)]
enum Weights {
    /// `numerators[i] / denominator`.
    Exact {
        numerators: Vec<u128>,
        denominator: u128,
    },
    /// Probabilities.
    Float(Vec<f64>),
}

impl Weights {
    fn of_law(law: &Law) -> Weights {
        match &law.exact {
            Some(fractions) => Weights::Exact {
                numerators: fractions.numerators.clone().into_vec(),
                denominator: fractions.denominator,
            },
            None => Weights::Float(law.probabilities.clone().into_vec()),
        }
    }

    fn len(&self) -> usize {
        match self {
            Weights::Exact { numerators, .. } => numerators.len(),
            Weights::Float(probabilities) => probabilities.len(),
        }
    }

    /// The probabilities, converted by [`stage_threads`] threads over ranges of orderings (at
    /// 10 cards a fresh table of 29 MB, whose pages the kernel zeroes on the thread that first
    /// writes them).
    fn probabilities(&self) -> Vec<f64> {
        match self {
            // Below 2^64 (every numerator is at most the denominator) the conversion is one
            // instruction, and rounds as the 128-bit one does.
            Weights::Exact {
                numerators,
                denominator,
            } => {
                let mut probabilities = pages::zeroed(numerators.len());
                let threads = stage_threads(numerators.len());
                let convert = |start: usize, into: &mut [f64]| {
                    let from = &numerators[start..start + into.len()];
                    match u64::try_from(*denominator) {
                        Ok(narrow) => {
                            for (p, &k) in into.iter_mut().zip(from) {
                                *p = k as u64 as f64 / narrow as f64;
                            }
                        }
                        Err(_) => {
                            for (p, &k) in into.iter_mut().zip(from) {
                                *p = k as f64 / *denominator as f64;
                            }
                        }
                    }
                };
                fill_in_parts(&mut probabilities, threads, &convert);
                probabilities
            }
            Weights::Float(probabilities) => probabilities.clone(),
        }
    }

    /// Divide the numerators and the denominator by their greatest common divisor.
    fn reduce(&mut self) {
        if let Weights::Exact {
            numerators,
            denominator,
        } = self
        {
            let mut divisor = *denominator;
            for &k in numerators.iter() {
                if divisor == 1 {
                    return;
                }
                if k != 0 {
                    divisor = gcd(divisor, k);
                }
            }
            numerators.iter_mut().for_each(|k| *k /= divisor);
            *denominator /= divisor;
        }
    }

    fn tv_distance_from_uniform(&self) -> f64 {
        let probabilities = self.probabilities();
        let u = 1.0 / probabilities.len() as f64;
        0.5 * probabilities.iter().map(|p| (p - u).abs()).sum::<f64>()
    }

    fn into_law(self, n: usize, paths: u64, method: &'static str) -> Law {
        let probabilities = self.probabilities();
        let exact = match self {
            Weights::Exact {
                numerators,
                denominator,
            } => Some(ExactFractions {
                numerators: numerators.into(),
                denominator,
            }),
            Weights::Float(_) => None,
        };
        Law {
            deck: n,
            probabilities: probabilities.into(),
            exact,
            paths,
            method,
        }
    }
}

/// The point mass on the ordering of rank `cell`, as numerators over 1.
fn point_mass(n: usize, cell: usize) -> Vec<u128> {
    let mut numerators = vec![0u128; factorial(n) as usize];
    numerators[cell] = 1;
    numerators
}

/// One stage of a pass: the deck x becomes x ∘ moves[i] with probability weights[i].
#[derive(Debug, Clone)]
struct Stage {
    moves: Vec<Vec<Card>>,
    weights: Weights,
}

/// One pass of a shuffle as an operation on laws: its stages in order.
#[derive(Debug, Clone)]
struct PassOperator {
    stages: Vec<Stage>,
}

impl PassOperator {
    /// Convolution with `law`: one stage, x ↦ x ∘ τ for every τ of its support.
    fn convolution(law: &Law) -> PassOperator {
        let mut moves = Vec::new();
        let mut cells = Vec::new();
        for_each_in_rank_order(law.deck, |cell, deck| {
            if law.probabilities[cell] > 0.0 {
                moves.push(deck.to_vec());
                cells.push(cell);
            }
        });
        let mut weights = match &law.exact {
            Some(fractions) => Weights::Exact {
                numerators: cells.iter().map(|&c| fractions.numerators[c]).collect(),
                denominator: fractions.denominator,
            },
            None => Weights::Float(cells.iter().map(|&c| law.probabilities[c]).collect()),
        };
        weights.reduce();
        PassOperator {
            stages: vec![Stage { moves, weights }],
        }
    }

    /// Step propagation (see [`propagate_steps`]): x ↦ x ∘ Z, then x ↦ x ∘ M_i(c) for each
    /// choice i, c uniform in 0..bounds[i].
    fn steps(shuffle: Shuffle, n: usize, bounds: &[usize], law: Option<ChoiceLaw>) -> PassOperator {
        let zero = run_script(shuffle, n, vec![0; bounds.len()]);
        let zero_inverse = inverse(&zero);
        let mut stages = vec![Stage {
            moves: vec![zero],
            weights: Weights::Exact {
                numerators: vec![1],
                denominator: 1,
            },
        }];
        for (step, &bound) in bounds.iter().enumerate() {
            let moves = (0..bound)
                .map(|choice| {
                    let mut script = vec![0; bounds.len()];
                    script[step] = choice;
                    compose(&zero_inverse, &run_script(shuffle, n, script))
                })
                .collect();
            let weights = match law {
                None => Weights::Exact {
                    numerators: vec![1; bound],
                    denominator: bound as u128,
                },
                Some(law) => {
                    let mut weights = Weights::Exact {
                        numerators: law.mapping.weights(bound as u64, law.bits),
                        denominator: law.mapping.denominator(bound as u64, law.bits),
                    };
                    weights.reduce();
                    weights
                }
            };
            stages.push(Stage { moves, weights });
        }
        lead_with_swaps(&mut stages);
        PassOperator { stages }
    }

    /// Permutations composed and ranked by one application to a law of full support.
    fn work(&self, n: usize) -> f64 {
        factorial(n) as f64 * self.stages.iter().map(|s| s.moves.len()).sum::<usize>() as f64
    }

    /// Carry `weights` through every stage; stopped by Ctrl-C between stages and within one
    /// (a stage of a convolution composes every ordering with every one of a support that may
    /// be all n! of them: 1.6·10^9 compositions, a minute, at 8 cards).
    fn apply(&self, weights: Weights, n: usize) -> Result<Weights, ExactError> {
        apply_stages(&self.stages, weights, n, &mut Spare::default())
    }

    /// [`PassOperator::apply`] to the point mass on the ordering of rank `cell`. The first
    /// stages, while the law's support times the stage's moves is at most 1/[`SPARSE_SHARE`]
    /// of the orderings (the naive shuffle's first 7 of 11 stages at 10 cards), carry a sorted
    /// list of (rank, numerator) pairs ([`push_sparse`]) rather than n! numerators: each n!
    /// table costs its memory and a sweep of it (20 ms at 10 cards) however few orderings it
    /// holds. The numerators are integers, so the law is the one every stage pushed in a
    /// table gives.
    fn apply_to_point_mass(&self, cell: usize, n: usize) -> Result<Weights, ExactError> {
        let cells = factorial(n) as usize;
        let mut entries = vec![(cell, 1u128)];
        let mut denominator = 1u128;
        let mut rest = &self.stages[..];
        while let Some((stage, later)) = rest.split_first() {
            let Weights::Exact {
                numerators: weights,
                denominator: stage_denominator,
            } = &stage.weights
            else {
                break;
            };
            let Some(product) = denominator.checked_mul(*stage_denominator) else {
                break;
            };
            if entries.len() * stage.moves.len() > cells / SPARSE_SHARE {
                break;
            }
            entries = push_sparse(&entries, &stage.moves, weights, n, stage_threads(cells));
            if interrupt::requested() {
                return Err(ExactError::Interrupted);
            }
            denominator = product;
            rest = later;
        }
        let mut spare = Spare::default();
        // The first stage that needs a table is pushed from the pairs: a table of them would be
        // a fresh n! table written on one thread (its pages faulted and zeroed by the kernel,
        // 70 ms of `theory naive -n 10`) only to be read at its few non-zero cells.
        if let Some((stage, later)) = rest.split_first()
            && let Weights::Exact {
                numerators: weights,
                denominator: stage_denominator,
            } = &stage.weights
            && let Some(product) = denominator.checked_mul(*stage_denominator)
        {
            let threads = stage_threads(cells);
            let support = Support::Pairs(&entries);
            let numerators = push_stage(
                support,
                &stage.moves,
                weights,
                product,
                n,
                threads,
                &mut spare,
            );
            drop(entries);
            if interrupt::requested() {
                return Err(ExactError::Interrupted);
            }
            let weights = Weights::Exact {
                numerators,
                denominator: product,
            };
            return apply_stages(later, weights, n, &mut spare);
        }
        let mut numerators = pages::zeroed(cells);
        for (cell, count) in entries {
            numerators[cell] = count;
        }
        let weights = Weights::Exact {
            numerators,
            denominator,
        };
        apply_stages(rest, weights, n, &mut spare)
    }
}

/// A law is carried through a stage as a list of (rank, numerator) pairs rather than an n!
/// table while its support times the stage's moves is at most 1/this of the n! orderings:
/// gathering and sorting that many pairs costs less than a table of n! numerators.
const SPARSE_SHARE: usize = 8;

/// [`PassOperator::apply`] of `stages`, their tables taken from and kept in `spare`.
fn apply_stages(
    stages: &[Stage],
    weights: Weights,
    n: usize,
    spare: &mut Spare,
) -> Result<Weights, ExactError> {
    stages.iter().try_fold(weights, |weights, stage| {
        if interrupt::requested() {
            return Err(ExactError::Interrupted);
        }
        push_through(weights, stage, n, spare)
    })
}

/// Orderings from which a stage of exact weights is carried by several threads (7! = 5,040 and
/// fewer take no time to carry; 8! = 40,320 and more are split).
const STAGE_THREADS_FROM_CELLS: usize = 40_320;

/// Threads that carry an exact stage over `cells` orderings: the CPUs, at most 4 (each holds
/// its own n! numerators: 58 MB at 10 cards), one for small laws.
fn stage_threads(cells: usize) -> usize {
    if cells < STAGE_THREADS_FROM_CELLS {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |cpus| cpus.get().min(4))
}

/// The law of x ∘ m, x drawn from `weights` and m from the stage, independently. Exact while
/// the product of the denominators fits in 128 bits (reducing first if that helps), f64 after.
/// Ctrl-C is polled at every ordering x carried (each composes the whole stage, so the poll
/// costs nothing beside it): the sweep then skips the rest and the stage gives
/// [`ExactError::Interrupted`], never a part of the law. The stage's tables are taken from
/// `spare`, and the table it reads is kept there after.
fn push_through(
    weights: Weights,
    stage: &Stage,
    n: usize,
    spare: &mut Spare,
) -> Result<Weights, ExactError> {
    let threads = stage_threads(weights.len());
    push_through_split(weights, stage, n, threads, spare)
}

/// [`push_through`] with exact weights carried by `threads` threads (floats by one).
fn push_through_split(
    mut weights: Weights,
    stage: &Stage,
    n: usize,
    threads: usize,
    spare: &mut Spare,
) -> Result<Weights, ExactError> {
    let cells = weights.len();
    let mut composed = [0 as Card; MAX_EXACT_DECK];
    let composed = &mut composed[..n];
    let mut product_denominator = None;
    if let (
        Weights::Exact { denominator, .. },
        Weights::Exact {
            denominator: stage_denominator,
            ..
        },
    ) = (&weights, &stage.weights)
    {
        product_denominator = denominator.checked_mul(*stage_denominator);
        if product_denominator.is_none() {
            weights.reduce();
            if let Weights::Exact { denominator, .. } = &weights {
                product_denominator = denominator.checked_mul(*stage_denominator);
            }
        }
    }
    match (product_denominator, &weights, &stage.weights) {
        (
            Some(denominator),
            Weights::Exact { numerators, .. },
            Weights::Exact {
                numerators: stage_numerators,
                ..
            },
        ) => {
            // A dense law is pulled: each ordering y sums the orderings that the stage takes
            // to it, y ∘ m⁻¹ for each move m, written once, threads over disjoint ranges.
            // The support and the largest numerator of each range, read by the stage's threads.
            let ranges = read_in_parts(numerators, threads, |_, cells| {
                cells.iter().fold((0, 0), |(support, largest), &count| {
                    (support + usize::from(count != 0), largest.max(count))
                })
            });
            let support: usize = ranges.iter().map(|&(support, _)| support).sum();
            let largest = ranges.iter().map(|&(_, largest)| largest).max().unwrap_or(0);
            let (share, of) = PULL_FROM_SUPPORT_SHARE;
            if support * of >= cells * share {
                let next = pull_exact(
                    PulledLaw {
                        numerators,
                        largest,
                    },
                    &stage.moves,
                    stage_numerators,
                    denominator,
                    n,
                    threads,
                    spare,
                );
                keep_table(weights, spare);
                if interrupt::requested() {
                    return Err(ExactError::Interrupted);
                }
                return Ok(Weights::Exact {
                    numerators: next,
                    denominator,
                });
            }
            // A sparse one is pushed.
            let counts: Vec<usize> = ranges.iter().map(|&(support, _)| support).collect();
            let ranks = support_ranks(numerators, &counts, threads);
            let support = Support::Table {
                numerators,
                ranks: &ranks,
            };
            let next = push_stage(
                support,
                &stage.moves,
                stage_numerators,
                denominator,
                n,
                threads,
                spare,
            );
            keep_table(weights, spare);
            if interrupt::requested() {
                return Err(ExactError::Interrupted);
            }
            Ok(Weights::Exact {
                numerators: next,
                denominator,
            })
        }
        _ => {
            let probabilities = weights.probabilities();
            let stage_probabilities = stage.weights.probabilities();
            let mut next = vec![0.0f64; cells];
            for_each_in_rank_order(n, |cell, deck| {
                let p = probabilities[cell];
                if p == 0.0 || interrupt::requested() {
                    return;
                }
                for (step_move, &q) in stage.moves.iter().zip(&stage_probabilities) {
                    for (slot, &position) in composed.iter_mut().zip(step_move) {
                        *slot = deck[usize::from(position)];
                    }
                    next[rank(composed)] += p * q;
                }
            });
            if interrupt::requested() {
                return Err(ExactError::Interrupted);
            }
            Ok(Weights::Float(next))
        }
    }
}

/// Keeps the table of numerators `weights` held, if any, for the next stage to write into.
fn keep_table(weights: Weights, spare: &mut Spare) {
    if let Weights::Exact { numerators, .. } = weights {
        spare.keep(numerators);
    }
}

/// Add weight/path to `numerators[cell]` over the common denominator `common`, enlarging the
/// common denominator to lcm(common, path) when needed. None if anything would overflow 128
/// bits.
fn add_fraction(
    numerators: &mut [u128],
    common: u128,
    cell: usize,
    weight: u128,
    path: u128,
) -> Option<u128> {
    let mut common = common;
    if !common.is_multiple_of(path) {
        let enlarged = (common / gcd(common, path)).checked_mul(path)?;
        let factor = enlarged / common;
        for numerator in numerators.iter_mut() {
            *numerator = numerator.checked_mul(factor)?;
        }
        common = enlarged;
    }
    let added = (common / path).checked_mul(weight)?;
    numerators[cell] = numerators[cell].checked_add(added)?;
    Some(common)
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The uniform law on n cards, for reports that have no algorithm model: every probability
/// 1/n!, every numerator 1 over n!, each held as one value repeated ([`LawCells`]), so that the
/// 87 MB of tables at 10 cards are written only if a reader asks for them as slices.
pub fn uniform_law(n: usize) -> Law {
    let cells = factorial(n);
    Law {
        deck: n,
        probabilities: LawCells::repeated(1.0 / cells as f64, cells as usize),
        exact: Some(ExactFractions {
            numerators: LawCells::repeated(1, cells as usize),
            denominator: u128::from(cells),
        }),
        paths: 0,
        method: UNIFORM,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::algorithms::Algorithm;

    #[test]
    fn the_uniform_position_matrix_is_one_over_n_as_the_exact_fractions_sum_it() {
        // The closed form against the numerators walked ordering by ordering (integers, so
        // exact): (n − 1)! of the n! orderings put each card at each position.
        for n in 1..=8 {
            let law = uniform_law(n);
            assert!(law.is_uniform());
            let fractions = law.exact.as_ref().unwrap();
            let mut sums = vec![vec![0u128; n]; n];
            for_each_in_rank_order(n, |cell, deck| {
                for (position, &card) in deck.iter().enumerate() {
                    sums[usize::from(card)][position] += fractions.numerators[cell];
                }
            });
            let matrix = law.position_matrix();
            for (card, row) in sums.iter().enumerate() {
                for (position, &sum) in row.iter().enumerate() {
                    assert_eq!(sum * n as u128, fractions.denominator, "{n} cards");
                    assert_eq!(matrix[card][position], 1.0 / n as f64, "{n} cards");
                }
            }
            // The noncentrality is 0 without a sweep, as the sweep of the same numerators
            // under another name (not known uniform) gives it.
            let swept = Law {
                method: "walk",
                ..law.clone()
            };
            assert!(!swept.is_uniform());
            assert_eq!(law.noncentrality_per_trial(), 0.0, "{n} cards");
            assert_eq!(swept.noncentrality_per_trial(), 0.0, "{n} cards");
        }
    }

    #[test]
    fn an_exact_stage_carried_by_several_threads_gives_the_law_one_thread_gives() {
        // Naive on 8 cards (8! = 40,320 orderings, eight stages of eight moves): the numerators
        // are integers, so any split of the orderings between threads must give the same law.
        let n = 8;
        let operator = PassOperator::steps(Algorithm::Naive.into(), n, &[n; 8], None);
        let law = |threads: usize| {
            let mut weights = Weights::Exact {
                numerators: point_mass(n, 0),
                denominator: 1,
            };
            for stage in &operator.stages {
                weights =
                    push_through_split(weights, stage, n, threads, &mut Spare::default()).unwrap();
            }
            match weights {
                Weights::Exact {
                    numerators,
                    denominator,
                } => (numerators, denominator),
                Weights::Float(_) => panic!("naive on 8 cards stays exact"),
            }
        };
        let one = law(1);
        assert_eq!(one.0.iter().sum::<u128>(), one.1);
        for threads in [2, 3, 7] {
            assert_eq!(law(threads), one, "{threads} threads");
        }
    }

    #[test]
    fn the_walker_visits_every_choice_sequence_once() {
        // Fisher–Yates on 4 cards has 4·3·2 = 24 paths, one per permutation.
        let law = exact_law(Algorithm::FisherYates, 4, 1000).unwrap();
        assert_eq!(law.paths, 24);
        let exact = law.exact.unwrap();
        assert_eq!(exact.denominator, 24);
        assert!(exact.numerators.iter().all(|&k| k == 1));
    }

    #[test]
    fn naive_on_three_cards_is_four_and_five_in_twenty_seven() {
        let law = exact_law(Algorithm::Naive, 3, 1000).unwrap();
        let exact = law.exact.unwrap();
        assert_eq!(exact.denominator, 27);
        let mut numerators = exact.numerators.clone().into_vec();
        numerators.sort_unstable();
        assert_eq!(numerators, vec![4, 4, 4, 5, 5, 5]);
    }

    #[test]
    fn mixed_path_lengths_share_a_power_of_two_denominator() {
        // Insertion sort on 3 cards: paths of 2 or 3 coins. Each outcome's probability sums to 1.
        let law = exact_law(Algorithm::ComparatorInsertion, 3, 1000).unwrap();
        let exact = law.exact.unwrap();
        assert_eq!(exact.numerators.iter().sum::<u128>(), exact.denominator);
        assert!(exact.denominator.is_power_of_two());
    }

    #[test]
    fn a_walk_over_budget_is_refused_not_approximated() {
        // Insertion sort on 7 cards has 7! = 5040 paths.
        let result = exact_law(Algorithm::ComparatorInsertion, 7, 1000);
        assert!(matches!(result, Err(ExactError::TooManyPaths { .. })));
    }

    #[test]
    fn knuth_estimate_is_exact_for_a_fixed_choice_pattern() {
        assert_eq!(estimate_paths(Algorithm::Naive, 5, 10), 3125.0);
        assert_eq!(estimate_paths(Algorithm::FisherYates, 6, 10), 720.0);
    }

    #[test]
    fn fractions_are_reduced() {
        let law = exact_law(Algorithm::Naive, 4, 1000).unwrap();
        // The identity of naive n=4 has 10 of 256 paths: 5/128.
        assert_eq!(law.fraction(0).as_deref(), Some("5/128"));
    }
}
