# test-build.sh: `sht build` runs the kernel analysis over a real CTF trace
# (bug446190, 31 556 events) into a history: the summary, the file (info,
# check, a query), reuse of a complete history and --force, a partial
# history, and the errors.  Skips only when $SHT_SHARED/traces is absent.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

traces=${SHT_SHARED:-}/traces
if [ -z "${SHT_SHARED:-}" ] || [ ! -d "$traces" ]; then
	echo "1..0 # SKIP no real traces: ${traces} is absent (set SHT_SHARED)"
	exit 0
fi
trace=$traces/bug446190
f=$SHT_TMP/bug.sht
rm -f -- "$f" "$SHT_TMP/bug-partial.sht" "$SHT_TMP/bug446190.sht"

run "$SHT" build "$trace" -o "$f" --json --no-progress
is "$rc" 0 "build bug446190 succeeds"
is "$(json 'd["events"]')" 31556 "summary: events = 31556"
is "$(json 'd["reused"]')" 0 "summary: not reused"
is "$(json 'd["attributes"] > 0 and d["intervals"] > 0 and d["nodes"] > 0 and d["depth"] >= 1')" 1 \
	"summary: attributes, intervals, nodes, depth"
is "$(json 'sorted(k for k in ("events_skipped", "discarded_events", "discarded_packets", "file_bytes", "seconds", "events_per_second") if k in d)')" \
	"['discarded_events', 'discarded_packets', 'events_per_second', 'events_skipped', 'file_bytes', 'seconds']" \
	"summary: skipped, discarded, size, time, throughput"
start=$(json 'd["start"]')
end=$(json 'd["end"]')
bytes=$(json 'd["file_bytes"]')
is "$(stat -c %s "$f")" "$bytes" "summary: file_bytes is the file's size"

run "$SHT" info "$f" --json
is "$(json '(d["provider"], d["provider_version"])')" \
	"('org.eclipse.tracecompass.analysis.os.linux.kernel', 31)" \
	"info: kernel provider, version 31"
expect_rc 0 "check passes" "$SHT" check "$f"
mid=$(( (start + end) / 2 ))
run "$SHT" query "$f" --attribute CPUs/0/Current_thread --at "$mid" --json
is "$rc" 0 "query CPUs/0/Current_thread inside the trace"
is "$(json 'd[0]["path"] == "CPUs/0/Current_thread" and d[0]["start"] <= '"$mid"' <= d[0]["end"]')" 1 \
	"query: the interval of CPUs/0/Current_thread holding the time"

# Reuse: same trace, analysis and kind.
sum1=$(cksum < "$f")
mtime1=$(stat -c %Y.%y "$f")
run "$SHT" build "$trace" -o "$f" --no-progress
is "$rc" 0 "second build succeeds"
printf '%s\n' "$out" | grep -q "^reusing $f (built by org.eclipse.tracecompass.analysis.os.linux.kernel version 31"
ok $? "second build reuses the history"
is "$(cksum < "$f")/$(stat -c %Y.%y "$f")" "$sum1/$mtime1" \
	"reuse leaves the file unchanged"
run "$SHT" build "$trace" -o "$f" --json
is "$(json 'd["reused"]')" 1 "reuse --json"

run "$SHT" build "$trace" -o "$f" --force --json
is "$rc" 0 "--force rebuilds"
is "$(json '(int(d["reused"]), d["events"])')" "(0, 31556)" "--force: a new build"
expect_rc 0 "--force: the rebuilt file checks" "$SHT" check "$f"

# An incomplete file is not reused.
printf 'not a history' > "$SHT_TMP/junk.sht"
run "$SHT" build "$trace" -o "$SHT_TMP/junk.sht" --json
is "$(json '(int(d["reused"]), d["events"])')" "(0, 31556)" \
	"a file that is not a complete history is rebuilt"

# Partial history: not the full one, and reused only as partial.
p=$SHT_TMP/bug-partial.sht
run "$SHT" build "$trace" -o "$p" --partial 10000 --json
is "$rc" 0 "--partial 10000 builds"
is "$(json '(d["backend"], d["checkpoint_events"], d["events"])')" \
	"('partial', 10000, 31556)" "--partial: summary"
pint=$(json 'd["intervals"]')
run "$SHT" info "$p" --json
is "$(json '(d["provider"], d["provider_version"])')" \
	"('org.eclipse.tracecompass.analysis.os.linux.kernel', 31)" \
	"info on the partial history: provider"
is "$(json 'd["intervals"]')" "$pint" "info on the partial history: intervals"
run "$SHT" info "$f" --json
full=$(json 'd["intervals"]')
[ "$pint" -lt "$full" ]
ok $? "the partial history keeps fewer intervals ($pint < $full)"
run "$SHT" build "$trace" -o "$p" --partial 10000 --json
is "$(json 'd["reused"]')" 1 "the same --partial reuses"
run "$SHT" build "$trace" -o "$p" --partial 5000 --json
is "$(json 'd["reused"]')" 0 "another --partial rebuilds"
run "$SHT" build "$trace" -o "$p" --json
is "$(json '(int(d["reused"]), d["backend"])')" "(0, 'tree')" \
	"a full build does not reuse a partial history"

# --block-size: the history's nodes are of that size, the same answers;
# a history of another block size is rebuilt, not reused.
b8=$SHT_TMP/bug-8k.sht
rm -f -- "$b8"
run "$SHT" build "$trace" -o "$b8" --block-size 8k --json --no-progress
is "$(json '(int(d["reused"]), d["events"], d["intervals"])')" \
	"(0, 31556, $full)" "--block-size 8k builds the same intervals"
run "$SHT" info "$b8" --json
is "$(json 'd["block_size"]')" 8192 "--block-size 8k: 8 KiB nodes"
expect_rc 0 "--block-size 8k: the file checks" "$SHT" check "$b8"
run "$SHT" query "$b8" --attribute CPUs/0/Current_thread --at "$mid" --json
a8=$out
run "$SHT" query "$f" --attribute CPUs/0/Current_thread --at "$mid" --json
is "$a8" "$out" "--block-size 8k: the same answer as 64k"
run "$SHT" build "$trace" -o "$b8" --block-size 8192 --json
is "$(json 'd["reused"]')" 1 "the same block size (8192 = 8k) reuses"
run "$SHT" build "$trace" -o "$b8" --block-size 16K --json
is "$(json 'd["reused"]')" 0 "another block size rebuilds"
run "$SHT" info "$b8" --json
is "$(json 'd["block_size"]')" 16384 "--block-size 16K: 16 KiB nodes"
run "$SHT" build "$trace" -o "$b8" --json
is "$(json 'd["reused"]')" 0 "without --block-size, a 16 KiB history is rebuilt"
run "$SHT" info "$b8" --json
is "$(json 'd["block_size"]')" 65536 "the default block size is 64 KiB"
run "$SHT" build "$trace" -o "$b8" --block-size 64k --json
is "$(json 'd["reused"]')" 1 "--block-size 64k reuses a default build"
for bad in 3k 512 32M 0 -8k 8x ''; do
	expect_rc 2 "--block-size '$bad': exit 2" "$SHT" build "$trace" \
		-o "$b8" --block-size "$bad"
done
case $err in *"--block-size"*) ok 0 "a bad --block-size: the message names it" ;;
*) ok 1 "a bad --block-size: the message names it"; diag "stderr: $err" ;; esac

# The event statistics analysis, where libsht has it.
if "$SHT" build --help | grep -q 'stats: event counts'; then
	s=$SHT_TMP/bug-stats.sht
	run "$SHT" build "$trace" -o "$s" --analysis stats --json
	is "$(json '(d["provider"], d["provider_version"], d["events"])')" \
		"('event-statistics', 1, 31556)" "--analysis stats builds"
	run "$SHT" query "$s" --attribute total --at "$end" --json
	is "$(json 'd[0]["value"]')" 31556 "stats: total at the end = events"
	run "$SHT" build "$trace" -o "$s" --json
	is "$(json '(int(d["reused"]), d["provider"])')" \
		"(0, 'org.eclipse.tracecompass.analysis.os.linux.kernel')" \
		"kernel build does not reuse a stats history"
else
	echo "ok $((tap_run + 1)) # SKIP --analysis stats: not in this libsht"
	tap_run=$((tap_run + 1))
fi

# Default output name, in the current directory.
(cd "$SHT_TMP" && "$SHT" build "$trace" --no-progress >/dev/null 2>&1)
ok $? "build without -o"
[ -f "$SHT_TMP/bug446190.sht" ]
ok $? "default output: bug446190.sht in the current directory"

# Errors.
expect_rc 1 "missing trace: exit 1" "$SHT" build "$SHT_TMP/no-such-trace" \
	-o "$SHT_TMP/x.sht"
case $err in *"no-such-trace"*) ok 0 "missing trace: the message names it" ;;
*) ok 1 "missing trace: the message names it"; diag "stderr: $err" ;; esac
[ ! -e "$SHT_TMP/x.sht" ]
ok $? "missing trace: no output file"
expect_rc 1 "not a trace: exit 1" "$SHT" build "$SHT_TMP" -o "$SHT_TMP/x.sht"
[ -z "$(ls "$SHT_TMP" | grep -E '\.building$|\.resume$')" ]
ok $? "no temporary file left behind"
expect_rc 1 "unwritable output: exit 1" "$SHT" build "$trace" \
	-o "$SHT_TMP/no-such-dir/x.sht"
expect_rc 2 "no TRACE: exit 2" "$SHT" build
expect_rc 2 "two TRACEs: exit 2" "$SHT" build "$trace" "$trace"
expect_rc 2 "unknown option: exit 2" "$SHT" build "$trace" --bogus
expect_rc 2 "--partial 0: exit 2" "$SHT" build "$trace" --partial 0
expect_rc 2 "--partial junk: exit 2" "$SHT" build "$trace" --partial 10x
expect_rc 2 "--analysis unknown: exit 2" "$SHT" build "$trace" \
	--analysis nope
expect_rc 2 "-o without a value: exit 2" "$SHT" build "$trace" -o
# A VSTF file: the same history as from its CTF original; reused.
k=$SHT_TMP/kgen
expect_rc 0 "gen kernel CTF" "$SHT" gen kernel -o "$k" --events 30000 --cpus 3
expect_rc 0 "gen kernel VSTF" "$SHT" gen kernel -o "$k.vstf" --events 30000 \
	--cpus 3
expect_rc 0 "build from CTF" "$SHT" build "$k" -o "$SHT_TMP/k-ctf.sht" \
	--no-progress
expect_rc 0 "build from VSTF" "$SHT" build "$k.vstf" -o "$SHT_TMP/k-vstf.sht" \
	--json --no-progress
is "$(json '(d["events"], d["layout"], d["reused"])')" \
	"(30000, 'lttng-2.7', False)" "VSTF: every event, layout from its env"
# The files differ only in their build notes (the trace's path and
# format): the same attributes, and the same state at every sampled time.
same=0
[ "$("$SHT" tree "$SHT_TMP/k-ctf.sht" --json)" = \
  "$("$SHT" tree "$SHT_TMP/k-vstf.sht" --json)" ] || same=1
for t in start +1ms +3ms +10ms +25ms +40ms end; do
	[ "$("$SHT" query "$SHT_TMP/k-ctf.sht" --at "$t" --json)" = \
	  "$("$SHT" query "$SHT_TMP/k-vstf.sht" --at "$t" --json)" ] || same=1
done
ok $same "VSTF and CTF give the same attributes and states"
run "$SHT" describe "$SHT_TMP/k-vstf.sht" --json
is "$(json '(d["notes"]["trace format"], d["notes"]["trace"].endswith("kgen.vstf"))')" \
	"('VSTF', True)" "the history notes the trace it was built from"
expect_rc 0 "build --single-thread" "$SHT" build "$k.vstf" --single-thread \
	-o "$SHT_TMP/k-one.sht" --no-progress
cmp -s "$SHT_TMP/k-one.sht" "$SHT_TMP/k-vstf.sht"
ok $? "--single-thread and the threaded builder write the same bytes"
expect_rc 0 "build from VSTF again" "$SHT" build "$k.vstf" \
	-o "$SHT_TMP/k-vstf.sht" --json --no-progress
is "$(json 'd["reused"]')" 1 "VSTF: an up-to-date history is reused"
touch "$k.vstf"
sleep 0.01
touch "$k.vstf"
expect_rc 0 "build from a newer VSTF" "$SHT" build "$k.vstf" \
	-o "$SHT_TMP/k-vstf.sht" --json --no-progress
is "$(json 'd["reused"]')" 0 "VSTF: a newer trace is rebuilt"
head -c 1000 "$k.vstf" >"$SHT_TMP/cut.vstf"
expect_rc 1 "truncated VSTF: exit 1" "$SHT" build "$SHT_TMP/cut.vstf" \
	-o "$SHT_TMP/cut.sht"
case $err in *cut.vstf*) ok 0 "truncated VSTF: the message names it" ;;
*) ok 1 "truncated VSTF: the message names it"; diag "stderr: $err" ;; esac
[ ! -e "$SHT_TMP/cut.sht" ]
ok $? "truncated VSTF: no output file"

# A partial history of the VSTF file: queries replay it with --trace.
expect_rc 0 "build --partial from VSTF" "$SHT" build "$k.vstf" --partial 4000 \
	-o "$SHT_TMP/k-part.sht" --no-progress
t=$("$SHT" info "$SHT_TMP/k-vstf.sht" --json |
	"$PY" -c 'import json,sys; d=json.load(sys.stdin); print((d["start"] + 2 * d["end"]) // 3)')
expect_rc 1 "partial query without --trace: exit 1" "$SHT" query \
	"$SHT_TMP/k-part.sht" --at "$t"
case $err in *"partial history"*--trace*) ok 0 "the message asks for --trace" ;;
*) ok 1 "the message asks for --trace"; diag "stderr: $err" ;; esac
run "$SHT" query "$SHT_TMP/k-part.sht" --at "$t" --trace "$k.vstf"
is "$rc" 0 "partial full query with --trace"
p_out=$out
run "$SHT" query "$SHT_TMP/k-vstf.sht" --at "$t"
is "$p_out" "$out" "partial full query = the full history's"
run "$SHT" history "$SHT_TMP/k-part.sht" --attribute CPUs/1/Current_thread \
	--trace "$k"
p_out=$out
run "$SHT" history "$SHT_TMP/k-vstf.sht" --attribute CPUs/1/Current_thread
is "$p_out" "$out" "partial history of an attribute = the full one's (CTF trace)"
expect_rc 0 "another trace" "$SHT" gen kernel -o "$SHT_TMP/other.vstf" \
	--events 30000 --cpus 3 --seed 5
expect_rc 1 "partial query over another trace: exit 1" "$SHT" query \
	"$SHT_TMP/k-part.sht" --at "$t" --trace "$SHT_TMP/other.vstf"
case $err in *"does not match"*) ok 0 "the message says the trace does not match" ;;
*) ok 1 "the message says the trace does not match"; diag "stderr: $err" ;; esac

# A directory holding two traces: refused, unless --merge.
two=$SHT_TMP/two-traces
mkdir -p "$two"
expect_rc 0 "gen trace a" "$SHT" gen kernel -o "$two/a" --events 5000 --cpus 2
expect_rc 0 "gen trace b" "$SHT" gen kernel -o "$two/b" --events 7000 --cpus 2 \
	--seed 2
expect_rc 1 "two traces without --merge: exit 1" "$SHT" build "$two" \
	-o "$SHT_TMP/two.sht"
case $err in *--merge*|*"several traces"*|*merge*) ok 0 "the message says why" ;;
*) ok 1 "the message says why"; diag "stderr: $err" ;; esac
expect_rc 0 "two traces with --merge" "$SHT" build "$two" --merge \
	-o "$SHT_TMP/two.sht" --json --no-progress
is "$(json 'd["events"]')" 12000 "--merge: the events of both traces"
expect_rc 0 "convert --merge" "$SHT" convert "$two" --merge \
	-o "$SHT_TMP/two.vstf" --json
is "$(json 'd["events"]')" 12000 "convert --merge: the events of both"

run "$SHT" build --help
is "$rc" 0 "--help"
printf '%s\n' "$out" | grep -q 'default: the name of TRACE'
ok $? "--help says the default output name"

done_testing
