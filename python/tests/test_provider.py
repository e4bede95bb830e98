"""Providers written in Python, over the real traces."""

import os

import pytest

import sht
from conftest import trace_path
from kernel_core import KernelCore


def intervals_of(h, path):
    """The intervals of path over the whole history; one null interval
    if the history has no such attribute (what its absence answers)."""
    try:
        return [(iv.start, iv.end, iv.type, iv.value) for iv in h.history(path)]
    except KeyError:
        return [(h.start, h.end, "null", None)]


@pytest.mark.parametrize("name", ["many-threads", "bug446190", "scp_src", "stub"])
def test_kernel_core_equals_the_builtin_analysis(scratch, cli_history, name):
    out = os.path.join(scratch, "core-%s.sht" % name)
    r = sht.build(trace_path(name), analysis=KernelCore(), output=out, force=True)
    assert r.events_skipped == 0 and r.python_calls > 0
    core, ref = sht.open(out), sht.open(cli_history(name))
    assert (core.start, core.end) == (ref.start, ref.end)
    paths = set()
    for pattern in ("CPUs/*/Current_thread", "Threads/*", "Threads/*/System_call"):
        paths |= set(core.attributes(pattern)) | set(ref.attributes(pattern))
    count = 0
    for p in sorted(paths):
        mine = intervals_of(core, p)
        assert mine == intervals_of(ref, p), p
        count += len(mine)
    assert count > (400000 if name == "many-threads" else 50)


def test_handlers_by_name_pattern_and_default(scratch):
    seen = {"switch": 0, "entry": 0, "other": set(), "setup": 0}

    class P(sht.Provider):
        id = "dispatch"
        on = {"syscall_entry_*": "entry"}

        def setup(self, state):
            seen["setup"] += 1
            self.q = state.quark("Count")

        def on_sched_switch(self, ev, st):
            seen["switch"] += 1
            st.increment(ev.ts, self.q)

        def entry(self, ev, st):
            seen["entry"] += 1

        def handle(self, ev, st):
            seen["other"].add(ev.name)

    r = sht.build(trace_path("many-threads"), analysis=P(), output=os.path.join(scratch, "p.sht"),
                  force=True)
    assert seen["setup"] == 1 and seen["switch"] == 28325 and seen["entry"] == 78085
    assert "sched_switch" not in seen["other"] and "syscall_exit_open" in seen["other"]
    assert r.python_calls == r.events
    h = sht.open(r.path)
    assert h.query(h.end, "Count").value == 28325
    assert h.provider == ("dispatch", 1)


def test_events_nobody_handles_never_reach_python(scratch):
    class Quiet(sht.Provider):
        id = "quiet"

        def on_sched_switch(self, ev, st):
            pass

    r = sht.build(trace_path("bug446190"), analysis=Quiet(),
                  output=os.path.join(scratch, "quiet.sht"), force=True)
    assert 0 < r.python_calls < r.events / 2


def test_event_fields(scratch):
    got = {}

    def handle(ev, st):
        if ev.name == "sched_switch" and not got:
            got.update(ev.fields())
            got["_get"] = ev.get("next_tid"), ev.get("no_such_field", "default")
            got["_cpu"], got["_ts"] = ev.cpu, ev.ts
            with pytest.raises(KeyError):
                ev["no_such_field"]
            got["_kept"] = ev

    sht.build(trace_path("bug446190"), analysis=handle, output=os.path.join(scratch, "f.sht"),
              force=True)
    assert got["_get"] == (got["next_tid"], "default")
    assert {"prev_comm", "prev_tid", "prev_state", "next_comm", "next_tid"} <= set(got)
    assert isinstance(got["next_comm"], str) and got["_cpu"] >= 0
    kept = got["_kept"]
    assert kept.name == "sched_switch" and kept.ts == got["_ts"]
    with pytest.raises(sht.StateError):
        kept["next_tid"]      # its fields are gone with the event


def test_a_refused_change_skips_the_event(scratch):
    class Mixed(sht.Provider):
        id = "mixed"

        def on_sched_switch(self, ev, st):
            q = st.quark("X")
            # An int first, then a str: the state system refuses the
            # type change (sht.TypeError), which skips the event.
            st.modify(ev.ts, q, 1 if ev["next_tid"] % 2 else "odd")
            st.modify(ev.ts, st.quark("After"), ev["next_tid"])

    r = sht.build(trace_path("bug446190"), analysis=Mixed(),
                  output=os.path.join(scratch, "mixed.sht"), force=True)
    assert r.events_skipped > 0


def test_an_exception_stops_the_build(scratch):
    out = os.path.join(scratch, "boom.sht")

    class Boom(sht.Provider):
        id = "boom"

        def on_sched_switch(self, ev, st):
            if ev.ts > 0:
                raise ZeroDivisionError("my bug")

    with pytest.raises(ZeroDivisionError, match="my bug"):
        sht.build(trace_path("bug446190"), analysis=Boom(), output=out, force=True)
    assert not os.path.exists(out)


def test_the_state_is_unusable_after_the_build(scratch):
    kept = []

    def handle(ev, st):
        kept.append(st)

    sht.build(trace_path("stub"), analysis=handle, output=os.path.join(scratch, "s.sht"),
              force=True)
    with pytest.raises(sht.StateError):
        kept[0].modify(0, 0, 1)


def test_bad_providers(scratch):
    class NoVersion(sht.Provider):
        id = "x"
        version = "one"

    with pytest.raises(TypeError):
        sht.build(trace_path("stub"), analysis=NoVersion(), output=os.path.join(scratch, "n.sht"))

    class BadSetup(sht.Provider):
        def setup(self, state):
            raise LookupError("setup failed")

    with pytest.raises(LookupError):
        sht.build(trace_path("stub"), analysis=BadSetup(), output=os.path.join(scratch, "n.sht"))
    assert BadSetup().id.endswith("BadSetup")
