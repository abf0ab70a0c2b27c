//! `list`: the built-in algorithms and their exact definitions.

use super::{Failure, open_output, write_report};
use crate::cli::ListArgs;
use crate::config::{OutputConfig, UsageError, output_config};
use crate::engine::algorithms::Algorithm;
use crate::exit_code::ExitCode;
use crate::output::{Report, Terminal};

pub(super) fn list(args: &ListArgs) -> Result<ExitCode, Failure> {
    if let Some(path) = &args.output.plot {
        return Err(UsageError::Conflict {
            flag: "--plot",
            value: Some(path.display().to_string()),
            hint: "`list` has nothing to draw; use --plot with run, check, theory or compare"
                .to_string(),
        }
        .into());
    }
    let output = OutputConfig {
        terminal: Terminal::default(),
        ..output_config(&args.output)?
    };
    let out = open_output(&output)?;
    write_report(&output, &Report::List(&Algorithm::ALL), out)?;
    Ok(ExitCode::NoBiasDetected)
}
