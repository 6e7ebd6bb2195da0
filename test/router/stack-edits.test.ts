/**
 * Code that edits a router's stack in place between requests (hot-reloading tools,
 * tests that swap a route): Express walks the stack as it is at every request, so a
 * layer replaced or moved, or a layer's `regexp` reassigned, answers from the next
 * request on, and an edit made by a layer is seen by the rest of that walk. webapp's
 * layer index (from 8 layers) must see every such edit (src/router/stack-edits.ts).
 * The apps are asked once before each edit, so that the index exists when it comes.
 */
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { inspect } from 'node:util';
import { describe, it } from 'node:test';
import express from 'express';
import webapp = require('../../src/index');
import type http from 'node:http';
import { assertSameResponses, type Framework, type RequestSpec } from '../support/differential';
import { rawRequest, withServer } from '../support/raw-http';

type Res = http.ServerResponse & { send(body: unknown): void; status(code: number): Res };
type Req = http.IncomingMessage & { params: Record<string, string> };
type Handler = (req: Req, res: Res) => void;
interface StackLayer {
  name: string;
  params?: object;
  regexp: RegExp;
  keys: Array<{ name: string; optional: boolean }>;
  route?: { path: string };
}
interface RoutedApp {
  (req: http.IncomingMessage, res: http.ServerResponse): void;
  get(path: string, handler: Handler): RoutedApp;
  post(path: string, handler: Handler): RoutedApp;
  use(...args: unknown[]): RoutedApp;
  _router: { stack: StackLayer[] };
}

const NAMES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];

/** The last layer of a throwaway app that routes `GET path`: a layer to put into another stack. */
function routeLayer(framework: Framework, path: string, text: string): StackLayer {
  const other = framework() as unknown as RoutedApp;
  other.get(path, (_req, res) => res.send(text));
  return other._router.stack[other._router.stack.length - 1];
}

function indexOfRoute(stack: StackLayer[], path: string): number {
  return stack.findIndex((layer) => layer.route?.path === path);
}

/** `count` routes, a fallback, and `POST /edit` running `edit` on the app's stack. */
function editedApp(count: number, edit: (framework: Framework, stack: StackLayer[]) => void) {
  return (framework: Framework): http.RequestListener => {
    const app = framework() as unknown as RoutedApp;
    app.post('/edit', (_req, res) => {
      edit(framework, app._router.stack);
      res.send('edited');
    });
    for (const name of NAMES.slice(0, count))
      app.get('/' + name, (req, res) => res.send(`route ${name} ${JSON.stringify(req.params)}`));
    app.use((_req: unknown, res: Res) => res.status(404).send('fallback'));
    return app as unknown as http.RequestListener;
  };
}

function gets(...paths: string[]): RequestSpec[] {
  return paths.map((path) => ({ path }));
}

const EDIT: RequestSpec = { method: 'POST', path: '/edit' };

describe('a router stack edited in place between requests answers as edited', () => {
  it('a layer in the middle replaced by assignment', async () => {
    const define = editedApp(10, (framework, stack) => {
      stack[indexOfRoute(stack, '/c')] = routeLayer(framework, '/new', 'route new');
    });
    await assertSameResponses(define, [...gets('/c', '/new'), EDIT, ...gets('/new', '/c', '/d')]);
  });

  it('a layer replaced through splice, the length unchanged', async () => {
    const define = editedApp(10, (framework, stack) => {
      stack.splice(indexOfRoute(stack, '/d'), 1, routeLayer(framework, '/e', 'shadow e'));
    });
    await assertSameResponses(define, [...gets('/e', '/d'), EDIT, ...gets('/e', '/d', '/f')]);
  });

  it('layers in the middle reordered', async () => {
    const define = editedApp(10, (framework, stack) => {
      stack.splice(indexOfRoute(stack, '/e') + 1, 0, routeLayer(framework, '/e', 'second e'));
      stack.splice(indexOfRoute(stack, '/c'), 1);
      const from = indexOfRoute(stack, '/d');
      const moved = stack.splice(from, 4).reverse();
      stack.splice(from, 0, ...moved);
    });
    await assertSameResponses(define, [...gets('/e', '/f'), EDIT, ...gets('/e', '/f', '/d', '/g', '/c')]);
  });

  it("a mounted router's own stack edited in place", async () => {
    const define = (framework: Framework): http.RequestListener => {
      const app = framework() as unknown as RoutedApp;
      const router = framework.Router() as unknown as { stack: StackLayer[]; get: RoutedApp['get'] };
      for (let i = 0; i < 10; i++) router.get('/' + i, (_req, res) => res.send('sub ' + i));
      app.use('/s', router);
      app.post('/edit', (_req, res) => {
        router.stack[3] = routeLayer(framework, '/zz', 'sub zz');
        res.send('edited');
      });
      app.use((_req: unknown, res: Res) => res.status(404).send('fallback'));
      return app as unknown as http.RequestListener;
    };
    await assertSameResponses(define, [...gets('/s/3', '/s/zz'), EDIT, ...gets('/s/3', '/s/zz', '/s/4')]);
  });

  it("a stack the app put in place of the router's, then edited in place", async () => {
    const define = (framework: Framework): http.RequestListener => {
      const app = framework() as unknown as RoutedApp;
      for (const name of NAMES) app.get('/' + name, (_req, res) => res.send('route ' + name));
      app.post('/replace', (_req, res) => {
        app._router.stack = app._router.stack.filter((layer) => layer.route?.path !== '/b');
        res.send('replaced');
      });
      app.post('/edit', (_req, res) => {
        const stack = app._router.stack;
        stack[indexOfRoute(stack, '/c')] = routeLayer(framework, '/new', 'route new');
        res.send('edited');
      });
      app.use((_req: unknown, res: Res) => res.status(404).send('fallback'));
      return app as unknown as http.RequestListener;
    };
    const replace: RequestSpec = { method: 'POST', path: '/replace' };
    await assertSameResponses(define, [...gets('/b', '/c'), replace, ...gets('/b', '/c'), EDIT, ...gets('/new', '/c')]);
  });

  it('a layer that edits the stack: the rest of the same walk sees the edit', async () => {
    const define = (framework: Framework): http.RequestListener => {
      const app = framework() as unknown as RoutedApp;
      app.use((req: http.IncomingMessage, _res: unknown, next: () => void) => {
        if (req.url === '/swap') {
          const stack = app._router.stack;
          stack[indexOfRoute(stack, '/swap')] = routeLayer(framework, '/swap', 'swapped in the walk');
        }
        next();
      });
      for (const name of [...NAMES, 'swap']) app.get('/' + name, (_req, res) => res.send('route ' + name));
      return app as unknown as http.RequestListener;
    };
    await assertSameResponses(define, gets('/a', '/swap', '/swap', '/j'));
  });
});

describe('a layer made without the constructor', () => {
  it("matched by its own regexp and keys, small stack and indexed, as Express's", async () => {
    // Object.create(Layer.prototype) with the fields filled in by hand, put in the stack.
    for (const count of [2, 10]) {
      const define = editedApp(count, (_framework, stack) => {
        const layer = Object.create(Object.getPrototypeOf(stack[0]));
        Object.assign(layer, {
          handle: (req: Req, res: Res) => res.send(`made ${JSON.stringify(req.params)}`),
          name: 'made',
          params: undefined,
          path: undefined,
          keys: [{ name: 'id', optional: false, offset: 6 }],
          regexp: /^\/made\/(?:([^/]+?))\/?$/i,
          route: undefined,
        });
        stack.splice(2, 0, layer);
      });
      await assertSameResponses(define, [EDIT, ...gets('/made/7', '/a', '/b', '/nothing')]);
    }
  });
});

describe("a layer's regexp reassigned in place", () => {
  it('on a small stack (scanned): the new expression matches, the old one no more', async () => {
    const define = editedApp(3, (framework, stack) => {
      stack[indexOfRoute(stack, '/b')].regexp = routeLayer(framework, '/renamed', '').regexp;
    });
    await assertSameResponses(define, [...gets('/b', '/renamed'), EDIT, ...gets('/renamed', '/b', '/c')]);
  });

  it('on an indexed stack: the layer is filed by its new expression', async () => {
    const define = editedApp(10, (framework, stack) => {
      stack[indexOfRoute(stack, '/g')].regexp = routeLayer(framework, '/renamed', '').regexp;
    });
    await assertSameResponses(define, [...gets('/g', '/renamed'), EDIT, ...gets('/renamed', '/g', '/h')]);
  });

  it('a hand-written expression with a parameter, and keys to name it', async () => {
    const define = editedApp(10, (_framework, stack) => {
      const layer = stack[indexOfRoute(stack, '/b')];
      layer.regexp = /^\/items\/(\d+)\/?$/i;
      layer.keys = [{ name: 'id', optional: false }];
    });
    await assertSameResponses(define, [...gets('/items/42'), EDIT, ...gets('/items/42', '/items/x', '/b')]);
  });
});

describe('what code that reads a router stack sees of it', () => {
  it('an array of the same layers, as express@4 shows it', () => {
    const apps = [express(), webapp()].map((make) => {
      const app = make as unknown as RoutedApp;
      app.get('/a', (_req, res) => res.send('a'));
      app.use('/b', (_req: unknown, res: Res) => res.send('b'));
      return app._router.stack;
    });
    for (const stack of apps) {
      assert.ok(Array.isArray(stack));
      assert.ok(stack instanceof Array);
      assert.equal(stack.length, 4);
    }
    const [theirs, ours] = apps;
    for (let i = 0; i < theirs.length; i++) {
      // Express's own enumerable members, `regexp` among them, are there (webapp's layers have more).
      const keys = Object.keys(ours[i]);
      for (const key of Object.keys(theirs[i])) assert.ok(keys.includes(key), key);
      assert.equal(String(ours[i].regexp), String(theirs[i].regexp));
    }
    assert.equal(JSON.stringify(ours.map((layer) => layer.route?.path ?? null)), '[null,null,"/a",null]');
    // Node 26's util.inspect marks a Proxy (`Proxy([ [Layer], ... ])`); earlier lines show the array.
    assert.match(inspect(ours, { depth: 0 }), /^(Proxy\()?\[\s*\[?Layer/);
    assert.deepEqual(
      [...ours].map((layer) => layer.regexp instanceof RegExp),
      [true, true, true, true],
    );
  });
});

describe('a stack of copied layers', () => {
  // Code that rebuilds a stack from copies (`Object.assign(Object.create(proto), layer)`):
  // a copy has Express's fields, not webapp's own (they are not enumerable).
  const copied = (framework: Framework) => {
    const app = framework() as unknown as RoutedApp;
    app.use(function logged(_req: unknown, _res: unknown, next: () => void) {
      next();
    });
    const router = (framework as unknown as { Router(): RoutedApp }).Router();
    router.get('/items/:id', (req, res) => res.send(`item ${req.params.id}`));
    app.use('/v1', router);
    app.use((_req: unknown, res: Res) => {
      const logged = app._router.stack.find((layer) => layer.name === 'logged')!;
      res.status(404).send(`fallback ${inspect(logged.params)}`);
    });
    app._router.stack = app._router.stack.map((layer) =>
      Object.assign(Object.create(Object.getPrototypeOf(layer)), layer),
    );
    return app as unknown as http.RequestListener;
  };

  it('routes as Express routes it, params and all', async () => {
    await assertSameResponses(copied, gets('/v1/items/7', '/v1/items/7/', '/v2/other', '/'));
  });

  it('is traced with the route templates of the layers copied', async () => {
    const routes: string[] = [];
    const handlers = {
      start: (message: unknown) => routes.push((message as { route: string }).route),
      end() {},
      asyncStart() {},
      asyncEnd() {},
      error() {},
    };
    const channel = diagnosticsChannel.tracingChannel('webapp:layer');
    channel.subscribe(handlers);
    try {
      await withServer(copied(webapp as unknown as Framework), async (port) => {
        assert.equal((await rawRequest(port, { path: '/v1/items/7' })).body, 'item 7');
      });
    } finally {
      channel.unsubscribe(handlers);
    }
    assert.deepEqual(routes, ['/', '/', '/', '/v1', '/v1/items/:id']);
  });
});
