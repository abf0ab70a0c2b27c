//! The report of a run or a check: its title, headline and verdict, the merged files, the
//! sequential test and the table of tests; the sections of each mode come from their own files.

use super::TableExporter;
use super::cells::{MATRIX_TABLE_MAX_DECK, align_right_from, new_table, rate, statistic_text};
use super::deals::{deal_sections, deal_stream_section};
use super::figures::{
    figures_section, marginal_sections, orderings_section, positions_section, power_section,
};
use crate::analysis::decision::format_p;
use crate::analysis::diagnosis::Diagnosis;
use crate::analysis::predictability::Predictability;
use crate::analysis::{Question, TestMethod};
use crate::input::permutation_reader::Numbering;
use crate::output::document::Document;
use crate::output::text::{group, plural};
use crate::report::case::{Agreement, CaseReport};
use crate::report::run::{Against, ModePart, RunReport};
use crate::report::run::{MergedFrom, SequentialOutcome, TestResult, format_e_value};

impl TableExporter {
    pub(super) fn run(&self, run: &RunReport) -> Document {
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
        if let Some(case) = &run.case {
            doc.blank();
            case_section(case, &mut doc);
        }
        if let Some(predictability) = &run.predictability {
            doc.blank();
            predictability_section(predictability, &mut doc);
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
        if let Some(diagnosis) = &run.diagnosis {
            doc.blank();
            diagnosis_section(run, diagnosis, &mut doc);
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

/// `case NAME`: the story, what is emulated, and each published figure beside the tool's.
fn case_section(case: &CaseReport, doc: &mut Document) {
    doc.heading(format!(
        "The case: {} ({}, {})",
        case.name, case.title, case.year
    ));
    doc.text(case.story, "  ");
    doc.text(format!("emulates: {}", case.emulates), "  ");
    doc.text(format!("published: {}", case.reference), "  ");
    let mut table = new_table(&["claim", "published", "shuffle-bias", "how", "agrees"]);
    for figure in &case.figures {
        table.add_row(vec![
            figure.claim.clone(),
            figure.published.clone(),
            figure.tool.clone(),
            figure.how.clone(),
            match figure.agreement {
                Agreement::Reproduced => "reproduced",
                Agreement::NotReproduced => "NOT reproduced",
                Agreement::Beside => "shown beside",
                Agreement::NotCompared => "not compared",
            }
            .to_string(),
        ]);
    }
    table.droppable(&[3]);
    doc.table(table);
}

/// A source re-seeded from a small seed space: what the visible cards give away.
fn predictability_section(predictability: &Predictability, doc: &mut Document) {
    doc.heading("Predictability: how many visible cards identify the deck?");
    doc.text(&predictability.sentence, "  ");
    if let Some(why) = &predictability.why_estimated {
        doc.text(format!("note: estimated: {why}"), "  ");
    }
    if predictability.seeds > 1 {
        let mut table = new_table(&["visible cards", "decks identified"]);
        let last = predictability
            .cards_to_identify_nearly_all
            .unwrap_or(predictability.visible.len())
            .min(predictability.visible.len());
        for row in &predictability.visible[..last] {
            table.add_row(vec![
                row.cards.to_string(),
                format!("{:.2}%", 100.0 * row.identified),
            ]);
        }
        table.align_right_from(0);
        doc.table(table);
    }
}

/// `--explain`: the finding, the models fitted (best first, the fitting ones and the next few)
/// and the signatures with their evidence; a pass repeats what the sample rules out.
fn diagnosis_section(run: &RunReport, diagnosis: &Diagnosis, doc: &mut Document) {
    doc.heading("Diagnosis (--explain): which bug does this shuffle have?");
    doc.text(&diagnosis.finding, "  ");
    if diagnosis.suspect.is_none()
        && diagnosis.fits.iter().any(|fit| fit.uniform && fit.fits)
        && diagnosis.signatures.is_empty()
        && let Some(ruled_out) = run.ruled_out.as_ref()
    {
        doc.text(format!("{}:", ruled_out.heading()), "  ");
        for sentence in ruled_out.sentences() {
            doc.text(format!("- {sentence}"), "    ");
        }
    }
    if let Some(limitation) = &diagnosis.limitation {
        doc.text(format!("note: {limitation}"), "  ");
    }
    if !diagnosis.fits.is_empty() {
        let mut table = new_table(&["model", "χ²", "df", "p-value", "fits"]);
        // Every model that fits, and the three closest that do not.
        let fitting = diagnosis.fits.iter().filter(|fit| fit.fits).count();
        let shown = (fitting + 3).min(diagnosis.fits.len());
        for fit in &diagnosis.fits[..shown] {
            table.add_row(vec![
                fit.model.clone(),
                if fit.impossible_decks > 0 {
                    "-".to_string()
                } else {
                    format!("{:.1}", fit.chi_square)
                },
                fit.df.to_string(),
                if fit.impossible_decks > 0 {
                    format!("0 ({} impossible)", group(fit.impossible_decks))
                } else {
                    format_p(fit.log10_p.unwrap_or(f64::NEG_INFINITY))
                },
                if fit.fits { "yes" } else { "no" }.to_string(),
            ]);
        }
        align_right_from(&mut table, 1);
        doc.table(table);
        if shown < diagnosis.fits.len() {
            doc.text(
                format!(
                    "({} more models fitted worse: --format json)",
                    diagnosis.fits.len() - shown
                ),
                " ",
            );
        }
        if let Some(method) = &diagnosis.method {
            doc.text(format!("method: {method}"), "  ");
        }
        if let Some(grid) = &diagnosis.grid {
            doc.text(format!("grid: {grid}"), "  ");
        }
    }
    for unfitted in &diagnosis.unfitted {
        doc.text(
            format!("not fitted: {}: {}", unfitted.model, unfitted.reason),
            "  ",
        );
    }
    if !diagnosis.signatures.is_empty() {
        doc.text("Signatures (each tested against uniform at alpha/6):", "  ");
        for signature in &diagnosis.signatures {
            doc.text(
                format!(
                    "- {} (p = {}): {}; suggests {}",
                    signature.title,
                    format_p(signature.log10_p.unwrap_or(f64::NEG_INFINITY)),
                    signature.evidence,
                    signature.suggests
                ),
                "    ",
            );
        }
    }
}

/// The title of a run or check, and the line of how it went.
pub(super) fn run_title(run: &RunReport, algorithm: &str, doc: &mut Document) {
    let header = &run.header;
    let interrupted = match (header.interrupted, &header.input) {
        (false, _) => String::new(),
        (true, None) => format!(" (interrupted after {})", plural(header.trials, "trial")),
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
                    "{} read · {}",
                    plural(input.lines, "line"),
                    merged_time(merged, header.elapsed_seconds, "reading")
                )),
                None => doc.line(format!(
                    "{} read · {:.2} s · {} {}/s",
                    plural(input.lines, "line"),
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
pub(super) fn merged_time(merged: &MergedFrom, summed: f64, what: &str) -> String {
    format!(
        "{:.2} s of {what} summed over {} · merged in {:.2} s",
        summed,
        plural(merged.files.len() as u64, "tally file"),
        merged.merge_seconds
    )
}

/// Most tally files listed in the table of a merged report (JSON lists them all).
pub(super) const MERGED_FILES_LISTED: usize = 8;

/// The tally files of a merged report, one line each: what each holds (its shard, or its
/// inputs and their lines) and its own time.
pub(super) fn merged_files(merged: &MergedFrom, doc: &mut Document) {
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
pub(super) fn sequential_section(
    sequential: &SequentialOutcome,
    deck: usize,
    unit: &str,
    doc: &mut Document,
) {
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
pub(super) fn tests_section(run: &RunReport, algorithm: &str, doc: &mut Document) {
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
                        TestMethod::MeanKernelLawTwoSided => "exact".to_string(),
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
    for (first, last, note) in note_runs(&run.tests) {
        let names = if first == last {
            first.to_string()
        } else {
            format!("{first} to {last}, each")
        };
        doc.text(format!("  {names}: {note}"), "    ");
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
            "  ",
        );
    }
}

/// A fixed-sample test's result: REJECTED, ok, or descriptive (after a sequential stop it
/// takes no part in the verdict).
pub(super) fn fixed_sample_result(test: &TestResult) -> &'static str {
    match (test.descriptive, test.rejected) {
        (true, _) => "descriptive",
        (false, true) => "REJECTED",
        (false, false) => "ok",
    }
}

/// The tests' notes as runs: consecutive tests of one family (`position 0`, `position 1`, …) with
/// the same note make one run, so that the position tests of a sparse 1,000-card tally (each
/// noting that its cards were pooled) take one line, not a thousand. Each run: its first and
/// last test's names, and the note.
fn note_runs(tests: &[TestResult]) -> Vec<(&str, &str, String)> {
    let family = |name: &str| name.rsplit_once(' ').map_or(name.to_string(), |(f, _)| f.to_string());
    let mut runs: Vec<(&str, &str, String)> = Vec::new();
    let mut previous: Option<&TestResult> = None;
    for test in tests {
        let Some(note) = &test.note else {
            previous = None;
            continue;
        };
        let note = note.to_string();
        match (runs.last_mut(), previous) {
            (Some(run), Some(before))
                if run.2 == note && family(&before.name) == family(&test.name) =>
            {
                run.1 = &test.name;
            }
            _ => runs.push((&test.name, &test.name, note)),
        }
        previous = Some(test);
    }
    runs
}
