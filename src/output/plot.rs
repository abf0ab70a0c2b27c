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
use std::ops::Range;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::drawing::DrawingAreaErrorKind;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::engine::permutation::{FACTORIALS, unrank};

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

/// The heat map's colour scale: diverging around 1/n, symmetric in the ratio to 1/n.
///
/// A cell of probability p in an n×n matrix gets the position
/// t = ln(p·n) / ln(extent), clamped to [−1, 1]: t = 0 (p = 1/n) is white, t = 1
/// (p = extent/n or more) full red, t = −1 (p = 1/(extent·n) or less, including 0) full blue,
/// with the colour mixed linearly from white in between. Because t is a log ratio, p = 2/n and
/// p = 1/(2n) get equally strong colours. The extent is fitted to the data (the smallest of
/// [`RATIO_EXTENTS`] that holds every non-zero cell), so a fair shuffle's sampling noise stays
/// pale (the extent is at least ×1.05) while a strong bias uses the whole scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioScale {
    /// The ratio to 1/n shown at full colour (> 1).
    extent: f64,
    /// Whether some cell lies below 1/(extent·n) and is drawn at the scale's blue end.
    clipped_below: bool,
    /// Whether some cell lies above extent/n and is drawn at the scale's red end.
    clipped_above: bool,
}

impl RatioScale {
    /// A scale showing ratios to 1/n between 1/extent and extent; panics unless extent > 1.
    pub fn with_extent(extent: f64) -> Self {
        assert!(extent > 1.0, "a ratio scale's extent must exceed 1");
        RatioScale {
            extent,
            clipped_below: false,
            clipped_above: false,
        }
    }

    /// The scale fitted to every cell of every matrix: one scale shared by all of them.
    pub fn fitting<'m>(matrices: impl IntoIterator<Item = &'m [Vec<f64>]> + Clone) -> Self {
        let mut widest: f64 = 1.0;
        for matrix in matrices.clone() {
            let n = matrix.len() as f64;
            for &p in matrix.iter().flatten() {
                if p > 0.0 && p.is_finite() {
                    let ratio = p * n;
                    widest = widest.max(ratio).max(1.0 / ratio);
                }
            }
        }
        let extent = RATIO_EXTENTS
            .iter()
            .copied()
            .find(|&extent| widest <= extent * (1.0 + 1e-9))
            .unwrap_or(RATIO_EXTENTS[RATIO_EXTENTS.len() - 1]);
        let mut scale = RatioScale::with_extent(extent);
        for matrix in matrices {
            let n = matrix.len() as f64;
            for &p in matrix.iter().flatten().filter(|p| p.is_finite()) {
                scale.clipped_below |= p * n * extent < 1.0 - 1e-9;
                scale.clipped_above |= p * n > extent * (1.0 + 1e-9);
            }
        }
        scale
    }

    /// The ratio to 1/n drawn at full colour.
    pub fn extent(&self) -> f64 {
        self.extent
    }

    /// The position of probability `p` in an n-card matrix on the scale, from −1 (blue) through
    /// 0 (white, p = 1/n) to 1 (red); `None` when p is not a number.
    pub fn position(&self, p: f64, n: usize) -> Option<f64> {
        if !p.is_finite() {
            return None;
        }
        if p <= 0.0 {
            return Some(-1.0);
        }
        Some(((p * n as f64).ln() / self.extent.ln()).clamp(-1.0, 1.0))
    }

    /// The colour (red, green, blue) of probability `p` in an n-card matrix (grey when p is
    /// not a number).
    pub fn colour(&self, p: f64, n: usize) -> (u8, u8, u8) {
        let RGBColor(r, g, b) = self.fill(p, n);
        (r, g, b)
    }

    fn fill(&self, p: f64, n: usize) -> RGBColor {
        self.position(p, n).map_or(UNKNOWN, colour_at)
    }
}

/// The colour at position t ∈ [−1, 1] of the diverging scale.
fn colour_at(t: f64) -> RGBColor {
    let (end, weight) = if t >= 0.0 { (ABOVE, t) } else { (BELOW, -t) };
    let mix = |from: u8, to: u8| {
        (f64::from(from) + (f64::from(to) - f64::from(from)) * weight).round() as u8
    };
    RGBColor(
        mix(CENTRE.0, end.0),
        mix(CENTRE.1, end.1),
        mix(CENTRE.2, end.2),
    )
}

/// The heat map of one position matrix with its colour legend, as an SVG document.
pub fn position_heat_map(
    title: &str,
    positions: &[Vec<f64>],
    source: MatrixSource,
) -> Result<String, PlotError> {
    check_matrix(positions)?;
    let (width, height) = (HEAT_PANEL.0, HEAT_PANEL.1 + TITLE_HEIGHT);
    render((width, height), |root| {
        let panel = draw_title(root, title)?;
        draw_heat_panel(&panel, positions, source)
    })
}

/// The chart of every ordering's frequency (and probability), as an SVG document.
pub fn ordering_chart(title: &str, orderings: &Orderings) -> Result<String, PlotError> {
    check_orderings(orderings)?;
    let (width, height) = (ORDERINGS_PANEL.0, ORDERINGS_PANEL.1 + TITLE_HEIGHT);
    render((width, height), |root| {
        let panel = draw_title(root, title)?;
        draw_orderings_panel(&panel, orderings)
    })
}

/// The picture of a run: the title line over the heat map and, when given, the orderings'
/// chart to its right.
pub fn run_picture(picture: &RunPicture) -> Result<String, PlotError> {
    check_matrix(picture.positions)?;
    if let Some(orderings) = &picture.orderings {
        check_orderings(orderings)?;
    }
    let width = HEAT_PANEL.0 + picture.orderings.map_or(0, |_| ORDERINGS_PANEL.0);
    let height = HEAT_PANEL.1.max(ORDERINGS_PANEL.1) + TITLE_HEIGHT;
    render((width, height), |root| {
        let below_title = draw_title(root, picture.title)?;
        let (left, right) = below_title.split_horizontally(HEAT_PANEL.0);
        draw_heat_panel(&left, picture.positions, picture.source)?;
        if let Some(orderings) = &picture.orderings {
            draw_orderings_panel(&right, orderings)?;
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

/// The mixing curve: total variation distance from uniform against the number of passes, one
/// line with points per series, with dashed reference lines at 0.1 and 0.01.
pub fn mixing_curve(
    title: &str,
    series: &[MixingSeries],
    axis: TvAxis,
) -> Result<String, PlotError> {
    let points = || series.iter().flat_map(|s| s.points.iter());
    if points().next().is_none() {
        return Err(invalid("a mixing curve needs at least one point"));
    }
    if let Some((_, tv)) = points().find(|(_, tv)| !(0.0..=1.0).contains(tv)) {
        return Err(invalid(format!(
            "a total variation distance lies in [0, 1], not {tv}"
        )));
    }
    render(MIXING_SIZE, |root| {
        let below_title = draw_title(root, title)?;
        draw_mixing(&below_title, series, axis)
    })
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A linear axis over `range` whose ticks are exactly `ticks` (chosen by this module, so that
/// cells are labelled at their centres and percentages at round values).
#[derive(Debug, Clone)]
struct Ticked {
    range: Range<f64>,
    ticks: Vec<f64>,
}

fn ticked(range: Range<f64>, ticks: Vec<f64>) -> Ticked {
    Ticked { range, ticks }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let fraction = (value - self.range.start) / (self.range.end - self.range.start);
        limit.0 + (f64::from(limit.1 - limit.0) * fraction).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// Draw into a fresh white SVG of the given size and return the document.
///
/// plotters writes `opacity="1"` on every element; it is the default, so it is dropped: the
/// files get smaller, and ImageMagick's built-in SVG renderer, which fills a `<polyline>` that
/// carries it, draws the lines as lines.
fn render(
    (width, height): (i32, i32),
    draw: impl FnOnce(&Area) -> Result<(), PlotError>,
) -> Result<String, PlotError> {
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (width as u32, height as u32)).into_drawing_area();
        root.fill(&WHITE)?;
        draw(&root)?;
        root.present()?;
    }
    Ok(svg.replace(" opacity=\"1\"", ""))
}

fn invalid(why: impl Into<String>) -> PlotError {
    PlotError::InvalidInput(why.into())
}

fn text_style(size: f64) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font()).color(&INK)
}

fn anchored(size: f64, h: HPos, v: VPos) -> TextStyle<'static> {
    text_style(size).pos(Pos::new(h, v))
}

/// Write the title line across the top and return the area below it.
fn draw_title<'a>(root: &Area<'a>, title: &str) -> Result<Area<'a>, PlotError> {
    let (width, _) = root.dim_in_pixel();
    root.draw_text(
        title,
        &anchored(TITLE_SIZE, HPos::Center, VPos::Center),
        (width as i32 / 2, TITLE_HEIGHT / 2 + 2),
    )?;
    let (width, height) = root.dim_in_pixel();
    Ok(root.clone().shrink(
        (0, TITLE_HEIGHT),
        (width as i32, height as i32 - TITLE_HEIGHT),
    ))
}

fn check_matrix(matrix: &[Vec<f64>]) -> Result<(), PlotError> {
    let n = matrix.len();
    if n == 0 {
        return Err(invalid("the position matrix is empty"));
    }
    if n > MAX_HEAT_MAP_DECK {
        return Err(invalid(format!(
            "heat maps are drawn up to {MAX_HEAT_MAP_DECK} cards, not {n}"
        )));
    }
    if let Some(row) = matrix.iter().position(|row| row.len() != n) {
        return Err(invalid(format!(
            "the position matrix has {n} rows but row {row} has {} entries",
            matrix[row].len()
        )));
    }
    Ok(())
}

/// The deck size n with n! = `orderings`, if there is one.
fn deck_of(orderings: usize) -> Option<usize> {
    (1..=crate::engine::permutation::MAX_FULL_DECK).find(|&n| FACTORIALS[n] as usize == orderings)
}

fn check_orderings(orderings: &Orderings) -> Result<usize, PlotError> {
    let observed_len = orderings.observed.map(|o| o.counts.len());
    let theory_len = orderings.theory.map(<[f64]>::len);
    let len = match (observed_len, theory_len) {
        (None, None) => return Err(invalid("no orderings to plot: neither counts nor theory")),
        (Some(a), Some(b)) if a != b => {
            return Err(invalid(format!(
                "{a} observed orderings but {b} theoretical ones"
            )));
        }
        (Some(len), _) | (None, Some(len)) => len,
    };
    let n = deck_of(len).ok_or_else(|| {
        invalid(format!(
            "{len} orderings is not n! for a deck of 1 to {} cards",
            crate::engine::permutation::MAX_FULL_DECK
        ))
    })?;
    if orderings.observed.is_some_and(|o| o.trials == 0) {
        return Err(invalid("no trials: the observed frequencies are undefined"));
    }
    if let Some(theory) = orderings.theory
        && theory.iter().any(|p| !p.is_finite())
    {
        return Err(invalid("a theoretical probability is not a number"));
    }
    Ok(n)
}

/// The deck size shared by all matrices, if they agree.
fn common_deck(mut sizes: impl Iterator<Item = usize>) -> Option<usize> {
    let first = sizes.next()?;
    sizes.all(|n| n == first).then_some(first)
}

/// Columns and rows for `count` panels: up to three in one row, then ⌈√count⌉ columns.
fn grid_shape(count: usize) -> (usize, usize) {
    let columns = if count <= 3 {
        count
    } else {
        (1..).find(|c| c * c >= count).unwrap_or(count)
    };
    (columns, count.div_ceil(columns))
}

/// Where a heat map's square sits in its panel, in pixels from the panel's top-left corner.
#[derive(Debug, Clone, Copy, PartialEq)]
struct HeatLayout {
    /// Left edge of the square of cells.
    left: i32,
    /// Top edge of the square of cells.
    top: i32,
    /// Side of the square of cells.
    side: i32,
    /// Cards (and positions).
    n: usize,
}

impl HeatLayout {
    /// The pixel at fractions (fx, fy) ∈ [0, 1) across the cell of `card` at `position`.
    #[cfg(test)]
    fn point_in_cell(&self, card: usize, position: usize, fx: f64, fy: f64) -> (i32, i32) {
        let cell = f64::from(self.side) / self.n as f64;
        (
            self.left + ((position as f64 + fx) * cell) as i32,
            self.top + ((card as f64 + fy) * cell) as i32,
        )
    }
}

/// The layout of an n×n heat map in a panel of `size`, leaving `reserve_right` pixels for a
/// legend. Cells are whole pixels wide (so all the same size) whenever that leaves them at
/// least 2 pixels; larger decks share the pixels out as evenly as rounding allows.
fn heat_layout(size: (i32, i32), n: usize, reserve_right: i32) -> HeatLayout {
    let free_width = size.0 - AXIS_LEFT - 2 * PADDING - reserve_right;
    let free_height = size.1 - CAPTION_HEIGHT - AXIS_BOTTOM - 2 * PADDING;
    let room = free_width.min(free_height).max(n as i32);
    let per_cell = room / n as i32;
    let side = if per_cell >= 2 {
        per_cell * n as i32
    } else {
        room
    };
    let group = AXIS_LEFT + side + reserve_right;
    HeatLayout {
        left: (size.0 - group) / 2 + AXIS_LEFT,
        top: CAPTION_HEIGHT + PADDING,
        side,
        n,
    }
}

/// The heat map panel of a run: caption, heat map and legend.
fn draw_heat_panel(
    panel: &Area,
    positions: &[Vec<f64>],
    source: MatrixSource,
) -> Result<(), PlotError> {
    let (width, height) = panel.dim_in_pixel();
    let n = positions.len();
    let scale = RatioScale::fitting([positions]);
    let layout = heat_layout((width as i32, height as i32), n, LEGEND_WIDTH);
    let caption = match source {
        MatrixSource::Observed => "where each card ends (observed)",
        MatrixSource::Theory => "where each card ends (exact law)",
    };
    draw_heat_map(panel, &layout, positions, &scale, caption)?;
    draw_legend(
        panel,
        layout.left + layout.side + 16,
        layout.top,
        layout.side,
        &scale,
        Some(n),
    )
}

/// Tick values 0, step, 2·step… below `n` for an axis of n cells, at most about `most` of them.
fn cell_ticks(n: usize, most: usize) -> Vec<usize> {
    let step = nice_step(n as f64 / most as f64).max(1.0) as usize;
    (0..n).step_by(step).collect()
}

/// The smallest of 1, 2, 5 × 10^k that is at least `rough`.
fn nice_step(rough: f64) -> f64 {
    if rough <= 0.0 || !rough.is_finite() {
        return 1.0;
    }
    let power = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|&step| step >= rough * (1.0 - 1e-9))
        .unwrap_or(10.0 * power)
}

/// Multiples of a nice step (1, 2 or 5 × 10^k) from 0 up to `max`: the finest step that gives
/// at most `count` + 1 intervals.
fn nice_ticks(max: f64, count: usize) -> (Vec<f64>, f64) {
    let mut step = nice_step(max / (count + 1) as f64);
    while max / step > (count + 1) as f64 + 1e-9 {
        step = nice_step(step * 1.5);
    }
    let ticks = (0..)
        .map(|i| f64::from(i) * step)
        .take_while(|&t| t <= max * (1.0 + 1e-9))
        .collect();
    (ticks, step)
}

/// Decimals that tell apart ticks `step` apart.
fn decimals_for(step: f64) -> usize {
    if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    }
}

/// Draw the caption and cells of one heat map, with its axes, at `layout` in `panel`.
fn draw_heat_map(
    panel: &Area,
    layout: &HeatLayout,
    positions: &[Vec<f64>],
    scale: &RatioScale,
    caption: &str,
) -> Result<(), PlotError> {
    let n = layout.n;
    let nf = n as f64;
    panel.draw_text(
        caption,
        &anchored(CAPTION_SIZE, HPos::Center, VPos::Center),
        (layout.left + layout.side / 2, CAPTION_HEIGHT / 2),
    )?;
    let area = panel.clone().shrink(
        (layout.left - AXIS_LEFT, layout.top),
        (AXIS_LEFT + layout.side, layout.side + AXIS_BOTTOM),
    );
    let ticks = cell_ticks(n, 12);
    let x_keys: Vec<f64> = ticks.iter().map(|&p| p as f64 + 0.5).collect();
    let y_keys: Vec<f64> = ticks.iter().map(|&c| nf - c as f64 - 0.5).collect();
    let mut chart = ChartBuilder::on(&area)
        .y_label_area_size(AXIS_LEFT)
        .x_label_area_size(AXIS_BOTTOM)
        .build_cartesian_2d(ticked(0.0..nf, x_keys), ticked(0.0..nf, y_keys))?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("position")
        .axis_desc_style(text_style(LABEL_SIZE))
        .label_style(text_style(LABEL_SIZE))
        .x_label_formatter(&|x| format!("{}", (x - 0.5).round() as i64))
        .y_label_formatter(&|y| format!("{}", (nf - y - 0.5).round() as i64))
        .draw()?;

    panel.draw_text(
        "card",
        &anchored(LABEL_SIZE, HPos::Right, VPos::Bottom),
        (layout.left - 4, layout.top - 12),
    )?;
    let cell_pixels = f64::from(layout.side) / nf;
    let outline = n <= 24;
    chart.draw_series(positions.iter().enumerate().flat_map(|(card, row)| {
        row.iter().enumerate().map(move |(position, &p)| {
            let top = nf - card as f64;
            Rectangle::new(
                [(position as f64, top), (position as f64 + 1.0, top - 1.0)],
                scale.fill(p, n).filled(),
            )
        })
    }))?;
    if outline {
        chart.draw_series((0..=n).flat_map(|i| {
            let at = i as f64;
            [
                PathElement::new(vec![(at, 0.0), (at, nf)], GRID_INK.stroke_width(1)),
                PathElement::new(vec![(0.0, at), (nf, at)], GRID_INK.stroke_width(1)),
            ]
        }))?;
    }
    if n <= MAX_DECK_WITH_CELL_TEXT && cell_pixels >= 22.0 {
        let size = (cell_pixels * 0.36).clamp(10.0, 22.0);
        chart.draw_series(positions.iter().enumerate().flat_map(|(card, row)| {
            row.iter().enumerate().map(move |(position, &p)| {
                let strong = scale.position(p, n).is_some_and(|t| t.abs() > 0.6);
                let ink: &'static RGBColor = if strong { &WHITE } else { &INK };
                Text::new(
                    cell_text(p),
                    (position as f64 + 0.5, nf - card as f64 - 0.5),
                    text_style(size)
                        .color(ink)
                        .pos(Pos::new(HPos::Center, VPos::Center)),
                )
            })
        }))?;
    }
    Ok(())
}

/// A cell's probability as a percentage with one decimal ("25.1"); an exact zero is "0".
fn cell_text(p: f64) -> String {
    if p == 0.0 {
        "0".to_string()
    } else if p.is_finite() {
        format!("{:.1}", p * 100.0)
    } else {
        "?".to_string()
    }
}

/// A percentage with three significant digits at most ("25.0%", "1.92%", "0.139%").
fn percent(p: f64) -> String {
    let value = p * 100.0;
    let decimals = if value >= 10.0 {
        1
    } else if value >= 1.0 {
        2
    } else {
        3.max((-value.log10().floor()) as usize + 2)
    };
    format!("{value:.decimals$}%")
}

/// A ratio for the legend: "2", "1.25", "1/4", "0.8".
fn ratio_text(ratio: f64) -> String {
    if ratio < 0.5 + 1e-9 && (1.0 / ratio - (1.0 / ratio).round()).abs() < 1e-6 {
        return format!("1/{}", (1.0 / ratio).round());
    }
    let text = format!("{ratio:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The legend's tick positions on the scale: its ends and centre, and the powers of two between
/// for the wide extents.
fn legend_ticks(extent: f64) -> Vec<f64> {
    let mut ratios = vec![1.0 / extent, 1.0, extent];
    let mut power = 2.0;
    while power < extent * (1.0 - 1e-9) {
        ratios.extend([power, 1.0 / power]);
        power *= 2.0;
    }
    let mut ticks: Vec<f64> = ratios.iter().map(|r| r.ln() / extent.ln()).collect();
    ticks.sort_by(f64::total_cmp);
    ticks
}

/// Draw the colour bar with its ticks at (x, top) in `area`, `height` pixels tall.
fn draw_legend(
    area: &Area,
    x: i32,
    top: i32,
    height: i32,
    scale: &RatioScale,
    deck: Option<usize>,
) -> Result<(), PlotError> {
    area.draw_text(
        "chance ÷ 1/n",
        &anchored(LABEL_SIZE, HPos::Left, VPos::Bottom),
        (x, top - 14),
    )?;
    let bar = area
        .clone()
        .shrink((x, top), (BAR_WIDTH + LEGEND_LABELS, height));
    let extent = scale.extent;
    let (low, high) = (scale.clipped_below, scale.clipped_above);
    let mut chart = ChartBuilder::on(&bar)
        .right_y_label_area_size(LEGEND_LABELS)
        .build_cartesian_2d(0.0..1.0, ticked(-1.0..1.0, legend_ticks(extent)))?;
    let steps = height.clamp(2, 256);
    chart.draw_series((0..steps).map(|i| {
        let from = -1.0 + 2.0 * f64::from(i) / f64::from(steps);
        let to = -1.0 + 2.0 * f64::from(i + 1) / f64::from(steps);
        Rectangle::new(
            [(0.0, from), (1.0, to)],
            colour_at((from + to) / 2.0).filled(),
        )
    }))?;
    chart.draw_series([Rectangle::new(
        [(0.0, -1.0), (1.0, 1.0)],
        INK.stroke_width(1),
    )])?;
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .set_all_tick_mark_size(5)
        .label_style(text_style(LABEL_SIZE))
        .y_label_formatter(&|t| {
            let ratio = extent.powf(*t);
            if t.abs() < 1e-9 {
                return match deck {
                    Some(n) => format!("1/n = {}", percent(1.0 / n as f64)),
                    None => "1/n".to_string(),
                };
            }
            let mark = match (*t < -1.0 + 1e-9 && low, *t > 1.0 - 1e-9 && high) {
                (true, _) => "≤ ",
                (_, true) => "≥ ",
                _ => "",
            };
            format!("{mark}×{}", ratio_text(ratio))
        })
        .draw()?;
    Ok(())
}

/// Write a vertical axis's description level, above the axis (left-aligned with the area):
/// rotated text is avoided because not every renderer draws it (ImageMagick's built-in one
/// drops it). `top_left` is the plot's top-left corner in chart coordinates.
fn draw_y_desc<X, Y>(
    area: &Area,
    chart: &ChartContext<SVGBackend, Cartesian2d<X, Y>>,
    top_left: (X::ValueType, Y::ValueType),
    text: &str,
) -> Result<(), PlotError>
where
    X: Ranged,
    Y: Ranged,
{
    let (x, y) = chart.backend_coord(&top_left);
    let (base_x, base_y) = area.get_base_pixel();
    area.draw_text(
        text,
        &anchored(LABEL_SIZE, HPos::Left, VPos::Bottom),
        (8.max(x - base_x - AXIS_LEFT), y - base_y - 14),
    )?;
    Ok(())
}

/// One entry of a key: what the swatch looks like and what it stands for.
enum Swatch {
    Bar(RGBColor),
    Line(RGBColor),
    Dashed(RGBColor),
    LineWithPoint(RGBColor),
}

/// Draw a row of key entries starting at (x, y) (the row's vertical centre) in `area`.
fn draw_key(area: &Area, x: i32, y: i32, entries: &[(Swatch, String)]) -> Result<(), PlotError> {
    let style = anchored(KEY_SIZE, HPos::Left, VPos::Center);
    let mut at = x;
    for (swatch, label) in entries {
        match swatch {
            Swatch::Bar(colour) => {
                area.draw(&Rectangle::new(
                    [(at, y - 6), (at + 22, y + 6)],
                    colour.filled(),
                ))?;
            }
            Swatch::Line(colour) => {
                area.draw(&PathElement::new(
                    vec![(at, y), (at + 22, y)],
                    colour.stroke_width(2),
                ))?;
            }
            Swatch::Dashed(colour) => {
                area.draw(&dashed(vec![(at, y), (at + 22, y)], *colour))?;
            }
            Swatch::LineWithPoint(colour) => {
                area.draw(&PathElement::new(
                    vec![(at, y), (at + 22, y)],
                    colour.stroke_width(2),
                ))?;
                area.draw(&Circle::new((at + 11, y), 3, colour.filled()))?;
            }
        }
        area.draw_text(label, &style, (at + 28, y))?;
        let (width, _) = area.estimate_text_size(label, &style)?;
        at += 28 + width as i32 + 22;
    }
    Ok(())
}

/// A dashed line through `points`.
fn dashed<C: Clone>(
    points: Vec<C>,
    colour: RGBColor,
) -> DashedPathElement<std::vec::IntoIter<C>, i32> {
    DashedPathElement::new(points, 8, 5, colour.stroke_width(2))
}

/// The orderings panel: bars in rank order for small decks, sorted curves for larger ones.
fn draw_orderings_panel(panel: &Area, orderings: &Orderings) -> Result<(), PlotError> {
    let len = orderings
        .observed
        .map(|o| o.counts.len())
        .or(orderings.theory.map(<[f64]>::len))
        .unwrap_or(0);
    let n = deck_of(len).ok_or_else(|| invalid("not a whole set of orderings"))?;
    if n <= MAX_DECK_IN_RANK_ORDER {
        draw_rank_order(panel, orderings, n)
    } else {
        draw_sorted_curves(panel, orderings, n)
    }
}

/// Every ordering's frequency as a bar in rank order, the exact law as a step line over them
/// (or as the bars, when nothing was observed) and the uniform 1/n! as a dashed line.
fn draw_rank_order(panel: &Area, orderings: &Orderings, n: usize) -> Result<(), PlotError> {
    let len = FACTORIALS[n] as usize;
    let uniform = 1.0 / len as f64;
    let observed: Option<Vec<f64>> = orderings.observed.map(|o| {
        o.counts
            .iter()
            .map(|&c| c as f64 / o.trials as f64)
            .collect()
    });
    let (bars, bar_colour, line) = match (&observed, orderings.theory) {
        (Some(observed), theory) => (observed.as_slice(), OBSERVED, theory),
        (None, Some(theory)) => (theory, THEORY_BARS, None),
        (None, None) => return Err(invalid("no orderings to plot")),
    };
    let top = bars
        .iter()
        .chain(line.unwrap_or(&[]))
        .fold(uniform, |m, &v| m.max(v));
    let (y_ticks, y_step) = nice_ticks(top * 1.08, 6);
    let y_max = y_ticks.last().copied().unwrap_or(top).max(top * 1.08);
    let decimals = decimals_for(y_step * 100.0);

    let caption = if observed.is_some() {
        "how often each ordering came up"
    } else {
        "probability of each ordering (exact law)"
    };
    let (width, height) = panel.dim_in_pixel();
    let (width, height) = (width as i32, height as i32);
    panel.draw_text(
        caption,
        &anchored(CAPTION_SIZE, HPos::Center, VPos::Center),
        (width / 2, CAPTION_HEIGHT / 2),
    )?;
    let mut key = vec![(
        Swatch::Bar(bar_colour),
        if observed.is_some() {
            "observed".to_string()
        } else {
            "exact probability".to_string()
        },
    )];
    if line.is_some() {
        key.push((Swatch::Line(INK), "exact law".to_string()));
    }
    key.push((
        Swatch::Dashed(UNIFORM),
        format!("uniform 1/{n}! = {}", percent(uniform)),
    ));
    draw_key(panel, AXIS_LEFT + 12, CAPTION_HEIGHT + KEY_HEIGHT / 2, &key)?;

    // Small decks spell each ordering under its bar, one card a line (position 0 on top);
    // larger ones number the ranks.
    let spelled = n <= MAX_DECK_WITH_PERMUTATION_LABELS;
    let bottom = if spelled {
        PERMUTATION_LINE * n as i32 + 44
    } else {
        AXIS_BOTTOM
    };
    let area = panel.clone().shrink(
        (0, CAPTION_HEIGHT + KEY_HEIGHT),
        (
            width - PADDING,
            height - CAPTION_HEIGHT - KEY_HEIGHT - PADDING,
        ),
    );
    let x_keys: Vec<f64> = if spelled {
        Vec::new()
    } else {
        cell_ticks(len, 10).iter().map(|&r| r as f64).collect()
    };
    let mut chart = ChartBuilder::on(&area)
        .margin_top(DESC_ROOM)
        .y_label_area_size(AXIS_LEFT + 18)
        .x_label_area_size(bottom)
        .build_cartesian_2d(
            ticked(-0.5..len as f64 - 0.5, x_keys),
            ticked(0.0..y_max, y_ticks),
        )?;
    let x_desc = if spelled {
        "ordering: the deck after the shuffle, read down (in rank order)"
    } else {
        "ordering (rank)"
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .bold_line_style(GRID_INK.mix(0.6))
        .x_desc(x_desc)
        .axis_desc_style(text_style(LABEL_SIZE))
        .label_style(text_style(LABEL_SIZE))
        .x_label_formatter(&|x| format!("{}", x.round() as i64))
        .y_label_formatter(&|y| format!("{:.*}%", decimals, y * 100.0))
        .draw()?;
    let y_desc = if observed.is_some() {
        "frequency"
    } else {
        "probability"
    };
    draw_y_desc(&area, &chart, (-0.5, y_max), y_desc)?;

    let half = if len <= 120 { 0.38 } else { 0.5 };
    chart.draw_series(bars.iter().enumerate().map(|(rank, &v)| {
        let x = rank as f64;
        Rectangle::new([(x - half, 0.0), (x + half, v)], bar_colour.filled())
    }))?;
    // The exact law: a mark across each bar while the bars are few and wide, a step line
    // through all of them beyond.
    if let Some(theory) = line {
        if len <= FACTORIALS[MAX_DECK_WITH_PERMUTATION_LABELS] as usize {
            chart.draw_series(theory.iter().enumerate().map(|(rank, &p)| {
                let x = rank as f64;
                PathElement::new(vec![(x - 0.44, p), (x + 0.44, p)], INK.stroke_width(3))
            }))?;
        } else {
            let steps = theory.iter().enumerate().flat_map(|(rank, &p)| {
                let x = rank as f64;
                [(x - 0.5, p), (x + 0.5, p)]
            });
            chart.draw_series(LineSeries::new(steps, INK.stroke_width(2)))?;
        }
    }
    chart.draw_series([dashed(
        vec![(-0.5, uniform), (len as f64 - 0.5, uniform)],
        UNIFORM,
    )])?;

    if spelled {
        let style = anchored(LABEL_SIZE, HPos::Center, VPos::Top);
        let (base_x, base_y) = area.get_base_pixel();
        for rank in 0..len {
            let (x, y) = chart.backend_coord(&(rank as f64, 0.0));
            for (line, card) in unrank(rank, n).iter().enumerate() {
                area.draw_text(
                    &card.to_string(),
                    &style,
                    (x - base_x, y - base_y + 6 + PERMUTATION_LINE * line as i32),
                )?;
            }
        }
    }
    Ok(())
}

/// The points of a quantile curve: x is the sample index as a percentage of the way through
/// `len` sorted values, y the value there (`values[k]` belongs to the k-th of [`sample_indices`]).
fn quantile_curve(len: usize, values: impl IntoIterator<Item = f64>) -> Vec<(f64, f64)> {
    let last = len.saturating_sub(1).max(1) as f64;
    sample_indices(len)
        .into_iter()
        .map(|i| i as f64 / last * 100.0)
        .zip(values)
        .collect()
}

/// At most [`CURVE_POINTS`] indices spread evenly over 0..len, 0 and len − 1 included.
fn sample_indices(len: usize) -> Vec<usize> {
    let points = len.min(CURVE_POINTS);
    if points <= 1 {
        return (0..len).collect();
    }
    (0..points)
        .map(|k| {
            ((k as u128 * (len as u128 - 1) + (points as u128 - 1) / 2) / (points as u128 - 1))
                as usize
        })
        .collect()
}

/// The sorted (ascending) counts at the sample indices, computed without sorting when the
/// counts are small (a tally of how many orderings have each count), else from a sorted copy.
fn sorted_count_sample(counts: &[u64]) -> Vec<u64> {
    let indices = sample_indices(counts.len());
    let largest = counts.iter().copied().max().unwrap_or(0);
    if largest as usize <= counts.len() {
        let mut multiplicity = vec![0u64; largest as usize + 1];
        for &count in counts {
            multiplicity[count as usize] += 1;
        }
        let mut out = Vec::with_capacity(indices.len());
        let (mut value, mut below) = (0usize, multiplicity[0]);
        for index in indices {
            while below <= index as u64 {
                value += 1;
                below += multiplicity[value];
            }
            out.push(value as u64);
        }
        out
    } else {
        let mut sorted = counts.to_vec();
        sorted.sort_unstable();
        indices.into_iter().map(|i| sorted[i]).collect()
    }
}

/// The sorted frequency curves of large decks: observed and exact, each sorted on its own,
/// relative to the uniform 1/n!.
fn draw_sorted_curves(panel: &Area, orderings: &Orderings, n: usize) -> Result<(), PlotError> {
    let len = FACTORIALS[n] as usize;
    let orderings_f = len as f64;
    let observed: Option<Vec<(f64, f64)>> = orderings.observed.map(|o| {
        let scale = orderings_f / o.trials as f64;
        let counts = sorted_count_sample(o.counts);
        quantile_curve(len, counts.into_iter().map(|c| c as f64 * scale))
    });
    let theory: Option<Vec<(f64, f64)>> = orderings.theory.map(|p| {
        let mut sorted = p.to_vec();
        sorted.sort_unstable_by(f64::total_cmp);
        let values = sample_indices(len)
            .into_iter()
            .map(|i| sorted[i] * orderings_f);
        quantile_curve(len, values)
    });
    let top = observed
        .iter()
        .chain(theory.iter())
        .flatten()
        .fold(1.0f64, |m, &(_, y)| m.max(y));
    let (y_ticks, y_step) = nice_ticks(top * 1.08, 6);
    let y_max = y_ticks.last().copied().unwrap_or(top).max(top * 1.08);
    let decimals = decimals_for(y_step);

    let (width, height) = panel.dim_in_pixel();
    let (width, height) = (width as i32, height as i32);
    panel.draw_text(
        "orderings sorted from rarest to commonest",
        &anchored(CAPTION_SIZE, HPos::Center, VPos::Center),
        (width / 2, CAPTION_HEIGHT / 2),
    )?;
    let mut key = Vec::new();
    if observed.is_some() {
        key.push((Swatch::Line(OBSERVED), "observed".to_string()));
    }
    if theory.is_some() {
        key.push((Swatch::Line(INK), "exact law".to_string()));
    }
    key.push((Swatch::Dashed(UNIFORM), format!("uniform 1/{n}!")));
    draw_key(panel, AXIS_LEFT + 12, CAPTION_HEIGHT + KEY_HEIGHT / 2, &key)?;

    let area = panel.clone().shrink(
        (0, CAPTION_HEIGHT + KEY_HEIGHT),
        (
            width - PADDING,
            height - CAPTION_HEIGHT - KEY_HEIGHT - PADDING,
        ),
    );
    let mut chart = ChartBuilder::on(&area)
        .margin_top(DESC_ROOM)
        .margin_right(12)
        .y_label_area_size(AXIS_LEFT + 18)
        .x_label_area_size(AXIS_BOTTOM)
        .build_cartesian_2d(
            ticked(0.0..100.0, vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]),
            ticked(0.0..y_max, y_ticks),
        )?;
    chart
        .configure_mesh()
        .light_line_style(WHITE)
        .bold_line_style(GRID_INK.mix(0.6))
        .x_desc(format!("share of the {n}! orderings"))
        .axis_desc_style(text_style(LABEL_SIZE))
        .label_style(text_style(LABEL_SIZE))
        .x_label_formatter(&|x| format!("{x:.0}%"))
        .y_label_formatter(&|y| format!("{y:.decimals$}"))
        .draw()?;
    draw_y_desc(&area, &chart, (0.0, y_max), "frequency ÷ uniform (1/n!)")?;
    chart.draw_series([dashed(vec![(0.0, 1.0), (100.0, 1.0)], UNIFORM)])?;
    if let Some(theory) = theory {
        chart.draw_series(LineSeries::new(theory, INK.stroke_width(2)))?;
    }
    if let Some(observed) = observed {
        chart.draw_series(LineSeries::new(observed, OBSERVED.stroke_width(2)))?;
    }
    Ok(())
}

/// The mixing chart proper, below the title.
fn draw_mixing(area: &Area, series: &[MixingSeries], axis: TvAxis) -> Result<(), PlotError> {
    let passes = || series.iter().flat_map(|s| s.points.iter().map(|&(p, _)| p));
    let first = passes().min().unwrap_or(0);
    let last = passes().max().unwrap_or(1).max(first + 1);
    let (x_ticks, _) = nice_ticks(f64::from(last), 10);
    let x_ticks: Vec<f64> = x_ticks
        .into_iter()
        .filter(|&t| t >= f64::from(first))
        .collect();

    // On the log axis y is log10(distance); the floor is a power of ten at or below both the
    // smallest positive distance and the 0.01 line (never below 10^-6).
    let smallest = series
        .iter()
        .flat_map(|s| s.points.iter().map(|&(_, tv)| tv))
        .filter(|&tv| tv > 0.0)
        .fold(1.0f64, f64::min);
    let floor = smallest.log10().floor().clamp(-6.0, -3.0);
    let map = move |tv: f64| match axis {
        TvAxis::Linear => tv,
        TvAxis::Log => {
            if tv > 0.0 {
                tv.log10().max(floor)
            } else {
                floor
            }
        }
    };
    let (y_range, y_keys) = match axis {
        TvAxis::Linear => (0.0..1.0, vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
        TvAxis::Log => (
            floor..0.0,
            (floor as i32..=0).map(f64::from).collect::<Vec<_>>(),
        ),
    };

    let (width, _) = area.dim_in_pixel();
    let named = series.len() > 1 || series.iter().any(|s| !s.name.is_empty());
    let key_height = if named { KEY_HEIGHT } else { 0 };
    if named {
        let key: Vec<(Swatch, String)> = series
            .iter()
            .enumerate()
            .map(|(i, s)| {
                (
                    Swatch::LineWithPoint(SERIES[i % SERIES.len()]),
                    s.name.to_string(),
                )
            })
            .collect();
        draw_key(area, AXIS_LEFT + 20, KEY_HEIGHT / 2, &key)?;
    }
    let (_, height) = area.dim_in_pixel();
    let plot = area.clone().shrink(
        (0, key_height),
        (width as i32 - PADDING, height as i32 - key_height - PADDING),
    );
    let mut chart = ChartBuilder::on(&plot)
        .margin_top(DESC_ROOM)
        .margin_right(16)
        .y_label_area_size(AXIS_LEFT + 20)
        .x_label_area_size(AXIS_BOTTOM)
        .build_cartesian_2d(
            ticked(f64::from(first) - 0.3..f64::from(last) + 0.3, x_ticks),
            ticked(y_range, y_keys),
        )?;
    chart
        .configure_mesh()
        .light_line_style(WHITE)
        .bold_line_style(GRID_INK.mix(0.6))
        .x_desc("passes")
        .axis_desc_style(text_style(LABEL_SIZE))
        .label_style(text_style(LABEL_SIZE))
        .x_label_formatter(&|x| format!("{}", x.round() as i64))
        .y_label_formatter(&|y| match axis {
            TvAxis::Linear => format!("{y:.1}"),
            TvAxis::Log => {
                let decimals = (-y.round()).max(0.0) as usize;
                format!("{:.decimals$}", 10f64.powf(*y))
            }
        })
        .draw()?;
    let y_top = match axis {
        TvAxis::Linear => 1.0,
        TvAxis::Log => 0.0,
    };
    draw_y_desc(
        &plot,
        &chart,
        (f64::from(first) - 0.3, y_top),
        match axis {
            TvAxis::Linear => "total variation distance from uniform",
            TvAxis::Log => "total variation distance from uniform (log scale)",
        },
    )?;

    let (x0, x1) = (f64::from(first) - 0.3, f64::from(last) + 0.3);
    // The labels go at the left end, where a mixing curve is still high.
    let (base_x, base_y) = plot.get_base_pixel();
    for reference in [0.1, 0.01] {
        let y = map(reference);
        chart.draw_series([dashed(vec![(x0, y), (x1, y)], REFERENCE)])?;
        let (px, py) = chart.backend_coord(&(x0, y));
        plot.draw_text(
            &format!("TV = {reference}"),
            &anchored(LABEL_SIZE - 1.0, HPos::Left, VPos::Bottom).color(&REFERENCE),
            (px - base_x + 6, py - base_y - 4),
        )?;
    }
    for (i, s) in series.iter().enumerate() {
        let colour = SERIES[i % SERIES.len()];
        let mut points: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|&(passes, tv)| (f64::from(passes), map(tv)))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart.draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))?;
        chart.draw_series(
            points
                .into_iter()
                .map(|point| Circle::new(point, 4, colour.filled())),
        )?;
    }
    Ok(())
}

/// The running evidence of an anytime-valid sequential test (`--until-decided`):
/// log10(largest e-value / threshold) against the trials (log scale), with the threshold as a
/// dashed line at 0 — the run stops where the curve first reaches it. An infinite e-value (an
/// impossible outcome seen) is drawn at the top of the chart.
pub fn evidence_chart(title: &str, points: &[(u64, Option<f64>)]) -> Result<String, PlotError> {
    if points.is_empty() {
        return Err(invalid("the running evidence needs at least one point"));
    }
    let finite = || points.iter().filter_map(|&(_, y)| y);
    let low = finite().fold(-1.0f64, f64::min).floor();
    let high = finite().fold(1.0f64, f64::max).ceil();
    let top = if points.iter().any(|&(_, y)| y.is_none()) {
        high + 1.0
    } else {
        high
    };
    let last = points.iter().map(|&(t, _)| t).max().unwrap_or(1).max(1);
    let x_end = (last as f64).log10().ceil().max(1.0);
    let x_ticks: Vec<f64> = (0..=x_end as i32).map(f64::from).collect();
    let (y_ticks, _) = nice_ticks(top - low, 8);
    let y_ticks: Vec<f64> = y_ticks
        .into_iter()
        .map(|t| t + low)
        .filter(|&t| t <= top)
        .collect();
    render(MIXING_SIZE, |root| {
        let area = draw_title(root, title)?;
        let (width, height) = area.dim_in_pixel();
        let plot = area
            .clone()
            .shrink((0, 0), (width as i32 - PADDING, height as i32 - PADDING));
        let mut chart = ChartBuilder::on(&plot)
            .margin_top(DESC_ROOM)
            .margin_right(16)
            .y_label_area_size(AXIS_LEFT + 20)
            .x_label_area_size(AXIS_BOTTOM)
            .build_cartesian_2d(ticked(0.0..x_end, x_ticks), ticked(low..top, y_ticks))?;
        chart
            .configure_mesh()
            .light_line_style(WHITE)
            .bold_line_style(GRID_INK.mix(0.6))
            .x_desc("trials (log scale)")
            .axis_desc_style(text_style(LABEL_SIZE))
            .label_style(text_style(LABEL_SIZE))
            .x_label_formatter(&|x| format!("{}", 10f64.powf(*x).round() as u64))
            .y_label_formatter(&|y| format!("{y:+.0}"))
            .draw()?;
        draw_y_desc(
            &plot,
            &chart,
            (0.0, top),
            "log10(largest e-value / threshold 2K/alpha)",
        )?;
        chart.draw_series([dashed(vec![(0.0, 0.0), (x_end, 0.0)], REFERENCE)])?;
        let (base_x, base_y) = plot.get_base_pixel();
        let (px, py) = chart.backend_coord(&(0.0, 0.0));
        plot.draw_text(
            "threshold: the family rejects",
            &anchored(LABEL_SIZE - 1.0, HPos::Left, VPos::Bottom).color(&REFERENCE),
            (px - base_x + 6, py - base_y - 4),
        )?;
        let curve: Vec<(f64, f64)> = points
            .iter()
            .map(|&(t, y)| ((t.max(1) as f64).log10(), y.unwrap_or(top)))
            .collect();
        chart.draw_series(LineSeries::new(curve.clone(), SERIES[0].stroke_width(2)))?;
        if let Some(&end) = curve.last() {
            chart.draw_series([Circle::new(end, 5, SERIES[3].filled())])?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use resvg::tiny_skia::{Pixmap, Transform};
    use resvg::usvg;

    /// A 4×4 matrix of 1/4 with the given cells changed.
    fn quarter_matrix(changes: &[(usize, usize, f64)]) -> Vec<Vec<f64>> {
        let mut matrix = vec![vec![0.25; 4]; 4];
        for &(card, position, p) in changes {
            matrix[card][position] = p;
        }
        matrix
    }

    /// Every `<text>` element's content without the line breaks plotters puts around it (SVG
    /// collapses them), after parsing the document as XML (which fails unless well-formed).
    fn texts(svg: &str) -> Vec<String> {
        let document = roxmltree::Document::parse(svg).expect("well-formed XML");
        assert_eq!(document.root_element().tag_name().name(), "svg");
        document
            .descendants()
            .filter(|node| node.has_tag_name("text"))
            .map(|node| node.text().unwrap_or("").trim().to_string())
            .collect()
    }

    /// The picture rendered to pixels by resvg (built without its text feature, so `<text>`
    /// elements are skipped: the pixel tests look at shapes only).
    fn pixels(svg: &str) -> Pixmap {
        let tree = usvg::Tree::from_str(svg, &usvg::Options::default()).expect("valid SVG");
        let size = tree.size().to_int_size();
        let mut pixmap = Pixmap::new(size.width(), size.height()).unwrap();
        resvg::render(&tree, Transform::default(), &mut pixmap.as_mut());
        pixmap
    }

    fn rgb(pixmap: &Pixmap, (x, y): (i32, i32)) -> (i32, i32, i32) {
        let pixel = pixmap
            .pixel(x as u32, y as u32)
            .expect("inside the picture");
        assert_eq!(pixel.alpha(), 255, "the background is opaque");
        (
            i32::from(pixel.red()),
            i32::from(pixel.green()),
            i32::from(pixel.blue()),
        )
    }

    /// Red minus blue: large for the red end of the scale, about 0 for white, very negative for
    /// the blue end (the ends are (178, 24, 43) and (33, 102, 172)).
    fn redness((r, _, b): (i32, i32, i32)) -> i32 {
        r - b
    }

    /// A point a quarter of the way into a cell, clear of its centred percentage and its
    /// outline, in the coordinates of the whole picture.
    fn in_cell(
        layout: &HeatLayout,
        origin: (i32, i32),
        card: usize,
        position: usize,
    ) -> (i32, i32) {
        let (x, y) = layout.point_in_cell(card, position, 0.25, 0.25);
        (origin.0 + x, origin.1 + y)
    }

    #[test]
    fn a_fitted_scale_snaps_to_the_smallest_extent_that_holds_every_non_zero_cell() {
        let doubled = quarter_matrix(&[(0, 0, 0.5)]);
        assert_eq!(RatioScale::fitting([doubled.as_slice()]).extent(), 2.0);
        let slight = quarter_matrix(&[(0, 0, 0.27)]);
        assert_eq!(RatioScale::fitting([slight.as_slice()]).extent(), 1.1);
        let fair = quarter_matrix(&[]);
        assert_eq!(RatioScale::fitting([fair.as_slice()]).extent(), 1.05);
        // A zero does not widen the scale: it is drawn at the blue end, marked as clipped.
        let with_zero = quarter_matrix(&[(0, 0, 0.0), (0, 1, 0.3)]);
        let scale = RatioScale::fitting([with_zero.as_slice()]);
        assert_eq!(scale.extent(), 1.25);
        assert!(scale.clipped_below && !scale.clipped_above);
    }

    #[test]
    fn twice_and_half_as_likely_get_equally_strong_opposite_colours() {
        let scale = RatioScale::with_extent(4.0);
        let n = 10;
        assert_eq!(scale.position(0.1, n), Some(0.0));
        let twice = scale.position(0.2, n).unwrap();
        let half = scale.position(0.05, n).unwrap();
        assert!((twice - 0.5).abs() < 1e-12 && (half + 0.5).abs() < 1e-12);
        assert_eq!(scale.position(0.0, n), Some(-1.0));
        assert_eq!(scale.position(0.9, n), Some(1.0));
        assert_eq!(scale.position(f64::NAN, n), None);
        assert_eq!(scale.colour(0.1, n), (255, 255, 255));
        assert_eq!(scale.colour(0.9, n), (178, 24, 43));
        assert_eq!(scale.colour(0.0, n), (33, 102, 172));
    }

    #[test]
    fn the_heat_map_is_well_formed_xml_with_title_axis_names_legend_and_cell_percentages() {
        let matrix = quarter_matrix(&[(0, 0, 0.251), (0, 1, 0.249), (3, 3, 0.0)]);
        let svg = position_heat_map("naive · 4 cards", &matrix, MatrixSource::Observed).unwrap();
        let texts = texts(&svg);
        for expected in [
            "naive · 4 cards",
            "where each card ends (observed)",
            "position",
            "card",
            "25.1",
            "24.9",
            "25.0",
            "0",
            "1/n = 25.0%",
        ] {
            assert!(
                texts.iter().any(|t| t == expected),
                "no text {expected:?} in {texts:?}"
            );
        }
        assert!(!svg.contains(" opacity=\"1\""));
    }

    #[test]
    fn text_that_looks_like_markup_is_escaped() {
        let matrix = quarter_matrix(&[]);
        let svg = position_heat_map("a <b> & \"c\"", &matrix, MatrixSource::Theory).unwrap();
        assert!(texts(&svg).iter().any(|t| t == "a <b> & \"c\""));
    }

    #[test]
    fn cells_above_one_in_n_render_redder_and_cells_below_bluer_than_a_fair_cell() {
        // Card 0 lands at position 0 with 2/n and never at position 1; card 2 is fair.
        let matrix = quarter_matrix(&[(0, 0, 0.5), (0, 1, 0.0)]);
        let svg = position_heat_map("t", &matrix, MatrixSource::Observed).unwrap();
        let picture = pixels(&svg);
        let layout = heat_layout(HEAT_PANEL, 4, LEGEND_WIDTH);
        let origin = (0, TITLE_HEIGHT);
        let doubled = rgb(&picture, in_cell(&layout, origin, 0, 0));
        let never = rgb(&picture, in_cell(&layout, origin, 0, 1));
        let fair = rgb(&picture, in_cell(&layout, origin, 2, 0));
        assert!(
            fair.0 > 245 && fair.1 > 245 && fair.2 > 245,
            "1/n is white: {fair:?}"
        );
        assert!(redness(doubled) > 100, "2/n is red: {doubled:?}");
        assert!(redness(never) < -100, "0 is blue: {never:?}");
    }

    #[test]
    fn a_52_card_heat_map_writes_no_cell_text_but_still_colours_every_cell() {
        let n = 52;
        let mut matrix = vec![vec![1.0 / n as f64; n]; n];
        matrix[40][7] = 2.0 / n as f64;
        matrix[7][40] = 0.5 / n as f64;
        let svg = position_heat_map("52 cards", &matrix, MatrixSource::Observed).unwrap();
        let texts = texts(&svg);
        assert!(
            texts.len() < 40,
            "{} texts: cells must not be labelled",
            texts.len()
        );
        let picture = pixels(&svg);
        let layout = heat_layout(HEAT_PANEL, n, LEGEND_WIDTH);
        let origin = (0, TITLE_HEIGHT);
        let centre = |card, position| {
            let (x, y) = layout.point_in_cell(card, position, 0.5, 0.5);
            (origin.0 + x, origin.1 + y)
        };
        assert!(redness(rgb(&picture, centre(40, 7))) > 100);
        assert!(redness(rgb(&picture, centre(7, 40))) < -100);
        assert_eq!(rgb(&picture, centre(20, 20)), (255, 255, 255));
    }

    #[test]
    fn a_heat_map_of_a_few_hundred_cards_draws_every_cell() {
        let n = 300;
        let matrix = vec![vec![1.0 / n as f64; n]; n];
        let svg = position_heat_map("300 cards", &matrix, MatrixSource::Theory).unwrap();
        let document = roxmltree::Document::parse(&svg).unwrap();
        let rects = document
            .descendants()
            .filter(|node| node.has_tag_name("rect"))
            .count();
        assert!(rects >= n * n, "{rects} rectangles");
    }

    #[test]
    fn equal_values_get_equal_colours_in_every_panel_of_a_comparison() {
        // Alone, b's widest cell (×1.5) would be full red; on the shared scale fitted to a's ×2
        // it must look exactly like a's cell of the same value.
        let a = quarter_matrix(&[(0, 0, 0.5), (2, 2, 0.375)]);
        let b = quarter_matrix(&[(1, 1, 0.375)]);
        let panels = [
            NamedMatrix {
                name: "a",
                positions: &a,
                orderings: None,
            },
            NamedMatrix {
                name: "b",
                positions: &b,
                orderings: None,
            },
        ];
        let svg = compare_picture("two", &panels).unwrap();
        let texts = texts(&svg);
        assert!(
            ["two", "a", "b"]
                .iter()
                .all(|t| texts.iter().any(|x| x == t))
        );
        let picture = pixels(&svg);
        let layout = heat_layout(COMPARE_PANEL, 4, 0);
        let origin_a = (0, TITLE_HEIGHT);
        let origin_b = (COMPARE_PANEL.0, TITLE_HEIGHT);
        let in_a = rgb(&picture, in_cell(&layout, origin_a, 2, 2));
        let in_b = rgb(&picture, in_cell(&layout, origin_b, 1, 1));
        let full = rgb(&picture, in_cell(&layout, origin_a, 0, 0));
        assert_eq!(in_a, in_b);
        assert!(redness(in_a) > 30 && redness(full) - redness(in_a) > 30);
    }

    #[test]
    fn equal_inputs_give_equal_bytes() {
        let matrix = quarter_matrix(&[(0, 0, 0.4)]);
        let counts: Vec<u64> = (0..24).collect();
        let picture = RunPicture {
            title: "same",
            positions: &matrix,
            source: MatrixSource::Observed,
            orderings: Some(Orderings {
                observed: Some(OrderingCounts {
                    counts: &counts,
                    trials: 276,
                }),
                theory: None,
            }),
        };
        assert_eq!(
            run_picture(&picture).unwrap(),
            run_picture(&picture).unwrap()
        );
    }

    #[test]
    fn a_theory_run_picture_names_the_exact_law_and_plots_probabilities() {
        let matrix = quarter_matrix(&[]);
        let law = vec![1.0 / 24.0; 24];
        let picture = RunPicture {
            title: "theory",
            positions: &matrix,
            source: MatrixSource::Theory,
            orderings: Some(Orderings {
                observed: None,
                theory: Some(&law),
            }),
        };
        let texts = texts(&run_picture(&picture).unwrap());
        for expected in [
            "where each card ends (exact law)",
            "probability of each ordering (exact law)",
            "probability",
            "uniform 1/4! = 4.17%",
        ] {
            assert!(texts.iter().any(|t| t == expected), "no {expected:?}");
        }
        assert!(!texts.iter().any(|t| t == "observed"));
    }

    #[test]
    fn small_decks_spell_every_ordering_under_its_bar() {
        let counts = [10, 20, 30, 40, 50, 60];
        let orderings = Orderings {
            observed: Some(OrderingCounts {
                counts: &counts,
                trials: 210,
            }),
            theory: Some(&[1.0 / 6.0; 6]),
        };
        let texts = texts(&ordering_chart("three", &orderings).unwrap());
        // Each of the 6 orderings writes each of the 3 cards once.
        for card in ["0", "1", "2"] {
            assert!(texts.iter().filter(|t| *t == card).count() >= 6);
        }
        assert!(texts.iter().any(|t| t == "exact law"));
        assert!(texts.iter().any(|t| t == "uniform 1/3! = 16.7%"));
    }

    #[test]
    fn a_run_picture_without_orderings_is_one_panel_wide() {
        let matrix = quarter_matrix(&[]);
        let picture = RunPicture {
            title: "alone",
            positions: &matrix,
            source: MatrixSource::Observed,
            orderings: None,
        };
        let svg = run_picture(&picture).unwrap();
        assert_eq!(pixels(&svg).width(), HEAT_PANEL.0 as u32);
    }

    #[test]
    fn large_decks_get_sorted_curves_of_a_few_thousand_points() {
        let len = FACTORIALS[7] as usize;
        let counts: Vec<u64> = (0..len as u64).map(|i| (i * 7919) % 97).collect();
        let theory: Vec<f64> = (0..len)
            .map(|i| (1 + i % 3) as f64 / (2 * len) as f64)
            .collect();
        let orderings = Orderings {
            observed: Some(OrderingCounts {
                counts: &counts,
                trials: counts.iter().sum(),
            }),
            theory: Some(&theory),
        };
        let svg = ordering_chart("seven", &orderings).unwrap();
        let texts = texts(&svg);
        assert!(
            texts
                .iter()
                .any(|t| t == "orderings sorted from rarest to commonest")
        );
        let document = roxmltree::Document::parse(&svg).unwrap();
        let longest = document
            .descendants()
            .filter(|node| node.has_tag_name("polyline"))
            .map(|node| node.attribute("points").unwrap().split_whitespace().count())
            .max()
            .unwrap();
        assert!(longest <= CURVE_POINTS, "{longest} points");
    }

    #[test]
    fn the_sorted_sample_keeps_the_minimum_and_maximum_and_never_decreases() {
        let counts: Vec<u64> = (0..100_000u64).map(|i| (i * 7919) % 1013).collect();
        let sample = sorted_count_sample(&counts);
        assert_eq!(sample.len(), CURVE_POINTS);
        assert_eq!(sample[0], 0);
        assert_eq!(*sample.last().unwrap(), 1012);
        assert!(sample.windows(2).all(|w| w[0] <= w[1]));
        // The tally (small counts) and the sorted copy (large counts) agree.
        let large: Vec<u64> = counts.iter().map(|c| c * 1_000_000).collect();
        let scaled: Vec<u64> = sample.iter().map(|c| c * 1_000_000).collect();
        assert_eq!(sorted_count_sample(&large), scaled);
        let indices = sample_indices(100_000);
        assert_eq!((indices[0], indices[CURVE_POINTS - 1]), (0, 99_999));
        assert_eq!(sample_indices(5), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn the_mixing_curve_draws_both_reference_lines_on_either_axis() {
        let points = [(1, 1.0), (2, 0.9), (3, 0.4), (4, 0.05), (5, 0.0)];
        let series = [MixingSeries {
            name: "riffle",
            points: &points,
        }];
        for axis in [TvAxis::Linear, TvAxis::Log] {
            let svg = mixing_curve("mixing", &series, axis).unwrap();
            let texts = texts(&svg);
            for expected in ["mixing", "riffle", "passes", "TV = 0.1", "TV = 0.01"] {
                assert!(texts.iter().any(|t| t == expected), "no {expected:?}");
            }
            pixels(&svg);
        }
    }

    #[test]
    fn inputs_that_describe_no_picture_are_refused() {
        let ragged = vec![vec![0.5, 0.5], vec![1.0]];
        assert!(matches!(
            position_heat_map("x", &ragged, MatrixSource::Observed),
            Err(PlotError::InvalidInput(_))
        ));
        let five = [1u64; 5];
        let orderings = Orderings {
            observed: Some(OrderingCounts {
                counts: &five,
                trials: 5,
            }),
            theory: None,
        };
        assert!(ordering_chart("x", &orderings).is_err());
        assert!(ordering_chart("x", &Orderings::default()).is_err());
        let out_of_range = [(1, 1.5)];
        let series = [MixingSeries {
            name: "",
            points: &out_of_range,
        }];
        assert!(mixing_curve("x", &series, TvAxis::Linear).is_err());
        assert!(compare_picture("x", &[]).is_err());
    }

    #[test]
    fn grids_hold_up_to_three_in_a_row_then_square_up() {
        assert_eq!(grid_shape(1), (1, 1));
        assert_eq!(grid_shape(3), (3, 1));
        assert_eq!(grid_shape(4), (2, 2));
        assert_eq!(grid_shape(8), (3, 3));
    }

    #[test]
    fn the_evidence_chart_is_well_formed_and_labels_the_threshold() {
        let svg = evidence_chart(
            "naive · 4 cards",
            &[
                (1, Some(-3.5)),
                (2, Some(-3.2)),
                (100, Some(-1.0)),
                (1492, Some(0.1)),
            ],
        )
        .unwrap();
        let texts = texts(&svg);
        assert!(texts.iter().any(|t| t == "threshold: the family rejects"));
        assert!(texts.iter().any(|t| t == "naive · 4 cards"));
        assert!(evidence_chart("empty", &[]).is_err());
        // An infinite e-value is drawn at the top, not refused.
        assert!(evidence_chart("impossible", &[(1, Some(-3.0)), (2, None)]).is_ok());
    }
}
