//! Predictability: how many visible cards identify the whole deck, when every deck comes from a
//! generator seeded from a small space (`srand(time)`, a millisecond clock, a counter).
//!
//! A deck dealt from seed s is known to whoever can try every seed: the cards they see (their
//! hole cards, the flop) rule out every seed whose deck starts differently, and once one seed is
//! left the rest of the deck follows. With S seeds and k visible cards out of n, a seed's deck
//! is identified when no other seed's deck shows the same k cards. Two ways to say how often:
//! - **enumerated**: shuffle with every seed (on all threads), keep each deck's first cards
//!   packed in a `u64` with the first card in the high bits, sort, and count for each k the
//!   seeds whose k-card prefix no other seed shares. Exact for the emulation, and it counts the
//!   distinct decks too (Arkin et al. 1999: "86,400,000 possible decks").
//! - **estimated**: if the S decks behaved like S independent uniform decks, another seed shows
//!   the same k cards with probability 1/P(n, k), P(n, k) = n!/(n−k)!, so a deck is identified
//!   with probability (1 − 1/P)^(S−1) ≈ exp(−(S−1)/P(n, k)).
//!
//! The enumeration runs when the seeds fit in memory (8 bytes a seed, at most 2^27 seeds) and a
//! timed probe says it finishes within [`ENUMERATION_SECONDS`]; otherwise the estimate is
//! reported, and says why.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::engine::algorithms::{Card, Shuffle};
use crate::engine::generators::WordSource;
use crate::engine::mapped_source::{SourceSpec, TypedSource, TypedVisitor, dispatch_typed};
use crate::engine::random_source::BLOCK_TRIALS;
use crate::theory::reachable::log2_factorial;

/// The most seeds enumerated (their packed prefixes take 8 bytes each: 1 GiB).
pub const MAX_ENUMERATED_SEEDS: u64 = 1 << 27;

/// The longest an enumeration may be projected to take before the estimate is used instead:
/// five minutes, so that a space a game could really be attacked through (Planet Poker's
/// 86,400,000 seeds, about 35 s on two idle cores) is enumerated on a busy machine too; the
/// enumeration shows a progress bar and stops at Ctrl-C.
pub const ENUMERATION_SECONDS: f64 = 300.0;

/// The share of decks that "identify the deck" asks for in [`Predictability::cards_to_identify`]:
/// more than half of the decks (the typical deck).
pub const TYPICAL: f64 = 0.5;

/// The share asked for in [`Predictability::cards_to_identify_nearly_all`].
pub const NEARLY_ALL: f64 = 0.99;

/// How the identified shares were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PredictabilityMethod {
    /// Every seed was shuffled and the decks compared.
    Enumerated,
    /// From the number of seeds alone, as if each seed's deck were uniform.
    Estimated,
}

/// What k visible cards tell of the deck.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Visible {
    /// Cards seen (the first k of the deck).
    pub cards: usize,
    /// The share of seeds whose deck no other seed's deck shares these k cards with.
    pub identified: f64,
}

/// How predictable the decks of a seeded source are.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Predictability {
    /// The number of seeds the source can be given.
    pub seeds: u64,
    /// Enumerated or estimated.
    pub method: PredictabilityMethod,
    /// The distinct decks the seeds give (enumerated; a lower bound when only the first
    /// `compared_cards` cards were compared and some of those coincide).
    pub distinct_decks: Option<u64>,
    /// Whether `distinct_decks` is exact.
    pub distinct_exact: bool,
    /// The first cards compared (all of a small deck; ten of 52).
    pub compared_cards: usize,
    /// For k = 1, 2, …: the share of decks k visible cards identify.
    pub visible: Vec<Visible>,
    /// The fewest visible cards that identify more than half of the decks.
    pub cards_to_identify: Option<usize>,
    /// The fewest visible cards that identify 99% of the decks.
    pub cards_to_identify_nearly_all: Option<usize>,
    /// Why the estimate was used, when it was.
    pub why_estimated: Option<String>,
    /// The finding in one sentence.
    pub sentence: String,
}

/// The seed space of a source re-seeded before every shuffle of `n` cards, if it has at most
/// 2^32 seeds (the sizes this report is for) and fewer than the n! orderings (with more seeds
/// than orderings, seeing the cards cannot single out a seed).
pub fn seed_space(source: &SourceSpec, n: usize) -> Option<u64> {
    let space = source.reseed?.seed_space();
    ((space <= 1 << 32) && (space as f64).log2() < log2_factorial(n)).then_some(space)
}

/// Thousands separated by commas.
fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// log2 of P(n, k) = n!/(n−k)!, the ordered choices of k cards of n.
fn log2_arrangements(n: usize, k: usize) -> f64 {
    ((n - k + 1)..=n).map(|i| (i as f64).log2()).sum()
}

/// The estimate of the module documentation for `seeds` seeds and decks of `n` cards.
pub fn estimate(seeds: u64, n: usize) -> Vec<Visible> {
    (1..=n)
        .map(|k| {
            let others = seeds.saturating_sub(1) as f64;
            let expected_others = others * (-log2_arrangements(n, k)).exp2();
            Visible {
                cards: k,
                identified: (-expected_others).exp(),
            }
        })
        .collect()
}

/// Bits a card takes in a packed prefix, and the cards a `u64` holds.
fn packing(n: usize) -> (u32, usize) {
    let bits = (usize::BITS - (n.max(2) - 1).leading_zeros()).max(1);
    (bits, (64 / bits as usize).min(n))
}

/// What the enumeration of a seed space found.
#[derive(Debug, Clone, PartialEq)]
pub struct Enumerated {
    /// For k = 1, 2, …: the share of seeds whose first k cards no other seed's deck shows.
    pub visible: Vec<Visible>,
    /// Distinct decks (of the first `compared` cards).
    pub distinct: u64,
    /// Whether `distinct` counts whole decks: every card compared, or every prefix distinct.
    pub exact: bool,
    /// The first cards compared.
    pub compared: usize,
}

/// Why the enumeration cannot run.
#[derive(Debug, Clone, PartialEq)]
pub enum Skip {
    /// Too many seeds to keep in memory.
    TooMany,
    /// The probe projected this many seconds.
    TooSlow(f64),
}

/// Shuffle with every seed of `0..seeds` and compare the decks (see the module documentation).
/// `progress` is called with the seeds done; `stop` ends the work early (`None` is returned).
pub fn enumerate(
    shuffle: Shuffle,
    n: usize,
    source: &SourceSpec,
    seeds: u64,
    threads: usize,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> Result<Option<Enumerated>, Skip> {
    if seeds > MAX_ENUMERATED_SEEDS {
        return Err(Skip::TooMany);
    }
    // Every seed value in turn, 0, 1, …, whatever the case's own sequence.
    let counter = SourceSpec {
        reseed: None,
        ..*source
    };
    let (bits, kept) = packing(n);
    // A timed probe of one block decides whether the whole space is worth shuffling.
    let probe = seeds.min(BLOCK_TRIALS / 4);
    let started = Instant::now();
    let mut sink = vec![0u64; probe as usize];
    fill(
        shuffle,
        n,
        &counter,
        0,
        &mut sink,
        bits,
        kept,
        stop,
        &AtomicU64::new(0),
    );
    let per_seed = started.elapsed().as_secs_f64() / probe.max(1) as f64;
    let threads = threads.max(1);
    let projected = per_seed * seeds as f64 / threads as f64;
    if projected > ENUMERATION_SECONDS {
        return Err(Skip::TooSlow(projected));
    }

    let mut codes = vec![0u64; seeds as usize];
    let done = AtomicU64::new(0);
    let chunk = (seeds as usize).div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for (i, part) in codes.chunks_mut(chunk).enumerate() {
            let (counter, done) = (&counter, &done);
            handles.push(scope.spawn(move || {
                let first = (i * chunk) as u64;
                fill(shuffle, n, counter, first, part, bits, kept, stop, done);
            }));
        }
        while handles.iter().any(|handle| !handle.is_finished()) {
            progress(done.load(Ordering::Relaxed));
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    if stop.load(Ordering::Relaxed) {
        return Ok(None);
    }
    progress(seeds);
    codes.sort_unstable();
    let (unique, groups) = prefix_counts(&codes, bits, kept);
    let visible: Vec<Visible> = (1..=kept)
        .map(|k| Visible {
            cards: k,
            identified: unique[k] as f64 / seeds as f64,
        })
        .collect();
    let distinct = groups[kept];
    Ok(Some(Enumerated {
        visible,
        distinct,
        exact: kept == n || distinct == seeds,
        compared: kept,
    }))
}

/// In sorted `codes` of `kept` cards of `bits` bits, for each k in 0..=kept: the codes whose
/// first k cards no other code shares (`unique[k]`), and the distinct first-k-card prefixes
/// (`groups[k]`). One pass: the common prefix of neighbours, in cards, says at which k two
/// codes part.
fn prefix_counts(codes: &[u64], bits: u32, kept: usize) -> (Vec<u64>, Vec<u64>) {
    let used = bits * kept as u32;
    // Cards two codes share at their start: the leading zeros of their xor within the used bits.
    let common = |a: u64, b: u64| -> usize {
        let differ = a ^ b;
        if differ == 0 {
            kept
        } else {
            ((differ.leading_zeros() - (64 - used)) / bits) as usize
        }
    };
    // shared[m]: codes whose longest common prefix with a neighbour is m cards; parted[m]:
    // neighbour pairs whose common prefix is m cards.
    let mut shared = vec![0u64; kept + 1];
    let mut parted = vec![0u64; kept + 1];
    for (i, &code) in codes.iter().enumerate() {
        let before = (i > 0).then(|| common(codes[i - 1], code));
        let after = codes.get(i + 1).map(|&next| common(code, next));
        shared[before.unwrap_or(0).max(after.unwrap_or(0))] += 1;
        if let Some(m) = before {
            parted[m] += 1;
        }
    }
    // A code is unique at k when every neighbour parts from it before card k; the prefixes of k
    // cards are one more than the neighbour pairs parting before card k.
    let (mut unique, mut groups) = (vec![0u64; kept + 1], vec![0u64; kept + 1]);
    for k in 0..=kept {
        unique[k] = shared[..k].iter().sum();
        groups[k] = u64::from(!codes.is_empty()) + parted[..k].iter().sum::<u64>();
    }
    (unique, groups)
}

/// Shuffle with the seeds `first..first + out.len()` and pack each deck's first `kept` cards,
/// `bits` bits each, the first card highest: the generator's type is resolved once, so the
/// draws of the millions of shuffles are compiled for it.
#[allow(clippy::too_many_arguments)]
fn fill(
    shuffle: Shuffle,
    n: usize,
    source: &SourceSpec,
    first: u64,
    out: &mut [u64],
    bits: u32,
    kept: usize,
    stop: &AtomicBool,
    done: &AtomicU64,
) {
    struct Fill<'a> {
        shuffle: Shuffle,
        n: usize,
        source: &'a SourceSpec,
        first: u64,
        out: &'a mut [u64],
        bits: u32,
        kept: usize,
        stop: &'a AtomicBool,
        done: &'a AtomicU64,
    }
    impl TypedVisitor for Fill<'_> {
        type Output = ();
        fn visit<S: WordSource + Send>(self) {
            let identity: Vec<Card> = (0..self.n as Card).collect();
            let (mut deck, mut scratch) = (identity.clone(), identity.clone());
            let mut seed = self.first;
            for chunk in self.out.chunks_mut(4096) {
                if self.stop.load(Ordering::Relaxed) {
                    return;
                }
                for code in chunk.iter_mut() {
                    let mut source = TypedSource::<S>::seeded(self.source, seed)
                        .expect("the configuration checked the source");
                    seed += 1;
                    deck.copy_from_slice(&identity);
                    self.shuffle.apply(&mut deck, &mut scratch, &mut source);
                    *code = deck[..self.kept]
                        .iter()
                        .fold(0u64, |code, &card| (code << self.bits) | u64::from(card));
                }
                self.done.fetch_add(chunk.len() as u64, Ordering::Relaxed);
            }
        }
    }
    dispatch_typed(
        source.generator,
        Fill {
            shuffle,
            n,
            source,
            first,
            out,
            bits,
            kept,
            stop,
            done,
        },
    );
}

/// The smallest k whose identified share exceeds `share`.
fn cards_for(visible: &[Visible], share: f64) -> Option<usize> {
    visible
        .iter()
        .find(|row| row.identified > share)
        .map(|row| row.cards)
}

/// The predictability of the decks of `shuffle` on `n` cards from `source` (re-seeded before
/// every shuffle from at most 2^32 seeds): enumerated when it can be, else estimated. `None`
/// when the source has no such seed space, or `stop` was set during the enumeration.
pub fn predictability(
    shuffle: Shuffle,
    n: usize,
    source: &SourceSpec,
    threads: usize,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> Option<Predictability> {
    let seeds = seed_space(source, n)?;
    let (method, visible, distinct, exact, compared, why) =
        match enumerate(shuffle, n, source, seeds, threads, stop, progress) {
            Ok(Some(found)) => (
                PredictabilityMethod::Enumerated,
                found.visible,
                Some(found.distinct),
                found.exact,
                found.compared,
                None,
            ),
            Ok(None) => return None,
            Err(skip) => {
                let why = match skip {
                    Skip::TooMany => {
                        format!("{seeds} seeds are more than the {MAX_ENUMERATED_SEEDS} enumerated")
                    }
                    Skip::TooSlow(seconds) => format!(
                        "enumerating {seeds} seeds would take about {seconds:.0} s on this \
                         machine"
                    ),
                };
                (
                    PredictabilityMethod::Estimated,
                    estimate(seeds, n),
                    None,
                    false,
                    n,
                    Some(why),
                )
            }
        };
    let typical = cards_for(&visible, TYPICAL);
    let nearly_all = cards_for(&visible, NEARLY_ALL);
    let sentence = sentence(seeds, n, &visible, typical, nearly_all, method);
    Some(Predictability {
        seeds,
        method,
        distinct_decks: distinct,
        distinct_exact: exact,
        compared_cards: compared,
        visible,
        cards_to_identify: typical,
        cards_to_identify_nearly_all: nearly_all,
        why_estimated: why,
        sentence,
    })
}

fn sentence(
    seed_count: u64,
    n: usize,
    visible: &[Visible],
    typical: Option<usize>,
    nearly_all: Option<usize>,
    method: PredictabilityMethod,
) -> String {
    let how = match method {
        PredictabilityMethod::Enumerated => "every seed shuffled",
        PredictabilityMethod::Estimated => "estimated from the number of seeds",
    };
    if seed_count == 1 {
        return "one seed: every deal is the same deck, known before a card is seen".to_string();
    }
    let seeds = grouped(seed_count);
    let share = |k: usize| visible.get(k - 1).map_or(0.0, |row| row.identified);
    match (typical, nearly_all) {
        (Some(k), Some(all)) if all == k => format!(
            "{k} visible cards of {n} identify the whole deck ({:.1}% of the {seeds} seeds' \
             decks; {how})",
            100.0 * share(k)
        ),
        (Some(k), Some(all)) => format!(
            "{k} visible cards of {n} identify the whole deck for {:.1}% of the {seeds} seeds, \
             {all} cards for {:.1}% ({how})",
            100.0 * share(k),
            100.0 * share(all)
        ),
        (Some(k), None) => format!(
            "{k} visible cards of {n} identify the whole deck for {:.1}% of the {seeds} seeds \
             ({how})",
            100.0 * share(k)
        ),
        _ => format!(
            "the first {} cards do not identify the deck: {seeds} seeds give too many decks \
             alike ({how})",
            visible.len()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_code_keeps_the_first_card_highest_so_sorting_sorts_every_prefix() {
        let (bits, kept) = packing(52);
        assert_eq!((bits, kept), (6, 10));
        assert_eq!(packing(5), (3, 5));
        assert_eq!(packing(2), (1, 2));
    }

    /// The counts of [`prefix_counts`] by brute force: each code against every other.
    fn brute(codes: &[u64], bits: u32, kept: usize, k: usize) -> (u64, u64) {
        let prefix = |code: u64| code >> (bits * (kept - k) as u32);
        let unique = codes
            .iter()
            .enumerate()
            .filter(|&(i, &a)| {
                codes
                    .iter()
                    .enumerate()
                    .all(|(j, &b)| i == j || prefix(a) != prefix(b))
            })
            .count() as u64;
        let mut prefixes: Vec<u64> = codes.iter().map(|&c| prefix(c)).collect();
        prefixes.dedup();
        (unique, prefixes.len() as u64)
    }

    #[test]
    fn prefix_counts_agree_with_a_brute_force_count() {
        // 3 cards of 2 bits: codes sorted, with repeats and shared prefixes of every length.
        let codes = [
            0b00_00_00, 0b00_00_00, 0b00_01_11, 0b01_00_00, 0b01_00_01, 0b01_10_00, 0b11_11_11,
        ];
        let (unique, groups) = prefix_counts(&codes, 2, 3);
        for k in 0..=3 {
            assert_eq!((unique[k], groups[k]), brute(&codes, 2, 3, k), "k = {k}");
        }
        // By hand: 3 cards leave 0b00_00_00 twice, so 5 unique, 6 distinct.
        assert_eq!((unique[3], groups[3]), (5, 6));
        // 1 card: only 0b11… stands alone; 3 first cards: 00, 01, 11.
        assert_eq!((unique[1], groups[1]), (1, 3));
    }

    #[test]
    fn the_estimate_follows_the_arrangements_of_k_cards() {
        // 86,400,000 seeds, 52 cards: P(52, 5) = 311,875,200, so 5 cards identify
        // exp(-86,399,999/311,875,200) = 0.758 of the decks; P(52, 6) = 14,658,134,400.
        let visible = estimate(86_400_000, 52);
        assert!((visible[4].identified - (-86_399_999.0f64 / 311_875_200.0).exp()).abs() < 1e-9);
        assert!((visible[5].identified - (-86_399_999.0f64 / 14_658_134_400.0).exp()).abs() < 1e-9);
        assert_eq!(cards_for(&visible, TYPICAL), Some(5));
        assert_eq!(cards_for(&visible, NEARLY_ALL), Some(6));
    }
}
