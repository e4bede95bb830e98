// wire.js: JSON with exact 64-bit integers.
//
// The protocol writes timestamps (nanoseconds since the epoch, ~1.5e18) as
// plain JSON numbers, beyond the 2^53 a double holds exactly.  parseJSON
// turns every integer literal of 16 digits or more into a string before
// JSON.parse sees it, so no digit is lost; time.js then turns those
// strings into exact offsets from the experiment's start.
//
// The fast path quotes such literals where a number may stand (after ":",
// "," or "[" and before ",", "]" or "}").  Inside a JSON string the same
// text would get a quote inserted right before a digit, which can never
// parse (a string is never followed by a digit), so a response where that
// happened fails and is parsed again by the exact path, which skips over
// strings token by token.

const FAST = /(?<=[:,[])-?\d{16,}(?=[,\]}])/g;
const TOKENS = /"(?:[^"\\]|\\.)*"|(?<![\d.eE+-])-?\d{16,}(?![\d.eE])/g;

export function parseJSON(text) {
  if (text.length === 0) return null;
  try {
    return JSON.parse(text.replace(FAST, '"$&"'));
  } catch (e) {
    return JSON.parse(text.replace(TOKENS,
      (m) => (m.charCodeAt(0) === 34 ? m : '"' + m + '"')));
  }
}

// JSON text of a value whose BigInts are written as bare integers (the
// protocol's timestamps in requests).
export function stringify(value) {
  return JSON.stringify(value, (k, v) =>
    typeof v === 'bigint' ? '\u0001' + v.toString() + '\u0001' : v)
    .replace(/"\\u0001(-?\d+)\\u0001"/g, '$1');
}
