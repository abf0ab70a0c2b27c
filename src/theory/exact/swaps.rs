//! The ranks of an ordering with two of its positions swapped, without composing and ranking
//! the deck each time ([`SwapRanks`]): the stages of the naive shuffle and of the
//! transposition shuffles are all swaps, and both ways of carrying a stage (pulled, pushed)
//! rank n! orderings, or their support, once per swap.

use super::{MAX_EXACT_DECK, Stage, compose, inverse};
use crate::engine::algorithms::Card;
use crate::engine::permutation::FACTORIALS;

/// The moves, each given as a map of positions (`composed[slot] = deck[map[slot]]`, as a move or
/// its inverse: a swap is its own), as swaps of two positions `(low, high)`, `low < high` (`None`
/// for the identity), if every move is the identity or one swap (the naive shuffle's and the transposition
/// shuffles' stages); `None` otherwise.
fn transpositions<P: Copy + Into<usize>>(maps: &[Vec<P>]) -> Option<Vec<Option<(usize, usize)>>> {
    maps.iter()
        .map(|map| {
            let mut moved = map
                .iter()
                .enumerate()
                .filter(|&(slot, &from)| slot != from.into())
                .map(|(slot, _)| slot);
            match (moved.next(), moved.next(), moved.next()) {
                (None, _, _) => Some(None),
                (Some(low), Some(high), None) if map[low].into() == high => Some(Some((low, high))),
                _ => None,
            }
        })
        .collect()
}

/// A stage whose every move m is t ∘ u, (t ∘ u)\[p\] = t\[u\[p\]\], for one swap or nothing t
/// (`first`) and a swap or nothing u of its own (`swaps`, in the order of the moves): a deck x
/// becomes x ∘ m = (x ∘ t) ∘ u, x with the positions of t exchanged, then those of u. The naive
/// shuffle's stages, written relative to its all-zero path (x ↦ x ∘ M_i(c)), are such: each
/// M_i(c) is a 3-cycle, the swap of step i with c following that with 0, both carried by the
/// steps after it, so that one swap t undoes the common one.
pub(super) struct SwapStage {
    pub(super) first: Option<(usize, usize)>,
    pub(super) swaps: Vec<Option<(usize, usize)>>,
}

impl SwapStage {
    /// The stage's moves as swaps, if they are: with no t, or with the one swap t that makes
    /// every t ∘ m a swap or nothing (a search over the n(n − 1)/2 swaps); `None` otherwise.
    pub(super) fn of(moves: &[Vec<Card>]) -> Option<SwapStage> {
        let n = moves.first()?.len();
        if let Some(swaps) = transpositions(moves) {
            return Some(SwapStage { first: None, swaps });
        }
        for low in 0..n {
            for high in low + 1..n {
                let exchange = |position: usize| match position {
                    p if p == low => high,
                    p if p == high => low,
                    p => p,
                };
                let factored: Vec<Vec<usize>> = moves
                    .iter()
                    .map(|m| m.iter().map(|&p| exchange(usize::from(p))).collect())
                    .collect();
                if let Some(swaps) = transpositions(&factored) {
                    return Some(SwapStage {
                        first: Some((low, high)),
                        swaps,
                    });
                }
            }
        }
        None
    }
}

/// The ranks of one ordering y with two of its positions swapped, for any pair, from tables
/// of y formed once: the rank of y with positions `low < high` swapped differs from y's only
/// in the Lehmer digits of positions `low..=high` (a digit counts the smaller cards after its
/// position, and the cards after `high`, like those before `low`, are the same set).
///
/// With A = y\[low\], B = y\[high\] and w_p = (n − 1 − p)!, the digit of `low` becomes the
/// number of cards after `low` smaller than B, plus one if A < B; that of `high` the number of
/// cards after `high` smaller than A; that of each p between them changes by
/// \[A < y\[p\]\] − \[B < y\[p\]\], so that the digits between add Σ w_p · \[y\[p\] ≤ B\] −
/// Σ w_p · \[y\[p\] ≤ A\] over the positions between, each sum the difference of two cells
/// of the table `below[p][v]` = Σ_{q < p, y\[q\] < v} w_q: a swap costs two bit counts and four
/// reads of a table, instead of composing and ranking a whole deck.
pub(super) struct SwapRanks {
    n: usize,
    deck: [usize; MAX_EXACT_DECK],
    /// The set of the cards at the positions after p, one bit a card.
    after: [u32; MAX_EXACT_DECK],
    /// The Lehmer digit of position p.
    digits: [i64; MAX_EXACT_DECK],
    /// `below[p][v]`: Σ w_q over the positions q < p holding a card smaller than v.
    below: [[i64; MAX_EXACT_DECK + 1]; MAX_EXACT_DECK + 1],
    rank: i64,
    /// Whether an ordering has been loaded (and the tables hold it).
    loaded: bool,
}

impl SwapRanks {
    pub(super) fn new(n: usize) -> SwapRanks {
        debug_assert!(n <= MAX_EXACT_DECK);
        SwapRanks {
            n,
            deck: [0; MAX_EXACT_DECK],
            after: [0; MAX_EXACT_DECK],
            digits: [0; MAX_EXACT_DECK],
            below: [[0; MAX_EXACT_DECK + 1]; MAX_EXACT_DECK + 1],
            rank: 0,
            loaded: false,
        }
    }

    /// Forms the tables of `deck`, whose rank is `rank`, from the first position at which it
    /// differs from the ordering loaded before: every table entry of a position p depends on
    /// the cards at positions up to p and on the set of those after it, both unchanged before
    /// the first change. Orderings walked in rank order differ in their last 2.7 positions on
    /// average, so each is loaded in a few steps.
    #[inline(always)]
    pub(super) fn load(&mut self, deck: &[Card], rank: usize) {
        let n = self.n;
        self.rank = rank as i64;
        let from = if self.loaded {
            match (0..n).find(|&p| self.deck[p] != usize::from(deck[p])) {
                Some(from) => from,
                None => return,
            }
        } else {
            0
        };
        self.loaded = true;
        let mut later = 0u32;
        for p in (from..n).rev() {
            let card = usize::from(deck[p]);
            self.deck[p] = card;
            self.after[p] = later;
            self.digits[p] = i64::from((later & ((1u32 << card) - 1)).count_ones());
            later |= 1 << card;
        }
        for p in from..n {
            let weight = FACTORIALS[n - 1 - p] as i64;
            let card = self.deck[p];
            let (done, rest) = self.below.split_at_mut(p + 1);
            for (v, (next, &previous)) in rest[0][..=n].iter_mut().zip(&done[p][..=n]).enumerate() {
                *next = previous + if card < v { weight } else { 0 };
            }
        }
    }

    /// The rank of the loaded ordering with the positions of `swap` exchanged (`None`: its own).
    #[inline(always)]
    pub(super) fn rank_after(&self, swap: Option<(usize, usize)>) -> usize {
        let Some((low, high)) = swap else {
            return self.rank as usize;
        };
        let n = self.n;
        let (a, b) = (self.deck[low], self.deck[high]);
        let low_digit =
            i64::from((self.after[low] & ((1u32 << b) - 1)).count_ones()) + i64::from(a < b);
        let high_digit = i64::from((self.after[high] & ((1u32 << a) - 1)).count_ones());
        let between = |v: usize| self.below[high][v + 1] - self.below[low + 1][v + 1];
        let rank = self.rank
            + (low_digit - self.digits[low]) * FACTORIALS[n - 1 - low] as i64
            + (high_digit - self.digits[high]) * FACTORIALS[n - 1 - high] as i64
            + between(b)
            - between(a);
        rank as usize
    }
}

/// Rewrites a fixed move followed by stages of swaps ([`SwapStage`], each move t_i ∘ u) as
/// one fixed move followed by stages of plain swaps, the same law for any law carried: with
/// C_i = t_{i+1} ∘ … ∘ t_k (C_k the identity),
///
/// Z ∘ (t_1 ∘ u_1) ∘ … ∘ (t_k ∘ u_k)
///   = (Z ∘ t_1 ∘ … ∘ t_k) ∘ (C_1⁻¹ ∘ u_1 ∘ C_1) ∘ … ∘ (C_k⁻¹ ∘ u_k ∘ C_k),
///
/// since t_1 ∘ … ∘ t_i ∘ C_i = t_1 ∘ … ∘ t_k for each i and the C's cancel in between. A
/// swap conjugated is a swap, each stage keeps its weights move by move, and no stage then
/// needs the copy of the law relabelled by its t (a pass over n! orderings, ranked one by
/// one) that a pulled stage of 3-cycles reads, nor the ranking of x ∘ t for each ordering x
/// that a pushed one makes. Stages that are not all of swaps are left as they are.
pub(super) fn lead_with_swaps(stages: &mut [Stage]) {
    let Some((fixed, rest)) = stages.split_first_mut() else {
        return;
    };
    let [zero] = &mut fixed.moves[..] else {
        return;
    };
    let Some(factored) = rest
        .iter()
        .map(|stage| SwapStage::of(&stage.moves))
        .collect::<Option<Vec<SwapStage>>>()
    else {
        return;
    };
    if factored.iter().all(|stage| stage.first.is_none()) {
        return;
    }
    let n = zero.len();
    let identity: Vec<Card> = (0..n as Card).collect();
    let swap = |(low, high): (usize, usize)| {
        let mut map = identity.clone();
        map.swap(low, high);
        map
    };
    let mut carried = identity.clone();
    for (stage, factored) in rest.iter_mut().zip(&factored).rev() {
        let carried_inverse = inverse(&carried);
        for (m, &u) in stage.moves.iter_mut().zip(&factored.swaps) {
            let u = u.map_or_else(|| identity.clone(), swap);
            *m = compose(&compose(&carried_inverse, &u), &carried);
        }
        if let Some(t) = factored.first {
            carried = compose(&swap(t), &carried);
        }
    }
    *zero = compose(zero, &carried);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::permutation::{factorial, for_each_in_rank_order, rank, unrank};

    fn swapped(deck: &[Card], (low, high): (usize, usize)) -> Vec<Card> {
        let mut deck = deck.to_vec();
        deck.swap(low, high);
        deck
    }

    fn check_every_swap(ranks: &mut SwapRanks, deck: &[Card], cell: usize) {
        ranks.load(deck, cell);
        assert_eq!(ranks.rank_after(None), cell);
        let n = deck.len();
        for low in 0..n {
            for high in low + 1..n {
                assert_eq!(
                    ranks.rank_after(Some((low, high))),
                    rank(&swapped(deck, (low, high))),
                    "{deck:?} with {low} and {high} swapped"
                );
            }
        }
    }

    #[test]
    fn the_rank_of_an_ordering_with_two_positions_swapped_is_read_from_its_tables() {
        // Every ordering of 7 cards in rank order (each loaded from where it differs from the
        // one before), and 8 cards in a scrambled order (5,041 is prime to 8!, so r ↦ 5,041·r
        // mod 8! visits every rank once), against composing and ranking the swapped deck.
        let mut ranks = SwapRanks::new(7);
        for_each_in_rank_order(7, |cell, deck| check_every_swap(&mut ranks, deck, cell));
        let cells = factorial(8) as usize;
        let mut ranks = SwapRanks::new(8);
        for step in 0..cells {
            let cell = step * 5_041 % cells;
            check_every_swap(&mut ranks, &unrank(cell, 8), cell);
        }
        // The same ordering twice, and one card.
        let mut ranks = SwapRanks::new(3);
        check_every_swap(&mut ranks, &[2, 0, 1], 4);
        check_every_swap(&mut ranks, &[2, 0, 1], 4);
        let mut ranks = SwapRanks::new(1);
        check_every_swap(&mut ranks, &[0], 0);
    }

    /// x ∘ m, (x ∘ m)[p] = x[m[p]].
    fn compose(x: &[Card], m: &[Card]) -> Vec<Card> {
        m.iter().map(|&p| x[usize::from(p)]).collect()
    }

    #[test]
    fn a_stage_is_written_as_swaps_when_one_swap_makes_every_move_a_swap() {
        let n = 6;
        let identity: Vec<Card> = (0..n as Card).collect();
        let swap = |(low, high): (usize, usize)| swapped(&identity, (low, high));
        // Plain swaps (one of them nothing): no first swap.
        let plain: Vec<Vec<Card>> = (0..n).map(|c| swap((2, c))).collect();
        let stage = SwapStage::of(&plain).expect("a stage of swaps");
        assert_eq!(stage.first, None);
        assert_eq!(stage.swaps[2], None);
        assert_eq!(stage.swaps[5], Some((2, 5)));
        // 3-cycles t ∘ u_c, t = (0 3), u_c = (3 c): written with a first swap t' such that
        // x ∘ m = (x ∘ t') ∘ u' for every move m and deck x.
        let t = swap((0, 3));
        let cycles: Vec<Vec<Card>> = (0..n).map(|c| compose(&t, &swap((3, c)))).collect();
        let stage = SwapStage::of(&cycles).expect("3-cycles that one swap undoes");
        let first = stage.first.expect("a first swap");
        for_each_in_rank_order(n, |_, x| {
            for (m, &u) in cycles.iter().zip(&stage.swaps) {
                let mut carried = swapped(x, first);
                if let Some(u) = u {
                    carried = swapped(&carried, u);
                }
                assert_eq!(carried, compose(x, m), "{x:?} ∘ {m:?}");
            }
        });
        // A 6-cycle among swaps: no swap makes it one.
        let mut mixed = plain.clone();
        mixed.push(vec![1, 2, 3, 4, 5, 0]);
        assert!(SwapStage::of(&mixed).is_none());
        assert!(SwapStage::of(&[]).is_none());
    }

    #[test]
    fn stages_led_by_their_common_swaps_compose_every_path_to_the_same_deck() {
        // Each algorithm's stages as step propagation writes them (relative to the all-zero
        // path), then rewritten; along every one of the paths (choices as the digits of a
        // mixed-radix counter) both give the deck the algorithm's own code deals.
        use super::super::{Weights, first_path, run_script};
        use crate::engine::algorithms::{Algorithm, Shuffle};
        for algorithm in [
            Algorithm::Naive,
            Algorithm::NaiveOffByOne,
            Algorithm::Sattolo,
            Algorithm::FisherYates,
            Algorithm::FisherYatesForward,
        ] {
            let n = 5;
            let shuffle = Shuffle::once(algorithm);
            let (bounds, _) = first_path(shuffle, n);
            let zero = run_script(shuffle, n, vec![0; bounds.len()]);
            let zero_inverse = inverse(&zero);
            let exact = |numerators, denominator| Weights::Exact {
                numerators,
                denominator,
            };
            let mut stages = vec![Stage {
                moves: vec![zero],
                weights: exact(vec![1], 1),
            }];
            for (step, &bound) in bounds.iter().enumerate() {
                let moves = (0..bound)
                    .map(|choice| {
                        let mut script = vec![0; bounds.len()];
                        script[step] = choice;
                        super::compose(&zero_inverse, &run_script(shuffle, n, script))
                    })
                    .collect();
                stages.push(Stage {
                    moves,
                    weights: exact(vec![1; bound], bound as u128),
                });
            }
            let led_before = stages[1..]
                .iter()
                .any(|stage| SwapStage::of(&stage.moves).is_some_and(|s| s.first.is_some()));
            // The naive shuffle's stages are 3-cycles, each led by a swap of its own.
            assert!(led_before || algorithm != Algorithm::Naive);
            let mut led = stages.clone();
            lead_with_swaps(&mut led);
            assert!(
                led[1..].iter().all(|stage| {
                    SwapStage::of(&stage.moves).is_some_and(|s| s.first.is_none())
                })
            );
            let paths: usize = bounds.iter().product();
            for path in 0..paths {
                let mut rest = path;
                let mut choices = Vec::new();
                let mut before = stages[0].moves[0].clone();
                let mut after = led[0].moves[0].clone();
                for (step, &bound) in bounds.iter().enumerate() {
                    let choice = rest % bound;
                    rest /= bound;
                    choices.push(choice);
                    before = super::compose(&before, &stages[step + 1].moves[choice]);
                    after = super::compose(&after, &led[step + 1].moves[choice]);
                }
                let dealt = run_script(shuffle, n, choices.clone());
                assert_eq!(before, dealt, "{algorithm:?} {choices:?}");
                assert_eq!(after, dealt, "{algorithm:?} {choices:?}, rewritten");
            }
        }
    }
}
