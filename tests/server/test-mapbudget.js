// test-mapbudget.js: `sht serve --map-budget MIB` bounds the pages of a
// history the server keeps mapped.  Whole-trace Control Flow and Resources
// screens, twice, in a server with a 1 MiB budget: the kernel history's
// resident pages in the server's map (/proc/PID/smaps) stay within the
// budget plus its core nodes (which are always kept) and a few windows of
// slack, and the answers are byte for byte those of a server without a
// budget (--map-budget 0), which maps more than that bound for the same
// screens.  Idle release off in both, so that nothing else gives pages
// back.  Servers of their own on one cache directory, on a generated
// kernel trace.
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const lib = require('./lib.js');
const { ok, is, diag, done, sleep } = lib;

const TG = 'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider';
const RS = 'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ResourcesStatusDataProvider';
const dir = path.join(process.env.SHT_TMP, 'mapbudget');
const servers = [];
const WINDOW = 65536;         // what the kernel maps per fault (a block)

const startServer = (name, x) => lib.startServer(dir, name, ['--idle-release', '0', '--map-budget', String(x)], servers);
const stop = lib.stopServer;
const post = lib.postTo;

// Resident KiB of the server's mappings of file (/proc/PID/smaps).
function mappedKiB(s, file) {
    let kib = 0, inside = false;
    for (const line of fs.readFileSync(`/proc/${s.p.pid}/smaps`, 'utf8').split('\n')) {
        if (/^[0-9a-f]+-[0-9a-f]+ /.test(line))
            inside = line.endsWith(' ' + file);
        else if (inside && line.startsWith('Rss:'))
            kib += Number(line.split(/\s+/)[1]);
    }
    return kib;
}

const openTrace = (s, trace) => lib.openAnalysed(s, trace, 'mb');

// A whole-trace screen of output out: every row x 1920 times.
async function screen(s, e, out) {
    const base = `/experiments/${e.UUID}/outputs/timeGraph/${out}`;
    const tree = JSON.parse((await post(s, base + '/tree', {})).text);
    const ids = tree.model.entries.map((x) => x.id);
    const r = await post(s, base + '/states', {
        requested_timerange: { start: e.start, end: e.end, nbTimes: 1920 },
        requested_items: ids });
    is(r.status, 200, `${out.split('.').pop()}: the screen answers`);
    return r.text;
}

// Both screens, twice (the second pass finds the kept pages mapped and
// copies the rest again): their answers, and the history's mapped KiB.
async function session(s, e, hist) {
    const texts = [];
    for (let round = 0; round < 2; round++)
        for (const out of [TG, RS])
            texts.push(await screen(s, e, out));
    return { texts, kib: mappedKiB(s, hist) };
}

(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const trace = path.join(dir, 'k32');
    execFileSync(process.env.SHT, ['gen', 'kernel', '--size', '32m', '--cpus', '4',
                                   '--threads', '300', '--seed', '5', '-o', trace]);

    const a = await startServer('budget', 1);
    const e = await openTrace(a, trace);
    const hist = fs.readdirSync(path.join(dir, 'cache')).map((d) => path.join(dir, 'cache', d, 'kernel.sht'))
        .find((f) => fs.existsSync(f));
    const info = JSON.parse(execFileSync(process.env.SHT, ['info', '--json', hist], { encoding: 'utf8' }));
    is(info.block_size, WINDOW, 'the kernel history has 64 KiB blocks');
    // the budget, every core node, 4 windows racing at the bound (query
    // and writing threads), the header's window
    const bound = (1 << 20) / 1024 + (info.core_nodes + 5) * WINDOW / 1024;
    // The kernel maps a whole window per fault only where the pages are
    // in its page cache: read the file first, as a loaded machine may
    // have pushed it out.
    fs.readFileSync(hist);
    const withBudget = await session(a, e, hist);
    diag(`history ${(info.file_bytes / 1024).toFixed(0)} KiB, ${info.leaf_nodes} leaves, ` +
         `${info.core_nodes} core nodes; mapped with --map-budget 1: ${withBudget.kib} KiB (bound ${bound})`);
    ok(withBudget.kib > 0 && withBudget.kib <= bound,
       '--map-budget 1: the history\'s mapped pages stay within the budget and the core nodes',
       `${withBudget.kib} KiB, bound ${bound} KiB`);
    is(await stop(a), 0, 'the server stops cleanly');

    const b = await startServer('all', 0);
    const e2 = await openTrace(b, trace);
    fs.readFileSync(hist);
    const all = await session(b, e2, hist);
    diag(`--map-budget 0: mapped ${all.kib} KiB`);
    ok(all.kib > bound, '--map-budget 0: the same screens map more than that bound',
       `${all.kib} KiB against ${bound}`);
    ok(all.texts.length === withBudget.texts.length &&
       all.texts.every((t, i) => t === withBudget.texts[i]),
       'the answers are the same, byte for byte, with and without the budget',
       all.texts.map((t) => t.length).join(' '));
    is(await stop(b), 0, 'the server stops cleanly');
    done();
})().catch((err) => {
    ok(false, 'test-mapbudget', err.stack);
    for (const s of servers)
        s.p.kill('SIGKILL');
    done();
});
