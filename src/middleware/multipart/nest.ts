/**
 * Fields and files named with brackets (`user[name]`, `photos[]`) become nested
 * objects, as Connect 2 did by grouping values by name and handing the object
 * to qs. The nesting here goes through webapp's one qs-compatible parser: each
 * distinct name is parsed once with a placeholder value (its index), and the
 * placeholders are then swapped for the real values. So the key rules (depth,
 * arrayLimit, prototype guard, merge of `a` with `a[b]`) are exactly the query
 * parser's, and values (file objects included) are never walked or copied.
 */
import { parseExtended } from '../../querystring';

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
   * A value the nesting cannot place (its name is `__proto__`, `a[__proto__][x]`, or
   * collides with another name's shape) is not in the result: `onDropped` gets it,
   * so a caller holding a resource for it (a file on disk) can release it.
   */
  nest(onDropped?: (value: T) => void): Record<string, unknown> {
    const names = [...this.byName.keys()];
    if (names.length === 0) return {};
    const values = names.map((name) => this.byName.get(name));
    const query = names.map((name, index) => encodeURIComponent(name) + '=' + index).join('&');
    // Connect parsed with qs 4's defaults (depth 5, arrayLimit 20) and allowPrototypes.
    const shape = parseExtended(query, { allowPrototypes: true, parameterLimit: Infinity });
    // `a[]` given several values lists them all in one array (qs concatenated them).
    const spread = names.map((name) => name.endsWith('[]') && this.repeated.has(name));
    const placed = new Set<number>();
    const nested = fill(shape, { values, spread, placed }) as Record<string, unknown>;
    if (onDropped) {
      for (let index = 0; index < names.length; index++) {
        if (placed.has(index)) continue;
        const value = values[index] as T | T[];
        if (this.repeated.has(names[index])) for (const item of value as T[]) onDropped(item);
        else onDropped(value as T);
      }
    }
    return nested;
  }
}

interface Placeholders {
  values: unknown[];
  spread: boolean[];
  /** The indexes put into the result. */
  placed: Set<number>;
}

/** `shape` with every placeholder (an index as a string) replaced by its value. */
function fill(shape: unknown, into: Placeholders): unknown {
  if (typeof shape === 'string') return place(shape, into);
  if (Array.isArray(shape)) {
    const out: unknown[] = [];
    for (const item of shape) {
      if (typeof item === 'string' && into.spread[Number(item)]) {
        // Value by value: spread into push's arguments, a long run of `name[]` parts
        // (about 120,000, with maxFields raised) overflowed the stack in the form's
        // 'close' listener, an uncaught exception.
        for (const value of place(item, into) as unknown[]) out.push(value);
      } else out.push(fill(item, into));
    }
    return out;
  }
  if (typeof shape === 'object' && shape !== null) {
    const object = shape as Record<string, unknown>;
    // The parser never yields a `__proto__` key, so plain assignment is safe.
    for (const key of Object.keys(object)) object[key] = fill(object[key], into);
    return object;
  }
  return shape;
}

function place(placeholder: string, into: Placeholders): unknown {
  const index = Number(placeholder);
  into.placed.add(index);
  return into.values[index];
}
