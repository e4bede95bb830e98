// tooltip.js: the floating box under the mouse.  Over a time graph it
// names the state at the time under the mouse: at once from the states
// already fetched when one of them holds that time, else from the server
// (the exact interval, one small states request); then the server's
// details (tooltip endpoint) are added.

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

export class Tooltip {
  constructor(el) {
    this.el = el;
    this.seq = 0;
    this.timer = null;
    this.ctl = null;
  }

  hide() {
    this.seq++;
    clearTimeout(this.timer);
    if (this.ctl) { this.ctl.abort(); this.ctl = null; }
    this.el.hidden = true;
    this.key = null;
  }

  place(x, y) {
    const el = this.el;
    const r = el.getBoundingClientRect();
    let left = x + 14, top = y + 16;
    if (left + r.width > window.innerWidth - 4) left = Math.max(4, x - r.width - 14);
    if (top + r.height > window.innerHeight - 4) top = Math.max(4, y - r.height - 12);
    el.style.left = `${left}px`;
    el.style.top = `${top}px`;
  }

  render(html, x, y) {
    this.el.innerHTML = html;
    this.el.hidden = false;
    this.place(x, y);
  }

  table(rows) {
    return `<table>${rows.map(([k, v]) => `<tr><td>${esc(k)}</td><td class="v">${esc(v)}</td></tr>`).join('')}</table>`;
  }

  // The state of row n of time graph g at time t.
  showState(g, n, t, x, y) {
    const seq = ++this.seq;
    const head = g.describeRow(n);
    const local = g.stateAt(n, t);
    const key = local ? `${n.id}:${local.start}` : `${n.id}:?:${Math.round(t)}`;
    const paint = (iv, details, pending) => {
      if (seq !== this.seq) return;
      let html = `<div class="tt-title">${esc(head.title)}${head.sub ? ` <span class="sub">${esc(head.sub)}</span>` : ''}</div>`;
      const rows = [];
      if (iv) {
        const st = iv.style >= 0 ? g.styles.get(iv.style) : null;
        const name = st ? st.name : 'No state';
        html += `<div class="tt-title" data-state="${esc(name)}">${st ? `<span class="sw" style="background:${st.fill}"></span>` : ''}${esc(name)}${iv.label && iv.label !== name ? ` <span class="sub">${esc(iv.label)}</span>` : ''}</div>`;
        rows.push(...g.fmtInterval(iv));
      } else if (pending) {
        html += '<div class="sub">…</div>';
      } else {
        html += '<div class="tt-title" data-state="No state">No state</div>';
      }
      for (const [k, v] of Object.entries(details || {})) rows.push([k, v]);
      html += this.table(rows);
      this.render(html, x, y);
    };
    if (this.key === key && !this.el.hidden) { this.place(x, y); return; }
    this.key = key;
    paint(local, null, !local);
    clearTimeout(this.timer);
    if (this.ctl) this.ctl.abort();
    const ctl = this.ctl = new AbortController();
    this.timer = setTimeout(async () => {
      try {
        const iv = local || await g.intervalAt(n, t);
        if (seq !== this.seq) return;
        paint(iv, null, false);
        const details = await g.details(n, iv ? iv.start : t, ctl.signal);
        paint(iv, details, false);
      } catch (e) {
        if (e.name !== 'AbortError' && seq === this.seq) paint(local, { Error: e.message }, false);
      }
    }, local ? 120 : 60);
  }

  // A chart's values at a time: rows [[name, value, colour]].
  showValues(title, when, rows, x, y) {
    this.seq++;
    this.key = null;
    let html = `<div class="tt-title">${esc(title)} <span class="sub">${esc(when)}</span></div><table>`;
    for (const [k, v, c] of rows) {
      html += `<tr><td>${c ? `<span class="sw" style="display:inline-block;width:9px;height:9px;border-radius:2px;background:${c};margin-right:4px"></span>` : ''}${esc(k)}</td><td class="v">${esc(v)}</td></tr>`;
    }
    this.render(html + '</table>', x, y);
  }
}
