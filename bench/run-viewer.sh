#!/usr/bin/env bash
# run-viewer.sh [--runs N] [--scratch DIR] [--build DIR]: the viewer's
# benchmark (bench/viewer-bench.js) in headless Chromium on sht serve.
#
# Makes its traces in DIR (default $TMPDIR/sht-viewer-bench; ~2.5 GiB,
# kept for the next run): the 2 GiB synthetic kernel trace (sht gen
# kernel --size 2g), one of 30 000 threads (--threads 30000), and a
# 256 MiB one whose analysis runs while the events table is scrolled (its
# cached histories are removed before each run).  Starts sht serve on a
# free port with its cache in DIR/cache, opens the experiments (the first
# run builds the big histories: minutes), runs the benchmark and stops the
# server.  Prints one JSON line per case and a summary (medians); the
# machine's load is printed before and after.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SHT_BUILD_DIR:-$top/build/release}
scratch=${TMPDIR:-/tmp}/sht-viewer-bench
runs=5
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--scratch) scratch=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	*) echo "usage: $0 [--runs N] [--scratch DIR] [--build DIR]" >&2; exit 2 ;;
	esac
done
sht=$build/sht
[ -x "$sht" ] || { echo "run-viewer.sh: no $sht (scripts/build.sh release)" >&2; exit 1; }
bash "$top/scripts/npm-ci.sh" "$build/node-viewer" "$top/tests/viewer" >&2
export NODE_PATH=$build/node-viewer/node_modules
mkdir -p "$scratch"
gen() {
	[ -d "$scratch/$1" ] || "$sht" gen kernel "${@:2}" -o "$scratch/$1" --no-progress
}
gen k2g --size 2g
gen t30k --threads 30000
gen k256 --size 256m --seed 2
rm -rf "$scratch"/cache/k256-*
rm -f "$scratch/port"
"$sht" serve --port 0 --port-file "$scratch/port" --cache "$scratch/cache" \
	--root "$scratch" --quiet >"$scratch/server.out" 2>"$scratch/server.log" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$scratch/port" ] && break; sleep 0.1; done
url=http://127.0.0.1:$(cat "$scratch/port")
# open NAME: the experiment of the trace DIR/NAME; its UUID on stdout.
open_exp() {
	python3 - "$url" "$scratch/$1" "$1" "${2:-wait}" <<'PY'
import json, sys, time, urllib.request
url, path, name, wait = sys.argv[1:]
def call(method, p, params=None):
    body = None if params is None else json.dumps({"parameters": params}).encode()
    req = urllib.request.Request(url + "/tsp/api" + p, data=body, method=method,
                                 headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req))
t = call("POST", "/traces", {"uri": path, "name": name})
e = call("POST", "/experiments", {"name": name, "traces": [t["UUID"]]})
while wait == "wait" and call("GET", "/experiments/" + e["UUID"])["indexingStatus"] == "RUNNING":
    time.sleep(1)
print(e["UUID"])
PY
}
echo "run-viewer.sh: analysing the traces (once; minutes the first time)" >&2
big=$(open_exp k2g)
threads=$(open_exp t30k)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
# The last case scrolls the events of a trace whose analysis starts now:
# the others run before it, with no analysis running.
node "$top/bench/viewer-bench.js" "$url" "$big" "$threads" --runs "$runs"
running=$(open_exp k256 nowait)
node "$top/bench/viewer-bench.js" "$url" - - "$running"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
