/**
 * webapp/otel with the OpenTelemetry SDK (in-memory exporter) and
 * @opentelemetry/instrumentation-http: the server span is named after the
 * route template and carries http.route; each middleware, router and handler
 * has a child span; errors are recorded on the spans they went through.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { trace, type Span } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { NextFunction, Request, Response } from '../../src/index';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
const unregister = registerInstrumentations({ instrumentations: [new HttpInstrumentation()] });

// Loaded after the instrumentation, as an application would be.

const { instrument, ATTR_LAYER_NAME, ATTR_LAYER_TYPE, LAYER_CHANNEL, REQUEST_CHANNEL } =
  require('../../src/otel/index') as typeof import('../../src/otel/index');

const { rawRequest, withServer } = require('../support/raw-http') as typeof import('../support/raw-http');

const { tracedApp } = require('../support/traced-app') as typeof import('../support/traced-app');

const webapp = require('../../src/index') as typeof import('../../src/index');

let instrumentation: { disable(): void };
before(() => {
  instrumentation = instrument();
});
after(async () => {
  instrumentation.disable();
  unregister();
  await provider.shutdown();
});
beforeEach(() => exporter.reset());

// A span the handler makes itself sits in the same trace.
const buildApp = () =>
  tracedApp({ inHandler: () => trace.getTracer('app').startActiveSpan('db query', (span: Span) => span.end()) });

/** The request, then the server side's spans once the server span has ended (kind 1 is SERVER, 2 CLIENT). */
async function get(
  path: string,
  app: http.RequestListener = buildApp(),
): Promise<{ status: number; body: string; spans: ReadableSpan[] }> {
  return withServer(app, async (port) => {
    const res = await rawRequest(port, { path });
    const isServer = (s: ReadableSpan) => s.kind === 1;
    for (let i = 0; i < 100 && !exporter.getFinishedSpans().some(isServer); i++)
      await new Promise((r) => setTimeout(r, 2));
    // The test's own request makes a client span: only the server side is of interest.
    return { status: res.status, body: res.body, spans: exporter.getFinishedSpans().filter((s) => s.kind !== 2) };
  });
}

const serverSpan = (spans: ReadableSpan[]) => spans.find((s) => s.kind === 1)!;
const byName = (spans: ReadableSpan[], name: string) => spans.find((s) => s.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('webapp/otel', () => {
  it('names the server span GET /api/users/:id, sets http.route, and nests layer spans under routers', async () => {
    const { status, spans } = await get('/api/users/42');
    assert.equal(status, 200);
    const server = serverSpan(spans);
    assert.equal(server.name, 'GET /api/users/:id');
    assert.equal(server.attributes['http.route'], '/api/users/:id');

    const names = spans
      .filter((s) => s !== server)
      .map((s) => s.name)
      .sort();
    assert.deepEqual(
      names,
      [
        'middleware - expressInit',
        'middleware - logger',
        'middleware - query',
        'request handler - /api/users/:id',
        'router - /api',
        'router - /api/users',
      ]
        .concat(names.includes('db query') ? ['db query'] : [])
        .sort(),
    );

    const serverId = server.spanContext().spanId;
    const api = byName(spans, 'router - /api')!;
    const users = byName(spans, 'router - /api/users')!;
    const handler = byName(spans, 'request handler - /api/users/:id')!;
    assert.equal(parentOf(byName(spans, 'middleware - logger')!), serverId);
    assert.equal(parentOf(api), serverId);
    assert.equal(parentOf(users), api.spanContext().spanId);
    assert.equal(parentOf(handler), users.spanContext().spanId);
    // The handler's span is the active one while it runs: a span it starts is its child.
    assert.equal(parentOf(byName(spans, 'db query')!), handler.spanContext().spanId);
    assert.equal(handler.attributes['http.route'], '/api/users/:id');
    // Each layer's http.route is the route it gives the request, as the Express
    // instrumentation sets it: a router's mount path; none for a middleware at the top.
    assert.equal(api.attributes['http.route'], '/api');
    assert.equal(users.attributes['http.route'], '/api/users');
    assert.ok(!('http.route' in byName(spans, 'middleware - logger')!.attributes));
    // The exported names are the attributes' (an exporter filter or a query can use them).
    assert.equal(handler.attributes[ATTR_LAYER_NAME], 'loadUser');
    assert.equal(handler.attributes[ATTR_LAYER_TYPE], 'request_handler');
    assert.deepEqual([ATTR_LAYER_NAME, ATTR_LAYER_TYPE], ['webapp.name', 'webapp.type']);
    for (const span of spans) assert.equal(span.spanContext().traceId, server.spanContext().traceId, span.name);
  });

  it('a rejecting async handler: exception on its span and the routers it left; error handler has a span', async () => {
    const { status, body, spans } = await get('/api/users/7/fail');
    assert.equal(status, 500);
    assert.equal(body, 'handled: async failure');
    const server = serverSpan(spans);
    assert.equal(server.name, 'GET /api/users/:id/fail');
    assert.equal(server.attributes['http.route'], '/api/users/:id/fail');
    for (const name of ['request handler - /api/users/:id/fail', 'router - /api/users', 'router - /api']) {
      const span = byName(spans, name)!;
      assert.equal(span.status.code, 2, name);
      assert.equal(span.status.message, 'async failure', name);
      assert.equal(
        span.events.find((e) => e.name === 'exception')?.attributes?.['exception.message'],
        'async failure',
        name,
      );
    }
    const onError = byName(spans, 'error handler - onError')!;
    assert.equal(onError.attributes['webapp.type'], 'error_handler');
    assert.equal(parentOf(onError), server.spanContext().spanId);
  });

  it('a request no route answers keeps the plain server span name (no route)', async () => {
    const { status, spans } = await get('/nowhere');
    assert.equal(status, 404);
    const server = serverSpan(spans);
    assert.equal(server.name, 'GET');
    assert.equal(server.attributes['http.route'], undefined);
    assert.ok(byName(spans, 'middleware - logger'));
  });

  it('ignoreLayersType skips spans of those kinds; children attach to the nearest span left', async () => {
    instrumentation.disable();
    instrumentation = instrument({ ignoreLayersType: ['middleware', 'router'] });
    try {
      const { spans } = await get('/api/users/5');
      const server = serverSpan(spans);
      assert.equal(server.name, 'GET /api/users/:id');
      const handler = byName(spans, 'request handler - /api/users/:id')!;
      assert.equal(parentOf(handler), server.spanContext().spanId);
      assert.deepEqual(
        spans.filter((s) => s.name.startsWith('middleware') || s.name.startsWith('router')),
        [],
      );
    } finally {
      instrumentation.disable();
      instrumentation = instrument();
    }
  });

  it('an error no handler takes: an Error is an exception on the server span; a value only the status', async () => {
    const app = webapp();
    app.get('/error', function throwsError() {
      throw new Error('nobody handles this');
    });
    app.get('/value', function passesValue(_req, _res, next) {
      next('a plain value');
    });
    const thrown = await get('/error', app);
    assert.equal(thrown.status, 500);
    const server = serverSpan(thrown.spans);
    assert.equal(server.name, 'GET /error');
    assert.equal(
      server.events.find((e) => e.name === 'exception')?.attributes?.['exception.message'],
      'nobody handles this',
    );

    exporter.reset();
    const passed = await get('/value', app);
    assert.equal(passed.status, 500);
    assert.deepEqual(
      serverSpan(passed.spans).events.filter((e) => e.name === 'exception'),
      [],
      'a value that is not an Error is no exception',
    );
    const handler = byName(passed.spans, 'request handler - /value')!;
    assert.equal(handler.status.code, 2);
    assert.equal(handler.status.message, 'a plain value');
    assert.deepEqual(
      handler.events.filter((e) => e.name === 'exception'),
      [],
    );
  });

  it('errors that cannot be made a string: the span status says what they are, and the app keeps serving', async () => {
    // A subscriber's throw would come back as an uncaught exception and end this process.
    const values: Record<string, () => unknown> = {
      'null-prototype': () => Object.create(null),
      'throwing-tostring': () => ({
        toString() {
          throw new Error('no string');
        },
      }),
      'throwing-message': () =>
        Object.defineProperty(new Error('x'), 'message', {
          get() {
            throw new Error('no message');
          },
        }),
    };
    const app = webapp();
    app.get('/:kind', function passesOdd(req, _res, next) {
      next(values[req.params.kind]());
    });
    app.use(function answers(_err: unknown, _req: Request, res: Response, _next: NextFunction) {
      res.status(500).send('handled');
    });
    for (const kind of Object.keys(values)) {
      exporter.reset();
      const { status, body, spans } = await get('/' + kind, app);
      assert.deepEqual([status, body], [500, 'handled'], kind);
      const handler = byName(spans, 'request handler - /:kind')!;
      assert.equal(handler.status.code, 2, kind);
      assert.match(handler.status.message!, /^\[object (Object|Error)\]$/, kind);
    }
    assert.equal((await get('/api/users/1')).status, 200);
  });

  it('an error through layers whose kind is ignored: only the spans kept record it', async () => {
    instrumentation.disable();
    instrumentation = instrument({ ignoreLayersType: ['router'] });
    try {
      const { status, spans } = await get('/api/users/7/fail');
      assert.equal(status, 500);
      assert.deepEqual(
        spans.filter((s) => s.name.startsWith('router')),
        [],
      );
      assert.equal(byName(spans, 'request handler - /api/users/:id/fail')!.status.message, 'async failure');
    } finally {
      instrumentation.disable();
      instrumentation = instrument();
    }
  });

  it('a router without an app: layer spans under the server span, which keeps its name', async () => {
    const outer = webapp.Router();
    const inner = webapp.Router();
    inner.get('/:id', function item(req, res) {
      res.end('item ' + req.params.id);
    });
    outer.use('/items', inner);
    const listener: http.RequestListener = (req, res) =>
      outer(req as never, res as never, () => {
        res.statusCode = 404;
        res.end();
      });
    const { status, body, spans } = await get('/items/3', listener);
    assert.equal(status, 200);
    assert.equal(body, 'item 3');
    const server = serverSpan(spans);
    assert.equal(server.name, 'GET', 'no app, no request trace: the server span is not renamed');
    const router = byName(spans, 'router - /items')!;
    assert.equal(parentOf(router), server.spanContext().spanId);
    assert.equal(parentOf(byName(spans, 'request handler - /items/:id')!), router.spanContext().spanId);
  });

  it('over HTTP/2 (instrumentation-http does not trace it): a server span of its own, one trace', async () => {
    // The layers started root spans, each in a trace of its own.
    const http2 = require('node:http2') as typeof import('node:http2');
    const server = http2.createServer(buildApp() as never);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = http2.connect(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const stream = session.request({ ':path': '/api/users/42?x=1' });
        let answered = 0;
        stream.on('response', (headers) => (answered = Number(headers[':status'])));
        stream.on('error', reject);
        stream.resume();
        stream.on('end', () => resolve(answered));
      });
      assert.equal(status, 200);
      const isServer = (s: ReadableSpan) => s.kind === 1;
      for (let i = 0; i < 100 && !exporter.getFinishedSpans().some(isServer); i++)
        await new Promise((r) => setTimeout(r, 2));
      const spans = exporter.getFinishedSpans();
      const servers = spans.filter(isServer);
      assert.equal(servers.length, 1);
      const [own] = servers;
      assert.equal(own.name, 'GET /api/users/:id');
      assert.equal(own.attributes['http.route'], '/api/users/:id');
      assert.equal(own.attributes['http.request.method'], 'GET');
      assert.equal(own.attributes['url.path'], '/api/users/42');
      assert.equal(own.attributes['http.response.status_code'], 200);
      // One trace, the app's own spans too: the handler's span is active while it runs.
      for (const span of spans) {
        assert.equal(span.spanContext().traceId, own.spanContext().traceId, span.name);
        if (span !== own) assert.ok(parentOf(span), `${span.name} has a parent`);
      }
      assert.equal(parentOf(byName(spans, 'router - /api')!), own.spanContext().spanId);
      const handler = byName(spans, 'request handler - /api/users/:id')!;
      assert.equal(parentOf(byName(spans, 'db query')!), handler.spanContext().spanId);
    } finally {
      session.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('under a serverless adapter whose response never closes: the server span ends, with the route', async () => {
    // @codegenie/serverless-express makes the request and response from a Lambda event;
    // its response finishes and never emits close.
    const serverlessExpress = require('@codegenie/serverless-express');
    const handler = serverlessExpress({ app: buildApp(), logSettings: { level: 'none' } });
    const result = await handler(
      {
        httpMethod: 'GET',
        path: '/api/users/42',
        resource: '/{proxy+}',
        headers: { host: 'example.test' },
        multiValueHeaders: { host: ['example.test'] },
        queryStringParameters: null,
        multiValueQueryStringParameters: null,
        requestContext: { identity: { sourceIp: '203.0.113.7' }, path: '/api/users/42', stage: 'prod' },
        body: null,
        isBase64Encoded: false,
      },
      {},
    );
    assert.equal(result.statusCode, 200);
    const isServer = (s: ReadableSpan) => s.kind === 1;
    for (let i = 0; i < 100 && !exporter.getFinishedSpans().some(isServer); i++)
      await new Promise((r) => setTimeout(r, 2));
    const spans = exporter.getFinishedSpans();
    const servers = spans.filter(isServer);
    assert.equal(servers.length, 1, 'one server span, ended');
    const [own] = servers;
    assert.equal(own.name, 'GET /api/users/:id');
    assert.equal(own.attributes['http.response.status_code'], 200);
    assert.equal(parentOf(byName(spans, 'router - /api')!), own.spanContext().spanId);
  });

  it('each layer span is active in the work it starts, after awaits and timers too', async () => {
    const tracer = trace.getTracer('app');
    const child = (name: string) => tracer.startSpan(name).end();
    const build = () => {
      const app = webapp();
      app.use(function session(_req: Request, _res: Response, next: NextFunction) {
        setTimeout(() => {
          child('session lookup');
          next();
        }, 1);
      });
      app.use(function audit(_req: Request, _res: Response, next: NextFunction) {
        child('audit write');
        next();
      });
      const api = webapp.Router();
      api.get('/orders/:id', async function loadOrder(req: Request, res: Response) {
        await new Promise((resolve) => setImmediate(resolve));
        child('orders query');
        await Promise.resolve();
        tracer.startActiveSpan('render', (span: Span) => {
          child('template');
          span.end();
        });
        res.send('order ' + req.params.id);
      });
      app.use('/api', api);
      return app;
    };
    const { status, spans } = await get('/api/orders/3', build());
    assert.equal(status, 200);
    const id = (name: string) => byName(spans, name)?.spanContext().spanId;
    assert.equal(parentOf(byName(spans, 'session lookup')!), id('middleware - session'));
    assert.equal(parentOf(byName(spans, 'audit write')!), id('middleware - audit'));
    assert.equal(parentOf(byName(spans, 'orders query')!), id('request handler - /api/orders/:id'));
    assert.equal(parentOf(byName(spans, 'render')!), id('request handler - /api/orders/:id'));
    assert.equal(parentOf(byName(spans, 'template')!), id('render'));
    // Siblings do not nest: each layer starts under its router, whatever ran before it.
    assert.equal(parentOf(byName(spans, 'middleware - audit')!), id(serverSpan(spans).name));
    assert.equal(parentOf(byName(spans, 'router - /api')!), serverSpan(spans).spanContext().spanId);

    // A kind left without spans runs in its nearest traced layer's span, not the last sibling's.
    instrumentation.disable();
    instrumentation = instrument({ ignoreLayersType: ['middleware'] });
    exporter.reset();
    try {
      const ignoredRun = await get('/api/orders/4', build());
      const server = serverSpan(ignoredRun.spans);
      assert.equal(byName(ignoredRun.spans, 'middleware - audit'), undefined);
      assert.equal(parentOf(byName(ignoredRun.spans, 'audit write')!), server.spanContext().spanId);
      assert.equal(parentOf(byName(ignoredRun.spans, 'session lookup')!), server.spanContext().spanId);
    } finally {
      instrumentation.disable();
      instrumentation = instrument();
    }
  });

  it('what a middleware puts in the context it calls next() in reaches the layers after it', async () => {
    // A tenant or request-id middleware: `context.with(withBaggage, next)`. The layers'
    // contexts were made from the request's, and the baggage was lost.
    const { context, propagation, createContextKey } = await import('@opentelemetry/api');
    const TENANT_KEY = createContextKey('tenant');
    const app = webapp();
    app.use(function tenant(_req: Request, _res: Response, next: NextFunction) {
      const withBaggage = propagation.setBaggage(
        context.active(),
        propagation.createBaggage({ tenant: { value: 'acme' } }),
      );
      context.with(withBaggage.setValue(TENANT_KEY, 'value of acme'), next);
    });
    app.use(function later(_req: Request, _res: Response, next: NextFunction) {
      setTimeout(next, 1);
    });
    const api = webapp.Router();
    api.get('/who', function who(_req: Request, res: Response) {
      const active = context.active();
      res.send(`${propagation.getBaggage(active)?.getEntry('tenant')?.value} ${String(active.getValue(TENANT_KEY))}`);
    });
    app.use('/api', api);
    const { status, body, spans } = await get('/api/who', app);
    assert.equal(status, 200);
    assert.equal(body, 'acme value of acme');
    // The spans are as before: each layer under its router.
    const id = (name: string) => byName(spans, name)?.spanContext().spanId;
    assert.equal(parentOf(byName(spans, 'request handler - /api/who')!), id('router - /api'));
    assert.equal(parentOf(byName(spans, 'middleware - later')!), serverSpan(spans).spanContext().spanId);
  });

  it('a context manager registered or replaced after instrument() is used from the next request on', async () => {
    const { context } = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
    const { AsyncLocalStorageContextManager } =
      require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
    context.disable();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const { spans } = await get('/api/users/8');
    const handler = byName(spans, 'request handler - /api/users/:id')!;
    assert.equal(parentOf(byName(spans, 'db query')!), handler.spanContext().spanId);
    assert.equal(serverSpan(spans).name, 'GET /api/users/:id');
  });

  it("a second instrument() disables the first: spans once, and the first one's disable() does nothing", async () => {
    instrumentation.disable();
    const first = instrument();
    const second = instrument();
    try {
      first.disable();
      const { spans } = await get('/api/users/7');
      const handler = spans.filter((span) => span.name === 'request handler - /api/users/:id');
      assert.equal(handler.length, 1);
      // The second one still binds the context: a span the handler starts is under the handler's.
      assert.equal(parentOf(byName(spans, 'db query')!), handler[0].spanContext().spanId);
    } finally {
      second.disable();
      exporter.reset();
      instrumentation = instrument();
    }
  });

  it('re-exports the names of the channels it listens to', () => {
    assert.deepEqual([REQUEST_CHANNEL, LAYER_CHANNEL], ['webapp:request', 'webapp:layer']);
  });

  it('disable() stops the layer spans', async () => {
    instrumentation.disable();
    try {
      const { spans } = await get('/api/users/1');
      assert.deepEqual(
        spans.map((s) => s.name).filter((n) => n !== 'db query'),
        ['GET'],
      );
    } finally {
      instrumentation = instrument();
    }
  });
});
