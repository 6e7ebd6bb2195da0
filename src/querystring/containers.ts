/**
 * The containers a parse builds, and the bookkeeping behind arrayLimit.
 *
 * An array that would grow past `arrayLimit` becomes a plain object with the
 * same numeric keys (an "overflow" object), and later values for it are appended
 * after its highest index. Two different values meeting on one key become a
 * pair `[first, second]` (a "conflict" array) that later values extend instead
 * of nesting. Both marks live in WeakMaps keyed by the container, so they never
 * show in the result and vanish with it.
 */
import { arrayLimitError } from './options';

export type Container = Record<string, unknown> | unknown[];

const overflowMaxIndex = new WeakMap<object, number>();
const conflictMaxIndex = new WeakMap<object, number>();

export const isObjectLike = (value: unknown): value is Container => typeof value === 'object' && value !== null;

export function markOverflow<T extends object>(container: T, maxIndex: number): T {
  overflowMaxIndex.set(container, maxIndex);
  return container;
}
export const isOverflow = (value: unknown): boolean => isObjectLike(value) && overflowMaxIndex.has(value);
export const overflowIndex = (container: object): number => overflowMaxIndex.get(container) as number;

export function markConflict<T extends object>(container: T, maxIndex: number): T {
  conflictMaxIndex.set(container, maxIndex);
  return container;
}
export const isConflict = (value: unknown): boolean => isObjectLike(value) && conflictMaxIndex.has(value);
export const conflictIndex = (container: object): number => conflictMaxIndex.get(container) as number;

/** From this index on, a container is made sparse before an entry is stored (see `setEntry`). */
const SPARSE_FROM = 64;
/** An index beyond the largest gap V8 leaves in fast elements (1,024). */
const BEYOND_FAST_GAP = 1 << 20;

/**
 * `container[index] = value`, without room for the holes below a high index. Stored
 * on an array or object without entries, `[999]` gives it fast elements with a slot
 * for every hole (12 KB), and nested keys multiply that: a 100 KB body of
 * `k[999][999]...` keys allocated 230 MB (qs, and so Express, does the same). An entry
 * set beyond that gap and taken away again leaves the container sparse (V8's
 * dictionary elements): the same to JavaScript (entries, order, length), and a few
 * hundred bytes in memory.
 */
export function setEntry(container: object, index: number, value: unknown): void {
  if (index >= SPARSE_FROM) makeSparse(container);
  (container as Record<number, unknown>)[index] = value;
}

/** `container[key] = value` for any key: a key that is a high index is stored as `setEntry` stores it. */
export function setKey(container: object, key: string, value: unknown): void {
  // Only a key starting with a digit can be an index: names are stored at once.
  const first = key.charCodeAt(0);
  if (first >= 0x30 && first <= 0x39 && key.length > 1 && Number(key) >= SPARSE_FROM) makeSparse(container);
  (container as Record<string, unknown>)[key] = value;
}

/** Containers `makeSparse` has seen: once is enough (taking an array's length back is not free). */
const sparseContainers = new WeakSet<object>();

function makeSparse(container: object): void {
  if (sparseContainers.has(container)) return;
  sparseContainers.add(container);
  const entries = container as Record<number, unknown>;
  if (Array.isArray(container)) {
    const length = container.length;
    entries[BEYOND_FAST_GAP] = undefined;
    container.length = length;
  } else {
    entries[BEYOND_FAST_GAP] = undefined;
    delete entries[BEYOND_FAST_GAP];
  }
}

/**
 * Calls `visit` with each entry of `array` in index order, skipping holes, as
 * `forEach` does; for a long array by its own indices (`Object.keys` lists them in
 * ascending order), so that `a[999]=x`, one entry in an array of length 1,000, is one
 * call rather than a look at every hole.
 */
export function eachEntry(array: readonly unknown[], visit: (item: unknown, index: number) => void): void {
  if (array.length <= SPARSE_FROM) {
    array.forEach(visit);
    return;
  }
  for (const key of Object.keys(array)) {
    const index = Number(key);
    visit(array[index], index);
  }
}

/** A plain object with the array's defined entries under their indices. */
export function arrayToObject(source: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  eachEntry(source, (value, index) => {
    if (value !== undefined) setEntry(out, index, value);
  });
  return out;
}

export interface Limits {
  arrayLimit: number;
  throwOnLimitExceeded: boolean;
}

/**
 * `first` followed by `second` (an array `second` is spread one level, as
 * Array.prototype.concat does), or an overflow object past the limit.
 */
export function combine(first: unknown, second: unknown, limits: Limits): Container {
  if (isOverflow(first)) {
    if (limits.throwOnLimitExceeded) throw arrayLimitError(limits.arrayLimit);
    const target = first as Record<string, unknown>;
    let index = overflowIndex(target);
    for (const value of Array.isArray(second) ? second : [second]) setEntry(target, ++index, value);
    return markOverflow(target, index);
  }
  const joined = ([] as unknown[]).concat(first, second);
  return limitArray(joined, limits);
}

/** The array itself, or its overflow object when it holds more than arrayLimit entries. */
export function limitArray(array: unknown[], limits: Limits): Container {
  if (array.length > limits.arrayLimit) {
    if (limits.throwOnLimitExceeded) throw arrayLimitError(limits.arrayLimit);
    return markOverflow(arrayToObject(array), array.length - 1);
  }
  return array;
}
