import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCookieHeader } from '../../src/http/cookie-header';

// The rules to keep: those of the `cookie` package's parse, which cookie-parser uses.
const reference: {
  parse(header: string, options?: { decode?: (v: string) => string }): Record<string, string>;
} = require('cookie');

/** The reference's pairs, without `__proto__` (which parseCookieHeader drops). */
function expected(header: string, decode?: (v: string) => string): Record<string, string> {
  const parsed = reference.parse(header, decode && { decode });
  return Object.fromEntries(Object.entries(parsed).filter(([name]) => name !== '__proto__'));
}

/** parseCookieHeader's own pairs, after checking that the object inherits nothing. */
function parsed(header: string, decode?: (v: string) => string): Record<string, string> {
  const cookies = parseCookieHeader(header, decode);
  for (let proto = Object.getPrototypeOf(cookies); proto !== null; proto = Object.getPrototypeOf(proto))
    assert.deepEqual(Reflect.ownKeys(proto), [], 'nothing is inherited');
  assert.equal('constructor' in cookies, Object.prototype.hasOwnProperty.call(cookies, 'constructor'));
  return Object.fromEntries(Object.entries(cookies));
}

/** A deterministic stream of numbers in [0, 1), so a failure can be replayed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe('parseCookieHeader', () => {
  it('reads the headers browsers send', () => {
    assert.deepEqual(parsed('session=abc123; theme=dark; lang=en-GB'), {
      session: 'abc123',
      theme: 'dark',
      lang: 'en-GB',
    });
    assert.equal(Object.getPrototypeOf(Object.getPrototypeOf(parseCookieHeader('a=1'))), null);
  });

  it('answers as the cookie package does for odd headers', () => {
    const headers = [
      '',
      '=',
      'a',
      'a=',
      '=b',
      ' a = b ; c=d',
      '\ta\t=\t"quoted"\t',
      'a="',
      'a=""',
      'a="x',
      'a=1; a=2',
      'a; b=2',
      'a;b;c=3',
      'x=y;z',
      ';;a=1;;',
      'pct=%E0%A4%A',
      'pct=%41%42; sp=a%20b',
      'json=j:{"a":1}',
      '__proto__=1; constructor=2; toString=3',
      '__proto__=x; a=1',
      'a=b=c',
      'ünï=cødé',
      'a=1;',
      ' ; a=1',
    ];
    for (const header of headers) assert.deepEqual(parsed(header), expected(header), header);
  });

  it('answers as the cookie package does for 20,000 generated headers', () => {
    const random = seeded(7);
    const alphabet = ['a', 'b', '=', ';', ' ', '\t', '"', '%', '4', '1', 'E', 'ü', '_', 'j', ':'];
    for (let n = 0; n < 20000; n++) {
      let header = '';
      const length = Math.floor(random() * 24);
      for (let i = 0; i < length; i++) header += alphabet[Math.floor(random() * alphabet.length)];
      assert.deepEqual(parsed(header), expected(header), JSON.stringify(header));
    }
  });

  it('uses a custom decoder, and keeps the raw value when it throws', () => {
    const upper = (value: string) => {
      if (value === 'bad') throw new Error('no');
      return value.toUpperCase();
    };
    for (const header of ['a=x; b=bad; c=%41', 'a=1; a=2'])
      assert.deepEqual(parsed(header, upper), expected(header, upper), header);
  });
});
