#!/usr/bin/env bash
# Speed to decision of `--until-decided`: for each algorithm, the trials the sequential test used
# over SEEDS seeds (median, 90th percentile, largest) beside the trials that `theory` says give
# the fixed-sample permutations test 99% power, at the default alpha (0.001).
#
#   cargo build --release && benches/until_decided.sh [SEEDS] [DECK]
set -euo pipefail
seeds=${1:-101}
deck=${2:-4}
bin=${BIN:-target/release/shuffle-bias}
printf '| algorithm | 99%%-power trials (theory) | median trials to decision | 90th percentile | largest | decided |\n'
printf '|---|---:|---:|---:|---:|---:|\n'
for algorithm in naive sattolo comparator-insertion comparator-merge comparator-quick comparator-timsort; do
  power=$("$bin" theory "$algorithm" -n "$deck" --format json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["model"]["trials_for_99_power"])' 2>/dev/null || echo "?")
  for seed in $(seq 1 "$seeds"); do
    "$bin" run "$algorithm" -n "$deck" --seed "$seed" --until-decided --quiet --format json |
      python3 -c 'import json,sys; s=json.load(sys.stdin)["sequential"]; print(s["trials_used"], int(s["decided"]))' || true
  done | sort -n | awk -v a="$algorithm" -v p="$power" '
    { t[NR] = $1; d += $2 }
    END { printf "| %s | %s | %d | %d | %d | %d/%d |\n", a, p, t[int((NR + 1) / 2)], t[int(NR * 0.9 + 0.5)], t[NR], d, NR }'
done
