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

type ValuesByKey = Map<string, unknown>;

const hasOwn = Object.prototype.hasOwnProperty;

/** Step 1: decoded values grouped by decoded key, duplicates combined. */
function collectValues(input: string, settings: ParseSettings): ValuesByKey {
  // A Map: any decoded key, `__proto__` included, is plain data here, and a Map
  // stays fast where an object with bracketed keys would fall into dictionary mode.
  const values: ValuesByKey = new Map();
  const given = settings.parameterLimit;
  const strict = settings.throwOnLimitExceeded && given !== Infinity;
  // One part more than allowed is split off so that exceeding the limit is seen.
  const parts = unescapeBrackets(input).split('&', given === Infinity ? undefined : strict ? given + 1 : given);
  if (strict && parts.length > given) {
    throw new RangeError(`Parameter limit exceeded. Only ${given} parameter${given === 1 ? '' : 's'} allowed.`);
  }
  for (const part of parts) addPart(values, part, settings);
  return values;
}

function addPart(values: ValuesByKey, part: string, settings: ParseSettings): void {
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
      const existing = values.get(key);
      const length = Array.isArray(existing) ? existing.length : 0;
      if (length > 0 && length >= settings.arrayLimit) throw arrayLimitError(settings.arrayLimit);
    }
    value = decodeComponent(part.slice(split + 1));
  }
  const existing = values.get(key);
  if (existing === undefined) {
    values.set(key, value);
    return;
  }
  if (Array.isArray(existing) && existing.length + 1 <= settings.arrayLimit) {
    // The arrays here are this map's own (dense, unshared), so appending in place
    // gives what combine's copy would, without copying on every repeat.
    existing.push(value);
    return;
  }
  values.set(key, combine(existing, value, settings));
}

const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;
const MAX_ARRAY_INDEX = 4294967294;

/** A key an object would order as an array index: canonical, below 2^32 - 1. */
function isIndexKey(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 0x30 && first <= 0x39 && ARRAY_INDEX.test(key) && Number(key) <= MAX_ARRAY_INDEX;
}

/**
 * The keys in the order qs visits them: its own grouping is an object, whose
 * keys enumerate index-like keys first (ascending), then the rest as inserted.
 * The order decides how values merge (`b=1&0=2` visits `0` first), so keep it.
 */
function keysInPropertyOrder(values: ValuesByKey): string[] {
  const indices: string[] = [];
  const names: string[] = [];
  for (const key of values.keys()) (isIndexKey(key) ? indices : names).push(key);
  if (indices.length === 0) return names;
  indices.sort((a, b) => Number(a) - Number(b));
  return indices.concat(names);
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
  const result: Record<string, unknown> = {};
  if (input === '' || input === null || input === undefined) return result;

  const values = collectValues(input, settings);
  let nested = false;
  for (const key of keysInPropertyOrder(values)) {
    const value = values.get(key);
    if (key === '') continue;
    if (key.indexOf('[') === -1 && settings.depth > 0) {
      // Fast path for a flat key (the common case): nesting would build
      // `{ [key]: value }` only to merge it into the result; set it directly.
      // Its value is a string or a dense array of strings, so nothing to compact.
      if (settings.allowPrototypes ? key === '__proto__' : hasOwn.call(Object.prototype, key)) continue;
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
