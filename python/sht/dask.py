"""sht on Dask (dask.distributed): a fleet's traces built and queried in
parallel on a cluster, the answers gathered into one pandas DataFrame.

    from dask.distributed import Client
    import sht.dask

    client = Client("scheduler:8786")          # or Client() for a local one
    built = sht.dask.build(client, traces, outdir="/shared/histories")
    df = sht.dask.intervals(client, [b.path for b in built],
                            "CPUs/*/Current_thread", resolution=1_000_000)
    df.groupby("history")["value"].nunique()

Each trace's history is built by one task (sht.build in a worker
process, which releases the GIL while a C analysis runs); each history
is queried by one task, next to its file; only the answers travel.  The
paths must be readable by the workers under the same names (a shared
file system, or one machine).  Tasks are submitted with pure=False: a
history rebuilt under the same name is queried again.
"""

import os

from .build import build as _sht_build
from .history import open as _open


def _build_one(trace, output, analysis, kwargs):
    return _sht_build(trace, analysis=analysis, output=output, **kwargs)


def _output_for(trace, outdir, index):
    base = os.path.basename(os.path.normpath(os.fspath(trace))) or "trace"
    name, _ = os.path.splitext(base)
    return os.path.join(outdir, "%04d-%s.sht" % (index, name))


def build(client, traces, outdir, analysis="kernel", **kwargs):
    """Build the history of every trace, one task each, into outdir
    (NNNN-<trace name>.sht, NNNN the trace's index); returns the list of
    sht.BuildResult in the order of traces.  analysis and the other
    arguments are those of sht.build (a Provider must be picklable: a
    class defined in an importable module).  An existing up-to-date
    history is reused, as sht.build does; the first failure is raised."""
    os.makedirs(outdir, exist_ok=True)
    futures = [client.submit(_build_one, os.fspath(t), _output_for(t, outdir, i), analysis,
                             kwargs, pure=False)
               for i, t in enumerate(traces)]
    return client.gather(futures)


def _frame_one(path, attrs, t1, t2, resolution):
    with _open(path) as h:
        df = h.intervals(attrs, t1, t2, resolution).to_pandas()
    df.insert(0, "history", os.fspath(path))
    return df


def intervals(client, histories, attrs=None, t1=None, t2=None, resolution=None):
    """The 2D query History.intervals(attrs, t1, t2, resolution) on every
    history, one task each, gathered into one DataFrame with a column
    "history" (the file) in front; rows keep each history's order.  t1
    and t2 default to each history's own bounds."""
    import pandas as pd
    futures = [client.submit(_frame_one, os.fspath(p), attrs, t1, t2, resolution,
                             pure=False) for p in histories]
    frames = client.gather(futures)
    if not frames:
        return pd.DataFrame()
    df = pd.concat(frames, ignore_index=True)
    # Each frame has its own categories: one set for the whole frame.
    for col in ("history", "path", "type"):
        df[col] = df[col].astype("category")
    return df


def _map_one(path, fn, args, kwargs):
    with _open(path) as h:
        return fn(h, *args, **kwargs)


def map(client, histories, fn, *args, **kwargs):
    """fn(history, *args, **kwargs) on every history (an opened
    sht.History), one task each; the list of results in order.  fn must
    be picklable (defined in an importable module)."""
    futures = [client.submit(_map_one, os.fspath(p), fn, args, kwargs, pure=False)
               for p in histories]
    return client.gather(futures)
