/**
 * One request's walk through one router: the `next` function the router's layers
 * receive, and the state it needs between calls. Behaviour is Express 4.22's.
 *
 * Why a class and a small `next` closure: the state lives in one object of fixed
 * shape (this, whose base class is the walk's position in the stack, LayerCursor) and
 * `next` is the only function made per request per router (the layers need a plain
 * function; see `nextFor`). Nothing else is allocated unless the request needs it
 * (param callbacks, an OPTIONS answer), so a request in flight keeps as little as
 * possible alive across scavenges.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { defer } from '../http/defer';
import { parseUrl } from '../http/parse-url';
import { enterRouter, isTracingActive } from '../tracing/channels';
import { Layer, handleRequest, truthy, type Handler, type NextFunction } from './layer';
import { LayerCursor } from './layer-cursor';
import { notePassedError, notePlainNext } from './passed-errors';
import { layersOf } from './stack-edits';
import { appendMethods, answerOptions } from './automatic-options';
import { mergeParams, type Params } from './merge-params';
import { getProtohost, restoreUrl, stripMountPath, type MountState } from './mount-path';
import { processParams } from './params';
import type { Route } from './route';
import type { Router } from './index';

/** What the router reads and writes on a request. */
export interface RoutedRequest extends IncomingMessage {
  baseUrl?: string;
  originalUrl?: string;
  params?: Params;
  next?: NextFunction;
  route?: Route;
}

/** Layer's own methods: where something replaced them, every layer goes through the walk. */
const layerMatch = Layer.prototype.match;
const layerHandleRequest = Layer.prototype.handle_request;

/** After this many layers run synchronously, dispatch continues on a fresh stack. */
const MAX_SYNC_DEPTH = 100;

/**
 * Routers entered, or left for the router around them, on the current call stack. A
 * router mounted in itself (`tree.use('/:segment', tree)`) nests as deep as the path
 * has segments, and each level adds frames to the stack, on the way in and again on
 * the way out; past MAX_NESTED_ROUTERS the next entry or exit continues on a fresh
 * stack. Without it, a long path overflows the stack (Express 4 answers 500), and with
 * a tracing subscriber the overflow can land in the subscriber, which Node rethrows as
 * an uncaught exception. Counted without `finally`, which would keep V8 (Node 20) from
 * inlining `start` into the app's entry; a continuation starts from zero.
 */
let nestedRouters = 0;
const MAX_NESTED_ROUTERS = 64;

export class Dispatch extends LayerCursor implements MountState {
  // The fields are `declare`d and set in the constructor, in one place: emitted as
  // class fields they are defined one by one on each new object, which cost Node 26
  // about 1.5% more instructions per `hello` request.
  declare readonly router: Router;
  declare readonly req: RoutedRequest;
  declare readonly res: ServerResponse;
  declare readonly out: NextFunction;
  declare readonly next: NextFunction;
  // The mount path of the layer running now (mount-path.ts), put back by the next `next()`.
  declare readonly protohost: string;
  declare removed: string;
  declare slashAdded: boolean;
  /** Layers run on this call stack since the last one returned. */
  declare sync: number;
  declare paramCalled: Record<string, ParamCall> | undefined;
  /**
   * Methods of the routes that matched an OPTIONS request without handling it; a list
   * only when the request entered the router as OPTIONS, as Express answers only then
   * (method-override turning a POST into OPTIONS gets no automatic answer).
   */
  declare readonly allowed: string[] | undefined;
  /**
   * `req.url` when `runPlain` ran the layer running now, undefined once the walk has
   * looked at anything else: while it still equals `req.url`, that layer's `next()` may
   * go straight on to the next middleware at `/` (see `continuePlainRun`).
   */
  declare plainRunUrl: string | undefined;
  /** What the request had when it entered this router, restored when it leaves. */
  declare readonly parentParams: Params | undefined;
  declare readonly parentUrl: string;
  declare readonly savedBaseUrl: string | undefined;
  declare readonly savedNext: NextFunction | undefined;

  constructor(router: Router, req: RoutedRequest, res: ServerResponse, out: NextFunction) {
    super(router);
    this.router = router;
    this.req = req;
    this.res = res;
    this.out = out;
    this.protohost = getProtohost(req.url) || '';
    this.removed = '';
    this.slashAdded = false;
    this.sync = 0;
    this.paramCalled = undefined;
    this.allowed = req.method === 'OPTIONS' ? [] : undefined;
    this.plainRunUrl = undefined;
    this.parentParams = req.params;
    this.parentUrl = req.baseUrl || '';
    this.savedBaseUrl = req.baseUrl;
    this.savedNext = req.next;
    this.next = nextFor(this);
  }

  /** Enters the router: the first layer runs (on a fresh stack when routers nest deep: see nestedRouters). */
  start(): void {
    if (nestedRouters >= MAX_NESTED_ROUTERS) {
      defer(startOnFreshStack, this);
      return;
    }
    nestedRouters++;
    this.begin();
    nestedRouters--;
  }

  /** @internal What `start` does, now (`startOnFreshStack` calls it too). */
  begin(): void {
    const req = this.req;
    enterRouter();
    req.next = this.next;
    req.baseUrl = this.parentUrl;
    req.originalUrl = req.originalUrl || req.url;
    const ran = this.runLeadingInPlace();
    if (ran < 0) return;
    this.sync = ran;
    if (ran === 0) this.step(undefined);
    else this.stepAfterLeading();
  }

  /**
   * The walk on from the leading layers run in place. In Express it runs inside
   * `expressInit`'s `next()`, so what the walk itself throws (a param callback that
   * throws after its `next(err)` reached the final handler: `paramCallback` then reads
   * the restored, undefined `req.params`) is caught by that layer and goes on as
   * `next(err)`. Uncaught here, it left the server's `request` event and ended the process.
   */
  private stepAfterLeading(): void {
    try {
      this.step(undefined);
    } catch (err) {
      this.step(err);
    }
  }

  /**
   * Leaves the router for the one around it, now (on a fresh stack when routers nest deep:
   * see nestedRouters). Without an error, a `next()` that entered no layer: noted for the
   * rejection of a handler's promise (passed-errors.ts), which would otherwise take a
   * wrapper's `next(undefined)` that ended the walk for no `next()` at all.
   */
  private leave(err: unknown): void {
    if (err === undefined) notePlainNext(this.req);
    if (nestedRouters >= MAX_NESTED_ROUTERS) {
      defer(leaveOnFreshStack, this, err);
      return;
    }
    nestedRouters++;
    leaveRouter(this, err);
    nestedRouters--;
  }

  /** `leave` on the next turn, for a walk past the last layer (see `leave` for the note). */
  private leaveSoon(err: unknown): void {
    if (err === undefined) notePlainNext(this.req);
    defer(leaveRouter, this, err);
  }

  /**
   * Runs the layers every app puts first in its router (`query`, `expressInit`) in
   * place: their work, without a trip through `next` and the walk for each. Every
   * request of every app passes them, and the walk costs more than their work. Only
   * while nothing could tell: each is at the front with its own function (nothing
   * wrapped it), Layer's `match` and `handle_request` are webapp's, no tracing channel
   * listens, and the path parses (else the walk runs no layer). What differs from the
   * walk is unseen: a replaced `process_params` would see the layers' `params`, so
   * it sends them through the walk too. Each layer is left with the `path` and an
   * empty `params` as the walk's match leaves them (code that lists the stack reads
   * them). Returns how many ran, or -1 when one threw and its error went on.
   */
  private runLeadingInPlace(): number {
    const stack = layersOf(this.router);
    // Routers other than an app's have none: nothing more to ask.
    if (stack.length === 0 || stack[0].inPlaceWork() === undefined) return 0;
    if (isTracingActive() || this.router.process_params !== processParams || getPathname(this.req) == null) return 0;
    // The empty `params` Express's walk gives the request before each of these layers:
    // the request's own before expressInit gives it the app's prototype (past any
    // accessor of the app's), and what an automatic OPTIONS answer shows when nothing
    // after them matches.
    this.req.params = {};
    let ran = 0;
    for (; ran < stack.length; ran++) {
      const layer = stack[ran];
      const work = layer.inPlaceWork();
      if (work === undefined || layer.regexp.fast_slash !== true) break;
      if (layer.match !== layerMatch || layer.handle_request !== layerHandleRequest) break;
      layer.params = layer.noParams;
      layer.path = '';
      try {
        work(this.req, this.res, this.next);
      } catch (err) {
        // As the walk goes on after a layer that threw: with the error, from the next layer.
        this.skipTo(ran + 1);
        this.sync = ran + 1;
        this.step(err);
        return -1;
      }
    }
    this.skipTo(ran);
    return ran;
  }

  /** `next(err)`: finds the next layer that matches and runs it, or leaves the router. */
  step(err: unknown): void {
    if (err === undefined) {
      if (this.continuePlainRun()) return;
    } else notePassedError(this.req, err);
    this.plainRunUrl = undefined;
    // `typeof` first: `err` is mostly undefined, sometimes an Error, and compared with a
    // string as it is, V8 compiles each comparison to a call of its generic StrictEqual
    // (about 20 instructions, twice per layer); after the `typeof` test it is a string compare.
    const signal = typeof err === 'string';
    let layerError = signal && err === 'route' ? this.afterRouteSignal() : err;
    // Tested here rather than in restoreUrl: this runs for every layer, and keeping the
    // rare work out of line leaves V8 room to inline the rest of the walk into it.
    if (this.removed.length !== 0 || this.slashAdded) restoreUrl(this);

    if (signal && layerError === 'router') {
      defer(leaveRouter, this, null);
      return;
    }
    if (this.exhausted) {
      this.leaveSoon(layerError);
      return;
    }
    // Why: a long chain of synchronous middleware would otherwise grow the call
    // stack without bound; yielding every 100 layers keeps it flat.
    if (++this.sync > MAX_SYNC_DEPTH) {
      defer(this.next, err);
      return;
    }
    const req = this.req;
    const path = getPathname(req);
    if (path == null) {
      this.leave(layerError);
      return;
    }

    const router = this.router;
    // Webapp's own `process_params` has nothing to do for a layer without param callbacks.
    const ownParams = router.process_params === processParams;
    // Without a pending error, tracing or a replaced `process_params`, a middleware at `/`
    // runs straight from here (see `plainMiddleware`): most middleware is mounted there.
    let plain = layerError === undefined && ownParams && !isTracingActive();
    this.seek(path);
    let layer: Layer | undefined;
    while ((layer = this.nextLayer()) !== undefined) {
      if (plain) {
        const fn = plainMiddleware(layer);
        if (fn !== undefined) {
          this.runPlain(layer, fn);
          return;
        }
      }
      const match = matchLayer(layer, path);
      if (match !== true) {
        if (typeof match !== 'boolean') {
          // A pattern that threw: the error goes to the layers after it, so none is plain.
          layerError = layerError || match;
          plain = false;
        }
        continue;
      }
      const route = layer.route;
      // A middleware matches on its path alone; a route needs no pending error and its method.
      if (route === undefined || (!layerError && routeAccepts(this, route, req.method as string))) break;
    }
    if (layer === undefined) {
      this.leave(layerError);
      return;
    }

    const route = layer.route;
    if (truthy(route)) req.route = route;
    req.params = truthy(router.mergeParams) ? mergeParams(layer.params!, this.parentParams) : layer.params;
    // Read now: the layer's path belongs to its last match, which another request may redo while params run.
    const layerPath = layer.path!;
    if (ownParams && (layer.keys.length === 0 || !hasParamHandlers(router, layer))) {
      // The common case needs no param callbacks, so no continuation closure either.
      this.enter(layer, layerError, layerPath, path);
      return;
    }
    this.enterAfterParams(layer, layerError, layerPath, path);
  }

  /**
   * What `next('route')` leaves pending. Sent by a middleware, null, as in Express's
   * router; sent by a route's handler, nothing: Express's route answers it with a plain
   * `next()` of the router's, and a route of one handler is given the router's `next`
   * itself (Route.dispatch), so the signal arrives here from the route's layer. Null or
   * undefined only shows when the walk ends: `app.handle`'s or a router's callback gets it.
   */
  private afterRouteSignal(): null | undefined {
    return this.previousLayer()?.route !== undefined ? undefined : null;
  }

  /**
   * `next()` in a run of middleware at `/`, taken without the walk: when the layer
   * calling it was run by `runPlain` and nothing the walk reads has changed since (the
   * same `req.url`, so the same path and no mount path to put back; the same layers
   * to look at, see LayerCursor.peekLayer; no tracing; webapp's `process_params`), the walk
   * would run the next layer if it is plain, and so does this, in about 70 fewer
   * instructions per layer. False when the walk must look (it then checks everything).
   */
  private continuePlainRun(): boolean {
    const url = this.plainRunUrl;
    if (url === undefined || url !== this.req.url || this.sync >= MAX_SYNC_DEPTH) return false;
    const layer = this.peekLayer();
    if (layer === undefined || this.router.process_params !== processParams || isTracingActive()) return false;
    const fn = plainMiddleware(layer);
    if (fn === undefined) return false;
    this.sync++;
    this.advance();
    this.runPlain(layer, fn);
    return true;
  }

  /**
   * Runs a middleware `plainMiddleware` returned: what `match`, `enter` and
   * `handle_request` would have done for it, without the checks they make.
   */
  private runPlain(layer: Layer, fn: Handler): void {
    // A fresh `params` for the request at every layer, as Express gives. The layer is
    // given its own empty object instead of the same one: a layer lives in the old
    // generation, and storing a new object in it costs V8 a write-barrier call per
    // layer per request (about 60 instructions, 5% of a chain of middleware).
    const params = {};
    // A copy of a layer (`Object.assign(Object.create(Layer.prototype), layer)`) has none
    // of webapp's own fields, which are not enumerable: it gets a new one, as in Express.
    layer.params = layer.noParams ?? {};
    layer.path = '';
    this.plainRunUrl = this.req.url;
    this.req.params = truthy(this.router.mergeParams) ? mergeParams(params, this.parentParams) : params;
    handleRequest.call(layer, fn, this.req, this.res, this.next);
    this.sync = 0;
  }

  /**
   * Runs the router's param callbacks for the layer's params, then the layer. A method
   * of its own because of the closure: V8 gives a function whose variables a closure
   * captures a context object on every call, taken or not, and `step` runs per layer.
   */
  private enterAfterParams(layer: Layer, layerError: unknown, layerPath: string, path: string): void {
    this.router.process_params(layer, (this.paramCalled ??= {}), this.req, this.res, (paramErr?: unknown) => {
      // `next('route')` from a param callback leaves null pending, as in Express's router
      // (whose callback then gets null when nothing else matches).
      if (paramErr) this.next(layerError || (paramErr === 'route' ? null : paramErr));
      else this.enter(layer, layerError, layerPath, path);
    });
  }

  /** Runs the matched layer, a `use` layer with its mount path stripped from `req.url`. */
  private enter(layer: Layer, layerError: unknown, layerPath: string, path: string): void {
    // Most middleware is mounted at `/` (an empty layer path): nothing to strip, and no call.
    if (layer.route !== undefined || layerPath.length === 0 || stripMountPath(this, layerPath, path))
      callLayer(layer, layerError, this.req, this.res, this.next);
    else this.next(layerError);
    this.sync = 0;
  }
}

function startOnFreshStack(dispatch: Dispatch): void {
  nestedRouters = 1;
  dispatch.begin();
  nestedRouters = 0;
}

function leaveOnFreshStack(dispatch: Dispatch, err: unknown): void {
  nestedRouters = 1;
  leaveRouter(dispatch, err);
  nestedRouters = 0;
}

/**
 * The `next` a router's layers receive. A closure that captures only the dispatch,
 * named `next` as Express's is: calling it costs about 35 instructions less per layer
 * than the bound method it replaces (no bound-function trampoline), and it keeps alive
 * exactly what a bound method would. (An arrow function made in the constructor kept
 * the constructor's whole context alive across scavenges, and V8 doubled the young
 * generation: see bench/README.md "Profiles".)
 */
function nextFor(dispatch: Dispatch): NextFunction {
  return function next(err?: unknown): void {
    dispatch.step(err);
  };
}

/** Whether a matched route runs for this method; an unhandled OPTIONS collects the route's methods for the answer. */
function routeAccepts(dispatch: Dispatch, route: Route, method: string): boolean {
  if (route._handles_method(method)) return true;
  if (method === 'OPTIONS' && dispatch.allowed !== undefined) appendMethods(dispatch.allowed, route._options());
  // Express runs a route for HEAD even when it has no GET or HEAD handler.
  return method === 'HEAD';
}

/**
 * Leaving the router puts back what it changed on the request and goes on to the
 * router's caller; an unhandled OPTIONS request is answered instead, from the methods
 * of the routes that matched, with the request as the walk left it (Express answers
 * before its restore step, which runs only if the answer fails: a logger's `finish`
 * listener, or a `res.send` wrapper, reads the last layer's `params` and `baseUrl`).
 */
function leaveRouter(dispatch: Dispatch, err: unknown): void {
  const allowed = dispatch.allowed;
  if (allowed !== undefined && allowed.length > 0 && !err) {
    answerOptions(dispatch.res, allowed, (failure) => restoreAndLeave(dispatch, failure));
  } else {
    restoreAndLeave(dispatch, err);
  }
}

function restoreAndLeave(dispatch: Dispatch, err: unknown): void {
  const req = dispatch.req;
  req.baseUrl = dispatch.savedBaseUrl;
  req.next = dispatch.savedNext;
  req.params = dispatch.parentParams;
  dispatch.out(err);
}

/**
 * The one place a router invokes a layer: an error goes to the layer's error
 * handler, anything else to its request handler. Through the Layer's methods, so
 * instrumentation that wraps `Layer.prototype.handle_request` still sees every call.
 */
function callLayer(layer: Layer, error: unknown, req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
  if (truthy(error)) layer.handle_error(error, req, res, next);
  else layer.handle_request(req, res, next);
}

/** One param's outcome for the request, replayed when the same value comes again. */
export interface ParamCall {
  error: unknown;
  match: unknown;
  value: unknown;
}

function hasParamHandlers(router: Router, layer: Layer): boolean {
  const params = router.params;
  for (const key of layer.keys) {
    if (Object.prototype.hasOwnProperty.call(params, key.name)) return true;
  }
  return false;
}

/**
 * The function of a layer the walk may call without `match`, `enter` and
 * `handle_request` between, or undefined. Only a middleware mounted at `/` (it
 * matches every path and has no mount path to strip) whose function handles requests
 * (three parameters or fewer), with Layer's own `match` and `handle_request` (a
 * wrapper of either must see every call, as instrumentation that patches the
 * prototype expects).
 */
function plainMiddleware(layer: Layer): Handler | undefined {
  if (layer.route !== undefined || layer.regexp.fast_slash !== true) return undefined;
  if (layer.match !== layerMatch || layer.handle_request !== layerHandleRequest) return undefined;
  return layer.requestHandler();
}

/** The layer's match, or the error its pattern threw (a malformed percent-encoding). */
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
