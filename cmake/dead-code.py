#!/usr/bin/env python3
"""dead-code.py BUILD_DIR ALLOW_LIST [CC]: fail on any function of ours
that nothing calls (CTest "dead-code", Release trees).

Every C file of the build (compile_commands.json) is compiled again into
BUILD_DIR/dead-code/, at -O0 with one section per function
(-ffunction-sections), and the linker's garbage collector says which
sections nothing reaches (--gc-sections --print-gc-sections):

  libraries  the objects of every target without a main() (libsht,
             shtgen, the test and benchmark support libraries, ...),
             linked together into one shared object whose roots are the
             public API (what libsht.so exports), every symbol a program
             of the build refers to, and the __wrap_ functions the
             linker's --wrap calls;
  programs   each program's own objects, rooted at main() (or a fuzz
             target's LLVMFuzzerTestOneInput) and its __wrap_ functions.

A function the collector removes is dead: called by nobody, or only by
dead functions.  (An unused static function is a compiler warning
already; this finds the global ones, and the static ones that only dead
code calls.)  The allow-list names the rare function kept on purpose,
one "function  # why" per line; an entry that is no longer dead fails
too, so the list stays true.  Exit status 0: none; 1: dead functions
(listed with their source file); 2: the check could not run.
"""
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys


def fail(msg):
    print("dead-code: " + msg, file=sys.stderr)
    sys.exit(2)


def run(argv, cwd=None):
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def compile_all(build, out):
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    jobs = []
    for e in entries:
        args = e.get("arguments") or shlex.split(e["command"])
        if "-o" not in args:
            continue
        i = args.index("-o")
        target = re.search(r"CMakeFiles/([^/]+)\.dir/", args[i + 1])
        if not target or target.group(1).endswith("_dc"):
            continue
        obj = os.path.join(out, target.group(1),
                           re.sub(r"[^A-Za-z0-9_.-]", "_", args[i + 1]))
        args = args[:i + 1] + [obj] + args[i + 2:]
        keep = [a for a in args if not re.match(r"-O[0-9sgz]?$|-Werror", a)]
        keep += ["-O0", "-w", "-fPIC", "-ffunction-sections",
                 "-fdata-sections"]
        jobs.append((target.group(1), obj, e["file"], keep, e["directory"]))
    for t in {j[0] for j in jobs}:
        os.makedirs(os.path.join(out, t), exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        results = list(ex.map(lambda j: run(j[3], cwd=j[4]), jobs))
    for j, (rc, text) in zip(jobs, results):
        if rc != 0:
            fail(f"cannot compile {j[2]}:\n{text}")
    return jobs


def symbols(nm, objs, kind):
    """Defined (kind 'def': functions and data) or undefined ('und')
    global symbols of objs."""
    rc, text = run([nm, "--defined-only" if kind == "def" else "-u"] + objs)
    if rc != 0:
        fail(f"{nm} failed:\n{text}")
    names = set()
    for line in text.splitlines():
        f = line.split()
        if kind == "und" and len(f) == 2 and f[0] == "U":
            names.add(f[1])
        elif kind == "def" and len(f) == 3 and f[1].isupper() and \
                f[1] not in "UA":
            names.add(f[2])
    return names


# GNU ld: removing unused section '.text.f' in file 'x.o'
# lld:    removing unused section x.o:(.text.f)
GC = re.compile(r"removing unused section (?:'(?P<s1>[^']+)' in file "
                r"'(?P<f1>[^']+)'|(?P<f2>\S+?):\((?P<s2>[^)]+)\))")


def collect(cc, objs, roots, so):
    argv = [cc, "-shared", "-o", so] + objs + [
        "-Wl,--gc-sections", "-Wl,--print-gc-sections"]
    argv += [f"-Wl,--undefined={r}" for r in sorted(roots)]
    rc, text = run(argv)
    if rc != 0:
        fail(f"the link failed:\n{text}")
    dead = []
    for m in GC.finditer(text):
        sec = m.group("s1") or m.group("s2")
        obj = m.group("f1") or m.group("f2")
        name = re.sub(r"^\.text\.((unlikely|startup|hot|exit)\.)?", "", sec)
        if sec.startswith(".text.") and name:
            dead.append((name, obj))
    return dead


def main():
    if len(sys.argv) < 3:
        fail("usage: dead-code.py BUILD_DIR ALLOW_LIST [CC]")
    build, allow_path = os.path.abspath(sys.argv[1]), sys.argv[2]
    cc = sys.argv[3] if len(sys.argv) > 3 else os.environ.get("CC", "cc")
    nm = os.environ.get("NM", "nm")
    out = os.path.join(build, "dead-code")
    jobs = compile_all(build, out)
    source = {j[1]: j[2] for j in jobs}
    by_target = {}
    for t, obj, *_ in jobs:
        by_target.setdefault(t, []).append(obj)

    programs, libraries = {}, []
    for t, objs in sorted(by_target.items()):
        defs = symbols(nm, objs, "def")
        if "main" in defs or "LLVMFuzzerTestOneInput" in defs:
            programs[t] = objs
        else:
            libraries += objs
    if not programs or not libraries:
        fail("no programs or no libraries in compile_commands.json")

    roots = set()
    for objs in programs.values():
        roots |= symbols(nm, objs, "und")
    lib_defs = symbols(nm, libraries, "def")
    roots |= {s for s in lib_defs if s.startswith("__wrap_")}
    for name in os.listdir(build):
        if re.match(r"libsht\.so(\.\d+)*$", name):
            rc, text = run([nm, "-D", "--defined-only",
                            os.path.join(build, name)])
            roots |= {f[-1] for f in map(str.split, text.splitlines())
                      if len(f) >= 2}
            break
    else:
        fail(f"no libsht.so in {build} (build it first)")

    dead = collect(cc, libraries, roots & lib_defs,
                   os.path.join(out, "libraries.so"))
    # A file compiled into several programs (a CLI module that a unit
    # test checks too) is dead code only where every one of them leaves
    # it: a function one of them does not call may be another's.
    users = {}
    for t, obj, src, *_ in jobs:
        users.setdefault(src, set()).add(t)
    shared = {}
    for t, objs in programs.items():
        entry = {s for s in symbols(nm, objs, "def")
                 if s in ("main", "LLVMFuzzerTestOneInput") or
                 s.startswith("__wrap_")}
        for n, o in collect(cc, objs, entry, os.path.join(out, t + ".so")):
            src = source[o]
            if len(users[src]) == 1:
                dead.append((n, o))
            else:
                shared.setdefault((src, n), set()).add(t)
    for (src, n), ts in sorted(shared.items()):
        if ts == users[src]:
            dead.append((n, src))

    allowed = {}
    with open(allow_path) as f:
        for line in f:
            name = line.split("#", 1)[0].strip()
            if name:
                allowed[name] = line.strip()
    found = {n for n, _ in dead}
    bad = sorted(set((n, source.get(o, o)) for n, o in dead
                     if n not in allowed))
    stale = sorted(n for n in allowed if n not in found)
    top = os.environ.get("SHT_SRCDIR", os.getcwd())
    for n, src in bad:
        print(f"dead-code: {n} ({os.path.relpath(src, top)}) is called by "
              "nothing")
    for n in stale:
        print(f"dead-code: {n} is in {allow_path} but no longer dead: "
              "remove the line")
    print(f"dead-code: {len(jobs)} files, {len(programs)} programs, "
          f"{len(roots & lib_defs)} library roots; {len(bad)} dead, "
          f"{len(found & set(allowed))} allowed, {len(stale)} stale")
    return 1 if bad or stale else 0


if __name__ == "__main__":
    sys.exit(main())
