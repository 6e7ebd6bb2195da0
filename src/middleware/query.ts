/**
 * `query()`: `req.query` from the URL's query string with extended (qs-style)
 * parsing, unless something already set it; `{}` without a `?`.
 * Security fix over 3.x: Connect 2 parsed with `allowPrototypes: true`, so
 * `?hasOwnProperty=x` shadowed Object.prototype methods; here it does not.
 */
import { parseExtended } from '../querystring';
import { query as queryMiddleware } from '../query';
import type { Middleware } from './types';

/**
 * No query string (`null`) and an empty one both give `{}`. qs 4 made an array of
 * `a[20]=` (indexes up to 20 included); webapp's parser stops before arrayLimit.
 */
function parseWithoutPrototypes(queryString: string | null | undefined): unknown {
  return parseExtended(queryString ?? '', { arrayLimit: 21 });
}

export function query(): Middleware {
  return queryMiddleware(parseWithoutPrototypes);
}
