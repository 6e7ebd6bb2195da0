/**
 * The differential runner every compatibility test uses: the same raw requests go
 * to an oracle's listener and to webapp's, and the answers must be equal. Loads
 * nothing of webapp or of the oracles; the callers choose both sides.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { rawRequest, withServer, type RawResponse, type RequestSpec } from './raw-http';

export interface CompareOptions {
  /** Headers whose value legitimately differs between the two (clock, connection handling...). */
  volatile: ReadonlySet<string>;
  /** Applied to both answers before comparing (e.g. to drop stack frames). */
  normalize?: (res: RawResponse) => RawResponse;
  /** Names the subject in assertion messages. */
  subjectName?: string;
}

/** Sends every request, one after the other, to a fresh server for `listener`. */
export function answersOf(listener: http.RequestListener, requests: RequestSpec[]): Promise<RawResponse[]> {
  return withServer(listener, async (port) => {
    const out: RawResponse[] = [];
    for (const spec of requests) out.push(await rawRequest(port, spec));
    return out;
  });
}

/** Status, headers but the volatile ones, and body: what two answers must share. */
export function comparable(
  res: RawResponse,
  volatile: ReadonlySet<string>,
): { status: number; headers: Record<string, unknown>; body: string } {
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(res.headers)) if (!volatile.has(name)) headers[name] = value;
  return { status: res.status, headers, body: res.body };
}

/**
 * Asserts equal answers from the oracle and the subject for every request;
 * returns the subject's. Each side's listener is built just before its turn, so
 * app definitions with side effects run in the same order as they are served.
 */
export async function assertSameAnswers(
  oracle: () => http.RequestListener,
  subject: () => http.RequestListener,
  requests: RequestSpec[],
  options: CompareOptions,
): Promise<RawResponse[]> {
  const normalize = options.normalize ?? ((res: RawResponse) => res);
  const expected = await answersOf(oracle(), requests);
  const actual = await answersOf(subject(), requests);
  for (let i = 0; i < requests.length; i++) {
    const spec = requests[i];
    const label =
      `${spec.method ?? 'GET'} ${spec.path} ${JSON.stringify(spec.headers ?? {})}: ` +
      `${options.subjectName ?? 'webapp'} differs`;
    assert.deepEqual(
      comparable(normalize(actual[i]), options.volatile),
      comparable(normalize(expected[i]), options.volatile),
      label,
    );
  }
  return actual;
}
