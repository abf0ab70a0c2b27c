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
//! [`MAX_FULL_DECK`](crate::engine::permutation::MAX_FULL_DECK)), or the [`MarginalTally`] of
//! decks of up to [`MAX_MARGINAL_DECK`](crate::engine::marginal::MAX_MARGINAL_DECK) cards
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
//! Node's `[ 3, 0, 1, 2 ]` over several lines), or in a wrapper (a tuple, NumPy's `array(…)`, a
//! typed array, an R vector `[1] 3 1 4 2`, whose long form goes on while lines start with `[k]`,
//! k > 1): see [`crate::input::line_format`]. The first valid line fixes the format and wrapper
//! (its [`Shape`](crate::input::line_format::Shape)); a line in another is an error. Plain
//! lines keep the fast paths; lists are read by the careful parser.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;

use super::cards::CardNames;
use super::content_digest::ContentDigest;
use super::line_format::{HOW_TO_PRINT, LineFormat};
use super::source_name::printable;
use crate::engine::algorithms::Card;
use crate::engine::deal::DealTally;
use crate::engine::deal_stream::{DealStream, DealStreamOptions, DealStreamTally, RepeatSource};
use crate::engine::full_stream::RankedStream;
use crate::engine::marginal::MarginalTally;
use crate::engine::permutation::{factorial, rank};
use crate::engine::tally::TallyMode;

mod fast_paths;
mod reader;
mod sources;
mod stream_thread;

pub use reader::{DeckHook, Observer};
use reader::Reader;
use stream_thread::StreamThread;
pub use sources::{Input, open_sources};

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
    /// Digest each source's bytes as they are read ([`InputTally::contents`]), which
    /// `--save-tally` records; false: do not (a SipHash pass over every byte, a twelfth of the
    /// processor time of reading 52-card decks on one core).
    pub digest: bool,
}

/// What the reader's deal-stream accumulator keeps ([`crate::engine::deal_stream`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DealsRequest {
    /// Most deals whose fingerprints are kept for the repeated-decks test (beyond it, the test
    /// is skipped and the report says why).
    pub fingerprint_limit: u64,
    /// Count the deal-stream tests on a thread of their own while the lines are parsed, when
    /// the machine has two cores or more and the deals have at most 256 cards (the same counts;
    /// about a third off the time of `check` of 52-card decks: BENCHMARKS.md); false: count
    /// them on the reading thread.
    pub thread: bool,
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
    /// reading was stopped or the observer broke), when [`ReaderOptions::digest`] asked for
    /// them; empty otherwise.
    pub contents: Vec<ContentDigest>,
    /// The digests of the first 4, 8, 16, 32 and 64 KiB of each source opened, as far as it
    /// was read ([`crate::input::content_digest::PrefixHasher`]), in order, the last one
    /// perhaps read in part, when [`ReaderOptions::digest`] asked for them; empty otherwise.
    pub prefixes: Vec<Vec<u128>>,
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
    read_permutations_observed(sources, inputs, options, stop, progress, None, None)
}

/// [`read_permutations`], showing every permutation tallied to `observer` in input order (cards
/// 0-based, `deck[position] = card`). When it breaks, the reading ends right after that
/// permutation — the rest of the input is neither read nor checked (`check --until-decided`):
/// the tally holds the permutations up to it. `on_deck` is told the deck's size once, as
/// soon as it is known (see [`DeckHook`]).
pub fn read_permutations_observed<'a>(
    sources: &[InputSource],
    inputs: Vec<Input>,
    options: &'a ReaderOptions,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
    observer: Option<Observer<'a>>,
    on_deck: Option<DeckHook<'a>>,
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
    match (deck, on_deck) {
        (Some(n), Some(hook)) => hook(n),
        (None, hook) => reader.on_deck = hook,
        (Some(_), None) => {}
    }
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
    reader.deals = reader.deals.take().map(DealSink::settled);
    if let (Some(batch), Some(InputCounts::Marginal(tally))) =
        (reader.batch.take(), reader.counts.as_mut())
    {
        let positions_from_stream = batch.positions_from_stream();
        tally.merge(&batch.finish());
        if positions_from_stream {
            // Every deck tallied, by the batch or one by one, went to the deal stream once, in
            // line order: its position matrix is the whole input's (the batch counted none, and
            // the decks tallied one by one are in the stream's too).
            let positions = reader
                .deals
                .as_mut()
                .and_then(DealSink::slot_card_counts)
                .expect("the batch asked the stream whether it has the positions");
            let n = tally.deck;
            debug_assert!(
                (0..n).all(|slot| {
                    (0..n).map(|card| positions[card * n + slot]).sum::<u64>() == tally.trials
                }),
                "the stream saw every deck tallied"
            );
            tally.positions = positions;
        }
    }
    let stopped_early = !finished || reader.stopped();
    let prefixes = reader.prefixes();
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
        format: reader.format.map(|(shape, _)| shape.format),
        numbering_assumed: reader.numbering_assumed,
        sources: names,
        prefixes,
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
    if let Some(ranked) = ranked {
        return Some(DealSink::Ranked(ranked));
    }
    let request = options.deals?;
    let whole = DealStream::new(stream);
    if request.thread
        && stream.dealt <= THREADED_DEALS
        && std::thread::available_parallelism().is_ok_and(|cpus| cpus.get() >= 2)
    {
        let positions = whole.has_slot_card_counts();
        return Some(match StreamThread::start(whole, stream.dealt) {
            Some(thread) => DealSink::Threaded { thread, positions },
            None => DealSink::Whole(DealStream::new(stream)),
        });
    }
    Some(DealSink::Whole(whole))
}

/// The longest deals whose stream is counted on a thread of its own
/// ([`DealsRequest::thread`]). Beyond 256 cards the stream is a small part of the work (a
/// twentieth of `check` of 300-card decks, beside the scalar statistics and the exact laws), and
/// its thread only took time from the others: 0.176 → 0.187 s on 20,000 such decks, where
/// 200,000 78-card decks went from 0.115 to 0.109 s and 1M 52-card decks from 0.196 to 0.132 s.
const THREADED_DEALS: usize = 256;

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
    /// Deal by deal, counted on a thread of its own ([`StreamThread`], when
    /// [`DealsRequest::thread`] and the machine has two cores or more): the counts of `Whole`.
    /// `positions`: [`DealStream::has_slot_card_counts`] of its stream.
    Threaded {
        thread: StreamThread,
        positions: bool,
    },
}

impl DealSink {
    /// Count the next deck or deal.
    #[inline(always)]
    fn add(&mut self, deck: &[Card]) {
        match self {
            DealSink::Whole(stream) => stream.add(deck),
            DealSink::Ranked(stream) => stream.push(deck, rank(deck)),
            DealSink::Threaded { thread, .. } => thread.add(deck),
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
            DealSink::Threaded { thread, .. } => thread.add(deals),
        }
    }

    /// Count the next whole deck, whose rank is known.
    #[inline(always)]
    fn add_ranked(&mut self, deck: &[Card], rank: usize) {
        match self {
            DealSink::Whole(stream) => stream.add(deck),
            DealSink::Ranked(stream) => stream.push(deck, rank),
            DealSink::Threaded { thread, .. } => thread.add(deck),
        }
    }

    /// Whether [`Self::slot_card_counts`] will have the position matrix of every deck added
    /// (whole decks, deal by deal: [`DealStream::has_slot_card_counts`]).
    fn has_slot_card_counts(&self) -> bool {
        match self {
            DealSink::Whole(stream) => stream.has_slot_card_counts(),
            DealSink::Ranked(_) => false,
            DealSink::Threaded { positions, .. } => *positions,
        }
    }

    /// The position matrix of every deck added, read off the slot tables
    /// ([`DealStream::slot_card_counts`]).
    fn slot_card_counts(&mut self) -> Option<Vec<u64>> {
        match self {
            DealSink::Whole(stream) => stream.slot_card_counts(),
            DealSink::Ranked(_) => None,
            DealSink::Threaded { .. } => unreachable!("the reader settles the stream first"),
        }
    }

    /// The sink with every deal added counted: a stream counting on its thread is waited for
    /// and held in place (`Whole`); the others as they are.
    fn settled(self) -> DealSink {
        match self {
            DealSink::Threaded { thread, .. } => DealSink::Whole(thread.finish()),
            sink => sink,
        }
    }

    /// The counts.
    fn finish(self) -> DealStreamTally {
        match self {
            DealSink::Whole(stream) => stream.finish(),
            DealSink::Ranked(stream) => stream.finish(),
            DealSink::Threaded { .. } => unreachable!("the reader settles the stream first"),
        }
    }
}

#[cfg(test)]
mod tests;
