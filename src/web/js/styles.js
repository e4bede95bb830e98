// styles.js: from the protocol's styles to what the canvas paints.
//
// An output's style map (POST .../style) names each state kind with its
// colour, height and group (Trace Compass's colours for the kernel
// views); a state points at one by "parentKey" and may override values
// (Resources paints each thread's own colour that way).  StyleTable gives
// each distinct (key, values) an index with its fill, height and text
// colour, and the legend of the map.

const FALLBACK = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2',
  '#edc948', '#b07aa1', '#ff9da7', '#9c755f'];

function hash(s) {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return Math.abs(h);
}

function parseColor(c) {
  if (typeof c !== 'string') return null;
  let m = /^#([0-9a-f]{6})$/i.exec(c.trim());
  if (m) return [parseInt(m[1].slice(0, 2), 16), parseInt(m[1].slice(2, 4), 16), parseInt(m[1].slice(4, 6), 16)];
  m = /^#([0-9a-f]{3})$/i.exec(c.trim());
  if (m) return [...m[1]].map((h) => parseInt(h + h, 16));
  return null;
}

// Relative luminance (WCAG).
export function luminance([r, g, b]) {
  const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
}

export function contrast(a, b) {
  const la = luminance(a), lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

// White or black, whichever reads better on rgb: one of them always
// reaches 4.5:1 (they cross at a luminance of 0.18, 4.58:1 each).
function textOn(rgb) {
  return contrast(rgb, [255, 255, 255]) >= contrast(rgb, [0, 0, 0]) ? '#ffffff' : '#000000';
}

const toHex = ([r, g, b]) => '#' + [r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('');

export class StyleTable {
  constructor(map) {
    this.map = map || {};
    this.list = [];
    this.byKey = new Map();
  }

  // Values of the keys of parentKey ("a,b": later keys win), then own.
  values(parentKey, own) {
    const out = {};
    const seen = new Set();
    const walk = (key) => {
      if (!key || seen.has(key)) return;
      seen.add(key);
      const s = this.map[key];
      if (!s) return;
      if (s.parentKey) for (const k of String(s.parentKey).split(',')) walk(k.trim());
      Object.assign(out, s.values || {});
    };
    for (const k of String(parentKey || '').split(',')) walk(k.trim());
    if (own) Object.assign(out, own);
    return out;
  }

  // The index of a state style {parentKey, values} (values may be null).
  index(style) {
    const key = style.values ? `${style.parentKey}\u0000${JSON.stringify(style.values)}` : style.parentKey;
    let i = this.byKey.get(key);
    if (i !== undefined) return i;
    const v = this.values(style.parentKey, style.values);
    let rgb = parseColor(v['background-color']);
    const known = !!rgb;
    if (!rgb) rgb = parseColor(FALLBACK[hash(style.parentKey || '') % FALLBACK.length]);
    const opacity = v.opacity == null ? 1 : +v.opacity;
    const height = v.height == null ? 1 : Math.max(0.1, Math.min(1, +v.height));
    i = this.list.length;
    // Partly transparent styles are blended with white once.
    const blend = rgb.map((c) => Math.round(c * Math.min(1, opacity) + 255 * (1 - Math.min(1, opacity))));
    this.list.push({
      u32: ((0xff000000 | (blend[2] << 16) | (blend[1] << 8) | blend[0]) >>> 0),
      key: style.parentKey, name: v['style-name'] || style.parentKey,
      fill: toHex(rgb), rgb, text: textOn(rgb), height, opacity, known,
      invisible: opacity <= 0.01,
    });
    this.byKey.set(key, i);
    return i;
  }

  get(i) { return this.list[i]; }

  // The legend: the map's styles that paint states, in the map's order
  // (arrow styles, transparent ones and bare colours left out).
  legend() {
    const out = [];
    for (const [key, s] of Object.entries(this.map)) {
      const v = this.values(key);
      const group = v['style-group'] || '';
      if (group === 'Arrows' || !parseColor(v['background-color'])) continue;
      if (v.opacity != null && +v.opacity <= 0.01) continue;
      if (key === 'thread' || key === 'frequency') continue;
      out.push({ key, name: v['style-name'] || key, fill: v['background-color'],
        height: v.height == null ? 1 : +v.height, group });
      void s;
    }
    return out;
  }
}
