//! Calibration of `--until-decided`: peeking after every shuffle keeps the false-alarm rate at
//! most alpha for the anytime-valid family, and does not for a fixed-sample family peeked at.
//!
//! Over R = 1000 seeds of a uniform shuffle, each run watched after every shuffle up to its
//! `--trials`, the number of runs whose family ever rejects is Binomial(R, q) with q ≤ alpha
//! (Ville's inequality for each e-process, e-Bonferroni for the family). The test asserts the
//! count is at most the 1 − 10⁻⁶ quantile of Binomial(1000, alpha): a correct tool fails it with
//! probability below 10⁻⁶ (and, the seeds being fixed, deterministically never). alpha = 0.05 is
//! used, larger than the default 0.001, so that the bound has teeth: the quantile is 85 of 1000.
//!
//! The same runs, judged instead by the fixed-sample family (Pearson's χ² and the binomial
//! identity test with Holm's adjustment, exactly as `run` judges a tally) at 100 looks, reject far
//! more often than alpha: repeated significance testing inflates the error (Armitage, McPherson &
//! Rowe 1969). The test asserts the count is above the same quantile.
//!
//! The whole `--until-decided` decision — the sequential part, and at the planned end the
//! fixed-sample family with the deal-stream tests — is calibrated over R = 3200 seeds: every
//! "bias detected", whatever part said it, is counted.
//!
//! `cargo test --release --test sequential_calibration -- --nocapture` prints the rates the guide
//! quotes.

use std::ops::ControlFlow;
use std::sync::atomic::AtomicBool;

use shuffle_bias::analysis::identity::uniform_ordering_probability;
use shuffle_bias::analysis::sequential::{MarginalNull, SequentialFamily, SequentialTally};
use shuffle_bias::engine::algorithms::Algorithm;
use shuffle_bias::engine::deal_stream::{DealStream, DealStreamOptions, RepeatSource};
use shuffle_bias::engine::mapped_source::SourceSpec;
use shuffle_bias::engine::permutation::{factorial, rank};
use shuffle_bias::engine::random_source::RngKind;
use shuffle_bias::engine::simulate::{SimulationSpec, Tally};
use shuffle_bias::engine::trial_order::visit_in_trial_order;
use shuffle_bias::report::run::{
    Against, Origin, RunFacts, build_run_report, build_run_report_with_deals,
};
use shuffle_bias::theory::permutation_statistics::Statistic;

const RUNS: u64 = 1000;
const ALPHA: f64 = 0.05;

/// The smallest k with P(Binomial(runs, p) > k) < 10⁻⁶, by summing the exact law.
fn binomial_upper(runs: u64, p: f64) -> u64 {
    let mut pmf = (1.0 - p).powf(runs as f64);
    let mut cdf = pmf;
    let mut k = 0;
    while 1.0 - cdf >= 1e-6 {
        pmf *= (runs - k) as f64 / (k + 1) as f64 * p / (1.0 - p);
        k += 1;
        cdf += pmf;
    }
    k
}

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

#[test]
fn the_binomial_bound_matches_a_hand_computed_value() {
    // Binomial(1000, 0.05): mean 50, sd 6.89; 1 − 10⁻⁶ lies 4.75 sd above the mean, and the
    // skewed upper tail takes it a little further.
    let bound = binomial_upper(1000, 0.05);
    assert!((83..=88).contains(&bound), "{bound}");
}

#[test]
fn peeking_after_every_shuffle_keeps_false_alarms_within_alpha_and_peeking_at_chi_square_does_not()
{
    let bound = binomial_upper(RUNS, ALPHA);
    let trials = 20_000;
    let deck = 4;
    let looks = 100;
    let stop = AtomicBool::new(false);
    let mut sequential_alarms = 0;
    let mut peeking_alarms = 0;
    for seed in 0..RUNS {
        let spec = spec(Algorithm::FisherYates, deck, trials, seed);
        let facts = RunFacts {
            command: "run",
            shuffle: Some(spec.shuffle),
            origin: Origin::Simulation {
                seed,
                source: SourceSpec::chacha(spec.rng),
                threads: 1,
            },
            trials_requested: trials,
            elapsed_seconds: 1.0,
            interrupted: false,
            alpha: ALPHA,
            against: Against::Uniform,
            all_orderings: false,
        };
        let mut family = SequentialFamily::full(deck, None, ALPHA);
        let mut sequential_rejected = false;
        let mut peek_rejected = false;
        let mut counts = vec![0u64; factorial(deck) as usize];
        let mut seen = 0u64;
        visit_in_trial_order(
            &spec,
            &SourceSpec::chacha(spec.rng),
            &stop,
            &mut |_| {},
            &mut |cards| {
                sequential_rejected |= family.observe(cards).is_break();
                counts[rank(cards)] += 1;
                seen += 1;
                if !peek_rejected && seen.is_multiple_of(trials / looks) {
                    let tally = Tally {
                        deck,
                        counts: counts.clone(),
                        trials: seen,
                    };
                    peek_rejected = build_run_report(&facts, tally, None).bias_detected;
                }
                if sequential_rejected && peek_rejected {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        sequential_alarms += u64::from(sequential_rejected);
        peeking_alarms += u64::from(peek_rejected);
    }
    println!(
        "fisher-yates, {deck} cards, {RUNS} seeds, up to {trials} trials, alpha = {ALPHA}: \
         sequential family rejected {sequential_alarms} times (watched after every shuffle); \
         the fixed-sample family peeked at every {} trials rejected {peeking_alarms} times \
         (bound {bound})",
        trials / looks
    );
    assert!(sequential_alarms <= bound, "{sequential_alarms} > {bound}");
    assert!(peeking_alarms > bound, "{peeking_alarms} ≤ {bound}");
}

#[test]
fn the_marginal_family_watched_after_every_shuffle_keeps_false_alarms_within_alpha() {
    let bound = binomial_upper(RUNS, ALPHA);
    let deck = 10;
    let trials = 5_000;
    let stop = AtomicBool::new(false);
    let mut alarms = 0;
    for seed in 0..RUNS {
        let null = MarginalNull {
            positions: Some(vec![vec![1.0 / deck as f64; deck]; deck]),
            identity: Some(uniform_ordering_probability(deck)),
            statistics: Statistic::ALL
                .iter()
                .map(|&s| (s, s.uniform_value_law(deck)))
                .collect(),
        };
        let mut family = SequentialFamily::marginal(deck, null, ALPHA);
        let spec = spec(
            Algorithm::FisherYatesForward,
            deck,
            trials,
            1_000_000 + seed,
        );
        let visited = visit_in_trial_order(
            &spec,
            &SourceSpec::chacha(spec.rng),
            &stop,
            &mut |_| {},
            &mut |cards| family.observe(cards),
        );
        alarms += u64::from(visited.broke);
    }
    println!(
        "fisher-yates-forward, {deck} cards, marginal family, {RUNS} seeds, up to {trials} \
         trials, alpha = {ALPHA}: {alarms} false alarms (bound {bound})"
    );
    assert!(alarms <= bound, "{alarms} > {bound}");
}

#[test]
fn every_bias_detected_by_until_decided_counts_and_the_rate_stays_within_alpha() {
    // The decision `run fisher-yates -n 4 -t 20000 --until-decided --alpha 0.05` gives, wired as
    // the command wires it: the deck goes to the deal stream and to the sequential family in
    // trial order; at the stop (or at --trials) the report of the tally and the stream, with
    // the sequential outcome, says "bias detected" or not.
    //
    // Bound: under a fair shuffle the R runs' false rejections are Binomial(R, q) with q ≤ alpha
    // if the whole decision holds its level. Binomial(3200, 0.05) has mean 160 and sd
    // √(3200 · 0.05 · 0.95) = 12.33; the test allows 3 sd above the mean, 196, which a correct
    // tool exceeds with probability about 0.13% (normal approximation), and never with these
    // fixed seeds once passed. A decision that spends alpha twice (the sequential part at alpha
    // OR the fixed-sample family at alpha) sits near 7% (about 220 of 3200) and fails it.
    const SEEDS: u64 = 3200;
    let trials = 20_000;
    let deck = 4;
    let mean = SEEDS as f64 * ALPHA;
    let sd = (SEEDS as f64 * ALPHA * (1.0 - ALPHA)).sqrt();
    let bound = (mean + 3.0 * sd).floor() as u64;
    assert_eq!(bound, 196);
    let stop = AtomicBool::new(false);
    let (mut rejected, mut by_sequential, mut by_fixed_sample) = (0u64, 0u64, 0u64);
    for seed in 0..SEEDS {
        let spec = spec(Algorithm::FisherYates, deck, trials, 5_000_000 + seed);
        let source = SourceSpec::chacha(spec.rng);
        let facts = RunFacts {
            command: "run",
            shuffle: Some(spec.shuffle),
            origin: Origin::Simulation {
                seed: spec.seed,
                source,
                threads: 1,
            },
            trials_requested: trials,
            elapsed_seconds: 1.0,
            interrupted: false,
            alpha: ALPHA,
            against: Against::Uniform,
            all_orderings: false,
        };
        let mut family = SequentialFamily::full(deck, None, ALPHA);
        let mut stream = DealStream::new(DealStreamOptions {
            deck,
            dealt: deck,
            repeats: RepeatSource::FullTally,
            compositions: true,
        });
        visit_in_trial_order(&spec, &source, &stop, &mut |_| {}, &mut |cards| {
            stream.add(cards);
            family.observe(cards)
        });
        let (outcome, tally) = family.finish();
        let SequentialTally::Full(tally) = tally else {
            panic!("full mode")
        };
        let decided = outcome.decided;
        let report = build_run_report_with_deals(&facts, tally, None, Some(stream.finish()))
            .with_sequential(&facts, outcome);
        rejected += u64::from(report.bias_detected);
        by_sequential += u64::from(decided);
        by_fixed_sample += u64::from(report.bias_detected && !decided);
    }
    println!(
        "fisher-yates, {deck} cards, {SEEDS} seeds, up to {trials} trials, alpha = {ALPHA}, \
         --until-decided with the deal-stream tests: {rejected} said \"bias detected\" \
         ({by_sequential} by the sequential part, {by_fixed_sample} by the fixed-sample family \
         at the planned end; bound {bound})"
    );
    assert!(rejected <= bound, "{rejected} > {bound}");
}

/// splitmix64 of `x`: an independent-looking 64-bit word per trial index.
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A `--max-bias 1pp --until-decided` family fed Fisher–Yates on 4 cards for up to `trials`
/// shuffles with `seed`, card 0 moved to the top in a pseudo-random 1/`every` of them (none
/// when `every` is 0).
fn gated_run(seed: u64, every: u64, trials: u64) -> SequentialFamily {
    use shuffle_bias::analysis::ruled_out::BiasSize;
    let stop = AtomicBool::new(false);
    let mut family =
        SequentialFamily::full(4, None, ALPHA).with_size_gate(BiasSize::Positions(0.01));
    let mut index = 0u64;
    visit_in_trial_order(
        &spec(Algorithm::FisherYates, 4, trials, seed),
        &SourceSpec::chacha(RngKind::Chacha8),
        &stop,
        &mut |_| {},
        &mut |deck| {
            index += 1;
            if every > 0 && splitmix(seed << 32 | index).is_multiple_of(every) {
                let mut moved = deck.to_vec();
                let at = moved.iter().position(|&c| c == 0).unwrap();
                moved.swap(0, at);
                return family.observe(&moved);
            }
            family.observe(deck)
        },
    );
    family
}

#[test]
fn the_size_gate_never_stops_a_shuffle_biased_beyond_its_size_as_fair_within() {
    // Null for the gate: the bias exceeds the size. Fisher–Yates on 4 cards, then, in a
    // pseudo-random 1/64 of the shuffles, card 0 moved to the top: P(card 0 at 0) = 1/4 + 3/256,
    // 1.17 points off, above the 1pp gate. The gate may stop a run as FAIR WITHIN only when its
    // 99% confidence sequences fail, which happens in at most 1% of runs whenever they are
    // looked at (Ville's inequality, Bonferroni over the 16 cells); over 200 seeds, up to
    // 300,000 shuffles each, the count is at most the 1 − 10⁻⁶ quantile of Binomial(200, 0.01).
    // The same runs without the bias are shown within 1pp in most runs (the plan is about
    // 113,800 shuffles for 9 runs in 10): at least 150 of 200.
    const GATE_RUNS: u64 = 200;
    let false_passes = (0..GATE_RUNS)
        .filter(|&seed| gated_run(seed, 64, 300_000).shown_within())
        .count() as u64;
    let fair_passes = (0..GATE_RUNS)
        .filter(|&seed| gated_run(seed, 0, 300_000).shown_within())
        .count();
    let bound = binomial_upper(GATE_RUNS, 0.01);
    println!(
        "size gate 1pp, {GATE_RUNS} runs: biased by 1.17pp shown within {false_passes} times \
         (bound {bound}); fair shown within {fair_passes} times"
    );
    assert!(false_passes <= bound, "{false_passes} > {bound}");
    assert!(fair_passes >= 150, "{fair_passes}");
}

#[test]
fn a_bias_smaller_than_the_size_detected_on_the_way_still_ends_fair_within() {
    // Fisher–Yates on 4 cards with card 0 moved to the top in a pseudo-random 1/96 of the
    // shuffles: P(card 0 at 0) = 1/4 + 3/384, 0.78 points off, under the 1pp gate. The family
    // detects it on the way (its e-processes reject at α/2). A rejection by the position tests,
    // which the size measures, does not stop a gated run: it goes on until its bound decides,
    // and that is within 1pp, a detected bias smaller than the size, which the gate lets pass.
    // Moving card 0 also changes the law of the whole deck, which the permutations and
    // identity tests see and a size in points does not measure: when one of them rejects first
    // the run stops there, as bias. 20 seeds, up to 3,000,000 shuffles each: every run detects
    // the bias and ends one of those two ways (none beyond the size), a run shown within has no
    // unmeasured rejection, and both ways occur.
    let (mut within, mut unmeasured) = (0, 0);
    for seed in 0..20u64 {
        let family = gated_run(seed, 96, 3_000_000);
        assert!(family.decided(), "seed {seed}: the bias was detected");
        assert!(!family.shown_beyond(), "seed {seed}: shown beyond 1pp");
        match family.stopped_unmeasured() {
            Some(test) => {
                assert!(!test.starts_with("position "), "seed {seed}: {test}");
                assert!(!family.shown_within(), "seed {seed}");
                unmeasured += 1;
            }
            None => {
                assert!(family.shown_within(), "seed {seed}: shown within 1pp");
                let rejected: Vec<&str> = family
                    .tests()
                    .filter(|(_, test)| test.reached())
                    .map(|(name, _)| name)
                    .collect();
                assert!(
                    rejected.iter().all(|name| name.starts_with("position ")),
                    "seed {seed}: {rejected:?}"
                );
                within += 1;
            }
        }
    }
    println!("20 runs: {within} shown within 1pp, {unmeasured} stopped by an unmeasured test");
    assert!(
        within > 0 && unmeasured > 0,
        "{within} within, {unmeasured} unmeasured"
    );
}
