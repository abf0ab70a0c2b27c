//! Runs a parsed command: validated config → engine → report → exporter → stdout or `-o FILE`.
//!
//! This is the only place that touches the terminal: progress and warnings go to stderr, the
//! report to stdout (or the file). A closed stdout (`| head`) ends the command quietly.

mod check;
mod compare;
mod completions;
mod failure;
mod list;
mod merge;
mod run;
mod saved_tally;
mod sequential;
mod theory;

use std::io::{self, IsTerminal, Write};
use std::sync::Arc;

use crate::analysis::ruled_out::{BiasSize, GateOutcome};
use crate::cli::{Cli, Command};
use crate::config::{
    CheckConfig, CompareConfig, MergeConfig, OutputConfig, RunConfig, TheoryConfig, UsageError,
};
use crate::engine::algorithms::{Algorithm, Shuffle};
use crate::exit_code::ExitCode;
use crate::interrupt;
use crate::output::brief::BriefExporter;
use crate::output::files::{OutputFile, Target};
use crate::output::interruptible::Interruptible;
use crate::output::progress::Progress;
use crate::output::svg::SvgExporter;
use crate::output::{Exporter, Format, Report, exporter};
use crate::report::run::MarginalTheory;
use crate::report::run::RunReport;
use crate::theory::exact::MAX_EXACT_DECK;
use crate::theory::exact::{ChoiceLaw, ExactError, Law, STEP_PROPAGATION, exact_law_under};

pub use failure::{Failure, Interruption, NoLaw};

pub(crate) use check::{Judging, judge_input};

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
            BriefExporter.export(report, writer)
        } else {
            exporter(output.format, output.table, output.terminal).export(report, writer)
        }
    })?;
    if let Some(plot) = out.plot {
        plot.commit()?;
    }
    out.report.commit()
}

/// The exact law, with a spinner on the terminal while it is computed; Ctrl-C meanwhile ends
/// the command (there is nothing to report yet). A `--max-paths` that the chosen method does
/// not consult is said to be unused on stderr, rather than silently ignored.
fn exact_law_shown(
    shuffle: Shuffle,
    deck: usize,
    max_paths: u64,
    max_paths_given: bool,
    law: Option<ChoiceLaw>,
    quiet: bool,
) -> Result<Result<Law, ExactError>, Failure> {
    let progress = Progress::phase(
        &format!(
            "computing the exact law of {} on {deck} cards",
            shuffle.label()
        ),
        quiet,
    );
    let law = exact_law_under(shuffle, deck, max_paths, law);
    progress.finish();
    match law {
        Err(ExactError::Interrupted) => Err(Failure::Interrupted(Interruption::ExactLaw {
            shuffle: shuffle.label(),
            deck,
        })),
        Ok(law) => {
            if max_paths_given && law.method == STEP_PROPAGATION && shuffle.passes == 1 {
                eprintln!(
                    "warning: --max-paths {max_paths} was not used: the exact law of {} is \
                     propagated step by step (one sweep of the {deck}! orderings per choice), \
                     which no path budget limits",
                    shuffle.label()
                );
            }
            Ok(Ok(law))
        }
        law => Ok(law),
    }
}

/// What a run compares its tally with: the exact law of every ordering, or what is known of
/// the marginals.
pub(crate) enum Theory {
    /// Every ordering: the exact law, when it was asked for (or why it is unavailable).
    Full(Option<Result<Arc<Law>, ExactError>>),
    /// What is known of the marginals.
    Marginal(MarginalTheory),
    /// Dealt hands: the model's slot marginals and identity, if any.
    Deal(crate::report::run::DealTheory),
}

/// A run's tally in either mode (the type a tally file stores).
use crate::tally_file::Counts as Counted;

/// What theory knows of the marginals of `config`'s shuffle: everything, from the exact law,
/// on a deck small enough for one; the rising sequences of the riffle, from its closed form,
/// on any deck; nothing otherwise.
fn marginal_theory(
    shuffle: Shuffle,
    deck: usize,
    max_paths: u64,
    max_paths_given: bool,
    law: Option<ChoiceLaw>,
    quiet: bool,
) -> Result<MarginalTheory, Failure> {
    if deck <= MAX_EXACT_DECK
        && let Ok(law) = exact_law_shown(shuffle, deck, max_paths, max_paths_given, law, quiet)?
    {
        Ok(MarginalTheory::from_law(&law))
    } else if shuffle.algorithm == Algorithm::Riffle && law.is_none() {
        // The closed form assumes fair coins, not a biased mapping's.
        Ok(MarginalTheory::riffle(deck, shuffle.passes))
    } else {
        Ok(MarginalTheory::default())
    }
}

/// Publish a run's report and choose the exit code (130 after Ctrl-C).
fn finish_run(
    output: &OutputConfig,
    report: &RunReport,
    out: Destinations,
) -> Result<ExitCode, Failure> {
    let verdict = publish(output, report, out)?;
    Ok(if report.header.interrupted {
        eprintln!(
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
            eprintln!("warning: {warning}");
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

/// The report with the gate of `--max-bias size` decided, when asked for; an error when the
/// report has no bound of that kind (a total variation size on a deck read to be too large for
/// every ordering, or files saved against a model).
fn gated(report: RunReport, size: Option<BiasSize>) -> Result<RunReport, Failure> {
    let Some(size) = size else {
        return Ok(report);
    };
    let report = report.with_gate(size);
    if report.gate.is_none() {
        let hint = if report.ruled_out.is_none() {
            "a size of bias is a distance from uniform, and this report tests a model's law; \
             drop --max-bias"
        } else {
            "a total variation distance needs every ordering tallied (at most 11 cards); use \
             a size in position points such as 1pp"
        };
        return Err(UsageError::conflict("--max-bias", size.label(), hint).into());
    }
    Ok(report)
}
