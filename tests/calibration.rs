//! Calibration: does the verdict keep its promises over many independent seeds?
//!
//! - False alarms: a uniform shuffle must be flagged in at most a fraction alpha of runs. Over
//!   R runs the number of false alarms is Binomial(R, ≤ alpha); the thresholds below are that
//!   law's 99.9% upper quantiles, so a correct tool fails these tests with probability < 0.001
//!   (and, the seeds being fixed, deterministically never).
//! - The permutations test on its own is exact in distribution only asymptotically (Pearson's
//!   χ²); its rejection rate at level 0.05 must lie in the 99.9% binomial band around 0.05 and
//!   its p-values must pass a Kolmogorov–Smirnov test of uniformity at level 0.001.
//! - Power: at the number of trials the noncentral χ² analysis says gives 99% power, the bias
//!   must be found in at least 97% of runs.
//!
//! Run with `cargo test --release --test calibration -- --nocapture` to see the figures that the
//! guide (docs/statistics.md) quotes.

use shuffle_bias::engine::mapped_source::SourceSpec;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use shuffle_bias::engine::algorithms::Algorithm;
use shuffle_bias::engine::deal_stream::{DealStreamOptions, RepeatSource};
use shuffle_bias::engine::emit::emit_permutations;
use shuffle_bias::engine::permutation::factorial;
use shuffle_bias::engine::random_source::RngKind;
use shuffle_bias::engine::simulate::{Simulation, SimulationSpec, Tally, simulate};
use shuffle_bias::engine::tally::TallyMode;
use shuffle_bias::input::permutation_reader::{
    Input, InputSource, ReaderOptions, read_permutations,
};
use shuffle_bias::report::run::{
    Against, MarginalTheory, Origin, RunFacts, RunReport, build_marginal_report_with_deals,
    build_run_report, build_run_report_with_deals,
};
use shuffle_bias::theory::exact::{Law, exact_law};

const RUNS: u64 = 1000;

fn spec(algorithm: Algorithm, deck: usize, trials: u64, seed: u64) -> SimulationSpec {
    SimulationSpec {
        shuffle: algorithm.into(),
        deck,
        trials,
        seed,
        rng: RngKind::Chacha8,
        threads: 1,
    }
}

fn judge(spec: &SimulationSpec, tally: Tally, law: &Arc<Law>, alpha: f64) -> RunReport {
    let facts = RunFacts {
        command: "run",
        shuffle: Some(spec.shuffle),
        origin: Origin::Simulation {
            seed: spec.seed,
            source: SourceSpec::chacha(spec.rng),
            threads: spec.threads,
        },
        trials_requested: spec.trials,
        elapsed_seconds: 1.0,
        interrupted: false,
        alpha,
        against: Against::Uniform,
        all_orderings: false,
    };
    build_run_report(&facts, tally, Some(Ok(Arc::clone(law))))
}

fn run(spec: &SimulationSpec, law: &Arc<Law>, alpha: f64) -> RunReport {
    let tally = simulate(
        spec,
        &Simulation::default(),
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .into_full();
    judge(spec, tally, law, alpha)
}

/// The smallest k with P(Binomial(runs, p) > k) ≤ 0.001, by summing the exact law.
fn binomial_upper_999(runs: u64, p: f64) -> u64 {
    let mut pmf = (1.0 - p).powf(runs as f64);
    let mut cdf = pmf;
    let mut k = 0;
    while 1.0 - cdf > 0.001 {
        pmf *= (runs - k) as f64 / (k + 1) as f64 * p / (1.0 - p);
        k += 1;
        cdf += pmf;
    }
    k
}

/// The largest k with P(Binomial(runs, p) < k) ≤ 0.0005 (lower end of a 99.9% band).
fn binomial_lower_999(runs: u64, p: f64) -> u64 {
    let mut pmf = (1.0 - p).powf(runs as f64);
    let mut cdf = 0.0;
    let mut k = 0;
    while cdf + pmf <= 0.0005 {
        cdf += pmf;
        pmf *= (runs - k) as f64 / (k + 1) as f64 * p / (1.0 - p);
        k += 1;
    }
    k
}

/// Kolmogorov–Smirnov distance between the sample and the uniform law on [0, 1].
fn ks_distance(mut sample: Vec<f64>) -> f64 {
    sample.sort_by(f64::total_cmp);
    let m = sample.len() as f64;
    sample
        .iter()
        .enumerate()
        .map(|(i, &x)| (x - i as f64 / m).abs().max(((i + 1) as f64 / m - x).abs()))
        .fold(0.0, f64::max)
}

#[test]
fn binomial_bounds_match_hand_computed_values() {
    // Binomial(1000, 0.001): P(X > 4) = 0.00365, P(X > 5) = 0.00059 → 5.
    assert_eq!(binomial_upper_999(1000, 0.001), 5);
    // Binomial(1000, 0.05): mean 50, sd 6.9; the 99.9% band is about 50 ± 3.29 sd.
    assert_eq!(binomial_lower_999(1000, 0.05), 29);
    assert_eq!(binomial_upper_999(1000, 0.05) + 1, 74);
}

#[test]
fn a_uniform_shuffle_raises_false_alarms_at_most_at_rate_alpha() {
    for deck in 3..=5 {
        let law = Arc::new(exact_law(Algorithm::FisherYates, deck, 1_000_000).unwrap());
        // At least 10 expected shuffles per ordering, so the χ² approximation holds.
        let trials = (10 * factorial(deck)).max(1000);
        let mut alarms_at_0_001 = 0;
        let mut alarms_at_0_05 = 0;
        let mut permutation_rejections = 0;
        let mut p_values = Vec::new();
        for seed in 0..RUNS {
            let s = spec(
                Algorithm::FisherYates,
                deck,
                trials,
                1_000_000 * deck as u64 + seed,
            );
            let report = run(&s, &law, 0.05);
            let permutations = &report.tests[0];
            let p = 10f64.powf(permutations.log10_p_value);
            p_values.push(p);
            permutation_rejections += u64::from(p <= 0.05);
            alarms_at_0_05 += u64::from(report.bias_detected);
            alarms_at_0_001 += u64::from(
                report
                    .tests
                    .iter()
                    .any(|t| 10f64.powf(t.log10_adjusted_p_value) <= 0.001),
            );
        }
        let ks = ks_distance(p_values);
        eprintln!(
            "fisher-yates n={deck}, {RUNS} seeds × {trials} shuffles: false alarms {alarms_at_0_001} \
             at alpha 0.001, {alarms_at_0_05} at alpha 0.05 (Holm family); permutations test \
             alone rejects {permutation_rejections} at 0.05; KS distance of its p-values {ks:.4}"
        );
        assert!(alarms_at_0_001 <= binomial_upper_999(RUNS, 0.001));
        assert!(alarms_at_0_05 <= binomial_upper_999(RUNS, 0.05));
        assert!(permutation_rejections >= binomial_lower_999(RUNS, 0.05));
        assert!(permutation_rejections <= binomial_upper_999(RUNS, 0.05));
        // Asymptotic KS critical value at level 0.001: 1.9495 / sqrt(n).
        assert!(ks < 1.9495 / (RUNS as f64).sqrt(), "KS distance {ks}");
    }
}

#[test]
fn check_fed_uniform_input_raises_false_alarms_at_most_at_rate_alpha() {
    const CHECK_RUNS: u64 = RUNS;
    let law = Arc::new(exact_law(Algorithm::FisherYates, 4, 1_000_000).unwrap());
    let mut alarms = 0;
    let mut permutation_rejections = 0;
    let mut p_values = Vec::new();
    for seed in 0..CHECK_RUNS {
        let s = spec(Algorithm::FisherYates, 4, 2000, 7_000_000 + seed);
        let mut text = Vec::new();
        emit_permutations(&s, &mut text, &std::sync::atomic::AtomicBool::new(false)).unwrap();
        let inputs = vec![Input::from_reader(std::io::Cursor::new(text))];
        let input = read_permutations(
            &[InputSource::Stdin],
            inputs,
            &ReaderOptions::default(),
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .unwrap();
        let tally = Tally {
            deck: input.deck,
            counts: input.counts.into_full().expect("full mode"),
            trials: input.permutations,
        };
        let report = judge(&s, tally, &law, 0.05);
        alarms += u64::from(report.bias_detected);
        let p = 10f64.powf(report.tests[0].log10_p_value);
        permutation_rejections += u64::from(p <= 0.05);
        p_values.push(p);
    }
    let ks = ks_distance(p_values);
    eprintln!(
        "check of fisher-yates output, {CHECK_RUNS} inputs × 2000 lines: {alarms} false alarms \
         at alpha 0.05; permutations test alone rejects {permutation_rejections} at 0.05; KS \
         distance of its p-values {ks:.4}"
    );
    assert!(alarms <= binomial_upper_999(CHECK_RUNS, 0.05));
    assert!(permutation_rejections >= binomial_lower_999(CHECK_RUNS, 0.05));
    assert!(permutation_rejections <= binomial_upper_999(CHECK_RUNS, 0.05));
    assert!(ks < 1.9495 / (CHECK_RUNS as f64).sqrt(), "KS distance {ks}");
}

#[test]
fn naive_is_detected_at_the_predicted_99_percent_power_trials() {
    let law = Arc::new(exact_law(Algorithm::Naive, 4, 1_000_000).unwrap());
    let probe = run(&spec(Algorithm::Naive, 4, 1000, 1), &law, 0.001);
    let trials = probe.model.trials_for_99_power.unwrap();
    let mut detected = 0;
    for seed in 0..RUNS {
        let report = run(
            &spec(Algorithm::Naive, 4, trials, 5_000_000 + seed),
            &law,
            0.001,
        );
        detected += u64::from(report.bias_detected);
    }
    eprintln!(
        "naive n=4 at the predicted 99%-power trials ({trials}): detected in {detected} of {RUNS} \
         seeds"
    );
    // If the true detection probability is at least 0.99 (the prediction is a lower bound:
    // it counts the permutations test alone at alpha/m), fewer than 970 detections in 1000 has
    // probability below 1e-9.
    assert!(detected >= 970, "{detected}");
}

/// The p-value of the test `name` in a report, if it is in the family.
fn p_of(report: &RunReport, name: &str) -> Option<f64> {
    report
        .tests
        .iter()
        .find(|t| t.name == name)
        .map(|t| 10f64.powf(t.log10_p_value))
}

/// A fair run with the deal-stream tests in the family, in full or marginal mode.
fn run_with_deals(spec: &SimulationSpec, law: Option<&Arc<Law>>, alpha: f64) -> RunReport {
    let stop = AtomicBool::new(false);
    let source = SourceSpec::chacha(spec.rng);
    let mut facts = RunFacts {
        command: "run",
        shuffle: Some(spec.shuffle),
        origin: Origin::Simulation {
            seed: spec.seed,
            source,
            threads: spec.threads,
        },
        trials_requested: spec.trials,
        elapsed_seconds: 1.0,
        interrupted: false,
        alpha,
        against: Against::Uniform,
        all_orderings: false,
    };
    let full = spec.deck <= 10;
    let options = DealStreamOptions {
        deck: spec.deck,
        dealt: spec.deck,
        repeats: if full {
            RepeatSource::FullTally
        } else {
            RepeatSource::Fingerprints { limit: u64::MAX }
        },
        // The compositions up to 5 cards: at 7 cards, 2000 deals expect 0.4 a composition, and
        // their law under independence takes 1650² pairs of decks a run (1000 runs).
        compositions: full && spec.deck <= 5,
    };
    if full {
        let how = Simulation {
            deals: Some(options),
            ..Simulation::from_source(&source)
        };
        let simulated = simulate(spec, &how, &stop, &mut |_| {});
        let (tally, deals) = (simulated.counts.into_full().unwrap(), simulated.deals);
        build_run_report_with_deals(&facts, tally, law.map(|l| Ok(Arc::clone(l))), deals)
    } else {
        facts.all_orderings = false;
        let how = Simulation {
            mode: TallyMode::Marginal,
            source: Some(source),
            deals: Some(options),
            blocks: None,
        };
        let simulated = simulate(spec, &how, &stop, &mut |_| {});
        let (tally, deals) = (simulated.counts.into_marginal().unwrap(), simulated.deals);
        build_marginal_report_with_deals(&facts, tally, MarginalTheory::default(), deals)
    }
}

/// Over 1000 fair seeds: the family with the deal-stream tests raises false alarms at most at
/// rate alpha (99.9% binomial bound, as above); the p-values of the serial tests (serial
/// matches, one slot's independence test, serial compositions), asymptotically χ², pass the
/// Kolmogorov–Smirnov test of uniformity at level 0.001 (critical distance 1.9495/√1000); and
/// the tests whose law is discrete (repeated decks, the Bonferroni-combined serial slots) reject
/// at most at their level (binomial bound at 0.05).
#[test]
fn the_deal_stream_tests_keep_their_level_on_fair_shuffles() {
    // (deck, trials): full mode at 4 and 5 cards (compositions expected 1000/24 ≈ 42 and
    // 1200/120 = 10 times each: χ² holds), 7 cards where the repeated decks use the occupancy
    // law (M = 5040, N = 2000: E[D] ≈ 1652, sd ≈ 18), and 52 cards in marginal mode (slot
    // tables pooled to 14×14 groups, 10.2 pairs expected a cell).
    for (deck, trials) in [(4usize, 1000u64), (5, 1200), (7, 2000), (52, 2000)] {
        let law = (deck <= 7)
            .then(|| Arc::new(exact_law(Algorithm::FisherYates, deck, 10_000_000).unwrap()));
        let mut alarms_at_0_001 = 0;
        let mut alarms_at_0_05 = 0;
        let mut continuous: Vec<(&str, Vec<f64>)> = vec![
            ("serial matches", Vec::new()),
            ("slot 0", Vec::new()),
            ("serial compositions", Vec::new()),
        ];
        let mut discrete_rejections = [("repeated decks", 0u64), ("serial slots", 0u64)];
        for seed in 0..RUNS {
            let s = spec(
                Algorithm::FisherYates,
                deck,
                trials,
                90_000_000 + 1000 * deck as u64 + seed,
            );
            let report = run_with_deals(&s, law.as_ref(), 0.05);
            alarms_at_0_05 += u64::from(report.bias_detected);
            alarms_at_0_001 += u64::from(
                report
                    .tests
                    .iter()
                    .any(|t| 10f64.powf(t.log10_adjusted_p_value) <= 0.001),
            );
            let deals = report.deal_stream.as_ref().unwrap();
            for (name, values) in &mut continuous {
                let p = if *name == "slot 0" {
                    deals
                        .slots
                        .tables
                        .first()
                        .map(|t| 10f64.powf(t.log10_p_value))
                } else {
                    p_of(&report, name)
                };
                values.extend(p);
            }
            for (name, rejections) in &mut discrete_rejections {
                *rejections += u64::from(p_of(&report, name).is_some_and(|p| p <= 0.05));
            }
        }
        eprintln!(
            "deal-stream tests, fisher-yates n={deck}, {RUNS} seeds × {trials}: false alarms \
             {alarms_at_0_001} at 0.001, {alarms_at_0_05} at 0.05; discrete tests rejecting at \
             0.05: {discrete_rejections:?}"
        );
        assert!(alarms_at_0_001 <= binomial_upper_999(RUNS, 0.001));
        assert!(alarms_at_0_05 <= binomial_upper_999(RUNS, 0.05));
        for (name, rejections) in discrete_rejections {
            assert!(rejections <= binomial_upper_999(RUNS, 0.05), "{name}");
        }
        for (name, values) in continuous {
            if values.is_empty() {
                continue;
            }
            assert_eq!(values.len() as u64, RUNS, "{name}");
            let ks = ks_distance(values);
            eprintln!("  {name}: KS distance of its p-values {ks:.4}");
            assert!(ks < 1.9495 / (RUNS as f64).sqrt(), "{name}: KS {ks}");
        }
    }
}

/// The repeated decks in the occupancy range: their p-values over 1000 fair seeds are close
/// to uniform (KS at level 0.001), the normal approximation of D being good at sd ≈ 18.
#[test]
fn the_repeated_decks_p_values_are_uniform_where_the_occupancy_law_is_used() {
    let law = Arc::new(exact_law(Algorithm::FisherYates, 7, 10_000_000).unwrap());
    let mut values = Vec::new();
    for seed in 0..RUNS {
        let s = spec(Algorithm::FisherYates, 7, 2000, 95_000_000 + seed);
        let report = run_with_deals(&s, Some(&law), 0.05);
        values.extend(p_of(&report, "repeated decks"));
    }
    assert_eq!(values.len() as u64, RUNS);
    let ks = ks_distance(values);
    eprintln!("repeated decks, n = 7, 2000 deals: KS distance of the p-values {ks:.4}");
    assert!(ks < 1.9495 / (RUNS as f64).sqrt(), "KS {ks}");
}
