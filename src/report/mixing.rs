//! The report model of `theory ALGO --passes A..B`: the mixing curve (how far K passes of a
//! shuffle are from uniform, computed by [`crate::theory::mixing`]) and the passes needed to get
//! below 0.5, 0.1 and 0.01.

use schemars::JsonSchema;
use serde::Serialize;

use crate::engine::algorithms::{CutProbability, Shuffle};
use crate::theory::exact::ExactError;
use crate::theory::mixing::{MixingMethod, mixing_curve_of};

/// One point of the curve.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub struct MixingPoint {
    /// Number of passes.
    pub passes: u32,
    /// Total variation distance of the law of that many passes from uniform.
    pub tv_distance: f64,
    /// Separation distance from uniform, max_π (1 − n!·P(π)), where a closed form gives it
    /// (the shelf shuffler; left out otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub separation: Option<f64>,
}

/// The least number of passes that brings the distance below a threshold.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub struct PassesNeeded {
    /// The distance to get below.
    pub threshold: f64,
    /// The least K with TV < threshold (null when not reached within the range computed).
    pub passes: Option<u32>,
}

/// The report of `theory ALGO --passes A..B`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MixingReport {
    /// Always `shuffle-bias`.
    pub tool: &'static str,
    /// This program's version.
    pub version: &'static str,
    /// Always `theory`.
    pub command: &'static str,
    /// The algorithm.
    pub algorithm: &'static str,
    /// Its exact definition.
    pub definition: &'static str,
    /// The overhand shuffle's cut probability (left out for the other algorithms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut_probability: Option<CutProbability>,
    /// The shelf shuffler's number of shelves (left out for the other algorithms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shelves: Option<u16>,
    /// Number of cards.
    pub deck: usize,
    /// How the distances were computed: `riffle-closed-form` (Bayer & Diaconis 1992, exact
    /// rational arithmetic), `shelf-closed-form` (Diaconis, Fulman & Holmes 2013, exact
    /// rational arithmetic) or `exact-law` (the one-pass law carried forward pass by pass).
    pub method: MixingMethod,
    /// The curve, one point per number of passes.
    pub points: Vec<MixingPoint>,
    /// Passes needed to get below 0.5, 0.1 and 0.01.
    pub passes_needed: Vec<PassesNeeded>,
}

/// Compute the curve of `shuffle` (its `passes` is ignored) on `deck` cards for `first..=last`
/// passes, and report it.
pub fn build_mixing_report(
    shuffle: Shuffle,
    deck: usize,
    first: u32,
    last: u32,
    max_paths: u64,
) -> Result<MixingReport, ExactError> {
    let curve = mixing_curve_of(shuffle, deck, first, last, max_paths)?;
    let shuffle = shuffle.with_passes(1);
    Ok(MixingReport {
        tool: "shuffle-bias",
        version: env!("CARGO_PKG_VERSION"),
        command: "theory",
        algorithm: shuffle.algorithm.name(),
        definition: shuffle.algorithm.definition(),
        cut_probability: shuffle.cut_probability_used(),
        shelves: shuffle.shelves_used(),
        deck,
        method: curve.method,
        points: curve
            .points
            .into_iter()
            .enumerate()
            .map(|(index, (passes, tv_distance))| MixingPoint {
                passes,
                tv_distance,
                separation: curve.separations.get(index).copied(),
            })
            .collect(),
        passes_needed: curve
            .passes_needed
            .into_iter()
            .map(|(threshold, passes)| PassesNeeded { threshold, passes })
            .collect(),
    })
}
