// stats.js: the Statistics table: events per type, in the whole trace
// and, once a range is selected, in that range (the server's data tree,
// asked again for the selection with "isFiltered").  Picking a type
// filters the Events table on it.

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

export class StatsView {
  constructor(app, host) {
    this.app = app;
    this.host = host;
    this.host.innerHTML = '<div class="stats" tabindex="0" aria-label="Statistics"></div>';
    this.box = this.host.querySelector('.stats');
    this.box.addEventListener('click', (ev) => {
      const tr = ev.target.closest('tr.pick');
      if (tr) this.app.table.setFilter(`^${tr.dataset.type}$`);
    });
    app.store.addEventListener('selection', () => this.schedule());
  }

  async open() {
    this.output = this.app.outputs.find((o) => o.type === 'DATA_TREE');
    if (!this.output) { this.box.innerHTML = '<div class="hint">No statistics for this experiment.</div>'; return; }
    await this.load();
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.load(), 120);
  }

  async load() {
    if (!this.output) return;
    const { exp, tb, store } = this.app;
    const sel = store.selection;
    const params = sel ? { requested_timerange: { start: tb.abs(sel.start), end: tb.abs(sel.end) }, isFiltered: true } : {};
    if (this.ctl) this.ctl.abort();
    const ctl = this.ctl = new AbortController();
    let ans;
    try {
      ans = await this.app.tsp.tree(exp.UUID, 'data', this.output.id, params, ctl.signal);
    } catch (e) {
      if (e.name !== 'AbortError') this.box.innerHTML = `<div class="hint">${esc(e.message)}</div>`;
      return;
    }
    this.render(ans.model || { headers: [], entries: [] }, ans.status);
    const types = new Set();
    for (const e of (ans.model && ans.model.entries) || []) if (this.depth(e, ans.model.entries) === 2) types.add(e.labels[0]);
    this.app.table.setTypes([...types].sort());
    if (ans.status === 'RUNNING') {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.load(), 1500);
    }
  }

  depth(e, entries) {
    if (!this.byId || this.byIdSrc !== entries) {
      this.byId = new Map(entries.map((x) => [x.id, x]));
      this.byIdSrc = entries;
    }
    let d = 0;
    for (let p = this.byId.get(e.parentId); p; p = this.byId.get(p.parentId)) d++;
    return d;
  }

  render(model, status) {
    const headers = (model.headers || []).map((h) => h.name);
    const entries = model.entries || [];
    const countCol = headers.indexOf('Count');
    // The largest count below each group, for the bars.
    const max = new Map();
    for (const e of entries) {
      const v = countCol >= 0 ? Number(e.labels[countCol]) : 0;
      if (this.depth(e, entries) === 2) max.set(e.parentId, Math.max(max.get(e.parentId) || 0, v));
    }
    let html = '<table><thead><tr>';
    headers.forEach((h, i) => { html += `<th${i ? ' style="text-align:right"' : ''}>${esc(h)}</th>`; });
    html += '<th class="barcell"></th></tr></thead><tbody>';
    for (const e of entries) {
      const d = Math.min(2, this.depth(e, entries));
      const pick = d === 2 ? ` class="lvl${d} pick" data-type="${esc(e.labels[0])}" title="Show only ${esc(e.labels[0])} events"` : ` class="lvl${d}"`;
      html += `<tr${pick}>`;
      e.labels.forEach((l, i) => { html += `<td${i ? ' class="n"' : ''}>${esc(i && /^\d+$/.test(l) ? Number(l).toLocaleString('en-US') : l)}</td>`; });
      const m = max.get(e.parentId);
      const v = countCol >= 0 ? Number(e.labels[countCol]) : 0;
      html += `<td class="barcell">${d === 2 && m ? `<i style="width:${Math.max(1, Math.round((v / m) * 100))}%"></i>` : ''}</td></tr>`;
    }
    html += '</tbody></table>';
    if (!this.app.store.selection) html += '<div class="hint">Select a range (Shift+drag on the time graph) to count its events too.</div>';
    if (status === 'RUNNING') html += '<div class="hint">Counting… (the analysis is running)</div>';
    this.box.innerHTML = html;
  }
}
