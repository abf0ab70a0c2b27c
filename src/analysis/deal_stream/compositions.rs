//! The serial compositions test (serial (c) of [`super`]): the law q̂ of the composition
//! σ'∘σ⁻¹ of two independent decks, estimated from the full tally over every ordered pair of
//! the orderings seen, and the count of each composition of consecutive decks against it.

use crate::analysis::goodness_of_fit::goodness_of_fit;
use crate::analysis::test_note::TestNote;
use crate::analysis::{Draft, MIN_EXPECTED_COUNT, Question};
use crate::engine::algorithms::Card;
use crate::engine::permutation::{
    TABLE_RANK_MAX_DECK, composition_into, for_each_in_rank_order, rank, rank_array, unrank,
};

/// The most pairs of distinct decks [`compositions_if_independent`] composes (D², D the decks
/// seen): 5040² for every 7-card tally, about 0.1 s of work on two threads; 8 to 10 cards go beyond it once
/// more than 10,000 distinct decks are seen.
pub const MAX_COMPOSITION_WORK: u64 = 5040 * 5040;

/// Why the conditional compositions test was not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompositionWorkTooLarge {
    /// Distinct decks seen.
    pub distinct: u64,
}

/// q̂ over the n! orderings, in rank order.
#[derive(Debug, Clone, PartialEq)]
pub enum CompositionLaw {
    /// Every cell, indexed by rank.
    Dense(Vec<f64>),
    /// Only the compositions some ordered pair of seen decks forms, as (rank, q̂, fixed points
    /// of the composition) sorted by rank; every other cell is 0. Used when those pairs are few
    /// beside n! (a short run on 9 or 10 cards), where a dense table would be mostly zeros
    /// written at random. Ranks are below 11! < 2^32: 16 bytes a cell.
    Sparse(Vec<(u32, f64, u8)>),
}

impl CompositionLaw {
    /// q̂ of the identity (rank 0): the share of pairs of independent decks that are equal.
    pub fn identity(&self) -> f64 {
        match self {
            CompositionLaw::Dense(q) => q[0],
            CompositionLaw::Sparse(cells) => cells
                .first()
                .filter(|&&(rank, ..)| rank == 0)
                .map_or(0.0, |&(_, q, _)| q),
        }
    }

    /// The law of the fixed points of the composition (the matching slots of two independent
    /// decks of `deck` cards): `histogram[m]` = Σ q̂(τ) over the τ with m fixed points, summed in
    /// rank order either way (a sparse law's missing cells would add 0).
    pub fn fixed_points(&self, deck: usize) -> Vec<f64> {
        let mut histogram = vec![0.0; deck + 1];
        match self {
            CompositionLaw::Dense(q) => {
                for_each_in_rank_order(deck, |rank, tau| {
                    let fixed = tau
                        .iter()
                        .enumerate()
                        .filter(|&(c, &t)| usize::from(t) == c)
                        .count();
                    histogram[fixed] += q[rank];
                });
            }
            CompositionLaw::Sparse(cells) => {
                for &(_, q, fixed) in cells {
                    histogram[usize::from(fixed)] += q;
                }
            }
        }
        histogram
    }

    /// Call `cell(observed[rank], q̂(rank))` for every rank in order, the same cells whichever
    /// form the law takes (a sparse law's missing cells are 0).
    pub fn for_each_cell(&self, observed: &[u64], mut cell: impl FnMut(u64, f64)) {
        match self {
            CompositionLaw::Dense(q) => {
                for (&o, &q) in observed.iter().zip(q) {
                    cell(o, q);
                }
            }
            CompositionLaw::Sparse(cells) => {
                let mut next = cells.iter().peekable();
                for (rank, &o) in observed.iter().enumerate() {
                    let q = next
                        .next_if(|&&(r, ..)| r as usize == rank)
                        .map_or(0.0, |&(_, q, _)| q);
                    cell(o, q);
                }
            }
        }
    }
}

/// q̂, the law of the composition σ'∘σ⁻¹ of two *independent* decks drawn from the law of one
/// deck, estimated without bias from the full tally `counts` (indexed by rank) over all ordered
/// pairs of distinct deals: q̂(τ) = [Σ_σ c_σ·c_{τ∘σ} − N·1{τ = id}]/(N(N − 1)) (the review
/// `shared/notes/dependence-tests.md`, proposal (a)). The compositions are formed by
/// [`composition_into`], as the deal stream counts them. D² pairs of the D decks seen; refused
/// above [`MAX_COMPOSITION_WORK`]. While D² is at most half of n! the sums are formed sparsely
/// (the pairs' keys sorted, then summed rank by rank): the same integers, so the same shares.
pub fn compositions_if_independent(
    deck: usize,
    counts: &[u64],
) -> Result<CompositionLaw, CompositionWorkTooLarge> {
    // Refused before a deck is unranked: a long run at 10 cards has seen all 3,628,800.
    let distinct = counts.iter().filter(|&&c| c > 0).count() as u64;
    if distinct.saturating_mul(distinct) > MAX_COMPOSITION_WORK {
        return Err(CompositionWorkTooLarge { distinct });
    }
    let seen: Vec<(Vec<Card>, u64)> = counts
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c > 0)
        .map(|(rank, &c)| (unrank(rank, deck), c))
        .collect();
    let deals: u64 = seen.iter().map(|(_, c)| c).sum();
    let ordered_pairs = deals as f64 * (deals as f64 - 1.0);
    let share = |s: f64| {
        if ordered_pairs > 0.0 {
            s / ordered_pairs
        } else {
            0.0
        }
    };
    if distinct * distinct * 2 <= counts.len() as u64 {
        return Ok(CompositionLaw::Sparse(sparse_products(
            deck, &seen, deals, share,
        )));
    }
    // Σ_τ products = N², so below 2^32 deals every count fits 64 bits: half the memory of
    // 128-bit counts (n! of them, 29 MB at 10 cards), turned into the shares in place. The
    // integers, and so the shares, are the same either way.
    if deals <= u64::from(u32::MAX) {
        let mut products: Vec<u64> = composition_products(deck, &seen, counts.len());
        // The identity's pairs include each deal with itself: N of them.
        products[0] -= deals;
        return Ok(CompositionLaw::Dense(
            products.into_iter().map(|s| share(s as f64)).collect(),
        ));
    }
    let mut products: Vec<u128> = composition_products(deck, &seen, counts.len());
    products[0] -= u128::from(deals);
    Ok(CompositionLaw::Dense(
        products.into_iter().map(|s| share(s as f64)).collect(),
    ))
}

/// share(Σ_σ c_σ·c_{τ∘σ}) for every composition τ that some ordered pair of `seen` forms (the
/// identity's sum less the N pairs of a deal with itself), sorted by rank, with τ's fixed
/// points (the slots at which the pair's decks agree). Each pair leaves one key, its
/// composition's rank above the two decks' indices (ranks of at most
/// [`crate::engine::deal_stream::MAX_COMPOSITION_DECK`] cards take 22 bits, indices below
/// √[`MAX_COMPOSITION_WORK`] 16 bits each); the keys are sorted and the products summed key
/// group by key group, in 128 bits, each group's sum turned into its share as it closes.
fn sparse_products(
    deck: usize,
    seen: &[(Vec<Card>, u64)],
    deals: u64,
    share: impl Fn(f64) -> f64,
) -> Vec<(u32, f64, u8)> {
    debug_assert!(seen.len() < 1 << 16);
    let mut keys = composition_keys(deck, seen);
    keys.sort_unstable();
    let mut cells: Vec<(u32, f64, u8)> = Vec::new();
    // The group being summed: its rank, fixed points and sum.
    let mut open: Option<(u32, u8, u128)> = None;
    let close = |(cell, fixed, mut sum): (u32, u8, u128), cells: &mut Vec<(u32, f64, u8)>| {
        // The pairs (σ, σ) put the identity first; it includes each deal with itself.
        if cell == 0 {
            sum -= u128::from(deals);
        }
        cells.push((cell, share(sum as f64), fixed));
    };
    for key in keys {
        let cell = (key >> 32) as u32;
        let (i, j) = ((key >> 16) as u16 as usize, key as u16 as usize);
        let product = u128::from(seen[i].1) * u128::from(seen[j].1);
        match &mut open {
            Some((last, _, sum)) if *last == cell => *sum += product,
            _ => {
                if let Some(group) = open.take() {
                    close(group, &mut cells);
                }
                let matching = seen[i].0.iter().zip(&seen[j].0).filter(|(a, b)| a == b);
                open = Some((cell, matching.count() as u8, product));
            }
        }
    }
    if let Some(group) = open {
        close(group, &mut cells);
    }
    cells
}

/// The key of every ordered pair (i, j) of `seen`: the rank of σ_j∘σ_i⁻¹ above i and j, 16 bits
/// each (see [`sparse_products`]).
fn composition_keys(deck: usize, seen: &[(Vec<Card>, u64)]) -> Vec<u64> {
    let mut keys: Vec<u64> = Vec::with_capacity(seen.len() * seen.len());
    each_composition_rank(deck, seen, 0..seen.len(), |i, j, rank| {
        keys.push(((rank as u64) << 32) | ((i as u64) << 16) | j as u64);
    });
    keys
}

/// Σ_σ c_σ·c_{τ∘σ} for every composition τ (by rank, `cells` of them) over the ordered pairs
/// (σ, σ') of the decks `seen` (with their counts), in integers of type T: shared with a
/// second thread from [`SECOND_THREAD_FROM_PAIRS`] pairs (integers: the same sums).
fn composition_products<T>(deck: usize, seen: &[(Vec<Card>, u64)], cells: usize) -> Vec<T>
where
    T: Copy + Default + Send + From<u64> + std::ops::AddAssign + std::ops::Mul<Output = T>,
{
    let rows = |rows: std::ops::Range<usize>| {
        let mut products = vec![T::default(); cells];
        each_composition_rank(deck, seen, rows, |i, j, rank| {
            products[rank] += T::from(seen[i].1) * T::from(seen[j].1);
        });
        products
    };
    let d = seen.len();
    if d * d < SECOND_THREAD_FROM_PAIRS {
        return rows(0..d);
    }
    let (mut products, other) = std::thread::scope(|scope| {
        let other = scope.spawn(|| rows(d / 2..d));
        (rows(0..d / 2), other.join())
    });
    let other = other.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    for (total, part) in products.iter_mut().zip(other) {
        *total += part;
    }
    products
}

/// Ordered pairs of decks from which [`composition_products`] shares the work with a second
/// thread (about 5 ms of work on one).
const SECOND_THREAD_FROM_PAIRS: usize = 1 << 20;

/// Call `add(i, j, rank of σ_j∘σ_i⁻¹)` for every ordered pair (i, j) of the decks `seen` with
/// i in `rows`, i the outer loop. On decks of a size fixed at compile time (up to
/// [`crate::engine::deal_stream::MAX_COMPOSITION_DECK`] cards), ranked by
/// [`crate::engine::permutation::rank_array`] (two table look-ups up to 8 cards; from 9 the
/// rank counts bits with POPCNT where the CPU has it, which the baseline x86-64 build emulates
/// with a dozen instructions): at 7 cards, where all 5,040 orderings make 25 million pairs,
/// this took a third of a run's time with a rank of a `Vec`. The same ranks however computed.
fn each_composition_rank(
    deck: usize,
    seen: &[(Vec<Card>, u64)],
    rows: std::ops::Range<usize>,
    mut add: impl FnMut(usize, usize, usize),
) {
    macro_rules! sized {
        ($($n:literal)*) => {
            match deck {
                $($n => return each_composition_rank_dispatched::<$n>(seen, rows, &mut add),)*
                _ => {}
            }
        };
    }
    sized!(2 3 4 5 6 7 8 9 10);
    let mut slot_of = vec![0usize; deck];
    let mut composition: Vec<Card> = vec![0; deck];
    for (i, (previous, _)) in seen.iter().enumerate().take(rows.end).skip(rows.start) {
        for (slot, &card) in previous.iter().enumerate() {
            slot_of[usize::from(card)] = slot;
        }
        for (j, (next, _)) in seen.iter().enumerate() {
            composition_into(&slot_of, next, &mut composition);
            add(i, j, rank(&composition));
        }
    }
}

/// [`each_composition_rank`] of N-card decks, with POPCNT where the CPU has it.
fn each_composition_rank_dispatched<const N: usize>(
    seen: &[(Vec<Card>, u64)],
    rows: std::ops::Range<usize>,
    add: &mut impl FnMut(usize, usize, usize),
) {
    #[cfg(target_arch = "x86_64")]
    if N > TABLE_RANK_MAX_DECK && std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has POPCNT (checked just above).
        return unsafe { each_composition_rank_with_popcnt::<N>(seen, rows, add) };
    }
    each_composition_rank_sized::<N>(seen, rows, add);
}

/// [`each_composition_rank_sized`] compiled with POPCNT. The CPU must have it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn each_composition_rank_with_popcnt<const N: usize>(
    seen: &[(Vec<Card>, u64)],
    rows: std::ops::Range<usize>,
    add: &mut impl FnMut(usize, usize, usize),
) {
    each_composition_rank_sized::<N>(seen, rows, add);
}

#[inline(always)]
fn each_composition_rank_sized<const N: usize>(
    seen: &[(Vec<Card>, u64)],
    rows: std::ops::Range<usize>,
    add: &mut impl FnMut(usize, usize, usize),
) {
    let decks: Vec<[Card; N]> = seen
        .iter()
        .map(|(deck, _)| deck[..].try_into().expect("decks of N cards"))
        .collect();
    for (i, previous) in decks.iter().enumerate().take(rows.end).skip(rows.start) {
        let mut slot_of = [0usize; N];
        for (slot, &card) in previous.iter().enumerate() {
            slot_of[usize::from(card)] = slot;
        }
        for (j, next) in decks.iter().enumerate() {
            let composition: [Card; N] = std::array::from_fn(|card| next[slot_of[card]]);
            add(i, j, rank_array(&composition));
        }
    }
}

/// Serial (c), conditional on the law of one deck: the count of each composition
/// σ_{t+1}∘σ_t⁻¹ over `pairs` consecutive pairs against (N − 1)·q̂(τ), q̂ from
/// [`compositions_if_independent`]. Pearson's χ² over the compositions expected at least
/// [`MIN_EXPECTED_COUNT`] times, the rest pooled in rank order into cells expected that often
/// (a short last cell joins the one before); df = cells − 1.
///
/// *Why it holds its level whatever the law of one deck* (the same Hoeffding argument as
/// [`super::serial_matches_test`]): O_τ − Pq̂(τ) is a sum of degenerate terms, uncorrelated along the
/// stream, whose covariance is diag(q) − qq′ less two positive semi-definite terms, so the
/// statistic is a weighted sum Σλᵢ Zᵢ² with 0 ≤ λᵢ ≤ 1: no larger than χ²(cells − 1)
/// stochastically, exactly it when the law is uniform. Using the *model's* law instead of q̂
/// would not hold the level (consecutive compositions share a deal), which is why the test is
/// always conditional.
pub fn serial_compositions_test(
    observed: &[u64],
    law_if_independent: &CompositionLaw,
    pairs: u64,
) -> Draft {
    let p = pairs as f64;
    let mut cells: Vec<(u64, f64)> = Vec::new();
    let (mut pooled_observed, mut pooled_expected) = (0u64, 0.0f64);
    law_if_independent.for_each_cell(observed, |o, q| {
        let expected = q * p;
        if expected <= 0.0 && o == 0 {
            return;
        }
        if expected >= MIN_EXPECTED_COUNT {
            cells.push((o, expected));
        } else {
            pooled_observed += o;
            pooled_expected += expected;
            if pooled_expected >= MIN_EXPECTED_COUNT {
                cells.push((pooled_observed, pooled_expected));
                (pooled_observed, pooled_expected) = (0, 0.0);
            }
        }
    });
    if pooled_expected > 0.0 || pooled_observed > 0 {
        match cells.last_mut() {
            Some(last) => {
                last.0 += pooled_observed;
                last.1 += pooled_expected;
            }
            None => cells.push((pooled_observed, pooled_expected)),
        }
    }
    let mut draft = goodness_of_fit(
        "serial compositions".to_string(),
        cells
            .iter()
            .map(|&(o, e)| (o, if p > 0.0 { e / p } else { 0.0 })),
        pairs,
    )
    .answering(Question::Dependence);
    if draft.note.is_none() && cells.iter().any(|&(_, e)| e < MIN_EXPECTED_COUNT) {
        draft.note = Some(TestNote::FewExpected {
            smallest: cells.iter().map(|c| c.1).fold(f64::INFINITY, f64::min),
        });
    }
    draft
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// q̂ written out pair by pair: for every ordered pair of ranks, the composition's map of
    /// cards found by searching the previous deck for each card, the products in 128 bits.
    fn compositions_by_search(deck: usize, counts: &[u64]) -> Vec<f64> {
        let mut decks = Vec::new();
        for_each_in_rank_order(deck, |_, d| decks.push(d.to_vec()));
        let mut products = vec![0u128; counts.len()];
        for (previous, &a) in decks.iter().zip(counts) {
            for (next, &b) in decks.iter().zip(counts) {
                let map: Vec<Card> = (0..deck as Card)
                    .map(|card| next[previous.iter().position(|&c| c == card).unwrap()])
                    .collect();
                let cell = decks.iter().position(|d| *d == map).unwrap();
                products[cell] += u128::from(a) * u128::from(b);
            }
        }
        let deals: u128 = counts.iter().map(|&c| u128::from(c)).sum();
        products[0] -= deals;
        let pairs = deals as f64 * (deals as f64 - 1.0);
        products.iter().map(|&s| s as f64 / pairs).collect()
    }

    #[test]
    fn the_law_of_compositions_if_independent_is_the_pairwise_sum_in_either_width() {
        // Few deals take 64-bit counts; more than 2^32 deals (counts of 3·10^9) take 128-bit
        // ones, whose products overflow 64 bits. Both against the pair-by-pair sum.
        for counts in [
            vec![5u64, 0, 3, 9, 1, 2],
            vec![3_000_000_000, 1, 2_500_000_000, 0, 7, 4_000_000_000],
        ] {
            let CompositionLaw::Dense(law) = compositions_if_independent(3, &counts).unwrap()
            else {
                panic!("five decks seen of six orderings take the dense form");
            };
            let expected = compositions_by_search(3, &counts);
            assert_eq!(law.len(), 6);
            for (got, want) in law.iter().zip(&expected) {
                assert_relative_eq!(*got, *want, max_relative = 1e-15);
            }
            assert_relative_eq!(law.iter().sum::<f64>(), 1.0, max_relative = 1e-12);
        }
    }

    /// The dense law at 7 and 9 cards, where the pairs are ranked on decks of a fixed size (and
    /// at 7 cards, past [`SECOND_THREAD_FROM_PAIRS`], shared with a second thread), against the
    /// pair-by-pair sum with each composition found by its cards in a map of every ordering
    /// enumerated in rank order: in 64-bit and in 128-bit counts.
    #[test]
    fn the_dense_law_of_larger_decks_is_the_pairwise_sum() {
        fn check(deck: usize, distinct: usize, step: usize, large: bool) {
            let mut index = std::collections::HashMap::new();
            for_each_in_rank_order(deck, |rank, d| {
                index.insert(d.to_vec(), rank);
            });
            let mut counts = vec![0u64; index.len()];
            for k in 0..distinct {
                let count = 1 + (k % 5) as u64;
                counts[k * step % index.len()] = if large { count << 31 } else { count };
            }
            let mut decks = vec![Vec::new(); index.len()];
            for (d, &rank) in &index {
                decks[rank] = d.clone();
            }
            let seen: Vec<usize> = (0..counts.len()).filter(|&r| counts[r] > 0).collect();
            assert_eq!(seen.len(), distinct);
            let mut products = vec![0u128; counts.len()];
            for &a in &seen {
                for &b in &seen {
                    let map: Vec<Card> = (0..deck as Card)
                        .map(|card| decks[b][decks[a].iter().position(|&c| c == card).unwrap()])
                        .collect();
                    products[index[&map]] += u128::from(counts[a]) * u128::from(counts[b]);
                }
            }
            let deals: u128 = counts.iter().map(|&c| u128::from(c)).sum();
            products[0] -= deals;
            let pairs = deals as f64 * (deals as f64 - 1.0);
            let CompositionLaw::Dense(law) = compositions_if_independent(deck, &counts).unwrap()
            else {
                panic!("{distinct} decks of {deck} cards take the dense form");
            };
            for (rank, (got, &want)) in law.iter().zip(&products).enumerate() {
                assert_eq!(*got, want as f64 / pairs, "{deck} cards, rank {rank}");
            }
        }
        // 1,100 decks: 1.21 million pairs, two threads; above 2^32 deals in 128 bits.
        check(7, 1100, 37, false);
        check(7, 1100, 37, true);
        // 700 of 362,880 orderings: 490,000 pairs, more than half the cells, so dense.
        check(9, 700, 511, false);
    }

    #[test]
    fn the_sparse_law_of_compositions_is_the_pairwise_sum_cell_by_cell() {
        // 6 of 720 orderings seen (36 pairs, at most half of 720): the sparse form, checked
        // against the pair-by-pair sum at every rank, zero where no pair composes, and the
        // serial test's cells the same as from the dense table of the same shares.
        let mut counts = vec![0u64; 720];
        for (rank, count) in [
            (0, 4u64),
            (17, 1),
            (203, 9),
            (204, 2),
            (555, 3_000_000_000),
            (719, 6),
        ] {
            counts[rank] = count;
        }
        let law = compositions_if_independent(6, &counts).unwrap();
        let CompositionLaw::Sparse(cells) = &law else {
            panic!("six decks seen of 720 orderings take the sparse form");
        };
        assert!(cells.windows(2).all(|w| w[0].0 < w[1].0), "sorted by rank");
        let expected = compositions_by_search(6, &counts);
        let mut dense = vec![0.0; 720];
        for &(rank, q, fixed) in cells {
            let rank = rank as usize;
            dense[rank] = q;
            let tau = unrank(rank, 6);
            let by_map = tau
                .iter()
                .enumerate()
                .filter(|&(c, &t)| usize::from(t) == c);
            assert_eq!(usize::from(fixed), by_map.count(), "rank {rank}");
        }
        for (rank, (got, want)) in dense.iter().zip(&expected).enumerate() {
            assert_relative_eq!(*got, *want, max_relative = 1e-15, epsilon = 0.0);
            assert_eq!(*got == 0.0, *want == 0.0, "rank {rank}");
        }
        assert_eq!(law.identity(), expected[0]);
        let dense_law = CompositionLaw::Dense(dense.clone());
        assert_eq!(law.fixed_points(6), dense_law.fixed_points(6));
        let observed: Vec<u64> = (0..720).map(|r| (r % 7) as u64).collect();
        let pairs = observed.iter().sum();
        assert_eq!(
            serial_compositions_test(&observed, &law, pairs),
            serial_compositions_test(&observed, &CompositionLaw::Dense(dense), pairs)
        );
    }
}
