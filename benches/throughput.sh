#!/usr/bin/env bash
# Throughput benchmark for shuffle-bias: shuffles per second of `run fisher-yates` for
# n = 4, 8, 10 with 1 and 2 threads, peak RSS, each generator (`--rng`, lemire and modulo), lines per second of `check` (with `wc -l` on
# the same file as the I/O ceiling), and a plain-Python baseline for scale.
#
# The figure is the report's `shuffles_per_second` (JSON), which excludes start-up (argument
# parsing, the exact law, the statistics); each figure is the best of RUNS runs (default 3).
# hyperfine, if installed, additionally times whole runs (start-up included).
#
# The first section sets the tool (whole `run`, default flags: deal-stream tests on) beside the
# hand-written reference loop of issue #16 (benches/reference_small.rs), one after the other in
# the same run, for n = 4 and n = 10 on 2 threads, and prints the ratio of the medians.
#
# Usage: benches/throughput.sh            (from the repository root)
#        RUNS=5 benches/throughput.sh
#        SECTIONS=reference benches/throughput.sh   (only the side-by-side section)
#        BASE_BIN=/path/to/older/shuffle-bias SECTIONS=reference benches/throughput.sh
#            (adds that binary, default flags, to the side-by-side section: before and after)
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
BIN=./target/release/shuffle-bias

SECTIONS=${SECTIONS:-all}

cargo build --release --quiet
cargo bench --bench reference_small --no-run --quiet 2>/dev/null
REFERENCE=$(cargo bench --bench reference_small --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("executable") and m.get("target", {}).get("name") == "reference_small":
        print(m["executable"])')
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

median() { python3 -c 'import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

echo "side by side (issue #16): run fisher-yates (default flags, deal-stream tests on) vs the"
echo "reference loop (ChaCha8, random_range, byte array, Lehmer rank, u64 tally), 2 threads,"
echo "alternating, median of $RUNS each"
BASE_BIN=${BASE_BIN:-}
printf '%-6s %-8s %-12s %-12s %-12s %-14s %s\n' deck trials "tool M/s" "no-deal M/s" "base M/s" "reference M/s" "ratio tool/ref"
declare -A SIDE_TRIALS=([4]=400M [10]=40M)
declare -A SIDE_COUNT=([4]=400000000 [10]=40000000)
for n in 4 10; do
    tool=() plain=() ref=() base=(0)
    for _ in $(seq "$RUNS"); do
        tool+=("$("$BIN" run fisher-yates -n "$n" -t "${SIDE_TRIALS[$n]}" --threads 2 --seed 1 \
            --quiet --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["shuffles_per_second"])')")
        plain+=("$("$BIN" run fisher-yates -n "$n" -t "${SIDE_TRIALS[$n]}" --threads 2 --seed 1 \
            --quiet --no-deal-tests --format json |
            python3 -c 'import json,sys; print(json.load(sys.stdin)["shuffles_per_second"])')")
        ref+=("$("$REFERENCE" "$n" "${SIDE_COUNT[$n]}" 2 | awk '/^shuffles_per_second/ {print $2}')")
        if [ -n "$BASE_BIN" ]; then
            base+=("$("$BASE_BIN" run fisher-yates -n "$n" -t "${SIDE_TRIALS[$n]}" --threads 2 \
                --seed 1 --quiet --format json |
                python3 -c 'import json,sys; print(json.load(sys.stdin)["shuffles_per_second"])')")
        fi
    done
    t=$(median "${tool[@]}") p=$(median "${plain[@]}") r=$(median "${ref[@]}")
    b=$( [ -n "$BASE_BIN" ] && median "${base[@]:1}" || echo 0)
    printf '%-6s %-8s %-12.1f %-12.1f %-12.1f %-14.1f %.2f\n' "$n" "${SIDE_TRIALS[$n]}" \
        "$(python3 -c "print($t / 1e6)")" "$(python3 -c "print($p / 1e6)")" \
        "$(python3 -c "print($b / 1e6)")" "$(python3 -c "print($r / 1e6)")" \
        "$(python3 -c "print($t / $r)")"
done
echo "load average after the side-by-side section: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$SECTIONS" = reference ]; then
    exit 0
fi
echo

# trials per deck size: long enough that start-up is a small part of the wall time
declare -A TRIALS=([4]=500M [8]=200M [10]=200M)

rate() { # deck threads -> shuffles/s of one run
    "$BIN" run fisher-yates -n "$1" -t "${TRIALS[$1]}" --threads "$2" --seed 1 --quiet \
        --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["shuffles_per_second"])'
}

peak_rss_mib() { # deck threads -> peak resident set of one run, MiB
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -v "$BIN" run fisher-yates -n "$1" -t "${TRIALS[$1]}" --threads "$2" \
            --seed 1 --quiet >/dev/null 2>/tmp/shuffle-bias-time.$$ || true
        awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' /tmp/shuffle-bias-time.$$
        rm -f /tmp/shuffle-bias-time.$$
    else
        printf 'n/a'
    fi
}

printf '%-6s %-8s %-12s %-22s %s\n' deck threads trials "M shuffles/s (best)" "peak RSS MiB"
for n in 4 8 10; do
    for threads in 1 2; do
        best=0
        for _ in $(seq "$RUNS"); do
            r=$(rate "$n" "$threads")
            best=$(python3 -c "print(max($best, $r))")
        done
        printf '%-6s %-8s %-12s %-22.1f %s\n' "$n" "$threads" "${TRIALS[$n]}" \
            "$(python3 -c "print($best / 1e6)")" "$(peak_rss_mib "$n" "$threads")"
    done
done

echo
echo "each generator: run fisher-yates -n 10 -t 20M --threads 2 --rng NAME [--map modulo]"
printf '%-20s %-22s %s\n' rng "lemire M shuffles/s" "modulo M shuffles/s"
gen_rate() { # rng map -> shuffles/s of one run (a weak generator's run exits 1: bias found)
    { "$BIN" run fisher-yates -n 10 -t 20M --threads 2 --seed 1 --quiet --rng "$1" --map "$2" \
        --format json || [ $? -eq 1 ]; } | python3 -c 'import json,sys; print(json.load(sys.stdin)["shuffles_per_second"])'
}
for rng in chacha8 chacha12 chacha20 mt19937 xorshift128+ xorshift128+-legacy java msvc ansi-c \
    minstd pcg32 xoshiro256++; do
    lemire=$(gen_rate "$rng" lemire)
    modulo=$(gen_rate "$rng" modulo)
    printf '%-20s %-22.1f %.1f\n' "$rng" "$(python3 -c "print($lemire / 1e6)")" \
        "$(python3 -c "print($modulo / 1e6)")"
done

if command -v hyperfine >/dev/null; then
    echo
    echo "hyperfine, whole runs (start-up included):"
    hyperfine --warmup 1 --runs "$RUNS" --style basic \
        "$BIN run fisher-yates -n 4 -t 500M --threads 2 --quiet --seed 1" \
        "$BIN run fisher-yates -n 10 -t 200M --threads 2 --quiet --seed 1"
fi

echo
echo "check: parsing n = 4 permutations from a file (20M lines written by run --emit-permutations)"
LINES_FILE=$(mktemp)
"$BIN" run fisher-yates -n 4 -t 20M --seed 1 --quiet --emit-permutations "$LINES_FILE" >/dev/null
cat "$LINES_FILE" >/dev/null # warm the page cache
best=0
for _ in $(seq "$RUNS"); do
    r=$("$BIN" check "$LINES_FILE" --quiet --format json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["shuffles_per_second"])')
    best=$(python3 -c "print(max($best, $r))")
done
printf 'check: %.1f M lines/s (best of %s; reading and tallying only)\n' \
    "$(python3 -c "print($best / 1e6)")" "$RUNS"
wc_best=0
for _ in $(seq "$RUNS"); do
    start=$(date +%s.%N)
    wc -l "$LINES_FILE" >/dev/null
    end=$(date +%s.%N)
    wc_best=$(python3 -c "print(max($wc_best, 20_000_001 / ($end - $start)))")
done
printf 'wc -l on the same file (the I/O ceiling): %.0f M lines/s\n' \
    "$(python3 -c "print($wc_best / 1e6)")"
rm -f "$LINES_FILE"

echo
echo "plain Python (fisher-yates, n = 4, random.randrange, tuples tallied in a dict, 1M):"
python3 - <<'PY'
import random, time
random.seed(1)
n, trials = 4, 1_000_000
counts = {}
start = time.perf_counter()
for _ in range(trials):
    deck = list(range(n))
    for i in range(n - 1, 0, -1):
        j = random.randrange(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    key = tuple(deck)
    counts[key] = counts.get(key, 0) + 1
elapsed = time.perf_counter() - start
print(f"{trials / elapsed / 1e6:.2f} M shuffles/s ({elapsed:.2f} s, {len(counts)} orderings)")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------------------------------------
# 52 cards, marginal mode, against the reference loop (issues #16 and #15): its own script, so
# that it can also be run alone.
echo
RUNS=$RUNS benches/throughput_52.sh
