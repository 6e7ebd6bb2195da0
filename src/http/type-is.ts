/**
 * Request content-type matching as type-is (used by `req.is` and the body
 * parsers): types may be MIME types, extensions (`json`), wildcards (`*\/json`,
 * `text/*`), `+suffix` forms (`+json`), `urlencoded` and `multipart`.
 */
import type { IncomingMessage } from 'node:http';
import { lazy } from './lazy';

const mimeTypes = lazy(() => require('mime-types') as typeof import('mime-types'));

const SUBTYPE_NAME = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.-]{0,126}$/;
const SUFFIX_NAME = /^[A-Za-z0-9][A-Za-z0-9!#$&^_-]{0,126}$/;

/**
 * A request has a body when it says so: Transfer-Encoding, or a numeric
 * Content-Length; over HTTP/2 also when the HEADERS frame left the stream open
 * (DATA frames until END_STREAM, with no Content-Length, as fetch sends a
 * streamed body).
 */
export function hasBody(req: Pick<IncomingMessage, 'headers'> & { stream?: { endAfterHeaders?: unknown } }): boolean {
  // `req.headers` read once (see `fresh` in request.ts).
  const headers = req.headers;
  if (headers['transfer-encoding'] !== undefined || !isNaN(headers['content-length'] as unknown as number)) return true;
  const stream = req.stream;
  return stream != null && stream.endAfterHeaders === false;
}

/**
 * The type part of a Content-Type value as type-is 1.6 reads it (through media-typer
 * 0.3): spaces around it, but no tab or other white space; and its parameters,
 * `; name=value` one after another up to the end, spaces only around `;` and `=`, a
 * quoted value's escapes limited to printable ASCII. Stricter than the Content-Type
 * grammar the charset is read with: a value type-is refuses is not the parser's type,
 * and the body stays unread, as in Express.
 */
const TYPE_PART = / *([A-Za-z0-9][A-Za-z0-9!#$&^_-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}) */y;
const PARAMETER =
  /; *[!#$%&'*+\-.0-9A-Z^_`a-z|~]+ *= *(?:"(?:[ !\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\x20-\x7e])*"|[!#$%&'*+\-.0-9A-Z^_`a-z|~]+) */y;

/** The lower-cased `type/subtype` of a Content-Type value type-is accepts, or null. */
function mediaTyperType(value: string): string | null {
  const semicolon = value.indexOf(';');
  const end = semicolon === -1 ? value.length : semicolon;
  TYPE_PART.lastIndex = 0;
  const type = TYPE_PART.exec(value);
  if (type === null || TYPE_PART.lastIndex !== end) return null;
  let index = end;
  while (index < value.length) {
    PARAMETER.lastIndex = index;
    if (!PARAMETER.test(value)) return null;
    index = PARAMETER.lastIndex;
  }
  return type[1].toLowerCase();
}

/** The bare, lower-cased media type of a Content-Type value, or null when it is not one. */
function normalizeContentType(value: string | undefined): string | null {
  if (!value || typeof value !== 'string') return null;
  const type = mediaTyperType(value);
  if (type === null) return null;
  // The subtype's last '+' starts a structured-syntax suffix: the name before it
  // must be valid on its own, and an empty suffix is dropped ('x/y+' is 'x/y').
  const plus = type.lastIndexOf('+');
  if (plus === -1) return type;
  const slash = type.indexOf('/');
  const subtype = type.slice(slash + 1, plus);
  const suffix = type.slice(plus + 1);
  if (!SUBTYPE_NAME.test(subtype) || (suffix && !SUFFIX_NAME.test(suffix))) return null;
  return suffix ? type : type.slice(0, plus);
}

/** An expected type as a media type pattern, or false for an unknown extension. */
function normalizeExpected(type: unknown): string | false {
  if (typeof type !== 'string') return false;
  if (type === 'urlencoded') return 'application/x-www-form-urlencoded';
  if (type === 'multipart') return 'multipart/*';
  if (type[0] === '+') return '*/*' + type;
  return type.indexOf('/') === -1 ? mimeTypes().lookup(type) : type;
}

/** Whether `actual` fits the `expected` pattern (wildcards and `*+suffix` allowed). */
function mimeMatch(expected: string | false, actual: string): boolean {
  if (expected === false) return false;
  const actualParts = actual.split('/');
  const expectedParts = expected.split('/');
  if (actualParts.length !== 2 || expectedParts.length !== 2) return false;
  if (expectedParts[0] !== '*' && expectedParts[0] !== actualParts[0]) return false;
  if (expectedParts[1].substring(0, 2) === '*+') {
    const suffix = expectedParts[1].substring(1);
    return expectedParts[1].length <= actualParts[1].length + 1 && actualParts[1].endsWith(suffix);
  }
  return expectedParts[1] === '*' || expectedParts[1] === actualParts[1];
}

/**
 * The first of `types` the Content-Type value matches: the type as given, or the
 * actual media type for wildcard and suffix patterns; `false` when none match.
 * With no types, the normalized media type itself.
 */
export function matchType(contentType: string | undefined, types: unknown[]): string | false {
  const actual = normalizeContentType(contentType);
  if (!actual) return false;
  if (types.length === 0) return actual;
  for (const type of types) {
    if (mimeMatch(normalizeExpected(type), actual)) {
      const name = type as string;
      return name[0] === '+' || name.indexOf('*') !== -1 ? actual : name;
    }
  }
  return false;
}

/** `req.is`-style: null when the request has no body, else `matchType` of its Content-Type. */
export function typeIs(req: Pick<IncomingMessage, 'headers'>, types: unknown[]): string | false | null {
  if (!hasBody(req)) return null;
  return matchType(req.headers['content-type'], types);
}

/**
 * type-is's `is(mediaType, types)`: the first of `types` a Content-Type value
 * matches (see `matchType`), false when none does or the value is no media type.
 */
export const matchMediaType: (actual: string | undefined, types: unknown[]) => string | false = matchType;
