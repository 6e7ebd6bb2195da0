/**
 * The file-sending core: one request, one path, one response. It resolves the
 * path safely, finds the file (index files, extension fallbacks), sets the
 * caching and validator headers, answers conditional and Range requests, and
 * has the bytes written (file-body.ts streams them with back-pressure), a
 * response queued on its connection at its turn (queued-response.ts). It never
 * writes an error page itself: every failure goes to `hooks.error` as an HTTP
 * error, and the caller decides (serve-static falls through, sendFile calls back
 * or passes to `next`). The behaviour is send 0.19's, as Express 4.22 uses it;
 * what send 0.13 (Express 3.21, Connect 2.30) does differently comes from the
 * dialect (dialect.ts).
 */
import { stat as statFile, type Stats } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';
import { createHttpError, toHttpError, type HttpError } from '../http/errors';
import { endRefusable, endResponse, sendBody } from './file-body';
import type { SendSettings } from './options';
import { isConditionalGet, isPreconditionFailure, isRangeFresh } from './preconditions';
import { queuedOnConnection, whenConnected } from './queued-response';
import { resolveFilePath } from './resolve-path';
import { fsError, type SendHooks } from './send-hooks';
import { lastModifiedOf, statTag } from './validators';

export function hasTrailingSlash(urlPath: string): boolean {
  return urlPath.charCodeAt(urlPath.length - 1) === 0x2f; /* / */
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
      // The type the file's answer set is set again after the new ETag and Last-Modified,
      // where a first answer has it (the same value: the path is the same).
      if (!headersBefore.includes('content-type')) res.removeHeader('Content-Type');
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
