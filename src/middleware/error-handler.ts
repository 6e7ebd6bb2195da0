/**
 * `errorHandler([options])`: the development error page (errorhandler 1.4).
 * Status from `err.status`/`err.statusCode` (500 outside 400..599), then by Accept:
 * an HTML page with the escaped stack, `{ error: { message, stack, ...props } }`
 * JSON, or the stack as text; `X-Content-Type-Options: nosniff` always. Headers
 * already sent: the socket is closed. `log` (default: unless NODE_ENV is `test`)
 * is `true` for console.error or a function `(err, str, req, res)`.
 * The page is written here (3.x read a template and stylesheet from disk).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { cutResponse } from '../http/cut-response';
import { defer } from '../http/defer';
import { escapeHtml } from '../http/escape-html';
import { acceptsTypes } from '../http/negotiation';
import { named } from '../named';

export type ErrorLogger = (err: unknown, str: string, req: IncomingMessage, res: ServerResponse) => void;
export interface ErrorHandlerOptions {
  log?: boolean | ErrorLogger;
}
type ErrorMiddleware = (err: any, req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

function stringify(value: any): string {
  if (value && value.stack) return String(value.stack);
  const str = String(value);
  return str === Object.prototype.toString.call(value) ? inspect(value) : str;
}

function escapeBlock(str: string): string {
  return escapeHtml(str).replace(/ {2}/g, ' &nbsp;').replace(/\n/g, '<br>');
}

function page(title: string, status: string, heading: string, stack: string[]): string {
  return (
    '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n<title>' +
    heading +
    '</title>\n' +
    '<style>body{padding:40px;font:13px "Helvetica Neue",Helvetica,Arial,sans-serif}' +
    'h1{font-size:48px;font-weight:200}#stacktrace{margin-top:15px;list-style:none;padding:0}' +
    '#stacktrace li{padding:2px 0;color:#555}</style>\n</head>\n<body>\n<div id="wrapper">\n' +
    '<h1>' +
    title +
    '</h1>\n<h2><em>' +
    status +
    '</em> ' +
    heading +
    '</h2>\n' +
    '<ul id="stacktrace">' +
    stack.map((line) => '<li>' + escapeBlock(line) + '</li>').join('') +
    '</ul>\n' +
    '</div>\n</body>\n</html>\n'
  );
}

export function errorHandler(options: ErrorHandlerOptions = {}): ErrorMiddleware {
  const env = process.env.NODE_ENV || 'development';
  let log: boolean | ErrorLogger = options.log === undefined ? env !== 'test' : options.log;
  if (typeof log !== 'function' && typeof log !== 'boolean')
    throw new TypeError('option log must be function or boolean');
  if (log === true) log = (_err, str) => console.error(str);
  const logger = log;

  return named('errorHandler', function (err, req, res, _next) {
    let status: unknown = res.statusCode;
    if (err && err.statusCode) status = err.statusCode;
    if (err && err.status) status = err.status;
    res.statusCode = errorStatus(status);
    // The page names the status as errorhandler set it on the response (`404.5`, `'404'`),
    // which Node truncates only when it writes the head.
    const shownStatus = res.statusCode === Math.trunc(Number(status)) ? String(status) : String(res.statusCode);
    const str = stringify(err);
    if (logger) defer(logger, err, str, req, res);
    if (res.headersSent) {
      cutResponse(req, res);
      return;
    }
    const type = acceptsTypes(req.headers, ['html', 'json', 'text']);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (type === 'html') {
      const inspected = !(err && err.stack) && String(err) === Object.prototype.toString.call(err);
      const heading = inspected ? 'Error' : escapeBlock(str.split('\n', 1)[0] || 'Error');
      const stack = inspected ? [str] : str.split('\n').slice(1);
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end(page(escapeHtml(pageTitle()), escapeHtml(shownStatus), heading, stack));
    } else if (type === 'json') {
      const error: Record<string, unknown> = { message: err?.message, stack: err?.stack };
      if (err != null) for (const prop in Object(err)) error[prop] = err[prop];
      // Serialised before the header is set, as errorhandler did: an error JSON cannot write
      // (a BigInt field, a cycle) throws to the next handler with no Content-Type left behind.
      const json = JSON.stringify({ error });
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(json);
    } else {
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.end(str);
    }
  });
}

/**
 * The status the page goes out with. errorhandler copies the error's status as it is
 * (500 below 400), and Node refuses to write a head with one that is not a number
 * from 100 to 999: thrown where the response ends, which middleware such as
 * `session` defers past any handler, so one request ended the process. Security fix:
 * anything outside 400..599 answers 500, as webapp's final handlers answer it; a
 * fractional status is truncated, as Node sends it.
 */
function errorStatus(status: unknown): number {
  const code = Number(status);
  return code >= 400 && code < 600 ? Math.trunc(code) : 500;
}

/** Read at request time, so `errorHandler.title = 'My app'` applies to existing handlers. */
function pageTitle(): string {
  return errorHandler.title;
}

/** The page title; 3.x apps see `Express`. */
errorHandler.title = 'Express';
