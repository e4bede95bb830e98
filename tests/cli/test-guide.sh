# test-guide.sh: every command of docs/GUIDE.md runs.  The guide's `sh`
# blocks are run in order in one shell (set -e: a failing command fails
# the test and names its block), with TRACE the real LTTng kernel trace
# many-threads (a synthetic one if the shared traces are absent) and
# `sht` the tool under test; a few answers are checked besides.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

guide=${SHT_SRCDIR:?}/docs/GUIDE.md
work=$SHT_TMP/guide
rm -rf -- "$work"
mkdir -p "$work/bin"
ln -s "$SHT" "$work/bin/sht"

traces=${SHT_SHARED:-}/traces
if [ -n "${SHT_SHARED:-}" ] && [ -d "$traces/many-threads" ]; then
	trace=$traces/many-threads
else
	trace=$work/demo-trace
	"$SHT" gen kernel -o "$trace" --events 1000000 --cpus 4 --no-progress \
		>/dev/null || { ok 1 "generate a trace"; done_testing; }
fi

# The sh blocks, each followed by a marker line.
"$PY" - "$guide" >"$work/guide.sh" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)
print("set -euo pipefail")
for i, b in enumerate(blocks, 1):
    print(f"echo '@@ block {i}' >&2")
    print(b, end="")
    print(f"echo '@@ block {i} ok' >&2")
print(f"echo '@@ blocks {len(blocks)}' >&2")
EOF
n=$(grep -c "^echo '@@ block [0-9]* ok'" "$work/guide.sh")
ok $(( n < 10 )) "the guide has $n command blocks"

(cd "$work" && PATH="$work/bin:$PATH" TRACE=$trace bash guide.sh) \
	>"$work/out" 2>"$work/err"
rc=$?
is "$rc" 0 "every command of the guide succeeds"
last=$(grep -o '^@@ block [0-9]* ok$' "$work/err" | tail -n 1)
is "$last" "@@ block $n ok" "all $n blocks ran"
if [ "$rc" -ne 0 ]; then
	diag "stopped after: $last"
	diag "$(tail -n 5 "$work/err")"
fi

# Some of what the guide promises.
grep -q '^trace format: *CTF$' "$work/out"
ok $? "describe names the trace format"
grep -Eq ' int  [0-9]+ \((Idle|Usermode|System call|Interrupt|Soft Irq)\)$' "$work/out"
ok $? "a CPU status is printed with its name"
grep -Eq ' int  1 \(Wait blocked\)$' "$work/out"
ok $? "the thread's history shows Wait blocked"
grep -Eq 'System_call  \[\+[0-9.]+ s, \+[0-9.]+ s\]  string  "[a-z_0-9]+"$' "$work/out"
ok $? "the longest system calls, with relative times"
grep -Eq '^history: +partial, a checkpoint every 20000 events' "$work/out"
ok $? "describe a partial history"
grep -Eq 'CPUs/2/Mode  .* int  [12] \((USER|KERNEL)\)$' "$work/out"
ok $? "a rules file's defined names label its values"
full=$("$SHT" query "$work/demo.sht" --at +0.2s --attribute CPUs/2/Current_thread --json)
part=$("$SHT" query "$work/demo-partial.sht" --trace "$trace" --at +0.2s \
	--attribute CPUs/2/Current_thread --json)
is "$part" "$full" "the partial history answers as the full one"

done_testing
