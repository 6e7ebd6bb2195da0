/**
 * The application (`webapp()`): settings, mounting, rendering and `listen`.
 */
import type { EventEmitter } from 'node:events';
import type * as http from 'node:http';
import type { ListenOptions } from 'node:net';
import type { Locals, NextFunction, RequestParamHandler, ApplicationRequestHandler } from './handlers';
import type { IRouterMatcher, IRouter } from './router';
import type { Request } from './request';
import type { Response } from './response';

export interface Application<LocalsObj extends Record<string, any> = Record<string, any>>
  extends EventEmitter, IRouter, Express.Application {
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
  /**
   * The template engines registered by `app.engine`, by extension (`.ejs`).
   * Optional, as are the other members @types/express's `Application` lacks
   * (`request`, `response`, `del`, and the method matchers listed on IRouter),
   * so that its `Application` and `Express`, and through `req.app` its
   * `Request`, are assignable to webapp's; an app has them all at run time.
   */
  engines?: Record<string, (path: string, options: object, callback: (e: any, rendered?: string) => void) => void>;

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
  param(callback: (name: string, matcher: RegExp) => RequestParamHandler | undefined): this;

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
  listen(options: ListenOptions, listeningListener?: () => void): http.Server;
  // Last, as in @types/express: what `Parameters<Express['listen']>` reads.
  listen(handle: any, listeningListener?: () => void): http.Server;

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
  // A method, not a function-typed property: its parameters are then compared
  // both ways, so @types/express's `on: (event: 'mount', ...)` fits here. Only
  // 'mount', as there: the callback's `parent` is wrong for any other event.
  on(event: 'mount', callback: (parent: Application) => void): this;

  mountpath: string | string[];
  parent?: Application;

  request?: Request;
  response?: Response;

  /**
   * Routes DELETE requests.
   * @deprecated use `app.delete`.
   * @example
   * app.del('/item/:id', (req, res) => res.sendStatus(204));
   */
  del?: IRouterMatcher<this, 'delete'>;
}

/**
 * What `webapp()` returns. As @types/express's `Express`, it adds `request` and
 * `response` to `Application`; the members @types/express lacks (`engines`,
 * `del`, the method matchers listed on IRouter) stay optional, so that its
 * `Express` is assignable to webapp's. An app has them all at run time.
 */
export interface Express extends Application {
  request: Request;
  response: Response;
}
