/**
 * webapp/v3 apps over HTTP/2 (Express 3 itself cannot serve HTTP/2: Connect's
 * prototype swap breaks Node's compatibility objects): the same headers, cookies,
 * sessions and bodies as over HTTP/1.1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import request from 'supertest';
import webapp3 = require('../../src/v3/index');
import { failNextRead } from '../support/failing-read';
import { h2connect, h2exchange, type H2Exchange } from '../support/http2-client';
import { selfSignedCert, type KeyPair } from '../support/self-signed-cert';

type Any = any;
let tls: KeyPair;
let root: string;

before(() => {
  tls = selfSignedCert();
  root = mkdtempSync(join(tmpdir(), 'webapp-v3-h2-'));
  writeFileSync(join(root, 'page.txt'), 'a file served from disk\n'.repeat(20));
  // Above the size read in one call: streamed.
  writeFileSync(join(root, 'large.bin'), Buffer.alloc(256 * 1024, 0x61));
});
after(() => rmSync(root, { recursive: true, force: true }));

function legacyApp() {
  const app = webapp3();
  app.set('env', 'test');
  app.use(webapp3.compress());
  app.use(webapp3.cookieParser('secret'));
  app.use(webapp3.session({ secret: 'keyboard cat' }));
  app.get('/redirect', (_req: Any, res: Any) => res.redirect('/elsewhere'));
  app.get('/visits', (req: Any, res: Any) => {
    req.session.visits = (req.session.visits ?? 0) + 1;
    res.cookie('seen', 'yes', { signed: true });
    res.set('X-App', 'legacy');
    res.send(`visit ${req.session.visits}`);
  });
  app.get('/charset', (_req: Any, res: Any) => {
    res.charset = 'iso-8859-1';
    res.setHeader('Content-Type', 'text/plain');
    res.end('x');
  });
  app.get('/jsonp', (_req: Any, res: Any) => res.jsonp({ ok: true }));
  app.get('/long', (_req: Any, res: Any) => res.type('txt').send('compressible text '.repeat(200)));
  app.get('/file', (_req: Any, res: Any) => res.sendfile(join(root, 'page.txt')));
  return app;
}

/** Serves `app` over TLS with HTTP/2 (and HTTP/1.1 beside it); `use` gets a client session. */
async function overHttp2(app: unknown, use: (session: http2.ClientHttp2Session) => Promise<void>): Promise<void> {
  const server = http2.createSecureServer({ ...tls, allowHTTP1: true }, app as Any);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const session = h2connect((server.address() as AddressInfo).port);
  try {
    await use(session);
  } finally {
    session.close();
    await new Promise((resolve) => server.close(resolve));
  }
}

const get = (session: http2.ClientHttp2Session, path: string, headers: http2.OutgoingHttpHeaders = {}) =>
  h2exchange(session, { ':path': path, ...headers });

/** The headers an HTTP/2 answer and an HTTP/1.1 answer must share. */
function sameHeaders(h2: H2Exchange, h1: request.Response, names: string[]): void {
  for (const name of names) assert.deepEqual(h2.headers[name], h1.headers[name], name);
}

describe('webapp/v3 over HTTP/2', () => {
  it('sends the headers the app and its middleware set, as over HTTP/1.1', async () => {
    const app = legacyApp();
    await overHttp2(app, async (session) => {
      const redirect = await get(session, '/redirect');
      assert.equal(redirect.status, 302);
      assert.equal(redirect.headers.location, '/elsewhere');
      const overHttp1 = await request(app).get('/redirect');
      assert.equal(redirect.body, overHttp1.text);
      sameHeaders(redirect, overHttp1, ['location', 'content-type', 'content-length']);

      const charset = await get(session, '/charset');
      assert.equal(charset.headers['content-type'], 'text/plain; charset=iso-8859-1');
      sameHeaders(charset, await request(app).get('/charset'), ['content-type']);
      const jsonp = await get(session, '/jsonp?callback=cb');
      sameHeaders(jsonp, await request(app).get('/jsonp?callback=cb'), ['content-type', 'x-content-type-options']);
      assert.equal(jsonp.headers['x-content-type-options'], 'nosniff');

      const file = await get(session, '/file');
      assert.equal(file.headers['content-type'], 'text/plain; charset=UTF-8');
      assert.ok(file.headers.etag && file.headers['last-modified']);
      assert.equal(file.body, 'a file served from disk\n'.repeat(20));
    });
  });

  it('keeps a session across requests through its signed cookie, with more cookies beside it', async () => {
    await overHttp2(legacyApp(), async (session) => {
      const first = await get(session, '/visits');
      assert.equal(first.body, 'visit 1');
      assert.equal(first.headers['x-app'], 'legacy');
      const cookies = first.headers['set-cookie'] as string[];
      assert.deepEqual(
        cookies.map((c) => c.split('=')[0]),
        ['seen', 'connect.sid'],
      );
      const jar = cookies.map((c) => c.split(';')[0]).join('; ');
      assert.equal((await get(session, '/visits', { cookie: jar })).body, 'visit 2');
      assert.equal((await get(session, '/visits', { cookie: jar })).body, 'visit 3');
    });
  });

  it('compress compresses what it can read the type of', async () => {
    await overHttp2(legacyApp(), async (session) => {
      const answer = await new Promise<{ headers: http2.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const stream = session.request({ ':path': '/long', 'accept-encoding': 'gzip' });
        const chunks: Buffer[] = [];
        let headers: http2.IncomingHttpHeaders = {};
        stream.on('response', (h) => (headers = h));
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => resolve({ headers, body: Buffer.concat(chunks) }));
        stream.on('error', reject);
      });
      assert.equal(answer.headers['content-encoding'], 'gzip');
      assert.equal(answer.headers.vary, 'Accept-Encoding');
      assert.equal(zlib.gunzipSync(answer.body).toString(), 'compressible text '.repeat(200));
    });
  });

  it('staticCache passes each request to static over HTTP/2 (it stores nothing, as in 3.21)', async () => {
    const app = webapp3();
    app.use(webapp3.staticCache());
    app.use(webapp3.static(root, { maxAge: 60_000 }));
    await overHttp2(app, async (session) => {
      const first = await get(session, '/page.txt');
      const second = await get(session, '/page.txt');
      for (const answer of [first, second]) {
        assert.equal(answer.status, 200);
        assert.equal(answer.headers['x-cache'], 'MISS');
      }
      assert.equal(second.body, first.body);
    });
  });

  it('a response cut by an error resets its stream with an error code; the session serves on', async () => {
    for (const withErrorHandler of [false, true]) {
      const app = webapp3();
      app.set('env', 'test');
      app.get('/partial', (_req: Any, res: Any, next: Any) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
        setImmediate(() => next(new Error('failed halfway')));
      });
      app.get('/ok', (_req: Any, res: Any) => res.send('ok'));
      if (withErrorHandler) app.use(webapp3.errorHandler({ log: false }));
      await overHttp2(app, async (session) => {
        const cut = await get(session, '/partial');
        assert.equal(cut.status, 200);
        assert.equal(cut.rstCode, http2.constants.NGHTTP2_INTERNAL_ERROR, `errorHandler: ${withErrorHandler}`);
        const next = await get(session, '/ok');
        assert.equal(next.rstCode, http2.constants.NGHTTP2_NO_ERROR);
        assert.equal(next.body, 'ok');
      });
    }
  });

  it('sendfile: a read failing after the head resets the stream, not the session', async () => {
    // On HTTP/1 the connection is ended; over HTTP/2 ending the request's socket ended
    // the stream as if the file were whole (or the whole session with it).
    const restoreRead = failNextRead();
    const app = webapp3();
    app.get('/file', (_req: Any, res: Any) => res.sendfile(join(root, 'large.bin')));
    try {
      await overHttp2(app, async (session) => {
        const cut = await get(session, '/file');
        assert.equal(cut.status, 200);
        assert.equal(cut.rstCode, http2.constants.NGHTTP2_INTERNAL_ERROR);
        const whole = await get(session, '/file');
        assert.deepEqual([whole.rstCode, whole.body.length], [0, 256 * 1024]);
      });
    } finally {
      restoreRead();
    }
  });

  it("a mounted app's requests have its settings and its ip after the stream closed", async () => {
    const app = webapp3();
    const admin = webapp3();
    app.set('trust proxy', true);
    admin.set('trust proxy', false);
    const closedIps: unknown[] = [];
    admin.get('/whoami', (req: Any, res: Any) => {
      res.on('finish', () => closedIps.push(req.ip));
      res.send(`${req.app === admin} ${req.ip} ${req.protocol}`);
    });
    app.use('/admin', admin);
    app.get('/whoami', (req: Any, res: Any) => res.send(`${req.app === app} ${req.ip} ${req.protocol}`));
    await overHttp2(app, async (session) => {
      const forwarded = { 'x-forwarded-for': '10.0.0.5', 'x-forwarded-proto': 'http' };
      assert.equal(
        (await h2exchange(session, { ':path': '/admin/whoami', ...forwarded })).body,
        'true 127.0.0.1 https',
      );
      assert.equal((await h2exchange(session, { ':path': '/whoami', ...forwarded })).body, 'true 10.0.0.5 http');
    });
    assert.deepEqual(closedIps, ['127.0.0.1']);
  });
});
