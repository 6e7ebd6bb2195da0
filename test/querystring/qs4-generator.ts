/**
 * Query strings and form bodies for the differentials against qs 4.0 (Connect 2.30's,
 * test/querystring/qs4-dialect.test.ts and test/middleware/generated-query-qs4.test.ts),
 * built from the pieces qs 4's rules turn on, and the rules the comparison follows:
 * which cases are left out of it, and why.
 */
import { chance, pick, type Random } from '../support/prng';

/** qs 4.0.0 itself, as Connect 2.30 and its body-parser 1.13 load it. */
export const qs4 = require(require.resolve('qs', { paths: [require.resolve('connect')] })) as {
  parse(input: string, options?: Record<string, unknown>): Record<string, unknown>;
};

/** Connect 2.30's `query()`: qs 4's defaults, prototype names allowed. */
export const CONNECT_QUERY_OPTIONS = { allowDots: false, allowPrototypes: true };

/** body-parser 1.13's extended urlencoded options for `body`. */
export function bodyParserOptions(body: string): Record<string, unknown> {
  const ampersands = body.split('&').length - 1;
  return {
    allowDots: false,
    allowPrototypes: true,
    arrayLimit: Math.max(100, ampersands),
    depth: Infinity,
    parameterLimit: 1000,
  };
}

const NAMES = [
  'a',
  'b',
  'user',
  '0',
  '1',
  '20',
  'x.y',
  'a+b',
  '%61',
  'a%20b',
  '%E2%82%AC',
  '%zz',
  '%',
  'hasOwnProperty',
  'toString',
  'constructor',
  '__proto__',
  'prototype',
  '',
];
const SEGMENTS = [
  '[]',
  '[0]',
  '[1]',
  '[2]',
  '[19]',
  '[20]',
  '[21]',
  '[99]',
  '[100]',
  '[999]',
  '[01]',
  '[-1]',
  '[b]',
  '[c]',
  '[x.y]',
  '[a+b]',
  '[%61]',
  '%5B%5D',
  '%5B0%5D',
  '%5Bb%5D',
  '%5bc%5d',
  '%5B21%5D',
  '[toString]',
  '[hasOwnProperty]',
  '[__proto__]',
  '[constructor]',
  '[prototype]',
  '[',
  ']',
  '%5B',
  '%5D',
  '[[',
  ']]',
  '[]]',
  '[b[c]]',
  '.b',
  '[%zz]',
  '[=]',
];
const VALUES = [
  '',
  '1',
  '2',
  'x+y',
  'x%20y',
  '%E2%82%AC',
  '%zz',
  'x+y%zz',
  '%',
  '%E0%A4%A',
  '%26',
  'a=b',
  ';',
  ';a%5Bb%5D=1',
  '%5D=',
  ']=',
  'toString',
  'hasOwnProperty',
  '__proto__',
  'valueOf',
  '%5B',
];

function key(random: Random): string {
  let text = pick(random, NAMES);
  // Mostly up to three segments; sometimes nesting past qs 4's depth of 5.
  const count = chance(random, 0.1) ? 6 + Math.floor(random() * 4) : Math.floor(random() * 4);
  for (let i = 0; i < count; i++) text += pick(random, SEGMENTS);
  return text;
}

function value(random: Random): string {
  const first = pick(random, VALUES);
  return chance(random, 0.15) ? first + pick(random, VALUES) : first;
}

/** One query string (or form body): a few parts, keys often repeated, in every form. */
export function queryString(random: Random): string {
  const keys: string[] = [];
  const parts: string[] = [];
  const count = 1 + Math.floor(random() * 6);
  for (let i = 0; i < count; i++) {
    const k = keys.length > 0 && chance(random, 0.35) ? pick(random, keys) : key(random);
    keys.push(k);
    const roll = random();
    if (roll < 0.05) {
      // One key with more values than qs 4's arrayLimit.
      const n = 18 + Math.floor(random() * 8);
      for (let j = 0; j < n; j++) parts.push(k + '=' + j);
    } else if (roll < 0.1) parts.push('');
    else if (roll < 0.22) parts.push(k);
    else parts.push(k + '=' + value(random));
  }
  return parts.join('&');
}

/** A form body: as a query string, sometimes with more than 100 parameters (body-parser 1.13's arrayLimit). */
export function formBody(random: Random): string {
  if (!chance(random, 0.05)) return queryString(random);
  const n = 99 + Math.floor(random() * 6);
  const parts = Array.from({ length: n }, (_, i) => 'p' + i + '=' + i);
  parts.push(pick(random, ['a[100]=x', 'a[101]=x', 'a[102]=x', 'a[103]=x', 'a[]=x', 'a[0]=x']));
  return parts.join('&');
}

const hasOwn = Object.prototype.hasOwnProperty;
const namesPrototypeMember = (name: string): boolean => hasOwn.call(Object.prototype, name);

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The decoded key of each part, split where qs 4 splits it (first literal `]=`, else `=`). */
function partsOf(input: string): Array<{ part: string; key: string; value: string | undefined }> {
  return input.split('&').map((part) => {
    const bracketEquals = part.indexOf(']=');
    const split = bracketEquals === -1 ? part.indexOf('=') : bracketEquals + 1;
    return split === -1
      ? { part, key: decode(part), value: undefined }
      : { part, key: decode(part.slice(0, split)), value: decode(part.slice(split + 1)) };
  });
}

/**
 * Whether webapp/middleware's `query()` drops the key (a security fix over Connect, which
 * passed `allowPrototypes: true`): its name or one of the `[...]` groups qs 4 nests
 * (at most 5) names an Object.prototype member.
 */
function keyNamesPrototypeMember(key: string): boolean {
  const name = /^[^[\]]*/.exec(key)![0];
  if (name !== '' && namesPrototypeMember(name)) return true;
  const groups = key.match(/\[[^[\]]*\]/g) ?? [];
  return groups.slice(0, 5).some((group) => namesPrototypeMember(group.slice(1, -1)));
}

/** The input without the parts whose key webapp/middleware's `query()` drops. */
export function withoutPrototypeKeys(input: string): string {
  return partsOf(input)
    .filter(({ key }) => !keyNamesPrototypeMember(key))
    .map(({ part }) => part)
    .join('&');
}

function holdsTrue(value: unknown): boolean {
  if (value === true) return true;
  if (typeof value !== 'object' || value === null) return false;
  return Object.keys(value).some((k) => holdsTrue((value as Record<string, unknown>)[k]));
}

/**
 * Left out of the comparison (webapp keeps the safe answer): qs 4 made a plain value
 * meeting an object into a key of it set to `true`, and where that value names an
 * Object.prototype member (`a[b]=1&a=toString`) it shadowed the object's method.
 * Seen as: qs 4's answer holds a `true` and a value of the input names such a member.
 */
export function shadowsWithValue(input: string, answer: unknown): boolean {
  return holdsTrue(answer) && partsOf(input).some(({ value }) => value !== undefined && namesPrototypeMember(value));
}

/** Deeper than body-parser 1.20's depth of 32 (webapp answers 400 there; 1.13 had no limit). */
export function nestsDeeperThan(input: string, depth: number): boolean {
  return partsOf(input).some(({ key }) => (key.match(/\[[^[\]]*\]/g) ?? []).length > depth);
}

const HOLE = '<hole>';

/**
 * A value as compared: own enumerable keys only, arrays with their holes marked. qs 4
 * gave `a[__proto__][b]=1` an object inheriting `b` (no own key); webapp gives `{}`.
 */
export function comparable(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items: unknown[] = ['<array>'];
    for (let i = 0; i < value.length; i++) items.push(i in value ? comparable(value[i]) : HOLE);
    return items;
  }
  const out: Record<string, unknown> = Object.create(null);
  for (const k of Object.keys(value)) out[k] = comparable((value as Record<string, unknown>)[k]);
  return out;
}

/** Throws unless every object of webapp's answer is a plain object or array with nothing inherited but the builtins. */
export function assertPlain(value: unknown, where: string): void {
  if (typeof value !== 'object' || value === null) return;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== Array.prototype)
    throw new Error(`${where}: an object with another prototype`);
  for (const k of Object.keys(value)) assertPlain((value as Record<string, unknown>)[k], where);
}
