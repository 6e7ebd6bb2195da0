/**
 * Routes (`router.route(path)`) and the layers of `router.stack`.
 */
import type { NextFunction } from './handlers';
import type { IRouterHandler } from './router';
import type { Request } from './request';
import type { Response } from './response';

/**
 * What `router.stack` holds, typed exactly as @types/express-serve-static-core
 * types it. Why not closer to the runtime (whose `keys` are path-to-regexp key
 * objects, `{ name, optional, offset }`, and whose `method` is unset on
 * middleware layers): `stack` is part of `req.app`, so any difference here makes
 * webapp's `Request` and @types/express's `Request` unassignable to each other,
 * and code that hands one to the other (a `(req: Request) => ...` callback of
 * multer, compression, passport; `compression.filter(req, res)`) stops compiling.
 */
export interface ILayer {
  route?: IRoute;
  name: string | '<anonymous>';
  params?: Record<string, any>;
  keys: string[];
  path?: string;
  method: string;
  regexp: RegExp;
  handle: (req: Request, res: Response, next: NextFunction) => any;
}

/**
 * A route. The members @types/express's `IRoute` lacks (`methods`, and the
 * methods from `link` on) are optional, so that its `IRoute` (and, through
 * `req.app`, its `Request`) is assignable to webapp's; they are all there at
 * runtime.
 */
export interface IRoute<Route extends string = string> {
  path: string;
  stack: ILayer[];
  methods?: Record<string, boolean>;
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
  link?: IRouterHandler<this, Route>;
  /**
   * Adds handlers for UNLINK requests on this route.
   * @example
   * app.route('/items/:id').unlink((req, res) => res.send(req.params.id));
   */
  unlink?: IRouterHandler<this, Route>;
  /**
   * Adds handlers for PROPFIND requests on this route.
   * @example
   * app.route('/items/:id').propfind((req, res) => res.send(req.params.id));
   */
  propfind?: IRouterHandler<this, Route>;
  /**
   * Adds handlers for PROPPATCH requests on this route.
   * @example
   * app.route('/items/:id').proppatch((req, res) => res.send(req.params.id));
   */
  proppatch?: IRouterHandler<this, Route>;
  /**
   * Adds handlers for CONNECT requests on this route.
   * @example
   * app.route('/items/:id').connect((req, res) => res.send(req.params.id));
   */
  connect?: IRouterHandler<this, Route>;
  /**
   * Adds handlers for ACL requests on this route.
   * @example
   * app.route('/items/:id').acl((req, res) => res.send(req.params.id));
   */
  acl?: IRouterHandler<this, Route>;
  /**
   * Adds handlers for BIND requests on this route.
   * @example
   * app.route('/items/:id').bind((req, res) => res.send(req.params.id));
   */
  bind?: IRouterHandler<this, Route>;
  /**
   * Adds handlers for MKCALENDAR requests on this route.
   * @example
   * app.route('/items/:id').mkcalendar((req, res) => res.send(req.params.id));
   */
  mkcalendar?: IRouterHandler<this, Route>;
  /**
   * Adds handlers for QUERY requests on this route.
   * @example
   * app.route('/items/:id').query((req, res) => res.send(req.params.id));
   */
  query?: IRouterHandler<this, Route>;
  /**
   * Adds handlers for REBIND requests on this route.
   * @example
   * app.route('/items/:id').rebind((req, res) => res.send(req.params.id));
   */
  rebind?: IRouterHandler<this, Route>;
  /**
   * Adds handlers for SOURCE requests on this route.
   * @example
   * app.route('/items/:id').source((req, res) => res.send(req.params.id));
   */
  source?: IRouterHandler<this, Route>;
  /**
   * Adds handlers for UNBIND requests on this route.
   * @example
   * app.route('/items/:id').unbind((req, res) => res.send(req.params.id));
   */
  unbind?: IRouterHandler<this, Route>;
}
