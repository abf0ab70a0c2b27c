//! `run`'s config: the simulation settings, the shuffle, the hypothesis and the outputs
//! (the report, the picture, the emitted permutations), checked against each other.

use std::path::PathBuf;

use super::{
    OutputConfig, SimulationSettings, UsageError, check_listed_orderings, check_max_paths,
    check_shuffle, output_config, run_source_spec,
};
use crate::analysis::ruled_out::BiasSize;
use crate::cases::Case;
use crate::cli::{ColorChoice, Hypothesis, RunArgs, ShardArg};
use crate::engine::algorithms::Shuffle;
use crate::engine::generators::GeneratorKind;
use crate::engine::mapped_source::{Generator, SourceSpec};
use crate::engine::random_source::{BLOCK_TRIALS, RngKind};
use crate::engine::shard::block_count;
use crate::engine::tally::TallyMode;
use crate::output::files::{Target, check_outputs};
use crate::output::{CsvTable, Format};
use crate::report::run::Against;

/// A validated `run`.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The shuffle: algorithm, passes, cut probability.
    pub shuffle: Shuffle,
    /// Mode, deck, trials, seed, generator, threads and level.
    pub settings: SimulationSettings,
    /// The random source: generator, mapping, word width, re-seeding.
    pub source: SourceSpec,
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
    /// Run the tests of the stream of deals (not `--no-deal-tests`).
    pub deal_tests: bool,
    /// `--until-decided`: stop as soon as the sequential test decides.
    pub until_decided: bool,
    /// `--max-bias SIZE`: the equivalence gate.
    pub max_bias: Option<BiasSize>,
    /// `--explain`: add the diagnosis of which bug the tally looks like.
    pub explain: bool,
    /// No progress bar.
    pub quiet: bool,
    /// Output.
    pub output: OutputConfig,
    /// `--shard I/K`: compute only those blocks, save the tally and write no report.
    pub shard: Option<ShardArg>,
    /// `--save-tally FILE`: where to save the tally.
    pub save_tally: Option<PathBuf>,
    /// `case NAME`: the famous shuffle this run emulates (its figures join the report).
    pub case: Option<&'static Case>,
}

impl RunConfig {
    /// Validate `run`'s flags.
    pub fn from_args(args: &RunArgs) -> Result<Self, UsageError> {
        let settings = SimulationSettings::validate(
            args.mode,
            args.deck,
            args.trials,
            args.seed.seed,
            match args.rng {
                Generator::ChaCha(rng) => rng,
                // The words come from `source`; the ChaCha kind is not used to draw.
                Generator::Other(_) => RngKind::Chacha8,
            },
            args.threads.threads,
            args.alpha.alpha,
        )?;
        if let (Generator::Other(GeneratorKind::Os), Some(seed)) = (args.rng, args.seed.seed) {
            return Err(UsageError::conflict(
                "--seed",
                seed,
                "the os generator cannot be seeded (its words never come twice, so the run \
                 cannot be repeated); drop --seed, or choose a reproducible --rng",
            ));
        }
        let source = run_source_spec(args.rng, &args.source, &args.reseed, args.deck)?;
        let output = output_config(&args.output, Some(&args.verdict))?;
        let against = run_against(args)?;
        if settings.mode == TallyMode::Full {
            check_listed_orderings(&args.output, args.deck, args.all_orderings)?;
        }
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
        check_shard(args, &settings)?;
        check_max_bias(
            args.gate.max_bias,
            against == Against::Model,
            settings.mode == TallyMode::Full,
        )?;
        if args.sequential.until_decided && (args.shard.is_some() || args.save_tally.is_some()) {
            return Err(UsageError::Conflict {
                flag: "--until-decided",
                value: None,
                hint: "a sequential run stops at a shuffle not known in advance, so it cannot \
                       be cut into shards or saved as a tally; drop --until-decided, or \
                       --shard and --save-tally"
                    .to_string(),
            });
        }
        let save_tally = args.save_tally.as_deref().map(Target::from_path);
        if let (true, Some(path)) = (args.sequential.until_decided, &args.emit_permutations) {
            return Err(UsageError::conflict(
                "--emit-permutations",
                crate::input::source_name::printable_path(path),
                "--until-decided stops at a shuffle not known in advance, and the file would \
                 hold every trial asked for; drop one of the two (or emit them in a run \
                 of the --trials that --until-decided reported)",
            ));
        }
        let mut outputs = output.targets();
        outputs.extend(
            emit_permutations
                .as_ref()
                .map(|target| ("--emit-permutations", target)),
        );
        outputs.extend(save_tally.as_ref().map(|target| ("--save-tally", target)));
        check_outputs(&outputs, &[])?;
        Ok(RunConfig {
            shuffle: check_shuffle(
                args.algorithm,
                args.passes,
                args.cut_probability,
                args.shelves,
            )?,
            settings,
            source,
            against,
            max_paths: check_max_paths(args.max_paths)?,
            max_paths_given: args.max_paths.is_some(),
            emit_permutations,
            all_orderings: args.all_orderings,
            deal_tests: !args.no_deal_tests,
            until_decided: args.sequential.until_decided,
            max_bias: args.gate.max_bias,
            explain: args.explain,
            quiet: args.quiet,
            output,
            shard: args.shard,
            save_tally: args.save_tally.clone(),
            case: None,
        })
    }
}

/// `--against`: uniform, or the law of the algorithm run (named, or `model`, its older
/// spelling). Another algorithm's law is refused with the command that tests it.
fn run_against(args: &RunArgs) -> Result<Against, UsageError> {
    match args.against {
        Hypothesis::Uniform => Ok(Against::Uniform),
        Hypothesis::OwnAlgorithm => Ok(Against::Model),
        Hypothesis::Algorithm(algorithm) if algorithm == args.algorithm => Ok(Against::Model),
        Hypothesis::Algorithm(other) => Err(UsageError::conflict(
            "--against",
            other.name(),
            format!(
                "`run` judges the shuffle it simulates against uniform or its own law (--against \
                 {run}); to test {run}'s output against {other}'s law, emit it and check it: \
                 `shuffle-bias run {run} --emit-permutations - -o /dev/null | shuffle-bias check \
                 --against {other}`",
                run = args.algorithm.name(),
                other = other.name(),
            ),
        )),
    }
}

/// `--max-bias SIZE` measures the distance from uniform (not from a model), and a total
/// variation size needs every ordering tallied (`against_model`, `full`: the run's settings).
pub fn check_max_bias(
    size: Option<BiasSize>,
    against_model: bool,
    full: bool,
) -> Result<(), UsageError> {
    let Some(size) = size else { return Ok(()) };
    if against_model {
        return Err(UsageError::conflict(
            "--max-bias",
            size.label(),
            "a size of bias is a distance from uniform, and --against ALGORITHM tests the \
             algorithm's own law; drop one of the two",
        ));
    }
    if matches!(size, BiasSize::TvDistance(_)) && !full {
        return Err(UsageError::conflict(
            "--max-bias",
            size.label(),
            "a total variation distance needs every ordering tallied (full mode, at most 11 \
             cards); use a size in position points such as 1pp",
        ));
    }
    Ok(())
}

/// `--shard I/K` and `--save-tally FILE`: a tally file is a file (not stdout); a shard needs
/// the seed all shards share and a file to save its tally in, writes no report, and has at
/// least one block to compute.
fn check_shard(args: &RunArgs, settings: &SimulationSettings) -> Result<(), UsageError> {
    if let Some(path) = &args.save_tally
        && path.as_os_str() == "-"
    {
        return Err(UsageError::malformed(
            "--save-tally",
            "-",
            "a tally is binary and goes to a file; name one (e.g. --save-tally run.tally)",
        ));
    }
    let Some(shard) = args.shard else {
        return Ok(());
    };
    let flag_value = format!("{}/{}", shard.index, shard.count);
    if args.rng == Generator::Other(GeneratorKind::Os) {
        return Err(UsageError::conflict(
            "--shard",
            &flag_value,
            "shards are the blocks of one seeded stream, and the os generator takes no seed; \
             shard a seedable --rng (e.g. --rng chacha8 --seed 7), or run --rng os whole",
        ));
    }
    if args.seed.seed.is_none() {
        return Err(UsageError::conflict(
            "--shard",
            &flag_value,
            "every shard must draw from the same seed; give it to all of them (e.g. --seed 7)",
        ));
    }
    if args.save_tally.is_none() {
        return Err(UsageError::conflict(
            "--shard",
            &flag_value,
            "a shard writes its tally, not a report; add --save-tally FILE (one file per shard) \
             and `shuffle-bias merge` the files",
        ));
    }
    // The flags of the report and its verdict, with what each would have done: a shard's
    // blocks are part of the experiment, so its report (and a verdict on it) is merge's.
    let report_flags = [
        ("-o", args.output.output.is_some(), "write"),
        ("--plot", args.output.plot.is_some(), "draw"),
        ("--format", args.output.format != Format::Table, "format"),
        ("--table", args.output.table.is_some(), "write"),
        ("--emit-permutations", args.emit_permutations.is_some(), "write"),
        ("--brief", args.verdict.brief, "write"),
        ("--color", args.verdict.color != ColorChoice::Auto, "colour"),
        ("--max-bias", args.gate.max_bias.is_some(), "judge"),
        ("--all-orderings", args.all_orderings, "list"),
    ];
    if args.emit_permutations.is_some() {
        return Err(UsageError::conflict(
            "--shard",
            &flag_value,
            "a shard writes only its tally, and merge emits no permutations; emit them from \
             a run without --shard (the same --seed and --trials give the same shuffles)",
        ));
    }
    if let Some((flag, _, verb)) = report_flags.iter().find(|(_, given, _)| *given) {
        return Err(UsageError::conflict(
            "--shard",
            &flag_value,
            format!(
                "a shard writes no report and gives no verdict (its blocks are only part of \
                 the run), so {flag} has nothing to {verb}; give {flag} to `shuffle-bias merge`"
            ),
        ));
    }
    let blocks = block_count(settings.trials);
    if shard.count > blocks {
        return Err(UsageError::conflict(
            "--shard",
            &flag_value,
            format!(
                "--trials {} makes {blocks} block{} of {BLOCK_TRIALS} shuffles, fewer than {} \
                 shards; use at most {blocks} shard{} or more --trials",
                settings.trials,
                if blocks == 1 { "" } else { "s" },
                shard.count,
                if blocks == 1 { "" } else { "s" },
            ),
        ));
    }
    Ok(())
}
