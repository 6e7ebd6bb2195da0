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
  (err?: any): void;
  /** Skips the remaining handlers of the current route. */
  (deferToNext: 'router'): void;
  /** Leaves the current router. */
  (deferToNext: 'route'): void;
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
  all: IRouterHandler<this, Route>;
  get: IRouterHandler<this, Route>;
  post: IRouterHandler<this, Route>;
  put: IRouterHandler<this, Route>;
  delete: IRouterHandler<this, Route>;
  patch: IRouterHandler<this, Route>;
  options: IRouterHandler<this, Route>;
  head: IRouterHandler<this, Route>;
  checkout: IRouterHandler<this, Route>;
  copy: IRouterHandler<this, Route>;
  lock: IRouterHandler<this, Route>;
  merge: IRouterHandler<this, Route>;
  mkactivity: IRouterHandler<this, Route>;
  mkcol: IRouterHandler<this, Route>;
  move: IRouterHandler<this, Route>;
  'm-search': IRouterHandler<this, Route>;
  notify: IRouterHandler<this, Route>;
  purge: IRouterHandler<this, Route>;
  report: IRouterHandler<this, Route>;
  search: IRouterHandler<this, Route>;
  subscribe: IRouterHandler<this, Route>;
  trace: IRouterHandler<this, Route>;
  unlock: IRouterHandler<this, Route>;
  unsubscribe: IRouterHandler<this, Route>;
  link: IRouterHandler<this, Route>;
  unlink: IRouterHandler<this, Route>;
  propfind: IRouterHandler<this, Route>;
  proppatch: IRouterHandler<this, Route>;
  connect: IRouterHandler<this, Route>;
}

export interface IRouter extends RequestHandler {
  param(name: string | string[], handler: RequestParamHandler): this;
  /** @deprecated the function-only form of `param` (Express 4 deprecates it). */
  param(callback: (name: string, matcher: any) => RequestParamHandler | undefined): this;

  all: IRouterMatcher<this, 'all'>;
  get: IRouterMatcher<this, 'get'>;
  post: IRouterMatcher<this, 'post'>;
  put: IRouterMatcher<this, 'put'>;
  delete: IRouterMatcher<this, 'delete'>;
  patch: IRouterMatcher<this, 'patch'>;
  options: IRouterMatcher<this, 'options'>;
  head: IRouterMatcher<this, 'head'>;
  checkout: IRouterMatcher<this>;
  connect: IRouterMatcher<this>;
  copy: IRouterMatcher<this>;
  lock: IRouterMatcher<this>;
  merge: IRouterMatcher<this>;
  mkactivity: IRouterMatcher<this>;
  mkcol: IRouterMatcher<this>;
  move: IRouterMatcher<this>;
  'm-search': IRouterMatcher<this>;
  notify: IRouterMatcher<this>;
  propfind: IRouterMatcher<this>;
  proppatch: IRouterMatcher<this>;
  purge: IRouterMatcher<this>;
  report: IRouterMatcher<this>;
  search: IRouterMatcher<this>;
  subscribe: IRouterMatcher<this>;
  trace: IRouterMatcher<this>;
  unlock: IRouterMatcher<this>;
  unsubscribe: IRouterMatcher<this>;
  link: IRouterMatcher<this>;
  unlink: IRouterMatcher<this>;

  use: IRouterHandler<this> & IRouterMatcher<this>;

  route<T extends string>(prefix: T): IRoute<T>;
  route(prefix: PathParams): IRoute;

  stack: ILayer[];
}

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
  get(name: 'set-cookie'): string[] | undefined;
  get(name: string): string | undefined;
  header(name: 'set-cookie'): string[] | undefined;
  header(name: string): string | undefined;

  accepts(): string[];
  accepts(type: string): string | false;
  accepts(type: string[]): string | false;
  accepts(...type: string[]): string | false;
  acceptsCharsets(): string[];
  acceptsCharsets(charset: string): string | false;
  acceptsCharsets(charset: string[]): string | false;
  acceptsCharsets(...charset: string[]): string | false;
  acceptsEncodings(): string[];
  acceptsEncodings(encoding: string): string | false;
  acceptsEncodings(encoding: string[]): string | false;
  acceptsEncodings(...encoding: string[]): string | false;
  acceptsLanguages(): string[];
  acceptsLanguages(lang: string): string | false;
  acceptsLanguages(lang: string[]): string | false;
  acceptsLanguages(...lang: string[]): string | false;

  range(size: number, options?: { combine?: boolean | undefined }): RequestRanges | -1 | -2 | undefined;

  accepted: Array<{ value: string; quality: number; type: string; subtype: string }>;

  /** @deprecated use `req.params`, `req.body` or `req.query`. */
  param(name: string, defaultValue?: any): string;

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
  sameSite?: boolean | 'lax' | 'strict' | 'none' | undefined;
  priority?: 'low' | 'medium' | 'high' | undefined;
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
  status(code: StatusCode): this;
  sendStatus(code: StatusCode): this;
  links(links: Record<string, string>): this;

  send: Send<ResBody, this>;
  json: Send<ResBody, this>;
  jsonp: Send<ResBody, this>;

  sendFile(path: string, fn?: Errback): void;
  sendFile(path: string, options: SendFileOptions, fn?: Errback): void;
  /** @deprecated use `res.sendFile`. */
  sendfile(path: string): void;
  /** @deprecated use `res.sendFile`. */
  sendfile(path: string, options: SendFileOptions): void;
  /** @deprecated use `res.sendFile`. */
  sendfile(path: string, fn: Errback): void;
  /** @deprecated use `res.sendFile`. */
  sendfile(path: string, options: SendFileOptions, fn: Errback): void;

  download(path: string, fn?: Errback): void;
  download(path: string, filename: string, fn?: Errback): void;
  download(path: string, filename: string, options: DownloadOptions, fn?: Errback): void;

  contentType(type: string): this;
  type(type: string): this;
  format(obj: any): this;
  attachment(filename?: string): this;

  set(field: any): this;
  set(field: string, value?: string | string[]): this;
  header(field: any): this;
  header(field: string, value?: string | string[]): this;

  headersSent: boolean;

  get(field: string): string | undefined;

  clearCookie(name: string, options?: CookieOptions): this;
  cookie(name: string, val: string, options: CookieOptions): this;
  cookie(name: string, val: any, options: CookieOptions): this;
  cookie(name: string, val: any): this;

  location(url: string): this;

  redirect(url: string): void;
  redirect(status: number, url: string): void;
  /** @deprecated use `res.redirect(status, url)`. */
  redirect(url: string, status: number): void;

  render(view: string, options?: object, callback?: (err: Error, html: string) => void): void;
  render(view: string, callback?: (err: Error, html: string) => void): void;

  locals: LocalsObj & Locals;

  charset: string;

  vary(field: string): this;

  app: Application;

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

  init(): void;
  defaultConfiguration(): void;

  engine(ext: string, fn: (path: string, options: object, callback: (e: any, rendered?: string) => void) => void): this;
  /** The template engines registered by `app.engine`, by extension (`.ejs`). */
  engines: Record<string, (path: string, options: object, callback: (e: any, rendered?: string) => void) => void>;

  set(setting: string, val: any): this;
  get: ((name: string) => any) & IRouterMatcher<this>;

  param(name: string | string[], handler: RequestParamHandler): this;
  /** @deprecated the function-only form of `param`. */
  param(callback: (name: string, matcher: any) => RequestParamHandler | undefined): this;

  path(): string;
  enabled(setting: string): boolean;
  disabled(setting: string): boolean;
  enable(setting: string): this;
  disable(setting: string): this;

  render(name: string, options?: object, callback?: (err: Error, html: string) => void): void;
  render(name: string, callback: (err: Error, html: string) => void): void;

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

  use: ApplicationRequestHandler<this>;

  /** `mount` is emitted with the parent application when this one is mounted. */
  on: (event: string, callback: (parent: Application) => void) => this;

  mountpath: string | string[];
  parent?: Application;

  request: Request;
  response: Response;

  /** @deprecated use `app.delete`. */
  del: IRouterMatcher<this, 'delete'>;
}

export interface Express extends Application {
  request: Request;
  response: Response;
}
