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
 * Each kind of listing is answered by a member an app may replace, as serve-index's
 * (`directory.html`, `directory.json`, `directory.plain`: ListingResponder).
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
import * as fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
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

/**
 * What answers a listing of each kind, called as serve-index 1.7 calls its own:
 * `(req, res, files, next, dir, showUp, icons, path, view, template, stylesheet)`, with
 * the names to list, the directory as the URL shows it, whether it has a parent to
 * link to, the `icons` option, its path on disk, and the `view`, `template` and
 * `stylesheet` options. They are members of `directory` (`directory.html`,
 * `directory.json`, `directory.plain`) and looked up there for each listing, so an
 * app that replaces one (`express.directory.plain = ...`, as Express 3 apps could)
 * changes what its listings of that kind look like.
 */
export type ListingResponder = (
  req: IncomingMessage,
  res: ServerResponse,
  files: string[],
  next: NextFunction,
  dir: string,
  showUp: boolean,
  icons: boolean,
  path: string,
  view: string,
  template: string | TemplateRenderer | undefined,
  stylesheet: string | undefined,
) => void;

const listingResponders: Record<'html' | 'json' | 'plain', ListingResponder> = {
  html(_req, res, files, next, dir, showUp, icons, path, view, template, stylesheet) {
    renderListing({ icons, view, template, stylesheet }, path, dir, files, showUp, (err, page) => {
      if (err) return next(err);
      send(res, next, 'text/html', String(page));
    });
  },
  json(_req, res, files, next) {
    send(res, next, 'application/json', JSON.stringify(files));
  },
  plain(_req, res, files, next) {
    send(res, next, 'text/plain', files.join('\n') + '\n');
  },
};

/** The responder of each media type a listing is offered in. */
const RESPONDER_OF: Record<string, 'html' | 'json' | 'plain'> = {
  'text/html': 'html',
  'text/plain': 'plain',
  'application/json': 'json',
};

function visibleNames(names: string[], hidden: boolean, filter: DirectoryFilter | undefined, dir: string): string[] {
  let list = hidden ? names : names.filter((name) => name.charCodeAt(0) !== 0x2e /* . */);
  // The filter sees the list before sorting, in the order the file system gave it (as in 3.x).
  if (filter) list = list.filter((name, index, all) => filter(name, index, all, dir));
  // Plain code-unit order for JSON and text; the HTML page sorts again, directories first.
  return list.sort();
}

function createDirectory(root: string, options?: DirectoryOptions): Middleware {
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
        if (type === false) return next(createHttpError(406));
        const respond = directory[RESPONDER_OF[type]];
        respond(
          req,
          res,
          list,
          next,
          target.shownPath,
          !target.isRoot,
          html.icons,
          target.path,
          html.view,
          html.template,
          html.stylesheet,
        );
      });
    });
  });
}

/** `directory(root, options)`, with the responders of each kind of listing as members. */
export const directory: typeof createDirectory & typeof listingResponders = Object.assign(
  createDirectory,
  listingResponders,
);
