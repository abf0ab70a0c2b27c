//! The marginal tally: what is kept of each shuffle when n! orderings are too many to count.
//!
//! Per shuffle it records where every card ended (the n×n position matrix), whether the deck
//! came back unchanged, and the value of every [`Statistic`] (fixed points, cycles, rising
//! sequences, adjacent pairs kept), whose laws under a uniform shuffle are known exactly for
//! any n (see [`crate::theory::permutation_statistics`]). Memory is O(n²) whatever the number of
//! trials, so a 52-card deck — or a 1000-card one — can be tested.

use crate::engine::algorithms::Card;
use crate::theory::permutation_statistics::{Statistic, StatisticValues};

/// The largest deck the marginal mode accepts.
pub const MAX_MARGINAL_DECK: usize = 1000;

/// How many shuffles produced each value of each statistic, each card at each position, and the
/// identity.
#[derive(Debug, Clone)]
pub struct MarginalTally {
    /// Number of cards.
    pub deck: usize,
    /// Shuffles tallied.
    pub trials: u64,
    /// `positions[card * deck + position]`: shuffles that left `card` at `position`.
    pub positions: Vec<u64>,
    /// Shuffles that left the deck unchanged.
    pub identity: u64,
    /// `histograms[i][v]`: shuffles in which statistic `Statistic::ALL[i]` had the value `v`.
    pub histograms: Vec<Vec<u64>>,
    /// Working space for the statistics (the inverse permutation).
    scratch: Vec<usize>,
}

/// Two tallies are equal when they counted the same things (the working space is not compared).
impl PartialEq for MarginalTally {
    fn eq(&self, other: &Self) -> bool {
        self.deck == other.deck
            && self.trials == other.trials
            && self.positions == other.positions
            && self.identity == other.identity
            && self.histograms == other.histograms
    }
}

impl Eq for MarginalTally {}

impl MarginalTally {
    /// An empty tally for decks of `deck` cards.
    pub fn new(deck: usize) -> Self {
        MarginalTally {
            deck,
            trials: 0,
            positions: vec![0; deck * deck],
            identity: 0,
            histograms: Statistic::ALL
                .iter()
                .map(|s| vec![0; s.max_value(deck) + 1])
                .collect(),
            scratch: vec![0; deck],
        }
    }

    /// Count one shuffled deck (a permutation of `0..deck`).
    #[inline]
    pub fn add(&mut self, deck: &[Card]) {
        let n = self.deck;
        debug_assert_eq!(deck.len(), n);
        let mut unchanged = true;
        for (position, &card) in deck.iter().enumerate() {
            let card = usize::from(card);
            unchanged &= card == position;
            self.positions[card * n + position] += 1;
        }
        self.identity += u64::from(unchanged);
        let values = StatisticValues::of(deck, &mut self.scratch);
        for (histogram, &statistic) in self.histograms.iter_mut().zip(Statistic::ALL.iter()) {
            histogram[values.get(statistic)] += 1;
        }
        self.trials += 1;
    }

    /// Add another tally of the same deck size into this one.
    pub fn merge(&mut self, other: &MarginalTally) {
        assert_eq!(self.deck, other.deck, "tallies of different decks");
        for (total, count) in self.positions.iter_mut().zip(&other.positions) {
            *total += count;
        }
        for (totals, counts) in self.histograms.iter_mut().zip(&other.histograms) {
            for (total, count) in totals.iter_mut().zip(counts) {
                *total += count;
            }
        }
        self.identity += other.identity;
        self.trials += other.trials;
    }

    /// The position counts as a matrix `[card][position]`.
    pub fn position_matrix(&self) -> Vec<Vec<u64>> {
        self.positions
            .chunks(self.deck)
            .map(<[u64]>::to_vec)
            .collect()
    }

    /// The histogram of one statistic.
    pub fn histogram(&self, statistic: Statistic) -> &[u64] {
        let index = Statistic::ALL
            .iter()
            .position(|&s| s == statistic)
            .expect("every statistic is in ALL");
        &self.histograms[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_counts_positions_identity_and_every_statistic() {
        let mut tally = MarginalTally::new(4);
        tally.add(&[0, 1, 2, 3]);
        tally.add(&[1, 2, 3, 0]);
        assert_eq!(tally.trials, 2);
        assert_eq!(tally.identity, 1);
        // Card 0 at position 0 once, at position 3 once.
        assert_eq!(tally.position_matrix()[0], vec![1, 0, 0, 1]);
        // The identity has 4 fixed points, the rotation none.
        assert_eq!(tally.histogram(Statistic::FixedPoints), &[1, 0, 0, 0, 1]);
        // The identity has 4 cycles, the rotation 1.
        assert_eq!(tally.histogram(Statistic::Cycles)[4], 1);
        assert_eq!(tally.histogram(Statistic::Cycles)[1], 1);
        // 1 2 3 0 keeps the pairs (1,2) and (2,3); the identity keeps all three.
        assert_eq!(tally.histogram(Statistic::AdjacentPairs)[2], 1);
        assert_eq!(tally.histogram(Statistic::AdjacentPairs)[3], 1);
    }

    #[test]
    fn merging_two_tallies_equals_tallying_everything_in_one() {
        let decks: [[Card; 3]; 4] = [[0, 1, 2], [2, 1, 0], [1, 0, 2], [2, 0, 1]];
        let mut whole = MarginalTally::new(3);
        let mut first = MarginalTally::new(3);
        let mut second = MarginalTally::new(3);
        for (i, deck) in decks.iter().enumerate() {
            whole.add(deck);
            if i < 2 {
                first.add(deck);
            } else {
                second.add(deck);
            }
        }
        first.merge(&second);
        assert_eq!(first, whole);
    }
}
