/**
 * `basicAuth(user, pass, [realm])`, `basicAuth(fn(user, pass), [realm])` or
 * `basicAuth(fn(user, pass, done), [realm])`: HTTP Basic authentication filling
 * `req.user` (and `req.remoteUser`). No credentials or wrong ones: 401 with
 * `WWW-Authenticate`; a header that is not `Basic <base64 user:pass>`: 400.
 */
import { Buffer } from 'node:buffer';
import { createHash, timingSafeEqual } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Middleware, MiddlewareRequest } from './types';
import { answerFromCallback } from './answer-from-callback';
import { named } from '../named';

export type SyncCheck = (user: string, pass: string) => unknown;
export type AsyncCheck = (user: string, pass: string, done: (err: unknown, user?: unknown) => void) => void;

/**
 * Equal strings, in time that does not depend on where they differ (3.x used
 * `==`, which leaks the matching prefix length). Hashing first gives both sides
 * the same length, so the length is not leaked either.
 */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && given === expected;
}

function unauthorized(res: ServerResponse, realm: string): void {
  res.statusCode = 401;
  res.setHeader('WWW-Authenticate', 'Basic realm="' + realm + '"');
  res.end('Unauthorized');
}

/**
 * A malformed Authorization header: a plain Error with `status` 400, as
 * basic-auth-connect (Connect 2.30) makes it. An error handler shows its
 * name, message and own properties, so an HttpError would read differently.
 */
function badRequest(): Error {
  return Object.assign(new Error(STATUS_CODES[400]), { status: 400 });
}

export function basicAuth(callback: string | SyncCheck | AsyncCheck, realm?: string, ...rest: string[]): Middleware {
  let check: SyncCheck | AsyncCheck;
  if (typeof callback === 'string') {
    const username = callback;
    const password = realm;
    if (typeof password !== 'string') throw new Error('password argument required');
    realm = rest[0];
    // Both comparisons always run, so timing does not tell which part was wrong.
    check = (user: string, pass: string) => {
      const userOk = sameSecret(user, username);
      const passOk = sameSecret(pass, password);
      return userOk && passOk;
    };
  } else {
    check = callback;
  }
  const realmName = realm || 'Authorization Required';

  return named('basicAuth', function (request, res, next) {
    const req = request as MiddlewareRequest;
    const authorization = req.headers.authorization;
    if (req.user) return next();
    if (!authorization) return unauthorized(res, realmName);

    const parts = authorization.split(' ');
    if (parts.length !== 2) return next(badRequest());
    const credentials = Buffer.from(parts[1], 'base64').toString();
    const colon = credentials.indexOf(':');
    if (parts[0] !== 'Basic' || colon < 0) return next(badRequest());

    const user = credentials.slice(0, colon);
    const pass = credentials.slice(colon + 1);
    const accept = (found: unknown) => {
      req.user = req.remoteUser = found;
      next();
    };
    if (check.length >= 3) {
      (check as AsyncCheck)(user, pass, (err, found) => {
        if (err || !found) {
          answerFromCallback(res, next, () => unauthorized(res, realmName));
          return;
        }
        accept(found);
      });
    } else if ((check as SyncCheck)(user, pass)) {
      accept(user);
    } else {
      unauthorized(res, realmName);
    }
  });
}
