//! PHP's `usort` with a random comparator: `zend_sort`, the hybrid insertion sort of the Zend
//! engine (php-src `Zend/zend_sort.c`, PHP 7.0 and later), driven by `rand()`.
//!
//! `usort($a, fn () => rand(-1, 1))` is a common "shuffle" in PHP code (Laravel's
//! `Collection::shuffle($seed)` was `srand($seed); usort($items, fn () => rand(-1, 1))`). The
//! sort is written here once, comparison for comparison as `zend_sort.c` makes them, generic
//! over the comparator; the three comparators are the three algorithms:
//!
//! - `zend-sort` (PHP 7, `rand(-1, 1)`): each comparison is `below(3) − 1`; only a 1 swaps.
//! - `zend-sort-coin` (PHP 7, `rand(0, 1)`): each comparison is `below(2)`; a 1 swaps.
//! - `zend-sort-stable` (PHP 8, `rand(-1, 1)`): PHP 8.0 made sorting stable
//!   (`ext/standard/array.c`: `RETURN_STABLE_SORT` falls back on `stable_sort_fallback`, which
//!   compares the elements' original positions in the array), so a 0 swaps exactly when the
//!   left element started after the right one.
//!
//! The sort only asks whether `cmp(a, b) > 0`, and a three-way answer is drawn as the one
//! `below(3)` draw `rand(-1, 1)` makes; the question is asked as [`RandomSource::bernoulli`]
//! (`below(3) < t`), which is that same draw for the simulation and one weighted two-way
//! branch for the exact engine.
//!
//! The comparisons, from `zend_sort.c`: up to 16 elements `zend_insert_sort`, which sorts 2 to
//! 5 elements with the hand-written decision trees `zend_sort_2` … `zend_sort_5` and 6 to 16 by
//! insertion (a linear search back for the first 6, then a search back two at a time);
//! beyond 16, a quicksort whose pivot is the median of 3 (of 5 from 1024 elements) by
//! `zend_sort_3` (`zend_sort_5`), recursing into the smaller part first.

use super::Card;
use crate::engine::random_source::RandomSource;

/// Sorts of at most this many elements are `zend_insert_sort`'s.
const INSERTION_MAX: usize = 16;

/// A comparator, as the sort asks it: "is `cmp(a, b) > 0`?" for the cards `a` and `b`.
trait Comparator {
    fn greater<R: RandomSource>(&self, a: Card, b: Card, rng: &mut R) -> bool;
}

/// PHP 7, `rand(-1, 1)`: `cmp > 0` iff `below(3) = 2`, i.e. not `below(3) < 2`.
struct ThreeWay;

impl Comparator for ThreeWay {
    #[inline(always)]
    fn greater<R: RandomSource>(&self, _: Card, _: Card, rng: &mut R) -> bool {
        !rng.bernoulli(2, 3)
    }
}

/// PHP 7, `rand(0, 1)`: `cmp > 0` iff `below(2) = 1`.
struct Coin;

impl Comparator for Coin {
    #[inline(always)]
    fn greater<R: RandomSource>(&self, _: Card, _: Card, rng: &mut R) -> bool {
        rng.below(2) == 1
    }
}

/// PHP 8, `rand(-1, 1)` with the stable fallback: `below(3) − 1` is 1 (swap), −1 (keep) or 0,
/// and a 0 compares the cards' positions when the sort began. So `cmp > 0` iff `below(3) ≥ 1`
/// when `a` started after `b` (not `below(3) < 1`), else iff `below(3) = 2` (not
/// `below(3) < 2`).
struct StableThreeWay<'a> {
    origin: &'a [Card],
}

impl Comparator for StableThreeWay<'_> {
    #[inline(always)]
    fn greater<R: RandomSource>(&self, a: Card, b: Card, rng: &mut R) -> bool {
        let a_started_after_b = self.origin[usize::from(a)] > self.origin[usize::from(b)];
        !rng.bernoulli(if a_started_after_b { 1 } else { 2 }, 3)
    }
}

/// `zend-sort`: PHP 7's `usort` with `rand(-1, 1)`.
pub fn zend_sort<R: RandomSource>(deck: &mut [Card], rng: &mut R) {
    sort(deck, &ThreeWay, rng);
}

/// `zend-sort-coin`: PHP 7's `usort` with `rand(0, 1)`.
pub fn zend_sort_coin<R: RandomSource>(deck: &mut [Card], rng: &mut R) {
    sort(deck, &Coin, rng);
}

/// `zend-sort-stable`: PHP 8's `usort` with `rand(-1, 1)`, ties broken by the original order.
/// `scratch` (at least as long as `deck`) holds each card's position when the sort began.
pub fn zend_sort_stable<R: RandomSource>(deck: &mut [Card], scratch: &mut [Card], rng: &mut R) {
    for (position, &card) in deck.iter().enumerate() {
        scratch[usize::from(card)] = position as Card;
    }
    sort(deck, &StableThreeWay { origin: scratch }, rng);
}

/// `cmp(deck[x], deck[y]) > 0` for the positions `x` and `y`.
#[inline(always)]
fn gt<C: Comparator, R: RandomSource>(
    deck: &[Card],
    x: usize,
    y: usize,
    cmp: &C,
    rng: &mut R,
) -> bool {
    cmp.greater(deck[x], deck[y], rng)
}

/// `zend_sort`: insertion sort up to 16 elements, else one quicksort partition and a recursion
/// into the smaller part, looping on the larger one.
fn sort<C: Comparator, R: RandomSource>(deck: &mut [Card], cmp: &C, rng: &mut R) {
    let (mut base, mut nmemb) = (0, deck.len());
    loop {
        if nmemb <= INSERTION_MAX {
            insert_sort(&mut deck[base..base + nmemb], cmp, rng);
            return;
        }
        let (start, end) = (base, base + nmemb);
        let offset = nmemb >> 1;
        let pivot = start + offset;
        if nmemb >> 10 != 0 {
            let delta = offset >> 1;
            sort_5(
                deck,
                [start, start + delta, pivot, pivot + delta, end - 1],
                cmp,
                rng,
            );
        } else {
            sort_3(deck, [start, pivot, end - 1], cmp, rng);
        }
        deck.swap(start + 1, pivot);
        let pivot = start + 1;
        let mut i = pivot + 1;
        let mut j = end - 1;
        'done: loop {
            while gt(deck, pivot, i, cmp, rng) {
                i += 1;
                if i == j {
                    break 'done;
                }
            }
            j -= 1;
            if j == i {
                break 'done;
            }
            while gt(deck, j, pivot, cmp, rng) {
                j -= 1;
                if j == i {
                    break 'done;
                }
            }
            deck.swap(i, j);
            i += 1;
            if i == j {
                break 'done;
            }
        }
        deck.swap(pivot, i - 1);
        if (i - 1) - start < end - i {
            sort(&mut deck[start..i - 1], cmp, rng);
            base = i;
            nmemb = end - i;
        } else {
            sort(&mut deck[i..end], cmp, rng);
            nmemb = i - start - 1;
        }
    }
}

/// `zend_sort_2`.
#[inline(always)]
fn sort_2<C: Comparator, R: RandomSource>(
    deck: &mut [Card],
    [a, b]: [usize; 2],
    cmp: &C,
    rng: &mut R,
) {
    if gt(deck, a, b, cmp, rng) {
        deck.swap(a, b);
    }
}

/// `zend_sort_3`: a decision tree of two or three comparisons.
fn sort_3<C: Comparator, R: RandomSource>(
    deck: &mut [Card],
    [a, b, c]: [usize; 3],
    cmp: &C,
    rng: &mut R,
) {
    if !gt(deck, a, b, cmp, rng) {
        if !gt(deck, b, c, cmp, rng) {
            return;
        }
        deck.swap(b, c);
        if gt(deck, a, b, cmp, rng) {
            deck.swap(a, b);
        }
        return;
    }
    if !gt(deck, c, b, cmp, rng) {
        deck.swap(a, c);
        return;
    }
    deck.swap(a, b);
    if gt(deck, b, c, cmp, rng) {
        deck.swap(b, c);
    }
}

/// `zend_sort_4`: `zend_sort_3`, then the fourth element sinks while `cmp > 0`.
fn sort_4<C: Comparator, R: RandomSource>(
    deck: &mut [Card],
    [a, b, c, d]: [usize; 4],
    cmp: &C,
    rng: &mut R,
) {
    sort_3(deck, [a, b, c], cmp, rng);
    sink(deck, &[a, b, c, d], cmp, rng);
}

/// `zend_sort_5`: `zend_sort_4`, then the fifth element sinks while `cmp > 0`.
fn sort_5<C: Comparator, R: RandomSource>(
    deck: &mut [Card],
    [a, b, c, d, e]: [usize; 5],
    cmp: &C,
    rng: &mut R,
) {
    sort_4(deck, [a, b, c, d], cmp, rng);
    sink(deck, &[a, b, c, d, e], cmp, rng);
}

/// The tail of `zend_sort_4` and `zend_sort_5`: for the last two positions, then the two before,
/// and so on, `if (cmp(x, y) > 0) { swp(x, y); …` nested until a comparison says no.
#[inline(always)]
fn sink<C: Comparator, R: RandomSource>(
    deck: &mut [Card],
    positions: &[usize],
    cmp: &C,
    rng: &mut R,
) {
    for pair in positions.windows(2).rev() {
        if !gt(deck, pair[0], pair[1], cmp, rng) {
            return;
        }
        deck.swap(pair[0], pair[1]);
    }
}

/// `zend_insert_sort` on a whole slice of at most 16 elements.
fn insert_sort<C: Comparator, R: RandomSource>(deck: &mut [Card], cmp: &C, rng: &mut R) {
    let n = deck.len();
    match n {
        0 | 1 => {}
        2 => sort_2(deck, [0, 1], cmp, rng),
        3 => sort_3(deck, [0, 1, 2], cmp, rng),
        4 => sort_4(deck, [0, 1, 2, 3], cmp, rng),
        5 => sort_5(deck, [0, 1, 2, 3, 4], cmp, rng),
        _ => {
            // The first six: search back one at a time for the insertion point.
            for i in 1..6 {
                let mut j = i - 1;
                if !gt(deck, j, i, cmp, rng) {
                    continue;
                }
                while j != 0 {
                    j -= 1;
                    if !gt(deck, j, i, cmp, rng) {
                        j += 1;
                        break;
                    }
                }
                deck[j..=i].rotate_right(1);
            }
            // The rest: search back two at a time, then settle between the last two.
            for i in 6..n {
                let mut j = i - 1;
                if !gt(deck, j, i, cmp, rng) {
                    continue;
                }
                loop {
                    j -= 2;
                    if !gt(deck, j, i, cmp, rng) {
                        j += 1;
                        if !gt(deck, j, i, cmp, rng) {
                            j += 1;
                        }
                        break;
                    }
                    if j == 0 {
                        break;
                    }
                    if j == 1 {
                        j -= 1;
                        // zend_sort.c asks cmp(i, j) here, the arguments the other way round.
                        if gt(deck, i, j, cmp, rng) {
                            j += 1;
                        }
                        break;
                    }
                }
                deck[j..=i].rotate_right(1);
            }
        }
    }
}
