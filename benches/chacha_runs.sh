#!/usr/bin/env bash
# Whole runs before and after a change to the simulation's word generator (the sixteen-block
# AVX-512 ChaCha core): `run fisher-yates` for -n 52 -t 20M, -n 4 -t 400M and -n 10 -t 40M on
# 2 threads and -n 52 -t 5M on one (default flags), this tree's build and BASE_BIN alternating,
# and CPU time per shuffle of -n 52 -t 4M on one thread (perf stat's task-clock, start-up
# included: a few ms), each the median of
# RUNS runs (default 5) of the report's `shuffles_per_second`; then the raw word rate
# (benches/chacha_words.rs). With CALLGRIND=1, instructions per shuffle of -n 52 on one thread
# for both builds (the difference between 300K and 100K shuffles over 200K, so start-up cancels);
# valgrind's virtual CPU has no AVX-512, so those count the rand_chacha path of both builds.
#
# Usage: BASE_BIN=/path/to/older/shuffle-bias benches/chacha_runs.sh   (from the repository root)
#        RUNS=7 CALLGRIND=1 BASE_BIN=... benches/chacha_runs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
BIN=./target/release/shuffle-bias
: "${BASE_BIN:?set BASE_BIN to a build from before the change}"
cargo build --release --quiet
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
rate() { # binary n trials threads -> shuffles/s of one run
    "$1" run fisher-yates -n "$2" -t "$3" --threads "$4" --seed 1 --quiet --format json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["shuffles_per_second"])'
}
median() { python3 -c 'import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
printf '%-28s %12s %12s %8s\n' job "before M/s" "after M/s" ratio
for job in "52 20M 2" "4 400M 2" "10 40M 2" "52 5M 1"; do
    set -- $job
    before=() after=()
    for _ in $(seq "$RUNS"); do
        before+=("$(rate "$BASE_BIN" "$1" "$2" "$3")")
        after+=("$(rate "$BIN" "$1" "$2" "$3")")
    done
    b=$(median "${before[@]}") a=$(median "${after[@]}")
    printf '%-28s %12.2f %12.2f %7.2fx\n' "-n $1 -t $2 --threads $3" \
        "$(python3 -c "print($b / 1e6)")" "$(python3 -c "print($a / 1e6)")" \
        "$(python3 -c "print($a / $b)")"
done
if command -v perf >/dev/null; then
    cpu_ns() { # binary -> CPU ns per shuffle of -n 52 -t 4M on one thread (perf's task-clock)
        perf stat -x, -e task-clock "$1" run fisher-yates -n 52 -t 4M --threads 1 --seed 1 \
            --quiet 2>&1 >/dev/null | awk -F, '/task-clock/ {print $1 * 1e6 / 4e6}'
    }
    before=() after=()
    for _ in $(seq "$RUNS"); do
        before+=("$(cpu_ns "$BASE_BIN")")
        after+=("$(cpu_ns "$BIN")")
    done
    b=$(median "${before[@]}") a=$(median "${after[@]}")
    printf '%-28s %12.0f %12.0f %7.2fx\n' "CPU ns/shuffle -n 52, 1 thr" "$b" "$a" \
        "$(python3 -c "print($b / $a)")"
fi
echo "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
cargo bench --bench chacha_words --quiet -- 200000000 3 2>/dev/null
echo "load average after the raw rates: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "${CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
    instructions() { # command... -> instructions executed
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
            sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
    }
    echo
    echo "instructions per shuffle, -n 52, one thread (callgrind):"
    for build in "$BASE_BIN" "$BIN"; do
        small=$(instructions "$build" run fisher-yates -n 52 --threads 1 --seed 1 --quiet -t 100000)
        large=$(instructions "$build" run fisher-yates -n 52 --threads 1 --seed 1 --quiet -t 300000)
        printf '%-50s %s\n' "$build" "$(python3 -c "print(round(($large - $small) / 200000))")"
    done
fi
