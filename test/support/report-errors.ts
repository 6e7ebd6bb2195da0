/**
 * The error handler of the generated differentials' apps: what a thrown error (or
 * one passed to `next`) looked like to the app, as the body of a 500, written with
 * Node's own methods only (so the report does not depend on the API under test).
 */
import type http from 'node:http';

type ErrorLike = { name?: unknown; message?: unknown; code?: unknown; status?: unknown } | null | undefined;
type ErrorHandler = (
  err: ErrorLike,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  next: (err?: unknown) => void,
) => void;

export interface ReportOptions {
  /** The error's `code` in the report (default true). */
  code?: boolean;
  /**
   * A Content-Length set before the throw, which would announce another body: kept
   * as X-Failed-Content-Length (default), or only removed.
   */
  failedLength?: 'renamed' | 'removed';
}

/** An error handler (four parameters, as routers recognise one) reporting as `options` say. */
export function errorReporter(options: ReportOptions = {}): ErrorHandler {
  const withCode = options.code ?? true;
  const renamed = (options.failedLength ?? 'renamed') === 'renamed';
  return (err, _req, res, _next) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    res.statusCode = 500;
    const length = res.getHeader('Content-Length');
    res.removeHeader('Content-Length');
    if (renamed && length !== undefined) res.setHeader('X-Failed-Content-Length', length);
    const report = withCode
      ? {
          class: (err as object)?.constructor?.name,
          name: err?.name,
          message: err?.message,
          code: err?.code,
          status: err?.status,
        }
      : { class: (err as object)?.constructor?.name, name: err?.name, message: err?.message, status: err?.status };
    res.end(JSON.stringify(report));
  };
}

/**
 * The report of the express@4 differentials: class, name, message, code and status
 * as the body, beside the headers set before the throw (a Content-Length as
 * X-Failed-Content-Length).
 */
export const reportErrors = errorReporter();
