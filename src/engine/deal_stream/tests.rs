//! Tests of the deal-stream accumulator: its counts and ends against plain counts of the deals,
//! block by block and joined.

use super::repeats::{HASH_MULTIPLIERS, count_two_in_parallel, mix};
use super::*;

fn options(deck: usize, dealt: usize) -> DealStreamOptions {
    DealStreamOptions {
        deck,
        dealt,
        repeats: RepeatSource::Fingerprints { limit: 1000 },
        compositions: true,
    }
}

#[test]
fn consecutive_deals_are_paired_and_counted() {
    let mut stream = DealStream::new(options(3, 3));
    for deal in [[0, 1, 2], [0, 2, 1], [0, 1, 2], [0, 1, 2]] {
        stream.add(&deal);
    }
    let tally = stream.finish();
    assert_eq!(tally.deals, 4);
    assert_eq!(tally.pairs, 3);
    // Matches: (012, 021) → 1, (021, 012) → 1, (012, 012) → 3.
    assert_eq!(tally.matches, vec![0, 2, 0, 1]);
    // Slot 0 always shows card 0 → 0.
    assert_eq!(tally.slots[0], 3);
    // [0,1,2] three times: C(3,2) = 3 pairs; 2 distinct.
    assert_eq!(
        tally.repeats,
        Repeats::Counted {
            distinct: 2,
            repeated_pairs: 3
        }
    );
    // Compositions: the swap of cards 1 and 2 twice (rank 1), the identity once.
    let compositions = tally.compositions.unwrap();
    assert_eq!(compositions[0], 1);
    assert_eq!(compositions[1], 2);
}

#[test]
fn blocks_in_any_order_give_the_pairs_of_the_whole_stream() {
    let deals: Vec<[Card; 4]> = (0..12u16)
        .map(|i| {
            let mut d = [0, 1, 2, 3];
            d.rotate_left((i % 4) as usize);
            if i % 3 == 0 {
                d.swap(0, 1);
            }
            d
        })
        .collect();
    let mut whole = DealStream::new(options(4, 4));
    for deal in &deals {
        whole.add(deal);
    }
    // Blocks of 4 deals taken by two workers in the order 2, 0 / 1.
    let mut first = DealStream::new(options(4, 4));
    let mut second = DealStream::new(options(4, 4));
    for (worker, block) in [(0, 2u64), (0, 0), (1, 1)] {
        let stream = if worker == 0 { &mut first } else { &mut second };
        stream.start_block(block);
        for deal in &deals[block as usize * 4..block as usize * 4 + 4] {
            stream.add(deal);
        }
        stream.end_block(true);
    }
    first.merge(second);
    let (mut blocked, mut whole) = (first.finish(), whole.finish());
    // What is kept for a later merge differs (block ends, one fingerprint list per worker).
    for tally in [&mut blocked, &mut whole] {
        tally.ends.clear();
        tally.fingerprints.clear();
    }
    assert_eq!(blocked, whole);
}

#[test]
fn past_the_limit_the_deals_are_sampled_by_value_not_dropped() {
    // Regression (issue #32): past the limit the fingerprints were dropped and the test
    // skipped. Three copies of one deck pass a limit of 2: the level rises until that deck's
    // value leaves the sample, and all three copies leave together.
    let mut stream = DealStream::new(DealStreamOptions {
        repeats: RepeatSource::Fingerprints { limit: 2 },
        ..options(3, 3)
    });
    for _ in 0..3 {
        stream.add(&[0, 1, 2]);
    }
    let print = stream.fingerprint(&[0, 1, 2]);
    let Repeats::Sampled {
        distinct,
        repeated_pairs,
        level,
        kept,
    } = stream.finish().repeats
    else {
        panic!("not sampled")
    };
    assert_eq!((distinct, repeated_pairs, kept), (0, 0, 0));
    assert!(sampled_at(print, level - 1) && !sampled_at(print, level));
}

/// `count` deals of `deck` cards drawn (by a fixed LCG) from `sources` distinct decks, so that
/// decks repeat; the decks are rotations and swaps of the identity.
fn repeating_deals(deck: usize, sources: u64, count: usize) -> Vec<Vec<Card>> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..count)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let which = (state >> 33) % sources;
            let mut deal: Vec<Card> = (0..deck as Card).collect();
            deal.rotate_left(which as usize % deck);
            let (a, b) = ((which / deck as u64) as usize % deck, deck - 1);
            deal.swap(a, b);
            deal.swap(0, (which as usize / (deck * deck)) % deck);
            deal
        })
        .collect()
}

/// Distinct values and repeated pairs among `prints`, by brute force: each value's copies.
fn brute_force_repeats(prints: &[u128]) -> (u64, u64) {
    let mut copies: std::collections::HashMap<u128, u64> = std::collections::HashMap::new();
    for &print in prints {
        *copies.entry(print).or_default() += 1;
    }
    let pairs = copies.values().map(|&c| c * (c - 1) / 2).sum();
    (copies.len() as u64, pairs)
}

#[test]
fn a_sampled_stream_counts_exactly_the_repeats_of_the_sampled_values() {
    // 52 cards (hashed fingerprints) and 8 cards (packed), each fed deal by deal and in
    // batches: the level reached is the lowest that keeps at most the cap, and the counts are
    // those of the deals whose value is sampled at it, found by brute force.
    for (deck, sources) in [(52, 600), (8, 300)] {
        let deals = repeating_deals(deck, sources, 3000);
        for batched in [false, true] {
            let options = DealStreamOptions {
                deck,
                dealt: deck,
                repeats: RepeatSource::Fingerprints { limit: 200 },
                compositions: false,
            };
            let mut stream = DealStream::new(options);
            let prints: Vec<u128> = deals.iter().map(|d| stream.fingerprint(d)).collect();
            if batched {
                for chunk in deals.chunks(64) {
                    stream.add_deals(&chunk.concat());
                }
            } else {
                for deal in &deals {
                    stream.add(deal);
                }
            }
            let Repeats::Sampled {
                distinct,
                repeated_pairs,
                level,
                kept,
            } = stream.finish().repeats
            else {
                panic!("{deck} cards: not sampled")
            };
            let at = |level: u32| -> Vec<u128> {
                prints
                    .iter()
                    .copied()
                    .filter(|&p| sampled_at(p, level))
                    .collect()
            };
            assert!(at(level - 1).len() > 200, "{deck} cards: level {level} not the lowest");
            assert!(at(level).len() <= 200);
            assert_eq!(kept, at(level).len() as u64);
            assert_eq!((distinct, repeated_pairs), brute_force_repeats(&at(level)));
            assert!(repeated_pairs > 0, "{deck} cards: the sample has repeats to count");
        }
    }
}

#[test]
fn parts_sampled_at_different_levels_merge_to_the_sample_of_one_stream() {
    // Three workers with unequal shares (each capped at the limit) reach different levels;
    // merged, they give the counts of one stream of all the deals under the same cap.
    let deals = repeating_deals(52, 500, 2400);
    let options = DealStreamOptions {
        deck: 52,
        dealt: 52,
        repeats: RepeatSource::Fingerprints { limit: 150 },
        compositions: false,
    };
    let mut whole = DealStream::new(options);
    for deal in &deals {
        whole.add(deal);
    }
    let whole = whole.finish().repeats;
    let mut parts: Vec<DealStream> = Vec::new();
    let mut levels = Vec::new();
    for range in [0..200, 200..500, 500..2400] {
        let mut part = DealStream::new(options);
        for deal in &deals[range] {
            part.add(deal);
        }
        part.sort_fingerprints();
        levels.push(part.level);
        parts.push(part);
    }
    assert!(levels[0] < levels[2], "the parts' levels differ: {levels:?}");
    // Merged in any order.
    for order in [[0, 1, 2], [2, 0, 1]] {
        let mut merged = DealStream::new(options);
        for &i in &order {
            merged.merge(parts[i].clone());
        }
        assert_eq!(merged.finish().repeats, whole);
    }
    assert!(matches!(whole, Repeats::Sampled { repeated_pairs, .. } if repeated_pairs > 0));
}

#[test]
fn large_decks_are_hashed_and_distinct_decks_stay_distinct() {
    let mut stream = DealStream::new(options(52, 52));
    let identity: Vec<Card> = (0..52).collect();
    let mut reversed = identity.clone();
    reversed.reverse();
    // 104 distinct decks (the rotations of two orders), then the last one again.
    for base in [&identity, &reversed] {
        for shift in 0..52 {
            let mut deal = base.clone();
            deal.rotate_left(shift);
            stream.add(&deal);
        }
    }
    let mut last = reversed.clone();
    last.rotate_left(51);
    stream.add(&last);
    let tally = stream.finish();
    assert_eq!(
        tally.repeats,
        Repeats::Counted {
            distinct: 104,
            repeated_pairs: 1
        }
    );
    assert!(tally.compositions.is_none());
    // 52 cards: one group per card.
    assert_eq!(tally.groups, 52);
    assert_eq!(tally.slots.len(), 52 * 52 * 52);
}

#[test]
fn slot_counts_pass_the_16_bit_range_without_overflowing() {
    // 70,000 identical deals: 69,999 pairs all in the cells (s, s, s), past u16::MAX; fed
    // one by one, and in batches of 7 (compositions off: with them `add_deals` takes the
    // deals one by one).
    for batched in [false, true] {
        let mut stream = DealStream::new(DealStreamOptions {
            repeats: RepeatSource::Off,
            compositions: !batched,
            ..options(3, 3)
        });
        if batched {
            let batch = [0, 1, 2].repeat(7);
            for _ in 0..10_000 {
                stream.add_deals(&batch);
            }
        } else {
            for _ in 0..70_000 {
                stream.add(&[0, 1, 2]);
            }
        }
        let tally = stream.finish();
        for slot in 0..3 {
            assert_eq!(tally.slots[(slot * 3 + slot) * 3 + slot], 69_999);
        }
        assert_eq!(tally.matches[3], 69_999);
        assert_eq!(tally.repeats, Repeats::Skipped(RepeatsSkipped::Off));
    }
}

#[test]
fn repeats_are_counted_across_lists() {
    let mut lists = vec![vec![5, 1, 5], vec![5, 2], vec![], vec![2, 9]];
    // 5 three times (3 pairs), 2 twice (1 pair), 1 and 9 once: 4 distinct.
    assert_eq!(count_repeats(&mut lists), (4, 4));
}

#[test]
fn repeats_of_one_list_or_of_its_pieces_are_those_of_a_plain_count() {
    // 60,000 values drawn from 20,000 (SplitMix64, Steele, Lea and Flood 2014), high bits
    // set so that the radix sort splits them: many repeats, runs of every small length.
    let mut state = 5u64;
    let mut next = || crate::engine::random_source::splitmix64(&mut state);
    let values: Vec<u128> = (0..60_000)
        .map(|_| {
            u128::from(next() % 20_000).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)
        })
        .collect();
    let mut plain = std::collections::HashMap::<u128, u64>::new();
    for &value in &values {
        *plain.entry(value).or_default() += 1;
    }
    let expected = (
        plain.len() as u64,
        plain.values().map(|&c| c * (c - 1) / 2).sum::<u64>(),
    );
    assert_eq!(count_repeats(&mut [values.clone()]), expected);
    // Two lists (merged two at a time), four (the general merge), uneven and empty ones.
    for piece in [30_000, 17_000, 59_990] {
        let mut pieces: Vec<Vec<u128>> = values.chunks(piece).map(<[u128]>::to_vec).collect();
        assert_eq!(count_repeats(&mut pieces), expected, "pieces of {piece}");
        pieces.push(Vec::new());
        pieces.rotate_right(1);
        assert_eq!(count_repeats(&mut pieces), expected, "and an empty list");
    }
    let mut with_empty = [Vec::new(), values.clone()];
    assert_eq!(count_repeats(&mut with_empty), expected);
    let mut with_empty = [values.clone(), Vec::new()];
    assert_eq!(count_repeats(&mut with_empty), expected);
    assert_eq!(count_repeats(&mut []), (0, 0));
    assert_eq!(count_repeats(&mut [Vec::new()]), (0, 0));
    assert_eq!(count_repeats(&mut [Vec::new(), Vec::new()]), (0, 0));
    assert_eq!(count_repeats(&mut [vec![3; 1000]]), (1, 1000 * 999 / 2));
    // Two lists counted on two threads (above PARALLEL_COUNT values): split at a pivot, the
    // values equal to it all above, whatever the runs around it; uneven, empty, all equal.
    for piece in [30_000, 17_000, 43_000, 59_999, 60_000] {
        let (mut a, mut b) = (values[..piece].to_vec(), values[piece..].to_vec());
        assert_eq!(
            count_two_in_parallel(&mut a, &mut b),
            expected,
            "split at {piece}"
        );
        assert_eq!(
            count_two_in_parallel(&mut b, &mut a),
            expected,
            "the other way"
        );
    }
    assert_eq!(
        count_two_in_parallel(&mut vec![3; 1000], &mut vec![3; 500]),
        (1, 1500 * 1499 / 2)
    );
    assert_eq!(
        count_two_in_parallel(&mut [5, 3, 3], &mut [3, 9, 3]),
        (3, 6)
    );
    assert_eq!(count_two_in_parallel(&mut [], &mut []), (0, 0));
    // Equal values across the two lists, runs on both sides, the first value in either.
    let mut two = [vec![1, 4, 4, 9], vec![0, 4, 9, 9, 9]];
    // 0, 1 once; 4 three times (3 pairs); 9 four times (6 pairs).
    assert_eq!(count_repeats(&mut two), (4, 9));
    let mut two = [vec![2, 2], vec![5]];
    assert_eq!(count_repeats(&mut two), (2, 1));
}

/// `hash_deal` as its documentation defines it, written plainly: the words, each offset by
/// its place, folded products summed, then the avalanche.
fn hash_by_definition(deal: &[Card]) -> u128 {
    const PLACE: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut words: Vec<u64> = deal
        .chunks_exact(4)
        .map(|c| (0..4).map(|i| u64::from(c[i]) << (16 * i)).sum())
        .collect();
    let tail = deal.chunks_exact(4).remainder();
    let tail = tail
        .iter()
        .fold(0u64, |word, &card| (word << 16) | u64::from(card));
    words.push(tail ^ ((deal.len() as u64) << 48));
    let mut halves = [0u64; 2];
    for (place, word) in words.iter().enumerate() {
        let x = word.wrapping_add((place as u64 + 1).wrapping_mul(PLACE));
        for (half, m) in halves.iter_mut().zip(HASH_MULTIPLIERS) {
            let product = u128::from(x ^ m) * u128::from(m);
            *half = half.wrapping_add((product >> 64) as u64 ^ product as u64);
        }
    }
    (u128::from(mix(halves[1], 0x1656_67b1_9e37_79f9)) << 64)
        | u128::from(mix(halves[0], 0xff51_afd7_ed55_8ccd))
}

#[test]
fn deal_hashes_follow_their_definition_at_every_length() {
    // Lengths 1..=70 (every remainder of 4, one to 17 words), cards up to 999, 40 deals a
    // length, from a fixed SplitMix64 stream (Steele, Lea and Flood 2014).
    let mut state = 11u64;
    let mut next = || crate::engine::random_source::splitmix64(&mut state);
    for length in 1..=70 {
        for _ in 0..40 {
            let deal: Vec<Card> = (0..length).map(|_| (next() % 1000) as Card).collect();
            assert_eq!(hash_deal(&deal), hash_by_definition(&deal), "{deal:?}");
        }
    }
}

#[test]
fn deal_hashes_keep_their_values() {
    // Fingerprints are stored in tally files and pooled across shards: the values must not
    // change. Computed independently (Python, from the definition in `hash_deal`'s
    // documentation): whole decks in order and reversed (no tail word), one card, 7 cards
    // (a tail of 3) with large card numbers.
    let identity: Vec<Card> = (0..52).collect();
    let reversed: Vec<Card> = (0..52).rev().collect();
    for (deal, expected) in [
        (identity, 0x97c3_93e4_cc32_74dd_1902_e37a_edd0_91fb_u128),
        (reversed, 0x4833_4441_5012_9a93_766c_525f_c64c_f0d2),
        (vec![7], 0x3626_e617_980d_2577_6038_ca5d_7795_7f79),
        (
            vec![999, 0, 3, 500, 1, 2, 998],
            0x4450_0718_cd67_c206_14a7_91d2_3e67_04e7,
        ),
    ] {
        assert_eq!(hash_deal(&deal), expected, "{deal:?}");
    }
}

#[test]
fn deals_kept_eight_at_a_time_in_groups_count_as_one_at_a_time() {
    // Decks of 65 to 256 cards, whose cards the slot tables count in 64 groups (card c in group
    // ⌊64c/n⌋): deals put into the pending columns eight at a time, each card's group looked up
    // in vectors (where the CPU can), and one at a time, against slot tables counted here pair
    // by pair. Whole decks and deals of fewer cards, in batches of 8 (all taken eight at a time)
    // and of 11 (eight, then three one at a time).
    let mut state = 41u64;
    for deck in [65, 100, 128, 129, 200, 255, 256] {
        for dealt in [deck, deck - 7, 70.min(deck), 5] {
            let deals: Vec<Card> = (0..88)
                .flat_map(|_| {
                    let mut cards: Vec<Card> = (0..deck as Card).collect();
                    for i in (1..deck).rev() {
                        let j = (crate::engine::random_source::splitmix64(&mut state)
                            % (i as u64 + 1)) as usize;
                        cards.swap(i, j);
                    }
                    cards.truncate(dealt);
                    cards
                })
                .collect();
            let group = |card: Card| usize::from(card) * MAX_GROUPS / deck;
            let mut slots = vec![0u64; dealt * MAX_GROUPS * MAX_GROUPS];
            for (before, after) in deals.chunks_exact(dealt).zip(deals[dealt..].chunks_exact(dealt))
            {
                for (slot, (&a, &b)) in before.iter().zip(after).enumerate() {
                    slots[(slot * MAX_GROUPS + group(a)) * MAX_GROUPS + group(b)] += 1;
                }
            }
            for batch in [8, 11] {
                for eight in [false, byte_columns::available()] {
                    let mut stream = DealStream::new(DealStreamOptions {
                        compositions: false,
                        ..options(deck, dealt)
                    });
                    stream.keeps_eight = eight;
                    for deals in deals.chunks(batch * dealt) {
                        stream.add_deals(deals);
                    }
                    let tally = stream.finish();
                    assert_eq!(tally.groups, MAX_GROUPS);
                    assert_eq!(tally.pairs, 87);
                    assert!(
                        tally.slots == slots,
                        "{dealt} of {deck} cards, batches of {batch}, eight at a time: {eight}"
                    );
                }
            }
        }
    }
}
