/**
 * parseExtended, rule by rule, with the answers qs gives for the options
 * Express 4 (`allowPrototypes`, `arrayLimit: 1000`) and body-parser
 * (`allowPrototypes`, `arrayLimit`, `depth`, `strictDepth`, `parameterLimit`) pass.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseExtended } from '../../src/querystring';

const express = { allowPrototypes: true, arrayLimit: 1000 };
const bodyParser = { allowPrototypes: true, arrayLimit: 100, depth: 32, strictDepth: true, parameterLimit: 1000 };
const plain = (input: string, options: object = express) => JSON.parse(JSON.stringify(parseExtended(input, options)));

describe('parseExtended', () => {
  it('returns a fresh plain object for an empty input', () => {
    const result = parseExtended('', express);
    assert.deepEqual(result, {});
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
  });

  it('nests bracket keys', () => {
    assert.deepEqual(plain('a[b][c]=1&a[b][d]=2'), { a: { b: { c: '1', d: '2' } } });
    assert.deepEqual(plain('a[b[c]]=1'), { a: { 'b[c]': '1' } });
  });

  it('builds arrays from [] and from indices, compacting gaps', () => {
    assert.deepEqual(plain('a[]=1&a[]=2'), { a: ['1', '2'] });
    assert.deepEqual(plain('a[1]=x&a[0]=y'), { a: ['y', 'x'] });
    assert.deepEqual(plain('a[5]=x'), { a: ['x'] });
    // Distinct keys merge by index: both land in the first element, as in qs.
    assert.deepEqual(plain('a[][b]=1&a[][c]=2'), { a: [{ b: '1', c: '2' }] });
    assert.deepEqual(plain('a[03]=x'), { a: { '03': 'x' } });
  });

  it('turns indices at or over arrayLimit into object keys', () => {
    assert.deepEqual(plain('a[1000]=x', express), { a: { 1000: 'x' } });
    assert.deepEqual(plain('a[999]=x', express), { a: ['x'] });
    assert.deepEqual(plain('a[2]=x', { arrayLimit: 2 }), { a: { 2: 'x' } });
  });

  it('keeps [] notation within arrayLimit too (CVE-2025-15284)', () => {
    assert.deepEqual(plain('a[]=1&a[]=2&a[]=3', { arrayLimit: 2 }), { a: { 0: '1', 1: '2', 2: '3' } });
    assert.deepEqual(plain('a[]=1&a[]=2', { arrayLimit: 2 }), { a: ['1', '2'] });
    assert.deepEqual(plain('a=1&a=2&a=3', { arrayLimit: 2 }), { a: { 0: '1', 1: '2', 2: '3' } });
  });

  it('keeps the remainder past depth as one literal key', () => {
    assert.deepEqual(plain('a[b][c][d]=1', { depth: 2 }), { a: { b: { c: { '[d]': '1' } } } });
    assert.deepEqual(plain('a[b][c]=1', { depth: 0 }), { 'a[b][c]': '1' });
    // An unterminated group is one literal segment.
    assert.deepEqual(plain('a[b=1'), { a: { '[b': '1' } });
  });

  it('throws a RangeError past depth under strictDepth, as body-parser relies on', () => {
    assert.throws(() => parseExtended('a[b][c][d]=1', { ...bodyParser, depth: 2 }), RangeError);
    assert.deepEqual(plain('a[b][c]=1', { ...bodyParser, depth: 2 }), { a: { b: { c: '1' } } });
  });

  it('stops at parameterLimit', () => {
    assert.deepEqual(plain('a=1&b=2&c=3', { parameterLimit: 2 }), { a: '1', b: '2' });
    assert.throws(
      () => parseExtended('a=1&b=2&c=3', { parameterLimit: 2, throwOnLimitExceeded: true }),
      /Parameter limit exceeded/,
    );
  });

  it('decodes + as space and percent-escapes, keeping malformed ones', () => {
    assert.deepEqual(plain('a=b+c%20d&%41=%E2%9C%93'), { a: 'b c d', A: '✓' });
    assert.deepEqual(plain('a=%zz+1&b=%E2%9C'), { a: '%zz 1', b: '%E2%9C' });
    assert.deepEqual(plain('a%5Bb%5D=1'), { a: { b: '1' } });
  });

  it('combines duplicate keys into arrays', () => {
    assert.deepEqual(plain('a=1&a=2&a=3'), { a: ['1', '2', '3'] });
    assert.deepEqual(plain('a[b]=1&a[b]=2'), { a: { b: ['1', '2'] } });
    assert.deepEqual(plain('a=1&a[b]=2'), { a: ['1', { b: '2' }] });
  });

  it('never pollutes a prototype with __proto__, constructor or prototype keys (CVE-2022-24999)', () => {
    const result = parseExtended(
      '__proto__[polluted]=1&a[__proto__][polluted]=1&a[__proto__]=x&constructor[prototype][polluted]=1',
      express,
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
    assert.equal(Object.getPrototypeOf(result.a), Object.prototype);
    assert.deepEqual(JSON.parse(JSON.stringify(result)), { a: {}, constructor: { prototype: { polluted: '1' } } });
    assert.deepEqual(plain('__proto__[a]=1&constructor=1', {}), {});
    const many = '__proto__[x]=1&'.repeat(2000) + 'a=1';
    assert.deepEqual(plain(many, { ...bodyParser, parameterLimit: Infinity }), { a: '1' });
  });

  it("visits index-like keys first, as qs's grouping object enumerates them", () => {
    assert.deepEqual(plain('[1]=x&1=y'), { 1: ['y', 'x'] });
    assert.deepEqual(plain('b[1]=x&b=y&10=z&2=w'), { 2: 'w', 10: 'z', b: ['x', 'y'] });
  });

  it('skips empty keys and keeps = inside values', () => {
    assert.deepEqual(plain('=1&&a=b=c&[]=x'), { a: 'b=c', 0: 'x' });
    assert.deepEqual(plain('a[=]=1'), { a: { '=': '1' } });
    assert.deepEqual(plain('a'), { a: '' });
  });

  it('splits on & only (; is data) and treats dots literally', () => {
    assert.deepEqual(plain('a=1;b=2&c.d=3'), { a: '1;b=2', 'c.d': '3' });
  });

  it('rejects a non-boolean throwOnLimitExceeded as qs does', () => {
    assert.throws(() => parseExtended('a=1', { throwOnLimitExceeded: 'yes' as unknown as boolean }), TypeError);
  });
});
