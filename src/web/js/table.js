// table.js: the Events table: every event of the experiment in time
// order, read through the protocol in blocks of lines, of which only the
// ones on screen are asked for (a virtual list: the page never holds
// more than a few thousand rows, whatever the trace's size).  The
// scrollbar maps the whole trace; the wheel and the keys move by lines.
// The current line follows the cursor, and picking a line moves the
// cursor.  A filter keeps the events of matching types; a search finds
// the next or previous line whose chosen column matches.

import { frameThrottle } from './canvas.js';

const ROW_H = 20;
const BLOCK = 100;
const MAX_BLOCKS = 60;
const SCROLL_MAX = 4e6;            // px of the scrollbar's spacer at most

export class EventsTable {
  constructor(app, host) {
    this.app = app;
    this.store = app.store;
    this.host = host;
    this.size = 0;
    this.top = 0;
    this.cur = -1;
    this.blocks = new Map();
    this.filter = '';
    this.search = '';
    this.searchCol = null;
    this.status = 'RUNNING';
    this.stats = { requests: 0, lastMs: 0 };
    this.redraw = frameThrottle(() => this.draw());
    this.build();
    this.store.addEventListener('cursor', (ev) => {
      if (ev.detail && ev.detail.source === 'table') return;
      this.follow();
    });
  }

  build() {
    const h = this.host;
    h.innerHTML = `
      <div class="ev-bar">
        <label>Type <input type="search" class="f-type" list="ev-types" placeholder="all (regex)" spellcheck="false" aria-label="Show only the event types matching"></label>
        <datalist id="ev-types"></datalist>
        <label>Search <input type="search" class="f-search" placeholder="text or regex, Enter" spellcheck="false" aria-label="Search the events"></label>
        <label>in <select class="f-col" aria-label="Column searched"></select></label>
        <button type="button" class="btn f-prev" title="Previous match (Shift+Enter)" aria-label="Previous match">&#9650;</button>
        <button type="button" class="btn f-next" title="Next match (Enter)" aria-label="Next match">&#9660;</button>
        <span class="search-state" aria-live="polite"></span>
        <span class="spacer"></span>
        <span class="count num" aria-live="polite"></span>
      </div>
      <div class="ev-table" role="grid" aria-label="Events">
        <div class="ev-head" role="row"></div>
        <div class="ev-body" tabindex="0">
          <div class="ev-rows" role="rowgroup"></div>
          <div class="ev-scroll" aria-hidden="true"><div></div></div>
        </div>
      </div>`;
    this.headEl = h.querySelector('.ev-head');
    this.body = h.querySelector('.ev-body');
    this.rowsEl = h.querySelector('.ev-rows');
    this.scrollEl = h.querySelector('.ev-scroll');
    this.spacer = this.scrollEl.firstElementChild;
    this.countEl = h.querySelector('.count');
    this.stateEl = h.querySelector('.search-state');
    this.typeIn = h.querySelector('.f-type');
    this.searchIn = h.querySelector('.f-search');
    this.colSel = h.querySelector('.f-col');
    this.rowEls = [];
    this.body.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      const lines = ev.deltaMode === 1 ? ev.deltaY : ev.deltaMode === 2 ? ev.deltaY * this.visible() : ev.deltaY / ROW_H;
      this.scrollTo(this.top + Math.round(lines) || Math.sign(ev.deltaY));
    }, { passive: false });
    this.scrollEl.addEventListener('scroll', () => {
      if (this.settingScroll) { this.settingScroll = false; return; }
      const max = this.spacerH - this.scrollEl.clientHeight;
      const f = max > 0 ? this.scrollEl.scrollTop / max : 0;
      this.top = Math.round(f * Math.max(0, this.size - this.visible()));
      this.redraw();
      this.schedule();
    });
    this.rowsEl.addEventListener('click', (ev) => {
      const el = ev.target.closest('.ev-row');
      if (el && el._index != null) this.pick(el._index);
    });
    this.body.addEventListener('keydown', (ev) => this.key(ev));
    this.typeIn.addEventListener('change', () => this.setFilter(this.typeIn.value));
    this.typeIn.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') this.setFilter(this.typeIn.value); });
    this.searchIn.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') { ev.preventDefault(); this.find(ev.shiftKey ? -1 : 1); }
    });
    this.searchIn.addEventListener('input', () => {
      this.stateEl.textContent = '';
      if (!this.searchIn.value && this.search) { this.search = ''; this.clearBlocks(); }
    });
    this.colSel.addEventListener('change', () => { this.searchCol = +this.colSel.value; this.clearBlocks(); });
    h.querySelector('.f-prev').addEventListener('click', () => this.find(-1));
    h.querySelector('.f-next').addEventListener('click', () => this.find(1));
    new ResizeObserver(() => { this.layout(); }).observe(this.body);
  }

  async open() {
    const { exp } = this.app;
    this.output = this.app.outputs.find((o) => o.type === 'TABLE');
    if (!this.output) { this.countEl.textContent = 'no events table'; return; }
    const ans = await this.app.tsp.columns(exp.UUID, this.output.id);
    const cols = (ans && ans.model) || [];
    this.allCols = cols;
    this.timeNsCol = cols.find((c) => c.name === 'Timestamp ns');
    this.cols = cols.filter((c) => c !== this.timeNsCol);
    const typeCol = cols.find((c) => c.name === 'Event type');
    this.typeColId = typeCol ? typeCol.id : null;
    const contents = cols.find((c) => c.name === 'Contents') || this.cols[this.cols.length - 1];
    this.searchCol = contents ? contents.id : null;
    this.colSel.textContent = '';
    for (const c of this.cols) {
      const o = document.createElement('option');
      o.value = c.id;
      o.textContent = c.name;
      if (c.id === this.searchCol) o.selected = true;
      this.colSel.appendChild(o);
    }
    const widths = this.cols.map((c) => {
      switch (c.name) {
        case 'Timestamp': return '170px';
        case 'CPU': return '44px';
        case 'Event type': return '210px';
        case 'Trace': return '130px';
        case 'Contents': return 'minmax(200px, 1fr)';
        default: return '120px';
      }
    });
    this.host.style.setProperty('--ev-cols', `72px ${widths.join(' ')}`);
    this.headEl.textContent = '';
    const idx = document.createElement('div');
    idx.textContent = '#';
    idx.setAttribute('role', 'columnheader');
    idx.style.textAlign = 'right';
    this.headEl.appendChild(idx);
    for (const c of this.cols) {
      const d = document.createElement('div');
      d.setAttribute('role', 'columnheader');
      d.textContent = c.name;
      d.title = c.description || c.name;
      this.headEl.appendChild(d);
    }
    this.clearBlocks();
    await this.fetchBlock(0);
    this.layout();
    if (this.store.cursor != null) this.follow();
  }

  setTypes(types) {
    const dl = this.host.querySelector('#ev-types');
    dl.textContent = '';
    for (const t of types) {
      const o = document.createElement('option');
      o.value = `^${t}$`;
      o.label = t;
      dl.appendChild(o);
    }
  }

  setFilter(text) {
    text = text.trim();
    if (text === this.filter) return;
    this.filter = text;
    this.typeIn.value = text;
    this.top = 0;
    this.cur = -1;
    this.clearBlocks();
    this.fetchBlock(0).then(() => { this.layout(); if (this.store.cursor != null) this.follow(); });
  }

  visible() {
    return Math.max(1, Math.floor((this.body.clientHeight || ROW_H) / ROW_H));
  }

  layout() {
    const n = this.visible() + 1;
    while (this.rowEls.length < n) {
      const el = document.createElement('div');
      el.className = 'ev-row';
      el.setAttribute('role', 'row');
      this.rowsEl.appendChild(el);
      this.rowEls.push(el);
    }
    this.updateScrollbar();
    this.redraw();
    this.schedule(0);
  }

  updateScrollbar() {
    this.spacerH = Math.min(SCROLL_MAX, this.size * ROW_H);
    this.spacer.style.height = `${this.spacerH}px`;
    const max = this.spacerH - this.scrollEl.clientHeight;
    const span = Math.max(1, this.size - this.visible());
    const want = max > 0 ? Math.round((this.top / span) * max) : 0;
    if (Math.abs(this.scrollEl.scrollTop - want) >= 1) {
      this.settingScroll = true;
      this.scrollEl.scrollTop = want;
    }
    this.body.parentElement.setAttribute('aria-rowcount', String(this.size + 1));
    const total = this.app.exp ? this.app.exp.nbEvents : 0;
    const fmt = (v) => Number(v).toLocaleString('en-US');
    this.countEl.textContent = this.filter
      ? `${fmt(this.size)} of ${fmt(total)} events${this.status === 'RUNNING' ? ' so far' : ''}`
      : `${fmt(this.size)} events${this.status === 'RUNNING' ? ' so far' : ''}`;
  }

  scrollTo(top) {
    const max = Math.max(0, this.size - this.visible());
    top = Math.max(0, Math.min(max, top));
    if (top === this.top) return;
    this.top = top;
    this.updateScrollbar();
    this.redraw();
    this.schedule();
  }

  // Show line i with some context above it.
  reveal(i) {
    const vis = this.visible();
    if (i >= this.top && i < this.top + vis - 1) { this.redraw(); return; }
    this.scrollTo(i - Math.floor(vis / 3));
  }

  clearBlocks() {
    for (const b of this.blocks.values()) if (b.ctl) b.ctl.abort();
    this.blocks.clear();
    this.redraw();
    this.schedule(0);
  }

  params(extra) {
    const p = { requested_table_column_ids: this.allCols.map((c) => c.id), ...extra };
    if (this.filter && this.typeColId != null) p.table_filter_expressions = { [this.typeColId]: this.filter };
    if (this.search && this.searchCol != null) p.table_search_expressions = { [this.searchCol]: this.search };
    return p;
  }

  schedule(delay = 15) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fetchVisible(), delay);
  }

  fetchVisible() {
    if (!this.allCols) return;
    const first = Math.floor(this.top / BLOCK), last = Math.floor((this.top + this.visible()) / BLOCK);
    for (let b = first; b <= last; b++) if (!this.blocks.has(b)) this.fetchBlock(b);
    // Forget blocks far away.
    if (this.blocks.size > MAX_BLOCKS) {
      for (const k of [...this.blocks.keys()]) {
        if (Math.abs(k - first) > MAX_BLOCKS / 2) {
          const b = this.blocks.get(k);
          if (b.ctl) b.ctl.abort();
          this.blocks.delete(k);
        }
      }
    }
  }

  async fetchBlock(b) {
    if (!this.output || !this.allCols) return;
    const entry = { lines: null, ctl: new AbortController() };
    this.blocks.set(b, entry);
    const t0 = performance.now();
    this.stats.requests++;
    let ans;
    try {
      ans = await this.app.tsp.lines(this.app.exp.UUID, this.output.id,
        this.params({ requested_table_index: b * BLOCK, requested_table_count: BLOCK }), entry.ctl.signal);
    } catch (e) {
      if (this.blocks.get(b) === entry) this.blocks.delete(b);
      if (e.name !== 'AbortError') this.app.toast(`Events: ${e.message}`);
      return;
    }
    this.stats.lastMs = performance.now() - t0;
    if (this.stats.times) this.stats.times.push({ ms: this.stats.lastMs, status: ans.status });
    if (this.blocks.get(b) !== entry) return;
    entry.ctl = null;
    const m = ans.model || { lines: [], size: 0 };
    entry.lines = m.lines || [];
    entry.columnIds = m.columnIds;
    this.status = ans.status;
    if (m.size !== this.size) {
      this.size = m.size;
      this.updateScrollbar();
    } else this.updateScrollbar();
    this.redraw();
    if (ans.status === 'RUNNING') {
      clearTimeout(this.runTimer);
      this.runTimer = setTimeout(() => this.refresh(), 1500);
    }
  }

  // While the analyses run: the table grows (and in an experiment of
  // several traces lines may move), so blocks are asked for again.
  refresh() {
    if (this.status !== 'RUNNING') return;
    this.clearBlocks();
  }

  line(i) {
    const b = this.blocks.get(Math.floor(i / BLOCK));
    if (!b || !b.lines) return null;
    const l = b.lines[i - Math.floor(i / BLOCK) * BLOCK];
    return l && l.index === i ? { l, ids: b.columnIds } : null;
  }

  cell(found, col) {
    const k = found.ids.indexOf(col.id);
    return k >= 0 && found.l.cells[k] ? found.l.cells[k].content : '';
  }

  draw() {
    const vis = this.visible() + 1;
    for (let r = 0; r < this.rowEls.length; r++) {
      const el = this.rowEls[r];
      const i = this.top + r;
      if (r >= vis || i >= this.size) { el.hidden = true; el._index = null; continue; }
      el.hidden = false;
      el.style.transform = `translateY(${r * ROW_H}px)`;
      const found = this.line(i);
      const key = found ? `${i}|${this.search}|${found.l.tags || 0}` : `${i}|…`;
      if (el._key !== key) {
        el._key = key;
        el._index = i;
        el.textContent = '';
        el.setAttribute('aria-rowindex', String(i + 2));
        const n = document.createElement('div');
        n.className = 'n';
        n.setAttribute('role', 'gridcell');
        n.textContent = (i + 1).toLocaleString('en-US');
        el.appendChild(n);
        for (const c of this.cols) {
          const d = document.createElement('div');
          d.setAttribute('role', 'gridcell');
          if (c.name === 'Timestamp' || c.name === 'CPU') d.className = c.name === 'CPU' ? 'n' : 't';
          d.textContent = found ? this.cell(found, c) : '';
          if (found && c.name === 'Contents') d.title = d.textContent;
          el.appendChild(d);
        }
        el.classList.toggle('loading', !found);
        el.classList.toggle('match', !!(found && found.l.tags));
      }
      el.classList.toggle('alt', i % 2 === 1);
      el.classList.toggle('cur', i === this.cur);
      el.setAttribute('aria-selected', i === this.cur ? 'true' : 'false');
    }
  }

  timeOf(i) {
    const f = this.line(i);
    if (!f || !this.timeNsCol) return null;
    const s = this.cell(f, this.timeNsCol);
    return s ? this.app.tb.rel(s) : null;
  }

  // Line i becomes current; the cursor goes to its time.
  async pick(i) {
    if (i < 0 || i >= this.size) return;
    this.cur = i;
    this.reveal(i);
    let t = this.timeOf(i);
    if (t == null) {
      await this.fetchBlock(Math.floor(i / BLOCK));
      t = this.timeOf(i);
    }
    if (t != null) {
      this.store.setCursor(t, 'table');
      this.store.reveal(t);
    }
    this.redraw();
  }

  key(ev) {
    const page = this.visible() - 1;
    let i = this.cur >= 0 ? this.cur : this.top;
    switch (ev.key) {
      case 'ArrowDown': i += 1; break;
      case 'ArrowUp': i -= 1; break;
      case 'PageDown': i += page; break;
      case 'PageUp': i -= page; break;
      case 'Home': i = 0; break;
      case 'End': i = this.size - 1; break;
      default: return;
    }
    ev.preventDefault();
    ev.stopPropagation();
    this.pick(Math.max(0, Math.min(this.size - 1, i)));
  }

  // The cursor moved elsewhere: the first line at or after it.
  async follow() {
    const t = this.store.cursor;
    if (t == null || !this.output) return;
    if (this.followCtl) this.followCtl.abort();
    const ctl = this.followCtl = new AbortController();
    try {
      const ans = await this.app.tsp.lines(this.app.exp.UUID, this.output.id,
        this.params({ requested_times: [this.app.tb.abs(t)], requested_table_count: 1 }), ctl.signal);
      const l = ans.model && ans.model.lines && ans.model.lines[0];
      if (!l || ctl.signal.aborted) return;
      this.cur = l.index;
      this.reveal(l.index);
      this.redraw();
    } catch (e) {
      if (e.name !== 'AbortError') this.app.toast(`Events: ${e.message}`);
    }
  }

  async find(dir) {
    if (!this.searchIn.value) return;
    if (this.search !== this.searchIn.value) {
      this.search = this.searchIn.value;
      this.clearBlocks();
    }
    const start = this.cur >= 0 ? this.cur + dir : 0;
    this.stateEl.textContent = 'searching…';
    try {
      const ans = await this.app.tsp.lines(this.app.exp.UUID, this.output.id,
        this.params({
          requested_table_index: Math.max(0, start), requested_table_count: 1,
          table_search_direction: dir > 0 ? 'NEXT' : 'PREVIOUS',
        }));
      const l = ans.model && ans.model.lines && ans.model.lines[0];
      if (!l) { this.stateEl.textContent = 'no match'; return; }
      this.stateEl.textContent = '';
      this.pick(l.index);
    } catch (e) {
      this.stateEl.textContent = e.detail || e.message;
    }
  }
}
