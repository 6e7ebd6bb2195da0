/**
 * The 3.x application prototype: Connect's middleware stack plus Express 3's
 * settings, `app.router` (routes run where `app.use(app.router)` puts it, or where
 * the first route implicitly mounts it), `app.routes`, `app.configure` and the
 * callable `app.locals`.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { EventEmitter } from 'node:events';
import { booleanSettings, environment, inheritFromParent, markTrustProxyDefault, markTrustProxySet } from '../application';
import { adoptRequestPrototype, adoptResponsePrototype } from '../prototypes';
import { serverClasses } from '../server-classes';
import { deprecate } from '../http/deprecate';
import { kQueryParser, type QueryParser } from '../request';
import { parseExtended } from '../querystring';
import type { NextFunction } from '../router/layer';
import { methods, type MethodMembers } from '../router/methods';
import { compileTrust } from '../settings';
import { compileETag3 } from './etag';
import { View, renderView } from '../view';
import { Router3 } from './router';
import { handleRequest, useMiddleware, type StackEntry } from './stack';

/** 3.x locals: a function that merges the object it is called with into itself. */
export type Locals3 = ((values: Record<string, unknown>) => Record<string, unknown>) & Record<string, unknown>;

export function createLocals(): Locals3 {
  const locals = function locals(values: Record<string, unknown>) {
    for (const key in values) (locals as Locals3)[key] = values[key];
    return values;
  } as Locals3;
  return locals;
}

export interface Application3 extends EventEmitter, Application3Methods {
  (req: IncomingMessage, res: ServerResponse, next?: NextFunction): void;
  stack: StackEntry[];
  route: string;
  settings: Record<string, unknown>;
  locals: Locals3;
  cache: Record<string, unknown>;
  engines: Record<string, unknown>;
  routes: Router3['map'];
  parent?: Application3;
  request: object;
  response: object;
  _router: Router3;
  _usedRouter?: boolean;
  readonly router: Router3['middleware'];
}

/** `app.post(path, ...handlers)`...; `get` is declared below, as it also reads settings. */
type RouteMethod3 = (this: Application3, path: unknown, ...handlers: unknown[]) => Application3;

export interface Application3Methods extends Omit<MethodMembers<RouteMethod3>, 'get'> {
  init(this: Application3): void;
  defaultConfiguration(this: Application3): void;
  use(this: Application3, route: unknown, fn?: unknown): Application3;
  handle(this: Application3, req: IncomingMessage, res: ServerResponse, out?: NextFunction): void;
  engine(this: Application3, ext: string, fn: unknown): Application3;
  param(this: Application3, name: unknown, ...fns: unknown[]): Application3;
  set(this: Application3, setting: string, value?: unknown): unknown;
  get(this: Application3, settingOrPath: unknown, ...handlers: unknown[]): unknown;
  path(this: Application3): string;
  enabled(this: Application3, setting: string): boolean;
  disabled(this: Application3, setting: string): boolean;
  enable(this: Application3, setting: string): Application3;
  disable(this: Application3, setting: string): Application3;
  configure(this: Application3, ...args: unknown[]): Application3;
  all(this: Application3, path: unknown, ...handlers: unknown[]): Application3;
  del(this: Application3, path: unknown, ...handlers: unknown[]): Application3;
  render(this: Application3, name: string, options?: unknown, callback?: unknown): void;
  listen(this: Application3, ...args: unknown[]): http.Server;
}

export const application3 = {} as Application3Methods;

application3.init = function init() {
  this.cache = {};
  this.settings = {};
  this.engines = {};
  this.defaultConfiguration();
};

application3.defaultConfiguration = function defaultConfiguration() {
  this.enable('x-powered-by');
  this.set('etag', 'weak');
  const env = environment();
  this.set('env', env);
  this.set('subdomain offset', 2);
  this.set('trust proxy', false);
  markTrustProxyDefault(this.settings);

  this.use(queryMiddleware3());
  this.use(initMiddleware3(this));

  this.on('mount', inheritFromParent);

  this._router = new Router3(this as { caseSensitive?: boolean });
  this.routes = this._router.map;
  Object.defineProperty(this, 'router', {
    configurable: true,
    get(this: Application3) {
      // Reading app.router marks it used: routes then run where it was mounted.
      this._usedRouter = true;
      this._router.caseSensitive = this.enabled('case sensitive routing');
      this._router.strict = this.enabled('strict routing');
      return this._router.middleware;
    },
  });

  this.locals = createLocals();
  this.locals.settings = this.settings;
  this.set('view', View);
  this.set('views', process.cwd() + '/views');
  this.set('jsonp callback name', 'callback');
  if (env === 'development') this.set('json spaces', 2);
  if (env === 'production') this.enable('view cache');
};

application3.use = function use(route, fn) {
  let path = route;
  let handle = fn;
  if (typeof path !== 'string') {
    handle = path;
    path = '/';
  }
  const sub = handle as Application3;
  const isApp = Boolean(sub) && typeof sub.handle === 'function' && typeof sub.set === 'function';
  if (isApp) {
    sub.route = path as string;
    handle = function mounted(req: IncomingMessage & { app?: Application3 }, res: ServerResponse, next: NextFunction) {
      const orig = req.app!;
      sub.handle(req, res, (err?: unknown) => {
        adoptRequestPrototype(req, orig.request);
        adoptResponsePrototype(res, orig.response);
        next(err);
      });
    };
  }
  useMiddleware(this, path, handle);
  if (isApp) {
    sub.parent = this;
    sub.emit('mount', this);
  }
  return this;
};

application3.handle = function handle(req, res, out) {
  handleRequest(this, req, res, out);
};

application3.engine = function engine(ext, fn) {
  if (typeof fn !== 'function') throw new Error('callback function required');
  this.engines[ext[0] !== '.' ? '.' + ext : ext] = fn;
  return this;
};

application3.param = function param(name, ...fns) {
  if (Array.isArray(name)) {
    for (const each of name) for (const fn of fns) this.param(each, fn);
  } else if (typeof name === 'function') {
    this._router.param(name as never);
  } else {
    const key = String(name)[0] === ':' ? String(name).substring(1) : String(name);
    for (const fn of fns) this._router.param(key, fn);
  }
  return this;
};

application3.set = function set(this: Application3, setting: string, value?: unknown): unknown {
  if (arguments.length === 1) return this.settings[setting];
  this.settings[setting] = value;
  if (setting === 'etag') this.set('etag fn', compileETag3(value));
  if (setting === 'trust proxy') {
    this.set('trust proxy fn', compileTrust(value));
    markTrustProxySet(this.settings);
  }
  return this;
} as Application3Methods['set'];

application3.path = function path() {
  return this.parent ? this.parent.path() + this.route : '';
};

Object.assign(application3, booleanSettings);

/** `app.configure([env...], fn)`: runs `fn` (with the app as `this`) when the env matches or none is named. */
application3.configure = function configure(...args: unknown[]) {
  deprecate("app.configure: Check app.get('env') in an if statement");
  const fn = args.pop() as (this: Application3) => void;
  if (args.length === 0 || args.includes(this.settings.env)) fn.call(this);
  return this;
};

for (const method of methods) {
  application3[method] = function addRoute(this: Application3, path: unknown, ...handlers: unknown[]) {
    // The first route mounts the router here unless the app placed it itself.
    if (!this._usedRouter) this.use(this.router);
    this._router[method](path as Parameters<Router3['route']>[1], ...handlers);
    return this;
  };
}

/** `app.get(name)` with one argument reads a setting; with more, it routes GET requests. */
const routeGet = application3.get;
application3.get = function get(this: Application3, settingOrPath: unknown, ...handlers: unknown[]) {
  if (arguments.length === 1) return this.set(settingOrPath as string);
  return routeGet.call(this, settingOrPath, ...handlers);
};

application3.all = function all(path, ...handlers) {
  for (const method of methods) application3[method].call(this, path, ...handlers);
  return this;
};

application3.del = function del(path, ...handlers) {
  deprecate('app.del: Use app.delete instead');
  return (application3.delete as (this: Application3, p: unknown, ...h: unknown[]) => Application3).call(this, path, ...handlers);
};

application3.render = function render(name, options, callback) {
  const done = (typeof options === 'function' ? options : callback) as (err: Error | null, html?: string) => void;
  const opts = typeof options === 'function' || options == null ? {} : (options as object);
  renderView(this as never, name, opts as Record<string, unknown>, done);
};

application3.listen = function listen(...args: unknown[]) {
  // The server builds requests and responses with the app's prototypes (see server-classes.ts).
  const server = http.createServer(serverClasses(this) as http.ServerOptions, this);
  return server.listen(...(args as Parameters<http.Server['listen']>));
};

/** Connect 2's `query()`: qs with dots not nesting; parsed lazily on first read of req.query. */
function queryMiddleware3() {
  const parser: QueryParser = (queryString) => (queryString ? parseExtended(queryString, { allowPrototypes: true }) : {});
  return function query(req: IncomingMessage & { query?: unknown; [kQueryParser]?: QueryParser }, _res: ServerResponse, next: NextFunction) {
    if (req[kQueryParser] === undefined && !req.query) req[kQueryParser] = parser;
    next();
  };
}

/** Express 3's `expressInit`: links req/res, gives them the app's prototypes, callable `res.locals`. */
function initMiddleware3(app: Application3) {
  return function expressInit(req: IncomingMessage & Record<string, unknown>, res: ServerResponse & { locals?: unknown }, next: NextFunction) {
    if (app.enabled('x-powered-by')) res.setHeader('X-Powered-By', 'webapp');
    req.res = res;
    (res as { req: IncomingMessage }).req = req;
    req.next = next;
    adoptRequestPrototype(req, app.request);
    adoptResponsePrototype(res, app.response);
    res.locals = res.locals || createLocals();
    next();
  };
}
