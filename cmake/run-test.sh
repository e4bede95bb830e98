#!/usr/bin/env bash
# run-test.sh CMD [ARG]...: run one CTest test in a fresh scratch directory.
# Empties SHT_TMP (set per test by CMakeLists.txt), enters it and runs CMD;
# the directory is kept afterwards for inspection.
set -euo pipefail
: "${SHT_TMP:?SHT_TMP must name the test scratch directory}"
rm -rf -- "$SHT_TMP"
mkdir -p -- "$SHT_TMP"
cd -- "$SHT_TMP"
exec "$@"
