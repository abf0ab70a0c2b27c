//! The `shuffle-bias` binary: parse, run, map the outcome to an exit code.

use clap::Parser;
use shuffle_bias::cli::Cli;
use shuffle_bias::commands::{Failure, execute};
use shuffle_bias::exit_code::ExitCode;

fn main() -> std::process::ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error),
    };
    match execute(cli) {
        Ok(code) => code.into(),
        Err(failure) => {
            let code = exit_code(&failure);
            if code == ExitCode::Interrupted {
                eprintln!("shuffle-bias: {failure}");
            } else {
                eprintln!("shuffle-bias: error: {failure}");
            }
            code.into()
        }
    }
}

/// The exit code of a failure: 130 when Ctrl-C came before there was anything to report, 2
/// for everything else (bad flags or input, unwritable output, a law that cannot be had).
fn exit_code(failure: &Failure) -> ExitCode {
    match failure {
        Failure::Interrupted(_) => ExitCode::Interrupted,
        Failure::Input(error) if error.is_interrupted() => ExitCode::Interrupted,
        Failure::Usage(_)
        | Failure::File(_)
        | Failure::Input(_)
        | Failure::Producer(_)
        | Failure::Stdout(_)
        | Failure::Export(_)
        | Failure::NoLaw(_)
        | Failure::TallyFile(_)
        | Failure::Merge(_) => ExitCode::Error,
    }
}

/// Help and version go to stdout with exit 0, as clap prints them; a flag error goes to stderr
/// with exit 2 and the same `shuffle-bias: error:` prefix as every other error.
fn usage_error(error: &clap::Error) -> std::process::ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = error.print();
        return std::process::ExitCode::from(error.exit_code() as u8);
    }
    let text = error.render().to_string();
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    eprint!("shuffle-bias: error: {text}");
    ExitCode::Error.into()
}
