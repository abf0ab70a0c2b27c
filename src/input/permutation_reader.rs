//! Reading permutations that another program produced: one per line, streamed, tallied.
//!
//! Each line holds the deck after one shuffle: n tokens separated by runs of spaces and tabs
//! holding at most one comma — integers 0..n−1 or 1..n, or labels given with `--labels` (their
//! order is the starting order). An empty field (two commas with only blanks between them, or a
//! comma at either end) is an error. Blank lines and lines starting with `#` are skipped; CRLF is
//! accepted, and so is a UTF-8 byte-order mark at the very start of each source. Every line is
//! checked (count, range, duplicates, numbering); a bad line is an error naming `FILE:LINE` and
//! the offending token, or, with `--skip-invalid`, a counted and sampled rejection.
//!
//! Memory is the tally, not the input. A reading thread opens the sources one at a time, in
//! order, and reads raw chunks into a few reusable buffers that it hands to the parser and gets
//! back; a line longer than [`MAX_LINE`] is rejected as soon as it passes the cap, so at most a
//! few MiB are held whatever the input. The parser waits for chunks with a timeout and looks at
//! the stop flag (Ctrl-C) in between, so a stop takes effect even while the reading thread is
//! blocked — opening a FIFO that nobody writes to, or waiting on a terminal — and the tally of
//! what was read is returned.
//!
//! Two tallies can be fed ([`TallyMode`]): every one of the n! orderings counted (n ≤
//! [`MAX_FULL_DECK`]), or the [`MarginalTally`] of decks of up to [`MAX_MARGINAL_DECK`](crate::engine::marginal::MAX_MARGINAL_DECK) cards
//! (a 52-card deal, say). Either way the deck size is `--deck`, else the number of `--labels`,
//! else the number of cards on the first permutation.
//!
//! With `--deal K` ([`ReaderOptions::deal`]) a line is a dealt hand instead: K distinct cards
//! of a deck of n, in the order dealt, fed to a [`DealTally`]. A line of numbers that holds
//! neither 0 nor n cannot say whether the cards are 0-based or 1-based; such lines are kept
//! (at most [`PENDING_VALUES`] card values, 2 MiB) until a line decides, then tallied in order.
//! If none decides, they are read as 0-based and the tally says so.
//!
//! `--cards standard` ([`ReaderOptions::cards`]) reads card names (`As`, `10h`, `Q♦`: see
//! [`crate::input::cards`]), whose order is the standard one.
//!
//! A line may also be a list in brackets, as programs print one (`[3, 0, 1, 2]`, `["As", "Kd"]`,
//! Node's `[ 3, 0, 1, 2 ]` over several lines: see [`crate::input::line_format`]). The first
//! valid line fixes the [`LineFormat`]; a line in another is an error. Plain lines keep the
//! fast paths; lists are read by the careful parser.

use std::collections::HashMap;
use std::fs::File;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::thread;
use std::time::Duration;

use serde::Serialize;

use super::cards::CardNames;
use super::content_digest::{ContentDigest, ContentHasher};
use super::line_format::{self, ANY_FORMAT, HOW_TO_PRINT, LineFormat, Rejection, shown};
use super::source_name::printable;
use super::wide_line_parser::{self, WIDE_MAX_DECK};
use crate::engine::algorithms::Card;
use crate::engine::deal::DealTally;
use crate::engine::deal_stream::{DealStream, DealStreamOptions, DealStreamTally, RepeatSource};
use crate::engine::full_stream::RankedStream;
use crate::engine::marginal::{FUSED_MAX_DECK, FusedMarginalTally, LANES, MarginalTally};
use crate::engine::permutation::{MAX_FULL_DECK, factorial, rank};

/// How many rejected lines `--skip-invalid` keeps as examples.
pub const INVALID_EXAMPLES: usize = 5;

/// The longest line accepted, in bytes without its newline: 1 MiB. The longest legal line names
/// 1000 cards: written as numbers that is under 5 KB; written with labels it is about as long as
/// the `--labels` argument, which the operating system caps below this (128 KiB for one argument
/// on Linux, 1 MiB for all of them together on macOS). A longer line is rejected as soon as it
/// passes the cap, and the rest of it is skipped without being stored.
pub const MAX_LINE: usize = 1 << 20;

/// The most card values of undecided numbering (lines of a deal holding neither 0 nor n) kept
/// before the numbering is taken to be 0-based: 2^20 values, 2 MiB.
pub const PENDING_VALUES: usize = 1 << 20;

/// The size of one chunk that the reading thread reads.
const CHUNK: usize = 1 << 20;

/// The chunk buffers shared by the reading thread and the parser (reused, never more).
const CHUNKS: usize = 4;

/// How often the parser, while it waits for input, looks at the stop flag.
const POLL: Duration = Duration::from_millis(50);

/// The UTF-8 byte-order mark, accepted at the very start of a source.
const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

/// Where permutations come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputSource {
    /// Standard input (`-`).
    Stdin,
    /// A file.
    File(PathBuf),
    /// The standard output of a command (`check --exec`), by the name its messages use; it is
    /// started by [`crate::input::producer::Producer`], not by [`open_sources`].
    Command(String),
}

impl InputSource {
    /// The name used in messages: the path (control characters escaped), or `<stdin>`.
    pub fn name(&self) -> String {
        match self {
            InputSource::Stdin => "<stdin>".to_string(),
            InputSource::File(path) => printable(&path.display().to_string()),
            InputSource::Command(name) => printable(name),
        }
    }
}

/// How the cards of the input were written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Numbering {
    /// Integers 0..n−1.
    ZeroBased,
    /// Integers 1..n.
    OneBased,
    /// Labels given with `--labels`.
    Labels,
    /// The names of the 52 standard cards (`--cards standard`).
    StandardCards,
}

use crate::engine::tally::TallyMode;

/// What to accept.
#[derive(Debug, Clone, Default)]
pub struct ReaderOptions {
    /// The deck size, if given (otherwise read off the first permutation).
    pub deck: Option<usize>,
    /// Card labels in starting order, if the input uses labels.
    pub labels: Option<Vec<String>>,
    /// Count bad lines instead of stopping at the first.
    pub skip_invalid: bool,
    /// Which tally to feed (all orderings by default).
    pub mode: TallyMode,
    /// When the deck size is read off the first permutation: feed the marginal tally instead
    /// if that deck is too large for `mode` Full (the `--mode auto` of `check`).
    pub marginal_if_large: bool,
    /// `--deal K`: each line is K cards dealt from the deck (which `deck` or `cards` must
    /// give), fed to a [`DealTally`] instead of `mode`'s tally.
    pub deal: Option<usize>,
    /// `--cards`: the cards are written by name.
    pub cards: Option<CardNames>,
    /// `--game poker`: classify each five-card deal as a poker hand.
    pub poker: bool,
    /// Feed every permutation, in line order, to a deal-stream accumulator too (the repeated
    /// decks and serial tests); None: do not.
    pub deals: Option<DealsRequest>,
    /// `--trials N`: stop reading once N permutations (or deals) are tallied; None: read the
    /// whole input.
    pub limit: Option<u64>,
}

/// What the reader's deal-stream accumulator keeps ([`crate::engine::deal_stream`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DealsRequest {
    /// Most deals whose fingerprints are kept for the repeated-decks test (beyond it, the test
    /// is skipped and the report says why).
    pub fingerprint_limit: u64,
}

impl ReaderOptions {
    /// The largest deck these options accept.
    fn largest(&self) -> usize {
        if self.marginal_if_large || self.deal.is_some() {
            TallyMode::Marginal.max_deck()
        } else {
            self.mode.max_deck()
        }
    }

    /// The tally to feed for a deck of `deck` cards.
    pub fn mode_for(&self, deck: usize) -> TallyMode {
        if self.marginal_if_large && deck > TallyMode::Full.max_deck() {
            TallyMode::Marginal
        } else {
            self.mode
        }
    }

    /// An empty tally for a deck of `deck` cards: a deal tally with `--deal`, else the mode's.
    fn empty_counts(&self, deck: usize) -> InputCounts {
        match self.deal {
            Some(deal) => InputCounts::Deal(DealTally::new(deck, deal, self.poker)),
            None => InputCounts::empty(self.mode_for(deck), deck),
        }
    }
}

/// A rejected line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct InvalidLine {
    /// `FILE:LINE`.
    pub location: String,
    /// What is wrong.
    pub problem: String,
}

/// The counts of an input, of the kind its [`TallyMode`] asked for, or of its deals with
/// `--deal`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputCounts {
    /// [`TallyMode::Full`]: `counts[rank]`, the lexicographic rank of [`crate::engine::permutation::rank`].
    Full(Vec<u64>),
    /// [`TallyMode::Marginal`]: positions, identity and statistics of every permutation.
    Marginal(MarginalTally),
    /// `--deal K`: slots, identity and poker categories of every deal.
    Deal(DealTally),
}

impl InputCounts {
    /// An empty tally of decks of `deck` cards, of the kind `mode` asks for.
    pub fn empty(mode: TallyMode, deck: usize) -> Self {
        match mode {
            TallyMode::Full => InputCounts::Full(vec![0; factorial(deck) as usize]),
            TallyMode::Marginal => InputCounts::Marginal(MarginalTally::new(deck)),
        }
    }

    /// The count of each ordering, in full mode.
    pub fn full(&self) -> Option<&[u64]> {
        match self {
            InputCounts::Full(counts) => Some(counts),
            _ => None,
        }
    }

    /// The count of each ordering, in full mode (by value).
    pub fn into_full(self) -> Option<Vec<u64>> {
        match self {
            InputCounts::Full(counts) => Some(counts),
            _ => None,
        }
    }

    /// The marginal tally, in marginal mode.
    pub fn marginal(&self) -> Option<&MarginalTally> {
        match self {
            InputCounts::Marginal(tally) => Some(tally),
            _ => None,
        }
    }

    /// The marginal tally, in marginal mode (by value).
    pub fn into_marginal(self) -> Option<MarginalTally> {
        match self {
            InputCounts::Marginal(tally) => Some(tally),
            _ => None,
        }
    }

    /// The deal tally, with `--deal`.
    pub fn deal(&self) -> Option<&DealTally> {
        match self {
            InputCounts::Deal(tally) => Some(tally),
            _ => None,
        }
    }

    /// Count one permutation (`deck[position] = card`), which must be a permutation of the
    /// tally's deck (the reader and the library API check that first), or one deal
    /// (`deck[slot] = card`).
    #[inline]
    pub fn add(&mut self, deck: &[Card]) {
        match self {
            InputCounts::Full(counts) => counts[rank(deck)] += 1,
            InputCounts::Marginal(tally) => tally.add(deck),
            InputCounts::Deal(tally) => tally.add(deck),
        }
    }
}

/// The tally of an input, and what was read.
#[derive(Debug, Clone)]
pub struct InputTally {
    /// Number of cards.
    pub deck: usize,
    /// The counts, full or marginal as [`ReaderOptions::mode`] asked.
    pub counts: InputCounts,
    /// Permutations tallied.
    pub permutations: u64,
    /// Lines read (including skipped and rejected ones).
    pub lines: u64,
    /// Lines rejected under `--skip-invalid`.
    pub invalid: u64,
    /// The first rejected lines.
    pub invalid_examples: Vec<InvalidLine>,
    /// How cards were written.
    pub numbering: Numbering,
    /// How the lines were written, as the first valid one was (None when the permutations did
    /// not come from text, as in the library API).
    pub format: Option<LineFormat>,
    /// With `--deal` and numbered cards: the deals read as 0-based because no line held 0 or
    /// n, which would have decided (0 when the numbering was decided by the input).
    pub numbering_assumed: u64,
    /// The sources, in order.
    pub sources: Vec<String>,
    /// The size and digest of each source read to its end, in order (all of them unless the
    /// reading was stopped or the observer broke).
    pub contents: Vec<ContentDigest>,
    /// Whether reading was stopped (Ctrl-C) before the end of the input.
    pub interrupted: bool,
    /// Whether the reading ended before the input did, by Ctrl-C, at `--trials`, or when the
    /// observer (`--until-decided`) broke.
    pub stopped_early: bool,
    /// The deal-stream counts, in line order (when [`ReaderOptions::deals`] asked for them).
    pub deals: Option<DealStreamTally>,
}

/// A failure that stops the reading: `location: problem`.
#[derive(Debug, thiserror::Error)]
#[error("{location}: {problem}")]
pub struct InputError {
    /// `FILE:LINE`, `FILE` when the file itself fails, or every source (`a.txt, b.txt`) when
    /// the input as a whole fails.
    pub location: String,
    /// What is wrong, and how to fix it.
    pub problem: InputProblem,
}

/// What stopped the reading; the `Display` says how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum InputProblem {
    /// A line that is no permutation (without `--skip-invalid`): the problem as the report's
    /// examples of skipped lines show it.
    #[error("{0} (fix the line, or pass --skip-invalid to count and skip bad lines)")]
    BadLine(String),
    /// A line that cannot be read as any format the reader knows: the line, what is wrong, the
    /// format expected and how to print it.
    #[error(
        "{problem}; the line is '{line}'; expected {expected}; {HOW_TO_PRINT}{}",
        if *.after_valid {
            "; or, if only some lines are no decks, pass --skip-invalid to count and skip them"
        } else {
            ""
        }
    )]
    Unreadable {
        /// The line, as shown in messages.
        line: String,
        /// What is wrong.
        problem: String,
        /// The format expected: the one of the first valid line, or any.
        expected: String,
        /// Whether a valid line came before (then this one may be a stray line that
        /// `--skip-invalid` would skip, rather than the wrong format).
        after_valid: bool,
    },
    /// The file cannot be opened.
    #[error("cannot open the file ({0}); check the path")]
    CannotOpen(#[source] io::Error),
    /// A directory was given as a file.
    #[error("this is a directory; give files of permutations (or - for stdin)")]
    Directory,
    /// Reading failed.
    #[error("cannot read: {0}")]
    CannotRead(#[source] io::Error),
    /// The reading thread could not be started.
    #[error("cannot start reading: {0}")]
    CannotStart(#[source] io::Error),
    /// The reading thread ended without a word (it panicked).
    #[error("cannot read: the reading thread failed")]
    ReadingThreadFailed,
    /// `--deck` or `--labels` names a deck the mode cannot tally.
    #[error("decks of {} cannot be tallied in this mode; give 2 to {largest} cards", cards(*.deck))]
    DeckOutOfRange {
        /// The deck asked for.
        deck: usize,
        /// The largest this mode tallies.
        largest: usize,
    },
    /// Ctrl-C came before any permutation was read: nothing is wrong with the input, there is
    /// just nothing to report.
    #[error("interrupted before any permutation was read; nothing to report")]
    Interrupted,
    /// Every non-blank line was rejected under `--skip-invalid`.
    #[error(
        "no valid permutation: {}: {first}",
        if *.invalid == 1 {
            "the only non-blank line was rejected".to_string()
        } else {
            format!("all {} non-blank lines were rejected; the first", .invalid)
        }
    )]
    AllRejected {
        /// The lines rejected.
        invalid: u64,
        /// The first rejection, `FILE:LINE: problem`, as the error without `--skip-invalid`
        /// would have said it.
        first: String,
    },
    /// The input holds no permutation.
    #[error("no permutations: the input is empty (one permutation per line, e.g. `2 0 3 1`)")]
    Empty,
}

impl InputError {
    /// A failure of the input at `location`.
    fn new(location: impl Into<String>, problem: InputProblem) -> Self {
        InputError {
            location: location.into(),
            problem,
        }
    }

    /// Whether the reading was stopped (Ctrl-C) before any permutation was read.
    pub fn is_interrupted(&self) -> bool {
        matches!(self.problem, InputProblem::Interrupted)
    }

    /// What is wrong and how to fix it, without the location.
    pub fn message(&self) -> String {
        self.problem.to_string()
    }
}

/// A line without the CR of its CRLF and the blanks at its start.
fn trimmed(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let start = line
        .iter()
        .position(|&b| !matches!(b, b' ' | b'\t'))
        .unwrap_or(line.len());
    &line[start..]
}

/// "1 card", "52 cards": a number of cards in a message.
fn cards(n: usize) -> String {
    match n {
        1 => "1 card".to_string(),
        n => format!("{n} cards"),
    }
}

/// A multiplicative hash of one 16-byte word, for the label index: labels are a few bytes
/// long, where the standard library's DoS-resistant hash would cost more than the rest of the
/// lookup, and the keys come from the user's own `--labels`.
#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write_u128(&mut self, word: u128) {
        // Two odd constants (from the golden ratio and from splitmix64); the final shift brings
        // the well-mixed high bits of the product down to the bucket index.
        let mixed = ((word as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (word >> 64) as u64)
            .wrapping_mul(0xbf58_476d_1ce4_e5b9);
        self.0 ^= mixed ^ (mixed >> 29);
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(16) {
            let mut word = [0u8; 16];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u128(u128::from_le_bytes(word));
        }
    }
}

/// The longest label looked up as one word.
const SHORT_LABEL: usize = 16;

/// A short label or token as one word, zero-padded: unambiguous, since no token holds a NUL
/// (such lines are rejected before they are split).
#[inline(always)]
fn label_word(token: &[u8]) -> u128 {
    debug_assert!(token.len() <= SHORT_LABEL);
    // Byte by byte: cheaper than a call to copy a few bytes.
    token
        .iter()
        .rev()
        .fold(0u128, |word, &byte| word << 8 | u128::from(byte))
}

/// Each label's card (its index in `--labels`), found in O(1) whatever the number of labels.
struct LabelIndex<'a> {
    /// Labels of up to [`SHORT_LABEL`] bytes, by [`label_word`]: a lookup is one hash and one
    /// integer comparison.
    short: HashMap<u128, usize, BuildHasherDefault<WordHasher>>,
    /// Longer labels.
    long: HashMap<&'a [u8], usize>,
}

impl<'a> LabelIndex<'a> {
    /// The index of `--labels`: each label names the card of its place.
    fn new(labels: &'a [String]) -> Self {
        Self::of(
            labels
                .iter()
                .enumerate()
                .map(|(card, label)| (label.as_str(), card)),
        )
    }

    /// The index of a set of card names: every spelling names its card.
    fn of_names(names: CardNames) -> LabelIndex<'static> {
        LabelIndex::of(
            names
                .spellings()
                .iter()
                .map(|(spelling, card)| (spelling.as_str(), usize::from(*card))),
        )
    }

    /// The index of (label, card) pairs.
    fn of(labels: impl Iterator<Item = (&'a str, usize)>) -> Self {
        let mut index = LabelIndex {
            short: HashMap::default(),
            long: HashMap::new(),
        };
        for (label, card) in labels {
            let label = label.as_bytes();
            // An empty label, or one with a NUL, matches no token.
            if label.is_empty() || label.contains(&0) {
                continue;
            }
            // The first of two equal labels wins, as a scan of the list would find.
            if label.len() <= SHORT_LABEL {
                index.short.entry(label_word(label)).or_insert(card);
            } else {
                index.long.entry(label).or_insert(card);
            }
        }
        index
    }

    /// The card labelled `token`.
    #[inline(always)]
    fn get(&self, token: &[u8]) -> Option<usize> {
        if token.len() <= SHORT_LABEL {
            if token.is_empty() {
                return None;
            }
            self.short.get(&label_word(token)).copied()
        } else {
            self.long.get(token).copied()
        }
    }
}

/// The cards met so far on one line.
trait CardSet {
    /// Add `card` (below the deck size); false if it was already there.
    fn insert(&mut self, card: usize) -> bool;
}

/// A bit per card, for the full mode's small decks (n ≤ 32).
struct CardBits(u32);

impl CardSet for CardBits {
    #[inline(always)]
    fn insert(&mut self, card: usize) -> bool {
        let bit = 1u32 << card;
        let new = self.0 & bit == 0;
        self.0 |= bit;
        new
    }
}

/// Decks of any size: `stamps[card] == stamp` once `card` is met on the current line, and each
/// line takes a fresh stamp, so nothing is cleared between lines.
struct CardStamps {
    stamps: Vec<u32>,
    stamp: u32,
}

impl CardStamps {
    /// A set for cards below `cards`.
    fn new(cards: usize) -> Self {
        CardStamps {
            stamps: vec![0; cards],
            stamp: 0,
        }
    }

    /// Empty the set for a new line.
    #[inline(always)]
    fn start_line(&mut self) -> &mut Self {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.stamps.fill(0);
            self.stamp = 1;
        }
        self
    }
}

impl CardSet for CardStamps {
    #[inline(always)]
    fn insert(&mut self, card: usize) -> bool {
        let slot = &mut self.stamps[card];
        let new = *slot != self.stamp;
        *slot = self.stamp;
        new
    }
}

/// The most digits the fast path reads in one card number (1000 has four).
const PLAIN_DIGITS: u32 = 4;

/// The fast path for the common line: exactly `count` integers (`n` for a permutation, K for a
/// deal) separated by single spaces, tabs or commas, each `offset..n + offset`, none repeated.
/// Writes them (shifted to 0-based) into `deck[..count]`; false for anything else (labels, comments, blank lines, two separators in a row
/// — which may be an empty field —, errors), which the careful parser then handles with its
/// exact messages.
#[inline(always)]
fn parse_plain(
    line: &[u8],
    count: usize,
    n: usize,
    offset: usize,
    deck: &mut [Card],
    seen: &mut impl CardSet,
) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut bytes = line.iter();
    let mut found = 0;
    loop {
        let mut value: usize = 0;
        let mut digits = 0;
        let last = loop {
            match bytes.next() {
                Some(&byte @ b'0'..=b'9') => {
                    // Wrapping: a token too long to be a card is rejected at its end anyway.
                    value = value
                        .wrapping_mul(10)
                        .wrapping_add(usize::from(byte - b'0'));
                    digits += 1;
                }
                Some(b' ' | b'\t' | b',') => break false,
                None => break true,
                Some(_) => return false,
            }
        };
        if digits == 0 || digits > PLAIN_DIGITS {
            return false;
        }
        let Some(card) = value.checked_sub(offset) else {
            return false;
        };
        if card >= n || found == count || !seen.insert(card) {
            return false;
        }
        deck[found] = card as Card;
        found += 1;
        if last {
            return found == count;
        }
    }
}

/// Lines of fewer cards go through [`parse_plain`]: for a few cards its token loop is faster
/// than building [`parse_two_digits`]'s separator mask (4-card decks: 38 against 17 M lines/s
/// on one core, `benches/throughput.sh`).
const TWO_DIGIT_MIN_CARDS: usize = 16;

/// The largest card number (plus one) that [`parse_two_digits`] reads: 0..=99, one or two
/// digits, so decks of up to 100 cards numbered from 0 and 99 numbered from 1.
const TWO_DIGIT_VALUES: usize = 100;

/// The separator mask of [`parse_two_digits`] holds this many 64-bit words: lines of up to
/// 317 bytes, longer than any valid line of at most 100 two-digit cards (289 bytes).
const MASK_WORDS: usize = 5;

/// The size of [`parse_two_digits`]'s copy of a line: a power of two above 64·MASK_WORDS.
const COPY: usize = 512;

/// The bytes that separate cards, as a set of bits (all below 64).
const SEPARATORS: u64 = 1 << b' ' | 1 << b'\t' | 1 << b',';

/// Bit i set when byte i of `word` (little-endian) is below `'0'`: the separators, and any other
/// byte that a valid line cannot hold there (checked against [`SEPARATORS`] token by token).
#[inline(always)]
fn below_digits(word: u64) -> u64 {
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The low seven bits plus 0x50 reach 0x80 exactly when they are at least 0x30, and never
    // carry into the next byte; a byte with its high bit set is no separator either.
    let flags = !(((word & LOW) + 0x5050_5050_5050_5050) | word) & HIGH;
    // The eight flag bits (7, 15, …, 63) gathered into bits 56..63 by one multiplication
    // (every partial product lands on a bit of its own, so nothing carries).
    (flags >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The value of a token from the two bytes before its separator, `TOKEN_TAIL[b0 | b1 << 8]`:
/// for a digit b1 after a digit b0, 0x80 | (10·b0 + b1) (a token of two digits); after any
/// other byte, b1 alone (one digit); 0x7f (card 127, out of every deck) when b1 is no digit.
static TOKEN_TAIL: [u8; 1 << 16] = token_tail_table();

/// [`TOKEN_TAIL`], computed at compile time.
const fn token_tail_table() -> [u8; 1 << 16] {
    let mut table = [0x7f; 1 << 16];
    let mut b0 = 0;
    while b0 < 256 {
        let mut units = 0;
        while units < 10 {
            let b1 = b'0' as usize + units;
            table[b0 | b1 << 8] = if b0 >= b'0' as usize && b0 <= b'9' as usize {
                0x80 | ((b0 - b'0' as usize) * 10 + units) as u8
            } else {
                units as u8
            };
            units += 1;
        }
        b0 += 1;
    }
    table
}

/// The fast path for decks whose card numbers have one or two digits (a 52-card deck, say): the
/// same lines as [`parse_plain`] are accepted, with the same cards, without a branch that
/// depends on the digits and without a chain from one token to the next. The line is copied
/// two bytes into a zeroed buffer, with a space after it; a first pass marks the bytes below
/// `'0'`, eight at a time, in a bit mask; then each token is the gap between two marks: its
/// width must be the number of digits that [`TOKEN_TAIL`] reads in the two bytes before its
/// mark, and the mark must be a separator. Everything that could be wrong (a non-digit, a third
/// digit, a doubled or missing separator, a card out of range, a repeated card) only sets a
/// flag, and the number of tokens is known from the mask before the loop, so a flagged line
/// goes to the careful parser, which finds its exact message. The cards met are marked in a
/// small array on the stack. Not inlined: on its own it keeps its state in registers.
#[inline(never)]
fn parse_two_digits(line: &[u8], count: usize, n: usize, offset: usize, deck: &mut [Card]) -> bool {
    debug_assert!(n - 1 + offset < TWO_DIGIT_VALUES);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let length = line.len();
    // The copy: two zeros, the line, a space that ends its last token, zeros.
    let end = length + 2;
    if length == 0 || end >= 64 * MASK_WORDS || count > deck.len() || count > 128 {
        return false;
    }
    let mut copy = [0u8; COPY];
    copy[2..end].copy_from_slice(line);
    copy[end] = b' ';
    let mut marks = [0u64; MASK_WORDS];
    for (index, chunk) in copy[..64 * MASK_WORDS].chunks_exact(8).enumerate() {
        if index * 8 > end {
            break;
        }
        let word = u64::from_le_bytes(chunk.try_into().expect("chunks of eight"));
        marks[index / 8] |= below_digits(word) << (index % 8 * 8);
    }
    // Only the line and its final space: not the zeros around them.
    marks[0] &= !0b11;
    let mut tokens = 0;
    for (index, word) in marks.iter_mut().enumerate() {
        let start = index * 64;
        if start > end {
            *word = 0;
        } else if end - start < 63 {
            *word &= (2 << (end - start)) - 1;
        }
        tokens += word.count_ones() as usize;
    }
    if tokens != count {
        return false;
    }
    let mut cards = [0 as Card; 128];
    // `met[card]`: the card was met on this line (indexed modulo its size: no bounds check).
    let mut met = [false; 128];
    let mut found = 0;
    let mut bad = false;
    // The mark before the token being read: the line starts after a virtual one at 1.
    let mut previous = 1;
    for (index, &word) in marks.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let mark = index * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let width = mark.wrapping_sub(previous).wrapping_sub(1);
            previous = mark;
            let tail = usize::from(copy[mark.wrapping_sub(2) % COPY])
                | usize::from(copy[mark.wrapping_sub(1) % COPY]) << 8;
            let entry = TOKEN_TAIL[tail % (1 << 16)];
            let digits = 1 + usize::from(entry >> 7);
            let card = usize::from(entry & 0x7f).wrapping_sub(offset);
            let separator = (SEPARATORS >> (copy[mark % COPY] % 64)) & 1 == 1;
            bad |= width != digits || !separator || card >= n || met[card % 128];
            met[card % 128] = true;
            cards[found % 128] = card as Card;
            found += 1;
        }
    }
    deck[..count].copy_from_slice(&cards[..count]);
    !bad
}

/// The fast path for a labelled line: exactly `count` known labels separated by single spaces,
/// tabs or commas, none repeated; as [`parse_plain`] otherwise.
#[inline(always)]
fn parse_labelled(
    line: &[u8],
    count: usize,
    labels: &LabelIndex,
    deck: &mut [Card],
    seen: &mut impl CardSet,
) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut found = 0;
    for token in line.split(|&b| matches!(b, b' ' | b'\t' | b',')) {
        // An empty token (a blank line, two separators in a row) is no label: careful path.
        let Some(card) = labels.get(token) else {
            return false;
        };
        if found == count || !seen.insert(card) {
            return false;
        }
        deck[found] = card as Card;
        found += 1;
    }
    found == count
}

/// [`parse_two_digits`], or the AVX-512 reading of the same lines when `wide` (the CPU has it,
/// [`wide_line_parser::available`]) and the deck has at most [`WIDE_MAX_DECK`] cards.
#[inline(always)]
fn two_digits(
    line: &[u8],
    count: usize,
    n: usize,
    offset: usize,
    deck: &mut [Card],
    wide: bool,
) -> bool {
    if wide && n <= WIDE_MAX_DECK {
        wide_line_parser::parse(line, count, n, offset, deck)
    } else {
        parse_two_digits(line, count, n, offset, deck)
    }
}

/// The fast path for a line written as the first permutation was: `count` cards of a deck of
/// `n`; `wide`: the CPU runs [`wide_line_parser::parse`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn parse_fast(
    line: &[u8],
    count: usize,
    n: usize,
    numbering: Numbering,
    labels: Option<&LabelIndex>,
    deck: &mut [Card],
    seen: &mut impl CardSet,
    wide: bool,
) -> bool {
    let short = count < TWO_DIGIT_MIN_CARDS;
    match (numbering, labels) {
        (Numbering::ZeroBased, _) if n <= TWO_DIGIT_VALUES && !short => {
            two_digits(line, count, n, 0, deck, wide)
        }
        (Numbering::OneBased, _) if n < TWO_DIGIT_VALUES && !short => {
            two_digits(line, count, n, 1, deck, wide)
        }
        (Numbering::ZeroBased, _) => parse_plain(line, count, n, 0, deck, seen),
        (Numbering::OneBased, _) => parse_plain(line, count, n, 1, deck, seen),
        (Numbering::Labels | Numbering::StandardCards, Some(labels)) => {
            parse_labelled(line, count, labels, deck, seen)
        }
        (Numbering::Labels | Numbering::StandardCards, None) => false,
    }
}

/// The reading state carried across lines and files.
struct Reader<'a> {
    options: &'a ReaderOptions,
    /// The label index, when the input uses labels or card names.
    labels: Option<LabelIndex<'a>>,
    deck: Option<usize>,
    numbering: Option<(Numbering, String)>,
    /// The format of the first valid line, and where it was.
    format: Option<(LineFormat, String)>,
    /// A list in brackets printed over several lines, gathered up to its `]`.
    open_list: Option<OpenList>,
    /// A quoted token with its escapes resolved.
    scratch: Vec<u8>,
    /// Under `--skip-invalid`, the first rejection as the error would have said it.
    first_rejection: Option<String>,
    /// None until the deck size is known.
    counts: Option<InputCounts>,
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
    numbering_assumed: u64,
    permutations: u64,
    lines: u64,
    invalid: u64,
    invalid_examples: Vec<InvalidLine>,
    /// The deal-stream accumulator, once the deck size is known (when asked for).
    deals: Option<DealSink>,
    /// Sees every permutation tallied, in input order; a break ends the reading there.
    observer: Option<Observer<'a>>,
    /// Whether the observer broke.
    observer_broke: bool,
    /// [`ReaderOptions::limit`], or u64::MAX.
    limit: u64,
    /// Marginal mode's fast path: decks gathered [`LANES`] at a time for the fused pass, added
    /// into the counts at the end of the input (the counts are sums, so order does not matter).
    batch: Option<MarginalBatch>,
    /// The CPU runs the AVX-512 line parser ([`wide_line_parser::available`], asked once).
    wide: bool,
    /// The size and digest of each source read to its end.
    contents: Vec<ContentDigest>,
}

/// Decks of up to [`FUSED_MAX_DECK`] cards waiting for [`FusedMarginalTally::add_decks`].
struct MarginalBatch {
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
    fn new(deck: usize) -> Self {
        MarginalBatch {
            fused: FusedMarginalTally::new(deck),
            decks: vec![0; LANES * deck],
            filled: 0,
            streamed: 0,
            deck,
        }
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
    fn stream(&mut self, deals: &mut Option<DealSink>) {
        if let Some(deals) = deals
            && self.streamed < self.filled
        {
            let n = self.deck;
            deals.add_deals(&self.decks[self.streamed * n..self.filled * n], n);
        }
        self.streamed = self.filled;
    }

    /// Every deck added, as a marginal tally.
    fn finish(mut self) -> MarginalTally {
        self.fused.add_decks(&self.decks[..self.filled * self.deck]);
        self.fused.finish()
    }
}

/// A list in brackets whose first line did not close it (Node's `console.log` of a long
/// array): its lines so far, joined by spaces.
struct OpenList {
    /// Its lines so far (at most [`MAX_LINE`] bytes).
    record: Vec<u8>,
    /// The number of its first line.
    number: u64,
}

/// What one valid line holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    /// A blank or comment line.
    Blank,
    /// A permutation or a deal, left in `Reader::cards`.
    Cards,
    /// A deal whose numbering is not decided yet, kept in `Reader::pending`.
    Pending,
}

/// Why one line is rejected, or what it holds.
type LineResult = Result<LineKind, Rejection>;

/// What [`read_permutations_observed`] calls with each permutation tallied.
pub type Observer<'a> = &'a mut dyn FnMut(&[Card]) -> ControlFlow<()>;

impl<'a> Reader<'a> {
    fn new(options: &'a ReaderOptions, deck: Option<usize>) -> Self {
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
            limit: options.limit.unwrap_or(u64::MAX),
            batch: None,
            wide: wide_line_parser::available(),
            contents: Vec::new(),
        }
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
        let (Some(n), Some(counts), Some((numbering, _)), Some((LineFormat::Plain, _))) = (
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
                if !parse_fast(line, n, n, *numbering, labels, &mut deck, bits, self.wide) {
                    return false;
                }
                let rank = rank(&deck[..n]);
                counts[rank] += 1;
                if let Some(deals) = &mut self.deals {
                    deals.add_ranked(&deck[..n], rank);
                }
                Self::observed(&mut self.observer, &mut self.observer_broke, &deck[..n]);
            }
            InputCounts::Marginal(tally) => {
                let seen = self.seen.start_line();
                if n <= FUSED_MAX_DECK {
                    // Parsed straight into the batch's next deck: no copy.
                    let batch = self.batch.get_or_insert_with(|| MarginalBatch::new(n));
                    let deck = batch.next_deck();
                    if !parse_fast(line, n, n, *numbering, labels, deck, seen, self.wide) {
                        return false;
                    }
                    // Its deal goes to the stream with the batch (see `MarginalBatch::stream`).
                    Self::observed(&mut self.observer, &mut self.observer_broke, deck);
                    batch.keep_next(&mut self.deals);
                } else {
                    let cards = &mut self.cards;
                    if !parse_fast(line, n, n, *numbering, labels, cards, seen, self.wide) {
                        return false;
                    }
                    tally.add(&cards[..n]);
                    Self::deal(&mut self.deals, &mut self.batch, &cards[..n]);
                    Self::observed(&mut self.observer, &mut self.observer_broke, &cards[..n]);
                }
            }
            InputCounts::Deal(tally) => {
                let count = tally.deal;
                let seen = self.seen.start_line();
                let cards = &mut self.cards;
                if !parse_fast(line, count, n, *numbering, labels, cards, seen, self.wide) {
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

    /// At the end of the input: deals still of undecided numbering are read as 0-based.
    fn finish(&mut self) {
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
            && first.bracketed() != line_format::opens_brackets(content)
        {
            let this = if first.bracketed() {
                LineFormat::Plain
            } else {
                LineFormat::Brackets
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
        let count = match expected {
            Some(count) if count != found => {
                return Err(format!("expected {count} cards, found {found}").into());
            }
            Some(count) => count,
            None => {
                if !(2..=largest).contains(&found) {
                    return Err(format!(
                        "the first permutation has {}; decks of 2 to {largest} cards can be \
                         tallied",
                        cards(found)
                    )
                    .into());
                }
                self.deck = Some(found);
                self.counts = Some(self.options.empty_counts(found));
                self.deals = deal_sink_for(self.options, found);
                found
            }
        };
        let n = self
            .deck
            .expect("the deck size is known once a line is read");
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
    fn chunk(&mut self, lines: &mut Lines, chunk: &[u8]) -> Result<(), InputError> {
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
    fn end(&mut self, lines: &mut Lines) -> Result<(), InputError> {
        if !lines.skipping && !lines.carry.is_empty() && !self.stopped() {
            lines.number += 1;
            self.line(&lines.carry, &lines.name, lines.number)?;
        }
        lines.carry = Vec::new();
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
    /// lines, or one record for the careful parser.
    fn careful_line(&mut self, content: &[u8], name: &str, number: u64) -> Result<(), InputError> {
        let text = trimmed(content);
        if line_format::opens_brackets(text)
            && !matches!(self.format, Some((LineFormat::Plain, _)))
            && !line_format::closes_list(text)
        {
            if text.len() > MAX_LINE {
                return self.too_long(text, name, number);
            }
            self.open_list = Some(OpenList {
                record: text.to_vec(),
                number,
            });
            return Ok(());
        }
        self.record(content, name, number)
    }

    /// The next line of a list in brackets printed over several lines: gathered, and the list
    /// read as one record once its `]` has come.
    fn list_line(&mut self, content: &[u8], name: &str, number: u64) -> Result<(), InputError> {
        let text = trimmed(content);
        let open = self.open_list.as_mut().expect("a list is open");
        if line_format::opens_brackets(text) {
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
        if line_format::closes_list(&open.record) {
            let open = self.open_list.take().expect("a list is open");
            return self.record(&open.record, name, open.number);
        }
        Ok(())
    }

    /// Whether the reading is to end here: the observer broke, or `--trials` permutations are
    /// tallied.
    #[inline(always)]
    fn stopped(&self) -> bool {
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

    /// The rejection of a line in `this` format after one in `first` at `first_location`.
    fn format_mix(&self, this: LineFormat, first: LineFormat, first_location: &str) -> Rejection {
        let name = |format: LineFormat| match format {
            LineFormat::Plain => "a plain line",
            LineFormat::Brackets => "a list in brackets",
            LineFormat::QuotedBrackets => "a list of quoted labels",
        };
        format!(
            "this line is {} but {first_location} was {}; a mix of formats is an error",
            name(this),
            name(first)
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
                        Some((format, at)) => format!("{} as on {at}", format.example()),
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
    fn read_all(
        &mut self,
        inputs: Vec<(String, Input)>,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(u64),
    ) -> Result<bool, InputError> {
        let names: Vec<String> = inputs.iter().map(|(name, _)| name.clone()).collect();
        let Some(first) = names.first() else {
            return Ok(true);
        };
        let (chunks, received) = mpsc::sync_channel(CHUNKS);
        let (spent, reusable) = mpsc::channel();
        let reading = thread::Builder::new()
            .name("shuffle-bias input".to_string())
            .spawn(move || feed(inputs, &chunks, &reusable))
            .map_err(|error| InputError::new(first.clone(), InputProblem::CannotStart(error)))?;
        let mut source = 0;
        let mut lines = Lines::new(first);
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(false);
            }
            match received.recv_timeout(POLL) {
                Ok(Delivery::Chunk(buffer, length)) => {
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
                    self.contents.push(content);
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

/// One source's lines, assembled from the chunks it arrives in.
struct Lines {
    /// The source's name in messages.
    name: String,
    /// The start of a line that goes on in the next chunk (at most [`MAX_LINE`] bytes).
    carry: Vec<u8>,
    /// The number of lines ended so far.
    number: u64,
    /// The line being read passed [`MAX_LINE`] and was rejected: skip to its newline.
    skipping: bool,
}

impl Lines {
    fn new(name: &str) -> Self {
        Lines {
            name: name.to_string(),
            carry: Vec::new(),
            number: 0,
            skipping: false,
        }
    }
}

/// What the reading thread sends to the parser, in order.
enum Delivery {
    /// The next bytes of the current source: `buffer[..length]` (the buffer is sent back).
    Chunk(Vec<u8>, usize),
    /// The current source is read to its end (its size and digest); the next one follows.
    End(ContentDigest),
    /// The current source could not be opened or read; nothing follows.
    Failed(InputError),
}

/// The reading thread: open each input in turn, read it in chunks into the buffers that the
/// parser sends back (at most [`CHUNKS`] of them exist), and send them in order. It ends after
/// the last input, at the first failure, or as soon as the parser has gone.
fn feed(inputs: Vec<(String, Input)>, chunks: &SyncSender<Delivery>, reusable: &Receiver<Vec<u8>>) {
    let mut made = 0;
    let mut spare: Option<Vec<u8>> = None;
    for (name, input) in inputs {
        let mut source = match input.open(&name) {
            Ok(source) => source,
            Err(error) => {
                let _ = chunks.send(Delivery::Failed(error));
                return;
            }
        };
        let mut content = ContentHasher::new();
        loop {
            let mut buffer = match spare.take().or_else(|| reusable.try_recv().ok()) {
                Some(buffer) => buffer,
                None if made < CHUNKS => {
                    made += 1;
                    vec![0; CHUNK]
                }
                None => match reusable.recv() {
                    Ok(buffer) => buffer,
                    Err(_) => return,
                },
            };
            let delivery = match source.read(&mut buffer) {
                Ok(0) => {
                    spare = Some(buffer);
                    Delivery::End(content.finish())
                }
                Ok(length) => {
                    content.update(&buffer[..length]);
                    Delivery::Chunk(buffer, length)
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {
                    spare = Some(buffer);
                    continue;
                }
                Err(error) => Delivery::Failed(InputError::new(
                    name.clone(),
                    InputProblem::CannotRead(error),
                )),
            };
            let last = !matches!(delivery, Delivery::Chunk(..));
            let failed = matches!(delivery, Delivery::Failed(_));
            if chunks.send(delivery).is_err() || failed {
                return;
            }
            if last {
                break;
            }
        }
    }
}

/// One source of permutations, opened only when the reading reaches it, so that one file is
/// open at a time however many are given.
pub struct Input(Opening);

/// How an [`Input`] is opened.
enum Opening {
    Stdin,
    File(PathBuf),
    Reader(Box<dyn Read + Send>),
}

impl Input {
    /// Bytes at hand (a test's text, say), read as one source.
    pub fn from_reader(reader: impl Read + Send + 'static) -> Self {
        Input(Opening::Reader(Box::new(reader)))
    }

    /// Open the source, in the reading thread (this may block, on a FIFO say).
    fn open(self, name: &str) -> Result<Box<dyn Read>, InputError> {
        match self.0 {
            Opening::Stdin => Ok(Box::new(io::stdin().lock())),
            Opening::File(path) => File::open(&path)
                .map(|file| Box::new(file) as Box<dyn Read>)
                .map_err(|error| cannot_open(name, error)),
            Opening::Reader(reader) => Ok(reader),
        }
    }
}

/// The error of a file that cannot be opened.
fn cannot_open(name: &str, error: io::Error) -> InputError {
    InputError::new(name, InputProblem::CannotOpen(error))
}

/// Check every source before reading any, so that a missing or unreadable file fails at once,
/// and return them to be opened one at a time as the reading reaches them. A regular file is
/// opened and closed again here; a FIFO or a device is only looked at, since opening it may
/// block until something writes to it.
pub fn open_sources(sources: &[InputSource]) -> Result<Vec<Input>, InputError> {
    sources
        .iter()
        .map(|source| match source {
            InputSource::Stdin => Ok(Input(Opening::Stdin)),
            InputSource::Command(name) => Err(InputError::new(
                name.clone(),
                InputProblem::CannotStart(io::Error::other(
                    "a command is started with its seed by check --exec, not opened",
                )),
            )),
            InputSource::File(path) => {
                let name = source.name();
                let metadata = std::fs::metadata(path).map_err(|e| cannot_open(&name, e))?;
                if metadata.is_dir() {
                    return Err(InputError::new(name, InputProblem::Directory));
                }
                if metadata.is_file() {
                    File::open(path).map_err(|e| cannot_open(&name, e))?;
                }
                Ok(Input(Opening::File(path.clone())))
            }
        })
        .collect()
}

/// Read and tally every source in order. `progress` is called with the lines read so far.
/// Setting `stop` ends the reading within `POLL`, even while a source blocks, with what was
/// read so far (an error marked `interrupted` if that is no permutation at all).
pub fn read_permutations(
    sources: &[InputSource],
    inputs: Vec<Input>,
    options: &ReaderOptions,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> Result<InputTally, InputError> {
    read_permutations_observed(sources, inputs, options, stop, progress, None)
}

/// [`read_permutations`], showing every permutation tallied to `observer` in input order (cards
/// 0-based, `deck[position] = card`). When it breaks, the reading ends right after that
/// permutation — the rest of the input is neither read nor checked (`check --until-decided`):
/// the tally holds the permutations up to it.
pub fn read_permutations_observed<'a>(
    sources: &[InputSource],
    inputs: Vec<Input>,
    options: &'a ReaderOptions,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
    observer: Option<Observer<'a>>,
) -> Result<InputTally, InputError> {
    let names: Vec<String> = sources.iter().map(InputSource::name).collect();
    let deck = match (&options.labels, options.cards) {
        (Some(labels), _) => Some(labels.len()),
        (None, Some(names)) => Some(names.deck()),
        (None, None) => options.deck,
    };
    let largest = options.largest();
    if let Some(n) = deck
        && !(2..=largest).contains(&n)
    {
        return Err(InputError::new(
            names.join(", "),
            InputProblem::DeckOutOfRange { deck: n, largest },
        ));
    }
    let mut reader = Reader::new(options, deck);
    reader.observer = observer;
    let finished = reader.read_all(names.iter().cloned().zip(inputs).collect(), stop, progress)?;
    reader.finish();
    progress(reader.lines);
    if reader.permutations == 0 {
        let problem = if !finished {
            InputProblem::Interrupted
        } else if reader.invalid > 0 {
            InputProblem::AllRejected {
                invalid: reader.invalid,
                first: reader.first_rejection.take().unwrap_or_default(),
            }
        } else {
            InputProblem::Empty
        };
        return Err(InputError::new(names.join(", "), problem));
    }
    if let Some(batch) = &mut reader.batch {
        batch.stream(&mut reader.deals);
    }
    if let (Some(batch), Some(InputCounts::Marginal(tally))) =
        (reader.batch.take(), reader.counts.as_mut())
    {
        tally.merge(&batch.finish());
    }
    let stopped_early = !finished || reader.stopped();
    Ok(InputTally {
        deck: reader.deck.unwrap_or(0),
        counts: reader
            .counts
            .expect("a permutation was tallied, so the deck size is known"),
        permutations: reader.permutations,
        lines: reader.lines,
        invalid: reader.invalid,
        invalid_examples: reader.invalid_examples,
        numbering: reader
            .numbering
            .map_or(Numbering::ZeroBased, |(numbering, _)| numbering),
        format: reader.format.map(|(format, _)| format),
        numbering_assumed: reader.numbering_assumed,
        sources: names,
        contents: reader.contents,
        interrupted: stop.load(Ordering::Relaxed),
        stopped_early,
        deals: reader.deals.map(DealSink::finish),
    })
}

/// The deal-stream accumulator for decks of `deck` cards, when `options` asks for one: whole
/// decks, or with `--deal K` deals of K cards (their repeats counted from fingerprints, with no
/// compositions: those are permutations of whole decks); in full mode the repeated decks come
/// from the tally and the compositions are counted.
pub(crate) fn deal_stream_for(options: &ReaderOptions, deck: usize) -> Option<DealStream> {
    deal_stream_options(options, deck).map(DealStream::new)
}

/// What the deal-stream accumulator of [`deal_stream_for`] keeps.
fn deal_stream_options(options: &ReaderOptions, deck: usize) -> Option<DealStreamOptions> {
    let request = options.deals?;
    if let Some(dealt) = options.deal {
        return Some(DealStreamOptions {
            deck,
            dealt,
            repeats: RepeatSource::Fingerprints {
                limit: request.fingerprint_limit,
            },
            compositions: false,
        });
    }
    let full = options.mode_for(deck) == TallyMode::Full;
    Some(DealStreamOptions {
        deck,
        dealt: deck,
        repeats: if full {
            RepeatSource::FullTally
        } else {
            RepeatSource::Fingerprints {
                limit: request.fingerprint_limit,
            }
        },
        compositions: full,
    })
}

/// The reader's deal-stream accumulator for decks of `deck` cards (when asked for): whole decks
/// of the full mode by rank, as a run counts them ([`RankedStream`]), anything else deal by deal.
fn deal_sink_for(options: &ReaderOptions, deck: usize) -> Option<DealSink> {
    let stream = deal_stream_options(options, deck)?;
    let ranked = (options.deal.is_none() && options.mode_for(deck) == TallyMode::Full)
        .then(|| RankedStream::new(stream))
        .flatten();
    Some(match ranked {
        Some(ranked) => DealSink::Ranked(ranked),
        None => DealSink::Whole(DealStream::new(stream)),
    })
}

/// Where each permutation or deal tallied goes, in line order, for the deal-stream tests: only
/// the lines tallied, so that blank, comment and rejected lines between two permutations do not
/// part them (the pair is counted).
// One per reader, held in place: the variants' sizes do not matter, and a box would add a load
// to every deal.
#[allow(clippy::large_enum_variant)]
enum DealSink {
    /// Deal by deal, to [`DealStream::add`].
    Whole(DealStream),
    /// Whole decks of the full mode, by rank: the same counts at a run's pace.
    Ranked(RankedStream),
}

impl DealSink {
    /// Count the next deck or deal.
    #[inline(always)]
    fn add(&mut self, deck: &[Card]) {
        match self {
            DealSink::Whole(stream) => stream.add(deck),
            DealSink::Ranked(stream) => stream.push(deck, rank(deck)),
        }
    }

    /// Count the next decks or deals, laid end to end.
    #[inline(always)]
    fn add_deals(&mut self, deals: &[Card], n: usize) {
        match self {
            DealSink::Whole(stream) => stream.add_deals(deals),
            DealSink::Ranked(stream) => {
                for deck in deals.chunks_exact(n) {
                    stream.push(deck, rank(deck));
                }
            }
        }
    }

    /// Count the next whole deck, whose rank is known.
    #[inline(always)]
    fn add_ranked(&mut self, deck: &[Card], rank: usize) {
        match self {
            DealSink::Whole(stream) => stream.add(deck),
            DealSink::Ranked(stream) => stream.push(deck, rank),
        }
    }

    /// The counts.
    fn finish(self) -> DealStreamTally {
        match self {
            DealSink::Whole(stream) => stream.finish(),
            DealSink::Ranked(stream) => stream.finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::marginal::MarginalTally;

    fn tally(text: &str, options: &ReaderOptions) -> Result<InputTally, InputError> {
        tally_bytes(text.as_bytes(), options)
    }

    fn tally_bytes(bytes: &[u8], options: &ReaderOptions) -> Result<InputTally, InputError> {
        let sources = [InputSource::File(PathBuf::from("deals.txt"))];
        let inputs = vec![Input::from_reader(io::Cursor::new(bytes.to_vec()))];
        read_permutations(
            &sources,
            inputs,
            options,
            &AtomicBool::new(false),
            &mut |_| {},
        )
    }

    fn error(text: &str) -> String {
        tally(text, &ReaderOptions::default())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn zero_based_lines_with_comments_blanks_commas_and_crlf_are_tallied() {
        let t = tally(
            "# deals\r\n0 1 2\r\n\r\n2,1,0\n  1\t0 2\n0, 1, 2\n",
            &ReaderOptions::default(),
        )
        .unwrap();
        assert_eq!(t.deck, 3);
        assert_eq!(t.permutations, 4);
        assert_eq!(t.lines, 6);
        assert_eq!(t.numbering, Numbering::ZeroBased);
        assert_eq!(t.counts.full().unwrap()[0], 2);
        assert_eq!(t.counts.full().unwrap()[rank(&[2, 1, 0])], 1);
        assert_eq!(t.counts.full().unwrap()[rank(&[1, 0, 2])], 1);
    }

    #[test]
    fn one_based_lines_are_shifted_to_zero_based() {
        let t = tally("1 2 3\n3 2 1\n", &ReaderOptions::default()).unwrap();
        assert_eq!(t.numbering, Numbering::OneBased);
        assert_eq!(t.counts.full().unwrap()[0], 1);
        assert_eq!(t.counts.full().unwrap()[5], 1);
    }

    #[test]
    fn labels_fix_the_starting_order() {
        let options = ReaderOptions {
            labels: Some(vec!["A".into(), "K".into(), "Q".into(), "10".into()]),
            ..Default::default()
        };
        let t = tally("A K Q 10\n10 Q K A\n", &options).unwrap();
        assert_eq!(t.numbering, Numbering::Labels);
        assert_eq!(t.counts.full().unwrap()[0], 1);
        assert_eq!(t.counts.full().unwrap()[23], 1);
    }

    #[test]
    fn every_bad_line_names_its_file_line_and_token() {
        assert!(error("0 1 2\n0 1\n").starts_with("deals.txt:2: expected 3 cards, found 2"));
        assert!(error("0 1 2\n0 1 1\n").starts_with("deals.txt:2: card '1' appears twice"));
        assert!(error("0 1 2\n0 1 7\n").starts_with("deals.txt:2: card 7 is out of range"));
        assert!(error("0 1 x\n").starts_with("deals.txt:1: 'x' is not a card number"));
        assert!(error("0 1 2\n1 2 3\n").starts_with("deals.txt:2: this permutation is 1-based"));
        assert!(error("0 3 1\n").starts_with("deals.txt:1: mixes 0-based and 1-based"));
        assert!(error("0 1 2\n0 1 2 3\n").starts_with("deals.txt:2: too many cards"));
        assert!(error("0 1 \u{0}\n").starts_with("deals.txt:1: binary data"));
        assert!(error("# nothing\n\n").contains("no permutations"));
        assert!(error("").contains("no permutations"));
        let invalid_utf8 = tally_bytes(b"0 1 2\n2 \xff 0\n", &ReaderOptions::default());
        let message = invalid_utf8.unwrap_err().to_string();
        assert!(
            message.starts_with("deals.txt:2: invalid UTF-8"),
            "{message}"
        );
    }

    #[test]
    fn undecided_deals_past_the_cap_are_read_as_0_based_and_a_later_1_based_line_is_an_error() {
        let options = ReaderOptions {
            deck: Some(52),
            deal: Some(5),
            mode: TallyMode::Marginal,
            ..Default::default()
        };
        // 2^20 values are 209,715 deals of five: the next one passes the cap.
        let undecided = PENDING_VALUES / 5 + 1;
        let mut text = "2 3 4 5 6\n".repeat(undecided);
        text.push_str("0 1 2 3 4\n");
        let t = tally(&text, &options).unwrap();
        assert_eq!(t.numbering, Numbering::ZeroBased);
        // The kept deals are read as 0-based when the cap is reached; the one after them
        // follows that numbering.
        assert_eq!(t.numbering_assumed, (PENDING_VALUES / 5) as u64);
        assert_eq!(t.permutations, undecided as u64 + 1);
        assert_eq!(
            t.counts.deal().unwrap().slot_matrix()[2][0],
            undecided as u64
        );
        text.push_str("1 2 3 4 52\n");
        let message = tally(&text, &options).unwrap_err().to_string();
        let last = undecided + 2;
        assert!(
            message.starts_with(&format!(
                "deals.txt:{last}: this deal is 1-based but deals.txt:"
            )),
            "{message}"
        );
        assert!(
            message.contains("read as 0-based: no line up to it held 0 or 52"),
            "{message}"
        );
    }

    #[test]
    fn skip_invalid_counts_bad_lines_and_keeps_the_first_examples() {
        let options = ReaderOptions {
            skip_invalid: true,
            ..Default::default()
        };
        let t = tally("0 1 2\n0 1\n2 1 0\nx y z\n", &options).unwrap();
        assert_eq!(t.permutations, 2);
        assert_eq!(t.invalid, 2);
        assert_eq!(t.invalid_examples[0].location, "deals.txt:2");
        assert_eq!(t.invalid_examples[1].location, "deals.txt:4");
    }

    #[test]
    fn a_given_deck_that_disagrees_with_the_input_is_an_error() {
        let options = ReaderOptions {
            deck: Some(4),
            ..Default::default()
        };
        let message = tally("0 1 2\n", &options).unwrap_err().to_string();
        assert!(
            message.starts_with("deals.txt:1: expected 4 cards, found 3"),
            "{message}"
        );
    }

    #[test]
    fn a_digit_run_too_long_for_any_card_is_out_of_range_not_an_overflow() {
        // Regression: the fast path once multiplied by ten without bound, which overflows (and
        // panics in a debug build) on a run of 20 digits.
        let message = error("0 1 2\n0 1 99999999999999999999999\n");
        assert!(
            message.starts_with("deals.txt:2: card '99999999999999999999999' is out of range"),
            "{message}"
        );
        let options = ReaderOptions {
            mode: TallyMode::Marginal,
            ..Default::default()
        };
        let message = tally("0 1 2\n0 1 2999999999999999999999999\n", &options)
            .unwrap_err()
            .to_string();
        assert!(message.starts_with("deals.txt:2: card '"), "{message}");
    }

    #[test]
    fn long_labels_and_runs_of_separators_are_read_in_both_modes() {
        let labels: Vec<String> = ["ace of spades, the long one", "K", "Q"]
            .iter()
            .map(|l| l.replace([' ', ','], "-"))
            .collect();
        let long = &labels[0];
        let text = format!("{long} K Q\nQ,K,{long}\n  K\t\t{long} ,Q\r\nQ K {long}\n");
        for mode in [TallyMode::Full, TallyMode::Marginal] {
            let options = ReaderOptions {
                labels: Some(labels.clone()),
                mode,
                ..Default::default()
            };
            let t = tally(&text, &options).unwrap();
            assert_eq!(t.permutations, 4);
            let decks: [&[Card]; 4] = [&[0, 1, 2], &[2, 1, 0], &[1, 0, 2], &[2, 1, 0]];
            match &t.counts {
                InputCounts::Full(counts) => {
                    for deck in decks {
                        assert!(counts[rank(deck)] > 0);
                    }
                    assert_eq!(counts[rank(&[2, 1, 0])], 2);
                }
                InputCounts::Marginal(marginal) => {
                    let mut expected = MarginalTally::new(3);
                    for deck in decks {
                        expected.add(deck);
                    }
                    assert_eq!(marginal, &expected);
                }
                InputCounts::Deal(_) => unreachable!("no --deal here"),
            }
        }
    }

    #[test]
    fn a_label_that_is_a_prefix_of_another_or_padded_with_nothing_is_not_confused() {
        let options = ReaderOptions {
            labels: Some(vec!["A".into(), "AA".into(), "AAA".into()]),
            mode: TallyMode::Marginal,
            ..Default::default()
        };
        let t = tally("A AA AAA\nAAA AA A\n", &options).unwrap();
        assert_eq!(t.counts.marginal().unwrap().identity, 1);
        let message = tally("A AA AAAA\n", &options).unwrap_err().to_string();
        assert!(
            message.starts_with("deals.txt:1: unknown label 'AAAA' (the labels are A,AA,AAA)"),
            "{message}"
        );
    }

    #[test]
    fn the_cards_met_on_a_line_are_forgotten_at_the_next_even_when_the_stamp_wraps() {
        let mut seen = CardStamps::new(4);
        seen.stamp = u32::MAX - 1;
        for _ in 0..4 {
            let line = seen.start_line();
            assert!(line.insert(3));
            assert!(!line.insert(3));
            assert!(line.insert(0));
        }
        assert_eq!(
            seen.stamp, 3,
            "u32::MAX, then 1, 2, 3: zero is never a stamp"
        );
    }

    /// A source that hands out its bytes `step` at a time, as a pipe or a terminal may.
    struct Trickle {
        bytes: Vec<u8>,
        at: usize,
        step: usize,
    }

    impl Read for Trickle {
        fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
            let end = self.bytes.len().min(self.at + self.step.min(buffer.len()));
            let length = end - self.at;
            buffer[..length].copy_from_slice(&self.bytes[self.at..end]);
            self.at = end;
            Ok(length)
        }
    }

    fn trickle(bytes: &[u8], step: usize) -> Input {
        Input::from_reader(Trickle {
            bytes: bytes.to_vec(),
            at: 0,
            step,
        })
    }

    /// A source whose read blocks until the test lets it go (by dropping the sender): a FIFO
    /// nobody writes to, a terminal nobody types at.
    struct Blocked(mpsc::Receiver<()>);

    impl Read for Blocked {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            let _ = self.0.recv();
            Ok(0)
        }
    }

    /// Tally named sources in order.
    fn tally_sources(
        inputs: Vec<(&str, Input)>,
        options: &ReaderOptions,
    ) -> Result<InputTally, InputError> {
        let sources: Vec<InputSource> = inputs
            .iter()
            .map(|(name, _)| InputSource::File(PathBuf::from(name)))
            .collect();
        let inputs = inputs.into_iter().map(|(_, input)| input).collect();
        read_permutations(
            &sources,
            inputs,
            options,
            &AtomicBool::new(false),
            &mut |_| {},
        )
    }

    /// Read `text` and then block until stopped: the flag is set after 100 ms, and the result
    /// must come within 10 s (a liveness bound, not a speed test).
    fn tally_then_stop(text: &str) -> Result<InputTally, InputError> {
        let (release, blocked) = mpsc::channel::<()>();
        let input =
            Input::from_reader(io::Cursor::new(text.as_bytes().to_vec()).chain(Blocked(blocked)));
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let (done, result) = mpsc::channel();
        let reading_stop = std::sync::Arc::clone(&stop);
        thread::spawn(move || {
            let sources = [InputSource::Stdin];
            let tally = read_permutations(
                &sources,
                vec![input],
                &ReaderOptions::default(),
                &reading_stop,
                &mut |_| {},
            );
            let _ = done.send(tally);
        });
        thread::sleep(Duration::from_millis(100));
        stop.store(true, Ordering::Relaxed);
        let tally = result
            .recv_timeout(Duration::from_secs(10))
            .expect("the reading ends once stopped, though its source still blocks");
        drop(release);
        tally
    }

    #[test]
    fn a_stop_while_the_source_blocks_ends_the_reading_with_what_was_read() {
        // Regression: the stop flag was only read between buffer refills, so a read that never
        // returned (a terminal, a FIFO without a writer) could not be interrupted.
        let t = tally_then_stop("0 1 2\n2 1 0\n").unwrap();
        assert!(t.interrupted);
        assert_eq!(t.permutations, 2);
        assert_eq!(t.sources, ["<stdin>"]);
    }

    #[test]
    fn a_stop_before_any_permutation_is_an_error_marked_interrupted() {
        let error = tally_then_stop("# nothing yet\n").unwrap_err();
        assert!(error.is_interrupted());
        assert_eq!(
            error.to_string(),
            "<stdin>: interrupted before any permutation was read; nothing to report"
        );
    }

    #[test]
    fn sources_are_read_in_order_with_lines_numbered_per_source() {
        let t = tally_sources(
            vec![
                ("a.txt", trickle(b"0 1 2\n2 1 0", 2)),
                ("b.txt", trickle(b"1 0 2\n", 5)),
            ],
            &ReaderOptions::default(),
        )
        .unwrap();
        assert_eq!(t.permutations, 3);
        assert_eq!(t.sources, ["a.txt", "b.txt"]);
        let error = tally_sources(
            vec![
                ("a.txt", trickle(b"0 1 2\n2 1 0", 3)),
                ("b.txt", trickle(b"\n1 0 9\n", 3)),
            ],
            &ReaderOptions::default(),
        )
        .unwrap_err();
        assert!(error.to_string().starts_with("b.txt:2: card 9"), "{error}");
    }

    #[test]
    fn a_missing_file_or_a_directory_fails_before_any_reading_and_names_itself() {
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let sources = [
            InputSource::File(here.join("Cargo.toml")),
            InputSource::File(here.join("no-such-file.txt")),
        ];
        let error = open_sources(&sources).err().unwrap();
        assert!(error.location.ends_with("no-such-file.txt"), "{error}");
        assert!(
            error.message().starts_with("cannot open the file ("),
            "{error}"
        );
        let error = open_sources(&[InputSource::File(here.join("src"))])
            .err()
            .unwrap();
        assert!(
            error.message().starts_with("this is a directory"),
            "{error}"
        );
    }

    /// "0 1 2" padded with spaces to `length` bytes: a valid line of any length.
    fn padded_line(length: usize) -> Vec<u8> {
        let mut line = b"0 1 2".to_vec();
        line.resize(length, b' ');
        line
    }

    #[test]
    fn a_line_of_exactly_the_cap_is_read_and_one_byte_more_is_rejected_at_its_line() {
        for step in [MAX_LINE + 3, 4096, 1000] {
            let mut text = b"2 1 0\n".to_vec();
            text.extend(padded_line(MAX_LINE));
            text.extend(b"\n");
            let t = tally_sources(
                vec![("deals.txt", trickle(&text, step))],
                &ReaderOptions::default(),
            );
            assert_eq!(t.unwrap().permutations, 2, "reads of {step} bytes");

            let mut text = b"2 1 0\n".to_vec();
            text.extend(padded_line(MAX_LINE + 1));
            text.extend(b"\n0 1 2\n");
            let error = tally_sources(
                vec![("deals.txt", trickle(&text, step))],
                &ReaderOptions::default(),
            )
            .unwrap_err();
            assert!(
                error
                    .to_string()
                    .starts_with("deals.txt:2: line longer than 1048576 bytes: '0 1 2 "),
                "reads of {step} bytes: {error}"
            );
        }
    }

    #[test]
    fn an_over_long_line_without_a_newline_is_rejected_without_being_stored() {
        // Regression: a 200 MB line without a newline was gathered whole (199 MB of memory)
        // before it was rejected. Now at most the cap is held, and the rest is skipped.
        let options = ReaderOptions {
            skip_invalid: true,
            ..Default::default()
        };
        let mut reader = Reader::new(&options, None);
        let mut lines = Lines::new("deals.txt");
        reader.chunk(&mut lines, b"0 1 2\n").unwrap();
        let mut held = 0;
        let block = vec![b'7'; 64 * 1024];
        for _ in 0..(5 * MAX_LINE / block.len()) {
            reader.chunk(&mut lines, &block).unwrap();
            held = held.max(lines.carry.capacity());
        }
        reader.chunk(&mut lines, b"77\n2 1 0\n").unwrap();
        reader.end(&mut lines).unwrap();
        assert!(held <= 2 * MAX_LINE, "{held} bytes held for one line");
        assert_eq!(reader.permutations, 2);
        assert_eq!(reader.lines, 3);
        assert_eq!(reader.invalid, 1);
        assert_eq!(reader.invalid_examples[0].location, "deals.txt:2");
        assert!(
            reader.invalid_examples[0]
                .problem
                .starts_with("line longer than 1048576 bytes: '7777")
        );
    }

    #[test]
    fn a_byte_order_mark_at_the_start_of_each_source_is_skipped_even_when_split() {
        // Regression: a UTF-8 byte-order mark (as some Windows editors write) made the first
        // card of the first line "not a card number".
        let t = tally_sources(
            vec![
                ("a.txt", trickle(b"\xEF\xBB\xBF0 1 2\n", 1)),
                ("b.txt", trickle(b"\xEF\xBB\xBF# deals\n2 1 0\n", 2)),
                ("c.txt", trickle(b"\xEF\xBB\xBF1 0 2", 64)),
            ],
            &ReaderOptions::default(),
        )
        .unwrap();
        assert_eq!(t.permutations, 3);
        let options = ReaderOptions {
            labels: Some(vec!["A".into(), "K".into(), "Q".into()]),
            ..Default::default()
        };
        let t = tally_bytes(b"\xEF\xBB\xBFA K Q\n", &options).unwrap();
        assert_eq!(t.counts.full().unwrap()[0], 1);
    }

    #[test]
    fn a_byte_order_mark_after_the_start_of_a_source_is_still_an_error() {
        let message = tally_bytes(b"0 1 2\n\xEF\xBB\xBF2 1 0\n", &ReaderOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with("deals.txt:2: '\\u{feff}2' is not a card number"),
            "{message}"
        );
        let message = tally_bytes(b" \xEF\xBB\xBF0 1 2\n", &ReaderOptions::default())
            .unwrap_err()
            .to_string();
        assert!(message.starts_with("deals.txt:1:"), "{message}");
    }

    #[test]
    fn an_empty_field_between_commas_is_rejected_by_number_on_any_line() {
        // Regression: `0,,1,2,3` was read as `0 1 2 3`, since empty tokens were dropped.
        let cases = [
            (
                "0,,1,2,3\n",
                "deals.txt:1: empty field 2: nothing between two commas after '0'",
            ),
            (
                "0,1,2,3\n0,,1,2,3\n",
                "deals.txt:2: empty field 2: nothing between two commas after '0'",
            ),
            (
                "0,1,2,3\n0, 1 ,\t, 2,3\n",
                "deals.txt:2: empty field 3: nothing between two commas after '1'",
            ),
            (
                "0 1 2 3\n,0 1 2 3\n",
                "deals.txt:2: empty field 1: the line starts with a comma",
            ),
            (
                "0 1 2 3\n  , 0 1 2 3\n",
                "deals.txt:2: empty field 1: the line starts with a comma",
            ),
            (
                "0 1 2 3\n0 1 2 3,\n",
                "deals.txt:2: empty field 5: the line ends with a comma after '3'",
            ),
            (
                "0 1 2 3\n0 1 2 3 , \r\n",
                "deals.txt:2: empty field 5: the line ends with a comma after '3'",
            ),
        ];
        for (text, expected) in cases {
            let message = error(text);
            assert!(message.starts_with(expected), "{text:?}: {message}");
        }
        let options = ReaderOptions {
            labels: Some(vec!["A".into(), "K".into(), "Q".into()]),
            ..Default::default()
        };
        let message = tally("A K Q\nA,,K,Q\n", &options).unwrap_err().to_string();
        assert!(
            message.starts_with("deals.txt:2: empty field 2: nothing between two commas after 'A'"),
            "{message}"
        );
    }

    #[test]
    fn runs_of_blanks_around_at_most_one_comma_are_one_separator() {
        let t = tally(
            "0 1 2 3\n0  1\t\t2 3\n0 , 1\t,\t2,3\n0,1 2 ,3 \n",
            &ReaderOptions::default(),
        )
        .unwrap();
        assert_eq!(t.permutations, 4);
        assert_eq!(t.counts.full().unwrap()[0], 4);
    }

    #[test]
    fn the_two_digit_fast_path_accepts_exactly_the_lines_and_cards_of_the_plain_one() {
        // Lines of up to 52 cards, 0- and 1-based, whole decks and deals, each mutated by one
        // of the edits a bad line can show (a doubled, missing, trailing or odd separator, a
        // third digit, a card out of range, a repeat, a token too few or too many, a CR, a
        // non-digit, a NUL, a byte next to the digits); the fast paths — the scalar ones and,
        // on a CPU that has it, the AVX-512 one — must agree on every line, and on the cards
        // when they accept it.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |bound: usize| {
            (crate::engine::random_source::splitmix64(&mut state) % bound as u64) as usize
        };
        let mut accepted = 0;
        let mut wide_checked = 0;
        for case in 0..40_000 {
            let n = [2, 3, 9, 10, 11, 52, 64, 99, 100][case % 9];
            let offset = usize::from(case % 2 == 1 && n < TWO_DIGIT_VALUES);
            let count = if case % 3 == 0 { 1 + next(n) } else { n };
            let mut cards: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                cards.swap(i, next(i + 1));
            }
            let tokens: Vec<String> = cards[..count]
                .iter()
                .map(|c| (c + offset).to_string())
                .collect();
            let separators = [" ", "\t", ","];
            let mut line = String::new();
            for (i, token) in tokens.iter().enumerate() {
                if i > 0 {
                    line.push_str(separators[next(3)]);
                }
                line.push_str(token);
            }
            let edit = next(19);
            let mut bytes = line.into_bytes();
            let at = next(bytes.len());
            match edit {
                0 => bytes.insert(at, b' '),
                1 => bytes.insert(at, b'7'),
                2 => bytes.push(b' '),
                3 => bytes.push(b'\r'),
                4 => bytes.extend_from_slice(b" 5"),
                5 => bytes.truncate(at),
                6 => bytes[at] = b'x',
                7 => bytes[at] = b'.',
                8 => bytes.insert(0, b','),
                9 => bytes.extend_from_slice(format!(" {}", n + offset).as_bytes()),
                10 => bytes[at] = 0,
                11 => bytes[at] = b'#',
                // The bytes just below '0' and above '9', and '0' with its high bit set.
                12 => bytes[at] = b'/',
                13 => bytes[at] = b':',
                14 => bytes[at] = 0xb0,
                _ => {}
            }
            let mut fast = [0 as Card; 128];
            let mut plain = [0 as Card; 128];
            let ok = parse_two_digits(&bytes, count, n, offset, &mut fast);
            let mut seen = CardStamps::new(n);
            let expected = parse_plain(&bytes, count, n, offset, &mut plain, seen.start_line());
            assert_eq!(ok, expected, "{:?}", String::from_utf8_lossy(&bytes));
            if ok {
                assert_eq!(fast[..count], plain[..count]);
                accepted += 1;
            }
            if wide_line_parser::available() && n <= WIDE_MAX_DECK {
                let mut wide = [0 as Card; 128];
                let wide_ok = wide_line_parser::parse(&bytes, count, n, offset, &mut wide);
                assert_eq!(wide_ok, expected, "{:?}", String::from_utf8_lossy(&bytes));
                if wide_ok {
                    assert_eq!(wide[..count], plain[..count]);
                    wide_checked += 1;
                }
            }
        }
        // Both outcomes are exercised.
        assert!((10_000..38_000).contains(&accepted), "{accepted}");
        if wide_line_parser::available() {
            assert!(wide_checked > 5_000, "{wide_checked}");
        }
    }

    #[test]
    fn the_fast_paths_leave_empty_fields_to_the_careful_parser() {
        let labels = ["A", "K", "Q"].map(String::from);
        let index = LabelIndex::new(&labels);
        for line in ["0,,1,2", ",0,1,2", "0,1,2,", "0,1,2,,"] {
            let mut deck = [0; MAX_FULL_DECK];
            assert!(
                !parse_plain(line.as_bytes(), 3, 3, 0, &mut deck, &mut CardBits(0)),
                "{line}"
            );
            let labelled = line.replace('0', "A").replace('1', "K").replace('2', "Q");
            assert!(
                !parse_labelled(labelled.as_bytes(), 3, &index, &mut deck, &mut CardBits(0)),
                "{labelled}"
            );
        }
        let mut deck = [0; MAX_FULL_DECK];
        assert!(parse_plain(b"0,1,2", 3, 3, 0, &mut deck, &mut CardBits(0)));
        assert!(parse_labelled(
            b"A,K,Q",
            3,
            &index,
            &mut deck,
            &mut CardBits(0)
        ));
    }

    #[test]
    fn messages_about_one_card_or_one_rejected_line_are_singular() {
        assert!(error("0\n").starts_with("deals.txt:1: the first permutation has 1 card;"));
        let options = ReaderOptions {
            skip_invalid: true,
            ..Default::default()
        };
        let message = tally("# deals\n0 1 1\n", &options).unwrap_err().to_string();
        assert_eq!(
            message,
            "deals.txt: no valid permutation: the only non-blank line was rejected: \
             deals.txt:2: card '1' appears twice"
        );
        let message = tally("0 1 1\n0 0 1\n", &options).unwrap_err().to_string();
        assert!(
            message.ends_with(
                "all 2 non-blank lines were rejected; the first: deals.txt:1: card '1' appears \
                 twice"
            ),
            "{message}"
        );
    }

    #[test]
    fn a_list_printed_over_several_lines_is_one_permutation_named_by_its_first_line() {
        let t = tally(
            "[\n  2, 0,\n  1, 3\n]\n[ 0, 1,\r\n 2, 3 ]\n# end\n[3, 2, 1, 0]\n",
            &ReaderOptions::default(),
        )
        .unwrap();
        assert_eq!(t.permutations, 3);
        assert_eq!(t.lines, 8);
        assert_eq!(t.format, Some(LineFormat::Brackets));
        let counts = t.counts.full().unwrap();
        assert_eq!(counts[rank(&[2, 0, 1, 3])], 1);
        assert_eq!(counts[rank(&[0, 1, 2, 3])], 1);
        assert_eq!(counts[rank(&[3, 2, 1, 0])], 1);
        assert!(
            error("[0, 1, 2]\n[\n 2, 2,\n 1\n]\n")
                .starts_with("deals.txt:2: card '2' appears twice"),
        );
        assert!(
            error("[\n 0, 1,\n[1, 0]\n").starts_with(
                "deals.txt:1: the list in brackets has no closing ']' before line 3 opens \
                 another; the line is '[ 0, 1,'"
            ),
            "{}",
            error("[\n 0, 1,\n[1, 0]\n")
        );
    }

    #[test]
    fn an_unclosed_list_under_skip_invalid_is_counted_and_the_next_source_reads_on() {
        let options = ReaderOptions {
            skip_invalid: true,
            ..Default::default()
        };
        let t = tally("[0, 1]\n[1, 0]\n[\n 0,\n", &options).unwrap();
        assert_eq!(t.permutations, 2);
        assert_eq!(t.invalid, 1);
        assert_eq!(t.invalid_examples[0].location, "deals.txt:3");
    }

    #[test]
    fn the_fast_paths_are_kept_for_plain_lines_only() {
        // A plain first line fixes the format: a list after it is a mix, not a misread.
        let message = error("0 1 2 3\n0 1 2 3\n[3, 2, 1, 0]\n");
        assert!(
            message.starts_with("deals.txt:3: this line is a list in brackets but deals.txt:1 was"),
            "{message}"
        );
        // Lists of 52 cards, which the plain fast paths would refuse, are all read.
        let deck: Vec<String> = (0..52).rev().map(|card| card.to_string()).collect();
        let line = format!("[{}]\n", deck.join(", "));
        let options = ReaderOptions {
            mode: TallyMode::Marginal,
            ..Default::default()
        };
        let t = tally(&line.repeat(40), &options).unwrap();
        assert_eq!(t.permutations, 40);
        assert_eq!(t.format, Some(LineFormat::Brackets));
    }
    /// Numbers below `bound` from a xorshift64* generator seeded with `seed` (Vigna 2016).
    fn xorshift(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut state = seed;
        move |bound| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) % bound
        }
    }

    /// A Fisher–Yates shuffle of `0..n` drawn from `next`.
    fn shuffled(n: usize, next: &mut impl FnMut(u64) -> u64) -> Vec<Card> {
        let mut deck: Vec<Card> = (0..n as Card).collect();
        for i in (1..n).rev() {
            deck.swap(i, next(i as u64 + 1) as usize);
        }
        deck
    }

    #[test]
    fn whole_decks_counted_by_rank_pair_across_blank_comment_and_rejected_lines() {
        // The deal stream of the full mode is counted from ranks; the pairs are the consecutive
        // permutations tallied, whatever blank, comment or rejected lines lie between them: the
        // counts must equal those of the valid lines fed one by one to `DealStream::add`.
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for n in [3usize, 4, 5, 7] {
            let mut text = String::new();
            let mut valid: Vec<Vec<Card>> = Vec::new();
            for _ in 0..4000 {
                match next(20) {
                    0 => text.push('\n'),
                    1 => text.push_str("# a comment\n"),
                    2 => text.push_str("0 0 1\n"),
                    3 => text.push_str("  \t \r\n"),
                    _ => {
                        let deck = shuffled(n, &mut next);
                        let line: Vec<String> = deck.iter().map(|c| c.to_string()).collect();
                        text.push_str(&line.join(if next(2) == 0 { " " } else { ", " }));
                        text.push('\n');
                        valid.push(deck);
                    }
                }
            }
            let options = ReaderOptions {
                skip_invalid: true,
                deals: Some(DealsRequest {
                    fingerprint_limit: 1 << 20,
                }),
                ..Default::default()
            };
            let t = tally(&text, &options).unwrap();
            assert!(t.invalid > 0);
            let mut plain = deal_stream_for(&options, n).unwrap();
            for deck in &valid {
                plain.add(deck);
            }
            assert_eq!(t.deals.unwrap(), plain.finish(), "{n} cards");
        }
    }

    #[test]
    fn marginal_decks_reach_the_deal_stream_in_line_order_in_batches_or_not() {
        // Marginal mode hands the decks parsed by the fast path to the deal stream a batch at a
        // time, and those of other lines (tabs, doubled spaces: the general parser) one by one
        // after the batch's: the counts must equal those of the valid lines fed one by one, with
        // blank, comment and rejected lines between them.
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for n in [20usize, 52] {
            let mut text = String::new();
            let mut valid: Vec<Vec<Card>> = Vec::new();
            for _ in 0..3000 {
                match next(24) {
                    0 => text.push('\n'),
                    1 => text.push_str("# a comment\n"),
                    2 => text.push_str("0 0 1\n"),
                    choice => {
                        let deck = shuffled(n, &mut next);
                        let separator = match choice % 4 {
                            0 => "\t",
                            1 => "  ",
                            _ => " ",
                        };
                        let line: Vec<String> = deck.iter().map(|c| c.to_string()).collect();
                        text.push_str(&line.join(separator));
                        text.push('\n');
                        valid.push(deck);
                    }
                }
            }
            let options = ReaderOptions {
                skip_invalid: true,
                mode: TallyMode::Marginal,
                deals: Some(DealsRequest {
                    fingerprint_limit: 1 << 20,
                }),
                ..Default::default()
            };
            let t = tally(&text, &options).unwrap();
            assert!(t.invalid > 0);
            assert_eq!(t.permutations, valid.len() as u64);
            let mut plain = deal_stream_for(&options, n).unwrap();
            for deck in &valid {
                plain.add(deck);
            }
            assert_eq!(t.deals.unwrap(), plain.finish(), "{n} cards");
        }
    }
}
