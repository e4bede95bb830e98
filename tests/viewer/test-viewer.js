// test-viewer.js: sht's viewer in headless Chromium, on the sht serve
// that tests/server/run.sh started (SHT_SERVER_URL; its cache in
// SHT_CACHE), with the real traces of SHT_SHARED.
//
//   - many-threads: rows, labels and states appear; row names and table
//     cells are text in the page; the tooltip at a pixel names the state
//     the history holds there, with its exact start and end (checked
//     against `sht query` on the server's history file), and the pixel
//     has that state's colour;
//   - zoom and pan (keys, drag, Ctrl+wheel, a range dragged on the axis,
//     go to time) change the range exactly as they should;
//   - the events table follows the cursor, and picking a line moves the
//     cursor to that event's time; the type filter and the search;
//   - Resources, State System, Statistics; an experiment of two traces
//     shows one group of rows per trace;
//   - keyboard access, readable contrast, no console error;
//   - a screenshot of each view, in SHT_SHOTS.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { launch, newPage, idle, tsp, ok, is, diag, done } = require('./lib.js');

const base = process.env.SHT_SERVER_URL.replace(/\/tsp\/api\/?$/, '');
const shared = process.env.SHT_SHARED;
const shots = process.env.SHT_SHOTS || path.join(process.env.SHT_TMP, 'shots');
fs.mkdirSync(shots, { recursive: true });

const STATUS = { 0: 'Unknown', 1: 'Wait blocked', 2: 'Usermode', 3: 'System call', 4: 'Interrupt',
  5: 'Wait for CPU', 6: 'Wait', 7: 'Unknown' };

async function openExperiment(name, paths) {
  const uuids = [];
  for (const p of paths) uuids.push((await tsp(base, 'POST', '/traces', { uri: p, name: path.basename(p) })).UUID);
  const e = await tsp(base, 'POST', '/experiments', { name, traces: uuids });
  for (let i = 0; i < 600; i++) {
    const x = await tsp(base, 'GET', `/experiments/${e.UUID}`);
    if (x.indexingStatus !== 'RUNNING') return x;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name}: the analyses did not finish`);
}

// "17:46:22.814425357" of absolute ns (UTC), the page's format without
// its digit grouping.
function clock(ns) {
  ns = BigInt(ns);
  const s = ns / 1000000000n, f = ns % 1000000000n;
  const d = new Date(Number(s) * 1000);
  const p = (v) => String(v).padStart(2, '0');
  return `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${String(f).padStart(9, '0')}`;
}
const plain = (s) => s.replace(/[\s\u2009]/g, '');

function historyFile(trace, kind) {
  const dir = fs.readdirSync(process.env.SHT_CACHE).find((d) => d.startsWith(`${trace}-`));
  return path.join(process.env.SHT_CACHE, dir, `${kind}.sht`);
}

function query(file, t, attr) {
  const out = execFileSync(process.env.SHT, ['query', file, '--at', String(t), '--attribute', attr, '--json']);
  return JSON.parse(out.toString().replace(/(?<=[:,[])-?\d{16,}(?=[,\]}])/g, '"$&"'))[0];
}

const shot = (page, name) => page.screenshot({ path: path.join(shots, `${name}.png`) });

// Geometry of the active time graph: canvas box, row height, scroll.
const geometry = (page) => page.evaluate(() => {
  const g = window.__sht.app.active;
  const r = g.canvas.getBoundingClientRect();
  return { left: r.left, top: r.top, width: r.width, height: r.height, rowH: g.rowH, scroll: g.scroller.scrollTop };
});
const view = (page) => page.evaluate(() => ({ ...window.__sht.app.store.view }));

async function rowsAndStates(page) {
  await page.waitForFunction(() => document.querySelectorAll('.tg:not([hidden]) .tg-row:not([hidden])').length > 10,
    { timeout: 30000 });
  await idle(page);
  const labels = await page.$$eval('.tg:not([hidden]) .tg-row:not([hidden]) .label', (els) => els.map((e) => e.textContent));
  ok(labels.includes('swapper/0') && labels.includes('systemd'), 'Control Flow shows thread rows by name', labels.slice(0, 12));
  const text = await page.evaluate(() => document.body.innerText);
  ok(text.includes('systemd-journal') && text.includes('sched_switch'),
    'row names and event cells are text in the page');
  const tabs = await page.$$eval('#tg-tabs [role=tab]', (els) => els.map((e) => e.textContent));
  ok(tabs.some((t) => t.startsWith('Control Flow')) && tabs.some((t) => t.startsWith('Resources')) &&
    tabs.some((t) => t.startsWith('State System')), 'the three time graphs are there', tabs);
  const painted = await page.evaluate(() => {
    const c = window.__sht.app.active.canvas;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i + 1] > 150 && d[i] < 60 && d[i + 2] < 60) n++;
    return n;
  });
  ok(painted > 1000, 'states are painted (Usermode green pixels)', painted);
}

// The tooltip and the pixel at (x, the row of thread `name`) against
// sht query of the history's attribute Threads/<attr>.
async function checkPixel(page, file, name, attr, frac) {
  const row = await page.evaluate((name) => {
    const a = window.__sht.app.active;
    const i = a.tree.rows.findIndex((n) => n.labels[0] === name && n.hasData);
    if (i >= 0) a.scrollToRow(i);
    return i;
  }, name);
  if (!ok(row >= 0, `a row for thread ${name}`)) return false;
  const tid = name;
  await idle(page);
  const g2 = await geometry(page);
  const x = Math.round(g2.width * frac);
  const y = Math.round(row * g2.rowH - g2.scroll + g2.rowH / 2);
  const v = await view(page);
  const res = (v.end - v.start) / g2.width;
  const tAbs = await page.evaluate((t) => window.__sht.app.tb.abs(t).toString(), v.start + (x + 0.5) * res);
  const q = query(file, tAbs, `Threads/${attr}`);
  const want = STATUS[q.value] || 'Unknown';
  // The interval must cover this pixel and its neighbours to be seen.
  const tRel = (s) => Number(BigInt(s) - BigInt(tAbs)) / res;
  if (!(tRel(q.start) < -3 && tRel(q.end) > 3)) { diag(`thread ${tid} at ${frac}: interval too short, skipped`); return false; }
  // The pixel first, with no hover line drawn over it.
  const names = await page.$eval('.tg:not([hidden]) .tg-names', (e) => { const r = e.getBoundingClientRect(); return [r.left + 20, r.top + 20]; });
  await page.mouse.move(names[0], names[1]);
  await idle(page);
  const rgb = await page.evaluate((x, y) => {
    const c = window.__sht.app.active.canvas, dpr = window.devicePixelRatio || 1;
    return [...c.getContext('2d').getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data].slice(0, 3);
  }, x + 0.5, y);
  await page.mouse.move(g2.left + x + 0.5, g2.top + y);
  await page.waitForFunction(() => {
    const t = document.getElementById('tooltip');
    return !t.hidden && t.querySelector('[data-state]') && /Start/.test(t.textContent) && /Priority|CPU/.test(t.textContent);
  }, { timeout: 10000 });
  const tip = await page.evaluate(() => {
    const t = document.getElementById('tooltip');
    const cells = [...t.querySelectorAll('tr')].map((r) => [...r.children].map((c) => c.textContent));
    return { state: t.querySelector('[data-state]').dataset.state, cells };
  });
  const cell = (k) => (tip.cells.find((c) => c[0] === k) || [])[1] || '';
  is(tip.state, want, `tooltip on thread ${tid} names the history's state (${want}, value ${q.value})`);
  is(plain(cell('Start')), clock(q.start), `... with the interval's exact start`);
  is(plain(cell('End')), clock(BigInt(q.end) + 1n), `... and end (exclusive)`);
  const fill = await page.evaluate((name) => {
    const v = window.__sht.app.active.styles.values(name);
    return v['background-color'];
  }, want);
  const hex = '#' + rgb.map((c) => c.toString(16).padStart(2, '0')).join('');
  is(hex, fill.toLowerCase(), `... and the pixel has that state's colour`);
  return true;
}

async function zoomAndPan(page) {
  await page.keyboard.press('0');
  await idle(page);
  const g = await geometry(page);
  const b = await page.evaluate(() => ({ ...window.__sht.app.store.bounds }));
  let v = await view(page);
  is(v.start === b.start && v.end === b.end, true, 'reset shows the whole trace');
  // W at the mouse: the span times 0.6, the time under the mouse stays.
  const mx = Math.round(g.width * 0.4);
  await page.mouse.move(g.left + mx, g.top + 30);
  const at = await page.evaluate(() => window.__sht.app.store.hover);
  await page.keyboard.press('w');
  let v2 = await view(page);
  ok(Math.abs((v2.end - v2.start) - (v.end - v.start) * 0.6) < 2, 'W zooms in by 0.6', { v, v2 });
  ok(Math.abs((at - v2.start) / (v2.end - v2.start) - (at - v.start) / (v.end - v.start)) < 1e-9,
    '... keeping the time under the mouse in place');
  // D pans right by 15 % of the span; A back.
  v = v2;
  await page.keyboard.press('d');
  v2 = await view(page);
  ok(Math.abs((v2.start - v.start) - 0.15 * (v.end - v.start)) < 2, 'D pans by 15 % of the range', { v, v2 });
  await page.keyboard.press('a');
  v2 = await view(page);
  ok(Math.abs(v2.start - v.start) < 2, 'A pans back');
  // A drag pans by the dragged distance.
  v = v2;
  await page.mouse.move(g.left + g.width * 0.6, g.top + 40);
  await page.mouse.down();
  await page.mouse.move(g.left + g.width * 0.5, g.top + 40, { steps: 4 });
  await page.mouse.move(g.left + g.width * 0.4, g.top + 40, { steps: 4 });
  await page.mouse.up();
  v2 = await view(page);
  const want = 0.2 * (v.end - v.start);
  ok(Math.abs((v2.start - v.start) - want) < (v.end - v.start) / g.width * 2, 'dragging left by a fifth of the width pans by a fifth of the range', { v, v2 });
  // Ctrl+wheel zooms at the mouse.
  v = v2;
  await page.mouse.move(g.left + g.width * 0.5, g.top + 40);
  await page.keyboard.down('Control');
  await page.mouse.wheel({ deltaY: -200 });
  await page.keyboard.up('Control');
  v2 = await view(page);
  ok((v2.end - v2.start) < (v.end - v.start) * 0.8, 'Ctrl+wheel zooms in', { v, v2 });
  // A range dragged on the axis becomes the view.
  v = v2;
  const ax = await page.evaluate(() => { const r = document.getElementById('axis').getBoundingClientRect(); return { left: r.left, top: r.top, width: r.width, height: r.height }; });
  await page.mouse.move(ax.left + ax.width * 0.25, ax.top + ax.height / 2);
  await page.mouse.down();
  await page.mouse.move(ax.left + ax.width * 0.5, ax.top + ax.height / 2, { steps: 5 });
  await page.mouse.move(ax.left + ax.width * 0.75, ax.top + ax.height / 2, { steps: 5 });
  await page.mouse.up();
  v2 = await view(page);
  const res = (v.end - v.start) / ax.width;
  ok(Math.abs(v2.start - (v.start + 0.25 * (v.end - v.start))) < 2 * res &&
     Math.abs(v2.end - (v.start + 0.75 * (v.end - v.start))) < 2 * res, 'a range dragged on the axis becomes the range shown', { v, v2 });
  // Dragging the overview's box moves the view by as much of the trace.
  v = v2;
  const ov = await page.evaluate(() => { const r = document.getElementById('overview').getBoundingClientRect(); return { left: r.left, top: r.top, width: r.width, height: r.height }; });
  const bnd = await page.evaluate(() => ({ ...window.__sht.app.store.bounds }));
  const bx = ov.left + (((v.start + v.end) / 2 - bnd.start) / (bnd.end - bnd.start)) * ov.width;
  await page.mouse.move(bx, ov.top + ov.height / 2);
  await page.mouse.down();
  await page.mouse.move(bx + 30, ov.top + ov.height / 2, { steps: 3 });
  await page.mouse.move(bx + 60, ov.top + ov.height / 2, { steps: 3 });
  await page.mouse.up();
  v2 = await view(page);
  const moved = (60 / ov.width) * (bnd.end - bnd.start);
  ok(Math.abs((v2.start - v.start) - moved) < (bnd.end - bnd.start) / ov.width && Math.abs((v2.end - v2.start) - (v.end - v.start)) < 2,
    'dragging the overview\'s box moves the range shown by as much of the trace', { v, v2, moved });
  // Go to time: the cursor at exactly +100 ms, the view centred on it.
  await page.click('#goto-input');
  await page.keyboard.type('+100ms');
  await page.keyboard.press('Enter');
  const c = await page.evaluate(() => window.__sht.app.store.cursor);
  is(c, 100e6, 'go to +100ms puts the cursor there');
  v2 = await view(page);
  ok(Math.abs((v2.start + v2.end) / 2 - 100e6) < 2, '... and centres the view on it');
  await idle(page);
}

async function tableFollows(page, expUuid) {
  const out = await page.evaluate(() => window.__sht.app.table.output.id);
  const g = await geometry(page);
  await page.mouse.click(g.left + g.width * 0.37, g.top + 50);
  await idle(page);
  const tAbs = await page.evaluate(() => window.__sht.app.tb.abs(window.__sht.app.store.cursor).toString());
  const lines = await tsp(base, 'POST', `/experiments/${expUuid}/outputs/table/${out}/lines`,
    { requested_times: [BigInt(tAbs)], requested_table_count: 1 });
  const want = lines.model.lines[0].index;
  await page.waitForFunction((n) => {
    const r = document.querySelector('.ev-row.cur');
    return r && r.firstChild.textContent === n;
  }, { timeout: 10000 }, (want + 1).toLocaleString('en-US'));
  ok(true, `a click on the time graph makes the first event at or after it current (line ${want + 1})`);
  // Picking a line three below moves the cursor to its time.
  const pickIdx = want + 3;
  const p = await tsp(base, 'POST', `/experiments/${expUuid}/outputs/table/${out}/lines`,
    { requested_table_index: pickIdx, requested_table_count: 1 });
  const tsCol = (await tsp(base, 'POST', `/experiments/${expUuid}/outputs/table/${out}/columns`, {})).model
    .find((cc) => cc.name === 'Timestamp ns').id;
  const wantT = p.model.lines[0].cells[p.model.columnIds.indexOf(tsCol)].content;
  const handle = await page.evaluateHandle((i) => [...document.querySelectorAll('.ev-row')].find((r) => r._index === i), pickIdx);
  await handle.asElement().click();
  await idle(page);
  const got = await page.evaluate(() => window.__sht.app.tb.abs(window.__sht.app.store.cursor).toString());
  is(got, wantT, 'picking an event moves the cursor to its exact time');
  // Keyboard: the next line.
  await page.keyboard.press('ArrowDown');
  await idle(page);
  const cur = await page.evaluate(() => window.__sht.app.table.cur);
  is(cur, pickIdx + 1, 'ArrowDown in the table makes the next event current');
  // The type filter.
  await page.click('.f-type');
  await page.keyboard.type('^sched_switch$');
  await page.keyboard.press('Enter');
  await idle(page);
  await page.waitForFunction(() => document.querySelector('.ev-row:not([hidden]):not(.loading)'), { timeout: 10000 });
  const types = await page.$$eval('.ev-row:not([hidden])', (rows) => rows.map((r) => r.children[3].textContent));
  ok(types.length > 3 && types.every((t) => t === 'sched_switch'), 'the type filter keeps only sched_switch lines', types.slice(0, 5));
  const count = await page.$eval('.ev-bar .count', (e) => e.textContent);
  ok(/^28,325 of 240,644 events/.test(count), 'it counts 28,325 of 240,644 events', count);
  // Search within: the next line with prev_tid=0.
  await page.click('.f-search');
  await page.keyboard.type('prev_tid=0,');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => { const r = document.querySelector('.ev-row.cur'); return r && /prev_tid=0,/.test(r.textContent); }, { timeout: 10000 });
  ok(true, 'search finds the next line matching');
  await shot(page, 'events');
  await page.click('.f-type', { clickCount: 3 });
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Enter');
  await page.click('.f-search', { clickCount: 3 });
  await page.keyboard.press('Backspace');
  await page.click('#tab-events');
  await idle(page);
}

async function otherViews(page, expUuid) {
  await page.keyboard.press('Escape');
  await page.click('#tg-tabs [role=tab]:nth-child(2)');
  await page.waitForFunction(() => [...document.querySelectorAll('.tg:not([hidden]) .tg-row:not([hidden]) .label')].some((e) => e.textContent === 'CPU 0 Threads'), { timeout: 20000 });
  await idle(page);
  ok(true, 'Resources shows CPU rows');
  await page.evaluate(() => window.__sht.app.store.setView(100e6, 103e6));
  await idle(page);
  await shot(page, 'resources');
  await page.click('#tg-tabs [role=tab]:nth-child(3)');
  await page.waitForFunction(() => [...document.querySelectorAll('.tg:not([hidden]) .tg-row:not([hidden]) .label')].some((e) => e.textContent === 'Threads'), { timeout: 20000 });
  await idle(page);
  ok(true, 'State System shows the attribute tree');
  // The rules file given to the server (--analysis) has its history there.
  const rules = await page.evaluate(() => {
    const g = window.__sht.app.active;
    const m = [...g.tree.nodes.values()].find((n) => n.depth === 1 && /kernel-core/.test(n.labels[0]));
    if (!m) return { modules: [...g.tree.nodes.values()].filter((n) => n.depth === 1).map((n) => n.labels[0]) };
    const attrs = [];
    const walk = (n) => { for (const c of n.children) { if (c.depth === 3) attrs.push(c.labels[0]); walk(c); } };
    walk(m);
    return { label: m.labels[0], attrs };
  });
  ok(rules.label && rules.attrs.includes('Threads'), 'State System shows the rules file\'s history (--analysis kernel-core.rules)', rules);
  await shot(page, 'state-system');
  await page.click('#tab-stats');
  await page.waitForFunction(() => /sched_switch/.test(document.querySelector('.stats').textContent) && /28,325/.test(document.querySelector('.stats').textContent), { timeout: 20000 });
  ok(true, 'Statistics counts events per type (28,325 sched_switch)');
  await page.evaluate(() => window.__sht.app.store.setSelection(100e6, 200e6));
  await page.waitForFunction(() => /Selection/.test(document.querySelector('.stats thead').textContent), { timeout: 20000 });
  // The selection's sched_switch count against the events table: the
  // lines of the filtered table at the range's two ends.
  const [a, b] = await page.evaluate(() => [window.__sht.app.tb.abs(100e6).toString(), window.__sht.app.tb.abs(200e6).toString()]);
  const out = await page.evaluate(() => window.__sht.app.table.output.id);
  const at = async (t) => (await tsp(base, 'POST', `/experiments/${expUuid}/outputs/table/${out}/lines`,
    { requested_times: [BigInt(t)], requested_table_count: 1, table_filter_expressions: { 3: '^sched_switch$' } })).model.lines[0].index;
  const want = (await at(BigInt(b) + 1n)) - (await at(a));
  const got = await page.evaluate(() => {
    const row = [...document.querySelectorAll('.stats tr.pick')].find((r) => r.dataset.type === 'sched_switch');
    return row ? row.children[4].textContent : null;
  });
  is(got, want.toLocaleString('en-US'), 'Statistics counts the selected range (sched_switch, as the filtered events table)');
  await shot(page, 'statistics');
  await page.click('#tab-events');
  await page.click('#tg-tabs [role=tab]:nth-child(1)');
  await idle(page);
}

async function keyboardAndContrast(page) {
  await page.focus('.tg:not([hidden]) .tg-names');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const sel = await page.$$eval('.tg:not([hidden]) .tg-row[aria-selected=true] .label', (els) => els.map((e) => e.textContent));
  is(sel.length, 1, 'arrow keys in the names select a row');
  const focusable = await page.evaluate(() => ['.tg:not([hidden]) .tg-names', '.tg:not([hidden]) .tg-canvas', '.ev-body', '#goto-input']
    .every((s) => document.querySelector(s).tabIndex >= 0));
  ok(focusable, 'names, time graph, events and go-to take the keyboard focus');
  await page.focus('#tg-tabs [role=tab][aria-selected=true]');
  await page.keyboard.press('ArrowRight');
  const tab = await page.evaluate(() => [document.activeElement.textContent, window.__sht.app.active.opts.kind]);
  ok(/^Resources/.test(tab[0]) && tab[1] === 'resources', 'ArrowRight on the tabs shows the next time graph', tab);
  await page.keyboard.press('ArrowLeft');
  await page.focus('.tg:not([hidden]) .tg-names');
  await page.keyboard.press('?');
  const help = await page.evaluate(() => document.getElementById('help').open);
  ok(help, '? opens the keys help');
  await page.keyboard.press('Escape');
  const worst = await page.evaluate(() => {
    const parse = (c) => { const m = c.match(/[\d.]+/g); return m ? m.slice(0, 4).map(Number) : [0, 0, 0, 1]; };
    const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
    const bg = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor);
        if (c.length < 4 || c[3] > 0.5) return c;
      }
      return [255, 255, 255];
    };
    let worst = { ratio: 99 };
    const sels = ['.tg-row .label', '.tg-row .col', '.ev-row > div', '.ev-head > div', '.status', '.muted', '.tabs [role=tab]',
      '.legend .item', '.chart-label', '.names-head span', '.lane-label', '.btn', '.ev-bar label'];
    for (const s of sels) {
      for (const el of [...document.querySelectorAll(s)].slice(0, 30)) {
        if (!el.offsetParent || !el.textContent.trim()) continue;
        const a = lum(parse(getComputedStyle(el).color)), b = lum(bg(el));
        const r = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        if (r < worst.ratio) worst = { ratio: r, sel: s, text: el.textContent.slice(0, 30) };
      }
    }
    return worst;
  });
  ok(worst.ratio >= 4.5, `text contrast at least 4.5:1 (worst ${worst.ratio.toFixed(2)})`, worst);
  const labels = await page.evaluate(() => {
    const { contrast } = window.__sht;
    return window.__sht.app.graphs.flatMap((g) => g.styles.list.map((s) => contrast(s.rgb, s.text === '#ffffff' ? [255, 255, 255] : [0, 0, 0])));
  });
  ok(labels.length > 0 && Math.min(...labels) >= 4.5, 'labels inside states contrast at least 4.5:1 with their fill', labels);
}

// While the analyses run the server says RUNNING with the range read so
// far: the first answers about the experiment are replaced by such ones
// (the data answers stay the server's), then the real one comes.
async function progress(browser, exp) {
  const page = await newPage(browser);
  const fake = JSON.stringify({ ...exp, indexingStatus: 'RUNNING', nbEvents: 50000,
    end: `@@${BigInt(exp.start) + 100000000n}@@`, start: `@@${exp.start}@@`, traces: [] })
    .replace(/"@@(\d+)@@"/g, '$1');
  await page.evaluateOnNewDocument((uuid, body) => {
    let left = 4;
    const real = window.fetch.bind(window);
    window.fetch = (url, init) => {
      if (left > 0 && String(url).endsWith(`/tsp/api/experiments/${uuid}`) && (!init || init.method === 'GET')) {
        left--;
        return Promise.resolve(new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } }));
      }
      return real(url, init);
    };
  }, exp.UUID, fake);
  await page.goto(`${base}/#exp=${exp.UUID}`);
  await page.waitForFunction(() => !document.getElementById('progress').hidden, { timeout: 20000 });
  const p = await page.evaluate(() => ({ text: document.querySelector('#progress .text').textContent,
    end: window.__sht.app.store.bounds.end }));
  ok(/^Analysing: 50,000 events, 100 ms$/.test(p.text), 'while the analyses run, the progress shows the events read', p.text);
  is(p.end, 100e6, '... and the range shown is the range read so far');
  await page.waitForFunction(() => document.getElementById('progress').hidden, { timeout: 20000 });
  await idle(page);
  const end = await page.evaluate(() => window.__sht.app.store.bounds.end);
  is(end, Number(BigInt(exp.end) - BigInt(exp.start)), 'once they are done, the progress goes and the range grows to the whole trace');
  is(page.errors.length, 0, 'progress: no console error', page.errors);
  await page.close();
}

async function twoTraces(browser) {
  const e = await openExperiment('sync', [`${shared}/traces/synctraces/scp_src`, `${shared}/traces/synctraces/scp_dest`]);
  const page = await newPage(browser);
  await page.goto(`${base}/#exp=${e.UUID}`);
  await page.waitForFunction(() => document.querySelectorAll('.tg:not([hidden]) .tg-row:not([hidden])').length > 5, { timeout: 30000 });
  await idle(page);
  const roots = await page.evaluate(() => window.__sht.app.active.tree.roots.map((r) => r.labels[0]).sort());
  is(JSON.stringify(roots), JSON.stringify(['scp_dest', 'scp_src']), 'two traces: one group of rows per trace');
  // Collapse the first group: the second one shows right below it.
  await page.click('.tg:not([hidden]) .tg-row[aria-level="1"] .tw');
  await idle(page);
  const top = await page.$$eval('.tg:not([hidden]) .tg-row[aria-level="1"]:not([hidden]) .label', (els) => els.map((x) => x.textContent).sort());
  is(JSON.stringify(top), JSON.stringify(['scp_dest', 'scp_src']), '... both groups are rows of the page');
  await page.click('.tg:not([hidden]) .tg-row[aria-level="1"] .tw');
  await idle(page);
  await shot(page, 'two-traces');
  is(page.errors.length, 0, 'two traces: no console error', page.errors);
  await page.close();
}

(async () => {
  const browser = await launch();
  let status = 1;
  try {
    const e = await openExperiment('many-threads', [`${shared}/traces/many-threads`]);
    const page = await newPage(browser);
    await page.goto(`${base}/#exp=${e.UUID}`);
    await rowsAndStates(page);
    await shot(page, 'control-flow');
    const file = historyFile('many-threads', 'kernel');
    await page.evaluate(() => window.__sht.app.store.setView(200e6, 200.4e6));
    await idle(page);
    let checked = 0;
    for (const [name, attr, frac] of [['swapper/7', '0_7', 0.7], ['swapper/4', '0_4', 0.85], ['systemd-journal', '202', 0.5],
      ['swapper/1', '0_1', 0.3], ['swapper/5', '0_5', 0.5], ['swapper/3', '0_3', 0.8]]) {
      if (await checkPixel(page, file, name, attr, frac)) checked++;
    }
    ok(checked >= 3, `tooltips and pixels checked against the history at ${checked} places`);
    await shot(page, 'control-flow-zoomed');
    await zoomAndPan(page);
    await tableFollows(page, e.UUID);
    await otherViews(page, e.UUID);
    await keyboardAndContrast(page);
    is(page.errors.length, 0, 'no console error', page.errors);
    await page.close();
    await progress(browser, await tsp(base, 'GET', `/experiments/${e.UUID}`));
    await twoTraces(browser);
    status = done();
  } catch (err) {
    console.log(`not ok - ${err.stack || err}`);
    done();
    status = 1;
  } finally {
    await browser.close();
  }
  process.exit(status);
})();
