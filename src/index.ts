/// <reference types="node" preserve="true" />
/**
 * `require('webapp')`: the 4.x API. The export is the app factory itself, with
 * Express 4's members (`application`, `request`, `response`, `Router`, `Route`,
 * `json`, `raw`, `text`, `urlencoded`, `static`, `query`) and `graceful`, so
 * `const express = require('webapp')` works wherever Express 4 did.
 */
import type * as http from 'node:http';
import { createApp } from './app-core';
import { defineLazyFunctions, defineMembers, type LazyFunction } from './define-prototype';
import { application, type Application } from './application';
import { request as requestPrototype } from './request';
import { response as responsePrototype } from './response';
import { Router as RouterFactory, CallableRoute } from './router';
// Namespaces for `export import` below, as PublicTypes is: a consumer's declaration file
// names a type through an alias of it (`webapp.Route`, `webapp.GracefulOptions`), where
// a type alias leaves the type nameable only by a path the `exports` map hides (TS2742
// for `export const route = new webapp.Route('/')` under node16 and later).
import * as RouterClasses from './router';
import * as Shutdown from './shutdown';
import type bodyParser = require('./body-parser');
// Not `import type`: the namespace below re-exports its interfaces with `export import`
// (elided from the JavaScript, as the namespace is ambient).
import * as PublicTypes from './types/public';

function createApplication(): Application {
  return createApp<Application>(application, requestPrototype, responsePrototype);
}

/**
 * Express 4 throws a helpful error when a middleware bundled by 3.x is used from
 * the 4.x export; webapp keeps that, and points to where webapp ships them.
 */
const REMOVED_MIDDLEWARE = [
  'bodyParser',
  'compress',
  'cookieSession',
  'session',
  'logger',
  'cookieParser',
  'favicon',
  'responseTime',
  'errorHandler',
  'timeout',
  'methodOverride',
  'vhost',
  'csrf',
  'directory',
  'limit',
  'multipart',
  'staticCache',
];

/**
 * The factory: `webapp()` returns a new application, a request handler with the
 * Express 4 API.
 * @example
 * const app = webapp();
 * app.get('/', (req, res) => res.send('hello'));
 * app.listen(3000);
 */
function webapp(): webapp.Express {
  // The internal Application type is narrower than the public one (src/types/public.ts).
  return createApplication() as unknown as webapp.Express;
}

// The public types travel with the CommonJS export (`export =`), so both
// `import webapp from 'webapp'` and `import { Router, Request } from 'webapp'`
// type-check. They are declared in src/types/public.ts, shaped as @types/express,
// and re-exported here as import aliases, not copies: `declare module 'webapp' {
// interface Request { ... } }` follows the alias and merges into the very
// interface every handler receives, inline and annotated alike.
declare namespace webapp {
  export import Request = PublicTypes.Request;
  export import Response = PublicTypes.Response;
  export import Application = PublicTypes.Application;
  export import Express = PublicTypes.Express;
  export interface Router extends PublicTypes.Router {}
  export import IRouter = PublicTypes.IRouter;
  export import IRoute = PublicTypes.IRoute;
  export import IRouterMatcher = PublicTypes.IRouterMatcher;
  export import IRouterHandler = PublicTypes.IRouterHandler;
  export import RouterOptions = PublicTypes.RouterOptions;
  export import CookieOptions = PublicTypes.CookieOptions;
  export import MediaType = PublicTypes.MediaType;
  export import Locals = PublicTypes.Locals;
  export import Handler = PublicTypes.Handler;
  export import RequestHandler = PublicTypes.RequestHandler;
  export import ErrorRequestHandler = PublicTypes.ErrorRequestHandler;
  export import NextFunction = PublicTypes.NextFunction;
  export import ParamsDictionary = PublicTypes.ParamsDictionary;
  export import Params = PublicTypes.Params;
  export import Dictionary = PublicTypes.Dictionary;
  export import Query = PublicTypes.Query;
  export import ParsedQs = PublicTypes.ParsedQs;
  export import QueryParseOptions = PublicTypes.QueryParseOptions;
  export import QueryParserFunction = PublicTypes.QueryParserFunction;
  export import RouteParameters = PublicTypes.RouteParameters;
  export import PathParams = PublicTypes.PathParams;
  export import Send = PublicTypes.Send;
  export import Errback = PublicTypes.Errback;
  export import RequestParamHandler = PublicTypes.RequestParamHandler;
  export import RequestHandlerParams = PublicTypes.RequestHandlerParams;
  export import ForeignRequestHandler = PublicTypes.ForeignRequestHandler;
  export import ForeignErrorRequestHandler = PublicTypes.ForeignErrorRequestHandler;
  export import SendFileOptions = PublicTypes.SendFileOptions;
  export import DownloadOptions = PublicTypes.DownloadOptions;
  export import ServeStaticOptions = PublicTypes.ServeStaticOptions;
  export import RenderCallback = PublicTypes.RenderCallback;
  // Named here so that declaration emit can name what `router.stack`, `req.range()`,
  // `app.use` and `webapp.static.mime` return (TS2742 otherwise, under `declaration`).
  export import ILayer = PublicTypes.ILayer;
  export import RequestRanges = PublicTypes.RequestRanges;
  export import ByteRange = PublicTypes.ByteRange;
  export import ApplicationRequestHandler = PublicTypes.ApplicationRequestHandler;
  export import SendOptions = PublicTypes.SendOptions;
  export import MimeModule = PublicTypes.MimeModule;
  export type OptionsJson = bodyParser.OptionsJson;
  export type OptionsText = bodyParser.OptionsText;
  export type OptionsUrlencoded = bodyParser.OptionsUrlencoded;
  export type Options = bodyParser.Options;

  /**
   * What the body parsers return: middleware over Node's request and response, as
   * body-parser's (connect's `NextHandleFunction` in @types/body-parser), so that it
   * also fits a connect stack or a bare `http.createServer` callback.
   */
  export type BodyParserMiddleware = (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    next: (err?: any) => void,
  ) => void;
  /** The application prototype every app is made from; patch it to add app methods to all apps. */
  export const application: Application;
  /**
   * The request prototype of all apps; each app has its own `app.request` below it.
   * @example
   * // declared by `declare module 'webapp' { interface Request { isAdmin(): boolean } }`
   * webapp.request.isAdmin = function () { return this.get('x-role') === 'admin'; };
   */
  export const request: Request;
  /**
   * The response prototype of all apps; each app has its own `app.response` below it.
   * @example
   * // declared by `declare module 'webapp' { interface Response { ok(): Response } }`
   * webapp.response.ok = function () { return this.sendStatus(200); };
   */
  export const response: Response;
  /** The Route class (`router.route(path)` returns one). */
  export import Route = RouterClasses.Route;
  /**
   * A new router: mountable middleware with its own routes, params and middleware.
   * A function, as @types/express declares it, so that the overloads packages add
   * to it (@types/express-ws's `function Router` in `declare module 'express'`,
   * under the npm alias) merge with it; `new webapp.Router()` works at run time,
   * but the type has no construct signature, as with @types/express.
   * @example
   * const api = webapp.Router({ mergeParams: true });
   * api.get('/items/:id', (req, res) => res.json({ id: req.params.id }));
   * app.use('/api', api);
   */
  export function Router(options?: RouterOptions): Router;
  /** What `webapp.static` returns: serve-static's middleware (as @types/serve-static's `RequestHandler`). */
  export type StaticMiddleware<R extends http.ServerResponse = Response> = (
    req: http.IncomingMessage,
    res: R,
    next: (err?: any) => void,
  ) => void;
  /**
   * Serves the files below `root` for GET and HEAD (serve-static's options and behaviour).
   * @example
   * app.use('/assets', webapp.static('public', { maxAge: '1d', setHeaders: (res) => res.set('X-Static', '1') }));
   */
  const serveStaticHandler: (<R extends http.ServerResponse = Response>(
    root: string,
    options?: ServeStaticOptions<R>,
  ) => StaticMiddleware<R>) & {
    /** send's `mime` 1.x object: `webapp.static.mime.define({ 'text/x-foo': ['foo'] })`. */
    mime: MimeModule;
  };
  export { serveStaticHandler as static };
  /**
   * Parses the query string into `req.query` (with `qs`-style options, or a parser function).
   * @example
   * app.use(webapp.query({ depth: 2 }));
   */
  // Typed as `express.query` is (qs's options, or a parser), but optional: Express 4
  // runs it without options too.
  export const query: (options?: QueryParseOptions | QueryParserFunction) => PublicTypes.Handler;
  /**
   * Parses JSON bodies into `req.body` (body-parser's `json`).
   * @example
   * app.use(webapp.json({ limit: '1mb' }));
   */
  export const json: (options?: OptionsJson) => BodyParserMiddleware;
  /**
   * Reads bodies into a Buffer in `req.body` (body-parser's `raw`).
   * @example
   * app.post('/webhook', webapp.raw({ type: 'application/octet-stream' }), (req, res) => res.send(req.body.length));
   */
  export const raw: (options?: Options) => BodyParserMiddleware;
  /**
   * Reads text bodies into a string in `req.body` (body-parser's `text`).
   * @example
   * app.use(webapp.text({ type: 'text/*' }));
   */
  export const text: (options?: OptionsText) => BodyParserMiddleware;
  /**
   * Parses URL-encoded form bodies into `req.body` (body-parser's `urlencoded`).
   * @example
   * app.use(webapp.urlencoded({ extended: false }));
   */
  export const urlencoded: (options?: OptionsUrlencoded) => BodyParserMiddleware;
  /** Beyond Express: graceful shutdown for a server (docs/production.md). */
  export import GracefulOptions = Shutdown.GracefulOptions;
  export import graceful = Shutdown.graceful;
}

/**
 * Why lazy: an app that uses none of them should not pay for loading the static
 * server and the body parsers before its first request (cold start). Each member is a
 * plain property, as in Express, whose function loads the module's on its first call
 * (defineLazyFunctions); names and arities are those of the functions they load.
 */
const loadBodyParser = () => require('./body-parser') as typeof bodyParser;
const LAZY_FUNCTIONS: Record<string, LazyFunction> = {
  static: {
    load: () => (require('./static') as typeof import('./static')).serveStatic,
    name: 'serveStatic',
    arity: 2,
    properties: ['mime'],
  },
  query: { load: () => (require('./query') as typeof import('./query')).query, name: 'query', arity: 1 },
  json: { load: () => loadBodyParser().json, name: 'json', arity: 1 },
  raw: { load: () => loadBodyParser().raw, name: 'raw', arity: 1 },
  text: { load: () => loadBodyParser().text, name: 'text', arity: 1 },
  urlencoded: { load: () => loadBodyParser().urlencoded, name: 'urlencoded', arity: 1 },
  graceful: {
    load: () => (require('./shutdown') as typeof import('./shutdown')).graceful,
    name: 'graceful',
    arity: 1,
  },
};

/** A removed 3.x middleware: reading it throws, saying where it went. */
function removedMiddleware(name: string) {
  return () => {
    throw new Error(
      'Most middleware (like ' +
        name +
        ') is no longer bundled with webapp 4.x and must be installed separately, ' +
        "or taken from 'webapp/middleware'. Please see https://github.com/senchalabs/connect#middleware.",
    );
  };
}

defineMembers(webapp, {
  values: {
    application,
    request: requestPrototype,
    response: responsePrototype,
    Route: CallableRoute,
    Router: RouterFactory,
  },
});
defineLazyFunctions(webapp, LAZY_FUNCTIONS);
defineMembers(webapp, {
  hidden: Object.fromEntries(REMOVED_MIDDLEWARE.map((name) => [name, removedMiddleware(name)])),
});

export = webapp;
