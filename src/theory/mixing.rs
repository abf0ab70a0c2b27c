//! Mixing curves: how far K passes of a shuffle are from uniform, for K over a range.
//!
//! Repeating a shuffle is a random walk on the orderings; its total variation (TV) distance to
//! uniform after K passes says how many passes are enough. For the riffle (Gilbert–Shannon–
//! Reeds) the distance has a closed form for any deck through the rising sequences (Bayer &
//! Diaconis 1992, [`riffle_tv_distance`]): `theory riffle --deck 52 --passes 1..12` reproduces
//! their table (0.614, 0.334, 0.167 after 6, 7, 8 riffles). For the other algorithms the exact
//! one-pass law is carried forward one pass at a time ([`crate::theory::exact::mixing_curve`]), which
//! is possible for small decks.

use serde::Serialize;

use crate::engine::algorithms::{Algorithm, CutProbability, Shuffle};
use crate::theory::exact::{ExactError, MAX_EXACT_DECK, mixing_curve};
use crate::theory::permutation_statistics::{riffle_passes_needed, riffle_tv_distance};

/// The distances the report says "passes needed" for.
pub const THRESHOLDS: [f64; 3] = [0.5, 0.1, 0.01];

/// One point of the curve.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct MixingPoint {
    /// Number of passes.
    pub passes: u32,
    /// Total variation distance of the law of that many passes from uniform.
    pub tv_distance: f64,
}

/// The least number of passes that brings the distance below a threshold.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PassesNeeded {
    /// The distance to get below.
    pub threshold: f64,
    /// The least K with TV < threshold (null when not reached within the range computed).
    pub passes: Option<u32>,
}

/// The report of `theory ALGO --passes A..B`.
#[derive(Debug, Clone, Serialize)]
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
    /// Number of cards.
    pub deck: usize,
    /// How the distances were computed: `riffle-closed-form` (Bayer & Diaconis 1992, exact
    /// rational arithmetic) or `exact-law` (the one-pass law carried forward pass by pass).
    pub method: &'static str,
    /// The curve, one point per number of passes.
    pub points: Vec<MixingPoint>,
    /// Passes needed to get below 0.5, 0.1 and 0.01.
    pub passes_needed: Vec<PassesNeeded>,
}

/// Compute the curve of `shuffle` (its `passes` is ignored) on `deck` cards for `first..=last`
/// passes.
pub fn build_mixing_report(
    shuffle: Shuffle,
    deck: usize,
    first: u32,
    last: u32,
    max_paths: u64,
) -> Result<MixingReport, ExactError> {
    let shuffle = shuffle.with_passes(1);
    let (method, points, passes_needed) = if shuffle.algorithm == Algorithm::Riffle {
        let points: Vec<MixingPoint> = (first..=last)
            .map(|passes| MixingPoint {
                passes,
                tv_distance: riffle_tv_distance(deck, passes),
            })
            .collect();
        let needed = THRESHOLDS
            .iter()
            .map(|&threshold| PassesNeeded {
                threshold,
                passes: Some(riffle_passes_needed(deck, threshold)),
            })
            .collect();
        ("riffle-closed-form", points, needed)
    } else {
        let curve = mixing_curve(shuffle, deck, last, max_paths)?;
        let points: Vec<MixingPoint> = curve
            .iter()
            .enumerate()
            .map(|(index, &tv_distance)| MixingPoint {
                passes: index as u32 + 1,
                tv_distance,
            })
            .collect();
        let needed = THRESHOLDS
            .iter()
            .map(|&threshold| PassesNeeded {
                threshold,
                passes: points
                    .iter()
                    .find(|p| p.tv_distance < threshold)
                    .map(|p| p.passes),
            })
            .collect();
        let shown = points.into_iter().filter(|p| p.passes >= first).collect();
        ("exact-law", shown, needed)
    };
    Ok(MixingReport {
        tool: "shuffle-bias",
        version: env!("CARGO_PKG_VERSION"),
        command: "theory",
        algorithm: shuffle.algorithm.name(),
        definition: shuffle.algorithm.definition(),
        cut_probability: shuffle.cut_probability_used(),
        deck,
        method,
        points,
        passes_needed,
    })
}

/// What theory says of `passes` riffles of `deck` cards, for a run's notes: the distance they
/// leave, and the passes needed for TV < 0.1 and < 0.01 (Bayer & Diaconis 1992).
pub fn riffle_note(deck: usize, passes: u32) -> String {
    format!(
        "theory (Bayer & Diaconis 1992): {passes} riffle{} of {deck} cards leave a total \
         variation distance of {:.4} from uniform; TV < 0.1 takes {} riffles and TV < 0.01 takes \
         {} (`shuffle-bias theory riffle --deck {deck} --passes 1..{}` prints the curve)",
        if passes == 1 { "" } else { "s" },
        riffle_tv_distance(deck, passes),
        riffle_passes_needed(deck, 0.1),
        riffle_passes_needed(deck, 0.01),
        riffle_passes_needed(deck, 0.01).max(passes)
    )
}

/// The largest deck a mixing curve can be computed for: any size the marginal mode takes for
/// the riffle (closed form), [`MAX_EXACT_DECK`] for the others.
pub fn max_mixing_deck(algorithm: Algorithm) -> usize {
    if algorithm == Algorithm::Riffle {
        crate::engine::marginal::MAX_MARGINAL_DECK
    } else {
        MAX_EXACT_DECK
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_riffle_curve_of_52_cards_is_the_bayer_diaconis_table() {
        // Bayer & Diaconis (1992), Table 1: 1.000 1.000 1.000 1.000 .924 .614 .334 .167 .085
        // .043 for 1..10 riffles of 52 cards.
        let report = build_mixing_report(Shuffle::from(Algorithm::Riffle), 52, 1, 10, 1)
            .expect("closed form");
        let published = [
            1.000, 1.000, 1.000, 1.000, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043,
        ];
        for (point, expected) in report.points.iter().zip(published) {
            assert!(
                (point.tv_distance - expected).abs() < 0.0005 + 1e-12,
                "{} passes: {} vs {expected}",
                point.passes,
                point.tv_distance
            );
        }
        let needed: Vec<Option<u32>> = report.passes_needed.iter().map(|n| n.passes).collect();
        assert_eq!(needed, vec![Some(7), Some(9), Some(13)]);
    }

    #[test]
    fn the_exact_engine_and_the_closed_form_agree_on_a_small_riffle() {
        // Same curve by two independent routes: the closed form, and the exact one-pass law
        // (a path walk of the algorithm's code) carried forward pass by pass.
        let closed = build_mixing_report(Shuffle::from(Algorithm::Riffle), 5, 1, 6, 1).unwrap();
        let walked = mixing_curve(Shuffle::from(Algorithm::Riffle), 5, 6, 100_000_000).unwrap();
        for (point, tv) in closed.points.iter().zip(walked) {
            assert!((point.tv_distance - tv).abs() < 1e-12, "{point:?} vs {tv}");
        }
    }

    #[test]
    fn a_range_that_starts_later_shows_only_its_passes() {
        let report =
            build_mixing_report(Shuffle::from(Algorithm::Naive), 4, 3, 5, 100_000_000).unwrap();
        let passes: Vec<u32> = report.points.iter().map(|p| p.passes).collect();
        assert_eq!(passes, vec![3, 4, 5]);
        assert_eq!(report.method, "exact-law");
    }
}
