//! The exact engine: the true law of an algorithm, computed by running the algorithm's own code
//! once for every possible sequence of random choices.
//!
//! [`PathWalker`] is a [`RandomSource`] that answers `below(k)` and `coin()` from a recorded path
//! of choices and extends the path with 0 whenever the algorithm asks for more; after each run the
//! path is advanced like an odometer (the last choice that can grow grows, later ones are
//! dropped). Every choice sequence is visited exactly once, each weighted by Π 1/kᵢ over its
//! choices. There is no second copy of any algorithm: theory and simulation run the same code.
//!
//! Probabilities are kept as exact integers over a common denominator (the least common multiple
//! of the paths' Π kᵢ: n! for Fisher–Yates, n^n for the naive shuffle, a power of two for the
//! comparator sorts), with a compensated f64 sum alongside for the case where that denominator
//! would not fit in 128 bits. The number of paths is estimated before the walk (Knuth 1975,
//! "Estimating the efficiency of backtrack programs": the mean of Π kᵢ over random root-to-leaf
//! walks is an unbiased estimate of the number of leaves), and a walk that would exceed the
//! budget is refused up front, never approximated.

use rand_chacha::ChaCha8Rng;

use crate::algorithms::{Algorithm, Card};
use crate::permutation::{factorial, for_each_in_rank_order, rank};
use crate::random_source::{BlockRng, FastSource, RandomSource, ScriptedSource};

/// The largest deck whose exact law is computed (10! probabilities with exact numerators take
/// about 90 MB; 11! would take about 1 GB).
pub const MAX_EXACT_DECK: usize = 10;

/// The default budget of choice paths (`--max-paths`).
pub const DEFAULT_MAX_PATHS: u64 = 100_000_000;

/// The exact law of one algorithm on one deck size.
#[derive(Debug, Clone)]
pub struct Law {
    /// Number of cards.
    pub deck: usize,
    /// `probabilities[rank]`: the probability of the permutation of that rank.
    pub probabilities: Vec<f64>,
    /// The same probabilities as exact fractions, when the common denominator fits in 128 bits.
    pub exact: Option<ExactFractions>,
    /// How many choice sequences the law accounts for.
    pub paths: u64,
    /// How it was computed: `path-walk` or `step-propagation`.
    pub method: &'static str,
}

/// Probabilities as integers over one common denominator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExactFractions {
    /// `numerators[rank]`, summing to `denominator`.
    pub numerators: Vec<u128>,
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

/// Why an exact law could not be computed.
#[derive(Debug, Clone, PartialEq)]
pub enum ExactError {
    /// The walk would visit more choice paths than the budget allows.
    TooManyPaths {
        /// Estimated (or, once exceeded, at least this many) paths.
        estimated: f64,
        /// The budget (`--max-paths`).
        budget: u64,
    },
    /// The deck is larger than [`MAX_EXACT_DECK`].
    DeckTooLarge(usize),
}

impl std::fmt::Display for ExactError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExactError::TooManyPaths { estimated, budget } => write!(
                f,
                "the exact law needs about {estimated:.3e} choice paths, more than the budget of \
                 {budget} (raise it with --max-paths)"
            ),
            ExactError::DeckTooLarge(n) => write!(
                f,
                "exact laws are computed up to {MAX_EXACT_DECK} cards, not {n}"
            ),
        }
    }
}

/// A random source that walks every choice sequence in turn (see the module documentation).
#[derive(Debug, Default)]
pub struct PathWalker {
    /// The current path: (choice, bound) pairs.
    path: Vec<(u32, u32)>,
    /// How many choices of the path the current run has consumed.
    position: usize,
}

impl PathWalker {
    /// Π bounds of the current path (its probability is the reciprocal), or None on overflow.
    fn weight_denominator(&self) -> Option<u128> {
        self.path
            .iter()
            .try_fold(1u128, |acc, &(_, bound)| acc.checked_mul(u128::from(bound)))
    }

    /// Move to the next path; false when every path has been walked.
    fn advance(&mut self) -> bool {
        self.path.truncate(self.position);
        self.position = 0;
        while let Some(last) = self.path.last_mut() {
            if last.0 + 1 < last.1 {
                last.0 += 1;
                return true;
            }
            self.path.pop();
        }
        false
    }
}

impl RandomSource for PathWalker {
    fn below(&mut self, bound: usize) -> usize {
        let bound = bound as u32;
        let choice = match self.path.get(self.position) {
            Some(&(choice, recorded)) => {
                debug_assert_eq!(recorded, bound, "the algorithm is not deterministic");
                choice
            }
            None => {
                self.path.push((0, bound));
                0
            }
        };
        self.position += 1;
        choice as usize
    }

    fn coin(&mut self) -> bool {
        self.below(2) == 1
    }
}

/// A random source that records Π bounds along one random path (for Knuth's estimate).
struct ProbeSource<R> {
    inner: FastSource<R>,
    leaves: f64,
}

impl<R: rand_core::Rng> RandomSource for ProbeSource<R> {
    fn below(&mut self, bound: usize) -> usize {
        self.leaves *= bound as f64;
        self.inner.below(bound)
    }
    fn coin(&mut self) -> bool {
        self.leaves *= 2.0;
        self.inner.coin()
    }
}

/// Knuth's unbiased estimate of the number of choice paths, from `probes` random walks.
pub fn estimate_paths(algorithm: Algorithm, n: usize, probes: u32) -> f64 {
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
        algorithm.shuffle(&mut deck, &mut scratch, &mut source);
        total += source.leaves;
    }
    total / f64::from(probes)
}

/// The exact law of `algorithm` on `n` cards (n ≤ MAX_EXACT_DECK), walking at most `max_paths` paths.
pub fn exact_law(algorithm: Algorithm, n: usize, max_paths: u64) -> Result<Law, ExactError> {
    if n > MAX_EXACT_DECK {
        return Err(ExactError::DeckTooLarge(n));
    }
    let estimated = estimate_paths(algorithm, n, 256);
    if algorithm.choices_act_on_positions() {
        let (bounds, _) = first_path(algorithm, n);
        let propagation_work = factorial(n) as f64 * bounds.iter().sum::<usize>() as f64;
        if propagation_work < estimated * n as f64 {
            return Ok(propagate_steps(algorithm, n, &bounds));
        }
    }
    walk_paths(algorithm, n, max_paths, estimated)
}

/// The exact law by walking every choice path (at most `max_paths`; `estimated` is Knuth's
/// estimate of their number, used to refuse a walk that could not finish).
pub fn walk_paths(
    algorithm: Algorithm,
    n: usize,
    max_paths: u64,
    estimated: f64,
) -> Result<Law, ExactError> {
    if estimated > max_paths as f64 * 1.5 {
        return Err(ExactError::TooManyPaths {
            estimated,
            budget: max_paths,
        });
    }
    let cells = factorial(n) as usize;
    let mut numerators = vec![0u128; cells];
    let mut denominator: Option<u128> = Some(1);
    // Neumaier-compensated f64 sums, used if the common denominator overflows.
    let mut sums = vec![(0.0f64, 0.0f64); cells];

    let mut walker = PathWalker::default();
    let identity: Vec<Card> = (0..n as Card).collect();
    let mut deck = identity.clone();
    let mut scratch = identity.clone();
    let mut paths = 0u64;
    loop {
        deck.copy_from_slice(&identity);
        algorithm.shuffle(&mut deck, &mut scratch, &mut walker);
        paths += 1;
        if paths > max_paths {
            return Err(ExactError::TooManyPaths {
                estimated: estimated.max(paths as f64),
                budget: max_paths,
            });
        }
        let cell = rank(&deck);
        let path_denominator = walker.weight_denominator();
        let weight = path_denominator.map_or(0.0, |d| 1.0 / d as f64);
        neumaier_add(&mut sums[cell], weight);
        denominator = match (denominator, path_denominator) {
            (Some(common), Some(d)) => add_fraction(&mut numerators, common, cell, d),
            _ => None,
        };
        if !walker.advance() {
            break;
        }
    }

    let exact = denominator.map(|denominator| ExactFractions {
        numerators,
        denominator,
    });
    let probabilities = match &exact {
        Some(fractions) => fractions
            .numerators
            .iter()
            .map(|&num| num as f64 / fractions.denominator as f64)
            .collect(),
        None => sums.iter().map(|(sum, carry)| sum + carry).collect(),
    };
    Ok(Law {
        deck: n,
        probabilities,
        exact,
        paths,
        method: "path-walk",
    })
}

/// The bounds of the all-zero path and the deck it produces.
pub fn first_path(algorithm: Algorithm, n: usize) -> (Vec<usize>, Vec<Card>) {
    let mut walker = PathWalker::default();
    let mut deck: Vec<Card> = (0..n as Card).collect();
    let mut scratch = deck.clone();
    algorithm.shuffle(&mut deck, &mut scratch, &mut walker);
    let bounds = walker
        .path
        .iter()
        .map(|&(_, bound)| bound as usize)
        .collect();
    (bounds, deck)
}

/// The deck after running `algorithm` with exactly the choices `script`.
fn run_script(algorithm: Algorithm, n: usize, script: Vec<usize>) -> Vec<Card> {
    let mut deck: Vec<Card> = (0..n as Card).collect();
    let mut scratch = deck.clone();
    algorithm.shuffle(&mut deck, &mut scratch, &mut ScriptedSource::new(script));
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

/// The exact law of an algorithm whose choices act on positions
/// ([`Algorithm::choices_act_on_positions`]), one choice at a time, by running its own code.
///
/// Let D(c) be the deck produced by the choices c, Z = D(0, …, 0) and G_i the deck produced by
/// the first i choices followed by zeros. Because every choice moves cards by position only,
/// running the remaining steps from any deck x gives x ∘ T for a position permutation T that
/// depends only on the remaining choices; it follows that G_i = G_{i−1} ∘ M_i(c_i) with
/// M_i(c) = Z⁻¹ ∘ D(0, …, c at step i, …, 0), the same for every earlier choice. So the law is
/// that of Z ∘ M_1(c_1) ∘ … ∘ M_k(c_k) with independent uniform c_i: k·b + 1 runs of the
/// algorithm and a sweep over n! orderings per choice, instead of Π b_i paths (9^9 for naive at
/// 9 cards). All paths being equally likely, the numerators are path counts over Π b_i.
pub fn propagate_steps(algorithm: Algorithm, n: usize, bounds: &[usize]) -> Law {
    let cells = factorial(n) as usize;
    let zero = run_script(algorithm, n, vec![0; bounds.len()]);
    let zero_inverse = inverse(&zero);
    let mut counts = vec![0u128; cells];
    counts[rank(&zero)] = 1;
    let mut next = vec![0u128; cells];
    for (step, &bound) in bounds.iter().enumerate() {
        let moves: Vec<Vec<Card>> = (0..bound)
            .map(|choice| {
                let mut script = vec![0; bounds.len()];
                script[step] = choice;
                compose(&zero_inverse, &run_script(algorithm, n, script))
            })
            .collect();
        next.iter_mut().for_each(|c| *c = 0);
        for_each_in_rank_order(n, |cell, deck| {
            let count = counts[cell];
            if count > 0 {
                for step_move in &moves {
                    next[rank(&compose(deck, step_move))] += count;
                }
            }
        });
        std::mem::swap(&mut counts, &mut next);
    }
    let denominator: u128 = bounds.iter().map(|&b| b as u128).product();
    Law {
        deck: n,
        probabilities: counts
            .iter()
            .map(|&c| c as f64 / denominator as f64)
            .collect(),
        exact: Some(ExactFractions {
            numerators: counts,
            denominator,
        }),
        paths: denominator as u64,
        method: "step-propagation",
    }
}

/// Add 1/`path` to `numerators[cell]` over the common denominator `common`, enlarging the common
/// denominator to lcm(common, path) when needed. None if anything would overflow 128 bits.
fn add_fraction(numerators: &mut [u128], common: u128, cell: usize, path: u128) -> Option<u128> {
    let mut common = common;
    if !common.is_multiple_of(path) {
        let enlarged = (common / gcd(common, path)).checked_mul(path)?;
        let factor = enlarged / common;
        for numerator in numerators.iter_mut() {
            *numerator = numerator.checked_mul(factor)?;
        }
        common = enlarged;
    }
    numerators[cell] = numerators[cell].checked_add(common / path)?;
    Some(common)
}

fn neumaier_add(sum: &mut (f64, f64), value: f64) {
    let t = sum.0 + value;
    if sum.0.abs() >= value.abs() {
        sum.1 += (sum.0 - t) + value;
    } else {
        sum.1 += (value - t) + sum.0;
    }
    sum.0 = t;
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The uniform law on n cards, for reports that have no algorithm model.
pub fn uniform_law(n: usize) -> Law {
    let cells = factorial(n);
    Law {
        deck: n,
        probabilities: vec![1.0 / cells as f64; cells as usize],
        exact: Some(ExactFractions {
            numerators: vec![1; cells as usize],
            denominator: u128::from(cells),
        }),
        paths: 0,
        method: "uniform",
    }
}

impl Law {
    /// How many permutations have non-zero probability.
    pub fn support_size(&self) -> usize {
        self.probabilities.iter().filter(|&&p| p > 0.0).count()
    }

    /// The position matrix: `[card][position]` = P(card ends at position).
    pub fn position_matrix(&self) -> Vec<Vec<f64>> {
        let n = self.deck;
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
    pub fn noncentrality_per_trial(&self) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut numerators = exact.numerators.clone();
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
