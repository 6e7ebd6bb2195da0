/**
 * The last handler of a 3.x app, as Connect 2.30 (finalhandler 0.4) answers:
 * "Cannot GET /path" or the escaped error text, without the HTML document that
 * 4.x wraps around it.
 */
import { Buffer } from 'node:buffer';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { errorText } from '../http/error-text';
import { cutResponse } from '../http/cut-response';
import { escapeHtml } from '../http/escape-html';
import { readOrUndefined } from '../http/final-handler';
import { isHttp2Request } from '../http/http2-request';
import { whenRequestRead } from '../http/on-finished';

interface ErrorLike {
  status?: unknown;
  statusCode?: unknown;
  stack?: string;
  toString(): string;
}

export function finalHandler3(
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  options: { env: string },
) {
  return (err?: unknown): void => {
    // A number: an error handler may have left any value there (`res.statusCode = err.status`).
    let status = Number(res.statusCode);
    if (!err && res.headersSent) return;
    let message: string;
    if (err) {
      const error = err as ErrorLike;
      // Read as absent where a getter (or a Proxy's trap) throws: 3.x's page threw here,
      // outside any handler, and the process ended; 4.x's final handler reads them so too.
      const statusCode = readOrUndefined(() => error.statusCode);
      const errorStatus = readOrUndefined(() => error.status);
      if (statusCode) status = asNumber(statusCode);
      if (errorStatus) status = asNumber(errorStatus);
      // Security fix over 3.x: a status Node refuses (1000, NaN) made 3.x throw
      // while answering, crashing the process; webapp answers 500 for anything
      // outside 400..599.
      if (!(status >= 400 && status < 600)) status = 500;
      // 3.x's page names the status as given: `undefined` for one Node has no name for (450, 404.5).
      const text = options.env === 'production' ? String(STATUS_CODES[status]) : pageText(error);
      // Node sends a fractional status truncated (`404.5` answers 404), as under 3.x.
      status = Math.trunc(status);
      message = escapeHtml(text).replace(/\n/g, '<br>').replace(/ {2}/g, ' &nbsp;') + '\n';
      if (options.env !== 'test') console.error(errorText(error));
    } else {
      status = 404;
      message = 'Cannot ' + escapeHtml(String(req.method)) + ' ' + escapeHtml(req.originalUrl || req.url || '') + '\n';
    }
    if (res.headersSent) {
      cutResponse(req, res);
      return;
    }
    const write = () => {
      if (res.headersSent || res.destroyed) return;
      res.statusCode = status;
      // A status message Node refuses (a line break the app took from the request) made
      // 3.x's page throw too, here outside any handler: the process ended. The page goes
      // out with the status's own text, as the 4.x final handler sends every page.
      if (!isHttp2Request(req) && !sendableStatusMessage(res.statusMessage))
        res.statusMessage = STATUS_CODES[status] ?? '';
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.setHeader('Content-Length', Buffer.byteLength(message, 'utf8'));
      try {
        if (req.method === 'HEAD') res.end();
        else res.end(message, 'utf8');
      } catch (thrown) {
        // This runs outside any handler: what throws as the page goes out (a header
        // listener of a middleware, a session replaced by a plain object) ended the
        // process. The response is closed instead, and the error logged, as 4.x's
        // final handler does.
        res.destroy(thrown as Error);
        if (options.env !== 'test') console.error(errorText(thrown as ErrorLike));
      }
    };
    whenRequestRead(req, write);
  };
}

/** `Number(value)`, NaN (no status) for a value Number() refuses: a symbol, a throwing valueOf. */
function asNumber(value: unknown): number {
  try {
    return Number(value);
  } catch {
    return NaN;
  }
}

/**
 * The page's text of an error, its stack or `toString()`: one that is not text (an
 * object without a prototype as the stack) is named by its type, where 3.x's page threw
 * turning it into a string and the process ended.
 */
function pageText(error: ErrorLike): string {
  const text = errorText(error);
  try {
    return String(text);
  } catch {
    return Object.prototype.toString.call(text);
  }
}

/** Node's test of a status message (`checkInvalidHeaderChar`): tab and the printable latin1 characters only. */
const REFUSED_IN_STATUS_MESSAGE = /[^\t\x20-\x7e\x80-\xff]/;

function sendableStatusMessage(message: unknown): boolean {
  return typeof message !== 'string' || !REFUSED_IN_STATUS_MESSAGE.test(message);
}
