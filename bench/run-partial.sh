#!/usr/bin/env bash
# run-partial.sh: partial histories against full histories (thesis §4.5),
# on this machine.
#
#   bench/run-partial.sh [--repeat K] [--queries Q] [--full-queries F]
#                        [--dir DIR] [--out-dir DIR] [--bench PATH]
#                        [--no-wait] [--quick]
#
# Runs partial-bench (built by CMake as <build>/partial-bench) with
# checkpoints every 20 000, 50 000 and 100 000 events over:
#   staircase A = 10 000  (I = 20: 200 000 events)
#   staircase A = 100 000 (I = 20: 2 000 000 events)
#   churn     N = 100 000 (2 100 000 events)
#   staircase A = 100, I = 20 000 (2 000 000 events; extra: few attributes
#             and short intervals, the regime of the thesis's traces)
# each --repeat K times (default 3), Q = 500 single queries of each kind
# and F = 10 full queries per batch.  Writes every JSON line to
# bench/results/partial-<date>.jsonl and the medians as a markdown table,
# with the machine (cores, memory, disk), to bench/results/partial-<date>.md
# (--out-dir to put them elsewhere).  --quick: small sizes, one repeat,
# a smoke run, not figures to quote.
#
# The machine has few cores: before each run the script waits (at most
# 10 minutes) while the 1-minute load is above 1.5, unless --no-wait; the
# load at the start of each run is in the table.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

repeat=3
queries=500
full_queries=10
quick=0
wait_load=1
dir=${TMPDIR:-/tmp}/sht-partial-bench
out_dir=$here/results
bench=${SHT_PARTIAL_BENCH:-}

while [ $# -gt 0 ]; do
	case "$1" in
	--repeat) repeat=$2; shift ;;
	--queries) queries=$2; shift ;;
	--full-queries) full_queries=$2; shift ;;
	--dir) dir=$2; shift ;;
	--out-dir) out_dir=$2; shift ;;
	--bench) bench=$2; shift ;;
	--no-wait) wait_load=0 ;;
	--quick) quick=1; repeat=1; queries=50; full_queries=3 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#'; exit 0 ;;
	*) echo "run-partial.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

if [ -z "$bench" ]; then
	for b in /tmp/pbench-build/partial-bench "$top/build/release/partial-bench" \
		 "$top/build/partial-bench"; do
		if [ -x "$b" ]; then bench=$b; break; fi
	done
fi
if [ -z "$bench" ] || [ ! -x "$bench" ]; then
	echo "run-partial.sh: partial-bench not found; build it (cmake -DCMAKE_BUILD_TYPE=Release, target partial-bench) or pass --bench PATH" >&2
	exit 2
fi
command -v jq >/dev/null || { echo "run-partial.sh: needs jq for the table" >&2; exit 2; }

mkdir -p "$dir" "$out_dir"
stamp=$(date +%Y-%m-%d)
jsonl=$out_dir/partial-$stamp.jsonl
md=$out_dir/partial-$stamp.md
: >"$jsonl"

# Space: the largest full history is ~25 MB; keep a margin.
avail_kb=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
if [ "$avail_kb" -lt $((512 * 1024)) ]; then
	echo "run-partial.sh: $dir has $((avail_kb / 1024)) MiB free, needs 512 MiB" >&2
	exit 2
fi

wait_quiet() {
	[ "$wait_load" = 1 ] || return 0
	local load waited=0
	while :; do
		load=$(cut -d' ' -f1 /proc/loadavg)
		awk -v l="$load" 'BEGIN { exit !(l <= 1.5) }' && return 0
		if [ "$waited" -ge 600 ]; then
			echo "# load $load still > 1.5 after 10 min: running anyway" >&2
			return 0
		fi
		echo "# load $load > 1.5: waiting" >&2
		sleep 30
		waited=$((waited + 30))
	done
}

# name|options
if [ "$quick" = 1 ]; then
	runs=("staircase A=1000|--workload staircase --size 1000"
	      "churn N=2000|--workload churn --size 2000")
	every=2000,5000,10000
else
	runs=("staircase A=10 000|--workload staircase --size 10000"
	      "staircase A=100 000|--workload staircase --size 100000"
	      "churn N=100 000|--workload churn --size 100000"
	      "staircase A=100, I=20 000 (extra)|--workload staircase --size 100 --intervals 20000")
	every=20000,50000,100000
fi

declare -a loads
status=0
for r in "${runs[@]}"; do
	name=${r%%|*}
	opts=${r#*|}
	wait_quiet
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	loads+=("$name: $load")
	echo "# $name (load $load)" >&2
	# shellcheck disable=SC2086
	if ! "$bench" $opts --every "$every" --dir "$dir" --queries "$queries" \
		--full-queries "$full_queries" --repeat "$repeat" \
		| jq -c --arg name "$name" --arg load "$load" \
			'. + {run: $name, load: $load}' >>"$jsonl"; then
		echo "run-partial.sh: $name: partial-bench failed (wrong answers or error)" >&2
		status=1
	fi
done

# ---- the markdown report -------------------------------------------------

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
cores=$(nproc)
mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
dev=$(df -P "$dir" | awk 'NR == 2 { print $1 }')
fstype=$(df -PT "$dir" | awk 'NR == 2 { print $2 }')
disk=$(lsblk -dno NAME,ROTA,SIZE,MODEL "$dev" 2>/dev/null | awk '{ $2 = ($2 == 1 ? "rotational (as reported)" : "non-rotational"); print }' || true)
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$top" status --porcelain 2>/dev/null | grep -q . && echo " (uncommitted changes)" || true)

{
	echo "# Partial histories vs full histories ($stamp)"
	echo
	echo "\`bench/run-partial.sh\`: \`partial-bench\` at commit $commit$dirty,"
	echo "Release build; $repeat repeats (medians; mismatches summed), $queries single"
	echo "queries of each kind and $full_queries full queries per batch. Every answer was"
	echo "checked against the workload's definition (mismatches) and, for the"
	echo "partial histories, against the full history's answer (diff)."
	echo
	echo "Machine: $cpu, $cores cores, $mem memory; files in \`$dir\` on $dev ($fstype${disk:+; $disk})."
	echo "Load (1, 5, 15 min) at the start of each run:"
	for l in "${loads[@]}"; do echo "- $l"; done
	echo
	echo "Columns: E = checkpoint every E events; cps = checkpoints; ivs = intervals"
	echo "in the file's tree; ratio = full history / this one (file bytes, intervals);"
	echo "build = create .. finish, provider run and fsync included; single = uniform"
	echo "random (quark, t); live = an attribute while it holds its own value (churn:"
	echo "a living thread's Status or Exec_name); µs mean / p50 / p99; replays and"
	echo "events = per query, segments replayed and events read from the source;"
	echo "full = full query, mean ms and events read per query."
	echo
	echo "| run | history | E | cps | ivs | file | ratio bytes | ratio ivs | build s | single µs mean / p50 / p99 | replays | live µs mean / p50 / p99 | live replays | live events | full ms | full events | mismatches / diff |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---:|---:|"
	jq -r 'select(.type == "median") |
		def f(x; d): if x == null then "–" else (x * pow(10; d) | round / pow(10; d) | tostring) end;
		def mb: if . >= 1048576 then f(. / 1048576; 1) + " MiB" else f(. / 1024; 0) + " KiB" end;
		def lat(m; p; q): f(m; 1) + " / " + f(p; 1) + " / " + f(q; 1);
		"| \(.run) | \(.history) | \(if .every == 0 then "–" else .every end) | \(.checkpoints) | \(.intervals) | \(.file_bytes | mb) | \(f(.ratio; 2)) | \(f(.interval_ratio; 1)) | \(f(.build_s; 3)) | \(lat(.single_mean_us; .single_p50_us; .single_p99_us)) | \(f(.single_replays; 3)) | \(lat(.live_mean_us; .live_p50_us; .live_p99_us)) | \(f(.live_replays; 3)) | \(f(.live_events_replayed; 0)) | \(f(.full_mean_ms; 2)) | \(f(.full_events_replayed; 0)) | \(.mismatches) / \(.diff_full) |"' "$jsonl"
	echo
	echo "Raw lines (every repeat, and the medians): \`$(basename "$jsonl")\`."
} >"$md"

echo "# wrote $md and $jsonl" >&2
exit $status
