/**
 * Merging the one-key object built for each parameter into the result, with
 * qs's rules: arrays merge by index (colliding scalars are appended), an object
 * meeting an array turns the array into an object, a scalar meeting a scalar
 * or an object makes a conflict pair, and arrayLimit applies throughout.
 */
import {
  arrayToObject,
  combine,
  conflictIndex,
  eachEntry,
  isConflict,
  isObjectLike,
  isOverflow,
  limitArray,
  markConflict,
  markOverflow,
  overflowIndex,
  setEntry,
  setKey,
  type Container,
  type Limits,
} from './containers';
import { arrayLimitError } from './options';

const hasOwn = Object.prototype.hasOwnProperty;

/** Integer key in canonical form (`"3"`, not `"03"`), as parseInt-then-String sees it. */
function canonicalIndex(key: string): number {
  const n = parseInt(key, 10);
  return String(n) === key ? n : NaN;
}

function highestIndex(target: object, floor: number): number {
  let max = floor;
  for (const key of Object.keys(target)) {
    const n = canonicalIndex(key);
    if (n > max) max = n;
  }
  return max;
}

function mergeScalar(target: unknown, source: unknown, limits: Limits): unknown {
  if (Array.isArray(target)) {
    // As in the qs Express 4.22 installs (6.16): the length counts the holes a
    // sparse index left (`a[999]=x&a=y` is past a limit of 1000), not the entries.
    const next = target.length;
    if (next >= limits.arrayLimit) {
      if (limits.throwOnLimitExceeded) throw arrayLimitError(limits.arrayLimit);
      return markOverflow(arrayToObject(target.concat(source)), next);
    }
    setEntry(target, next, source);
    return target;
  }
  if (isObjectLike(target)) {
    const object = target as Record<string, unknown>;
    if (isOverflow(object)) {
      const index = overflowIndex(object) + 1;
      setEntry(object, index, source);
      markOverflow(object, index);
    } else if (isConflict(object)) {
      const index = conflictIndex(object) + 1;
      if (limits.throwOnLimitExceeded && index >= limits.arrayLimit) throw arrayLimitError(limits.arrayLimit);
      setEntry(object, index, source);
      markConflict(object, index);
    } else {
      const pair = limitArray([object, source], limits);
      return Array.isArray(pair) ? markConflict(pair, 1) : pair;
    }
    return target;
  }
  return limitArray([target, source], limits);
}

/** A scalar (or nothing) meeting a container: the scalar goes first. */
function prependScalar(target: unknown, source: Container, limits: Limits): Container {
  if (isOverflow(source)) {
    const shifted: Record<string, unknown> = { 0: target };
    for (const key of Object.keys(source))
      setEntry(shifted, parseInt(key, 10) + 1, (source as Record<string, unknown>)[key]);
    return markOverflow(shifted, overflowIndex(source) + 1);
  }
  return combine(target, source, limits);
}

function mergeArrays(target: unknown[], source: unknown[], limits: Limits): Container {
  eachEntry(source, (item, i) => {
    if (hasOwn.call(target, i)) {
      const existing = target[i];
      if (isObjectLike(existing) && isObjectLike(item)) target[i] = merge(existing, item, limits);
      else setEntry(target, target.length, item);
    } else {
      setEntry(target, i, item);
    }
  });
  return limitArray(target, limits);
}

export function merge(target: unknown, source: unknown, limits: Limits): unknown {
  if (!source) return target;
  if (!isObjectLike(source)) return mergeScalar(target, source, limits);
  if (!isObjectLike(target)) return prependScalar(target, source, limits);
  if (Array.isArray(target) && Array.isArray(source)) return mergeArrays(target, source, limits);

  let into = target as Record<string, unknown>;
  if (Array.isArray(target)) {
    into = arrayToObject(target);
    if (isConflict(target)) markConflict(into, target.length - 1);
  }
  const from = source as Record<string, unknown>;
  const sourceOverflows = isOverflow(from);
  for (const key of Object.keys(from)) {
    const value = from[key];
    // No source holds a `__proto__` key: the key-segment step drops it at the top level and
    // nesting never creates it (see index.ts), so plain assignment cannot reach the prototype.
    setKey(into, key, hasOwn.call(into, key) ? merge(into[key], value, limits) : value);

    if (sourceOverflows && !isOverflow(into)) markOverflow(into, highestIndex(into, overflowIndex(from)));
    if (isOverflow(into)) {
      const n = canonicalIndex(key);
      if (n >= 0 && n > overflowIndex(into)) markOverflow(into, n);
    }
    if (isConflict(into)) {
      const n = canonicalIndex(key);
      if (n > conflictIndex(into)) markConflict(into, n);
    }
  }
  return into;
}
