// lib.js: what the browser tests and benchmarks of the viewer share:
// headless Chromium (Debian's, /usr/bin/chromium, or $SHT_CHROMIUM)
// driven by puppeteer-core, with a fresh profile and no network beyond
// the server; a page that records every console error.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const puppeteer = require('puppeteer-core');

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-dev-shm-usage', '--hide-scrollbars=false', '--font-render-hinting=none'];

async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'sht-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: process.env.SHT_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [...FLAGS, `--user-data-dir=${profile}`],
    defaultViewport: null,
    protocolTimeout: 120000,
  });
  browser.on('disconnected', () => {
    try { fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }); } catch (e) { /* left in tmp */ }
  });
  return browser;
}

// A page of width x height whose console errors and page errors are kept
// in page.errors.
async function newPage(browser, width = 1600, height = 1000) {
  const page = await browser.newPage();
  await page.setViewport({ width, height, deviceScaleFactor: 1 });
  page.errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') page.errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => page.errors.push(`page: ${e.message}`));
  page.on('requestfailed', (r) => {
    const f = r.failure();
    if (f && f.errorText !== 'net::ERR_ABORTED') page.errors.push(`request: ${r.url()} ${f.errorText}`);
  });
  return page;
}

// Wait until the page has no request in flight and has drawn.
async function idle(page) {
  await page.waitForFunction(() => window.__sht && window.__sht.app, { timeout: 30000 });
  await page.evaluate(() => window.__sht.idle());
}

// TSP through Node's fetch, for the tests' own checks.
async function tsp(base, method, p, params) {
  const res = await fetch(base + '/tsp/api' + p, {
    method, headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: params === undefined ? undefined : JSON.stringify({ parameters: params },
      (k, v) => (typeof v === 'bigint' ? `@@${v}@@` : v)).replace(/"@@(-?\d+)@@"/g, '$1'),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return JSON.parse(text.replace(/(?<=[:,[])-?\d{16,}(?=[,\]}])/g, '"$&"'));
}

module.exports = { launch, newPage, idle, tsp };

// ---- TAP ---------------------------------------------------------------------

let run = 0;
let failed = 0;

function ok(cond, desc, detail) {
  run++;
  console.log(`${cond ? 'ok' : 'not ok'} ${run} - ${desc}`);
  if (!cond) {
    failed++;
    if (detail !== undefined) console.log('# ' + String(typeof detail === 'string' ? detail : JSON.stringify(detail)).slice(0, 2000).replace(/\n/g, '\n# '));
  }
  return cond;
}

function is(got, want, desc) {
  return ok(got === want, desc, `got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

function diag(msg) { console.log('# ' + msg); }

function done() {
  console.log(`1..${run}`);
  return failed ? 1 : 0;
}

module.exports.ok = ok;
module.exports.is = is;
module.exports.diag = diag;
module.exports.done = done;
