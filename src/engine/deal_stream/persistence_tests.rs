//! Tests of a deal-stream tally's persistence: the repeat sources, and what is saved and read back.

use super::*;

fn options(repeats: RepeatSource) -> DealStreamOptions {
    DealStreamOptions {
        deck: 4,
        dealt: 4,
        repeats,
        compositions: true,
    }
}

/// Deals of 4 cards that repeat now and then.
fn deals(count: usize) -> Vec<[Card; 4]> {
    (0..count)
        .map(|i| {
            let mut deal = [0, 1, 2, 3];
            deal.rotate_left(i % 4);
            if i % 3 == 0 {
                deal.swap(1, 2);
            }
            if i % 5 == 0 {
                deal.swap(0, 3);
            }
            deal
        })
        .collect()
}

/// The tally of the blocks `blocks` (of 4 deals each) of `all`, as one shard computes it.
fn shard(
    all: &[[Card; 4]],
    blocks: std::ops::Range<u64>,
    repeats: RepeatSource,
) -> DealStreamTally {
    let mut stream = DealStream::new(options(repeats));
    for block in blocks {
        stream.start_block(block);
        let at = block as usize * 4;
        for deal in &all[at..(at + 4).min(all.len())] {
            stream.add(deal);
        }
        stream.end_block(true);
    }
    stream.finish()
}

#[test]
fn shards_merged_in_any_order_give_the_tally_of_the_whole_run() {
    let all = deals(40);
    for repeats in [
        RepeatSource::Fingerprints { limit: 1000 },
        RepeatSource::FullTally,
    ] {
        let mut whole = shard(&all, 0..10, repeats);
        let mut merger = DealStreamMerger::new(options(repeats));
        for blocks in [6..10, 0..3, 3..6] {
            merger.add(shard(&all, blocks, repeats)).unwrap();
        }
        let mut merged = merger.finish();
        assert_eq!(merged.ends, whole.ends);
        assert_eq!(merged.pairs, 39);
        whole.fingerprints.clear();
        merged.fingerprints.clear();
        assert_eq!(merged, whole);
    }
}

#[test]
fn a_missing_shard_leaves_its_seams_unpaired() {
    let all = deals(40);
    let repeats = RepeatSource::Off;
    let mut merger = DealStreamMerger::new(options(repeats));
    merger.add(shard(&all, 0..3, repeats)).unwrap();
    merger.add(shard(&all, 6..10, repeats)).unwrap();
    let merged = merger.finish();
    // 12 + 16 deals in two runs of blocks: 11 + 15 pairs.
    assert_eq!(merged.deals, 28);
    assert_eq!(merged.pairs, 26);
    assert_eq!(merged.ends.len(), 2);
    assert_eq!(merged.ends[1].first_block, 6);
}

#[test]
fn parts_without_blocks_are_not_paired_and_their_repeats_are_pooled() {
    let repeats = RepeatSource::Fingerprints { limit: 1000 };
    let day = |deals: &[[Card; 4]]| {
        let mut stream = DealStream::new(options(repeats));
        for deal in deals {
            stream.add(deal);
        }
        stream.finish()
    };
    let mut merger = DealStreamMerger::new(options(repeats));
    merger.add(day(&[[0, 1, 2, 3], [1, 0, 2, 3]])).unwrap();
    merger
        .add(day(&[[1, 0, 2, 3], [3, 2, 1, 0], [0, 1, 2, 3]]))
        .unwrap();
    let merged = merger.finish();
    assert_eq!(merged.deals, 5);
    assert_eq!(merged.pairs, 1 + 2);
    // Two decks seen twice each, across the parts: 2 pairs, 3 distinct.
    assert_eq!(
        merged.repeats,
        Repeats::Counted {
            distinct: 3,
            repeated_pairs: 2
        }
    );
}

#[test]
fn fingerprints_past_the_limit_in_all_the_parts_are_sampled_as_one_stream_would_be() {
    // Regression (issue #32): the repeats were skipped when the shards' fingerprints passed
    // the limit together; now the pool is sampled, as the whole run's stream is.
    let all = deals(40);
    let repeats = RepeatSource::Fingerprints { limit: 30 };
    let whole = shard(&all, 0..10, repeats);
    let mut merger = DealStreamMerger::new(options(repeats));
    merger.add(shard(&all, 0..5, repeats)).unwrap();
    merger.add(shard(&all, 5..10, repeats)).unwrap();
    let merged = merger.finish();
    assert!(matches!(merged.repeats, Repeats::Sampled { .. }), "{:?}", merged.repeats);
    assert_eq!(merged.repeats, whole.repeats);
}

#[test]
fn a_part_of_another_shape_is_refused() {
    let mut merger = DealStreamMerger::new(options(RepeatSource::Off));
    let other = DealStream::new(DealStreamOptions {
        deck: 5,
        dealt: 5,
        repeats: RepeatSource::Off,
        compositions: true,
    })
    .finish();
    assert!(merger.add(other).is_err());
}

/// The counts of a stream of deals computed the plain way: every consecutive pair compared
/// slot by slot, every deal kept whole in an ordered map.
fn plain_counts(deck: usize, deals: &[Vec<Card>]) -> (Vec<u64>, Vec<u64>, u64, u64) {
    let dealt = deals[0].len();
    let groups = deck.min(MAX_GROUPS);
    let group = |card: Card| usize::from(card) * groups / deck;
    let mut matches = vec![0u64; dealt + 1];
    let mut slots = vec![0u64; dealt * groups * groups];
    for pair in deals.windows(2) {
        let mut same = 0;
        for slot in 0..dealt {
            let (a, b) = (pair[0][slot], pair[1][slot]);
            same += usize::from(a == b);
            slots[(slot * groups + group(a)) * groups + group(b)] += 1;
        }
        matches[same] += 1;
    }
    let mut seen = std::collections::BTreeMap::<&[Card], u64>::new();
    for deal in deals {
        *seen.entry(deal.as_slice()).or_default() += 1;
    }
    let pairs = seen.values().map(|&c| c * (c - 1) / 2).sum();
    (matches, slots, seen.len() as u64, pairs)
}

/// `count` deals of `dealt` cards out of `deck`: the first cards of Fisher–Yates shuffles
/// of a fixed ChaCha8 stream, every seventh deal a repeat of an earlier one.
fn shuffled_deals(deck: usize, dealt: usize, count: usize) -> Vec<Vec<Card>> {
    use crate::engine::algorithms::fisher_yates::fisher_yates;
    use crate::engine::random_source::{BlockRng, FastSource};
    use rand_chacha::ChaCha8Rng;
    let mut source = FastSource::new(ChaCha8Rng::for_block(3, deck as u64));
    let mut deals: Vec<Vec<Card>> = Vec::with_capacity(count);
    for i in 0..count {
        if i % 7 == 6 {
            deals.push(deals[i / 2].clone());
            continue;
        }
        let mut cards: Vec<Card> = (0..deck as Card).collect();
        fisher_yates(&mut cards, &mut source);
        cards.truncate(dealt);
        deals.push(cards);
    }
    deals
}

#[test]
fn the_counts_are_those_of_a_plain_count_of_the_same_deals() {
    // Whole 52-card decks (hashed fingerprints), 100-card decks (grouped slots), 5 cards
    // dealt out of 52 (packed fingerprints); more deals than the pending buffer holds, in
    // blocks taken by two workers out of order.
    // Fed one by one, or in batches of 1 to 9 deals through `add_deals`, some single deals
    // still through `add` between them.
    for (deck, dealt, batched) in [
        (52, 52, false),
        (100, 100, false),
        (52, 5, false),
        (52, 52, true),
        (100, 100, true),
        (52, 5, true),
    ] {
        let deals = shuffled_deals(deck, dealt, 5 * PENDING_DEALS + 37);
        let (matches, slots, distinct, repeated_pairs) = plain_counts(deck, &deals);
        let options = DealStreamOptions {
            deck,
            dealt,
            repeats: RepeatSource::Fingerprints { limit: 1 << 20 },
            compositions: false,
        };
        let block = 300;
        let mut workers = [DealStream::new(options), DealStream::new(options)];
        let blocks = deals.len().div_ceil(block);
        for b in (0..blocks).rev() {
            let worker = &mut workers[b % 2];
            worker.start_block(b as u64);
            let mine = &deals[b * block..((b + 1) * block).min(deals.len())];
            if batched {
                let mut at = 0;
                while at < mine.len() {
                    let size = (1 + (at + b) % 9).min(mine.len() - at);
                    if size == 4 {
                        worker.add(&mine[at]);
                        at += 1;
                        continue;
                    }
                    worker.add_deals(&mine[at..at + size].concat());
                    at += size;
                }
            } else {
                for deal in mine {
                    worker.add(deal);
                }
            }
            worker.end_block(true);
        }
        let [mut first, second] = workers;
        first.sort_fingerprints();
        first.merge(second);
        let tally = first.finish();
        assert_eq!(tally.deals, deals.len() as u64, "{deck}/{dealt}");
        assert_eq!(tally.pairs, deals.len() as u64 - 1, "{deck}/{dealt}");
        assert_eq!(tally.matches, matches, "{deck}/{dealt}");
        assert_eq!(tally.slots, slots, "{deck}/{dealt}");
        assert_eq!(
            tally.repeats,
            Repeats::Counted {
                distinct,
                repeated_pairs
            },
            "{deck}/{dealt}"
        );
        // The Mallows kernel's sums of whole decks: those of the consecutive pairs taken in
        // order, exactly (integer sums), whatever the workers and the batches; the stride picks
        // the pairs by the index of their second deal in its block.
        let mut plain = (dealt == deck).then(|| kernel::KernelCounter::new(deck));
        if let Some(counter) = &mut plain {
            for (t, pair) in deals.windows(2).enumerate() {
                counter.pair_at(((t + 1) % block) as u64, &pair[0], &pair[1]);
            }
        }
        assert_eq!(tally.kernel, plain.map(|c| c.sums()), "{deck}/{dealt}");
    }
}

#[test]
fn shards_of_large_decks_merged_give_the_kernel_sums_of_the_whole_run() {
    let all = shuffled_deals(20, 20, 90);
    let options = DealStreamOptions {
        deck: 20,
        dealt: 20,
        repeats: RepeatSource::Off,
        compositions: false,
    };
    let shard = |blocks: std::ops::Range<usize>| {
        let mut stream = DealStream::new(options);
        for block in blocks {
            stream.start_block(block as u64);
            stream.add_deals(&all[block * 10..(block + 1) * 10].concat());
            stream.end_block(true);
        }
        stream.finish()
    };
    let whole = shard(0..9);
    let mut merger = DealStreamMerger::new(options);
    for blocks in [5..9, 0..2, 2..5] {
        merger.add(shard(blocks)).unwrap();
    }
    let merged = merger.finish();
    let sums = whole.kernel.expect("whole decks of 20 cards count the kernel");
    assert_eq!(sums.pairs, 89);
    assert_eq!(merged.kernel, Some(sums));
    assert_eq!(merged, whole);
}

#[test]
fn structured_decks_get_distinct_hashes() {
    // Every transposition of the 52-card identity, every rotation, and their reversals:
    // 2·(1326 + 52) decks, all distinct, so all fingerprints must differ.
    let identity: Vec<Card> = (0..52).collect();
    let mut decks = Vec::new();
    for i in 0..52 {
        for j in i + 1..52 {
            let mut deck = identity.clone();
            deck.swap(i, j);
            decks.push(deck);
        }
        let mut deck = identity.clone();
        deck.rotate_left(i);
        decks.push(deck);
    }
    let reversed: Vec<Vec<Card>> = decks
        .iter()
        .map(|deck| deck.iter().rev().copied().collect())
        .collect();
    decks.extend(reversed);
    let mut hashes: Vec<u128> = decks.iter().map(|deck| hash_deal(deck)).collect();
    hashes.sort_unstable();
    hashes.dedup();
    // The rotation by 0 is the identity, which is no transposition: all distinct.
    assert_eq!(hashes.len(), decks.len());
}
