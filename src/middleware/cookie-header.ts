/**
 * The Cookie request header as Connect 2.30 reads it: `cookie` 0.1's `parse`, which
 * cookie-parser 1.3 (`cookieParser`) and express-session 1.11 (`session`) call.
 * Pairs are split at `;`; a piece without `=` is skipped; name and value are trimmed
 * of what `String.prototype.trim` takes (in a header: spaces, tabs, vertical tabs,
 * form feeds and no-break spaces, 0xA0); a value starting with `"` loses its first
 * and last characters, whatever the last one is (`"half` gives `hal`); `%` escapes
 * are decoded (a value that does not decode stays as it is); the first pair of a
 * name is kept.
 *
 * Unlike `parse`, the cookies go into an object that inherits nothing (webapp's fix
 * for cookies reaching Object.prototype): `parse` filled `{}`, so a pair named after
 * one of its members (`constructor`, `toString`...) found that member already there
 * and was dropped; here it is an ordinary cookie. A pair named `__proto__` is dropped,
 * as there.
 */

/** A custom decoder (cookieParser's `decode` option); it may throw, which keeps the raw value. */
export type CookieDecoder = (value: string) => unknown;

const QUOTE = 0x22;

/**
 * The object the cookies go into. A class whose prototype has no prototype rather
 * than `Object.create(null)`: V8 keeps its instances in fast mode (adding a property
 * to a prototype-less object goes through a hash table), and it inherits nothing.
 */
class CookieJar {
  [name: string]: unknown;
}
Object.setPrototypeOf(CookieJar.prototype, null);
delete (CookieJar.prototype as { constructor?: unknown }).constructor;

/** What `String.prototype.trim` takes, among the characters a header can hold (Node reads them as latin1). */
function isTrimmed(code: number): boolean {
  return (
    code === 0x20 ||
    (code >= 0x09 && code <= 0x0d) ||
    code === 0xa0 ||
    (code > 0xff && /\s/.test(String.fromCharCode(code)))
  );
}

export function parseConnectCookies(header: string, decode?: CookieDecoder): Record<string, unknown> {
  const cookies = new CookieJar();
  const length = header.length;
  let start = 0;
  // The first `=` at or after `start`, looked for again only once `start` has passed
  // it: looking from every piece ran on to the same `=` each time, so a run of empty
  // pieces (`;;;;...a=b`) cost the square of its length.
  let equals = header.indexOf('=');
  // Bounded: each round moves `start` past the next `;`.
  while (start <= length) {
    let end = header.indexOf(';', start);
    if (end === -1) end = length;
    if (equals !== -1 && equals < start) equals = header.indexOf('=', start);
    if (equals !== -1 && equals < end) {
      let nameStart = start;
      let nameEnd = equals;
      while (nameStart < nameEnd && isTrimmed(header.charCodeAt(nameStart))) nameStart++;
      while (nameEnd > nameStart && isTrimmed(header.charCodeAt(nameEnd - 1))) nameEnd--;
      const name = header.slice(nameStart, nameEnd);
      // `==` as `parse` compares: a decoder may have answered null for an earlier pair.
      if (name !== '__proto__' && cookies[name] == undefined) {
        let valueStart = equals + 1;
        let valueEnd = end;
        while (valueStart < valueEnd && isTrimmed(header.charCodeAt(valueStart))) valueStart++;
        while (valueEnd > valueStart && isTrimmed(header.charCodeAt(valueEnd - 1))) valueEnd--;
        if (valueStart < valueEnd && header.charCodeAt(valueStart) === QUOTE) {
          valueStart++;
          valueEnd = Math.max(valueStart, valueEnd - 1);
        }
        cookies[name] = decodeValue(header.slice(valueStart, valueEnd), decode);
      }
    }
    start = end + 1;
  }
  return cookies;
}

function decodeValue(value: string, decode: CookieDecoder | undefined): unknown {
  if (decode === undefined) {
    // decodeURIComponent changes nothing without a `%`.
    if (value.indexOf('%') === -1) return value;
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  try {
    return decode(value);
  } catch {
    return value;
  }
}
