// timegraph.js: a time graph (Control Flow, Resources, State System
// Explorer): rows of a tree on the left (text, one DOM row per row on
// screen), their states on a canvas on the right.
//
// Only the rows on screen are asked for, at the screen's resolution: one
// states request for the visible rows (plus a few), over the range shown
// widened by a quarter on each side so that a pan shows data at once,
// with one sample per pixel.  Answers are kept per row; a redraw paints
// what is kept (even of another zoom level) until the new answer comes.

import { RowTree } from './rows.js';
import { StyleTable } from './styles.js';
import { fit, drawMarks, COLORS, FONT, frameThrottle } from './canvas.js';
import { StatePainter, BG, upper } from './paint.js';
import { bindTime } from './interact.js';
import { fmtClock, fmtDur } from './time.js';

const NEAR = 0.02;           // fetched range beyond the view, each side,
const WIDEN = 0.25;          // first, then once the view rests
const MARGIN_ROWS = 4;       // rows fetched above and below the screen
const CHUNK = 250;           // rows per states request
const MAX_TIMES = 65536;

export class TimeGraph {
  // opts: {output (descriptor), title, kind: 'threads'|'resources'|'ssx',
  //        columns: [{label index, name, width}], legend: bool}
  constructor(app, opts) {
    this.app = app;
    this.store = app.store;
    this.opts = opts;
    this.output = opts.output;
    this.tree = new RowTree();
    this.styles = new StyleTable({});
    this.data = new Map();
    this.pending = new Map();      // id -> request token
    this.requests = new Set();
    this.rowH = 20;
    this.gen = 0;                  // bumps when kept states go stale
    this.active = false;
    this.status = 'RUNNING';
    this.selected = null;
    this.painter = new StatePainter();
    this.stats = { draws: 0, lastDrawMs: 0, requests: 0, lastFetchMs: 0 };
    this.build();
    this.redraw = frameThrottle(() => this.draw());
  }

  // ---- DOM ---------------------------------------------------------------

  build() {
    const root = document.createElement('div');
    root.className = 'tg';
    root.hidden = true;
    root.innerHTML = `
      <div class="tg-scroll">
        <div class="tg-sticky">
          <div class="tg-names" role="tree" tabindex="0"></div>
          <canvas class="tg-canvas" tabindex="0" role="img"></canvas>
        </div>
        <div class="tg-sizer"></div>
      </div>
      <div class="resizer" title="Drag to resize the names"></div>`;
    this.root = root;
    this.scroller = root.querySelector('.tg-scroll');
    this.sticky = root.querySelector('.tg-sticky');
    this.names = root.querySelector('.tg-names');
    this.canvas = root.querySelector('.tg-canvas');
    this.sizer = root.querySelector('.tg-sizer');
    this.names.setAttribute('aria-label', `${this.opts.title}: rows`);
    this.canvas.setAttribute('aria-label', `${this.opts.title}: states over time (keys: W S A D to zoom and pan)`);
    this.rowEls = [];
    // While the rows scroll, states are asked for every 80 ms at most
    // (not only once the scrolling stops).
    this.scroller.addEventListener('scroll', () => {
      this.redraw();
      if (!this.scrollFetch) {
        this.scrollFetch = setTimeout(() => { this.scrollFetch = null; this.scheduleFetch(0); }, 80);
      }
    });
    new ResizeObserver(() => { this.layout(); }).observe(this.scroller);

    bindTime(this.canvas, this.app, {
      name: 'graph',
      onHover: (ev, x, t) => this.hover(ev, x, t),
      onClick: (ev, x, t) => { this.pickRow(this.rowAtY(ev.clientY), false); return true; },
      onDragRows: (dy, drag) => {
        if (drag.scroll0 == null) drag.scroll0 = this.scroller.scrollTop;
        this.scroller.scrollTop = drag.scroll0 - dy;
      },
    });
    this.names.addEventListener('click', (ev) => this.nameClick(ev));
    this.names.addEventListener('dblclick', (ev) => this.nameDblClick(ev));
    this.names.addEventListener('keydown', (ev) => this.nameKey(ev));
    this.names.addEventListener('wheel', (ev) => {
      if (ev.ctrlKey) ev.preventDefault();
    }, { passive: false });
    this.bindResizer(root.querySelector('.resizer'));
  }

  bindResizer(el) {
    const place = () => { el.style.left = getComputedStyle(document.documentElement).getPropertyValue('--names-w'); };
    place();
    el.addEventListener('pointerdown', (ev) => {
      el.setPointerCapture(ev.pointerId);
      const move = (e) => {
        const w = Math.max(140, Math.min(window.innerWidth * 0.6, e.clientX - this.root.getBoundingClientRect().left));
        this.app.setNamesWidth(w);
      };
      const up = () => { el.removeEventListener('pointermove', move); el.removeEventListener('pointerup', up); };
      el.addEventListener('pointermove', move);
      el.addEventListener('pointerup', up);
    });
    this.placeResizer = place;
  }

  columnsTemplate() {
    const cols = this.opts.columns.slice(1).map((c) => `${c.width}px`).join(' ');
    return `minmax(0, 1fr) ${cols}`;
  }

  headHtml() {
    const esc = (s) => s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' }[c]));
    return this.opts.columns.map((c, i) =>
      `<span style="text-align:${i ? 'right' : 'left'}">${esc(c.name)}</span>`).join('');
  }

  layout() {
    const w = this.scroller.clientWidth, h = this.scroller.clientHeight;
    if (!w || !h) return;
    this.viewH = h;
    this.sticky.style.height = `${h}px`;
    this.updateSizer();
    if (this.placeResizer) this.placeResizer();
    this.redraw();
    this.scheduleFetch(0);
  }

  updateSizer() {
    const total = this.tree.rows.length * this.rowH;
    this.sizer.style.height = `${Math.max(0, total - (this.viewH || 0))}px`;
  }

  setActive(on) {
    this.active = on;
    this.root.hidden = !on;
    if (on) {
      this.layout();
      this.app.showHead(this);
      this.app.showLegend(this);
    }
  }

  // ---- tree --------------------------------------------------------------

  async open() {
    const { exp } = this.app;
    const o = this.output.id;
    // The style and the tree at once; states wait for the style.
    const tree = this.loadTree(this.app.tsp.style(exp.UUID, o).then((st) => {
      this.styles = new StyleTable((st && st.model && st.model.styles) || {});
    }).catch(() => {
      this.styles = new StyleTable({});
    }).then(() => {
      if (this.active) this.app.showLegend(this);
    }));
    await tree;
  }

  async loadTree(styled) {
    const { exp } = this.app;
    let res;
    try {
      res = await this.app.tsp.tree(exp.UUID, 'timeGraph', this.output.id, {});
      if (styled) await styled;
    } catch (e) {
      this.error = e.message;
      this.app.toast(`${this.opts.title}: ${e.message}`);
      return;
    }
    const first = this.tree.nodes.size === 0;
    this.status = res.status;
    this.error = res.status === 'FAILED' ? res.statusMessage : null;
    if (res.model) this.tree.set(res.model);
    if (first && this.opts.kind === 'resources') this.expandCpus();
    if (first && this.opts.kind === 'ssx') this.expandTo(3);
    this.treeLoadedAt = performance.now();
    this.updateSizer();
    this.invalidate();
    if (this.status === 'RUNNING') {
      clearTimeout(this.treeTimer);
      this.treeTimer = setTimeout(() => this.loadTree(), this.tree.nodes.size > 5000 ? 2000 : 1000);
    }
    this.app.onTreeLoaded(this);
  }

  // Resources: CPU rows open, their IRQ rows and the aggregates closed.
  expandCpus() {
    for (const n of this.tree.nodes.values()) {
      if (n.depth === 0) this.tree.expanded.set(n.id, true);
      else if (n.children.length) this.tree.expanded.set(n.id, false);
    }
    this.tree.flatten();
  }

  // State System Explorer: open down to each history's top attributes.
  expandTo(depth) {
    for (const n of this.tree.nodes.values()) if (n.children.length) this.tree.expanded.set(n.id, n.depth < depth);
    this.tree.flatten();
  }

  // Kept states are stale (the tree changed while an analysis runs).
  invalidate() {
    this.gen++;
    this.redraw();
    this.scheduleFetch(0);
  }

  setFilter(text) {
    this.tree.setFilter(text);
    this.updateSizer();
    this.scroller.scrollTop = 0;
    this.redraw();
    this.scheduleFetch(0);
  }

  // ---- fetching states ---------------------------------------------------

  visibleRange() {
    const top = this.scroller.scrollTop;
    const first = Math.max(0, Math.floor(top / this.rowH));
    const last = Math.min(this.tree.rows.length - 1, Math.floor((top + (this.viewH || 0)) / this.rowH));
    return [first, last];
  }

  scheduleFetch(delay = 30) {
    if (!this.active) return;
    clearTimeout(this.fetchTimer);
    clearTimeout(this.wideTimer);
    this.fetchTimer = setTimeout(() => this.fetchVisible(false), delay);
  }

  fresh(d, v, res) {
    return d && d.gen === this.gen && d.a <= v.start && d.b >= v.end && d.res <= res * 1.05;
  }

  // The visible rows' states: first for the view (and a little more),
  // then, once the view rests, for a quarter of it on each side, so that
  // a pan shows states at once.  A zoom waits only for the first.
  fetchVisible(wide) {
    if (!this.active || !this.app.exp) return;
    const w = this.canvas.clientWidth;
    if (!w || !this.tree.rows.length) return;
    const v = this.store.view, b = this.store.bounds;
    const span = v.end - v.start;
    const res = span / w;
    const margin = wide ? WIDEN : NEAR;
    const a = Math.max(b.start, v.start - span * margin);
    const e = Math.min(b.end, v.end + span * margin);
    const need = wide ? (d) => this.fresh(d, v, res) && d.a <= Math.max(b.start, v.start - span * WIDEN * 0.8) &&
      d.b >= Math.min(b.end, v.end + span * WIDEN * 0.8) : (d) => this.fresh(d, v, res);
    // Drop the requests this view no longer needs.
    for (const r of this.requests) {
      if (!(r.a <= v.start && r.b >= v.end && r.res <= res * 1.05 && r.gen === this.gen)) {
        r.ctl.abort();
        this.requests.delete(r);
        for (const id of r.ids) if (this.pending.get(id) === r) this.pending.delete(id);
      }
    }
    const [f, l] = this.visibleRange();
    const ids = [];
    for (let i = Math.max(0, f - MARGIN_ROWS); i <= Math.min(this.tree.rows.length - 1, l + MARGIN_ROWS); i++) {
      const n = this.tree.rows[i];
      if (!n.hasData || this.pending.has(n.id)) continue;
      if (need(this.data.get(n.id))) continue;
      ids.push(n.id);
    }
    if (!ids.length) return;
    const nb = Math.min(MAX_TIMES, Math.ceil((e - a) / res) + 1);
    for (let i = 0; i < ids.length; i += CHUNK) this.request(ids.slice(i, i + CHUNK), a, e, nb, res);
  }

  async request(ids, a, b, nbTimes, res) {
    const { exp, tb } = this.app;
    const ctl = new AbortController();
    const r = { ids, a, b, res, gen: this.gen, ctl, t0: performance.now() };
    this.requests.add(r);
    for (const id of ids) this.pending.set(id, r);
    this.stats.requests++;
    let ans;
    try {
      ans = await this.app.tsp.states(exp.UUID, this.output.id, {
        requested_timerange: { start: tb.abs(a), end: tb.abs(b), nbTimes },
        requested_items: ids,
      }, tb.origin, ctl.signal);
    } catch (e) {
      if (e.name !== 'AbortError') this.app.toast(`${this.opts.title}: ${e.message}`);
      this.requests.delete(r);
      for (const id of ids) if (this.pending.get(id) === r) this.pending.delete(id);
      return;
    }
    this.requests.delete(r);
    for (const id of ids) if (this.pending.get(id) === r) this.pending.delete(id);
    const map = ans.styles.map((s) => this.styles.index(s));
    const running = ans.status === 'RUNNING';
    for (const row of ans.rows) {
      const st = row.style;
      for (let i = 0; i < st.length; i++) if (st[i] >= 0) st[i] = map[st[i]];
      this.data.delete(row.id);
      this.data.set(row.id, { a, b, res, gen: running ? -1 : r.gen, start: row.start, end: row.end,
        style: st, label: row.label });
    }
    for (const id of ids) if (!this.data.has(id)) this.data.set(id, { a, b, res, gen: r.gen, start: new Float64Array(0), end: new Float64Array(0), style: new Int32Array(0), label: null });
    this.evict();
    this.stats.lastFetchMs = performance.now() - r.t0;
    this.stats.lastDecodeMs = ans.decodeMs;
    this.stats.lastBytes = ans.bytes;
    this.lastAnswer = performance.now();
    this.redraw();
    if (!this.requests.size) {
      clearTimeout(this.wideTimer);
      this.wideTimer = setTimeout(() => this.fetchVisible(true), 250);
    }
    if (running) {
      clearTimeout(this.runTimer);
      this.runTimer = setTimeout(() => this.scheduleFetch(0), 1000);
    }
  }

  // Forget the states of rows far from the screen (a Map keeps its
  // insertion order: the oldest answers go first).
  evict() {
    const max = 3000;
    if (this.data.size <= max) return;
    const [f, l] = this.visibleRange();
    for (const id of this.data.keys()) {
      if (this.data.size <= max * 0.8) break;
      const i = this.tree.indexOf(id);
      if (i >= f - 200 && i <= l + 200) continue;
      this.data.delete(id);
    }
  }

  // ---- drawing -----------------------------------------------------------

  draw() {
    if (!this.active || !this.viewH) return;
    const t0 = performance.now();
    this.drawNames();
    this.drawCanvas();
    this.stats.draws++;
    this.stats.lastDrawAt = performance.now();
    this.stats.lastDrawMs = this.stats.lastDrawAt - t0;
  }

  // Every row on screen has its states for this view at this resolution
  // and they are drawn (for the benchmarks and the tests).
  isFresh() {
    const w = this.canvas.clientWidth;
    if (!w || !this.tree.rows.length) return false;
    const v = this.store.view;
    const res = (v.end - v.start) / w;
    const [f, l] = this.visibleRange();
    for (let i = f; i <= l; i++) {
      const n = this.tree.rows[i];
      if (n.hasData && !this.fresh(this.data.get(n.id), v, res)) return false;
    }
    return (this.stats.lastDrawAt || 0) >= (this.lastAnswer || 0);
  }

  drawNames() {
    const rows = this.tree.rows;
    const [f, l] = this.visibleRange();
    const top = this.scroller.scrollTop;
    const need = Math.max(0, l - f + 1);
    const tpl = this.columnsTemplate();
    while (this.rowEls.length < need) {
      const el = document.createElement('div');
      el.className = 'tg-row';
      el.setAttribute('role', 'treeitem');
      el.style.gridTemplateColumns = tpl;
      this.names.appendChild(el);
      this.rowEls.push(el);
    }
    for (let i = 0; i < this.rowEls.length; i++) {
      const el = this.rowEls[i];
      const n = rows[f + i];
      if (i >= need || !n) { el.hidden = true; el._node = null; continue; }
      el.hidden = false;
      const exp = n.children.length ? this.tree.isExpanded(n) : null;
      const key = `${n.id}|${exp}|${n.labels.join('\u0001')}`;
      if (el._key !== key) {
        el._key = key;
        el._node = n;
        el._place = null;
        this.fillRow(el, n, exp);
      }
      // Written only when it changes: a pan or a zoom redraws the states
      // every frame, and rewriting 200 rows' styles and attributes each
      // time costs the browser a style pass for nothing.
      const sel = this.selected === n.id;
      const place = `${(f + i) * this.rowH - top}|${f + i}|${rows.length}|${sel}|${n.hasData}`;
      if (el._place === place) continue;
      el._place = place;
      el.style.transform = `translateY(${(f + i) * this.rowH - top}px)`;
      el.classList.toggle('alt', (f + i) % 2 === 1);
      el.classList.toggle('sel', sel);
      el.classList.toggle('group', !n.hasData);
      el.setAttribute('aria-selected', sel ? 'true' : 'false');
      el.setAttribute('aria-posinset', String(f + i + 1));
      el.setAttribute('aria-setsize', String(rows.length));
    }
  }

  fillRow(el, n, exp) {
    el.textContent = '';
    el.dataset.id = n.id;
    el.setAttribute('aria-level', String(n.depth + 1));
    if (exp === null) el.removeAttribute('aria-expanded');
    else el.setAttribute('aria-expanded', String(exp));
    const name = document.createElement('span');
    name.className = 'name';
    name.style.paddingLeft = `${4 + n.depth * 12}px`;
    const tw = document.createElement('span');
    tw.className = 'tw';
    tw.textContent = exp === null ? '' : exp ? '\u25BE' : '\u25B8';
    if (exp !== null) tw.setAttribute('aria-hidden', 'true');
    const label = document.createElement('span');
    label.className = 'label';
    const text = String(n.labels[this.opts.columns[0].index] ?? '');
    label.textContent = text;
    name.title = text;
    name.append(tw, label);
    el.appendChild(name);
    for (const c of this.opts.columns.slice(1)) {
      const s = document.createElement('span');
      s.className = 'col';
      s.textContent = String(n.labels[c.index] ?? '');
      el.appendChild(s);
    }
  }

  // The rows' backgrounds and states (paint.js), labels, then the marks.
  drawCanvas() {
    const { ctx, w, h, dpr } = fit(this.canvas, this.viewH);
    this.cw = w;
    const W = this.canvas.width, H = this.canvas.height;
    const painter = this.painter;
    painter.begin(ctx, W, H);
    const rows = this.tree.rows;
    const [f, l] = this.visibleRange();
    const top = this.scroller.scrollTop;
    const v = this.store.view;
    const k = (w / (v.end - v.start)) * dpr;        // device px per ns
    const rowH = this.rowH;
    const texts = [];
    const t0 = performance.now();
    let nruns = 0, yEnd = 0;
    for (let i = f; i <= l; i++) {
      const n = rows[i];
      const y0 = Math.round((i * rowH - top) * dpr), y1 = Math.round(((i + 1) * rowH - top) * dpr);
      const bg = this.selected === n.id ? BG.sel : !n.hasData ? BG.group : i % 2 ? BG.alt : BG.plain;
      nruns += painter.row(this.data.get(n.id), this.styles, v, k, dpr, y0, y1, bg, texts, i * rowH - top);
      yEnd = Math.max(yEnd, y1);
    }
    const t1 = performance.now();
    painter.finish(ctx, yEnd);
    const t2 = performance.now();
    if (texts.length) painter.drawTexts(ctx, texts, rowH);
    this.stats.prof = { paint: t1 - t0, put: t2 - t1, text: performance.now() - t2, runs: nruns, texts: texts.length / 5 };
    drawMarks(ctx, w, h, this.store);
    if (!rows.length) {
      ctx.fillStyle = COLORS.muted;
      ctx.font = FONT;
      ctx.fillText(this.error ? `Failed: ${this.error}` : this.status === 'RUNNING' ? 'Analysis running…' : 'No rows', 12, 18);
    }
  }

  // ---- rows and the mouse -------------------------------------------------

  rowAtY(clientY) {
    const r = this.canvas.getBoundingClientRect();
    const i = Math.floor((clientY - r.top + this.scroller.scrollTop) / this.rowH);
    return this.tree.rows[i] || null;
  }

  // The kept state of row n at time t: {i, d} or null.
  stateAt(n, t) {
    const d = n && this.data.get(n.id);
    if (!d) return null;
    const i = upper(d.start, t) - 1;
    if (i >= 0 && d.end[i] > t) return { d, i, start: d.start[i], end: d.end[i], style: d.style[i],
      label: d.label ? d.label[i] : null };
    return null;
  }

  hover(ev, x, t) {
    if (!ev) { this.app.tooltip.hide(); return; }
    const n = this.rowAtY(ev.clientY);
    if (!n || !n.hasData) { this.app.tooltip.hide(); return; }
    this.app.tooltip.showState(this, n, t, ev.clientX, ev.clientY);
  }

  pickRow(n, scroll = true) {
    if (!n) return;
    this.selected = n.id;
    if (this.opts.kind === 'threads') {
      const tid = n.metadata && n.metadata.TID ? Number(n.metadata.TID[0]) : Number(n.labels[1]);
      const tb = this.app.tb;
      const range = n.start != null && n.end != null ? { start: tb.rel(n.start), end: tb.rel(n.end) } : null;
      if (Number.isFinite(tid) && n.hasData) this.store.setThread({ tid, name: String(n.labels[0]), range });
    }
    if (scroll) this.scrollToRow(n.row);
    this.redraw();
  }

  scrollToRow(i) {
    const y = i * this.rowH, top = this.scroller.scrollTop, h = this.viewH || 0;
    if (y < top) this.scroller.scrollTop = y;
    else if (y + this.rowH > top + h) this.scroller.scrollTop = y + this.rowH - h;
  }

  nodeOfEvent(ev) {
    const el = ev.target.closest('.tg-row');
    return el && el._node;
  }

  nameClick(ev) {
    const n = this.nodeOfEvent(ev);
    if (!n) return;
    if (ev.target.classList.contains('tw')) {
      this.tree.toggle(n);
      this.updateSizer();
      this.redraw();
      this.scheduleFetch(0);
    }
    this.pickRow(n, false);
  }

  // Double click: zoom to the row's lifetime.
  nameDblClick(ev) {
    const n = this.nodeOfEvent(ev);
    if (!n || n.start == null || n.end == null) return;
    const tb = this.app.tb;
    const a = tb.rel(n.start), b = tb.rel(n.end);
    if (b > a) this.store.setView(a - (b - a) * 0.02, b + (b - a) * 0.02);
  }

  nameKey(ev) {
    const rows = this.tree.rows;
    if (!rows.length) return;
    let i = this.selected != null ? this.tree.indexOf(this.selected) : -1;
    const n = i >= 0 ? rows[i] : null;
    const page = Math.max(1, Math.floor((this.viewH || 200) / this.rowH) - 1);
    switch (ev.key) {
      case 'ArrowDown': i = Math.min(rows.length - 1, i + 1); break;
      case 'ArrowUp': i = Math.max(0, i - 1); break;
      case 'PageDown': i = Math.min(rows.length - 1, i + page); break;
      case 'PageUp': i = Math.max(0, i - page); break;
      case 'Home': i = 0; break;
      case 'End': i = rows.length - 1; break;
      case 'ArrowRight':
        if (n && n.children.length && !this.tree.isExpanded(n)) this.toggleNode(n, true);
        else if (n && n.children.length) i += 1;
        break;
      case 'ArrowLeft':
        if (n && n.children.length && this.tree.isExpanded(n)) this.toggleNode(n, false);
        else if (n && n.parent) i = this.tree.indexOf(n.parent.id);
        break;
      case 'Enter': case ' ':
        if (n) this.toggleNode(n);
        break;
      default: return;
    }
    ev.preventDefault();
    ev.stopPropagation();
    if (i >= 0 && rows[i]) this.pickRow(rows[i]);
  }

  toggleNode(n, open) {
    this.tree.toggle(n, open);
    this.updateSizer();
    this.redraw();
    this.scheduleFetch(0);
  }

  selectedNode() {
    return this.selected != null ? this.tree.nodes.get(this.selected) : null;
  }

  // Times in the page's offsets of the selected row's state changes
  // around t: the exact interval holding t (one states request).
  async intervalAt(n, t) {
    const { exp, tb } = this.app;
    const ans = await this.app.tsp.states(exp.UUID, this.output.id, {
      requested_times: [tb.abs(t)], requested_items: [n.id],
    }, tb.origin);
    const row = ans.rows.find((r) => r.id === n.id);
    if (!row) return null;
    for (let i = 0; i < row.start.length; i++) {
      if (row.start[i] <= t && row.end[i] > t) {
        const s = row.style[i];
        return { start: row.start[i], end: row.end[i],
          style: s >= 0 ? this.styles.index(ans.styles[s]) : -1,
          label: row.label ? row.label[i] : null };
      }
    }
    return null;
  }

  async stepState(dir) {
    const n = this.selectedNode();
    const t = this.store.cursor != null ? this.store.cursor : this.store.view.start;
    if (!n || !n.hasData) { this.app.toast('Select a row first (click its name)'); return; }
    const probe = dir > 0 ? t : t - 1;
    const iv = await this.intervalAt(n, probe);
    if (!iv) return;
    const to = dir > 0 ? iv.end : iv.start;
    this.store.setCursor(to, 'step');
    this.store.reveal(to);
  }

  // Tooltip text for a state (the server's details at t).
  async details(n, t, signal) {
    const { exp, tb } = this.app;
    const ans = await this.app.tsp.tooltip(exp.UUID, this.output.id, {
      requested_times: [tb.abs(t)], requested_items: [n.id],
      requested_element: { elementType: 'state', time: tb.abs(t), duration: 0n },
    }, signal);
    return (ans && ans.model) || {};
  }

  describeRow(n) {
    const cols = this.opts.columns;
    const parts = [];
    for (const c of cols.slice(1)) {
      const v = n.labels[c.index];
      if (v !== '' && v != null) parts.push(`${c.name} ${v}`);
    }
    return { title: String(n.labels[cols[0].index] ?? ''), sub: parts.join(' · ') };
  }

  fmtInterval(iv) {
    const tb = this.app.tb;
    return [
      ['Start', fmtClock(tb.abs(iv.start))],
      ['End', fmtClock(tb.abs(iv.end))],
      ['Duration', fmtDur(iv.end - iv.start)],
    ];
  }
}
