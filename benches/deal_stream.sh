#!/usr/bin/env bash
# What the tests of the stream of deals (repeated decks, serial matches, serial slots) cost on
# 52-card decks: `run fisher-yates -n 52 -t 1M` and `check` of 1M 52-card deals, each with and
# without `--no-deal-tests`; and full-mode runs of 4, 8 and 10 cards, with and without.
#
# Figures: the report's `shuffles_per_second` (JSON; simulation or reading only, start-up and
# the final analysis excluded), best of RUNS runs (default 3), and the user CPU seconds of the
# whole process (best of RUNS, /usr/bin/time), which a busy machine disturbs less than the wall
# clock. `check` runs on one core for its tally (its reading thread only feeds it bytes).
#
# Usage: benches/deal_stream.sh            (from the repository root)
#        RUNS=5 benches/deal_stream.sh
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
BIN=./target/release/shuffle-bias
DEALS=$(mktemp /tmp/shuffle-bias-deals.XXXXXX)
trap 'rm -f "$DEALS" "$DEALS.time"' EXIT

cargo build --release --quiet
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$BIN" run fisher-yates -n 52 -t 1M --seed 5 --quiet --no-deal-tests \
    --emit-permutations "$DEALS" -o /dev/null

best() { # command... -> "rate cpu" (best of RUNS)
    local best_rate=0 best_cpu=1e9
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f '%U' -o "$DEALS.time" "$@" --quiet --format json >"$DEALS.json"
        local rate cpu
        rate=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["shuffles_per_second"])' "$DEALS.json")
        cpu=$(tail -1 "$DEALS.time")
        best_rate=$(python3 -c "print(max($best_rate, $rate))")
        best_cpu=$(python3 -c "print(min($best_cpu, $cpu))")
    done
    rm -f "$DEALS.json"
    printf '%.3f M/s   %.2f s CPU' "$(python3 -c "print($best_rate / 1e6)")" "$best_cpu"
}

printf '%-58s %s\n' command "best rate · best user CPU"
for threads in 1 2; do
    for flag in "" "--no-deal-tests"; do
        printf '%-58s %s\n' "run fisher-yates -n 52 -t 1M --threads $threads $flag" \
            "$(best "$BIN" run fisher-yates -n 52 -t 1M --seed 1 --threads "$threads" $flag)"
    done
done
for flag in "" "--no-deal-tests"; do
    printf '%-58s %s\n' "check (1M 52-card deals) $flag" "$(best "$BIN" check "$DEALS" $flag)"
done
# Full mode: the compositions (n! counters) and the small slot tables.
for n in 4 8 10; do
    for flag in "" "--no-deal-tests"; do
        printf '%-58s %s\n' "run fisher-yates -n $n -t 20M --threads 1 $flag" \
            "$(best "$BIN" run fisher-yates -n "$n" -t 20M --seed 1 --threads 1 $flag)"
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
