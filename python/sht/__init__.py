"""sht: state histories of traces, from Python.

    import sht
    h = sht.open("mt.sht")                       # a History: h.start, h.end (int ns)
    h.attributes("Threads/*/Exec_name")          # paths matching a pattern
    h.query(t)                                   # every attribute's Interval at t
    h.query(t, ["CPUs/0/Current_thread"])        # Interval: path, quark, start, end, value, type
    h.history("CPUs/0/Current_thread", t1, t2, resolution=None)   # list of Interval
    h.intervals(["CPUs/*/Current_thread"], t1, t2, resolution=r).to_pandas()
    sht.build("trace_dir", analysis="kernel", output="mt.sht", progress=None)

Providers written in Python (sht.Provider) build histories from a
trace's events through the state system's operations; sht.create writes
a history from any data.  Errors are sht.Error subclasses named after
sht's error codes (sht.CorruptError for SHT_ERR_CORRUPT, ...).  See
docs/PYTHON.md.
"""

from . import _core
from ._core import Error, Event, Interval, Progress, State

from .history import History, Intervals, open
from .build import BuildResult, Long, Provider, build, create

__version__ = _core.version


def _export_errors():
    names = []
    for name in dir(_core):
        obj = getattr(_core, name)
        if isinstance(obj, type) and issubclass(obj, Error) and obj is not Error:
            globals()[name] = obj
            names.append(name)
    return names


#: The exception classes, one per sht error code: {"SHT_ERR_IO": sht.IoError, ...}
errors = {globals()[n].name: globals()[n] for n in _export_errors()}

# The error classes stay out of __all__: sht.TypeError and sht.RangeError
# would shadow the built-ins in a star import.
__all__ = ["open", "build", "create", "History", "Intervals", "Interval",
           "State", "Event", "Progress", "Provider", "Long", "BuildResult",
           "Error", "errors"]
