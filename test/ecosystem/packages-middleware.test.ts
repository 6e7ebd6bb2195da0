/**
 * Middleware from npm, unmodified, on webapp: the same app built on express@4 and
 * on webapp gets the same requests (good and bad input), and the answers must
 * match; where a package keeps state across requests, one scripted client runs
 * against each and what it saw must match.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import session from 'express-session';
import {
  assertSameFlow,
  assertSameResponses,
  rawRequest,
  withoutStackFrames,
  type Framework,
  type RawResponse,
} from '../support/differential';
import { loadWithExpressAs } from '../support/express-alias';

type Any = any;

const json = { 'Content-Type': 'application/json' };
const form = { 'Content-Type': 'application/x-www-form-urlencoded' };

/** Status, chosen headers and body: what a scripted client compares of each answer. */
function summary(res: RawResponse, ...headers: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { status: res.status, body: res.body };
  for (const name of headers) out[name] = res.headers[name];
  return out;
}

/** The cookies a response set, as one Cookie header (name=value pairs). */
function cookiesOf(res: RawResponse): string {
  return ((res.headers['set-cookie'] as string[] | undefined) ?? []).map((c) => c.split(';')[0]).join('; ');
}

describe('middleware from npm on webapp (differential against express@4)', () => {
  it('i18next-http-middleware: the language from ?lng, a cookie or Accept-Language; req.t', async () => {
    const i18next = require('i18next');
    const middleware = require('i18next-http-middleware');
    const i18n = i18next.createInstance();
    await i18n.use(middleware.LanguageDetector).init({
      fallbackLng: 'en',
      preload: ['en', 'de', 'fr'],
      supportedLngs: ['en', 'de', 'fr'],
      showSupportNotice: false,
      detection: { order: ['querystring', 'cookie', 'header'], caches: false },
      resources: {
        en: { translation: { hello: 'Hello {{name}}', only_en: 'English only' } },
        de: { translation: { hello: 'Hallo {{name}}' } },
        fr: { translation: { hello: 'Bonjour {{name}}' } },
      },
    });
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(middleware.handle(i18n));
        app.get('/hello', (req: Any, res: Any) =>
          res.json({
            text: req.t('hello', { name: req.query.name ?? 'you' }),
            fallback: req.t('only_en'),
            language: req.language,
            languages: req.languages,
            local: res.locals.language,
          }),
        );
        app.get('/change', async (req: Any, res: Any) => {
          await req.i18n.changeLanguage('fr');
          res.send(req.t('hello', { name: 'x' }));
        });
        app.get('/locales/resources.json', middleware.getResourcesHandler(i18n));
        app.post('/locales/add/:lng/:ns', fw.json(), middleware.missingKeyHandler(i18n));
        return app;
      },
      [
        { path: '/hello' },
        { path: '/hello?lng=de&name=Ada' },
        { path: '/hello', headers: { Cookie: 'i18next=fr' } },
        { path: '/hello', headers: { 'Accept-Language': 'fr-CH, de;q=0.9, en;q=0.8' } },
        { path: '/hello?lng=xx', headers: { 'Accept-Language': 'de' } },
        { path: '/hello?lng=de', headers: { Cookie: 'i18next=fr' } },
        { path: '/change' },
        { path: '/locales/resources.json?lng=de&ns=translation' },
        { path: '/locales/resources.json' },
        { method: 'POST', path: '/locales/add/en/translation', headers: json, body: '{"new_key":"New"}' },
        { method: 'POST', path: '/locales/add/en/translation', headers: json, body: '{"new' },
        { method: 'POST', path: '/locales/add/en/translation' },
      ],
      undefined,
      withoutStackFrames,
    );
    assert.deepEqual(JSON.parse(answers[1]!.body).text, 'Hallo Ada');
    assert.equal(answers[1]!.headers['content-language'], 'de');
    // fr-CH is not supported and fr comes after de in the header, so de it is.
    assert.deepEqual(JSON.parse(answers[3]!.body).language, 'de');

    // The language from the path, cached in a cookie (Set-Cookie through res), and routes per language.
    const byPath = i18next.createInstance();
    await byPath.use(middleware.LanguageDetector).init({
      fallbackLng: 'en',
      preload: ['en', 'de'],
      supportedLngs: ['en', 'de'],
      showSupportNotice: false,
      detection: {
        order: ['path', 'cookie', 'header'],
        lookupFromPathIndex: 0,
        caches: ['cookie'],
        cookieSameSite: 'lax',
      },
      resources: {
        en: { translation: { hello: 'Hello {{name}}', 'key-to-translate': 'translate' } },
        de: { translation: { hello: 'Hallo {{name}}', 'key-to-translate': 'uebersetzen' } },
      },
    });
    const routed = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(middleware.handle(byPath));
        middleware.addRoute(byPath, '/:lng/key-to-translate', ['en', 'de'], app, 'get', (req: Any, res: Any) =>
          res.json({ text: req.t('hello', { name: 'route' }), language: req.language, path: req.path }),
        );
        app.get('/:lng/page', (req: Any, res: Any) => {
          res.cookie('other', 'kept');
          res.send(req.t('hello', { name: req.params.lng }));
        });
        return app;
      },
      [
        { path: '/de/uebersetzen' },
        { path: '/en/translate' },
        { path: '/de/translate' },
        { path: '/de/page' },
        { path: '/xx/page', headers: { Cookie: 'i18next=de' } },
        { path: '/xx/page', headers: { 'Accept-Language': 'de' } },
      ],
      undefined,
      // The language cookie lasts a year from now: its Expires moves with the clock.
      (res) => ({
        ...res,
        headers: {
          ...res.headers,
          'set-cookie': (res.headers['set-cookie'] as string[] | undefined)?.map((cookie) =>
            cookie.replace(/Expires=[^;]+/, 'Expires=<a year on>'),
          ),
        },
      }),
    );
    assert.deepEqual(
      routed.map((a) => a.status),
      [200, 200, 404, 200, 200, 200],
    );
    assert.equal(routed[3]!.body, 'Hallo de');
    assert.match(String(routed[3]!.headers['set-cookie']), /i18next=de/);
  });

  it('express-http-context: the store across body parsers, timers, promises, a router', async () => {
    const httpContext = require('express-http-context');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(httpContext.middleware);
        app.use((req: Any, _res: Any, next: Any) => {
          httpContext.set('requestId', req.get('x-request-id') ?? 'none');
          next();
        });
        app.use(fw.json());
        app.use(fw.urlencoded({ extended: true }));
        app.use(fw.text());
        const seen = () => ({ requestId: httpContext.get('requestId') ?? null, user: httpContext.get('user') ?? null });
        app.post('/body', (req: Any, res: Any) => res.json({ body: req.body, ...seen() }));
        app.get('/later', (_req: Any, res: Any, next: Any) => {
          setTimeout(() => {
            httpContext.set('user', 'set in a timer');
            next();
          }, 5);
        });
        app.get('/later', async (_req: Any, res: Any) => {
          await new Promise((resolve) => setImmediate(resolve));
          res.json(seen());
        });
        const router = fw.Router();
        router.param('id', (_req: Any, _res: Any, next: Any, id: string) => {
          httpContext.set('user', 'user ' + id);
          process.nextTick(next);
        });
        router.get('/users/:id', (_req: Any, res: Any) => res.json(seen()));
        app.use('/api', router);
        app.use((err: Any, _req: Any, res: Any, _next: Any) =>
          res.status(err.status ?? 500).json({ error: err.type, ...seen() }),
        );
        return app;
      },
      [
        { method: 'POST', path: '/body', headers: { ...json, 'X-Request-Id': 'r1' }, body: '{"a":1}' },
        { method: 'POST', path: '/body', headers: { ...form, 'X-Request-Id': 'r2' }, body: 'a[b]=1' },
        { method: 'POST', path: '/body', headers: { 'Content-Type': 'text/plain', 'X-Request-Id': 'r3' }, body: 'hi' },
        { method: 'POST', path: '/body', headers: { ...json, 'X-Request-Id': 'r4' }, body: '{"a":' },
        { method: 'POST', path: '/body', headers: { 'X-Request-Id': 'r5' } },
        { path: '/later', headers: { 'X-Request-Id': 'r6' } },
        { path: '/api/users/7', headers: { 'X-Request-Id': 'r7' } },
      ],
    );
    assert.deepEqual(
      answers.map((a) => JSON.parse(a.body).requestId),
      ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'],
    );
    assert.equal(JSON.parse(answers[5]!.body).user, 'set in a timer');
    assert.equal(JSON.parse(answers[6]!.body).user, 'user 7');
  });

  it('express-http-context in stream and response events, sendFile and static callbacks, error handlers', async () => {
    const httpContext = require('express-http-context');
    const onFinished = require('on-finished');
    const views = join(__dirname, 'fixtures', 'views');
    await assertSameFlow(
      (fw: Framework) => {
        const seen: unknown[][] = [];
        const app: Any = fw();
        app.use(httpContext.middleware);
        app.use((req: Any, res: Any, next: Any) => {
          const id = req.get('x-id');
          httpContext.set('id', id);
          // Which listeners see the store is Node's doing (where each event is emitted from): the same on both.
          res.on('finish', () => seen.push(['finish', id, httpContext.get('id') ?? null]));
          res.on('close', () => seen.push(['close', id, httpContext.get('id') ?? null]));
          onFinished(res, () => seen.push(['on-finished', id, httpContext.get('id') ?? null]));
          next();
        });
        app.get('/seen', (_req: Any, res: Any) => res.json(seen));
        app.post('/iterate', async (req: Any, res: Any) => {
          let body = '';
          for await (const chunk of req) body += chunk;
          res.json({ body, id: httpContext.get('id') ?? null });
        });
        app.post('/events', (req: Any, res: Any) => {
          let body = '';
          req.on('data', (chunk: Buffer) => (body += chunk));
          req.on('end', () => res.json({ body, id: httpContext.get('id') ?? null }));
        });
        app.get('/file', (req: Any, res: Any) =>
          res.sendFile(join(views, 'flash.txt'), (err: Any) =>
            seen.push(['sendFile', req.get('x-id'), httpContext.get('id') ?? null, Boolean(err)]),
          ),
        );
        app.get('/static-then', fw.static(views), (_req: Any, res: Any) => res.json({ id: httpContext.get('id') }));
        app.get('/throw', () => {
          throw new Error('thrown');
        });
        app.use((_err: Any, _req: Any, res: Any, _next: Any) => res.status(500).json({ id: httpContext.get('id') }));
        return app;
      },
      async (port) => {
        const out: unknown[] = [];
        const ask = async (spec: Any) => out.push(summary(await rawRequest(port, spec)));
        await ask({ method: 'POST', path: '/iterate', headers: { 'X-Id': 'a' }, body: 'abc' });
        await ask({ method: 'POST', path: '/events', headers: { 'X-Id': 'b' }, body: 'abc' });
        await ask({ path: '/file', headers: { 'X-Id': 'c' } });
        await ask({ path: '/static-then', headers: { 'X-Id': 'd' } });
        await ask({ path: '/throw', headers: { 'X-Id': 'e' } });
        await new Promise((resolve) => setTimeout(resolve, 20));
        await ask({ path: '/seen', headers: { 'X-Id': 'f' } });
        return out;
      },
    );
  });

  it('express-query-boolean and express-xss-sanitizer replace req.query; express-cache-controller', async () => {
    const boolParser = require('express-query-boolean');
    const { xss } = require('express-xss-sanitizer');
    const cacheControl = require('express-cache-controller');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(cacheControl({ maxAge: 60 }));
        app.use(fw.json());
        app.use(fw.urlencoded({ extended: true }));
        app.use('/bool', boolParser());
        app.use('/clean', xss({ allowedTags: ['b'] }));
        const show = (req: Any, res: Any) =>
          res.json({ query: req.query, body: req.body ?? null, params: req.params, agent: req.get('user-agent') });
        app.get('/bool', show);
        app.get('/bool/sub', (req: Any, res: Any) =>
          res.json({ query: req.query, url: req.url, typeOfA: typeof req.query.a }),
        );
        app.all('/clean/:name', show);
        app.get('/no-store', (_req: Any, res: Any) => {
          res.cacheControl = { noStore: true };
          res.send('not stored');
        });
        app.get('/private', (_req: Any, res: Any) => {
          res.cacheControl = { private: true, maxAge: 10, mustRevalidate: true };
          res.json({ ok: true });
        });
        app.get('/default', (_req: Any, res: Any) => res.sendStatus(204));
        const sub = fw();
        sub.get('/', (req: Any, res: Any) => res.json({ query: req.query, typeOfA: typeof req.query.a }));
        app.use('/bool/app', sub);
        return app;
      },
      [
        { path: '/bool?a=true&b=false&c=TRUE&d=yes&e[f]=false&g=true&g=false' },
        { path: '/bool/sub?a=true' },
        { path: '/bool/app?a=false' },
        {
          path: '/clean/%3Cscript%3Ex%3C%2Fscript%3E?q=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&b=%3Cb%3Eok%3C%2Fb%3E',
        },
        {
          method: 'POST',
          path: '/clean/name',
          headers: { ...json, 'User-Agent': '<script>agent</script>' },
          body: '{"html":"<a href=javascript:x>y</a><b>z</b>","list":["<i>1</i>",2]}',
        },
        { method: 'POST', path: '/clean/name', headers: form, body: 'x=%3Cscript%3Ealert(1)%3C%2Fscript%3Eok' },
        { path: '/no-store' },
        { path: '/private' },
        { path: '/default' },
      ],
    );
    assert.deepEqual(JSON.parse(answers[0]!.body).query, {
      a: true,
      b: false,
      c: 'TRUE',
      d: 'yes',
      e: { f: false },
      g: [true, false],
    });
    assert.equal(answers[6]!.headers['cache-control'], 'no-store,no-cache,max-age=0');
    assert.equal(answers[8]!.headers['cache-control'], 'max-age=60');
  });

  it('connect-ensure-login with express-session: to the login and back with returnTo', async () => {
    const { ensureLoggedIn, ensureLoggedOut } = require('connect-ensure-login');
    const seen = await assertSameFlow(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(session({ secret: 's', resave: false, saveUninitialized: false }));
        app.use(fw.urlencoded({ extended: false }));
        app.use((req: Any, _res: Any, next: Any) => {
          req.user = req.session.user;
          req.isAuthenticated = () => Boolean(req.user);
          next();
        });
        app.get('/login', ensureLoggedOut('/'), (_req: Any, res: Any) => res.send('login form'));
        app.post('/login', (req: Any, res: Any) => {
          if (req.body.user !== 'ada') return res.status(401).send('no');
          const back = req.session.returnTo ?? '/';
          delete req.session.returnTo;
          req.session.user = req.body.user;
          res.redirect(back);
        });
        app.get('/', (req: Any, res: Any) => res.send('home of ' + (req.user ?? 'nobody')));
        app.get('/settings', ensureLoggedIn('/login'), (req: Any, res: Any) => res.send('settings of ' + req.user));
        app.get('/profile', ensureLoggedIn({ redirectTo: '/login', setReturnTo: false }), (_req: Any, res: Any) =>
          res.send('profile'),
        );
        return app;
      },
      async (port) => {
        const out: unknown[] = [];
        const first = await rawRequest(port, { path: '/settings?tab=2' });
        const cookie = cookiesOf(first);
        out.push(summary(first, 'location'), Boolean(cookie));
        out.push(summary(await rawRequest(port, { path: '/profile' }), 'location', 'set-cookie'));
        out.push(summary(await rawRequest(port, { path: '/login', headers: { Cookie: cookie } })));
        out.push(
          summary(
            await rawRequest(port, {
              method: 'POST',
              path: '/login',
              headers: { ...form, Cookie: cookie },
              body: 'user=x',
            }),
          ),
        );
        out.push(
          summary(
            await rawRequest(port, {
              method: 'POST',
              path: '/login',
              headers: { ...form, Cookie: cookie },
              body: 'user=ada',
            }),
            'location',
          ),
        );
        out.push(summary(await rawRequest(port, { path: '/settings?tab=2', headers: { Cookie: cookie } })));
        out.push(summary(await rawRequest(port, { path: '/login', headers: { Cookie: cookie } }), 'location'));
        return out;
      },
    );
    assert.deepEqual(seen[0], { status: 302, body: 'Found. Redirecting to /login', location: '/login' });
    assert.deepEqual(seen[5], {
      status: 302,
      body: 'Found. Redirecting to /settings?tab=2',
      location: '/settings?tab=2',
    });
    assert.deepEqual(seen[6], { status: 200, body: 'settings of ada' });
  });

  it('express-brute (memory store): free retries, then 429 with Retry-After; reset after a success', async () => {
    const ExpressBrute = require('express-brute');
    // Its memory store expires entries with timers that hold the process open: reset them at the end.
    const stores: Any[] = [];
    after(() => stores.forEach((store) => Object.keys(store.data).forEach((key) => store.reset(key))));
    const memoryStore = () => {
      const store = new ExpressBrute.MemoryStore();
      stores.push(store);
      return store;
    };
    const seen = await assertSameFlow(
      (fw: Framework) => {
        const app: Any = fw();
        app.set('trust proxy', true);
        const brute = new ExpressBrute(memoryStore(), { freeRetries: 2, minWait: 60_000 });
        const byName = new ExpressBrute(memoryStore(), {
          freeRetries: 0,
          minWait: 60_000,
          failCallback: ExpressBrute.FailForbidden,
        });
        app.post('/login', fw.json(), brute.prevent, (req: Any, res: Any) => {
          if (req.body.password === 'right') return req.brute.reset(() => res.send('welcome'));
          res.status(401).send('wrong');
        });
        app.post(
          '/by-name',
          fw.json(),
          byName.getMiddleware({ key: (req: Any, _res: Any, next: Any) => next(req.body.name) }),
          (_req: Any, res: Any) => res.send('ok'),
        );
        return app;
      },
      async (port) => {
        const out: unknown[] = [];
        const send = async (path: string, body: string, ip = '10.0.0.1') => {
          const res = await rawRequest(port, {
            method: 'POST',
            path,
            headers: { ...json, 'X-Forwarded-For': ip },
            body,
          });
          const retry = res.headers['retry-after'];
          out.push({
            ...summary(res),
            body: res.body.replace(/"nextValidRequestDate":"[^"]+"/, '"nextValidRequestDate":"<date>"'),
            retryAfter: retry === undefined ? null : Number(retry) > 50,
          });
        };
        await send('/login', '{"password":"wrong"}');
        await send('/login', '{"password":"right"}');
        for (let i = 0; i < 4; i++) await send('/login', '{"password":"wrong"}');
        await send('/login', '{"password":"right"}');
        await send('/login', '{"password":"right"}', '10.0.0.2');
        await send('/by-name', '{"name":"ada"}');
        await send('/by-name', '{"name":"ada"}');
        await send('/by-name', '{"name":"grace"}');
        return out;
      },
    );
    assert.deepEqual(
      seen.map((s: Any) => s.status),
      [401, 200, 401, 401, 401, 429, 429, 200, 200, 403, 200],
    );
  });

  it('express-timeout-handler: 503 from onTimeout, late writes swallowed and reported', async () => {
    const timeout = require('express-timeout-handler');
    const seen = await assertSameFlow(
      (fw: Framework) => {
        const delayed: unknown[] = [];
        const app: Any = fw();
        app.use(
          timeout.handler({
            timeout: 100,
            onTimeout: (req: Any, res: Any) => res.status(503).json({ timedOut: req.path }),
            onDelayedResponse: (req: Any, method: string, args: Any) =>
              delayed.push({ path: req.path, method, args: Object.values(args) }),
          }),
        );
        app.get('/fast', (_req: Any, res: Any) => res.send('fast'));
        app.get('/slow', (_req: Any, res: Any) => setTimeout(() => res.status(200).send('too late'), 250));
        app.get('/delayed', (_req: Any, res: Any) => res.json({ delayed }));
        return app;
      },
      async (port) => {
        const out: unknown[] = [];
        out.push(summary(await rawRequest(port, { path: '/fast' })));
        out.push(summary(await rawRequest(port, { path: '/slow' })));
        await new Promise((resolve) => setTimeout(resolve, 300));
        out.push(summary(await rawRequest(port, { path: '/delayed' })));
        return out;
      },
    );
    assert.deepEqual(seen[1], { status: 503, body: '{"timedOut":"/slow"}' });
    assert.deepEqual(JSON.parse((seen[2] as Any).body), {
      delayed: [{ path: '/slow', method: 'res.status', args: [200] }],
    });
  });

  it('serve-handler mounted under a path, and http-proxy forwarding to it from a route', async () => {
    const serveHandler = require('serve-handler');
    const httpProxy = require('http-proxy');
    const dir = mkdtempSync(join(tmpdir(), 'webapp-eco-serve-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'index.html'), '<h1>home</h1>');
    writeFileSync(join(dir, 'about.html'), '<h1>about</h1>');
    writeFileSync(join(dir, 'docs', 'a.txt'), 'a'.repeat(100));
    writeFileSync(join(dir, 'data.json'), '{"x":1}');
    const upstream = http.createServer((req, res) => {
      if (req.url === '/fail') {
        res.socket?.destroy();
        return;
      }
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ url: req.url, method: req.method, body, forwarded: req.headers['x-forwarded-for'] }));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    after(() => upstream.close());
    const target = 'http://127.0.0.1:' + (upstream.address() as Any).port;
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        const proxy = httpProxy.createProxyServer({ target, xfwd: false });
        proxy.on('proxyRes', (_proxyRes: Any, _req: Any, res: Any) => res.setHeader('X-Proxied', 'yes'));
        app.use('/files', (req: Any, res: Any) =>
          serveHandler(req, res, { public: dir, cleanUrls: true, directoryListing: ['/docs'], etag: true }),
        );
        app.use('/api', (req: Any, res: Any, next: Any) => proxy.web(req, res, {}, next));
        app.post('/parsed', fw.json(), (req: Any, res: Any, next: Any) => {
          // The body was read by the parser: it goes to the upstream again as JSON.
          const body = JSON.stringify(req.body);
          proxy.web(req, res, { buffer: require('node:stream').Readable.from([body]) }, next);
        });
        app.use((err: Any, _req: Any, res: Any, _next: Any) => res.status(502).json({ code: err.code }));
        return app;
      },
      [
        { path: '/files/' },
        { path: '/files/about' },
        { path: '/files/about.html' },
        { path: '/files/data.json' },
        { path: '/files/docs/a.txt', headers: { Range: 'bytes=0-9' } },
        { path: '/files/docs/' },
        { path: '/files/nope' },
        { path: '/files/../package.json' },
        { path: '/api/things?x=1' },
        { method: 'POST', path: '/api/things', headers: { 'Content-Type': 'text/plain' }, body: 'payload' },
        { path: '/api/fail' },
        { method: 'POST', path: '/parsed', headers: json, body: '{"a":[1]}' },
      ],
      undefined,
      (res) => {
        const headers = { ...res.headers };
        delete headers['last-modified'];
        return { ...res, headers };
      },
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 301, 200, 206, 200, 404, 400, 200, 200, 502, 200],
    );
    assert.equal(answers[4]!.body, 'aaaaaaaaaa');
    assert.equal(JSON.parse(answers[8]!.body).url, '/things?x=1');
  });

  it('morgan-body logs bodies (it patches res.send on the app.response prototype)', async () => {
    const morganBody = require('morgan-body');
    const logs: string[][] = [];
    const prototypes: Array<[Any, Any]> = [];
    try {
      await assertSameResponses(
        (fw: Framework) => {
          const lines: string[] = [];
          logs.push(lines);
          const app: Any = fw();
          const proto = Object.getPrototypeOf(app.response);
          prototypes.push([proto, proto.send]);
          app.use(fw.json());
          morganBody(app, {
            noColors: true,
            logReqDateTime: false,
            logReqUserAgent: false,
            logIP: false,
            stream: { write: (line: string) => lines.push(line) },
          });
          app.get('/text', (_req: Any, res: Any) => res.send('plain'));
          app.post('/json', (req: Any, res: Any) => res.status(201).json({ got: req.body }));
          app.get('/status', (_req: Any, res: Any) => res.sendStatus(404));
          app.get('/redirect', (_req: Any, res: Any) => res.redirect('/text'));
          return app;
        },
        [
          { path: '/text' },
          { method: 'POST', path: '/json', headers: json, body: '{"a":1}' },
          { path: '/status' },
          { path: '/redirect' },
          { method: 'POST', path: '/json', headers: json, body: '{"a":' },
        ],
        undefined,
        withoutStackFrames,
      );
    } finally {
      for (const [proto, send] of prototypes.reverse()) proto.send = send;
    }
    const masked = logs.map((lines) => lines.map((line) => line.replace(/\d+(\.\d+)? ms/g, '<t> ms')));
    assert.deepEqual(masked[1], masked[0]);
    assert.match(
      masked[1]!.join(''),
      /Request: POST \/json\nRequest Body:\n\{\n\t"a": 1\n\}\nResponse Body:\n\{\n\t"got"/,
    );
    assert.match(masked[1]!.join(''), /Request: GET \/status\nResponse Body:\nNot Found\nResponse: 404/);
  });
  it('express-queue: one request at a time, one waiting, the rest 503; the order they finished in', async () => {
    const queue = require('express-queue');
    // The flow waits on what the queue holds, not on the clock: the first request runs until
    // the client releases it, the second waits in the queue, the third finds it full.
    let queued: Any;
    let release: () => void = () => {};
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 2));
    };
    const seen = await assertSameFlow(
      (fw: Framework) => {
        const order: string[] = [];
        const app: Any = fw();
        app.get('/order', (_req: Any, res: Any) => res.json(order));
        queued = queue({ activeLimit: 1, queuedLimit: 1 });
        app.use(queued);
        app.get('/slow/:n', async (req: Any, res: Any) => {
          if (req.params.n === '1') await new Promise<void>((resolve) => (release = resolve));
          order.push(req.params.n);
          res.send('done ' + req.params.n);
        });
        app.get('/json', (_req: Any, res: Any) => res.json({ through: 'the queue' }));
        return app;
      },
      async (port) => {
        const first = rawRequest(port, { path: '/slow/1' });
        await until(() => queued.queue.activeCount === 1);
        const second = rawRequest(port, { path: '/slow/2' });
        await until(() => queued.queue.getLength() === 1);
        const third = await rawRequest(port, { path: '/slow/3' });
        release();
        const answers = [await first, await second, third].map((res) => summary(res));
        answers.push(summary(await rawRequest(port, { path: '/json' })));
        answers.push(summary(await rawRequest(port, { path: '/order' })));
        return answers;
      },
    );
    assert.deepEqual(
      seen.map((s: Any) => s.status),
      [200, 200, 503, 200, 200],
    );
    assert.equal((seen[4] as Any).body, '["1","2"]');
  });

  it('express-flash: flash messages in res.locals.messages when rendering, after a redirect', async () => {
    const flash = require('express-flash');
    const seen = await assertSameFlow(
      (fw: Framework) => {
        const app: Any = fw();
        app.engine('txt', (_path: string, options: Any, callback: Any) =>
          callback(null, 'messages: ' + JSON.stringify(options.messages)),
        );
        app.set('view engine', 'txt');
        app.set('views', join(__dirname, 'fixtures', 'views'));
        app.use(session({ secret: 's', resave: false, saveUninitialized: true }));
        app.use(flash());
        app.post('/save', (req: Any, res: Any) => {
          req.flash('info', 'saved');
          req.flash('info', 'twice');
          req.flash('error', 'but one warning');
          res.redirect('/show');
        });
        app.get('/show', (_req: Any, res: Any) => res.render('flash'));
        return app;
      },
      async (port) => {
        const first = await rawRequest(port, { method: 'POST', path: '/save' });
        const cookie = cookiesOf(first);
        return [
          summary(first, 'location'),
          summary(await rawRequest(port, { path: '/show', headers: { Cookie: cookie } })),
          summary(await rawRequest(port, { path: '/show', headers: { Cookie: cookie } })),
        ];
      },
    );
    assert.deepEqual(seen[1], {
      status: 200,
      body: 'messages: {"info":["saved","twice"],"error":["but one warning"]}',
    });
    assert.deepEqual(seen[2], { status: 200, body: 'messages: {}' });
  });

  it('express-healthcheck: healthy and failing checks, sync and with a callback, mounted by app.use', async () => {
    const healthcheck = require('express-healthcheck');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use('/health', healthcheck({ healthy: () => ({ everything: 'fine' }) }));
        app.use('/sync-fail', healthcheck({ test: () => ({ state: 'unhealthy' }) }));
        app.use('/callback-fail', healthcheck({ test: (done: Any) => setImmediate(done, { down: 'db' }) }));
        app.use(
          '/throws',
          healthcheck({
            test: () => {
              throw { thrown: true };
            },
          }),
        );
        return app;
      },
      [
        { path: '/health' },
        { path: '/health/deep?x=1' },
        { method: 'POST', path: '/health' },
        { path: '/sync-fail' },
        { path: '/callback-fail' },
        { path: '/throws' },
        { path: '/healthz' },
      ],
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 500, 500, 500, 404],
    );
  });
  it('express-json-validator-middleware (ajv coercing req.query in place), express-sanitizer', async () => {
    const { Validator, ValidationError } = require('express-json-validator-middleware');
    const expressSanitizer = require('express-sanitizer');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        const { validate } = new Validator({ allErrors: true, coerceTypes: 'array', useDefaults: true });
        app.use(fw.json());
        app.use(expressSanitizer());
        app.get(
          '/things',
          validate({
            query: {
              type: 'object',
              properties: {
                limit: { type: 'integer', minimum: 1, default: 10 },
                tags: { type: 'array', items: { type: 'string' } },
                flag: { type: 'boolean' },
              },
            },
          }),
          (req: Any, res: Any) => res.json({ query: req.query, limitType: typeof req.query.limit }),
        );
        app.post(
          '/things',
          validate({
            body: {
              type: 'object',
              required: ['name'],
              additionalProperties: false,
              properties: { name: { type: 'string', minLength: 2 }, note: { type: 'string' } },
            },
          }),
          (req: Any, res: Any) => res.status(201).json({ name: req.body.name, note: req.sanitize(req.body.note) }),
        );
        app.use((err: Any, _req: Any, res: Any, next: Any) => {
          if (!(err instanceof ValidationError)) return next(err);
          res.status(400).json({ errors: err.validationErrors });
        });
        return app;
      },
      [
        { path: '/things' },
        { path: '/things?limit=5&flag=true&tags=a' },
        { path: '/things?limit=0' },
        { path: '/things?limit=abc&flag=maybe' },
        { method: 'POST', path: '/things', headers: json, body: '{"name":"ok","note":"<script>x</script><b>b</b>"}' },
        { method: 'POST', path: '/things', headers: json, body: '{"name":"o","extra":1}' },
        { method: 'POST', path: '/things', headers: json, body: '{"name":' },
        { method: 'POST', path: '/things', headers: form, body: 'name=form' },
      ],
      undefined,
      withoutStackFrames,
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 400, 400, 201, 400, 400, 400],
    );
    assert.deepEqual(JSON.parse(answers[1]!.body), {
      query: { limit: 5, flag: true, tags: ['a'] },
      limitType: 'number',
    });
    assert.deepEqual(JSON.parse(answers[0]!.body).query, { limit: 10 });
  });

  it('express-xml-bodyparser beside the framework’s parsers (req._body), formidable on the request', async () => {
    const xmlparser = require('express-xml-bodyparser');
    const { formidable } = require('formidable');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use('/xml-first', xmlparser(), fw.text({ type: '*/*' }));
        app.use('/text-first', fw.text({ type: '*/*' }), xmlparser());
        const show = (req: Any, res: Any) => res.json({ body: req.body ?? null, rawBody: req.rawBody ?? null });
        app.post('/xml-first', show);
        app.post('/text-first', show);
        app.post('/upload', (req: Any, res: Any, next: Any) => {
          const parser = formidable({ maxFileSize: 1024, keepExtensions: true, allowEmptyFiles: false });
          parser.parse(req, (err: Any, fields: Any, files: Any) => {
            if (err) return next(err);
            const file = files.doc?.[0];
            res.json({ fields, file: file && { name: file.originalFilename, size: file.size, type: file.mimetype } });
          });
        });
        app.use((err: Any, _req: Any, res: Any, _next: Any) =>
          res.status(err.status ?? err.httpCode ?? 500).json({ message: err.message, code: err.code ?? null }),
        );
        return app;
      },
      [
        {
          method: 'POST',
          path: '/xml-first',
          headers: { 'Content-Type': 'application/xml' },
          body: '<A><B>1</B><B>2</B></A>',
        },
        { method: 'POST', path: '/xml-first', headers: { 'Content-Type': 'text/xml' }, body: '<a><b>unclosed</a>' },
        { method: 'POST', path: '/xml-first', headers: { 'Content-Type': 'application/xml' }, body: '   ' },
        { method: 'POST', path: '/xml-first', headers: { 'Content-Type': 'text/plain' }, body: 'just text' },
        { method: 'POST', path: '/text-first', headers: { 'Content-Type': 'application/xml' }, body: '<a>1</a>' },
        { method: 'POST', path: '/xml-first', headers: { 'Content-Type': 'application/atom+xml' }, body: '<feed/>' },
        {
          method: 'POST',
          path: '/upload',
          headers: { 'Content-Type': 'multipart/form-data; boundary=XX' },
          body:
            '--XX\r\nContent-Disposition: form-data; name="title"\r\n\r\nhello\r\n' +
            '--XX\r\nContent-Disposition: form-data; name="doc"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n' +
            'abc\r\n--XX--\r\n',
        },
        {
          method: 'POST',
          path: '/upload',
          headers: { 'Content-Type': 'multipart/form-data; boundary=XX' },
          body:
            '--XX\r\nContent-Disposition: form-data; name="doc"; filename="big.txt"\r\n' +
            'Content-Type: text/plain\r\n\r\n' +
            'x'.repeat(2048) +
            '\r\n--XX--\r\n',
        },
        { method: 'POST', path: '/upload', headers: json, body: '{"a":1}' },
        { method: 'POST', path: '/upload', headers: { 'Content-Type': 'multipart/form-data' }, body: 'x' },
      ],
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 400, 411, 200, 200, 200, 200, 413, 200, 400],
    );
    assert.deepEqual(JSON.parse(answers[0]!.body).body, { a: { b: ['1', '2'] } });
    assert.deepEqual(JSON.parse(answers[4]!.body), { body: '<a>1</a>', rawBody: null });
  });
  it('express-oauth2-jwt-bearer (HS256): 401s with WWW-Authenticate by the default error handler', async () => {
    const { auth, requiredScopes, claimEquals } = require('express-oauth2-jwt-bearer');
    const jwt = require('jsonwebtoken');
    const secret = 'a-secret-of-at-least-thirty-two-bytes!';
    const sign = (claims: object, options: object = {}) =>
      jwt.sign(claims, secret, {
        algorithm: 'HS256',
        issuer: 'https://issuer.example/',
        audience: 'api',
        expiresIn: '1h',
        ...options,
      });
    const bearer = (token: string) => ({ Authorization: 'Bearer ' + token });
    const good = sign({ sub: 'ada', scope: 'read:things write:things', role: 'admin' });
    const reader = sign({ sub: 'grace', scope: 'read:things', role: 'user' });
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.set('env', 'test');
        app.use('/api', auth({ issuer: 'https://issuer.example/', audience: 'api', secret, tokenSigningAlg: 'HS256' }));
        app.get('/api/me', (req: Any, res: Any) => res.json({ sub: req.auth.payload.sub, header: req.auth.header }));
        app.post('/api/things', requiredScopes('write:things'), (_req: Any, res: Any) => res.sendStatus(201));
        app.delete('/api/things', claimEquals('role', 'admin'), (_req: Any, res: Any) => res.sendStatus(204));
        return app;
      },
      [
        { path: '/api/me', headers: bearer(good) },
        { path: '/api/me' },
        // Another scheme is a malformed request (400 invalid_request) to this package.
        { path: '/api/me', headers: { Authorization: 'Basic abc' } },
        { path: '/api/me', headers: bearer('not.a.jwt') },
        { path: '/api/me', headers: bearer(sign({ sub: 'x' }, { audience: 'other' })) },
        { path: '/api/me', headers: bearer(sign({ sub: 'x' }, { expiresIn: -10 })) },
        { path: '/api/me?access_token=' + good },
        { method: 'POST', path: '/api/things', headers: bearer(good) },
        { method: 'POST', path: '/api/things', headers: bearer(reader) },
        { method: 'DELETE', path: '/api/things', headers: bearer(reader) },
        { method: 'DELETE', path: '/api/things', headers: bearer(good) },
        { path: '/elsewhere' },
      ],
      undefined,
      withoutStackFrames,
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 401, 400, 401, 401, 401, 200, 201, 403, 401, 204, 404],
    );
    assert.match(answers[1]!.headers['www-authenticate'] as string, /^Bearer realm="api", DPoP algs="/);
    assert.match(answers[8]!.headers['www-authenticate'] as string, /error="insufficient_scope"/);
  });

  it('express-zip with express aliased to the framework: res.zip added to the framework’s response', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapp-eco-zip-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'a.txt'), 'first file');
    writeFileSync(join(dir, 'b.txt'), 'second file, a little longer');
    const zips: unknown[] = [];
    await assertSameResponses(
      (fw: Framework) => {
        const zip = loadWithExpressAs(fw, 'express-zip');
        const app: Any = fw();
        app.get('/zip', (_req: Any, res: Any) =>
          res.zip(
            [
              { path: join(dir, 'a.txt'), name: 'a.txt' },
              { path: join(dir, 'b.txt'), name: 'docs/b.txt' },
            ],
            'bundle.zip',
            (err: Any, bytes: number) => zips.push({ err: err && err.message, bytes }),
          ),
        );
        app.get('/missing', (_req: Any, res: Any) =>
          res.zip([{ path: join(dir, 'nope.txt'), name: 'nope.txt' }], (err: Any) => {
            zips.push({ err: err && err.code });
            res.end();
          }),
        );
        zips.push(typeof zip.options);
        return app;
      },
      [{ path: '/zip' }, { path: '/missing' }],
      undefined,
      // Zip entries carry the time they were made.
      (res) => ({ ...res, body: res.body.length + ' bytes with ' + (res.body.match(/docs\/b\.txt/g) ?? []).length }),
    );
    assert.deepEqual(zips.slice(0, 3), zips.slice(3));
  });
  it('express-bunyan-logger: request, response (res._header, res._headers) and error records, req.log', async () => {
    const logger = require('express-bunyan-logger');
    const logs: unknown[][] = [];
    const noDeprecation = process.noDeprecation;
    process.noDeprecation = true; // it reads res._headers (DEP0066), on either framework
    after(() => {
      process.noDeprecation = noDeprecation;
    });
    await assertSameFlow(
      (fw: Framework) => {
        const records: Any[] = [];
        logs.push(records);
        const stream = { type: 'raw', level: 'trace', stream: { write: (record: Any) => records.push(record) } };
        const app: Any = fw();
        app.set('env', 'test');
        app.use(fw.json());
        app.use(logger({ name: 'app', streams: [stream], genReqId: (req: Any) => req.get('x-id') ?? 'none' }));
        app.get('/json', (req: Any, res: Any) => {
          req.log.info({ extra: 1 }, 'inside the handler');
          res.set('X-A', '1').json({ ok: 1 });
        });
        app.post('/made', (_req: Any, res: Any) => res.status(201).send('made'));
        app.get('/error', () => {
          throw new Error('bad');
        });
        app.use(logger.errorLogger({ name: 'errors', streams: [stream], genReqId: () => 'error' }));
        return app;
      },
      async (port) => {
        const out: unknown[] = [];
        const ask = async (spec: Any) => out.push(summary(await rawRequest(port, spec)));
        await ask({ path: '/json?q=1', headers: { 'User-Agent': 'probe/1.0', Referer: 'http://r', 'X-Id': 'a' } });
        await ask({ method: 'POST', path: '/made', headers: { ...json, 'X-Id': 'b' }, body: '{"a":1}' });
        await ask({ path: '/error', headers: { 'X-Id': 'c' } });
        return out.map((answer: Any) => ({ ...answer, body: answer.status === 500 ? '<error page>' : answer.body }));
      },
    );
    // What differs by nature: the clock, ports, timings, the brand in X-Powered-By, an error page's stack.
    const stable = (records: unknown[]) =>
      JSON.parse(
        JSON.stringify(records, (key, value) => {
          if (['time', 'hostname', 'pid', 'response-time', 'response-hrtime', 'remotePort', 'stack'].includes(key))
            return '<varies>';
          if (key === 'host') return '<host>';
          if (key === 'x-powered-by') return '<brand>';
          if (key === 'header' && typeof value === 'string')
            return value.replace(/X-Powered-By: \w+|Date: [^\r]+|Content-Length: \d+|Connection: \w+/g, '<varies>');
          if (key === 'msg' && typeof value === 'string') return value.replace(/ \d+ - .*$| [\d.]+ ms$/g, '');
          if (key === 'content-length' && typeof value === 'number') return '<error page length>';
          return value;
        }),
      );
    assert.deepEqual(stable(logs[1]!), stable(logs[0]!));
    assert.equal(logs[1]!.length, 5);
  });
  it('webpack-hot-middleware: its event stream (headers by writeHead, sync and published events)', async () => {
    const webpack = require('webpack');
    const hotMiddleware = require('webpack-hot-middleware');
    const bundle = mkdtempSync(join(tmpdir(), 'webapp-eco-hmr-'));
    after(() => rmSync(bundle, { recursive: true, force: true }));
    const compiler = webpack({
      mode: 'development',
      context: join(__dirname, 'fixtures', 'webpack'),
      entry: './entry.js',
      output: { path: bundle, filename: 'main.js' },
      devtool: false,
      infrastructureLogging: { level: 'none' },
      cache: false,
    });
    // One compiler and one middleware for both apps: the bundle is made once.
    const hot = hotMiddleware(compiler, { log: false, heartbeat: 60_000 });
    after(() => hot.close());
    await new Promise<void>((resolve, reject) => compiler.run((err: Any) => (err ? reject(err) : resolve())));
    /** Reads the stream until `count` events came, then hangs up. */
    const readEvents = (port: number, count: number, onEvent: (n: number) => void) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port, path: '/__webpack_hmr', agent: false }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
            // Complete events only: the text after the last blank line may be half an event.
            const events = text
              .split('\n\n')
              .slice(0, -1)
              .map((part) => part.trim())
              .filter((part) => part.startsWith('data: '));
            onEvent(events.length);
            if (events.length < count) return;
            const headers: Record<string, unknown> = { ...res.headers };
            delete headers.date;
            delete headers['x-powered-by'];
            res.destroy();
            resolve({
              status: res.statusCode,
              headers,
              opening: text.slice(0, 1),
              events: events.map((event) => {
                const data = JSON.parse(event.slice('data: '.length));
                return { ...data, time: typeof data.time, hash: typeof data.hash };
              }),
            });
          });
        });
        req.on('error', reject);
      });
    const seen = await assertSameFlow(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(hot);
        app.get('/', (_req: Any, res: Any) => res.send('page'));
        return app;
      },
      async (port) => [
        await readEvents(port, 2, (n) => n === 1 && hot.publish({ action: 'reload', from: 'test' })),
        summary(await rawRequest(port, { path: '/' })),
      ],
    );
    assert.equal((seen[0] as Any).headers['content-type'], 'text/event-stream;charset=utf-8');
    assert.deepEqual(
      (seen[0] as Any).events.map((event: Any) => event.action),
      ['sync', 'reload'],
    );
  });
});
