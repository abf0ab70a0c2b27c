//! `case`'s config: the catalogue's emulation of the named case, as a validated `run`, or the
//! list of cases.

use super::{OutputConfig, RunConfig, UsageError, output_config};
use crate::cases::{self, Case};
use crate::cli::{
    CaseArgs, GateArgs, Hypothesis, ModeChoice, OutputArgs, ReseedArgs, RunArgs, SeedArgs,
    SequentialArgs, SourceArgs, ThreadsArgs, VerdictArgs,
};
use crate::output::Terminal;

/// A validated `case`.
#[derive(Debug)]
pub enum CaseConfig {
    /// `case --list`.
    List(OutputConfig),
    /// `case NAME`: the emulation, run as `run` runs (its `case` field set).
    Run(Box<RunConfig>),
}

impl CaseConfig {
    /// Validate `case`'s flags: the case's own algorithm, generator, draw and seeding, with the
    /// user's deck, trials, seed, outputs and the rest checked as `run` checks them.
    pub fn from_args(args: CaseArgs) -> Result<Self, UsageError> {
        let Some(name) = args.name.as_deref() else {
            let output = OutputConfig {
                terminal: Terminal::default(),
                ..output_config(&args.output, None)?
            };
            return Ok(CaseConfig::List(output));
        };
        let case: &'static Case = cases::find(name).ok_or_else(|| {
            UsageError::malformed(
                "NAME",
                name,
                format!("the cases are {}", cases::names().join(", ")),
            )
        })?;
        let deck = args.deck.unwrap_or(case.deck);
        let trials = args.trials.or((deck == case.deck).then_some(case.trials));
        let run = RunArgs {
            algorithm: case.algorithm,
            deck,
            trials,
            against: Hypothesis::Uniform,
            alpha: args.alpha,
            passes: 1,
            mode: ModeChoice::Auto,
            sequential: SequentialArgs {
                until_decided: false,
            },
            gate: GateArgs { max_bias: None },
            explain: args.explain,
            cut_probability: None,
            shelves: None,
            seed: SeedArgs {
                seed: args.seed.seed,
            },
            rng: case.generator,
            source: SourceArgs {
                map: Some(case.mapping),
                bits: None,
            },
            // The case's own seeding is set below: some of it has no `--seeds` spelling.
            reseed: ReseedArgs {
                reseed: None,
                seed_bits: None,
                seeds: None,
            },
            output: OutputArgs { ..args.output },
            verdict: VerdictArgs { ..args.verdict },
            quiet: args.quiet,
            threads: ThreadsArgs {
                threads: args.threads.threads,
            },
            max_paths: args.max_paths,
            no_deal_tests: args.no_deal_tests,
            shard: None,
            save_tally: None,
            emit_permutations: args.emit_permutations,
            all_orderings: false,
        };
        let mut config = RunConfig::from_args(&run)?;
        config.source.reseed = case.reseed;
        config.case = Some(case);
        Ok(CaseConfig::Run(Box::new(config)))
    }
}
