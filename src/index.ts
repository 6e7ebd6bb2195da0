/**
 * `require('webapp')`: the 4.x API. The export is the app factory itself, with
 * Express 4's members (`application`, `request`, `response`, `Router`, `Route`,
 * `json`, `raw`, `text`, `urlencoded`, `static`, `query`), so
 * `const express = require('webapp')` works wherever Express 4 did.
 */
import { createApp } from './app-core';
import { application, type Application } from './application';
import { request as requestPrototype } from './request';
import { response as responsePrototype } from './response';
import { Router as RouterFactory, Route as RouteClass } from './router';
import { serveStatic } from './static';
import bodyParser = require('./body-parser');
import { query } from './query';
import { graceful } from './shutdown';
import type * as PublicTypes from './types/public';

function createApplication(): Application {
  return createApp<Application>(application, requestPrototype, responsePrototype);
}

/**
 * Express 4 throws a helpful error when a middleware bundled by 3.x is used from
 * the 4.x export; webapp keeps that, and points to where webapp ships them.
 */
const REMOVED_MIDDLEWARE = [
  'bodyParser', 'compress', 'cookieSession', 'session', 'logger', 'cookieParser', 'favicon', 'responseTime',
  'errorHandler', 'timeout', 'methodOverride', 'vhost', 'csrf', 'directory', 'limit', 'multipart', 'staticCache',
];

/** The factory: `webapp()` returns a new application. */
function webapp(): webapp.Express {
  // The internal Application type is narrower than the public one (src/types/public.ts).
  return createApplication() as unknown as webapp.Express;
}

// The public types travel with the CommonJS export (`export =`), so both
// `import webapp from 'webapp'` and `import { Router, Request } from 'webapp'`
// type-check. They are declared in src/types/public.ts, shaped as @types/express;
// the interfaces are re-declared here (not aliased) so `declare module 'webapp'`
// can merge into them, as it can with @types/express.
declare namespace webapp {
  export interface Request<
    P = PublicTypes.ParamsDictionary,
    ResBody = any,
    ReqBody = any,
    ReqQuery = PublicTypes.ParsedQs,
    LocalsObj extends Record<string, any> = Record<string, any>,
  > extends PublicTypes.Request<P, ResBody, ReqBody, ReqQuery, LocalsObj> {}
  export interface Response<ResBody = any, LocalsObj extends Record<string, any> = Record<string, any>>
    extends PublicTypes.Response<ResBody, LocalsObj> {}
  export interface Application extends PublicTypes.Application {}
  export interface Express extends PublicTypes.Express {}
  export interface Router extends PublicTypes.Router {}
  export interface IRouter extends PublicTypes.IRouter {}
  export interface IRoute<Route extends string = string> extends PublicTypes.IRoute<Route> {}
  export interface IRouterMatcher<T, Method extends string = any> extends PublicTypes.IRouterMatcher<T, Method> {}
  export interface IRouterHandler<T, Route extends string = string> extends PublicTypes.IRouterHandler<T, Route> {}
  export interface RouterOptions extends PublicTypes.RouterOptions {}
  export interface CookieOptions extends PublicTypes.CookieOptions {}
  export interface Locals extends PublicTypes.Locals {}
  export interface Handler extends PublicTypes.Handler {}
  export interface RequestHandler<
    P = PublicTypes.ParamsDictionary,
    ResBody = any,
    ReqBody = any,
    ReqQuery = PublicTypes.ParsedQs,
    LocalsObj extends Record<string, any> = Record<string, any>,
  > extends PublicTypes.RequestHandler<P, ResBody, ReqBody, ReqQuery, LocalsObj> {}
  export type ErrorRequestHandler<
    P = PublicTypes.ParamsDictionary,
    ResBody = any,
    ReqBody = any,
    ReqQuery = PublicTypes.ParsedQs,
    LocalsObj extends Record<string, any> = Record<string, any>,
  > = PublicTypes.ErrorRequestHandler<P, ResBody, ReqBody, ReqQuery, LocalsObj>;
  export type NextFunction = PublicTypes.NextFunction;
  export type ParamsDictionary = PublicTypes.ParamsDictionary;
  export type Query = PublicTypes.Query;
  export type ParsedQs = PublicTypes.ParsedQs;
  export type RouteParameters<Route extends string> = PublicTypes.RouteParameters<Route>;
  export type PathParams = PublicTypes.PathParams;
  export type Send<ResBody = any, T = PublicTypes.Response<ResBody>> = PublicTypes.Send<ResBody, T>;
  export type Errback = PublicTypes.Errback;
  export type RequestParamHandler = PublicTypes.RequestParamHandler;
  export type RequestHandlerParams = PublicTypes.RequestHandlerParams;
  export type SendFileOptions = PublicTypes.SendFileOptions;
  export type ServeStaticOptions = import('./static').ServeStaticOptions;
  export type OptionsJson = bodyParser.OptionsJson;
  export type OptionsText = bodyParser.OptionsText;
  export type OptionsUrlencoded = bodyParser.OptionsUrlencoded;
  export type Options = bodyParser.Options;

  export const application: Application;
  export const request: Request;
  export const response: Response;
  export const Route: typeof RouteClass;
  export const Router: (options?: RouterOptions) => PublicTypes.Router;
  const serveStaticHandler: (root: string, options?: ServeStaticOptions) => PublicTypes.Handler;
  export { serveStaticHandler as static };
  export const query: (options?: object) => PublicTypes.Handler;
  export const json: (options?: OptionsJson) => PublicTypes.Handler;
  export const raw: (options?: Options) => PublicTypes.Handler;
  export const text: (options?: OptionsText) => PublicTypes.Handler;
  export const urlencoded: (options?: OptionsUrlencoded) => PublicTypes.Handler;
  /** Beyond Express: graceful shutdown for a server (docs/production.md). */
  export type GracefulOptions = import('./shutdown').GracefulOptions;
  export const graceful: typeof import('./shutdown').graceful;
}

Object.assign(webapp, {
  application,
  request: requestPrototype,
  response: responsePrototype,
  Route: RouteClass,
  Router: RouterFactory,
  static: serveStatic,
  query,
  json: bodyParser.json,
  raw: bodyParser.raw,
  text: bodyParser.text,
  urlencoded: bodyParser.urlencoded,
  graceful,
});

for (const name of REMOVED_MIDDLEWARE) {
  Object.defineProperty(webapp, name, {
    configurable: true,
    get() {
      throw new Error(
        'Most middleware (like ' + name + ') is no longer bundled with webapp 4.x and must be installed separately, ' +
          "or taken from 'webapp/middleware'. Please see https://github.com/senchalabs/connect#middleware.",
      );
    },
  });
}

export = webapp;
