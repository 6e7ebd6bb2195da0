/**
 * Filling `req.query`, the one module for it. Two jobs, each done once:
 * - `queryLayer(parser)`: the first layer of every app, 4.x and 3.x. It only
 *   records which parser applies (the first app's, as in Express); `req.query`
 *   parses on first read (src/request.ts), so requests that never read it pay nothing.
 * - `query(options)`: the public middleware (`webapp.query`, and `query()` of
 *   `webapp/middleware`). It parses at once, because the requests it sees need
 *   not be webapp's and may lack the lazy accessor.
 * Both keep a `req.query` that something set before them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseUrl } from './http/parse-url';
import { lazy } from './http/lazy';
import type { ExtendedParseOptions } from './querystring';
import { kQueryParser, type QueryParser } from './request';
import type { NextFunction } from './router/layer';

const querystring = lazy(() => require('./querystring') as typeof import('./querystring'));

type QueryParserFunction = (queryString: string | null | undefined, options?: unknown) => unknown;

interface QueryRequest extends IncomingMessage {
  query?: unknown;
  [kQueryParser]?: QueryParser;
}

/** The app's query layer: names the parser `req.query` will use, unless the request has one or a query. */
export function queryLayer(parser: QueryParser) {
  return function query(req: QueryRequest, _res: ServerResponse, next: NextFunction) {
    // Only an own `query` (set by whatever handled the request first) can be set
    // yet; checking for it avoids running the lazy accessor.
    if (req[kQueryParser] === undefined && (!Object.prototype.hasOwnProperty.call(req, 'query') || !req.query)) {
      req[kQueryParser] = parser;
    }
    next();
  };
}

/**
 * `webapp.query(options)`, Express 4's exported query middleware: qs semantics
 * (`options` are qs options; prototype keys allowed unless set otherwise), or a
 * parser function given the raw query string.
 */
export function query(options?: ExtendedParseOptions | QueryParserFunction) {
  let parse: QueryParserFunction = (str, opts) => querystring().parseExtended(str ?? '', opts as ExtendedParseOptions);
  let opts: ExtendedParseOptions | undefined = { ...(options as ExtendedParseOptions) };
  if (typeof options === 'function') {
    parse = options;
    opts = undefined;
  } else if (opts.allowPrototypes === undefined) {
    opts.allowPrototypes = true;
  }
  return function query(req: QueryRequest, _res: ServerResponse, next: NextFunction) {
    if (!req.query) req.query = parse(parseUrl(req)?.query, opts);
    next();
  };
}
