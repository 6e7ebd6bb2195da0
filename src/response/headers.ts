/**
 * Header methods: `set`/`header`, `get`, `append`, `type`/`contentType`, `vary`,
 * `links` and `attachment`. Content-Type values receive the charset Express 4's
 * MIME tables give them (`text/*`, JSON and JavaScript get `utf-8`).
 */
import { extname } from 'node:path';
import { deprecate } from '../http/deprecate';
import { detachedString } from '../http/detached-string';
import { definitionCount } from '../http/mime';
import { charsetFor, charsetsReplaced, lookupReplaced, mediaTypeFor } from '../http/mime-answers';
import { lazy } from '../http/lazy';
import { vary as appendVary } from '../http/vary';
import type { Response } from './types';

/** Only `res.attachment` needs it (cold start). */
const contentDispositionModule = lazy(
  () => require('../http/content-disposition') as typeof import('../http/content-disposition'),
);

const HAS_CHARSET = /;\s*charset\s*=/;

/**
 * Content-Type values as set (with the charset Express adds), by value given: an
 * app sets the same few types on every response, so each is worked out once.
 */
const contentTypes = new Map<string, string>();
const CONTENT_TYPES_CACHED = 256;

function withCharset(type: string): string {
  // An app's own `charsets.lookup` answers each time, as Express asks it each time.
  if (charsetsReplaced()) return addCharset(type);
  let value = contentTypes.get(type);
  if (value !== undefined) return value;
  // Made of the kept copy: a value built from `type` (with a charset added) holds it.
  const kept = detachedString(type);
  value = addCharset(kept);
  if (contentTypes.size >= CONTENT_TYPES_CACHED) contentTypes.clear();
  contentTypes.set(kept, value);
  return value;
}

/** `type` with the charset Express 4 gives its media type, unless it names one. */
function addCharset(type: string): string {
  if (HAS_CHARSET.test(type)) return type;
  const charset = charsetFor(type.split(';')[0]);
  // Joined, one flat string, kept for the heads of many responses (etag.ts, `tagOf`).
  return charset ? [type, '; charset=', String(charset).toLowerCase()].join('') : type;
}

/** An extension (or a value with `/`, used as is) as the media type Express 4 answers with. */
export function mediaTypeOf(typeOrExt: string): string {
  // Express sets whatever its mime's lookup returns, made a string by res.set.
  return typeOrExt.indexOf('/') === -1 ? String(mediaTypeFor(typeOrExt)) : typeOrExt;
}

/**
 * What Express 4's `res.type` does with anything but a string (the rare path): it
 * calls the value's `indexOf('/')`, then its MIME lookup calls `replace` on it, so
 * the same TypeErrors come out (null, a number, an array: a route passing
 * `req.query.format` gets a 500 for `?format[]=html`). A `String` object works as its
 * value; an array holding `'/'` reaches `res.set`, which refuses an array as the type.
 */
function oddMediaType(type: unknown): unknown {
  if (type instanceof String) return mediaTypeOf(type.valueOf());
  if (type === null || type === undefined) throw new TypeError(`Cannot read properties of ${type} (reading 'indexOf')`);
  const indexOf = (type as { indexOf?: unknown }).indexOf;
  if (typeof indexOf !== 'function') throw new TypeError('type.indexOf is not a function');
  if (indexOf.call(type, '/') !== -1) return type;
  if (typeof (type as { replace?: unknown }).replace !== 'function' && !lookupReplaced())
    throw new TypeError('path.replace is not a function');
  return mediaTypeFor(type as string);
}

/**
 * 3.x's `res.type` argument as a string primitive (webapp/v3): Express 3 throws a
 * TypeError for anything but a string, as 4.x does (oddMediaType); a `String`
 * object works as its value does.
 */
export function typeArgument(typeOrExt: unknown): string {
  if (typeof typeOrExt === 'string') return typeOrExt;
  if (typeOrExt instanceof String) return typeOrExt.valueOf();
  const got = Array.isArray(typeOrExt) ? 'an array' : typeOrExt === null ? 'null' : typeof typeOrExt;
  throw new TypeError(`res.type() takes a string (a file extension or a media type), not ${got}`);
}

/** The Content-Type value `res.type(typeOrExt)` sets. */
export function contentTypeValue(typeOrExt: string): string {
  return withCharset(mediaTypeOf(typeOrExt));
}

let htmlType = '';
let htmlTypeDefinitions = -1;

/**
 * `contentTypeValue('html')`, what a string body from `res.send` gets when no type
 * is set: most responses ask for it, so it is worked out again only after
 * `mime.define` (which may map `html` to another type). An app's own `lookup` or
 * `charsets.lookup` answers each time, as Express asks them each time, and nothing
 * it answers is kept (it may be put back before the next response).
 */
export function htmlContentType(): string {
  if (lookupReplaced() || charsetsReplaced()) return contentTypeValue('html');
  if (htmlTypeDefinitions !== definitionCount()) {
    htmlType = contentTypeValue('html');
    htmlTypeDefinitions = definitionCount();
  }
  return htmlType;
}

function set(this: Response, field: string | Record<string, unknown>, val?: unknown): Response {
  if (arguments.length === 2) {
    // The value first, as in Express: a value that cannot be a string (a Symbol) throws
    // its TypeError before a name that is not a string throws `field.toLowerCase is not a function`.
    let value: string | string[] = Array.isArray(val) ? val.map(String) : String(val);
    if (isContentTypeName(field)) {
      if (Array.isArray(value)) throw new TypeError('Content-Type cannot be set to an Array');
      value = withCharset(value);
    }
    this.setHeader(field as string, value);
    return this;
  }
  // Inherited enumerable keys count too, as `for...in` over the object does in Express.
  const fields = field as Record<string, unknown>;
  for (const key in fields) this.set(key, fields[key]);
  return this;
}

/**
 * `field.toLowerCase() === 'content-type'`, asked as Express asks it: of anything, so a
 * name that is not a string throws as there. The length test first spares lower-casing
 * every other string.
 */
function isContentTypeName(field: unknown): boolean {
  if (typeof field === 'string') return field.length === 12 && field.toLowerCase() === 'content-type';
  return (field as { toLowerCase(): unknown }).toLowerCase() === 'content-type';
}

function contentType(this: Response, type: string): Response {
  return this.set('Content-Type', typeof type === 'string' ? mediaTypeOf(type) : oddMediaType(type));
}

function get(this: Response, field: string) {
  return this.getHeader(field);
}

/**
 * Whether `res.get`, `res.set` and `res.type` are these (no app or wrapper
 * replaced them): then `res.send` may read and write its headers in the store
 * directly, since the calls it leaves out would have done only that.
 */
export function hasOwnHeaderMethods(res: Response): boolean {
  return res.set === set && res.get === get && res.type === contentType;
}

export const headerMethods = {
  set,
  header: set,
  get,

  append(this: Response, field: string, val: string | string[]) {
    const previous = this.get(field);
    let value: unknown = val;
    if (previous) {
      value = Array.isArray(previous)
        ? previous.concat(val)
        : Array.isArray(val)
          ? [previous].concat(val)
          : [previous, val];
    }
    return this.set(field, value);
  },

  type: contentType,
  contentType,

  vary(this: Response, field: string | string[]) {
    if (!field || (Array.isArray(field) && field.length === 0)) {
      deprecate('res.vary(): Provide a field name');
      return this;
    }
    appendVary(this, field);
    return this;
  },

  /** Adds `<url>; rel="name"` entries to the Link header, after any already there. */
  links(this: Response, links: Record<string, string>) {
    let link = (this.get('Link') as string | undefined) || '';
    if (link) link += ', ';
    const entries = Object.keys(links).map((rel) => '<' + links[rel] + '>; rel="' + rel + '"');
    return this.set('Link', link + entries.join(', '));
  },

  attachment(this: Response, filename?: string) {
    if (filename) this.type(extname(filename));
    this.set('Content-Disposition', contentDispositionModule().contentDisposition(filename));
    return this;
  },
};
