// tsp.js: the page's client of the Trace Server Protocol (and of sht's
// two-endpoint extension, /sht/api).  Every request is JSON; bodies are
// {"parameters": {...}} with timestamps as BigInt.  Big answers (states,
// XY series) are fetched and decoded by a worker (worker.js) into typed
// arrays, so the page never stalls on a large answer.

import { parseJSON, stringify } from './wire.js';

export class TspError extends Error {
  constructor(status, title, detail) {
    super(detail ? `${title}: ${detail}` : title);
    this.status = status;
    this.title = title;
    this.detail = detail;
  }
}

const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' };

// Requests in flight, for the status line and the tests (idle()).
let inflight = 0;
const idleWaiters = [];
function track(delta) {
  inflight += delta;
  if (inflight === 0) while (idleWaiters.length) idleWaiters.shift()();
}
export function busy() { return inflight; }
export function whenIdle() {
  return inflight === 0 ? Promise.resolve() : new Promise((r) => idleWaiters.push(r));
}

async function request(method, url, params, signal) {
  track(1);
  try {
    const init = { method, headers: HEADERS, signal };
    if (params !== undefined) init.body = stringify({ parameters: params });
    const res = await fetch(url, init);
    const text = await res.text();
    let body = null;
    try { body = parseJSON(text); } catch (e) { body = null; }
    if (res.status !== 200) {
      throw new TspError(res.status, (body && body.title) || `HTTP ${res.status}`,
        body && body.detail);
    }
    return body;
  } finally {
    track(-1);
  }
}

// The decoding worker: one, shared; calls carry an id, answers come back
// with transferable typed arrays.
class DataWorker {
  constructor() {
    this.w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.next = 1;
    this.calls = new Map();
    this.w.onmessage = (ev) => {
      const m = ev.data;
      const c = this.calls.get(m.id);
      if (!c) return;
      this.calls.delete(m.id);
      track(-1);
      if (m.ok) c.resolve(m.result);
      else c.reject(m.aborted ? new DOMException('aborted', 'AbortError')
        : new TspError(m.status || 0, m.title || 'Error', m.detail));
    };
    this.w.onerror = (e) => console.warn('worker:', e.message);
  }

  call(op, args, signal) {
    const id = this.next++;
    track(1);
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.w.postMessage({ id, op, ...args });
      if (signal) {
        const abort = () => this.w.postMessage({ id, op: 'cancel' });
        if (signal.aborted) abort();
        else signal.addEventListener('abort', abort, { once: true });
      }
    });
  }
}

export class Tsp {
  constructor(root = '') {
    this.base = `${root}/tsp/api`;
    this.ext = `${root}/sht/api`;
    this.worker = new DataWorker();
  }

  get(path, signal) { return request('GET', this.base + path, undefined, signal); }
  post(path, params, signal) { return request('POST', this.base + path, params || {}, signal); }
  del(path) { return request('DELETE', this.base + path, undefined); }

  experiments() { return this.get('/experiments'); }
  experiment(e) { return this.get(`/experiments/${e}`); }
  openTrace(uri, name) { return this.post('/traces', name ? { uri, name } : { uri }); }
  openExperiment(name, traces) { return this.post('/experiments', { name, traces }); }
  outputs(e) { return this.get(`/experiments/${e}/outputs`); }

  out(e, o) { return `/experiments/${e}/outputs/${encodeURIComponent(o)}`; }
  outPath(e, kind, o) { return `/experiments/${e}/outputs/${kind}/${encodeURIComponent(o)}`; }

  style(e, o) { return this.post(`${this.out(e, o)}/style`, {}); }
  tree(e, kind, o, params, signal) { return this.post(`${this.outPath(e, kind, o)}/tree`, params || {}, signal); }
  tooltip(e, o, params, signal) { return this.post(`${this.outPath(e, 'timeGraph', o)}/tooltip`, params, signal); }
  columns(e, o) { return this.post(`${this.outPath(e, 'table', o)}/columns`, {}); }
  lines(e, o, params, signal) { return this.post(`${this.outPath(e, 'table', o)}/lines`, params, signal); }

  // States of rows, decoded by the worker: {status, rows: [{id, start,
  // end (Float64Array offsets), style (Int32Array, -1 null state),
  // label (array|null)}], styles: [{parentKey, values}]}.
  states(e, o, params, origin, signal) {
    return this.worker.call('states', {
      url: this.base + `${this.outPath(e, 'timeGraph', o)}/states`,
      body: stringify({ parameters: params }), origin: String(origin),
    }, signal);
  }

  // XY series, decoded: {status, series: [{id, name, x, y, type}]}.
  xy(e, o, params, origin, signal) {
    return this.worker.call('xy', {
      url: this.base + `${this.outPath(e, 'XY', o)}/xy`,
      body: stringify({ parameters: params }), origin: String(origin),
    }, signal);
  }

  roots() { return request('GET', `${this.ext}/roots`); }
  files(path) { return request('GET', `${this.ext}/files?path=${encodeURIComponent(path)}`); }
}
