"""Queries of histories built by the CLI: every answer equals what the
sht tool prints for the same file (sht query, sht history, sht tree,
sht info), on the real traces."""

import random

import pytest

import sht
from conftest import run_cli


def as_cli(iv):
    """An Interval as the CLI's JSON prints it."""
    d = {"quark": iv.quark, "path": iv.path, "start": iv.start, "end": iv.end,
         "type": iv.type, "value": iv.value}
    if iv.label is not None:
        d["label"] = iv.label
    return d


def sample_times(h, n, seed):
    rnd = random.Random(seed)
    return [h.start, h.end] + [rnd.randint(h.start, h.end) for _ in range(n)]


@pytest.mark.parametrize("name", ["many-threads", "bug446190", "scp_src", "stub"])
def test_full_query_equals_cli(cli_history, name):
    path = cli_history(name)
    with sht.open(path) as h:
        for t in sample_times(h, 3, name):
            want = run_cli("query", path, "--at", t, "--json")
            got = [as_cli(iv) for iv in h.query(t)]
            assert got == want, "full query at %d" % t


def by_path(h, quarks):
    """The quarks whose path names them (a name holding "/", as IRQ
    names do, cannot be looked up by a path string)."""
    out = []
    for q in quarks:
        try:
            if h.quark(h.path(q)) == q:
                out.append(q)
        except KeyError:
            pass
    return out


@pytest.mark.parametrize("name", ["many-threads", "bug446190"])
def test_single_queries_equal_cli(cli_history, name):
    path = cli_history(name)
    rnd = random.Random(7)
    with sht.open(path) as h:
        quarks = rnd.sample(h.quarks(), 20) + h.quarks("IRQs/*")[:2]
        named = by_path(h, quarks)
        assert len(named) >= 15
        for t in sample_times(h, 4, 3):
            args = ["query", path, "--at", t, "--json"]
            for q in quarks:
                args += ["--quark", q]
            want = run_cli(*args)
            assert [as_cli(iv) for iv in h.query(t, quarks)] == want
            assert as_cli(h.query(t, quarks[0])) == want[0]
            byq = dict(zip(quarks, want))
            assert [as_cli(iv) for iv in h.query(t, [h.path(q) for q in named])] == \
                [byq[q] for q in named]


@pytest.mark.parametrize("name", ["many-threads", "bug446190", "scp_src"])
def test_history_equals_cli(cli_history, name):
    path = cli_history(name)
    rnd = random.Random(11)
    with sht.open(path) as h:
        span = h.end - h.start
        cpus = h.attributes("CPUs/*/Current_thread")
        cases = [(cpus[0], None, None, None), (cpus[-1], None, None, span // 1920)]
        for p in rnd.sample(h.attributes("Threads/*"), 5):
            t1 = rnd.randint(h.start, h.end)
            cases.append((p, t1, rnd.randint(t1, h.end), rnd.choice([None, 1, 1000, span // 100])))
        for p, t1, t2, r in cases:
            args = ["history", path, "--attribute", p, "--json"]
            if t1 is not None:
                args += ["--from", t1, "--to", t2]
            if r:
                args += ["--resolution", r]
            want = run_cli(*args)
            got = [as_cli(iv) for iv in h.history(p, t1, t2, resolution=r)]
            assert got == want, (p, t1, t2, r)


def test_tree_and_info_equal_cli(cli_history):
    path = cli_history("many-threads")
    tree = run_cli("tree", path, "--json")
    info = run_cli("info", path, "--json")
    with sht.open(path) as h:
        assert h.attribute_count == len(tree) == info["attributes"]
        assert sorted((a["quark"], a["path"], a["parent"]) for a in tree) == \
            [(q, h.path(q), h.parent(q)) for q in h.quarks()]
        assert h.start == info["start"] and h.end == info["end"]
        assert h.provider == (info["provider"], info["provider_version"])
        for key in ("variant", "block_size", "depth", "nodes", "intervals", "file_bytes"):
            assert h.info[key] == info[key]
        pattern = run_cli("tree", path, "--pattern", "Threads/*/Exec_name", "--json")
        assert h.attributes("Threads/*/Exec_name") == [a["path"] for a in pattern]
        top = [h.path(q) for q in h.children()]
        assert top == [a["path"] for a in tree if a["parent"] is None]


def test_patterns(cli_history):
    with sht.open(cli_history("many-threads")) as h:
        cpus = h.attributes("CPUs/*/Current_thread")
        assert sorted(cpus) == ["CPUs/%d/Current_thread" % i for i in range(8)]
        assert h.attributes("CPUs/[0-3]/Current_thread") == [p for p in cpus if p[5] in "0123"]
        assert h.attributes("CPUs/?/Curr*") == cpus
        assert h.attributes("no/such/path") == []
        assert h.attributes("CPUs/0/Current_thread") == ["CPUs/0/Current_thread"]
        q = h.quark("CPUs/0/Current_thread")
        assert h.quarks([q, "CPUs/0/Current_thread"]) == [q, q]
        assert h.name(q) == "Current_thread" and h.path(h.parent(q)) == "CPUs/0"


def brute_force_2d(h, quarks, t1, t2, r):
    """The 2D query from single queries walked over each attribute."""
    t1, t2 = max(t1, h.start), min(t2, h.end)
    out = []
    for q in quarks:
        t = h.start
        while t <= h.end:
            iv = h.query(t, q)
            a, b = max(iv.start, t1), min(iv.end, t2)
            if a <= b and (not r or b == t2 or ((a - t1 + r - 1) // r) * r + t1 <= b):
                out.append(iv)
            t = iv.end + 1
    return sorted(out, key=lambda iv: (iv.start, iv.quark))


@pytest.mark.parametrize("name", ["bug446190", "many-threads"])
def test_intervals_against_brute_force(cli_history, name):
    rnd = random.Random(5)
    with sht.open(cli_history(name)) as h:
        for pattern in ["CPUs/*/Current_thread", "Threads/1*/Status", "IRQs/*",
                        "Threads/*/Exec_name"]:
            quarks = h.quarks(pattern)
            if len(quarks) > 40:
                quarks = sorted(rnd.sample(quarks, 40))
            for _ in range(3):
                t1 = rnd.randint(h.start, h.end)
                t2 = rnd.randint(t1, h.end)
                r = rnd.choice([0, 1, 997, (t2 - t1) // 50 + 1])
                got = list(h.intervals(quarks, t1, t2, resolution=r))
                assert got == brute_force_2d(h, quarks, t1, t2, r), (pattern, t1, t2, r)


def test_to_pandas_and_numpy(cli_history):
    with sht.open(cli_history("many-threads")) as h:
        t1 = h.start + (h.end - h.start) // 3
        t2 = t1 + 20_000_000
        res = h.intervals(["CPUs/*/Current_thread"], t1, t2)
        df = res.to_pandas()
        rows = list(res)
        assert len(df) == len(res) == len(rows) > 100
        assert str(df["start"].dtype) == "int64" and str(df["value"].dtype) == "Int64"
        assert list(df["start"]) == [iv.start for iv in rows]
        assert list(df["path"].astype(str)) == [iv.path for iv in rows]
        assert [None if v is None or v != v else v for v in df["value"].astype(object)] == \
            [iv.value for iv in rows]
        # Timestamps keep all their 64 bits.
        assert int(df["end"].max()) == max(iv.end for iv in rows)
        a = res.to_numpy()
        assert a["value"].dtype.name == "int64" and a["quark"].dtype.name == "uint32"
        assert a["null"].tolist() == [iv.value is None for iv in rows]
        names = h.intervals("Threads/*/Exec_name", t1, t2).to_pandas()
        assert names["value"].dtype == object
        assert set(names["type"].astype(str)) <= {"string", "null"}
        assert any(isinstance(v, str) for v in names["value"])
        empty = h.intervals("no/such/*", t1, t2)
        assert len(empty) == 0 and len(empty.to_pandas()) == 0


def test_query_errors(cli_history):
    h = sht.open(cli_history("bug446190"))
    with pytest.raises(sht.RangeError):
        h.query(h.start - 1)
    with pytest.raises(ValueError):
        h.history("CPUs/0/Current_thread", h.end + 10)
    with pytest.raises(sht.NoattrError) as e:
        h.query(h.start, "No/such/attribute")
    assert isinstance(e.value, KeyError) and e.value.name == "SHT_ERR_NOATTR"
    assert "No/such/attribute" in str(e.value)
    with pytest.raises(ValueError):
        h.path(10 ** 9)
    with pytest.raises(TypeError):
        h.query("not a time")
    with pytest.raises(TypeError):
        h.intervals({"a": 1})
    with pytest.raises(OverflowError):
        h.query(2 ** 70)
    h.close()
    assert h.closed
    with pytest.raises(sht.StateError):
        h.query(0)


def test_threads_query_one_history_at_once(cli_history):
    """2D and range queries release the GIL: threads querying one History
    together get the answers one thread gets alone."""
    import threading
    with sht.open(cli_history("many-threads")) as h:
        rnd = random.Random(9)
        jobs = []
        for _ in range(24):
            t1 = rnd.randint(h.start, h.end)
            jobs.append((rnd.choice(["CPUs/*/Current_thread", "Threads/2*", "IRQs/*"]),
                         t1, min(h.end, t1 + 50_000_000)))
        want = [list(h.intervals(a, t1, t2)) for a, t1, t2 in jobs]
        got = [None] * len(jobs)
        errors = []

        def work(k):
            try:
                for i in range(k, len(jobs), 4):
                    a, t1, t2 = jobs[i]
                    got[i] = list(h.intervals(a, t1, t2))
                    h.history("CPUs/0/Current_thread", t1, t2, resolution=1000)
            except Exception as e:          # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert not errors and got == want
