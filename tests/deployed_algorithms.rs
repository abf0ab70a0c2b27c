//! The algorithms of deployed shuffles that went wrong (or right): the planet-poker loop, Go's
//! `rand.Perm`, SQL Server's `ORDER BY RAND()` and PHP's `usort` with a random comparator. Each
//! is checked against the fact it is known for, in exact fractions from the exact engine, and
//! against an independent count written here.

use std::sync::atomic::AtomicBool;

use shuffle_bias::engine::algorithms::{Algorithm, Card};
use shuffle_bias::engine::permutation::{factorial, for_each_in_rank_order, rank};
use shuffle_bias::engine::random_source::{RngKind, ScriptedSource};
use shuffle_bias::engine::simulate::{Simulation, SimulationSpec, simulate};
use shuffle_bias::theory::exact::{ExactFractions, exact_law, walk_paths};

fn fractions(algorithm: Algorithm, n: usize) -> ExactFractions {
    exact_law(algorithm, n, 100_000_000)
        .expect("small laws are within budget")
        .exact
        .expect("these laws have exact fractions")
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The law of the card that ends in position 0, as reduced fractions (numerator, denominator),
/// summed exactly from the law of the orderings.
fn first_place_law(exact: &ExactFractions, n: usize) -> Vec<(u128, u128)> {
    let mut numerators = vec![0u128; n];
    for_each_in_rank_order(n, |rank, deck| {
        numerators[usize::from(deck[0])] += exact.numerators[rank];
    });
    numerators
        .into_iter()
        .map(|k| {
            let divisor = gcd(k, exact.denominator).max(1);
            (k / divisor, exact.denominator / divisor)
        })
        .collect()
}

/// Every script of `digits` answers below `base` run through `algorithm` on `n` cards, each
/// weighing base^-digits (answers past the end of the path are ignored): an independent count
/// of the law of an algorithm whose draws are all below `base`.
fn script_brute_force(algorithm: Algorithm, n: usize, base: usize, digits: u32) -> Vec<u128> {
    let mut counts = vec![0u128; factorial(n) as usize];
    for code in 0..base.pow(digits) {
        let script: Vec<usize> = (0..digits).map(|d| code / base.pow(d) % base).collect();
        let mut deck: Vec<Card> = (0..n as Card).collect();
        let mut scratch = deck.clone();
        algorithm.shuffle(&mut deck, &mut scratch, &mut ScriptedSource::new(script));
        counts[rank(&deck)] += 1;
    }
    counts
}

fn assert_same_law(exact: &ExactFractions, counts: &[u128], total: u128, what: &str) {
    for (rank, (&numerator, &count)) in exact.numerators.iter().zip(counts).enumerate() {
        assert_eq!(
            numerator * total,
            count * exact.denominator,
            "{what} rank {rank}"
        );
    }
}

#[test]
fn the_planet_poker_loop_never_leaves_the_last_card_in_the_last_place() {
    for n in 2..=8 {
        let exact = fractions(Algorithm::NaiveOffByOne, n);
        let mut last_stays_last = 0u128;
        for_each_in_rank_order(n, |rank, deck| {
            if usize::from(deck[n - 1]) == n - 1 {
                last_stays_last += exact.numerators[rank];
            }
        });
        assert_eq!(last_stays_last, 0, "n={n}");
        // Every other card can end last: the bias is the missing card, not a dead position.
        assert!(exact.numerators.iter().any(|&k| k > 0));
    }
}

#[test]
fn the_planet_poker_loop_matches_every_choice_tuple_of_n_minus_one_positions() {
    // n draws below n − 1: (n − 1)^n equally likely tuples.
    for n in 3..=6 {
        let total = ((n - 1) as u128).pow(n as u32);
        let counts = script_brute_force(Algorithm::NaiveOffByOne, n, n - 1, n as u32);
        assert_same_law(
            &fractions(Algorithm::NaiveOffByOne, n),
            &counts,
            total,
            "naive-off-by-one",
        );
    }
}

#[test]
fn inside_out_is_exactly_uniform_by_its_own_code_up_to_six_cards() {
    for n in 1..=6 {
        let walked = walk_paths(Algorithm::InsideOut, n, 100_000_000, factorial(n) as f64).unwrap();
        let exact = walked.exact.unwrap();
        assert_eq!(exact.denominator, u128::from(factorial(n)), "n={n}");
        assert!(exact.numerators.iter().all(|&k| k == 1), "n={n}");
        assert_eq!(walked.paths, factorial(n));
    }
}

#[test]
fn inside_out_draws_below_one_for_the_first_card_as_go_does() {
    // Go's rand.Perm calls Intn(i + 1) for i = 0 too: the first answer of a script is used up
    // by that draw. Answers 0 (i=0: m = 0), 1 (i=1: m[1] = m[1], m[1] = 1: m = 0 1), 0 (i=2:
    // m[2] = m[0], m[0] = 2: m = 2 1 0).
    let mut deck: Vec<Card> = (0..3).collect();
    let mut scratch = deck.clone();
    let mut source = ScriptedSource::new(vec![0, 1, 0]);
    Algorithm::InsideOut.shuffle(&mut deck, &mut scratch, &mut source);
    assert_eq!((deck, source.used()), (vec![2, 1, 0], 3));
}

#[test]
fn unshuffled_has_the_identity_with_probability_one_from_one_path_without_draws() {
    for n in 1..=10 {
        let law = exact_law(Algorithm::Unshuffled, n, 1).unwrap();
        assert_eq!(law.paths, 1);
        assert_eq!(law.support_size(), 1);
        assert_eq!(law.probabilities[0], 1.0);
        let exact = law.exact.unwrap();
        assert_eq!(exact.fraction(0), "1/1");
    }
}

/// The published laws of the first element of `usort` on a..e (illuminate/support PR #72):
/// PHP 7's zend_sort with `rand(-1, 1)` and with `rand(0, 1)`.
const ZEND_SORT_FIRST: [(u128, u128); 5] = [
    (33280, 59049),
    (2080, 19683),
    (16640, 59049),
    (80, 2187),
    (1, 81),
];
const ZEND_SORT_COIN_FIRST: [(u128, u128); 5] =
    [(315, 1024), (105, 512), (315, 1024), (15, 128), (1, 16)];

#[test]
fn php7_usort_with_rand_reproduces_the_published_first_place_laws_on_five_elements() {
    let law = first_place_law(&fractions(Algorithm::ZendSort, 5), 5);
    assert_eq!(law, ZEND_SORT_FIRST);
    let law = first_place_law(&fractions(Algorithm::ZendSortCoin, 5), 5);
    assert_eq!(law, ZEND_SORT_COIN_FIRST);
}

#[test]
fn php8_stable_usort_with_rand_has_its_own_first_place_law_on_five_elements() {
    // The stable fallback turns a 0 into "keep the original order", which zend_sort_5 answers
    // differently from PHP 7's "no swap": the law of the first element changes. Its values
    // (from the exact engine; cross-checked below against every script of answers).
    let law = first_place_law(&fractions(Algorithm::ZendSortStable, 5), 5);
    let total: f64 = law.iter().map(|&(a, b)| a as f64 / b as f64).sum();
    assert!((total - 1.0).abs() < 1e-12);
    assert_eq!(law, PHP8_FIRST);
}

/// PHP 8's first-place law on a..e, as the exact engine computes it: a, d and e as in PHP 7,
/// b twice as likely (4160/19683 against 2080/19683), c less (10400/59049 against 16640/59049).
const PHP8_FIRST: [(u128, u128); 5] = [
    (33280, 59049),
    (4160, 19683),
    (10400, 59049),
    (80, 2187),
    (1, 81),
];

#[test]
fn at_five_cards_no_two_biased_built_ins_share_a_law_so_explain_can_tell_them_apart() {
    // Only the three uniform algorithms coincide (the shelf shuffler, with its (2m)^n paths, is
    // left out: at 10 shelves it has 20^5 of them, and its law is far from the others').
    let laws: Vec<(Algorithm, ExactFractions)> = Algorithm::ALL
        .into_iter()
        .filter(|&a| a != Algorithm::Shelf)
        .map(|a| (a, fractions(a, 5)))
        .collect();
    for (i, (a, x)) in laws.iter().enumerate() {
        for (b, y) in &laws[i + 1..] {
            let same = x
                .numerators
                .iter()
                .zip(&y.numerators)
                .all(|(p, q)| p * y.denominator == q * x.denominator);
            let both_uniform = a.meant_uniform() && b.meant_uniform();
            assert_eq!(same, both_uniform, "{} and {}", a.name(), b.name());
        }
    }
}

#[test]
fn zend_sorts_match_every_script_of_answers_on_four_and_five_elements() {
    // zend_sort_4 makes at most 6 comparisons, zend_sort_5 at most 10; each is one draw below
    // 3 (rand(-1, 1)) or below 2 (rand(0, 1)).
    for (algorithm, base) in [
        (Algorithm::ZendSort, 3),
        (Algorithm::ZendSortCoin, 2),
        (Algorithm::ZendSortStable, 3),
    ] {
        for (n, digits) in [(4, 6), (5, 10)] {
            let counts = script_brute_force(algorithm, n, base, digits);
            let total = (base as u128).pow(digits);
            assert_same_law(&fractions(algorithm, n), &counts, total, algorithm.name());
        }
    }
}

#[test]
fn a_million_simulated_php7_sorts_put_each_element_first_as_often_as_the_exact_law_says() {
    // With N = 10^6 shuffles, the count of element c in first place is Binomial(N, p_c), p_c
    // from the exact law. Each count is tested at 5.5 standard deviations, sqrt(N p (1 − p)),
    // where the normal approximation holds (N p ≥ 12,000): a correct engine fails one of the
    // five with probability below 5 · 3.8e-8 = 2e-7, and the seed being fixed, never. A law off
    // by 0.3% of N in one count (3,000 shuffles, e.g. 1/81 misread as 1/64) is caught.
    const N: u64 = 1_000_000;
    for algorithm in [Algorithm::ZendSort, Algorithm::ZendSortCoin] {
        let spec = SimulationSpec {
            shuffle: algorithm.into(),
            deck: 5,
            trials: N,
            seed: 29,
            rng: RngKind::Chacha8,
            threads: 1,
        };
        let tally = simulate(
            &spec,
            &Simulation::default(),
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .into_full();
        let mut first = [0u64; 5];
        for_each_in_rank_order(5, |rank, deck| {
            first[usize::from(deck[0])] += tally.counts[rank]
        });
        let law = first_place_law(&fractions(algorithm, 5), 5);
        for (card, (&count, &(a, b))) in first.iter().zip(&law).enumerate() {
            let p = a as f64 / b as f64;
            let expected = N as f64 * p;
            let sd = (N as f64 * p * (1.0 - p)).sqrt();
            assert!(
                (count as f64 - expected).abs() <= 5.5 * sd,
                "{} card {card}: {count} vs {expected:.0} ± {:.0}",
                algorithm.name(),
                5.5 * sd
            );
        }
    }
}
