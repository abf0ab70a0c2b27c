//! Why a command failed, as one enum: every error of the layers below (flags, files, input,
//! exact laws) with the command's context, each `Display` being the user's message. `main`
//! prints it and maps it to the exit code (2, or 130 for an interruption).

use std::io;
use std::path::PathBuf;

use crate::input::source_name::printable_path;

use crate::config::UsageError;
use crate::input::permutation_reader::InputError;
use crate::input::producer::ProducerError;
use crate::output::files::FileError;
use crate::tally_file::TallyFileError;

pub use super::merge::MergeError;
use crate::judge::JudgeError;
pub use crate::judge::NoLaw;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// Bad flags (checked before anything runs).
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// An output file could not be created, written or put in place.
    #[error(transparent)]
    File(#[from] FileError),
    /// The input of `check` could not be read, or held no permutation (or Ctrl-C came before
    /// the first one: [`InputError::is_interrupted`](crate::input::permutation_reader::InputError::is_interrupted)).
    #[error(transparent)]
    Input(#[from] InputError),
    /// The command of `check --exec` could not be run, or failed.
    #[error(transparent)]
    Producer(#[from] ProducerError),
    /// Writing the report to stdout failed (a closed stdout is no failure).
    #[error("writing to stdout failed: {0}")]
    Stdout(#[source] io::Error),
    /// An exporter refused the report (`io::ErrorKind::InvalidInput`): its message as is.
    #[error("{0}")]
    Export(#[source] io::Error),
    /// The command needs an exact law (or a mixing curve) that cannot be computed.
    #[error(transparent)]
    NoLaw(#[from] NoLaw),
    /// Ctrl-C came before there was anything to report.
    #[error("interrupted {0}")]
    Interrupted(Interruption),
    /// A tally file that cannot be read, or is damaged.
    #[error(transparent)]
    TallyFile(#[from] TallyFileError),
    /// Tally files that are not parts of one experiment.
    #[error(transparent)]
    Merge(#[from] MergeError),
}

impl From<JudgeError> for Failure {
    fn from(error: JudgeError) -> Self {
        match error {
            JudgeError::NoLaw(no_law) => Failure::NoLaw(no_law),
            JudgeError::Usage(usage) => Failure::Usage(usage),
            JudgeError::Interrupted { shuffle, deck } => {
                Failure::Interrupted(Interruption::ExactLaw { shuffle, deck })
            }
        }
    }
}

/// What was being done when Ctrl-C came, with nothing to report yet.
#[derive(Debug, thiserror::Error)]
pub enum Interruption {
    /// Computing an exact law.
    #[error("while computing the exact law of {shuffle} on {deck} cards; nothing was reported")]
    ExactLaw {
        /// The shuffle's label.
        shuffle: String,
        /// Cards.
        deck: usize,
    },
    /// Computing a mixing curve.
    #[error("while computing the mixing curve; nothing was reported")]
    MixingCurve,
    /// Adding tally files.
    #[error("while merging the tally files; nothing was reported")]
    Merge,
    /// Writing a report (or its picture): the writing stopped, and no file of the report was
    /// put in place.
    #[error("{}", writing_stopped(output.as_ref()))]
    Writing {
        /// The flag and the file being written, or None for stdout.
        output: Option<(&'static str, PathBuf)>,
    },
}

/// What [`Interruption::Writing`] says: where the writing stopped, and what is left of it.
fn writing_stopped(output: Option<&(&'static str, PathBuf)>) -> String {
    match output {
        Some((flag, path)) => format!(
            "while writing {flag} {}; the report's files were not put in place (an existing \
             file is as it was)",
            printable_path(path)
        ),
        None => "while writing the report to stdout, which stops short of its end; no file \
                 of the report was put in place"
            .to_string(),
    }
}
