// paint.js: the states of a time graph's rows, painted into an ImageData
// a scan line at a time and put on the canvas at once.  Without a GPU (a
// server's headless browser, a remote desktop) Canvas 2D rasterises
// each fillRect on the page's thread, while filling and copying typed
// arrays is a few passes over memory: a screen of 200 rows x 2 000 px
// with 50 000 states costs a few milliseconds.  Labels are drawn with
// the canvas on top.

import { COLORS, FONT } from './canvas.js';

// First index i with a[i] > t (a sorted ascending).
export function upper(a, t) {
  let lo = 0, hi = a.length;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (a[m] > t) hi = m; else lo = m + 1;
  }
  return lo;
}

// Row backgrounds and the gap mark as 0xAABBGGRR (ImageData's bytes).
const abgr = (hex) => {
  const n = parseInt(hex.slice(1), 16);
  return (0xff000000 | ((n & 0xff) << 16) | (n & 0xff00) | ((n >> 16) & 0xff)) >>> 0;
};
export const BG = { plain: abgr('#ffffff'), alt: abgr('#f7f8fa'), sel: abgr('#d8e8fb'), group: abgr('#eef1f4') };
const GAP = abgr(COLORS.gap);

export class StatePainter {
  constructor() {
    this.img = null;
    this.textW = new Map();
  }

  // Buffers for a canvas of W x H device pixels.
  begin(ctx, W, H) {
    if (!this.img || this.img.width !== W || this.img.height !== H) {
      this.img = ctx.createImageData(W, H);
      this.u32 = new Uint32Array(this.img.data.buffer);
      this.line = new Uint32Array(W);
      this.runs = new Int32Array(4 * (W + 8) * 2);
      this.colors = new Uint32Array((W + 8) * 2);
    }
    this.W = W;
    this.H = H;
  }

  // One row: lines [y0, y1) of the image, its states d (may be null).
  row(d, styles, v, k, dpr, y0, y1, bg, texts, yCss) {
    const cnt = d && d.start.length ? this.rowRuns(d, styles, v, k, this.W, dpr, texts, yCss, y1 - y0) : 0;
    this.scanRow(cnt, bg, y0, y1, this.W, this.H, dpr);
    return cnt;
  }

  // The lines from y down are background; the image goes on the canvas.
  finish(ctx, y) {
    if (y < this.H) this.u32.fill(BG.plain, Math.max(0, y) * this.W);
    ctx.putImageData(this.img, 0, 0);
  }

  // The states of a row on screen as runs (first device pixel, end
  // pixel, colour index, height in device pixels) in this.runs, one run
  // per pixel column at most; between two sampled states that do not
  // touch, a gap mark (states too short to be sampled lie there).
  // Returns their number; labels wide enough go to texts (CSS px).
  rowRuns(d, styles, v, k, W, dpr, texts, yCss, rowPx) {
    const { start, end, style, label } = d;
    const n = start.length;
    const runs = this.runs, colors = this.colors;
    const inner = rowPx - 2 * Math.round(2 * dpr);
    const gapH = Math.max(2, Math.round(2 * dpr));
    let i = Math.max(0, upper(end, v.start) - 1);
    if (i < n && end[i] <= v.start) i++;
    let m = 0, lastPx = -1, prevEnd = null, prevStyle = -1;
    const cap = runs.length - 8;
    for (; i < n && start[i] < v.end && m < cap; i++) {
      const s = style[i];
      if (prevEnd !== null && start[i] > prevEnd && prevStyle >= 0 && s >= 0) {
        let g0 = Math.round((prevEnd - v.start) * k), g1 = Math.round((start[i] - v.start) * k);
        if (g0 <= lastPx) g0 = lastPx + 1;
        if (g0 < 0) g0 = 0;
        if (g1 > W) g1 = W;
        if (g1 > g0) {
          colors[m >> 2] = GAP;
          runs[m++] = g0; runs[m++] = g1; runs[m++] = 0; runs[m++] = gapH;
          lastPx = g1 - 1;
        }
      }
      prevEnd = end[i];
      prevStyle = s;
      if (s < 0) continue;
      const st = styles.get(s);
      if (st.invisible) continue;
      let p0 = Math.round((start[i] - v.start) * k), p1 = Math.round((end[i] - v.start) * k);
      if (p1 <= lastPx) continue;              // this pixel is painted
      if (p0 <= lastPx) p0 = lastPx + 1;
      if (p0 < 0) p0 = 0;
      if (p1 > W) p1 = W;
      if (p1 <= p0) { if (p0 >= W) continue; p1 = p0 + 1; }
      lastPx = p1 - 1;
      colors[m >> 2] = st.u32;
      runs[m++] = p0; runs[m++] = p1; runs[m++] = 0; runs[m++] = Math.max(2, Math.round(inner * st.height));
      if (label && label[i] && p1 - p0 > 26 * dpr && st.height >= 0.6) texts.push(p0 / dpr, (p1 - p0) / dpr, yCss, label[i], st.text);
    }
    return m >> 2;
  }

  // Paint a row into the image: each state is centred on the row with
  // its style's height, so the row's lines fall into a few bands (one per
  // distinct height); a band's scan line is built once (every state at
  // least that tall) and copied to the band's lines outside the next,
  // shorter band.  Lines outside every band are the row's background.
  scanRow(cnt, bg, y0, y1, W, H, dpr) {
    const runs = this.runs, colors = this.colors, line = this.line, u32 = this.u32;
    const pad = Math.round(2 * dpr);
    const inner = (y1 - y0) - 2 * pad;
    const topOf = (hh) => y0 + pad + ((inner - hh) >> 1);
    const hs = [];
    for (let j = 3; j < 4 * cnt; j += 4) if (!hs.includes(runs[j])) hs.push(runs[j]);
    hs.sort((a, b) => b - a);
    // Background lines: above and below the tallest band.
    const tallT = hs.length ? topOf(hs[0]) : y1, tallE = hs.length ? tallT + hs[0] : y1;
    const fillBg = (a, b) => { a = Math.max(0, a); b = Math.min(H, b); if (b > a) u32.fill(bg, a * W, b * W); };
    fillBg(y0, tallT);
    fillBg(tallE, y1);
    if (!hs.length) return;
    line.fill(bg);
    for (let b = 0; b < hs.length; b++) {
      const hh = hs[b];
      for (let j = 0; j < 4 * cnt; j += 4) {
        if (runs[j + 3] !== hh) continue;
        const c = colors[j >> 2], a = runs[j], e = runs[j + 1];
        if (e - a < 8) for (let x = a; x < e; x++) line[x] = c;
        else line.fill(c, a, e);
      }
      const t = topOf(hh), e = t + hh;
      const it = b + 1 < hs.length ? topOf(hs[b + 1]) : e;
      const ie = b + 1 < hs.length ? it + hs[b + 1] : e;
      for (let y = Math.max(0, t); y < Math.min(H, e); y++) {
        if (y >= it && y < ie) continue;
        u32.set(line, y * W);
      }
    }
  }

  drawTexts(ctx, texts, rowH) {
    ctx.font = FONT;
    ctx.textBaseline = 'middle';
    const avg = this.avgCharW || (this.avgCharW = ctx.measureText('abcdefghijklmnopqrstuvwxyz_0123456789').width / 37);
    for (let j = 0; j < texts.length; j += 5) {
      const x = texts[j], wa = texts[j + 1], y = texts[j + 2];
      let s = texts[j + 3];
      let tw = this.textW.get(s);
      if (tw === undefined) {
        tw = ctx.measureText(s).width;
        if (this.textW.size > 20000) this.textW.clear();
        this.textW.set(s, tw);
      }
      const room = wa - 6;
      if (tw > room) {
        const chars = Math.floor(room / avg) - 1;
        if (chars < 2) continue;
        s = s.slice(0, chars) + '\u2026';
      }
      ctx.fillStyle = texts[j + 4];
      ctx.fillText(s, x + 3, y + rowH / 2 + 0.5);
    }
  }
}
