//! Tests of the whole-permutation statistics: each exact law against a count over every
//! permutation, and the statistics against their definitions.

use super::*;
use crate::engine::algorithms::{Algorithm, Card};
use crate::engine::permutation::{
    cycle_count, factorial as small_factorial, for_each_in_rank_order,
};
use crate::engine::random_source::{BlockRng, FastSource};
use num_rational::BigRational;
use rand_chacha::ChaCha8Rng;

fn big(values: &[u64]) -> Vec<BigUint> {
    values.iter().map(|&v| BigUint::from(v)).collect()
}

/// Rising sequences the way a magician reads them (Bayer & Diaconis 1992, §1): sweep the
/// deck left to right picking up 0, 1, 2, … in turn; each sweep is one rising sequence.
fn rising_sequences_by_sweeps(deck: &[Card]) -> usize {
    let mut next = 0;
    let mut sweeps = 0;
    while usize::from(next) < deck.len() {
        sweeps += 1;
        for &card in deck {
            if card == next {
                next += 1;
            }
        }
    }
    sweeps
}

/// Each statistic straight from its definition, independently of the module's code.
fn brute_force_value(statistic: Statistic, deck: &[Card]) -> usize {
    match statistic {
        Statistic::FixedPoints => (0..deck.len())
            .filter(|&i| usize::from(deck[i]) == i)
            .count(),
        Statistic::Cycles => cycle_count(deck),
        Statistic::RisingSequences => rising_sequences_by_sweeps(deck),
        Statistic::AdjacentPairs => (1..deck.len())
            .filter(|&i| usize::from(deck[i]) == usize::from(deck[i - 1]) + 1)
            .count(),
        Statistic::Descents => (1..deck.len()).filter(|&i| deck[i] < deck[i - 1]).count(),
        Statistic::Inversions => (0..deck.len())
            .map(|i| (0..i).filter(|&j| deck[j] > deck[i]).count())
            .sum(),
        Statistic::LongestIncreasing => {
            // The O(n²) dynamic programme: best[j] = longest ending at j.
            let mut best = vec![1usize; deck.len()];
            for j in 0..deck.len() {
                for i in 0..j {
                    if deck[i] < deck[j] {
                        best[j] = best[j].max(best[i] + 1);
                    }
                }
            }
            best.into_iter().max().unwrap_or(0)
        }
        Statistic::Footrule => (0..deck.len())
            .map(|i| (i as i64 - i64::from(deck[i])).unsigned_abs() as usize)
            .sum(),
        Statistic::Valleys => (1..deck.len().saturating_sub(1))
            .filter(|&i| deck[i - 1] > deck[i] && deck[i] < deck[i + 1])
            .count(),
        Statistic::Guessing => guessing_by_hand(deck),
        Statistic::ColourChanges => {
            let red = |card: Card| usize::from(card) < deck.len() / 2;
            (1..deck.len())
                .filter(|&i| red(deck[i]) != red(deck[i - 1]))
                .count()
        }
    }
}

/// The guessing game played out with a list of the cards still to come: guess card 0 first,
/// then the closest card still to come above the last one after a rise (or the first card),
/// below it after a fall, and the other way when that side is empty.
fn guessing_by_hand(deck: &[Card]) -> usize {
    let mut to_come: Vec<Card> = (0..deck.len() as Card).collect();
    let mut right = 0;
    let mut history: Vec<Card> = Vec::new();
    for &card in deck {
        let guess = match history.as_slice() {
            [] => 0,
            [.., last] => {
                let rose = match history.as_slice() {
                    [.., before, last] => last > before,
                    _ => true,
                };
                let above = to_come.iter().copied().filter(|c| c > last).min();
                let below = to_come.iter().copied().filter(|c| c < last).max();
                let (first, second) = if rose { (above, below) } else { (below, above) };
                first.or(second).expect("a card is still to come")
            }
        };
        right += usize::from(guess == card);
        to_come.retain(|&c| c != card);
        history.push(card);
    }
    right
}

fn shuffled_deck(n: usize, seed: u64) -> Vec<Card> {
    let mut deck: Vec<Card> = (0..n as Card).collect();
    let mut scratch = vec![0; n];
    let mut source = FastSource::new(ChaCha8Rng::for_block(seed, 0));
    Algorithm::FisherYates.shuffle(&mut deck, &mut scratch, &mut source);
    deck
}

fn mean(law: &[f64]) -> f64 {
    law.iter().enumerate().map(|(v, p)| v as f64 * p).sum()
}

#[test]
fn names_are_kebab_case_and_match_serde() {
    for statistic in Statistic::ALL {
        let json = serde_json::to_string(&statistic).unwrap();
        assert_eq!(json, format!("\"{}\"", statistic.name()));
        assert!(!statistic.definition().is_empty());
    }
}

#[test]
fn values_of_a_hand_worked_deck_follow_the_definitions() {
    // Deck 3 4 0 1 2 5: fixed point 5; cycles (0 3 1 4 2)(5) = 2; card 0 and 1 and 2 read
    // left to right after 3, 4, so rising sequences {0,1,2}, {3,4,5} = 2; kept pairs 3-4,
    // 0-1, 1-2 = 3; one descent (4 > 0); inversions: 3 and 4 each above 0, 1, 2 = 6;
    // longest increasing 0 1 2 5 = 4; footrule 3 + 3 + 2 + 2 + 2 + 0 = 12; one valley (0,
    // between 4 and 1). Guesses: 0 (shown 3); after 3, the nearest above, 4 (right); after the
    // rise to 4, 5 (shown 0); after the fall to 0 nothing is below, so above: 1 (right), then 2
    // (right), then 5 (right): 4 right. Reds 0, 1, 2: black black | red red red | black, two
    // colour changes.
    let deck = [3, 4, 0, 1, 2, 5];
    let mut scratch = [0; 13];
    let expected = [1, 2, 2, 3, 1, 6, 4, 12, 1, 4, 2];
    for (statistic, want) in Statistic::ALL.into_iter().zip(expected) {
        assert_eq!(statistic.value(&deck, &mut scratch), want, "{statistic:?}");
    }
    let all = StatisticValues::of(&deck, &mut scratch);
    assert_eq!(
        all,
        StatisticValues {
            fixed_points: 1,
            cycles: 2,
            rising_sequences: 2,
            adjacent_pairs: 3,
            descents: 1,
            inversions: 6,
            longest_increasing: 4,
            footrule: 12,
            valleys: 1,
            guessing: 4,
            colour_changes: 2,
        }
    );
}

#[test]
fn the_identity_and_the_reversal_take_the_extreme_values() {
    let n = 52;
    let identity: Vec<Card> = (0..n as Card).collect();
    let reversal: Vec<Card> = identity.iter().rev().copied().collect();
    let mut scratch = vec![0; scratch_len(n)];
    let of_identity = StatisticValues::of(&identity, &mut scratch);
    assert_eq!(of_identity.fixed_points, n);
    assert_eq!(of_identity.cycles, n);
    assert_eq!(of_identity.rising_sequences, 1);
    assert_eq!(of_identity.adjacent_pairs, n - 1);
    assert_eq!(of_identity.descents, 0);
    assert_eq!(of_identity.inversions, 0);
    assert_eq!(of_identity.longest_increasing, n);
    assert_eq!(of_identity.footrule, 0);
    let of_reversal = StatisticValues::of(&reversal, &mut scratch);
    assert_eq!(of_reversal.fixed_points, 0);
    assert_eq!(of_reversal.cycles, n / 2);
    assert_eq!(of_reversal.rising_sequences, n);
    assert_eq!(of_reversal.adjacent_pairs, 0);
    assert_eq!(of_reversal.descents, n - 1);
    assert_eq!(of_reversal.inversions, n * (n - 1) / 2);
    assert_eq!(of_reversal.longest_increasing, 1);
    assert_eq!(of_reversal.footrule, n * n / 2);
}

#[test]
fn one_pass_and_single_values_agree_with_the_definitions_on_random_large_decks() {
    for (seed, n) in [(1, 52), (2, 53), (5, 100), (6, 300), (3, 1000), (4, 5000)] {
        let deck = shuffled_deck(n, seed);
        let mut scratch = vec![7; scratch_len(n)];
        let all = StatisticValues::of(&deck, &mut scratch);
        for statistic in Statistic::ALL {
            let want = brute_force_value(statistic, &deck);
            assert_eq!(
                statistic.value(&deck, &mut scratch),
                want,
                "{statistic:?} n={n}"
            );
            // One pass computes what is tallied at this size (the rest is left 0).
            if statistic.tallied_at(n) {
                assert_eq!(all.get(statistic), want, "{statistic:?} n={n}");
            } else if matches!(
                statistic,
                Statistic::Inversions | Statistic::LongestIncreasing | Statistic::Footrule
            ) {
                assert_eq!(all.get(statistic), 0, "{statistic:?} n={n}");
            }
            assert!(want <= statistic.max_value(n));
        }
    }
}

#[test]
fn exact_counts_match_brute_force_enumeration_up_to_eight_cards() {
    for n in 1..=8 {
        let mut tallies: Vec<Vec<u64>> = Statistic::ALL
            .iter()
            .map(|s| vec![0; s.max_value(n) + 1])
            .collect();
        let mut scratch = vec![0; scratch_len(n)];
        for_each_in_rank_order(n, |_, deck| {
            let all = StatisticValues::of(deck, &mut scratch);
            for (statistic, tally) in Statistic::ALL.iter().zip(&mut tallies) {
                let value = brute_force_value(*statistic, deck);
                assert_eq!(all.get(*statistic), value);
                tally[value] += 1;
            }
        });
        for (statistic, tally) in Statistic::ALL.iter().zip(&tallies) {
            assert_eq!(statistic.exact_counts(n), big(tally), "{statistic:?} n={n}");
        }
    }
}

#[test]
fn counts_match_published_rows() {
    // Derangements, OEIS A000166.
    assert_eq!(
        derangements(10),
        big(&[1, 0, 1, 2, 9, 44, 265, 1854, 14833, 133496, 1334961])
    );
    // Rencontres numbers, n = 5 (OEIS A008290): 44 45 20 10 0 1.
    assert_eq!(
        Statistic::FixedPoints.exact_counts(5),
        big(&[44, 45, 20, 10, 0, 1])
    );
    // Unsigned Stirling numbers of the first kind c(5, k), OEIS A132393.
    assert_eq!(
        Statistic::Cycles.exact_counts(5),
        big(&[0, 24, 50, 35, 10, 1])
    );
    // c(10, 1) = 9!, c(10, 2) = 1 026 576 (OEIS A000254).
    let cycles_10 = Statistic::Cycles.exact_counts(10);
    assert_eq!(cycles_10[1], BigUint::from(362_880u32));
    assert_eq!(cycles_10[2], BigUint::from(1_026_576u32));
    // Eulerian numbers A(5, ·) = 1 26 66 26 1, OEIS A008292; index = rising sequences.
    assert_eq!(
        Statistic::RisingSequences.exact_counts(5),
        big(&[0, 1, 26, 66, 26, 1])
    );
    assert_eq!(
        Statistic::RisingSequences.exact_counts(10),
        big(&[
            0, 1, 1013, 47840, 455_192, 1_310_354, 1_310_354, 455_192, 47840, 1013, 1
        ])
    );
    // Descents: Eulerian numbers ⟨5, d⟩ = 1 26 66 26 1 (OEIS A008292), d = 0..4.
    assert_eq!(
        Statistic::Descents.exact_counts(5),
        big(&[1, 26, 66, 26, 1])
    );
    // Inversions: Mahonian numbers, n = 4 (OEIS A008302): 1 3 5 6 5 3 1.
    assert_eq!(
        Statistic::Inversions.exact_counts(4),
        big(&[1, 3, 5, 6, 5, 3, 1])
    );
    // Successions, OEIS A010027 (rows listed there from k = n−1 down to 0).
    assert_eq!(
        Statistic::AdjacentPairs.exact_counts(5),
        big(&[53, 44, 18, 4, 1])
    );
    assert_eq!(
        Statistic::AdjacentPairs.exact_counts(10),
        big(&[
            1_468_457, 1_334_961, 600_732, 177_996, 38934, 6678, 924, 108, 9, 1
        ])
    );
}

#[test]
fn counts_sum_to_n_factorial_exactly_for_52_and_200_cards() {
    for n in [52, 200] {
        let total = big_factorial(n);
        for statistic in Statistic::tallied(n) {
            let counts = statistic.exact_counts(n);
            assert_eq!(counts.len(), statistic.max_value(n) + 1);
            let sum: BigUint = counts.iter().sum();
            assert_eq!(sum, total, "{statistic:?} n={n}");
        }
    }
}

#[test]
fn law_means_match_closed_forms_for_52_and_1000_cards() {
    for n in [52usize, 1000] {
        let harmonic: f64 = (1..=n).map(|i| 1.0 / i as f64).sum();
        let nf = n as f64;
        let expected = [
            1.0,
            harmonic,
            (nf + 1.0) / 2.0,
            (nf - 1.0) / nf,
            (nf - 1.0) / 2.0,
            nf * (nf - 1.0) / 4.0,
            f64::NAN, // no closed form; tested against brute force and published rows
            (nf * nf - 1.0) / 3.0,
        ];
        for (statistic, want) in Statistic::ALL.into_iter().zip(expected) {
            if !statistic.tallied_at(n) || want.is_nan() {
                continue;
            }
            let law = statistic.uniform_law(n);
            let total: f64 = law.iter().sum();
            assert!(
                (total - 1.0).abs() < 1e-12,
                "{statistic:?} n={n} sum {total}"
            );
            let got = mean(&law);
            assert!(
                ((got - want) / want).abs() < 1e-9,
                "{statistic:?} n={n}: mean {got}, closed form {want}"
            );
        }
    }
}

#[test]
fn uniform_laws_keep_tiny_tails_and_impossible_values_exact() {
    let n = 52;
    // P(52 fixed points) = 1/52! ≈ 1.24e−68, P(51) = 0 exactly.
    let fixed = Statistic::FixedPoints.uniform_law(n);
    let one_over = 1.0 / 8.065_817_517_094_388e67;
    assert!((fixed[52] / one_over - 1.0).abs() < 1e-15);
    assert_eq!(fixed[51], 0.0);
    assert_eq!(Statistic::Cycles.uniform_law(n)[0], 0.0);
    assert_eq!(Statistic::RisingSequences.uniform_law(n)[0], 0.0);
    // At n = 1000, P(1 rising sequence) = 1/1000! ≈ 10^−2568 underflows to 0, while
    // P(2 rising sequences) = (2^1000 − 1001)/1000! ≈ 10^−2267 too; the first value above
    // 2^−1075 must be there and positive.
    let rising = Statistic::RisingSequences.uniform_law(1000);
    assert_eq!(rising[1], 0.0);
    assert!(rising.iter().any(|&p| p > 0.0 && p < 1e-300));
}

#[test]
fn value_laws_keep_the_logarithm_where_the_f64_underflows() {
    // P(1 rising sequence) = 1/1000!: 0 as an f64, −ln 1000! as a log (summed here term by
    // term, independently of the big-integer route); no permutation has 0 rising sequences.
    let law = Statistic::RisingSequences.uniform_value_law(1000);
    let ln_factorial: f64 = (2..=1000).map(|i| (i as f64).ln()).sum();
    assert_eq!(law.probabilities[1], 0.0);
    assert!((law.ln_probabilities[1] + ln_factorial).abs() < 1e-9);
    assert!(law.get(0).is_impossible());
    assert!(!law.get(1).is_impossible());
    assert!(law.get(1001).is_impossible(), "past the end is impossible");
    // Fixed points: n − 1 is impossible, n (the identity) merely tiny.
    let fixed = Statistic::FixedPoints.uniform_value_law(52);
    assert!(fixed.get(51).is_impossible());
    let ln_52: f64 = (2..=52).map(|i| (i as f64).ln()).sum();
    assert!((fixed.ln_probabilities[52] + ln_52).abs() < 1e-12);
    assert_eq!(fixed.probabilities, Statistic::FixedPoints.uniform_law(52));
    // Where nothing underflows the log is the log of the f64.
    for (p, ln) in fixed.probabilities.iter().zip(&fixed.ln_probabilities) {
        if *p > 1e-300 {
            assert!((p.ln() - ln).abs() < 1e-12 * ln.abs().max(1.0), "{p} {ln}");
        }
    }
}

#[test]
fn the_identity_after_seven_riffles_of_200_cards_keeps_its_logarithm() {
    // P(identity) = P(R = 1) = C(2^7 + 199, 200)/2^1400 (Bayer & Diaconis 1992), and
    // ln C(327, 200) = Σ_{i=1..127} ln((200 + i)/i), summed independently: about
    // 10^−327.9, below f64's range.
    let law = riffle_rising_value_law(200, 7);
    let ln_choose: f64 = (1..=127).map(|i| ((200 + i) as f64 / i as f64).ln()).sum();
    let expected = ln_choose - 1400.0 * std::f64::consts::LN_2;
    assert!(expected < -700.0);
    assert!(law.probabilities[1] < f64::MIN_POSITIVE);
    assert!((law.ln_probabilities[1] - expected).abs() < 1e-9);
    // An a-shuffle has at most a = 128 rising sequences: 129 and up are impossible.
    assert!(!law.get(128).is_impossible());
    assert!(law.get(129).is_impossible());
    assert_eq!(law.probabilities, riffle_rising_law(200, 7));
}

#[test]
fn ratio_to_ln_matches_the_log_of_the_f64_ratio() {
    let third = ratio_to_ln(&BigUint::from(1u8), &BigUint::from(3u8));
    assert!((third + 3f64.ln()).abs() < 1e-15);
    // 2^300 / 3^150: both beyond 64 bits.
    let (a, b) = (BigUint::one() << 300u32, BigUint::from(3u8).pow(150));
    let expected = 300.0 * std::f64::consts::LN_2 - 150.0 * 3f64.ln();
    assert!((ratio_to_ln(&a, &b) - expected).abs() < 1e-12);
    assert_eq!(
        ratio_to_ln(&BigUint::zero(), &BigUint::from(7u8)),
        f64::NEG_INFINITY
    );
}

#[test]
fn ratio_to_f64_is_correctly_rounded_for_small_operands() {
    // For integers below 2^53 both conversions are exact and IEEE division rounds correctly.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..10_000 {
        let a = next() >> (11 + next() % 53);
        let b = (next() >> (11 + next() % 53)).max(1);
        let got = ratio_to_f64(&BigUint::from(a), &BigUint::from(b));
        assert_eq!(got, a as f64 / b as f64, "{a}/{b}");
    }
}

#[test]
fn ratio_to_f64_agrees_with_num_rational_on_huge_and_subnormal_ratios() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..3000 {
        let mut numerator = BigUint::from(next() | 1);
        let mut denominator = BigUint::from(next() | 1);
        numerator <<= next() % 1200;
        denominator <<= next() % 2300;
        numerator += next() % 1000;
        let reference = BigRational::new(numerator.clone().into(), denominator.clone().into());
        let want = reference.to_f64().unwrap();
        assert_eq!(
            ratio_to_f64(&numerator, &denominator),
            want,
            "{numerator}/{denominator}"
        );
    }
}

#[test]
fn ratio_to_f64_rounds_ties_to_even_and_underflows_at_half_the_least_subnormal() {
    let one = BigUint::one();
    // 1 + 2^−53 is halfway between 1 and 1 + 2^−52: ties to 1 (even).
    let halfway = (BigUint::one() << 53u32) + 1u32;
    assert_eq!(ratio_to_f64(&halfway, &(BigUint::one() << 53u32)), 1.0);
    // 1 + 3·2^−53 is halfway between 1 + 2^−52 and 1 + 2^−51: ties to the even 1 + 2^−51.
    let halfway = (BigUint::one() << 53u32) + 3u32;
    assert_eq!(
        ratio_to_f64(&halfway, &(BigUint::one() << 53u32)),
        1.0 + f64::EPSILON * 2.0
    );
    // 2^−1074 is the least subnormal; 2^−1075 (a tie) rounds to 0, a hair more rounds up.
    assert_eq!(
        ratio_to_f64(&one, &(BigUint::one() << 1074u32)),
        f64::from_bits(1)
    );
    assert_eq!(ratio_to_f64(&one, &(BigUint::one() << 1075u32)), 0.0);
    let just_above = (BigUint::one() << 100u32) + 1u32;
    assert_eq!(
        ratio_to_f64(&just_above, &(BigUint::one() << 1175u32)),
        f64::from_bits(1)
    );
    assert_eq!(ratio_to_f64(&BigUint::zero(), &one), 0.0);
    assert_eq!(
        ratio_to_f64(&(BigUint::one() << 1024u32), &one),
        f64::INFINITY
    );
    assert_eq!(
        ratio_to_f64(&(BigUint::one() << 1023u32), &one),
        2f64.powi(1023)
    );
}

fn assert_pooling_invariants(expected: &[f64], min: f64) {
    let bins = pool_bins(expected, min);
    assert!(!bins.is_empty());
    // A partition of 0..len into consecutive ranges.
    assert_eq!(bins[0].start, 0);
    assert_eq!(bins.last().unwrap().end, expected.len());
    for pair in bins.windows(2) {
        assert_eq!(pair[0].end, pair[1].start);
    }
    let sums: Vec<f64> = bins
        .iter()
        .map(|b| expected[b.clone()].iter().sum())
        .collect();
    if bins.len() > 1 {
        for (bin, sum) in bins.iter().zip(&sums) {
            assert!(!bin.is_empty());
            assert!(*sum >= min * (1.0 - 1e-12) && *sum > 0.0, "{bin:?}: {sum}");
        }
    } else {
        // One bin only when no split into two large enough cells exists.
        let total: f64 = expected.iter().sum();
        let mut prefix = 0.0;
        for (i, &e) in expected.iter().enumerate() {
            prefix += e;
            let suffix = total - prefix;
            let splittable = prefix >= min && prefix > 0.0 && suffix >= min && suffix > 0.0;
            assert!(
                !splittable || i + 1 == expected.len(),
                "could split after {i}: {prefix} | {suffix}"
            );
        }
    }
}

#[test]
fn pooling_partitions_and_reaches_the_minimum_on_every_law() {
    for n in [2, 3, 5, 8, 52, 200] {
        for statistic in Statistic::tallied(n) {
            let law = statistic.uniform_law(n);
            for trials in [1.0, 10.0, 100.0, 1e4, 1e6, 1e9] {
                let expected: Vec<f64> = law.iter().map(|p| p * trials).collect();
                for min in [0.0, 1.0, 5.0, 20.0] {
                    assert_pooling_invariants(&expected, min);
                }
            }
        }
    }
}

#[test]
fn pooling_partitions_and_reaches_the_minimum_on_arbitrary_histograms() {
    let mut state = 0x1234_5678_9ABC_DEF1u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..5000 {
        let len = (next() % 30) as usize;
        let expected: Vec<f64> = (0..len)
            .map(|_| match next() % 4 {
                0 => 0.0,
                1 => (next() % 100) as f64 / 10.0,
                _ => (next() % 40) as f64,
            })
            .collect();
        assert_pooling_invariants(&expected, 5.0);
    }
}

#[test]
fn pooling_merges_both_tails_and_zero_cells_inwards() {
    // Value 0 is impossible, values 1..=2 and 7..=8 are sparse; 3..=6 stand alone.
    let expected = [0.0, 1.0, 4.5, 20.0, 30.0, 30.0, 10.0, 3.0, 2.5];
    assert_eq!(
        pool_bins(&expected, 5.0),
        vec![0..3, 3..4, 4..5, 5..6, 6..7, 7..9]
    );
    // The right tail grows inwards until it is large enough, even past a large cell.
    let expected = [0.0, 1.0, 4.5, 20.0, 30.0, 30.0, 10.0, 3.0, 1.5];
    assert_eq!(
        pool_bins(&expected, 5.0),
        vec![0..3, 3..4, 4..5, 5..6, 6..9]
    );
    // A small interior cell is pooled with its right neighbour.
    let expected = [6.0, 2.0, 4.0, 9.0, 6.0];
    assert_eq!(pool_bins(&expected, 5.0), vec![0..1, 1..3, 3..4, 4..5]);
    // An interior remainder too small to stand alone joins the right tail.
    let expected = [6.0, 9.0, 2.0, 6.0];
    assert_eq!(pool_bins(&expected, 5.0), vec![0..1, 1..2, 2..4]);
    // Too little in total for two cells: one cell, nothing to test.
    assert_eq!(pool_bins(&[1.0, 3.0, 4.0, 1.0], 5.0), vec![0..4]);
    assert_eq!(pool_bins(&[], 5.0), vec![0..0]);
    assert_eq!(pool_bins(&[0.0, 0.0], 0.0), vec![0..2]);
    // With no minimum, only the zero cells are pooled.
    assert_eq!(pool_bins(&[0.0, 1.0, 0.0, 2.0, 0.0], 0.0), vec![0..2, 2..5]);
}

#[test]
fn riffle_law_sums_to_one_and_starts_from_the_sorted_deck() {
    assert_eq!(riffle_rising_law(52, 0)[1], 1.0);
    for (n, passes) in [(2, 1), (5, 3), (52, 1), (52, 7), (52, 30), (1000, 12)] {
        let law = riffle_rising_law(n, passes);
        assert_eq!(law.len(), n + 1);
        let total: f64 = law.iter().sum();
        assert!((total - 1.0).abs() < 1e-12, "n={n} K={passes}: {total}");
        // At most 2^K rising sequences after K riffles.
        let most = 1usize.checked_shl(passes).unwrap_or(usize::MAX);
        assert!(law.iter().skip(most + 1).all(|&p| p == 0.0));
    }
    // One riffle: P(R = 1) = (n + 1)/2^n, P(R = 2) = 1 − that.
    let law = riffle_rising_law(52, 1);
    assert_eq!(law[1], 53.0 / 2f64.powi(52));
    assert_eq!(law[2], 1.0 - 53.0 / 2f64.powi(52));
}

#[test]
fn riffle_law_tends_to_the_uniform_law() {
    let uniform = Statistic::RisingSequences.uniform_law(52);
    let riffled = riffle_rising_law(52, 80);
    for (r, (u, p)) in uniform.iter().zip(&riffled).enumerate() {
        assert!((u - p).abs() <= 1e-13 * u, "r={r}: {u} vs {p}");
    }
}

#[test]
fn riffle_distance_matches_bayer_and_diaconis_table_for_52_cards() {
    // Bayer & Diaconis 1992, Table 1 (three decimals): K = 1..10.
    let published = [
        1.000, 1.000, 1.000, 1.000, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043,
    ];
    for (k, want) in (1..=10).zip(published) {
        let got = riffle_tv_distance(52, k);
        assert!(
            (got - want).abs() <= 0.0005 + 1e-12,
            "K={k}: computed {got}, published {want}"
        );
    }
    assert_eq!(riffle_passes_needed(52, 0.5), 7);
    assert_eq!(riffle_passes_needed(52, 0.1), 9);
    assert_eq!(riffle_passes_needed(52, 0.05), 10);
    assert_eq!(riffle_passes_needed(52, 1.0), 0);
}

#[test]
fn riffle_distance_matches_a_sum_over_every_ordering() {
    for n in 1..=7 {
        for passes in 0..=5u32 {
            let a = 1u64 << passes;
            let scale = (a as f64).powi(n as i32);
            let uniform = 1.0 / small_factorial(n) as f64;
            let mut distance = 0.0;
            for_each_in_rank_order(n, |_, deck| {
                let r = rising_sequences_by_sweeps(deck) as u64;
                // C(a + n − r, n), zero when a + n − r < n.
                let ways = if a >= r {
                    (1..=n as u64).fold(1u64, |c, i| c * (a - r + i) / i)
                } else {
                    0
                };
                distance += (ways as f64 / scale - uniform).abs();
            });
            distance /= 2.0;
            let got = riffle_tv_distance(n, passes);
            assert!(
                (got - distance).abs() <= 1e-12,
                "n={n} K={passes}: {got} vs {distance}"
            );
        }
    }
}

/// The exact law of an a-shuffle, by enumerating all a^n equally likely label sequences
/// (Bayer & Diaconis 1992, §2: label positions with iid uniform digits 0..a; packet j holds
/// as many cards as positions labelled j, cut from the top in order, and position p takes the
/// next card of packet label[p]). Returns how many sequences give each ordering, by rank.
fn a_shuffle_ways_by_enumeration(n: usize, a: usize) -> Vec<u64> {
    let mut ways = vec![0u64; small_factorial(n) as usize];
    let mut labels = vec![0usize; n];
    let mut deck = vec![0 as Card; n];
    loop {
        let mut next_card = vec![0usize; a];
        let mut start = 0;
        for (packet, next) in next_card.iter_mut().enumerate() {
            *next = start;
            start += labels.iter().filter(|&&l| l == packet).count();
        }
        for (position, &label) in labels.iter().enumerate() {
            deck[position] = next_card[label] as Card;
            next_card[label] += 1;
        }
        ways[crate::engine::permutation::rank(&deck)] += 1;
        // Odometer step over {0..a}^n.
        let Some(digit) = labels.iter().rposition(|&l| l + 1 < a) else {
            return ways;
        };
        labels[digit] += 1;
        labels[digit + 1..].fill(0);
    }
}

#[test]
fn riffle_formula_matches_enumerated_a_shuffles() {
    for (n, passes) in [(3, 1), (4, 1), (4, 2), (5, 2), (5, 3), (6, 2)] {
        let a = 1usize << passes;
        let ways = a_shuffle_ways_by_enumeration(n, a);
        let formula = riffle_ways(n, passes);
        let mut by_r = vec![0.0; n + 1];
        for_each_in_rank_order(n, |rank, deck| {
            let r = rising_sequences_by_sweeps(deck);
            assert_eq!(
                BigUint::from(ways[rank]),
                formula[r],
                "n={n} a={a} rank {rank}"
            );
            by_r[r] += ways[rank] as f64;
        });
        let scale = (a as f64).powi(n as i32);
        let law = riffle_rising_law(n, passes);
        for (r, count) in by_r.iter().enumerate() {
            assert!(
                (count / scale - law[r]).abs() < 1e-15,
                "n={n} K={passes} r={r}"
            );
        }
        let uniform = 1.0 / small_factorial(n) as f64;
        let distance: f64 = ways
            .iter()
            .map(|&w| (w as f64 / scale - uniform).abs())
            .sum::<f64>()
            / 2.0;
        assert!((riffle_tv_distance(n, passes) - distance).abs() < 1e-13);
    }
}

#[test]
fn passes_needed_is_the_first_pass_below_the_threshold() {
    for n in [2, 5, 13, 52] {
        let distances: Vec<f64> = (0..=40).map(|k| riffle_tv_distance(n, k)).collect();
        for pair in distances.windows(2) {
            assert!(pair[1] <= pair[0], "n={n}: distance went up");
        }
        for threshold in [0.9, 0.5, 0.25, 0.01, 1e-6] {
            let first = distances.iter().position(|&d| d < threshold).unwrap() as u32;
            assert_eq!(
                riffle_passes_needed(n, threshold),
                first,
                "n={n} t={threshold}"
            );
        }
    }
    // A threshold far below f64's usual range still terminates (doubling, then bisection).
    let passes = riffle_passes_needed(52, 1e-300);
    assert!(riffle_tv_distance(52, passes) < 1e-300);
    assert!(riffle_tv_distance(52, passes - 1) >= 1e-300);
}

#[test]
fn the_guessing_game_scores_decks_of_any_size_the_same_way() {
    // The one-word walk (up to 64 cards) and the multi-word one (any deck) against the game
    // played out by hand, on fair decks, the start order and its reverse.
    for n in [1, 2, 3, 7, 52, 63, 64, 65, 130, 1000] {
        for seed in 0..4 {
            let deck = shuffled_deck(n, seed);
            let want = guessing_by_hand(&deck);
            assert_eq!(crate::engine::statistics::guessing_score(&deck), want, "n={n}");
            if n <= 64 {
                assert_eq!(crate::engine::statistics::guessing_score_small(&deck), want);
            }
        }
        let start: Vec<Card> = (0..n as Card).collect();
        assert_eq!(crate::engine::statistics::guessing_score(&start), n, "the start, n={n}");
        let reverse: Vec<Card> = start.iter().rev().copied().collect();
        assert_eq!(
            crate::engine::statistics::guessing_score(&reverse),
            guessing_by_hand(&reverse),
            "the reverse, n={n}"
        );
    }
}

#[test]
fn the_guessing_game_against_a_fair_deck_is_the_law_of_independent_one_in_k_chances() {
    // Independently of the Stirling numbers: the law of Σ_k Bernoulli(1/k), k = 1 … n, by
    // convolution in exact fractions, is the law the module gives (mean H_n; 4.5380 at 52).
    for n in 1..=12usize {
        let mut law = vec![BigRational::from_integer(1.into())];
        for k in 1..=n {
            let hit = BigRational::new(1.into(), (k as u64).into());
            let miss = BigRational::from_integer(1.into()) - &hit;
            let mut next = vec![BigRational::from_integer(0.into()); law.len() + 1];
            for (value, p) in law.iter().enumerate() {
                next[value] += p * &miss;
                next[value + 1] += p * &hit;
            }
            law = next;
        }
        let total = BigRational::from_integer(big_factorial(n).into());
        let counts = Statistic::Guessing.exact_counts(n);
        assert_eq!(counts.len(), law.len());
        for (count, p) in counts.iter().zip(&law) {
            assert_eq!(BigRational::from_integer(count.clone().into()), p * &total, "n={n}");
        }
    }
    let harmonic_52: f64 = (1..=52).map(|k| 1.0 / k as f64).sum();
    assert!((mean(&Statistic::Guessing.uniform_law(52)) - harmonic_52).abs() < 1e-12);
    assert!((harmonic_52 - 4.5380).abs() < 1e-4);
}

#[test]
fn the_colour_changes_of_52_cards_have_the_runs_law_of_26_reds_and_26_blacks() {
    // Mean number of runs of r reds and b blacks in random order: 1 + 2rb/(r + b) (Wald &
    // Wolfowitz 1940): 27 runs, so 26 changes, for 26 and 26; 2 · 13 · 14 / 27 + 1 for 13 and 14.
    let law = Statistic::ColourChanges.uniform_law(52);
    assert!((mean(&law) - 26.0).abs() < 1e-9);
    let law = Statistic::ColourChanges.uniform_law(27);
    assert!((mean(&law) - 2.0 * 13.0 * 14.0 / 27.0).abs() < 1e-9);
    assert_eq!(Statistic::ColourChanges.max_value(27), 26);
    assert_eq!(Statistic::ColourChanges.max_value(52), 51);
}

#[test]
fn laws_prepared_on_a_thread_are_those_computed_in_place() {
    // The thread and this one ask for the same laws at about the same time: whichever comes
    // second waits for the first's values, and either way they are compute_counts' own.
    let n = 40;
    prepare_exact_counts(n);
    for statistic in Statistic::tallied(n) {
        assert_eq!(
            statistic.exact_counts(n),
            statistic.compute_counts(n),
            "{}",
            statistic.name()
        );
    }
}
