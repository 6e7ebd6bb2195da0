/**
 * `static` on express@4 (serve-static 1.16) and on webapp: the same apps, the same
 * raw requests, the same status, headers and body, for every option value and
 * error case.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestHandler } from 'express';
import { serveStatic } from '../../src/static/index';
import { assertSameResponses, type Framework, type RequestSpec } from '../support/differential';
import { staticApp as staticAppOn } from './apps';
import { createFixtures, FILE_TIME, type Fixtures } from './support';

let fx: Fixtures;
before(() => {
  fx = createFixtures();
});
after(() => fx.cleanup());

type StaticFactory = (root: string, options?: object) => RequestHandler;
const staticOf = (framework: Framework): StaticFactory => framework.static as StaticFactory;
const staticApp = (options?: object, mount?: string) => staticAppOn(() => fx.root, options, mount);

const get = (path: string, headers?: Record<string, string>): RequestSpec => ({ path, headers });
const head = (path: string, headers?: Record<string, string>): RequestSpec => ({ method: 'HEAD', path, headers });

const ETAG_TODO = 'W/"b-' + FILE_TIME.getTime().toString(16) + '"';
const MODIFIED = FILE_TIME.toUTCString();
const EARLIER = new Date(FILE_TIME.getTime() - 60_000).toUTCString();
const LATER = new Date(FILE_TIME.getTime() + 60_000).toUTCString();

/** Paths every option set is asked about. */
const BASIC_PATHS = [
  '/todo.txt',
  '/',
  '/users',
  '/users/',
  '/users?x=1&y=<b>',
  '/pets',
  '/pets/',
  '/nope',
  '/nope.txt',
  '/noext',
  '/.hidden',
  '/.secret/file.txt',
  '/sub/.dotfile',
  '/.secret',
  '/.secret/',
  '/foo%20bar.txt',
  '/%25%20of%20100.txt',
  '/snow%20%E2%98%83.txt',
  '/data.json',
  '/app.js',
  '/style.css',
  '/favicon.ico',
  '/images/pixel.png',
  '/empty.txt',
  '/tobi',
  '/page',
  '/dir.html',
  '/dir.html/',
  '/emptydir',
  '/emptydir/',
  '/todo.txt/',
  '/weird%3Cname%3E.txt',
  '/nested/deep/file.txt',
  '/nested',
  '/nested/deep',
  '//users',
  '///users',
  '/users//',
  '/./todo.txt',
  '/users/../todo.txt',
];

describe('static compatibility with express@4', () => {
  it('serves files, indexes and directory redirects with the default options', async () => {
    await assertSameResponses(staticApp(), [
      ...BASIC_PATHS.map((path) => get(path)),
      ...['/todo.txt', '/users/', '/users', '/nope', '/.hidden'].map((path) => head(path)),
      { method: 'POST', path: '/todo.txt' },
      { method: 'PUT', path: '/users' },
      { method: 'OPTIONS', path: '/' },
      { method: 'DELETE', path: '/nope' },
    ]);
  });

  it('escapes and encodes the redirect location (query kept, leading slashes collapsed)', async () => {
    await assertSameResponses(staticApp(), [
      get('/emptydir?<script>alert(1)</script>'),
      get('/emptydir?a="b"&c=\'d\''),
      get('/emptydir?%3Cx%3E'),
      get('//emptydir?x=1'),
      get('/emptydir#frag'),
      get('/users?'),
    ]);
    await assertSameResponses(staticApp(undefined, '/static'), [
      get('/static'),
      get('/static?x=1'),
      get('/static/'),
      get('/static/users'),
      get('/static/users/'),
      get('/static/todo.txt'),
      get('/static/nope'),
      get('/staticx'),
      get('/other'),
    ]);
  });

  it('rejects bad paths: undecodable, null bytes, traversal', async () => {
    await assertSameResponses(
      staticApp(),
      [
        '/%',
        '/%zz',
        '/%E0%A4%A',
        '/%00',
        '/todo.txt%00',
        '/todo.txt%00.html',
        '/../secret.txt',
        '/..%2fsecret.txt',
        '/%2e%2e/secret.txt',
        '/%2E%2e%2Fsecret.txt',
        '/..%5csecret.txt',
        '/users/..%2f..%2fsecret.txt',
        '/..',
        '/%2e%2e',
        '/users/%2e%2e/%2e%2e/secret.txt',
        '/%252e%252e/secret.txt',
        '/....//secret.txt',
        '/.%2e/secret.txt',
        '/' + 'a'.repeat(300),
        '/' + 'a'.repeat(300) + '/',
        '/' + 'ab/'.repeat(1500) + 'x.txt',
      ].map((path) => get(path)),
    );
    await assertSameResponses(
      staticApp({ fallthrough: false }),
      ['/%', '/%00', '/../secret.txt', '/%2e%2e/secret.txt', '/..%5c..%5csecret.txt', '/nope', '/.hidden'].map((path) =>
        get(path),
      ),
    );
  });

  it('answers conditional requests: 304 and 412', async () => {
    await assertSameResponses(staticApp(), [
      get('/todo.txt', { 'If-None-Match': ETAG_TODO }),
      get('/todo.txt', { 'If-None-Match': ETAG_TODO.slice(2) }),
      get('/todo.txt', { 'If-None-Match': '"other", ' + ETAG_TODO }),
      get('/todo.txt', { 'If-None-Match': '"other"' }),
      get('/todo.txt', { 'If-None-Match': '*' }),
      get('/todo.txt', { 'If-None-Match': ETAG_TODO, 'Cache-Control': 'no-cache' }),
      get('/todo.txt', { 'If-Modified-Since': MODIFIED }),
      get('/todo.txt', { 'If-Modified-Since': LATER }),
      get('/todo.txt', { 'If-Modified-Since': EARLIER }),
      get('/todo.txt', { 'If-Modified-Since': 'garbage' }),
      get('/todo.txt', { 'If-None-Match': '"other"', 'If-Modified-Since': LATER }),
      get('/todo.txt', { 'If-Match': ETAG_TODO }),
      get('/todo.txt', { 'If-Match': '"nope"' }),
      get('/todo.txt', { 'If-Match': '*' }),
      get('/todo.txt', { 'If-Match': ' "x" , ' + ETAG_TODO + ' ' }),
      get('/todo.txt', { 'If-Unmodified-Since': EARLIER }),
      get('/todo.txt', { 'If-Unmodified-Since': LATER }),
      get('/todo.txt', { 'If-Unmodified-Since': 'garbage' }),
      head('/todo.txt', { 'If-None-Match': ETAG_TODO }),
      get('/users/', { 'If-None-Match': 'W/"b-' + FILE_TIME.getTime().toString(16) + '"' }),
    ]);
    await assertSameResponses(staticApp({ etag: false }), [
      get('/todo.txt', { 'If-None-Match': ETAG_TODO }),
      get('/todo.txt', { 'If-Match': ETAG_TODO }),
    ]);
    await assertSameResponses(staticApp({ lastModified: false }), [
      get('/todo.txt', { 'If-Modified-Since': LATER }),
      get('/todo.txt', { 'If-Unmodified-Since': LATER }),
    ]);
  });

  it('answers ranges: 206, If-Range, 416 and what is ignored', async () => {
    const ranges = [
      'bytes=0-4',
      'bytes=-3',
      'bytes=5-',
      'bytes=0-0',
      'bytes=8-100',
      'bytes=100-200',
      'bytes=0-1,3-4',
      'bytes=0-1,1-2',
      'bytes=0-1,2-3',
      'items=0-1',
      'bytes=x',
      'bytes=',
      'bytes',
      ' bytes=1-2',
      'BYTES=1-2',
      'bytes=5-1',
      'bytes=-0',
      'bytes=0-',
      'bytes=1-2,100-200',
    ];
    await assertSameResponses(staticApp(), [
      ...ranges.map((range) => get('/nums.txt', { Range: range })),
      get('/empty.txt', { Range: 'bytes=0-' }),
      get('/empty.txt', { Range: 'bytes=-1' }),
      head('/nums.txt', { Range: 'bytes=2-3' }),
      get('/nums.txt', { Range: 'bytes=2-3', 'If-Range': 'W/"9-' + FILE_TIME.getTime().toString(16) + '"' }),
      get('/nums.txt', { Range: 'bytes=2-3', 'If-Range': '"nope"' }),
      get('/nums.txt', { Range: 'bytes=2-3', 'If-Range': MODIFIED }),
      get('/nums.txt', { Range: 'bytes=2-3', 'If-Range': EARLIER }),
      get('/nums.txt', { Range: 'bytes=2-3', 'If-Range': 'garbage' }),
      get('/nums.txt', { Range: 'bytes=100-', 'If-Range': EARLIER }),
      get('/nums.txt', { Range: 'bytes=0-1', 'If-None-Match': '"x"' }),
    ]);
    await assertSameResponses(staticApp({ acceptRanges: false }), [
      get('/nums.txt', { Range: 'bytes=0-4' }),
      get('/nums.txt', { Range: 'bytes=100-200' }),
    ]);
    await assertSameResponses(staticApp({ fallthrough: false }), [get('/nums.txt', { Range: 'bytes=100-200' })]);
  });

  for (const [label, options] of [
    ['dotfiles allow', { dotfiles: 'allow' }],
    ['dotfiles deny', { dotfiles: 'deny' }],
    ['dotfiles ignore', { dotfiles: 'ignore' }],
    ['dotfiles deny, fallthrough false', { dotfiles: 'deny', fallthrough: false }],
    ['dotfiles ignore, fallthrough false', { dotfiles: 'ignore', fallthrough: false }],
    ['etag false', { etag: false }],
    ['extensions array', { extensions: ['html', 'txt'] }],
    ['extensions string', { extensions: 'txt' }],
    ['extensions false', { extensions: false }],
    ['fallthrough false', { fallthrough: false }],
    ['immutable with maxAge', { immutable: true, maxAge: '1d' }],
    ['immutable without maxAge', { immutable: true }],
    ['index false', { index: false }],
    ['index array', { index: ['missing.html', 'tobi.txt', 'index.html'] }],
    ['index string', { index: 'loki.txt' }],
    ['index false, redirect false', { index: false, redirect: false }],
    ['lastModified false', { lastModified: false }],
    ['maxAge number', { maxAge: 10_000 }],
    ['maxAge string', { maxAge: '2h' }],
    ['maxAge fraction', { maxAge: 1999 }],
    ['maxAge negative', { maxAge: -5000 }],
    ['maxAge garbage', { maxAge: 'forever' }],
    ['maxAge too large', { maxAge: 1e15 }],
    ['maxage spelling', { maxage: '1h' }],
    ['maxAge and maxage', { maxAge: '2d', maxage: '1h' }],
    ['maxAge 0 and maxage', { maxAge: 0, maxage: '1h' }],
    ['redirect false', { redirect: false }],
    ['redirect false, fallthrough false', { redirect: false, fallthrough: false }],
    ['cacheControl false', { cacheControl: false, maxAge: 1000 }],
    ['acceptRanges false', { acceptRanges: false }],
    ['hidden true (deprecated)', { hidden: true }],
    ['hidden false (deprecated)', { hidden: false }],
    ['hidden true, dotfiles deny', { hidden: true, dotfiles: 'deny' }],
  ] as Array<[string, object]>) {
    it(`option: ${label}`, async () => {
      await assertSameResponses(staticApp(options), [
        ...BASIC_PATHS.map((path) => get(path)),
        get('/nums.txt', { Range: 'bytes=1-2' }),
        head('/users'),
        { method: 'POST', path: '/todo.txt' },
        { method: 'PATCH', path: '/nope' },
      ]);
    });
  }

  it('an ETag a handler sets as a number is compared as Express compares it (W/ and its digits)', async () => {
    const tags = ['W/123', '123', '"123"', 'W/"123"'];
    await assertSameResponses(
      staticApp({ setHeaders: (res: import('http').ServerResponse) => res.setHeader('ETag', 123) }),
      [
        ...tags.map((tag) => get('/todo.txt', { 'If-None-Match': tag })),
        ...tags.map((tag) => get('/todo.txt', { 'If-Match': tag })),
      ],
    );
    await assertSameResponses(
      (framework) => {
        const app = framework();
        app.get('/', (_req, res) => {
          res.setHeader('ETag', 123);
          res.send('body');
        });
        return app;
      },
      tags.map((tag) => get('/', { 'If-None-Match': tag })),
    );
  });

  it('option: setHeaders runs before the file headers and only for files', async () => {
    await assertSameResponses(
      staticApp({
        setHeaders(res: import('http').ServerResponse, path: string, stat: import('fs').Stats) {
          res.setHeader('x-file', path.slice(fx.root.length));
          res.setHeader('x-size', String(stat.size));
          res.setHeader('Cache-Control', 'private');
          if (path.endsWith('.txt')) res.setHeader('Content-Type', 'text/x-custom');
        },
      }),
      ['/todo.txt', '/users/', '/users', '/nope', '/data.json'].map((path) => get(path)),
    );
  });

  it('bad option values fail the same way (at creation or per request)', async () => {
    for (const options of [{ setHeaders: 'nope' }, { setHeaders: 42 }]) {
      assert.throws(() => staticOf(require('express') as Framework)(fx.root, options), {
        message: 'option setHeaders must be function',
      });
      assert.throws(() => serveStatic(fx.root, options as never), { message: 'option setHeaders must be function' });
    }
    const thrownBy = (make: () => unknown) => {
      try {
        make();
      } catch (err) {
        return (err as Error).message;
      }
      assert.fail('did not throw');
    };
    for (const root of ['', undefined, null, 42]) {
      const expected = thrownBy(() => staticOf(require('express') as Framework)(root as string));
      assert.throws(() => serveStatic(root as string), { name: 'TypeError', message: expected });
    }
    // Options that are not an object fail at creation, not at each request.
    for (const options of ['str', 5, true]) {
      const expected = thrownBy(() => staticOf(require('express') as Framework)(fx.root, options as never));
      assert.throws(() => serveStatic(fx.root, options as never), { name: 'TypeError', message: expected });
    }
    for (const options of [
      { dotfiles: 'bogus' },
      { index: 5 },
      { index: [1] },
      { extensions: [true] },
      { extensions: 'html', index: {} },
    ]) {
      await assertSameResponses(staticApp(options), [get('/todo.txt'), get('/users/'), { method: 'POST', path: '/x' }]);
    }
  });
});
