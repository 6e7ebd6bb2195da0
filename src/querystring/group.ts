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
function isGuarded(key: string, settings: ParseSettings): boolean {
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
  const part = new PartScan();
  for (let count = 0, start = 0; count < maxParts; count++) {
    part.scan(text, start);
    addPart(grouped, text, part, settings);
    if (part.end === text.length) break;
    start = part.end + 1;
  }
  return grouped;
}

const AMPERSAND = 0x26;
const PERCENT = 0x25;
const PLUS_SIGN = 0x2b;
const EQUALS = 0x3d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Parts longer than this are read with `indexOf` instead (see `PartScan`): a builtin
 * search is faster than a JavaScript loop over a long run of characters.
 */
const SCANNED_PART_LENGTH = 128;

/**
 * One `&`-separated part of the input: where it ends, where its key ends, and
 * whether its key and value may hold something to decode or a bracket. Why: the
 * same answers from `indexOf` took seven calls per part (`&`, `]=`, `=`, then `%`
 * and `+` in the key and in the value, `[` in the key), each a builtin call that
 * costs more than a loop over a form field's few characters (3 to 6% of a form
 * request's instructions). A long part (a text area's value) is still searched
 * with `indexOf`. One object, reused for every part of a parse.
 */
class PartScan {
  /** Index of the part's first character. */
  declare start: number;
  /** Index of the `&` that ends the part, or the input's length. */
  declare end: number;
  /** Index of the `=` that ends the key, or -1 when the part is all key. */
  declare split: number;
  /** Whether the key may hold a `%` or a `+` (false: it holds neither). */
  declare keyEncoded: boolean;
  /** Whether the value may hold a `%` or a `+` (false: it holds neither). */
  declare valueEncoded: boolean;
  /** Whether the key holds a `[`, when it holds nothing to decode. */
  declare keyBracket: boolean;

  constructor() {
    this.start = 0;
    this.end = 0;
    this.split = -1;
    this.keyEncoded = false;
    this.valueEncoded = false;
    this.keyBracket = false;
  }

  /** Reads the part that begins at `start`. */
  scan(text: string, start: number): void {
    const stop = Math.min(text.length, start + SCANNED_PART_LENGTH);
    let equals = -1;
    let bracketEquals = -1;
    let firstEncoded = -1;
    let lastEncoded = -1;
    let bracket = -1;
    let i = start;
    for (; i < stop; i++) {
      const code = text.charCodeAt(i);
      // By ranges, so that a letter or a digit takes one to three comparisons.
      if (code > CLOSE_BRACKET) continue; // lower case, beyond ASCII
      if (code > EQUALS) {
        // upper case, `[` and `]`
        if (code === OPEN_BRACKET) {
          if (bracket === -1) bracket = i;
        } else if (code === CLOSE_BRACKET) {
          if (bracketEquals === -1 && text.charCodeAt(i + 1) === EQUALS) bracketEquals = i;
        }
      } else if (code > PLUS_SIGN) {
        // digits, `-`, `.`, `=`
        if (code === EQUALS && equals === -1) equals = i;
      } else if (code === AMPERSAND) {
        break;
      } else if (code === PERCENT || code === PLUS_SIGN) {
        if (firstEncoded === -1) firstEncoded = i;
        lastEncoded = i;
      }
    }
    if (i === stop && stop < text.length && text.charCodeAt(i) !== AMPERSAND) {
      this.searchLong(text, start);
      return;
    }
    const split = splitAt(bracketEquals, equals);
    const keyEnd = split === -1 ? i : split;
    this.start = start;
    this.end = i;
    this.split = split;
    this.keyEncoded = firstEncoded !== -1 && firstEncoded < keyEnd;
    this.valueEncoded = split !== -1 && lastEncoded > split;
    this.keyBracket = bracket !== -1 && bracket < keyEnd;
  }

  /** A long part, by `indexOf`; whether key and value hold anything to decode is left to the decoder. */
  private searchLong(text: string, start: number): void {
    const amp = text.indexOf('&', start);
    const end = amp === -1 ? text.length : amp;
    const part = text.slice(start, end);
    const split = splitAt(part.indexOf(']='), part.indexOf('='));
    this.start = start;
    this.end = end;
    this.split = split === -1 ? -1 : start + split;
    this.keyEncoded = true;
    this.valueEncoded = true;
    this.keyBracket = false;
  }
}

/** Where the key ends: a `]=` ends a bracketed key even when the key holds `=` (`a[=]=1`), as in qs. */
function splitAt(bracketEquals: number, equals: number): number {
  return bracketEquals === -1 ? equals : bracketEquals + 1;
}

const IGNORED = 0;
const FLAT = 1;
const NESTED = 2;

/** Where a key's values are kept (see the module's comment); `bracket`: whether the key holds a `[`. */
function kindOf(key: string, bracket: boolean, settings: ParseSettings): number {
  if (key === '' || key === '__proto__') return IGNORED;
  // Without brackets, nesting (even at depth 0) would only build `{ [key]: value }`.
  if (bracket) return NESTED;
  return isGuarded(key, settings) ? IGNORED : FLAT;
}

/** What the key holds so far, or undefined. */
function valueOf(grouped: Grouped, kind: number, key: string): unknown {
  if (kind === FLAT) return hasOwn.call(grouped.values, key) ? grouped.values[key] : undefined;
  return (kind === NESTED ? grouped.nested : grouped.ignored)?.get(key);
}

/** Groups the part `scan` found in `text` under its decoded key. */
function addPart(grouped: Grouped, text: string, scan: PartScan, settings: ParseSettings): void {
  const split = scan.split;
  const start = scan.start;
  const rawKey = text.slice(start, split === -1 ? scan.end : split);
  // A key that needed decoding is looked at as decoded (what it holds is what nests);
  // one written plainly holds what the scan saw.
  const key = scan.keyEncoded ? decodeComponent(rawKey) : rawKey;
  const kind = kindOf(key, scan.keyEncoded ? key.indexOf('[') !== -1 : scan.keyBracket, settings);
  const existing = valueOf(grouped, kind, key);
  let value = '';
  if (split !== -1) {
    if (settings.throwOnLimitExceeded) {
      const length = Array.isArray(existing) ? existing.length : 0;
      if (length > 0 && length >= settings.arrayLimit) throw arrayLimitError(settings.arrayLimit);
    }
    const rawValue = text.slice(split + 1, scan.end);
    value = scan.valueEncoded ? decodeComponent(rawValue) : rawValue;
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
