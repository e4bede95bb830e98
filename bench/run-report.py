#!/usr/bin/env python3
"""run-report.py OUT [--no-plots]: OUT/report.md (and OUT/*.png through
bench/run-plots.py) from OUT/results.jsonl, as bench/run writes it.

Each table cell is the median over the runs of one case (a case: suite,
case name, and for programs that print several lines per run, the variant
or the history); the report can be rebuilt from the JSON lines alone.
"""
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(out):
    recs, metas = [], []
    with open(os.path.join(out, "results.jsonl")) as f:
        for line in f:
            d = json.loads(line)
            (metas if d["suite"] == "meta" else recs).append(d)
    return recs, metas


def sub_key(res):
    """Lines of one run that are different measurements."""
    if res.get("mode") == "trace":
        return res["variant"]
    if res.get("bench") == "partial":
        return "full" if res["history"] == "full" else f"E={res['every']}"
    return ""


def medians(recs):
    """(suite, case, sub) -> {"n": runs, field: median, "params": ...}."""
    groups = {}
    for r in recs:
        k = (r["suite"], r["case"], sub_key(r["result"]))
        groups.setdefault(k, []).append(r)
    out = {}
    for k, rs in groups.items():
        m = {"n": len(rs), "params": rs[0]["params"],
             "load1": statistics.median(r["load1"] for r in rs)}
        for f, v in rs[0]["result"].items():
            vals = [r["result"].get(f) for r in rs]
            if all(isinstance(x, (int, float)) and not isinstance(x, bool)
                   for x in vals):
                m[f] = statistics.median(vals)
            else:
                m[f] = v
        out[k] = m
    return out


def fmt(v, nd=None):
    """Numbers for humans: thin groups of 3 digits, a few significant."""
    if v is None or v == "":
        return ""
    if isinstance(v, str):
        return v
    if nd is None:
        a = abs(v)
        nd = 0 if a >= 100 or float(v).is_integer() else \
            1 if a >= 10 else 2 if a >= 1 else 3
    s = f"{v:,.{nd}f}".replace(",", " ")
    return s


def mib(b):
    return fmt(b / 2**20, 1) + " MiB" if b else ""


def table(head, rows):
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" for _ in head) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(fmt(x) if not isinstance(x, str) else x
                                       for x in r) + " |")
    return "\n".join(lines) + "\n"


def cases(M, suite, prefix=""):
    return [(k, v) for k, v in M.items() if k[0] == suite and k[1].startswith(prefix)]


def sec_esht(M):
    rows = []
    for (s, c, sub), m in cases(M, "esht"):
        p = m["params"]
        name = p.get("trace") or f"{p['workload']} {fmt(p['size'])}"
        var = (sub or p.get("variant", "")).replace("esht", "eSHT").replace("sht", "SHT")
        rows.append([name, var, m["n"], m["intervals"], m["build_s"], m["nodes"],
                     m["file_bytes"], m["bytes_per_interval"],
                     f"{m['fill_leaf']:.3f} / {m['fill_core']:.3f}", m["depth"],
                     f"{fmt(m['single_mean_us'])} / {fmt(m['single_p99_us'])}",
                     m["single_visits"], m["full_mean_ms"]])
    return ("## SHT against eSHT (Table I)\n\n" + table(
        ["workload", "variant", "runs", "intervals", "build s", "nodes", "file bytes",
         "B/interval", "fill leaf / core", "depth", "single mean / p99 µs",
         "visits", "full mean ms"], rows) +
        "\nBuild: staircase and churn feed the store the workload's intervals "
        "(sht-bench store); the traces run the CTF source and the kernel "
        "analysis (trace-bench).\n\n![SHT vs eSHT](esht.png)\n")


def sec_scale(M):
    rows, srows = [], []
    for (s, c, sub), m in cases(M, "scale", "staircase-"):
        rows.append([m["size"], m["n"], m["intervals"], m["build_s"],
                     m["intervals_per_s"] / 1e6, m["file_bytes"],
                     m["bytes_per_interval"], m["depth"], m["nodes"],
                     f"{fmt(m['single_mean_us'])} / {fmt(m['single_p50_us'])} / "
                     f"{fmt(m['single_p99_us'])}", m["single_visits"],
                     f"{fmt(m['full_mean_ms'])} / {fmt(m['full_p99_ms'])}",
                     m["q2d_ms"], mib(m["build_maxrss_bytes"])])
    for (s, c, sub), m in cases(M, "scale", "state-"):
        srows.append([m["size"], m["n"], m["build_s"], m["intervals_per_s"] / 1e6,
                      mib(m["build_maxrss_bytes"]), m["file_bytes"],
                      m["bytes_per_interval"], m["open_lookup_ms"],
                      f"{fmt(m['single_mean_us'])} / {fmt(m['single_p99_us'])}",
                      m["name_mean_us"], m["full_mean_ms"]])
    rows.sort(key=lambda r: r[0])
    srows.sort(key=lambda r: r[0])
    return ("## Scalability, staircase A = 1 000 .. 1 000 000 (Figures 8-11)\n\n"
            "Store (sht-bench store, eSHT, 64 KiB blocks, 50 children):\n\n" +
            table(["A", "runs", "intervals", "build s", "M intervals/s",
                   "file bytes", "B/interval", "depth", "nodes",
                   "single mean / p50 / p99 µs", "visits", "full mean / p99 ms",
                   "2D ms", "build peak RSS"], rows) +
            "\nThrough the state system (sht-bench state, tree backend: "
            "attribute names, transient state):\n\n" +
            table(["A", "runs", "build s", "M intervals/s", "build peak RSS",
                   "file bytes", "B/interval", "open + first look-up ms",
                   "single mean / p99 µs", "by name mean µs", "full mean ms"],
                  srows) +
            "\n![build](scale-build.png) ![size](scale-size.png)\n"
            "![single](scale-single.png) ![full](scale-full.png)\n")


def sweep_rows(M, prefix, field):
    rows = []
    for (s, c, sub), m in cases(M, "sweep", prefix):
        if sub:
            continue
        rows.append([m[field], m["n"], m["nodes"], m["depth"], m["file_bytes"],
                     m["bytes_per_interval"],
                     f"{m['fill_leaf']:.3f} / {m['fill_core']:.3f}", m["build_s"],
                     f"{fmt(m['single_mean_us'])} / {fmt(m['single_p99_us'])}",
                     m["single_visits"], m["full_mean_ms"], m["q2d_ms"]])
    rows.sort(key=lambda r: r[0])
    return rows


def sec_sweep(M):
    head = ["", "runs", "nodes", "depth", "file bytes", "B/interval",
            "fill leaf / core", "build s", "single mean / p99 µs", "visits",
            "full mean ms", "2D ms"]
    trows = []
    for (s, c, sub), m in cases(M, "sweep", "trace-"):
        v = {"esht": "eSHT", "sht": "SHT"}.get(sub, sub)
        trows.append([c[len("trace-"):], m["block_size"], m["max_children"], v,
                      m["n"], m["nodes"],
                      m["depth"], m["file_bytes"],
                      f"{m['fill_leaf']:.3f} / {m['fill_core']:.3f}", m["build_s"],
                      f"{fmt(m['single_mean_us'])} / {fmt(m['single_p99_us'])}",
                      m["single_visits"], m["full_mean_ms"]])
    trows.sort(key=lambda r: (r[0][0], r[1], r[2], r[3]))
    wl = next((m["params"] for k, m in cases(M, "sweep", "block-")), {})
    return ("## Block size and maximum children (thesis 4.3)\n\n"
            f"Staircase A = {fmt(wl.get('size', 0))}, eSHT; block size with 50 "
            "children:\n\n" + table(["block bytes"] + head[1:],
                                    sweep_rows(M, "block-", "block_size")) +
            "\nMaximum children with 64 KiB blocks:\n\n" +
            table(["max children"] + head[1:],
                  sweep_rows(M, "children-", "max_children")) +
            "\nThe kernel analysis over a real trace (trace-bench), both "
            "variants:\n\n" +
            table(["sweep", "block bytes", "max children", "variant", "runs", "nodes",
                   "depth", "file bytes", "fill leaf / core", "build s",
                   "single mean / p99 µs", "visits", "full mean ms"], trows) +
            "\n![block size](sweep-block.png) ![children](sweep-children.png)\n")


def sec_partial(M):
    rows = []
    for (s, c, sub), m in sorted(cases(M, "partial"),
                                 key=lambda kv: (kv[0][1], kv[1].get("every", 0))):
        rows.append([c, sub, m["n"], m["events"], m["file_bytes"], m["ratio"],
                     m["intervals"], m["interval_ratio"], m["build_s"],
                     f"{fmt(m['single_mean_us'])} / {fmt(m['single_p99_us'])}",
                     m["live_mean_us"], m["full_mean_ms"],
                     m["single_events_replayed"]])
    return ("## Partial histories (thesis 4.5)\n\n" + table(
        ["workload", "history", "runs", "events", "file bytes", "full/partial",
         "intervals", "interval ratio", "build s", "single mean / p99 µs",
         "live mean µs", "full mean ms", "events replayed / single"], rows) +
        "\n![partial](partial.png)\n")


def sec_cold(M):
    rows = []
    for (s, c, sub), m in cases(M, "cold"):
        rows.append([c, m["n"], m["file_bytes"],
                     f"{fmt(m['single_mean_us'])} / {fmt(m['single_p50_us'])} / "
                     f"{fmt(m['single_p99_us'])}",
                     f"{fmt(m['cold_single_mean_us'])} / "
                     f"{fmt(m['cold_single_p50_us'])} / {fmt(m['cold_single_p99_us'])}",
                     f"{fmt(m['full_mean_ms'])} / {fmt(m['cold_full_mean_ms'])}",
                     f"{fmt(m['q2d_ms'])} / {fmt(m['cold_q2d_ms'])}",
                     f"{fmt(m['open_ms'])} / {fmt(m['cold_open_ms'])}"])
    return ("## Warm and cold queries\n\nCold: the reader's node cache emptied "
            "and the file's pages dropped (posix_fadvise DONTNEED) before each "
            "batch of 200 queries.\n\n" + table(
                ["workload", "runs", "file bytes", "warm single mean / p50 / p99 µs",
                 "cold single mean / p50 / p99 µs", "full ms warm / cold",
                 "2D ms warm / cold", "open ms warm / cold"], rows) +
            "\n![cold](cold.png)\n")


def sec_sqlite(M):
    rows = []
    for (s, c, sub), m in cases(M, "sqlite"):
        rows.append([m.get("system", c), m.get("workload"), m.get("attrs"), m["n"],
                     m.get("intervals"), m.get("build_s"), m.get("bytes"),
                     m.get("bytes_per_interval"),
                     f"{fmt(m.get('single_mean_us'))} / {fmt(m.get('single_p99_us'))}",
                     m.get("full_ms"), str(m.get("checked", ""))])
    if not rows:
        return "## SQLite\n\nNot run (sht-sqlite-bench not built).\n"
    seen = {(m.get("workload"), m.get("attrs")) for k, m in cases(M, "sqlite")}
    for wl, n in sorted(seen, key=str):
        key = ("scale", f"staircase-{n}", "") if wl == "staircase" else \
            ("esht", f"churn-{n}-esht", "")
        m = M.get(key)
        if m:
            rows.append(["sht (eSHT file)", wl, n, m["n"], m["intervals"],
                         m["build_s"], m["file_bytes"], m["bytes_per_interval"],
                         f"{fmt(m['single_mean_us'])} / {fmt(m['single_p99_us'])}",
                         m["full_mean_ms"], "oracle"])
    rows.sort(key=lambda r: (str(r[1]), r[2] or 0, r[0]))
    return ("## SQLite (sht-sqlite-bench)\n\n" + table(
        ["system", "workload", "attrs", "runs", "intervals", "build s", "bytes",
         "B/interval", "single mean / p99 µs", "full ms", "checked"], rows))


def sec_limits(M):
    out = "## Machine limits\n\n"
    for (s, c, sub), m in cases(M, "limits"):
        keys = [k for k, v in m.items() if isinstance(v, (int, float))
                and k not in ("n", "run", "load1", "type")]
        out += f"`{c}` (median of {m['n']}):\n\n" + table(
            ["measure", "value"], [[k, m[k]] for k in keys]) + "\n"
    return out


def header(metas, recs):
    m = metas[-1] if metas else {}
    mach = m.get("machine", {})
    loads = [r["load1"] for r in recs]
    ran = {r["argv"][0] for r in recs}
    notes = sorted({n for x in metas for n in x.get("notes", [])
                    if not ("not built" in n and
                            n.split(": ", 1)[-1].split(" ")[0] in ran)})
    fails = [f for x in metas for f in x.get("failures", [])]
    s = ("# sht benchmark suite\n\n"
         f"- machine: {mach.get('cpu')}, {mach.get('cores')} cores, "
         f"{mach.get('ram_gib')} GiB, Linux {mach.get('kernel')}, "
         f"scratch on {mach.get('scratch_fs')}; {mach.get('compiler')}\n"
         "- commit " + ", ".join(dict.fromkeys(
             f"{x.get('commit')}{' (tree modified)' if x.get('dirty') else ''}"
             for x in metas)) + ", "
         f"{m.get('date', '')[:16]} UTC, "
         f"{'quick mode, ' if m.get('quick') else ''}runs: {m.get('runs')} "
         f"(big points {m.get('runs_big')}), "
         f"{fmt(sum(x.get('seconds', 0) for x in metas))} s in all\n")
    if loads:
        s += (f"- 1-minute load average at the start of the runs: "
              f"{min(loads):.2f} .. {max(loads):.2f} (median "
              f"{statistics.median(loads):.2f}) on {mach.get('cores')} cores\n")
    s += "- every cell: the median of the runs; times warm unless marked\n"
    for n in notes:
        s += f"- note: {n}\n"
    for f in fails:
        s += f"- **FAILED**: {f}\n"
    return s + "\n"


def main():
    out = sys.argv[1]
    recs, metas = load(out)
    M = medians(recs)
    suites = {r["suite"] for r in recs}
    parts = [header(metas, recs)]
    for name, fn in [("esht", sec_esht), ("scale", sec_scale), ("sweep", sec_sweep),
                     ("partial", sec_partial), ("cold", sec_cold),
                     ("sqlite", sec_sqlite), ("limits", sec_limits)]:
        if name in suites or (name == "sqlite" and any(
                "sqlite" in n for x in metas for n in x.get("notes", []))):
            parts.append(fn(M))
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(parts))
    if "--no-plots" not in sys.argv:
        with open(os.path.join(out, "medians.json"), "w") as f:
            json.dump([{"suite": k[0], "case": k[1], "sub": k[2], **v}
                       for k, v in M.items()], f)
        rc = subprocess.run([sys.executable, os.path.join(HERE, "run-plots.py"),
                             out]).returncode
        if rc:
            return rc
    return 0


if __name__ == "__main__":
    sys.exit(main())
