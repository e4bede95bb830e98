"""Building histories: from a trace through an analysis (build), or from
any data through the state system's operations (create); providers
written in Python."""

import fnmatch
import os

from . import _core


class Long(int):
    """An int written as a 64-bit value (sht's "long"); a plain int is
    written as a 32-bit "int" when it fits.  An attribute keeps the type
    of its first non-null value."""
    __slots__ = ()


_core._set_long_type(Long)


class Provider:
    """A state provider written in Python: its handlers turn a trace's
    events into state changes.

        class CurrentThread(sht.Provider):
            id = "current-thread"
            version = 1

            def on_sched_switch(self, event, state):
                q = state.quark(("CPUs", str(event.cpu), "Current_thread"))
                state.modify(event.ts, q, event["next_tid"])

        sht.build("trace", analysis=CurrentThread(), output="ct.sht")

    Handlers: a method on_<event name>, or an entry of the dict `on`
    mapping an event name or an fnmatch pattern ("syscall_entry_*") to a
    callable or a method name (exact names first, then the patterns in
    order), or else the method handle(event, state) for every other
    event.  Events nobody handles never reach Python.  setup(state) runs
    once before the first event (look quarks up there).

    event: name, ts (ns), cpu (-1 if unknown), event["field"],
    event.get("field", default), event.fields().  Valid during the call
    only (a kept event keeps name, ts and cpu).
    state: the state system (sht.State): quark(path), child(parent,
    name), modify(t, q, v), clear(t, q), push(t, q, v), pop(t, q),
    increment(t, q, delta=1), update_ongoing(q, v), ongoing(q).

    id and version are stored in the history (a history of another
    version is rebuilt rather than reused).  A handler raising
    sht.TypeError, sht.RangeError or sht.NoattrError (a change the state
    system refuses) skips the rest of that event, as sht's own analyses
    do; any other exception stops the build and is raised by build().
    """

    id = None
    version = 1
    on = None

    def __init__(self):
        if self.id is None:
            self.id = type(self).__module__ + "." + type(self).__qualname__

    def _handler_for(self, name):
        on = self.on or {}
        h = on.get(name)
        if h is None:
            for pattern, handler in on.items():
                if fnmatch.fnmatchcase(name, pattern):
                    h = handler
                    break
        if h is None:
            h = getattr(self, "on_" + name, None) if name.isidentifier() else None
        if h is None and type(self).handle is not Provider.handle:
            h = self.handle
        if isinstance(h, str):
            h = getattr(self, h)
        return h

    def setup(self, state):
        """Called once with the state before the first event."""

    def handle(self, event, state):
        """Events no other handler takes (override to receive them)."""


class _FunctionProvider(Provider):
    """A function handle(event, state) as a provider of every event."""

    def __init__(self, fn, id=None, version=1):
        self.id = id or getattr(fn, "__qualname__", "python-function")
        self.version = version
        self._fn = fn

    def _handler_for(self, name):
        return self._fn


class BuildResult:
    """What sht.build did: path, trace, analysis, provider,
    provider_version, reused (an existing history was kept), events,
    events_skipped, discarded_events, discarded_packets, start, end,
    intervals, attributes, file_bytes, seconds, python_calls (events given
    to Python handlers), decoding_threads (the threads that decoded a CTF
    trace; 0: the calling thread, a VSTF trace or a reused history)."""

    def __init__(self, fields):
        self.__dict__.update(fields)
        self.path = os.fsdecode(self.path)
        self.trace = os.fsdecode(self.trace)

    def __repr__(self):
        return "<sht.BuildResult %s: %s>" % (self.path, ", ".join(
            "%s=%r" % kv for kv in sorted(self.__dict__.items()) if kv[0] != "path"))


def build(trace, analysis="kernel", output=None, progress=None, force=False,
          merge=False, threaded=True, progress_every=65536, jobs=-1):
    """Build the history of a trace (a CTF directory or a VSTF file), as
    `sht build` does, and return a BuildResult.

    analysis: "kernel" (the Linux kernel analysis), "stats" (event
    counts), a rules file (*.xml or *.rules), a Provider, or a function
    handle(event, state) called for every event.  output: the history
    file (default: the trace's name + ".sht" in the current directory).
    An existing complete history of the same analysis and version,
    starting at the trace's first event and newer than the trace's
    files, is reused unless force.  progress(p) receives an sht.Progress
    (events, time, fraction or None, seconds) every progress_every events
    and at the end; an exception it raises (or Ctrl-C) stops the build
    and leaves no file.  merge: read a directory holding several CTF
    traces, merged in time.  threaded: write the history tree on threads
    of its own (same file).  jobs: the threads decoding a CTF trace's
    streams (-1: one per online CPU, as `sht build`; 0: on the calling
    thread); the history is the same for any value."""
    if not isinstance(analysis, (str, os.PathLike, Provider)) and callable(analysis):
        analysis = _FunctionProvider(analysis)
    if isinstance(analysis, os.PathLike):
        analysis = os.fspath(analysis)
    if isinstance(analysis, Provider) and getattr(analysis, "id", None) is None:
        Provider.__init__(analysis)
    if output is not None:
        output = os.fspath(output)
    r = _core.build(os.fspath(trace), analysis, output, progress, force, merge,
                    threaded, progress_every, jobs)
    return BuildResult(r)


def create(path, start, provider="python", version=1, block_size=0, threaded=False):
    """A new history file at path starting at start (ns), written through
    the returned sht.State (quark, modify, clear, push, pop, increment,
    update_ongoing, ongoing; changes in non-decreasing time), completed
    by its finish(end=None)."""
    return _core.create(os.fspath(path), start, provider, version, block_size, threaded)
