/**
 * `csrf([options])`: Connect 2's CSRF protection (csurf 1.8.3). A per-visitor
 * secret lives in `req.session.csrfSecret` (or, with `cookie`, in a cookie,
 * signed when `cookie.signed`); `req.csrfToken()` makes a token for it, and
 * every request whose method is not ignored (default GET, HEAD, OPTIONS) must
 * carry a matching one in `_csrf` (body, query) or a CSRF header, else it fails
 * with 403 `EBADCSRFTOKEN`. Place it after the session (or cookieParser) and
 * the body parser.
 */
import type { ServerResponse } from 'node:http';
import { serialize } from 'cookie';
import { sign } from '../../http/cookie-signature';
import { createHttpError } from '../../http/errors';
import type { CookieSerializeOptions, Middleware, MiddlewareRequest } from '../types';
import { appendSetCookie } from '../set-cookie';
import { CsrfTokens, type TokenOptions } from './tokens';
import { named } from '../../named';

export { CsrfTokens } from './tokens';
export type { TokenOptions } from './tokens';

export interface CsrfCookieOptions extends CookieSerializeOptions {
  /** Cookie name (default `_csrf`). */
  key?: string;
  /** Sign the cookie with the cookieParser secret and read it from `req.signedCookies`. */
  signed?: boolean;
}

export interface CsrfOptions extends TokenOptions {
  /** Keep the secret in a cookie instead of the session (`true` for the defaults). */
  cookie?: boolean | CsrfCookieOptions;
  /** Where the session is on the request (default `session`). */
  sessionKey?: string;
  /** Reads the token a request carries (default: `_csrf` in body or query, or a CSRF header). */
  value?: (req: CsrfRequest) => unknown;
  /** Methods never checked (default GET, HEAD, OPTIONS). */
  ignoreMethods?: string[];
}

export interface CsrfRequest extends MiddlewareRequest {
  csrfToken?: () => string;
  [key: string]: unknown;
}

type CookieSettings = CsrfCookieOptions & { key: string };

/** Where the token may arrive, first non-empty wins (csurf's order). */
function defaultValue(req: CsrfRequest): unknown {
  return (
    (req.body && req.body._csrf) ||
    (req.query && req.query._csrf) ||
    req.headers['csrf-token'] ||
    req.headers['xsrf-token'] ||
    req.headers['x-csrf-token'] ||
    req.headers['x-xsrf-token']
  );
}

function cookieSettings(option: CsrfOptions['cookie']): CookieSettings | undefined {
  if (option !== true && (typeof option !== 'object' || option === null)) return undefined;
  const settings: CookieSettings = { key: '_csrf', path: '/' };
  // An option given as `undefined` keeps the default.
  if (typeof option === 'object')
    Object.assign(settings, Object.fromEntries(Object.entries(option).filter(([, value]) => value !== undefined)));
  return settings;
}

function methodLookup(methods: unknown): Record<string, true> {
  if (!Array.isArray(methods)) throw new TypeError('option ignoreMethods must be an array');
  const lookup: Record<string, true> = Object.create(null);
  for (const method of methods) {
    if (typeof method !== 'string') throw new TypeError('option ignoreMethods must contain method names');
    lookup[method.toUpperCase()] = true;
  }
  return lookup;
}

function misconfigured(): Error {
  return createHttpError(500, 'misconfigured csrf');
}

/**
 * The secret the request carries, `undefined` when there is none yet. A value
 * that is not a non-empty string (a `j:` cookie decoded to an object, say)
 * counts as none, so a new secret replaces it instead of failing later.
 */
function readSecret(req: CsrfRequest, sessionKey: string, cookie: CookieSettings | undefined): string | undefined {
  let value: unknown;
  if (cookie) {
    const jar = cookie.signed ? req.signedCookies : req.cookies;
    // csurf 1.8.3 failed with a TypeError here; later csurf names the mistake.
    if (!jar) throw misconfigured();
    value = jar[cookie.key];
  } else {
    const session = req[sessionKey] as Record<string, unknown> | undefined | null;
    if (!session) throw misconfigured();
    value = session.csrfSecret;
  }
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function storeSecret(
  req: CsrfRequest,
  res: ServerResponse,
  sessionKey: string,
  secret: string,
  cookie: CookieSettings | undefined,
): void {
  if (!cookie) {
    const session = req[sessionKey] as Record<string, unknown> | undefined | null;
    if (!session) throw misconfigured();
    session.csrfSecret = secret;
    return;
  }
  let value = secret;
  if (cookie.signed) {
    if (!req.secret) throw new Error('cookieParser("secret") required for signed cookies');
    value = 's:' + sign(secret, req.secret);
  }
  const { key, signed: _signed, ...attributes } = cookie;
  appendSetCookie(res, serialize(key, value, attributes));
}

export function csrf(options?: CsrfOptions): Middleware {
  const opts = options || {};
  const cookie = cookieSettings(opts.cookie);
  const sessionKey = opts.sessionKey || 'session';
  const readValue = opts.value || defaultValue;
  const tokens = new CsrfTokens(opts);
  const ignored = methodLookup(opts.ignoreMethods === undefined ? ['GET', 'HEAD', 'OPTIONS'] : opts.ignoreMethods);

  return named('csrf', function (request, res, next) {
    const req = request as CsrfRequest;
    let secret: string | undefined;
    try {
      secret = readSecret(req, sessionKey, cookie);
    } catch (err) {
      return next(err);
    }

    let token: string | undefined;
    req.csrfToken = function csrfToken(): string {
      // The session may have been regenerated since; the cookie is fixed for this request.
      let current = cookie ? secret : readSecret(req, sessionKey, cookie);
      if (token && current === secret) return token;
      if (current === undefined) {
        current = tokens.secret();
        storeSecret(req, res, sessionKey, current, cookie);
      }
      secret = current;
      token = tokens.create(current);
      return token;
    };

    try {
      if (secret === undefined) {
        secret = tokens.secret();
        storeSecret(req, res, sessionKey, secret, cookie);
      }
      if (!ignored[req.method ?? ''] && !tokens.verify(secret, readValue(req))) {
        return next(createHttpError(403, 'invalid csrf token', { code: 'EBADCSRFTOKEN' }));
      }
    } catch (err) {
      return next(err);
    }
    next();
  });
}
