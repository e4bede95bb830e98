"""Every entry point of the Python package, in a loop: for the leak
checks (test_leaks.py measures the memory it keeps; leaks.sh runs it
under valgrind).  exercise(rounds, scratch, history, trace)."""

import os

import sht


class _Prov(sht.Provider):
    id = "exercise"

    def setup(self, state):
        self.q = state.quark(("CPUs", "x"))

    def on_sched_switch(self, ev, st):
        st.modify(ev.ts, self.q, ev["next_comm"])
        ev.fields()
        ev.get("nope")

    def on_sched_wakeup(self, ev, st):
        raise sht.NoattrError("skipped")      # skips the event


class _Boom(sht.Provider):
    id = "boom"

    def on_sched_switch(self, ev, st):
        raise ValueError("stop")


def exercise(rounds, scratch, history, trace):
    out = os.path.join(scratch, "exercise.sht")
    for i in range(rounds):
        with sht.open(history) as h:
            t = h.start + (h.end - h.start) // 2
            h.query(t)
            h.query(t, ["CPUs/*/Current_thread", 0])
            h.history("CPUs/0/Current_thread", resolution=1000)
            iv = h.intervals(["Threads/*/Exec_name", "CPUs/*"], t, t + 10_000_000)
            iv.to_pandas()
            iv.to_numpy()
            list(iv)
            h.attributes("Threads/1*")
            h.info
            for bad in (lambda: h.query(h.start - 1), lambda: h.quark("no/such"),
                        lambda: h.intervals({"x": 1})):
                try:
                    bad()
                except (sht.Error, TypeError):
                    pass
        st = sht.create(out, 0)
        q = st.quark("a/b")
        st.modify(1, q, "text")
        st.push(2, st.quark("s"), 5)
        st.pop(3, st.quark("s"))
        try:
            st.modify(4, q, 5)
        except sht.TypeError:
            pass
        st.finish(10)
        st.close()
        if i % 10 == 0:
            sht.build(trace, analysis=_Prov(), output=out, force=True, progress=lambda p: None,
                      progress_every=1000)
            sht.build(trace, analysis="stats", output=out, force=True)
            try:
                sht.build(trace, analysis=_Boom(), output=out, force=True)
            except ValueError:
                pass
            try:
                sht.open(os.path.join(scratch, "no-such.sht"))
            except sht.IoError:
                pass


if __name__ == "__main__":
    import sys
    exercise(int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4])
