/**
 * The ecosystem: popular Express middleware, unmodified from npm, on webapp.
 * Each app runs on express@4 and on webapp with the same requests, and the
 * answers must match (differential), so "works" means "works as on Express".
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import compression from 'compression';
import cookieParser from 'cookie-parser';
import cors from 'cors';
import session from 'express-session';
import helmet from 'helmet';
import methodOverride from 'method-override';
import morgan from 'morgan';
import multer from 'multer';
import passport from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';
import favicon from 'serve-favicon';
import { rateLimit } from 'express-rate-limit';
import { body, validationResult } from 'express-validator';
import webapp = require('../../src/index');
import { assertSameResponses, frameworks, type Framework, type RawResponse } from '../support/differential';

type Any = any;

/** Session ids, dates inside bodies and per-run tokens differ by design between two servers. */
function withoutVolatile(res: RawResponse): RawResponse {
  const headers = { ...res.headers };
  if (headers['set-cookie'])
    headers['set-cookie'] = (headers['set-cookie'] as string[]).map((c) =>
      c.replace(/=s%3A[^;]+/, '=<signed>').replace(/Expires=[^;]+/, 'Expires=<date>'),
    );
  delete headers['ratelimit-reset'];
  return { ...res, headers };
}

/** Opens a WebSocket to `url`, sends `message`, and resolves with the first message back. */
function webSocketReply(url: string, message: string): Promise<string> {
  const WebSocket = require('ws');
  const client = new WebSocket(url);
  return new Promise<string>((resolve, reject) => {
    client.once('open', () => client.send(message));
    client.once('message', (m: Buffer) => resolve(String(m)));
    client.once('error', reject);
  }).finally(() => client.close());
}

describe('ecosystem middleware on webapp (differential against express@4)', () => {
  it('helmet sets its headers and removes X-Powered-By', async () => {
    await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(helmet());
        app.get('/', (_req: Any, res: Any) => res.send('secure'));
        return app;
      },
      [{ path: '/' }],
    );
  });

  it('cors: simple and preflight requests, with options', async () => {
    await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use('/open', cors());
        app.use('/strict', cors({ origin: 'https://a.example', credentials: true, methods: ['GET', 'PUT'] }));
        app.all('*', (_req: Any, res: Any) => res.json({ ok: true }));
        return app;
      },
      [
        { path: '/open/x', headers: { Origin: 'https://b.example' } },
        {
          method: 'OPTIONS',
          path: '/open/x',
          headers: { Origin: 'https://b.example', 'Access-Control-Request-Method': 'DELETE' },
        },
        {
          method: 'OPTIONS',
          path: '/strict/x',
          headers: { Origin: 'https://a.example', 'Access-Control-Request-Method': 'PUT' },
        },
      ],
    );
  });

  it('morgan logs through its stream with the request and response fields', async () => {
    const lines: string[] = [];
    await assertSameResponses(
      (fw: Framework) => {
        lines.length = 0;
        const app: Any = fw();
        app.use(
          morgan(':method :url :status :res[content-length] :req[x-id]', {
            stream: { write: (l: string) => lines.push(l) },
          }),
        );
        app.get('/logged', (_req: Any, res: Any) => res.send('hello'));
        app.get('/lines', (_req: Any, res: Any) => res.json(lines));
        return app;
      },
      [{ path: '/logged?q=1', headers: { 'X-Id': '7' } }, { path: '/lines' }],
    );
  });

  it('cookie-parser with signed cookies, and res.cookie signed', async () => {
    await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(cookieParser('secret'));
        app.get('/set', (_req: Any, res: Any) =>
          res.cookie('plain', 'p').cookie('signed', 'v', { signed: true }).cookie('obj', { a: 1 }).send('ok'),
        );
        app.get('/read', (req: Any, res: Any) => res.json({ cookies: req.cookies, signed: req.signedCookies }));
        return app;
      },
      [
        { path: '/set' },
        {
          path: '/read',
          headers: {
            Cookie:
              'plain=p; signed=s%3Av.cKjMShOfkCTyAjxOmCKyu%2Bk%2FQIwgyJ7VjYMSeBbt0ms; ' +
              'obj=j%3A%7B%22a%22%3A1%7D; bad=s%3Av.wrong',
          },
        },
      ],
    );
  });

  it('express-session keeps state across requests with its cookie', async () => {
    for (const [, fw] of frameworks) {
      const app: Any = fw();
      app.use(session({ secret: 's', resave: false, saveUninitialized: false }));
      app.get('/count', (req: Any, res: Any) => {
        req.session.n = (req.session.n || 0) + 1;
        res.json({ n: req.session.n });
      });
      const request = (await import('supertest')).default;
      const agent = request.agent(app);
      await agent.get('/count').expect(200, { n: 1 });
      await agent.get('/count').expect(200, { n: 2 });
    }
  });

  it('passport-local logs in through req.login, req.user, req.isAuthenticated (patched app.request)', async () => {
    for (const [, fw] of frameworks) {
      const app: Any = fw();
      const auth = new passport.Passport();
      auth.use(
        new LocalStrategy((username: string, password: string, done: Any) =>
          done(null, password === 'pw' ? { id: 1, username } : false),
        ),
      );
      auth.serializeUser((user: Any, done: Any) => done(null, user.id));
      auth.deserializeUser((id: Any, done: Any) => done(null, { id, username: 'tobi' }));
      app.use(fw.urlencoded({ extended: false }));
      app.use(session({ secret: 's', resave: false, saveUninitialized: false }));
      app.use(auth.initialize());
      app.use(auth.session());
      app.post('/login', auth.authenticate('local', { failureRedirect: '/failed' }), (_req: Any, res: Any) =>
        res.redirect('/me'),
      );
      app.get('/me', (req: Any, res: Any) =>
        res.json({ authenticated: req.isAuthenticated(), user: req.user ?? null }),
      );
      const request = (await import('supertest')).default;
      const agent = request.agent(app);
      await agent
        .post('/login')
        .type('form')
        .send({ username: 'tobi', password: 'nope' })
        .expect(302)
        .expect('Location', '/failed');
      await agent
        .post('/login')
        .type('form')
        .send({ username: 'tobi', password: 'pw' })
        .expect(302)
        .expect('Location', '/me');
      await agent.get('/me').expect(200, { authenticated: true, user: { id: 1, username: 'tobi' } });
    }
  });

  it('multer parses multipart uploads into req.file and req.body', async () => {
    await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        const upload = multer({ storage: multer.memoryStorage() });
        app.post('/upload', upload.single('doc'), (req: Any, res: Any) =>
          res.json({
            body: req.body,
            name: req.file.originalname,
            size: req.file.size,
            text: req.file.buffer.toString(),
          }),
        );
        return app;
      },
      [
        {
          method: 'POST',
          path: '/upload',
          headers: { 'Content-Type': 'multipart/form-data; boundary=XX' },
          body:
            '--XX\r\nContent-Disposition: form-data; name="title"\r\n\r\nhello\r\n' +
            '--XX\r\nContent-Disposition: form-data; name="doc"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n' +
            'file body\r\n--XX--\r\n',
        },
      ],
    );
  });

  it('compression gzips by Accept-Encoding', async () => {
    await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(compression({ threshold: 0 }));
        app.get('/', (_req: Any, res: Any) => res.send('x'.repeat(2000)));
        return app;
      },
      [
        { path: '/', headers: { 'Accept-Encoding': 'gzip' } },
        { path: '/', headers: { 'Accept-Encoding': 'identity' } },
      ],
    );
  });

  it('method-override, serve-favicon, express-rate-limit and express-validator', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapp-eco-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'favicon.ico'), Buffer.from([0, 0, 1, 0]));
    await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(favicon(join(dir, 'favicon.ico')));
        app.use(methodOverride('X-HTTP-Method-Override'));
        app.use(
          '/limited',
          rateLimit({ windowMs: 60_000, limit: 1, standardHeaders: 'draft-7', legacyHeaders: false }),
        );
        app.use(fw.json());
        app.delete('/thing', (req: Any, res: Any) => res.send('deleted via ' + req.originalMethod));
        app.get('/limited', (_req: Any, res: Any) => res.send('ok'));
        app.post('/validate', body('email').isEmail(), (req: Any, res: Any) => {
          const errors = validationResult(req);
          res.status(errors.isEmpty() ? 200 : 422).json(errors.array());
        });
        return app;
      },
      [
        { path: '/favicon.ico' },
        { method: 'POST', path: '/thing', headers: { 'X-HTTP-Method-Override': 'DELETE' } },
        { path: '/limited' },
        { path: '/limited' },
        {
          method: 'POST',
          path: '/validate',
          headers: { 'Content-Type': 'application/json' },
          body: '{"email":"nope"}',
        },
        {
          method: 'POST',
          path: '/validate',
          headers: { 'Content-Type': 'application/json' },
          body: '{"email":"a@b.co"}',
        },
      ],
      undefined,
      withoutVolatile,
    );
  });
  it('swagger-ui-express, express-fileupload, serve-index, response-time and express-prom-bundle', async () => {
    const swaggerUi = require('swagger-ui-express');
    const fileUpload = require('express-fileupload');
    const serveIndex = require('serve-index');
    const responseTime = require('response-time');
    const promBundle = require('express-prom-bundle');
    const dir = mkdtempSync(join(tmpdir(), 'webapp-eco-'));
    writeFileSync(join(dir, 'notes.txt'), 'notes');
    writeFileSync(join(dir, 'report.csv'), 'a,b');
    const document = { openapi: '3.0.0', info: { title: 'Notes', version: '1.0.0' }, paths: {} };
    const upload =
      '--XX\r\nContent-Disposition: form-data; name="title"\r\n\r\nhello\r\n' +
      '--XX\r\nContent-Disposition: form-data; name="doc"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n' +
      'file body\r\n--XX--\r\n';
    after(() => rmSync(dir, { recursive: true, force: true }));
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        // Each app its own registry, so the two servers count only their own requests.
        const { Registry } = require('prom-client');
        app.use(promBundle({ includeMethod: true, includePath: true, promRegistry: new Registry() }));
        app.use(responseTime());
        app.use(fileUpload());
        app.use('/docs', swaggerUi.serve, swaggerUi.setup(document));
        app.use('/files', serveIndex(dir, { icons: false }));
        app.post('/upload', (req: Any, res: Any) =>
          res.json({ body: req.body, file: req.files.doc.name, text: req.files.doc.data.toString() }),
        );
        return app;
      },
      [
        { path: '/docs/' },
        { path: '/docs/swagger-ui-init.js' },
        { path: '/docs/swagger-ui.css' },
        { path: '/files/' },
        { path: '/files/', headers: { Accept: 'application/json' } },
        {
          method: 'POST',
          path: '/upload',
          headers: { 'Content-Type': 'multipart/form-data; boundary=XX' },
          body: upload,
        },
        { path: '/metrics' },
      ],
      undefined,
      (res) => {
        const headers = { ...res.headers };
        delete headers['x-response-time'];
        delete headers['last-modified'];
        delete headers.etag;
        // Durations in the histogram differ from run to run; the series and counts must not.
        const body = res.body.replace(/_(sum|bucket)(\{[^}]*\})? [0-9.e-]+/g, '_$1$2 <n>');
        return { ...res, headers, body };
      },
    );
    // Not merely the same on both: each package did its work.
    const [page, init, css, listing, listingJson, uploaded, metrics] = answers;
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 200, 200, 200, 200, 200],
    );
    assert.match(page!.body, /<title>Swagger UI<\/title>/);
    assert.match(init!.body, /"title": "Notes"/);
    assert.match(String(css!.headers['content-type']), /^text\/css/);
    assert.match(listing!.body, /notes\.txt[\s\S]*report\.csv|report\.csv[\s\S]*notes\.txt/);
    assert.deepEqual(JSON.parse(listingJson!.body).sort(), ['notes.txt', 'report.csv']);
    assert.deepEqual(JSON.parse(uploaded!.body), { body: { title: 'hello' }, file: 'a.txt', text: 'file body' });
    assert.match(metrics!.body, /http_request_duration_seconds_count\{[^}]*path="\/upload"[^}]*\} 1/);
  });

  it('connect-flash and express-winston: a flash message survives the redirect, every request is logged', async () => {
    const flash = require('connect-flash');
    const expressWinston = require('express-winston');
    const winston = require('winston');
    const { Writable } = await import('node:stream');
    const request = (await import('supertest')).default;
    for (const [, fw] of frameworks) {
      const logged: Any[] = [];
      const stream = new Writable({
        write(chunk, _encoding, done) {
          logged.push(JSON.parse(String(chunk)));
          done();
        },
      });
      const app: Any = fw();
      app.use(
        expressWinston.logger({
          transports: [new winston.transports.Stream({ stream })],
          format: winston.format.json(),
          msg: 'HTTP {{req.method}} {{req.url}} {{res.statusCode}}',
        }),
      );
      app.use(session({ secret: 's', resave: false, saveUninitialized: false }));
      app.use(flash());
      app.post('/notes', (req: Any, res: Any) => {
        req.flash('info', 'note saved');
        res.redirect('/notes');
      });
      app.get('/notes', (req: Any, res: Any) => res.json({ info: req.flash('info') }));
      const agent = request.agent(app);
      await agent.post('/notes').expect(302).expect('Location', '/notes');
      await agent.get('/notes').expect(200, { info: ['note saved'] });
      await agent.get('/notes').expect(200, { info: [] });
      assert.deepEqual(
        logged.map((entry) => entry.message),
        ['HTTP POST /notes 302', 'HTTP GET /notes 200', 'HTTP GET /notes 200'],
      );
      assert.equal(logged[0].meta.res.statusCode, 302);
    }
  });

  it('express-jwt and @apollo/server (express4 integration): tokens checked, GraphQL answered', async () => {
    const { expressjwt } = require('express-jwt');
    const jwt = require('jsonwebtoken');
    const { ApolloServer } = require('@apollo/server');
    const { expressMiddleware } = require('@as-integrations/express4');
    const apollo = new ApolloServer({
      typeDefs: 'type Query { hello(name: String): String }',
      resolvers: { Query: { hello: (_: unknown, args: { name: string }) => 'hello ' + args.name } },
    });
    await apollo.start();
    const query = JSON.stringify({ query: '{ hello(name: "webapp") }' });
    try {
      const answers = await assertSameResponses(
        (fw: Framework) => {
          const app: Any = fw();
          app.use('/me', expressjwt({ secret: 'key', algorithms: ['HS256'] }));
          app.get('/me', (req: Any, res: Any) => res.json({ sub: req.auth.sub }));
          app.use('/graphql', fw.json(), expressMiddleware(apollo));
          app.use((err: Any, _req: Any, res: Any, _next: Any) =>
            res.status(err.status || 500).json({ name: err.name, message: err.message }),
          );
          return app;
        },
        [
          { path: '/me' },
          { path: '/me', headers: { Authorization: 'Bearer not.a.token' } },
          { path: '/me', headers: { Authorization: 'Bearer ' + jwt.sign({ sub: 'ada' }, 'key') } },
          { method: 'POST', path: '/graphql', headers: { 'Content-Type': 'application/json' }, body: query },
        ],
      );
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [401, 401, 200, 200],
      );
      assert.deepEqual(JSON.parse(answers[2]!.body), { sub: 'ada' });
      assert.deepEqual(JSON.parse(answers[3]!.body), { data: { hello: 'hello webapp' } });
    } finally {
      await apollo.stop();
    }
  });

  for (const serverKind of ['app.listen', 'http.createServer(app)'] as const) {
    it(`socket.io on ${serverKind}: polling, websocket and the upgrade, beside the app's routes`, async () => {
      const http = await import('node:http');
      const { Server } = require('socket.io');
      const { io: connect } = require('socket.io-client');
      const app: Any = webapp();
      app.get('/status', (_req: Any, res: Any) => res.json({ ok: true }));
      const server: import('node:http').Server =
        serverKind === 'app.listen' ? app.listen(0, '127.0.0.1') : http.createServer(app).listen(0, '127.0.0.1');
      const io = new Server(server);
      io.on('connection', (socket: Any) =>
        socket.on('echo', (text: string, ack: (reply: string) => void) => ack('echo ' + text)),
      );
      try {
        await new Promise((resolve) => server.once('listening', resolve));
        const url = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
        for (const transports of [['polling'], ['websocket'], ['polling', 'websocket']]) {
          const client = connect(url, { transports, reconnection: false, timeout: 5000 });
          try {
            const reply = await new Promise((resolve, reject) => {
              client.once('connect_error', reject);
              client.once('connect', () => client.emit('echo', transports.join('+'), resolve));
            });
            assert.equal(reply, 'echo ' + transports.join('+'));
          } finally {
            client.close();
          }
        }
        const status = await (await fetch(url + '/status')).json();
        assert.deepEqual(status, { ok: true });
      } finally {
        io.close();
        server.close();
      }
    });
  }

  it('nunjucks (its own View class), connect-timeout and express-list-endpoints (the router stack)', async () => {
    const nunjucks = require('nunjucks');
    const timeout = require('connect-timeout');
    const listEndpoints = require('express-list-endpoints');
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        // nunjucks replaces the app's `view` setting with a View class of its own.
        nunjucks.configure(join(__dirname, 'fixtures'), { express: app, autoescape: true });
        app.get('/page', (_req: Any, res: Any) => res.render('page.njk', { title: 'Nunjucks <b>' }));
        app.get('/late', timeout('20ms'), (req: Any, res: Any) => {
          setTimeout(() => req.timedout || res.send('too late'), 200);
        });
        const api = fw.Router();
        api.get('/users/:id', (req: Any, res: Any) => res.json(req.params));
        api.post('/users', (_req: Any, res: Any) => res.sendStatus(201));
        app.use('/api', api);
        app.get('/endpoints', (_req: Any, res: Any) =>
          res.json(listEndpoints(app).map((endpoint: Any) => [endpoint.path, endpoint.methods.join(',')])),
        );
        app.use((err: Any, _req: Any, res: Any, _next: Any) => res.status(err.status).send(err.message));
        return app;
      },
      [{ path: '/page' }, { path: '/late' }, { path: '/endpoints' }],
    );
    assert.equal(answers[0]!.body, '<h1>Nunjucks &lt;b&gt;</h1>\n');
    assert.deepEqual([answers[1]!.status, answers[1]!.body], [503, 'Response timeout']);
    assert.deepEqual(JSON.parse(answers[2]!.body), [
      ['/page', 'GET'],
      ['/late', 'GET'],
      ['/api/users/:id', 'GET'],
      ['/api/users', 'POST'],
      ['/endpoints', 'GET'],
    ]);
  });

  it('express-ws: app.ws routes take WebSocket upgrades through the app, with req.query', async () => {
    const app: Any = webapp();
    require('express-ws')(app);
    app.ws('/echo', (ws: Any, req: Any) => ws.on('message', (m: Buffer) => ws.send(`${req.query.room}: ${m}`)));
    app.get('/status', (_req: Any, res: Any) => res.send('up'));
    const server = app.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const port = server.address().port;
      assert.equal(await webSocketReply(`ws://127.0.0.1:${port}/echo?room=lobby`, 'hello'), 'lobby: hello');
      assert.equal(await (await fetch(`http://127.0.0.1:${port}/status`)).text(), 'up');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("express-rate-limit's check that a limiter is made at start, not in a handler", () => {
    // It looks for Express 4's stack frame `Layer.handle [as handle_request]` (or Express
    // 5's `Layer.handleRequest`) within the default ten. Run on the built package in plain
    // Node: under this suite's TypeScript loader, source maps rename the frames. Each app
    // makes a limiter while answering: in a route handler, in a middleware at `/` (of the
    // app, of a Router, after another middleware, as the first layer), mounted at a path,
    // and in an error handler (a frame Express names `handle_error`, which the check does
    // not look for).
    const root = join(__dirname, '..', '..');
    const child = (entry: string) => `
      const fw = require(${JSON.stringify(entry)});
      const { rateLimit } = require(${JSON.stringify(require.resolve('express-rate-limit'))});
      const logged = [];
      console.error = (...args) => logged.push(args.map(String).join(' '));
      const late = (req, res) => { rateLimit({ limit: 5 }); res.send('made'); };
      const apps = {
        route: (app) => app.get('/', late),
        middleware: (app) => app.use(late),
        router: (app) => app.use(fw.Router().use(late)),
        afterAnother: (app) => app.use((req, res, next) => next()).use(late),
        first: (app) => { app.use(late); app._router.stack.unshift(app._router.stack.pop()); },
        mounted: (app) => app.use('/', fw.Router()).use('/t', late),
        errorHandler: (app) =>
          app.use((req, res, next) => next(new Error('x'))).use((err, req, res, next) => late(req, res)),
      };
      const warned = {};
      (async () => {
        for (const [name, define] of Object.entries(apps)) {
          const app = fw();
          define(app);
          const server = app.listen(0, '127.0.0.1');
          await new Promise((resolve) => server.once('listening', resolve));
          logged.length = 0;
          const path = name === 'mounted' ? '/t' : '/';
          await (await fetch('http://127.0.0.1:' + server.address().port + path)).text();
          server.close();
          warned[name] = logged.some((line) => line.includes('ERR_ERL_CREATED_IN_REQUEST_HANDLER'));
        }
        process.stdout.write(JSON.stringify(warned));
      })();`;
    const warned = (entry: string) =>
      JSON.parse(spawnSync(process.execPath, ['-e', child(entry)], { encoding: 'utf8', timeout: 20_000 }).stdout);
    const expected = {
      route: true,
      middleware: true,
      router: true,
      afterAnother: true,
      first: true,
      mounted: true,
      errorHandler: false,
    };
    assert.deepEqual(warned(require.resolve('express')), expected);
    assert.deepEqual(warned(join(root, 'dist', 'cjs', 'index.js')), expected);
  });

  it('express-ws: routers get .ws through applyTo(webapp.Router)', async () => {
    // express-ws requires the express package and adds `ws` to its Router only; applied
    // to webapp's Router (every router's prototype), `router.ws` works as documented there.
    const app: Any = webapp();
    require('express-ws')(app).applyTo(webapp.Router);
    const router: Any = webapp.Router();
    router.ws('/echo/:room', (ws: Any, req: Any) =>
      ws.on('message', (m: Buffer) => ws.send(`${req.params.room}: ${m}`)),
    );
    app.use('/ws', router);
    const server = app.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const url = `ws://127.0.0.1:${server.address().port}/ws/echo/lobby`;
      assert.equal(await webSocketReply(url, 'hello'), 'lobby: hello');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('pino-http, cookie-session, cls-rtracer across a body parser, express-openapi-validator', async () => {
    const pinoHttp = require('pino-http');
    const cookieSession = require('cookie-session');
    const rTracer = require('cls-rtracer');
    const OpenApiValidator = require('express-openapi-validator');
    const asyncHandler = require('express-async-handler');
    const createError = require('http-errors');
    const { Writable } = await import('node:stream');
    const apiSpec = {
      openapi: '3.0.0',
      info: { title: 'Items', version: '1.0.0' },
      servers: [{ url: '/v1' }],
      paths: {
        '/items/{id}': {
          get: {
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
            responses: { 200: { description: 'the item' } },
          },
        },
      },
    };
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        const logged: Any[] = [];
        const stream = new Writable({
          write(chunk, _encoding, done) {
            logged.push(JSON.parse(String(chunk)));
            done();
          },
        });
        app.use(pinoHttp({ stream, genReqId: () => 'request-1' }));
        app.use(cookieSession({ name: 'session', keys: ['key'] }));
        app.use(rTracer.expressMiddleware({ requestIdFactory: () => 'trace-1' }));
        app.use(fw.json());
        app.get('/count', (req: Any, res: Any) => {
          req.session.n = (req.session.n || 0) + 1;
          res.json({ n: req.session.n });
        });
        // The id is read after the body was parsed and a timer ran: the async context carried through.
        app.post('/trace', (req: Any, res: Any) => setTimeout(() => res.json({ id: rTracer.id(), body: req.body }), 5));
        app.get(
          '/teapot',
          asyncHandler(async () => {
            await new Promise((resolve) => setTimeout(resolve, 1));
            throw createError(418, 'short and stout');
          }),
        );
        app.use('/v1', OpenApiValidator.middleware({ apiSpec, validateRequests: true }));
        app.get('/v1/items/:id', (req: Any, res: Any) => res.json({ id: req.params.id }));
        app.get('/logged', (_req: Any, res: Any) =>
          res.json(logged.map((entry) => [entry.req.id, entry.req.method, entry.req.url, entry.res.statusCode])),
        );
        app.use((err: Any, _req: Any, res: Any, _next: Any) => res.status(err.status || 500).json(err.message));
        return app;
      },
      [
        { path: '/count' },
        { path: '/count', headers: { Cookie: 'session=eyJuIjoxfQ==; session.sig=FQnslxDNR8T_IPg5_fdoA4PDx1I' } },
        { method: 'POST', path: '/trace', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' },
        { path: '/teapot' },
        { path: '/v1/items/5' },
        { path: '/v1/items/five' },
        { path: '/logged' },
      ],
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 200, 418, 200, 400, 200],
    );
    // The signed session cookie of { n: 1 } came back and was counted on.
    assert.deepEqual(JSON.parse(answers[1]!.body), { n: 2 });
    assert.deepEqual(JSON.parse(answers[2]!.body), { id: 'trace-1', body: { a: 1 } });
    assert.deepEqual(JSON.parse(answers[4]!.body), { id: 5 });
    assert.equal(JSON.parse(answers[6]!.body).length, 6);
  });

  it('hbs renders through __express, and http-proxy-middleware proxies to an upstream', async () => {
    const http = await import('node:http');
    const { createProxyMiddleware } = await import('http-proxy-middleware');
    const upstream = http.createServer((req, res) => res.end('upstream saw ' + req.url));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const target = `http://127.0.0.1:${(upstream.address() as import('node:net').AddressInfo).port}`;
    try {
      await assertSameResponses(
        (fw: Framework) => {
          const app: Any = fw();
          app.set('views', join(__dirname, 'fixtures'));
          app.set('view engine', 'hbs');
          app.get('/page', (_req: Any, res: Any) => res.render('page', { title: 'Handlebars' }));
          app.use('/api', createProxyMiddleware({ target, changeOrigin: true }));
          return app;
        },
        [{ path: '/page' }, { path: '/api/users?x=1' }],
      );
    } finally {
      upstream.close();
    }
  });
});
