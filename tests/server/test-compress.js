// test-compress.js: when `sht serve` gzips its answers (--compress).
// A client offering gzip gets a big answer compressed only if it is on
// another machine (auto, the default), always, or never; the bytes
// inflate to the plain answer.  The server of run.sh (default options,
// bound to the loopback) and three more started here, on every address,
// reached through this machine's first non-loopback IPv4 address: the
// server then sees a client that is not on the loopback.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const zlib = require('zlib');
const { spawn } = require('child_process');
const { ok, is, diag, done, sleep } = require('./lib.js');

const FILE = '/js/timegraph.js';          // a viewer file, over 4 KiB

function get(host, port, gzip) {
    const t0 = process.hrtime.bigint();
    return new Promise((resolve, reject) => {
        const req = http.get({ host, port, path: FILE,
                               headers: gzip ? { 'Accept-Encoding': 'gzip' } : {} },
        (res) => {
            const parts = [];
            res.on('data', (d) => parts.push(d));
            res.on('end', () => resolve({ status: res.statusCode,
                                          enc: res.headers['content-encoding'],
                                          timing: res.headers['server-timing'],
                                          ms: Number(process.hrtime.bigint() - t0) / 1e6,
                                          body: Buffer.concat(parts) }));
        });
        req.on('error', reject);
    });
}

function getText(port, p) {
    return new Promise((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path: p }, (res) => {
            const parts = [];
            res.on('data', (d) => parts.push(d));
            res.on('end', () => resolve(Buffer.concat(parts)));
        }).on('error', reject);
    });
}

function post(port, p, params, gzip) {
    return new Promise((resolve, reject) => {
        const body = JSON.stringify({ parameters: params });
        const req = http.request({ host: '127.0.0.1', port, path: '/tsp/api' + p, method: 'POST',
                                   headers: { 'Content-Type': 'application/json',
                                              ...(gzip ? { 'Accept-Encoding': 'gzip' } : {}) } },
        (res) => {
            const parts = [];
            res.on('data', (d) => parts.push(d));
            res.on('end', () => {
                const raw = Buffer.concat(parts);
                const text = (res.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(raw) : raw)
                    .toString();
                resolve({ status: res.statusCode, enc: res.headers['content-encoding'], text });
            });
        });
        req.on('error', reject);
        req.end(body);
    });
}

const TG = 'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider';

// A Control Flow screen of a real trace: its text and the row count.
async function screen(port, gzip) {
    const trace = path.join(process.env.SHT_SHARED, 'traces', 'bug446190');
    const t = JSON.parse((await post(port, '/traces', { uri: trace, name: 'bug446190' })).text);
    const e = JSON.parse((await post(port, '/experiments', { name: 'e', traces: [t.UUID] })).text);
    let tree;
    for (let i = 0; i < 600; i++) {
        tree = JSON.parse((await post(port, `/experiments/${e.UUID}/outputs/timeGraph/${TG}/tree`, {})).text);
        if (tree.status === 'COMPLETED')
            break;
        await sleep(100);
    }
    const ids = tree.model.entries.map((x) => x.id);
    // the experiment's span once analysed (at its creation the server may
    // not have read the trace to its end)
    const x = JSON.parse((await getText(port, `/tsp/api/experiments/${e.UUID}`)).toString());
    const range = { start: x.start, end: x.end, nbTimes: 1920 };
    const r = await post(port, `/experiments/${e.UUID}/outputs/timeGraph/${TG}/states`,
                         { requested_timerange: range, requested_items: ids }, gzip);
    return { ...r, rows: ids.length, entries: tree.model.entries };
}

// A screen's rows keyed by their entries' labels, sorted: two servers
// give their entries ids in the order they first met them (a tree asked
// for while the analysis ran holds only the threads seen so far), so
// their answers are compared by what the rows show, not by id.
function byLabels(sc) {
    const label = new Map(sc.entries.map((x) => [x.id, JSON.stringify([x.labels, String(x.start), String(x.end)])]));
    return JSON.stringify(JSON.parse(sc.text).model.rows
        .map((r) => [label.get(r.entryId), r.states])
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}

async function startServer(name, args) {
    const dir = path.join(process.env.SHT_TMP, 'compress-' + name);
    const portFile = path.join(dir, 'port');
    fs.mkdirSync(dir, { recursive: true });
    fs.rmSync(portFile, { force: true });
    const p = spawn(process.env.SHT, ['serve', '--port', '0', '--port-file', portFile,
                                      '--cache', path.join(dir, 'cache'), '--root', dir,
                                      '--root', path.join(process.env.SHT_SHARED, 'traces'),
                                      '--quiet', ...args],
                    { stdio: 'inherit', env: { ...process.env, SHT_SERVE_SPLIT_ROWS: '1' } });
    for (let i = 0; i < 100 && !(fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8').trim()); i++)
        await sleep(100);
    return { p, port: Number(fs.readFileSync(portFile, 'utf8').trim()) };
}

function stop(s) {
    return new Promise((resolve) => {
        s.p.on('exit', (code) => resolve(code));
        s.p.kill('SIGTERM');
    });
}

function outsideAddress() {
    for (const list of Object.values(os.networkInterfaces()))
        for (const a of list)
            if (a.family === 'IPv4' && !a.internal)
                return a.address;
    return null;
}

async function expect(desc, host, port, gzipped, plain) {
    const r = await get(host, port, true);
    is(r.status, 200, `${desc}: 200`);
    is(r.enc || 'identity', gzipped ? 'gzip' : 'identity', `${desc}: Content-Encoding`);
    const body = gzipped && r.enc === 'gzip' ? zlib.gunzipSync(r.body) : r.body;
    ok(body.equals(plain), `${desc}: the same bytes as the plain answer`,
       `${body.length} bytes against ${plain.length}`);
    if (gzipped)
        ok(r.body.length < plain.length / 2, `${desc}: compressed`, `${r.body.length} bytes`);
}

const servers = {};

(async () => {
    const url = new URL(process.env.SHT_SERVER_URL);
    const first = await get(url.hostname, url.port, false);
    const plain = first.body;
    // Server-Timing: the server's time to the answer, at most the client's
    const dur = /^app;dur=(\d+\.\d\d)$/.exec(first.timing || '');
    ok(dur && Number(dur[1]) >= 0 && Number(dur[1]) <= first.ms,
       'Server-Timing gives the time to the answer', `${first.timing}, ${first.ms} ms at the client`);
    ok(plain.length > 4096, `${FILE} is big enough to be compressed`, `${plain.length} bytes`);
    await expect('auto, client on the loopback', url.hostname, url.port, false, plain);

    const outside = outsideAddress();
    for (const mode of ['auto', 'always', 'never'])
        servers[mode] = await startServer(mode, ['--bind', '0.0.0.0', '--compress', mode]);
    await expect('always, client on the loopback', '127.0.0.1', servers.always.port, true, plain);
    await expect('never, client on the loopback', '127.0.0.1', servers.never.port, false, plain);
    await expect('auto on every address, client on the loopback', '127.0.0.1',
                 servers.auto.port, false, plain);
    // A screen written on two threads is sent in two parts; gzipped, the
    // parts are compressed as one text (SHT_SERVE_SPLIT_ROWS=1 above).
    const [zipped, unzipped] = [await screen(servers.always.port, true),
                                await screen(servers.never.port, true)];
    ok(zipped.status === 200 && zipped.enc === 'gzip' && unzipped.enc === undefined,
       'a two-part screen: gzipped by --compress always, not by never', `${zipped.status} ${zipped.enc}`);
    ok(zipped.rows > 1 && zipped.text.length === unzipped.text.length &&
       JSON.parse(zipped.text).model.rows.length === zipped.rows &&
       byLabels(zipped) === byLabels(unzipped),
       `a two-part screen of ${zipped.rows} rows inflates to the plain answer (rows by label)`,
       `${zipped.text.length} against ${unzipped.text.length} bytes`);
    if (outside) {
        diag(`client address ${outside}`);
        await expect('auto, client on another address', outside, servers.auto.port, true, plain);
        await expect('always, client on another address', outside, servers.always.port, true, plain);
        await expect('never, client on another address', outside, servers.never.port, false, plain);
        const r = await get(outside, servers.auto.port, false);
        is(r.enc || 'identity', 'identity', 'auto, client on another address not offering gzip');
    } else {
        ok(false, 'this machine has no non-loopback IPv4 address to test auto with');
    }
    for (const mode of Object.keys(servers)) {
        is(await stop(servers[mode]), 0, `--compress ${mode}: the server stops cleanly`);
        delete servers[mode];
    }
    done();
})().catch((e) => {
    ok(false, 'test-compress', e.stack);
    for (const s of Object.values(servers))
        s.p.kill('SIGKILL');
    done();
});
