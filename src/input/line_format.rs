//! The shapes a line of cards comes in, as programs print a deck: plain tokens (`3 0 1 2`,
//! `3,0,1,2`: Python's `print(*deck)`, JavaScript's `deck.join(" ")`), or a list in brackets —
//! a JSON array (`[3,0,1,2]`, JSON Lines whose lines are arrays), Python's `print(deck)`
//! (`[3, 0, 1, 2]`, `['As', 'Kd']`), Node's `console.log(deck)` (`[ 3, 0, 1, 2 ]`, over several
//! lines when long: the reader gathers such a list up to its `]`), NumPy's `[3 0 1 2]`.
//!
//! This module only splits one record (a line, or a list gathered over lines) into its tokens
//! and says which [`LineFormat`] it is; what a token means (a card number, a label) and whether
//! the cards make a permutation is the reader's business
//! ([`crate::input::permutation_reader`]). Plain lines keep the reader's fast paths; these
//! functions are its careful path.
//!
//! Inside brackets the separators are those of a plain line (runs of blanks holding at most one
//! comma), and a token may be quoted, in double quotes (JSON) or single ones (Python, Node), with
//! the escapes of JSON and Python (`\"`, `\\`, `\u2660`, `\x41`, …).

use serde::Serialize;

/// How the permutations of an input are written, detected from its first valid line; every
/// other line must be written the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LineFormat {
    /// Tokens separated by blanks or commas: `3 0 1 2`, `3,0,1,2`, `As Kd`.
    Plain,
    /// A list in brackets of numbers or bare labels: `[3,0,1,2]` (JSON), `[3, 0, 1, 2]`
    /// (Python), `[ 3, 0, 1, 2 ]` (Node, over several lines when long), `[3 0 1 2]` (NumPy).
    Brackets,
    /// A list in brackets of quoted labels: `["As", "Kd"]` (JSON), `['As', 'Kd']` (Python,
    /// Node).
    QuotedBrackets,
}

impl LineFormat {
    /// The format's name in the table's title.
    pub fn describe(self) -> &'static str {
        match self {
            LineFormat::Plain => "plain lines",
            LineFormat::Brackets => "lists in brackets",
            LineFormat::QuotedBrackets => "lists of quoted labels",
        }
    }

    /// The format with an example, as an error message says what it expected.
    pub fn example(self) -> &'static str {
        match self {
            LineFormat::Plain => "plain numbers or labels (`3 0 1 2`, `3,0,1,2`)",
            LineFormat::Brackets => "a list in brackets (`[3, 0, 1, 2]`)",
            LineFormat::QuotedBrackets => "a list of quoted labels (`[\"As\", \"Kd\"]`)",
        }
    }

    /// Whether this is one of the bracketed formats.
    pub fn bracketed(self) -> bool {
        self != LineFormat::Plain
    }
}

/// What an error says when no line has fixed the format yet.
pub const ANY_FORMAT: &str = "one permutation per line, as plain numbers (`3 0 1 2`, `3,0,1,2`) \
     or a list in brackets (`[3, 0, 1, 2]`, `[\"As\", \"Kd\"]`)";

/// How to print a deck that the reader reads, from the two languages most shuffles are in.
pub const HOW_TO_PRINT: &str = "to print one deck per line: from Python `print(*deck)` or \
     `print(json.dumps(deck))`, from JavaScript `console.log(deck.join(\" \"))` or \
     `console.log(JSON.stringify(deck))`";

/// Why a record is rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// What is wrong, as the report's examples of skipped lines show it.
    pub problem: String,
    /// The record cannot be read as any format (rather than being read and found no
    /// permutation): its error then shows the line, the format expected and how to print one.
    pub unreadable: bool,
}

impl Rejection {
    /// A record that cannot be read.
    pub fn unreadable(problem: impl Into<String>) -> Self {
        Rejection {
            problem: problem.into(),
            unreadable: true,
        }
    }
}

impl From<String> for Rejection {
    /// A record read and found no permutation (or deal).
    fn from(problem: String) -> Self {
        Rejection {
            problem,
            unreadable: false,
        }
    }
}

/// The format a record (without blanks at its start) is written in, as far as its first byte
/// tells: plain, or one of the bracketed formats ([`split`] tells which).
#[inline]
pub fn opens_brackets(record: &[u8]) -> bool {
    record.first() == Some(&b'[')
}

/// Whether a record that opens a list in brackets closes it (a `]` outside quotes): false for
/// the first line of a list printed over several (Node's `console.log` of a long array).
pub fn closes_list(record: &[u8]) -> bool {
    ListScan::default().closes(record)
}

/// The search for a list's closing `]` carried across the lines it is gathered from: whether
/// the bytes so far end inside a quote (and after a backslash there), so that each line is
/// scanned once, not the whole record again (which took minutes for a `[` followed by a
/// megabyte of newlines).
#[derive(Debug, Default, Clone, Copy)]
pub struct ListScan {
    quote: Option<u8>,
    escaped: bool,
}

impl ListScan {
    /// Scan `bytes`, the record's next part: whether a `]` outside quotes is among them.
    pub fn closes(&mut self, bytes: &[u8]) -> bool {
        for &byte in bytes {
            match self.quote {
                Some(_) if self.escaped => self.escaped = false,
                Some(_) if byte == b'\\' => self.escaped = true,
                Some(open) if byte == open => self.quote = None,
                Some(_) => {}
                None if byte == b'"' || byte == b'\'' => self.quote = Some(byte),
                None if byte == b']' => return true,
                None => {}
            }
        }
        false
    }
}

/// A token shown in a message: at most 40 characters, invalid UTF-8 escaped.
pub fn shown(token: &[u8]) -> String {
    shown_within(token, 40)
}

/// `text` shown in a message: at most `most` characters, invalid UTF-8 escaped.
pub fn shown_within(text: &[u8], most: usize) -> String {
    let text = String::from_utf8_lossy(text);
    let mut shown: String = text.chars().take(most).collect();
    if text.chars().count() > most {
        shown.push('…');
    }
    shown.escape_debug().to_string()
}

fn is_blank(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t')
}

/// Split `record` (not blank, without blanks at its start, a comment or a CR at its end) into
/// its tokens, calling `token` with each in order, and say its format. `scratch` holds a quoted
/// token whose escapes are resolved. The first error, of `token` or of the record's shape, ends
/// the splitting.
pub fn split(
    record: &[u8],
    scratch: &mut Vec<u8>,
    token: &mut dyn FnMut(&[u8]) -> Result<(), Rejection>,
) -> Result<LineFormat, Rejection> {
    if !opens_brackets(record) {
        split_tokens(record, false, scratch, token)?;
        return Ok(LineFormat::Plain);
    }
    if record[1..].iter().find(|&&b| !is_blank(b)) == Some(&b'[') {
        return Err(Rejection::unreadable(
            "a list of lists: print one permutation per line",
        ));
    }
    let Some(close) = closing_bracket(record) else {
        return Err(Rejection::unreadable(
            "the list in brackets has no closing ']'",
        ));
    };
    let after = &record[close + 1..];
    if let Some(extra) = after.iter().position(|&b| !is_blank(b)) {
        return Err(Rejection::unreadable(format!(
            "text after the list's closing ']': '{}'",
            shown(&after[extra..])
        )));
    }
    let inner = &record[1..close];
    if inner.iter().all(|&b| is_blank(b)) {
        return Ok(LineFormat::Brackets);
    }
    let quoted = split_tokens(inner, true, scratch, token)?;
    Ok(if quoted {
        LineFormat::QuotedBrackets
    } else {
        LineFormat::Brackets
    })
}

/// The place of the `]` that closes the list `record` opens (outside quotes).
fn closing_bracket(record: &[u8]) -> Option<usize> {
    let mut quote = None;
    let mut escaped = false;
    for (place, &byte) in record.iter().enumerate().skip(1) {
        match quote {
            Some(_) if escaped => escaped = false,
            Some(_) if byte == b'\\' => escaped = true,
            Some(open) if byte == open => quote = None,
            Some(_) => {}
            None if byte == b'"' || byte == b'\'' => quote = Some(byte),
            None if byte == b']' => return Some(place),
            None => {}
        }
    }
    None
}

/// The tokens of `text` (not blank, no blank at its start): separated by runs of blanks holding
/// at most one comma, so that a field with no token (a comma at either end, two commas) is an
/// error. In brackets (`list`) a token may be quoted; true when one was.
fn split_tokens(
    text: &[u8],
    list: bool,
    scratch: &mut Vec<u8>,
    token: &mut dyn FnMut(&[u8]) -> Result<(), Rejection>,
) -> Result<bool, Rejection> {
    let whole = if list { "list" } else { "line" };
    let mut quoted = false;
    let mut place = 0;
    let mut found = 0;
    let mut previous: &[u8] = &[];
    let skip_blanks = |mut place: usize| {
        while place < text.len() && is_blank(text[place]) {
            place += 1;
        }
        place
    };
    place = skip_blanks(place);
    loop {
        // At the start of a token.
        let byte = text[place];
        if byte == b',' {
            return Err(Rejection::unreadable(if found == 0 {
                format!("empty field 1: the {whole} starts with a comma")
            } else {
                format!(
                    "empty field {}: nothing between two commas after '{}'",
                    found + 1,
                    shown(previous)
                )
            }));
        }
        let end;
        let value: &[u8];
        if list && (byte == b'"' || byte == b'\'') {
            let (close, escaped) = closing_quote(text, place).ok_or_else(|| {
                Rejection::unreadable(format!(
                    "the quoted label {} has no closing {}",
                    shown(&text[place..]),
                    byte as char
                ))
            })?;
            let body = &text[place + 1..close];
            value = if escaped {
                unescape(body, scratch)?;
                scratch
            } else {
                body
            };
            quoted = true;
            end = close + 1;
            token(value)?;
            previous = &text[place..end];
        } else {
            end = place
                + text[place..]
                    .iter()
                    .position(|&b| is_blank(b) || b == b',')
                    .unwrap_or(text.len() - place);
            let bare = &text[place..end];
            if list {
                bare_in_list(bare)?;
            }
            token(bare)?;
            previous = bare;
        }
        found += 1;
        place = skip_blanks(end);
        if place == text.len() {
            return Ok(quoted);
        }
        if text[place] == b',' {
            place = skip_blanks(place + 1);
            if place == text.len() {
                return Err(Rejection::unreadable(format!(
                    "empty field {}: the {whole} ends with a comma after '{}'",
                    found + 1,
                    shown(previous)
                )));
            }
        } else if place == end {
            // A quoted token followed by anything but a separator.
            return Err(Rejection::unreadable(format!(
                "expected a comma or a blank after {}, found '{}'",
                shown(previous),
                shown(&text[place..])
            )));
        }
    }
}

/// Refuse the bare tokens in brackets that only a misread print holds.
fn bare_in_list(bare: &[u8]) -> Result<(), Rejection> {
    if bare == b"..." || bare == b"\xE2\x80\xA6" {
        return Err(Rejection::unreadable(
            "the list was shortened ('...'): Node prints at most 100 items of an array, NumPy \
             1000; print the whole deck, e.g. `console.log(JSON.stringify(deck))`",
        ));
    }
    if bare
        .iter()
        .any(|&b| matches!(b, b'[' | b']' | b'"' | b'\''))
    {
        return Err(Rejection::unreadable(format!(
            "'{}' is no card: a list holds card numbers or quoted labels, one list per line",
            shown(bare)
        )));
    }
    Ok(())
}

/// The place of the quote that closes the one at `open`, and whether a backslash came before.
fn closing_quote(text: &[u8], open: usize) -> Option<(usize, bool)> {
    let quote = text[open];
    let mut escaped = false;
    let mut place = open + 1;
    while place < text.len() {
        match text[place] {
            b'\\' => {
                escaped = true;
                place += 2;
            }
            byte if byte == quote => return Some((place, escaped)),
            _ => place += 1,
        }
    }
    None
}

/// A quoted token with its escapes resolved into `out`: those of JSON (`\"`, `\\`, `\/`, `\b`,
/// `\f`, `\n`, `\r`, `\t`, `\uXXXX` with surrogate pairs) and Python (`\'`, `\xXX`,
/// `\UXXXXXXXX`).
fn unescape(body: &[u8], out: &mut Vec<u8>) -> Result<(), Rejection> {
    out.clear();
    let bad =
        |what: &[u8]| Rejection::unreadable(format!("unknown escape '{}' in a label", shown(what)));
    let mut place = 0;
    while place < body.len() {
        if body[place] != b'\\' {
            out.push(body[place]);
            place += 1;
            continue;
        }
        let Some(&kind) = body.get(place + 1) else {
            return Err(bad(&body[place..]));
        };
        let simple = match kind {
            b'"' | b'\'' | b'\\' | b'/' => Some(kind),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            _ => None,
        };
        if let Some(byte) = simple {
            out.push(byte);
            place += 2;
            continue;
        }
        let digits = match kind {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => return Err(bad(&body[place..(place + 2).min(body.len())])),
        };
        let hex = |from: usize| -> Option<u32> {
            let text = std::str::from_utf8(body.get(from..from + digits)?).ok()?;
            u32::from_str_radix(text, 16).ok()
        };
        let whole = &body[place..(place + 2 + digits).min(body.len())];
        let mut code = hex(place + 2).ok_or_else(|| bad(whole))?;
        place += 2 + digits;
        // A UTF-16 surrogate pair, as JSON writes a character beyond the first plane.
        if kind == b'u' && (0xD800..0xDC00).contains(&code) {
            let low = (body.get(place..place + 2) == Some(b"\\u"))
                .then(|| hex(place + 2))
                .flatten()
                .filter(|low| (0xDC00..0xE000).contains(low))
                .ok_or_else(|| bad(whole))?;
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            place += 6;
        }
        let character = char::from_u32(code).ok_or_else(|| bad(whole))?;
        let mut buffer = [0; 4];
        out.extend_from_slice(character.encode_utf8(&mut buffer).as_bytes());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens of `record` and its format, or the problem.
    fn tokens(record: &str) -> Result<(Vec<String>, LineFormat), String> {
        let mut found = Vec::new();
        let mut scratch = Vec::new();
        split(record.as_bytes(), &mut scratch, &mut |token| {
            found.push(String::from_utf8(token.to_vec()).unwrap());
            Ok(())
        })
        .map(|format| (found, format))
        .map_err(|rejection| rejection.problem)
    }

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|word| word.to_string()).collect()
    }

    #[test]
    fn every_print_of_a_list_of_numbers_gives_the_same_tokens() {
        for record in [
            "[3,0,1,2]",
            "[3, 0, 1, 2]",
            "[ 3, 0, 1, 2 ]",
            "[3 0 1 2]",
            "[ 3  0  1  2]",
            "[3,0,1,2]  ",
        ] {
            assert_eq!(
                tokens(record),
                Ok((words(&["3", "0", "1", "2"]), LineFormat::Brackets)),
                "{record}"
            );
        }
        for record in ["3 0 1 2", "3,0,1,2", "3, 0 ,1\t2"] {
            assert_eq!(
                tokens(record),
                Ok((words(&["3", "0", "1", "2"]), LineFormat::Plain)),
                "{record}"
            );
        }
    }

    #[test]
    fn quoted_labels_in_either_quotes_lose_their_quotes_and_escapes() {
        for record in [
            r#"["As", "Kd"]"#,
            "['As', 'Kd']",
            "[ 'As', 'Kd' ]",
            r#"["As","Kd"]"#,
            r#"["\u0041s", "K\x64"]"#,
        ] {
            assert_eq!(
                tokens(record),
                Ok((words(&["As", "Kd"]), LineFormat::QuotedBrackets)),
                "{record}"
            );
        }
        // Python's json.dumps writes a spade as an escape, a surrogate pair beyond the plane.
        assert_eq!(
            tokens(r#"["A\u2660", "it's", "\ud83c\udca1", 'a\'b', "]"]"#),
            Ok((
                words(&["A♠", "it's", "🂡", "a'b", "]"]),
                LineFormat::QuotedBrackets
            ))
        );
    }

    #[test]
    fn a_misshapen_list_is_unreadable_with_its_reason() {
        for (record, problem) in [
            ("[3, 0, 1", "no closing ']'"),
            ("[3, 0] 1", "text after the list's closing ']': '1'"),
            (
                "[3,,0]",
                "empty field 2: nothing between two commas after '3'",
            ),
            (
                "[3, 0,]",
                "empty field 3: the list ends with a comma after '0'",
            ),
            ("[, 3]", "empty field 1: the list starts with a comma"),
            ("[[3, 0], [1, 2]]", "a list of lists"),
            ("[3, 0'1', 2]", "is no card"),
            ("['As', 'Kd]", "has no closing '"),
            (
                r#"["As""Kd"]"#,
                "expected a comma or a blank after \\\"As\\\"",
            ),
            (r#"["\q"]"#, "unknown escape '\\\\q'"),
            ("[0, 1, 2, ... 1 more item]", "the list was shortened"),
        ] {
            let found = tokens(record).unwrap_err();
            assert!(found.contains(problem), "{record}: {found}");
        }
    }

    #[test]
    fn a_list_closes_only_at_a_bracket_outside_quotes() {
        assert!(closes_list(b"[ 3, 0 ]"));
        assert!(!closes_list(b"["));
        assert!(!closes_list(b"[ ']', \"]\""));
        assert!(closes_list(b"[ ']', \"\\\"]\" ]"));
    }

    #[test]
    fn a_list_scanned_line_by_line_closes_where_the_whole_record_does() {
        // Every split of each record into two parts: the carried scan closes exactly when the
        // whole record's scan does (quotes and escapes spanning the split included).
        let records: [&[u8]; 6] = [
            b"[ 3, 0 ]",
            b"[ ']', \"]\"",
            b"[ ']', \"\\\"]\" ]",
            b"[ 'a\\'b', ] ",
            b"[ \"x\\\\\" ]",
            b"[ 1,\n 2,\n 3 ]",
        ];
        for record in records {
            for split in 0..=record.len() {
                let mut scan = ListScan::default();
                let (first, rest) = record.split_at(split);
                let closed = scan.closes(first) || scan.closes(rest);
                assert_eq!(
                    closed,
                    closes_list(record),
                    "{:?} split at {split}",
                    String::from_utf8_lossy(record)
                );
            }
        }
    }
}
