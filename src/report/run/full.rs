//! The run report of a full tally: every ordering's count tested with Pearson's χ², the
//! identity and the positions tested beside it, and the figures only a full tally has.

use std::sync::Arc;

use super::deal_stream::deal_stream_part;
use super::{
    Against, Common, FullPart, Identity, ModePart, PermutationTable, RunFacts, RunReport,
    position_drafts, positions,
};
use crate::analysis::figures::{count_figures, position_counts};
use crate::analysis::goodness_of_fit::goodness_of_fit;
use crate::analysis::identity::identity_test;
use crate::analysis::power::power_summary;
use crate::analysis::{Draft, MIN_EXPECTED_COUNT, TestMethod, ratio};
use crate::engine::deal_stream::DealStreamTally;
use crate::engine::permutation::factorial;
use crate::engine::simulate::Tally;
use crate::report::notes::{MAX_LISTED_DECK, Note, Warning};
use crate::stats::chi_square::chi_square_two_sided;
use crate::stats::probability::Probability;
use crate::theory::exact::{ExactError, Law};

/// Build the report of a run from its tally and, when computed, the algorithm's exact law.
///
/// The family: Pearson's χ² over every ordering, the exact binomial test of the identity, and
/// one χ² test per final position, against uniform or the exact law. `law` is None when there
/// is no algorithm (`check` against uniform).
pub fn build_run_report(
    facts: &RunFacts,
    tally: Tally,
    law: Option<Result<Arc<Law>, ExactError>>,
) -> RunReport {
    build_run_report_with_deals(facts, tally, law, None)
}

/// [`build_run_report`] with the tests of the stream of deals: the repeated decks (from the
/// ordering counts), serial matches, slots and compositions join the family.
pub fn build_run_report_with_deals(
    facts: &RunFacts,
    tally: Tally,
    law: Option<Result<Arc<Law>, ExactError>>,
    deals: Option<DealStreamTally>,
) -> RunReport {
    let n = tally.deck;
    let trials = tally.trials;
    let counts = Arc::new(tally.counts);
    let model = law.as_ref().and_then(|law| law.as_ref().ok());
    let hypothesis = model.filter(|_| facts.against == Against::Model);
    let position_counts = position_counts(n, &counts);
    let theory_matrix = model.map(|law| law.position_matrix());

    let uniform_p = 1.0 / counts.len() as f64;
    // The tests of the stream of deals read the tally but nothing else here computes: on a
    // second thread, beside the ordering tests and figures (each a pass over n! counts).
    let (drafts, part, deal_stream) = std::thread::scope(|scope| {
        let deal_stream = deals.map(|deals| {
            let (counts, position_counts) = (&counts, &position_counts);
            scope.spawn(move || {
                deal_stream_part(
                    facts,
                    deals,
                    Some(counts),
                    position_counts,
                    hypothesis.map(|law| &**law),
                )
            })
        });
        let mut drafts = vec![full_permutations_test(&counts, hypothesis, trials)];
        let identity_p0 = hypothesis.map_or(uniform_p, |law| law.probabilities[0]);
        drafts.push(identity_test(
            counts[0],
            trials,
            Probability::from_p(identity_p0),
        ));
        let tested_matrix = theory_matrix.as_ref().filter(|_| hypothesis.is_some());
        drafts.extend(position_drafts(&position_counts, tested_matrix, trials));
        let part = full_part(facts, n, &counts, model, trials);
        let deal_stream = deal_stream.map(|worker| {
            let (part, deal_drafts) = worker.join().unwrap_or_else(|panic| {
                std::panic::resume_unwind(panic);
            });
            drafts.extend(deal_drafts);
            part
        });
        (drafts, part, deal_stream)
    });
    let family_size = drafts.len();
    let listed = part.permutations.listed();
    let common = Common {
        header: facts.header(n, Some(factorial(n)), trials),
        drafts,
        notes: full_notes(facts, n, law.as_ref(), listed),
        warnings: full_warnings(facts, hypothesis, n, trials),
        identity: Identity {
            count: counts[0],
            frequency: ratio(counts[0] as f64, trials as f64),
            expected_frequency: uniform_p,
            theory_frequency: model.map(|l| l.probabilities[0]),
            theory_fraction: model.and_then(|l| l.fraction(0)),
        },
        model: power_summary(law.as_ref(), Some(trials), facts.alpha, family_size),
        positions: positions(position_counts, trials, theory_matrix),
        deal_stream,
    };
    common.into_report(facts, ModePart::Full(part))
}

/// Pearson's χ² over every ordering, against uniform or the law `hypothesis`, two-sided.
///
/// The upper tail finds counts too far from the law; the lower tail finds counts *too close*
/// to it, as no sequence of independent shuffles leaves them (a clock-seeded stream whose decks
/// follow a pattern, a file that lists the orderings in turn): the generator batteries reject
/// both tails (L'Ecuyer & Simard 2007, TestU01). The lower tail is used only where χ² is its law
/// at both ends, every cell expected at least [`MIN_EXPECTED_COUNT`] times (Cochran 1954);
/// below that the test stays one-sided. A statistic of exactly 0 (every count equal to its
/// expectation) is read at half the smallest step a count can make, 1/e_max (the continuity
/// correction at the lattice's first point: k/N for uniform), not at 0 where the continuous
/// law would say p = 0.
///
/// A lower-tail rejection is a defect wherever the tally should be a sample of independent
/// shuffles — every `run`, and `check` of a program's output. It is not one for a file that
/// lists each ordering equally often on purpose (a balanced design, an enumeration): such a
/// file is not a sample of shuffles, and `check` is the wrong test for it.
fn full_permutations_test(counts: &[u64], hypothesis: Option<&Arc<Law>>, trials: u64) -> Draft {
    let uniform_p = 1.0 / counts.len() as f64;
    let probability = |rank: usize| hypothesis.map_or(uniform_p, |law| law.probabilities[rank]);
    let mut draft = goodness_of_fit(
        "permutations".to_string(),
        counts
            .iter()
            .enumerate()
            .map(|(rank, &observed)| (observed, probability(rank))),
        trials,
    );
    let (smallest, largest) = (0..counts.len())
        .map(probability)
        .filter(|&p| p > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), p| {
            (lo.min(p), hi.max(p))
        });
    let trials_f = trials as f64;
    if let (None, Some(df)) = (&draft.note, draft.df)
        && smallest * trials_f >= MIN_EXPECTED_COUNT
    {
        let lower_at = draft.statistic.max(1.0 / (largest * trials_f));
        draft.p = chi_square_two_sided(draft.statistic, lower_at, df);
        draft.method = TestMethod::PearsonChiSquareTwoSided;
    }
    draft
}

/// The figures only a full tally has: ratios, distances, extremes and the ordering table.
fn full_part(
    facts: &RunFacts,
    n: usize,
    counts: &Arc<Vec<u64>>,
    model: Option<&Arc<Law>>,
    trials: u64,
) -> FullPart {
    let table = PermutationTable {
        deck: n,
        trials,
        counts: counts.clone(),
        law: model.cloned(),
        listed: facts.all_orderings || n <= MAX_LISTED_DECK,
    };
    let figures = count_figures(counts, trials);
    FullPart {
        max_min_ratio: figures.max_min_ratio,
        max_min_ratio_theory: model.map(|l| l.max_min_ratio()).filter(|r| r.is_finite()),
        never_seen: figures.never_seen,
        tv_distance: figures.tv_distance,
        tv_distance_theory: model.map(|l| l.tv_distance_from_uniform()),
        most_frequent: figures.most.into_iter().map(|r| table.row(r)).collect(),
        least_frequent: figures.least.into_iter().map(|r| table.row(r)).collect(),
        permutations: table,
    }
}

/// The notes of a full report: the riffle's theory, unreachable orderings or why there is no
/// law, skipped lines, orderings not listed.
fn full_notes(
    facts: &RunFacts,
    n: usize,
    law: Option<&Result<Arc<Law>, ExactError>>,
    listed: bool,
) -> Vec<Note> {
    let mut notes = Vec::new();
    notes.extend(facts.riffle_note(n));
    notes.extend(facts.reachable_note(n));
    match law {
        Some(Ok(law)) => {
            let support = law.support_size() as u64;
            let orderings = factorial(n);
            if support < orderings {
                notes.push(Note::Unreachable {
                    algorithm: facts.algorithm_label(),
                    support,
                    orderings,
                });
            }
        }
        Some(Err(error)) => notes.push(Note::NoExactLaw {
            algorithm: facts.algorithm_label(),
            deck: n,
            reason: error.to_string(),
        }),
        None => {}
    }
    notes.extend(facts.skipped_lines_note());
    if !listed {
        notes.push(Note::UnlistedOrderings { deck: n });
    }
    notes
}

/// The warning of a full report whose smallest expected count per ordering is below 5.
fn full_warnings(
    facts: &RunFacts,
    hypothesis: Option<&Arc<Law>>,
    n: usize,
    trials: u64,
) -> Vec<Warning> {
    let smallest_p = match hypothesis {
        None => 1.0 / factorial(n) as f64,
        Some(law) => law
            .probabilities
            .iter()
            .copied()
            .filter(|&p| p > 0.0)
            .fold(f64::INFINITY, f64::min),
    };
    Warning::per_ordering(smallest_p, trials, facts.trial_unit())
        .into_iter()
        .collect()
}
