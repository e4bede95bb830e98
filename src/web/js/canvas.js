// canvas.js: helpers every time canvas shares: sizing to the element and
// the device's pixels, and the marks drawn over every view (selected
// range, cursor, the time under the mouse).

export const COLORS = {
  cursor: '#0969da',
  selFill: 'rgba(9, 105, 218, 0.13)',
  selEdge: 'rgba(9, 105, 218, 0.75)',
  hover: 'rgba(31, 35, 40, 0.45)',
  grid: '#eaeef2',
  gridStrong: '#d0d7de',
  text: '#1f2328',
  muted: '#57606a',
  gap: '#8c959f',
};

export const FONT = '11px system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif';
export const MONO = '11px "DejaVu Sans Mono", ui-monospace, monospace';

// Size the canvas's bitmap to its box; returns {ctx, w, h, dpr} with the
// context scaled to CSS pixels.
export function fit(canvas, height) {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth;
  const h = height != null ? height : canvas.clientHeight;
  const bw = Math.max(1, Math.round(w * dpr)), bh = Math.max(1, Math.round(h * dpr));
  if (canvas.width !== bw) canvas.width = bw;
  if (canvas.height !== bh) canvas.height = bh;
  const ctx = canvas.getContext('2d', { alpha: false });
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { ctx, w, h, dpr };
}

// Selected range, cursor and hover line over [0, w] x [0, h] for the
// time range r.
export function drawMarks(ctx, w, h, store, r = store.view) {
  const k = w / (r.end - r.start);
  const X = (t) => (t - r.start) * k;
  const s = store.selection;
  if (s) {
    const a = Math.max(-1, X(s.start)), b = Math.min(w + 1, X(s.end));
    if (b > a) {
      ctx.fillStyle = COLORS.selFill;
      ctx.fillRect(a, 0, Math.max(1, b - a), h);
      ctx.fillStyle = COLORS.selEdge;
      if (a >= 0) ctx.fillRect(Math.round(a), 0, 1, h);
      if (b <= w) ctx.fillRect(Math.round(b) - 1, 0, 1, h);
    }
  }
  if (store.hover != null) {
    const x = Math.round(X(store.hover)) + 0.5;
    if (x >= 0 && x <= w) {
      ctx.strokeStyle = COLORS.hover;
      ctx.setLineDash([3, 3]);
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(x, 0);
      ctx.lineTo(x, h);
      ctx.stroke();
      ctx.setLineDash([]);
    }
  }
  if (store.cursor != null) {
    const x = Math.round(X(store.cursor));
    if (x >= -1 && x <= w + 1) {
      ctx.fillStyle = COLORS.cursor;
      ctx.fillRect(x - 1, 0, 2, h);
    }
  }
}

// Call fn at most once per animation frame.
export function frameThrottle(fn) {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; fn(); });
  };
}
