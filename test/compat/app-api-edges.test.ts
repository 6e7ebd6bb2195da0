/**
 * Less travelled corners of the app API, differential against express@4: request
 * accessors that read headers through a replaced `req.get`, `next('route')` from a
 * param callback as seen by the app's callback, `'query parser fn'` set to qs
 * options by hand, `app.del` under a plugin that wraps `del` and `delete`, and the
 * names and declared lengths of the routing methods, and each app's own `mount` listener.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { describe, it } from 'node:test';
import { assertSameResponses } from '../support/differential';
import { withNamespacedDelete } from '../support/namespaced-delete';
import webapp = require('../../src/index');

type Any = any;

describe('app API corners, as express@4', () => {
  it('req.hostname, protocol, secure, subdomains and xhr read their headers through a replaced req.get', async () => {
    await assertSameResponses(
      (framework) => {
        const app: Any = framework();
        app.set('trust proxy', true);
        const get = app.request.get;
        // A tenant rewrite: every request is answered as if it came for tenant.example.com over HTTPS.
        app.request.get = function (this: unknown, name: string) {
          const lower = name.toLowerCase();
          if (lower === 'host' || lower === 'x-forwarded-host') return 'tenant.example.com';
          if (lower === 'x-forwarded-proto') return 'https';
          if (lower === 'x-requested-with') return 'XMLHttpRequest';
          return get.call(this, name);
        };
        app.get('/', (req: Any, res: Any) =>
          res.json({
            hostname: req.hostname,
            protocol: req.protocol,
            secure: req.secure,
            subdomains: req.subdomains,
            xhr: req.xhr,
          }),
        );
        return app;
      },
      [{ path: '/' }, { path: '/', headers: { 'X-Forwarded-Proto': 'http', Host: 'other.test' } }],
    ).then(([first]) => assert.match(first!.body, /"hostname":"tenant\.example\.com","protocol":"https"/));
  });

  it("next('route') from a param callback leaves the app with null when nothing else matches", async () => {
    const responses = await assertSameResponses(
      (framework) => {
        const app: Any = framework();
        app.param('id', (_req: Any, _res: Any, next: Any) => next('route'));
        app.get('/u/:id', (_req: Any, res: Any) => res.send('never'));
        app.get('/v/:id', (_req: Any, res: Any) => res.send('never'));
        app.get('/v/:other', (_req: Any, res: Any) => res.send('the next route'));
        return ((req: http.IncomingMessage, res: http.ServerResponse) =>
          app.handle(req, res, (err: unknown) =>
            res.end(`left the app with ${err === null ? 'null' : String(err)}`),
          )) as Any;
      },
      [{ path: '/u/1' }, { path: '/v/1' }],
    );
    assert.equal(responses[0]!.body, 'left the app with null');
    assert.equal(responses[1]!.body, 'the next route');
  });

  it("'query parser fn' set to qs options the parser lacks throws, where it would parse otherwise", async () => {
    const app: Any = webapp();
    app.set('query parser fn', { allowDots: true, comma: true });
    assert.throws(
      () => app.get('/', () => undefined),
      /app\.set\('query parser fn'\): the qs option allowDots \(true\) is not supported/,
    );
    // Options it implements parse as Express's qs does.
    await assertSameResponses(
      (framework) => {
        const implemented: Any = framework();
        implemented.set('query parser fn', { depth: 1, arrayLimit: 2 });
        implemented.get('/', (req: Any, res: Any) => res.json(req.query));
        return implemented;
      },
      [{ path: '/?a[b][c][d]=1&e[3]=x&e[1]=y' }],
    );
  });

  it('app.del calls delete as first defined: a plugin wrapping both del and delete runs once', async () => {
    await assertSameResponses(
      (framework) =>
        withNamespacedDelete(framework, (fw) => {
          const app: Any = fw();
          app.del('/old/:id', (req: Any, res: Any) => res.send('del ' + req.params.id));
          app.delete('/new/:id', (req: Any, res: Any) => res.send('delete ' + req.params.id));
          return app;
        }),
      [
        { method: 'DELETE', path: '/ns/old/1' },
        { method: 'DELETE', path: '/ns/ns/old/1' },
        { method: 'DELETE', path: '/ns/new/2' },
      ],
    ).then(([del, twice]) => {
      assert.equal(del!.body, 'del 1');
      assert.equal(twice!.status, 404);
    });
  });

  it('the routing methods have the names and declared lengths of express@4 (anonymous HTTP methods)', async () => {
    const members = {
      app: ['use', 'param', 'route', 'get', 'post', 'delete', 'del', 'all'],
      router: ['use', 'param', 'route', 'get', 'post', 'delete', 'all'],
      route: ['get', 'post', 'delete', 'all'],
    };
    await assertSameResponses(
      (framework) => {
        const app: Any = framework();
        const shapes = (target: Any, names: string[]) =>
          names.map((name) => `${name}:${target[name].name}/${target[name].length}`).join(' ');
        app.get('/', (req: Any, res: Any) => {
          const router: Any = framework.Router();
          res.json({
            app: shapes(req.app, members.app),
            router: shapes(router, members.router),
            route: shapes(router.route('/x'), members.route),
          });
        });
        return app;
      },
      [{ path: '/' }],
    ).then(([answer]) =>
      assert.deepEqual(JSON.parse(answer!.body), {
        app: 'use:use/1 param:param/2 route:route/1 get:/1 post:/1 delete:/1 del:/1 all:all/1',
        router: 'use:use/1 param:param/2 route:route/1 get:/1 post:/1 delete:/1 all:/1',
        route: 'get:/0 post:/0 delete:/0 all:all/0',
      }),
    );
  });

  it("each app has its own mount listener: removing another app's from it leaves inheritance in place", async () => {
    await assertSameResponses(
      (framework) => {
        const parent: Any = framework();
        const sub: Any = framework();
        const other: Any = framework();
        parent.set('inherited', 'from the parent');
        sub.removeListener('mount', other.listeners('mount')[0]);
        sub.get('/', (req: Any, res: Any) =>
          res.json({
            listeners: sub.listeners('mount').map((listener: Any) => listener.name),
            shared: sub.listeners('mount')[0] === other.listeners('mount')[0],
            inherited: req.app.get('inherited') ?? null,
          }),
        );
        parent.use('/sub', sub);
        return parent;
      },
      [{ path: '/sub' }],
    ).then(([answer]) =>
      assert.deepEqual(JSON.parse(answer!.body), {
        listeners: ['onmount'],
        shared: false,
        inherited: 'from the parent',
      }),
    );
  });
});
