"""What the Python package adds around the user's shuffle.

Times, alternately and five times each, (a) a plain Python loop that calls the shuffle on a
fresh deck `trials` times and keeps nothing — the least any test must spend — and (b)
`ShuffleTest(deck, trials).report(shuffle)`, the whole test: the same calls, the hand-over of
the permutations and the judging. Prints the medians and the overhead (b / a - 1) in wall time,
the goal's measure, and in the CPU time of the process (all its threads: the test tallies on a
thread of its own, which wall time does not show when a core is free); each as the ratio of the
medians and as the median of each run's ratio to the plain loop run just before it (steadier
when the machine's load drifts during the series; the two jobs alternate ABBA so that neither
always runs first) and as the ratio of the fastest runs.

    python python/benches/overhead.py [--deck 5] [--trials 1000000] [--runs 5]
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
    names = ["plain loop", "ShuffleTest.report"]
    times = {name: [] for name in names}
    cpu = {name: [] for name in names}
    jobs = [("plain loop", plain_loop), ("ShuffleTest.report", whole_test)]
    for run in range(args.runs):
        # ABBA order: neither job always runs first, so a drift within a pair cancels out.
        for name, job in jobs if run % 2 == 0 else jobs[::-1]:
            started, cpu_started = time.perf_counter(), time.process_time()
            job(args.deck, args.trials, run)
            times[name].append(time.perf_counter() - started)
            cpu[name].append(time.process_time() - cpu_started)
    for kind, table in [("wall", times), ("CPU", cpu)]:
        for name in names:
            values = table[name]
            median = statistics.median(values)
            print(
                "%-4s %-20s median %.3f s (%s)  %.0f ns a shuffle"
                % (
                    kind,
                    name,
                    median,
                    ", ".join("%.3f" % v for v in values),
                    median / args.trials * 1e9,
                )
            )
        plain, whole = (statistics.median(table[name]) for name in names)
        # Each run's test against the plain loop just before it: steadier than the ratio of the
        # medians when the machine's load drifts during the series.
        paired = statistics.median(w / p for p, w in zip(*(table[name] for name in names)))
        # The fastest run of each: the least interference from the rest of the machine.
        fastest = min(table[names[1]]) / min(table[names[0]])
        print(
            "overhead of the package (%s time): %+.1f%% (ratio of medians), %+.1f%% (median of "
            "the runs' ratios), %+.1f%% (ratio of the fastest runs)"
            % (kind, (whole / plain - 1) * 100, (paired - 1) * 100, (fastest - 1) * 100)
        )


if __name__ == "__main__":
    main()
