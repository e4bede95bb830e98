#!/usr/bin/env python3
"""run-layout.py: what the node (block) size of a history costs and buys,
on one trace: the build, the file, the sampled 2D queries of the
time-graph screens, single and full point queries, and the server's
whole-trace screens (docs/PERFORMANCE.md, "Block size").

  bench/run-layout.py --vstf TRACE.vstf --out DIR [--sizes 8k,16k,32k,64k]
        [--rounds N] [--trace CTF --cache-from DIR --server-sht SHT]
        [--bin build/release] [--json FILE]
  bench/run-layout.py --quick --bin build/release

1. Builds the kernel-analysis history of TRACE.vstf once per size with
   `sht build --block-size` (BIN/sht) into DIR/hist-SIZE.sht: wall and CPU
   seconds, peak RSS, file bytes, bytes/interval, nodes, depth.
2. Then N rounds (the sizes in turn, the order reversed every other round
   so that all see the same load), each size:
   - BIN/q2d-bench HISTORY --path mapped (cases cflow, cpus, syscalls;
     10 timed calls, medians): wall and CPU ms, node visits;
   - BIN/trace-bench --open --mapped over every size's file (10 000
     single queries at random (attribute, time), 200 full queries):
     mean / p99 µs, visits, full-query ms;
   - with --trace: bench/server-bench.py --screens-only CTF in a server
     (--server-sht: a build whose cache rule accepts any block size, e.g.
     the commit before the server chose one) whose cache DIR/cache-SIZE
     holds this size's history as the kernel history of CTF (a hard
     link; the other histories hard-linked, the other files copied, from
     --cache-from, the server's cache directory of CTF).
The answers must agree: q2d-bench's hashes per case and trace-bench's
answers are compared across the sizes (exit status 1 otherwise).
Prints a table of the medians over the rounds; --json writes them and
every raw line.

--quick (CTest's bench-layout): a 200 000-event generated trace, sizes 4k
and 64k, one round, no server: the script runs and the answers agree.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def size_bytes(s):
    s = s.strip().lower()
    mult = {'k': 1024, 'm': 1024 * 1024}.get(s[-1:], 1)
    return int(s[:-1] if mult > 1 else s) * mult


def run_rusage(cmd):
    """Run cmd: (stdout, wall s, CPU s, peak RSS MiB)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit('%s: exit status %d' % (' '.join(cmd), p.returncode))
    return out, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def jsonl(out):
    return [json.loads(x) for x in out.splitlines() if x.strip().startswith('{')]


def build(a, size, path):
    out, wall, cpu, rss = run_rusage([os.path.join(a.bin, 'sht'), 'build', a.vstf, '-o', path,
                                      '--block-size', size, '--force', '--json', '--no-progress'])
    d = json.loads(out)
    info = json.loads(subprocess.run([os.path.join(a.bin, 'sht'), 'info', path, '--json'],
                                     check=True, capture_output=True, text=True).stdout)
    r = {'size': size, 'build_wall_s': wall, 'build_cpu_s': cpu, 'build_rss_mib': rss,
         'file_bytes': d['file_bytes'], 'intervals': d['intervals'], 'nodes': d['nodes'],
         'depth': d['depth'], 'bytes_per_interval': d['file_bytes'] / d['intervals'],
         'block_size': info['block_size']}
    print('# built %s: %.1f s wall, %.1f s CPU, %.0f MiB, %d bytes, %d nodes, depth %d'
          % (size, wall, cpu, rss, d['file_bytes'], d['nodes'], d['depth']), flush=True)
    return r


def make_cache(a, size, hist):
    """DIR/cache-SIZE/<CTF's cache directory>/kernel.sht = hist."""
    name = os.path.basename(os.path.normpath(a.cache_from))
    d = os.path.join(a.out, 'cache-' + size, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    os.link(hist, os.path.join(d, 'kernel.sht'))
    for f in sorted(os.listdir(a.cache_from)):
        src = os.path.join(a.cache_from, f)
        if f.startswith('kernel.sht') or not os.path.isfile(src):
            continue
        if f.endswith('.sht'):       # replaced by rename only, never written in place
            os.link(src, os.path.join(d, f))
        else:
            shutil.copy2(src, os.path.join(d, f))
    return os.path.join(a.out, 'cache-' + size)


def q2d(a, hist):
    out = subprocess.run([os.path.join(a.bin, 'q2d-bench'), hist, '--path', 'mapped'],
                         check=True, capture_output=True, text=True).stdout
    return {x['case']: x for x in jsonl(out)}


def points(a, hists):
    cmd = [os.path.join(a.bin, 'trace-bench'), '--open', '--mapped',
           '--queries', str(a.queries), '--full-queries', str(a.full_queries)] + hists
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit('trace-bench: exit status %d: %s' % (p.returncode, p.stderr))
    return p.returncode, jsonl(p.stdout)


def screens(a, size, cache, rnd):
    j = os.path.join(a.out, 'screens-%s-%d.json' % (size, rnd))
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), 'server-bench.py'),
                    '--sht', a.server_sht, '--work', os.path.join(a.out, 'sb'),
                    '--cache', cache, '--screens-only', a.trace, '--runs', str(a.runs),
                    '--json', j], check=True, stdout=subprocess.DEVNULL)
    with open(j) as f:
        return json.load(f)


def median_of(rows, key):
    v = [r[key] for r in rows if key in r]
    return statistics.median(v) if v else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--vstf')
    ap.add_argument('--out')
    ap.add_argument('--sizes', default='8k,16k,32k,64k')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--runs', type=int, default=5, help='server-bench runs per round')
    ap.add_argument('--queries', type=int, default=10000)
    ap.add_argument('--full-queries', type=int, default=200)
    ap.add_argument('--trace')
    ap.add_argument('--cache-from')
    ap.add_argument('--server-sht')
    ap.add_argument('--bin', default='build/release')
    ap.add_argument('--json')
    ap.add_argument('--keep', action='store_true', help='keep the histories and caches')
    ap.add_argument('--quick', action='store_true')
    a = ap.parse_args()
    a.bin = os.path.abspath(a.bin)
    tmp = None
    if a.quick:
        tmp = tempfile.mkdtemp(prefix='layout-', dir=os.environ.get('SHT_TMP'))
        a.out, a.vstf, a.sizes, a.rounds = tmp, os.path.join(tmp, 'k.vstf'), '4k,64k', 1
        a.queries, a.full_queries, a.trace = 2000, 20, None
        subprocess.run([os.path.join(a.bin, 'sht'), 'gen', 'kernel', '--no-progress',
                        '--events', '200000', '-o', a.vstf], check=True, stdout=subprocess.DEVNULL)
    if not a.vstf or not a.out:
        ap.error('--vstf and --out are needed (or --quick)')
    if a.trace and not (a.cache_from and a.server_sht):
        ap.error('--trace needs --cache-from and --server-sht')
    os.makedirs(a.out, exist_ok=True)
    sizes = a.sizes.split(',')
    load = os.getloadavg()
    print('# machine: %d CPUs, load %.1f %.1f %.1f' % (os.cpu_count(), *load), flush=True)
    res = {'cpus': os.cpu_count(), 'load': load, 'sizes': sizes, 'builds': {}, 'raw': []}
    hists = {s: os.path.join(a.out, 'hist-%s.sht' % s) for s in sizes}
    for s in sizes:
        res['builds'][s] = build(a, s, hists[s])
        if size_bytes(s) != res['builds'][s]['block_size']:
            sys.exit('%s: block size %d, not %s' % (hists[s], res['builds'][s]['block_size'], s))
    caches = {s: make_cache(a, s, hists[s]) for s in sizes} if a.trace else {}
    bad = 0
    for rnd in range(a.rounds):
        order = sizes if rnd % 2 == 0 else sizes[::-1]
        rc, pts = points(a, [hists[s] for s in order])
        bad += rc
        for s, p in zip(order, pts):
            res['raw'].append(dict(p, kind='points', size=s, round=rnd))
        for s in order:
            for case, x in q2d(a, hists[s]).items():
                res['raw'].append(dict(x, kind='q2d', size=s, round=rnd))
            if a.trace:
                sc = screens(a, s, caches[s], rnd)
                res['raw'].append(dict(sc, kind='screens', size=s, round=rnd))
        print('# round %d done, load %.1f' % (rnd + 1, os.getloadavg()[0]), flush=True)
    # the answers: one hash per case over every size and round
    for case in ('cflow', 'cpus', 'syscalls'):
        h = {r['hash'] for r in res['raw'] if r['kind'] == 'q2d' and r['case'] == case}
        if len(h) != 1:
            print('# q2d %s: the answers differ between sizes: %s' % (case, h))
            bad += 1
    table(res, sizes)
    res['load_after'] = os.getloadavg()
    print('# load after %.1f %.1f %.1f' % res['load_after'])
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(res, f, indent=1)
    if tmp:
        shutil.rmtree(tmp)
    elif not a.keep:
        for s in sizes:
            os.remove(hists[s])
            if a.trace:
                shutil.rmtree(caches[s])
    if bad:
        print('# ANSWERS DIFFER', file=sys.stderr)
    return 1 if bad else 0


def table(res, sizes):
    """Medians over the rounds, one column per size."""
    rows = []
    b = res['builds']
    rows.append(('build from VSTF, wall s', [b[s]['build_wall_s'] for s in sizes]))
    rows.append(('build, CPU s', [b[s]['build_cpu_s'] for s in sizes]))
    rows.append(('build, peak RSS MiB', [b[s]['build_rss_mib'] for s in sizes]))
    rows.append(('file MB', [b[s]['file_bytes'] / 1e6 for s in sizes]))
    rows.append(('bytes/interval', [b[s]['bytes_per_interval'] for s in sizes]))
    rows.append(('nodes', [b[s]['nodes'] for s in sizes]))
    rows.append(('depth', [b[s]['depth'] for s in sizes]))
    med = {}
    for s in sizes:
        for case in ('cflow', 'cpus', 'syscalls'):
            q = [r for r in res['raw'] if r['kind'] == 'q2d' and r['size'] == s and r['case'] == case]
            med[(s, case, 'ms')] = median_of(q, 'ms')
            med[(s, case, 'cpu')] = median_of(q, 'cpu_ms')
            med[(s, case, 'visits')] = median_of(q, 'visits')
        p = [r for r in res['raw'] if r['kind'] == 'points' and r['size'] == s]
        for k in ('single_mean_us', 'single_p99_us', 'single_visits', 'full_mean_ms'):
            med[(s, k)] = median_of(p, k)
        sc = [r for r in res['raw'] if r['kind'] == 'screens' and r['size'] == s]
        for r in sc:
            for k, v in r.items():
                if isinstance(v, dict) and 'median' in v:
                    med.setdefault((s, 'screen', k), []).append(v['median'])
                elif isinstance(v, dict) and k.endswith(' rss'):
                    for kk in ('after_res_VmRSS_MiB', 'after_res_RssFile_MiB', 'after_cf_RssFile_MiB',
                               'kernel_sht_open_MiB', 'kernel_sht_after_cf_MiB',
                               'kernel_sht_after_res_MiB'):
                        med.setdefault((s, 'screen', k + ' ' + kk), []).append(v[kk])
    for case in ('cflow', 'cpus', 'syscalls'):
        rows.append(('q2d %s mapped, ms' % case, [med[(s, case, 'ms')] for s in sizes]))
        rows.append(('q2d %s mapped, CPU ms' % case, [med[(s, case, 'cpu')] for s in sizes]))
        rows.append(('q2d %s node visits' % case, [med[(s, case, 'visits')] for s in sizes]))
    for k in ('single_mean_us', 'single_p99_us', 'single_visits', 'full_mean_ms'):
        rows.append(('point: ' + k, [med[(s, k)] for s in sizes]))
    keys = sorted({k[2] for k in med if len(k) == 3 and k[1] == 'screen'})
    for k in keys:
        rows.append(('server: ' + k, [statistics.median(med[(s, 'screen', k)])
                                      if (s, 'screen', k) in med else None for s in sizes]))
    res['table'] = [{'measure': m, **dict(zip(sizes, v))} for m, v in rows]
    print('| measure | ' + ' | '.join(sizes) + ' |')
    print('|---|' + '---:|' * len(sizes))
    for m, v in rows:
        print('| %s | %s |' % (m, ' | '.join('-' if x is None else '%.4g' % x for x in v)))


if __name__ == '__main__':
    sys.exit(main())
