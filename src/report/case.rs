//! The part of a report that `case NAME` adds to `run`'s: which deployed shuffle was
//! emulated, and each published figure of its story beside the tool's own figure; and the
//! catalogue `case --list` prints.

use schemars::JsonSchema;
use serde::Serialize;

/// A famous shuffle, emulated (the `case` section of a `case NAME` report).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CaseReport {
    /// The case's name on the command line (`planet-poker`, …).
    pub name: &'static str,
    /// The deployed shuffle in a few words.
    pub title: &'static str,
    /// When it was deployed or published.
    pub year: &'static str,
    /// What went wrong (or, for the positive reference, right), in two sentences.
    pub story: &'static str,
    /// The code emulated, bit for bit: generator, seeding, range mapping and loop.
    pub emulates: &'static str,
    /// Where the story and its figures were published.
    pub reference: &'static str,
    /// The deck the published figures are of; figures are compared only at that size.
    pub published_deck: usize,
    /// Each published figure beside the tool's.
    pub figures: Vec<Figure>,
}

/// Whether the tool's figure reproduces the published one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Agreement {
    /// The tool's figure agrees (exactly, or within the sampling error stated in `how`).
    Reproduced,
    /// The tool's figure does not agree.
    NotReproduced,
    /// Shown beside the published ones, with nothing published to compare it to.
    Beside,
    /// Not compared: the run's deck is not the published one, or the figure needs what this
    /// run did not compute (e.g. the deal-stream tests were left out).
    NotCompared,
}

/// One published figure and the tool's.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Figure {
    /// The claim, in words.
    pub claim: String,
    /// Who published it.
    pub source: &'static str,
    /// The published value (empty for a figure shown beside).
    pub published: String,
    /// The tool's value.
    pub tool: String,
    /// How the tool's value was found: the exact law, this run, every seed shuffled, ….
    pub how: String,
    /// Whether they agree.
    pub agreement: Agreement,
}

/// One line of `case --list`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CaseEntry {
    /// The case's name.
    pub name: &'static str,
    /// When.
    pub year: &'static str,
    /// The deployed shuffle in a few words.
    pub title: &'static str,
    /// The deck of its published figures (the default `--deck`).
    pub deck: usize,
    /// What the emulation finds: `bias detected` or `no bias detected` at the default
    /// settings.
    pub expect: &'static str,
}
