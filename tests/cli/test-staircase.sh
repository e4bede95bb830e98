# test-staircase.sh: build the staircase workload (through the state
# system) with both tree variants and check that info, query, history and
# check give the answers of the workload's formula (computed here in bash,
# independently of the C code).
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

A=100 I=20 D=1000
T=$((A * I * D))
N_IV=$((A * (I + 1) - 1))

# "type value start end" of the interval of quark q containing t.
expect()
{
	local t=$1 q=$2 k s e
	if [ "$t" -lt $((q * D)) ]; then
		echo "null null 0 $((q * D - 1))"
		return
	fi
	k=$(((t - q * D) / (A * D)))
	[ "$k" -gt $((I - 1)) ] && k=$((I - 1))
	s=$(((k * A + q) * D))
	if [ "$k" -eq $((I - 1)) ]; then
		e=$T
	else
		e=$((((k + 1) * A + q) * D - 1))
	fi
	echo "int $k $s $e"
}

# The JSON array in $out as lines "quark type value start end".
answers()
{
	printf '%s' "$out" | "$PY" -c '
import json, sys
for o in json.load(sys.stdin):
    v = "null" if o["value"] is None else o["value"]
    print(o["quark"], o["type"], v, o["start"], o["end"])
'
}

points="0:0 0:1 999:1 1000:1 1:99 98999:99 99000:99 99999:0 100000:0
	1000000:50 1234567:42 1999999:99 2000000:0 2000000:99 1949999:50"

for variant in esht sht; do
	f=$SHT_TMP/stair-$variant.sht

	expect_rc 0 "$variant: gen staircase A=$A" "$SHT" gen staircase \
		--attributes $A --block-size 4k --variant $variant --no-sync \
		--json -o "$f"
	is "$(json 'd["intervals"]')" "$N_IV" "$variant: gen counts $N_IV intervals"
	is "$(json 'd["file_bytes"] == __import__("os").path.getsize(d["file"])')" \
		1 "$variant: gen reports the file size"

	expect_rc 0 "$variant: check passes" "$SHT" check "$f"
	is "$out" "$f: ok ($(
		"$SHT" info "$f" --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["nodes"])'
	) nodes, $N_IV intervals)" "$variant: check prints the verdict"

	expect_rc 0 "$variant: info --json" "$SHT" info "$f" --json
	keys='variant format_version block_size max_children nodes leaf_nodes
	      core_nodes depth intervals quarks start end file_bytes
	      bytes_per_interval fill_leaf fill_core levels'
	missing=$(json "[k for k in '''$keys'''.split() if k not in d]")
	is "$missing" "[]" "$variant: info has every required key"
	is "$(json 'd["variant"]')" "$variant" "$variant: info variant"
	is "$(json 'd["intervals"]')" "$N_IV" "$variant: info intervals = A(I+1)-1"
	is "$(json '(d["block_size"], d["quarks"], d["start"], d["end"])')" \
		"(4096, $A, 0, $T)" "$variant: info block size, quarks, range"
	is "$(json 'd["leaf_nodes"] + d["core_nodes"] == d["nodes"]')" 1 \
		"$variant: leaf + core nodes = nodes"
	is "$(json 'sum(l["nodes"] for l in d["levels"]) == d["nodes"] and len(d["levels"]) == d["depth"]')" \
		1 "$variant: levels add up to the nodes and the depth"
	is "$(json 'sum(l["intervals"] for l in d["levels"])')" "$N_IV" \
		"$variant: levels add up to the intervals"
	is "$(json '[l["level"] for l in d["levels"]] == list(range(len(d["levels"]))) and all(0 < l["fill"] <= 1 for l in d["levels"])')" \
		1 "$variant: levels numbered from 0 with fill in (0, 1]"

	expect_rc 0 "$variant: info (human)" "$SHT" info "$f"
	is "$(printf '%s\n' "$out" | grep -E '^intervals: +[0-9]+$' | awk '{print $2}')" \
		"$N_IV" "$variant: human info has 'intervals: N'"

	# Single queries, one point at a time.
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

	# Several quarks in one command, in the order given.
	run "$SHT" query "$f" --at 1500000 --quark 7 --quark 3 --quark 99 --json
	is "$(answers | tr '\n' ';')" \
		"7 $(expect 1500000 7);3 $(expect 1500000 3);99 $(expect 1500000 99);" \
		"$variant: query with three --quark"

	# A quark with no interval: the others still answered, valid JSON.
	run "$SHT" query "$f" --at 5000 --quark 3 --quark $((A + 7)) --quark 4 --json
	is "$rc:$(answers | tr '\n' ';')" \
		"1:3 $(expect 5000 3);4 $(expect 5000 4);" \
		"$variant: query of a missing quark: exit 1, the others answered"
	case $err in *"quark $((A + 7))"*) r=0 ;; *) r=1 ;; esac
	ok $r "$variant: the missing quark is named on stderr"

	# Human form.
	run "$SHT" query "$f" --at 1000 --quark 1
	is "$out" "1  1  [1000, 100999]  int  0" \
		"$variant: human query line (quark, path, interval)"

	# Full queries: one interval per quark, all matching.
	for t in 0 54321 1000000 $T; do
		run "$SHT" query "$f" --at "$t" --json
		got=$(answers | while read -r q ty v s e; do
			w=$(expect "$t" "$q")
			[ "$ty $v $s $e" = "$w" ] || echo "q=$q: $ty $v $s $e != $w"
		done)
		n=$(json 'len(d)')
		if [ "$rc" -eq 0 ] && [ "$n" = "$A" ] && [ -z "$got" ]; then
			ok 0 "$variant: full query at t=$t"
		else
			ok 1 "$variant: full query at t=$t"
			diag "exit $rc, $n intervals; $got"
		fi
	done

	# History of one quark: the whole staircase step by step.
	run "$SHT" history "$f" --quark 5 --json
	want=$(
		echo "5 null null 0 4999"
		for k in $(seq 0 $((I - 1))); do
			echo "5 $(expect $(((k * A + 5) * D)) 5)"
		done
	)
	is "$(answers)" "$want" "$variant: history of quark 5 is its 21 intervals"

	run "$SHT" history "$f" --quark 5 --from 300000 --to 705000 --json
	want=$(for t in 300000 305000 405000 505000 605000 705000; do
		echo "5 $(expect $t 5)"
	done | uniq)
	is "$(answers)" "$want" "$variant: history over [300000, 705000]"

	# Resolution: samples 0, 600000, 1200000, 1800000 and T.
	run "$SHT" history "$f" --quark 5 --resolution 600000 --json
	want=$(for t in 0 600000 1200000 1800000 $T; do
		echo "5 $(expect $t 5)"
	done | uniq)
	is "$(answers)" "$want" "$variant: history at a resolution of 600000"

	run "$SHT" history "$f" --quark 0 --from 0 --to 0
	is "$rc:$out" "0:0  0  [0, 99999]  int  0" \
		"$variant: history of quark 0 over [0, 0] is one interval"

	expect_rc 1 "$variant: history of a quark beyond the file fails" \
		"$SHT" history "$f" --quark $A
	expect_rc 1 "$variant: query after the end fails" \
		"$SHT" query "$f" --at $((T + 1)) --quark 0
	case $err in sht:*) r=0 ;; *) r=1 ;; esac
	ok $r "$variant: the failure is reported as 'sht: ...'"
done

# Both variants store the same intervals.
for variant in esht sht; do
	"$SHT" history "$SHT_TMP/stair-$variant.sht" --quark 42 --json \
		>"$SHT_TMP/h-$variant.json"
done
cmp -s "$SHT_TMP/h-esht.json" "$SHT_TMP/h-sht.json"
ok $? "esht and sht give the same history"

done_testing
