//! Reading permutations that another program produced: one per line, streamed, tallied.
//!
//! Each line holds the deck after one shuffle: n tokens separated by spaces, tabs or commas —
//! integers 0..n−1 or 1..n, or labels given with `--labels` (their order is the starting order).
//! Blank lines and lines starting with `#` are skipped; CRLF is accepted. Every line is checked
//! (count, range, duplicates, numbering); a bad line is an error naming `FILE:LINE` and the
//! offending token, or, with `--skip-invalid`, a counted and sampled rejection. Memory is the
//! tally, not the input: lines are read one at a time from a large buffer, and the buffers a
//! line is parsed into are the reader's own, reused from line to line.
//!
//! Two tallies can be fed ([`TallyMode`]): every one of the n! orderings counted (n ≤
//! [`MAX_FULL_DECK`]), or the [`MarginalTally`] of decks of up to [`MAX_MARGINAL_DECK`] cards
//! (a 52-card deal, say). Either way the deck size is `--deck`, else the number of `--labels`,
//! else the number of cards on the first permutation.

use std::collections::HashMap;
use std::fs::File;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, BufRead, BufReader, Read};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use crate::algorithms::Card;
use crate::marginal::MarginalTally;
use crate::permutation::{MAX_FULL_DECK, factorial, rank};

/// How many rejected lines `--skip-invalid` keeps as examples.
pub const INVALID_EXAMPLES: usize = 5;

/// Where permutations come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputSource {
    /// Standard input (`-`).
    Stdin,
    /// A file.
    File(PathBuf),
}

impl InputSource {
    /// The name used in messages: the path, or `<stdin>`.
    pub fn name(&self) -> String {
        match self {
            InputSource::Stdin => "<stdin>".to_string(),
            InputSource::File(path) => path.display().to_string(),
        }
    }
}

/// How the cards of the input were written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Numbering {
    /// Integers 0..n−1.
    ZeroBased,
    /// Integers 1..n.
    OneBased,
    /// Labels given with `--labels`.
    Labels,
}

pub use crate::report::TallyMode;

/// The reader's side of a [`TallyMode`]: `Full` gives [`InputCounts::Full`] (every ordering
/// counted), `Marginal` gives [`InputCounts::Marginal`] (every permutation passed to
/// [`MarginalTally::add`]).
trait ReaderMode {
    /// An empty tally of decks of `deck` cards.
    fn empty_counts(self, deck: usize) -> InputCounts;
}

impl ReaderMode for TallyMode {
    /// An empty tally of decks of `deck` cards.
    fn empty_counts(self, deck: usize) -> InputCounts {
        match self {
            TallyMode::Full => InputCounts::Full(vec![0; factorial(deck) as usize]),
            TallyMode::Marginal => InputCounts::Marginal(MarginalTally::new(deck)),
        }
    }
}

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
}

impl ReaderOptions {
    /// The largest deck these options accept.
    fn largest(&self) -> usize {
        if self.marginal_if_large {
            TallyMode::Marginal.max_deck()
        } else {
            self.mode.max_deck()
        }
    }

    /// The tally to feed for a deck of `deck` cards.
    fn mode_for(&self, deck: usize) -> TallyMode {
        if self.marginal_if_large && deck > TallyMode::Full.max_deck() {
            TallyMode::Marginal
        } else {
            self.mode
        }
    }
}

/// A rejected line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InvalidLine {
    /// `FILE:LINE`.
    pub location: String,
    /// What is wrong.
    pub problem: String,
}

/// The counts of an input, of the kind its [`TallyMode`] asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputCounts {
    /// [`TallyMode::Full`]: `counts[rank]`, the lexicographic rank of [`crate::permutation::rank`].
    Full(Vec<u64>),
    /// [`TallyMode::Marginal`]: positions, identity and statistics of every permutation.
    Marginal(MarginalTally),
}

impl InputCounts {
    /// The count of each ordering, in full mode.
    pub fn full(&self) -> Option<&[u64]> {
        match self {
            InputCounts::Full(counts) => Some(counts),
            InputCounts::Marginal(_) => None,
        }
    }

    /// The count of each ordering, in full mode (by value).
    pub fn into_full(self) -> Option<Vec<u64>> {
        match self {
            InputCounts::Full(counts) => Some(counts),
            InputCounts::Marginal(_) => None,
        }
    }

    /// The marginal tally, in marginal mode.
    pub fn marginal(&self) -> Option<&MarginalTally> {
        match self {
            InputCounts::Full(_) => None,
            InputCounts::Marginal(tally) => Some(tally),
        }
    }

    /// The marginal tally, in marginal mode (by value).
    pub fn into_marginal(self) -> Option<MarginalTally> {
        match self {
            InputCounts::Full(_) => None,
            InputCounts::Marginal(tally) => Some(tally),
        }
    }

    /// Count one permutation (`deck[position] = card`).
    #[inline]
    fn add(&mut self, deck: &[Card]) {
        match self {
            InputCounts::Full(counts) => counts[rank(deck)] += 1,
            InputCounts::Marginal(tally) => tally.add(deck),
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
    /// The sources, in order.
    pub sources: Vec<String>,
    /// Whether reading was stopped (Ctrl-C) before the end of the input.
    pub interrupted: bool,
}

/// A failure that stops the reading: `location: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// `FILE:LINE`, or `FILE` when the file itself fails.
    pub location: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// A token shown in a message: at most 40 characters, invalid UTF-8 escaped.
fn shown(token: &[u8]) -> String {
    let text = String::from_utf8_lossy(token);
    let mut shown: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        shown.push('…');
    }
    shown.escape_debug().to_string()
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
    fn new(labels: &'a [String]) -> Self {
        let mut index = LabelIndex {
            short: HashMap::default(),
            long: HashMap::new(),
        };
        for (card, label) in labels.iter().enumerate() {
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

/// The fast path for the common line: exactly `n` integers separated by single spaces, tabs or
/// commas, each `offset..n + offset`, none repeated. Writes them (shifted to 0-based) into
/// `deck[..n]`; false for anything else (labels, comments, blank lines, errors), which the
/// careful parser then handles with its exact messages.
#[inline(always)]
fn parse_plain(
    line: &[u8],
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
        if card >= n || found == n || !seen.insert(card) {
            return false;
        }
        deck[found] = card as Card;
        found += 1;
        if last {
            return found == n;
        }
    }
}

/// The fast path for a labelled line: exactly `n` known labels separated by single spaces, tabs
/// or commas, none repeated; as [`parse_plain`] otherwise.
#[inline(always)]
fn parse_labelled(
    line: &[u8],
    n: usize,
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
        if found == n || !seen.insert(card) {
            return false;
        }
        deck[found] = card as Card;
        found += 1;
    }
    found == n
}

/// The fast path for a line written as the first permutation was.
#[inline(always)]
fn parse_fast(
    line: &[u8],
    n: usize,
    numbering: Numbering,
    labels: Option<&LabelIndex>,
    deck: &mut [Card],
    seen: &mut impl CardSet,
) -> bool {
    match (numbering, labels) {
        (Numbering::ZeroBased, _) => parse_plain(line, n, 0, deck, seen),
        (Numbering::OneBased, _) => parse_plain(line, n, 1, deck, seen),
        (Numbering::Labels, Some(labels)) => parse_labelled(line, n, labels, deck, seen),
        (Numbering::Labels, None) => false,
    }
}

/// The reading state carried across lines and files.
struct Reader<'a> {
    options: &'a ReaderOptions,
    /// The label index, when the input uses labels.
    labels: Option<LabelIndex<'a>>,
    deck: Option<usize>,
    numbering: Option<(Numbering, String)>,
    /// None until the deck size is known.
    counts: Option<InputCounts>,
    /// The careful parser's token values (up to one more than the largest deck).
    values: Vec<usize>,
    /// The permutation being parsed, `cards[position] = card`.
    cards: Vec<Card>,
    /// The cards met on the line being parsed.
    seen: CardStamps,
    permutations: u64,
    lines: u64,
    invalid: u64,
    invalid_examples: Vec<InvalidLine>,
}

/// Why one line is rejected; Ok(true) when it holds a permutation (left in `Reader::cards`).
type LineResult = Result<bool, String>;

impl<'a> Reader<'a> {
    fn new(options: &'a ReaderOptions, deck: Option<usize>) -> Self {
        let largest = options.largest();
        Reader {
            options,
            labels: options.labels.as_deref().map(LabelIndex::new),
            deck,
            numbering: None,
            counts: deck.map(|n| options.mode_for(n).empty_counts(n)),
            values: Vec::with_capacity(largest + 1),
            cards: vec![0; largest],
            seen: CardStamps::new(largest),
            permutations: 0,
            lines: 0,
            invalid: 0,
            invalid_examples: Vec::new(),
        }
    }

    /// The fast paths, once the deck size and the numbering are known: true when the line was
    /// a valid permutation and is tallied.
    #[inline(always)]
    fn tally_fast(&mut self, line: &[u8]) -> bool {
        let (Some(n), Some(counts), Some((numbering, _))) =
            (self.deck, self.counts.as_mut(), &self.numbering)
        else {
            return false;
        };
        let labels = self.labels.as_ref();
        match counts {
            InputCounts::Full(counts) => {
                let mut deck = [0 as Card; MAX_FULL_DECK];
                if !parse_fast(line, n, *numbering, labels, &mut deck, &mut CardBits(0)) {
                    return false;
                }
                counts[rank(&deck[..n])] += 1;
            }
            InputCounts::Marginal(tally) => {
                let seen = self.seen.start_line();
                if !parse_fast(line, n, *numbering, labels, &mut self.cards, seen) {
                    return false;
                }
                tally.add(&self.cards[..n]);
            }
        }
        self.permutations += 1;
        true
    }

    /// Parse one line (without its newline); Ok(false) for a blank or comment line, Ok(true) for
    /// a permutation, left in `self.cards[..deck]`.
    fn parse_line(&mut self, line: &[u8], location: &dyn Fn() -> String) -> LineResult {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let start = line
            .iter()
            .position(|&b| !matches!(b, b' ' | b'\t'))
            .unwrap_or(line.len());
        let content = &line[start..];
        if content.is_empty() || content[0] == b'#' {
            return Ok(false);
        }
        if memchr::memchr(0, content).is_some() {
            return Err("binary data (a NUL byte): expected text, one permutation per line".into());
        }
        let tokens = content
            .split(|&b| matches!(b, b' ' | b'\t' | b','))
            .filter(|token| !token.is_empty());
        let largest = self.options.largest();
        let expected = self.deck;
        self.values.clear();
        for token in tokens {
            let found = self.values.len();
            if found == largest + 1 || expected.is_some_and(|n| found == n) {
                return Err(format!(
                    "too many cards: expected {}, found more (extra token '{}')",
                    expected.unwrap_or(largest),
                    shown(token)
                ));
            }
            let value = self.value_of(token)?;
            self.values.push(value);
        }
        let found = self.values.len();
        let n = match expected {
            Some(n) if n != found => {
                return Err(format!("expected {n} cards, found {found}"));
            }
            Some(n) => n,
            None => {
                if !(2..=largest).contains(&found) {
                    return Err(format!(
                        "the first permutation has {found} cards; decks of 2 to {largest} \
                         cards can be tallied"
                    ));
                }
                self.deck = Some(found);
                self.counts = Some(self.options.mode_for(found).empty_counts(found));
                found
            }
        };
        let values = &self.values[..n];
        let numbering = if self.labels.is_some() {
            Numbering::Labels
        } else {
            let has_zero = values.contains(&0);
            let has_n = values.contains(&n);
            if let Some(&too_big) = values.iter().find(|&&v| v > n) {
                return Err(format!(
                    "card {too_big} is out of range: cards are 0..{} or 1..{n}",
                    n - 1
                ));
            }
            match (has_zero, has_n) {
                (true, true) => {
                    return Err(format!(
                        "mixes 0-based and 1-based values (both 0 and {n} appear); write cards \
                         as 0..{} or as 1..{n}",
                        n - 1
                    ));
                }
                (false, true) => Numbering::OneBased,
                _ => Numbering::ZeroBased,
            }
        };
        let offset = usize::from(numbering == Numbering::OneBased);
        let seen = self.seen.start_line();
        for (slot, &value) in self.cards.iter_mut().zip(values) {
            let card = value - offset;
            if !seen.insert(card) {
                let written = match &self.options.labels {
                    Some(labels) => labels[card].clone(),
                    None => value.to_string(),
                };
                return Err(format!("card '{written}' appears twice"));
            }
            *slot = card as Card;
        }
        match &self.numbering {
            None => self.numbering = Some((numbering, location())),
            Some((first, first_location)) if *first != numbering => {
                let name = |n: Numbering| match n {
                    Numbering::ZeroBased => "0-based",
                    Numbering::OneBased => "1-based",
                    Numbering::Labels => "labelled",
                };
                return Err(format!(
                    "this permutation is {} but {first_location} was {}; a mix is an error",
                    name(numbering),
                    name(*first)
                ));
            }
            Some(_) => {}
        }
        Ok(true)
    }

    /// The value of one token: its index among the labels, or the integer it spells.
    fn value_of(&self, token: &[u8]) -> Result<usize, String> {
        if let Some(index) = &self.labels {
            return index
                .get(token)
                .ok_or_else(|| match std::str::from_utf8(token) {
                    Ok(_) => format!(
                        "unknown label '{}' (the labels are {})",
                        shown(token),
                        self.label_list()
                    ),
                    Err(_) => format!("invalid UTF-8 in token '{}'", shown(token)),
                });
        }
        if token.is_empty() || token.len() > 6 || !token.iter().all(u8::is_ascii_digit) {
            return Err(if std::str::from_utf8(token).is_err() {
                format!("invalid UTF-8 in token '{}'", shown(token))
            } else if token.iter().all(u8::is_ascii_digit) {
                format!("card '{}' is out of range", shown(token))
            } else {
                format!(
                    "'{}' is not a card number (use integers, or give --labels for named cards)",
                    shown(token)
                )
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

    /// Read one source: scan its buffer for newlines in place (a line that straddles two
    /// buffer fills is copied once into `carry`).
    fn read(
        &mut self,
        name: &str,
        input: &mut dyn BufRead,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(), InputError> {
        let mut carry: Vec<u8> = Vec::new();
        let mut number = 0u64;
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            let buffer = match input.fill_buf() {
                Ok(buffer) => buffer,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => {
                    return Err(InputError {
                        location: name.to_string(),
                        message: format!("cannot read: {error}"),
                    });
                }
            };
            if buffer.is_empty() {
                if !carry.is_empty() {
                    number += 1;
                    self.line(&carry, name, number)?;
                }
                progress(self.lines);
                return Ok(());
            }
            let mut start = 0;
            for end in memchr::memchr_iter(b'\n', buffer) {
                number += 1;
                if carry.is_empty() {
                    self.line(&buffer[start..end], name, number)?;
                } else {
                    carry.extend_from_slice(&buffer[start..end]);
                    self.line(&carry, name, number)?;
                    carry.clear();
                }
                start = end + 1;
            }
            carry.extend_from_slice(&buffer[start..]);
            let length = buffer.len();
            input.consume(length);
            progress(self.lines);
        }
    }

    /// Tally one line (without its newline), or reject it.
    #[inline]
    fn line(&mut self, content: &[u8], name: &str, number: u64) -> Result<(), InputError> {
        self.lines += 1;
        if self.tally_fast(content) {
            return Ok(());
        }
        let location = || format!("{name}:{number}");
        match self.parse_line(content, &location) {
            Ok(true) => {
                let n = self
                    .deck
                    .expect("a permutation was read, so its size is known");
                self.counts
                    .as_mut()
                    .expect("the counts exist once the deck size is known")
                    .add(&self.cards[..n]);
                self.permutations += 1;
            }
            Ok(false) => {}
            Err(problem) if self.options.skip_invalid => {
                self.invalid += 1;
                if self.invalid_examples.len() < INVALID_EXAMPLES {
                    self.invalid_examples.push(InvalidLine {
                        location: location(),
                        problem,
                    });
                }
            }
            Err(problem) => {
                return Err(InputError {
                    location: location(),
                    message: format!(
                        "{problem} (fix the line, or pass --skip-invalid to count and skip bad \
                         lines)"
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Open every source before reading any, so that a missing file fails at once.
pub fn open_sources(sources: &[InputSource]) -> Result<Vec<Box<dyn Read>>, InputError> {
    sources
        .iter()
        .map(|source| match source {
            InputSource::Stdin => Ok(Box::new(io::stdin()) as Box<dyn Read>),
            InputSource::File(path) => File::open(path)
                .map(|file| Box::new(file) as Box<dyn Read>)
                .map_err(|error| InputError {
                    location: path.display().to_string(),
                    message: format!("cannot open the file ({error}); check the path"),
                }),
        })
        .collect()
}

/// Read and tally every source in order. `progress` is called with the lines read so far;
/// setting `stop` ends the reading at the next buffer refill, with what was read so far.
pub fn read_permutations(
    sources: &[InputSource],
    inputs: Vec<Box<dyn Read>>,
    options: &ReaderOptions,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> Result<InputTally, InputError> {
    let names: Vec<String> = sources.iter().map(InputSource::name).collect();
    let deck = match &options.labels {
        Some(labels) => Some(labels.len()),
        None => options.deck,
    };
    let largest = options.largest();
    if let Some(n) = deck
        && !(2..=largest).contains(&n)
    {
        return Err(InputError {
            location: names.join(", "),
            message: format!(
                "decks of {n} cards cannot be tallied in this mode; give 2 to {largest} cards"
            ),
        });
    }
    let mut reader = Reader::new(options, deck);
    for (source, input) in sources.iter().zip(inputs) {
        let mut buffered = BufReader::with_capacity(1 << 20, input);
        reader.read(&source.name(), &mut buffered, stop, progress)?;
    }
    progress(reader.lines);
    if reader.permutations == 0 {
        return Err(InputError {
            location: names.join(", "),
            message: if reader.invalid > 0 {
                format!(
                    "no valid permutation: all {} non-blank lines were rejected",
                    reader.invalid
                )
            } else {
                "no permutations: the input is empty (one permutation per line, e.g. `2 0 3 1`)"
                    .to_string()
            },
        });
    }
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
        sources: names,
        interrupted: stop.load(Ordering::Relaxed),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marginal::MarginalTally;

    fn tally(text: &str, options: &ReaderOptions) -> Result<InputTally, InputError> {
        tally_bytes(text.as_bytes(), options)
    }

    fn tally_bytes(bytes: &[u8], options: &ReaderOptions) -> Result<InputTally, InputError> {
        let sources = [InputSource::File(PathBuf::from("deals.txt"))];
        let inputs: Vec<Box<dyn Read>> = vec![Box::new(io::Cursor::new(bytes.to_vec()))];
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
}
