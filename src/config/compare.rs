//! `compare`'s config: the algorithms, each run with the same simulation settings.

use super::{
    MAX_TRIALS, OutputConfig, SimulationSettings, UsageError, check_max_paths, output_config,
};
use crate::cli::{CompareArgs, ModeChoice};
use crate::engine::algorithms::Algorithm;
use crate::engine::marginal::MAX_MARGINAL_DECK;
use crate::engine::permutation::MAX_FULL_DECK;
use crate::output::files::check_outputs;

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
    /// `--until-decided`: stop as soon as the sequential test decides.
    pub until_decided: bool,
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
                argument: "ALGORITHMS",
                hint: format!(
                    "{} is given twice; name each algorithm once",
                    repeated.name()
                ),
            });
        }
        if args.deck > MAX_FULL_DECK {
            // `compare` has no marginal mode: the hint of `run --mode full` would lead nowhere.
            return Err(UsageError::out_of_range(
                "--deck",
                args.deck,
                format!(
                    "compare tallies all n! orderings of each algorithm, which is possible up to \
                     {MAX_FULL_DECK} cards; use a smaller --deck, or test a larger deck (up to \
                     {MAX_MARGINAL_DECK} cards) one algorithm at a time with `run ALGORITHM \
                     --mode marginal`"
                ),
            ));
        }
        let settings = SimulationSettings::validate(
            ModeChoice::Full,
            args.deck,
            args.trials,
            args.seed.seed,
            args.rng,
            args.threads.threads,
            args.alpha.alpha,
        )?;
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
        let output = output_config(&args.output, Some(&args.verdict))?;
        check_outputs(&output.targets(), &[])?;
        Ok(CompareConfig {
            algorithms,
            settings,
            max_paths: check_max_paths(args.max_paths)?,
            max_paths_given: args.max_paths.is_some(),
            until_decided: args.sequential.until_decided,
            quiet: args.quiet,
            output,
        })
    }
}
