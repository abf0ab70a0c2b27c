//! `check`: tally permutations produced by another program and judge them.

use std::sync::Arc;
use std::time::Instant;

use super::{Failure, NoLaw, Theory, exact_law_shown, marginal_theory, open_output, publish};
use crate::config::CheckConfig;
use crate::engine::simulate::Tally;
use crate::exit_code::ExitCode;
use crate::input::permutation_reader::{InputCounts, open_sources, read_permutations};
use crate::interrupt;
use crate::output::progress::Progress;
use crate::output::text::plural;
use crate::report::run::InputSummary;
use crate::report::run::{Against, Origin, RunFacts, build_run_report_with_deals};
use crate::report::run::{MarginalTheory, build_marginal_report_with_deals};

pub(super) fn check(config: CheckConfig) -> Result<ExitCode, Failure> {
    let out = open_output(&config.output)?;
    let inputs = open_sources(&config.sources)?;
    let model = config.model;
    let progress = Progress::counter("lines", config.quiet);
    let stop = interrupt::flag();
    let started = Instant::now();
    let input = read_permutations(
        &config.sources,
        inputs,
        &config.reader,
        stop,
        &mut |lines| progress.set(lines),
    );
    let elapsed_seconds = started.elapsed().as_secs_f64();
    progress.finish();
    // Ctrl-C before the first permutation is a failure too (exit 130: see main).
    let input = input?;
    // The theory can only be computed once the deck size is known (possibly from the input).
    let theory = match (&input.counts, model) {
        (InputCounts::Full(_), None) => Theory::Full(None),
        (InputCounts::Full(_), Some(shuffle)) => Theory::Full(Some(Ok(Arc::new(
            exact_law_shown(
                shuffle,
                input.deck,
                config.max_paths,
                config.max_paths_given,
                None,
                config.quiet,
            )?
            .map_err(|source| NoLaw::CheckModel {
                shuffle: shuffle.label(),
                deck: input.deck,
                source,
            })?,
        )))),
        (InputCounts::Marginal(_), None) => Theory::Marginal(MarginalTheory::default()),
        (InputCounts::Marginal(_), Some(shuffle)) => {
            let theory = marginal_theory(
                shuffle,
                input.deck,
                config.max_paths,
                config.max_paths_given,
                None,
                config.quiet,
            )?;
            if theory.source.is_none() {
                return Err(NoLaw::CheckModelMarginal {
                    shuffle: shuffle.label(),
                    deck: input.deck,
                }
                .into());
            }
            Theory::Marginal(theory)
        }
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
            build_run_report_with_deals(&facts, tally, law, input.deals)
        }
        (InputCounts::Marginal(tally), Theory::Marginal(theory)) => {
            build_marginal_report_with_deals(&facts, tally, theory, input.deals)
        }
        _ => unreachable!("the tally and the theory follow the same mode"),
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
