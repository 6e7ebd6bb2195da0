/**
 * webapp/otel against what OpenTelemetry's own Express instrumentation gives express@4:
 * the same app on both, each with @opentelemetry/instrumentation-http making the server
 * span, and the server spans must be named alike and carry the same `http.route`, for
 * routes, nested routers, mounted apps, and requests only a mounted middleware or a
 * router that falls through saw; and a span the app starts itself must have the same
 * parent (the layer running it) on both.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, describe, it } from 'node:test';
import { trace } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
const unregister = registerInstrumentations({
  instrumentations: [new HttpInstrumentation(), new ExpressInstrumentation()],
});

// Loaded after the instrumentations, as an application would be: `express` is patched as it loads.

const express = require('express') as typeof import('express');

const webapp = require('../../src/index') as typeof import('../../src/index');

const { instrument } = require('../../src/otel/index') as typeof import('../../src/otel/index');

const { rawRequest, withServer } = require('../support/raw-http') as typeof import('../support/raw-http');

type Framework = typeof express;

const PATHS = [
  '/api/users/42',
  '/api/users/42/posts/7',
  '/api/nothing',
  '/static/app.css',
  '/mw/x',
  '/admin/stats',
  '/items/7',
  '/list/b',
  '/throws',
  '/nowhere',
];

function buildApp(framework: Framework): http.RequestListener {
  const app = framework();
  app.use(function logger(_req, _res, next) {
    next();
  });
  const posts = framework.Router({ mergeParams: true });
  posts.get('/:post', (req, res) => res.send(`post ${req.params.post}`));
  const users = framework.Router();
  users.get('/:id', (req, res) => res.send(`user ${req.params.id}`));
  users.use('/:id/posts', posts);
  const api = framework.Router();
  api.use('/users', users);
  app.use('/api', api);
  // A middleware mounted at a path that answers, and one that passes the request on.
  app.use('/static', (_req, res) => res.send('file'));
  app.use('/mw', (_req, _res, next) => next());
  const admin = framework();
  admin.get('/stats', (_req, res) => res.send('stats'));
  app.use('/admin', admin);
  app.route('/items/:id').get((req, res) => res.send(`item ${req.params.id}`));
  app.get(['/list/a', '/list/b'], (_req, res) => res.send('list'));
  app.get('/throws', () => {
    throw new Error('sync failure');
  });
  app.use((err: Error, _req: http.IncomingMessage, res: import('express').Response, _next: () => void) => {
    res.status(500).send('handled: ' + err.message);
  });
  return app as unknown as http.RequestListener;
}

/** `<status> <server span name> (<http.route>)` for each path, in order. */
async function serverSpans(app: http.RequestListener): Promise<string[]> {
  return withServer(app, async (port) => {
    const seen: string[] = [];
    for (const path of PATHS) {
      exporter.reset();
      const { status } = await rawRequest(port, { path });
      // kind 1 is SERVER: it ends as the response finishes, which the client may see first.
      const server = () => exporter.getFinishedSpans().find((span) => span.kind === 1);
      for (let i = 0; i < 100 && !server(); i++) await new Promise((resolve) => setTimeout(resolve, 2));
      const span = server();
      seen.push(`${status} ${span?.name} (${span?.attributes['http.route']})`);
    }
    return seen;
  });
}

/** An app whose layers start spans of their own, synchronously, after a timer and after awaits. */
function buildAppStartingSpans(framework: Framework): http.RequestListener {
  const tracer = trace.getTracer('app');
  const child = (name: string) => tracer.startSpan(name).end();
  const app = framework();
  app.use(function session(_req, _res, next) {
    setTimeout(() => {
      child('session lookup');
      next();
    }, 1);
  });
  app.use(function audit(_req, _res, next) {
    child('audit write');
    next();
  });
  const api = framework.Router();
  api.get('/orders/:id', async function loadOrder(req, res) {
    await new Promise((resolve) => setImmediate(resolve));
    child('orders query');
    await Promise.resolve();
    res.send('order ' + req.params.id);
  });
  app.use('/api', api);
  return app as unknown as http.RequestListener;
}

/** `<span> under <its parent's name>` for the spans the app started itself. */
async function appSpanParents(app: http.RequestListener): Promise<string[]> {
  return withServer(app, async (port) => {
    exporter.reset();
    const { status } = await rawRequest(port, { path: '/api/orders/3' });
    assert.equal(status, 200);
    const spans = () => exporter.getFinishedSpans();
    for (let i = 0; i < 100 && !spans().some((span) => span.kind === 1); i++)
      await new Promise((resolve) => setTimeout(resolve, 2));
    const nameOf = (id: string | undefined) => spans().find((span) => span.spanContext().spanId === id)?.name;
    return ['session lookup', 'audit write', 'orders query'].map((name) => {
      const span = spans().find((candidate) => candidate.name === name);
      return `${name} under ${nameOf(span?.parentSpanContext?.spanId)}`;
    });
  });
}

after(async () => {
  unregister();
  await provider.shutdown();
});

describe('webapp/otel and @opentelemetry/instrumentation-express on express@4', () => {
  it('name the server span and set http.route alike', async () => {
    const theirs = await serverSpans(buildApp(express));
    const instrumentation = instrument();
    let ours: string[];
    try {
      ours = await serverSpans(buildApp(webapp as unknown as Framework));
    } finally {
      instrumentation.disable();
    }
    assert.deepEqual(ours, theirs);
    assert.deepEqual(ours, [
      '200 GET /api/users/:id (/api/users/:id)',
      '200 GET /api/users/:id/posts/:post (/api/users/:id/posts/:post)',
      '404 GET /api (/api)',
      '200 GET /static (/static)',
      '404 GET /mw (/mw)',
      '200 GET /admin/stats (/admin/stats)',
      '200 GET /items/:id (/items/:id)',
      '200 GET /list/a,/list/b (/list/a,/list/b)',
      '500 GET /throws (/throws)',
      '404 GET (undefined)',
    ]);
  });
});

describe('spans an app starts itself, under webapp/otel and instrumentation-express', () => {
  it('have the layer that started them as parent on both', async () => {
    const theirs = await appSpanParents(buildAppStartingSpans(express));
    const instrumentation = instrument();
    let ours: string[];
    try {
      ours = await appSpanParents(buildAppStartingSpans(webapp as unknown as Framework));
    } finally {
      instrumentation.disable();
    }
    assert.deepEqual(ours, theirs);
    assert.deepEqual(ours, [
      'session lookup under middleware - session',
      'audit write under middleware - audit',
      'orders query under request handler - /api/orders/:id',
    ]);
  });
});
