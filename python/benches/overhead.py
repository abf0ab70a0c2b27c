"""What the Python package adds around the user's shuffle.

Times, alternately and five times each, (a) a plain Python loop that calls the shuffle on a
fresh deck `trials` times and keeps nothing — the least any test must spend — and (b)
`ShuffleTest(deck, trials).report(shuffle)`, the whole test: the same calls, the hand-over of
the permutations and the judging. Prints the medians and the overhead (b / a - 1).

    python python/benches/overhead.py [--deck 5] [--trials 1000000]
"""

import argparse
import random
import statistics
import time

from shuffle_bias import ShuffleTest


def shuffle(deck, rng):
    rng.shuffle(deck)


def plain_loop(deck, trials, seed):
    rng = random.Random(seed)
    start = list(range(deck))
    for _ in range(trials):
        d = start[:]
        shuffle(d, rng)


def whole_test(deck, trials, seed):
    ShuffleTest(deck=deck, trials=trials, seed=seed).report(shuffle)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--deck", type=int, default=5)
    parser.add_argument("--trials", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    times = {"plain loop": [], "ShuffleTest.report": []}
    for run in range(args.runs):
        for name, job in [("plain loop", plain_loop), ("ShuffleTest.report", whole_test)]:
            started = time.perf_counter()
            job(args.deck, args.trials, run)
            times[name].append(time.perf_counter() - started)
    plain = statistics.median(times["plain loop"])
    whole = statistics.median(times["ShuffleTest.report"])
    for name, values in times.items():
        median = statistics.median(values)
        print(
            "%-20s median %.3f s (%s)  %.0f ns a shuffle"
            % (name, median, ", ".join("%.3f" % v for v in values), median / args.trials * 1e9)
        )
    print("overhead of the package: %+.1f%%" % ((whole / plain - 1) * 100))


if __name__ == "__main__":
    main()
