// axis.js: the time axis over the time graph: ticks labelled with the
// time since the start of the trace, the absolute time (UTC) of the
// range's start and its length above them.  Dragging on it zooms to the
// dragged range; the wheel zooms at the mouse.

import { fit, COLORS, FONT, MONO, frameThrottle } from './canvas.js';
import { bindTime } from './interact.js';
import { ticks, tickDecimals, fmtRel, fmtClock, fmtDate, fmtDurShort, relUnit } from './time.js';

export class Axis {
  constructor(app, canvas) {
    this.app = app;
    this.canvas = canvas;
    this.band = null;
    this.redraw = frameThrottle(() => this.draw());
    bindTime(canvas, app, {
      name: 'axis', dragMode: 'zoom', wheelZooms: true,
      onRangeDrag: (a, b) => { this.band = a == null ? null : [a, b]; this.redraw(); },
    });
    for (const t of ['view', 'cursor', 'selection', 'hover', 'bounds']) app.store.addEventListener(t, this.redraw);
    new ResizeObserver(this.redraw).observe(canvas);
  }

  draw() {
    const { ctx, w, h } = fit(this.canvas);
    const { store, tb } = this.app;
    ctx.fillStyle = '#f6f8fa';
    ctx.fillRect(0, 0, w, h);
    if (!tb) return;
    const v = store.view;
    const k = w / (v.end - v.start);
    const unit = relUnit(store.bounds.end - store.bounds.start);
    const tk = ticks(v.start, v.end, w, 110);
    const dec = tickDecimals(tk.step, unit);
    const minor = tk.step / (String(Math.round(tk.step / Math.pow(10, Math.floor(Math.log10(tk.step))))) === '2' ? 4 : 5);
    // Minor ticks.
    ctx.fillStyle = COLORS.gridStrong;
    if (minor * k >= 6) {
      for (let t = Math.ceil(v.start / minor) * minor; t <= v.end; t += minor) {
        ctx.fillRect(Math.round((t - v.start) * k), h - 4, 1, 4);
      }
    }
    // Major ticks and labels.
    ctx.font = MONO;
    ctx.textBaseline = 'alphabetic';
    for (const t of tk.list) {
      const x = Math.round((t - v.start) * k);
      ctx.fillStyle = COLORS.muted;
      ctx.fillRect(x, h - 9, 1, 9);
      ctx.fillStyle = COLORS.text;
      const s = fmtRel(t, unit, dec);
      ctx.fillText(s, x + 3, h - 5);
    }
    // The range: absolute start (UTC) and length.
    ctx.font = FONT;
    ctx.fillStyle = COLORS.muted;
    ctx.textBaseline = 'top';
    const abs = tb.abs(v.start);
    const left = `${fmtDate(abs)} ${fmtClock(abs)} UTC`;
    ctx.fillText(left, 6, 4);
    const right = `${fmtDurShort(v.end - v.start)} shown`;
    const rw = ctx.measureText(right).width;
    ctx.fillText(right, w - rw - 6, 4);
    if (this.band) {
      const a = (Math.min(...this.band) - v.start) * k, b = (Math.max(...this.band) - v.start) * k;
      ctx.fillStyle = 'rgba(9,105,218,0.22)';
      ctx.fillRect(a, 0, b - a, h);
      ctx.fillStyle = COLORS.text;
      ctx.fillText(fmtDurShort(Math.abs(this.band[1] - this.band[0])), Math.min(a, b) + 4, 4);
    }
    // Cursor and hover marks on the axis.
    if (store.cursor != null) {
      const x = (store.cursor - v.start) * k;
      if (x >= -6 && x <= w + 6) {
        ctx.fillStyle = COLORS.cursor;
        ctx.beginPath();
        ctx.moveTo(x - 5, h - 8); ctx.lineTo(x + 5, h - 8); ctx.lineTo(x, h); ctx.closePath();
        ctx.fill();
      }
    }
    if (store.selection) {
      const a = (store.selection.start - v.start) * k, b = (store.selection.end - v.start) * k;
      ctx.fillStyle = COLORS.selFill;
      ctx.fillRect(a, h - 12, b - a, 12);
    }
    ctx.fillStyle = COLORS.gridStrong;
    ctx.fillRect(0, h - 1, w, 1);
  }
}
