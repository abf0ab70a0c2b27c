//! Runs a parsed command: validated config → engine → report → exporter → stdout or `-o FILE`.
//!
//! This is the only place that touches the terminal: progress and warnings go to stderr, the
//! report to stdout (or the file). A closed stdout (`| head`) ends the command quietly.

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::algorithms::{Algorithm, Shuffle};
use crate::cli::{Cli, Command, ListArgs};
use crate::comparison::{CompareFacts, CompareRow, build_compare_report};
use crate::config::{
    CheckConfig, CompareConfig, OutputConfig, RunConfig, TheoryConfig, UsageError,
};
use crate::emit::emit_permutations;
use crate::exact::MAX_EXACT_DECK;
use crate::exact::{ExactError, Law, exact_law};
use crate::exit_code::ExitCode;
use crate::export::svg::SvgExporter;
use crate::export::{Exporter, Report, exporter};
use crate::marginal::MarginalTally;
use crate::mixing::build_mixing_report;
use crate::permutation_reader::{InputCounts, open_sources, read_permutations};
use crate::progress::Progress;
use crate::report::{Against, Origin, RunFacts, build_run_report, build_theory_report};
use crate::report::{InputSummary, RunReport};
use crate::report::{MarginalTheory, TallyMode, build_marginal_report};
use crate::simulate::Tally;
use crate::simulate::{SimulationSpec, simulate};
use crate::simulate_marginal::simulate_marginal;

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// A message for stderr (exit 2).
    Message(String),
    /// stdout was closed by the reader: end quietly.
    BrokenPipe,
}

impl From<UsageError> for Failure {
    fn from(error: UsageError) -> Self {
        Failure::Message(error.0)
    }
}

/// Run the command and say how the process should end.
pub fn execute(cli: Cli) -> Result<ExitCode, Failure> {
    match cli.command {
        Command::Run(args) => run(RunConfig::from_args(&args)?),
        Command::Compare(args) => compare(CompareConfig::from_args(&args)?),
        Command::Check(args) => check(CheckConfig::from_args(&args)?),
        Command::Theory(args) => theory(TheoryConfig::from_args(&args)?),
        Command::List(args) => list(&args),
    }
}

/// Where a report goes: stdout or `-o FILE`, and the `--plot` picture if asked for.
pub struct Destinations {
    report: Box<dyn Write>,
    plot: Option<(PathBuf, File)>,
}

/// The report's destinations, created before any long work so that a bad path fails at once.
fn open_output(output: &OutputConfig) -> Result<Destinations, Failure> {
    let report = match &output.path {
        None => Box::new(io::stdout().lock()) as Box<dyn Write>,
        Some(path) => File::create(path)
            .map(|file| Box::new(io::BufWriter::new(file)) as Box<dyn Write>)
            .map_err(|error| {
                Failure::Message(format!(
                    "-o {}: cannot create the file ({error}); check the directory exists and is \
                     writable",
                    path.display()
                ))
            })?,
    };
    let plot = match &output.plot {
        None => None,
        Some(path) => Some((
            path.clone(),
            File::create(path).map_err(|error| {
                Failure::Message(format!(
                    "--plot {}: cannot create the file ({error}); check the directory exists \
                     and is writable",
                    path.display()
                ))
            })?,
        )),
    };
    Ok(Destinations { report, plot })
}

fn write_report(
    output: &OutputConfig,
    report: &Report,
    out: &mut Destinations,
) -> Result<(), Failure> {
    if let Some((path, file)) = &mut out.plot {
        let mut writer = io::BufWriter::new(file);
        SvgExporter
            .export(report, &mut writer)
            .and_then(|()| writer.flush())
            .map_err(|error| Failure::Message(format!("--plot {}: {error}", path.display())))?;
    }
    let out = &mut out.report;
    let result = exporter(output.format, output.table, output.colour)
        .export(report, out)
        .and_then(|()| out.flush());
    result.map_err(|error| match error.kind() {
        io::ErrorKind::BrokenPipe => Failure::BrokenPipe,
        io::ErrorKind::InvalidInput => Failure::Message(error.to_string()),
        _ => Failure::Message(match &output.path {
            Some(path) => format!("-o {}: writing the report failed: {error}", path.display()),
            None => format!("writing the report to stdout failed: {error}"),
        }),
    })
}

fn run(config: RunConfig) -> Result<ExitCode, Failure> {
    let mut out = open_output(&config.output)?;
    let mut emitted = match &config.emit_permutations {
        None => None,
        Some(path) => Some(File::create(path).map_err(|error| {
            Failure::Message(format!(
                "--emit-permutations {}: cannot create the file ({error}); check the directory \
                 exists and is writable",
                path.display()
            ))
        })?),
    };
    // The theory is computed before the long run, so that an impossible `--against model`
    // fails at once.
    let theory = match config.mode {
        TallyMode::Full => {
            let law = exact_law(config.shuffle, config.deck, config.max_paths).map(Arc::new);
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
            let theory = marginal_theory(config.shuffle, config.deck, config.max_paths);
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
    let stop = stop_on_ctrl_c();
    let started = Instant::now();
    let mut show = |done| progress.set(done);
    let (counted, tallied) = match config.mode {
        TallyMode::Full => {
            let tally = simulate(&spec, &stop, &mut show);
            let tallied = tally.trials;
            (Counted::Full(tally), tallied)
        }
        TallyMode::Marginal => {
            let tally = simulate_marginal(&spec, &stop, &mut show);
            let tallied = tally.trials;
            (Counted::Marginal(tally), tallied)
        }
    };
    let elapsed_seconds = started.elapsed().as_secs_f64();
    progress.finish();
    if let (Some(file), Some(path)) = (emitted.as_mut(), &config.emit_permutations) {
        if tallied < spec.trials {
            // The completed blocks need not be contiguous: write nothing rather than a file
            // whose counts would not match the report.
            let _ = std::fs::remove_file(path);
            eprintln!(
                "shuffle-bias: interrupted: {} was not written",
                path.display()
            );
        } else {
            emit_permutations(&spec, file).map_err(|error| {
                Failure::Message(format!(
                    "--emit-permutations {}: writing failed: {error}",
                    path.display()
                ))
            })?;
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
    };
    let report = match (counted, theory) {
        (Counted::Full(tally), Theory::Full(law)) => build_run_report(&facts, tally, law),
        (Counted::Marginal(tally), Theory::Marginal(theory)) => {
            build_marginal_report(&facts, tally, theory)
        }
        _ => unreachable!("the tally and the theory follow the same mode"),
    };
    finish_run(&config.output, &report, &mut out)
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
fn marginal_theory(shuffle: Shuffle, deck: usize, max_paths: u64) -> MarginalTheory {
    if deck <= MAX_EXACT_DECK
        && let Ok(law) = exact_law(shuffle, deck, max_paths)
    {
        MarginalTheory::from_law(&law)
    } else if shuffle.algorithm == Algorithm::Riffle {
        MarginalTheory::riffle(deck, shuffle.passes)
    } else {
        MarginalTheory::default()
    }
}

fn compare(config: CompareConfig) -> Result<ExitCode, Failure> {
    let mut out = open_output(&config.output)?;
    let settings = &config.settings;
    let total = settings.trials * config.algorithms.len() as u64;
    let progress = Progress::new(total, "shuffles", config.quiet);
    let stop = stop_on_ctrl_c();
    let started = Instant::now();
    let mut rows = Vec::with_capacity(config.algorithms.len());
    let mut not_run = Vec::new();
    for (index, &algorithm) in config.algorithms.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            not_run.push(algorithm.name());
            continue;
        }
        let law = exact_law(algorithm, settings.deck, config.max_paths).map(Arc::new);
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
        let tally = simulate(&spec, &stop, &mut |done| progress.set(offset + done));
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
    write_report(&config.output, &Report::Compare(&report), &mut out)?;
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
    out: &mut Destinations,
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

/// A flag that Ctrl-C sets: the engines stop at their next block or buffer, and the report of
/// what was done is still written. (A handler can be installed once per process; should that
/// fail, Ctrl-C keeps its default effect.)
fn stop_on_ctrl_c() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let handler_stop = Arc::clone(&stop);
    let _ = ctrlc::set_handler(move || handler_stop.store(true, Ordering::Relaxed));
    stop
}

/// Warnings to stderr, the report to its destination, and the verdict's exit code.
fn publish(
    output: &OutputConfig,
    report: &RunReport,
    out: &mut Destinations,
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
    let mut out = open_output(&config.output)?;
    let inputs = open_sources(&config.sources).map_err(|e| Failure::Message(e.to_string()))?;
    let model = config.model;
    let progress = Progress::counter("lines", config.quiet);
    let stop = stop_on_ctrl_c();
    let started = Instant::now();
    let input = read_permutations(
        &config.sources,
        inputs,
        &config.reader,
        &stop,
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
            exact_law(shuffle, input.deck, config.max_paths)
                .map_err(|error| no_law(shuffle, error.to_string()))?,
        )))),
        (InputCounts::Marginal(_), None) => Theory::Marginal(MarginalTheory::default()),
        (InputCounts::Marginal(_), Some(shuffle)) => {
            let theory = marginal_theory(shuffle, input.deck, config.max_paths);
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
    let verdict = publish(&config.output, &report, &mut out)?;
    Ok(if report.interrupted {
        eprintln!(
            "shuffle-bias: interrupted after {} permutation{}; the report covers those only",
            report.trials,
            if report.trials == 1 { "" } else { "s" }
        );
        ExitCode::Interrupted
    } else {
        verdict
    })
}

fn theory(config: TheoryConfig) -> Result<ExitCode, Failure> {
    let mut out = open_output(&config.output)?;
    if let Some(range) = config.mixing {
        let report = build_mixing_report(
            config.shuffle,
            config.deck,
            range.first,
            range.last,
            config.max_paths,
        )
        .map_err(|error| {
            Failure::Message(format!(
                "--passes {}..{}: no mixing curve for {} at {} cards: {error}",
                range.first,
                range.last,
                config.shuffle.algorithm.name(),
                config.deck
            ))
        })?;
        write_report(&config.output, &Report::Mixing(&report), &mut out)?;
        return Ok(ExitCode::NoBiasDetected);
    }
    let law = exact_law(config.shuffle, config.deck, config.max_paths).map_err(|error| {
        Failure::Message(format!(
            "no exact law for {} at {} cards: {error}",
            config.shuffle.label(),
            config.deck
        ))
    })?;
    let report = build_theory_report(config.shuffle, Arc::new(law), config.alpha);
    write_report(&config.output, &Report::Theory(&report), &mut out)?;
    Ok(ExitCode::NoBiasDetected)
}

fn list(args: &ListArgs) -> Result<ExitCode, Failure> {
    let output = OutputConfig {
        format: args.output.format,
        table: args.output.table,
        path: args.output.output.clone(),
        plot: None,
        colour: false,
    };
    if let Some(path) = &args.output.plot {
        return Err(Failure::Message(format!(
            "--plot {}: `list` has nothing to draw; use --plot with run, check, theory or compare",
            path.display()
        )));
    }
    let mut out = open_output(&output)?;
    write_report(&output, &Report::List(&Algorithm::ALL), &mut out)?;
    Ok(ExitCode::NoBiasDetected)
}
