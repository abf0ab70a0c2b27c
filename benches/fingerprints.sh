#!/usr/bin/env bash
# The deal-stream fingerprints (issue #16): two builds side by side on the runs whose
# fingerprints they hash and sort — `run fisher-yates -n 52 -t 10M --threads 1` (one list of
# 10M, sorted once), `-t 20M --threads 2` (two lists of 10M, sorted by their workers, counted
# together) and `check` of 1M 52-card decks (one list, sorted in `finish`) — then the
# micro-bench of the sort and the hash (benches/fingerprint_sort.rs).
#
# Figures: each run's JSON `shuffles_per_second` (simulation and deal-stream counting, sort of
# the workers' lists included; start-up excluded) and the user CPU seconds of the whole process
# (final count of repeats included), best of RUNS (default 3), the builds taking turns.
#
# Usage: OLD_BIN=/tmp/shuffle-bias-before benches/fingerprints.sh     (from the repository root;
#        e.g. `git stash; cargo build --release; cp target/release/shuffle-bias /tmp/…`)
#        RUNS=5 OLD_BIN=… benches/fingerprints.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
NEW_BIN=${NEW_BIN:-./target/release/shuffle-bias}
: "${OLD_BIN:?set OLD_BIN to the build to compare with}"
DEALS=$(mktemp /tmp/shuffle-bias-prints.XXXXXX)
trap 'rm -f "$DEALS" "$DEALS.time" "$DEALS.json"' EXIT
cargo build --release --quiet
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$NEW_BIN" run fisher-yates -n 52 -t 1M --seed 5 --quiet --no-deal-tests \
    --emit-permutations "$DEALS" -o /dev/null

measure() { # binary, arguments... -> "rate cpu" of one run
    local bin=$1
    shift
    /usr/bin/time -f '%U' -o "$DEALS.time" "$bin" "$@" --quiet --format json >"$DEALS.json" || true
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["shuffles_per_second"], open(sys.argv[2]).read().split()[-1])' \
        "$DEALS.json" "$DEALS.time"
}

printf '%-44s %14s %14s %9s %9s %7s\n' job "old M/s" "new M/s" "old CPU s" "new CPU s" "new/old"
job() { # label, arguments...
    local label=$1
    shift
    local old_rate=0 new_rate=0 old_cpu=1e9 new_cpu=1e9 rate cpu
    for _ in $(seq "$RUNS"); do
        read -r rate cpu < <(measure "$OLD_BIN" "$@")
        old_rate=$(python3 -c "print(max($old_rate, $rate))")
        old_cpu=$(python3 -c "print(min($old_cpu, $cpu))")
        read -r rate cpu < <(measure "$NEW_BIN" "$@")
        new_rate=$(python3 -c "print(max($new_rate, $rate))")
        new_cpu=$(python3 -c "print(min($new_cpu, $cpu))")
    done
    python3 -c "print(f'{\"$label\":<44} {$old_rate/1e6:>14.2f} {$new_rate/1e6:>14.2f} {$old_cpu:>9.2f} {$new_cpu:>9.2f} {$new_rate/$old_rate:>6.3f}x')"
}
job "run -n 52 -t 10M --threads 1" run fisher-yates -n 52 -t 10M --threads 1 --seed 1
job "run -n 52 -t 20M --threads 2" run fisher-yates -n 52 -t 20M --threads 2 --seed 1
job "check of 1M 52-card decks" check "$DEALS"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
cargo bench --quiet --bench fingerprint_sort 2>/dev/null
