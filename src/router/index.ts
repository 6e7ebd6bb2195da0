/**
 * The Router: an ordered stack of layers (middleware from `use`, routes from
 * `route`/`METHOD`) and the methods that build it; `dispatch.ts` runs a request
 * through it. Behaviour is Express 4.22's, field for field; speed comes from the
 * layer index (only layers that can match are looked at), string matching of
 * literal paths, and one `next` function per request per router.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { defineMembers } from '../define-prototype';
import { deprecate } from '../http/deprecate';
import { declaring } from '../named';
import { Dispatch, type ParamCall } from './dispatch';
import { Layer, type Handler, type NextFunction } from './layer';
import type { LayerIndex } from './layer-index';
import { kLayerIndex } from './layer-cursor';
import { kLayers, kStackView, layersOf, watchStack } from './stack-edits';
import { methodMembers, type HttpMethod, type MethodMembers } from './methods';
import { processParams } from './params';
import type { PathPattern } from './path-pattern';
import { Route, splitUseArguments } from './route';

export { Layer, CallableLayer } from './layer';
export { Route, CallableRoute } from './route';
export { methods } from './methods';

export interface RouterOptions {
  caseSensitive?: boolean;
  mergeParams?: boolean;
  strict?: boolean;
}

/** `(req, res, next, value, name)`: runs before handlers of routes that capture `name`. */
export type ParamHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next: NextFunction,
  value: unknown,
  name: string,
) => unknown;
/** The deprecated `router.param(fn)` form: `fn(name, arg)` returns the callback to register. */
export type ParamDefinition = (name: string, arg: unknown) => ParamHandler | undefined;

/** A router instance: a middleware function with the router methods on its prototype. */
export interface Router extends RouterMethods {
  (req: IncomingMessage, res: ServerResponse, next: NextFunction): void;
  params: Record<string, ParamHandler[]>;
  _params: ParamDefinition[];
  caseSensitive: boolean | undefined;
  mergeParams: boolean | undefined;
  strict: boolean | undefined;
  stack: Layer[];
  [kLayerIndex]?: LayerIndex;
  [kLayers]?: Layer[];
  [kStackView]?: Layer[];
}

type RouteMethod = (this: Router, path: PathPattern, ...handlers: unknown[]) => Router;

export interface RouterMethods extends MethodMembers<RouteMethod> {
  handle(this: Router, req: IncomingMessage, res: ServerResponse, out: NextFunction): void;
  process_params(
    this: Router,
    layer: Layer,
    called: Record<string, ParamCall>,
    req: IncomingMessage,
    res: ServerResponse,
    done: NextFunction,
  ): void;
  param(this: Router, name: string | ParamDefinition, fn?: ParamHandler | unknown): Router | undefined;
  use(this: Router, ...args: unknown[]): Router;
  route(this: Router, path: PathPattern): Route;
  all: RouteMethod;
}

export interface RouterFactory extends RouterMethods {
  (options?: RouterOptions): Router;
  new (options?: RouterOptions): Router;
}

/**
 * `Router(options)` returns a new router. Like Express, the factory doubles as the
 * routers' prototype, so `Object.getPrototypeOf(router) === Router`.
 */
export const Router = function Router(options?: RouterOptions): Router {
  const opts = options ?? {};
  // Named `router` as Express's, by the key it is made under: tools find sub-routers by
  // `layer.name === 'router'` (express-list-endpoints), and a bundler renames a function
  // declared `router` (esbuild makes it `router2`, or a letter when it minifies). Not
  // through `named`: the router's own fields are read on every request, and a function
  // whose `name` is redefined keeps its fields in a slow dictionary.
  const { router } = {
    router: function (req: IncomingMessage, res: ServerResponse, next: NextFunction) {
      instance.handle(req, res, next);
    },
  };
  const instance = router as unknown as Router;
  Object.setPrototypeOf(instance, Router);
  instance.params = {};
  instance._params = [];
  instance.caseSensitive = opts.caseSensitive;
  instance.mergeParams = opts.mergeParams;
  instance.strict = opts.strict;
  // A Proxy over the array walked, which counts edits made in place (stack-edits.ts).
  watchStack(instance);
  return instance;
} as RouterFactory;

const routerMethods = {
  param(this: Router, name: string | ParamDefinition, fn?: unknown): Router | undefined {
    if (typeof name === 'function') {
      deprecate('router.param(fn): Refactor to use path params');
      this._params.push(name);
      return undefined;
    }
    if (name[0] === ':') {
      deprecate(
        'router.param(' +
          JSON.stringify(name) +
          ', fn): Use router.param(' +
          JSON.stringify(name.slice(1)) +
          ', fn) instead',
      );
      name = name.slice(1);
    }
    let callback = fn;
    for (const definition of this._params) {
      const replaced = definition(name, callback);
      if (replaced) callback = replaced;
    }
    if (typeof callback !== 'function') {
      throw new Error('invalid param() call for ' + name + ', got ' + callback);
    }
    (this.params[name] = this.params[name] || []).push(callback as ParamHandler);
    return this;
  },

  handle(this: Router, req: IncomingMessage, res: ServerResponse, out: NextFunction): void {
    new Dispatch(this, req, res, out).start();
  },

  process_params: processParams,

  // `(fn)`, as Express declares it.
  use: declaring(1, function use(this: Router, ...args: unknown[]): Router {
    const { path, callbacks } = splitUseArguments(args);
    if (callbacks.length === 0) throw new TypeError('Router.use() requires a middleware function');
    for (const fn of callbacks) {
      if (typeof fn !== 'function') {
        throw new TypeError('Router.use() requires a middleware function but got a ' + typeName(fn));
      }
      const layer = new Layer(path, { sensitive: this.caseSensitive, strict: false, end: false }, fn as Handler);
      layer.route = undefined;
      layersOf(this).push(layer);
    }
    return this;
  }),

  route(this: Router, path: PathPattern): Route {
    const route = new Route(path);
    const layer = new Layer(
      path,
      { sensitive: this.caseSensitive, strict: this.strict, end: true },
      route.dispatch.bind(route),
    );
    layer.route = route;
    layersOf(this).push(layer);
    return route;
  },
} satisfies Partial<RouterMethods>;

/** `router.get(path, ...handlers)`...: a route for `path` with the handlers for that method; `all` for every method. */
function routeAdder(method: HttpMethod | 'all'): RouteMethod {
  // Anonymous, as Express's are (`proto[method] = function (path) {...}`): `router.get.name` is ''.
  return function (this: Router, path: PathPattern, ...handlers: unknown[]): Router {
    const route = this.route(path);
    route[method](...handlers);
    return this;
  };
}

defineMembers(Router, {
  methods: { ...routerMethods, ...methodMembers(routeAdder), all: routeAdder('all') },
});

function typeName(value: unknown): string {
  const type = typeof value;
  if (type !== 'object') return type;
  return Object.prototype.toString.call(value).replace(/^\[object (\S+)\]$/, '$1');
}
