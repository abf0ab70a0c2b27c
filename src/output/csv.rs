//! CSV: one table per file, a header row, then data (columns documented in the README).
//!
//! Numbers are written in Rust's shortest round-trip form; a field that is not available (a
//! theory column without an exact law, a p-value below 1e-300) is empty.

use std::io::{self, Write};

use super::{CsvTable, Exporter, Report, entries};
use crate::engine::permutation::{factorial, format_permutation};
use crate::report::comparison::CompareReport;
use crate::report::notes::MAX_LISTED_DECK;
use crate::report::run::{ModePart, PermutationTable, PokerPart, RunReport};
use crate::report::theory::TheoryReport;
use crate::theory::poker::Category;

/// Writes the chosen table.
pub struct CsvExporter {
    /// Which table.
    pub table: CsvTable,
}

fn opt<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// A CSV error as the I/O error it wraps, so that a closed pipe is still recognised as one.
/// The refusal of `--table permutations` for a deck whose orderings are not listed.
fn unlisted(deck: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "--table permutations: {deck} cards have {} orderings, more rows than are written \
             by default (up to {MAX_LISTED_DECK} cards); add --all-orderings to write every one",
            factorial(deck)
        ),
    )
}

fn into_io(error: csv::Error) -> io::Error {
    match error.into_kind() {
        csv::ErrorKind::Io(error) => error,
        other => io::Error::other(format!("{other:?}")),
    }
}

impl Exporter for CsvExporter {
    fn export(&self, report: &Report, out: &mut dyn Write) -> io::Result<()> {
        self.write(report, out).map_err(into_io)
    }
}

impl CsvExporter {
    fn write(&self, report: &Report, out: &mut dyn Write) -> csv::Result<()> {
        let mut writer = csv::Writer::from_writer(out);
        match report {
            Report::Run(run) => write_run(&mut writer, run, self.table)?,
            Report::Compare(compare) => write_compare(&mut writer, compare)?,
            Report::Theory(theory) => write_theory(&mut writer, theory, self.table)?,
            Report::Single(single) => {
                // One table: the family of tests (whatever --table asks).
                writer.write_record([
                    "test",
                    "value",
                    "uniform_mean",
                    "uniform_sd",
                    "method",
                    "p_value",
                    "log10_p_value",
                    "adjusted_p_value",
                    "rejected",
                ])?;
                for test in &single.tests {
                    writer.write_record([
                        test.name.to_string(),
                        test.value.to_string(),
                        test.uniform_mean.to_string(),
                        test.uniform_sd.to_string(),
                        test.method.to_string(),
                        test.p_value.map_or(String::new(), |p| p.to_string()),
                        test.log10_p_value.to_string(),
                        test.adjusted_p_value
                            .map_or(String::new(), |p| p.to_string()),
                        test.rejected.to_string(),
                    ])?;
                }
            }
            Report::Mixing(mixing) => {
                writer.write_record([
                    "algorithm",
                    "deck",
                    "passes",
                    "tv_distance",
                    "method",
                    "shelves",
                    "separation",
                ])?;
                for point in &mixing.points {
                    writer.write_record([
                        mixing.algorithm.to_string(),
                        mixing.deck.to_string(),
                        point.passes.to_string(),
                        point.tv_distance.to_string(),
                        mixing.method.name().to_string(),
                        opt(mixing.shelves),
                        opt(point.separation),
                    ])?;
                }
            }
            Report::List(algorithms) => {
                writer.write_record(["name", "definition", "meant_uniform"])?;
                for entry in entries(algorithms) {
                    writer.write_record([
                        entry.name.to_string(),
                        entry.definition.to_string(),
                        entry.meant_uniform.to_string(),
                    ])?;
                }
            }
            Report::Cases(cases) => {
                writer.write_record(["name", "year", "title", "deck", "expect"])?;
                for case in *cases {
                    writer.write_record([
                        case.name.to_string(),
                        case.year.to_string(),
                        case.title.to_string(),
                        case.deck.to_string(),
                        case.expect.to_string(),
                    ])?;
                }
            }
        }
        writer.flush()?;
        Ok(())
    }
}

/// `compare`: one row per algorithm.
fn write_compare<W: Write>(
    writer: &mut csv::Writer<W>,
    compare: &CompareReport,
) -> csv::Result<()> {
    writer.write_record([
        "algorithm",
        "meant_uniform",
        "deck",
        "trials",
        "seed",
        "chi_square",
        "df",
        "p_value",
        "log10_p_value",
        "max_min_ratio",
        "max_min_ratio_theory",
        "identity_frequency",
        "identity_theory",
        "largest_deviation_card",
        "largest_deviation_position",
        "largest_deviation",
        "tv_distance",
        "tv_distance_theory",
        "trials_to_detect",
        "bias_detected",
        "as_expected",
        "tv_distance_at_most_99",
        "position_within_99",
    ])?;
    for row in &compare.rows {
        writer.write_record([
            row.algorithm.to_string(),
            row.meant_uniform.to_string(),
            compare.deck.to_string(),
            row.trials.to_string(),
            compare.seed.to_string(),
            row.chi_square.to_string(),
            row.df.to_string(),
            opt(row.p_value),
            row.log10_p_value.to_string(),
            opt(row.max_min_ratio),
            opt(row.max_min_ratio_theory),
            row.identity_frequency.to_string(),
            opt(row.identity_theory),
            row.largest_deviation.card.to_string(),
            row.largest_deviation.position.to_string(),
            row.largest_deviation.deviation.to_string(),
            row.tv_distance.to_string(),
            opt(row.tv_distance_theory),
            opt(row.trials_to_detect),
            row.bias_detected.to_string(),
            row.as_expected.to_string(),
            opt(row.tv_distance_at_most),
            opt(row.position_within),
        ])?;
    }
    Ok(())
}

fn write_run<W: Write>(
    writer: &mut csv::Writer<W>,
    run: &RunReport,
    table: CsvTable,
) -> csv::Result<()> {
    match (table, &run.part) {
        (CsvTable::Summary, _) => write_run_summary(writer, run),
        (CsvTable::Tests, _) => write_run_tests(writer, run),
        (CsvTable::Statistics, ModePart::Marginal(_)) => write_run_statistics(writer, run),
        (CsvTable::Statistics, ModePart::Deal(_)) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "--table statistics: a deal report tallies slots, not permutation statistics; use \
             --table summary, tests, positions or hands",
        )
        .into()),
        (CsvTable::Statistics, ModePart::Full(_)) => {
            // Reached when `check --mode auto` learns from the input that the deck is small
            // enough for every ordering to be tallied: a full tally has no statistics table,
            // and a header alone would read as an empty result.
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "--table statistics: {} cards were tallied in full mode (every ordering \
                     counted), which has no permutation statistics table; add --mode marginal, \
                     or use --table summary, tests, permutations or positions",
                    run.header.deck
                ),
            )
            .into())
        }
        (CsvTable::Permutations, ModePart::Marginal(_)) => {
            // Reached when `check --mode auto` learns from the input that the deck is too large
            // for every ordering to be tallied; the flags could not be refused earlier.
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "--table permutations: {} cards were tallied in marginal mode, which counts \
                     no orderings; use --table summary, tests, positions or statistics",
                    run.header.deck
                ),
            )
            .into())
        }
        (CsvTable::Permutations, ModePart::Deal(_)) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "--table permutations: a deal report tallies slots, not orderings; use --table \
             summary, tests, positions or hands",
        )
        .into()),
        (CsvTable::Hands, ModePart::Deal(deal)) if deal.poker.is_some() => {
            write_run_hands(writer, deal.poker.as_ref().expect("checked"))
        }
        (CsvTable::Hands, _) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "--table hands: the report has no poker hands; add --deal 5 --game poker",
        )
        .into()),
        (CsvTable::Permutations, ModePart::Full(full)) if !full.permutations.listed() => {
            Err(unlisted(run.header.deck).into())
        }
        (CsvTable::Permutations, ModePart::Full(full)) => {
            write_run_permutations(writer, &full.permutations)
        }
        (CsvTable::Positions, _) => write_run_positions(writer, run),
    }
}

/// One row of every headline figure (the full tally's figures empty in marginal mode).
fn write_run_summary<W: Write>(writer: &mut csv::Writer<W>, run: &RunReport) -> csv::Result<()> {
    let full = run.full();
    let reseed = run.header.source.and_then(|source| source.reseed);
    let reach = run
        .header
        .reachable
        .as_ref()
        .map(|reachable| reachable.reach);
    let mut header = vec![
        "algorithm",
        "deck",
        "trials",
        "seed",
        "rng",
        "map",
        "bits",
        "state_bits",
        "reseed",
        "seed_bits",
        "seeds",
        "reachable_bits",
        "ordering_bits",
        "log10_reachable_fraction",
        "threads",
        "alpha",
        "against",
        "bias_detected",
        "identity_count",
        "identity_frequency",
        "identity_expected_frequency",
        "identity_theory_frequency",
        "max_min_ratio",
        "max_min_ratio_theory",
        "never_seen",
        "tv_distance",
        "tv_distance_theory",
        "largest_position_deviation",
        "noncentrality_per_trial",
        "detection_power",
        "trials_for_99_power",
        "interrupted",
        "elapsed_seconds",
        "shuffles_per_second",
        "passes",
        "cut_probability",
        "shelves",
        "consecutive_pairs",
        "distinct_decks",
        "repeated_pairs",
        "expected_repeated_pairs",
        "reachable_estimate",
        "reachable_low",
        "reachable_high",
        "serial_matches_mean",
    ];
    let deals = run.deal_stream.as_ref();
    let repeats = deals.map(|d| &d.repeats);
    let reachable = repeats.and_then(|r| r.reachable);
    let mut record = vec![
        run.header.algorithm.unwrap_or_default().to_string(),
        run.header.deck.to_string(),
        run.header.trials.to_string(),
        // `check --exec`: the seed the command was given (copy i of --threads got seed + i).
        opt(run
            .header
            .seed
            .or_else(|| run.header.input.as_ref().and_then(|input| input.seed))),
        opt(run.header.source.map(|source| source.generator.name())),
        opt(run.header.source.map(|source| source.mapping.name())),
        opt(run.header.source.map(|source| source.word_bits())),
        opt(run
            .header
            .source
            .map(|source| source.generator.state_bits())),
        opt(reseed.map(|_| "every-shuffle")),
        opt(reseed.map(|reseed| reseed.bits)),
        opt(reseed.map(|reseed| reseed.seeds.name())),
        opt(reach.map(|reach| reach.state_bits)),
        opt(reach.map(|reach| reach.ordering_bits)),
        opt(reach.map(|reach| reach.log10_fraction)),
        opt(run.header.threads),
        run.header.alpha.to_string(),
        format!("{:?}", run.header.against).to_lowercase(),
        run.bias_detected.to_string(),
        run.identity.count.to_string(),
        run.identity.frequency.to_string(),
        run.identity.expected_frequency.to_string(),
        opt(run.identity.theory_frequency),
        opt(full.and_then(|f| f.max_min_ratio)),
        opt(full.and_then(|f| f.max_min_ratio_theory)),
        opt(full.map(|f| f.never_seen)),
        opt(full.map(|f| f.tv_distance)),
        opt(full.and_then(|f| f.tv_distance_theory)),
        run.positions.largest_deviation.deviation.to_string(),
        opt(run.model.noncentrality_per_trial),
        opt(run.model.detection_power),
        opt(run.model.trials_for_99_power),
        run.header.interrupted.to_string(),
        run.header.elapsed_seconds.to_string(),
        run.header.shuffles_per_second.to_string(),
        opt(run.header.passes),
        opt(run.header.cut_probability),
        opt(run.header.shelves),
        opt(deals.map(|d| d.pairs)),
        opt(repeats.and_then(|r| r.distinct)),
        opt(repeats.and_then(|r| r.repeated_pairs)),
        opt(repeats.and_then(|r| r.expected_pairs)),
        opt(reachable.and_then(|r| r.estimate)),
        opt(reachable.map(|r| r.low)),
        opt(reachable.and_then(|r| r.high)),
        opt(deals.map(|d| d.matches.mean_observed)),
    ];
    // What the sample rules out (against uniform; empty against a model), at 99% confidence.
    let ruled_out = run.ruled_out.as_ref();
    header.extend([
        "tv_distance_at_most_99",
        "position_within_99",
        "identity_low_99",
        "identity_high_99",
        "detectable_position_shift",
    ]);
    record.extend([
        opt(ruled_out.and_then(|r| r.total_variation.map(|tv| tv.at_most))),
        opt(ruled_out.and_then(|r| r.position_chances.map(|p| p.within))),
        opt(ruled_out.and_then(|r| r.unchanged_deck.as_ref().map(|i| i.low))),
        opt(ruled_out.and_then(|r| r.unchanged_deck.as_ref().map(|i| i.high))),
        opt(ruled_out.and_then(|r| r.detectable.position_shift)),
    ]);
    // `--max-bias` adds the gate's columns.
    if let Some(gate) = &run.gate {
        header.extend([
            "max_bias",
            "gate_outcome",
            "gate_at_most",
            "gate_trials_needed",
        ]);
        record.extend([
            gate.max_bias.clone(),
            serde_json::to_value(gate.outcome)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            gate.at_most.to_string(),
            opt(gate.trials_needed),
        ]);
    }
    // Marginal mode adds the guessing game's columns.
    if let Some(game) = run.guessing_game() {
        header.extend(["guessing_game_guessed", "guessing_game_by_chance"]);
        record.extend([game.guessed.to_string(), game.by_chance.to_string()]);
    }
    // `--until-decided` adds the sequential test's columns.
    if let Some(sequential) = &run.sequential {
        header.extend([
            "sequential_decided",
            "sequential_trials_used",
            "sequential_threshold",
            "sequential_strongest",
            "sequential_log10_e_value",
        ]);
        record.extend([
            sequential.decided.to_string(),
            sequential.trials_used.to_string(),
            sequential.threshold.to_string(),
            sequential.strongest.clone(),
            opt(sequential.log10_strongest),
        ]);
    }
    writer.write_record(header)?;
    writer.write_record(record)?;
    Ok(())
}

/// The family of tests, one row each.
fn write_run_tests<W: Write>(writer: &mut csv::Writer<W>, run: &RunReport) -> csv::Result<()> {
    writer.write_record([
        "name",
        "method",
        "statistic",
        "df",
        "p_value",
        "log10_p_value",
        "adjusted_p_value",
        "log10_adjusted_p_value",
        "rejected",
        "note",
        "question",
    ])?;
    for test in &run.tests {
        writer.write_record([
            test.name.clone(),
            test.method.to_string(),
            test.statistic.to_string(),
            opt(test.df),
            opt(test.p_value),
            test.log10_p_value.to_string(),
            opt(test.adjusted_p_value),
            test.log10_adjusted_p_value.to_string(),
            if test.descriptive {
                "descriptive".to_string()
            } else {
                test.rejected.to_string()
            },
            test.note
                .as_ref()
                .map_or_else(String::new, ToString::to_string),
            test.question.name().to_string(),
        ])?;
    }
    Ok(())
}

/// The permutation statistics, one row per (statistic, value); none in full mode.
fn write_run_statistics<W: Write>(writer: &mut csv::Writer<W>, run: &RunReport) -> csv::Result<()> {
    writer.write_record([
        "statistic",
        "value",
        "observed",
        "frequency",
        "expected",
        "uniform",
        "theory",
    ])?;
    for statistic in run.statistics() {
        for (value, &observed) in statistic.observed.iter().enumerate() {
            writer.write_record([
                statistic.name.to_string(),
                value.to_string(),
                observed.to_string(),
                (observed as f64 / run.header.trials.max(1) as f64).to_string(),
                statistic.expected[value].to_string(),
                statistic.uniform[value].to_string(),
                opt(statistic.theory.as_ref().map(|t| t[value])),
            ])?;
        }
    }
    Ok(())
}

/// Every ordering, streamed.
fn write_run_permutations<W: Write>(
    writer: &mut csv::Writer<W>,
    permutations: &PermutationTable,
) -> csv::Result<()> {
    writer.write_record([
        "rank",
        "permutation",
        "count",
        "frequency",
        "expected",
        "ratio_to_expected",
        "theory",
        "theory_expected",
        "theory_fraction",
    ])?;
    for row in permutations.rows() {
        writer.write_record([
            row.rank.to_string(),
            format_permutation(&row.permutation),
            row.count.to_string(),
            row.frequency.to_string(),
            row.expected.to_string(),
            row.ratio_to_expected.to_string(),
            opt(row.theory),
            opt(row.theory_expected),
            row.theory_fraction.unwrap_or_default(),
        ])?;
    }
    Ok(())
}

/// The poker hand categories, one row per category, weakest first: its count, its exact count
/// out of 2,598,960, and in the `next_…` columns the hands of each category dealt right after
/// a hand of this one (the table of consecutive hands).
fn write_run_hands<W: Write>(writer: &mut csv::Writer<W>, poker: &PokerPart) -> csv::Result<()> {
    let mut header: Vec<String> = [
        "category",
        "observed",
        "frequency",
        "exact_count",
        "probability",
        "expected",
    ]
    .map(String::from)
    .to_vec();
    header.extend(
        Category::ALL
            .iter()
            .map(|c| format!("next_{}", c.name().replace(' ', "_"))),
    );
    writer.write_record(&header)?;
    for (row, next) in poker.categories.iter().zip(&poker.transitions.counts) {
        let mut record = vec![
            row.category.to_string(),
            row.observed.to_string(),
            row.frequency.to_string(),
            row.exact_count.to_string(),
            row.probability.to_string(),
            row.expected.to_string(),
        ];
        record.extend(next.iter().map(u64::to_string));
        writer.write_record(&record)?;
    }
    Ok(())
}

/// The position matrix, one row per (card, position).
fn write_run_positions<W: Write>(writer: &mut csv::Writer<W>, run: &RunReport) -> csv::Result<()> {
    writer.write_record([
        "card",
        "position",
        "count",
        "frequency",
        "expected_frequency",
        "theory",
    ])?;
    let positions = &run.positions;
    for (card, row) in positions.counts.iter().enumerate() {
        for (position, count) in row.iter().enumerate() {
            writer.write_record([
                card.to_string(),
                position.to_string(),
                count.to_string(),
                positions.frequencies[card][position].to_string(),
                positions.expected_frequency.to_string(),
                opt(positions.theory.as_ref().map(|t| t[card][position])),
            ])?;
        }
    }
    Ok(())
}

fn write_theory<W: Write>(
    writer: &mut csv::Writer<W>,
    theory: &TheoryReport,
    table: CsvTable,
) -> csv::Result<()> {
    match table {
        CsvTable::Summary => {
            writer.write_record([
                "algorithm",
                "deck",
                "orderings",
                "ordering_bits",
                "state_bits",
                "log10_reachable_fraction",
                "paths",
                "exact_fractions",
                "support_size",
                "identity_probability",
                "identity_fraction",
                "max_probability",
                "min_probability",
                "max_min_ratio",
                "tv_distance",
                "noncentrality_per_trial",
                "alpha",
                "trials_for_99_power",
                "passes",
                "cut_probability",
                "shelves",
            ])?;
            writer.write_record([
                theory.algorithm.to_string(),
                theory.deck.to_string(),
                theory.orderings.to_string(),
                theory.ordering_bits.to_string(),
                opt(theory.reachable.map(|reach| reach.state_bits)),
                opt(theory.reachable.map(|reach| reach.log10_fraction)),
                theory.paths.to_string(),
                theory.exact_fractions.to_string(),
                theory.support_size.to_string(),
                theory.identity_probability.to_string(),
                theory.identity_fraction.clone().unwrap_or_default(),
                theory.max_probability.to_string(),
                theory.min_probability.to_string(),
                opt(theory.max_min_ratio),
                theory.tv_distance.to_string(),
                opt(theory.model.noncentrality_per_trial),
                theory.alpha.to_string(),
                opt(theory.model.trials_for_99_power),
                theory.passes.to_string(),
                opt(theory.cut_probability),
                opt(theory.shelves),
            ])?;
        }
        CsvTable::Tests | CsvTable::Statistics | CsvTable::Hands => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "--table: `theory` runs no tests and tallies no statistics; choose summary, \
                 permutations or positions",
            )
            .into());
        }
        CsvTable::Permutations if !theory.permutations.listed() => {
            return Err(unlisted(theory.deck).into());
        }
        CsvTable::Permutations => {
            writer.write_record([
                "rank",
                "permutation",
                "probability",
                "fraction",
                "numerator",
                "denominator",
                "ratio_to_uniform",
            ])?;
            for row in theory.permutations.rows() {
                writer.write_record([
                    row.rank.to_string(),
                    format_permutation(&row.permutation),
                    row.probability.to_string(),
                    row.fraction.unwrap_or_default(),
                    opt(row.numerator),
                    opt(row.denominator),
                    row.ratio_to_uniform.to_string(),
                ])?;
            }
        }
        CsvTable::Positions => {
            writer.write_record(["card", "position", "probability"])?;
            for (card, row) in theory.positions.iter().enumerate() {
                for (position, p) in row.iter().enumerate() {
                    writer.write_record([card.to_string(), position.to_string(), p.to_string()])?;
                }
            }
        }
    }
    Ok(())
}
