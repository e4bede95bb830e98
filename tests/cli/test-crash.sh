# test-crash.sh: `sht build` killed or starved of disk leaves nothing that
# opens as complete.
#
#  - Full disk: the build runs under a file size limit (RLIMIT_FSIZE, with
#    SIGXFSZ ignored, so writes past it fail with EFBIG, as ENOSPC would)
#    of 0, 4, 64, 256 KiB and the complete size - 1 KiB: a clear error,
#    exit status 1, neither the history nor its temporary file left (the
#    build is too short to have taken a checkpoint to resume from:
#    test-resume.sh covers that).
#  - Crash: the build of many-threads (240 644 events) is killed with
#    SIGKILL after a random delay (seeded: SHT_TEST_SEED, default 6) within
#    the time of a full build, SHT_CRASH_KILLS times (default 20), each
#    time from scratch (--no-resume).  The history must not exist (the
#    build writes FILE.building and renames it when complete) unless the
#    rename was done (then check passes); FILE.building, if any, is
#    refused by `sht info` and `sht check` as never completed (or too
#    short to be a history), or, killed between the finish and the
#    rename, is complete and passes the check.
# Skips when $SHT_SHARED/traces is absent.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

traces=${SHT_SHARED:-}/traces
if [ -z "${SHT_SHARED:-}" ] || [ ! -d "$traces" ]; then
	echo "1..0 # SKIP no real traces: ${traces} is absent (set SHT_SHARED)"
	exit 0
fi

# ---- full disk -------------------------------------------------------------
small=$traces/bug446190
ref=$SHT_TMP/ref.sht
rm -f -- "$SHT_TMP"/*.sht "$SHT_TMP"/*.sht.building "$SHT_TMP"/*.sht.resume
expect_rc 0 "bug446190 builds without a limit" "$SHT" build "$small" -o "$ref" --no-progress
kib=$(( $(stat -c %s "$ref") / 1024 ))
for limit in 0 4 64 256 $((kib - 1)); do
	f=$SHT_TMP/full-$limit.sht
	# stderr through a pipe: a file would be under the limit too
	err=$(bash -c 'trap "" XFSZ; ulimit -f "$1"; exec "$2" build "$3" -o "$4" --no-progress' \
		_ "$limit" "$SHT" "$small" "$f" 2>&1 >/dev/null)
	rc=$?
	is "$rc" 1 "limit $limit KiB: exit status 1"
	case $err in
	*"File too large"*) ok 0 "limit $limit KiB: the error names the cause" ;;
	*) ok 1 "limit $limit KiB: the error names the cause (got: $err)" ;;
	esac
	left=$(ls "$SHT_TMP" | grep -c "^full-$limit\.sht")
	is "$left" 0 "limit $limit KiB: no history or temporary file left"
done
diag "limit $((kib - 1)) KiB: $err"

# ---- crash -----------------------------------------------------------------
big=$traces/many-threads
f=$SHT_TMP/crash.sht
t0=$(date +%s%N)
expect_rc 0 "many-threads builds" "$SHT" build "$big" -o "$f" --no-progress
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
diag "a full build takes $ms ms"
RANDOM=${SHT_TEST_SEED:-6}
kills=${SHT_CRASH_KILLS:-20}
finished=0 none=0 incomplete=0 short=0 renamed=0 bad=0
for i in $(seq 1 "$kills"); do
	rm -f -- "$f" "$f".building "$f".resume
	delay=$(( (RANDOM * 32768 + RANDOM) % (ms + 1) ))
	"$SHT" build "$big" -o "$f" --no-progress --no-resume >/dev/null 2>&1 &
	pid=$!
	sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
	kill -KILL "$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null
	status=$?
	tmp=$f.building
	if [ -e "$f" ]; then
		# renamed: complete (killed before exiting, or finished first)
		if "$SHT" check "$f" >/dev/null 2>&1; then
			finished=$((finished + 1))
		else
			bad=$((bad + 1))
			diag "kill $i at $delay ms: status $status but $f exists"
		fi
		continue
	fi
	if [ ! -e "$tmp" ]; then
		none=$((none + 1))
		continue
	fi
	run "$SHT" check "$tmp"
	crc=$rc cerr=$err
	run "$SHT" info "$tmp"
	case "$crc $rc $cerr" in
	"1 1 "*"never completed"*) incomplete=$((incomplete + 1)) ;;
	"1 1 "*"too short"*) short=$((short + 1)) ;;
	"0 0 "*) renamed=$((renamed + 1)) ;;	# complete, killed before the rename
	*) bad=$((bad + 1))
	   diag "kill $i at $delay ms ($(stat -c %s "$tmp") bytes): check $crc info $rc: $cerr" ;;
	esac
done
rm -f -- "$f" "$f".building "$f".resume
diag "$kills kills: $incomplete refused as never completed, $short too short, $none before the file was created, $renamed complete but not yet renamed, $finished renamed, $bad broken"
is "$bad" 0 "$kills kills: every file left is refused, none opens as complete"
ok $(( incomplete > 0 ? 0 : 1 )) "some kills left an incomplete file ($incomplete)"

done_testing
