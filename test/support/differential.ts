/**
 * Differential testing: the same app definition runs on express@4 (the oracle) and
 * on webapp, the same raw HTTP requests go to both, and the answers must match.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import express from 'express';
import webapp = require('../../src/index');
import { assertSameAnswers } from './compare';
import { rawRequest, withServer, type RawResponse, type RequestSpec } from './raw-http';

/** What a test's app definition receives: the framework under test (`express` or `webapp`). */
export type Framework = typeof express;
export type AppFactory = (framework: Framework) => http.RequestListener;

export type { RequestSpec, RawResponse };
export { withServer, rawRequest };

/** Headers whose value legitimately differs between the two (clock, brand, connection handling). */
const VOLATILE: ReadonlySet<string> = new Set(['date', 'x-powered-by', 'connection', 'keep-alive']);

export const frameworks: Array<[string, Framework]> = [
  ['express', express],
  ['webapp', webapp as unknown as Framework],
];

/** An oracle and the webapp entry that must answer as it does. */
export interface FrameworkPair {
  oracle: unknown;
  subject: unknown;
}

/**
 * Sends every request to the app built on express and on webapp; asserts equal
 * status, headers (but the volatile ones) and body. Returns webapp's answers.
 * `pair` swaps in another oracle/subject pair (express@3 and webapp/v3).
 */
export function assertSameResponses(
  define: AppFactory,
  requests: RequestSpec[],
  pair: FrameworkPair = { oracle: express, subject: webapp },
  normalize: (res: RawResponse) => RawResponse = (res) => res,
): Promise<RawResponse[]> {
  return assertSameAnswers(
    () => define(pair.oracle as Framework),
    () => define(pair.subject as Framework),
    requests,
    {
      volatile: VOLATILE,
      normalize,
    },
  );
}

/**
 * Runs `flow` (a scripted client) against the app built on express@4, then on
 * webapp, and asserts that both saw the same; returns what webapp's client saw.
 * For answers that hold random tokens or depend on earlier ones (sessions, CSRF):
 * the flow reads each answer and reduces it to what must match.
 */
export async function assertSameFlow<T>(define: AppFactory, flow: (port: number) => Promise<T>): Promise<T> {
  const seen: T[] = [];
  for (const [, fw] of frameworks) seen.push(await withServer(define(fw), flow));
  assert.deepEqual(withClockDates(seen[1]), withClockDates(seen[0]), 'webapp differs');
  return seen[1]!;
}

/**
 * A flow may return whole header objects, and the two servers answer one after the
 * other: their Date headers fall in different seconds now and then. A `date` value
 * within a minute of now reads `<now>` wherever it sits in what the flow returned (a
 * fixed date, such as a Last-Modified or a date an app set, still compares).
 */
function withClockDates(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withClockDates);
  if (value === null || typeof value !== 'object') return value;
  const prototype = Object.getPrototypeOf(value) as object | null;
  if (prototype !== Object.prototype && prototype !== null) return value;
  const now = Date.now();
  // The same prototype: deepStrictEqual compares them, and a null one is Node's own.
  const out = Object.create(prototype) as Record<string, unknown>;
  for (const [key, field] of Object.entries(value)) {
    const clock =
      key.toLowerCase() === 'date' && typeof field === 'string' && Math.abs(Date.parse(field) - now) < 60_000;
    out[key] = clock ? '<now>' : withClockDates(field);
  }
  return out;
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

/**
 * A cookie's Expires computed from the clock (maxAge) differs between two answers
 * sent across a second boundary: one taken within a minute of now reads `<now>`,
 * on both sides, so fixed dates (the epoch of clearCookie, an explicit expires) still compare.
 */
export function withClockExpires(res: RawResponse): RawResponse {
  const cookies = res.headers['set-cookie'];
  if (!cookies) return res;
  const now = Date.now();
  const rewrite = (cookie: string): string =>
    cookie.replace(/Expires=([^;]+)/, (whole, date: string) =>
      Math.abs(Date.parse(date) - now) < 60_000 ? 'Expires=<now>' : whole,
    );
  return { ...res, headers: { ...res.headers, 'set-cookie': cookies.map(rewrite) } };
}
