//! Seeded statistical tests of the whole pipeline (simulation → tests → verdict).
//!
//! Each run uses a fixed seed, so each test is deterministic. The thresholds come from theory:
//! - A uniform shuffle is wrongly flagged with probability at most alpha = 0.001 (Holm controls
//!   the family-wise error rate), so a fixed seed that passes is the expected outcome, and one
//!   that failed would have had at most a 1-in-1000 chance.
//! - A biased shuffle is detected with a probability that the noncentral χ² power analysis gives
//!   exactly; each "detected" test first asserts that this power is above 1 − 1e-6 for the trials
//!   used, so a failure would mean a broken pipeline, not bad luck.
//! - `--against model` tests the algorithm against its own exact law, which is true by
//!   construction, so the same alpha bound applies as for a uniform shuffle against uniform.

use shuffle_bias::engine::mapped_source::SourceSpec;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use shuffle_bias::engine::algorithms::{Algorithm, Shuffle};
use shuffle_bias::engine::random_source::RngKind;
use shuffle_bias::engine::simulate::{Simulation, SimulationSpec, simulate};
use shuffle_bias::report::run::{Against, Origin, RunFacts, RunReport, build_run_report};
use shuffle_bias::theory::exact::exact_law;

const ALPHA: f64 = 0.001;

fn report(
    shuffle: impl Into<Shuffle>,
    deck: usize,
    trials: u64,
    seed: u64,
    against: Against,
) -> RunReport {
    let shuffle = shuffle.into();
    let spec = SimulationSpec {
        shuffle,
        deck,
        trials,
        seed,
        rng: RngKind::Chacha8,
        threads: 2,
    };
    let tally = simulate(
        &spec,
        &Simulation::default(),
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .into_full();
    let law = exact_law(shuffle, deck, 100_000_000).map(Arc::new);
    let facts = RunFacts {
        command: "run",
        shuffle: Some(shuffle),
        origin: Origin::Simulation {
            seed,
            source: SourceSpec::chacha(RngKind::Chacha8),
            threads: 2,
        },
        trials_requested: trials,
        elapsed_seconds: 1.0,
        interrupted: false,
        alpha: ALPHA,
        against,
        all_orderings: false,
    };
    build_run_report(&facts, tally, Some(law))
}

#[test]
fn fisher_yates_passes_from_three_to_six_cards() {
    for (deck, seed) in [(3, 11), (4, 12), (5, 13), (6, 14)] {
        for algorithm in [Algorithm::FisherYates, Algorithm::FisherYatesForward] {
            // 20 expected shuffles per ordering at least, so the χ² approximation holds.
            let trials = (20 * shuffle_bias::engine::permutation::factorial(deck)).max(200_000);
            let r = report(algorithm, deck, trials, seed, Against::Uniform);
            assert!(!r.bias_detected, "{algorithm:?} n={deck}: {}", r.verdict);
            assert_eq!(r.model.noncentrality_per_trial, Some(0.0));
        }
    }
}

#[test]
fn every_biased_algorithm_is_rejected_at_four_cards_with_240k_shuffles() {
    for algorithm in Algorithm::ALL.into_iter().filter(|a| !a.meant_uniform()) {
        // Four cards barely tell ten shelves from uniform (TV 1/150: each ordering 1/24 ± 2%,
        // noncentrality only 48 at 240k shuffles), so the shelf shuffler is tested with two
        // shelves (TV 1/6), where the power is as certain as for the others.
        let shuffle = match algorithm {
            Algorithm::Shelf => Shuffle::once(algorithm).with_shelves(2),
            _ => Shuffle::once(algorithm),
        };
        let r = report(shuffle, 4, 240_000, 42, Against::Uniform);
        let power = r.model.detection_power.unwrap();
        assert!(
            power > 1.0 - 1e-6,
            "{algorithm:?}: theory gives power {power}"
        );
        assert!(r.bias_detected, "{algorithm:?}: {}", r.verdict);
    }
}

#[test]
fn every_algorithm_fits_its_own_exact_law_at_four_and_five_cards() {
    for algorithm in Algorithm::ALL {
        for (deck, seed) in [(4, 21), (5, 22)] {
            let r = report(algorithm, deck, 600_000, seed, Against::Model);
            assert!(!r.bias_detected, "{algorithm:?} n={deck}: {}", r.verdict);
        }
    }
}

#[test]
fn observed_figures_converge_to_their_exact_theory() {
    // Naive on 4 cards, 2.4M shuffles: the identity frequency has standard deviation
    // sqrt(p(1-p)/N) ≈ 1.25e-4 around its exact value 10/256; 6 standard deviations bound it
    // with probability 1 − 2e-9.
    let r = report(Algorithm::Naive, 4, 2_400_000, 7, Against::Uniform);
    let theory = r.identity.theory_frequency.unwrap();
    assert_eq!(theory, 10.0 / 256.0);
    let sd = (theory * (1.0 - theory) / 2.4e6).sqrt();
    assert!((r.identity.frequency - theory).abs() < 6.0 * sd);
    // TV distance: the observed distance is within a few 1/sqrt(N) of the theory.
    let full = r.full().expect("a full tally");
    let tv_theory = full.tv_distance_theory.unwrap();
    let tv = full.tv_distance;
    assert!((tv - tv_theory).abs() < 0.01, "{tv} vs {tv_theory}");
}

#[test]
fn two_riffles_of_five_cards_fit_their_exact_law_and_are_told_from_uniform() {
    // Two GSR riffles of 5 cards: C(4 + 5 − r, 5)/1024 for r ≤ 4 rising sequences, so the rarest
    // possible ordering has probability 1/1024 and 600,000 shuffles expect 586 of it, far above
    // the 5 the χ² approximation needs. Against the exact law (true by construction) a false
    // rejection has probability at most alpha = 0.001.
    let shuffle = Shuffle::once(Algorithm::Riffle).with_passes(2);
    let fit = report(shuffle, 5, 600_000, 31, Against::Model);
    assert!(!fit.bias_detected, "{}", fit.verdict);
    assert_eq!(fit.header.passes, Some(2));
    // Against uniform: w² = 0.946 per trial, so the noncentral χ² power of 600,000 shuffles is 1
    // to machine precision (99% power needs 131); asserted before the verdict is.
    let detected = report(shuffle, 5, 600_000, 32, Against::Uniform);
    let power = detected.model.detection_power.unwrap();
    assert!(power > 1.0 - 1e-6, "theory gives power {power}");
    assert!(detected.bias_detected, "{}", detected.verdict);
}
