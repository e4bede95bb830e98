#!/usr/bin/env bash
# run-state.sh: the state-system figures of docs/PERFORMANCE.md, on this
# machine.
#
#   bench/run-state.sh [--quick] [--repeat K] [--repeat-big K] [--dir DIR]
#                      [--out FILE] [--bench PATH] [--no-wait]
#
# Runs `sht-bench state` (built by CMake as <build>/sht-bench) over:
#   staircase A = 10 000, 100 000, 1 000 000
#   churn N = 10 000, 100 000
# each with the tree backend (threads 0 and 1: the threaded builder
# pipeline; each tree run also builds the store-only file beside it, the
# baseline of the state system's overhead), the memory backend and the
# null backend (providers and transient state alone), each --repeat K
# times (default 5; --repeat-big K for staircase A = 1 000 000, default
# the same), writes every JSON line to the results file (default
# DIR/state-<date>.jsonl) and prints markdown tables of the medians.
# --quick: A <= 100 000, N = 10 000, one repeat: a smoke run, not figures
# to quote.
#
# The machine has few cores: before each run the script waits while the
# 1-minute load is above 1.5 (another build running), unless --no-wait.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

repeat=5
repeat_big=
quick=0
wait_load=1
dir=${TMPDIR:-/tmp}/sht-bench
out=
bench=${SHT_BENCH:-}

while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1; repeat=1 ;;
	--repeat) repeat=$2; shift ;;
	--repeat-big) repeat_big=$2; shift ;;
	--dir) dir=$2; shift ;;
	--out) out=$2; shift ;;
	--bench) bench=$2; shift ;;
	--no-wait) wait_load=0 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#'; exit 0 ;;
	*) echo "run-state.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$repeat_big" ] || repeat_big=$repeat

if [ -z "$bench" ]; then
	for b in "$top/build/release/sht-bench" "$top/build/sht-bench" \
		 "$top/build/release/bench/sht-bench" "$top/build/bench/sht-bench" \
		 /tmp/sbench-build/sht-bench /tmp/bench-build/sht-bench; do
		# An older build without the state mode does not count.
		if [ -x "$b" ] && "$b" --help 2>/dev/null | grep -q 'sht-bench state'; then
			bench=$b
			break
		fi
	done
fi
if [ -z "$bench" ] || [ ! -x "$bench" ]; then
	echo "run-state.sh: sht-bench (with its state mode) not found; build it (cmake -DCMAKE_BUILD_TYPE=Release) or pass --bench PATH" >&2
	exit 2
fi
command -v jq >/dev/null || { echo "run-state.sh: needs jq for the tables" >&2; exit 2; }

mkdir -p "$dir"
if [ -z "$out" ]; then
	out=$dir/state-$(date +%Y%m%d-%H%M%S).jsonl
fi
: >"$out"

# Space: staircase 1M makes two files of ~100 MB each (state, store-only).
avail_kb=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
if [ "$avail_kb" -lt $((1024 * 1024)) ]; then
	echo "run-state.sh: $dir has $((avail_kb / 1024)) MiB free, needs 1 GiB" >&2
	exit 2
fi

wait_quiet() {
	[ "$wait_load" = 1 ] || return 0
	local load
	while :; do
		load=$(cut -d' ' -f1 /proc/loadavg)
		awk -v l="$load" 'BEGIN { exit !(l <= 1.5) }' && return 0
		echo "# load $load > 1.5: waiting" >&2
		sleep 30
	done
}

status=0
# run K ARGS...: sht-bench state ARGS --repeat K
run() {
	local k=$1
	shift
	wait_quiet
	echo "# sht-bench state $* --repeat $k" >&2
	if ! "$bench" state "$@" --repeat "$k" --dir "$dir" >>"$out"; then
		echo "run-state.sh: FAILED: sht-bench state $*" >&2
		status=1
	fi
}

# All backends for one workload size.
set_of() {
	local k=$1
	shift
	run "$k" "$@" --backend tree --threads 0
	run "$k" "$@" --backend tree --threads 1
	run "$k" "$@" --backend memory
	run "$k" "$@" --backend null
}

{
	echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
	echo "# memory: $(free -h | awk '/^Mem:/ { print $2 }'), disk: $(df -Ph "$dir" | awk 'NR == 2 { print $1 " " $2 }')"
	echo "# bench: $bench, repeat: $repeat (A = 10^6: $repeat_big), results: $out"
} >&2

if [ "$quick" = 1 ]; then
	for a in 10000 100000; do
		set_of 1 --workload staircase --size "$a"
	done
	set_of 1 --workload churn --size 10000
else
	set_of "$repeat" --workload staircase --size 10000
	set_of "$repeat" --workload staircase --size 100000
	set_of "$repeat_big" --workload staircase --size 1000000
	set_of "$repeat" --workload churn --size 10000
	set_of "$repeat" --workload churn --size 100000
fi

# ---- tables of the medians ---------------------------------------------------
# A configuration run once has no median line: take its run line then.
# shellcheck disable=SC2016  # $x are jq's, not the shell's
pick='[.[] | select(.mode == "state")] |
  group_by([.workload, .size, .backend, .threads]) |
  map((map(select(.type == "median")) + map(select(.type == "run")))[0]) |
  sort_by([(if .workload == "staircase" then 0 else 1 end), .size, (if .backend == "tree" then 0 elif .backend == "memory" then 1 else 2 end), .threads]) | .[]'
defs='def r(n): if . == null then "-" else (. * pow(10; n) | round) / pow(10; n) end;
  def th: if .backend == "tree" then "\(.threads)" else "-" end;
  def runs: if .type == "median" then .runs else 1 end;'

echo
echo "Medians; results in $out"
echo
echo "| workload | size | backend | threads | runs | intervals | build s | M intervals/s | drive s | close s | user + sys s | build peak RSS MiB | file MB | B/interval | names MB | store-only build s | state / store |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
jq -rs "$defs $pick"' |
  "| \(.workload) | \(.size) | \(.backend) | \(th) | \(runs) | \(.intervals) | \(.build_s | r(3)) | \(.intervals_per_s / 1e6 | r(2)) | \(.build_drive_s | r(3)) | \(.build_close_s | r(3)) | \((.build_user_s + .build_sys_s) | r(2)) | \(.build_maxrss_bytes / 1048576 | r(1)) | \(.file_bytes // null | if . == null then "-" else . / 1e6 | r(2) end) | \(.bytes_per_interval | r(2)) | \(.attrs_section_bytes // null | if . == null then "-" else . / 1e6 | r(2) end) | \(.store_build_s | r(3)) | \(.state_vs_store | r(2)) |"' "$out"

echo
echo "| workload | size | backend | threads | open ms | open + first look-up ms (warm / cold) | single by quark mean / p50 / p99 µs | by name mean / p99 µs | look-up p50 µs | full mean / p99 ms | range mean / p99 µs (intervals) | query peak RSS MiB | mismatches |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
jq -rs "$defs $pick"' | select(.backend != "null") |
  "| \(.workload) | \(.size) | \(.backend) | \(th) | \(.open_ms | r(3)) | \(.open_lookup_ms | r(2)) / \(.cold_open_lookup_ms | r(2)) | \(.single_mean_us | r(2)) / \(.single_p50_us | r(2)) / \(.single_p99_us | r(2)) | \(.name_mean_us | r(2)) / \(.name_p99_us | r(2)) | \(.lookup_p50_us | r(2)) | \(.full_mean_ms | r(2)) / \(.full_p99_ms | r(2)) | \(.range_mean_us | r(1)) / \(.range_p99_us | r(1)) (\(.range_items | r(1))) | \((.query_maxrss_bytes // .query_vmhwm_bytes) / 1048576 | r(1)) | \(.mismatches) |"' "$out"

echo
echo "Targets (tree backend):"
echo
echo "| workload | size | threads | build s (target) | build peak RSS MiB (target) | open + first look-up ms (target) |"
echo "|---|---|---|---|---|---|"
jq -rs "$defs $pick"' | select(.backend == "tree") |
  select((.workload == "staircase" and .size == 1000000) or (.workload == "churn" and .size == 100000)) |
  if .workload == "staircase" then
    "| staircase | \(.size) | \(.threads) | \(.build_s | r(3)) (<= 1.8) | \(.build_maxrss_bytes / 1048576 | r(1)) (<= 150) | \(.open_lookup_ms | r(1)) (<= 100) |"
  else
    "| churn | \(.size) | \(.threads) | \(.build_s | r(3)) (<= 0.8) | \(.build_maxrss_bytes / 1048576 | r(1)) | \(.open_lookup_ms | r(1)) |"
  end' "$out"

bad=$(jq -s '[.[] | select(.mode == "state" and .type == "run") | .mismatches // 0] | add // 0' "$out")
if [ "$bad" != 0 ]; then
	echo "run-state.sh: $bad wrong answers in $out" >&2
	status=1
fi
exit "$status"
