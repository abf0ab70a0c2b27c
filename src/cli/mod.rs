//! The command line, declared with clap's derive API. Parsing only: ranges and combinations are
//! checked once, in [`crate::config`], with messages that name the flag and the fix.
//!
//! Help is written for two readers: `-h` shows each flag's first paragraph (one line), under
//! headings with the common flags first (the test, the source, output, performance, advanced);
//! `--help` adds the detail and the exit codes. Every subcommand's help, and the top level's,
//! ends with examples, each a real command that `tests/help.rs` runs. Defaults are written one
//! way, `[default: …]`: clap's own where the value is fixed, the same words where it is
//! computed. Flags with a fixed set of values list them, so the completion scripts offer them.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::analysis::ruled_out::BiasSize;
use crate::engine::algorithms::{Algorithm, CutProbability};
use crate::engine::generators::GeneratorKind;
use crate::engine::mapped_source::Generator;
use crate::engine::mapping::Mapping;
use crate::engine::random_source::RngKind;
use crate::input::cards::CardNames;
use crate::output::{CsvTable, Format};

/// The heading of the flags that say what is tested and how it is judged.
const TEST: &str = "The test";
/// The heading of the flags that say where the shuffles come from.
const SOURCE: &str = "The source";
/// The heading of the flags that say what is written where.
const OUTPUT: &str = "Output";
/// The heading of the flags that trade time for memory or cores.
const PERFORMANCE: &str = "Performance";
/// The heading of the flags few runs need.
const ADVANCED: &str = "Advanced";

/// The exit codes of a command that judges shuffles (`run`, and the top level).
macro_rules! exit_codes {
    () => {
        "Exit codes:
  0  no bias detected (every test of the family passes at --alpha); with --max-bias SIZE,
     FAIR WITHIN SIZE (the 99% bounds show the bias at most SIZE)
  1  bias detected (some test rejects after Holm-Bonferroni adjustment)
  2  error: bad flags or input, unwritable output, or a run that could not be done
  3  inconclusive (--max-bias only): no bias detected, but not shown within SIZE either
  130  interrupted (Ctrl-C): the report of the shuffles tallied so far is still written"
    };
}

/// The examples of the top level, ending its `-h` and `--help`.
macro_rules! top_examples {
    () => {
        "Examples:
  shuffle-bias run fisher-yates -n 5 -t 1M --seed 7
  python3 my_shuffle.py | shuffle-bias check --deck 5
  shuffle-bias compare fisher-yates naive sattolo -n 4 -t 240k --seed 7
  shuffle-bias theory naive -n 4
  shuffle-bias list"
    };
}

const TOP_EXAMPLES: &str = top_examples!();

/// `--help` of the top level: the exit codes, then the examples.
const TOP_LONG: &str = concat!(exit_codes!(), "\n\n", top_examples!());

/// Prove a card shuffle fair or biased: run it millions of times on a small deck, tally every
/// ordering, and test the tally against uniform and against the algorithm's exact law.
#[derive(Debug, Parser)]
#[command(
    name = "shuffle-bias",
    version,
    after_help = TOP_EXAMPLES,
    after_long_help = TOP_LONG
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate a shuffle many times, tally all n! orderings (or, for large decks, positions and
    /// permutation statistics) and judge it.
    #[command(
        after_help = RUN_EXAMPLES,
        after_long_help = RUN_LONG,
        allow_negative_numbers = true,
        mut_arg("table", |arg| csv_tables(arg, &[
            CsvTable::Summary,
            CsvTable::Tests,
            CsvTable::Permutations,
            CsvTable::Positions,
            CsvTable::Statistics,
        ]))
    )]
    Run(RunArgs),
    /// Run several shuffles with the same settings and compare them in one table.
    #[command(
        after_help = COMPARE_EXAMPLES,
        after_long_help = COMPARE_LONG,
        allow_negative_numbers = true,
        mut_arg("table", |arg| csv_tables(arg, &[CsvTable::Summary]))
    )]
    Compare(CompareArgs),
    /// Test permutations produced by any program: one per line, from files or stdin.
    #[command(
        after_help = CHECK_EXAMPLES,
        after_long_help = CHECK_LONG,
        allow_negative_numbers = true
    )]
    Check(CheckArgs),
    /// Print an algorithm's exact law, or its mixing curve over several passes (no simulation).
    #[command(
        after_help = THEORY_EXAMPLES,
        after_long_help = THEORY_LONG,
        allow_negative_numbers = true,
        mut_arg("table", |arg| csv_tables(arg, &[
            CsvTable::Summary,
            CsvTable::Permutations,
            CsvTable::Positions,
        ]))
    )]
    Theory(TheoryArgs),
    /// List the built-in algorithms with their exact definitions.
    #[command(after_help = LIST_EXAMPLES)]
    List(ListArgs),
    /// Print a completion script for a shell (bash, zsh, fish, powershell, elvish) to stdout.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(CompletionsArgs),
    /// Print the manual page (roff) to stdout, or write it to a file with -o.
    #[command(after_help = MAN_EXAMPLES)]
    Man(ManArgs),
    /// Add tallies saved by `run --save-tally` (the shards of one run) or `check --save-tally`
    /// (inputs of one source) and judge them as one: the same report, verdict and exit code.
    #[command(
        after_help = MERGE_EXAMPLES,
        after_long_help = MERGE_LONG,
        allow_negative_numbers = true
    )]
    Merge(MergeArgs),
    /// Re-run a famous deployed shuffle bit for bit (Planet Poker, the browser ballot, …) and
    /// set its published figures beside the tool's.
    #[command(
        after_help = CASE_EXAMPLES,
        allow_negative_numbers = true,
        mut_arg("table", |arg| csv_tables(arg, &[
            CsvTable::Summary,
            CsvTable::Tests,
            CsvTable::Permutations,
            CsvTable::Positions,
            CsvTable::Statistics,
        ]))
    )]
    Case(CaseArgs),
}

/// The examples of `run`, ending its `-h` and `--help`.
macro_rules! run_examples {
    () => {
        "Examples:
  shuffle-bias run fisher-yates -n 5 -t 1M --seed 7
  shuffle-bias run naive -n 4 -t 240k --format json -o naive.json
  shuffle-bias run fisher-yates -n 6 -t 1M --rng java --map modulo --bits 8
  shuffle-bias run riffle -n 52 --passes 7 --mode marginal -t 100k
  shuffle-bias run sattolo -n 4 -t 240k --against sattolo
  shuffle-bias run fisher-yates -n 4 -t 1M --max-bias 1pp --brief"
    };
}

const RUN_EXAMPLES: &str = run_examples!();

const RUN_LONG: &str = concat!(exit_codes!(), "\n\n", run_examples!());

const COMPLETIONS_EXAMPLES: &str = "\
Examples (see the README's install section for where each shell looks):
  shuffle-bias completions bash > ~/.local/share/bash-completion/completions/shuffle-bias
  shuffle-bias completions zsh > ~/.zfunc/_shuffle-bias
  shuffle-bias completions fish > ~/.config/fish/completions/shuffle-bias.fish";

const MAN_EXAMPLES: &str = "\
Examples:
  shuffle-bias man -o shuffle-bias.1 && man -l shuffle-bias.1";

const LIST_EXAMPLES: &str = "\
Examples:
  shuffle-bias list
  shuffle-bias list --format json";

/// The examples of `case`, ending its `-h` and `--help`.
const CASE_EXAMPLES: &str = "\
Examples:
  shuffle-bias case --list
  shuffle-bias case planet-poker
  shuffle-bias case laravel-shuffle --format json
  shuffle-bias case browser-ballot --explain
  shuffle-bias case java-counter-seed --emit-permutations decks.txt -o /dev/null
  shuffle-bias check decks.txt --deck 8";

/// `case`.
#[derive(Debug, Args)]
pub struct CaseArgs {
    /// The case to run (see `case --list`).
    #[arg(required_unless_present = "list", value_name = "NAME",
        value_parser = clap::builder::PossibleValuesParser::new(crate::cases::names()),
        hide_possible_values = true)]
    pub name: Option<String>,
    /// List the cases.
    ///
    /// Name, year, the shuffle, the deck of its published figures, what the emulation finds.
    /// Of the other flags only --format, -o and -q go with it: the rest set up a run.
    #[arg(long, conflicts_with_all = [
        "name", "deck", "trials", "alpha", "explain", "seed", "brief", "color", "threads",
        "max_paths", "no_deal_tests", "emit_permutations", "plot", "table",
    ])]
    pub list: bool,
    /// Cards [default: the deck of the case's published figures].
    ///
    /// At another deck the emulation runs the same code (e.g. --deck 5 for every ordering and
    /// --explain), and the published figures are listed, not compared.
    #[arg(short = 'n', long, value_parser = parse_deck, help_heading = TEST)]
    pub deck: Option<usize>,
    /// Shuffles [default: 1M, or max(1M, 20·n!) at another deck].
    #[arg(short = 't', long, value_parser = parse_count, help_heading = TEST)]
    pub trials: Option<u64>,
    #[command(flatten)]
    pub alpha: AlphaArgs,
    /// Also say which bug the tally looks like (as `run --explain`).
    #[arg(long, help_heading = TEST)]
    pub explain: bool,
    #[command(flatten)]
    pub seed: SeedArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub verdict: VerdictArgs,
    /// No progress bar.
    #[arg(short, long, help_heading = OUTPUT)]
    pub quiet: bool,
    #[command(flatten)]
    pub threads: ThreadsArgs,
    /// Budget of choice paths for the exact law [default: 1e8].
    #[arg(long, value_parser = parse_count, value_name = "PATHS", help_heading = PERFORMANCE)]
    pub max_paths: Option<u64>,
    /// Leave out the tests of the stream of deals, and their memory.
    #[arg(long, help_heading = PERFORMANCE)]
    pub no_deal_tests: bool,
    /// Also write every shuffle's permutation to FILE (`-` is stdout).
    ///
    /// One per line (cards 0-based), in the format `check` reads: the emulation as a test
    /// input.
    #[arg(long, value_name = "FILE", help_heading = ADVANCED)]
    pub emit_permutations: Option<PathBuf>,
}

/// `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write the page to FILE instead of stdout (`-` is stdout).
    ///
    /// The file is written aside and renamed into place when complete.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The examples of `merge`, ending its `-h` and `--help`.
macro_rules! merge_examples {
    () => {
        "Examples:
  for i in 0 1 2 3; do shuffle-bias run naive -n 5 -t 1M --seed 7 --shard $i/4 \\
      --save-tally naive.$i.tally & done; wait
  shuffle-bias merge naive.*.tally --format json
  shuffle-bias check deals.txt --save-tally day-1.tally
  shuffle-bias merge day-*.tally --brief"
    };
}

const MERGE_EXAMPLES: &str = merge_examples!();

const MERGE_LONG: &str = concat!(
    "\
The files must be parts of one experiment: the same command, algorithm, passes, deck, mode,
trials, seed and random source (run), or the same numbering, labels and model (check), written
by the same version. Shards must not overlap; missing blocks, and files cut short by Ctrl-C, are
refused unless --allow-partial. --against comes from the files, and so do --alpha and
--max-paths unless given here.

Exit codes:
  0  no bias detected (with --max-bias SIZE: FAIR WITHIN SIZE)
  1  bias detected
  2  error: files that are not parts of one experiment, overlapping, missing or damaged
  3  inconclusive (--max-bias only)
  130  interrupted (Ctrl-C) before the report",
    "\n\n",
    merge_examples!()
);

/// `merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Tally files written by `run --save-tally` or `check --save-tally`.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Family-wise significance level [default: the files' own].
    #[arg(long, value_parser = parse_alpha, help_heading = TEST)]
    pub alpha: Option<f64>,
    #[command(flatten)]
    pub gate: GateArgs,
    /// Report even when blocks are missing or a file was cut short.
    ///
    /// Report on what the files hold even when blocks are missing or a file was cut short by
    /// Ctrl-C (the report says so).
    #[arg(long, help_heading = TEST)]
    pub allow_partial: bool,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub verdict: VerdictArgs,
    /// No progress display.
    #[arg(short, long, help_heading = OUTPUT)]
    pub quiet: bool,
    /// Threads that read the counts [default: the number of CPUs].
    ///
    /// Threads that read the counts of large full tallies, each its own range of counters in
    /// every file.
    #[arg(long, value_parser = parse_threads, help_heading = PERFORMANCE)]
    pub threads: Option<usize>,
    /// Budget of choice paths for the exact law [default: the files' own].
    #[arg(long, value_parser = parse_count, value_name = "PATHS", help_heading = PERFORMANCE)]
    pub max_paths: Option<u64>,
    /// List all n! orderings in JSON and CSV, whatever the deck.
    ///
    /// List every one of the n! orderings in JSON and CSV (`--table permutations`) whatever
    /// the deck.
    #[arg(long, help_heading = ADVANCED)]
    pub all_orderings: bool,
}

/// `--shard I/K`: shard I (from 0) of K.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardArg {
    /// I, from 0 to K − 1.
    pub index: u64,
    /// K, at least 1.
    pub count: u64,
}

/// Parse `--shard I/K`.
pub fn parse_shard(text: &str) -> Result<ShardArg, String> {
    let invalid = || {
        format!(
            "'{text}' is not a shard; write I/K with 0 ≤ I < K, e.g. 0/4 for the first of 4 \
             (shards count from 0, like SLURM_ARRAY_TASK_ID=0-3 and JOB_COMPLETION_INDEX)"
        )
    };
    let (index, count) = text.trim().split_once('/').ok_or_else(invalid)?;
    let index: u64 = index.trim().parse().map_err(|_| invalid())?;
    let count: u64 = count.trim().parse().map_err(|_| invalid())?;
    if count == 0 || index >= count {
        return Err(invalid());
    }
    Ok(ShardArg { index, count })
}

/// The examples of `check`, ending its `-h` and `--help`.
macro_rules! check_examples {
    () => {
        "Examples:
  python3 my_shuffle.py | shuffle-bias check --deck 5
  shuffle-bias check deals.txt --format json
  shuffle-bias check logs/*.txt --labels A,K,Q,J,10
  shuffle-bias check deals.txt --against comparator-timsort
  shuffle-bias check hands.txt --deal 5 --cards standard --game poker
  shuffle-bias check --exec 'python3 my_shuffle.py' --trials 10k --until-decided
  shuffle-bias check --trials 10k --threads 2 -- python3 my_shuffle.py"
    };
}

const CHECK_EXAMPLES: &str = check_examples!();

const CHECK_LONG: &str = concat!(
    "\
Input: one permutation per line — the deck after one shuffle — as integers 0..n-1 or 1..n (the
numbering is detected; a mix is an error) or as labels given with --labels; tokens separated by
spaces, tabs or one comma (an empty field, as in 0,,1, is an error); blank lines and lines
starting with # are skipped; CRLF and a UTF-8 byte-order mark are accepted; a line holds at most
1 MiB. Files are opened one at a time; Ctrl-C reports what was read so far.

With --deal K, a line is K distinct cards of the deck dealt in order (the top K cards of a
shuffled deck); --cards standard reads card names (As, 10h, Th, Q♦, any case) in the standard
order A♠ 2♠ … K♠ A♥ … K♥ A♦ … K♦ A♣ … K♣; --game poker also tests five-card hands' categories.

Exit codes:
  0  no bias detected
  1  bias detected (or, with --against ALGORITHM, the input does not behave like it)
  2  error: a bad line (FILE:LINE is named), a missing file, bad flags",
    "\n\n",
    check_examples!()
);

/// The examples of `compare`, ending its `-h` and `--help`.
macro_rules! compare_examples {
    () => {
        "Examples:
  shuffle-bias compare fisher-yates naive sattolo comparator-merge -n 4 -t 1M --seed 7
  shuffle-bias compare --all -t 100k --format markdown"
    };
}

const COMPARE_EXAMPLES: &str = compare_examples!();

const COMPARE_LONG: &str = concat!(
    "\
Each algorithm is run with the same deck, trials and seed and judged against uniform, as `run`
would judge it; the table puts the results side by side with each algorithm's exact theory.

Exit codes (compare doubles as a self-test a CI job can run):
  0  every verdict is as expected: the algorithms meant to be uniform show no bias and every
     biased one is detected
  1  some verdict is not as expected (a uniform algorithm flagged, or a biased one missed —
     the \"trials to detect\" column says how many trials would catch it)
  2  error: bad flags, unwritable output, or a run that could not be done
  130  interrupted (Ctrl-C): the table of the algorithms run so far is still written",
    "\n\n",
    compare_examples!()
);

/// `compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The algorithms to compare (see `shuffle-bias list`).
    ///
    /// fisher-yates, fisher-yates-forward, inside-out, naive, naive-off-by-one, sattolo,
    /// comparator-insertion, comparator-merge, comparator-quick, comparator-timsort, zend-sort,
    /// zend-sort-coin, zend-sort-stable, riffle, overhand, shelf or unshuffled.
    #[arg(
        value_enum,
        hide_possible_values = true,
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    pub algorithms: Vec<Algorithm>,
    /// Compare every built-in algorithm.
    #[arg(long, help_heading = TEST)]
    pub all: bool,
    /// Number of cards, 2 to 11 (all n! orderings are tallied).
    #[arg(short = 'n', long, default_value_t = 4, value_parser = parse_deck, help_heading = TEST)]
    pub deck: usize,
    /// Shuffles per algorithm, e.g. 240k or 1e6 [default: max(1M, 20·n!)].
    ///
    /// Written 240000, 240k, 10M, 1e6 or 1_000_000.
    #[arg(short = 't', long, value_parser = parse_count, help_heading = TEST)]
    pub trials: Option<u64>,
    #[command(flatten)]
    pub alpha: AlphaArgs,
    #[command(flatten)]
    pub sequential: SequentialArgs,
    #[command(flatten)]
    pub seed: SeedArgs,
    /// Random number generator: chacha8, chacha12 or chacha20.
    ///
    /// `compare` runs on the ChaCha generators; test another
    /// generator one algorithm at a time with `run ALGORITHM --rng NAME`.
    #[arg(long, default_value = "chacha8", value_parser = chacha_parser(), value_name = "NAME",
        hide_possible_values = true, help_heading = SOURCE)]
    pub rng: RngKind,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub verdict: VerdictArgs,
    /// No progress bar.
    #[arg(short, long, help_heading = OUTPUT)]
    pub quiet: bool,
    #[command(flatten)]
    pub threads: ThreadsArgs,
    /// Budget of choice paths for each exact law [default: 1e8].
    #[arg(long, value_parser = parse_count, value_name = "PATHS", help_heading = PERFORMANCE)]
    pub max_paths: Option<u64>,
}

/// `--until-decided`, shared by `run`, `check` and `compare`.
#[derive(Debug, Args)]
pub struct SequentialArgs {
    /// Stop as soon as the answer is clear.
    ///
    /// Watch an anytime-valid e-value per test after every shuffle (in trial order, so the
    /// stopping point does not depend on --threads) and stop with "bias detected" the moment
    /// the family rejects at --alpha; at --trials (for check, at the end of the input) the
    /// usual fixed-sample tests decide. `check` then stops reading: a producer writing into the
    /// pipe gets SIGPIPE.
    #[arg(long, help_heading = TEST)]
    pub until_decided: bool,
}

/// `--max-bias`, shared by `run`, `check` and `merge`.
#[derive(Debug, Args)]
pub struct GateArgs {
    /// Pass only if the bias is shown within SIZE (1pp, 0.02tv).
    ///
    /// Gate on the size of bias, not just on its detection: FAIR WITHIN SIZE (exit 0) when the
    /// 99% bounds show the bias at most SIZE, BIAS DETECTED (exit 1), or INCONCLUSIVE (exit 3)
    /// with the trials that would settle it. SIZE is percentage points of every card's chance
    /// of each position (1pp) or, with every ordering tallied, a total variation distance
    /// (0.02tv). With --until-decided the run also stops once the bias is shown within SIZE.
    #[arg(long, value_parser = parse_bias_size, value_name = "SIZE", help_heading = TEST)]
    pub max_bias: Option<BiasSize>,
}

/// Parse `--max-bias`.
fn parse_bias_size(text: &str) -> Result<BiasSize, String> {
    BiasSize::parse(text)
}

/// `--alpha`, shared by `run` and `compare`.
#[derive(Debug, Args)]
pub struct AlphaArgs {
    /// Family-wise significance level of the verdict.
    ///
    /// For `compare`, of each algorithm's verdict.
    #[arg(long, default_value_t = 0.001, value_parser = parse_alpha, help_heading = TEST)]
    pub alpha: f64,
}

/// `--seed`, shared by `run` and `compare`.
#[derive(Debug, Args)]
pub struct SeedArgs {
    /// Seed, 0 to 2^64−1 [default: drawn from the OS, printed in the report].
    ///
    /// The same seed gives the same counts, whatever --threads.
    #[arg(long, value_parser = parse_seed, help_heading = SOURCE)]
    pub seed: Option<u64>,
}

/// `--threads`, shared by `run` and `compare`.
#[derive(Debug, Args)]
pub struct ThreadsArgs {
    /// Worker threads [default: the number of CPUs].
    #[arg(long, value_parser = parse_threads, help_heading = PERFORMANCE)]
    pub threads: Option<usize>,
}

/// `--brief` and `--color`, for the commands whose report has a verdict (`run`, `check`,
/// `merge`, `compare`).
#[derive(Debug, Args)]
pub struct VerdictArgs {
    /// One line: the verdict, the strongest test and what was ruled out.
    ///
    /// For scripts and CI logs, instead of the tables; the exit code is the same.
    #[arg(long, conflicts_with_all = ["format", "table"], help_heading = OUTPUT)]
    pub brief: bool,
    /// Colour the verdict: auto, always or never.
    ///
    /// auto colours only a report shown on a terminal, and not when the environment variable
    /// NO_COLOR is set (to anything but an empty string); always colours even into a file or
    /// a pipe, whatever NO_COLOR says; never does not colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN",
        hide_possible_values = true, help_heading = OUTPUT)]
    pub color: ColorChoice,
}

/// How a word becomes an integer (`run` and `theory`).
#[derive(Debug, Args)]
pub struct SourceArgs {
    /// How a word becomes an integer in [0, k) [default: lemire].
    ///
    /// lemire (unbiased), rejection (threshold then modulo, unbiased), bitmask (the top
    /// ceil(log2 k) bits, drawn again while k or more: PokerStars', unbiased), modulo (word % k),
    /// multiply ((word·k) >> W), float (floor(u·k), u the generator's double in [0, 1)) or
    /// native (the draw of the generator's own language: Java's nextInt(bound), Python's
    /// randbelow, Math.floor(Math.random()·n), .NET's Next(n), PHP's mt_rand(min, max), Go's
    /// Intn, …).
    #[arg(long, value_parser = mapping_parser(), value_name = "MAP", hide_possible_values = true,
        help_heading = SOURCE)]
    pub map: Option<Mapping>,
    /// Word width W the mapping sees, 8 to 64 [default: the generator's].
    ///
    /// The top W bits of each word: the generator's own width is 15 for msvc and ansi-c, 32
    /// for chacha and mt19937.
    #[arg(long, value_parser = parse_word_bits, value_name = "W", help_heading = SOURCE)]
    pub bits: Option<u32>,
}

/// `run`'s re-seeding flags: games that seed a fresh generator before every deal.
#[derive(Debug, Args)]
pub struct ReseedArgs {
    /// every-shuffle: a fresh generator before every shuffle.
    ///
    /// Each seeded with a --seed-bits value (the classic `srand(time(NULL))` before each
    /// deal).
    #[arg(long, value_enum, value_name = "WHEN", hide_possible_values = true,
        help_heading = SOURCE)]
    pub reseed: Option<ReseedWhen>,
    /// With --reseed: the bits of each seed, 1 to 64.
    ///
    /// At most 2^B different decks.
    #[arg(long, value_parser = parse_seed_bits, value_name = "B", help_heading = SOURCE)]
    pub seed_bits: Option<u32>,
    /// With --reseed: random, or a counter up from --seed.
    ///
    /// random draws each seed from the run's seed; counter counts up from --seed like a
    /// clock.
    #[arg(long, value_enum, value_name = "HOW", hide_possible_values = true,
        help_heading = SOURCE)]
    pub seeds: Option<SeedsChoice>,
}

/// When the generator is re-seeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReseedWhen {
    /// Before every shuffle.
    EveryShuffle,
}

/// Where re-seeded generators' seeds come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SeedsChoice {
    /// Drawn at random from the run's seed.
    Random,
    /// --seed, --seed + 1, … (a clock).
    Counter,
}

/// `--table`, with only the tables a command writes (`run` has no poker hands, `theory` no
/// tests, `compare` one table), so that help and completions offer none it would refuse.
fn csv_tables(arg: clap::Arg, tables: &[CsvTable]) -> clap::Arg {
    let values: Vec<PossibleValue> = tables
        .iter()
        .filter_map(ValueEnum::to_possible_value)
        .collect();
    let names: Vec<&str> = values.iter().map(PossibleValue::get_name).collect();
    let long_help = format!(
        "The table --format csv writes [default: summary].\n\nCSV holds one table per file: {}.",
        names.join(", ")
    );
    arg.value_parser(
        PossibleValuesParser::new(values)
            .map(|name| CsvTable::from_str(&name, false).expect("a listed table")),
    )
    .long_help(long_help)
}

/// The names `--rng` takes: the ChaCha variants, then the generators real code uses.
fn generator_names() -> Vec<&'static str> {
    [RngKind::Chacha8, RngKind::Chacha12, RngKind::Chacha20]
        .into_iter()
        .map(RngKind::name)
        .chain(GeneratorKind::ALL.into_iter().map(GeneratorKind::name))
        .collect()
}

/// `--rng` of `run`: every generator, listed for help and completions.
fn generator_parser() -> impl TypedValueParser<Value = Generator> {
    PossibleValuesParser::new(generator_names()).try_map(|name| parse_generator(&name))
}

/// `--rng` of `compare`: the ChaCha variants only, the generators `compare` runs on.
fn chacha_parser() -> impl TypedValueParser<Value = RngKind> {
    let kinds = [RngKind::Chacha8, RngKind::Chacha12, RngKind::Chacha20];
    PossibleValuesParser::new(kinds.map(RngKind::name)).try_map(move |name| {
        kinds
            .into_iter()
            .find(|kind| kind.name() == name)
            .ok_or_else(|| format!("'{name}' is not a ChaCha generator"))
    })
}

/// `--map`: the mappings, listed for completions.
fn mapping_parser() -> impl TypedValueParser<Value = Mapping> {
    PossibleValuesParser::new(Mapping::ALL.map(Mapping::name)).try_map(|name| parse_mapping(&name))
}

/// Parse `--rng`: a ChaCha variant or one of the generators real code uses.
pub fn parse_generator(text: &str) -> Result<Generator, String> {
    for rng in [RngKind::Chacha8, RngKind::Chacha12, RngKind::Chacha20] {
        if text == rng.name() {
            return Ok(Generator::ChaCha(rng));
        }
    }
    for kind in GeneratorKind::ALL {
        if text == kind.name() {
            return Ok(Generator::Other(kind));
        }
    }
    Err(format!(
        "'{text}' is not a generator; choose one of {}",
        generator_names().join(", ")
    ))
}

/// Parse `--map`.
pub fn parse_mapping(text: &str) -> Result<Mapping, String> {
    Mapping::ALL
        .into_iter()
        .find(|mapping| mapping.name() == text)
        .ok_or_else(|| {
            let names: Vec<&str> = Mapping::ALL.iter().map(|m| m.name()).collect();
            format!(
                "'{text}' is not a mapping; choose one of {}",
                names.join(", ")
            )
        })
}

/// `--against`, in one vocabulary for `run` and `check`: the hypothesis the verdict tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hypothesis {
    /// `uniform`: every ordering equally likely.
    Uniform,
    /// An algorithm's exact law (for `run`, the algorithm it runs).
    Algorithm(Algorithm),
    /// `model`, the older spelling of `run`'s own algorithm (kept for existing scripts; not
    /// listed).
    OwnAlgorithm,
}

/// `--against`: `uniform` or an algorithm, listed for help and completions; `model` is
/// accepted but not listed.
fn hypothesis_parser() -> impl TypedValueParser<Value = Hypothesis> {
    let values = std::iter::once(PossibleValue::new("uniform"))
        .chain(Algorithm::ALL.map(|a| PossibleValue::new(a.name())))
        .chain(std::iter::once(PossibleValue::new("model").hide(true)));
    PossibleValuesParser::new(values).map(|name| parse_hypothesis(&name))
}

/// The hypothesis a listed `--against` value names.
fn parse_hypothesis(name: &str) -> Hypothesis {
    match name {
        "uniform" => Hypothesis::Uniform,
        "model" => Hypothesis::OwnAlgorithm,
        _ => Algorithm::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .map_or(Hypothesis::Uniform, Hypothesis::Algorithm),
    }
}

/// What `check` tests the input against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckAgainst {
    /// Every ordering equally likely.
    Uniform,
    /// The exact law of a built-in algorithm.
    Algorithm(Algorithm),
}

/// `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files of permutations, tallied together; `-` (or nothing) reads stdin.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Number of cards [default: read off the first permutation].
    ///
    /// 2 to 11 with every ordering tallied, up to 1000 in marginal mode.
    #[arg(short = 'n', long, value_parser = parse_deck, help_heading = TEST)]
    pub deck: Option<usize>,
    /// Read at most this many permutations [default: the whole input].
    ///
    /// Written 240000, 240k, 1M, 1e6 or 1_000_000; with --deal, this many deals.
    #[arg(short = 't', long, value_parser = parse_count, help_heading = TEST)]
    pub trials: Option<u64>,
    /// uniform, or an algorithm's exact law.
    ///
    /// The hypothesis the verdict tests: uniform, or the name of an algorithm (see `shuffle-bias list`) whose exact law the
    /// input should follow, e.g. --against comparator-timsort.
    #[arg(long, value_parser = hypothesis_parser(), default_value = "uniform",
        hide_possible_values = true, value_name = "uniform|ALGORITHM",
        help_heading = TEST)]
    pub against: Hypothesis,
    /// Family-wise significance level of the verdict.
    #[arg(long, default_value_t = 0.001, value_parser = parse_alpha, help_heading = TEST)]
    pub alpha: f64,
    /// Judge one permutation on its own (e.g. a draft lottery's order).
    ///
    /// Spearman's rho with the starting order and the statistics of the whole order
    /// (inversions, descents, longest increasing subsequence, footrule, …), each two-sided,
    /// Holm-adjusted; exact p-values where the laws are computed, the method named where not.
    /// The input must hold exactly one permutation.
    #[arg(long, conflicts_with_all = ["deal", "game", "until_decided", "save_tally", "max_bias"],
        help_heading = TEST)]
    pub single: bool,
    /// auto, full (every ordering) or marginal.
    ///
    /// What to tally: full counts every one of the n! orderings (2 to 11 cards); marginal counts
    /// where each card lands, the identity, and permutation statistics with exact laws (fixed
    /// points, cycles, rising sequences, adjacent pairs, descents, inversions, longest
    /// increasing subsequence, footrule), 2 to 1000 cards; auto is full up to
    /// 11 cards, marginal above.
    #[arg(long, value_enum, default_value_t = ModeChoice::Auto, hide_possible_values = true,
        help_heading = TEST)]
    pub mode: ModeChoice,
    #[command(flatten)]
    pub sequential: SequentialArgs,
    #[command(flatten)]
    pub gate: GateArgs,
    /// Also say which bug the tally looks like.
    ///
    /// Fit the tally against the exact law of every built-in algorithm at this deck size (full
    /// mode, up to 10 cards; riffle, overhand and shelf on a small grid of their parameters,
    /// and Fisher–Yates fed by word mod k) by Pearson's χ², rank the models that fit, and list
    /// the tell-tale signatures seen: no card in its place, the last card never last, the
    /// naive shuffle's tilt, the identity far too often, a modulo step. In marginal mode the
    /// signatures only. Shown in the table, Markdown and JSON reports.
    #[arg(long, conflicts_with_all = ["deal", "game", "single"], help_heading = TEST)]
    pub explain: bool,
    /// With --against ALGORITHM: this many passes of it [default: 1].
    #[arg(long, value_parser = parse_pass_count, value_name = "K", help_heading = TEST)]
    pub passes: Option<u32>,
    /// With --against overhand: the chance a gap is cut [default: 0.5].
    #[arg(
        long,
        value_parser = parse_cut_probability,
        value_name = "P",
        allow_hyphen_values = true,
        help_heading = TEST
    )]
    pub cut_probability: Option<CutProbability>,
    /// With --against shelf: the number of shelves [default: 10].
    #[arg(long, value_parser = parse_shelves, value_name = "M", help_heading = TEST)]
    pub shelves: Option<u16>,
    /// Run COMMAND in the shell and read its standard output.
    ///
    /// Instead of files (e.g. --exec 'python3 shuffle.py'). It gets a seed in the
    /// environment variable SHUFFLE_BIAS_SEED (--seed, else a random one that the report
    /// gives), is stopped once --trials permutations are read or --until-decided decides, and
    /// fails the check (exit 2, with the end of its standard error) if it exits with an error.
    #[arg(long, value_name = "COMMAND", conflicts_with = "files", help_heading = SOURCE)]
    pub exec: Option<String>,
    /// After `--`: a program and its arguments, run as --exec runs a command line.
    ///
    /// Without a shell, so nothing needs quoting (e.g. `check -t 100k -- python3 -c CODE`).
    #[arg(last = true, value_name = "PROGRAM", conflicts_with_all = ["files", "exec"])]
    pub program: Vec<String>,
    /// The seed given in SHUFFLE_BIAS_SEED (--exec, `-- PROGRAM`), to repeat a run.
    #[arg(long, value_parser = parse_seed, help_heading = SOURCE)]
    pub seed: Option<u64>,
    /// Run K copies of the command side by side [default: 1].
    ///
    /// With --exec or `-- PROGRAM`: copy i gets the seed + i (and SHUFFLE_BIAS_COPY=i, SHUFFLE_BIAS_COPIES=K); their
    /// permutations are pooled 1024 lines of each in turn, so a seeded run repeats exactly.
    #[arg(long, value_parser = parse_threads, value_name = "K", help_heading = SOURCE)]
    pub threads: Option<usize>,
    /// Card labels in starting order, comma-separated (e.g. A,K,Q,J,10).
    ///
    /// The labels in this order are the identity.
    #[arg(long, value_name = "LABELS", help_heading = SOURCE)]
    pub labels: Option<String>,
    /// Each line is a deal: K distinct cards, in the order dealt.
    ///
    /// K distinct cards of the deck (--deck N, or --cards standard), in the order dealt — the
    /// top K cards of the shuffled deck. 1 ≤ K ≤ N.
    #[arg(long, value_name = "K", value_parser = parse_deck, help_heading = SOURCE)]
    pub deal: Option<usize>,
    /// Read cards by name (As, 10h, Q♦).
    ///
    /// `standard` is the 52 cards written As, AS, A♠, 10h, Th, 2c (any case), in the order
    /// A♠ 2♠ … K♠, A♥ … K♥, A♦ … K♦, A♣ … K♣ (the identity).
    #[arg(long, value_enum, value_name = "SET", help_heading = SOURCE)]
    pub cards: Option<CardNames>,
    /// Test the hands of a game: poker (with --deal 5).
    ///
    /// `poker` (with --deal 5 of the 52 standard cards) tests the nine hand categories
    /// against their exact counts and each hand's category against the previous hand's.
    #[arg(long, value_enum, value_name = "GAME", hide_possible_values = true,
        help_heading = SOURCE)]
    pub game: Option<Game>,
    /// Count and skip bad lines instead of failing.
    ///
    /// The report shows how many and the first few.
    #[arg(long, help_heading = SOURCE)]
    pub skip_invalid: bool,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub verdict: VerdictArgs,
    /// No progress display.
    #[arg(short, long, help_heading = OUTPUT)]
    pub quiet: bool,
    /// Budget of choice paths for the exact law [default: 1e8].
    ///
    /// The law of --against ALGORITHM.
    #[arg(long, value_parser = parse_count, value_name = "PATHS", help_heading = PERFORMANCE)]
    pub max_paths: Option<u64>,
    /// Leave out the tests of the stream of deals, and their memory.
    ///
    /// The repeated decks, serial matches, serial slots and serial compositions, and the
    /// memory they take (16 bytes a deal in marginal mode for the repeated decks).
    #[arg(long, help_heading = PERFORMANCE)]
    pub no_deal_tests: bool,
    /// Also save the tally in FILE, for `merge`.
    ///
    /// For `merge` to add it to others (e.g. one file per day of logs); a check cut short by
    /// Ctrl-C saves what was read, marked partial.
    #[arg(long, value_name = "FILE", help_heading = ADVANCED)]
    pub save_tally: Option<PathBuf>,
    /// The bits of state (or seed) of the generator behind the input, if known.
    ///
    /// The report then says how few of the orderings it can reach (e.g. 32 for a 32-bit
    /// seed).
    #[arg(long, value_parser = parse_state_bits, value_name = "B", help_heading = ADVANCED)]
    pub state_bits: Option<u32>,
    /// List all n! orderings in JSON and CSV, whatever the deck.
    ///
    /// `--table permutations` too; by default they are listed up to 8 cards (9! = 362,880
    /// rows, 11! about 40 million), and the most and least frequent are always given.
    #[arg(long, help_heading = ADVANCED)]
    pub all_orderings: bool,
}

/// A game whose dealt hands `check --game` tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Game {
    /// Five-card poker hands: the nine categories, high card to straight flush.
    Poker,
}

/// When the table format colours its verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    #[default]
    Auto,
    /// Always, even into a file or a pipe, and whatever NO_COLOR says.
    Always,
    /// Never.
    Never,
}

/// Output flags shared by every subcommand that writes a report.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Output format: table, csv, json or markdown.
    ///
    /// table: human-readable tables; csv: one CSV table (choose it with --table); json:
    /// everything, as one JSON document; markdown: the tables as GitHub-flavoured Markdown.
    #[arg(long, value_enum, default_value_t = Format::Table, hide_possible_values = true,
        help_heading = OUTPUT)]
    pub format: Format,
    /// The table --format csv writes [default: summary].
    ///
    /// CSV holds one table per file: summary, tests, permutations, positions, statistics
    /// (marginal mode) or hands (`check --game poker`).
    #[arg(long, value_enum, hide_possible_values = true, help_heading = OUTPUT)]
    pub table: Option<CsvTable>,
    /// Write the report to FILE instead of stdout (`-` is stdout).
    ///
    /// The file is written aside and renamed into place when the report is complete, so a
    /// failed run leaves an existing FILE as it was. A FILE that is a symbolic link is written
    /// through: the file it points to is replaced and the link stays a link (a loop of links
    /// is refused).
    #[arg(short = 'o', long, value_name = "FILE", help_heading = OUTPUT)]
    pub output: Option<PathBuf>,
    /// Also draw the report as an SVG picture in FILE.svg (`-` is stdout).
    ///
    /// The position heat map and the ordering frequencies, a heat map and an ordering chart
    /// per algorithm for `compare`, the mixing curve for `theory --passes A..B`.
    #[arg(long, value_name = "FILE.svg", help_heading = OUTPUT)]
    pub plot: Option<PathBuf>,
}

/// What to tally.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeChoice {
    /// Full when every ordering can be counted in memory (up to 11 cards), else marginal.
    Auto,
    /// Count every one of the n! orderings (2 to 11 cards).
    Full,
    /// Count where each card lands, the identity, and permutation statistics with exact laws
    /// (fixed points, cycles, rising sequences, adjacent pairs, descents, inversions, longest
    /// increasing subsequence, footrule): 2 to 1000 cards.
    Marginal,
}

/// `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The algorithm (see `shuffle-bias list`).
    ///
    /// fisher-yates, fisher-yates-forward, inside-out, naive, naive-off-by-one, sattolo,
    /// comparator-insertion, comparator-merge, comparator-quick, comparator-timsort, zend-sort,
    /// zend-sort-coin, zend-sort-stable, riffle, overhand, shelf or unshuffled.
    #[arg(value_enum, hide_possible_values = true)]
    pub algorithm: Algorithm,
    /// Cards: 2 to 11, or up to 1000 in marginal mode.
    ///
    /// 2 to 11 with every ordering tallied, up to 1000 in marginal mode.
    #[arg(short = 'n', long, default_value_t = 4, value_parser = parse_deck, help_heading = TEST)]
    pub deck: usize,
    /// Shuffles, e.g. 240k or 1e6 [default: max(1M, 20·n!)].
    ///
    /// Written 240000, 240k, 10M, 1e6, 1_000_000 or 2.5G. The default expects every ordering
    /// at least 20 times; in marginal mode it is 1M.
    #[arg(short = 't', long, value_parser = parse_count, help_heading = TEST)]
    pub trials: Option<u64>,
    /// uniform, or the algorithm's own exact law.
    ///
    /// The hypothesis the verdict tests: uniform, or the name of the algorithm run (its exact law: does the output match what
    /// this algorithm should do?); `model` is another name for the algorithm run. To test a
    /// shuffle's output against another algorithm's law, emit it and check it:
    /// `run naive --emit-permutations - -o /dev/null | check --against sattolo`.
    #[arg(long, value_parser = hypothesis_parser(), default_value = "uniform",
        hide_possible_values = true, value_name = "uniform|ALGORITHM",
        help_heading = TEST)]
    pub against: Hypothesis,
    #[command(flatten)]
    pub alpha: AlphaArgs,
    /// Apply the algorithm K times per trial.
    ///
    /// The K passes shuffle the same deck; one trial is all K passes.
    #[arg(long, default_value_t = 1, value_parser = parse_pass_count, value_name = "K",
        help_heading = TEST)]
    pub passes: u32,
    /// auto, full (every ordering) or marginal.
    ///
    /// What to tally: full counts every one of the n! orderings (2 to 11 cards); marginal counts
    /// where each card lands, the identity, and permutation statistics with exact laws (fixed
    /// points, cycles, rising sequences, adjacent pairs, descents, inversions, longest
    /// increasing subsequence, footrule), 2 to 1000 cards; auto is full up to
    /// 11 cards, marginal above.
    #[arg(long, value_enum, default_value_t = ModeChoice::Auto, hide_possible_values = true,
        help_heading = TEST)]
    pub mode: ModeChoice,
    #[command(flatten)]
    pub sequential: SequentialArgs,
    #[command(flatten)]
    pub gate: GateArgs,
    /// Also say which bug the tally looks like.
    ///
    /// Fit the tally against the exact law of every built-in algorithm at this deck size (full
    /// mode, up to 10 cards; riffle, overhand and shelf on a small grid of their parameters,
    /// and Fisher–Yates fed by word mod k) by Pearson's χ², rank the models that fit, and list
    /// the tell-tale signatures seen: no card in its place, the last card never last, the
    /// naive shuffle's tilt, the identity far too often, a modulo step. In marginal mode the
    /// signatures only. Shown in the table, Markdown and JSON reports.
    #[arg(long, conflicts_with = "shard", help_heading = TEST)]
    pub explain: bool,
    /// The overhand shuffle's chance that a gap is cut [default: 0.5].
    ///
    /// A decimal (0.5, 0.25, 0.1) or a fraction (1/3), strictly between 0 and 1. The default
    /// is Pemantle's (1989): packets of 2 cards on average.
    #[arg(
        long,
        value_parser = parse_cut_probability,
        value_name = "P",
        allow_hyphen_values = true,
        help_heading = TEST
    )]
    pub cut_probability: Option<CutProbability>,
    /// The shelf shuffler's shelves, 1 to 10000 [default: 10].
    ///
    /// The default is the casino machine of Diaconis, Fulman & Holmes (2013).
    #[arg(long, value_parser = parse_shelves, value_name = "M", help_heading = TEST)]
    pub shelves: Option<u16>,
    #[command(flatten)]
    pub seed: SeedArgs,
    /// Random number generator.
    ///
    /// chacha8, chacha12, chacha20, or one that real code uses — mt19937 (Python's seeding),
    /// std-mt19937 (C++'s), xorshift128+ (V8's Math.random), xorshift128+-legacy, mwc1616 (V8
    /// before Chrome 49), java (java.util.Random), msvc (Microsoft C rand()), ansi-c (the C
    /// standard's rand()), minstd (Park–Miller), pcg32, xoshiro256++, delphi (Delphi's Random),
    /// dotnet (.NET's seeded System.Random), php-mt (PHP's mt_rand since 7.1), php-mt-legacy
    /// (before 7.1), go (Go's math/rand), os (the operating system's generator: not
    /// reproducible, so it takes no --seed).
    #[arg(long, default_value = "chacha8", value_parser = generator_parser(), value_name = "NAME",
        hide_possible_values = true, help_heading = SOURCE)]
    pub rng: Generator,
    #[command(flatten)]
    pub source: SourceArgs,
    #[command(flatten)]
    pub reseed: ReseedArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub verdict: VerdictArgs,
    /// No progress bar.
    #[arg(short, long, help_heading = OUTPUT)]
    pub quiet: bool,
    #[command(flatten)]
    pub threads: ThreadsArgs,
    /// Budget of choice paths for the exact law [default: 1e8].
    #[arg(long, value_parser = parse_count, value_name = "PATHS", help_heading = PERFORMANCE)]
    pub max_paths: Option<u64>,
    /// Leave out the tests of the stream of deals, and their memory.
    ///
    /// The repeated decks, serial matches, serial slots and serial compositions, and the
    /// memory they take (16 bytes a deal in marginal mode for the repeated decks).
    #[arg(long, help_heading = PERFORMANCE)]
    pub no_deal_tests: bool,
    /// Compute only shard I of K (from 0), for `merge`.
    ///
    /// The blocks ⌊B·I/K⌋ to ⌊B·(I+1)/K⌋ − 1 of the B = ⌈trials / 65536⌉ blocks. Needs --seed
    /// and --save-tally; writes no report (`merge` the K files for it), so the flags of the
    /// report and its verdict (-o, --format, --brief, --max-bias, …) go to `merge`.
    #[arg(long, value_parser = parse_shard, value_name = "I/K", help_heading = ADVANCED)]
    pub shard: Option<ShardArg>,
    /// Save the tally in FILE, for `merge`.
    ///
    /// Beside the report; instead of it with --shard. A run cut short by Ctrl-C saves the
    /// blocks done, marked partial.
    #[arg(long, value_name = "FILE", help_heading = ADVANCED)]
    pub save_tally: Option<PathBuf>,
    /// Also write every shuffle's permutation to FILE (`-` is stdout).
    ///
    /// With the report sent elsewhere by -o; one per line (cards 0-based), in the format
    /// `check` reads.
    #[arg(long, value_name = "FILE", help_heading = ADVANCED)]
    pub emit_permutations: Option<PathBuf>,
    /// List all n! orderings in JSON and CSV, whatever the deck.
    ///
    /// `--table permutations` too; by default they are listed up to 8 cards (9! = 362,880
    /// rows, 11! about 40 million), and the most and least frequent are always given.
    #[arg(long, help_heading = ADVANCED)]
    pub all_orderings: bool,
}

/// The examples of `theory`, ending its `-h` and `--help`.
macro_rules! theory_examples {
    () => {
        "Examples:
  shuffle-bias theory naive -n 4
  shuffle-bias theory riffle -n 52 --passes 1..10 --plot riffle.svg
  shuffle-bias theory overhand -n 6 --cut-probability 1/3 --format json
  shuffle-bias theory fisher-yates -n 8 --state-bits 32"
    };
}

const THEORY_EXAMPLES: &str = theory_examples!();

const THEORY_LONG: &str = concat!(
    "Exit codes: 0 on success, 2 on bad input.",
    "\n\n",
    theory_examples!()
);

/// `theory`.
#[derive(Debug, Args)]
pub struct TheoryArgs {
    /// The algorithm (see `shuffle-bias list`).
    ///
    /// fisher-yates, fisher-yates-forward, inside-out, naive, naive-off-by-one, sattolo,
    /// comparator-insertion, comparator-merge, comparator-quick, comparator-timsort, zend-sort,
    /// zend-sort-coin, zend-sort-stable, riffle, overhand, shelf or unshuffled.
    #[arg(value_enum, hide_possible_values = true)]
    pub algorithm: Algorithm,
    /// Cards: 2 to 10, or up to 1000 for riffle and shelf.
    ///
    /// 2 to 10 for the exact law of every ordering; up to 1000 for the distance to uniform of
    /// the riffle and the shelf shuffler (closed forms).
    #[arg(short = 'n', long, default_value_t = 4, value_parser = parse_deck, help_heading = TEST)]
    pub deck: usize,
    /// K passes, or a range A..B for the mixing curve.
    ///
    /// The law of K passes of the algorithm on the same deck; a range A..B prints the mixing
    /// curve instead: the total variation distance to uniform after each number of passes.
    #[arg(long, default_value = "1", value_parser = parse_passes, value_name = "K|A..B",
        help_heading = TEST)]
    pub passes: PassesRange,
    /// Level of the "trials for 99% power" figure.
    ///
    /// The significance level the figure refers to.
    #[arg(long, default_value_t = 0.001, value_parser = parse_alpha, help_heading = TEST)]
    pub alpha: f64,
    /// Also the trials that show a fair shuffle within SIZE.
    ///
    /// The trials `run --max-bias SIZE` needs to show a fair shuffle within SIZE. 1pp: percentage points of a position's chance; 0.02tv: total variation.
    #[arg(long, value_parser = parse_bias_size, value_name = "SIZE", help_heading = TEST)]
    pub max_bias: Option<BiasSize>,
    /// The overhand shuffle's chance that a gap is cut [default: 0.5].
    ///
    /// See `run --help`.
    #[arg(
        long,
        value_parser = parse_cut_probability,
        value_name = "P",
        allow_hyphen_values = true,
        help_heading = TEST
    )]
    pub cut_probability: Option<CutProbability>,
    /// The shelf shuffler's number of shelves [default: 10].
    ///
    /// See `run --help`.
    #[arg(long, value_parser = parse_shelves, value_name = "M", help_heading = TEST)]
    pub shelves: Option<u16>,
    #[command(flatten)]
    pub source: SourceArgs,
    /// The bits of state (or seed) of a generator: can it reach every ordering?
    ///
    /// The report says whether a generator with B bits of state can reach every ordering of
    /// the deck (e.g. 32 for a 32-bit seed).
    #[arg(long, value_parser = parse_state_bits, value_name = "B", help_heading = SOURCE)]
    pub state_bits: Option<u32>,
    #[command(flatten)]
    pub output: OutputArgs,
    /// No progress display (as the other commands).
    #[arg(short, long, help_heading = OUTPUT)]
    pub quiet: bool,
    /// Budget of choice paths for the exact law [default: 1e8].
    #[arg(long, value_parser = parse_count, value_name = "PATHS", help_heading = PERFORMANCE)]
    pub max_paths: Option<u64>,
    /// List all n! orderings in JSON and CSV, whatever the deck.
    ///
    /// `--table permutations` too; by default they are listed up to 8 cards (9! = 362,880
    /// rows, 11! about 40 million), and the most and least likely are always given.
    #[arg(long, help_heading = ADVANCED)]
    pub all_orderings: bool,
}

/// A number of passes, or an inclusive range of them (`7`, `1..12`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassesRange {
    /// The first number of passes.
    pub first: u32,
    /// The last (equal to `first` for a single number).
    pub last: u32,
}

/// The most passes a mixing curve goes to.
pub const MAX_PASSES_RANGE: u32 = 1000;

fn parse_passes(text: &str) -> Result<PassesRange, String> {
    let number = |part: &str| {
        part.trim().parse::<u32>().map_err(|_| {
            format!("'{text}' is not a number of passes; write K (e.g. 7) or a range A..B (1..12)")
        })
    };
    let (first, last) = match text.split_once("..") {
        None => {
            let k = number(text)?;
            (k, k)
        }
        Some((a, b)) => (number(a)?, number(b.trim_start_matches('='))?),
    };
    if first == 0 {
        return Err(format!("'{text}': a shuffle needs at least 1 pass"));
    }
    if last < first {
        return Err(format!(
            "'{text}': the range is empty; write it as A..B with A ≤ B"
        ));
    }
    if last > MAX_PASSES_RANGE {
        return Err(format!("'{text}': at most {MAX_PASSES_RANGE} passes"));
    }
    Ok(PassesRange { first, last })
}

/// `list`: the output flags without `--plot` (the list has nothing to draw).
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Output format: table, csv, json or markdown.
    ///
    /// table: human-readable tables; csv: one CSV table (choose it with --table); json:
    /// everything, as one JSON document; markdown: the tables as GitHub-flavoured Markdown.
    #[arg(long, value_enum, default_value_t = Format::Table, hide_possible_values = true,
        help_heading = OUTPUT)]
    pub format: Format,
    /// Write the list to FILE instead of stdout (`-` is stdout).
    ///
    /// The file is written aside and renamed into place when complete.
    #[arg(short = 'o', long, value_name = "FILE", help_heading = OUTPUT)]
    pub output: Option<PathBuf>,
}

mod values;
pub use values::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_accept_suffixes_exponents_and_underscores() {
        assert_eq!(parse_count("240000"), Ok(240_000));
        assert_eq!(parse_count("240k"), Ok(240_000));
        assert_eq!(parse_count("10M"), Ok(10_000_000));
        assert_eq!(parse_count("1e6"), Ok(1_000_000));
        assert_eq!(parse_count("1_000_000"), Ok(1_000_000));
        assert_eq!(parse_count("2.5G"), Ok(2_500_000_000));
        assert_eq!(parse_count("9223372036854775808"), Ok(1 << 63));
    }

    #[test]
    fn seeds_take_every_u64_and_the_count_notation() {
        assert_eq!(parse_seed("42"), Ok(42));
        assert_eq!(parse_seed("1e3"), Ok(1000));
        assert_eq!(parse_seed("18446744073709551615"), Ok(u64::MAX));
        // Above 2^63 (where counts stop) in the count notation, read exactly.
        assert_eq!(parse_seed("1e19"), Ok(10_000_000_000_000_000_000));
        assert_eq!(parse_seed("1.8e19"), Ok(18_000_000_000_000_000_000));
        assert_eq!(parse_seed("2.5e1"), Ok(25));
        assert!(parse_seed("2e19").unwrap_err().contains("larger than 2^64"));
        assert!(parse_seed("2.55e1").unwrap_err().contains("whole number"));
        assert!(parse_seed("18446744073709551616").is_err());
        assert!(parse_seed("-1").is_err());
        assert!(
            parse_seed("seven")
                .unwrap_err()
                .contains("'seven' is not a seed")
        );
    }

    #[test]
    fn alpha_outside_the_open_unit_interval_is_echoed_as_written() {
        assert_eq!(parse_alpha("0.001"), Ok(0.001));
        for text in ["1e-400", "0", "1", "1.5", "-0.1", "NaN", "inf", "high"] {
            let error = parse_alpha(text).unwrap_err();
            assert!(error.starts_with(&format!("'{text}' ")), "{error}");
        }
    }

    #[test]
    fn a_deck_that_is_not_a_number_says_so_in_words() {
        assert_eq!(parse_deck("52"), Ok(52));
        assert_eq!(
            parse_deck("abc").unwrap_err(),
            "'abc' is not a number of cards; write it like 4 or 52"
        );
        assert!(parse_threads("two").unwrap_err().contains("threads"));
    }

    #[test]
    fn counts_reject_junk_fractions_and_overflow() {
        assert!(parse_count("").is_err());
        assert!(parse_count("ten").is_err());
        assert!(parse_count("-5").is_err());
        assert!(parse_count("1.5").is_err());
        assert!(parse_count("9223372036854775809").is_err());
        assert!(parse_count("1e30").is_err());
        assert!(parse_count("5x").is_err());
    }
}
