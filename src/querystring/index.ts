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
import { combine, markOverflow, isOverflow, setEntry, type Container } from './containers';
import { collectValues, type Grouped } from './group';
import { keySegments, unwrapBrackets } from './key-segments';
import { merge } from './merge';
import { arrayLimitError, normaliseOptions, type ExtendedParseOptions, type ParseSettings } from './options';

export type { ExtendedParseOptions } from './options';
export { assertImplementedOptions } from './options';

const hasOwn = Object.prototype.hasOwnProperty;

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
      setEntry(array, index, inner);
      inner = array;
    } else if (index !== -1) {
      if (settings.throwOnLimitExceeded) throw arrayLimitError(settings.arrayLimit);
      const overflow: Record<number, unknown> = {};
      setEntry(overflow, index, inner);
      inner = markOverflow(overflow, index);
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

/**
 * Step 2 for a key to nest: its containers merged into the result; `roots`, when
 * given, gets the result's keys it reached. False when the key was dropped.
 */
function mergeNested(
  result: Record<string, unknown>,
  key: string,
  value: unknown,
  settings: ParseSettings,
  roots: string[] | undefined,
): boolean {
  const segments = keySegments(key, settings);
  if (segments === undefined) return false;
  const nested = nest(segments, value, settings);
  if (roots !== undefined) for (const root of Object.keys(nested)) roots.push(root);
  merge(result, nested, settings);
  return true;
}

/**
 * Step 3: compact the sparse arrays under the result's keys that nesting reached
 * (the others hold strings, or dense arrays of strings, with nothing to compact).
 */
function compactRoots(result: Record<string, unknown>, roots: string[]): Record<string, unknown> {
  if (roots.length === 0) return result;
  const reached: Record<string, unknown> = {};
  for (const root of roots) reached[root] = result[root];
  compact(reached);
  for (const root of Object.keys(reached)) result[root] = reached[root];
  return result;
}

/** Step 2 and 3, in the order qs visits the keys (see group.ts). */
function build(grouped: Grouped, settings: ParseSettings): Record<string, unknown> {
  const { values, nested, tail } = grouped;
  if (nested === undefined) return values;
  if (grouped.flatCount === 0) {
    // Only keys to nest (as most nesting query strings): the whole result is what
    // nesting reached, so compact it all rather than track what it reached.
    let merged = false;
    for (const key of tail) merged = mergeNested(values, key, nested.get(key), settings, undefined) || merged;
    return merged ? compact(values) : values;
  }
  const roots: string[] = [];
  if (grouped.flatInTail === 0) {
    // Every flat key comes before every key to nest: visiting them would copy
    // `values` key by key into an empty result, so `values` is that result.
    for (const key of tail) mergeNested(values, key, nested.get(key), settings, roots);
    return compactRoots(values, roots);
  }
  const result: Record<string, unknown> = {};
  const flatKeys = Object.keys(values);
  const before = flatKeys.length - grouped.flatInTail;
  for (let i = 0; i < before; i++) result[flatKeys[i]] = values[flatKeys[i]];
  for (const key of tail) {
    if (nested.has(key)) {
      mergeNested(result, key, nested.get(key), settings, roots);
    } else {
      // A flat key meeting what nesting put there merges with it, after it.
      result[key] = hasOwn.call(result, key) ? merge(result[key], values[key], settings) : values[key];
    }
  }
  return compactRoots(result, roots);
}

export function parseExtended(
  input: string | null | undefined,
  options: ExtendedParseOptions = {},
): Record<string, unknown> {
  const settings = normaliseOptions(options);
  if (input === '' || input === null || input === undefined) return {};
  return build(collectValues(input, settings), settings);
}
