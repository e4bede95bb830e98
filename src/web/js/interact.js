// interact.js: the mouse on anything drawn against time (time graph,
// axis, charts, overview): one set of gestures everywhere.
//
//   wheel with Ctrl (or on the axis and charts): zoom at the mouse
//   Shift+wheel or a horizontal wheel: pan;  plain wheel: scroll the rows
//   drag: pan (on the axis: zoom to the dragged range)
//   Shift+drag: select a range;  click: cursor;  Shift+click: select from
//   the cursor.

export function bindTime(el, app, opts = {}) {
  const store = app.store;
  // Pixel <-> time on this element (the view, or opts.range for the
  // overview, which always shows the whole trace).
  const range = opts.range || (() => store.view);
  const width = () => el.clientWidth || 1;
  const timeAt = (x) => {
    const r = range();
    return r.start + (x / width()) * (r.end - r.start);
  };
  const xOf = (ev) => ev.clientX - el.getBoundingClientRect().left;

  el.addEventListener('wheel', (ev) => {
    const x = xOf(ev);
    const horizontal = Math.abs(ev.deltaX) > Math.abs(ev.deltaY);
    if (ev.ctrlKey || ev.metaKey || (opts.wheelZooms && !ev.shiftKey && !horizontal)) {
      ev.preventDefault();
      const dy = ev.deltaMode === 1 ? ev.deltaY * 33 : ev.deltaY;
      const factor = Math.pow(1.0025, Math.max(-300, Math.min(300, dy)));
      store.zoom(factor, opts.range ? null : timeAt(x));
    } else if (ev.shiftKey || horizontal) {
      ev.preventDefault();
      const d = horizontal ? ev.deltaX : ev.deltaY;
      const v = store.view;
      store.pan((d / width()) * (v.end - v.start));
    }
    // plain vertical wheel: the rows scroll natively
  }, { passive: false });

  let drag = null;
  el.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0 && ev.button !== 1) return;
    if (opts.focus !== false) el.focus({ preventScroll: true });
    const x = xOf(ev);
    const dm = typeof opts.dragMode === 'function' ? opts.dragMode(x) : opts.dragMode;
    let mode = ev.shiftKey && !opts.range ? 'select' : (dm || 'pan');
    if (ev.button === 1) mode = 'pan';
    drag = { x0: x, t0: timeAt(x), view0: { ...store.view }, moved: false, mode, shift: ev.shiftKey,
      y0: ev.clientY };
    el.setPointerCapture(ev.pointerId);
    ev.preventDefault();
  });
  el.addEventListener('pointermove', (ev) => {
    const x = xOf(ev);
    if (!drag) {
      const t = timeAt(x);
      if (!opts.range) store.setHover(t);
      if (opts.onHover) opts.onHover(ev, x, t);
      return;
    }
    if (!drag.moved && Math.abs(x - drag.x0) < 3 && Math.abs(ev.clientY - drag.y0) < 3) return;
    drag.moved = true;
    if (opts.onHover) opts.onHover(null);
    if (drag.mode === 'pan') {
      el.classList.add('grabbing');
      const v = drag.view0;
      const dt = ((x - drag.x0) / width()) * (v.end - v.start);
      if (opts.range) {                 // the overview: move the box
        const r = range();
        const d = ((x - drag.x0) / width()) * (r.end - r.start);
        store.setView(v.start + d, v.end + d);
      } else {
        store.setView(v.start - dt, v.end - dt);
      }
      if (opts.onDragRows) opts.onDragRows(ev.clientY - drag.y0, drag);
    } else {
      const t = timeAt(x);
      if (drag.mode === 'select') store.setSelection(drag.t0, t);
      else if (opts.onRangeDrag) opts.onRangeDrag(drag.t0, t);
    }
  });
  const end = (ev) => {
    if (!drag) return;
    const d = drag;
    drag = null;
    el.classList.remove('grabbing');
    if (el.hasPointerCapture(ev.pointerId)) el.releasePointerCapture(ev.pointerId);
    const x = xOf(ev);
    const t = timeAt(x);
    if (!d.moved) {
      if (opts.onClick && opts.onClick(ev, x, t) === false) return;
      if (d.shift && store.cursor != null) store.setSelection(store.cursor, t);
      else {
        store.setCursor(t, opts.name || 'graph');
        store.setSelection(null);
      }
    } else if (d.mode === 'zoom') {
      if (opts.onRangeDrag) opts.onRangeDrag(null);
      const a = Math.min(d.t0, t), b = Math.max(d.t0, t);
      if (b - a > 0) store.setView(a, b);
    }
  };
  el.addEventListener('pointerup', end);
  el.addEventListener('pointercancel', end);
  el.addEventListener('pointerleave', () => {
    if (drag) return;
    if (!opts.range) store.setHover(null);
    if (opts.onHover) opts.onHover(null);
  });
  return { timeAt };
}
