#!/usr/bin/env bash
# Throughput of `check --deal 5 --game poker` on one million five-card hands (the first five
# cards of one million Fisher–Yates 52-card decks from `run --emit-permutations`), written as
# numbers and as card names, and of the ordinary check of 200,000 whole 52-card decks written
# as card names (`--cards standard`) against the same decks as numbers.
#
# The figure is the report's `shuffles_per_second` (deals read per second: reading, parsing,
# classifying and tallying; start-up and the tests excluded); each figure is the best of RUNS
# runs (default 3). The wall time and peak RSS of one whole run are given beside it.
#
# Usage: benches/deal_hands.sh            (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
BIN=./target/release/shuffle-bias
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

cargo build --release --quiet
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

"$BIN" run fisher-yates -n 52 -t 1M --seed 1 --quiet -o /dev/null \
    --emit-permutations "$DIR/decks.txt"
grep -v '^#' "$DIR/decks.txt" | cut -d' ' -f1-5 > "$DIR/hands.txt"
python3 - "$DIR" <<'PY'
import sys
d = sys.argv[1]
names = [r + s for s in "shdc" for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()]
with open(f"{d}/hands.txt") as f, open(f"{d}/hands-named.txt", "w") as g:
    for line in f:
        g.write(" ".join(names[int(t)] for t in line.split()) + "\n")
with open(f"{d}/decks.txt") as f, open(f"{d}/decks-200k.txt", "w") as g, \
        open(f"{d}/decks-200k-named.txt", "w") as h:
    kept = 0
    for line in f:
        if line.startswith("#"):
            continue
        g.write(line)
        h.write(" ".join(names[int(t)] for t in line.split()) + "\n")
        kept += 1
        if kept == 200_000:
            break
PY

best() { # args... -> best deals/s over RUNS runs
    local best=0 r
    for _ in $(seq "$RUNS"); do
        r=$("$BIN" check --quiet --format json "$@" |
            python3 -c 'import json,sys; print(json.load(sys.stdin)["shuffles_per_second"])')
        best=$(python3 -c "print(max($best, $r))")
    done
    printf '%.2f' "$(python3 -c "print($best / 1e6)")"
}

whole() { # args... -> "wall s, peak RSS MiB" of one run
    /usr/bin/time -f '%e s, %M' "$BIN" check --quiet -o /dev/null "$@" 2>&1 >/dev/null |
        awk -F', ' '{printf "%s, %.0f MiB", $1, $2 / 1024}'
}

printf '\n%-58s %-14s %s\n' input "M deals/s" "one run: wall, peak RSS"
for args in \
    "$DIR/hands.txt --deal 5 --deck 52 --game poker" \
    "$DIR/hands-named.txt --deal 5 --cards standard --game poker" \
    "$DIR/hands.txt --deal 5 --deck 52" \
    "$DIR/decks-200k.txt --deck 52" \
    "$DIR/decks-200k-named.txt --cards standard"; do
    # shellcheck disable=SC2086
    printf '%-58s %-14s %s\n' "${args#"$DIR"/}" "$(best $args)" "$(whole $args)"
done
