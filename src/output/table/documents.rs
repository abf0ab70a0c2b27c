//! The documents of `theory`, `mixing` and `single`.

use super::cells::{FULL_LISTING, align_right_from, matrix_table, new_table, percent, ratio_text};
use crate::analysis::decision::format_p;
use crate::engine::algorithms::shuffle_label;
use crate::engine::permutation::format_permutation;
use crate::output::document::{Document, TableBlock};
use crate::output::text::group;
use crate::report::mixing::MixingReport;
use crate::report::single::SingleReport;
use crate::report::theory::{LawRow, TheoryReport};
use crate::theory::mixing::MixingMethod;

/// Width of the text bars of a mixing curve.
pub(super) const BAR_WIDTH: usize = 30;

pub(super) fn mixing_document(mixing: &MixingReport) -> Document {
    let mut doc = Document::default();
    let name = shuffle_label(mixing.algorithm, mixing.cut_probability, mixing.shelves, 1);
    doc.title(format!(
        "shuffle-bias theory: {name} · {} cards · distance to uniform by number of passes",
        mixing.deck
    ));
    doc.text(format!("definition: {}", mixing.definition), "  ");
    doc.text(
        match mixing.method {
            MixingMethod::RiffleClosedForm => {
                "method: exact, from the closed form of Bayer & Diaconis \
                (1992): P(π) = C(2^K + n − r, n) / 2^(Kn), r the rising sequences of π"
                    .to_string()
            }
            MixingMethod::ShelfClosedForm => format!(
                "method: exact, from the closed form of Diaconis, Fulman & Holmes (2013): \
                 P(π) depends only on the valleys of π; K passes of m shelves are one pass of \
                 2^(K−1)·m^K shelves{}",
                mixing
                    .shelves
                    .map(|m| format!(" ({m} shelves)"))
                    .unwrap_or_default()
            ),
            MixingMethod::ExactLaw => {
                "method: exact, the one-pass law of the algorithm's own code carried forward \
                  pass by pass"
                    .to_string()
            }
        },
        "  ",
    );
    doc.blank();
    // The shelf shuffler's distances stay within a hair of 1 for few shelves (0.99999928 for
    // one pass of 10 shelves on 52 cards): they are shown to 8 places, with the separation.
    let separations =
        mixing.points.iter().all(|p| p.separation.is_some()) && !mixing.points.is_empty();
    let mut table = if separations {
        new_table(&["passes", "TV distance", "separation", ""])
    } else {
        new_table(&["passes", "TV distance", ""])
    };
    for point in &mixing.points {
        let filled = (point.tv_distance * BAR_WIDTH as f64).round() as usize;
        let mut row = vec![point.passes.to_string()];
        match point.separation {
            Some(separation) if separations => {
                row.push(format!("{:.8}", point.tv_distance));
                row.push(format!("{separation:.8}"));
            }
            _ => row.push(format!("{:.4}", point.tv_distance)),
        }
        row.push("█".repeat(filled.min(BAR_WIDTH)));
        table.add_row(row);
    }
    let bar = if separations { 3 } else { 2 };
    table.align_right_from(1);
    let mut cells = table;
    cells.align_left_from(bar);
    doc.table(cells);
    for needed in &mixing.passes_needed {
        doc.line(match needed.passes {
            Some(k) => format!(
                "TV < {}: {k} pass{}",
                needed.threshold,
                if k == 1 { "" } else { "es" }
            ),
            None => format!(
                "TV < {}: not reached within {} passes",
                needed.threshold,
                mixing.points.last().map_or(0, |p| p.passes)
            ),
        });
    }
    doc
}

pub(super) fn law_rows(rows: &[LawRow]) -> TableBlock {
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

/// `check --single`: the verdict, the two correlations, the family of tests, the notes.
pub(super) fn single_document(single: &SingleReport) -> Document {
    let mut doc = Document::default();
    doc.title(format!(
        "shuffle-bias check --single: one permutation of {} items · {}",
        group(single.deck as u64),
        single.sources.join(", ")
    ));
    doc.blank();
    doc.headline(if single.bias_detected {
        "BIAS DETECTED"
    } else {
        "NO BIAS DETECTED"
    });
    doc.text(single.verdict.clone(), "  ");
    doc.text(
        format!(
            "Spearman's rho with the starting order {:.4}, Kendall's tau {:.4}",
            single.spearman_rho, single.kendall_tau
        ),
        "  ",
    );
    for note in &single.notes {
        doc.text(format!("note: {note}"), "  ");
    }
    doc.blank();
    // Approximate p-values are marked ≈ (the note names the approximations).
    let mut table = new_table(&["test", "value", "uniform mean", "p", "Holm p", "result"]);
    for test in &single.tests {
        let approximate = if test.method == "exact" { "" } else { "≈" };
        let digits = if test.name == "spearman-rho" { 4 } else { 2 };
        table.add_row(vec![
            test.name.to_string(),
            if test.name == "spearman-rho" {
                format!("{:.4}", test.value)
            } else {
                format!("{}", test.value)
            },
            format!("{:.*}", digits, test.uniform_mean),
            format!("{approximate}{}", format_p(test.log10_p_value)),
            format!("{approximate}{}", format_p(test.log10_adjusted_p_value)),
            if test.rejected { "REJECTED" } else { "ok" }.to_string(),
        ]);
    }
    align_right_from(&mut table, 1);
    doc.table(table);
    doc
}

pub(super) fn theory_document(theory: &TheoryReport) -> Document {
    let mut doc = Document::default();
    doc.title(format!(
        "shuffle-bias theory: {} · {} cards · exact law from {} choice paths{}",
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
    doc.text(format!("definition: {}", theory.definition), "  ");
    doc.blank();
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
    figures.add_row(vec![
        "bits of orderings (log2 n!)".to_string(),
        format!("{:.1}", theory.ordering_bits),
        format!("{:.1}", theory.ordering_bits),
    ]);
    if let Some(reach) = theory.reachable {
        figures.add_row(vec![
            format!("reachable by {} bits of state", reach.state_bits),
            if reach.limited {
                format!("at most 10^{:.1}", reach.log10_fraction)
            } else {
                "every ordering".to_string()
            },
            "-".to_string(),
        ]);
    }
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
        if w2 > 0.0 && w2 < 1e-6 {
            format!("{w2:.3e}")
        } else {
            format!("{w2:.6}")
        },
        "0".to_string(),
    ]);
    figures.add_row(vec![
        format!("trials for 99% power (alpha {})", theory.alpha),
        match (
            theory.model.trials_for_99_power,
            theory.model.log10_trials_for_99_power,
        ) {
            (Some(trials), _) => group(trials),
            (None, Some(log10)) => format!("about 10^{log10:.1}"),
            (None, None) => "never (uniform)".to_string(),
        },
        "-".to_string(),
    ]);
    align_right_from(&mut figures, 1);
    doc.table(figures);
    if let Some(plan) = &theory.max_bias {
        doc.text(plan.sentence(), "  ");
    }
    doc.blank();
    doc.text(
        format!(
            "Positions: probability (%) that a card (row, starting at that position) ends at a \
             position (column @); uniform {:.2}%",
            100.0 / theory.deck as f64
        ),
        "  ",
    );
    doc.table(matrix_table(&theory.positions));
    if theory.orderings as usize <= FULL_LISTING {
        let rows: Vec<LawRow> = theory.permutations.rows().collect();
        doc.blank();
        doc.heading("All orderings");
        doc.table(law_rows(&rows));
    } else {
        doc.blank();
        doc.heading("Most likely orderings");
        doc.table(law_rows(&theory.most_likely));
        doc.heading("Least likely orderings");
        doc.table(law_rows(&theory.least_likely));
    }
    doc
}
