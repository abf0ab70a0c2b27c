//! The human-readable report: a few compact tables that fit in 80 columns.
//!
//! Observed figures stand beside the algorithm's exact theory and the uniform expectation, so a
//! reader sees at once *how* a shuffle is biased, not only *that* it is. Colour (the verdict
//! line) is used only when the caller says stdout is a terminal and NO_COLOR is unset.

use std::io::{self, Write};

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{CellAlignment, ContentArrangement, Table};

use super::{Exporter, Report, entries};
use crate::permutation::format_permutation;
use crate::permutation_reader::Numbering;
use crate::report::{LawRow, PermutationRow, RunReport, TheoryReport, format_p};

/// Orderings are all listed when there are at most this many; otherwise the extremes only.
const FULL_LISTING: usize = 24;

/// Writes the tables.
pub struct TableExporter {
    /// Whether to colour the verdict.
    pub colour: bool,
}

impl Exporter for TableExporter {
    fn export(&self, report: &Report, out: &mut dyn Write) -> io::Result<()> {
        let text = match report {
            Report::Run(run) => self.run(run),
            Report::Theory(theory) => theory_text(theory),
            Report::List(algorithms) => {
                let mut table = new_table(&["algorithm", "meant uniform", "exact definition"]);
                for entry in entries(algorithms) {
                    table.add_row(vec![
                        entry.name.to_string(),
                        if entry.meant_uniform { "yes" } else { "no" }.to_string(),
                        entry.definition.to_string(),
                    ]);
                }
                format!("{table}\n")
            }
        };
        out.write_all(text.as_bytes())?;
        out.flush()
    }
}

fn new_table(header: &[&str]) -> Table {
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED.with_rounded_corners())
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(80)
        .set_header(header.to_vec());
    table
}

fn align_right_from(table: &mut Table, first: usize) {
    let columns = table.column_count();
    for index in first..columns {
        if let Some(column) = table.column_mut(index) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
}

/// 1234567 → `1,234,567`.
pub fn group(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Word-wrap `text` to `width` columns; lines after the first start with `indent`.
pub fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line_length = 0;
    for word in text.split_whitespace() {
        let word_length = word.chars().count();
        if line_length > 0 && line_length + 1 + word_length > width {
            out.push('\n');
            out.push_str(indent);
            line_length = indent.chars().count();
        } else if line_length > 0 {
            out.push(' ');
            line_length += 1;
        }
        out.push_str(word);
        line_length += word_length;
    }
    out.push('\n');
    out
}

/// A rate with an SI prefix: `24.5 M`.
fn rate(value: f64) -> String {
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
fn percent(p: f64) -> String {
    let value = p * 100.0;
    if value == 0.0 || value >= 0.01 {
        format!("{value:.3}%")
    } else {
        format!("{value:.3e}%")
    }
}

fn ratio_text(ratio: Option<f64>) -> String {
    ratio.map_or("inf".to_string(), |r| format!("{r:.4}"))
}

fn statistic_text(value: f64) -> String {
    if value.abs() >= 1e7 {
        format!("{value:.4e}")
    } else {
        format!("{value:.2}")
    }
}

/// A position matrix in percent: rows are cards, columns final positions.
fn matrix_table(matrix: &[Vec<f64>]) -> Table {
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

fn permutation_rows(rows: &[PermutationRow], with_theory: bool) -> Table {
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

impl TableExporter {
    fn paint(&self, text: &str, biased: bool) -> String {
        if self.colour {
            let code = if biased { "1;31" } else { "1;32" };
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn run(&self, run: &RunReport) -> String {
        let mut out = String::new();
        let theory_available = run.model.available;
        let algorithm = run.algorithm.unwrap_or("none");
        let interrupted = if run.interrupted {
            format!(" (interrupted after {} trials)", group(run.trials))
        } else {
            String::new()
        };
        match (&run.input, run.seed, run.rng, run.threads) {
            (Some(input), ..) => {
                out.push_str(&wrap(
                    &format!(
                        "shuffle-bias check: {} permutations of {} cards ({}) from {}",
                        group(input.permutations),
                        run.deck,
                        match input.numbering {
                            Numbering::ZeroBased => "cards 0..n-1",
                            Numbering::OneBased => "cards 1..n",
                            Numbering::Labels => "labelled cards",
                        },
                        input.sources.join(", ")
                    ),
                    80,
                    "  ",
                ));
                out.push_str(&format!(
                    "{} lines read · {:.2} s · {} permutations/s\n",
                    group(input.lines),
                    run.elapsed_seconds,
                    rate(run.shuffles_per_second)
                ));
            }
            (None, Some(seed), Some(rng), Some(threads)) => {
                out.push_str(&format!(
                    "shuffle-bias run: {} · {} cards · {} shuffles{interrupted}\n",
                    run.shuffle_label().unwrap_or_else(|| algorithm.to_string()),
                    run.deck,
                    group(run.trials),
                ));
                out.push_str(&format!(
                    "seed {seed} · {} · {threads} threads · {:.2} s · {} shuffles/s\n",
                    rng.name(),
                    run.elapsed_seconds,
                    rate(run.shuffles_per_second)
                ));
            }
            _ => {}
        }
        if let Some(definition) = run.definition {
            out.push_str(&wrap(&format!("definition: {definition}"), 80, "  "));
        }
        out.push('\n');
        let headline = if run.bias_detected {
            "BIAS DETECTED"
        } else {
            "NO BIAS DETECTED"
        };
        out.push_str(&format!("{}\n", self.paint(headline, run.bias_detected)));
        out.push_str(&wrap(&run.verdict, 80, "  "));
        for note in &run.notes {
            out.push_str(&wrap(&format!("note: {note}"), 80, "  "));
        }

        // Tests.
        out.push_str(&format!(
            "\nTests against {}, Holm–Bonferroni over {} tests\n",
            match run.against {
                crate::report::Against::Uniform => "uniform".to_string(),
                crate::report::Against::Model => format!("the exact law of {algorithm}"),
            },
            run.tests.len()
        ));
        let mut tests = new_table(&["test", "statistic", "df", "p", "Holm p", "result"]);
        for test in &run.tests {
            tests.add_row(vec![
                test.name.clone(),
                if test.method == "exact-binomial-two-sided" {
                    format!("{} seen", group(test.statistic as u64))
                } else {
                    statistic_text(test.statistic)
                },
                test.df.map_or("binom.".to_string(), |df| group(df as u64)),
                format_p(test.log10_p_value),
                format_p(test.log10_adjusted_p_value),
                if test.rejected { "REJECTED" } else { "ok" }.to_string(),
            ]);
        }
        align_right_from(&mut tests, 1);
        out.push_str(&format!("{tests}\n"));
        for test in run.tests.iter().filter(|t| t.note.is_some()) {
            let note = test.note.as_deref().unwrap_or_default();
            out.push_str(&wrap(&format!("  {}: {note}", test.name), 80, "    "));
        }

        // Figures.
        out.push('\n');
        let theory_header = format!("theory ({algorithm})");
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
            ratio_text(run.max_min_ratio),
            unavailable(ratio_text(run.max_min_ratio_theory)),
            "1".to_string(),
        ]);
        figure_rows.push(vec![
            "orderings never seen".to_string(),
            group(run.never_seen),
            unavailable(
                run.model
                    .support_size
                    .map(|s| format!("{} impossible", group(run.orderings - s as u64)))
                    .unwrap_or_default(),
            ),
            "0".to_string(),
        ]);
        figure_rows.push(vec![
            "TV distance".to_string(),
            format!("{:.5}", run.tv_distance),
            run.tv_distance_theory
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
        let with_theory = run.algorithm.is_some();
        let mut header = vec!["figure", "observed", theory_header.as_str(), "uniform"];
        if !with_theory {
            header.remove(2);
        }
        let mut figures = new_table(&header);
        for mut row in figure_rows {
            if !with_theory {
                row.remove(2);
            }
            figures.add_row(row);
        }
        align_right_from(&mut figures, 1);
        out.push_str(&format!("{figures}\n"));
        out.push_str(&format!(
            "(the position row is the cell furthest from uniform: {:+.3} percentage points)\n",
            deviation.deviation * 100.0
        ));

        // Power.
        match (
            run.model.noncentrality_per_trial,
            run.model.detection_power,
            run.model.trials_for_99_power,
        ) {
            (Some(w2), Some(power), Some(needed)) if w2 > 0.0 => {
                out.push('\n');
                out.push_str(&wrap(
                    &format!(
                        "Power: w² = {w2:.6} per trial. {} trials detect this bias with \
                         probability {:.2}%; 99% power needs {} trials (permutations test at \
                         alpha/{} = {:.2e}).",
                        group(run.trials),
                        power * 100.0,
                        group(needed),
                        run.tests.len(),
                        run.model.power_alpha
                    ),
                    80,
                    "  ",
                ));
            }
            (Some(_), _, _) => {
                out.push('\n');
                out.push_str(&wrap(
                    "Power: the exact law is uniform, so there is no bias to detect; a \
                     rejection would be a false alarm (probability at most alpha).",
                    80,
                    "  ",
                ));
            }
            _ => {}
        }

        // Positions.
        out.push('\n');
        out.push_str(&wrap(
            &format!(
                "Positions: % of shuffles in which a card (row, starting at that position) ends \
                 at a position (column @); uniform {:.2}%",
                run.positions.expected_frequency * 100.0
            ),
            80,
            "  ",
        ));
        out.push_str(&format!("{}\n", matrix_table(&run.positions.frequencies)));
        if let Some(theory) = &run.positions.theory {
            out.push_str(&format!("Exact theory of {algorithm} (%)\n"));
            out.push_str(&format!("{}\n", matrix_table(theory)));
        }

        // Orderings.
        if run.permutations.len() <= FULL_LISTING {
            let rows: Vec<PermutationRow> = run.permutations.rows().collect();
            out.push_str(&format!(
                "\nAll {} orderings (card at each position; rank 0 = unchanged)\n",
                rows.len()
            ));
            out.push_str(&format!("{}\n", permutation_rows(&rows, theory_available)));
        } else {
            out.push_str("\nMost frequent orderings (card at each position)\n");
            out.push_str(&format!(
                "{}\n",
                permutation_rows(&run.most_frequent, theory_available)
            ));
            out.push_str("Least frequent orderings\n");
            out.push_str(&format!(
                "{}\n",
                permutation_rows(&run.least_frequent, theory_available)
            ));
        }
        out
    }
}

fn law_rows(rows: &[LawRow]) -> Table {
    let mut table = new_table(&["rank", "ordering", "probability", "exact", "÷ uniform"]);
    for row in rows {
        table.add_row(vec![
            row.rank.to_string(),
            format_permutation(&row.permutation),
            format!("{:.6}", row.probability),
            row.fraction.clone().unwrap_or_default(),
            format!("{:.4}", row.ratio_to_uniform),
        ]);
    }
    align_right_from(&mut table, 2);
    table
}

fn theory_text(theory: &TheoryReport) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "shuffle-bias theory: {} · {} cards · exact law from {} choice paths{}\n",
        theory.shuffle_label(),
        theory.deck,
        if theory.paths == u64::MAX {
            // Several passes can have more paths than a u64 counts.
            "more than 1.8e19".to_string()
        } else {
            group(theory.paths)
        },
        match theory.model.method {
            Some("step-propagation") => " (propagated step by step)",
            Some("convolution") => " (convolved pass by pass)",
            _ => "",
        }
    ));
    out.push_str(&wrap(
        &format!("definition: {}", theory.definition),
        80,
        "  ",
    ));
    out.push('\n');
    let mut figures = new_table(&["figure", "exact", "uniform"]);
    figures.add_row(vec![
        "reachable orderings".to_string(),
        format!(
            "{} of {}",
            group(theory.support_size as u64),
            group(theory.orderings)
        ),
        group(theory.orderings),
    ]);
    let uniform_fraction = format!("1/{}", theory.orderings);
    figures.add_row(vec![
        "identity probability".to_string(),
        match &theory.identity_fraction {
            Some(f) => format!("{} ({f})", percent(theory.identity_probability)),
            None => percent(theory.identity_probability),
        },
        format!(
            "{} ({uniform_fraction})",
            percent(theory.uniform_probability)
        ),
    ]);
    figures.add_row(vec![
        "max/min ratio".to_string(),
        ratio_text(theory.max_min_ratio),
        "1".to_string(),
    ]);
    figures.add_row(vec![
        "TV distance from uniform".to_string(),
        format!("{:.6}", theory.tv_distance),
        "0".to_string(),
    ]);
    let w2 = theory.model.noncentrality_per_trial.unwrap_or(0.0);
    figures.add_row(vec![
        "w² (χ² noncentrality per trial)".to_string(),
        format!("{w2:.6}"),
        "0".to_string(),
    ]);
    figures.add_row(vec![
        format!("trials for 99% power (alpha {})", theory.alpha),
        theory
            .model
            .trials_for_99_power
            .map_or("never (uniform)".to_string(), group),
        "-".to_string(),
    ]);
    align_right_from(&mut figures, 1);
    out.push_str(&format!("{figures}\n"));
    out.push('\n');
    out.push_str(&wrap(
        &format!(
            "Positions: probability (%) that a card (row, starting at that position) ends at a \
             position (column @); uniform {:.2}%",
            100.0 / theory.deck as f64
        ),
        80,
        "  ",
    ));
    out.push_str(&format!("{}\n", matrix_table(&theory.positions)));
    if theory.orderings as usize <= FULL_LISTING {
        let rows: Vec<LawRow> = theory.permutations.rows().collect();
        out.push_str("\nAll orderings\n");
        out.push_str(&format!("{}\n", law_rows(&rows)));
    } else {
        out.push_str("\nMost likely orderings\n");
        out.push_str(&format!("{}\n", law_rows(&theory.most_likely)));
        out.push_str("Least likely orderings\n");
        out.push_str(&format!("{}\n", law_rows(&theory.least_likely)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_sentences_wrap_at_the_width_with_an_indent() {
        let text = wrap("aaa bbb ccc ddd", 9, "  ");
        assert_eq!(text, "aaa bbb\n  ccc ddd\n");
        assert!(
            wrap(&"word ".repeat(50), 80, "  ")
                .lines()
                .all(|l| l.chars().count() <= 80)
        );
    }

    #[test]
    fn small_percentages_keep_three_significant_digits() {
        assert_eq!(percent(0.25), "25.000%");
        assert_eq!(percent(0.0), "0.000%");
        assert_eq!(percent(1.0 / 362_880.0), "2.756e-4%");
    }

    #[test]
    fn thousands_are_grouped_with_commas() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(240_000), "240,000");
        assert_eq!(group(39_916_800), "39,916,800");
    }
}
