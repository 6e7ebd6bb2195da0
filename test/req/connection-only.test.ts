/**
 * A request carrying its connection as `req.connection` alone, as adapters and older
 * test doubles build it (Node's own requests have the same object under both names):
 * Express 3.21 and Connect 2.30 read that name for the protocol, the trusted peer and
 * a secure cookie, as Express 4 does (test/compat/test-doubles.test.ts compares those).
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { describe, it } from 'node:test';
import webapp3 = require('../../src/v3/index');
import { cookieSession } from '../../src/middleware/cookie-session';
import { session } from '../../src/middleware/session';
import { rawRequest, withServer } from '../support/raw-http';

type Any = any;

/** A server that hands the app a plain request with TLS and a loopback peer on `connection` only. */
function connectionOnly(app: (req: Any, res: http.ServerResponse) => void): http.RequestListener {
  return ({ method, url, headers }, res) =>
    app({ method, url, headers, connection: { encrypted: true, remoteAddress: '127.0.0.1' } }, res);
}

describe('a request whose connection is `req.connection` alone', () => {
  it('webapp/v3: req.protocol and req.secure read it, and a trusted peer its X-Forwarded-Proto', async () => {
    const app: Any = webapp3();
    app.set('trust proxy', 'loopback');
    app.get('/', (req: Any, res: Any) => res.json({ protocol: req.protocol, secure: req.secure, host: req.host }));
    await withServer(connectionOnly(app), async (port) => {
      const direct = await rawRequest(port, { path: '/', headers: { Host: 'direct.example' } });
      assert.deepEqual(JSON.parse(direct.body), { protocol: 'https', secure: true, host: 'direct.example' });
      const proxied = await rawRequest(port, {
        path: '/',
        headers: { Host: 'direct.example', 'X-Forwarded-Proto': 'http', 'X-Forwarded-Host': 'shop.example' },
      });
      assert.deepEqual(JSON.parse(proxied.body), { protocol: 'http', secure: false, host: 'shop.example' });
    });
  });

  it('webapp/middleware: session and cookieSession set their secure cookie over that connection', async () => {
    for (const middleware of [
      session({ secret: 'sekrit', cookie: { secure: true } }),
      cookieSession({ secret: 'sekrit', cookie: { secure: true } }),
    ]) {
      const app: Any = webapp3();
      app.use(webapp3.cookieParser());
      app.use(middleware);
      app.get('/', (req: Any, res: Any) => {
        req.session.visits = 1;
        res.end('ok');
      });
      await withServer(connectionOnly(app), async (port) => {
        const answer = await rawRequest(port, { path: '/' });
        assert.equal(answer.status, 200);
        assert.match(String(answer.headers['set-cookie']), /; Secure/i);
      });
    }
  });
});
