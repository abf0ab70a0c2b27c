//! `check`: tally permutations (or dealt hands) produced by another program and judge them.
//!
//! The judging half ([`judge_input`]) is shared with the library API
//! ([`crate::testing`]), which tallies a shuffle function's permutations in-process: both end
//! in the same report model and verdict.

use std::sync::Arc;
use std::time::Instant;

use super::saved_tally::{open_saved_tally, save_check_tally};
use super::sequential::CheckSequential;
use super::{
    Failure, NoLaw, Theory, exact_law_shown, marginal_theory, open_output, publish, write_report,
};
use crate::analysis::dealt_hand::model_deal_identity;
use crate::analysis::ruled_out::BiasSize;
use crate::config::UsageError;
use crate::config::{CheckConfig, check_listed_orderings_of};
use crate::engine::algorithms::{Card, Shuffle};
use crate::engine::simulate::Tally;
use crate::engine::tally::TallyMode;
use crate::exit_code::ExitCode;
use crate::input::permutation_reader::Numbering;
use crate::input::permutation_reader::{
    InputCounts, InputTally, Observer, open_sources, read_permutations_observed,
};
use crate::input::producer::Producers;
use crate::interrupt;
use crate::output::Report;
use crate::output::progress::Progress;
use crate::output::text::plural;
use crate::report::notes::{MAX_LISTED_DECK, Note};
use crate::report::run::{Against, Origin, RunFacts, RunReport, build_run_report_with_deals};
use crate::report::run::{
    DealTheory, MarginalTheory, build_deal_report, build_marginal_report_with_deals,
};
use crate::report::run::{InputSummary, SequentialOutcome};
use crate::report::single::build_single_report;
use crate::stats::probability::Probability;

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
            check_theory(mode, deck, config.model, paths, config.quiet)
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
    let input = read_permutations_observed(
        &config.sources,
        inputs,
        &config.reader,
        stop,
        &mut |lines| progress.set(lines),
        (config.until_decided || refuse_unlisted).then_some(&mut observe as Observer),
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
        quiet: config.quiet,
        max_bias: config.max_bias,
    };
    let mut report = judge_input(input, &settings, elapsed_seconds, known, outcome)?;
    if let (Some(exec), Some(summary)) = (&config.exec, report.header.input.as_mut()) {
        summary.command = Some(exec.command.display());
        summary.copies = (exec.copies > 1).then_some(exec.copies as u64);
        summary.seed = Some(exec.seed);
    }
    let verdict = publish(&config.output, &report, out)?;
    Ok(if report.header.interrupted {
        eprintln!(
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
    } else {
        verdict
    })
}

/// What judging a tally of permutations needs besides the tally: `check`'s settings, or the
/// library API's.
#[derive(Debug, Clone)]
pub(crate) struct Judging {
    /// With `--against ALGORITHM`: the shuffle whose exact law the input should follow.
    pub model: Option<Shuffle>,
    /// Family-wise level.
    pub alpha: f64,
    /// Exact-law budget.
    pub max_paths: u64,
    /// Whether `--max-paths` was given (to say when the exact engine had no use for it).
    pub max_paths_given: bool,
    /// List every ordering in JSON and CSV whatever the deck.
    pub all_orderings: bool,
    /// `--labels`, if given.
    pub labels: Option<Vec<String>>,
    /// `--state-bits`, if given.
    pub state_bits: Option<u32>,
    /// No spinner while an exact law is computed.
    pub quiet: bool,
    /// `--max-bias SIZE`: the equivalence gate.
    pub max_bias: Option<BiasSize>,
}

/// Judge a tally of permutations: the theory of the model (if any) for the tally's mode, then
/// the report of the tally against uniform or that model. This is all of `check` after the
/// reading, and all of the library API after its shuffles. `known` is the theory when it was
/// already computed (by `--until-decided` at the first permutation), and `sequential` that
/// test's outcome.
pub(crate) fn judge_input(
    input: InputTally,
    settings: &Judging,
    elapsed_seconds: f64,
    known: Option<Theory>,
    sequential: Option<SequentialOutcome>,
) -> Result<RunReport, Failure> {
    let model = settings.model;
    // The theory can only be computed once the deck size is known (possibly from the input).
    let theory = match (known, &input.counts, model) {
        (Some(theory), _, _) => theory,
        (None, InputCounts::Deal(_), None) => Theory::Deal(DealTheory::default()),
        (None, InputCounts::Deal(tally), Some(shuffle)) => {
            let law = exact_law_shown(
                shuffle,
                input.deck,
                settings.max_paths,
                settings.max_paths_given,
                None,
                settings.quiet,
            )?
            .map_err(|source| NoLaw::CheckModel {
                shuffle: shuffle.label(),
                deck: input.deck,
                source,
            })?;
            Theory::Deal(DealTheory {
                positions: Some(law.position_matrix()),
                identity: Some(Probability::from_p(model_deal_identity(&law, tally.deal))),
            })
        }
        (None, InputCounts::Full(_), _) => check_theory(
            TallyMode::Full,
            input.deck,
            model,
            (settings.max_paths, settings.max_paths_given),
            settings.quiet,
        )?,
        (None, InputCounts::Marginal(_), _) => check_theory(
            TallyMode::Marginal,
            input.deck,
            model,
            (settings.max_paths, settings.max_paths_given),
            settings.quiet,
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
            format: input.format,
            command: None,
            seed: None,
            copies: None,
            labels: settings.labels.clone(),
            invalid_lines: input.invalid,
            invalid_examples: input.invalid_examples.clone(),
            state_bits: settings.state_bits,
        }),
        trials_requested: input.permutations,
        elapsed_seconds,
        interrupted: input.interrupted,
        alpha: settings.alpha,
        against: if model.is_some() {
            Against::Model
        } else {
            Against::Uniform
        },
        all_orderings: settings.all_orderings,
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
        (InputCounts::Deal(tally), Theory::Deal(theory)) => {
            let mut report = build_deal_report(&facts, tally, theory, input.deals);
            if input.numbering_assumed > 0 {
                report.notes.push(Note::NumberingAssumed {
                    deals: input.numbering_assumed,
                    deck: input.deck,
                });
            }
            report
        }
        _ => unreachable!("the tally and the theory follow the same mode"),
    };
    let report = match sequential {
        Some(outcome) => report.with_sequential(&facts, outcome),
        None => report,
    };
    super::gated(report, settings.max_bias)
}

/// What `check` compares its tally of `mode` on `deck` cards with: uniform, or the exact law of
/// `model` (`--against ALGORITHM`), which must exist. `max_paths` is the budget and whether it
/// was given. `merge` of check tallies asks the same.
pub(super) fn check_theory(
    mode: TallyMode,
    deck: usize,
    model: Option<Shuffle>,
    max_paths: (u64, bool),
    quiet: bool,
) -> Result<Theory, Failure> {
    let (max_paths, max_paths_given) = max_paths;
    Ok(match (mode, model) {
        (TallyMode::Full, None) => Theory::Full(None),
        (TallyMode::Full, Some(shuffle)) => Theory::Full(Some(Ok(Arc::new(
            exact_law_shown(shuffle, deck, max_paths, max_paths_given, None, quiet)?.map_err(
                |source| NoLaw::CheckModel {
                    shuffle: shuffle.label(),
                    deck,
                    source,
                },
            )?,
        )))),
        (TallyMode::Marginal, None) => Theory::Marginal(MarginalTheory::default()),
        (TallyMode::Marginal, Some(shuffle)) => {
            let theory = marginal_theory(shuffle, deck, max_paths, max_paths_given, None, quiet)?;
            if theory.source.is_none() {
                return Err(NoLaw::CheckModelMarginal {
                    shuffle: shuffle.label(),
                    deck,
                }
                .into());
            }
            Theory::Marginal(theory)
        }
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
