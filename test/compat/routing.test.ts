/**
 * Routing, mounting, params and error paths: the same apps on express@4 and webapp
 * must answer the same requests identically (status, headers, body).
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import type { NextFunction, Request, Response } from 'express';
import { assertSameResponses, frameworks, withServer, type Framework, type RequestSpec } from '../support/differential';
import { hit } from '../support/trail';

/** Echoes what routing produced, so any difference in params, urls or order shows in the body. */
function echo(tag: string) {
  return (req: Request, res: Response) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(
      JSON.stringify({
        tag,
        params: req.params,
        url: req.url,
        baseUrl: req.baseUrl,
        originalUrl: req.originalUrl,
        path: req.route?.path ?? null,
      }),
    );
  };
}

/** Errors are compared in production mode: the page then shows the status phrase, not a stack. */
function production(framework: Framework) {
  const app = framework();
  app.set('env', 'production');
  return app;
}

const get = (path: string, headers?: Record<string, string>): RequestSpec => ({ path, headers });

describe('routing compatibility with express@4', () => {
  it('path syntax: params, optional params, wildcards, regex groups, RegExp and arrays', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.get('/users/:id', echo('user'));
        app.get('/files/*', echo('files'));
        app.get('/opt/:a/:b?', echo('opt'));
        app.get('/fmt/:name.:ext', echo('fmt'));
        app.get('/range/:from-:to', echo('range'));
        app.get('/num/:n(\\d+)', echo('num'));
        app.get('/ab?cd', echo('abcd'));
        app.get('/plus+', echo('plus'));
        app.get(/^\/re\/(\w+)$/, echo('regexp'));
        app.get(['/arr/one', '/arr/:two'], echo('array'));
        app.get('/named/(\\d+)/:x', echo('unnamed-group'));
        return app;
      },
      [
        '/users/42',
        '/users/42/',
        '/USERS/42',
        '/users/a%20b',
        '/users/%E2%82%AC',
        '/users/',
        '/files/a/b/c.txt',
        '/files/',
        '/opt/1',
        '/opt/1/2',
        '/opt/1/2/3',
        '/fmt/report.pdf',
        '/fmt/report',
        '/range/1-9',
        '/num/12',
        '/num/ab',
        '/abcd',
        '/acd',
        '/plusss',
        '/re/word',
        '/re/',
        '/arr/one',
        '/arr/zzz',
        '/named/7/y',
        '/users/42?x=1',
        '/nowhere',
      ].map((p) => get(p)),
    );
  });

  it('strict and case-sensitive routing settings', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.enable('strict routing');
        app.enable('case sensitive routing');
        app.get('/Foo', echo('Foo'));
        app.get('/bar/', echo('bar/'));
        return app;
      },
      ['/Foo', '/foo', '/Foo/', '/bar/', '/bar', '/BAR/'].map((p) => get(p)),
    );
  });

  it('next(), next("route"), next("router") and handler order', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        const router = fw.Router();
        router.use(hit('r1'));
        router.get(
          '/skip',
          hit('r2'),
          (_req: Request, _res: Response, next: NextFunction) => next('router'),
          hit('never'),
        );
        router.get('/x', hit('r3'), echo('router-x'));
        app.use(hit('a'));
        app.get('/route', hit('b'), (_req: Request, _res: Response, next: NextFunction) => next('route'), hit('never'));
        app.get('/route', hit('c'), echo('second'));
        app.use('/r', router);
        app.get('/r/skip', hit('after-router'), echo('after'));
        return app;
      },
      ['/route', '/r/x', '/r/skip', '/none'].map((p) => get(p)),
    );
  });

  it('what middleware passes to next: "route", "router", falsy values, boxed strings, errors', async () => {
    // The walk tests `typeof` before comparing with "route" and "router", and `undefined`
    // and `false` before the truth test of an error (src/router/dispatch.ts): every other
    // value must still take Express's way.
    const passes = (value: () => unknown) => (_req: Request, _res: Response, next: NextFunction) =>
      (next as (err?: unknown) => void)(value());
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        const router = fw.Router();
        router.use(
          '/leave',
          hit('r1'),
          passes(() => 'router'),
          hit('never'),
        );
        router.use(
          '/route',
          hit('r2'),
          passes(() => 'route'),
          hit('r3'),
        );
        router.get('/leave', echo('never'));
        router.get('/route', echo('router-route'));
        app.use('/r', router);
        app.get('/r/leave', hit('after-router'), echo('left'));
        for (const [name, value] of [
          ['zero', () => 0],
          ['empty', () => ''],
          ['false', () => false],
          ['null', () => null],
          ['nan', () => NaN],
          ['boxed-route', () => new String('route')],
          ['boxed-router', () => new String('router')],
          ['other-string', () => 'routes'],
          ['error', () => new Error('passed')],
        ] as const) {
          app.use('/' + name, hit(name), passes(value), hit('after-' + name));
          app.get('/' + name, echo(name));
          // The same values between the handlers of one route.
          app.get('/in-route/' + name, hit(name), passes(value), echo('in-route-' + name));
        }
        app.use(
          (err: unknown, _req: Request, res: Response, _next: NextFunction) =>
            void res.status(500).json({ handled: String(err), type: typeof err }),
        );
        return app;
      },
      [
        '/r/leave',
        '/r/route',
        '/zero',
        '/empty',
        '/false',
        '/null',
        '/nan',
        '/boxed-route',
        '/boxed-router',
        '/other-string',
        '/error',
      ]
        .flatMap((p) => (p.startsWith('/r/') ? [p] : [p, '/in-route' + p]))
        .map((p) => get(p)),
    );
  });

  it('mounting: req.url stripping, baseUrl, originalUrl, nested routers and sub-apps', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        const inner = fw.Router();
        inner.get('/leaf/:id', echo('leaf'));
        inner.use((req: Request, res: Response) => echo('inner-use')(req, res));
        const outer = fw.Router();
        outer.use('/inner', inner);
        const sub = fw();
        sub.get('/', echo('sub-root'));
        sub.get('/page', echo('sub-page'));
        app.use('/outer', outer);
        app.use('/sub', sub);
        app.use(['/m1', '/m2'], (req: Request, res: Response) => echo('multi')(req, res));
        app.use('/dot', (req: Request, res: Response) => echo('dot')(req, res));
        return app;
      },
      [
        '/outer/inner/leaf/5',
        '/outer/inner/other?q=1',
        '/outer/inner',
        '/outer/INNER/x',
        '/sub',
        '/sub/',
        '/sub/page',
        '/sub/page?x=y',
        '/m1/a',
        '/m2',
        '/dot.json',
        '/dot/x',
        '/dotx',
        '/outer//inner/leaf/1',
      ].map((p) => get(p)),
    );
  });

  it('mergeParams with child precedence and numbered captures', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        const merged = fw.Router({ mergeParams: true });
        merged.get('/:id', echo('merged'));
        merged.get(/^\/re\/(\d+)$/, echo('merged-re'));
        const plain = fw.Router();
        plain.get('/:child', echo('plain'));
        app.use('/users/:id/items', merged);
        app.use('/users/:uid/plain', plain);
        app.use(/^\/num\/(\d+)/, merged);
        return app;
      },
      ['/users/1/items/2', '/users/1/plain/3', '/num/5/7', '/num/5/re/9'].map((p) => get(p)),
    );
  });

  it('middleware at /: a fresh req.params per layer, merged with the parent’s; layers’ params and path', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        const router = fw.Router({ mergeParams: true });
        const seen: unknown[] = [];
        router.use((req: Request, _res: Response, next: NextFunction) => {
          (req.params as Record<string, string>).added = 'by the first';
          seen.push(req.params);
          next();
        });
        router.use((req: Request, _res: Response, next: NextFunction) => {
          seen.push(req.params);
          next();
        });
        router.get('/:item', (req: Request, res: Response) => {
          const stack = (router as unknown as { stack: Array<{ params?: object; path?: string }> }).stack;
          res.json({
            seen: seen.splice(0),
            params: req.params,
            freshEach: stack[0].params !== stack[1].params,
            layerHoldsWhatRequestGot: stack[1].params !== undefined && Object.keys(stack[1].params).length === 0,
            layerPaths: stack.map((layer) => layer.path ?? null),
          });
        });
        app.use('/users/:id', router);
        return app;
      },
      [get('/users/1/2'), get('/users/3/4?x=1')],
    );
  });

  it("the app's own first layers (query, expressInit): the path and params a request leaves on them", async () => {
    // Code that lists the stack (metrics, route listings) reads every layer's fields.
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        const describeStack = () =>
          (
            app as unknown as { _router: { stack: Array<{ name: string; path?: string; params?: object }> } }
          )._router.stack
            .slice(0, 2)
            .map((layer) => ({ name: layer.name, path: layer.path ?? null, params: layer.params ?? null }));
        app.get('/stack', (_req: Request, res: Response) => res.json({ before, during: describeStack() }));
        app.get('/after', (_req: Request, res: Response) => res.json(describeStack()));
        // Read once the routes made the router, before any request.
        const before = describeStack();
        return app;
      },
      [get('/stack'), get('/after?x=1')],
    );
  });
  it("the `next` a router's layers receive: named next, one parameter, req.next, one per router", async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        const router = fw.Router();
        const seen: Array<{ where: string; name: string; length: number; isReqNext: boolean }> = [];
        let appNext: unknown;
        const describe = (where: string) => (req: Request, _res: Response, next: NextFunction) => {
          seen.push({ where, name: next.name, length: next.length, isReqNext: req.next === next });
          if (where === 'app') appNext = next;
          next();
        };
        app.use(describe('app'));
        router.use(describe('router'));
        router.get('/x', (req: Request, res: Response) => {
          res.json({ seen: seen.splice(0), routerNextIsAppNext: req.next === appNext });
        });
        app.use('/r', router);
        return app;
      },
      [get('/r/x'), get('/r/x?again=1')],
    );
  });

  it('app.param: once per request and value, arrays, errors, and locality to the router', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        let calls = 0;
        app.param('id', (req: Request, _res: Response, next: NextFunction, value: string) => {
          calls++;
          (req.params as Record<string, string>).id = 'loaded-' + value;
          next();
        });
        app.param(['a', 'b'], (_req: Request, res: Response, next: NextFunction, value: string, name: string) => {
          hit(name + '=' + value)(_req, res, next);
        });
        app.param('bad', (_req: Request, _res: Response, next: NextFunction) =>
          next(Object.assign(new Error('nope'), { status: 422 })),
        );
        app.get('/p/:id', hit('first'), (_req: Request, _res: Response, next: NextFunction) => next());
        app.get('/p/:id', (req: Request, res: Response) => {
          res.setHeader('x-calls', String(calls));
          echo('p')(req, res);
        });
        app.get('/ab/:a/:b', echo('ab'));
        app.get('/bad/:bad', echo('bad'));
        // An unnamed capture (`*`, a RegExp group) is numbered: its callback gets the number.
        app.param(
          0 as unknown as string,
          (_req: Request, res: Response, next: NextFunction, value: string, name: unknown) => {
            hit(`${typeof name} ${String(name)}=${value}`)(_req, res, next);
          },
        );
        app.get('/files/*', echo('files'));
        app.get(/^\/re\/(\d+)$/, echo('re'));
        const router = fw.Router();
        router.get('/:id', echo('router-does-not-see-app-param'));
        app.use('/r', router);
        return app;
      },
      ['/p/7', '/ab/1/2', '/bad/x', '/r/9', '/files/a.txt', '/re/42'].map((p) => get(p)),
    );
  });

  it('app.param with an empty list makes the router, with the routing settings of that moment', async () => {
    await assertSameResponses(
      (fw) => {
        const app = fw();
        // The router is made here, case-sensitive: the setting changed after it is not its.
        app.enable('case sensitive routing');
        app.param([], () => undefined);
        app.disable('case sensitive routing');
        app.get('/Path', (_req: Request, res: Response) => res.send('matched'));
        return app;
      },
      // The router's own layers (X-Powered-By included) answer the 404s too.
      ['/', '/Path', '/path'].map((p) => get(p)),
    );
  });

  it('errors: thrown, next(err) with status and headers, error handlers by arity, malformed escapes', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.get('/throw', () => {
          throw new Error('boom');
        });
        app.get('/status', (_req: Request, _res: Response, next: NextFunction) =>
          next(Object.assign(new Error('teapot'), { status: 418, headers: { 'X-Why': 'tea' } })),
        );
        app.get('/statusCode', (_req: Request, _res: Response, next: NextFunction) =>
          next(Object.assign(new Error('x'), { statusCode: 503 })),
        );
        app.get('/badstatus', (_req: Request, _res: Response, next: NextFunction) =>
          next(Object.assign(new Error('x'), { status: 200 })),
        );
        app.get('/res-status', (_req: Request, res: Response, next: NextFunction) => {
          res.statusCode = 409;
          next(new Error('x'));
        });
        app.get('/handled', () => {
          throw new Error('to handler');
        });
        app.get('/param/:p', echo('param'));
        app.use('/handled', (err: Error, _req: Request, res: Response, _next: NextFunction) => {
          res.statusCode = 599;
          res.end('handled: ' + err.message);
        });
        // Three parameters: not an error handler, skipped while an error is pending.
        app.use((_req: Request, _res: Response, next: NextFunction) => next());
        return app;
      },
      [
        '/throw',
        '/status',
        '/statusCode',
        '/badstatus',
        '/res-status',
        '/handled',
        '/param/%E0%A4%A',
        '/param/%',
        '/%',
        '/missing/<script>',
      ].map((p) => get(p)),
    );
  });

  it("a param's decoding error, as res.json(err) shows it: statusCode before status", async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.get('/param/:p', echo('param'));
        app.use((err: Error, _req: Request, res: Response, _next: NextFunction) =>
          res.status(400).json({ keys: Object.keys(err), err }),
        );
        return app;
      },
      ['/param/%', '/%E0%A4%A'].map((p) => get(p)),
    );
  });

  it('routes of one handler: what it passes to next, a throw, an error handler, HEAD on a POST route', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        const router = fw.Router();
        router.get('/leave', (_req: Request, _res: Response, next: NextFunction) => next('router'));
        router.get('/leave', echo('never'));
        app.use(hit('a'));
        app.get('/next', (_req: Request, _res: Response, next: NextFunction) => next());
        app.get('/next', echo('after-next'));
        app.get('/route', (_req: Request, _res: Response, next: NextFunction) => next('route'));
        app.get('/route', echo('after-route'));
        app.use('/r', router);
        app.get('/r/leave', echo('after-router'));
        // What a router's own callback gets once `next('route')` ended its walk: nothing
        // from a route's handler (one handler or several), null from a middleware.
        const signals = fw.Router();
        signals.get('/one', (_req: Request, _res: Response, next: NextFunction) => next('route'));
        signals.get('/two', (_req: Request, _res: Response, next: NextFunction) => next('route'), echo('never'));
        signals.use('/mw', (_req: Request, _res: Response, next: NextFunction) => next('route'));
        app.use('/signals', (req: Request, res: Response) =>
          signals(req, res, (err?: unknown) => res.end('router done with ' + String(err))),
        );
        app.get('/error', (_req: Request, _res: Response, next: NextFunction) => next(new Error('passed')));
        app.get('/throw', () => {
          throw Object.assign(new Error('thrown'), { status: 418 });
        });
        // The only handler of a route declares four parameters: it handles no request.
        app.get('/arity4', (_err: unknown, _req: Request, res: Response, _next: NextFunction) => res.end('never'));
        app.get('/arity4', echo('after-arity4'));
        app.post('/post-only', echo('post-only'));
        app.use((req: Request, res: Response) => res.status(404).end('fell through ' + req.method + ' ' + req.url));
        return app;
      },
      [
        get('/next'),
        get('/route'),
        get('/r/leave'),
        get('/signals/one'),
        get('/signals/two'),
        get('/signals/mw'),
        get('/error'),
        get('/throw'),
        get('/arity4'),
        { method: 'HEAD', path: '/post-only' },
        { method: 'POST', path: '/post-only', body: 'x' },
      ],
    );
  });

  it('HEAD served by GET handlers, unless a HEAD handler was registered first', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.head('/h', (_req: Request, res: Response) => {
          res.setHeader('x-head', 'own');
          res.end();
        });
        app.get('/h', echo('get-h'));
        app.get('/g', (req: Request, res: Response) => {
          res.setHeader('x-method', req.method);
          res.end('body');
        });
        return app;
      },
      [
        { method: 'HEAD', path: '/h' },
        { method: 'HEAD', path: '/g' },
        { method: 'GET', path: '/g' },
        { method: 'HEAD', path: '/none' },
      ],
    );
  });

  it('unknown methods, all(), and methods without a handler', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.all('/any', (req: Request, res: Response) => res.end(req.method));
        app.post('/post', echo('post'));
        (app as unknown as Record<string, (p: string, h: unknown) => void>)['m-search']('/ms', echo('m-search'));
        return app;
      },
      [
        { method: 'PATCH', path: '/any' },
        { method: 'PROPFIND', path: '/any' },
        { method: 'GET', path: '/post' },
        { method: 'POST', path: '/post', body: 'x' },
        { method: 'M-SEARCH', path: '/ms' },
        { method: 'PURGE', path: '/nothing' },
      ],
    );
  });

  it('huge and odd request paths', async () => {
    await assertSameResponses(
      (fw) => {
        const app = production(fw);
        app.get('/users/:id', echo('user'));
        app.use('/m', (req: Request, res: Response) => echo('m')(req, res));
        return app;
      },
      [
        '/users/' + 'x'.repeat(8000),
        '/' + 'a/'.repeat(2000),
        '/users/%00',
        '/users/..%2F..%2Fetc',
        '/m%2Fx',
        '/m/%2e%2e/',
        'http://example.com/users/1',
        'http://example.com/m/x?y=1',
        '*',
        '/users/1#frag',
        '/users/1%23x',
        // Absolute forms without a path: the 404 page names the path `null`, as Express's does.
        'http://',
        'https://?x',
      ].map((p) => get(p)),
    );
  });
});

it('a rewritten req.url whose parsed cache the app cleared or replaced is parsed again, as by parseurl', async () => {
  // Apps that rewrite `req.url` clear parseurl's cache with `req._parsedUrl = null`
  // (and `_parsedOriginalUrl`): webapp read `null._raw`, routing ended in a 404 and
  // `req.path` threw. parseurl takes only a `Url` from the cache, so an object of the
  // app's own is not routed on either.
  await assertSameResponses(
    (fw) => {
      const app = production(fw);
      app.use((req: Request & { _parsedUrl?: unknown; _parsedOriginalUrl?: unknown }, _res, next) => {
        const [, how, rest] = /^\/(null|both|undefined|plain|string)(\/.*)$/.exec(req.url) ?? [];
        if (how === undefined) return next();
        req.url = '/new' + rest;
        if (how === 'plain') req._parsedUrl = { pathname: '/hijacked', _raw: req.url };
        else if (how === 'string') req._parsedUrl = 'not parsed';
        else req._parsedUrl = how === 'undefined' ? undefined : null;
        if (how === 'both') req._parsedOriginalUrl = null;
        next();
      });
      const answer = (req: Request, res: Response) =>
        res.json({ params: req.params, path: req.path, query: req.query, originalUrl: req.originalUrl });
      app.get('/new/:id', answer);
      app.get('/hijacked', (_req: Request, res: Response) => res.send('routed on the app object'));
      const router = fw.Router();
      router.get('/:id', answer);
      app.use('/new/mounted', router);
      return app;
    },
    [
      '/null/42',
      '/null/42?x=1',
      '/both/7',
      '/undefined/8',
      '/plain/9',
      '/string/10',
      '/null/mounted/11?y=2',
      '/both/mounted/12',
    ].map((p) => get(p)),
  );
});

describe('malformed requests', () => {
  it('an unknown method or broken request line: the same answer as express, and the server keeps serving', async () => {
    const send = (port: number, raw: string) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.end(raw));
        let text = '';
        socket.setEncoding('latin1');
        socket.on('data', (chunk) => (text += chunk));
        socket.on('close', () => resolve(text.split('\r\n')[0]));
        socket.on('error', () => resolve(text.split('\r\n')[0]));
      });
    const answers: Record<string, string[]> = {};
    for (const [name, framework] of frameworks) {
      const app = framework();
      app.get('/', (_req: Request, res: Response) => res.end('ok'));
      answers[name] = await withServer(app, async (port) => {
        const out = [
          await send(port, 'FOO / HTTP/1.1\r\nHost: x\r\n\r\n'),
          await send(port, 'GET /%%% HTTP/1.1\r\nHost: x\r\n\r\n'),
          await send(port, 'GET / HTTP/9.9\r\nHost: x\r\n\r\n'),
          await send(port, 'GET /\u0000 HTTP/1.1\r\nHost: x\r\n\r\n'),
          await send(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
        ];
        return out;
      });
    }
    assert.deepEqual(answers.webapp, answers.express);
    assert.equal(answers.webapp[4], 'HTTP/1.1 200 OK');
  });
});
