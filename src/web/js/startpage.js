// startpage.js: the page without an experiment (the experiments this
// server has open), and the Open dialog: the directories the server may
// read (sht's /sht/api extension), a trace or a folder of traces picked
// there opened as one experiment through the protocol.

import { fmtDurShort } from './time.js';
import { TimeBase } from './time.js';

const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

export function expDuration(e) {
  try {
    const tb = new TimeBase(BigInt(e.start));
    return fmtDurShort(tb.rel(e.end));
  } catch (x) {
    return '';
  }
}

export async function showStart(app) {
  const el = document.getElementById('start');
  el.hidden = false;
  let exps = [];
  try { exps = await app.tsp.experiments(); } catch (e) { app.toast(e.message); }
  let html = '<h1>Experiments</h1><p>The experiments this server has open. Open one, or open traces from the server\'s directories.</p>';
  if (!exps.length) {
    html += '<div class="empty">None yet.</div>';
  } else {
    html += '<table><thead><tr><th>Name</th><th>Traces</th><th style="text-align:right">Events</th><th style="text-align:right">Duration</th><th>Status</th></tr></thead><tbody>';
    for (const e of exps) {
      html += `<tr><td><a href="#exp=${esc(e.UUID)}">${esc(e.name)}</a></td><td>${esc(e.traces.map((t) => t.name).join(', '))}</td>`
        + `<td class="n">${Number(e.nbEvents).toLocaleString('en-US')}</td><td class="n">${esc(expDuration(e))}</td>`
        + `<td>${e.indexingStatus === 'RUNNING' ? 'analysing' : 'ready'}</td></tr>`;
    }
    html += '</tbody></table>';
  }
  html += '<p style="margin-top:16px"><button type="button" class="btn primary" id="start-open">Open traces…</button></p>';
  el.innerHTML = html;
  el.querySelector('#start-open').addEventListener('click', () => openDialog(app));
}

// ---- the Open dialog -------------------------------------------------------

export async function openDialog(app) {
  const dlg = document.getElementById('open-dlg');
  const box = document.getElementById('browser');
  const go = document.getElementById('open-go');
  const selEl = document.getElementById('open-sel');
  let picked = null;
  box.textContent = '';
  go.disabled = true;
  selEl.textContent = '';

  const item = (entry, depth) => {
    const row = document.createElement('div');
    row.className = 'fi';
    row.setAttribute('role', 'treeitem');
    row.tabIndex = 0;
    row.style.paddingLeft = `${8 + depth * 16}px`;
    const tw = document.createElement('span');
    tw.className = 'tw';
    tw.textContent = entry.kind === 'dir' ? '\u25B8' : '';
    const name = document.createElement('span');
    name.textContent = entry.name;
    row.append(tw, name);
    if (entry.kind !== 'dir') {
      const k = document.createElement('span');
      k.className = 'kind';
      k.textContent = entry.kind.toUpperCase();
      row.appendChild(k);
    }
    let open = false, kids = null;
    const select = () => {
      for (const x of box.querySelectorAll('.fi.sel')) x.classList.remove('sel');
      row.classList.add('sel');
      picked = entry;
      go.disabled = false;
      selEl.textContent = entry.kind === 'dir' ? `${entry.path} (every trace under it)` : entry.path;
    };
    const toggle = async () => {
      if (entry.kind !== 'dir') return;
      open = !open;
      tw.textContent = open ? '\u25BE' : '\u25B8';
      if (!open) { if (kids) kids.hidden = true; return; }
      if (!kids) {
        kids = document.createElement('div');
        kids.setAttribute('role', 'group');
        row.after(kids);
        try {
          const ans = await app.tsp.files(entry.path);
          for (const e of ans.entries) kids.appendChild(item(e, depth + 1));
          if (!ans.entries.length) kids.innerHTML = `<div class="fi muted" style="padding-left:${24 + depth * 16}px">(no traces)</div>`;
        } catch (e) { kids.textContent = e.message; }
      }
      kids.hidden = false;
    };
    row.addEventListener('click', () => { select(); toggle(); });
    row.addEventListener('dblclick', () => { select(); go.click(); });
    row.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') { select(); go.click(); }
      else if (ev.key === ' ' || ev.key === 'ArrowRight' || ev.key === 'ArrowLeft') { ev.preventDefault(); select(); toggle(); }
    });
    const frag = document.createDocumentFragment();
    frag.appendChild(row);
    return frag;
  };

  try {
    const { roots } = await app.tsp.roots();
    for (const r of roots) box.appendChild(item({ name: r, path: r, kind: 'dir' }, 0));
  } catch (e) {
    box.textContent = e.message;
  }
  document.getElementById('open-cancel').onclick = () => dlg.close();
  go.onclick = async () => {
    if (!picked) return;
    go.disabled = true;
    selEl.textContent = 'opening…';
    try {
      const uuid = await openPath(app, picked);
      dlg.close();
      location.hash = `#exp=${uuid}`;
    } catch (e) {
      selEl.textContent = e.message;
      go.disabled = false;
    }
  };
  dlg.showModal();
}

// Every trace under a folder (depth and count bounded).
async function collect(app, entry, rel, out, depth) {
  if (entry.kind !== 'dir') { out.push({ path: entry.path, name: rel || entry.name }); return; }
  if (depth > 5 || out.length >= 64) return;
  const ans = await app.tsp.files(entry.path);
  if (ans.kind === 'ctf') { out.push({ path: entry.path, name: rel || entry.name }); return; }
  for (const e of ans.entries) await collect(app, e, rel ? `${rel}/${e.name}` : e.name, out, depth + 1);
}

async function openTrace(app, t) {
  for (let k = 0; k < 50; k++) {
    const name = k ? `${t.name}(${k})` : t.name;
    try {
      return await app.tsp.openTrace(t.path, name);
    } catch (e) {
      if (e.status !== 409) throw e;
    }
  }
  throw new Error(`${t.name}: too many traces of that name`);
}

async function openPath(app, entry) {
  const traces = [];
  await collect(app, entry, '', traces, 0);
  if (!traces.length) throw new Error('no trace there');
  const uuids = [];
  for (const t of traces) uuids.push((await openTrace(app, t)).UUID);
  for (let k = 0; k < 50; k++) {
    const name = k ? `${entry.name}(${k})` : entry.name;
    try {
      return (await app.tsp.openExperiment(name, uuids)).UUID;
    } catch (e) {
      if (e.status !== 409) throw e;
    }
  }
  throw new Error('too many experiments of that name');
}
