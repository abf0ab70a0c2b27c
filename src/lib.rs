//! shuffle-bias: prove a card shuffle fair or biased.
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
//! [`interrupt`] is Ctrl-C, [`exit_code`] the process's exit codes.

pub mod analysis;
pub mod cli;
pub mod commands;
pub mod config;
pub mod engine;
pub mod exit_code;
pub mod input;
pub mod interrupt;
pub mod output;
pub mod report;
pub mod stats;
pub mod tally_file;
pub mod theory;
