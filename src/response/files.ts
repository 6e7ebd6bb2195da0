/**
 * File-sending response methods (`res.sendFile`, `res.download`, and the 3.x
 * `res.sendfile`), installed on the response prototype by response/index.ts.
 * They share the core in src/static/: these methods only choose paths, headers
 * and where the outcome is reported.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { contentDisposition } from '../http/content-disposition';
import { cutResponse } from '../http/cut-response';
import { isHttp2Request } from '../http/http2-request';
import { lazy } from '../http/lazy';
import { onFinished } from '../http/on-finished';
import type { SendOptions } from '../static/options';
import type { TransferCallback } from '../static/transfer';
import type { NextFunction } from '../types/public';

// The file-serving core loads with the first file sent (cold start).
const sendOptions = lazy(() => require('../static/options') as typeof import('../static/options'));
const sendCore = lazy(() => require('../static/send') as typeof import('../static/send'));
const transferCore = lazy(() => require('../static/transfer') as typeof import('../static/transfer'));
const sendDialects = lazy(() => require('../static/dialect') as typeof import('../static/dialect'));

export interface SendFileOptions extends SendOptions {
  /** Headers to send with the file (set right before the file's own headers). */
  headers?: OutgoingHttpHeaders;
}

interface FileRequest extends IncomingMessage {
  next?: NextFunction;
}

export interface FileResponse extends ServerResponse {
  req: FileRequest;
  sendFile(path: string, options?: SendFileOptions | TransferCallback, callback?: TransferCallback): void;
  sendfile(path: string, options?: SendFileOptions | TransferCallback, callback?: TransferCallback): void;
}

/**
 * Absolute as Express 4 decides it for `res.sendFile`: a leading `/`, and on every
 * platform a Windows drive (`C:\`, `C:/`) or UNC (`\\server`) path too, which the
 * file sender then resolves (on POSIX, below the working directory: a 404).
 */
export function isAbsolutePath(path: string): boolean {
  if (path[0] === '/') return true;
  if (path[1] === ':' && (path[2] === '\\' || path[2] === '/')) return true;
  return path.startsWith('\\\\');
}

/** The `(path, [options], [fn])` forms: the options (empty when left out) and the callback. */
function fileArguments(
  options: SendFileOptions | TransferCallback | undefined,
  callback: TransferCallback | undefined,
): [SendFileOptions, TransferCallback | undefined] {
  return typeof options === 'function' ? [{}, options] : [options || {}, callback];
}

function sendFile(
  this: FileResponse,
  path: string,
  options?: SendFileOptions | TransferCallback,
  callback?: TransferCallback,
): void {
  const [opts, done] = fileArguments(options, callback);
  const req = this.req;
  const next = req.next;

  if (!path) throw new TypeError('path argument is required to res.sendFile');
  if (typeof path !== 'string') throw new TypeError('path must be a string to res.sendFile');
  if (!opts.root && !isAbsolutePath(path)) throw new TypeError('path must be absolute or specify root to res.sendFile');

  // The core takes URL paths; encoding first means "%" and friends in file names stay literal.
  const urlPath = encodeURI(path);
  transferCore().transferFile(
    req,
    this,
    urlPath,
    sendOptions().compileSendOptions(opts),
    opts.headers,
    reportOutcome(done, next),
  );
}

/** Where a transfer's outcome goes: to the callback when there is one, else a failure to `next`. */
function reportOutcome(done: TransferCallback | undefined, next: NextFunction | undefined): TransferCallback {
  return (err) => {
    if (done) return done(err);
    if (err && err.code === 'EISDIR') return next?.();
    // A client that went away, or a failed write, leaves nobody to answer.
    if (err && err.code !== 'ECONNABORTED' && err.syscall !== 'write') next?.(err);
  };
}

/**
 * The path `res.sendfile` (4.x's deprecated one and 3.x's) was given, as a string:
 * their file sender (send) decoded it with `decodeURIComponent`, which makes a string of
 * anything, so a path taken from the query string as an array (`?f[]=a.txt`) named the
 * file `a.txt`, and an object `[object Object]` (a 404).
 */
function asUrlPath(path: unknown): string {
  // No path at all fails as there: a TypeError (send read its length), so a 500.
  return typeof path === 'string' || path == null ? (path as string) : String(path);
}

/**
 * Express 4's deprecated `res.sendfile(path, [options], [fn])`: outcomes as
 * `res.sendFile` reports them (`fn()` after a HEAD or a 304, `ECONNABORTED` when
 * the client aborts or had gone), but the path is taken as given, relative
 * paths included, as a URL path (so no encoding).
 */
export function deprecatedSendfile(
  this: FileResponse,
  path: string,
  options?: SendFileOptions | TransferCallback,
  callback?: TransferCallback,
): void {
  const [opts, done] = fileArguments(options, callback);
  transferCore().transferFile(
    this.req,
    this,
    asUrlPath(path),
    sendOptions().compileSendOptions(opts),
    opts.headers,
    reportOutcome(done, this.req.next),
  );
}

function download(
  this: FileResponse,
  path: string,
  filename?: string | SendFileOptions | TransferCallback | null,
  options?: SendFileOptions | TransferCallback | null,
  callback?: TransferCallback,
): void {
  let done = callback;
  let name: string | null | undefined = filename as string | null | undefined;
  let opts: SendFileOptions | null = (options as SendFileOptions) || null;

  if (typeof filename === 'function') {
    done = filename;
    name = null;
    opts = null;
  } else if (typeof options === 'function') {
    done = options;
    opts = null;
  }
  // download(path, options[, fn]): the options sit where the file name would.
  if (typeof filename === 'object' && (typeof options === 'function' || options === undefined)) {
    name = null;
    opts = filename;
  }

  // The file name argument decides Content-Disposition: a header option cannot override it.
  const headers: OutgoingHttpHeaders = { 'Content-Disposition': contentDisposition(name || path) };
  if (opts && opts.headers) {
    for (const key of Object.keys(opts.headers)) {
      if (key.toLowerCase() !== 'content-disposition') headers[key] = opts.headers[key];
    }
  }
  const sendOptions: SendFileOptions = Object.create(opts);
  sendOptions.headers = headers;

  const fullPath = sendOptions.root ? path : resolve(path);
  return this.sendFile(fullPath, sendOptions, done as TransferCallback);
}

/**
 * 3.x `res.sendfile(path, [options], [fn])`: a path relative to the working
 * directory (or `options.root`), `fn()` when sent, `fn(err)` on failure; without
 * `fn` failures go to `next(err)` while nothing was sent (after that the connection
 * is closed), and a directory to `next()`.
 */
function sendfile(
  this: FileResponse,
  path: string,
  options?: SendFileOptions | TransferCallback,
  callback?: TransferCallback,
): void {
  const [opts, fn] = fileArguments(options, callback);
  const req = this.req;
  const next = req.next;
  let done = false;
  // 3.x calls fn() when the file was read, if the transfer had started without error.
  let notifyEnd = false;

  // A connection error fails the transfer until the file starts streaming, as in
  // Express 3; watched through onFinished, which keeps one listener per connection for
  // all the responses pipelined on it (one each made Node warn past ten).
  let watchingSocket = true;
  const fail = (err: Error, clientGone = false): void => {
    if (done) return;
    // Without a callback, a client that went away leaves nobody to answer: no error page,
    // no error handler (Express 3 wrote a queued response's head at once, and such an
    // error stayed in its "limbo"; webapp opens the file at the response's turn, so
    // nothing was sent yet). A failure of the file itself may still come: it goes on to
    // `next`, as in 3.21.
    if (clientGone && !fn && !this.headersSent) return;
    done = true;
    watchingSocket = false;
    // 3.x download set this before sending: an error page must not be offered as a download.
    if (!this.headersSent) this.removeHeader('Content-Disposition');
    if (fn) return fn(err);
    // Half a file cannot become an error page. Express 3 left such a response open
    // (the client waited for the rest until it gave up); ending the connection once
    // what was written has gone out tells the client at once that it was cut short.
    if (this.headersSent) {
      // An HTTP/2 request's socket is the session's: its stream is reset instead.
      if (isHttp2Request(req)) cutResponse(req, this);
      else req.socket?.end();
      return;
    }
    next?.(err);
  };

  onFinished(this, (err) => {
    if (!watchingSocket) {
      // The client left while the file was streaming: its read is stopped and never
      // ends, which is when 3.x calls back (it never did here); the callback (a
      // download's temporary file removed there) hears that the request was aborted.
      if (notifyEnd && this.writableFinished === false) {
        notifyEnd = false;
        fn!(transferCore().requestAborted());
      }
      return;
    }
    // The connection reset before the file was sent (a request pipelined behind others,
    // waiting for its turn): aborted, as for a client that closed it. Other errors of the
    // connection are passed on as they came.
    if (err) fail(transferCore().clientLeft(err) ? transferCore().requestAborted() : err, true);
    // Done without being written out: the client left before the response's turn on
    // its connection (the file is opened only then) or before the file was sent. No read
    // of the file will end, which is when 3.x calls back: the callback (a download's
    // temporary file removed there) hears that the request was aborted.
    else if (this.writableFinished === false) fail(transferCore().requestAborted(), true);
  });
  // What the callback hears once the file was read, written or not (`unsent`: the
  // response had ended or was destroyed first).
  const readToEnd = () => {
    if (!notifyEnd) return;
    notifyEnd = false;
    // Read, but the client was gone before it could be written (a response already
    // closed when the file was opened): aborted, as above.
    if (this.destroyed && this.writableFinished === false) fn!(transferCore().requestAborted());
    else fn!();
  };
  // Express 3.21 sends files with send 0.13, whose headers differ a little from 4.x's.
  const settings = { ...sendOptions().compileSendOptions(opts), dialect: sendDialects().send013 };
  sendCore().sendFile(req, this, asUrlPath(path), settings, {
    error: (err) => fail(err),
    directory: () => next?.(),
    // No `headers` option: Express 3.21's file sender has none, and sends none.
    stream() {
      if (done) return;
      watchingSocket = false;
      notifyEnd = fn !== undefined;
    },
    end: readToEnd,
    unsent: readToEnd,
  });
}

export const fileMethods: Record<string, (this: FileResponse, ...args: never[]) => unknown> = {
  sendFile,
  download,
  sendfile,
};
