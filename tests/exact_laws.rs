//! The exact engine against independent counts: brute-force enumeration written here, hand
//! derivations, and the published facts each algorithm is known for.

use shuffle_bias::engine::algorithms::{Algorithm, Card};
use shuffle_bias::engine::permutation::{cycle_count, factorial, rank};
use shuffle_bias::engine::random_source::ScriptedSource;
use shuffle_bias::theory::exact::{
    ExactFractions, UNIFORM_BY_CONSTRUCTION, exact_law, exact_law_under, walk_paths,
};

/// The exact law of one pass of `algorithm`; the shelf shuffler with 2 shelves, whose (2m)^n
/// choice paths stay few up to eight cards (ten shelves would take 20^8).
fn fractions(algorithm: Algorithm, n: usize) -> ExactFractions {
    let shuffle = match algorithm {
        Algorithm::Shelf => Shuffle::once(algorithm).with_shelves(2),
        _ => Shuffle::once(algorithm),
    };
    // Fisher–Yates's law is uniform by a theorem that `exact_law` takes without walking; here its
    // own code is walked instead, so that these tests check the theorem rather than assume it.
    let law = if algorithm.meant_uniform() {
        walk_paths(shuffle, n, 100_000_000, factorial(n) as f64)
    } else {
        exact_law(shuffle, n, 100_000_000)
    };
    law.expect("small laws are within budget")
        .exact
        .expect("built-in laws have exact fractions")
}

/// Independent count for the naive shuffle: every one of the n^n choice tuples, enumerated as the
/// digits of a base-n counter, with the swap loop written out here.
fn naive_brute_force(n: usize) -> Vec<u128> {
    let mut counts = vec![0u128; factorial(n) as usize];
    let tuples = (n as u64).pow(n as u32);
    for code in 0..tuples {
        let mut deck: Vec<Card> = (0..n as Card).collect();
        let mut digits = code;
        for i in 0..n {
            let j = (digits % n as u64) as usize;
            digits /= n as u64;
            deck.swap(i, j);
        }
        counts[rank(&deck)] += 1;
    }
    counts
}

/// Independent count for a coin-only algorithm: run it on every coin string of a fixed length K
/// (longer than any path needs), each weighing 2^-K; unused coins are simply ignored.
fn coin_brute_force(algorithm: Algorithm, n: usize, k: u32) -> Vec<u128> {
    let mut counts = vec![0u128; factorial(n) as usize];
    for code in 0..(1u64 << k) {
        let script: Vec<usize> = (0..k).map(|bit| ((code >> bit) & 1) as usize).collect();
        let mut source = ScriptedSource::new(script);
        let mut deck: Vec<Card> = (0..n as Card).collect();
        let mut scratch = deck.clone();
        algorithm.shuffle(&mut deck, &mut scratch, &mut source);
        counts[rank(&deck)] += 1;
    }
    counts
}

/// Compare p = numerator/denominator exactly with q = count/total (cross-multiplication).
fn assert_same_law(exact: &ExactFractions, counts: &[u128], total: u128) {
    for (rank, (&numerator, &count)) in exact.numerators.iter().zip(counts).enumerate() {
        assert_eq!(
            numerator * total,
            count * exact.denominator,
            "rank {rank}: {numerator}/{} vs {count}/{total}",
            exact.denominator
        );
    }
}

#[test]
fn fisher_yates_in_both_directions_and_inside_out_hits_every_permutation_exactly_once() {
    for algorithm in [
        Algorithm::FisherYates,
        Algorithm::FisherYatesForward,
        Algorithm::InsideOut,
    ] {
        for n in 2..=6 {
            let exact = fractions(algorithm, n);
            assert_eq!(exact.denominator, u128::from(factorial(n)));
            assert!(
                exact.numerators.iter().all(|&k| k == 1),
                "{algorithm:?} n={n}"
            );
        }
    }
}

#[test]
fn the_uniform_law_by_construction_is_the_walk_of_fisher_yates_code_up_to_eight_cards() {
    // `exact_law` takes Fisher–Yates's law from the bijection theorem; the walk runs the
    // algorithm's own code on all n! choice paths. They must agree fraction for fraction, and
    // in the number of paths, for one pass and for two.
    for algorithm in [
        Algorithm::FisherYates,
        Algorithm::FisherYatesForward,
        Algorithm::InsideOut,
    ] {
        for n in 1..=8 {
            let walked = walk_paths(algorithm, n, 100_000_000, factorial(n) as f64).unwrap();
            let known = exact_law(algorithm, n, 100_000_000).unwrap();
            assert_eq!(known.method, UNIFORM_BY_CONSTRUCTION, "{algorithm:?} n={n}");
            assert_eq!(known.paths, walked.paths, "{algorithm:?} n={n}");
            assert_eq!(
                known.probabilities, walked.probabilities,
                "{algorithm:?} n={n}"
            );
            let (known, walked) = (known.exact.unwrap(), walked.exact.unwrap());
            for rank in 0..known.numerators.len() {
                assert_eq!(
                    known.fraction(rank),
                    walked.fraction(rank),
                    "{algorithm:?} n={n}"
                );
            }
        }
        let twice = Shuffle::once(algorithm).with_passes(2);
        let walked = walk_paths(twice, 4, 100_000_000, 576.0).unwrap();
        let known = exact_law(twice, 4, 100_000_000).unwrap();
        assert_eq!(known.paths, walked.paths);
        let (known, walked) = (known.exact.unwrap(), walked.exact.unwrap());
        for rank in 0..24 {
            assert_eq!(known.fraction(rank), walked.fraction(rank));
        }
    }
}

#[test]
fn only_fisher_yates_with_unbiased_draws_is_taken_as_uniform_without_a_walk() {
    use shuffle_bias::engine::mapping::Mapping;
    use shuffle_bias::theory::exact::ChoiceLaw;
    for algorithm in Algorithm::ALL {
        let law = exact_law(algorithm, 4, 100_000_000).unwrap();
        assert_eq!(
            law.method == UNIFORM_BY_CONSTRUCTION,
            algorithm.meant_uniform(),
            "{algorithm:?}"
        );
    }
    // Biased mappings of Fisher–Yates's draws are walked: their law is not uniform.
    for mapping in [Mapping::Modulo, Mapping::Multiply, Mapping::Float] {
        let law = exact_law_under(
            Algorithm::FisherYates,
            4,
            100_000_000,
            Some(ChoiceLaw { mapping, bits: 3 }),
        )
        .unwrap();
        assert_ne!(law.method, UNIFORM_BY_CONSTRUCTION, "{mapping:?}");
    }
    for mapping in [Mapping::Lemire, Mapping::Rejection, Mapping::Bitmask] {
        let unbiased = exact_law_under(
            Algorithm::FisherYates,
            4,
            100_000_000,
            Some(ChoiceLaw { mapping, bits: 3 }),
        )
        .unwrap();
        assert_eq!(unbiased.method, UNIFORM_BY_CONSTRUCTION, "{mapping:?}");
    }
}

#[test]
fn naive_on_three_cards_gives_four_four_four_five_five_five_of_twenty_seven() {
    let exact = fractions(Algorithm::Naive, 3);
    assert_eq!(exact.denominator, 27);
    let mut sorted = exact.numerators.clone().into_vec();
    sorted.sort_unstable();
    assert_eq!(sorted, vec![4, 4, 4, 5, 5, 5]);
}

#[test]
fn naive_on_four_cards_ranges_from_eight_to_fifteen_of_256_with_identity_ten() {
    let exact = fractions(Algorithm::Naive, 4);
    assert_eq!(exact.denominator, 256);
    assert_eq!(exact.numerators[0], 10);
    assert_eq!(exact.numerators.iter().min(), Some(&8));
    assert_eq!(exact.numerators.iter().max(), Some(&15));
}

#[test]
fn naive_matches_brute_force_enumeration_up_to_six_cards() {
    for n in 3..=6 {
        let counts = naive_brute_force(n);
        let total = (n as u128).pow(n as u32);
        assert_same_law(&fractions(Algorithm::Naive, n), &counts, total);
    }
}

#[test]
fn sattolo_is_uniform_over_single_cycles_and_zero_elsewhere() {
    for n in 2..=7 {
        let law = exact_law(Algorithm::Sattolo, n, 100_000_000).unwrap();
        let cyclic_probability = 1.0 / factorial(n - 1) as f64;
        let mut cyclic = 0;
        shuffle_bias::engine::permutation::for_each_in_rank_order(n, |r, deck| {
            if cycle_count(deck) == 1 {
                cyclic += 1;
                assert!((law.probabilities[r] - cyclic_probability).abs() < 1e-15);
            } else {
                assert_eq!(law.probabilities[r], 0.0);
            }
        });
        assert_eq!(cyclic, factorial(n - 1));
        assert_eq!(law.support_size() as u64, factorial(n - 1));
    }
}

#[test]
fn insertion_sort_on_three_cards_matches_the_hand_derivation() {
    // Card 1 vs card 0: the first two are in either order with probability 1/2. Card 2 then moves
    // 0 places (first coin "not less": 1/2), 1 place (1/4) or 2 places (1/4, no coin at the
    // front). So the law is {1/4, 1/4, 1/8, 1/8, 1/8, 1/8}: ranks of 0 1 2 and 1 0 2 are 1/4.
    let exact = fractions(Algorithm::ComparatorInsertion, 3);
    let by_deck = |deck: [Card; 3]| exact.fraction(rank(&deck));
    assert_eq!(by_deck([0, 1, 2]), "1/4");
    assert_eq!(by_deck([1, 0, 2]), "1/4");
    for deck in [[0, 2, 1], [2, 0, 1], [1, 2, 0], [2, 1, 0]] {
        assert_eq!(by_deck(deck), "1/8");
    }
}

#[test]
fn comparator_sorts_match_brute_force_over_all_coin_strings_on_four_cards() {
    // At most 6 comparisons on 4 cards for any of these sorts, so 10 coins always suffice.
    for algorithm in [
        Algorithm::ComparatorInsertion,
        Algorithm::ComparatorMerge,
        Algorithm::ComparatorQuick,
        Algorithm::ComparatorTimsort,
    ] {
        let counts = coin_brute_force(algorithm, 4, 10);
        assert_same_law(&fractions(algorithm, 4), &counts, 1 << 10);
    }
}

#[test]
fn comparator_sorts_match_brute_force_on_five_cards() {
    // At most 10 comparisons on 5 cards (insertion and quicksort: 4+3+2+1), so 12 coins suffice.
    for algorithm in [
        Algorithm::ComparatorInsertion,
        Algorithm::ComparatorMerge,
        Algorithm::ComparatorQuick,
        Algorithm::ComparatorTimsort,
    ] {
        let counts = coin_brute_force(algorithm, 5, 12);
        assert_same_law(&fractions(algorithm, 5), &counts, 1 << 12);
    }
}

#[test]
fn every_built_in_law_is_exact_and_sums_to_one_up_to_eight_cards() {
    for algorithm in Algorithm::ALL {
        for n in 2..=8 {
            let exact = fractions(algorithm, n);
            assert_eq!(
                exact.numerators.iter().sum::<u128>(),
                exact.denominator,
                "{algorithm:?} n={n}"
            );
        }
    }
}

#[test]
fn only_fisher_yates_is_uniform_from_three_cards_on() {
    for algorithm in Algorithm::ALL {
        for n in 3..=6 {
            let exact = fractions(algorithm, n);
            let uniform = exact.numerators.iter().all(|&k| k == exact.numerators[0]);
            assert_eq!(uniform, algorithm.meant_uniform(), "{algorithm:?} n={n}");
        }
    }
}

/// The fixtures under `fixtures/laws/`: (algorithm, cards).
const FIXTURES: [(Algorithm, usize); 6] = [
    (Algorithm::Naive, 3),
    (Algorithm::Naive, 4),
    (Algorithm::Naive, 5),
    (Algorithm::ComparatorInsertion, 4),
    (Algorithm::ComparatorTimsort, 4),
    (Algorithm::ComparatorMerge, 4),
];

fn fixture_path(algorithm: Algorithm, n: usize) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/laws")
        .join(format!("{}-{n}.csv", algorithm.name()))
}

#[test]
fn law_fixtures_are_exactly_what_theory_prints() {
    for (algorithm, n) in FIXTURES {
        let output = assert_cmd::Command::cargo_bin("shuffle-bias")
            .unwrap()
            .args(["theory", algorithm.name(), "-n", &n.to_string()])
            .args(["--format", "csv", "--table", "permutations"])
            .output()
            .unwrap();
        let fixture = std::fs::read_to_string(fixture_path(algorithm, n)).unwrap();
        assert_eq!(
            String::from_utf8(output.stdout).unwrap(),
            fixture,
            "{} n={n}: regenerate with `shuffle-bias theory {} -n {n} --format csv --table \
             permutations` only if the change is intended",
            algorithm.name(),
            algorithm.name()
        );
    }
}

#[test]
fn law_fixtures_agree_with_independent_brute_force_counts() {
    for (algorithm, n) in FIXTURES {
        let (counts, total) = match algorithm {
            Algorithm::Naive => (naive_brute_force(n), (n as u128).pow(n as u32)),
            _ => (coin_brute_force(algorithm, n, 10), 1 << 10),
        };
        let mut reader = csv::Reader::from_path(fixture_path(algorithm, n)).unwrap();
        let mut rows = 0;
        for (rank, record) in reader.records().enumerate() {
            let record = record.unwrap();
            assert_eq!(record[0].parse::<usize>().unwrap(), rank);
            let numerator: u128 = record[4].parse().unwrap();
            let denominator: u128 = record[5].parse().unwrap();
            assert_eq!(
                numerator * total,
                counts[rank] * denominator,
                "{} n={n} rank {rank}",
                algorithm.name()
            );
            rows += 1;
        }
        assert_eq!(rows, factorial(n));
    }
}

#[test]
fn step_propagation_agrees_exactly_with_the_path_walk_for_position_shuffles() {
    use shuffle_bias::theory::exact::{first_path, propagate_steps, walk_paths};
    for algorithm in Algorithm::ALL
        .into_iter()
        .filter(|a| a.choices_act_on_positions())
    {
        for n in 2..=7 {
            let walked = walk_paths(algorithm, n, u64::MAX, 0.0).unwrap();
            let (bounds, _) = first_path(algorithm, n);
            let propagated = propagate_steps(algorithm, n, &bounds).unwrap();
            let (a, b) = (walked.exact.unwrap(), propagated.exact.unwrap());
            for (x, y) in a.numerators.iter().zip(&b.numerators) {
                assert_eq!(x * b.denominator, y * a.denominator, "{algorithm:?} n={n}");
            }
            assert_eq!(walked.method, "path-walk");
            assert_eq!(propagated.method, "step-propagation");
        }
    }
}

#[test]
fn naive_on_nine_cards_is_exact_by_step_propagation_within_the_default_budget() {
    let law = exact_law(Algorithm::Naive, 9, 100_000_000).unwrap();
    assert_eq!(law.method, "step-propagation");
    let exact = law.exact.unwrap();
    assert_eq!(exact.denominator, 387_420_489);
    assert_eq!(exact.numerators.iter().sum::<u128>(), 387_420_489);
    // The identity: 2620 of the 9^9 paths (also what the full path walk gives with
    // --max-paths 4e8, which takes half a minute).
    assert_eq!(exact.numerators[0], 2620);
}

// Riffle and overhand shuffles, and several passes.

use shuffle_bias::engine::algorithms::{CutProbability, Shuffle};
use shuffle_bias::engine::permutation::for_each_in_rank_order;
use shuffle_bias::theory::exact::{
    ExactError, convolve_passes, first_path, mixing_curve, propagate_steps,
};

/// C(m, k), exactly.
fn binomial(m: u128, k: u128) -> u128 {
    (0..k).fold(1, |acc, i| acc * (m - i) / (i + 1))
}

/// The number of rising sequences of a deck: maximal runs of consecutive cards c, c+1, … that lie
/// in increasing positions, i.e. 1 + the number of cards c whose successor c + 1 lies above it.
fn rising_sequences(deck: &[Card]) -> u128 {
    let mut position = vec![0; deck.len()];
    for (p, &card) in deck.iter().enumerate() {
        position[usize::from(card)] = p;
    }
    1 + (1..deck.len())
        .filter(|&c| position[c] < position[c - 1])
        .count() as u128
}

fn assert_same_fractions(a: &ExactFractions, b: &ExactFractions, what: &str) {
    for (rank, (x, y)) in a.numerators.iter().zip(&b.numerators).enumerate() {
        assert_eq!(x * b.denominator, y * a.denominator, "{what}: rank {rank}");
    }
}

#[test]
fn riffles_follow_the_bayer_diaconis_closed_form_for_one_two_and_three_passes() {
    // Bayer & Diaconis 1992: after K GSR riffles, an ordering with r rising sequences has
    // probability C(2^K + n − r, n) / 2^(Kn). Computed here over all n! orderings.
    for n in 3..=6usize {
        for passes in 1..=3u32 {
            let shuffle = Shuffle::once(Algorithm::Riffle).with_passes(passes);
            let exact = exact_law(shuffle, n, 100_000_000)
                .unwrap()
                .exact
                .expect("riffle laws are exact");
            let total = 1u128 << (passes as usize * n);
            let mut counts = vec![0u128; factorial(n) as usize];
            for_each_in_rank_order(n, |rank, deck| {
                let r = rising_sequences(deck);
                let top = (1u128 << passes) + n as u128;
                counts[rank] = if r <= top - n as u128 {
                    binomial(top - r, n as u128)
                } else {
                    0
                };
            });
            assert_eq!(counts.iter().sum::<u128>(), total, "n={n} K={passes}");
            assert_same_law(&exact, &counts, total);
        }
    }
}

/// The overhand shuffle written out independently: every one of the 2^(n−1) sets of cut gaps,
/// with weight num^|S| (den − num)^(n−1−|S|) over den^(n−1); the packets, read top to bottom,
/// are stacked in reverse order.
fn overhand_brute_force(n: usize, numerator: u128, denominator: u128) -> (Vec<u128>, u128) {
    let mut weights = vec![0u128; factorial(n) as usize];
    for cuts in 0u32..(1 << (n - 1)) {
        let mut packets: Vec<Vec<Card>> = vec![vec![0]];
        for card in 1..n as Card {
            if cuts >> (card - 1) & 1 == 1 {
                packets.push(Vec::new());
            }
            packets.last_mut().unwrap().push(card);
        }
        let deck: Vec<Card> = packets.into_iter().rev().flatten().collect();
        let cut = cuts.count_ones();
        weights[rank(&deck)] +=
            numerator.pow(cut) * (denominator - numerator).pow(n as u32 - 1 - cut);
    }
    (weights, denominator.pow(n as u32 - 1))
}

#[test]
fn the_overhand_law_matches_brute_force_over_every_set_of_cuts() {
    for (numerator, denominator) in [(1, 2), (1, 3), (1, 10), (3, 4)] {
        let p = CutProbability::new(numerator, denominator).unwrap();
        for n in 2..=7 {
            let shuffle = Shuffle {
                cut_probability: p,
                ..Shuffle::once(Algorithm::Overhand)
            };
            let exact = exact_law(shuffle, n, 1_000_000).unwrap().exact.unwrap();
            let (weights, total) =
                overhand_brute_force(n, u128::from(numerator), u128::from(denominator));
            assert_same_law(&exact, &weights, total);
        }
    }
}

#[test]
fn k_fold_convolution_agrees_with_a_path_walk_of_the_whole_k_pass_shuffle_on_four_cards() {
    // The walk runs the K-pass shuffle itself (the second pass shuffling the deck the first one
    // produced), so it checks the composition order of the convolution.
    let third = CutProbability::new(1, 3).unwrap();
    let shuffles = [
        Shuffle::once(Algorithm::ComparatorMerge),
        Shuffle::once(Algorithm::Naive),
        Shuffle::once(Algorithm::Riffle),
        Shuffle {
            cut_probability: third,
            ..Shuffle::once(Algorithm::Overhand)
        },
    ];
    for shuffle in shuffles {
        let one_pass = exact_law(shuffle, 4, 1_000_000).unwrap();
        for passes in 2..=3 {
            let convolved = convolve_passes(&one_pass, passes, u64::MAX).unwrap();
            let walked = walk_paths(shuffle.with_passes(passes), 4, u64::MAX, 0.0).unwrap();
            assert_eq!(convolved.method, "convolution");
            assert_eq!(walked.method, "path-walk");
            assert_same_fractions(
                &convolved.exact.unwrap(),
                &walked.exact.unwrap(),
                &format!("{} K={passes}", shuffle.label()),
            );
        }
    }
}

#[test]
fn step_propagation_of_several_passes_agrees_with_convolution_for_swap_shuffles() {
    for algorithm in [Algorithm::Naive, Algorithm::Sattolo, Algorithm::FisherYates] {
        for n in [3, 5] {
            let one_pass = exact_law(algorithm, n, 1_000_000).unwrap();
            let shuffle = Shuffle::once(algorithm).with_passes(3);
            let (bounds, _) = first_path(shuffle, n);
            let law = propagate_steps(shuffle, n, &bounds).unwrap();
            if n == 5 {
                // Walking 3 passes would take (5!)^3 or more paths: the engine propagates.
                // (Fisher–Yates needs neither: uniform by construction.)
                let chosen = exact_law(shuffle, n, 100_000_000).unwrap();
                let expected = if algorithm.meant_uniform() {
                    UNIFORM_BY_CONSTRUCTION
                } else {
                    "step-propagation"
                };
                assert_eq!(chosen.method, expected, "{algorithm:?}");
            }
            let convolved = convolve_passes(&one_pass, 3, u64::MAX).unwrap();
            assert_same_fractions(
                &law.exact.unwrap(),
                &convolved.exact.unwrap(),
                &format!("{algorithm:?} n={n}"),
            );
        }
    }
}

#[test]
fn several_passes_fall_back_to_floats_when_the_denominator_outgrows_128_bits() {
    // p = 0.123456789 = 123456789/10^9: one pass on 5 cards has denominator 10^36, two passes
    // 10^72, so both the convolution and the walk of the two-pass shuffle work in floats.
    let shuffle = Shuffle {
        cut_probability: CutProbability::parse("0.123456789").unwrap(),
        ..Shuffle::once(Algorithm::Overhand)
    };
    let one_pass = exact_law(shuffle, 5, 1_000_000).unwrap();
    assert_eq!(one_pass.exact.as_ref().unwrap().denominator, 10u128.pow(36));
    let convolved = convolve_passes(&one_pass, 2, u64::MAX).unwrap();
    let walked = walk_paths(shuffle.with_passes(2), 5, u64::MAX, 0.0).unwrap();
    assert!(convolved.exact.is_none() && walked.exact.is_none());
    assert!((convolved.probabilities.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    for (a, b) in convolved.probabilities.iter().zip(&walked.probabilities) {
        assert!((a - b).abs() <= 1e-12 * a.max(*b), "{a} vs {b}");
    }
}

#[test]
fn the_law_of_many_passes_is_refused_beyond_the_budget_not_approximated() {
    // Riffle on 8 cards: 248 orderings in one pass's support, 8! = 40320 orderings, so three
    // passes compose 248 · 40320 · 2 ≈ 2.0e7 permutations; and walking them needs 12870^3.
    let shuffle = Shuffle::once(Algorithm::Riffle).with_passes(3);
    let result = exact_law(shuffle, 8, 1_000_000);
    assert!(
        matches!(result, Err(ExactError::TooManyPassSteps { passes: 3, .. })),
        "{result:?}"
    );
    assert!(exact_law(shuffle, 8, 30_000_000).is_ok());
}

#[test]
fn the_mixing_curve_is_the_distance_of_each_number_of_passes() {
    let curve = mixing_curve(Algorithm::Riffle, 5, 6, 100_000_000).unwrap();
    assert_eq!(curve.len(), 6);
    for (k, &tv) in curve.iter().enumerate() {
        let law = exact_law(
            Shuffle::once(Algorithm::Riffle).with_passes(k as u32 + 1),
            5,
            100_000_000,
        )
        .unwrap();
        assert!(
            (tv - law.tv_distance_from_uniform()).abs() < 1e-12,
            "K={}",
            k + 1
        );
    }
    // Riffles only get closer to uniform (a Markov chain's distance to its stationary law never
    // grows).
    assert!(curve.windows(2).all(|w| w[1] < w[0]), "{curve:?}");
    // The swap shuffles go pass by pass through step propagation; Fisher–Yates stays uniform.
    let uniform = mixing_curve(Algorithm::FisherYates, 5, 4, 100_000_000).unwrap();
    assert!(uniform.iter().all(|&tv| tv < 1e-15), "{uniform:?}");
    let naive = mixing_curve(Algorithm::Naive, 4, 3, 100_000_000).unwrap();
    let twice = exact_law(Shuffle::once(Algorithm::Naive).with_passes(2), 4, 1_000_000).unwrap();
    assert!((naive[1] - twice.tv_distance_from_uniform()).abs() < 1e-15);
}

mod mapped_laws {
    //! The exact law of an algorithm fed by a biased range mapping, against a brute-force count
    //! over every sequence of words: the algorithm run once per word sequence, each word turned
    //! into an integer by the mapping's own draw (not by its closed-form weights).
    use shuffle_bias::engine::algorithms::{Algorithm, Card, Shuffle};
    use shuffle_bias::engine::mapping::{Mapping, ScriptedWords};
    use shuffle_bias::engine::permutation::{factorial, rank};
    use shuffle_bias::engine::random_source::RandomSource;
    use shuffle_bias::theory::exact::{ChoiceLaw, exact_law_under};

    /// Integers drawn by `mapping` from a script of words.
    struct ScriptedMapping {
        words: ScriptedWords,
        mapping: Mapping,
    }

    impl RandomSource for ScriptedMapping {
        fn below(&mut self, bound: usize) -> usize {
            self.mapping.draw(&mut self.words, bound as u64) as usize
        }
        fn coin(&mut self) -> bool {
            self.below(2) == 1
        }
    }

    /// Counts of each ordering over every sequence of `draws` words of `bits` bits.
    fn brute_force(algorithm: Algorithm, n: usize, mapping: Mapping, bits: u32) -> Vec<u128> {
        let draws = if algorithm == Algorithm::Naive {
            n
        } else {
            n - 1
        };
        let words = 1u64 << bits;
        let mut counts = vec![0u128; factorial(n) as usize];
        let identity: Vec<Card> = (0..n as Card).collect();
        let mut deck = identity.clone();
        let mut scratch = identity.clone();
        let shuffle = Shuffle::from(algorithm);
        for index in 0..words.pow(draws as u32) {
            let script: Vec<u64> = (0..draws)
                .map(|d| (index / words.pow(d as u32)) % words)
                .collect();
            let mut source = ScriptedMapping {
                words: ScriptedWords::new(bits, script),
                mapping,
            };
            deck.copy_from_slice(&identity);
            shuffle.apply(&mut deck, &mut scratch, &mut source);
            assert_eq!(
                source.words.used(),
                draws,
                "one word per draw, no rejection"
            );
            counts[rank(&deck)] += 1;
        }
        counts
    }

    fn assert_law_matches(algorithm: Algorithm, n: usize, mapping: Mapping, bits: u32) {
        let law =
            exact_law_under(algorithm, n, 100_000_000, Some(ChoiceLaw { mapping, bits })).unwrap();
        let fractions = law.exact.expect("exact fractions at this size");
        let counts = brute_force(algorithm, n, mapping, bits);
        let total: u128 = counts.iter().sum();
        for (rank, (&numerator, &count)) in fractions.numerators.iter().zip(&counts).enumerate() {
            // numerator / denominator = count / total, in integers.
            assert_eq!(
                numerator * total,
                count * fractions.denominator,
                "{} n={n} {} W={bits}: ordering {rank}",
                algorithm.name(),
                mapping.name()
            );
        }
    }

    #[test]
    fn fisher_yates_with_modulo_on_bytes_matches_every_word_sequence_on_four_cards() {
        // 2^24 word sequences of three bytes.
        assert_law_matches(Algorithm::FisherYates, 4, Mapping::Modulo, 8);
    }

    #[test]
    fn fisher_yates_with_modulo_and_multiply_match_every_word_sequence_on_five_cards() {
        // Four draws of 6-bit words: 2^24 sequences each.
        assert_law_matches(Algorithm::FisherYates, 5, Mapping::Modulo, 6);
        assert_law_matches(Algorithm::FisherYates, 5, Mapping::Multiply, 6);
    }

    #[test]
    fn naive_and_sattolo_with_modulo_match_every_word_sequence() {
        // Naive draws n times (below n each): 2^20 sequences of 5-bit words; Sattolo n − 1.
        assert_law_matches(Algorithm::Naive, 4, Mapping::Modulo, 5);
        assert_law_matches(Algorithm::Sattolo, 4, Mapping::Modulo, 5);
    }

    #[test]
    fn the_noncentrality_of_modulo_bias_is_exact_even_for_32_bit_words() {
        // Fisher–Yates maps choice paths one-to-one onto orderings, so n!·Σ P(σ)² is the product
        // over the draws below k = 2..n of k·Σ_j p_j², and with 2^W = q·k + r modulo gives r
        // residues (q + 1)/2^W and k − r residues q/2^W: w² = Π_k k·(r(q+1)² + (k−r)q²)/2^2W − 1.
        // At W = 32 this is about 7.6·10^-19, far below what f64 probabilities could resolve.
        use num_bigint::BigUint;
        use shuffle_bias::theory::permutation_statistics::ratio_to_f64;
        for bits in [8u32, 16, 32] {
            let words = BigUint::from(1u8) << bits;
            let mut numerator = BigUint::from(1u8);
            let mut denominator = BigUint::from(1u8);
            for k in 2..=6u32 {
                let q = &words / k;
                let r = &words % k;
                let k_big = BigUint::from(k);
                let q1 = &q + 1u8;
                numerator *= &k_big * (&r * &q1 * &q1 + (&k_big - &r) * &q * &q);
                denominator *= &words * &words;
            }
            let expected = ratio_to_f64(&(&numerator - &denominator), &denominator);
            let law = exact_law_under(
                Algorithm::FisherYates,
                6,
                100_000_000,
                Some(ChoiceLaw {
                    mapping: Mapping::Modulo,
                    bits,
                }),
            )
            .unwrap();
            let w2 = law.noncentrality_per_trial();
            assert!(
                ((w2 - expected) / expected).abs() < 1e-12,
                "W = {bits}: {w2:e} against {expected:e}"
            );
        }
    }

    #[test]
    fn modulo_bias_makes_fisher_yates_non_uniform_and_lemire_keeps_it_uniform() {
        let under = |mapping| {
            exact_law_under(
                Algorithm::FisherYates,
                6,
                100_000_000,
                Some(ChoiceLaw { mapping, bits: 8 }),
            )
            .unwrap()
        };
        let modulo = under(Mapping::Modulo);
        assert!(modulo.tv_distance_from_uniform() > 0.005);
        let lemire = under(Mapping::Lemire);
        assert!(lemire.tv_distance_from_uniform() < 1e-12);
    }
}

#[test]
fn the_shelf_closed_form_is_the_exact_engine_law_of_every_ordering_up_to_six_cards() {
    // DFH Theorem 3.1 against a path walk of the algorithm's own code: every ordering w gets
    // N_m(v(w)) of the (2m)^n choice paths.
    use shuffle_bias::theory::shelf::{shelf_law, valleys};
    for shelves in 1..=3u16 {
        for n in 2..=6 {
            let shuffle = Shuffle::once(Algorithm::Shelf).with_shelves(shelves);
            let exact = exact_law(shuffle, n, u64::MAX).unwrap().exact.unwrap();
            let (numerators, denominator) = shelf_law(n, shelves, 1);
            let denominator: u128 = denominator.try_into().unwrap();
            for_each_in_rank_order(n, |rank, deck| {
                let closed: u128 = numerators[valleys(deck)].clone().try_into().unwrap();
                assert_eq!(
                    exact.numerators[rank] * denominator,
                    closed * exact.denominator,
                    "m={shelves} n={n} {deck:?}"
                );
            });
        }
    }
}

#[test]
fn two_passes_of_m_shelves_are_one_pass_of_two_m_squared_shelves() {
    // The law of two passes, by convolution of the exact one-pass law (and, on four cards, by
    // walking both passes), against the closed form of one pass with 2m² shelves.
    use num_bigint::BigUint;
    use shuffle_bias::theory::shelf::{max_valleys, sequences_per_ordering, valleys};
    for shelves in 1..=3u16 {
        for n in 2..=5 {
            let shuffle = Shuffle::once(Algorithm::Shelf).with_shelves(shelves);
            let one_pass = exact_law(shuffle, n, u64::MAX).unwrap();
            let two = convolve_passes(&one_pass, 2, u64::MAX)
                .unwrap()
                .exact
                .unwrap();
            if n == 4 {
                let walked = walk_paths(shuffle.with_passes(2), n, u64::MAX, 0.0).unwrap();
                assert_same_fractions(&two, &walked.exact.unwrap(), "walked");
            }
            let m = 2 * u32::from(shelves).pow(2);
            let closed: Vec<u128> = (0..=max_valleys(n))
                .map(|v| {
                    sequences_per_ordering(n, &BigUint::from(m), v)
                        .try_into()
                        .unwrap()
                })
                .collect();
            let denominator = (2 * u128::from(m)).pow(n as u32);
            for_each_in_rank_order(n, |rank, deck| {
                assert_eq!(
                    two.numerators[rank] * denominator,
                    closed[valleys(deck)] * two.denominator,
                    "m={shelves} n={n} {deck:?}"
                );
            });
        }
    }
}

#[test]
fn the_riffle_laws_of_descents_and_valleys_are_the_exact_engine_laws() {
    // The walk over packet sequences against the law of every ordering after K riffles, pushed
    // through the statistics, on up to seven cards.
    use shuffle_bias::report::run::MarginalTheory;
    use shuffle_bias::theory::permutation_statistics::{
        Statistic, riffle_descent_law, riffle_valley_law,
    };
    for n in 2..=7 {
        for passes in 1..=3 {
            let shuffle = Shuffle::once(Algorithm::Riffle).with_passes(passes);
            let law = exact_law(shuffle, n, u64::MAX).unwrap();
            let pushed = MarginalTheory::from_law(&law);
            let index = |s: Statistic| Statistic::ALL.iter().position(|&t| t == s).unwrap();
            for (statistic, walked) in [
                (Statistic::Descents, riffle_descent_law(n, passes).unwrap()),
                (Statistic::Valleys, riffle_valley_law(n, passes).unwrap()),
            ] {
                let exact = &pushed.statistics[index(statistic)]
                    .as_ref()
                    .unwrap()
                    .probabilities;
                assert_eq!(
                    exact.len(),
                    walked.probabilities.len(),
                    "{statistic:?} n={n}"
                );
                for (value, (a, b)) in exact.iter().zip(&walked.probabilities).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-12 * a.max(1e-300) + 1e-15,
                        "{statistic:?} n={n} K={passes} value {value}: {a} vs {b}"
                    );
                    assert_eq!(*a == 0.0, *b == 0.0, "impossible values agree");
                }
            }
        }
    }
}

#[test]
fn the_shelf_law_of_the_valleys_is_the_exact_engine_law() {
    use shuffle_bias::report::run::MarginalTheory;
    use shuffle_bias::theory::permutation_statistics::Statistic;
    for shelves in 1..=4u16 {
        for n in 2..=6 {
            let shuffle = Shuffle::once(Algorithm::Shelf).with_shelves(shelves);
            let law = exact_law(shuffle, n, u64::MAX).unwrap();
            let pushed = MarginalTheory::from_law(&law);
            let closed = MarginalTheory::shelf(n, shelves, 1);
            let index = Statistic::ALL
                .iter()
                .position(|&s| s == Statistic::Valleys)
                .unwrap();
            let exact = &pushed.statistics[index].as_ref().unwrap().probabilities;
            let valleys = &closed.statistics[index].as_ref().unwrap().probabilities;
            for (a, b) in exact.iter().zip(valleys) {
                assert!((a - b).abs() <= 1e-12 * a.max(1e-300), "m={shelves} n={n}");
            }
            let identity = closed.identity.unwrap().p;
            assert!((identity - law.probabilities[0]).abs() <= 1e-12 * identity);
        }
    }
}
