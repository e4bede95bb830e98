"""Questions analysts ask of a kernel history, answered with the sht
Python package and pandas: the same answers as examples/sql/*.sql
(python/tests/test_examples.py checks that they agree).

    python3 analyses.py mt.sht [T1 T2]

wait_for_cpu(h): the threads that waited longest for a CPU (status 5),
idle threads left out.  syscall_latency(h): system call latency
percentiles per process (nearest rank).  cpu_time(h, t1, t2): CPU time
per process over a window.  A thread's process is its PID attribute (set
when tid != pid), else the thread itself; a process's name is its
leader's last Exec_name.
"""

import sys

import numpy as np
import pandas as pd

import sht

WAIT_FOR_CPU = 5


def last_values(h, pattern, kind):
    """{tid: last non-null value} of Threads/<tid>/<attribute>."""
    df = h.intervals(pattern).to_pandas()
    df = df[df["type"].astype(str) == kind] if kind else df[df["type"].astype(str) != "null"]
    df = df.sort_values(["path", "start"], kind="stable").groupby("path", observed=True).last()
    tids = [p.split("/")[1] for p in df.index.astype(str)]
    return dict(zip(tids, df["value"].astype(object)))


def processes(h):
    """tid -> process id (text), and process id -> name."""
    pid = {t: str(v) for t, v in last_values(h, "Threads/*/PID", None).items()}
    names = last_values(h, "Threads/*/Exec_name", "string")
    return pid, names


def wait_for_cpu(h, top=10):
    st = h.intervals("Threads/*").to_pandas()
    st = st[(st["value"] == WAIT_FOR_CPU).fillna(False)]
    st = st[~st["path"].astype(str).str.startswith("Threads/0_")]
    ns = (st["end"] - st["start"] + 1).groupby(st["path"].astype(str)).sum()
    names = last_values(h, "Threads/*/Exec_name", "string")
    out = pd.DataFrame({"tid": [p[len("Threads/"):] for p in ns.index], "ns": ns.values})
    out["name"] = out["tid"].map(names)
    out = out.sort_values(["ns", "tid"], ascending=[False, True]).head(top)
    out["wait_ms"] = out["ns"] / 1e6
    return out[["tid", "name", "wait_ms"]].reset_index(drop=True)


def syscall_latency(h, top=10, min_calls=100):
    calls = h.intervals("Threads/*/System_call").to_pandas()
    calls = calls[(calls["type"].astype(str) == "string") & (calls["end"] < h.end)]
    pid, names = processes(h)
    tid = calls["path"].astype(str).str.split("/").str[1]
    process = tid.map(lambda t: pid.get(t, t))
    ns = (calls["end"] - calls["start"] + 1).to_numpy()
    rows = []
    for p, idx in pd.Series(range(len(ns))).groupby(process.to_numpy()):
        v = ns[idx.to_numpy()]
        if len(v) < min_calls:
            continue
        p50, p99 = np.percentile(v, [50, 99], method="inverted_cdf")
        rows.append((int(p), names.get(p), len(v), p50 / 1e3, p99 / 1e3, v.max() / 1e3))
    out = pd.DataFrame(rows, columns=["process", "name", "calls", "p50_us", "p99_us", "max_us"])
    return out.sort_values(["p99_us", "process"], ascending=[False, True]).head(top) \
              .reset_index(drop=True)


def cpu_time(h, t1, t2, top=10):
    run = h.intervals("CPUs/*/Current_thread", t1, t2).to_pandas()
    run = run[(run["value"] > 0).fillna(False)]
    ns = run["end"].clip(upper=t2) - run["start"].clip(lower=t1) + 1
    pid, names = processes(h)
    process = run["value"].astype(int).astype(str).map(lambda t: pid.get(t, t))
    per = ns.groupby(process.to_numpy()).sum()
    out = pd.DataFrame({"process": per.index.astype(int), "ns": per.values})
    out["name"] = out["process"].astype(str).map(names)
    out = out.sort_values(["ns", "process"], ascending=[False, True]).head(top)
    out["cpu_ms"] = out["ns"] / 1e6
    out["pct_of_one_cpu"] = 100.0 * out["ns"] / (t2 - t1 + 1)
    return out[["process", "name", "cpu_ms", "pct_of_one_cpu"]].reset_index(drop=True)


def main(argv):
    h = sht.open(argv[1])
    if len(argv) > 3:
        t1, t2 = int(argv[2]), int(argv[3])
    else:
        t1 = h.start + (h.end - h.start) // 4
        t2 = t1 + (h.end - h.start) // 4
    pd.set_option("display.width", 120)
    print("Threads that waited longest for a CPU:\n%s\n" % wait_for_cpu(h).round(3))
    print("System call latency per process:\n%s\n" % syscall_latency(h).round(1))
    print("CPU time per process over [%d, %d]:\n%s" % (t1, t2, cpu_time(h, t1, t2).round(3)))


if __name__ == "__main__":
    main(sys.argv)
