/**
 * Differential fuzzing against qs (the oracle, a devDependency): seeded random
 * inputs built from the fragments that matter to qs's rules must parse to the
 * same values, with the same prototypes, under each option set webapp passes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { parseExtended, type ExtendedParseOptions } from '../../src/querystring';
import { prng } from '../support/prng';

// The qs that express@4.22 itself installs (~6.16), not the newest on npm: the
// oracle is what Express apps parse queries with, and the two differ on arrayLimit.
const qs = createRequire(require.resolve('express'))('qs') as typeof import('qs');

const FRAGMENTS = [
  'a',
  'b',
  '[',
  ']',
  '=',
  '&',
  '%',
  '2',
  '5',
  '_',
  '__proto__',
  '+',
  '.',
  '0',
  '1',
  '9',
  '[]',
  '[0]',
  '[1]',
  '[b]',
  '%5B',
  '%5D',
  'constructor',
  'prototype',
  'toString',
  ';',
  '%41',
  '%E2%9C%93',
  '%zz',
];

function generate(random: () => number): string {
  const length = 1 + Math.floor(random() * 14);
  let out = '';
  for (let i = 0; i < length; i++) out += FRAGMENTS[Math.floor(random() * FRAGMENTS.length)];
  return out;
}

/** Values as JSON sees them, plus the prototype of every container on the way. */
function shape(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const proto = Object.getPrototypeOf(value);
  const kind = Array.isArray(value)
    ? 'array'
    : proto === Object.prototype
      ? 'object'
      : proto === null
        ? 'null-proto'
        : 'other';
  const entries = Object.keys(value).map((key) => [key, shape((value as Record<string, unknown>)[key])]);
  return { kind, entries };
}

function same(input: string, options: ExtendedParseOptions): void {
  let expected: unknown;
  let expectedError: unknown;
  try {
    expected = qs.parse(input, options as qs.IParseOptions);
  } catch (err) {
    expectedError = err;
  }
  if (expectedError !== undefined) {
    assert.throws(
      () => parseExtended(input, options),
      (err: Error) => {
        assert.equal(err.constructor, (expectedError as Error).constructor, input);
        assert.equal(err.message, (expectedError as Error).message, input);
        return true;
      },
    );
    return;
  }
  const actual = parseExtended(input, options);
  if (options.depth === 0 && options.allowPrototypes === false) withoutPrototypeNames(expected);
  assert.deepStrictEqual(JSON.parse(JSON.stringify(actual)), JSON.parse(JSON.stringify(expected)), input);
  assert.deepStrictEqual(shape(actual), shape(expected), input);
  assert.equal(Object.getPrototypeOf(actual), Object.prototype);
}

/**
 * Accepted: at depth 0 qs 6.16 guards the whole key against Object.prototype's names
 * (`toString`) but then takes the brackets off it, so `[toString]=x` gives an own
 * `toString` despite `allowPrototypes: false`. webapp drops that key as it drops
 * `toString=x` (docs/migrating-from-express-4.md, `webapp.query(options)`).
 */
function withoutPrototypeNames(parsed: unknown): void {
  for (const key of Object.keys(parsed as object))
    if (Object.prototype.hasOwnProperty.call(Object.prototype, key)) delete (parsed as Record<string, unknown>)[key];
}

const OPTION_SETS: Array<[string, ExtendedParseOptions]> = [
  ['express 4 (allowPrototypes, arrayLimit 1000)', { allowPrototypes: true, arrayLimit: 1000 }],
  [
    'body-parser (strictDepth, small limits)',
    { allowPrototypes: true, arrayLimit: 2, depth: 2, strictDepth: true, parameterLimit: 6 },
  ],
  [
    'body-parser defaults',
    { allowPrototypes: true, arrayLimit: 100, depth: 32, strictDepth: true, parameterLimit: 1000 },
  ],
  ['qs defaults (webapp.query without allowPrototypes)', {}],
  ['arrayLimit 0, depth 0', { arrayLimit: 0, depth: 0, allowPrototypes: false }],
  ['throwOnLimitExceeded', { arrayLimit: 1, parameterLimit: 3, throwOnLimitExceeded: true, allowPrototypes: true }],
];

describe('parseExtended: a prototype name in brackets at depth 0', () => {
  it('is dropped without allowPrototypes, as the same name without brackets is', () => {
    const options = { depth: 0, allowPrototypes: false };
    assert.deepStrictEqual({ ...parseExtended('[toString]=x&[hasOwnProperty]=y&a=1', options) }, { a: '1' });
    assert.deepStrictEqual({ ...parseExtended('toString=x&a=1', options) }, { a: '1' });
    assert.deepStrictEqual(
      { ...parseExtended('[toString]=x', { depth: 0, allowPrototypes: true }) },
      { toString: 'x' },
    );
  });
});

describe('parseExtended: differential fuzzing against qs', () => {
  for (const [name, options] of OPTION_SETS) {
    it(`3,000 seeded inputs give qs's result: ${name}`, () => {
      const random = prng(0x5eed + name.length);
      for (let i = 0; i < 3000; i++) same(generate(random), options);
    });
  }

  it("repeated keys and indices near arrayLimit give qs's result", () => {
    const random = prng(42);
    const keys = ['a', 'a[]', 'a[0]', 'a[1]', 'a[2]', 'a[3]', 'a[b]', 'a[][b]', 'a[0][b]', 'a[b][]', '[]', '[0]'];
    for (let i = 0; i < 3000; i++) {
      const count = 1 + Math.floor(random() * 8);
      const parts: string[] = [];
      for (let j = 0; j < count; j++) {
        const key = keys[Math.floor(random() * keys.length)];
        parts.push(random() < 0.15 ? key : `${key}=${j % 3 === 0 ? '' : j}`);
      }
      const input = parts.join('&');
      same(input, { allowPrototypes: true, arrayLimit: 3 });
      same(input, { allowPrototypes: true, arrayLimit: 1000 });
      same(input, { allowPrototypes: true, arrayLimit: 0, depth: 1, strictDepth: true });
    }
  });

  // High indexes are stored sparsely (containers.ts, setEntry): the same values and
  // order as qs's arrays and objects with holes, through every merge and compaction.
  it("high indexes, mixed with low ones, names and scalars, give qs's result", () => {
    const random = prng(0x51de);
    const keys = ['a', 'a[]', 'a[1]', 'a[63]', 'a[64]', 'a[65]', 'a[200]', 'a[999]', 'a[1000]', 'a[b]'];
    const nested = ['', '[999]', '[64]', '[0]', '[c]', '[]'];
    for (let i = 0; i < 3000; i++) {
      const count = 1 + Math.floor(random() * 10);
      const parts: string[] = [];
      for (let j = 0; j < count; j++) {
        const key = keys[Math.floor(random() * keys.length)] + nested[Math.floor(random() * nested.length)];
        parts.push(random() < 0.1 ? key : `${key}=${j}`);
      }
      const input = parts.join('&');
      same(input, { allowPrototypes: true, arrayLimit: 100, depth: 32, strictDepth: true, parameterLimit: 1000 });
      same(input, { allowPrototypes: true, arrayLimit: 2000 });
      same(input, { allowPrototypes: true, arrayLimit: 20, depth: 5 });
    }
  });
});
