/**
 * Sentry's SDK for Node, version 7, on an unmodified Express app: its Express
 * integration wraps the router's `process_params` to rebuild each request's route and
 * names the transaction after it (`GET /users/:id`). The same app runs on express@4
 * and on webapp, each in its own process, and reports to a Sentry ingest endpoint on
 * 127.0.0.1; the transactions and error events that arrive must be the same.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runInstrumentedApp, startCollector } from '../support/instrumented-app';

const PATHS = ['/users/42', '/api/items/7', '/boom/now', '/missing'];

interface Envelope {
  type: string;
  transaction?: string;
  source?: string;
  error?: string;
}

/** An envelope is lines of JSON: a header, then item headers each followed by its payload. */
function parseEnvelope(body: Buffer): Envelope[] {
  const lines = body.toString('utf8').split('\n').filter(Boolean);
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
  const ingest = await startCollector(parseEnvelope, (_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end('{}');
  });
  try {
    const answers = await runInstrumentedApp({
      args: ['--import', 'tsx', join(__dirname, 'fixtures/sentry-app.ts'), framework, String(ingest.port)],
      paths: PATHS,
      // One transaction per request and one error event: sent as each request finishes.
      arrived: () => ingest.items.length >= PATHS.length + 1,
    });
    for (const [i, answer] of answers.entries())
      assert.ok([200, 404, 500].includes(answer.status), `${framework} ${PATHS[i]}: ${answer.status}`);
  } finally {
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
