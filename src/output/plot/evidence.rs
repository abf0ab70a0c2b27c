//! The running evidence of an anytime-valid sequential test, against the trials.

use super::frame::{
    anchored, dashed, draw_title, draw_y_desc, invalid, nice_ticks, render, text_style, ticked,
};
use super::{
    AXIS_BOTTOM, AXIS_LEFT, DESC_ROOM, GRID_INK, LABEL_SIZE, MIXING_SIZE, PADDING, PlotError,
    REFERENCE, SERIES,
};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

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
