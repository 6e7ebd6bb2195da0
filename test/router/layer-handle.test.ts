/**
 * A layer's `handle` may be replaced after it was registered (instrumentation wraps
 * it): the new function runs, and its own parameter count decides whether it is a
 * request handler or an error handler, as in Express 4.
 */
import { describe, it } from 'node:test';
import { assertSameResponses, type Framework } from '../support/differential';

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
