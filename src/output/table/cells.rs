//! The small pieces every table is built of: a new table, the rows of an identity and of a
//! deviation, rates, percentages and ratios as text, a matrix and a list of orderings.

use crate::engine::permutation::format_permutation;
use crate::output::document::TableBlock;
use crate::output::text::group;
use crate::report::run::PermutationRow;
use crate::report::run::{Identity, Positions};

/// Orderings are all listed when there are at most this many; otherwise the extremes only.
pub(super) const FULL_LISTING: usize = 24;

/// Position matrices are printed as tables up to this many cards (wider ones go to CSV, JSON
/// and the picture).
pub(super) const MATRIX_TABLE_MAX_DECK: usize = 12;

pub(super) fn new_table(header: &[&str]) -> TableBlock {
    TableBlock::new(header)
}

/// The figures table: each figure observed, beside the theory of `algorithm` and beside uniform
/// (rows of those four cells); without an algorithm (`check` against uniform) there is no
/// theory column at all.
pub(super) fn figures_table(algorithm: &str, with_theory: bool, rows: Vec<Vec<String>>) -> TableBlock {
    let theory_header = format!("theory ({algorithm})");
    let mut header = vec!["figure", "observed", theory_header.as_str(), "uniform"];
    if !with_theory {
        header.remove(2);
    }
    let mut figures = new_table(&header);
    for mut row in rows {
        if !with_theory {
            row.remove(2);
        }
        figures.add_row(row);
    }
    align_right_from(&mut figures, 1);
    figures
}

/// The figures table's identity row: observed (count), theory, uniform.
pub(super) fn identity_row(label: String, identity: &Identity) -> Vec<String> {
    vec![
        label,
        format!(
            "{} ({})",
            percent(identity.frequency),
            group(identity.count)
        ),
        identity.theory_frequency.map_or("n/a".to_string(), percent),
        percent(identity.expected_frequency),
    ]
}

/// The figures table's row of the cell furthest from uniform: observed, theory, uniform.
pub(super) fn deviation_row(label: String, positions: &Positions) -> Vec<String> {
    let deviation = &positions.largest_deviation;
    vec![
        label,
        percent(deviation.frequency),
        positions.theory.as_ref().map_or("n/a".to_string(), |t| {
            percent(t[deviation.card][deviation.position])
        }),
        percent(positions.expected_frequency),
    ]
}

pub(super) fn align_right_from(table: &mut TableBlock, first: usize) {
    table.align_right_from(first);
}

/// A rate with an SI prefix: `24.5 M`.
pub(super) fn rate(value: f64) -> String {
    if value >= 1e9 {
        format!("{:.2} G", value / 1e9)
    } else if value >= 1e6 {
        format!("{:.1} M", value / 1e6)
    } else if value >= 1e3 {
        format!("{:.1} k", value / 1e3)
    } else {
        format!("{value:.0}")
    }
}

/// A probability in percent: three decimals, or three significant digits below 0.01%.
pub(super) fn percent(p: f64) -> String {
    let value = p * 100.0;
    if value == 0.0 || value >= 0.01 {
        format!("{value:.3}%")
    } else {
        format!("{value:.3e}%")
    }
}

pub(super) fn ratio_text(ratio: Option<f64>) -> String {
    ratio.map_or("inf".to_string(), |r| format!("{r:.4}"))
}

pub(super) fn statistic_text(value: f64) -> String {
    if value.abs() >= 1e7 {
        format!("{value:.4e}")
    } else {
        format!("{value:.2}")
    }
}

/// A position matrix in percent: rows are cards, columns final positions.
pub(super) fn matrix_table(matrix: &[Vec<f64>]) -> TableBlock {
    let n = matrix.len();
    let mut header = vec!["card".to_string()];
    header.extend((0..n).map(|p| format!("@{p}")));
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = new_table(&header_refs);
    let decimals = if n <= 6 { 2 } else { 1 };
    for (card, row) in matrix.iter().enumerate() {
        let mut cells = vec![card.to_string()];
        cells.extend(row.iter().map(|f| format!("{:.*}", decimals, f * 100.0)));
        table.add_row(cells);
    }
    align_right_from(&mut table, 0);
    table
}

pub(super) fn permutation_rows(rows: &[PermutationRow], with_theory: bool) -> TableBlock {
    let mut header = vec!["rank", "ordering", "count", "÷ expected"];
    if with_theory {
        header.extend(["theory", "theory ÷ uniform"]);
    }
    let mut table = new_table(&header);
    for row in rows {
        let mut cells = vec![
            row.rank.to_string(),
            format_permutation(&row.permutation),
            group(row.count),
            format!("{:.4}", row.ratio_to_expected),
        ];
        if with_theory {
            cells.push(
                row.theory_fraction
                    .clone()
                    .or(row.theory.map(|p| format!("{p:.6}")))
                    .unwrap_or_default(),
            );
            cells.push(
                row.theory_expected
                    .map(|e| format!("{:.4}", e / row.expected))
                    .unwrap_or_default(),
            );
        }
        table.add_row(cells);
    }
    align_right_from(&mut table, 2);
    table
}
