// test-hostile.js: malformed and hostile requests get a 4xx JSON answer
// with a title, and the server keeps serving: the request corpus of
// tests/data/server/hostile.json (bad JSON, wrong types, unknown ids,
// huge and negative counts, path escapes out of --root through "..",
// symbolic links and file URIs; and valid requests at the ends of the
// 64-bit times, which must answer 200 with a model that did not fail),
// broken HTTP on raw sockets, more connections than the server takes,
// traces that fail to decode, table searches (cut by their time bound,
// more at once than allowed), and traces with packet sizes babeltrace2
// loops on or aborts on.
'use strict';

const fs = require('fs');
const net = require('net');
const path = require('path');
const { execFileSync } = require('child_process');
const lib = require('./lib');
const { ok, is, done, client, query, sleep } = lib;

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
        ok(j.title === 'Too many searches' && /2 table searches are running/.test(j.detail) && r.ms < 1000,
           `a refused search says why at once (${r.ms} ms)`, r.text);
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
    await flood();
    await brokenTraces(t.UUID);
    await searches();
    await badPackets();
    done();
})().catch((err) => {
    ok(false, 'no exception', err.stack);
    servers.forEach((s) => s.p.kill('SIGTERM'));
    done();
});
