#!/usr/bin/env bash
# test-sqlite.sh TEST MODULE: the SQLite extension.
#  1. test-sqlite (TEST) on random histories and on the histories of the
#     real traces, built here with sht build (SHT), against a brute-force
#     oracle (its own TAP stream);
#  2. the sqlite3 shell: ".load MODULE" without the file's suffix, the
#     state of one attribute equal to sht query's, a partial history
#     refused with a clear error.
# A sanitized module is loaded into the (plain) sqlite3 shell with the
# sanitizer runtimes preloaded.
set -uo pipefail
. "$SHT_SRCDIR/tests/cli/tap.sh"

test_bin=$1
module=$2
cd "$SHT_TMP" || exit 1

histories=()
traces=$SHT_SHARED/traces
if [ -d "$traces/many-threads" ]; then
	for t in many-threads bug446190 synctraces/scp_src xml-stub-kernel-analysis; do
		out=$(basename "$t").sht
		if ! "$SHT" build "$traces/$t" -o "$out" --no-progress >build.log 2>&1; then
			echo "Bail out! sht build $t: $(cat build.log)"
			exit 1
		fi
		histories+=("$PWD/$out")
	done
else
	diag "no real traces in $traces: random histories only"
fi

"$test_bin" "$module" "${histories[@]}" || exit 1

echo "# the sqlite3 shell"
command -v sqlite3 >/dev/null || { diag "no sqlite3 shell"; done_testing; }
[ ${#histories[@]} -gt 0 ] || done_testing
preload=()
for lib in asan ubsan; do
	path=$(ldd "$module" | awk -v l="lib$lib.so" 'index($1, l) == 1 { print $3 }')
	[ -n "$path" ] && preload+=("$path")
done
shell() {
	LD_PRELOAD="${preload[*]}" ASAN_OPTIONS=detect_leaks=0 sqlite3 :memory: "$@"
}
h=${histories[0]}
base=${module%.so}
t=1457113582900000000
run shell ".load $base" "SELECT value FROM sht_intervals('$h') WHERE path = 'CPUs/0/Current_thread' AND start <= $t AND \"end\" >= $t;"
got=$out
run "$SHT" query "$h" --at $t --attribute CPUs/0/Current_thread
is "$got" "$(printf '%s\n' "$out" | awk '{ print $NF }')" \
	".load $base: CPUs/0/Current_thread at $t as sht query prints it"

"$SHT" build "$traces/bug446190" --partial 5000 -o partial.sht --no-progress >/dev/null 2>&1 ||
	{ echo "Bail out! sht build --partial"; exit 1; }
run shell ".load $base" "SELECT count(*) FROM sht_intervals('partial.sht');"
case $err in
*"is a partial history"*) ok $((rc == 0)) "a partial history is refused: $err" ;;
*) ok 1 "a partial history is refused (got: $rc, $out, $err)" ;;
esac
no_crash "no crash on the partial history"
done_testing
