#!/usr/bin/env bash
# npm-ci.sh [DIR]: install the npm packages of the server tests
# (tests/server/package.json, pinned by its package-lock.json) into
# DIR/node_modules (default build/node) with `npm ci`; quick when DIR
# already holds that exact lockfile's packages.  The tests find them with
# NODE_PATH=DIR/node_modules.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-$src/build/node}
mkdir -p "$dir"
lock=$src/tests/server/package-lock.json
if [ -f "$dir/node_modules/.sht-lock" ] && cmp -s "$lock" "$dir/node_modules/.sht-lock"; then
	exit 0
fi
command -v npm >/dev/null || { echo "npm-ci.sh: npm is missing (scripts/install-deps.sh)" >&2; exit 1; }
cp "$src/tests/server/package.json" "$lock" "$dir/"
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
cp "$lock" "$dir/node_modules/.sht-lock"
echo "npm-ci.sh: packages installed in $dir/node_modules"
