/**
 * The parser's fast paths against qs: escapes decoded in one pass (every ASCII
 * byte, both hex cases, next to `+`, malformed and UTF-8 escapes), and the key
 * orders that decide whether the grouped flat keys are the result itself (flat
 * keys before, after and between nested ones, index-like keys late, skipped keys,
 * depth 0). Results must match in values, container kinds and key order.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { parseExtended, type ExtendedParseOptions } from '../../src/querystring';
import { prng } from '../support/prng';

// The qs that express@4.22 itself installs (~6.16), not the newest on npm: the
// oracle is what Express apps parse queries with, and the two differ on arrayLimit.
const qs = createRequire(require.resolve('express'))('qs') as typeof import('qs');

const OPTION_SETS: ExtendedParseOptions[] = [
  { allowPrototypes: true, arrayLimit: 1000 },
  { allowPrototypes: true, arrayLimit: 100, depth: 32, strictDepth: true, parameterLimit: 1000 },
  {},
  { arrayLimit: 0, depth: 0 },
  { allowPrototypes: true, depth: 0 },
  { allowPrototypes: true, arrayLimit: 2, depth: 1, parameterLimit: 5 },
  { allowPrototypes: true, arrayLimit: 1, parameterLimit: 3, throwOnLimitExceeded: true },
];

/** Values, container kinds and key order, as one comparable tree. */
function shape(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const kind = Array.isArray(value) ? 'array' : Object.getPrototypeOf(value) === Object.prototype ? 'object' : 'other';
  return [kind, Object.keys(value).map((key) => [key, shape((value as Record<string, unknown>)[key])])];
}

function same(input: string, options: ExtendedParseOptions): void {
  let expected: unknown;
  try {
    expected = qs.parse(input, options as qs.IParseOptions);
  } catch (err) {
    assert.throws(() => parseExtended(input, options), { message: (err as Error).message }, input);
    return;
  }
  assert.deepStrictEqual(shape(parseExtended(input, options)), shape(expected), input);
}

const hex = (byte: number, upper: boolean) => {
  const text = byte.toString(16).padStart(2, '0');
  return '%' + (upper ? text.toUpperCase() : text);
};

describe('parseExtended fast paths: the same answers as qs', () => {
  it('decodes every ASCII escape, in both cases, beside + and plain text', () => {
    for (let byte = 0; byte < 0x80; byte++) {
      for (const upper of [true, false]) {
        const escape = hex(byte, upper);
        same(`k${escape}=a+${escape}b&${escape}+x=${escape}${escape}+`, OPTION_SETS[0]);
      }
    }
  });

  it('keeps strings with malformed escapes, and decodes UTF-8 escapes, next to ASCII ones', () => {
    const values = [
      '%21%zz',
      '%21%',
      '%21%2',
      'a+%21+%C3%A9',
      '%41%80',
      '%7E%E2%9C%93+',
      '%2B+%2b',
      '%g1%21',
      '%21+%c3',
    ];
    for (const value of values) same(`key%21+=${value}&${value}=x`, OPTION_SETS[0]);
  });

  it('reads short and long parts alike: the one-pass scan, the searched long part, the decoder of long strings', () => {
    // Parts and keys around the lengths where the parser changes method (128 characters
    // for a part, 32 and 256 for a string to decode), each holding what decides its split and
    // its decoding at the start, the middle or the end.
    const specials = ['=', ']=', '[', ']', '%21', '+', '%zz', '%E2%9C%93', '%5B', '%5D', 'a[b]=', '[]='];
    const random = prng(0x5ca9);
    const filler = (length: number) => 'x'.repeat(Math.max(0, length));
    for (let i = 0; i < 3000; i++) {
      const count = 1 + Math.floor(random() * 3);
      const parts: string[] = [];
      for (let j = 0; j < count; j++) {
        const targets = [8, 30, 31, 32, 33, 34, 126, 127, 128, 129, 130, 255, 256, 257, 258, 260];
        const target = targets[Math.floor(random() * targets.length)]!;
        const pieces = 1 + Math.floor(random() * 3);
        let part = '';
        for (let k = 0; k < pieces; k++) {
          part += filler(Math.floor((random() * target) / pieces));
          part += specials[Math.floor(random() * specials.length)];
        }
        parts.push(part + filler(target - part.length));
      }
      const input = parts.join('&');
      for (const options of OPTION_SETS) same(input, options);
    }
  });

  it('decodes a long value of escapes in one native pass, not escape by escape (hostile bodies)', () => {
    // A value of a million ASCII escapes, decoded escape by escape into a growing string,
    // took 6 to 10 times Express's time: a long string is handed to decodeURIComponent
    // whole, one call, whatever its escapes.
    const native = globalThis.decodeURIComponent;
    for (const unit of ['%2F', 'x%20', 'a+b%40c.']) {
      const input = 'a=' + unit.repeat(20_000);
      const expected = qs.parse(input).a;
      let calls = 0;
      globalThis.decodeURIComponent = (text: string) => {
        calls++;
        return native(text);
      };
      try {
        assert.equal(parseExtended(input, {}).a, expected, unit);
      } finally {
        globalThis.decodeURIComponent = native;
      }
      assert.equal(calls, 1, `${unit}: decodeURIComponent calls`);
    }
  });

  it('orders flat and nested keys as qs does, whichever comes first', () => {
    const keys = ['a', 'b', '0', '7', '4294967295', 'a[b]', 'a[0]', 'a[]', '[a]', '[0]', 'b[c][d]', '0[a]', ''];
    const skipped = ['__proto__', 'toString', '__proto__[x]', 'a[__proto__]', 'hasOwnProperty'];
    const values = ['', 'x', '1', 'a+b%21'];
    const random = prng(0xf1a7);
    for (let i = 0; i < 2500; i++) {
      const count = 1 + Math.floor(random() * 7);
      const parts: string[] = [];
      for (let j = 0; j < count; j++) {
        const pool = random() < 0.15 ? skipped : keys;
        const key = pool[Math.floor(random() * pool.length)];
        parts.push(random() < 0.1 ? key : `${key}=${values[Math.floor(random() * values.length)]}`);
      }
      const input = parts.join('&');
      for (const options of OPTION_SETS) same(input, options);
    }
  });

  it('returns the flat keys in insertion order, index-like keys first', () => {
    same('z=1&10=a&y=2&2=b&z=3&x=%21', OPTION_SETS[1]);
    same('z=1&a[b]=2&10=a&y=2&a=3&2=b', OPTION_SETS[1]);
    assert.deepEqual(Object.keys(parseExtended('z=1&10=a&y=2&2=b', OPTION_SETS[1])), ['2', '10', 'z', 'y']);
  });
});
