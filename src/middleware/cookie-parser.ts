/**
 * `cookieParser([secret], [options])`: `req.cookies` from the Cookie header,
 * `j:` values parsed as JSON, `s:` values verified with `secret` into
 * `req.signedCookies` (a wrong signature gives `false`), and `req.secret` set so
 * `res.cookie(..., { signed: true })` can sign. Results are objects without a
 * prototype, so a cookie named `__proto__` cannot reach Object.prototype.
 */
import cookie from 'cookie';
import { unsign } from '../http/cookie-signature';
import type { BundleRequest, Middleware, Next } from './types';

type Jar = Record<string, unknown>;

/** A `j:` cookie's JSON value, or undefined. */
export function jsonCookie(value: unknown): unknown {
  if (typeof value !== 'string' || value.substring(0, 2) !== 'j:') return undefined;
  try {
    return JSON.parse(value.slice(2));
  } catch {
    return undefined;
  }
}

/** An `s:` cookie's value when its signature holds, false when not, the value itself when unsigned. */
export function signedCookie(value: unknown, secret: string): unknown {
  if (typeof value !== 'string' || value.substring(0, 2) !== 's:') return value;
  return unsign(value.slice(2), secret);
}

function jsonCookies(jar: Jar): Jar {
  for (const key of Object.keys(jar)) {
    const parsed = jsonCookie(jar[key]);
    if (parsed) jar[key] = parsed;
  }
  return jar;
}

/** Moves signed cookies out of `jar` into a new jar of verified values. */
function signedCookies(jar: Jar, secret: string): Jar {
  const verified: Jar = Object.create(null);
  for (const key of Object.keys(jar)) {
    const value = jar[key];
    const unsigned = signedCookie(value, secret);
    if (unsigned !== value) {
      verified[key] = unsigned;
      delete jar[key];
    }
  }
  return verified;
}

export function cookieParser(secret?: string, options?: cookie.CookieParseOptions): Middleware {
  return function cookieParser(rawReq, _res, next: Next) {
    const req = rawReq as BundleRequest;
    if (req.cookies) return next();
    const header = req.headers.cookie;
    req.secret = secret;
    req.cookies = Object.create(null);
    req.signedCookies = Object.create(null);
    if (!header) return next();
    const jar: Jar = Object.assign(Object.create(null), cookie.parse(header, options));
    if (secret) req.signedCookies = jsonCookies(signedCookies(jar, secret));
    req.cookies = jsonCookies(jar);
    next();
  };
}
