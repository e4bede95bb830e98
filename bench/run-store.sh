#!/usr/bin/env bash
# run-store.sh: the store figures of docs/PERFORMANCE.md, on this machine.
#
#   bench/run-store.sh [--quick] [--repeat K] [--dir DIR] [--out FILE]
#                      [--bench PATH] [--no-wait]
#
# Runs sht-limits and sht-bench (built by CMake as <build>/sht-limits and
# <build>/sht-bench) over:
#   limits                    the machine's anchors (disk, memory), with
#                             a 1 GiB and a 128 MiB file
#   staircase A = 10 000, 100 000, 1 000 000   eSHT, 64 KiB blocks
#   churn N = 10 000, 100 000                  SHT and eSHT side by side
#   staircase A = 100 000                      classic SHT (its pathology)
# each --repeat K times (default 5), writes every JSON line to the results
# file (default DIR/store-<date>.jsonl) and prints markdown tables
# of the medians.  --quick: small sizes only (A <= 100 000, N = 10 000),
# one repeat, fewer cold queries; a smoke run, not figures to quote.
#
# The machine has few cores: before each run the script waits while the
# 1-minute load is above 1.5 (another build running), unless --no-wait.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

repeat=5
quick=0
wait_load=1
dir=${TMPDIR:-/tmp}/sht-bench
out=
bench=${SHT_BENCH:-}

while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1; repeat=1 ;;
	--repeat) repeat=$2; shift ;;
	--dir) dir=$2; shift ;;
	--out) out=$2; shift ;;
	--bench) bench=$2; shift ;;
	--no-wait) wait_load=0 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#'; exit 0 ;;
	*) echo "run-store.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

if [ -z "$bench" ]; then
	for b in "$top/build/release/sht-bench" "$top/build/sht-bench" \
		 "$top/build/release/bench/sht-bench" "$top/build/bench/sht-bench" \
		 /tmp/bench-build/sht-bench /tmp/bench-build/bench/sht-bench; do
		if [ -x "$b" ]; then bench=$b; break; fi
	done
fi
if [ -z "$bench" ] || [ ! -x "$bench" ]; then
	echo "run-store.sh: sht-bench not found; build it (cmake -DCMAKE_BUILD_TYPE=Release) or pass --bench PATH" >&2
	exit 2
fi
limits=$(dirname "$bench")/sht-limits
if [ ! -x "$limits" ]; then
	echo "run-store.sh: no sht-limits beside $bench" >&2
	exit 2
fi
command -v jq >/dev/null || { echo "run-store.sh: needs jq for the tables" >&2; exit 2; }

mkdir -p "$dir"
if [ -z "$out" ]; then
	out=$dir/store-$(date +%Y%m%d-%H%M%S).jsonl
fi
: >"$out"

# Space: limits writes 1 GiB; staircase 1M makes a file of a few hundred MB.
avail_kb=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
if [ "$avail_kb" -lt $((3 * 1024 * 1024)) ]; then
	echo "run-store.sh: $dir has $((avail_kb / 1024)) MiB free, needs 3 GiB" >&2
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
# run store|limits ARGS...: sht-bench store ARGS, or sht-limits ARGS.
run() {
	local prog=$bench name=sht-bench
	if [ "$1" = limits ]; then
		prog=$limits name=sht-limits
		shift
	fi
	wait_quiet
	echo "# $name $*" >&2
	if ! "$prog" "$@" --repeat "$repeat" --dir "$dir" >>"$out"; then
		echo "run-store.sh: FAILED: $name $*" >&2
		status=1
	fi
}

{
	echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
	echo "# memory: $(free -h | awk '/^Mem:/ { print $2 }'), disk: $(df -Ph "$dir" | awk 'NR == 2 { print $1 " " $2 }')"
	echo "# bench: $bench, repeat: $repeat, results: $out"
} >&2

if [ "$quick" = 1 ]; then
	run limits --limit-bytes 256Mi
	for a in 10000 100000; do
		run store --workload staircase --size "$a" --cold \
		    --cold-queries 1000 --cold-full-queries 20
	done
	for v in sht esht; do
		run store --workload churn --size 10000 --variant "$v" --cold \
		    --cold-queries 1000 --cold-full-queries 20
	done
else
	# 1 GiB as the brief asks, and a file the size of the largest history
	# (write bandwidth here depends on the size: dirty-page throttling).
	run limits
	run limits --limit-bytes 128Mi
	for a in 10000 100000 1000000; do
		run store --workload staircase --size "$a" --cold \
		    --cold-queries 2000 --cold-full-queries 200
	done
	for n in 10000 100000; do
		for v in sht esht; do
			run store --workload churn --size "$n" --variant "$v" \
			    --cold --cold-queries 2000 --cold-full-queries 200
		done
	done
	# The classic SHT on the staircase: the pathology at its worst (an
	# 800 MB file at A = 100 000; warm queries only).
	run store --workload staircase --size 100000 --variant sht
fi

# ---- tables of the medians ---------------------------------------------------
# shellcheck disable=SC2016  # $rep is jq's, not the shell's
sel='select(.type == (if $rep > 1 then "median" else "run" end))'

echo
echo "Medians of $repeat run(s); results in $out"
echo
echo "| workload | variant | size | intervals | build s | M intervals/s | insert s | finish s | build peak RSS MiB | file MB | B/interval | nodes | depth | fill leaf | fill core |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
jq -r --argjson rep "$repeat" "$sel"' | select(.mode == "store") |
  def r(n): (. * pow(10; n) | round) / pow(10; n);
  "| \(.workload) | \(.variant) | \(.size) | \(.intervals) | \(.build_s | r(3)) | \(.intervals_per_s / 1e6 | r(2)) | \(.build_insert_s | r(3)) | \(.build_finish_s | r(3)) | \(.build_maxrss_bytes / 1048576 | r(1)) | \(.file_bytes / 1e6 | r(2)) | \(.bytes_per_interval | r(2)) | \(.nodes) | \(.depth) | \(.fill_leaf | r(3)) | \(.fill_core | r(3)) |"' "$out"

echo
echo "| workload | variant | size | open ms | single mean / p50 / p99 µs (warm) | visits/query | full mean / p99 ms (warm) | 2D ms (intervals) | single mean / p99 µs (cold) | full mean / p99 ms (cold) | 2D ms (cold) | mismatches |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
jq -r --argjson rep "$repeat" "$sel"' | select(.mode == "store") |
  def r(n): (. * pow(10; n) | round) / pow(10; n);
  "| \(.workload) | \(.variant) | \(.size) | \(.open_ms | r(3)) | \(.single_mean_us | r(2)) / \(.single_p50_us | r(2)) / \(.single_p99_us | r(2)) | \(.single_visits | r(2)) | \(.full_mean_ms | r(3)) / \(.full_p99_ms | r(3)) | \(.q2d_ms | r(2)) (\(.q2d_intervals)) | \(.cold_single_mean_us // null | if . == null then "-" else r(1) end) / \(.cold_single_p99_us // null | if . == null then "-" else r(1) end) | \(.cold_full_mean_ms // null | if . == null then "-" else r(2) end) / \(.cold_full_p99_ms // null | if . == null then "-" else r(2) end) | \(.cold_q2d_ms // null | if . == null then "-" else r(2) end) | \(.mismatches) |"' "$out"

echo
echo "| limits file MiB | seq. write MB/s (no fsync / fsync) | seq. read MB/s (warm / cold) | 64 KiB pread µs (warm / cold) | 4 KiB pread µs (cold) | memory latency ns (32 KiB / 1 MiB / 16 MiB / 256 MiB) | memory read / copy GB/s |"
echo "|---|---|---|---|---|---|---|"
jq -r --argjson rep "$repeat" "$sel"' | select(.mode == "limits") |
  def r(n): (. * pow(10; n) | round) / pow(10; n);
  "| \(.file_bytes / 1048576) | \(.write_nosync_MBps | r(0)) / \(.write_fsync_MBps | r(0)) | \(.read_warm_MBps | r(0)) / \(.read_cold_MBps | r(0)) | \(.pread64k_warm_p50_us | r(1)) / \(.pread64k_cold_p50_us | r(1)) | \(.pread4k_cold_mean_us | r(1)) | \(.mem_latency_ns_32KiB | r(1)) / \(.mem_latency_ns_1MiB | r(1)) / \(.mem_latency_ns_16MiB | r(1)) / \(.mem_latency_ns_256MiB | r(1)) | \(.mem_read_GBps | r(1)) / \(.mem_copy_GBps | r(1)) |"' "$out"

exit "$status"
