//! The validated configuration: every range, combination and resource limit is checked here,
//! once, before anything runs, with a message that names the flag and says how to fix it
//! ([`UsageError`]).
//!
//! One file per command (`run`, `compare`, `check`, `theory`); what several share
//! lives beside them: the output flags (`output`), the simulation settings and their memory
//! (`simulation`), and here the checks of the level, the path budget and the shuffle.

mod case;
mod check;
mod compare;
mod error;
mod merge;
mod output;
mod run;
mod simulation;
mod source;
mod theory;

pub use case::CaseConfig;
pub use check::CheckConfig;
pub use compare::CompareConfig;
pub use error::UsageError;
pub use merge::MergeConfig;
pub use output::{OutputConfig, output_config};
pub use run::RunConfig;
pub use simulation::{
    FALLBACK_MEMORY_LIMIT, SimulationSettings, deal_fingerprint_limit, default_trials,
    marginal_memory_bytes, memory_limit, run_memory_bytes,
};
pub use source::{WORD_BITS, choice_law, run_source_spec, source_spec};
pub use theory::TheoryConfig;

use crate::engine::algorithms::{Algorithm, CutProbability, DEFAULT_SHELVES, MAX_SHELVES, Shuffle};
use crate::theory::exact::DEFAULT_MAX_PATHS;

/// The most worker threads accepted.
pub const MAX_THREADS: usize = 256;

/// The most shuffles one run (or one `compare`, all algorithms together) may ask for: 2^53, the
/// largest count every statistic holds exactly in an f64 (and weeks of work at any speed).
pub const MAX_TRIALS: u64 = 1 << 53;

/// The most passes `run` and `check` accept, as `theory` (each pass is a whole shuffle).
pub const MAX_PASSES: u32 = crate::cli::MAX_PASSES_RANGE;

/// A seed for when `--seed` is not given (`run`, `compare`, `check --exec`): random, below
/// 2^53 so that every JSON reader (JavaScript's numbers, jq) reads it exactly and a run can be
/// repeated from its JSON report.
pub(crate) fn random_seed() -> u64 {
    let mut bytes = [0u8; 8];
    // Without the system's generator, the clock still makes runs differ.
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos() as u64);
        bytes = nanos.to_le_bytes();
    }
    u64::from_le_bytes(bytes) >> 11
}

/// `--threads`, given or the number of CPUs, from 1 to [`MAX_THREADS`]; `what` names them in
/// the fix ("use 1 to 256 worker threads").
fn check_threads(threads: Option<usize>, what: &str) -> Result<usize, UsageError> {
    let threads =
        threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 || threads > MAX_THREADS {
        return Err(UsageError::out_of_range(
            "--threads",
            threads,
            format!("use 1 to {MAX_THREADS} {what}"),
        ));
    }
    Ok(threads)
}

/// `--alpha`, strictly between 0 and 1.
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

/// `--format csv --table permutations` for a deck whose orderings are not listed unless
/// `--all-orderings` asks: refused before the work, as the CSV exporter would refuse it after.
fn check_listed_orderings(
    output: &crate::cli::OutputArgs,
    deck: usize,
    all_orderings: bool,
) -> Result<(), UsageError> {
    check_listed_orderings_of(
        output.format,
        output.table.unwrap_or_default(),
        deck,
        all_orderings,
    )
}

/// `check_listed_orderings` of a validated output: for `merge`, once the files' headers give
/// the deck, and for `check`, once the input's first permutation does (where no flag gives it).
pub fn check_listed_orderings_of(
    format: crate::output::Format,
    table: crate::output::CsvTable,
    deck: usize,
    all_orderings: bool,
) -> Result<(), UsageError> {
    use crate::report::notes::MAX_LISTED_DECK;
    if format == crate::output::Format::Csv
        && table == crate::output::CsvTable::Permutations
        && deck > MAX_LISTED_DECK
        // Beyond full mode's decks no ordering is tallied: marginal mode's refusal says so.
        && deck <= crate::engine::permutation::MAX_FULL_DECK
        && !all_orderings
    {
        return Err(UsageError::conflict(
            "--table",
            "permutations",
            format!(
                "{deck} cards have {} orderings, more rows than are written by default (up to \
                 {MAX_LISTED_DECK} cards); add --all-orderings to write every one",
                crate::engine::permutation::factorial(deck)
            ),
        ));
    }
    Ok(())
}

/// `--max-paths`: at least 1, [`DEFAULT_MAX_PATHS`] when not given.
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

/// The shuffle of `--passes`, `--cut-probability` and `--shelves` (given or not) for
/// `algorithm`.
fn check_shuffle(
    algorithm: Algorithm,
    passes: u32,
    cut_probability: Option<CutProbability>,
    shelves: Option<u16>,
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
    if let Some(m) = shelves
        && algorithm != Algorithm::Shelf
    {
        return Err(UsageError::conflict(
            "--shelves",
            m,
            format!(
                "only the shelf shuffler has shelves, not {}; drop it or use shelf",
                algorithm.name()
            ),
        ));
    }
    if let Some(m) = shelves
        && !(1..=MAX_SHELVES).contains(&m)
    {
        return Err(UsageError::out_of_range(
            "--shelves",
            m,
            format!(
                "the shelf shuffler has 1 to {MAX_SHELVES} shelves (the casino machine has 10)"
            ),
        ));
    }
    Ok(Shuffle {
        algorithm,
        passes,
        cut_probability: cut_probability.unwrap_or_default(),
        shelves: shelves.unwrap_or(DEFAULT_SHELVES),
    })
}
