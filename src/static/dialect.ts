/**
 * What a version of the `send` package adds and takes away on its own. Express 4
 * serves files with send 0.19; Express 3.21 and Connect 2.30 with send 0.13, whose
 * answers differ in ways a client sees: the type and charset a file's Content-Type
 * gets (its mime 1.3 has older names for a few types, and gives a charset to
 * `text/*` only), the headers a 304 keeps (it drops
 * every Content-* header but Content-Location, an app's own ones included), the
 * conditional headers it judges (no If-Match or If-Unmodified-Since, so no 412;
 * fresh 0.3's If-None-Match), and its Range parsing (range-parser 1.0: any unit,
 * and one unsatisfiable part makes the whole header a 416).
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { createHttpError, type HttpError } from '../http/errors';
import { isFresh, isFresh03 } from '../http/fresh';
import { charsetFor, charsetFor3, mediaTypeFor, mediaTypeFor3 } from '../http/mime-answers';
import { parseRange, type Ranges } from '../http/range-parser';

export interface SendDialect {
  /**
   * The media type a file path (its extension) is sent with: the default type when the
   * extension is unknown; falsy, for no Content-Type, only from an app's own `mime.lookup`.
   */
  typeOfFile(path: string): unknown;
  /** The charset a file of this media type is served with, or falsy. */
  charsetOf(type: string): unknown;
  /** Takes away the entity headers a 304 answer does not carry. */
  removeContentHeaders(res: ServerResponse): void;
  /** Whether If-Match and If-Unmodified-Since are judged (a 412 when they fail). */
  preconditions: boolean;
  /** Whether the client's cached copy is still fresh (a 304). */
  isFresh(reqHeaders: IncomingHttpHeaders, resHeaders: OutgoingHttpHeaders): boolean;
  /** The ranges a Range header asks for in `size` bytes; -1 when unsatisfiable, -2 to send the whole file. */
  ranges(size: number, header: string): Ranges | -1 | -2;
  /**
   * The error send makes of a status alone (404, 403, 400, 412, 416; `headers` the ones
   * the answer carries), as that send's http-errors shapes it for an app's handler.
   */
  statusError(status: number, headers?: OutgoingHttpHeaders): HttpError;
}

const BYTES_RANGE = /^ *bytes=/;

/** send 0.19, as Express 4 serves files. */
export const send019: SendDialect = {
  typeOfFile: mediaTypeFor,
  charsetOf: charsetFor,
  removeContentHeaders(res) {
    res.removeHeader('Content-Encoding');
    res.removeHeader('Content-Language');
    res.removeHeader('Content-Length');
    res.removeHeader('Content-Range');
    res.removeHeader('Content-Type');
  },
  preconditions: true,
  isFresh,
  ranges: (size, header) => (BYTES_RANGE.test(header) ? parseRange(size, header, { combine: true }) : -2),
  // http-errors 2: a 4xx `expose`d, the message an own enumerable property, and a 416's
  // Content-Range in `headers`.
  statusError: (status, headers) => createHttpError(status, undefined, headers ? { headers } : undefined),
};

/** send 0.13, as Express 3.21 and Connect 2.30 serve files. */
export const send013: SendDialect = {
  typeOfFile: mediaTypeFor3,
  charsetOf: charsetFor3,
  removeContentHeaders(res) {
    for (const name of res.getHeaderNames()) {
      if (name.startsWith('content-') && name !== 'content-location') res.removeHeader(name);
    }
  },
  preconditions: false,
  isFresh: isFresh03,
  ranges: (size, header) => parseRange(size, header, { strict: true }),
  statusError: statusError013,
};

/**
 * send 0.13's errors, from http-errors 1.3 with `{ expose: false }`: not `expose`d (a 3.x
 * error handler that shows exposed messages shows none), the message a native error's
 * (not enumerable: `JSON.stringify(err)` gives `{"expose":false}`), and no `headers`.
 */
function statusError013(status: number): HttpError {
  const err = createHttpError(status);
  err.expose = false;
  Object.defineProperty(err, 'message', { enumerable: false });
  return err;
}
