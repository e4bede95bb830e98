# test-attributes.sh: the workloads through the state system and the
# commands that use attribute names: gen writes exactly the intervals of
# the interval generator (--dump) plus the attribute tree and provider;
# query/history by --attribute with "path" in every answer; tree; info's
# attributes and provider; the memory and null backends; unknown names.
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

# Every interval of FILE, one line "quark start end type value" per
# interval, sorted: `sht history` of each quark 0 .. count-1.
all_intervals()
{
	local file=$1 count=$2 q
	for q in $(seq 0 $((count - 1))); do
		"$SHT" history "$file" --quark "$q" --json || echo "history $q failed"
	done | "$PY" -c '
import json, sys
text = sys.stdin.read()
dec, i, rows = json.JSONDecoder(), 0, []
while i < len(text):
    if text[i].isspace(): i += 1; continue
    if not text.startswith("[", i): rows.append("junk: " + text[i:i+40]); break
    arr, i = dec.raw_decode(text, i)
    for o in arr:
        v = o["value"]
        v = "null" if v is None else json.dumps(v)
        rows.append("%d %d %d %s %s" % (o["quark"], o["start"], o["end"], o["type"], v))
print("\n".join(sorted(rows)))
'
}

# The --dump lines ("quark  [start, end]  type  value") in the same form.
dump_intervals()
{
	"$SHT" gen "$@" --dump | "$PY" -c '
import re, sys
pat = re.compile(r"^(\d+)  \[(-?\d+), (-?\d+)\]  (\w+)  (.*)$")
rows = []
for line in sys.stdin:
    m = pat.match(line.rstrip("\n"))
    rows.append("%s %s %s %s %s" % m.groups() if m else "bad: " + line)
print("\n".join(sorted(rows)))
'
}

# ---- gen through the state system = the interval generator ---------------

sa=$SHT_TMP/stair.sht
expect_rc 0 "gen staircase A=40 I=6 D=100" "$SHT" gen staircase \
	--attributes 40 --intervals 6 --step 100 --block-size 4k --no-sync \
	--json -o "$sa"
is "$(json '(d["intervals"], d["attributes"], d["backend"], d["file"] is not None)')" \
	"(279, 40, 'tree', True)" "gen staircase: A(I+1)-1 intervals, A attributes"
got=$(all_intervals "$sa" 40)
want=$(dump_intervals staircase --attributes 40 --intervals 6 --step 100)
is "$(printf '%s\n' "$got" | wc -l | tr -d ' ')" 279 \
	"staircase file: 279 intervals over all quarks"
[ "$got" = "$want" ]
ok $? "staircase: the state system wrote exactly the generator's intervals"

N=20    # more threads than the drivers' ring of 16
ch=$SHT_TMP/churn.sht
expect_rc 0 "gen churn N=$N" "$SHT" gen churn --threads $N \
	--block-size 4k --no-sync --json -o "$ch"
is "$(json '(d["intervals"], d["attributes"])')" "($((26 * N - 1)), $((3 * N + 1)))" \
	"gen churn: 26N-1 intervals, 3N+1 attributes"
got=$(all_intervals "$ch" $((3 * N + 1)))
want=$(dump_intervals churn --threads $N)
[ -n "$got" ] && [ "$got" = "$want" ]
ok $? "churn: the state system wrote exactly the generator's intervals"
if [ "$got" != "$want" ]; then
	diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -n 10 |
		while read -r l; do diag "$l"; done
fi

expect_rc 0 "check the churn file" "$SHT" check "$ch"

# ---- info: attributes and provider -------------------------------------

expect_rc 0 "info --json (staircase)" "$SHT" info "$sa" --json
is "$(json '(d["attributes"], d["provider"], d["provider_version"], d["quarks"])')" \
	"(40, 'staircase', 1, 40)" "info: staircase attributes and provider"
expect_rc 0 "info --json (churn)" "$SHT" info "$ch" --json
is "$(json '(d["attributes"], d["provider"], d["provider_version"])')" \
	"($((3 * N + 1)), 'churn', 1)" "info: churn attributes and provider"
expect_rc 0 "info (human)" "$SHT" info "$ch"
is "$(printf '%s\n' "$out" | grep -E '^(attributes|provider|provider_version):' | tr -s ' ' | tr '\n' ';')" \
	"attributes: $((3 * N + 1));provider: churn;provider_version: 1;" \
	"info: human lines for attributes and provider"

# ---- query by attribute path ---------------------------------------------

# Expected path of a churn quark.
churn_path()
{
	local q=$1 i
	[ "$q" -eq 0 ] && { echo Threads; return; }
	i=$(((q - 1) / 3))
	case $(((q - 1) % 3)) in
	0) echo "Threads/$i" ;;
	1) echo "Threads/$i/Status" ;;
	2) echo "Threads/$i/Exec_name" ;;
	esac
}

expect_rc 0 "query --attribute Threads/4/Status" "$SHT" query "$ch" \
	--at 5600 --attribute Threads/4/Status --json
is "$(json '[(o["quark"], o["path"], o["start"], o["end"], o["type"], o["value"]) for o in d]')" \
	"[(14, 'Threads/4/Status', 5500, 5999, 'int', 1)]" \
	"query by path: quark, path and interval"

run "$SHT" query "$ch" --at 5600 --quark 14 --json
by_quark=$out
run "$SHT" query "$ch" --at 5600 --attribute Threads/4/Status --json
is "$out" "$by_quark" "--attribute and --quark give the same answer"

expect_rc 0 "query mixing --attribute and --quark" "$SHT" query "$ch" \
	--at 7000 --attribute Threads/6/Exec_name --quark 0 \
	--attribute Threads --attribute Threads/2 --json
is "$(json '[(o["quark"], o["path"], o["value"]) for o in d]')" \
	"[(21, 'Threads/6/Exec_name', 'proc6'), (0, 'Threads', None), (0, 'Threads', None), (7, 'Threads/2', None)]" \
	"answers in the order given, each with its path"

expect_rc 0 "query (human) by path" "$SHT" query "$ch" --at 7000 \
	--attribute Threads/6/Exec_name
is "$out" '21  Threads/6/Exec_name  [6000, 15999]  string  "proc6"' \
	"human answer: quark  path  [start, end]  type  value"

expect_rc 0 "full query --json" "$SHT" query "$ch" --at 12345 --json
bad=$(printf '%s' "$out" | "$PY" -c '
import json, sys
for o in json.load(sys.stdin):
    print(o["quark"], o["path"])
' | while read -r q p; do
		[ "$p" = "$(churn_path "$q")" ] || echo "q=$q path=$p"
	done)
is "$(json 'len(d)'):$bad" "$((3 * N + 1)):" \
	"full query: every interval carries its attribute's path"

run "$SHT" query "$sa" --at 1234 --json
is "$(json 'all(o["path"] == str(o["quark"]) for o in d) and len(d) == 40')" 1 \
	"staircase full query: path of quark a is \"a\""

expect_rc 1 "query an unknown attribute" "$SHT" query "$ch" --at 0 \
	--attribute Threads/99/Status
is "$out" "" "unknown attribute: nothing on stdout"
is "$err" "sht: $ch has no attribute 'Threads/99/Status'" \
	"unknown attribute: named on stderr"
expect_rc 1 "query an unknown attribute among known ones" "$SHT" query \
	"$ch" --at 0 --attribute Threads --attribute Nope
expect_rc 1 "query a path one level too deep" "$SHT" query "$ch" --at 0 \
	--attribute Threads/1/Status/x

# ---- history by attribute path -------------------------------------------

run "$SHT" history "$ch" --quark 14 --json
by_quark=$out
expect_rc 0 "history --attribute Threads/4/Status" "$SHT" history "$ch" \
	--attribute Threads/4/Status --json
is "$out" "$by_quark" "history: --attribute and --quark agree"
is "$(json '(len(d), set(o["path"] for o in d))')" \
	"(22, {'Threads/4/Status'})" "history: 22 intervals, each with the path"

expect_rc 0 "history (human) over a range" "$SHT" history "$ch" \
	--attribute Threads/4/Exec_name --from 3000 --to 4500
is "$out" '15  Threads/4/Exec_name  [0, 3999]  null  null
15  Threads/4/Exec_name  [4000, 13999]  string  "proc4"' \
	"history: the interval at T1, then the next ones up to T2"

# --to past the end is clamped to the end (KERNEL_MODEL §2.3).
T=$((N * 1000 + 10000))
expect_rc 0 "history --to past the end" "$SHT" history "$ch" --quark 14 \
	--from 13000 --to $((T + 1000000)) --json
is "$(json '[(o["start"], o["end"]) for o in d]')" \
	"[(13000, 13499), (13500, 13999), (14000, $T)]" \
	"history: --to clamped to the end"
expect_rc 1 "history --from after the end" "$SHT" history "$ch" --quark 14 \
	--from $((T + 1))
expect_rc 1 "history of an unknown attribute" "$SHT" history "$ch" \
	--attribute Threads/x
is "$err" "sht: $ch has no attribute 'Threads/x'" \
	"history: unknown attribute named on stderr"

# ---- tree ------------------------------------------------------------------

c3=$SHT_TMP/c3.sht
expect_rc 0 "gen churn N=3" "$SHT" gen churn --threads 3 --no-sync -o "$c3"
expect_rc 0 "tree" "$SHT" tree "$c3"
is "$out" "Threads (0)
  0 (1)
    Status (2)
    Exec_name (3)
  1 (4)
    Status (5)
    Exec_name (6)
  2 (7)
    Status (8)
    Exec_name (9)" "tree of churn N=3"

expect_rc 0 "tree --json" "$SHT" tree "$c3" --json
is "$out" '[
{"quark":0,"path":"Threads","parent":null},
{"quark":1,"path":"Threads/0","parent":0},
{"quark":2,"path":"Threads/0/Status","parent":1},
{"quark":3,"path":"Threads/0/Exec_name","parent":1},
{"quark":4,"path":"Threads/1","parent":0},
{"quark":5,"path":"Threads/1/Status","parent":4},
{"quark":6,"path":"Threads/1/Exec_name","parent":4},
{"quark":7,"path":"Threads/2","parent":0},
{"quark":8,"path":"Threads/2/Status","parent":7},
{"quark":9,"path":"Threads/2/Exec_name","parent":7}
]' "tree --json of churn N=3"

expect_rc 0 "tree --depth 2" "$SHT" tree "$c3" --depth 2
is "$out" "Threads (0)
  0 (1)
  1 (4)
  2 (7)" "tree --depth 2"
expect_rc 0 "tree --depth 1 --json" "$SHT" tree "$c3" --depth 1 --json
is "$(json 'd')" "[{'quark': 0, 'path': 'Threads', 'parent': None}]" \
	"tree --depth 1 --json: the top level"

expect_rc 0 "tree --pattern Threads/*/Exec_name" "$SHT" tree "$c3" \
	--pattern 'Threads/*/Exec_name'
is "$out" "Threads/0/Exec_name (3)
Threads/1/Exec_name (6)
Threads/2/Exec_name (9)" "tree --pattern: the matches by path"
expect_rc 0 "tree --pattern Threads/*" "$SHT" tree "$c3" \
	--pattern 'Threads/*'
is "$out" "Threads/0 (1)
  Status (2)
  Exec_name (3)
Threads/1 (4)
  Status (5)
  Exec_name (6)
Threads/2 (7)
  Status (8)
  Exec_name (9)" "tree --pattern: each match with what is below it"
expect_rc 0 "tree --pattern '*/1' --depth 0 --json" "$SHT" tree "$c3" \
	--pattern '*/1' --depth 0 --json
is "$(json 'd')" "[{'quark': 4, 'path': 'Threads/1', 'parent': 0}]" \
	"tree --pattern --depth 0 --json: the match alone"
expect_rc 1 "tree --pattern matching nothing" "$SHT" tree "$c3" \
	--pattern 'Threads/*/Nope'
case $err in *"no attribute matches 'Threads/*/Nope'"*) r=0 ;; *) r=1 ;; esac
ok $r "tree: no match is reported"

run "$SHT" tree "$sa"
is "$(printf '%s\n' "$out" | wc -l | tr -d ' '):$(printf '%s\n' "$out" | sed -n '1p;40p' | tr '\n' ';')" \
	"40:0 (0);39 (39);" "tree of the staircase: 40 top-level attributes"

# ---- the memory and null backends ------------------------------------------

for be in memory null; do
	expect_rc 0 "gen staircase --backend $be" "$SHT" gen staircase \
		--attributes 30 --backend $be --json
	is "$(json '(d["backend"], d["file"], d["intervals"], d["attributes"], d["file_bytes"])')" \
		"('$be', None, 629, 30, 0)" "--backend $be: summary without a file"
	expect_rc 0 "gen churn --backend $be (human)" "$SHT" gen churn \
		--threads 25 --backend $be
	case $out in "churn: 649 intervals in "*", 76 attributes, $be backend (no file)") r=0 ;; *) r=1 ;; esac
	ok $r "--backend $be: human summary"
done
expect_rc 0 "gen --backend tree -o FILE" "$SHT" gen staircase \
	--attributes 5 --backend tree --no-sync -o "$SHT_TMP/bt.sht"
expect_rc 0 "... checks" "$SHT" check "$SHT_TMP/bt.sht"

done_testing
