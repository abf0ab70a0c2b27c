#!/usr/bin/env bash
# Whether two builds of shuffle-bias give `run` and `theory` the same results: the JSON report of
# each build, without its timings, compared byte for byte, for the algorithms whose tallies take
# different paths (the fused vector passes up to 64 cards, the word passes to 256, the scalar
# statistics beyond), at the deck sizes where those paths change. Exit 0 when every output is the
# same. A companion of benches/check_identical.sh, which does the same for `check`.
#
# Usage: benches/run_identical.sh OLD_BINARY [NEW_BINARY]
#        (NEW_BINARY defaults to ./target/release/shuffle-bias, built first)
#        QUICK=1 benches/run_identical.sh OLD   (the small decks and 52 cards only)
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=benches/two_builds.sh
source benches/two_builds.sh

# The report without the fields that measure time (their names say so), keys sorted.
normalise_json() {
    python3 -c 'import json, sys
TIMING = ("elapsed", "seconds", "per_second")
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if not any(t in k for t in TIMING)}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
print(json.dumps(strip(json.load(open(sys.argv[1]))), sort_keys=True, indent=1))' "$1"
}

status=0
compare() { # name, then the command's arguments
    local name=$1
    shift
    for build in old new; do
        local bin=$OLD
        [ "$build" = new ] && bin=$NEW
        "$bin" "$@" --quiet --format json >"$DIR/$name.$build.json" 2>/dev/null || true
        normalise_json "$DIR/$name.$build.json" >"$DIR/$name.$build.norm"
    done
    if cmp -s "$DIR/$name.old.norm" "$DIR/$name.new.norm"; then
        echo "same:    $name"
    else
        echo "DIFFER:  $name"
        diff "$DIR/$name.old.norm" "$DIR/$name.new.norm" | head -20 || true
        status=1
    fi
}

for n in 3 4 5 8 10; do
    for algorithm in fisher-yates naive sattolo; do
        compare "run-$algorithm-$n" run "$algorithm" -n "$n" -t 300k --seed 7 --threads 2
    done
done
compare run-riffle-6 run riffle -n 6 -t 200k --seed 7
compare run-mapped-6 run fisher-yates -n 6 -t 200k --seed 7 --rng minstd --map modulo
compare theory-naive-8 theory naive -n 8
for n in 13 16 52 53 64; do
    for algorithm in fisher-yates naive sattolo riffle; do
        compare "run-$algorithm-$n" run "$algorithm" -n "$n" -t 200k --seed 7 --threads 2
    done
done
compare run-fy-52-no-deal-tests run fisher-yates -n 52 -t 300k --seed 3 --no-deal-tests
compare run-fy-52-one-thread run fisher-yates -n 52 -t 300k --seed 3 --threads 1
compare run-fy-52-until-decided run fisher-yates -n 52 -t 2M --seed 3 --until-decided
[ -n "${QUICK:-}" ] && exit $status

for n in 65 78 104 128 129 156 208 255 256 257 500 1000; do
    for algorithm in fisher-yates naive sattolo riffle; do
        compare "run-$algorithm-$n" run "$algorithm" -n "$n" -t 20k --seed 7 --threads 2
    done
done
exit $status
