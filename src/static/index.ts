/**
 * `webapp.static(root, options)`: serves files below `root` for GET and HEAD,
 * as serve-static 1.16 does. What it cannot serve as a client error (not found,
 * dotfile, bad path) falls through to the next middleware unless `fallthrough`
 * is false; once a file was found, every error goes to `next(err)`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Stats } from 'node:fs';
import { createHttpError, type HttpError } from '../http/errors';
import { encodeUrl } from '../http/encode-url';
import { parseOriginalUrl, parseUrl } from '../http/parse-url';
import { sameOriginPath } from '../http/same-origin-path';
import { send019, type SendDialect } from './dialect';
import { mime } from '../http/mime-module';
import { compileSendOptions, type SendOptions, type SendSettings } from './options';
import { sendRedirect } from './html';
import { endRefusable } from './file-body';
import { hasTrailingSlash, sendFile } from './send';
import type { SendHooks } from './send-hooks';
import type { NextFunction } from '../types/public';
import { named } from '../named';

export interface ServeStaticOptions extends Omit<SendOptions, 'root' | 'start' | 'end'> {
  /** Client errors and 404 call `next()` (true, default) or `next(err)` (false). */
  fallthrough?: boolean | undefined;
  /** Redirect a directory path without a trailing slash to the slash URL (default true). */
  redirect?: boolean | undefined;
  /** Called as `setHeaders(res, path, stat)` before the file's headers are set. */
  setHeaders?: ((res: ServerResponse, path: string, stat: Stats) => void) | undefined;
}

type Middleware = (req: IncomingMessage, res: ServerResponse, next: NextFunction) => void;

/**
 * The slash URL of the directory the client asked for, keeping the query string,
 * as the client wrote it (mount path included). Only the path and query are used,
 * never a host: the request target is read as a path (as serve-static's parseurl
 * reads `//a@b`), and a leading run of slashes or backslashes is collapsed, so the
 * Location can never name another site (`GET //evil.example` -> `/evil.example/`).
 */
export function directoryLocation(req: IncomingMessage): string {
  const original = parseOriginalUrl(req);
  if (original === undefined) return '/';
  const pathname = sameOriginPath((original.pathname ?? '/') + '/');
  // A raw `#fragment` in the target is kept, as serve-static's url.format kept it.
  const hashAt = original.href.indexOf('#');
  return encodeUrl(pathname + (original.search ?? '') + (hashAt === -1 ? '' : original.href.slice(hashAt)));
}

/** Answers a request for a directory without its trailing slash (the Location from `directoryLocation`). */
export type DirectoryRedirect = (req: IncomingMessage, res: ServerResponse) => void;

/** What differs between the static middleware of 4.x and that of Connect 2.30 (for 3.x). */
export interface StaticFlavour {
  /** 4.x: 301 with a small page; Connect 2.30: 303. */
  redirectDirectory: DirectoryRedirect;
  /** The `send` whose headers the files get. */
  dialect: SendDialect;
}

/** serve-static 1.16 (send 0.19): 301 with a small escaped HTML page. */
const express4Static: StaticFlavour = {
  redirectDirectory: (req, res) => sendRedirect(res, directoryLocation(req)),
  dialect: send019,
};

export function serveStatic(root: string, options?: ServeStaticOptions): Middleware {
  return createServeStatic(root, options, express4Static);
}
/** send's `mime` (serve-static exposes it): `webapp.static.mime.define(...)`. */
serveStatic.mime = mime;

/** The static middleware of the caller's flavour (4.x's, or Connect 2.30's). */
export function createServeStatic(
  root: string,
  options: ServeStaticOptions | undefined,
  { redirectDirectory, dialect }: StaticFlavour,
): Middleware {
  if (!root) throw new TypeError('root path required');
  if (typeof root !== 'string') throw new TypeError('root path must be a string');
  const opts: ServeStaticOptions = options || {};
  const fallthrough = opts.fallthrough !== false;
  const redirect = opts.redirect !== false;
  const setHeaders = opts.setHeaders;
  if (setHeaders && typeof setHeaders !== 'function') throw new TypeError('option setHeaders must be function');

  // serve-static checks the remaining options on each request, so a bad value fails
  // the request (500 through next(err)), not the call to static(): keep that, but compile once.
  // Inherit the caller's object (as serve-static does) rather than copy it, so options on
  // its prototype count too; options that are not an object throw here, as there.
  const sendOptions: SendOptions = Object.create(opts);
  let settings: SendSettings | undefined;
  let optionsError: unknown;
  try {
    sendOptions.maxage = opts.maxage || opts.maxAge || 0;
    sendOptions.root = root;
    settings = { ...compileSendOptions(sendOptions), dialect };
  } catch (err) {
    optionsError = err;
  }

  return named('serveStatic', function (req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      if (fallthrough) {
        next();
        return;
      }
      res.statusCode = 405;
      res.setHeader('Allow', 'GET, HEAD');
      res.setHeader('Content-Length', '0');
      res.end();
      return;
    }
    if (settings === undefined) throw optionsError;

    let path = parseUrl(req)?.pathname ?? '/';
    // At the mount point itself ("/static" mounted, "/static" requested) the path is "/":
    // treat it as empty so the directory redirect goes to "/static/".
    if (path === '/' && !hasTrailingSlash(parseOriginalUrl(req)?.pathname ?? '/')) path = '';

    let forwardError = !fallthrough;
    const hooks: SendHooks = {
      error(err: HttpError) {
        if (forwardError || !(err.statusCode < 500)) next(err);
        else next();
      },
      directory(response, urlPath) {
        if (!redirect || hasTrailingSlash(urlPath)) hooks.error(createHttpError(404));
        else endRefusable(response, hooks, (res) => redirectDirectory(req, res));
      },
      // Once a file is chosen, a failure is the server's, not a miss: always forward it.
      file: fallthrough
        ? () => {
            forwardError = true;
          }
        : undefined,
      gone: fallthrough
        ? () => {
            forwardError = false;
          }
        : undefined,
      headers: setHeaders,
    };
    sendFile(req, res, path, settings, hooks);
  });
}
