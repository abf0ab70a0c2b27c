//! Tests of the tables: each table's rows and widths.

use super::cells::percent;
use super::*;
use crate::engine::mapped_source::SourceSpec;
use crate::report::comparison::CompareReport;

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
