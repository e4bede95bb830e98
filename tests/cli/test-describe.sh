# test-describe.sh: what a history means, on the command line: the kernel
# analysis's model equals the tables of docs/KERNEL-MODEL.md (§4.1
# attributes and types, §4.2 values and names); query, history and tree
# show those names for the values the history holds; sht describe shows
# the build notes; a rules file's defined values name its values.
# Runs on a generated kernel trace (and on many-threads if the shared
# traces are there).
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

doc=${SHT_SRCDIR:?}/docs/KERNEL-MODEL.md
k=$SHT_TMP/kd
f=$SHT_TMP/kd.sht
rm -rf -- "$k" "$f" "$SHT_TMP/kd-p.sht"
expect_rc 0 "gen kernel" "$SHT" gen kernel -o "$k" --events 20000 --cpus 4 \
	--threads 60 --seed 3
expect_rc 0 "build" "$SHT" build "$k" -o "$f" --no-progress

# ---- the model against the documentation ---------------------------------

# The rows of docs/KERNEL-MODEL.md's table in section SECTION whose first
# cell is a `pattern`, as Python tuples: (pattern, cell 2[, cell 3]).
doc_rows()
{
	"$PY" - "$doc" "$1" "$2" <<'EOF'
import re, sys
text, section, ncells = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
m = re.search(r"^### " + re.escape(section) + r"\b.*?$(.*?)^#", text, re.S | re.M)
rows = []
for line in m.group(1).splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) >= ncells and cells[0].startswith("`"):
        row = [cells[0].strip("`")] + cells[1:ncells]
        if ncells == 3:
            row[1] = int(row[1])
        rows.append(tuple(row))
print(rows)
EOF
}

run "$SHT" describe "$f" --json
is "$rc" 0 "describe --json"
want_attrs=$(doc_rows 4.1 2)
got_attrs=$(json '[(e["pattern"], e["type"]) for e in d["model"] if e["text"] is not None]')
is "$got_attrs" "$want_attrs" "attributes and types equal KERNEL-MODEL.md §4.1"
want_labels=$(doc_rows 4.2 3)
got_labels=$(json 'sorted((e["pattern"], l["value"], l["label"]) for e in d["model"] for l in e["labels"])')
is "$got_labels" "$("$PY" -c "print(sorted($want_labels))")" \
	"value names equal KERNEL-MODEL.md §4.2"
start=$(json 'd["start"]')
end=$(json 'd["end"]')
is "$(json '(d["provider"], d["provider_version"], d["partial"])')" \
	"('org.eclipse.tracecompass.analysis.os.linux.kernel', 31, 0)" \
	"describe: provider, version, a full history"
is "$(json '(d["notes"]["analysis"], d["notes"]["kernel layout"], d["notes"]["trace format"], d["notes"]["trace"] == "'"$(realpath "$k")"'", d["notes"]["tool"].startswith("sht "), d["notes"]["host"])')" \
	"('kernel', 'lttng-2.7', 'CTF', True, True, 'sht-synthetic')" \
	"describe: the build notes say how the history was built"
is "$(json '"options" in d["notes"]')" 0 "no options note for a plain build"
is "$(json '[e["attributes"] > 0 for e in d["model"] if e["pattern"] in ("Threads/*", "CPUs/*", "Threads/*/System_call")]')" \
	"[True, True, True]" "describe counts the attributes each pattern covers"
run "$SHT" describe "$f"
case $out in *"trace format:"*CTF*"kernel layout:"*"Threads/*  (int, "*"values: 0 Unknown, 1 Wait blocked"*) r=0 ;; *) r=1 ;; esac
ok $r "describe (text): notes, patterns and value names"

# ---- the names the history's values get ----------------------------------

# Every int value of a thread or CPU status in full queries at 12 times has
# the documented name, and only documented values have one.
table=$(doc_rows 4.2 3)
bad=0
step=$(( (end - start) / 13 ))
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	run "$SHT" query "$f" --at "$((start + i * step))" --json
	[ "$rc" -eq 0 ] || { bad=$((bad + 1)); continue; }
	r=$(printf '%s' "$out" | "$PY" -c '
import json, re, sys
table = {(p, v): l for p, v, l in eval(sys.argv[1])}
def pattern(path):
    parts = path.split("/")
    if len(parts) == 2 and parts[0] in ("Threads", "CPUs", "Soft_IRQs"):
        return parts[0] + "/*"
    if len(parts) == 4 and parts[0] == "CPUs" and parts[2] == "Soft_IRQs":
        return "CPUs/*/Soft_IRQs/*"
    return None
bad = seen = 0
for o in json.load(sys.stdin):
    p = pattern(o["path"])
    want = table.get((p, o["value"])) if p and o["type"] == "int" else None
    seen += want is not None
    bad += o.get("label") != want
print(bad if seen else -1)
' "$table")
	[ "$r" = 0 ] || { bad=$((bad + 1)); diag "at $((start + i * step)): $r"; }
done
is "$bad" 0 "full queries: each status has its documented name, others none"
t=$("$SHT" tree "$f" --pattern 'Threads/*' --depth 0 --json |
	"$PY" -c 'import json,sys; print([o["path"] for o in json.load(sys.stdin) if o["path"] not in ("Threads/-1",)][3])')
run "$SHT" history "$f" --attribute "$t"
case $out in *" int  "[0-9]" ("[A-Z]*")"*) r=0 ;; *) r=1 ;; esac
ok $r "history (text): a status is printed as 'N (Name)'"
run "$SHT" history "$f" --attribute "$t" --json
is "$(json 'all(("label" in o) == (o["type"] == "int" and 0 <= o["value"] <= 7) for o in d)')" 1 \
	"history --json: a label on every named value, none on null"
run "$SHT" tree "$f" --values --pattern "$t" --json
is "$(json '(d[0]["type"], [l["label"] for l in d[0]["labels"]][:3], [o.get("type") for o in d if o["path"].endswith("/Exec_name")])')" \
	"('int', ['Unknown', 'Wait blocked', 'Usermode'], ['string'])" \
	"tree --values --json: types and names"
run "$SHT" tree "$f" --values --depth 1
is "$out" "$("$SHT" tree "$f" --depth 1 | sed 's/$/  node/')" \
	"tree --values: the top-level attributes are nodes"
run "$SHT" tree "$f" --values --pattern 'CPUs/0'
case $out in "CPUs/0 ("*")  int: 0 Idle, 1 Soft Irq raised, 2 Usermode, 4 System call, 8 Soft Irq, 16 Interrupt"*) r=0 ;; *) r=1 ;; esac
ok $r "tree --values: a CPU's value names"

# ---- partial histories, rules files, workloads ---------------------------

expect_rc 0 "build a partial history" "$SHT" build "$k" --partial 2000 \
	-o "$SHT_TMP/kd-p.sht" --no-progress
run "$SHT" describe "$SHT_TMP/kd-p.sht" --json
is "$(json '(d["partial"], d["notes"]["options"])')" "(2000, '--partial 2000')" \
	"describe: a partial history and its option"
run "$SHT" query "$SHT_TMP/kd-p.sht" --trace "$k" --at "$((start + 5 * step))" \
	--attribute "$t" --json
is "$(json '"label" in d[0] or d[0]["type"] == "null"')" 1 \
	"a partial history's answers carry labels too"

rules=${SHT_SRCDIR}/examples/rules/kernel-core.rules
expect_rc 0 "build with a rules file" "$SHT" build "$k" --analysis "$rules" \
	-o "$SHT_TMP/kd-r.sht" --no-progress
run "$SHT" describe "$SHT_TMP/kd-r.sht" --json
is "$(json '(d["notes"]["analysis"] == "'"$(realpath "$rules")"'", sorted((l["value"], l["label"]) for e in d["model"] if e["pattern"] == "Threads/*" for l in e["labels"]))')" \
	"(True, [(0, 'UNKNOWN'), (1, 'WAIT_BLOCKED'), (2, 'RUN_USERMODE'), (3, 'RUN_SYSCALL'), (4, 'INTERRUPTED'), (5, 'WAIT_FOR_CPU'), (6, 'WAIT_UNKNOWN'), (7, 'WAIT_FORK')])" \
	"a rules file's defines name the values of Threads/*"
run "$SHT" query "$SHT_TMP/kd-r.sht" --at "$((start + 7 * step))" --json
is "$(json 'any(o.get("label") == "RUN_USERMODE" and o["value"] == 2 for o in d)')" 1 \
	"query shows a rules file's names"

expect_rc 0 "gen churn" "$SHT" gen churn --threads 5 -o "$SHT_TMP/ch.sht"
run "$SHT" describe "$SHT_TMP/ch.sht" --json
is "$(json '(d["provider"], d["notes"]["workload"], [e["pattern"] for e in d["model"]])')" \
	"('churn', 'churn', ['Threads', 'Threads/*', 'Threads/*/Status', 'Threads/*/Exec_name'])" \
	"describe a workload's history"
usage_err()
{
	expect_rc 2 "$1" "${@:2}"
}
usage_err "describe without FILE" "$SHT" describe
usage_err "describe with two files" "$SHT" describe "$f" "$f"
expect_rc 1 "describe a missing file" "$SHT" describe "$SHT_TMP/none.sht"

# ---- the real trace ---------------------------------------------------------

traces=${SHT_SHARED:-}/traces
if [ -n "${SHT_SHARED:-}" ] && [ -d "$traces/many-threads" ]; then
	m=$SHT_TMP/mt.sht
	expect_rc 0 "build many-threads" "$SHT" build "$traces/many-threads" \
		-o "$m" --no-progress
	run "$SHT" query "$m" --at +0.2s --attribute CPUs/0 --attribute Threads/1000
	case $out in *"CPUs/0  "*" int  "*" ("*")"*"Threads/1000  "*" int  6 (Wait)"*) r=0 ;; *) r=1 ;; esac
	ok $r "many-threads: CPU 0 and thread 1000 with their names"
	run "$SHT" describe "$m" --json
	is "$(json '(d["notes"]["tracer"], d["notes"]["kernel layout"])')" \
		"('lttng-modules 2.8.0', 'lttng-2.7')" "many-threads: tracer and layout noted"
fi

done_testing
