/**
 * `query()`: `req.query` from the URL's query string with extended (qs-style)
 * parsing, unless something already set it; `{}` without a `?`.
 * Security fix over 3.x: Connect 2 parsed with `allowPrototypes: true`, so
 * `?hasOwnProperty=x` shadowed Object.prototype methods; here it does not.
 */
import { parseUrl } from '../http/parse-url';
import { parseExtended } from '../querystring';
import type { Middleware, MiddlewareRequest } from './types';

export function query(): Middleware {
  return function query(request, _res, next) {
    const req = request as MiddlewareRequest;
    if (!req.query) {
      req.query = req.url && req.url.includes('?') ? parseExtended(parseUrl(req)?.query ?? '') : {};
    }
    next();
  };
}
