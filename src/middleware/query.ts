/**
 * `query()`: `req.query` from the URL's query string as Connect 2.30 parsed it with
 * qs 4.0 (src/querystring/qs4.ts), unless something already set it; `{}` without a `?`.
 * Security fix over 3.x: Connect 2 parsed with `allowPrototypes: true`, so
 * `?hasOwnProperty=x` shadowed Object.prototype methods; here such keys are dropped.
 */
import { QS4_DEFAULTS, parseQs4, type Qs4Options } from '../querystring/qs4';
import { query as queryMiddleware } from '../query';
import type { Middleware } from './types';

const withoutPrototypes: Qs4Options = { ...QS4_DEFAULTS, allowPrototypes: false };

/** No query string (`null`) and an empty one both give `{}`. */
function parseWithoutPrototypes(queryString: string | null | undefined): unknown {
  return parseQs4(queryString, withoutPrototypes);
}

export function query(): Middleware {
  return queryMiddleware(parseWithoutPrototypes);
}
