// conformance.js: drive `sht serve` with the Eclipse TSP client as the trace
// viewer does, on the real traces, with every response checked against the
// protocol's specification (lib.js), and the answers checked against
// oracles: the histories through `sht history`, the events through
// babeltrace2's Python bindings.
//
// Environment: SHT_SERVER_URL (the server's /tsp/api), SHT (the sht tool),
// SHT_SHARED (traces, API.yaml), SHT_CACHE (the server's cache directory).
'use strict';

const fs = require('fs');
const path = require('path');
const { ok, is, diag, done, client, query, sleep, sht, historyOf,
        referenceEvents, stats } = require('./lib');

const T = path.join(process.env.SHT_SHARED, 'traces');
const ID = {
    threads: 'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider',
    resources: 'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ResourcesStatusDataProvider',
    cpu: 'org.eclipse.tracecompass.analysis.os.linux.core.cpuusage.CpuUsageDataProvider',
    events: 'org.eclipse.tracecompass.internal.provisional.tmf.core.model.events.TmfEventTableDataProvider',
    hist: 'org.eclipse.tracecompass.internal.tmf.core.histogram.HistogramDataProvider',
    stats: 'org.eclipse.tracecompass.sht.statistics',
    ssx: 'org.eclipse.tracecompass.internal.tmf.core.statesystem.provider.StateSystemDataProvider',
};

const c = client();

// ---- sample times, as the protocol defines them ------------------------------

function grid(start, end, nb) {
    let step = nb > 1 ? (end - start) / BigInt(nb - 1) : end - start;
    if (step === 0n)
        step = 1n;
    const t = [];
    for (let x = start; x < end; x += step)
        t.push(x);
    t.push(end);
    return t;
}

function hits(times, a, b) {        // a time of (sorted) times in [a, b]
    let lo = 0, hi = times.length;
    while (lo < hi) {
        const m = (lo + hi) >> 1;
        if (times[m] < a) lo = m + 1; else hi = m;
    }
    return lo < times.length && times[lo] <= b;
}

// ---- opening ------------------------------------------------------------------------

async function openTrace(dir, name) {
    const r = await c.openTrace(query({ uri: dir, name }));
    ok(r.isOk() && r.getModel(), `open ${name}`, r.getText());
    return r.getModel();
}

async function waitCompleted(exp) {
    for (let i = 0; i < 600; i++) {
        const r = await c.fetchExperiment(exp.UUID);
        if (r.getModel().indexingStatus === 'COMPLETED')
            return r.getModel();
        await sleep(200);
    }
    ok(false, `experiment ${exp.name} completes`);
    return exp;
}

async function identities() {
    const h = await c.checkHealth();
    ok(h.isOk() && h.getModel().status === 'UP', 'health is UP');
    const id = await c.fetchIdentifier();
    ok(id.isOk() && id.getModel().productId === 'sht', 'identifier names sht');
}

// Opening again is idempotent; another path under the same name is a 409.
async function reopen(tr, dir) {
    const again = await c.openTrace(query({ uri: dir, name: tr.name }));
    ok(again.isOk() && again.getModel().UUID === tr.UUID, 'same trace again: 200, same UUID');
    const alt = path.join(T, dir.endsWith('bug446190') ? 'many-threads' : 'bug446190');
    const other = await c.openTrace(query({ uri: alt, name: tr.name }));
    ok(other.getStatusCode() === 409 && other.getErrorResponse() &&
       other.getErrorResponse().trace.UUID === tr.UUID,
       'same name, other path: 409 with the trace', other.getText());
}

// ---- outputs ----------------------------------------------------------------------------

// The tree, polled while RUNNING as the viewer does.
async function tree(fetch, e, id, params) {
    let r;
    for (let i = 0; i < 600; i++) {
        r = await fetch.call(c, e.UUID, id, query(params || {}));
        if (!r.isOk() || !r.getModel() || r.getModel().status !== 'RUNNING')
            break;
        await sleep(200);
    }
    ok(r.isOk() && r.getModel() && r.getModel().status === 'COMPLETED' && r.getModel().model,
       `${id.split('.').pop()} tree COMPLETED`, r.getText().slice(0, 300));
    return r.getModel().model;
}

function zooms(e) {
    const span = e.end - e.start;
    return [[e.start, e.end], [e.start + span / 3n, e.start + span / 3n + span / 50n]];
}

async function timeGraph(e, id, check) {
    const st = await c.fetchStyles(e.UUID, id, query({}));
    ok(st.isOk() && st.getModel() && Object.keys(st.getModel().model.styles).length > 0,
       `${id.split('.').pop()} styles`);
    const cat = await c.fetchAnnotationsCategories(e.UUID, id);
    ok(cat.isOk() && cat.getModel(), 'annotation categories');
    const m = await tree(c.fetchTimeGraphTree, e, id);
    const ids = m.entries.slice(0, 300).map((x) => x.id);
    for (const [start, end] of zooms(e)) {
        const range = { start, end, nbTimes: 1920 };
        const [s, a] = await Promise.all([
            c.fetchTimeGraphStates(e.UUID, id, query({ requested_timerange: range, requested_items: ids })),
            c.fetchAnnotations(e.UUID, id, query({ requested_timerange: range, requested_items: ids })),
        ]);
        ok(s.isOk() && s.getModel() && s.getModel().model.rows.length === ids.length,
           `states of ${ids.length} rows`, s.getText().slice(0, 300));
        ok(a.isOk() && a.getModel(), 'annotations');
        const arrows = await c.fetchTimeGraphArrows(e.UUID, id, query({ requested_timerange: range }));
        ok(arrows.isOk() && arrows.getModel(), 'arrows');
        const tipOf = async (rowId, t) => {
            const r = await c.fetchTimeGraphTooltip(e.UUID, id, query({
                requested_times: [t], requested_items: [rowId],
                requested_element: { elementType: 'state', time: t, duration: 1 } }));
            return r.isOk() && r.getModel() ? r.getModel().model : undefined;
        };
        if (check)
            await check(m, s.getModel().model.rows, grid(start, end, 1920), tipOf);
        const row = s.getModel().model.rows.find((r) => r.states.some((x) => x.style));
        if (row) {
            const state = row.states.find((x) => x.style);
            const tip = await c.fetchTimeGraphTooltip(e.UUID, id, query({
                requested_times: [state.start], requested_items: [row.entryId],
                requested_element: { elementType: 'state', time: state.start,
                                     duration: state.end - state.start } }));
            ok(tip.isOk() && tip.getModel() && tip.getModel().model, 'tooltip',
               tip.getText());
        }
    }
    return m;
}

// ---- oracles ---------------------------------------------------------------------------

const THREAD_KEYS = ['Unknown', 'Wait blocked', 'Usermode', 'System call', 'Interrupt',
                     'Wait for CPU', 'Wait'];
const threadKey = (v) => v === null ? undefined : (THREAD_KEYS[Number(v)] || 'Unknown');
const CPU_KEYS = { 0: 'Idle', 1: 'Soft Irq raised', 2: 'Usermode', 4: 'System call',
                   8: 'Soft Irq', 16: 'Interrupt' };
const cpuKey = (v) => v === null ? undefined : (CPU_KEYS[Number(v)] || 'Unknown');

function intervals(file, attr) {
    return sht('history', file, '--attribute', attr, '--json');
}

// The intervals of an attribute, none if the history lacks it.
function intervalsOrNone(file, attr) {
    try {
        return intervals(file, attr);
    } catch (err) {
        return [];
    }
}

// Thread Status rows equal the intervals of Threads/<tid> holding a sample
// time inside the row's lifetime; a system call state's label is the
// thread's System_call at its start, if that interval holds a sample time.
function checkThreads(kernel) {
    return async (m, rows, times) => {
        const byId = new Map(m.entries.map((x) => [x.id, x]));
        let n = 0, bad = 0, labelled = 0;
        const inSys = (r) => r.states.some((x) => x.style && x.style.parentKey === 'System call');
        // the rows with system call states first (their labels checked)
        for (const r of [...rows].sort((x, y) => inSys(y) - inSys(x))) {
            const en = byId.get(r.entryId);
            if (!en || en.parentId === -1 || en.labels[1] === '0' || n >= 40)
                continue;
            n++;
            const want = [];
            const sys = intervalsOrNone(kernel, `Threads/${en.labels[1]}/System_call`);
            for (const iv of intervals(kernel, 'Threads/' + en.labels[1])) {
                const a = iv.start > en.start ? iv.start : en.start;
                const b = iv.end < en.end - 1n ? iv.end : en.end - 1n;
                const key = threadKey(iv.value);
                if (!(a <= b && hits(times, a, b)))
                    continue;
                const sc = key === 'System call' ?
                    sys.find((x) => x.start <= iv.start && iv.start <= x.end) : undefined;
                const label = sc && typeof sc.value === 'string' && hits(times, sc.start, sc.end) ?
                    sc.value : null;
                labelled += label !== null;
                want.push([iv.start, iv.end + 1n, key, label]);
            }
            const got = r.states.map((s) => [s.start, s.end, s.style && s.style.parentKey,
                                             s.label === undefined ? null : s.label]);
            if (JSON.stringify(got, (k, v) => typeof v === 'bigint' ? v.toString() : v) !==
                JSON.stringify(want, (k, v) => typeof v === 'bigint' ? v.toString() : v)) {
                bad++;
                ok(false, `thread ${en.labels[1]} states equal its history`, { got: got.slice(0, 5), want: want.slice(0, 5) });
            }
        }
        ok(n > 0 && bad === 0, `${n} thread rows equal sht history (${labelled} system call labels)`);
    };
}

// Resources: at every sample time, a CPU row's state has the key of the
// CPU's status then.
function checkResources(kernel) {
    return async (m, rows, times, tipOf) => {
        const byId = new Map(m.entries.map((x) => [x.id, x]));
        let n = 0, bad = 0;
        for (const r of rows) {
            const en = byId.get(r.entryId);
            const cpu = /^CPU (\d+) States$/.exec(en.labels[0]);
            if (!cpu || en.parentId !== m.entries[0].id)
                continue;
            n++;
            const ivs = intervals(kernel, 'CPUs/' + cpu[1]);
            let k = 0, j = 0;
            for (const t of times) {
                while (k < ivs.length && ivs[k].end < t) k++;
                if (k >= ivs.length || ivs[k].start > t)
                    continue;
                while (j < r.states.length && r.states[j].end <= t) j++;
                const s = r.states[j];
                const key = s && s.start <= t ? s.style && s.style.parentKey : undefined;
                if (key !== cpuKey(ivs[k].value)) {
                    bad++;
                    break;
                }
            }
        }
        ok(n > 0 && bad === 0, `${n} CPU rows: the status at every sample time equals sht history`);
        checkSyscallLabels(kernel, m, rows, times);
        checkThreadLabels(kernel, m, rows, times);
        await checkResourcesTips(kernel, m, rows, tipOf);
    };
}

// Tooltips of Resources rows at the start of their first styled states
// (up to 4 per kind of row), against sht history: a CPU's row gives its
// status and, running a thread, that thread's TID; a CPU's IRQ or soft
// IRQ row gives the CPUs running it, which include that CPU (the rows of
// the 8 CPUs of the first trace have both kinds).
async function checkResourcesTips(kernel, m, rows, tipOf) {
    const byId = new Map(m.entries.map((x) => [x.id, x]));
    const at = (ivs, t) => ivs.find((iv) => iv.start <= t && t <= iv.end);
    const seen = { cpu: 0, irq: 0, soft: 0 };
    let bad = 0;
    for (const r of rows) {
        const en = byId.get(r.entryId);
        const parent = byId.get(en.parentId);
        const cpu = /^CPU (\d+) States$/.exec(en.labels[0]);
        const pcpu = parent && /^CPU (\d+) States$/.exec(parent.labels[0]);
        const kind = cpu && en.parentId === m.entries[0].id ? 'cpu' :
            !pcpu ? null : en.labels[0].startsWith('SOFT_IRQ') ? 'soft' : 'irq';
        const state = r.states.find((x) => x.style);
        if (!kind || !state || seen[kind] >= 4)
            continue;
        seen[kind]++;
        const tip = await tipOf(r.entryId, state.start) || {};
        let want;
        if (kind === 'cpu') {
            const st = at(intervals(kernel, 'CPUs/' + cpu[1]), state.start);
            want = { Status: st ? cpuKey(st.value) : undefined };
            if (st && (st.value === 2 || st.value === 4)) {
                const ct = at(intervals(kernel, `CPUs/${cpu[1]}/Current_thread`), state.start);
                want.TID = ct ? String(ct.value) : undefined;
            }
            const got = { Status: tip.Status };
            if ('TID' in want)
                got.TID = tip.TID;
            if (JSON.stringify(got) !== JSON.stringify(want) && bad++ < 3)
                diag(`${en.labels[0]} at ${state.start}: ${JSON.stringify(tip)}, want ${JSON.stringify(want)}`);
        } else if (!(typeof tip.CPU === 'string' && tip.CPU.split(', ').includes(pcpu[1])) && bad++ < 3) {
            diag(`${en.labels[0]} of CPU ${pcpu[1]} at ${state.start}: ${JSON.stringify(tip)}, want CPU ${pcpu[1]} among its CPUs`);
        }
    }
    ok(seen.cpu > 0 && seen.irq + seen.soft > 0 && bad === 0, `tooltips of ${seen.cpu} CPU rows, ` +
       `${seen.irq} IRQ and ${seen.soft} soft IRQ rows equal sht history`);
}

// Trace Compass's colour of a thread: hue ((tid + 14) mod 25) / 25 of the
// circle (the remainder keeping a negative tid's sign), saturation and
// brightness 0.8, each channel rounded to 0..255.
function threadColor(tid) {
    const h = ((tid + 14) % 25) / 25 * 6, v = 0.8, sat = 0.8;
    const f = h - Math.floor(h), p = v * (1 - sat), q = v * (1 - sat * f), t = v * (1 - sat * (1 - f));
    const rgb = [[v, t, p], [q, v, p], [p, v, t], [p, q, v], [t, p, v], [v, p, q]][Math.trunc(h) % 6 < 0 ? 5 : Math.trunc(h) % 6];
    return '#' + rgb.map((c) => Math.trunc(c * 255 + 0.5).toString(16).padStart(2, '0')).join('');
}

// A "CPU n Threads" row: each state of a running thread (its first sample
// time's Current_thread, tid > 0) is labelled "<name> (<tid>)", the name
// being the thread's name at that time (sht history of
// Threads/<tid>/Exec_name), and styled with the thread's colour and tid;
// for up to 40 threads.
function checkThreadLabels(kernel, m, rows, times) {
    const byId = new Map(m.entries.map((x) => [x.id, x]));
    const names = new Map();
    let n = 0, bad = 0;
    for (const r of rows) {
        const en = byId.get(r.entryId);
        const cpu = /^CPU (\d+) Threads$/.exec(en.labels[0]);
        if (!cpu)
            continue;
        const ct = intervals(kernel, `CPUs/${cpu[1]}/Current_thread`);
        let k = 0;
        for (const s of r.states) {
            const i = lowerBound(times, s.start);
            if (i >= times.length || times[i] >= s.end)
                continue;
            while (k < ct.length && ct[k].end < times[i]) k++;
            const tid = k < ct.length && ct[k].start <= times[i] ? ct[k].value : null;
            if (typeof tid !== 'number' || tid <= 0) {
                if (s.style && bad++ < 3)
                    diag(`CPU ${cpu[1]} Threads [${s.start}, ${s.end}): styled without a running thread`);
                continue;
            }
            if (!names.has(tid)) {
                if (names.size >= 40)
                    continue;
                names.set(tid, intervalsOrNone(kernel, `Threads/${tid}/Exec_name`));
            }
            const ivs = names.get(tid);
            const j = ivs.findIndex((iv) => iv.start <= times[i] && times[i] <= iv.end);
            const name = j >= 0 && typeof ivs[j].value === 'string' ? ivs[j].value : '';
            const want = { label: `${name} (${tid})`, color: threadColor(tid), tid: String(tid) };
            const got = { label: s.label, color: s.style && s.style.values['background-color'],
                          tid: s.style && s.style.values['style-name'] };
            n++;
            if (JSON.stringify(got) !== JSON.stringify(want) && bad++ < 3)
                diag(`CPU ${cpu[1]} Threads [${s.start}, ${s.end}): ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
        }
    }
    ok(n > 0 && bad === 0, `${n} thread states of the CPUs (${names.size} threads): ` +
       'labels and colours equal the running thread\'s name and tid');
}

// The label of a CPU's "System call" state: the System_call of the thread
// running on it at the state's first sample time (sht history), for up to
// 40 threads' worth of states.
function checkSyscallLabels(kernel, m, rows, times) {
    const byId = new Map(m.entries.map((x) => [x.id, x]));
    const sys = new Map();
    const at = (ivs, t) => ivs.find((iv) => iv.start <= t && t <= iv.end);
    let n = 0, bad = 0, labelled = 0;
    for (const r of rows) {
        const en = byId.get(r.entryId);
        const cpu = /^CPU (\d+) States$/.exec(en.labels[0]);
        if (!cpu || en.parentId !== m.entries[0].id)
            continue;
        const ct = intervals(kernel, `CPUs/${cpu[1]}/Current_thread`);
        for (const s of r.states) {
            if (!s.style || s.style.parentKey !== 'System call')
                continue;
            const i = lowerBound(times, s.start);
            if (i >= times.length || times[i] >= s.end)
                continue;
            const c = at(ct, times[i]);
            const tid = c ? String(c.value) : '';
            if (!sys.has(tid)) {
                if (sys.size >= 40)
                    continue;
                let ivs = [];
                try {
                    ivs = Number(tid) > 0 ? intervals(kernel, `Threads/${tid}/System_call`) : [];
                } catch (err) {
                    ivs = [];              /* no such attribute */
                }
                sys.set(tid, ivs);
            }
            const iv = at(sys.get(tid), times[i]);
            const want = iv && typeof iv.value === 'string' ? iv.value : undefined;
            n++;
            labelled += want !== undefined;
            if (s.label !== want && bad++ < 3)
                diag(`CPU ${cpu[1]} [${s.start}, ${s.end}): label ${s.label}, want ${want} (tid ${tid})`);
        }
    }
    ok((n === 0 || labelled > 0) && bad === 0, `${n} system call states of the CPUs (${labelled} labelled, ` +
       `${sys.size} threads): labels equal the running thread's System_call`);
}

function lowerBound(a, x) {
    let lo = 0, hi = a.length;
    while (lo < hi) {
        const m = (lo + hi) >> 1;
        if (a[m] < x) lo = m + 1; else hi = m;
    }
    return lo;
}

// Histogram buckets equal the reference events counted per bucket.
async function checkHistogram(e, refTimes) {
    const m = await tree(c.fetchXYTree, e, ID.hist);
    const total = m.entries.filter((x) => x.labels[0] === 'Total');
    ok(total.length === e.traces.length && total.every((x) => x.isDefault), 'Total entries, ticked by default');
    for (const [start, end] of zooms(e)) {
        const times = grid(start, end, 400);
        const r = await c.fetchXY(e.UUID, ID.hist, query({
            requested_timerange: { start, end, nbTimes: 400 }, requested_items: total.map((x) => x.id) }));
        ok(r.isOk() && r.getModel() && r.getModel().model.series.length === total.length, 'histogram series');
        const y = new Array(times.length).fill(0);
        for (const s of r.getModel().model.series)
            s.yValues.forEach((v, i) => { y[i] += v; });
        const step = times[1] - times[0];
        const want = times.map((t, i) => {
            const lo = i ? times[i - 1] : t - step;
            return lowerBound(refTimes, t + 1n) - lowerBound(refTimes, lo + 1n);
        });
        is(y, want, `histogram buckets equal the events per bucket (${times.length} buckets)`);
    }
}

// Statistics: the events per type equal the reference's.
async function checkStatistics(e, ref) {
    const m = await tree(c.fetchDataTree, e, ID.stats);
    const counts = {};
    for (const [, name] of ref)
        counts[name] = (counts[name] || 0) + 1;
    const totals = m.entries.filter((x) => x.labels[0] === 'Total');
    const got = {};
    for (const tot of totals)
        for (const x of m.entries.filter((y) => y.parentId === tot.id && y.labels[0] !== 'CPUs'))
            got[x.labels[0]] = (got[x.labels[0]] || 0) + Number(x.labels[1]);
    is(Object.keys(got).sort().map((k) => [k, got[k]]), Object.keys(counts).sort().map((k) => [k, counts[k]]),
       'statistics: events per type equal babeltrace2\'s');
    const sel = await c.fetchDataTree(e.UUID, ID.stats, query({
        requested_timerange: { start: e.start, end: e.start + (e.end - e.start) / 2n }, isFiltered: true }));
    const selTot = sel.getModel().model.entries.filter((x) => x.labels[0] === 'Selection');
    const half = lowerBound(ref.map((x) => x[0]), e.start + (e.end - e.start) / 2n + 1n);
    is(selTot.reduce((a, x) => a + Number(x.labels[1]), 0), half, 'statistics of a selection');
}

// The events table equals the reference, line by line (same time: same
// events in any order).
// The Contents cell of events alone at their time (so that the line and
// the reference event are the same one), every 7th: each integer and
// string field babeltrace2 reads is there as "name=value", between
// ", " separators.
function checkContents(ref, lines, contents) {
    let n = 0, bad = 0;
    for (let i = 0; i < ref.length && i < lines.length; i += 7) {
        if ((i > 0 && ref[i - 1][0] === ref[i][0]) || (i + 1 < ref.length && ref[i + 1][0] === ref[i][0]))
            continue;
        const cell = ', ' + contents[i] + ', ';
        const miss = ref[i][3].filter(([k, v]) => !cell.includes(`, ${k}=${v}, `));
        n++;
        if (miss.length && bad++ < 3)
            diag(`line ${i} (${ref[i][1]}): Contents "${contents[i]}" lacks ${JSON.stringify(miss)}`);
    }
    ok(n > 0 && bad === 0, `table: the Contents of ${n} events hold babeltrace2's fields`);
}

async function checkTable(e, ref) {
    const cols = await c.fetchTableColumns(e.UUID, ID.events, query({}));
    ok(cols.isOk() && cols.getModel(), 'table columns');
    const names = cols.getModel().model.map((x) => x.name);
    ok(names.includes('Timestamp ns') && (e.traces.length > 1) === names.includes('Trace'),
       'columns: Timestamp ns, Trace only with several traces', names);
    const colId = (n) => cols.getModel().model.find((x) => x.name === n).id;
    const ids = [colId('Timestamp ns'), colId('Event type'), colId('CPU')];
    const lines = [], contents = [];
    for (let i = 0; i < ref.length; i += 10000) {
        const r = await c.fetchTableLines(e.UUID, ID.events, query({
            requested_table_index: i, requested_table_count: 10000,
            requested_table_column_ids: [...ids, colId('Contents')] }));
        if (!ok(r.isOk() && r.getModel(), `lines from ${i}`))
            return;
        is(r.getModel().model.size, ref.length, 'table size = events');
        for (const l of r.getModel().model.lines) {
            lines.push([BigInt(l.cells[0].content), l.cells[1].content, Number(l.cells[2].content || -1), Number(l.index)]);
            contents.push(l.cells[3].content);
        }
    }
    checkContents(ref, lines, contents);
    const key = (x) => `${x[0]}\t${x[1]}\t${x[2]}`;
    let bad = lines.length === ref.length ? 0 : 1, i = 0;
    while (!bad && i < ref.length) {
        let j = i;
        while (j < ref.length && ref[j][0] === ref[i][0]) j++;
        const a = ref.slice(i, j).map(key).sort().join('|');
        const b = lines.slice(i, j).map(key).sort().join('|');
        if (a !== b || lines.slice(i, j).some((x, k) => x[3] !== i + k))
            bad = 1;
        i = j;
    }
    ok(!bad, `table: ${lines.length} lines equal babeltrace2's ${ref.length} events`, bad ? { at: i, got: lines[i], want: ref[i] } : undefined);
    // Pages anywhere, back and forth (a CTF trace seeks by time through
    // its packet index to the pass's checkpoint before the page, then
    // reads on): the same lines as the reading in order.
    let x = 12345, badPage = null;
    for (let k = 0; k < 12 && !badPage && lines.length > 20; k++) {
        x = (x * 1103515245 + 12345) % 2147483648;
        const at = x % (lines.length - 20);
        const p = await c.fetchTableLines(e.UUID, ID.events, query({
            requested_table_index: at, requested_table_count: 20, requested_table_column_ids: ids }));
        const got = p.isOk() && p.getModel() ? p.getModel().model.lines.map((l) =>
            `${l.index}\t${l.cells[0].content}\t${l.cells[1].content}\t${l.cells[2].content || -1}`) : [];
        const want = lines.slice(at, at + 20).map((l) => `${l[3]}\t${key(l)}`);
        if (got.join('|') !== want.join('|'))
            badPage = { at, got: got[0], want: want[0] };
    }
    ok(!badPage, 'table: 12 pages of 20 lines anywhere, back and forth, equal the lines read in order', badPage || undefined);
    // By time: the first event at or after t.
    const t = ref[Math.floor(ref.length / 3)][0];
    const r = await c.fetchTableLines(e.UUID, ID.events, query({ requested_times: [t], requested_table_count: 1 }));
    is(r.getModel().model.lines[0].index, lowerBound(ref.map((x) => x[0]), t), 'line of a time');
    // Filter on the type: count and lines.
    const type = ref[0][1];
    const f = await c.fetchTableLines(e.UUID, ID.events, query({
        requested_table_index: 3, requested_table_count: 5, requested_table_column_ids: ids,
        table_filter_expressions: { [colId('Event type')]: '^' + type + '$' } }));
    const want = ref.filter((x) => x[1] === type);
    is(f.getModel().model.size, want.length, `filter ${type}: size`);
    is(f.getModel().model.lines.map((l) => l.cells[0].content),
       want.slice(3, 8).map((x) => x[0].toString()), `filter ${type}: lines 3..7`);
    // Search: the next line matching, tagged.
    const s = await c.fetchTableLines(e.UUID, ID.events, query({
        requested_table_index: 10, requested_table_count: 1,
        table_search_expressions: { [colId('Event type')]: '^' + type + '$' },
        table_search_direction: 'NEXT' }));
    const next = ref.findIndex((x, k) => k >= 10 && x[1] === type);
    ok(s.getModel().model.lines.length === 1 && s.getModel().model.lines[0].index === next &&
       s.getModel().model.lines[0].tags === 8, 'search NEXT finds and tags the next match');
}

// CPU usage series equal the time the CPUs ran each thread (sht history).
async function checkCpu(e, kernel) {
    const m = await tree(c.fetchXYTree, e, ID.cpu);
    const top = m.entries.filter((x) => x.parentId !== -1)
        .sort((a, b) => parseFloat(b.labels[2]) - parseFloat(a.labels[2])).slice(0, 2);
    const [start, end] = zooms(e)[1];
    const times = grid(start, end, 200);
    const r = await c.fetchXY(e.UUID, ID.cpu, query({
        requested_timerange: { start, end, nbTimes: 200 }, requested_items: top.map((x) => x.id) }));
    ok(r.isOk() && r.getModel() && r.getModel().model.series.length === top.length, 'cpu usage series');
    const cpus = sht('tree', kernel, '--json').filter((x) => /^CPUs\/\d+\/Current_thread$/.test(x.path));
    const ivs = cpus.flatMap((x) => sht('history', kernel, '--quark', String(x.quark), '--json'));
    const step = times[1] - times[0];
    let bad = 0;
    top.forEach((en, s) => {
        const tid = BigInt(en.labels[1]);
        times.forEach((t, i) => {
            const lo = (i ? times[i - 1] : t - step) + 1n;
            let ns = 0n;
            for (const iv of ivs)
                if (iv.value !== null && BigInt(iv.value) === tid) {
                    const a = iv.start > lo ? iv.start : lo, b = iv.end < t ? iv.end : t;
                    if (a <= b) ns += b - a + 1n;
                }
            const want = 100 * Number(ns) / Number(t - lo + 1n);
            if (Math.abs(r.getModel().model.series[s].yValues[i] - want) > 1e-9 * Math.max(1, want))
                bad++;
        });
    });
    ok(bad === 0, `cpu usage of ${top.length} threads equals their running time (${bad} bad)`);
}

// CPU Usage is answered from the cumulative CPU time history (cpu-usage.sht
// in the cache); "sht_cpu_usage": "intervals" makes the server sum the
// running-thread intervals instead (the method it falls back on).  Both
// must give the same answers, to the digit, on random ranges: trees
// (labels) and charts (Total and threads, every sample).
async function checkCpuPaths(e, dirs, what) {
    for (const d of dirs)
        ok(historyOf(d, 'cpu-usage'), `${path.basename(d)}: the CPU Usage history is in the cache`);
    const all = (await tree(c.fetchXYTree, e, ID.cpu)).entries;
    let seed = 12345n;
    const rnd = (n) => {                    // 0 <= x < n (BigInt), deterministic
        seed = (seed * 6364136223846793005n + 1442695040888963407n) % (1n << 64n);
        return (seed >> 16n) % n;
    };
    const span = e.end - e.start;
    const nb = [2, 3, 17, 200, 1000];
    let trees = 0, charts = 0, bad = 0;
    for (let k = 0; k < 24; k++) {
        let a = e.start + rnd(span + 1n), b = a + rnd(e.end - a + 1n);
        if (k === 0) [a, b] = [e.start, e.end];
        else if (k === 1) [a, b] = [e.start - 1000n, e.end + 1000n];
        else if (k === 2) [a, b] = [a, a];
        else if (k % 3 === 0) b = a + rnd(span / 1000n + 2n);
        const p = { requested_timerange: { start: a, end: b } };
        const x = await c.fetchXYTree(e.UUID, ID.cpu, query(p));
        const y = await c.fetchXYTree(e.UUID, ID.cpu, query({ ...p, sht_cpu_usage: 'intervals' }));
        trees++;
        if (!x.isOk() || !y.isOk() || x.getText() !== y.getText()) {
            if (bad++ === 0)
                diag(`tree [${a}, ${b}] differs: ${x.getText().slice(0, 300)} / ${y.getText().slice(0, 300)}`);
            continue;
        }
        const ents = x.getModel().model.entries;
        const items = [ents[0].id].concat(ents.slice(1).filter(() => rnd(3n) === 0n).slice(0, 5).map((z) => z.id));
        if (items.length === 1 && all.length > 1)
            items.push(all[1 + Number(rnd(BigInt(all.length - 1)))].id);   // maybe idle in the range
        const q = { requested_timerange: { start: a, end: b, nbTimes: nb[Number(rnd(5n))] },
                    requested_items: items };
        const u = await c.fetchXY(e.UUID, ID.cpu, query(q));
        const v = await c.fetchXY(e.UUID, ID.cpu, query({ ...q, sht_cpu_usage: 'intervals' }));
        charts++;
        if (!u.isOk() || !v.isOk() || u.getModel().model.series.length !== items.length ||
            u.getText() !== v.getText()) {
            if (bad++ === 0)
                diag(`chart [${a}, ${b}] x ${q.requested_timerange.nbTimes} differs: ` +
                     `${u.getText().slice(0, 300)} / ${v.getText().slice(0, 300)}`);
        }
    }
    ok(trees === 24 && charts > 20 && bad === 0,
       `${what}: CPU Usage from the cumulative history equals the sum of the intervals ` +
       `(${trees} trees, ${charts} charts, ${bad} differ)`);
}

// A cache whose kernel history predates the CPU Usage history: the server
// derives the latter from the former when the trace is opened again.
async function derivedCpu(dir) {
    const f = historyOf(dir, 'cpu-usage');
    if (!ok(f, 'the CPU Usage history is in the cache'))
        return;
    const kernelTime = fs.statSync(historyOf(dir, 'kernel')).mtimeMs;
    fs.unlinkSync(f);
    const tr = await openTrace(dir, path.basename(dir));
    const r = await c.createExperiment(query({ name: 'derived', traces: [tr.UUID] }));
    const e = await waitCompleted(r.getModel());
    ok(fs.existsSync(f) && fs.statSync(historyOf(dir, 'kernel')).mtimeMs === kernelTime,
       'the CPU Usage history derived from the cached kernel history (not rebuilt)');
    await checkCpuPaths(e, [dir], 'derived');
    ok((await c.deleteExperiment(e.UUID)).isOk() && (await c.deleteTrace(tr.UUID)).isOk(),
       'derived: experiment and trace deleted');
}

// The block sizes of the server's histories (src/server/pass.c, an_opts):
// the kernel and statistics histories' nodes are the library's 64 KiB
// (smaller ones make the whole-trace time-graph screens slower, not
// faster: docs/SERVER.md, "Block size"), the CPU Usage history's 16 KiB.
// The block size is part of the cache's reuse rule: a cached kernel
// history of another block size is rebuilt when the trace is opened
// again, not reused.
const KERNEL_BLOCK_SIZE = 65536;
const OLD_BLOCK_SIZE = 8192;
async function blockSizes(dir) {
    const { execFileSync } = require('child_process');
    const run = (...args) => execFileSync(process.env.SHT, args, { maxBuffer: 1 << 30 }).toString();
    // plain JSON.parse: sht info's reals are longer than json-bigint takes
    const size = (a) => JSON.parse(run('info', historyOf(dir, a), '--json')).block_size;
    is(size('kernel'), KERNEL_BLOCK_SIZE, `the kernel history has ${KERNEL_BLOCK_SIZE}-byte nodes`);
    is(size('cpu-usage'), 16384, 'the CPU Usage history has 16 KiB nodes');
    is(size('stats'), 65536, 'the statistics history has 64 KiB nodes');
    const f = historyOf(dir, 'kernel'), old = f + '.old-size';
    run('build', dir, '-o', old, '--block-size', String(OLD_BLOCK_SIZE), '--no-progress');
    fs.renameSync(old, f);
    const ino = fs.statSync(f).ino;
    is(size('kernel'), OLD_BLOCK_SIZE, `a kernel history of ${OLD_BLOCK_SIZE}-byte nodes in the cache`);
    const tr = await openTrace(dir, path.basename(dir));
    const r = await c.createExperiment(query({ name: 'block-size', traces: [tr.UUID] }));
    const e = await waitCompleted(r.getModel());
    ok(fs.statSync(f).ino !== ino && size('kernel') === KERNEL_BLOCK_SIZE,
       `the kernel history of another block size is rebuilt with ${KERNEL_BLOCK_SIZE}-byte nodes`);
    const t = await tree(c.fetchTimeGraphTree, e, ID.threads);
    ok(t.entries.length > 1, `block-size: the rebuilt history answers (${t.entries.length} rows)`);
    ok((await c.deleteExperiment(e.UUID)).isOk() && (await c.deleteTrace(tr.UUID)).isOk(),
       'block-size: experiment and trace deleted');
}

// A generated kernel trace (sht gen kernel: 8 CPUs, threads that fork,
// migrate, exit, tids reused): CPU Usage against the intervals again.
async function generatedCpu() {
    const { execFileSync } = require('child_process');
    const dir = path.join(process.env.SHT_TMP, 'root', 'gen-kernel');
    fs.rmSync(dir, { recursive: true, force: true });
    execFileSync(process.env.SHT, ['gen', 'kernel', '--no-progress', '--size', '12m', '--cpus', '8',
                                   '--threads', '400', '-o', dir], { stdio: 'ignore' });
    const tr = await openTrace(dir, 'gen-kernel');
    const r = await c.createExperiment(query({ name: 'gen-kernel', traces: [tr.UUID] }));
    const e = await waitCompleted(r.getModel());
    await checkCpu(e, historyOf(dir, 'kernel'));
    await checkCpuPaths(e, [dir], 'gen-kernel');
    ok((await c.deleteExperiment(e.UUID)).isOk() && (await c.deleteTrace(tr.UUID)).isOk(),
       'gen-kernel: experiment and trace deleted');
}

// A value's label in the State System Explorer (Trace Compass's): longs
// in hex, doubles and null unlabelled.
function label(iv) {
    if (iv.value === null || iv.type === 'double')
        return '';
    if (iv.type === 'long')
        return '0x' + BigInt.asUintN(64, BigInt(iv.value)).toString(16);
    return String(iv.value);
}

// State System Explorer: the rows of a rules file's history (run with
// --analysis) equal its intervals holding a sample time.
async function checkRules(e, dir) {
    const cache = process.env.SHT_CACHE;
    const d = fs.readdirSync(cache).find((x) => x.startsWith(path.basename(dir) + '-'));
    const file = fs.readdirSync(path.join(cache, d)).find((x) => /^rules-.*\.sht$/.test(x));
    if (!ok(file, 'the rules file\'s history is in the cache'))
        return;
    const m = await tree(c.fetchTimeGraphTree, e, ID.ssx);
    const mod = m.entries.find((x) => x.labels[0] === 'ust-callstack.xml');
    ok(mod, 'the rules file is an analysis of the State System Explorer');
    const under = new Set([mod.id]);
    const rows = [];
    for (const x of m.entries)
        if (under.has(x.parentId)) {
            under.add(x.id);
            if (x.labels[1] !== '')
                rows.push(x);
        }
    const pick = rows.slice(0, 25);
    const times = grid(e.start, e.end, 300);
    const r = await c.fetchTimeGraphStates(e.UUID, ID.ssx, query({
        requested_timerange: { start: e.start, end: e.end, nbTimes: 300 },
        requested_items: pick.map((x) => x.id) }));
    let bad = 0;
    for (const row of r.getModel().model.rows) {
        const en = pick.find((x) => x.id === row.entryId);
        const want = sht('history', path.join(cache, d, file), '--quark', en.labels[1], '--json')
            .filter((iv) => hits(times, iv.start, iv.end))
            .map((iv) => `${iv.start}:${iv.end + 1n}:${label(iv)}`);
        const got = row.states.map((x) => `${x.start}:${x.end}:${x.label === undefined ? '' : x.label}`);
        if (want.join('|') !== got.join('|') && bad++ === 0)
            diag(`${en.labels[0]} (quark ${en.labels[1]}): got ${got.slice(0, 4)} want ${want.slice(0, 4)}`);
    }
    ok(pick.length > 5 && bad === 0, `${pick.length} rows of the rules history equal sht history (${bad} differ)`);
}

// The server queries its complete histories through a read-only map of
// the file (sht_reader_opts.mapped), and the checks above compare its
// answers with the sht tool's, which reads them through its node cache:
// is FILE mapped by the server now?
function mappedByServer(file) {
    const real = fs.realpathSync(file);
    return fs.readFileSync(`/proc/${process.env.SHT_SERVER_PID}/maps`, 'utf8')
        .split('\n').some((l) => l.endsWith(' ' + real));
}

// ---- one experiment -------------------------------------------------------------------

async function experiment(name, dirs, kernel) {
    const trs = [];
    for (const d of dirs)
        trs.push(await openTrace(d, path.basename(d)));
    await reopen(trs[0], dirs[0]);
    let r = await c.createExperiment(query({ name, traces: trs.map((x) => x.UUID) }));
    ok(r.isOk() && r.getModel(), `experiment ${name}`, r.getText());
    let e = r.getModel();
    r = await c.createExperiment(query({ name, traces: trs.map((x) => x.UUID) }));
    ok(r.isOk() && r.getModel().UUID === e.UUID, 'same experiment again: 200');
    const outs = await c.experimentOutputs(e.UUID);
    ok(outs.isOk() && outs.getModel(), 'outputs listed');
    const got = outs.getModel().map((o) => o.id);
    for (const k of kernel ? Object.keys(ID) : ['events', 'hist', 'stats', 'ssx'])
        ok(got.includes(ID[k]), `output ${k} listed`);
    e = await waitCompleted(e);
    const ref = referenceEvents(dirs);
    is(e.nbEvents, ref.length, `${name}: nbEvents = babeltrace2's events`);
    const k1 = kernel ? historyOf(dirs[0], 'kernel') : null;
    if (kernel) {
        await timeGraph(e, ID.threads, dirs.length === 1 ? checkThreads(k1) : null);
        await timeGraph(e, ID.resources, dirs.length === 1 ? checkResources(k1) : null);
        if (dirs.length === 1)
            await checkCpu(e, k1);
        await checkCpuPaths(e, dirs, name);
        ok(mappedByServer(k1), `${name}: the server maps its kernel history`);
    }
    await timeGraph(e, ID.ssx, null);
    if (!kernel)
        await checkRules(e, dirs[0]);
    await checkHistogram(e, ref.map((x) => x[0]));
    await checkStatistics(e, ref);
    await checkTable(e, ref);
    const del = await c.deleteTrace(trs[0].UUID);
    is(del.getStatusCode(), 409, 'a trace in an experiment cannot be deleted');
    r = await c.deleteExperiment(e.UUID);
    ok(r.isOk(), 'experiment deleted');
    for (const tr of trs) {
        const d = await c.deleteTrace(tr.UUID);
        ok(d.isOk(), `trace ${tr.name} deleted`);
    }
    if (kernel)
        ok(!mappedByServer(k1), `${name}: the map is gone with the trace`);
}

(async () => {
    await identities();
    await experiment('many-threads', [path.join(T, 'many-threads')], true);
    await derivedCpu(path.join(T, 'many-threads'));
    await blockSizes(path.join(T, 'many-threads'));
    await generatedCpu();
    await experiment('bug446190', [path.join(T, 'bug446190')], true);
    await experiment('scp', [path.join(T, 'synctraces/scp_src'), path.join(T, 'synctraces/scp_dest')], true);
    await experiment('ust', [path.join(T, 'context-switches/context-switches-ust')], false);
    const tl = await c.fetchTraces();
    ok(tl.isOk() && tl.getModel().length === 0, 'no trace left');
    ok(stats.failures === 0 && stats.validated > 100,
       `${stats.validated} responses valid against API.yaml`);
    if (stats.unchecked.size)
        diag('not in the spec: ' + [...stats.unchecked].join(', '));
    done();
})().catch((err) => {
    ok(false, 'no exception', err.stack);
    done();
});
