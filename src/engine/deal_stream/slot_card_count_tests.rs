//! Tests of the slot tables' card counts: each slot's counts against a plain count of the decks.

use super::*;
use crate::engine::algorithms::fisher_yates::fisher_yates;
use crate::engine::random_source::{BlockRng, FastSource};
use rand_chacha::ChaCha8Rng;

fn stream(deck: usize, dealt: usize) -> DealStream {
    DealStream::new(DealStreamOptions {
        deck,
        dealt,
        repeats: RepeatSource::Off,
        compositions: false,
    })
}

/// Each card's slots counted deal by deal, the plain way.
fn plain(deck: usize, deals: &[Vec<Card>]) -> Vec<u64> {
    let mut counts = vec![0u64; deck * deck];
    for deal in deals {
        for (slot, &card) in deal.iter().enumerate() {
            counts[usize::from(card) * deck + slot] += 1;
        }
    }
    counts
}

#[test]
fn the_slot_tables_give_the_position_counts_of_every_deal_added() {
    // Blocks of many sizes (none, one deal, more than the pending buffer), fed in batches
    // and one by one, ended complete or not, the last one left open; and a stream without
    // blocks, as `check` feeds it.
    for deck in [2usize, 5, 52, 64] {
        let mut source = FastSource::new(ChaCha8Rng::for_block(11, deck as u64));
        let mut next_deal = || {
            let mut cards: Vec<Card> = (0..deck as Card).collect();
            fisher_yates(&mut cards, &mut source);
            cards
        };
        let mut blocks = stream(deck, deck);
        let mut loose = stream(deck, deck);
        let mut all = Vec::new();
        let sizes = [0usize, 1, 3, PENDING_DEALS + 5, 2, 700, 9];
        for (block, &size) in sizes.iter().enumerate() {
            blocks.start_block(block as u64);
            let deals: Vec<Vec<Card>> = (0..size).map(|_| next_deal()).collect();
            // Alternate: a few one by one, then the rest in batches of 8.
            let (single, batched) = deals.split_at(size.min(block));
            for deal in single {
                blocks.add(deal);
                loose.add(deal);
            }
            for batch in batched.chunks(8) {
                blocks.add_deals(&batch.concat());
                loose.add_deals(&batch.concat());
            }
            if block + 1 < sizes.len() {
                blocks.end_block(block % 2 == 0);
            }
            all.extend(deals);
        }
        let expected = plain(deck, &all);
        assert_eq!(blocks.slot_card_counts(), Some(expected.clone()), "{deck}");
        assert_eq!(loose.slot_card_counts(), Some(expected.clone()), "{deck}");
        // Asked again after more deals: still every deal.
        let more = next_deal();
        loose.add(&more);
        all.push(more);
        assert_eq!(loose.slot_card_counts(), Some(plain(deck, &all)), "{deck}");
    }
}

#[test]
fn the_counts_are_refused_where_the_tables_do_not_hold_them() {
    // Part of the deck dealt, grouped slots (over 64 cards), merged or foreign pairs.
    assert_eq!(stream(52, 5).slot_card_counts(), None);
    assert_eq!(stream(65, 65).slot_card_counts(), None);
    let mut merged = stream(5, 5);
    merged.merge(stream(5, 5));
    assert!(!merged.has_slot_card_counts());
    let mut counted = stream(3, 3);
    counted.add_counted_pairs(0, &[0; 4], &[0; 27], None);
    assert_eq!(counted.slot_card_counts(), None);
    assert!(stream(64, 64).has_slot_card_counts());
}
