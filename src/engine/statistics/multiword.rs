//! Inversions and the guessing game on decks of 65 to [`MULTIWORD_DECK`] cards, the cards in a
//! bit set of W words (W = 2, 4, 8 or 16, the fewest that hold the deck) and no branch on the
//! cards: the same values as the Fenwick tree and the word-by-word search they replace, whose
//! loops of varying length cost the branch predictor a miss or two a card.
//!
//! Both walk the deck once, and are compiled twice: for the baseline x86-64 CPU, whose bit
//! count is a dozen instructions, and for a CPU with POPCNT, LZCNT, BMI1 and BMI2, chosen at
//! run time. (A `u128` in place of two words measured no faster: its shifts and counts are
//! made of 64-bit ones with a test of the half.)

use crate::engine::algorithms::Card;

/// The largest deck taken here: 16 words of 64 cards.
pub const MULTIWORD_DECK: usize = 16 * 64;

/// Inversions of a deck of 65 to [`MULTIWORD_DECK`] cards (see [`super::inversions`]).
pub fn inversions(deck: &[Card]) -> usize {
    by_words(
        deck,
        [
            fast::inversions::<2>,
            fast::inversions::<4>,
            fast::inversions::<8>,
            fast::inversions::<16>,
        ],
        [
            inversions_in::<2>,
            inversions_in::<4>,
            inversions_in::<8>,
            inversions_in::<16>,
        ],
    )
}

/// The guessing game's score on a deck of 65 to [`MULTIWORD_DECK`] cards (see
/// [`super::guessing_score`]).
pub fn guessing_score(deck: &[Card]) -> usize {
    by_words(
        deck,
        [
            fast::guessing_score::<2>,
            fast::guessing_score::<4>,
            fast::guessing_score::<8>,
            fast::guessing_score::<16>,
        ],
        [
            guessing_in::<2>,
            guessing_in::<4>,
            guessing_in::<8>,
            guessing_in::<16>,
        ],
    )
}

/// A walk's instance for `deck`: W = 2, 4, 8 or 16 words, the fewest that hold it, compiled for
/// this CPU's bit instructions where it has them (`fast`), else for the baseline (`plain`).
#[inline]
fn by_words(
    deck: &[Card],
    fast: [unsafe fn(&[Card]) -> usize; 4],
    plain: [fn(&[Card]) -> usize; 4],
) -> usize {
    let instance = match deck.len().div_ceil(64) {
        ..=2 => 0,
        3..=4 => 1,
        5..=8 => 2,
        words => {
            debug_assert!(words <= 16, "a deck of more than {MULTIWORD_DECK} cards");
            3
        }
    };
    if fast_bits() {
        // SAFETY: `fast_bits` found POPCNT, LZCNT, BMI1 and BMI2 on this CPU.
        unsafe { fast[instance](deck) }
    } else {
        plain[instance](deck)
    }
}

/// Whether this CPU counts and finds bits in one instruction each (POPCNT, LZCNT, BMI1's TZCNT)
/// and shifts by a variable in one (BMI2).
pub(super) fn fast_bits() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("lzcnt")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The walks compiled for a CPU with POPCNT, LZCNT, BMI1 and BMI2 (x86-64); elsewhere never
/// called.
mod fast {
    use super::{guessing_in, inversions_in};
    use crate::engine::algorithms::Card;

    /// # Safety
    /// The CPU must have POPCNT, LZCNT, BMI1 and BMI2 ([`super::fast_bits`]).
    #[cfg_attr(target_arch = "x86_64", target_feature(enable = "popcnt,lzcnt,bmi1,bmi2"))]
    pub(super) unsafe fn inversions<const W: usize>(deck: &[Card]) -> usize {
        inversions_in::<W>(deck)
    }

    /// # Safety
    /// The CPU must have POPCNT, LZCNT, BMI1 and BMI2 ([`super::fast_bits`]).
    #[cfg_attr(target_arch = "x86_64", target_feature(enable = "popcnt,lzcnt,bmi1,bmi2"))]
    pub(super) unsafe fn guessing_score<const W: usize>(deck: &[Card]) -> usize {
        guessing_in::<W>(deck)
    }
}

/// Inversions of a deck of at most 64·W cards: the cards seen so far in W words, and the number
/// seen in the words before each. The cards seen below a card are then that number for its word
/// and one bit count; the cards seen above it, its inversions with the cards before it, are the
/// rest of those seen. A card seen adds one to the numbers of the words after its own (W lanes,
/// which the compiler adds in vectors).
#[inline(always)]
fn inversions_in<const W: usize>(deck: &[Card]) -> usize {
    let mut seen = [0u64; W];
    let mut before = [0u32; W];
    let mut count = 0;
    for (position, &card) in deck.iter().enumerate() {
        // Cards are below 64·W: the mask only spares a bounds check.
        let card = usize::from(card) % (64 * W);
        let (word, bit) = (card / 64, card % 64);
        let below = before[word] as usize + (seen[word] & ((1u64 << bit) - 1)).count_ones() as usize;
        count += position - below;
        seen[word] |= 1 << bit;
        for (after, number) in before.iter_mut().enumerate() {
            *number += u32::from(after > word);
        }
    }
    count
}

/// The guessing game (see [`super::guessing_score`]) on a deck of at most 64·W cards: the
/// unseen cards in W words, and a word of the words that still have one. The nearest unseen
/// card on each side of the last card is in the last card's word, or else the nearest unseen
/// card of the nearest word with one on that side; both are found, and the guess chosen
/// between them, without a branch.
#[inline(always)]
fn guessing_in<const W: usize>(deck: &[Card]) -> usize {
    let n = deck.len();
    debug_assert!(n <= 64 * W);
    let Some((&first, rest)) = deck.split_first() else {
        return 0;
    };
    let mut unseen = [0u64; W];
    for (word, bits) in unseen.iter_mut().enumerate() {
        let cards = n.saturating_sub(64 * word).min(64);
        *bits = if cards == 64 { u64::MAX } else { (1u64 << cards) - 1 };
    }
    // Bit w: word w has an unseen card.
    let mut occupied = 0u64;
    for (word, &bits) in unseen.iter().enumerate() {
        occupied |= u64::from(bits != 0) << word;
    }
    let take = |unseen: &mut [u64; W], occupied: &mut u64, card: usize| {
        let word = card / 64;
        unseen[word] &= !(1u64 << (card % 64));
        *occupied &= !(u64::from(unseen[word] == 0) << word);
    };
    let mut last = usize::from(first) % (64 * W);
    take(&mut unseen, &mut occupied, last);
    let mut right = usize::from(last == 0);
    let mut rising = true;
    for &card in rest {
        let card = usize::from(card) % (64 * W);
        let (word, bit) = (last / 64, last % 64);
        let here = unseen[word];
        let above_here = here & ((u64::MAX << bit) << 1);
        let below_here = here & ((1u64 << bit) - 1);
        let words_above = occupied & ((u64::MAX << word) << 1);
        let words_below = occupied & ((1u64 << word) - 1);
        // A side with no unseen card gives a guess that is never used (the index kept in
        // bounds, `| 1` keeping the leading zeros defined).
        let up_word = (words_above.trailing_zeros() as usize).min(W - 1);
        let nearest_above = pick(
            above_here != 0,
            word * 64 + above_here.trailing_zeros() as usize,
            up_word * 64 + unseen[up_word].trailing_zeros() as usize,
        );
        let down_word = 63 - (words_below | 1).leading_zeros() as usize;
        let nearest_below = pick(
            below_here != 0,
            word * 64 + 63 - (below_here | 1).leading_zeros() as usize,
            down_word * 64 + 63 - (unseen[down_word] | 1).leading_zeros() as usize,
        );
        let has_above = (above_here | words_above) != 0;
        let has_below = (below_here | words_below) != 0;
        let up = (rising & has_above) | (!rising & !has_below);
        let guess = pick(up, nearest_above, nearest_below);
        right += usize::from(guess == card);
        rising = card > last;
        last = card;
        take(&mut unseen, &mut occupied, card);
    }
    right
}

/// `if yes { a } else { b }` by masks, so that the compiler makes no branch of a choice the
/// predictor would often miss.
#[inline(always)]
fn pick(yes: bool, a: usize, b: usize) -> usize {
    let mask = usize::from(yes).wrapping_neg();
    (a & mask) | (b & !mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64 (Steele, Lea and Flood 2014) Fisher–Yates decks: a fixed stream of test decks.
    fn deck(n: usize, seed: u64) -> Vec<Card> {
        let mut state = seed;
        let mut deck: Vec<Card> = (0..n as Card).collect();
        for i in (1..n).rev() {
            let j = (crate::engine::random_source::splitmix64(&mut state) % (i as u64 + 1)) as usize;
            deck.swap(i, j);
        }
        deck
    }

    #[test]
    fn inversions_in_words_are_the_pairs_out_of_order() {
        // Against the O(n²) count, at every number of words and across each word's edges, on
        // shuffled decks, the start order (none) and its reverse (all n(n − 1)/2), both
        // compiled paths.
        for n in [65, 66, 100, 127, 128, 129, 130, 255, 256, 257, 300, 512, 513, 700, 1000, 1024] {
            let mut decks: Vec<Vec<Card>> = (0..3).map(|seed| deck(n, seed)).collect();
            decks.push((0..n as Card).collect());
            decks.push((0..n as Card).rev().collect());
            for deck in &decks {
                let want = (0..n)
                    .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                    .filter(|&(i, j)| deck[i] > deck[j])
                    .count();
                assert_eq!(inversions(deck), want, "n={n}");
                assert_eq!(inversions_in::<16>(deck), want, "n={n}, baseline");
            }
        }
    }

    #[test]
    fn the_guessing_game_in_words_scores_as_the_card_by_card_search() {
        // Against the rule played out card by card, the nearest unseen card searched for one
        // card at a time (`guess_by_search`), at every number of words, both compiled paths.
        fn guess_by_search(deck: &[Card]) -> usize {
            let mut unseen: Vec<bool> = vec![true; deck.len()];
            let mut right = 0;
            let mut last: Option<usize> = None;
            let mut rising = true;
            for &card in deck {
                let card = usize::from(card);
                let above = |l: usize| (l + 1..deck.len()).find(|&c| unseen[c]);
                let below = |l: usize| (0..l).rev().find(|&c| unseen[c]);
                let guess = match last {
                    None => Some(0),
                    Some(l) if rising => above(l).or_else(|| below(l)),
                    Some(l) => below(l).or_else(|| above(l)),
                };
                right += usize::from(guess == Some(card));
                rising = last.is_none_or(|l| card > l);
                last = Some(card);
                unseen[card] = false;
            }
            right
        }
        for n in [65, 100, 127, 128, 129, 191, 192, 193, 300, 511, 512, 513, 1000, 1024] {
            let mut decks: Vec<Vec<Card>> = (0..4).map(|seed| deck(n, seed)).collect();
            decks.push((0..n as Card).collect());
            decks.push((0..n as Card).rev().collect());
            // Runs that rise and fall through word edges, where the nearest card is words away.
            decks.push((0..n as Card).map(|c| if c % 2 == 0 { c / 2 } else { (n as Card) - 1 - c / 2 }).collect());
            for deck in &decks {
                let want = guess_by_search(deck);
                assert_eq!(guessing_score(deck), want, "n={n}");
                assert_eq!(guessing_in::<16>(deck), want, "n={n}, baseline");
            }
        }
    }
}
