# test-history-select.sh: sht history over a pattern (--pattern), and its
# filters (--non-null, --value, --longest), against an oracle built from
# the per-attribute histories: the same intervals, in (start, quark)
# order, filtered and sorted as the help says.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

ch=$SHT_TMP/sel.sht
expect_rc 0 "gen churn" "$SHT" gen churn --threads 12 -o "$ch"
k=$SHT_TMP/selk
rm -rf -- "$k"
expect_rc 0 "gen kernel" "$SHT" gen kernel -o "$k" --events 20000 --cpus 2 \
	--threads 30 --seed 4
expect_rc 0 "build" "$SHT" build "$k" -o "$k.sht" --no-progress

# oracle FILE PATTERN FROM TO FILTER LONGEST: the expected JSON array
# (as Python's repr) from one `history --attribute` per match.
oracle()
{
	local file=$1 pat=$2 from=$3 to=$4 filter=$5 longest=$6 p all=
	for p in $("$SHT" tree "$file" --pattern "$pat" --depth 0 --json |
			"$PY" -c 'import json,sys; [print(o["path"]) for o in json.load(sys.stdin)]'); do
		all="$all$("$SHT" history "$file" --attribute "$p" --from "$from" \
			--to "$to" --json)"$'\n'
	done
	printf '%s' "$all" | "$PY" -c '
import json, sys
filt, longest = sys.argv[1], int(sys.argv[2])
dec, text, i, rows = json.JSONDecoder(), sys.stdin.read(), 0, []
while i < len(text):
    if text[i].isspace():
        i += 1
        continue
    v, i = dec.raw_decode(text, i)
    rows += v
if filt == "non-null":
    rows = [r for r in rows if r["type"] != "null"]
elif filt:
    rows = [r for r in rows if r.get("label") == filt or str(r["value"]) == filt]
rows.sort(key=lambda r: (r["start"], r["quark"]))
if longest:
    rows.sort(key=lambda r: (-(r["end"] - r["start"]), r["start"], r["quark"]))
    rows = rows[:longest]
print(rows)' "$filter" "$longest"
}

got()
{
	"$SHT" history "$@" --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin))'
}

is "$(got "$ch" --pattern 'Threads/*/Status')" \
	"$(oracle "$ch" 'Threads/*/Status' start end '' 0)" \
	"churn: --pattern = every match's history, by start then quark"
is "$(got "$ch" --pattern 'Threads/*/Status' --from 3000 --to 9000)" \
	"$(oracle "$ch" 'Threads/*/Status' 3000 9000 '' 0)" \
	"churn: --pattern over [3000, 9000]"
is "$(got "$ch" --pattern 'Threads/*/Exec_name' --non-null)" \
	"$(oracle "$ch" 'Threads/*/Exec_name' start end non-null 0)" \
	"churn: --non-null"
is "$(got "$ch" --pattern 'Threads/*/Status' --value 2)" \
	"$(oracle "$ch" 'Threads/*/Status' start end 2 0)" "churn: --value 2"
is "$(got "$ch" --pattern 'Threads/*' --longest 4)" \
	"$(oracle "$ch" 'Threads/*' start end '' 4)" "churn: --longest 4"
n=$("$SHT" history "$ch" --pattern 'Threads/*/Status' --value 2 --json |
	"$PY" -c 'import json,sys; d=json.load(sys.stdin); print(len(d) if all(o["value"] == 2 for o in d) else -1)')
is "$n" $((12 * 7)) "churn: value 2 holds 7 times per thread (k = 1, 4, ..., 19)"

is "$(got "$k.sht" --pattern 'Threads/*' --value 'Wait blocked' --longest 6)" \
	"$(oracle "$k.sht" 'Threads/*' start end 'Wait blocked' 6)" \
	"kernel: the 6 longest Wait blocked intervals, by name"
is "$(got "$k.sht" --pattern 'Threads/*' --value 1 --longest 6)" \
	"$(got "$k.sht" --pattern 'Threads/*' --value 'Wait blocked' --longest 6)" \
	"kernel: --value 1 is --value 'Wait blocked'"
is "$(got "$k.sht" --pattern 'Threads/*/System_call' --non-null --longest 5)" \
	"$(oracle "$k.sht" 'Threads/*/System_call' start end non-null 5)" \
	"kernel: the 5 longest system calls"
run "$SHT" history "$k.sht" --pattern 'Threads/*/System_call' --non-null \
	--longest 3 --time-format relative
case $out in "# times: "*$'\n'*"System_call  [+"*" s, +"*" s]  string  \""*) r=0 ;; *) r=1 ;; esac
ok $r "the text form, relative times"

expect_rc 2 "--pattern and --attribute" "$SHT" history "$ch" --pattern 'Threads/*' \
	--attribute Threads
expect_rc 2 "--longest 0" "$SHT" history "$ch" --pattern 'Threads/*' --longest 0
expect_rc 2 "empty --pattern" "$SHT" history "$ch" --pattern ''
expect_rc 1 "a pattern that matches nothing" "$SHT" history "$ch" --pattern 'Nope/*'
case $err in *"no attribute matches 'Nope/*'"*) r=0 ;; *) r=1 ;; esac
ok $r "... says so"

done_testing
