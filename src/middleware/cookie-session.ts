/**
 * `cookieSession([options])`: the whole session kept in a signed cookie
 * (`key` default `webapp.sess`, `secret` or the cookieParser secret, `cookie`
 * settings, `proxy` to trust X-Forwarded-Proto for secure cookies). Needs
 * cookieParser before it. `req.session = null` clears the cookie; an unchanged
 * session is not re-sent.
 * Security fix over 3.x: Connect 2 accepted an unsigned `j:` cookie as the
 * session when `secret` was given; here only a correctly signed one counts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connectionOf } from '../http/connection';
import { sign, unsign } from '../http/cookie-signature';
import { firstListEntry } from '../http/header-list';
import { parseOriginalUrl } from '../http/parse-url';
import { JSONCookie } from './cookie-parser';
import { onHeaders } from './on-headers';
import { appendSetCookie } from './set-cookie';
import { Cookie, type CookieOptions } from './session/cookie';
import type { Middleware, MiddlewareRequest } from './types';
import { named } from '../named';

export interface CookieSessionOptions {
  key?: string;
  secret?: string;
  cookie?: CookieOptions;
  proxy?: boolean;
}

type SessionData = Record<string, unknown> & { cookie?: Cookie };

/**
 * What a signed cookie's value becomes as the session: its JSON when that is truthy,
 * whatever its type, else a fresh object. Connect 2.30 kept a string, a number or an
 * array the app had stored (`req.session = 7` comes back as 7 on the next request,
 * and an unchanged one is not re-sent); only an object gets the `cookie` member.
 */
function sessionOf(data: unknown): SessionData {
  return (data || {}) as SessionData;
}

function withCookie(session: SessionData, cookie: Cookie): SessionData {
  if (typeof session === 'object') session.cookie = cookie;
  return session;
}

/** The session a signed `s:j:...` cookie holds, or `undefined`. */
function readSigned(raw: unknown, secret: string): { value: string; data: SessionData } | undefined {
  if (typeof raw !== 'string' || !raw.startsWith('s:')) return undefined;
  const value = unsign(raw.slice(2), secret);
  if (value === false) return undefined;
  return { value, data: sessionOf(JSONCookie(value)) };
}

function isSecureConnection(req: IncomingMessage, trustProxy: boolean | undefined): boolean {
  if (connectionOf(req)?.encrypted) return true;
  if (!trustProxy) return false;
  const proto = String(req.headers['x-forwarded-proto'] || '').toLowerCase();
  return firstListEntry(proto) === 'https';
}

// `options?` rather than a default: a default parameter would make `.length` 0, Connect's is 1.
export function cookieSession(options?: CookieSessionOptions): Middleware {
  options = options ?? {};
  const key = options.key || 'webapp.sess';
  return named('cookieSession', function (request, res, next) {
    const req = request as MiddlewareRequest;
    const secret = options.secret || req.secret;
    if (!secret) throw new Error('`secret` option required for cookie sessions');

    req.session = {};
    const cookie = (req.session.cookie = new Cookie(options.cookie));
    const originalPath = parseOriginalUrl(req)?.pathname ?? '/';
    if (originalPath.indexOf(cookie.path) !== 0) return next();

    let original: string | undefined;
    if (!options.secret && req.secret) {
      // cookieParser verified it already (a forged one is `false` there) and decoded its
      // JSON: a string or number the app stored stays the session, as in Connect 2.30.
      req.session = withCookie(sessionOf(req.signedCookies?.[key]), cookie);
    } else {
      const found = readSigned(req.cookies?.[key], secret);
      if (found) {
        original = found.value;
        req.session = withCookie(found.data, cookie);
      }
    }

    onHeaders(res, () => {
      const session = req.session as SessionData | null | undefined;
      if (!session) {
        cookie.expires = new Date(0);
        setSessionCookie(res, cookie.serialize(key, ''));
        return;
      }
      if (typeof session === 'object') delete session.cookie;
      if (cookie.secure && !isSecureConnection(req, options.proxy)) return;
      const value = 'j:' + JSON.stringify(session);
      if (original === value) return;
      setSessionCookie(res, cookie.serialize(key, 's:' + sign(value, secret)));
    });
    next();
  });
}

/**
 * The session's cookie as Connect 2.30 set it, `Set-Cookie` with the one value, added to
 * those the app or other middleware set: Connect's response added Set-Cookie values up
 * itself, and a 4.x response would drop them.
 */
function setSessionCookie(res: ServerResponse, line: string): void {
  if (res.getHeader('Set-Cookie') === undefined) res.setHeader('Set-Cookie', line);
  else appendSetCookie(res, line, 'Set-Cookie');
}
