/**
 * Sentry's SDK for Node, version 7, on an unmodified Express app: its Express
 * integration wraps the router's `process_params` to rebuild each request's route and
 * names the transaction after it (`GET /users/:id`). The same app runs on express@4
 * and on webapp, each in its own process, and reports to a Sentry ingest endpoint on
 * 127.0.0.1; the transactions and error events that arrive must be the same.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { watchChild } from '../support/child-output';
import { rawRequest } from '../support/differential';

const PATHS = ['/users/42', '/api/items/7', '/boom/now', '/missing'];

interface Envelope {
  type: string;
  transaction?: string;
  source?: string;
  error?: string;
}

/** A Sentry ingest endpoint: every envelope item of type transaction or event, as it arrives. */
async function startIngest(): Promise<{ port: number; items: Envelope[]; close(): void }> {
  const items: Envelope[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      items.push(...parseEnvelope(body));
      res.setHeader('Content-Type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, items, close: () => server.close() };
}

/** An envelope is lines of JSON: a header, then item headers each followed by its payload. */
function parseEnvelope(body: string): Envelope[] {
  const lines = body.split('\n').filter(Boolean);
  const found: Envelope[] = [];
  for (let i = 1; i + 1 < lines.length; i += 2) {
    const { type } = JSON.parse(lines[i]) as { type: string };
    const payload = JSON.parse(lines[i + 1]) as {
      transaction?: string;
      transaction_info?: { source?: string };
      tags?: { transaction?: string };
      exception?: { values?: Array<{ value?: string }> };
    };
    if (type !== 'transaction' && type !== 'event') continue;
    found.push({
      type,
      // A transaction carries its name; an error event, the name of the transaction it happened in.
      transaction: payload.transaction ?? payload.tags?.transaction,
      source: payload.transaction_info?.source,
      error: payload.exception?.values?.[0]?.value,
    });
  }
  return found;
}

async function observe(framework: 'express' | 'webapp'): Promise<Envelope[]> {
  const ingest = await startIngest();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'fixtures/sentry-app.ts'), framework, String(ingest.port)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const watched = watchChild(child);
  try {
    const port = Number((await watched.printed(/listening (\d+)/))[1]);
    for (const path of PATHS) {
      const answer = await rawRequest(port, { path });
      assert.ok([200, 404, 500].includes(answer.status), `${framework} ${path}: ${answer.status}`);
    }
    // One transaction per request and one error event: sent as each request finishes.
    const deadline = Date.now() + 15_000;
    while (ingest.items.length < PATHS.length + 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    child.kill();
    await watched.exited;
    ingest.close();
  }
  const order = (item: Envelope) => `${item.type} ${item.transaction}`;
  return ingest.items.sort((a, b) => order(a).localeCompare(order(b)));
}

describe('Sentry for Node, version 7 (its Express integration)', () => {
  it('names transactions after the route and reports errors as on express@4', async () => {
    const theirs = await observe('express');
    const ours = await observe('webapp');
    assert.deepEqual(ours, theirs);
    assert.deepEqual(
      ours.filter((item) => item.type === 'transaction').map((item) => `${item.transaction} (${item.source})`),
      ['GET /api/items/:item (route)', 'GET /boom/:kind (route)', 'GET /missing (custom)', 'GET /users/:id (route)'],
    );
    assert.deepEqual(
      ours.filter((item) => item.type === 'event').map((item) => `${item.transaction}: ${item.error}`),
      ['GET /boom/:kind: boom'],
    );
  });
});
