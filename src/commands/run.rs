//! `run`: simulate a shuffle, tally it, judge it against uniform or its exact law.

use std::sync::Arc;
use std::time::Instant;

use super::sequential::{family_for, simulate_until_decided};
use super::{
    Counted, Failure, NoLaw, Sink, Theory, exact_law_shown, finish_run, marginal_theory,
    open_output,
};
use crate::config::RunConfig;
use crate::config::choice_law;
use crate::engine::emit::emit_permutations_from;
use crate::engine::mapping::Mapping;
use crate::engine::simulate::{SimulationSpec, simulate_from};
use crate::engine::simulate_marginal::simulate_marginal_from;
use crate::engine::tally::TallyMode;
use crate::exit_code::ExitCode;
use crate::interrupt;
use crate::output::files::Target;
use crate::output::progress::Progress;
use crate::report::run::build_marginal_report;
use crate::report::run::{Against, Origin, RunFacts, build_run_report};

pub(super) fn run(config: RunConfig) -> Result<ExitCode, Failure> {
    let out = open_output(&config.output)?;
    let mut emitted = match &config.emit_permutations {
        None => None,
        Some(target) => Some(Sink::open("--emit-permutations", target)?),
    };
    // The theory is computed before the long run, so that an impossible `--against model`
    // fails at once. Under a biased mapping it is the law of the algorithm fed by that mapping.
    let run_law = matches!(
        config.source.mapping,
        Mapping::Modulo | Mapping::Multiply | Mapping::Float
    )
    .then(|| choice_law(&config.source));
    let theory = match config.settings.mode {
        TallyMode::Full => {
            let law = exact_law_shown(
                config.shuffle,
                config.settings.deck,
                config.max_paths,
                config.max_paths_given,
                run_law,
                config.quiet,
            )?
            .map(Arc::new);
            if let (Against::Model, Err(error)) = (config.against, &law) {
                return Err(NoLaw::RunModel {
                    shuffle: config.shuffle.label(),
                    deck: config.settings.deck,
                    source: error.clone(),
                }
                .into());
            }
            Theory::Full(Some(law))
        }
        TallyMode::Marginal => {
            let theory = marginal_theory(
                config.shuffle,
                config.settings.deck,
                config.max_paths,
                config.max_paths_given,
                run_law,
                config.quiet,
            )?;
            if config.against == Against::Model && theory.source.is_none() {
                return Err(NoLaw::RunModelMarginal {
                    shuffle: config.shuffle.label(),
                    deck: config.settings.deck,
                }
                .into());
            }
            Theory::Marginal(theory)
        }
    };

    let spec = SimulationSpec {
        shuffle: config.shuffle,
        deck: config.settings.deck,
        trials: config.settings.trials,
        seed: config.settings.seed,
        rng: config.settings.rng,
        threads: config.settings.threads,
    };
    let progress = Progress::new(config.settings.trials, "shuffles", config.quiet);
    let stop = interrupt::flag();
    let started = Instant::now();
    let mut show = |done| progress.set(done);
    let mut sequential = None;
    let (counted, tallied) = match config.settings.mode {
        _ if config.until_decided => {
            let family = family_for(&theory, spec.deck, config.against, config.settings.alpha);
            let (counted, outcome) =
                simulate_until_decided(&spec, &config.source, family, stop, &mut show);
            let tallied = counted.trials();
            sequential = Some(outcome);
            (counted, tallied)
        }
        TallyMode::Full => {
            let tally = simulate_from(&spec, &config.source, stop, &mut show);
            let tallied = tally.trials;
            (Counted::Full(tally), tallied)
        }
        TallyMode::Marginal => {
            let tally = simulate_marginal_from(&spec, &config.source, stop, &mut show);
            let tallied = tally.trials;
            (Counted::Marginal(tally), tallied)
        }
    };
    let elapsed_seconds = started.elapsed().as_secs_f64();
    progress.finish();
    let mut emit_interrupted = false;
    if let (Some(mut sink), Some(target)) = (emitted.take(), &config.emit_permutations) {
        let name = match target {
            Target::Stdout => "stdout".to_string(),
            Target::File(path) => path.display().to_string(),
        };
        // The completed shuffles need not be contiguous after a stop: write nothing rather than
        // a file whose counts would not match the report.
        let mut complete = tallied == spec.trials;
        if complete {
            sink.write_with(|writer| {
                complete = emit_permutations_from(&spec, &config.source, writer, stop)?;
                Ok(())
            })?;
        }
        if complete {
            sink.commit()?;
        } else {
            emit_interrupted = true;
            eprintln!("shuffle-bias: interrupted: the permutations were not written to {name}");
        }
    }

    let facts = RunFacts {
        command: "run",
        shuffle: Some(config.shuffle),
        origin: Origin::Simulation {
            seed: config.settings.seed,
            source: config.source,
            threads: config.settings.threads,
        },
        trials_requested: config.settings.trials,
        elapsed_seconds,
        interrupted: tallied < config.settings.trials
            && !sequential.as_ref().is_some_and(|outcome| outcome.decided),
        alpha: config.settings.alpha,
        against: config.against,
        all_orderings: config.all_orderings,
    };
    let report = match (counted, theory) {
        (Counted::Full(tally), Theory::Full(law)) => build_run_report(&facts, tally, law),
        (Counted::Marginal(tally), Theory::Marginal(theory)) => {
            build_marginal_report(&facts, tally, theory)
        }
        _ => unreachable!("the tally and the theory follow the same mode"),
    };
    let report = match sequential {
        Some(outcome) => report.with_sequential(&facts, outcome),
        None => report,
    };
    let code = finish_run(&config.output, &report, out)?;
    Ok(if emit_interrupted {
        ExitCode::Interrupted
    } else {
        code
    })
}
