/**
 * `cookieParser([secret], [options])`: the Cookie header into `req.cookies` (read as
 * Connect 2.30 reads it, see cookie-header.ts), and
 * with a secret the `s:`-signed ones (verified, moved out of `req.cookies`) into
 * `req.signedCookies`; `j:` values are JSON-decoded in both. `req.secret` is set
 * so `res.cookie(name, value, { signed: true })` can sign.
 */
import { unsign } from '../http/cookie-signature';
import { parseConnectCookies } from './cookie-header';
import type { CookieParseOptions, Middleware, MiddlewareRequest } from './types';
import { named } from '../named';

/** The value of a `j:` cookie, or `undefined` when it is not one or does not parse. */
export function JSONCookie(str: unknown): unknown {
  if (typeof str !== 'string' || !str.startsWith('j:')) return undefined;
  try {
    return JSON.parse(str.slice(2));
  } catch {
    return undefined;
  }
}

/** Replaces every `j:` value of `obj` (in place) by its decoded JSON when that is truthy. */
function JSONCookies<T extends Record<string, unknown>>(obj: T): T {
  for (const key of Object.keys(obj)) {
    const value = JSONCookie(obj[key]);
    if (value) (obj as Record<string, unknown>)[key] = value;
  }
  return obj;
}

/** The unsigned value of an `s:` cookie (`false` when the signature is wrong); other values as they are. */
export function signedCookie(str: string, secret: string): string | false {
  return typeof str === 'string' && str.startsWith('s:') ? unsign(str.slice(2), secret) : str;
}

/** Moves the signed cookies out of `obj` into a new object, verified. */
function signedCookies(obj: Record<string, unknown>, secret: string): Record<string, unknown> {
  const signed: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (typeof value !== 'string') continue;
    const decoded = signedCookie(value, secret);
    if (decoded !== value) {
      signed[key] = decoded;
      delete obj[key];
    }
  }
  return signed;
}

/**
 * The helpers Connect 2.30's `cookieParser` (cookie-parser) carries as its members, which
 * 3.x apps call to read a signed session cookie outside a request (socket.io handshakes).
 */
const cookieParserHelpers = { JSONCookie, JSONCookies, signedCookie, signedCookies };

export function cookieParser(secret?: string, options?: CookieParseOptions): Middleware {
  return named('cookieParser', function (request, _res, next) {
    const req = request as MiddlewareRequest;
    if (req.cookies) return next();
    const header = req.headers.cookie;
    req.secret = secret;
    // Objects that inherit nothing: a cookie named `constructor` is a plain entry, and none reaches a prototype.
    const cookies: Record<string, unknown> =
      typeof header === 'string' && header !== '' ? parseConnectCookies(header, options?.decode) : Object.create(null);
    req.signedCookies = secret ? JSONCookies(signedCookies(cookies, secret)) : Object.create(null);
    req.cookies = JSONCookies(cookies);
    next();
  });
}

Object.assign(cookieParser, cookieParserHelpers);
