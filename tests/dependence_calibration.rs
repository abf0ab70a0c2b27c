//! The dependence tests ask one question — are consecutive deals dependent, whatever the law of
//! one deal? — so a shuffle that is biased but draws each deal afresh must pass them as often as
//! the level says, and a stream whose deals really depend on each other must fail them.
//!
//! Null tested by each run: the deals are independent draws from one law (any law). Over
//! `RUNS` = 1000 seeds per shuffle, each test of the *dependence between deals* question is
//! counted when its own p-value is at most 0.05. Under the null each count is Binomial(1000,
//! ≤ 0.05) (the tests are conservative when the positions are biased: see
//! `analysis::deal_stream`), with mean 50 and sd √(1000·0.05·0.95) = 6.89; the bound is the mean
//! plus 3 sd, 70, which a correct tool exceeds with probability below 0.0015 (normal tail;
//! the seeds being fixed, deterministically never).
//!
//! Power: a deck carried from deal to deal with one riffle each, and Fisher–Yates driven by a
//! generator re-seeded from a counter before every deal (the MSVC `rand` LCG, whose first
//! outputs for consecutive seeds differ by about 3), must fail the dependence question (the
//! family's Holm-adjusted verdict at alpha 0.001) in at least 99% of runs.
//!
//! `cargo test --release --test dependence_calibration -- --nocapture` prints the rates.

use shuffle_bias::rand::RngExt;
use shuffle_bias::{RunReport, ShuffleRng, ShuffleTest};

const RUNS: u64 = 1000;
const DECK: usize = 4;
const DEALS: u64 = 2000;
/// 50 + 3·6.89 (see the module documentation).
const MOST_REJECTIONS: u64 = 70;

/// A shuffle of a deck in place, as `ShuffleTest::check_shuffle` takes it.
type Shuffle = fn(&mut [usize], &mut ShuffleRng);

/// Swap every card with any card: biased, each deal independent.
fn naive(deck: &mut [usize], rng: &mut ShuffleRng) {
    let n = deck.len();
    for i in 0..n {
        deck.swap(i, rng.random_range(0..n));
    }
}

/// Sattolo's algorithm: only the n-cycles, each deal independent.
fn sattolo(deck: &mut [usize], rng: &mut ShuffleRng) {
    for i in (1..deck.len()).rev() {
        deck.swap(i, rng.random_range(0..i));
    }
}

/// The standard library's sort with a comparator that answers at random.
fn comparator_sort(deck: &mut [usize], rng: &mut ShuffleRng) {
    deck.sort_by(|_, _| {
        if rng.random_bool(0.5) {
            std::cmp::Ordering::Less
        } else {
            std::cmp::Ordering::Greater
        }
    });
}

/// One Gilbert–Shannon–Reeds riffle: a binomial cut, then cards dropped from each packet with
/// probability proportional to its size.
fn riffle(deck: &mut [usize], rng: &mut ShuffleRng) {
    let n = deck.len();
    let cut = (0..n).filter(|_| rng.random_bool(0.5)).count();
    let (top, bottom) = (deck[..cut].to_vec(), deck[cut..].to_vec());
    let (mut a, mut b) = (0, 0);
    for slot in deck.iter_mut() {
        let (left_a, left_b) = (top.len() - a, bottom.len() - b);
        if rng.random_range(0..left_a + left_b) < left_a {
            *slot = top[a];
            a += 1;
        } else {
            *slot = bottom[b];
            b += 1;
        }
    }
}

/// An overhand shuffle: packets of geometric size (cut with probability ½ after each card)
/// taken from the top and stacked in reverse order.
fn overhand(deck: &mut [usize], rng: &mut ShuffleRng) {
    let mut packets: Vec<Vec<usize>> = vec![Vec::new()];
    for &card in deck.iter() {
        packets.last_mut().unwrap().push(card);
        if rng.random_bool(0.5) {
            packets.push(Vec::new());
        }
    }
    let stacked: Vec<usize> = packets.into_iter().rev().flatten().collect();
    deck.copy_from_slice(&stacked);
}

/// The p-values of the tests of the dependence question, by name.
fn dependence_p_values(report: &RunReport) -> Vec<(String, f64)> {
    report
        .tests
        .iter()
        .filter(|t| serde_json::to_value(t.question).unwrap() == "dependence-between-deals")
        .map(|t| (t.name.clone(), 10f64.powf(t.log10_p_value)))
        .collect()
}

/// Whether the family rejected a test of the dependence question.
fn dependence_detected(report: &RunReport) -> bool {
    report.tests.iter().any(|t| {
        t.rejected && serde_json::to_value(t.question).unwrap() == "dependence-between-deals"
    })
}

#[test]
fn biased_but_independent_shuffles_pass_the_dependence_tests_at_their_level() {
    let shuffles: [(&str, Shuffle); 5] = [
        ("naive", naive),
        ("comparator sort", comparator_sort),
        ("riffle", riffle),
        ("sattolo", sattolo),
        ("overhand", overhand),
    ];
    for (index, (name, shuffle)) in shuffles.into_iter().enumerate() {
        let mut rejections: Vec<(String, u64)> = Vec::new();
        let mut law_rejected = 0u64;
        for seed in 0..RUNS {
            let report = ShuffleTest::new(DECK)
                .trials(DEALS)
                .seed(500_000 + 10_000 * index as u64 + seed)
                .alpha(0.05)
                .check_shuffle(shuffle)
                .expect("a report");
            law_rejected += u64::from(report.bias_detected);
            for (test, p) in dependence_p_values(&report) {
                match rejections.iter_mut().find(|(t, _)| *t == test) {
                    Some((_, count)) => *count += u64::from(p <= 0.05),
                    None => rejections.push((test, u64::from(p <= 0.05))),
                }
            }
        }
        eprintln!(
            "{name}, {DECK} cards, {RUNS} seeds × {DEALS} deals: family rejects {law_rejected}; \
             dependence tests rejecting at 0.05: {rejections:?}"
        );
        let names: Vec<&str> = rejections.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(
            names,
            ["serial matches", "serial slots", "serial compositions"],
            "{name}"
        );
        for (test, count) in rejections {
            assert!(
                count <= MOST_REJECTIONS,
                "{name}: {test} rejected {count} of {RUNS} independent streams at 0.05"
            );
        }
    }
}

#[test]
fn a_deck_carried_between_deals_fails_the_dependence_question() {
    let mut detected = 0;
    for seed in 0..RUNS {
        let mut carried: Vec<usize> = (0..DECK).collect();
        let report = ShuffleTest::new(DECK)
            .trials(DEALS)
            .seed(700_000 + seed)
            .check_permutations(|rng: &mut ShuffleRng| {
                riffle(&mut carried, rng);
                carried.clone()
            })
            .expect("a report");
        detected += u64::from(dependence_detected(&report));
    }
    eprintln!("carried deck, one riffle a deal: dependence detected in {detected} of {RUNS}");
    assert!(detected >= RUNS * 99 / 100, "{detected}");
}

#[test]
fn a_generator_reseeded_from_a_counter_fails_the_dependence_question() {
    /// The first output of the MSVC `rand()` after `srand(seed)`.
    fn first_rand(state: &mut u32) -> u32 {
        *state = state.wrapping_mul(214_013).wrapping_add(2_531_011);
        (*state >> 16) & 0x7fff
    }
    let mut detected = 0;
    for start in 0..RUNS {
        let mut counter = (start * 7919) as u32;
        let report = ShuffleTest::new(DECK)
            .trials(DEALS)
            .seed(start)
            .check_permutations(|_: &mut ShuffleRng| {
                counter = counter.wrapping_add(1);
                let mut state = counter;
                let mut deck: Vec<usize> = (0..DECK).collect();
                for i in (1..DECK).rev() {
                    let j = first_rand(&mut state) as usize % (i + 1);
                    deck.swap(i, j);
                }
                deck
            })
            .expect("a report");
        detected += u64::from(dependence_detected(&report));
    }
    eprintln!("counter-seeded rand(): dependence detected in {detected} of {RUNS}");
    assert!(detected >= RUNS * 99 / 100, "{detected}");
}
