#!/usr/bin/env bash
# sqlite-run.sh: the SQLite comparison of docs/BENCH-SQLITE.md, sht and
# SQLite side by side in one session, in interleaved rounds (sht-bench
# store, then each SQLite index, for each A), then the medians.
#
#   bench/sqlite-run.sh [-b BUILD] [-o OUT.jsonl] [-r ROUNDS] [-R RTREE_MAX]
#                       [-i "INDEXES"] [-d DIR] [A]...
#
#   -b BUILD     release tree with sht-bench and sht-sqlite-bench (build/release)
#   -o OUT       JSON lines appended here (bench/results/sqlite-<date>.jsonl)
#   -r ROUNDS    rounds per A (3)
#   -R MAX       R*Tree only for A <= MAX (100000: ~1 min at 100 000,
#                ~10 min or more at 1 000 000)
#   -i INDEXES   the SQLite indexes ("btree btree-wr rtree")
#   -d DIR       where the files go ($TMPDIR or /tmp)
#   A...         staircase sizes (1000 10000 100000)
#   --table      only print the table of medians of OUT
#
# Each line is a program's own JSON line; sht-bench's have "mode":"store".
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=build/release
out=bench/results/sqlite-$(date -u +%Y-%m-%d).jsonl
rounds=3
rtree_max=100000
dir=${TMPDIR:-/tmp}
table_only=0
indexes="btree btree-wr rtree"
sizes=()
while [ $# -gt 0 ]; do
	case $1 in
	-b) build=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	-r) rounds=$2; shift 2 ;;
	-R) rtree_max=$2; shift 2 ;;
	-d) dir=$2; shift 2 ;;
	-i) indexes=$2; shift 2 ;;
	--table) table_only=1; shift ;;
	-h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "sqlite-run.sh: unknown option $1" >&2; exit 2 ;;
	*) sizes+=("$1"); shift ;;
	esac
done
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)

table()
{
	python3 - "$out" <<'EOF'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d.get("mode") == "store":
        if d.get("type") != "run" or d.get("workload") != "staircase":
            continue
        key = ("sht-" + d["variant"], d["size"])
        r = dict(build_s=d["build_s"], bpi=d["bytes_per_interval"],
                 bcpu=d["build_user_s"] + d["build_sys_s"],
                 mean=d["single_mean_us"], p50=d["single_p50_us"],
                 p99=d["single_p99_us"], full=d["full_mean_ms"],
                 load1=None)
    elif "system" in d and d.get("workload") == "staircase":
        key = (d["system"], d["attrs"])
        r = dict(build_s=d["build_s"], bpi=d["bytes_per_interval"],
                 bcpu=d["build_cpu_s"], load1=d.get("load1"),
                 mean=d["single_mean_us"], p50=d["single_p50_us"],
                 p99=d["single_p99_us"], full=d["full_ms"],
                 sql=d.get("full_sql_ms"), cpu=d.get("single_cpu_us"),
                 fcpu=d.get("full_cpu_ms"))
    else:
        continue
    rows.setdefault(key, []).append(r)
def med(rs, k):
    v = [r[k] for r in rs if r.get(k) is not None]
    return statistics.median(v) if v else None
def f(x, p=3):
    return "-" if x is None else f"{x:.{p}g}"
print("| system | A | runs | build s | build CPU s | bytes/interval | single mean us"
      " | single p50 us | single p99 us | single CPU us | full ms"
      " | full CPU ms | full, one SQL ms | load |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (sysname, a), rs in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    print(f"| {sysname} | {a} | {len(rs)} | {f(med(rs,'build_s'))} | "
          f"{f(med(rs,'bcpu'))} | "
          f"{f(med(rs,'bpi'))} | {f(med(rs,'mean'))} | {f(med(rs,'p50'))} | "
          f"{f(med(rs,'p99'))} | {f(med(rs,'cpu'))} | {f(med(rs,'full'))} | "
          f"{f(med(rs,'fcpu'))} | {f(med(rs,'sql'))} | {f(med(rs,'load1'), 2)} |")
EOF
}

if [ "$table_only" -eq 0 ]; then
	for b in sht-bench sht-sqlite-bench; do
		[ -x "$build/$b" ] || { echo "sqlite-run.sh: no $build/$b" >&2; exit 2; }
	done
	mkdir -p "$(dirname "$out")"
	for a in "${sizes[@]}"; do
		for r in $(seq 1 "$rounds"); do
			echo "sqlite-run.sh: A=$a round $r, load $(cut -d' ' -f1 /proc/loadavg)" >&2
			"$build/sht-bench" store --workload staircase --size "$a" \
				--dir "$dir" --seed 1 >>"$out"
			for index in $indexes; do
				if [ "$index" = rtree ] && [ "$a" -gt "$rtree_max" ]; then
					continue
				fi
				"$build/sht-sqlite-bench" --index "$index" \
					--workload staircase --attrs "$a" \
					--db "$dir/sqlite-run-$$.db" --seed 1 >>"$out"
			done
		done
	done
fi
table
