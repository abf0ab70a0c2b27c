//! Runs a parsed command: validated config → engine → report → exporter → stdout or `-o FILE`.
//!
//! This is the only place that touches the terminal: progress and warnings go to stderr, the
//! report to stdout (or the file). A closed stdout (`| head`) ends the command quietly.

use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::engine::algorithms::{Algorithm, Shuffle};
use crate::cli::{Cli, Command, ListArgs};
use crate::report::comparison::{CompareFacts, CompareRow, build_compare_report};
use crate::config::{
    CheckConfig, CompareConfig, OutputConfig, RunConfig, TheoryConfig, UsageError, output_config,
};
use crate::engine::emit::emit_permutations;
use crate::theory::exact::MAX_EXACT_DECK;
use crate::theory::exact::{ExactError, Law, STEP_PROPAGATION, exact_law};
use crate::exit_code::ExitCode;
use crate::output::svg::SvgExporter;
use crate::output::table::plural;
use crate::output::{Exporter, Report, Terminal, exporter};
use crate::interrupt;
use crate::engine::marginal::MarginalTally;
use crate::theory::mixing::build_mixing_report;
use crate::output::files::{OutputFile, Target};
use crate::input::permutation_reader::{InputCounts, open_sources, read_permutations};
use crate::output::progress::Progress;
use crate::report::run::{Against, Origin, RunFacts, build_run_report, build_theory_report};
use crate::report::run::{InputSummary, RunReport};
use crate::report::run::{MarginalTheory, TallyMode, build_marginal_report};
use crate::engine::simulate::Tally;
use crate::engine::simulate::{SimulationSpec, simulate};
use crate::engine::simulate_marginal::simulate_marginal;

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// A message for stderr (exit 2).
    Message(String),
    /// Ctrl-C came before there was anything to report: what was being done (exit 130).
    Interrupted(String),
}

impl From<UsageError> for Failure {
    fn from(error: UsageError) -> Self {
        Failure::Message(error.0)
    }
}

/// Run the command and say how the process should end.
pub fn execute(cli: Cli) -> Result<ExitCode, Failure> {
    interrupt::install();
    match cli.command {
        Command::Run(args) => run(RunConfig::from_args(&args)?),
        Command::Compare(args) => compare(CompareConfig::from_args(&args)?),
        Command::Check(args) => check(CheckConfig::from_args(&args)?),
        Command::Theory(args) => theory(TheoryConfig::from_args(&args)?),
        Command::List(args) => list(&args),
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
            Target::File(path) => {
                Sink::File(OutputFile::create(flag, path).map_err(Failure::Message)?)
            }
        })
    }

    /// Write with `write`. A closed stdout (`| head`) is no failure: the writing stops quietly
    /// and the command still ends with its verdict's exit code.
    fn write_with(
        &mut self,
        flag: &str,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Failure> {
        let result = match self {
            Sink::Stdout => {
                let mut stdout = io::stdout().lock();
                write(&mut stdout).and_then(|()| stdout.flush())
            }
            Sink::File(file) => write(file),
        };
        match result {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == io::ErrorKind::BrokenPipe => match self {
                Sink::Stdout => Ok(()),
                Sink::File(file) => Err(Failure::Message(format!(
                    "{flag} {}: writing failed: {error}",
                    file.path().display()
                ))),
            },
            Err(error) if error.kind() == io::ErrorKind::InvalidInput => {
                Err(Failure::Message(error.to_string()))
            }
            Err(error) => Err(Failure::Message(match self {
                Sink::Stdout => format!("writing to stdout failed: {error}"),
                Sink::File(file) => {
                    format!("{flag} {}: writing failed: {error}", file.path().display())
                }
            })),
        }
    }

    /// Put a finished file in place (stdout needs nothing).
    fn commit(self) -> Result<(), Failure> {
        match self {
            Sink::Stdout => Ok(()),
            Sink::File(file) => file.commit().map_err(Failure::Message),
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
        plot.write_with("--plot", |writer| SvgExporter.export(report, writer))?;
    }
    out.report.write_with("-o", |writer| {
        exporter(output.format, output.table, output.terminal).export(report, writer)
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
    quiet: bool,
) -> Result<Result<Law, ExactError>, Failure> {
    let progress = Progress::phase(
        &format!(
            "computing the exact law of {} on {deck} cards",
            shuffle.label()
        ),
        quiet,
    );
    let law = exact_law(shuffle, deck, max_paths);
    progress.finish();
    match law {
        Err(ExactError::Interrupted) => Err(Failure::Interrupted(format!(
            "while computing the exact law of {} on {deck} cards; nothing was reported",
            shuffle.label()
        ))),
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

fn run(config: RunConfig) -> Result<ExitCode, Failure> {
    let out = open_output(&config.output)?;
    let mut emitted = match &config.emit_permutations {
        None => None,
        Some(target) => Some(Sink::open("--emit-permutations", target)?),
    };
    // The theory is computed before the long run, so that an impossible `--against model`
    // fails at once.
    let theory = match config.mode {
        TallyMode::Full => {
            let law = exact_law_shown(
                config.shuffle,
                config.deck,
                config.max_paths,
                config.max_paths_given,
                config.quiet,
            )?
            .map(Arc::new);
            if let (Against::Model, Err(error)) = (config.against, &law) {
                return Err(Failure::Message(format!(
                    "--against model: no exact law for {} at {} cards: {error}; use --against \
                     uniform",
                    config.shuffle.label(),
                    config.deck
                )));
            }
            Theory::Full(Some(law))
        }
        TallyMode::Marginal => {
            let theory = marginal_theory(
                config.shuffle,
                config.deck,
                config.max_paths,
                config.max_paths_given,
                config.quiet,
            )?;
            if config.against == Against::Model && theory.source.is_none() {
                return Err(Failure::Message(format!(
                    "--against model: no exact law of {} is known at {} cards in marginal mode; \
                     use --against uniform",
                    config.shuffle.label(),
                    config.deck
                )));
            }
            Theory::Marginal(theory)
        }
    };

    let spec = SimulationSpec {
        shuffle: config.shuffle,
        deck: config.deck,
        trials: config.trials,
        seed: config.seed,
        rng: config.rng,
        threads: config.threads,
    };
    let progress = Progress::new(config.trials, "shuffles", config.quiet);
    let stop = interrupt::flag();
    let started = Instant::now();
    let mut show = |done| progress.set(done);
    let (counted, tallied) = match config.mode {
        TallyMode::Full => {
            let tally = simulate(&spec, stop, &mut show);
            let tallied = tally.trials;
            (Counted::Full(tally), tallied)
        }
        TallyMode::Marginal => {
            let tally = simulate_marginal(&spec, stop, &mut show);
            let tallied = tally.trials;
            (Counted::Marginal(tally), tallied)
        }
    };
    let elapsed_seconds = started.elapsed().as_secs_f64();
    progress.finish();
    let mut emit_interrupted = false;
    if let (Some(mut sink), Some(target)) = (emitted.take(), &config.emit_permutations) {
        let name = match target {
            Target::Stdout => "stdout".to_string(),
            Target::File(path) => path.display().to_string(),
        };
        // The completed shuffles need not be contiguous after a stop: write nothing rather than
        // a file whose counts would not match the report.
        let mut complete = tallied == spec.trials;
        if complete {
            sink.write_with("--emit-permutations", |writer| {
                complete = emit_permutations(&spec, writer, stop)?;
                Ok(())
            })?;
        }
        if complete {
            sink.commit()?;
        } else {
            emit_interrupted = true;
            eprintln!("shuffle-bias: interrupted: the permutations were not written to {name}");
        }
    }

    let facts = RunFacts {
        command: "run",
        shuffle: Some(config.shuffle),
        origin: Origin::Simulation {
            seed: config.seed,
            rng: config.rng,
            threads: config.threads,
        },
        trials_requested: config.trials,
        elapsed_seconds,
        interrupted: tallied < config.trials,
        alpha: config.alpha,
        against: config.against,
        all_orderings: config.all_orderings,
    };
    let report = match (counted, theory) {
        (Counted::Full(tally), Theory::Full(law)) => build_run_report(&facts, tally, law),
        (Counted::Marginal(tally), Theory::Marginal(theory)) => {
            build_marginal_report(&facts, tally, theory)
        }
        _ => unreachable!("the tally and the theory follow the same mode"),
    };
    let code = finish_run(&config.output, &report, out)?;
    Ok(if emit_interrupted {
        ExitCode::Interrupted
    } else {
        code
    })
}

/// What a run compares its tally with: the exact law of every ordering, or what is known of
/// the marginals.
enum Theory {
    Full(Option<Result<Arc<Law>, ExactError>>),
    Marginal(MarginalTheory),
}

/// A run's tally in either mode.
enum Counted {
    Full(Tally),
    Marginal(MarginalTally),
}

/// What theory knows of the marginals of `config`'s shuffle: everything, from the exact law,
/// on a deck small enough for one; the rising sequences of the riffle, from its closed form,
/// on any deck; nothing otherwise.
fn marginal_theory(
    shuffle: Shuffle,
    deck: usize,
    max_paths: u64,
    max_paths_given: bool,
    quiet: bool,
) -> Result<MarginalTheory, Failure> {
    if deck <= MAX_EXACT_DECK
        && let Ok(law) = exact_law_shown(shuffle, deck, max_paths, max_paths_given, quiet)?
    {
        Ok(MarginalTheory::from_law(&law))
    } else if shuffle.algorithm == Algorithm::Riffle {
        Ok(MarginalTheory::riffle(deck, shuffle.passes))
    } else {
        Ok(MarginalTheory::default())
    }
}

fn compare(config: CompareConfig) -> Result<ExitCode, Failure> {
    let out = open_output(&config.output)?;
    let settings = &config.settings;
    // At most 2^53 in all (checked in the config).
    let total = settings.trials * config.algorithms.len() as u64;
    let progress = Progress::new(total, "shuffles", config.quiet);
    let stop = interrupt::flag();
    let started = Instant::now();
    let mut rows = Vec::with_capacity(config.algorithms.len());
    let mut not_run = Vec::new();
    for (index, &algorithm) in config.algorithms.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            not_run.push(algorithm.name());
            continue;
        }
        let law = match exact_law(algorithm, settings.deck, config.max_paths) {
            Err(ExactError::Interrupted) => {
                not_run.push(algorithm.name());
                continue;
            }
            law => law.map(Arc::new),
        };
        let spec = SimulationSpec {
            shuffle: Shuffle::from(algorithm),
            deck: settings.deck,
            trials: settings.trials,
            seed: settings.seed,
            rng: settings.rng,
            threads: settings.threads,
        };
        let offset = settings.trials * index as u64;
        let run_started = Instant::now();
        let tally = simulate(&spec, stop, &mut |done| progress.set(offset + done));
        let facts = RunFacts {
            command: "run",
            shuffle: Some(Shuffle::from(algorithm)),
            origin: Origin::Simulation {
                seed: settings.seed,
                rng: settings.rng,
                threads: settings.threads,
            },
            trials_requested: settings.trials,
            elapsed_seconds: run_started.elapsed().as_secs_f64(),
            interrupted: tally.trials < settings.trials,
            alpha: settings.alpha,
            against: Against::Uniform,
            all_orderings: false,
        };
        // The row keeps what the table shows; the tally and the law are dropped here.
        rows.push(CompareRow::from_run(&build_run_report(
            &facts,
            tally,
            Some(law),
        )));
    }
    progress.finish();
    let facts = CompareFacts {
        deck: settings.deck,
        trials_requested: settings.trials,
        seed: settings.seed,
        rng: settings.rng,
        threads: settings.threads,
        alpha: settings.alpha,
        elapsed_seconds: started.elapsed().as_secs_f64(),
        not_run,
    };
    let report = build_compare_report(facts, rows);
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    write_report(&config.output, &Report::Compare(&report), out)?;
    Ok(if report.interrupted {
        eprintln!(
            "shuffle-bias: interrupted after {} of {} algorithms; the table covers those only",
            report.rows.len(),
            report.rows.len() + report.not_run.len()
        );
        ExitCode::Interrupted
    } else if report.all_as_expected {
        ExitCode::NoBiasDetected
    } else {
        ExitCode::BiasDetected
    })
}

/// Publish a run's report and choose the exit code (130 after Ctrl-C).
fn finish_run(
    output: &OutputConfig,
    report: &RunReport,
    out: Destinations,
) -> Result<ExitCode, Failure> {
    let verdict = publish(output, report, out)?;
    Ok(if report.interrupted {
        eprintln!(
            "shuffle-bias: interrupted after {} of {} trials; the report covers those only",
            report.trials, report.trials_requested
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
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    write_report(output, &Report::Run(report), out)?;
    Ok(if report.bias_detected {
        ExitCode::BiasDetected
    } else {
        ExitCode::NoBiasDetected
    })
}

fn check(config: CheckConfig) -> Result<ExitCode, Failure> {
    let out = open_output(&config.output)?;
    let inputs = open_sources(&config.sources).map_err(|e| Failure::Message(e.to_string()))?;
    let model = config.model;
    let progress = Progress::counter("lines", config.quiet);
    let stop = interrupt::flag();
    let started = Instant::now();
    let input = read_permutations(
        &config.sources,
        inputs,
        &config.reader,
        stop,
        &mut |lines| progress.set(lines),
    );
    let elapsed_seconds = started.elapsed().as_secs_f64();
    progress.finish();
    let input = match input {
        Err(error) if error.interrupted => {
            eprintln!("shuffle-bias: {error}");
            return Ok(ExitCode::Interrupted);
        }
        input => input.map_err(|e| Failure::Message(e.to_string()))?,
    };
    // The theory can only be computed once the deck size is known (possibly from the input).
    let no_law = |shuffle: Shuffle, error: String| {
        Failure::Message(format!(
            "--against {}: no exact law at {} cards: {error}",
            shuffle.label(),
            input.deck
        ))
    };
    let theory = match (&input.counts, model) {
        (InputCounts::Full(_), None) => Theory::Full(None),
        (InputCounts::Full(_), Some(shuffle)) => Theory::Full(Some(Ok(Arc::new(
            exact_law_shown(
                shuffle,
                input.deck,
                config.max_paths,
                config.max_paths_given,
                config.quiet,
            )?
            .map_err(|error| no_law(shuffle, error.to_string()))?,
        )))),
        (InputCounts::Marginal(_), None) => Theory::Marginal(MarginalTheory::default()),
        (InputCounts::Marginal(_), Some(shuffle)) => {
            let theory = marginal_theory(
                shuffle,
                input.deck,
                config.max_paths,
                config.max_paths_given,
                config.quiet,
            )?;
            if theory.source.is_none() {
                return Err(no_law(
                    shuffle,
                    "none is known for this deck in marginal mode".to_string(),
                ));
            }
            Theory::Marginal(theory)
        }
    };
    let facts = RunFacts {
        command: "check",
        shuffle: model,
        origin: Origin::Input(InputSummary {
            sources: input.sources.clone(),
            lines: input.lines,
            permutations: input.permutations,
            numbering: input.numbering,
            labels: config.reader.labels.clone(),
            invalid_lines: input.invalid,
            invalid_examples: input.invalid_examples.clone(),
        }),
        trials_requested: input.permutations,
        elapsed_seconds,
        interrupted: input.interrupted,
        alpha: config.alpha,
        against: if model.is_some() {
            Against::Model
        } else {
            Against::Uniform
        },
        all_orderings: config.all_orderings,
    };
    let report = match (input.counts, theory) {
        (InputCounts::Full(counts), Theory::Full(law)) => {
            let tally = Tally {
                deck: input.deck,
                counts,
                trials: input.permutations,
            };
            build_run_report(&facts, tally, law)
        }
        (InputCounts::Marginal(tally), Theory::Marginal(theory)) => {
            build_marginal_report(&facts, tally, theory)
        }
        _ => unreachable!("the tally and the theory follow the same mode"),
    };
    let verdict = publish(&config.output, &report, out)?;
    Ok(if report.interrupted {
        eprintln!(
            "shuffle-bias: interrupted after {}; the report covers those only",
            plural(report.trials, "permutation")
        );
        ExitCode::Interrupted
    } else {
        verdict
    })
}

fn theory(config: TheoryConfig) -> Result<ExitCode, Failure> {
    let out = open_output(&config.output)?;
    if let Some(range) = config.mixing {
        let progress = Progress::phase(
            &format!(
                "computing the mixing curve of {} on {} cards",
                config.shuffle.algorithm.name(),
                config.deck
            ),
            false,
        );
        let report = build_mixing_report(
            config.shuffle,
            config.deck,
            range.first,
            range.last,
            config.max_paths,
        );
        progress.finish();
        let report = report.map_err(|error| match error {
            ExactError::Interrupted => Failure::Interrupted(
                "while computing the mixing curve; nothing was reported".to_string(),
            ),
            error => Failure::Message(format!(
                "--passes {}..{}: no mixing curve for {} at {} cards: {error}",
                range.first,
                range.last,
                config.shuffle.algorithm.name(),
                config.deck
            )),
        })?;
        write_report(&config.output, &Report::Mixing(&report), out)?;
        return Ok(ExitCode::NoBiasDetected);
    }
    let law = exact_law_shown(
        config.shuffle,
        config.deck,
        config.max_paths,
        config.max_paths_given,
        false,
    )?
    .map_err(|error| {
        Failure::Message(format!(
            "no exact law for {} at {} cards: {error}",
            config.shuffle.label(),
            config.deck
        ))
    })?;
    let report = build_theory_report(
        config.shuffle,
        Arc::new(law),
        config.alpha,
        config.all_orderings,
    );
    write_report(&config.output, &Report::Theory(&report), out)?;
    Ok(ExitCode::NoBiasDetected)
}

fn list(args: &ListArgs) -> Result<ExitCode, Failure> {
    if let Some(path) = &args.output.plot {
        return Err(Failure::Message(format!(
            "--plot {}: `list` has nothing to draw; use --plot with run, check, theory or compare",
            path.display()
        )));
    }
    let output = OutputConfig {
        terminal: Terminal::default(),
        ..output_config(&args.output)?
    };
    let out = open_output(&output)?;
    write_report(&output, &Report::List(&Algorithm::ALL), out)?;
    Ok(ExitCode::NoBiasDetected)
}
