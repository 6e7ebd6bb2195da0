/**
 * The 3.x world's extended parsing (src/querystring/qs4.ts) against qs 4.0.0 called
 * directly: webapp/v3's `req.query` and webapp/middleware's `query()` against Connect
 * 2.30's `query()` options, extended urlencoded bodies against body-parser 1.13's.
 * Seeded inputs (qs4-generator.ts); what is left out of the comparison is webapp's
 * safe answer where qs 4 was unsafe, and is asserted safe instead.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QS4_DEFAULTS, parseQs4, type Qs4Options } from '../../src/querystring/qs4';
import { parseExtended } from '../../src/querystring';
import { prng } from '../support/prng';
import {
  CONNECT_QUERY_OPTIONS,
  assertPlain,
  bodyParserOptions,
  comparable,
  formBody,
  nestsDeeperThan,
  qs4,
  queryString,
  shadowsWithValue,
  withoutPrototypeKeys,
} from './qs4-generator';

const CASES = 4000;
const withoutPrototypes: Qs4Options = { ...QS4_DEFAULTS, allowPrototypes: false };

/** body-parser 1.13's options as webapp/middleware's urlencoded passes them. */
function bodyOptions(body: string): Qs4Options {
  const arrayLimit = Math.max(100, body.split('&').length - 1);
  return { allowPrototypes: true, arrayLimit, depth: 32, parameterLimit: 1000, strictDepth: true };
}

/** Compares every case that is not left out; returns how many were compared. */
function compareAll(
  seed: number,
  make: (random: () => number) => string,
  ours: (input: string) => unknown,
  theirs: (input: string) => { input: string; answer: unknown } | undefined,
): number {
  const random = prng(seed);
  let compared = 0;
  for (let i = 0; i < CASES; i++) {
    const input = make(random);
    const answer = ours(input);
    assertPlain(answer, input);
    const oracle = theirs(input);
    if (oracle === undefined || shadowsWithValue(oracle.input, oracle.answer)) continue;
    assert.deepStrictEqual(comparable(answer), comparable(oracle.answer), input);
    compared++;
  }
  assert.equal(({} as Record<string, unknown>).b, undefined, 'Object.prototype polluted');
  return compared;
}

describe('qs 4 dialect (3.x query strings and form bodies)', () => {
  it('the differences a differential found are gone', () => {
    const table: Array<[string, unknown]> = [
      ['a=1&a', { a: '' }],
      ['a&a=1', { a: ['', '1'] }],
      ['a[]=1&a[]', { a: [''] }],
      ['a=x+y%zz', { a: 'x+y%zz' }],
      ['x+y%zz=1', { 'x+y%zz': '1' }],
      ['b=;a%5Bb%5D=1', { b: ';a[b]=1' }],
      ['a%5Bb%5D=1', { a: { b: '1' } }],
      ['a%5Bb%5D%zz=1', { 'a%5Bb%5D%zz': '1' }],
      ['a[b]=2&a=1', { a: { 1: true, b: '2' } }],
      ['a]=1', { a: '1' }],
      ['a[=1', { a: '1' }],
      ['[[[=1', { 1: true }],
      ['%5B=1', { 1: true }],
      ['a[b[c]]=1', { a: { c: '1' } }],
    ];
    for (const [input, expected] of table) {
      assert.deepStrictEqual(parseQs4(input), expected, input);
      assert.deepStrictEqual(comparable(qs4.parse(input, { ...CONNECT_QUERY_OPTIONS })), comparable(expected), input);
    }
    // The 4.x parser (qs 6) still answers as qs 6 does.
    assert.deepStrictEqual(parseExtended('a=1&a'), { a: ['1', ''] });
    assert.deepStrictEqual(parseExtended('a=x+y%zz'), { a: 'x y%zz' });
    assert.deepStrictEqual(parseExtended('b=;a%5Bb%5D=1'), { 'b=;a': { b: '1' } });
  });

  it('arrays inside arrays keep their holes, values past arrayLimit keep an array, as in qs 4', () => {
    const many = Array.from({ length: 25 }, (_, i) => 'a=' + i).join('&');
    assert.equal((parseQs4(many).a as unknown[]).length, 25);
    // eslint-disable-next-line no-sparse-arrays
    assert.deepStrictEqual(parseQs4('a[0][2]=x'), { a: [[, , 'x']] });
    assert.deepStrictEqual(parseQs4('a[20]=x&a[21]=y'), { a: { 20: 'x', 21: 'y' } });
  });

  it('webapp/v3 req.query: the same as qs 4 with Connect 2.30 options', () => {
    const compared = compareAll(
      0x3a11,
      queryString,
      (input) => parseQs4(input),
      (input) => ({ input, answer: qs4.parse(input, { ...CONNECT_QUERY_OPTIONS }) }),
    );
    assert.ok(compared > CASES * 0.9, `only ${compared} compared`);
  });

  it('webapp/middleware query(): the same, except keys naming Object.prototype members (dropped)', () => {
    const compared = compareAll(
      0x3a12,
      queryString,
      (input) => {
        const answer = parseQs4(input, withoutPrototypes);
        for (const k of Object.keys(answer)) assert.ok(!Object.prototype.hasOwnProperty.call(Object.prototype, k), k);
        return answer;
      },
      (input) => {
        const kept = withoutPrototypeKeys(input);
        return { input: kept, answer: qs4.parse(kept, { ...CONNECT_QUERY_OPTIONS }) };
      },
    );
    assert.ok(compared > CASES * 0.9, `only ${compared} compared`);
  });

  it('extended urlencoded bodies: the same as qs 4 with body-parser 1.13 options, to a depth of 32', () => {
    const deep = 'a' + '[b]'.repeat(33) + '=1';
    assert.throws(() => parseQs4(deep, bodyOptions(deep)), RangeError);
    const compared = compareAll(
      0x3a13,
      (random) => (random() < 0.03 ? 'a' + '[b]'.repeat(30 + Math.floor(random() * 5)) + '=1' : formBody(random)),
      (input) => {
        if (nestsDeeperThan(input, 32)) {
          assert.throws(() => parseQs4(input, bodyOptions(input)), RangeError, input);
          return {};
        }
        return parseQs4(input, bodyOptions(input));
      },
      (input) =>
        nestsDeeperThan(input, 32) ? undefined : { input, answer: qs4.parse(input, bodyParserOptions(input)) },
    );
    assert.ok(compared > CASES * 0.85, `only ${compared} compared`);
  });

  it('the cases left out answer safely: no prototype replaced, no method shadowed by a value', () => {
    const input = 'a[__proto__][b]=1&a[c]=2&__proto__[b]=1&a=toString&x[y]=1&x=valueOf';
    for (const answer of [parseQs4(input), parseQs4(input, withoutPrototypes)]) {
      assertPlain(answer, input);
      assert.equal((answer.a as Record<string, unknown>).b, undefined);
      assert.equal(typeof (answer.x as Record<string, unknown>).valueOf, 'function');
    }
    assert.deepStrictEqual(parseQs4(input), { a: { c: '2' }, x: { y: '1' } });
    assert.equal(({} as Record<string, unknown>).b, undefined);
  });
});
