/**
 * Connect-style middleware under test: a tiny chain runner on a bare
 * `http.createServer`, and a differential helper that runs the same chain on
 * Connect 2.30 (what Express 3.21 bundles) and on webapp's middleware.
 */
import type http from 'node:http';
import { patchedForConnect } from '../support/legacy-oracles';
import { answersOf, assertSameAnswers, comparable as compareFields } from '../support/compare';
import { rawRequest, withServer, type RawResponse, type RequestSpec } from '../support/raw-http';

export type { RequestSpec, RawResponse };
export { withServer, rawRequest };

type Next = (err?: unknown) => void;
/**
 * A middleware, or an error handler (4 arguments): one call signature, so an
 * inline `(req, res, next) => ...` is contextually typed (a union of the two
 * forms would leave its parameters implicitly `any`).
 */
export type Handler = (reqOrErr: any, res: any, next: any, ...errorHandlerNext: any[]) => void;

/** Ends an errored request with `err.status` (else 500) and the message, on both sides. */
export function sendError(err: any, _req: http.IncomingMessage, res: http.ServerResponse, _next: Next): void {
  res.statusCode = err.status || 500;
  res.end(String(err.message));
}

/**
 * Runs `handlers` in order; a 4-argument handler only sees errors. Unhandled
 * errors answer `err.status`, running off the end answers 404.
 */
export function chain(handlers: Handler[]): http.RequestListener {
  return (req, res) => {
    let index = 0;
    const next: Next = (err) => {
      const handler = handlers[index++];
      if (!handler) {
        if (err) return sendError(err, req, res, next);
        res.statusCode = 404;
        return res.end('Not Found');
      }
      try {
        if (handler.length === 4) {
          if (err) return (handler as any)(err, req, res, next);
          return next();
        }
        if (err) return next(err);
        (handler as any)(req, res, next);
      } catch (thrown) {
        next(thrown);
      }
    };
    next();
  };
}

/** Connect 2.30 (the oracle), with the same handlers and error ending. */
export function connectApp(handlers: Handler[]): http.RequestListener {
  const connect = require('connect');
  const app = connect();
  for (const handler of handlers) app.use(handler);
  app.use(sendError);
  return patchedForConnect(app);
}

/** Headers that differ by clock or connection handling. */
const VOLATILE: ReadonlySet<string> = new Set(['date', 'connection', 'keep-alive']);

export function comparable(res: RawResponse): { status: number; headers: Record<string, unknown>; body: string } {
  return compareFields(res, VOLATILE);
}

/**
 * Sends the same requests to `oracle` on Connect 2.30 and to `ours` on the
 * chain runner, and asserts equal status, headers and body.
 */
export function assertSameAsConnect(
  oracle: Handler[],
  ours: Handler[],
  requests: RequestSpec[],
  normalize: (res: RawResponse) => RawResponse = (res) => res,
): Promise<RawResponse[]> {
  return assertSameAnswers(
    () => connectApp(oracle),
    () => chain([...ours, sendError]),
    requests,
    {
      volatile: VOLATILE,
      normalize,
      subjectName: 'webapp middleware',
    },
  );
}

/** Runs requests against one chain and returns the raw answers. */
export function requestAll(handlers: Handler[], requests: RequestSpec[]): Promise<RawResponse[]> {
  return answersOf(chain(handlers), requests);
}

/** A handler that answers with JSON of what `pick(req)` returns. */
export function echo(pick: (req: any) => unknown): Handler {
  return (req: any, res: any) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(pick(req)));
  };
}

export function basic(user: string, pass: string): string {
  return 'Basic ' + Buffer.from(user + ':' + pass).toString('base64');
}
