/**
 * The application prototype (`webapp.application`): settings, mounting, routing
 * methods, rendering and `listen`. `webapp()` mixes it into a request-handling
 * function, as Express 4 does, so the app is both a handler and an object.
 */
import type { EventEmitter } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import {
  applicationCore,
  deleteAlias,
  environment,
  mountListener,
  initLayer,
  markTrustProxyDefault,
  markTrustProxySet,
  mountedApp,
  paramMethod,
} from './app-core';
import { defineMembers, definePrototype } from './define-prototype';
import { lazy } from './http/lazy';
import { declaring, named } from './named';
import { queryLayer } from './query';
import type { QueryParser } from './query';
import type { RenderCallback } from './response/types';
import { Router, methods, type Route, type RouterOptions } from './router';
import { splitUseArguments } from './router/route';
import type { NextFunction } from './router/layer';
import { methodMembers, type MethodMembers } from './router/methods';
import type { PathPattern } from './router/path-pattern';
import {
  compileETag,
  compileQueryParser,
  compileTrust,
  markPlainSettingReads,
  queryParserOf,
  readSetting,
} from './settings';
import { enterApp, isRequestTraced, isRequestTracingActive, leaveApp } from './tracing/channels';
import { View } from './view';

export type { RenderCallback };
export type Engine = (path: string, options: object, callback: RenderCallback) => void;

/** An app: a request handler with the application methods and settings. */
export interface Application extends EventEmitter, ApplicationMethods {
  (req: IncomingMessage, res: ServerResponse, next?: NextFunction): void;
  settings: Record<string, unknown>;
  locals: Record<string, unknown>;
  cache: Record<string, unknown>;
  engines: Record<string, Engine>;
  mountpath: PathPattern;
  parent?: Application;
  request: object;
  response: object;
  _router?: Router;
}

/** `app.post(path, ...handlers)`...; `get` is declared above, as it also reads settings. */
type RouteMethod = (this: Application, path: PathPattern, ...handlers: unknown[]) => Application;

export interface ApplicationMethods extends Omit<MethodMembers<RouteMethod>, 'get'> {
  init(this: Application): void;
  defaultConfiguration(this: Application): void;
  lazyrouter(this: Application): void;
  handle(this: Application, req: IncomingMessage, res: ServerResponse, callback?: NextFunction): void;
  use(this: Application, ...args: unknown[]): Application;
  route(this: Application, path: PathPattern): Route;
  engine(this: Application, ext: string, fn: Engine): Application;
  param(this: Application, name: string | string[] | ((...args: never[]) => unknown), fn?: unknown): Application;
  set(this: Application, setting: string, value?: unknown): unknown;
  /** With one argument, reads a setting; otherwise routes GET requests. */
  get(this: Application, settingOrPath: string | PathPattern, ...handlers: unknown[]): unknown;
  path(this: Application): string;
  enabled(this: Application, setting: string): boolean;
  disabled(this: Application, setting: string): boolean;
  enable(this: Application, setting: string): Application;
  disable(this: Application, setting: string): Application;
  all(this: Application, path: PathPattern, ...handlers: unknown[]): Application;
  del(this: Application, path: PathPattern, ...handlers: unknown[]): Application;
  render(this: Application, name: string, options?: object | RenderCallback, callback?: RenderCallback): void;
  listen(this: Application, ...args: unknown[]): Server;
}

/** What Express 4 does its own way: settings, the lazily made router, mounting, `param`. */
const presetMethods = {
  defaultConfiguration() {
    const env = environment();
    this.enable('x-powered-by');
    this.set('etag', 'weak');
    this.set('env', env);
    this.set('query parser', 'extended');
    this.set('subdomain offset', 2);
    this.set('trust proxy', false);
    markTrustProxyDefault(this.settings);

    this.on('mount', mountListener());

    this.locals = Object.create(null);
    this.mountpath = '/';
    this.locals.settings = this.settings;
    this.set('view', View);
    this.set('views', resolve('views'));
    this.set('jsonp callback name', 'callback');
    if (env === 'production') this.enable('view cache');

    defineMembers(this, {
      hidden: {
        router() {
          throw new Error(
            "'app.router' is deprecated!\n" +
              'Please see the 3.x to 4.x migration guide for details on how to update your app.',
          );
        },
      },
    });
  },

  /** The app's router is made on first use; its first two layers parse the query and initialise req/res. */
  lazyrouter() {
    if (this._router) return;
    this._router = Router({
      caseSensitive: this.enabled('case sensitive routing'),
      strict: this.enabled('strict routing'),
    } satisfies RouterOptions);
    const parser = this.get('query parser fn');
    this._router.use(queryLayer(queryParserOf(parser) as QueryParser));
    this._router.use(initLayer(this, () => Object.create(null)));
  },

  handle(req, res, callback) {
    const router = this._router;
    const done = callback ?? lastHandler(this, req, res);
    if (!router) {
      done();
      return;
    }
    enterApp();
    if (isRequestTracingActive() && !isRequestTraced(req)) requestTracing().traceRequest(this, req, res, done, router);
    else router.handle(req, res, done);
    leaveApp();
  },

  // `(fn)`, as Express declares it.
  use: declaring(1, function use(this: Application, ...args: unknown[]) {
    const { path, callbacks: fns } = splitUseArguments(args);
    if (fns.length === 0) throw new TypeError('app.use() requires a middleware function');

    this.lazyrouter();
    const router = this._router!;
    for (const fn of fns) {
      const sub = fn as Application;
      if (!sub || !sub.handle || !sub.set) {
        router.use(path, fn);
        continue;
      }
      sub.mountpath = path;
      sub.parent = this;
      router.use(path, mountedApp(sub));
      sub.emit('mount', this);
    }
    return this;
  }),

  route(path) {
    this.lazyrouter();
    return this._router!.route(path);
  },

  /**
   * A 4.x router takes one callback per `param` call and deals with `:name` and the
   * function form itself. The router is made first, an empty list of names included, as
   * Express makes it (its `query` and `expressInit` layers, with the routing settings of
   * that moment: X-Powered-By is then sent by an app that registered nothing else).
   */
  param: paramMethod(
    function registerParam(this: Application, name: unknown, fns: unknown[]) {
      this._router!.param(name as string, fns[0]);
    },
    function makeRouter(this: Application) {
      this.lazyrouter();
    },
  ) as ApplicationMethods['param'],

  set(this: Application, setting: string, value?: unknown): unknown {
    if (arguments.length === 1) return readSetting(this.settings, setting);
    this.settings[setting] = value;
    switch (setting) {
      case 'etag':
        this.set('etag fn', compileETag(value));
        break;
      case 'query parser':
        this.set('query parser fn', compileQueryParser(value));
        break;
      case 'trust proxy':
        this.set('trust proxy fn', compileTrust(value));
        markTrustProxySet(this.settings);
        break;
    }
    return this;
  },

  path() {
    return this.parent ? this.parent.path() + this.mountpath : '';
  },
} satisfies Partial<ApplicationMethods>;

/**
 * `app.post(path, ...handlers)`...: a route for `path` with the handlers for that method.
 * Anonymous, as Express's are (`app[method] = function (path) {...}`): `app.post.name` is ''.
 */
const routeMethods = methodMembers(
  (method): RouteMethod =>
    function (this: Application, path: PathPattern, ...handlers: unknown[]) {
      this.lazyrouter();
      const route = this._router!.route(path);
      route[method](...handlers);
      return this;
    },
);
const routeGet = routeMethods.get;

const routingMethods = {
  ...routeMethods,
  /**
   * `app.get(name)` with one argument reads a setting; with more, it routes GET requests.
   * Anonymous, as Express's is (one of its HTTP methods).
   */
  get: named('', function (this: Application, settingOrPath: string | PathPattern) {
    if (arguments.length === 1) return this.set(settingOrPath as string);
    // The handlers are read from `arguments`: a rest parameter would be an array made
    // on every call, and settings are read with one argument on every request.
    // eslint-disable-next-line prefer-rest-params
    return routeGet.apply(this, arguments as unknown as Parameters<typeof routeGet>);
  }),

  del: deleteAlias(routeMethods.delete),

  all(path, ...handlers) {
    this.lazyrouter();
    const route = this._router!.route(path);
    for (const method of methods) route[method](...handlers);
    return this;
  },
} satisfies Partial<ApplicationMethods>;

// With one argument, `set(name)` is `readSetting(this.settings, name)` and `get(name)` is `this.set(name)`.
markPlainSettingReads(presetMethods.set, routingMethods.get);

/** The 4.x preset: the shared core plus what Express 4 does its own way. */
export const application = definePrototype<ApplicationMethods>(Object.prototype, {
  methods: { ...applicationCore, ...presetMethods, ...routingMethods },
});

/** The code that publishes `webapp:request` traces: loaded when a request first finds a subscriber. */
const requestTracing = lazy(() => require('./tracing/request') as typeof import('./tracing/request'));

/** How an error is logged: loaded by the first request that reaches the final handler (cold start). */
const errorTextModule = lazy(() => require('./http/error-text') as typeof import('./http/error-text'));

/** The 404 and error pages: loaded by the first request that reaches them (cold start). */
const finalHandlerModule = lazy(() => require('./http/final-handler') as typeof import('./http/final-handler'));

/**
 * The app's final handler for one request. What it needs of the app (`env`, the
 * error logger) is read only when it runs, for a 404 or an error nobody handled:
 * most requests never get there, and no options object is made for them.
 */
function lastHandler(app: Application, req: IncomingMessage, res: ServerResponse): NextFunction {
  return (err?: unknown) =>
    finalHandlerModule().finalHandler(req, res, err, { env: app.get('env') as string, onerror: errorLogger(app) });
}

const kErrorLogger = Symbol('webapp.errorLogger');

/**
 * The app's error logger for the final handler, made once per app rather than per
 * request. It runs a turn after the final handler (finalhandler defers it so), and what
 * it needs is loaded now, while a request is being handled: under Jest a test may end
 * in between, and its module registry be torn down; a `require` then fails, and the
 * log would throw out of a timer and end the test process.
 */
function errorLogger(app: Application & { [kErrorLogger]?: (err: unknown) => void }): (err: unknown) => void {
  if (app[kErrorLogger] !== undefined) return app[kErrorLogger];
  const { errorText } = errorTextModule();
  return (app[kErrorLogger] = (err: unknown) => {
    if (app.get('env') !== 'test') console.error(errorText(err));
  });
}
