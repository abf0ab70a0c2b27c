//! Report models: plain, serialisable data that every exporter reads, one file per report —
//! a run or check ([`run`]), the exact law of `theory` ([`theory`]), the mixing curve of
//! `theory --passes A..B` ([`mixing`]) and a comparison of several algorithms
//! ([`comparison`]) — and every note and warning they carry ([`notes`]).
//!
//! The models are built by calling [`crate::analysis`]; the exporters in [`crate::output`] only
//! read them.

pub mod case;
pub mod comparison;
pub mod mixing;
pub mod notes;
pub mod run;
pub mod single;
pub mod text;
pub mod theory;

use schemars::JsonSchema;

/// Every document `--format json` writes, for the schema: the report of `run`, `check` and
/// `merge`, of `compare`, of `theory`, of `theory --passes A..B`, and of `check --single`.
#[derive(JsonSchema)]
#[serde(untagged)]
#[schemars(title = "shuffle-bias report")]
#[allow(dead_code)] // never built: it only describes the JSON
enum JsonReport {
    Run(Box<run::RunReport>),
    Comparison(Box<comparison::CompareReport>),
    Theory(Box<theory::TheoryReport>),
    Mixing(Box<mixing::MixingReport>),
    Single(Box<single::SingleReport>),
}

/// The JSON Schema (draft 2020-12) of the reports `--format json` writes, generated from the
/// report types; `docs/report.schema.json` holds it, and a test keeps the two equal.
pub fn json_schema() -> String {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<JsonReport>();
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema serialises");
    text.push('\n');
    text
}
