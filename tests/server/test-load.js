// test-load.js: many viewers at once while analyses run: 16 concurrent
// clients (the Eclipse TSP client) send thousands of mixed requests (trees,
// states at random zooms, XY, table pages, tooltips, statistics,
// experiment polls) to two experiments, one analysed (many-threads) and
// one whose analyses start with the load (a synthetic kernel trace of 4
// million events, CTF: long enough to analyse that the load meets it
// running, even on a quiet machine).  Every answer must be a 200 with a model the client
// accepts; latency percentiles are printed per kind of request.
'use strict';

process.env.SHT_NO_VALIDATE = '1';   // the load, not the schema (conformance)

const path = require('path');
const { execFileSync } = require('child_process');
const { ok, diag, done, client, query, sleep } = require('./lib');

const CLIENTS = 16;
// Sanitizer builds send fewer (CMake sets SHT_LOAD_REQUESTS, SHT_LOAD_MIN).
const PER_CLIENT = Number(process.env.SHT_LOAD_REQUESTS || 250);
const ID = {
    threads: 'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider',
    resources: 'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ResourcesStatusDataProvider',
    events: 'org.eclipse.tracecompass.internal.provisional.tmf.core.model.events.TmfEventTableDataProvider',
    hist: 'org.eclipse.tracecompass.internal.tmf.core.histogram.HistogramDataProvider',
    stats: 'org.eclipse.tracecompass.sht.statistics',
    ssx: 'org.eclipse.tracecompass.internal.tmf.core.statesystem.provider.StateSystemDataProvider',
};

const c = client();
let seed = 12345;
function rnd(n) {                    // a fixed sequence: a failure repeats
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
}

function randomRange(e) {
    const span = e.end - e.start;
    const w = span / BigInt(1 + rnd(200));
    const s = e.start + (span - w) * BigInt(rnd(1000)) / 1000n;
    return { start: s, end: s + w, nbTimes: 500 + rnd(2500) };
}

async function ids(e, id) {
    const r = await c.fetchTimeGraphTree(e.UUID, id, query({}));
    return r.getModel().model.entries.map((x) => x.id);
}

// One random request of a client on experiment x; returns [kind, status].
async function one(x) {
    const e = x.exp;
    const pick = rnd(9);
    const range = randomRange(e);
    const rows = () => Array.from({ length: 100 }, () => x.rows[rnd(x.rows.length)]);
    switch (pick) {
    case 0: return ['experiment', await c.fetchExperiment(e.UUID)];
    case 1: return ['thread tree', await c.fetchTimeGraphTree(e.UUID, ID.threads, query({}))];
    case 2: return ['thread states', await c.fetchTimeGraphStates(e.UUID, ID.threads,
        query({ requested_timerange: range, requested_items: rows() }))];
    case 3: return ['resources states', await c.fetchTimeGraphStates(e.UUID, ID.resources,
        query({ requested_timerange: range, requested_items: x.res }))];
    case 4: return ['histogram', await c.fetchXY(e.UUID, ID.hist,
        query({ requested_timerange: range, requested_items: [2] }))];
    case 5: return ['table page', await c.fetchTableLines(e.UUID, ID.events, query({
        requested_table_index: rnd(Math.max(1, Number(e.nbEvents))), requested_table_count: 100 }))];
    case 6: return ['tooltip', await c.fetchTimeGraphTooltip(e.UUID, ID.threads, query({
        requested_times: [range.start], requested_items: [x.rows[rnd(x.rows.length)]],
        requested_element: { elementType: 'state', time: range.start, duration: 1 } }))];
    case 7: return ['statistics', await c.fetchDataTree(e.UUID, ID.stats, query({
        requested_timerange: range, isFiltered: true }))];
    default: return ['ssx states', await c.fetchTimeGraphStates(e.UUID, ID.ssx,
        query({ requested_timerange: range, requested_items: x.ssx.slice(0, 60) }))];
    }
}

function percentile(a, p) {
    const s = [...a].sort((x, y) => x - y);
    return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

(async () => {
    const big = path.join(process.env.SHT_TMP, 'root', 'k4m');
    execFileSync(process.env.SHT, ['gen', 'kernel', '--events', '4000000', '-o', big]);
    const xs = [];
    for (const [dir, name] of [[path.join(process.env.SHT_SHARED, 'traces/many-threads'), 'mt'],
                               [big, 'big']]) {
        const t = (await c.openTrace(query({ uri: dir, name }))).getModel();
        const e = (await c.createExperiment(query({ name, traces: [t.UUID] }))).getModel();
        xs.push({ exp: e, name });
    }
    await sleep(1500);                     // the big one has entries by now
    for (const x of xs) {
        x.exp = (await c.fetchExperiment(x.exp.UUID)).getModel();
        x.rows = await ids(x.exp, ID.threads);
        x.res = (await ids(x.exp, ID.resources)).slice(0, 40);
        x.ssx = await ids(x.exp, ID.ssx);
        diag(`${x.name}: ${x.exp.indexingStatus}, ${x.rows.length} thread rows`);
    }
    ok(xs[1].exp.indexingStatus === 'RUNNING', 'the big trace\'s analyses run while the load starts');
    const lat = {};
    let errors = 0, running = 0, n = 0;
    const t0 = Date.now();
    await Promise.all(Array.from({ length: CLIENTS }, async (_, k) => {
        for (let i = 0; i < PER_CLIENT; i++) {
            const x = xs[(k + i) % 2];
            const s = process.hrtime.bigint();
            const [kind, r] = await one(x);
            const ms = Number(process.hrtime.bigint() - s) / 1e6;
            (lat[kind] = lat[kind] || []).push(ms);
            n++;
            const m = r.getModel();
            if (!r.isOk() || m === undefined) {
                if (errors++ < 5)
                    diag(`error: ${kind} ${r.getStatusCode()} ${r.getText().slice(0, 200)}`);
            } else if (m && m.status === 'RUNNING') {
                running++;
            }
        }
    }));
    const secs = (Date.now() - t0) / 1000;
    const all = Object.values(lat).flat();
    diag(`${n} requests by ${CLIENTS} clients in ${secs.toFixed(1)} s (${(n / secs).toFixed(0)}/s); ` +
         `${running} answered RUNNING`);
    diag(`all: p50 ${percentile(all, 0.5).toFixed(1)} ms, p90 ${percentile(all, 0.9).toFixed(1)} ms, ` +
         `p99 ${percentile(all, 0.99).toFixed(1)} ms, max ${Math.max(...all).toFixed(1)} ms`);
    for (const [k, v] of Object.entries(lat).sort())
        diag(`${k.padEnd(17)} n=${String(v.length).padStart(4)} p50 ${percentile(v, 0.5).toFixed(1)} ms ` +
             `p90 ${percentile(v, 0.9).toFixed(1)} ms p99 ${percentile(v, 0.99).toFixed(1)} ms`);
    ok(n === CLIENTS * PER_CLIENT && n >= Number(process.env.SHT_LOAD_MIN || 4000),
       `${n} requests`);
    ok(errors === 0, `no error (${errors})`);
    ok(running > 0, 'answers while analyses ran (RUNNING)');
    const h = await c.checkHealth();
    ok(h.isOk(), 'still serving');
    done();
})().catch((err) => {
    ok(false, 'no exception', err.stack);
    done();
});
