# Sourced by benches/check_identical.sh and benches/run_identical.sh (from the repository root):
# OLD and NEW, the two builds compared (NEW_BINARY defaults to ./target/release/shuffle-bias,
# built first), and DIR, a scratch directory removed at exit unless KEEP is set.
# Usage of the sourcing script: SCRIPT OLD_BINARY [NEW_BINARY]
OLD=${1:?usage: $0 OLD_BINARY [NEW_BINARY]}
if [ -z "${2:-}" ]; then
    cargo build --release --quiet
    NEW=./target/release/shuffle-bias
else
    NEW=$2
fi
DIR=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$DIR"' EXIT
