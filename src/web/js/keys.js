// keys.js: the keyboard (the help dialog lists the same keys).  Keys go
// to the page unless the focus is in a text field or a dialog; the rows
// and the events table take their own arrow keys first.

export function bindKeys(app) {
  document.addEventListener('keydown', (ev) => {
    const t = ev.target;
    if (ev.defaultPrevented || ev.altKey || ev.metaKey || ev.ctrlKey) return;
    if (t && (t.closest('input, select, textarea, dialog[open]') || t.isContentEditable)) {
      if (ev.key === 'Escape' && t.blur) t.blur();
      return;
    }
    if (!app.exp) {
      if (ev.key === '?') document.getElementById('help').showModal();
      return;
    }
    const s = app.store;
    const v = s.view, span = v.end - v.start;
    const step = ev.shiftKey ? 0.5 : 0.15;
    let done = true;
    switch (ev.key) {
      case 'w': case 'W': case '+': case '=': app.zoomKey(0.6); break;
      case 's': case 'S': case '-': case '_': app.zoomKey(1 / 0.6); break;
      case 'a': case 'A': case 'ArrowLeft': s.pan(-span * step); break;
      case 'd': case 'D': case 'ArrowRight': s.pan(span * step); break;
      case '0': case 'Home': s.reset(); break;
      case 'z': case 'Z': app.zoomToSelection(); break;
      case 'g': case 'G': document.getElementById('goto-input').focus(); break;
      case 'Escape': s.setSelection(null); app.tooltip.hide(); break;
      case '?': document.getElementById('help').showModal(); break;
      case '/': app.table.searchIn.focus(); break;
      case ',': case '<': if (app.active) app.active.stepState(-1); break;
      case '.': case '>': if (app.active) app.active.stepState(1); break;
      case '1': case '2': case '3': case '4': {
        const g = app.graphs[Number(ev.key) - 1];
        if (g) app.activate(g);
        break;
      }
      default: done = false;
    }
    if (done) ev.preventDefault();
  });
}
