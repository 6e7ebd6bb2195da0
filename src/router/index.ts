/**
 * The Router: an ordered stack of layers (middleware from `use`, routes from
 * `route`/`METHOD`) and the dispatch loop that runs them. Behaviour is Express
 * 4.22's, field for field; speed comes from the layer index (only layers that can
 * match are looked at), string matching of literal paths, and one `next`
 * closure per request per router.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { deprecate } from '../http/deprecate';
import { parseUrl } from '../http/parse-url';
import { Layer, forwardRejection, type Handler, type NextFunction } from './layer';
import { LayerIndex, firstAtLeast } from './layer-index';
import { methods, type MethodMembers } from './methods';
import type { PathPattern } from './path-pattern';
import { Route, splitUseArguments } from './route';

export { Layer } from './layer';
export { Route } from './route';
export { methods } from './methods';

export interface RouterOptions {
  caseSensitive?: boolean;
  mergeParams?: boolean;
  strict?: boolean;
}

/** `(req, res, next, value, name)`: runs before handlers of routes that capture `name`. */
export type ParamHandler = (req: IncomingMessage, res: ServerResponse, next: NextFunction, value: unknown, name: string) => unknown;
/** The deprecated `router.param(fn)` form: `fn(name, arg)` returns the callback to register. */
export type ParamDefinition = (name: string, arg: unknown) => ParamHandler | undefined;

type Params = Record<string, unknown>;

/** What the router reads and writes on a request. */
interface RoutedRequest extends IncomingMessage {
  baseUrl?: string;
  originalUrl?: string;
  params?: Params;
  next?: NextFunction;
  route?: Route;
}

interface ParamCall {
  error: unknown;
  match: unknown;
  value: unknown;
}

const kLayerIndex = Symbol('webapp.layerIndex');

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
}

type RouteMethod = (this: Router, path: PathPattern, ...handlers: unknown[]) => Router;

export interface RouterMethods extends MethodMembers<RouteMethod> {
  handle(this: Router, req: IncomingMessage, res: ServerResponse, out: NextFunction): void;
  process_params(this: Router, layer: Layer, called: Record<string, ParamCall>, req: IncomingMessage, res: ServerResponse, done: NextFunction): void;
  param(this: Router, name: string | ParamDefinition, fn?: ParamHandler | unknown): Router | undefined;
  use(this: Router, ...args: unknown[]): Router;
  route(this: Router, path: PathPattern): Route;
  all: RouteMethod;
}

export interface RouterFactory extends RouterMethods {
  (options?: RouterOptions): Router;
  new (options?: RouterOptions): Router;
}

/** After this many layers run synchronously, dispatch continues on a fresh stack. */
const MAX_SYNC_DEPTH = 100;

/**
 * `Router(options)` returns a new router. Like Express, the factory doubles as the
 * routers' prototype, so `Object.getPrototypeOf(router) === Router`.
 */
export const Router = function Router(options?: RouterOptions): Router {
  const opts = options ?? {};
  const router = function router(req: IncomingMessage, res: ServerResponse, next: NextFunction) {
    (router as Router).handle(req, res, next);
  } as Router;
  Object.setPrototypeOf(router, Router);
  router.params = {};
  router._params = [];
  router.caseSensitive = opts.caseSensitive;
  router.mergeParams = opts.mergeParams;
  router.strict = opts.strict;
  router.stack = [];
  return router;
} as RouterFactory;

Router.param = function param(this: Router, name: string | ParamDefinition, fn?: unknown): Router | undefined {
  if (typeof name === 'function') {
    deprecate('router.param(fn): Refactor to use path params');
    this._params.push(name);
    return undefined;
  }
  if (name[0] === ':') {
    deprecate('router.param(' + JSON.stringify(name) + ', fn): Use router.param(' + JSON.stringify(name.slice(1)) + ', fn) instead');
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
};

Router.handle = function handle(this: Router, rawReq: IncomingMessage, res: ServerResponse, out: NextFunction): void {
  const router = this;
  const req = rawReq as RoutedRequest;
  const stack = router.stack;
  const protohost = getProtohost(req.url) || '';
  let idx = 0;
  let removed = '';
  let slashAdded = false;
  let sync = 0;
  let paramCalled: Record<string, ParamCall> | undefined;
  let allowed: string[] | undefined;

  const parentParams = req.params;
  const parentUrl = req.baseUrl || '';
  const savedBaseUrl = req.baseUrl;
  const savedNext = req.next;

  // Leaving the router restores what it changed on the request, then answers an
  // unhandled OPTIONS request from the methods of the routes that matched.
  const done = (err?: unknown): void => {
    req.baseUrl = savedBaseUrl;
    req.next = savedNext;
    req.params = parentParams;
    if (allowed !== undefined && allowed.length > 0 && !err) {
      sendOptionsResponse(res, allowed, out);
      return;
    }
    out(err);
  };

  const next: NextFunction = (err?: unknown): void => {
    let layerError = err === 'route' ? null : err;

    if (slashAdded) {
      req.url = req.url!.slice(1);
      slashAdded = false;
    }
    if (removed.length !== 0) {
      req.baseUrl = parentUrl;
      req.url = protohost + removed + req.url!.slice(protohost.length);
      removed = '';
    }
    if (layerError === 'router') {
      setImmediate(done, null);
      return;
    }
    if (idx >= stack.length) {
      setImmediate(done, layerError);
      return;
    }
    // Why: a long chain of synchronous middleware would otherwise grow the call
    // stack without bound; yielding every 100 layers keeps it flat.
    if (++sync > MAX_SYNC_DEPTH) {
      setImmediate(next, err);
      return;
    }

    const path = getPathname(req);
    if (path == null) {
      done(layerError);
      return;
    }

    const index = (router[kLayerIndex] = LayerIndex.for(stack, router[kLayerIndex]));
    const candidates = index?.candidates(path);
    let position = candidates === undefined ? 0 : firstAtLeast(candidates, idx);

    let layer: Layer | undefined;
    let match: unknown;
    let route: Route | undefined;
    while (match !== true && idx < stack.length) {
      if (candidates !== undefined) {
        if (position >= candidates.length) {
          idx = stack.length;
          break;
        }
        idx = candidates[position++];
      }
      layer = stack[idx++];
      match = matchLayer(layer, path);
      route = layer.route;

      if (typeof match !== 'boolean') layerError = layerError || match;
      if (match !== true) continue;
      if (!route) continue;
      if (layerError) {
        // Routes never run while an error is pending.
        match = false;
        continue;
      }
      const method = req.method as string;
      const handlesMethod = route._handles_method(method);
      if (!handlesMethod && method === 'OPTIONS') appendMethods((allowed ??= []), route._options());
      if (!handlesMethod && method !== 'HEAD') match = false;
    }

    if (match !== true || layer === undefined) {
      done(layerError);
      return;
    }
    if (route) req.route = route;

    req.params = router.mergeParams ? mergeParams(layer.params!, parentParams) : layer.params;
    const matchedLayer = layer;
    const layerPath = layer.path!;
    if (matchedLayer.keys.length === 0 || !hasParamHandlers(router, matchedLayer)) {
      // The common case needs no param callbacks: no continuation closure either.
      if (route) matchedLayer.handle_request(req, res, next);
      else trimPrefix(matchedLayer, layerError, layerPath, path);
      sync = 0;
      return;
    }
    router.process_params(matchedLayer, (paramCalled ??= {}), req, res, (paramErr?: unknown) => {
      if (paramErr) next(layerError || paramErr);
      else if (route) matchedLayer.handle_request(req, res, next);
      else trimPrefix(matchedLayer, layerError, layerPath, path);
      sync = 0;
    });
  };

  // A `use` layer sees the request URL without its mount path, and `req.baseUrl`
  // with it; both are put back when the layer calls next().
  const trimPrefix = (layer: Layer, layerError: unknown, layerPath: string, path: string): void => {
    if (layerPath.length !== 0) {
      if (layerPath !== path.slice(0, layerPath.length)) {
        next(layerError);
        return;
      }
      const c = path[layerPath.length];
      if (c && c !== '/' && c !== '.') {
        next(layerError);
        return;
      }
      removed = layerPath;
      req.url = protohost + req.url!.slice(protohost.length + removed.length);
      if (!protohost && req.url[0] !== '/') {
        req.url = '/' + req.url;
        slashAdded = true;
      }
      req.baseUrl = parentUrl + (removed[removed.length - 1] === '/' ? removed.substring(0, removed.length - 1) : removed);
    }
    if (layerError) layer.handle_error(layerError, req, res, next);
    else layer.handle_request(req, res, next);
  };

  req.next = next;
  req.baseUrl = parentUrl;
  req.originalUrl = req.originalUrl || req.url;
  next();
};

/**
 * Runs the `param` callbacks of the layer's parameters, in order, once per request
 * per parameter value (a value seen before restores its result, an error is replayed).
 */
Router.process_params = function process_params(
  this: Router,
  layer: Layer,
  called: Record<string, ParamCall>,
  rawReq: IncomingMessage,
  res: ServerResponse,
  done: NextFunction,
): void {
  const req = rawReq as RoutedRequest;
  const params = this.params;
  const keys = layer.keys;
  if (!keys || keys.length === 0) {
    done();
    return;
  }
  let i = 0;
  let paramIndex = 0;
  let name: string;
  let paramValue: unknown;
  let callbacks: ParamHandler[] | undefined;
  let call: ParamCall;

  const nextParam = (err?: unknown): void => {
    if (err) {
      done(err);
      return;
    }
    if (i >= keys.length) {
      done();
      return;
    }
    paramIndex = 0;
    name = String(keys[i++].name);
    paramValue = req.params![name];
    callbacks = Object.prototype.hasOwnProperty.call(params, name) ? params[name] : undefined;
    const previous = called[name];
    if (paramValue === undefined || !callbacks) {
      nextParam();
      return;
    }
    if (previous && (previous.match === paramValue || (previous.error && previous.error !== 'route'))) {
      req.params![name] = previous.value;
      nextParam(previous.error);
      return;
    }
    called[name] = call = { error: null, match: paramValue, value: paramValue };
    paramCallback();
  };

  const paramCallback = (err?: unknown): void => {
    const fn = callbacks![paramIndex++];
    call.value = req.params![name];
    if (err) {
      call.error = err;
      nextParam(err);
      return;
    }
    if (!fn) {
      nextParam();
      return;
    }
    try {
      forwardRejection(fn(req, res, paramCallback, paramValue, name), paramCallback);
    } catch (e) {
      paramCallback(e);
    }
  };

  nextParam();
};

Router.use = function use(this: Router, ...args: unknown[]): Router {
  const { path, callbacks } = splitUseArguments(args);
  if (callbacks.length === 0) throw new TypeError('Router.use() requires a middleware function');
  for (const fn of callbacks) {
    if (typeof fn !== 'function') {
      throw new TypeError('Router.use() requires a middleware function but got a ' + typeName(fn));
    }
    const layer = new Layer(path, { sensitive: this.caseSensitive, strict: false, end: false }, fn as Handler);
    layer.route = undefined;
    this.stack.push(layer);
  }
  return this;
};

Router.route = function route(this: Router, path: PathPattern): Route {
  const route = new Route(path);
  const layer = new Layer(path, { sensitive: this.caseSensitive, strict: this.strict, end: true }, route.dispatch.bind(route));
  layer.route = route;
  this.stack.push(layer);
  return route;
};

for (const method of [...methods, 'all' as const]) {
  Router[method] = function addRoute(this: Router, path: PathPattern, ...handlers: unknown[]): Router {
    const route = this.route(path);
    route[method](...handlers);
    return this;
  };
}

function hasParamHandlers(router: Router, layer: Layer): boolean {
  const params = router.params;
  for (const key of layer.keys) {
    if (Object.prototype.hasOwnProperty.call(params, key.name)) return true;
  }
  return false;
}

function matchLayer(layer: Layer, path: string): boolean | unknown {
  try {
    return layer.match(path);
  } catch (err) {
    return err;
  }
}

function getPathname(req: IncomingMessage): string | null | undefined {
  try {
    return parseUrl(req)?.pathname;
  } catch {
    return undefined;
  }
}

/** `scheme://host` of an absolute-form request-target, kept in front of the path when mounting strips it. */
function getProtohost(url: string | undefined): string | undefined {
  if (typeof url !== 'string' || url.length === 0 || url[0] === '/') return undefined;
  const searchIndex = url.indexOf('?');
  const pathLength = searchIndex !== -1 ? searchIndex : url.length;
  const fqdnIndex = url.slice(0, pathLength).indexOf('://');
  return fqdnIndex !== -1 ? url.substring(0, url.indexOf('/', 3 + fqdnIndex)) : undefined;
}

function typeName(value: unknown): string {
  const type = typeof value;
  if (type !== 'object') return type;
  return Object.prototype.toString.call(value).replace(/^\[object (\S+)\]$/, '$1');
}

function appendMethods(list: string[], addition: string[]): void {
  for (const method of addition) if (!list.includes(method)) list.push(method);
}

/**
 * `mergeParams`: the parent's params under the child's. When both have numbered
 * captures, the child's are shifted after the parent's, as Express does.
 */
function mergeParams(params: Params, parent: Params | undefined): Params {
  if (typeof parent !== 'object' || !parent) return params;
  const merged: Params = Object.assign({}, parent);
  if (!(0 in params) || !(0 in parent)) return Object.assign(merged, params);
  let i = 0;
  let o = 0;
  while (i in params) i++;
  while (o in parent) o++;
  for (i--; i >= 0; i--) {
    params[i + o] = params[i];
    if (i < o) delete params[i];
  }
  return Object.assign(merged, params);
}

interface OptionsResponse extends ServerResponse {
  set?: (field: string, value: string) => unknown;
  send?: (body: string) => unknown;
}

function sendOptionsResponse(res: ServerResponse, allowed: string[], next: NextFunction): void {
  try {
    const body = allowed.join(',');
    const response = res as OptionsResponse;
    response.set!('Allow', body);
    response.send!(body);
  } catch (err) {
    next(err);
  }
}
