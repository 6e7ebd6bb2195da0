/**
 * The HTML listing: every entry is stat'ed (a bounded number at a time),
 * directories sort first, and the page is the template with its four
 * placeholders filled: `{style}`, `{files}`, `{directory}` and `{linked-path}`.
 * Names are HTML-escaped wherever they appear and percent-encoded segment by
 * segment in links.
 */
import * as fs from 'node:fs';
import { join, posix } from 'node:path';
import { escapeHtml } from '../../http/escape-html';
import { extensionClass, iconKindOf, iconStylesheet, type IconKind } from './icons';
import { DEFAULT_STYLESHEET, DEFAULT_TEMPLATE } from './page';

export interface ListingEntry {
  name: string;
  /** null when the entry vanished or is a dangling link. */
  stat: fs.Stats | null;
}

/** What a `template` function receives (the fields serve-index passed). */
export interface TemplateLocals {
  /** The decoded request path, as the client asked for it. */
  directory: string;
  displayIcons: boolean;
  fileList: ListingEntry[];
  /** The directory's file system path. */
  path: string;
  /** The stylesheet's text (without the icon rules). */
  style: string;
  viewName: string;
}

export type TemplateRenderer = (locals: TemplateLocals, callback: (err: Error | null, html?: string) => void) => void;

export interface HtmlSettings {
  icons: boolean;
  view: string;
  /** A path to an HTML file, a renderer function, or undefined for the built-in page. */
  template: string | TemplateRenderer | undefined;
  /** A path to a CSS file, or undefined for the built-in stylesheet. */
  stylesheet: string | undefined;
}

type Done = (err: Error | null, html?: string) => void;

/** At most this many `stat` calls at once, so a huge directory does not flood libuv's thread pool. */
const STAT_CONCURRENCY = 10;

/** Errors that mean "no usable entry any more" rather than a failing disk. */
const GONE = new Set(['ENOENT', 'ENOTDIR', 'ELOOP']);

function statEntries(dir: string, names: string[], done: (err: Error | null, entries?: ListingEntry[]) => void): void {
  const entries: ListingEntry[] = names.map((name) => ({ name, stat: null }));
  let started = 0;
  let pending = names.length;
  let failed = false;
  if (pending === 0) return done(null, entries);
  const statNext = (): void => {
    const entry = entries[started++];
    fs.stat(join(dir, entry.name), (err, stat) => {
      if (failed) return;
      if (err && !GONE.has(err.code as string)) {
        failed = true;
        return done(err);
      }
      entry.stat = err ? null : stat;
      if (--pending === 0) return done(null, entries);
      if (started < entries.length) statNext();
    });
  };
  for (let i = 0; i < Math.min(STAT_CONCURRENCY, entries.length); i++) statNext();
}

function isDirectory(entry: ListingEntry): boolean {
  return entry.stat !== null && entry.stat.isDirectory();
}

/** `..` first, then directories, then everything else; each group by name, case-insensitively. */
export function compareEntries(a: ListingEntry, b: ListingEntry): number {
  if (a.name === '..' || b.name === '..') return a.name === b.name ? 0 : a.name === '..' ? -1 : 1;
  const byKind = Number(isDirectory(b)) - Number(isDirectory(a));
  return byKind || a.name.toLocaleLowerCase().localeCompare(b.name.toLocaleLowerCase());
}

/** `/a b/c` and `d#e` give `/a%20b/c/d%23e`; `..` entries resolve to the parent. */
export function entryHref(directory: string, name: string): string {
  const segments = directory.split('/').map(encodeURIComponent);
  segments.push(encodeURIComponent(name));
  // posix.normalize also folds a leading `//` to `/`, so no link can become protocol-relative.
  return posix.normalize(segments.join('/'));
}

/** ` / <a href="/a">a</a> / <a href="/a/b">b</a>`: each segment of the path links to itself. */
export function linkedPath(directory: string): string {
  let href = '';
  let html = '';
  for (const segment of directory.split('/')) {
    if (!segment) continue;
    // Empty segments are skipped, so `//host/` cannot yield a protocol-relative `//host` link.
    href += '/' + encodeURIComponent(segment);
    html += ' / <a href="' + escapeHtml(href) + '">' + escapeHtml(segment) + '</a>';
  }
  return directory.endsWith('/') ? html + ' / ' : html;
}

function iconKind(entry: ListingEntry): IconKind {
  return isDirectory(entry) ? 'directory' : iconKindOf(entry.name);
}

function entryHtml(entry: ListingEntry, directory: string, icons: boolean): string {
  const classes: string[] = [];
  if (icons) {
    classes.push('icon', 'icon-' + iconKind(entry));
    const ext = isDirectory(entry) ? undefined : extensionClass(entry.name);
    if (ext && ext !== classes[1]) classes.push(ext);
  }
  const stat = entry.stat;
  const size = stat && !stat.isDirectory() ? String(stat.size) : '';
  const date =
    stat && entry.name !== '..' ? stat.mtime.toLocaleDateString() + ' ' + stat.mtime.toLocaleTimeString() : '';
  const name = escapeHtml(entry.name);
  return (
    '<li><a href="' +
    escapeHtml(entryHref(directory, entry.name)) +
    '" class="' +
    escapeHtml(classes.join(' ')) +
    '" title="' +
    name +
    '">' +
    '<span class="name">' +
    name +
    '</span><span class="size">' +
    size +
    '</span><span class="date">' +
    escapeHtml(date) +
    '</span></a></li>'
  );
}

function fileListHtml(entries: ListingEntry[], directory: string, icons: boolean, view: string): string {
  let html = '<ul id="files" class="view-' + escapeHtml(view) + '">';
  if (view === 'details')
    html +=
      '<li class="header"><span class="name">Name</span><span class="size">Size</span>' +
      '<span class="date">Modified</span></li>';
  html += entries.map((entry) => entryHtml(entry, directory, icons)).join('\n');
  return html + '</ul>';
}

const PLACEHOLDER = /\{(style|files|directory|linked-path)\}/g;

/**
 * One pass over the template, with a function replacer: a name such as `$&` or
 * `{directory}` inside the file list is inserted as it is, never re-expanded.
 */
export function fillTemplate(template: string, locals: TemplateLocals): string {
  const values: Record<string, () => string> = {
    style: () => locals.style + (locals.displayIcons ? iconStylesheet(locals.fileList.map(iconKind)) : ''),
    files: () => fileListHtml(locals.fileList, locals.directory, locals.displayIcons, locals.viewName),
    directory: () => escapeHtml(locals.directory),
    'linked-path': () => linkedPath(locals.directory),
  };
  const cache: Record<string, string> = {};
  return template.replace(PLACEHOLDER, (_match, key: string) => (cache[key] ??= values[key]()));
}

function readOr(path: string | undefined, fallback: string, done: (err: Error | null, text?: string) => void): void {
  if (path === undefined) return done(null, fallback);
  // Read on every request, as 3.x did, so an edited template shows without a restart.
  fs.readFile(path, 'utf8', done);
}

/** Calls `done` once, whatever a user's template function does. */
function once(done: Done): Done {
  let called = false;
  return (err, html) => {
    if (called) return;
    called = true;
    done(err, html);
  };
}

/**
 * Renders the listing of `names` (already filtered) in the directory at `path`,
 * shown to the client as `directory`; `withParent` adds the `..` entry.
 */
export function renderListing(
  settings: HtmlSettings,
  path: string,
  directory: string,
  names: string[],
  withParent: boolean,
  callback: Done,
): void {
  const done = once(callback);
  statEntries(path, withParent ? ['..', ...names] : names, (err, entries) => {
    if (err || !entries) return done(err);
    entries.sort(compareEntries);
    readOr(settings.stylesheet, DEFAULT_STYLESHEET, (err, style) => {
      if (err || style === undefined) return done(err);
      const locals: TemplateLocals = {
        directory,
        displayIcons: settings.icons,
        fileList: entries,
        path,
        style,
        viewName: settings.view,
      };
      const template = settings.template;
      if (typeof template === 'function') {
        try {
          template(locals, done);
        } catch (thrown) {
          done(thrown instanceof Error ? thrown : new Error(String(thrown)));
        }
        return;
      }
      readOr(template, DEFAULT_TEMPLATE, (err, text) => {
        if (err || text === undefined) return done(err);
        done(null, fillTemplate(text, locals));
      });
    });
  });
}
