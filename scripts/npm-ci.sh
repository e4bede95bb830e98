#!/usr/bin/env bash
# npm-ci.sh [DIR] [PACKAGE_DIR]: install the npm packages of the server
# tests (tests/server/package.json, pinned by its package-lock.json), or
# of PACKAGE_DIR's (tests/viewer: the browser tests), into
# DIR/node_modules (default build/node) with `npm ci`; quick when DIR
# already holds that exact lockfile's packages.  The tests find them with
# NODE_PATH=DIR/node_modules.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-$src/build/node}
pkg=${2:-$src/tests/server}
mkdir -p "$dir"
lock=$pkg/package-lock.json
# One install at a time per DIR: CTest runs tests in parallel, and an
# `npm ci` empties node_modules first, under a test already running from
# it ("Cannot find module").  The next caller waits, then finds the
# packages in place.
exec 9>"$dir/.npm-ci.lock"
flock 9
if [ -f "$dir/node_modules/.sht-lock" ] && cmp -s "$lock" "$dir/node_modules/.sht-lock"; then
	exit 0
fi
command -v npm >/dev/null || { echo "npm-ci.sh: npm is missing (scripts/install-deps.sh)" >&2; exit 1; }
cp "$pkg/package.json" "$lock" "$dir/"
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
cp "$lock" "$dir/node_modules/.sht-lock"
echo "npm-ci.sh: packages installed in $dir/node_modules"
