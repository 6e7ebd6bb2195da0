/**
 * webapp's diagnostics_channel tracing: `webapp:request` once per request,
 * `webapp:layer` once per middleware, router, route handler and error handler,
 * with the layer's name, the route template (mount paths joined) and the error.
 */
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import type http from 'node:http';
import { afterEach, describe, it } from 'node:test';
import webapp = require('../../src/index');
import * as channels from '../../src/tracing/channels';
import { isTraced, type LayerTrace, type RequestTrace } from '../../src/tracing/channels';
import { rawRequest, withServer } from '../support/raw-http';
import { tracedApp } from '../support/traced-app';

type Event = [string, string, ...unknown[]];

const requestChannel = diagnosticsChannel.tracingChannel('webapp:request');
const layerChannel = diagnosticsChannel.tracingChannel('webapp:layer');

/** Records every event of both channels as [channel, event, details...] until the returned stop() is called. */
function record(): { events: Event[]; stop: () => void } {
  const events: Event[] = [];
  const layer = (event: string) => (message: unknown) => {
    const t = message as LayerTrace;
    events.push(['layer', event, t.kind, t.name, t.route, event === 'error' ? (t.error as Error).message : undefined]);
  };
  const request = (event: string) => (message: unknown) => {
    const t = message as RequestTrace;
    events.push(['request', event, t.route, event === 'error' ? (t.error as Error).message : undefined]);
  };
  const layerHandlers = {
    start: layer('start'),
    end: layer('end'),
    asyncStart: layer('asyncStart'),
    asyncEnd: layer('asyncEnd'),
    error: layer('error'),
  };
  const requestHandlers = {
    start: request('start'),
    end: request('end'),
    asyncStart: request('asyncStart'),
    asyncEnd: request('asyncEnd'),
    error: request('error'),
  };
  layerChannel.subscribe(layerHandlers);
  requestChannel.subscribe(requestHandlers);
  return {
    events,
    stop: () => {
      layerChannel.unsubscribe(layerHandlers);
      requestChannel.unsubscribe(requestHandlers);
    },
  };
}

/**
 * A middleware named `subscribing` that subscribes to both channels as the first request
 * passes it. `assertTracedFromSecondRequest` sends two requests to `path`: the first
 * subscribed while in flight, so none of its layers is traced; the second's traced
 * layers must be `expected`.
 */
function subscribesInFlight() {
  let recording: ReturnType<typeof record> | undefined;
  const layerStarts = () =>
    recording!.events.filter(([channel, event]) => channel === 'layer' && event === 'start').map((e) => e[3]);
  return {
    subscribing(_req: unknown, _res: unknown, next: () => void) {
      recording ??= record();
      next();
    },
    async assertTracedFromSecondRequest(listener: http.RequestListener, path: string, expected: string[]) {
      try {
        await withServer(listener, async (port) => {
          assert.equal((await rawRequest(port, { path })).body, 'ok');
          assert.deepEqual(layerStarts(), []);
          assert.equal((await rawRequest(port, { path })).body, 'ok');
          assert.deepEqual(layerStarts(), expected);
        });
      } finally {
        recording?.stop();
      }
    },
  };
}

let stop: (() => void) | undefined;
afterEach(() => stop?.());

const buildApp = () => tracedApp();

async function get(
  app: http.RequestListener,
  path: string,
  events: Event[],
): Promise<{ status: number; body: string; events: Event[] }> {
  return withServer(app, async (port) => {
    events.length = 0;
    const res = await rawRequest(port, { path });
    // The response's 'finish' may be seen by the server just after the client has the bytes.
    for (let i = 0; i < 50 && !events.some((e) => e[0] === 'request' && e[1] === 'asyncEnd'); i++)
      await new Promise((r) => setImmediate(r));
    return { status: res.status, body: res.body, events: events.slice() };
  });
}

const starts = (events: Event[]) => events.filter((e) => e[1] === 'start').map((e) => e.slice(0, 5));

describe('tracing channels', () => {
  it('a route in nested routers: every layer, the joined template on handlers and on the request', async () => {
    const recorder = record();
    stop = recorder.stop;
    const { status, body, events } = await get(buildApp(), '/api/users/42', recorder.events);
    assert.equal(status, 200);
    assert.equal(body, 'user 42');
    assert.deepEqual(starts(events), [
      ['request', 'start', undefined, undefined],
      ['layer', 'start', 'middleware', 'query', '/'],
      ['layer', 'start', 'middleware', 'expressInit', '/'],
      ['layer', 'start', 'middleware', 'logger', '/'],
      ['layer', 'start', 'router', 'router', '/api'],
      ['layer', 'start', 'router', 'router', '/api/users'],
      ['layer', 'start', 'request_handler', 'loadUser', '/api/users/:id'],
    ]);
    // The request's route is known once the handler ran; it finishes with the response.
    assert.deepEqual(
      events.filter((e) => e[0] === 'request' && e[1] !== 'start'),
      [
        ['request', 'end', '/api/users/:id', undefined],
        ['request', 'asyncStart', '/api/users/:id', undefined],
        ['request', 'asyncEnd', '/api/users/:id', undefined],
      ],
    );
    // Every layer started is finished, the handler with the response.
    const finished = events.filter((e) => e[0] === 'layer' && e[1] === 'asyncEnd').map((e) => e[3]);
    assert.deepEqual(finished.sort(), ['expressInit', 'logger', 'loadUser', 'query', 'router', 'router'].sort());
    assert.equal(events.filter((e) => e[1] === 'error').length, 0);
  });

  it('a mounted app: its mount path joins the template', async () => {
    const recorder = record();
    stop = recorder.stop;
    const { body, events } = await get(buildApp(), '/admin/stats', recorder.events);
    assert.equal(body, 'stats');
    assert.deepEqual(
      starts(events).filter((e) => e[2] === 'router' || e[2] === 'request_handler'),
      [
        ['layer', 'start', 'router', 'mounted_app', '/admin'],
        ['layer', 'start', 'request_handler', 'stats', '/admin/stats'],
      ],
    );
    assert.equal(
      events.filter((e) => e[0] === 'request' && e[1] === 'start').length,
      1,
      'one request trace for the outer app only',
    );
  });

  it('a rejecting async handler: error on its layer, on the routers it passes, then the error handler', async () => {
    const recorder = record();
    stop = recorder.stop;
    const { status, body, events } = await get(buildApp(), '/api/users/7/fail', recorder.events);
    assert.equal(status, 500);
    assert.equal(body, 'handled: async failure');
    assert.deepEqual(
      events.filter((e) => e[1] === 'error'),
      [
        ['layer', 'error', 'request_handler', 'rejects', '/api/users/:id/fail', 'async failure'],
        ['layer', 'error', 'router', 'router', '/api/users', 'async failure'],
        ['layer', 'error', 'router', 'router', '/api', 'async failure'],
      ],
    );
    assert.deepEqual(starts(events).at(-1), ['layer', 'start', 'error_handler', 'onError', '/']);
  });

  it('a handler that throws, and an error nobody handles: the request trace carries it', async () => {
    const recorder = record();
    stop = recorder.stop;
    const app = webapp();
    app.get('/boom', function boom() {
      throw new Error('unhandled');
    });
    const quiet = console.error;
    console.error = () => undefined;
    try {
      const { status, events } = await get(app, '/boom', recorder.events);
      assert.equal(status, 500);
      assert.deepEqual(
        events.filter((e) => e[1] === 'error'),
        [
          ['layer', 'error', 'request_handler', 'boom', '/boom', 'unhandled'],
          ['request', 'error', '/boom', 'unhandled'],
        ],
      );
    } finally {
      console.error = quiet;
    }
    const handled = await get(buildApp(), '/throws', recorder.events);
    assert.equal(handled.body, 'handled: sync failure');
    assert.deepEqual(
      handled.events.filter((e) => e[1] === 'error'),
      [['layer', 'error', 'request_handler', 'throws', '/throws', 'sync failure']],
    );
  });

  it("an error handler's payload carries the error it was called with, a param callback's too", async () => {
    const seen: Array<[string, string, unknown]> = [];
    const handlers = {
      start: (message: unknown) => {
        const t = message as LayerTrace;
        seen.push([t.kind, t.name, t.handledError instanceof Error ? t.handledError.message : t.handledError]);
      },
    };
    layerChannel.subscribe(handlers as never);
    stop = () => layerChannel.unsubscribe(handlers as never);
    const app = webapp();
    app.param('id', (_req, _res, next, id) => next(id === 'bad' ? new Error('bad id') : undefined));
    app.get('/items/:id', function item(req, res) {
      res.send(req.params.id);
    });
    app.use(function onError(err: Error, _req: webapp.Request, res: webapp.Response, _next: webapp.NextFunction) {
      res.status(418).send(err.message);
    });
    const failed = await get(app, '/items/bad', []);
    assert.deepEqual([failed.status, failed.body], [418, 'bad id']);
    assert.deepEqual(seen.at(-1), ['error_handler', 'onError', 'bad id']);
    seen.length = 0;
    assert.equal((await get(app, '/items/7', [])).body, '7');
    assert.deepEqual(
      seen.map(([kind, , handled]) => [kind, handled]),
      [
        ['middleware', undefined],
        ['middleware', undefined],
        ['request_handler', undefined],
      ],
    );
  });

  it('the layer payload links the enclosing router and the request', async () => {
    const seen: LayerTrace[] = [];
    const onStart = (message: unknown) => seen.push(message as LayerTrace);
    const handlers = { start: onStart };
    layerChannel.subscribe(handlers as never);
    const requestHandlers = { start: () => undefined };
    requestChannel.subscribe(requestHandlers as never);
    stop = () => {
      layerChannel.unsubscribe(handlers as never);
      requestChannel.unsubscribe(requestHandlers as never);
    };
    await get(buildApp(), '/api/users/1', []);
    const handler = seen.find((t) => t.kind === 'request_handler')!;
    assert.equal(handler.parent?.route, '/api/users');
    assert.equal(handler.parent?.parent?.route, '/api');
    assert.equal(handler.parent?.parent?.parent, undefined);
    assert.equal(handler.request?.route, '/api/users/:id');
    assert.equal(handler.layer.handle.name, 'loadUser');
  });

  it('templates of array, RegExp, trailing-slash and star paths', async () => {
    const recorder = record();
    stop = recorder.stop;
    const app = webapp();
    app.use(['/a', '/b'], function arrayMount(_req, _res, next) {
      next();
    });
    const api = webapp.Router();
    api.get('/slash/', function slash(_req, res) {
      res.end('slash');
    });
    app.use('/api/', api);
    app.get(/^\/re\/\d+$/, function regexp(_req, res) {
      res.end('regexp');
    });
    // A router mounted at a RegExp: one slash between its template and the route's.
    const versioned = webapp.Router();
    versioned.get('/ping', function ping(_req, res) {
      res.end('ping');
    });
    app.use(/^\/v\d+/, versioned);
    app.get('*', function star(_req, res) {
      res.end('star');
    });
    const handlers = async (path: string) =>
      starts((await get(app, path, recorder.events)).events).filter((e) => e[2] !== 'middleware' || e[3] !== 'query');
    assert.deepEqual((await handlers('/api/slash/')).slice(1), [
      ['layer', 'start', 'middleware', 'expressInit', '/'],
      ['layer', 'start', 'router', 'router', '/api'],
      ['layer', 'start', 'request_handler', 'slash', '/api/slash'],
    ]);
    assert.deepEqual((await handlers('/re/12')).at(-1), [
      'layer',
      'start',
      'request_handler',
      'regexp',
      '/^\\/re\\/\\d+$/',
    ]);
    assert.deepEqual((await handlers('/v2/ping')).at(-1), [
      'layer',
      'start',
      'request_handler',
      'ping',
      '/^\\/v\\d+/ping',
    ]);
    assert.deepEqual((await handlers('/b/x')).slice(-2), [
      ['layer', 'start', 'middleware', 'arrayMount', '/a,/b'],
      ['layer', 'start', 'request_handler', 'star', '/*'],
    ]);
  });

  it('where TracingChannel has no hasSubscribers (Node 20 before 20.13), a subscriber to any event counts', () => {
    const channel = diagnosticsChannel.tracingChannel('webapp:test-without-hasSubscribers');
    Object.defineProperty(channel, 'hasSubscribers', { value: undefined });
    assert.equal(isTraced(channel as never), false);
    for (const event of ['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const) {
      const subscriber = () => undefined;
      channel[event].subscribe(subscriber);
      assert.equal(isTraced(channel as never), true, event);
      channel[event].unsubscribe(subscriber);
    }
    assert.equal(isTraced(channel as never), false);
  });

  it('a subscription made while a request is in flight applies from the next request entering a router', async () => {
    const probe = subscribesInFlight();
    const app = webapp();
    app.use(probe.subscribing);
    app.get('/', function handler(_req, res) {
      res.end('ok');
    });
    await probe.assertTracedFromSecondRequest(app, '/', ['query', 'expressInit', 'subscribing', 'handler']);
  });

  it('a subscription made in a router applies to routers nested in it from the next request', async () => {
    const probe = subscribesInFlight();
    const app = webapp();
    const outer = webapp.Router();
    const inner = webapp.Router();
    outer.use(probe.subscribing);
    inner.get('/', function handler(_req, res) {
      res.end('ok');
    });
    outer.use('/inner', inner);
    app.use('/outer', outer);
    await probe.assertTracedFromSecondRequest(app, '/outer/inner', [
      'query',
      'expressInit',
      'router',
      'subscribing',
      'router',
      'handler',
    ]);
  });

  it('asks the channels once per request and app, however deeply its routers nest', async () => {
    // Counts the asks: an own getter on each of webapp's channel objects in front of the prototype's.
    let asks = 0;
    const spied = [channels.layerChannel, channels.requestChannel];
    for (const channel of spied) {
      Object.defineProperty(channel, 'hasSubscribers', {
        configurable: true,
        get() {
          asks++;
          return false;
        },
      });
    }
    const flat = webapp();
    flat.get('/a/b/c/d', (_req, res) => res.end('ok'));
    const nestedRouters = webapp();
    const a = webapp.Router();
    const b = webapp.Router();
    const c = webapp.Router();
    c.get('/d', (_req, res) => res.end('ok'));
    b.use('/c', c);
    a.use('/b', b);
    nestedRouters.use('/a', a);
    const nestedApps = webapp();
    const sub = webapp();
    const router = webapp.Router();
    router.get('/c/d', (_req, res) => res.end('ok'));
    sub.use('/b', router);
    nestedApps.use('/a', sub);
    const asksPerRequest = async (app: typeof flat) => {
      let counted = 0;
      await withServer(app, async (port) => {
        asks = 0;
        for (let i = 0; i < 3; i++) assert.equal((await rawRequest(port, { path: '/a/b/c/d' })).body, 'ok');
        counted = asks / 3;
      });
      return counted;
    };
    try {
      const flatAsks = await asksPerRequest(flat);
      assert.equal(flatAsks, spied.length);
      assert.equal(await asksPerRequest(nestedRouters), flatAsks);
      // A mounted app asks as it is entered, as the outer one did.
      assert.equal(await asksPerRequest(nestedApps), 2 * flatAsks);
    } finally {
      for (const channel of spied) delete (channel as { hasSubscribers?: boolean }).hasSubscribers;
    }
  });

  it('a router outside any app asks as each request enters it', async () => {
    const probe = subscribesInFlight();
    const router = webapp.Router();
    router.use(probe.subscribing);
    router.get('/', function handler(_req, res) {
      res.end('ok');
    });
    // A router as a plain request listener, as `router(req, res, done)` is usable without an app.
    const listener = (req: http.IncomingMessage, res: http.ServerResponse) =>
      (router as unknown as http.RequestListener & ((...args: unknown[]) => void))(req, res, () =>
        res.end('not found'),
      );
    await probe.assertTracedFromSecondRequest(listener, '/', ['subscribing', 'handler']);
  });

  it('with nobody subscribed, requests carry no trace state', async () => {
    const app = buildApp();
    let symbols: string[] = [];
    app.use('/probe', (req, res) => {
      symbols = Object.getOwnPropertySymbols(req)
        .map(String)
        .filter((s) => s.includes('tracing'));
      res.end('ok');
    });
    await withServer(app, async (port) => {
      assert.equal((await rawRequest(port, { path: '/probe' })).body, 'ok');
    });
    assert.deepEqual(symbols, []);
  });
});
