//! The native half of the Python package `shuffle_bias`: a tally of permutations made by
//! Python code, judged by the library's one judging path (the function `check` calls), with
//! the GIL released while tallying and judging. `Tally.run` calls the user's shuffle itself,
//! the GIL held, and tallies on a thread of its own meanwhile; the Python half
//! (`shuffle_bias/__init__.py`) chooses how the shuffle is called and hands permutations made
//! elsewhere (`check`) over in chunks.

use std::sync::mpsc::{Receiver, SyncSender, TrySendError, channel, sync_channel};
use std::thread;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use shuffle_bias::{
    PermutationTally, ShuffleTest, ShuffleTestError, algorithm_named, fair_within, report_json,
    report_text, verdict_summary,
};

/// Cards a run tallies at a time: big enough that handing a chunk to the tallying thread costs
/// nothing per shuffle, small enough that Ctrl-C is seen within a fraction of a second.
const CHUNK_CARDS: usize = 1 << 16;

/// Permutations of `0..deck` added in flat chunks, then judged as `shuffle-bias check` judges
/// its input.
#[pyclass(module = "shuffle_bias._native")]
struct Tally {
    /// None once judged.
    tally: Option<PermutationTally>,
    deck: usize,
    seed: u64,
    alpha: f64,
}

/// A `ValueError` with the library's message.
fn value_error(message: impl ToString) -> PyErr {
    PyValueError::new_err(message.to_string())
}

/// An error unless `cards` cards are whole decks of `deck`, naming the shuffles among which
/// one returned a list of another length.
fn whole_decks(tally: &PermutationTally, cards: usize, deck: usize) -> PyResult<()> {
    if cards.is_multiple_of(deck) {
        return Ok(());
    }
    Err(value_error(format!(
        "a shuffle returned a list that is not of {deck} cards, among shuffles {} to {}",
        tally.trials() + 1,
        tally.trials() + (cards / deck) as u64 + 1
    )))
}

/// The test with these settings, checked by the library.
fn test(
    deck: usize,
    trials: Option<u64>,
    seed: u64,
    alpha: f64,
    against: Option<&str>,
    passes: Option<u32>,
) -> PyResult<ShuffleTest> {
    let mut test = ShuffleTest::new(deck).seed(seed).alpha(alpha);
    if let Some(trials) = trials {
        test = test.trials(trials);
    }
    if let Some(name) = against {
        test = test.against(algorithm_named(name).map_err(value_error)?);
    }
    if let Some(passes) = passes {
        test = test.passes(passes);
    }
    Ok(test)
}

/// The start deck `[0, 1, …, deck-1]`, and how to tell which card an item of a shuffled deck
/// is: an item that is one of the deck's own integer objects is read from its address, with no
/// call into Python. CPython keeps one object for each integer up to 256, evenly spaced in
/// memory, so cards 0 to 256 of a shuffled deck (which holds the objects it was given, however
/// it moved them) are read that way; other items are asked their value.
struct Deck<'py> {
    start: Bound<'py, PyList>,
    /// The address of card 0's object.
    first: usize,
    /// The step between consecutive cards' objects, log 2.
    shift: u32,
    /// Cards `0..spaced` are read from their address: those whose objects lie evenly spaced
    /// from card 0's, with a step that is a power of 2 (none when card 1's step is not).
    spaced: usize,
}

/// What stopped a run before its last shuffle. A deck that is not a permutation is judged once
/// the shuffles before it are tallied, so that the error names it by its number.
enum Stop {
    /// An exception: the shuffle's own, or Ctrl-C.
    Python(PyErr),
    /// A deck of whole numbers but not as many as the deck has: the library's check says so.
    Cards(Vec<usize>),
    /// A deck with an item that is not a card: what it is, and the items up to it.
    NotACard { item: String, shown: String },
}

impl<'py> Deck<'py> {
    fn new(py: Python<'py>, deck: usize) -> PyResult<Self> {
        let start = PyList::new(py, 0..deck)?;
        let addresses = (0..deck)
            .map(|card| Ok(start.get_item(card)?.as_ptr() as usize))
            .collect::<PyResult<Vec<usize>>>()?;
        let first = addresses[0];
        let step = addresses[1].wrapping_sub(first);
        let spaced = if step.is_power_of_two() {
            (addresses.iter().enumerate())
                .take_while(|&(card, &address)| {
                    address == first.wrapping_add(card.wrapping_mul(step))
                })
                .count()
        } else {
            0
        };
        Ok(Deck {
            start,
            first,
            shift: step.trailing_zeros(),
            spaced,
        })
    }

    /// A fresh copy of the start deck, and the arguments of a call of the shuffle on it.
    fn fresh(
        &self,
        rng: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyTuple>)> {
        let deck = self.start.get_slice(0, self.start.len());
        let arguments = match rng {
            Some(rng) => PyTuple::new(self.start.py(), [deck.as_any(), rng])?,
            None => PyTuple::new(self.start.py(), [deck.as_any()])?,
        };
        Ok((deck, arguments))
    }

    /// Make `deck` and `arguments` those of the next call: the same objects, the deck put back
    /// in order, when nothing but them holds the deck and nothing but this loop the arguments
    /// (nothing can tell them from new ones then); else new ones.
    fn renew(
        &self,
        deck: &mut Bound<'py, PyList>,
        arguments: &mut Bound<'py, PyTuple>,
        rng: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<()> {
        // SAFETY: both are live objects and the GIL is held.
        let unshared = unsafe {
            ffi::Py_REFCNT(deck.as_ptr()) == 2 && ffi::Py_REFCNT(arguments.as_ptr()) == 1
        };
        if unshared {
            deck.set_slice(0, usize::MAX, &self.start)
        } else {
            (*deck, *arguments) = self.fresh(rng)?;
            Ok(())
        }
    }

    /// Append the cards of a deck returned by a shuffle (a list, or any iterable) to `cards`;
    /// a deck that is no permutation appends nothing.
    fn read(&self, dealt: &Bound<'py, PyAny>, cards: &mut Vec<usize>) -> Result<(), Stop> {
        let from = cards.len();
        let read = match dealt.cast::<PyList>() {
            Ok(list) => (0..list.len()).try_for_each(|index| {
                // SAFETY: the GIL is held and `list` is a live list. The borrowed pointer is
                // only compared with the cards' addresses, never followed; an index past the end
                // (had a card's `__index__` shortened the list) gives NULL, which is no card's,
                // and `get_item` then raises the IndexError.
                let address =
                    unsafe { ffi::PyList_GetItem(list.as_ptr(), index as ffi::Py_ssize_t) };
                match self.spaced_card(address as usize) {
                    Some(card) => {
                        cards.push(card);
                        Ok(())
                    }
                    None => self.card(&list.get_item(index).map_err(Stop::Python)?, from, cards),
                }
            }),
            Err(_) => {
                let items = dealt.try_iter().map_err(|_| {
                    Stop::Python(PyTypeError::new_err(format!(
                        "a shuffle returned {}, not the deck: shuffle the list it is given in \
                         place (and return None), or return a new list of its cards",
                        repr(dealt)
                    )))
                })?;
                items
                    .into_iter()
                    .try_for_each(|item| self.card(&item.map_err(Stop::Python)?, from, cards))
            }
        };
        if let Err(stop) = read {
            cards.truncate(from);
            return Err(stop);
        }
        if cards.len() - from != self.start.len() {
            return Err(Stop::Cards(cards.drain(from..).collect()));
        }
        Ok(())
    }

    /// The card whose object lies at `address`, if it is one of those read from their address.
    #[inline]
    fn spaced_card(&self, address: usize) -> Option<usize> {
        let offset = address.wrapping_sub(self.first);
        let card = offset >> self.shift;
        (card < self.spaced && offset == card << self.shift).then_some(card)
    }

    /// Append the card `item` is to `cards` (whose deck starts at `from`).
    fn card(
        &self,
        item: &Bound<'py, PyAny>,
        from: usize,
        cards: &mut Vec<usize>,
    ) -> Result<(), Stop> {
        if let Some(card) = self.spaced_card(item.as_ptr() as usize) {
            cards.push(card);
            return Ok(());
        }
        match item.extract::<usize>() {
            Ok(card) => {
                cards.push(card);
                Ok(())
            }
            Err(_) => {
                let item = repr(item);
                let mut shown: Vec<String> =
                    cards[from..].iter().map(ToString::to_string).collect();
                shown.extend([item.clone(), "…".to_string()]);
                Err(Stop::NotACard {
                    item,
                    shown: shown.join(", "),
                })
            }
        }
    }
}

/// `repr(object)`, or a placeholder when even that fails.
fn repr(object: &Bound<'_, PyAny>) -> String {
    object
        .repr()
        .map_or_else(|_| "an object".to_string(), |text| text.to_string())
}

/// Hand a chunk of cards to the tallying thread, waiting (the GIL released) while it is busy
/// with the one before; false when it has stopped at a deck that is no permutation.
fn hand_over(py: Python<'_>, chunks: &SyncSender<Vec<usize>>, cards: Vec<usize>) -> bool {
    match chunks.try_send(cards) {
        Ok(()) => true,
        Err(TrySendError::Full(cards)) => py.detach(|| chunks.send(cards).is_ok()),
        Err(TrySendError::Disconnected(_)) => false,
    }
}

/// Call `shuffle` `trials` times on a fresh deck (with `rng` as its second argument if given)
/// and hand the decks it makes to the tallying thread, a chunk at a time; Ctrl-C is looked for
/// between chunks. On a stop, the decks made before it are handed over too.
fn shuffle_decks<'py>(
    py: Python<'py>,
    shuffle: &Bound<'py, PyAny>,
    rng: Option<&Bound<'py, PyAny>>,
    trials: u64,
    deck: &Deck<'py>,
    chunks: &SyncSender<Vec<usize>>,
    spare: &Receiver<Vec<usize>>,
) -> Result<(), Stop> {
    let n = deck.start.len();
    let per_chunk = (CHUNK_CARDS / n).max(1) as u64;
    let (mut fresh, mut arguments) = deck.fresh(rng).map_err(Stop::Python)?;
    let mut remaining = trials;
    while remaining > 0 {
        let count = per_chunk.min(remaining);
        let mut cards = spare
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(per_chunk as usize * n));
        cards.clear();
        let mut made = Ok(());
        for _ in 0..count {
            let read = match shuffle.call1(&arguments) {
                Ok(returned) if returned.is_none() => deck.read(&fresh, &mut cards),
                Ok(returned) => deck.read(&returned, &mut cards),
                Err(error) => Err(Stop::Python(error)),
            };
            // What the shuffle returned is dropped by now: only what it kept holds the deck.
            made = read.and_then(|()| {
                deck.renew(&mut fresh, &mut arguments, rng)
                    .map_err(Stop::Python)
            });
            if made.is_err() {
                break;
            }
        }
        let made = made.and_then(|()| py.check_signals().map_err(Stop::Python));
        if !hand_over(py, chunks, cards) {
            return Ok(());
        }
        made?;
        remaining -= count;
    }
    Ok(())
}

#[pymethods]
impl Tally {
    #[new]
    #[pyo3(signature = (deck, *, seed = 0, alpha = 0.001, against = None, passes = None))]
    fn new(
        deck: usize,
        seed: u64,
        alpha: f64,
        against: Option<&str>,
        passes: Option<u32>,
    ) -> PyResult<Self> {
        let tally = test(deck, None, seed, alpha, against, passes)?
            .tally()
            .map_err(value_error)?;
        Ok(Tally {
            tally: Some(tally),
            deck,
            seed,
            alpha,
        })
    }

    /// Add permutations laid end to end (`len(cards)` a multiple of the deck); a bad one is a
    /// `ValueError` naming it (counting from 1) and what is wrong.
    fn add_flat(&mut self, py: Python<'_>, cards: Vec<usize>) -> PyResult<()> {
        let deck = self.deck;
        let tally = self
            .tally
            .as_mut()
            .ok_or_else(|| value_error("this tally was already judged"))?;
        whole_decks(tally, cards.len(), deck)?;
        py.detach(|| {
            cards
                .chunks_exact(deck)
                .try_for_each(|permutation| tally.add(permutation))
        })
        .map_err(value_error)
    }

    /// [`Tally::add_flat`] for decks of at most 256 cards, the cards as the bytes of a
    /// `bytes` object (Python's `bytes(list)` converts a chunk in C, far faster than reading
    /// the list's integers one by one).
    fn add_bytes(&mut self, py: Python<'_>, cards: &[u8]) -> PyResult<()> {
        let deck = self.deck;
        let tally = self
            .tally
            .as_mut()
            .ok_or_else(|| value_error("this tally was already judged"))?;
        whole_decks(tally, cards.len(), deck)?;
        py.detach(|| {
            let mut permutation = vec![0usize; deck];
            cards.chunks_exact(deck).try_for_each(|bytes| {
                for (card, &byte) in permutation.iter_mut().zip(bytes) {
                    *card = usize::from(byte);
                }
                tally.add(&permutation)
            })
        })
        .map_err(value_error)
    }

    /// Call `shuffle(deck, rng)` (or `shuffle(deck)` when `rng` is None) `trials` times, each
    /// on a fresh list `[0, 1, …, deck-1]`, and add the deck it leaves (or the sequence it
    /// returns, when not None). The decks are tallied on a thread of their own while the
    /// shuffle runs. An exception of the shuffle, or Ctrl-C, is raised as it is; a deck that
    /// is not a permutation is a `ValueError` naming it (counting from 1). Of two errors, the
    /// one of the earlier shuffle is raised.
    fn run(
        &mut self,
        py: Python<'_>,
        shuffle: &Bound<'_, PyAny>,
        rng: Option<&Bound<'_, PyAny>>,
        trials: u64,
    ) -> PyResult<()> {
        let deck = Deck::new(py, self.deck)?;
        let tally = self
            .tally
            .as_mut()
            .ok_or_else(|| value_error("this tally was already judged"))?;
        let (chunks, to_tally) = sync_channel::<Vec<usize>>(1);
        let (tallied, spare) = channel::<Vec<usize>>();
        let n = self.deck;
        let (added, stop) = thread::scope(|scope| {
            let tally = &mut *tally;
            let tallying = scope.spawn(move || -> Result<(), ShuffleTestError> {
                for cards in to_tally {
                    for permutation in cards.chunks_exact(n) {
                        tally.add(permutation)?;
                    }
                    // The run may have stopped and no longer want the buffer back.
                    let _ = tallied.send(cards);
                }
                Ok(())
            });
            let stop = shuffle_decks(py, shuffle, rng, trials, &deck, &chunks, &spare).err();
            drop(chunks);
            let added = py.detach(|| tallying.join());
            (added, stop)
        });
        added
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            .map_err(value_error)?;
        match stop {
            None => Ok(()),
            Some(Stop::Python(error)) => Err(error),
            Some(Stop::Cards(cards)) => tally.add(&cards).map_err(value_error),
            Some(Stop::NotACard { item, shown }) => {
                Err(value_error(ShuffleTestError::NotAPermutation {
                    trial: tally.trials() + 1,
                    deck: n,
                    problem: format!("{item} is not a card (a whole number from 0 to {})", n - 1),
                    shown,
                }))
            }
        }
    }

    /// The permutations added so far.
    #[getter]
    fn trials(&self) -> u64 {
        self.tally.as_ref().map_or(0, PermutationTally::trials)
    }

    /// Judge the tally: `(json, text, summary, failure)` — the report as `check --format json`
    /// and as `check` prints it, the verdict summary, and with `max_bias` the message of a gate
    /// that did not show the bias within it (None when it did, or without `max_bias`).
    #[pyo3(signature = (max_bias = None))]
    fn finish(
        &mut self,
        py: Python<'_>,
        max_bias: Option<&str>,
    ) -> PyResult<(String, String, String, Option<String>)> {
        let tally = self
            .tally
            .take()
            .ok_or_else(|| value_error("this tally was already judged"))?;
        let (seed, alpha) = (self.seed, self.alpha);
        let max_bias = max_bias.map(str::to_string);
        py.detach(move || {
            let report = tally.finish().map_err(|error| error.to_string())?;
            let (report, failure) = match max_bias {
                None => (report, None),
                Some(size) => {
                    let (report, verdict) = fair_within(report, &size, seed, alpha);
                    (report, verdict.err())
                }
            };
            Ok((
                report_json(&report),
                report_text(&report),
                verdict_summary(&report),
                failure,
            ))
        })
        .map_err(|message: String| value_error(message))
    }
}

/// How many shuffles a test of `deck` cards runs by default.
#[pyfunction]
fn default_trials(deck: usize) -> PyResult<u64> {
    Ok(test(deck, None, 0, 0.001, None, None)?.planned_trials())
}

/// The native module.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Tally>()?;
    module.add_function(wrap_pyfunction!(default_trials, module)?)?;
    Ok(())
}
