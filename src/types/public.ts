/**
 * The public types of `webapp`, named and shaped as users know them from
 * @types/express (written here, not copied), so typed Express 4 code compiles
 * unchanged. They describe the runtime objects from the outside: the runtime
 * modules keep their own, narrower internal types.
 *
 * The global `Express` interfaces are declared (empty) and extended, so the
 * augmentation apps and passport do (`namespace Express { interface Request
 * { user?: User } }`) reaches webapp's `Request` too.
 */
import type { EventEmitter } from 'node:events';
import type * as http from 'node:http';
import type { Stats } from 'node:fs';
import type { ListenOptions } from 'node:net';
import type { ServeStaticOptions as StaticCoreOptions } from '../static';
import type { HttpMethod } from '../router/methods';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    // Empty on purpose: they exist to be augmented by users and middleware.
    interface Request {}
    interface Response {}
    interface Locals {}
    interface Application {}
  }
}

/** The shape of `req.query` under the default `extended` query parser (as `qs.ParsedQs`). */
export interface ParsedQs {
  [key: string]: undefined | string | ParsedQs | (string | ParsedQs)[];
}

export type Query = ParsedQs;

export interface ParamsDictionary {
  [key: string]: string;
}

export interface Locals extends Express.Locals {}

export interface NextFunction {
  /** Leaves the current router. */
  (deferToNext: 'router'): void;
  /** Skips the remaining handlers of the current route. */
  (deferToNext: 'route'): void;
  /**
   * Passes control to the next matching handler; with an error, to the next
   * error handler. Last of the overloads, so that inference from the type
   * (`setImmediate(next, err)`, `Parameters<NextFunction>`) sees this form.
   */
  (err?: any): void;
}

export interface Dictionary<T> {
  [key: string]: T;
}

export type Errback = (err: Error) => void;

// ---------------------------------------------------------------------------
// Route parameters from the path string: '/users/:id' gives { id: string }.
// A name ends at '/', '-' or '.'; 'name?' is optional; regex groups fall back
// to the dictionary, as @types/express-serve-static-core does.

type RemoveTail<S extends string, Tail extends string> = S extends `${infer P}${Tail}` ? P : S;
type ParameterName<S extends string> = RemoveTail<RemoveTail<RemoveTail<S, `/${string}`>, `-${string}`>, `.${string}`>;

export type RouteParameters<Route extends string> = string extends Route
  ? ParamsDictionary
  : Route extends `${string}(${string}`
    ? ParamsDictionary
    : Route extends `${string}:${infer Rest}`
      ? (ParameterName<Rest> extends never
          ? ParamsDictionary
          : ParameterName<Rest> extends `${infer Name}?`
            ? { [K in Name]?: string }
            : { [K in ParameterName<Rest>]: string }) &
          (Rest extends `${ParameterName<Rest>}${infer Next}` ? RouteParameters<Next> : unknown)
      : {};

export type PathParams = string | RegExp | Array<string | RegExp>;

// ---------------------------------------------------------------------------
// Handlers. They are typed as returning `void`, which also accepts `async`
// functions: webapp forwards a rejected promise to error handling.

export interface RequestHandler<
  P = ParamsDictionary,
  ResBody = any,
  ReqBody = any,
  ReqQuery = ParsedQs,
  LocalsObj extends Record<string, any> = Record<string, any>,
> {
  (req: Request<P, ResBody, ReqBody, ReqQuery, LocalsObj>, res: Response<ResBody, LocalsObj>, next: NextFunction): void;
}

export type ErrorRequestHandler<
  P = ParamsDictionary,
  ResBody = any,
  ReqBody = any,
  ReqQuery = ParsedQs,
  LocalsObj extends Record<string, any> = Record<string, any>,
> = (
  err: any,
  req: Request<P, ResBody, ReqBody, ReqQuery, LocalsObj>,
  res: Response<ResBody, LocalsObj>,
  next: NextFunction,
) => void;

export interface Handler extends RequestHandler {}

export type RequestHandlerParams<
  P = ParamsDictionary,
  ResBody = any,
  ReqBody = any,
  ReqQuery = ParsedQs,
  LocalsObj extends Record<string, any> = Record<string, any>,
> =
  | RequestHandler<P, ResBody, ReqBody, ReqQuery, LocalsObj>
  | ErrorRequestHandler<P, ResBody, ReqBody, ReqQuery, LocalsObj>
  | Array<RequestHandler<P> | ErrorRequestHandler<P>>;

// ---------------------------------------------------------------------------
// Middleware typed against another Express typing (@types/express: multer,
// passport, express-session...). Its `req`/`res` are that typing's, which
// extend Node's IncomingMessage/ServerResponse but are not webapp's, so it
// cannot be a webapp `RequestHandler`. Two properties of these types let it mix
// with webapp's inline handlers without loosening them:
// - The signatures are method declarations, whose parameters TypeScript
//   compares both ways: a handler taking some Request that extends
//   IncomingMessage fits, a handler taking `res: number` does not.
// - Each type has two call signatures of the same length, one of them generic.
//   Signatures whose type parameters differ cannot be combined into one
//   contextual signature, so in a union with webapp's `RequestHandler` an
//   inline arrow is typed by webapp's handler alone.

interface ForeignMiddlewareSignatures {
  handler(req: http.IncomingMessage, res: http.ServerResponse, next: (err?: any) => void): unknown;
  handler<Distinct>(req: http.IncomingMessage, res: http.ServerResponse, next: (err?: any) => void): unknown;
  errorHandler(err: any, req: http.IncomingMessage, res: http.ServerResponse, next: (err?: any) => void): unknown;
  errorHandler<Distinct>(err: any, req: http.IncomingMessage, res: http.ServerResponse, next: (err?: any) => void): unknown;
}

/** A request handler typed against another Express typing, e.g. `multer().single('file')`. */
export type ForeignRequestHandler = ForeignMiddlewareSignatures['handler'];
/** An error handler typed against another Express typing. */
export type ForeignErrorRequestHandler = ForeignMiddlewareSignatures['errorHandler'];

/**
 * Blocks inference through `T` (TypeScript's own `NoInfer` needs 5.4): in a call
 * that mixes foreign middleware, the route's parameters come from its path and
 * never from the foreign middleware's `ParamsDictionary`.
 */
type NoInference<T> = [T][T extends any ? 0 : never];

/** One argument of a call that mixes webapp handlers (not error handlers) with foreign middleware. */
type MixedHandler<P> = RequestHandler<NoInference<P>> | ForeignRequestHandler | MixedHandler<P>[];
/** One argument of a call that mixes any webapp handler with foreign middleware. */
type MixedHandlerParams<P> =
  | RequestHandler<NoInference<P>>
  | ErrorRequestHandler<NoInference<P>>
  | ForeignRequestHandler
  | ForeignErrorRequestHandler
  | MixedHandlerParams<P>[];

export type RequestParamHandler = (req: Request, res: Response, next: NextFunction, value: any, name: string) => any;

export type ApplicationRequestHandler<T> = IRouterHandler<T> &
  IRouterMatcher<T> &
  ((...handlers: RequestHandlerParams[]) => T);

// `Method` names the HTTP method a matcher registers; kept for @types/express parity.
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export interface IRouterMatcher<T, Method extends string = any> {
  <
    Route extends string,
    P = RouteParameters<Route>,
    ResBody = any,
    ReqBody = any,
    ReqQuery = ParsedQs,
    LocalsObj extends Record<string, any> = Record<string, any>,
  >(
    path: Route,
    ...handlers: Array<RequestHandler<P, ResBody, ReqBody, ReqQuery, LocalsObj>>
  ): T;
  <
    Path extends string,
    P = RouteParameters<Path>,
    ResBody = any,
    ReqBody = any,
    ReqQuery = ParsedQs,
    LocalsObj extends Record<string, any> = Record<string, any>,
  >(
    path: Path,
    ...handlers: Array<RequestHandlerParams<P, ResBody, ReqBody, ReqQuery, LocalsObj>>
  ): T;
  <P = ParamsDictionary, ResBody = any, ReqBody = any, ReqQuery = ParsedQs, LocalsObj extends Record<string, any> = Record<string, any>>(
    path: PathParams,
    ...handlers: Array<RequestHandler<P, ResBody, ReqBody, ReqQuery, LocalsObj>>
  ): T;
  <P = ParamsDictionary, ResBody = any, ReqBody = any, ReqQuery = ParsedQs, LocalsObj extends Record<string, any> = Record<string, any>>(
    path: PathParams,
    ...handlers: Array<RequestHandlerParams<P, ResBody, ReqBody, ReqQuery, LocalsObj>>
  ): T;
  (path: PathParams, subApplication: Application): T;
  // Calls that mix in middleware typed against another Express typing.
  <Route extends string>(path: Route, ...handlers: Array<MixedHandler<RouteParameters<Route>>>): T;
  <Route extends string>(path: Route, ...handlers: Array<MixedHandlerParams<RouteParameters<Route>>>): T;
  (path: PathParams, ...handlers: Array<MixedHandler<ParamsDictionary>>): T;
  (path: PathParams, ...handlers: Array<MixedHandlerParams<ParamsDictionary>>): T;
}

export interface IRouterHandler<T, Route extends string = string> {
  (...handlers: Array<RequestHandler<RouteParameters<Route>>>): T;
  (...handlers: Array<RequestHandlerParams<RouteParameters<Route>>>): T;
  <
    P = RouteParameters<Route>,
    ResBody = any,
    ReqBody = any,
    ReqQuery = ParsedQs,
    LocalsObj extends Record<string, any> = Record<string, any>,
  >(
    ...handlers: Array<RequestHandler<P, ResBody, ReqBody, ReqQuery, LocalsObj>>
  ): T;
  <
    P = RouteParameters<Route>,
    ResBody = any,
    ReqBody = any,
    ReqQuery = ParsedQs,
    LocalsObj extends Record<string, any> = Record<string, any>,
  >(
    ...handlers: Array<RequestHandlerParams<P, ResBody, ReqBody, ReqQuery, LocalsObj>>
  ): T;
  // Calls that mix in middleware typed against another Express typing.
  (...handlers: Array<MixedHandler<RouteParameters<Route>>>): T;
  (...handlers: Array<MixedHandlerParams<RouteParameters<Route>>>): T;
}

/** What `router.stack` holds: the fields ecosystem code reads. */
export interface ILayer {
  route?: IRoute;
  name: string | '<anonymous>';
  handle: RequestHandler | ErrorRequestHandler;
  regexp: RegExp;
  keys: Array<{ name: string | number; optional: boolean; offset?: number }>;
  params?: Record<string, any>;
  path?: string;
}

export interface IRoute<Route extends string = string> {
  path: string;
  stack: ILayer[];
  methods: Record<string, boolean>;
  /**
   * Adds handlers for every method on this route.
   * @example
   * app.route('/events').all(requireLogin).get(listEvents);
   */
  all: IRouterHandler<this, Route>;
  /**
   * Adds handlers for GET requests on this route.
   * @example
   * app.route('/items/:id').get((req, res) => res.send(req.params.id));
   */
  get: IRouterHandler<this, Route>;
  /**
   * Adds handlers for POST requests on this route.
   * @example
   * app.route('/items/:id').post((req, res) => res.send(req.params.id));
   */
  post: IRouterHandler<this, Route>;
  /**
   * Adds handlers for PUT requests on this route.
   * @example
   * app.route('/items/:id').put((req, res) => res.send(req.params.id));
   */
  put: IRouterHandler<this, Route>;
  /**
   * Adds handlers for DELETE requests on this route.
   * @example
   * app.route('/items/:id').delete((req, res) => res.send(req.params.id));
   */
  delete: IRouterHandler<this, Route>;
  /**
   * Adds handlers for PATCH requests on this route.
   * @example
   * app.route('/items/:id').patch((req, res) => res.send(req.params.id));
   */
  patch: IRouterHandler<this, Route>;
  /**
   * Adds handlers for OPTIONS requests on this route.
   * @example
   * app.route('/items/:id').options((req, res) => res.send(req.params.id));
   */
  options: IRouterHandler<this, Route>;
  /**
   * Adds handlers for HEAD requests on this route.
   * @example
   * app.route('/items/:id').head((req, res) => res.send(req.params.id));
   */
  head: IRouterHandler<this, Route>;
  /**
   * Adds handlers for CHECKOUT requests on this route.
   * @example
   * app.route('/items/:id').checkout((req, res) => res.send(req.params.id));
   */
  checkout: IRouterHandler<this, Route>;
  /**
   * Adds handlers for COPY requests on this route.
   * @example
   * app.route('/items/:id').copy((req, res) => res.send(req.params.id));
   */
  copy: IRouterHandler<this, Route>;
  /**
   * Adds handlers for LOCK requests on this route.
   * @example
   * app.route('/items/:id').lock((req, res) => res.send(req.params.id));
   */
  lock: IRouterHandler<this, Route>;
  /**
   * Adds handlers for MERGE requests on this route.
   * @example
   * app.route('/items/:id').merge((req, res) => res.send(req.params.id));
   */
  merge: IRouterHandler<this, Route>;
  /**
   * Adds handlers for MKACTIVITY requests on this route.
   * @example
   * app.route('/items/:id').mkactivity((req, res) => res.send(req.params.id));
   */
  mkactivity: IRouterHandler<this, Route>;
  /**
   * Adds handlers for MKCOL requests on this route.
   * @example
   * app.route('/items/:id').mkcol((req, res) => res.send(req.params.id));
   */
  mkcol: IRouterHandler<this, Route>;
  /**
   * Adds handlers for MOVE requests on this route.
   * @example
   * app.route('/items/:id').move((req, res) => res.send(req.params.id));
   */
  move: IRouterHandler<this, Route>;
  /**
   * Adds handlers for M-SEARCH requests on this route.
   * @example
   * app.route('/items/:id')['m-search']((req, res) => res.end());
   */
  'm-search': IRouterHandler<this, Route>;
  /**
   * Adds handlers for NOTIFY requests on this route.
   * @example
   * app.route('/items/:id').notify((req, res) => res.send(req.params.id));
   */
  notify: IRouterHandler<this, Route>;
  /**
   * Adds handlers for PURGE requests on this route.
   * @example
   * app.route('/items/:id').purge((req, res) => res.send(req.params.id));
   */
  purge: IRouterHandler<this, Route>;
  /**
   * Adds handlers for REPORT requests on this route.
   * @example
   * app.route('/items/:id').report((req, res) => res.send(req.params.id));
   */
  report: IRouterHandler<this, Route>;
  /**
   * Adds handlers for SEARCH requests on this route.
   * @example
   * app.route('/items/:id').search((req, res) => res.send(req.params.id));
   */
  search: IRouterHandler<this, Route>;
  /**
   * Adds handlers for SUBSCRIBE requests on this route.
   * @example
   * app.route('/items/:id').subscribe((req, res) => res.send(req.params.id));
   */
  subscribe: IRouterHandler<this, Route>;
  /**
   * Adds handlers for TRACE requests on this route.
   * @example
   * app.route('/items/:id').trace((req, res) => res.send(req.params.id));
   */
  trace: IRouterHandler<this, Route>;
  /**
   * Adds handlers for UNLOCK requests on this route.
   * @example
   * app.route('/items/:id').unlock((req, res) => res.send(req.params.id));
   */
  unlock: IRouterHandler<this, Route>;
  /**
   * Adds handlers for UNSUBSCRIBE requests on this route.
   * @example
   * app.route('/items/:id').unsubscribe((req, res) => res.send(req.params.id));
   */
  unsubscribe: IRouterHandler<this, Route>;
  /**
   * Adds handlers for LINK requests on this route.
   * @example
   * app.route('/items/:id').link((req, res) => res.send(req.params.id));
   */
  link: IRouterHandler<this, Route>;
  /**
   * Adds handlers for UNLINK requests on this route.
   * @example
   * app.route('/items/:id').unlink((req, res) => res.send(req.params.id));
   */
  unlink: IRouterHandler<this, Route>;
  /**
   * Adds handlers for PROPFIND requests on this route.
   * @example
   * app.route('/items/:id').propfind((req, res) => res.send(req.params.id));
   */
  propfind: IRouterHandler<this, Route>;
  /**
   * Adds handlers for PROPPATCH requests on this route.
   * @example
   * app.route('/items/:id').proppatch((req, res) => res.send(req.params.id));
   */
  proppatch: IRouterHandler<this, Route>;
  /**
   * Adds handlers for CONNECT requests on this route.
   * @example
   * app.route('/items/:id').connect((req, res) => res.send(req.params.id));
   */
  connect: IRouterHandler<this, Route>;
  /**
   * Adds handlers for ACL requests on this route.
   * @example
   * app.route('/items/:id').acl((req, res) => res.send(req.params.id));
   */
  acl: IRouterHandler<this, Route>;
  /**
   * Adds handlers for BIND requests on this route.
   * @example
   * app.route('/items/:id').bind((req, res) => res.send(req.params.id));
   */
  bind: IRouterHandler<this, Route>;
  /**
   * Adds handlers for MKCALENDAR requests on this route.
   * @example
   * app.route('/items/:id').mkcalendar((req, res) => res.send(req.params.id));
   */
  mkcalendar: IRouterHandler<this, Route>;
  /**
   * Adds handlers for QUERY requests on this route.
   * @example
   * app.route('/items/:id').query((req, res) => res.send(req.params.id));
   */
  query: IRouterHandler<this, Route>;
  /**
   * Adds handlers for REBIND requests on this route.
   * @example
   * app.route('/items/:id').rebind((req, res) => res.send(req.params.id));
   */
  rebind: IRouterHandler<this, Route>;
  /**
   * Adds handlers for SOURCE requests on this route.
   * @example
   * app.route('/items/:id').source((req, res) => res.send(req.params.id));
   */
  source: IRouterHandler<this, Route>;
  /**
   * Adds handlers for UNBIND requests on this route.
   * @example
   * app.route('/items/:id').unbind((req, res) => res.send(req.params.id));
   */
  unbind: IRouterHandler<this, Route>;
}

export interface IRouter extends RequestHandler {
  /**
   * Runs `handler` once per request before the routes whose path has the parameter
   * `name`; `value` is the parameter's value.
   * @example
   * router.param('id', (req, res, next, id) => (/^\d+$/.test(id) ? next() : next('route')));
   */
  param(name: string | string[], handler: RequestParamHandler): this;
  /** @deprecated the function-only form of `param` (Express 4 deprecates it). */
  param(callback: (name: string, matcher: any) => RequestParamHandler | undefined): this;

  /**
   * Routes requests of every method for `path` to the handlers.
   * @example
   * router.all('/secret', requireLogin);
   */
  all: IRouterMatcher<this, 'all'>;
  /**
   * Routes GET requests for `path` (and HEAD requests, unless HEAD has its own route) to the handlers, in order.
   * @example
   * router.get('/items/:id', (req, res) => res.send(req.params.id));
   */
  get: IRouterMatcher<this, 'get'>;
  /**
   * Routes POST requests for `path` to the handlers, in order.
   * @example
   * router.post('/items/:id', (req, res) => res.send(req.params.id));
   */
  post: IRouterMatcher<this, 'post'>;
  /**
   * Routes PUT requests for `path` to the handlers, in order.
   * @example
   * router.put('/items/:id', (req, res) => res.send(req.params.id));
   */
  put: IRouterMatcher<this, 'put'>;
  /**
   * Routes DELETE requests for `path` to the handlers, in order.
   * @example
   * router.delete('/items/:id', (req, res) => res.send(req.params.id));
   */
  delete: IRouterMatcher<this, 'delete'>;
  /**
   * Routes PATCH requests for `path` to the handlers, in order.
   * @example
   * router.patch('/items/:id', (req, res) => res.send(req.params.id));
   */
  patch: IRouterMatcher<this, 'patch'>;
  /**
   * Routes OPTIONS requests for `path` to the handlers, in order.
   * @example
   * router.options('/items/:id', (req, res) => res.send(req.params.id));
   */
  options: IRouterMatcher<this, 'options'>;
  /**
   * Routes HEAD requests for `path` to the handlers, in order.
   * @example
   * router.head('/items/:id', (req, res) => res.send(req.params.id));
   */
  head: IRouterMatcher<this, 'head'>;
  /**
   * Routes CHECKOUT requests for `path` to the handlers, in order.
   * @example
   * router.checkout('/items/:id', (req, res) => res.send(req.params.id));
   */
  checkout: IRouterMatcher<this>;
  /**
   * Routes CONNECT requests for `path` to the handlers, in order.
   * @example
   * router.connect('/items/:id', (req, res) => res.send(req.params.id));
   */
  connect: IRouterMatcher<this>;
  /**
   * Routes COPY requests for `path` to the handlers, in order.
   * @example
   * router.copy('/items/:id', (req, res) => res.send(req.params.id));
   */
  copy: IRouterMatcher<this>;
  /**
   * Routes LOCK requests for `path` to the handlers, in order.
   * @example
   * router.lock('/items/:id', (req, res) => res.send(req.params.id));
   */
  lock: IRouterMatcher<this>;
  /**
   * Routes MERGE requests for `path` to the handlers, in order.
   * @example
   * router.merge('/items/:id', (req, res) => res.send(req.params.id));
   */
  merge: IRouterMatcher<this>;
  /**
   * Routes MKACTIVITY requests for `path` to the handlers, in order.
   * @example
   * router.mkactivity('/items/:id', (req, res) => res.send(req.params.id));
   */
  mkactivity: IRouterMatcher<this>;
  /**
   * Routes MKCOL requests for `path` to the handlers, in order.
   * @example
   * router.mkcol('/items/:id', (req, res) => res.send(req.params.id));
   */
  mkcol: IRouterMatcher<this>;
  /**
   * Routes MOVE requests for `path` to the handlers, in order.
   * @example
   * router.move('/items/:id', (req, res) => res.send(req.params.id));
   */
  move: IRouterMatcher<this>;
  /**
   * Routes M-SEARCH requests for `path` to the handlers, in order.
   * @example
   * router['m-search']('/items/:id', (req, res) => res.send(req.params.id));
   */
  'm-search': IRouterMatcher<this>;
  /**
   * Routes NOTIFY requests for `path` to the handlers, in order.
   * @example
   * router.notify('/items/:id', (req, res) => res.send(req.params.id));
   */
  notify: IRouterMatcher<this>;
  /**
   * Routes PROPFIND requests for `path` to the handlers, in order.
   * @example
   * router.propfind('/items/:id', (req, res) => res.send(req.params.id));
   */
  propfind: IRouterMatcher<this>;
  /**
   * Routes PROPPATCH requests for `path` to the handlers, in order.
   * @example
   * router.proppatch('/items/:id', (req, res) => res.send(req.params.id));
   */
  proppatch: IRouterMatcher<this>;
  /**
   * Routes PURGE requests for `path` to the handlers, in order.
   * @example
   * router.purge('/items/:id', (req, res) => res.send(req.params.id));
   */
  purge: IRouterMatcher<this>;
  /**
   * Routes REPORT requests for `path` to the handlers, in order.
   * @example
   * router.report('/items/:id', (req, res) => res.send(req.params.id));
   */
  report: IRouterMatcher<this>;
  /**
   * Routes SEARCH requests for `path` to the handlers, in order.
   * @example
   * router.search('/items/:id', (req, res) => res.send(req.params.id));
   */
  search: IRouterMatcher<this>;
  /**
   * Routes SUBSCRIBE requests for `path` to the handlers, in order.
   * @example
   * router.subscribe('/items/:id', (req, res) => res.send(req.params.id));
   */
  subscribe: IRouterMatcher<this>;
  /**
   * Routes TRACE requests for `path` to the handlers, in order.
   * @example
   * router.trace('/items/:id', (req, res) => res.send(req.params.id));
   */
  trace: IRouterMatcher<this>;
  /**
   * Routes UNLOCK requests for `path` to the handlers, in order.
   * @example
   * router.unlock('/items/:id', (req, res) => res.send(req.params.id));
   */
  unlock: IRouterMatcher<this>;
  /**
   * Routes UNSUBSCRIBE requests for `path` to the handlers, in order.
   * @example
   * router.unsubscribe('/items/:id', (req, res) => res.send(req.params.id));
   */
  unsubscribe: IRouterMatcher<this>;
  /**
   * Routes LINK requests for `path` to the handlers, in order.
   * @example
   * router.link('/items/:id', (req, res) => res.send(req.params.id));
   */
  link: IRouterMatcher<this>;
  /**
   * Routes UNLINK requests for `path` to the handlers, in order.
   * @example
   * router.unlink('/items/:id', (req, res) => res.send(req.params.id));
   */
  unlink: IRouterMatcher<this>;
  /**
   * Routes ACL requests for `path` to the handlers, in order.
   * @example
   * router.acl('/items/:id', (req, res) => res.send(req.params.id));
   */
  acl: IRouterMatcher<this>;
  /**
   * Routes BIND requests for `path` to the handlers, in order.
   * @example
   * router.bind('/items/:id', (req, res) => res.send(req.params.id));
   */
  bind: IRouterMatcher<this>;
  /**
   * Routes MKCALENDAR requests for `path` to the handlers, in order.
   * @example
   * router.mkcalendar('/items/:id', (req, res) => res.send(req.params.id));
   */
  mkcalendar: IRouterMatcher<this>;
  /**
   * Routes QUERY requests for `path` to the handlers, in order.
   * @example
   * router.query('/items/:id', (req, res) => res.send(req.params.id));
   */
  query: IRouterMatcher<this>;
  /**
   * Routes REBIND requests for `path` to the handlers, in order.
   * @example
   * router.rebind('/items/:id', (req, res) => res.send(req.params.id));
   */
  rebind: IRouterMatcher<this>;
  /**
   * Routes SOURCE requests for `path` to the handlers, in order.
   * @example
   * router.source('/items/:id', (req, res) => res.send(req.params.id));
   */
  source: IRouterMatcher<this>;
  /**
   * Routes UNBIND requests for `path` to the handlers, in order.
   * @example
   * router.unbind('/items/:id', (req, res) => res.send(req.params.id));
   */
  unbind: IRouterMatcher<this>;

  /**
   * Mounts middleware or routers at `path` (default `/`) within this router.
   * @example
   * router.use('/admin', requireLogin, adminRouter);
   */
  use: IRouterHandler<this> & IRouterMatcher<this>;

  /**
   * A route for `prefix`, to chain one handler list per method.
   * @example
   * router.route('/books/:id').get(showBook).put(updateBook);
   */
  route<T extends string>(prefix: T): IRoute<T>;
  route(prefix: PathParams): IRoute;

  stack: ILayer[];
}

// Routers and routes have a member for every method of the runtime's list
// (interfaces cannot be mapped types, and the members need `this`): a method
// missing above is a compile error here.
type MustBeNever<T extends never> = T;
export type MethodsMissingFromRouter = MustBeNever<Exclude<HttpMethod, keyof IRouter>>;
export type MethodsMissingFromRoute = MustBeNever<Exclude<HttpMethod, keyof IRoute>>;

export interface Router extends IRouter {
  /** The options the router was made with (`webapp.Router(options)`). */
  caseSensitive: boolean | undefined;
  mergeParams: boolean | undefined;
  strict: boolean | undefined;
}

export interface RouterOptions {
  caseSensitive?: boolean | undefined;
  mergeParams?: boolean | undefined;
  strict?: boolean | undefined;
}

// ---------------------------------------------------------------------------
// Request

export interface RequestRanges extends Array<{ start: number; end: number }> {
  type: string;
}

export interface Request<
  P = ParamsDictionary,
  ResBody = any,
  ReqBody = any,
  ReqQuery = ParsedQs,
  LocalsObj extends Record<string, any> = Record<string, any>,
> extends http.IncomingMessage,
    Express.Request {
  /**
   * A request header, case-insensitive (`Referer` and `Referrer` are interchangeable).
   * @example
   * const type = req.get('Content-Type');
   */
  get(name: 'set-cookie'): string[] | undefined;
  get(name: string): string | undefined;
  /**
   * Alias of `req.get`: a request header, case-insensitive.
   * @example
   * const agent = req.header('user-agent');
   */
  header(name: 'set-cookie'): string[] | undefined;
  header(name: string): string | undefined;

  /**
   * The best of the offered types (MIME types or extensions) for the Accept header,
   * or false when none is acceptable; with no argument, the accepted types in order.
   * @example
   * if (req.accepts(['html', 'json']) === 'json') res.json(data);
   */
  accepts(): string[];
  accepts(type: string): string | false;
  accepts(type: string[]): string | false;
  accepts(...type: string[]): string | false;
  /**
   * The best of the offered charsets for Accept-Charset, or false.
   * @example
   * const charset = req.acceptsCharsets('utf-8', 'iso-8859-1');
   */
  acceptsCharsets(): string[];
  acceptsCharsets(charset: string): string | false;
  acceptsCharsets(charset: string[]): string | false;
  acceptsCharsets(...charset: string[]): string | false;
  /**
   * The best of the offered encodings for Accept-Encoding, or false.
   * @example
   * if (req.acceptsEncodings('gzip')) res.set('Content-Encoding', 'gzip');
   */
  acceptsEncodings(): string[];
  acceptsEncodings(encoding: string): string | false;
  acceptsEncodings(encoding: string[]): string | false;
  acceptsEncodings(...encoding: string[]): string | false;
  /**
   * The best of the offered languages for Accept-Language, or false.
   * @example
   * const lang = req.acceptsLanguages('en', 'fr') || 'en';
   */
  acceptsLanguages(): string[];
  acceptsLanguages(lang: string): string | false;
  acceptsLanguages(lang: string[]): string | false;
  acceptsLanguages(...lang: string[]): string | false;

  /**
   * Parses the Range header for a resource of `size` bytes: the ranges, -1 when
   * unsatisfiable, -2 when malformed, undefined without a Range header.
   * @example
   * const ranges = req.range(stat.size, { combine: true });
   */
  range(size: number, options?: { combine?: boolean | undefined }): RequestRanges | -1 | -2 | undefined;

  accepted: Array<{ value: string; quality: number; type: string; subtype: string }>;

  /**
   * The named value from the route parameters, then the body, then the query.
   * @deprecated use `req.params`, `req.body` or `req.query`.
   * @example
   * const id = req.param('id');
   */
  param(name: string, defaultValue?: any): string;

  /**
   * The matching type when the request's Content-Type is one of `type`, false when
   * none matches, null when the request has no body.
   * @example
   * if (!req.is('application/json')) return res.sendStatus(415);
   */
  is(type: string | string[]): string | false | null;

  readonly protocol: string;
  readonly secure: boolean;
  readonly ip: string | undefined;
  readonly ips: string[];
  readonly subdomains: string[];
  readonly path: string;
  readonly hostname: string;
  /** @deprecated use `req.hostname`. */
  readonly host: string;
  readonly fresh: boolean;
  readonly stale: boolean;
  readonly xhr: boolean;

  body: ReqBody;
  cookies: any;
  method: string;
  params: P;
  query: ReqQuery;
  route: any;
  signedCookies: any;
  originalUrl: string;
  url: string;
  baseUrl: string;

  app: Application;
  res?: Response<ResBody, LocalsObj> | undefined;
  next?: NextFunction | undefined;
}

// ---------------------------------------------------------------------------
// Response

export interface CookieOptions {
  maxAge?: number | undefined;
  signed?: boolean | undefined;
  expires?: Date | undefined;
  httpOnly?: boolean | undefined;
  path?: string | undefined;
  domain?: string | undefined;
  secure?: boolean | undefined;
  encode?: ((val: string) => string) | undefined;
  sameSite?: boolean | 'lax' | 'strict' | 'none' | 'Lax' | 'Strict' | 'None' | undefined;
  priority?: 'low' | 'medium' | 'high' | 'Low' | 'Medium' | 'High' | undefined;
  partitioned?: boolean | undefined;
}

export interface SendFileOptions {
  maxAge?: string | number | undefined;
  root?: string | undefined;
  lastModified?: boolean | undefined;
  headers?: Record<string, unknown> | undefined;
  dotfiles?: 'allow' | 'deny' | 'ignore' | undefined;
  acceptRanges?: boolean | undefined;
  cacheControl?: boolean | undefined;
  immutable?: boolean | undefined;
  etag?: boolean | undefined;
  extensions?: string[] | string | false | undefined;
  index?: string[] | string | boolean | undefined;
}

export interface DownloadOptions extends SendFileOptions {}

/**
 * Options of `webapp.static(root, options)`. `setHeaders` receives webapp's
 * response (as `express.static`'s receives Express's), so `res.set` is typed.
 */
export interface ServeStaticOptions<R extends http.ServerResponse = Response> extends Omit<StaticCoreOptions, 'setHeaders'> {
  /** Called as `setHeaders(res, path, stat)` before the file's headers are sent. */
  setHeaders?: ((res: R, path: string, stat: Stats) => any) | undefined;
}

/** The callback of `res.render` and `app.render`: the error, or the rendered HTML. */
export type RenderCallback = (err: Error | null, html?: string) => void;

export type Send<ResBody = any, T = Response<ResBody>> = (body?: ResBody) => T;

export interface Response<ResBody = any, LocalsObj extends Record<string, any> = Record<string, any>, StatusCode extends number = number>
  extends http.ServerResponse,
    Express.Response {
  /**
   * Sets the status code; chainable.
   * @example
   * res.status(404).send('Not found');
   */
  status(code: StatusCode): this;
  /**
   * Sets the status code and sends its text as the body.
   * @example
   * res.sendStatus(204);
   */
  sendStatus(code: StatusCode): this;
  /**
   * Adds the given URLs to the Link header, by relation.
   * @example
   * res.links({ next: '/users?page=2', last: '/users?page=5' });
   */
  links(links: Record<string, string>): this;

  /**
   * Sends the body: a string (HTML by default), a Buffer (octet-stream), or an
   * object or array (as JSON). Sets Content-Length and ETag, and answers 304 when
   * the request is fresh.
   * @example
   * res.send('<p>hello</p>');
   */
  send: Send<ResBody, this>;
  /**
   * Sends `body` as JSON (the app's `json replacer` and `json spaces` apply).
   * @example
   * res.json({ ok: true });
   */
  json: Send<ResBody, this>;
  /**
   * Sends `body` as JSON, wrapped in the callback named by the `callback` query
   * parameter when there is one.
   * @example
   * res.jsonp({ user: 'tobi' });
   */
  jsonp: Send<ResBody, this>;

  /**
   * Streams the file at `path` (absolute, or relative to `options.root`), with
   * Content-Type, caching headers and Range support; `fn` gets any error.
   * @example
   * res.sendFile('report.pdf', { root: '/srv/files' }, (err) => err && next(err));
   */
  sendFile(path: string, fn?: Errback): void;
  sendFile(path: string, options: SendFileOptions, fn?: Errback): void;
  /**
   * Express 3's file sender.
   * @deprecated use `res.sendFile`.
   * @example
   * res.sendfile('/srv/files/report.pdf');
   */
  sendfile(path: string): void;
  /** @deprecated use `res.sendFile`. */
  sendfile(path: string, options: SendFileOptions): void;
  /** @deprecated use `res.sendFile`. */
  sendfile(path: string, fn: Errback): void;
  /** @deprecated use `res.sendFile`. */
  sendfile(path: string, options: SendFileOptions, fn: Errback): void;

  /**
   * Sends the file as an attachment (Content-Disposition), under `filename` when given.
   * @example
   * res.download('/srv/files/report.pdf', 'report-2024.pdf');
   */
  download(path: string, fn?: Errback): void;
  download(path: string, filename: string, fn?: Errback): void;
  download(path: string, filename: string, options: DownloadOptions, fn?: Errback): void;

  /**
   * Alias of `res.type`: sets Content-Type from a MIME type or an extension.
   * @example
   * res.contentType('json');
   */
  contentType(type: string): this;
  /**
   * Sets Content-Type from a MIME type or an extension (`html`, `.png`).
   * @example
   * res.type('png').send(buffer);
   */
  type(type: string): this;
  /**
   * Answers with the handler of the best type for the Accept header (`default`
   * when none matches, else 406).
   * @example
   * res.format({ html: () => res.send('<p>hi</p>'), json: () => res.json({ msg: 'hi' }) });
   */
  format(obj: any): this;
  /**
   * Sets Content-Disposition to attachment (with the file name) and Content-Type
   * from its extension.
   * @example
   * res.attachment('logo.png');
   */
  attachment(filename?: string): this;

  /**
   * Sets a header, or several from an object; an array value sends the header
   * several times.
   * @example
   * res.set('Cache-Control', 'no-store').set({ 'X-Frame-Options': 'DENY' });
   */
  set(field: any): this;
  set(field: string, value?: string | string[]): this;
  /**
   * Alias of `res.set`.
   * @example
   * res.header('X-Request-Id', id);
   */
  header(field: any): this;
  header(field: string, value?: string | string[]): this;

  headersSent: boolean;

  /**
   * A response header already set.
   * @example
   * const type = res.get('Content-Type');
   */
  get(field: string): string | undefined;

  /**
   * Expires the cookie `name` (give the same path and domain it was set with).
   * @example
   * res.clearCookie('session', { path: '/admin' });
   */
  clearCookie(name: string, options?: CookieOptions): this;
  /**
   * Sets a cookie; an object value is stored as `j:` JSON, `signed` signs it with
   * the cookie-parser secret, `maxAge` (ms) sets Expires and Max-Age.
   * @example
   * res.cookie('theme', 'dark', { httpOnly: true, maxAge: 86_400_000 });
   */
  cookie(name: string, val: string, options: CookieOptions): this;
  cookie(name: string, val: any, options: CookieOptions): this;
  cookie(name: string, val: any): this;

  /**
   * Sets the Location header (`back` is the Referer, or `/`).
   * @example
   * res.location('/login').sendStatus(302);
   */
  location(url: string): this;

  /**
   * Redirects to `url` with 302, or the given status; the body depends on Accept.
   * @example
   * res.redirect(301, '/new-home');
   */
  redirect(url: string): void;
  redirect(status: number, url: string): void;
  /** @deprecated use `res.redirect(status, url)`. */
  redirect(url: string, status: number): void;

  /**
   * Renders the view with the app's engine and sends the HTML, or passes it to
   * `callback`.
   * @example
   * res.render('profile', { user }, (err, html) => (err ? next(err) : res.send(html)));
   */
  render(view: string, options?: object, callback?: (err: Error, html: string) => void): void;
  render(view: string, callback?: (err: Error, html: string) => void): void;

  locals: LocalsObj & Locals;

  charset: string;

  /**
   * Adds `field` to the Vary header unless it is already there.
   * @example
   * res.vary('Accept-Language');
   */
  vary(field: string): this;

  app: Application;

  /**
   * Appends a value to a header (creating it when absent).
   * @example
   * res.append('Set-Cookie', 'a=1; Path=/');
   */
  append(field: string, value?: string[] | string): this;

  req: Request;
}

// ---------------------------------------------------------------------------
// Application

export interface Application<LocalsObj extends Record<string, any> = Record<string, any>>
  extends EventEmitter,
    IRouter,
    Express.Application {
  /** The application is itself a request handler, usable by `http.createServer`. */
  (req: Request | http.IncomingMessage, res: Response | http.ServerResponse, next?: NextFunction): any;

  /**
   * Sets up a new app's settings and prototypes (called by `webapp()`).
   * @example
   * const app = webapp(); // init() already ran
   */
  init(): void;
  /**
   * Applies the default settings (etag, env, query parser, trust proxy, views...).
   * @example
   * app.defaultConfiguration();
   */
  defaultConfiguration(): void;

  /**
   * Registers a template engine for an extension.
   * @example
   * app.engine('html', require('ejs').renderFile);
   */
  engine(ext: string, fn: (path: string, options: object, callback: (e: any, rendered?: string) => void) => void): this;
  /** The template engines registered by `app.engine`, by extension (`.ejs`). */
  engines: Record<string, (path: string, options: object, callback: (e: any, rendered?: string) => void) => void>;

  /**
   * Sets a setting; with one argument (`app.set(name)`), reads it.
   * @example
   * app.set('trust proxy', 'loopback').set('view engine', 'pug');
   */
  set(setting: string, val: any): this;
  /**
   * With one argument, reads a setting; otherwise routes GET requests for `path`
   * (the response to HEAD too) to the handlers.
   * @example
   * const env = app.get('env');
   * app.get('/users/:id', (req, res) => res.send(req.params.id));
   */
  get: ((name: string) => any) & IRouterMatcher<this>;

  /**
   * Runs `handler` once per request before the routes whose path has the parameter
   * `name`; `value` is the parameter's value.
   * @example
   * app.param('user', (req, res, next, id) => loadUser(id).then((user) => { req.user = user; next(); }, next));
   */
  param(name: string | string[], handler: RequestParamHandler): this;
  /** @deprecated the function-only form of `param`. */
  param(callback: (name: string, matcher: any) => RequestParamHandler | undefined): this;

  /**
   * The app's absolute mount path (empty for the main app).
   * @example
   * sub.get('/', (req, res) => res.send(sub.path()));
   */
  path(): string;
  /**
   * Whether a boolean setting is on.
   * @example
   * if (app.enabled('trust proxy')) console.log('behind a proxy');
   */
  enabled(setting: string): boolean;
  /**
   * Whether a boolean setting is off.
   * @example
   * if (app.disabled('etag')) console.log('no ETags');
   */
  disabled(setting: string): boolean;
  /**
   * Turns a boolean setting on.
   * @example
   * app.enable('case sensitive routing');
   */
  enable(setting: string): this;
  /**
   * Turns a boolean setting off.
   * @example
   * app.disable('x-powered-by');
   */
  disable(setting: string): this;

  /**
   * Renders a view with the registered engine and passes the HTML to `callback`.
   * @example
   * app.render('email', { name: 'Tobi' }, (err, html) => send(html));
   */
  render(name: string, options?: object, callback?: (err: Error, html: string) => void): void;
  render(name: string, callback: (err: Error, html: string) => void): void;

  /**
   * Starts an HTTP server for the app (`http.createServer(app).listen(...)`).
   * @example
   * const server = app.listen(3000, '127.0.0.1', () => console.log('ready'));
   */
  listen(port: number, hostname: string, backlog: number, callback?: () => void): http.Server;
  listen(port: number, hostname: string, callback?: () => void): http.Server;
  listen(port: number, callback?: () => void): http.Server;
  listen(callback?: () => void): http.Server;
  listen(path: string, callback?: () => void): http.Server;
  listen(handle: any, listeningListener?: () => void): http.Server;
  listen(options: ListenOptions, listeningListener?: () => void): http.Server;

  router: string;
  settings: any;
  resource: any;
  map: any;
  locals: LocalsObj & Locals;
  routes: any;
  _router: any;

  /**
   * Mounts middleware, routers or sub-apps at `path` (default `/`); they run for
   * every request whose path starts with it.
   * @example
   * app.use(webapp.json());
   * app.use('/api', apiRouter);
   */
  use: ApplicationRequestHandler<this>;

  /**
   * Listens to app events: `mount` is emitted with the parent app when this app is
   * mounted.
   * @example
   * admin.on('mount', (parent) => console.log('mounted on', parent.mountpath));
   */
  on: (event: string, callback: (parent: Application) => void) => this;

  mountpath: string | string[];
  parent?: Application;

  request: Request;
  response: Response;

  /**
   * Routes DELETE requests.
   * @deprecated use `app.delete`.
   * @example
   * app.del('/item/:id', (req, res) => res.sendStatus(204));
   */
  del: IRouterMatcher<this, 'delete'>;
}

export interface Express extends Application {
  request: Request;
  response: Response;
}
