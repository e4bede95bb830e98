#!/usr/bin/env python3
"""run-server-ab.py: the whole-trace time-graph screens of `sht serve` by
two builds of sht, alternated, with the server's CPU time per request and
whether the two builds give the same answers.

  bench/run-server-ab.py TRACE --cache DIR --after SHT --before SHT
                         [--rounds R] [--requests N] [--json FILE]

Each round starts, for each build (the order swapped from one round to
the next so that both see the same load), a fresh `SHT serve` on the
cache directory DIR (histories already analysed there are reused: point
both builds at a cache made by either, e.g. bench/server-bench.py's
WORK/cache), opens TRACE, and for each screen (Control Flow: states of
the first 500 rows; Resources: every row; 1 920 times over the whole
trace) sends one request to warm up, then N more (default 5): their
median wall time (request to last byte) and the server's CPU time per
request (utime + stime of the process over the N, /proc/PID/stat: on a
shared machine the steadier figure).  Prints one line per round and
build, the medians over the rounds (default 3) and the ratios after /
before, and whether every answer of both builds was the same, byte for
byte (exit status 1 if not).  An SHT run through a wrapper (a copy of
another build with its libsht beside it: `LD_LIBRARY_PATH=DIR exec
DIR/sht "$@"`) works too.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('sb', os.path.join(HERE, 'server-bench.py'))
sb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sb)
TICK = os.sysconf('SC_CLK_TCK')
SCREENS = (('cf', sb.TG, 500), ('res', sb.RS, None))


class Server(sb.Server):
    """sht serve with its port file and log in a private directory."""

    def __init__(self, sht, root, cache, scratch):
        self.srv_ms = 0.0          # sb.Server.req adds the Server-Timing
        self.port_file = os.path.join(scratch, 'port')
        if os.path.exists(self.port_file):
            os.remove(self.port_file)
        self.log = open(os.path.join(scratch, 'server.log'), 'a')
        self.p = subprocess.Popen([sht, 'serve', '--port', '0', '--port-file', self.port_file,
                                   '--root', root, '--cache', cache, '--quiet'],
                                  stdout=self.log, stderr=self.log)
        for _ in range(600):
            if os.path.exists(self.port_file) and open(self.port_file).read().strip():
                break
            if self.p.poll() is not None:
                sys.exit('run-server-ab: %s serve exited (log: %s)' % (sht, scratch))
            time.sleep(0.05)
        self.base = 'http://127.0.0.1:%s/tsp/api' % open(self.port_file).read().strip()


def cpu_ms(pid):
    f = open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000.0 / TICK


def one(sht, a, scratch):
    s = Server(sht, os.path.dirname(os.path.abspath(a.trace)), a.cache, scratch)
    out = {}
    try:
        e = sb.wait_done(s, sb.open_exp(s, a.trace, 'ab')['UUID'])
        for name, prov, rows in SCREENS:
            ids = [x['id'] for x in s.post('/experiments/%s/outputs/timeGraph/%s/tree'
                                           % (e['UUID'], prov), {})['model']['entries']]
            body = {'requested_timerange': {'start': e['start'], 'end': e['end'], 'nbTimes': 1920},
                    'requested_items': ids[:rows] if rows else ids}
            path = '/experiments/%s/outputs/timeGraph/%s/states' % (e['UUID'], prov)
            b = s.req('POST', path, body)
            c0, walls = cpu_ms(s.p.pid), []
            for _ in range(a.requests):
                ms, b = sb.timed(lambda: s.req('POST', path, body))
                walls.append(ms)
            out[name] = {'wall': statistics.median(walls), 'cpu': (cpu_ms(s.p.pid) - c0) / a.requests,
                         'walls': walls, 'bytes': len(b), 'md5': hashlib.md5(b).hexdigest()}
    finally:
        s.stop()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('trace')
    ap.add_argument('--cache', required=True)
    ap.add_argument('--after', required=True)
    ap.add_argument('--before', required=True)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--requests', type=int, default=5)
    ap.add_argument('--json')
    a = ap.parse_args()
    builds = [('before', a.before), ('after', a.after)]
    res = {k: [] for k, _ in builds}
    print('# load %.2f %.2f %.2f' % os.getloadavg(), flush=True)
    with tempfile.TemporaryDirectory(prefix='server-ab-') as scratch:
        for r in range(a.rounds):
            for k, sht in (builds if r % 2 == 0 else builds[::-1]):
                o = one(sht, a, scratch)
                o['load'] = os.getloadavg()[0]
                res[k].append(o)
                print('round %d %-6s load %.2f  ' % (r, k, o['load']) +
                      '  '.join('%s wall %.1f ms cpu %.1f ms' % (m, o[m]['wall'], o[m]['cpu'])
                                for m, _, _ in SCREENS), flush=True)
    print('# load %.2f %.2f %.2f' % os.getloadavg())
    same = True
    for m, _, _ in SCREENS:
        med = {k: {x: statistics.median(o[m][x] for o in res[k]) for x in ('wall', 'cpu')}
               for k, _ in builds}
        print('%-4s wall %.1f -> %.1f ms (%.2f), cpu %.1f -> %.1f ms (%.2f)' % (
            m, med['before']['wall'], med['after']['wall'], med['after']['wall'] / med['before']['wall'],
            med['before']['cpu'], med['after']['cpu'], med['after']['cpu'] / med['before']['cpu']))
        md5 = {o[m]['md5'] for k, _ in builds for o in res[k]}
        same = same and len(md5) == 1
        print('%-4s answers %s' % (m, 'identical' if len(md5) == 1 else 'DIFFER'))
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'trace': a.trace, 'builds': dict(builds), 'rounds': a.rounds,
                       'requests': a.requests, 'results': res}, f, indent=1)
    return 0 if same else 1


if __name__ == '__main__':
    sys.exit(main())
