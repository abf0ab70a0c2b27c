//! `case`: list the famous shuffles, or run one as `run` runs it, its published figures
//! beside the tool's.

use super::{Failure, open_output, run::run, write_report};
use crate::cases;
use crate::commands::exit_code::ExitCode;
use crate::config::CaseConfig;
use crate::output::Report;

pub(super) fn case(config: CaseConfig) -> Result<ExitCode, Failure> {
    match config {
        CaseConfig::List(output) => {
            let out = open_output(&output)?;
            write_report(&output, &Report::Cases(&cases::entries()), out)?;
            Ok(ExitCode::NoBiasDetected)
        }
        CaseConfig::Run(config) => run(*config),
    }
}
