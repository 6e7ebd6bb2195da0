/**
 * Differential testing: the same app definition runs on express@4 (the oracle) and
 * on webapp, the same raw HTTP requests go to both, and the answers must match.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import express from 'express';
import webapp = require('../../src/index');
import { rawRequest, withServer, type RawResponse, type RequestSpec } from './raw-http';

/** What a test's app definition receives: the framework under test (`express` or `webapp`). */
export type Framework = typeof express;
export type AppFactory = (framework: Framework) => http.RequestListener;

export type { RequestSpec, RawResponse };
export { withServer, rawRequest };

/** Headers whose value legitimately differs between the two (clock, brand, connection handling). */
const VOLATILE = new Set(['date', 'x-powered-by', 'connection', 'keep-alive']);

export const frameworks: Array<[string, Framework]> = [
  ['express', express],
  ['webapp', webapp as unknown as Framework],
];

function comparable(res: RawResponse): { status: number; headers: Record<string, unknown>; body: string } {
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(res.headers)) if (!VOLATILE.has(name)) headers[name] = value;
  return { status: res.status, headers, body: res.body };
}

/**
 * Sends every request to the app built on express and on webapp; asserts equal
 * status, headers (but the volatile ones) and body. Returns webapp's answers.
 * `pair` swaps in another oracle/subject pair (express@3 and webapp/v3).
 */
export async function assertSameResponses(
  define: AppFactory,
  requests: RequestSpec[],
  pair: { oracle: unknown; subject: unknown } = { oracle: express, subject: webapp },
  normalize: (res: RawResponse) => RawResponse = (res) => res,
): Promise<RawResponse[]> {
  const expected = await withServer(define(pair.oracle as Framework), async (port) => {
    const out: RawResponse[] = [];
    for (const spec of requests) out.push(await rawRequest(port, spec));
    return out;
  });
  return withServer(define(pair.subject as Framework), async (port) => {
    const out: RawResponse[] = [];
    for (let i = 0; i < requests.length; i++) {
      const actual = await rawRequest(port, requests[i]);
      const label = `${requests[i].method ?? 'GET'} ${requests[i].path}`;
      assert.deepEqual(comparable(normalize(actual)), comparable(normalize(expected[i])), `${label}: webapp differs from express`);
      out.push(actual);
    }
    return out;
  });
}

/**
 * Error pages outside production show a stack whose frames differ between two
 * implementations: keep the first line (the error itself) and drop the length.
 */
export function withoutStackFrames(res: RawResponse): RawResponse {
  const cut = res.body.indexOf('<br> &nbsp; &nbsp;at ');
  if (cut === -1) return res;
  const headers = { ...res.headers };
  delete headers['content-length'];
  return { ...res, headers, body: res.body.slice(0, cut) };
}
