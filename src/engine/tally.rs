//! Which tally a run or a check fills: every ordering, or the marginals.

use serde::Serialize;

use super::marginal::MarginalTally;

/// What was tallied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TallyMode {
    /// Every one of the n! orderings.
    #[default]
    Full,
    /// The position matrix, the identity and the permutation statistics (any deck size).
    Marginal,
}

impl TallyMode {
    /// The largest deck this mode can tally (the smallest is 2).
    pub fn max_deck(self) -> usize {
        match self {
            TallyMode::Full => super::permutation::MAX_FULL_DECK,
            TallyMode::Marginal => super::marginal::MAX_MARGINAL_DECK,
        }
    }
}

/// The result of a simulation: how often each ordering (indexed by lexicographic rank) came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    /// Number of cards.
    pub deck: usize,
    /// `counts[rank]`: how many shuffles produced the permutation of that rank.
    pub counts: Vec<u64>,
    /// Shuffles actually tallied (less than asked for if the run was interrupted).
    pub trials: u64,
}

/// A tally of either mode: what a simulation fills, and what a tally file stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Counts {
    /// Every ordering's count, by lexicographic rank.
    Full(Tally),
    /// Positions (card-major), the identity, then each statistic's histogram in
    /// `Statistic::ALL` order.
    Marginal(MarginalTally),
}

impl Counts {
    /// The tally's mode.
    pub fn mode(&self) -> TallyMode {
        match self {
            Counts::Full(_) => TallyMode::Full,
            Counts::Marginal(_) => TallyMode::Marginal,
        }
    }

    /// Shuffles tallied.
    pub fn trials(&self) -> u64 {
        match self {
            Counts::Full(tally) => tally.trials,
            Counts::Marginal(tally) => tally.trials,
        }
    }

    /// The full tally, if this is one.
    pub fn into_full(self) -> Option<Tally> {
        match self {
            Counts::Full(tally) => Some(tally),
            Counts::Marginal(_) => None,
        }
    }

    /// The marginal tally, if this is one.
    pub fn into_marginal(self) -> Option<MarginalTally> {
        match self {
            Counts::Marginal(tally) => Some(tally),
            Counts::Full(_) => None,
        }
    }
}
