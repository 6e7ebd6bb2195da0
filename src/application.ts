/**
 * The application prototype (`webapp.application`): settings, mounting, routing
 * methods, rendering and `listen`. `webapp()` mixes it into a request-handling
 * function, as Express 4 does, so the app is both a handler and an object.
 */
import { EventEmitter } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { deprecate } from './http/deprecate';
import { finalHandler } from './http/final-handler';
import { adoptRequestPrototype, adoptResponsePrototype } from './prototypes';
import { serverClasses } from './server-classes';
import { kQueryParser, type QueryParser } from './request';
import { Router, methods, type Route, type RouterOptions } from './router';
import { splitUseArguments } from './router/route';
import type { NextFunction } from './router/layer';
import type { MethodMembers } from './router/methods';
import type { RenderCallback } from './types/public';
import type { PathPattern } from './router/path-pattern';
import { compileETag, compileQueryParser, compileTrust } from './settings';
import { View, renderView } from './view';

/** Marks `trust proxy` as still at its default, so a mounted sub-app inherits its parent's. */
const kTrustProxyDefault = '@@symbol:trust_proxy_default';

/** What the app stores on requests and responses it handles. */
interface AppRequest extends IncomingMessage {
  app?: Application;
  res?: ServerResponse;
  next?: NextFunction;
  query?: unknown;
  [kQueryParser]?: QueryParser;
}
interface AppResponse extends ServerResponse {
  req: IncomingMessage;
  locals?: Record<string, unknown>;
}

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
  listen(this: Application, ...args: unknown[]): http.Server;
}

/** The environment mode: RUNTIME_ENV, then NODE_ENV, then development. */
export function environment(): string {
  return process.env.RUNTIME_ENV || process.env.NODE_ENV || 'development';
}

/** What a mounted app (4.x or 3.x) takes over from its parent. */
interface InheritingApp {
  settings: Record<string, unknown>;
  request: object;
  response: object;
  engines: object;
}

/**
 * The `mount` listener: the sub-app's settings, engines, request and response
 * prototypes fall back to the parent's. `trust proxy` has a default yet is
 * inherited: a default still in place is dropped so the parent's value shows.
 */
export function inheritFromParent(this: InheritingApp, parent: InheritingApp): void {
  if (this.settings[kTrustProxyDefault] === true && typeof parent.settings['trust proxy fn'] === 'function') {
    delete this.settings['trust proxy'];
    delete this.settings['trust proxy fn'];
  }
  Object.setPrototypeOf(this.request, parent.request);
  Object.setPrototypeOf(this.response, parent.response);
  Object.setPrototypeOf(this.engines, parent.engines);
  Object.setPrototypeOf(this.settings, parent.settings);
}

/** Marks `trust proxy` as set by the app itself (no longer inherited on mount). */
export function markTrustProxySet(settings: object): void {
  Object.defineProperty(settings, kTrustProxyDefault, { configurable: true, value: false });
}

/** Marks `trust proxy` as at its default (inherited from a parent on mount). */
export function markTrustProxyDefault(settings: object): void {
  Object.defineProperty(settings, kTrustProxyDefault, { configurable: true, value: true });
}

/** enable/disable/enabled/disabled, shared by 4.x and 3.x apps: all go through `set`. */
export const booleanSettings = {
  enabled(this: { set(name: string): unknown }, setting: string): boolean {
    return Boolean(this.set(setting));
  },
  disabled(this: { set(name: string): unknown }, setting: string): boolean {
    return !this.set(setting);
  },
  enable<T>(this: T & { set(name: string, value: unknown): unknown }, setting: string): T {
    return this.set(setting, true) as T;
  },
  disable<T>(this: T & { set(name: string, value: unknown): unknown }, setting: string): T {
    return this.set(setting, false) as T;
  },
};

/** Copies own property descriptors (methods and accessors alike), keeping those `target` already has. */
export function mixin(target: object, source: object): void {
  for (const name of Object.getOwnPropertyNames(source)) {
    if (Object.prototype.hasOwnProperty.call(target, name)) continue;
    Object.defineProperty(target, name, Object.getOwnPropertyDescriptor(source, name)!);
  }
}

export const application = {} as ApplicationMethods;

application.init = function init() {
  this.cache = {};
  this.engines = {};
  this.settings = {};
  this.defaultConfiguration();
};

application.defaultConfiguration = function defaultConfiguration() {
  const env = environment();
  this.enable('x-powered-by');
  this.set('etag', 'weak');
  this.set('env', env);
  this.set('query parser', 'extended');
  this.set('subdomain offset', 2);
  this.set('trust proxy', false);
  markTrustProxyDefault(this.settings);

  this.on('mount', inheritFromParent);

  this.locals = Object.create(null);
  this.mountpath = '/';
  this.locals.settings = this.settings;
  this.set('view', View);
  this.set('views', resolve('views'));
  this.set('jsonp callback name', 'callback');
  if (env === 'production') this.enable('view cache');

  Object.defineProperty(this, 'router', {
    configurable: true,
    get() {
      throw new Error("'app.router' is deprecated!\nPlease see the 3.x to 4.x migration guide for details on how to update your app.");
    },
  });
};

/** The app's router is made on first use; its first two layers parse the query and initialise req/res. */
application.lazyrouter = function lazyrouter() {
  if (this._router) return;
  this._router = Router({
    caseSensitive: this.enabled('case sensitive routing'),
    strict: this.enabled('strict routing'),
  } satisfies RouterOptions);
  this._router.use(queryMiddleware(this.get('query parser fn') as QueryParser));
  this._router.use(initMiddleware(this));
};

application.handle = function handle(req, res, callback) {
  const router = this._router;
  const done = callback || finalHandler(req, res, { env: this.get('env') as string, onerror: errorLogger(this) });
  if (!router) {
    done();
    return;
  }
  router.handle(req, res, done);
};

application.use = function use(...args: unknown[]) {
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
    router.use(path, function mounted_app(req: AppRequest, res: ServerResponse, next: NextFunction) {
      const orig = req.app!;
      sub.handle(req, res, (err?: unknown) => {
        // Back in the parent: the request and response take the parent's prototypes again.
        adoptRequestPrototype(req, orig.request);
        adoptResponsePrototype(res, orig.response);
        next(err);
      });
    });
    sub.emit('mount', this);
  }
  return this;
};

application.route = function route(path) {
  this.lazyrouter();
  return this._router!.route(path);
};

application.engine = function engine(ext, fn) {
  if (typeof fn !== 'function') throw new Error('callback function required');
  const extension = ext[0] !== '.' ? '.' + ext : ext;
  this.engines[extension] = fn;
  return this;
};

application.param = function param(name, fn) {
  this.lazyrouter();
  if (Array.isArray(name)) {
    for (const each of name) this.param(each, fn);
    return this;
  }
  this._router!.param(name as string, fn);
  return this;
};

application.set = function set(this: Application, setting: string, value?: unknown): unknown {
  if (arguments.length === 1) {
    // Own settings first, then those inherited from the parent app's settings.
    let settings: object | null = this.settings;
    while (settings && settings !== Object.prototype) {
      if (Object.prototype.hasOwnProperty.call(settings, setting)) return (settings as Record<string, unknown>)[setting];
      settings = Object.getPrototypeOf(settings);
    }
    return undefined;
  }
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
} as ApplicationMethods['set'];

application.path = function path() {
  return this.parent ? this.parent.path() + this.mountpath : '';
};

Object.assign(application, booleanSettings);

for (const method of methods) {
  application[method] = function addRoute(this: Application, path: PathPattern, ...handlers: unknown[]) {
    this.lazyrouter();
    const route = this._router!.route(path);
    route[method](...handlers);
    return this;
  };
}

/** `app.get(name)` with one argument reads a setting; with more, it routes GET requests. */
const routeGet = application.get;
application.get = function get(this: Application, settingOrPath: string | PathPattern, ...handlers: unknown[]) {
  if (arguments.length === 1) return this.set(settingOrPath as string);
  return routeGet.call(this, settingOrPath, ...handlers);
};

application.all = function all(path, ...handlers) {
  this.lazyrouter();
  const route = this._router!.route(path);
  for (const method of methods) route[method](...handlers);
  return this;
};

application.del = function del(this: Application, path: PathPattern, ...handlers: unknown[]) {
  deprecate('app.del: Use app.delete instead');
  return (this.delete as (...args: unknown[]) => Application)(path, ...handlers);
};

application.render = function render(name, options, callback) {
  const done = (typeof options === 'function' ? options : callback) as RenderCallback;
  const opts = typeof options === 'function' || options === undefined ? {} : options;
  renderView(this, name, opts as Record<string, unknown>, done);
};

/**
 * Like Express, `app.listen` makes an HTTP server for the app and passes all
 * arguments to `server.listen`. Unlike Express, the server constructs requests and
 * responses that already have the app's prototypes, so no prototype has to be
 * swapped per request (the hot path Express pays for on every request).
 */
application.listen = function listen(...args: unknown[]) {
  const server = http.createServer(serverClasses(this) as http.ServerOptions, this);
  return server.listen(...(args as Parameters<http.Server['listen']>));
};

/**
 * Express's `query` layer. Parsing is deferred: the layer only records which
 * parser applies (the first app's, as in Express) and `req.query` parses on first
 * read. A `req.query` set before the app saw the request is kept.
 */
function queryMiddleware(parser: QueryParser) {
  return function query(req: AppRequest, _res: ServerResponse, next: NextFunction) {
    // Only an own `query` (set by whatever handled the request first) can be set
    // yet; checking for it avoids running the lazy accessor.
    if (req[kQueryParser] === undefined && (!Object.prototype.hasOwnProperty.call(req, 'query') || !req.query)) {
      req[kQueryParser] = parser;
    }
    next();
  };
}

/** Express's `expressInit` layer: links req/res, gives them the app's prototypes, sets X-Powered-By. */
function initMiddleware(app: Application) {
  return function expressInit(req: AppRequest, res: AppResponse, next: NextFunction) {
    if (app.enabled('x-powered-by')) res.setHeader('X-Powered-By', 'webapp');
    req.res = res;
    (res as { req: IncomingMessage }).req = req;
    req.next = next;
    adoptRequestPrototype(req, app.request);
    adoptResponsePrototype(res, app.response);
    res.locals = res.locals || Object.create(null);
    next();
  };
}

const kErrorLogger = Symbol('webapp.errorLogger');

/** The app's error logger for the final handler, made once per app rather than per request. */
function errorLogger(app: Application & { [kErrorLogger]?: (err: unknown) => void }): (err: unknown) => void {
  return (app[kErrorLogger] ??= (err: unknown) => {
    if (app.get('env') !== 'test') {
      const error = err as { stack?: string; toString(): string };
      console.error(error.stack || error.toString());
    }
  });
}
