// rows.js: the rows of a time graph: the protocol's flat list of tree
// entries (id, parentId, labels) as a tree, flattened into the rows on
// screen by what is expanded and by the filter.  Expansion survives a new
// copy of the tree (sent again while the analysis runs) because entry ids
// are stable.

export class RowTree {
  constructor() {
    this.nodes = new Map();        // id -> node
    this.roots = [];
    this.expanded = new Map();     // id -> bool (the user's choice)
    this.autoExpand = -1;
    this.filterText = '';
    this.rows = [];                // the flattened, visible nodes
    this.headers = [];
  }

  // Replace the entries (a tree model); keep expansion choices.
  set(model) {
    this.headers = (model.headers || []).map((h) => h.name);
    this.autoExpand = model.autoExpandLevel == null ? -1 : model.autoExpandLevel;
    const nodes = new Map();
    for (const e of model.entries || []) {
      nodes.set(e.id, {
        id: e.id, parentId: e.parentId, labels: e.labels || [], children: [],
        depth: 0, hasData: e.hasData !== false, metadata: e.metadata || null,
        start: e.start, end: e.end, parent: null, style: e.style || null,
      });
    }
    const roots = [];
    for (const n of nodes.values()) {
      const p = n.parentId != null && n.parentId !== -1 ? nodes.get(n.parentId) : null;
      if (p) { n.parent = p; p.children.push(n); } else roots.push(n);
    }
    const setDepth = (list, d) => {
      for (const n of list) {
        n.depth = d;
        if (n.children.length) setDepth(n.children, d + 1);
      }
    };
    setDepth(roots, 0);
    this.nodes = nodes;
    this.roots = roots;
    this.flatten();
  }

  isExpanded(n) {
    const c = this.expanded.get(n.id);
    if (c !== undefined) return c;
    return this.autoExpand < 0 || n.depth < this.autoExpand;
  }

  toggle(n, open) {
    if (!n.children.length) return;
    this.expanded.set(n.id, open == null ? !this.isExpanded(n) : open);
    this.flatten();
  }

  setAll(open) {
    for (const n of this.nodes.values()) if (n.children.length) this.expanded.set(n.id, open);
    this.flatten();
  }

  setFilter(text) {
    this.filterText = text.trim().toLowerCase();
    this.flatten();
  }

  matches(n) {
    const f = this.filterText;
    for (const l of n.labels) if (String(l).toLowerCase().includes(f)) return true;
    return false;
  }

  flatten() {
    const out = [];
    if (!this.filterText) {
      const walk = (list) => {
        for (const n of list) {
          out.push(n);
          if (n.children.length && this.isExpanded(n)) walk(n.children);
        }
      };
      walk(this.roots);
    } else {
      // Matching rows, with the rows above them for context.
      const keep = new Set();
      for (const n of this.nodes.values()) {
        if (!this.matches(n)) continue;
        for (let p = n; p && !keep.has(p.id); p = p.parent) keep.add(p.id);
      }
      const walk = (list) => {
        for (const n of list) {
          if (!keep.has(n.id)) continue;
          out.push(n);
          walk(n.children);
        }
      };
      walk(this.roots);
    }
    this.rows = out;
    for (let i = 0; i < out.length; i++) out[i].row = i;
  }

  indexOf(id) {
    const n = this.nodes.get(id);
    return n && this.rows[n.row] === n ? n.row : -1;
  }
}
