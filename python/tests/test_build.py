"""sht.build: the same files as `sht build`, progress, reuse, failures."""

import os

import pytest

import sht
from conftest import SRCDIR, run_cli, trace_path


def same_history(a, b):
    """The same history but for the tool that built it: equal build notes
    (the "tool" note aside), model, attribute tree and full queries at
    start, end and 30 times between."""
    da, db = run_cli("describe", a, "--json"), run_cli("describe", b, "--json")
    assert da["notes"].pop("tool").startswith("sht Python package")
    assert db["notes"].pop("tool").startswith("sht ")
    for d in (da, db):
        d.pop("file")
    assert da == db
    assert run_cli("tree", a, "--json") == run_cli("tree", b, "--json")
    start, end = da["start"], da["end"]
    for k in range(32):
        t = start + (end - start) * k // 31
        assert run_cli("query", a, "--at", t, "--json") == \
            run_cli("query", b, "--at", t, "--json"), "full query at %d" % t
    return True


@pytest.mark.parametrize("name,analysis", [
    ("many-threads", "kernel"),
    ("bug446190", "kernel"),
    ("scp_src", "kernel"),
    ("bug446190", "stats"),
    ("bug446190", os.path.join(SRCDIR, "examples", "rules", "kernel-core.xml")),
    ("bug446190", os.path.join(SRCDIR, "examples", "rules", "kernel-core.rules")),
])
def test_same_file_as_cli(scratch, name, analysis):
    tag = os.path.basename(analysis)
    mine = os.path.join(scratch, "py-%s-%s.sht" % (name, tag))
    cli = os.path.join(scratch, "cli-%s-%s.sht" % (name, tag))
    r = sht.build(trace_path(name), analysis=analysis, output=mine, force=True)
    run_cli("build", trace_path(name), "-o", cli, "--analysis", analysis, "--force",
            "--no-progress")
    assert not r.reused and r.events > 0 and r.path == mine
    assert same_history(mine, cli), "sht.build and sht build differ"
    info = run_cli("info", cli, "--json")
    assert (r.intervals, r.attributes, r.start, r.end) == \
        (info["intervals"], info["attributes"], info["start"], info["end"])
    assert (r.provider, r.provider_version) == (info["provider"], info["provider_version"])


def test_vstf_trace(scratch):
    vstf = os.path.join(scratch, "bug.vstf")
    run_cli("convert", trace_path("bug446190"), "-o", vstf)
    out = os.path.join(scratch, "bug-vstf.sht")
    seen = []
    r = sht.build(vstf, output=out, force=True, progress=seen.append, progress_every=5000)
    ref = sht.build(trace_path("bug446190"), output=os.path.join(scratch, "bug-ctf.sht"),
                    force=True)
    assert (r.events, r.intervals, r.attributes) == (ref.events, ref.intervals, ref.attributes)
    # A VSTF file knows its event count: the fraction is exact.
    assert [p.events for p in seen] == list(range(5000, r.events, 5000)) + [r.events]
    assert seen[0].fraction == pytest.approx(5000 / r.events)
    assert seen[-1].fraction == 1.0


def test_progress_and_default_output(scratch, monkeypatch):
    monkeypatch.chdir(scratch)
    seen = []
    r = sht.build(trace_path("bug446190"), progress=seen.append, progress_every=4096,
                  force=True)
    assert r.path == "bug446190.sht" and os.path.exists(os.path.join(scratch, r.path))
    assert [p.events for p in seen][:-1] == list(range(4096, r.events, 4096))
    assert seen[-1].events == r.events and seen[-1].fraction == 1.0
    times = [p.time for p in seen]
    assert times == sorted(times) and times[-1] == r.end
    assert all(p.fraction is None or 0 <= p.fraction <= 1 for p in seen)


def test_reuse_and_force(scratch):
    out = os.path.join(scratch, "reuse.sht")
    first = sht.build(trace_path("stub"), output=out, force=True)
    again = sht.build(trace_path("stub"), output=out)
    assert not first.reused and again.reused
    assert (again.intervals, again.start, again.end, again.attributes) == \
        (first.intervals, first.start, first.end, first.attributes)
    other = sht.build(trace_path("stub"), output=out, analysis="stats")
    assert not other.reused and other.provider == "event-statistics"
    forced = sht.build(trace_path("stub"), output=out, analysis="stats", force=True)
    assert not forced.reused


def test_progress_exception_stops_the_build(scratch):
    out = os.path.join(scratch, "stopped.sht")

    class Stop(Exception):
        pass

    def progress(p):
        if p.events >= 10000:
            raise Stop("enough")

    with pytest.raises(Stop):
        sht.build(trace_path("bug446190"), output=out, progress=progress,
                  progress_every=1000, force=True)
    assert not os.path.exists(out)
    assert not [f for f in os.listdir(scratch) if f.startswith("stopped.sht.tmp")]


def test_a_failed_build_keeps_the_old_file(scratch):
    out = os.path.join(scratch, "keep.sht")
    sht.build(trace_path("stub"), output=out, force=True)
    before = open(out, "rb").read()
    with pytest.raises(RuntimeError):
        sht.build(trace_path("bug446190"), output=out, force=True,
                  progress=lambda p: (_ for _ in ()).throw(RuntimeError("no")),
                  progress_every=100)
    assert open(out, "rb").read() == before


def test_bad_input(scratch):
    with pytest.raises(sht.IoError) as e:
        sht.build(os.path.join(scratch, "no-such-trace"), output=os.path.join(scratch, "x.sht"))
    assert isinstance(e.value, OSError) and e.value.errno == 2
    empty = os.path.join(scratch, "empty-dir")
    os.makedirs(empty, exist_ok=True)
    with pytest.raises(sht.Error) as e:
        sht.build(empty, output=os.path.join(scratch, "x.sht"))
    assert "empty-dir" in str(e.value)
    junk = os.path.join(scratch, "junk.vstf")
    with open(junk, "wb") as f:
        f.write(b"\x00not a trace" * 100)
    with pytest.raises(sht.Error):
        sht.build(junk, output=os.path.join(scratch, "x.sht"))
    with pytest.raises(ValueError):
        sht.build(trace_path("stub"), analysis="nonsense", output=os.path.join(scratch, "x.sht"))
    bad_rules = os.path.join(scratch, "bad.rules")
    with open(bad_rules, "w") as f:
        f.write("provider p 1\non x\n  A = \nend\n")
    with pytest.raises(sht.InvalidError) as e:
        sht.build(trace_path("stub"), analysis=bad_rules, output=os.path.join(scratch, "x.sht"))
    assert "bad.rules:3" in str(e.value)
    with pytest.raises(TypeError):
        sht.build(trace_path("stub"), progress=42)
    assert not os.path.exists(os.path.join(scratch, "x.sht"))


def test_jobs(scratch):
    """A CTF trace decoded on the calling thread, on one thread and on
    three gives the same file; jobs out of range is refused."""
    files = []
    for jobs in (0, 1, 3, -1):
        out = os.path.join(scratch, "mt-jobs%d.sht" % jobs)
        r = sht.build(trace_path("many-threads"), output=out, force=True, jobs=jobs)
        assert r.events > 0 and not r.reused
        # -1: one per online CPU, as `sht build` (the reader may use fewer
        # threads than asked when the trace has fewer streams).
        want = os.cpu_count() if jobs < 0 else jobs
        assert 0 < r.decoding_threads <= want if want else r.decoding_threads == 0
        files.append(out)
    with open(files[0], "rb") as f:
        ref = f.read()
    for other in files[1:]:
        with open(other, "rb") as f:
            assert f.read() == ref, "%s differs from %s" % (other, files[0])
    for bad in (-2, 257):
        with pytest.raises(ValueError, match="jobs"):
            sht.build(trace_path("many-threads"), output=os.path.join(scratch, "x.sht"),
                      force=True, jobs=bad)
    assert not os.path.exists(os.path.join(scratch, "x.sht"))
