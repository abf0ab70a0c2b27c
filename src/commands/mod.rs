//! Runs a parsed command: validated config → engine → report → exporter → stdout or `-o FILE`.
//!
//! This is the only place that touches the terminal: progress and warnings go to stderr, the
//! report to stdout (or the file). A closed stdout (`| head`) ends the command quietly.

mod case;
mod check;
mod compare;
mod completions;
pub mod exit_code;
mod failure;
mod list;
mod merge;
mod process;
mod run;
mod saved_tally;
mod sequential;
mod theory;

use std::cell::RefCell;
use std::io::{self, IsTerminal, Write};

use crate::analysis::ruled_out::GateOutcome;
use crate::cli::{Cli, Command};
use crate::config::{
    CaseConfig, CheckConfig, CompareConfig, MergeConfig, OutputConfig, RunConfig, TheoryConfig,
};
use crate::commands::exit_code::ExitCode;
use crate::system::interrupt;
use crate::judge::Watch;
use crate::output::brief::BriefExporter;
use crate::output::files::{OutputFile, Target};
use crate::output::interruptible::Interruptible;
use crate::output::progress::Progress;
use crate::output::svg::SvgExporter;
use crate::output::{Exporter, Format, Report, exporter};
use crate::report::run::RunReport;

pub use failure::{Failure, Interruption, NoLaw};
pub use process::command_line;

/// Run the command and say how the process should end.
pub fn execute(cli: Cli) -> Result<ExitCode, Failure> {
    interrupt::install();
    match cli.command {
        Command::Run(args) => run::run(RunConfig::from_args(&args)?),
        Command::Compare(args) => compare::compare(CompareConfig::from_args(&args)?),
        Command::Check(args) => check::check(CheckConfig::from_args(&args)?),
        Command::Theory(args) => theory::theory(TheoryConfig::from_args(&args)?),
        Command::List(args) => list::list(&args),
        Command::Completions(args) => completions::completions(&args),
        Command::Man(args) => completions::man(&args),
        Command::Merge(args) => merge::merge(MergeConfig::from_args(&args)?),
        Command::Case(args) => case::case(CaseConfig::from_args(args)?),
    }
}

/// One output: stdout, or a file written aside and put in place by [`Sink::commit`].
enum Sink {
    Stdout,
    File(OutputFile),
}

impl Sink {
    /// Open `target` for `flag`: a file is created at once, so a bad path fails before any
    /// long work.
    fn open(flag: &'static str, target: &Target) -> Result<Sink, Failure> {
        Ok(match target {
            Target::Stdout => Sink::Stdout,
            Target::File(path) => Sink::File(OutputFile::create(flag, path)?),
        })
    }

    /// Write with `write`. A closed stdout (`| head`) is no failure: the writing stops quietly
    /// and the command still ends with its verdict's exit code. A Ctrl-C that comes while
    /// writing stops it: the command ends with 130 and the file is not put in place (stdout
    /// just stops); one that came before (the report is of an interrupted run) does not.
    fn write_with(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Failure> {
        let mut stopped = false;
        let result = self.write_polling_with(|writer| {
            let mut writer = Interruptible::new(writer, interrupt::flag());
            let result = write(&mut writer);
            stopped = writer.stopped();
            result
        });
        if stopped {
            return Err(Failure::Interrupted(Interruption::Writing {
                output: match self {
                    Sink::Stdout => None,
                    Sink::File(file) => Some((file.flag(), file.path().to_path_buf())),
                },
            }));
        }
        result
    }

    /// Write with `write`, which polls the Ctrl-C flag itself (as the emission of the shuffles
    /// does, to say what was not written); otherwise as [`Sink::write_with`].
    fn write_polling_with(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Failure> {
        let result = match self {
            Sink::Stdout => {
                let mut stdout = io::stdout().lock();
                write(&mut stdout).and_then(|()| stdout.flush())
            }
            Sink::File(file) => write(file),
        };
        match (result, self) {
            (Ok(()), _) => Ok(()),
            (Err(error), Sink::Stdout) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            (Err(error), _) if error.kind() == io::ErrorKind::InvalidInput => {
                Err(Failure::Export(error))
            }
            (Err(error), Sink::Stdout) => Err(Failure::Stdout(error)),
            (Err(error), Sink::File(file)) => Err(file.write_failed(error).into()),
        }
    }

    /// Put a finished file in place (stdout needs nothing).
    fn commit(self) -> Result<(), Failure> {
        match self {
            Sink::Stdout => Ok(()),
            Sink::File(file) => Ok(file.commit()?),
        }
    }
}

/// Where a report goes: stdout or `-o FILE`, and the `--plot` picture if asked for.
pub struct Destinations {
    report: Sink,
    plot: Option<Sink>,
}

/// The report's destinations, created before any long work so that a bad path fails at once.
fn open_output(output: &OutputConfig) -> Result<Destinations, Failure> {
    Ok(Destinations {
        report: Sink::open("-o", &output.report)?,
        plot: match &output.plot {
            None => None,
            Some(target) => Some(Sink::open("--plot", target)?),
        },
    })
}

/// Write the picture and the report, then put their files in place. Nothing is renamed into
/// place unless everything was written.
fn write_report(
    output: &OutputConfig,
    report: &Report,
    mut out: Destinations,
) -> Result<(), Failure> {
    if let Some(plot) = &mut out.plot {
        plot.write_with(|writer| SvgExporter.export(report, writer))?;
    }
    out.report.write_with(|writer| {
        if output.brief {
            BriefExporter {
                colour: output.terminal.colour,
            }
            .export(report, writer)
        } else {
            exporter(output.format, output.table, output.terminal).export(report, writer)
        }
    })?;
    if let Some(plot) = out.plot {
        plot.commit()?;
    }
    out.report.commit()
}

/// Judging's long phases and warnings, shown on the terminal: a spinner while an exact law is
/// computed (none with `--quiet`), each warning on stderr.
pub(crate) struct OnTerminal {
    quiet: bool,
    spinner: RefCell<Option<Progress>>,
}

impl OnTerminal {
    /// Spinners unless `quiet`; warnings always.
    pub(crate) fn new(quiet: bool) -> OnTerminal {
        OnTerminal {
            quiet,
            spinner: RefCell::new(None),
        }
    }
}

impl Watch for OnTerminal {
    fn phase_started(&self, what: &str) {
        *self.spinner.borrow_mut() = Some(Progress::phase(what, self.quiet));
    }

    fn phase_finished(&self) {
        if let Some(spinner) = self.spinner.borrow_mut().take() {
            spinner.finish();
        }
    }

    fn warning(&self, message: &str) {
        stderr_line!("warning: {message}");
    }
}

/// A run's tally in either mode (the type a tally file stores).
use crate::tally_file::Counts as Counted;

/// Publish a run's report and choose the exit code (130 after Ctrl-C).
fn finish_run(
    output: &OutputConfig,
    report: &RunReport,
    out: Destinations,
) -> Result<ExitCode, Failure> {
    let verdict = publish(output, report, out)?;
    Ok(if report.header.interrupted {
        stderr_line!(
            "shuffle-bias: interrupted after {} of {} trials; the report covers those only",
            report.header.trials, report.header.trials_requested
        );
        ExitCode::Interrupted
    } else {
        verdict
    })
}

/// Warnings to stderr, the report to its destination, and the verdict's exit code (also when
/// the reader of stdout went away before the end).
fn publish(
    output: &OutputConfig,
    report: &RunReport,
    out: Destinations,
) -> Result<ExitCode, Failure> {
    // A table or Markdown report carries its warnings itself (a CI summary must show them);
    // on a terminal that already shows it, stderr would only repeat them.
    let shown_in_report = matches!(output.format, Format::Table | Format::Markdown)
        && !output.brief
        && output.report == Target::Stdout
        && std::io::stdout().is_terminal();
    if !shown_in_report {
        for warning in &report.warnings {
            stderr_line!("warning: {warning}");
        }
    }
    write_report(output, &Report::Run(report), out)?;
    Ok(match report.gate.as_ref().map(|gate| gate.outcome) {
        Some(GateOutcome::FairWithin) => ExitCode::NoBiasDetected,
        Some(GateOutcome::Inconclusive) => ExitCode::Inconclusive,
        Some(GateOutcome::BiasDetected) => ExitCode::BiasDetected,
        None if report.bias_detected => ExitCode::BiasDetected,
        None => ExitCode::NoBiasDetected,
    })
}
