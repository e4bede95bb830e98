"""Build the Python package sht against an installed libsht:

    cmake --install build/release --prefix /usr/local
    pip install --no-build-isolation ./python

(PyPI is not needed: setuptools comes from Debian's python3-setuptools.)
libsht is found with pkg-config (PKG_CONFIG_PATH=PREFIX/lib/pkgconfig for
another prefix); the extension records libsht's directory as its run
path.  `cmake --install` builds and installs the same package by itself
when Python's headers are present (python/CMakeLists.txt).
"""

import glob
import os
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def pkgconfig(*args):
    try:
        out = subprocess.run(["pkg-config", *args, "sht"], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit("setup.py: pkg-config cannot find libsht (install it with "
                         "cmake --install and, for a prefix other than /usr/local, set "
                         "PKG_CONFIG_PATH=PREFIX/lib/pkgconfig): %s" % e)
    return out.split()


cflags = pkgconfig("--cflags")
libs = pkgconfig("--libs")
libdir = pkgconfig("--variable=libdir")

core = Extension(
    "sht._core",
    sources=sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "src", "*.c"))),
    include_dirs=[f[2:] for f in cflags if f.startswith("-I")],
    library_dirs=[f[2:] for f in libs if f.startswith("-L")],
    libraries=[f[2:] for f in libs if f.startswith("-l")],
    runtime_library_dirs=libdir,
    extra_compile_args=["-std=c11", "-D_GNU_SOURCE", "-fvisibility=hidden"]
    + [f for f in cflags if not f.startswith("-I")],
)

setup(
    name="sht",
    version=pkgconfig("--modversion")[0],
    description="State histories of traces (libsht) from Python",
    packages=["sht"],
    ext_modules=[core],
    python_requires=">=3.9",
)
