#!/usr/bin/env bash
# The speed goals of issue #32, whole processes (start-up, the exact law and the report
# included), each job of the tool alternated with its reference loop from
# ../shared/bench-reference (built here outside the project's target directory), RUNS times
# (default 5); prints the median wall time of each and their ratio (reference time / tool time:
# above 1 the tool is faster), the machine and its load.
#
# Usage: benches/goals.sh                 (from the repository root)
#        RUNS=3 THREADS=2 benches/goals.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
THREADS=${THREADS:-2}
BIN=./target/release/shuffle-bias
REF_DIR=../shared/bench-reference
REF_TARGET=${REF_TARGET:-${TMPDIR:-/tmp}/shuffle-bias-bench-reference}
cargo build --release --quiet
CARGO_TARGET_DIR="$REF_TARGET" cargo build --release --quiet --manifest-path "$REF_DIR/Cargo.toml"
REF="$REF_TARGET/release/shufbench"
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "runs: $RUNS alternating, threads: $THREADS"

# Wall seconds of one command, its output discarded (exit 1, bias detected, is no failure).
wall() {
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || [ $? -eq 1 ]
    end=$(date +%s.%N)
    python3 -c "print(f'{$end - $start:.3f}')"
}
median() { python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.3f}')" "$@"; }

# job NAME "TOOL COMMAND" ["REFERENCE COMMAND"]
job() {
    local name=$1 tool=$2 reference=${3:-} t=() r=()
    for _ in $(seq "$RUNS"); do
        # shellcheck disable=SC2086
        t+=("$(wall $tool)")
        if [ -n "$reference" ]; then
            # shellcheck disable=SC2086
            r+=("$(wall $reference)")
        fi
    done
    local tm rm
    tm=$(median "${t[@]}")
    if [ -n "$reference" ]; then
        rm=$(median "${r[@]}")
        printf '%-46s tool %7.3f s   reference %7.3f s   ratio %.2f×\n' "$name" "$tm" "$rm" \
            "$(python3 -c "print($rm / $tm)")"
    else
        printf '%-46s tool %7.3f s\n' "$name" "$tm"
    fi
}

job "run fisher-yates -n 52 -t 20M (every test)" \
    "$BIN run fisher-yates -n 52 -t 20M --threads $THREADS --seed 1 --quiet" \
    "$REF posfast 52 20000000 $THREADS"
job "run fisher-yates -n 52 -t 20M --no-deal-tests" \
    "$BIN run fisher-yates -n 52 -t 20M --threads $THREADS --seed 1 --quiet --no-deal-tests" \
    "$REF posfast 52 20000000 $THREADS"
job "run fisher-yates -n 10 -t 40M" \
    "$BIN run fisher-yates -n 10 -t 40M --threads $THREADS --seed 1 --quiet" \
    "$REF run chacha8 fy 10 40000000 $THREADS"
job "run fisher-yates -n 4 -t 400M" \
    "$BIN run fisher-yates -n 4 -t 400M --threads $THREADS --seed 1 --quiet" \
    "$REF run chacha8 fy 4 400000000 $THREADS"
job "fixed cost: run fisher-yates -n 10 -t 1000" \
    "$BIN run fisher-yates -n 10 -t 1000 --threads $THREADS --seed 1 --quiet"
job "theory naive -n 10" "$BIN theory naive -n 10 --quiet"
"$BIN" run fisher-yates -n 52 -t 1M --seed 2 --quiet --no-deal-tests -o /dev/null \
    --emit-permutations "$DIR/decks.txt"
job "check of 1M 52-card decks (a file)" "$BIN check $DIR/decks.txt --quiet"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
