//! The built-in shuffle algorithms, each written once against [`RandomSource`].
//!
//! [`Algorithm`] names them (the names are part of the command-line interface), documents each
//! one's exact definition, and dispatches to the single implementation that the simulation, the
//! exact engine and the tests all run.

pub mod comparator_sorts;
pub mod fisher_yates;
pub mod naive;
pub mod sattolo;

use crate::random_source::RandomSource;

/// One card; a deck is a slice of distinct cards. Card `c` starts at position `c`.
pub type Card = u16;

/// The built-in algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// Fisher–Yates, downwards (exactly uniform).
    FisherYates,
    /// Fisher–Yates, upwards (exactly uniform).
    FisherYatesForward,
    /// Swap every card with any card (biased).
    Naive,
    /// Sattolo's algorithm: only single-cycle orderings (biased).
    Sattolo,
    /// Insertion sort with a coin-flip comparator (biased).
    ComparatorInsertion,
    /// Top-down merge sort with a coin-flip comparator (biased).
    ComparatorMerge,
    /// Lomuto quicksort with a coin-flip comparator (biased).
    ComparatorQuick,
    /// The short-array TimSort path of JavaScript engines with a coin-flip comparator (biased).
    ComparatorTimsort,
}

impl Algorithm {
    /// Every built-in algorithm, in the order `list` shows them.
    pub const ALL: [Algorithm; 8] = [
        Algorithm::FisherYates,
        Algorithm::FisherYatesForward,
        Algorithm::Naive,
        Algorithm::Sattolo,
        Algorithm::ComparatorInsertion,
        Algorithm::ComparatorMerge,
        Algorithm::ComparatorQuick,
        Algorithm::ComparatorTimsort,
    ];

    /// The name used on the command line and in every report.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::FisherYates => "fisher-yates",
            Algorithm::FisherYatesForward => "fisher-yates-forward",
            Algorithm::Naive => "naive",
            Algorithm::Sattolo => "sattolo",
            Algorithm::ComparatorInsertion => "comparator-insertion",
            Algorithm::ComparatorMerge => "comparator-merge",
            Algorithm::ComparatorQuick => "comparator-quick",
            Algorithm::ComparatorTimsort => "comparator-timsort",
        }
    }

    /// The exact definition, in one line.
    pub fn definition(self) -> &'static str {
        match self {
            Algorithm::FisherYates => "for i from n-1 down to 1: j uniform in [0, i]; swap i, j",
            Algorithm::FisherYatesForward => {
                "for i from 0 to n-2: j uniform in [i, n-1]; swap i, j"
            }
            Algorithm::Naive => "for i from 0 to n-1: j uniform in [0, n-1]; swap i, j",
            Algorithm::Sattolo => "for i from n-1 down to 1: j uniform in [0, i-1]; swap i, j",
            Algorithm::ComparatorInsertion => {
                "straight insertion sort; every comparison an independent fair coin"
            }
            Algorithm::ComparatorMerge => {
                "top-down merge sort (left half = first floor(n/2)); every comparison a fair coin"
            }
            Algorithm::ComparatorQuick => {
                "quicksort, Lomuto partition, last element as pivot; every comparison a fair coin"
            }
            Algorithm::ComparatorTimsort => {
                "JS-engine TimSort short path: first run (descending reversed), then binary \
                 insertion; every comparison a fair coin"
            }
        }
    }

    /// Whether the algorithm is meant to produce every ordering with probability 1/n!.
    pub fn meant_uniform(self) -> bool {
        matches!(self, Algorithm::FisherYates | Algorithm::FisherYatesForward)
    }

    /// Whether the algorithm makes the same sequence of choices (same bounds) on every run and
    /// each choice moves cards by position only, whatever the cards are: true of the swap
    /// shuffles, false of the comparator sorts (whose comparisons depend on earlier answers).
    /// The exact engine then propagates the law one choice at a time instead of walking every
    /// path; `tests/exact_laws.rs` checks both methods agree for every such algorithm.
    pub fn choices_act_on_positions(self) -> bool {
        matches!(
            self,
            Algorithm::FisherYates
                | Algorithm::FisherYatesForward
                | Algorithm::Naive
                | Algorithm::Sattolo
        )
    }

    /// Shuffle `deck` in place. `scratch` is working space at least as long as `deck` (only the
    /// merge sort uses it; the caller owns it so that no shuffle allocates).
    #[inline(always)]
    pub fn shuffle<R: RandomSource>(self, deck: &mut [Card], scratch: &mut [Card], rng: &mut R) {
        match self {
            Algorithm::FisherYates => fisher_yates::fisher_yates(deck, rng),
            Algorithm::FisherYatesForward => fisher_yates::fisher_yates_forward(deck, rng),
            Algorithm::Naive => naive::naive(deck, rng),
            Algorithm::Sattolo => sattolo::sattolo(deck, rng),
            Algorithm::ComparatorInsertion => comparator_sorts::insertion(deck, rng),
            Algorithm::ComparatorMerge => comparator_sorts::merge(deck, scratch, rng),
            Algorithm::ComparatorQuick => comparator_sorts::quick(deck, rng),
            Algorithm::ComparatorTimsort => comparator_sorts::timsort(deck, rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random_source::ScriptedSource;

    fn run(algorithm: Algorithm, n: usize, script: Vec<usize>) -> (Vec<Card>, usize) {
        let mut deck: Vec<Card> = (0..n as Card).collect();
        let mut scratch = vec![0; n];
        let mut source = ScriptedSource::new(script);
        algorithm.shuffle(&mut deck, &mut scratch, &mut source);
        (deck, source.used())
    }

    #[test]
    fn fisher_yates_choosing_zero_every_time_rotates_the_deck_left() {
        // i=3 swaps 3,0 → 3 1 2 0; i=2 swaps 2,0 → 2 1 3 0; i=1 swaps 1,0 → 1 2 3 0.
        assert_eq!(
            run(Algorithm::FisherYates, 4, vec![0, 0, 0]),
            (vec![1, 2, 3, 0], 3)
        );
    }

    #[test]
    fn fisher_yates_forward_choosing_the_offset_zero_keeps_the_deck() {
        assert_eq!(
            run(Algorithm::FisherYatesForward, 4, vec![0, 0, 0]),
            (vec![0, 1, 2, 3], 3)
        );
    }

    #[test]
    fn naive_makes_n_choices_of_n_positions() {
        // swap(0,3) → 3 1 2 0; swap(1,3) → 3 0 2 1; swap(2,0) → 2 0 3 1; swap(3,3).
        assert_eq!(
            run(Algorithm::Naive, 4, vec![3, 3, 0, 3]),
            (vec![2, 0, 3, 1], 4)
        );
    }

    #[test]
    fn sattolo_never_leaves_a_card_in_place_on_the_always_zero_path() {
        assert_eq!(
            run(Algorithm::Sattolo, 4, vec![0, 0, 0]),
            (vec![1, 2, 3, 0], 3)
        );
    }

    #[test]
    fn insertion_sort_with_an_always_less_comparator_reverses_the_deck() {
        // Card i moves all the way left: 1+2+3 comparisons, no "not less" answer needed.
        assert_eq!(
            run(Algorithm::ComparatorInsertion, 4, vec![1; 6]),
            (vec![3, 2, 1, 0], 6)
        );
        // "Never less": one comparison per card, nothing moves.
        assert_eq!(
            run(Algorithm::ComparatorInsertion, 4, vec![0; 3]),
            (vec![0, 1, 2, 3], 3)
        );
    }

    #[test]
    fn merge_sort_with_an_always_less_comparator_reverses_halves_recursively() {
        // n=4: sort [0,1] → right less → [1,0]; sort [2,3] → [3,2]; merge [1,0] with [3,2]:
        // right heads always taken → 3 2 then left rest 1 0.
        assert_eq!(
            run(Algorithm::ComparatorMerge, 4, vec![1; 4]),
            (vec![3, 2, 1, 0], 4)
        );
        // Never less: every merge takes the left head; n=4 uses 1 + 1 + 2 comparisons.
        assert_eq!(
            run(Algorithm::ComparatorMerge, 4, vec![0; 4]),
            (vec![0, 1, 2, 3], 4)
        );
    }

    #[test]
    fn quicksort_with_a_never_less_comparator_keeps_pivots_at_the_front() {
        // Pivot 3 vs 0,1,2: none less → store 0, swap(0,3) → 3 1 2 0; recurse right [1 2 0]:
        // pivot 0 vs 1,2: none less → swap → 0 2 1; recurse right [2 1]: pivot 1 vs 2 → swap.
        assert_eq!(
            run(Algorithm::ComparatorQuick, 4, vec![0; 6]),
            (vec![3, 0, 1, 2], 6)
        );
    }

    #[test]
    fn timsort_reverses_a_strictly_descending_first_run() {
        // Every comparison "less": the whole deck is one descending run, reversed.
        assert_eq!(
            run(Algorithm::ComparatorTimsort, 4, vec![1; 3]),
            (vec![3, 2, 1, 0], 3)
        );
        // Run of 2 ascending, then card 2 "less" breaks it (coin 1 ≠ ascending).
        // Binary insertion of 2 into [0 1]: mid=1, less → right=1; mid=0, not less → left=1.
        // → 0 2 1; then card 3 into [0 2 1]: mid=1 not less → left=2; mid=2 not less → 3.
        assert_eq!(
            run(Algorithm::ComparatorTimsort, 4, vec![0, 1, 1, 0, 0, 0]),
            (vec![0, 2, 1, 3], 6)
        );
    }
}
