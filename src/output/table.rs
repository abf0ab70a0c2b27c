//! The human-readable report: a few compact tables that fit in 80 columns.
//!
//! Observed figures stand beside the algorithm's exact theory and the uniform expectation, so a
//! reader sees at once *how* a shuffle is biased, not only *that* it is. Colour (the verdict
//! line) is used only when the caller says stdout is a terminal and NO_COLOR is unset.

use std::io::{self, Write};

use super::document::{Document, TableBlock};
use super::text::{group, plural};
use super::{Exporter, Report, Terminal, entries};
use crate::analysis::deal_stream::CollisionLaw;
use crate::analysis::decision::format_p;
use crate::analysis::figures::mean;
use crate::analysis::{Question, TestMethod};
use crate::engine::algorithms::shuffle_label;
use crate::engine::permutation::format_permutation;
use crate::input::permutation_reader::Numbering;
use crate::report::comparison::CompareReport;
use crate::report::mixing::MixingReport;
use crate::report::run::{
    Against, DealPart, DealStreamReport, FullPart, ModePart, PermutationRow, PokerPart, RunReport,
    StatisticResult,
};
use crate::report::run::{
    Identity, MergedFrom, Positions, SequentialOutcome, TestResult, format_e_value,
};
use crate::report::single::SingleReport;
use crate::report::theory::{LawRow, TheoryReport};
use crate::theory::mixing::MixingMethod;
use crate::theory::poker::{Category, card_name};

/// The width of `compare`'s table (one row per algorithm, eight columns).
const COMPARE_WIDTH: u16 = 120;

/// Orderings are all listed when there are at most this many; otherwise the extremes only.
const FULL_LISTING: usize = 24;

/// Writes the tables.
pub struct TableExporter {
    /// Colour and width of the terminal shown on, if any.
    pub terminal: Terminal,
}

impl Exporter for TableExporter {
    fn export(&self, report: &Report, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(self.document(report).to_terminal().as_bytes())?;
        out.flush()
    }
}

impl TableExporter {
    /// The report's content, ready to draw for a terminal or as Markdown.
    pub fn document(&self, report: &Report) -> Document {
        match report {
            Report::Run(run) => self.run(run),
            Report::Compare(compare) => self.compare(compare),
            Report::Theory(theory) => theory_document(theory),
            Report::Mixing(mixing) => mixing_document(mixing),
            Report::Single(single) => single_document(single),
            Report::List(algorithms) => {
                let mut table = new_table(&["algorithm", "meant uniform", "exact definition"]);
                for entry in entries(algorithms) {
                    table.add_row(vec![
                        entry.name.to_string(),
                        if entry.meant_uniform { "yes" } else { "no" }.to_string(),
                        entry.definition.to_string(),
                    ]);
                }
                let mut doc = Document::default();
                doc.table(table);
                doc
            }
        }
    }
}

fn new_table(header: &[&str]) -> TableBlock {
    TableBlock::new(header)
}

/// The figures table's identity row: observed (count), theory, uniform.
fn identity_row(label: String, identity: &Identity) -> Vec<String> {
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
fn deviation_row(label: String, positions: &Positions) -> Vec<String> {
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

fn align_right_from(table: &mut TableBlock, first: usize) {
    table.align_right_from(first);
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
fn matrix_table(matrix: &[Vec<f64>]) -> TableBlock {
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

fn permutation_rows(rows: &[PermutationRow], with_theory: bool) -> TableBlock {
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
        if self.terminal.colour {
            let code = if biased { "1;31" } else { "1;32" };
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn run(&self, run: &RunReport) -> Document {
        let mut doc = Document::default();
        let algorithm = run.header.algorithm.unwrap_or("none");
        run_title(run, algorithm, &mut doc);
        doc.blank();
        let (headline, failed) = run.headline();
        doc.headline(self.paint(&headline, failed));
        if let Some(gate) = &run.gate {
            doc.text(gate.sentence(), "  ");
        }
        doc.text(&run.verdict, "  ");
        // What weakens the verdict stands beside it, in the report itself (a "no bias detected"
        // on one shuffle must say so where a CI summary shows it), not on stderr alone.
        for warning in &run.warnings {
            doc.text(format!("warning: {warning}"), "  ");
        }
        for note in &run.notes {
            doc.text(format!("note: {note}"), "  ");
        }
        // A pass says what it rules out, where the verdict is read.
        if let Some(ruled_out) = run.ruled_out.as_ref().filter(|_| run.shows_ruled_out()) {
            doc.text(format!("{}:", ruled_out.heading()), "  ");
            for sentence in ruled_out.sentences() {
                doc.text(format!("- {sentence}"), "    ");
            }
        }
        if let Some(sequential) = &run.sequential {
            doc.blank();
            let unit = if run.header.input.is_some() {
                "permutation"
            } else {
                "trial"
            };
            sequential_section(sequential, run.header.deck, unit, &mut doc);
        }
        doc.blank();
        tests_section(run, algorithm, &mut doc);
        if let Some(deals) = &run.deal_stream {
            doc.blank();
            deal_stream_section(deals, &mut doc);
        }
        match &run.part {
            ModePart::Marginal(_) => marginal_sections(run, &mut doc),
            ModePart::Deal(deal) => deal_sections(run, deal, &mut doc),
            ModePart::Full(full) => {
                doc.blank();
                figures_section(run, full, algorithm, &mut doc);
                power_section(run, &mut doc);
                doc.blank();
                positions_section(run, algorithm, &mut doc);
                orderings_section(full, run.model.available, &mut doc);
            }
        }
        doc
    }
}

/// The title of a run or check, and the line of how it went.
fn run_title(run: &RunReport, algorithm: &str, doc: &mut Document) {
    let header = &run.header;
    let interrupted = match (header.interrupted, &header.input) {
        (false, _) => String::new(),
        (true, None) => format!(" (interrupted after {} trials)", group(header.trials)),
        (true, Some(_)) => " (interrupted: the input was not read to its end)".to_string(),
    };
    match (&header.input, header.seed, header.source, header.threads) {
        (Some(input), ..) => {
            let what = match run.deal() {
                Some(deal) => format!(
                    "{} of {} cards from {}",
                    plural(input.permutations, "deal"),
                    deal.cards_per_deal,
                    header.deck
                ),
                None => format!(
                    "{} of {} cards",
                    plural(input.permutations, "permutation"),
                    header.deck
                ),
            };
            doc.title(format!(
                "shuffle-bias check: {what} ({}{}) from {}{interrupted}",
                match input.numbering {
                    Numbering::ZeroBased => "cards 0..n-1",
                    Numbering::OneBased => "cards 1..n",
                    Numbering::Labels => "labelled cards",
                    Numbering::StandardCards => "card names",
                },
                input
                    .format
                    .map_or(String::new(), |format| format!(", {}", format.describe())),
                input.sources.join(", ")
            ));
            match &header.merged {
                Some(merged) => doc.line(format!(
                    "{} lines read · {}",
                    group(input.lines),
                    merged_time(merged, header.elapsed_seconds, "reading")
                )),
                None => doc.line(format!(
                    "{} lines read · {:.2} s · {} {}/s",
                    group(input.lines),
                    header.elapsed_seconds,
                    rate(header.shuffles_per_second),
                    if run.deal().is_some() {
                        "deals"
                    } else {
                        "permutations"
                    }
                )),
            }
        }
        (None, seed, Some(source), Some(threads)) => {
            doc.title(format!(
                "shuffle-bias run: {} · {} cards · {}{interrupted}",
                run.shuffle_label().unwrap_or_else(|| algorithm.to_string()),
                header.deck,
                plural(header.trials, "shuffle"),
            ));
            let seed = seed.map_or("no seed (not reproducible)".to_string(), |seed| {
                format!("seed {seed}")
            });
            match &header.merged {
                Some(merged) => doc.line(format!(
                    "{seed} · {} · {}",
                    source.describe(),
                    merged_time(merged, header.elapsed_seconds, "simulation")
                )),
                None => doc.line(format!(
                    "{seed} · {} · {} · {:.2} s · {} shuffles/s",
                    source.describe(),
                    plural(threads as u64, "thread"),
                    header.elapsed_seconds,
                    rate(header.shuffles_per_second)
                )),
            }
        }
        _ => {}
    }
    if let Some(merged) = &header.merged {
        merged_files(merged, doc);
    }
    if let Some(reach) = &header.reachable {
        doc.line(format!(
            "reach: {}",
            reach.reach.clause(header.deck, reach.bits_of)
        ));
    }
    if let Some(definition) = header.definition {
        doc.text(format!("definition: {definition}"), "  ");
    }
}

/// How long a merged report took: the files' own times added up (each file's wall clock, so
/// with several threads a shard's CPU time is more), and the merge's own wall clock.
fn merged_time(merged: &MergedFrom, summed: f64, what: &str) -> String {
    format!(
        "{:.2} s of {what} summed over {} · merged in {:.2} s",
        summed,
        plural(merged.files.len() as u64, "tally file"),
        merged.merge_seconds
    )
}

/// Most tally files listed in the table of a merged report (JSON lists them all).
const MERGED_FILES_LISTED: usize = 8;

/// The tally files of a merged report, one line each: what each holds (its shard, or its
/// inputs and their lines) and its own time.
fn merged_files(merged: &MergedFrom, doc: &mut Document) {
    for file in merged.files.iter().take(MERGED_FILES_LISTED) {
        let what = match (&file.shard, &file.sources, file.lines) {
            (Some([index, count]), ..) => format!(
                "shard {index}/{count}: {} · {} · {:.2} s",
                plural(file.trials, "shuffle"),
                plural(file.threads.unwrap_or(1) as u64, "thread"),
                file.elapsed_seconds
            ),
            (None, Some(sources), Some(lines)) => format!(
                "{}: {} read, {} · {:.2} s",
                sources.join(", "),
                plural(lines, "line"),
                plural(file.trials, "permutation"),
                file.elapsed_seconds
            ),
            _ => plural(file.trials, "trial"),
        };
        let cut = if file.interrupted { " (cut short)" } else { "" };
        doc.line(format!("  {}: {what}{cut}", file.file));
    }
    if merged.files.len() > MERGED_FILES_LISTED {
        doc.line(format!(
            "  … and {} more (every file is listed in JSON)",
            merged.files.len() - MERGED_FILES_LISTED
        ));
    }
}

/// The anytime-valid sequential test: each test's e-value against 2K/alpha, where it stopped,
/// and the running evidence at a few checkpoints (every checkpoint is in JSON). On a large deck
/// only the strongest position test and those that reached the threshold are listed.
fn sequential_section(sequential: &SequentialOutcome, deck: usize, unit: &str, doc: &mut Document) {
    doc.heading(format!(
        "Sequential test (--until-decided): e-Bonferroni over {} tests, threshold 2K/alpha = {}",
        sequential.family_size, sequential.threshold
    ));
    let mut table = new_table(&["test", "cells", "e-value", "result"]);
    let fold_positions = deck > MATRIX_TABLE_MAX_DECK;
    let mut folded = 0;
    for test in &sequential.tests {
        if fold_positions
            && test.name.starts_with("position ")
            && !test.rejected
            && test.name != sequential.strongest
        {
            folded += 1;
            continue;
        }
        table.add_row(vec![
            test.name.clone(),
            group(test.cells as u64),
            format_e_value(test.log10_e_value),
            if test.rejected { "REJECTED" } else { "ok" }.to_string(),
        ]);
    }
    align_right_from(&mut table, 1);
    doc.table(table);
    if folded > 0 {
        doc.text(
            format!("({folded} more position tests below the threshold: --format json)"),
            " ",
        );
    }
    doc.text(
        if sequential.decided {
            format!(
                "decided after {}: {} reached the threshold",
                plural(sequential.trials_used, unit),
                sequential.strongest
            )
        } else {
            format!(
                "not decided within {}: the largest e-value ({}, {}) stayed below the threshold",
                plural(sequential.trials_used, unit),
                format_e_value(sequential.log10_strongest),
                sequential.strongest
            )
        },
        "  ",
    );
    // About eight checkpoints, evenly spread over the recorded ones, and the last.
    let points = &sequential.evidence;
    if !points.is_empty() {
        let step = points.len().div_ceil(8);
        let mut shown: Vec<String> = points
            .iter()
            .enumerate()
            .filter(|(i, _)| i % step == 0 || *i + 1 == points.len())
            .map(|(_, p)| {
                format!(
                    "{}: {}",
                    group(p.trials),
                    p.log10_ratio
                        .map_or("∞".to_string(), |r| format!("{r:+.2}"))
                )
            })
            .collect();
        shown.dedup();
        doc.text(
            format!(
                "running evidence, log10(largest e-value / threshold) after so many {unit}s (0 \
                 decides): {}",
                shown.join(" · ")
            ),
            "  ",
        );
    }
}

/// The family of tests; on a large deck the position tests that pass are summed up in one line.
fn tests_section(run: &RunReport, algorithm: &str, doc: &mut Document) {
    doc.heading(format!(
        "Tests against {}, Holm–Bonferroni over {} tests{}",
        match run.header.against {
            Against::Uniform => "uniform".to_string(),
            Against::Model => format!("the exact law of {algorithm}"),
        },
        run.tests.len(),
        if run.tests.iter().any(|t| t.descriptive) {
            " (descriptive: the run stopped on the sequential test)"
        } else {
            ""
        }
    ));
    let fold_positions = run.header.deck > MATRIX_TABLE_MAX_DECK;
    let is_position = |name: &str| name.starts_with("position ");
    let asked: Vec<Question> = Question::ALL
        .into_iter()
        .filter(|&q| run.tests.iter().any(|t| t.question == q))
        .collect();
    for question in asked {
        let of_question: Vec<&TestResult> = run
            .tests
            .iter()
            .filter(|t| t.question == question)
            .collect();
        let words = question.words();
        doc.text(
            format!(
                "{}{} ({})",
                words[..1].to_uppercase(),
                &words[1..],
                plural(of_question.len() as u64, "test")
            ),
            "  ",
        );
        let mut tests = new_table(&["test", "statistic", "df", "p", "Holm p", "result"]);
        for test in of_question {
            if fold_positions && is_position(&test.name) && !test.rejected {
                continue;
            }
            tests.add_row(vec![
                test.name.clone(),
                if test.method.is_count() {
                    format!("{} seen", group(test.statistic as u64))
                } else {
                    statistic_text(test.statistic)
                },
                test.df.map_or_else(
                    || match test.method {
                        TestMethod::PoissonTwoSided => "Poisson".to_string(),
                        TestMethod::NormalOccupancy | TestMethod::NormalTwoSided => {
                            "normal".to_string()
                        }
                        _ => "binom.".to_string(),
                    },
                    |df| group(df as u64),
                ),
                format_p(test.log10_p_value),
                format_p(test.log10_adjusted_p_value),
                fixed_sample_result(test).to_string(),
            ]);
        }
        align_right_from(&mut tests, 1);
        // On a terminal too narrow for every p-value whole, the raw p goes first (Holm's
        // adjusted p decides the result and stays).
        tests.droppable(&[3]);
        doc.table(tests);
    }
    if fold_positions {
        let positions: Vec<_> = run.tests.iter().filter(|t| is_position(&t.name)).collect();
        let rejected = positions.iter().filter(|t| t.rejected).count();
        if let Some(smallest) = positions.iter().min_by(|a, b| {
            a.log10_adjusted_p_value
                .total_cmp(&b.log10_adjusted_p_value)
        }) {
            doc.text(
                format!(
                    "({} position tests, {rejected} rejected and listed above; smallest Holm \
                     p = {} at {}; all of them: --format json, or csv --table tests)",
                    positions.len(),
                    format_p(smallest.log10_adjusted_p_value),
                    smallest.name
                ),
                " ",
            );
        }
    }
    for test in &run.tests {
        if let Some(note) = &test.note {
            doc.text(format!("  {}: {note}", test.name), "    ");
        }
    }
    // Serial slots shows one slot's χ² and df beside a p-value combined over every slot: say so.
    if let Some(deals) = &run.deal_stream
        && let Some(worst) = deals
            .slots
            .tables
            .iter()
            .min_by(|a, b| a.log10_p_value.total_cmp(&b.log10_p_value))
        && run.tests.iter().any(|t| t.name == "serial slots")
    {
        doc.text(
            format!(
                "  serial slots: the statistic and df are slot {}'s, the smallest p of the {} \
                 slots ({}); p is that times {} (Bonferroni over the slots)",
                worst.slot,
                deals.slots.tables.len(),
                format_p(worst.log10_p_value),
                deals.slots.tables.len()
            ),
            "    ",
        );
    }
}

/// A fixed-sample test's result: REJECTED, ok, or descriptive (after a sequential stop it
/// takes no part in the verdict).
fn fixed_sample_result(test: &TestResult) -> &'static str {
    match (test.descriptive, test.rejected) {
        (true, _) => "descriptive",
        (false, true) => "REJECTED",
        (false, false) => "ok",
    }
}

/// The tests of the stream of deals: what was counted, the reachable decks, the matches'
/// histogram, the slot tables, and the tests not run with their reasons.
fn deal_stream_section(deals: &DealStreamReport, doc: &mut Document) {
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
    for skipped in &deals.not_run {
        doc.text(
            format!("not run: {}: {}", skipped.test, skipped.reason),
            "    ",
        );
    }
}

/// A figure that may be tiny: `0.0312`, `5.6e-58`.
fn small_number(value: f64) -> String {
    if value == 0.0 || value >= 1e-3 {
        format!("{value:.4}")
    } else {
        format!("{value:.1e}")
    }
}

/// The figures of a full tally, observed beside theory and uniform.
fn figures_section(run: &RunReport, full: &FullPart, algorithm: &str, doc: &mut Document) {
    let theory_available = run.model.available;
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
    doc.table(figures);
    doc.line(format!(
        "(the position row is the cell furthest from uniform: {:+.3} percentage points)",
        deviation.deviation * 100.0
    ));
}

/// What the exact law implies for detection, when it is known.
fn power_section(run: &RunReport, doc: &mut Document) {
    match (
        run.model.noncentrality_per_trial,
        run.model.detection_power,
        run.model.trials_for_99_power,
    ) {
        (Some(w2), Some(power), Some(needed)) if w2 > 0.0 => {
            doc.blank();
            doc.text(
                format!(
                    "Power: w² = {w2:.6} per trial. {} trials detect this bias with \
                     probability {:.2}%; 99% power needs {} trials (the permutations test's upper \
                     tail at alpha/(2·{}) = {:.2e}).",
                    group(run.header.trials),
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
fn orderings_section(full: &FullPart, theory_available: bool, doc: &mut Document) {
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

impl TableExporter {
    fn compare(&self, compare: &CompareReport) -> Document {
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

/// Position matrices are printed as tables up to this many cards (wider ones go to CSV, JSON
/// and the picture).
const MATRIX_TABLE_MAX_DECK: usize = 12;

/// A value range of a pooled cell: `3`, `2–4`, `≥ 7`.
fn bin_label(bin: [usize; 2], last: usize) -> String {
    match bin {
        [start, end] if end - start == 1 => start.to_string(),
        [start, end] if end > last => format!("≥ {start}"),
        [start, end] => format!("{start}–{}", end - 1),
    }
}

fn statistic_table(statistic: &StatisticResult, algorithm: &str) -> TableBlock {
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
fn positions_section(run: &RunReport, algorithm: &str, doc: &mut Document) {
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

/// The sections of a deal report after the tests: its figures, the poker hands, the slots.
fn deal_sections(run: &RunReport, deal: &DealPart, doc: &mut Document) {
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
    let theory_header = format!("theory ({label})");
    let mut header = vec!["figure", "observed", theory_header.as_str(), "uniform"];
    if !with_theory {
        header.remove(2);
    }
    let mut figures = new_table(&header);
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
    for mut row in rows {
        if !with_theory {
            row.remove(2);
        }
        figures.add_row(row);
    }
    align_right_from(&mut figures, 1);
    doc.table(figures);
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
fn slot_table(matrix: &[Vec<f64>], card: &dyn Fn(usize) -> String) -> TableBlock {
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
const CATEGORY_SHORT: [&str; 9] = ["HC", "1P", "2P", "3K", "St", "Fl", "FH", "4K", "SF"];

/// A class of categories by short names: `2P` or `St–SF`.
fn class_label(class: &[usize; 2]) -> String {
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
fn poker_sections(poker: &PokerPart, hands: u64, doc: &mut Document) {
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

/// The sections of a marginal report after the tests: figures, statistics, positions.
/// The sections of a marginal report: its figures, one table per statistic, the positions.
fn marginal_sections(run: &RunReport, doc: &mut Document) {
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
fn marginal_figures(run: &RunReport, algorithm: &str, doc: &mut Document) {
    let with_theory = run.header.algorithm.is_some();
    doc.blank();
    let theory_header = format!("theory ({algorithm})");
    let mut header = vec!["figure", "observed", theory_header.as_str(), "uniform"];
    if !with_theory {
        header.remove(2);
    }
    let mut figures = new_table(&header);
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
    for mut row in rows {
        if !with_theory {
            row.remove(2);
        }
        figures.add_row(row);
    }
    align_right_from(&mut figures, 1);
    doc.table(figures);
    doc.text(
        format!(
            "(the position row is the cell furthest from uniform: {:+.3} percentage points)",
            deviation.deviation * 100.0
        ),
        "  ",
    );
}

/// One heading and table per permutation statistic.
fn statistic_sections(run: &RunReport, algorithm: &str, doc: &mut Document) {
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

/// Width of the text bars of a mixing curve.
const BAR_WIDTH: usize = 30;

fn mixing_document(mixing: &MixingReport) -> Document {
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

fn law_rows(rows: &[LawRow]) -> TableBlock {
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
fn single_document(single: &SingleReport) -> Document {
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

fn theory_document(theory: &TheoryReport) -> Document {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::mapped_source::SourceSpec;

    /// A compare report of every algorithm on 4 cards, 2,000 shuffles each.
    fn compare_of_every_algorithm() -> CompareReport {
        use crate::engine::algorithms::{Algorithm, Shuffle};
        use crate::engine::random_source::RngKind;
        use crate::engine::simulate::{Simulation, SimulationSpec, simulate};
        use crate::report::comparison::{CompareFacts, CompareRow, build_compare_report};
        use crate::report::run::{Against, Origin, RunFacts, build_run_report};
        use crate::theory::exact::exact_law;
        use std::sync::Arc;
        use std::sync::atomic::AtomicBool;
        let rows = Algorithm::ALL
            .iter()
            .map(|&algorithm| {
                let spec = SimulationSpec {
                    shuffle: Shuffle::from(algorithm),
                    deck: 4,
                    trials: 2000,
                    seed: 1,
                    rng: RngKind::Chacha8,
                    threads: 1,
                };
                let tally = simulate(
                    &spec,
                    &Simulation::default(),
                    &AtomicBool::new(false),
                    &mut |_| {},
                )
                .into_full();
                let facts = RunFacts {
                    command: "run",
                    shuffle: Some(spec.shuffle),
                    origin: Origin::Simulation {
                        seed: 1,
                        source: SourceSpec::chacha(RngKind::Chacha8),
                        threads: 1,
                    },
                    trials_requested: 2000,
                    elapsed_seconds: 0.0,
                    interrupted: false,
                    alpha: 0.001,
                    against: Against::Uniform,
                    all_orderings: false,
                };
                let law = exact_law(algorithm, 4, 1_000_000).map(Arc::new);
                CompareRow::from_run(&build_run_report(&facts, tally, Some(law)))
            })
            .collect();
        let facts = CompareFacts {
            deck: 4,
            trials_requested: 2000,
            seed: 1,
            rng: RngKind::Chacha8,
            threads: 1,
            alpha: 0.001,
            elapsed_seconds: 0.0,
            not_run: Vec::new(),
        };
        build_compare_report(facts, rows)
    }

    /// The widths of the lines of `text` as a terminal shows them (colour codes take none).
    fn shown_widths(text: &str) -> Vec<usize> {
        text.lines()
            .map(|line| {
                let mut width = 0;
                let mut in_code = false;
                for c in line.chars() {
                    match (in_code, c) {
                        (false, '\x1b') => in_code = true,
                        (true, 'm') => in_code = false,
                        (true, _) => {}
                        (false, _) => width += 1,
                    }
                }
                width
            })
            .collect()
    }

    #[test]
    fn coloured_compare_tables_keep_their_borders_aligned() {
        // Colour codes counted as text once pushed the right border 11 columns out.
        let report = compare_of_every_algorithm();
        let exporter = TableExporter {
            terminal: Terminal {
                colour: true,
                width: Some(200),
            },
        };
        let text = exporter.document(&Report::Compare(&report)).to_terminal();
        assert!(text.contains("\x1b[1;32m"), "the verdicts are coloured");
        let table_lines: Vec<&str> = text.lines().filter(|l| l.starts_with(['│', '╭'])).collect();
        let widths = shown_widths(&table_lines.join("\n"));
        assert!(widths.windows(2).all(|w| w[0] == w[1]), "{widths:?}");
    }

    #[test]
    fn compare_fits_an_80_column_terminal_in_two_tables() {
        let report = compare_of_every_algorithm();
        let wide = TableExporter {
            terminal: Terminal::default(),
        };
        let narrow = TableExporter {
            terminal: Terminal {
                colour: true,
                width: Some(80),
            },
        };
        let wide_text = wide.document(&Report::Compare(&report)).to_terminal();
        assert!(shown_widths(&wide_text).iter().any(|&w| w > 80));
        let text = narrow.document(&Report::Compare(&report)).to_terminal();
        assert!(shown_widths(&text).iter().all(|&w| w <= 80), "{text}");
        assert_eq!(text.matches('╭').count(), 2, "two tables: {text}");
        for header in ["p (χ²)", "TV distance", "99% power", "verdict"] {
            assert!(text.contains(header), "{header}");
        }
    }

    #[test]
    fn small_percentages_keep_three_significant_digits() {
        assert_eq!(percent(0.25), "25.000%");
        assert_eq!(percent(0.0), "0.000%");
        assert_eq!(percent(1.0 / 362_880.0), "2.756e-4%");
    }
}
