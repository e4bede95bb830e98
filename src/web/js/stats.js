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
      const tr = ev.target.closest('tr');
      if (!tr) return;
      if (tr.dataset.key) this.toggle(tr.dataset.key);
      else if (tr.dataset.type) this.app.table.setFilter(`^${tr.dataset.type}$`);
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
    const entries = (ans.model && ans.model.entries) || [];
    const total = entries.find((e) => e.labels[0] === 'Total');
    for (const e of entries) if (total && e.parentId === total.id && !entries.some((x) => x.parentId === e.id)) types.add(e.labels[0]);
    this.app.table.setTypes([...types].sort());
    if (ans.status === 'RUNNING') {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.load(), 1500);
    }
  }

  // The server's tree holds, per trace, a "Total" subtree and, for a
  // selected range, a "Selection" one of the same shape: shown as one
  // tree with the selection's counts in columns of their own.
  render(model, status) {
    const headers = (model.headers || []).map((h) => h.name);
    const entries = model.entries || [];
    const countCol = headers.indexOf('Count');
    const pctCol = headers.indexOf('%');
    const count = (e) => (e && countCol >= 0 ? Number(e.labels[countCol]) || 0 : 0);
    const kids = new Map();
    const byId = new Map(entries.map((e) => [e.id, e]));
    const roots = [];
    for (const e of entries) {
      if (byId.has(e.parentId)) {
        if (!kids.has(e.parentId)) kids.set(e.parentId, []);
        kids.get(e.parentId).push(e);
      } else roots.push(e);
    }
    // The selection's entries by their path below "Selection".
    const selOf = new Map();
    let hasSel = false;
    const index = (list, pathKey) => {
      for (const e of list) {
        const key = `${pathKey}/${e.labels[0]}`;
        selOf.set(key, e);
        if (kids.has(e.id)) index(kids.get(e.id), key);
      }
    };
    for (const r of roots) {
      const sel = (kids.get(r.id) || []).find((e) => e.labels[0] === 'Selection');
      if (sel) { hasSel = true; selOf.set(`/${r.labels[0]}/Total`, sel); index(kids.get(sel.id) || [], `/${r.labels[0]}/Total`); }
    }
    const auto = model.autoExpandLevel == null ? 2 : model.autoExpandLevel;
    this.expanded = this.expanded || new Map();
    let html = '<table><thead><tr>';
    headers.forEach((h, i) => { html += `<th${i ? ' style="text-align:right"' : ''}>${esc(h)}</th>`; });
    html += '<th class="barcell"></th>';
    if (hasSel) html += '<th style="text-align:right">Selection</th><th style="text-align:right">%</th><th class="barcell"></th>';
    html += '</tr></thead><tbody>';
    const fmt = (l) => (/^\d+$/.test(l) ? Number(l).toLocaleString('en-US') : l);
    const bar = (v, max) => `<i style="width:${Math.max(1, Math.round((v / max) * 100))}%"></i>`;
    const walk = (list, depth, pathKey, selParent) => {
      const leaves = list.filter((e) => !kids.has(e.id));
      const max = Math.max(1, ...leaves.map(count));
      const selMax = Math.max(1, ...leaves.map((e) => count(selOf.get(`${pathKey}/${e.labels[0]}`))));
      for (const e of list) {
        if (depth === 1 && e.labels[0] === 'Selection') continue;
        const key = `${pathKey}/${e.labels[0]}`;
        const group = kids.has(e.id);
        const open = group && (this.expanded.has(key) ? this.expanded.get(key) : depth < auto);
        const cls = [`lvl${Math.min(depth, 2)}`, group ? 'grp' : (depth >= 2 ? 'pick' : '')].join(' ');
        const data = group ? ` data-key="${esc(key)}" aria-expanded="${open}"`
          : depth >= 2 ? ` data-type="${esc(e.labels[0])}" title="Show only ${esc(e.labels[0])} events"` : '';
        html += `<tr class="${cls}"${data}>`;
        e.labels.forEach((l, i) => {
          const tw = i === 0 ? `<span class="tw">${group ? (open ? '\u25BE' : '\u25B8') : ''}</span>` : '';
          html += `<td${i ? ' class="n"' : ` style="padding-left:${6 + depth * 14}px"`}>${tw}${esc(i ? fmt(l) : l)}</td>`;
        });
        const leaf = !group && depth >= 2;
        html += `<td class="barcell">${leaf ? bar(count(e), max) : ''}</td>`;
        if (hasSel) {
          const se = selOf.get(key);
          const sc = se ? se.labels[countCol] : (depth >= 1 ? '0' : '');
          const sp = se && pctCol >= 0 ? se.labels[pctCol] : '';
          html += `<td class="n">${esc(fmt(sc || ''))}</td><td class="n">${esc(sp)}</td>`;
          html += `<td class="barcell sel">${leaf && se ? bar(count(se), selMax) : ''}</td>`;
        }
        html += '</tr>';
        if (open) walk(kids.get(e.id), depth + 1, key, selParent);
      }
    };
    walk(roots, 0, '');
    html += '</tbody></table>';
    if (!this.app.store.selection) html += '<div class="hint">Select a range (Shift+drag on the time graph) to count its events too.</div>';
    if (status === 'RUNNING') html += '<div class="hint">Counting… (the analysis is running)</div>';
    this.box.innerHTML = html;
    this.last = { model, status };
  }

  toggle(key) {
    const tr = this.box.querySelector(`tr[data-key="${CSS.escape(key)}"]`);
    const open = tr && tr.getAttribute('aria-expanded') === 'true';
    this.expanded.set(key, !open);
    if (this.last) this.render(this.last.model, this.last.status);
  }
}
