/** req.query: the request's own, parsed by the app's query layer with the `query parser` setting. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import webapp = require('../../src/index');
import qs from 'qs';
import { assertSameResponses, type Framework } from '../support/differential';

type Any = any;

function echoQuery(parser: unknown) {
  const app: Any = webapp();
  app.set('query parser', parser);
  app.get('*', (req: Any, res: Any) => res.json(req.query));
  return app;
}

describe('req.query', () => {
  it("is the request's own property, set by the query layer, as express@4's", async () => {
    // express-openapi-validator saves the descriptor, defines `{ writable, value }` for its
    // coercion and puts the saved one back: with no own property to save, the one it
    // defined stayed, non-configurable, and a later `defineProperty` (zod and Express 5
    // shims) threw. Spreads, `Object.keys`, `delete` and descriptors all see it.
    await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.use('/validator', (req: Any, _res, next) => {
          const saved = Object.getOwnPropertyDescriptor(req, 'query');
          Object.defineProperty(req, 'query', { writable: true, value: req.query });
          req.query.limit = Number(req.query.limit);
          if (saved) Object.defineProperty(req, 'query', saved);
          next();
        });
        app.use('/validator', (req: Any, _res, next) => {
          const value = { ...req.query, checked: true };
          Object.defineProperty(req, 'query', { value, writable: true, enumerable: true, configurable: true });
          next();
        });
        app.use('/delete', (req: Any, _res, next) => {
          delete req.query;
          next();
        });
        app.use('/redefine', (req: Any, _res, next) => {
          const own = Object.getOwnPropertyDescriptor(req, 'query');
          Object.defineProperty(req, 'query', { ...own, value: { redefined: true } });
          next();
        });
        app.use((req: Any, res) =>
          res.json({
            query: req.query === undefined ? 'undefined' : req.query,
            descriptor: Object.getOwnPropertyDescriptor(req, 'query') && {
              ...Object.getOwnPropertyDescriptor(req, 'query'),
              value: undefined,
            },
            own: Object.prototype.hasOwnProperty.call(req, 'query'),
            inKeys: Object.keys(req).includes('query'),
            spread: { ...req }.query ?? 'undefined',
          }),
        );
        return app;
      },
      [{ path: '/validator?limit=5' }, { path: '/delete?a=1' }, { path: '/redefine?a=1' }, { path: '/plain?a[b]=1' }],
    );
  });

  it("gives the app's parser the query string, null without a '?', as express@4's", async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.set('query parser', function (this: unknown, ...args: unknown[]) {
          return { args, count: args.length, thisIsUndefined: this === undefined };
        });
        app.get('*', (req: Any, res) => res.json(req.query));
        return app;
      },
      ['/p', '/p?', '/p?x=%41&y', '/p#x?y', '/p?a=1#frag'].map((path) => ({ path })),
    );
  });

  it('extended (default) nests brackets and ignores prototype keys', async () => {
    await request(echoQuery('extended'))
      .get('/?a[b]=1&a[c]=2&d=3&d=4&__proto__[x]=1')
      .expect(200, { a: { b: '1', c: '2' }, d: ['3', '4'] });
  });

  it('simple keeps brackets literal', async () => {
    await request(echoQuery('simple'))
      .get('/?a[b]=1&d=3&d=4')
      .expect(200, { 'a[b]': '1', d: ['3', '4'] });
  });

  it('false gives an empty object', async () => {
    await request(echoQuery(false)).get('/?a=1').expect(200, {});
  });

  it('a function receives the raw query string', async () => {
    await request(echoQuery((s: string) => ({ raw: s })))
      .get('/?x=%41&y')
      .expect(200, { raw: 'x=%41&y' });
  });

  it('is the query of the URL the request came with, whatever the app does to req.originalUrl or req.url', async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.use('/o', (req, _res, next) => {
          req.originalUrl = '/rewritten?b=2';
          next();
        });
        app.use('/u', (req, _res, next) => {
          req.url = '/rewritten?c=3';
          next();
        });
        app.use((req, res) => res.json({ query: req.query, url: req.url, originalUrl: req.originalUrl }));
        return app;
      },
      [{ path: '/o?a=1' }, { path: '/u?a=1' }, { path: '/o' }],
    );
  });

  it('middleware may replace req.query', async () => {
    const app: Any = webapp();
    app.use((req: Any, _res: Any, next: Any) => {
      req.query = { replaced: true };
      next();
    });
    app.get('/', (req: Any, res: Any) => res.json(req.query));
    await request(app).get('/?a=1').expect(200, { replaced: true });
  });

  it('keeps a query the request already has as its own, truthy, as express@4 does', async () => {
    // What ran before the app (another framework, a test harness) may have set
    // `req.query`: a truthy own value is kept, a falsy one is replaced by the parse.
    const presets: Record<string, (req: Any) => void> = {
      object: (req) => (req.query = { preset: 'yes' }),
      string: (req) => (req.query = 'raw'),
      empty: (req) => (req.query = ''),
      null: (req) => (req.query = null),
      getter: (req) => Object.defineProperty(req, 'query', { get: () => ({ getter: 1 }), configurable: true }),
    };
    await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.get('/:preset', (req, res) => res.json({ query: req.query ?? 'none' }));
        return (req, res) => {
          presets[(req.url ?? '').slice(1, (req.url ?? '').indexOf('?'))]?.(req);
          app(req as Any, res as Any);
        };
      },
      ['object', 'string', 'empty', 'null', 'getter', 'none'].map((name) => ({ path: `/${name}?a[b]=1` })),
    );
  });

  it("a parser of the app's own that throws: the error goes to the error handlers, read later or never", async () => {
    // qs with strictDepth throws past the depth; Express parses in its query layer, so
    // the error reaches the app's error handlers whether or not a route reads req.query.
    // Read later from a callback, a lazy parse would throw outside every handler.
    const strict = (text: string) => qs.parse(text, { depth: 1, strictDepth: true });
    await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        app.set('query parser', strict);
        app.get('/ignores', (_req, res) => res.send('ok'));
        app.get('/later', (req, res) => setImmediate(() => res.json(req.query)));
        app.use((err: Error, req: Any, res: Any, _next: unknown) => {
          res.statusCode = 400;
          res.end(`bad query: ${err.message}; req.query: ${JSON.stringify(req.query) ?? 'undefined'}`);
        });
        return app;
      },
      [{ path: '/ignores?a[b][c]=1' }, { path: '/later?a[b][c]=1' }, { path: '/later?a[b]=1' }, { path: '/ignores' }],
    );
  });

  it("an error handler answering a throwing parser's error with res.status().send() is heard", async () => {
    // It runs before expressInit linked req.res (req.fresh reads it for res.send): the
    // answer threw a TypeError from res.send. Express fails there too (its request still
    // has Node's prototype: res.status is not a function); webapp answers as the app asks.
    const app = webapp();
    app.set('query parser', () => {
      throw Object.assign(new Error('bad query'), { status: 400 });
    });
    app.get('/q', (_req, res) => res.send('ok'));
    app.use((err: Any, _req: Any, res: Any, _next: unknown) => res.status(err.status).send('E:' + err.message));
    // Through app.listen, whose requests have the app's prototypes from the start (on a
    // bare http.createServer they get them in expressInit, as in Express).
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const answer = await fetch(`http://127.0.0.1:${(server.address() as Any).port}/q?x=1`);
      assert.deepEqual([answer.status, await answer.text()], [400, 'E:bad query']);
    } finally {
      server.close();
    }
  });

  it('so is one answering the error of a layer moved ahead of the query and init layers', async () => {
    // The request was linked to its response only for the parser's errors: res.json set
    // its headers, then threw from req.fresh, and the final handler sent its page with
    // the handler's status and an ETag of the JSON body that never went out.
    const app = webapp();
    app.use((_req: Any, _res: Any, next: (err: Error) => void) => next(new Error('early failure')));
    app._router.stack.unshift(app._router.stack.pop());
    app.use((err: Error, _req: Any, res: Any, _next: unknown) => res.status(503).json({ error: err.message }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      for (let i = 0; i < 2; i++) {
        const answer = await fetch(`http://127.0.0.1:${(server.address() as Any).port}/`);
        assert.deepEqual(
          [answer.status, answer.headers.get('content-type'), await answer.json()],
          [503, 'application/json; charset=utf-8', { error: 'early failure' }],
        );
      }
    } finally {
      server.close();
    }
  });

  it('webapp.query(options) refuses qs options its parser does not implement, when made; defaults pass', async () => {
    // Ignored, each would change what the app reads: plainObjects and parseArrays: false
    // are chosen to make req.query safer, and express.query passes them to qs.
    for (const options of [
      { plainObjects: true },
      { parseArrays: false },
      { allowDots: true },
      { duplicates: 'last' },
      { delimiter: ';' },
      { strictNullHandling: true },
      { ignoreQueryPrefix: true },
      { decoder: (text: string) => text },
    ]) {
      assert.throws(() => webapp.query(options as object), {
        name: 'TypeError',
        message: new RegExp(`^query: the qs option ${Object.keys(options)[0]} \\(`),
      });
    }
    // The values qs itself defaults to, and the options the parser implements, are accepted.
    // On a bare Node server: in an app, the app's own query layer has filled req.query first.
    const options = { plainObjects: false, parseArrays: true, delimiter: '&', depth: 1, arrayLimit: 3 };
    const parse = webapp.query(options) as Any;
    const app = (req: Any, res: Any) =>
      parse(req, res, () => res.setHeader('Content-Type', 'application/json').end(JSON.stringify(req.query)));
    const url = '/?a[b][c]=1&l[]=x&hasOwnProperty=y';
    const expected = qs.parse(url.slice(2), { ...options, allowPrototypes: true });
    await request(app).get(url).expect(200, expected);
  });

  it('a mounted app sees the query of the original URL', async () => {
    const app: Any = webapp();
    const sub: Any = webapp();
    sub.set('query parser', 'simple');
    sub.get('/leaf', (req: Any, res: Any) => res.json({ query: req.query, path: req.path, baseUrl: req.baseUrl }));
    app.use('/sub', sub);
    await request(app)
      .get('/sub/leaf?a[b]=1')
      .expect(200, { query: { a: { b: '1' } }, path: '/leaf', baseUrl: '/sub' });
  });

  it('a mounted app parses again a query set falsy before it, with its own parser, as express@4', async () => {
    await assertSameResponses(
      (framework: Framework) => {
        const app = framework();
        const sub = framework();
        sub.set('query parser', 'simple');
        sub.get('/r', (req: Any, res: Any) => res.json({ query: req.query === undefined ? 'undefined' : req.query }));
        app.use('/null', (req: Any, _res, next) => ((req.query = null), next()), sub);
        app.use('/undefined', (req: Any, _res, next) => ((req.query = undefined), next()), sub);
        app.use('/empty', (req: Any, _res, next) => ((req.query = ''), next()), sub);
        // Read first (the parent's parse, truthy) and kept; then cleared after a read.
        app.use('/read', (req: Any, _res, next) => (req.query.seen ? next() : next()), sub);
        app.use('/cleared', (req: Any, _res, next) => (req.query ? ((req.query = null), next()) : next()), sub);
        return app;
      },
      ['/null', '/undefined', '/empty', '/read', '/cleared'].map((base) => ({ path: `${base}/r?a[b]=1&c=2` })),
    );
  });
});
