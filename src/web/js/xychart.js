// xychart.js: the charts drawn against time: CPU Usage and the events
// Histogram under the time graph (the range shown, one sample per
// pixel), and the overview above it (the Histogram of the whole trace,
// with the range shown as a box).  Each sample y[i] covers (x[i-1], x[i]].

import { fit, drawMarks, COLORS, FONT, frameThrottle } from './canvas.js';
import { bindTime } from './interact.js';
import { fmtClock, fmtDurShort } from './time.js';

const SERIES_COLORS = ['#0969da', '#bf3989', '#1a7f37', '#9a6700', '#8250df'];
const HIST_COLORS = ['#6e7f99', '#c29a4a', '#5f9e6e', '#a5678e', '#4f8fb8'];

export class XYChart {
  // opts: {output, kind: 'cpu'|'hist'|'overview', label: element}
  constructor(app, canvas, opts) {
    this.app = app;
    this.store = app.store;
    this.canvas = canvas;
    this.opts = opts;
    this.kind = opts.kind;
    this.data = null;
    this.ids = [];
    this.redraw = frameThrottle(() => this.draw());
    const overview = this.kind === 'overview';
    this.range = overview ? () => this.store.bounds : () => this.store.view;
    // The overview: drag the box to move it, drag elsewhere to show
    // that range.
    const inBox = (x) => {
      const b = this.store.bounds, v = this.store.view, w = canvas.clientWidth || 1;
      const a = ((v.start - b.start) / (b.end - b.start)) * w, e = ((v.end - b.start) / (b.end - b.start)) * w;
      return x >= a - 3 && x <= e + 3 && e - a < w - 6;
    };
    bindTime(canvas, app, {
      name: this.kind, wheelZooms: true, dragMode: overview ? (x) => (inBox(x) ? 'pan' : 'zoom') : 'pan',
      range: overview ? this.range : null,
      onRangeDrag: (a, b) => { this.band = a == null ? null : [a, b]; this.redraw(); },
      onHover: (ev, x, t) => this.hover(ev, x, t),
      onClick: overview ? (ev, x, t) => {
        const v = this.store.view, span = v.end - v.start;
        this.store.setView(t - span / 2, t + span / 2);
        return false;
      } : null,
    });
    const events = overview ? ['view', 'bounds'] : ['view', 'cursor', 'selection', 'hover', 'bounds'];
    for (const t of events) this.store.addEventListener(t, this.redraw);
    this.store.addEventListener(overview ? 'bounds' : 'view', () => this.schedule());
    if (this.kind === 'cpu') this.store.addEventListener('thread', () => this.threadPicked());
    new ResizeObserver(() => { this.redraw(); this.schedule(); }).observe(canvas);
  }

  async open() {
    const { exp, tb } = this.app;
    // CPU Usage: the tree of the whole trace lists every thread that ran
    // (30 000 threads: megabytes to send and parse); a range of 1 ns gives
    // the totals, a thread's entry is looked up when it is selected.
    const params = this.kind === 'cpu'
      ? { requested_timerange: { start: tb.abs(0), end: tb.abs(1) } } : {};
    try {
      const t = await this.app.tsp.tree(exp.UUID, 'XY', this.opts.output.id, params);
      this.treeStatus = t.status;
      this.entries = (t.model && t.model.entries) || [];
    } catch (e) {
      this.entries = [];
      this.error = e.message;
    }
    this.pickSeries();
    this.schedule(0);
    if (this.treeStatus === 'RUNNING') {
      clearTimeout(this.treeTimer);
      this.treeTimer = setTimeout(() => this.open(), 1500);
    }
  }

  // The selected thread's entry: the tree over its lifetime has it.
  async threadPicked() {
    const th = this.store.thread;
    if (th && !(this.entries || []).some((e) => e.parentId !== -1 && Number(e.labels[1]) === th.tid)) {
      const { exp, tb } = this.app;
      const r = th.range || this.store.view;
      try {
        const t = await this.app.tsp.tree(exp.UUID, 'XY', this.opts.output.id,
          { requested_timerange: { start: tb.abs(r.start), end: tb.abs(r.end) } });
        const found = ((t.model && t.model.entries) || []).filter((e) => e.parentId !== -1 && Number(e.labels[1]) === th.tid);
        this.entries = [...(this.entries || []).filter((e) => e.parentId === -1 || e.parentId == null), ...found];
      } catch (e) {
        this.error = e.message;
      }
    }
    if (th !== this.store.thread) return;
    this.pickSeries();
    this.schedule(0);
  }

  // The series to plot: the Histogram's default entries; for CPU Usage
  // the total of each trace and the selected thread.
  pickSeries() {
    const es = this.entries || [];
    const ids = [];
    this.names = new Map();
    if (this.kind === 'cpu') {
      for (const e of es) {
        if (e.parentId === -1 || e.parentId == null) {
          ids.push(e.id);
          this.names.set(e.id, es.filter((x) => x.parentId === -1).length > 1 ? `Total ${e.labels[0]}` : 'Total');
        }
      }
      const th = this.store.thread;
      if (th) {
        for (const e of es) {
          if (e.parentId !== -1 && Number(e.labels[1]) === th.tid) {
            ids.push(e.id);
            this.names.set(e.id, `${e.labels[0]} (${th.tid})`);
          }
        }
      }
    } else {
      const roots = es.filter((e) => e.parentId === -1 || e.parentId == null);
      for (const e of es) {
        if (e.isDefault) {
          ids.push(e.id);
          const root = roots.find((r) => r.id === e.parentId);
          this.names.set(e.id, roots.length > 1 && root ? `${root.labels[0]}` : e.labels[0]);
        }
      }
    }
    this.ids = ids;
    this.updateLabel();
  }

  updateLabel() {
    const el = this.opts.label;
    if (!el) return;
    el.textContent = '';
    const b = document.createElement('b');
    b.textContent = this.kind === 'cpu' ? 'CPU Usage' : 'Events';
    el.appendChild(b);
    const keys = document.createElement('span');
    keys.className = 'keys';
    this.ids.forEach((id, i) => {
      const k = document.createElement('span');
      k.className = 'key';
      const sw = document.createElement('i');
      sw.style.background = this.color(i);
      k.append(sw, document.createTextNode(this.names.get(id) || String(id)));
      keys.appendChild(k);
      keys.appendChild(document.createTextNode(' '));
    });
    el.appendChild(keys);
    if (this.kind === 'cpu' && !this.store.thread) {
      const hint = document.createElement('span');
      hint.className = 'muted';
      hint.textContent = 'click a thread to add it';
      el.appendChild(hint);
    }
  }

  color(i) {
    if (this.kind !== 'cpu') return HIST_COLORS[i % HIST_COLORS.length];
    return i === 0 ? '#57606a' : SERIES_COLORS[(i - 1) % SERIES_COLORS.length];
  }

  // Charts follow the view once it rests (as the Eclipse viewer does):
  // CPU usage over a wide range of a big trace costs the server seconds,
  // which a zoom in steps must not queue up.
  schedule(delay = this.kind === 'cpu' ? 450 : 200) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fetch(), delay);
  }

  async fetch() {
    const { exp, tb } = this.app;
    if (!exp || !this.ids.length) { this.redraw(); return; }
    // The time graph's states first: on a big trace a chart of a wide
    // range costs the server more than a screen of states.
    if (this.kind !== 'overview') {
      const seq = this.seq = (this.seq || 0) + 1;
      await this.app.whenFresh(3000).catch(() => {});
      if (seq !== this.seq) return;
    }
    const w = this.canvas.clientWidth;
    if (!w) return;
    const r = this.range();
    const per = this.kind === 'cpu' ? 2 : 3;       // pixels per sample
    const nbTimes = Math.max(2, Math.min(65536, Math.floor(w / per) + 1));
    if (this.ctl) this.ctl.abort();
    const ctl = this.ctl = new AbortController();
    try {
      const ans = await this.app.tsp.xy(exp.UUID, this.opts.output.id, {
        requested_timerange: { start: tb.abs(r.start), end: tb.abs(r.end), nbTimes },
        requested_items: this.ids,
      }, tb.origin, ctl.signal);
      this.data = { series: ans.series, status: ans.status };
      this.redraw();
      if (ans.status === 'RUNNING') this.schedule(1500);
    } catch (e) {
      if (e.name !== 'AbortError') this.error = e.message;
    }
  }

  draw() {
    const { ctx, w, h } = fit(this.canvas);
    const r = this.range();
    ctx.fillStyle = this.kind === 'overview' ? '#fbfcfd' : '#ffffff';
    ctx.fillRect(0, 0, w, h);
    const k = w / (r.end - r.start);
    const top = 6, bottom = h - 1, ph = bottom - top;
    const series = (this.data && this.data.series) || [];
    // Histograms of several traces are stacked (same buckets).
    const stacked = this.kind !== 'cpu' && series.length > 1 &&
      series.every((s) => s.x.length === series[0].x.length);
    const bases = stacked ? series.map(() => null) : null;
    if (stacked) {
      let acc = new Float64Array(series[0].x.length);
      series.forEach((s, si) => {
        bases[si] = acc;
        const next = new Float64Array(acc.length);
        for (let i = 0; i < acc.length; i++) next[i] = acc[i] + s.y[i];
        acc = next;
      });
      this.stackTop = acc;
    }
    // Scale: the largest value on screen (CPU usage at least 100 %).
    let max = this.kind === 'cpu' ? 100 : 1;
    series.forEach((s, si) => {
      const top = stacked ? null : s.y;
      for (let i = 1; i < s.x.length; i++) {
        if (s.x[i] < r.start || s.x[i - 1] > r.end) continue;
        const v = stacked ? bases[si][i] + s.y[i] : top[i];
        if (v > max) max = v;
      }
    });
    this.max = max;
    ctx.fillStyle = COLORS.grid;
    ctx.fillRect(0, top + Math.round(ph / 2), w, 1);
    series.forEach((s, si) => {
      const idx = this.ids.indexOf(s.id);
      const color = this.color(idx < 0 ? si : idx);
      if (this.kind === 'cpu') this.drawArea(ctx, s, r, k, top, ph, max, color, si === 0);
      else this.drawBars(ctx, s, r, k, top, ph, max, color, stacked ? bases[si] : null);
    });
    // Scale label.
    ctx.font = FONT;
    ctx.textBaseline = 'top';
    let label = this.kind === 'cpu' ? `${Math.round(max)} %` : Math.round(max).toLocaleString('en-US');
    const s0 = series[0];
    if (this.kind === 'hist' && s0 && s0.x.length > 2) label += ` events / ${fmtDurShort(s0.x[2] - s0.x[1])}`;
    const lw = ctx.measureText(label).width;
    ctx.fillStyle = 'rgba(255,255,255,0.8)';
    ctx.fillRect(w - lw - 8, 1, lw + 6, 14);
    ctx.fillStyle = COLORS.muted;
    ctx.fillText(label, w - lw - 5, 2);
    if (this.kind === 'overview') this.drawWindow(ctx, w, h, r, k);
    else drawMarks(ctx, w, h, this.store);
    if (this.band) {
      const a = (Math.min(...this.band) - r.start) * k, b = (Math.max(...this.band) - r.start) * k;
      ctx.fillStyle = 'rgba(9,105,218,0.22)';
      ctx.fillRect(a, 0, b - a, h);
    }
    ctx.fillStyle = COLORS.gridStrong;
    ctx.fillRect(0, h - 1, w, 1);
  }

  drawArea(ctx, s, r, k, top, ph, max, color, filled) {
    const base = top + ph;
    ctx.beginPath();
    let started = false, lastX = 0;
    for (let i = 1; i < s.x.length; i++) {
      const x0 = (s.x[i - 1] - r.start) * k, x1 = (s.x[i] - r.start) * k;
      if (x1 < -2 || x0 > this.canvas.clientWidth + 2) continue;
      const y = base - (s.y[i] / max) * ph;
      if (!started) { ctx.moveTo(x0, base); started = true; }
      ctx.lineTo(x0, y);
      ctx.lineTo(x1, y);
      lastX = x1;
    }
    if (!started) return;
    ctx.lineTo(lastX, base);
    ctx.closePath();
    ctx.fillStyle = filled ? 'rgba(87,96,106,0.22)' : hexA(color, 0.28);
    ctx.fill();
    ctx.strokeStyle = color;
    ctx.lineWidth = 1;
    ctx.stroke();
  }

  drawBars(ctx, s, r, k, top, ph, max, color, under) {
    const base = top + ph;
    ctx.fillStyle = color;
    const dpr = window.devicePixelRatio || 1;
    for (let i = 1; i < s.x.length; i++) {
      if (!s.y[i]) continue;
      const x0 = (s.x[i - 1] - r.start) * k, x1 = (s.x[i] - r.start) * k;
      const b0 = under ? (under[i] / max) * ph : 0;
      const bh = Math.max(1 / dpr, (s.y[i] / max) * ph);
      const gap = x1 - x0 > 3 ? 1 : 0;
      ctx.fillRect(x0, base - b0 - bh, Math.max(1 / dpr, x1 - x0 - gap), bh);
    }
  }

  // The overview's box: the range shown, the rest dimmed.
  drawWindow(ctx, w, h, r, k) {
    const v = this.store.view;
    const a = Math.max(0, (v.start - r.start) * k), b = Math.min(w, (v.end - r.start) * k);
    ctx.fillStyle = 'rgba(246,248,250,0.72)';
    ctx.fillRect(0, 0, a, h);
    ctx.fillRect(b, 0, w - b, h);
    ctx.strokeStyle = COLORS.cursor;
    ctx.lineWidth = 1.5;
    ctx.strokeRect(a + 0.75, 0.75, Math.max(2, b - a - 1.5), h - 1.5);
  }

  hover(ev, x, t) {
    const tip = this.app.tooltip;
    if (!ev || !this.data) { tip.hide(); return; }
    const rows = [];
    let when = null;
    this.data.series.forEach((s, si) => {
      let i = 1;
      while (i < s.x.length && s.x[i] < t) i++;
      if (i >= s.x.length) return;
      const idx = this.ids.indexOf(s.id);
      const v = s.y[i];
      rows.push([this.names.get(s.id) || s.name, this.kind === 'cpu' ? `${v.toFixed(1)} %` : `${Math.round(v).toLocaleString('en-US')} events`,
        this.color(idx < 0 ? si : idx)]);
      if (!when) when = `${fmtClock(this.app.tb.abs(s.x[i - 1]), 6)} + ${fmtDurShort(s.x[i] - s.x[i - 1])}`;
    });
    if (!rows.length) { tip.hide(); return; }
    tip.showValues(this.kind === 'cpu' ? 'CPU Usage' : 'Events', when, rows, ev.clientX, ev.clientY);
  }
}

function hexA(hex, a) {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${a})`;
}
