/**
 * webapp/v3 routing and application behaviour, differential against express@3.21.2.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertSameResponses, withoutStackFrames, type RequestSpec } from '../support/differential';
import { express3, express3Pair as pair } from '../support/legacy-oracles';
import webapp3 = require('../../src/v3/index');
import { hit } from '../support/trail';
import { withNamespacedDelete } from '../support/namespaced-delete';

type Any = any;

function echo(tag: string) {
  return (req: Any, res: Any) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(
      JSON.stringify({
        tag,
        params: { ...req.params },
        numbered: Array.from(req.params),
        isArray: Array.isArray(req.params),
        url: req.url,
        originalUrl: req.originalUrl,
        route: req.route && { path: String(req.route.path), method: req.route.method, keys: req.route.keys },
      }),
    );
  };
}
const get = (path: string): RequestSpec => ({ path });
const define = (build: (framework: Any) => Any) => (framework: Any) => {
  const app = framework();
  build.call(null, framework)(app);
  return app;
};

describe('webapp/v3 routing compatibility with express@3', () => {
  it('3.x path syntax, params as an array with named properties', async () => {
    await assertSameResponses(
      define(() => (app: Any) => {
        app.get('/users/:id', echo('user'));
        app.get('/opt/:a/:b?', echo('opt'));
        app.get('/files/*', echo('files'));
        app.get('/fmt/:name.:ext', echo('fmt'));
        app.get('/star/:path*', echo('star'));
        app.get('/num/:n(\\d+)', echo('num'));
        app.get('/trail/', echo('trail'));
        app.get(/^\/re\/(\w+)$/, echo('regexp'));
        app.get(['/a1', '/a2/:x'], echo('array'));
      }),
      [
        '/users/42',
        '/users/42/',
        '/USERS/4%202',
        '/opt/1',
        '/opt/1/2',
        '/files/a/b.txt',
        '/fmt/r.pdf',
        '/star/a/b/c',
        '/star/a',
        '/num/5',
        '/num/x',
        '/trail/',
        '/trail',
        '/re/word',
        '/a1',
        '/a2/7',
        '/users/%E0%A4%A',
        '/missing',
      ].map(get),
      pair,
      withoutStackFrames,
    );
  });

  it('app.router placement, implicit mounting by the first route, middleware order', async () => {
    await assertSameResponses(
      define(() => (app: Any) => {
        app.use(hit('before'));
        app.use(app.router);
        app.use(hit('after'));
        app.get('/r', hit('route'), (_req: Any, _res: Any, next: Any) => next());
        app.use((_req: Any, res: Any) => res.end('end of stack'));
      }),
      ['/r', '/other'].map(get),
      pair,
      withoutStackFrames,
    );
    await assertSameResponses(
      define(() => (app: Any) => {
        app.use(hit('first'));
        app.get('/x', hit('route'), (_req: Any, res: Any) => res.end('x'));
        app.use(hit('late-middleware'));
        app.use((_req: Any, res: Any) => res.end('fallback'));
      }),
      ['/x', '/y'].map(get),
      pair,
      withoutStackFrames,
    );
  });

  it('next("route"), errors in routes and error middleware by arity', async () => {
    await assertSameResponses(
      define(() => (app: Any) => {
        app.get('/n', hit('a'), (_req: Any, _res: Any, next: Any) => next('route'), hit('never'));
        app.get('/n', hit('b'), (_req: Any, res: Any) => res.end('second'));
        app.get('/e', () => {
          throw Object.assign(new Error('x'), { status: 418 });
        });
        app.get('/h', (_req: Any, _res: Any, next: Any) => next(new Error('handled')));
        app.use((err: Any, _req: Any, res: Any, _next: Any) => {
          if (err.message !== 'handled') return _next(err);
          res.statusCode = 555;
          res.end('caught ' + err.message);
        });
      }),
      ['/n', '/e', '/h', '/nothing'].map(get),
      pair,
      withoutStackFrames,
    );
  });

  it('app.param callbacks, arrays of names and the function form', async () => {
    await assertSameResponses(
      define(() => (app: Any) => {
        app.param('id', (req: Any, _res: Any, next: Any, id: string) => {
          req.params.id = 'loaded-' + id;
          next();
        });
        app.param(['a', 'b'], hit('ab'));
        app.param((name: string, fn: unknown) => {
          if (fn instanceof RegExp) {
            return (_req: Any, _res: Any, next: Any, value: string) => (fn.test(value) ? next() : next('route'));
          }
          return undefined;
        });
        app.param('num', /^\d+$/);
        app.get('/p/:id', echo('p'));
        app.get('/ab/:a/:b', echo('ab'));
        app.get('/num/:num', echo('num'));
        app.get('/num/*', echo('not-num'));
      }),
      ['/p/1', '/ab/1/2', '/num/12', '/num/zz'].map(get),
      pair,
      withoutStackFrames,
    );
  });

  it('mounting with app.use(path): prefix stripped, continues with "/" or ".", sub-apps', async () => {
    await assertSameResponses(
      define((fw) => (app: Any) => {
        const sub = fw();
        sub.get('/', echo('sub-root'));
        sub.get('/page', echo('sub-page'));
        app.use('/blog', sub);
        app.use('/static/', (req: Any, res: Any) => res.end('static ' + req.url + ' ' + req.originalUrl));
        app.use('/file', (req: Any, res: Any) => res.end('file ' + req.url));
      }),
      [
        '/blog',
        '/blog/',
        '/blog/page',
        '/BLOG/page',
        '/static/a.css',
        '/static',
        '/file.json',
        '/filex',
        '/file/x?y=1',
      ].map(get),
      pair,
      withoutStackFrames,
    );
  });

  it('a rewritten req.url whose parsed cache the app cleared (null) is parsed again', async () => {
    // webapp/v3 read `null._raw` and answered 500 where express@3 routes the new URL.
    await assertSameResponses(
      define(() => (app: Any) => {
        app.use((req: Any, _res: Any, next: Any) => {
          if (req.url.startsWith('/old/')) {
            req.url = req.url.replace('/old/', '/new/');
            req._parsedUrl = null;
          }
          next();
        });
        app.use('/new/mounted', (req: Any, res: Any) => res.end('mounted ' + req.url));
        app.get('/new/:id', echo('rewritten'));
      }),
      ['/old/42', '/old/42?x=1', '/old/mounted/a?b=2'].map(get),
      pair,
      withoutStackFrames,
    );
  });

  it('router.match(method, url, i), matchRequest(req, i): search starts at i; app.all is every verb', async () => {
    const describeRoute = (route: Any) => (route ? [route.method, String(route.path), { ...route.params }] : 'none');
    await assertSameResponses(
      define(() => (app: Any) => {
        const pass = (_req: Any, _res: Any, next: Any) => next();
        app.get('/user/:id', pass);
        app.all('/user/:id', pass);
        app.get('/user/*', pass);
        app.post('/other', pass);
        app.use((req: Any, res: Any) => {
          const router = app._router;
          const starts = [undefined, 0, 1, 2, 3, '1', null, false, Number.NaN, ''];
          const url = '/user/12?q=1';
          const found: Record<string, unknown> = {};
          for (const method of ['get', 'GET', 'head', 'post', 'put', 'delete', 'options', 'propfind', 'nosuch']) {
            found[method] = starts.map((start) => describeRoute(router.match(method, url, start)));
          }
          found.request = starts.map((start) => {
            const probe = { method: req.method, url: req.url } as Any;
            return [describeRoute(router.matchRequest(probe, start)), probe._route_index ?? 'unset'];
          });
          res.setHeader('Content-Type', 'application/json');
          res.end(JSON.stringify(found));
        });
      }),
      [get('/x'), { method: 'PUT', path: '/user/7' }, { method: 'HEAD', path: '/user/7' }],
      pair,
    );
  });

  it('HEAD falls back to GET routes; the 404 and error pages', async () => {
    await assertSameResponses(
      define(() => (app: Any) => {
        app.get('/g', (req: Any, res: Any) => res.end('get ' + req.method));
        app.get('/boom', () => {
          throw new Error('boom');
        });
      }),
      [
        { method: 'HEAD', path: '/g' },
        get('/g'),
        get('/boom'),
        get('/<b>nope</b>'),
        { method: 'POST', path: '/g', body: 'x' },
      ],
      pair,
      withoutStackFrames,
    );
  });
});

describe('webapp/v3 application API', () => {
  it('app.routes exposes routes by verb with path, method, callbacks, keys, regexp', () => {
    for (const framework of [express3, webapp3]) {
      const app = framework();
      const handler = () => undefined;
      app.get('/users/:id', handler);
      app.post('/users', handler);
      const route = app.routes.get[0];
      assert.equal(route.path, '/users/:id');
      assert.equal(route.method, 'get');
      assert.deepEqual(route.callbacks, [handler]);
      assert.deepEqual(route.keys, [{ name: 'id', optional: false }]);
      assert.ok(route.regexp instanceof RegExp);
      assert.equal(app.routes.post[0].path, '/users');
    }
  });

  it('configure runs for the matching env or always; settings defaults as 3.x', () => {
    const saved = process.env.RUNTIME_ENV;
    process.env.RUNTIME_ENV = 'development';
    try {
      const app = webapp3();
      const ran: string[] = [];
      app.configure(() => ran.push('all'));
      app.configure('production', () => ran.push('production'));
      app.configure('development', 'test', function (this: Any) {
        ran.push('development ' + (this === app));
      });
      assert.deepEqual(ran, ['all', 'development true']);
      assert.equal(app.get('json spaces'), 2);
      assert.equal(app.get('env'), 'development');
      assert.equal(app.get('jsonp callback name'), 'callback');
      assert.equal(app.get('trust proxy'), false);
      assert.equal(app.get('views'), process.cwd() + '/views');
    } finally {
      if (saved === undefined) delete process.env.RUNTIME_ENV;
      else process.env.RUNTIME_ENV = saved;
    }
  });

  it('app.locals is callable and merges, exposing only settings by default', () => {
    const app = webapp3();
    assert.equal(typeof app.locals, 'function');
    assert.deepEqual(Object.keys(app.locals), ['settings']);
    app.locals({ title: 'T', n: 1 });
    assert.equal(app.locals.title, 'T');
    assert.equal(app.locals.n, 1);
  });

  it('app.locals and res.locals skip keys their function cannot take (name, length), as 3.x did', async () => {
    const values = { title: 'T', name: 'My site', length: 3, site: 'S' };
    const locals = (framework: Any) => {
      const app = framework();
      app.locals(values);
      return { keys: Object.keys(app.locals), name: app.locals.name, length: app.locals.length, site: app.locals.site };
    };
    assert.deepEqual(locals(webapp3), locals(express3));
    assert.equal(locals(webapp3).site, 'S', 'the keys after name are set');
    await assertSameResponses(
      (framework: Any) => {
        const app = framework();
        app.get('/', (_req: Any, res: Any) => {
          res.locals({ name: 'x', user: 'ada' });
          res.send(res.locals.user + ' ' + typeof res.locals.name);
        });
        return app;
      },
      [{ path: '/' }],
      pair,
    );
  });

  it('mount event, app.path() and app.route as the mount path', () => {
    const parent = webapp3();
    const child = webapp3();
    let seen: unknown;
    child.on('mount', (p: unknown) => (seen = p));
    parent.use('/admin', child);
    assert.equal(seen, parent);
    assert.equal(child.route, '/admin');
    assert.equal(child.path(), '/admin');
  });

  it('app.del calls delete as first defined: a plugin wrapping both del and delete runs once', async () => {
    const responses = await assertSameResponses(
      (framework: Any) =>
        withNamespacedDelete(framework, (fw) => {
          const app: Any = fw();
          app.del('/old/:id', (req: Any, res: Any) => res.send('del ' + req.params.id));
          app.delete('/new/:id', (req: Any, res: Any) => res.send('delete ' + req.params.id));
          app.get('/routes', (_req: Any, res: Any) => res.send(app.routes.delete.map((r: Any) => r.path)));
          return app;
        }),
      [
        { method: 'DELETE', path: '/ns/old/1' },
        { method: 'DELETE', path: '/ns/ns/old/1' },
        { method: 'DELETE', path: '/ns/new/2' },
        { path: '/routes' },
      ],
      pair,
    );
    assert.equal(responses[0]!.body, 'del 1');
    assert.deepEqual(JSON.parse(responses[3]!.body), ['/ns/old/:id', '/ns/new/:id']);
  });
});
