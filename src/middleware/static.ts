/**
 * `static(root, [options])` of `webapp/middleware` and `webapp/v3`: the 4.x
 * static middleware with Connect 2.30's directory redirect (serve-static 1.10):
 * `303 See Other` and a one-line HTML body, where 4.x answers 301 with a page.
 * The Location is built as 4.x builds it (path and query of `originalUrl`, so
 * relative to the mount point, never another host) and percent-encoded. Files
 * get send 0.13's headers (src/static/dialect.ts), as Connect 2.30 sends them.
 */
import { Buffer } from 'node:buffer';
import type { ServerResponse } from 'node:http';
import { escapeHtml } from '../http/escape-html';
import { createServeStatic, directoryLocation, type DirectoryRedirect, type ServeStaticOptions } from '../static';
import { send013 } from '../static/dialect';
import { mime3 } from '../http/mime-module';
import type { Middleware } from './types';

const seeOther: DirectoryRedirect = (req, res: ServerResponse) => {
  const location = directoryLocation(req);
  const body = 'Redirecting to <a href="' + escapeHtml(location) + '">' + escapeHtml(location) + '</a>\n';
  res.statusCode = 303;
  res.setHeader('Content-Type', 'text/html; charset=UTF-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Location', location);
  res.end(body);
};

export function serveStatic3(root: string, options?: ServeStaticOptions): Middleware {
  return createServeStatic(root, options, { redirectDirectory: seeOther, dialect: send013 }) as Middleware;
}
/** Connect 2.30's `mime` (send 0.13's), as `static.mime`. */
serveStatic3.mime = mime3;
