import assert from 'node:assert/strict';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { compress } from '../../src/middleware/compress';
import { staticCache, type StaticCacheOptions } from '../../src/middleware/static-cache';
import { serveStatic, type ServeStaticOptions } from '../../src/static';
import { captureStderr, deprecationMessages } from '../support/capture-stderr';
import { h2exchange } from '../support/http2-client';
import {
  assertSameAsConnect,
  chain,
  rawRequest,
  withServer,
  type Handler,
  type RawResponse,
  type RequestSpec,
} from './support';

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
  writeFixed(join(root, 'c.txt'), 'file c\n');
  writeFixed(join(root, 'ten.txt'), '0123456789');
  writeFixed(join(root, 'eleven.txt'), '0123456789X');
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

const notFound: Handler = (req, res) => {
  res.statusCode = 404;
  res.end('no ' + req.url);
};

/** The cache in front of static with `staticOptions`, then a 404; requests are sent one after another. */
async function session(
  handlers: Handler[],
  fn: (send: (spec: RequestSpec | string) => Promise<RawResponse>) => Promise<void>,
): Promise<void> {
  await withServer(chain([...handlers, notFound]), (port) =>
    fn((spec) => rawRequest(port, typeof spec === 'string' ? { path: spec } : spec)),
  );
}

function cached(options?: StaticCacheOptions, staticOptions: ServeStaticOptions = { maxAge: 60_000 }): Handler[] {
  return [cache(options), serveStatic(root, staticOptions)];
}

function xCache(res: RawResponse): string | undefined {
  return res.headers['x-cache'] as string | undefined;
}

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

  it('a miss goes to static, the next request is answered from memory', async () => {
    await session(cached(), async (send) => {
      const miss = await send('/a.txt');
      assert.equal(miss.status, 200);
      assert.equal(xCache(miss), 'MISS');
      assert.equal(miss.body, 'file a\n');

      const hit = await send('/a.txt');
      assert.equal(hit.status, 200);
      assert.equal(xCache(hit), 'HIT');
      assert.equal(hit.body, 'file a\n');
      assert.match(hit.headers.age as string, /^\d+$/);
      for (const name of [
        'content-type',
        'content-length',
        'etag',
        'last-modified',
        'cache-control',
        'accept-ranges',
      ]) {
        assert.equal(hit.headers[name], miss.headers[name], name);
      }
    });
  });

  it('a hit carries the header names as static spelled them', async () => {
    await withServer(chain([...cached(), notFound]), async (port) => {
      const names = () =>
        new Promise<string[]>((resolve, reject) => {
          http
            .get({ host: '127.0.0.1', port, path: '/b.txt', agent: false }, (res) => {
              res.resume();
              res.on('end', () => resolve(res.rawHeaders.filter((_, i) => i % 2 === 0)));
            })
            .on('error', reject);
        });
      const miss = await names();
      const hit = await names();
      assert.deepEqual(
        hit.filter((name) => name !== 'Age'),
        miss,
      );
    });
  });

  it('keys on the URL with its query string, per host', async () => {
    await session(cached(), async (send) => {
      await send('/a.txt');
      assert.equal(xCache(await send('/a.txt?v=1')), 'MISS');
      assert.equal(xCache(await send('/a.txt?v=1')), 'HIT');
      assert.equal(xCache(await send('/a.txt?v=2')), 'MISS');
      assert.equal(xCache(await send({ path: '/a.txt', headers: { host: 'other.example' } })), 'MISS');
    });
  });

  it('virtual hosts with different roots never share an entry', async () => {
    const other = mkdtempSync(join(tmpdir(), 'webapp-static-cache-other-'));
    writeFileSync(join(other, 'a.txt'), 'other a\n');
    try {
      const first = serveStatic(root, { maxAge: 60_000 });
      const second = serveStatic(other, { maxAge: 60_000 });
      const byHost: Handler = (req, res, next) => (req.headers.host === 'two.example' ? second : first)(req, res, next);
      await session([cache(), byHost], async (send) => {
        const one = { path: '/a.txt', headers: { host: 'one.example' } };
        const two = { path: '/a.txt', headers: { host: 'two.example' } };
        await send(one);
        assert.equal((await send(one)).body, 'file a\n');
        const res = await send(two);
        assert.equal(res.body, 'other a\n');
        assert.equal(xCache(res), 'MISS');
        assert.equal((await send(two)).body, 'other a\n');
      });
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('evicts the least recently used entry beyond maxObjects', async () => {
    await session(cached({ maxObjects: 2 }), async (send) => {
      await send('/a.txt');
      await send('/b.txt');
      assert.equal(xCache(await send('/a.txt')), 'HIT', 'a is now the most recently used');
      assert.equal(xCache(await send('/c.txt')), 'MISS', 'c evicts b');
      assert.equal(xCache(await send('/a.txt')), 'HIT');
      assert.equal(xCache(await send('/c.txt')), 'HIT');
      const b = await send('/b.txt');
      assert.equal(xCache(b), 'MISS', 'b was evicted');
      assert.equal(b.body, 'file b\n');
      // Storing b evicted a (c was used after a).
      assert.equal(xCache(await send('/a.txt')), 'MISS');
      assert.equal(xCache(await send('/b.txt')), 'HIT');
    });
  });

  it('maxObjects defaults to 128', async () => {
    const many = mkdtempSync(join(tmpdir(), 'webapp-static-cache-many-'));
    try {
      for (let i = 0; i <= 128; i++) writeFileSync(join(many, i + '.txt'), String(i));
      await session([cache(), serveStatic(many, { maxAge: 60_000 })], async (send) => {
        for (let i = 0; i <= 128; i++) await send(`/${i}.txt`);
        assert.equal(xCache(await send('/128.txt')), 'HIT');
        assert.equal(xCache(await send('/1.txt')), 'HIT');
        assert.equal(xCache(await send('/0.txt')), 'MISS', 'the 129th entry evicted the first');
      });
    } finally {
      rmSync(many, { recursive: true, force: true });
    }
  });

  it('bodies longer than maxLength are never stored', async () => {
    await session(cached({ maxLength: 10 }), async (send) => {
      await send('/ten.txt');
      assert.equal(xCache(await send('/ten.txt')), 'HIT', 'exactly maxLength is kept');
      await send('/eleven.txt');
      const res = await send('/eleven.txt');
      assert.equal(xCache(res), 'MISS');
      assert.equal(res.body, '0123456789X');
    });
  });

  it('maxLength defaults to 256kb', async () => {
    writeFileSync(join(root, 'max.bin'), Buffer.alloc(256 * 1024, 0x61));
    writeFileSync(join(root, 'over.bin'), Buffer.alloc(256 * 1024 + 1, 0x61));
    await session(cached(), async (send) => {
      await send('/max.bin');
      const hit = await send('/max.bin');
      assert.equal(xCache(hit), 'HIT');
      assert.equal(hit.body.length, 256 * 1024);
      await send('/over.bin');
      assert.equal(xCache(await send('/over.bin')), 'MISS');
    });
  });

  it('a request with Cache-Control: no-cache goes to static and refreshes the entry', async () => {
    await session(cached(), async (send) => {
      await send('/a.txt');
      const res = await send({ path: '/a.txt', headers: { 'cache-control': 'no-cache' } });
      assert.equal(xCache(res), 'MISS');
      assert.equal(res.body, 'file a\n');
      assert.equal(xCache(await send('/a.txt')), 'HIT');
    });
  });

  it('a request max-age the entry is younger than, or no-store, may be answered from memory', async () => {
    await session(cached(), async (send) => {
      await send('/a.txt');
      assert.equal(xCache(await send({ path: '/a.txt', headers: { 'cache-control': 'max-age=3600' } })), 'HIT');
      assert.equal(xCache(await send({ path: '/a.txt', headers: { 'cache-control': 'no-store' } })), 'HIT');
    });
  });

  it('a request with Cache-Control: no-store is answered but its response not stored', async () => {
    await session(cached(), async (send) => {
      assert.equal(xCache(await send({ path: '/a.txt', headers: { 'cache-control': 'no-store' } })), 'MISS');
      assert.equal(xCache(await send('/a.txt')), 'MISS');
      assert.equal(xCache(await send('/a.txt')), 'HIT');
    });
  });

  it('responses marked no-cache, no-store, private or must-revalidate are not stored', async () => {
    for (const value of [
      'no-cache',
      'no-store',
      'private, max-age=60',
      'public, max-age=60, must-revalidate',
      'NO-STORE',
    ]) {
      const setHeaders = (res: import('node:http').ServerResponse) => res.setHeader('Cache-Control', value);
      await session([cache(), serveStatic(root, { setHeaders })], async (send) => {
        await send('/a.txt');
        const res = await send('/a.txt');
        assert.equal(xCache(res), 'MISS', value);
        assert.equal(res.headers['cache-control'], value);
      });
    }
  });

  it('static with its default max-age=0: every request is a miss, as on Connect 2.30', async () => {
    await session(cached(undefined, {}), async (send) => {
      await send('/a.txt');
      const res = await send('/a.txt');
      assert.equal(xCache(res), 'MISS');
      assert.equal(res.headers['cache-control'], 'public, max-age=0');
    });
  });

  it('a request max-age can accept an entry past its own max-age', async () => {
    await session(cached(undefined, {}), async (send) => {
      await send('/a.txt');
      assert.equal(xCache(await send({ path: '/a.txt', headers: { 'cache-control': 'max-age=3600' } })), 'HIT');
    });
  });

  it('without Cache-Control (static cacheControl: false) the entry stays until evicted', async () => {
    await session(cached(undefined, { cacheControl: false }), async (send) => {
      await send('/a.txt');
      const res = await send('/a.txt');
      assert.equal(xCache(res), 'HIT');
      assert.equal(res.headers['cache-control'], undefined);
    });
  });

  it('cookies: a request with one is never answered from memory nor stored; Set-Cookie is not stored', async () => {
    await session(cached(), async (send) => {
      const withCookie = { path: '/a.txt', headers: { cookie: 'sid=1' } };
      await send(withCookie);
      assert.equal(xCache(await send('/a.txt')), 'MISS', 'the cookie request stored nothing');
      assert.equal(xCache(await send('/a.txt')), 'HIT');
      assert.equal(xCache(await send(withCookie)), 'MISS');
    });
    const setHeaders = (res: import('node:http').ServerResponse) => res.setHeader('Set-Cookie', 'x=1');
    await session([cache(), serveStatic(root, { maxAge: 60_000, setHeaders })], async (send) => {
      await send('/a.txt');
      assert.equal(xCache(await send('/a.txt')), 'MISS');
    });
  });

  it('responses with Vary are not stored', async () => {
    const setHeaders = (res: import('node:http').ServerResponse) => res.setHeader('Vary', 'Accept-Language');
    await session([cache(), serveStatic(root, { maxAge: 60_000, setHeaders })], async (send) => {
      await send('/a.txt');
      assert.equal(xCache(await send('/a.txt')), 'MISS');
    });
  });

  it('conditional GET on a hit answers 304 without the body and content headers', async () => {
    await session(cached(), async (send) => {
      const miss = await send('/a.txt');
      const etag = miss.headers.etag as string;
      const byTag = await send({ path: '/a.txt', headers: { 'if-none-match': etag } });
      assert.equal(byTag.status, 304);
      assert.equal(xCache(byTag), 'HIT');
      assert.equal(byTag.body, '');
      assert.equal(byTag.headers.etag, etag);
      assert.equal(byTag.headers['content-type'], undefined);
      assert.equal(byTag.headers['content-length'], undefined);

      const byDate = await send({
        path: '/a.txt',
        headers: { 'if-modified-since': miss.headers['last-modified'] as string },
      });
      assert.equal(byDate.status, 304);
      assert.equal(xCache(byDate), 'HIT');

      const other = await send({ path: '/a.txt', headers: { 'if-none-match': '"nope"' } });
      assert.equal(other.status, 200);
      assert.equal(other.body, 'file a\n');

      // The same 304 static gives, except X-Cache and Age.
      const fromStatic = await send({
        path: '/a.txt',
        headers: { 'if-none-match': etag, 'cache-control': 'no-cache' },
      });
      assert.equal(fromStatic.status, 200, 'no-cache makes the client copy stale for static too');
    });
  });

  it('HEAD with a matching validator on a hit answers 304, as static does', async () => {
    await session(cached(), async (send) => {
      const miss = await send('/a.txt');
      const conditional = { method: 'HEAD', path: '/a.txt', headers: { 'if-none-match': miss.headers.etag as string } };
      const hit = await send(conditional);
      assert.equal(xCache(hit), 'HIT');
      const fromStatic = await send({ ...conditional, headers: { ...conditional.headers, cookie: 'a=b' } });
      assert.equal(xCache(fromStatic), 'MISS');
      assert.equal(hit.status, 304);
      assert.equal(fromStatic.status, 304);
    });
  });

  it('headers set before the cache for this request win over stored ones', async () => {
    let id = 0;
    const requestId: Handler = (_req, res, next) => {
      res.setHeader('X-Request-Id', String(++id));
      res.setHeader('Content-Type', 'text/x-mine');
      next();
    };
    await session([requestId, ...cached()], async (send) => {
      const miss = await send('/a.txt');
      assert.equal(miss.headers['x-request-id'], '1');
      const hit = await send('/a.txt');
      assert.equal(xCache(hit), 'HIT');
      assert.equal(hit.headers['x-request-id'], '2');
      assert.equal(hit.headers['content-type'], 'text/x-mine');
      assert.equal(hit.headers['content-length'], '7');
    });
  });

  it('If-Match and If-Unmodified-Since are left to static (412)', async () => {
    await session(cached(), async (send) => {
      await send('/a.txt');
      const failed = await send({ path: '/a.txt', headers: { 'if-match': '"nope"' } });
      assert.equal(xCache(failed), 'MISS');
      const matched = await send({ path: '/a.txt', headers: { 'if-unmodified-since': new Date(0).toUTCString() } });
      assert.equal(xCache(matched), 'MISS');
      assert.equal(xCache(await send('/a.txt')), 'HIT');
    });
  });

  it('HEAD: answered from a stored GET without a body; a HEAD miss stores nothing', async () => {
    await session(cached(), async (send) => {
      const head = await send({ method: 'HEAD', path: '/a.txt' });
      assert.equal(xCache(head), 'MISS');
      assert.equal(xCache(await send({ method: 'HEAD', path: '/a.txt' })), 'MISS');
      await send('/a.txt');
      const hit = await send({ method: 'HEAD', path: '/a.txt' });
      assert.equal(hit.status, 200);
      assert.equal(xCache(hit), 'HIT');
      assert.equal(hit.body, '');
      assert.equal(hit.headers['content-length'], '7');
    });
  });

  it('Range requests bypass the cache, with no X-Cache header', async () => {
    await session(cached(), async (send) => {
      await send('/a.txt');
      const res = await send({ path: '/a.txt', headers: { range: 'bytes=0-3' } });
      assert.equal(res.status, 206);
      assert.equal(res.body, 'file');
      assert.equal(xCache(res), undefined);
      assert.equal(xCache(await send('/a.txt')), 'HIT', 'the partial answer did not replace the entry');
    });
  });

  it('other methods pass untouched', async () => {
    await session(cached(), async (send) => {
      await send('/a.txt');
      const res = await send({ method: 'POST', path: '/a.txt', body: 'x' });
      assert.equal(res.status, 404);
      assert.equal(xCache(res), undefined);
    });
  });

  it('only what static served is stored: routes after it are never cached', async () => {
    let count = 0;
    const route: Handler = (_req, res) => {
      res.setHeader('Content-Type', 'text/plain');
      res.setHeader('Content-Length', '7');
      res.end('count ' + ++count);
    };
    await session([...cached(), route], async (send) => {
      assert.equal((await send('/dynamic')).body, 'count 1');
      const second = await send('/dynamic');
      assert.equal(second.body, 'count 2');
      assert.equal(xCache(second), 'MISS');
    });
  });

  it('a file changed on disk: served from memory while the stored max-age lasts, no-cache refreshes it', async () => {
    writeFileSync(join(root, 'changing.txt'), 'version 1');
    await session(cached(), async (send) => {
      assert.equal((await send('/changing.txt')).body, 'version 1');
      writeFileSync(join(root, 'changing.txt'), 'version two');
      const stale = await send('/changing.txt');
      assert.equal(xCache(stale), 'HIT');
      assert.equal(stale.body, 'version 1');
      const fresh = await send({ path: '/changing.txt', headers: { 'cache-control': 'no-cache' } });
      assert.equal(xCache(fresh), 'MISS');
      assert.equal(fresh.body, 'version two');
      const hit = await send('/changing.txt');
      assert.equal(xCache(hit), 'HIT');
      assert.equal(hit.body, 'version two');
      assert.equal(hit.headers.etag, fresh.headers.etag);
    });
  });

  it('a file changed on disk with static max-age=0: the change is served at once', async () => {
    writeFileSync(join(root, 'changing0.txt'), 'version 1');
    await session(cached(undefined, {}), async (send) => {
      await send('/changing0.txt');
      writeFileSync(join(root, 'changing0.txt'), 'version two');
      const res = await send('/changing0.txt');
      assert.equal(xCache(res), 'MISS');
      assert.equal(res.body, 'version two');
    });
  });

  it('a file that grew past maxLength drops its old entry', async () => {
    writeFileSync(join(root, 'growing.txt'), 'small');
    await session(cached({ maxLength: 10 }), async (send) => {
      await send('/growing.txt');
      writeFileSync(join(root, 'growing.txt'), 'now much larger than ten');
      const res = await send({ path: '/growing.txt', headers: { 'cache-control': 'no-cache' } });
      assert.equal(res.body, 'now much larger than ten');
      const after = await send('/growing.txt');
      assert.equal(xCache(after), 'MISS');
      assert.equal(after.body, 'now much larger than ten');
    });
  });

  it("bad paths are still static's to handle, and the server answers the next request", async () => {
    await session(cached(), async (send) => {
      for (const path of [
        '/../etc/passwd',
        '/%2e%2e/%2e%2e/etc/passwd',
        '/a.txt%00',
        '/%',
        '/.secret',
        '/missing.txt',
        '/dir/../../x',
      ]) {
        const res = await send(path);
        assert.ok(res.status === 404 || res.status === 400 || res.status === 403, `${path}: ${res.status}`);
        assert.ok(!res.body.includes('root:'), path);
        assert.equal(xCache(await send(path)), 'MISS', path);
      }
      const redirect = await send('/dir');
      assert.equal(redirect.status, 301);
      assert.equal(xCache(await send('/dir')), 'MISS', 'redirects are not stored');
      await send('/dir/');
      const index = await send('/dir/');
      assert.equal(xCache(index), 'HIT');
      assert.equal(index.body, '<h1>index</h1>');
      assert.equal((await send('/a.txt')).body, 'file a\n');
    });
  });

  it('behind compress: the stored body is the file, compressed again on each hit', async () => {
    await session([compress(), ...cached()], async (send) => {
      const gzip = { path: '/page.html', headers: { 'accept-encoding': 'gzip' } };
      const miss = await send(gzip);
      assert.equal(miss.headers['content-encoding'], 'gzip');
      const hit = await send(gzip);
      assert.equal(xCache(hit), 'HIT');
      assert.equal(hit.headers['content-encoding'], 'gzip');
      assert.equal(hit.headers.vary, 'Accept-Encoding');
      assert.equal(zlib.gunzipSync(Buffer.from(hit.body, 'latin1')).toString(), '<p>' + 'hello '.repeat(400) + '</p>');
      const plain = await send('/page.html');
      assert.equal(xCache(plain), 'HIT');
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.body, '<p>' + 'hello '.repeat(400) + '</p>');
    });
  });

  it('over HTTP/2: stores and answers from memory (HTTP/2 responses have no getRawHeaderNames)', async () => {
    // The first cacheable GET over HTTP/2 threw from static's file callback: the process ended.
    const server = http2.createServer(chain([...cached(), notFound]) as never);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const miss = await h2exchange(client, { ':path': '/page.html' });
      const hit = await h2exchange(client, { ':path': '/page.html' });
      assert.equal(miss.status, 200);
      assert.equal(hit.headers['x-cache'], 'HIT');
      assert.equal(hit.body, '<p>' + 'hello '.repeat(400) + '</p>');
      for (const name of ['content-type', 'content-length', 'etag', 'last-modified', 'cache-control'])
        assert.equal(hit.headers[name], miss.headers[name], name);
    } finally {
      client.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  describe('against Connect 2.30 (connect.staticCache + connect.static)', () => {
    /** Connect 2.30's static is serve-static 1.10 (send 0.13): its 404 and redirect pages are older. */
    const requests: RequestSpec[] = [
      { path: '/a.txt' },
      { path: '/a.txt' },
      { method: 'HEAD', path: '/a.txt' },
      { path: '/a.txt?x=1' },
      { path: '/a.txt', headers: { range: 'bytes=0-3' } },
      { path: '/a.txt', headers: { 'cache-control': 'no-cache' } },
      { path: '/a.txt', headers: { cookie: 'a=b' } },
      { path: '/missing.txt' },
      { path: '/../etc/passwd' },
      { path: '/.secret' },
      { method: 'POST', path: '/a.txt' },
      { method: 'DELETE', path: '/b.txt' },
      { path: '/b.txt' },
      { path: '/dir/' },
      { path: '/dir/' },
    ];

    it('with static defaults the same requests get the same answers (Connect 2.30 never stores)', async () => {
      await assertSameAsConnect(
        [connect.staticCache(), connect.static(root), notFound],
        [cache(), serveStatic(root), notFound],
        requests,
      );
    });

    it('with a static maxAge, a hit is what Connect answers except X-Cache: HIT and Age', async () => {
      const hitsAsMisses = (res: RawResponse): RawResponse => {
        const headers = { ...res.headers };
        if (headers['x-cache'] === 'HIT') headers['x-cache'] = 'MISS';
        delete headers.age;
        return { ...res, headers };
      };
      const responses = await assertSameAsConnect(
        [connect.staticCache(), connect.static(root, { maxAge: 60_000 }), notFound],
        [cache(), serveStatic(root, { maxAge: 60_000 }), notFound],
        requests,
        hitsAsMisses,
      );
      assert.deepEqual(responses.map(xCache), [
        'MISS',
        'HIT',
        'HIT',
        'MISS',
        undefined,
        'MISS',
        'MISS',
        'MISS',
        'MISS',
        'MISS',
        undefined,
        undefined,
        'MISS',
        'MISS',
        'HIT',
      ]);
    });

    it('Connect 2.30 prints the same notice', () => {
      const lines = captureStderr(() => {
        connect.staticCache();
      });
      assert.equal(lines.length, 1);
      assert.match(lines[0], /connect deprecated staticCache: use varnish or similar reverse proxy caches/);
    });
  });
});
