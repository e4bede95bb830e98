// app.js: sht's viewer.  Opens the experiment named in the page's
// address (#exp=UUID), or lists the experiments, and ties the views
// together on one time range and one cursor (store.js).

import { Tsp, whenIdle, busy } from './tsp.js';
import { Store } from './store.js';
import { TimeBase, fmtClock, fmtDate, fmtDur, fmtDurShort, fmtRel, relUnit, parseTime } from './time.js';
import { TimeGraph } from './timegraph.js';
import { Axis } from './axis.js';
import { XYChart } from './xychart.js';
import { EventsTable } from './table.js';
import { StatsView } from './stats.js';
import { Tooltip } from './tooltip.js';
import { showStart, openDialog, expDuration } from './startpage.js';
import { bindKeys } from './keys.js';
import { contrast } from './styles.js';

const $ = (id) => document.getElementById(id);

const GRAPHS = [
  { match: /ThreadStatusDataProvider$/, kind: 'threads', title: 'Control Flow',
    columns: [{ index: 0, name: 'Thread' }, { index: 1, name: 'TID', width: 62 }, { index: 2, name: 'PID', width: 62 }] },
  { match: /ResourcesStatusDataProvider$/, kind: 'resources', title: 'Resources',
    columns: [{ index: 0, name: 'Resource' }] },
  { match: /StateSystemDataProvider$/, kind: 'ssx', title: 'State System',
    columns: [{ index: 0, name: 'Attribute' }, { index: 1, name: 'Quark', width: 62 }] },
];

class App {
  constructor() {
    this.store = new Store();
    this.tsp = new Tsp('');
    this.tooltip = new Tooltip($('tooltip'));
    this.graphs = [];
    this.active = null;
    this.exp = null;
    this.tb = null;
    this.timings = {};
  }

  toast(msg) {
    const el = $('toast');
    el.textContent = msg;
    el.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => { el.hidden = true; }, 6000);
    console.warn(msg);
  }

  async start() {
    this.timings.start = performance.now();
    bindKeys(this);
    $('open-btn').addEventListener('click', () => openDialog(this));
    $('help-btn').addEventListener('click', () => $('help').showModal());
    window.addEventListener('hashchange', () => location.reload());
    const m = /exp=([0-9a-fA-F-]{36})/.exec(location.hash);
    let uuid = m ? m[1] : null;
    const list = this.tsp.experiments().catch((e) => {
      this.toast(`Cannot reach the server: ${e.message}`);
      return [];
    }).then((exps) => { this.fillExpSelect(exps, uuid); return exps; });
    if (!uuid) {
      const exps = await list;
      if (exps.length === 1) uuid = exps[0].UUID;
    }
    if (!uuid) { await showStart(this); return; }
    try {
      await this.openExperiment(uuid);
    } catch (e) {
      this.toast(`Cannot open the experiment: ${e.message}`);
      await showStart(this);
    }
  }

  fillExpSelect(exps, uuid) {
    const sel = $('exp-select');
    sel.textContent = '';
    const none = document.createElement('option');
    none.value = '';
    none.textContent = exps.length ? 'Experiments…' : 'No experiment';
    sel.appendChild(none);
    for (const e of exps) {
      const o = document.createElement('option');
      o.value = e.UUID;
      o.textContent = e.name;
      if (e.UUID === uuid || (!uuid && exps.length === 1)) o.selected = true;
      sel.appendChild(o);
    }
    sel.onchange = () => { location.hash = sel.value ? `#exp=${sel.value}` : '#'; };
  }

  // ---- the experiment ------------------------------------------------------

  async openExperiment(uuid) {
    const outputs = this.tsp.outputs(uuid);
    outputs.catch(() => {});
    const exp = await this.tsp.experiment(uuid);
    this.exp = exp;
    this.tb = new TimeBase(BigInt(exp.start));
    document.title = `${exp.name} · sht`;
    document.body.classList.remove('no-exp');
    $('viewer').hidden = false;
    this.setBoundsFrom(exp);
    this.store.reset();
    this.outputs = await outputs;
    this.timings.outputs = performance.now();

    this.axis = new Axis(this, $('axis'));
    this.buildGraphs();
    const hist = this.outputs.find((o) => o.type === 'TREE_TIME_XY' && /^histogram$/i.test(o.name));
    const cpu = this.outputs.find((o) => o.type === 'TREE_TIME_XY' && /CpuUsage/.test(o.id));
    this.overview = hist ? new XYChart(this, $('overview'), { output: hist, kind: 'overview' }) : null;
    this.hist = hist ? new XYChart(this, $('hist-chart'), { output: hist, kind: 'hist', label: $('hist-label') }) : null;
    this.cpu = cpu ? new XYChart(this, $('cpu-chart'), { output: cpu, kind: 'cpu', label: $('cpu-label') }) : null;
    $('cpu-row').hidden = !cpu;
    $('hist-row').hidden = !hist;
    if (!hist) $('overview').parentElement.hidden = true;

    this.table = new EventsTable(this, $('events-panel'));
    this.stats = new StatsView(this, $('stats-panel'));
    this.bindTabs();
    this.bindSplitter();
    this.bindStatus();
    this.bindGoto();
    this.bindFilter();
    this.updateInfo();

    // The first time graph first, alone, so that its screen comes as
    // soon as it can; then the charts and tables.  The other time graphs
    // open when first shown (a State System tree can hold hundreds of
    // thousands of rows).
    if (exp.indexingStatus === 'RUNNING') this.poll();
    if (this.graphs.length) {
      await this.activate(this.graphs[0]);
      await this.whenFresh(2000).catch(() => {});
    }
    this.timings.firstScreen = performance.now();
    const opens = [];
    opens.push(this.table.open().catch((e) => this.toast(`Events: ${e.message}`)));
    for (const c of [this.overview, this.hist, this.cpu]) if (c) opens.push(c.open());
    opens.push(this.stats.open());
    await Promise.all(opens);
  }

  // Resolves (with the milliseconds waited) once the active time graph
  // shows every row on screen at the current view's resolution.
  whenFresh(timeout = 30000) {
    return new Promise((resolve, reject) => {
      const t0 = performance.now();
      const check = () => {
        const g = this.active;
        if (g && g.isFresh()) resolve(performance.now() - t0);
        else if (performance.now() - t0 > timeout) reject(new Error('not fresh in time'));
        else requestAnimationFrame(check);
      };
      check();
    });
  }

  setBoundsFrom(exp) {
    const end = this.tb.rel(exp.end);
    this.store.setBounds(0, Math.max(end, 1));
  }

  buildGraphs() {
    const host = $('tg-host');
    const tabs = $('tg-tabs');
    for (const o of this.outputs.filter((x) => x.type === 'TIME_GRAPH')) {
      const def = GRAPHS.find((g) => g.match.test(o.id)) ||
        { kind: 'other', title: o.name, columns: [{ index: 0, name: o.name }] };
      const g = new TimeGraph(this, { output: o, kind: def.kind, title: def.title, columns: def.columns,
        legend: def.kind !== 'ssx' });
      host.appendChild(g.root);
      const b = document.createElement('button');
      b.type = 'button';
      b.setAttribute('role', 'tab');
      b.setAttribute('aria-selected', 'false');
      b.textContent = def.title;
      b.title = o.description || o.name;
      b.addEventListener('click', () => this.activate(g));
      tabs.appendChild(b);
      g.tab = b;
      this.graphs.push(g);
    }
    // The kernel views first, in a fixed order.
    const order = ['threads', 'resources', 'ssx', 'other'];
    this.graphs.sort((a, b) => order.indexOf(a.opts.kind) - order.indexOf(b.opts.kind));
    for (const g of this.graphs) tabs.appendChild(g.tab);
    // Arrow keys move between the tabs (ARIA's tabs pattern).
    tabs.addEventListener('keydown', (ev) => {
      const i = this.graphs.indexOf(this.active);
      const j = ev.key === 'ArrowRight' ? i + 1 : ev.key === 'ArrowLeft' ? i - 1 : -2;
      if (j === -2) return;
      ev.preventDefault();
      ev.stopPropagation();
      const g = this.graphs[(j + this.graphs.length) % this.graphs.length];
      this.activate(g);
      g.tab.focus();
    });
  }

  activate(g) {
    if (this.active === g) return g.opening;
    if (!g.opening) g.opening = g.open();
    for (const x of this.graphs) {
      x.tab.setAttribute('aria-selected', String(x === g));
      x.tab.tabIndex = x === g ? 0 : -1;
      if (x !== g) x.setActive(false);
    }
    this.active = g;
    g.setActive(true);
    $('row-filter').value = g.tree.filterText;
    this.tooltip.hide();
    return g.opening;
  }

  showHead(g) {
    const head = $('names-head');
    head.style.gridTemplateColumns = g.columnsTemplate();
    head.innerHTML = g.headHtml();
  }

  showLegend(g) {
    const el = $('legend');
    el.textContent = '';
    if (!g.opts.legend) {
      if (g.opts.kind === 'ssx') el.textContent = 'Colours tell values apart; hover a state for its value.';
      return;
    }
    for (const it of g.styles.legend()) {
      const s = document.createElement('span');
      s.className = 'item';
      const sw = document.createElement('span');
      sw.className = 'sw';
      sw.style.background = it.fill;
      sw.style.height = `${Math.round(4 + 8 * Math.min(1, it.height))}px`;
      s.append(sw, document.createTextNode(it.name));
      el.appendChild(s);
    }
  }

  onTreeLoaded(g) {
    if (!this.timings.firstTree) this.timings.firstTree = performance.now();
    const n = g.tree.nodes.size;
    g.tab.innerHTML = '';
    g.tab.append(document.createTextNode(g.opts.title));
    const badge = document.createElement('span');
    badge.className = 'badge';
    badge.textContent = n.toLocaleString('en-US');
    g.tab.appendChild(badge);
  }

  setNamesWidth(w) {
    document.documentElement.style.setProperty('--names-w', `${Math.round(w)}px`);
    for (const g of this.graphs) { if (g.placeResizer) g.placeResizer(); g.redraw(); }
  }

  // ---- progress while the analyses run -------------------------------------

  async poll() {
    clearTimeout(this.pollTimer);
    let e;
    try { e = await this.tsp.experiment(this.exp.UUID); } catch (x) { this.pollTimer = setTimeout(() => this.poll(), 1000); return; }
    this.exp = e;
    this.setBoundsFrom(e);
    this.updateInfo();
    if (e.indexingStatus === 'RUNNING') this.pollTimer = setTimeout(() => this.poll(), 500);
    else {
      // Done: everything once more, complete.
      for (const g of this.graphs) if (g.opening) g.loadTree();
      for (const c of [this.overview, this.hist, this.cpu]) if (c) c.open();
      this.table.refresh();
      this.table.status = 'COMPLETED';
      this.table.clearBlocks();
      this.stats.load();
    }
  }

  updateInfo() {
    const e = this.exp;
    const running = e.indexingStatus === 'RUNNING';
    const p = $('progress');
    p.hidden = !running;
    const n = Number(e.nbEvents).toLocaleString('en-US');
    const dur = expDuration(e);
    if (running) p.querySelector('.text').textContent = `Analysing: ${n} events, ${dur}`;
    const hosts = e.traces.map((t) => t.name).join(', ');
    $('exp-info').textContent = `${e.traces.length > 1 ? `${e.traces.length} traces (${hosts})` : hosts} · ${n} events · ${dur}`;
  }

  // ---- panels, status, go to -------------------------------------------------

  bindTabs() {
    const tabs = [[$('tab-events'), $('events-panel')], [$('tab-stats'), $('stats-panel')]];
    for (const [t, p] of tabs) {
      t.addEventListener('click', () => {
        for (const [t2, p2] of tabs) {
          t2.setAttribute('aria-selected', String(t2 === t));
          t2.tabIndex = t2 === t ? 0 : -1;
          p2.hidden = p2 !== p;
        }
        if (p === $('events-panel')) this.table.layout();
      });
    }
    $('tab-stats').tabIndex = -1;
    $('bottom-tabs').addEventListener('keydown', (ev) => {
      if (ev.key !== 'ArrowLeft' && ev.key !== 'ArrowRight') return;
      ev.preventDefault();
      ev.stopPropagation();
      const other = document.activeElement === $('tab-events') ? $('tab-stats') : $('tab-events');
      other.click();
      other.focus();
    });
  }

  bindSplitter() {
    const sp = $('splitter'), bottom = $('bottom');
    sp.addEventListener('pointerdown', (ev) => {
      sp.setPointerCapture(ev.pointerId);
      const y0 = ev.clientY, h0 = bottom.getBoundingClientRect().height;
      const move = (e) => { bottom.style.height = `${Math.max(90, Math.min(window.innerHeight * 0.75, h0 - (e.clientY - y0)))}px`; };
      const up = () => { sp.removeEventListener('pointermove', move); sp.removeEventListener('pointerup', up); };
      sp.addEventListener('pointermove', move);
      sp.addEventListener('pointerup', up);
    });
    sp.addEventListener('keydown', (ev) => {
      const h = bottom.getBoundingClientRect().height;
      if (ev.key === 'ArrowUp') bottom.style.height = `${Math.min(window.innerHeight * 0.75, h + 20)}px`;
      else if (ev.key === 'ArrowDown') bottom.style.height = `${Math.max(90, h - 20)}px`;
    });
  }

  fmtPoint(t) {
    const abs = this.tb.abs(t);
    const unit = relUnit(this.store.bounds.end - this.store.bounds.start);
    return `${fmtClock(abs)}  (${fmtRel(t, unit, Math.round(Math.log10(unit[1])))})`;
  }

  bindStatus() {
    const s = this.store;
    const upd = () => {
      $('st-cursor').innerHTML = '';
      const b = (label, text) => {
        const el = document.createElement('b');
        el.textContent = label;
        return [el, document.createTextNode(text)];
      };
      if (s.cursor != null) $('st-cursor').append(...b('Cursor', this.fmtPoint(s.cursor)));
      $('st-sel').innerHTML = '';
      if (s.selection) {
        $('st-sel').append(...b('Selection', `${fmtDur(s.selection.end - s.selection.start)}  [${fmtClock(this.tb.abs(s.selection.start))} \u2013 ${fmtClock(this.tb.abs(s.selection.end))}]`));
      }
      $('st-view').innerHTML = '';
      $('st-view').append(...b('Shown', fmtDurShort(s.view.end - s.view.start)));
      $('zoom-sel').disabled = !s.selection;
    };
    for (const t of ['cursor', 'selection', 'view']) s.addEventListener(t, upd);
    s.addEventListener('hover', () => {
      $('st-hover').textContent = s.hover != null ? this.fmtPoint(s.hover) : '';
    });
    upd();
    $('zoom-in').onclick = () => this.zoomKey(0.5);
    $('zoom-out').onclick = () => this.zoomKey(2);
    $('reset').onclick = () => s.reset();
    $('zoom-sel').onclick = () => this.zoomToSelection();
    // Every view redraws on the shared state.
    for (const t of ['view', 'cursor', 'selection', 'hover']) {
      s.addEventListener(t, () => { if (this.active) this.active.redraw(); });
    }
    s.addEventListener('view', () => { if (this.active) this.active.scheduleFetch(); });
    s.addEventListener('bounds', () => { if (this.active) this.active.scheduleFetch(); });
    s.addEventListener('thread', () => {
      for (const g of this.graphs) g.redraw();
    });
  }

  zoomKey(factor) {
    const s = this.store, v = s.view;
    let at = s.hover;
    if (at == null && s.cursor != null && s.cursor >= v.start && s.cursor <= v.end) at = s.cursor;
    s.zoom(factor, at);
  }

  zoomToSelection() {
    const sel = this.store.selection;
    if (sel) this.store.setView(sel.start, sel.end);
  }

  bindFilter() {
    const input = $('row-filter');
    let timer = null;
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => { if (this.active) this.active.setFilter(input.value); }, 120);
    });
    input.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') { input.value = ''; if (this.active) this.active.setFilter(''); }
    });
  }

  bindGoto() {
    const input = $('goto-input');
    $('goto').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const abs = parseTime(input.value, this.tb, [this.tb.origin]);
      if (abs == null) { input.classList.add('bad'); return; }
      input.classList.remove('bad');
      const t = this.tb.rel(abs);
      const v = this.store.view, span = v.end - v.start;
      this.store.setCursor(t, 'goto');
      this.store.setView(t - span / 2, t + span / 2);
      input.blur();
    });
    input.addEventListener('input', () => input.classList.remove('bad'));
  }
}

// ---- start ---------------------------------------------------------------------

const app = new App();
// For the browser tests and benchmarks (tests/viewer, bench/viewer): the
// page's state, read-only use.
window.__sht = {
  app,
  idle: async () => {
    for (let i = 0; i < 3; i++) {
      await whenIdle();
      await new Promise((r) => setTimeout(r, 80));
      await new Promise((r) => requestAnimationFrame(() => r()));
      if (busy() === 0) return;
    }
  },
  busy,
  contrast,
  whenFresh: (timeout) => app.whenFresh(timeout),
  fmt: { fmtClock, fmtDate, fmtDur },
};
app.start().catch((e) => app.toast(String(e.message || e)));
