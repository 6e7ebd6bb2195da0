/**
 * Routers: the method matchers (`router.get(path, ...handlers)`), `use`,
 * `param` and `route`.
 */
import type * as http from 'node:http';
import type { HttpMethod } from '../router/methods';
import type {
  ErrorRequestHandler,
  ParamsDictionary,
  ParsedQs,
  PathParams,
  RequestHandler,
  RequestHandlerParams,
  RequestParamHandler,
  RouteParameters,
} from './handlers';
import type { ILayer, IRoute } from './route';
import type { Application } from './application';

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
  handler<_Distinct>(req: http.IncomingMessage, res: http.ServerResponse, next: (err?: any) => void): unknown;
  errorHandler(err: any, req: http.IncomingMessage, res: http.ServerResponse, next: (err?: any) => void): unknown;
  errorHandler<_Distinct>(
    err: any,
    req: http.IncomingMessage,
    res: http.ServerResponse,
    next: (err?: any) => void,
  ): unknown;
}

/** A request handler typed against another Express typing, e.g. `multer().single('file')`. */
export type ForeignRequestHandler = ForeignMiddlewareSignatures['handler'];
/** An error handler typed against another Express typing. */
export type ForeignErrorRequestHandler = ForeignMiddlewareSignatures['errorHandler'];

// One argument of a call that mixes in foreign middleware: a handler, or an
// array of them, one level deep as in RequestHandlerParams (Express flattens
// deeper nesting too). Not deeper: @types/express's IRouterMatcher takes one
// level, and a matcher taking more would not accept it in its place, which
// would make its Application and Request unassignable to webapp's.
type MixedHandlerOf<P> = RequestHandler<P> | ForeignRequestHandler;
/** One argument of a call that mixes webapp handlers (not error handlers) with foreign middleware. */
type MixedHandler<P> = MixedHandlerOf<P> | MixedHandlerOf<P>[];
type MixedHandlerParamsOf<P> =
  RequestHandler<P> | ErrorRequestHandler<P> | ForeignRequestHandler | ForeignErrorRequestHandler;
/** One argument of a call that mixes any webapp handler with foreign middleware. */
type MixedHandlerParams<P> = MixedHandlerParamsOf<P> | MixedHandlerParamsOf<P>[];

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
  <
    P = ParamsDictionary,
    ResBody = any,
    ReqBody = any,
    ReqQuery = ParsedQs,
    LocalsObj extends Record<string, any> = Record<string, any>,
  >(
    path: PathParams,
    ...handlers: Array<RequestHandler<P, ResBody, ReqBody, ReqQuery, LocalsObj>>
  ): T;
  <
    P = ParamsDictionary,
    ResBody = any,
    ReqBody = any,
    ReqQuery = ParsedQs,
    LocalsObj extends Record<string, any> = Record<string, any>,
  >(
    path: PathParams,
    ...handlers: Array<RequestHandlerParams<P, ResBody, ReqBody, ReqQuery, LocalsObj>>
  ): T;
  (path: PathParams, subApplication: Application): T;
  // Calls that mix in middleware typed against another Express typing. The inline
  // handlers' `req.params` is a `ParamsDictionary`, not the path's parameters: with
  // @types/express the middleware's `RequestHandler<ParamsDictionary>` is what the
  // call infers them from, and code relies on it (a `mergeParams` router reading
  // its parent's parameters behind multer or express-session).
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
  // Calls that mix in middleware typed against another Express typing. On a route
  // the inline handlers keep the route's parameters, as with @types/express, where
  // the middleware fits the route's first signature.
  (...handlers: Array<MixedHandler<RouteParameters<Route>>>): T;
  (...handlers: Array<MixedHandlerParams<RouteParameters<Route>>>): T;
}

/**
 * A router's API, as @types/express-serve-static-core's `IRouter`. The method
 * matchers it lacks (`acl`, `bind`, `mkcalendar`, `query`, `rebind`, `source`,
 * `unbind`; its `query` is optional) are optional here too, so that its
 * `IRouter`, `Router`, `Application` and `Express` (and through `req.app` its
 * `Request`) are assignable to webapp's. At run time every router and app has
 * them all.
 */
export interface IRouter extends RequestHandler {
  /**
   * Runs `handler` once per request before the routes whose path has the parameter
   * `name`; `value` is the parameter's value.
   * @example
   * router.param('id', (req, res, next, id) => (/^\d+$/.test(id) ? next() : next('route')));
   */
  // One name: a router registers an array under its joined text ('a,b'), which no
  // route parameter has (only `app.param` takes a list), so the type refuses it, as
  // @types/express's does.
  param(name: string, handler: RequestParamHandler): this;
  /**
   * @deprecated the function-only form of `param` (Express 4 deprecates it).
   * `matcher` is typed as @types/express types it; returning nothing leaves the
   * handler as it is, as Express does.
   */
  param(callback: (name: string, matcher: RegExp) => RequestParamHandler | undefined): this;

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
  acl?: IRouterMatcher<this>;
  /**
   * Routes BIND requests for `path` to the handlers, in order.
   * @example
   * router.bind('/items/:id', (req, res) => res.send(req.params.id));
   */
  bind?: IRouterMatcher<this>;
  /**
   * Routes MKCALENDAR requests for `path` to the handlers, in order.
   * @example
   * router.mkcalendar('/items/:id', (req, res) => res.send(req.params.id));
   */
  mkcalendar?: IRouterMatcher<this>;
  /**
   * Routes QUERY requests for `path` to the handlers, in order.
   * @example
   * router.query('/items/:id', (req, res) => res.send(req.params.id));
   */
  query?: IRouterMatcher<this>;
  /**
   * Routes REBIND requests for `path` to the handlers, in order.
   * @example
   * router.rebind('/items/:id', (req, res) => res.send(req.params.id));
   */
  rebind?: IRouterMatcher<this>;
  /**
   * Routes SOURCE requests for `path` to the handlers, in order.
   * @example
   * router.source('/items/:id', (req, res) => res.send(req.params.id));
   */
  source?: IRouterMatcher<this>;
  /**
   * Routes UNBIND requests for `path` to the handlers, in order.
   * @example
   * router.unbind('/items/:id', (req, res) => res.send(req.params.id));
   */
  unbind?: IRouterMatcher<this>;

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

/**
 * What `webapp.Router()` returns. As in @types/express, where `Router` is an
 * `IRouter` with nothing more required, every member beyond `IRouter` is
 * optional, so that an app (`webapp()`) and @types/express's `Router` and
 * `Express` are `Router`s too; the router has them all at run time.
 */
export interface Router extends IRouter {
  /** The options the router was made with (`webapp.Router(options)`). */
  caseSensitive?: boolean | undefined;
  mergeParams?: boolean | undefined;
  strict?: boolean | undefined;
}

export interface RouterOptions {
  caseSensitive?: boolean | undefined;
  mergeParams?: boolean | undefined;
  strict?: boolean | undefined;
}
