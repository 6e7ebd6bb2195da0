/**
 * A router's dispatch loop: one request walking the router's stack. Behaviour is
 * Express 4.22's: `use` layers see the URL without their mount path, routes run
 * only for their methods and never while an error is pending, error handlers are
 * the layers of four parameters, `param` callbacks run before the layer that
 * captures the parameter, and an unanswered OPTIONS request is answered with the
 * methods of the routes that matched.
 *
 * Why a state object: everything a request's walk remembers between two `next()`
 * calls lives in one `Dispatch` of fixed shape; the helpers below take it as an
 * argument, so the only closure made per request per router is `next` itself
 * (middleware must be handed a function).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseUrl } from '../http/parse-url';
import type { Layer, NextFunction } from './layer';
import { LayerCursor, type IndexedStack } from './layer-index';
import type { Route } from './route';

type Params = Record<string, unknown>;

/** What the router reads and writes on a request. */
export interface RoutedRequest extends IncomingMessage {
  baseUrl?: string;
  originalUrl?: string;
  params?: Params;
  next?: NextFunction;
  route?: Route;
}

/** What `param` callbacks remember of a value already processed during this request. */
export interface ParamCall {
  error: unknown;
  match: unknown;
  value: unknown;
}

/** The router as the loop sees it. */
export interface DispatchingRouter extends IndexedStack {
  params: Record<string, unknown[]>;
  mergeParams: boolean | undefined;
  process_params(layer: Layer, called: Record<string, ParamCall>, req: IncomingMessage, res: ServerResponse, done: NextFunction): void;
}

/** After this many layers run synchronously, dispatch continues on a fresh stack. */
const MAX_SYNC_DEPTH = 100;

/** One request's walk through one router. */
class Dispatch {
  readonly cursor: LayerCursor;
  readonly next: NextFunction;
  /** `scheme://host` of an absolute-form request-target ('' otherwise), kept when a mount path is cut. */
  readonly protohost: string;
  readonly parentParams: Params | undefined;
  readonly parentUrl: string;
  readonly savedBaseUrl: string | undefined;
  readonly savedNext: NextFunction | undefined;
  /** The mount path cut from `req.url` for the layer running now ('' when none). */
  removed = '';
  /** Whether a '/' was put in front of `req.url` after the cut. */
  slashAdded = false;
  /** Layers run since the stack last unwound. */
  sync = 0;
  paramCalled: Record<string, ParamCall> | undefined = undefined;
  /** Methods of the routes that matched an OPTIONS request's path. */
  allowed: string[] | undefined = undefined;

  constructor(
    readonly router: DispatchingRouter,
    readonly req: RoutedRequest,
    readonly res: ServerResponse,
    readonly out: NextFunction,
  ) {
    this.cursor = new LayerCursor(router);
    this.protohost = getProtohost(req.url);
    this.parentParams = req.params;
    this.parentUrl = req.baseUrl || '';
    this.savedBaseUrl = req.baseUrl;
    this.savedNext = req.next;
    this.next = (err?: unknown) => advance(this, err);
  }
}

/** Runs `req` through `router`'s stack; `out` is called when the router is done with it. */
export function dispatch(router: DispatchingRouter, req: RoutedRequest, res: ServerResponse, out: NextFunction): void {
  const d = new Dispatch(router, req, res, out);
  req.next = d.next;
  req.baseUrl = d.parentUrl;
  req.originalUrl = req.originalUrl || req.url;
  d.next();
}

/** The router's `next`: finds the next layer that takes the request and runs it. */
function advance(d: Dispatch, err: unknown): void {
  let layerError = err === 'route' ? null : err;
  restoreUrl(d);
  if (layerError === 'router') {
    setImmediate(leave, d, null);
    return;
  }
  if (d.cursor.exhausted) {
    setImmediate(leave, d, layerError);
    return;
  }
  // Why: a long chain of synchronous middleware would otherwise grow the call
  // stack without bound; yielding every 100 layers keeps it flat.
  if (++d.sync > MAX_SYNC_DEPTH) {
    setImmediate(d.next, err);
    return;
  }
  const path = getPathname(d.req);
  if (path == null) {
    leave(d, layerError);
    return;
  }

  const cursor = d.cursor;
  cursor.seek(path);
  let layer: Layer | undefined;
  while ((layer = cursor.next()) !== undefined) {
    const match = matchLayer(layer, path);
    if (match !== true) {
      // A malformed parameter becomes the pending error; the walk goes on to the error handlers.
      if (match !== false) layerError = layerError || match;
      continue;
    }
    if (layer.route === undefined || routeTakes(d, layer.route, layerError)) break;
  }
  if (layer === undefined) {
    leave(d, layerError);
    return;
  }

  const req = d.req;
  if (layer.route !== undefined) req.route = layer.route;
  req.params = d.router.mergeParams ? mergeParams(layer.params!, d.parentParams) : layer.params;
  processParams(d, layer, layerError, path);
}

/** Whether a route whose path matched runs for this request (and notes its methods for OPTIONS). */
function routeTakes(d: Dispatch, route: Route, layerError: unknown): boolean {
  // Routes never run while an error is pending.
  if (layerError) return false;
  const method = d.req.method as string;
  if (route._handles_method(method)) return true;
  if (method === 'OPTIONS') appendMethods((d.allowed ??= []), route._options());
  // A HEAD request stays with the matched route, which answers 404 through its own next().
  return method === 'HEAD';
}

/** Runs the `param` callbacks the layer's parameters have, then the layer. */
function processParams(d: Dispatch, layer: Layer, layerError: unknown, path: string): void {
  if (layer.keys.length === 0 || !hasParamHandlers(d.router, layer)) {
    // The common case needs no param callbacks, and no continuation closure either.
    afterParams(d, layer, layerError, path, undefined);
    return;
  }
  d.router.process_params(layer, (d.paramCalled ??= {}), d.req, d.res, (paramErr?: unknown) => {
    afterParams(d, layer, layerError, path, paramErr);
  });
}

function afterParams(d: Dispatch, layer: Layer, layerError: unknown, path: string, paramErr: unknown): void {
  if (paramErr) d.next(layerError || paramErr);
  else if (layer.route !== undefined || enterMount(d, layer, path)) callLayer(d, layer, layerError);
  else d.next(layerError);
  d.sync = 0;
}

/**
 * The one place a layer of the router is invoked: with the pending error (error
 * handlers only), or with the request.
 */
function callLayer(d: Dispatch, layer: Layer, layerError: unknown): void {
  if (layerError) layer.handle_error(layerError, d.req, d.res, d.next);
  else layer.handle_request(d.req, d.res, d.next);
}

/**
 * A `use` layer sees the request URL without its mount path, and `req.baseUrl`
 * with it; restoreUrl puts both back when the layer calls next(). False when the
 * path only looks mounted (`/api` does not take `/apis`).
 */
function enterMount(d: Dispatch, layer: Layer, path: string): boolean {
  const layerPath = layer.path!;
  if (layerPath.length === 0) return true;
  if (layerPath !== path.slice(0, layerPath.length)) return false;
  const c = path[layerPath.length];
  if (c && c !== '/' && c !== '.') return false;
  const req = d.req;
  const protohost = d.protohost;
  d.removed = layerPath;
  req.url = protohost + req.url!.slice(protohost.length + layerPath.length);
  if (!protohost && req.url[0] !== '/') {
    req.url = '/' + req.url;
    d.slashAdded = true;
  }
  req.baseUrl = d.parentUrl + (layerPath[layerPath.length - 1] === '/' ? layerPath.substring(0, layerPath.length - 1) : layerPath);
  return true;
}

/** Undoes enterMount when the mounted layer hands the request on. */
function restoreUrl(d: Dispatch): void {
  const req = d.req;
  if (d.slashAdded) {
    req.url = req.url!.slice(1);
    d.slashAdded = false;
  }
  if (d.removed.length !== 0) {
    req.baseUrl = d.parentUrl;
    req.url = d.protohost + d.removed + req.url!.slice(d.protohost.length);
    d.removed = '';
  }
}

/**
 * Leaving the router restores what it changed on the request, then answers an
 * unhandled OPTIONS request from the methods of the routes that matched.
 */
function leave(d: Dispatch, err: unknown): void {
  const req = d.req;
  req.baseUrl = d.savedBaseUrl;
  req.next = d.savedNext;
  req.params = d.parentParams;
  if (d.allowed !== undefined && d.allowed.length > 0 && !err) {
    answerOptions(d.res, d.allowed, d.out);
    return;
  }
  d.out(err);
}

interface OptionsResponse extends ServerResponse {
  set?: (field: string, value: string) => unknown;
  send?: (body: string) => unknown;
}

function answerOptions(res: ServerResponse, allowed: string[], next: NextFunction): void {
  try {
    const body = allowed.join(',');
    const response = res as OptionsResponse;
    response.set!('Allow', body);
    response.send!(body);
  } catch (err) {
    next(err);
  }
}

function appendMethods(list: string[], addition: string[]): void {
  for (const method of addition) if (!list.includes(method)) list.push(method);
}

function hasParamHandlers(router: DispatchingRouter, layer: Layer): boolean {
  const params = router.params;
  for (const key of layer.keys) {
    if (Object.prototype.hasOwnProperty.call(params, key.name)) return true;
  }
  return false;
}

/** true, false, or what matching threw (a 400 error for a malformed parameter). */
function matchLayer(layer: Layer, path: string): unknown {
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

/** `scheme://host` of an absolute-form request-target, '' for the usual origin-form. */
function getProtohost(url: string | undefined): string {
  if (typeof url !== 'string' || url.length === 0 || url[0] === '/') return '';
  const searchIndex = url.indexOf('?');
  const pathLength = searchIndex !== -1 ? searchIndex : url.length;
  const fqdnIndex = url.slice(0, pathLength).indexOf('://');
  return fqdnIndex !== -1 ? url.substring(0, url.indexOf('/', 3 + fqdnIndex)) : '';
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
