/**
 * `basicAuth(user, pass)`, `basicAuth(fn(user, pass))` or
 * `basicAuth(fn(user, pass, done(err, user)))`: HTTP Basic authentication filling
 * `req.user` (and `req.remoteUser`). Missing or wrong credentials get 401 with
 * `WWW-Authenticate: Basic realm="..."`; a malformed header is a 400 error.
 * Security fix over 3.x: fixed credentials are compared in constant time.
 */
import { STATUS_CODES } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { BundleRequest, Middleware, Next } from './types';

type SyncCheck = (user: string, pass: string) => boolean;
type AsyncCheck = (user: string, pass: string, done: (err: unknown, user?: unknown) => void) => void;

/** Equal strings in time that does not depend on where they differ (hashes have equal length). */
function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

function unauthorized(res: ServerResponse, realm: string): void {
  res.statusCode = 401;
  res.setHeader('WWW-Authenticate', 'Basic realm="' + realm + '"');
  res.end('Unauthorized');
}

function badRequest(): Error {
  return Object.assign(new Error(STATUS_CODES[400]), { status: 400 });
}

export function basicAuth(check: string | SyncCheck | AsyncCheck, realmOrPassword?: string, fixedRealm?: string): Middleware {
  let callback = check as SyncCheck | AsyncCheck;
  let realm = realmOrPassword;
  if (typeof check === 'string') {
    const username = check;
    const password = realmOrPassword;
    if (typeof password !== 'string') throw new Error('password argument required');
    realm = fixedRealm;
    callback = (user: string, pass: string) => {
      // Both comparisons always run, so timing tells nothing about which one failed.
      const userOk = safeEqual(user, username);
      const passOk = safeEqual(pass, password);
      return userOk && passOk;
    };
  }
  const realmName = realm || 'Authorization Required';

  return function basicAuth(rawReq, res, next: Next) {
    const req = rawReq as BundleRequest;
    const authorization = req.headers.authorization;
    if (req.user) return next();
    if (!authorization) return unauthorized(res, realmName);
    const parts = authorization.split(' ');
    if (parts.length !== 2) return next(badRequest());
    const credentials = Buffer.from(parts[1], 'base64').toString();
    const index = credentials.indexOf(':');
    if (parts[0] !== 'Basic' || index < 0) return next(badRequest());
    const user = credentials.slice(0, index);
    const pass = credentials.slice(index + 1);
    if (callback.length >= 3) {
      (callback as AsyncCheck)(user, pass, (err, found) => {
        if (err || !found) return unauthorized(res, realmName);
        req.user = req.remoteUser = found;
        next();
      });
    } else if ((callback as SyncCheck)(user, pass)) {
      req.user = req.remoteUser = user;
      next();
    } else {
      unauthorized(res, realmName);
    }
  };
}
