# valgrind.sh: the CLI under valgrind's memcheck on a real trace (CTest
# "valgrind", registered in Release builds without sanitizers, which
# valgrind cannot run under).  Each command runs as
#   valgrind --error-exitcode=99 --leak-check=full
#            --errors-for-leak-kinds=definite,indirect,possible
# so an invalid read or write, a use of uninitialised memory or a leak
# makes it exit 99; "still reachable" blocks (libc, babeltrace2 and glib
# keep some until exit) are not errors.  No suppressions.
#
# Commands: sht build of bug446190 (31 556 events, CTF through
# babeltrace2, the kernel analysis), sht info, sht query (single and
# full), sht check, and two error paths: sht check of a truncated file
# and sht build under a file size limit.  Skips when
# $SHT_SHARED/traces is absent or valgrind is not installed.
. "$(dirname "${BASH_SOURCE[0]}")/cli/tap.sh"

traces=${SHT_SHARED:-}/traces
if [ -z "${SHT_SHARED:-}" ] || [ ! -d "$traces" ]; then
	echo "1..0 # SKIP no real traces: ${traces} is absent (set SHT_SHARED)"
	exit 0
fi
if ! command -v valgrind >/dev/null; then
	echo "1..0 # SKIP valgrind is not installed (scripts/install-deps.sh)"
	exit 0
fi
VG=(valgrind -q --error-exitcode=99 --leak-check=full
    --errors-for-leak-kinds=definite,indirect,possible)
trace=$traces/bug446190
f=$SHT_TMP/bug.sht
rm -f -- "$SHT_TMP"/*.sht*

# vg DESC WANT CMD...: run CMD under valgrind, want exit status WANT.
vg()
{
	local desc=$1 want=$2
	shift 2
	run "${VG[@]}" "$@"
	is "$rc" "$want" "$desc"
	[ "$rc" = 99 ] && diag "$err"
	return 0
}

vg "build bug446190" 0 "$SHT" build "$trace" -o "$f" --no-progress
vg "info" 0 "$SHT" info "$f"
start=$("$SHT" info "$f" --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["start"])')
end=$("$SHT" info "$f" --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["end"])')
mid=$(( (start + end) / 2 ))
vg "query one attribute" 0 "$SHT" query "$f" --attribute CPUs/0/Current_thread --at "$mid"
vg "query the full state" 0 "$SHT" query "$f" --at "$mid"
vg "check" 0 "$SHT" check "$f"

# Error paths: a truncated file (its header alone) and a build that runs
# out of file size.
head -c 4096 "$f" > "$SHT_TMP/cut.sht"
vg "check of a truncated file fails cleanly" 1 "$SHT" check "$SHT_TMP/cut.sht"
run bash -c 'trap "" XFSZ; ulimit -f 64; exec "$@"' _ "${VG[@]}" \
	"$SHT" build "$trace" -o "$SHT_TMP/full.sht" --no-progress
is "$rc" 1 "build under a 64 KiB file size limit fails cleanly"
[ "$rc" = 99 ] && diag "$err"

done_testing
