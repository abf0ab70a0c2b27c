//! Sorting algorithms run with a random comparator: every comparison is an independent fair coin.
//!
//! This is `arr.sort(() => Math.random() - 0.5)` and its relatives. The result looks shuffled,
//! but the law depends on the sort's comparison pattern and is never uniform for n ≥ 3 (each
//! outcome has a probability that is a sum of powers of 1/2, and 1/n! is not such a sum).
//!
//! In every sort here, `rng.coin()` answers the comparator's question "is the first argument
//! strictly less than the second?". The sorts are written out rather than taken from the standard
//! library, whose `sort_by` may panic on an inconsistent comparator.

use super::Card;
use crate::engine::random_source::RandomSource;

/// `comparator-insertion`: straight insertion sort. Each new card is compared with its left
/// neighbour and moved left while the comparator says it is less.
pub fn insertion<R: RandomSource>(deck: &mut [Card], rng: &mut R) {
    for i in 1..deck.len() {
        let mut j = i;
        while j > 0 && rng.coin() {
            deck.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// `comparator-merge`: top-down merge sort, left half the first ⌊n/2⌋ cards. While both halves
/// have cards, the comparator is asked whether the right head is less than the left head; if so
/// the right head is taken, otherwise the left (a stable merge). `scratch` must be at least as
/// long as `deck`.
pub fn merge<R: RandomSource>(deck: &mut [Card], scratch: &mut [Card], rng: &mut R) {
    let n = deck.len();
    if n < 2 {
        return;
    }
    let mid = n / 2;
    merge(&mut deck[..mid], scratch, rng);
    merge(&mut deck[mid..], scratch, rng);
    let merged = &mut scratch[..n];
    merged.copy_from_slice(deck);
    let (mut left, mut right, mut out) = (0, mid, 0);
    while left < mid && right < n {
        if rng.coin() {
            deck[out] = merged[right];
            right += 1;
        } else {
            deck[out] = merged[left];
            left += 1;
        }
        out += 1;
    }
    let rest = if left < mid {
        &merged[left..mid]
    } else {
        &merged[right..n]
    };
    deck[out..].copy_from_slice(rest);
}

/// `comparator-quick`: quicksort with Lomuto's partition, the last card as pivot. Each other card
/// is compared with the pivot once per partition; those "less" are swapped to the front.
pub fn quick<R: RandomSource>(deck: &mut [Card], rng: &mut R) {
    let n = deck.len();
    if n < 2 {
        return;
    }
    let last = n - 1;
    let mut store = 0;
    for j in 0..last {
        if rng.coin() {
            deck.swap(store, j);
            store += 1;
        }
    }
    deck.swap(store, last);
    let (left, right) = deck.split_at_mut(store);
    quick(left, rng);
    quick(&mut right[1..], rng);
}

/// `comparator-timsort`: the short-array path of the TimSort in JavaScript engines (V8's
/// `ArrayTimSort` for arrays shorter than its minimum run of 32–64): find the first run — it
/// continues while each card is not less than its predecessor (ascending) or, if the second card
/// is less than the first, while each card is strictly less (descending, then reversed) — then
/// binary-insertion-sort every remaining card into the sorted prefix.
pub fn timsort<R: RandomSource>(deck: &mut [Card], rng: &mut R) {
    let n = deck.len();
    if n < 2 {
        return;
    }
    let run = first_run(deck, rng);
    binary_insertion(deck, run, rng);
}

/// The length of the run at the start of `deck` (at least 2 when n ≥ 2), reversed in place if it
/// is descending. Each step asks "is this card less than the previous one?".
fn first_run<R: RandomSource>(deck: &mut [Card], rng: &mut R) -> usize {
    let n = deck.len();
    let descending = rng.coin();
    let mut run = 2;
    while run < n && rng.coin() == descending {
        run += 1;
    }
    if descending {
        deck[..run].reverse();
    }
    run
}

/// Insert cards `sorted..n` one by one into the prefix `deck[..i]` by binary search: the pivot
/// goes left of `mid` when the comparator says it is less than `deck[mid]`, else right.
fn binary_insertion<R: RandomSource>(deck: &mut [Card], sorted: usize, rng: &mut R) {
    for start in sorted..deck.len() {
        let pivot = deck[start];
        let (mut left, mut right) = (0, start);
        while left < right {
            let mid = left + (right - left) / 2;
            if rng.coin() {
                right = mid;
            } else {
                left = mid + 1;
            }
        }
        deck.copy_within(left..start, left + 1);
        deck[left] = pivot;
    }
}
