// viewer-bench.js: the viewer's speed in a real browser (headless
// Chromium through puppeteer-core), on a running sht serve.  Run by
// bench/run-viewer.sh, which makes the traces and starts the server.
//
//   node bench/viewer-bench.js URL BIG_EXP THREADS_EXP [RUNNING_EXP] [--runs N]
//   (an experiment given as "-" skips its cases)
//
// Cases (docs/VIEWER.md "Speed"):
//   redraw     200 rows x 2 000 px of fetched states drawn again: the
//              draw call's time, and frame intervals while panning by a
//              pixel a frame (data already there)
//   zoom       a new zoom level's detail on screen (all rows) after the
//              range changes, on the big trace's history
//   threads    the Control Flow of 30 000 threads: page load to a full
//              first screen; then scrolling through every row, a screen
//              a frame: frame intervals and long tasks
//   table      the events table scrolled while the analyses still run:
//              lines blocks' latency, frame intervals
// Prints one JSON line per case (medians, p90/p95/max) and a summary.
'use strict';
const path = require('path');
const { launch, newPage, idle } = require(path.join(__dirname, '../tests/viewer/lib.js'));

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 5;
const [URL, BIG, THREADS, RUNNING] = args;

const median = (a) => { const s = [...a].sort((x, y) => x - y); const n = s.length; return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : NaN; };
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN; };
const r1 = (x) => Math.round(x * 10) / 10;
const out = [];
function report(o) { out.push(o); console.log(JSON.stringify(o)); }

// Frame intervals of n animation frames while step(i) runs in each.
const FRAMES = `async (n, stepSrc) => {
  const step = new Function('i', 'app', stepSrc);
  const app = window.__sht.app;
  const gaps = [];
  let last = performance.now();
  for (let i = 0; i < n; i++) {
    await new Promise((r) => requestAnimationFrame(r));
    const now = performance.now();
    gaps.push(now - last);
    last = now;
    if (step(i, app) === false) break;
  }
  return gaps;
}`;

async function longTasks(page) {
  await page.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); })
      .observe({ type: 'longtask', buffered: false });
  });
}

async function redraw(browser) {
  const page = await newPage(browser, 2320, 4600);
  await page.goto(`${URL}/#exp=${BIG}`);
  await page.evaluate(() => { document.getElementById('bottom').style.height = '90px'; });
  await page.waitForFunction(() => window.__sht.app.active && window.__sht.app.active.tree.rows.length > 200, { timeout: 120000 });
  await page.evaluate(() => window.__sht.whenFresh(120000));
  await idle(page);
  const geo = await page.evaluate(() => {
    const g = window.__sht.app.active;
    const [f, l] = g.visibleRange();
    return { rows: l - f + 1, width: g.canvas.clientWidth };
  });
  for (const [label, frac] of [['whole trace', 1], ['1/50 of the trace', 0.02]]) {
    await page.evaluate((frac) => { const s = window.__sht.app.store; const b = s.bounds; const span = (b.end - b.start) * frac; const c = (b.start + b.end) / 2; s.setView(c - span / 2, c + span / 2); }, frac);
    await page.evaluate(() => window.__sht.whenFresh(120000));
    await idle(page);
    const r = await page.evaluate((n) => {
      const g = window.__sht.app.active;
      const t = [];
      let rects = 0;
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        g.draw();
        t.push(performance.now() - t0);
      }
      for (const id of g.tree.rows.slice(...g.visibleRange().map((x, k) => x + k)).map((x) => x.id)) {
        const d = g.data.get(id);
        if (d) rects += d.start.length;
      }
      return { t, states: rects };
    }, RUNS * 10);
    const out = { case: 'redraw', view: label, rows: geo.rows, width: geo.width, states: r.states,
      draw_ms_median: r1(median(r.t)), draw_ms_p90: r1(pct(r.t, 0.9)) };
    // Panning the whole trace would leave the view where it is (it is
    // clamped to the trace): frames are measured on the narrower view.
    if (frac < 1) {
      const gaps = await page.evaluate(`(${FRAMES})(120, "const s = app.store; const v = s.view; s.setView(v.start + (v.end - v.start) / 2000, v.end + (v.end - v.start) / 2000);")`);
      gaps.shift();
      Object.assign(out, { pan_frame_ms_median: r1(median(gaps)), pan_frame_ms_p95: r1(pct(gaps, 0.95)), frames: gaps.length });
    }
    report(out);
  }
  await page.close();
}

async function zoom(browser) {
  const page = await newPage(browser, 1920, 1080);
  await page.goto(`${URL}/#exp=${BIG}`);
  await page.waitForFunction(() => window.__sht.app.active && window.__sht.app.active.tree.rows.length > 10, { timeout: 120000 });
  await page.evaluate(() => window.__sht.whenFresh(120000));
  await idle(page);
  const times = [];
  const rows = [];
  let seed = 7;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  for (let run = 0; run < RUNS; run++) {
    const centre = 0.1 + 0.8 * rnd();
    await page.evaluate(() => window.__sht.app.store.reset());
    await page.evaluate(() => window.__sht.whenFresh(60000));
    for (let level = 1; level <= 6; level++) {
      const ms = await page.evaluate((centre, level) => {
        const s = window.__sht.app.store, b = s.bounds;
        const span = (b.end - b.start) * Math.pow(0.2, level);
        const c = b.start + (b.end - b.start) * centre;
        const t0 = performance.now();
        s.setView(c - span / 2, c + span / 2);
        return window.__sht.whenFresh(30000).then(() => performance.now() - t0);
      }, centre, level);
      times.push(ms);
      rows.push({ level, ms: r1(ms) });
    }
  }
  report({ case: 'zoom', measurements: times.length, ms_median: r1(median(times)), ms_p90: r1(pct(times, 0.9)),
    ms_max: r1(Math.max(...times)), by_level: rows.slice(0, 12) });
  await page.close();
}

async function threads(browser) {
  const loads = [];
  let rowsN = 0;
  for (let run = 0; run < RUNS; run++) {
    const page = await newPage(browser, 1920, 1080);
    await page.goto(`${URL}/#exp=${THREADS}`);
    await page.waitForFunction(() => window.__sht && window.__sht.app.active && window.__sht.app.active.tree.rows.length > 0, { timeout: 60000, polling: 'raf' });
    const ms = await page.evaluate(() => window.__sht.whenFresh(60000).then(() => performance.now()));
    loads.push(ms);
    rowsN = await page.evaluate(() => window.__sht.app.active.tree.rows.length);
    if (run === RUNS - 1) {
      await idle(page);
      await longTasks(page);
      const gaps = await page.evaluate(`(${FRAMES})(100000, "const sc = app.active.scroller; if (sc.scrollTop + sc.clientHeight >= sc.scrollHeight - 1) return false; sc.scrollTop += 700;")`);
      gaps.shift();
      const long = await page.evaluate(() => window.__long);
      const endFresh = await page.evaluate(() => window.__sht.whenFresh(30000));
      report({ case: 'threads-scroll', rows: rowsN, frames: gaps.length, frame_ms_median: r1(median(gaps)),
        frame_ms_p99: r1(pct(gaps, 0.99)), frame_ms_max: r1(Math.max(...gaps)), long_tasks: long.length,
        long_task_ms_max: r1(long.length ? Math.max(...long) : 0), last_screen_fresh_after_ms: r1(endFresh) });
    }
    await page.close();
  }
  report({ case: 'threads-open', rows: rowsN, runs: loads.length, ms_median: r1(median(loads)), ms_max: r1(Math.max(...loads)) });
}

async function table(browser) {
  const page = await newPage(browser, 1920, 1080);
  await page.goto(`${URL}/#exp=${RUNNING}`);
  await page.waitForFunction(() => window.__sht.app.table && window.__sht.app.table.size > 0, { timeout: 60000 });
  const running0 = await page.evaluate(() => window.__sht.app.exp.indexingStatus);
  await page.evaluate(() => { window.__sht.app.table.stats.times = []; });
  await longTasks(page);
  const box = await page.evaluate(() => { const r = document.querySelector('.ev-body').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; });
  await page.mouse.move(box[0], box[1]);
  const frameGaps = [];
  for (let i = 0; i < 60; i++) {
    await page.mouse.wheel({ deltaY: 600 });
    const g = await page.evaluate(`(${FRAMES})(4, "")`);
    frameGaps.push(...g.slice(1));
    if (i % 15 === 14) {      // a jump far away by the scrollbar
      await page.evaluate((f) => { const s = document.querySelector('.ev-scroll'); s.scrollTop = (s.scrollHeight - s.clientHeight) * f; }, (i / 60));
    }
  }
  await idle(page);
  const t = await page.evaluate(() => window.__sht.app.table.stats.times);
  const running = t.filter((x) => x.status === 'RUNNING').map((x) => x.ms);
  const long = await page.evaluate(() => window.__long);
  report({ case: 'table-while-running', status_at_start: running0, blocks: t.length, blocks_while_running: running.length,
    block_ms_median: r1(median(t.map((x) => x.ms))), block_ms_p95: r1(pct(t.map((x) => x.ms), 0.95)),
    running_block_ms_median: r1(median(running)), frame_ms_median: r1(median(frameGaps)), frame_ms_max: r1(Math.max(...frameGaps)),
    long_tasks: long.length });
  await page.close();
}

(async () => {
  const browser = await launch();
  try {
    if (BIG !== '-') {
      await redraw(browser);
      await zoom(browser);
    }
    if (THREADS !== '-') await threads(browser);
    if (RUNNING) await table(browser);
  } finally {
    await browser.close();
  }
  console.log('\nsummary (medians):');
  for (const o of out) console.log('  ' + Object.entries(o).filter(([k]) => k !== 'by_level').map(([k, v]) => `${k}=${v}`).join(' '));
})().catch((e) => { console.error(e); process.exit(1); });
