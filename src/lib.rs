//! shuffle-bias: prove a card shuffle fair or biased.
//!
//! Data flows one way: command-line flags ([`cli`]) become a validated [`config`]; the engines
//! ([`simulate`], [`exact`]) produce counts and laws; [`report`] turns them into one plain,
//! serialisable report model; [`export`] turns the report into bytes (table, CSV, JSON);
//! [`commands`] wires these together and is the only module that touches the terminal;
//! [`plot`] draws the pictures (SVG) from plain numbers.
//! For decks too large to tally every ordering, [`permutation_statistics`] gives statistics of
//! a shuffled deck whose laws under a uniform shuffle are known exactly, and the exact laws of
//! Gilbert–Shannon–Reeds riffles.
//! Every shuffle algorithm ([`algorithms`]) is written once against
//! [`random_source::RandomSource`].

pub mod algorithms;
pub mod cli;
pub mod commands;
pub mod comparison;
pub mod config;
pub mod emit;
pub mod exact;
pub mod exit_code;
pub mod export;
pub mod interrupt;
pub mod marginal;
pub mod mixing;
pub mod output_files;
pub mod permutation;
pub mod permutation_reader;
pub mod permutation_statistics;
pub mod plot;
pub mod progress;
pub mod random_source;
pub mod report;
pub mod simulate;
pub mod simulate_marginal;
pub mod stats;
