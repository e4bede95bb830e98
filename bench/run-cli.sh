#!/usr/bin/env bash
# run-cli.sh: what the command-line tool's own work costs on a history:
# printing (text and JSON, with value names), the streamed JSON arrays of
# query/tree/history, and the history selections, in CPU time and peak
# memory, median of K runs each.
#
#   bench/run-cli.sh [--sht PATH] [--trace DIR] [--repeat K] [--quick]
#
# The history is built once from TRACE (default: the shared many-threads
# trace if present, else a synthetic 2 000 000-event kernel trace).  Each
# command runs K times (default 7) with its output to /dev/null; the table
# gives the median user + system CPU seconds and the median peak RSS
# (GNU time), plus the output's size.  Compare two builds by running the
# script with --sht of each, one after the other, on a quiet machine
# (uptime is printed).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
sht=$top/build/release/sht
trace=
repeat=7
quick=0
while [ $# -gt 0 ]; do
	case $1 in
	--sht) sht=$2; shift 2 ;;
	--trace) trace=$2; shift 2 ;;
	--repeat) repeat=$2; shift 2 ;;
	--quick) quick=1; repeat=1; shift ;;
	*) echo "usage: $0 [--sht PATH] [--trace DIR] [--repeat K] [--quick]" >&2
	   exit 2 ;;
	esac
done
[ -x "$sht" ] || { echo "run-cli: no sht at $sht (scripts/build.sh release)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "run-cli: needs GNU time (/usr/bin/time)" >&2; exit 1; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/sht-cli-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
if [ -z "$trace" ]; then
	shared=${SHT_SHARED:-$top/../shared}
	if [ -d "$shared/traces/many-threads" ] && [ "$quick" -eq 0 ]; then
		trace=$shared/traces/many-threads
	else
		trace=$dir/trace
		"$sht" gen kernel -o "$trace" --no-progress \
			--events "$([ "$quick" -eq 1 ] && echo 50000 || echo 2000000)" >/dev/null
	fi
fi
f=$dir/h.sht
"$sht" build "$trace" -o "$f" --no-progress >/dev/null

echo "# sht CLI costs: $(uname -m), $(nproc) CPUs, $(uptime | sed 's/.*load/load/')"
echo "# $sht on $trace ($($sht describe "$f" --json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["attributes"], "attributes,", d["intervals"], "intervals")'))"
echo
echo "| command | CPU s (median of $repeat) | peak RSS MiB | output MiB |"
echo "|---|---:|---:|---:|"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

measure() {  # measure LABEL ARGS...
	local label=$1 cpu=() rss=() i out
	shift
	for ((i = 0; i < repeat; i++)); do
		out=$( { /usr/bin/time -f '%U %S %M' "$sht" "$@" >"$dir/out"; } 2>&1 | tail -n 1)
		cpu+=("$(awk '{ printf "%.3f", $1 + $2 }' <<<"$out")")
		rss+=("$(awk '{ printf "%.1f", $3 / 1024 }' <<<"$out")")
	done
	printf '| `%s` | %s | %s | %.1f |\n' "$label" \
		"$(printf '%s\n' "${cpu[@]}" | median)" \
		"$(printf '%s\n' "${rss[@]}" | median)" \
		"$(awk '{ print $1 / 1048576 }' <<<"$(stat -c %s "$dir/out")")"
}

mid=$("$sht" describe "$f" --json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print((d["start"] + d["end"]) // 2)')
measure "query --at T (full, text)" query "$f" --at "$mid"
measure "query --at T --json (full)" query "$f" --at "$mid" --json
measure "query --at T --time-format clock" query "$f" --at "$mid" --time-format clock
measure "tree --json" tree "$f" --json
measure "tree --values --json" tree "$f" --values --json
measure "history --pattern 'Threads/*' --json" history "$f" --pattern 'Threads/*' --json
measure "history --pattern 'Threads/*/System_call' --non-null --longest 10" \
	history "$f" --pattern 'Threads/*/System_call' --non-null --longest 10
measure "describe --json" describe "$f" --json
