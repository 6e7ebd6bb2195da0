/**
 * More middleware from npm, unmodified, on webapp: CSRF protection (csrf-csrf,
 * csrf-sync), authentication (http-auth), live reload script injection, server-sent
 * events, Joi validation, rate limiting, metrics and OpenAPI documents. The same app
 * on express@4 and on webapp gets the same requests, and the answers must match;
 * where a package draws random tokens, a scripted client runs against each and what
 * it saw, with the tokens replaced by placeholders, must match.
 */
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  assertSameFlow,
  assertSameResponses,
  frameworks,
  rawRequest,
  withoutStackFrames,
  type Framework,
  type RawResponse,
  type RequestSpec,
} from '../support/differential';
import { openStream } from '../support/open-stream';
import { loadWithExpressAs } from '../support/express-alias';

type Any = any;

const json = { 'Content-Type': 'application/json' };

/**
 * Status, headers but the clock's and the brand's, and body, with `secrets` (random
 * tokens) replaced by their names; the ETag of a body that held one is a placeholder too.
 */
function seenOf(res: RawResponse, secrets: Record<string, string | undefined> = {}): Record<string, unknown> {
  let text = JSON.stringify({ status: res.status, headers: res.headers, body: res.body });
  for (const [name, secret] of Object.entries(secrets)) if (secret) text = text.split(secret).join(`<${name}>`);
  const seen = JSON.parse(text);
  delete seen.headers.date;
  delete seen.headers['x-powered-by'];
  if (seen.body !== res.body && seen.headers.etag) seen.headers.etag = '<etag>';
  return seen;
}

/** The cookies a response set, as one Cookie header (name=value pairs). */
function cookiesOf(res: RawResponse): string {
  return ((res.headers['set-cookie'] as string[] | undefined) ?? []).map((c) => c.split(';')[0]).join('; ');
}

const folder = mkdtempSync(join(tmpdir(), 'webapp-more-'));
after(() => rmSync(folder, { recursive: true, force: true }));

describe('more middleware from npm on webapp (differential against express@4)', () => {
  it('csrf-csrf (double submit cookie): a token per session, checked on unsafe methods', async () => {
    const { doubleCsrf } = require('csrf-csrf');
    const cookieParser = require('cookie-parser');
    const define = (fw: Framework): http.RequestListener => {
      const app: Any = fw();
      app.set('env', 'production');
      const { doubleCsrfProtection, generateCsrfToken } = doubleCsrf({
        getSecret: () => 'a secret of 32 characters or so!',
        getSessionIdentifier: (req: Any) => req.get('x-session') ?? 'anonymous',
        cookieName: 'csrf',
        cookieOptions: { secure: false },
        getCsrfTokenFromRequest: (req: Any) => req.body?._csrf ?? req.get('x-csrf-token'),
      });
      app.use(cookieParser());
      app.use(fw.urlencoded({ extended: false }));
      app.get('/form', (req: Any, res: Any) => res.json({ token: generateCsrfToken(req, res) }));
      app.use(doubleCsrfProtection);
      app.get('/again', (req: Any, res: Any) => res.json({ token: req.csrfToken() }));
      app.post('/transfer', (req: Any, res: Any) => res.json({ done: true, body: req.body }));
      app.delete('/transfer', (req: Any, res: Any) => res.sendStatus(204));
      app.use((err: Any, req: Any, res: Any, next: Any) =>
        err.code === 'EBADCSRFTOKEN' ? res.status(err.status).json({ error: err.message }) : next(err),
      );
      return app;
    };
    const seen = await assertSameFlow(define, async (port) => {
      const form = await rawRequest(port, { path: '/form', headers: { 'X-Session': 'one' } });
      const token: string = JSON.parse(form.body).token;
      const cookie = cookiesOf(form);
      const secrets = { token };
      const send = async (spec: RequestSpec) => seenOf(await rawRequest(port, spec), secrets);
      const formBody = { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Session': 'one', Cookie: cookie };
      return [
        seenOf(form, secrets),
        await send({ path: '/again', headers: { 'X-Session': 'one', Cookie: cookie } }),
        await send({ method: 'POST', path: '/transfer', headers: formBody, body: `amount=5&_csrf=${token}` }),
        await send({
          method: 'DELETE',
          path: '/transfer',
          headers: { 'X-Session': 'one', Cookie: cookie, 'X-CSRF-Token': token },
        }),
        // No token, the wrong one, another session's, no cookie.
        await send({ method: 'POST', path: '/transfer', headers: formBody, body: 'amount=5' }),
        await send({ method: 'POST', path: '/transfer', headers: formBody, body: `amount=5&_csrf=${token.slice(1)}x` }),
        await send({
          method: 'POST',
          path: '/transfer',
          headers: { ...formBody, 'X-Session': 'two' },
          body: `_csrf=${token}`,
        }),
        await send({ method: 'POST', path: '/transfer', headers: { ...formBody, Cookie: '' }, body: `_csrf=${token}` }),
      ];
    });
    assert.equal((seen[2] as Any).status, 200);
    assert.equal((seen[3] as Any).status, 204);
    assert.deepEqual(
      seen.slice(4).map((s: Any) => s.status),
      [403, 403, 403, 403],
    );
    assert.match(String((seen[0] as Any).headers['set-cookie']), /^csrf=<token>; Path=\/; HttpOnly; SameSite=Strict$/);
  });

  it('csrf-sync (synchroniser token in express-session)', async () => {
    const { csrfSync } = require('csrf-sync');
    const session = require('express-session');
    const define = (fw: Framework): http.RequestListener => {
      const app: Any = fw();
      const { csrfSynchronisedProtection, generateToken, revokeToken } = csrfSync({
        getTokenFromRequest: (req: Any) => req.body?.csrf ?? req.get('x-csrf-token'),
      });
      app.use(session({ secret: 's', resave: false, saveUninitialized: false, name: 'sid' }));
      app.use(fw.json());
      app.get('/token', (req: Any, res: Any) => res.json({ token: generateToken(req) }));
      app.post('/revoke', csrfSynchronisedProtection, (req: Any, res: Any) => {
        revokeToken(req);
        res.json({ revoked: true });
      });
      app.post('/save', csrfSynchronisedProtection, (req: Any, res: Any) => res.json({ saved: req.body.value }));
      app.use((err: Any, req: Any, res: Any, next: Any) =>
        err.code === 'EBADCSRFTOKEN' ? res.status(403).send(err.message) : next(err),
      );
      return app;
    };
    const seen = await assertSameFlow(define, async (port) => {
      const first = await rawRequest(port, { path: '/token' });
      const token: string = JSON.parse(first.body).token;
      const cookie = cookiesOf(first);
      const sid = cookie.split('=')[1];
      const secrets = { token, sid };
      const send = async (spec: RequestSpec) => seenOf(await rawRequest(port, spec), secrets);
      const headers = { ...json, Cookie: cookie };
      return [
        seenOf(first, secrets),
        await send({ path: '/token', headers: { Cookie: cookie } }),
        await send({ method: 'POST', path: '/save', headers, body: JSON.stringify({ csrf: token, value: 1 }) }),
        await send({
          method: 'POST',
          path: '/save',
          headers: { ...headers, 'X-CSRF-Token': token },
          body: '{"value":2}',
        }),
        await send({ method: 'POST', path: '/save', headers, body: '{"value":3}' }),
        await send({ method: 'POST', path: '/save', headers: { ...json }, body: JSON.stringify({ csrf: token }) }),
        await send({ method: 'POST', path: '/revoke', headers: { ...headers, 'X-CSRF-Token': token } }),
        await send({ method: 'POST', path: '/save', headers: { ...headers, 'X-CSRF-Token': token }, body: '{}' }),
      ];
    });
    assert.deepEqual(
      seen.map((s: Any) => s.status),
      [200, 200, 200, 200, 403, 403, 200, 403],
    );
  });

  it('http-auth with http-auth-connect: Basic (a checker, an htpasswd file, a proxy), Digest (htdigest)', async () => {
    const auth = require('http-auth');
    const authConnect = require('http-auth-connect');
    const md5 = (text: string): string => createHash('md5').update(text).digest('hex');
    const sha1 = (text: string): string => createHash('sha1').update(text).digest('base64');
    writeFileSync(join(folder, 'users.htpasswd'), `ada:{SHA}${sha1('lovelace')}\nalan:{SHA}${sha1('turing')}\n`);
    writeFileSync(join(folder, 'users.htdigest'), `ada:Vault:${md5('ada:Vault:lovelace')}\n`);
    const define = (fw: Framework): http.RequestListener => {
      const app: Any = fw();
      const checker = auth.basic(
        { realm: 'Checker', msg401: 'who are you?' },
        (user: string, pass: string, done: Any) => done(user === 'ada' && pass === 'pw'),
      );
      const file = auth.basic({ realm: 'File', file: join(folder, 'users.htpasswd') });
      const digest = auth.digest({ realm: 'Vault', file: join(folder, 'users.htdigest') });
      const proxy = auth.basic({ realm: 'Proxy', proxy: true }, (user: string, pass: string, done: Any) =>
        done(pass === 'p'),
      );
      const who = (req: Any, res: Any) => res.json({ user: req.user ?? null, path: req.path });
      app.get('/checker', authConnect(checker), who);
      app.get('/file', authConnect(file), who);
      app.get('/digest/:page', authConnect(digest), who);
      app.get('/proxy', authConnect(proxy), who);
      return app;
    };
    const basic = (user: string, pass: string) => ({
      Authorization: 'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64'),
    });
    await assertSameResponses(define, [
      { path: '/checker' },
      { path: '/checker', headers: basic('ada', 'pw') },
      { path: '/checker', headers: basic('ada', 'nope') },
      { path: '/checker', headers: { Authorization: 'Basic !!!' } },
      { path: '/checker', headers: { Authorization: 'Bearer abc' } },
      { path: '/file', headers: basic('alan', 'turing') },
      { path: '/file', headers: basic('alan', 'lovelace') },
      { path: '/proxy' },
      { path: '/proxy', headers: { 'Proxy-Authorization': 'Basic ' + Buffer.from('x:p').toString('base64') } },
    ]);

    // Digest: the server draws a nonce; the client answers the challenge it got.
    const seen = await assertSameFlow(define, async (port) => {
      const challenge = await rawRequest(port, { path: '/digest/one' });
      const nonce = /nonce="([^"]+)"/.exec(String(challenge.headers['www-authenticate']))![1]!;
      const answer = (uri: string, pass: string, nc: string, method = 'GET') => {
        const cnonce = '0a4f113b';
        const response = md5(`${md5(`ada:Vault:${pass}`)}:${nonce}:${nc}:${cnonce}:auth:${md5(`${method}:${uri}`)}`);
        return {
          Authorization:
            `Digest username="ada", realm="Vault", nonce="${nonce}", uri="${uri}", algorithm=MD5, ` +
            `response="${response}", qop=auth, nc=${nc}, cnonce="${cnonce}"`,
        };
      };
      const send = async (spec: RequestSpec) => {
        const res = await rawRequest(port, spec);
        // A new challenge draws a new nonce.
        const fresh = /nonce="([^"]+)"/.exec(String(res.headers['www-authenticate'] ?? ''))?.[1];
        return seenOf(res, { nonce, fresh });
      };
      return [
        seenOf(challenge, { nonce }),
        await send({ path: '/digest/one', headers: answer('/digest/one', 'lovelace', '00000001') }),
        await send({ path: '/digest/two?x=1', headers: answer('/digest/two?x=1', 'lovelace', '00000002') }),
        await send({ path: '/digest/one', headers: answer('/digest/one', 'wrong', '00000003') }),
        // A replayed count is stale.
        await send({ path: '/digest/one', headers: answer('/digest/one', 'lovelace', '00000001') }),
      ];
    });
    assert.deepEqual(
      seen.map((s: Any) => s.status),
      [401, 200, 200, 401, 401],
    );
  });

  it('connect-livereload injects its script into HTML answers, whatever sends them', async () => {
    const livereload = require('connect-livereload');
    writeFileSync(join(folder, 'page.html'), '<html><head></head><body><h1>static</h1></body></html>');
    writeFileSync(join(folder, 'app.js'), 'console.log("</body>")');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(livereload({ port: 35729 }));
        app.get('/sent', (req: Any, res: Any) => res.send('<html><body><p>sent</p></body></html>'));
        app.get('/fragment', (req: Any, res: Any) => res.send('<p>no body tag</p>'));
        app.get('/written', (req: Any, res: Any) => {
          res.type('html');
          res.write('<html><body>');
          res.end('<p>written</p></body></html>');
        });
        app.get('/json', (req: Any, res: Any) => res.json({ html: '<body></body>' }));
        app.get('/file', (req: Any, res: Any) => res.sendFile(join(folder, 'page.html')));
        app.use(fw.static(folder));
        return app;
      },
      [
        { path: '/sent', headers: { Accept: 'text/html' } },
        { path: '/sent', headers: { Accept: 'application/json' } },
        { path: '/fragment', headers: { Accept: 'text/html' } },
        { path: '/written', headers: { Accept: 'text/html,*/*' } },
        { path: '/json', headers: { Accept: 'text/html' } },
        { path: '/file', headers: { Accept: 'text/html' } },
        { path: '/page.html', headers: { Accept: 'text/html' } },
        { path: '/page.html', headers: { Accept: 'text/html', Range: 'bytes=0-5' } },
        { path: '/app.js', headers: { Accept: 'text/html' } },
        { method: 'HEAD', path: '/sent', headers: { Accept: 'text/html' } },
      ],
    );
    const script = '<script src="//127.0.0.1:35729/livereload.js?snipver=1" async="" defer=""></script></body>';
    assert.ok(answers[0]!.body.endsWith(script + '</html>'));
    assert.equal(answers[0]!.headers['content-length'], String(answers[0]!.body.length));
    assert.ok(answers[3]!.body.includes(script));
    assert.ok(answers[5]!.body.includes(script) && answers[6]!.body.includes(script));
    assert.equal(answers[1]!.body, '<html><body><p>sent</p></body></html>');
  });

  it('express-sse: the initial events, later ones to every client, and a client that leaves', async () => {
    const SSE = require('express-sse');
    const streams: Any[] = [];
    const define = (fw: Framework): http.RequestListener => {
      const sse = new SSE(['first', { second: 2 }]);
      streams.push(sse);
      const app: Any = fw();
      app.get('/events', sse.init);
      app.post('/send', fw.json(), (req: Any, res: Any) => {
        sse.send(req.body.data, req.body.event, req.body.id);
        res.sendStatus(202);
      });
      return app;
    };
    const seen = await assertSameFlow(define, async (port) => {
      const sse = streams.at(-1);
      const client = await openStream(port, '/events');
      await client.waitFor('second');
      await rawRequest(port, {
        method: 'POST',
        path: '/send',
        headers: json,
        body: '{"data":{"n":3},"event":"update"}',
      });
      await client.waitFor('update');
      const before = sse.listenerCount('data');
      client.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const afterLeaving = sse.listenerCount('data');
      const sent = await rawRequest(port, { method: 'POST', path: '/send', headers: json, body: '{"data":"nobody"}' });
      return {
        status: client.status,
        headers: stable(client.headers),
        text: client.text(),
        before,
        afterLeaving,
        sent: sent.status,
      };
    });
    assert.deepEqual([seen.before, seen.afterLeaving, seen.sent], [1, 0, 202]);
    assert.equal(seen.headers['content-type'], 'text/event-stream');
    assert.equal(
      seen.text,
      'id: 0\ndata: "first"\n\nid: 1\ndata: {"second":2}\n\nid: 2\nevent: update\ndata: {"n":3}\n\n',
    );
  });

  it('express-joi-validation: query, params, headers, body checked and converted; the response checked', async () => {
    const Joi = require('joi');
    const { createValidator } = require('express-joi-validation');
    const validator = createValidator({});
    const passing = createValidator({ passError: true });
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(fw.json());
        app.get(
          '/items/:id',
          validator.params(Joi.object({ id: Joi.number().integer().min(1).required() })),
          validator.query(
            Joi.object({ limit: Joi.number().max(50).default(10), tags: Joi.array().items(Joi.string()).single() }),
          ),
          validator.headers(Joi.object({ 'x-tenant': Joi.string().valid('a', 'b').required() })),
          (req: Any, res: Any) =>
            res.json({
              params: req.params,
              query: req.query,
              originalQuery: req.originalQuery,
              originalParams: req.originalParams,
              tenant: req.headers['x-tenant'],
            }),
        );
        // A later middleware assigns req.query again, as Express apps do after validating.
        app.get(
          '/then-assign',
          validator.query(Joi.object({ q: Joi.string().trim() })),
          (req: Any, res: Any, next: Any) => {
            req.query = { ...req.query, added: true };
            next();
          },
          (req: Any, res: Any) => res.json(req.query),
        );
        app.post(
          '/users',
          validator.body(Joi.object({ name: Joi.string().required(), age: Joi.number().integer() })),
          validator.response(Joi.object({ id: Joi.number().required(), name: Joi.string(), age: Joi.number() })),
          (req: Any, res: Any) =>
            res.status(201).json(req.body.name === 'bad' ? { name: 'no id' } : { id: 7, ...req.body }),
        );
        app.post('/passed', passing.body(Joi.object({ n: Joi.number() })), (req: Any, res: Any) => res.json(req.body));
        app.use((err: Any, req: Any, res: Any, next: Any) =>
          err && err.error && err.error.isJoi
            ? res.status(422).json({ type: err.type, details: err.error.details.map((d: Any) => d.message) })
            : next(err),
        );
        return app;
      },
      [
        { path: '/items/3?limit=5&tags=x', headers: { 'X-Tenant': 'a' } },
        { path: '/items/3?tags=x&tags=y', headers: { 'X-Tenant': 'b' } },
        { path: '/items/0?limit=500&other=1', headers: { 'X-Tenant': 'c' } },
        { path: '/items/abc' },
        { path: '/then-assign?q=%20spaced%20' },
        { path: '/then-assign?q[x]=1' },
        { method: 'POST', path: '/users', headers: json, body: '{"name":"ada","age":"36"}' },
        { method: 'POST', path: '/users', headers: json, body: '{"age":1.5}' },
        { method: 'POST', path: '/users', headers: json, body: '{"name":"bad"}' },
        { method: 'POST', path: '/passed', headers: json, body: '{"n":"x"}' },
        { method: 'POST', path: '/passed', headers: json, body: '{"n":"4"}' },
      ],
    );
    assert.deepEqual(JSON.parse(answers[0]!.body).query, { limit: 5, tags: ['x'] });
    assert.equal(answers[2]!.status, 400);
    assert.deepEqual(JSON.parse(answers[4]!.body), { q: 'spaced', added: true });
    assert.equal(answers[6]!.status, 201);
    assert.equal(answers[8]!.status, 500);
    assert.equal(answers[9]!.status, 422);
  });

  it('express-request-context and rate-limiter-flexible (memory store) keyed by req.ip behind a proxy', async () => {
    const expressContext = require('express-request-context').default;
    const { RateLimiterMemory } = require('rate-limiter-flexible');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.set('trust proxy', 'loopback');
        const limiter = new RateLimiterMemory({ points: 2, duration: 60 });
        app.use(expressContext());
        app.use((req: Any, res: Any, next: Any) => {
          req.context.started = 'yes';
          res.context.ip = req.ip;
          limiter
            .consume(req.ip)
            .then((state: Any) => {
              res.set('X-RateLimit-Remaining', String(state.remainingPoints));
              next();
            })
            .catch((state: Any) => {
              // Whole seconds left of the minute: the same on both, the run taking far less than a second.
              res.set('Retry-After', String(Math.ceil(state.msBeforeNext / 1000)));
              res.status(429).json({ error: 'Too Many Requests', ip: res.context.ip });
            });
        });
        app.get('/', (req: Any, res: Any) => res.json({ request: req.context, response: res.context }));
        return app;
      },
      [
        { path: '/' },
        { path: '/', headers: { 'X-Forwarded-For': '203.0.113.1' } },
        { path: '/' },
        { path: '/' },
        { path: '/', headers: { 'X-Forwarded-For': '203.0.113.1, 127.0.0.1' } },
        { path: '/', headers: { 'X-Forwarded-For': '203.0.113.1' } },
        { path: '/', headers: { 'X-Forwarded-For': 'not an address' } },
      ],
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 429, 200, 429, 200],
    );
    assert.equal(answers[3]!.headers['retry-after'], '60');
  });

  it('prometheus-api-metrics: request counts labelled by route, and its /metrics and /metrics.json', async () => {
    const Prometheus = require('prom-client');
    const apiMetrics = require('prometheus-api-metrics');
    const define = (fw: Framework): http.RequestListener => {
      // One registry per process: each app starts from an empty one.
      Prometheus.register.clear();
      const app: Any = fw();
      app.use(apiMetrics({ defaultMetricsInterval: 60_000 }));
      const router = fw.Router();
      router.get('/:id', (req: Any, res: Any) => res.json({ id: req.params.id }));
      app.use('/users', router);
      app.get('/', (req: Any, res: Any) => res.send('home'));
      app.post('/echo', fw.text(), (req: Any, res: Any) => res.status(201).send(req.body));
      return app;
    };
    const seen = await assertSameFlow(define, async (port) => {
      const statuses: number[] = [];
      for (const spec of [
        { path: '/' },
        { path: '/users/1' },
        { path: '/users/2?x=1' },
        { method: 'POST', path: '/echo', headers: { 'Content-Type': 'text/plain' }, body: 'hello' },
        { path: '/missing' },
      ]) {
        statuses.push((await rawRequest(port, spec)).status);
      }
      const text = (await rawRequest(port, { path: '/metrics' })).body;
      const metrics = JSON.parse((await rawRequest(port, { path: '/metrics.json' })).body);
      // Counts and sizes, not durations or the process's own figures.
      const counts = text
        .split('\n')
        .filter((line) => /^http_request_(duration_seconds|size_bytes|response_size_bytes)_(count|sum)\{/.test(line))
        .filter((line) => !line.startsWith('http_request_duration_seconds_sum'))
        .sort();
      const names = metrics
        .map((metric: Any) => metric.name)
        .filter((name: string) => name.startsWith('http_'))
        .sort();
      return { statuses, counts, names };
    });
    assert.ok(seen.counts.some((line) => line.includes('route="/users/:id"') && line.endsWith(' 2')));
    assert.ok(seen.counts.some((line) => line.includes('route="N/A"') && line.includes('code="404"')));
  });

  it('swagger-jsdoc builds the OpenAPI document from JSDoc; swagger-ui-express serves it', async () => {
    const swaggerJsdoc = require('swagger-jsdoc');
    const swaggerUi = require('swagger-ui-express');
    writeFileSync(
      join(folder, 'routes.js'),
      [
        '/**',
        ' * @openapi',
        ' * /users/{id}:',
        ' *   get:',
        ' *     summary: One user',
        ' *     parameters:',
        ' *       - in: path',
        ' *         name: id',
        ' *         required: true',
        ' *         schema: { type: integer }',
        ' *     responses:',
        " *       '200': { description: The user }",
        ' */',
        '',
      ].join('\n'),
    );
    const spec = swaggerJsdoc({
      definition: { openapi: '3.0.0', info: { title: 'Users', version: '1.0.0' } },
      apis: [join(folder, 'routes.js')],
    });
    assert.equal(spec.paths['/users/{id}'].get.summary, 'One user');
    await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.get('/openapi.json', (req: Any, res: Any) => res.json(spec));
        app.use('/docs', swaggerUi.serve, swaggerUi.setup(spec, { customSiteTitle: 'Users API' }));
        return app;
      },
      [
        { path: '/openapi.json' },
        { path: '/docs' },
        { path: '/docs/' },
        { path: '/docs/swagger-ui-init.js' },
        { path: '/docs/swagger-ui.css' },
        { path: '/docs/nope.js' },
      ],
    );
  });

  it('express-openid-connect: login redirect, form_post callback (good and bad), session cookie, logout', async () => {
    const jwt = require('jsonwebtoken');
    // The identity provider, on 127.0.0.1: discovery and its signing key (form_post needs no token endpoint).
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'RS256' };
    const provider = http.createServer((req, res) => {
      const issuer = `http://127.0.0.1:${(provider.address() as Any).port}/`;
      const documents: Record<string, unknown> = {
        '/.well-known/openid-configuration': {
          issuer,
          authorization_endpoint: issuer + 'authorize',
          token_endpoint: issuer + 'token',
          jwks_uri: issuer + 'jwks',
          end_session_endpoint: issuer + 'logout',
          response_types_supported: ['id_token', 'code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
        },
        '/jwks': { keys: [jwk] },
      };
      const document = documents[req.url ?? ''];
      if (!document) return void res.writeHead(404).end();
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(document));
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(provider.address() as Any).port}/`;
    const now = Math.floor(Date.now() / 1000);
    const idToken = (nonce: string, overrides: Record<string, unknown> = {}, key: unknown = privateKey): string =>
      jwt.sign(
        {
          iss: issuer,
          aud: 'webapp-client',
          sub: 'user-1',
          name: 'Ada',
          nonce,
          iat: now,
          exp: now + 600,
          ...overrides,
        },
        key,
        { algorithm: 'RS256', keyid: 'k1' },
      );
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const define = (fw: Framework): http.RequestListener => {
      // It builds its routes with `require('express')`: on webapp, that is webapp (as when express is aliased).
      const { auth, requiresAuth } =
        fw === frameworks[0]![1] ? require('express-openid-connect') : loadWithExpressAs(fw, 'express-openid-connect');
      const app: Any = fw();
      app.use(
        auth({
          issuerBaseURL: issuer,
          baseURL: 'http://app.example',
          clientID: 'webapp-client',
          secret: 'a secret for the session cookie, at least 32 characters',
          authRequired: false,
          enableTelemetry: false,
        }),
      );
      app.get('/', (req: Any, res: Any) =>
        res.json({ authenticated: req.oidc.isAuthenticated(), user: req.oidc.user ?? null }),
      );
      app.get('/profile', requiresAuth(), (req: Any, res: Any) => res.json(req.oidc.user));
      app.use((err: Any, req: Any, res: Any, _next: Any) => res.status(err.status ?? 500).json({ error: err.message }));
      return app;
    };
    try {
      const seen = await assertSameFlow(define, async (port) => {
        const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
        const login = await rawRequest(port, { path: '/login' });
        const location = new URL(String(login.headers.location));
        const nonce = location.searchParams.get('nonce')!;
        const state = location.searchParams.get('state')!;
        const verification = cookiesOf(login);
        const callback = (cookie: string, body: Record<string, string>) =>
          rawRequest(port, {
            method: 'POST',
            path: '/callback',
            headers: { ...form, Cookie: cookie },
            body: new URLSearchParams(body).toString(),
          });
        // Random: each login's nonce, the transaction cookies that hold it, the sealed session
        // cookie (a random IV) and its expiry (a day from now).
        const summarise = (res: RawResponse) =>
          JSON.parse(
            JSON.stringify(seenOf(res))
              .replace(/nonce=[\w-]+/g, 'nonce=<nonce>')
              .replace(/(auth_verification|appSession)=[^;"]+/g, '$1=<value>')
              .replace(/Expires=[^;"]+/g, 'Expires=<date>'),
          );
        const steps: unknown[] = [summarise(login)];
        steps.push(summarise(await callback('', { id_token: idToken(nonce), state })));
        steps.push(summarise(await callback(verification, { id_token: idToken(nonce), state: state + 'x' })));
        steps.push(summarise(await callback(verification, { id_token: idToken(nonce, {}, otherKey), state })));
        steps.push(summarise(await callback(verification, { id_token: idToken('other nonce'), state })));
        steps.push(
          summarise(await callback(verification, { error: 'access_denied', error_description: 'said no', state })),
        );
        // The transaction cookie is spent by the callbacks above: a new login for the good one.
        const again = await rawRequest(port, { path: '/login' });
        const againUrl = new URL(String(again.headers.location));
        const good = await callback(cookiesOf(again), {
          id_token: idToken(againUrl.searchParams.get('nonce')!),
          state: againUrl.searchParams.get('state')!,
        });
        steps.push({
          status: good.status,
          location: good.headers.location,
          cookies: cookiesOf(good)
            .split('; ')
            .map((c) => c.split('=')[0]),
        });
        const session = cookiesOf(good)
          .split('; ')
          .find((c) => c.startsWith('appSession='))!;
        steps.push(summarise(await rawRequest(port, { path: '/', headers: { Cookie: session } })));
        steps.push(summarise(await rawRequest(port, { path: '/profile', headers: { Cookie: session } })));
        steps.push(summarise(await rawRequest(port, { path: '/profile' })));
        steps.push(summarise(await rawRequest(port, { path: '/', headers: { Cookie: 'appSession=garbage' } })));
        steps.push(summarise(await rawRequest(port, { path: '/logout', headers: { Cookie: session } })));
        return steps;
      });
      const steps = seen as Any[];
      assert.equal(steps[0].status, 302);
      assert.match(
        steps[0].headers.location,
        /\/authorize\?redirect_uri=http%3A%2F%2Fapp\.example%2Fcallback&response_type=id_token&/,
      );
      assert.deepEqual(
        steps.slice(1, 6).map((step) => step.status),
        [400, 400, 400, 400, 400],
      );
      assert.deepEqual(steps[6], {
        status: 302,
        location: 'http://app.example',
        cookies: ['auth_verification', '_auth_verification', 'skipSilentLogin', 'appSession'],
      });
      assert.deepEqual(JSON.parse(steps[7].body), { authenticated: true, user: { sub: 'user-1', name: 'Ada' } });
      assert.equal(steps[9].status, 302);
      assert.deepEqual(JSON.parse(steps[10].body), { authenticated: false, user: null });
      assert.equal(steps[11].headers.location, 'http://app.example');
    } finally {
      provider.closeAllConnections();
      await new Promise((resolve) => provider.close(resolve));
    }
  });

  it('express-status-monitor: answers counted by class (on-headers), its page, health checks, socket.io', async () => {
    // Health checks go to a server of the test's own, on 127.0.0.1.
    const checked = http.createServer((req, res) => res.writeHead(req.url === '/up' ? 200 : 503).end());
    await new Promise<void>((resolve) => checked.listen(0, '127.0.0.1', resolve));
    const port = (checked.address() as Any).port;
    const spans: Any[] = [];
    const define = (fw: Framework): http.RequestListener => {
      // A fresh copy for each app: the package keeps its socket.io server in a module variable.
      const statusMonitor = loadWithExpressAs(fw, 'express-status-monitor');
      const span = { interval: 60, retention: 2 };
      spans.push(span);
      const app: Any = fw();
      app.use(
        statusMonitor({
          title: 'Monitor',
          path: '/status',
          spans: [span],
          ignoreStartsWith: '/admin',
          chartVisibility: { rps: false },
          healthChecks: [
            { protocol: 'http', host: '127.0.0.1', port, path: '/up' },
            { protocol: 'http', host: '127.0.0.1', port, path: '/down' },
          ],
        }),
      );
      app.get('/ok', (req: Any, res: Any) => res.send('ok'));
      app.get('/moved', (req: Any, res: Any) => res.redirect('/ok'));
      app.get('/boom', () => {
        throw new Error('boom');
      });
      app.get('/admin/x', (req: Any, res: Any) => res.send('not counted'));
      app.set('env', 'production');
      return app;
    };
    try {
      const seen = await assertSameFlow(define, async (appPort) => {
        const paths = ['/ok', '/ok', '/moved', '/missing', '/boom', '/admin/x', '/admin/x'];
        const statuses = [];
        for (const path of paths) statuses.push((await rawRequest(appPort, { path })).status);
        const page = seenOf(await rawRequest(appPort, { path: '/status' }));
        const responses = spans
          .at(-1)
          .responses.map((entry: Any) => ({ ...entry, mean: typeof entry.mean, timestamp: typeof entry.timestamp }));
        // socket.io 2 answers its own path, before the app: the long-polling handshake and the monitor's first event.
        const handshake = await rawRequest(appPort, { path: '/socket.io/?EIO=3&transport=polling' });
        const sid = /"sid":"([^"]+)"/.exec(handshake.body)?.[1];
        const poll = sid
          ? await rawRequest(appPort, { path: `/socket.io/?EIO=3&transport=polling&sid=${sid}` })
          : undefined;
        return {
          statuses,
          page,
          responses,
          handshake: handshake.status,
          sid: typeof sid,
          events: (poll?.body.match(/42\["esm_start"/g) ?? []).length,
        };
      });
      assert.deepEqual(seen.statuses, [200, 200, 302, 404, 500, 200, 200]);
      assert.deepEqual(seen.responses, [{ 2: 2, 3: 1, 4: 1, 5: 1, count: 5, mean: 'number', timestamp: 'number' }]);
      const page = String((seen.page as Any).body);
      assert.match(page, /<title>Monitor<\/title>/);
      assert.match(
        page,
        /<h5><a href="\/up">\/up<\/a><\/h5>\s*<\/div>\s*<div class="health-check-status-container ok">/,
      );
      assert.match(
        page,
        /<h5><a href="\/down">\/down<\/a><\/h5>\s*<\/div>\s*<div class="health-check-status-container failed">/,
      );
      assert.deepEqual([seen.handshake, seen.sid, seen.events], [200, 'string', 1]);
    } finally {
      checked.closeAllConnections();
      await new Promise((resolve) => checked.close(resolve));
    }
  });

  it('express-pino-logger (pino-http 6): a line per answer, level by status, req.log, ignored paths', async () => {
    const expressPino = require('express-pino-logger');
    const lines: Any[][] = [];
    const define = (fw: Framework): http.RequestListener => {
      const logged: Any[] = [];
      lines.push(logged);
      const stream = { write: (line: string) => logged.push(JSON.parse(line)) };
      const app: Any = fw();
      app.use(
        expressPino(
          {
            customLogLevel: (res: Any, err: Any) =>
              err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
            autoLogging: { ignorePaths: ['/health'] },
            serializers: {
              req: (req: Any) => ({ id: req.id, method: req.method, url: req.url, agent: req.headers['user-agent'] }),
              res: (res: Any) => ({
                statusCode: res.statusCode,
                type: res.getHeader?.('content-type') ?? res.headers?.['content-type'],
              }),
            },
          },
          stream,
        ),
      );
      app.get('/hello', (req: Any, res: Any) => {
        req.log.info({ user: 'ada' }, 'handling');
        res.json({ hello: 'world' });
      });
      app.get('/health', (req: Any, res: Any) => res.send('ok'));
      app.post('/items', fw.json(), (req: Any, res: Any) => res.status(201).json(req.body));
      app.get('/fail', (req: Any, res: Any) => res.status(503).end());
      return app;
    };
    await assertSameResponses(define, [
      { path: '/hello', headers: { 'User-Agent': 'tester' } },
      { path: '/health' },
      { method: 'POST', path: '/items', headers: json, body: '{"a":1}' },
      { path: '/missing' },
      { path: '/fail' },
    ]);
    // The clock's, the process's and the connection's fields apart.
    const stableLine = ({ time, pid, hostname, responseTime, ...rest }: Any): Any => {
      void [time, pid, hostname];
      return { ...rest, responseTime: typeof responseTime };
    };
    assert.deepEqual(lines[1]!.map(stableLine), lines[0]!.map(stableLine), 'webapp logged differently');
    assert.deepEqual(
      lines[1]!.map((line) => [line.level, line.msg, line.req?.url, line.res?.statusCode]),
      [
        [30, 'handling', '/hello', undefined],
        [30, 'request completed', '/hello', 200],
        [30, 'request completed', '/items', 201],
        [40, 'request completed', '/missing', 404],
        [50, 'request errored', '/fail', 503],
      ],
    );
  });

  it('better-sse: a session per request (its IncomingMessage check), a broadcast, a client leaving', async () => {
    const { createSession, createChannel } = require('better-sse');
    const channels: Any[] = [];
    const disconnected: string[][] = [];
    const define = (fw: Framework): http.RequestListener => {
      const channel = createChannel();
      channels.push(channel);
      const gone: string[] = [];
      disconnected.push(gone);
      const app: Any = fw();
      app.get('/events', async (req: Any, res: Any) => {
        const session = await createSession(req, res, { keepAlive: null, headers: { 'X-Stream': 'yes' } });
        session.on('disconnected', () => gone.push(String(session.lastId)));
        channel.register(session);
        session.push({ hello: req.query.name }, 'greeting', 'g1');
      });
      app.post('/broadcast', fw.json(), (req: Any, res: Any) => {
        channel.broadcast(req.body, 'news', { eventId: 'n' + req.body.n });
        res.json({ sessions: channel.sessionCount });
      });
      return app;
    };
    const seen = await assertSameFlow(define, async (port) => {
      const client = await openStream(port, '/events?name=ada', { 'Last-Event-ID': 'e7' });
      await client.waitFor('greeting');
      const broadcast = await rawRequest(port, { method: 'POST', path: '/broadcast', headers: json, body: '{"n":1}' });
      await client.waitFor('"n":1');
      client.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const after = await rawRequest(port, { method: 'POST', path: '/broadcast', headers: json, body: '{"n":2}' });
      return {
        status: client.status,
        headers: stable(client.headers),
        text: client.text(),
        broadcast: broadcast.body,
        after: after.body,
        gone: disconnected.at(-1)!.slice(),
      };
    });
    assert.equal(seen.headers['x-stream'], 'yes');
    assert.equal(
      seen.text,
      'retry:2000\n\nevent:greeting\nid:g1\ndata:{"hello":"ada"}\n\nevent:news\nid:n1\ndata:{"n":1}\n\n',
    );
    assert.deepEqual([seen.broadcast, seen.after, seen.gone], ['{"sessions":1}', '{"sessions":0}', ['n1']]);
  });

  it('express-zod-api 22 (Express 4 line) on an app: input from query, params, body; errors, 404, 405', async () => {
    const { z } = require('zod');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        // It builds its parsers with `require('express')`: on webapp, that is webapp (as when express is aliased).
        const zodApi = fw === frameworks[0]![1] ? require('express-zod-api') : loadWithExpressAs(fw, 'express-zod-api');
        const { attachRouting, createConfig, defaultEndpointsFactory, DependsOnMethod } = zodApi;
        const app: Any = fw();
        // Attached to an app of one's own, it leaves the body parsers to the app.
        app.use(fw.json());
        const config = createConfig({
          app,
          cors: true,
          logger: { level: 'silent' },
          startupLogo: false,
          wrongMethodBehavior: 405,
        });
        const greet = defaultEndpointsFactory.build({
          method: 'get',
          input: z.object({ name: z.string().min(2), times: z.string().regex(/^\d+$/).transform(Number).optional() }),
          output: z.object({ greeting: z.string() }),
          handler: async ({ input }: Any) => ({ greeting: `hello ${input.name}`.repeat(input.times ?? 1) }),
        });
        const user = defaultEndpointsFactory.build({
          method: 'post',
          input: z.object({ id: z.string(), email: z.string().email(), tags: z.array(z.string()).default([]) }),
          output: z.object({ id: z.string(), email: z.string(), tags: z.array(z.string()) }),
          handler: async ({ input }: Any) => {
            if (input.email.endsWith('@banned.example')) throw Object.assign(new Error('banned'), { status: 403 });
            return input;
          },
        });
        const { notFoundHandler } = attachRouting(config, {
          v1: { greet, user: { ':id': new DependsOnMethod({ post: user }) } },
        });
        app.use(notFoundHandler);
        return app;
      },
      [
        { path: '/v1/greet?name=ada' },
        { path: '/v1/greet?name=ada&times=2' },
        { path: '/v1/greet?name=a' },
        { path: '/v1/greet' },
        { method: 'OPTIONS', path: '/v1/greet' },
        { method: 'POST', path: '/v1/user/7', headers: json, body: '{"email":"ada@example.com"}' },
        { method: 'POST', path: '/v1/user/7', headers: json, body: '{"email":"not an address"}' },
        { method: 'POST', path: '/v1/user/7', headers: json, body: '{"email":"x@banned.example"}' },
        { method: 'POST', path: '/v1/user/7', headers: json, body: '{"email":' },
        { method: 'DELETE', path: '/v1/user/7' },
        { path: '/v1/nowhere' },
      ],
      undefined,
      withoutStackFrames,
    );
    assert.deepEqual(JSON.parse(answers[0]!.body), { status: 'success', data: { greeting: 'hello ada' } });
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 400, 400, 200, 200, 400, 500, 400, 405, 404],
    );
  });
});

/** The headers of an answer without the clock's and the brand's. */
function stable(headers: http.IncomingHttpHeaders): http.IncomingHttpHeaders {
  const out = { ...headers };
  delete out.date;
  delete out['x-powered-by'];
  return out;
}
