//! The validated configuration: every range, combination and resource limit is checked here,
//! once, before anything runs, with a message that names the flag and says how to fix it.

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::algorithms::Algorithm;
use crate::cli::{CheckAgainst, CheckArgs, CompareArgs, OutputArgs, RunArgs, TheoryArgs};
use crate::exact::{DEFAULT_MAX_PATHS, MAX_EXACT_DECK};
use crate::export::{CsvTable, Format};
use crate::permutation::{MAX_FULL_DECK, factorial};
use crate::permutation_reader::{InputSource, ReaderOptions, TallyMode};
use crate::random_source::RngKind;
use crate::report::Against;

/// Memory a run may take when the available memory cannot be read (bytes).
pub const FALLBACK_MEMORY_LIMIT: u64 = 8 << 30;

/// The memory a run needs, estimated before anything is allocated: per worker n! 32-bit
/// counters (plus n! 64-bit ones if a worker's share of trials could overflow them), the n!
/// 64-bit total, and the exact law (a 128-bit numerator, an f64 and a compensated f64 sum per
/// ordering) when the deck is small enough for one.
pub fn run_memory_bytes(deck: usize, trials: u64, threads: usize) -> u64 {
    let cells = factorial(deck);
    let per_worker = if trials.div_ceil(threads as u64) > u64::from(u32::MAX) {
        4 + 8
    } else {
        4
    };
    let law = if deck <= MAX_EXACT_DECK { 40 } else { 0 };
    cells * (per_worker * threads as u64 + 8 + law)
}

/// What a run may allocate: 80% of the memory the system reports available (Linux
/// `/proc/meminfo`), or [`FALLBACK_MEMORY_LIMIT`] where that cannot be read.
pub fn memory_limit() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("MemAvailable:"))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
        })
        .map_or(FALLBACK_MEMORY_LIMIT, |kib| kib * 1024 / 5 * 4)
}
/// The most worker threads accepted.
pub const MAX_THREADS: usize = 256;

/// A usage error: the message names the flag and the fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where and how the report is written.
#[derive(Debug, Clone)]
pub struct OutputConfig {
    /// The format.
    pub format: Format,
    /// The CSV table.
    pub table: CsvTable,
    /// The file, or None for stdout.
    pub path: Option<PathBuf>,
    /// Whether to colour the table (stdout is a terminal and NO_COLOR is not set).
    pub colour: bool,
}

/// A validated `run`.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Cards.
    pub deck: usize,
    /// Shuffles.
    pub trials: u64,
    /// Seed (given or drawn from the OS).
    pub seed: u64,
    /// Generator.
    pub rng: RngKind,
    /// Worker threads.
    pub threads: usize,
    /// Family-wise level.
    pub alpha: f64,
    /// Hypothesis.
    pub against: Against,
    /// Exact-law budget.
    pub max_paths: u64,
    /// Where to write every permutation, if anywhere.
    pub emit_permutations: Option<PathBuf>,
    /// No progress bar.
    pub quiet: bool,
    /// Output.
    pub output: OutputConfig,
}

/// A validated `theory`.
#[derive(Debug, Clone)]
pub struct TheoryConfig {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Cards.
    pub deck: usize,
    /// Level for the power figures.
    pub alpha: f64,
    /// Exact-law budget.
    pub max_paths: u64,
    /// Output.
    pub output: OutputConfig,
}

/// A validated `check`.
#[derive(Debug, Clone)]
pub struct CheckConfig {
    /// Where to read.
    pub sources: Vec<InputSource>,
    /// What to accept.
    pub reader: ReaderOptions,
    /// The hypothesis.
    pub against: CheckAgainst,
    /// Family-wise level.
    pub alpha: f64,
    /// Exact-law budget.
    pub max_paths: u64,
    /// No progress display.
    pub quiet: bool,
    /// Output.
    pub output: OutputConfig,
}

impl CheckConfig {
    /// Validate `check`'s flags.
    pub fn from_args(args: &CheckArgs) -> Result<Self, UsageError> {
        if let Some(deck) = args.deck
            && !(2..=MAX_FULL_DECK).contains(&deck)
        {
            return Err(UsageError(format!(
                "--deck {deck}: `check` tallies all n! orderings, which is possible for 2 to \
                 {MAX_FULL_DECK} cards"
            )));
        }
        let labels = match &args.labels {
            None => None,
            Some(text) => {
                let labels: Vec<String> = text.split(',').map(|l| l.trim().to_string()).collect();
                if labels.iter().any(String::is_empty) {
                    return Err(UsageError(format!(
                        "--labels {text}: a label is empty; write them like A,K,Q,J,10"
                    )));
                }
                if !(2..=MAX_FULL_DECK).contains(&labels.len()) {
                    return Err(UsageError(format!(
                        "--labels {text}: {} labels given; give 2 to {MAX_FULL_DECK}",
                        labels.len()
                    )));
                }
                if let Some(repeated) = labels
                    .iter()
                    .enumerate()
                    .find(|(i, l)| labels[..*i].contains(l))
                    .map(|(_, l)| l)
                {
                    return Err(UsageError(format!(
                        "--labels {text}: the label '{repeated}' is given twice; labels must be \
                         distinct"
                    )));
                }
                if let Some(deck) = args.deck
                    && deck != labels.len()
                {
                    return Err(UsageError(format!(
                        "--deck {deck} disagrees with --labels, which names {} cards; drop --deck \
                         or fix the labels",
                        labels.len()
                    )));
                }
                Some(labels)
            }
        };
        let sources = if args.files.is_empty() {
            vec![InputSource::Stdin]
        } else {
            args.files
                .iter()
                .map(|path| {
                    if path.as_os_str() == "-" {
                        InputSource::Stdin
                    } else {
                        InputSource::File(path.clone())
                    }
                })
                .collect()
        };
        if sources.iter().filter(|s| **s == InputSource::Stdin).count() > 1 {
            return Err(UsageError(
                "FILE: `-` (stdin) can be given only once".to_string(),
            ));
        }
        Ok(CheckConfig {
            sources,
            reader: ReaderOptions {
                deck: args.deck,
                labels,
                skip_invalid: args.skip_invalid,
                mode: TallyMode::Full,
            },
            against: args.against,
            alpha: check_alpha(args.alpha)?,
            max_paths: check_max_paths(args.max_paths)?,
            quiet: args.quiet,
            output: output_config(&args.output),
        })
    }
}

fn output_config(args: &OutputArgs) -> OutputConfig {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    OutputConfig {
        format: args.format,
        table: args.table,
        path: args.output.clone(),
        colour: args.output.is_none() && std::io::stdout().is_terminal() && !no_color,
    }
}

fn check_alpha(alpha: f64) -> Result<f64, UsageError> {
    if alpha > 0.0 && alpha < 1.0 {
        Ok(alpha)
    } else {
        Err(UsageError(format!(
            "--alpha {alpha}: the significance level must be strictly between 0 and 1 \
             (e.g. --alpha 0.001)"
        )))
    }
}

fn check_max_paths(max_paths: Option<u64>) -> Result<u64, UsageError> {
    match max_paths {
        Some(0) => Err(UsageError(
            "--max-paths 0: the exact engine needs at least 1 path (e.g. --max-paths 1e8)".into(),
        )),
        Some(paths) => Ok(paths),
        None => Ok(DEFAULT_MAX_PATHS),
    }
}

/// The default number of trials: the larger of 1M and 20·n!.
pub fn default_trials(deck: usize) -> u64 {
    (20 * factorial(deck)).max(1_000_000)
}

/// The validated simulation settings `run` and `compare` share.
#[derive(Debug, Clone)]
pub struct SimulationSettings {
    /// Cards.
    pub deck: usize,
    /// Shuffles (per algorithm).
    pub trials: u64,
    /// Seed (given or drawn from the OS).
    pub seed: u64,
    /// Generator.
    pub rng: RngKind,
    /// Worker threads.
    pub threads: usize,
    /// Family-wise level.
    pub alpha: f64,
}

impl SimulationSettings {
    /// Check the deck, trials, threads and level, and that the tallies fit in memory.
    pub fn validate(
        deck: usize,
        trials: Option<u64>,
        seed: Option<u64>,
        rng: RngKind,
        threads: Option<usize>,
        alpha: f64,
    ) -> Result<Self, UsageError> {
        if deck < 2 {
            return Err(UsageError(format!(
                "--deck {deck}: a shuffle needs at least 2 cards (use --deck 2 to {MAX_FULL_DECK})"
            )));
        }
        if deck > MAX_FULL_DECK {
            return Err(UsageError(format!(
                "--deck {deck}: all n! orderings are tallied, which is possible up to \
                 {MAX_FULL_DECK} cards ({deck}! = {} counters); use --deck 2 to {MAX_FULL_DECK}",
                factorial(deck.min(20))
            )));
        }
        let trials = trials.unwrap_or_else(|| default_trials(deck));
        if trials == 0 {
            return Err(UsageError(
                "--trials 0: at least one shuffle is needed (e.g. --trials 1M)".into(),
            ));
        }
        let threads =
            threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        if threads == 0 || threads > MAX_THREADS {
            return Err(UsageError(format!(
                "--threads {threads}: use 1 to {MAX_THREADS} worker threads"
            )));
        }
        let needed = run_memory_bytes(deck, trials, threads);
        let limit = memory_limit();
        if needed > limit {
            return Err(UsageError(format!(
                "--threads {threads} with --deck {deck}: the tallies and the exact law would \
                 take {:.1} GiB, more than the {:.1} GiB this machine can give; use fewer \
                 --threads (each keeps its own tally) or a smaller --deck",
                needed as f64 / f64::from(1 << 30),
                limit as f64 / f64::from(1 << 30)
            )));
        }
        Ok(SimulationSettings {
            deck,
            trials,
            seed: seed.unwrap_or_else(rand::random),
            rng,
            threads,
            alpha: check_alpha(alpha)?,
        })
    }
}

impl RunConfig {
    /// Validate `run`'s flags.
    pub fn from_args(args: &RunArgs) -> Result<Self, UsageError> {
        let settings = SimulationSettings::validate(
            args.deck,
            args.trials,
            args.seed,
            args.rng,
            args.threads,
            args.alpha,
        )?;
        let output = output_config(&args.output);
        Ok(RunConfig {
            algorithm: args.algorithm,
            deck: settings.deck,
            trials: settings.trials,
            seed: settings.seed,
            rng: settings.rng,
            threads: settings.threads,
            alpha: settings.alpha,
            against: args.against,
            max_paths: check_max_paths(args.max_paths)?,
            emit_permutations: args.emit_permutations.clone(),
            quiet: args.quiet,
            output,
        })
    }
}

/// A validated `compare`.
#[derive(Debug, Clone)]
pub struct CompareConfig {
    /// The algorithms, in the order given.
    pub algorithms: Vec<Algorithm>,
    /// Deck, trials, seed, generator, threads and level, the same for every algorithm.
    pub settings: SimulationSettings,
    /// Exact-law budget.
    pub max_paths: u64,
    /// No progress bar.
    pub quiet: bool,
    /// Output.
    pub output: OutputConfig,
}

impl CompareConfig {
    /// Validate `compare`'s flags.
    pub fn from_args(args: &CompareArgs) -> Result<Self, UsageError> {
        let algorithms = if args.all {
            Algorithm::ALL.to_vec()
        } else {
            args.algorithms.clone()
        };
        if let Some(repeated) = algorithms
            .iter()
            .enumerate()
            .find(|(i, a)| algorithms[..*i].contains(a))
            .map(|(_, a)| a)
        {
            return Err(UsageError(format!(
                "ALGO: {} is given twice; name each algorithm once",
                repeated.name()
            )));
        }
        let simulation = &args.simulation;
        let settings = SimulationSettings::validate(
            simulation.deck,
            simulation.trials,
            simulation.seed,
            simulation.rng,
            simulation.threads,
            simulation.alpha,
        )?;
        if args.output.format == Format::Csv && args.output.table != CsvTable::Summary {
            return Err(UsageError(
                "--table: `compare` writes one CSV table, a row per algorithm; use --table \
                 summary (the default)"
                    .into(),
            ));
        }
        Ok(CompareConfig {
            algorithms,
            settings,
            max_paths: check_max_paths(args.max_paths)?,
            quiet: args.quiet,
            output: output_config(&args.output),
        })
    }
}

impl TheoryConfig {
    /// Validate `theory`'s flags.
    pub fn from_args(args: &TheoryArgs) -> Result<Self, UsageError> {
        let deck = args.deck;
        if !(2..=MAX_EXACT_DECK).contains(&deck) {
            return Err(UsageError(format!(
                "--deck {deck}: exact laws are computed for 2 to {MAX_EXACT_DECK} cards"
            )));
        }
        if args.output.format == Format::Csv && args.output.table == CsvTable::Tests {
            return Err(UsageError(
                "--table tests: `theory` runs no tests; use --table summary, permutations or \
                 positions"
                    .into(),
            ));
        }
        Ok(TheoryConfig {
            algorithm: args.algorithm,
            deck,
            alpha: check_alpha(args.alpha)?,
            max_paths: check_max_paths(args.max_paths)?,
            output: output_config(&args.output),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_memory_counts_worker_tallies_the_total_and_the_exact_law() {
        // 4 cards, 2 workers: 24 cells × (2 × 4 + 8 + 40) bytes.
        assert_eq!(run_memory_bytes(4, 1000, 2), 24 * 56);
        // 11 cards have no exact law; a worker with more than 2^32 trials also keeps u64 cells.
        assert_eq!(
            run_memory_bytes(11, 10_000_000_000, 1),
            39_916_800 * (12 + 8)
        );
    }

    #[test]
    fn the_memory_limit_is_positive() {
        assert!(memory_limit() > 0);
    }
}
