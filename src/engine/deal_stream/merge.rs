//! Persistence: what a saved tally keeps of a stream, and the merge of several parts of one stream
//! (the shards of a run, or the check tallies of several inputs). the simulation ([`crate::engine::simulate::simulate`]) and
//! the `check` reader hand over a finished [`DealStreamTally`]; it keeps, besides the counts, the
//! ends of its runs of consecutive blocks ([`DealStreamTally::ends`]) and the sorted fingerprints
//! ([`DealStreamTally::fingerprints`]), so that [`DealStreamMerger`] can pair the seams between
//! shards and count repeats across parts exactly as one accumulator of the whole stream would.

use super::repeats::{fit_under, sampled_at};
use super::{
    DealStream, DealStreamOptions, DealStreamTally, RepeatSource, Repeats, RepeatsSkipped, Seam,
    add_composition_counts,
};
use crate::engine::algorithms::Card;
use crate::engine::permutation::factorial;

/// How the fingerprints of a part may be read ([`DealStreamMerger::fingerprint_budget`]): only
/// those sampled at `level` (or higher), and the level raised while more than `cap` are read,
/// as [`DealStream`] does; the pool then brings all parts to the highest level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FingerprintBudget {
    /// The lowest sampling level still possible.
    pub level: u32,
    /// Most fingerprints kept.
    pub cap: u64,
}

impl FingerprintBudget {
    /// Read `prints` (one part's, in chunks) into `list` at `level`, raised as needed (see
    /// [`super::repeats`]); `level` starts at the larger of the part's and the budget's.
    pub fn read(&self, list: &mut Vec<u128>, level: &mut u32, prints: impl Iterator<Item = u128>) {
        let current = *level;
        list.extend(prints.filter(|&print| sampled_at(print, current)));
        if list.len() as u64 > self.cap {
            let mut lists = [std::mem::take(list)];
            fit_under(&mut lists, level, self.cap);
            let [kept] = lists;
            *list = kept;
        }
    }
}

/// The ends of a run of consecutive blocks of a stream whose inner seams are paired: the first
/// deal of its first block and the last deal of its last block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamEnd {
    /// The first block of the run.
    pub first_block: u64,
    /// Its first deal.
    pub first: Vec<Card>,
    /// The last block of the run.
    pub last_block: u64,
    /// Its last deal.
    pub last: Vec<Card>,
    /// Whether the last block was made whole (else its last deal is not the block's last, and
    /// it pairs with nothing after it).
    pub complete: bool,
}

/// The runs of consecutive blocks of `seams` (sorted by block), paired as
/// [`DealStream::finish`] pairs them: a seam continues the run when the block before was
/// complete and is the block just before.
pub(super) fn stream_ends(seams: &[Seam]) -> Vec<StreamEnd> {
    let mut ends: Vec<StreamEnd> = Vec::new();
    for seam in seams {
        match ends.last_mut() {
            Some(end) if end.complete && seam.block == end.last_block + 1 => {
                end.last_block = seam.block;
                end.last.clone_from(&seam.last);
                end.complete = seam.complete;
            }
            _ => ends.push(StreamEnd {
                first_block: seam.block,
                first: seam.first.clone(),
                last_block: seam.block,
                last: seam.last.clone(),
                complete: seam.complete,
            }),
        }
    }
    ends
}

/// Adds the [`DealStreamTally`]s of several parts of one stream — the shards of a run, the
/// tallies of several `check` inputs — into the tally one accumulator of the whole stream
/// would give: counts added, fingerprints pooled (repeats counted across parts), and the seams
/// between the parts' runs of blocks paired in block order. Parts without blocks (`check`)
/// have no ends, so nothing pairs them with each other: each input's stream stands alone.
/// Memory is one part's counters plus the fingerprints pooled, which the fingerprint limit
/// bounds as in a single run: past it the pool is sampled by value ([`super::repeats`]), the
/// same sample whatever the parts.
#[derive(Debug)]
pub struct DealStreamMerger {
    stream: DealStream,
    ends: Vec<StreamEnd>,
}

impl DealStreamMerger {
    /// An empty merge of parts of a stream kept with `options` (the options the single run
    /// would use).
    pub fn new(options: DealStreamOptions) -> Self {
        DealStreamMerger {
            stream: DealStream::new(options),
            ends: Vec::new(),
        }
    }

    /// How a part's fingerprints may be read into memory (None when they are not counted):
    /// those sampled at the pool's level, at most the pool's limit of them.
    pub fn fingerprint_budget(&self) -> Option<FingerprintBudget> {
        match (self.stream.options.repeats, self.stream.dropped) {
            (RepeatSource::Fingerprints { limit }, None) => Some(FingerprintBudget {
                level: self.stream.level,
                cap: limit,
            }),
            _ => None,
        }
    }

    /// Add one part; an error says how its shape differs from the stream's.
    pub fn add(&mut self, mut part: DealStreamTally) -> Result<(), String> {
        let stream = &mut self.stream;
        let options = stream.options;
        if part.deck != options.deck
            || part.dealt != options.dealt
            || part.groups != stream.groups
            || part.matches.len() != stream.matches.len()
            || part.slots.len() != stream.slots.len()
            || part.compositions.as_ref().map(Vec::len)
                != stream
                    .compositions
                    .as_ref()
                    .map(|_| factorial(options.deck) as usize)
            || part.kernel.is_some() != stream.kernel.is_some()
            || part
                .ends
                .iter()
                .any(|end| end.first.len() != options.dealt || end.last.len() != options.dealt)
        {
            return Err(format!(
                "its deal-stream counts are not those of deals of {} cards out of {}",
                options.dealt, options.deck
            ));
        }
        if part.pairs > part.deals {
            return Err(format!(
                "{} pairs of deals out of {} deals",
                part.pairs, part.deals
            ));
        }
        if let Some(sums) = &part.kernel
            && sums.pairs > part.pairs
        {
            return Err(format!(
                "its Mallows kernel sums {} pairs of deals out of {} pairs",
                sums.pairs, part.pairs
            ));
        }
        stream.deals += part.deals;
        stream.pairs += part.pairs;
        for (total, count) in stream.matches.iter_mut().zip(&part.matches) {
            *total += count;
        }
        for (total, count) in stream.slots.iter_mut().zip(&part.slots) {
            *total += count;
        }
        if let (Some(totals), Some(counts)) = (&mut stream.compositions, part.compositions.take()) {
            add_composition_counts(totals, counts);
        }
        if let (Some(total), Some(sums)) = (&mut stream.kernel, &part.kernel) {
            total.sums.add(sums);
        }
        match (part.repeats, options.repeats) {
            (Repeats::Skipped(RepeatsSkipped::Memory { limit, .. }), repeats) => {
                // The whole stream's limit when the merge counts fingerprints (a part read
                // without room for its fingerprints says how much room was left).
                let limit = match repeats {
                    RepeatSource::Fingerprints { limit } => limit,
                    _ => limit,
                };
                stream.fingerprints = vec![Vec::new()];
                stream.dropped = stream
                    .dropped
                    .or(Some(RepeatsSkipped::Memory { limit, deals: 0 }));
            }
            (Repeats::Counted { .. }, RepeatSource::Fingerprints { .. }) => {
                stream.absorb_fingerprints(part.fingerprints, 0);
            }
            (Repeats::Sampled { level, .. }, RepeatSource::Fingerprints { .. }) => {
                stream.absorb_fingerprints(part.fingerprints, level);
            }
            _ => {}
        }
        self.ends.extend(part.ends);
        Ok(())
    }

    /// Pair the seams between the parts, count the repeated deals, and hand over the counts.
    pub fn finish(self) -> DealStreamTally {
        let DealStreamMerger {
            mut stream,
            mut ends,
        } = self;
        ends.sort_by_key(|end| end.first_block);
        let mut joined: Vec<StreamEnd> = Vec::new();
        for end in ends {
            match joined.last_mut() {
                Some(before) if before.complete && end.first_block == before.last_block + 1 => {
                    stream.remember(&before.last);
                    // The first deal of a block has index 0.
                    stream.pair(&before.last, &end.first, 0);
                    before.last_block = end.last_block;
                    before.last = end.last;
                    before.complete = end.complete;
                }
                _ => joined.push(end),
            }
        }
        let mut tally = stream.finish();
        tally.ends = joined;
        tally
    }
}
