/**
 * Options of the file-sending core (shared by `webapp.static`, `res.sendFile`,
 * `res.download` and 3.x `res.sendfile`), checked and normalised once so the
 * per-request path does no option parsing.
 */
import { resolve } from 'node:path';
import { deprecate } from '../http/deprecate';
import { parseMs } from '../http/ms';
import { send019, type SendDialect } from './dialect';

export type DotfilesMode = 'allow' | 'deny' | 'ignore';

export interface SendOptions {
  /** Answer Range requests (`Accept-Ranges: bytes`). Default true. */
  acceptRanges?: boolean | undefined;
  /** Set Cache-Control. Default true. */
  cacheControl?: boolean | undefined;
  /** How paths with a segment starting with a dot are served. */
  dotfiles?: DotfilesMode | undefined;
  /** Weak ETag from size and modification time. Default true. */
  etag?: boolean | undefined;
  /** Extensions tried, in order, when the file is not found and its path has none. */
  extensions?: string | string[] | false | undefined;
  /** Add `immutable` to Cache-Control. Default false. */
  immutable?: boolean | undefined;
  /** Index files for directory paths ending in `/`; false disables. Default `index.html`. */
  index?: string | string[] | false | undefined;
  /** Set Last-Modified. Default true. */
  lastModified?: boolean | undefined;
  /** Cache-Control max-age in milliseconds or an ms-format string; clipped to one year. */
  maxAge?: number | string | undefined;
  maxage?: number | string | undefined;
  /** Directory that relative paths are resolved in, and that they may not leave. */
  root?: string | undefined;
  /** Byte offsets that bound what is sent of every file (inclusive). */
  start?: number | undefined;
  end?: number | undefined;
  /** Deprecated: `true` is `dotfiles: 'allow'`, `false` is `dotfiles: 'ignore'`. */
  hidden?: boolean | undefined;
  /** Deprecated (send 0.x): the root when there is no `root`. */
  from?: string | undefined;
}

export interface SendSettings {
  acceptRanges: boolean;
  cacheControl: boolean;
  /** `undefined` is the default mode: ignore dotfiles, but serve files inside dot-directories. */
  dotfiles: DotfilesMode | undefined;
  hidden: boolean;
  etag: boolean;
  extensions: string[];
  immutable: boolean;
  index: string[];
  lastModified: boolean;
  /** max-age in milliseconds. */
  maxAge: number;
  root: string | null;
  start: number;
  end: number | undefined;
  /** The `send` version whose headers files get (Express 4's, unless a 3.x caller says otherwise). */
  dialect: SendDialect;
}

const ONE_YEAR = 365 * 24 * 60 * 60 * 1000;

function flag(value: unknown, fallback: boolean): boolean {
  return value === undefined ? fallback : Boolean(value);
}

/** A string or an array of strings; anything falsy is the empty list. */
function stringList(value: unknown, name: string): string[] {
  const list = ([] as unknown[]).concat(value || []);
  for (const item of list) {
    if (typeof item !== 'string') throw new TypeError(name + ' must be array of strings or false');
  }
  return list as string[];
}

/** Milliseconds from a number or an ms-format string; not a number means 0; at most one year. */
function normalizeMaxAge(value: unknown): number {
  // send 0.19 hands a string to `ms`, which throws for the empty one: res.sendFile
  // then throws (a 500), where a number or any other unparsable string means 0.
  if (value === '') throw new Error('val is not a non-empty string or a valid number. val=""');
  const ms = typeof value === 'string' ? (parseMs(value) ?? NaN) : Number(value);
  return Number.isNaN(ms) ? 0 : Math.min(Math.max(0, ms), ONE_YEAR);
}

export function compileSendOptions(options: SendOptions | null | undefined): SendSettings {
  const opts: SendOptions = options || {};
  const dotfiles = opts.dotfiles;
  if (dotfiles !== undefined && dotfiles !== 'allow' && dotfiles !== 'deny' && dotfiles !== 'ignore') {
    throw new TypeError('dotfiles option must be "allow", "deny", or "ignore"');
  }
  if (opts.hidden !== undefined) {
    deprecate("hidden: use dotfiles: '" + (opts.hidden ? 'allow' : 'ignore') + "' instead", 'send');
  }
  // send still takes its old name for the root: `res.sendFile(absolutePath, { from })`
  // looks for the path below `from` there (mostly a 404), so it does here too.
  const from = !opts.root && opts.from ? String(opts.from) : undefined;
  if (from !== undefined) deprecate('send.from: pass root as option', 'send');
  return {
    acceptRanges: flag(opts.acceptRanges, true),
    cacheControl: flag(opts.cacheControl, true),
    dotfiles,
    hidden: Boolean(opts.hidden),
    etag: flag(opts.etag, true),
    extensions: opts.extensions !== undefined ? stringList(opts.extensions, 'extensions option') : [],
    immutable: flag(opts.immutable, false),
    index: opts.index !== undefined ? stringList(opts.index, 'index option') : ['index.html'],
    lastModified: flag(opts.lastModified, true),
    maxAge: normalizeMaxAge(opts.maxAge || opts.maxage),
    root: opts.root ? resolve(opts.root) : from !== undefined ? resolve(from) : null,
    start: (opts.start as number) || 0,
    end: opts.end,
    dialect: send019,
  };
}
