/**
 * `webapp.query(options)`: Express 4's exported query middleware. It fills
 * `req.query` when nothing has yet, with qs semantics (`options` are qs options;
 * prototype keys allowed unless set otherwise) or with a parser function.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseUrl } from './http/parse-url';
import { lazy } from './http/lazy';
import type { ExtendedParseOptions } from './querystring';
import type { NextFunction } from './router/layer';

const querystring = lazy(() => require('./querystring') as typeof import('./querystring'));

type QueryParserFunction = (queryString: string | null | undefined, options?: unknown) => unknown;

export function query(options?: ExtendedParseOptions | QueryParserFunction) {
  let parse: QueryParserFunction = (str, opts) => querystring().parseExtended(str ?? '', opts as ExtendedParseOptions);
  let opts: ExtendedParseOptions | undefined = { ...(options as ExtendedParseOptions) };
  if (typeof options === 'function') {
    parse = options;
    opts = undefined;
  } else if (opts.allowPrototypes === undefined) {
    opts.allowPrototypes = true;
  }
  return function query(req: IncomingMessage & { query?: unknown }, _res: ServerResponse, next: NextFunction) {
    if (!req.query) req.query = parse(parseUrl(req)?.query, opts);
    next();
  };
}
