//! `--brief`: a report in one line, for scripts and CI logs. A run (or check, or merge) says
//! its verdict, how much was tallied, its strongest test (the smallest Holm-adjusted p-value)
//! and what its sample rules out, or on how many tests it failed; a comparison says its
//! verdict and each algorithm's. The exit code is the full report's.

use std::io::{self, Write};

use super::table::painted;
use super::text::plural;
use super::{Exporter, Report};
use crate::analysis::decision::format_p;
use crate::report::comparison::CompareReport;
use crate::report::run::{Against, RunReport, format_e_value};

/// Writes the one line, its verdict in bold red or green when `colour` (`--color`, or a
/// terminal without NO_COLOR), as the table's headline is.
pub struct BriefExporter {
    /// Whether to colour the verdict.
    pub colour: bool,
}

impl Exporter for BriefExporter {
    fn export(&self, report: &Report, out: &mut dyn Write) -> io::Result<()> {
        // The line, and its verdict: the words before the first ` · `, and whether they fail.
        let (line, failed) = match report {
            Report::Run(run) => (run_line(run), run.headline().1),
            Report::Compare(compare) => (compare_line(compare), !compare.all_as_expected),
            Report::Single(single) => (single_line(single), single.bias_detected),
            // The commands without a verdict have no --brief.
            Report::Theory(_) | Report::Mixing(_) | Report::List(_) | Report::Cases(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "--brief: this report has no verdict to say in one line",
                ));
            }
        };
        let line = match line.split_once(" · ") {
            Some((verdict, rest)) if self.colour => {
                format!("{} · {rest}", painted(verdict, failed))
            }
            _ => line,
        };
        writeln!(out, "{line}")?;
        out.flush()
    }
}

/// `NO BIAS DETECTED · 1,000,000 shuffles of 5 cards · strongest test: position 3 (Holm p
/// 0.4123) · rules out (99% each): TV distance above 0.0213, a position's chance off 1/n by
/// more than 0.45 pp`; in marginal mode the guessing game's mean last (`guessing game: 4.56 of
/// 52 cards guessed, 4.54 by chance`).
pub fn run_line(run: &RunReport) -> String {
    let (headline, _) = run.headline();
    // What was counted, as the table's title says it: shuffles run, permutations read, or
    // deals read (`check --deal K`: K cards of the deck each).
    let unit = match (run.header.input.is_some(), run.deal()) {
        (_, Some(_)) => "deal",
        (true, None) => "permutation",
        (false, None) => "shuffle",
    };
    let counted = |count: u64| plural(count, unit);
    let mut parts = vec![
        headline,
        match run.deal() {
            Some(deal) => format!(
                "{} of {} cards from {}",
                counted(run.header.trials),
                deal.cards_per_deal,
                run.header.deck
            ),
            None => format!("{} of {} cards", counted(run.header.trials), run.header.deck),
        },
    ];
    if run.header.against == Against::Model {
        parts.push(format!(
            "against {}'s exact law",
            run.header.algorithm.unwrap_or("the algorithm")
        ));
    }
    // `--until-decided`: a stop the sequential part chose is said as what it is; when its
    // family rejected, the fixed-sample tests are only descriptive and are not quoted.
    let gated = run.gate.is_some();
    let sequential = run
        .sequential
        .as_ref()
        .filter(|o| o.stopped_the_run(gated));
    if let Some(outcome) = sequential.filter(|o| o.decided) {
        // A stop on a test a size in points does not measure quotes that test.
        let (name, log10_e) = match outcome
            .unmeasured
            .as_ref()
            .and_then(|name| outcome.tests.iter().find(|test| &test.name == name))
        {
            Some(test) => (test.name.as_str(), test.log10_e_value),
            None => (outcome.strongest.as_str(), outcome.log10_strongest),
        };
        parts.push(format!(
            "sequential test: {name} (e-value {} ≥ 2K/alpha = {}) after {}",
            format_e_value(log10_e),
            outcome.threshold,
            counted(outcome.trials_used)
        ));
    } else {
        parts.extend(strongest_clause(
            run.tests
                .iter()
                .map(|t| (t.name.as_str(), t.log10_adjusted_p_value, t.log10_p_value)),
        ));
        let rejected = run.tests.iter().filter(|t| t.rejected).count();
        if rejected > 0 {
            parts.push(format!(
                "rejected by {rejected} of {} tests",
                run.tests.len()
            ));
        }
    }
    if let Some(outcome) = sequential {
        for (size, side) in [
            (&outcome.shown_within, "within"),
            (&outcome.shown_beyond, "beyond"),
        ] {
            if let Some(size) = size {
                parts.push(format!(
                    "the 99% confidence sequences show the bias {side} {size} after {}",
                    counted(outcome.trials_used)
                ));
            }
        }
    }
    if let Some(ruled_out) = run.ruled_out.as_ref().filter(|_| run.shows_ruled_out()) {
        let mut clauses = Vec::new();
        if let Some(tv) = &ruled_out.total_variation {
            clauses.push(format!("TV distance above {:.4}", tv.at_most));
        }
        if let Some(positions) = &ruled_out.position_chances {
            clauses.push(format!(
                "a position's chance off 1/n by more than {:.2} pp",
                positions.within * 100.0
            ));
        }
        if !clauses.is_empty() {
            parts.push(format!(
                "rules out ({:.0}% each): {}",
                ruled_out.confidence * 100.0,
                clauses.join(", ")
            ));
        }
    }
    // Marginal mode: the guessing game, the one figure a reader can picture (cards guessed).
    if let Some(game) = run.guessing_game() {
        parts.push(format!(
            "guessing game: {:.2} of {} cards guessed, {:.2} by chance",
            game.guessed, game.deck, game.by_chance
        ));
    }
    parts.join(" · ")
}

/// `ALL AS EXPECTED · 4 cards, 1,000,000 shuffles each · fisher-yates fair ✓, naive biased ✓`.
pub fn compare_line(compare: &CompareReport) -> String {
    let headline = if compare.all_as_expected {
        "ALL AS EXPECTED"
    } else {
        "NOT AS EXPECTED"
    };
    let rows: Vec<String> = compare
        .rows
        .iter()
        .map(|row| {
            let verdict = match (row.bias_detected, row.as_expected) {
                (true, true) => "biased ✓",
                (false, true) => "fair ✓",
                (true, false) => "BIASED ✗",
                (false, false) => "missed ✗",
            };
            format!("{} {verdict}", row.algorithm)
        })
        .collect();
    let mut parts = vec![
        headline.to_string(),
        format!(
            "{} cards, {} each",
            compare.deck,
            plural(compare.trials_requested, "shuffle")
        ),
        rows.join(", "),
    ];
    if !compare.not_run.is_empty() {
        parts.push(format!(
            "not run (interrupted): {}",
            compare.not_run.join(", ")
        ));
    }
    parts.join(" · ")
}

/// `BIAS DETECTED · one permutation of 366 items · Spearman's rho -0.2257 · strongest test:
/// footrule (Holm p 4.95e-5) · 3 of 9 tests reject`.
pub fn single_line(single: &crate::report::single::SingleReport) -> String {
    let headline = if single.bias_detected {
        "BIAS DETECTED"
    } else {
        "NO BIAS DETECTED"
    };
    let mut parts = vec![
        headline.to_string(),
        format!("one permutation of {} items", single.deck),
        format!("Spearman's rho {:.4}", single.spearman_rho),
    ];
    parts.extend(strongest_clause(
        single
            .tests
            .iter()
            .map(|t| (t.name, t.log10_adjusted_p_value, t.log10_p_value)),
    ));
    let rejected = single.tests.iter().filter(|test| test.rejected).count();
    if rejected > 0 {
        parts.push(format!("{rejected} of {} tests reject", single.tests.len()));
    }
    parts.join(" · ")
}

/// `strongest test: NAME (Holm p P)` for the test of smallest Holm-adjusted p among
/// (name, log10 of that p, log10 of its raw p), if any. Holm's p-values tie often (every one
/// is 1 in many a pass), so a tie goes to the smallest raw p: the test that came closest.
fn strongest_clause<'a>(tests: impl Iterator<Item = (&'a str, f64, f64)>) -> Option<String> {
    tests
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.2.total_cmp(&b.2)))
        .map(|(name, log10, _)| format!("strongest test: {name} (Holm p {})", format_p(log10)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_strongest_test_has_the_smallest_holm_p_and_a_tie_goes_to_the_smallest_raw_p() {
        // A pass: every Holm p is 1, and position 0 came closest (raw p 0.33 against 0.94).
        let tied = [
            ("permutations", 0.0, 0.9427f64.log10()),
            ("position 0", 0.0, 0.3288f64.log10()),
            ("identity", 0.0, 0.6f64.log10()),
        ];
        let clause = strongest_clause(tied.into_iter()).unwrap();
        assert!(clause.starts_with("strongest test: position 0 "), "{clause}");
        // Holm's order decides first.
        let ordered = [("permutations", -5.0, -6.0), ("position 0", -1.0, -9.0)];
        let clause = strongest_clause(ordered.into_iter()).unwrap();
        assert!(clause.starts_with("strongest test: permutations "), "{clause}");
        assert_eq!(strongest_clause(std::iter::empty()), None);
    }
}
