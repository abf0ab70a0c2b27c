//! Permutations of a small deck: factorials, and the Lehmer-code rank that indexes the tally.
//!
//! A permutation is written as the deck after shuffling: `deck[position] = card`, card `c`
//! having started at position `c`. Ranks are lexicographic, so rank 0 is the identity (the deck
//! unchanged) and rank n!−1 is the reversed deck.

use crate::engine::algorithms::Card;

#[cfg(target_arch = "x86_64")]
pub mod vector_rank;

/// The largest deck whose n! orderings are tallied one by one.
pub const MAX_FULL_DECK: usize = 11;

/// n! for n = 0..=20 (20! is the largest factorial that fits in a u64).
pub const FACTORIALS: [u64; 21] = {
    let mut table = [1u64; 21];
    let mut i = 1;
    while i < 21 {
        table[i] = table[i - 1] * i as u64;
        i += 1;
    }
    table
};

/// n!, for n ≤ 20.
pub fn factorial(n: usize) -> u64 {
    FACTORIALS[n]
}

/// The lexicographic rank of `deck` among the permutations of its length (n ≤ 16).
///
/// Lehmer code: the digit of position i is the number of cards not yet placed that are smaller
/// than `deck[i]`, computed with one popcount over a bit mask of the cards already placed.
#[inline(always)]
pub fn rank(deck: &[Card]) -> usize {
    let n = deck.len();
    debug_assert!(n <= 16);
    let mut placed: u32 = 0;
    let mut rank = 0u64;
    for (i, &card) in deck.iter().enumerate().take(n.saturating_sub(1)) {
        let card = u32::from(card);
        let smaller_placed = (placed & ((1u32 << card) - 1)).count_ones();
        rank += u64::from(card - smaller_placed) * FACTORIALS[n - 1 - i];
        placed |= 1 << card;
    }
    rank as usize
}

/// The composition σ'∘σ⁻¹ of two decks as a map of cards: `out[c]` is the card of `next` at
/// the slot where `previous` held card c (`slot_of_previous[c]`). Its fixed points are the
/// slots at which the two decks show the same card. The deal stream counts consecutive decks'
/// compositions with it, and the law of the composition under independence is formed with it
/// (one definition for both).
#[inline]
pub fn composition_into(slot_of_previous: &[usize], next: &[Card], out: &mut [Card]) {
    for (card, target) in out.iter_mut().enumerate() {
        *target = next[slot_of_previous[card]];
    }
}

/// The largest deck that [`rank_array`] ranks by table look-ups instead of [`rank`]'s loop.
pub const TABLE_RANK_MAX_DECK: usize = 8;

/// Cards a rank-table key holds, and bits per card in it (cards of decks up to 8 fit in 3).
const KEY_CARDS: usize = 4;
const KEY_BITS: usize = 3;
/// Entries of one rank table: every key of [`KEY_CARDS`] fields of [`KEY_BITS`] bits.
const KEY_SPACE: usize = 1 << (KEY_CARDS * KEY_BITS);

/// The key of up to four cards: card k of `cards` in bits 3k..3k+3. The key is masked to
/// [`KEY_SPACE`], so it indexes the tables whatever the cards (for cards that are not below 8 the
/// fields overlap, which gives some in-bounds entry).
///
/// The cards are read one at a time on purpose (volatile reads, which the compiler may not merge):
/// the shuffle has just written them one by one, and a single wide read of several of them would
/// have to wait for all those writes to reach the cache (a failed store forwarding; the compiler
/// vectorised the key that way and made the 4-card loop 2.5 times slower).
#[inline(always)]
fn table_key(cards: &[Card]) -> usize {
    let mut key = 0;
    for (k, card) in cards.iter().enumerate() {
        // SAFETY: `card` is a reference, so valid and aligned for a read.
        let card = unsafe { std::ptr::read_volatile(card) };
        key |= usize::from(card) << (KEY_BITS * k);
    }
    key & (KEY_SPACE - 1)
}

/// The 3-bit field `k` of a table key.
const fn key_field(key: usize, k: usize) -> usize {
    (key >> (KEY_BITS * k)) & 7
}

/// Whether the first `fields` fields of `key` are distinct and below `n`.
const fn key_is_partial_permutation(key: usize, fields: usize, n: usize) -> bool {
    let mut i = 0;
    while i < fields {
        if key_field(key, i) >= n {
            return false;
        }
        let mut j = 0;
        while j < i {
            if key_field(key, j) == key_field(key, i) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// `HEAD_RANKS[n][key]`: the part of the rank of an n-card deck (n ≤ 8) that its first
/// min(n − 1, 4) cards fix, for the key of those cards: Σ digit_i · (n−1−i)!, where digit i counts
/// the cards not yet placed that are smaller than card i (the Lehmer code, as in [`rank`]; the
/// last card's digit is always 0, so up to 5 cards this is the whole rank). Keys that are not
/// distinct cards below n get 0, so every entry is at most n! − (n−4)! (n! − 1 for n ≤ 5).
static HEAD_RANKS: [[u16; KEY_SPACE]; TABLE_RANK_MAX_DECK + 1] = {
    let mut tables = [[0u16; KEY_SPACE]; TABLE_RANK_MAX_DECK + 1];
    let mut n = 1;
    while n <= TABLE_RANK_MAX_DECK {
        let fields = if n - 1 < KEY_CARDS { n - 1 } else { KEY_CARDS };
        let mut key = 0;
        while key < KEY_SPACE {
            if key_is_partial_permutation(key, fields, n) {
                let mut rank = 0;
                let mut i = 0;
                while i < fields {
                    let card = key_field(key, i);
                    let mut smaller_placed = 0;
                    let mut j = 0;
                    while j < i {
                        if key_field(key, j) < card {
                            smaller_placed += 1;
                        }
                        j += 1;
                    }
                    rank += (card - smaller_placed) * FACTORIALS[n - 1 - i] as usize;
                    i += 1;
                }
                tables[n][key] = rank as u16;
            }
            key += 1;
        }
        n += 1;
    }
    tables
};

/// `TAIL_RANKS[m][key]`: the rest of the rank of an n-card deck (5 < n ≤ 8), fixed by its last
/// m = n − 4 cards: the
/// lexicographic rank of their relative order among the m! orders. (Digit i of the Lehmer code
/// also counts the cards *after* position i that are smaller than card i, which for the last m
/// positions depends on those m cards alone.) Keys whose first m fields are not distinct get 0,
/// so every entry is below m!.
static TAIL_RANKS: [[u8; KEY_SPACE]; KEY_CARDS + 1] = {
    let mut tables = [[0u8; KEY_SPACE]; KEY_CARDS + 1];
    let mut m = 1;
    while m <= KEY_CARDS {
        let mut key = 0;
        while key < KEY_SPACE {
            if key_is_partial_permutation(key, m, 8) {
                let mut rank = 0;
                let mut i = 0;
                while i < m {
                    let mut smaller_after = 0;
                    let mut j = i + 1;
                    while j < m {
                        if key_field(key, j) < key_field(key, i) {
                            smaller_after += 1;
                        }
                        j += 1;
                    }
                    rank += smaller_after * FACTORIALS[m - 1 - i] as usize;
                    i += 1;
                }
                tables[m][key] = rank as u8;
            }
            key += 1;
        }
        m += 1;
    }
    tables
};

/// [`rank`] for a deck of a size fixed at compile time: the same value for every permutation.
///
/// Up to [`TABLE_RANK_MAX_DECK`] cards it is one table look-up up to 5 cards, two from 6 (the
/// first four cards' part of the rank, then the last n − 4 cards' part), which is cheaper than the popcount chain of
/// [`rank`]; and then the result is below n! for *every* deck, permutation or not (each table is
/// bounded; see `HEAD_RANKS` and `TAIL_RANKS`), which is what lets the simulation index its
/// tally without a bounds check. Larger decks use [`rank`].
#[inline(always)]
pub fn rank_array<const N: usize>(deck: &[Card; N]) -> usize {
    if N > TABLE_RANK_MAX_DECK {
        return rank(deck);
    }
    if N <= KEY_CARDS + 1 {
        return usize::from(HEAD_RANKS[N][table_key(&deck[..N.saturating_sub(1)])]);
    }
    let (head, tail) = deck.split_at(KEY_CARDS);
    usize::from(HEAD_RANKS[N][table_key(head)])
        + usize::from(TAIL_RANKS[N - KEY_CARDS][table_key(tail)])
}

/// How a worker loop ranks its decks and their compositions: [`ScalarRanks`] on any CPU, and on
/// x86-64 [`VectorRanks`], in a loop compiled with the features it names. Both give the same
/// ranks; the choice is made once, outside the loop, so that each rank is inlined.
pub(crate) trait Ranks {
    /// [`rank_array`] of `deck`.
    ///
    /// # Safety
    /// The CPU must support the features the implementation names.
    unsafe fn rank<const N: usize>(deck: &[Card; N]) -> usize;

    /// The rank of the composition π(c) = `deck[slot_of[c]]`, the card of `deck` at the slot
    /// where the previous deck held card c; below N! whatever `slot_of` holds.
    ///
    /// # Safety
    /// As for [`Ranks::rank`].
    unsafe fn composition_rank<const N: usize>(deck: &[Card; N], slot_of: &[u8; N]) -> usize;

    /// Whether decks of N cards are ranked by vector loads, which should come well after the
    /// cards were stored (a load of bytes just stored one by one waits for the stores to reach
    /// the cache): the loops then shuffle a batch of decks before ranking any. When it holds,
    /// the CPU has AVX-512 F and BW, which other vector code of those loops may use.
    fn in_vectors<const N: usize>() -> bool;
}

/// [`Ranks`] by [`rank_array`], on any CPU.
pub(crate) struct ScalarRanks;

impl Ranks for ScalarRanks {
    #[inline(always)]
    unsafe fn rank<const N: usize>(deck: &[Card; N]) -> usize {
        rank_array(deck)
    }

    #[inline(always)]
    unsafe fn composition_rank<const N: usize>(deck: &[Card; N], slot_of: &[u8; N]) -> usize {
        // Slots are below N ≤ 16: the mask only lets the compiler drop the bounds checks.
        let mut padded = [0 as Card; 16];
        padded[..N].copy_from_slice(deck);
        let composition: [Card; N] =
            std::array::from_fn(|c| padded[usize::from(slot_of[c]) & 15]);
        rank_array(&composition)
    }

    #[inline(always)]
    fn in_vectors<const N: usize>() -> bool {
        false
    }
}

/// [`Ranks`] by [`vector_rank`] for decks of [`vector_rank::FROM_DECK`] to
/// [`vector_rank::TO_DECK`] cards (by [`ScalarRanks`] for the others): the CPU must support
/// AVX-512 F, BW and VBMI ([`VectorRanks::available`]).
#[cfg(target_arch = "x86_64")]
pub(crate) struct VectorRanks;

#[cfg(target_arch = "x86_64")]
impl VectorRanks {
    /// Whether this CPU has the features [`VectorRanks`] needs.
    pub(crate) fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
    }

    /// Whether decks of `n` cards are ranked in vectors (and not as [`ScalarRanks`] does).
    pub(crate) const fn ranks_deck(n: usize) -> bool {
        vector_rank::FROM_DECK <= n && n <= vector_rank::TO_DECK
    }
}

#[cfg(target_arch = "x86_64")]
impl Ranks for VectorRanks {
    #[inline(always)]
    unsafe fn rank<const N: usize>(deck: &[Card; N]) -> usize {
        if N >= vector_rank::FROM_DECK && N <= vector_rank::TO_DECK {
            // SAFETY: the CPU features are the caller's to ensure.
            unsafe { vector_rank::rank(deck) }
        } else {
            rank_array(deck)
        }
    }

    #[inline(always)]
    unsafe fn composition_rank<const N: usize>(deck: &[Card; N], slot_of: &[u8; N]) -> usize {
        if N >= vector_rank::FROM_DECK && N <= vector_rank::TO_DECK {
            // SAFETY: the CPU features are the caller's to ensure.
            unsafe { vector_rank::composition_rank(deck, slot_of) }
        } else {
            // SAFETY: needs no feature.
            unsafe { ScalarRanks::composition_rank(deck, slot_of) }
        }
    }

    #[inline(always)]
    fn in_vectors<const N: usize>() -> bool {
        Self::ranks_deck(N)
    }
}

/// Write into `deck` the permutation of `deck.len()` ≤ 16 cards with lexicographic rank
/// `rank`: [`unrank`] without an allocation. The cards not yet placed sit in a 64-bit word, four
/// bits each in increasing order; each Lehmer digit picks one out and closes the gap.
pub fn unrank_into(mut rank: usize, deck: &mut [Card]) {
    let n = deck.len();
    assert!(n <= 16, "unrank_into takes at most 16 cards");
    let mut remaining: u64 = (0..n as u64).fold(0, |word, card| word | (card << (4 * card)));
    for (i, slot) in deck.iter_mut().enumerate() {
        let weight = FACTORIALS[n - 1 - i] as usize;
        let digit = rank / weight;
        rank %= weight;
        let shift = 4 * digit as u32;
        *slot = ((remaining >> shift) & 0xf) as Card;
        let below = remaining & ((1u64 << shift) - 1);
        // Two shifts of at most 60 bits: the sixteenth card's would be 64.
        remaining = below | (((remaining >> shift) >> 4) << shift);
    }
}

/// The permutation of n cards with lexicographic rank `rank` (the inverse of [`rank`]).
pub fn unrank(mut rank: usize, n: usize) -> Vec<Card> {
    if n <= 16 {
        let mut deck = vec![0; n];
        unrank_into(rank, &mut deck);
        return deck;
    }
    let mut remaining: Vec<Card> = (0..n as Card).collect();
    let mut deck = Vec::with_capacity(n);
    for i in 0..n {
        let weight = FACTORIALS[n - 1 - i] as usize;
        let digit = rank / weight;
        rank %= weight;
        deck.push(remaining.remove(digit));
    }
    deck
}

/// Call `visit(rank, deck)` for every permutation of n cards in rank order (lexicographic), stepping
/// from one to the next with the classic next-permutation algorithm (amortised O(1) per step),
/// which is much cheaper than unranking each one.
pub fn for_each_in_rank_order(n: usize, visit: impl FnMut(usize, &[Card])) {
    for_each_in_rank_range(n, 0..factorial(n) as usize, visit);
}

/// Step `deck` to the next permutation in lexicographic order; false (and `deck` unchanged)
/// when it is the last.
pub fn next_permutation(deck: &mut [Card]) -> bool {
    let n = deck.len();
    // The longest non-increasing suffix; the card before it is the pivot.
    let Some(pivot) = (1..n).rev().find(|&i| deck[i - 1] < deck[i]).map(|i| i - 1) else {
        return false;
    };
    let successor = (pivot + 1..n)
        .rev()
        .find(|&i| deck[i] > deck[pivot])
        .expect("a larger card follows the pivot");
    deck.swap(pivot, successor);
    deck[pivot + 1..].reverse();
    true
}

/// [`for_each_in_rank_order`] over the ranks `ranks` only (of n! in all): the first unranked,
/// the others stepped to as there.
pub fn for_each_in_rank_range(
    n: usize,
    ranks: std::ops::Range<usize>,
    mut visit: impl FnMut(usize, &[Card]),
) {
    if ranks.is_empty() {
        return;
    }
    let mut deck = unrank(ranks.start, n);
    for rank in ranks {
        visit(rank, &deck);
        if !next_permutation(&mut deck) {
            return;
        }
    }
}

/// A permutation as text: cards separated by spaces, e.g. `2 0 3 1`.
pub fn format_permutation(deck: &[Card]) -> String {
    let mut text = String::with_capacity(deck.len() * 3);
    for (i, card) in deck.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(&card.to_string());
    }
    text
}

/// The number of cycles of a permutation, counting fixed points.
pub fn cycle_count(deck: &[Card]) -> usize {
    let mut seen = vec![false; deck.len()];
    let mut cycles = 0;
    for start in 0..deck.len() {
        if !seen[start] {
            cycles += 1;
            let mut at = start;
            while !seen[at] {
                seen[at] = true;
                at = usize::from(deck[at]);
            }
        }
    }
    cycles
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_of_ranks_visits_what_the_whole_walk_visits_there() {
        for n in 1..=6 {
            let mut all: Vec<(usize, Vec<Card>)> = Vec::new();
            for_each_in_rank_order(n, |rank, deck| all.push((rank, deck.to_vec())));
            let cells = all.len();
            for (start, end) in [
                (0, cells),
                (0, 1),
                (cells / 3, cells / 2),
                (cells - 1, cells),
                (2, 2),
            ] {
                let mut part = Vec::new();
                for_each_in_rank_range(n, start..end.min(cells), |rank, deck| {
                    part.push((rank, deck.to_vec()))
                });
                assert_eq!(
                    part,
                    all[start.min(cells)..end.min(cells)],
                    "{n} cards, {start}..{end}"
                );
            }
        }
    }

    #[test]
    fn factorials_match_known_values() {
        assert_eq!(factorial(0), 1);
        assert_eq!(factorial(4), 24);
        assert_eq!(factorial(11), 39_916_800);
        assert_eq!(factorial(20), 2_432_902_008_176_640_000);
    }

    #[test]
    fn rank_and_unrank_are_inverse_bijections_up_to_eight_cards() {
        for n in 1..=8 {
            let count = factorial(n) as usize;
            let mut previous: Option<Vec<Card>> = None;
            for r in 0..count {
                let deck = unrank(r, n);
                assert_eq!(rank(&deck), r, "n={n} rank {r}");
                let mut sorted = deck.clone();
                sorted.sort_unstable();
                assert_eq!(sorted, (0..n as Card).collect::<Vec<_>>());
                // Strictly increasing in lexicographic order means no rank is reused.
                if let Some(prev) = &previous {
                    assert!(prev < &deck);
                }
                previous = Some(deck);
            }
        }
    }

    #[test]
    fn rank_zero_is_the_identity_and_the_last_rank_is_the_reversal() {
        assert_eq!(unrank(0, 5), vec![0, 1, 2, 3, 4]);
        assert_eq!(unrank(119, 5), vec![4, 3, 2, 1, 0]);
        assert_eq!(rank(&[10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]), 39_916_799);
    }

    #[test]
    fn rank_order_iteration_agrees_with_unrank() {
        for n in 1..=6 {
            let mut visited = 0;
            for_each_in_rank_order(n, |r, deck| {
                assert_eq!(deck, unrank(r, n).as_slice());
                visited += 1;
            });
            assert_eq!(visited, factorial(n) as usize);
        }
    }

    #[test]
    fn the_packed_unrank_picks_the_same_cards_as_removing_from_a_list_up_to_sixteen_cards() {
        // The definition: each Lehmer digit removes that card from the list of those left.
        fn by_removal(mut rank: usize, n: usize) -> Vec<Card> {
            let mut remaining: Vec<Card> = (0..n as Card).collect();
            (0..n)
                .map(|i| {
                    let weight = FACTORIALS[n - 1 - i] as usize;
                    let digit = rank / weight;
                    rank %= weight;
                    remaining.remove(digit)
                })
                .collect()
        }
        for n in [9, 10, 15, 16] {
            let last = factorial(n) as usize - 1;
            // The ends and a spread of ranks between them (a multiplicative walk mod n!).
            let ranks = [0, 1, last - 1, last].into_iter().chain(
                (1..2000u64)
                    .map(|k| (k.wrapping_mul(0x9e37_79b9_7f4a_7c15) % (last as u64 + 1)) as usize),
            );
            for r in ranks {
                let mut deck = vec![0; n];
                unrank_into(r, &mut deck);
                assert_eq!(deck, by_removal(r, n), "rank {r} of {n} cards");
                assert_eq!(rank(&deck), r);
            }
        }
        assert_eq!(
            unrank(7, 18),
            by_removal(7, 18),
            "beyond 16 cards, the list"
        );
    }

    fn check_rank_array<const N: usize>() {
        for_each_in_rank_order(N, |r, deck| {
            let deck: &[Card; N] = deck.try_into().unwrap();
            assert_eq!(rank_array(deck), r, "n={N} rank {r}");
        });
    }

    #[test]
    fn the_table_rank_agrees_with_the_lehmer_rank_for_every_permutation_up_to_nine_cards() {
        check_rank_array::<1>();
        check_rank_array::<2>();
        check_rank_array::<3>();
        check_rank_array::<4>();
        check_rank_array::<5>();
        check_rank_array::<6>();
        check_rank_array::<7>();
        check_rank_array::<8>();
        check_rank_array::<9>();
    }

    #[test]
    fn the_table_rank_is_below_n_factorial_for_every_key_even_of_non_permutations() {
        // The simulation's unchecked tally index relies on this bound.
        for n in 1..=TABLE_RANK_MAX_DECK {
            let head_max = HEAD_RANKS[n].iter().copied().max().unwrap() as u64;
            let tail_max = if n > KEY_CARDS + 1 {
                TAIL_RANKS[n - KEY_CARDS].iter().copied().max().unwrap() as u64
            } else {
                0
            };
            assert!(head_max + tail_max < factorial(n), "n={n}");
        }
        assert!(rank_array(&[7u16, 7, 7, 7, 7, 7, 7, 7]) < factorial(8) as usize);
        assert!(rank_array(&[9u16, 300, 2, 2]) < factorial(4) as usize);
    }

    #[test]
    fn cycles_are_counted_with_fixed_points() {
        assert_eq!(cycle_count(&[0, 1, 2]), 3);
        assert_eq!(cycle_count(&[1, 2, 0]), 1);
        assert_eq!(cycle_count(&[1, 0, 2]), 2);
    }
}
