#!/usr/bin/env bash
# 52 cards, marginal mode (issue #16, issue #15 item 5): the whole default run (every marginal
# statistic and the deal-stream tests), the same run with --no-deal-tests, and the positions-only
# reference loop (benches/reference_52.rs), side by side, same thread count, each the best of
# RUNS runs (default 3); ratios against the reference. The figure of a run is its report's
# `shuffles_per_second` (simulation, deal-stream counting included; start-up excluded); the
# reference times its own loop the same way.
#
# Usage: benches/throughput_52.sh             (from the repository root; benches/throughput.sh
#        RUNS=5 TRIALS_52=40M THREADS_52=1 benches/throughput_52.sh    runs it at its end)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
BIN=./target/release/shuffle-bias
cargo build --release --quiet
TRIALS_52=${TRIALS_52:-20M}
THREADS_52=${THREADS_52:-2}
trials_52=$(python3 -c "s='$TRIALS_52'; m={'K':10**3,'M':10**6,'G':10**9}; print(int(float(s[:-1])*m[s[-1]]) if s[-1] in m else int(s))")
cargo bench --bench reference_52 --no-run --quiet 2>/dev/null
REF_52=$(ls -t target/release/deps/reference_52-* | grep -v '\.d$' | head -1)
echo "52 cards: run fisher-yates -n 52 -t $TRIALS_52 --threads $THREADS_52 --seed 1 against the reference loop"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
rate_52() { # extra flags -> shuffles/s of one run
    "$BIN" run fisher-yates -n 52 -t "$TRIALS_52" --threads "$THREADS_52" --seed 1 --quiet \
        --format json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["shuffles_per_second"])'
}
best_all=0; best_plain=0; best_ref=0
for _ in $(seq "$RUNS"); do
    best_all=$(python3 -c "print(max($best_all, $(rate_52)))")
    best_plain=$(python3 -c "print(max($best_plain, $(rate_52 --no-deal-tests)))")
    r=$("$REF_52" "$trials_52" "$THREADS_52" 1 | sed -n 's/.*, \([0-9.]*\) shuffles\/s/\1/p')
    best_ref=$(python3 -c "print(max($best_ref, $r))")
done
python3 - "$best_all" "$best_plain" "$best_ref" <<'PY'
import sys
all_tests, plain, ref = map(float, sys.argv[1:])
print(f"{'job':<52} {'M shuffles/s':>12} {'vs reference':>13}")
print(f"{'reference loop (positions only)':<52} {ref / 1e6:>12.2f} {1:>12.2f}x")
print(f"{'run, all statistics + deal-stream tests (default)':<52} {all_tests / 1e6:>12.2f} {all_tests / ref:>12.2f}x")
print(f"{'run --no-deal-tests':<52} {plain / 1e6:>12.2f} {plain / ref:>12.2f}x")
print(f"deal-stream tests on / off: {all_tests / plain:.2f} (issue #15 asks at least 0.5)")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# Instructions per shuffle under callgrind (repeatable on a busy machine), one thread, with
# CALLGRIND=1: the difference between 300K and 100K shuffles, divided by 200K, so that start-up
# cancels out. OLD_BIN=path adds a column for another build (e.g. the code before a change).
if [ "${CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
    instructions() { # command... -> instructions executed
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
            sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
    }
    per_shuffle() { # command with the argument TRIALS -> instructions per shuffle
        local small large args
        args=("$@")
        small=$(instructions "${args[@]/#TRIALS/100000}")
        large=$(instructions "${args[@]/#TRIALS/300000}")
        python3 -c "print(round(($large - $small) / 200000))"
    }
    echo
    echo "instructions per shuffle (callgrind, one thread):"
    printf '%-60s %s\n' "reference loop (positions only)" "$(per_shuffle "$REF_52" TRIALS 1 1)"
    for build in "$BIN" ${OLD_BIN:+"$OLD_BIN"}; do
        tool=("$build" run fisher-yates -n 52 --threads 1 --seed 1 --quiet -t TRIALS)
        printf '%-60s %s\n' "$build (deal-stream tests on)" "$(per_shuffle "${tool[@]}")"
        printf '%-60s %s\n' "$build --no-deal-tests" "$(per_shuffle "${tool[@]}" --no-deal-tests)"
    done
fi
