#!/usr/bin/env python3
"""py-bench.py: the Python package against the C calls it makes, and a
Python provider against babeltrace2's Python bindings (docs/PYTHON.md,
"Performance").

    PYTHONPATH=build/release/python python3 bench/py-bench.py \\
        --staircase STAIR.sht --trace TRACE_DIR [--rounds R] [--json OUT]

2d: on a staircase history (sht gen staircase --attributes 1000000), the
2D query of 1000 attributes (every 1000th quark) over the whole history
at resolution (end - start) / 1920, into numpy arrays
(History.intervals(...).to_numpy()), against the same C call
(sht_state_query_2d, timed inside the extension on the same quarks);
rounds interleaved, medians.  Target: ratio <= 1.5.

provider: over TRACE (many-threads), the time to iterate the trace with
babeltrace2's Python bindings (bt2) doing nothing but counting the event
messages, against sht.build with Python providers: the kernel core of
examples/python/kernel_core.py (232 637 handler calls on many-threads),
and a provider whose handler takes every event and does nothing; and
sht.build with the built-in C kernel analysis for scale.  Builds run on
one thread (threaded=False), like the bt2 loop.  Wall and CPU time,
medians.  Target: kernel core <= bt2.

Prints a table and one JSON object (with the machine, the load average
before and after, the date).
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "python"))

import sht  # noqa: E402


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def machine():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": cpu, "cpus": os.cpu_count(), "python": platform.python_version(),
            "kernel": platform.release()}


def bench_2d(path, rounds):
    h = sht.open(path)
    quarks = list(range(0, h.attribute_count, max(1, h.attribute_count // 1000)))[:1000]
    t1, t2 = h.start, h.end
    r = (t2 - t1) // 1920
    c_ns, py_ns, pd_ns = [], [], []
    rows = 0
    for _ in range(rounds):
        c_ns.append(h._c_query_2d_ns(quarks, t1, t2, r, 1)[0])
        t0 = time.perf_counter_ns()
        a = h.intervals(quarks, t1, t2, resolution=r).to_numpy()
        py_ns.append(time.perf_counter_ns() - t0)
        rows = len(a["start"])
        t0 = time.perf_counter_ns()
        h.intervals(quarks, t1, t2, resolution=r).to_pandas()
        pd_ns.append(time.perf_counter_ns() - t0)
    c, p, d = (statistics.median(x) for x in (c_ns, py_ns, pd_ns))
    return {"history": path, "attributes": h.attribute_count, "selected": len(quarks),
            "resolution_ns": r, "rows": rows, "c_ms": c / 1e6, "numpy_ms": p / 1e6,
            "pandas_ms": d / 1e6, "ratio_numpy": p / c, "ratio_pandas": d / c}


class Every(sht.Provider):
    """Takes every event and does nothing."""
    id = "bench-every-event"

    def handle(self, event, state):
        pass


def bt2_iterate(trace):
    import bt2
    n = 0
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._EventMessageConst:
            n += 1
    return n


def timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return time.perf_counter() - w0, time.process_time() - c0, out


def bench_provider(trace, rounds, scratch):
    from kernel_core import KernelCore
    out = os.path.join(scratch, "py-bench-provider.sht")
    cases = {
        "bt2_iterate": lambda: bt2_iterate(trace),
        "kernel_core_py": lambda: sht.build(trace, analysis=KernelCore(), output=out,
                                            force=True, threaded=False).python_calls,
        "every_event_py": lambda: sht.build(trace, analysis=Every(), output=out,
                                            force=True, threaded=False).python_calls,
        "kernel_c": lambda: sht.build(trace, analysis="kernel", output=out, force=True,
                                      threaded=False).events,
    }
    times = {k: ([], []) for k in cases}
    counts = {}
    for _ in range(rounds):
        for k, fn in cases.items():
            w, c, n = timed(fn)
            times[k][0].append(w)
            times[k][1].append(c)
            counts[k] = n
    os.remove(out)
    res = {"trace": trace}
    for k, (w, c) in times.items():
        res[k + "_wall_s"] = statistics.median(w)
        res[k + "_cpu_s"] = statistics.median(c)
        res[k + "_count"] = counts[k]
    res["ratio_cpu_kernel_core_vs_bt2"] = res["kernel_core_py_cpu_s"] / res["bt2_iterate_cpu_s"]
    res["ratio_wall_kernel_core_vs_bt2"] = res["kernel_core_py_wall_s"] / res["bt2_iterate_wall_s"]
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--staircase", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--scratch", default=".")
    ap.add_argument("--json", help="append the JSON object to this file")
    a = ap.parse_args()
    result = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": machine(),
              "load1_before": load1(), "rounds": a.rounds}
    result["2d"] = bench_2d(a.staircase, a.rounds * 3)
    result["provider"] = bench_provider(a.trace, a.rounds, a.scratch)
    result["load1_after"] = load1()
    d, p = result["2d"], result["provider"]
    print("2D query, %d of %d attributes, resolution %d ns, %d rows: C %.2f ms, "
          "numpy %.2f ms (x%.2f, target <= 1.5), pandas %.2f ms (x%.2f)" % (
              d["selected"], d["attributes"], d["resolution_ns"], d["rows"], d["c_ms"],
              d["numpy_ms"], d["ratio_numpy"], d["pandas_ms"], d["ratio_pandas"]))
    print("%-16s %10s %10s %10s" % ("many-threads", "wall s", "CPU s", "count"))
    for k in ("bt2_iterate", "kernel_core_py", "every_event_py", "kernel_c"):
        print("%-16s %10.3f %10.3f %10d" % (k, p[k + "_wall_s"], p[k + "_cpu_s"], p[k + "_count"]))
    print("kernel core in Python / bt2 doing nothing: CPU x%.2f, wall x%.2f (target <= 1)" % (
        p["ratio_cpu_kernel_core_vs_bt2"], p["ratio_wall_kernel_core_vs_bt2"]))
    print("load average %.2f before, %.2f after" % (result["load1_before"], result["load1_after"]))
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps(result) + "\n")
    ok = d["ratio_numpy"] <= 1.5 and p["ratio_cpu_kernel_core_vs_bt2"] <= 1.0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
