/**
 * Parsed arrays are sparse (`a[5]=x` sets index 5 only); the final result
 * closes every gap, innermost arrays first, so `a[5]=x` gives `{ a: ['x'] }`.
 * Iterative, because a permissive `depth` allows nesting deeper than the stack.
 */
import { eachEntry, isObjectLike } from './containers';

interface Slot {
  holder: Record<string, unknown>;
  key: string;
}

export function compact<T extends object>(root: T): T {
  const slots: Slot[] = [];
  const seen = new WeakSet<object>();
  const pending: object[] = [root];
  // Pre-order walk: every slot is recorded after the slot holding its parent.
  while (pending.length > 0) {
    const holder = pending.pop() as Record<string, unknown>;
    for (const key of Object.keys(holder)) {
      const value = holder[key];
      if (isObjectLike(value) && !seen.has(value)) {
        seen.add(value);
        slots.push({ holder, key });
        pending.push(value);
      }
    }
  }
  // Reverse order compacts children before the arrays that hold them.
  for (let i = slots.length - 1; i >= 0; i--) {
    const { holder, key } = slots[i];
    const value = holder[key];
    if (Array.isArray(value)) holder[key] = withoutGaps(value);
  }
  return root;
}

/** The array's defined entries in order. */
function withoutGaps(array: unknown[]): unknown[] {
  const kept: unknown[] = [];
  eachEntry(array, (item) => {
    if (item !== undefined) kept.push(item);
  });
  return kept;
}
