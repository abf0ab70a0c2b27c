//! The run report of a deal tally (`check --deal K`): the card in each slot, the identity of
//! a deal, and with `--game poker` the hand categories and consecutive categories, each tested
//! against a uniform deal (or, for the slots and the identity, against the model's marginals);
//! and the tests of the stream of deals (repeated deals, serial matches and slots between
//! consecutive deals), which join the same family.

use super::{
    CategoryRow, Common, DealPart, Identity, ModePart, PokerPart, RunFacts, RunReport,
    TransitionPart, deal_stream::deal_stream_part, positions,
};
use crate::analysis::dealt_hand::{deal_identity_test, slot_drafts, uniform_deal_probability};
use crate::analysis::poker::{category_test, transition_test};
use crate::analysis::power::power_summary;
use crate::analysis::{Draft, plain, ratio};
use crate::engine::deal::{DealTally, PokerTally};
use crate::engine::deal_stream::DealStreamTally;
use crate::report::notes::{Note, TrialUnit, Warning};
use crate::stats::probability::Probability;
use crate::theory::poker::Category;

/// What the model (`--against ALGORITHM`) gives of a deal, when its exact law is known.
#[derive(Debug, Clone, Default)]
pub struct DealTheory {
    /// The model's position matrix `[card][position]` (n×n; the slots use its first K
    /// columns).
    pub positions: Option<Vec<Vec<f64>>>,
    /// The model's probability that a deal is the top K cards in their starting order.
    pub identity: Option<Probability>,
}

/// Build the report of `check --deal K`.
///
/// The family, in order: one χ² test per slot (`slot 0` … `slot K−1`: the cards dealt there
/// against 1/n, or against the model's position matrix column), the exact binomial test of the
/// identity (the top K cards in order, probability (n−K)!/n! or the model's), and with
/// `--game poker` the category test (`poker hands`) and the test of consecutive categories
/// (`poker transitions`); then, when `stream` holds the stream of deals in line order (not with
/// `--no-deal-tests`), the tests of the stream as a whole: `repeated deals` (M = n!/(n−K)!),
/// `serial matches` and `serial slots` (see [`crate::analysis::deal_stream`]).
pub fn build_deal_report(
    facts: &RunFacts,
    tally: DealTally,
    theory: DealTheory,
    stream: Option<DealStreamTally>,
) -> RunReport {
    let n = tally.deck;
    let k = tally.deal;
    let deals = tally.deals;
    let slot_counts = tally.slot_matrix();
    let model_slots: Option<Vec<Vec<f64>>> = theory
        .positions
        .as_ref()
        .map(|matrix| matrix.iter().map(|row| row[..k].to_vec()).collect());
    let uniform_identity = uniform_deal_probability(n, k);
    let identity_law = theory.identity.unwrap_or(uniform_identity);
    let poker = tally.poker.as_ref().map(|poker| poker_part(poker, deals));
    let stream = stream.map(|stream| deal_stream_part(facts, stream, None, &slot_counts, None));
    let drafts = family(
        slot_drafts(&slot_counts, model_slots.as_deref(), deals),
        deal_identity_test(tally.identity, deals, identity_law),
        poker.as_ref().map(|(_, drafts)| drafts.clone()),
        stream.as_ref().map(|(_, drafts)| drafts.clone()),
    );
    let mut notes = vec![Note::DealMode {
        deal: k,
        deck: n,
        poker: poker.is_some(),
        stream: stream.is_some(),
    }];
    notes.extend(facts.reachable_note(n));
    notes.extend(facts.skipped_lines_note());
    let common = Common {
        header: facts.header(n, possible_deals(n, k), deals),
        drafts,
        notes,
        warnings: Warning::per_position(n, deals, TrialUnit::Deals)
            .into_iter()
            .collect(),
        identity: Identity {
            count: tally.identity,
            frequency: ratio(tally.identity as f64, deals as f64),
            expected_frequency: uniform_identity.p,
            theory_frequency: theory.identity.map(|p| p.p),
            theory_fraction: None,
        },
        model: power_summary(None, Some(deals), facts.alpha, 1),
        positions: positions(slot_counts, deals, model_slots),
        deal_stream: stream.map(|(part, _)| part),
    };
    let part = DealPart {
        cards_per_deal: k,
        deck: n,
        possible_deals: possible_deals(n, k),
        game: poker.as_ref().map(|_| "poker"),
        poker: poker.map(|(part, _)| part),
    };
    common.into_report(facts, ModePart::Deal(part))
}

/// The family of a deal report, in its order: the slots, the identity, the game's tests, then
/// the tests of the stream of deals (repeated deals, dependence between consecutive deals);
/// Holm's adjustment and the verdict cover them all alike.
fn family(
    slots: Vec<Draft>,
    identity: Draft,
    game: Option<Vec<Draft>>,
    stream: Option<Vec<Draft>>,
) -> Vec<Draft> {
    let mut drafts = slots;
    drafts.push(identity);
    drafts.extend(game.into_iter().flatten());
    drafts.extend(stream.into_iter().flatten());
    drafts
}

/// n!/(n−K)!, the number of ordered deals of K cards from n, when it fits in 64 bits.
fn possible_deals(n: usize, k: usize) -> Option<u64> {
    ((n - k + 1)..=n).try_fold(1u64, |product, factor| product.checked_mul(factor as u64))
}

/// The poker part of the report and its two drafts (categories, transitions).
fn poker_part(poker: &PokerTally, hands: u64) -> (PokerPart, Vec<Draft>) {
    let (categories_draft, cells) = category_test(&poker.categories, hands);
    let transitions = transition_test(&poker.transitions);
    let categories = Category::ALL
        .iter()
        .map(|&category| {
            let observed = poker.categories[category.index()];
            CategoryRow {
                category: category.name(),
                observed,
                frequency: ratio(observed as f64, hands as f64),
                exact_count: category.exact_count(),
                probability: category.probability(),
                expected: category.probability() * hands as f64,
            }
        })
        .collect();
    let part = PokerPart {
        categories,
        cells: cells.iter().map(|c| [c.start, c.end]).collect(),
        chi_square: categories_draft.statistic,
        df: categories_draft.df.unwrap_or(0.0),
        p_value: plain(categories_draft.p),
        log10_p_value: categories_draft.p.log10,
        transitions: TransitionPart {
            counts: poker.transitions.iter().map(|row| row.to_vec()).collect(),
            classes: transitions
                .classes
                .iter()
                .map(|c| [c.start, c.end])
                .collect(),
            pooled: transitions.pooled.clone(),
            smallest_expected: transitions.smallest_expected,
            chi_square: transitions.draft.statistic,
            df: transitions.draft.df.unwrap_or(0.0),
            p_value: plain(transitions.draft.p),
            log10_p_value: transitions.draft.p.log10,
        },
    };
    (part, vec![categories_draft, transitions.draft])
}
