//! Writes one of each picture of `shuffle_bias::plot` into a folder, so the pictures can be
//! looked at: `cargo run --release --example plot_gallery DIR`. The run, theory and comparison
//! pictures come from real simulations and exact laws; the 52-card matrix and the mixing curves
//! are made up (nothing here computes them yet).

use std::sync::atomic::AtomicBool;

use shuffle_bias::algorithms::Algorithm;
use shuffle_bias::exact::exact_law;
use shuffle_bias::plot::{
    MatrixSource, MixingSeries, NamedMatrix, OrderingCounts, Orderings, RunPicture, TvAxis,
    compare_picture, mixing_curve, run_picture,
};
use shuffle_bias::random_source::RngKind;
use shuffle_bias::simulate::{SimulationSpec, Tally, simulate};

fn tally(algorithm: Algorithm, deck: usize, trials: u64) -> Tally {
    let spec = SimulationSpec {
        algorithm,
        deck,
        trials,
        seed: 7,
        rng: RngKind::Chacha8,
        threads: 1,
    };
    simulate(&spec, &AtomicBool::new(false), &mut |_| {})
}

/// `[card][position]` frequencies of a tally.
fn positions(tally: &Tally) -> Vec<Vec<f64>> {
    let n = tally.deck;
    let mut matrix = vec![vec![0.0; n]; n];
    for (rank, &count) in tally.counts.iter().enumerate() {
        for (position, &card) in shuffle_bias::permutation::unrank(rank, n)
            .iter()
            .enumerate()
        {
            matrix[usize::from(card)][position] += count as f64 / tally.trials as f64;
        }
    }
    matrix
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".to_string());
    let write = |name: &str, svg: String| {
        let path = format!("{dir}/{name}.svg");
        std::fs::write(&path, svg).unwrap();
        println!("{path}");
    };

    for deck in [3, 4, 5, 8] {
        let trials = 1_000_000;
        let observed = tally(Algorithm::Naive, deck, trials);
        let law = exact_law(Algorithm::Naive, deck, 1 << 30).unwrap();
        let title = format!("naive · {deck} cards · 1,000,000 trials · seed 7");
        let picture = RunPicture {
            title: &title,
            positions: &positions(&observed),
            source: MatrixSource::Observed,
            orderings: Some(Orderings {
                observed: Some(OrderingCounts {
                    counts: &observed.counts,
                    trials: observed.trials,
                }),
                theory: Some(&law.probabilities),
            }),
        };
        write(&format!("run-naive-{deck}"), run_picture(&picture).unwrap());
    }

    let law = exact_law(Algorithm::ComparatorInsertion, 4, 1 << 30).unwrap();
    let theory = RunPicture {
        title: "comparator-insertion · 4 cards · exact law",
        positions: &law.position_matrix(),
        source: MatrixSource::Theory,
        orderings: Some(Orderings {
            observed: None,
            theory: Some(&law.probabilities),
        }),
    };
    write("theory-insertion-4", run_picture(&theory).unwrap());

    let big: Vec<Vec<f64>> = (0..52)
        .map(|c| {
            (0..52)
                .map(|p| {
                    let bias = if p == c {
                        1.6
                    } else if p == (c + 1) % 52 {
                        0.4
                    } else {
                        1.0
                    };
                    bias / 52.0
                })
                .collect()
        })
        .collect();
    let large = RunPicture {
        title: "a made-up bias · 52 cards",
        positions: &big,
        source: MatrixSource::Observed,
        orderings: None,
    };
    write("run-52", run_picture(&large).unwrap());

    let matrices: Vec<(Algorithm, Vec<Vec<f64>>)> = Algorithm::ALL
        .iter()
        .map(|&a| (a, positions(&tally(a, 5, 500_000))))
        .collect();
    let panels: Vec<NamedMatrix> = matrices
        .iter()
        .map(|(a, m)| NamedMatrix {
            name: a.name(),
            positions: m,
        })
        .collect();
    write(
        "compare-5",
        compare_picture("5 cards · 500,000 trials each · seed 7", &panels).unwrap(),
    );

    // Riffle-like made-up curves: TV stays near 1, then falls.
    let curve = |cut: f64| -> Vec<(u32, f64)> {
        (1..=12)
            .map(|k| (k, (1.0 - (-(2f64.powf(cut - f64::from(k)))).exp()).min(1.0)))
            .collect()
    };
    let (a, b) = (curve(6.5), curve(4.0));
    let series = [
        MixingSeries {
            name: "52 cards",
            points: &a,
        },
        MixingSeries {
            name: "10 cards",
            points: &b,
        },
    ];
    write(
        "mixing-linear",
        mixing_curve(
            "riffle shuffles: distance from uniform",
            &series,
            TvAxis::Linear,
        )
        .unwrap(),
    );
    write(
        "mixing-log",
        mixing_curve(
            "riffle shuffles: distance from uniform",
            &series,
            TvAxis::Log,
        )
        .unwrap(),
    );
}
