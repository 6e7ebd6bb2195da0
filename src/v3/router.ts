/**
 * Express 3's router: routes kept per HTTP verb in `router.map` (what
 * `app.routes` exposes), matched in registration order; `req.params` is an array
 * holding numbered captures with named parameters as properties.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { defineClassMembers, enumerateClassMethods } from '../define-prototype';
import { parseUrl } from '../http/parse-url';
import { named } from '../named';
import {
  callErrorHandler,
  callHandler,
  decodeParam,
  forwardRejection,
  type Handler,
  type NextFunction,
} from '../router/layer';
import { methodMembers, methods, type MethodMembers } from '../router/methods';
import { flattenHandlers } from '../router/route';
import type { ParamDefinition, ParamHandler } from '../router/index';
import { compilePath3, type PathKey3 } from './path';

export type Callback3 = Handler;

/** 3.x `req.params`: an array (numbered captures) carrying named parameters as properties. */
export type Params3 = string[] & Record<string, string>;

interface RoutedRequest3 extends IncomingMessage {
  route?: Route3;
  params?: Params3;
  _route_index?: number;
}

interface OptionsResponse {
  set(field: string, value: string): { send(body: string): unknown };
}

/** The shared parameter decoding, failing with 3.x's error: a plain Error with status 400. */
function decodeParam3(value: string | undefined): string | undefined {
  try {
    return decodeParam(value);
  } catch {
    throw Object.assign(new Error("Failed to decode param '" + value + "'"), { status: 400 });
  }
}

export class Route3 {
  path: string | RegExp | Array<string | RegExp>;
  method: string;
  callbacks: Callback3[];
  keys: PathKey3[] = [];
  regexp: RegExp;
  params: Params3 = [] as unknown as Params3;

  constructor(
    method: string,
    path: string | RegExp | Array<string | RegExp>,
    callbacks: Callback3[],
    // Optional in Express 3, as any falsy value (`new express.Route('get', '/', fns)`).
    options?: { sensitive?: boolean; strict?: boolean } | null,
  ) {
    this.path = path;
    this.method = method;
    this.callbacks = callbacks;
    this.regexp = compilePath3(path, this.keys, options?.sensitive, options?.strict);
  }

  /** Matches a pathname; fills `params` (named keys as properties, the rest pushed as numbered). */
  match(path: string): boolean {
    const params = [] as unknown as Params3;
    this.params = params;
    const found = this.regexp.exec(path);
    if (!found) return false;
    for (let i = 1; i < found.length; i++) {
      const key = this.keys[i - 1];
      const value = decodeParam3(found[i]);
      if (key) params[key.name] = value as string;
      else params.push(value as string);
    }
    return true;
  }
}

/** `router.get(path, ...handlers)`...: installed on the prototype for every method below. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface Router3 extends MethodMembers<
  (path: string | RegExp | Array<string | RegExp>, ...handlers: unknown[]) => Router3
> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Router3 {
  map: Record<string, Route3[]> = {};
  params: Record<string, ParamHandler[]> = {};
  _params: ParamDefinition[] = [];
  caseSensitive: boolean | undefined;
  strict: boolean | undefined;
  /** The middleware `app.use(app.router)` mounts. */
  middleware: (req: IncomingMessage, res: ServerResponse, next: NextFunction) => void;

  constructor(options: { caseSensitive?: boolean; strict?: boolean } = {}) {
    this.caseSensitive = options.caseSensitive;
    this.strict = options.strict;
    // Named `router` for good (see named), as Express 3's: 3.x code finds it in
    // `app.stack` by `layer.handle.name === 'router'` to put middleware in front of the routes.
    this.middleware = named('router', (req: IncomingMessage, res: ServerResponse, next: NextFunction) =>
      this._dispatch(req, res, next),
    );
  }

  param(name: string | ParamDefinition, fn?: unknown): this | undefined {
    if (typeof name === 'function') {
      this._params.push(name);
      return undefined;
    }
    let callback = fn;
    for (const definition of this._params) {
      const replaced = definition(name, callback);
      if (replaced) callback = replaced;
    }
    if (typeof callback !== 'function') throw new Error('invalid param() call for ' + name + ', got ' + callback);
    (this.params[name] = this.params[name] || []).push(callback as ParamHandler);
    return this;
  }

  /** Runs matching routes in order: param callbacks first, then the route's callbacks. */
  _dispatch(rawReq: IncomingMessage, res: ServerResponse, next: NextFunction): void {
    const req = rawReq as RoutedRequest3;
    const paramHandlers = this.params;
    const pass = (start: number, passedErr?: unknown): void => {
      let route: Route3 | undefined;
      try {
        route = this.matchRequest(req, start);
      } catch (err) {
        next(err);
        return;
      }
      req.route = route;
      if (!route && req.method === 'OPTIONS') return this._options(req, res, next);
      if (!route) return next(passedErr);
      const matched = route;
      req.params = matched.params;
      const keys = matched.keys;
      let keyIndex = 0;
      let callbackIndex = 0;
      let paramIndex = 0;
      let key: PathKey3 | undefined;
      let paramValue: unknown;
      let callbacks: ParamHandler[] | undefined;

      const nextRoute = (err?: unknown) => pass((req._route_index ?? 0) + 1, err);

      const param = (err?: unknown): void => {
        paramIndex = 0;
        key = keys[keyIndex++];
        paramValue = key && req.params![key.name];
        callbacks = key && paramHandlers[key.name];
        try {
          if (err === 'route') nextRoute();
          else if (err) runCallbacks(err);
          else if (callbacks && paramValue !== undefined) paramCallback();
          else if (key) param();
          else runCallbacks();
        } catch (e) {
          param(e);
        }
      };
      const paramCallback = (err?: unknown): void => {
        const fn = callbacks![paramIndex++];
        if (err || !fn) return param(err);
        forwardRejection(fn(req, res, paramCallback, paramValue, key!.name), paramCallback);
      };
      // The route's callbacks run as a Layer runs its function (arity picks request or error handlers).
      const runCallbacks = (err?: unknown): void => {
        const fn = matched.callbacks[callbackIndex++];
        if (err === 'route') nextRoute();
        else if (!fn) nextRoute(err);
        else if (err) callErrorHandler(fn, err, req, res, runCallbacks);
        else callHandler(fn, req, res, runCallbacks);
      };
      param(passedErr);
    };
    pass(0);
  }

  /** Unhandled OPTIONS: 200 with `Allow` listing the verbs of every route that matches the path. */
  _options(req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
    const body = this._optionsFor(parseUrl(req)?.pathname ?? '/').join(',');
    if (!body) return next();
    (res as unknown as OptionsResponse).set('Allow', body).send(body);
  }

  _optionsFor(path: string): string[] {
    const allowed: string[] = [];
    for (const method of methods) {
      if (method === 'options') continue;
      const routes = this.map[method] ?? (method === 'head' ? this.map.get : undefined);
      if (!routes) continue;
      if (routes.some((route) => route.match(path))) allowed.push(method.toUpperCase());
    }
    return allowed.sort();
  }

  /**
   * The first route whose verb and path match, searching the verb's routes from
   * index `start` (any falsy value is 0, as in 3.x); HEAD falls back to GET routes.
   */
  matchRequest(req: IncomingMessage & { _route_index?: number }, start?: number, head = false): Route3 | undefined {
    const from = start || 0;
    let method = (req.method ?? '').toLowerCase();
    const path = parseUrl(req)?.pathname ?? '';
    if (!head && method === 'head') {
      const route = this.matchRequest(req, from, true);
      if (route) return route;
      method = 'get';
    }
    const routes = this.map[method];
    if (!routes) return undefined;
    for (let i = from; i < routes.length; i++) {
      if (routes[i].match(path)) {
        req._route_index = i;
        return routes[i];
      }
    }
    return undefined;
  }

  match(method: string, url: string, start?: number, head?: boolean): Route3 | undefined {
    return this.matchRequest({ method, url } as IncomingMessage, start, head);
  }

  route(method: string, path: string | RegExp | Array<string | RegExp>, ...handlers: unknown[]): this {
    const verb = method.toLowerCase();
    const callbacks = flattenHandlers(handlers);
    if (!path) throw new Error('Router#' + verb + '() requires a path');
    for (const fn of callbacks) {
      if (typeof fn !== 'function') {
        throw new Error('.' + verb + '() requires callback functions but got a ' + Object.prototype.toString.call(fn));
      }
    }
    const route = new Route3(verb, path, callbacks as Callback3[], {
      sensitive: this.caseSensitive,
      strict: this.strict,
    });
    (this.map[verb] = this.map[verb] || []).push(route);
    return this;
  }

  all(path: string, ...handlers: unknown[]): this {
    for (const method of methods) this.route(method, path, ...handlers);
    return this;
  }
}

// Enumerable, in Express 3's order and before the HTTP methods, as its prototype assignments make them.
enumerateClassMethods(Route3, ['match']);
enumerateClassMethods(Router3, [
  'param',
  '_dispatch',
  '_options',
  '_optionsFor',
  'matchRequest',
  'match',
  'route',
  'all',
]);
defineClassMembers(Router3, {
  methods: methodMembers(
    (method) =>
      function addRoute(this: Router3, path: string, ...handlers: unknown[]) {
        return this.route(method, path, ...handlers);
      },
  ),
});

// Express 3's names: 3.x code and its tests read `route.constructor.name` ('Route').
named('Route', Route3);
named('Router', Router3);
