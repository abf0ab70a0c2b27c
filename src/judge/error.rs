//! Why judging could not end in a report: a law that cannot be had, a gate that does not fit
//! the report, or Ctrl-C while an exact law was computed.

use crate::config::UsageError;
use crate::theory::exact::ExactError;

/// Why a tally could not be judged. The commands add their context (`Failure`); the library
/// API says it in its own words.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// The hypothesis needs a law that cannot be had.
    #[error(transparent)]
    NoLaw(#[from] NoLaw),
    /// A setting does not fit this tally (a `--max-bias` size of the wrong kind).
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// Ctrl-C came while the exact law of `shuffle` on `deck` cards was computed.
    #[error("interrupted while computing the exact law of {shuffle} on {deck} cards")]
    Interrupted {
        /// The shuffle's label.
        shuffle: String,
        /// Cards.
        deck: usize,
    },
}

/// A law that a command needs but cannot have, with what the command was asked.
#[derive(Debug, thiserror::Error)]
pub enum NoLaw {
    /// `theory`: the exact law of the shuffle.
    #[error("no exact law for {shuffle} at {deck} cards: {source}")]
    Theory {
        /// The shuffle's label.
        shuffle: String,
        /// Cards.
        deck: usize,
        /// Why.
        source: ExactError,
    },
    /// `theory --passes A..B`: the mixing curve.
    #[error("--passes {first}..{last}: no mixing curve for {algorithm} at {deck} cards: {source}")]
    MixingCurve {
        /// The first number of passes.
        first: u32,
        /// The last.
        last: u32,
        /// The algorithm's name.
        algorithm: String,
        /// Cards.
        deck: usize,
        /// Why.
        source: ExactError,
    },
    /// `run --against model` in full mode.
    #[error(
        "--against model: no exact law for {shuffle} at {deck} cards: {source}; use --against \
         uniform"
    )]
    RunModel {
        /// The shuffle's label.
        shuffle: String,
        /// Cards.
        deck: usize,
        /// Why.
        source: ExactError,
    },
    /// `run --against model` in marginal mode, where no law of the marginals is known.
    #[error(
        "--against model: no exact law of {shuffle} is known at {deck} cards in marginal mode; \
         use --against uniform"
    )]
    RunModelMarginal {
        /// The shuffle's label.
        shuffle: String,
        /// Cards.
        deck: usize,
    },
    /// `check --against ALGORITHM` in full mode.
    #[error("--against {shuffle}: no exact law at {deck} cards: {source}")]
    CheckModel {
        /// The shuffle's label.
        shuffle: String,
        /// Cards (read off the input, perhaps).
        deck: usize,
        /// Why.
        source: ExactError,
    },
    /// `check --against ALGORITHM` in marginal mode, where no law of the marginals is known.
    #[error(
        "--against {shuffle}: no exact law at {deck} cards: none is known for this deck in \
         marginal mode"
    )]
    CheckModelMarginal {
        /// The shuffle's label.
        shuffle: String,
        /// Cards (read off the input, perhaps).
        deck: usize,
    },
}
