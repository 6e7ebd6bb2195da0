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
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { watchChild } from '../support/child-output';
import { rawRequest, type RawResponse } from '../support/differential';

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

/** An APM Server: the transactions and errors of every intake request, as they arrive. */
async function startIntake(): Promise<{ port: number; events: Event[]; close(): void }> {
  const events: Event[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/intake/v2/events') {
        const body = Buffer.concat(chunks);
        events.push(...parseEvents(req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body));
        res.statusCode = 202;
        res.end();
        return;
      }
      // The agent asks the server's version (GET /) before it sends.
      res.setHeader('Content-Type', 'application/json');
      res.end('{"version":"8.15.0"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, events, close: () => server.close() };
}

/** The intake's body is lines of JSON, each an object with one key: metadata, transaction, span, error... */
function parseEvents(body: Buffer): Event[] {
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

/** What the two frameworks may answer differently: the clock, and the brand X-Powered-By names. */
function comparable(response: RawResponse): RawResponse {
  const headers = { ...response.headers };
  delete headers.date;
  if (headers['x-powered-by'] !== undefined) headers['x-powered-by'] = '(brand)';
  return { ...response, headers };
}

async function observe(framework: 'express' | 'webapp'): Promise<{ responses: RawResponse[]; events: Event[] }> {
  const intake = await startIntake();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'fixtures/elastic-app.ts'), framework, String(intake.port)],
    // The agent names an error's culprit after its file relative to the working directory.
    { cwd: join(__dirname, '../..'), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const watched = watchChild(child);
  const responses: RawResponse[] = [];
  try {
    const port = Number((await watched.printed(/listening (\d+)/))[1]);
    for (const path of PATHS) responses.push(comparable(await rawRequest(port, { path })));
    // One transaction per request and one error per raised error: the agent sends them
    // in intake requests it ends every 100 ms (apiRequestTime).
    const deadline = Date.now() + 15_000;
    const count = (type: Event['type']) => intake.events.filter((event) => event.type === type).length;
    while ((count('transaction') < PATHS.length || count('error') < ERRORS) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    child.kill();
    await watched.exited;
    intake.close();
  }
  const order = (event: Event) => `${event.type} ${event.transaction} ${event.description}`;
  return { responses, events: intake.events.sort((a, b) => order(a).localeCompare(order(b))) };
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
