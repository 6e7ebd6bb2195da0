/** The places where webapp/v3 deliberately differs from Express 3 for safety. */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import request from 'supertest';
import webapp3 = require('../../src/v3/index');

type Any = any;

describe('webapp/v3 security fixes', () => {
  it("the error page follows the app's env: no stack trace when the app runs in production", async () => {
    const app = webapp3();
    app.set('env', 'production');
    app.get('/', () => {
      throw new Error('secret internals');
    });
    const res = await request(app).get('/').expect(500);
    assert.equal(res.text, 'Internal Server Error\n');
  });

  it('an error status outside 400..599 answers 500 instead of crashing the response', async () => {
    const app = webapp3();
    app.set('env', 'production');
    app.get('/', (_req: Any, _res: Any, next: Any) => next(Object.assign(new Error('x'), { status: 1000 })));
    await request(app).get('/').expect(500, 'Internal Server Error\n');
    await request(app).get('/').expect(500);
  });

  it('a status that is not a number, left by errorHandler, answers 500 instead of ending the process', async () => {
    // errorHandler copies err.status into res.statusCode; Node then refuses to write the
    // head, and the final handler found the string there (express3 ends the process too).
    for (const status of ['abc', '<b>x</b>', '404abc', {}]) {
      const app = webapp3();
      app.set('env', 'test');
      app.get('/', (_req: Any, _res: Any, next: Any) => next(Object.assign(new Error('x'), { status })));
      app.use(webapp3.errorHandler());
      await request(app).get('/').expect(500);
    }
  });

  it('a status message Node refuses: the error page goes with the status text, the process goes on', async () => {
    // An app copying a request value into `res.statusMessage` (a line break in it): the
    // handler's own send throws (a 500 for the final handler), whose page threw again
    // from a callback of its own, outside any handler (express3 ends the process too).
    const app = webapp3();
    app.set('env', 'production');
    app.get('/send', (req: Any, res: Any) => {
      res.statusMessage = req.query.message;
      res.send('x');
    });
    app.get('/next', (req: Any, res: Any, next: Any) => {
      res.statusMessage = req.query.message;
      setImmediate(() => next(new Error('later')));
    });
    app.get('/kept', (_req: Any, res: Any, next: Any) => {
      res.statusMessage = 'Kept';
      next(new Error('x'));
    });
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    const head = (path: string) =>
      new Promise<string>((resolve, reject) =>
        http
          .get({ host: '127.0.0.1', port, path }, (res) => {
            res.resume();
            res.on('end', () => resolve(`${res.statusCode} ${res.statusMessage}`));
          })
          .on('error', reject),
      );
    try {
      assert.equal(await head('/send?message=a%0d%0ab'), '500 Internal Server Error');
      assert.equal(await head('/next?message=a%0ab'), '500 Internal Server Error');
      // A message Node sends is left as the app set it, as in 3.x.
      assert.equal(await head('/kept'), '500 Kept');
    } finally {
      server.close();
    }
  });

  it('errorHandler answers 500 for a status Node refuses, also when session defers the end', async () => {
    // session writes the head after the store saves, outside any handler: the status
    // errorHandler left there used to be thrown from there (uncaught: the process ended,
    // as under express3). 600 and more are not error statuses either.
    for (const status of ['abc', 1000, 700, Number.NaN, {}, '404abc']) {
      const app = webapp3();
      app.set('env', 'test');
      app.use(webapp3.cookieParser());
      app.use(webapp3.session({ secret: 'keyboard cat' }));
      app.get('/', (_req: Any, _res: Any, next: Any) => next(Object.assign(new Error('x'), { status })));
      app.get('/ok', (_req: Any, res: Any) => res.send('ok'));
      app.use(webapp3.errorHandler({ log: false }));
      const res = await request(app).get('/').set('Accept', 'text/plain').expect(500);
      assert.match(res.text, /^Error: x/, String(status));
      await request(app).get('/ok').expect(200, 'ok');
    }
    // Error statuses are kept, a fractional one truncated as Node sends it.
    const app = webapp3();
    app.use(webapp3.cookieParser());
    app.use(webapp3.session({ secret: 'keyboard cat' }));
    app.get('/:status', (req: Any, _res: Any, next: Any) =>
      next(Object.assign(new Error('x'), { status: Number(req.params.status) })),
    );
    app.use(webapp3.errorHandler({ log: false }));
    await request(app).get('/404').expect(404);
    await request(app).get('/503.5').expect(503);
  });

  it('a session replaced, or one that cannot be saved: an answer or a closed connection, never a crash', async () => {
    // Replaced by a plain object (as for cookieSession): the session's save threw, and
    // its cookie listener threw again from the error page's head, outside any handler.
    // A BigInt, then a 404: the 404 page's own end threw there. Express 3.21 left the
    // first hanging and ended the process on the second.
    const app = webapp3();
    app.set('env', 'test');
    app.use(webapp3.cookieParser());
    app.use(webapp3.session({ secret: 'keyboard cat' }));
    app.get('/replaced', (req: Any, res: Any) => {
      req.session = { user: 'bob' };
      res.send('ok');
    });
    app.get('/bigint', (req: Any, _res: Any, next: Any) => {
      req.session.visits = 1n;
      next();
    });
    app.get('/ok', (_req: Any, res: Any) => res.send('ok'));
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const replaced = await fetch(`http://127.0.0.1:${port}/replaced`);
      assert.equal(replaced.status, 500);
      assert.match(await replaced.text(), /TypeError/);
      await assert.rejects(fetch(`http://127.0.0.1:${port}/bigint`));
      const ok = await fetch(`http://127.0.0.1:${port}/ok`);
      assert.equal(await ok.text(), 'ok');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('an error whose fields throw or are no text: the error page answers 500, the process goes on', async () => {
    // Express 3.21's last handler read them after the app's stack, where the throw
    // ended the process (webapp's 4.x final handler reads them so too).
    const app = webapp3();
    app.set('env', 'test');
    const errors: Record<string, unknown> = {
      getter: {
        get status() {
          throw new Error('getter');
        },
      },
      stack: { stack: Object.create(null) },
      symbol: { status: Symbol('status') },
    };
    app.get('/:kind', (req: Any, _res: Any, next: Any) => next(errors[req.params.kind]));
    for (const kind of Object.keys(errors)) {
      const res = await request(app).get(`/${kind}`).expect(500);
      assert.equal(res.text, '[object Object]\n', kind);
    }
  });

  it('urlencoded bodies nest 32 brackets deep at most: deeper is a 400, not a parse to any depth', async () => {
    const app = webapp3();
    app.set('env', 'test');
    app.use(webapp3.bodyParser());
    app.post('/', (req: Any, res: Any) => {
      let depth = 0;
      for (let node = req.body; node && typeof node === 'object'; node = node.a) depth++;
      res.send(String(depth));
    });
    app.use((err: Any, _req: Any, res: Any, _next: Any) => res.status(err.status).send(err.type));
    // `a[a]...[a]=1` with `brackets` pairs of brackets: an object that many levels deep, plus `a`.
    const nested = (brackets: number) => 'a' + '[a]'.repeat(brackets) + '=1';
    await request(app).post('/').type('form').send(nested(32)).expect(200, '33');
    await request(app).post('/').type('form').send(nested(33)).expect(400, 'querystring.parse.rangeError');
    await request(app).post('/').type('form').send(nested(30000)).expect(400, 'querystring.parse.rangeError');
  });

  it("does not patch Node's ServerResponse for other apps in the process (Connect 2 did)", async () => {
    const http = await import('node:http');
    assert.equal(Object.prototype.hasOwnProperty.call(http.ServerResponse.prototype, '_hasConnectPatch'), false);
    const app = webapp3();
    app.get('/', (_req: Any, res: Any) => {
      res.cookie('a', '1');
      res.cookie('b', '2');
      res.end('ok');
    });
    const res = await request(app).get('/').expect(200);
    assert.deepEqual(res.headers['set-cookie'], ['a=1; Path=/', 'b=2; Path=/']);
  });
});
