"""sht.dask on a local cluster of worker processes: traces built as
tasks, histories queried in parallel, answers gathered into one frame
equal to the same queries run here."""

import os

import pandas as pd
import pytest

import sht
import sht.dask
from conftest import run_cli, trace_path

import distributed


@pytest.fixture(scope="module")
def client():
    # Worker processes, as on a real cluster; they import sht from the
    # same PYTHONPATH.
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_build_and_query_a_fleet(scratch, client):
    fleet = os.path.join(scratch, "fleet")
    os.makedirs(fleet, exist_ok=True)
    traces = []
    for seed in range(1, 5):        # four "hosts": synthetic kernel traces
        t = os.path.join(fleet, "host%d.vstf" % seed)
        run_cli("gen", "kernel", "-o", t, "--events", 30000, "--seed", seed, "--cpus", 2 + seed % 3)
        traces.append(t)
    traces.append(trace_path("bug446190"))
    out = os.path.join(scratch, "fleet-histories")
    built = sht.dask.build(client, traces, out)
    assert [os.path.basename(b.trace) for b in built] == [os.path.basename(t) for t in traces]
    assert all(not b.reused and b.events > 0 for b in built)
    assert len({b.path for b in built}) == len(traces)
    again = sht.dask.build(client, traces, out)
    assert all(b.reused for b in again)

    paths = [b.path for b in built]
    df = sht.dask.intervals(client, paths, "CPUs/*/Current_thread", resolution=1_000_000)
    local = []
    for p in paths:
        with sht.open(p) as h:
            f = h.intervals("CPUs/*/Current_thread", resolution=1_000_000).to_pandas()
        f.insert(0, "history", p)
        local.append(f)
    want = pd.concat(local, ignore_index=True)
    assert len(df) == len(want) > 0
    for col in ("history", "path", "type"):
        assert list(df[col].astype(str)) == list(want[col].astype(str))
    for col in ("quark", "start", "end"):
        assert df[col].tolist() == want[col].tolist()
    assert df["value"].astype(object).tolist() == want["value"].astype(object).tolist()
    assert set(df["history"].astype(str)) == set(paths)

    ends = sht.dask.map(client, paths, _end_of)
    assert ends == [b.end for b in built]


def _end_of(h):
    return h.end


def test_a_failing_task_raises(scratch, client):
    with pytest.raises(sht.IoError):
        sht.dask.build(client, [os.path.join(scratch, "no-such-trace")],
                       os.path.join(scratch, "fleet-bad"))
