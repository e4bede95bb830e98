// lib.js: what the server tests share: TAP output, the Eclipse TSP client
// (tsp-typescript-client) with every response it receives checked against
// the protocol's OpenAPI specification (API.yaml, read from SHT_SHARED),
// and helpers to run the sht tool and read big integers exactly.
'use strict';

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const YAML = require('yaml');
const Ajv = require('ajv');
const JSONBig = require('json-bigint')({ useNativeBigInt: true });
const tsp = require('tsp-typescript-client');

// ---- TAP -------------------------------------------------------------------

let run = 0;
let failed = 0;

function ok(cond, desc, detail) {
    run++;
    if (cond) {
        console.log(`ok ${run} - ${desc}`);
    } else {
        failed++;
        console.log(`not ok ${run} - ${desc}`);
        if (detail !== undefined)
            console.log('# ' + String(typeof detail === 'string' ? detail :
                JSONBig.stringify(detail)).slice(0, 2000).replace(/\n/g, '\n# '));
    }
    return cond;
}

function is(got, want, desc) {
    const g = typeof got === 'bigint' ? got.toString() : JSONBig.stringify(got);
    const w = typeof want === 'bigint' ? want.toString() : JSONBig.stringify(want);
    if (g !== w && Array.isArray(got) && Array.isArray(want)) {
        const i = got.findIndex((x, k) => JSONBig.stringify(x) !== JSONBig.stringify(want[k]));
        return ok(false, desc, `lengths ${got.length} ${want.length}; first difference at ` +
                  `${i}: got ${JSONBig.stringify(got[i])}, want ${JSONBig.stringify(want[i])}`);
    }
    return ok(g === w, desc, `got ${g}, want ${w}`);
}

function diag(msg) {
    console.log('# ' + msg);
}

function done() {
    console.log(`1..${run}`);
    process.exit(failed ? 1 : 0);
}

// ---- the specification ---------------------------------------------------------

const shared = process.env.SHT_SHARED || path.join(__dirname, '../../../shared');
const spec = YAML.parse(fs.readFileSync(path.join(shared, 'tsp/API.yaml'), 'utf8'));

// Two schemas of the spec (StyleValue, MetadataValue) say "type: object"
// beside a oneOf of primitive types: read literally, no value satisfies
// them (a string is not an object; 1.0 is both a number and an integer).
// They mean "a string or a number": read them so.
(function primitives(node) {
    if (!node || typeof node !== 'object')
        return;
    if (Array.isArray(node.oneOf) && node.oneOf.every((x) => x && x.type &&
            ['string', 'number', 'integer', 'boolean'].includes(x.type))) {
        node.anyOf = node.oneOf;
        delete node.oneOf;
        delete node.type;
    }
    Object.values(node).forEach(primitives);
})(spec);
const ajv = new Ajv({
    strict: false, allErrors: true, validateFormats: true,
    formats: { int64: true, int32: true, double: true, uri: true,
               uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/ },
});
ajv.addSchema(spec, 'api');

// The spec's paths as regular expressions, most literal first, so that
// outputs/markerSets wins over outputs/{outputId}.
const routes = Object.keys(spec.paths).map((p) => ({
    template: p,
    re: new RegExp('^' + p.replace(/\{[^}]+\}/g, '[^/]+') + '$'),
    literal: p.split('/').filter((s) => s && !s.startsWith('{')).length,
})).sort((a, b) => b.literal - a.literal);

const validators = new Map();

function pointer(...keys) {
    return keys.map((k) => String(k).replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

// The validator of the response schema of (method, route, status), or null.
function validatorOf(method, template, status) {
    const key = `${method} ${template} ${status}`;
    if (validators.has(key))
        return validators.get(key);
    const op = spec.paths[template][method];
    let v = null;
    const resp = op && op.responses && op.responses[String(status)];
    if (resp && resp.content && resp.content['application/json']) {
        v = ajv.compile({ $ref: 'api#/' + pointer('paths', template, method,
            'responses', String(status), 'content', 'application/json', 'schema') });
    }
    validators.set(key, v);
    return v;
}

let errorV = null;
function errorValidator() {
    if (!errorV)
        errorV = ajv.compile({ $ref: 'api#/components/schemas/ErrorResponse' });
    return errorV;
}

const stats = { validated: 0, unchecked: new Set(), failures: 0 };

// Check one exchange against the spec: content type, declared status,
// body schema.
function checkExchange(req, res) {
    const url = new URL(req.url);
    const p = url.pathname.replace(/^\/tsp\/api/, '');
    const method = req.method.toLowerCase();
    const route = routes.find((r) => r.re.test(p) && spec.paths[r.template][method]);
    const where = `${req.method} ${p} -> ${res.status}`;
    const ct = res.headers.get('Content-Type');
    if (ct !== 'application/json') {
        stats.failures++;
        ok(false, `Content-Type is exactly application/json (${where})`, ct);
        return;
    }
    if (!route) {
        stats.unchecked.add(`${req.method} ${p}`);
        return;
    }
    // An error the spec does not declare for this route still has the
    // spec's error body.
    const v = validatorOf(method, route.template, res.status) ||
        (res.status >= 400 ? errorValidator() : null);
    if (!v) {
        stats.failures++;
        ok(false, `status ${res.status} is declared by the spec (${where})`);
        return;
    }
    let body;
    try {
        body = JSON.parse(res.text);
    } catch (e) {
        stats.failures++;
        ok(false, `body is JSON (${where})`, e.toString());
        return;
    }
    stats.validated++;
    if (!v(body)) {
        stats.failures++;
        ok(false, `response matches the spec (${where})`,
           { errors: v.errors.slice(0, 5), body: res.text.slice(0, 500) });
    }
}

// Every request of the client goes through this wrapper.
const origRequest = tsp.RestClient.httpRequest.bind(tsp.RestClient);
tsp.RestClient.httpRequest = async function (req) {
    const res = await origRequest(req);
    if (!process.env.SHT_NO_VALIDATE)
        checkExchange(req, res);
    return res;
};

// ---- helpers ---------------------------------------------------------------------

function client() {
    return new tsp.HttpTspClient(process.env.SHT_SERVER_URL);
}

function query(params) {
    return new tsp.Query(params);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Run the sht tool, parse its JSON output exactly.
function sht(...args) {
    const out = execFileSync(process.env.SHT, args, { maxBuffer: 1 << 30 });
    return JSONBig.parse(out.toString());
}

// The history file of an analysis of a trace in the server's cache.
function historyOf(trace, analysis) {
    const cache = process.env.SHT_CACHE;
    const base = path.basename(trace);
    for (const d of fs.readdirSync(cache)) {
        const f = path.join(cache, d, analysis + '.sht');
        if (d.startsWith(base + '-') && fs.existsSync(f))
            return f;
    }
    return null;
}

// The events of traces from babeltrace2's Python bindings:
// [[ts, name, cpu, [[field, text]...]]] (bt2-events.py).
function referenceEvents(traces) {
    const out = execFileSync(path.join(__dirname, 'bt2-events.py'), traces,
                             { maxBuffer: 1 << 30 }).toString();
    return out.split('\n').filter((l) => l).map((l) => {
        const [ts, name, cpu, fields] = l.split('\t');
        return [BigInt(ts), name, Number(cpu), JSON.parse(fields)];
    });
}

// A `sht serve` of a test's own: cache and root under dir, its port file
// named after name, more options in args; {p, port}, also pushed on
// servers (for the test to kill on failure).
async function startServer(dir, name, args, servers) {
    const portFile = path.join(dir, 'port-' + name);
    fs.rmSync(portFile, { force: true });
    const p = require('child_process').spawn(process.env.SHT,
        ['serve', '--port', '0', '--port-file', portFile, '--cache', path.join(dir, 'cache'),
         '--root', dir, '--quiet', ...args], { stdio: 'inherit' });
    const s = { p, port: 0 };
    servers.push(s);
    for (let i = 0; i < 100 && !(fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8').trim()); i++)
        await sleep(100);
    s.port = Number(fs.readFileSync(portFile, 'utf8').trim());
    return s;
}

// SIGTERM to a server of startServer; resolves its exit status.
function stopServer(s) {
    return new Promise((resolve) => {
        s.p.on('exit', (code) => resolve(code));
        s.p.kill('SIGTERM');
    });
}

// POST {parameters: params} to the server's /tsp/api + what: {status, text}.
async function postTo(s, what, params) {
    const r = await fetch(`http://127.0.0.1:${s.port}/tsp/api${what}`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ parameters: params }) });
    return { status: r.status, text: await r.text(), retryAfter: r.headers.get('Retry-After') };
}

// Open trace as name on a server of startServer, make an experiment of
// it and wait for its analyses; the experiment (its UUID and range).
async function openAnalysed(s, trace, name) {
    const t = JSON.parse((await postTo(s, '/traces', { uri: trace, name })).text);
    const e = JSON.parse((await postTo(s, '/experiments', { name, traces: [t.UUID] })).text);
    let x;
    for (let i = 0; i < 1200; i++) {
        const r = await fetch(`http://127.0.0.1:${s.port}/tsp/api/experiments/${e.UUID}`);
        x = JSON.parse(await r.text());
        if (x.indexingStatus === 'COMPLETED')
            break;
        await sleep(100);
    }
    is(x.indexingStatus, 'COMPLETED', 'the trace is analysed');
    return x;
}

module.exports = {
    ok, is, diag, done, client, query, sleep, sht, historyOf, referenceEvents,
    stats, JSONBig, tsp, startServer, stopServer, postTo, openAnalysed,
};
