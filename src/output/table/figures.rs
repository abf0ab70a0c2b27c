//! The figures of full and marginal runs: the headline figures, the power, the positions, the
//! orderings and the statistics' histograms.

use super::cells::{
    figures_table,
    FULL_LISTING, MATRIX_TABLE_MAX_DECK, align_right_from, deviation_row, identity_row,
    matrix_table, new_table, percent, permutation_rows, ratio_text, statistic_text,
};
use crate::analysis::decision::format_p;
use crate::analysis::figures::mean;
use crate::output::document::{Document, TableBlock};
use crate::output::text::group;
use crate::report::run::{FullPart, PermutationRow, RunReport, StatisticResult};

/// The figures of a full tally, observed beside theory and uniform.
pub(super) fn figures_section(
    run: &RunReport,
    full: &FullPart,
    algorithm: &str,
    doc: &mut Document,
) {
    let theory_available = run.model.available;
    let mut figure_rows: Vec<Vec<String>> = Vec::new();
    let identity_theory = match (&run.identity.theory_fraction, run.identity.theory_frequency) {
        (Some(fraction), Some(p)) => format!("{} ({fraction})", percent(p)),
        (None, Some(p)) => percent(p),
        _ => "n/a".to_string(),
    };
    figure_rows.push(vec![
        "identity frequency".to_string(),
        format!(
            "{} ({})",
            percent(run.identity.frequency),
            group(run.identity.count)
        ),
        identity_theory,
        percent(run.identity.expected_frequency),
    ]);
    let unavailable = |text: String| {
        if theory_available {
            text
        } else {
            "n/a".to_string()
        }
    };
    figure_rows.push(vec![
        "max/min ratio".to_string(),
        ratio_text(full.max_min_ratio),
        unavailable(ratio_text(full.max_min_ratio_theory)),
        "1".to_string(),
    ]);
    figure_rows.push(vec![
        "orderings never seen".to_string(),
        group(full.never_seen),
        unavailable(
            run.model
                .support_size
                .map(|s| {
                    format!(
                        "{} impossible",
                        group(run.header.orderings.unwrap_or(0) - s as u64)
                    )
                })
                .unwrap_or_default(),
        ),
        "0".to_string(),
    ]);
    figure_rows.push(vec![
        "TV distance".to_string(),
        format!("{:.5}", full.tv_distance),
        full.tv_distance_theory
            .map_or("n/a".to_string(), |d| format!("{d:.5}")),
        "0".to_string(),
    ]);
    let deviation = &run.positions.largest_deviation;
    let theory_cell = run
        .positions
        .theory
        .as_ref()
        .map(|t| percent(t[deviation.card][deviation.position]));
    figure_rows.push(vec![
        format!("card {} at position {}", deviation.card, deviation.position),
        percent(deviation.frequency),
        theory_cell.unwrap_or_else(|| "n/a".to_string()),
        percent(run.positions.expected_frequency),
    ]);
    // Without an algorithm (`check` against uniform) there is no theory column at all.
    let with_theory = run.header.algorithm.is_some();
    doc.table(figures_table(algorithm, with_theory, figure_rows));
    doc.line(format!(
        "(the position row is the cell furthest from uniform: {:+.3} percentage points)",
        deviation.deviation * 100.0
    ));
}

/// What the exact law implies for detection, when it is known.
pub(super) fn power_section(run: &RunReport, doc: &mut Document) {
    match (
        run.model.noncentrality_per_trial,
        run.model.detection_power,
        run.model.trials_for_99_power,
    ) {
        (Some(w2), Some(power), Some(needed)) if w2 > 0.0 => {
            doc.blank();
            doc.text(
                format!(
                    "Power: w² = {w2:.6} per trial. {} this bias with probability {:.2}%; 99% \
                     power needs {} trials (the permutations test's upper tail at alpha/(2·{}) \
                     = {:.2e}).",
                    match run.header.trials {
                        1 => "1 trial detects".to_string(),
                        trials => format!("{} trials detect", group(trials)),
                    },
                    power * 100.0,
                    group(needed),
                    run.tests.len(),
                    run.model.power_alpha
                ),
                "  ",
            );
        }
        (Some(_), _, _) => {
            doc.blank();
            doc.text(
                "Power: the exact law is uniform, so there is no bias to detect; a \
                 rejection would be a false alarm (probability at most alpha).",
                "  ",
            );
        }
        _ => {}
    }
}

/// Every ordering when they are few, otherwise the most and least frequent.
pub(super) fn orderings_section(full: &FullPart, theory_available: bool, doc: &mut Document) {
    if full.permutations.len() <= FULL_LISTING {
        let rows: Vec<PermutationRow> = full.permutations.rows().collect();
        doc.blank();
        doc.heading(format!(
            "All {} orderings (card at each position; rank 0 = unchanged)",
            rows.len()
        ));
        doc.table(permutation_rows(&rows, theory_available));
    } else {
        doc.blank();
        doc.heading("Most frequent orderings (card at each position)");
        doc.table(permutation_rows(&full.most_frequent, theory_available));
        doc.heading("Least frequent orderings");
        doc.table(permutation_rows(&full.least_frequent, theory_available));
    }
}

/// A value range of a pooled cell: `3`, `2–4`, `≥ 7`.
pub(super) fn bin_label(bin: [usize; 2], last: usize) -> String {
    match bin {
        [start, end] if end - start == 1 => start.to_string(),
        [start, end] if end > last => format!("≥ {start}"),
        [start, end] => format!("{start}–{}", end - 1),
    }
}

pub(super) fn statistic_table(statistic: &StatisticResult, algorithm: &str) -> TableBlock {
    let with_theory = statistic.theory.is_some();
    let theory_header = format!("theory ({algorithm})");
    let mut header = vec!["value", "observed", "uniform"];
    if with_theory {
        header.push(&theory_header);
    }
    let mut table = new_table(&header);
    let trials: u64 = statistic.observed.iter().sum();
    let sum = |values: &[f64], bin: [usize; 2]| -> f64 {
        values[bin[0].min(values.len())..bin[1].min(values.len())]
            .iter()
            .sum()
    };
    let last = statistic.observed.len().max(statistic.uniform.len());
    for &bin in &statistic.bins {
        let observed: u64 = statistic.observed
            [bin[0].min(statistic.observed.len())..bin[1].min(statistic.observed.len())]
            .iter()
            .sum();
        let mut row = vec![
            bin_label(bin, last.saturating_sub(1)),
            percent(if trials > 0 {
                observed as f64 / trials as f64
            } else {
                0.0
            }),
            percent(sum(&statistic.uniform, bin)),
        ];
        if let Some(theory) = &statistic.theory {
            row.push(percent(sum(theory, bin)));
        }
        table.add_row(row);
    }
    align_right_from(&mut table, 1);
    table
}

/// The observed position matrix in percent, and the exact one when known.
pub(super) fn positions_section(run: &RunReport, algorithm: &str, doc: &mut Document) {
    doc.text(
        format!(
            "Positions: % of shuffles in which a card (row, starting at that position) ends at a \
             position (column @); uniform {:.2}%",
            run.positions.expected_frequency * 100.0
        ),
        "  ",
    );
    doc.table(matrix_table(&run.positions.frequencies));
    if let Some(theory) = &run.positions.theory {
        doc.heading(format!("Exact theory of {algorithm} (%)"));
        doc.table(matrix_table(theory));
    }
}

/// The sections of a marginal report after the tests: figures, statistics, positions.
/// The sections of a marginal report: its figures, one table per statistic, the positions.
pub(super) fn marginal_sections(run: &RunReport, doc: &mut Document) {
    let label = run.shuffle_label().unwrap_or_else(|| "none".to_string());
    let algorithm = label.as_str();
    marginal_figures(run, algorithm, doc);
    statistic_sections(run, algorithm, doc);
    doc.blank();
    if run.header.deck <= MATRIX_TABLE_MAX_DECK {
        positions_section(run, algorithm, doc);
    } else {
        doc.text(
            format!(
                "Positions: the {0}×{0} matrix of where each card ended is in --format json \
                 and --format csv --table positions, and drawn by --plot.",
                run.header.deck
            ),
            "  ",
        );
    }
}

/// The figures of a marginal report: identity, the worst position cell, the statistics' means.
pub(super) fn marginal_figures(run: &RunReport, algorithm: &str, doc: &mut Document) {
    let with_theory = run.header.algorithm.is_some();
    doc.blank();
    let deviation = &run.positions.largest_deviation;
    let mut rows = vec![
        identity_row("identity frequency".to_string(), &run.identity),
        deviation_row(
            format!("card {} at position {}", deviation.card, deviation.position),
            &run.positions,
        ),
    ];
    for statistic in run.statistics() {
        let theory_mean = statistic
            .theory
            .as_ref()
            .map(|law| mean(law.iter().copied()));
        let uniform_mean = mean(statistic.uniform.iter().copied());
        rows.push(vec![
            format!("mean {}", statistic.name),
            format!("{:.4}", statistic.mean_observed),
            theory_mean.map_or("n/a".to_string(), |m| format!("{m:.4}")),
            format!("{uniform_mean:.4}"),
        ]);
    }
    doc.table(figures_table(algorithm, with_theory, rows));
    doc.text(
        format!(
            "(the position row is the cell furthest from uniform: {:+.3} percentage points)",
            deviation.deviation * 100.0
        ),
        "  ",
    );
    if let Some(game) = run.guessing_game() {
        let mut line = format!("Guessing game: {}", game.sentence());
        if let Some(theory) = game.theory {
            line.push_str(&format!(" ({theory:.2} by the theory of {algorithm})"));
        }
        doc.text(line + ".", "  ");
    }
}

/// One heading and table per permutation statistic.
pub(super) fn statistic_sections(run: &RunReport, algorithm: &str, doc: &mut Document) {
    for statistic in run.statistics() {
        doc.blank();
        // One pooled cell: the test is the exact binomial one (exact-binomial-outside-mode).
        let test = if statistic.bins.len() < 2 {
            format!(
                "exact binomial, {} outside the likeliest value",
                group(statistic.chi_square as u64)
            )
        } else {
            format!(
                "χ² {}, df {}",
                statistic_text(statistic.chi_square),
                statistic.df
            )
        };
        doc.heading(format!(
            "{}: {} ({test}, p {})",
            statistic.name,
            statistic.definition,
            format_p(statistic.log10_p_value)
        ));
        doc.table(statistic_table(statistic, algorithm));
    }
}
