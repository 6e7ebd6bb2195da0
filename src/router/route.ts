/**
 * A Route is one path with handlers per HTTP method (`app.route(path).get(...)`).
 * `route.path`, `route.stack` and `route.methods` keep Express 4's shapes because
 * tools that list endpoints read them.
 */
import { METHODS, type IncomingMessage, type ServerResponse } from 'node:http';
import { callableTwin } from '../callable-class';
import { defineClassMembers, enumerateClassMethods } from '../define-prototype';
import { defer } from '../http/defer';
import { Layer, truthy, type Handler, type NextFunction } from './layer';
import { methodMembers, type MethodMembers } from './methods';
import { notePassedError, notePlainNext } from './passed-errors';
import type { PathPattern } from './path-pattern';

/** After this many handlers called synchronously, dispatch continues on a fresh stack. */
const MAX_SYNC_DEPTH = 100;

type RouteRequest = IncomingMessage & { route?: Route };

/**
 * `route.get(...handlers)`, `route.post(...)`...: installed on the prototype for
 * every method below, so they are declared by merging rather than written in the class.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface Route extends MethodMembers<(...handlers: unknown[]) => Route> {}

/** Lower-case forms of the method names Node parses: looked up, not lower-cased, per request. */
const LOWER_METHODS: Record<string, string> = Object.create(null) as Record<string, string>;
for (const name of METHODS) LOWER_METHODS[name] = name.toLowerCase();

/** A method name in lower case (a non-string is returned as it is, as Express does). */
function lowerMethod(method: unknown): unknown {
  // GET first: most requests are, and a comparison with a constant is cheaper than
  // the lookup in LOWER_METHODS (an object of ~40 keys V8 keeps as a dictionary).
  if (method === 'GET') return 'get';
  return typeof method === 'string' ? LOWER_METHODS[method] || method.toLowerCase() : method;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Route {
  // Declared and assigned in the constructor, in Express's order, rather than emitted
  // as class fields (defined as own properties): an accessor an app or a package puts
  // on `Route.prototype` must see these assignments, as it does on Express.
  declare path: PathPattern;
  declare stack: Layer[];
  declare methods: Record<string, boolean>;

  constructor(path: PathPattern) {
    initRoute(this, path);
  }

  /** Whether this route answers `method`; HEAD is answered by GET handlers unless HEAD has its own. */
  _handles_method(method: string): boolean {
    if (this.methods._all) return true;
    let name = lowerMethod(method) as string;
    if (name === 'head' && !this.methods.head) name = 'get';
    return Boolean(this.methods[name]);
  }

  /** The methods this route answers, upper case, for an automatic OPTIONS response. */
  _options(): string[] {
    const names = Object.keys(this.methods);
    if (this.methods.get && !this.methods.head) names.push('head');
    return names.map((name) => name.toUpperCase());
  }

  /** Runs the handlers registered for the request's method, in order. */
  dispatch(req: IncomingMessage, res: ServerResponse, done: NextFunction): void {
    const stack = this.stack;
    if (stack.length === 0) {
      done();
      return;
    }
    let method = lowerMethod(req.method) as string | undefined;
    if (method === 'head' && !this.methods.head) method = 'get';
    (req as RouteRequest).route = this;

    if (stack.length === 1) {
      // One handler (`app.get(path, handler)`, the usual route): whatever it passes
      // to next, `router`, an error or nothing, the route's own next would hand it on
      // to the router's as it is, so the handler gets the router's next and the route
      // needs no loop of its own. (`route`, which the route's next turns into nothing,
      // the router's tells from a middleware's: Dispatch.afterRouteSignal.)
      const only = stack[0];
      if (only.method === undefined || only.method === method) only.handle_request(req, res, done);
      else done();
      return;
    }
    runHandlers(stack, method, req, res, done);
  }

  /** Handlers for every method. */
  all(...handlers: unknown[]): this {
    for (const handle of flattenHandlers(handlers)) {
      if (typeof handle !== 'function') {
        throw new TypeError(
          'Route.all() requires a callback function but got a ' + Object.prototype.toString.call(handle),
        );
      }
      const layer = new Layer('/', {}, handle as Handler);
      layer.method = undefined;
      this.methods._all = true;
      this.stack.push(layer);
    }
    return this;
  }

  /** Adds handlers for one method (what `route.get(...)`, `route.post(...)`... call). */
  addMethodHandlers(method: string, handlers: unknown[]): this {
    for (const handle of flattenHandlers(handlers)) {
      if (typeof handle !== 'function') {
        throw new Error(
          'Route.' + method + '() requires a callback function but got a ' + Object.prototype.toString.call(handle),
        );
      }
      const layer = new Layer('/', {}, handle as Handler);
      layer.method = method;
      this.methods[method] = true;
      this.stack.push(layer);
    }
    return this;
  }
}

// Enumerable, before the HTTP methods, as Express's prototype assignments make them.
enumerateClassMethods(Route, ['_handles_method', '_options', 'dispatch', 'all']);
defineClassMembers(Route, {
  methods: methodMembers(
    // Anonymous, as Express's are: `route.get.name` is ''.
    (method) =>
      function (this: Route, ...handlers: unknown[]) {
        return this.addMethodHandlers(method, handlers);
      },
  ),
});

/**
 * A route's handlers for one request, in order, each passed a `next` that calls the
 * one after it (skipping other methods' handlers) and leaves through `done`.
 */
function runHandlers(
  stack: Layer[],
  method: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  done: NextFunction,
): void {
  let index = 0;
  let sync = 0;
  const next: NextFunction = (err?: unknown) => {
    if (err !== undefined) notePassedError(req, err);
    else notePlainNext(req);
    // `typeof` first, as in Dispatch.step: a bare comparison with a string compiles to a generic call.
    if (typeof err === 'string') {
      if (err === 'route') return done();
      if (err === 'router') return done(err);
    }
    let layer: Layer;
    // Each layer looked at is a step, those of other methods too, as in Express (whose
    // `next` calls itself to skip one): an error crossing `app.all(path, a, b, c)` (a
    // layer for every method) goes on on a later tick there, which code after its
    // `next()` returns can see.
    do {
      if (index >= stack.length) return done(err);
      // Why: a long chain of synchronous handlers would otherwise grow the call
      // stack without bound; yielding every 100 steps keeps it flat.
      if (++sync > MAX_SYNC_DEPTH) {
        // The rest starts on a fresh stack (in Express the frames that return reset it).
        sync = 0;
        defer(next, err);
        return;
      }
      layer = stack[index++];
    } while (layer.method !== undefined && layer.method !== method);
    if (truthy(err)) layer.handle_error(err, req, res, next);
    else layer.handle_request(req, res, next);
    sync = 0;
  };
  next();
}

/** Flattens nested arrays of handlers, as Express's array-flatten does. */
export function flattenHandlers(items: readonly unknown[], out: unknown[] = []): unknown[] {
  for (const item of items) {
    if (Array.isArray(item)) flattenHandlers(item, out);
    else out.push(item);
  }
  return out;
}

/**
 * The arguments of `use([path], ...callbacks)`: a first argument that is not a
 * function (nor an array starting with one) is the path; the rest, flattened,
 * are the callbacks. The path defaults to `/`.
 */
export function splitUseArguments(args: readonly unknown[]): { path: PathPattern; callbacks: unknown[] } {
  let first = args[0];
  while (Array.isArray(first) && first.length !== 0) first = first[0];
  if (typeof args[0] === 'function' || typeof first === 'function')
    return { path: '/', callbacks: flattenHandlers(args) };
  return { path: args[0] as PathPattern, callbacks: flattenHandlers(args.slice(1)) };
}

/**
 * What Route's constructor does, to `route`: also run on an object of an ES5 subclass
 * (`ExpressRoute.call(this, path)`) by the `Route` the package exports (see
 * callable-class.ts).
 */
function initRoute(route: Route, path: PathPattern): void {
  route.path = path;
  route.stack = [];
  route.methods = {};
}

/**
 * Route as Express exports it (`webapp.Route`, `lib/router/route`): callable without
 * `new`, and on an object of a subclass.
 */
export const CallableRoute = callableTwin(Route, initRoute);
