//! shuffle-bias: prove a card shuffle fair or biased.
//!
//! The `shuffle-bias` binary runs built-in shuffles, or reads the permutations another program
//! produced, millions of times over, tallies the orderings (or the positions, on large decks)
//! and tests the tally against uniform, or against an algorithm's exact law, with a family of
//! tests under Holm's adjustment: exit code 0 when no bias is detected, 1 when bias is.
//!
//! # Testing your own shuffle from `cargo test`
//!
//! As a dev-dependency, the crate tests a shuffle function in-process with the statistics and
//! the verdict of `shuffle-bias check`. [`ShuffleTest`] hands the function a fresh deck
//! `[0, 1, …, n−1]` and a seeded [`ShuffleRng`] for each trial, and returns the report model
//! ([`RunReport`]) that `check` would print for the same permutations; its assertions panic with
//! the verdict line and the strongest failing tests ([`verdict_summary`]).
//!
//! ```
//! use shuffle_bias::ShuffleTest;
//! use shuffle_bias::rand::{Rng, RngExt};
//!
//! /// Swap every card with any card: the classic mistake (n^n equally likely choice
//! /// sequences cannot fall evenly on n! orderings).
//! fn naive<T>(deck: &mut [T], rng: &mut impl Rng) {
//!     let n = deck.len();
//!     for i in 0..n {
//!         deck.swap(i, rng.random_range(0..n));
//!     }
//! }
//!
//! /// Fisher–Yates: swap each card with one at or below it (exactly uniform).
//! fn fisher_yates<T>(deck: &mut [T], rng: &mut impl Rng) {
//!     for i in (1..deck.len()).rev() {
//!         deck.swap(i, rng.random_range(0..=i));
//!     }
//! }
//!
//! // Four cards, 24,000 shuffles (about ten times the 2,359 that `shuffle-bias theory naive -n 4`
//! // says give 99% power against the naive shuffle), a fixed seed: the same verdicts on
//! // every run.
//! let test = ShuffleTest::new(4).trials(24_000).seed(7);
//! test.assert_no_bias(fisher_yates);
//! let report = test.assert_bias(naive);
//! assert!(report.verdict.starts_with("bias detected"));
//! assert!(report.tests.iter().any(|t| t.name == "permutations" && t.rejected));
//! ```
//!
//! The shuffle may also be a closure that returns a permutation
//! ([`ShuffleTest::check_permutations`]), be tested against a built-in algorithm's exact law
//! ([`ShuffleTest::against`]), and the report serialises to the JSON of `check --format json`.
//!
//! # Layout
//!
//! Data flows one way, and the folders say so:
//!
//! - [`cli`] — the flags (clap); [`config`] — the same flags validated once, with messages
//!   that name the flag and the fix;
//! - [`engine`] — the shuffle algorithms (each written once against
//!   [`engine::random_source::RandomSource`]), the random source, permutations, the tallies and
//!   the simulations that fill them;
//! - [`input`] — the reader of permutations produced by other programs (`check`);
//! - [`theory`] — exact laws: the exact engine, which drives the same algorithm code over every
//!   choice path, the laws of permutation statistics and of riffles, mixing curves;
//! - [`stats`] — the statistical functions (a leaf: it imports nothing else of the crate);
//! - [`analysis`] — the analysis of a tally as pure functions: the tests of the family, Holm's
//!   decision and the verdict, the power figures and the descriptive figures;
//! - [`report`] — the report models, plain serialisable data built from a tally and a law;
//! - [`tally_file`] — saved tallies (`--save-tally`): their documented binary format and the
//!   checks that files are parts of one experiment (`merge`);
//! - [`output`] — what turns a report into bytes (table, CSV, JSON, Markdown, SVG), the
//!   progress bar, and the files written without ever destroying one;
//! - [`commands`] — one file per subcommand, wiring the above together: the only place that
//!   touches the terminal.
//!
//! [`interrupt`] is Ctrl-C, [`exit_code`] the process's exit codes; [`testing`] is the
//! library API above, which judges its tally with the code `check` runs.

pub mod analysis;
pub mod cli;
pub mod commands;
pub mod config;
pub mod engine;
pub mod exit_code;
pub mod input;
pub mod interrupt;
pub mod judge;
pub mod memory_share;
pub mod output;
pub mod report;
pub mod stats;
pub mod tally_file;
pub mod testing;
pub mod theory;

pub use engine::algorithms::{Algorithm, CutProbability};
/// The `rand` crate this one is built with: its `Rng` trait is what [`ShuffleRng`] implements,
/// and `RngExt` gives it `random_range`.
pub use rand;
pub use report::run::{RunReport, TestResult};
pub use testing::{PermutationTally, ShuffleRng, ShuffleTest, ShuffleTestError, verdict_summary};
