// test-hostile.js: malformed and hostile requests get a 4xx JSON answer
// with a title, and the server keeps serving: the request corpus of
// tests/data/server/hostile.json (bad JSON, wrong types, unknown ids,
// huge and negative counts, path escapes out of --root through "..",
// symbolic links and file URIs; and valid requests at the ends of the
// 64-bit times, which must answer 200 with a model that did not fail),
// broken HTTP on raw sockets, more connections than the server takes,
// and a trace that fails to decode.
'use strict';

const fs = require('fs');
const net = require('net');
const path = require('path');
const { execFileSync } = require('child_process');
const { ok, is, done, client, query, sleep } = require('./lib');

const url = new URL(process.env.SHT_SERVER_URL);
const tmproot = path.join(process.env.SHT_TMP, 'root');
const traces = path.join(process.env.SHT_SHARED, 'traces');
const c = client();

// The files the corpus names under the second root.
function makeRoot() {
    fs.writeFileSync(path.join(tmproot, 'notes.txt'), 'not a trace\n');
    fs.mkdirSync(path.join(tmproot, 'empty'), { recursive: true });
    try { fs.symlinkSync('/etc', path.join(tmproot, 'escape')); } catch (e) { /* exists */ }
    const v = path.join(tmproot, 'full.vstf');
    execFileSync(process.env.SHT, ['gen', 'kernel', '--format', 'vstf', '--events', '5000', '-o', v]);
    const b = fs.readFileSync(v);
    fs.writeFileSync(path.join(tmproot, 'cut.vstf'), b.subarray(0, b.length >> 1));
}

// The corpus's templates: {var} (e, t, root, tmproot; start and end: the
// experiment's times), @RANGE(n)@ (0..n-1 as a JSON array),
// @A(n)@ (n letters), @NEST(n)@ (n "["), @BYTES(hex)@ (raw bytes: the
// body is then a Buffer).
function expand(s, vars) {
    if (/@BYTES\(/.test(s)) {
        const parts = s.split(/@BYTES\(([0-9a-f]*)\)@/);
        return Buffer.concat(parts.map((p, i) => (i % 2 ? Buffer.from(p, 'hex')
                                                         : Buffer.from(expand(p, vars)))));
    }
    return s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? vars[k] : m))
        .replace(/@RANGE\((\d+)\)@/g, (m, n) => JSON.stringify([...Array(Number(n)).keys()]))
        .replace(/@A\((\d+)\)@/g, (m, n) => 'a'.repeat(Number(n)))
        .replace(/@NEST\((\d+)\)@/g, (m, n) => '['.repeat(Number(n)));
}

async function corpus(vars) {
    const cases = JSON.parse(fs.readFileSync(path.join(process.env.SHT_SRCDIR,
        'tests/data/server/hostile.json'), 'utf8'));
    for (const k of cases) {
        const body = expand(k.body, vars);
        let r, text;
        try {
            r = await fetch(url.origin + expand(k.path, vars), {
                method: k.method, body: k.method === 'GET' ? undefined : body,
                headers: { 'Content-Type': 'application/json' } });
            text = await r.text();
        } catch (e) {
            // A body over the limit is refused as soon as its length is
            // known: the server answers 413 and closes, and the client,
            // still sending, may see the connection closed instead.
            ok(k.status[0] === 413, `${k.name}: ${k.status[0] === 413 ? 'refused, connection closed' : e}`);
            continue;
        }
        let j = null;
        try { j = JSON.parse(text); } catch (e) { /* checked below */ }
        const good = k.status[0] < 300 ? j && j.model !== undefined && j.status !== 'FAILED'
                                       : j && typeof j.title === 'string';
        ok(r.status >= k.status[0] && r.status <= k.status[1] &&
           r.headers.get('content-type') === 'application/json' && good,
           `${k.name}: ${r.status} ${j && (j.title || j.status)}`, text.slice(0, 300));
    }
}

// Send raw bytes, return the status line ('' if the server closed).
function raw(bytes) {
    return new Promise((resolve) => {
        const s = net.connect(Number(url.port), '127.0.0.1');
        let data = '';
        s.on('data', (d) => { data += d.toString('latin1'); });
        s.on('error', () => resolve(data.split('\r\n')[0] || ''));
        s.on('close', () => resolve(data.split('\r\n')[0] || ''));
        s.setTimeout(10000, () => s.destroy());
        s.end(bytes);
    });
}

async function healthy(desc) {
    const h = await c.checkHealth();
    ok(h.isOk(), `still serving after ${desc}`);
}

async function brokenHttp() {
    const cases = [
        ['garbage request line', 'GARBAGE\r\n\r\n'],
        ['huge URL', `GET /tsp/api/${'x'.repeat(100000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
        ['huge header', `GET /tsp/api/health HTTP/1.1\r\nHost: x\r\nX: ${'y'.repeat(100000)}\r\n\r\n`],
        ['bad Content-Length', 'POST /tsp/api/traces HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n'],
        ['body longer than the limit', `POST /tsp/api/traces HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n{"a":`],
        ['chunked body too large', 'POST /tsp/api/traces HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n' +
            ('10000\r\n' + 'z'.repeat(0x10000) + '\r\n').repeat(40) + '0\r\n\r\n'],
        ['HTTP/0.9', 'GET /tsp/api/health\r\n\r\n'],
    ];
    for (const [name, bytes] of cases) {
        const line = await raw(bytes);
        ok(line === '' || /^HTTP\/1\.[01] 4\d\d/.test(line), `${name}: ${line || 'closed'}`);
        await healthy(name);
    }
}

// More connections than --max-connections: the extra ones are refused,
// the server serves on once they close.
async function flood() {
    const socks = [];
    for (let i = 0; i < 150; i++) {
        const s = net.connect(Number(url.port), '127.0.0.1');
        s.on('error', () => {});
        socks.push(s);
    }
    await sleep(500);
    socks.forEach((s) => s.destroy());
    // The server learns of the closes asynchronously (a loaded machine, a
    // sanitizer build): it must serve again once it has, within 10 s.
    let h;
    for (let i = 0; i < 50; i++) {
        await sleep(200);
        h = await c.checkHealth();
        if (h.isOk())
            break;
    }
    ok(h.isOk(), 'still serving after 150 idle connections closed');
}

// A CTF trace with a damaged stream: opened or refused, never a crash;
// analyses that cannot read it answer FAILED with a message.
async function brokenTrace() {
    const dir = path.join(tmproot, 'broken');
    fs.cpSync(path.join(traces, 'many-threads'), dir, { recursive: true });
    const f = path.join(dir, 'channel0_3');
    const b = fs.readFileSync(f);
    for (let i = b.length >> 2; i < b.length; i += 97)
        b[i] ^= 0x5a;
    fs.writeFileSync(f, b);
    const r = await c.openTrace(query({ uri: dir, name: 'broken' }));
    ok(r.isOk() || r.getStatusCode() === 406, `damaged trace: ${r.getStatusCode()}`);
    if (r.isOk()) {
        const e = (await c.createExperiment(query({ name: 'broken', traces: [r.getModel().UUID] }))).getModel();
        let x;
        for (let i = 0; i < 300; i++) {
            x = (await c.fetchExperiment(e.UUID)).getModel();
            if (x.indexingStatus === 'COMPLETED')
                break;
            await sleep(100);
        }
        is(x.indexingStatus, 'COMPLETED', 'the damaged trace\'s pass ends');
        const t = await c.fetchTimeGraphTree(e.UUID,
            'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider', query({}));
        ok(t.isOk() && t.getModel() && ['FAILED', 'COMPLETED'].includes(t.getModel().status),
           `its Thread Status answers ${t.getModel() && t.getModel().status}: ${t.getModel() && t.getModel().statusMessage}`);
        await c.deleteExperiment(e.UUID);
        await c.deleteTrace(r.getModel().UUID);
    }
    await healthy('a damaged trace');
}

(async () => {
    makeRoot();
    const t = (await c.openTrace(query({ uri: path.join(traces, 'many-threads') }))).getModel();
    let e = (await c.createExperiment(query({ name: 'mt', traces: [t.UUID] }))).getModel();
    for (let i = 0; i < 600 && e.indexingStatus !== 'COMPLETED'; i++) {
        await sleep(200);
        e = (await c.fetchExperiment(e.UUID)).getModel();
    }
    ok(e.indexingStatus === 'COMPLETED', 'the experiment is analysed');
    await corpus({ root: traces, tmproot, t: t.UUID, e: e.UUID, start: e.start, end: e.end });
    await healthy('the corpus');
    await brokenHttp();
    await flood();
    await brokenTrace();
    done();
})().catch((err) => {
    ok(false, 'no exception', err.stack);
    done();
});
