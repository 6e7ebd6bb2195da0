/**
 * The router's less travelled paths, differential against express@4: param
 * callbacks on part of a route's parameters, param errors replayed to later layers,
 * RegExp mount paths that end inside a segment, `route.all()` and `router.all()`,
 * a route without handlers, and a router used on its own, without an app.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { describe, it } from 'node:test';
import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import webapp = require('../../src/index');
import { captureStderr, deprecationMessages } from '../support/capture-stderr';
import { assertSameResponses, type Framework, type RequestSpec } from '../support/differential';
import { hit } from '../support/trail';

/** Echoes what routing produced, so a difference in params, urls or order shows in the body. */
function echo(tag: string) {
  return (req: Request, res: Response) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ tag, params: req.params, url: req.url, baseUrl: req.baseUrl }));
  };
}

function production(framework: Framework) {
  const app = framework();
  app.set('env', 'production');
  return app;
}

const get = (path: string): RequestSpec => ({ path });

/** The `out` of a router used without an app: the error's class and message, or 404. */
function standaloneOut(res: http.ServerResponse) {
  return (err?: unknown) => {
    res.statusCode = err ? 500 : 404;
    res.end(err ? `${(err as Error).constructor.name}` : 'not handled');
  };
}

describe('router dispatch compatibility with express@4', () => {
  it("RegExp routes: the app's own expression, a global one's lastIndex carried between requests", async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.get(/^\/global/g, (_req: Request, res: Response) => res.send('global'));
        app.get(/^\/re(\d+)$/i, (req: Request, res: Response) => res.send('re ' + req.params[0]));
        return app;
      },
      ['/global', '/global', '/global', '/RE42', '/re7', '/re'].map((path) => ({ path })),
    );
  });

  it('param callbacks: keys without a callback, a missing optional value, a throw, replayed errors', async () => {
    await assertSameResponses((fw) => {
      const app = production(fw);
      app.param('a', (req: Request, res: Response, next: NextFunction, value: string) => {
        hit('param a=' + value)(req, res, next);
      });
      app.param('opt', (req: Request, res: Response, next: NextFunction, value: string) => {
        hit('param opt=' + value)(req, res, next);
      });
      app.param('boom', () => {
        throw Object.assign(new Error('thrown by a param callback'), { status: 418 });
      });
      app.param('fail', (_req: Request, _res: Response, next: NextFunction) =>
        next(Object.assign(new Error('param failed'), { status: 409 })),
      );
      // Only `a` has a callback: `b` is skipped.
      app.get('/ab/:a/:b', echo('ab'));
      // `opt` has a callback but no value when the segment is absent.
      app.get('/opt/:a/:opt?', echo('opt'));
      app.get('/boom/:boom', echo('never'));
      // The error of `fail` is replayed, not recomputed, to the error handlers that capture `fail`
      // again, with the same value or another (the word itself): as in Express, that skips them.
      app.get('/fail/:fail', echo('never'));
      app.use('/fail/:fail', (err: Error, req: Request, res: Response, _next: NextFunction) => {
        res.setHeader('x-error', err.message);
        echo('error handler')(req, res);
      });
      app.use('/:fail', (err: Error, req: Request, res: Response, _next: NextFunction) => {
        res.setHeader('x-error', err.message);
        echo('error handler, any value')(req, res);
      });
      return app;
    }, ['/ab/1/2', '/opt/1', '/opt/1/2', '/boom/x', '/fail/x'].map(get));
  });

  it('RegExp mount paths: a match ending inside a segment, or not at the start, is no mount', async () => {
    await assertSameResponses((fw) => {
      const app = production(fw);
      app.use(/\/ab/, hit('prefix /ab'));
      app.use(/b/, hit('b anywhere'));
      app.use((req: Request, res: Response) => echo('end')(req, res));
      return app;
    }, ['/ab', '/ab/c', '/ab.json', '/abc', '/xb', '/b'].map(get));
  });

  it('route.all() and router.all() run for every method, before and beside method handlers', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.route('/book').all(hit('all')).get(hit('get'), echo('book')).all(echo('fallback'));
        const router = fw.Router();
        router.all('/any', hit('router all'), echo('any'));
        app.use('/r', router);
        // A route without handlers: HEAD still enters it, and it passes the request on.
        app.route('/empty');
        app.use(hit('after'), echo('end'));
        return app;
      },
      [
        get('/book'),
        { method: 'POST', path: '/book' },
        { method: 'OPTIONS', path: '/book' },
        { method: 'DELETE', path: '/r/any' },
        get('/r/any'),
        { method: 'HEAD', path: '/empty' },
        get('/empty'),
      ],
    );
  });

  it('a route counts layers of other methods it passes as steps, going on later past 100, as Express', async () => {
    await assertSameResponses(
      (framework) => {
        const app = framework();
        const pass = (_req: Request, _res: Response, next: NextFunction) => next();
        // Code after next() returns sees whether the rest ran on this tick or a later one.
        app.use((_req, res, next) => {
          next();
          if (!res.headersSent) res.setHeader('X-After-Next', 'set');
        });
        // app.all makes a layer per method: an error crosses 35 x 3 of them.
        app.all(
          '/x',
          (_req, _res, next) => next(new Error('denied')),
          pass,
          (_req, res) => res.send('ok'),
        );
        app.all('/y', pass, pass, pass, pass);
        const z = app.route('/z');
        for (let i = 0; i < 101; i++) z.post(pass);
        z.get((_req, res) => res.send('z'));
        // Short of the limit: the same tick on both.
        const w = app.route('/w');
        for (let i = 0; i < 50; i++) w.post(pass);
        w.get((_req, res) => res.send('w'));
        app.use((_req, res) => res.send('fallthrough'));
        app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => res.status(403).send(err.message));
        return app as unknown as http.RequestListener;
      },
      [{ path: '/x' }, { path: '/y' }, { path: '/z' }, { path: '/w' }, { path: '/x', method: 'POST' }],
    );
  });

  it('rejects what is not a handler, with the same errors', () => {
    for (const fw of [express, webapp as unknown as Framework]) {
      const router = fw.Router();
      assert.throws(() => router.use('/x'), {
        name: 'TypeError',
        message: 'Router.use() requires a middleware function',
      });
      assert.throws(() => router.use('/x', {} as never), {
        name: 'TypeError',
        message: 'Router.use() requires a middleware function but got a Object',
      });
      assert.throws(() => router.use('/x', null as never), {
        name: 'TypeError',
        message: 'Router.use() requires a middleware function but got a Null',
      });
      assert.throws(() => router.route('/r').all('handler' as never), {
        name: 'TypeError',
        message: 'Route.all() requires a callback function but got a [object String]',
      });
    }
  });

  it("a stack layer's match(), which ecosystem code calls, answers as Express's, a missing path included", () => {
    const describeMatches = (fw: Framework) => {
      const app = fw();
      app.use('/mount', hit('m'));
      app.get('/x/:id', echo('x'));
      app.use(hit('all'));
      const stack = (app as unknown as { _router: { stack: Array<Record<string, any>> } })._router.stack;
      return stack.map((layer) =>
        [undefined, null, '/x/1', '/mount/deep', '/other'].map((path) => ({
          matched: layer.match(path),
          params: layer.params,
          path: layer.path,
        })),
      );
    };
    assert.deepEqual(describeMatches(webapp as unknown as Framework), describeMatches(express));
  });

  it("router.param(':name', fn): the deprecated colon form registers `name`, with Express's notice", async () => {
    const notices: string[] = [];
    await assertSameResponses((fw) => {
      const router = fw.Router();
      const lines = captureStderr(() =>
        router.param(':id', (req: Request, res: Response, next: NextFunction, value: string) => {
          hit('param id=' + value)(req, res, next);
        }),
      );
      if (fw !== express) notices.push(...deprecationMessages(lines));
      router.get('/u/:id', echo('user'));
      const app = production(fw);
      app.use(router);
      return app;
    }, ['/u/1'].map(get));
    assert.deepEqual(notices, ['router.param(":id", fn): Use router.param("id", fn) instead']);
  });

  it('a router without an app: mergeParams with no parent params, and OPTIONS it cannot answer', async () => {
    await assertSameResponses(
      (fw) => {
        const router = fw.Router({ mergeParams: true });
        router.get('/p/:id', echo('merged'));
        router.post('/form', echo('post'));
        // Without an app, `res.set`/`res.send` are missing: the OPTIONS answer fails into `out`.
        return (req, res) => router(req as Request, res as Response, standaloneOut(res));
      },
      [get('/p/1'), { method: 'OPTIONS', path: '/form' }, get('/nothing')],
    );
  });

  it('answers OPTIONS only for a request that entered the router as OPTIONS (method-override)', async () => {
    // Express collects the methods of matching routes whenever the method is OPTIONS,
    // and answers with them only if it was OPTIONS when the router was entered: a POST
    // turned into OPTIONS goes on to the 404 (or the app's own handler).
    await assertSameResponses(
      (fw) => {
        const app = fw();
        const methodOverride = (req: Request, _res: Response, next: NextFunction) => {
          const wanted = req.get('X-HTTP-Method-Override');
          if (wanted) req.method = wanted;
          next();
        };
        app.use('/x', methodOverride);
        app.get('/x', echo('get x'));
        app.put('/x', echo('put x'));
        const router = fw.Router();
        router.use(methodOverride);
        router.get('/y', echo('get y'));
        router.get('/z', (req: Request, _res: Response, next: NextFunction) => {
          req.method = 'GET';
          next();
        });
        router.put('/z', echo('put z'));
        app.use('/r', router);
        app.use('/r', (req: Request, res: Response) => res.status(404).send(`own 404 ${req.method}`));
        return app;
      },
      [
        { method: 'POST', path: '/x', headers: { 'X-HTTP-Method-Override': 'OPTIONS' } },
        { method: 'GET', path: '/r/y', headers: { 'X-HTTP-Method-Override': 'OPTIONS' } },
        { method: 'OPTIONS', path: '/x' },
        { method: 'OPTIONS', path: '/r/y' },
        // Entered as OPTIONS, turned into GET by a route of the router: the methods
        // gathered before the change are the answer.
        { method: 'OPTIONS', path: '/r/z' },
        { method: 'OPTIONS', path: '/x', headers: { 'X-HTTP-Method-Override': 'DELETE' } },
      ],
    );
  });

  it('the automatic OPTIONS answer is sent with the request as the walk left it, not restored', async () => {
    // A res.send wrapper (a logger) reading req.params threw on webapp's restored undefined.
    await assertSameResponses(
      (fw) => {
        const app = fw();
        app.use((req: Request, res: Response, next: NextFunction) => {
          const send = res.send;
          res.send = function (this: Response, body?: unknown) {
            this.set('X-Seen', JSON.stringify({ params: Object.keys(req.params), baseUrl: req.baseUrl }));
            return send.call(this, body);
          } as Response['send'];
          next();
        });
        app.get('/items/:id', echo('item'));
        const router = fw.Router();
        router.use('/:x', (_req: Request, _res: Response, next: NextFunction) => next());
        router.get('/:x/leaf', echo('leaf'));
        app.use('/u', router);
        return app;
      },
      [
        { method: 'OPTIONS', path: '/items/1' },
        { method: 'OPTIONS', path: '/u/1/leaf' },
      ],
    );
  });

  it('a req.url set to what is not a string primitive ends routing, as parseurl refuses it', async () => {
    const values: Record<string, () => unknown> = {
      boxed: () => new String('/x'),
      number: () => 42,
      url: () => new URL('http://localhost/x'),
      array: () => ['/x'],
    };
    await assertSameResponses(
      (fw) => {
        const app = fw();
        app.use((req: Request, _res: Response, next: NextFunction) => {
          (req as { url: unknown }).url = values[req.get('X-Kind')!]!();
          next();
        });
        app.get('/x', echo('routed to /x'));
        app.use(echo('end'));
        return app;
      },
      Object.keys(values).map((kind) => ({ path: '/start', headers: { 'X-Kind': kind } })),
    );
  });

  it('OPTIONS * and absolute-form targets through a large (indexed) router', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        for (let i = 0; i < 20; i++) app.get(`/r${i}`, echo(`r${i}`));
        app.options('*', echo('star'));
        app.use(echo('end'));
        return app;
      },
      [{ method: 'OPTIONS', path: '*' }, get('/r19'), get('http://example.com/r3'), get('/none')],
    );
  });
});
