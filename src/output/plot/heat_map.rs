//! The position heat map: its colour scale, its layout in a panel, its cells, axes and legend,
//! alone or as small multiples for a comparison.

use super::frame::{
    Area, anchored, cell_ticks, check_matrix, draw_title, percent, render, text_style, ticked,
};
use super::{
    ABOVE, AXIS_BOTTOM, AXIS_LEFT, BAR_WIDTH, BELOW, CAPTION_HEIGHT, CAPTION_SIZE, CENTRE,
    GRID_INK, HEAT_PANEL, INK, LABEL_SIZE, LEGEND_LABELS, LEGEND_WIDTH, MAX_DECK_WITH_CELL_TEXT,
    MatrixSource, PADDING, PlotError, RATIO_EXTENTS, TITLE_HEIGHT, UNKNOWN,
};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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
    pub(super) clipped_below: bool,
    /// Whether some cell lies above extent/n and is drawn at the scale's red end.
    pub(super) clipped_above: bool,
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
pub(super) fn colour_at(t: f64) -> RGBColor {
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

/// Where a heat map's square sits in its panel, in pixels from the panel's top-left corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct HeatLayout {
    /// Left edge of the square of cells.
    left: i32,
    /// Top edge of the square of cells.
    pub(super) top: i32,
    /// Side of the square of cells.
    pub(super) side: i32,
    /// Cards (and positions).
    n: usize,
}

impl HeatLayout {
    /// The pixel at fractions (fx, fy) ∈ [0, 1) across the cell of `card` at `position`.
    #[cfg(test)]
    pub(super) fn point_in_cell(
        &self,
        card: usize,
        position: usize,
        fx: f64,
        fy: f64,
    ) -> (i32, i32) {
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
pub(super) fn heat_layout(size: (i32, i32), n: usize, reserve_right: i32) -> HeatLayout {
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
pub(super) fn draw_heat_panel(
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

/// Draw the caption and cells of one heat map, with its axes, at `layout` in `panel`.
pub(super) fn draw_heat_map(
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
pub(super) fn cell_text(p: f64) -> String {
    if p == 0.0 {
        "0".to_string()
    } else if p.is_finite() {
        format!("{:.1}", p * 100.0)
    } else {
        "?".to_string()
    }
}

/// A ratio for the legend: "2", "1.25", "1/4", "0.8".
pub(super) fn ratio_text(ratio: f64) -> String {
    if ratio < 0.5 + 1e-9 && (1.0 / ratio - (1.0 / ratio).round()).abs() < 1e-6 {
        return format!("1/{}", (1.0 / ratio).round());
    }
    let text = format!("{ratio:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The legend's tick positions on the scale: its ends and centre, and the powers of two between
/// for the wide extents.
pub(super) fn legend_ticks(extent: f64) -> Vec<f64> {
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
pub(super) fn draw_legend(
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
