import assert from 'node:assert/strict';
import type http from 'node:http';
import { describe, it } from 'node:test';
import { sign } from '../../src/http/cookie-signature';
import { cookieParser } from '../../src/middleware/cookie-parser';
import { cookieSession } from '../../src/middleware/cookie-session';
import { csrf, CsrfTokens } from '../../src/middleware/csrf';
import { json } from '../../src/middleware/json';
import { query } from '../../src/middleware/query';
import { urlencoded } from '../../src/middleware/urlencoded';
import {
  chain,
  connectApp,
  rawRequest,
  sendError,
  withServer,
  type Handler,
  type RawResponse,
  type RequestSpec,
} from './support';
import { itWithLiveOracle } from '../support/oracle-recording';
import { exchange } from '../support/raw-http';

const connect = require('connect');

const CsrfPackage = require('csrf');

const TOKEN = /^[A-Za-z0-9]{8}-[A-Za-z0-9_-]{27}$/;

/** `/token` answers `req.csrfToken()`, anything else `ok`. */
const app: Handler = (req, res) => {
  res.setHeader('Content-Type', 'text/plain');
  res.end(req.url.startsWith('/token') ? req.csrfToken() : 'ok');
};

/** Errors as JSON with their code, so both sides show the same thing. */
const reportError: Handler = (err: any, _req: any, res: any, _next: any) => {
  res.statusCode = err.status || 500;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ message: err.message, code: err.code }));
};

/** Connect 2.30's chain and ours, the same shape: cookies, session, parsers, csrf, app. */
function stacks(csrfOptions?: object, secret?: string, session = true): { oracle: Handler[]; ours: Handler[] } {
  const sessionOptions = { key: 'sess', secret: 'session-secret' };
  return {
    oracle: [
      connect.cookieParser(secret),
      ...(session ? [connect.cookieSession(sessionOptions)] : []),
      connect.query(),
      connect.urlencoded(),
      connect.json(),
      connect.csrf(csrfOptions),
      app,
      reportError,
    ],
    ours: [
      cookieParser(secret),
      ...(session ? [cookieSession(sessionOptions)] : []),
      query(),
      urlencoded(),
      json(),
      csrf(csrfOptions as any),
      app,
      reportError,
    ],
  };
}

/** The `name=value` pairs of a response's Set-Cookie lines, as a Cookie header. */
function cookiesOf(res: RawResponse): string {
  const lines = res.headers['set-cookie'] ?? [];
  return lines.map((line) => line.split(';')[0]).join('; ');
}

/** A request that is a browser's next one: the cookies it was given, plus `extra`. */
function withCookies(cookie: string, spec: RequestSpec): RequestSpec {
  return { ...spec, headers: { ...(cookie ? { cookie } : {}), ...spec.headers } };
}

const form = (body: string): Pick<RequestSpec, 'headers' | 'body'> => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body,
});

/** Flips the last character of a token, keeping its shape. */
function tamper(token: string): string {
  const last = token.slice(-1);
  return token.slice(0, -1) + (last === 'A' ? 'B' : 'A');
}

type Script = (port: number) => Promise<RawResponse[]>;

/**
 * The CSRF round trip a browser makes: fetch a token (and the cookies holding
 * the secret), then send state-changing requests with it in each place, without
 * it, with a wrong or tampered one, and a plain GET after the failures.
 */
const fullFlow: Script = async (port) => {
  const first = await rawRequest(port, { path: '/token' });
  const token = first.body;
  const cookie = cookiesOf(first);
  const send = (spec: RequestSpec) => rawRequest(port, withCookies(cookie, spec));
  return [
    first,
    await send({ method: 'POST', path: '/submit', ...form('_csrf=' + encodeURIComponent(token)) }),
    await send({
      method: 'POST',
      path: '/submit',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ _csrf: token }),
    }),
    await send({ method: 'POST', path: '/submit?_csrf=' + encodeURIComponent(token) }),
    await send({ method: 'POST', path: '/submit', headers: { 'csrf-token': token } }),
    await send({ method: 'PUT', path: '/submit', headers: { 'xsrf-token': token } }),
    await send({ method: 'DELETE', path: '/submit', headers: { 'x-csrf-token': token } }),
    await send({ method: 'PATCH', path: '/submit', headers: { 'x-xsrf-token': token } }),
    await send({ method: 'POST', path: '/submit' }),
    await send({ method: 'POST', path: '/submit', ...form('_csrf=') }),
    await send({ method: 'POST', path: '/submit', ...form('_csrf=nodash') }),
    await send({ method: 'POST', path: '/submit', ...form('_csrf=' + encodeURIComponent(tamper(token))) }),
    await send({ method: 'POST', path: '/submit', ...form('_csrf[]=' + encodeURIComponent(token)) }),
    await send({ method: 'POST', path: '/submit', headers: { 'x-csrf-token': token.slice(0, 9) } }),
    await send({ method: 'DELETE', path: '/submit' }),
    await send({ method: 'HEAD', path: '/submit' }),
    await send({ method: 'OPTIONS', path: '/submit' }),
    await send({ path: '/submit' }),
    // The same token without the cookies that hold its secret.
    await rawRequest(port, { method: 'POST', path: '/submit', headers: { 'x-csrf-token': token } }),
    await send({ path: '/token' }),
  ];
};

/** Random parts (tokens, secrets inside cookies) replaced, so the flows compare. */
function normalize(res: RawResponse): RawResponse {
  const headers = { ...res.headers };
  if (headers['set-cookie'])
    headers['set-cookie'] = headers['set-cookie'].map((line) => line.replace(/^([^=]+)=[^;]*/, '$1=<value>'));
  return { ...res, headers, body: TOKEN.test(res.body) ? '<token>' : res.body };
}

async function runFlow(listener: http.RequestListener, script: Script): Promise<RawResponse[]> {
  return withServer(listener, script);
}

/** The same script on Connect 2.30 and on webapp: equal status, headers and body once the random parts are masked. */
async function assertSameFlow(oracle: Handler[], ours: Handler[], script: Script): Promise<RawResponse[]> {
  const expected = await runFlow(connectApp(oracle), script);
  const actual = await runFlow(chain([...ours, sendError]), script);
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < actual.length; i++) {
    const strip = (res: RawResponse) => {
      const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...headers } = normalize(res).headers;
      return { status: res.status, headers, body: normalize(res).body };
    };
    assert.deepEqual(strip(actual[i]), strip(expected[i]), `step ${i}`);
  }
  return actual;
}

const statuses = (responses: RawResponse[]) => responses.map((res) => res.status);
// fullFlow's expected statuses: token, 7 good submissions, 7 refused, HEAD/OPTIONS/GET pass,
// no cookie refused, token again.
const FLOW_STATUSES = [
  200, 200, 200, 200, 200, 200, 200, 200, 403, 403, 403, 403, 403, 403, 403, 200, 200, 200, 403, 200,
];

describe('csrf', () => {
  it('is csrf(options), arity 1', () => {
    assert.equal(typeof csrf, 'function');
    assert.equal(csrf.length, 1);
    assert.equal(csrf().length, 3);
  });

  describe('with the secret in the session', () => {
    it('takes the token from body, JSON body, query and each header; refuses the rest: 403 EBADCSRFTOKEN', async () => {
      const { ours } = stacks();
      const responses = await runFlow(chain([...ours, sendError]), fullFlow);
      assert.deepEqual(statuses(responses), FLOW_STATUSES);
      assert.match(responses[0].body, TOKEN);
      assert.equal(responses[1].body, 'ok');
      for (const refused of [responses[8], responses[11], responses[18]]) {
        assert.deepEqual(JSON.parse(refused.body), { message: 'invalid csrf token', code: 'EBADCSRFTOKEN' });
      }
      // A new token for the same secret each request, and the old one still works.
      assert.match(responses[19].body, TOKEN);
      assert.notEqual(responses[19].body, responses[0].body);
    });

    it('matches Connect 2.30 (cookieSession as the session on both sides)', async () => {
      const { oracle, ours } = stacks();
      const responses = await assertSameFlow(oracle, ours, fullFlow);
      assert.deepEqual(statuses(responses), FLOW_STATUSES);
    });

    it('stores the secret in req.session.csrfSecret and reuses it', async () => {
      const seen: unknown[] = [];
      const handlers: Handler[] = [
        (req: any, _res: any, next: any) => {
          req.session = { csrfSecret: 'fixed-secret-value' };
          next();
        },
        csrf(),
        (req: any, res: any) => {
          const token = req.csrfToken();
          seen.push(req.session.csrfSecret);
          // Cached within a request while the secret stays the same.
          assert.equal(req.csrfToken(), token);
          res.end(token);
        },
      ];
      const responses = await withServer(chain(handlers), async (port) => [await rawRequest(port, { path: '/' })]);
      assert.deepEqual(seen, ['fixed-secret-value']);
      assert.ok(new CsrfPackage().verify('fixed-secret-value', responses[0].body));
    });

    it('makes a new token when the session secret changes during the request (session regenerated)', async () => {
      const handlers: Handler[] = [
        (req: any, _res: any, next: any) => {
          req.session = {};
          next();
        },
        csrf(),
        (req: any, res: any) => {
          const before = req.csrfToken();
          const firstSecret = req.session.csrfSecret;
          req.session = {};
          const after = req.csrfToken();
          const tokens = new CsrfTokens();
          res.end(
            JSON.stringify([
              tokens.verify(firstSecret, before),
              tokens.verify(req.session.csrfSecret, after),
              firstSecret !== req.session.csrfSecret,
            ]),
          );
        },
      ];
      const [res] = await withServer(chain(handlers), async (port) => [await rawRequest(port, { path: '/' })]);
      assert.deepEqual(JSON.parse(res.body), [true, true, true]);
    });

    it('req.csrfToken() is there for the error handler after a refusal', async () => {
      const handlers: Handler[] = [
        (req: any, _res: any, next: any) => {
          req.session = {};
          next();
        },
        csrf(),
        app,
        (err: any, req: any, res: any, _next: any) => {
          res.statusCode = err.status;
          res.end(err.code + ' ' + req.csrfToken());
        },
      ];
      const [res] = await withServer(chain(handlers), async (port) => [
        await rawRequest(port, { method: 'POST', path: '/' }),
      ]);
      assert.equal(res.status, 403);
      assert.match(res.body, /^EBADCSRFTOKEN [A-Za-z0-9]{8}-/);
    });

    it('sessionKey names where the session is', async () => {
      const handlers: Handler[] = [
        (req: any, _res: any, next: any) => {
          req.mySession = {};
          next();
        },
        csrf({ sessionKey: 'mySession' }),
        (req: any, res: any) => res.end(req.csrfToken() + ' ' + typeof req.mySession.csrfSecret),
      ];
      const [res] = await withServer(chain(handlers), async (port) => [await rawRequest(port, { path: '/' })]);
      assert.match(res.body, / string$/);
    });

    it('without a session: 500 misconfigured csrf, as Connect 2.30, and the server keeps serving', async () => {
      const { oracle, ours } = stacks(undefined, undefined, false);
      const script: Script = async (port) => [
        await rawRequest(port, { path: '/token' }),
        await rawRequest(port, { method: 'POST', path: '/submit' }),
      ];
      const responses = await assertSameFlow(oracle, ours, script);
      assert.deepEqual(statuses(responses), [500, 500]);
      assert.equal(JSON.parse(responses[0].body).message, 'misconfigured csrf');
      const [again] = await withServer(chain([...stacks().ours, sendError]), async (port) => [
        await rawRequest(port, { path: '/token' }),
      ]);
      assert.equal(again.status, 200);
    });
  });

  describe('with the secret in a cookie', () => {
    it('plain cookie `_csrf`: same flow, matches Connect 2.30', async () => {
      const { oracle, ours } = stacks({ cookie: true }, undefined, false);
      const responses = await assertSameFlow(oracle, ours, fullFlow);
      assert.deepEqual(statuses(responses), FLOW_STATUSES);
      assert.match(String(responses[0].headers['set-cookie']), /^_csrf=[A-Za-z0-9_-]{24}; Path=\/$/);
    });

    it('names the Set-Cookie header in small letters on the wire, as csurf does', async () => {
      const wire = await withServer(chain(stacks({ cookie: true }, undefined, false).ours), (port) =>
        exchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      );
      assert.match(wire, /\r\nset-cookie: _csrf=[A-Za-z0-9_-]{24}; Path=\/\r\n/);
    });

    it('signed cookie with cookieParser(secret): same flow, matches Connect 2.30', async () => {
      const { oracle, ours } = stacks(
        { cookie: { signed: true, key: 'xsrf', httpOnly: true } },
        'cookie-secret',
        false,
      );
      const responses = await assertSameFlow(oracle, ours, fullFlow);
      assert.deepEqual(statuses(responses), FLOW_STATUSES);
      const line = String(responses[0].headers['set-cookie']);
      assert.match(line, /^xsrf=s%3A[A-Za-z0-9_-]{24}\.[^;]+; Path=\/; HttpOnly$/);
    });

    // The token is made with a fresh random salt, so Connect's answers cannot be recorded: live only.
    itWithLiveOracle(
      'a signed cookie with a forged signature is not the secret: refused, as Connect 2.30',
      'a request with a random token',
      async () => {
        const { oracle, ours } = stacks({ cookie: { signed: true } }, 'cookie-secret', false);
        const secret = 'abcdefghijklmnopqrstuvwx';
        const token = new CsrfPackage().create(secret);
        const script: Script = async (port) => [
          await rawRequest(port, {
            method: 'POST',
            path: '/',
            headers: { cookie: '_csrf=' + encodeURIComponent('s:' + sign(secret, 'wrong')), 'x-csrf-token': token },
          }),
          await rawRequest(port, {
            method: 'POST',
            path: '/',
            headers: { cookie: '_csrf=' + secret, 'x-csrf-token': token },
          }),
          await rawRequest(port, {
            method: 'POST',
            path: '/',
            headers: {
              cookie: '_csrf=' + encodeURIComponent('s:' + sign(secret, 'cookie-secret')),
              'x-csrf-token': token,
            },
          }),
        ];
        const responses = await assertSameFlow(oracle, ours, script);
        assert.deepEqual(statuses(responses), [403, 403, 200]);
      },
    );

    it('cookie attributes (domain, maxAge, secure) as Connect 2.30 sets them', async () => {
      const { oracle, ours } = stacks(
        { cookie: { key: 'c', domain: 'example.test', maxAge: 3600, secure: true, path: '/app' } },
        undefined,
        false,
      );
      const script: Script = async (port) => [await rawRequest(port, { path: '/token' })];
      const [res] = await assertSameFlow(oracle, ours, script);
      assert.match(
        String(res.headers['set-cookie']),
        /^c=[^;]+; Max-Age=3600; Domain=example\.test; Path=\/app; Secure$/,
      );
    });

    it('keeps Set-Cookie lines set before it', async () => {
      const handlers: Handler[] = [
        (_req: any, res: any, next: any) => {
          res.setHeader('Set-Cookie', 'other=1');
          next();
        },
        cookieParser(),
        csrf({ cookie: true }),
        app,
      ];
      const [res] = await withServer(chain(handlers), async (port) => [await rawRequest(port, { path: '/token' })]);
      assert.equal(res.headers['set-cookie']?.length, 2);
      assert.equal(res.headers['set-cookie']?.[0], 'other=1');
    });

    it('a cookie that is not a string secret (a j: JSON cookie) is replaced by a new secret', async () => {
      const handlers: Handler[] = [cookieParser(), csrf({ cookie: true }), app, reportError];
      const [res] = await withServer(chain(handlers), async (port) => [
        await rawRequest(port, { path: '/token', headers: { cookie: '_csrf=' + encodeURIComponent('j:{"a":1}') } }),
      ]);
      assert.equal(res.status, 200);
      assert.match(res.body, TOKEN);
      assert.match(String(res.headers['set-cookie']), /^_csrf=[A-Za-z0-9_-]{24};/);
    });

    it('signed without a cookieParser secret: 500, as Connect 2.30', async () => {
      const { oracle, ours } = stacks({ cookie: { signed: true } }, undefined, false);
      const script: Script = async (port) => [await rawRequest(port, { path: '/token' })];
      const [res] = await assertSameFlow(oracle, ours, script);
      assert.equal(res.status, 500);
      assert.equal(JSON.parse(res.body).message, 'cookieParser("secret") required for signed cookies');
    });

    it('without cookieParser: 500 misconfigured csrf', async () => {
      const [res, next] = await withServer(chain([csrf({ cookie: true }), app, reportError]), async (port) => [
        await rawRequest(port, { path: '/token' }),
        await rawRequest(port, { method: 'POST', path: '/' }),
      ]);
      assert.equal(res.status, 500);
      assert.equal(JSON.parse(res.body).message, 'misconfigured csrf');
      assert.equal(next.status, 500);
    });
  });

  describe('options', () => {
    it('ignoreMethods replaces the default list (case-insensitive), as Connect 2.30', async () => {
      const { oracle, ours } = stacks({ ignoreMethods: ['post', 'Head'] });
      const script: Script = async (port) => [
        await rawRequest(port, { method: 'POST', path: '/' }),
        await rawRequest(port, { method: 'HEAD', path: '/' }),
        await rawRequest(port, { path: '/' }),
        await rawRequest(port, { method: 'OPTIONS', path: '/' }),
        await rawRequest(port, { method: 'PUT', path: '/' }),
      ];
      const responses = await assertSameFlow(oracle, ours, script);
      assert.deepEqual(statuses(responses), [200, 200, 403, 403, 403]);
    });

    it('ignoreMethods: [] checks every method', async () => {
      const [res] = await withServer(chain([...stacks({ ignoreMethods: [] }).ours, sendError]), async (port) => [
        await rawRequest(port, { path: '/' }),
      ]);
      assert.equal(res.status, 403);
    });

    it('ignoreMethods must be an array of names', () => {
      assert.throws(() => csrf({ ignoreMethods: 'GET' as any }), {
        name: 'TypeError',
        message: 'option ignoreMethods must be an array',
      });
      assert.throws(() => csrf({ ignoreMethods: [1 as any] }), TypeError);
    });

    it('value reads the token from where the app puts it, as Connect 2.30', async () => {
      const options = { value: (req: any) => req.headers['x-my-token'] };
      const { oracle, ours } = stacks(options);
      const script: Script = async (port) => {
        const first = await rawRequest(port, { path: '/token' });
        const cookie = cookiesOf(first);
        return [
          first,
          await rawRequest(
            port,
            withCookies(cookie, { method: 'POST', path: '/', headers: { 'x-my-token': first.body } }),
          ),
          await rawRequest(
            port,
            withCookies(cookie, { method: 'POST', path: '/', headers: { 'x-csrf-token': first.body } }),
          ),
        ];
      };
      const responses = await assertSameFlow(oracle, ours, script);
      assert.deepEqual(statuses(responses), [200, 200, 403]);
    });

    it('saltLength and secretLength shape tokens and secrets', async () => {
      const tokens = new CsrfTokens({ saltLength: 12, secretLength: 30 });
      const secret = tokens.secret();
      assert.equal(secret.length, 40);
      const token = tokens.create(secret);
      assert.match(token, /^[A-Za-z0-9]{12}-/);
      assert.ok(new CsrfPackage({ saltLength: 12 }).verify(secret, token));
      for (const bad of [0, -1, Infinity, NaN, '8']) {
        assert.throws(() => csrf({ saltLength: bad as any }), {
          name: 'TypeError',
          message: 'option saltLength must be finite number > 1',
        });
        assert.throws(() => csrf({ secretLength: bad as any }), {
          name: 'TypeError',
          message: 'option secretLength must be finite number > 1',
        });
      }
    });
  });

  describe('tokens, against the csrf package Connect 2.30 uses', () => {
    const theirs = new CsrfPackage();
    const ours = new CsrfTokens();

    it('a token made by either verifies on both for the same secret', () => {
      for (let i = 0; i < 50; i++) {
        const secret = i % 2 ? ours.secret() : theirs.secretSync();
        const mine = ours.create(secret);
        const other = theirs.create(secret);
        assert.match(mine, TOKEN);
        assert.equal(theirs.verify(secret, mine), true);
        assert.equal(ours.verify(secret, other), true);
        assert.equal(ours.verify(secret, mine), true);
      }
    });

    it('the same salt gives the same token on both, also for secrets outside ASCII', () => {
      for (const secret of ['plain', 'sé☃cret', '😀 emoji', 'x'.repeat(200)]) {
        const mine = ours.create(secret);
        assert.equal(theirs._tokenize(secret, mine.split('-')[0]), mine, secret);
        assert.equal(ours.verify(secret, theirs.create(secret)), true, secret);
      }
    });

    it('refuses what the csrf package refuses', () => {
      const secret = ours.secret();
      const token = ours.create(secret);
      const cases: Array<[unknown, unknown]> = [
        [ours.secret(), token],
        [secret, tamper(token)],
        [secret, token + 'x'],
        [secret, token.slice(0, -1)],
        [secret, token.replace('-', '')],
        [secret, ''],
        [secret, undefined],
        [secret, [token]],
        [secret, { toString: () => token }],
        ['', token],
        [undefined, token],
        [secret, '-' + token.split('-')[1]],
      ];
      for (const [s, t] of cases) {
        assert.equal(ours.verify(s, t), false, String(t));
        assert.equal(theirs.verify(s, t), false, String(t));
      }
    });

    it('create needs a secret, as the csrf package', () => {
      assert.throws(() => ours.create(''), { name: 'TypeError', message: 'argument secret is required' });
      assert.throws(() => ours.create(undefined as any), TypeError);
    });

    it('secrets are 18 random bytes in url-safe base64', () => {
      const seen = new Set<string>();
      for (let i = 0; i < 20; i++) {
        const secret = ours.secret();
        assert.match(secret, /^[A-Za-z0-9_-]{24}$/);
        seen.add(secret);
      }
      assert.equal(seen.size, 20);
    });

    // webapp's random token is posted to Connect: live only.
    itWithLiveOracle(
      "a token and session from Connect 2.30 pass webapp's csrf, and the other way round",
      "webapp's random token sent to Connect",
      async () => {
        const { oracle, ours: webapp } = stacks();
        const fetchToken = (handlers: Handler[], listen: (h: Handler[]) => http.RequestListener) =>
          withServer(listen(handlers), async (port) => {
            const res = await rawRequest(port, { path: '/token' });
            return { token: res.body, cookie: cookiesOf(res) };
          });
        const post = (
          handlers: Handler[],
          listen: (h: Handler[]) => http.RequestListener,
          given: { token: string; cookie: string },
        ) =>
          withServer(listen(handlers), (port) =>
            rawRequest(port, {
              method: 'POST',
              path: '/',
              headers: { cookie: given.cookie, 'x-csrf-token': given.token },
            }),
          );
        const ourChain = (handlers: Handler[]) => chain([...handlers, sendError]);

        const fromConnect = await fetchToken(oracle, connectApp);
        assert.equal((await post(webapp, ourChain, fromConnect)).status, 200);
        assert.equal((await post(webapp, ourChain, { ...fromConnect, token: tamper(fromConnect.token) })).status, 403);

        const fromWebapp = await fetchToken(webapp, ourChain);
        assert.equal((await post(oracle, connectApp, fromWebapp)).status, 200);
        assert.equal((await post(oracle, connectApp, { ...fromWebapp, token: tamper(fromWebapp.token) })).status, 403);
      },
    );
  });
});
