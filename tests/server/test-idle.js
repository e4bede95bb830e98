// test-idle.js: `sht serve --idle-release S` gives the memory of earlier
// answers back once no request has run for S seconds: the history pages a
// whole-trace screen mapped leave the server's RSS (RssFile), and the next
// screen gets the same answer.  With 0 it keeps them.  Two servers of
// their own on one cache directory, on a generated kernel trace.
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const lib = require('./lib.js');
const { ok, is, diag, done, sleep } = lib;

const TG = 'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider';
const dir = path.join(process.env.SHT_TMP, 'idle');
const servers = [];

const startServer = (name, x) => lib.startServer(dir, name, ['--idle-release', String(x)], servers);
const stop = lib.stopServer;
const post = lib.postTo;

// The server's mapped file pages, in KiB (/proc/PID/status).
function rssFile(s) {
    const m = /^RssFile:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${s.p.pid}/status`, 'utf8'));
    return Number(m[1]);
}

const openTrace = (s, trace) => lib.openAnalysed(s, trace, 'idle');

// A whole-trace Control Flow screen: every row x 1920 times.
async function screen(s, e) {
    const base = `/experiments/${e.UUID}/outputs/timeGraph/${TG}`;
    const tree = JSON.parse((await post(s, base + '/tree', {})).text);
    const ids = tree.model.entries.map((x) => x.id);
    const text = (await post(s, base + '/states', {
        requested_timerange: { start: e.start, end: e.end, nbTimes: 1920 },
        requested_items: ids })).text;
    return text;
}

(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const trace = path.join(dir, 'k16');
    execFileSync(process.env.SHT, ['gen', 'kernel', '--size', '16m', '--cpus', '4',
                                   '--threads', '300', '--seed', '3', '-o', trace]);

    const a = await startServer('release', 1);
    const e = await openTrace(a, trace);
    const hist = fs.readdirSync(path.join(dir, 'cache')).map((d) => path.join(dir, 'cache', d, 'kernel.sht'))
        .find((f) => fs.existsSync(f));
    const kib = fs.statSync(hist).size / 1024;
    // The kernel maps a whole 64 KiB window of the history per fault only
    // where the pages are in its page cache (else just the page read):
    // read the file first, in case other jobs pushed it out.
    const warm = () => fs.readFileSync(hist).length;
    await sleep(1500);                    // the analysis's own pages released
    warm();
    const before = rssFile(a);
    const first = await screen(a, e);
    const busy = rssFile(a);
    diag(`history ${kib.toFixed(0)} KiB; RssFile before the screen ${before}, after ${busy} KiB`);
    ok(busy - before > kib / 4, 'a whole-trace screen maps a good part of the history',
       `${busy - before} KiB mapped of ${kib.toFixed(0)}`);
    await sleep(2500);
    const idle = rssFile(a);
    diag(`--idle-release 1: RssFile 2.5 s later ${idle} KiB`);
    ok(busy - idle > (busy - before) * 0.9, 'idle for 1 s: the mapped history pages are given back',
       `${busy} KiB -> ${idle} KiB`);
    warm();
    // RssFile read at once: compared later, a loaded machine may take over
    // a second to get there, and the server is idle again by then.
    const second = await screen(a, e);
    const again = rssFile(a);
    diag(`after the next screen: RssFile ${again} KiB`);
    ok(second === first, 'the next screen gets the same answer',
       `${second.length} bytes against ${first.length}`);
    ok(again - idle > kib / 4, 'and maps its pages again', `${idle} KiB -> ${again} KiB`);
    is(await stop(a), 0, 'the server stops cleanly');

    const b = await startServer('keep', 0);
    const e2 = await openTrace(b, trace);
    ok(await screen(b, e2) === first, '--idle-release 0: the same answer (histories reused)');
    const kept = rssFile(b);
    await sleep(2500);
    const later = rssFile(b);
    diag(`--idle-release 0: RssFile ${kept} KiB, 2.5 s later ${later} KiB`);
    ok(later > kept - kib / 16, '--idle-release 0: the pages stay mapped', `${kept} KiB -> ${later} KiB`);
    is(await stop(b), 0, 'the server stops cleanly');
    done();
})().catch((err) => {
    ok(false, 'test-idle', err.stack);
    for (const s of servers)
        s.p.kill('SIGKILL');
    done();
});
