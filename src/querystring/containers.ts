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

/** A plain object with the array's defined entries under their indices. */
export function arrayToObject(source: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < source.length; i++) {
    if (source[i] !== undefined) out[i] = source[i];
  }
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
    for (const value of Array.isArray(second) ? second : [second]) target[++index] = value;
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
