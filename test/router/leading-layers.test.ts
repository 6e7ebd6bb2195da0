/**
 * The layers every app puts first (`query`, `expressInit`) run in place of the
 * layer walk while nothing could tell (src/router/dispatch.ts, runLeadingInPlace).
 * Whatever could tell must see them as express@4 shows them: wrapped Layer
 * methods and layer functions, layers put in front of them, errors they throw.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { describe, it } from 'node:test';
import {
  assertSameResponses,
  frameworks,
  rawRequest,
  withServer,
  withoutStackFrames,
  type Framework,
} from '../support/differential';

type App = ReturnType<Framework>;
type AnyFunction = (...args: unknown[]) => unknown;

interface StackLayer {
  name: string;
  handle: AnyFunction;
}

function routerOf(app: App): { stack: StackLayer[] } {
  // express@4 makes its router on the first route; webapp likewise.
  return (app as unknown as { _router: { stack: StackLayer[] } })._router;
}

function layerPrototype(app: App): Record<string, AnyFunction> {
  return Object.getPrototypeOf(routerOf(app).stack[0]) as Record<string, AnyFunction>;
}

/** The names of the layers a request went through, as a wrapper of `Layer.prototype.handle_request` sees them. */
async function layersSeen(framework: Framework): Promise<string[]> {
  const app = framework();
  app.get('/', (_req, res) => res.send('ok'));
  const proto = layerPrototype(app);
  const original = proto.handle_request;
  const seen: string[] = [];
  proto.handle_request = function (this: StackLayer, ...args: unknown[]) {
    seen.push(this.name);
    return original.apply(this, args);
  };
  try {
    await withServer(app as unknown as http.RequestListener, async (port) => {
      assert.equal((await rawRequest(port, { path: '/' })).body, 'ok');
    });
  } finally {
    proto.handle_request = original;
  }
  return seen;
}

describe('an app’s leading layers', () => {
  it('go through a wrapped Layer.prototype.handle_request, as in express@4', async () => {
    const theirs = await layersSeen(frameworks[0][1]);
    const ours = await layersSeen(frameworks[1][1]);
    assert.deepEqual(ours, theirs);
    assert.deepEqual(ours.slice(0, 2), ['query', 'expressInit']);
  });

  it('run through their functions when something wrapped them', async () => {
    const calls: string[] = [];
    const define = (framework: Framework) => {
      const app = framework();
      app.get('/', (req, res) => res.send(typeof (req as { next?: unknown }).next));
      for (const layer of routerOf(app).stack.slice(0, 2)) {
        const handle = layer.handle;
        layer.handle = function (this: unknown, ...args: unknown[]) {
          calls.push(layer.name);
          return handle.apply(this, args);
        };
      }
      return app as unknown as http.RequestListener;
    };
    await assertSameResponses(define, [{ path: '/' }, { path: '/missing' }]);
    assert.deepEqual(calls, [
      'query',
      'expressInit',
      'query',
      'expressInit',
      'query',
      'expressInit',
      'query',
      'expressInit',
    ]);
  });

  it('run after a layer put in front of them', async () => {
    const define = (framework: Framework) => {
      const app = framework();
      app.get('/', (req, res) => res.json({ query: req.query, poweredBy: res.get('X-Powered-By') !== undefined }));
      const stack = routerOf(app).stack;
      app.use((req, _res, next) => {
        // Before `query` runs there is no parsed query of Express's yet: this one stays.
        (req as { query?: unknown }).query = { from: 'front' };
        next();
      });
      stack.unshift(stack.pop()!);
      return app as unknown as http.RequestListener;
    };
    const [answer] = await assertSameResponses(define, [{ path: '/?a=1' }]);
    assert.deepEqual(JSON.parse(answer.body).query, { from: 'front' });
  });

  it('pass what they throw to the error handlers after them', async () => {
    const define = (framework: Framework) => {
      const app = framework();
      const set = app.set;
      app.set = function (this: App, ...args: unknown[]) {
        if (args.length === 1 && args[0] === 'x-powered-by') throw new Error('settings unavailable');
        return (set as AnyFunction).apply(this, args);
      } as App['set'];
      app.get('/', (_req, res) => res.send('not reached'));
      // Node's own API: express@4 throws before the response has the app's prototype.
      app.use((err: Error, _req: unknown, res: http.ServerResponse, _next: unknown) => {
        res.statusCode = 503;
        res.end('error: ' + err.message);
      });
      return app as unknown as http.RequestListener;
    };
    const [answer] = await assertSameResponses(define, [{ path: '/' }]);
    assert.equal(answer.status, 503);
    assert.equal(answer.body, 'error: settings unavailable');
  });

  it('catch what the walk after them throws, as expressInit’s next() does in express@4', async () => {
    // A param callback missing its `return` after next(err): the error page goes out
    // synchronously (a layer follows), the router restores `req.params` (undefined at
    // the top), then the callback throws and its catch reads `req.params[name]`.
    // express@4 passes that TypeError on from expressInit's try/catch; it must not
    // leave the server's `request` event, which ends the process.
    const define = (framework: Framework) => {
      const app = framework();
      const items: Record<string, { name: string } | undefined> = { 1: { name: 'one' } };
      app.param('id', (req, _res, next, id: string) => {
        if (!items[id]) next(Object.assign(new Error('no such item'), { status: 404 }));
        (req as { item?: string }).item = items[id]!.name;
        next();
      });
      app.get('/item/:id', (req, res) => res.send((req as { item?: string }).item));
      app.get('/health', (_req, res) => res.send('ok'));
      return app as unknown as http.RequestListener;
    };
    const requests = [{ path: '/item/1' }, { path: '/item/2' }, { path: '/health' }];
    const answers = await assertSameResponses(define, requests, undefined, withoutStackFrames);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 404, 200],
    );
  });

  it('run in a mounted app, and leave the parent’s request as it was', async () => {
    const define = (framework: Framework) => {
      const parent = framework();
      const child = framework();
      child.locals.name = 'child';
      child.get('/who', (req, res) => res.json({ baseUrl: req.baseUrl, url: req.url, params: req.params }));
      parent.use('/sub/:id', child);
      parent.get('/sub/:id/after', (req, res) => res.json({ params: req.params, baseUrl: req.baseUrl }));
      return parent as unknown as http.RequestListener;
    };
    await assertSameResponses(define, [{ path: '/sub/7/who?x=1' }, { path: '/sub/7/after' }, { path: '/sub/7/none' }]);
  });
});
