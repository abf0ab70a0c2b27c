//! The usage errors of every command's config, grouped by cause rather than by flag: the
//! `Display` of each is the user's message, which names the flag (and the value given) and
//! says how to fix it.

use crate::engine::tally::TallyMode;
use crate::output::files::FileError;

/// A usage error, grouped by cause: the `Display` is the user's message, which names the flag
/// (and the value given) and says how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// A number beyond what the flag accepts (`--deck 12: …`, `--alpha 2: …`).
    #[error("{flag} {value}: {hint}")]
    OutOfRange {
        /// The flag.
        flag: &'static str,
        /// The value, as shown.
        value: String,
        /// What is accepted, and how to fix it.
        hint: String,
    },
    /// A flag (with its value, when it has one) that does not go with the other flags given
    /// (`--table statistics: … add --mode marginal`).
    #[error("{flag}{}: {hint}", .value.as_ref().map(|value| format!(" {value}")).unwrap_or_default())]
    Conflict {
        /// The flag.
        flag: &'static str,
        /// Its value, if the message shows one.
        value: Option<String>,
        /// Why it does not fit, and how to fix it.
        hint: String,
    },
    /// A value written wrongly (an empty or repeated label, a picture not named `.svg`).
    #[error("{flag} {value}: {hint}")]
    Malformed {
        /// The flag.
        flag: &'static str,
        /// The value, as given.
        value: String,
        /// What is wrong, and how to write it.
        hint: String,
    },
    /// A positional argument given twice (`ALGO`, `FILE`).
    #[error("{argument}: {hint}")]
    Repeated {
        /// The argument's name in the usage line.
        argument: &'static str,
        /// What was repeated, and how to fix it.
        hint: String,
    },
    /// `--deck` and `--labels` name different numbers of cards.
    #[error(
        "--deck {deck} disagrees with --labels, which names {labels} cards; drop --deck or fix \
         the labels"
    )]
    DeckAndLabels {
        /// `--deck`.
        deck: usize,
        /// The number of labels.
        labels: usize,
    },
    /// The tallies (and the exact law, in full mode) would not fit in the memory available.
    #[error(
        "--threads {threads} with --deck {deck}: the tallies{} would take {:.1} GiB, more than \
         the {:.1} GiB this machine can give{}; use fewer --threads (each keeps its own tally){}",
        if *.mode == TallyMode::Full { " and the exact law" } else { "" },
        gib(*.needed),
        gib(*.limit),
        if *.reserved_by_others > 0 {
            format!(
                " (after the {:.1} GiB that other runs on this host have reserved and not \
                 taken yet; or wait for them to end)",
                gib(*.reserved_by_others)
            )
        } else {
            String::new()
        },
        if *.mode == TallyMode::Full {
            ", --mode marginal (positions and statistics only) or a smaller --deck"
        } else {
            " or a smaller --deck"
        }
    )]
    Memory {
        /// `--threads` (given or the number of CPUs).
        threads: usize,
        /// `--deck`.
        deck: usize,
        /// The mode the run would tally in.
        mode: TallyMode,
        /// Bytes needed.
        needed: u64,
        /// Bytes available ([`super::memory_limit`]).
        limit: u64,
        /// Bytes other runs on this host have reserved and not taken yet, left out of `limit`
        /// ([`crate::system::memory_share`]).
        reserved_by_others: u64,
    },
    /// An output or input file that cannot be used (checked before anything runs).
    #[error(transparent)]
    File(#[from] FileError),
}

/// Bytes in GiB, for messages.
fn gib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 30)
}

impl UsageError {
    /// A number beyond what `flag` accepts.
    pub(super) fn out_of_range(
        flag: &'static str,
        value: impl ToString,
        hint: impl Into<String>,
    ) -> Self {
        UsageError::OutOfRange {
            flag,
            value: value.to_string(),
            hint: hint.into(),
        }
    }

    /// `flag value` does not go with the other flags given.
    pub(crate) fn conflict(
        flag: &'static str,
        value: impl ToString,
        hint: impl Into<String>,
    ) -> Self {
        UsageError::Conflict {
            flag,
            value: Some(value.to_string()),
            hint: hint.into(),
        }
    }

    /// `flag value` is written wrongly.
    pub(super) fn malformed(
        flag: &'static str,
        value: impl ToString,
        hint: impl Into<String>,
    ) -> Self {
        UsageError::Malformed {
            flag,
            value: value.to_string(),
            hint: hint.into(),
        }
    }
}
