/**
 * Sentry's SDK for Node, version 11 (the `sentry-node-11` devDependency, an npm alias
 * of `@sentry/node`; `@sentry/node` itself stays version 7 for sentry.test.ts). Its
 * Express support rewrites express/lib/router/layer.js as it loads and does not see
 * webapp, so webapp runs with the recipe of docs/tracing.md's "Sentry" section. The
 * same app runs on express@4 (Sentry's own Express integration) and on webapp (the
 * recipe), each in its own process with Sentry.init preloaded, and reports to a
 * Sentry ingest endpoint on 127.0.0.1; the responses, the segments (names, their
 * source, http.route) and the error events that arrive must be the same.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { RawResponse } from '../support/differential';
import { runInstrumentedApp, startCollector } from '../support/instrumented-app';

const PATHS = [
  '/api/users/42',
  '/api/orgs/acme/users/9',
  '/items/7',
  '/api/throw',
  '/api/async-fail',
  '/api/teapot',
  '/mw/x',
  '/api/nothing',
  '/nope',
];
/** The 5xx errors the app raises (a thrown one, one passed to next); the 418 is not reported. */
const ERRORS = 2;

interface Item {
  type: 'segment' | 'event';
  /**
   * A segment's name, source, http.route and status code; for an error event, its
   * message, mechanism and handled flag.
   */
  description: string;
  /** The segment's name; for an error event, the name of the transaction it happened in. */
  transaction: string;
}

interface StreamedSpan {
  name: string;
  is_segment?: boolean;
  attributes?: Record<string, { value: unknown }>;
}

/**
 * An envelope is lines of JSON: a header, then item headers each followed by its
 * payload. Version 11 streams spans: an item of type `span` holds a batch of them,
 * each request's http.server span marked `is_segment` (what was a transaction).
 */
function parseEnvelope(body: Buffer): Item[] {
  const lines = body.toString('utf8').split('\n').filter(Boolean);
  const found: Item[] = [];
  for (let i = 1; i + 1 < lines.length; i += 2) {
    const { type } = JSON.parse(lines[i]) as { type: string };
    if (type === 'span') {
      const { items } = JSON.parse(lines[i + 1]) as { items: StreamedSpan[] };
      for (const span of items.filter((each) => each.is_segment)) {
        const attribute = (key: string) => span.attributes?.[key]?.value;
        found.push({
          type: 'segment',
          transaction: span.name,
          description:
            `${span.name} (${attribute('sentry.segment.name.source')}) http.route=${attribute('http.route')}` +
            ` ${attribute('http.response.status_code')}`,
        });
      }
    } else if (type === 'event') {
      const event = JSON.parse(lines[i + 1]) as {
        transaction?: string;
        exception?: { values?: Array<{ value?: string; mechanism?: { type?: string; handled?: boolean } }> };
      };
      // The last value is the exception thrown (any before it are its causes).
      const exception = event.exception?.values?.at(-1);
      found.push({
        type: 'event',
        transaction: event.transaction ?? '',
        description: `${exception?.value} (${exception?.mechanism?.type}, handled: ${exception?.mechanism?.handled})`,
      });
    }
  }
  return found;
}

async function observe(framework: 'express' | 'webapp'): Promise<{ responses: RawResponse[]; items: Item[] }> {
  const ingest = await startCollector(parseEnvelope, (_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end('{}');
  });
  const count = (type: Item['type']) => ingest.items.filter((item) => item.type === type).length;
  const fixtures = join(__dirname, 'fixtures');
  try {
    const responses = await runInstrumentedApp({
      args: [
        // Version 11 is initialised first, as its documentation says: its module hooks
        // must see express load.
        '--import',
        join(fixtures, 'sentry11-instrument.cjs'),
        '--import',
        'tsx',
        join(fixtures, 'sentry11-app.ts'),
        framework,
        String(ingest.port),
      ],
      paths: PATHS,
      // One segment per request (each trace's spans are sent 500 ms after its segment
      // ends) and one event per reported error (sent as it is captured).
      arrived: () => count('segment') >= PATHS.length && count('event') >= ERRORS,
    });
    const order = (item: Item) => `${item.type} ${item.transaction} ${item.description}`;
    return { responses, items: ingest.items.sort((a, b) => order(a).localeCompare(order(b))) };
  } finally {
    ingest.close();
  }
}

describe('Sentry for Node, version 11, with the docs/tracing.md recipe on webapp', () => {
  it('answers as express@4 does, and names segments and reports errors as on express@4', async () => {
    const theirs = await observe('express');
    const ours = await observe('webapp');
    for (const [i, path] of PATHS.entries()) assert.deepEqual(ours.responses[i], theirs.responses[i], path);
    assert.deepEqual(ours.items, theirs.items);
    assert.deepEqual(
      ours.items.filter((item) => item.type === 'segment').map((item) => item.description),
      [
        // A middleware or router mounted at a path names a request it did not answer.
        'GET /api (route) http.route=/api 404',
        'GET /api/async-fail (route) http.route=/api/async-fail 500',
        'GET /api/orgs/:org/users/:id (route) http.route=/api/orgs/:org/users/:id 200',
        'GET /api/teapot (route) http.route=/api/teapot 418',
        'GET /api/throw (route) http.route=/api/throw 500',
        'GET /api/users/:id (route) http.route=/api/users/:id 200',
        'GET /items/:id (route) http.route=/items/:id 200',
        'GET /mw (route) http.route=/mw 404',
        // Nothing mounted at a path saw /nope: the http.server span keeps its own name.
        'GET (url) http.route=undefined 404',
      ],
    );
    assert.deepEqual(
      ours.items.filter((item) => item.type === 'event').map((item) => `${item.transaction}: ${item.description}`),
      [
        'GET /api/async-fail: async boom (auto.http.express, handled: false)',
        'GET /api/throw: sync boom (auto.http.express, handled: false)',
      ],
    );
  });
});
