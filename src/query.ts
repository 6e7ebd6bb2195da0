/**
 * Filling `req.query`, the one module for it. Two jobs, each done once:
 * - `queryLayer(parser, parseNow)`: the first layer of every app, 4.x and 3.x. It
 *   records which parser applies (the first app's, as in Express); with Express's
 *   own parsers `req.query` parses on first read (src/request.ts), so requests that
 *   never read it pay nothing. A parser of the app's own may throw (qs with
 *   `strictDepth`, a validating function): it runs here, as in Express, so that its
 *   error goes to the app's error handlers rather than out of a later read of
 *   `req.query`, which a callback may make outside any handler (and which would then
 *   end the process).
 * - `query(options)`: the public middleware (`webapp.query`, and `query()` of
 *   `webapp/middleware`). It parses at once, because the requests it sees need
 *   not be webapp's and may lack the lazy accessor.
 * Both keep a `req.query` that something set before them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseUrl } from './http/parse-url';
import { lazy } from './http/lazy';
import type { ExtendedParseOptions } from './querystring';
import { hasFalsyQuery, kQueryParser, kQueryUrl, parseQuery, type QueryParser } from './request';
import { runnableInPlace, type NextFunction } from './router/layer';

const querystring = lazy(() => require('./querystring') as typeof import('./querystring'));

type QueryParserFunction = (queryString: string | null | undefined, options?: unknown) => unknown;

interface QueryRequest extends IncomingMessage {
  query?: unknown;
  [kQueryParser]?: QueryParser;
  [kQueryUrl]?: string;
}

/** The app's query layer: names the parser `req.query` will use, unless the request has one or a query. */
export function queryLayer(parser: QueryParser, parseNow = false) {
  const useParser = (req: QueryRequest, res: ServerResponse): void => {
    // Express's test, `!req.query`, first: on a webapp request without a parser yet the
    // lazy accessor parses nothing, and on Node 26 this read costs much less than the
    // own-property check. A truthy `query` counts only if it is the request's own (set
    // by whatever handled the request first), not the accessor's.
    if (req[kQueryParser] === undefined) {
      if (!req.query || !Object.prototype.hasOwnProperty.call(req, 'query')) {
        req[kQueryParser] = parser;
        req[kQueryUrl] = req.url;
        // A throw here is the layer's error, as in Express.
        if (parseNow) parseQueryBeforeInit(req, res);
      }
    } else if (hasFalsyQuery(req)) {
      // An app mounted below one whose `req.query` was set falsy parses the query of
      // its own URL (the mount path taken off), as Express's query middleware does.
      req[kQueryParser] = parser;
      req[kQueryUrl] = req.url;
      parseQueryBeforeInit(req, res);
    }
  };
  // A method's name, which bundlers keep: a function expression named `query` beside the
  // module's `query` export becomes `query2` in a bundle (esbuild), and tools read layer names.
  const layer = {
    query(req: QueryRequest, res: ServerResponse, next: NextFunction) {
      useParser(req, res);
      next();
    },
  }.query;
  return runnableInPlace(layer, useParser);
}

/**
 * Parses the query now; when the parser throws, the error handlers answer before
 * `expressInit` has linked the request to its response, and `res.send` reads the
 * response through `req.res` (`req.fresh`): linked here, so their answer goes out.
 * (Express's error handler fails there too, differently: its request still has Node's
 * prototype, and `res.status` is not a function.)
 */
function parseQueryBeforeInit(req: QueryRequest, res: ServerResponse): void {
  try {
    parseQuery(req);
  } catch (err) {
    (req as { res?: ServerResponse }).res ??= res;
    throw err;
  }
}

/**
 * Called as a request gets an app's prototype: a falsy `query` of the request's
 * own (set before the app, `''` or `null`) would hide the lazy accessor, where
 * Express's query middleware replaces it with the parse. The query layer cannot
 * tell a missing `query` from a falsy own one without an own-property check per
 * request, so it is done here, once per prototype change; a webapp server's
 * requests never change it, and on them `req.query = ...` goes to the accessor.
 */
export function revealQueryAccessor(req: object): void {
  if ((req as QueryRequest)[kQueryParser] === undefined) return;
  // The descriptor, not `req.query`: a read without an own value would run the parse now.
  const own = Object.getOwnPropertyDescriptor(req, 'query');
  if (own !== undefined && own.configurable && 'value' in own && !own.value) delete (req as QueryRequest).query;
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
