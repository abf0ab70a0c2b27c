//! Report models: plain, serialisable data that every exporter reads, one file per report —
//! a run or check ([`run`]), the exact law of `theory` ([`theory`]), the mixing curve of
//! `theory --passes A..B` ([`mixing`]) and a comparison of several algorithms
//! ([`comparison`]) — and every note and warning they carry ([`notes`]).
//!
//! The models are built by calling [`crate::analysis`]; the exporters in [`crate::output`] only
//! read them.

pub mod comparison;
pub mod mixing;
pub mod notes;
pub mod run;
pub mod single;
pub mod text;
pub mod theory;
