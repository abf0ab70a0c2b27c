//! The run report of a marginal tally: the positions, the identity and the permutation
//! statistics, each tested against uniform or against what the theory knows of the algorithm.

use super::deal_stream::deal_stream_part;
use super::{
    Against, Common, Identity, MarginalPart, MarginalTheory, ModePart, RunFacts, RunReport,
    StatisticResult, position_drafts, positions,
};
use crate::analysis::figures::{mean, observed_mean};
use crate::analysis::goodness_of_fit::{pooled_cells, statistic_test};
use crate::analysis::identity::{identity_test, uniform_ordering_probability};
use crate::analysis::power::power_summary;
use crate::analysis::test_note::TestNote;
use crate::analysis::{Draft, plain, ratio};
use crate::engine::deal_stream::DealStreamTally;
use crate::engine::marginal::MarginalTally;
use crate::engine::permutation::factorial;
use crate::report::notes::{MarginalLaws, Note, Warning};
use crate::theory::permutation_statistics::{Statistic, ValueLaw};

/// Build the report of a run or check in marginal mode.
///
/// The family: one χ² test per final position (the cards found there, against 1/n or the
/// theory's column), the exact binomial test of the identity (from the log of its probability,
/// which may be below f64's range), and one test per statistic
/// ([`crate::analysis::goodness_of_fit::statistic_test`]): χ² over cells pooled to an expected
/// count of at least 5, the exact binomial test outside the likeliest value when fewer than two
/// such cells exist, and an outright rejection when a value of probability zero is seen.
/// Against the model, a test whose law the model does not give is left out (and a note says
/// so).
pub fn build_marginal_report(
    facts: &RunFacts,
    tally: MarginalTally,
    theory: MarginalTheory,
) -> RunReport {
    build_marginal_report_with_deals(facts, tally, theory, None)
}

/// [`build_marginal_report`] with the tests of the stream of deals: the repeated decks (from
/// the deals' fingerprints), serial matches and slots join the family.
pub fn build_marginal_report_with_deals(
    facts: &RunFacts,
    tally: MarginalTally,
    theory: MarginalTheory,
    deals: Option<DealStreamTally>,
) -> RunReport {
    let n = tally.deck;
    let trials = tally.trials;
    let against_model = facts.against == Against::Model;
    let uniform_identity = uniform_ordering_probability(n);
    let position_counts = tally.position_matrix();
    let mut drafts = Vec::with_capacity(n + 1 + Statistic::ALL.len());
    let mut left_out = Vec::new();

    match (against_model, &theory.positions) {
        (true, None) => left_out.push("the positions".to_string()),
        (_, matrix) => drafts.extend(position_drafts(
            &position_counts,
            matrix.as_ref().filter(|_| against_model),
            trials,
        )),
    }
    match (against_model, theory.identity) {
        (true, None) => left_out.push("the identity".to_string()),
        (true, Some(p0)) => drafts.push(identity_test(tally.identity, trials, p0)),
        (false, _) => drafts.push(identity_test(tally.identity, trials, uniform_identity)),
    }
    let mut statistics = Vec::new();
    for (index, &statistic) in Statistic::ALL.iter().enumerate() {
        if !statistic.tallied_at(n) {
            continue;
        }
        let model = theory.statistic(index);
        if against_model && model.is_none() {
            left_out.push(statistic.name().to_string());
            continue;
        }
        let (result, draft) = statistic_result(statistic, &tally, model, against_model);
        statistics.push(result);
        drafts.push(draft);
    }
    let deal_stream = deals.map(|deals| {
        let (part, deal_drafts) = deal_stream_part(facts, deals, None, &position_counts, None);
        drafts.extend(deal_drafts);
        part
    });
    if drafts.is_empty() {
        drafts.push(Draft::nothing_to_test(TestNote::NoLawToTest));
    }

    let common = Common {
        header: facts.header(n, (n <= 20).then(|| factorial(n)), trials),
        drafts,
        notes: marginal_notes(facts, n, theory.source.as_deref(), left_out),
        warnings: Warning::per_position(n, trials, facts.trial_unit())
            .into_iter()
            .collect(),
        identity: Identity {
            count: tally.identity,
            frequency: ratio(tally.identity as f64, trials as f64),
            expected_frequency: uniform_identity.p,
            theory_frequency: theory.identity.map(|p0| p0.p),
            theory_fraction: None,
        },
        model: power_summary(None, Some(trials), facts.alpha, 1),
        positions: positions(position_counts, trials, theory.positions),
        deal_stream,
    };
    common.into_report(facts, ModePart::Marginal(MarginalPart { statistics }))
}

/// One statistic's table and test: its histogram against its law under the hypothesis (the
/// model's law `model` against the model, the uniform law otherwise), over pooled cells.
fn statistic_result(
    statistic: Statistic,
    tally: &MarginalTally,
    model: Option<&ValueLaw>,
    against_model: bool,
) -> (StatisticResult, Draft) {
    let trials = tally.trials;
    let uniform_law = statistic.uniform_value_law(tally.deck);
    let law = match model {
        Some(model) if against_model => model,
        _ => &uniform_law,
    };
    let uniform = &uniform_law.probabilities;
    let model = model.map(|m| &m.probabilities);
    let expected = &law.probabilities;
    let observed = tally.histogram(statistic);
    let bins = pooled_cells(law, trials);
    let draft = statistic_test(statistic.name(), observed, law, &bins, trials);
    // Values are shown up to the last one seen or of probability ≥ 1e-12 under some law.
    let significant = |p: &f64| *p >= 1e-12;
    let shown = observed
        .iter()
        .rposition(|&c| c > 0)
        .into_iter()
        .chain(expected.iter().rposition(significant))
        .chain(uniform.iter().rposition(significant))
        .chain(model.and_then(|m| m.iter().rposition(significant)))
        .max()
        .map_or(0, |last| last + 1);
    let result = StatisticResult {
        name: statistic.name(),
        definition: statistic.definition(),
        observed: observed[..shown].to_vec(),
        mean_observed: observed_mean(observed, trials),
        mean_expected: mean(expected.iter().copied()),
        expected: expected[..shown].to_vec(),
        uniform: uniform[..shown].to_vec(),
        theory: model.map(|m| m[..shown].to_vec()),
        bins: bins.iter().map(|b| [b.start, b.end]).collect(),
        chi_square: draft.statistic,
        df: draft.df.unwrap_or(0.0),
        p_value: plain(draft.p),
        log10_p_value: draft.p.log10,
    };
    (result, draft)
}

/// The notes of a marginal report: the riffle's theory, what is tallied and where the theory
/// comes from, the parts left out against the model, skipped lines.
fn marginal_notes(
    facts: &RunFacts,
    n: usize,
    source: Option<&str>,
    left_out: Vec<String>,
) -> Vec<Note> {
    let mut notes = Vec::new();
    notes.extend(facts.riffle_note(n));
    notes.extend(facts.reachable_note(n));
    let laws = match (source, facts.shuffle) {
        (Some(source), _) => MarginalLaws::From(source.to_string()),
        (None, None) => MarginalLaws::NoAlgorithm,
        (None, Some(shuffle)) => MarginalLaws::Unknown {
            algorithm: shuffle.label(),
        },
    };
    let untallied: Vec<String> = Statistic::ALL
        .into_iter()
        .filter(|s| !s.tallied_at(n))
        .map(|s| format!("{} (up to {} cards)", s.name(), s.max_exact_deck()))
        .collect();
    if !untallied.is_empty() {
        notes.push(Note::UntalliedStatistics {
            deck: n,
            statistics: untallied,
        });
    }
    notes.push(Note::MarginalMode {
        deck: n,
        statistics: Statistic::tallied(n).count(),
        laws,
    });
    if !left_out.is_empty() {
        notes.push(Note::LeftOut { parts: left_out });
    }
    notes.extend(facts.skipped_lines_note());
    notes
}
