"""Fixtures of the Python package's tests (run by ctest as python/pytest,
or by hand: PYTHONPATH=build/release/python SHT=build/release/sht
python3 -m pytest python/tests).

Environment: SHT, the sht tool (histories built by the CLI are the
reference); SHT_SHARED, the folder holding traces/ (default ../shared);
SHT_TMP, a scratch directory (default: pytest's).
"""

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.environ.get("SHT_SRCDIR", os.path.normpath(os.path.join(HERE, "..", "..")))
sys.path.insert(0, os.path.join(SRCDIR, "examples", "python"))

TRACES = os.path.join(os.environ.get("SHT_SHARED", os.path.join(SRCDIR, "..", "shared")),
                      "traces")
# The real traces the tests use, by short name.
REAL = {
    "many-threads": "many-threads",
    "bug446190": "bug446190",
    "scp_src": "synctraces/scp_src",
    "scp_dest": "synctraces/scp_dest",
    "stub": "xml-stub-kernel-analysis",
}


def sht_tool():
    tool = os.environ.get("SHT")
    if not tool or not os.access(tool, os.X_OK):
        pytest.fail("SHT must name the sht tool (the CLI is the reference)")
    return tool


def run_cli(*args, check=True):
    """Run the sht tool; its stdout (JSON parsed when --json is given)."""
    p = subprocess.run([sht_tool(), *map(str, args)], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError("sht %s: %s" % (" ".join(map(str, args)), p.stderr))
    return json.loads(p.stdout) if "--json" in args else p


def trace_path(name):
    path = os.path.join(TRACES, REAL[name])
    if not os.path.isdir(path):
        pytest.fail("the real trace %s is missing (SHT_SHARED)" % path)
    return path


@pytest.fixture(scope="session")
def scratch(tmp_path_factory):
    base = os.environ.get("SHT_TMP")
    if base:
        os.makedirs(base, exist_ok=True)
        return base
    return str(tmp_path_factory.mktemp("sht"))


@pytest.fixture(scope="session")
def cli_history(scratch):
    """cli_history(name): the kernel history of a real trace, built once
    by `sht build`."""
    built = {}

    def get(name):
        if name not in built:
            out = os.path.join(scratch, "cli-%s.sht" % name)
            run_cli("build", trace_path(name), "-o", out, "--no-progress", "--force")
            built[name] = out
        return built[name]
    return get
