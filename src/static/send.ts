/**
 * The file-sending core: one request, one path, one response. It resolves the
 * path safely, finds the file (index files, extension fallbacks), sets the
 * caching and validator headers, answers conditional and Range requests, and
 * streams the bytes with back-pressure. It never writes an error page itself:
 * every failure goes to `hooks.error` as an HTTP error, and the caller decides
 * (serve-static falls through, sendFile calls back or passes to `next`).
 * The behaviour is send 0.19's, as Express 4.22 uses it; what send 0.13 (Express
 * 3.21, Connect 2.30) does differently comes from the dialect (dialect.ts).
 */
import { Buffer } from 'node:buffer';
import { close, createReadStream, open, read, stat as statFile, type Stats } from 'node:fs';
import { OutgoingMessage, type IncomingMessage, type ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';
import type { Socket } from 'node:net';
import { inCallerContext } from '../http/async-context';
import { createHttpError, fieldsOf, toHttpError, type HttpError } from '../http/errors';
import { onFinished } from '../http/on-finished';
import type { SendSettings } from './options';
import { isConditionalGet, isPreconditionFailure, isRangeFresh } from './preconditions';
import { resolveFilePath } from './resolve-path';
import { lastModifiedOf, statTag } from './validators';

export interface SendHooks {
  /** Any failure, with `status` 400, 403, 404, 412, 416 or 500 (and the fs error's `code` when there is one). */
  error(err: HttpError): void;
  /** The path names a directory (no index file was asked for). */
  directory(res: ServerResponse, urlPath: string): void;
  /** A file was found: from here on, the response is about it. */
  file?(path: string, stat: Stats): void;
  /**
   * The file found was removed while its response waited for its connection: a miss
   * after all (static falls through). `error` follows with the 404.
   */
  gone?(): void;
  /** Right before the file's headers are set: the place to set or override headers. */
  headers?(res: ServerResponse, path: string, stat: Stats): void;
  /** The body starts being read and sent. */
  stream?(): void;
  /** The whole file was read (and handed to the response). */
  end?(): void;
  /**
   * The whole file was read, but the response had ended (something else answered) or
   * was destroyed (the client left) meanwhile: none of it was written. `end` does not follow.
   */
  unsent?(): void;
}

export function hasTrailingSlash(urlPath: string): boolean {
  return urlPath.charCodeAt(urlPath.length - 1) === 0x2f; /* / */
}

/**
 * The error for a failed `stat` or read: a missing file is 404, anything else 500; the
 * fs error itself, its message kept from the client. Where Node's errors are not
 * `instanceof Error` in the realm this code runs in (under Jest, whose tests and the
 * modules they load run in a realm of their own), send makes a new error of the status
 * instead (a NotFoundError "Not Found", which the client may see) with the fs error's
 * fields (`code`, `errno`, `syscall`, `path`), and so does this: an app's error pages,
 * handlers and tests read the same under Jest as with Express.
 */
function fsError(err: NodeJS.ErrnoException): HttpError {
  // `refused` passes whatever a write threw, an app's wrapper of `res.write` included: any value.
  const code = (err as Partial<NodeJS.ErrnoException> | null | undefined)?.code;
  const status = code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG' ? 404 : 500;
  if (err instanceof Error) return toHttpError(status, err, { expose: false });
  const fields = typeof err === 'object' && err !== null ? fieldsOf(err) : undefined;
  return createHttpError(status, typeof err === 'string' ? err : undefined, fields);
}

/**
 * Sends the file that `urlPath` (percent-encoded, as in a URL) names under
 * `settings.root`, or the absolute/cwd-relative path itself without a root.
 */
export function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  urlPath: string,
  settings: SendSettings,
  hooks: SendHooks,
): void {
  const resolved = resolveFilePath(urlPath, settings.root, settings.dotfiles, settings.hidden);
  if (resolved.path === undefined) {
    hooks.error(settings.dialect.statusError(resolved.status));
    return;
  }
  const path = resolved.path;
  if (settings.index.length > 0 && hasTrailingSlash(urlPath)) {
    sendIndex(req, res, path, settings, hooks);
  } else {
    sendPath(req, res, urlPath, path, settings, hooks);
  }
}

function sendPath(
  req: IncomingMessage,
  res: ServerResponse,
  urlPath: string,
  path: string,
  settings: SendSettings,
  hooks: SendHooks,
): void {
  statFile(path, (err, stat) => {
    if (err) {
      // A missing extension-less file may exist under one of the fallback extensions.
      if (err.code === 'ENOENT' && !extname(path) && path[path.length - 1] !== sep) {
        const candidates = settings.extensions.map((ext) => path + '.' + ext);
        sendFirstFile(req, res, candidates, err, settings, hooks);
      } else {
        hooks.error(fsError(err));
      }
      return;
    }
    if (stat.isDirectory()) {
      hooks.directory(res, urlPath);
      return;
    }
    hooks.file?.(path, stat);
    sendStat(req, res, path, stat, settings, hooks);
  });
}

function sendIndex(
  req: IncomingMessage,
  res: ServerResponse,
  dir: string,
  settings: SendSettings,
  hooks: SendHooks,
): void {
  sendFirstFile(
    req,
    res,
    settings.index.map((name) => join(dir, name)),
    null,
    settings,
    hooks,
  );
}

/**
 * Sends the first candidate that is a regular file (directories are skipped).
 * When none is, the error is the last failed stat's (404 for a missing file) or a plain 404.
 */
function sendFirstFile(
  req: IncomingMessage,
  res: ServerResponse,
  candidates: string[],
  previousError: NodeJS.ErrnoException | null,
  settings: SendSettings,
  hooks: SendHooks,
): void {
  const attempt = (i: number, lastError: NodeJS.ErrnoException | null): void => {
    if (i >= candidates.length) {
      hooks.error(lastError ? fsError(lastError) : settings.dialect.statusError(404));
      return;
    }
    const candidate = candidates[i];
    statFile(candidate, (err, stat) => {
      if (err) return attempt(i + 1, err);
      if (stat.isDirectory()) return attempt(i + 1, null);
      hooks.file?.(candidate, stat);
      sendStat(req, res, candidate, stat, settings, hooks);
    });
  };
  attempt(0, previousError);
}

/** Caching and validator headers; each one a handler already set is left alone. */
function setFileHeaders(
  res: ServerResponse,
  path: string,
  stat: Stats,
  settings: SendSettings,
  hooks: SendHooks,
): void {
  hooks.headers?.(res, path, stat);
  if (settings.acceptRanges && !res.getHeader('Accept-Ranges')) res.setHeader('Accept-Ranges', 'bytes');
  if (settings.cacheControl && !res.getHeader('Cache-Control')) {
    let cacheControl = 'public, max-age=' + Math.floor(settings.maxAge / 1000);
    if (settings.immutable) cacheControl += ', immutable';
    res.setHeader('Cache-Control', cacheControl);
  }
  if (settings.lastModified && !res.getHeader('Last-Modified')) res.setHeader('Last-Modified', lastModifiedOf(stat));
  if (settings.etag && !res.getHeader('ETag')) res.setHeader('ETag', 'W/' + statTag(stat));
  if (!res.getHeader('Content-Type')) {
    // A string but for an app's own `mime.lookup`, whose answer goes out as send writes it.
    const type = settings.dialect.typeOfFile(path) as string;
    if (type) {
      const charset = settings.dialect.charsetOf(type);
      res.setHeader('Content-Type', type + (charset ? '; charset=' + String(charset) : ''));
    }
  }
}

function sendStat(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  stat: Stats,
  settings: SendSettings,
  hooks: SendHooks,
): void {
  if (res.headersSent) {
    hooks.error(toHttpError(500, new Error("Can't set headers after they are sent."), { expose: false }));
    return;
  }
  // A response queued behind another on its connection opens its file at its turn
  // (whenConnected); should the file be gone by then, the response goes back to the
  // headers it had before the file's (sendWhenUnchanged).
  const queued = queuedOnConnection(req, res);
  const headersBefore = queued ? res.getHeaderNames() : undefined;
  try {
    setFileHeaders(res, path, stat, settings, hooks);
  } catch (err) {
    // A `setHeaders` or `headers` value that Node rejects throws here, inside an fs
    // callback: Express would crash the process; this server answers 500 instead.
    hooks.error(toHttpError(500, err instanceof Error ? err : new Error(String(err))));
    return;
  }

  const headers = req.headers;
  if (isConditionalGet(headers)) {
    if (settings.dialect.preconditions && isPreconditionFailure(headers, res)) {
      hooks.error(settings.dialect.statusError(412));
      return;
    }
    const status = res.statusCode;
    const cachable = (status >= 200 && status < 300) || status === 304;
    if (
      cachable &&
      settings.dialect.isFresh(headers, {
        etag: res.getHeader('ETag') as string | undefined,
        'last-modified': res.getHeader('Last-Modified') as string | undefined,
      })
    ) {
      settings.dialect.removeContentHeaders(res);
      res.statusCode = 304;
      endRefusable(res, hooks, endResponse);
      return;
    }
  }

  // The status the file's own answer starts from (206 is set below), for a second look (sendWhenUnchanged).
  const statusBefore = res.statusCode;
  // `start`/`end` options cut a window out of the file; ranges are relative to it.
  const window = fileWindow(stat.size, settings.start, settings.end);
  if (window instanceof Error) {
    hooks.error(window);
    return;
  }
  let offset = settings.start;
  let length = window;

  const rangeHeader = headers.range;
  if (settings.acceptRanges && rangeHeader !== undefined) {
    const ranges = isRangeFresh(headers, res) ? settings.dialect.ranges(length, rangeHeader) : -2;
    if (ranges === -1) {
      const contentRange = 'bytes */' + length;
      res.setHeader('Content-Range', contentRange);
      hooks.error(settings.dialect.statusError(416, { 'Content-Range': contentRange }));
      return;
    }
    // Several ranges would need multipart/byteranges: like send, answer those with the whole file.
    if (ranges !== -2 && ranges.length === 1) {
      const range = ranges[0];
      res.statusCode = 206;
      res.setHeader('Content-Range', 'bytes ' + range.start + '-' + range.end + '/' + length);
      offset += range.start;
      length = range.end - range.start + 1;
    }
  }

  res.setHeader('Content-Length', length);
  if (req.method === 'HEAD') {
    endRefusable(res, hooks, endResponse);
    return;
  }
  if (!queued) {
    sendBody(res, path, offset, length, hooks);
    return;
  }
  whenConnected(res, () =>
    sendWhenUnchanged(
      res,
      path,
      settings,
      stat,
      statusBefore,
      headersBefore!,
      hooks,
      () => sendBody(res, path, offset, length, hooks),
      (now) => {
        // The app's `headers` hook (static's `setHeaders`) ran for this response
        // already, and what it set stays: run again it would append its headers twice.
        sendStat(req, res, path, now, settings, { ...hooks, headers: undefined });
      },
    ),
  );
}

/**
 * For a response that waited for its connection (queuedOnConnection): its headers
 * (length, ETag, Last-Modified, range) were made from `stat`, and its file is opened
 * only now, so the file is looked at again first. Still the same file, `send` goes on;
 * replaced meanwhile (a deploy renames a new build over it), the answer is made again
 * from the file as it is now (`again`), so the head and the bytes agree; gone, it is a
 * file not found (`gone`, then the error as when `stat` fails), and a directory now is
 * a directory requested, both with the headers the response had before the file's.
 * (Express opens each file at once, holding one descriptor and the bytes read for
 * every request queued.)
 */
function sendWhenUnchanged(
  res: ServerResponse,
  path: string,
  settings: SendSettings,
  stat: Stats,
  statusBefore: number,
  headersBefore: string[],
  hooks: SendHooks,
  send: () => void,
  again: (now: Stats) => void,
): void {
  statFile(path, (err, now) => {
    if (!err && now.isFile() && sameFile(stat, now)) {
      send();
      return;
    }
    // The headers made from `stat` no longer describe the file, nor a 206 for its range.
    // Its length goes too: an answer made again may be an error (416 for a range of a
    // file now shorter, 412), whose handler's body the old length would cut short.
    forgetStatHeaders(res, stat);
    res.removeHeader('Content-Length');
    res.statusCode = statusBefore;
    if (!err && now.isFile()) {
      again(now);
      return;
    }
    // Gone: as if it had not been found, without any header the file's answer added
    // (its length, type, caching, `setHeaders`' and `sendFile`'s `headers`, a download's
    // Content-Disposition): static falls through to the app's own 404 answer. A
    // directory in its place is answered as a directory requested (static's redirect,
    // `sendFile`'s EISDIR).
    for (const name of res.getHeaderNames()) if (!headersBefore.includes(name)) res.removeHeader(name);
    hooks.gone?.();
    if (!err && now.isDirectory()) hooks.directory(res, path);
    else hooks.error(err ? fsError(err) : settings.dialect.statusError(404));
  });
}

/** Takes away the headers sendStat made from `stat` itself (not a handler's own). */
function forgetStatHeaders(res: ServerResponse, stat: Stats): void {
  res.removeHeader('Content-Range');
  if (res.getHeader('ETag') === 'W/' + statTag(stat)) res.removeHeader('ETag');
  if (res.getHeader('Last-Modified') === lastModifiedOf(stat)) res.removeHeader('Last-Modified');
}

function sameFile(before: Stats, now: Stats): boolean {
  return (
    before.ino === now.ino &&
    before.dev === now.dev &&
    before.size === now.size &&
    before.mtimeMs === now.mtimeMs &&
    before.ctimeMs === now.ctimeMs
  );
}

function sendBody(res: ServerResponse, path: string, offset: number, length: number, hooks: SendHooks): void {
  // An empty window is read as a small file: a stream's `end` is inclusive, so it would read one byte.
  if (length <= SMALL_FILE) sendSmallFile(res, path, offset, length, hooks);
  else streamFile(res, path, offset, Math.max(offset, offset + length - 1), hooks);
}

/**
 * A response to a pipelined request that waits behind an earlier one on its
 * connection: Node gives it the socket once the earlier responses have finished.
 * Until then whatever it writes is held in memory, so a client that pipelines
 * thousands of requests for a large file and reads nothing held every file open,
 * with its first chunk read (5,000 requests, 200 KB sent: 5,000 descriptors and
 * 1.3 GB). Such a response opens its file when its turn comes.
 */
function queuedOnConnection(req: IncomingMessage, res: ServerResponse): boolean {
  if (res.socket || !madeByServer(res)) return false;
  const connection = req.socket as (Socket & { _httpMessage?: unknown }) | null;
  return connection != null && connection._httpMessage != null && connection._httpMessage !== res;
}

type PendingDataCounted = OutgoingMessage & { _onPendingData?: unknown };

/** What an OutgoingMessage has for `_onPendingData` until a server gives it its own (read at the first file sent). */
let unwatchedPendingData: unknown;

/**
 * Whether Node's server made this response for a request it parsed: only such a
 * response is queued for its connection, and given the socket at its turn. A response
 * an app makes itself for a live request (`new http.ServerResponse(req)`, to capture
 * a page or run a sub-request through the app) has no socket and never gets one: its
 * file is sent at once, as Express sends it. Node's server gives each of its responses
 * its own `_onPendingData`, which counts what is held for the connection.
 */
function madeByServer(res: ServerResponse): boolean {
  unwatchedPendingData ??= (new OutgoingMessage() as PendingDataCounted)._onPendingData;
  return (res as PendingDataCounted)._onPendingData !== unwatchedPendingData;
}

/**
 * Runs `send` once `res` has its socket, unless the response was ended or destroyed
 * before; in the request's async context, not that of the earlier response whose end
 * gives the socket (a `sendFile` callback's request-id logger would see that request).
 */
function whenConnected(res: ServerResponse, send: () => void): void {
  res.once(
    'socket',
    inCallerContext(() => {
      if (!res.writableEnded && !res.destroyed) send();
    }),
  );
}

/**
 * The length of the window the `start` and `end` options cut out of a file of `size`
 * bytes, computed as send 0.19 computes it (`end` read as a number: `'9'` is 9, null
 * 0; NaN limits nothing), or the error for a window fs cannot read or a response
 * cannot carry: `start` not an integer from 0, `end` giving a fraction or a negative
 * length, a BigInt or a Symbol. send hands those to `fs.createReadStream`, or sends a
 * negative Content-Length, outside any handler (the process ends, or the connection
 * is out of step); here the request gets a 500 (the sendFile callback, or the error
 * handlers).
 */
function fileWindow(size: number, start: unknown, end: unknown): number | HttpError {
  if (!Number.isSafeInteger(start) || (start as number) < 0)
    return invalidWindow(`"start" must be an integer from 0; got ${describeOption(start)}`);
  const length = Math.max(0, size - (start as number));
  if (end === undefined) return length;
  if (typeof end === 'bigint' || typeof end === 'symbol')
    return invalidWindow(`"end" must be a number; got ${describeOption(end)}`);
  const window = (end as number) - (start as number) + 1;
  if (!(length > window)) return length;
  if (!Number.isInteger(window) || window < 0)
    return invalidWindow(
      `"end" must be an integer from "start" - 1 (${start as number} - 1) on; got ${describeOption(end)}`,
    );
  return window;
}

function invalidWindow(problem: string): HttpError {
  return createHttpError(500, 'Invalid file window: ' + problem);
}

function describeOption(value: unknown): string {
  return typeof value === 'number' ? String(value) : 'a value of type ' + typeof value;
}

/**
 * Up to this many bytes, a body is read with one `read` and sent with one
 * `res.end(buffer)`: a stream, its pipe and its listeners cost more than the
 * bytes themselves (about a tenth of the server's time per 4 KB request).
 */
const SMALL_FILE = 64 * 1024;

/** Reads the window in one call; the descriptor is closed right after the read, whatever happens to the client. */
function sendSmallFile(res: ServerResponse, path: string, start: number, length: number, hooks: SendHooks): void {
  hooks.stream?.();
  open(path, 'r', (openError, fd) => {
    if (openError) {
      hooks.error(fsError(openError));
      return;
    }
    const body = Buffer.allocUnsafe(length);
    read(fd, body, 0, length, start, (readError, bytesRead) => {
      close(fd, ignore);
      if (readError) {
        hooks.error(fsError(readError));
        return;
      }
      // Someone may have ended the response meanwhile (a second file sent into it, the
      // client gone): writing would be an 'error' event. Nor is it the end of a file sent:
      // in Express the pipe's writes fail, its stream never ends, and sendFile reports
      // the file aborted once the response is done.
      if (res.writableEnded || res.destroyed) {
        hooks.unsent?.();
        return;
      }
      // write() then end(), not end(body): Node re-encodes a Content-Disposition value
      // (mangling ISO-8859-1 file names) when end() brings the body with the headers.
      try {
        res.write(bytesRead === length ? body : body.subarray(0, bytesRead));
        res.end();
      } catch (err) {
        refused(res, hooks, err);
        return;
      }
      // As with a piped stream, 'end' comes after the body was handed to the response.
      hooks.end?.();
    });
  });
}

function ignore(): void {}

/**
 * Node refused a head or a body: a status out of range, a status message or a trailer it
 * rejects, a body on a 204 under `rejectNonStandardBodyWrites`. Thrown out of an fs or a
 * stream callback, the refusal would end the process. As Node's pipe does on Node 24 and
 * later, the response is destroyed and the error goes to the callback or to next(err).
 */
function refused(res: ServerResponse, hooks: SendHooks, err: unknown): void {
  res.destroy();
  hooks.error(fsError(err as NodeJS.ErrnoException));
}

function endResponse(res: ServerResponse): void {
  res.end();
}

/**
 * Runs `answer`, which ends `res` from here, an fs callback: an answer with no body (a
 * HEAD, a 304) or a page of its own (a directory redirect), whose head Node may refuse.
 */
export function endRefusable(res: ServerResponse, hooks: SendHooks, answer: (res: ServerResponse) => void): void {
  try {
    answer(res);
  } catch (err) {
    refused(res, hooks, err);
  }
}

/**
 * The pipe's first write makes the head, as it does in Express: a middleware that wraps
 * `res.write` to rewrite or buffer the body (express-interceptor, livereload injectors,
 * minifiers) sees `headersSent` false there and may still set headers. Node refuses some
 * heads and some bodies (see `refused`: a status out of range, a body on a 204 under
 * `rejectNonStandardBodyWrites`...); the refusal, thrown from the pipe's write inside the
 * stream's 'data' event, ends the process on Node 20 and 22. So that one write goes
 * through a guard that answers a refusal as a short file's is: the response is destroyed
 * and the error goes to the callback or next(err), as on later lines; the pipe's later
 * writes find the response destroyed, which they take without a throw, and the stream is
 * closed with it. The guard takes itself off before it writes, so the app's own `write`
 * runs as it would have. Returns what takes it off should that write never come.
 *
 * The pipe itself stays Express's, set up at once: a 'pipe' listener on the response sees
 * the stream before the head and the first chunk (a listener that sets a header or counts
 * the stream's bytes), and a first write that asks for a drain pauses the pipe until the
 * response's 'drain' (a `write` wrapper's too: compression's keeps the body). Writing the
 * first chunk by hand before piping (tried) lost both.
 */
function guardFirstWrite(res: ServerResponse, hooks: SendHooks): () => void {
  const write = res.write;
  let guarded = true;
  const unguard = (): void => {
    if (!guarded) return;
    guarded = false;
    // Wrapped again since (the guard inside another wrapper): that wrapper stays.
    if (res.write !== guard) return;
    // Assigned back, even where `write` was the prototype's: a `delete` of a property
    // that is not the response's last turns it into a dictionary object, whose every
    // later read (a 1 MB file's writes and events) is a hash lookup.
    res.write = write;
  };
  const guard = function (this: ServerResponse, ...args: Parameters<ServerResponse['write']>): boolean {
    unguard();
    try {
      return (write as (...args: unknown[]) => boolean).apply(this, args);
    } catch (err) {
      refused(res, hooks, err);
      return false;
    }
  } as ServerResponse['write'];
  res.write = guard;
  return unguard;
}

/**
 * Read size for streamed files: twice fs's default halves the read calls and the
 * writes per megabyte (measured: a fifth less server time per 1 MB download) while
 * back-pressure still holds one chunk per connection at most.
 */
const STREAM_CHUNK = 128 * 1024;

/**
 * Pipes the byte window to the response (pipe gives back-pressure: a slow client
 * pauses the reads) and destroys the stream, closing its descriptor, as soon as
 * the response is done for any reason, a client abort included.
 */
function streamFile(res: ServerResponse, path: string, start: number, end: number, hooks: SendHooks): void {
  const stream = createReadStream(path, { start, end, highWaterMark: STREAM_CHUNK });
  hooks.stream?.();
  const unguard = guardFirstWrite(res, hooks);
  stream.pipe(res);
  let closed = false;
  const cleanup = () => {
    closed = true;
    unguard();
    stream.destroy();
  };
  onFinished(res, cleanup);
  stream.on('error', (err: NodeJS.ErrnoException) => {
    // A late error of a stream destroyed on purpose has nobody left to tell.
    if (closed) return;
    cleanup();
    hooks.error(fsError(err));
  });
  stream.on('end', () => hooks.end?.());
}
