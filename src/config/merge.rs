//! `merge`'s config: the tally files (none twice, none an output), the report settings that
//! may override the files' own, and the outputs.

use std::path::PathBuf;

use super::{OutputConfig, UsageError, check_alpha, check_max_paths, check_threads, output_config};
use crate::cli::MergeArgs;
use crate::output::files::{check_inputs, check_outputs};

/// A validated `merge`.
#[derive(Debug, Clone)]
pub struct MergeConfig {
    /// The tally files, in the order given.
    pub files: Vec<PathBuf>,
    /// Report on missing blocks and files cut short instead of refusing them.
    pub allow_partial: bool,
    /// `--alpha`, when given (else the files' own).
    pub alpha: Option<f64>,
    /// `--max-paths`, when given (else the files' own).
    pub max_paths: Option<u64>,
    /// `--max-bias SIZE`: the equivalence gate (checked against the files' settings once they
    /// are read).
    pub max_bias: Option<crate::analysis::ruled_out::BiasSize>,
    /// List every ordering in JSON and CSV whatever the deck.
    pub all_orderings: bool,
    /// Threads that read the counts of large full tallies (`--threads`, default every CPU).
    pub threads: usize,
    /// No progress display.
    pub quiet: bool,
    /// Output.
    pub output: OutputConfig,
}

impl MergeConfig {
    /// Validate `merge`'s flags: no tally file given twice (under any name), none that is also
    /// an output, no `-` (a tally is read twice, so it must be a file), and the report settings.
    pub fn from_args(args: &MergeArgs) -> Result<Self, UsageError> {
        if args.files.iter().any(|path| path.as_os_str() == "-") {
            return Err(UsageError::Repeated {
                argument: "FILE",
                hint: "`-` (stdin) cannot be merged: give the tally files by name".to_string(),
            });
        }
        check_inputs(&args.files)?;
        let output = output_config(&args.output, Some(&args.verdict))?;
        check_outputs(&output.targets(), &args.files)?;
        Ok(MergeConfig {
            files: args.files.clone(),
            allow_partial: args.allow_partial,
            alpha: args.alpha.map(check_alpha).transpose()?,
            max_paths: args
                .max_paths
                .map(|p| check_max_paths(Some(p)))
                .transpose()?,
            max_bias: args.gate.max_bias,
            all_orderings: args.all_orderings,
            threads: check_threads(args.threads, "threads to read the tallies")?,
            quiet: args.quiet,
            output,
        })
    }
}
