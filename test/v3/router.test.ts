/**
 * The 3.x router's own paths, differential against express@3.21.2: the implied
 * OPTIONS answer, param callbacks that throw, fail or skip the route, a route's
 * error-handling callbacks, a Router made on its own, and the registration errors.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertSameResponses, withoutStackFrames, type RequestSpec } from '../support/differential';
import { express3, express3Pair as pair } from '../support/legacy-oracles';
import webapp3 = require('../../src/v3/index');
import { hit } from '../support/trail';

type Any = any;

function echo(tag: string) {
  return (req: Any, res: Any) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ tag, params: { ...req.params }, url: req.url }));
  };
}
const get = (path: string): RequestSpec => ({ path });

describe('webapp/v3 router compatibility with express@3', () => {
  it('app.router is a function named router, found in app.stack by name as 3.x code finds it', () => {
    // No HTTP: the names only, so it runs on every Node line (Express 3 loads everywhere).
    const names = (framework: Any) => {
      const app = framework();
      app.use(framework.favicon());
      app.use(app.router);
      return { router: app.router.name, stack: app.stack.map((layer: Any) => layer.handle.name) };
    };
    assert.deepEqual(names(webapp3), names(express3));
    assert.equal(names(webapp3).router, 'router');
  });

  it("Route and Router carry Express 3's names", () => {
    const names = (framework: Any) => {
      const router = new framework.Router();
      router.route('get', '/x', () => undefined);
      return [framework.Route.name, framework.Router.name, router.map.get[0].constructor.name];
    };
    assert.deepEqual(names(webapp3), names(express3));
    assert.deepEqual(names(webapp3), ['Route', 'Router', 'Route']);
  });

  it('new Route(method, path, callbacks) without options matches as 3.x does', () => {
    // The options argument is optional in 3.x (`options || {}`); without it, the route threw a TypeError.
    const matches = (framework: any) =>
      [undefined, null, { sensitive: true }].map((options) => {
        const route = new framework.Route('get', '/Users/:id', [() => {}], options);
        return [route.match('/Users/7'), route.match('/users/7'), { ...route.params }, route.keys.length];
      });
    assert.deepEqual(matches(webapp3), matches(express3));
    assert.deepEqual(matches(webapp3)[0], [true, true, { id: '7' }, 1]);
  });

  it('OPTIONS no route takes: 200 with the verbs of the routes on the path, else on to the next layer', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.get('/x', echo('get x'));
        app.post('/x', echo('post x'));
        app.put('/items/:id', echo('put item'));
        app.options('/own', echo('own options'));
        return app;
      },
      ['/x', '/items/3', '/own', '/nothing'].map((path) => ({ method: 'OPTIONS', path })),
      pair,
    );
  });

  it('param callbacks: a throw, an error for the route to handle, next("route")', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.param('boom', () => {
          throw new Error('thrown by a param callback');
        });
        app.param('bad', (_req: Any, _res: Any, next: Any) => next(new Error('bad value')));
        app.param('skip', (_req: Any, _res: Any, next: Any) => next('route'));
        app.get('/boom/:boom', echo('never'));
        app.get('/bad/:bad', hit('request handler, skipped'), (err: Error, req: Any, res: Any, _next: Any) => {
          res.setHeader('x-error', err.message);
          echo('route error handler')(req, res);
        });
        app.param(':colon', (req: Any, _res: Any, next: Any, value: string) => {
          req.params.colon = 'loaded ' + value;
          next();
        });
        app.get('/colon/:colon', echo('colon form'));
        app.get('/skip/:skip', echo('never'));
        app.get('/skip/*', echo('next route'));
        return app;
      },
      ['/boom/1', '/bad/1', '/skip/1', '/colon/7'].map(get),
      pair,
      withoutStackFrames,
    );
  });

  it('a Router made on its own, mounted by its middleware; router.all() for every verb', async () => {
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        const router = new framework.Router();
        router.all('/any', hit('all'), echo('any'));
        router.get('/only-get', echo('get'));
        app.use(router.middleware);
        return app;
      },
      [get('/any'), { method: 'DELETE', path: '/any' }, { method: 'POST', path: '/only-get' }, get('/only-get')],
      pair,
    );
  });

  it('an app made in production caches views and indents no JSON, as 3.x', () => {
    const saved = { node: process.env.NODE_ENV, runtime: process.env.RUNTIME_ENV };
    // 3.x reads NODE_ENV; webapp reads RUNTIME_ENV first, then NODE_ENV.
    process.env.NODE_ENV = 'production';
    delete process.env.RUNTIME_ENV;
    try {
      const describeApp = (app: Any) => ({
        env: app.get('env'),
        viewCache: app.enabled('view cache'),
        jsonSpaces: app.get('json spaces') ?? 'unset',
      });
      assert.deepEqual(describeApp(webapp3()), describeApp(express3()));
      assert.equal(describeApp(webapp3()).viewCache, true);
    } finally {
      if (saved.node === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = saved.node;
      if (saved.runtime !== undefined) process.env.RUNTIME_ENV = saved.runtime;
    }
  });

  it('rejects a route without a path or with a callback that is not a function, with the same errors', () => {
    for (const framework of [express3, webapp3] as Any[]) {
      const app = framework();
      assert.throws(() => app.get('', echo('x')), { message: 'Router#get() requires a path' });
      assert.throws(() => app.post('/x', 'handler'), {
        message: '.post() requires callback functions but got a [object String]',
      });
      assert.throws(() => app.param('id', 'not a function'), {
        message: 'invalid param() call for id, got not a function',
      });
    }
  });
});
