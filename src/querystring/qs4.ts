/**
 * The 3.x world's extended parsing: qs 4.0.0's answers, as Connect 2.30 gave them in
 * `req.query` (so Express 3.21's) and in extended urlencoded bodies (body-parser 1.13).
 * A module of its own rather than a dialect of index.ts: qs 4 splits, decodes, cuts keys
 * into segments, merges and compacts by other rules than today's qs at every step, and
 * the 4.x parser stays free of checks for a dialect it never runs.
 *
 * Where qs 4 differs from today's qs:
 * - a part without `=` replaces what its key held (`a=1&a` is `{ a: '' }`);
 * - a key or value that does not decode is kept as it came, `+` included;
 * - `%5B`/`%5D` become brackets only in a decoded key: a part splits at its first
 *   literal `]=`, else its first `=` (`b=;a%5Bb%5D=1` is `{ b: ';a[b]=1' }`);
 * - a key's name ends at its first `[` or `]`, and its segments are the `[...]`
 *   groups holding no bracket (`a[b[c]]` is `a`, `[c]`); a key with none of either
 *   gives its value to the result as a key set to `true` (`[[[=1` is `{ 1: true }`);
 * - repeated values and `[]` make arrays of any length (the parameter limit bounds
 *   them); an index up to `arrayLimit` included makes an array;
 * - merging: a plain value meeting an object becomes a key of it set to `true`,
 *   arrays meeting arrays merge by index, colliding values pairing up;
 * - only arrays directly under objects are compacted: an array inside an array
 *   keeps its holes (`a[0][2]=x` is `{ a: [[ , , 'x']] }`).
 *
 * What is not reproduced, because it is unsafe:
 * - a `__proto__` segment, which in qs 4 replaced the prototype of the object it
 *   nested in (`a[__proto__][b]=1` gave an `a` inheriting `b`), sets nothing;
 * - a value naming an Object.prototype member is not made a key (`a[b]=1&a=toString`
 *   would shadow `a.toString` with `true`);
 * - without `allowPrototypes`, a key with a segment naming an Object.prototype member
 *   is dropped whole, as by webapp's 4.x parser;
 * - with `strictDepth`, a key nested deeper than `depth` throws a RangeError (qs 4
 *   had no such option; body-parser 1.13 parsed to any depth).
 */
import { eachEntry, isObjectLike, setEntry, setKey } from './containers';

export interface Qs4Options {
  /** Keys may name Object.prototype members (Connect passed `allowPrototypes: true`). */
  allowPrototypes: boolean;
  /** Indexes up to this one, included, make arrays (qs 4's default: 20). */
  arrayLimit: number;
  /** How many `[...]` groups of a key nest (qs 4's default: 5). */
  depth: number;
  /** Parts read at most (qs 4's default: 1000). */
  parameterLimit: number;
  /** Throw a RangeError for a key nested deeper than `depth`, instead of keeping the rest as one segment. */
  strictDepth?: boolean;
}

/** qs 4's defaults, as Connect 2.30's `query()` used them (with `allowPrototypes: true`). */
export const QS4_DEFAULTS: Readonly<Qs4Options> = {
  allowPrototypes: true,
  arrayLimit: 20,
  depth: 5,
  parameterLimit: 1000,
};

const hasOwn = Object.prototype.hasOwnProperty;
const namesPrototypeMember = (name: string): boolean => hasOwn.call(Object.prototype, name);

/** `+` as a space, then percent-escapes as UTF-8; the text as it came when that fails. */
function decodeQs4(text: string): string {
  const percent = text.indexOf('%');
  const spaced = text.indexOf('+') === -1 ? text : text.replaceAll('+', ' ');
  if (percent === -1) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return text;
  }
}

/** Step 1: values grouped by whole decoded key, in the order an object lists its keys. */
function groupValues(input: string, parameterLimit: number): Record<string, unknown> {
  // A null prototype, so that any key is an own property; `__proto__` never is (below).
  const grouped: Record<string, unknown> = Object.create(null);
  // As `split('&', limit)` cuts: the limit through ToUint32.
  const maxParts = parameterLimit === Infinity ? Infinity : parameterLimit >>> 0;
  for (let count = 0, start = 0; count < maxParts && start <= input.length; count++) {
    const amp = input.indexOf('&', start);
    const end = amp === -1 ? input.length : amp;
    const part = input.slice(start, end);
    start = end + 1;
    const bracketEquals = part.indexOf(']=');
    const split = bracketEquals === -1 ? part.indexOf('=') : bracketEquals + 1;
    const key = decodeQs4(split === -1 ? part : part.slice(0, split));
    // qs 4 stored into an ordinary object, where `__proto__` is the prototype: no key.
    if (key === '__proto__') continue;
    if (split === -1) {
      grouped[key] = '';
      continue;
    }
    const value = decodeQs4(part.slice(split + 1));
    const existing = grouped[key];
    if (existing === undefined) grouped[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else grouped[key] = [existing, value];
  }
  return grouped;
}

const PARENT = /^[^[\]]*/;
const CHILD = /\[[^[\]]*\]/g;

/**
 * Step 2, the segments of one key (`a`, `[b]`, `[]`...), or undefined when the key is
 * dropped: empty, or naming an Object.prototype member where that is refused.
 */
function segmentsOf(key: string, options: Qs4Options): string[] | undefined {
  if (key === '') return undefined;
  const guard = !options.allowPrototypes;
  const segments: string[] = [];
  const parent = (PARENT.exec(key) as RegExpExecArray)[0];
  if (parent !== '') {
    if (guard && namesPrototypeMember(parent)) return undefined;
    segments.push(parent);
  }
  CHILD.lastIndex = 0;
  let match = CHILD.exec(key);
  for (let taken = 0; match !== null && taken < options.depth; match = CHILD.exec(key)) {
    taken++;
    if (guard && namesPrototypeMember(match[0].slice(1, -1))) return undefined;
    segments.push(match[0]);
  }
  if (match !== null) {
    if (options.strictDepth) {
      throw new RangeError(`Input depth exceeded depth option of ${options.depth} and strictDepth is true`);
    }
    segments.push('[' + key.slice(match.index) + ']');
  }
  return segments;
}

/** The containers the segments describe around `value`, innermost first. */
function nest(segments: string[], value: unknown, arrayLimit: number): unknown {
  let inner = value;
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i];
    if (segment === '[]') {
      inner = Array.isArray(inner) ? inner : [inner];
      continue;
    }
    const bracketed = segment.charCodeAt(0) === 0x5b && segment.charCodeAt(segment.length - 1) === 0x5d;
    const name = bracketed ? segment.slice(1, -1) : segment;
    const index = bracketed ? parseInt(name, 10) : NaN;
    if (index >= 0 && index <= arrayLimit && String(index) === name) {
      const array: unknown[] = [];
      setEntry(array, index, inner);
      inner = array;
    } else {
      const object: Record<string, unknown> = {};
      // qs 4 set the object's prototype here: nothing is set.
      if (name !== '__proto__') setKey(object, name, inner);
      inner = object;
    }
  }
  return inner;
}

/** A plain object with the array's defined entries under their indices. */
function arrayToObject(array: unknown[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  eachEntry(array, (item, index) => {
    if (item !== undefined) setEntry(object, index, item);
  });
  return object;
}

/** Values `nestQs4` places as they are, never merged into nor out of (uploaded files). */
type IsLeaf = (value: unknown) => boolean;
const noLeaves: IsLeaf = () => false;

/** qs 4's merge of one parameter's containers (or value) into what is there. */
function merge(target: unknown, source: unknown, isLeaf: IsLeaf): unknown {
  if (!source) return target;
  if (isLeaf(source) || isLeaf(target)) {
    // A leaf meets another value under one name: both are kept, side by side.
    if (Array.isArray(target)) setEntry(target, target.length, source);
    else return [target].concat(source);
    return target;
  }
  if (!isObjectLike(source)) {
    if (Array.isArray(target)) {
      setEntry(target, target.length, source);
    } else if (isObjectLike(target)) {
      // The value becomes a key set to true, unless it names a prototype member
      // (`__proto__` set nothing in qs 4 either).
      if (!namesPrototypeMember(source as string)) setKey(target, source as string, true);
    } else {
      return [target, source];
    }
    return target;
  }
  if (!isObjectLike(target)) return [target].concat(source);
  const into =
    Array.isArray(target) && !Array.isArray(source) ? arrayToObject(target) : (target as Record<string, unknown>);
  const from = source as Record<string, unknown>;
  // No source holds an own `__proto__` key: nesting and grouping never set one.
  for (const key of Object.keys(from)) {
    setKey(into, key, hasOwn.call(into, key) ? merge(into[key], from[key], isLeaf) : from[key]);
  }
  return into;
}

/**
 * Arrays directly under objects lose their holes; arrays inside arrays keep them, as in
 * qs 4. Only plain objects are entered: a value given to `nestQs4` may be an object of
 * another kind (an uploaded file's write stream), whose insides are not the nesting's.
 */
function compact(object: Record<string, unknown>, isLeaf: IsLeaf): void {
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (Array.isArray(value)) {
      const kept: unknown[] = [];
      eachEntry(value, (item) => {
        if (item !== undefined) kept.push(item);
      });
      object[key] = kept;
    } else if (isPlainObject(value) && !isLeaf(value)) {
      compact(value, isLeaf);
    }
  }
}

/** An object literal's kind, or one without a prototype: what the nesting makes. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isObjectLike(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

export function parseQs4(
  input: string | null | undefined,
  options: Qs4Options = QS4_DEFAULTS,
): Record<string, unknown> {
  if (input === '' || input === null || input === undefined) return {};
  return nestQs4(groupValues(input, options.parameterLimit), options);
}

/**
 * Steps 2 to 4 over values already grouped by whole key (a repeated key's values in an
 * array), as qs 4's `parse` took an object: Connect 2.30's multipart grouped its fields
 * and files by name and handed each object to it. `options.parameterLimit` plays no part.
 *
 * Values for which `isLeaf` is true (uploaded files) are placed as they are: qs 4 merged
 * a file with what came under the same name (`f`, then `f[x]`: the first file held the
 * second as `x`, where no app looks for a file, and its temporary file stayed on disk).
 * A leaf meeting another value under one name is kept beside it, in an array.
 */
export function nestQs4(
  grouped: Record<string, unknown>,
  options: Qs4Options = QS4_DEFAULTS,
  isLeaf: IsLeaf = noLeaves,
): Record<string, unknown> {
  let result: Record<string, unknown> = {};
  for (const key of Object.keys(grouped)) {
    const segments = segmentsOf(key, options);
    if (segments === undefined) continue;
    result = merge(result, nest(segments, grouped[key], options.arrayLimit), isLeaf) as Record<string, unknown>;
  }
  compact(result, isLeaf);
  return result;
}
