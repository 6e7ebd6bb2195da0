/**
 * `directory(root, [options])`: directory listings, as Connect 2.30's
 * `connect.directory` (serve-index 1.7.3) gives them. For GET and HEAD of a
 * path that is a directory under `root`, the entries are answered as an HTML
 * page, a JSON array or plain text, by Accept (406 when none fits). Other
 * methods get 405 (OPTIONS 200) with `Allow`; paths that are not directories
 * pass to `next()`.
 *
 * Options: `hidden` (list dot files, default false), `filter(name, index,
 * list, dir)`, `icons` (default false), `view` (`tiles` or `details`),
 * `template` (an HTML file with `{files}`, `{directory}`, `{style}` and
 * `{linked-path}`, or a function `(locals, callback)`), `stylesheet` (a CSS file).
 *
 * Where it differs from serve-index, on purpose: an undecodable path is a 400
 * (serve-index threw, a 500), a path through a file (`/file.txt/x`) passes to
 * `next()` like any missing path (serve-index: 500), the page's breadcrumb
 * never links to a protocol-relative `//host` for a path with empty segments, and
 * the HTML listing of a directory with a looping symlink in it lists the link without
 * details (serve-index answered the whole page with a 500 `ELOOP`, while its JSON and
 * text listings, which stat nothing, listed it).
 */
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createHttpError } from '../../http/errors';
import { parseOriginalUrl, parseUrl } from '../../http/parse-url';
import { preferredMediaType } from '../connect-negotiation';
import type { Middleware, NextFunction } from '../types';
import { renderListing, type HtmlSettings, type TemplateRenderer } from './html';
import { resolveListing, rootPathOf } from './resolve';
import { refuseWriteMethods } from '../read-only-methods';
import { answerFromCallback } from '../answer-from-callback';
import { named } from '../../named';

export type { ListingEntry, TemplateLocals, TemplateRenderer } from './html';

export type DirectoryFilter = (name: string, index: number, list: string[], dir: string) => unknown;

export interface DirectoryOptions {
  /** List names starting with a dot (default false). */
  hidden?: boolean;
  /** Keeps the names for which it returns a truthy value; `dir` is the directory's file system path. */
  filter?: DirectoryFilter | false | null;
  /** Show an icon beside each name in the HTML listing (default false). */
  icons?: boolean;
  /** `tiles` (default) or `details` (with size and modification time). */
  view?: string;
  /** Path to an HTML template, or a function `(locals, callback)` rendering the page. */
  template?: string | TemplateRenderer;
  /** Path to a CSS file replacing the built-in stylesheet. */
  stylesheet?: string;
}

/** In preference order: without an Accept header the listing is HTML. */
const MEDIA_TYPES = ['text/html', 'text/plain', 'application/json'];

/** Errors of `stat` that mean "nothing listable here". */
const MISSING = new Set(['ENOENT', 'ENOTDIR']);

/** Sends the listing, from an fs callback (see answerFromCallback). */
function send(res: ServerResponse, next: NextFunction, type: string, body: string): void {
  const buf = Buffer.from(body, 'utf8');
  res.setHeader('Content-Type', type + '; charset=utf-8');
  res.setHeader('Content-Length', buf.length);
  answerFromCallback(res, next, () => res.end(buf));
}

function visibleNames(names: string[], hidden: boolean, filter: DirectoryFilter | undefined, dir: string): string[] {
  let list = hidden ? names : names.filter((name) => name.charCodeAt(0) !== 0x2e /* . */);
  // The filter sees the list before sorting, in the order the file system gave it (as in 3.x).
  if (filter) list = list.filter((name, index, all) => filter(name, index, all, dir));
  // Plain code-unit order for JSON and text; the HTML page sorts again, directories first.
  return list.sort();
}

export function directory(root: string, options?: DirectoryOptions): Middleware {
  if (!root) throw new TypeError('directory() root path required');
  const opts = options || {};
  const rootPath = rootPathOf(root);
  const hidden = Boolean(opts.hidden);
  const filter = typeof opts.filter === 'function' ? opts.filter : undefined;
  const html: HtmlSettings = {
    icons: Boolean(opts.icons),
    view: opts.view || 'tiles',
    template: opts.template || undefined,
    stylesheet: opts.stylesheet || undefined,
  };

  return named('directory', function (req, res, next: NextFunction) {
    if (refuseWriteMethods(req, res)) return;

    const pathname = parseUrl(req)?.pathname;
    const originalPathname = parseOriginalUrl(req)?.pathname;
    if (typeof pathname !== 'string' || typeof originalPathname !== 'string') return next();
    const target = resolveListing(rootPath, pathname, originalPathname);
    if (target.status !== undefined) return next(createHttpError(target.status));

    fs.stat(target.path, (err, stat) => {
      if (err) {
        if (MISSING.has(err.code as string)) return next();
        // Only a status, as serve-index gives: not `expose`, which would show the
        // client the fs error's message and, in it, the directory's path on disk.
        (err as NodeJS.ErrnoException & { status?: number }).status = err.code === 'ENAMETOOLONG' ? 414 : 500;
        return next(err);
      }
      if (!stat.isDirectory()) return next();

      fs.readdir(target.path, (err, names) => {
        if (err) return next(err);
        let list: string[];
        try {
          list = visibleNames(names, hidden, filter, target.path);
        } catch (thrown) {
          return next(thrown);
        }

        const type = preferredMediaType(req.headers.accept, MEDIA_TYPES);
        if (type === 'application/json') return send(res, next, 'application/json', JSON.stringify(list));
        if (type === 'text/plain') return send(res, next, 'text/plain', list.join('\n') + '\n');
        if (type !== 'text/html') return next(createHttpError(406));

        renderListing(html, target.path, target.shownPath, list, !target.isRoot, (err, page) => {
          if (err) return next(err);
          send(res, next, 'text/html', String(page));
        });
      });
    });
  });
}
