# test-churn.sh: the churn workload (many short-lived threads): the
# generator's stream (--dump) is in builder order and covers every quark,
# and the files built through the state system with both variants answer
# as the workload's formula (computed here in bash) says.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

N=30
T=$((N * 1000 + 10000))
N_IV=$((26 * N - 1))
QUARKS=$((3 * N + 1))

# "type value start end" of the interval of quark q containing t.
expect()
{
	local t=$1 q=$2 i r b k
	if [ "$q" -eq 0 ]; then
		echo "null null 0 $T"
		return
	fi
	i=$(((q - 1) / 3)) r=$(((q - 1) % 3)) b=$(((q - 1) / 3 * 1000))
	if [ "$r" -eq 0 ]; then
		echo "null null 0 $T"
	elif [ "$t" -lt "$b" ]; then
		echo "null null 0 $((b - 1))"
	elif [ "$t" -ge $((b + 10000)) ]; then
		echo "null null $((b + 10000)) $T"
	elif [ "$r" -eq 1 ]; then
		k=$(((t - b) / 500))
		echo "int $((1 + k % 3)) $((b + 500 * k)) $((b + 500 * k + 499))"
	else
		echo "string proc$i $b $((b + 9999))"
	fi
}

answers()
{
	printf '%s' "$out" | "$PY" -c '
import json, sys
for o in json.load(sys.stdin):
    v = "null" if o["value"] is None else o["value"]
    print(o["quark"], o["type"], v, o["start"], o["end"])
'
}

# The generator alone: order, count, coverage.
expect_rc 0 "gen churn --dump" "$SHT" gen churn --threads $N --dump
printf '%s\n' "$out" >"$SHT_TMP/dump.txt"
res=$("$PY" - "$SHT_TMP/dump.txt" $T $QUARKS <<'PYEOF'
import re, sys
path, t_end, quarks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pat = re.compile(r'^(\d+)  \[(-?\d+), (-?\d+)\]  (\w+)  (.*)$')
last_end, n, problems, per_q = None, 0, [], {}
for line in open(path):
    m = pat.match(line.rstrip('\n'))
    if not m:
        problems.append('bad line: ' + line); continue
    q, s, e = int(m[1]), int(m[2]), int(m[3])
    n += 1
    if last_end is not None and e < last_end:
        problems.append('end %d after end %d' % (e, last_end))
    if s > e:
        problems.append('empty interval: ' + line)
    last_end = e
    per_q.setdefault(q, []).append((s, e))
for q in range(quarks):
    iv = sorted(per_q.get(q, []))
    nxt = 0
    for s, e in iv:
        if s != nxt: problems.append('quark %d: gap or overlap at %d' % (q, nxt))
        nxt = e + 1
    if nxt != t_end + 1: problems.append('quark %d ends at %d' % (q, nxt - 1))
if set(per_q) - set(range(quarks)): problems.append('unexpected quarks')
print(n, 'ok' if not problems else '; '.join(problems[:5]))
PYEOF
)
is "$res" "$N_IV ok" "dump: $N_IV intervals, non-decreasing ends, each quark covers [0, T]"

expect_rc 0 "gen staircase --dump" "$SHT" gen staircase --attributes 7 \
	--intervals 3 --step 10 --dump
is "$(printf '%s\n' "$out" | head -n 3 | tr '\n' ';')" \
	"1  [0, 9]  null  null;2  [0, 19]  null  null;3  [0, 29]  null  null;" \
	"staircase dump starts with the null intervals"
is "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" $((7 * 4 - 1)) \
	"staircase dump has A(I+1)-1 lines"

points="0:1 0:2 0:3 999:5 1000:5 1499:5 1500:5 10999:5 11000:5 11000:6
	5000:9 12345:20 14999:20 15000:20 $T:$((QUARKS - 1)) 39999:89 39999:90
	20000:0"

for variant in esht sht; do
	f=$SHT_TMP/churn-$variant.sht

	expect_rc 0 "$variant: gen churn N=$N" "$SHT" gen churn --threads $N \
		--block-size 4k --variant $variant --no-sync --json -o "$f"
	is "$(json 'd["intervals"]')" "$N_IV" "$variant: gen counts 26N-1 intervals"
	expect_rc 0 "$variant: check passes" "$SHT" check "$f"

	expect_rc 0 "$variant: info --json" "$SHT" info "$f" --json
	is "$(json '(d["intervals"], d["quarks"], d["start"], d["end"])')" \
		"($N_IV, $QUARKS, 0, $T)" "$variant: info counts and range"

	bad=0
	for p in $points; do
		t=${p%:*} q=${p#*:}
		run "$SHT" query "$f" --at "$t" --quark "$q" --json
		got=$(answers)
		want="$q $(expect "$t" "$q")"
		if [ "$rc" -ne 0 ] || [ "$got" != "$want" ]; then
			bad=$((bad + 1))
			diag "t=$t q=$q: got '$got' (exit $rc), want '$want'"
		fi
	done
	ok $bad "$variant: single queries match the formula"

	run "$SHT" query "$f" --at 5000 --quark 12
	is "$out" '12  Threads/3/Exec_name  [3000, 12999]  string  "proc3"' \
		"$variant: human string value, with the path"

	for t in 0 7250 25000 $T; do
		run "$SHT" query "$f" --at "$t" --json
		got=$(answers | while read -r q ty v s e; do
			w=$(expect "$t" "$q")
			[ "$ty $v $s $e" = "$w" ] || echo "q=$q: $ty $v $s $e != $w"
		done)
		n=$(json 'len(d)')
		if [ "$rc" -eq 0 ] && [ "$n" = "$QUARKS" ] && [ -z "$got" ]; then
			ok 0 "$variant: full query at t=$t"
		else
			ok 1 "$variant: full query at t=$t"
			diag "exit $rc, $n intervals; $got"
		fi
	done

	# Status of thread 4: null, 20 values, null.
	run "$SHT" history "$f" --quark 14 --json
	want=$(
		echo "14 null null 0 3999"
		for k in $(seq 0 19); do
			echo "14 $(expect $((4000 + 500 * k)) 14)"
		done
		echo "14 null null 14000 $T"
	)
	is "$(answers)" "$want" "$variant: history of Threads/4/Status"
done

done_testing
