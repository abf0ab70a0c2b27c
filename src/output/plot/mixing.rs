//! The mixing curve: total variation distance from uniform against the number of passes.

use super::frame::{
    Area, Swatch, anchored, dashed, draw_key, draw_title, draw_y_desc, invalid, nice_ticks, render,
    text_style, ticked,
};
use super::{
    AXIS_BOTTOM, AXIS_LEFT, DESC_ROOM, GRID_INK, KEY_HEIGHT, LABEL_SIZE, MIXING_SIZE, MixingSeries,
    PADDING, PlotError, REFERENCE, SERIES, TvAxis,
};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

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

/// The mixing chart proper, below the title.
pub(super) fn draw_mixing(
    area: &Area,
    series: &[MixingSeries],
    axis: TvAxis,
) -> Result<(), PlotError> {
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
