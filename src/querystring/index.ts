/**
 * Extended query-string parsing (nested objects and arrays), as Express 4's
 * `query parser: extended` and body-parser's `urlencoded({ extended: true })` do
 * through qs. This is webapp's own parser; it gives qs's results for the options
 * those callers pass (test/querystring proves it by differential fuzzing), and it
 * is the single seam through which webapp parses extended query strings.
 *
 * The parse runs in three steps, as qs's does, because the order is observable:
 * 1. split on `&`, decode, and group values by their whole decoded key (`a[]=1&a[]=2`
 *    combine here, before any nesting);
 * 2. build a one-key object per distinct key and merge it into the result, keys
 *    in property order (integer-like keys first);
 * 3. compact the sparse arrays.
 */
import { compact } from './compact';
import { combine, markOverflow, isOverflow, type Container } from './containers';
import { decodeComponent, unescapeBrackets } from './decode';
import { keySegments, unwrapBrackets } from './key-segments';
import { merge } from './merge';
import { arrayLimitError, normaliseOptions, type ExtendedParseOptions, type ParseSettings } from './options';

export type { ExtendedParseOptions } from './options';

/**
 * Step 1's result. `values` is an ordinary object, so its keys enumerate in the
 * order qs visits them (qs groups into an object too): index-like keys first,
 * ascending, then the rest as inserted. That order decides how values merge
 * (`b=1&0=2` visits `0` first).
 */
interface Grouped {
  /** Every key but `__proto__`, which an object cannot hold as data; it never reaches the result. */
  values: Record<string, unknown>;
  /** The grouped values of `__proto__`, kept only so that limits apply to them as qs applies them. */
  proto: unknown;
  /**
   * Whether `values` is the result as it stands: every key flat (no `[`, nesting
   * allowed), none empty and none the prototype guard drops. Most forms and
   * queries are, and they then skip step 2 and 3 entirely.
   */
  flat: boolean;
}

const hasOwn = Object.prototype.hasOwnProperty;

function parameterLimitError(limit: number): RangeError {
  return new RangeError(`Parameter limit exceeded. Only ${limit} parameter${limit === 1 ? '' : 's'} allowed.`);
}

/** Step 1: decoded values grouped by decoded key, duplicates combined. */
function collectValues(input: string, settings: ParseSettings): Grouped {
  const grouped: Grouped = { values: {}, proto: undefined, flat: settings.depth > 0 };
  const text = unescapeBrackets(input);
  const given = settings.parameterLimit;
  const strict = settings.throwOnLimitExceeded && given !== Infinity;
  // As `split('&', limit)` would cut (the limit through ToUint32), without the
  // array; one part more than allowed is looked for so that exceeding it is seen.
  const maxParts = given === Infinity ? Infinity : (strict ? given + 1 : given) >>> 0;
  if (strict && countParts(text, maxParts) > given) throw parameterLimitError(given);
  let start = 0;
  for (let count = 0; count < maxParts; count++) {
    const amp = text.indexOf('&', start);
    addPart(grouped, amp === -1 ? text.slice(start) : text.slice(start, amp), settings);
    if (amp === -1) break;
    start = amp + 1;
  }
  return grouped;
}

/** The number of `&`-separated parts, counting no further than `max`. */
function countParts(text: string, max: number): number {
  let count = 0;
  for (let amp = -1; count < max; count++) {
    amp = text.indexOf('&', amp + 1);
    if (amp === -1) return count + 1;
  }
  return count;
}

function addPart(grouped: Grouped, part: string, settings: ParseSettings): void {
  // A `]=` ends a bracketed key even when the key itself holds `=` (`a[=]=1`).
  const bracketEquals = part.indexOf(']=');
  const split = bracketEquals === -1 ? part.indexOf('=') : bracketEquals + 1;
  let key: string;
  let value: string;
  if (split === -1) {
    key = decodeComponent(part);
    value = '';
  } else {
    key = decodeComponent(part.slice(0, split));
    if (settings.throwOnLimitExceeded) {
      const existing = valueOf(grouped, key);
      const length = Array.isArray(existing) ? existing.length : 0;
      if (length > 0 && length >= settings.arrayLimit) throw arrayLimitError(settings.arrayLimit);
    }
    value = decodeComponent(part.slice(split + 1));
  }
  if (key === '__proto__') {
    grouped.proto = group(grouped.proto, value, settings);
    return;
  }
  const values = grouped.values;
  if (grouped.flat && (key === '' || key.indexOf('[') !== -1 || isGuarded(key, settings))) grouped.flat = false;
  values[key] = group(hasOwn.call(values, key) ? values[key] : undefined, value, settings);
}

function valueOf(grouped: Grouped, key: string): unknown {
  if (key === '__proto__') return grouped.proto;
  return hasOwn.call(grouped.values, key) ? grouped.values[key] : undefined;
}

/** A flat key the prototype guard drops (`__proto__` is handled apart). */
function isGuarded(key: string, settings: ParseSettings): boolean {
  return !settings.allowPrototypes && hasOwn.call(Object.prototype, key);
}

/** `value` added to what the key already holds (undefined when nothing). */
function group(existing: unknown, value: string, settings: ParseSettings): unknown {
  if (existing === undefined) return value;
  if (Array.isArray(existing) && existing.length + 1 <= settings.arrayLimit) {
    // The arrays here are this step's own (dense, unshared), so appending in place
    // gives what combine's copy would, without copying on every repeat.
    existing.push(value);
    return existing;
  }
  return combine(existing, value, settings);
}

/** Step 2 for one key: the nested containers its segments describe, around `value`. */
function nest(segments: string[], value: unknown, settings: ParseSettings): Container {
  let inner = value;
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i];
    if (segment === '[]') {
      // `a[]=` appends, within arrayLimit (CVE-2025-15284).
      inner = isOverflow(inner) ? inner : combine([], inner, settings);
      continue;
    }
    const name = unwrapBrackets(segment);
    const index = segment !== name ? arrayIndex(name) : -1;
    if (index !== -1 && index < settings.arrayLimit) {
      const array: unknown[] = [];
      array[index] = inner;
      inner = array;
    } else if (index !== -1) {
      if (settings.throwOnLimitExceeded) throw arrayLimitError(settings.arrayLimit);
      inner = markOverflow({ [index]: inner }, index);
    } else {
      const object: Record<string, unknown> = {};
      // `__proto__` is dropped: it would otherwise replace the container's prototype.
      if (name !== '__proto__') object[name] = inner;
      inner = object;
    }
  }
  return inner as Container;
}

/** The index a bracketed name denotes (`"3"`, not `"03"` or `"3a"`), or -1. */
function arrayIndex(name: string): number {
  const n = parseInt(name, 10);
  return n >= 0 && String(n) === name ? n : -1;
}

export function parseExtended(input: string, options: ExtendedParseOptions = {}): Record<string, unknown> {
  const settings = normaliseOptions(options);
  if (input === '' || input === null || input === undefined) return {};

  const grouped = collectValues(input, settings);
  if (grouped.flat) return grouped.values;
  const values = grouped.values;
  const result: Record<string, unknown> = {};
  let nested = false;
  for (const key of Object.keys(values)) {
    const value = values[key];
    if (key === '') continue;
    if (key.indexOf('[') === -1 && settings.depth > 0) {
      // A flat key among nested ones: nesting would build `{ [key]: value }` only
      // to merge it into the result; set it directly. Its value is a string or a
      // dense array of strings, so nothing to compact.
      if (isGuarded(key, settings)) continue;
      result[key] = hasOwn.call(result, key) ? merge(result[key], value, settings) : value;
      continue;
    }
    const segments = keySegments(key, settings);
    if (segments === undefined) continue;
    merge(result, nest(segments, value, settings), settings);
    nested = true;
  }
  return nested ? compact(result) : result;
}
