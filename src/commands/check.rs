//! `check`: tally permutations (or dealt hands) produced by another program and judge them.
//!
//! The judging half ([`judge_input`]) is shared with the library API
//! ([`crate::library`]), which tallies a shuffle function's permutations in-process: both end
//! in the same report model and verdict.

use std::time::Instant;

use super::saved_tally::{open_saved_tally, save_check_tally};
use super::sequential::CheckSequential;
use super::{Failure, OnTerminal, open_output, publish, write_report};
use crate::config::UsageError;
use crate::config::{CheckConfig, check_listed_orderings_of};
use crate::engine::algorithms::Card;
use crate::engine::tally::TallyMode;
use crate::commands::exit_code::ExitCode;
use crate::input::permutation_reader::Numbering;
use crate::input::permutation_reader::{
    DeckHook, InputCounts, Observer, open_sources, read_permutations_observed,
};
use crate::input::producer::Producers;
use crate::system::interrupt;
use crate::judge::{Judging, check_theory, judge_input};
use crate::output::Report;
use crate::output::progress::Progress;
use crate::report::notes::MAX_LISTED_DECK;
use crate::report::run::Against;
use crate::report::single::build_single_report;
use crate::report::text::plural;
use crate::theory::permutation_statistics::prepare_exact_counts;

pub(super) fn check(config: CheckConfig) -> Result<ExitCode, Failure> {
    if config.single {
        return check_single(&config);
    }
    let out = open_output(&config.output)?;
    let saved = open_saved_tally(config.save_tally.as_deref())?;
    // With --exec, the command is started here and its standard output is the one source; it
    // is stopped, or waited for and its exit checked, before anything is reported.
    let (inputs, producer) = match &config.exec {
        Some(exec) => {
            let (producer, input) = Producers::start(&exec.command, exec.seed, exec.copies)?;
            (vec![input], Some(producer))
        }
        None => (open_sources(&config.sources)?, None),
    };
    let progress = Progress::counter("lines", config.quiet);
    let stop = interrupt::flag();
    let started = Instant::now();
    let mut until = CheckSequential::new(
        |deck, full| {
            let mode = if full {
                TallyMode::Full
            } else {
                TallyMode::Marginal
            };
            let paths = (config.max_paths, config.max_paths_given);
            let watch = OnTerminal::new(config.quiet);
            Ok(check_theory(mode, deck, config.model, paths, &watch)?)
        },
        |deck| config.reader.mode_for(deck) == TallyMode::Full,
        if config.model.is_some() {
            Against::Model
        } else {
            Against::Uniform
        },
        config.alpha,
        config.max_bias,
    );
    // Where no flag gave the deck, `--table permutations` of a deck too large to list is
    // refused at the first permutation (the flags' check refuses it before reading otherwise).
    let refuse_unlisted = config.reader.deck.is_none()
        && config.reader.deal.is_none()
        && check_listed_orderings_of(
            config.output.format,
            config.output.table,
            MAX_LISTED_DECK + 1,
            config.all_orderings,
        )
        .is_err();
    let mut unlisted = None;
    let mut observe = |deck: &[Card]| {
        if refuse_unlisted
            && deck.len() > MAX_LISTED_DECK
            && config.reader.mode_for(deck.len()) == TallyMode::Full
        {
            unlisted = Some(deck.len());
            return std::ops::ControlFlow::Break(());
        }
        if config.until_decided {
            until.observe(deck)
        } else {
            std::ops::ControlFlow::Continue(())
        }
    };
    // Marginal mode's report needs the exact law of every statistic tallied: they are
    // computed on a thread of their own while the input is read.
    let mut prepare_laws = |deck: usize| {
        if config.reader.deal.is_none() && config.reader.mode_for(deck) == TallyMode::Marginal {
            prepare_exact_counts(deck);
        }
    };
    let input = read_permutations_observed(
        &config.sources,
        inputs,
        &config.reader,
        stop,
        &mut |lines| progress.set(lines),
        (config.until_decided || refuse_unlisted).then_some(&mut observe as Observer),
        Some(&mut prepare_laws as DeckHook),
    );
    let elapsed_seconds = started.elapsed().as_secs_f64();
    progress.finish();
    if let Some(producer) = producer {
        match &input {
            Ok(input) => producer.finish(input.stopped_early, input.interrupted)?,
            // A failure of the command (its last line cut short, say) comes before what it
            // did to the input.
            Err(error) => producer.finish(true, error.is_interrupted())?,
        }
    }
    // Ctrl-C before the first permutation is a failure too (exit 130: see main).
    let mut input = input?;
    if let Some(deck) = unlisted {
        check_listed_orderings_of(
            config.output.format,
            config.output.table,
            deck,
            config.all_orderings,
        )?;
    }
    if let Some(file) = saved {
        save_check_tally(file, &config, &mut input, elapsed_seconds)?;
    }
    // Under --until-decided the theory was computed at the first permutation: the report uses it.
    let (known, outcome) = until.finish()?;
    let settings = Judging {
        model: config.model,
        alpha: config.alpha,
        max_paths: config.max_paths,
        max_paths_given: config.max_paths_given,
        all_orderings: config.all_orderings,
        labels: config.reader.labels.clone(),
        state_bits: config.state_bits,
        max_bias: config.max_bias,
        explain: config.explain,
    };
    let watch = OnTerminal::new(config.quiet);
    let mut report = judge_input(input, &settings, elapsed_seconds, (known, outcome), &watch)?;
    if let (Some(exec), Some(summary)) = (&config.exec, report.header.input.as_mut()) {
        summary.command = Some(exec.command.display());
        summary.copies = (exec.copies > 1).then_some(exec.copies as u64);
        summary.seed = Some(exec.seed);
    }
    let verdict = publish(&config.output, &report, out)?;
    Ok(if report.header.interrupted {
        stderr_line!(
            "shuffle-bias: interrupted after {}; the report covers those only",
            plural(
                report.header.trials,
                if report.deal().is_some() {
                    "deal"
                } else {
                    "permutation"
                }
            )
        );
        ExitCode::Interrupted
    } else if interrupt::requested() && verdict != ExitCode::Interrupted {
        // Ctrl-C after the input was read, while `--explain` fitted its models or the report
        // was built, and the report written whole: it covers every permutation, and the exit
        // still says that Ctrl-C was pressed.
        stderr_line!(
            "shuffle-bias: interrupted after the input was read; the report is of all of it"
        );
        ExitCode::Interrupted
    } else {
        verdict
    })
}

/// `check --single`: read exactly one permutation and judge it on its own.
fn check_single(config: &CheckConfig) -> Result<ExitCode, Failure> {
    let out = open_output(&config.output)?;
    let (inputs, producer) = match &config.exec {
        Some(exec) => {
            let (producer, input) = Producers::start(&exec.command, exec.seed, exec.copies)?;
            (vec![input], Some(producer))
        }
        None => (open_sources(&config.sources)?, None),
    };
    let stop = interrupt::flag();
    let input = read_permutations_observed(
        &config.sources,
        inputs,
        &config.reader,
        stop,
        &mut |_| {},
        None,
        None,
    );
    if let Some(producer) = producer {
        match &input {
            Ok(input) => producer.finish(input.stopped_early, input.interrupted)?,
            Err(error) => producer.finish(true, error.is_interrupted())?,
        }
    }
    let input = input?;
    let InputCounts::Marginal(tally) = &input.counts else {
        unreachable!("--single reads the marginal tally")
    };
    if input.permutations != 1 {
        return Err(UsageError::Conflict {
            flag: "--single",
            value: None,
            hint: format!(
                "the input holds {}; --single judges exactly one (give one line, or drop --single \
                 to judge many)",
                plural(input.permutations, "permutation")
            ),
        }
        .into());
    }
    // One permutation's position matrix holds a single 1 per position: its card.
    let n = tally.deck;
    let mut deck = vec![0 as Card; n];
    for card in 0..n {
        for (position, &count) in tally.positions[card * n..(card + 1) * n].iter().enumerate() {
            if count == 1 {
                deck[position] = card as Card;
            }
        }
    }
    let numbering = match input.numbering {
        Numbering::ZeroBased => "0-based",
        Numbering::OneBased => "1-based",
        Numbering::Labels => "labels",
        Numbering::StandardCards => "card names",
    };
    let report = build_single_report(
        &deck,
        input.sources.clone(),
        numbering.to_string(),
        config.alpha,
    );
    write_report(&config.output, &Report::Single(&report), out)?;
    Ok(if report.bias_detected {
        ExitCode::BiasDetected
    } else {
        ExitCode::NoBiasDetected
    })
}
