//! `theory`: an algorithm's exact law, or its mixing curve over several passes.

use std::sync::Arc;

use super::{Failure, Interruption, NoLaw, OnTerminal, open_output, write_report};
use crate::config::TheoryConfig;
use crate::commands::exit_code::ExitCode;
use crate::judge::exact_law;
use crate::output::Report;
use crate::output::progress::Progress;
use crate::report::mixing::build_mixing_report;
use crate::report::theory::build_theory_report;
use crate::theory::exact::ExactError;

pub(super) fn theory(config: TheoryConfig) -> Result<ExitCode, Failure> {
    let out = open_output(&config.output)?;
    if let Some(range) = config.mixing {
        let progress = Progress::phase(
            &format!(
                "computing the mixing curve of {} on {} cards",
                config.shuffle.algorithm.name(),
                config.deck
            ),
            config.quiet,
        );
        let report = build_mixing_report(
            config.shuffle,
            config.deck,
            range.first,
            range.last,
            config.max_paths,
        );
        progress.finish();
        let report = report.map_err(|error| match error {
            ExactError::Interrupted => Failure::Interrupted(Interruption::MixingCurve),
            source => NoLaw::MixingCurve {
                first: range.first,
                last: range.last,
                algorithm: config.shuffle.algorithm.name().to_string(),
                deck: config.deck,
                source,
            }
            .into(),
        })?;
        write_report(&config.output, &Report::Mixing(&report), out)?;
        return Ok(ExitCode::NoBiasDetected);
    }
    let law = exact_law(
        config.shuffle,
        config.deck,
        (config.max_paths, config.max_paths_given),
        config.law,
        &OnTerminal::new(config.quiet),
    )?
    .map_err(|source| NoLaw::Theory {
        shuffle: config.shuffle.label(),
        deck: config.deck,
        source,
    })?;
    let report = build_theory_report(
        config.shuffle,
        Arc::new(law),
        config.alpha,
        config.all_orderings,
        config.state_bits,
    );
    let report = match config.max_bias {
        Some(size) => report.with_size_plan(size),
        None => report,
    };
    write_report(&config.output, &Report::Theory(&report), out)?;
    Ok(ExitCode::NoBiasDetected)
}
