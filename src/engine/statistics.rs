//! The permutation statistics as values: what each [`Statistic`] is, and its value on a deck
//! (O(n), or O(n log n) for the longest increasing subsequence above 64 cards and for
//! inversions above 1,024; no allocation up to 1,024 cards, every deck a tally takes). Their
//! exact laws under a uniform shuffle are theory ([`crate::theory::permutation_statistics`],
//! [`crate::theory::rank_statistics`]); the marginal tally ([`crate::engine::marginal`]) counts
//! their values.

use crate::engine::algorithms::Card;

mod multiword;

/// Entries of working space [`Statistic::value`] and [`StatisticValues::of`] need for a deck of
/// n cards: the inverse permutation, then a Fenwick tree or the piles of patience sorting.
pub fn scratch_len(n: usize) -> usize {
    2 * n + 1
}

/// The largest deck any tally takes (marginal mode's 1000 cards, which
/// `engine::marginal` checks against this at compile time): the statistics whose law is cheap
/// at any size have their exact law up to here.
pub const EVERY_DECK: usize = 1000;

/// A permutation statistic whose law under a uniform shuffle is known exactly.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Statistic {
    /// Cards left at their starting position.
    FixedPoints,
    /// Cycles of the permutation, fixed points included.
    Cycles,
    /// Rising sequences (Bayer & Diaconis 1992).
    RisingSequences,
    /// Pairs (c, c + 1) left next to each other in that order.
    AdjacentPairs,
    /// Positions i whose card is above the next one's.
    Descents,
    /// Pairs of cards out of their starting order (Kendall's distance to the start).
    Inversions,
    /// The length of the longest increasing subsequence.
    LongestIncreasing,
    /// Spearman's footrule: the sum over cards of the distance moved.
    Footrule,
    /// Positions i whose card is below both neighbours' (the shelf shuffler's law depends on
    /// nothing else).
    Valleys,
    /// Cards a player shown each card after guessing it would guess right ([`guessing_score`]).
    Guessing,
    /// Colour changes from one card to the next when the top half started red and the bottom
    /// half black.
    ColourChanges,
}

impl Statistic {
    /// Every statistic, in report order.
    pub const ALL: [Statistic; 11] = [
        Statistic::FixedPoints,
        Statistic::Cycles,
        Statistic::RisingSequences,
        Statistic::AdjacentPairs,
        Statistic::Descents,
        Statistic::Inversions,
        Statistic::LongestIncreasing,
        Statistic::Footrule,
        Statistic::Valleys,
        Statistic::Guessing,
        Statistic::ColourChanges,
    ];

    /// The largest deck whose exact law is computed (and so, in marginal mode, the largest deck
    /// on which the statistic is tallied and tested). The three costly laws stop where a
    /// report's wait stays well under a second (user CPU time of a whole 100-shuffle run in
    /// release on the busy 2-core machine: 0.19 s at 52 cards; 0.36 s at 56 cards, most of it the
    /// 526 823 partitions of 56 — 60 cards would take 0.9 s and 64 cards 1.8 s; 0.36 s at 100
    /// cards for the footrule's transfer matrix; 0.37 s at 300 cards for the 44 851 Mahonian
    /// numbers); the other laws take at most 0.1 s at 1000 cards.
    pub const fn max_exact_deck(self) -> usize {
        match self {
            Statistic::Inversions => 300,
            Statistic::LongestIncreasing => 56,
            Statistic::Footrule => 100,
            _ => EVERY_DECK,
        }
    }

    /// Whether the statistic has its exact law, and is tallied, on decks of n cards.
    pub const fn tallied_at(self, n: usize) -> bool {
        n <= self.max_exact_deck()
    }

    /// The statistics tallied on decks of n cards, in report order.
    pub fn tallied(n: usize) -> impl Iterator<Item = Statistic> {
        Statistic::ALL.into_iter().filter(move |s| s.tallied_at(n))
    }

    /// Cells of the histogram kept on decks of n cards: one per value, none when the statistic
    /// is not tallied at that size.
    pub fn cells(self, n: usize) -> usize {
        if self.tallied_at(n) {
            self.max_value(n) + 1
        } else {
            0
        }
    }

    /// The name used on the command line and in every report.
    pub fn name(self) -> &'static str {
        match self {
            Statistic::FixedPoints => "fixed-points",
            Statistic::Cycles => "cycles",
            Statistic::RisingSequences => "rising-sequences",
            Statistic::AdjacentPairs => "adjacent-pairs",
            Statistic::Descents => "descents",
            Statistic::Inversions => "inversions",
            Statistic::LongestIncreasing => "longest-increasing",
            Statistic::Footrule => "footrule",
            Statistic::Valleys => "valleys",
            Statistic::Guessing => "guessing",
            Statistic::ColourChanges => "colour-changes",
        }
    }

    /// The exact definition, in one line.
    pub fn definition(self) -> &'static str {
        match self {
            Statistic::FixedPoints => "number of cards c still at position c",
            Statistic::Cycles => {
                "number of cycles of the map position -> card, fixed points included"
            }
            Statistic::RisingSequences => {
                "1 + number of cards c whose successor c+1 lies at an earlier position"
            }
            Statistic::AdjacentPairs => "number of cards c (c < n-1) directly followed by card c+1",
            Statistic::Descents => "number of positions whose card is above the next card",
            Statistic::Inversions => {
                "number of pairs of cards in the reverse of their starting order"
            }
            Statistic::LongestIncreasing => "length of the longest increasing subsequence",
            Statistic::Footrule => "sum over cards of |position - starting position|",
            Statistic::Valleys => "number of positions whose card is below both neighbours",
            Statistic::Guessing => {
                "cards guessed right, shown each after the guess: the nearest unseen card above \
                 the last after a rise, below it after a fall"
            }
            Statistic::ColourChanges => {
                "number of neighbours of different colour, the top half of the start red"
            }
        }
    }

    /// The largest value the statistic can take on n cards: the histogram has
    /// `max_value(n) + 1` cells, one per value 0..=max.
    pub fn max_value(self, n: usize) -> usize {
        match self {
            Statistic::FixedPoints
            | Statistic::Cycles
            | Statistic::RisingSequences
            | Statistic::LongestIncreasing
            | Statistic::Guessing => n,
            Statistic::AdjacentPairs | Statistic::Descents => n.saturating_sub(1),
            Statistic::Inversions => n * n.saturating_sub(1) / 2,
            Statistic::Footrule => n * n / 2,
            Statistic::Valleys => n.saturating_sub(1) / 2,
            // Every red card between two changes at most, and never more than n − 1.
            Statistic::ColourChanges => n.saturating_sub(1).min(2 * reds(n)),
        }
    }

    /// The statistic of one shuffled deck (`deck[position] = card`, cards 0..n each once).
    ///
    /// O(n) (O(n log n) for inversions and the longest increasing subsequence above 64 cards),
    /// no allocation. `scratch` must hold at least [`scratch_len`]`(deck.len())` entries; it is
    /// overwritten (the inverse permutation, a Fenwick tree, the piles of patience sorting).
    #[inline]
    pub fn value(self, deck: &[Card], scratch: &mut [usize]) -> usize {
        match self {
            Statistic::FixedPoints => fixed_points(deck),
            Statistic::Cycles => {
                let positions = inverse_into(deck, scratch);
                count_cycles_both_ways(positions, deck)
            }
            Statistic::RisingSequences => {
                let positions = inverse_into(deck, scratch);
                rising_sequences_of_inverse(positions)
            }
            Statistic::AdjacentPairs => adjacent_pairs(deck),
            Statistic::Descents => descents(deck),
            Statistic::Inversions => inversions(deck, scratch),
            Statistic::LongestIncreasing => longest_increasing(deck, scratch),
            Statistic::Footrule => footrule(deck),
            Statistic::Valleys => valleys(deck),
            Statistic::Guessing => guessing_score(deck),
            Statistic::ColourChanges => colour_changes(deck),
        }
    }
}

/// Every statistic of one deck, computed in one pass that shares the inverse permutation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StatisticValues {
    /// See [`Statistic::FixedPoints`].
    pub fixed_points: usize,
    /// See [`Statistic::Cycles`].
    pub cycles: usize,
    /// See [`Statistic::RisingSequences`].
    pub rising_sequences: usize,
    /// See [`Statistic::AdjacentPairs`].
    pub adjacent_pairs: usize,
    /// See [`Statistic::Descents`].
    pub descents: usize,
    /// See [`Statistic::Inversions`] (0 when not tallied at this deck size).
    pub inversions: usize,
    /// See [`Statistic::LongestIncreasing`] (0 when not tallied at this deck size).
    pub longest_increasing: usize,
    /// See [`Statistic::Footrule`] (0 when not tallied at this deck size).
    pub footrule: usize,
    /// See [`Statistic::Valleys`].
    pub valleys: usize,
    /// See [`Statistic::Guessing`].
    pub guessing: usize,
    /// See [`Statistic::ColourChanges`].
    pub colour_changes: usize,
}

impl StatisticValues {
    /// Every statistic tallied at this deck size ([`Statistic::tallied_at`]; the others are
    /// left 0); `scratch` as for [`Statistic::value`]. No allocation, cheaper than separate
    /// calls (one inverse, one scan of the deck).
    #[inline]
    pub fn of(deck: &[Card], scratch: &mut [usize]) -> Self {
        let n = deck.len();
        let mut fixed = 0;
        let mut adjacent = 0;
        let mut descents = 0;
        let mut footrule = 0;
        let mut previous = 0;
        for (position, &card) in deck.iter().enumerate() {
            let card = usize::from(card);
            fixed += usize::from(card == position);
            adjacent += usize::from(position > 0 && card == previous + 1);
            descents += usize::from(position > 0 && card < previous);
            footrule += card.abs_diff(position);
            previous = card;
        }
        let (inverse, rest) = scratch.split_at_mut(n);
        let inversions = if Statistic::Inversions.tallied_at(n) {
            inversions(deck, rest)
        } else {
            0
        };
        let longest_increasing = if Statistic::LongestIncreasing.tallied_at(n) {
            longest_increasing(deck, rest)
        } else {
            0
        };
        let positions = inverse_into(deck, inverse);
        let rising = rising_sequences_of_inverse(positions);
        let cycles = count_cycles_both_ways(positions, deck);
        StatisticValues {
            fixed_points: fixed,
            cycles,
            rising_sequences: rising,
            adjacent_pairs: adjacent,
            descents,
            inversions,
            longest_increasing,
            footrule: if Statistic::Footrule.tallied_at(n) {
                footrule
            } else {
                0
            },
            valleys: valleys(deck),
            guessing: guessing_score(deck),
            colour_changes: colour_changes(deck),
        }
    }

    /// The value of one statistic.
    pub fn get(&self, statistic: Statistic) -> usize {
        match statistic {
            Statistic::FixedPoints => self.fixed_points,
            Statistic::Cycles => self.cycles,
            Statistic::RisingSequences => self.rising_sequences,
            Statistic::AdjacentPairs => self.adjacent_pairs,
            Statistic::Descents => self.descents,
            Statistic::Inversions => self.inversions,
            Statistic::LongestIncreasing => self.longest_increasing,
            Statistic::Footrule => self.footrule,
            Statistic::Valleys => self.valleys,
            Statistic::Guessing => self.guessing,
            Statistic::ColourChanges => self.colour_changes,
        }
    }
}

/// The red cards of the colour test on n cards: the top ⌊n/2⌋ of the starting order, cards
/// 0 … ⌊n/2⌋ − 1 (the rest black).
pub const fn reds(n: usize) -> usize {
    n / 2
}

/// The number of valleys of `deck`: positions i, 0 < i < n − 1, with
/// deck\[i − 1\] > deck\[i\] < deck\[i + 1\].
#[inline]
pub fn valleys(deck: &[Card]) -> usize {
    deck.windows(3)
        // `&`, not `&&`: both comparisons made, so that no branch waits on a coin toss.
        .map(|w| usize::from((w[0] > w[1]) & (w[1] < w[2])))
        .sum()
}

/// Colour changes between neighbours when cards 0 … ⌊n/2⌋ − 1 are red and the rest black (the
/// test of Diaconis, Fulman & Holmes: reds on top before the shuffle).
#[inline]
pub fn colour_changes(deck: &[Card]) -> usize {
    let red = reds(deck.len());
    deck.windows(2)
        .map(|w| usize::from((usize::from(w[0]) < red) != (usize::from(w[1]) < red)))
        .sum()
}

/// The guessing game: the cards of `deck` are shown one at a time from the top, each after a
/// player has guessed it; the number guessed right.
///
/// The strategy is the one structure-exploiting players use against riffle and shelf shuffles,
/// whose decks are made of runs that rise or fall through consecutive starting positions: guess
/// the top card of the start (card 0) first; then, after a card that rose above the one before
/// it (or the first card), the nearest unseen card above it, and after a fall the nearest unseen
/// card below it — the other way when none is left on that side. It is not optimal (a player
/// who used the whole history, and the shuffle's law, would do better), but it guesses only
/// unseen cards, so against a uniform deck its score has exactly the law of any such strategy:
/// the k-th last card is guessed right with chance 1/k independently of the rest, the sum of
/// independent Bernoulli(1/k), k = 1 … n, whose law is that of the cycles (Stirling numbers of
/// the first kind over n!), mean H_n.
pub fn guessing_score(deck: &[Card]) -> usize {
    if deck.len() <= 64 {
        guessing_score_small(deck)
    } else if deck.len() <= multiword::MULTIWORD_DECK {
        multiword::guessing_score(deck)
    } else {
        guessing_score_wide(deck)
    }
}

/// [`guessing_score`] for at most 64 cards: the unseen cards in one word.
#[inline]
pub fn guessing_score_small(deck: &[Card]) -> usize {
    let n = deck.len();
    debug_assert!(n <= 64);
    let Some((&first, rest)) = deck.split_first() else {
        return 0;
    };
    let mut unseen = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let mut right = usize::from(first == 0);
    let mut last = usize::from(first);
    let mut rising = true;
    unseen &= !(1u64 << last);
    for &card in rest {
        let card = usize::from(card);
        let (guess, _) = guess_after(unseen, last, rising);
        right += usize::from(guess == card);
        rising = card > last;
        last = card;
        unseen &= !(1u64 << card);
    }
    right
}

/// The guessing game's next guess from the cards still unseen (a word, at most 64 cards), the
/// last card shown and whether it rose: the nearest unseen card above it after a rise and below
/// it after a fall, the other side when that one is empty. Branch-free (a rise or a fall is a
/// coin toss to the branch predictor); the second value is whether the guess was above.
#[inline(always)]
pub fn guess_after(unseen: u64, last: usize, rising: bool) -> (usize, bool) {
    let above = unseen & ((u64::MAX << last) << 1);
    let below = unseen & ((1u64 << last) - 1);
    // `| 1` keeps leading_zeros defined; a guess from an empty side is never used.
    let nearest_above = above.trailing_zeros() as usize;
    let nearest_below = 63 - (below | 1).leading_zeros() as usize;
    let up = (rising & (above != 0)) | (!rising & (below == 0));
    (if up { nearest_above } else { nearest_below }, up)
}

/// [`guessing_score`] for any deck (those of more than [`multiword::MULTIWORD_DECK`] cards, past
/// any tally): the unseen cards in a bit set, searched word by word.
fn guessing_score_wide(deck: &[Card]) -> usize {
    let n = deck.len();
    let mut unseen = vec![0u64; n.div_ceil(64)];
    let unseen = unseen.as_mut_slice();
    for card in 0..n {
        unseen[card / 64] |= 1 << (card % 64);
    }
    let nearest_above = |unseen: &[u64], card: usize| -> Option<usize> {
        let word = card / 64;
        let first = unseen[word] & ((u64::MAX << (card % 64)) << 1);
        if first != 0 {
            return Some(word * 64 + first.trailing_zeros() as usize);
        }
        (word + 1..unseen.len())
            .find(|&w| unseen[w] != 0)
            .map(|w| w * 64 + unseen[w].trailing_zeros() as usize)
    };
    let nearest_below = |unseen: &[u64], card: usize| -> Option<usize> {
        let word = card / 64;
        let first = unseen[word] & ((1u64 << (card % 64)) - 1);
        if first != 0 {
            return Some(word * 64 + 63 - first.leading_zeros() as usize);
        }
        (0..word)
            .rev()
            .find(|&w| unseen[w] != 0)
            .map(|w| w * 64 + 63 - unseen[w].leading_zeros() as usize)
    };
    let mut right = 0;
    let mut last: Option<usize> = None;
    let mut rising = true;
    for &card in deck {
        let card = usize::from(card);
        let guess = match last {
            None => Some(0),
            Some(last) if rising => {
                nearest_above(unseen, last).or_else(|| nearest_below(unseen, last))
            }
            Some(last) => nearest_below(unseen, last).or_else(|| nearest_above(unseen, last)),
        };
        right += usize::from(guess == Some(card));
        rising = last.is_none_or(|last| card > last);
        last = Some(card);
        unseen[card / 64] &= !(1 << (card % 64));
    }
    right
}

#[inline]
fn fixed_points(deck: &[Card]) -> usize {
    deck.iter()
        .enumerate()
        .filter(|&(position, &card)| usize::from(card) == position)
        .count()
}

#[inline]
fn adjacent_pairs(deck: &[Card]) -> usize {
    deck.windows(2)
        .filter(|pair| u32::from(pair[1]) == u32::from(pair[0]) + 1)
        .count()
}

/// Writes the inverse permutation (`positions[card] = position`) into the first n cells of
/// `scratch` and returns them.
#[inline]
fn inverse_into<'a>(deck: &[Card], scratch: &'a mut [usize]) -> &'a mut [usize] {
    let positions = &mut scratch[..deck.len()];
    for (position, &card) in deck.iter().enumerate() {
        positions[usize::from(card)] = position;
    }
    positions
}

/// r = 1 + #{c : pos(c + 1) < pos(c)}, for n ≥ 1 (0 for the empty deck).
#[inline]
fn rising_sequences_of_inverse(positions: &[usize]) -> usize {
    if positions.is_empty() {
        return 0;
    }
    1 + positions
        .windows(2)
        .filter(|pair| pair[1] < pair[0])
        .count()
}

/// The number of cycles of the permutation `positions` (the inverse of `deck`; a permutation and
/// its inverse have the same cycles), each walked from both ends at once: forward through
/// `positions` and backward through `deck`, marking visited entries with `usize::MAX`, until the
/// two walks meet. Two chains of dependent loads, each half as long as one walk's, which the CPU
/// runs side by side (`positions` is destroyed).
#[inline]
fn count_cycles_both_ways(positions: &mut [usize], deck: &[Card]) -> usize {
    const VISITED: usize = usize::MAX;
    debug_assert_eq!(positions.len(), deck.len());
    let mut cycles = 0;
    for start in 0..positions.len() {
        if positions[start] == VISITED {
            continue;
        }
        cycles += 1;
        // The next unvisited element each way, until one of them has been visited: the walks
        // have met, and every element of the cycle is visited once.
        let mut forward = positions[start];
        let mut backward = usize::from(deck[start]);
        positions[start] = VISITED;
        loop {
            let after = positions[forward];
            if after == VISITED {
                break;
            }
            positions[forward] = VISITED;
            if positions[backward] == VISITED {
                break;
            }
            let before = usize::from(deck[backward]);
            positions[backward] = VISITED;
            forward = after;
            backward = before;
        }
    }
    cycles
}

/// Whether inversions and the guessing game on decks of 65 to [`multiword::MULTIWORD_DECK`] cards
/// run compiled for this CPU's one-instruction bit counts (`--version` says so).
pub fn multiword_bits_available() -> bool {
    multiword::fast_bits()
}

/// Inversions of a deck: pairs of positions i < j with deck\[i\] > deck\[j\].
///
/// Decks of at most 64 cards take one pass over a bit set, decks of up to
/// [`multiword::MULTIWORD_DECK`] one pass over a bit set of words with a count of the cards seen
/// before each word; larger ones O(n log n) with a Fenwick tree in `scratch` (at least n + 1
/// entries, overwritten).
pub fn inversions(deck: &[Card], scratch: &mut [usize]) -> usize {
    let n = deck.len();
    if n <= 64 {
        return inversions_in_bit_set(deck);
    }
    if n <= multiword::MULTIWORD_DECK {
        return multiword::inversions(deck);
    }
    let tree = &mut scratch[..=n];
    tree.fill(0);
    let mut count = 0;
    for (seen, &card) in deck.iter().enumerate() {
        // Cards ≤ card seen so far, by a prefix sum over 1-based indices.
        let mut at = usize::from(card) + 1;
        let mut not_above = 0;
        while at > 0 {
            not_above += tree[at];
            at &= at - 1;
        }
        count += seen - not_above;
        let mut at = usize::from(card) + 1;
        while at <= n {
            tree[at] += 1;
            at += at & at.wrapping_neg();
        }
    }
    count
}

/// [`inversions`] of a deck of at most 64 cards: one pass over a bit set of the cards seen
/// (inlined, so that a caller compiled for POPCNT counts each word in one instruction).
#[inline(always)]
pub fn inversions_in_bit_set(deck: &[Card]) -> usize {
    debug_assert!(deck.len() <= 64);
    let mut seen = 0u64;
    let mut count = 0;
    for &card in deck {
        let card = u32::from(card) & 63;
        // Cards above `card` seen earlier.
        count += (seen & (!1u64 << card)).count_ones() as usize;
        seen |= 1 << card;
    }
    count
}

/// Descents of a deck: positions i with deck\[i\] > deck\[i + 1\].
#[inline]
pub fn descents(deck: &[Card]) -> usize {
    deck.windows(2).filter(|pair| pair[1] < pair[0]).count()
}

/// Spearman's footrule Σ |deck\[i\] − i|.
#[inline]
pub fn footrule(deck: &[Card]) -> usize {
    deck.iter()
        .enumerate()
        .map(|(position, &card)| usize::from(card).abs_diff(position))
        .sum()
}

/// The length of the longest increasing subsequence of a deck, by patience sorting (the pile
/// tops, increasing, in `scratch`, at least n entries; binary search for the pile of each
/// card). Decks of at most 64 cards keep the pile tops as a bit set instead: a card replaces
/// the least top above it, or starts a pile.
pub fn longest_increasing(deck: &[Card], scratch: &mut [usize]) -> usize {
    if deck.len() <= 64 {
        let mut tops = 0u64;
        for &card in deck {
            let above = tops & (!1u64 << u32::from(card));
            tops = (tops & !(above & above.wrapping_neg())) | 1 << card;
        }
        return tops.count_ones() as usize;
    }
    let mut piles = 0;
    for &card in deck {
        let card = usize::from(card);
        let pile = scratch[..piles].partition_point(|&top| top < card);
        scratch[pile] = card;
        piles += usize::from(pile == piles);
    }
    piles
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The number of cycles of a permutation, each walked one way, marking visited entries with
    /// `usize::MAX` (the permutation is destroyed): the reference for the two-way walk.
    fn count_cycles_destroying(permutation: &mut [usize]) -> usize {
        const VISITED: usize = usize::MAX;
        let mut cycles = 0;
        for start in 0..permutation.len() {
            if permutation[start] == VISITED {
                continue;
            }
            cycles += 1;
            let mut at = start;
            while permutation[at] != VISITED {
                let next = permutation[at];
                permutation[at] = VISITED;
                at = next;
            }
        }
        cycles
    }

    #[test]
    fn cycles_walked_from_both_ends_are_those_walked_one_way() {
        // Every deck of up to 6 cards (cycles of every length and number), and SplitMix64
        // Fisher–Yates decks of 7 to 70, 130 and 1,000 cards.
        let check = |deck: &[Card]| {
            let n = deck.len();
            let mut scratch = vec![0; n];
            let one_way = count_cycles_destroying(inverse_into(deck, &mut scratch));
            let both = count_cycles_both_ways(inverse_into(deck, &mut scratch), deck);
            assert_eq!(both, one_way, "{deck:?}");
        };
        for n in 0..=6 {
            let mut deck: Vec<Card> = (0..n as Card).collect();
            loop {
                check(&deck);
                if !crate::engine::permutation::next_permutation(&mut deck) {
                    break;
                }
            }
        }
        let mut state = 11u64;
        for n in (7..=70).chain([130, 1000]) {
            for _ in 0..20 {
                let mut deck: Vec<Card> = (0..n as Card).collect();
                for i in (1..n).rev() {
                    let j = crate::engine::random_source::splitmix64(&mut state) % (i as u64 + 1);
                    deck.swap(i, j as usize);
                }
                check(&deck);
            }
        }
    }
}
