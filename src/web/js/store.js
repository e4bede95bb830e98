// store.js: what every view shows at once: the time range on screen, the
// cursor, the selected range, the time under the mouse, and the selected
// thread.  Views listen to its events ('view', 'cursor', 'selection',
// 'hover', 'thread', 'bounds') and redraw.

const MIN_SPAN = 20;     // ns: the deepest zoom

export class Store extends EventTarget {
  constructor() {
    super();
    this.bounds = { start: 0, end: 1 };
    this.view = { start: 0, end: 1 };
    this.cursor = null;
    this.selection = null;   // {start, end}, start < end
    this.hover = null;
    this.thread = null;      // {tid, name} of the selected thread
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  // The trace's range grows while it is being read; a view showing all
  // of it keeps showing all of it.
  setBounds(start, end) {
    const whole = this.view.start <= this.bounds.start && this.view.end >= this.bounds.end;
    this.bounds = { start, end: Math.max(end, start + 1) };
    this.emit('bounds');
    if (whole) this.setView(start, this.bounds.end);
    else this.setView(this.view.start, this.view.end);
  }

  setView(start, end) {
    const b = this.bounds;
    let span = Math.max(end - start, MIN_SPAN);
    const full = b.end - b.start;
    if (span >= full) { start = b.start; span = full; }
    if (start < b.start) start = b.start;
    if (start + span > b.end) start = b.end - span;
    end = start + span;
    if (start === this.view.start && end === this.view.end) return;
    this.view = { start, end };
    this.emit('view');
  }

  // Zoom by factor (< 1: in) keeping time `at` where it is on screen.
  zoom(factor, at) {
    const v = this.view;
    if (at == null || at < v.start || at > v.end) at = (v.start + v.end) / 2;
    const s = at - (at - v.start) * factor;
    const e = at + (v.end - at) * factor;
    this.setView(s, e);
  }

  pan(dt) {
    this.setView(this.view.start + dt, this.view.end + dt);
  }

  reset() {
    this.setView(this.bounds.start, this.bounds.end);
  }

  // Keep t on screen, moving the view as little as needed (centred if
  // it was far).
  reveal(t) {
    const v = this.view, span = v.end - v.start;
    if (t >= v.start && t <= v.end) return;
    this.setView(t - span / 2, t + span / 2);
  }

  setCursor(t, source) {
    if (t != null) t = Math.round(t);
    this.cursor = t;
    this.emit('cursor', { source });
  }

  setSelection(a, b) {
    if (a == null || b == null || a === b) this.selection = null;
    else this.selection = { start: Math.round(Math.min(a, b)), end: Math.round(Math.max(a, b)) };
    this.emit('selection');
  }

  setHover(t) {
    if (t === this.hover) return;
    this.hover = t;
    this.emit('hover');
  }

  setThread(th) {
    const same = (th && this.thread && th.tid === this.thread.tid) || (!th && !this.thread);
    this.thread = th;
    if (!same) this.emit('thread');
  }
}
