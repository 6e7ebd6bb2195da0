/**
 * The 3.x application prototype: Connect's middleware stack plus Express 3's
 * settings, `app.router` (routes run where `app.use(app.router)` puts it, or where
 * the first route implicitly mounts it), `app.routes`, `app.configure` and the
 * callable `app.locals`.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { EventEmitter } from 'node:events';
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
} from '../app-core';
import { defineMembers, definePrototype } from '../define-prototype';
import { deprecate } from '../http/deprecate';
import { queryLayer } from '../query';
import type { QueryParser } from '../query';
import { parseQs4 } from '../querystring/qs4';
import type { NextFunction } from '../router/layer';
import { methodMembers, methods, type MethodMembers } from '../router/methods';
import { compileTrust } from '../settings';
import { compileETag3 } from './etag';
import { renderView, type Engine, type EngineCallback } from '../view';
import { View3 } from './view';
import { Router3 } from './router';
import { handleRequest, useMiddleware, type StackEntry } from './stack';
import { named } from '../named';

/** 3.x locals: a function that merges the object it is called with into itself. */
export type Locals3 = ((values: Record<string, unknown>) => Record<string, unknown>) & Record<string, unknown>;

export function createLocals(): Locals3 {
  const locals = named('locals', function (values: Record<string, unknown>) {
    // As 3.x's sloppy-mode assignment: a key the function cannot take (its own `name`,
    // `length`) is skipped, not thrown (`app.locals({ name: 'My site' })` was common).
    for (const key in values) Reflect.set(locals, key, values[key]);
    return values;
  } as Locals3);
  return locals;
}

/**
 * Connect 2's `query()` as Express 3 used it: qs 4 with prototype keys allowed.
 * The differences from qs 4 are documented in docs/migrating-from-express-3.md.
 */
const parseQuery3: QueryParser = (queryString) => parseQs4(queryString);

export interface Application3 extends EventEmitter, Application3Methods {
  (req: IncomingMessage, res: ServerResponse, next?: NextFunction): void;
  stack: StackEntry[];
  route: string;
  settings: Record<string, unknown>;
  locals: Locals3;
  cache: Record<string, unknown>;
  engines: Record<string, Engine>;
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
  listen(this: Application3, ...args: unknown[]): Server;
}

/** What Express 3 and Connect 2 do their own way: settings, the middleware stack, `app.router`, `configure`. */
const presetMethods = {
  /** As the core's, but a missing view names its views setting as 3.x did: an array as its string. */
  render(this: Application3, name: string, options?: unknown, callback?: unknown): void {
    const done = (typeof options === 'function' ? options : callback) as EngineCallback;
    // Options left out (and not replaced by the callback) throw when read, as in 3.x.
    const opts = typeof options === 'function' ? {} : options;
    renderView(this, name, opts as Record<string, unknown>, done, (root) => 'directory "' + String(root) + '"');
  },

  defaultConfiguration() {
    this.enable('x-powered-by');
    this.set('etag', 'weak');
    const env = environment();
    this.set('env', env);
    this.set('subdomain offset', 2);
    this.set('trust proxy', false);
    markTrustProxyDefault(this.settings);

    this.use(queryLayer(parseQuery3));
    this.use(initLayer(this, createLocals));

    this.on('mount', mountListener());

    this._router = new Router3(this as { caseSensitive?: boolean });
    this.routes = this._router.map;
    defineMembers(this, {
      hidden: {
        router(this: Application3) {
          // Reading app.router marks it used: routes then run where it was mounted.
          this._usedRouter = true;
          this._router.caseSensitive = this.enabled('case sensitive routing');
          this._router.strict = this.enabled('strict routing');
          return this._router.middleware;
        },
      },
    });

    this.locals = createLocals();
    this.locals.settings = this.settings;
    this.set('view', View3);
    this.set('views', process.cwd() + '/views');
    this.set('jsonp callback name', 'callback');
    if (env === 'development') this.set('json spaces', 2);
    if (env === 'production') this.enable('view cache');
  },

  use(route, fn) {
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
      handle = mountedApp(sub);
    }
    useMiddleware(this, path as string, handle);
    if (isApp) {
      sub.parent = this;
      sub.emit('mount', this);
    }
    return this;
  },

  handle(req, res, out) {
    handleRequest(this, req, res, out);
  },

  /** 3.x: every callback of the call, the function form to the router, `:name` as `name`. */
  param: paramMethod(function registerParam(this: Application3, name: unknown, fns: unknown[]) {
    if (typeof name === 'function') {
      this._router.param(name as never);
      return;
    }
    const key = String(name)[0] === ':' ? String(name).substring(1) : String(name);
    for (const fn of fns) this._router.param(key, fn);
  }) as Application3Methods['param'],

  set(this: Application3, setting: string, value?: unknown): unknown {
    if (arguments.length === 1) return this.settings[setting];
    this.settings[setting] = value;
    if (setting === 'etag') this.set('etag fn', compileETag3(value));
    if (setting === 'trust proxy') {
      this.set('trust proxy fn', compileTrust(value));
      markTrustProxySet(this.settings);
    }
    return this;
  },

  path() {
    return this.parent ? this.parent.path() + this.route : '';
  },

  /** `app.configure([env...], fn)`: runs `fn` (with the app as `this`) when the env matches or none is named. */
  configure(...args: unknown[]) {
    deprecate("app.configure: Check app.get('env') in an if statement");
    const fn = args.pop() as (this: Application3) => void;
    if (args.length === 0 || args.includes(this.settings.env)) fn.call(this);
    return this;
  },
} satisfies Partial<Application3Methods>;

/** `app.post(path, ...handlers)`...: a route on the 3.x router, mounting it first if the app has not. */
const routeMethods = methodMembers(
  (method): RouteMethod3 =>
    function addRoute(this: Application3, path: unknown, ...handlers: unknown[]) {
      // The first route mounts the router here unless the app placed it itself.
      if (!this._usedRouter) this.use(this.router);
      this._router[method](path as Parameters<Router3['route']>[1], ...handlers);
      return this;
    },
);
const routeGet = routeMethods.get;

const routingMethods = {
  ...routeMethods,
  /** `app.get(name)` with one argument reads a setting; with more, it routes GET requests. */
  get(this: Application3, settingOrPath: unknown, ...handlers: unknown[]) {
    if (arguments.length === 1) return this.set(settingOrPath as string);
    return routeGet.call(this, settingOrPath, ...handlers);
  },

  del: deleteAlias(routeMethods.delete),

  all(path, ...handlers) {
    for (const method of methods) application3[method].call(this, path, ...handlers);
    return this;
  },
} satisfies Partial<Application3Methods>;

/** The 3.x preset: the shared core (src/app-core.ts) plus what Express 3 and Connect 2 do their own way. */
export const application3 = definePrototype<Application3Methods>(Object.prototype, {
  methods: { ...applicationCore, ...presetMethods, ...routingMethods },
});
