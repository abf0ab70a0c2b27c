//! The `shuffle-bias` binary: parse, run, map the outcome to an exit code.

use clap::Parser;
use shuffle_bias::cli::Cli;
use shuffle_bias::commands::{Failure, execute};
use shuffle_bias::exit_code::ExitCode;

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match execute(cli) {
        Ok(code) => code.into(),
        Err(Failure::Message(message)) => {
            eprintln!("shuffle-bias: error: {message}");
            ExitCode::Error.into()
        }
        Err(Failure::Interrupted(doing)) => {
            eprintln!("shuffle-bias: interrupted {doing}");
            ExitCode::Interrupted.into()
        }
    }
}
