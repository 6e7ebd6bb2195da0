/**
 * webapp/v3's own readings of what Express 3.21 read with its `utils`: Accept-style
 * headers (`parseParams`, `parseAccept`), offers (`normalizeType`, `accepts`), route
 * patterns (`pathRegexp`) and the ETag setting (`compileETag`), against express@3's
 * utils, called with seeded inputs built from the pieces their grammars are made of.
 * The HTTP-level tests of test/v3/ reach them through requests; here thousands of odd
 * values a run go straight in.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import { acceptsTypes, normalizeType, parseAccept, parseParams } from '../../src/v3/accepts';
import { compileETag3 } from '../../src/v3/etag';
import { compilePath3, type PathKey3 } from '../../src/v3/path';
import { assertSameCalls, made } from '../support/generated-calls';
import { chance, pick, prng, type Random } from '../support/prng';

const utils = require('express3/lib/utils') as {
  parseParams(header: string): unknown;
  parseAccept(header: string): unknown;
  normalizeType(offer: string): unknown;
  accepts(types: string | string[], header: string | undefined): unknown;
  pathRegexp(path: unknown, keys: PathKey3[], sensitive?: boolean, strict?: boolean): RegExp;
  compileETag(value: unknown): ((body: string | Buffer, encoding?: BufferEncoding) => string) | undefined;
};

// inspect, not isDeepStrictEqual: an entry's NaN quality reads the same on both sides.
const render = (value: unknown) => inspect(value, { depth: 8 });

function compare<T>(
  seed: number,
  cases: number,
  input: (random: Random) => T,
  ours: (input: T) => unknown,
  theirs: (input: T) => unknown,
): void {
  assertSameCalls(seed, cases, input, { names: ['webapp', 'express3'], render, ours, theirs });
}

const ACCEPT = [
  'text/html',
  'application/json',
  'text/*',
  '*/*',
  '*',
  'image/png',
  'TEXT/HTML',
  ',',
  ', ',
  ' ,',
  '  ',
  ';',
  '; ',
  ' ;',
  'q=0',
  'q=1',
  'q=0.5',
  'q = 0.8',
  'q=1.0001',
  'q=-1',
  'q=abc',
  'q=',
  'level=1',
  'level = 2',
  'charset=utf-8',
  '=',
  'constructor',
  'toString=1',
  '/',
  'x-custom/y',
];

describe('generated helper inputs: webapp/v3 against express@3 utils', () => {
  it('Accept-style headers: parseParams and parseAccept', () => {
    const header = (random: Random) => made(random, ACCEPT, 1 + Math.floor(random() * 8));
    compare(
      1,
      4000,
      header,
      (h) => parseParams(h),
      (h) => utils.parseParams(h),
    );
    compare(
      2,
      4000,
      header,
      (h) => parseAccept(h),
      (h) => utils.parseAccept(h),
    );
  });

  const OFFERS = [
    'html',
    'json',
    'text',
    'png',
    'text/html',
    'application/json',
    'text/html;level=1',
    'json;x',
    ' html',
    'html ',
    'text/*',
    'TEXT/HTML',
    'bin',
    'constructor',
    'x/y;toString',
    '',
  ];

  it('offers: normalizeType, and accepts with a list string, an array, and no Accept header', () => {
    // Without originalIndex, which 3.21 left undefined here and nothing reads.
    const typeOnly = (type: unknown) => {
      const { value, params } = type as { value: unknown; params: unknown };
      return { value, params };
    };
    compare(
      3,
      3000,
      (random) => pick(random, OFFERS) + (chance(random, 0.2) ? pick(random, OFFERS) : ''),
      (offer) => typeOnly(normalizeType(offer)),
      (offer) => typeOnly(utils.normalizeType(offer)),
    );
    compare(
      4,
      4000,
      (random) => {
        const offers = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(random, OFFERS));
        return {
          types: chance(random, 0.4) ? offers.join(pick(random, [',', ', ', ' , ', ' ,'])) : offers,
          header: chance(random, 0.1) ? undefined : made(random, ACCEPT, 1 + Math.floor(random() * 8)),
        };
      },
      ({ types, header }) => acceptsTypes(types, header),
      ({ types, header }) => utils.accepts(types, header),
    );
  });

  it('route patterns: the expression and keys of pathRegexp, or (a parameter after literal text) its matches', () => {
    const PIECES = [
      '/',
      'user',
      'a',
      'b-c',
      ':id',
      ':name',
      ':id?',
      ':file.:ext',
      '.:format',
      '.:format?',
      ':rest*',
      '*',
      '(\\d+)',
      ':n(\\d+)',
      '/(',
      ')',
      '-',
      ':from-:to',
      '~',
      '+',
      'x?',
    ];
    const PATHS = [
      '/',
      '/user',
      '/user/',
      '/a',
      '/user/1',
      '/user/1/',
      '/a/b-c',
      '/b-c/1',
      '/f.txt',
      '/a/f.tar.gz',
      '/1-2',
      '/x-y-z',
      '/12',
      '/user/12/edit',
      '/A/B-C',
      '/a/b/c/d',
      '/-',
      '/~',
      '/.json',
    ];
    const random = prng(5);
    let sameSource = 0;
    for (let n = 0; n < 3000; n++) {
      const pattern = (chance(random, 0.9) ? '/' : '') + made(random, PIECES, 1 + Math.floor(random() * 5));
      const sensitive = chance(random, 0.5);
      const strict = chance(random, 0.5);
      const keys: PathKey3[] = [];
      const theirKeys: PathKey3[] = [];
      let theirs: RegExp;
      try {
        theirs = utils.pathRegexp(pattern, theirKeys, sensitive, strict);
      } catch {
        assert.throws(() => compilePath3(pattern, [], sensitive, strict), SyntaxError, pattern);
        continue;
      }
      const ours = compilePath3(pattern, keys, sensitive, strict);
      const label = `${inspect(pattern)} sensitive=${sensitive} strict=${strict}`;
      assert.deepEqual(keys, theirKeys, label);
      assert.equal(ours.flags, theirs.flags, label);
      if (ours.source === theirs.source) {
        sameSource++;
        continue;
      }
      // The one difference by design (src/v3/path.ts): a parameter after literal text in
      // its segment may not contain that text. Where 3.x's captures hold no such text,
      // the answers are the same.
      assert.match(pattern, /[^/.(]:\w/, `${label}: only parameters after literal text compile otherwise`);
      // A `+` after a parameter repeats its group: 3.x's repetitions could take the
      // literal text between them, which the capture that may not contain it cannot.
      if (/:\w+\+/.test(pattern)) continue;
      for (const path of PATHS) {
        const expected = theirs.exec(path);
        const mine = ours.exec(path);
        if (expected && expected.slice(1).some((capture) => capture !== undefined && /[^\w]/.test(capture))) continue;
        assert.deepEqual(mine && [...mine], expected && [...expected], `${label} on ${path}`);
      }
    }
    assert.ok(sameSource > 1500, `most patterns compile to 3.x's own expression (${sameSource})`);
  });

  it('the etag setting: compileETag, and the tags of its functions', () => {
    const VALUES = [true, false, 'strong', 'weak', 'Strong', '', 0, 1, null, undefined, 'true'];
    const BODIES = ['', 'hello', 'caf\u00e9', Buffer.from('bytes'), Buffer.alloc(0), 'x'.repeat(1000)];
    compare(
      6,
      500,
      (random) => ({ value: pick(random, VALUES), body: pick(random, BODIES) }),
      ({ value, body }) => {
        const fn = compileETag3(value);
        return fn && fn(body, 'utf8');
      },
      ({ value, body }) => {
        const fn = utils.compileETag(value);
        return fn && fn(body, 'utf8');
      },
    );
  });
});
