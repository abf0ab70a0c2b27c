//! Pictures of a run as SVG: the position heat map, the chart of every ordering's frequency, the
//! two together, small multiples for a comparison, and the mixing curve.
//!
//! Every function takes plain data (slices of numbers and strings, no report types) and returns
//! the SVG document as a `String`; the caller decides where it goes. The charts are drawn with
//! plotters' SVG backend built without any font feature: plotters then estimates text extents
//! with a fixed per-character width and the backend writes every label as an SVG `<text>` with a
//! generic `sans-serif` family, so no font is read at build or run time and the viewer supplies
//! the glyphs. Drawing involves no clock, randomness or hashing, so equal inputs give equal bytes
//! and the pictures can be snapshot-tested.
//!
//! Colours of the heat map are on a diverging scale centred at 1/n and symmetric in the *ratio*
//! to 1/n (see [`RatioScale`]): a card twice as likely as fair at some position is as red as a
//! card half as likely is blue, which matches how bias is usually told ("twice as often").
//! Cards and positions are numbered from 0, as in the report.
//!
//! The pictures avoid rotated text (vertical axes are described level, above the axis) and drop
//! plotters' redundant `opacity="1"`, so that ImageMagick's built-in SVG renderer, which ignores
//! rotated text and fills polylines that carry that attribute, draws them as browsers, rsvg and
//! resvg do.

use std::fmt;

use plotters::drawing::DrawingAreaErrorKind;
use plotters::prelude::*;

mod evidence;
mod frame;
mod heat_map;
mod mixing;
mod orderings;
mod statistics;

pub use evidence::evidence_chart;
use frame::{check_matrix, check_orderings, common_deck, draw_title, grid_shape, invalid, render};
pub use heat_map::{RatioScale, position_heat_map};
use heat_map::{draw_heat_map, draw_heat_panel, draw_legend, heat_layout};
pub use mixing::mixing_curve;
use orderings::draw_orderings_panel;
pub use orderings::ordering_chart;
pub use statistics::StatisticSeries;

/// Ratio extents the heat-map scale snaps to; a fitted scale uses the smallest one that holds
/// every non-zero cell, so the legend's ends are round numbers.
pub const RATIO_EXTENTS: [f64; 8] = [1.05, 1.1, 1.25, 1.5, 2.0, 3.0, 4.0, 8.0];
/// The largest deck whose heat map writes each cell's percentage inside the cell.
pub const MAX_DECK_WITH_CELL_TEXT: usize = 10;
/// The largest deck whose orderings are drawn one bar each, in rank order (6! = 720 bars);
/// larger decks get the sorted-frequency curve.
pub const MAX_DECK_IN_RANK_ORDER: usize = 6;
/// The largest deck whose bars are labelled with the permutation itself instead of its rank.
pub const MAX_DECK_WITH_PERMUTATION_LABELS: usize = 4;
/// How many points a sorted-frequency curve keeps at most (the minimum and maximum always).
pub const CURVE_POINTS: usize = 2000;
/// The largest deck a heat map accepts.
pub const MAX_HEAT_MAP_DECK: usize = 1000;

const FONT: &str = "sans-serif";
const TITLE_SIZE: f64 = 26.0;
const CAPTION_SIZE: f64 = 19.0;
const LABEL_SIZE: f64 = 15.0;
const KEY_SIZE: f64 = 15.0;

const INK: RGBColor = RGBColor(34, 34, 34);
const GRID_INK: RGBColor = RGBColor(200, 200, 200);
const BELOW: RGBColor = RGBColor(33, 102, 172);
const CENTRE: RGBColor = RGBColor(255, 255, 255);
const ABOVE: RGBColor = RGBColor(178, 24, 43);
const UNKNOWN: RGBColor = RGBColor(190, 190, 190);
const OBSERVED: RGBColor = RGBColor(70, 130, 180);
const THEORY_BARS: RGBColor = RGBColor(120, 120, 160);
const UNIFORM: RGBColor = RGBColor(230, 120, 0);
const REFERENCE: RGBColor = RGBColor(130, 130, 130);
const SERIES: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

const TITLE_HEIGHT: i32 = 46;
const CAPTION_HEIGHT: i32 = 34;
const KEY_HEIGHT: i32 = 26;
const AXIS_LEFT: i32 = 56;
const AXIS_BOTTOM: i32 = 50;
const PADDING: i32 = 12;
const BAR_WIDTH: i32 = 20;
const LEGEND_LABELS: i32 = 92;
const LEGEND_WIDTH: i32 = 16 + BAR_WIDTH + LEGEND_LABELS;
/// Room above a chart for its vertical axis's description, written level.
const DESC_ROOM: i32 = 32;
/// Line height of a permutation spelled down under its bar.
const PERMUTATION_LINE: i32 = 16;

const HEAT_PANEL: (i32, i32) = (660, 580);
const ORDERINGS_PANEL: (i32, i32) = (720, 580);
const COMPARE_PANEL: (i32, i32) = (360, 370);
const MIXING_SIZE: (i32, i32) = (900, 580);

/// Why a picture could not be drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum PlotError {
    /// The data do not describe a picture (empty, ragged, wrong length, not finite...).
    InvalidInput(String),
    /// plotters failed while drawing (not expected when drawing into a string).
    Drawing(String),
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::InvalidInput(why) => write!(f, "cannot plot: {why}"),
            PlotError::Drawing(why) => write!(f, "drawing the plot failed: {why}"),
        }
    }
}

impl std::error::Error for PlotError {}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(error: DrawingAreaErrorKind<E>) -> Self {
        PlotError::Drawing(error.to_string())
    }
}

/// Where a position matrix comes from; it names the heat map's panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixSource {
    /// Frequencies counted over simulated or read shuffles.
    Observed,
    /// The algorithm's exact law (the `theory` command: nothing was observed).
    Theory,
}

/// Observed counts of every ordering, in rank order (index = lexicographic rank, see
/// [`crate::engine::permutation::rank`]), with the number of shuffles they add up to.
#[derive(Debug, Clone, Copy)]
pub struct OrderingCounts<'a> {
    /// `counts[rank]`: shuffles that produced the ordering of that rank (n! entries).
    pub counts: &'a [u64],
    /// Shuffles in all (the frequency of an ordering is count / trials).
    pub trials: u64,
}

/// What is known about the n! orderings: observed counts, exact probabilities, or both.
#[derive(Debug, Clone, Copy, Default)]
pub struct Orderings<'a> {
    /// Observed counts (absent for the `theory` command).
    pub observed: Option<OrderingCounts<'a>>,
    /// The exact probability of every ordering, in rank order (absent when the law is unknown).
    pub theory: Option<&'a [f64]>,
}

/// The picture of one run: a title line, the position heat map and, where the deck is small
/// enough to tally every ordering, the ordering-frequency chart beside it.
#[derive(Debug, Clone, Copy)]
pub struct RunPicture<'a> {
    /// The title line, e.g. "naive · 4 cards · 1,000,000 trials · seed 7".
    pub title: &'a str,
    /// `positions[card][position]`: the probability that `card` ends at `position`.
    pub positions: &'a [Vec<f64>],
    /// Whether `positions` was observed or is the exact law.
    pub source: MatrixSource,
    /// The orderings' panel; `None` leaves it out (decks too large to tally).
    pub orderings: Option<Orderings<'a>>,
    /// The statistics' panel of a marginal run, drawn beside the heat map when there is no
    /// orderings' panel.
    pub statistics: Option<&'a [StatisticSeries<'a>]>,
}

/// One panel of a comparison: an algorithm's name and its position matrix.
#[derive(Debug, Clone, Copy)]
pub struct NamedMatrix<'a> {
    /// The panel's title (the algorithm's name).
    pub name: &'a str,
    /// `positions[card][position]` probabilities.
    pub positions: &'a [Vec<f64>],
    /// The algorithm's orderings, drawn beside its heat map when given: uniform positions can
    /// hide a bias that only the orderings show (a random-comparator merge sort).
    pub orderings: Option<Orderings<'a>>,
}

/// One line of the mixing chart: total variation distance after each number of passes.
#[derive(Debug, Clone, Copy)]
pub struct MixingSeries<'a> {
    /// The line's name in the key (an algorithm, a deck size...); may be empty for one series.
    pub name: &'a str,
    /// (passes, total variation distance from uniform), in any order.
    pub points: &'a [(u32, f64)],
}

/// The vertical axis of the mixing chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TvAxis {
    /// Distance from 0 to 1 on a linear axis. This shows the cutoff best: the distance stays
    /// near 1 for a while and then falls off a cliff (Bayer & Diaconis 1992, "seven riffles"),
    /// and it is how the result is usually drawn; the 0.01 reference line then sits just above
    /// the axis.
    #[default]
    Linear,
    /// log10 of the distance, from a power of ten below the smallest value up to 1. This shows
    /// the exponential tail after the cutoff as a straight line and separates the 0.1 and 0.01
    /// reference lines; zero distances are drawn on the axis floor.
    Log,
}

/// The picture of a run: the title line over the heat map and, when given, the orderings'
/// chart to its right.
pub fn run_picture(picture: &RunPicture) -> Result<String, PlotError> {
    check_matrix(picture.positions)?;
    if let Some(orderings) = &picture.orderings {
        check_orderings(orderings)?;
    }
    let statistics = picture
        .statistics
        .filter(|_| picture.orderings.is_none())
        .filter(|series| !series.is_empty());
    if let Some(series) = statistics {
        statistics::check_statistics(series)?;
    }
    let right_width = match (picture.orderings, statistics) {
        (Some(_), _) => ORDERINGS_PANEL.0,
        (None, Some(_)) => statistics::STATISTICS_PANEL_WIDTH,
        (None, None) => 0,
    };
    let width = HEAT_PANEL.0 + right_width;
    let height = HEAT_PANEL.1.max(ORDERINGS_PANEL.1) + TITLE_HEIGHT;
    render((width, height), |root| {
        let below_title = draw_title(root, picture.title)?;
        let (left, right) = below_title.split_horizontally(HEAT_PANEL.0);
        draw_heat_panel(&left, picture.positions, picture.source)?;
        if let Some(orderings) = &picture.orderings {
            draw_orderings_panel(&right, orderings)?;
        } else if let Some(series) = statistics {
            statistics::draw_statistics_panel(&right, series)?;
        }
        Ok(())
    })
}

/// Small multiples: one heat map per algorithm, all on one colour scale with one legend, laid
/// out in a grid (up to three in a row, then as square a grid as fits the count).
pub fn compare_picture(title: &str, panels: &[NamedMatrix]) -> Result<String, PlotError> {
    if panels.is_empty() {
        return Err(invalid("a comparison needs at least one matrix"));
    }
    for panel in panels {
        check_matrix(panel.positions)
            .map_err(|error| invalid(format!("{}: {error}", panel.name)))?;
        if let Some(orderings) = &panel.orderings {
            check_orderings(orderings)
                .map_err(|error| invalid(format!("{}: {error}", panel.name)))?;
        }
    }
    // With orderings, each algorithm takes a heat map and its ordering chart side by side, and
    // two algorithms share a row.
    let with_orderings = panels.iter().any(|panel| panel.orderings.is_some());
    let cell = if with_orderings {
        (2 * COMPARE_PANEL.0, COMPARE_PANEL.1)
    } else {
        COMPARE_PANEL
    };
    let (columns, rows) = if with_orderings {
        let columns = panels.len().min(2);
        (columns, panels.len().div_ceil(columns))
    } else {
        grid_shape(panels.len())
    };
    // The ordering chart's key may reach a little past its panel: room before the legend.
    let gap = if with_orderings { 8 * PADDING } else { 0 };
    let width = columns as i32 * cell.0 + gap + LEGEND_WIDTH + PADDING;
    let height = rows as i32 * cell.1 + TITLE_HEIGHT;
    let scale = RatioScale::fitting(panels.iter().map(|panel| panel.positions));
    let deck = common_deck(panels.iter().map(|panel| panel.positions.len()));
    render((width, height), |root| {
        let below_title = draw_title(root, title)?;
        let mut first_layout = None;
        for (i, panel) in panels.iter().enumerate() {
            let (column, row) = (i % columns, i / columns);
            let origin = (column as i32 * cell.0, row as i32 * cell.1);
            let area = below_title.clone().shrink(origin, COMPARE_PANEL);
            let layout = heat_layout(COMPARE_PANEL, panel.positions.len(), 0);
            draw_heat_map(&area, &layout, panel.positions, &scale, panel.name)?;
            if let Some(orderings) = &panel.orderings {
                let beside = below_title
                    .clone()
                    .shrink((origin.0 + COMPARE_PANEL.0, origin.1), COMPARE_PANEL);
                draw_orderings_panel(&beside, orderings)?;
            }
            first_layout.get_or_insert(layout);
        }
        if let Some(layout) = first_layout {
            let x = columns as i32 * cell.0 + gap;
            let legend = below_title
                .clone()
                .shrink((x, 0), (LEGEND_WIDTH + PADDING, COMPARE_PANEL.1));
            draw_legend(&legend, PADDING, layout.top, layout.side, &scale, deck)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests;
