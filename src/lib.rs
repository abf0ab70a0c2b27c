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
//! # The public API
//!
//! Everything a user of the library needs is re-exported here, at the crate root, and nothing
//! else is public:
//!
//! - testing a shuffle function: [`ShuffleTest`], [`ShuffleRng`], [`ShuffleTestError`], the
//!   verdict's text ([`verdict_summary`]) and the equivalence gate ([`fair_within`]);
//! - judging permutations produced elsewhere (the Python package's path): [`PermutationTally`],
//!   then the report as JSON or text ([`report_json`], [`report_text`]);
//! - the report model: [`RunReport`] and its [`TestResult`]s, serialisable to the JSON of
//!   `--format json`, whose JSON schema [`json_schema`] gives;
//! - the built-in shuffles by name: [`Algorithm`], [`Shuffle`] (an algorithm and its passes),
//!   [`CutProbability`], [`algorithm_named`];
//! - running an experiment: [`simulate`] with a [`SimulationSpec`] (shuffle, deck, trials,
//!   seed, [`RngKind`], threads) and a [`Simulation`] (mode, [`SourceSpec`], blocks), giving a
//!   [`Simulated`] tally ([`Counts`]: a [`Tally`] of every ordering or a [`MarginalTally`]);
//! - exact laws: [`exact_law`] of a shuffle on a small deck ([`Law`], [`ExactError`]);
//! - the command line itself, as the binary runs it: [`command_line`].
//!
//! Running an experiment and its exact law, below `ShuffleTest`:
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use shuffle_bias::{Algorithm, RngKind, Simulation, SimulationSpec, exact_law, simulate};
//!
//! // The naive swap on 3 cards: 3^3 = 27 equally likely choice sequences fall on 6 orderings,
//! // so no ordering can have probability 1/6; the identity (rank 0) has 4/27.
//! let law = exact_law(Algorithm::Naive, 3, 1_000_000).unwrap();
//! assert_eq!(law.exact.as_ref().unwrap().fraction(0), "4/27");
//!
//! let spec = SimulationSpec {
//!     shuffle: Algorithm::Naive.into(),
//!     deck: 3,
//!     trials: 270_000,
//!     seed: 1,
//!     rng: RngKind::Chacha8,
//!     threads: 2,
//! };
//! let stop = AtomicBool::new(false);
//! let tally = simulate(&spec, &Simulation::default(), &stop, &mut |_| {}).into_full();
//! assert_eq!(tally.counts.iter().sum::<u64>(), 270_000);
//! // 40,000 expected; the standard deviation is √(270,000 · 4/27 · 23/27) ≈ 185, so a
//! // deviation of 1,000 (over 5 standard deviations) would be a failure of the engine.
//! assert!(tally.counts[0].abs_diff(40_000) < 1_000, "{}", tally.counts[0]);
//! ```
//!
//! **Stability.** The names above follow semantic versioning: while the crate is at 0.x, a
//! breaking change to them comes with a new minor version and a line under *Changed* in the
//! changelog. The fields of the report model follow the JSON schema's promise (fields are added,
//! not renamed or removed, within a major version). Everything else is internal.
//!
//! # Layout
//!
//! Data flows one way, and the folders say so (internal modules; the project's own tests and
//! benchmarks see them through the `internals` feature, which carries no stability promise):
//!
//! - `cli` — the flags (clap); `config` — the same flags validated once, with messages that
//!   name the flag and the fix;
//! - `engine` — the shuffle algorithms (each written once against a random-source trait), the
//!   random sources, permutations, the permutation statistics' values, the tallies and the
//!   simulations that fill them;
//! - `input` — the reader of permutations produced by other programs (`check`);
//! - `theory` — exact laws: the exact engine, which drives the same algorithm code over every
//!   choice path, the laws of permutation statistics and of riffles, mixing curves;
//! - `stats` — the statistical functions (a leaf: it imports nothing else of the crate);
//! - `analysis` — the analysis of a tally as pure functions: the tests of the family, Holm's
//!   decision and the verdict, the power figures and the descriptive figures;
//! - `report` — the report models, plain serialisable data built from a tally and a law;
//! - `cases` — famous deployed shuffles (`case NAME`): each a built-in algorithm on an emulated
//!   generator and seeding, with its published figures set beside the tool's;
//! - `judge` — one judging path: a tally and its theory become the report, for every command
//!   and for the library;
//! - `tally_file` — saved tallies (`--save-tally`): their documented binary format and the
//!   checks that files are parts of one experiment (`merge`);
//! - `output` — what turns a report into bytes (table, CSV, JSON, Markdown, SVG), the
//!   progress bar, and the files written without ever destroying one;
//! - `commands` — one file per subcommand, wiring the above together: the only place that
//!   touches the terminal;
//! - `system` — what the tool asks of the machine: the Ctrl-C flag, the memory a run may take,
//!   huge pages for large tables;
//! - `library` — the front door above: [`ShuffleTest`] and [`PermutationTally`], which judge
//!   with the code `check` runs.

/// `eprintln!` that never panics: a line to standard error, dropped when standard error is
/// closed (`2>&1 | true`). A warning or a message must not turn a verdict, or a written report,
/// into a panic with exit 101.
macro_rules! stderr_line {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// `eprint!` that never panics (see `stderr_line!`).
macro_rules! stderr_text {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// Modules of the crate: private, or public with the `internals` feature, which the crate's
/// own tests and benchmarks turn on (through its dev-dependency on itself) and which carries no
/// stability promise. Without it, only the re-exports below are public.
macro_rules! internal_modules {
    ($($name:ident),* $(,)?) => {
        $(
            #[cfg(feature = "internals")]
            #[doc(hidden)]
            pub mod $name;
            // Without `internals`, what only the tests and benchmarks use (test vectors'
            // generators, brute-force laws, fixture writers) has no caller in the library.
            #[cfg(not(feature = "internals"))]
            #[allow(dead_code, unused_imports)]
            mod $name;
        )*
    };
}

internal_modules!(
    analysis, cases, cli, commands, config, engine, input, judge, library, output, report, stats,
    system, tally_file, theory,
);

pub use commands::command_line;
pub use engine::algorithms::{Algorithm, CutProbability, Shuffle};
pub use engine::mapped_source::SourceSpec;
pub use engine::marginal::MarginalTally;
pub use engine::random_source::RngKind;
pub use engine::simulate::{Simulated, Simulation, SimulationSpec, simulate};
pub use engine::tally::{Counts, Tally, TallyMode};
pub use library::{
    PermutationTally, ShuffleRng, ShuffleTest, ShuffleTestError, algorithm_named, fair_within,
    report_json, report_text, verdict_summary,
};
/// The `rand` crate this one is built with: its `Rng` trait is what [`ShuffleRng`] implements,
/// and `RngExt` gives it `random_range`.
pub use rand;
pub use report::json_schema;
pub use report::run::{RunReport, TestResult};
pub use theory::exact::{ExactError, Law, LawCells, exact_law};
