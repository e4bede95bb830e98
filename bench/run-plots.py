#!/usr/bin/env python3
"""run-plots.py OUT: OUT/*.png with gnuplot from OUT/medians.json
(written by bench/run-report.py).  Plots of suites that did not run are
left out.  Trace Compass's figures (../shared/BENCHMARKS.md, same kind of
machine) are drawn beside the scalability curves as ranges.
"""
import json
import os
import subprocess
import sys
import tempfile

# Trace Compass state system, staircase A: (build s lo, hi), file bytes,
# single mean µs (lo, hi), full mean ms (lo, hi).
TC = {10000: ((0.5, 0.7), 3908632, (20, 140), (0.2, 1.6)),
      100000: ((2.1, 3.6), 39803960, (100, 300), (5, 7)),
      1000000: ((9, 11), 398543128, (120, 340), (39, 60))}

TERM = "set terminal pngcairo size 640,400 font ',9' noenhanced\n"


def dat(tmp, name, rows):
    p = os.path.join(tmp, name)
    with open(p, "w") as f:
        for r in rows:
            f.write(" ".join(str(x) for x in r) + "\n")
    return p


def gp(script, tmp):
    p = os.path.join(tmp, "plot.gp")
    with open(p, "w") as f:
        f.write(script)
    r = subprocess.run(["gnuplot", p], capture_output=True, text=True)
    if r.returncode:
        sys.stderr.write(r.stderr)
    return r.returncode


def of(M, suite, prefix):
    return [m for m in M if m["suite"] == suite and m["case"].startswith(prefix)]


def plot_scale(M, out, tmp):
    st = sorted(of(M, "scale", "staircase-"), key=lambda m: m["size"])
    ss = sorted(of(M, "scale", "state-"), key=lambda m: m["size"])
    if not st:
        return 0
    d1 = dat(tmp, "store.dat", [(m["size"], m["build_s"], m["file_bytes"],
                                 m["single_mean_us"], m["single_p99_us"],
                                 m["full_mean_ms"]) for m in st])
    d2 = dat(tmp, "state.dat", [(m["size"], m["build_s"], m["file_bytes"],
                                 m["single_mean_us"], m["single_p99_us"],
                                 m["full_mean_ms"]) for m in ss] or [(1, 0, 0, 0, 0, 0)])
    tc = dat(tmp, "tc.dat", [(a, sum(b) / 2, b[0], b[1], f, sum(s) / 2, s[0], s[1],
                              sum(q) / 2, q[0], q[1]) for a, (b, f, s, q) in TC.items()])
    common = (TERM + "set logscale xy\nset grid\nset key top left\n"
              "set xlabel 'attributes A (staircase, 21 A intervals)'\n"
              "set format x '%.0f'\nset xrange [500:2000000]\n")
    figs = [("scale-build.png", "build time (s)", "2", "2:3:4",
             "build: first interval to closed file"),
            ("scale-size.png", "file bytes", "3", "5", "history file size"),
            ("scale-single.png", "single query µs", "4", "6:7:8",
             "single query, warm, mean"),
            ("scale-full.png", "full query ms", "6", "9:10:11",
             "full query, warm, mean")]
    rc = 0
    for png, ylab, col, tccol, title in figs:
        s = common + (f"set output '{os.path.join(out, png)}'\n"
                      f"set ylabel '{ylab}'\nset title '{title}'\n")
        tcplot = (f"'{tc}' using 1:{tccol} with yerrorbars pt 6 lc rgb '#cc3311' "
                  "title 'Trace Compass (range)'" if ":" in tccol else
                  f"'{tc}' using 1:{tccol} with points pt 6 ps 1.5 lc rgb '#cc3311' "
                  "title 'Trace Compass'")
        s += (f"plot '{d1}' using 1:{col} with linespoints pt 7 lc rgb '#0077bb' "
              "title 'sht store (eSHT)', "
              f"'{d2}' using 1:{col} with linespoints pt 5 lc rgb '#009988' "
              "title 'sht state system', " + tcplot)
        if png == "scale-single.png":
            s += (f", '{d1}' using 1:5 with linespoints pt 4 dt 2 lc rgb '#0077bb' "
                  "title 'sht store p99'")
        rc |= gp(s + "\n", tmp)
    return rc


def plot_sweep(M, out, tmp):
    rc = 0
    for prefix, field, png, xl in [("block-", "block_size", "sweep-block.png",
                                    "block size (bytes)"),
                                   ("children-", "max_children", "sweep-children.png",
                                    "maximum children")]:
        ms = sorted((m for m in of(M, "sweep", prefix) if not m["sub"]),
                    key=lambda m: m[field])
        if not ms:
            continue
        tr = sorted((m for m in of(M, "sweep", "trace-" + prefix)
                     if m["sub"] == "esht"), key=lambda m: m[field])
        d = dat(tmp, "sw.dat", [(m[field], m["build_s"], m["file_bytes"] / 1e6,
                                 m["single_mean_us"], m["full_mean_ms"], m["depth"])
                                for m in ms])
        t = dat(tmp, "swt.dat", [(m[field], m["build_s"], m["file_bytes"] / 1e6,
                                  m["single_mean_us"], m["full_mean_ms"], m["depth"])
                                 for m in tr] or [(ms[0][field], "NaN", "NaN", "NaN",
                                                   "NaN", "NaN")])
        tname = tr[0]["params"]["trace"] if tr else "trace"
        s = (TERM.replace("640,400", "760,560") +
             f"set output '{os.path.join(out, png)}'\n"
             "set multiplot layout 2,2\nset grid\n"
             f"set xlabel '{xl}'\nset key top left\n")
        if field == "block_size":
            s += ("set logscale x 2\nset xtics ('4K' 4096, '16K' 16384, "
                  "'64K' 65536, '256K' 262144, '1M' 1048576, '4M' 4194304)\n")
        for col, yl in [(2, "build s"), (3, "file MB"), (4, "single query µs"),
                        (5, "full query ms")]:
            s += (f"set ylabel '{yl}'\nplot '{d}' using 1:{col} with linespoints "
                  "pt 7 lc rgb '#0077bb' title 'staircase', "
                  f"'{t}' using 1:{col} with linespoints pt 5 lc rgb '#cc3311' "
                  f"title '{tname} (eSHT)'\n")
        rc |= gp(s + "unset multiplot\n", tmp)
    return rc


def plot_esht(M, out, tmp):
    ms = of(M, "esht", "")
    if not ms:
        return 0
    rows = {}
    for m in ms:
        p = m["params"]
        name = p.get("trace") or f"{p['workload']}-{p['size']}"
        var = m["sub"] or p["variant"]
        rows.setdefault(name, {})[var] = m
    data = [(n.replace("staircase", "stair"), r["sht"]["depth"], r["esht"]["depth"],
             r["sht"]["file_bytes"] / 1e6, r["esht"]["file_bytes"] / 1e6)
            for n, r in rows.items() if "sht" in r and "esht" in r]
    if not data:
        return 0
    d = dat(tmp, "esht.dat", data)
    s = (TERM.replace("640,400", "860,380") +
         f"set output '{os.path.join(out, 'esht.png')}'\n"
         "set multiplot layout 1,2\nset style data histograms\n"
         "set style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
         "set xtics rotate by -30\nset grid ytics\n"
         "set key top left\nset yrange [0:*]\n"
         "set ylabel 'depth (levels)'\n"
         f"plot '{d}' using 2:xtic(1) title 'SHT' lc rgb '#cc3311', "
         "'' using 3 title 'eSHT' lc rgb '#0077bb'\n"
         "set logscale y\nset yrange [*:*]\nset ylabel 'file MB'\n"
         f"plot '{d}' using 4:xtic(1) title 'SHT' lc rgb '#cc3311', "
         "'' using 5 title 'eSHT' lc rgb '#0077bb'\nunset multiplot\n")
    return gp(s, tmp)


def plot_partial(M, out, tmp):
    ms = [m for m in of(M, "partial", "") if m["sub"] != "full"]
    if not ms:
        return 0
    s = (TERM + f"set output '{os.path.join(out, 'partial.png')}'\n"
         "set logscale xy\nset grid\nset key top left\n"
         "set xlabel 'events per checkpoint E'\n"
         "set ylabel 'full history / partial history'\nplot ")
    plots = []
    for i, case in enumerate(sorted({m["case"] for m in ms})):
        rows = sorted((m["every"], m["ratio"], m["interval_ratio"])
                      for m in ms if m["case"] == case)
        d = dat(tmp, f"p{i}.dat", rows)
        plots.append(f"'{d}' using 1:3 with linespoints pt 7 title '{case}: intervals'")
        plots.append(f"'{d}' using 1:2 with linespoints pt 4 dt 2 "
                     f"title '{case}: file bytes'")
    return gp(s + ", ".join(plots) + "\n", tmp)


def plot_cold(M, out, tmp):
    ms = sorted(of(M, "cold", ""), key=lambda m: m["case"])
    if not ms:
        return 0
    d = dat(tmp, "cold.dat", [(m["case"], m["single_mean_us"], m["cold_single_mean_us"],
                               m["single_p99_us"], m["cold_single_p99_us"])
                              for m in ms])
    s = (TERM + f"set output '{os.path.join(out, 'cold.png')}'\n"
         "set style data histograms\nset style histogram clustered gap 1\n"
         "set style fill solid 0.8 border -1\nset logscale y\nset grid ytics\n"
         "set ylabel 'single query µs'\nset key top left\n"
         f"plot '{d}' using 2:xtic(1) title 'warm mean' lc rgb '#0077bb', "
         "'' using 3 title 'cold mean' lc rgb '#cc3311', "
         "'' using 4 title 'warm p99' lc rgb '#88ccee', "
         "'' using 5 title 'cold p99' lc rgb '#ee9988'\n")
    return gp(s, tmp)


def main():
    out = sys.argv[1]
    with open(os.path.join(out, "medians.json")) as f:
        M = json.load(f)
    rc = 0
    with tempfile.TemporaryDirectory() as tmp:
        for fn in (plot_esht, plot_scale, plot_sweep, plot_partial, plot_cold):
            rc |= fn(M, out, tmp)
    return 1 if rc else 0


if __name__ == "__main__":
    sys.exit(main())
