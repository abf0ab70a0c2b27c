//! The chart of every ordering's frequency: bars in rank order for small decks, sorted frequency
//! curves for larger ones.

use super::frame::{
    Area, Swatch, anchored, cell_ticks, check_orderings, dashed, decimals_for, deck_of, draw_key,
    draw_title, draw_y_desc, invalid, nice_ticks, percent, render, text_style, ticked,
};
use super::{
    AXIS_BOTTOM, AXIS_LEFT, CAPTION_HEIGHT, CAPTION_SIZE, CURVE_POINTS, DESC_ROOM, GRID_INK, INK,
    KEY_HEIGHT, LABEL_SIZE, MAX_DECK_IN_RANK_ORDER, MAX_DECK_WITH_PERMUTATION_LABELS, OBSERVED,
    ORDERINGS_PANEL, Orderings, PADDING, PERMUTATION_LINE, PlotError, THEORY_BARS, TITLE_HEIGHT,
    UNIFORM,
};
use crate::engine::permutation::{FACTORIALS, unrank};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

/// The chart of every ordering's frequency (and probability), as an SVG document.
pub fn ordering_chart(title: &str, orderings: &Orderings) -> Result<String, PlotError> {
    check_orderings(orderings)?;
    let (width, height) = (ORDERINGS_PANEL.0, ORDERINGS_PANEL.1 + TITLE_HEIGHT);
    render((width, height), |root| {
        let panel = draw_title(root, title)?;
        draw_orderings_panel(&panel, orderings)
    })
}

/// The orderings panel: bars in rank order for small decks, sorted curves for larger ones.
pub(super) fn draw_orderings_panel(panel: &Area, orderings: &Orderings) -> Result<(), PlotError> {
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
pub(super) fn draw_rank_order(
    panel: &Area,
    orderings: &Orderings,
    n: usize,
) -> Result<(), PlotError> {
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
pub(super) fn quantile_curve(len: usize, values: impl IntoIterator<Item = f64>) -> Vec<(f64, f64)> {
    let last = len.saturating_sub(1).max(1) as f64;
    sample_indices(len)
        .into_iter()
        .map(|i| i as f64 / last * 100.0)
        .zip(values)
        .collect()
}

/// At most [`CURVE_POINTS`] indices spread evenly over 0..len, 0 and len − 1 included.
pub(super) fn sample_indices(len: usize) -> Vec<usize> {
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
pub(super) fn sorted_count_sample(counts: &[u64]) -> Vec<u64> {
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
pub(super) fn draw_sorted_curves(
    panel: &Area,
    orderings: &Orderings,
    n: usize,
) -> Result<(), PlotError> {
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
