/**
 * A layer's `handle` may be replaced after it was registered (instrumentation wraps
 * it): the new function runs, and its own parameter count decides whether it is a
 * request handler or an error handler, as in Express 4. An accessor put on
 * `Layer.prototype` before the layers are made is used by every layer, as with
 * Express's constructor, which assigns `handle`: express-async-errors wraps each
 * handler this way (its setter stores a wrapper keeping the function's arity).
 */
import { afterEach, describe, it } from 'node:test';
import { assertSameResponses, type Framework } from '../support/differential';
import { Layer } from '../../src/router/layer';

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

/** What express-async-errors installs: each function assigned to `handle` is stored wrapped. */
function installHandleAccessor(proto: object): void {
  Object.defineProperty(proto, 'handle', {
    configurable: true,
    enumerable: true,
    get(this: Record<symbol, unknown>) {
      return this[kHandle];
    },
    set(this: Record<symbol, unknown>, fn: (...args: unknown[]) => unknown) {
      const wrapped = function (this: unknown, ...args: unknown[]) {
        const req = args[args.length === 4 ? 1 : 0] as Counted;
        req.wrappedCalls = (req.wrappedCalls ?? 0) + 1;
        return fn.apply(this, args);
      };
      Object.defineProperty(wrapped, 'length', { value: fn.length });
      this[kHandle] = wrapped;
    },
  });
}

describe('a `handle` accessor on Layer.prototype', () => {
  afterEach(() => {
    for (const proto of layerPrototypes) Reflect.deleteProperty(proto, 'handle');
  });

  it('every layer stores its function through the setter and calls what the getter gives', async () => {
    for (const proto of layerPrototypes) installHandleAccessor(proto);
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
