/**
 * Beyond Express 4: the same app serves HTTP/2 (and HTTP/1 on the same TLS port
 * with allowHTTP1), where Express's prototype swap breaks the request objects.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { before, describe, it } from 'node:test';
import express from 'express';
import session from 'express-session';
import webapp = require('../../src/index');
import webappMiddleware = require('../../src/middleware/index');
import { droppedHeaderNames, h2connect, h2exchange, h2request, type H2Response } from '../support/http2-client';
import { selfSignedCert } from '../support/self-signed-cert';
import { watchProcessEvents } from '../support/process-events';

type Any = any;
let key: Buffer;
let cert: Buffer;

before(() => {
  ({ key, cert } = selfSignedCert());
});

function buildApp() {
  const app = webapp();
  (app.request as Any).shout = function (this: Any) {
    return String(this.params.word).toUpperCase();
  };
  const api = webapp.Router();
  api.get('/echo/:word', (req: Any, res: Any) => {
    res.setHeader('content-type', 'text/plain');
    res.end(
      `${req.shout()} ${req.httpVersion} ${req.baseUrl} ${req.originalUrl} ${req.app === app} ${typeof req.query}`,
    );
  });
  app.use('/api', api);
  app.use((err: Error, _req: Any, res: Any, _next: Any) => {
    res.statusCode = 500;
    res.end('error: ' + err.message);
  });
  return app;
}

/** `target[name] = value` in strict code, where a refused assignment throws (test files are not all strict). */
function assignInStrictCode(target: Any, name: string, value: unknown): void {
  'use strict';
  target[name] = value;
}

function h2get(port: number, path: string): Promise<H2Response> {
  return h2request(port, { ':path': path });
}

describe('HTTP/2', () => {
  it('serves an app through http2.createSecureServer({ allowHTTP1: true }) over HTTP/2 and HTTP/1.1', async () => {
    const app = buildApp();
    const server = http2.createSecureServer({ key, cert, allowHTTP1: true }, app as Any);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const h2 = await h2get(port, '/api/echo/hi?x=1');
      assert.deepEqual(h2, { status: 200, body: 'HI 2.0 /api /api/echo/hi?x=1 true object' });
      const notFound = await h2get(port, '/missing');
      assert.equal(notFound.status, 404);
      assert.match(notFound.body, /Cannot GET \/missing/);

      const h1 = await new Promise<string>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port, path: '/api/echo/yo', rejectUnauthorized: false }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve(body));
          })
          .on('error', reject);
      });
      assert.equal(h1, 'YO 1.1 /api /api/echo/yo true object');
    } finally {
      server.close();
    }
  });

  it('takes the host from :authority, also when a Host header names another', async () => {
    const app = webapp();
    app.get('/host', (req, res) => res.send(`${req.hostname} ${req.get('host')}`));
    const server = http2.createSecureServer({ key, cert }, app as Any);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const answer = await h2request(port, {
        ':path': '/host',
        ':authority': 'app.example:8443',
        host: 'evil.example',
      });
      assert.deepEqual(answer, { status: 200, body: 'app.example app.example:8443' });
    } finally {
      server.close();
    }
  });

  it("HTTP/1's connection headers are left out of HTTP/2 responses, however they were set", async () => {
    // Node refuses to write a head with Keep-Alive, Transfer-Encoding... over HTTP/2: the
    // route answered 500 and, where the head was written after the route (express-session's
    // end after its store saved), the throw ended the process.
    const app = webapp();
    app.use(session({ secret: 'keyboard cat', resave: false, saveUninitialized: true }));
    const refused: Array<[string, string]> = [
      ['Keep-Alive', 'timeout=5'],
      ['Transfer-Encoding', 'chunked'],
      ['Upgrade', 'h2c'],
      ['Proxy-Connection', 'keep-alive'],
      ['HTTP2-Settings', 'AAMAAABkAAQAAP__'],
      ['TE', 'gzip'],
    ];
    const routes: Record<string, (res: Any) => void> = {
      '/set': (res) => {
        for (const [name, value] of refused) res.set(name, value);
        res.set('X-Kept', 'yes').send('set');
      },
      '/write-head-object': (res) => {
        res.writeHead(201, { ...Object.fromEntries(refused), 'X-Kept': 'yes' });
        res.end('object');
      },
      '/write-head-message': (res) => {
        res.writeHead(202, 'Accepted', { 'keep-alive': 'timeout=5', 'X-Kept': 'yes' });
        res.end('message');
      },
      '/write-head-pairs': (res) => {
        res.writeHead(200, [...refused, ['X-Kept', 'yes']]);
        res.end('pairs');
      },
      '/write-head-flat': (res) => {
        res.writeHead(200, ['Upgrade', 'h2c', 'X-Kept', 'yes']);
        res.end('flat');
      },
      '/te-trailers': (res) => {
        res.setHeader('TE', 'trailers');
        res.set('X-Kept', 'yes').send('te');
      },
    };
    for (const [path, route] of Object.entries(routes)) app.get(path, (_req: Any, res: Any) => route(res));
    const errors: string[] = [];
    app.use((err: Error, _req: Any, res: Any, _next: Any) => {
      errors.push(err.message);
      res.status(500).send('error');
    });
    const events = watchProcessEvents();
    const server = http2.createServer(app as Any);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const get = (path: string) =>
      new Promise<{ status: number; body: string; headers: http2.IncomingHttpHeaders }>((resolve, reject) => {
        const stream = client.request({ ':path': path });
        let headers: http2.IncomingHttpHeaders = {};
        let body = '';
        stream.on('response', (received) => (headers = received));
        stream.setEncoding('utf8');
        stream.on('data', (chunk) => (body += chunk));
        stream.on('end', () => resolve({ status: Number(headers[':status']), body, headers }));
        stream.on('error', reject);
      });
    try {
      const expected: Record<string, [number, string]> = {
        '/set': [200, 'set'],
        '/write-head-object': [201, 'object'],
        '/write-head-message': [202, 'message'],
        '/write-head-pairs': [200, 'pairs'],
        '/write-head-flat': [200, 'flat'],
        '/te-trailers': [200, 'te'],
      };
      for (const [path, [status, body]] of Object.entries(expected)) {
        // Twice: the second request finds the session saved by the first.
        for (let i = 0; i < 2; i++) {
          const answer = await get(path);
          assert.deepEqual([answer.status, answer.body, answer.headers['x-kept']], [status, body, 'yes'], path);
          for (const [name] of refused) {
            if (path !== '/te-trailers') assert.equal(answer.headers[name.toLowerCase()], undefined, path + ' ' + name);
          }
          assert.match(String(answer.headers['set-cookie']), /^connect\.sid=/, path);
        }
      }
      assert.deepEqual(errors, []);
      assert.deepEqual(events.uncaught, []);
      // One warning per header name, not one per response.
      assert.deepEqual(droppedHeaderNames(events.warnings), [
        'http2-settings',
        'keep-alive',
        'proxy-connection',
        'te',
        'transfer-encoding',
        'upgrade',
      ]);
    } finally {
      events.stop();
      client.close();
      server.close();
    }
  });

  it('express-session saves sessions over HTTP/2 (it writes the head with res._implicitHeader())', async () => {
    const app = webapp();
    app.use(session({ secret: 'keyboard cat', resave: false, saveUninitialized: false }));
    app.get('/count', (req: Any, res: Any) => {
      req.session.views = (req.session.views || 0) + 1;
      // Node's own end, with no head written yet: the session's end writes it.
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ views: req.session.views }));
    });
    const errors: string[] = [];
    app.use((err: Error, _req: Any, res: Any, _next: Any) => {
      errors.push(err.message);
      res.status(500).end();
    });
    const server = http2.createServer(app as Any);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const get = (cookie?: string) =>
      new Promise<{ status: number; body: string; setCookie: string[] }>((resolve, reject) => {
        const stream = client.request({ ':path': '/count', ...(cookie ? { cookie } : {}) });
        let status = 0;
        let setCookie: string[] = [];
        let body = '';
        stream.on('response', (headers) => {
          status = Number(headers[':status']);
          setCookie = (headers['set-cookie'] as string[] | undefined) ?? [];
        });
        stream.setEncoding('utf8');
        stream.on('data', (chunk) => (body += chunk));
        stream.on('end', () => resolve({ status, body, setCookie }));
        stream.on('error', reject);
      });
    try {
      const first = await get();
      assert.deepEqual([first.status, first.body], [200, '{"views":1}']);
      const cookie = first.setCookie[0]!.split(';')[0]!;
      assert.match(cookie, /^connect\.sid=/);
      const second = await get(cookie);
      assert.deepEqual([second.status, second.body], [200, '{"views":2}']);
      assert.deepEqual(errors, []);
    } finally {
      client.close();
      server.close();
    }
  });

  it("appendHeader where Node's HTTP/2 response has none (before 20.12): on-headers' flat lists", async () => {
    // Node 20.9 to 20.11, as any line can show it: a response class without appendHeader.
    class ResponseBefore2012 extends http2.Http2ServerResponse {}
    Object.defineProperty(ResponseBefore2012.prototype, 'appendHeader', { value: undefined });
    const app = webapp();
    app.use(session({ secret: 'keyboard cat', resave: false, saveUninitialized: true }));
    app.get('/flat', (_req: Any, res: Any) => {
      // express-session's on-headers hook rewrites a flat list with appendHeader, name by name.
      res.writeHead(200, ['X-Kept', 'yes', 'X-Twice', 'a', 'X-Twice', 'b']);
      res.end('flat');
    });
    app.get('/append', (_req: Any, res: Any) => {
      res.setHeader('X-List', 'one');
      const returned = res.appendHeader('X-List', ['two', 'three']);
      res.appendHeader('X-New', 'new');
      const thrown: string[] = [];
      for (const [name, value] of [
        ['X-Bad', 'a\nb'],
        ['Bad Name', 'x'],
      ]) {
        try {
          res.appendHeader(name, value);
        } catch (err) {
          thrown.push((err as { code: string }).code);
        }
      }
      // The response, as HTTP/1's appendHeader returns.
      res.end(JSON.stringify({ returned: returned === res, thrown }));
    });
    app.get('/after-head', (_req: Any, res: Any) => {
      res.writeHead(200);
      try {
        res.appendHeader('X-Late', 'late');
      } catch (err) {
        res.end((err as { code: string }).code);
      }
    });
    const errors: string[] = [];
    app.use((err: Error, _req: Any, res: Any, _next: Any) => {
      errors.push(err.message);
      res.status(500).end('error');
    });
    const server = http2.createServer({ Http2ServerResponse: ResponseBefore2012 }, app as Any);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const flat = await h2exchange(client, { ':path': '/flat' });
      assert.deepEqual(
        [flat.status, flat.body, flat.headers['x-kept'], flat.headers['x-twice']],
        [200, 'flat', 'yes', 'a, b'],
      );
      assert.match(String(flat.headers['set-cookie']), /^connect\.sid=/);
      const appended = await h2exchange(client, { ':path': '/append' });
      assert.equal(appended.status, 200);
      assert.deepEqual(JSON.parse(appended.body), {
        returned: true,
        thrown: ['ERR_INVALID_CHAR', 'ERR_INVALID_HTTP_TOKEN'],
      });
      assert.deepEqual([appended.headers['x-list'], appended.headers['x-new']], ['one, two, three', 'new']);
      const late = await h2exchange(client, { ':path': '/after-head' });
      assert.deepEqual([late.status, late.body, late.headers['x-late']], [200, 'ERR_HTTP2_HEADERS_SENT', undefined]);
      assert.deepEqual(errors, []);
    } finally {
      client.close();
      server.close();
    }
  });

  it('a known method sent in small letters becomes its capitals: routes and app code see one method', async () => {
    // HTTP/1's parser refuses `post`; HTTP/2 takes any token, and the router matches methods
    // without case: a guard on `req.method === 'POST'` must see the request `app.post` answers.
    const app = webapp();
    app.use((req: Any, res: Any, next: Any) => {
      if (req.method === 'POST' && req.get('x-csrf-token') !== 'ok') return res.status(403).send('csrf');
      next();
    });
    app.post('/transfer', (req: Any, res: Any) => res.send('moved by ' + req.method));
    app.use('/echo', (req: Any, res: Any) => res.send(req.method));
    const server = http2.createServer(app as Any);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      for (const method of ['post', 'Post', 'POST']) {
        assert.deepEqual(await h2request(session, { ':path': '/transfer', ':method': method }), {
          status: 403,
          body: 'csrf',
        });
      }
      const allowed = await h2request(session, { ':path': '/transfer', ':method': 'post', 'x-csrf-token': 'ok' });
      assert.deepEqual(allowed, { status: 200, body: 'moved by POST' });
      // A token that is no known method is left as sent.
      assert.deepEqual(await h2request(session, { ':path': '/echo', ':method': 'brew' }), {
        status: 200,
        body: 'brew',
      });
      // So is `head`: the client expects the body of a method of its own, not HEAD's
      // Content-Length without one (it reset the stream as malformed).
      const head = await h2exchange(session, { ':path': '/echo', ':method': 'head' });
      assert.deepEqual([head.status, head.body, head.rstCode], [200, 'head', 0]);
    } finally {
      session.close();
      server.close();
    }
  });

  it('a response cut by an error after its head resets its stream (INTERNAL_ERROR); the session goes on', async () => {
    // Over HTTP/1 the connection closes. The HTTP/2 request's socket is a proxy whose
    // destroy() reset the stream with NO_ERROR: the client read a complete 200.
    for (const errorHandler of [undefined, webappMiddleware.errorHandler({ log: false })]) {
      const app = webapp();
      app.get('/partial', (_req, res, next) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
        setImmediate(next, new Error('failed halfway'));
      });
      app.get('/ok', (_req, res) => res.send('ok'));
      if (errorHandler) app.use(errorHandler);
      app.set('env', 'test');
      const server = http2.createSecureServer({ key, cert }, app as Any);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const session = h2connect((server.address() as AddressInfo).port);
      try {
        const cut = await h2exchange(session, { ':path': '/partial' });
        assert.equal(cut.body, 'partial');
        assert.equal(cut.rstCode, http2.constants.NGHTTP2_INTERNAL_ERROR);
        const next = await h2exchange(session, { ':path': '/ok' });
        assert.deepEqual([next.status, next.body, next.rstCode], [200, 'ok', http2.constants.NGHTTP2_NO_ERROR]);
      } finally {
        session.close();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it("a mounted app's requests have its prototypes and settings over HTTP/2 (its trust proxy)", async () => {
    // The sub-app's HTTP/2 prototypes were looked up through its `app.request`, which
    // inherits from the parent's: it got the parent's, and with it the parent's settings.
    const app = webapp();
    const admin = webapp();
    app.set('trust proxy', true);
    admin.set('trust proxy', false);
    (admin.request as Any).area = () => 'admin';
    (app.request as Any).area = () => 'site';
    const whoami = (req: Any, res: Any) =>
      res.json({ app: req.app === admin ? 'admin' : 'site', area: req.area(), ip: req.ip, protocol: req.protocol });
    admin.get('/whoami', whoami);
    app.use('/admin', admin);
    app.get('/whoami', whoami);
    const server = http2.createSecureServer({ key, cert }, app as Any);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = h2connect((server.address() as AddressInfo).port);
    try {
      const forwarded = { 'x-forwarded-for': '10.0.0.5', 'x-forwarded-proto': 'http' };
      for (let round = 0; round < 2; round++) {
        const inAdmin = await h2exchange(session, { ':path': '/admin/whoami', ...forwarded });
        assert.deepEqual(JSON.parse(inAdmin.body), { app: 'admin', area: 'admin', ip: '127.0.0.1', protocol: 'https' });
        const inSite = await h2exchange(session, { ':path': '/whoami', ...forwarded });
        assert.deepEqual(JSON.parse(inSite.body), { app: 'site', area: 'site', ip: '10.0.0.5', protocol: 'http' });
      }
    } finally {
      session.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('an express@4 sub-app a request passes through gives it back whole: the app goes on over HTTP/2', async () => {
    // Express's expressInit gives the request its own `app.request`, whose chain is
    // HTTP/1's (Express's routes see no URL over HTTP/2, and match nothing). On the
    // way back the app gave it an HTTP/1 prototype too: its next read of the body
    // touched the session's socket, an error event that ended the process.
    const app = webapp();
    const legacy = express();
    legacy.get('/x', (_req: Any, res: Any) => res.send('legacy'));
    app.use('/legacy', legacy);
    app.get('/legacy/x', (req: Any, res: Any) =>
      res.json({ url: req.url, http2: req instanceof http2.Http2ServerRequest, method: req.method }),
    );
    const server = http2.createSecureServer({ key, cert }, app as Any);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = h2connect((server.address() as AddressInfo).port);
    try {
      // Without an answer (the broken request never gets one), the test fails instead of waiting.
      const exchange = (path: string) =>
        Promise.race([
          h2exchange(session, { ':path': path }),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer to ${path}`)), 5000).unref()),
        ]);
      for (let round = 0; round < 2; round++) {
        const answer = await exchange('/legacy/x');
        assert.equal(answer.status, 200);
        assert.deepEqual(JSON.parse(answer.body), { url: '/legacy/x', http2: true, method: 'GET' });
        const missing = await exchange('/legacy/missing');
        assert.equal(missing.status, 404);
      }
    } finally {
      session.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('req.ip, req.protocol and req.secure keep their values once the stream has closed', async () => {
    // Node's HTTP/2 request socket turns into a proxy of the closed stream, which has no
    // address and no encryption: read at `finish` or `close`, req.ip was undefined and
    // req.protocol `http`, and a trust function given undefined threw out of a listener.
    const app = webapp();
    app.set('trust proxy', (address: string) => address.startsWith('127.'));
    const seen: Record<string, unknown>[] = [];
    const record = (when: string, req: Any) => {
      try {
        seen.push({
          when,
          ip: req.ip,
          ips: req.ips,
          protocol: req.protocol,
          secure: req.secure,
          peer: req.socket.remoteAddress,
        });
      } catch (err) {
        seen.push({ when, threw: String(err) });
      }
    };
    let closed: () => void;
    const allClosed = new Promise<void>((resolve) => (closed = resolve));
    app.use((req: Any, res: Any, next: Any) => {
      res.on('finish', () => record('finish', req));
      req.on('close', () => {
        record('close', req);
        setTimeout(() => {
          record('later', req);
          closed();
        }, 10);
      });
      next();
    });
    app.get('/', (req: Any, res: Any) => {
      record('handler', req);
      res.send('ok');
    });
    const server = http2.createSecureServer({ key, cert }, app as Any);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = h2connect((server.address() as AddressInfo).port);
    try {
      const answer = await h2exchange(session, { ':path': '/', 'x-forwarded-for': '203.0.113.9' });
      assert.equal(answer.body, 'ok');
      await allClosed;
      const expected = { ip: '203.0.113.9', ips: ['203.0.113.9'], protocol: 'https', secure: true, peer: '127.0.0.1' };
      // `finish` and `close` come in either order.
      const order = ['handler', 'finish', 'close', 'later'];
      seen.sort((a, b) => order.indexOf(a.when as string) - order.indexOf(b.when as string));
      assert.deepEqual(
        seen,
        order.map((when) => ({ when, ...expected })),
      );
    } finally {
      session.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("assigning to the request's getters is refused over HTTP/2 as over HTTP/1", async () => {
    // `req.ip = req.headers['x-real-ip']` changes nothing in Express (a TypeError in strict
    // code); over HTTP/2 it made a header the client controls the client's address.
    const app = webapp();
    app.get('/', (req: Any, res: Any) => {
      const refused: string[] = [];
      for (const name of ['ip', 'protocol', 'hostname', 'secure']) {
        try {
          assignInStrictCode(req, name, 'forged');
        } catch (err) {
          refused.push(`${name}: ${(err as Error).name}`);
        }
      }
      req.custom = 'kept';
      res.json({ refused, ip: req.ip, protocol: req.protocol, hostname: req.hostname, custom: req.custom });
    });
    const server = http2.createSecureServer({ key, cert, allowHTTP1: true }, app as Any);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const h2 = JSON.parse((await h2get(port, '/')).body);
      const h1 = await new Promise<Any>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port, path: '/', rejectUnauthorized: false }, (res) => {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve(JSON.parse(body)));
          })
          .on('error', reject);
      });
      assert.deepEqual(h2, {
        refused: ['ip: TypeError', 'protocol: TypeError', 'hostname: TypeError', 'secure: TypeError'],
        ip: '127.0.0.1',
        protocol: 'https',
        hostname: '127.0.0.1',
        custom: 'kept',
      });
      assert.deepEqual(h2, h1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
