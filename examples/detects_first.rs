//! Which test of a marginal `run` detects the casino shelf shuffler, and the riffle, first
//! (issue #28): for the shelf shuffler with 10, 20 and 200 shelves and for 1 to 8 riffles, on
//! 52 cards, the trials each test of the report's family needs for 99% power.
//!
//! The lesson is Diaconis, Fulman & Holmes's ("Analysis of casino shelf shuffling machines",
//! Ann. Appl. Probab. 23(4), 2013): the makers' tests, which look at where cards go, passed a
//! machine that the right statistic catches at once.
//!
//! Run with `cargo run --release --example detects_first [-- --decks 52 --simulated 2000000]`
//! (also `--seed S`, `--threads T`). It prints a Markdown table on stdout, progress on stderr.
//!
//! How each figure is computed, test by test, for a `run` against uniform at the tool's default
//! level alpha, Bonferroni-split over the family the report itself builds (its number of tests
//! is read from the report of each simulated run, so it follows the report as tests are added):
//! * the χ² tests (each final position over the n cards; each permutation statistic over the
//!   cells [`pooled_cells`] makes of its uniform law) detect a model law p with Cohen's
//!   w² = Σ (p − u)²/u over their cells, and need [`trials_for_power`]`(cells − 1, α/m, w², 0.99)`
//!   trials (noncentral χ², λ = N·w²; Cohen 1988 ch. 7, Patnaik 1949). A statistic's cells
//!   depend on the trials, so the figure is the least N at which the test as the report runs it,
//!   with the cells pooled for N trials, reaches 99% power (found by bisection on N);
//! * the identity is an exact binomial test of the deck's coming back unchanged, probability
//!   u = 1/n! under uniform: at 52 cards one such deck rejects (2·N·u ≪ α/m), so its power is
//!   P(at least one) = 1 − (1 − p)^N and it needs ⌈ln 100 / −ln(1 − p)⌉ trials; on a small
//!   deck, the least N whose critical count is reached with probability 99%.
//!
//! p comes from an exact law where the crate has one: what `run` itself knows
//! ([`marginal_theory`]: for the riffle the rising sequences and identity in closed form, Bayer
//! & Diaconis 1992, and the descents and valleys of its packet sequences; for the shelf shuffler
//! the valleys and identity, DFH Theorem 3.1; everything on a deck small enough for the exact
//! law). Everything else comes from a seeded simulation of
//! `--simulated` decks on the crate's own simulation path, with the plug-in w² corrected for
//! its bias (see [`estimated_w2`]); those figures are marked `~` and rounded to two
//! significant digits, and a bias the simulation cannot tell from zero gives a lower bound.

use std::ops::Range;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use clap::Parser;
use shuffle_bias::analysis::goodness_of_fit::pooled_cells;
use shuffle_bias::analysis::identity::uniform_ordering_probability;
use shuffle_bias::cli::{Cli, Command};
use shuffle_bias::engine::algorithms::{Algorithm, Shuffle};
use shuffle_bias::engine::deal_stream::{DealStreamOptions, RepeatSource};
use shuffle_bias::engine::mapped_source::SourceSpec;
use shuffle_bias::engine::marginal::MarginalTally;
use shuffle_bias::judge::{Silent, Tallied, Theory, judge, marginal_theory};
use shuffle_bias::report::run::{Against, MarginalTheory, Origin, RunFacts, RunReport};
use shuffle_bias::stats::binomial::{binomial_two_sided, binomial_two_sided_at};
use shuffle_bias::stats::power::trials_for_power;
use shuffle_bias::stats::probability::Probability;
use shuffle_bias::theory::exact::DEFAULT_MAX_PATHS;
use shuffle_bias::theory::permutation_statistics::Statistic;
use shuffle_bias::{RngKind, Simulation, SimulationSpec, simulate};

/// The power the figures are for.
const TARGET_POWER: f64 = 0.99;

/// How many null standard deviations a simulated w² must clear to count as measured.
const RESOLUTION_SDS: f64 = 3.0;

/// What the command line asks for.
struct Options {
    decks: usize,
    simulated: u64,
    seed: u64,
    threads: usize,
}

/// The trials a test needs for 99% power, and where that figure comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Figure {
    /// From the exact law.
    Exact(u64),
    /// From the simulated law (bias-corrected w²).
    Simulated(u64),
    /// The simulation could not tell the bias from zero: at least this many trials.
    AtLeast(u64),
    /// No bias to detect, or more than 2^64 trials.
    Never,
}

impl Figure {
    /// The trials, when measured (exactly or by simulation).
    fn measured(self) -> Option<u64> {
        match self {
            Figure::Exact(n) | Figure::Simulated(n) => Some(n),
            _ => None,
        }
    }

    /// The table's cell: exact figures in full (to three significant digits in powers of ten
    /// from 10^7), simulated ones `~` and to two significant digits, lower bounds `>` and
    /// rounded down to two.
    fn cell(self) -> String {
        match self {
            Figure::Exact(n) => count(n, 3, f64::round, false),
            Figure::Simulated(n) => format!("~{}", count(n, 2, f64::round, true)),
            Figure::AtLeast(n) => format!("> {}", count(n, 2, f64::floor, true)),
            Figure::Never => "—".to_string(),
        }
    }
}

/// `n` for the table: with thousands separators below 10^7 (rounded by `rule` to `digits`
/// significant digits when `shorten`), else as `1.23e14` (always `digits` digits by `rule`).
fn count(n: u64, digits: i32, rule: fn(f64) -> f64, shorten: bool) -> String {
    let x = n as f64;
    let exponent = if x > 0.0 { x.log10().floor() as i32 } else { 0 };
    let scale = 10f64.powi(exponent + 1 - digits);
    if x >= 1e7 {
        // The mantissa's digits by `rule`, e.g. 3.456e7 down to two digits: 34 → "3.4e7".
        let kept = rule(x / scale);
        let (kept, exponent) = if kept >= 10f64.powi(digits) {
            (kept / 10.0, exponent + 1)
        } else {
            (kept, exponent)
        };
        let mantissa = kept / 10f64.powi(digits - 1);
        return format!("{mantissa:.*}e{exponent}", digits as usize - 1);
    }
    let shown = if shorten && exponent >= digits {
        (rule(x / scale) * scale) as u64
    } else {
        n
    };
    let text = shown.to_string();
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i > 0 && (text.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Cohen's w² = Σ (p − u)²/u over `cells` of the per-value laws `model` and `uniform`
/// (values with u = 0 left out: the uniform laws give every value that can occur u > 0).
fn cohen_w2(model: &[f64], uniform: &[f64], cells: &[Range<usize>]) -> f64 {
    cells
        .iter()
        .map(|cell| {
            let p: f64 = model.get(cell.clone()).map_or(0.0, |s| s.iter().sum());
            let u: f64 = uniform[cell.clone()].iter().sum();
            if u > 0.0 { (p - u) * (p - u) / u } else { 0.0 }
        })
        .sum()
}

/// A w² measured from simulated counts: the estimate, and whether it stands clear of zero.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Estimate {
    /// The unbiased estimate of w² (may be negative when the true w² is near 0).
    w2: f64,
    /// Its standard deviation (approximate: that of a noncentral χ² statistic over N²).
    sd: f64,
    /// Whether the estimate is more than [`RESOLUTION_SDS`] null standard deviations above 0.
    resolved: bool,
}

/// w² over `cells` estimated from `counts[v]` of `trials` simulated decks.
///
/// The plug-in ŵ² = Σ (p̂ − u)²/u, p̂ = (count in the cell)/N, is biased upwards: the count of a
/// cell is binomial (the cells' counts are multinomial), so E[p̂] = p and Var p̂ = p(1 − p)/N,
/// and E[(p̂ − u)²] = (p − u)² + p(1 − p)/N, whence E[ŵ²] = w² + Σ p(1 − p)/(u·N) — which is
/// (cells − 1)/N when p = u. The correction must itself be estimated: E[p̂(1 − p̂)] =
/// p − (p² + p(1 − p)/N) = p(1 − p)(N − 1)/N, so Σ p̂(1 − p̂)/(u·(N − 1)) has expectation
/// Σ p(1 − p)/(u·N) exactly, and ŵ² − Σ p̂(1 − p̂)/(u·(N − 1)) is unbiased for w².
/// Under p = u, N·ŵ² is Pearson's statistic, χ² with cells − 1 degrees of freedom, whose
/// variance 2(cells − 1) (plus 4λ, λ = N·w², away from it) gives the standard deviation.
fn estimated_w2(counts: &[u64], trials: u64, uniform: &[f64], cells: &[Range<usize>]) -> Estimate {
    let n = trials as f64;
    let (mut plug_in, mut correction, mut used) = (0.0, 0.0, 0usize);
    for cell in cells {
        let u: f64 = uniform[cell.clone()].iter().sum();
        if u <= 0.0 {
            continue;
        }
        let seen: u64 = counts.get(cell.clone()).map_or(0, |s| s.iter().sum());
        let p = seen as f64 / n;
        plug_in += (p - u) * (p - u) / u;
        correction += p * (1.0 - p) / u;
        used += 1;
    }
    let w2 = plug_in - correction / (n - 1.0);
    let df = used.saturating_sub(1) as f64;
    let null_sd = (2.0 * df).sqrt() / n;
    Estimate {
        w2,
        sd: (2.0 * df + 4.0 * n * w2.max(0.0)).sqrt() / n,
        resolved: w2 > RESOLUTION_SDS * null_sd,
    }
}

/// The least N at which a χ² test at level `alpha`, over the cells `cells_at(N)` gives for N
/// trials, has power ≥ 99% against a bias of `w2_of(cells)`; None when not within 2^64 trials.
/// With cells that do not depend on N this is [`trials_for_power`] itself; otherwise a
/// bisection on N, which assumes that more trials never lose power (finer cells add degrees
/// of freedom but also resolve more of the bias). Below two cells the report falls back to an
/// exact binomial test, which this does not model: such N count as not reaching the power (at
/// most the ~10 trials two cells of 5 need).
fn least_trials(
    alpha: f64,
    cells_at: impl Fn(u64) -> Vec<Range<usize>>,
    w2_of: impl Fn(&[Range<usize>]) -> f64,
) -> Option<u64> {
    let reaches = |n: u64| {
        let cells = cells_at(n);
        cells.len() >= 2
            && trials_for_power((cells.len() - 1) as f64, alpha, w2_of(&cells), TARGET_POWER)
                .is_some_and(|needed| needed <= n)
    };
    least_reaching(reaches)
}

/// The least N ≥ 1 for which `reaches(N)` holds, by bisection (assuming that once it holds it
/// holds for every larger N); None when not even at 2^64 − 1.
fn least_reaching(reaches: impl Fn(u64) -> bool) -> Option<u64> {
    if !reaches(u64::MAX) {
        return None;
    }
    let (mut lo, mut hi) = (0u64, u64::MAX);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if reaches(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// A χ² test's figure: from the exact per-value law `exact` when there is one, else from the
/// simulated `counts` of `trials` decks. `cells_at(N)` gives the test's cells for N trials.
fn chi_square_figure(
    alpha: f64,
    uniform: &[f64],
    exact: Option<&[f64]>,
    (counts, trials): (&[u64], u64),
    cells_at: impl Fn(u64) -> Vec<Range<usize>>,
) -> Figure {
    if let Some(model) = exact {
        return least_trials(alpha, &cells_at, |cells| cohen_w2(model, uniform, cells))
            .map_or(Figure::Never, Figure::Exact);
    }
    let estimate = |cells: &[Range<usize>]| estimated_w2(counts, trials, uniform, cells);
    if let Some(needed) = least_trials(alpha, &cells_at, |cells| estimate(cells).w2)
        && estimate(&cells_at(needed)).resolved
    {
        return Figure::Simulated(needed);
    }
    // Not measured: the bias is at most the estimate plus RESOLUTION_SDS standard deviations,
    // so the trials are at least what that bound needs.
    least_trials(alpha, &cells_at, |cells| {
        let e = estimate(cells);
        e.w2.max(0.0) + RESOLUTION_SDS * e.sd
    })
    .map_or(Figure::Never, Figure::AtLeast)
}

/// The trials the identity test needs when the deck comes back unchanged with probability `p`
/// (u under uniform), at level `alpha`: the least N at which the count of unchanged decks,
/// Bin(N, p), reaches the least count that the report's exact two-sided binomial test rejects
/// at `alpha` with probability ≥ 99%. At 52 cards one unchanged deck rejects (2·N·u ≪ alpha for
/// any N < 2^64), so this is ⌈ln 100 / −ln(1 − p)⌉; on small decks it takes more. Found by
/// bisection on N (assuming, as for the χ² tests, that more trials never lose power).
fn identity_trials(p: Probability, u: Probability, alpha: f64) -> Option<u64> {
    if p.p <= u.p {
        // No more unchanged decks than uniform gives: nothing a run could see.
        return None;
    }
    let reaches =
        |n: u64| critical_count(n, u, alpha).is_some_and(|k| at_least(k, n, p.p) >= TARGET_POWER);
    least_reaching(reaches)
}

/// The least count of unchanged decks in `n` trials that the exact two-sided binomial test
/// rejects at `alpha` (None if not even n of n): above the mean n·u its p-value falls as the
/// count grows, so a bisection finds it.
fn critical_count(n: u64, u: Probability, alpha: f64) -> Option<u64> {
    if n == 0 || binomial_two_sided_at(n, n, u).p > alpha {
        return None;
    }
    let (mut lo, mut hi) = ((n as f64 * u.p).floor() as u64, n);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if binomial_two_sided_at(mid, n, u).p <= alpha {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// P(Bin(n, p) ≥ k), from the two-sided p-value's tails (each the doubled tail, below 1): exact
/// for k ≤ 1, and wherever it matters here (a power of 99% puts k − 1 far below the mean).
fn at_least(k: u64, n: u64, p: f64) -> f64 {
    match k {
        0 => 1.0,
        1 => -(n as f64 * (-p).ln_1p()).exp_m1(),
        _ if k as f64 > n as f64 * p => binomial_two_sided(k, n, p).p / 2.0,
        _ => 1.0 - binomial_two_sided(k - 1, n, p).p / 2.0,
    }
}

/// The identity test's figure, from the exact probability or the simulated count.
fn identity_figure(
    exact: Option<Probability>,
    (seen, trials): (u64, u64),
    uniform: Probability,
    alpha: f64,
) -> Figure {
    if let Some(p) = exact {
        return identity_trials(p, uniform, alpha).map_or(Figure::Never, Figure::Exact);
    }
    let n = trials as f64;
    // A count of c has standard deviation about √c: measured when c > 3√c, i.e. c > 9;
    // otherwise p is below (c + 3·√max(c, 1))/N (three for c = 0: the "rule of three").
    if seen as f64 > RESOLUTION_SDS * (seen as f64).sqrt() {
        return identity_trials(Probability::from_p(seen as f64 / n), uniform, alpha)
            .map_or(Figure::Never, Figure::Simulated);
    }
    let bound = (seen as f64 + RESOLUTION_SDS * (seen.max(1) as f64).sqrt()) / n;
    identity_trials(Probability::from_p(bound), uniform, alpha)
        .map_or(Figure::Never, Figure::AtLeast)
}

/// What `run` knows of `shuffle`'s marginals on `n` cards: for the shelf shuffler the identity
/// and the valleys (DFH Theorem 3.1), for the riffle the identity, the rising sequences, the
/// descents and the valleys.
fn model_theory(shuffle: Shuffle, n: usize) -> MarginalTheory {
    marginal_theory(shuffle, n, (DEFAULT_MAX_PATHS, false), None, &Silent)
        .unwrap_or_else(|_| MarginalTheory::default())
}

/// One model's row: every test's figure by name, in the report's order.
struct Row {
    model: String,
    figures: Vec<(String, Figure)>,
    family: usize,
}

/// Simulate `shuffle` as `run` would (marginal mode, the deal-stream tests on), judge it against
/// uniform for the family size, and work out every test's figure.
fn row(shuffle: Shuffle, options: &Options, alpha: f64) -> (Row, RunReport) {
    let n = options.decks;
    let theory = model_theory(shuffle, n);
    let spec = SimulationSpec {
        shuffle,
        deck: n,
        trials: options.simulated,
        seed: options.seed,
        rng: RngKind::Chacha8,
        threads: options.threads,
    };
    let source = SourceSpec::chacha(spec.rng);
    let how = Simulation {
        source: Some(source),
        deals: Some(DealStreamOptions {
            deck: n,
            dealt: n,
            repeats: RepeatSource::Fingerprints {
                limit: options.simulated,
            },
            compositions: false,
        }),
        ..Simulation::marginal()
    };
    let stop = AtomicBool::new(false);
    let shuffle_bias::Simulated { counts, deals, .. } = simulate(&spec, &how, &stop, &mut |_| {});
    let tally = counts
        .into_marginal()
        .expect("the simulation tallied the marginals");
    let facts = RunFacts {
        command: "run",
        shuffle: Some(shuffle),
        origin: Origin::Simulation {
            seed: options.seed,
            source,
            threads: options.threads,
        },
        trials_requested: options.simulated,
        elapsed_seconds: 0.0,
        interrupted: false,
        alpha,
        against: Against::Uniform,
        all_orderings: false,
    };
    let report = judge(
        &facts,
        Tallied::Marginal(tally.clone()),
        Theory::Marginal(theory.clone()),
        deals,
        None,
        None,
    )
    .expect("a marginal run against uniform is always judged");
    let family = report.tests.len();
    let level = alpha / family as f64;
    (
        Row {
            model: match shuffle.algorithm {
                Algorithm::Shelf => format!("shelf --shelves {}", shuffle.shelves),
                _ => format!("{} --passes {}", shuffle.algorithm.name(), shuffle.passes),
            },
            figures: figures(&tally, &theory, level),
            family,
        },
        report,
    )
}

/// Every test's figure at per-test level `level`: each position, the identity, each
/// statistic tallied at this deck size (the order of the marginal report's family).
fn figures(tally: &MarginalTally, theory: &MarginalTheory, level: f64) -> Vec<(String, Figure)> {
    let n = tally.deck;
    let trials = tally.trials;
    let matrix = tally.position_matrix();
    let uniform_position = vec![1.0 / n as f64; n];
    let every_card: Vec<Range<usize>> = (0..n).map(|card| card..card + 1).collect();
    let mut figures = Vec::new();
    for position in 0..n {
        let counts: Vec<u64> = (0..n).map(|card| matrix[card][position]).collect();
        let exact: Option<Vec<f64>> = theory
            .positions
            .as_ref()
            .map(|m| (0..n).map(|card| m[card][position]).collect());
        let figure = chi_square_figure(
            level,
            &uniform_position,
            exact.as_deref(),
            (&counts, trials),
            |_| every_card.clone(),
        );
        figures.push((format!("position {position}"), figure));
    }
    figures.push((
        "identity".to_string(),
        identity_figure(
            theory.identity,
            (tally.identity, trials),
            uniform_ordering_probability(n),
            level,
        ),
    ));
    for (index, statistic) in Statistic::ALL.into_iter().enumerate() {
        if !statistic.tallied_at(n) {
            continue;
        }
        let uniform = statistic.uniform_value_law(n);
        let exact = theory
            .statistics
            .get(index)
            .and_then(Option::as_ref)
            .map(|law| law.probabilities.as_slice());
        let figure = chi_square_figure(
            level,
            &uniform.probabilities,
            exact,
            (tally.histogram(statistic), trials),
            |trials| pooled_cells(&uniform, trials),
        );
        figures.push((statistic.name().to_string(), figure));
    }
    figures
}

/// The Markdown table: the best test and its trials, the least of the positions, then every
/// other test.
fn table(rows: &[Row]) -> String {
    let others: Vec<&str> = rows[0]
        .figures
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| !name.starts_with("position "))
        .collect();
    let mut out = format!(
        "| model | detects first | trials | positions (least of {}) | {} |\n",
        rows[0].figures.len() - others.len(),
        others.join(" | ")
    );
    out.push_str(&format!(
        "|---|---|---:|---:|{}\n",
        "---:|".repeat(others.len())
    ));
    for row in rows {
        let best = row
            .figures
            .iter()
            .filter_map(|(name, figure)| figure.measured().map(|n| (n, name, figure)))
            .min_by_key(|&(n, _, _)| n);
        let (best_name, best_trials) = match best {
            Some((_, name, figure)) => {
                let marker = if matches!(figure, Figure::Exact(_)) {
                    "exact"
                } else {
                    "sim."
                };
                // A lower bound below the best measured figure leaves the winner open.
                let open = row.figures.iter().any(|(_, f)| {
                    matches!((f, figure.measured()), (Figure::AtLeast(b), Some(n)) if *b < n)
                });
                (
                    format!("{name} ({marker}){}", if open { " ?" } else { "" }),
                    figure.cell(),
                )
            }
            None => ("none measured".to_string(), "—".to_string()),
        };
        let positions = row
            .figures
            .iter()
            .filter(|(name, _)| name.starts_with("position "))
            .min_by(|(_, a), (_, b)| order(a).total_cmp(&order(b)))
            .map_or("—".to_string(), |(name, figure)| {
                format!(
                    "{} ({})",
                    figure.cell(),
                    name.trim_start_matches("position ")
                )
            });
        let rest: Vec<String> = others
            .iter()
            .map(|other| {
                row.figures
                    .iter()
                    .find(|(name, _)| name == other)
                    .map_or("—".to_string(), |(_, figure)| figure.cell())
            })
            .collect();
        out.push_str(&format!(
            "| {} | {best_name} | {best_trials} | {positions} | {} |\n",
            row.model,
            rest.join(" | ")
        ));
    }
    out
}

/// Sort key of a figure: its trials, lower bounds after measured figures of the same size,
/// "never" last.
fn order(figure: &Figure) -> f64 {
    match figure {
        Figure::Exact(n) | Figure::Simulated(n) => *n as f64,
        Figure::AtLeast(n) => *n as f64 + 0.5,
        Figure::Never => f64::INFINITY,
    }
}

/// `--decks N --simulated N --seed S --threads T`, each optional.
fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        decks: 52,
        simulated: 2_000_000,
        seed: 1,
        threads: std::thread::available_parallelism().map_or(1, usize::from),
    };
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number: u64 = value
            .replace('_', "")
            .parse()
            .map_err(|_| format!("{flag} {value}: not a whole number"))?;
        match flag.as_str() {
            "--decks" if (3..=1000).contains(&number) => options.decks = number as usize,
            "--decks" => return Err(format!("--decks {value}: give 3 to 1000 cards")),
            "--simulated" if number >= 2 => options.simulated = number,
            "--simulated" => return Err(format!("--simulated {value}: give at least 2 decks")),
            "--seed" => options.seed = number,
            "--threads" if number >= 1 => options.threads = number as usize,
            "--threads" => return Err(format!("--threads {value}: give at least 1")),
            _ => {
                return Err(format!(
                    "unknown flag {flag} (--decks, --simulated, --seed, --threads)"
                ));
            }
        }
    }
    Ok(options)
}

/// The level `run` uses unless `--alpha` says otherwise: read from the command line's own
/// definition, so that the table follows the tool.
fn default_alpha() -> f64 {
    match Cli::try_parse_from(["shuffle-bias", "run", "riffle"]) {
        Ok(Cli {
            command: Command::Run(args),
        }) => args.alpha.alpha,
        _ => unreachable!("`run riffle` parses"),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse(&args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("detects_first: {message}");
            return ExitCode::from(2);
        }
    };
    let alpha = default_alpha();
    let models: Vec<Shuffle> = [10u16, 20, 200]
        .into_iter()
        .map(|m| Shuffle::once(Algorithm::Shelf).with_shelves(m))
        .chain((1..=8).map(|k| Shuffle::once(Algorithm::Riffle).with_passes(k)))
        .collect();
    let started = Instant::now();
    let mut rows = Vec::new();
    for shuffle in models {
        let (row, report) = row(shuffle, &options, alpha);
        eprintln!(
            "{}: {} decks simulated, {} at {:.0} s",
            row.model,
            options.simulated,
            report.verdict,
            started.elapsed().as_secs_f64()
        );
        rows.push(row);
    }
    let families: Vec<usize> = rows.iter().map(|r| r.family).collect();
    let family = families[0];
    println!(
        "{} cards; trials for 99% power of each test of a marginal `run` against uniform, at \
         the default alpha = {alpha} split over the report's family of {} tests (Bonferroni: \
         alpha/m = {:.3e} per test); simulated figures (~) from {} decks per model, seed {}.\n",
        options.decks,
        if families.iter().all(|&f| f == family) {
            family.to_string()
        } else {
            format!("{families:?}")
        },
        alpha / family as f64,
        options.simulated,
        options.seed,
    );
    print!("{}", table(&rows));
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    const THIRD: f64 = 1.0 / 3.0;

    #[test]
    fn cohen_w2_matches_a_hand_computation() {
        // (½, 0.3, 0.2) against thirds: 3·((1/6)² + (1/30)² + (2/15)²) = 3·0.04666… = 0.14.
        let cells = [0..1, 1..2, 2..3];
        let w2 = cohen_w2(&[0.5, 0.3, 0.2], &[THIRD; 3], &cells);
        assert!((w2 - 0.14).abs() < 1e-12, "{w2}");
        // Pooling the last two cells leaves (½ − ⅓)²·3 + (½ − ⅔)²·3/2 = 1/12 + 1/24 = 1/8.
        let pooled = cohen_w2(&[0.5, 0.3, 0.2], &[THIRD; 3], &[0..1, 1..3]);
        assert!((pooled - 0.125).abs() < 1e-12, "{pooled}");
    }

    #[test]
    fn the_trials_of_a_fixed_set_of_cells_are_those_of_trials_for_power() {
        let cells = [0..1, 1..2, 2..3];
        let found = least_trials(
            0.001,
            |_| cells.to_vec(),
            |c| cohen_w2(&[0.5, 0.3, 0.2], &[THIRD; 3], c),
        );
        assert_eq!(found, trials_for_power(2.0, 0.001, 0.14, 0.99));
        assert!(found.unwrap() > 100, "{found:?}");
        // No bias: never.
        let none = least_trials(
            0.001,
            |_| cells.to_vec(),
            |c| cohen_w2(&[THIRD; 3], &[THIRD; 3], c),
        );
        assert_eq!(none, None);
    }

    #[test]
    fn with_cells_that_grow_with_the_trials_the_figure_is_the_least_n_that_reaches_the_power() {
        // One cell below 10 trials (no χ²), the last two values pooled up to 10,000, every
        // value from there: pooled, the bias w² = 1/8 needs trials_for_power(1, α, 1/8) < 10,000.
        let law = [0.5, 0.3, 0.2];
        let cells_at = |n: u64| match n {
            0..10 => std::iter::once(0..3).collect(),
            10..10_000 => vec![0..1, 1..3],
            _ => vec![0..1, 1..2, 2..3],
        };
        let alpha = 0.001;
        let found = least_trials(alpha, cells_at, |c| cohen_w2(&law, &[THIRD; 3], c)).unwrap();
        let pooled = trials_for_power(1.0, alpha, 0.125, 0.99).unwrap();
        assert!((10..10_000).contains(&pooled), "{pooled}");
        assert_eq!(found, pooled);
        // A bias that only the finer cells see waits for them: (⅓, ½, 1/6) pools to (⅓, ⅔).
        let hidden = [THIRD, 0.5, 1.0 / 6.0];
        let found = least_trials(alpha, cells_at, |c| cohen_w2(&hidden, &[THIRD; 3], c));
        let fine = trials_for_power(
            2.0,
            alpha,
            cohen_w2(&hidden, &[THIRD; 3], &cells_at(10_000)),
            0.99,
        );
        assert_eq!(found, fine.map(|n| n.max(10_000)));
    }

    #[test]
    fn the_plug_in_estimate_loses_its_bias_by_hand_and_in_expectation() {
        // Counts 50, 30, 20 of 100: plug-in 0.14, correction 3·(0.25 + 0.21 + 0.16)/99.
        let cells = [0..1, 1..2, 2..3];
        let estimate = estimated_w2(&[50, 30, 20], 100, &[THIRD; 3], &cells);
        assert!((estimate.w2 - (0.14 - 3.0 * 0.62 / 99.0)).abs() < 1e-12);
        // Exact expectation over every multinomial outcome of N = 4 draws from (½, 0.3, 0.2):
        // the estimator's mean is w² = 0.14 itself (the plug-in's would be 0.14 + Σ p(1−p)/(uN)).
        let p: [f64; 3] = [0.5, 0.3, 0.2];
        let n = 4u64;
        let factorial = |k: u64| (1..=k).product::<u64>() as f64;
        let mut mean = 0.0;
        for a in 0..=n {
            for b in 0..=n - a {
                let c = n - a - b;
                let weight = factorial(n) / (factorial(a) * factorial(b) * factorial(c))
                    * p[0].powi(a as i32)
                    * p[1].powi(b as i32)
                    * p[2].powi(c as i32);
                mean += weight * estimated_w2(&[a, b, c], n, &[THIRD; 3], &cells).w2;
            }
        }
        assert!((mean - 0.14).abs() < 1e-12, "{mean}");
    }

    #[test]
    fn one_unchanged_deck_in_52_cards_rejects_so_the_identity_needs_ln_100_over_p_trials() {
        // p = 1e−6: ⌈ln 100 / −ln(1 − 10⁻⁶)⌉ = ⌈4 605 168.5…⌉.
        let u = uniform_ordering_probability(52);
        let needed = identity_trials(Probability::from_p(1e-6), u, 0.001 / 64.0).unwrap();
        assert_eq!(needed, 4_605_168);
        // Beyond 2^64 trials (two riffles: C(55, 3)/2^104 ≈ 1.3e−27), not one χ² trial.
        assert_eq!(
            identity_trials(Probability::from_p(1.3e-27), u, 0.001 / 64.0),
            None
        );
        // As likely as under uniform: nothing to detect.
        assert_eq!(identity_trials(u, u, 0.001), None);
    }

    #[test]
    fn on_a_small_deck_the_identity_needs_the_count_that_rejects_not_one_deck() {
        // 8 cards, one riffle: p = 9/256, u = 1/8!, alpha = 5e−5. Near N = 190, one unchanged
        // deck has a two-sided p-value of about 2·N·u ≈ 0.0094 > alpha, two about (N·u)² ≈
        // 2.2e−5 ≤ alpha: the test needs two, and P(Bin(N, p) ≥ 2) ≥ 0.99 from N ≈ 6.64/p.
        let (p, u, alpha) = (9.0 / 256.0, uniform_ordering_probability(8), 5e-5);
        let n = identity_trials(Probability::from_p(p), u, alpha).unwrap();
        let at_least_two = |n: u64| {
            let q = 1.0 - p;
            1.0 - q.powi(n as i32) - n as f64 * p * q.powi(n as i32 - 1)
        };
        assert_eq!(critical_count(n, u, alpha), Some(2));
        assert!(at_least_two(n) >= 0.99 && at_least_two(n - 1) < 0.99, "{n}");
        assert!((180..200).contains(&n), "{n}");
    }

    #[test]
    fn the_shelf_shufflers_valley_law_and_identity_come_from_its_exact_law() {
        // 20 cards (beyond the exact engine), 3 shelves: the identity, with no valley, has
        // N(0)/(2·3)^20, and the valleys' law sums to 1.
        use shuffle_bias::theory::permutation_statistics::ratio_to_f64;
        use shuffle_bias::theory::shelf::shelf_law;
        let theory = model_theory(Shuffle::once(Algorithm::Shelf).with_shelves(3), 20);
        let (numerators, denominator) = shelf_law(20, 3, 1);
        let p = ratio_to_f64(&numerators[0], &denominator);
        assert!((theory.identity.unwrap().p - p).abs() < 1e-15);
        let valleys = Statistic::ALL
            .iter()
            .position(|&s| s == Statistic::Valleys)
            .unwrap();
        let law = theory.statistics[valleys].as_ref().unwrap();
        assert!((law.probabilities.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn counts_print_in_full_or_as_powers_of_ten() {
        assert_eq!(Figure::Exact(1_234_567).cell(), "1,234,567");
        assert_eq!(Figure::Simulated(1_234_567).cell(), "~1,200,000");
        assert_eq!(Figure::AtLeast(3_456).cell(), "> 3,400");
        assert_eq!(Figure::AtLeast(43_999_999).cell(), "> 4.3e7");
        assert_eq!(Figure::Simulated(99_600_000).cell(), "~1.0e8");
        assert_eq!(Figure::Simulated(87).cell(), "~87");
        assert_eq!(Figure::Exact(324).cell(), "324");
        assert_eq!(Figure::Exact(389_960_529_576_820).cell(), "3.90e14");
        assert_eq!(Figure::Never.cell(), "—");
    }
}
