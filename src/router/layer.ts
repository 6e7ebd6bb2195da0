/**
 * A Layer is one entry of a router's (or a route's) stack: a path pattern and the
 * function to call when it matches. Its field names (`handle`, `name`, `params`,
 * `path`, `keys`, `regexp`, `route`, `method`) are read by ecosystem code that
 * walks `app._router.stack`, so they are kept as Express 4 has them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { types } from 'node:util';
import { callableTwin } from '../callable-class';
import { defineHiddenValue, enumerateClassMethods } from '../define-prototype';
import { lazy } from '../http/lazy';
import { isTracingActive } from '../tracing/channels';
import {
  compilePattern,
  type CompiledPattern,
  type PathKey,
  type PathPattern,
  type PatternOptions,
} from './path-pattern';
import type { Route } from './route';
import { handlerPromiseSettled, wasJustPassed, watchHandlerPromise } from './passed-errors';
import { noteStackEdit } from './stack-edits';

export type { NextFunction } from '../types/public';
import type { NextFunction } from '../types/public';

/** The code that publishes `webapp:layer` traces: loaded when a request first finds a subscriber. */
const layerTracing = lazy(() => require('../tracing/layer') as typeof import('../tracing/layer'));

/**
 * Any middleware, handler or error handler. Declared through a method signature so
 * that functions with typed parameters (req: Request, ...) are assignable to it.
 */
export type Handler = { bivarianceHack(...args: unknown[]): unknown }['bivarianceHack'];

/**
 * On the function of a layer webapp puts at the front of every app's router (`query`,
 * `expressInit`): the layer's work without the call to `next`, which the dispatch
 * may run in place of calling the layer (see `runLeadingInPlace` in dispatch.ts).
 */
const kInPlace = Symbol('webapp.inPlace');

/** The work of an in-place layer: what it does to the request and response before its `next()`. */
export type InPlaceWork = (req: IncomingMessage, res: ServerResponse, next: NextFunction) => void;

/** Marks `fn` as a layer function whose work `work` is, run in place while nothing wraps it. */
export function runnableInPlace<T extends Handler>(fn: T, work: InPlaceWork): T {
  Object.defineProperty(fn, kInPlace, { value: work });
  return fn;
}

/**
 * `Boolean(value)` with `undefined` and `false` tested first. Why: for a value of
 * unknown type V8 compiles a bare truth test to a chain of checks (false, '', 0,
 * NaN, 0n, document.all); the values the walk mostly sees are undefined or false,
 * and one comparison settles those.
 */
export function truthy(value: unknown): boolean {
  return value !== undefined && value !== false && Boolean(value);
}

/**
 * The path each layer was made with, by its `regexp`: what a copy of a layer (which has
 * `regexp`, but none of the fields `defineHiddenValue` hides) still answers to, for the
 * route templates of tracing.
 */
const pathPatterns = new WeakMap<object, PathPattern>();

/** One descriptor for every layer's `regexp`: the same accessor pair keeps all layers of one shape. */
const regexpMember: PropertyDescriptor = {
  configurable: true,
  enumerable: true,
  get(this: { regexpValue: CompiledPattern['regexp'] }) {
    return this.regexpValue;
  },
  set(this: { regexpValue: CompiledPattern['regexp'] }, value: CompiledPattern['regexp']) {
    this.regexpValue = value;
    noteStackEdit();
  },
};

/** The path a layer was made with (`/api`, `/users/:id`), also for a copy of one; undefined for one built otherwise. */
export function pathPatternOf(layer: Layer): PathPattern | undefined {
  return layer.pathPattern ?? (layer.regexp == null ? undefined : pathPatterns.get(layer.regexp));
}

export class Layer {
  // Every field is `declare`d and assigned in the constructor, in Express's order
  // (handle, name, params, path, keys, regexp, then webapp's own): an assignment goes
  // through an accessor code put on Layer.prototype first, as Express's constructor
  // does (a `handle` accessor that wraps each function, as express-async-errors
  // defines), where a class field would define the layer's own property past it.
  declare handle: Handler;
  declare name: string;
  declare params: Record<string, string> | undefined;
  declare path: string | undefined;
  declare keys: PathKey[];
  /**
   * Express's `layer.regexp`, an enumerable property of the layer's own, as there. An
   * accessor, so that code reassigning it counts as an edit of the stack the layer
   * is in (stack-edits.ts): the layer index must then file the layer anew.
   */
  declare regexp: CompiledPattern['regexp'];
  /**
   * Where the `regexp` accessor keeps its value: a hidden field, not an ECMAScript
   * private one, whose `#private` in the declaration files TypeScript refuses in a
   * project compiled for ES5 (and the accessor works on an object made from a layer).
   */
  declare private regexpValue: CompiledPattern['regexp'];
  declare route: Route | undefined;
  /** The HTTP method (lower case) of a route's layer; undefined for `all`. */
  declare method: string | undefined;
  /** @internal the compiled matcher behind `regexp` */
  declare readonly pattern: CompiledPattern;
  /** @internal the path as registered: tracing joins these into route templates */
  declare readonly pathPattern: PathPattern;
  /**
   * @internal The empty `params` the dispatch leaves on a middleware at `/` it ran:
   * one of the layer's own (frozen: never shared by requests), not a new one per match.
   */
  declare readonly noParams: Record<string, string>;
  /**
   * @internal The in-place work of the function the layer was made with (see kInPlace),
   * read once here: a symbol-keyed read of each router's first function per request
   * went through V8's generic keyed-load code.
   */
  declare private readonly inPlace: InPlaceWork | undefined;
  declare private readonly inPlaceOf: Handler;

  constructor(path: PathPattern, options: PatternOptions | null | undefined, fn: Handler) {
    initLayer(this, path, options, fn);
  }

  /**
   * Matches a request path; on success stores `params` and the matched `path`
   * on the layer (as Express does: the router reads them right after).
   * A malformed percent-escape in a parameter throws a 400 error.
   */
  match(path: string | null | undefined): boolean {
    // Middleware mounted at `/` (most of it) matches every path: kept apart from the
    // pattern matching so V8 inlines this much into the router's loop.
    if (path != null && this.regexp.fast_slash) {
      this.params = {};
      this.path = '';
      return true;
    }
    return this.matchPattern(path);
  }

  private matchPattern(path: string | null | undefined): boolean {
    if (path == null) return this.noMatch();
    const regexp = this.regexp;
    if (regexp.fast_star) {
      this.params = { 0: decodeParam(path) as string };
      this.path = path;
      return true;
    }
    // `regexp` is the layer's as Express has it, and code may replace it: the compiled
    // pattern matches only for the expression it was compiled with. A layer code made
    // from the prototype without the constructor (and put in a stack) has none.
    const pattern = this.pattern as CompiledPattern | undefined;
    const found =
      pattern !== undefined && regexp === pattern.regexp ? pattern.exec(path) : (regexp.exec(path) ?? undefined);
    if (found === undefined) return this.noMatch();

    const params: Record<string, string> = {};
    this.params = params;
    this.path = found[0];
    const keys = this.keys;
    for (let i = 1; i < found.length; i++) {
      const name = keys[i - 1].name;
      const value = decodeParam(found[i]);
      // An unmatched optional group must not erase a value an earlier group of the
      // same name captured (arrays of patterns share key names).
      if (value !== undefined || !Object.prototype.hasOwnProperty.call(params, name)) {
        params[name] = value as string;
      }
    }
    return true;
  }

  private noMatch(): false {
    this.params = undefined;
    this.path = undefined;
    return false;
  }

  /**
   * The number of parameters `handle` declares, read once per function: a layer is
   * called for every request, and `Function#length` is an accessor V8 does not
   * inline. `handle` may be replaced (instrumentation wraps it), so it is compared.
   */
  private arity(): number {
    const fn = this.handle;
    if (fn !== this.arityOf) {
      this.arityOf = fn;
      this.knownArity = fn.length;
    }
    return this.knownArity;
  }

  declare private arityOf: Handler | undefined;
  declare private knownArity: number;

  /** Calls an error handler (a function declaring four parameters); others pass the error on. */
  handle_error(error: unknown, req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
    const arity = this.arity();
    if (arity !== 4) {
      next(error);
      return;
    }
    if (isTracingActive()) return layerTracing().traceLayer(this, error, req, res, next);
    invokeErrorHandler(this.handle, error, req, res, next);
  }

  /** @internal The work the dispatch may run in place of calling `handle` (see kInPlace), while nothing replaced it. */
  inPlaceWork(): InPlaceWork | undefined {
    return this.handle === this.inPlaceOf ? this.inPlace : undefined;
  }

  /** @internal The function, when it handles requests (declares three parameters or fewer). */
  requestHandler(): Handler | undefined {
    return this.arity() > 3 ? undefined : this.handle;
  }

  /** Calls a request handler; a function declaring four parameters is an error handler and is skipped. */
  handle_request(req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
    if (this.arity() > 3) {
      next();
      return;
    }
    if (isTracingActive()) {
      const tracing = layerTracing();
      return tracing.traceLayer(this, tracing.NO_ERROR, req, res, next);
    }
    // handleRequest's work written out: the handler's caller in a stack trace is this
    // frame, as in Express, one frame closer to what code inspects within the default
    // ten (express-rate-limit below).
    const fn = this.handle;
    try {
      // Called as a plain function, not as the layer's method: `this` is not the layer.
      forwardRejection(fn(req, res, next), next, req);
    } catch (err) {
      next(err);
    }
  }
}

// Enumerable, in Express's order, as its prototype assignments make them: code lists them
// or copies them onto a prototype of its own.
enumerateClassMethods(Layer, ['handle_error', 'handle_request', 'match']);

// Express 4 names this method's function `handle` (`Layer.prototype.handle_request =
// function handle`): stack traces read `Layer.handle [as handle_request]`, which code
// looks for (express-rate-limit's check that a limiter is not made per request), and
// `.name` reads `handle`.
Object.defineProperty(Layer.prototype.handle_request, 'name', { value: 'handle' });

/**
 * What `handle_error` does with a layer's function, for stacks that keep bare
 * functions (the 3.x router's route callbacks): only a function declaring four
 * parameters handles the error; a throw or a rejection goes to `next`.
 */
export function callErrorHandler(
  fn: Handler,
  error: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  next: NextFunction,
): void {
  if (fn.length !== 4) {
    next(error);
    return;
  }
  invokeErrorHandler(fn, error, req, res, next);
}

/** Runs an error handler; a throw or a rejection goes to `next`. */
function invokeErrorHandler(
  fn: Handler,
  error: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  next: NextFunction,
): void {
  // An error handler reached before the app's init layer linked the request to its
  // response (an error from a layer moved ahead of it, or from the query parser) gets
  // them linked: the app's `res.send` reads the response through `req.res` (`req.fresh`),
  // and threw halfway, after setting its headers.
  const linked = req as IncomingMessage & { res?: ServerResponse };
  if (linked.res === undefined) linked.res = res;
  try {
    forwardRejection(fn(error, req, res, next), next, req);
  } catch (err) {
    next(err);
  }
}

/**
 * What `handle_request` does with a layer's function: error handlers are
 * skipped; a throw or a rejection goes to `next`.
 */
export function callHandler(fn: Handler, req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
  if (fn.length > 3) {
    next();
    return;
  }
  handleRequest(fn, req, res, next);
}

/**
 * Runs a request handler; a throw or a rejection goes to `next`. The walk's run of
 * middleware at `/` (Dispatch.runPlain) calls it with the layer as `this`: in a stack
 * trace taken by the handler, the frame under it then reads `Layer.handleRequest`, as
 * under Express 5's router, where Express 4's walk shows `Layer.handle [as
 * handle_request]`. Code looks for either (express-rate-limit warns of a limiter made
 * per request when it finds one). Calling `handle_request` itself would give Express 4's
 * frame, but its call of the handler is shared by every layer, so V8 inlines none there:
 * 12% more instructions for 100 no-op middleware.
 */
export function handleRequest(
  this: Layer | void,
  fn: Handler,
  req: IncomingMessage,
  res: ServerResponse,
  next: NextFunction,
): void {
  try {
    forwardRejection(fn(req, res, next), next, req);
  } catch (err) {
    next(err);
  }
}

/**
 * Beyond Express 4: a handler that returns a rejected promise (an `async` function
 * that throws) reaches error handling as a thrown error would, instead of becoming
 * an unhandled rejection. A resolved promise changes nothing.
 *
 * Native promises only, which every `async` function returns. Express 4 ignores what a
 * handler returns, and some return a lazy "thenable" by accident, whose `then` starts
 * the work: `(req, res) => User.find({}, callback)` returns a Mongoose query, and
 * calling its `then` ran the query a second time (an `$inc` applied twice, or
 * Mongoose 6's "Query was already executed" as a 500 before the callback answered).
 *
 * Given the request, not when `next` was just given the same error for it by a wrapper
 * of the handler that returns the promise it watches (express-async-errors; see
 * passed-errors.ts): the error goes on once, as on Express with that wrapper. Nor, for
 * a rejection without a reason, when `next()` was called for the request since the
 * handler returned: the request has gone on (that wrapper's `next(undefined)`).
 */
export function forwardRejection(result: unknown, next: NextFunction, req?: IncomingMessage): void {
  if (isNativePromise(result)) passRejectionOn(result, next, req);
}

/**
 * Calls `onRejected` with the reason, as it is, when `result` is a native promise (of
 * any realm) that rejects: forwardRejection's test, for a caller that decides itself
 * what a rejection without a reason means (param callbacks, params.ts).
 */
export function whenRejected(result: unknown, onRejected: (reason: unknown) => void): void {
  if (isNativePromise(result)) result.then(undefined, onRejected);
}

/** A promise of this realm or another (a vm context, as Jest runs tests in); no other thenable. */
function isNativePromise(result: unknown): result is Promise<unknown> {
  // `then` first: most handlers return undefined or `res` (`(req, res) => res.send(...)`).
  return (
    result !== null &&
    typeof result === 'object' &&
    typeof (result as PromiseLike<unknown>).then === 'function' &&
    (result instanceof Promise || types.isPromise(result))
  );
}

/**
 * forwardRejection's work for a promise, in a function of its own: this function is
 * called for every layer a request runs, and kept this small V8 inlines it into the
 * router's walk (with the work below in its body, the walk of 100 middlewares cost 5%
 * more instructions).
 */
function passRejectionOn(promise: Promise<unknown>, next: NextFunction, req: IncomingMessage | undefined): void {
  if (req === undefined) {
    promise.then(undefined, (reason: unknown) => next(reason || new Error('Rejected promise')));
    return;
  }
  // Whether the request has gone on since: a router's walk gives it the `params` of
  // each layer it enters and puts its own back when it leaves; a route's handlers
  // share theirs, and the route's `next` is counted (passed-errors.ts).
  const params = (req as { params?: unknown }).params;
  const calledNextSince = watchHandlerPromise(req);
  promise.then(handlerPromiseSettled, (reason: unknown) => {
    // Without a reason, a wrapper passes `undefined`, and `next()` was just called.
    const wentOn = reason === undefined && ((req as { params?: unknown }).params !== params || calledNextSince());
    handlerPromiseSettled();
    if (wentOn || wasJustPassed(req, reason)) return;
    next(reason || new Error('Rejected promise'));
  });
}

/** URI-component decoding of a captured parameter; a malformed escape is a 400 error. */
export function decodeParam(value: string | undefined): string | undefined {
  if (typeof value !== 'string' || value.length === 0) return value;
  if (value.indexOf('%') === -1) return value;
  try {
    return decodeURIComponent(value);
  } catch (err) {
    if (err instanceof URIError) {
      err.message = "Failed to decode param '" + value + "'";
      // statusCode first: Express's `err.status = err.statusCode = 400` creates it first,
      // and an error handler's `res.json(err)` shows the fields in that order.
      (err as URIError & { status: number; statusCode: number }).statusCode = 400;
      (err as URIError & { status: number; statusCode: number }).status = 400;
    }
    throw err;
  }
}

/**
 * What Layer's constructor does, to `layer`: also run on an object of an ES5 subclass
 * by the `Layer` the package exports (`lib/router/layer`, a twin of the class that can
 * be called without `new`, see callable-class.ts).
 */
function initLayer(layer: Layer, path: PathPattern, options: PatternOptions | null | undefined, fn: Handler): void {
  // Options left out are none, as for Express (`options || {}`).
  const pattern = compilePattern(path, options || {});
  layer.handle = fn;
  layer.name = fn.name || '<anonymous>';
  layer.params = undefined;
  layer.path = undefined;
  layer.keys = pattern.keys;
  defineHiddenValue(layer, 'regexpValue', pattern.regexp);
  Object.defineProperty(layer, 'regexp', regexpMember);
  // `route` and `method` are not the constructor's, as in Express: the router gives its
  // layers `route`, a route its layers `method`, and code walking a stack tells them
  // apart by which they have (`'method' in layer`).
  // webapp's own fields, hidden: `Object.keys(layer)`, `JSON.stringify(stack)` and
  // `console.log(app._router.stack)` show Express's fields only.
  defineHiddenValue(layer, 'pattern', pattern);
  defineHiddenValue(layer, 'pathPattern', path);
  pathPatterns.set(pattern.regexp, path);
  defineHiddenValue(layer, 'noParams', Object.freeze({}));
  defineHiddenValue(layer, 'inPlace', (fn as { [kInPlace]?: InPlaceWork })[kInPlace]);
  defineHiddenValue(layer, 'inPlaceOf', fn);
  defineHiddenValue(layer, 'arityOf', undefined);
  defineHiddenValue(layer, 'knownArity', 0);
}

/** Layer as Express exports it: callable without `new`, and on an object of a subclass. */
export const CallableLayer = callableTwin(Layer, initLayer);
