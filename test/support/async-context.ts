/**
 * Checks that an AsyncLocalStorage store entered before a middleware is still
 * the store after it: each request carries its id in `x-id`, the app enters it
 * with `enterStore`, and `storeProbe`/`storeErrorProbe` answer with the store
 * they see. Requests run concurrently so stores of different requests cannot
 * be confused.
 */
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import type http from 'node:http';
import { rawRequest, withServer, type RequestSpec } from './raw-http';

export const als = new AsyncLocalStorage<string>();

export interface StoreCase {
  name: string;
  request: RequestSpec;
  status: number;
}

type Next = (err?: unknown) => void;

export function enterStore(req: http.IncomingMessage, _res: http.ServerResponse, next: Next): void {
  als.run(String(req.headers['x-id']), next);
}

export function storeProbe(_req: http.IncomingMessage, res: http.ServerResponse): void {
  res.setHeader('X-Store', als.getStore() ?? 'none');
  res.end(JSON.stringify({ store: als.getStore() ?? null }));
}

export function storeErrorProbe(
  err: { status?: number; message?: string },
  _req: http.IncomingMessage,
  res: http.ServerResponse,
  _next: Next,
): void {
  res.statusCode = err.status ?? 500;
  res.setHeader('X-Store', als.getStore() ?? 'none');
  res.end(JSON.stringify({ store: als.getStore() ?? null, error: err.message }));
}

/** Sends every case three times concurrently, each under its own id, and checks the id comes back in `X-Store`. */
export async function assertStoreKept(listener: http.RequestListener, cases: StoreCase[]): Promise<void> {
  await withServer(listener, async (port) => {
    const results = await Promise.all(
      [0, 1, 2].flatMap((round) =>
        cases.map(async (c) => {
          const id = `${c.name}#${round}`;
          const res = await rawRequest(port, { ...c.request, headers: { ...c.request.headers, 'x-id': id } });
          return { c, id, res };
        }),
      ),
    );
    for (const { c, id, res } of results) {
      assert.equal(res.status, c.status, `${c.name}: status (${res.body.slice(0, 200)})`);
      assert.equal(res.headers['x-store'], id, `${c.name}: the store after the middleware`);
    }
    // The server keeps serving after every error path.
    const first = cases[0].request;
    const after = await rawRequest(port, { ...first, headers: { ...first.headers, 'x-id': 'after' } });
    assert.equal(after.headers['x-store'], 'after');
  });
}
