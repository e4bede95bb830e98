// test-hostile.js: malformed and hostile requests get a 4xx JSON answer
// with a title, and the server keeps serving: the request corpus of
// tests/data/server/hostile.json (bad JSON, wrong types, unknown ids,
// huge and negative counts, path escapes out of --root through "..",
// symbolic links and file URIs; and valid requests at the ends of the
// 64-bit times, which must answer 200 with a model that did not fail),
// broken HTTP on raw sockets (the statuses libmicrohttpd answers
// itself), what a web page of another site can send (a cross-origin
// POST that needs no preflight, a Host of another name after DNS
// rebinding, preflights) with and without --allow-origin, more
// connections than the server takes, traces that fail to decode, table
// searches (cut by their time bound, more at once than allowed), and
// traces with packet sizes babeltrace2 loops on or aborts on.
'use strict';

const fs = require('fs');
const http = require('http');
const net = require('net');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const lib = require('./lib');
const { ok, is, done, client, query, sleep, startServer, stopServer } = lib;

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
            // A body over the limit (1 MiB) is refused as soon as its
            // length is known: the server answers 413 and closes, and the
            // client, still sending, may see the connection closed instead.
            const big = Buffer.byteLength(body) > (1 << 20) && k.status[1] === 413;
            ok(big, `${k.name}: ${big ? 'refused, connection closed' : e}`);
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

// Send raw bytes to port (the test's server by default), return the
// status line ('' if the server closed without answering, 'TIMEOUT' if
// it neither answered nor closed within ms: a hang, never a pass).  With
// keepOpen the socket is not half-closed after the bytes: the server
// must close it itself.
function raw(bytes, port = Number(url.port), ms = 10000, keepOpen = false) {
    return new Promise((resolve) => {
        const s = net.connect(port, '127.0.0.1');
        let data = '';
        let timedOut = false;
        s.on('data', (d) => { data += d.toString('latin1'); });
        s.on('error', () => {});
        s.on('close', () => resolve(timedOut ? 'TIMEOUT' : (data.split('\r\n')[0] || '')));
        s.setTimeout(ms, () => { timedOut = true; s.destroy(); });
        if (keepOpen)
            s.write(bytes);
        else
            s.end(bytes);
    });
}

// One HTTP request with the headers given (Host and Origin included, as
// a browser would send them): {status, headers, text, json}.
function request(port, method, p, headers, body) {
    return new Promise((resolve, reject) => {
        const r = http.request({ host: '127.0.0.1', port, method, path: p, headers,
                                 agent: false }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d) => { text += d; });
            res.on('end', () => {
                let json = null;
                try { json = JSON.parse(text); } catch (e) { /* checked by the caller */ }
                resolve({ status: res.statusCode, headers: res.headers, text, json });
            });
        });
        r.on('error', reject);
        r.setTimeout(10000, () => r.destroy(new Error('no answer in 10 s')));
        r.end(body);
    });
}

// A refusal: status, JSON {title, detail}, exactly application/json.
function refused(r, status, desc) {
    ok(r.status === status && r.headers['content-type'] === 'application/json' &&
       r.json && typeof r.json.title === 'string' && typeof r.json.detail === 'string',
       `${desc}: ${r.status} ${r.json && r.json.title}`, r.text.slice(0, 300));
}

async function healthy(desc) {
    const h = await c.checkHealth();
    ok(h.isOk(), `still serving after ${desc}`);
}

// Broken HTTP: each case answered with the status docs/SERVER.md gives
// (those of libmicrohttpd itself are not JSON: see there), or closed
// without an answer where it says so; never a hang.
async function brokenHttp() {
    const H = 'Host: localhost\r\n';
    const cases = [
        ['garbage request line', 'GARBAGE\r\n\r\n', /^$/],
        ['huge URL', `GET /tsp/api/${'x'.repeat(100000)} HTTP/1.1\r\n${H}\r\n`, / 414 /],
        ['huge header', `GET /tsp/api/health HTTP/1.1\r\n${H}X: ${'y'.repeat(100000)}\r\n\r\n`, / 431 /],
        ['bad Content-Length', `POST /tsp/api/traces HTTP/1.1\r\n${H}Content-Length: -5\r\n\r\n`, / 400 /],
        ['Content-Length beyond 64 bits', `POST /tsp/api/traces HTTP/1.1\r\n${H}Content-Length: 99999999999999999999999\r\n\r\n`, / 413 /],
        ['bad chunk size', `POST /tsp/api/traces HTTP/1.1\r\n${H}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`, / 400 /],
        ['body longer than the limit', `POST /tsp/api/traces HTTP/1.1\r\n${H}Content-Type: application/json\r\nContent-Length: 99999999\r\n\r\n{"a":`, / 413 /],
        // Refused once past the limit: the client, still sending, may see
        // the connection closed before the answer.
        ['chunked body too large', `POST /tsp/api/traces HTTP/1.1\r\n${H}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n` +
            ('10000\r\n' + 'z'.repeat(0x10000) + '\r\n').repeat(40) + '0\r\n\r\n', /^$| 413 /],
        ['HTTP/0.9', 'GET /tsp/api/health\r\n\r\n', / 400 /],
        ['HTTP/2.0 request line', `GET /tsp/api/health HTTP/2.0\r\n${H}\r\n`, / 505 /],
    ];
    for (const [name, bytes, want] of cases) {
        const line = await raw(bytes);
        ok(want.test(line), `${name}: ${line || 'closed'}`);
        await healthy(name);
    }
}

// What a page of another site open in the user's browser can send: it
// must neither act (open a trace) nor read an answer.  The test's server
// listens on the loopback without --allow-origin.
async function webPages() {
    const port = Number(url.port);
    const evil = 'http://evil.example.com';
    const trace = path.join(tmproot, 'full.vstf');
    const open = JSON.stringify({ parameters: { uri: trace, name: 'from-a-page' } });
    const opened = async () => (await c.fetchTraces()).getModel().some((t) => t.name === 'from-a-page');
    // A cross-origin POST of a "simple" type goes without a preflight.
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded',
                        'multipart/form-data; boundary=x']) {
        const r = await request(port, 'POST', '/tsp/api/traces',
            { Host: `127.0.0.1:${port}`, Origin: evil, 'Content-Type': type }, open);
        refused(r, 415, `a cross-origin POST of ${type}`);
        ok(!('access-control-allow-origin' in r.headers), '... with no CORS header');
    }
    refused(await request(port, 'POST', '/tsp/api/traces', { Host: `localhost:${port}` }, open),
            415, 'a POST without a Content-Type');
    refused(await request(port, 'PUT', '/tsp/api/traces', { Host: `localhost:${port}`, 'Content-Type': 'text/plain' }, open),
            415, 'a PUT of text/plain');
    ok(!(await opened()), 'none of them opened the trace');
    // DNS rebinding: the page's own name, pointed at 127.0.0.1.
    for (const host of ['evil.example.com', `evil.example.com:${port}`, `127.0.0.1.evil.example.com:${port}`]) {
        const r = await request(port, 'GET', `/sht/api/files?path=${encodeURIComponent(traces)}`, { Host: host, Origin: evil });
        refused(r, 403, `Host: ${host} (DNS rebinding) listing files`);
        ok(!('access-control-allow-origin' in r.headers), '... with no CORS header');
    }
    const rb = await request(port, 'POST', '/tsp/api/traces',
        { Host: `evil.example.com:${port}`, 'Content-Type': 'application/json' }, open);
    refused(rb, 403, 'Host: evil.example.com opening a trace with a JSON body');
    is((await request(port, 'GET', '/', { Host: 'evil.example.com' })).status, 403,
       'Host: evil.example.com getting the viewer\'s page: 403');
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'LOCALHOST']) {
        const r = await request(port, 'GET', '/tsp/api/health', { Host: host });
        is(r.status, 200, `Host: ${host} is served`);
    }
    // No CORS header by default, and a preflight is refused.
    const g = await request(port, 'GET', '/tsp/api/traces', { Host: `localhost:${port}`, Origin: evil });
    ok(g.status === 200 && !('access-control-allow-origin' in g.headers),
       'no Access-Control-Allow-Origin by default', g.headers);
    const pf = await request(port, 'OPTIONS', '/tsp/api/traces', { Host: `localhost:${port}`, Origin: evil,
        'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' });
    refused(pf, 403, 'a preflight from another origin');
    ok(!('access-control-allow-origin' in pf.headers), '... with no CORS header');
    // JSON with a charset, as some clients send it, is JSON.
    const j = await request(port, 'POST', '/tsp/api/traces', { Host: `localhost:${port}`,
        'Content-Type': 'application/json; charset=utf-8' }, open);
    ok(j.status === 200 && j.json && j.json.name === 'from-a-page', `application/json; charset=utf-8 is taken: ${j.status}`);
    if (j.json && j.json.UUID)
        await c.deleteTrace(j.json.UUID);
}

// --allow-origin: the listed origins (or any, with *) get the CORS
// headers and their preflights; others do not.  Not on the loopback
// (--bind 0.0.0.0), any Host is served.  A value that is not an origin
// is a usage error.
async function allowOrigin(servers) {
    const dir = path.join(process.env.SHT_TMP, 'cors');
    fs.mkdirSync(dir, { recursive: true });
    const ok1 = 'http://localhost:3000';
    const s = await startServer(dir, 'cors', ['--allow-origin', ok1, '--allow-origin', 'https://viewer.example:8443'], servers);
    const H = { Host: `localhost:${s.port}` };
    const pf = await request(s.port, 'OPTIONS', '/tsp/api/experiments', { ...H, Origin: ok1,
        'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' });
    ok(pf.status === 200 && pf.headers['access-control-allow-origin'] === ok1 &&
       /\bPOST\b/.test(pf.headers['access-control-allow-methods'] || '') &&
       /\bcontent-type\b/i.test(pf.headers['access-control-allow-headers'] || '') &&
       /\bOrigin\b/.test(pf.headers.vary || ''),
       `--allow-origin ${ok1}: its preflight is answered`, pf.headers);
    const ps = await request(s.port, 'OPTIONS', `/sht/api/files?path=${encodeURIComponent(dir)}`, { ...H, Origin: ok1,
        'Access-Control-Request-Method': 'GET' });
    ok(ps.status === 200 && ps.headers['access-control-allow-origin'] === ok1,
       `... on sht's own /sht/api too: ${ps.status}`, ps.text);
    const g = await request(s.port, 'GET', '/tsp/api/health', { ...H, Origin: 'https://viewer.example:8443' });
    is(g.headers['access-control-allow-origin'], 'https://viewer.example:8443', '... and each listed origin reads answers');
    const p = await request(s.port, 'POST', '/tsp/api/experiments', { ...H, Origin: ok1, 'Content-Type': 'application/json' },
        JSON.stringify({ parameters: { name: 'x', traces: [] } }));
    ok(p.status >= 400 && p.headers['access-control-allow-origin'] === ok1,
       `... errors included (${p.status}), so the page can show them`);
    const o = await request(s.port, 'GET', '/tsp/api/health', { ...H, Origin: 'http://localhost:3001' });
    ok(o.status === 200 && !('access-control-allow-origin' in o.headers), '... another origin gets no CORS header');
    refused(await request(s.port, 'OPTIONS', '/tsp/api/health', { ...H, Origin: 'http://localhost:3001',
        'Access-Control-Request-Method': 'GET' }), 403, '... nor its preflight');
    refused(await request(s.port, 'POST', '/tsp/api/traces', { ...H, Origin: ok1, 'Content-Type': 'text/plain' }, '{}'),
            415, '... and an allowed origin still sends JSON only');
    is(await stopServer(s), 0, 'the --allow-origin server stops cleanly');

    const any = await startServer(dir, 'any', ['--allow-origin', '*', '--bind', '0.0.0.0'], servers);
    const a = await request(any.port, 'GET', '/tsp/api/health', { Host: 'trace-box.example:8080', Origin: 'http://a.example' });
    ok(a.status === 200 && a.headers['access-control-allow-origin'] === '*',
       '--allow-origin * --bind 0.0.0.0: any origin, any Host', { status: a.status, headers: a.headers });
    is(await stopServer(any), 0, 'that server stops cleanly');

    for (const bad of ['http://localhost:3000/', 'localhost:3000', 'null', 'ftp://a.example']) {
        const r = spawnSync(process.env.SHT, ['serve', '--port', '0', '--allow-origin', bad], { timeout: 10000 });
        ok(r.status === 2 && /--allow-origin/.test(r.stderr.toString()),
           `--allow-origin ${bad}: usage error (${r.status})`, r.stderr.toString());
    }
}

// A POST whose body stops for pauseMs halfway: its status line, '' if
// the server closed without answering.
function slowRequest(port, body, pauseMs) {
    return new Promise((resolve) => {
        const s = net.connect(port, '127.0.0.1');
        let data = '';
        s.on('data', (d) => { data += d.toString('latin1'); });
        s.on('error', () => {});
        s.on('close', () => resolve(data.split('\r\n')[0] || ''));
        s.setTimeout(pauseMs + 10000, () => s.destroy());
        s.write('POST /tsp/api/traces HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
                `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`);
        setTimeout(() => s.write(body.slice(5)), pauseMs);
    });
}

// More connections than --max-connections (8 on a server of its own,
// --timeout 20): those past the limit are closed at once, without an
// answer, not left waiting in the listen queue; the idle ones let in are
// closed after the wait for a first request (10 s: --timeout, 10 s at most),
// so that /health answers while the flood's sockets are all still open
// on its side.  A request under way keeps --timeout (its body paused
// 12 s is answered), and binary garbage on a socket left open does not
// hold it for ever.  Before the fix the extra connections waited in the
// listen queue and /health with them.
async function flood(servers) {
    const dir = path.join(process.env.SHT_TMP, 'flood');
    fs.mkdirSync(dir, { recursive: true });
    const s = await startServer(dir, 'flood', ['--max-connections', '8', '--timeout', '20'], servers);
    const t0 = Date.now();
    const garbage = raw(Buffer.from('000102676172626167650d0a0d0a', 'hex'), s.port, 14000, true);
    let garbageDone = false;
    garbage.then(() => { garbageDone = true; });
    const slow = slowRequest(s.port, JSON.stringify({ parameters: { uri: path.join(dir, 'none') } }), 12000);
    await sleep(300);
    const kept = 8 - 1 - (garbageDone ? 0 : 1);
    const socks = [];
    for (let i = 0; i < 40; i++) {
        const k = { s: net.connect(s.port, '127.0.0.1'), closed: -1, bytes: 0 };
        k.s.on('data', (d) => { k.bytes += d.length; });
        k.s.on('error', () => {});
        k.s.on('close', () => { k.closed = Date.now() - t0; });
        socks.push(k);
    }
    await sleep(1500);
    const shut = socks.filter((k) => k.closed >= 0);
    ok(shut.length === 40 - kept && shut.every((k) => k.bytes === 0),
       `40 idle connections to a server of 8 (${8 - kept} taken): ${40 - kept} refused ` +
       `(closed without a byte) within 1.5 s: ${shut.length}`);
    // /health: refused while the idle ones wait, answered once they are closed.
    const lines = [];
    for (let i = 0; i < 40 && !/ 200 /.test(lines[lines.length - 1]); i++) {
        lines.push(await raw('GET /tsp/api/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', s.port, 2000));
        if (!/ 200 /.test(lines[lines.length - 1]))
            await sleep(500);
    }
    const secs = (Date.now() - t0) / 1000;
    ok(lines.slice(0, -1).every((l) => l === ''), `/health while flooded: ${lines.length - 1} times refused at once ` +
       '(closed without an answer), never left waiting', lines);
    ok(/ 200 /.test(lines[lines.length - 1]) && secs < 15, `... then answered, ${secs.toFixed(1)} s after the flood began`);
    // (Each thread of the server closes its own at its time.)
    for (let i = 0; i < 30 && !socks.every((k) => k.closed >= 0); i++)
        await sleep(100);
    const last = Math.max(...socks.map((k) => k.closed)) / 1000;
    ok(socks.every((k) => k.closed >= 0 && k.bytes === 0) && last > 9 && last < 14,
       `... the ${kept} idle ones closed by the server without a byte after the 10 s wait: ${last.toFixed(1)} s`);
    socks.forEach((k) => k.s.destroy());
    const sl = await slow;
    ok(/^HTTP\/1\.1 404 /.test(sl), `a request whose body paused 12 s (< --timeout) is answered: ${sl || 'closed'}`);
    const g = await garbage;
    ok(g !== 'TIMEOUT', `binary garbage on an open socket: ${g || 'closed'}, not held`);
    is(await stopServer(s), 0, 'the flooded server stops cleanly');
}

// Unindexed CTF traces with a packet of size 0 (babeltrace2 2.0.4 loops
// for ever in the source's creation) and of 2^63 bits (it aborts): sht's
// walk of the packets refuses them before babeltrace2 sees them, with 406
// and a message naming the file and the packet, and the server serves on.
async function badPackets() {
    const one = path.join(tmproot, 'pk-one');
    execFileSync(process.env.SHT, ['gen', 'kernel', '--events', '2000', '--cpus', '1',
        '--threads', '5', '--no-progress', '-o', one]);
    fs.rmSync(path.join(one, 'index'), { recursive: true, force: true });
    const cases = [
        ['pk-zero', 48, Buffer.alloc(16), 'its packet size is 0'],
        ['pk-huge', 56, Buffer.from('0000000000000080', 'hex'),
         'its packet size, 9223372036854775808 bits, is 2^63 bits or more'],
    ];
    for (const [name, off, bytes, why] of cases) {
        const dir = path.join(tmproot, name);
        fs.cpSync(one, dir, { recursive: true });
        const f = path.join(dir, 'channel0_0');
        const b = fs.readFileSync(f);
        bytes.copy(b, off);
        fs.writeFileSync(f, b);
        const t0 = Date.now();
        const r = await fetch(`${url.origin}${url.pathname}/traces`, {
            method: 'POST', headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ parameters: { uri: dir, name } }),
            signal: AbortSignal.timeout(15000) });
        const j = await r.json();
        const want = `${f}: the packet at byte 0 is corrupt: ${why}`;
        is(r.status, 406, `${name}: refused with 406`);
        ok(typeof j.title === 'string' && typeof j.detail === 'string' &&
           j.detail.includes(want), `${name}: the message says where and what`,
           `want ${want}; got ${JSON.stringify(j)}`);
        ok(Date.now() - t0 < 10000, `${name}: refused at once (${Date.now() - t0} ms)`);
        await healthy(name);
    }
}

// Every output of experiment id answers FAILED with the reader's message
// (its tree, or the table's columns and lines, whose size is the events
// read before the bad spot and whose lines stop there).
const TABLE = 'org.eclipse.tracecompass.internal.provisional.tmf.core.model.events.TmfEventTableDataProvider';

async function post(what, params) {
    const r = await fetch(url.origin + url.pathname + what, {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ parameters: params }) });
    const text = await r.text();
    let j = null;
    try { j = JSON.parse(text); } catch (e) { /* checked by the caller */ }
    return { status: r.status, j, text };
}

function failedWithMessage(r, what) {
    ok(r.status === 200 && r.j && r.j.status === 'FAILED' &&
       /cannot read the trace .* after \d+ events: ./.test(r.j.statusMessage),
       `${what}: FAILED with the reader's message`, r.text.slice(0, 300));
}

async function everyOutputFails(id, name) {
    const x = (await c.fetchExperiment(id)).getModel();
    const outs = (await c.experimentOutputs(id)).getModel();
    const kinds = { TIME_GRAPH: 'timeGraph', TREE_TIME_XY: 'XY', DATA_TREE: 'data', TABLE: 'table' };
    ok(outs.length >= 5, `${name}: ${outs.length} outputs listed`);
    for (const o of outs) {
        const base = `/experiments/${id}/outputs/${kinds[o.type]}/${o.id}`;
        if (o.type !== 'TABLE') {
            failedWithMessage(await post(`${base}/tree`, {}), `${name}: ${o.name} tree`);
            continue;
        }
        failedWithMessage(await post(`${base}/columns`, {}), `${name}: table columns`);
        let r = await post(`${base}/lines`, { requested_table_index: 0, requested_table_count: 5 });
        failedWithMessage(r, `${name}: table lines`);
        const size = r.j && r.j.model ? r.j.model.size : -1;
        ok(size > 0 && size === Number(x.nbEvents) && r.j.model.lines.length === 5,
           `${name}: the table has the ${x.nbEvents} events read before the bad spot (size ${size})`);
        r = await post(`${base}/lines`, { requested_table_index: size - 2, requested_table_count: 10 });
        failedWithMessage(r, `${name}: the table's last lines`);
        ok(r.j && r.j.model && r.j.model.lines.length === 2 &&
           r.j.model.lines[1].index === size - 1, `${name}: no line past the bad spot`);
        r = await post(`${base}/lines`, { requested_table_index: 0, requested_table_count: 5,
                                          table_search_expressions: { 4: 'no-such-text-zq' },
                                          table_search_direction: 'NEXT' });
        failedWithMessage(r, `${name}: a search`);
    }
}

// A trace that cannot be decoded to its end (a CTF trace with a damaged
// stream, a VSTF file with a damaged byte past its first blocks): opened
// or refused (406), never a crash; if opened, its pass ends and every
// output answers FAILED with the reader's message, the table too, and
// the table of an experiment of it and a good trace.
async function brokenTrace(name, uri, other) {
    const r = await c.openTrace(query({ uri, name }));
    ok(r.isOk() || r.getStatusCode() === 406, `${name}: ${r.getStatusCode()}`);
    if (r.isOk()) {
        const e = (await c.createExperiment(query({ name, traces: [r.getModel().UUID] }))).getModel();
        let x;
        for (let i = 0; i < 600; i++) {
            x = (await c.fetchExperiment(e.UUID)).getModel();
            if (x.indexingStatus === 'COMPLETED')
                break;
            await sleep(100);
        }
        is(x.indexingStatus, 'COMPLETED', `${name}: the pass ends`);
        await everyOutputFails(e.UUID, name);
        if (other) {            // beside a good trace: the table is not whole
            const e2 = (await c.createExperiment(query({ name: name + ' and another',
                traces: [other, r.getModel().UUID] }))).getModel();
            for (let i = 0; i < 600 && (await c.fetchExperiment(e2.UUID)).getModel().indexingStatus !== 'COMPLETED'; i++)
                await sleep(100);
            const base = `/experiments/${e2.UUID}/outputs/table/${TABLE}`;
            failedWithMessage(await post(`${base}/columns`, {}), `${name} and another: table columns`);
            failedWithMessage(await post(`${base}/lines`, { requested_table_index: 0, requested_table_count: 5 }),
                              `${name} and another: table lines`);
            await c.deleteExperiment(e2.UUID);
        }
        await c.deleteExperiment(e.UUID);
        await c.deleteTrace(r.getModel().UUID);
    }
    await healthy(name);
}

async function brokenTraces(other) {
    const dir = path.join(tmproot, 'broken');
    fs.cpSync(path.join(traces, 'many-threads'), dir, { recursive: true });
    const f = path.join(dir, 'channel0_3');
    const b = fs.readFileSync(f);
    for (let i = b.length >> 2; i < b.length; i += 97)
        b[i] ^= 0x5a;
    fs.writeFileSync(f, b);
    await brokenTrace('damaged CTF trace', dir, other);
    const v = path.join(tmproot, 'damaged.vstf');
    execFileSync(process.env.SHT, ['gen', 'kernel', '--format', 'vstf', '--events', '300000', '-o', v]);
    const d = fs.readFileSync(v);
    d[Math.floor(d.length * 0.6)] ^= 0x5a;
    fs.writeFileSync(v, d);
    await brokenTrace('damaged VSTF file', v);
}

// ---- table searches on servers of their own -------------------------------------

// Start a server with SHT_SERVE_SEARCH_SECONDS=seconds on traces of
// tmproot; open trace there: {s, e (experiment UUID)}.
const servers = [];
async function searchServer(name, seconds, args, trace) {
    process.env.SHT_SERVE_SEARCH_SECONDS = String(seconds);
    const s = await lib.startServer(tmproot, name, args, servers);
    delete process.env.SHT_SERVE_SEARCH_SECONDS;
    const x = await lib.openAnalysed(s, trace, name);
    return { s, e: x.UUID, size: Number(x.nbEvents) };
}

const searchOf = (t, index, dir, text) => lib.postTo(t.s, `/experiments/${t.e}/outputs/table/${TABLE}/lines`,
    { requested_table_index: index, requested_table_count: 5,
      table_search_expressions: { 4: text }, table_search_direction: dir });

// A search stopped by its time bound (here 1 µs: it stops at its first
// look at the clock, after 256 events) says so: CANCELLED and the lines
// it read without a match, not a COMPLETED "no match".  One that ends
// in time says no match with COMPLETED, one that finds answers its line.
async function cutSearch(trace) {
    const t = await searchServer('cut', 0.000001, [], trace);
    let r = await searchOf(t, 10, 'NEXT', 'no-such-text-zq');
    let j = JSON.parse(r.text);
    ok(r.status === 200 && j.status === 'CANCELLED' && j.model.lines.length === 0 &&
       /search stopped after .* s: no match in lines 10 to 265 \(times \d+ to \d+ ns\).* from line 266/.test(j.statusMessage),
       'a search cut by its bound says where it stopped', r.text.slice(0, 400));
    r = await searchOf(t, 100000, 'PREVIOUS', 'no-such-text-zq');
    j = JSON.parse(r.text);
    ok(r.status === 200 && j.status === 'CANCELLED' && j.model.lines.length === 0 &&
       /search stopped after/.test(j.statusMessage), 'a search back cut by its bound says so',
       r.text.slice(0, 400));
    r = await searchOf(t, t.size - 100, 'NEXT', 'no-such-text-zq');
    j = JSON.parse(r.text);
    ok(r.status === 200 && j.status === 'COMPLETED' && j.model.lines.length === 0,
       'a search to the end without a match: COMPLETED, no line', r.text.slice(0, 400));
    r = await searchOf(t, 10, 'NEXT', '.');
    j = JSON.parse(r.text);
    ok(r.status === 200 && j.status === 'COMPLETED' && j.model.lines.length === 5 &&
       j.model.lines[0].index === 10 && j.model.lines[0].tags === 8, 'a search that finds answers its line',
       r.text.slice(0, 400));
    is(await lib.stopServer(t.s), 0, 'the cut-search server stops cleanly');
}

// Searches read for seconds on a worker each: with 4 workers at most 2
// run at once, the others are refused at once (429, JSON), and the
// server answers other requests meanwhile.
async function busySearches(trace) {
    const t = await searchServer('busy', 3, ['--workers', '4'], trace);
    const pending = [];
    for (let i = 0; i < 4; i++) {
        const t0 = Date.now();
        pending.push(searchOf(t, 10, 'NEXT', 'no-such-text-zq').then((r) => ({ ...r, ms: Date.now() - t0 })));
        await sleep(50);
    }
    const t0 = Date.now();
    const h = await fetch(`http://127.0.0.1:${t.s.port}/tsp/api/health`);
    const hms = Date.now() - t0;
    const busy = await fetch(`http://127.0.0.1:${t.s.port}/tsp/api/experiments`);
    ok(h.status === 200 && busy.status === 200 && hms < 2000,
       `/health and /experiments answer while searches run (/health ${hms} ms)`);
    const rs = await Promise.all(pending);
    const refused = rs.filter((r) => r.status === 429);
    const ran = rs.filter((r) => r.status === 200);
    ok(refused.length === 2 && ran.length === 2,
       `2 searches ran, 2 were refused: ${rs.map((r) => `${r.status} ${r.ms} ms`).join(', ')}`);
    for (const r of refused) {
        const j = JSON.parse(r.text);
        ok(j.title === 'Too many searches' && /2 table searches are running/.test(j.detail) && r.ms < 1000 &&
           r.retryAfter === '2', `a refused search says why at once (${r.ms} ms), and when to ask again`,
           `${r.text} Retry-After: ${r.retryAfter}`);
    }
    for (const r of ran) {
        const j = JSON.parse(r.text);
        ok(['COMPLETED', 'CANCELLED'].includes(j.status) && j.model.lines.length === 0,
           `a search ran: ${j.status}`, r.text.slice(0, 300));
    }
    is(await lib.stopServer(t.s), 0, 'the busy-search server stops cleanly');
}

async function searches() {
    const v = path.join(tmproot, 'search.vstf');
    execFileSync(process.env.SHT, ['gen', 'kernel', '--format', 'vstf', '--events', '500000', '-o', v]);
    await cutSearch(v);
    await busySearches(v);
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
    await webPages();
    await allowOrigin(servers);
    await flood(servers);
    await brokenTraces(t.UUID);
    await searches();
    await badPackets();
    done();
})().catch((err) => {
    ok(false, 'no exception', err.stack);
    servers.forEach((s) => s.p.kill('SIGTERM'));
    done();
});
