//! Reading permutations that another program produced: one per line, streamed, tallied.
//!
//! Each line holds the deck after one shuffle: n tokens separated by spaces, tabs or commas —
//! integers 0..n−1 or 1..n, or labels given with `--labels` (their order is the starting order).
//! Blank lines and lines starting with `#` are skipped; CRLF is accepted. Every line is checked
//! (count, range, duplicates, numbering); a bad line is an error naming `FILE:LINE` and the
//! offending token, or, with `--skip-invalid`, a counted and sampled rejection. Memory is the
//! tally, not the input: lines are read one at a time from a large buffer.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use crate::algorithms::Card;
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

/// What to accept.
#[derive(Debug, Clone, Default)]
pub struct ReaderOptions {
    /// The deck size, if given (otherwise read off the first permutation).
    pub deck: Option<usize>,
    /// Card labels in starting order, if the input uses labels.
    pub labels: Option<Vec<String>>,
    /// Count bad lines instead of stopping at the first.
    pub skip_invalid: bool,
}

/// A rejected line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InvalidLine {
    /// `FILE:LINE`.
    pub location: String,
    /// What is wrong.
    pub problem: String,
}

/// The tally of an input, and what was read.
#[derive(Debug, Clone)]
pub struct InputTally {
    /// Number of cards.
    pub deck: usize,
    /// `counts[rank]`.
    pub counts: Vec<u64>,
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

/// The reading state carried across lines and files.
struct Reader<'a> {
    options: &'a ReaderOptions,
    deck: Option<usize>,
    numbering: Option<(Numbering, String)>,
    counts: Vec<u64>,
    permutations: u64,
    lines: u64,
    invalid: u64,
    invalid_examples: Vec<InvalidLine>,
}

/// Why one line is rejected.
type LineResult = Result<Option<usize>, String>;

impl Reader<'_> {
    /// The fast path for the common line: integers separated by single separators, deck size
    /// and numbering already known. Returns None for anything else (labels, comments, blank
    /// lines, errors), which the careful parser then handles with its exact messages.
    #[inline]
    fn parse_plain(&self, line: &[u8]) -> Option<usize> {
        let n = self.deck?;
        let offset = match self.numbering {
            Some((Numbering::ZeroBased, _)) => 0,
            Some((Numbering::OneBased, _)) => 1,
            _ => return None,
        };
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let mut deck = [0 as Card; MAX_FULL_DECK];
        let mut found = 0;
        let mut seen = 0u32;
        let mut value: usize = 0;
        let mut digits = 0;
        for &byte in line.iter().chain(std::iter::once(&b' ')) {
            match byte {
                b'0'..=b'9' => {
                    value = value * 10 + usize::from(byte - b'0');
                    digits += 1;
                }
                b' ' | b'\t' | b',' if digits > 0 && digits <= 2 => {
                    let card = value.checked_sub(offset)?;
                    if card >= n || found == n || seen & (1 << card) != 0 {
                        return None;
                    }
                    seen |= 1 << card;
                    deck[found] = card as Card;
                    found += 1;
                    value = 0;
                    digits = 0;
                }
                _ => return None,
            }
        }
        (found == n).then(|| rank(&deck[..n]))
    }

    /// Parse one line (without its newline); Ok(None) for a blank or comment line, Ok(rank) for a
    /// permutation.
    fn parse_line(&mut self, line: &[u8], location: &dyn Fn() -> String) -> LineResult {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let start = line
            .iter()
            .position(|&b| !matches!(b, b' ' | b'\t'))
            .unwrap_or(line.len());
        let content = &line[start..];
        if content.is_empty() || content[0] == b'#' {
            return Ok(None);
        }
        if content.contains(&0) {
            return Err("binary data (a NUL byte): expected text, one permutation per line".into());
        }
        let tokens = content
            .split(|&b| matches!(b, b' ' | b'\t' | b','))
            .filter(|token| !token.is_empty());
        let mut values = [0usize; MAX_FULL_DECK + 1];
        let mut found = 0;
        let expected = self.deck;
        for token in tokens {
            if found == values.len() || expected.is_some_and(|n| found == n) {
                return Err(format!(
                    "too many cards: expected {}, found more (extra token '{}')",
                    expected.unwrap_or(MAX_FULL_DECK),
                    shown(token)
                ));
            }
            values[found] = self.value_of(token)?;
            found += 1;
        }
        let n = match expected {
            Some(n) if n != found => {
                return Err(format!("expected {n} cards, found {found}"));
            }
            Some(n) => n,
            None => {
                if !(2..=MAX_FULL_DECK).contains(&found) {
                    return Err(format!(
                        "the first permutation has {found} cards; decks of 2 to {MAX_FULL_DECK} \
                         cards can be tallied"
                    ));
                }
                self.deck = Some(found);
                self.counts = vec![0; factorial(found) as usize];
                found
            }
        };
        let values = &values[..n];
        let numbering = if self.options.labels.is_some() {
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
        let mut deck = [0 as Card; MAX_FULL_DECK];
        let mut seen = 0u32;
        for (slot, &value) in deck.iter_mut().zip(values) {
            let card = value - offset;
            if seen & (1 << card) != 0 {
                let written = if numbering == Numbering::Labels {
                    self.options
                        .labels
                        .as_ref()
                        .map_or(String::new(), |l| l[card].clone())
                } else {
                    value.to_string()
                };
                return Err(format!("card '{written}' appears twice"));
            }
            seen |= 1 << card;
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
        Ok(Some(rank(&deck[..n])))
    }

    /// The value of one token: its index among the labels, or the integer it spells.
    fn value_of(&self, token: &[u8]) -> Result<usize, String> {
        if let Some(labels) = &self.options.labels {
            return labels
                .iter()
                .position(|label| label.as_bytes() == token)
                .ok_or_else(|| match std::str::from_utf8(token) {
                    Ok(_) => format!(
                        "unknown label '{}' (the labels are {})",
                        shown(token),
                        labels.join(",")
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
        if let Some(cell) = self.parse_plain(content) {
            self.counts[cell] += 1;
            self.permutations += 1;
            return Ok(());
        }
        {
            let location = || format!("{name}:{number}");
            match self.parse_line(content, &location) {
                Ok(Some(cell)) => {
                    self.counts[cell] += 1;
                    self.permutations += 1;
                }
                Ok(None) => {}
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
                    let hint = if self.options.skip_invalid {
                        ""
                    } else {
                        " (fix the line, or pass --skip-invalid to count and skip bad lines)"
                    };
                    return Err(InputError {
                        location: location(),
                        message: format!("{problem}{hint}"),
                    });
                }
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
    let mut reader = Reader {
        options,
        deck: options.deck,
        numbering: None,
        counts: options
            .deck
            .map_or_else(Vec::new, |n| vec![0; factorial(n) as usize]),
        permutations: 0,
        lines: 0,
        invalid: 0,
        invalid_examples: Vec::new(),
    };
    if let Some(labels) = &options.labels {
        reader.deck = Some(labels.len());
        reader.counts = vec![0; factorial(labels.len()) as usize];
    }
    for (source, input) in sources.iter().zip(inputs) {
        let mut buffered = BufReader::with_capacity(1 << 20, input);
        reader.read(&source.name(), &mut buffered, stop, progress)?;
    }
    progress(reader.lines);
    let names: Vec<String> = sources.iter().map(InputSource::name).collect();
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
        counts: reader.counts,
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
        assert_eq!(t.counts[0], 2);
        assert_eq!(t.counts[rank(&[2, 1, 0])], 1);
        assert_eq!(t.counts[rank(&[1, 0, 2])], 1);
    }

    #[test]
    fn one_based_lines_are_shifted_to_zero_based() {
        let t = tally("1 2 3\n3 2 1\n", &ReaderOptions::default()).unwrap();
        assert_eq!(t.numbering, Numbering::OneBased);
        assert_eq!(t.counts[0], 1);
        assert_eq!(t.counts[5], 1);
    }

    #[test]
    fn labels_fix_the_starting_order() {
        let options = ReaderOptions {
            labels: Some(vec!["A".into(), "K".into(), "Q".into(), "10".into()]),
            ..Default::default()
        };
        let t = tally("A K Q 10\n10 Q K A\n", &options).unwrap();
        assert_eq!(t.numbering, Numbering::Labels);
        assert_eq!(t.counts[0], 1);
        assert_eq!(t.counts[23], 1);
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
}
