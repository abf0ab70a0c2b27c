#!/usr/bin/env bash
# Whether two builds of shuffle-bias give `check` the same results: the JSON report (without its
# timings) and the saved tally (without its timing and checksum) of each build, compared byte for
# byte, on generated inputs — one million 52-card decks (with and without the deal tests), five-card
# deals cut from them, 4-card decks with blank, comment and invalid lines mixed in
# (`--skip-invalid`), 52-card decks written 1-based with commas, 200,000 78-card decks, 50,000
# 104-card decks written 1-based with commas and 20,000 300-card decks of the naive shuffle.
# Exit 0 when every output is the same.
#
# Usage: benches/check_identical.sh OLD_BINARY [NEW_BINARY]
#        (NEW_BINARY defaults to ./target/release/shuffle-bias, built first)
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=benches/two_builds.sh
source benches/two_builds.sh

"$NEW" run fisher-yates -n 52 -t 1M --seed 1 --quiet --no-deal-tests -o /dev/null \
    --emit-permutations "$DIR/decks.txt"
grep -v '^#' "$DIR/decks.txt" | cut -d' ' -f1-5 >"$DIR/hands.txt"
head -200000 "$DIR/decks.txt" | awk 'NR > 1 { for (i = 1; i <= NF; i++) $i += 1 } 1' OFS=, \
    >"$DIR/one-based.txt"
"$NEW" run fisher-yates -n 4 -t 200k --seed 2 --quiet --no-deal-tests -o /dev/null \
    --emit-permutations "$DIR/small-clean.txt"
"$NEW" run fisher-yates -n 78 -t 200k --seed 3 --quiet --no-deal-tests -o /dev/null \
    --emit-permutations "$DIR/tarot.txt"
"$NEW" run fisher-yates -n 104 -t 50k --seed 5 --quiet --no-deal-tests -o /dev/null \
    --emit-permutations "$DIR/two-decks.txt"
awk 'NR > 1 { for (i = 1; i <= NF; i++) $i += 1 } 1' OFS=, "$DIR/two-decks.txt" \
    >"$DIR/two-decks-one-based.txt"
# (exit 1: the naive shuffle's bias is detected)
"$NEW" run naive -n 300 -t 20k --seed 4 --quiet --no-deal-tests -o /dev/null \
    --emit-permutations "$DIR/large.txt" || [ $? -eq 1 ]
awk 'NR % 37 == 0 { print "" } NR % 41 == 0 { print "# note" } NR % 43 == 0 { print "0 0 1 2" }
     NR % 47 == 0 { print "0 1 2" } { print }' "$DIR/small-clean.txt" >"$DIR/small.txt"

# Report without the timings; tally file without the header's timing and the final checksum.
normalise_json() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for key in ("shuffles_per_second", "elapsed_seconds"):
    d.pop(key, None)
print(json.dumps(d, sort_keys=True, indent=1))' "$1"
}
normalise_tally() {
    python3 -c 'import re, sys
data = open(sys.argv[1], "rb").read()[:-4]
start = data.index(b"{")
# The header is JSON after its length (which the timing changes): compare from its brace.
sys.stdout.buffer.write(re.sub(rb"\"elapsed_seconds\":[0-9.e+-]+", b"", data[start:]))' "$1"
}

status=0
compare() { # name, then check's arguments
    local name=$1
    shift
    for build in old new; do
        local bin=$OLD
        [ "$build" = new ] && bin=$NEW
        local save=()
        case " $* " in *" --deal "*) ;; *) save=(--save-tally "$DIR/$name.$build.tally") ;; esac
        "$bin" check "$@" --quiet --format json "${save[@]}" >"$DIR/$name.$build.json" || true
        normalise_json "$DIR/$name.$build.json" >"$DIR/$name.$build.norm"
        if [ ${#save[@]} -gt 0 ]; then
            normalise_tally "$DIR/$name.$build.tally" >"$DIR/$name.$build.tnorm"
        fi
    done
    if cmp -s "$DIR/$name.old.norm" "$DIR/$name.new.norm" &&
        { [ ! -e "$DIR/$name.old.tnorm" ] || cmp -s "$DIR/$name.old.tnorm" "$DIR/$name.new.tnorm"; }; then
        echo "same:    $name"
    else
        echo "DIFFER:  $name"
        diff "$DIR/$name.old.norm" "$DIR/$name.new.norm" | head -20 || true
        status=1
    fi
}

compare decks-52 "$DIR/decks.txt"
compare decks-52-no-deal-tests "$DIR/decks.txt" --no-deal-tests
compare decks-52-one-based-commas "$DIR/one-based.txt"
compare deals-5-of-52 "$DIR/hands.txt" --deal 5 --deck 52
compare decks-78 "$DIR/tarot.txt"
compare decks-104-one-based-commas "$DIR/two-decks-one-based.txt"
compare decks-300-naive "$DIR/large.txt"
compare decks-4-mixed-lines "$DIR/small.txt" --skip-invalid
compare decks-4-mixed-lines-no-deal-tests "$DIR/small.txt" --skip-invalid --no-deal-tests
exit $status
