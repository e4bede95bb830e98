"""The extension keeps no memory from one call to the next: the
resident size after many rounds of every entry point (exercise.py) is
that after a few.  (valgrind checks the same for lost blocks:
leaks.sh.)"""

import gc

from conftest import trace_path
from exercise import exercise


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


def test_rss_is_flat(scratch, cli_history):
    history = cli_history("bug446190")
    trace = trace_path("stub")
    exercise(20, scratch, history, trace)       # warm: caches, imports
    gc.collect()
    before = rss_kib()
    exercise(200, scratch, history, trace)
    gc.collect()
    grown = rss_kib() - before
    assert grown < 3 * 1024, "resident size grew by %d KiB over 200 rounds" % grown
