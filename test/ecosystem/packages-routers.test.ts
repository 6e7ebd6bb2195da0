/**
 * Routers and controllers from npm, unmodified, on webapp: the same app built on
 * express@4 and on webapp gets the same requests (good and bad input, unknown
 * routes, errors thrown in handlers), and the answers must match.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import http from 'node:http';
import { after, describe, it } from 'node:test';
import {
  assertSameResponses,
  frameworks,
  withoutStackFrames,
  type Framework,
  type RawResponse,
  type RequestSpec,
} from '../support/differential';
import { loadWithExpressAs } from '../support/express-alias';

type Any = any;

const json = { 'Content-Type': 'application/json' };

/** An error handler that answers with what the error carries. */
function reportErrors(err: Any, _req: Any, res: Any, _next: Any): void {
  res.status(err.status ?? 500).json({ error: err.message, name: err.name });
}

describe('routers and controllers from npm on webapp (differential against express@4)', () => {
  for (const variant of ['as installed (its Router is express@4’s)', 'with express aliased to the framework']) {
    it(`express-promise-router ${variant}: returned 'next' and 'route', rejections, async params`, async () => {
      const answers = await assertSameResponses(
        (fw: Framework) => {
          const PromiseRouter = variant.startsWith('as')
            ? require('express-promise-router')
            : loadWithExpressAs(fw, 'express-promise-router');
          const app: Any = fw();
          const router = PromiseRouter();
          // Its wrapper passes (req, res, next) only, so the value is read from req.params;
          // a promise that resolves to anything but 'next' or 'route' ends the chain.
          router.param('id', async (req: Any) => {
            const id = req.params.id;
            if (!/^\d+$/.test(id)) throw Object.assign(new Error('bad id ' + id), { status: 400 });
            req.item = { id: Number(id) };
            return 'next';
          });
          router.use(async (req: Any, res: Any) => {
            res.set('X-Router-Base', req.baseUrl);
            return 'next';
          });
          router.get(
            '/items/:id',
            async (req: Any) => (req.query.skip ? 'route' : 'next'),
            async (req: Any, res: Any) => {
              res.json({ item: req.item, params: req.params, url: req.url, originalUrl: req.originalUrl });
            },
          );
          router.get('/items/:id', (req: Any, res: Any) => res.send('skipped to the next route for ' + req.params.id));
          router.get('/reject', async () => {
            throw Object.assign(new Error('rejected'), { status: 418 });
          });
          router.get('/reject-empty', () => Promise.reject(undefined));
          router.get('/sync-throw', () => {
            throw new Error('thrown synchronously');
          });
          router.post('/echo', fw.json(), async (req: Any, res: Any) => {
            await new Promise((resolve) => setImmediate(resolve));
            res.status(201).json({ body: req.body });
          });
          router.use(async (err: Any, req: Any, res: Any, next: Any) => {
            if (req.path !== '/reject') return next(err);
            res.status(err.status).send('router error handler: ' + err.message);
          });
          app.use('/api', router);
          app.use(reportErrors);
          return app;
        },
        [
          { path: '/api/items/42' },
          { path: '/api/items/42?skip=1' },
          { path: '/api/items/abc' },
          { path: '/api/reject' },
          { path: '/api/reject-empty' },
          { path: '/api/sync-throw' },
          { method: 'POST', path: '/api/echo', headers: json, body: '{"a":[1,2]}' },
          { method: 'POST', path: '/api/echo', headers: json, body: '{"a":' },
          { path: '/api/nothing' },
          { path: '/elsewhere' },
        ],
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 400, 418, 500, 500, 201, 400, 404, 404],
      );
      assert.deepEqual(JSON.parse(answers[0]!.body), {
        item: { id: 42 },
        params: { id: '42' },
        url: '/items/42',
        originalUrl: '/api/items/42',
      });
      assert.equal(answers[0]!.headers['x-router-base'], '/api');
      assert.match(answers[4]!.body, /returned promise was rejected but did not have a reason/);
    });
  }

  it('routing-controllers: useExpressServer on the app, params, validation, errors, authorization', async () => {
    require('reflect-metadata');
    const rc = require('routing-controllers');
    const cv = require('class-validator');
    const R: Any = Reflect;

    /** Applies decorators as TypeScript's legacy decorators would (the tests compile without them). */
    function decorate(proto: Any, method: string, paramTypes: unknown[], decorators: Any[], params: Any[] = []): void {
      R.defineMetadata('design:paramtypes', paramTypes, proto, method);
      R.defineMetadata('design:returntype', Object, proto, method);
      params.forEach((param, index) => param(proto, method, index));
      const descriptor = Object.getOwnPropertyDescriptor(proto, method);
      for (const decorator of decorators.reverse()) decorator(proto, method, descriptor);
    }

    class NewUser {
      name!: string;
      age!: number;
    }
    R.defineMetadata('design:type', String, NewUser.prototype, 'name');
    R.defineMetadata('design:type', Number, NewUser.prototype, 'age');
    cv.IsString()(NewUser.prototype, 'name');
    cv.MinLength(2)(NewUser.prototype, 'name');
    cv.IsInt()(NewUser.prototype, 'age');
    cv.Min(0)(NewUser.prototype, 'age');

    const people = [
      { id: 1, name: 'Ada' },
      { id: 2, name: 'Grace' },
    ];
    class UsersController {
      list(limit: number, sort: string) {
        const out = [...people].slice(0, limit ?? people.length);
        return sort === 'desc' ? out.reverse() : out;
      }
      one(id: number) {
        const person = people.find((p) => p.id === id);
        if (!person) throw new rc.NotFoundError('User ' + id + ' not found');
        return person;
      }
      create(user: NewUser, agent: string) {
        return { created: user, agent, isNewUser: user instanceof NewUser };
      }
      remove(id: number) {
        return id === 1 ? undefined : null;
      }
      async slow() {
        await new Promise((resolve) => setImmediate(resolve));
        return { done: true };
      }
      boom() {
        throw new Error('boom');
      }
      secret() {
        return { secret: 42 };
      }
    }
    class PagesController {
      page(name: string, res: Any) {
        return res.set('X-Page', name).send('<p>' + name + '</p>');
      }
      text() {
        return 'plain text';
      }
      moved() {
        return undefined;
      }
    }
    const P = UsersController.prototype;
    decorate(P, 'list', [Number, String], [rc.Get('/users')], [rc.QueryParam('limit'), rc.QueryParam('sort')]);
    decorate(P, 'one', [Number], [rc.Get('/users/:id')], [rc.Param('id')]);
    decorate(
      P,
      'create',
      [NewUser, String],
      [rc.Post('/users'), rc.HttpCode(201), rc.Header('X-Created', 'yes')],
      [rc.Body({ required: true }), rc.HeaderParam('user-agent')],
    );
    decorate(P, 'remove', [Number], [rc.Delete('/users/:id'), rc.OnUndefined(204), rc.OnNull(404)], [rc.Param('id')]);
    decorate(P, 'slow', [], [rc.Get('/slow')]);
    decorate(P, 'boom', [], [rc.Get('/boom')]);
    decorate(P, 'secret', [], [rc.Get('/secret'), rc.Authorized('admin')]);
    rc.JsonController('/api')(UsersController);
    const Q = PagesController.prototype;
    decorate(Q, 'page', [String, Object], [rc.Get('/pages/:name')], [rc.Param('name'), rc.Res()]);
    decorate(Q, 'text', [], [rc.Get('/text'), rc.ContentType('text/plain')]);
    decorate(Q, 'moved', [], [rc.Get('/moved'), rc.Redirect('/pages/new-home')]);
    rc.Controller()(PagesController);
    class ExtrasController {
      page(name: string) {
        return { messages: { from: name } };
      }
      cookie(theme: string, all: Any) {
        return { theme: theme ?? null, all };
      }
      upload(file: Any, label: string) {
        return { field: file?.fieldname ?? null, name: file?.originalname ?? null, size: file?.size ?? null, label };
      }
      located() {
        return { at: 'the new place' };
      }
      intercepted() {
        return { value: 'raw' };
      }
    }
    const X = ExtrasController.prototype;
    decorate(X, 'page', [String], [rc.Get('/render/:name'), rc.Render('flash')], [rc.Param('name')]);
    decorate(X, 'cookie', [String, Object], [rc.Get('/cookie')], [rc.CookieParam('theme'), rc.CookieParams()]);
    decorate(
      X,
      'upload',
      [Object, String],
      [rc.Post('/upload')],
      [rc.UploadedFile('doc', { required: true }), rc.BodyParam('label')],
    );
    decorate(X, 'located', [], [rc.Post('/located'), rc.HttpCode(201), rc.Location('/extras/place')]);
    decorate(
      X,
      'intercepted',
      [],
      [
        rc.Get('/intercepted'),
        rc.UseBefore((_req: Any, res: Any, next: Any) => {
          res.set('X-Before', '1');
          next();
        }),
        rc.UseInterceptor((_action: Any, content: Any) => ({ wrapped: content })),
      ],
    );
    rc.JsonController('/extras')(ExtrasController);

    const options = {
      controllers: [UsersController, PagesController, ExtrasController],
      validation: true,
      classTransformer: true,
      development: false,
      authorizationChecker: (action: Any, roles: string[]) =>
        action.request.headers['x-role'] !== undefined && roles.includes(action.request.headers['x-role']),
    };
    /** The app's own settings and route, on an app given to useExpressServer or made by createExpressServer. */
    const configure = (app: Any): Any => {
      // routing-controllers answers errors and passes them on: the final handler would log them.
      app.set('env', 'test');
      app.get('/before', (_req: Any, res: Any) => res.send('a route of the app itself'));
      app.engine('txt', (_path: string, locals: Any, callback: Any) =>
        callback(null, 'rendered with ' + JSON.stringify(locals.messages)),
      );
      app.set('view engine', 'txt');
      app.set('views', join(__dirname, 'fixtures', 'views'));
      return app;
    };
    const requests: RequestSpec[] = [
      { path: '/before' },
      { path: '/api/users' },
      { path: '/api/users?limit=1&sort=desc' },
      { path: '/api/users?limit=abc' },
      { path: '/api/users/2' },
      { path: '/api/users/9' },
      { path: '/api/users/xyz' },
      { method: 'POST', path: '/api/users', headers: { ...json, 'User-Agent': 't' }, body: '{"name":"Lin","age":3}' },
      { method: 'POST', path: '/api/users', headers: json, body: '{"name":"L","age":-1}' },
      { method: 'POST', path: '/api/users', headers: json, body: '{"name":' },
      { method: 'POST', path: '/api/users', headers: json },
      { method: 'DELETE', path: '/api/users/1' },
      { method: 'DELETE', path: '/api/users/2' },
      { path: '/api/slow' },
      { path: '/api/boom' },
      { path: '/api/secret' },
      { path: '/api/secret', headers: { 'X-Role': 'user' } },
      { path: '/api/secret', headers: { 'X-Role': 'admin' } },
      { path: '/pages/about' },
      { path: '/text' },
      { path: '/moved' },
      { path: '/nowhere' },
      { path: '/extras/render/ada' },
      { path: '/extras/cookie', headers: { Cookie: 'theme=dark; lang=en' } },
      { path: '/extras/cookie' },
      {
        method: 'POST',
        path: '/extras/upload',
        headers: { 'Content-Type': 'multipart/form-data; boundary=XX' },
        body:
          '--XX\r\nContent-Disposition: form-data; name="label"\r\n\r\nmine\r\n' +
          '--XX\r\nContent-Disposition: form-data; name="doc"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n' +
          'hello\r\n--XX--\r\n',
      },
      { method: 'POST', path: '/extras/upload', headers: json, body: '{"label":"no file"}' },
      { method: 'POST', path: '/extras/located' },
      { path: '/extras/intercepted' },
    ];
    const answers = await assertSameResponses(
      (fw: Framework) => rc.useExpressServer(configure(fw()), options),
      requests,
      undefined,
      withoutStackFrames,
    );
    // The same controllers in the app routing-controllers makes with require('express')(), express aliased to webapp.
    const created = await assertSameResponses(
      (fw: Framework) => configure(loadWithExpressAs(fw, 'routing-controllers').createExpressServer(options)),
      requests,
      undefined,
      withoutStackFrames,
    );
    assert.deepEqual(
      created.map((a) => a.status),
      answers.map((a) => a.status),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [
        ...[
          200, 200, 200, 400, 200, 404, 400, 201, 400, 400, 400, 204, 404, 200, 500, 403, 403, 200, 200, 200, 302, 404,
        ],
        ...[200, 200, 200, 200, 400, 201, 200],
      ],
    );
    assert.deepEqual(JSON.parse(answers[7]!.body), { created: { name: 'Lin', age: 3 }, agent: 't', isNewUser: true });
    assert.equal(answers[7]!.headers['x-created'], 'yes');
    assert.match(answers[8]!.body, /"errors":\[/);
    assert.equal(answers[18]!.body, '<p>about</p>');
    assert.equal(answers[22]!.body, 'rendered with {"from":"ada"}');
    assert.deepEqual(JSON.parse(answers[25]!.body), { field: 'doc', name: 'a.txt', size: 5, label: 'mine' });
    assert.equal(answers[27]!.headers.location, '/extras/place');
  });

  it('@trpc/server createExpressMiddleware: queries, mutations, batches, input errors, TRPCError codes', async () => {
    const { initTRPC, TRPCError } = require('@trpc/server');
    const { createExpressMiddleware } = require('@trpc/server/adapters/express');
    const t = initTRPC.context().create({ sse: { ping: { enabled: false } } });
    const text = (value: unknown): string => {
      if (typeof value !== 'string') throw new Error('Expected a string');
      return value;
    };
    const appRouter = t.router({
      hello: t.procedure.input(text).query(({ input, ctx }: Any) => ({ greeting: 'hello ' + input, user: ctx.user })),
      add: t.procedure
        .input((v: Any) => {
          if (!v || typeof v.a !== 'number' || typeof v.b !== 'number') throw new Error('a and b are numbers');
          return v;
        })
        .mutation(({ input }: Any) => ({ sum: input.a + input.b })),
      secret: t.procedure.query(({ ctx }: Any) => {
        if (!ctx.user) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'who are you' });
        return 'the secret';
      }),
      broken: t.procedure.query(() => {
        throw new Error('kaput');
      }),
      // A subscription streams as server-sent events (res.write per event, then the end).
      ticks: t.procedure
        .input((v: unknown) => Number(v))
        .subscription(async function* ({ input }: Any) {
          for (let i = 0; i < input; i++) {
            await new Promise((resolve) => setTimeout(resolve, 5));
            yield { tick: i };
          }
        }),
    });
    const requests: RequestSpec[] = [
      { path: '/trpc/hello?input=' + encodeURIComponent('"world"') },
      { path: '/trpc/hello?input=' + encodeURIComponent('"world"'), headers: { Authorization: 'ada' } },
      { path: '/trpc/hello?input=' + encodeURIComponent('42') },
      { path: '/trpc/hello?input=' + encodeURIComponent('{bad json') },
      { method: 'POST', path: '/trpc/add', headers: json, body: '{"a":1,"b":2}' },
      { method: 'POST', path: '/trpc/add', headers: json, body: '{"a":"1"}' },
      { method: 'POST', path: '/trpc/add', headers: json, body: '{"a":' },
      { path: '/trpc/add' },
      { method: 'POST', path: '/trpc/hello', headers: json, body: '"x"' },
      { path: '/trpc/secret' },
      { path: '/trpc/secret', headers: { Authorization: 'ada' } },
      { path: '/trpc/broken' },
      { path: '/trpc/missing' },
      {
        path: '/trpc/hello,secret?batch=1&input=' + encodeURIComponent(JSON.stringify({ 0: 'batch', 1: undefined })),
      },
      { method: 'POST', path: '/trpc/add,add?batch=1', headers: json, body: '{"0":{"a":1,"b":1},"1":{"a":2,"b":2}}' },
      { method: 'PUT', path: '/trpc/add', headers: json, body: '{}' },
      { path: '/not-trpc' },
      { path: '/trpc/ticks?input=3' },
      { path: '/trpc/ticks?input=0' },
    ];
    // tRPC's error shapes and the error page of a body parser in front carry stacks, whose frames differ.
    const withoutStacks = (res: RawResponse): RawResponse => {
      const out = withoutStackFrames(res);
      if (!/"stack":"/.test(out.body)) return out;
      const headers = { ...out.headers };
      delete headers['content-length'];
      return { ...out, headers, body: out.body.replace(/"stack":"(?:[^"\\]|\\.)*"/g, '"stack":"<stack>"') };
    };
    for (const parsedFirst of [false, true]) {
      const answers = await assertSameResponses(
        (fw: Framework) => {
          const app: Any = fw();
          app.set('env', 'test');
          // With a body parser before it, the adapter takes req.body instead of reading the stream.
          if (parsedFirst) app.use(fw.json());
          app.use(
            '/trpc',
            createExpressMiddleware({
              router: appRouter,
              createContext: ({ req }: Any) => ({ user: req.headers.authorization ?? null }),
              onError: () => {},
            }),
          );
          return app;
        },
        requests,
        undefined,
        withoutStacks,
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        // A query sent as a POST is a 405 from tRPC, but a 400 from a strict JSON parser in front ("x" is no object).
        [
          200,
          200,
          400,
          400,
          200,
          400,
          400,
          405,
          parsedFirst ? 400 : 405,
          401,
          200,
          500,
          404,
          207,
          200,
          405,
          404,
          200,
          200,
        ],
      );
      assert.deepEqual(JSON.parse(answers[1]!.body), { result: { data: { greeting: 'hello world', user: 'ada' } } });
      assert.equal(answers[17]!.headers['content-type'], 'text/event-stream');
      assert.match(answers[17]!.body, /^event: connected\n[\s\S]*data: \{"tick":2\}\n\n\nevent: return\n/);
    }
  });

  it('express-routes-versioning and express-list-routes: handlers by Accept-Version, the route table', async () => {
    const routesVersioning = require('express-routes-versioning')();
    const listRoutes = require('express-list-routes');
    const tables: unknown[] = [];
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        const v1 = (req: Any, res: Any) => res.json({ v: 1, accept: req.headers['accept-version'] ?? null });
        const v2 = (req: Any, res: Any) => res.json({ v: 2, params: req.params });
        app.get('/users/:id', routesVersioning({ '1.0.0': v1, '~2.2.0': v2 }));
        app.get(
          '/strict/:id',
          routesVersioning({ '^1.0.0': v1 }, (_req: Any, res: Any) => res.status(406).send('no such version')),
        );
        const admin = fw.Router();
        admin.post('/reports', (_req: Any, res: Any) => res.sendStatus(201));
        admin.route('/reports/:id').get(v1).delete(v2);
        app.use('/admin', admin);
        tables.push(listRoutes(app, { logger: false, color: false }));
        return app;
      },
      [
        { path: '/users/7' },
        { path: '/users/7', headers: { 'Accept-Version': '1.0.0' } },
        { path: '/users/7', headers: { 'Accept-Version': '2.2.9' } },
        { path: '/users/7', headers: { 'Accept-Version': '3' } },
        { path: '/strict/7', headers: { 'Accept-Version': '1.4.2' } },
        { path: '/strict/7', headers: { 'Accept-Version': '2.0.0' } },
        { path: '/strict/7' },
        { method: 'POST', path: '/admin/reports' },
        { method: 'DELETE', path: '/admin/reports/3' },
      ],
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 200, 200, 406, 406, 201, 200],
    );
    assert.equal(tables.length, 2);
    assert.deepEqual(tables[1], tables[0]);
    assert.deepEqual(tables[0], [
      { method: 'GET', path: '/users/:id' },
      { method: 'GET', path: '/strict/:id' },
      { method: 'POST', path: '/admin/reports' },
      { method: 'GET', path: '/admin/reports/:id' },
      { method: 'DELETE', path: '/admin/reports/:id' },
    ]);
  });
  it('inversify-express-utils: InversifyExpressServer on a given app and router, results, params, errors', async () => {
    require('reflect-metadata');
    const { Container } = require('inversify');
    const iu = require('inversify-express-utils');
    const R: Any = Reflect;

    /** Applies decorators as TypeScript's legacy decorators would (the tests compile without them). */
    function decorate(proto: Any, method: string, decorators: Any[], params: Any[] = []): void {
      R.defineMetadata(
        'design:paramtypes',
        params.map(() => Object),
        proto,
        method,
      );
      params.forEach((param, index) => param(proto, method, index));
      const descriptor = Object.getOwnPropertyDescriptor(proto, method);
      for (const decorator of decorators.reverse()) decorator(proto, method, descriptor);
    }

    const books = new Map([['1', { id: '1', title: 'Dune' }]]);
    class BooksController extends iu.BaseHttpController {
      list(q: string) {
        return this.json({ books: [...books.values()].filter((b) => !q || b.title.includes(q)) });
      }
      one(id: string) {
        const book = books.get(id);
        return book ? this.ok(book) : this.notFound();
      }
      create(body: Any) {
        if (!body || typeof body.title !== 'string') return this.badRequest('title is required');
        return this.created('/books/2', { id: '2', title: body.title });
      }
      async fails() {
        await new Promise((resolve) => setImmediate(resolve));
        throw Object.assign(new Error('the store is down'), { status: 503 });
      }
      raw(_req: Any, res: Any) {
        res.set('X-Raw', '1').status(202).send('raw response');
      }
      text(agent: string) {
        return 'agent: ' + agent;
      }
      message() {
        const message = new iu.HttpResponseMessage(418);
        message.content = new iu.StringContent('short and stout');
        message.headers['x-teapot'] = 'yes';
        return message;
      }
    }
    const P = BooksController.prototype;
    decorate(P, 'list', [iu.httpGet('/')], [iu.queryParam('q')]);
    decorate(P, 'one', [iu.httpGet('/:id')], [iu.requestParam('id')]);
    decorate(P, 'create', [iu.httpPost('/')], [iu.requestBody()]);
    decorate(P, 'fails', [iu.httpGet('/broken/store')]);
    decorate(P, 'raw', [iu.httpPut('/:id/raw')], [iu.request(), iu.response()]);
    decorate(P, 'text', [iu.httpGet('/text/agent')], [iu.requestHeaders('user-agent')]);
    decorate(P, 'message', [iu.httpDelete('/:id')]);
    iu.controller('/books')(BooksController);

    const build = (fw: Framework, server: Any): Any => {
      server.setConfig((app: Any) => app.set('env', 'test').use(fw.json()));
      server.setErrorConfig((app: Any) =>
        app.use((err: Any, _req: Any, res: Any, _next: Any) =>
          res.status(err.status ?? 500).json({ error: err.message }),
        ),
      );
      return server.build();
    };
    const requests: RequestSpec[] = [
      { path: '/api/books' },
      { path: '/api/books?q=Du' },
      { path: '/api/books/1' },
      { path: '/api/books/9' },
      { method: 'POST', path: '/api/books', headers: json, body: '{"title":"Emma"}' },
      { method: 'POST', path: '/api/books', headers: json, body: '{"name":"Emma"}' },
      { method: 'POST', path: '/api/books', headers: json, body: '{"title":' },
      { path: '/api/books/broken/store' },
      { method: 'PUT', path: '/api/books/1/raw' },
      { path: '/api/books/text/agent', headers: { 'User-Agent': 'probe' } },
      { method: 'DELETE', path: '/api/books/1' },
      { method: 'PATCH', path: '/api/books/1' },
      { path: '/books' },
    ];
    const answers = await assertSameResponses(
      (fw: Framework) =>
        build(fw, new iu.InversifyExpressServer(new Container(), fw.Router(), { rootPath: '/api' }, fw())),
      requests,
    );
    // Without an app or a router, the package makes them with require('express'): express aliased to webapp.
    // (Its fresh copy's HttpResponseMessage is another class, so DELETE's message is sent as JSON, on both.)
    await assertSameResponses((fw: Framework) => {
      const { InversifyExpressServer } = loadWithExpressAs(fw, 'inversify-express-utils');
      return build(fw, new InversifyExpressServer(new Container(), null, { rootPath: '/api' }));
    }, requests);
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 404, 201, 400, 400, 503, 202, 200, 418, 404, 404],
    );
    assert.equal(answers[4]!.headers.location, '/books/2');
    assert.equal(answers[10]!.headers['x-teapot'], 'yes');
  });

  for (const variant of ['as installed', 'with express aliased to the framework']) {
    it(`express-async-router ${variant}: returned values sent, rejections, async params`, async () => {
      const answers = await assertSameResponses(
        (fw: Framework) => {
          const { AsyncRouter } =
            variant === 'as installed'
              ? require('express-async-router')
              : loadWithExpressAs(fw, 'express-async-router');
          const app: Any = fw();
          const router = AsyncRouter();
          router.param('id', async (req: Any, _res: Any, id: string) => {
            if (id === 'bad') throw Object.assign(new Error('bad id'), { status: 400 });
            req.found = { id };
          });
          router.get('/items/:id', async (req: Any) => ({ found: req.found, base: req.baseUrl }));
          router.get('/text', async () => 'text value');
          router.get('/nothing', async (_req: Any, res: Any) => {
            res.status(204).end();
          });
          router.get('/reject', async () => {
            throw Object.assign(new Error('rejected'), { status: 409 });
          });
          router.post('/echo', fw.json(), async (req: Any) => ({ echoed: req.body }));
          router.use(async (err: Any, req: Any, res: Any, _next: Any) => {
            if (req.path === '/reject') res.status(err.status).send('router handled ' + err.message);
            else throw err;
          });
          app.use('/async', router);
          app.use(reportErrors);
          return app;
        },
        [
          { path: '/async/items/5' },
          { path: '/async/items/bad' },
          { path: '/async/text' },
          { path: '/async/nothing' },
          { path: '/async/reject' },
          { method: 'POST', path: '/async/echo', headers: json, body: '[1,2]' },
          { method: 'POST', path: '/async/echo', headers: json, body: '[1,' },
          { path: '/async/missing' },
        ],
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 400, 200, 204, 409, 200, 400, 404],
      );
      assert.deepEqual(JSON.parse(answers[0]!.body), { found: { id: '5' }, base: '/async' });
    });
  }
  it('tsoa-generated routes (RegisterRoutes as tsoa 6 writes them): validation, statuses, headers', async () => {
    const { Controller, ExpressTemplateService, ValidateError, fetchMiddlewares } = require('@tsoa/runtime');
    const users = new Map([[1, { id: 1, name: 'Ada', email: 'ada@example.org' }]]);
    class UsersController extends Controller {
      async getUser(userId: number, name?: string) {
        const user = users.get(userId);
        if (!user) {
          this.setStatus(404);
          return { message: 'no user ' + userId };
        }
        return name ? { ...user, name } : user;
      }
      async createUser(body: Any) {
        this.setStatus(201);
        this.setHeader('Location', '/users/2');
        return { id: 2, ...body };
      }
      async deleteUser(userId: number) {
        if (userId === 13) throw new Error('unlucky');
      }
    }
    // What tsoa generates from the controller's types (models and the arguments of each route).
    const models = {
      UserCreationParams: {
        dataType: 'refObject',
        properties: {
          name: { dataType: 'string', required: true },
          email: { dataType: 'string', required: true },
          phone: { dataType: 'string' },
        },
        additionalProperties: false,
      },
    };
    const templateService = new ExpressTemplateService(models, {
      noImplicitAdditionalProperties: 'throw-on-extras',
      bodyCoercion: true,
    });
    function RegisterRoutes(app: Any): void {
      const argsGetUser = {
        userId: { in: 'path', name: 'userId', required: true, dataType: 'double' },
        name: { in: 'query', name: 'name', dataType: 'string' },
      };
      app.get(
        '/users/:userId',
        ...fetchMiddlewares(UsersController),
        ...fetchMiddlewares(UsersController.prototype.getUser),
        async function UsersController_getUser(request: Any, response: Any, next: Any) {
          try {
            const validatedArgs = templateService.getValidatedArgs({ args: argsGetUser, request, response });
            const controller = new UsersController();
            await templateService.apiHandler({
              methodName: 'getUser',
              controller,
              response,
              next,
              validatedArgs,
              successStatus: undefined,
            });
          } catch (err) {
            return next(err);
          }
        },
      );
      const argsCreateUser = {
        requestBody: { in: 'body', name: 'requestBody', required: true, ref: 'UserCreationParams' },
      };
      app.post(
        '/users',
        ...fetchMiddlewares(UsersController),
        ...fetchMiddlewares(UsersController.prototype.createUser),
        async function UsersController_createUser(request: Any, response: Any, next: Any) {
          try {
            const validatedArgs = templateService.getValidatedArgs({ args: argsCreateUser, request, response });
            const controller = new UsersController();
            await templateService.apiHandler({
              methodName: 'createUser',
              controller,
              response,
              next,
              validatedArgs,
              successStatus: 201,
            });
          } catch (err) {
            return next(err);
          }
        },
      );
      const argsDeleteUser = { userId: { in: 'path', name: 'userId', required: true, dataType: 'double' } };
      app.delete(
        '/users/:userId',
        ...fetchMiddlewares(UsersController),
        ...fetchMiddlewares(UsersController.prototype.deleteUser),
        async function UsersController_deleteUser(request: Any, response: Any, next: Any) {
          try {
            const validatedArgs = templateService.getValidatedArgs({ args: argsDeleteUser, request, response });
            const controller = new UsersController();
            await templateService.apiHandler({
              methodName: 'deleteUser',
              controller,
              response,
              next,
              validatedArgs,
              successStatus: undefined,
            });
          } catch (err) {
            return next(err);
          }
        },
      );
    }
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.use(fw.urlencoded({ extended: true }));
        app.use(fw.json());
        RegisterRoutes(app);
        // The error handler of tsoa's getting-started guide: a body parser's SyntaxError is an Error, so a 500.
        app.use((err: Any, _req: Any, res: Any, next: Any) => {
          if (err instanceof ValidateError)
            return res.status(422).json({ message: 'Validation Failed', details: err.fields });
          if (err instanceof Error) return res.status(500).json({ message: 'Internal Server Error' });
          next();
        });
        return app;
      },
      [
        { path: '/users/1' },
        { path: '/users/1?name=Lovelace' },
        { path: '/users/2' },
        { path: '/users/abc' },
        { method: 'POST', path: '/users', headers: json, body: '{"name":"Grace","email":"g@example.org"}' },
        { method: 'POST', path: '/users', headers: json, body: '{"name":"Grace"}' },
        { method: 'POST', path: '/users', headers: json, body: '{"name":"Grace","email":"g@x","extra":1}' },
        {
          method: 'POST',
          path: '/users',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'name=Form&email=f%40example.org',
        },
        { method: 'POST', path: '/users', headers: json, body: '{"name":' },
        { method: 'POST', path: '/users' },
        { method: 'DELETE', path: '/users/1' },
        { method: 'DELETE', path: '/users/13' },
        { method: 'PUT', path: '/users/1' },
      ],
      undefined,
      withoutStackFrames,
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 404, 422, 201, 422, 422, 201, 500, 422, 204, 500, 404],
    );
    assert.equal(answers[4]!.headers.location, '/users/2');
  });
  it('NestJS 10 on a given app (ExpressAdapter): DI, pipes, guards, interceptors, middleware, exceptions', async () => {
    require('reflect-metadata');
    const common = require('@nestjs/common');
    const { NestFactory } = require('@nestjs/core');
    const { ExpressAdapter } = require('@nestjs/platform-express');
    const { map } = require('rxjs');
    const R: Any = Reflect;

    /** Applies decorators as TypeScript's legacy decorators would (the tests compile without them). */
    function decorate(proto: Any, method: string, paramTypes: unknown[], decorators: Any[], params: Any[] = []): void {
      R.defineMetadata('design:paramtypes', paramTypes, proto, method);
      params.forEach((param, index) => param && param(proto, method, index));
      const descriptor = Object.getOwnPropertyDescriptor(proto, method);
      for (const decorator of decorators.reverse()) decorator(proto, method, descriptor);
    }

    class CatsService {
      cats = [{ id: 1, name: 'Tom' }];
      find(id: number) {
        return this.cats.find((cat) => cat.id === id);
      }
    }
    common.Injectable()(CatsService);
    class RolesGuard {
      canActivate(context: Any) {
        return context.switchToHttp().getRequest().headers['x-role'] === 'admin';
      }
    }
    class WrapInterceptor {
      intercept(_context: Any, next: Any) {
        return next.handle().pipe(map((data: unknown) => ({ data })));
      }
    }
    class CatsController {
      constructor(private readonly cats: CatsService) {}
      list(name?: string) {
        return this.cats.cats.filter((cat) => !name || cat.name === name);
      }
      one(id: number) {
        const cat = this.cats.find(id);
        if (!cat) throw new common.NotFoundException('cat ' + id + ' not found');
        return cat;
      }
      create(body: Any) {
        if (!body || typeof body.name !== 'string') throw new common.BadRequestException(['name must be a string']);
        return { id: 2, name: body.name };
      }
      admin() {
        return 'admin area';
      }
      async wrapped() {
        return [1, 2];
      }
      raw(res: Any) {
        res.status(202).set('X-Raw', 'yes').send('written by hand');
      }
      boom() {
        throw new Error('unexpected');
      }
      moved() {}
      teapot() {
        throw new common.HttpException({ short: 'and stout' }, 418);
      }
    }
    class ExtrasController {
      file() {
        return new common.StreamableFile(Buffer.from('file bytes'), { type: 'text/plain', disposition: 'inline' });
      }
      page() {
        return { messages: { from: 'nest' } };
      }
      events() {
        const { of } = require('rxjs');
        return of({ data: { n: 1 } }, { data: 'two', id: '2', type: 'tick' });
      }
    }
    const X = ExtrasController.prototype;
    decorate(X, 'file', [], [common.Get('file')]);
    decorate(X, 'page', [], [common.Get('page'), common.Render('flash')]);
    decorate(X, 'events', [], [common.Sse('events')]);
    common.Controller('extras')(ExtrasController);
    R.defineMetadata('design:paramtypes', [CatsService], CatsController);
    const P = CatsController.prototype;
    decorate(P, 'list', [String], [common.Get()], [common.Query('name')]);
    decorate(P, 'one', [Number], [common.Get(':id')], [common.Param('id', common.ParseIntPipe)]);
    decorate(P, 'create', [Object], [common.Post(), common.Header('X-Created', 'yes')], [common.Body()]);
    decorate(P, 'admin', [], [common.Get('admin/area'), common.UseGuards(RolesGuard)]);
    decorate(P, 'wrapped', [], [common.Get('wrapped/list'), common.UseInterceptors(WrapInterceptor)]);
    decorate(P, 'raw', [Object], [common.Put(':id/raw')], [common.Res()]);
    decorate(P, 'boom', [], [common.Get('broken/one')]);
    decorate(P, 'moved', [], [common.Get('old/place'), common.Redirect('/cats', 301)]);
    decorate(P, 'teapot', [], [common.Delete(':id'), common.HttpCode(204)]);
    common.Controller('cats')(CatsController);
    class AppModule {
      configure(consumer: Any) {
        consumer
          .apply((_req: Any, res: Any, next: Any) => {
            res.set('X-Middleware', 'ran');
            next();
          })
          .forRoutes('cats');
      }
    }
    common.Module({ controllers: [CatsController, ExtrasController], providers: [CatsService] })(AppModule);

    const apps = new Map<unknown, http.RequestListener>();
    const nests: Any[] = [];
    for (const [, fw] of frameworks) {
      const app: Any = fw();
      const nest = await NestFactory.create(AppModule, new ExpressAdapter(app), { logger: false, abortOnError: false });
      nest.setGlobalPrefix('api');
      nest.enableCors({ origin: 'https://allowed.example' });
      nest.useStaticAssets(join(__dirname, 'fixtures', 'views', 'liquid'), { prefix: '/assets' });
      nest.setBaseViewsDir(join(__dirname, 'fixtures', 'views'));
      app.engine('txt', (_path: string, locals: Any, callback: Any) =>
        callback(null, 'rendered with ' + JSON.stringify(locals.messages)),
      );
      nest.setViewEngine('txt');
      await nest.init();
      nests.push(nest);
      apps.set(fw, app);
    }
    after(() => Promise.all(nests.map((nest) => nest.close())));
    const answers = await assertSameResponses(
      (fw: Framework) => apps.get(fw)!,
      [
        { path: '/api/cats' },
        { path: '/api/cats?name=Tom' },
        { path: '/api/cats/1' },
        { path: '/api/cats/7' },
        { path: '/api/cats/abc' },
        { method: 'POST', path: '/api/cats', headers: json, body: '{"name":"Felix"}' },
        { method: 'POST', path: '/api/cats', headers: json, body: '{"name":1}' },
        { method: 'POST', path: '/api/cats', headers: json, body: '{"name":' },
        {
          method: 'POST',
          path: '/api/cats',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'name=Form',
        },
        { path: '/api/cats/admin/area' },
        { path: '/api/cats/admin/area', headers: { 'X-Role': 'admin' } },
        { path: '/api/cats/wrapped/list' },
        { method: 'PUT', path: '/api/cats/1/raw' },
        { path: '/api/cats/broken/one' },
        { path: '/api/cats/old/place' },
        { method: 'DELETE', path: '/api/cats/1' },
        { method: 'PATCH', path: '/api/cats/1' },
        { path: '/cats' },
        { method: 'HEAD', path: '/api/cats' },
        {
          method: 'OPTIONS',
          path: '/api/cats',
          headers: { Origin: 'https://allowed.example', 'Access-Control-Request-Method': 'POST' },
        },
        { path: '/api/extras/file' },
        { path: '/api/extras/page' },
        { path: '/api/extras/events' },
        { path: '/assets/item.liquid' },
        { path: '/assets/nope.liquid' },
      ],
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [
        ...[200, 200, 200, 404, 400, 201, 400, 400, 201, 403, 200, 200, 202, 500, 301, 418, 404, 404, 200],
        ...[204, 200, 200, 200, 200, 404],
      ],
    );
    assert.equal(answers[0]!.headers['x-middleware'], 'ran');
    assert.deepEqual(JSON.parse(answers[11]!.body), { data: [1, 2] });
    assert.equal(answers[20]!.body, 'file bytes');
    assert.equal(answers[21]!.body, 'rendered with {"from":"nest"}');
    assert.match(answers[22]!.body, /data: \{"n":1\}/);
  });
  it('express-urlrewrite (req.url and req.query rewritten), express-slash, connect-slashes', async () => {
    const rewrite = require('express-urlrewrite');
    const slash = require('express-slash');
    const slashes = require('connect-slashes');
    const show = (req: Any, res: Any) =>
      res.json({ url: req.url, originalUrl: req.originalUrl, path: req.path, query: req.query, params: req.params });
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const app: Any = fw();
        app.enable('strict routing');
        app.use(rewrite('/old/:id', '/new/:id'));
        app.use(rewrite('/search/:term', '/find?q=:term&from=search'));
        app.use(rewrite(/^\/legacy\/(\w+)\.php$/, '/modern/$1'));
        app.get('/route/:name', rewrite('/target/:name?via=route'));
        app.get('/route/:name', (_req: Any, res: Any) => res.send('the next route with the same path'));
        app.get('/target/:name', show);
        app.get('/new/:id', show);
        app.get('/find', show);
        app.get('/modern/:page', show);
        const router = fw.Router({ strict: true });
        router.get('/list/', (_req: Any, res: Any) => res.send('list with a slash'));
        router.get('/item', (_req: Any, res: Any) => res.send('item without'));
        app.use('/shop', router);
        app.get('/about/', (_req: Any, res: Any) => res.send('about'));
        app.use(slash());
        const docs = fw();
        docs.use(slashes());
        docs.get('/guide/', (req: Any, res: Any) => res.send('guide at ' + req.originalUrl));
        app.use('/docs', docs);
        return app;
      },
      [
        // Its pattern is matched against req.url, query included: no rewrite, a 404.
        { path: '/old/7?keep=1' },
        { path: '/search/tea' },
        { path: '/legacy/index.php' },
        { path: '/route/ada' },
        { path: '/about' },
        { path: '/about?x=1' },
        // express-slash looks for route.methods.head, which a GET route does not set: a 404.
        { method: 'HEAD', path: '/about' },
        { method: 'POST', path: '/about' },
        { path: '/shop/list' },
        { path: '/shop/item/' },
        { path: '/shop/item' },
        { path: '/nothing' },
        { path: '/docs/guide' },
        { path: '/docs/guide?page=2' },
        { path: '/docs/guide/' },
        { path: '/docs//guide/' },
      ],
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [404, 200, 200, 200, 301, 301, 404, 404, 301, 301, 200, 404, 301, 301, 200, 200],
    );
    assert.deepEqual(JSON.parse(answers[1]!.body).query, { q: 'tea', from: 'search' });
    assert.equal(answers[5]!.headers.location, '/about/?x=1');
  });
  it('graphql-yoga at its endpoint: GET and POST, bad JSON, masked errors, with and without a parser', async () => {
    const { createYoga, createSchema } = require('graphql-yoga');
    const schema = createSchema({
      typeDefs:
        'type Query { hello(name: String): String! boom: String } type Mutation { add(a: Int!, b: Int!): Int! }',
      resolvers: {
        Query: {
          hello: (_: unknown, { name }: Any, ctx: Any) => 'hello ' + (name ?? ctx.req.get('x-user') ?? 'you'),
          boom: () => {
            throw new Error('kaput');
          },
        },
        Mutation: { add: (_: unknown, { a, b }: Any) => a + b },
      },
    });
    const post = (body: string): RequestSpec => ({ method: 'POST', path: '/graphql', headers: json, body });
    for (const parsedFirst of [false, true]) {
      const answers = await assertSameResponses(
        (fw: Framework) => {
          const app: Any = fw();
          if (parsedFirst) app.use(fw.json());
          const yoga = createYoga({ schema, graphiql: false, logging: false, maskedErrors: true });
          app.use(yoga.graphqlEndpoint, yoga);
          return app;
        },
        [
          {
            path: '/graphql?query=' + encodeURIComponent('{ hello }'),
            headers: { Accept: 'application/json', 'X-User': 'ada' },
          },
          post('{"query":"mutation { add(a: 1, b: 2) }"}'),
          post('{"query":"query Q($n: String) { hello(name: $n) }","variables":{"n":"vars"}}'),
          post('{"query":'),
          post('{"query":"{ boom }"}'),
          post('{"query":"{ nope }"}'),
          { path: '/graphql?query=' + encodeURIComponent('mutation { add(a: 1, b: 2) }') },
          { path: '/graphql/extra' },
          { path: '/other' },
        ],
        undefined,
        withoutStackFrames,
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 400, 200, 200, 405, 404, 404],
      );
      assert.equal(answers[0]!.body, '{"data":{"hello":"hello ada"}}');
    }
  });
});
