//! `check`: tally permutations produced by another program and judge them.

use std::sync::Arc;
use std::time::Instant;

use super::sequential::CheckSequential;
use super::{Failure, NoLaw, Theory, exact_law_shown, marginal_theory, open_output, publish};
use crate::config::CheckConfig;
use crate::engine::algorithms::Card;
use crate::engine::simulate::Tally;
use crate::engine::tally::TallyMode;
use crate::exit_code::ExitCode;
use crate::input::permutation_reader::{
    InputCounts, Observer, open_sources, read_permutations_observed,
};
use crate::interrupt;
use crate::output::progress::Progress;
use crate::output::text::plural;
use crate::report::run::InputSummary;
use crate::report::run::{Against, Origin, RunFacts, build_run_report};
use crate::report::run::{MarginalTheory, build_marginal_report};

pub(super) fn check(config: CheckConfig) -> Result<ExitCode, Failure> {
    let out = open_output(&config.output)?;
    let inputs = open_sources(&config.sources)?;
    let model = config.model;
    let progress = Progress::counter("lines", config.quiet);
    let stop = interrupt::flag();
    let started = Instant::now();
    let mut until = CheckSequential::new(
        |deck, full| check_theory(&config, deck, full),
        |deck| config.reader.mode_for(deck) == TallyMode::Full,
        if model.is_some() {
            Against::Model
        } else {
            Against::Uniform
        },
        config.alpha,
    );
    let mut observe = |deck: &[Card]| until.observe(deck);
    let input = read_permutations_observed(
        &config.sources,
        inputs,
        &config.reader,
        stop,
        &mut |lines| progress.set(lines),
        config.until_decided.then_some(&mut observe as Observer),
    );
    let elapsed_seconds = started.elapsed().as_secs_f64();
    progress.finish();
    // Ctrl-C before the first permutation is a failure too (exit 130: see main).
    let input = input?;
    // The theory can only be computed once the deck size is known (possibly from the input);
    // under --until-decided it was computed at the first permutation.
    let (theory, outcome) = until.finish()?;
    let theory = match theory {
        Some(theory) => theory,
        None => check_theory(
            &config,
            input.deck,
            matches!(input.counts, InputCounts::Full(_)),
        )?,
    };
    let facts = RunFacts {
        command: "check",
        shuffle: model,
        origin: Origin::Input(InputSummary {
            sources: input.sources.clone(),
            lines: input.lines,
            permutations: input.permutations,
            numbering: input.numbering,
            labels: config.reader.labels.clone(),
            invalid_lines: input.invalid,
            invalid_examples: input.invalid_examples.clone(),
            state_bits: config.state_bits,
        }),
        trials_requested: input.permutations,
        elapsed_seconds,
        interrupted: input.interrupted,
        alpha: config.alpha,
        against: if model.is_some() {
            Against::Model
        } else {
            Against::Uniform
        },
        all_orderings: config.all_orderings,
    };
    let report = match (input.counts, theory) {
        (InputCounts::Full(counts), Theory::Full(law)) => {
            let tally = Tally {
                deck: input.deck,
                counts,
                trials: input.permutations,
            };
            build_run_report(&facts, tally, law)
        }
        (InputCounts::Marginal(tally), Theory::Marginal(theory)) => {
            build_marginal_report(&facts, tally, theory)
        }
        _ => unreachable!("the tally and the theory follow the same mode"),
    };
    let report = match outcome {
        Some(outcome) => report.with_sequential(&facts, outcome),
        None => report,
    };
    let verdict = publish(&config.output, &report, out)?;
    Ok(if report.header.interrupted {
        eprintln!(
            "shuffle-bias: interrupted after {}; the report covers those only",
            plural(report.header.trials, "permutation")
        );
        ExitCode::Interrupted
    } else {
        verdict
    })
}

/// What `check` compares a tally of `deck` cards with (every ordering when `full`, else the
/// marginals): uniform, or the `--against` algorithm's exact law or marginal laws.
pub(super) fn check_theory(
    config: &CheckConfig,
    deck: usize,
    full: bool,
) -> Result<Theory, Failure> {
    let theory = match (full, config.model) {
        (true, None) => Theory::Full(None),
        (true, Some(shuffle)) => Theory::Full(Some(Ok(Arc::new(
            exact_law_shown(
                shuffle,
                deck,
                config.max_paths,
                config.max_paths_given,
                None,
                config.quiet,
            )?
            .map_err(|source| NoLaw::CheckModel {
                shuffle: shuffle.label(),
                deck,
                source,
            })?,
        )))),
        (false, None) => Theory::Marginal(MarginalTheory::default()),
        (false, Some(shuffle)) => {
            let theory = marginal_theory(
                shuffle,
                deck,
                config.max_paths,
                config.max_paths_given,
                None,
                config.quiet,
            )?;
            if theory.source.is_none() {
                return Err(NoLaw::CheckModelMarginal {
                    shuffle: shuffle.label(),
                    deck,
                }
                .into());
            }
            Theory::Marginal(theory)
        }
    };
    Ok(theory)
}
