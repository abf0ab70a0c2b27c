//! Exit codes are part of the interface: a CI job gates on them.

/// How the process ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// 0: no bias detected (or a command that judges nothing succeeded); with `--max-bias
    /// SIZE`, fair within that size.
    NoBiasDetected = 0,
    /// 1: bias detected.
    BiasDetected = 1,
    /// 2: bad flags or input, unwritable output, or a run that could not be done.
    Error = 2,
    /// 3: inconclusive (`--max-bias` only): no bias detected, but the sample does not show the
    /// bias within the size either.
    Inconclusive = 3,
    /// 130: interrupted by Ctrl-C (the report of what was tallied was still written).
    Interrupted = 130,
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(code: ExitCode) -> Self {
        std::process::ExitCode::from(code as u8)
    }
}
