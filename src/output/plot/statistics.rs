//! The statistics panel of a marginal run's picture: one small chart per permutation statistic,
//! its observed frequencies as bars, the algorithm's exact law (when known) as marks and the
//! uniform law as a dashed step line — where a bias hides from the position heat map (a shelf
//! shuffler's valleys, a riffle's rising sequences) it stands out here.

use super::frame::{
    Area, Swatch, anchored, dashed, decimals_for, draw_key, grid_shape, invalid, nice_step,
    nice_ticks,
    text_style, ticked,
};
use super::{CAPTION_HEIGHT, CAPTION_SIZE, GRID_INK, INK, KEY_HEIGHT, OBSERVED, PlotError, UNIFORM};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// One statistic's chart: its name and its laws over the values shown (0 …).
#[derive(Debug, Clone, Copy)]
pub struct StatisticSeries<'a> {
    /// The statistic's name, the chart's caption.
    pub name: &'a str,
    /// Observed frequency of each value.
    pub observed: &'a [f64],
    /// The uniform law over the same values.
    pub uniform: &'a [f64],
    /// The algorithm's exact law over the same values, when known.
    pub theory: Option<&'a [f64]>,
}

/// Values beyond which the uniform law is drawn as a line rather than dashed steps.
const DENSE_VALUES: usize = 40;

/// The width of the statistics panel beside the heat map.
pub(super) const STATISTICS_PANEL_WIDTH: i32 = 900;

/// Checks that every series has values and equal lengths.
pub(super) fn check_statistics(series: &[StatisticSeries]) -> Result<(), PlotError> {
    if series.is_empty() {
        return Err(invalid("no statistics to plot"));
    }
    for s in series {
        let len = s.observed.len();
        if len == 0 || s.uniform.len() != len || s.theory.is_some_and(|t| t.len() != len) {
            return Err(invalid(format!("{}: the laws list different values", s.name)));
        }
        let finite = |v: &[f64]| v.iter().all(|p| p.is_finite() && *p >= 0.0);
        if !finite(s.observed) || !finite(s.uniform) || !s.theory.is_none_or(finite) {
            return Err(invalid(format!("{}: a frequency is not a probability", s.name)));
        }
    }
    Ok(())
}

/// The values worth drawing: from the first to the last value with at least 0.1% under some law
/// (the tails of a 52-card statistic run over hundreds of values of negligible mass).
fn shown_range(s: &StatisticSeries) -> (usize, usize) {
    let visible = |i: usize| {
        s.observed[i] >= 1e-3 || s.uniform[i] >= 1e-3 || s.theory.is_some_and(|t| t[i] >= 1e-3)
    };
    let len = s.observed.len();
    let first = (0..len).find(|&i| visible(i)).unwrap_or(0);
    let last = (0..len).rev().find(|&i| visible(i)).unwrap_or(len - 1);
    (first, last.max(first))
}

/// About four ticks on whole values between `first` and `last`, multiples of a nice step.
fn value_ticks(first: usize, last: usize) -> Vec<f64> {
    let step = nice_step((last - first).max(1) as f64 / 4.0).max(1.0) as usize;
    (first.div_ceil(step) * step..=last)
        .step_by(step)
        .map(|v| v as f64)
        .collect()
}

/// Draw the panel: a caption, a key, then the charts in a grid.
pub(super) fn draw_statistics_panel(
    panel: &Area,
    series: &[StatisticSeries],
) -> Result<(), PlotError> {
    let (width, height) = panel.dim_in_pixel();
    let (width, height) = (width as i32, height as i32);
    panel.draw_text(
        "the permutation statistics: how often each value came up",
        &anchored(CAPTION_SIZE, HPos::Center, VPos::Center),
        (width / 2, CAPTION_HEIGHT / 2),
    )?;
    let mut key = vec![(Swatch::Bar(OBSERVED), "observed".to_string())];
    if series.iter().any(|s| s.theory.is_some()) {
        key.push((Swatch::Line(INK), "exact law".to_string()));
    }
    key.push((Swatch::Dashed(UNIFORM), "uniform".to_string()));
    draw_key(panel, 24, CAPTION_HEIGHT + KEY_HEIGHT / 2, &key)?;
    let grid = panel.clone().shrink(
        (0, CAPTION_HEIGHT + KEY_HEIGHT),
        (width, height - CAPTION_HEIGHT - KEY_HEIGHT),
    );
    let (columns, rows) = grid_shape(series.len());
    let cells = grid.split_evenly((rows, columns));
    for (cell, s) in cells.iter().zip(series) {
        draw_one(cell, s)?;
    }
    Ok(())
}

/// One statistic's small chart.
fn draw_one(cell: &Area, s: &StatisticSeries) -> Result<(), PlotError> {
    let (first, last) = shown_range(s);
    let range = first..last + 1;
    let top = s.observed[range.clone()]
        .iter()
        .chain(&s.uniform[range.clone()])
        .chain(s.theory.map_or(&[][..], |t| &t[range.clone()]))
        .fold(0.0f64, |m, &v| m.max(v));
    let (y_ticks, y_step) = nice_ticks(top * 1.1, 3);
    let decimals = decimals_for(y_step * 100.0);
    let y_max = y_ticks.last().copied().unwrap_or(top).max(top * 1.1).max(1e-9);
    let mut chart = ChartBuilder::on(cell)
        .caption(s.name, text_style(15.0))
        .margin(6)
        .x_label_area_size(22)
        .y_label_area_size(44)
        .build_cartesian_2d(
            ticked(first as f64 - 0.5..last as f64 + 0.5, value_ticks(first, last)),
            ticked(0.0..y_max, y_ticks),
        )?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .bold_line_style(GRID_INK.mix(0.6))
        .label_style(text_style(12.0))
        .x_label_formatter(&|x| format!("{}", x.round() as i64))
        .y_label_formatter(&|y| format!("{:.*}%", decimals, y * 100.0))
        .draw()?;
    let half = 0.4;
    chart.draw_series(range.clone().map(|v| {
        let x = v as f64;
        Rectangle::new([(x - half, 0.0), (x + half, s.observed[v])], OBSERVED.filled())
    }))?;
    if let Some(theory) = s.theory {
        chart.draw_series(range.clone().map(|v| {
            let x = v as f64;
            PathElement::new(vec![(x - half, theory[v]), (x + half, theory[v])], INK.stroke_width(2))
        }))?;
    }
    // A step line while the values are few; beyond, a line through the values (a dashed step
    // line over hundreds of values would be all dashes).
    if last - first < DENSE_VALUES {
        let steps: Vec<(f64, f64)> = range
            .flat_map(|v| {
                let x = v as f64;
                [(x - 0.5, s.uniform[v]), (x + 0.5, s.uniform[v])]
            })
            .collect();
        chart.draw_series([dashed(steps, UNIFORM)])?;
    } else {
        // Values the uniform law makes impossible (odd footrules) are left out of the line.
        let points = range
            .filter(|&v| s.uniform[v] > 0.0)
            .map(|v| (v as f64, s.uniform[v]));
        chart.draw_series(LineSeries::new(points, UNIFORM.stroke_width(2)))?;
    }
    Ok(())
}
