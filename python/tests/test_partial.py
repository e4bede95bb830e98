"""Partial histories (sht build --partial): opened with the trace they
were built from, they answer every query as the full history does."""

import os
import random
import threading

import pytest

import sht
from conftest import SRCDIR, run_cli, trace_path

RULES = os.path.join(SRCDIR, "examples", "rules", "kernel-core.xml")


def build_pair(scratch, name, analysis, every):
    tag = os.path.basename(analysis)
    full = os.path.join(scratch, "full-%s-%s.sht" % (name, tag))
    part = os.path.join(scratch, "partial-%s-%s.sht" % (name, tag))
    run_cli("build", trace_path(name), "-o", full, "--analysis", analysis, "--force",
            "--no-progress")
    run_cli("build", trace_path(name), "-o", part, "--analysis", analysis, "--force",
            "--no-progress", "--partial", every)
    return full, part


@pytest.mark.parametrize("name,analysis,every", [
    ("many-threads", "kernel", 2000),
    ("bug446190", "stats", 5000),
    ("bug446190", RULES, 3000),
])
def test_partial_answers_as_full(scratch, name, analysis, every):
    full, part = build_pair(scratch, name, analysis, every)
    given = analysis if analysis.endswith(".xml") else None
    with sht.open(full) as f, sht.open(part, trace=trace_path(name), analysis=given) as p:
        assert (p.start, p.end, p.attribute_count, p.provider) == \
            (f.start, f.end, f.attribute_count, f.provider)
        assert p.attributes() == f.attributes()
        rnd = random.Random(7)
        times = [f.start, f.end] + [rnd.randint(f.start, f.end) for _ in range(25)]
        for t in times:
            assert p.query(t) == f.query(t), "full query at %d" % t
        quarks = f.quarks()
        for _ in range(20):
            q = rnd.choice(quarks)
            t1 = rnd.randint(f.start, f.end)
            t2 = rnd.randint(t1, f.end)
            assert p.history(q, t1, t2) == f.history(q, t1, t2), (q, t1, t2)
        t1 = rnd.randint(f.start, f.end)
        t2 = min(f.end, t1 + (f.end - f.start) // 5)
        assert list(p.intervals(None, t1, t2)) == list(f.intervals(None, t1, t2))
        r = (f.end - f.start) // 500 or 1
        assert list(p.intervals(None, f.start, f.end, r)) == \
            list(f.intervals(None, f.start, f.end, r))


def test_partial_from_threads(scratch):
    """Threads querying one partial history take turns (the GIL is kept
    during a replay) and get the full history's answers."""
    full, part = build_pair(scratch, "many-threads", "kernel", 2000)
    f = sht.open(full)
    p = sht.open(part, trace=trace_path("many-threads"))
    rnd = random.Random(3)
    times = [rnd.randint(f.start, f.end) for _ in range(40)]
    want = [f.query(t) for t in times]
    got = [None] * len(times)

    def work(k):
        for i in range(k, len(times), 4):
            got[i] = p.query(times[i])
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == want
    p.close()
    f.close()


def test_partial_needs_its_trace_and_analysis(scratch):
    full, part = build_pair(scratch, "bug446190", RULES, 3000)
    with pytest.raises(sht.InvalidError, match="trace="):
        sht.open(part)
    # Built from a rules file: its provider is not one sht knows by name.
    with pytest.raises(sht.InvalidError, match="analysis="):
        sht.open(part, trace=trace_path("bug446190"))
    with pytest.raises(sht.InvalidError, match="built by provider"):
        sht.open(part, trace=trace_path("bug446190"), analysis="stats")

    class Mine(sht.Provider):
        def on_event(self, event, state):
            pass
    with pytest.raises(sht.InvalidError, match="Python provider"):
        sht.open(part, trace=trace_path("bug446190"), analysis=Mine())
    with pytest.raises(OSError):
        sht.open(part, trace=os.path.join(scratch, "no-such-trace"), analysis=RULES)


def test_partial_on_a_synchronized_clock(scratch):
    """Histories built on an experiment's corrected clock (sht build
    --sync) replay their trace through its transform."""
    src, dst = trace_path("scp_src"), trace_path("scp_dest")
    full, part = os.path.join(scratch, "sync-full"), os.path.join(scratch, "sync-partial")
    run_cli("build", "--sync", src, dst, "-o", full, "--force", "--no-progress")
    run_cli("build", "--sync", src, dst, "-o", part, "--force", "--no-progress",
            "--partial", 5000)
    for name, trace in (("scp_src", src), ("scp_dest", dst)):
        with sht.open(os.path.join(full, name + ".sht")) as f, \
                sht.open(os.path.join(part, name + ".sht"), trace=trace) as p:
            rnd = random.Random(5)
            for t in [f.start, f.end] + [rnd.randint(f.start, f.end) for _ in range(15)]:
                assert p.query(t) == f.query(t), "%s: full query at %d" % (name, t)
    with pytest.raises(sht.InvalidError, match="not one of them"):
        sht.open(os.path.join(part, "scp_src.sht"), trace=trace_path("bug446190"))
