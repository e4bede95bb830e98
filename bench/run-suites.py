"""run-suites.py: the suites of bench/run (loaded by it, not run alone).

Each suite_X(r) calls r.measure(suite, case, tool, args, runs, params) for
every point; the sizes are the full run's, or small ones with r.a.quick.
"""
import os


def sbench(r, suite, case, sub, params, extra=(), big=False):
    """sht-bench store|state with params (workload, size, variant, ...)."""
    args = [sub, "--workload", params["workload"], "--size", str(params["size"]),
            "--dir", r.a.scratch, "--repeat", "1"]
    for k in ("variant", "block_size", "max_children", "intervals"):
        if k in params:
            args += ["--" + k.replace("_", "-"), str(params[k])]
    if r.a.quick:
        args += ["--queries", "1000", "--full-queries", "20"]
    args += list(extra)
    runs = r.a.runs_big if big else r.a.runs
    return r.measure(suite, case, "sht-bench", args, runs, dict(params, tool=sub))


def tbench(r, suite, case, trace, extra=(), big=False):
    """trace-bench over a real trace: eSHT and SHT, answers compared."""
    path = os.path.join(r.traces, trace)
    if not os.path.isdir(path):
        r.note(f"{suite}: trace {trace} not found at {path}: {case} skipped")
        return []
    args = [path, "--dir", r.a.scratch] + list(extra)
    if r.a.quick:
        args += ["--queries", "1000", "--full-queries", "20", "--check"]
    runs = r.a.runs_big if big else r.a.runs
    return r.measure(suite, case, "trace-bench", args, runs,
                     {"workload": "trace", "trace": trace})


def suite_esht(r):
    q = r.a.quick
    stair = [1000] if q else [10000, 100000]
    churn = [1000] if q else [10000, 100000]
    for a in stair:
        for v in ("esht", "sht"):
            sbench(r, "esht", f"staircase-{a}-{v}", "store",
                   {"workload": "staircase", "size": a, "variant": v},
                   big=a >= 100000)
    for n in churn:
        for v in ("esht", "sht"):
            sbench(r, "esht", f"churn-{n}-{v}", "store",
                   {"workload": "churn", "size": n, "variant": v},
                   big=n >= 100000)
    traces = ["bug446190"] if q else ["many-threads", "bug446190"]
    for t in traces:
        tbench(r, "esht", f"trace-{t}", t)


def suite_scale(r):
    sizes = [1000, 10000] if r.a.quick else \
        [1000, 3000, 10000, 30000, 100000, 300000, 1000000]
    for a in sizes:
        sbench(r, "scale", f"staircase-{a}", "store",
               {"workload": "staircase", "size": a, "variant": "esht"},
               big=a >= 300000)
    state = [1000] if r.a.quick else [1000, 10000, 100000, 1000000]
    for a in state:
        sbench(r, "scale", f"state-staircase-{a}", "state",
               {"workload": "staircase", "size": a, "variant": "esht"},
               extra=["--no-store"], big=a >= 300000)


def suite_sweep(r):
    q = r.a.quick
    a = 10000 if q else 100000
    blocks = ["4K", "64K", "1M"] if q else ["4K", "16K", "64K", "256K", "1M", "4M"]
    children = [10, 200] if q else [10, 25, 50, 100, 200]
    for b in blocks:
        sbench(r, "sweep", f"block-{b}", "store",
               {"workload": "staircase", "size": a, "variant": "esht",
                "block_size": b, "sweep": "block"}, big=b in ("1M", "4M"))
    for c in children:
        sbench(r, "sweep", f"children-{c}", "store",
               {"workload": "staircase", "size": a, "variant": "esht",
                "max_children": c, "sweep": "children"})
    t = "bug446190" if q else "many-threads"
    for b in (["4K"] if q else blocks):
        tbench(r, "sweep", f"trace-block-{b}", t, ["--block-size", b])
    for c in ([] if q else children):
        tbench(r, "sweep", f"trace-children-{c}", t, ["--max-children", str(c)])


def suite_partial(r):
    if r.a.quick:
        points = [("staircase", 1000, None, "2000,5000,10000"),
                  ("churn", 1000, None, "2000,5000,10000")]
    else:
        every = "20000,50000,100000"
        points = [("staircase", 10000, None, every),
                  ("churn", 100000, None, every),
                  ("staircase", 100, 20000, every)]
    for wl, n, i, every in points:
        args = ["--workload", wl, "--size", str(n), "--every", every,
                "--dir", r.a.scratch, "--repeat", "1"]
        if i:
            args += ["--intervals", str(i)]
        args += ["--queries", "100" if r.a.quick else "500",
                 "--full-queries", "5" if r.a.quick else "10"]
        case = f"{wl}-{n}" + (f"-i{i}" if i else "")
        r.measure("partial", case, "partial-bench", args,
                  r.a.runs if r.a.quick else r.a.runs_big,
                  {"workload": wl, "size": n, "intervals": i or 20})


def suite_cold(r):
    if r.a.quick:
        points = [("staircase", 10000)]
        extra = ["--cold", "--cold-queries", "200", "--cold-full-queries", "10"]
    else:
        points = [("staircase", 100000), ("staircase", 1000000), ("churn", 100000)]
        extra = ["--cold", "--cold-queries", "2000", "--cold-full-queries", "200"]
    for wl, n in points:
        sbench(r, "cold", f"{wl}-{n}", "store",
               {"workload": wl, "size": n, "variant": "esht"}, extra=extra,
               big=n >= 1000000)


def suite_sqlite(r):
    if r.tools.get("sht-sqlite-bench") is None:
        r.note("sqlite: sht-sqlite-bench is not built: suite skipped "
               "(docs/BENCH-SQLITE.md)")
        return
    if r.a.quick:
        points = [(ix, wl, 1000, False) for ix in ("btree", "rtree")
                  for wl in ("staircase", "churn")]
    else:
        points = [("btree", "staircase", 10000, False),
                  ("rtree", "staircase", 10000, False),
                  ("btree", "staircase", 100000, False),
                  ("rtree", "staircase", 100000, True),
                  ("btree", "churn", 100000, True),
                  ("btree", "staircase", 1000000, True)]
    for ix, wl, n, big in points:
        args = ["--index", ix, "--workload", wl, "--attrs", str(n), "--check",
                "--db", os.path.join(r.a.scratch, "sqlite-bench.db")]
        if r.a.quick:
            args += ["--queries", "200", "--full-queries", "5"]
        r.measure("sqlite", f"{ix}-{wl}-{n}", "sht-sqlite-bench", args,
                  1 if big and not r.a.quick else
                  (r.a.runs_big if not r.a.quick else 1),
                  {"index": ix, "workload": wl, "size": n})


def suite_limits(r):
    q = r.a.quick
    if r.tools.get("sht-limits") is None:
        r.note("limits: sht-limits is not built: suite skipped")
        return
    r.measure("limits", "sht-limits", "sht-limits",
              ["--dir", r.a.scratch, "--repeat", "1",
               "--limit-bytes", "16M" if q else "128M"] + (["--quick"] if q else []),
              r.a.runs_big, {})
