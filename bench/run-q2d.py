#!/usr/bin/env python3
"""run-q2d.py: the sampled 2D queries of bench/q2d-bench.c on a history,
one build of the library against another, interleaved.

  bench/run-q2d.py HISTORY --after BIN [--before BIN] [--rounds N]
                   [--repeat K] [--jsonl FILE] [-- Q2D-BENCH-OPTION...]
  bench/run-q2d.py --quick --sht SHT --after BIN

--quick (a smoke test, CTest's bench-q2d): generates a small kernel trace
with SHT (`sht gen kernel --events 200000`) in a scratch directory,
builds its history, and runs BIN once (1 round, 2 calls): it must run
and its paths must agree (q2d-bench's exit status); no timing is read.

BIN is a q2d-bench executable (build/release/q2d-bench; --before: the
same file built against an older libsht, e.g. from `git archive` of the
older commit with bench/q2d-bench.c copied in).  Each round runs the
before binary, then the after one (K timed calls per case and path each);
the rounds alternate so that both see the same load.  Prints, per case
and path, the medians over the rounds of each binary's median wall and
CPU milliseconds, the ratios before / after, and whether every answer
hash agreed; writes every JSON line (with "build": before|after and
"round") to --jsonl.  Exit status 1 if any hash differs between builds.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def run(binary, history, repeat, extra):
    out = subprocess.run([binary, history, '--repeat', str(repeat)] + extra,
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def quick(a):
    import tempfile
    with tempfile.TemporaryDirectory(prefix='q2d-', dir=os.environ.get('SHT_TMP')) as d:
        trace, hist = os.path.join(d, 'k.vstf'), os.path.join(d, 'k.sht')
        subprocess.run([a.sht, 'gen', 'kernel', '--no-progress', '--events', '200000',
                        '-o', trace], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([a.sht, 'build', trace, '-o', hist], check=True,
                       stdout=subprocess.DEVNULL)
        rc = subprocess.run([a.after, hist, '--repeat', '1']).returncode
    return rc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('history', nargs='?')
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--sht')
    ap.add_argument('--after', required=True)
    ap.add_argument('--before')
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--repeat', type=int, default=10)
    ap.add_argument('--jsonl')
    ap.add_argument('extra', nargs='*')
    a = ap.parse_args()
    if a.quick:
        if not a.sht:
            ap.error('--quick wants --sht')
        return quick(a)
    if not a.history:
        ap.error('HISTORY wanted')
    builds = ([('before', a.before)] if a.before else []) + [('after', a.after)]
    rows = []
    for r in range(a.rounds):
        for name, binary in builds:
            for d in run(binary, a.history, a.repeat, a.extra):
                d['build'] = name
                d['round'] = r
                rows.append(d)
            print('# round %d %s done (load %.2f)' % (r, name, os.getloadavg()[0]),
                  file=sys.stderr, flush=True)
    if a.jsonl:
        with open(a.jsonl, 'w') as f:
            for d in rows:
                f.write(json.dumps(d) + '\n')
    keys = []
    for d in rows:
        k = (d['case'], d['path'])
        if k not in keys:
            keys.append(k)
    bad = 0
    print('| case | path | quarks | intervals | visits | '
          + ' | '.join('%s ms (cpu)' % n for n, _ in builds)
          + (' | ratio wall (cpu)' if a.before else '') + ' |')
    print('|---|---|---:|---:|---:|' + '---:|' * len(builds) + ('---:|' if a.before else ''))
    for case, path in keys:
        sel = [d for d in rows if d['case'] == case and d['path'] == path]
        med = {}
        for name, _ in builds:
            s = [d for d in sel if d['build'] == name]
            med[name] = (statistics.median(d['ms'] for d in s),
                         statistics.median(d['cpu_ms'] for d in s))
        hashes = {d['hash'] for d in sel}
        bad += len(hashes) != 1
        cells = ['%.1f (%.1f)' % med[n] for n, _ in builds]
        if a.before:
            b, f = med['before'], med['after']
            cells.append('%.2f (%.2f)' % (b[0] / f[0], b[1] / f[1]))
        print('| %s | %s | %d | %d | %d | %s |%s' % (
            case, path, sel[0]['quarks'], sel[0]['intervals'], sel[0]['visits'],
            ' | '.join(cells), '' if len(hashes) == 1 else ' ANSWERS DIFFER'))
    loads = [d['load'] for d in rows]
    print('\nload (1 min) during the runs: %.2f .. %.2f' % (min(loads), max(loads)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
