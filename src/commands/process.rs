//! The command line as a process: parse the arguments, run the command, map the outcome to
//! the exit code (0 no bias detected, 1 bias detected, 2 an error, 3 inconclusive, 130 Ctrl-C).

use clap::{CommandFactory, FromArgMatches};
use super::{Failure, execute};
use crate::cli::{Cli, parse_generator};
use crate::commands::exit_code::ExitCode;

/// Run `shuffle-bias` with the process's arguments, as the binary does: the report on stdout,
/// progress and messages on stderr, and the exit code to end the process with.
pub fn command_line() -> std::process::ExitCode {
    let parsed = Cli::command()
        .long_version(long_version())
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error),
    };
    match execute(cli) {
        Ok(code) => code.into(),
        Err(failure) => {
            let code = exit_code(&failure);
            if code == ExitCode::Interrupted {
                stderr_line!("shuffle-bias: {failure}");
            } else {
                stderr_line!("shuffle-bias: error: {failure}");
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
    stderr_text!("shuffle-bias: error: {text}");
    ExitCode::Error.into()
}

/// `--version`: the version, then what this build can do — its target, the CPU-specific paths
/// and whether this machine runs them, the generators and mappings (`-V` gives the first line).
fn long_version() -> String {
    use crate::engine::mapping::Mapping;
    let mut text = format!(
        "{}\nbuild: {}-{}, {}\nfast paths (same counts as the portable code, only faster):\n",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::ARCH,
        std::env::consts::OS,
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
    );
    for path in crate::engine::fast_paths()
        .into_iter()
        .chain(crate::input::fast_paths())
    {
        let state = match (path.built, path.runs) {
            (true, true) => "on",
            (true, false) => "off (this CPU lacks it)",
            (false, _) => "not in this build",
        };
        text.push_str(&format!("  {} ({}): {state}\n", path.name, path.needs));
    }
    use crate::engine::random_source::RngKind;
    let chacha = [RngKind::Chacha8, RngKind::Chacha12, RngKind::Chacha20].map(RngKind::name);
    let others = crate::engine::generators::GeneratorKind::ALL.map(|kind| kind.name());
    // Only names `--rng` takes: a generator added to one list but not the parser is not shown.
    let generators: Vec<&str> = chacha
        .into_iter()
        .chain(others)
        .filter(|name| parse_generator(name).is_ok())
        .collect();
    let mappings: Vec<&str> = Mapping::ALL.iter().map(|mapping| mapping.name()).collect();
    text.push_str(&format!("generators (--rng): {}\n", generators.join(", ")));
    text.push_str(&format!("mappings (--map): {}", mappings.join(", ")));
    text
}
