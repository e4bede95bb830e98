#!/usr/bin/env python3
"""server-bench.py: the speed and memory of `sht serve` on big traces
(docs/SERVER.md "Performance"), as a viewer sees it: time from request to
last byte on the loopback interface, medians of several runs.

    bench/server-bench.py --sht build/release/sht --work /work/tmp/sb [--quick]

Traces, generated into WORK once (never into the repository):
  k2g      `sht gen kernel --size 2g` (CTF, about 60 M events), and its
           VSTF copy k2g.vstf (`sht convert`) for the table pages;
  t30k     `sht gen kernel --threads 30000` (CTF).
(--quick: 200 MB and 3 000 threads, for a check of the script.)

For each trace: the server analyses it once into WORK/cache, is restarted
on that cache (histories reused), and then measures:
  first    in a fresh server, open the trace and an experiment, then the
           first Control Flow screen (tree + states of 500 rows x 1920
           times, as the viewer asks): the sum of the requests' times
           (the client's JSON parsing left out);
  cf tree  the Thread Status tree (new experiment: not cached);
  cf       states of 500 rows x 1920 times, at full and at 1/1000 zoom;
  res      Resources tree + states of every row x 1920 times;
           for these two whole-trace screens also "server": the server's
           own time to the answers (its Server-Timing header: from the
           request to the answer ready to send), without the transfer
           and the client's reading of the body (~6 and ~11 ms here);
  page     100 table lines at random places (CTF and VSTF);
           --pages-only TRACE: this one only, on TRACE (and TRACE.vstf);
  cpu      CPU Usage: the tree (whole trace, 1/1000 zoom) and the XY of
           Total + 5 threads x 1000 points (whole trace, 1/1000 zoom),
           each from the cumulative CPU time history ("cum") and by the
           sum of the running-thread intervals ("intervals", the method
           before it, kept as the fallback), in the same server;
           --cpu-only TRACE: this one only, on TRACE, after timing the
           derivation of the cumulative history from a cached kernel one;
  rss      the server's peak resident memory (VmHWM) in a fresh server
           after one viewer's session on the analysed trace (first
           screens, resources, 20 table pages), and the peaks of VmRSS,
           RssAnon (its own memory) and RssFile (file pages it maps: a
           mapped history's) sampled every 5 ms, then the same at rest
           (3 s later: sht serve gives memory back after 2 s idle);
           --rss-only: this alone.
--screens-only TRACE: the whole-trace time-graph screens of TRACE alone
(an already analysed trace: its histories in the cache, --cache DIR,
default WORK/cache), wall time and the server's CPU time (utime + stime
of the process over the request: steadier on a shared machine): first
screen in a fresh server, Control Flow states 500 x 1920 (whole trace and
1/1000), the Resources screen, and the memory after them (VmRSS,
RssAnon, RssFile); for comparing histories of one trace built otherwise
(e.g. other block sizes), each in its own cache directory; the resident
pages of the server's map of kernel.sht (smaps) tell what a screen
touched of the kernel history.
Prints one line per measure (median, min, max of RUNS) and, with --json,
a JSON object.
"""
import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
import urllib.request

TG = 'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider'
RS = 'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ResourcesStatusDataProvider'
TB = 'org.eclipse.tracecompass.internal.provisional.tmf.core.model.events.TmfEventTableDataProvider'
CU = 'org.eclipse.tracecompass.analysis.os.linux.core.cpuusage.CpuUsageDataProvider'


class Server:
    def __init__(self, sht, work, root, cache=None):
        # A port file of this process's own: two benchmarks may share a
        # work directory (and its cache), each with its own server.
        self.srv_ms = 0.0          # sum of the answers' Server-Timing
        self.port_file = os.path.join(work, 'port.%d' % os.getpid())
        if os.path.exists(self.port_file):
            os.remove(self.port_file)
        self.log = open(os.path.join(work, 'server.%d.log' % os.getpid()), 'a')
        self.p = subprocess.Popen([sht, 'serve', '--port', '0', '--port-file', self.port_file,
                                   '--root', root, '--cache', cache or os.path.join(work, 'cache'),
                                   '--quiet'], stdout=self.log, stderr=self.log)
        for _ in range(200):
            if os.path.exists(self.port_file) and open(self.port_file).read().strip():
                break
            time.sleep(0.05)
        self.base = 'http://127.0.0.1:%s/tsp/api' % open(self.port_file).read().strip()

    def req(self, method, path, params=None):
        data = json.dumps({'parameters': params}).encode() if params is not None else None
        r = urllib.request.Request(self.base + path, data=data, method=method,
                                   headers={'Content-Type': 'application/json'})
        with urllib.request.urlopen(r, timeout=3600) as f:
            body = f.read()
            self.srv_ms += server_ms(f.headers.get('Server-Timing'))
            return body

    def post(self, path, params):
        return json.loads(self.req('POST', path, params))

    def get(self, path):
        return json.loads(self.req('GET', path))

    def rss(self):
        """VmRSS, VmHWM, RssAnon, RssFile ... of /proc/PID/status, in KiB."""
        with open('/proc/%d/status' % self.p.pid) as f:
            return {l.split(':')[0]: int(l.split()[1]) for l in f
                    if l.startswith('Vm') or l.startswith('Rss')}

    def mapped_kib(self, name):
        """Resident KiB of the server's mappings of files named name (its
        touched pages of a mapped history), from /proc/PID/smaps."""
        kib, inside = 0, False
        with open('/proc/%d/smaps' % self.p.pid) as f:
            for line in f:
                head = line.split()
                if head and '-' in head[0] and not head[0].endswith(':'):
                    inside = line.rstrip().endswith('/' + name)
                elif inside and head[0] == 'Rss:':
                    kib += int(head[1])
        return kib

    def cpu_ms(self):
        """utime + stime of the server so far, in ms."""
        with open('/proc/%d/stat' % self.p.pid) as f:
            x = f.read().rsplit(')', 1)[1].split()
        return (int(x[11]) + int(x[12])) * 1e3 / os.sysconf('SC_CLK_TCK')

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait()
        self.log.close()
        if os.path.exists(self.port_file):
            os.remove(self.port_file)


class RssPeaks:
    """Samples the server's /proc status every 5 ms on a thread: the peaks
    of VmRSS, RssAnon (heap: the process's own) and RssFile (file pages it
    maps, e.g. a mapped history: the page cache's, given back at will)."""
    KEYS = ('VmRSS', 'RssAnon', 'RssFile')

    def __init__(self, server):
        import threading
        self.s, self.peak, self.stop_ = server, dict.fromkeys(self.KEYS, 0), False
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        while not self.stop_:
            r = self.s.rss()
            for k in self.KEYS:
                self.peak[k] = max(self.peak[k], r.get(k, 0))
            time.sleep(0.005)

    def stop(self):
        self.stop_ = True
        self.t.join()
        return self.peak


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t0) * 1e3, out


def gen(sht, path, args):
    if not os.path.exists(path):
        print('# generating %s (%s)' % (path, ' '.join(args)), flush=True)
        subprocess.run([sht, 'gen', 'kernel', '--no-progress', '-o', path] + args, check=True,
                       stdout=subprocess.DEVNULL)


def wait_done(s, e):
    while True:
        x = s.get('/experiments/' + e)
        if x['indexingStatus'] == 'COMPLETED':
            return x
        time.sleep(0.5)


def server_ms(header):
    """The server's time to an answer, from its Server-Timing header."""
    for part in (header or '').split(','):
        name, _, dur = part.strip().partition(';dur=')
        if name == 'app' and dur:
            return float(dur)
    return 0.0


def open_exp(s, trace, name):
    t = s.post('/traces', {'uri': trace, 'name': os.path.basename(trace)})
    return s.post('/experiments', {'name': name, 'traces': [t['UUID']]})


def screen(s, e, out, times, rows):
    ids = [x['id'] for x in json.loads(s.req('POST', '/experiments/%s/outputs/timeGraph/%s/tree'
                                               % (e['UUID'], out), {}))['model']['entries']][:rows]
    body = s.req('POST', '/experiments/%s/outputs/timeGraph/%s/states' % (e['UUID'], out),
                 {'requested_timerange': {'start': e['start'], 'end': e['end'], 'nbTimes': times},
                  'requested_items': ids})
    return ids, len(body)


def measure(res, name, values, unit='ms'):
    res[name] = {'median': statistics.median(values), 'min': min(values), 'max': max(values),
                 'runs': len(values), 'unit': unit}
    print('%-28s median %9.1f %s   min %9.1f   max %9.1f   (%d runs)' %
          (name, res[name]['median'], unit, min(values), max(values), len(values)), flush=True)


def table_pages(s, trace, vstf, label, res, runs):
    """100 table lines at 2 x runs random places of trace (CTF: seeks by
    time through its packet index) and of its VSTF copy."""
    rnd = random.Random(1)
    for path, tag in [(trace, 'ctf'), (vstf, 'vstf')]:
        if not path:
            continue
        x = wait_done(s, open_exp(s, path, 'page-' + tag)['UUID'])
        pages = []
        for i in range(runs * 2):
            idx = rnd.randrange(x['nbEvents'] - 100)
            ms, _ = timed(lambda: s.req('POST', '/experiments/%s/outputs/table/%s/lines' % (x['UUID'], TB),
                                        {'requested_table_index': idx, 'requested_table_count': 100}))
            pages.append(ms)
        measure(res, '%s table page (%s)' % (label, tag), pages)


def cpu_usage(s, e, label, res, runs):
    """CPU Usage tree and XY, cumulative history vs running intervals."""
    span = e['end'] - e['start']
    base = '/experiments/%s/outputs/XY/%s/' % (e['UUID'], CU)
    ents = json.loads(s.req('POST', base + 'tree', {}))['model']['entries']
    top = sorted(ents[1:], key=lambda x: -float(x['labels'][2].split()[0]))[:5]
    ids = [ents[0]['id']] + [x['id'] for x in top]
    for how in ('cum', 'intervals'):
        extra = {} if how == 'cum' else {'sht_cpu_usage': 'intervals'}
        for zoom in (1, 1000):
            tree, xy = [], []
            for i in range(runs):
                st = e['start'] if zoom == 1 else e['start'] + span * (i + 1) // (runs + 2)
                tr = {'start': st, 'end': st + span // zoom}
                ms, b = timed(lambda: s.req('POST', base + 'tree',
                                            dict(extra, requested_timerange=tr)))
                tree.append(ms)
                n = len(json.loads(b)['model']['entries'])
                ms, _ = timed(lambda: s.req('POST', base + 'xy',
                                            dict(extra, requested_timerange=dict(tr, nbTimes=1000),
                                                 requested_items=ids)))
                xy.append(ms)
            z = 'whole' if zoom == 1 else 'zoom 1/1000'
            measure(res, '%s cpu tree %s (%s, %d entries)' % (label, z, how, n), tree)
            measure(res, '%s cpu xy 6x1000 %s (%s)' % (label, z, how), xy)


def bench_trace(a, trace, vstf, label, res):
    s = Server(a.sht, a.work, a.work)
    t0 = time.perf_counter()
    e = open_exp(s, trace, 'analyse')
    wait_done(s, e['UUID'])
    print('# %s: analysed in %.1f s (once; reused below)' % (label, time.perf_counter() - t0), flush=True)
    s.stop()
    runs = a.runs
    first = []
    for i in range(runs):            # each in a fresh server
        s = Server(a.sht, a.work, a.work)
        t1, x = timed(lambda: open_exp(s, trace, 'first'))
        t2, body = timed(lambda: s.req('POST', '/experiments/%s/outputs/timeGraph/%s/tree'
                                       % (x['UUID'], TG), {}))
        ids = [y['id'] for y in json.loads(body)['model']['entries']][:500]
        t3, _ = timed(lambda: s.req('POST', '/experiments/%s/outputs/timeGraph/%s/states'
                                    % (x['UUID'], TG),
                                    {'requested_timerange': {'start': x['start'], 'end': x['end'],
                                                             'nbTimes': 1920},
                                     'requested_items': ids}))
        first.append(t1 + t2 + t3)     # the client's parsing left out
        s.stop()
    measure(res, label + ' first screen', first)
    s = Server(a.sht, a.work, a.work)
    e = wait_done(s, open_exp(s, trace, 'm')['UUID'])
    mids = [x['id'] for x in json.loads(s.req('POST', '/experiments/%s/outputs/timeGraph/%s/tree'
                                              % (e['UUID'], TG), {}))['model']['entries']]
    trees, cf, cfz, rtree, rst = [], [], [], [], []
    cf_srv, rst_srv = [], []
    nstates = 0
    for i in range(runs):
        x = open_exp(s, trace, 'tree-%d' % i)
        ms, body = timed(lambda: s.req('POST', '/experiments/%s/outputs/timeGraph/%s/tree'
                                       % (x['UUID'], TG), {}))
        trees.append(ms)
    ids = [x['id'] for x in json.loads(body)['model']['entries']]
    measure(res, label + ' cf tree (%d entries)' % len(ids), trees)
    span = e['end'] - e['start']
    for i in range(runs):
        rows = mids[i * 7 % max(1, len(mids) - 500):][:500]
        before = s.srv_ms
        ms, b = timed(lambda: s.req('POST', '/experiments/%s/outputs/timeGraph/%s/states' % (e['UUID'], TG),
                                    {'requested_timerange': {'start': e['start'], 'end': e['end'],
                                                             'nbTimes': 1920}, 'requested_items': rows}))
        cf.append(ms)
        cf_srv.append(s.srv_ms - before)
        nstates = b.count(b'"start"')
        st = e['start'] + span * (i + 1) // (runs + 2)
        ms, b = timed(lambda: s.req('POST', '/experiments/%s/outputs/timeGraph/%s/states' % (e['UUID'], TG),
                                    {'requested_timerange': {'start': st, 'end': st + span // 1000,
                                                             'nbTimes': 1920}, 'requested_items': rows}))
        cfz.append(ms)
    measure(res, label + ' cf states 500x1920 (%d states)' % nstates, cf)
    measure(res, label + ' cf states server', cf_srv)
    measure(res, label + ' cf states zoom 1/1000', cfz)
    for i in range(runs):
        x = open_exp(s, trace, 'res-%d' % i)
        before = s.srv_ms
        ms, _ = timed(lambda: screen(s, x, RS, 1920, 10 ** 6))
        rst.append(ms)
        rst_srv.append(s.srv_ms - before)
    measure(res, label + ' resources screen', rst)
    measure(res, label + ' resources screen server', rst_srv)
    cpu_usage(s, e, label, res, runs)
    table_pages(s, trace, vstf, label, res, runs)
    s.stop()
    session_rss(a, trace, vstf, label, res)


# The memory of one viewer's session on an analysed trace: open it, the
# first screens, resources, 20 table pages (VSTF if there is one).
def session_rss(a, trace, vstf, label, res):
    s = Server(a.sht, a.work, a.work)
    peaks = RssPeaks(s)
    e = wait_done(s, open_exp(s, trace, 'session')['UUID'])
    screen(s, e, TG, 1920, 500)
    after = {'cf': s.rss()}
    screen(s, e, RS, 1920, 10 ** 6)
    after['res'] = s.rss()
    x = wait_done(s, open_exp(s, vstf or trace, 'session-table')['UUID'])
    rnd = random.Random(2)
    for i in range(20 if vstf or x['nbEvents'] < 10 ** 7 else 2):
        s.req('POST', '/experiments/%s/outputs/table/%s/lines' % (x['UUID'], TB),
              {'requested_table_index': rnd.randrange(x['nbEvents'] - 100), 'requested_table_count': 100})
    r = s.rss()
    p = peaks.stop()
    time.sleep(3)                    # idle: past --idle-release's 2 s
    rest = s.rss()
    res[label + ' rss'] = {'VmHWM_MiB': r['VmHWM'] / 1024, 'VmRSS_MiB': r['VmRSS'] / 1024,
                           'RssAnon_MiB': r.get('RssAnon', 0) / 1024,
                           'RssFile_MiB': r.get('RssFile', 0) / 1024,
                           'rest_VmRSS_MiB': rest['VmRSS'] / 1024,
                           'rest_RssAnon_MiB': rest.get('RssAnon', 0) / 1024,
                           'rest_RssFile_MiB': rest.get('RssFile', 0) / 1024}
    for k in RssPeaks.KEYS:
        res[label + ' rss']['peak_%s_MiB' % k] = p[k] / 1024
    for when in ('cf', 'res'):
        for k in RssPeaks.KEYS:
            res[label + ' rss']['after_%s_%s_MiB' % (when, k)] = after[when].get(k, 0) / 1024
    print('%-28s peak %.1f MiB, now %.1f MiB (one session: screens, resources, 20 table pages)'
          % (label + ' rss', r['VmHWM'] / 1024, r['VmRSS'] / 1024), flush=True)
    print('%-28s sampled peaks: VmRSS %.1f, RssAnon %.1f, RssFile %.1f MiB; after the CF '
          'screen RssAnon %.1f RssFile %.1f, after Resources %.1f / %.1f, at the end %.1f / %.1f'
          % ('', p['VmRSS'] / 1024, p['RssAnon'] / 1024, p['RssFile'] / 1024,
             after['cf'].get('RssAnon', 0) / 1024, after['cf'].get('RssFile', 0) / 1024,
             after['res'].get('RssAnon', 0) / 1024, after['res'].get('RssFile', 0) / 1024,
             r.get('RssAnon', 0) / 1024, r.get('RssFile', 0) / 1024), flush=True)
    print('%-28s at rest (3 s without requests): VmRSS %.1f, RssAnon %.1f, RssFile %.1f MiB'
          % ('', rest['VmRSS'] / 1024, rest.get('RssAnon', 0) / 1024,
             rest.get('RssFile', 0) / 1024), flush=True)
    s.stop()


def screens_only(a, trace, res):
    """--screens-only: the whole-trace time-graph screens (see the top)."""
    root, label, runs = os.path.dirname(trace), os.path.basename(trace), a.runs
    s = Server(a.sht, a.work, root, a.cache)
    t0 = time.perf_counter()
    e = wait_done(s, open_exp(s, trace, 'warm')['UUID'])
    print('# %s ready in %.1f s (nothing to build if cached)' % (label, time.perf_counter() - t0), flush=True)
    s.stop()
    first = []
    for i in range(runs):            # each in a fresh server
        s = Server(a.sht, a.work, root, a.cache)
        t1, x = timed(lambda: wait_done(s, open_exp(s, trace, 'first')['UUID']))
        t2, _ = timed(lambda: screen(s, x, TG, 1920, 500))
        first.append(t1 + t2)
        s.stop()
    measure(res, label + ' first screen', first)
    s = Server(a.sht, a.work, root, a.cache)
    e = wait_done(s, open_exp(s, trace, 'm')['UUID'])
    mids = [x['id'] for x in json.loads(s.req('POST', '/experiments/%s/outputs/timeGraph/%s/tree'
                                              % (e['UUID'], TG), {}))['model']['entries']]
    span = e['end'] - e['start']

    def states(rows, st, en):
        return s.req('POST', '/experiments/%s/outputs/timeGraph/%s/states' % (e['UUID'], TG),
                     {'requested_timerange': {'start': st, 'end': en, 'nbTimes': 1920},
                      'requested_items': rows})
    states(mids[:500], e['start'], e['end'])          # warm-up
    screen(s, e, RS, 1920, 10 ** 6)

    def batch(name, fn):
        """runs requests fn(i): the wall time of each; the server's CPU
        time over the batch / runs (its clock ticks are 10 ms)."""
        walls, c0 = [], s.cpu_ms()
        for i in range(runs):
            walls.append(timed(lambda: fn(i))[0])
        measure(res, label + ' ' + name, walls)
        measure(res, label + ' ' + name + ' server cpu', [(s.cpu_ms() - c0) / runs])

    def rows(i):
        return mids[i * 7 % max(1, len(mids) - 500):][:500]

    def zoom(i):
        st = e['start'] + span * (i + 1) // (runs + 2)
        return states(rows(i), st, st + span // 1000)
    exps = [open_exp(s, trace, 'res-%d' % i) for i in range(runs)]
    batch('cf states 500x1920', lambda i: states(rows(i), e['start'], e['end']))
    batch('cf states zoom 1/1000', zoom)
    batch('resources screen', lambda i: screen(s, exps[i], RS, 1920, 10 ** 6))
    s.stop()
    s = Server(a.sht, a.work, root, a.cache)    # memory after one viewer's screens
    e = wait_done(s, open_exp(s, trace, 'session')['UUID'])
    k0 = s.mapped_kib('kernel.sht')
    screen(s, e, TG, 1920, 500)
    after_cf, k1 = s.rss(), s.mapped_kib('kernel.sht')
    screen(s, e, RS, 1920, 10 ** 6)
    r, k2 = s.rss(), s.mapped_kib('kernel.sht')
    res[label + ' rss'] = {'after_cf_%s_MiB' % k: after_cf.get(k, 0) / 1024 for k in RssPeaks.KEYS}
    res[label + ' rss'].update({'after_res_%s_MiB' % k: r.get(k, 0) / 1024 for k in RssPeaks.KEYS})
    res[label + ' rss'].update({'kernel_sht_open_MiB': k0 / 1024, 'kernel_sht_after_cf_MiB': k1 / 1024,
                                'kernel_sht_after_res_MiB': k2 / 1024})
    print('%-28s after CF: VmRSS %.1f RssAnon %.1f RssFile %.1f MiB; after Resources: %.1f / %.1f / %.1f'
          % (label + ' rss', *[after_cf.get(k, 0) / 1024 for k in RssPeaks.KEYS],
             *[r.get(k, 0) / 1024 for k in RssPeaks.KEYS]), flush=True)
    print('%-28s the kernel history\'s resident pages: %.1f MiB opened, %.1f after CF, %.1f after Resources'
          % ('', k0 / 1024, k1 / 1024, k2 / 1024), flush=True)
    s.stop()


def reported(a, fn, **extra):
    """fn(res) with the machine and the load before and after in res,
    written to --json."""
    res = dict({'cpus': os.cpu_count(), 'load': os.getloadavg()}, **extra)
    print('# machine: %d CPUs, load %.1f %.1f %.1f' % (os.cpu_count(), *res['load']))
    fn(res)
    res['load_after'] = os.getloadavg()
    print('# load after %.1f %.1f %.1f' % res['load_after'])
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(res, f, indent=1)
    return 0


def one_case(a, trace, fn):
    """--cpu-only / --pages-only: fn(server, trace, res) on TRACE alone,
    in a server rooted at its directory; the load before and after."""
    trace = os.path.abspath(trace)

    def run(res):
        s = Server(a.sht, a.work, os.path.dirname(trace))
        fn(s, trace, res)
        s.stop()
    return reported(a, run)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sht', default='build/release/sht')
    ap.add_argument('--work', required=True)
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--json')
    ap.add_argument('--cpu-only', metavar='TRACE',
                    help='only CPU Usage, on TRACE (analysed into WORK/cache if needed)')
    ap.add_argument('--pages-only', metavar='TRACE',
                    help='only the table pages of TRACE (a CTF directory; with its '
                         'VSTF copy TRACE.vstf if there is one)')
    ap.add_argument('--cache', help='the server\'s cache directory (default WORK/cache)')
    ap.add_argument('--screens-only', metavar='TRACE',
                    help='only the whole-trace time-graph screens of TRACE, analysed '
                         'into the cache before')
    ap.add_argument('--rss-only', action='store_true',
                    help='only the memory of one session on the big trace (analysed '
                         'into WORK/cache before)')
    a = ap.parse_args()
    a.sht = os.path.abspath(a.sht)
    a.work = os.path.abspath(a.work)
    os.makedirs(a.work, exist_ok=True)
    a.cache = os.path.abspath(a.cache) if a.cache else None
    if a.screens_only:
        trace = os.path.abspath(a.screens_only)
        return reported(a, lambda res: screens_only(a, trace, res), cache=a.cache)
    if a.cpu_only:
        def cpu(s, trace, res):
            ms, e = timed(lambda: wait_done(s, open_exp(s, trace, 'cpu')['UUID']))
            print('# %s ready in %.1f s (analysis, or derivation of the CPU Usage history, '
                  'or nothing if cached)' % (os.path.basename(trace), ms / 1e3), flush=True)
            time.sleep(1)
            cpu_usage(s, e, os.path.basename(trace), res, a.runs)
        return one_case(a, a.cpu_only, cpu)
    if a.pages_only:
        def pages(s, trace, res):
            vstf = trace + '.vstf' if os.path.exists(trace + '.vstf') else None
            table_pages(s, trace, vstf, os.path.basename(trace), res, a.runs)
        return one_case(a, a.pages_only, pages)
    size, threads = ('200m', '3000') if a.quick else ('2g', '30000')
    big, many = os.path.join(a.work, 'k' + size), os.path.join(a.work, 't' + threads)
    gen(a.sht, big, ['--size', size])
    if not os.path.exists(big + '.vstf'):
        print('# converting %s to VSTF' % big, flush=True)
        subprocess.run([a.sht, 'convert', big, '-o', big + '.vstf'], check=True,
                       stdout=subprocess.DEVNULL)
    gen(a.sht, many, ['--threads', threads])
    if a.rss_only:
        res = {'cpus': os.cpu_count(), 'load': os.getloadavg()}
        session_rss(a, big, big + '.vstf', os.path.basename(big), res)
        if a.json:
            with open(a.json, 'w') as f:
                json.dump(res, f, indent=1)
        return 0
    load = os.getloadavg()
    print('# machine: %d CPUs, load %.1f %.1f %.1f; %s' % (os.cpu_count(), *load,
                                                        subprocess.run(['uname', '-r'], capture_output=True,
                                                                       text=True).stdout.strip()))
    res = {'cpus': os.cpu_count(), 'load': load}
    bench_trace(a, big, big + '.vstf', os.path.basename(big), res)
    bench_trace(a, many, None, os.path.basename(many), res)
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(res, f, indent=1)


if __name__ == '__main__':
    sys.exit(main())
