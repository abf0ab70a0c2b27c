//! The built-in shuffle algorithms, each written once against [`RandomSource`].
//!
//! [`Algorithm`] names them (the names are part of the command-line interface) and documents each
//! one's exact definition; [`Shuffle`] is an algorithm as it is run — how many passes, and the
//! overhand shuffle's cut probability — and dispatches to the single implementation that the
//! simulation, the exact engine and the tests all run.

pub mod comparator_sorts;
pub mod fisher_yates;
pub mod naive;
pub mod overhand;
pub mod riffle;
pub mod sattolo;
pub mod shelf;
pub mod unshuffled;
pub mod zend_sort;

pub use overhand::CutProbability;
pub use shelf::{DEFAULT_SHELVES, MAX_SHELVES};

use crate::engine::random_source::RandomSource;

/// One card; a deck is a slice of distinct cards. Card `c` starts at position `c`.
pub type Card = u16;

/// The built-in algorithms.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// Fisher–Yates, downwards (exactly uniform).
    FisherYates,
    /// Fisher–Yates, upwards (exactly uniform).
    FisherYatesForward,
    /// Inside-out Fisher–Yates, as Go's `rand.Perm` (exactly uniform).
    InsideOut,
    /// Swap every card with any card (biased).
    Naive,
    /// Swap every card with any card but the last (biased: the last card never ends last).
    NaiveOffByOne,
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
    /// PHP 7's `usort` (zend_sort) with `rand(-1, 1)` as comparator (biased).
    ZendSort,
    /// PHP 7's `usort` (zend_sort) with `rand(0, 1)` as comparator (biased).
    ZendSortCoin,
    /// PHP 8's stable `usort` (zend_sort) with `rand(-1, 1)` as comparator (biased).
    ZendSortStable,
    /// The Gilbert–Shannon–Reeds riffle: binomial cut, cards dropped in proportion to the
    /// packets (a physical shuffle; biased for one pass).
    Riffle,
    /// Pemantle's overhand shuffle: cut at each gap with probability p, packets restacked in
    /// reverse order (a physical shuffle; biased, mixes slowly).
    Overhand,
    /// The casino shelf shuffler of Diaconis, Fulman & Holmes: each card from the bottom to a
    /// random shelf, on top of or under its pile (a machine; biased for one pass).
    Shelf,
    /// No shuffle at all: SQL Server's `ORDER BY RAND()` (the identity, always).
    Unshuffled,
}

impl Algorithm {
    /// Every built-in algorithm, in the order `list` shows them.
    pub const ALL: [Algorithm; 17] = [
        Algorithm::FisherYates,
        Algorithm::FisherYatesForward,
        Algorithm::InsideOut,
        Algorithm::Naive,
        Algorithm::NaiveOffByOne,
        Algorithm::Sattolo,
        Algorithm::ComparatorInsertion,
        Algorithm::ComparatorMerge,
        Algorithm::ComparatorQuick,
        Algorithm::ComparatorTimsort,
        Algorithm::ZendSort,
        Algorithm::ZendSortCoin,
        Algorithm::ZendSortStable,
        Algorithm::Riffle,
        Algorithm::Overhand,
        Algorithm::Shelf,
        Algorithm::Unshuffled,
    ];

    /// The name used on the command line and in every report.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::FisherYates => "fisher-yates",
            Algorithm::FisherYatesForward => "fisher-yates-forward",
            Algorithm::InsideOut => "inside-out",
            Algorithm::Naive => "naive",
            Algorithm::NaiveOffByOne => "naive-off-by-one",
            Algorithm::Sattolo => "sattolo",
            Algorithm::ComparatorInsertion => "comparator-insertion",
            Algorithm::ComparatorMerge => "comparator-merge",
            Algorithm::ComparatorQuick => "comparator-quick",
            Algorithm::ComparatorTimsort => "comparator-timsort",
            Algorithm::ZendSort => "zend-sort",
            Algorithm::ZendSortCoin => "zend-sort-coin",
            Algorithm::ZendSortStable => "zend-sort-stable",
            Algorithm::Riffle => "riffle",
            Algorithm::Overhand => "overhand",
            Algorithm::Shelf => "shelf",
            Algorithm::Unshuffled => "unshuffled",
        }
    }

    /// The exact definition, in one line.
    pub fn definition(self) -> &'static str {
        match self {
            Algorithm::FisherYates => "for i from n-1 down to 1: j uniform in [0, i]; swap i, j",
            Algorithm::FisherYatesForward => {
                "for i from 0 to n-2: j uniform in [i, n-1]; swap i, j"
            }
            Algorithm::InsideOut => {
                "for i from 0 to n-1: j uniform in [0, i] (drawn for i = 0 too); m[i] = m[j], \
                 m[j] = the card at i (Go's rand.Perm)"
            }
            Algorithm::Naive => "for i from 0 to n-1: j uniform in [0, n-1]; swap i, j",
            Algorithm::NaiveOffByOne => {
                "for i from 0 to n-1: j uniform in [0, n-2]; swap i, j (Arkin et al. 1999)"
            }
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
            Algorithm::ZendSort => {
                "PHP 7 usort (zend_sort: insertion up to 16, else quicksort), comparator \
                 rand(-1, 1); swaps on 1"
            }
            Algorithm::ZendSortCoin => {
                "PHP 7 usort (zend_sort: insertion up to 16, else quicksort), comparator \
                 rand(0, 1); swaps on 1"
            }
            Algorithm::ZendSortStable => {
                "PHP 8 usort (zend_sort, stable), comparator rand(-1, 1); a 0 falls back on the \
                 original order"
            }
            Algorithm::Riffle => {
                "GSR riffle (Gilbert 1955, Reeds 1981, Bayer & Diaconis 1992): cut after k cards, \
                 k = heads of n fair coins; while both packets hold cards (a, b), drop the bottom \
                 card of the top packet with probability a/(a+b), else of the bottom one"
            }
            Algorithm::Overhand => {
                "overhand (Pemantle 1989, Jonasson 2006): each of the n-1 gaps is a cut with \
                 probability p (--cut-probability, default 0.5); the packets are restacked in \
                 reverse order, each keeping its own order"
            }
            Algorithm::Shelf => {
                "shelf shuffler (Diaconis, Fulman & Holmes 2013): from the bottom of the deck up, \
                 each card goes to one of m shelves chosen uniformly (--shelves, default 10), on \
                 top of or under that shelf's pile with probability 1/2; the piles are stacked in \
                 shelf order"
            }
            Algorithm::Unshuffled => {
                "the deck unchanged, nothing drawn (SQL Server's ORDER BY RAND(): one key for \
                 every row)"
            }
        }
    }

    /// Whether the algorithm is meant to produce every ordering with probability 1/n!.
    pub fn meant_uniform(self) -> bool {
        matches!(
            self,
            Algorithm::FisherYates | Algorithm::FisherYatesForward | Algorithm::InsideOut
        )
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
                | Algorithm::InsideOut
                | Algorithm::Naive
                | Algorithm::NaiveOffByOne
                | Algorithm::Sattolo
                | Algorithm::Unshuffled
        )
    }

    /// Shuffle `deck` in place with one pass (the overhand shuffle at its default cut
    /// probability, the shelf shuffler with its default shelves).
    #[inline(always)]
    pub fn shuffle<R: RandomSource>(self, deck: &mut [Card], scratch: &mut [Card], rng: &mut R) {
        self.shuffle_with(
            CutProbability::default(),
            DEFAULT_SHELVES,
            deck,
            scratch,
            rng,
        );
    }

    /// Shuffle `deck` in place with one pass, the overhand shuffle cutting with probability
    /// `cut` and the shelf shuffler using `shelves` shelves (the others ignore both). `scratch`
    /// is working space at least as long as `deck` (the caller owns it so that no shuffle
    /// allocates).
    #[inline(always)]
    pub fn shuffle_with<R: RandomSource>(
        self,
        cut: CutProbability,
        shelves: u16,
        deck: &mut [Card],
        scratch: &mut [Card],
        rng: &mut R,
    ) {
        match self {
            Algorithm::FisherYates => fisher_yates::fisher_yates(deck, rng),
            Algorithm::FisherYatesForward => fisher_yates::fisher_yates_forward(deck, rng),
            Algorithm::InsideOut => fisher_yates::inside_out(deck, rng),
            Algorithm::Naive => naive::naive(deck, rng),
            Algorithm::NaiveOffByOne => naive::naive_off_by_one(deck, rng),
            Algorithm::Sattolo => sattolo::sattolo(deck, rng),
            Algorithm::ComparatorInsertion => comparator_sorts::insertion(deck, rng),
            Algorithm::ComparatorMerge => comparator_sorts::merge(deck, scratch, rng),
            Algorithm::ComparatorQuick => comparator_sorts::quick(deck, rng),
            Algorithm::ComparatorTimsort => comparator_sorts::timsort(deck, rng),
            Algorithm::ZendSort => zend_sort::zend_sort(deck, rng),
            Algorithm::ZendSortCoin => zend_sort::zend_sort_coin(deck, rng),
            Algorithm::ZendSortStable => zend_sort::zend_sort_stable(deck, scratch, rng),
            Algorithm::Riffle => riffle::riffle(deck, scratch, rng),
            Algorithm::Overhand => overhand::overhand(deck, scratch, cut, rng),
            Algorithm::Shelf => shelf::shelf(deck, scratch, shelves, rng),
            Algorithm::Unshuffled => unshuffled::unshuffled(deck, rng),
        }
    }
}

/// A shuffle as the commands run it: `algorithm` applied `passes` times to the same deck (the
/// second pass shuffles the deck the first one produced), the overhand shuffle cutting with
/// probability `cut_probability` and the shelf shuffler using `shelves` shelves (the other
/// algorithms ignore both).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shuffle {
    /// The algorithm of each pass.
    pub algorithm: Algorithm,
    /// How many times it is applied, at least 1 (`--passes`).
    pub passes: u32,
    /// The overhand shuffle's cut probability (`--cut-probability`).
    pub cut_probability: CutProbability,
    /// The shelf shuffler's number of shelves (`--shelves`), 1 to `MAX_SHELVES` (10,000).
    pub shelves: u16,
}

/// How reports name a shuffle: the algorithm's name, then its cut probability or shelves if it
/// has them and its passes if more than one: `naive`, `riffle · 3 passes`,
/// `overhand · cut probability 0.25 · 10 passes`, `shelf · 10 shelves`.
pub fn shuffle_label(
    name: &str,
    cut_probability: Option<CutProbability>,
    shelves: Option<u16>,
    passes: u32,
) -> String {
    let mut label = name.to_string();
    if let Some(p) = cut_probability {
        label.push_str(&format!(" · cut probability {p}"));
    }
    if let Some(m) = shelves {
        label.push_str(&format!(" · {m} shel{}", if m == 1 { "f" } else { "ves" }));
    }
    if passes != 1 {
        label.push_str(&format!(" · {passes} passes"));
    }
    label
}

/// One pass of the algorithm, at the default cut probability.
impl From<Algorithm> for Shuffle {
    fn from(algorithm: Algorithm) -> Self {
        Shuffle::once(algorithm)
    }
}

impl Shuffle {
    /// One pass of `algorithm`, at the default cut probability.
    pub fn once(algorithm: Algorithm) -> Self {
        Shuffle {
            algorithm,
            passes: 1,
            cut_probability: CutProbability::default(),
            shelves: DEFAULT_SHELVES,
        }
    }

    /// The same shuffle applied `passes` times.
    pub fn with_passes(self, passes: u32) -> Self {
        Shuffle { passes, ..self }
    }

    /// The cut probability if the algorithm uses one (the overhand shuffle), else None.
    pub fn cut_probability_used(self) -> Option<CutProbability> {
        (self.algorithm == Algorithm::Overhand).then_some(self.cut_probability)
    }

    /// The same shuffle with `shelves` shelves (used by the shelf shuffler only).
    pub fn with_shelves(self, shelves: u16) -> Self {
        Shuffle { shelves, ..self }
    }

    /// The number of shelves if the algorithm uses them (the shelf shuffler), else None.
    pub fn shelves_used(self) -> Option<u16> {
        (self.algorithm == Algorithm::Shelf).then_some(self.shelves)
    }

    /// The name with whatever differs from one plain pass, as report headers show it:
    /// `naive`, `riffle · 3 passes`, `overhand · cut probability 0.25 · 10 passes`.
    pub fn label(self) -> String {
        shuffle_label(
            self.algorithm.name(),
            self.cut_probability_used(),
            self.shelves_used(),
            self.passes,
        )
    }

    /// Shuffle `deck` in place: `passes` passes of the algorithm. `scratch` is working space at
    /// least as long as `deck` (the caller owns it so that no shuffle allocates).
    #[inline(always)]
    pub fn apply<R: RandomSource>(&self, deck: &mut [Card], scratch: &mut [Card], rng: &mut R) {
        for _ in 0..self.passes {
            self.apply_once(deck, scratch, rng);
        }
    }

    /// One pass of the algorithm, whatever `passes` says.
    #[inline(always)]
    pub fn apply_once<R: RandomSource>(
        &self,
        deck: &mut [Card],
        scratch: &mut [Card],
        rng: &mut R,
    ) {
        self.algorithm
            .shuffle_with(self.cut_probability, self.shelves, deck, scratch, rng);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::random_source::ScriptedSource;

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
    fn riffle_cuts_at_the_number_of_heads_and_drops_from_the_packet_the_answers_name() {
        // Coins 1 1 0 0: the top packet is 0 1, the bottom one 2 3. Drops from the bottom of
        // the new deck up: below(4) = 0 < 2 → top packet's 1; below(3) = 2 ≥ 1 → bottom
        // packet's 3; below(2) = 0 < 1 → top packet's 0; the bottom packet's 2 lands on top.
        assert_eq!(
            run(Algorithm::Riffle, 4, vec![1, 1, 0, 0, 0, 2, 0]),
            (vec![2, 0, 3, 1], 7)
        );
    }

    #[test]
    fn riffle_with_an_empty_packet_keeps_the_deck_and_draws_only_the_coins() {
        assert_eq!(run(Algorithm::Riffle, 5, vec![0; 5]), ((0..5).collect(), 5));
        assert_eq!(run(Algorithm::Riffle, 5, vec![1; 5]), ((0..5).collect(), 5));
    }

    #[test]
    fn riffle_always_dropping_from_the_bottom_packet_first_puts_it_under_the_top_packet() {
        // Cut 3 | 3; every answer ≥ a drops the bottom packet's cards, which therefore end at
        // the bottom of the new deck in their order: the deck comes back unchanged.
        assert_eq!(
            run(Algorithm::Riffle, 6, vec![1, 0, 1, 0, 1, 0, 5, 4, 3]),
            ((0..6).collect(), 9)
        );
    }

    #[test]
    fn overhand_restacks_the_packets_in_reverse_order_keeping_each_in_order() {
        // p = 1/2 draws below(2) < 1: answer 0 cuts. Cuts after positions 0 and 2:
        // packets (0)(1 2)(3 4) → (3 4)(1 2)(0).
        assert_eq!(
            run(Algorithm::Overhand, 5, vec![0, 1, 0, 1]),
            (vec![3, 4, 1, 2, 0], 4)
        );
        // Every gap cut: the deck turned over; no gap cut: unchanged.
        assert_eq!(
            run(Algorithm::Overhand, 5, vec![0; 4]),
            (vec![4, 3, 2, 1, 0], 4)
        );
        assert_eq!(
            run(Algorithm::Overhand, 5, vec![1; 4]),
            ((0..5).collect(), 4)
        );
    }

    #[test]
    fn overhand_draws_its_cut_probability_as_below_the_denominator() {
        // p = 3/10: a gap is cut when below(10) < 3.
        let shuffle = Shuffle {
            cut_probability: CutProbability::new(3, 10).unwrap(),
            ..Shuffle::once(Algorithm::Overhand)
        };
        let mut deck: Vec<Card> = (0..4).collect();
        let mut scratch = vec![0; 4];
        let mut source = ScriptedSource::new(vec![2, 3, 9]);
        shuffle.apply(&mut deck, &mut scratch, &mut source);
        // Only the first gap is cut: (0)(1 2 3) → (1 2 3)(0).
        assert_eq!(deck, vec![1, 2, 3, 0]);
    }

    #[test]
    fn passes_apply_the_algorithm_again_to_the_deck_the_last_pass_produced() {
        // Two overhand passes that cut every gap turn the deck over twice.
        let shuffle = Shuffle::once(Algorithm::Overhand).with_passes(2);
        let mut deck: Vec<Card> = (0..5).collect();
        let mut scratch = vec![0; 5];
        let mut source = ScriptedSource::new(vec![0; 8]);
        shuffle.apply(&mut deck, &mut scratch, &mut source);
        assert_eq!((deck, source.used()), ((0..5).collect(), 8));
        // Fisher–Yates choosing 0 twice over: the left rotation applied twice.
        let shuffle = Shuffle::once(Algorithm::FisherYates).with_passes(2);
        let mut deck: Vec<Card> = (0..4).collect();
        let mut source = ScriptedSource::new(vec![0; 6]);
        shuffle.apply(&mut deck, &mut scratch, &mut source);
        assert_eq!(deck, vec![2, 3, 0, 1]);
    }

    #[test]
    fn the_riffle_runs_on_a_deck_of_thousands_of_cards() {
        let mut deck: Vec<Card> = (0..5000).collect();
        let mut scratch = vec![0; 5000];
        let mut source = crate::engine::random_source::FastSource::new(
            <rand_chacha::ChaCha8Rng as crate::engine::random_source::BlockRng>::for_block(1, 0),
        );
        Shuffle::once(Algorithm::Riffle).apply(&mut deck, &mut scratch, &mut source);
        let mut sorted = deck.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..5000).collect::<Vec<Card>>());
        // At most two rising sequences: card c + 1 lies below card c at most once.
        let mut position = vec![0; 5000];
        for (p, &card) in deck.iter().enumerate() {
            position[usize::from(card)] = p;
        }
        let descents = (0..4999).filter(|&c| position[c + 1] < position[c]).count();
        assert!(descents <= 1);
        assert_ne!(deck, (0..5000).collect::<Vec<Card>>());
    }

    #[test]
    fn the_shelf_shuffler_deals_from_the_bottom_onto_the_shelf_and_side_the_answers_name() {
        // Two shelves; per card from the bottom up: below(2) = shelf, then coin 1 = on top.
        // Card 3 → shelf 1; card 2 → under on shelf 0; card 1 → on top of shelf 1; card 0 → on
        // top of shelf 0. Shelf 0 holds 0 2, shelf 1 holds 1 3, stacked in shelf order.
        let shelf = Shuffle::once(Algorithm::Shelf).with_shelves(2);
        let mut deck: Vec<Card> = (0..4).collect();
        let mut scratch = vec![0; 4];
        let mut source = ScriptedSource::new(vec![1, 1, 0, 0, 1, 1, 0, 1]);
        shelf.apply(&mut deck, &mut scratch, &mut source);
        assert_eq!((deck, source.used()), (vec![0, 2, 1, 3], 8));
    }

    #[test]
    fn one_shelf_under_every_time_turns_the_deck_over_and_on_top_every_time_keeps_it() {
        let shelf = Shuffle::once(Algorithm::Shelf).with_shelves(1);
        let mut scratch = vec![0; 5];
        let mut deck: Vec<Card> = (0..5).collect();
        shelf.apply(
            &mut deck,
            &mut scratch,
            &mut ScriptedSource::new(vec![0; 10]),
        );
        assert_eq!(deck, vec![4, 3, 2, 1, 0]);
        let mut deck: Vec<Card> = (0..5).collect();
        shelf.apply(
            &mut deck,
            &mut scratch,
            &mut ScriptedSource::new([0, 1].repeat(5)),
        );
        assert_eq!(deck, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn every_shelf_pile_rises_then_falls_on_a_deck_of_thousands_of_cards() {
        let mut deck: Vec<Card> = (0..3000).collect();
        let mut scratch = vec![0; 3000];
        let mut source = crate::engine::random_source::FastSource::new(
            <rand_chacha::ChaCha8Rng as crate::engine::random_source::BlockRng>::for_block(1, 0),
        );
        Shuffle::once(Algorithm::Shelf).apply(&mut deck, &mut scratch, &mut source);
        let mut sorted = deck.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..3000).collect::<Vec<Card>>());
        // Ten piles, each rising then falling: at most 9 valleys.
        let valleys = deck
            .windows(3)
            .filter(|w| w[0] > w[1] && w[1] < w[2])
            .count();
        assert!(valleys <= 9, "{valleys} valleys");
    }

    #[test]
    fn labels_show_passes_and_the_cut_probability_only_where_they_say_something() {
        assert_eq!(Shuffle::once(Algorithm::Naive).label(), "naive");
        assert_eq!(
            Shuffle::once(Algorithm::Riffle).with_passes(3).label(),
            "riffle · 3 passes"
        );
        assert_eq!(
            Shuffle::once(Algorithm::Overhand).label(),
            "overhand · cut probability 0.5"
        );
        assert_eq!(
            Shuffle::once(Algorithm::Shelf).with_passes(2).label(),
            "shelf · 10 shelves · 2 passes"
        );
        assert_eq!(
            Shuffle::once(Algorithm::Shelf).with_shelves(1).label(),
            "shelf · 1 shelf"
        );
    }

    #[test]
    fn inside_out_choosing_zero_every_time_rotates_the_deck_right() {
        // i=0: below(1); i=1: m[1] = m[0], m[0] = 1 → 1 0 2 3; i=2 → 2 0 1 3; i=3 → 3 0 1 2.
        assert_eq!(
            run(Algorithm::InsideOut, 4, vec![0; 4]),
            (vec![3, 0, 1, 2], 4)
        );
        // Choosing j = i every time keeps the deck.
        assert_eq!(
            run(Algorithm::InsideOut, 4, vec![0, 1, 2, 3]),
            ((0..4).collect(), 4)
        );
    }

    #[test]
    fn naive_off_by_one_makes_n_choices_of_n_minus_one_positions() {
        // swap(0,2) → 2 1 0 3; swap(1,2) → 2 0 1 3; swap(2,0) → 1 0 2 3; swap(3,1) → 1 3 2 0.
        assert_eq!(
            run(Algorithm::NaiveOffByOne, 4, vec![2, 2, 0, 1]),
            (vec![1, 3, 2, 0], 4)
        );
    }

    #[test]
    fn unshuffled_keeps_the_deck_and_draws_nothing() {
        assert_eq!(run(Algorithm::Unshuffled, 5, vec![]), ((0..5).collect(), 0));
    }

    #[test]
    fn zend_sort_3_swaps_only_on_an_answer_of_one() {
        // rand(-1, 1) = below(3) − 1. Always 1: cmp(a, b) > 0 → cmp(c, b) > 0 → swap(a, b),
        // cmp(b, c) > 0 → swap(b, c): 1 2 0 after three comparisons.
        assert_eq!(
            run(Algorithm::ZendSort, 3, vec![2, 2, 2]),
            (vec![1, 2, 0], 3)
        );
        // Always 0 (PHP 7: no swap): two comparisons, nothing moves.
        assert_eq!(
            run(Algorithm::ZendSort, 3, vec![1, 1]),
            ((0..3).collect(), 2)
        );
        // rand(0, 1), always 1: the same path as rand(-1, 1) always 1.
        assert_eq!(
            run(Algorithm::ZendSortCoin, 3, vec![1, 1, 1]),
            (vec![1, 2, 0], 3)
        );
    }

    #[test]
    fn zend_sort_stable_breaks_a_zero_by_the_original_order() {
        // cmp(0, 1) = 1 > 0; cmp(2, 1) = 0 falls back: card 2 started after card 1, so > 0 (no
        // early return); swap(a, b) → 1 0 2; cmp(0, 2) = 0: card 0 started before card 2, so
        // not > 0: it stays 1 0 2.
        assert_eq!(
            run(Algorithm::ZendSortStable, 3, vec![2, 1, 1]),
            (vec![1, 0, 2], 3)
        );
    }

    #[test]
    fn zend_sort_stable_with_every_answer_zero_is_a_true_sort_at_every_size() {
        // Every rand(-1, 1) = 0 makes PHP 8's comparator the original order, a consistent one:
        // a correct zend_sort (insertion up to 16, quicksort with a median of 3 beyond, of 5
        // from 1024) must then return any deck unchanged.
        for n in [2, 5, 6, 7, 16, 17, 52, 1023, 1024, 3000] {
            let mut deck: Vec<Card> = (0..n as Card).rev().collect();
            let before = deck.clone();
            let mut scratch = vec![0; n];
            let mut source = ScriptedSource::new(vec![1; 64 * n]);
            Algorithm::ZendSortStable.shuffle(&mut deck, &mut scratch, &mut source);
            assert_eq!(deck, before, "n={n}");
        }
    }

    #[test]
    fn zend_sort_shuffles_decks_past_the_insertion_sort_into_permutations() {
        for algorithm in [
            Algorithm::ZendSort,
            Algorithm::ZendSortCoin,
            Algorithm::ZendSortStable,
        ] {
            for n in [17, 52, 2000] {
                let mut deck: Vec<Card> = (0..n as Card).collect();
                let mut scratch = vec![0; n];
                let mut source = crate::engine::random_source::FastSource::new(
                    <rand_chacha::ChaCha8Rng as crate::engine::random_source::BlockRng>::for_block(
                        1, 0,
                    ),
                );
                algorithm.shuffle(&mut deck, &mut scratch, &mut source);
                assert_ne!(deck, (0..n as Card).collect::<Vec<Card>>());
                deck.sort_unstable();
                assert_eq!(deck, (0..n as Card).collect::<Vec<Card>>());
            }
        }
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
