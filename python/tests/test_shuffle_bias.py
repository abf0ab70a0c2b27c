"""The Python package: the verdicts of the command, through a Python shuffle.

Every test is seeded, so its outcome is fixed; the thresholds below say why the seeded outcome
is the one theory expects (a fair shuffle passes with probability 1 - alpha at least; a biased
one is caught with the power its exact law gives)."""

import json
import os
import random
import signal
import subprocess
import threading
import time

import pytest

from shuffle_bias import ShuffleTest, check, default_trials


def fisher_yates(deck, rng):
    """Python's own shuffle: uniform."""
    rng.shuffle(deck)


def naive(deck, rng):
    """Swap every card with a card drawn from the whole deck: n^n paths onto n! orderings."""
    n = len(deck)
    for i in range(n):
        j = rng.randrange(n)
        deck[i], deck[j] = deck[j], deck[i]


def sattolo(deck, rng):
    """Sattolo's algorithm: only the (n-1)! cyclic orderings; no card stays in place."""
    for i in range(len(deck) - 1, 0, -1):
        j = rng.randrange(i)
        deck[i], deck[j] = deck[j], deck[i]


def test_pythons_own_shuffle_passes():
    # H0 (uniform) is true: a false alarm has probability at most alpha = 0.001 (Holm keeps
    # the family-wise level); the seed fixes the outcome.
    report = ShuffleTest(deck=5, trials=50_000, seed=7).assert_no_bias(fisher_yates)
    assert report["trials"] == 50_000
    assert report["bias_detected"] is False


def test_the_naive_swap_is_caught():
    # The exact law of the naive swap on 5 cards (`shuffle-bias theory naive -n 5`) has
    # w^2 = 0.049653, so 50,000 shuffles give the chi-square of the 120 orderings a
    # noncentrality of 2,483; 99% power at alpha = 0.001 needs 2,567 shuffles, 20x fewer.
    report = ShuffleTest(deck=5, trials=50_000).assert_bias(naive)
    assert "permutations" in report["verdict"]


def test_a_failed_assertion_says_which_tests_failed_and_how_to_repeat_it():
    with pytest.raises(AssertionError) as failure:
        ShuffleTest(deck=5, trials=50_000, seed=3).assert_no_bias(naive)
    message = str(failure.value)
    assert message.startswith("shuffle-bias: bias detected")
    assert "strongest failing tests" in message
    assert "(ShuffleTest: 5 cards, 50000 shuffles, seed 3, alpha 0.001)" in message


def test_sattolo_fits_its_own_exact_law_and_not_uniform():
    # Against its own law H0 is true (false alarm <= alpha); against uniform, 24 of 120
    # orderings are reachable: the identity is never seen, where 50,000/120 = 417 are expected.
    test = ShuffleTest(deck=5, trials=50_000, seed=1, against="sattolo")
    assert test.assert_no_bias(sattolo)["bias_detected"] is False
    ShuffleTest(deck=5, trials=50_000, seed=1).assert_bias(sattolo)


def test_a_shuffle_may_return_a_new_list_and_one_of_one_argument_repeats():
    def sample(deck, rng):
        return rng.sample(deck, len(deck))

    assert ShuffleTest(deck=6, trials=20_000).report(sample)["bias_detected"] is False

    def global_shuffle(deck):
        random.shuffle(deck)

    first = ShuffleTest(deck=4, trials=2_000, seed=11).report(global_shuffle)
    again = ShuffleTest(deck=4, trials=2_000, seed=11).report(global_shuffle)
    other = ShuffleTest(deck=4, trials=2_000, seed=12).report(global_shuffle)
    assert first["permutations"] == again["permutations"]
    assert first["permutations"] != other["permutations"]


def test_the_size_gate_passes_a_fair_shuffle_and_says_when_the_sample_is_too_small():
    # 100,000 shuffles of 4 cards bound every position within 0.76 points at 99% (the plan of
    # `theory --max-bias 1pp` is 70,658); 1,000 bound it only within about 6 points.
    report = ShuffleTest(deck=4, trials=100_000).assert_fair_within("1pp", fisher_yates)
    assert report["gate"]["outcome"] == "fair-within"
    with pytest.raises(AssertionError, match="INCONCLUSIVE"):
        ShuffleTest(deck=4, trials=1_000).assert_fair_within("1pp", fisher_yates)
    with pytest.raises(AssertionError, match="BIAS DETECTED"):
        ShuffleTest(deck=4, trials=100_000).assert_fair_within("1pp", naive)


def test_what_is_not_a_permutation_or_a_setting_is_a_value_error_naming_it():
    def duplicate(deck, rng):
        deck[0] = deck[1]

    with pytest.raises(ValueError, match="shuffle 1 .* card 1 appears twice"):
        ShuffleTest(deck=4, trials=10).report(duplicate)

    def short(deck, rng):
        return deck[:-1]

    with pytest.raises(ValueError, match="shuffle 1 .* expected 4 cards, found 3"):
        ShuffleTest(deck=4, trials=10).report(short)

    def strings(deck, rng):
        deck[2] = "a"

    with pytest.raises(ValueError, match=r"shuffle 1 .*: 'a' is not a card .*got \[0, 1, 'a'"):
        ShuffleTest(deck=4, trials=10).report(strings)

    def negative(deck, rng):
        deck[0] = -1

    with pytest.raises(ValueError, match="shuffle 1 .*: -1 is not a card"):
        ShuffleTest(deck=4, trials=10).report(negative)

    def number(deck, rng):
        return 7

    with pytest.raises(TypeError, match="a shuffle returned 7, not the deck"):
        ShuffleTest(deck=4, trials=10).report(number)
    with pytest.raises(ValueError, match="not an algorithm"):
        ShuffleTest(deck=4, against="bogo")
    with pytest.raises(ValueError):
        ShuffleTest(deck=1)
    with pytest.raises(ValueError):
        ShuffleTest(deck=5, alpha=2.0)


def decks_of(shuffle, deck, trials, seed, one_argument=False):
    """The decks a plain Python loop gets from ``shuffle``, called as ``ShuffleTest`` calls it."""
    if one_argument:
        random.seed(seed)
    else:
        rng = random.Random(seed)
    start = list(range(deck))
    decks = []
    for _ in range(trials):
        fresh = start[:]
        result = shuffle(fresh) if one_argument else shuffle(fresh, rng)
        decks.append(list(fresh if result is None else result))
    return decks


class Card(int):
    """A card that is not the interpreter's own object for its number: read by its value."""


def test_the_native_loop_tallies_what_a_python_loop_makes():
    # 30,000 shuffles of 5 cards span three chunks of the native loop (13,107 decks each); the
    # report must be the one `check` gives on the decks a Python loop collects, field for
    # field: in place or returned, as a list or a tuple, of the interpreter's integers or not,
    # with one argument or two, and on a deck beyond the integers CPython caches (300 cards).
    def returns_tuple(deck, rng):
        naive(deck, rng)
        return tuple(deck)

    def returns_other_ints(deck, rng):
        naive(deck, rng)
        return [Card(card) for card in deck]

    def global_naive(deck):
        naive(deck, random)

    cases = [
        (naive, 5, 30_000, False),
        (returns_tuple, 5, 30_000, False),
        (returns_other_ints, 5, 20_000, False),
        (global_naive, 5, 30_000, True),
        (fisher_yates, 300, 300, False),
    ]
    for shuffle, deck, trials, one_argument in cases:
        native = ShuffleTest(deck=deck, trials=trials, seed=4).report(shuffle)
        python = check(decks_of(shuffle, deck, trials, 4, one_argument))
        for key in ["tests", "permutations", "verdict", "bias_detected", "positions", "trials"]:
            assert native.get(key) == python.get(key), (shuffle.__name__, key)


def test_a_deck_the_shuffle_keeps_is_never_reused():
    # The native loop puts a deck back in order for the next call only when nothing else holds
    # it; the decks kept here (every third) must stay as the shuffle left them, each its own
    # list, and the report must count the same decks as a Python loop's.
    kept = []
    calls = []

    def keeps_some(deck, rng):
        rng.shuffle(deck)
        calls.append(1)
        if len(calls) % 3 == 0:
            kept.append(deck)

    report = ShuffleTest(deck=5, trials=30_000, seed=2).report(keeps_some)
    decks = decks_of(fisher_yates, 5, 30_000, 2)
    assert kept == decks[2::3]
    assert len({id(deck) for deck in kept}) == len(kept) == 10_000
    python = check(decks)
    for key in ["tests", "permutations", "verdict", "bias_detected", "positions", "trials"]:
        assert report[key] == python[key], key


def test_an_exception_of_the_shuffle_is_raised_as_it_is():
    class Tired(Exception):
        pass

    raised = Tired("no more")
    calls = []

    def tires(deck, rng):
        calls.append(1)
        if len(calls) == 20_000:
            raise raised
        rng.shuffle(deck)

    with pytest.raises(Tired) as caught:
        ShuffleTest(deck=5, trials=50_000).report(tires)
    assert caught.value is raised
    assert len(calls) == 20_000


def test_of_two_errors_the_earlier_shuffles_is_raised_and_named():
    # Shuffle 2 leaves a card twice; shuffle 20,000, in the next chunk, raises: the bad deck,
    # made first, is the error. A bad deck alone in a later chunk is named by its number.
    calls = []

    def duplicates_then_raises(deck, rng):
        calls.append(1)
        if len(calls) == 2:
            deck[0] = deck[1]
        if len(calls) == 20_000:
            raise RuntimeError("later")

    with pytest.raises(ValueError, match="shuffle 2 .* card 1 appears twice"):
        ShuffleTest(deck=4, trials=50_000).report(duplicates_then_raises)

    count = [0]

    def short_late(deck, rng):
        count[0] += 1
        return deck[:-1] if count[0] == 20_000 else None

    with pytest.raises(ValueError, match="shuffle 20000 .* expected 4 cards, found 3"):
        ShuffleTest(deck=4, trials=50_000).report(short_late)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs signal.setitimer")
def test_ctrl_c_stops_a_shuffle_that_never_enters_python():
    # `list.reverse` is C: no Python bytecode runs in the loop, so only the native loop's own
    # look for signals between chunks lets the handler raise. 100M calls would take about 10 s;
    # the alarm rings after 0.2 s.
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        started = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(KeyboardInterrupt):
            ShuffleTest(deck=2, trials=100_000_000).report(list.reverse)
        assert time.perf_counter() - started < 3
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_check_judges_permutations_already_made():
    rng = random.Random(5)
    decks = []
    for _ in range(6_000):
        deck = [0, 1, 2, 3]
        rng.shuffle(deck)
        decks.append(deck)
    assert check(decks)["bias_detected"] is False
    # The same deck every time: 6,000 of one ordering where 250 are expected.
    assert check([[0, 1, 2, 3]] * 6_000)["bias_detected"] is True
    with pytest.raises(ValueError, match="permutation 2 has 3 cards"):
        check([[0, 1, 2, 3], [0, 1, 2]])


def test_defaults_are_the_commands():
    # `run`'s default: the larger of 1,000,000 and 20 n! up to 11 cards.
    assert default_trials(5) == 1_000_000
    assert default_trials(10) == 20 * 3_628_800


def test_the_judging_releases_the_gil():
    # Another Python thread stamps the time in a loop while a tally of 11 cards is judged (the
    # tests over 39,916,800 orderings take 0.7-0.9 s; at 10 cards they now take 0.07 s, too
    # short for the margins below to leave room for stamps). Were the GIL held for the whole call,
    # no stamp could fall inside it, away from its ends (where a thread switch of the
    # interpreter could let one in); released, the stamps fill it.
    from shuffle_bias import _native

    stamps = []
    stop = threading.Event()

    def stamp():
        while not stop.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0.001)

    tally = _native.Tally(11)
    tally.add_flat(list(range(11)) * 50)
    thread = threading.Thread(target=stamp)
    thread.start()
    try:
        time.sleep(0.02)
        started = time.perf_counter()
        report = json.loads(tally.finish()[0])
        ended = time.perf_counter()
    finally:
        stop.set()
        thread.join()
    assert report["bias_detected"] is True
    margin = 0.02
    inside = [t for t in stamps if started + margin < t < ended - margin]
    assert ended - started > 4 * margin, "the judging was too quick to tell"
    assert len(inside) >= 5, (len(inside), ended - started)


BINARY = os.environ.get("SHUFFLE_BIAS_BIN")


@pytest.mark.skipif(not BINARY, reason="set SHUFFLE_BIAS_BIN to the shuffle-bias binary")
def test_the_report_is_the_commands_report_on_the_same_permutations(tmp_path):
    # The package and `shuffle-bias check` judge by the same function: the same permutations
    # give the same tests, p-values and tallies, field for field.
    rng = random.Random(9)
    decks = []
    for _ in range(3_000):
        deck = [0, 1, 2, 3, 4]
        naive(deck, rng)
        decks.append(deck)
    path = tmp_path / "decks.txt"
    path.write_text("".join(" ".join(map(str, deck)) + "\n" for deck in decks))
    output = subprocess.run(
        [BINARY, "check", "--quiet", "--format", "json", str(path)],
        capture_output=True,
        check=False,
    )
    assert output.returncode == 1, output.stderr
    command = json.loads(output.stdout)
    package = check(decks)
    for key in ["tests", "permutations", "verdict", "bias_detected", "positions", "trials"]:
        assert package[key] == command[key], key
