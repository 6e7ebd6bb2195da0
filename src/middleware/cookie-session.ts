/**
 * `cookieSession([options])`: the whole session kept in a signed cookie
 * (`key` default `webapp.sess`, `secret` or the cookieParser secret, `cookie`
 * settings, `proxy` to trust X-Forwarded-Proto for secure cookies). Needs
 * cookieParser before it. `req.session = null` clears the cookie; an unchanged
 * session is not re-sent.
 * Security fix over 3.x: Connect 2 accepted an unsigned `j:` cookie as the
 * session when `secret` was given; here only a correctly signed one counts.
 */
import type { IncomingMessage } from 'node:http';
import { connectionOf } from '../http/connection';
import { sign, unsign } from '../http/cookie-signature';
import { firstListEntry } from '../http/header-list';
import { parseOriginalUrl } from '../http/parse-url';
import { JSONCookie } from './cookie-parser';
import { onHeaders } from './on-headers';
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

/** The session a signed `s:j:{...}` cookie holds, or `undefined`. */
function readSigned(raw: unknown, secret: string): { value: string; data: SessionData } | undefined {
  if (typeof raw !== 'string' || !raw.startsWith('s:')) return undefined;
  const value = unsign(raw.slice(2), secret);
  if (value === false) return undefined;
  const data = JSONCookie(value);
  return { value, data: data && typeof data === 'object' ? (data as SessionData) : {} };
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
      // cookieParser verified it already; a forged one is `false` there.
      const verified = req.signedCookies?.[key];
      req.session = verified && typeof verified === 'object' ? verified : {};
      req.session.cookie = cookie;
    } else {
      const found = readSigned(req.cookies?.[key], secret);
      if (found) {
        original = found.value;
        req.session = found.data;
        req.session.cookie = cookie;
      }
    }

    onHeaders(res, () => {
      const session = req.session as SessionData | null | undefined;
      if (!session) {
        cookie.expires = new Date(0);
        res.setHeader('Set-Cookie', cookie.serialize(key, ''));
        return;
      }
      delete session.cookie;
      if (cookie.secure && !isSecureConnection(req, options.proxy)) return;
      const value = 'j:' + JSON.stringify(session);
      if (original === value) return;
      res.setHeader('Set-Cookie', cookie.serialize(key, 's:' + sign(value, secret)));
    });
    next();
  });
}
