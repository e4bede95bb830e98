// time.js: times in the page.
//
// The server speaks absolute nanoseconds (BigInt-sized).  Inside the page
// every time is a Number: nanoseconds since the experiment's start (the
// origin).  Offsets below 2^53 ns (104 days) are exact, so nothing is
// rounded; absolute times are rebuilt with BigInt only to be shown or
// sent.

const NS = 1000000000n;

export class TimeBase {
  constructor(origin) {
    this.origin = BigInt(origin);
    this.hi = Number(this.origin / NS);
    this.lo = Number(this.origin % NS);
    this.small = this.origin <= BigInt(Number.MAX_SAFE_INTEGER);
    this.originNum = Number(this.origin);
  }

  // A time as received (number, decimal string or BigInt) -> offset.
  rel(v) {
    if (typeof v === 'string') {
      const n = v.length;
      if (n > 9 && n < 20 && v.charCodeAt(0) !== 45 && this.hi >= 0)
        return (+v.slice(0, n - 9) - this.hi) * 1e9 + (+v.slice(n - 9) - this.lo);
      return Number(BigInt(v) - this.origin);
    }
    if (typeof v === 'bigint') return Number(v - this.origin);
    if (this.small) return v - this.originNum;
    return Number(BigInt(v) - this.origin);
  }

  // An offset -> absolute BigInt nanoseconds (rounded to the nanosecond).
  abs(x) {
    return this.origin + BigInt(Math.round(x));
  }
}

const pad = (n, w = 2) => String(n).padStart(w, '0');

// Digits grouped by three after the point: "796 188 405".
function group3(s) {
  return s.replace(/(\d{3})(?=\d)/g, '$1\u2009');
}

// "2016-03-04", "17:46:22" and the nine digits of the fraction of an
// absolute time (BigInt ns), in UTC.
export function splitClock(t) {
  let s = t / NS, ns = t % NS;
  if (ns < 0n) { ns += NS; s -= 1n; }
  const d = new Date(Number(s) * 1000);
  return {
    date: `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`,
    clock: `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`,
    frac: String(ns).padStart(9, '0'),
  };
}

// "17:46:22.796 188 405" (digits: how many of the fraction to keep).
export function fmtClock(t, digits = 9) {
  const c = splitClock(t);
  return digits > 0 ? `${c.clock}.${group3(c.frac.slice(0, digits))}` : c.clock;
}

export function fmtDate(t) {
  return splitClock(t).date;
}

// A duration in ns, exact, in the largest unit it reaches, trailing zero
// groups dropped: 3060421 -> "3.060 421 ms", 3000000 -> "3 ms".
export function fmtDur(ns) {
  const neg = ns < 0;
  let v = Math.round(Math.abs(ns));
  const units = [['s', 1e9, 9], ['ms', 1e6, 6], ['µs', 1e3, 3]];
  let out = `${v} ns`;
  for (const [u, f, digits] of units) {
    if (v >= f) {
      const whole = Math.floor(v / f);
      let frac = String(v - whole * f).padStart(digits, '0');
      frac = frac.replace(/(000)+$/, '');
      out = frac ? `${whole}.${group3(frac)} ${u}` : `${whole} ${u}`;
      break;
    }
  }
  return neg ? '-' + out : out;
}

// A duration with about four significant digits: "3.06 ms".
export function fmtDurShort(ns) {
  const a = Math.abs(ns);
  const units = [['s', 1e9], ['ms', 1e6], ['µs', 1e3], ['ns', 1]];
  for (const [u, f] of units) {
    if (a >= f || f === 1) {
      const v = ns / f;
      const s = Math.abs(v) >= 100 ? v.toFixed(1) : Math.abs(v) >= 10 ? v.toFixed(2) : v.toFixed(3);
      return `${s.replace(/\.?0+$/, '')} ${u}`;
    }
  }
  return `${ns} ns`;
}

// The unit relative times are shown in, from the trace's length.
export function relUnit(span) {
  if (span >= 10e9) return ['s', 1e9];
  if (span >= 10e6) return ['ms', 1e6];
  if (span >= 10e3) return ['µs', 1e3];
  return ['ns', 1];
}

// A relative time in a fixed unit with a number of decimals, grouped.
export function fmtRel(x, unit, decimals) {
  const [u, f] = unit;
  let s = (x / f).toFixed(Math.max(0, Math.min(decimals, 12)));
  if (decimals > 0) {
    const [a, b] = s.split('.');
    s = `${a}.${group3(b)}`;
  }
  return `${s} ${u}`;
}

// Tick marks for [v0, v1] over width px: a step of 1, 2 or 5 x 10^k ns
// leaving at least minPx between labels.
export function ticks(v0, v1, width, minPx = 96) {
  const span = v1 - v0;
  if (!(span > 0) || width <= 0) return { step: 1, list: [], decimals: 0 };
  const raw = span * minPx / width;
  let p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
  let step = p;
  for (const m of [1, 2, 5, 10]) {
    if (p * m >= raw) { step = p * m; break; }
  }
  step = Math.max(step, 1);
  const list = [];
  const first = Math.ceil(v0 / step) * step;
  for (let t = first; t <= v1 && list.length < 400; t += step) list.push(t);
  return { step, list };
}

// Decimals needed to tell ticks of this step apart in this unit.
export function tickDecimals(step, unit) {
  const r = step / unit[1];
  if (r >= 1) return 0;
  return Math.min(9, Math.ceil(-Math.log10(r) - 1e-9));
}

// A time typed by the user -> absolute BigInt ns, or null.
//   1457113582994566313          nanoseconds since the epoch
//   +120ms, +1.5 s, 120 ms       relative to the start (+ optional)
//   17:46:22.9945, 17:46:22.994 566 313   time of day (UTC) near the trace
export function parseTime(text, tb, boundsAbs) {
  const s = text.trim().replace(/[\s\u2009_]/g, '');
  if (!s) return null;
  if (/^\d{10,}$/.test(s)) return BigInt(s);
  let m = /^\+?(-?\d+(?:\.\d+)?)(s|ms|us|µs|ns)?$/.exec(s);
  if (m && (s.startsWith('+') || m[2])) {
    const f = { s: 1e9, ms: 1e6, us: 1e3, 'µs': 1e3, ns: 1 }[m[2] || 's'];
    return tb.abs(parseDecimal(m[1], f));
  }
  m = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/.exec(s);
  if (m) {
    const day = BigInt(m[1]) * 3600n + BigInt(m[2]) * 60n + BigInt(m[3] || 0);
    const frac = BigInt((m[4] || '').padEnd(9, '0'));
    const tod = day * NS + frac;
    const dayNs = 86400n * NS;
    const ref = boundsAbs[0];
    let base = ref - ((ref % dayNs) + dayNs) % dayNs;   // midnight before the start
    let t = base + tod;
    if (t < ref - dayNs / 2n) t += dayNs;
    return t;
  }
  return null;
}

// "12.5" in units of f ns, exactly where the digits allow.
function parseDecimal(str, f) {
  const neg = str.startsWith('-');
  const [a, b = ''] = str.replace('-', '').split('.');
  const digits = Math.round(Math.log10(f));
  const frac = (b + '0'.repeat(digits)).slice(0, digits);
  const v = Number(a) * f + (digits ? Number(frac) : 0);
  return neg ? -v : v;
}
