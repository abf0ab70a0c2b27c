//! The validated configuration: every range, combination and resource limit is checked here,
//! once, before anything runs, with a message that names the flag and says how to fix it.

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::cli::{
    CheckAgainst, CheckArgs, CompareArgs, ModeChoice, OutputArgs, PassesRange, RunArgs, TheoryArgs,
};
use crate::engine::algorithms::{Algorithm, CutProbability, Shuffle};
use crate::engine::marginal::MAX_MARGINAL_DECK;
use crate::engine::permutation::{MAX_FULL_DECK, factorial};
use crate::engine::random_source::RngKind;
use crate::engine::tally::TallyMode;
use crate::input::permutation_reader::{InputSource, ReaderOptions};
use crate::output::files::{FileError, Target, check_inputs, check_outputs, stdin_file};
use crate::output::{CsvTable, Format, Terminal};
use crate::report::run::Against;
use crate::theory::exact::{DEFAULT_MAX_PATHS, MAX_EXACT_DECK};
use crate::theory::mixing::max_mixing_deck;

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

/// The most shuffles one run (or one `compare`, all algorithms together) may ask for: 2^53, the
/// largest count every statistic holds exactly in an f64 (and weeks of work at any speed).
pub const MAX_TRIALS: u64 = 1 << 53;

/// The most passes `run` and `check` accept, as `theory` (each pass is a whole shuffle).
pub const MAX_PASSES: u32 = crate::cli::MAX_PASSES_RANGE;

/// A usage error, grouped by cause: the `Display` is the user's message, which names the flag
/// (and the value given) and says how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// A number beyond what the flag accepts (`--deck 12: …`, `--alpha 2: …`).
    #[error("{flag} {value}: {hint}")]
    OutOfRange {
        /// The flag.
        flag: &'static str,
        /// The value, as shown.
        value: String,
        /// What is accepted, and how to fix it.
        hint: String,
    },
    /// A flag (with its value, when it has one) that does not go with the other flags given
    /// (`--table statistics: … add --mode marginal`).
    #[error("{flag}{}: {hint}", .value.as_ref().map(|value| format!(" {value}")).unwrap_or_default())]
    Conflict {
        /// The flag.
        flag: &'static str,
        /// Its value, if the message shows one.
        value: Option<String>,
        /// Why it does not fit, and how to fix it.
        hint: String,
    },
    /// A value written wrongly (an empty or repeated label, a picture not named `.svg`).
    #[error("{flag} {value}: {hint}")]
    Malformed {
        /// The flag.
        flag: &'static str,
        /// The value, as given.
        value: String,
        /// What is wrong, and how to write it.
        hint: String,
    },
    /// A positional argument given twice (`ALGO`, `FILE`).
    #[error("{argument}: {hint}")]
    Repeated {
        /// The argument's name in the usage line.
        argument: &'static str,
        /// What was repeated, and how to fix it.
        hint: String,
    },
    /// `--deck` and `--labels` name different numbers of cards.
    #[error(
        "--deck {deck} disagrees with --labels, which names {labels} cards; drop --deck or fix \
         the labels"
    )]
    DeckAndLabels {
        /// `--deck`.
        deck: usize,
        /// The number of labels.
        labels: usize,
    },
    /// The tallies (and the exact law, in full mode) would not fit in the memory available.
    #[error(
        "--threads {threads} with --deck {deck}: the tallies{} would take {:.1} GiB, more than \
         the {:.1} GiB this machine can give; use fewer --threads (each keeps its own tally){}",
        if *.mode == TallyMode::Full { " and the exact law" } else { "" },
        gib(*.needed),
        gib(*.limit),
        if *.mode == TallyMode::Full {
            ", --mode marginal (positions and statistics only) or a smaller --deck"
        } else {
            " or a smaller --deck"
        }
    )]
    Memory {
        /// `--threads` (given or the number of CPUs).
        threads: usize,
        /// `--deck`.
        deck: usize,
        /// The mode the run would tally in.
        mode: TallyMode,
        /// Bytes needed.
        needed: u64,
        /// Bytes available ([`memory_limit`]).
        limit: u64,
    },
    /// An output or input file that cannot be used (checked before anything runs).
    #[error(transparent)]
    File(#[from] FileError),
}

/// Bytes in GiB, for messages.
fn gib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 30)
}

impl UsageError {
    fn out_of_range(flag: &'static str, value: impl ToString, hint: impl Into<String>) -> Self {
        UsageError::OutOfRange {
            flag,
            value: value.to_string(),
            hint: hint.into(),
        }
    }

    fn conflict(flag: &'static str, value: impl ToString, hint: impl Into<String>) -> Self {
        UsageError::Conflict {
            flag,
            value: Some(value.to_string()),
            hint: hint.into(),
        }
    }

    fn malformed(flag: &'static str, value: impl ToString, hint: impl Into<String>) -> Self {
        UsageError::Malformed {
            flag,
            value: value.to_string(),
            hint: hint.into(),
        }
    }
}

/// Where and how the report is written.
#[derive(Debug, Clone)]
pub struct OutputConfig {
    /// The format.
    pub format: Format,
    /// The CSV table.
    pub table: CsvTable,
    /// Where the report goes: `-o FILE`, or stdout (also `-o -`).
    pub report: Target,
    /// Where to draw the picture, if anywhere (`--plot -` is stdout).
    pub plot: Option<Target>,
    /// Colour (the report goes to a terminal and NO_COLOR is not set) and the terminal's
    /// width, for the table format.
    pub terminal: Terminal,
}

impl OutputConfig {
    /// The outputs with the flags that name them, for [`check_outputs`].
    pub fn targets(&self) -> Vec<(&'static str, &Target)> {
        let mut targets = vec![("-o", &self.report)];
        targets.extend(self.plot.as_ref().map(|plot| ("--plot", plot)));
        targets
    }
}

/// A validated `run`.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// What is tallied.
    pub mode: TallyMode,
    /// The shuffle: algorithm, passes, cut probability.
    pub shuffle: Shuffle,
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
    /// Whether `--max-paths` was given (to say when the exact engine had no use for it).
    pub max_paths_given: bool,
    /// Where to write every permutation, if anywhere.
    pub emit_permutations: Option<Target>,
    /// List every ordering in JSON and CSV whatever the deck.
    pub all_orderings: bool,
    /// No progress bar.
    pub quiet: bool,
    /// Output.
    pub output: OutputConfig,
}

/// A validated `theory`.
#[derive(Debug, Clone)]
pub struct TheoryConfig {
    /// The shuffle: algorithm, passes, cut probability.
    pub shuffle: Shuffle,
    /// `--passes A..B`: print the mixing curve over this range instead of one law.
    pub mixing: Option<PassesRange>,
    /// Cards.
    pub deck: usize,
    /// Level for the power figures.
    pub alpha: f64,
    /// List every ordering in JSON and CSV whatever the deck.
    pub all_orderings: bool,
    /// Exact-law budget.
    pub max_paths: u64,
    /// Whether `--max-paths` was given (to say when the exact engine had no use for it).
    pub max_paths_given: bool,
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
    /// With `--against ALGORITHM`: that algorithm as a shuffle (passes, cut probability).
    pub model: Option<Shuffle>,
    /// List every ordering in JSON and CSV whatever the deck.
    pub all_orderings: bool,
    /// Family-wise level.
    pub alpha: f64,
    /// Exact-law budget.
    pub max_paths: u64,
    /// Whether `--max-paths` was given (to say when the exact engine had no use for it).
    pub max_paths_given: bool,
    /// No progress display.
    pub quiet: bool,
    /// Output.
    pub output: OutputConfig,
}

impl CheckConfig {
    /// Validate `check`'s flags.
    pub fn from_args(args: &CheckArgs) -> Result<Self, UsageError> {
        let largest = match args.mode {
            ModeChoice::Full => MAX_FULL_DECK,
            ModeChoice::Auto | ModeChoice::Marginal => MAX_MARGINAL_DECK,
        };
        if let Some(deck) = args.deck
            && !(2..=largest).contains(&deck)
        {
            return Err(UsageError::out_of_range(
                "--deck",
                deck,
                if args.mode == ModeChoice::Full {
                    format!(
                        "--mode full tallies all n! orderings, which is possible for 2 to \
                         {MAX_FULL_DECK} cards; use --mode marginal for up to {MAX_MARGINAL_DECK}"
                    )
                } else {
                    format!("decks of 2 to {MAX_MARGINAL_DECK} cards can be checked")
                },
            ));
        }
        let labels = match &args.labels {
            None => None,
            Some(text) => {
                let labels: Vec<String> = text.split(',').map(|l| l.trim().to_string()).collect();
                if labels.iter().any(String::is_empty) {
                    return Err(UsageError::malformed(
                        "--labels",
                        text,
                        "a label is empty; write them like A,K,Q,J,10",
                    ));
                }
                if !(2..=largest).contains(&labels.len()) {
                    return Err(UsageError::out_of_range(
                        "--labels",
                        text,
                        format!(
                            "{} label{} given; give 2 to {largest}",
                            labels.len(),
                            if labels.len() == 1 { "" } else { "s" }
                        ),
                    ));
                }
                if let Some(repeated) = labels
                    .iter()
                    .enumerate()
                    .find(|(i, l)| labels[..*i].contains(l))
                    .map(|(_, l)| l)
                {
                    return Err(UsageError::malformed(
                        "--labels",
                        text,
                        format!("the label '{repeated}' is given twice; labels must be distinct"),
                    ));
                }
                if let Some(deck) = args.deck
                    && deck != labels.len()
                {
                    return Err(UsageError::DeckAndLabels {
                        deck,
                        labels: labels.len(),
                    });
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
            return Err(UsageError::Repeated {
                argument: "FILE",
                hint: "`-` (stdin) can be given only once".to_string(),
            });
        }
        let mut input_files: Vec<PathBuf> = sources
            .iter()
            .filter_map(|source| match source {
                InputSource::File(path) => Some(path.clone()),
                InputSource::Stdin => None,
            })
            .collect();
        check_inputs(&input_files)?;
        if sources.contains(&InputSource::Stdin) {
            input_files.extend(stdin_file());
        }
        let output = output_config(&args.output)?;
        check_outputs(&output.targets(), &input_files)?;
        // Auto: full up to 11 cards, marginal above; when the deck size is only known from the
        // first permutation, the reader decides then.
        let known_deck = labels.as_ref().map(Vec::len).or(args.deck);
        let (mode, marginal_if_large) = match args.mode {
            ModeChoice::Full => (TallyMode::Full, false),
            ModeChoice::Marginal => (TallyMode::Marginal, false),
            ModeChoice::Auto => match known_deck {
                Some(n) if n > MAX_FULL_DECK => (TallyMode::Marginal, false),
                Some(_) => (TallyMode::Full, false),
                None => (TallyMode::Full, true),
            },
        };
        if args.output.format == Format::Csv {
            let table = args.output.table.unwrap_or_default();
            if mode == TallyMode::Marginal && table == CsvTable::Permutations {
                return Err(UsageError::conflict(
                    "--table",
                    "permutations",
                    "marginal mode does not tally orderings; use --table summary, tests, \
                     positions or statistics",
                ));
            }
            if mode == TallyMode::Full && !marginal_if_large && table == CsvTable::Statistics {
                return Err(UsageError::conflict(
                    "--table",
                    "statistics",
                    "the permutation statistics are tallied in marginal mode; add --mode marginal",
                ));
            }
        }
        let model = match args.against {
            CheckAgainst::Algorithm(algorithm) => Some(check_shuffle(
                algorithm,
                args.passes.unwrap_or(1),
                args.cut_probability,
            )?),
            CheckAgainst::Uniform => {
                if let Some(passes) = args.passes {
                    return Err(UsageError::conflict(
                        "--passes",
                        passes,
                        "passes belong to an algorithm; give one with --against ALGORITHM, or \
                         drop --passes",
                    ));
                }
                if let Some(p) = args.cut_probability {
                    return Err(UsageError::conflict(
                        "--cut-probability",
                        p,
                        "only the overhand shuffle cuts with a probability; use it with \
                         --against overhand, or drop it",
                    ));
                }
                None
            }
        };
        Ok(CheckConfig {
            sources,
            reader: ReaderOptions {
                deck: args.deck,
                labels,
                skip_invalid: args.skip_invalid,
                mode,
                marginal_if_large,
            },
            against: args.against,
            model,
            all_orderings: args.all_orderings,
            alpha: check_alpha(args.alpha)?,
            max_paths: check_max_paths(args.max_paths)?,
            max_paths_given: args.max_paths.is_some(),
            quiet: args.quiet,
            output,
        })
    }
}

/// The output flags, checked: `--table` only with `--format csv`, `--plot` only to an SVG file
/// (or `-`).
pub fn output_config(args: &OutputArgs) -> Result<OutputConfig, UsageError> {
    if let Some(table) = args.table
        && args.format != Format::Csv
    {
        return Err(UsageError::conflict(
            "--table",
            table.name(),
            format!(
                "tables are chosen for --format csv only (the {} format holds every table); add \
                 --format csv or drop --table",
                args.format.name()
            ),
        ));
    }
    if let Some(plot) = &args.plot
        && plot.as_os_str() != "-"
        && !plot
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("svg"))
    {
        return Err(UsageError::malformed(
            "--plot",
            plot.display(),
            format!(
                "pictures are written as SVG; name the file with .svg (e.g. --plot {})",
                plot.with_extension("svg").display()
            ),
        ));
    }
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let report = Target::or_stdout(args.output.as_deref());
    let on_terminal = report == Target::Stdout && std::io::stdout().is_terminal();
    Ok(OutputConfig {
        format: args.format,
        table: args.table.unwrap_or_default(),
        terminal: Terminal {
            colour: on_terminal && !no_color,
            width: on_terminal
                .then(|| terminal_size::terminal_size_of(std::io::stdout()))
                .flatten()
                .map(|(terminal_size::Width(width), _)| width),
        },
        report,
        plot: args.plot.as_deref().map(Target::from_path),
    })
}

fn check_alpha(alpha: f64) -> Result<f64, UsageError> {
    if alpha > 0.0 && alpha < 1.0 {
        Ok(alpha)
    } else {
        Err(UsageError::out_of_range(
            "--alpha",
            alpha,
            "the significance level must be strictly between 0 and 1 (e.g. --alpha 0.001)",
        ))
    }
}

fn check_max_paths(max_paths: Option<u64>) -> Result<u64, UsageError> {
    match max_paths {
        Some(0) => Err(UsageError::out_of_range(
            "--max-paths",
            0,
            "the exact engine needs at least 1 path (e.g. --max-paths 1e8)",
        )),
        Some(paths) => Ok(paths),
        None => Ok(DEFAULT_MAX_PATHS),
    }
}

/// The shuffle of `--passes` and `--cut-probability` (given or not) for `algorithm`.
fn check_shuffle(
    algorithm: Algorithm,
    passes: u32,
    cut_probability: Option<CutProbability>,
) -> Result<Shuffle, UsageError> {
    if passes == 0 {
        return Err(UsageError::out_of_range(
            "--passes",
            0,
            "a shuffle needs at least one pass (e.g. --passes 1, or --passes 7 for seven \
             riffles)",
        ));
    }
    if passes > MAX_PASSES {
        return Err(UsageError::out_of_range(
            "--passes",
            passes,
            format!(
                "at most {MAX_PASSES} passes (each is a whole shuffle; seven riffles already mix \
                 52 cards)"
            ),
        ));
    }
    if let Some(p) = cut_probability
        && algorithm != Algorithm::Overhand
    {
        return Err(UsageError::conflict(
            "--cut-probability",
            p,
            format!(
                "only the overhand shuffle cuts with a probability, not {}; drop it or use \
                 overhand",
                algorithm.name()
            ),
        ));
    }
    Ok(Shuffle {
        algorithm,
        passes,
        cut_probability: cut_probability.unwrap_or_default(),
    })
}

/// The default number of trials: the larger of 1M and 20·n! (full mode), or 1M (marginal).
pub fn default_trials(deck: usize, mode: TallyMode) -> u64 {
    match mode {
        TallyMode::Full => (20 * factorial(deck)).max(1_000_000),
        TallyMode::Marginal => 1_000_000,
    }
}

/// The memory a marginal run needs: an n×n matrix of 64-bit counters per worker and one for
/// the total (the statistics' histograms are O(n)).
pub fn marginal_memory_bytes(deck: usize, threads: usize) -> u64 {
    let cells = (deck * deck) as u64;
    cells * 8 * (threads as u64 + 1)
}

/// The validated simulation settings `run` and `compare` share.
#[derive(Debug, Clone)]
pub struct SimulationSettings {
    /// What is tallied.
    pub mode: TallyMode,
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
    #[allow(clippy::too_many_arguments)]
    pub fn validate(
        mode: ModeChoice,
        deck: usize,
        trials: Option<u64>,
        seed: Option<u64>,
        rng: RngKind,
        threads: Option<usize>,
        alpha: f64,
    ) -> Result<Self, UsageError> {
        let marginal_allowed = mode != ModeChoice::Full;
        let largest = if marginal_allowed {
            MAX_MARGINAL_DECK
        } else {
            MAX_FULL_DECK
        };
        if deck < 2 {
            return Err(UsageError::out_of_range(
                "--deck",
                deck,
                format!("a shuffle needs at least 2 cards (use --deck 2 to {largest})"),
            ));
        }
        if deck > largest {
            return Err(UsageError::out_of_range(
                "--deck",
                deck,
                if marginal_allowed {
                    format!(
                        "decks of up to {MAX_MARGINAL_DECK} cards can be tested; use a smaller \
                         --deck"
                    )
                } else {
                    format!(
                        "--mode full tallies all n! orderings, which is possible up to \
                         {MAX_FULL_DECK} cards; use --mode marginal (positions and statistics, \
                         up to {MAX_MARGINAL_DECK} cards) or a smaller --deck"
                    )
                },
            ));
        }
        if trials == Some(0) {
            return Err(UsageError::out_of_range(
                "--trials",
                0,
                "at least one shuffle is needed (e.g. --trials 1M)",
            ));
        }
        if let Some(trials) = trials
            && trials > MAX_TRIALS
        {
            return Err(UsageError::out_of_range(
                "--trials",
                trials,
                format!(
                    "at most 2^53 = {MAX_TRIALS} shuffles (split larger experiments into several \
                     runs with different seeds)"
                ),
            ));
        }
        let threads =
            threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        if threads == 0 || threads > MAX_THREADS {
            return Err(UsageError::out_of_range(
                "--threads",
                threads,
                format!("use 1 to {MAX_THREADS} worker threads"),
            ));
        }
        let limit = memory_limit();
        let full_fits = deck <= MAX_FULL_DECK && {
            let full_trials = trials.unwrap_or_else(|| default_trials(deck, TallyMode::Full));
            run_memory_bytes(deck, full_trials, threads) <= limit
        };
        let mode = match mode {
            ModeChoice::Full => TallyMode::Full,
            ModeChoice::Marginal => TallyMode::Marginal,
            ModeChoice::Auto if full_fits => TallyMode::Full,
            ModeChoice::Auto => TallyMode::Marginal,
        };
        let trials = trials.unwrap_or_else(|| default_trials(deck, mode));
        let needed = match mode {
            TallyMode::Full => run_memory_bytes(deck, trials, threads),
            TallyMode::Marginal => marginal_memory_bytes(deck, threads),
        };
        if needed > limit {
            return Err(UsageError::Memory {
                threads,
                deck,
                mode,
                needed,
                limit,
            });
        }
        Ok(SimulationSettings {
            mode,
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
            args.mode,
            args.deck,
            args.trials,
            args.generator.seed,
            args.generator.rng,
            args.generator.threads,
            args.generator.alpha,
        )?;
        let output = output_config(&args.output)?;
        if settings.mode == TallyMode::Marginal {
            if args.output.format == Format::Csv
                && args.output.table.unwrap_or_default() == CsvTable::Permutations
            {
                return Err(UsageError::conflict(
                    "--table",
                    "permutations",
                    "marginal mode does not tally orderings; use --table summary, tests, \
                     positions or statistics (or --mode full for up to 11 cards)",
                ));
            }
        } else if args.output.format == Format::Csv
            && args.output.table.unwrap_or_default() == CsvTable::Statistics
        {
            return Err(UsageError::conflict(
                "--table",
                "statistics",
                "the permutation statistics are tallied in marginal mode; add --mode marginal",
            ));
        }
        let emit_permutations = args.emit_permutations.as_deref().map(Target::from_path);
        let mut outputs = output.targets();
        outputs.extend(
            emit_permutations
                .as_ref()
                .map(|target| ("--emit-permutations", target)),
        );
        check_outputs(&outputs, &[])?;
        Ok(RunConfig {
            mode: settings.mode,
            shuffle: check_shuffle(args.algorithm, args.passes, args.cut_probability)?,
            deck: settings.deck,
            trials: settings.trials,
            seed: settings.seed,
            rng: settings.rng,
            threads: settings.threads,
            alpha: settings.alpha,
            against: args.against,
            max_paths: check_max_paths(args.max_paths)?,
            max_paths_given: args.max_paths.is_some(),
            emit_permutations,
            all_orderings: args.all_orderings,
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
    /// Whether `--max-paths` was given (to say when the exact engine had no use for it).
    pub max_paths_given: bool,
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
            return Err(UsageError::Repeated {
                argument: "ALGO",
                hint: format!(
                    "{} is given twice; name each algorithm once",
                    repeated.name()
                ),
            });
        }
        let settings = SimulationSettings::validate(
            ModeChoice::Full,
            args.deck,
            args.trials,
            args.generator.seed,
            args.generator.rng,
            args.generator.threads,
            args.generator.alpha,
        )?;
        if args.output.format == Format::Csv
            && args.output.table.unwrap_or_default() != CsvTable::Summary
        {
            return Err(UsageError::Conflict {
                flag: "--table",
                value: None,
                hint: "`compare` writes one CSV table, a row per algorithm; use --table summary \
                       (the default)"
                    .to_string(),
            });
        }
        if settings
            .trials
            .checked_mul(algorithms.len() as u64)
            .is_none_or(|total| total > MAX_TRIALS)
        {
            return Err(UsageError::out_of_range(
                "--trials",
                settings.trials,
                format!(
                    "{} algorithms × {} shuffles is more than 2^53 shuffles in all; use fewer \
                     --trials",
                    algorithms.len(),
                    settings.trials
                ),
            ));
        }
        let output = output_config(&args.output)?;
        check_outputs(&output.targets(), &[])?;
        Ok(CompareConfig {
            algorithms,
            settings,
            max_paths: check_max_paths(args.max_paths)?,
            max_paths_given: args.max_paths.is_some(),
            quiet: args.quiet,
            output,
        })
    }
}

impl TheoryConfig {
    /// Validate `theory`'s flags.
    pub fn from_args(args: &TheoryArgs) -> Result<Self, UsageError> {
        let deck = args.deck;
        let passes = args.passes;
        // A range, or the riffle on a deck too large for its full law, gives the mixing curve.
        let mixing = (passes.first != passes.last
            || (args.algorithm == Algorithm::Riffle && deck > MAX_EXACT_DECK))
            .then_some(passes);
        let largest = if mixing.is_some() {
            max_mixing_deck(args.algorithm)
        } else {
            MAX_EXACT_DECK
        };
        if !(2..=largest).contains(&deck) {
            return Err(UsageError::out_of_range(
                "--deck",
                deck,
                if mixing.is_some() {
                    format!(
                        "the mixing curve of {} is computed for 2 to {largest} cards",
                        args.algorithm.name()
                    )
                } else {
                    format!(
                        "exact laws are computed for 2 to {MAX_EXACT_DECK} cards (the riffle's \
                         mixing curve, --passes A..B, for up to {} cards)",
                        max_mixing_deck(Algorithm::Riffle)
                    )
                },
            ));
        }
        if mixing.is_some()
            && args.output.format == Format::Csv
            && args.output.table.unwrap_or_default() != CsvTable::Summary
        {
            return Err(UsageError::Conflict {
                flag: "--table",
                value: None,
                hint: "a mixing curve is one CSV table, a row per number of passes; use --table \
                       summary (the default)"
                    .to_string(),
            });
        }
        if args.output.format == Format::Csv
            && matches!(
                args.output.table.unwrap_or_default(),
                CsvTable::Tests | CsvTable::Statistics
            )
        {
            return Err(UsageError::conflict(
                "--table",
                args.output.table.unwrap_or_default().name(),
                "`theory` runs no tests and tallies no statistics; use --table summary, \
                 permutations or positions",
            ));
        }
        let output = output_config(&args.output)?;
        check_outputs(&output.targets(), &[])?;
        Ok(TheoryConfig {
            shuffle: check_shuffle(args.algorithm, passes.first, args.cut_probability)?,
            mixing,
            deck,
            alpha: check_alpha(args.alpha)?,
            all_orderings: args.all_orderings,
            max_paths: check_max_paths(args.max_paths)?,
            max_paths_given: args.max_paths.is_some(),
            output,
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
