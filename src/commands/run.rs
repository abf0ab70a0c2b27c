//! `run`: simulate a shuffle, tally it, judge it against uniform or its exact law.

use std::time::Instant;

use super::saved_tally::{
    open_saved_tally, plan_memory, run_shard, save_run_tally, warn_of_fingerprint_memory,
};
use super::sequential::simulate_until_decided;
use super::{Failure, OnTerminal, Sink, finish_run, open_output};
use crate::analysis::predictability::{Predictability, predictability, seed_space};
use crate::analysis::ruled_out::{BiasSize, SizePlan, about_trials};
use crate::cases::{Case, FigureContext, figures};
use crate::commands::exit_code::ExitCode;
use crate::config::RunConfig;
use crate::engine::emit::emit_permutations_headed;
use crate::engine::shard::{BlockCoverage, block_count};
use crate::engine::simulate::{Simulation, SimulationSpec, simulate};
use crate::engine::tally::TallyMode;
use crate::judge::{Tallied, diagnose, explain_stream, family_for, judge, run_theory};
use crate::output::files::Target;
use crate::output::progress::Progress;
use crate::report::case::CaseReport;
use crate::report::run::{Origin, RunFacts};
use crate::system::interrupt;
use crate::theory::permutation_statistics::prepare_exact_counts;

pub(super) fn run(config: RunConfig) -> Result<ExitCode, Failure> {
    if config.shard.is_some() {
        return run_shard(config);
    }
    let out = open_output(&config.output)?;
    let mut emitted = match &config.emit_permutations {
        None => None,
        Some(target) => Some(Sink::open("--emit-permutations", target)?),
    };
    let saved = open_saved_tally(config.save_tally.as_deref())?;
    if let Some(size) = config.max_bias {
        plan_size(size, &config);
    }
    // Marginal mode's report needs the exact law of every statistic tallied: they are
    // computed on a thread of their own while the decks are shuffled.
    if config.settings.mode == TallyMode::Marginal {
        prepare_exact_counts(config.settings.deck);
    }
    let theory = run_theory(
        config.shuffle,
        config.settings.deck,
        config.settings.mode,
        &config.source,
        config.against,
        (config.max_paths, config.max_paths_given),
        &OnTerminal::new(config.quiet),
    )?;

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
    let blocks = 0..block_count(spec.trials);
    // The deal-stream tests read the whole run in trial order (--until-decided too: they join
    // the fixed-sample family, which decides at the planned end).
    let (deals, _reservation) =
        plan_memory(&spec, config.settings.mode, config.deal_tests, spec.trials);
    warn_of_fingerprint_memory(deals.as_ref(), spec.trials, spec.threads);
    let mut sequential = None;
    let (counted, tallied, coverage, deals) = match config.settings.mode {
        _ if config.until_decided => {
            let mut family = family_for(&theory, spec.deck, config.against, config.settings.alpha);
            if let Some(size) = config.max_bias {
                family = family.with_size_gate(size);
            }
            let (counted, deals, outcome) =
                simulate_until_decided(&spec, &config.source, family, deals, stop, &mut show);
            let tallied = counted.trials();
            sequential = Some(outcome);
            // --until-decided saves no tally (refused with --save-tally).
            (
                counted,
                tallied,
                BlockCoverage::whole(blocks.clone()),
                deals,
            )
        }
        mode => {
            let how = Simulation {
                mode,
                source: Some(config.source),
                blocks: Some(blocks.clone()),
                deals,
            };
            let simulated = simulate(&spec, &how, stop, &mut show);
            let tallied = simulated.counts.trials();
            (
                simulated.counts,
                tallied,
                simulated.coverage,
                simulated.deals,
            )
        }
    };
    let elapsed_seconds = started.elapsed().as_secs_f64();
    progress.finish();
    if let Some(file) = saved {
        save_run_tally(
            file,
            &config,
            (&counted, deals.as_ref()),
            blocks,
            &coverage,
            elapsed_seconds,
        )?;
    }
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
            let header = config.case.map(|case| case_header(case, &spec));
            sink.write_polling_with(|writer| {
                complete = emit_permutations_headed(
                    &spec,
                    &config.source,
                    header.as_deref(),
                    writer,
                    stop,
                )?;
                Ok(())
            })?;
        }
        if complete {
            sink.commit()?;
        } else {
            emit_interrupted = true;
            stderr_line!("shuffle-bias: interrupted: the permutations were not written to {name}");
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
            && !sequential
                .as_ref()
                .is_some_and(|outcome| outcome.stopped_the_run(config.max_bias.is_some())),
        alpha: config.settings.alpha,
        against: config.against,
        all_orderings: config.all_orderings,
    };
    let tally: Tallied = counted.into();
    let diagnosis = if config.explain {
        let watch = OnTerminal::new(config.quiet);
        diagnose(&tally, config.settings.alpha, config.max_paths, &watch)
    } else {
        None
    };
    let mut report = judge(&facts, tally, theory, deals, sequential, config.max_bias)?;
    report.diagnosis = diagnosis;
    explain_stream(&mut report);
    report.predictability = seed_predictability(&config, stop);
    if let Some(case) = config.case {
        let context = FigureContext {
            case,
            report: &report,
            max_paths: config.max_paths,
            threads: config.settings.threads,
            stop,
        };
        report.case = Some(case_report(case, figures(&context)));
    }
    let code = finish_run(&config.output, &report, out)?;
    Ok(if emit_interrupted || code == ExitCode::Interrupted {
        ExitCode::Interrupted
    } else if interrupt::requested() {
        // Ctrl-C after the last shuffle, while the report was built or written: the report
        // covers the whole run, and the exit still says that Ctrl-C was pressed.
        stderr_line!(
            "shuffle-bias: interrupted after the last shuffle; the report is of the whole run"
        );
        ExitCode::Interrupted
    } else {
        code
    })
}

/// Before a `--max-bias` run, on stderr: the trials a fair shuffle needs to be shown within the
/// size, beside the trials asked for (a warning when they fall short and nothing stops early).
fn plan_size(size: BiasSize, config: &RunConfig) {
    let plan = SizePlan::of(size, 0.0, config.settings.deck);
    let needed = if config.until_decided {
        plan.trials_until_decided
    } else {
        plan.trials
    };
    let Some(needed) = needed else { return };
    let trials = config.settings.trials;
    if trials < needed {
        stderr_line!(
            "warning: --max-bias {}: a fair shuffle needs {} to be shown within it, and \
             --trials is {trials}: expect INCONCLUSIVE (exit 3)",
            plan.max_bias,
            about_trials(needed)
        );
    } else if !config.quiet {
        stderr_line!(
            "shuffle-bias: --max-bias {}: a fair shuffle needs {} to be shown within it \
             (--trials {trials})",
            plan.max_bias,
            about_trials(needed)
        );
    }
}

/// A source re-seeded from at most 2^32 seeds: how many visible cards identify the deck, the
/// seeds enumerated (with a progress bar) when that takes seconds, else estimated. None for
/// other sources, and after Ctrl-C.
fn seed_predictability(
    config: &RunConfig,
    stop: &std::sync::atomic::AtomicBool,
) -> Option<Predictability> {
    let seeds = seed_space(&config.source, config.settings.deck)?;
    if interrupt::requested() {
        return None;
    }
    let progress = Progress::new(seeds, "seeds", config.quiet);
    let found = predictability(
        config.shuffle,
        config.settings.deck,
        &config.source,
        config.settings.threads,
        stop,
        &mut |done| progress.set(done),
    );
    progress.finish();
    found
}

/// The `case` section of the report.
fn case_report(case: &'static Case, figures: Vec<crate::report::case::Figure>) -> CaseReport {
    CaseReport {
        name: case.name,
        title: case.title,
        year: case.year,
        story: case.story,
        emulates: case.emulates,
        reference: case.reference,
        published_deck: case.deck,
        figures,
    }
}

/// The first line of `case NAME --emit-permutations`: the command that writes the same file.
fn case_header(case: &Case, spec: &SimulationSpec) -> String {
    format!(
        "# shuffle-bias case {} --deck {} --trials {} --seed {}: one shuffle per line, the \
         card at each position (cards 0-based)",
        case.name, spec.deck, spec.trials, spec.seed
    )
}
