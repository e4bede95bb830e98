#!/usr/bin/env bash
# run-bindings.sh [BUILD] [OUT.jsonl]: the benchmarks of the SQLite
# extension and the Python package (docs/SQL.md and docs/PYTHON.md,
# "Performance"), appended to OUT (default
# bench/results/bindings-DATE.jsonl), one JSON object per line:
#   - sht-sqlite-ext-bench on many-threads (with a plain SQLite table of
#     the same intervals) and on the staircase A = 1 000 000 history:
#     point queries through SQL against the C call and SQLite's
#     per-statement cost, 2D windows;
#   - bench/py-bench.py: a 2D query of 1000 attributes at resolution
#     1920 on the staircase into numpy against the C call; a Python
#     provider over many-threads against iterating it with bt2.
# Needs the release tree (scripts/build.sh release) and ../shared/traces.
# Scratch files (a 110 MB staircase history) go to a temporary directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${1:-build/release}
out=${2:-bench/results/bindings-$(date +%F).jsonl}
traces=${SHT_SHARED:-../shared}/traces
py=${PYTHON:-/usr/bin/python3}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

"$build/sht" gen staircase --attributes 1000000 -o "$scratch/stair.sht" >/dev/null
"$build/sht" build "$traces/many-threads" -o "$scratch/mt.sht" --no-progress >/dev/null
module=$build/sqlite/sht_sqlite.so
echo "== SQL: many-threads" >&2
"$build/sht-sqlite-ext-bench" "$module" "$scratch/mt.sht" --plain --rounds 11 | tee -a "$out"
echo "== SQL: staircase A = 1 000 000" >&2
"$build/sht-sqlite-ext-bench" "$module" "$scratch/stair.sht" --rounds 11 | tee -a "$out"
echo "== Python" >&2
PYTHONPATH=$build/python "$py" bench/py-bench.py --staircase "$scratch/stair.sht" \
	--trace "$traces/many-threads" --rounds 7 --scratch "$scratch" --json "$out"
