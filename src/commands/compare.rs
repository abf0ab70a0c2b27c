//! `compare`: several algorithms with the same deck, trials and seed, side by side.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::sequential::simulate_until_decided;
use super::{Counted, Failure, open_output, write_report};
use crate::analysis::sequential::SequentialFamily;
use crate::config::CompareConfig;
use crate::engine::algorithms::Shuffle;
use crate::engine::mapped_source::SourceSpec;
use crate::engine::simulate::{Simulation, SimulationSpec, simulate};
use crate::commands::exit_code::ExitCode;
use crate::system::interrupt;
use crate::judge::{Tallied, Theory, judge};
use crate::output::Report;
use crate::output::progress::Progress;
use crate::report::comparison::{CompareFacts, CompareRow, build_compare_report};
use crate::report::run::{Against, Origin, RunFacts};
use crate::theory::exact::{ExactError, exact_law};

pub(super) fn compare(config: CompareConfig) -> Result<ExitCode, Failure> {
    let out = open_output(&config.output)?;
    let settings = &config.settings;
    // At most 2^53 in all (checked in the config).
    let total = settings.trials * config.algorithms.len() as u64;
    let progress = Progress::new(total, "shuffles", config.quiet);
    let stop = interrupt::flag();
    let started = Instant::now();
    let mut rows = Vec::with_capacity(config.algorithms.len());
    let mut not_run = Vec::new();
    for (index, &algorithm) in config.algorithms.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            not_run.push(algorithm.name());
            continue;
        }
        let law = match exact_law(algorithm, settings.deck, config.max_paths) {
            Err(ExactError::Interrupted) => {
                not_run.push(algorithm.name());
                continue;
            }
            law => law.map(Arc::new),
        };
        let spec = SimulationSpec {
            shuffle: Shuffle::from(algorithm),
            deck: settings.deck,
            trials: settings.trials,
            seed: settings.seed,
            rng: settings.rng,
            threads: settings.threads,
        };
        let offset = settings.trials * index as u64;
        let run_started = Instant::now();
        let mut show = |done| progress.set(offset + done);
        let (tally, sequential) = if config.until_decided {
            let family = SequentialFamily::full(settings.deck, None, settings.alpha);
            let source = SourceSpec::chacha(settings.rng);
            // compare runs no deal-stream tests.
            match simulate_until_decided(&spec, &source, family, None, stop, &mut show) {
                (Counted::Full(tally), _, outcome) => (tally, Some(outcome)),
                (Counted::Marginal(_), _, _) => unreachable!("compare tallies every ordering"),
            }
        } else {
            (
                simulate(&spec, &Simulation::default(), stop, &mut show).into_full(),
                None,
            )
        };
        // compare has no --max-bias: only a rejection stops a run early.
        let stopped = sequential
            .as_ref()
            .is_some_and(|outcome| outcome.stopped_the_run(false));
        let facts = RunFacts {
            command: "run",
            shuffle: Some(Shuffle::from(algorithm)),
            origin: Origin::Simulation {
                seed: settings.seed,
                source: SourceSpec::chacha(settings.rng),
                threads: settings.threads,
            },
            trials_requested: settings.trials,
            elapsed_seconds: run_started.elapsed().as_secs_f64(),
            interrupted: tally.trials < settings.trials && !stopped,
            alpha: settings.alpha,
            against: Against::Uniform,
            all_orderings: false,
        };
        // The row keeps what the table shows; the tally and the law are dropped here.
        let theory = Theory::Full(Some(law));
        let report = judge(&facts, Tallied::Full(tally), theory, None, sequential, None)?;
        rows.push(CompareRow::from_run(&report));
    }
    progress.finish();
    let facts = CompareFacts {
        deck: settings.deck,
        trials_requested: settings.trials,
        seed: settings.seed,
        rng: settings.rng,
        threads: settings.threads,
        alpha: settings.alpha,
        elapsed_seconds: started.elapsed().as_secs_f64(),
        not_run,
    };
    let report = build_compare_report(facts, rows);
    for warning in &report.warnings {
        stderr_line!("warning: {warning}");
    }
    write_report(&config.output, &Report::Compare(&report), out)?;
    Ok(if report.interrupted {
        stderr_line!(
            "shuffle-bias: interrupted after {} of {} algorithms; the table covers those only",
            report.rows.len(),
            report.rows.len() + report.not_run.len()
        );
        ExitCode::Interrupted
    } else if report.all_as_expected {
        ExitCode::NoBiasDetected
    } else {
        ExitCode::BiasDetected
    })
}
