#!/usr/bin/env bash
# Saved tallies: size on disk and the time to save and to read them, for the largest full tally
# (n = 11, 39,916,800 counters) and a 52-card marginal one, beside `dd` on the same disk.
#
# The save time is the one `run --shard` prints ("saved to FILE (N bytes in S s)"): encoding,
# checksum and writing, after the simulation. The read time is the one `merge` prints
# ("N bytes read in S s"): reading, checksum and adding into the total, before the report.
#
# Usage: benches/tally_file.sh            (from the repository root)
#        TRIALS=2G benches/tally_file.sh  (more shuffles: larger counts, same layout)
set -euo pipefail
cd "$(dirname "$0")/.."

TRIALS=${TRIALS:-400M}
BIN=$PWD/target/release/shuffle-bias
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

cargo build --release --quiet
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

echo "== n = 11, full mode, $TRIALS trials in 2 shards"
for i in 0 1; do
    "$BIN" run fisher-yates -n 11 -t "$TRIALS" --seed 1 --threads 2 --shard "$i/2" \
        --save-tally "$DIR/n11.$i.tally"
done
ls -l "$DIR"/n11.*.tally
echo "raw counters: 39,916,800 × 4 bytes (u32) = 159,667,200; × 8 (u64) = 319,334,400"
for run in 1 2 3; do
    "$BIN" merge "$DIR"/n11.*.tally -o "$DIR/report.txt" || [ $? -eq 1 ]  # 1: bias detected
done

echo
echo "== 52 cards, marginal mode, 10M trials in 2 shards"
for i in 0 1; do
    "$BIN" run riffle -n 52 --mode marginal -t 10M --seed 1 --threads 2 --shard "$i/2" \
        --save-tally "$DIR/m52.$i.tally"
done
ls -l "$DIR"/m52.*.tally
"$BIN" merge "$DIR"/m52.*.tally -o "$DIR/report.txt" || [ $? -eq 1 ]  # riffle once: biased

echo
echo "== the disk: write 38 MiB with fdatasync, read a tally after dropping the page cache"
dd if=/dev/zero of="$DIR/zero.bin" bs=1M count=38 conv=fdatasync 2>&1 | tail -1
rm "$DIR/zero.bin"
if sync && echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then
    dd if="$DIR/n11.0.tally" of=/dev/null bs=1M 2>&1 | tail -1
else
    echo "(cannot drop the page cache without root: cold read not measured)"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
