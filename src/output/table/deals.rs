//! The sections of deals: the tests of the stream of deals, the slot tables of a deal run and the
//! poker hands.

use super::cells::{
    figures_table,
    MATRIX_TABLE_MAX_DECK, align_right_from, deviation_row, identity_row, new_table, percent,
    statistic_text,
};
use crate::analysis::deal_stream::CollisionLaw;
use crate::analysis::decision::format_p;
use crate::input::permutation_reader::Numbering;
use crate::output::document::{Document, TableBlock};
use crate::output::text::{group, plural};
use crate::report::run::{DealPart, DealStreamReport, PokerPart, RunReport};
use crate::theory::poker::{Category, card_name};

/// The tests of the stream of deals: what was counted, the reachable decks, the matches'
/// histogram, the slot tables, and the tests not run with their reasons.
pub(super) fn deal_stream_section(deals: &DealStreamReport, doc: &mut Document) {
    let noun = if deals.dealt == deals.deck {
        "deck"
    } else {
        "deal"
    };
    doc.heading(format!(
        "Deals in sequence: {} in {}, {} consecutive pairs",
        plural(deals.deals, noun),
        deals.order,
        group(deals.pairs)
    ));
    let repeats = &deals.repeats;
    if let (Some(pairs), Some(distinct)) = (repeats.repeated_pairs, repeats.distinct) {
        let law = match (repeats.expected_pairs, repeats.law) {
            (Some(expected), Some(law)) => format!(
                " (expected {} under the hypothesis; {} law{})",
                small_number(expected),
                match law {
                    CollisionLaw::Poisson => "Poisson",
                    CollisionLaw::NormalOccupancy => "occupancy, normal",
                },
                repeats
                    .poisson_error_bound
                    .filter(|_| law == CollisionLaw::Poisson)
                    .map_or(String::new(), |bound| format!(
                        ", error ≤ {}",
                        small_number(bound)
                    ))
            ),
            _ => String::new(),
        };
        doc.text(
            format!(
                "repeated {noun}s: {} of identical {noun}s, {} distinct{law}",
                plural(pairs, "pair"),
                group(distinct)
            ),
            "  ",
        );
        if let Some(summary) = &repeats.reachable_summary {
            doc.text(format!("  {summary}"), "    ");
        }
        if let Some(sample) = &repeats.sample {
            doc.text(
                format!(
                    "  counted in a sample (the fingerprints of every {noun} would pass the \
                     memory limit): the {} {noun}s whose value falls in 1 in {} of the {noun}s \
                     (1 in 2^{}); a source reaching up to {:.2e} equally likely {noun}s shows a \
                     repeat in it with probability 0.9 ({:.2e} with every {noun} kept)",
                    group(sample.deals_sampled),
                    group(sample.one_in),
                    sample.level,
                    sample.sees_repeats_up_to,
                    sample.unsampled_sees_repeats_up_to
                ),
                "    ",
            );
        }
    }
    let matches = &deals.matches;
    doc.text(
        format!(
            "serial matches: {:.4} slots on average show the same card in consecutive deals \
             ({:.4} expected if the deals are independent, whatever the law of one deal; {:.4} \
             if they are also uniform)",
            matches.mean_observed, matches.mean_if_independent, matches.mean_expected
        ),
        "  ",
    );
    let independent = matches.expected_if_independent.as_ref();
    let mut histogram = new_table(if independent.is_some() {
        &["same slots", "pairs", "if independent", "if uniform"][..]
    } else {
        &["same slots", "pairs", "if uniform"][..]
    });
    let shown = matches
        .observed
        .iter()
        .rposition(|&c| c > 0)
        .into_iter()
        .chain(
            matches
                .expected
                .iter()
                .rposition(|&p| p * deals.pairs as f64 >= 0.5),
        )
        .max()
        .map_or(0, |last| last + 1);
    for (m, (&observed, &p)) in matches.observed.iter().zip(&matches.expected).enumerate() {
        if m < shown {
            let mut row = vec![m.to_string(), group(observed)];
            if let Some(q) = independent {
                row.push(format!("{:.1}", q[m] * deals.pairs as f64));
            }
            row.push(format!("{:.1}", p * deals.pairs as f64));
            histogram.add_row(row);
        }
    }
    align_right_from(&mut histogram, 0);
    doc.table(histogram);
    if let Some(worst) = deals
        .slots
        .tables
        .iter()
        .min_by(|a, b| a.log10_p_value.total_cmp(&b.log10_p_value))
    {
        let smallest = deals
            .slots
            .tables
            .iter()
            .map(|t| t.min_expected)
            .fold(f64::INFINITY, f64::min);
        doc.text(
            format!(
                "serial slots: one {0}×{0} table per slot (card groups), independence χ²;                  smallest p {1} at slot {2} (χ² {3}, df {4}); smallest expected count {5:.1}",
                deals.slots.groups,
                format_p(worst.log10_p_value),
                worst.slot,
                statistic_text(worst.statistic),
                group(worst.df as u64),
                smallest
            ),
            "  ",
        );
    }
    if let Some(compositions) = &deals.compositions {
        let repeated = compositions
            .identity_if_independent
            .map_or(String::new(), |expected| {
                format!(
                    "; the deck repeated exactly {} times ({expected:.1} expected if the decks \
                     are independent)",
                    group(compositions.identity_observed)
                )
            });
        doc.text(
            format!(
                "serial compositions: {} of the {} orderings never seen as σ(t+1)∘σ(t)⁻¹ \
                 ({:.1} expected each if the decks are independent and uniform){repeated}",
                group(compositions.never_seen),
                group(compositions.orderings),
                compositions.expected_per_ordering
            ),
            "  ",
        );
    }
    if let Some(mallows) = &deals.mallows {
        doc.text(
            format!(
                "serial Mallows MMD: mean kernel exp(−λ·d) of consecutive decks {:.4e} (exact \
                 {:.4e} if independent and uniform; d Kendall's distance, λ = {:.4}, {}{}), \
                 z = {:.2}",
                mallows.mean_kernel,
                mallows.exact_mean,
                mallows.lambda,
                plural(mallows.pairs, "pair"),
                if mallows.stride > 1 {
                    format!(", one in {}", mallows.stride)
                } else {
                    String::new()
                },
                mallows.z
            ),
            "  ",
        );
    }
    for skipped in &deals.not_run {
        doc.text(
            format!("not run: {}: {}", skipped.test, skipped.reason),
            "    ",
        );
    }
}

/// A figure that may be tiny: `0.0312`, `5.6e-58`.
pub(super) fn small_number(value: f64) -> String {
    if value == 0.0 || value >= 1e-3 {
        format!("{value:.4}")
    } else {
        format!("{value:.1e}")
    }
}

/// The sections of a deal report after the tests: its figures, the poker hands, the slots.
pub(super) fn deal_sections(run: &RunReport, deal: &DealPart, doc: &mut Document) {
    let label = run.shuffle_label().unwrap_or_else(|| "none".to_string());
    // Cards as the input wrote them: by name, by label, or by number (0-based).
    let input = run.header.input.as_ref();
    let names = input.is_some_and(|input| input.numbering == Numbering::StandardCards);
    let labels = input.and_then(|input| input.labels.as_deref());
    let card = |c: usize| match (names, labels) {
        (true, _) => card_name(c as u16),
        (false, Some(labels)) => labels[c].clone(),
        (false, None) => c.to_string(),
    };
    let with_theory = run.header.algorithm.is_some();
    doc.blank();
    let deviation = &run.positions.largest_deviation;
    let rows = vec![
        identity_row(
            format!("top {} cards in order", deal.cards_per_deal),
            &run.identity,
        ),
        deviation_row(
            format!(
                "card {} in slot {}",
                card(deviation.card),
                deviation.position
            ),
            &run.positions,
        ),
    ];
    doc.table(figures_table(&label, with_theory, rows));
    doc.text(
        format!(
            "(the slot row is the card and slot furthest from uniform: {:+.3} percentage points)",
            deviation.deviation * 100.0
        ),
        "  ",
    );
    if let Some(poker) = &deal.poker {
        poker_sections(poker, run.header.trials, doc);
    }
    doc.blank();
    if run.header.deck <= MATRIX_TABLE_MAX_DECK {
        doc.text(
            format!(
                "Slots: % of deals in which a card (row) was dealt in a slot (column, 0 = first \
                 card dealt); uniform {:.2}%",
                run.positions.expected_frequency * 100.0
            ),
            "  ",
        );
        doc.table(slot_table(&run.positions.frequencies, &card));
        if let Some(theory) = &run.positions.theory {
            doc.heading(format!("Exact theory of {label} (%)"));
            doc.table(slot_table(theory, &card));
        }
    } else {
        doc.text(
            format!(
                "Slots: the {}×{} matrix of which card was dealt in which slot is in --format \
                 json and --format csv --table positions.",
                run.header.deck, deal.cards_per_deal
            ),
            "  ",
        );
    }
}

/// A slot matrix in percent: rows are cards, columns slots.
pub(super) fn slot_table(matrix: &[Vec<f64>], card: &dyn Fn(usize) -> String) -> TableBlock {
    let slots = matrix.first().map_or(0, Vec::len);
    let mut header = vec!["card".to_string()];
    header.extend((0..slots).map(|slot| format!("slot {slot}")));
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = new_table(&header_refs);
    for (c, row) in matrix.iter().enumerate() {
        let mut cells = vec![card(c)];
        cells.extend(row.iter().map(|f| format!("{:.2}", f * 100.0)));
        table.add_row(cells);
    }
    align_right_from(&mut table, 0);
    table
}

/// Short names of the poker categories, for the table of consecutive hands.
pub(super) const CATEGORY_SHORT: [&str; 9] = ["HC", "1P", "2P", "3K", "St", "Fl", "FH", "4K", "SF"];

/// A class of categories by short names: `2P` or `St–SF`.
pub(super) fn class_label(class: &[usize; 2]) -> String {
    if class[1] - class[0] == 1 {
        CATEGORY_SHORT[class[0]].to_string()
    } else {
        format!(
            "{}–{}",
            CATEGORY_SHORT[class[0]],
            CATEGORY_SHORT[class[1] - 1]
        )
    }
}

/// The poker categories against their exact counts, and consecutive hands' categories.
pub(super) fn poker_sections(poker: &PokerPart, hands: u64, doc: &mut Document) {
    doc.blank();
    let test = if poker.cells.len() < 2 {
        format!(
            "exact binomial, {} outside the likeliest category",
            group(poker.chi_square as u64)
        )
    } else {
        format!("χ² {}, df {}", statistic_text(poker.chi_square), poker.df)
    };
    doc.heading(format!(
        "poker hands: each hand's category against its exact count out of 2,598,960 ({test}, \
         p {})",
        format_p(poker.log10_p_value)
    ));
    let mut table = new_table(&[
        "category",
        "observed",
        "%",
        "exact count",
        "uniform %",
        "expected",
    ]);
    for row in &poker.categories {
        table.add_row(vec![
            row.category.to_string(),
            group(row.observed),
            percent(row.frequency),
            group(row.exact_count),
            percent(row.probability),
            format!("{:.1}", row.expected),
        ]);
    }
    align_right_from(&mut table, 1);
    doc.table(table);
    let cells: Vec<String> = poker
        .cells
        .iter()
        .map(|cell| {
            let first = Category::ALL[cell[0]].name();
            let last = Category::ALL[cell[1] - 1].name();
            if cell[1] - cell[0] == 1 {
                first.to_string()
            } else {
                format!("{first} to {last}")
            }
        })
        .collect();
    doc.text(
        format!(
            "(χ² cells, each expected ≥ 5 times in {} hands: {})",
            group(hands),
            cells.join(" | ")
        ),
        "  ",
    );
    let transitions = &poker.transitions;
    doc.blank();
    doc.heading(format!(
        "poker transitions: each hand's category against the previous hand's (independence χ² \
         {}, df {}, p {})",
        statistic_text(transitions.chi_square),
        transitions.df,
        format_p(transitions.log10_p_value)
    ));
    let pairs: u64 = transitions.pooled.iter().flatten().sum();
    let rows: Vec<u64> = transitions.pooled.iter().map(|r| r.iter().sum()).collect();
    let columns: Vec<u64> = (0..transitions.classes.len())
        .map(|b| transitions.pooled.iter().map(|r| r[b]).sum())
        .collect();
    let mut header = vec!["previous \\ next".to_string()];
    header.extend(transitions.classes.iter().map(class_label));
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = new_table(&header_refs);
    for (a, row) in transitions.pooled.iter().enumerate() {
        let mut cells = vec![class_label(&transitions.classes[a])];
        cells.extend(row.iter().enumerate().map(|(b, &observed)| {
            let expected = rows[a] as f64 * columns[b] as f64 / pairs.max(1) as f64;
            if expected > 0.0 {
                format!("{:.3}", observed as f64 / expected)
            } else {
                "–".to_string()
            }
        }));
        table.add_row(cells);
    }
    align_right_from(&mut table, 1);
    doc.table(table);
    doc.text(
        format!(
            "(observed ÷ expected pairs of consecutive hands, expected = row total × column \
             total / {} pairs; smallest expected cell {:.1}; HC high card, 1P one pair, 2P two \
             pair, 3K three of a kind, St straight, Fl flush, FH full house, 4K four of a kind, \
             SF straight flush)",
            group(pairs),
            transitions.smallest_expected
        ),
        "  ",
    );
}
