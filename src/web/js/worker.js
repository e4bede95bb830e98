// worker.js: fetches and decodes the big answers (time-graph states, XY
// series) off the page's thread, into typed arrays of offsets from the
// experiment's start, handed over without copying.

import { parseJSON } from './wire.js';
import { TimeBase } from './time.js';

const controllers = new Map();

function hasKeys(o) {
  for (const k in o) return true;   // eslint-disable-line no-unused-vars
  return false;
}

function decodeStates(model, tb) {
  const styles = [];
  const styleIdx = new Map();
  const rows = [];
  const transfer = [];
  for (const r of (model && model.rows) || []) {
    const st = r.states || [];
    const n = st.length;
    const start = new Float64Array(n), end = new Float64Array(n);
    const style = new Int32Array(n);
    let label = null;
    for (let i = 0; i < n; i++) {
      const s = st[i];
      start[i] = tb.rel(s.start);
      end[i] = tb.rel(s.end);
      const sty = s.style;
      if (!sty) { style[i] = -1; } else {
        const v = sty.values;
        const key = v && hasKeys(v) ? `${sty.parentKey}\u0000${JSON.stringify(v)}` : sty.parentKey || '';
        let k = styleIdx.get(key);
        if (k === undefined) {
          k = styles.length;
          styles.push({ parentKey: sty.parentKey || '', values: v && hasKeys(v) ? v : null });
          styleIdx.set(key, k);
        }
        style[i] = k;
      }
      if (s.label != null) {
        if (!label) label = new Array(n).fill(null);
        label[i] = String(s.label);
      }
    }
    rows.push({ id: r.entryId, start, end, style, label });
    transfer.push(start.buffer, end.buffer, style.buffer);
  }
  return { result: { rows, styles }, transfer };
}

function decodeXY(model, tb) {
  const series = [];
  const transfer = [];
  for (const s of (model && model.series) || []) {
    const n = Math.min(s.xValues.length, s.yValues.length);
    const x = new Float64Array(n), y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      x[i] = tb.rel(s.xValues[i]);
      y[i] = +s.yValues[i];
    }
    series.push({
      id: s.seriesId, name: s.seriesName, x, y,
      type: (s.style && s.style.values && s.style.values['series-type']) || 'line',
    });
    transfer.push(x.buffer, y.buffer);
  }
  return { result: { series, title: model && model.title }, transfer };
}

async function run(m) {
  const ctl = new AbortController();
  controllers.set(m.id, ctl);
  try {
    const res = await fetch(m.url, {
      method: 'POST', body: m.body, signal: ctl.signal,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    });
    const text = await res.text();
    let body = null;
    try { body = parseJSON(text); } catch (e) { body = null; }
    if (res.status !== 200 || !body) {
      postMessage({ id: m.id, ok: false, status: res.status,
        title: (body && body.title) || `HTTP ${res.status}`, detail: body && body.detail });
      return;
    }
    const tb = new TimeBase(BigInt(m.origin));
    const t0 = performance.now();
    const { result, transfer } = m.op === 'states' ? decodeStates(body.model, tb) : decodeXY(body.model, tb);
    result.status = body.status;
    result.statusMessage = body.statusMessage;
    result.decodeMs = performance.now() - t0;
    result.bytes = text.length;
    postMessage({ id: m.id, ok: true, result }, transfer);
  } catch (e) {
    postMessage({ id: m.id, ok: false, aborted: e.name === 'AbortError', title: 'Error', detail: String(e.message || e) });
  } finally {
    controllers.delete(m.id);
  }
}

onmessage = (ev) => {
  const m = ev.data;
  if (m.op === 'cancel') {
    const c = controllers.get(m.id);
    if (c) c.abort();
    return;
  }
  run(m);
};
