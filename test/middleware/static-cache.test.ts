/**
 * staticCache as Express 3.21 runs it (Connect 2.30's, which never stores: nothing
 * emits the event its cache listens for). The same chains on Connect and on webapp
 * answer alike, with a static `max-age` too, and whatever runs between the cache and
 * `static()` (an access check, a header set per request) decides every request.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { basicAuth } from '../../src/middleware/basic-auth';
import { staticCache, type StaticCacheOptions } from '../../src/middleware/static-cache';
import { serveStatic } from '../../src/static';
import { captureStderr, deprecationMessages } from '../support/capture-stderr';
import { h2exchange } from '../support/http2-client';
import { assertSameAsConnect, basic, chain, type Handler, type RawResponse, type RequestSpec } from './support';

const connect = require('connect');

let root: string;

/** Files with a fixed mtime, so ETag and Last-Modified are the same in every run (and in recorded oracle answers). */
const FILE_TIME = new Date('2021-03-04T05:06:07Z');
function writeFixed(file: string, content: string): void {
  writeFileSync(file, content);
  utimesSync(file, FILE_TIME, FILE_TIME);
}

before(() => {
  root = mkdtempSync(join(tmpdir(), 'webapp-static-cache-'));
  writeFixed(join(root, 'a.txt'), 'file a\n');
  writeFixed(join(root, 'b.txt'), 'file b\n');
  writeFixed(join(root, 'page.html'), '<p>' + 'hello '.repeat(400) + '</p>');
  writeFixed(join(root, '.secret'), 'hidden');
  mkdirSync(join(root, 'dir'));
  writeFixed(join(root, 'dir', 'index.html'), '<h1>index</h1>');
});

after(() => rmSync(root, { recursive: true, force: true }));

/** Creates the middleware without printing its deprecation notice into the test output. */
function cache(options?: StaticCacheOptions): Handler {
  let middleware: Handler | undefined;
  captureStderr(() => {
    middleware = staticCache(options);
  });
  return middleware as Handler;
}

/** Connect's, likewise quiet. */
function connectCache(options?: StaticCacheOptions): Handler {
  let middleware: Handler | undefined;
  captureStderr(() => {
    middleware = connect.staticCache(options);
  });
  return middleware as Handler;
}

const notFound: Handler = (req, res) => {
  res.statusCode = 404;
  res.end('no ' + req.url);
};

const xCache = (res: RawResponse) => res.headers['x-cache'] as string | undefined;

/**
 * Every kind of request the cache looks at or passes by. (Not a directory without its
 * slash: Connect 2.30's static, serve-static 1.10, writes an older redirect page.)
 */
const requests: RequestSpec[] = [
  { path: '/a.txt' },
  { path: '/a.txt' },
  { method: 'HEAD', path: '/a.txt' },
  { path: '/a.txt?x=1' },
  { path: '/a.txt', headers: { range: 'bytes=0-3' } },
  { path: '/a.txt', headers: { 'cache-control': 'no-cache' } },
  { path: '/a.txt', headers: { 'cache-control': 'max-age=0' } },
  { path: '/a.txt', headers: { cookie: 'a=b' } },
  { path: '/a.txt', headers: { 'if-none-match': '"nope"', 'if-modified-since': FILE_TIME.toUTCString() } },
  { path: '/missing.txt' },
  { path: '/../etc/passwd' },
  { path: '/.secret' },
  { method: 'POST', path: '/a.txt' },
  { method: 'DELETE', path: '/b.txt' },
  { path: '/b.txt' },
  { path: '/dir/' },
  { path: '/dir/' },
];

describe('staticCache', () => {
  it('is named, takes one argument and prints the deprecation notice when created', () => {
    assert.equal(staticCache.name, 'staticCache');
    assert.equal(staticCache.length, 1);
    const lines = captureStderr(() => {
      staticCache();
    });
    assert.deepEqual(deprecationMessages(lines), ['staticCache: use varnish or similar reverse proxy caches']);
    assert.match(lines[0], /static-cache\.test\.ts:\d+:\d+\n$/, 'the notice points at the caller');
  });

  it('answers as Connect 2.30, with static defaults and with a max-age: every GET and HEAD a miss', async () => {
    const runs: Array<[object, StaticCacheOptions | undefined]> = [
      [{}, { maxObjects: 1, maxLength: 4 }],
      [{ maxAge: 60_000 }, undefined],
    ];
    for (const [staticOptions, cacheOptions] of runs) {
      const responses = await assertSameAsConnect(
        [connectCache(cacheOptions), connect.static(root, staticOptions), notFound],
        [cache(cacheOptions), serveStatic(root, staticOptions), notFound],
        requests,
      );
      // GET and HEAD are looked up (and missed); Range requests and other methods are not.
      assert.deepEqual(
        responses.map(xCache),
        requests.map((spec) =>
          (spec.method ?? 'GET') === 'GET' || spec.method === 'HEAD'
            ? spec.headers?.range === undefined
              ? 'MISS'
              : undefined
            : undefined,
        ),
      );
      assert.equal(responses[1]!.body, 'file a\n');
    }
  });

  it('a file an access check let one client fetch is never served to a client it refuses', async () => {
    const credentials = { authorization: basic('admin', 's3cret') };
    const responses = await assertSameAsConnect(
      [connectCache(), connect.basicAuth('admin', 's3cret'), connect.static(root, { maxAge: 60_000 }), notFound],
      [cache(), basicAuth('admin', 's3cret'), serveStatic(root, { maxAge: 60_000 }), notFound],
      [
        { path: '/a.txt', headers: credentials },
        { path: '/a.txt' },
        { method: 'HEAD', path: '/a.txt' },
        { path: '/a.txt', headers: { authorization: basic('admin', 'wrong') } },
        { path: '/a.txt', headers: credentials },
      ],
    );
    assert.deepEqual(
      responses.map((res) => res.status),
      [200, 401, 401, 401, 200],
    );
    assert.equal(responses[1]!.body.includes('file a'), false);
  });

  it('a check of its own (an API key) and headers set per request decide every request', async () => {
    const allowList: Handler = (req, res, next) => {
      if (req.headers['x-api-key'] === 'k1') {
        res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*');
        next();
        return;
      }
      res.statusCode = 403;
      res.end('forbidden');
    };
    const responses = await assertSameAsConnect(
      [connectCache(), allowList, connect.static(root, { maxAge: 60_000 }), notFound],
      [cache(), allowList, serveStatic(root, { maxAge: 60_000 }), notFound],
      [
        { path: '/page.html', headers: { 'x-api-key': 'k1', origin: 'https://trusted.example' } },
        { path: '/page.html', headers: { origin: 'https://evil.example' } },
        { path: '/page.html', headers: { 'x-api-key': 'k1', origin: 'https://other.example' } },
      ],
    );
    assert.deepEqual(
      responses.map((res) => [res.status, res.headers['access-control-allow-origin']]),
      [
        [200, 'https://trusted.example'],
        [403, undefined],
        [200, 'https://other.example'],
      ],
    );
  });

  it('over HTTP/2: a miss, answered by static', async () => {
    const server = http2.createServer(chain([cache(), serveStatic(root, { maxAge: 60_000 }), notFound]) as never);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      for (let i = 0; i < 2; i++) {
        const answer = await h2exchange(client, { ':path': '/page.html' });
        assert.equal(answer.status, 200);
        assert.equal(answer.headers['x-cache'], 'MISS');
        assert.equal(answer.body, '<p>' + 'hello '.repeat(400) + '</p>');
      }
    } finally {
      client.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('Connect 2.30 prints the same notice', () => {
    const lines = captureStderr(() => {
      connect.staticCache();
    });
    assert.equal(lines.length, 1);
    assert.match(lines[0], /connect deprecated staticCache: use varnish or similar reverse proxy caches/);
  });
});
