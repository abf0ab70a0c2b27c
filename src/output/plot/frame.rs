//! What every chart is drawn with: the SVG document and its title line, axes with chosen ticks,
//! round tick steps, percentages as text, level axis descriptions, keys and dashed lines, and the
//! checks of the data given.

use super::{
    AXIS_LEFT, FONT, INK, KEY_SIZE, LABEL_SIZE, MAX_HEAT_MAP_DECK, Orderings, PlotError,
    TITLE_HEIGHT, TITLE_SIZE,
};
use crate::engine::permutation::FACTORIALS;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;

pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A linear axis over `range` whose ticks are exactly `ticks` (chosen by this module, so that
/// cells are labelled at their centres and percentages at round values).
#[derive(Debug, Clone)]
pub(super) struct Ticked {
    range: Range<f64>,
    ticks: Vec<f64>,
}

pub(super) fn ticked(range: Range<f64>, ticks: Vec<f64>) -> Ticked {
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
pub(super) fn render(
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

pub(super) fn invalid(why: impl Into<String>) -> PlotError {
    PlotError::InvalidInput(why.into())
}

pub(super) fn text_style(size: f64) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font()).color(&INK)
}

pub(super) fn anchored(size: f64, h: HPos, v: VPos) -> TextStyle<'static> {
    text_style(size).pos(Pos::new(h, v))
}

/// Write the title line across the top and return the area below it.
pub(super) fn draw_title<'a>(root: &Area<'a>, title: &str) -> Result<Area<'a>, PlotError> {
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

pub(super) fn check_matrix(matrix: &[Vec<f64>]) -> Result<(), PlotError> {
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
pub(super) fn deck_of(orderings: usize) -> Option<usize> {
    (1..=crate::engine::permutation::MAX_FULL_DECK).find(|&n| FACTORIALS[n] as usize == orderings)
}

pub(super) fn check_orderings(orderings: &Orderings) -> Result<usize, PlotError> {
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
pub(super) fn common_deck(mut sizes: impl Iterator<Item = usize>) -> Option<usize> {
    let first = sizes.next()?;
    sizes.all(|n| n == first).then_some(first)
}

/// Columns and rows for `count` panels: up to three in one row, then ⌈√count⌉ columns.
pub(super) fn grid_shape(count: usize) -> (usize, usize) {
    let columns = if count <= 3 {
        count
    } else {
        (1..).find(|c| c * c >= count).unwrap_or(count)
    };
    (columns, count.div_ceil(columns))
}

/// Tick values 0, step, 2·step… below `n` for an axis of n cells, at most about `most` of them.
pub(super) fn cell_ticks(n: usize, most: usize) -> Vec<usize> {
    let step = nice_step(n as f64 / most as f64).max(1.0) as usize;
    (0..n).step_by(step).collect()
}

/// The smallest of 1, 2, 5 × 10^k that is at least `rough`.
pub(super) fn nice_step(rough: f64) -> f64 {
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
pub(super) fn nice_ticks(max: f64, count: usize) -> (Vec<f64>, f64) {
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
pub(super) fn decimals_for(step: f64) -> usize {
    if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    }
}

/// A percentage with three significant digits at most ("25.0%", "1.92%", "0.139%").
pub(super) fn percent(p: f64) -> String {
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

/// Write a vertical axis's description level, above the axis (left-aligned with the area):
/// rotated text is avoided because not every renderer draws it (ImageMagick's built-in one
/// drops it). `top_left` is the plot's top-left corner in chart coordinates.
pub(super) fn draw_y_desc<X, Y>(
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
pub(super) enum Swatch {
    Bar(RGBColor),
    Line(RGBColor),
    Dashed(RGBColor),
    LineWithPoint(RGBColor),
}

/// Draw a row of key entries starting at (x, y) (the row's vertical centre) in `area`.
pub(super) fn draw_key(
    area: &Area,
    x: i32,
    y: i32,
    entries: &[(Swatch, String)],
) -> Result<(), PlotError> {
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
pub(super) fn dashed<C: Clone>(
    points: Vec<C>,
    colour: RGBColor,
) -> DashedPathElement<std::vec::IntoIter<C>, i32> {
    DashedPathElement::new(points, 8, 5, colour.stroke_width(2))
}
