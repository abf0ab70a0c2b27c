//! The simulation settings `run` and `compare` share (mode, deck, trials, seed, generator,
//! threads, level), and the memory a simulation needs, checked against what the machine can
//! give before anything is allocated.

use super::{MAX_TRIALS, UsageError, check_alpha, check_threads};
use crate::cli::ModeChoice;
use crate::engine::deal_stream::BYTES_PER_DEAL;
use crate::engine::marginal::MAX_MARGINAL_DECK;
use crate::engine::permutation::{MAX_FULL_DECK, factorial};
use crate::engine::random_source::RngKind;
use crate::engine::tally::TallyMode;
use crate::theory::exact::MAX_EXACT_DECK;

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
/// `/proc/meminfo`; [`FALLBACK_MEMORY_LIMIT`] where that cannot be read) less what the other
/// runs on this host have reserved and not yet taken ([`crate::system::memory_share`]), so that runs
/// started together share the memory instead of each counting all of it.
pub fn memory_limit() -> u64 {
    let others = crate::system::memory_share::outstanding().bytes;
    match available_memory() {
        Some(available) => available.saturating_sub(others) / 5 * 4,
        None => FALLBACK_MEMORY_LIMIT.saturating_sub(others),
    }
}

/// The memory the system reports available (bytes), if it can be read.
fn available_memory() -> Option<u64> {
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
        .map(|kib| kib * 1024)
}
/// The most deals whose 128-bit fingerprints the repeated-decks test may keep: a quarter of
/// [`memory_limit`], at [`BYTES_PER_DEAL`] bytes a deal (beyond it the test samples the deals
/// by value, and the report says so), or [`FINGERPRINT_LIMIT_VARIABLE`] when that is set and
/// smaller.
pub fn deal_fingerprint_limit() -> u64 {
    let limit = memory_limit() / 4 / BYTES_PER_DEAL;
    std::env::var(FINGERPRINT_LIMIT_VARIABLE)
        .ok()
        .and_then(|value| value.trim().parse::<u64>().ok())
        .map_or(limit, |set| set.clamp(1, limit.max(1)))
}

/// An environment variable that lowers [`deal_fingerprint_limit`] to a number of deals: how
/// tests (and users who want to leave memory to other programs) make the repeated-decks test
/// sample small runs. Values that are not a number are ignored.
pub const FINGERPRINT_LIMIT_VARIABLE: &str = "SHUFFLE_BIAS_FINGERPRINT_LIMIT";

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
        let threads = check_threads(threads, "worker threads")?;
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
                reserved_by_others: crate::system::memory_share::outstanding().bytes,
            });
        }
        Ok(SimulationSettings {
            mode,
            deck,
            trials,
            seed: seed.unwrap_or_else(super::random_seed),
            rng,
            threads,
            alpha: check_alpha(alpha)?,
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
