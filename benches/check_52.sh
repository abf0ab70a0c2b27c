#!/usr/bin/env bash
# Throughput of `check` on one million 52-card decks written as plain integers (the file that
# `run fisher-yates -n 52 -t 1M --emit-permutations FILE` writes), with every deal test on and
# with `--no-deal-tests` (which separates the parsing and the marginal tally from the tests of
# the stream of deals), pinned to one core with `taskset -c 0` (the reading thread and the
# parser share it) and unpinned; and the same for five-card deals cut from the same decks
# (`check --deal 5 --deck 52`, with and without the stream tests), and four million 4-card decks
# (the full mode, whose stream tests count pairs of ranks). `wc -l` on the same file is
# the I/O ceiling: the rate at which the bytes can merely be read and split into lines.
#
# Figures: the report's `shuffles_per_second` (JSON; reading, parsing and tallying, start-up and
# the final analysis excluded), best of RUNS runs (default 3); the user CPU seconds of the whole
# process (best of RUNS, /usr/bin/time), which a busy machine disturbs less than the wall clock.
#
# Usage: benches/check_52.sh            (from the repository root)
#        RUNS=5 benches/check_52.sh
#        BIN=path/to/another/shuffle-bias benches/check_52.sh   (an older build, side by side)
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

if [ -z "${BIN:-}" ]; then
    cargo build --release --quiet
    BIN=./target/release/shuffle-bias
fi
echo "binary: $BIN"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$BIN" run fisher-yates -n 52 -t 1M --seed 1 --quiet --no-deal-tests -o /dev/null \
    --emit-permutations "$DIR/decks.txt"
grep -v '^#' "$DIR/decks.txt" | cut -d' ' -f1-5 >"$DIR/hands.txt"
"$BIN" run fisher-yates -n 4 -t 4M --seed 1 --quiet --no-deal-tests -o /dev/null \
    --emit-permutations "$DIR/small.txt"
echo "decks file: $(wc -c <"$DIR/decks.txt") bytes, $(wc -l <"$DIR/decks.txt") lines"

best() { # command... -> "rate cpu" (best of RUNS)
    local best_rate=0 best_cpu=1e9 rate cpu
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f '%U' -o "$DIR/time" "$@" --quiet --format json >"$DIR/out.json"
        rate=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["shuffles_per_second"])' "$DIR/out.json")
        cpu=$(tail -1 "$DIR/time")
        best_rate=$(python3 -c "print(max($best_rate, $rate))")
        best_cpu=$(python3 -c "print(min($best_cpu, $cpu))")
    done
    printf '%7.3f M/s   %5.2f s CPU' "$(python3 -c "print($best_rate / 1e6)")" "$best_cpu"
}

ceiling() { # file -> lines/s of `wc -l` (best of RUNS)
    local best=1e9 start end
    for _ in $(seq "$RUNS"); do
        start=$(date +%s.%N)
        taskset -c 0 wc -l "$1" >/dev/null
        end=$(date +%s.%N)
        best=$(python3 -c "print(min($best, $end - $start))")
    done
    printf '%7.1f M lines/s (%.3f s)' "$(python3 -c "print($(wc -l <"$1") / $best / 1e6)")" "$best"
}

printf '%-62s %s\n' command "best rate · best user CPU"
printf '%-62s %s\n' "taskset -c 0 wc -l (1M decks)" "$(ceiling "$DIR/decks.txt")"
for pin in "taskset -c 0" ""; do
    for flag in "" "--no-deal-tests"; do
        # shellcheck disable=SC2086
        printf '%-62s %s\n' "${pin:-unpinned} check (1M 52-card decks) $flag" \
            "$(best $pin "$BIN" check "$DIR/decks.txt" $flag)"
    done
done
printf '%-62s %s\n' "taskset -c 0 wc -l (4M 4-card decks)" "$(ceiling "$DIR/small.txt")"
for flag in "" "--no-deal-tests"; do
    # shellcheck disable=SC2086
    printf '%-62s %s\n' "taskset -c 0 check (4M 4-card decks) $flag" \
        "$(best taskset -c 0 "$BIN" check "$DIR/small.txt" $flag)"
done
printf '%-62s %s\n' "taskset -c 0 wc -l (1M five-card deals)" "$(ceiling "$DIR/hands.txt")"
for flag in "" "--no-deal-tests"; do
    # shellcheck disable=SC2086
    printf '%-62s %s\n' "taskset -c 0 check --deal 5 --deck 52 (1M deals) $flag" \
        "$(best taskset -c 0 "$BIN" check "$DIR/hands.txt" --deal 5 --deck 52 $flag)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
