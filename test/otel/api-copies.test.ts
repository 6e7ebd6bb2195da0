/**
 * webapp/otel when the app's `@opentelemetry/api` is another copy than webapp's own
 * (webapp linked, `file:` or in a workspace) and the app registers its provider after
 * `instrument()` (the two `--require` in either order, docs/tracing.md): the spans
 * still reach the app's provider. Each copy of the API has its own placeholder
 * provider, and only the registering copy connects its placeholder to the provider.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

// webapp/otel first, with the copy of the API it finds.

const { instrument } = require('../../src/otel/index') as typeof import('../../src/otel/index');

const { rawRequest, withServer } = require('../support/raw-http') as typeof import('../support/raw-http');

const webapp = require('../../src/index') as typeof import('../../src/index');

/** A second copy of `@opentelemetry/api`, as the app would load from its own node_modules. */
function secondApiCopy(): typeof import('@opentelemetry/api') {
  const entry = require.resolve('@opentelemetry/api');
  const root = entry.slice(0, entry.indexOf('/build/'));
  const ours = Object.keys(require.cache).filter((file) => file.startsWith(root));
  const kept = new Map(ours.map((file) => [file, require.cache[file]]));
  for (const file of ours) delete require.cache[file];
  try {
    return require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  } finally {
    for (const [file, module] of kept) require.cache[file] = module;
  }
}

const instrumentation = instrument();
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const appApi = secondApiCopy();
after(async () => {
  instrumentation.disable();
  appApi.trace.disable();
  appApi.context.disable();
  await provider.shutdown();
});

it("a provider registered after instrument() through the app's own copy of the API gets the spans", async () => {
  assert.notEqual(appApi.trace, (require('@opentelemetry/api') as typeof import('@opentelemetry/api')).trace);
  appApi.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  appApi.trace.setGlobalTracerProvider(provider);

  const app = webapp();
  app.get('/users/:id', (req, res) => res.send('user ' + req.params.id));
  const res = await withServer(app, (port) => rawRequest(port, { path: '/users/42' }));
  assert.equal(res.status, 200);
  for (let i = 0; i < 100 && exporter.getFinishedSpans().length < 3; i++) await new Promise((r) => setTimeout(r, 2));

  const names = exporter.getFinishedSpans().map((span) => span.name);
  // No instrumentation-http here: webapp's own server span, named from the route.
  assert.ok(names.includes('GET /users/:id'), names.join(', '));
  assert.ok(names.includes('request handler - /users/:id'), names.join(', '));
});
