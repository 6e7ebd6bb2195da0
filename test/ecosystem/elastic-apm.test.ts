/**
 * Elastic's APM agent for Node (elastic-apm-node) on an unmodified Express app. The
 * agent patches ServerResponse.prototype.writeHead with a version that reads
 * getHeaders(); webapp once answered with no header but Content-Length under it. It
 * instruments the `express` package only, so webapp runs with the subscriber of
 * docs/tracing.md's "Elastic APM" section. The same app runs on express@4 and on
 * webapp, each in its own process, and reports to an APM Server intake on 127.0.0.1;
 * the responses, and the transactions and errors that arrive, must be the same.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { RawResponse } from '../support/differential';
import { runInstrumentedApp, startCollector } from '../support/instrumented-app';

const PATHS = ['/api/users/42', '/items/7', '/items/bad', '/api/throw', '/api/teapot', '/login', '/missing'];
/** The errors the app raises: a param callback's, a route's thrown one, a route's passed to next. */
const ERRORS = 3;

interface Event {
  type: 'transaction' | 'error';
  /** A transaction's name and result; for an error, its message, culprit and handled flag. */
  description: string;
  /** The transaction's name; for an error, the name of the transaction it happened in. */
  transaction: string;
}

/** The intake's body is lines of JSON, each an object with one key: metadata, transaction, span, error... */
function parseEvents(body: Buffer, req: IncomingMessage): Event[] {
  if (req.method !== 'POST' || req.url !== '/intake/v2/events') return [];
  const found: Event[] = [];
  for (const line of body.toString('utf8').split('\n').filter(Boolean)) {
    const event = JSON.parse(line) as {
      transaction?: { name: string; result: string };
      error?: {
        culprit?: string;
        exception?: { message?: string; handled?: boolean };
        transaction?: { name?: string };
      };
    };
    if (event.transaction) {
      const { name, result } = event.transaction;
      found.push({ type: 'transaction', transaction: name, description: `${name} (${result})` });
    } else if (event.error) {
      const { culprit, exception, transaction } = event.error;
      found.push({
        type: 'error',
        transaction: transaction?.name ?? '',
        description: `${exception?.message} at ${culprit}, handled: ${exception?.handled}`,
      });
    }
  }
  return found;
}

async function observe(framework: 'express' | 'webapp'): Promise<{ responses: RawResponse[]; events: Event[] }> {
  const intake = await startCollector(parseEvents, (req, res) => {
    if (req.method === 'POST') {
      res.statusCode = 202;
      res.end();
      return;
    }
    // The agent asks the server's version (GET /) before it sends.
    res.setHeader('Content-Type', 'application/json');
    res.end('{"version":"8.15.0"}');
  });
  const count = (type: Event['type']) => intake.items.filter((event) => event.type === type).length;
  try {
    const responses = await runInstrumentedApp({
      args: ['--import', 'tsx', join(__dirname, 'fixtures/elastic-app.ts'), framework, String(intake.port)],
      // The agent names an error's culprit after its file relative to the working directory.
      cwd: join(__dirname, '../..'),
      paths: PATHS,
      // One transaction per request and one error per raised error: the agent sends them
      // in intake requests it ends every 100 ms (apiRequestTime).
      arrived: () => count('transaction') >= PATHS.length && count('error') >= ERRORS,
    });
    const order = (event: Event) => `${event.type} ${event.transaction} ${event.description}`;
    return { responses, events: intake.items.sort((a, b) => order(a).localeCompare(order(b))) };
  } finally {
    intake.close();
  }
}

describe('Elastic APM for Node (elastic-apm-node), with the docs/tracing.md subscriber on webapp', () => {
  it('answers as express@4 does, and names transactions and reports errors as on express@4', async () => {
    const theirs = await observe('express');
    const ours = await observe('webapp');
    // The agent's writeHead patch reads getHeaders(): every header must still be sent.
    for (const [i, path] of PATHS.entries()) assert.deepEqual(ours.responses[i], theirs.responses[i], path);
    assert.deepEqual(ours.events, theirs.events);
    assert.deepEqual(
      ours.events.filter((event) => event.type === 'transaction').map((event) => event.description),
      [
        'GET /api/teapot (HTTP 4xx)',
        'GET /api/throw (HTTP 5xx)',
        'GET /api/users/:id (HTTP 2xx)',
        'GET /items/:id (HTTP 2xx)',
        'GET /items/:id (HTTP 5xx)',
        'GET /login (HTTP 3xx)',
        'GET unknown route (HTTP 4xx)',
      ],
    );
    assert.deepEqual(
      ours.events
        .filter((event) => event.type === 'error')
        .map((event) => `${event.transaction}: ${event.description}`),
      [
        'GET /api/teapot: teapot at teapot (test/ecosystem/fixtures/elastic-app.ts), handled: true',
        'GET /api/throw: sync boom at throwing (test/ecosystem/fixtures/elastic-app.ts), handled: true',
        // Raised by a param callback: reported from the error handler's handledError.
        'GET /items/:id: bad id at loadId (test/ecosystem/fixtures/elastic-app.ts), handled: true',
      ],
    );
  });
});
