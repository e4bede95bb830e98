#!/usr/bin/env python3
"""run-bigtrace-report.py: the markdown tables of bench/run-bigtrace.sh
from its JSON lines (medians), with the machine and the load."""
import json
import os
import statistics
import subprocess
import sys


def machine():
    def sh(cmd):
        try:
            return subprocess.run(cmd, shell=True, capture_output=True,
                                  text=True).stdout.strip()
        except OSError:
            return "?"
    model = sh("lscpu | sed -n 's/^Model name: *//p' | head -1")
    mem = sh("free -g | awk '/^Mem:/ {print $2}'")
    return f"{model}, {os.cpu_count()} CPUs online, {mem} GiB"


def load(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    med = {}
    # bigtrace-bench prints its own medians; `timed` runs are medianed here
    timed = {}
    for r in rows:
        if r["run"] == "seek":
            continue
        key = (r["label"], r["mode"], r.get("reader", ""), r.get("jobs", -1))
        if r["run"] == "median":
            med[key] = r
        elif "reader" not in r:
            timed.setdefault(key, []).append(r)
    for key, rs in timed.items():
        m = dict(rs[0])
        for f in ("wall_s", "cpu_s", "rss_mib"):
            m[f] = statistics.median(x[f] for x in rs)
        med[key] = m
    return med


def split(r):
    if "cpu_main_s" not in r:
        return ""
    return "{:.1f} / {:.1f} / {:.1f} / {:.1f}".format(
        r["cpu_main_s"], r["cpu_decode_s"], r["cpu_place_s"], r["cpu_write_s"])


def per_trace(med, label):
    out = [f"### {label}", "",
           "| run | wall s | CPU s | peak RSS MiB | events/s | CPU main / decode / place / write s |",
           "|---|---:|---:|---:|---:|---|"]
    names = [("bt2-dummy", "", -1, "babeltrace2 -c sink.utils.dummy"),
             ("decode", "muxer", 0, "decode, babeltrace2 graph + muxer (previous path)"),
             ("decode", "streams", 1, "decode, stream reader, 1 thread"),
             ("decode", "streams", 2, "decode, stream reader, 2 threads"),
             ("build", "muxer", 0, "build, babeltrace2 graph + muxer (previous path)"),
             ("build", "streams", 1, "build, 1 decoding thread"),
             ("build", "streams", 2, "build, 2 decoding threads"),
             ("sht-build-jobs1", "", -1, "`sht build --jobs 1`"),
             ("sht-build-jobs2", "", -1, "`sht build --jobs 2`"),
             ("sht-build-baseline", "", -1, "`sht build`, baseline binary")]
    for mode, reader, jobs, title in names:
        r = med.get((label, mode, reader, jobs))
        if not r:
            continue
        eps = r.get("events_per_s")
        out.append("| {} | {:.2f} | {:.2f} | {:.1f} | {} | {} |".format(
            title, r["wall_s"], r["cpu_s"], r["rss_mib"],
            f"{eps / 1e6:.2f} M" if eps else "", split(r)))
    base = med.get((label, "build", "muxer", 0))
    for j in (1, 2):
        b = med.get((label, "build", "streams", j))
        d = med.get((label, "decode", "streams", j))
        if base and b:
            out.append("")
            out.append(f"- {j} decoding thread(s): build wall {b['wall_s']:.2f} s = "
                       f"{b['wall_s'] / base['wall_s']:.2f} x the previous path's "
                       f"({base['wall_s']:.2f} s)" +
                       (f"; {b['wall_s'] / d['wall_s']:.2f} x the decoding alone on "
                        f"{j} thread(s) ({d['wall_s']:.2f} s)" if d else ""))
    out.append("")
    return out


def scaling(med, cpus):
    label = f"scale-{cpus}-cpus"
    if not any(k[0] == label for k in med):
        return []
    out = [f"### Scaling, {cpus} CPUs' streams", "",
           "| threads | decode wall s | build wall s | build CPU s | main / decode / place / write s | predicted build wall: enough cores / 2 cores |",
           "|---:|---:|---:|---:|---|---:|"]
    for j in (1, 2, 4, 8, 16):
        d = med.get((label, "decode", "streams", j))
        b = med.get((label, "build", "streams", j))
        if not b:
            continue
        pred = max(b["cpu_main_s"], b["cpu_decode_s"] / j, b["cpu_place_s"],
                   b["cpu_write_s"])
        out.append("| {} | {:.2f} | {:.2f} | {:.2f} | {} | {:.2f} / {:.2f} |".format(
            j, d["wall_s"] if d else float("nan"), b["wall_s"], b["cpu_s"],
            split(b), pred, max(pred, b["cpu_s"] / 2)))
    out += ["", "Predicted: the longest of the caller's thread (merge, analysis,",
            "state system), one decoding thread's share, the placer and the",
            "writer, on a machine with a core for each; on 2 cores, not less than",
            "the total CPU time / 2.", ""]
    return out


def seeks(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    rows = [r for r in rows if r.get("run") == "seek"]
    if not rows:
        return []
    out = ["### Seeks: a partial history's replaying queries, CTF against VSTF", "",
           f"Partial history of the synthetic trace, a checkpoint every "
           f"{rows[0]['partial']} events; full queries at random times "
           f"({sum(1 for r in rows if r.get('trace') == 'ctf' and r['jobs'] == rows[0]['jobs'])} runs of "
           f"{rows[0].get('queries', '?')} queries), each answered from the CTF "
           "trace (packet-index seeks) and from its VSTF copy.  Medians over the runs "
           "of each run's median.", "",
           "| decoding threads | CTF open ms | CTF query ms (median / p90) | VSTF query ms (median / p90) | CTF - VSTF ms | CPU ms CTF / VSTF | CTF - VSTF CPU ms | different answers |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for j in sorted({r["jobs"] for r in rows}):
        ctf = [r for r in rows if r["jobs"] == j and r.get("trace") == "ctf"]
        vst = [r for r in rows if r["jobs"] == j and r.get("trace") == "vstf"]
        dif = [r for r in rows if r["jobs"] == j and "ctf_minus_vstf_median_ms" in r]
        med = statistics.median
        def cpu(rs, f):
            v = [r[f] for r in rs if f in r]
            return med(v) if v else float("nan")
        out.append("| {} | {:.1f} | {:.1f} / {:.1f} | {:.1f} / {:.1f} | {:+.1f} | {:.1f} / {:.1f} | {:+.1f} | {} |".format(
            j, med(r["open_ms"] for r in ctf),
            med(r["median_ms"] for r in ctf), med(r["p90_ms"] for r in ctf),
            med(r["median_ms"] for r in vst), med(r["p90_ms"] for r in vst),
            med(r["ctf_minus_vstf_median_ms"] for r in dif),
            cpu(ctf, "median_cpu_ms"), cpu(vst, "median_cpu_ms"),
            cpu(dif, "ctf_minus_vstf_median_cpu_ms"),
            sum(r["different_answers"] for r in dif)))
    out.append("")
    return out


def main():
    path, before, after, commit = sys.argv[1:5]
    med = load(path)
    labels = sorted({k[0] for k in med if not k[0].startswith("scale-")})
    out = ["# Big traces: decoding threads, `sht build`", "",
           f"Machine: {machine()}.  Commit `{commit}`.  Load average "
           f"(1, 5, 15 min) before: {before}; after: {after}.  Medians.", ""]
    for label in labels:
        out += per_trace(med, label)
    out += seeks(path)
    for cpus in (8, 16):
        out += scaling(med, cpus)
    print("\n".join(out))


main()
