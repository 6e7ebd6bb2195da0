/** Options shared by the four parsers, checked once when the middleware is made. */
import type { IncomingMessage } from 'node:http';
import { parseBytes } from '../http/bytes';
import { parseMediaType } from '../http/content-type';
import { typeIs } from '../http/type-is';
import type { Verify } from './read';

export interface Options {
  /** Inflate gzip/deflate/br bodies (default true); false rejects encoded bodies with 415. */
  inflate?: boolean;
  /** Maximum body size after inflation: bytes, or a string such as `'1mb'` (default `'100kb'`). */
  limit?: number | string;
  /** Media types to parse: a type, extension, wildcard, a list, or `fn(req)`. */
  type?: string | string[] | ((req: IncomingMessage) => unknown);
  /** `verify(req, res, buf, encoding)`: throw to reject the body (403). */
  verify?: Verify;
}

export interface CommonSettings {
  inflate: boolean;
  limit: number;
  verify: Verify | false;
  shouldParse: (req: IncomingMessage) => boolean;
}

/** Why throwing: an unparseable limit must never silently disable the limit. */
export function commonSettings(opts: Options, defaultType: string): CommonSettings {
  const limit = opts.limit === undefined || opts.limit === null ? 102400 : parseBytes(opts.limit);
  if (limit === null || isNaN(limit)) throw new TypeError('option limit "' + String(opts.limit) + '" is invalid');
  const verify = opts.verify || false;
  if (verify !== false && typeof verify !== 'function') throw new TypeError('option verify must be function');
  const type = opts.type || defaultType;
  const shouldParse =
    typeof type === 'function'
      ? (type as (req: IncomingMessage) => boolean)
      : (req: IncomingMessage) => Boolean(typeIs(req, Array.isArray(type) ? type : [type]));
  return { inflate: opts.inflate !== false, limit, verify, shouldParse };
}

/** The lower-cased charset parameter of the request's Content-Type, '' or undefined when unparseable. */
export function requestCharset(req: IncomingMessage): string | undefined {
  try {
    return (parseMediaType(String(req.headers['content-type'])).parameters.charset || '').toLowerCase();
  } catch {
    return undefined;
  }
}
