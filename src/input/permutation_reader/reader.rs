//! The reading state carried across lines and sources: each line parsed (fast paths first, the
//! careful parser behind them), its format and numbering decided, checked, and tallied one by one
//! or in batches.

use super::fast_paths::{CardBits, CardSet, CardStamps, LabelIndex, VectorLines, parse_fast};
use super::sources::{Delivery, Input, Lines, feed};
use super::{
    BYTE_ORDER_MARK, CHUNKS, DealSink, INVALID_EXAMPLES, InputCounts, InputError, InputProblem,
    InvalidLine, MAX_LINE, Numbering, PENDING_VALUES, POLL, ReaderOptions, cards, deal_sink_for,
    trimmed,
};
use crate::engine::algorithms::Card;
use crate::engine::counters::ByteTally;
use crate::engine::marginal::{FusedMarginalTally, LANES, MarginalTally};
use crate::engine::permutation::{MAX_FULL_DECK, rank};
use crate::input::content_digest::{ContentDigest, PrefixHasher};
use crate::input::line_format::{self, ANY_FORMAT, LineFormat, Rejection, Shape, shown};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;

/// Full tallies of more cells than this (from 8 cards: 8! `u64` counters, 315 KiB, no longer
/// fit the L2 cache with room to spare) count the fast path's decks in batches, in bytes.
const BATCHED_FROM_CELLS: usize = 1 << 14;

/// Decks ranked (and their counters prefetched) before the batch is counted: as in the
/// simulation's full tally, enough cache misses in flight to overlap, few enough that the
/// prefetched lines are still there.
const RANK_BATCH: usize = 16;

/// The reading state carried across lines and files.
pub(super) struct Reader<'a> {
    options: &'a ReaderOptions,
    /// The label index, when the input uses labels or card names.
    labels: Option<LabelIndex<'a>>,
    pub(super) deck: Option<usize>,
    pub(super) numbering: Option<(Numbering, String)>,
    /// The shape of the first valid line, and where it was.
    pub(super) format: Option<(Shape, String)>,
    /// A list printed over several lines, gathered up to its end.
    open_list: Option<OpenList>,
    /// A quoted token with its escapes resolved.
    scratch: Vec<u8>,
    /// Under `--skip-invalid`, the first rejection as the error would have said it.
    pub(super) first_rejection: Option<String>,
    /// None until the deck size is known.
    pub(super) counts: Option<InputCounts>,
    /// Ranks of decks read by the fast path whose full-tally counters were prefetched and are
    /// not counted yet (at most [`RANK_BATCH`]; see [`BATCHED_FROM_CELLS`]); counted in
    /// [`Self::finish`] at the latest. The counts are sums, so the order does not matter.
    ranks: [usize; RANK_BATCH],
    ranked: usize,
    /// The fast path's counts of a batched full tally, in bytes with a carry (a quarter of the
    /// cache lines of `u64` counters: 3.6 MB at 10 cards, not 29 MB), added into `counts` in
    /// [`Self::finish`]; the ranks batched are counted here.
    bytes: Option<ByteTally>,
    /// The careful parser's token values (up to one more than the largest deck).
    values: Vec<usize>,
    /// The permutation being parsed, `cards[position] = card`.
    cards: Vec<Card>,
    /// The cards met on the line being parsed.
    seen: CardStamps,
    /// With `--deal` and numbered cards: the values of the deals read before any line said
    /// whether the cards are 0-based or 1-based, in order (at most [`PENDING_VALUES`]).
    pending: Vec<Card>,
    /// Deals read as 0-based because no line decided the numbering.
    pub(super) numbering_assumed: u64,
    pub(super) permutations: u64,
    pub(super) lines: u64,
    pub(super) invalid: u64,
    pub(super) invalid_examples: Vec<InvalidLine>,
    /// The deal-stream accumulator, once the deck size is known (when asked for).
    pub(super) deals: Option<DealSink>,
    /// Sees every permutation tallied, in input order; a break ends the reading there.
    pub(super) observer: Option<Observer<'a>>,
    /// Whether the observer broke.
    observer_broke: bool,
    /// Told the deck's size at the first line, when no flag gave it (taken when called).
    pub(super) on_deck: Option<DeckHook<'a>>,
    /// [`ReaderOptions::limit`], or u64::MAX.
    limit: u64,
    /// Marginal mode's fast path: decks gathered [`LANES`] at a time for the fused pass, added
    /// into the counts at the end of the input (the counts are sums, so order does not matter).
    pub(super) batch: Option<MarginalBatch>,
    /// The vector reading of two-digit lines this CPU runs (asked once).
    vector: VectorLines,
    /// The size and digest of each source read to its end.
    pub(super) contents: Vec<ContentDigest>,
    /// The digests of the prefixes of each source opened ([`PrefixHasher`]), in order: those
    /// ended, then the one being read (see [`Reader::prefixes`]).
    prefixes: Vec<Vec<u128>>,
    /// The prefixes of the source being read.
    prefix: Option<PrefixHasher>,
}

/// Decks waiting for [`FusedMarginalTally::add_decks`], of any size (its vector passes take
/// decks of up to 64 cards, and of up to 256 on CPUs with AVX-512).
pub(super) struct MarginalBatch {
    fused: FusedMarginalTally,
    /// Up to [`LANES`] decks laid end to end.
    decks: Vec<Card>,
    /// Decks in `decks`.
    filled: usize,
    /// Decks of `decks` already given to the deal stream (the others go as a batch, through
    /// [`DealStream::add_deals`], when the batch is full or another line's deal must follow them).
    streamed: usize,
    deck: usize,
}

impl MarginalBatch {
    /// An empty batch for decks of `deck` cards. When the decks take the fused pass (at most
    /// 64 cards, [`FusedMarginalTally::is_fused`]), and every deck tallied also goes, whole, to
    /// the deal stream `deals` and its slot tables hold the position matrix
    /// ([`DealSink::has_slot_card_counts`]), the fused pass leaves the positions: they are read
    /// off the stream at the end instead of being counted twice, 52 increments a deck.
    fn new(deck: usize, deals: Option<&DealSink>) -> Self {
        let mut fused = FusedMarginalTally::new(deck);
        if fused.is_fused() && deals.is_some_and(DealSink::has_slot_card_counts) {
            fused.leave_positions();
        }
        MarginalBatch {
            fused,
            decks: vec![0; LANES * deck],
            filled: 0,
            streamed: 0,
            deck,
        }
    }

    /// Whether the positions of the decks added here are to be read off the deal stream.
    pub(super) fn positions_from_stream(&self) -> bool {
        !self.fused.counts_positions()
    }

    /// The place of the next deck, to be written (and then kept with [`Self::keep_next`], or
    /// left to be overwritten).
    #[inline(always)]
    fn next_deck(&mut self) -> &mut [Card] {
        let n = self.deck;
        &mut self.decks[self.filled * n..(self.filled + 1) * n]
    }

    /// Keep the deck written at [`Self::next_deck`]; the fused pass runs once [`LANES`] are
    /// gathered.
    #[inline(always)]
    fn keep_next(&mut self, deals: &mut Option<DealSink>) {
        self.filled += 1;
        if self.filled == LANES {
            self.stream(deals);
            self.fused.add_decks(&self.decks);
            self.filled = 0;
            self.streamed = 0;
        }
    }

    /// Give the decks kept and not yet streamed to the deal stream, in line order.
    #[inline(always)]
    pub(super) fn stream(&mut self, deals: &mut Option<DealSink>) {
        if let Some(deals) = deals
            && self.streamed < self.filled
        {
            let n = self.deck;
            deals.add_deals(&self.decks[self.streamed * n..self.filled * n], n);
        }
        self.streamed = self.filled;
    }

    /// Every deck added, as a marginal tally.
    pub(super) fn finish(mut self) -> MarginalTally {
        self.fused.add_decks(&self.decks[..self.filled * self.deck]);
        self.fused.finish()
    }
}

/// A list whose first line did not close it (Node's `console.log` of a long array, NumPy's
/// `repr` of one), or an R vector, which the next line may go on: its lines so far, joined by
/// spaces.
pub(super) struct OpenList {
    /// Its lines so far (at most [`MAX_LINE`] bytes).
    record: Vec<u8>,
    /// The number of its first line.
    number: u64,
    /// How its end is found.
    end: ListEnd,
}

/// How the end of an open list is found.
enum ListEnd {
    /// At its closing `]` (or `)`): the search for it, at the end of the record.
    Closing(line_format::ListScan),
    /// An R vector's: at the first line that does not go on with it (headed by `[k]`, k > 1),
    /// or at the end of the source.
    RVector,
}

/// What one valid line holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LineKind {
    /// A blank or comment line.
    Blank,
    /// A permutation or a deal, left in `Reader::cards`.
    Cards,
    /// A deal whose numbering is not decided yet, kept in `Reader::pending`.
    Pending,
}

/// Why one line is rejected, or what it holds.
pub(super) type LineResult = Result<LineKind, Rejection>;

/// What [`read_permutations_observed`](super::read_permutations_observed) calls with each
/// permutation tallied.
pub type Observer<'a> = &'a mut dyn FnMut(&[Card]) -> ControlFlow<()>;

/// Told the size of the decks, once, as soon as it is known: before the first line when a flag
/// gives it, at the first line otherwise (`check` starts the exact laws a report will need).
pub type DeckHook<'a> = &'a mut dyn FnMut(usize);

impl<'a> Reader<'a> {
    pub(super) fn new(options: &'a ReaderOptions, deck: Option<usize>) -> Self {
        let largest = options.largest();
        let labels = match (&options.labels, options.cards) {
            (Some(labels), _) => Some(LabelIndex::new(labels)),
            (None, Some(names)) => Some(LabelIndex::of_names(names)),
            (None, None) => None,
        };
        Reader {
            options,
            labels,
            deck,
            numbering: None,
            format: None,
            open_list: None,
            scratch: Vec::new(),
            first_rejection: None,
            counts: deck.map(|n| options.empty_counts(n)),
            ranks: [0; RANK_BATCH],
            bytes: None,
            ranked: 0,
            values: Vec::with_capacity(largest + 1),
            cards: vec![0; largest],
            seen: CardStamps::new(largest),
            pending: Vec::new(),
            numbering_assumed: 0,
            permutations: 0,
            lines: 0,
            invalid: 0,
            invalid_examples: Vec::new(),
            deals: deck.and_then(|n| deal_sink_for(options, n)),
            observer: None,
            observer_broke: false,
            on_deck: None,
            limit: options.limit.unwrap_or(u64::MAX),
            batch: None,
            vector: VectorLines::of_cpu(),
            contents: Vec::new(),
            prefixes: Vec::new(),
            prefix: None,
        }
    }

    /// The digests of the prefixes of each source opened, in order, when
    /// [`ReaderOptions::digest`] asked for them (the last one may have been read in part).
    pub(super) fn prefixes(&mut self) -> Vec<Vec<u128>> {
        let mut prefixes = std::mem::take(&mut self.prefixes);
        prefixes.extend(self.prefix.take().map(PrefixHasher::finish));
        prefixes
    }

    /// Show the permutation just tallied to the observer, if any.
    #[inline(always)]
    fn observed(observer: &mut Option<Observer<'a>>, broke: &mut bool, deck: &[Card]) {
        if let Some(observe) = observer {
            *broke |= observe(deck).is_break();
        }
    }

    /// The hook of the deal-stream tests: the permutation just tallied, in line order.
    #[inline(always)]
    fn deal(deals: &mut Option<DealSink>, batch: &mut Option<MarginalBatch>, deck: &[Card]) {
        if let Some(batch) = batch {
            batch.stream(deals);
        }
        if let Some(deals) = deals {
            deals.add(deck);
        }
    }

    /// The cards on a line: K with `--deal`, else the deck size (None until known).
    fn line_length(&self) -> Option<usize> {
        self.options.deal.or(self.deck)
    }

    /// The numbering of names: labels or standard cards (None for numbers).
    fn named(&self) -> Option<Numbering> {
        match (&self.options.labels, self.options.cards) {
            (Some(_), _) => Some(Numbering::Labels),
            (None, Some(_)) => Some(Numbering::StandardCards),
            (None, None) => None,
        }
    }

    /// The fast paths, once the deck size and the numbering are known: true when the line was
    /// a valid permutation or deal and is tallied.
    #[inline(always)]
    fn tally_fast(&mut self, line: &[u8]) -> bool {
        let (Some(n), Some(counts), Some((numbering, _)), Some((Shape { format: LineFormat::Plain, .. }, _))) = (
            self.deck,
            self.counts.as_mut(),
            &self.numbering,
            &self.format,
        ) else {
            return false;
        };
        let labels = self.labels.as_ref();
        match counts {
            InputCounts::Full(counts) => {
                let mut deck = [0 as Card; MAX_FULL_DECK];
                let bits = &mut CardBits(0);
                if !parse_fast(line, n, n, *numbering, labels, &mut deck, bits, self.vector) {
                    return false;
                }
                let rank = rank(&deck[..n]);
                if counts.len() > BATCHED_FROM_CELLS {
                    let bytes = self
                        .bytes
                        .get_or_insert_with(|| ByteTally::new(counts.len()));
                    bytes.prefetch(rank);
                    self.ranks[self.ranked] = rank;
                    self.ranked += 1;
                    if self.ranked == RANK_BATCH {
                        for &rank in &self.ranks {
                            bytes.add(rank);
                        }
                        self.ranked = 0;
                    }
                } else {
                    counts[rank] += 1;
                }
                if let Some(deals) = &mut self.deals {
                    deals.add_ranked(&deck[..n], rank);
                }
                Self::observed(&mut self.observer, &mut self.observer_broke, &deck[..n]);
            }
            InputCounts::Marginal(_) => {
                let seen = self.seen.start_line();
                // Parsed straight into the batch's next deck: no copy.
                let deals = self.deals.as_ref();
                let batch = self
                    .batch
                    .get_or_insert_with(|| MarginalBatch::new(n, deals));
                let deck = batch.next_deck();
                if !parse_fast(line, n, n, *numbering, labels, deck, seen, self.vector) {
                    return false;
                }
                // Its deal goes to the stream with the batch (see `MarginalBatch::stream`).
                Self::observed(&mut self.observer, &mut self.observer_broke, deck);
                batch.keep_next(&mut self.deals);
            }
            InputCounts::Deal(tally) => {
                let count = tally.deal;
                let seen = self.seen.start_line();
                let cards = &mut self.cards;
                if !parse_fast(line, count, n, *numbering, labels, cards, seen, self.vector) {
                    return false;
                }
                tally.add(&self.cards[..count]);
                Self::deal(&mut self.deals, &mut self.batch, &self.cards[..count]);
            }
        }
        self.permutations += 1;
        true
    }

    /// Tally the deals kept while the numbering was undecided, in order, now that it is
    /// `numbering`.
    fn flush_pending(&mut self, numbering: Numbering) {
        if self.pending.is_empty() {
            return;
        }
        let offset = Card::from(numbering == Numbering::OneBased);
        let count = self
            .line_length()
            .expect("pending deals have a known length");
        let counts = self
            .counts
            .as_mut()
            .expect("the counts exist once the deck size is known");
        let mut deal = vec![0 as Card; count];
        for values in self.pending.chunks(count) {
            for (card, &value) in deal.iter_mut().zip(values) {
                *card = value - offset;
            }
            counts.add(&deal);
            Self::deal(&mut self.deals, &mut self.batch, &deal);
            self.permutations += 1;
        }
        self.pending.clear();
    }

    /// At the end of the input (or of the reading, when stopped): the ranks still batched are
    /// counted, and deals still of undecided numbering are read as 0-based.
    pub(super) fn finish(&mut self) {
        if let Some(mut bytes) = self.bytes.take() {
            for &rank in &self.ranks[..self.ranked] {
                bytes.add(rank);
            }
            if let Some(InputCounts::Full(counts)) = &mut self.counts {
                bytes.add_into(counts);
            }
        }
        self.ranked = 0;
        if !self.pending.is_empty() {
            let count = self.line_length().unwrap_or(1) as u64;
            self.numbering_assumed += self.pending.len() as u64 / count;
            self.numbering = Some((Numbering::ZeroBased, "the start".to_string()));
            self.flush_pending(Numbering::ZeroBased);
        }
    }

    /// Parse one line (without its newline): a blank or comment line, a permutation or deal
    /// (left in `self.cards[..count]`), or a deal of undecided numbering (kept in
    /// `self.pending`).
    fn parse_line(&mut self, line: &[u8], location: &dyn Fn() -> String) -> LineResult {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let start = line
            .iter()
            .position(|&b| !matches!(b, b' ' | b'\t'))
            .unwrap_or(line.len());
        let content = &line[start..];
        if content.is_empty() || content[0] == b'#' {
            return Ok(LineKind::Blank);
        }
        if memchr::memchr(0, content).is_some() {
            return Err(
                "binary data (a NUL byte): expected text, one permutation per line"
                    .to_string()
                    .into(),
            );
        }
        if let Some((first, first_location)) = &self.format
            && first.format.bracketed() != line_format::opens_list(content)
        {
            let this = if first.format.bracketed() {
                Shape::PLAIN
            } else {
                Shape {
                    format: LineFormat::Brackets,
                    ..Shape::PLAIN
                }
            };
            return Err(self.format_mix(this, *first, first_location));
        }
        let largest = self.options.largest();
        let expected = self.line_length();
        let mut values = std::mem::take(&mut self.values);
        let mut scratch = std::mem::take(&mut self.scratch);
        values.clear();
        let split = line_format::split(content, &mut scratch, &mut |token| {
            let found = values.len();
            if found == largest + 1 || expected.is_some_and(|n| found == n) {
                return Err(format!(
                    "too many cards: expected {}, found more (extra token '{}')",
                    expected.unwrap_or(largest),
                    shown(token)
                )
                .into());
            }
            values.push(self.value_of(token)?);
            Ok(())
        });
        self.values = values;
        self.scratch = scratch;
        let format = split?;
        if let Some((first, first_location)) = &self.format
            && *first != format
        {
            return Err(self.format_mix(format, *first, first_location));
        }
        let found = self.values.len();
        // The deck's size is that of the first valid permutation: a line rejected before it
        // (`--skip-invalid`) does not fix it.
        let (count, n) = match (expected, self.deck) {
            (Some(count), _) if count != found => {
                return Err(format!("expected {count} cards, found {found}").into());
            }
            (Some(count), Some(n)) => (count, n),
            _ => {
                if !(2..=largest).contains(&found) {
                    return Err(format!(
                        "the first permutation has {}; decks of 2 to {largest} cards can be \
                         tallied",
                        cards(found)
                    )
                    .into());
                }
                (found, found)
            }
        };
        let values = &self.values[..count];
        // The numbering this line shows: None when a deal holds neither 0 nor n.
        let shown_numbering = match self.named() {
            Some(named) => Some(named),
            None => {
                let has_zero = values.contains(&0);
                let has_n = values.contains(&n);
                if let Some(&too_big) = values.iter().find(|&&v| v > n) {
                    return Err(format!(
                        "card {too_big} is out of range: cards are 0..{} or 1..{n}",
                        n - 1
                    )
                    .into());
                }
                match (has_zero, has_n) {
                    (true, true) => {
                        return Err(format!(
                            "mixes 0-based and 1-based values (both 0 and {n} appear); write \
                             cards as 0..{} or as 1..{n}",
                            n - 1
                        )
                        .into());
                    }
                    (false, true) => Some(Numbering::OneBased),
                    (true, false) => Some(Numbering::ZeroBased),
                    (false, false) if count == n => Some(Numbering::ZeroBased),
                    (false, false) => None,
                }
            }
        };
        let numbering = shown_numbering.or(self.numbering.as_ref().map(|(first, _)| *first));
        // Undecided values lie in 1..n−1, the same cards under either numbering for the
        // duplicate check.
        let offset = usize::from(numbering == Some(Numbering::OneBased));
        let seen = self.seen.start_line();
        for (slot, &value) in self.cards.iter_mut().zip(values) {
            let card = value - offset;
            if !seen.insert(card) {
                let written = match (&self.options.labels, self.options.cards) {
                    (Some(labels), _) => labels[card].clone(),
                    (None, Some(names)) => names.card_name(card as Card),
                    (None, None) => value.to_string(),
                };
                return Err(format!("card '{written}' appears twice").into());
            }
            *slot = card as Card;
        }
        if self.deck.is_none() {
            self.deck = Some(n);
            self.counts = Some(self.options.empty_counts(n));
            self.deals = deal_sink_for(self.options, n);
            if let Some(hook) = self.on_deck.take() {
                hook(n);
            }
        }
        if self.format.is_none() {
            self.format = Some((format, location()));
        }
        match (&self.numbering, shown_numbering) {
            (None, None) => {
                self.pending.extend(values.iter().map(|&v| v as Card));
                if self.pending.len() + count > PENDING_VALUES {
                    // Too many undecided deals to keep: read them as 0-based.
                    self.numbering_assumed += (self.pending.len() / count) as u64;
                    self.numbering = Some((
                        Numbering::ZeroBased,
                        format!(
                            "{} (read as 0-based: no line up to it held 0 or {n})",
                            location()
                        ),
                    ));
                    self.flush_pending(Numbering::ZeroBased);
                    return Ok(LineKind::Blank);
                }
                return Ok(LineKind::Pending);
            }
            (None, Some(numbering)) => {
                self.numbering = Some((numbering, location()));
                self.flush_pending(numbering);
            }
            (Some((first, first_location)), Some(numbering)) if *first != numbering => {
                let name = |n: Numbering| match n {
                    Numbering::ZeroBased => "0-based",
                    Numbering::OneBased => "1-based",
                    Numbering::Labels => "labelled",
                    Numbering::StandardCards => "written with card names",
                };
                return Err(format!(
                    "this {} is {} but {first_location} was {}; a mix is an error",
                    if self.options.deal.is_some() {
                        "deal"
                    } else {
                        "permutation"
                    },
                    name(numbering),
                    name(*first)
                )
                .into());
            }
            (Some(_), _) => {}
        }
        Ok(LineKind::Cards)
    }

    /// The value of one token: its index among the labels, or the integer it spells.
    fn value_of(&self, token: &[u8]) -> Result<usize, Rejection> {
        if let Some(index) = &self.labels {
            return index.get(token).ok_or_else(|| {
                match (std::str::from_utf8(token), self.options.cards) {
                    (Err(_), _) => {
                        Rejection::unreadable(format!("invalid UTF-8 in token '{}'", shown(token)))
                    }
                    (Ok(_), Some(names)) if self.options.labels.is_none() => format!(
                        "'{}' is not a card name ({})",
                        shown(token),
                        names.how_to_write()
                    )
                    .into(),
                    (Ok(_), _) => format!(
                        "unknown label '{}' (the labels are {})",
                        shown(token),
                        self.label_list()
                    )
                    .into(),
                }
            });
        }
        if token.is_empty() || token.len() > 6 || !token.iter().all(u8::is_ascii_digit) {
            return Err(if std::str::from_utf8(token).is_err() {
                Rejection::unreadable(format!("invalid UTF-8 in token '{}'", shown(token)))
            } else if token.iter().all(u8::is_ascii_digit) {
                format!("card '{}' is out of range", shown(token)).into()
            } else {
                Rejection::unreadable(format!(
                    "'{}' is not a card number (use integers, or give --labels for named cards)",
                    shown(token)
                ))
            });
        }
        Ok(token
            .iter()
            .fold(0usize, |acc, &digit| acc * 10 + usize::from(digit - b'0')))
    }

    /// The labels as listed in a message: all of them for a small deck, the first few and
    /// their number for a large one.
    fn label_list(&self) -> String {
        const SHOWN: usize = 13;
        let labels = self.options.labels.as_deref().unwrap_or_default();
        if labels.len() <= SHOWN {
            labels.join(",")
        } else {
            format!("{},… ({} labels)", labels[..SHOWN].join(","), labels.len())
        }
    }

    /// Tally the lines of one chunk of a source: complete lines are parsed in place, and the
    /// start of a line that goes on in the next chunk is kept in `lines.carry` (at most
    /// [`MAX_LINE`] bytes: a longer line is rejected once it passes the cap, and its rest is
    /// skipped up to its newline).
    pub(super) fn chunk(&mut self, lines: &mut Lines, chunk: &[u8]) -> Result<(), InputError> {
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', chunk) {
            if self.stopped() {
                return Ok(());
            }
            lines.number += 1;
            let piece = &chunk[start..end];
            start = end + 1;
            if lines.skipping {
                lines.skipping = false;
            } else if lines.carry.is_empty() {
                if piece.len() > MAX_LINE {
                    self.too_long(piece, &lines.name, lines.number)?;
                } else {
                    self.line(piece, &lines.name, lines.number)?;
                }
            } else if lines.carry.len() + piece.len() > MAX_LINE {
                self.too_long(&lines.carry, &lines.name, lines.number)?;
                lines.carry.clear();
            } else {
                lines.carry.extend_from_slice(piece);
                self.line(&lines.carry, &lines.name, lines.number)?;
                lines.carry.clear();
            }
        }
        let rest = &chunk[start..];
        if lines.skipping || rest.is_empty() {
            return Ok(());
        }
        if lines.carry.len() + rest.len() > MAX_LINE {
            let begun = if lines.carry.is_empty() {
                rest
            } else {
                &lines.carry
            };
            self.too_long(begun, &lines.name, lines.number + 1)?;
            lines.carry = Vec::new();
            lines.skipping = true;
        } else {
            lines.carry.extend_from_slice(rest);
        }
        Ok(())
    }

    /// The end of a source: its last line, if it has no newline; a list in brackets still open
    /// is rejected (a list does not go on in the next source).
    pub(super) fn end(&mut self, lines: &mut Lines) -> Result<(), InputError> {
        if !lines.skipping && !lines.carry.is_empty() && !self.stopped() {
            lines.number += 1;
            self.line(&lines.carry, &lines.name, lines.number)?;
        }
        lines.carry = Vec::new();
        // An R vector ends with its source; nothing is tallied past `--trials`.
        if let Some(open) = self.open_list.take_if(|open| matches!(open.end, ListEnd::RVector))
            && !self.stopped()
        {
            self.record(&open.record, &lines.name, open.number)?;
        }
        if let Some(open) = self.open_list.take() {
            self.reject(
                Rejection::unreadable(format!(
                    "the list in brackets has no closing ']' before the end of {}",
                    lines.name
                )),
                format!("{}:{}", lines.name, open.number),
                &open.record,
            )?;
        }
        Ok(())
    }

    /// Tally one line (without its newline), or reject it.
    #[inline]
    fn line(&mut self, content: &[u8], name: &str, number: u64) -> Result<(), InputError> {
        self.lines += 1;
        let content = if number == 1 {
            content.strip_prefix(BYTE_ORDER_MARK).unwrap_or(content)
        } else {
            content
        };
        if self.open_list.is_some() {
            return self.list_line(content, name, number);
        }
        if self.tally_fast(content) {
            return Ok(());
        }
        self.careful_line(content, name, number)
    }

    /// A line that the fast paths did not take: the start of a list printed over several
    /// lines (or of an R vector, which may be), or one record for the careful parser.
    fn careful_line(&mut self, content: &[u8], name: &str, number: u64) -> Result<(), InputError> {
        let text = trimmed(content);
        if matches!(self.format, Some((Shape::PLAIN, _))) {
            return self.record(content, name, number);
        }
        let end = if line_format::r_vector_index(text) == Some(1) {
            Some(ListEnd::RVector)
        } else {
            line_format::ListScan::opening(text)
                .filter(|scan| !scan.clone().closes(text))
                .map(ListEnd::Closing)
        };
        let Some(end) = end else {
            return self.record(content, name, number);
        };
        if text.len() > MAX_LINE {
            return self.too_long(text, name, number);
        }
        let mut end = end;
        if let ListEnd::Closing(scan) = &mut end {
            // Scanned from the start above: carry the state to the next line.
            scan.closes(text);
        }
        self.open_list = Some(OpenList {
            record: text.to_vec(),
            number,
            end,
        });
        Ok(())
    }

    /// The next line of a list in brackets printed over several lines: gathered, and the list
    /// read as one record once its `]` has come.
    fn list_line(&mut self, content: &[u8], name: &str, number: u64) -> Result<(), InputError> {
        let text = trimmed(content);
        let open = self.open_list.as_mut().expect("a list is open");
        let r_vector = matches!(open.end, ListEnd::RVector);
        if r_vector && line_format::r_vector_index(text).is_none_or(|index| index <= 1) {
            // The line does not go on with the vector, which ends before it.
            let open = self.open_list.take().expect("a list is open");
            self.record(&open.record, name, open.number)?;
            if self.stopped() {
                return Ok(());
            }
            return self.careful_line(content, name, number);
        }
        if !r_vector && line_format::opens_list(text) {
            // Another list begins before the open one was closed.
            let open = self.open_list.take().expect("a list is open");
            self.reject(
                Rejection::unreadable(format!(
                    "the list in brackets has no closing ']' before line {number} opens another"
                )),
                format!("{name}:{}", open.number),
                &open.record,
            )?;
            return self.careful_line(content, name, number);
        }
        if open.record.len() + 1 + text.len() > MAX_LINE {
            let open = self.open_list.take().expect("a list is open");
            self.lines -= 1;
            return self.too_long(&open.record, name, open.number);
        }
        open.record.push(b' ');
        open.record.extend_from_slice(text);
        // Only the new line is scanned: the search's state carries over from the lines before.
        let ListEnd::Closing(scan) = &mut open.end else {
            return Ok(());
        };
        if scan.closes(b" ") || scan.closes(text) {
            let open = self.open_list.take().expect("a list is open");
            return self.record(&open.record, name, open.number);
        }
        Ok(())
    }

    /// Whether the reading is to end here: the observer broke, or `--trials` permutations are
    /// tallied.
    #[inline(always)]
    pub(super) fn stopped(&self) -> bool {
        self.observer_broke || self.permutations >= self.limit
    }

    /// Tally one record (a line, or a list gathered over lines `number`…), or reject it.
    fn record(&mut self, content: &[u8], name: &str, number: u64) -> Result<(), InputError> {
        let location = || format!("{name}:{number}");
        match self.parse_line(content, &location) {
            Ok(LineKind::Cards) => {
                let count = self
                    .line_length()
                    .expect("a permutation was read, so its size is known");
                self.counts
                    .as_mut()
                    .expect("the counts exist once the deck size is known")
                    .add(&self.cards[..count]);
                Self::deal(&mut self.deals, &mut self.batch, &self.cards[..count]);
                // Dealt hands have no sequential test: `--until-decided` is refused with them.
                if self.options.deal.is_none() {
                    Self::observed(
                        &mut self.observer,
                        &mut self.observer_broke,
                        &self.cards[..count],
                    );
                }
                self.permutations += 1;
                Ok(())
            }
            Ok(LineKind::Blank | LineKind::Pending) => Ok(()),
            Err(rejection) => self.reject(rejection, location(), content),
        }
    }

    /// The rejection of a line of `this` shape after one of `first` at `first_location`.
    fn format_mix(&self, this: Shape, first: Shape, first_location: &str) -> Rejection {
        format!(
            "this line is {} but {first_location} was {}; a mix of formats is an error",
            this.describe(),
            first.describe()
        )
        .into()
    }

    /// Reject a line longer than [`MAX_LINE`], of which `begun` is the start.
    fn too_long(&mut self, begun: &[u8], name: &str, number: u64) -> Result<(), InputError> {
        self.lines += 1;
        // Enough bytes for the 40 characters that a message shows.
        let begun = &begun[..begun.len().min(4 * 41)];
        self.reject(
            format!("line longer than {MAX_LINE} bytes: '{}'", shown(begun)).into(),
            format!("{name}:{number}"),
            begun,
        )
    }

    /// Count and sample a bad line under `--skip-invalid` (keeping the first rejection's whole
    /// message); otherwise the error that stops the reading. `line` is the line rejected: an
    /// unreadable one is shown, with the format expected.
    fn reject(
        &mut self,
        rejection: Rejection,
        location: String,
        line: &[u8],
    ) -> Result<(), InputError> {
        let skip = self.options.skip_invalid;
        if !skip || self.first_rejection.is_none() {
            let problem = if rejection.unreadable {
                InputProblem::Unreadable {
                    line: line_format::shown_within(trimmed(line), 60),
                    problem: rejection.problem.clone(),
                    expected: match &self.format {
                        Some((shape, at)) => format!("{} as on {at}", shape.example()),
                        None => ANY_FORMAT.to_string(),
                    },
                    after_valid: self.format.is_some(),
                }
            } else {
                InputProblem::BadLine(rejection.problem.clone())
            };
            if !skip {
                return Err(InputError::new(location, problem));
            }
            self.first_rejection = Some(match problem {
                InputProblem::BadLine(problem) => format!("{location}: {problem}"),
                problem => format!("{location}: {problem}"),
            });
        }
        self.invalid += 1;
        if self.invalid_examples.len() < INVALID_EXAMPLES {
            self.invalid_examples.push(InvalidLine {
                location,
                problem: rejection.problem,
            });
        }
        Ok(())
    }

    /// Read every source in order: a reading thread opens each in turn and sends its chunks,
    /// which are tallied here. Ok(false) when `stop` ended the reading early; the reading
    /// thread is then left behind (it may be blocked in an open or a read that never returns)
    /// and ends at its next send, or with the process.
    pub(super) fn read_all(
        &mut self,
        inputs: Vec<(String, Input)>,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(u64),
    ) -> Result<bool, InputError> {
        let names: Vec<String> = inputs.iter().map(|(name, _)| name.clone()).collect();
        let digest = self.options.digest;
        let Some(first) = names.first() else {
            return Ok(true);
        };
        let (chunks, received) = mpsc::sync_channel(CHUNKS);
        let (spent, reusable) = mpsc::channel();
        let reading = thread::Builder::new()
            .name("shuffle-bias input".to_string())
            .spawn(move || feed(inputs, digest, &chunks, &reusable))
            .map_err(|error| InputError::new(first.clone(), InputProblem::CannotStart(error)))?;
        let mut source = 0;
        let mut lines = Lines::new(first);
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(false);
            }
            match received.recv_timeout(POLL) {
                Ok(Delivery::Chunk(buffer, length)) => {
                    if digest {
                        self.prefix
                            .get_or_insert_with(PrefixHasher::new)
                            .update(&buffer[..length]);
                    }
                    let tallied = self.chunk(&mut lines, &buffer[..length]);
                    // The reading thread may have ended already: then the buffer is dropped.
                    let _ = spent.send(buffer);
                    tallied?;
                    progress(self.lines);
                    if self.stopped() {
                        // The reading thread is left behind, as after a stop.
                        return Ok(true);
                    }
                }
                Ok(Delivery::End(content)) => {
                    if digest {
                        self.prefixes
                            .push(self.prefix.take().map_or_else(Vec::new, PrefixHasher::finish));
                    }
                    self.contents.extend(content);
                    self.end(&mut lines)?;
                    progress(self.lines);
                    if self.stopped() {
                        return Ok(true);
                    }
                    source += 1;
                    match names.get(source) {
                        Some(name) => lines = Lines::new(name),
                        None => {
                            // It has sent its last message and is ending.
                            let _ = reading.join();
                            return Ok(true);
                        }
                    }
                }
                Ok(Delivery::Failed(error)) => return Err(error),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(InputError::new(
                        names[source].clone(),
                        InputProblem::ReadingThreadFailed,
                    ));
                }
            }
        }
    }
}
