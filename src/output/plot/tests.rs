//! Tests of the plots: each chart's drawing of a report.

use super::frame::grid_shape;
use super::heat_map::{HeatLayout, heat_layout};
use super::orderings::{sample_indices, sorted_count_sample};
use super::*;
use crate::engine::permutation::FACTORIALS;
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
fn in_cell(layout: &HeatLayout, origin: (i32, i32), card: usize, position: usize) -> (i32, i32) {
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
        statistics: None,
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
        statistics: None,
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
        statistics: None,
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

#[test]
fn a_marginal_run_picture_draws_each_statistic_beside_the_heat_map() {
    let matrix = quarter_matrix(&[]);
    let observed = [0.1, 0.6, 0.3];
    let uniform = [0.25, 0.5, 0.25];
    let theory = [0.1, 0.55, 0.35];
    let series = [
        StatisticSeries {
            name: "valleys",
            observed: &observed,
            uniform: &uniform,
            theory: Some(&theory),
        },
        StatisticSeries {
            name: "guessing",
            observed: &observed,
            uniform: &uniform,
            theory: None,
        },
    ];
    let picture = RunPicture {
        title: "shelf",
        positions: &matrix,
        source: MatrixSource::Observed,
        orderings: None,
        statistics: Some(&series),
    };
    let svg = run_picture(&picture).unwrap();
    let texts = texts(&svg);
    for caption in ["valleys", "guessing", "observed", "exact law", "uniform"] {
        assert!(texts.iter().any(|t| t == caption), "{caption} in {texts:?}");
    }
    assert_eq!(
        pixels(&svg).width(),
        (HEAT_PANEL.0 + statistics::STATISTICS_PANEL_WIDTH) as u32
    );
    // Laws that list different values are refused, not drawn.
    let short = [0.5, 0.5];
    let broken = [StatisticSeries {
        name: "valleys",
        observed: &observed,
        uniform: &short,
        theory: None,
    }];
    let picture = RunPicture {
        statistics: Some(&broken),
        ..picture
    };
    assert!(run_picture(&picture).is_err());
}
