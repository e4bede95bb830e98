# test-demo.sh: `sht demo` generates a synthetic kernel trace, builds its
# kernel history, queries it against the trace's own events and checks
# it; `sht demo staircase` builds (through the state system), inspects,
# queries (by quark, by path) and checks a staircase history, comparing
# every answer with the formula.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

tmp=$SHT_TMP/demo-tmp
mkdir -p "$tmp"

# ---- the kernel demo (the README's main command) ----
run env TMPDIR="$tmp" "$SHT" demo --events 60000
is "$rc" 0 "demo --events 60000 succeeds"
printf '%s\n' "$out" | grep -qE '^== generate: a synthetic kernel trace, 60000 events, 4 CPUs'
ok $? "demo: generates a trace"
printf '%s\n' "$out" | grep -qE '"provider":"org.eclipse.tracecompass.analysis.os.linux.kernel"|^provider: +org.eclipse.tracecompass.analysis.os.linux.kernel'
ok $? "demo: a kernel-analysis history"
n=$(printf '%s\n' "$out" | grep -c -- '-> ok$')
[ "$n" -ge 8 ]
ok $? "demo: at least 8 answers checked against the trace ($n)"
printf '%s\n' "$out" | grep -qE '^at [0-9]+: CPUs/[0-9]+/Current_thread = [0-9]+ +\(trace: sched_switch'
ok $? "demo: a CPU's current thread against a sched_switch"
printf '%s\n' "$out" | grep -qE '^at [0-9]+: Threads/[0-9]+/System_call = "[a-z_]+" +\(trace: syscall_entry_'
ok $? "demo: a thread's system call against its entry event"
printf '%s\n' "$out" | grep -qE "^$n of $n answers agree with the trace$"
ok $? "demo: every answer agrees"
printf '%s\n' "$out" | grep -q MISMATCH
ok $((!$?)) "demo: no MISMATCH"
printf '%s\n' "$out" | grep -qE ': ok \([0-9]+ nodes, [0-9]+ intervals\)$'
ok $? "demo: check result"
is "$(ls -A "$tmp")" "" "demo: the temporary directory is removed"

d=$SHT_TMP/kept
expect_rc 0 "demo -o DIR --format vstf" env TMPDIR="$tmp" "$SHT" demo \
	--events 20000 --cpus 2 --format vstf -o "$d"
expect_rc 0 "demo -o DIR: the history is kept and checks" "$SHT" check \
	"$d/trace.sht"
[ -f "$d/trace.vstf" ]
ok $? "demo -o DIR: the VSTF trace is kept"
expect_rc 0 "demo -o DIR again: replaces both" env TMPDIR="$tmp" "$SHT" \
	demo --events 20000 --cpus 2 --format vstf -o "$d"
expect_rc 2 "demo --format bad" "$SHT" demo --format xml
expect_rc 2 "demo --events 0" "$SHT" demo --events 0

# ---- the staircase demo ----
run env TMPDIR="$tmp" "$SHT" demo staircase --attributes 2000
is "$rc" 0 "demo --attributes 2000 succeeds"
is "$(printf '%s\n' "$out" | grep -c -- '-> ok$')" 5 \
	"demo: five answers, all ok"
printf '%s\n' "$out" | grep -q '^query by path: attribute "666" at t='
ok $? "demo: a query by attribute path"
printf '%s\n' "$out" | grep -q MISMATCH
ok $((!$?)) "demo: no MISMATCH"
printf '%s\n' "$out" | grep -qE '^staircase: 41999 intervals in '
ok $? "demo: build summary with A(I+1)-1 intervals"
printf '%s\n' "$out" | grep -qE '^intervals: +41999$'
ok $? "demo: info statistics"
printf '%s\n' "$out" | grep -qE ': ok \([0-9]+ nodes, 41999 intervals\)$'
ok $? "demo: check result"
is "$(ls -A "$tmp")" "" "demo: the temporary file is removed"

f=$SHT_TMP/kept.sht
expect_rc 0 "demo -o FILE" env TMPDIR="$tmp" "$SHT" demo staircase \
	--attributes 50 -o "$f"
expect_rc 0 "demo -o FILE: the file is kept and checks" "$SHT" check "$f"
run "$SHT" info "$f" --json
is "$(json '(d["variant"], d["intervals"])')" "('esht', 1049)" \
	"demo -o FILE: an eSHT with A(I+1)-1 intervals"

expect_rc 0 "demo --attributes 1" env TMPDIR="$tmp" "$SHT" demo \
	staircase --attributes 1

done_testing
