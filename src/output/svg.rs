//! SVG: the report as a picture (`--plot FILE.svg`), drawn by [`crate::output::plot`].
//!
//! A run or check becomes the position heat map beside the frequencies of the orderings (full
//! mode) — observed, with the uniform line and the exact law where known; `theory` draws the
//! law alone; `compare` draws one heat map per algorithm on a shared colour scale; a mixing
//! curve draws the distance to uniform against the number of passes; under `--until-decided` a
//! run or check draws its running evidence against the trials instead.

use std::io::{self, Write};

use super::text::{group, plural};
use super::{Exporter, Report};
use crate::output::plot::{
    MatrixSource, MixingSeries, NamedMatrix, OrderingCounts, Orderings, PlotError, RunPicture,
    StatisticSeries, TvAxis, compare_picture, evidence_chart, mixing_curve, run_picture,
};
use crate::report::run::RunReport;

/// Writes one SVG picture.
pub struct SvgExporter;

impl Exporter for SvgExporter {
    fn export(&self, report: &Report, out: &mut dyn Write) -> io::Result<()> {
        let svg = picture(report).map_err(|error| match error {
            PlotError::InvalidInput(message) | PlotError::Drawing(message) => {
                io::Error::other(message)
            }
        })?;
        out.write_all(svg.as_bytes())
    }
}

fn run_title(run: &RunReport) -> String {
    let what = match (&run.header.input, run.shuffle_label()) {
        (Some(input), _) => format!(
            "check · {} · {}",
            input.sources.join(", "),
            run.shuffle_label()
                .map_or("against uniform".to_string(), |l| format!("against {l}"))
        ),
        (None, label) => label.unwrap_or_default(),
    };
    let seed = run
        .header
        .seed
        .map_or(String::new(), |s| format!(" · seed {s}"));
    format!(
        "{what} · {} cards · {}{seed}",
        run.header.deck,
        plural(
            run.header.trials,
            if run.header.input.is_some() {
                "permutation"
            } else {
                "trial"
            }
        )
    )
}

fn picture(report: &Report) -> Result<String, PlotError> {
    match report {
        Report::Run(run) if run.sequential.is_some() => {
            let sequential = run.sequential.as_ref().expect("matched");
            let points: Vec<(u64, Option<f64>)> = sequential
                .evidence
                .iter()
                .map(|p| (p.trials, p.log10_ratio))
                .collect();
            evidence_chart(
                &format!("{} · running evidence (--until-decided)", run_title(run)),
                &points,
            )
        }
        Report::Run(run) => {
            let title = run_title(run);
            let orderings = run.full().map(|full| Orderings {
                observed: Some(OrderingCounts {
                    counts: full.permutations.counts(),
                    trials: run.header.trials,
                }),
                theory: full.permutations.theory(),
            });
            let trials = run.header.trials.max(1) as f64;
            let frequencies: Vec<Vec<f64>> = run
                .statistics()
                .iter()
                .map(|s| s.observed.iter().map(|&c| c as f64 / trials).collect())
                .collect();
            let series: Vec<StatisticSeries> = run
                .statistics()
                .iter()
                .zip(&frequencies)
                .map(|(s, observed)| StatisticSeries {
                    name: s.name,
                    observed,
                    uniform: &s.uniform,
                    theory: s.theory.as_deref(),
                })
                .collect();
            run_picture(&RunPicture {
                title: &title,
                positions: &run.positions.frequencies,
                source: MatrixSource::Observed,
                orderings,
                statistics: Some(&series),
            })
        }
        Report::Theory(theory) => {
            let title = format!(
                "exact law of {} · {} cards",
                theory.shuffle_label(),
                theory.deck
            );
            run_picture(&RunPicture {
                title: &title,
                positions: &theory.positions,
                source: MatrixSource::Theory,
                orderings: Some(Orderings {
                    observed: None,
                    theory: Some(theory.permutations.probabilities()),
                }),
                statistics: None,
            })
        }
        Report::Compare(compare) => {
            let title = format!(
                "{} cards · {} each · seed {}",
                compare.deck,
                plural(compare.trials_requested, "trial"),
                compare.seed
            );
            let panels: Vec<NamedMatrix> = compare
                .rows
                .iter()
                .map(|row| NamedMatrix {
                    name: row.algorithm,
                    positions: &row.position_frequencies,
                    orderings: row.orderings.as_ref().map(|table| Orderings {
                        observed: Some(OrderingCounts {
                            counts: table.counts(),
                            trials: row.trials,
                        }),
                        theory: table.theory(),
                    }),
                })
                .collect();
            compare_picture(&title, &panels)
        }
        Report::Mixing(mixing) => {
            let title = format!(
                "{} · {} cards: total variation distance to uniform",
                crate::engine::algorithms::shuffle_label(
                    mixing.algorithm,
                    mixing.cut_probability,
                    mixing.shelves,
                    1
                ),
                mixing.deck
            );
            let points: Vec<(u32, f64)> = mixing
                .points
                .iter()
                .map(|p| (p.passes, p.tv_distance))
                .collect();
            mixing_curve(
                &title,
                &[MixingSeries {
                    name: mixing.algorithm,
                    points: &points,
                }],
                TvAxis::Linear,
            )
        }
        Report::Single(single) => {
            // The permutation as a matrix of 0s and 1s: the scatter of cards against positions
            // (the draft lottery's classic picture).
            let n = single.deck;
            let mut positions = vec![vec![0.0; n]; n];
            for (position, &card) in single.permutation.iter().enumerate() {
                positions[card][position] = 1.0;
            }
            let title = format!(
                "one permutation of {} · Spearman's rho {:.3}",
                group(n as u64),
                single.spearman_rho
            );
            run_picture(&RunPicture {
                title: &title,
                positions: &positions,
                source: MatrixSource::Observed,
                orderings: None,
                statistics: None,
            })
        }
        Report::List(_) | Report::Cases(_) => Err(PlotError::InvalidInput(
            "the algorithm list has nothing to draw".to_string(),
        )),
    }
}
