/**
 * Fields and files named with brackets (`user[name]`, `photos[]`) become nested
 * objects, as Connect 2.30 made them: values grouped by name, then the object of
 * fields and the object of files each handed to qs 4.0's `parse`. webapp's qs 4
 * engine (the one that reads 3.x query strings and urlencoded bodies) nests them, so
 * names nest by the same rules there and here: `d[e` is `d`, and a plain value
 * meeting an object becomes a key of it set to true. Files are not merged with what
 * comes under their name, as qs 4 merged them (see nestQs4).
 */
import { QS4_DEFAULTS, isPlainObject, nestQs4 } from '../../querystring/qs4';

/** Values by name in arrival order; a repeated name collects an array. */
export class NamedValues<T> {
  private readonly byName = new Map<string, T | T[]>();
  private readonly repeated = new Set<string>();

  add(name: string, value: T): void {
    const existing = this.byName.get(name);
    // A name seen once with an empty value (a falsy one: '') takes the next value in its
    // place, as Connect 2.30 collected them (`if (data[name])`): `a=''` then `a='1'` gave
    // `a: '1'`, not `['', '1']`. Files are objects, never replaced.
    if (existing === undefined || (!existing && !this.repeated.has(name))) {
      this.byName.set(name, value);
    } else if (this.repeated.has(name)) {
      (existing as T[]).push(value);
    } else {
      this.repeated.add(name);
      this.byName.set(name, [existing as T, value]);
    }
  }

  /**
   * The nested object: `a[b]` -> `{ a: { b } }`, `a[]` twice -> `{ a: [x, y] }`.
   * A value the nesting cannot place (its name is empty, `__proto__`, `a[__proto__][x]`)
   * is not in the result: `onDropped` gets it, so a caller holding a resource for it
   * (a file on disk) can release it.
   */
  nest(onDropped?: (value: T) => void): Record<string, unknown> {
    if (this.byName.size === 0) return {};
    const grouped: Record<string, unknown> = Object.create(null);
    const leaves = new Set<unknown>();
    for (const [name, value] of this.byName) {
      grouped[name] = value;
      // Objects are files: placed as they are, never merged (see nestQs4).
      for (const item of this.repeated.has(name) ? (value as T[]) : [value]) {
        if (typeof item === 'object' && item !== null) leaves.add(item);
      }
    }
    // Connect passed `allowPrototypes: true`, and qs 4's depth 5 and arrayLimit 20.
    const nested = nestQs4(grouped, QS4_DEFAULTS, (value) => leaves.has(value));
    if (onDropped) {
      const reached = reachableFrom(nested, leaves);
      for (const [name, value] of this.byName) {
        const values = this.repeated.has(name) ? (value as T[]) : [value as T];
        for (const item of values) if (!reached.has(item)) onDropped(item);
      }
    }
    return nested;
  }
}

/** Every value inside `root`, through the arrays and plain objects the nesting made (not into `leaves`). */
function reachableFrom(root: object, leaves: Set<unknown>): Set<unknown> {
  const reached = new Set<unknown>();
  const pending: object[] = [root];
  while (pending.length > 0) {
    const container = pending.pop() as Record<string, unknown>;
    for (const key of Object.keys(container)) {
      const value = container[key];
      if (reached.has(value)) continue;
      reached.add(value);
      if (!leaves.has(value) && (Array.isArray(value) || isPlainObject(value))) pending.push(value);
    }
  }
  return reached;
}
