"""The worked examples of docs/SQL.md and docs/PYTHON.md on many-threads:
each question answered in SQL (examples/sql/*.sql, through the SQLite
extension from Python's sqlite3) and in Python (examples/python/
analyses.py) gives the same answer; the plot is drawn."""

import os
import sqlite3

import pytest

import sht
from conftest import SRCDIR

import analyses  # noqa: E402  (examples/python, on sys.path from conftest)
import plot_cpus  # noqa: E402

SQL = os.path.join(SRCDIR, "examples", "sql")


def sqlite_module():
    mod = os.environ.get("SHT_SQLITE_MODULE")
    if not mod:
        pytest.fail("SHT_SQLITE_MODULE must name the SQLite extension (sht_sqlite.so)")
    return mod


def run_sql(name, **params):
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(os.path.splitext(sqlite_module())[0])
    with open(os.path.join(SQL, name)) as f:
        rows = db.execute(f.read(), params).fetchall()
    db.close()
    return rows


def same(sql_rows, frame, columns, tolerance):
    """The SQL rows (rounded by SQL) equal the frame's, within tolerance."""
    assert len(sql_rows) == len(frame) > 0
    for got, (_, want) in zip(sql_rows, frame.iterrows()):
        for g, c in zip(got, columns):
            w = want[c]
            if isinstance(g, float):
                assert abs(g - float(w)) <= tolerance, (c, got, dict(want))
            else:
                assert str(g) == str(w), (c, got, dict(want))


@pytest.fixture(scope="module")
def mt(cli_history):
    path = cli_history("many-threads")
    return path, sht.open(path)


def test_wait_for_cpu(mt):
    path, h = mt
    rows = run_sql("wait-for-cpu.sql", file=path)
    same(rows, analyses.wait_for_cpu(h), ["tid", "name", "wait_ms"], 0.0011)
    assert rows[0][:2] == ("2673", "multithread")


def test_syscall_latency(mt):
    path, h = mt
    rows = run_sql("syscall-latency.sql", file=path)
    same(rows, analyses.syscall_latency(h),
         ["process", "name", "calls", "p50_us", "p99_us", "max_us"], 0.051)
    assert any(r[1] == "multithread" and r[2] > 80000 for r in rows)


def test_cpu_time(mt):
    path, h = mt
    t1, t2 = 1457113582900000000, 1457113583000000000
    rows = run_sql("cpu-time.sql", file=path, t1=t1, t2=t2)
    same(rows, analyses.cpu_time(h, t1, t2), ["process", "name", "cpu_ms", "pct_of_one_cpu"],
         0.051)
    # Every CPU is busy or idle: the processes' CPU time is at most 8 CPUs' worth.
    assert sum(r[2] for r in rows) <= 8 * (t2 - t1) / 1e6


def test_plot(mt, scratch):
    _, h = mt
    out = os.path.join(scratch, "cpus.png")
    bars = plot_cpus.plot(h, h.start + 150_000_000, h.start + 170_000_000, out)
    assert bars > 100
    with open(out, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
