/**
 * Step 1 of an extended parse: split on `&`, decode, and group the values by
 * their whole decoded key (`a[]=1&a[]=2` combine here, before any nesting).
 *
 * qs groups into one object and then visits its keys in property order: index-like
 * keys first, ascending, then the rest as first inserted. That order decides how
 * values merge (`b=1&0=2` visits `0` first) and the result's key order, so it is
 * kept here, but split by what step 2 does with a key:
 * - flat keys (no `[`) go into `values`, an ordinary object that enumerates in
 *   that same order, so that it can be the result itself (most forms and queries
 *   are flat, or put their nested keys after their flat ones);
 * - keys to nest go into `nested`, in first-insertion order;
 * - keys that never reach the result (`''`, `__proto__`, and flat keys the
 *   prototype guard drops) go into `ignored`: grouped all the same, because
 *   limits apply to them as qs applies them.
 */
import { combine } from './containers';
import { decodeComponent, unescapeBrackets } from './decode';
import { arrayLimitError, type ParseSettings } from './options';

export interface Grouped {
  values: Record<string, unknown>;
  nested: Map<string, unknown> | undefined;
  ignored: Map<string, unknown> | undefined;
  /**
   * The keys, flat or nested, first inserted from the first nested key on, in
   * order, except index-like flat keys (those enumerate first anyway). Step 2
   * visits `values`' keys up to the ones listed here, then these.
   */
  tail: string[];
  /** How many flat keys `tail` holds: when none, `values` comes entirely before every nested key. */
  flatInTail: number;
  /** How many keys `values` holds. */
  flatCount: number;
}

const hasOwn = Object.prototype.hasOwnProperty;

const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;
const MAX_ARRAY_INDEX = 4294967294;

/** A key an object orders as an array index: canonical, below 2^32 - 1. */
function isIndexKey(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 0x30 && first <= 0x39 && ARRAY_INDEX.test(key) && Number(key) <= MAX_ARRAY_INDEX;
}

/** A flat key the prototype guard drops. */
export function isGuarded(key: string, settings: ParseSettings): boolean {
  return !settings.allowPrototypes && hasOwn.call(Object.prototype, key);
}

function parameterLimitError(limit: number): RangeError {
  return new RangeError(`Parameter limit exceeded. Only ${limit} parameter${limit === 1 ? '' : 's'} allowed.`);
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

export function collectValues(input: string, settings: ParseSettings): Grouped {
  const grouped: Grouped = {
    values: {},
    nested: undefined,
    ignored: undefined,
    tail: [],
    flatInTail: 0,
    flatCount: 0,
  };
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

const IGNORED = 0;
const FLAT = 1;
const NESTED = 2;

/** Where a key's values are kept: see the module's comment. */
function kindOf(key: string, settings: ParseSettings): number {
  if (key === '' || key === '__proto__') return IGNORED;
  // Without brackets, nesting (even at depth 0) would only build `{ [key]: value }`.
  if (key.indexOf('[') !== -1) return NESTED;
  return isGuarded(key, settings) ? IGNORED : FLAT;
}

/** What the key holds so far, or undefined. */
function valueOf(grouped: Grouped, kind: number, key: string): unknown {
  if (kind === FLAT) return hasOwn.call(grouped.values, key) ? grouped.values[key] : undefined;
  return (kind === NESTED ? grouped.nested : grouped.ignored)?.get(key);
}

function addPart(grouped: Grouped, part: string, settings: ParseSettings): void {
  // A `]=` ends a bracketed key even when the key itself holds `=` (`a[=]=1`).
  const bracketEquals = part.indexOf(']=');
  const split = bracketEquals === -1 ? part.indexOf('=') : bracketEquals + 1;
  const key = decodeComponent(split === -1 ? part : part.slice(0, split));
  const kind = kindOf(key, settings);
  const existing = valueOf(grouped, kind, key);
  let value = '';
  if (split !== -1) {
    if (settings.throwOnLimitExceeded) {
      const length = Array.isArray(existing) ? existing.length : 0;
      if (length > 0 && length >= settings.arrayLimit) throw arrayLimitError(settings.arrayLimit);
    }
    value = decodeComponent(part.slice(split + 1));
  }
  const grouping = existing === undefined ? value : group(existing, value, settings);

  if (kind === FLAT) {
    if (existing === undefined) {
      grouped.flatCount++;
      if (grouped.nested !== undefined && !isIndexKey(key)) {
        grouped.tail.push(key);
        grouped.flatInTail++;
      }
    }
    grouped.values[key] = grouping;
  } else if (kind === NESTED) {
    if (grouped.nested === undefined) grouped.nested = new Map();
    if (existing === undefined) grouped.tail.push(key);
    grouped.nested.set(key, grouping);
  } else {
    if (grouped.ignored === undefined) grouped.ignored = new Map();
    grouped.ignored.set(key, grouping);
  }
}

/** `value` added to what the key already holds. */
function group(existing: unknown, value: string, settings: ParseSettings): unknown {
  if (Array.isArray(existing) && existing.length + 1 <= settings.arrayLimit) {
    // The arrays here are this step's own (dense, unshared), so appending in place
    // gives what combine's copy would, without copying on every repeat.
    existing.push(value);
    return existing;
  }
  return combine(existing, value, settings);
}
