"""Prove a shuffle fair or biased, from pytest.

The same judging as the ``shuffle-bias`` command: the permutations your shuffle makes are
tallied and tested against uniform (or against a built-in algorithm's exact law) with the exact
laws, the family of tests with Holm's adjustment, and the verdict of ``shuffle-bias check``.

    from shuffle_bias import ShuffleTest

    def my_shuffle(deck, rng):          # shuffle in place with the random.Random given
        rng.shuffle(deck)

    def test_my_shuffle_is_fair():
        ShuffleTest(deck=5, trials=50_000, seed=7).assert_no_bias(my_shuffle)

A shuffle is called ``shuffle(deck, rng)`` with a fresh list ``[0, 1, ..., n-1]`` and a
``random.Random`` seeded from ``seed``; it shuffles the list in place, or returns a new
sequence (a permutation of ``0..n-1``, ``result[position] = card``). A shuffle of one argument,
``shuffle(deck)``, is called after ``random.seed(seed)``, so that one using the module-level
functions of ``random`` repeats too.
"""

import inspect
import json
import random as _random

from . import _native

__all__ = ["ShuffleTest", "check", "default_trials"]

# Cards of permutations already made (``check``) handed to the native tally at a time: bounded
# memory at any number of permutations.
_CHUNK_CARDS = 1 << 16


def default_trials(deck):
    """How many shuffles a test of ``deck`` cards runs by default (as ``shuffle-bias run``)."""
    return _native.default_trials(deck)


def _arity(shuffle):
    """1 for ``shuffle(deck)``, else 2 (``shuffle(deck, rng)``)."""
    try:
        parameters = inspect.signature(shuffle).parameters.values()
    except (TypeError, ValueError):
        return 2
    positional = [
        p
        for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    varargs = any(p.kind == p.VAR_POSITIONAL for p in parameters)
    return 1 if len(positional) == 1 and not varargs else 2


def _hand_over(tally, chunk, n):
    """Give a chunk of cards to the native tally: as bytes (converted in C) when the deck allows
    it, else as the list; a card that is no byte falls back to the list, whose error names the
    shuffle."""
    if n <= 256:
        try:
            data = bytes(chunk)
        except (ValueError, TypeError):
            data = None
        if data is not None:
            tally.add_bytes(data)
            return
    tally.add_flat(chunk)


class ShuffleTest:
    """A test of a shuffle: the deck size, the number of shuffles, the seed, the level and the
    hypothesis (``against=None`` for uniform, or a built-in algorithm's name such as
    ``"fisher-yates"`` or ``"naive"``, with ``passes``). Defaults are those of the Rust
    library's ``ShuffleTest``: ``alpha`` 0.001, seed 0, and the number of shuffles of
    ``shuffle-bias run`` for the deck (``default_trials``)."""

    def __init__(self, deck, trials=None, seed=0, alpha=0.001, against=None, passes=None):
        if isinstance(deck, bool) or not isinstance(deck, int):
            raise TypeError("deck must be a whole number of cards, 2 to 1000")
        self.deck = deck
        self.seed = seed
        self.alpha = alpha
        self.against = against
        self.passes = passes
        # Checked now, so that a bad setting fails before the shuffle runs.
        self._new_tally()
        self.trials = default_trials(deck) if trials is None else int(trials)
        if self.trials < 1:
            raise ValueError("ShuffleTest: trials must be at least 1")

    def _new_tally(self):
        return _native.Tally(
            self.deck, seed=self.seed, alpha=self.alpha, against=self.against, passes=self.passes
        )

    def _judge(self, shuffle, max_bias=None):
        """Run ``shuffle`` ``trials`` times and judge: ``(report, text, summary, failure)``."""
        tally = self._new_tally()
        if _arity(shuffle) == 1:
            _random.seed(self.seed)
            rng = None
        else:
            rng = _random.Random(self.seed)
        # The loop is native: it calls the shuffle on fresh decks and tallies them on a thread
        # of its own meanwhile.
        tally.run(shuffle, rng, self.trials)
        report, text, summary, failure = tally.finish(max_bias)
        return json.loads(report), text, summary, failure

    def report(self, shuffle):
        """Run the shuffle and return the report as a dict: the JSON of ``shuffle-bias check``
        (``report["bias_detected"]``, ``report["verdict"]``, ``report["tests"]``, …)."""
        return self._judge(shuffle)[0]

    def text(self, shuffle):
        """Run the shuffle and return the report as ``shuffle-bias check`` prints it."""
        return self._judge(shuffle)[1]

    def assert_no_bias(self, shuffle):
        """Run the shuffle; raise ``AssertionError`` (the verdict and the strongest failing
        tests) if bias is detected. Returns the report."""
        report, _, summary, _ = self._judge(shuffle)
        if report["bias_detected"]:
            raise AssertionError(self._message(summary, report))
        return report

    def assert_bias(self, shuffle):
        """Run the shuffle; raise ``AssertionError`` unless bias is detected (pin a known-bad
        shuffle, or show the test has the power to catch one). Returns the report."""
        report, _, summary, _ = self._judge(shuffle)
        if not report["bias_detected"]:
            raise AssertionError(self._message(summary, report))
        return report

    def assert_fair_within(self, size, shuffle):
        """The size gate of ``--max-bias``: raise ``AssertionError`` unless the 99% bounds show
        the bias within ``size`` — ``"1pp"`` (every card's chance of each position within 1
        percentage point of 1/n) or ``"0.02tv"`` (total variation distance, up to 11 cards).
        A sample too small to show it fails too, saying about how many shuffles would."""
        report, _, _, failure = self._judge(shuffle, max_bias=size)
        if failure is not None:
            raise AssertionError(failure)
        return report

    def _message(self, summary, report):
        return "%s\n(ShuffleTest: %d cards, %d shuffles, seed %s, alpha %s)" % (
            summary,
            self.deck,
            report["trials"],
            self.seed,
            self.alpha,
        )


def check(permutations, alpha=0.001, against=None, passes=None):
    """Judge permutations already made — an iterable of sequences of the cards ``0..n-1``
    (``p[position] = card``), e.g. decks read from a log — as ``shuffle-bias check`` does.
    The deck size is read off the first. Returns the report as a dict."""
    tally = None
    chunk = []
    n = None
    for number, permutation in enumerate(permutations, start=1):
        permutation = list(permutation)
        if tally is None:
            n = len(permutation)
            tally = _native.Tally(n, alpha=alpha, against=against, passes=passes)
            per_chunk = max(1, _CHUNK_CARDS // n)
        if len(permutation) != n:
            raise ValueError(
                "permutation %d has %d cards, the first had %d" % (number, len(permutation), n)
            )
        chunk.extend(permutation)
        if len(chunk) >= per_chunk * n:
            _hand_over(tally, chunk, n)
            chunk.clear()
    if tally is None:
        raise ValueError("no permutation to judge")
    if chunk:
        _hand_over(tally, chunk, n)
    return json.loads(tally.finish()[0])
