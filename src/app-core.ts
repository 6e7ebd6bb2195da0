/**
 * The application machinery 4.x apps (`webapp`, src/application.ts) and 3.x apps
 * (`webapp/v3`, src/v3/application.ts) share. Each of those is a thin preset: it
 * mixes `applicationCore` into its prototype and adds only what its version does
 * differently (settings, `use`, `handle`, the router it routes with).
 */
import { EventEmitter } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
// Loaded by the name `http` too, as Express loads it: instrumentation that wraps
// `Module._load` and matches that name (pmx, PM2's HTTP probe) patches `http.Server`
// when it sees it, and reported no request of an app on webapp.
import 'http';
import { definePrototype } from './define-prototype';
import { deprecate } from './http/deprecate';
import { adoptRequestPrototype, adoptResponsePrototype, setHeaderBeforeAdoption } from './prototypes';
import { adoptServer, createAppServer } from './server-classes';
import { setOwnHeader } from './response/header-store';
import { declaring, named } from './named';
import { hotSettings, markPlainSettingReads, readsOwnSettings } from './settings';
import type { RenderCallback } from './response/types';
import { runnableInPlace, type Handler, type NextFunction } from './router/layer';
import { renderView } from './view';

/** What rendering reads from an app. */
type RenderingApp = Parameters<typeof renderView>[0];

/** Marks `trust proxy` as still at its default, so a mounted sub-app inherits its parent's. */
const kTrustProxyDefault = '@@symbol:trust_proxy_default';

/** What the shared members read from an app, whichever preset made it. */
export interface CoreApp extends RenderingApp {
  settings: Record<string, unknown>;
  init(): void;
  defaultConfiguration(): void;
  set(setting: string, value?: unknown): unknown;
  request: object;
  response: object;
  parent?: CoreApp;
  handle(req: IncomingMessage, res: ServerResponse, next?: NextFunction): void;
  param(name: unknown, ...fns: unknown[]): this;
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
 * An app's own `mount` listener, named as Express's: a function per app, as Express
 * makes it, so that removing one app's listener from another leaves that app's in place.
 */
export function mountListener(): (this: InheritingApp, parent: InheritingApp) => void {
  return function onmount(this: InheritingApp, parent: InheritingApp): void {
    inheritFromParent(this, parent);
  };
}

/**
 * What mounting does: the sub-app's settings, engines, request and response
 * prototypes fall back to the parent's. `trust proxy` has a default yet is
 * inherited: a default still in place is dropped so the parent's value shows.
 */
function inheritFromParent(app: InheritingApp, parent: InheritingApp): void {
  if (app.settings[kTrustProxyDefault] === true && typeof parent.settings['trust proxy fn'] === 'function') {
    delete app.settings['trust proxy'];
    delete app.settings['trust proxy fn'];
  }
  Object.setPrototypeOf(app.request, parent.request);
  Object.setPrototypeOf(app.response, parent.response);
  Object.setPrototypeOf(app.engines, parent.engines);
  Object.setPrototypeOf(app.settings, parent.settings);
}

/** Marks `trust proxy` as set by the app itself (no longer inherited on mount). */
export function markTrustProxySet(settings: object): void {
  Object.defineProperty(settings, kTrustProxyDefault, { configurable: true, value: false });
}

/** Marks `trust proxy` as at its default (inherited from a parent on mount). */
export function markTrustProxyDefault(settings: object): void {
  Object.defineProperty(settings, kTrustProxyDefault, { configurable: true, value: true });
}

/** Copies own property descriptors (methods and accessors alike), keeping those `target` already has. */
function mixin(target: object, source: object): void {
  for (const name of Object.getOwnPropertyNames(source)) {
    if (Object.prototype.hasOwnProperty.call(target, name)) continue;
    Object.defineProperty(target, name, Object.getOwnPropertyDescriptor(source, name)!);
  }
}

/**
 * Makes an app of a preset: a function (a request listener, or a middleware when
 * given `next`) carrying an EventEmitter's members and `preset`'s, with request
 * and response prototypes of its own over `request` and `response`. `prepare`
 * sets up what the preset's `init` expects to find.
 */
export function createApp<T extends CoreApp>(
  preset: object,
  request: object,
  response: object,
  prepare?: (app: T) => void,
): T {
  const app = function app(req: IncomingMessage, res: ServerResponse, next?: NextFunction) {
    // As a server's request listener (no `next`), see whether the server can build app-born objects.
    if (next === undefined) adoptServer(app as unknown as T, req);
    (app as unknown as T).handle(req, res, next);
  } as unknown as T;
  mixin(app, EventEmitter.prototype);
  mixin(app, preset);
  prepare?.(app);
  app.request = definePrototype(request, { values: { app } });
  app.response = definePrototype(response, { values: { app } });
  app.init();
  return app;
}

/**
 * The function `app.use` mounts for a sub-app: the sub-app handles the request,
 * and when it passes the request on, the request and response take the parent's
 * prototypes again.
 */
export function mountedApp(sub: Pick<CoreApp, 'handle'>): Handler {
  // Named as Express's for good (see named): tracing tells a mounted app by its name.
  return named(
    'mounted_app',
    function (req: IncomingMessage & { app?: CoreApp }, res: ServerResponse, next: NextFunction) {
      const parent = req.app!;
      sub.handle(req, res, (err?: unknown) => {
        adoptRequestPrototype(req, parent.request);
        adoptResponsePrototype(res, parent.response);
        next(err);
      });
    },
  );
}

/**
 * Express's `expressInit` layer: links req/res, gives them the app's prototypes,
 * sets X-Powered-By. `createLocals` makes `res.locals` (3.x's is callable).
 */
export function initLayer(
  app: Pick<CoreApp, 'enabled' | 'set' | 'settings' | 'request' | 'response'>,
  createLocals: () => object,
) {
  const init = (
    req: IncomingMessage & { res?: ServerResponse; next?: NextFunction },
    res: ServerResponse & { req?: IncomingMessage; locals?: object },
    next: NextFunction,
  ): void => {
    const poweredBy = readsOwnSettings(app) ? hotSettings.poweredBy(app.settings) : app.enabled('x-powered-by');
    // Express sets X-Powered-By before the swap, through the `setHeader` the response had
    // (Node's, or a parent app's): one of this app's `app.response` never sees it. Set
    // after the swap, so that a response that was not born with the app's prototype takes
    // it into the store's own object directly.
    const setHeader = poweredBy ? setHeaderBeforeAdoption(res, app.response) : undefined;
    req.res = res;
    res.req = req;
    req.next = next;
    adoptRequestPrototype(req, app.request);
    adoptResponsePrototype(res, app.response);
    if (poweredBy) setOwnHeader(res, setHeader, 'x-powered-by', 'X-Powered-By', 'webapp');
    res.locals = res.locals || createLocals();
  };
  // Named by its key, which a bundler keeps (see the app's `router`, router/index.ts).
  const { expressInit } = {
    expressInit: function (req: IncomingMessage, res: ServerResponse, next: NextFunction) {
      init(req, res, next);
      next();
    },
  };
  return runnableInPlace(expressInit, init);
}

/**
 * `app.param(name | names, ...callbacks)`: each name of an array in turn, then
 * `register` (the preset's: 4.x and 3.x routers take callbacks differently).
 */
export function paramMethod<T extends { param(name: unknown, ...fns: unknown[]): unknown }>(
  register: (this: T, name: unknown, fns: unknown[]) => void,
  prepare?: (this: T) => void,
) {
  // `(name, fn)`, as Express declares it.
  return declaring(2, function param(this: T, name: unknown, ...fns: unknown[]): T {
    prepare?.call(this);
    if (Array.isArray(name)) {
      for (const each of name) this.param(each, ...fns);
      return this;
    }
    register.call(this, name, fns);
    return this;
  });
}

/**
 * `app.del`, Express's deprecated alias of the preset's `delete` as first defined: it
 * calls that function, not `this.delete`, so a plugin that wraps both `del` and
 * `delete` (express-namespace) runs its wrapper once for `app.del`, as on Express.
 */
export function deleteAlias<T, A extends unknown[]>(remove: (this: T, ...args: A) => T) {
  // Anonymous and `(path)`, as Express's deprecated wrapper of `delete` is.
  return declaring(
    1,
    named('', function (this: T, ...args: A): T {
      deprecate('app.del: Use app.delete instead');
      return remove.apply(this, args);
    }),
  );
}

/** The members both presets' apps have, written once. */
export const applicationCore = {
  /** Fresh per-app state, then the preset's defaults. */
  init(this: CoreApp & { cache: object; engines: object }): void {
    this.cache = {};
    this.engines = {};
    this.settings = {};
    this.defaultConfiguration();
  },

  /** Registers a template engine for an extension (the dot is optional). */
  engine<T extends CoreApp>(this: T, ext: string, fn: unknown): T {
    if (typeof fn !== 'function') throw new Error('callback function required');
    this.engines[ext[0] !== '.' ? '.' + ext : ext] = fn as CoreApp['engines'][string];
    return this;
  },

  enabled(this: CoreApp, setting: string): boolean {
    return Boolean(this.set(setting));
  },
  disabled(this: CoreApp, setting: string): boolean {
    return !this.set(setting);
  },
  enable<T extends CoreApp>(this: T, setting: string): T {
    return this.set(setting, true) as T;
  },
  disable<T extends CoreApp>(this: T, setting: string): T {
    return this.set(setting, false) as T;
  },

  /** Renders a view with the app's locals; `options` may be left out. */
  render(this: CoreApp, name: string, options?: object | RenderCallback, callback?: RenderCallback): void {
    const done = (typeof options === 'function' ? options : callback) as RenderCallback;
    // As in Express, options left out (and not replaced by the callback) throw when read.
    const opts = typeof options === 'function' ? {} : options;
    renderView(this, name, opts as Record<string, unknown>, done);
  },

  /**
   * Like Express, `app.listen` makes an HTTP server for the app and passes all
   * arguments to `server.listen`. Unlike Express, the server constructs requests and
   * responses that already have the app's prototypes, so no prototype has to be
   * swapped per request (the hot path Express pays for on every request).
   */
  listen(this: CoreApp, ...args: unknown[]): Server {
    const server = createAppServer(this);
    return server.listen(...(args as Parameters<Server['listen']>));
  },
};

// `enabled(name)` is `Boolean(this.set(name))`: a plain read wherever `set` is one.
markPlainSettingReads(applicationCore.enabled);
