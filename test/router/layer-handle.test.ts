/**
 * A layer's `handle` may be replaced after it was registered (instrumentation wraps
 * it): the new function runs, and its own parameter count decides whether it is a
 * request handler or an error handler, as in Express 4. An accessor put on
 * `Layer.prototype` before the layers are made is used by every layer, as with
 * Express's constructor, which assigns `handle`: express-async-errors wraps each
 * handler this way (its setter stores a wrapper keeping the function's arity). The
 * same holds for accessors on `Route.prototype`: Route's constructor assigns `path`,
 * `stack` and `methods`.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import express from 'express';
import webapp = require('../../src/index');
import { assertSameResponses, type Framework } from '../support/differential';
import { Layer } from '../../src/router/layer';
import { Route } from '../../src/router/route';

type Any = any;

function appWithReplacedHandles(framework: Framework) {
  const app: Any = framework();
  // The default error page without a stack (its frames differ between implementations).
  app.set('env', 'production');
  app.use(function first(_req: Any, res: Any, next: Any) {
    res.set('X-First', 'original');
    next();
  });
  app.use(function second(_req: Any, res: Any, next: Any) {
    res.set('X-Second', 'original');
    next();
  });
  app.get('/fail', () => {
    throw new Error('boom');
  });
  app.use(function handler(_err: Any, _req: Any, res: Any, _next: Any) {
    res.status(500).send('original error handler');
  });
  app.get('/', (_req: Any, res: Any) => res.send('done'));
  // Run once, so whatever a layer remembers of its function is in place; then swap.
  const stack = app._router.stack as Array<{ name: string; handle: Any }>;
  const swap = (name: string, fn: Any) => {
    for (const layer of stack) if (layer.name === name) layer.handle = fn;
  };
  return (req: Any, res: Any) => {
    if (req.url === '/swap') {
      swap('first', function wrapped(_req: Any, res: Any, next: Any) {
        res.set('X-First', 'wrapped');
        next();
      });
      // Now an error handler: skipped for requests without an error.
      swap('second', function second(_err: Any, _req: Any, res: Any, next: Any) {
        res.set('X-Second', 'as error handler');
        next();
      });
      // Now a request handler: skipped for errors.
      swap('handler', function handler(_req: Any, res: Any, next: Any) {
        res.set('X-Handler', 'as request handler');
        next();
      });
      res.end('swapped');
      return;
    }
    app(req, res);
  };
}

describe('a layer whose handle is replaced', () => {
  it('runs the new function, as a request or an error handler by its own parameter count', async () => {
    await assertSameResponses(appWithReplacedHandles, [
      { path: '/' },
      { path: '/fail' },
      { path: '/swap' },
      { path: '/' },
      { path: '/fail' },
    ]);
  });
});

type Counted = Any & { wrappedCalls?: number };

const layerPrototypes: object[] = [require('express/lib/router/layer').prototype, Layer.prototype];
const kHandle = Symbol('wrapped handle');

type Wrapped = (fn: (...args: unknown[]) => unknown, self: unknown, args: unknown[]) => unknown;

/**
 * What express-async-errors installs: each function assigned to `handle` is stored
 * wrapped (`call` runs in its place), keeping the function's parameter count.
 */
function installHandleAccessor(proto: object, call: Wrapped): void {
  Object.defineProperty(proto, 'handle', {
    configurable: true,
    enumerable: true,
    get(this: Record<symbol, unknown>) {
      return this[kHandle];
    },
    set(this: Record<symbol, unknown>, fn: (...args: unknown[]) => unknown) {
      const wrapped = function (this: unknown, ...args: unknown[]) {
        return call(fn, this, args);
      };
      Object.defineProperty(wrapped, 'length', { value: fn.length });
      this[kHandle] = wrapped;
    },
  });
}

/** Counts the calls on the request. */
const countingCalls: Wrapped = (fn, self, args) => {
  const req = args[args.length === 4 ? 1 : 0] as Counted;
  req.wrappedCalls = (req.wrappedCalls ?? 0) + 1;
  return fn.apply(self, args);
};

describe('a `handle` accessor on Layer.prototype', () => {
  afterEach(() => {
    for (const proto of layerPrototypes) Reflect.deleteProperty(proto, 'handle');
  });

  it('every layer stores its function through the setter and calls what the getter gives', async () => {
    for (const proto of layerPrototypes) installHandleAccessor(proto, countingCalls);
    await assertSameResponses(
      (fw) => {
        const app: Any = fw();
        app.use((_req: Any, _res: Any, next: Any) => next());
        const router: Any = fw.Router();
        router.get('/:id', (req: Any, _res: Any, next: Any) => next(new Error(req.params.id)));
        app.use('/items', router);
        app.get('/', (req: Counted, res: Any) => res.send(`calls ${req.wrappedCalls}`));
        app.use((err: Error, req: Counted, res: Any, _next: Any) => {
          res.status(500).send(`${err.message} after ${req.wrappedCalls} calls`);
        });
        return app;
      },
      [{ path: '/' }, { path: '/items/7' }, { path: '/missing' }],
    );
  });
});

const routePrototypes: object[] = [require('express/lib/router/route').prototype, Route.prototype];
const kMethods = Symbol('recorded methods');

/** An accessor on `Route.prototype.methods` that records each route's methods object as it is assigned. */
function installMethodsAccessor(proto: object, seen: string[]): void {
  Object.defineProperty(proto, 'methods', {
    configurable: true,
    enumerable: true,
    get(this: Record<symbol, unknown>) {
      return this[kMethods];
    },
    set(this: Record<symbol, unknown> & { path: unknown }, methods: Record<string, boolean>) {
      seen.push(`methods of ${String(this.path)}`);
      this[kMethods] = methods;
    },
  });
}

describe('an accessor on Route.prototype', () => {
  afterEach(() => {
    for (const proto of routePrototypes) Reflect.deleteProperty(proto, 'methods');
  });

  it('sees every route assign its fields, as in Express, and the routes still answer', async () => {
    const seenBy = new Map<Framework, string[]>();
    await assertSameResponses(
      (fw) => {
        const seen: string[] = [];
        seenBy.set(fw, seen);
        installMethodsAccessor(fw === express ? routePrototypes[0] : routePrototypes[1], seen);
        const app: Any = fw();
        app.get('/a', (_req: Any, res: Any) => res.send('a'));
        app.route('/b').post((_req: Any, res: Any) => res.send('b'));
        app.get('/seen', (_req: Any, res: Any) => res.send(seen.join(', ')));
        return app;
      },
      [{ path: '/a' }, { path: '/b', method: 'POST' }, { path: '/b' }, { path: '/seen' }],
    );
    assert.equal(seenBy.size, 2);
    for (const seen of seenBy.values()) assert.deepEqual(seen, ['methods of /a', 'methods of /b', 'methods of /seen']);
  });
});

/** express-async-errors' wrapper: `next(err)` when the promise returned rejects, and that promise returned. */
const passingRejections: Wrapped = (fn, self, args) => {
  const ret = fn.apply(self, args) as Promise<unknown> | undefined;
  const next = args[args.length - 1] as (err: unknown) => void;
  if (ret && typeof ret.catch === 'function') ret.catch((err) => next(err));
  return ret;
};

describe('a wrapper that passes rejections to next and returns the promise (express-async-errors)', () => {
  afterEach(() => {
    for (const proto of layerPrototypes) Reflect.deleteProperty(proto, 'handle');
  });

  it('each error reaches the error handlers once, and one rethrown by an async error handler goes on', async () => {
    for (const proto of layerPrototypes) installHandleAccessor(proto, passingRejections);
    await assertSameResponses(
      (fw) => {
        const seen: string[] = [];
        const app: Any = fw();
        const tick = () => new Promise((resolve) => setImmediate(resolve));
        app.get('/deliveries', (_req: Any, res: Any) => res.send(seen.join(', ')));
        app.get('/single', async () => {
          await tick();
          throw new Error('single');
        });
        app.get(
          '/chain',
          async () => {
            throw new Error('chain');
          },
          (_req: Any, res: Any) => res.send('never'),
        );
        app.use('/mw', async () => {
          await tick();
          throw new Error('middleware');
        });
        app.get('/rethrown', async () => {
          throw new Error('rethrown');
        });
        app.use(async (err: Error, req: Any, _res: Any, next: Any) => {
          seen.push(`first ${err.message}`);
          if (req.path === '/rethrown') throw err;
          next(err);
        });
        app.use((err: Error, _req: Any, res: Any, _next: Any) => {
          seen.push(`last ${err.message}`);
          if (res.headersSent) seen.push('after the response');
          else res.status(500).send('handled ' + err.message);
        });
        // The app's final handler: an error passed on twice reaches it after the response.
        return (req: Any, res: Any) =>
          app.handle(req, res, (err: Error | undefined) => {
            seen.push(`left the app with ${err?.message}`);
            if (!res.headersSent) res.status(404).end();
          });
      },
      [{ path: '/single' }, { path: '/chain' }, { path: '/mw' }, { path: '/rethrown' }, { path: '/deliveries' }],
    ).then((responses) =>
      assert.equal(
        responses[4]!.body,
        ['single', 'chain', 'middleware', 'rethrown'].map((name) => `first ${name}, last ${name}`).join(', '),
      ),
    );
  });

  it('a rejection without a reason after a next() that ended the walk leaves the app once, as next()', async () => {
    for (const proto of layerPrototypes) installHandleAccessor(proto, passingRejections);
    await assertSameResponses(
      (fw) => {
        const seen: string[] = [];
        const app: Any = fw();
        app.get('/seen', (_req: Any, res: Any) => res.send(seen.join(', ')));
        app.use('/sent', async (_req: Any, res: Any, next: Any) => {
          res.send('sent');
          next();
          throw undefined;
        });
        app.use('/passed', async (_req: Any, _res: Any, next: Any) => {
          next(new Error('passed'));
          throw undefined;
        });
        app.use((err: Error, _req: Any, res: Any, _next: Any) => {
          seen.push(`handler ${err.message}`);
          res.status(500).send('handled ' + err.message);
        });
        return (req: Any, res: Any) =>
          app.handle(req, res, (err: Error | undefined) => {
            seen.push(`left the app with ${err?.message}`);
            if (!res.headersSent) res.status(404).end();
          });
      },
      [{ path: '/sent' }, { path: '/passed' }, { path: '/seen' }],
    ).then((responses) =>
      assert.equal(
        responses[2]!.body,
        'left the app with undefined, left the app with undefined, handler passed, left the app with undefined',
      ),
    );
  });

  it('a param callback it wraps that rejects without a reason goes on to the route once, as next()', async () => {
    // express-async-errors wraps `param` callbacks too (Router.param): `next` is the third of five arguments.
    const wrapped =
      (fn: (...args: Any[]) => Promise<unknown>) =>
      (...args: Any[]): unknown => {
        const ret = fn(...args);
        ret.catch((err) => (args[2] as (err: unknown) => void)(err));
        return ret;
      };
    await assertSameResponses(
      (fw) => {
        const seen: string[] = [];
        const app: Any = fw();
        app.get('/seen', (_req: Any, res: Any) => res.send(seen.join(', ')));
        app.param(
          'id',
          wrapped(async (req: Any) => {
            if (req.params.id === 'later') await null;
            throw req.params.id === 'zero' ? 0 : null;
          }),
        );
        app.get('/items/:id', (req: Any, res: Any) => {
          seen.push(`route ${req.params.id}`);
          res.send('item');
        });
        app.use((err: Error, req: Any, res: Any, next: Any) => {
          seen.push(`error handler ${req.params.id}: ${err.message}`);
          if (res.headersSent) next(err);
          else res.status(500).send(err.message);
        });
        return app;
      },
      [{ path: '/items/now' }, { path: '/items/later' }, { path: '/items/zero' }, { path: '/seen' }],
    ).then((responses) => assert.equal(responses[3]!.body, 'route now, route later, route zero'));
  });
});

describe('a handler promise that never settles', () => {
  it('keeps no other request alive: one whose route called next() is collected once answered', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const app: Any = webapp();
    const requests: Array<WeakRef<object>> = [];
    // A long poll that is never answered: its promise stays pending for the whole test.
    app.get('/poll', () => new Promise(() => undefined));
    app.get(
      '/two',
      (req: Any, _res: Any, next: Any) => {
        requests.push(new WeakRef(req));
        next();
      },
      (_req: Any, res: Any) => res.send('second'),
    );
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const poll = http.get({ host: '127.0.0.1', port, path: '/poll', agent: false });
    poll.on('error', () => undefined);
    try {
      // Sent after the poll has reached its handler (it answers nothing, so ask in order).
      await new Promise((resolve) => setImmediate(resolve));
      const answer = await fetch(`http://127.0.0.1:${port}/two`, { headers: { connection: 'close' } });
      assert.equal(await answer.text(), 'second');
      for (let i = 0; i < 10 && requests[0].deref() !== undefined; i++) {
        // A WeakRef's target is kept until the current job ends: collect between turns.
        await new Promise((resolve) => setImmediate(resolve));
        gc();
      }
      assert.equal(requests.length, 1);
      assert.equal(requests[0].deref(), undefined, 'the answered request is still reachable');
    } finally {
      poll.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
