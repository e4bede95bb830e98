// doc-shots.js: the screenshots of docs/images (README, docs/VIEWER.md),
// taken in headless Chromium on a running sht serve whose --root holds
// the test traces.  Not a test: run it by hand when the page changes.
//
//   NODE_PATH=build/node-viewer/node_modules \
//     node tests/viewer/doc-shots.js http://127.0.0.1:8080 SHARED_DIR docs/images
'use strict';
const path = require('path');
const { launch, newPage, idle, tsp } = require('./lib.js');

const [base, shared, out] = process.argv.slice(2);
const W = 1440, H = 900;

async function experiment(name, paths) {
  const ids = [];
  for (const p of paths) ids.push((await tsp(base, 'POST', '/traces', { uri: p, name: path.basename(p) })).UUID);
  const e = await tsp(base, 'POST', '/experiments', { name, traces: ids });
  for (;;) {
    const x = await tsp(base, 'GET', `/experiments/${e.UUID}`);
    if (x.indexingStatus !== 'RUNNING') return x.UUID;
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function open(browser, uuid) {
  const page = await newPage(browser, W, H);
  await page.goto(`${base}/#exp=${uuid}`);
  await page.waitForFunction(() => window.__sht && window.__sht.app.active && window.__sht.app.active.tree.rows.length > 0, { timeout: 60000 });
  await idle(page);
  return page;
}

async function settle(page) {
  await idle(page);
  await page.evaluate(() => window.__sht.whenFresh(30000));
  await new Promise((r) => setTimeout(r, 700));    // the charts follow once the view rests
  await idle(page);
}

const shot = (page, name) => page.screenshot({ path: path.join(out, `viewer-${name}.png`) });

(async () => {
  const browser = await launch();
  try {
    const mt = await experiment('many-threads', [`${shared}/traces/many-threads`]);
    let page = await open(browser, mt);
    // Control Flow: busy threads, system calls labelled, a selection and
    // a tooltip.
    // The short-lived "fluffy" threads started around 103 ms: a screen
    // of them alive at once.
    await page.evaluate(() => {
      const { app } = window.__sht, g = app.active, s = app.store, tb = app.tb;
      const i = g.tree.rows.findIndex((n) => n.labels[0] === 'fluffy' && tb.rel(n.start) >= 103e6);
      const t = tb.rel(g.tree.rows[i].start);
      g.scroller.scrollTop = Math.max(0, (i - 2) * g.rowH);
      s.setView(t - 0.15e6, t + 1.45e6);
      s.setCursor(t + 0.35e6);
      s.setSelection(t + 0.62e6, t + 0.74e6);
      g.pickRow(g.tree.rows[i + 4], false);
    });
    await settle(page);
    const box = await page.evaluate(() => { const r = window.__sht.app.active.canvas.getBoundingClientRect(); return [r.left, r.top, r.width]; });
    await page.mouse.move(box[0] + box[2] * 0.38, box[1] + 20 * 12 + 10);
    await new Promise((r) => setTimeout(r, 900));
    await idle(page);
    await shot(page, 'control-flow');
    await page.mouse.move(5, 5);
    // Resources.
    await page.keyboard.press('2');
    await page.evaluate(() => window.__sht.app.store.setView(100e6, 102e6));
    await settle(page);
    await shot(page, 'resources');
    // State System: a CPU's attributes open.
    await page.keyboard.press('3');
    await idle(page);
    await page.evaluate(() => {
      const g = window.__sht.app.active;
      const cpus = [...g.tree.nodes.values()].find((n) => n.labels[0] === 'CPUs' && n.depth === 3);
      g.toggleNode(cpus, true);
      for (const c of cpus.children.slice(0, 2)) g.toggleNode(c, true);
      window.__sht.app.store.setView(100e6, 100.6e6);
    });
    await settle(page);
    await shot(page, 'state-system');
    // Events: bigger table, the cursor on a sched_switch.
    await page.keyboard.press('1');
    await page.evaluate(() => {
      document.getElementById('bottom').style.height = '52%';
      window.__sht.app.active.scroller.scrollTop = 0;
      const s = window.__sht.app.store;
      s.setView(200e6, 200.4e6);
      s.setCursor(200.1e6);
    });
    await settle(page);
    await shot(page, 'events');
    await page.evaluate(() => {
      document.getElementById('tab-stats').click();
      window.__sht.app.store.setSelection(100e6, 200e6);
    });
    await settle(page);
    await shot(page, 'statistics');
    await page.close();
    // Two traces.
    const sync = await experiment('scp', [`${shared}/traces/synctraces/scp_src`, `${shared}/traces/synctraces/scp_dest`]);
    page = await open(browser, sync);
    await page.evaluate(() => {
      const { app } = window.__sht, g = app.active;
      for (const r of g.tree.roots) for (const c of r.children) if (c.children.length) g.toggleNode(c, false);
    });
    await settle(page);
    await shot(page, 'two-traces');
    if (page.errors.length) console.log(page.errors);
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
