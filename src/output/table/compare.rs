//! The table of `compare`: one row per algorithm.

use super::TableExporter;
use super::cells::{align_right_from, new_table, percent, ratio_text, statistic_text};
use crate::analysis::decision::format_p;
use crate::output::document::{Document, TableBlock};
use crate::output::text::{group, plural};
use crate::report::comparison::CompareReport;

/// The width of `compare`'s table (one row per algorithm, eight columns).
pub(super) const COMPARE_WIDTH: u16 = 120;

impl TableExporter {
    pub(super) fn compare(&self, compare: &CompareReport) -> Document {
        let mut doc = Document::default();
        let sequential = compare
            .rows
            .iter()
            .any(|row| row.sequential_decided.is_some());
        doc.title(format!(
            "shuffle-bias compare: {} · {} cards · {}{} each",
            plural(
                (compare.rows.len() + compare.not_run.len()) as u64,
                "algorithm"
            ),
            compare.deck,
            if sequential { "at most " } else { "" },
            plural(compare.trials_requested, "shuffle")
        ));
        doc.line(format!(
            "seed {} · {} · {} · {:.2} s",
            compare.seed,
            compare.rng.name(),
            plural(compare.threads as u64, "thread"),
            compare.elapsed_seconds
        ));
        doc.blank();
        let headline = if compare.interrupted {
            // Not a verdict: the algorithms not run were neither as expected nor not.
            "INTERRUPTED"
        } else if compare.all_as_expected {
            "ALL AS EXPECTED"
        } else {
            "NOT AS EXPECTED"
        };
        doc.headline(self.paint(headline, !compare.all_as_expected));
        doc.text(&compare.verdict, "  ");
        if sequential {
            // Where each algorithm stopped: the sequential test decides the biased ones early.
            let stops: Vec<String> = compare
                .rows
                .iter()
                .map(|row| match row.sequential_decided {
                    Some(true) => format!("{} decided after {}", row.algorithm, group(row.trials)),
                    _ => format!("{} undecided at {}", row.algorithm, group(row.trials)),
                })
                .collect();
            doc.text(format!("--until-decided: {}", stops.join(" · ")), "  ");
        }
        doc.blank();

        let table = self.compare_table(compare);
        match self.terminal.width {
            // On a terminal too narrow for it, the table comes in two halves that each fit:
            // the tests and the verdict, then the other figures.
            Some(width) if table.natural_width() > usize::from(width) => {
                doc.table(table.columns(&[0, 1, 2, 3, 7]));
                doc.table(table.columns(&[0, 4, 5, 6]));
            }
            _ => doc.table(table),
        }
        doc.text(
            "(exact theory in parentheses; worst cell: the card → final position furthest \
             from 1/n, in percentage points; 99% power: trials at which the permutations test \
             detects the bias with probability 0.99; ✓ the verdict expected of the algorithm)",
            " ",
        );
        // Each pass says what it rules out.
        for row in compare.rows.iter().filter(|row| !row.bias_detected) {
            if let (Some(tv), Some(within)) = (row.tv_distance_at_most, row.position_within) {
                doc.text(
                    format!(
                        "{}: no bias detected; with 99% confidence each, TV distance ≤ {tv:.4} \
                         and every position within ±{:.2} pp of 1/n",
                        row.algorithm,
                        within * 100.0
                    ),
                    "  ",
                );
            }
        }
        for row in &compare.rows {
            for note in &row.notes {
                doc.text(format!("note: {}: {note}", row.algorithm), "  ");
            }
        }
        for name in &compare.not_run {
            doc.line(format!("not run (interrupted): {name}"));
        }
        doc
    }

    /// One row per algorithm and a last row for uniform, theory in parentheses.
    fn compare_table(&self, compare: &CompareReport) -> TableBlock {
        // Eight columns of figures do not fit in 80: this table is allowed 120 (and comes in
        // two halves on a narrower terminal, below).
        let mut table = new_table(&[
            "algorithm",
            "p (χ²)",
            "max/min",
            "identity",
            "TV distance",
            "worst cell",
            "99% power",
            "verdict",
        ]);
        table.set_width(COMPARE_WIDTH);
        let n = compare.deck;
        for row in &compare.rows {
            let theory =
                |value: Option<String>| value.map_or(String::new(), |v| format!("\n({v})"));
            let deviation = &row.largest_deviation;
            let verdict = match (row.bias_detected, row.as_expected) {
                (true, true) => "biased ✓",
                (false, true) => "fair ✓",
                (true, false) => "BIASED ✗",
                (false, false) => "missed ✗",
            };
            table.add_row(vec![
                row.algorithm.to_string(),
                format!(
                    "{}\nχ² {}",
                    format_p(row.log10_p_value),
                    statistic_text(row.chi_square)
                ),
                format!(
                    "{}{}",
                    ratio_text(row.max_min_ratio),
                    theory(
                        row.max_min_ratio_theory
                            .map(|r| format!("{r:.4}"))
                            .or_else(|| row.identity_theory.map(|_| "inf".to_string()))
                    )
                ),
                format!(
                    "{}{}",
                    percent(row.identity_frequency),
                    theory(row.identity_theory.map(percent))
                ),
                format!(
                    "{:.4}{}",
                    row.tv_distance,
                    theory(row.tv_distance_theory.map(|tv| format!("{tv:.4}")))
                ),
                format!(
                    "{}→@{}\n{:+.2} pp",
                    deviation.card,
                    deviation.position,
                    deviation.deviation * 100.0
                ),
                row.trials_to_detect.map_or("–".to_string(), group),
                self.paint(verdict, !row.as_expected),
            ]);
        }
        table.add_row(vec![
            "uniform".to_string(),
            "–".to_string(),
            "1".to_string(),
            percent(1.0 / compare.orderings as f64),
            "0".to_string(),
            format!("{:.2}%", 100.0 / n as f64),
            "–".to_string(),
            String::new(),
        ]);
        align_right_from(&mut table, 1);
        table
    }
}
