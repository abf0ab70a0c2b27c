//! Mixing curves: how far K passes of a shuffle are from uniform, for K over a range.
//!
//! Repeating a shuffle is a random walk on the orderings; its total variation (TV) distance to
//! uniform after K passes says how many passes are enough. For the riffle (Gilbert–Shannon–
//! Reeds) the distance has a closed form for any deck through the rising sequences (Bayer &
//! Diaconis 1992, [`riffle_tv_distance`]): `theory riffle --deck 52 --passes 1..12` reproduces
//! their table (0.614, 0.334, 0.167 after 6, 7, 8 riffles). For the other algorithms the exact
//! one-pass law is carried forward one pass at a time ([`crate::theory::exact::mixing_curve`]), which
//! is possible for small decks.

use crate::engine::algorithms::{Algorithm, Shuffle};
use crate::system::interrupt;
use crate::theory::exact::{ExactError, MAX_EXACT_DECK, mixing_curve};
use crate::theory::permutation_statistics::{riffle_passes_needed, riffle_tv_distance};
use crate::theory::shelf::{ShelfDistances, Stopped};

/// Whether the algorithm's distance to uniform has a closed form for any deck (the riffle,
/// Bayer & Diaconis 1992; the shelf shuffler, Diaconis, Fulman & Holmes 2013).
pub fn has_closed_form(algorithm: Algorithm) -> bool {
    matches!(algorithm, Algorithm::Riffle | Algorithm::Shelf)
}

/// The distances "passes needed" is computed for.
pub const THRESHOLDS: [f64; 3] = [0.5, 0.1, 0.01];

/// How a mixing curve was computed; serialised as `riffle-closed-form`, `shelf-closed-form` or
/// `exact-law`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MixingMethod {
    /// The riffle's closed form (Bayer & Diaconis 1992), exact rational arithmetic.
    RiffleClosedForm,
    /// The shelf shuffler's closed form (Diaconis, Fulman & Holmes 2013), exact rational
    /// arithmetic.
    ShelfClosedForm,
    /// The exact one-pass law carried forward pass by pass.
    ExactLaw,
}

impl MixingMethod {
    /// The name JSON and CSV show.
    pub fn name(self) -> &'static str {
        match self {
            MixingMethod::RiffleClosedForm => "riffle-closed-form",
            MixingMethod::ShelfClosedForm => "shelf-closed-form",
            MixingMethod::ExactLaw => "exact-law",
        }
    }
}

/// A mixing curve: TV distance to uniform by number of passes, and the passes needed to get
/// below each of [`THRESHOLDS`].
#[derive(Debug, Clone, PartialEq)]
pub struct MixingCurve {
    /// How it was computed.
    pub method: MixingMethod,
    /// (passes, TV distance) for each number of passes of the range asked for.
    pub points: Vec<(u32, f64)>,
    /// The separation distance max_π (1 − n!·P(π)) at each of those points, where a closed
    /// form gives it (the shelf shuffler); empty otherwise.
    pub separations: Vec<f64>,
    /// (threshold, least number of passes with TV < threshold, when reached within the range
    /// computed), one per threshold of [`THRESHOLDS`].
    pub passes_needed: Vec<(f64, Option<u32>)>,
}

/// Compute the curve of `shuffle` (its `passes` is ignored) on `deck` cards for `first..=last`
/// passes: the closed form for the riffle, otherwise the exact law carried forward (within
/// `max_paths` choice paths for the one-pass law).
pub fn mixing_curve_of(
    shuffle: Shuffle,
    deck: usize,
    first: u32,
    last: u32,
    max_paths: u64,
) -> Result<MixingCurve, ExactError> {
    let shuffle = shuffle.with_passes(1);
    if shuffle.algorithm == Algorithm::Riffle {
        // One point of a large deck takes a fraction of a second (1,000 cards: big integers of
        // thousands of digits), a range of them minutes: Ctrl-C is polled between points.
        let stopped = || {
            if interrupt::requested() {
                Err(ExactError::Interrupted)
            } else {
                Ok(())
            }
        };
        let points = (first..=last)
            .map(|passes| stopped().map(|()| (passes, riffle_tv_distance(deck, passes))))
            .collect::<Result<_, _>>()?;
        let passes_needed = THRESHOLDS
            .iter()
            .map(|&threshold| {
                stopped().map(|()| (threshold, Some(riffle_passes_needed(deck, threshold))))
            })
            .collect::<Result<_, _>>()?;
        return Ok(MixingCurve {
            method: MixingMethod::RiffleClosedForm,
            points,
            separations: Vec::new(),
            passes_needed,
        });
    }
    if shuffle.algorithm == Algorithm::Shelf {
        // One ShelfDistances for the curve and the three searches: each K is computed once, and
        // Ctrl-C is polled between its rows of additions (a point of 1,000 cards and hundreds of
        // passes takes seconds).
        let mut distances =
            ShelfDistances::new(deck, shuffle.shelves).stopped_by(interrupt::flag());
        let mut points = Vec::new();
        let mut separations = Vec::new();
        for passes in first..=last {
            let (tv_distance, separation) = distances
                .tv_and_separation(passes)
                .map_err(|Stopped| ExactError::Interrupted)?;
            points.push((passes, tv_distance));
            separations.push(separation);
        }
        let passes_needed = THRESHOLDS
            .iter()
            .map(|&threshold| {
                let passes = distances
                    .passes_needed(threshold)
                    .map_err(|Stopped| ExactError::Interrupted)?;
                Ok((threshold, Some(passes)))
            })
            .collect::<Result<_, _>>()?;
        return Ok(MixingCurve {
            method: MixingMethod::ShelfClosedForm,
            points,
            separations,
            passes_needed,
        });
    }
    let curve = mixing_curve(shuffle, deck, last, max_paths)?;
    let points: Vec<(u32, f64)> = curve
        .iter()
        .enumerate()
        .map(|(index, &tv_distance)| (index as u32 + 1, tv_distance))
        .collect();
    let passes_needed = THRESHOLDS
        .iter()
        .map(|&threshold| {
            let reached = points.iter().find(|&&(_, tv)| tv < threshold);
            (threshold, reached.map(|&(passes, _)| passes))
        })
        .collect();
    Ok(MixingCurve {
        method: MixingMethod::ExactLaw,
        separations: Vec::new(),
        points: points.into_iter().filter(|&(p, _)| p >= first).collect(),
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
/// the riffle and the shelf shuffler (closed forms), [`MAX_EXACT_DECK`] for the others.
pub fn max_mixing_deck(algorithm: Algorithm) -> usize {
    if has_closed_form(algorithm) {
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
        let report =
            mixing_curve_of(Shuffle::from(Algorithm::Riffle), 52, 1, 10, 1).expect("closed form");
        let published = [
            1.000, 1.000, 1.000, 1.000, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043,
        ];
        for (&(passes, tv_distance), expected) in report.points.iter().zip(published) {
            assert!(
                (tv_distance - expected).abs() < 0.0005 + 1e-12,
                "{passes} passes: {tv_distance} vs {expected}"
            );
        }
        let needed: Vec<Option<u32>> = report.passes_needed.iter().map(|n| n.1).collect();
        assert_eq!(needed, vec![Some(7), Some(9), Some(13)]);
    }

    #[test]
    fn the_exact_engine_and_the_closed_form_agree_on_a_small_riffle() {
        // Same curve by two independent routes: the closed form, and the exact one-pass law
        // (a path walk of the algorithm's code) carried forward pass by pass.
        let closed = mixing_curve_of(Shuffle::from(Algorithm::Riffle), 5, 1, 6, 1).unwrap();
        let walked = mixing_curve(Shuffle::from(Algorithm::Riffle), 5, 6, 100_000_000).unwrap();
        for (point, tv) in closed.points.iter().zip(walked) {
            assert!((point.1 - tv).abs() < 1e-12, "{point:?} vs {tv}");
        }
    }

    #[test]
    fn a_range_that_starts_later_shows_only_its_passes() {
        let report =
            mixing_curve_of(Shuffle::from(Algorithm::Naive), 4, 3, 5, 100_000_000).unwrap();
        let passes: Vec<u32> = report.points.iter().map(|p| p.0).collect();
        assert_eq!(passes, vec![3, 4, 5]);
        assert_eq!(report.method, MixingMethod::ExactLaw);
    }
}
