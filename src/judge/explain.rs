//! `--explain`: the diagnosis of a tally — the exact law of every model of the grid computed
//! here (one at a time, so that a 10-card deck holds one law in memory), the fits and the
//! signatures from [`crate::analysis::diagnosis`].

use super::{Tallied, Watch};
use crate::analysis::diagnosis::StreamFacts;
use crate::analysis::diagnosis::{
    Diagnosis, Marginals, Unfitted, diagnose_full, diagnose_signatures_only, fit_model,
    marginals_of_full, model_grid, signatures, sparse_limitation,
};
use crate::report::run::RunReport;
use crate::theory::exact::{ExactError, MAX_EXACT_DECK, exact_law_under, uniform_law};

/// The diagnosis of `tally` at family level `alpha`, the exact laws within `max_paths` choice
/// paths each; `None` for a tally of dealt hands, which has no deck order to diagnose.
pub fn diagnose(
    tally: &Tallied,
    alpha: f64,
    max_paths: u64,
    watch: &dyn Watch,
) -> Option<Diagnosis> {
    match tally {
        Tallied::Deal(_) => None,
        Tallied::Marginal(tally) => {
            let seen = signatures(
                &Marginals {
                    deck: tally.deck,
                    trials: tally.trials,
                    positions: &tally.positions,
                    identity: tally.identity,
                },
                alpha,
            );
            Some(diagnose_signatures_only(
                seen,
                format!(
                    "the models are fitted in full mode only (every ordering tallied, decks up \
                     to {MAX_EXACT_DECK} cards); this {}-card tally holds the marginals, so \
                     only the signatures are read",
                    tally.deck
                ),
            ))
        }
        Tallied::Full(tally) => {
            let deck = tally.deck;
            let (positions, identity) = marginals_of_full(deck, &tally.counts);
            let seen = signatures(
                &Marginals {
                    deck,
                    trials: tally.trials,
                    positions: &positions,
                    identity,
                },
                alpha,
            );
            if deck > MAX_EXACT_DECK {
                return Some(diagnose_signatures_only(
                    seen,
                    format!(
                        "exact laws are computed up to {MAX_EXACT_DECK} cards, so the models \
                         are not fitted on {deck} cards; only the signatures are read"
                    ),
                ));
            }
            let models = model_grid();
            watch.phase_started(&format!(
                "fitting {} models' exact laws on {deck} cards",
                models.len()
            ));
            let mut fits = Vec::with_capacity(models.len());
            let mut unfitted = Vec::new();
            for model in models {
                let law = if model.is_uniform() {
                    Ok(uniform_law(deck))
                } else {
                    exact_law_under(model.shuffle, deck, max_paths, model.choices)
                };
                match law {
                    Ok(law) => fits.push(fit_model(
                        model.label(),
                        model.is_uniform(),
                        &tally.counts,
                        law.probabilities.as_slice(),
                        alpha,
                    )),
                    Err(ExactError::Interrupted) => {
                        // Ctrl-C while the models are fitted: the tally is whole, so the
                        // report is still written (the command exits 130), with the
                        // signatures only.
                        watch.phase_finished();
                        return Some(diagnose_signatures_only(
                            seen,
                            format!(
                                "Ctrl-C stopped the fitting of the models' exact laws (at {} on \
                                 {deck} cards), so only the signatures are read",
                                model.label()
                            ),
                        ));
                    }
                    Err(error) => unfitted.push(Unfitted {
                        model: model.label(),
                        reason: error.to_string(),
                    }),
                }
            }
            watch.phase_finished();
            Some(diagnose_full(
                fits,
                unfitted,
                seen,
                sparse_limitation(deck, tally.trials),
            ))
        }
    }
}

/// Add the findings between deals to `report`'s diagnosis, if it has one: the failed tests of
/// the stream, and the counts of repeats the sentences quote.
pub fn explain_stream(report: &mut RunReport) {
    let Some(diagnosis) = report.diagnosis.as_mut() else {
        return;
    };
    let stream = report.deal_stream.as_ref();
    let facts = StreamFacts {
        deals: stream.map_or(report.header.trials, |stream| stream.deals),
        distinct_decks: stream.and_then(|stream| stream.repeats.distinct),
        repeated_in_a_row: stream
            .filter(|stream| stream.dealt == stream.deck)
            .and_then(|stream| {
                let observed = *stream.matches.observed.get(stream.deck)?;
                let share = *stream.matches.expected.get(stream.deck)?;
                Some((observed, share * stream.pairs as f64))
            }),
    };
    diagnosis.add_stream_findings(&report.tests, &facts);
}
