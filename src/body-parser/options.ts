/** Options shared by the four parsers, checked once when the middleware is made. */
import type { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseBytes } from '../http/bytes';
import { parseMediaType } from '../http/content-type';
import { hasBody, matchType } from '../http/type-is';
import type { ReadSettings, Verify } from './read';

export interface Options {
  /** Inflate gzip/deflate/br bodies (default true); false rejects encoded bodies with 415. */
  inflate?: boolean | undefined;
  /** Maximum body size after inflation: bytes, or a string such as `'1mb'` (default `'100kb'`). */
  limit?: number | string | undefined;
  /**
   * Media types to parse: a type, extension, wildcard, a list, or `fn(req)`. The
   * function returns `any`, as in @types/body-parser: code that reads `type(req)` as a
   * boolean compiles as it does there.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as @types/body-parser
  type?: string | string[] | ((req: IncomingMessage) => any) | undefined;
  /**
   * `verify(req, res, buf, encoding)`: throw to reject the body (403). A method
   * signature, as in @types/body-parser, so that a verify function (or a
   * body-parser options object) typed with `encoding: string` is accepted as it is
   * there. `encoding` is typed `string`, as there, so that an inline verify's
   * `encoding` is a `string` as with Express; for `raw` it is null at run time.
   */
  verify?(req: IncomingMessage, res: ServerResponse, buf: Buffer, encoding: string): void;
}

export interface CommonSettings extends ReadSettings {
  shouldParse: (req: IncomingMessage) => boolean;
}

/** Why throwing: an unparseable limit must never silently disable the limit. */
export function commonSettings(opts: Options, defaultType: string): CommonSettings {
  const limit = opts.limit === undefined || opts.limit === null ? 102400 : parseBytes(opts.limit);
  if (limit === null || isNaN(limit)) throw new TypeError('option limit "' + String(opts.limit) + '" is invalid');
  // Called with a null `encoding` by `raw`, which the public type leaves out (see `verify` above).
  const verify = (opts.verify as Verify | undefined) || false;
  if (verify !== false && typeof verify !== 'function') throw new TypeError('option verify must be function');
  const type = opts.type || defaultType;
  const shouldParse =
    typeof type === 'function' ? (type as (req: IncomingMessage) => boolean) : typeMatcher(type as string | string[]);
  return { inflate: opts.inflate !== false, limit, verify, shouldParse };
}

/**
 * A function of a Content-Type value, remembered per value. Why: a server sees
 * the same few Content-Types over and over, and parsing and matching them again
 * for each request was a measurable part of reading a small body. Bounded, so
 * hostile values cannot grow it.
 */
function perContentType<T>(compute: (contentType: string) => T): (contentType: string) => T {
  const results = new Map<string, T>();
  return (contentType) => {
    let result = results.get(contentType);
    if (result === undefined && !results.has(contentType)) {
      result = compute(contentType);
      if (results.size >= CONTENT_TYPE_CACHE_SIZE) results.clear();
      results.set(contentType, result);
    }
    return result as T;
  };
}

const CONTENT_TYPE_CACHE_SIZE = 64;

function sameItems(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * type-is's test of the request against the parser's `type` option (one type or a
 * list). body-parser reads a list anew on each request, so a list changed after
 * the parser was made is followed: the remembered answers go when it changes.
 */
function typeMatcher(type: string | string[]): (req: IncomingMessage) => boolean {
  const types = Array.isArray(type) ? type : [type];
  let remembered = types.slice();
  const remember = () => perContentType((contentType) => matchType(contentType, types) !== false);
  let matches = remember();
  return (req) => {
    if (!hasBody(req)) return false;
    if (!sameItems(types, remembered)) {
      remembered = types.slice();
      matches = remember();
    }
    const contentType = req.headers['content-type'];
    return typeof contentType === 'string' ? matches(contentType) : matchType(contentType, types) !== false;
  };
}

function parseCharset(contentType: string): string | undefined {
  try {
    return (parseMediaType(contentType).parameters.charset || '').toLowerCase();
  } catch {
    return undefined;
  }
}

const charsetOf = perContentType(parseCharset);

/** The lower-cased charset parameter of the request's Content-Type, '' or undefined when unparseable. */
export function requestCharset(req: IncomingMessage): string | undefined {
  return charsetOf(String(req.headers['content-type']));
}
