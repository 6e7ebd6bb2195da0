import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pathToRegexp = require('path-to-regexp');
import { compilePattern, startsWith, type PathPattern } from '../../src/router/path-pattern';
import { chance, pick, prng } from '../support/prng';

/** Every pattern form of Express 4's syntax, literal and not. */
const PATTERNS: PathPattern[] = [
  '/',
  '',
  '*',
  '/foo',
  '/foo/',
  '/Foo',
  '/foo/bar',
  '/foo.json',
  '/a-b_c~d',
  '/%C3%A9',
  '/foo/*',
  '/*',
  '/foo*',
  '/:id',
  '/:id?',
  '/users/:id',
  '/users/:id?',
  '/users/:id/edit',
  '/users/:id.:format',
  '/users/:id.:format?',
  '/:a-:b',
  '/:a-:b-:c',
  '/file/:name(\\d+)',
  '/ab?cd',
  '/ab+cd',
  '/ab*cd',
  '/ab(cd)?e',
  '/user/:id/*',
  '/route999/:id',
  '/a/:b?c',
  '/x/.:y',
  '/x/.:y?',
  '/:foo/:bar',
  '/users/:id/posts/:postId',
  '/Users/:id/Edit',
  '/v1.2/:id',
  '/users/:id/',
  '/:a/:b/:c',
  '/a/:b/c',
  '/a/(b)',
  '/a|b',
  '/ä',
  '/books/:id([0-9]+)?',
  /^\/re(\d+)$/,
  /\/abc|\/xyz/,
  ['/one', '/two/:id'],
  ['/:x', /^\/y\/(.*)/],
];

const PATHS = [
  '',
  '/',
  '//',
  '/foo',
  '/foo/',
  '/foo//',
  '/FOO',
  '/Foo',
  // A mount path matched in another case than the pattern's, before more of the path.
  '/FOO/bar',
  '/Foo//x',
  '/foo/bar',
  '/foo/bar/',
  '/foobar',
  '/foo.json',
  '/foo/json',
  '/fooXjson',
  '/a-b_c~d',
  '/%C3%A9',
  '/%c3%a9',
  '/foo/anything/here',
  '/x',
  '/users',
  '/users/',
  '/users/42',
  '/Users/42',
  '/users/42/',
  '/users/42/edit',
  '/users/42.json',
  '/users/42.json/',
  '/users/a%20b',
  '/1-2',
  '/1-2-3',
  '/a-b-c-d',
  '/file/123',
  '/file/abc',
  '/abcd',
  '/acd',
  '/abbbcd',
  '/abXYZcd',
  '/abe',
  '/abcde',
  '/user/7/x/y',
  '/route999/5',
  '/route999',
  '/route9990/5',
  '/a/c',
  '/ac',
  '/a/xc',
  '/x/.5',
  '/x/',
  '/x',
  '/a/b',
  '/a',
  '/b',
  '/ä',
  '/Ä',
  '/books/',
  '/books/12',
  '/re12',
  '/re',
  '/abc',
  '/xyz/1',
  '/one',
  '/two/3',
  '/y/z',
  '/users/42/posts/7',
  '/users/42/posts/7/',
  '/users/42/posts/7//',
  '/users//posts/7',
  '/users/42/Posts/7',
  '/USERS/42/EDIT',
  '/users/42//',
  '/users/42/x/',
  '/users/\n',
  '/users/4\u212a2',
  '/v1.2/5',
  '/v1x2/5',
  '/a/1/c',
  '/a/1/C/',
  '/a//c',
  '/a/1/cc',
  '/1/2/3',
  '/1/2/3/',
  '/1/2/3//',
  '/1/2/3/4',
  '/K',
  '/\u212a',
  '/foo\u212a',
];

const OPTIONS = [
  { end: true, strict: false, sensitive: false },
  { end: true, strict: true, sensitive: false },
  { end: true, strict: false, sensitive: true },
  { end: true, strict: true, sensitive: true },
  { end: false, strict: false, sensitive: false },
  { end: false, strict: false, sensitive: true },
  // Routers mount with strict off; the pattern compiler still answers as path-to-regexp for strict mounts.
  { end: false, strict: true, sensitive: false },
  { end: false, strict: true, sensitive: true },
];

describe('compilePattern', () => {
  it('matches exactly what path-to-regexp 0.1 matches, for every pattern, path and option', () => {
    let compared = 0;
    for (const pattern of PATTERNS) {
      for (const options of OPTIONS) {
        const reference = pathToRegexp(pattern, [], options);
        const compiled = compilePattern(pattern, options);
        assert.equal(compiled.regexp.source, reference.source, `regexp of ${String(pattern)}`);
        assert.equal(compiled.regexp.flags, reference.flags, `flags of ${String(pattern)}`);
        for (const path of PATHS) {
          const want = reference.exec(path);
          const got = compiled.exec(path);
          const label = `${String(pattern)} ${JSON.stringify(options)} on ${JSON.stringify(path)}`;
          if (want === null) assert.equal(got, undefined, label);
          else assert.deepEqual(got && Array.from(got), Array.from(want), label);
          compared++;
        }
      }
    }
    assert.ok(compared > 10000);
  });

  it('matches patterns of literal segments and parameters as path-to-regexp does, on random paths', () => {
    // Seeded, so that a failure repeats: segments from a small alphabet (letters in both
    // cases, the Kelvin sign, a dot, a percent escape), empty ones, and trailing slashes.
    let seed = 20261129;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pick = <T>(list: readonly T[]) => list[random(list.length)];
    const words = ['a', 'A', 'ab', 'users', 'Users', 'v1.2', '%41', 'x-y'];
    const pathWords = [...words, '', '42', '\u212a', 'users.json', 'aB'];
    let compared = 0;
    for (let p = 0; p < 200; p++) {
      // Parameter names must differ within a pattern: numbered by position.
      const segments = Array.from({ length: 1 + random(4) }, (_, i) => (random(2) === 0 ? ':k' + i : pick(words)));
      const pattern = '/' + segments.join('/');
      for (const options of OPTIONS) {
        const reference = pathToRegexp(pattern, [], options);
        const compiled = compilePattern(pattern, options);
        for (let q = 0; q < 25; q++) {
          const parts = Array.from({ length: random(6) }, () => pick(pathWords));
          const path = '/' + parts.join('/') + pick(['', '', '/', '//']);
          const want = reference.exec(path);
          const got = compiled.exec(path);
          const label = `${pattern} ${JSON.stringify(options)} on ${JSON.stringify(path)}`;
          if (want === null) assert.equal(got, undefined, label);
          else assert.deepEqual(got && Array.from(got), Array.from(want), label);
          if (want !== null) compared++;
        }
      }
    }
    // Enough of the random paths match for the comparison to say something.
    assert.ok(compared > 500, `${compared} matches`);
  });

  it("builds path-to-regexp's expression and keys for random patterns of text and /:params", () => {
    // These are built without path-to-regexp (it is loaded only for other patterns).
    // Seeded: pieces that path-to-regexp treats alike or apart (dots it escapes, slashes,
    // names with digits and underscores, a parameter followed by text or another).
    const random = prng(20261130);
    const pieces = [
      '/',
      '//',
      '.',
      'a',
      'Users',
      '-',
      '~',
      '%2F',
      ' ',
      '\u00e9',
      '\u212a',
      '.json',
      '@',
      ',',
      ';',
      '=',
    ];
    const names = ['id', 'x', 'user_id', 'k9', '_', 'ID'];
    const paramCount = (pattern: string) => (pattern.match(/\/:/g) ?? []).length;
    let built = 0;
    let dotted = 0;
    for (let p = 0; p < 400; p++) {
      let pattern = '';
      for (let n = Math.floor(random() * 7); n >= 0; n--) {
        pattern += chance(random, 0.3) ? `/:${pick(random, names)}${n}` : pick(random, pieces);
      }
      for (const options of OPTIONS) {
        const keys: pathToRegexp.Key[] = [];
        const reference = pathToRegexp(pattern, keys, options);
        const compiled = compilePattern(pattern, options);
        const label = `${JSON.stringify(pattern)} ${JSON.stringify(options)}`;
        assert.equal(compiled.regexp.source, reference.source, label);
        assert.equal(compiled.regexp.flags, reference.flags, label);
        assert.deepEqual(compiled.keys, keys, label);
        built += paramCount(pattern) > 0 ? 1 : 0;
        dotted += pattern.includes('.') ? 1 : 0;
      }
    }
    assert.ok(built > 1000 && dotted > 500, `${built} patterns with parameters, ${dotted} with dots`);
  });

  it('keeps the keys path-to-regexp reports (named, optional, numbered)', () => {
    assert.deepEqual(
      compilePattern('/users/:id/:op?', { end: true }).keys.map((k) => [k.name, k.optional]),
      [
        ['id', false],
        ['op', true],
      ],
    );
    const reference: pathToRegexp.Key[] = [];
    pathToRegexp('/a/(\\d+)/:x/*', reference, { end: true });
    assert.deepEqual(compilePattern('/a/(\\d+)/:x/*', { end: true }).keys, reference);
    assert.deepEqual(
      compilePattern(/^\/re(\d+)-(?<x>\w)$/, { end: true }).keys.map((k) => k.name),
      [0, 'x'],
    );
  });

  it('flags fast paths as Express does (ecosystem code reads them)', () => {
    assert.equal(compilePattern('/', { end: false }).regexp.fast_slash, true);
    assert.equal(compilePattern('/', { end: true }).regexp.fast_slash, false);
    assert.equal(compilePattern('*', { end: true }).regexp.fast_star, true);
  });

  it("matches with a RegExp of its own, not the one carrying Express's fast_* flags", () => {
    // V8 runs exec on its fast path only for a RegExp without added properties.
    const compiled = compilePattern('/users/:id(\\d+)', { end: true });
    const regexp = compiled.regexp;
    const exec = RegExp.prototype.exec;
    let onFlagged = 0;
    RegExp.prototype.exec = function (this: RegExp, input: string) {
      if (this === regexp) onFlagged++;
      return exec.call(this, input);
    };
    try {
      assert.deepEqual([...compiled.exec('/users/42')!], ['/users/42', '42']);
      assert.equal(compiled.exec('/users'), undefined);
    } finally {
      RegExp.prototype.exec = exec;
    }
    assert.equal(onFlagged, 0);
    assert.equal(Object.getOwnPropertyNames(regexp).includes('fast_slash'), true);
  });

  it("runs an app's RegExp with an exec of its own, or of a subclass, itself", () => {
    class Prefixed extends RegExp {
      override exec(input: string) {
        return super.exec(input.replace(/^\/v\d+/, ''));
      }
    }
    const own = /^\/x$/;
    own.exec = (input: string) => RegExp.prototype.exec.call(/^\/y$/, input);
    assert.deepEqual([...compilePattern(new Prefixed('^/items$'), { end: true }).exec('/v2/items')!], ['/items']);
    assert.deepEqual([...compilePattern(own, { end: true }).exec('/y')!], ['/y']);
    assert.equal(compilePattern(own, { end: true }).exec('/x'), undefined);
  });

  it("runs an app's global or sticky RegExp itself: its lastIndex moves as in Express", () => {
    for (const flags of ['g', 'y']) {
      const regexp = new RegExp('^/abc', flags);
      const compiled = compilePattern(regexp, { end: true });
      assert.equal(compiled.regexp, regexp);
      const answers = [1, 2, 3].map(() => compiled.exec('/abc') !== undefined);
      assert.deepEqual(answers, [true, false, true], flags);
    }
  });

  it('exposes the literal first segment only when every match starts with it', () => {
    const key = (p: PathPattern, end = true) => compilePattern(p, { end }).segmentKey;
    assert.equal(key('/Users/:id'), 'users');
    assert.equal(key('/users'), 'users');
    assert.equal(key('/users', false), 'users');
    assert.equal(key('/users/:id?'), undefined, 'an optional parameter absorbs the slash before it');
    assert.equal(key('/a/:b?c'), undefined);
    assert.equal(key('/:id'), undefined);
    assert.equal(key('/ab?cd'), undefined);
    assert.equal(key(/^\/x/), undefined);
    assert.equal(key('/'), undefined);
    assert.equal(key('/ä/x'), undefined);
  });

  it('does not hang on patterns that once caused catastrophic backtracking', () => {
    const compiled = compilePattern('/:a-:b-:c', { end: true });
    const hostile = '/' + '-'.repeat(3000) + 'x';
    const started = process.hrtime.bigint();
    compiled.exec(hostile);
    // Generous bound: a ReDoS takes minutes here, a linear scan microseconds.
    assert.ok(process.hrtime.bigint() - started < 2_000_000_000n);
  });

  it('compiles a pattern with a long parameter name in one pass', () => {
    // Refused as a plain pattern (a ':' follows the name) and compiled by path-to-regexp;
    // telling it apart took time quadratic in the name's length (about 30 s for this one).
    const pattern = '/:' + 'a'.repeat(100_000) + ':b';
    const started = process.hrtime.bigint();
    const compiled = compilePattern(pattern, { end: true });
    assert.ok(process.hrtime.bigint() - started < 2_000_000_000n);
    assert.equal(compiled.regexp.source, pathToRegexp(pattern, [], { end: true }).source);
  });
});

describe('startsWith', () => {
  it('folds ASCII letters only, as a RegExp with the i flag does', () => {
    assert.equal(startsWith('/FOO/bar', '/foo', false), true);
    assert.equal(startsWith('/FOO/bar', '/foo', true), false);
    assert.equal(startsWith('/\u212a', '/k', false), false, 'the Kelvin sign is not a k');
    assert.equal(startsWith('/fo', '/foo', false), false);
  });
});
