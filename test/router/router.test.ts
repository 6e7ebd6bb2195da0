import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import type http from 'node:http';
import { describe, it } from 'node:test';
import express from 'express';
import request from 'supertest';
import webapp = require('../../src/index');

type Req = http.IncomingMessage & Record<string, any>;
type Res = http.ServerResponse & Record<string, any>;
type Next = (err?: unknown) => void;

const send = (body: string) => (_req: Req, res: Res) => res.end(body);

describe('Router', () => {
  it('is callable with or without new, and a router is middleware', async () => {
    const a = webapp.Router();
    // Its type is a function, as in @types/express (no construct signature); `new` works at run time.
    const RouterConstructor = webapp.Router as unknown as new (options?: webapp.RouterOptions) => webapp.Router;
    const b = new RouterConstructor({ strict: true });
    assert.equal(typeof a, 'function');
    assert.equal(Object.getPrototypeOf(a), webapp.Router);
    assert.equal(b.strict, true);
    a.get('/x', send('from router'));
    const app = webapp();
    app.use(a);
    await request(app).get('/x').expect(200, 'from router');
  });

  it("exposes the stack, layer and route fields ecosystem code reads, shaped as Express's", () => {
    const build = (framework: typeof express) => {
      const app = framework();
      const router = framework.Router();
      router.get('/r/:id', send('r'));
      app.use(function named(_req, _res, next) {
        next();
      });
      app.use('/router', router);
      app.route('/book').get(send('g')).post(send('p'));
      return app;
    };
    const describeStack = (app: any) =>
      app._router.stack.map((layer: any) => ({
        name: layer.name,
        keys: layer.keys,
        regexp: String(layer.regexp),
        fast_slash: layer.regexp.fast_slash,
        fast_star: layer.regexp.fast_star,
        route: layer.route && {
          path: layer.route.path,
          methods: layer.route.methods,
          stack: layer.route.stack.map((l: any) => ({ method: l.method, name: l.name, regexp: String(l.regexp) })),
        },
        handleIsRouter: Array.isArray(layer.handle.stack),
        innerStack: layer.handle.stack?.map((l: any) => ({ name: l.name, keys: l.keys, route: l.route?.path })),
      }));
    assert.deepEqual(describeStack(build(webapp as unknown as typeof express)), describeStack(build(express)));
  });

  it('keeps the routing order when layers are added directly to router.stack or spliced', async () => {
    const app = webapp();
    for (let i = 0; i < 40; i++) app.get(`/r${i}/:id`, send(`route ${i}`));
    await request(app).get('/r39/1').expect(200, 'route 39');
    // An app can reach into its router's stack (some test helpers and plugins do).
    const stack = app._router!.stack;
    const last = stack.pop()!;
    await request(app).get('/r39/1').expect(404);
    stack.splice(2, 0, last);
    app.get('/r39/:id', send('later duplicate'));
    await request(app).get('/r39/1').expect(200, 'route 39');
  });

  it('routes through 1,000 parameterised routes to the right one, and to 404 after them', async () => {
    const app = webapp();
    for (let i = 0; i < 1000; i++) app.get(`/route${i}/:id`, (req: Req, res: Res) => res.end(`${i}:${req.params.id}`));
    app.use('/mw', send('middleware'));
    await request(app).get('/route999/abc').expect(200, '999:abc');
    await request(app).get('/ROUTE500/x').expect(200, '500:x');
    await request(app).get('/route0/0').expect(200, '0:0');
    await request(app).get('/mw/deep').expect(200, 'middleware');
    await request(app).get('/route1000/x').expect(404);
  });

  it('runs a layer added, and skips one removed, by a middleware during the request, as Express does', async () => {
    const build = (framework: typeof express) => {
      const app = framework();
      app.use((req, _res, next) => {
        if (req.url === '/late') app.get('/late', send('added during the request'));
        if (req.url === '/drop') app._router.stack.pop();
        next();
      });
      // Enough layers for the router's index, which must follow the stack as it changes.
      for (let i = 0; i < 30; i++) app.get(`/page${i}`, send(`page ${i}`));
      app.use((_req, _res, next) => next());
      app.get('/drop', send('removed before it was reached'));
      return app;
    };
    for (const framework of [express, webapp as unknown as typeof express]) {
      const app = build(framework);
      await request(app).get('/drop').expect(404);
      await request(app).get('/late').expect(200, 'added during the request');
      await request(app).get('/page7').expect(200, 'page 7');
    }
  });

  it('a router of 8 to 15 layers (indexed) runs the layers Express runs, in its order', async () => {
    const build = (framework: typeof express) => {
      const app = framework();
      const seen = (label: string) => (req: Req, _res: Res, next: Next) => {
        (req.seen ??= []).push(label);
        next();
      };
      app.use(seen('first'));
      app.get('/items/:id', seen('items-a'));
      app.get('/:any/:id', seen('param-first'));
      app.use('/items', seen('items-mount'));
      app.get(/^\/ITEMS\/\d+$/i, seen('regexp'));
      app.get('/users/:id', seen('users'));
      app.get('/items/:id', (req: Req, res: Res) => res.json({ id: req.params.id, seen: req.seen }));
      app.get('/Users/:id', (req: Req, res: Res) => res.json({ user: req.params.id, seen: req.seen }));
      return app;
    };
    const express4 = build(express);
    const ours = build(webapp as unknown as typeof express);
    for (const path of ['/items/7', '/ITEMS/8', '/users/9', '/USERS/10', '/other/1', '/items', '/']) {
      const expected = await request(express4).get(path);
      const actual = await request(ours).get(path);
      assert.equal(actual.status, expected.status, path);
      assert.equal(actual.text, expected.text, path);
    }
  });

  it('a router of 8 layers or more asks a replaced `match` for every path, as Express asks it', async () => {
    // The layer index files a layer under its pattern's first segment; a layer matched by
    // another function may match paths of any segment.
    const run = async (framework: typeof express, Layer: { prototype: { match(path: string): boolean } }) => {
      const app = framework();
      for (let i = 0; i < 10; i++) app.get('/o' + i, (_req: Req, res: Res) => res.send('o' + i));
      const answers: string[] = [];
      const get = async (path: string) => {
        const res = await request(app).get(path);
        answers.push(`${path} ${res.status} ${res.status === 200 ? res.text : ''}`);
      };
      await get('/o3');
      // One layer given its own match, after the first request built the index...
      const layer = (app as any)._router.stack.find((l: any) => l.route?.path === '/o5');
      const ownMatch = layer.match;
      layer.match = function (this: unknown, path: string) {
        return ownMatch.call(this, path.startsWith('/legacy/') ? '/o5' : path);
      };
      (app as any)._router.stack.push((app as any)._router.stack.pop()); // an edit: the index is rebuilt
      await get('/legacy/x');
      // ...and the prototype's replaced between requests (as an instrumentation does at load).
      const prototypeMatch = Layer.prototype.match;
      Layer.prototype.match = function (this: unknown, path: string) {
        return prototypeMatch.call(this, path.replace(/^\/v1(?=\/)/, ''));
      };
      try {
        await get('/v1/o3');
        await get('/v1/o9');
        await get('/o2');
        await get('/v2/o2');
      } finally {
        Layer.prototype.match = prototypeMatch;
      }
      await get('/v1/o3');
      return answers;
    };
    const expected = await run(express, require('express/lib/router/layer'));
    const actual = await run(webapp as unknown as typeof express, require('../../src/router/layer').Layer);
    assert.deepEqual(actual, expected);
    assert.deepEqual(expected, [
      '/o3 200 o3',
      '/legacy/x 200 o5',
      '/v1/o3 200 o3',
      '/v1/o9 200 o9',
      '/o2 200 o2',
      '/v2/o2 404 ',
      '/v1/o3 404 ',
    ]);
  });

  it('a chain of middleware only is scanned, and finds a route added after the first requests', async () => {
    const app = webapp();
    for (let i = 0; i < 12; i++) {
      app.use((req: Req, _res: Res, next: Next) => {
        req.count = (req.count ?? 0) + 1;
        next();
      });
    }
    app.use((req: Req, res: Res, next: Next) => (req.url === '/' ? res.end(`ran ${req.count}`) : next()));
    await request(app).get('/').expect(200, 'ran 12');
    // A layer swapped in place keeps the stack's length: the scan still finds it.
    const stack = app._router!.stack;
    app.get('/swapped', (req: Req, res: Res) => res.end(`swapped after ${req.count}`));
    stack[stack.length - 2] = stack.pop()!;
    await request(app).get('/swapped').expect(200, 'swapped after 12');
    await request(app).get('/').expect(404);
    // A route added makes the stack longer: the router looks at it again.
    app.get('/late', (req: Req, res: Res) => res.end(`late after ${req.count}`));
    await request(app).get('/late').expect(200, 'late after 12');
    await request(app).get('/swapped').expect(200, 'swapped after 12');
  });

  it('sees a rewritten req.url in later layers (index follows the current path)', async () => {
    const app = webapp();
    for (let i = 0; i < 30; i++) app.get(`/page${i}`, send(`page ${i}`));
    app.use((req: Req, _res: Res, next: Next) => {
      if (req.url === '/old') req.url = '/page3';
      next();
    });
    app.get('/page3', send('rewritten to page 3'));
    await request(app).get('/old').expect(200, 'rewritten to page 3');
  });

  it('does not overflow the call stack with thousands of synchronous middleware', async () => {
    const app = webapp();
    for (let i = 0; i < 5000; i++) app.use((_req: Req, _res: Res, next: Next) => next());
    const route = app.route('/deep');
    for (let i = 0; i < 5000; i++) route.get((_req: Req, _res: Res, next: Next) => next());
    route.get(send('survived'));
    await request(app).get('/deep').expect(200, 'survived');
  });

  it('does not overflow the stack in a router mounted in itself, as deep as the path goes, traced or not', async () => {
    // One level per path segment, in and out: Express 4 overflows the stack at about a
    // thousand (and answers 500); with a tracing subscriber, the overflow could land in
    // the subscriber, which Node rethrows as an uncaught exception.
    const tree = webapp.Router();
    tree.get('/leaf', (req: Req, res: Res) => res.end(`leaf under ${req.baseUrl.split('/').length - 2} levels`));
    tree.use('/:segment', tree);
    const app = webapp();
    app.use('/t', tree);
    const deep = '/t' + '/a'.repeat(3000);
    const answer = async () => {
      await request(app)
        .get(deep + '/leaf')
        .expect(200, 'leaf under 3000 levels');
      await request(app)
        .get(deep + '/none')
        .expect(404);
    };
    await answer();
    const seen: string[] = [];
    const record = (message: unknown) => seen.push(String((message as { route: string }).route).slice(0, 20));
    const handlers = { start: record, end: record, asyncStart: record, asyncEnd: record, error: record };
    const layers = diagnosticsChannel.tracingChannel('webapp:layer');
    layers.subscribe(handlers);
    try {
      await answer();
    } finally {
      layers.unsubscribe(handlers);
    }
    assert.ok(seen.length > 3000, `${seen.length} layer events`);
    await request(app).get('/t/a/leaf').expect(200, 'leaf under 1 levels');
  });

  it('router.param runs for use() layers with params, once per value, and is local', async () => {
    const router = webapp.Router();
    const seen: string[] = [];
    router.param('user', (req: Req, _res: Res, next: Next, id: string) => {
      seen.push(id);
      req.user = 'user-' + id;
      next();
    });
    router.use('/:user', (req: Req, _res: Res, next: Next) => {
      req.fromUse = req.user;
      next();
    });
    router.get('/:user', (req: Req, res: Res) => res.end(`${req.fromUse} ${req.user}`));
    const app = webapp();
    app.use('/r', router);
    app.get('/other/:user', (req: Req, res: Res) => res.end(String(req.user)));
    await request(app).get('/r/7').expect(200, 'user-7 user-7');
    assert.deepEqual(seen, ['7']);
    await request(app).get('/other/1').expect(200, 'undefined');
  });

  it('router.param takes no arrays (only app.param does): as in Express 4, such a callback never runs', async () => {
    const router = webapp.Router();
    let ran = false;
    router.param(['a', 'b'] as never, (_req: Req, _res: Res, next: Next) => {
      ran = true;
      next();
    });
    router.get('/:a/:b', send('ok'));
    await request(router as never)
      .get('/1/2')
      .expect(200, 'ok');
    assert.equal(ran, false);
  });

  it('an error in a param callback is replayed, not re-run, for later routes with the same value', async () => {
    const app = webapp();
    let calls = 0;
    app.param('id', (_req: Req, _res: Res, next: Next) => {
      calls++;
      next(new Error('bad id'));
    });
    app.get('/a/:id', send('never'));
    app.get('/a/:id', send('never'));
    app.use((err: Error, _req: Req, res: Res, _next: Next) => res.end(err.message + ' ' + calls));
    await request(app).get('/a/1').expect(200, 'bad id 1');
  });

  it('answers OPTIONS with the Allow header of matching routes, and leaves handled OPTIONS alone', async () => {
    const app = webapp();
    app.get('/items', send('list'));
    app.post('/items', send('created'));
    app.delete('/items/:id', send('deleted'));
    app.options('/custom', (_req: Req, res: Res) => {
      res.setHeader('Allow', 'NONE');
      res.end('custom');
    });
    const res = await request(app).options('/items').expect(200, 'GET,HEAD,POST');
    assert.equal(res.headers.allow, 'GET,HEAD,POST');
    await request(app).options('/custom').expect(200, 'custom').expect('Allow', 'NONE');
    await request(app).options('/nothing').expect(404);
  });
});
