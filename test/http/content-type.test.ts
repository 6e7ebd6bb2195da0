import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatMediaType, parseMediaType, setCharset } from '../../src/http/content-type';

const reference = require('content-type');

const HEADERS = [
  'text/html',
  'TEXT/HTML; Charset=UTF-8',
  'application/json ; charset=utf-8',
  'text/plain; charset="utf-8"',
  'text/plain; foo="bar\\"baz"',
  'text/plain;charset=utf-8;format=flowed',
  'image/svg+xml',
  'text/html; charset=utf-8; ',
  'text/html;',
  'text',
  'text/',
  '/html',
  'text/html; charset',
  'text/html; charset=',
  'text/html; charset=a b',
  'text/plain; a="\u00e9"',
  ' text/plain ',
];

function outcome(fn: () => unknown): unknown {
  try {
    const value = fn() as { type?: string; parameters?: object };
    return value && typeof value === 'object' ? { type: value.type, parameters: { ...value.parameters } } : value;
  } catch (err) {
    return 'throws ' + (err as Error).message;
  }
}

describe('media types', () => {
  it('parses as the content-type package does, errors included', () => {
    for (const header of HEADERS)
      assert.deepEqual(
        outcome(() => parseMediaType(header)),
        outcome(() => reference.parse(header)),
        header,
      );
  });
  it('formats as the content-type package does', () => {
    const cases = [
      { type: 'text/html' },
      { type: 'text/html', parameters: { charset: 'utf-8', a: 'b c' } },
      { type: 'text/html', parameters: { q: 'a"b\\' } },
      { type: 'bad type' },
      { type: 'text/html', parameters: { 'bad name': 'x' } },
      { type: 'text/html', parameters: { x: '\u0100' } },
    ];
    for (const c of cases)
      assert.deepEqual(
        outcome(() => formatMediaType(c)),
        outcome(() => reference.format(c)),
        JSON.stringify(c),
      );
  });
  it('sets the charset parameter', () => {
    assert.equal(setCharset('text/html', 'utf-8'), 'text/html; charset=utf-8');
    assert.equal(setCharset('text/html; charset=latin1; a=b', 'utf-8'), 'text/html; a=b; charset=utf-8');
    assert.throws(() => setCharset('nonsense', 'utf-8'), /invalid media type/);
  });
});
