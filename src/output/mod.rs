//! Output: exporters that each turn a report into bytes on a writer, one format per file, the
//! pictures they draw ([`plot`]), the progress bar on stderr ([`progress`]) and the files
//! written without ever destroying one ([`files`]).
//!
//! The report model ([`crate::report::run`]) holds the data; an [`Exporter`] decides only how it
//! looks. Permutation tables are streamed row by row, so a report on 11 cards (39,916,800
//! orderings) is written without ever holding its rows in memory.

pub mod brief;
pub mod csv;
pub mod document;
pub mod files;
pub mod interruptible;
pub mod json;
pub mod markdown;
pub mod plot;
pub mod progress;
pub mod svg;
pub mod table;
pub use crate::report::case::CaseEntry;
use crate::report::text;

use std::io::{self, Write};

use crate::engine::algorithms::Algorithm;
use crate::report::comparison::CompareReport;
use crate::report::mixing::MixingReport;
use crate::report::run::RunReport;
use crate::report::single::SingleReport;
use crate::report::theory::TheoryReport;

/// Anything an exporter can write.
pub enum Report<'a> {
    /// The report of `run`.
    Run(&'a RunReport),
    /// The report of `compare`.
    Compare(&'a CompareReport),
    /// The report of `theory`.
    Theory(&'a TheoryReport),
    /// The mixing curve of `theory --passes A..B`.
    Mixing(&'a MixingReport),
    /// The algorithm catalogue of `list`.
    List(&'a [Algorithm]),
    /// One permutation judged on its own (`check --single`).
    Single(&'a SingleReport),
    /// The famous shuffles of `case --list`.
    Cases(&'a [CaseEntry]),
}

/// Which table a CSV export writes (CSV holds one table per file).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum CsvTable {
    /// One row of every headline figure.
    #[default]
    Summary,
    /// The family of tests.
    Tests,
    /// Every ordering with its count, expectation and theory.
    Permutations,
    /// The n×n position matrix, one row per (card, position).
    Positions,
    /// The permutation statistics of marginal mode, one row per (statistic, value).
    Statistics,
    /// The poker hand categories of `check --deal 5 --game poker`, one row per category.
    Hands,
}

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Human-readable tables.
    Table,
    /// One CSV table (choose it with --table).
    Csv,
    /// Everything, as one JSON document.
    Json,
    /// The tables as GitHub-flavoured Markdown.
    Markdown,
}

impl CsvTable {
    /// The name on the command line.
    pub fn name(self) -> String {
        clap::ValueEnum::to_possible_value(&self).map_or_else(String::new, |v| v.get_name().into())
    }
}

impl Format {
    /// The name on the command line.
    pub fn name(self) -> String {
        clap::ValueEnum::to_possible_value(&self).map_or_else(String::new, |v| v.get_name().into())
    }
}

/// Turns a report into bytes.
pub trait Exporter {
    /// Write `report` to `out`.
    fn export(&self, report: &Report, out: &mut dyn Write) -> io::Result<()>;
}

/// How the table format meets a terminal: colour, and the terminal's width (None off a
/// terminal). Other formats ignore it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Terminal {
    /// Whether to colour the verdicts.
    pub colour: bool,
    /// The terminal's width in columns, when the report is shown on one.
    pub width: Option<u16>,
}

/// The exporter for a format; `terminal` only affects the table format.
pub fn exporter(format: Format, table: CsvTable, terminal: Terminal) -> Box<dyn Exporter> {
    match format {
        Format::Table => Box::new(table::TableExporter { terminal }),
        Format::Csv => Box::new(csv::CsvExporter { table }),
        Format::Json => Box::new(json::JsonExporter),
        Format::Markdown => Box::new(markdown::MarkdownExporter),
    }
}

/// A list entry as exporters show it.
#[derive(serde::Serialize)]
pub struct AlgorithmEntry {
    /// Name on the command line.
    pub name: &'static str,
    /// Exact definition.
    pub definition: &'static str,
    /// Whether it is meant to be uniform.
    pub meant_uniform: bool,
}

/// The catalogue entries of `algorithms`.
pub fn entries(algorithms: &[Algorithm]) -> Vec<AlgorithmEntry> {
    algorithms
        .iter()
        .map(|a| AlgorithmEntry {
            name: a.name(),
            definition: a.definition(),
            meant_uniform: a.meant_uniform(),
        })
        .collect()
}
