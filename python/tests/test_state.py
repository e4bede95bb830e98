"""sht.create and the state system's operations from Python, against a
model of the rules in Python; values of every type; errors."""

import os
import random

import pytest

import sht


class Model:
    """The state system's rules (docs/LIBRARY.md): a change at t ends the
    ongoing interval at t - 1, the same value extends it, several changes
    at one timestamp keep the last, a new attribute is null from the
    start, finish ends everything."""

    def __init__(self, start):
        self.start = start
        self.cur = {}        # path -> (since, value, type)
        self.done = {}       # path -> [(start, end, type, value)]

    def modify(self, t, path, value, typ):
        since, old, otyp = self.cur.get(path, (self.start, None, "null"))
        if (old, otyp) == (value, typ):
            return
        if since < t:
            self.done.setdefault(path, []).append((since, t - 1, otyp, old))
            self.cur[path] = (t, value, typ)
        else:
            self.cur[path] = (since, value, typ)

    def finish(self, end):
        for path, (since, v, typ) in self.cur.items():
            self.done.setdefault(path, []).append((since, end, typ, v))


def type_of(v):
    if v is None:
        return "null"
    if isinstance(v, sht.Long):
        return "long"
    if isinstance(v, int):
        return "int" if -2 ** 31 <= v < 2 ** 31 else "long"
    return "double" if isinstance(v, float) else "string"


def test_random_history_against_model(scratch):
    rnd = random.Random(3)
    start = 1_700_000_000_000_000_000
    path = os.path.join(scratch, "model.sht")
    st = sht.create(path, start, provider="model", version=7, block_size=4096)
    model = Model(start)
    kinds = {}
    names = ["a/%d" % i for i in range(30)] + ["b/x/%d" % i for i in range(10)]
    t = start
    for _ in range(20000):
        t += rnd.choice([0, 0, 1, 5, 1000])
        p = rnd.choice(names)
        kind = kinds.setdefault(p, rnd.choice(["int", "long", "double", "string"]))
        v = rnd.choice([None, rnd.randint(-3, 3)])
        if v is not None:
            v = {"int": v, "long": sht.Long(v * 10 ** 12), "double": v / 3,
                 "string": "s%d\u00e9" % v}[kind]
        st.modify(t, st.quark(p), v)
        model.modify(t, p, v, type_of(v))
    st.finish(t + 3)
    st.close()
    model.finish(t + 3)
    h = sht.open(path)
    assert h.provider == ("model", 7) and (h.start, h.end) == (start, t + 3)
    for p in names:
        got = [(iv.start, iv.end, iv.type, iv.value) for iv in h.history(p)]
        assert got == model.done[p], p


def test_operations(scratch):
    path = os.path.join(scratch, "ops.sht")
    with sht.create(path, 100) as st:
        stack = st.quark("Stack")
        ctr = st.quark(("Counters", "with/slash"))       # a name holding "/"
        big = st.quark("Big")
        st.push(110, stack, "f")
        st.increment(110, ctr)
        st.push(120, stack, "g")
        assert st.pop(130, stack) == "g"
        st.increment(140, ctr, 41)
        st.modify(150, big, 2 ** 40)
        st.modify(160, big, sht.Long(3))
        st.update_ongoing(big, sht.Long(4))
        assert st.ongoing(big) == 4 and st.ongoing(ctr) == 42
        assert st.quark("Nope", create=False) is None
        assert st.child(None, "Stack") == stack and st.path(ctr) == "Counters/with/slash"
        assert st.attribute_count == 6 and st.start == 100
        st.clear(170, st.quark("Counters"))
        with pytest.raises(sht.OrderError):
            st.modify(165, big, 1)
        with pytest.raises(sht.TypeError) as e:
            st.modify(180, big, "text")
        assert isinstance(e.value, TypeError)
        with pytest.raises(sht.RangeError):
            st.modify(50, big, 1)
        with pytest.raises(TypeError):
            st.modify(180, big, [1])
        with pytest.raises(OverflowError):
            st.modify(180, big, 2 ** 64)
        st.finish(200)
        with pytest.raises(sht.StateError):
            st.modify(300, big, 1)
    h = sht.open(path)
    assert [(iv.start, iv.value) for iv in h.history("Stack")] == [(100, None), (110, 1), (120, 2), (130, 1)]
    assert h.query(125, "Stack/2").value == "g"
    q = h.quarks(["Counters/*"])[0]
    assert [(iv.start, iv.end, iv.value) for iv in h.history(q)] == \
        [(100, 109, None), (110, 139, 1), (140, 169, 42), (170, 200, None)]
    assert [(iv.type, iv.value) for iv in h.history("Big")] == \
        [("null", None), ("long", 2 ** 40), ("long", 4)]
    df = h.intervals("Big").to_pandas()
    assert list(df["value"].astype(object)[1:]) == [2 ** 40, 4]


def test_values_keep_their_types(scratch):
    path = os.path.join(scratch, "types.sht")
    st = sht.create(path, 0)
    values = {"i": -7, "l": sht.Long(-7), "d": 0.1, "s": "a\x00b\u20ac", "n": None,
              "max": 2 ** 63 - 1, "min": -2 ** 63}
    for name, v in values.items():
        st.modify(5, st.quark(name), v)
    st.finish(10)
    st.close()
    h = sht.open(path)
    for name, v in values.items():
        iv = h.query(7, name)
        assert iv.value == v and type(iv.value) is (type(v) if type(v) is not sht.Long else int)
    assert h.query(7, "i").type == "int" and h.query(7, "l").type == "long"
    mixed = h.intervals(list(values), 5, 10).to_pandas()
    assert dict(zip(mixed["path"].astype(str), mixed["value"])) == values


def test_create_errors(scratch):
    with pytest.raises(sht.IoError):
        sht.create(os.path.join(scratch, "no", "such", "dir.sht"), 0)
    with pytest.raises(sht.InvalidError):
        sht.create(os.path.join(scratch, "bad-block.sht"), 0, block_size=1000)
    st = sht.create(os.path.join(scratch, "unfinished.sht"), 0)
    st.modify(1, st.quark("a"), 1)
    st.close()
    with pytest.raises(sht.IncompleteError):
        sht.open(os.path.join(scratch, "unfinished.sht"))
