//! One bounded draw per shuffle: for a shuffle whose choice bounds do not depend on earlier
//! choices (Fisher–Yates in both directions, the naive shuffle, Sattolo's), the whole sequence of
//! choices is one mixed-radix number below P = ∏ kᵢ, so one exactly uniform draw below P, looked up
//! in a table of P entries, gives the ordering straight away.
//!
//! The table is *derived*, never written by hand: [`ChoiceTable::derive`] runs the algorithm's
//! own code (the one implementation in [`crate::engine::algorithms`]) once over every path, with a
//! source that answers choice i with digit i of the path number (digit 0 the least significant).
//! It first records the bounds along one path and then checks, on every path, that the algorithm
//! asks exactly those bounds and never for a coin; any shuffle that does not qualify simply gets no
//! table. [`DigitSource`] is the same digit source driven by the run's words: the plain loops
//! (`--emit-permutations`, `--until-decided`) shuffle with it and get exactly the decks the table
//! gives.
//!
//! **Exactly uniform.** The draw is [`crate::engine::random_source::lemire`] on 32-bit words with
//! its rejection step (P ≤ [`MAX_TABLE_PATHS`] < 2^32): every value below P is the image of exactly
//! ⌊2^32 / P⌋ accepted words, so each path has probability exactly 1/P. The map from a number
//! below P to its digits (x mod k₀, ⌊x / k₀⌋ mod k₁, …) is a bijection onto the choice sequences,
//! so each sequence has probability ∏ 1/kᵢ — exactly what the algorithm's `below(kᵢ)` calls give
//! with independent uniform draws. The law of the orderings is therefore unchanged; only which
//! words of the ChaCha stream produce which shuffle differs from drawing choice by choice, so the
//! counts of a given seed differ from those of the choice-by-choice loop.
//!
//! Used only on the default source (ChaCha8 with Lemire's reduction on 32-bit words): the other
//! sources model real code, which draws choice by choice.

use rand_chacha::ChaCha8Rng;

use crate::engine::algorithms::{Card, Shuffle};
use crate::engine::mapped_source::{Generator, SourceSpec, SourcesVisitor, dispatch};
use crate::engine::permutation::rank;
use crate::engine::random_source::{BlockRng, BlockSources, FastSource, RandomSource, RngKind};

/// The largest number of paths a table is derived for: 2^16 entries of 8 bytes (512 KiB), half
/// the per-core L2 cache of the machine measured. It covers Fisher–Yates up to 8 cards (40,320
/// paths), the naive shuffle up to 6 (46,656) and Sattolo's up to 9 (40,320).
///
/// Measured (BENCHMARKS.md, "One draw per shuffle"): up to this bound the table beats drawing
/// choice by choice with the deal-stream tests on or off (Fisher–Yates on 8 cards: 14.5 → 19
/// M/s with them, 30 → 170–215 without); at 2^19 (Fisher–Yates on 9 cards, a 2.9 MB table in
/// the L3 cache) it still wins without them (16 → 45–112) but loses with them (9.3 → 5.2), the
/// default, so the bound stays at 2^16 (it must not depend on the flags: it decides the counts).
pub const MAX_TABLE_PATHS: u64 = 1 << 16;

/// The most choices a tabled shuffle may make.
pub const MAX_CHOICES: usize = 16;

/// The largest deck a table entry holds (4 bits a card beside a 24-bit rank).
pub const MAX_TABLE_DECK: usize = 10;

/// Bits of an entry that hold the rank; the deck follows, 4 bits a card (card i in bits
/// 24 + 4i ..).
const RANK_BITS: u32 = 24;

/// The table of one shuffle on one deck size (see the module documentation).
#[derive(Debug, Clone)]
pub struct ChoiceTable {
    deck: usize,
    /// The bounds of the choices, in the order the algorithm asks them.
    bounds: Vec<u32>,
    /// P, the number of paths (∏ bounds).
    paths: u32,
    /// `entries[x]`: the rank of the ordering path x gives, and the ordering itself.
    entries: Vec<u64>,
}

/// A source that records the bounds asked and answers 0 (for the first path).
struct Recorder {
    bounds: Vec<u32>,
    coin: bool,
}

impl RandomSource for Recorder {
    fn below(&mut self, bound: usize) -> usize {
        self.bounds.push(u32::try_from(bound).unwrap_or(u32::MAX));
        0
    }

    fn coin(&mut self) -> bool {
        self.coin = true;
        false
    }
}

/// A source that answers choice i with digit i of a path number, checking the bounds.
struct Replay<'a> {
    bounds: &'a [u32],
    path: u32,
    next: usize,
    mismatch: bool,
}

impl RandomSource for Replay<'_> {
    fn below(&mut self, bound: usize) -> usize {
        match self.bounds.get(self.next) {
            Some(&k) if k as usize == bound => {
                self.next += 1;
                let digit = self.path % k;
                self.path /= k;
                digit as usize
            }
            _ => {
                self.mismatch = true;
                0
            }
        }
    }

    fn coin(&mut self) -> bool {
        self.mismatch = true;
        false
    }
}

impl ChoiceTable {
    /// The table of `shuffle` on `deck` cards, when the shuffle's bounds are the same on every
    /// path, it never flips a coin, and it has at most [`MAX_TABLE_PATHS`] paths; otherwise
    /// None.
    pub fn derive(shuffle: Shuffle, deck: usize) -> Option<Self> {
        if !(2..=MAX_TABLE_DECK).contains(&deck) {
            return None;
        }
        let identity: Vec<Card> = (0..deck as Card).collect();
        let mut scratch = identity.clone();
        let mut cards = identity.clone();
        let mut recorder = Recorder {
            bounds: Vec::new(),
            coin: false,
        };
        shuffle.apply(&mut cards, &mut scratch, &mut recorder);
        if recorder.coin || recorder.bounds.len() > MAX_CHOICES {
            return None;
        }
        let bounds = recorder.bounds;
        let paths = bounds
            .iter()
            .try_fold(1u64, |p, &k| p.checked_mul(u64::from(k)))
            .filter(|p| (1..=MAX_TABLE_PATHS).contains(p))?;
        let mut entries = Vec::with_capacity(paths as usize);
        for path in 0..paths as u32 {
            cards.copy_from_slice(&identity);
            let mut replay = Replay {
                bounds: &bounds,
                path,
                next: 0,
                mismatch: false,
            };
            shuffle.apply(&mut cards, &mut scratch, &mut replay);
            if replay.mismatch || replay.next != bounds.len() {
                return None;
            }
            entries.push(pack(rank(&cards), &cards));
        }
        Some(ChoiceTable {
            deck,
            bounds,
            paths: paths as u32,
            entries,
        })
    }

    /// The table for a run, when it takes the one-draw path: the default source (ChaCha8,
    /// Lemire's reduction, native 32-bit words, no re-seeding) and a shuffle with a table.
    pub fn for_run(shuffle: Shuffle, deck: usize, source: &SourceSpec) -> Option<Self> {
        let default =
            source.generator == Generator::ChaCha(RngKind::Chacha8) && source.is_fast_path();
        if default {
            Self::derive(shuffle, deck)
        } else {
            None
        }
    }

    /// Number of cards.
    pub fn deck(&self) -> usize {
        self.deck
    }

    /// P, the number of paths: a shuffle is one draw below this.
    pub fn paths(&self) -> u32 {
        self.paths
    }

    /// The entries, one per path (see [`entry_rank`] and [`entry_deck`]).
    pub fn entries(&self) -> &[u64] {
        &self.entries
    }

    /// The sources of the plain loops: the run's ChaCha8 words, one draw below P per shuffle,
    /// answered digit by digit to the algorithm.
    pub fn sources(&self) -> DigitSources<'_> {
        DigitSources { table: self }
    }
}

/// [`dispatch`] for the plain loops of a run of `shuffle` on `deck` cards: the one-draw
/// sources ([`DigitSources`]) when the run takes the one-draw path, so that every loop makes the
/// decks the simulation tallies; the sources [`dispatch`] picks otherwise.
pub fn dispatch_run<V: SourcesVisitor>(
    shuffle: Shuffle,
    deck: usize,
    source: &SourceSpec,
    visitor: V,
) -> V::Output {
    match ChoiceTable::for_run(shuffle, deck, source) {
        Some(table) => visitor.visit(&table.sources()),
        None => dispatch(source, visitor),
    }
}

/// The entry of the ordering `cards` with rank `rank`.
fn pack(rank: usize, cards: &[Card]) -> u64 {
    debug_assert!(rank < 1 << RANK_BITS && cards.len() <= MAX_TABLE_DECK);
    cards
        .iter()
        .enumerate()
        .fold(rank as u64, |entry, (i, &card)| {
            entry | (u64::from(card) << (RANK_BITS as usize + 4 * i))
        })
}

/// The rank an entry holds.
#[inline(always)]
pub fn entry_rank(entry: u64) -> usize {
    (entry & ((1 << RANK_BITS) - 1)) as usize
}

/// The ordering an entry holds, for a deck of N cards.
#[inline(always)]
pub fn entry_deck<const N: usize>(entry: u64) -> [Card; N] {
    std::array::from_fn(|i| ((entry >> (RANK_BITS as usize + 4 * i)) & 0xf) as Card)
}

/// `count` shuffles: for each, a draw x below P (the length of `entries`, one entry a path)
/// handed to `each` as x's entry.
#[inline(always)]
pub fn each_entry<R: RandomSource>(
    entries: &[u64],
    count: u64,
    source: &mut R,
    mut each: impl FnMut(u64),
) {
    source.each_below(entries.len(), count, |x| each(entries[x]));
}

/// [`BlockSources`] for the plain loops: block b draws from ChaCha8 stream b of the seed, as
/// the fast path does, through a [`DigitSource`].
pub struct DigitSources<'a> {
    table: &'a ChoiceTable,
}

impl<'a> BlockSources for DigitSources<'a> {
    type Source = DigitSource<'a>;

    fn for_block(&self, seed: u64, block: u64) -> DigitSource<'a> {
        DigitSource {
            words: FastSource::new(ChaCha8Rng::for_block(seed, block)),
            bounds: &self.table.bounds,
            paths: self.table.paths,
            path: 0,
        }
    }
}

/// The one-draw source: at the start of each shuffle one draw x below P; then choice i is digit
/// i of x (the digits the table was derived with), so the algorithm's own code makes the same
/// ordering the table holds for x.
pub struct DigitSource<'a> {
    words: FastSource<ChaCha8Rng>,
    bounds: &'a [u32],
    paths: u32,
    path: u32,
}

impl RandomSource for DigitSource<'_> {
    const STARTS_SHUFFLES: bool = true;

    fn start_shuffle(&mut self) {
        self.path = self.words.below(self.paths as usize) as u32;
    }

    fn below(&mut self, bound: usize) -> usize {
        // The table's derivation checked that every path asks exactly `bounds`, in order.
        debug_assert!(self.bounds.contains(&(bound as u32)));
        let bound = bound as u32;
        let digit = self.path % bound;
        self.path /= bound;
        digit as usize
    }

    fn coin(&mut self) -> bool {
        unreachable!("a shuffle that flips coins has no choice table")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::algorithms::Algorithm;
    use crate::engine::permutation::{FACTORIALS, unrank};

    #[test]
    fn fisher_yates_gets_a_table_of_n_factorial_paths_each_ordering_once() {
        for (n, &orderings) in FACTORIALS.iter().enumerate().take(9).skip(2) {
            let table = ChoiceTable::derive(Algorithm::FisherYates.into(), n).unwrap();
            assert_eq!(u64::from(table.paths()), orderings);
            let mut seen = vec![0u32; orderings as usize];
            for &entry in table.entries() {
                seen[entry_rank(entry)] += 1;
            }
            assert!(seen.iter().all(|&c| c == 1), "n = {n}");
        }
    }

    #[test]
    fn entries_hold_the_rank_and_the_ordering_of_the_algorithms_own_code() {
        for algorithm in [
            Algorithm::FisherYates,
            Algorithm::FisherYatesForward,
            Algorithm::Naive,
            Algorithm::Sattolo,
        ] {
            let table = ChoiceTable::derive(algorithm.into(), 5).unwrap();
            for (path, &entry) in table.entries().iter().enumerate() {
                // The script: the digits of the path, least significant first.
                let mut rest = path;
                let script: Vec<usize> = table
                    .bounds
                    .iter()
                    .map(|&k| {
                        let digit = rest % k as usize;
                        rest /= k as usize;
                        digit
                    })
                    .collect();
                let mut deck: Vec<Card> = (0..5).collect();
                let mut scratch = deck.clone();
                let mut source = crate::engine::random_source::ScriptedSource::new(script);
                algorithm.shuffle(&mut deck, &mut scratch, &mut source);
                assert_eq!(
                    entry_deck::<5>(entry).to_vec(),
                    deck,
                    "{}",
                    algorithm.name()
                );
                assert_eq!(unrank(entry_rank(entry), 5), deck);
            }
        }
    }

    #[test]
    fn the_naive_shuffle_has_n_to_the_n_paths_and_sattolo_n_minus_1_factorial() {
        let naive = ChoiceTable::derive(Algorithm::Naive.into(), 4).unwrap();
        assert_eq!(naive.paths(), 256);
        let sattolo = ChoiceTable::derive(Algorithm::Sattolo.into(), 6).unwrap();
        assert_eq!(u64::from(sattolo.paths()), FACTORIALS[5]);
    }

    #[test]
    fn shuffles_with_coins_or_data_dependent_bounds_or_too_many_paths_get_no_table() {
        // (The overhand shuffle's cuts are `below(denominator)` draws at every gap: its bounds
        // are fixed, so it does get a table.)
        assert!(ChoiceTable::derive(Algorithm::Overhand.into(), 5).is_some());
        for algorithm in [
            Algorithm::Riffle,
            Algorithm::ComparatorInsertion,
            Algorithm::ComparatorMerge,
            Algorithm::ComparatorQuick,
            Algorithm::ComparatorTimsort,
        ] {
            assert!(
                ChoiceTable::derive(algorithm.into(), 5).is_none(),
                "{}",
                algorithm.name()
            );
        }
        // 9! and 7^7 paths are past the bound.
        assert!(ChoiceTable::derive(Algorithm::FisherYates.into(), 9).is_none());
        assert!(ChoiceTable::derive(Algorithm::Naive.into(), 7).is_none());
    }

    #[test]
    fn only_the_default_source_takes_the_one_draw_path() {
        use crate::engine::mapping::Mapping;
        let shuffle = Algorithm::FisherYates.into();
        assert!(ChoiceTable::for_run(shuffle, 4, &SourceSpec::chacha(RngKind::Chacha8)).is_some());
        assert!(ChoiceTable::for_run(shuffle, 4, &SourceSpec::chacha(RngKind::Chacha20)).is_none());
        let modulo = SourceSpec {
            mapping: Mapping::Modulo,
            ..SourceSpec::chacha(RngKind::Chacha8)
        };
        assert!(ChoiceTable::for_run(shuffle, 4, &modulo).is_none());
    }
}
