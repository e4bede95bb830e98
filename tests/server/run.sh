#!/usr/bin/env bash
# run.sh TEST.js [SERVER OPTION]...: the CTest entry of a server test
# (tests/server/TEST.js; DIR/TEST.js is tests/DIR/TEST.js, e.g. the
# viewer's browser tests, whose npm packages are in $SHT_NPM_PKG).
# Installs the test's npm packages (scripts/npm-ci.sh, into
# $SHT_NODE_DIR), starts `sht serve` on a free port with its cache in
# $SHT_TMP/cache and the traces of $SHT_SHARED as its root, runs the test
# under Node with SHT_SERVER_URL, SHT_CACHE and SHT_SERVER_PID set, then
# stops the server with SIGTERM and checks that it stopped cleanly (exit
# status 0) and left no temporary history in the cache.
set -uo pipefail
: "${SHT:?}" "${SHT_TMP:?}" "${SHT_SHARED:?}" "${SHT_SRCDIR:?}"
test_js=$1
shift
node_dir=${SHT_NODE_DIR:-$SHT_SRCDIR/build/node}
case $test_js in
*/*) test_path=$SHT_SRCDIR/tests/$test_js ;;
*) test_path=$SHT_SRCDIR/tests/server/$test_js ;;
esac
bash "$SHT_SRCDIR/scripts/npm-ci.sh" "$node_dir" "${SHT_NPM_PKG:-$SHT_SRCDIR/tests/server}" >&2 || {
	echo "run.sh: cannot install the npm packages" >&2; exit 1; }
export NODE_PATH=$node_dir/node_modules
mkdir -p "$SHT_TMP/cache" "$SHT_TMP/root"
rm -f "$SHT_TMP/port"
"$SHT" serve --port 0 --port-file "$SHT_TMP/port" --cache "$SHT_TMP/cache" \
	--root "$SHT_SHARED/traces" --root "$SHT_TMP/root" "$@" \
	>"$SHT_TMP/server.out" 2>"$SHT_TMP/server.log" &
pid=$!
for _ in $(seq 100); do
	[ -s "$SHT_TMP/port" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
if [ ! -s "$SHT_TMP/port" ]; then
	echo "run.sh: the server did not start" >&2
	cat "$SHT_TMP/server.log" >&2
	exit 1
fi
export SHT_SERVER_URL=http://127.0.0.1:$(cat "$SHT_TMP/port")/tsp/api
export SHT_CACHE=$SHT_TMP/cache SHT_SERVER_PID=$pid
node "$test_path"
status=$?
kill -TERM "$pid" 2>/dev/null
wait "$pid"
rc=$?
tail -n 3 "$SHT_TMP/server.log"
if [ "$rc" -ne 0 ]; then
	echo "not ok - the server stopped with status $rc"
	status=1
fi
if find "$SHT_TMP/cache" -name '*.tmp-*' | grep -q .; then
	echo "not ok - temporary histories left in the cache:"
	find "$SHT_TMP/cache" -name '*.tmp-*'
	status=1
fi
exit "$status"
