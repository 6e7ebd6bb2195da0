/**
 * `query()`: `req.query` from the URL's query string with extended (qs-style)
 * parsing, unless something already set it; `{}` without a `?`.
 * Security fix over 3.x: Connect 2 parsed with `allowPrototypes: true`, so
 * `?hasOwnProperty=x` shadowed Object.prototype methods; here it does not.
 */
import { QS4_ARRAY_LIMIT, parseExtended } from '../querystring';
import { query as queryMiddleware } from '../query';
import type { Middleware } from './types';

/** No query string (`null`) and an empty one both give `{}`; arrays as qs 4 made them. */
function parseWithoutPrototypes(queryString: string | null | undefined): unknown {
  return parseExtended(queryString ?? '', { arrayLimit: QS4_ARRAY_LIMIT });
}

export function query(): Middleware {
  return queryMiddleware(parseWithoutPrototypes);
}
