//! The fast paths of a plain line: the label index, the sets of cards met, and the parsers of plain
//! numbers, of two-digit numbers and of labels, each checking the line as it goes.

use super::Numbering;
use crate::engine::algorithms::Card;
use crate::input::cards::CardNames;
use crate::input::avx2_line_parser::{self, AVX2_MAX_DECK};
use crate::input::wide_line_parser::{self, LONG_MAX_DECK, WIDE_MAX_DECK};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiplicative hash of one 16-byte word, for the label index: labels are a few bytes
/// long, where the standard library's DoS-resistant hash would cost more than the rest of the
/// lookup, and the keys come from the user's own `--labels`.
#[derive(Default)]
pub(super) struct WordHasher(u64);

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
pub(super) const SHORT_LABEL: usize = 16;

/// A short label or token as one word, zero-padded: unambiguous, since no token holds a NUL
/// (such lines are rejected before they are split).
#[inline(always)]
pub(super) fn label_word(token: &[u8]) -> u128 {
    debug_assert!(token.len() <= SHORT_LABEL);
    // Byte by byte: cheaper than a call to copy a few bytes.
    token
        .iter()
        .rev()
        .fold(0u128, |word, &byte| word << 8 | u128::from(byte))
}

/// Each label's card (its index in `--labels`), found in O(1) whatever the number of labels.
pub(super) struct LabelIndex<'a> {
    /// Labels of up to [`SHORT_LABEL`] bytes, by [`label_word`]: a lookup is one hash and one
    /// integer comparison.
    short: HashMap<u128, usize, BuildHasherDefault<WordHasher>>,
    /// Longer labels.
    long: HashMap<&'a [u8], usize>,
}

impl<'a> LabelIndex<'a> {
    /// The index of `--labels`: each label names the card of its place.
    pub(super) fn new(labels: &'a [String]) -> Self {
        Self::of(
            labels
                .iter()
                .enumerate()
                .map(|(card, label)| (label.as_str(), card)),
        )
    }

    /// The index of a set of card names: every spelling names its card.
    pub(super) fn of_names(names: CardNames) -> LabelIndex<'static> {
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
    pub(super) fn get(&self, token: &[u8]) -> Option<usize> {
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
pub(super) trait CardSet {
    /// Add `card` (below the deck size); false if it was already there.
    fn insert(&mut self, card: usize) -> bool;
}

/// A bit per card, for the full mode's small decks (n ≤ 32).
pub(super) struct CardBits(pub(super) u32);

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
pub(super) struct CardStamps {
    stamps: Vec<u32>,
    pub(super) stamp: u32,
}

impl CardStamps {
    /// A set for cards below `cards`.
    pub(super) fn new(cards: usize) -> Self {
        CardStamps {
            stamps: vec![0; cards],
            stamp: 0,
        }
    }

    /// Empty the set for a new line.
    #[inline(always)]
    pub(super) fn start_line(&mut self) -> &mut Self {
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
pub(super) const PLAIN_DIGITS: u32 = 4;

/// The fast path for the common line: exactly `count` integers (`n` for a permutation, K for a
/// deal) separated by single spaces, tabs or commas, each `offset..n + offset`, none repeated.
/// Writes them (shifted to 0-based) into `deck[..count]`; false for anything else (labels, comments, blank lines, two separators in a row
/// — which may be an empty field —, errors), which the careful parser then handles with its
/// exact messages.
#[inline(always)]
pub(super) fn parse_plain(
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
pub(super) const TWO_DIGIT_MIN_CARDS: usize = 16;

/// The largest card number (plus one) that [`parse_two_digits`] reads: 0..=99, one or two
/// digits, so decks of up to 100 cards numbered from 0 and 99 numbered from 1.
pub(super) const TWO_DIGIT_VALUES: usize = 100;

/// The separator mask of [`parse_two_digits`] holds this many 64-bit words: lines of up to
/// 317 bytes, longer than any valid line of at most 100 two-digit cards (289 bytes).
pub(super) const MASK_WORDS: usize = 5;

/// The size of [`parse_two_digits`]'s copy of a line: a power of two above 64·MASK_WORDS.
pub(super) const COPY: usize = 512;

/// The bytes that separate cards, as a set of bits (all below 64).
pub(super) const SEPARATORS: u64 = 1 << b' ' | 1 << b'\t' | 1 << b',';

/// Bit i set when byte i of `word` (little-endian) is below `'0'`: the separators, and any other
/// byte that a valid line cannot hold there (checked against [`SEPARATORS`] token by token).
#[inline(always)]
pub(super) fn below_digits(word: u64) -> u64 {
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
pub(super) static TOKEN_TAIL: [u8; 1 << 16] = token_tail_table();

/// [`TOKEN_TAIL`], computed at compile time.
pub(super) const fn token_tail_table() -> [u8; 1 << 16] {
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
pub(super) fn parse_two_digits(
    line: &[u8],
    count: usize,
    n: usize,
    offset: usize,
    deck: &mut [Card],
) -> bool {
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
pub(super) fn parse_labelled(
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

/// The vector reading of lines of one- or two-digit cards that this CPU runs (asked once, in
/// [`VectorLines::of_cpu`]): every one accepts the lines [`parse_two_digits`] accepts, with the
/// same cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum VectorLines {
    /// [`wide_line_parser::parse`] (AVX-512).
    Avx512,
    /// [`avx2_line_parser::parse`] (AVX2).
    Avx2,
    /// [`parse_two_digits`] alone.
    Scalar,
}

impl VectorLines {
    /// The widest reading this CPU runs.
    pub(super) fn of_cpu() -> Self {
        if wide_line_parser::available() {
            VectorLines::Avx512
        } else if avx2_line_parser::available() {
            VectorLines::Avx2
        } else {
            VectorLines::Scalar
        }
    }
}

/// [`parse_two_digits`], or a vector reading of the same lines (`vector`) when the deck has at
/// most 64 cards ([`WIDE_MAX_DECK`], [`AVX2_MAX_DECK`]).
#[inline(always)]
pub(super) fn two_digits(
    line: &[u8],
    count: usize,
    n: usize,
    offset: usize,
    deck: &mut [Card],
    vector: VectorLines,
) -> bool {
    match vector {
        VectorLines::Avx512 if n <= WIDE_MAX_DECK => {
            wide_line_parser::parse(line, count, n, offset, deck)
        }
        VectorLines::Avx2 if n <= AVX2_MAX_DECK => {
            avx2_line_parser::parse(line, count, n, offset, deck)
        }
        // 65 to 100 cards: the long lines' reading, the plain one for the lines it leaves.
        VectorLines::Avx512 => {
            wide_line_parser::parse_long(line, count, n, offset, 2, deck)
                || parse_two_digits(line, count, n, offset, deck)
        }
        _ => parse_two_digits(line, count, n, offset, deck),
    }
}

/// [`parse_plain`], or first, for decks of 101 to 256 cards on a CPU with AVX-512 (`vector`),
/// [`wide_line_parser::parse_long`] of tokens of up to three digits: the lines it leaves (a
/// four-digit token, say, or any error) go to `parse_plain`, so the same lines are accepted
/// with the same cards.
#[inline(always)]
fn plain(
    line: &[u8],
    count: usize,
    n: usize,
    offset: usize,
    deck: &mut [Card],
    seen: &mut impl CardSet,
    vector: VectorLines,
) -> bool {
    (vector == VectorLines::Avx512
        && n <= LONG_MAX_DECK
        && count >= TWO_DIGIT_MIN_CARDS
        && wide_line_parser::parse_long(line, count, n, offset, 3, deck))
        || parse_plain(line, count, n, offset, deck, seen)
}

/// The fast path for a line written as the first permutation was: `count` cards of a deck of
/// `n`; `vector`: the vector reading of two-digit lines this CPU runs.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn parse_fast(
    line: &[u8],
    count: usize,
    n: usize,
    numbering: Numbering,
    labels: Option<&LabelIndex>,
    deck: &mut [Card],
    seen: &mut impl CardSet,
    vector: VectorLines,
) -> bool {
    let short = count < TWO_DIGIT_MIN_CARDS;
    match (numbering, labels) {
        (Numbering::ZeroBased, _) if n <= TWO_DIGIT_VALUES && !short => {
            two_digits(line, count, n, 0, deck, vector)
        }
        (Numbering::OneBased, _) if n < TWO_DIGIT_VALUES && !short => {
            two_digits(line, count, n, 1, deck, vector)
        }
        (Numbering::ZeroBased, _) => plain(line, count, n, 0, deck, seen, vector),
        (Numbering::OneBased, _) => plain(line, count, n, 1, deck, seen, vector),
        (Numbering::Labels | Numbering::StandardCards, Some(labels)) => {
            parse_labelled(line, count, labels, deck, seen)
        }
        (Numbering::Labels | Numbering::StandardCards, None) => false,
    }
}
