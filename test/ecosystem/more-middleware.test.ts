/**
 * More of the ecosystem: Express middleware and tools from npm, unmodified, on
 * webapp. Each app runs on express@4 and on webapp with the same requests (good
 * and bad input), and the answers must match; where a package keeps state across
 * requests (sessions, CSRF secrets), one scripted client runs against each and
 * what it saw must match.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { after, describe, it } from 'node:test';
import cookieParser from 'cookie-parser';
import session from 'express-session';
import multer from 'multer';
import passport from 'passport';
import {
  assertSameFlow,
  assertSameResponses,
  rawRequest,
  withoutStackFrames,
  withServer,
  type Framework,
  type RawResponse,
  type RequestSpec,
} from '../support/differential';

type Any = any;

const fixtures = join(__dirname, 'fixtures');

/** A scratch folder removed when the file's tests end. */
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'webapp-eco-more-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The cookies a response set, as one Cookie header (name=value pairs). */
function cookiesOf(res: RawResponse): string {
  return ((res.headers['set-cookie'] as string[] | undefined) ?? []).map((c) => c.split(';')[0]).join('; ');
}

/** Status, content type and body: what a scripted client compares of each answer. */
function summary(res: RawResponse): { status: number; type: unknown; body: string } {
  return { status: res.status, type: res.headers['content-type'], body: res.body };
}

/** Composes normalizers, left to right. */
function both(...steps: Array<(res: RawResponse) => RawResponse>): (res: RawResponse) => RawResponse {
  return (res) => steps.reduce((out, step) => step(out), res);
}

/** Replaces what `pattern` matches in the body (same length on both sides, so content-length stays). */
function maskBody(pattern: RegExp, mask: string): (res: RawResponse) => RawResponse {
  return (res) => ({ ...res, body: res.body.replace(pattern, mask) });
}

/** Drops headers whose value depends on the clock or on randomness. */
function withoutHeaders(...names: string[]): (res: RawResponse) => RawResponse {
  return (res) => {
    const headers = { ...res.headers };
    for (const name of names) delete headers[name];
    return { ...res, headers };
  };
}

const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
const json = { 'Content-Type': 'application/json' };

function multipart(parts: Array<{ name: string; filename?: string; body: string }>): RequestSpec {
  const body =
    parts
      .map(
        (p) =>
          `--XX\r\nContent-Disposition: form-data; name="${p.name}"` +
          (p.filename ? `; filename="${p.filename}"\r\nContent-Type: text/plain` : '') +
          `\r\n\r\n${p.body}\r\n`,
      )
      .join('') + '--XX--\r\n';
  return { method: 'POST', path: '/upload', headers: { 'Content-Type': 'multipart/form-data; boundary=XX' }, body };
}

describe('more ecosystem middleware on webapp (differential against express@4)', () => {
  it('csurf: the token in a form; a POST without it or with a wrong one is a 403 EBADCSRFTOKEN', async () => {
    const csrf = require('csurf');
    const Tokens = require('csrf');
    const tokens = new Tokens();
    // The secret lives in the `_csrf` cookie (cookie: true), so a test that sends it
    // can make a valid token itself, and both servers get the same requests.
    const secret = tokens.secretSync();
    const cookie = { Cookie: '_csrf=' + secret };
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(cookieParser());
        app.use(fw.urlencoded({ extended: false }));
        app.use(csrf({ cookie: true }));
        app.get('/form', (req: Any, res: Any) =>
          res.send(`<form method="post"><input name="_csrf" value="${req.csrfToken()}"></form>`),
        );
        app.post('/process', (req: Any, res: Any) => res.json({ processed: req.body.item }));
        app.post('/default-handler', (_req: Any, res: Any) => res.send('unreachable'));
        app.use((err: Any, req: Any, res: Any, next: Any) => {
          if (err.code !== 'EBADCSRFTOKEN' || req.path === '/default-handler') return next(err);
          res.status(403).json({ code: err.code, status: err.status, message: err.message });
        });
        return app;
      },
      [
        { path: '/form' },
        { path: '/form', headers: cookie },
        {
          method: 'POST',
          path: '/process',
          headers: { ...cookie, ...form },
          body: `item=tea&_csrf=${encodeURIComponent(tokens.create(secret))}`,
        },
        { method: 'POST', path: '/process', headers: { ...cookie, 'X-CSRF-Token': tokens.create(secret) } },
        { method: 'POST', path: '/process', headers: { ...cookie, ...form }, body: 'item=tea&_csrf=wrong' },
        { method: 'POST', path: '/process', headers: form, body: 'item=tea' },
        { method: 'POST', path: '/default-handler', headers: cookie },
      ],
      undefined,
      both(
        maskBody(/value="[^"]+"/, 'value="<token>"'),
        withoutHeaders('etag'),
        (res) => ({
          ...res,
          headers: {
            ...res.headers,
            'set-cookie': (res.headers['set-cookie'] as string[] | undefined)?.map((c) =>
              c.replace(/^_csrf=[^;]+/, '_csrf=<secret>'),
            ),
          },
        }),
        withoutStackFrames,
      ),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 200, 403, 403, 403],
    );
    assert.ok(tokens.verify(secret, /value="([^"]+)"/.exec(answers[1]!.body)![1]));
    assert.deepEqual(JSON.parse(answers[4]!.body), {
      code: 'EBADCSRFTOKEN',
      status: 403,
      message: 'invalid csrf token',
    });
    assert.match(answers[6]!.body, /ForbiddenError: invalid csrf token/);
  });

  it('express-handlebars: layouts, partials, app.locals, a callback render and a missing view', async () => {
    const { engine } = require('express-handlebars');
    const views = join(fixtures, 'handlebars');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.engine(
          'hbs',
          engine({
            extname: '.hbs',
            defaultLayout: 'main',
            layoutsDir: join(views, 'layouts'),
            partialsDir: join(views, 'partials'),
          }),
        );
        app.set('view engine', 'hbs');
        app.set('views', views);
        app.locals.items = ['from', 'app.locals'];
        app.get('/', (_req: Any, res: Any) => res.render('home', { title: 'Tea <&> biscuits', items: ['a', 'b'] }));
        app.get('/locals', (_req: Any, res: Any) => {
          res.locals.title = 'res.locals';
          res.render('home', { layout: 'plain' });
        });
        app.get('/callback', (_req: Any, res: Any) =>
          res.render('home', { title: 'cb', layout: false }, (err: Any, html: string) =>
            res.json({ err: err && err.message, html }),
          ),
        );
        app.get('/missing', (_req: Any, res: Any) => res.render('nope'));
        app.get('/missing-layout', (_req: Any, res: Any) => res.render('home', { layout: 'gone' }));
        return app;
      },
      [{ path: '/' }, { path: '/locals' }, { path: '/callback' }, { path: '/missing' }, { path: '/missing-layout' }],
      undefined,
      withoutStackFrames,
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 500, 500],
    );
    assert.match(answers[0]!.body, /<title>Tea &lt;&amp;&gt; biscuits<\/title>[\s\S]*<li>a<\/li><li>b<\/li>/);
    assert.match(answers[1]!.body, /^<main><h1>res.locals<\/h1>\n<ul><li>from<\/li><li>app.locals<\/li>/);
    assert.match(answers[3]!.body, /Failed to lookup view &quot;nope&quot; in views directory/);
  });

  it('connect-history-api-fallback before serve-static: HTML routes get index.html, files and ranges', async () => {
    const history = require('connect-history-api-fallback');
    const serveStatic = require('serve-static');
    const dir = scratch();
    writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="app"></div>');
    writeFileSync(join(dir, 'app.js'), 'console.log("app")');
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs', 'index.html'), 'docs');
    const html = { Accept: 'text/html,application/xhtml+xml' };
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(history({ rewrites: [{ from: /^\/old-docs/, to: '/docs/index.html' }] }));
        app.use(serveStatic(dir, { maxAge: '1h' }));
        app.use('/raw', serveStatic(dir, { index: false, fallthrough: false }));
        return app;
      },
      [
        { path: '/users/42', headers: html },
        { path: '/old-docs/intro', headers: html },
        { path: '/users/42', headers: { Accept: 'application/json' } },
        { path: '/app.js' },
        { path: '/app.js', headers: { Range: 'bytes=0-6' } },
        { path: '/app.js', headers: { Range: 'bytes=900-' } },
        { method: 'HEAD', path: '/app.js' },
        { path: '/docs', headers: html },
        { path: '/docs' },
        { path: '/raw/docs/' },
        { path: '/raw/missing.js' },
        { method: 'POST', path: '/app.js' },
      ],
      undefined,
      withoutStackFrames,
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 404, 200, 206, 416, 200, 200, 301, 404, 404, 404],
    );
    assert.equal(answers[0]!.body, '<!doctype html><div id="app"></div>');
    assert.equal(answers[4]!.body, 'console');
  });

  it('finalhandler called from a route, and express-basic-auth with static users and an async authorizer', async () => {
    const finalhandler = require('finalhandler');
    const basicAuth = require('express-basic-auth');
    const basic = (user: string, password: string) => ({
      Authorization: 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64'),
    });
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.get('/final/:status', (req: Any, res: Any) => {
          const error: Any = new Error('gone <away>');
          error.status = Number(req.params.status);
          error.headers = { 'X-Reason': 'test' };
          finalhandler(req, res, { env: 'production' })(error);
        });
        app.get('/final', (req: Any, res: Any) => finalhandler(req, res)());
        app.use('/admin', basicAuth({ users: { admin: 'secret' }, challenge: true, realm: 'Admin' }));
        app.get('/admin', (req: Any, res: Any) => res.json(req.auth));
        app.use(
          '/api',
          basicAuth({
            authorizer: (user: string, password: string, done: Any) =>
              setImmediate(done, null, basicAuth.safeCompare(user, 'api') && basicAuth.safeCompare(password, 'key')),
            authorizeAsync: true,
            unauthorizedResponse: (req: Any) => ({ error: req.auth ? 'rejected ' + req.auth.user : 'no credentials' }),
          }),
        );
        app.get('/api', (req: Any, res: Any) => res.send('hello ' + req.auth.user));
        return app;
      },
      [
        { path: '/final/410' },
        { path: '/final/503' },
        { path: '/final?x=<y>' },
        { path: '/admin' },
        { path: '/admin', headers: basic('admin', 'wrong') },
        { path: '/admin', headers: { Authorization: 'Basic !!!' } },
        { path: '/admin', headers: basic('admin', 'secret') },
        { path: '/api' },
        { path: '/api', headers: basic('eve', 'key') },
        { path: '/api', headers: basic('api', 'key') },
      ],
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [410, 503, 404, 401, 401, 401, 200, 401, 401, 200],
    );
    assert.equal(answers[3]!.headers['www-authenticate'], 'Basic realm="Admin"');
    assert.deepEqual(JSON.parse(answers[8]!.body), { error: 'rejected eve' });
  });

  it('hpp and express-mongo-sanitize: req.query and req.body reassigned by middleware', async () => {
    const hpp = require('hpp');
    const mongoSanitize = require('express-mongo-sanitize');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(fw.urlencoded({ extended: true }));
        app.use(fw.json());
        app.use('/hpp', hpp({ whitelist: ['tags'] }));
        app.use('/find', mongoSanitize({ replaceWith: '_', allowDots: false }));
        app.use('/dry', (req: Any, _res: Any, next: Any) => {
          req.found = mongoSanitize.has(req.query);
          next();
        });
        app.all('/hpp', (req: Any, res: Any) =>
          res.json({
            query: req.query,
            body: req.body,
            queryPolluted: req.queryPolluted,
            bodyPolluted: req.bodyPolluted ?? null,
          }),
        );
        app.all('/find', (req: Any, res: Any) => res.json({ query: req.query, body: req.body }));
        app.get('/dry', (req: Any, res: Any) => res.json({ found: req.found, query: req.query }));
        return app;
      },
      [
        { path: '/hpp?sort=asc&sort=desc&tags=a&tags=b&page=1' },
        { method: 'POST', path: '/hpp?id=1&id=2', headers: form, body: 'name=a&name=b&tags=x&tags=y' },
        { path: '/find?user[$gt]=&name=ada&a.b=c' },
        { method: 'POST', path: '/find', headers: json, body: '{"$where":"1","nested":{"$ne":null,"ok":1}}' },
        { path: '/dry?user[$gt]=1' },
      ],
    );
    assert.deepEqual(JSON.parse(answers[0]!.body), {
      query: { sort: 'desc', tags: ['a', 'b'], page: '1' },
      body: {},
      queryPolluted: { sort: ['asc', 'desc'] },
      bodyPolluted: null,
    });
    assert.deepEqual(JSON.parse(answers[2]!.body).query, { user: { _gt: '' }, name: 'ada', a_b: 'c' });
    assert.deepEqual(JSON.parse(answers[3]!.body).body, { _where: '1', nested: { _ne: null, ok: 1 } });
  });

  it('express-slow-down counts requests, vhost dispatches by Host to apps and plain handlers', async () => {
    const { slowDown } = require('express-slow-down');
    const vhost = require('vhost');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        // Delays of 0, 1 and 2 ms: the counting is what is compared, not the clock.
        app.use('/slow', slowDown({ windowMs: 60_000, delayAfter: 1, delayMs: (used: number) => used - 1 }));
        app.get('/slow', (req: Any, res: Any) => {
          const { limit, used, remaining, delay } = req.slowDown;
          res.json({ limit, used, remaining, delay });
        });
        const tenant: Any = fw();
        tenant.get('/', (req: Any, res: Any) =>
          res.json({ tenant: req.vhost[0], host: req.vhost.host, hostname: req.hostname, subdomains: req.subdomains }),
        );
        app.use(vhost('*.tenants.example', tenant));
        app.use(vhost('plain.example', (req: Any, res: Any) => res.end('plain ' + req.vhost.hostname)));
        app.get('*', (req: Any, res: Any) => res.send('main app saw ' + req.hostname + req.url));
        return app;
      },
      [
        { path: '/slow' },
        { path: '/slow' },
        { path: '/slow' },
        { path: '/', headers: { Host: 'acme.tenants.example:8080' } },
        { path: '/missing', headers: { Host: 'acme.tenants.example' } },
        { path: '/', headers: { Host: 'plain.example' } },
        { path: '/', headers: { Host: 'other.example' } },
      ],
    );
    assert.deepEqual(
      answers.slice(0, 3).map((a) => JSON.parse(a.body).delay),
      [0, 1, 2],
    );
    assert.deepEqual(JSON.parse(answers[3]!.body), {
      tenant: 'acme',
      host: 'acme.tenants.example:8080',
      hostname: 'acme.tenants.example',
      subdomains: ['acme'],
    });
    assert.equal(answers[4]!.body, 'main app saw acme.tenants.example/missing');
  });

  it('errorhandler: HTML, JSON and text error pages by Accept', async () => {
    const errorhandler = require('errorhandler');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.get('/boom', (_req: Any, _res: Any, next: Any) => {
          const error: Any = new Error('it <broke>');
          error.status = 422;
          error.stack = 'Error: it <broke>\n    at handler (/app/routes.js:1:1)';
          next(error);
        });
        app.get('/string', (_req: Any, _res: Any, next: Any) => next('a string <error>'));
        app.get('/object', (_req: Any, _res: Any, next: Any) => next({ code: 'E_OBJ', detail: 1 }));
        app.use(errorhandler({ log: false }));
        return app;
      },
      [
        { path: '/boom', headers: { Accept: 'text/html' } },
        { path: '/boom', headers: { Accept: 'application/json' } },
        { path: '/boom', headers: { Accept: 'text/plain' } },
        { path: '/string', headers: { Accept: 'text/html' } },
        { path: '/object', headers: { Accept: 'application/json' } },
      ],
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [422, 422, 422, 500, 500],
    );
    assert.match(answers[0]!.body, /it &lt;broke&gt;/);
    assert.equal(JSON.parse(answers[1]!.body).error.message, 'it <broke>');
  });

  it('express-static-gzip picks the brotli or gzip file by Accept-Encoding, beside express-useragent', async () => {
    const expressStaticGzip = require('express-static-gzip');
    const useragent = require('express-useragent');
    const dir = scratch();
    const script = 'export const answer = 42;\n'.repeat(20);
    writeFileSync(join(dir, 'app.js'), script);
    writeFileSync(join(dir, 'app.js.gz'), gzipSync(script));
    writeFileSync(join(dir, 'app.js.br'), brotliCompressSync(script));
    writeFileSync(join(dir, 'index.html'), '<p>index</p>');
    writeFileSync(join(dir, 'index.html.gz'), gzipSync('<p>index</p>'));
    const chrome =
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) ' +
      'Version/17.0 Mobile/15E148 Safari/604.1';
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(
          '/assets',
          expressStaticGzip(dir, { enableBrotli: true, orderPreference: ['br', 'gz'], serveStatic: { maxAge: '1d' } }),
        );
        app.use(useragent.express());
        app.get('/ua', (req: Any, res: Any) => {
          const { browser, version, os, platform, isMobile, isDesktop, isBot } = req.useragent;
          res.json({ browser, version, os, platform, isMobile, isDesktop, isBot });
        });
        return app;
      },
      [
        { path: '/assets/app.js', headers: { 'Accept-Encoding': 'gzip, deflate, br' } },
        { path: '/assets/app.js', headers: { 'Accept-Encoding': 'gzip' } },
        { path: '/assets/app.js', headers: { 'Accept-Encoding': 'identity' } },
        { path: '/assets/app.js' },
        { path: '/assets/', headers: { 'Accept-Encoding': 'gzip' } },
        { path: '/assets/missing.js', headers: { 'Accept-Encoding': 'gzip' } },
        { path: '/ua', headers: { 'User-Agent': chrome } },
        { path: '/ua', headers: { 'User-Agent': iphone } },
        { path: '/ua', headers: { 'User-Agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' } },
      ],
      undefined,
      withoutStackFrames,
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 200, 200, 404, 200, 200, 200],
    );
    assert.deepEqual(
      answers.slice(0, 5).map((a) => a.headers['content-encoding']),
      ['br', 'gzip', undefined, undefined, 'gzip'],
    );
    assert.match(answers[0]!.headers['content-type'] as string, /^(application|text)\/javascript/);
    assert.equal(JSON.parse(answers[7]!.body).isMobile, true);
  });

  it('i18n: its init middleware, req.__ and res.__, the locale from ?lang, a cookie or Accept-Language', async () => {
    const { I18n } = require('i18n');
    const i18n = new I18n({
      locales: ['en', 'de'],
      defaultLocale: 'en',
      directory: join(fixtures, 'locales'),
      updateFiles: false,
      queryParameter: 'lang',
      cookie: 'locale',
    });
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(cookieParser());
        app.use(i18n.init);
        app.get('/', (req: Any, res: Any) =>
          res.json({
            locale: req.getLocale(),
            hello: req.__('Hello'),
            items: res.__('%s items', 3),
            cats: [req.__n('cat', 1), res.locals.__n('cat', 3)],
            unknown: req.__('Not translated'),
          }),
        );
        app.get('/switch', (req: Any, res: Any) => {
          req.setLocale('de');
          res.send(res.__('Hello') + ' ' + res.locals.getLocale());
        });
        return app;
      },
      [
        { path: '/' },
        { path: '/', headers: { 'Accept-Language': 'de-DE,de;q=0.9,en;q=0.5' } },
        { path: '/?lang=de' },
        { path: '/', headers: { Cookie: 'locale=de' } },
        { path: '/', headers: { 'Accept-Language': 'fr' } },
        { path: '/switch' },
      ],
    );
    assert.deepEqual(JSON.parse(answers[2]!.body), {
      locale: 'de',
      hello: 'Hallo',
      items: '3 Dinge',
      cats: ['1 Katze', '3 Katzen'],
      unknown: 'Not translated',
    });
    assert.equal(answers[5]!.body, 'Hallo de');
  });

  it('express-http-proxy forwards paths, bodies and headers to a second local server', async () => {
    const proxy = require('express-http-proxy');
    const upstream = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url!.startsWith('/api/missing')) {
          res.writeHead(404, { 'Content-Type': 'text/plain', 'X-Upstream': 'yes' });
          return res.end('no such thing');
        }
        res.writeHead(200, { 'Content-Type': 'application/json', 'X-Upstream': 'yes' });
        res.end(
          JSON.stringify({
            method: req.method,
            url: req.url,
            body: Buffer.concat(chunks).toString(),
            type: req.headers['content-type'] ?? null,
            token: req.headers['x-token'] ?? null,
          }),
        );
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const target = `127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    try {
      const answers = await assertSameResponses(
        (fw: Framework) => {
          const app: Any = fw();
          app.use(
            '/proxy',
            proxy(target, {
              proxyReqPathResolver: (req: Any) => '/api' + req.url,
              proxyReqOptDecorator: (options: Any) => {
                options.headers['x-token'] = 'added';
                return options;
              },
              userResHeaderDecorator: (headers: Any) => ({ ...headers, 'x-proxied': 'true' }),
            }),
          );
          app.use(fw.json());
          app.use(
            '/decorated',
            proxy(target, {
              userResDecorator: (_proxyRes: Any, data: Buffer, req: Any) => {
                const answer = JSON.parse(data.toString());
                return JSON.stringify({ ...answer, seenBody: req.body });
              },
            }),
          );
          return app;
        },
        [
          { path: '/proxy/users?x=1' },
          { method: 'POST', path: '/proxy/users', headers: json, body: '{"name":"ada"}' },
          { path: '/proxy/missing' },
          { method: 'PUT', path: '/decorated/item/7', headers: json, body: '{"n":7}' },
        ],
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 404, 200],
      );
      assert.deepEqual(JSON.parse(answers[1]!.body), {
        method: 'POST',
        url: '/api/users',
        body: '{"name":"ada"}',
        type: 'application/json',
        token: 'added',
      });
      assert.deepEqual(JSON.parse(answers[3]!.body).seenBody, { n: 7 });
    } finally {
      upstream.close();
    }
  });

  it('apicache answers the second request from its cache, headers and body as the first', async () => {
    const apicache = require('apicache');
    const caches: Any[] = [];
    try {
      const answers = await assertSameResponses(
        (fw: Framework) => {
          const app: Any = fw();
          const cache = apicache.newInstance({ defaultDuration: '1 minute' });
          caches.push(cache);
          let count = 0;
          app.get('/count', cache.middleware(), (_req: Any, res: Any) =>
            res.set('X-Made', 'here').json({ n: ++count }),
          );
          app.get('/text', cache.middleware('1 minute'), (_req: Any, res: Any) => {
            res.type('text');
            res.write('part one, ');
            res.end('part two ' + ++count);
          });
          // Cached too: apicache keeps every status unless told otherwise.
          app.get('/status', cache.middleware(), (_req: Any, res: Any) => res.status(404).send('missing ' + ++count));
          app.get(
            '/private',
            cache.middleware('1 minute', (req: Any) => !req.headers.authorization),
            (_req: Any, res: Any) => res.send('private ' + ++count),
          );
          app.get('/index', (_req: Any, res: Any) => res.json(cache.getIndex().all.sort()));
          return app;
        },
        [
          { path: '/count' },
          { path: '/count' },
          { path: '/count?page=2' },
          { path: '/text' },
          { path: '/text' },
          { path: '/status' },
          { path: '/status' },
          { path: '/private', headers: { Authorization: 'x' } },
          { path: '/private', headers: { Authorization: 'x' } },
          { path: '/index' },
        ],
        undefined,
        // max-age counts down with the clock from the first answer.
        withoutHeaders('cache-control'),
      );
      assert.deepEqual(
        answers.map((a) => a.body),
        [
          '{"n":1}',
          '{"n":1}',
          '{"n":2}',
          'part one, part two 3',
          'part one, part two 3',
          'missing 4',
          'missing 4',
          'private 5',
          'private 6',
          '["/count","/count?page=2","/status","/text"]',
        ],
      );
      assert.equal(answers[1]!.headers['x-made'], 'here');
    } finally {
      // One key at a time: clear() with no key leaves apicache's own expiry timers running.
      for (const cache of caches) for (const key of cache.getIndex().all) cache.clear(key);
    }
  });

  it('express-session with memorystore: login, regenerate, destroy', async () => {
    const MemoryStore = require('memorystore')(session);
    const stores: Any[] = [];
    try {
      const seen = await assertSameFlow(
        (fw: Framework) => {
          const app: Any = fw();
          const store = new MemoryStore({ checkPeriod: 60_000 });
          stores.push(store);
          app.use(fw.json());
          app.use(session({ store, secret: 's', resave: false, saveUninitialized: false, name: 'sid' }));
          app.post('/login', (req: Any, res: Any, next: Any) =>
            req.session.regenerate((err: Any) => {
              if (err) return next(err);
              req.session.user = req.body.user;
              res.json({ user: req.session.user });
            }),
          );
          app.get('/me', (req: Any, res: Any) => {
            req.session.views = (req.session.views || 0) + 1;
            res.json({ user: req.session.user ?? null, views: req.session.views });
          });
          app.post('/logout', (req: Any, res: Any, next: Any) =>
            req.session.destroy((err: Any) => (err ? next(err) : res.clearCookie('sid').sendStatus(204))),
          );
          app.get('/sessions', (_req: Any, res: Any) =>
            store.length((err: Any, n: number) => (err ? res.sendStatus(500) : res.json({ sessions: n }))),
          );
          return app;
        },
        async (port) => {
          const out: unknown[] = [];
          const login = await rawRequest(port, {
            method: 'POST',
            path: '/login',
            headers: json,
            body: '{"user":"ada"}',
          });
          const cookie = cookiesOf(login);
          out.push(summary(login), /^sid=s%3A/.test(cookie));
          for (const path of ['/me', '/me', '/sessions'])
            out.push(summary(await rawRequest(port, { path, headers: { Cookie: cookie } })));
          out.push(summary(await rawRequest(port, { path: '/me' })));
          const logout = await rawRequest(port, { method: 'POST', path: '/logout', headers: { Cookie: cookie } });
          out.push(summary(logout), logout.headers['set-cookie']);
          out.push(summary(await rawRequest(port, { path: '/me', headers: { Cookie: cookie } })));
          return out;
        },
      );
      assert.deepEqual(seen[3], {
        status: 200,
        type: 'application/json; charset=utf-8',
        body: '{"user":"ada","views":2}',
      });
    } finally {
      for (const store of stores) store.stopInterval();
    }
  });

  it('passport-http (Basic) and passport-jwt: 401 challenges, bad tokens, req.user', async () => {
    const { BasicStrategy } = require('passport-http');
    const { Strategy: JwtStrategy, ExtractJwt } = require('passport-jwt');
    const jwt = require('jsonwebtoken');
    const basic = (user: string, password: string) => ({
      Authorization: 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64'),
    });
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        const auth = new passport.Passport();
        auth.use(
          new BasicStrategy({ realm: 'Notes' }, (user: string, password: string, done: Any) =>
            done(null, user === 'ada' && password === 'pw' ? { name: user } : false),
          ),
        );
        auth.use(
          new JwtStrategy(
            { jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(), secretOrKey: 'key', issuer: 'webapp' },
            (payload: Any, done: Any) => done(null, payload.sub === 'banned' ? false : { sub: payload.sub }),
          ),
        );
        app.use(auth.initialize());
        app.get('/basic', auth.authenticate('basic', { session: false }), (req: Any, res: Any) => res.json(req.user));
        app.get('/jwt', auth.authenticate('jwt', { session: false }), (req: Any, res: Any) => res.json(req.user));
        app.get('/jwt-info', (req: Any, res: Any, next: Any) =>
          auth.authenticate('jwt', { session: false }, (err: Any, user: Any, info: Any) =>
            err ? next(err) : res.status(user ? 200 : 401).json({ user, info: info && String(info.message) }),
          )(req, res, next),
        );
        return app;
      },
      [
        { path: '/basic' },
        { path: '/basic', headers: basic('ada', 'nope') },
        { path: '/basic', headers: basic('ada', 'pw') },
        { path: '/jwt' },
        { path: '/jwt', headers: { Authorization: 'Bearer ' + jwt.sign({ sub: 'ada' }, 'key', { issuer: 'webapp' }) } },
        {
          path: '/jwt',
          headers: { Authorization: 'Bearer ' + jwt.sign({ sub: 'ada' }, 'other', { issuer: 'webapp' }) },
        },
        {
          path: '/jwt',
          headers: { Authorization: 'Bearer ' + jwt.sign({ sub: 'banned' }, 'key', { issuer: 'webapp' }) },
        },
        { path: '/jwt-info', headers: { Authorization: 'Bearer ' + jwt.sign({ sub: 'ada' }, 'key', { issuer: 'x' }) } },
        {
          path: '/jwt-info',
          headers: { Authorization: 'Bearer ' + jwt.sign({ sub: 'ada' }, 'key', { issuer: 'webapp' }) },
        },
      ],
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [401, 401, 200, 401, 200, 401, 401, 401, 200],
    );
    assert.equal(answers[0]!.headers['www-authenticate'], 'Basic realm="Notes"');
    assert.deepEqual(JSON.parse(answers[7]!.body), { user: false, info: 'jwt issuer invalid. expected: webapp' });
  });

  it('express-request-id and lusca: request ids, security headers, and a CSRF token kept in the session', async () => {
    const requestId = require('express-request-id').default;
    const lusca = require('lusca');
    const seen = await assertSameFlow(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(requestId());
        app.use(fw.urlencoded({ extended: false }));
        app.use(session({ secret: 's', resave: false, saveUninitialized: true }));
        app.use(
          lusca({
            csrf: true,
            xframe: 'SAMEORIGIN',
            hsts: { maxAge: 31536000, includeSubDomains: true },
            xssProtection: true,
            nosniff: true,
            referrerPolicy: 'same-origin',
          }),
        );
        app.get('/token', (req: Any, res: Any) => res.json({ id: req.id, token: res.locals._csrf }));
        app.post('/save', (req: Any, res: Any) => res.json({ id: req.id, saved: req.body.item }));
        // lusca's errors carry no status: this handler makes them the 403 they mean.
        app.use((err: Any, _req: Any, res: Any, _next: Any) => res.status(err.status || 403).send(err.message));
        return app;
      },
      async (port) => {
        const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
        const first = await rawRequest(port, { path: '/token' });
        const { id, token } = JSON.parse(first.body);
        const cookie = cookiesOf(first);
        const headers = { ...first.headers };
        for (const name of ['date', 'connection', 'keep-alive', 'x-powered-by', 'set-cookie', 'x-request-id', 'etag'])
          delete headers[name];
        const post = (extra: Record<string, string>, body: string) =>
          rawRequest(port, { method: 'POST', path: '/save', headers: { ...form, ...extra }, body }).then(summary);
        return {
          headers,
          id: uuid.test(id) && first.headers['x-request-id'] === id,
          token: typeof token === 'string' && token.length > 10,
          // lusca makes a new token for every request, checked against the secret in the session.
          given: maskBody(
            /"token":"[^"]+"/,
            '"token":"<token>"',
          )(await rawRequest(port, { path: '/token', headers: { 'X-Request-Id': 'given-1', Cookie: cookie } })).body,
          noToken: await post({ Cookie: cookie, 'X-Request-Id': 'r2' }, 'item=tea'),
          wrong: await post({ Cookie: cookie, 'X-Request-Id': 'r3', 'X-CSRF-Token': 'wrong' }, 'item=tea'),
          good: await post({ Cookie: cookie, 'X-Request-Id': 'r4' }, `item=tea&_csrf=${encodeURIComponent(token)}`),
          header: await post({ Cookie: cookie, 'X-Request-Id': 'r5', 'X-CSRF-Token': token }, 'item=cake'),
          noSession: await post({ 'X-Request-Id': 'r6', 'X-CSRF-Token': token }, 'item=cake'),
        };
      },
    );
    assert.equal(seen.headers['x-frame-options'], 'SAMEORIGIN');
    assert.equal(seen.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
    assert.deepEqual([seen.id, seen.token], [true, true]);
    assert.deepEqual(
      [seen.noToken.status, seen.wrong.status, seen.good.status, seen.header.status, seen.noSession.status],
      [403, 403, 200, 200, 403],
    );
    assert.equal(seen.good.body, '{"id":"r4","saved":"tea"}');
  });

  it('body-parser used directly: text and raw with limits, charsets, gzip, and its errors', async () => {
    const bodyParser = require('body-parser');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.post(
          '/text',
          bodyParser.text({ type: 'text/*', limit: 16, defaultCharset: 'latin1' }),
          (req: Any, res: Any) => res.json({ body: req.body }),
        );
        app.post('/raw', bodyParser.raw({ type: ['application/octet-stream', 'image/*'] }), (req: Any, res: Any) =>
          res.json({ hex: Buffer.isBuffer(req.body) ? req.body.toString('hex') : req.body }),
        );
        app.post('/json', bodyParser.json({ strict: true }), (req: Any, res: Any) => res.json(req.body));
        app.post('/default-handler', bodyParser.json(), (req: Any, res: Any) => res.json(req.body));
        app.use((err: Any, req: Any, res: Any, next: Any) => {
          if (req.path === '/default-handler') return next(err);
          res
            .status(err.status)
            .json({ type: err.type, status: err.status, message: err.message, charset: err.charset });
        });
        return app;
      },
      [
        {
          method: 'POST',
          path: '/text',
          headers: { 'Content-Type': 'text/plain' },
          body: Buffer.from('caf\xe9', 'latin1'),
        },
        { method: 'POST', path: '/text', headers: { 'Content-Type': 'text/csv; charset=utf-8' }, body: 'a,b\nc,d' },
        { method: 'POST', path: '/text', headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(17) },
        { method: 'POST', path: '/text', headers: { 'Content-Type': 'text/plain; charset=klingon' }, body: 'x' },
        { method: 'POST', path: '/text', headers: { 'Content-Type': 'application/json' }, body: '{}' },
        { method: 'POST', path: '/raw', headers: { 'Content-Type': 'image/png' }, body: Buffer.from([0, 1, 254, 255]) },
        {
          method: 'POST',
          path: '/raw',
          headers: { 'Content-Type': 'application/octet-stream', 'Content-Encoding': 'gzip' },
          body: gzipSync(Buffer.from([1, 2, 3])),
        },
        {
          method: 'POST',
          path: '/raw',
          headers: { 'Content-Type': 'application/octet-stream', 'Content-Encoding': 'compress' },
          body: 'x',
        },
        { method: 'POST', path: '/json', headers: json, body: '"a string"' },
        { method: 'POST', path: '/json', headers: json, body: '{"a":' },
        { method: 'POST', path: '/default-handler', headers: json, body: '{"a":' },
      ],
      undefined,
      withoutStackFrames,
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 413, 415, 200, 200, 200, 415, 400, 400, 400],
    );
    // The answers' bodies are read as latin1; the JSON was sent in UTF-8.
    assert.deepEqual(JSON.parse(Buffer.from(answers[0]!.body, 'latin1').toString()), { body: 'café' });
    assert.equal(JSON.parse(answers[2]!.body).type, 'entity.too.large');
    assert.deepEqual(JSON.parse(answers[6]!.body), { hex: '010203' });
  });

  it('multer with diskStorage and limits: LIMIT_FILE_SIZE, LIMIT_FILE_COUNT, LIMIT_UNEXPECTED_FILE', async () => {
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        const dir = scratch();
        const upload = multer({
          storage: multer.diskStorage({
            destination: dir,
            filename: (_req: Any, file: Any, done: Any) => done(null, 'saved-' + file.originalname),
          }),
          limits: { fileSize: 16, files: 2, fields: 2 },
        });
        app.post('/upload', upload.array('docs', 2), (req: Any, res: Any) =>
          res.json({
            body: req.body,
            files: req.files.map((f: Any) => [f.fieldname, f.filename, f.size, readFileSync(f.path, 'utf8')]),
          }),
        );
        app.use((err: Any, _req: Any, res: Any, next: Any) => {
          if (!(err instanceof multer.MulterError)) return next(err);
          res
            .status(err.code === 'LIMIT_FILE_SIZE' ? 413 : 400)
            .json({ code: err.code, field: err.field, message: err.message });
        });
        return app;
      },
      [
        multipart([
          { name: 'title', body: 'notes' },
          { name: 'docs', filename: 'a.txt', body: 'small' },
          { name: 'docs', filename: 'b.txt', body: 'also small' },
        ]),
        multipart([{ name: 'docs', filename: 'big.txt', body: 'x'.repeat(17) }]),
        multipart([
          { name: 'docs', filename: 'a.txt', body: '1' },
          { name: 'docs', filename: 'b.txt', body: '2' },
          { name: 'docs', filename: 'c.txt', body: '3' },
        ]),
        multipart([{ name: 'other', filename: 'a.txt', body: '1' }]),
        multipart([
          { name: 'a', body: '1' },
          { name: 'b', body: '2' },
          { name: 'c', body: '3' },
        ]),
        { method: 'POST', path: '/upload', headers: { 'Content-Type': 'multipart/form-data' }, body: 'x' },
      ],
      undefined,
      withoutStackFrames,
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 413, 400, 400, 400, 500],
    );
    assert.deepEqual(JSON.parse(answers[0]!.body).files, [
      ['docs', 'saved-a.txt', 5, 'small'],
      ['docs', 'saved-b.txt', 10, 'also small'],
    ]);
    assert.deepEqual(JSON.parse(answers[1]!.body), {
      code: 'LIMIT_FILE_SIZE',
      field: 'docs',
      message: 'File too large',
    });
  });

  // vite 8 needs Node 20.19 (its bundler calls util.styleText, which 20.9 lacks).
  const viteRuns = typeof (require('node:util') as { styleText?: unknown }).styleText === 'function';
  it(
    'vite in middleware mode: modules through app.use(vite.middlewares), SSR HTML, ssrLoadModule',
    {
      skip: viteRuns ? false : 'vite 8 needs Node 20.19 or later',
    },
    async () => {
      // Untyped: vite's types resolve only under `bundler` or `node16` module resolution.
      const { createServer } = require('vite');
      const root = join(fixtures, 'vite');
      const vite = await createServer({
        root,
        configFile: false,
        logLevel: 'silent',
        cacheDir: join(scratch(), 'vite-cache'),
        appType: 'custom',
        server: { middlewareMode: true, hmr: false, watch: null },
        optimizeDeps: { noDiscovery: true, include: [] },
      });
      try {
        const template = readFileSync(join(root, 'index.html'), 'utf8');
        // The ETag vite gives a transformed module (the same for both servers, which share the vite server).
        const etag = String(
          (await withServer(vite.middlewares, (port) => rawRequest(port, { path: '/greet.ts' }))).headers.etag,
        );
        const answers = await assertSameResponses(
          (fw: Framework) => {
            const app: Any = fw();
            app.use(vite.middlewares);
            app.get('/ssr-module', async (_req: Any, res: Any, next: Any) => {
              try {
                const { greet } = await vite.ssrLoadModule('/greet.ts');
                res.send(greet('ssr', 2));
              } catch (error) {
                next(error);
              }
            });
            app.use('*', async (req: Any, res: Any, next: Any) => {
              try {
                const html = await vite.transformIndexHtml(req.originalUrl, template);
                res
                  .status(200)
                  .set({ 'Content-Type': 'text/html' })
                  .end(html.replace('<!--app-html-->', `rendered for ${req.originalUrl}`));
              } catch (error) {
                next(error);
              }
            });
            return app;
          },
          [
            { path: '/' },
            { path: '/users/7?tab=a' },
            { path: '/main.ts' },
            { path: '/greet.ts' },
            { path: '/greet.ts?import' },
            { path: '/ssr-module' },
            { path: '/index.html' },
            { path: '/greet.ts', headers: { 'If-None-Match': etag } },
            { method: 'HEAD', path: '/greet.ts' },
            { path: '/robots.txt' },
            { path: '/style.css' },
            { path: '/style.css?direct', headers: { Accept: 'text/css' } },
            { path: '/@fs/etc/hostname' },
          ],
        );
        assert.deepEqual(
          answers.map((a) => a.status),
          [200, 200, 200, 200, 200, 200, 200, 304, 200, 200, 200, 200, 403],
        );
        assert.match(answers[1]!.body, /<div id="app">rendered for \/users\/7\?tab=a<\/div>/);
        assert.match(answers[2]!.body, /import \{ greet \} from "\/greet\.ts";/);
        assert.doesNotMatch(answers[3]!.body, /: string/);
        assert.equal(answers[5]!.body, 'hello ssr hello ssr');
      } finally {
        await vite.close();
      }
    },
  );

  it('express-mung and express-interceptor: res.json, res.end and res.write patched per request', async () => {
    const mung = require('express-mung');
    const interceptor = require('express-interceptor');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(
          mung.json((body: Any, req: Any) => {
            if (req.query.drop) return null;
            if (req.query.scalar) return 'scalar ' + req.path;
            if (body && typeof body === 'object') body.munged = req.path;
            return body;
          }),
        );
        app.use(mung.headers((_req: Any, res: Any) => res.set('X-Munged', String(res.statusCode))));
        app.use(
          '/page',
          interceptor((_req: Any, res: Any) => ({
            isInterceptable: () => /text\/html/.test(String(res.get('Content-Type'))),
            intercept: (body: string, send: (body: string) => void) => send(body.replace('World', 'Intercepted')),
          })),
        );
        app.get('/json', (_req: Any, res: Any) => res.json({ a: 1 }));
        // res.send(object) goes through res.json, so the patched one runs.
        app.get('/send-object', (_req: Any, res: Any) => res.send({ b: 2 }));
        app.get('/jsonp', (_req: Any, res: Any) => res.jsonp({ c: 3 }));
        app.get('/error', (_req: Any, res: Any) => res.status(422).json({ invalid: true }));
        app.get('/page/html', (_req: Any, res: Any) => res.send('<p>Hello World</p>'));
        app.get('/page/text', (_req: Any, res: Any) => res.type('text').send('Hello World'));
        app.get('/page/written', (_req: Any, res: Any) => {
          res.type('html');
          res.write('<p>Hello ');
          res.end('World</p>');
        });
        app.get('/page/json', (_req: Any, res: Any) => res.json({ hello: 'World' }));
        return app;
      },
      [
        { path: '/json' },
        { path: '/json?drop=1' },
        { path: '/json?scalar=1' },
        { path: '/send-object' },
        { path: '/jsonp?callback=cb' },
        { path: '/error' },
        { path: '/page/html' },
        { path: '/page/text' },
        { path: '/page/written' },
        { path: '/page/json' },
        { method: 'HEAD', path: '/json' },
      ],
    );
    assert.deepEqual(
      answers.map((a) => [a.status, a.body]),
      [
        [200, '{"a":1,"munged":"/json"}'],
        [204, ''],
        [200, 'scalar /json'],
        [200, '{"b":2,"munged":"/send-object"}'],
        [200, '/**/ typeof cb === \'function\' && cb({"c":3});'],
        [422, '{"invalid":true}'],
        [200, '<p>Hello Intercepted</p>'],
        [200, 'Hello World'],
        [200, '<p>Hello Intercepted</p>'],
        [200, '{"hello":"World","munged":"/page/json"}'],
        [200, ''],
      ],
    );
    assert.equal(answers[5]!.headers['x-munged'], '422');
  });

  it('express-ejs-layouts replaces res.render per request: layouts, contentFor, extracted scripts', async () => {
    const expressLayouts = require('express-ejs-layouts');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.set('views', join(fixtures, 'ejs-layouts'));
        app.set('view engine', 'ejs');
        app.set('layout extractScripts', true);
        app.set('layout extractStyles', true);
        app.locals.site = 'webapp';
        app.use(expressLayouts);
        app.get('/', (_req: Any, res: Any) => res.render('page', { title: 'Layouts', name: 'ada' }));
        app.get('/bare', (_req: Any, res: Any) => res.render('plain', { layout: false, name: 'bare' }));
        app.get('/callback', (_req: Any, res: Any) =>
          res.render('plain', { title: 'cb', name: 'cb' }, (err: Any, html: string) =>
            res.json({ err: err ? err.message : null, html }),
          ),
        );
        app.get('/missing-layout', (_req: Any, res: Any) => res.render('plain', { layout: 'gone', name: 'x' }));
        return app;
      },
      [{ path: '/' }, { path: '/bare' }, { path: '/callback' }, { path: '/missing-layout' }],
      undefined,
      withoutStackFrames,
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 500],
    );
    assert.match(answers[0]!.body, /<style>p \{ color: teal \}<\/style>\n<main>\n<p>Hello ada on webapp<\/p>/);
    assert.match(answers[0]!.body, /<aside><nav>side<\/nav>\n<\/aside>\n<script>console.log\('page'\)<\/script>/);
    assert.equal(answers[1]!.body, '<p>bare</p>\n');
    assert.match(answers[3]!.body, /Failed to lookup view &quot;gone&quot;/);
  });

  it('express-paginate mutates req.query; a mounted app with another query parser sees the parent’s', async () => {
    const paginate = require('express-paginate');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(paginate.middleware(10, 50));
        app.get('/users', (req: Any, res: Any) => {
          const { page, limit, hasPreviousPages, hasNextPages } = res.locals.paginate;
          res.json({
            query: req.query,
            skip: req.skip,
            locals: { page, limit, hasPreviousPages, hasNext: hasNextPages(5) },
            pages: paginate.getArrayPages(req)(3, 5, req.query.page),
            prev: res.locals.paginate.href(true),
            next: res.locals.paginate.href({ sort: 'name' }),
          });
        });
        // Express parses req.query once, in the app that gets the request first: a mounted
        // app's own query parser does not parse it again.
        const mounted: Any = fw();
        mounted.set('query parser', 'simple');
        mounted.get('/list', (req: Any, res: Any) => res.json({ query: req.query, page: typeof req.query.page }));
        app.use('/mounted', mounted);
        const router = fw.Router();
        router.get('/list', (req: Any, res: Any) => {
          req.query = { replaced: true };
          res.json(req.query);
        });
        app.use('/router', router);
        return app;
      },
      [
        { path: '/users' },
        { path: '/users?page=3&limit=5&sort=age' },
        { path: '/users?page=-2&limit=500' },
        { path: '/users?page=x&limit=y' },
        { path: '/mounted/list?page=2&filter[name]=ada&filter[age]=3' },
        { path: '/router/list?page=2' },
      ],
    );
    const users = JSON.parse(answers[1]!.body);
    assert.deepEqual(users.query, { page: 3, limit: 5, sort: 'age' });
    assert.equal(users.skip, 10);
    assert.equal(users.prev, '/users?page=2&limit=5&sort=age');
    assert.deepEqual(JSON.parse(answers[4]!.body), {
      query: { page: 2, limit: 10, filter: { name: 'ada', age: '3' } },
      page: 'number',
    });
  });

  it('behind a proxy: express-sslify, express-ipfilter, request-ip and express-bearer-token', async () => {
    const enforce = require('express-sslify');
    const { IpFilter, IpDeniedError } = require('express-ipfilter');
    const requestIp = require('request-ip');
    const bearerToken = require('express-bearer-token');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.set('trust proxy', 'loopback');
        app.use('/secure', enforce.HTTPS());
        app.use('/admin', IpFilter(['203.0.113.7'], { mode: 'allow', trustProxy: 'loopback', log: false }));
        app.use(cookieParser());
        app.use(requestIp.mw());
        app.use(bearerToken({ cookie: { key: 'access_token', signed: false } }));
        app.all('*', (req: Any, res: Any) =>
          res.json({
            ip: req.ip,
            ips: req.ips,
            clientIp: req.clientIp,
            token: req.token ?? null,
            secure: req.secure,
            protocol: req.protocol,
            hostname: req.hostname,
          }),
        );
        app.use((err: Any, _req: Any, res: Any, next: Any) =>
          err instanceof IpDeniedError ? res.status(403).json({ denied: err.message }) : next(err),
        );
        return app;
      },
      [
        { path: '/secure/page?x=1', headers: { Host: 'shop.example' } },
        { method: 'POST', path: '/secure/page', headers: { Host: 'shop.example' } },
        { path: '/secure/page', headers: { Host: 'shop.example', 'X-Forwarded-Proto': 'https' } },
        { path: '/admin', headers: { 'X-Forwarded-For': '198.51.100.1' } },
        { path: '/admin', headers: { 'X-Forwarded-For': '198.51.100.1, 203.0.113.7' } },
        { path: '/who', headers: { Authorization: 'Bearer abc.def', 'X-Forwarded-Host': 'front.example:8443' } },
        { path: '/who?access_token=from-query' },
        { path: '/who', headers: { Cookie: 'access_token=from-cookie', 'X-Real-IP': '192.0.2.9' } },
      ],
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [301, 403, 200, 403, 200, 200, 200, 200],
    );
    assert.equal(answers[0]!.headers.location, 'https://shop.example/secure/page?x=1');
    // Only loopback is trusted: the address before the client's is not believed.
    assert.deepEqual(JSON.parse(answers[4]!.body).ips, ['203.0.113.7']);
    assert.equal(JSON.parse(answers[5]!.body).hostname, 'front.example');
  });

  it('express-formidable and connect-busboy read multipart bodies from the request stream', async () => {
    const formidable = require('express-formidable');
    const busboy = require('connect-busboy');
    const upload = multipart([
      { name: 'title', body: 'notes' },
      { name: 'doc', filename: 'a.txt', body: 'file body' },
    ]);
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.post('/formidable', formidable({ uploadDir: scratch() }), (req: Any, res: Any) =>
          res.json({ fields: req.fields, file: [req.files.doc.name, req.files.doc.size, req.files.doc.type] }),
        );
        app.post('/busboy', busboy({ limits: { fileSize: 4 } }), (req: Any, res: Any) => {
          const seen: unknown[] = [];
          req.busboy.on('field', (name: string, value: string) => seen.push(['field', name, value]));
          req.busboy.on('file', (name: string, file: Any, info: Any) => {
            const chunks: Buffer[] = [];
            file.on('data', (c: Buffer) => chunks.push(c));
            file.on('end', () =>
              seen.push(['file', name, info.filename, Buffer.concat(chunks).toString(), file.truncated]),
            );
          });
          req.busboy.on('close', () => res.json(seen));
          req.pipe(req.busboy);
        });
        return app;
      },
      [
        { ...upload, path: '/formidable' },
        { ...upload, path: '/busboy' },
      ],
    );
    assert.deepEqual(JSON.parse(answers[0]!.body), {
      fields: { title: 'notes' },
      file: ['a.txt', 9, 'text/plain'],
    });
    assert.deepEqual(JSON.parse(answers[1]!.body), [
      ['field', 'title', 'notes'],
      ['file', 'doc', 'a.txt', 'file', true],
    ]);
  });

  it('express-session behind a proxy: a secure cookie only over X-Forwarded-Proto https, rolling maxAge', async () => {
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.set('trust proxy', 1);
        app.use(
          session({
            secret: 's',
            name: 'sid',
            resave: false,
            saveUninitialized: true,
            rolling: true,
            cookie: { secure: true, httpOnly: true, sameSite: 'lax', maxAge: 60_000, path: '/app' },
          }),
        );
        app.get('/app', (req: Any, res: Any) =>
          res.json({
            secure: req.secure,
            isNew: req.session.isNew ?? null,
            // In seconds: express-session takes it from `expires - Date.now()`, which a clock
            // tick between the two makes 59,999 ms on either framework.
            maxAgeSeconds: Math.round((req.session.cookie.originalMaxAge ?? 0) / 1000),
          }),
        );
        return app;
      },
      [
        { path: '/app' },
        { path: '/app', headers: { 'X-Forwarded-Proto': 'https' } },
        { path: '/app', headers: { 'X-Forwarded-Proto': 'https, http' } },
        { path: '/other', headers: { 'X-Forwarded-Proto': 'https' } },
      ],
      undefined,
      (res) => ({
        ...res,
        headers: {
          ...res.headers,
          'set-cookie': (res.headers['set-cookie'] as string[] | undefined)?.map((c) =>
            c.replace(/^sid=[^;]+/, 'sid=<id>').replace(/Expires=[^;]+/, 'Expires=<date>'),
          ),
        },
      }),
    );
    assert.deepEqual(
      answers.map((a) => Boolean(a.headers['set-cookie'])),
      [false, true, true, false],
    );
    assert.match(
      String(answers[1]!.headers['set-cookie']),
      /; Path=\/app; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/,
    );
  });

  it('compression over apicache, serve-static ranges and a flushed event stream', async () => {
    const compression = require('compression');
    const apicache = require('apicache');
    const serveStatic = require('serve-static');
    const dir = scratch();
    writeFileSync(join(dir, 'data.txt'), 'line of text\n'.repeat(200));
    const caches: Any[] = [];
    try {
      const answers = await assertSameResponses(
        (fw: Framework) => {
          const app: Any = fw();
          const cache = apicache.newInstance({ defaultDuration: '1 minute' });
          caches.push(cache);
          app.use(compression({ threshold: 100 }));
          app.use('/files', serveStatic(dir));
          app.get('/cached', cache.middleware(), (_req: Any, res: Any) => res.json({ list: 'x'.repeat(300) }));
          app.get('/events', (_req: Any, res: Any) => {
            res.set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
            let n = 0;
            const tick = () => {
              res.write(`data: ${n}\n\n`);
              res.flush();
              if (++n < 3) setImmediate(tick);
              else res.end();
            };
            tick();
          });
          app.get('/file', (_req: Any, res: Any) => res.sendFile(join(dir, 'data.txt')));
          return app;
        },
        [
          { path: '/files/data.txt', headers: { 'Accept-Encoding': 'gzip' } },
          { path: '/files/data.txt', headers: { 'Accept-Encoding': 'gzip', Range: 'bytes=0-12' } },
          { path: '/cached', headers: { 'Accept-Encoding': 'gzip' } },
          { path: '/cached', headers: { 'Accept-Encoding': 'gzip' } },
          { path: '/cached', headers: { 'Accept-Encoding': 'identity' } },
          { path: '/events', headers: { 'Accept-Encoding': 'gzip' } },
          { path: '/file', headers: { 'Accept-Encoding': 'deflate' } },
          { method: 'HEAD', path: '/file', headers: { 'Accept-Encoding': 'gzip' } },
        ],
        undefined,
        withoutHeaders('cache-control'),
      );
      assert.deepEqual(
        answers.map((a) => [a.status, a.headers['content-encoding']]),
        [
          [200, 'gzip'],
          [206, undefined],
          [200, 'gzip'],
          [200, 'gzip'],
          [200, undefined],
          [200, 'gzip'],
          [200, 'deflate'],
          [200, undefined],
        ],
      );
    } finally {
      for (const cache of caches) for (const key of cache.getIndex().all) cache.clear(key);
    }
  });

  it('celebrate (Joi) replaces req.params, req.query and req.body; graphql-http answers GraphQL', async () => {
    const { celebrate, Joi, Segments, errors } = require('celebrate');
    const { createHandler } = require('graphql-http/lib/use/express');
    const { buildSchema } = require('graphql');
    const schema = buildSchema('type Query { hello(name: String): String }');
    const rootValue = { hello: ({ name }: { name: string }) => 'hello ' + name };
    const query = encodeURIComponent('{ hello(name: "get") }');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.post(
          '/users/:id',
          fw.json(),
          celebrate({
            [Segments.PARAMS]: Joi.object({ id: Joi.number().integer() }),
            [Segments.QUERY]: Joi.object({ notify: Joi.boolean().default(false) }),
            [Segments.BODY]: Joi.object({ name: Joi.string().required(), age: Joi.number().min(0) }),
          }),
          // A second validator of the same request's query, as a router-level one would be.
          celebrate({ [Segments.QUERY]: Joi.object({ notify: Joi.boolean() }) }),
          (req: Any, res: Any) => res.json({ params: req.params, query: req.query, body: req.body }),
        );
        app.all('/graphql', createHandler({ schema, rootValue }));
        app.all('/parsed/graphql', fw.json(), createHandler({ schema, rootValue }));
        app.use(errors());
        return app;
      },
      [
        { method: 'POST', path: '/users/7', headers: json, body: '{"name":"ada","age":"36"}' },
        { method: 'POST', path: '/users/7?notify=yes', headers: json, body: '{"name":"ada"}' },
        { method: 'POST', path: '/users/x', headers: json, body: '{"name":"ada"}' },
        { method: 'POST', path: '/users/7', headers: json, body: '{"age":-1}' },
        { method: 'POST', path: '/graphql', headers: json, body: '{"query":"{ hello(name: \\"post\\") }"}' },
        { method: 'POST', path: '/parsed/graphql', headers: json, body: '{"query":"{ hello(name: \\"parsed\\") }"}' },
        { path: '/graphql?query=' + query, headers: { Accept: 'application/graphql-response+json' } },
        { method: 'POST', path: '/graphql', headers: json, body: '{"query":"{ nope }"}' },
        { method: 'POST', path: '/graphql', headers: { 'Content-Type': 'text/plain' }, body: '{ hello }' },
        { method: 'PUT', path: '/graphql', headers: json, body: '{}' },
      ],
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 400, 400, 400, 200, 200, 200, 200, 415, 405],
    );
    assert.deepEqual(JSON.parse(answers[0]!.body), {
      params: { id: 7 },
      query: { notify: false },
      body: { name: 'ada', age: 36 },
    });
    assert.equal(JSON.parse(answers[2]!.body).validation.params.keys[0], 'id');
    assert.deepEqual(JSON.parse(answers[5]!.body), { data: { hello: 'hello parsed' } });
    assert.deepEqual(JSON.parse(answers[6]!.body), { data: { hello: 'hello get' } });
    // A query that does not validate is a 200 with errors under application/json (graphql-over-http).
    assert.match(JSON.parse(answers[7]!.body).errors[0].message, /Cannot query field "nope"/);
  });

  it('webpack-dev-middleware serves the bundle it compiled in memory', async () => {
    const webpack = require('webpack');
    const devMiddleware = require('webpack-dev-middleware');
    const compiler = webpack({
      mode: 'development',
      context: join(fixtures, 'webpack'),
      entry: './entry.js',
      output: { path: '/bundle', filename: 'main.js', publicPath: '/assets/' },
      devtool: false,
      infrastructureLogging: { level: 'none' },
      cache: false,
    });
    // One compiler and one middleware for both apps: the bundle is made once.
    const middleware = devMiddleware(compiler, { publicPath: '/assets/', stats: false, serverSideRender: true });
    try {
      await new Promise((resolve) => middleware.waitUntilValid(resolve));
      const answers = await assertSameResponses(
        (fw: Framework) => {
          const app: Any = fw();
          app.use(middleware);
          app.get('/stats', (_req: Any, res: Any) =>
            res.json(Object.keys(res.locals.webpack.devMiddleware.stats.toJson({ assets: true }).assetsByChunkName)),
          );
          return app;
        },
        [
          { path: '/assets/main.js' },
          { path: '/assets/main.js', headers: { Range: 'bytes=0-9' } },
          { method: 'HEAD', path: '/assets/main.js' },
          { path: '/assets/missing.js' },
          { method: 'POST', path: '/assets/main.js' },
          { path: '/stats' },
        ],
        undefined,
        both(withoutStackFrames, withoutHeaders('last-modified', 'etag')),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 206, 200, 404, 404, 200],
      );
      assert.match(answers[0]!.body, /bundled by /);
      assert.deepEqual(JSON.parse(answers[5]!.body), ['main']);
    } finally {
      await new Promise((resolve) => middleware.close(resolve));
    }
  });

  it('packages that bring their own Express: @bull-board/express (an Express 5 app) and express-actuator', async () => {
    const { createBullBoard } = require('@bull-board/api');
    const { ExpressAdapter } = require('@bull-board/express');
    const actuator = require('express-actuator');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        const serverAdapter = new ExpressAdapter();
        serverAdapter.setBasePath('/admin/queues');
        createBullBoard({ queues: [], serverAdapter });
        // An app made by express@5, mounted in the app under test.
        app.use('/admin/queues', serverAdapter.getRouter());
        app.use(actuator({ basePath: '/management' }));
        app.get('/after', (_req: Any, res: Any) => res.send('routes after them still run'));
        return app;
      },
      [
        { path: '/admin/queues' },
        { path: '/admin/queues/api/queues' },
        { path: '/admin/queues/api/redis/stats' },
        { path: '/admin/queues/static/favicon-32x32.png' },
        { path: '/management/info' },
        { path: '/management/health' },
        { path: '/after' },
      ],
      undefined,
      both(withoutStackFrames, withoutHeaders('last-modified', 'etag')),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 200, 200, 200, 200],
    );
    assert.equal(answers[1]!.body, '{"queues":[]}');
    assert.equal(answers[3]!.headers['content-type'], 'image/png');
    assert.match(answers[0]!.body, /<base href="\/admin\/queues\/"/);
    assert.deepEqual(JSON.parse(answers[5]!.body), { status: 'UP' });
    assert.equal(answers[6]!.body, 'routes after them still run');
  });
});
