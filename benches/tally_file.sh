#!/usr/bin/env bash
# Saved tallies: size on disk, and the time to save and to merge them side by side with `dd`
# and `cat` moving the same bytes on the same disk, in the same run, for the largest full tally
# (n = 11, 39,916,800 counters) and a 52-card marginal one.
#
# The save time is the one `run --shard` prints ("saved to FILE (N bytes in S s)"): choosing
# the encoding, encoding, checksum and writing, after the simulation. Right after each save,
# `dd` writes as many bytes from /dev/zero to a file beside it and `cat` copies the tally (both
# into the page cache, as the save: none of them syncs). The merge time is the one `merge`
# prints ("N bytes read in S s"): reading, checksum and adding into the total, before the
# report; beside it, `cat` and `dd` read the same files to /dev/null from the page cache, and
# `dd iflag=direct` reads them from the disk itself (O_DIRECT: the page cache bypassed), the
# disk-speed mark. Then the whole `merge` command (report included) is timed, with
# `--threads 1` too. Times of dd, cat and whole commands are bash's `time` (wall clock).
#
# BASELINE=/path/to/an/older/shuffle-bias runs each merge and the `run -n 11 -t 100M` line with
# that binary too, side by side in the same run (copy target/release/shuffle-bias aside before
# building the change).
#
# The shards run with --no-deal-tests to keep the benchmark short: for n = 11 the deal stream
# adds 1,343 counters to the file (no compositions past 10 cards), nothing to measure.
#
# Usage: benches/tally_file.sh            (from the repository root)
#        TRIALS=2G benches/tally_file.sh  (more shuffles: larger counts, same layout)
#        REPEATS=5 benches/tally_file.sh  (more merges of the same files)
#        BASELINE=/tmp/old-shuffle-bias benches/tally_file.sh  (before/after, side by side)
set -euo pipefail
cd "$(dirname "$0")/.."

TRIALS=${TRIALS:-400M}
REPEATS=${REPEATS:-3}
BASELINE=${BASELINE:-}
BIN=$PWD/target/release/shuffle-bias
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
TIMEFORMAT='%3R s'

cargo build --release --quiet
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
echo "disk of the files: $(df -h "$DIR" | awk 'NR==2 {print $1, $6}')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# Save shard I of `run ARGS` to NAME.I.tally, then dd and cat the same bytes.
save_beside_dd() {
    local name=$1 i=$2
    shift 2
    "$BIN" run "$@" --shard "$i/2" --save-tally "$DIR/$name.$i.tally" 2>&1 \
        | grep -o 'saved to .*' | sed "s|$DIR/||"
    local bytes
    bytes=$(stat -c %s "$DIR/$name.$i.tally")
    echo -n "  dd of $bytes bytes from /dev/zero: "
    { time dd if=/dev/zero of="$DIR/dd.bin" bs=4M count="$bytes" iflag=count_bytes \
        status=none; } 2>&1
    echo -n "  cat of the tally to a new file: "
    { time cat "$DIR/$name.$i.tally" > "$DIR/cat.bin"; } 2>&1
    rm -f "$DIR/dd.bin" "$DIR/cat.bin"
}

# Merge NAME.*.tally REPEATS times, each beside cat and dd of the same files, and time the
# whole command (with --threads 1, and with the BASELINE binary when given).
merge_beside_cat() {
    local name=$1
    for run in $(seq "$REPEATS"); do
        "$BIN" merge "$DIR/$name".*.tally -o "$DIR/report.txt" 2>&1 \
            | grep -o 'merged .*' || true
        if [ -n "$BASELINE" ]; then
            echo -n "  baseline: "
            "$BASELINE" merge "$DIR/$name".*.tally -o "$DIR/report.txt" 2>&1 \
                | grep -o 'merged .*' || true
        fi
        echo -n "  cat of the same files to /dev/null: "
        { time cat "$DIR/$name".*.tally > /dev/null; } 2>&1
        echo -n "  dd (bs=4M) of the same files to /dev/null: "
        { time for f in "$DIR/$name".*.tally; do
            dd if="$f" of=/dev/null bs=4M status=none
        done; } 2>&1
        echo -n "  dd (bs=4M, iflag=direct: from the disk) of the same files: "
        { time for f in "$DIR/$name".*.tally; do
            dd if="$f" of=/dev/null bs=4M iflag=direct status=none
        done; } 2>&1
        echo -n "  whole merge command (report included): "
        { time ("$BIN" merge -q "$DIR/$name".*.tally -o "$DIR/report.txt" || true); } 2>&1
        echo -n "  whole merge command, --threads 1: "
        { time ("$BIN" merge -q --threads 1 "$DIR/$name".*.tally -o "$DIR/report.txt" \
            || true); } 2>&1
        if [ -n "$BASELINE" ]; then
            echo -n "  whole merge command, baseline: "
            { time ("$BASELINE" merge -q "$DIR/$name".*.tally -o "$DIR/report.txt" || true); } 2>&1
        fi
    done
}

echo "== n = 11, full mode, $TRIALS trials in 2 shards"
for i in 0 1; do
    save_beside_dd n11 "$i" fisher-yates -n 11 -t "$TRIALS" --seed 1 --threads 2 --no-deal-tests
done
ls -l "$DIR"/n11.*.tally | awk '{print "  " $5, $NF}' | sed "s|$DIR/||"
echo "  raw counters: 39,916,800 × 4 bytes (u32) = 159,667,200; × 8 (u64) = 319,334,400"
merge_beside_cat n11

echo
echo "== 52 cards, marginal mode, 4M trials in 2 shards (deal stream kept)"
for i in 0 1; do
    save_beside_dd m52 "$i" riffle -n 52 --mode marginal -t 4M --seed 1 --threads 2
done
ls -l "$DIR"/m52.*.tally | awk '{print "  " $5, $NF}' | sed "s|$DIR/||"
merge_beside_cat m52

echo
echo "== whole run with its full report: run fisher-yates -n 11 -t 100M --seed 1 --threads 2"
for run in $(seq "$REPEATS"); do
    echo -n "  this build: "
    { time "$BIN" run fisher-yates -n 11 -t 100M --seed 1 --threads 2 -q \
        -o "$DIR/run.txt" 2>/dev/null; } 2>&1
    if [ -n "$BASELINE" ]; then
        echo -n "  baseline: "
        { time "$BASELINE" run fisher-yates -n 11 -t 100M --seed 1 --threads 2 -q \
            -o "$DIR/run.txt" 2>/dev/null; } 2>&1
    fi
done

echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
