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

async function startServer(name, args) {
    const dir = path.join(process.env.SHT_TMP, 'compress-' + name);
    const portFile = path.join(dir, 'port');
    fs.mkdirSync(dir, { recursive: true });
    fs.rmSync(portFile, { force: true });
    const p = spawn(process.env.SHT, ['serve', '--port', '0', '--port-file', portFile,
                                      '--cache', path.join(dir, 'cache'), '--root', dir,
                                      '--quiet', ...args], { stdio: 'inherit' });
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
