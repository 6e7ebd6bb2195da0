/**
 * The last handler of an app: what the client gets when no middleware answered
 * (404 "Cannot GET /path") or when an error reached the end of the stack. The
 * page, status and headers are the ones Express 4 (finalhandler) sends.
 */
import { Buffer } from 'node:buffer';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { cutResponse } from './cut-response';
import { defer } from './defer';
import { encodeUrl } from './encode-url';
import { escapeHtml } from './escape-html';
import { isHttp2Request } from './http2-request';
import { whenRequestRead } from './on-finished';
import { parseOriginalUrl } from './parse-url';

export interface FinalHandlerOptions {
  env?: string;
  onerror?: (err: unknown, req: IncomingMessage, res: ServerResponse) => void;
}

interface ErrorLike {
  status?: unknown;
  statusCode?: unknown;
  headers?: unknown;
  stack?: unknown;
  toString?: () => string;
}

/**
 * Answers what the app's stack left: the 404 page when `err` is empty, else the
 * error page (nothing once a response was sent, and the connection closed when
 * half of one was).
 */
export function finalHandler(
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
  options: FinalHandlerOptions,
): void {
  if (!err && res.headersSent) return;
  const env = options.env || process.env.NODE_ENV || 'development';
  const onerror = options.onerror;

  let status: number;
  let headers: Record<string, unknown> | undefined;
  let message: string;
  if (err) {
    const errorStatus = errorStatusCode(err as ErrorLike);
    if (errorStatus === undefined) {
      status = responseStatusCode(res);
    } else {
      status = errorStatus;
      headers = errorHeaders(err as ErrorLike);
    }
    message = errorMessage(err as ErrorLike, status, env);
  } else {
    status = 404;
    message = 'Cannot ' + req.method + ' ' + encodeUrl(resourceName(req));
  }

  if (err && onerror) defer(onerror, err, req, res);

  if (res.headersSent) {
    // Half a response cannot be turned into an error page: the client must see it cut short.
    cutResponse(req, res);
    return;
  }
  whenRequestRead(req, () => writeErrorPage(req, res, status, headers, message, onerror));
}

function errorStatusCode(err: ErrorLike): number | undefined {
  const status = readOrUndefined(() => err.status);
  if (typeof status === 'number' && status >= 400 && status < 600) return status;
  const statusCode = readOrUndefined(() => err.statusCode);
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 600) return statusCode;
  return undefined;
}

/**
 * What `read` returns, or undefined where it throws: a getter of the error's (`status`,
 * `headers`) or a Proxy's trap that throws would escape here, after the app's stack,
 * where nothing catches it and the process ends (as with Express). Read as absent, the
 * error gets the page an error without it gets.
 */
export function readOrUndefined(read: () => unknown): unknown {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/**
 * The response's own status when it is an error status, else 500. Written so that
 * NaN (`res.status(parseInt(req.query.code))` on a bad query) also gives 500:
 * finalhandler lets NaN through, Node then throws from `writeHead` after the
 * request was read, outside any handler, and the process dies.
 */
function responseStatusCode(res: ServerResponse): number {
  const status = res.statusCode;
  return typeof status === 'number' && status >= 400 && status <= 599 ? status : 500;
}

function errorHeaders(err: ErrorLike): Record<string, unknown> | undefined {
  return readOrUndefined(() => {
    const headers = err.headers;
    if (!headers || typeof headers !== 'object') return undefined;
    return Object.assign(Object.create(null), headers) as Record<string, unknown>;
  }) as Record<string, unknown> | undefined;
}

/**
 * The stack outside production (as Express shows it), only the status phrase in
 * production. A status without a phrase (499, 404.5) reads "undefined", as
 * Express's page prints it.
 */
function errorMessage(err: ErrorLike, status: number, env: string): string {
  let message: string | undefined;
  if (env !== 'production') {
    // Any truthy `stack` is printed as text, as Express's page does (`5`, `a,b`). A
    // symbol or a throwing toString would escape here, after the app's stack (Express's
    // page ends the process on those): the next fallback instead.
    try {
      const stack = err.stack;
      if (stack && typeof stack !== 'symbol') message = String(stack);
    } catch {
      message = undefined;
    }
    try {
      if (!message && typeof err.toString === 'function') message = err.toString();
    } catch {
      message = undefined;
    }
  }
  return message || String(STATUS_CODES[status]);
}

/** The path the 404 message names: `null` for a target without one (`GET http://`), as Express prints it. */
function resourceName(req: IncomingMessage): string {
  try {
    const url = parseOriginalUrl(req);
    return url == null ? 'resource' : String(url.pathname);
  } catch {
    return 'resource';
  }
}

function errorDocument(message: string): string {
  const body = escapeHtml(message)
    .replace(/\n/g, '<br>')
    .replace(/\x20{2}/g, ' &nbsp;');
  return (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n' +
    '<pre>' +
    body +
    '</pre>\n</body>\n</html>\n'
  );
}

function writeErrorPage(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Record<string, unknown> | undefined,
  message: string,
  onerror: FinalHandlerOptions['onerror'],
): void {
  if (res.headersSent || res.destroyed) return;
  const body = errorDocument(message);
  res.statusCode = status;
  // Without a phrase of its own, Node writes the integer status's phrase, or "unknown".
  if (!isHttp2Request(req)) res.statusMessage = STATUS_CODES[status] as string;
  res.removeHeader('Content-Encoding');
  res.removeHeader('Content-Language');
  res.removeHeader('Content-Range');
  if (headers) setErrorHeaders(res, headers);
  res.setHeader('Content-Security-Policy', "default-src 'none'");
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body, 'utf8'));
  try {
    if (req.method === 'HEAD') res.end();
    else res.end(body, 'utf8');
  } catch (err) {
    // This runs outside any handler (finalhandler lets Node's throw end the process):
    // a response that cannot be written is closed instead, and the error goes where
    // the app's errors go (its log outside the test env), not silently away.
    res.destroy(err as Error);
    if (onerror) defer(onerror, err, req, res);
  }
}

/**
 * The error's own headers (`err.headers`, as http-errors sets them). One Node
 * refuses (a CR/LF in the value, a name that is not a token) is left out: this
 * runs after the request was read, outside any handler, where finalhandler lets
 * Node's throw end the process.
 */
function setErrorHeaders(res: ServerResponse, headers: Record<string, unknown>): void {
  for (const key of Object.keys(headers)) {
    try {
      res.setHeader(key, headers[key] as string);
    } catch {
      // An invalid header is dropped; the error page still goes out.
    }
  }
}
