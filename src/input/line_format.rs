//! The shapes a line of cards comes in, as programs print a deck: plain tokens (`3 0 1 2`,
//! `3,0,1,2`: Python's `print(*deck)`, JavaScript's `deck.join(" ")`), or a list in brackets —
//! a JSON array (`[3,0,1,2]`, JSON Lines whose lines are arrays), Python's `print(deck)`
//! (`[3, 0, 1, 2]`, `['As', 'Kd']`), Node's `console.log(deck)` (`[ 3, 0, 1, 2 ]`, over several
//! lines when long: the reader gathers such a list up to its `]`), NumPy's `[3 0 1 2]`; or a
//! list in a wrapper ([`Wrapping`]) that other prints put around it, each recognised exactly as
//! its program spells it (a near miss, `foo(3)`, stays an error): Python's tuple `(3, 0, 1, 2)`
//! and `array('i', [3, 0, 1, 2])`, NumPy 2's scalars `[np.int64(3), …]` and `repr` of an array
//! `array([3, 0, 1, 2], dtype=int8)`, Node's typed arrays `Uint8Array(4) [ 3, 0, 1, 2 ]`, R's
//! vector `[1] 3 1 4 2`, whose lines, when it is long, each start with the index of their first
//! item. The [`Shape`] of a record (format, wrapper, NumPy scalar type) is what every line of an
//! input must share; the report's [`LineFormat`] is its coarse part.
//!
//! This module only splits one record (a line, or a list gathered over lines) into its tokens
//! and says its [`Shape`]; what a token means (a card number, a label) and whether
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

/// How a list is wrapped, as the program that printed it writes one: what a line's
/// [`LineFormat`] (plain, a list, a list of quoted labels) leaves out. Every record of an input
/// is wrapped the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapping {
    /// No wrapper: a plain line, or a list in brackets (`[3, 0, 1, 2]`, `[3 0 1 2]`).
    None,
    /// Python's `print(tuple(deck))`: `(3, 0, 1, 2)`, `(3,)`.
    Tuple,
    /// NumPy's `repr` of an array: `array([3, 0, 1, 2])`, `array([3, 0], dtype=int8)`, over
    /// several lines when long.
    NumpyArray,
    /// Python's `array` module: `array('i', [3, 0, 1, 2])`.
    PythonArray,
    /// Node's `console.log` of a typed array: `Uint8Array(4) [ 3, 0, 1, 2 ]`, over several
    /// lines when long.
    TypedArray(TypedArray),
    /// R's `print` of a vector: `[1] 3 1 4 2`, each line of a long one headed by `[k]`, the
    /// index of its first item.
    RVector,
}

/// One of Node's typed arrays, by its place in [`TYPED_ARRAYS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypedArray(u8);

/// The typed arrays whose `console.log` is read (`Uint8Array(4) [ 3, 0, 1, 2 ]`). The longer
/// of two names sharing a start comes first (`Uint8ClampedArray` before `Uint8Array`).
const TYPED_ARRAYS: [&str; 11] = [
    "Int8Array",
    "Uint8ClampedArray",
    "Uint8Array",
    "Int16Array",
    "Uint16Array",
    "Int32Array",
    "Uint32Array",
    "Float32Array",
    "Float64Array",
    "BigInt64Array",
    "BigUint64Array",
];

impl TypedArray {
    /// Its name, as Node prints it.
    pub fn name(self) -> &'static str {
        TYPED_ARRAYS[usize::from(self.0)]
    }

    /// Whether its items are BigInts, printed with an `n` (`3n`).
    fn big(self) -> bool {
        self.name().starts_with("Big")
    }
}

/// One of NumPy's scalar types as NumPy 2 prints a scalar (`np.int64(3)`, `np.str_('As')`),
/// by its place in [`NUMPY_SCALARS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumpyScalar(u8);

/// The NumPy scalar types that hold a card: the integers, and strings for labels.
const NUMPY_SCALARS: [&str; 9] = [
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "str_",
];

impl NumpyScalar {
    /// Its name after `np.`.
    pub fn name(self) -> &'static str {
        NUMPY_SCALARS[usize::from(self.0)]
    }

    /// Whether it holds a string (`np.str_('As')`).
    fn string(self) -> bool {
        self.name() == "str_"
    }
}

/// The dtypes NumPy's `repr` of an array of cards may end with (`dtype=int8`); an array of
/// strings ends with a quoted one (`dtype='<U3'`).
const NUMPY_DTYPES: [&str; 9] = [
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "object",
];

/// The type codes of Python's `array` module that hold integers.
const PYTHON_ARRAY_CODES: &[u8] = b"bBhHiIlLqQ";

/// How one record is written: its [`LineFormat`], its [`Wrapping`], and the NumPy scalar type
/// of its items if they are written as such (`[np.int64(3), np.int64(0)]`). Every record of an
/// input is written the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Plain, a list, or a list of quoted labels.
    pub format: LineFormat,
    /// The list's wrapper.
    pub wrapping: Wrapping,
    /// The NumPy scalar type of its items, if they are written as NumPy 2 prints a scalar.
    pub scalars: Option<NumpyScalar>,
}

impl Shape {
    /// A record of plain tokens.
    pub const PLAIN: Shape = Shape {
        format: LineFormat::Plain,
        wrapping: Wrapping::None,
        scalars: None,
    };

    /// What a record of this shape is, as a message names it ("a plain line", "a Python
    /// tuple").
    pub fn describe(self) -> String {
        let list = match self.wrapping {
            Wrapping::None => match self.format {
                LineFormat::Plain => "a plain line".to_string(),
                LineFormat::Brackets => "a list in brackets".to_string(),
                LineFormat::QuotedBrackets => "a list of quoted labels".to_string(),
            },
            Wrapping::Tuple => "a Python tuple".to_string(),
            Wrapping::NumpyArray => "a NumPy array (`array([…])`)".to_string(),
            Wrapping::PythonArray => "a Python array (`array('i', […])`)".to_string(),
            Wrapping::TypedArray(typed) => format!("a Node {}", typed.name()),
            Wrapping::RVector => "an R vector (`[1] …`)".to_string(),
        };
        match self.scalars {
            Some(scalar) => format!("{list} of NumPy scalars (`np.{}(…)`)", scalar.name()),
            None => list,
        }
    }

    /// The shape with an example, as an error message says what it expected.
    pub fn example(self) -> String {
        let numbers = self.format != LineFormat::QuotedBrackets;
        match (self.wrapping, self.scalars) {
            (_, Some(scalar)) if scalar.string() => {
                "a list of NumPy strings (`[np.str_('As'), np.str_('Kd')]`)".to_string()
            }
            (_, Some(scalar)) => format!(
                "a list of NumPy scalars (`[np.{0}(3), np.{0}(0)]`)",
                scalar.name()
            ),
            (Wrapping::None, None) => self.format.example().to_string(),
            (Wrapping::Tuple, None) if numbers => "a Python tuple (`(3, 0, 1, 2)`)".to_string(),
            (Wrapping::Tuple, None) => "a Python tuple (`('As', 'Kd')`)".to_string(),
            (Wrapping::NumpyArray, None) if numbers => {
                "a NumPy array (`array([3, 0, 1, 2])`)".to_string()
            }
            (Wrapping::NumpyArray, None) => {
                "a NumPy array (`array(['As', 'Kd'], dtype='<U2')`)".to_string()
            }
            (Wrapping::PythonArray, None) => {
                "a Python array (`array('i', [3, 0, 1, 2])`)".to_string()
            }
            (Wrapping::TypedArray(typed), None) => {
                format!("a Node {0} (`{0}(4) [ 3, 0, 1, 2 ]`)", typed.name())
            }
            (Wrapping::RVector, None) if numbers => "an R vector (`[1] 3 1 4 2`)".to_string(),
            (Wrapping::RVector, None) => "an R vector (`[1] \"As\" \"Kd\"`)".to_string(),
        }
    }
}

/// Whether a record (without blanks at its start) opens a list of any wrapping (`[`, `(`,
/// `array(`, `Uint8Array(`…) rather than being a plain line; [`split`] tells which.
#[inline]
pub fn opens_list(record: &[u8]) -> bool {
    match record.first() {
        Some(b'[' | b'(') => true,
        Some(b'a') => record.starts_with(b"array("),
        Some(b'I' | b'U' | b'F' | b'B') => typed_array(record).is_some(),
        _ => false,
    }
}

/// The index `k` that heads a line of R's `print` of a vector (`[k]`, then blanks and an item;
/// the blanks that align it before are the caller's to skip): 1 on a vector's first line, the
/// index of the line's first item on the next ones. None for any other record, a JSON list
/// included (`[3]`, `[3]  `).
pub fn r_vector_index(record: &[u8]) -> Option<usize> {
    let digits = record.strip_prefix(b"[")?;
    let close = digits.iter().position(|&b| !b.is_ascii_digit())?;
    let after = &digits[close + 1..];
    let spaced = after.first().is_some_and(|&b| is_blank(b));
    if close == 0 || close > 9 || digits[close] != b']' || !spaced || skip_blanks(after).is_empty()
    {
        return None;
    }
    std::str::from_utf8(&digits[..close]).ok()?.parse().ok()
}

/// The typed array whose `console.log` a record starts with (`Uint8Array(`), and the rest of
/// the record after its name.
fn typed_array(record: &[u8]) -> Option<(TypedArray, &[u8])> {
    TYPED_ARRAYS.iter().enumerate().find_map(|(place, name)| {
        let rest = record.strip_prefix(name.as_bytes())?;
        (rest.first() == Some(&b'(')).then_some((TypedArray(place as u8), rest))
    })
}

/// Whether a record that opens a list (`[`, `array(`, `Uint8Array(`…) closes it: false for
/// the first line of a list printed over several (Node's `console.log` of a long array,
/// NumPy's `repr` of one).
pub fn closes_list(record: &[u8]) -> bool {
    ListScan::opening(record).is_none_or(|mut scan| scan.closes(record))
}

/// The search for a list's closing `]` (or for NumPy's and Python's `array(`, its `)`: NumPy
/// may print the `dtype=` on a line of its own) carried across the lines it is gathered from:
/// whether the bytes so far end inside a quote (and after a backslash there), so that each line
/// is scanned once, not the whole record again (which took minutes for a `[` followed by a
/// megabyte of newlines).
#[derive(Debug, Clone, Copy)]
pub struct ListScan {
    close: u8,
    quote: Option<u8>,
    escaped: bool,
}

impl ListScan {
    /// The search for the end of the list that `record` opens, when such a list may be printed
    /// over several lines: a list in brackets (not an R vector), NumPy's or Python's `array(`,
    /// or Node's typed array. None for a record that is one line, whole or not: a plain line, a
    /// tuple, an R vector (whose lines [`r_vector_index`] tells).
    pub fn opening(record: &[u8]) -> Option<ListScan> {
        let close = match record.first()? {
            b'[' if r_vector_index(record).is_none() => b']',
            b'a' if record.starts_with(b"array(") => b')',
            b'I' | b'U' | b'F' | b'B' if typed_array(record).is_some() => b']',
            _ => return None,
        };
        Some(ListScan {
            close,
            quote: None,
            escaped: false,
        })
    }

    /// Scan `bytes`, the record's next part: whether the list's closing byte, outside quotes,
    /// is among them.
    pub fn closes(&mut self, bytes: &[u8]) -> bool {
        for &byte in bytes {
            match self.quote {
                Some(_) if self.escaped => self.escaped = false,
                Some(_) if byte == b'\\' => self.escaped = true,
                Some(open) if byte == open => self.quote = None,
                Some(_) => {}
                None if byte == b'"' || byte == b'\'' => self.quote = Some(byte),
                None if byte == self.close => return true,
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

/// `text` without the blanks at its start.
fn skip_blanks(text: &[u8]) -> &[u8] {
    let start = text.iter().position(|&b| !is_blank(b)).unwrap_or(text.len());
    &text[start..]
}

/// A token callback, as [`split`] takes one.
type TokenSink<'a> = &'a mut dyn FnMut(&[u8]) -> Result<(), Rejection>;

/// Split `record` (not blank, without blanks at its start, a comment or a CR at its end) into
/// its tokens, calling `token` with each in order, and say its [`Shape`]. `scratch` holds a
/// quoted token whose escapes are resolved. The first error, of `token` or of the record's
/// shape, ends the splitting.
pub fn split(record: &[u8], scratch: &mut Vec<u8>, token: TokenSink) -> Result<Shape, Rejection> {
    let shape = |items: Items, wrapping| Shape {
        format: if items.quoted {
            LineFormat::QuotedBrackets
        } else {
            LineFormat::Brackets
        },
        wrapping,
        scalars: items.scalars,
    };
    match record[0] {
        b'[' if r_vector_index(record).is_some() => {
            let items = split_r_vector(record, scratch, token)?;
            Ok(shape(items, Wrapping::RVector))
        }
        b'[' => {
            let (items, after) = split_list(record, b']', true, scratch, token)?;
            nothing_after(after, "list's closing ']'")?;
            Ok(shape(items, Wrapping::None))
        }
        b'(' => {
            let items = split_tuple(record, scratch, token)?;
            Ok(shape(items, Wrapping::Tuple))
        }
        b'a' if record.starts_with(b"array(") => split_array(&record[5..], scratch, token),
        _ => match typed_array(record) {
            Some((typed, rest)) => {
                let items = split_typed_array(typed, rest, scratch, token)?;
                Ok(shape(items, Wrapping::TypedArray(typed)))
            }
            None => {
                split_tokens(record, Syntax::PLAIN, scratch, token)?;
                Ok(Shape::PLAIN)
            }
        },
    }
}

/// What the items of a list were written as.
#[derive(Debug, Clone, Copy, Default)]
struct Items {
    /// How many there are.
    count: usize,
    /// Whether they were quoted labels.
    quoted: bool,
    /// The NumPy scalar type they were written in, if any.
    scalars: Option<NumpyScalar>,
}

/// The list that `record` opens with `record[0]`, up to the `close` outside quotes that ends
/// it: its items (NumPy scalars allowed when `scalars`) and the text after it.
fn split_list<'r>(
    record: &'r [u8],
    close: u8,
    scalars: bool,
    scratch: &mut Vec<u8>,
    token: TokenSink,
) -> Result<(Items, &'r [u8]), Rejection> {
    let what = if close == b')' { "tuple" } else { "list in brackets" };
    if matches!(skip_blanks(&record[1..]).first(), Some(b'[' | b'(')) {
        return Err(Rejection::unreadable(
            "a list of lists: print one permutation per line",
        ));
    }
    let Some(end) = closing(record, close) else {
        return Err(Rejection::unreadable(format!(
            "the {what} has no closing '{}'",
            close as char
        )));
    };
    let inner = &record[1..end];
    let syntax = Syntax {
        list: true,
        scalars,
    };
    let items = if inner.iter().all(|&b| is_blank(b)) {
        Items::default()
    } else {
        split_tokens(inner, syntax, scratch, token)?
    };
    Ok((items, &record[end + 1..]))
}

/// Refuse text after a record's end (`after`, what follows `closer`).
fn nothing_after(after: &[u8], closer: &str) -> Result<(), Rejection> {
    match skip_blanks(after) {
        [] => Ok(()),
        extra => Err(Rejection::unreadable(format!(
            "text after the {closer}: '{}'",
            shown(extra)
        ))),
    }
}

/// A Python tuple, `(3, 0, 1, 2)`: a list in parentheses, with a comma after its item when it
/// has one only (`(3,)`), as Python prints it.
fn split_tuple(record: &[u8], scratch: &mut Vec<u8>, token: TokenSink) -> Result<Items, Rejection> {
    let Some(end) = closing(record, b')') else {
        return Err(Rejection::unreadable("the tuple has no closing ')'"));
    };
    nothing_after(&record[end + 1..], "tuple's closing ')'")?;
    // Python's comma after the one item of a tuple, taken off before the items are split.
    let inner = &record[..end];
    let trimmed_end = inner.iter().rposition(|&b| !is_blank(b)).unwrap_or(0);
    let single = inner[trimmed_end] == b',' && trimmed_end > 0;
    let owned: Vec<u8>;
    let record = if single {
        owned = [&inner[..trimmed_end], b")"].concat();
        &owned[..]
    } else {
        &record[..=end]
    };
    let (items, _) = split_list(record, b')', true, scratch, token)?;
    match (single, items.count) {
        (true, count) if count != 1 => Err(Rejection::unreadable(format!(
            "empty field {}: the tuple ends with a comma, which Python prints only after the \
             one item of a tuple, `(3,)`",
            count + 1
        ))),
        (false, 1) => Err(Rejection::unreadable(
            "a tuple of one item without its comma: Python prints `(3,)`, and `(3)` is the \
             number 3",
        )),
        _ => Ok(items),
    }
}

/// NumPy's `repr` of an array (`array([3, 0, 1, 2])`, `array([3, 0], dtype=int8)`,
/// `array(['As', 'Kd'], dtype='<U2')`) or Python's `array('i', [3, 0, 1, 2])`; `record` is
/// what follows `array`, from its `(`.
fn split_array(record: &[u8], scratch: &mut Vec<u8>, token: TokenSink) -> Result<Shape, Rejection> {
    let body = &record[1..];
    if body.first() == Some(&b'[') {
        let (items, after) = split_list(body, b']', false, scratch, token)?;
        let after = numpy_dtype(skip_blanks(after))?;
        let after = after.strip_prefix(b")").ok_or_else(|| {
            Rejection::unreadable(format!(
                "expected ')' or ', dtype=…)' after the NumPy array's ']', found '{}'",
                shown(after)
            ))
        })?;
        nothing_after(after, "array's closing ')'")?;
        return Ok(Shape {
            format: if items.quoted {
                LineFormat::QuotedBrackets
            } else {
                LineFormat::Brackets
            },
            wrapping: Wrapping::NumpyArray,
            scalars: None,
        });
    }
    // Python's array module: `array('i', [...])`, of integers only.
    let code = match body {
        [b'\'', code, b'\'', ..] => *code,
        _ => {
            return Err(Rejection::unreadable(format!(
                "'array({}' is neither NumPy's `array([…])` nor Python's `array('i', […])`",
                shown(body)
            )));
        }
    };
    if !PYTHON_ARRAY_CODES.contains(&code) {
        return Err(Rejection::unreadable(format!(
            "array('{}', …) holds no card numbers: Python arrays of integers (type codes b, B, \
             h, H, i, I, l, L, q, Q) do",
            shown(&[code])
        )));
    }
    let Some(list) = body[3..].strip_prefix(b", ") else {
        return Err(Rejection::unreadable(format!(
            "expected ', [' after array('{}', found '{}'",
            code as char,
            shown(&body[3..])
        )));
    };
    if list.first() != Some(&b'[') {
        return Err(Rejection::unreadable(format!(
            "expected a list after `array('{}', `, found '{}'",
            code as char,
            shown(list)
        )));
    }
    let (items, after) = split_list(list, b']', false, scratch, token)?;
    if items.quoted {
        return Err(Rejection::unreadable(
            "a Python array of integers holds no quoted labels",
        ));
    }
    let after = after.strip_prefix(b")").ok_or_else(|| {
        Rejection::unreadable(format!(
            "expected ')' after the Python array's ']', found '{}'",
            shown(after)
        ))
    })?;
    nothing_after(after, "array's closing ')'")?;
    Ok(Shape {
        format: LineFormat::Brackets,
        wrapping: Wrapping::PythonArray,
        scalars: None,
    })
}

/// The text after NumPy's `, dtype=…` (`int8`, `object`, `'<U3'`), when `after` (the text after
/// the array's `]`, from its first non-blank) holds one; `after` itself otherwise.
fn numpy_dtype(after: &[u8]) -> Result<&[u8], Rejection> {
    let Some(rest) = after.strip_prefix(b",") else {
        return Ok(after);
    };
    let bad = || {
        Rejection::unreadable(format!(
            "expected ', dtype=…)' after the NumPy array's ']' (an integer dtype, object, or \
             '<U…' for labels), found '{}'",
            shown(after)
        ))
    };
    let rest = skip_blanks(rest).strip_prefix(b"dtype=").ok_or_else(bad)?;
    let named = NUMPY_DTYPES.iter().find_map(|name| {
        rest.strip_prefix(name.as_bytes())
            .filter(|rest| !rest.first().is_some_and(u8::is_ascii_alphanumeric))
    });
    if let Some(rest) = named {
        return Ok(skip_blanks(rest));
    }
    // A string dtype: '<U3', '>U3' or '=U3'.
    if let [b'\'', b'<' | b'>' | b'=', b'U', rest @ ..] = rest {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits > 0 && rest.get(digits) == Some(&b'\'') {
            return Ok(skip_blanks(&rest[digits + 1..]));
        }
    }
    Err(bad())
}

/// Node's `console.log` of a typed array: `Uint8Array(4) [ 3, 0, 1, 2 ]` (BigInts written
/// `3n`); `rest` is what follows its name, from the `(` of its length, which must be the
/// number of its items.
fn split_typed_array(
    typed: TypedArray,
    rest: &[u8],
    scratch: &mut Vec<u8>,
    token: TokenSink,
) -> Result<Items, Rejection> {
    let name = typed.name();
    let digits = rest[1..].iter().take_while(|b| b.is_ascii_digit()).count();
    let list = (digits > 0 && rest.get(1 + digits) == Some(&b')'))
        .then(|| &rest[2 + digits..])
        .filter(|list| list.first().is_some_and(|&b| is_blank(b)))
        .map(skip_blanks)
        .filter(|list| list.first() == Some(&b'['))
        .ok_or_else(|| {
            Rejection::unreadable(format!(
                "expected '{name}(LENGTH) [' as Node prints a typed array, found '{name}{}'",
                shown(rest)
            ))
        })?;
    let length: usize = std::str::from_utf8(&rest[1..1 + digits])
        .ok()
        .and_then(|digits| digits.parse().ok())
        .unwrap_or(usize::MAX);
    let (items, after) = if typed.big() {
        let mut bigint = |item: &[u8]| {
            let number = item.strip_suffix(b"n").ok_or_else(|| {
                Rejection::unreadable(format!(
                    "'{}' is no item of a {name}, whose BigInts Node prints with an 'n' (`3n`)",
                    shown(item)
                ))
            })?;
            token(number)
        };
        split_list(list, b']', false, scratch, &mut bigint)?
    } else {
        split_list(list, b']', false, scratch, token)?
    };
    nothing_after(after, "list's closing ']'")?;
    if items.quoted {
        return Err(Rejection::unreadable(format!(
            "a {name} holds numbers, not quoted labels"
        )));
    }
    if items.count != length {
        return Err(Rejection::unreadable(format!(
            "{name}({length}) holds {} items: print the whole array",
            items.count
        )));
    }
    Ok(items)
}

/// R's `print` of a vector: `[1] 3 1 4 2` (`[1] "As" "Kd"` for labels), each line of a long
/// one (gathered into `record`, joined by blanks) headed by `[k]`, the index of its first item,
/// which must be the number of the items before it plus one. Items are separated by blanks
/// only.
fn split_r_vector(
    record: &[u8],
    scratch: &mut Vec<u8>,
    token: TokenSink,
) -> Result<Items, Rejection> {
    let mut items = Items::default();
    let mut rest = record;
    while !rest.is_empty() {
        if let Some(index) = r_vector_index(rest) {
            if index != items.count + 1 {
                return Err(Rejection::unreadable(if items.count == 0 {
                    format!(
                        "the R vector starts at [{index}], not [1]: the line that began it is \
                         missing"
                    )
                } else {
                    format!(
                        "a line of the R vector starts at [{index}] after {} items, not [{}]",
                        items.count,
                        items.count + 1
                    )
                }));
            }
            rest = skip_blanks(&rest[rest.iter().position(|&b| b == b']').unwrap_or(0) + 1..]);
            if rest.is_empty() || r_vector_index(rest).is_some() {
                return Err(Rejection::unreadable(format!(
                    "the R vector's line [{index}] holds no item"
                )));
            }
            continue;
        }
        let end;
        if rest[0] == b'"' {
            let (close, escaped) = closing_quote(rest, 0).ok_or_else(|| {
                Rejection::unreadable(format!(
                    "the quoted label {} has no closing \"",
                    shown(rest)
                ))
            })?;
            let body = &rest[1..close];
            if escaped {
                unescape(body, scratch)?;
                token(&scratch[..])?;
            } else {
                token(body)?;
            }
            items.quoted = true;
            end = close + 1;
            if rest.get(end).is_some_and(|&b| !is_blank(b)) {
                return Err(Rejection::unreadable(format!(
                    "expected a blank after {} in the R vector, found '{}'",
                    shown(&rest[..end]),
                    shown(&rest[end..])
                )));
            }
        } else {
            end = rest.iter().position(|&b| is_blank(b)).unwrap_or(rest.len());
            let bare = &rest[..end];
            if bare.iter().any(|&b| matches!(b, b',' | b'[' | b']' | b'"' | b'\'')) {
                return Err(Rejection::unreadable(format!(
                    "'{}' is no item of an R vector, whose items R prints separated by blanks",
                    shown(bare)
                )));
            }
            token(bare)?;
        }
        items.count += 1;
        rest = skip_blanks(&rest[end..]);
    }
    Ok(items)
}

/// The place of the `close` that ends the list `record` opens at its first byte (outside
/// quotes, and past those that close the same byte opened again inside: a tuple's NumPy
/// scalars, `(np.int64(3),)`).
fn closing(record: &[u8], close: u8) -> Option<usize> {
    let open = record[0];
    let mut depth = 0usize;
    let mut quote = None;
    let mut escaped = false;
    for (place, &byte) in record.iter().enumerate().skip(1) {
        match quote {
            Some(_) if escaped => escaped = false,
            Some(_) if byte == b'\\' => escaped = true,
            Some(open) if byte == open => quote = None,
            Some(_) => {}
            None if byte == b'"' || byte == b'\'' => quote = Some(byte),
            None if byte == open => depth += 1,
            None if byte == close && depth == 0 => return Some(place),
            None if byte == close => depth -= 1,
            None => {}
        }
    }
    None
}

/// How the tokens of a text are written.
#[derive(Debug, Clone, Copy)]
struct Syntax {
    /// In a list: a token may be quoted.
    list: bool,
    /// In a Python list or tuple: a token may be a NumPy scalar (`np.int64(3)`).
    scalars: bool,
}

impl Syntax {
    /// A plain line's.
    const PLAIN: Syntax = Syntax {
        list: false,
        scalars: false,
    };
}

/// A NumPy scalar read at the start of a text.
struct Scalar<'t> {
    /// Its type.
    kind: NumpyScalar,
    /// Its value: the number, or the label without its quotes (in `scratch` when escaped).
    value: &'t [u8],
    /// Whether the value was a quoted label.
    quoted: bool,
    /// The length of its text, `np.int64(3)`.
    length: usize,
}

/// The NumPy scalar that `text` starts with (`np.int64(3)`, `np.str_('As')`). None when `text`
/// does not start with `np.`.
fn numpy_scalar<'t>(
    text: &'t [u8],
    scratch: &'t mut Vec<u8>,
) -> Option<Result<Scalar<'t>, Rejection>> {
    let rest = text.strip_prefix(b"np.")?;
    let known = NUMPY_SCALARS.iter().enumerate().find_map(|(place, name)| {
        let value = rest.strip_prefix(name.as_bytes())?.strip_prefix(b"(")?;
        Some((NumpyScalar(place as u8), value))
    });
    let Some((scalar, value)) = known else {
        let name_end = text
            .iter()
            .position(|&b| matches!(b, b'(' | b',') || is_blank(b))
            .unwrap_or(text.len());
        return Some(Err(Rejection::unreadable(format!(
            "'{}' is no card: NumPy scalars of integers (`np.int64(3)`) or strings \
             (`np.str_('As')`) are",
            shown(&text[..name_end])
        ))));
    };
    let start = text.len() - value.len();
    // The scalar shown up to where its `)` should have been.
    let unclosed = |upto: usize| {
        Rejection::unreadable(format!(
            "the NumPy scalar '{}' has no closing ')'",
            shown(&text[..upto.min(text.len())])
        ))
    };
    if scalar.string() {
        if !matches!(value.first(), Some(b'\'' | b'"')) {
            return Some(Err(Rejection::unreadable(format!(
                "np.str_ holds a quoted label (`np.str_('As')`), found '{}'",
                shown(text)
            ))));
        }
        let Some((close, escaped)) = closing_quote(text, start) else {
            return Some(Err(unclosed(text.len())));
        };
        if text.get(close + 1) != Some(&b')') {
            return Some(Err(unclosed(close + 1)));
        }
        let body = &text[start + 1..close];
        if escaped {
            if let Err(rejection) = unescape(body, scratch) {
                return Some(Err(rejection));
            }
            return Some(Ok(Scalar {
                kind: scalar,
                value: &scratch[..],
                quoted: true,
                length: close + 2,
            }));
        }
        return Some(Ok(Scalar {
            kind: scalar,
            value: body,
            quoted: true,
            length: close + 2,
        }));
    }
    let digits = value.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        let upto = text.iter().position(|&b| b == b')').map_or(text.len(), |at| at + 1);
        return Some(Err(Rejection::unreadable(format!(
            "the NumPy scalar '{}' holds no card number",
            shown(&text[..upto])
        ))));
    }
    if value.get(digits) != Some(&b')') {
        return Some(Err(unclosed(start + digits)));
    }
    Some(Ok(Scalar {
        kind: scalar,
        value: &value[..digits],
        quoted: false,
        length: start + digits + 1,
    }))
}

/// The tokens of `text` (not blank, no blank at its start): separated by runs of blanks holding
/// at most one comma, so that a field with no token (a comma at either end, two commas) is an
/// error. In a list a token may be quoted, and a NumPy scalar where `syntax` allows; the items'
/// count and what they were written as are returned.
fn split_tokens(
    text: &[u8],
    syntax: Syntax,
    scratch: &mut Vec<u8>,
    token: TokenSink,
) -> Result<Items, Rejection> {
    let whole = if syntax.list { "list" } else { "line" };
    let mut items = Items::default();
    let mut place = 0;
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
            return Err(Rejection::unreadable(if items.count == 0 {
                format!("empty field 1: the {whole} starts with a comma")
            } else {
                format!(
                    "empty field {}: nothing between two commas after '{}'",
                    items.count + 1,
                    shown(previous)
                )
            }));
        }
        let end;
        // The NumPy scalar type of this token, if it is one.
        let mut scalar = None;
        if syntax.list && (byte == b'"' || byte == b'\'') {
            let (close, escaped) = closing_quote(text, place).ok_or_else(|| {
                Rejection::unreadable(format!(
                    "the quoted label {} has no closing {}",
                    shown(&text[place..]),
                    byte as char
                ))
            })?;
            let body = &text[place + 1..close];
            let value: &[u8] = if escaped {
                unescape(body, scratch)?;
                scratch
            } else {
                body
            };
            items.quoted = true;
            end = close + 1;
            token(value)?;
            previous = &text[place..end];
        } else if let Some(found) = if syntax.scalars {
            numpy_scalar(&text[place..], scratch)
        } else {
            None
        } {
            let found = found?;
            scalar = Some(found.kind);
            items.quoted |= found.quoted;
            end = place + found.length;
            token(found.value)?;
            previous = &text[place..end];
        } else {
            end = place
                + text[place..]
                    .iter()
                    .position(|&b| is_blank(b) || b == b',')
                    .unwrap_or(text.len() - place);
            let bare = &text[place..end];
            if syntax.list {
                bare_in_list(bare)?;
            }
            token(bare)?;
            previous = bare;
        }
        if items.count == 0 {
            items.scalars = scalar;
        } else if scalar != items.scalars {
            let name = |scalar: Option<NumpyScalar>| match scalar {
                Some(scalar) => format!("a NumPy np.{}", scalar.name()),
                None => "a bare item".to_string(),
            };
            return Err(Rejection::unreadable(format!(
                "item {} '{}' is {} but item 1 is {}: print the items of a list alike",
                items.count + 1,
                shown(previous),
                name(scalar),
                name(items.scalars)
            )));
        }
        items.count += 1;
        place = skip_blanks(end);
        if place == text.len() {
            return Ok(items);
        }
        if text[place] == b',' {
            place = skip_blanks(place + 1);
            if place == text.len() {
                return Err(Rejection::unreadable(format!(
                    "empty field {}: the {whole} ends with a comma after '{}'",
                    items.count + 1,
                    shown(previous)
                )));
            }
        } else if place == end {
            // A quoted token or a NumPy scalar followed by anything but a separator.
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
mod tests;
