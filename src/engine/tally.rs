//! Which tally a run or a check fills: every ordering, or the marginals.

use serde::Serialize;

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
