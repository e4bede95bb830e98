"""Opened histories and the results of their 2D queries."""

import os

from . import _core
from ._core import Interval

# Value type codes of the C API (sht_type), as the columns carry them.
NULL, INT, LONG, DOUBLE, STRING = 0, 1, 2, 3, 4
TYPE_NAMES = ("null", "int", "long", "double", "string")


class History(_core.History):
    """An opened history file (sht.open).

    Attributes are named by path ("CPUs/0/Current_thread") or by quark
    (int).  Patterns match one path element at a time as fnmatch does:
    "Threads/*/Status", "CPUs/[0-3]/Current_thread".  Times are int ns.

    Methods from the C extension: query(t, attrs=None), history(attr,
    t1=None, t2=None, resolution=None), quark(path), path(quark),
    name(attr), parent(attr), children(attr=None), quarks(pattern=None),
    close(); properties start, end, attribute_count, provider, file,
    info, closed.
    """

    def attributes(self, pattern=None):
        """The paths of the attributes matching pattern (all if None), in
        depth-first creation order."""
        return [self.path(q) for q in self.quarks(pattern)]

    def intervals(self, attrs=None, t1=None, t2=None, resolution=None):
        """The 2D query: every interval of the attributes (a path,
        pattern, quark or a list of those; None: all) that meets [t1, t2]
        (default: the whole history), ordered by (start, quark).  With a
        resolution r, only the intervals holding one of t1, t1 + r, ...
        or t2: what a timeline of (t2 - t1) / r pixels draws.  Returns
        Intervals (to_pandas(), to_numpy(), iteration)."""
        return Intervals(self, self.columns(attrs, t1, t2, resolution))

    def __repr__(self):
        if self.closed:
            return "<sht.History %r (closed)>" % (self.file,)
        return "<sht.History %r [%d, %d], %d attributes, %s v%d>" % (
            self.file, self.start, self.end, self.attribute_count, *self.provider)


def open(path, cache_bytes=0, trace=None, analysis=None):
    """Open a history file: a History.  cache_bytes bounds its node
    cache (0: 256 MiB).  A partial history (sht build --partial) answers
    by replaying the trace it was built from: give it as trace (a CTF
    directory or VSTF file), and, for one built from a rules file, that
    file as analysis ("kernel" and "stats" are found by themselves).
    Its queries keep the GIL (a replay moves the trace)."""
    if trace is not None:
        trace = os.fspath(trace)
    if isinstance(analysis, os.PathLike):
        analysis = os.fspath(analysis)
    return History(os.fspath(path), cache_bytes, trace, analysis)


class Intervals:
    """The answer of a 2D query, held as columns: len(), iteration (as
    Interval), to_numpy(), to_pandas().  Timestamps are 64-bit ints."""

    def __init__(self, history, columns):
        self._history = history
        (self._quark, self._start, self._end, self._type, self._int,
         self._double, self._strings) = columns
        self._np = None

    def __len__(self):
        return len(self._type)

    def __iter__(self):
        h = self._history
        strings = iter(self._strings)
        q = memoryview(self._quark).cast("I")
        s = memoryview(self._start).cast("q")
        e = memoryview(self._end).cast("q")
        ints = memoryview(self._int).cast("q")
        dbl = memoryview(self._double).cast("d")
        for i, t in enumerate(self._type):
            if t == STRING:
                v = next(strings)
            elif t == DOUBLE:
                v = dbl[i]
            elif t == NULL:
                v = None
            else:
                v = ints[i]
            label = h.label(q[i], v) if t in (INT, LONG) else None
            yield Interval((h.path(q[i]), q[i], s[i], e[i], v, TYPE_NAMES[t], label))

    def __repr__(self):
        return "<sht.Intervals: %d intervals>" % len(self)

    def _arrays(self):
        import numpy as np
        if self._np is None:
            self._np = {
                "quark": np.frombuffer(self._quark, dtype=np.uint32),
                "start": np.frombuffer(self._start, dtype=np.int64),
                "end": np.frombuffer(self._end, dtype=np.int64),
                "type": np.frombuffer(self._type, dtype=np.uint8),
            }
        return np, self._np

    def _values(self):
        """(kind, values, null mask): kind "int" (int64 array), "double"
        (float64), or "object" (None, int, float, str)."""
        np, a = self._arrays()
        t = a["type"]
        null = t == NULL
        kinds = set(np.unique(t).tolist()) - {NULL}
        if kinds <= {INT, LONG}:
            return "int", np.frombuffer(self._int, dtype=np.int64), null
        if kinds == {DOUBLE}:
            return "double", np.frombuffer(self._double, dtype=np.float64), null
        obj = np.empty(len(t), dtype=object)
        ints = (t == INT) | (t == LONG)
        obj[ints] = np.frombuffer(self._int, dtype=np.int64)[ints].tolist()
        dbl = t == DOUBLE
        obj[dbl] = np.frombuffer(self._double, dtype=np.float64)[dbl].tolist()
        strs = t == STRING
        if strs.any():
            tmp = np.empty(int(strs.sum()), dtype=object)
            tmp[:] = self._strings
            obj[strs] = tmp
        return "object", obj, null

    def _labels(self):
        """The value names the history's model gives (object array, None
        where there is none): one look-up per distinct (quark, value)."""
        np, a = self._arrays()
        t = a["type"]
        out = np.full(len(t), None, dtype=object)
        ints = (t == INT) | (t == LONG)
        if ints.any():
            pairs = np.stack([a["quark"][ints].astype(np.int64),
                              np.frombuffer(self._int, dtype=np.int64)[ints]], axis=1)
            uniq, inv = np.unique(pairs, axis=0, return_inverse=True)
            h = self._history
            names = np.empty(len(uniq), dtype=object)
            names[:] = [h.label(int(q), int(v)) for q, v in uniq]
            out[ints] = names[inv.ravel()]
        return out

    def to_numpy(self):
        """The columns as numpy arrays (no copy for the numbers): quark
        (uint32), start and end (int64), type (uint8 codes: 0 null, 1
        int, 2 long, 3 double, 4 string), value (int64 if every non-null
        value is an integer, float64 if every one is a double, else
        object) and null (bool: the value is null; its slot in an int64
        or float64 value array holds 0) and label (object: the value's
        name in the history's model, or None)."""
        _, a = self._arrays()
        kind, values, null = self._values()
        out = dict(a)
        out["value"] = values
        out["null"] = null
        out["label"] = self._labels()
        return out

    def to_pandas(self):
        """A pandas DataFrame: quark, path (categorical), start, end
        (int64 ns), type (categorical), value (nullable Int64 or Float64
        when the values are all integers or all doubles, else object with
        None for null), label (the value's name in the history's model,
        e.g. "Usermode", else None)."""
        import pandas as pd
        np, a = self._arrays()
        kind, values, null = self._values()
        if kind == "int":
            value = pd.arrays.IntegerArray(values.copy(), null.copy())
        elif kind == "double":
            value = pd.arrays.FloatingArray(values.copy(), null.copy())
        else:
            value = values
        uniq, inv = np.unique(a["quark"], return_inverse=True)
        paths = [self._history.path(int(q)) for q in uniq]
        if len(set(paths)) == len(paths):
            path = pd.Categorical.from_codes(inv, categories=paths)
        else:   # names holding "/" can make two paths alike
            path = np.array(paths, dtype=object)[inv]
        tcodes, tinv = np.unique(a["type"], return_inverse=True)
        typ = pd.Categorical.from_codes(tinv, categories=[TYPE_NAMES[c] for c in tcodes])
        return pd.DataFrame({"quark": a["quark"], "path": path, "start": a["start"],
                             "end": a["end"], "type": typ, "value": value,
                             "label": self._labels()})
