"""Errors: one exception class per sht error code, sht's message, errno;
bad files refused with the right class, never a crash."""

import errno
import os
import shutil

import pytest

import sht
from conftest import run_cli, trace_path


def test_one_class_per_code():
    codes = {}
    for name, cls in sht.errors.items():
        assert issubclass(cls, sht.Error) and cls.name == name
        assert sht._core.err_name(cls.code) == name
        codes[cls.code] = cls
    # Every code libsht names, none more.
    assert sorted(codes) == [c for c in range(-len(codes), 0)]
    assert sht._core.err_name(-len(codes) - 1) == "SHT_ERR_UNKNOWN"
    assert issubclass(sht.IoError, OSError) and issubclass(sht.NoattrError, KeyError)
    assert issubclass(sht.TypeError, TypeError) and issubclass(sht.InvalidError, ValueError)
    assert sht.CorruptError.__name__ == "CorruptError" and sht.errors["SHT_ERR_CORRUPT"] is sht.CorruptError


def test_missing_and_unreadable(scratch):
    with pytest.raises(sht.IoError) as e:
        sht.open(os.path.join(scratch, "nope.sht"))
    assert e.value.errno == errno.ENOENT and e.value.code == sht.IoError.code
    assert "nope.sht" in str(e.value)
    with pytest.raises(sht.Error):
        sht.open(scratch)              # a directory


def test_damaged_files(scratch, cli_history):
    good = cli_history("bug446190")
    data = open(good, "rb").read()
    junk = os.path.join(scratch, "junk.sht")
    with open(junk, "wb") as f:
        f.write(bytes(range(256)) * 64)
    with pytest.raises(sht.CorruptError):
        sht.open(junk)
    cut = os.path.join(scratch, "cut.sht")
    with open(cut, "wb") as f:
        f.write(data[: len(data) // 2])
    with pytest.raises(sht.Error):
        with sht.open(cut) as h:
            h.intervals()
    flipped = os.path.join(scratch, "flipped.sht")
    b = bytearray(data)
    for i in range(9000, len(b), 1000):
        b[i] ^= 0x5A
    with open(flipped, "wb") as f:
        f.write(b)
    with pytest.raises(sht.CorruptError):
        with sht.open(flipped) as h:
            h.intervals()
            for q in h.quarks():
                h.history(q)


def test_partial_history_needs_its_trace(scratch):
    out = os.path.join(scratch, "partial.sht")
    run_cli("build", trace_path("bug446190"), "--partial", 5000, "-o", out, "--no-progress")
    with pytest.raises(sht.InvalidError, match="partial history.*trace="):
        sht.open(out)


def test_a_file_being_replaced(scratch, cli_history):
    """An opened history keeps answering from the file it opened."""
    path = os.path.join(scratch, "replaced.sht")
    shutil.copy(cli_history("bug446190"), path)
    h = sht.open(path)
    before = h.query(h.end)
    shutil.copy(cli_history("stub"), path + ".new")
    os.replace(path + ".new", path)
    assert h.query(h.end) == before
    assert sht.open(path).attribute_count != h.attribute_count
