//! `list`: the built-in algorithms and their exact definitions.

use super::{Failure, open_output, write_report};
use crate::cli::{ListArgs, OutputArgs};
use crate::config::{OutputConfig, output_config};
use crate::engine::algorithms::Algorithm;
use crate::commands::exit_code::ExitCode;
use crate::output::{Report, Terminal};

pub(super) fn list(args: &ListArgs) -> Result<ExitCode, Failure> {
    // `list` has no --plot (nothing to draw) and one CSV table; its output flags are the
    // shared ones with those left out.
    let shared = OutputArgs {
        format: args.format,
        table: None,
        output: args.output.clone(),
        plot: None,
    };
    let output = OutputConfig {
        terminal: Terminal::default(),
        ..output_config(&shared, None)?
    };
    let out = open_output(&output)?;
    write_report(&output, &Report::List(&Algorithm::ALL), out)?;
    Ok(ExitCode::NoBiasDetected)
}
