//! The native half of the Python package `shuffle_bias`: a tally of permutations made by
//! Python code, judged by the library's one judging path (the function `check` calls), with
//! the GIL released while tallying and judging. The Python half (`shuffle_bias/__init__.py`)
//! runs the user's shuffle and hands the permutations over in chunks.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use shuffle_bias::{
    PermutationTally, ShuffleTest, algorithm_named, fair_within, report_json, report_text,
    verdict_summary,
};

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
