/**
 * Filling `req.query`, the one module for it, as Express's query middleware does:
 * an own property of the request, parsed from the query string of `req.url` when
 * the middleware runs, unless the request already has a truthy `req.query`.
 * - `queryLayer(parser)`: the first layer of every app, 4.x and 3.x, with the
 *   app's `query parser`. Its errors (a parser of the app's own that throws: qs with
 *   `strictDepth`, a validating function) go to the app's error handlers, as in Express.
 * - `query(options)`: the public middleware (`webapp.query`, and `query()` of
 *   `webapp/middleware`).
 *
 * An own data property, not an accessor parsing on first read: middleware redefines
 * it from its own descriptor (express-openapi-validator saves and restores it around
 * its coercion; zod and Express 5 shims define it `configurable`), deletes it, or
 * spreads the request, and each of those answers as in Express only if it is there.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseUrl } from './http/parse-url';
import { lazy } from './http/lazy';
import type { ExtendedParseOptions } from './querystring';
import { runnableInPlace, type NextFunction } from './router/layer';

const querystring = lazy(() => require('./querystring') as typeof import('./querystring'));

/**
 * A query string parser; `null` when the URL has no `?` (as parseurl gives it to
 * Express's). Called with a second argument, `undefined`, as Express calls it (the
 * options of `query(options)`, which an app's parser does not have).
 */
export type QueryParser = (queryString: string | null, options: undefined) => unknown;

type QueryParserFunction = (queryString: string | null | undefined, options?: unknown) => unknown;

interface QueryRequest extends IncomingMessage {
  query?: unknown;
}

/** The app's query layer: `req.query` from the app's parser, unless the request has one. */
export function queryLayer(parser: QueryParser) {
  // A parser that throws leaves `req.query` unset, as in Express; the error handlers that
  // answer link the request to its response first (router/layer.ts, invokeErrorHandler).
  const fill = (req: QueryRequest): void => {
    if (req.query) return;
    req.query = parser(parseUrl(req)?.query ?? null, undefined);
  };
  // A method's name, which bundlers keep: a function expression named `query` beside the
  // module's `query` export becomes `query2` in a bundle (esbuild), and tools read layer names.
  const layer = {
    query(req: QueryRequest, _res: ServerResponse, next: NextFunction) {
      fill(req);
      next();
    },
  }.query;
  return runnableInPlace(layer, fill);
}

/**
 * `webapp.query(options)`, Express 4's exported query middleware: qs semantics
 * (`options` are qs options; prototype keys allowed unless set otherwise), or a
 * parser function given the raw query string.
 */
export function query(options?: ExtendedParseOptions | QueryParserFunction) {
  let parse: QueryParserFunction = (str, opts) => querystring().parseExtended(str, opts as ExtendedParseOptions);
  let opts: ExtendedParseOptions | undefined = { ...(options as ExtendedParseOptions) };
  if (typeof options === 'function') {
    parse = options;
    opts = undefined;
  } else {
    querystring().assertImplementedOptions(opts, 'query');
    if (opts.allowPrototypes === undefined) opts.allowPrototypes = true;
  }
  // Named by a method, as the layer above.
  return {
    query(req: QueryRequest, _res: ServerResponse, next: NextFunction) {
      if (!req.query) req.query = parse(parseUrl(req)?.query, opts);
      next();
    },
  }.query;
}
