#!/usr/bin/env bash
# run-kernel-big.sh: the kernel analysis over a GB-scale synthetic kernel
# trace: memory over time, history size against the trace, throughput.
#
#   bench/run-kernel-big.sh [--size S] [--dir DIR] [--out-dir DIR]
#                           [--build BUILD] [--no-vstf] [--no-decode]
#                           [--keep] [--quick]
#
# 1. `sht gen kernel --size S` (default 2g: about 2 GiB of CTF; 8 CPUs,
#    2000 threads, seed 1) into DIR/trace;
# 2. `sht build DIR/trace` (the Linux kernel analysis into a history
#    file), its resident memory (VmRSS) sampled every 0.5 s;
# 3. unless --no-decode, kernel-bench --repeat 1 on the same trace: the
#    CTF source alone (decode), the analysis with the null backend and
#    with the tree backend, interleaved, for the overhead over decoding;
# 4. unless --no-vstf, `sht convert` to VSTF and `sht build` from the VSTF
#    file, RSS sampled the same way.
# Writes bench/results/kernel-big-<date>.jsonl (one JSON object per step),
# kernel-big-<date>-rss.csv (step, seconds, rss_kib), a markdown summary
# kernel-big-<date>.md with the machine, and a PNG plot of RSS over time
# when gnuplot is installed (--out-dir to put them elsewhere).  The trace
# and histories are removed at the end unless --keep.  --quick: 64 MiB,
# a smoke run, not figures to quote.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

size=2g
dir=${TMPDIR:-/tmp}/sht-kernel-big
out_dir=$here/results
build=$top/build/release
vstf=1
decode=1
keep=0
cpus=8
threads=2000

while [ $# -gt 0 ]; do
	case "$1" in
	--size) size=$2; shift ;;
	--dir) dir=$2; shift ;;
	--out-dir) out_dir=$2; shift ;;
	--build) build=$2; shift ;;
	--no-vstf) vstf=0 ;;
	--no-decode) decode=0 ;;
	--keep) keep=1 ;;
	--quick) size=64m ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#'; exit 0 ;;
	*) echo "run-kernel-big: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done

sht=$build/sht
[ -x "$sht" ] || { echo "run-kernel-big: no $sht (build release first:" \
	"scripts/build.sh release)" >&2; exit 1; }
stamp=$(date +%Y-%m-%d)
mkdir -p "$out_dir"
jsonl=$out_dir/kernel-big-$stamp.jsonl
csv=$out_dir/kernel-big-$stamp-rss.csv
md=$out_dir/kernel-big-$stamp.md
png=$out_dir/kernel-big-$stamp-rss.png
rm -rf "$dir"
mkdir -p "$dir"
: >"$jsonl"
echo "step,seconds,rss_kib" >"$csv"
cleanup() { [ "$keep" = 1 ] || rm -rf "$dir"; }
trap cleanup EXIT

# run_sampled STEP CMD...: run CMD (its stdout into $dir/STEP.out),
# sampling its VmRSS every 0.5 s into the CSV; sets peak_kib and secs.
run_sampled()
{
	local step=$1 pid t0 now rss
	shift
	t0=$(date +%s.%N)
	"$@" >"$dir/$step.out" &
	pid=$!
	peak_kib=0
	while kill -0 "$pid" 2>/dev/null; do
		rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" \
			2>/dev/null || true)
		if [ -n "$rss" ]; then
			now=$(date +%s.%N)
			echo "$step,$(awk -v a="$now" -v b="$t0" 'BEGIN { printf "%.2f", a - b }'),$rss" >>"$csv"
			[ "$rss" -gt "$peak_kib" ] && peak_kib=$rss
		fi
		sleep 0.5
	done
	wait "$pid"
	secs=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')
}

# step_json STEP: the step's own JSON line with peak RSS and wall time.
step_json()
{
	local step=$1
	python3 - "$dir/$step.out" "$step" "$peak_kib" "$secs" >>"$jsonl" <<'EOF'
import json, sys
path, step, peak, secs = sys.argv[1:5]
lines = [l for l in open(path) if l.strip().startswith("{")]
d = json.loads(lines[-1]) if lines else {}
d.update({"step": step, "peak_rss_kib": int(peak),
          "wall_seconds": float(secs)})
print(json.dumps(d))
EOF
}

echo "== generate ($size)"
run_sampled gen "$sht" gen kernel -o "$dir/trace" --size "$size" \
	--cpus "$cpus" --threads "$threads" --json --no-progress
step_json gen
trace_bytes=$(du -sb "$dir/trace" | cut -f1)

echo "== build from CTF"
run_sampled build "$sht" build "$dir/trace" -o "$dir/trace.sht" --json \
	--no-progress
step_json build

if [ "$decode" = 1 ] && [ -x "$build/kernel-bench" ]; then
	echo "== decode / null / tree (kernel-bench --repeat 1)"
	"$build/kernel-bench" "$dir/trace" --repeat 1 --dir "$dir" |
		grep '^{' | python3 -c '
import json, sys
for l in sys.stdin:
    d = json.loads(l); d["step"] = "kernel-bench-" + str(d.get("mode", d.get("run", "")))
    print(json.dumps(d))' >>"$jsonl"
fi

if [ "$vstf" = 1 ]; then
	echo "== convert to VSTF, build from VSTF"
	run_sampled convert "$sht" convert "$dir/trace" -o "$dir/trace.vstf" \
		--json
	step_json convert
	run_sampled build-vstf "$sht" build "$dir/trace.vstf" \
		-o "$dir/trace-vstf.sht" --json --no-progress
	step_json build-vstf
	cmp -s "$dir/trace.sht" "$dir/trace-vstf.sht" &&
		same=yes || same=no
	echo "{\"step\": \"compare\", \"identical_histories\": \"$same\"}" \
		>>"$jsonl"
fi

python3 - "$jsonl" "$md" "$trace_bytes" "$size" <<'EOF'
import json, os, platform, sys
jsonl, md, trace_bytes, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
steps = {}
for l in open(jsonl):
    d = json.loads(l); steps[d["step"]] = d
def mem():
    for l in open("/proc/meminfo"):
        if l.startswith("MemTotal"): return int(l.split()[1]) // 1024
cpu = "?"
for l in open("/proc/cpuinfo"):
    if l.startswith("model name"): cpu = l.split(":", 1)[1].strip(); break
out = [f"# Kernel analysis on a {size} synthetic trace", "",
       f"Machine: {os.cpu_count()} CPUs ({cpu}), {mem()} MiB RAM, "
       f"{platform.system()} {platform.release()}; one run.", ""]
g, b = steps.get("gen", {}), steps.get("build", {})
out += ["| step | events | wall s | events/s | peak RSS MiB | output bytes |",
        "|---|---:|---:|---:|---:|---:|"]
def row(name, d, ev, by):
    if not d: return
    w = d["wall_seconds"]
    out.append(f"| {name} | {ev} | {w:.1f} | {ev / w if w else 0:,.0f} | "
               f"{d['peak_rss_kib'] / 1024:.1f} | {by} |")
row("generate (CTF)", g, g.get("events", 0), trace_bytes)
row("build from CTF", b, b.get("events", 0), b.get("file_bytes", 0))
c, bv = steps.get("convert", {}), steps.get("build-vstf", {})
row("convert to VSTF", c, c.get("events", 0), c.get("bytes", 0))
row("build from VSTF", bv, bv.get("events", 0), bv.get("file_bytes", 0))
out += ["", f"- trace: {trace_bytes:,} bytes of CTF; history: "
        f"{b.get('file_bytes', 0):,} bytes = "
        f"{b.get('file_bytes', 0) / trace_bytes:.3f} of the trace; "
        f"{b.get('intervals', 0):,} intervals "
        f"({b.get('file_bytes', 0) / max(1, b.get('intervals', 1)):.2f} B/interval), "
        f"{b.get('attributes', 0):,} attributes, depth {b.get('depth', 0)}"]
if "compare" in steps:
    out.append(f"- histories from CTF and from VSTF byte-identical: "
               f"{steps['compare']['identical_histories']}")
for k, d in steps.items():
    if k.startswith("kernel-bench"):
        out.append(f"- {k}: " + ", ".join(f"{x}={d[x]}" for x in d if x != "step"))
open(md, "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF

if command -v gnuplot >/dev/null; then
	gnuplot <<EOF || true
set terminal pngcairo size 900,500 noenhanced
set output "$png"
set datafile separator ","
set key outside below horizontal
set xlabel "seconds since the step started"
set ylabel "resident memory (MiB)"
set title "sht: RSS over time, $size synthetic kernel trace"
plot "< grep '^build,' $csv" using 2:(\$3/1024) with lines lw 2 title "sht build (CTF)", \
     "< grep '^build-vstf,' $csv" using 2:(\$3/1024) with lines lw 2 title "sht build (VSTF)", \
     "< grep '^gen,' $csv" using 2:(\$3/1024) with lines title "sht gen kernel"
EOF
fi
echo "results: $jsonl $csv $md"
