#!/usr/bin/env bash
# run-bigtrace.sh: big traces at the speed of the machine (issue 17): the
# CTF stream reader on 1 and 2 decoding threads against babeltrace2 alone
# and against sht's previous path, on many-threads and a 2 GB synthetic
# trace; the scaling with more threads on synthetic traces of 8 and 16
# CPUs' streams, and the CPU-time split that predicts it on more cores.
#
#   bench/run-bigtrace.sh [--size S] [--scale-size S] [--repeat K]
#                         [--dir DIR] [--out-dir DIR] [--build BUILD]
#                         [--baseline SHT] [--partial N] [--queries Q]
#                         [--part all|build|seek|scale] [--keep] [--quick]
#
# Per trace (medians of K runs, default 3, each in its own process):
#   babeltrace2 -c sink.utils.dummy TRACE   babeltrace2's own decoding
#   bigtrace-bench --mode decode            sht's source: --muxer (one
#       babeltrace2 graph and its muxer, the previous path), --jobs 1, 2
#   bigtrace-bench --mode build             what sht build does (kernel
#       analysis, threaded history tree): --muxer, --jobs 1, 2; with the
#       CPU time of each thread (main, decode, place, write)
#   sht build TRACE --jobs 1, 2             the CLI: wall, CPU, peak RSS
#                                           (/usr/bin/time); --baseline
#                                           SHT times another sht build
#                                           (e.g. main's) the same way
# Scaling: synthetic traces of --scale-size (default 256m) with 8 and 16
# CPUs: decode and build with 1, 2, 4, 8 (and 16) threads.
# Seeks: a partial history of the synthetic trace (--partial N, default
# 100000 events between checkpoints) queried by seek-bench on the CTF
# trace (0: on the caller's thread, 1 and 2 decoding threads) and on its VSTF copy (sht convert):
# --queries Q (default 30) full queries at random times, K seeds; the
# same answers on both or the script fails.
# --part runs one of the three (build: the per-trace runs above; default
# all).  Results: OUT-DIR/bigtrace-DATE[-PART].jsonl (every run) and bigtrace-DATE.md
# (tables, the machine, the load before and after).  Traces go to DIR
# (default $TMPDIR/sht-bigtrace, never the repository), removed at the
# end unless --keep; an existing DIR/big of the right size is reused.
# --quick: 64 MiB and 1 run, a smoke test.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
size=2g
scale_size=256m
repeat=3
dir=${TMPDIR:-/tmp}/sht-bigtrace
out_dir=$here/results
build=$top/build/release
baseline=
partial=100000
queries=30
keep=0
part=all
shared=${SHT_SHARED:-$top/../shared}

while [ $# -gt 0 ]; do
	case "$1" in
	--size) size=$2; shift ;;
	--scale-size) scale_size=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	--dir) dir=$2; shift ;;
	--out-dir) out_dir=$2; shift ;;
	--build) build=$2; shift ;;
	--baseline) baseline=$2; shift ;;
	--partial) partial=$2; shift ;;
	--queries) queries=$2; shift ;;
	--part) part=$2; shift ;;
	--keep) keep=1 ;;
	--quick) size=64m; scale_size=32m; repeat=1 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#'; exit 0 ;;
	*) echo "run-bigtrace: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done

sht=$build/sht
bench=$build/bigtrace-bench
seekb=$build/seek-bench
for x in "$sht" "$bench" "$seekb"; do
	[ -x "$x" ] || { echo "run-bigtrace: no $x (scripts/build.sh release)" >&2; exit 1; }
done
stamp=$(date +%Y-%m-%d)
mkdir -p "$out_dir" "$dir"
case $part in
all) suffix= ;;
build|seek|scale) suffix=-$part ;;
*) echo "run-bigtrace: --part all, build, seek or scale, not '$part'" >&2; exit 2 ;;
esac
want() { [ "$part" = all ] || [ "$part" = "$1" ]; }
jsonl=$out_dir/bigtrace-$stamp$suffix.jsonl
md=$out_dir/bigtrace-$stamp$suffix.md
: >"$jsonl"
cleanup() { [ "$keep" = 1 ] || rm -rf "$dir"; }
trap cleanup EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# gen NAME CPUS SIZE: a synthetic kernel trace DIR/NAME (kept if there).
gen()
{
	[ -d "$dir/$1" ] && return 0
	"$sht" gen kernel -o "$dir/$1" --size "$3" --cpus "$2" --threads 2000 \
		--seed 1 >/dev/null
}

# timed LABEL RUN CMD...: wall, CPU and peak RSS of CMD, K times, as JSON.
timed()
{
	local label=$1 what=$2 k w u s m
	shift 2
	for k in $(seq 1 "$repeat"); do
		/usr/bin/time -o "$dir/time.out" -f '%e %U %S %M' "$@" >/dev/null 2>&1
		read -r w u s m <"$dir/time.out"
		printf '{"label":"%s","run":"run","mode":"%s","wall_s":%s,"cpu_s":%.2f,"rss_mib":%.1f}\n' \
			"$label" "$what" "$w" "$(awk "BEGIN { print $u + $s }")" \
			"$(awk "BEGIN { print $m / 1024 }")" >>"$jsonl"
	done
}

# per_trace LABEL TRACE: every measurement of one trace.
per_trace()
{
	local label=$1 trace=$2 j
	echo "run-bigtrace: $label" >&2
	timed "$label" bt2-dummy babeltrace2 "$trace" -c sink.utils.dummy
	for mode in decode build; do
		"$bench" "$trace" --mode $mode --muxer --repeat "$repeat" --dir "$dir" \
			--label "$label" >>"$jsonl"
		for j in 1 2; do
			"$bench" "$trace" --mode $mode --jobs $j --repeat "$repeat" \
				--dir "$dir" --label "$label" >>"$jsonl"
		done
	done
	for j in 1 2; do
		timed "$label" "sht-build-jobs$j" "$sht" build "$trace" -o "$dir/cli.sht" \
			--force --no-progress --no-resume --jobs $j
	done
	if [ -n "$baseline" ]; then
		timed "$label" sht-build-baseline "$baseline" build "$trace" \
			-o "$dir/cli.sht" --force --no-progress
	fi
	rm -f "$dir/cli.sht"
}

# seeks TRACE: a partial history's replaying queries, CTF against VSTF.
seeks()
{
	local trace=$1 j k
	echo "run-bigtrace: seeks" >&2
	"$sht" build "$trace" -o "$dir/partial.sht" --partial "$partial" --force \
		--no-progress --no-resume >/dev/null
	[ -f "$trace.vstf" ] || "$sht" convert "$trace" -o "$trace.vstf" >/dev/null
	for j in 0 1 2; do
		for k in $(seq 1 "$repeat"); do
			"$seekb" "$dir/partial.sht" "$trace" "$trace.vstf" --queries "$queries" \
				--jobs $j --seed $k |
				sed "s/^{/{\"label\":\"seek\",\"run\":\"seek\",\"jobs\":$j,\"seed\":$k,\"partial\":$partial,/" \
				>>"$jsonl"
		done
	done
	rm -f "$dir/partial.sht"
}

if want build && [ -d "$shared/traces/many-threads" ]; then
	per_trace many-threads "$shared/traces/many-threads"
fi
if want build || want seek; then
	gen big 8 "$size"
fi
want build && per_trace "synthetic-$size" "$dir/big"
want seek && seeks "$dir/big"

want scale && for cpus in 8 16; do
	gen "scale$cpus" "$cpus" "$scale_size"
	echo "run-bigtrace: scaling, $cpus CPUs" >&2
	for j in 1 2 4 8 16; do
		[ "$j" -le "$cpus" ] || continue
		for mode in decode build; do
			"$bench" "$dir/scale$cpus" --mode $mode --jobs $j --repeat "$repeat" \
				--dir "$dir" --label "scale-$cpus-cpus" >>"$jsonl"
		done
	done
done

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
python3 "$here/run-bigtrace-report.py" "$jsonl" "$load_before" "$load_after" \
	"$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')" >"$md"
echo "run-bigtrace: $md" >&2
