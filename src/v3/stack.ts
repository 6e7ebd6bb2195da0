/**
 * The middleware stack of a 3.x app (Connect 2's dispatcher): `use(route, fn)`
 * mounts on a literal path prefix, matched case-insensitively, that must be
 * followed by `/`, `.` or the end; the prefix is stripped from `req.url` while the
 * middleware runs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from 'node:http';
import { defer } from '../http/defer';
import { parseUrl } from '../http/parse-url';
import { callErrorHandler, handleRequest as runHandler, type Handler, type NextFunction } from '../router/layer';
import { finalHandler3 } from './final-handler';

export interface StackEntry {
  route: string;
  handle: Handler;
}

interface StackApp {
  stack: StackEntry[];
  route?: unknown;
  get(setting: string): unknown;
}

interface MountableServer {
  handle: (req: IncomingMessage, res: ServerResponse, next: NextFunction) => void;
  route?: string;
}

/**
 * Connect's `app.use(route, fn)` once the app's `use` has defaulted the route: a
 * server-like `fn` (with `handle`) is mounted through its handle.
 */
export function useMiddleware(app: StackApp, route: string, fn: unknown): void {
  let handle = fn;
  if (typeof (handle as MountableServer).handle === 'function') {
    const server = handle as MountableServer;
    server.route = route;
    handle = (req: IncomingMessage, res: ServerResponse, next: NextFunction) => server.handle(req, res, next);
  }
  if (handle instanceof Server) handle = handle.listeners('request')[0];
  let mount = route;
  if (mount[mount.length - 1] === '/') mount = mount.slice(0, -1);
  app.stack.push({ route: mount, handle: handle as Handler });
}

/** Connect's `app.handle(req, res, out)`. */
export function handleRequest(
  app: StackApp,
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  out?: NextFunction,
): void {
  const stack = app.stack;
  const url = req.url ?? '/';
  const searchIndex = url.indexOf('?');
  const pathLength = searchIndex !== -1 ? searchIndex : url.length;
  const fqdn = url[0] !== '/' ? 1 + url.substring(0, pathLength).indexOf('://') : 0;
  const protohost = fqdn ? url.substring(0, url.indexOf('/', 2 + fqdn)) : '';
  let removed = '';
  let slashAdded = false;
  let index = 0;
  const done = out ?? finalHandler3(req, res, { env: String(app.get('env') ?? 'development') });

  const next: NextFunction = (err?: unknown) => {
    if (slashAdded) {
      req.url = req.url!.substring(1);
      slashAdded = false;
    }
    req.url = protohost + removed + req.url!.substring(protohost.length);
    req.originalUrl = req.originalUrl || req.url;
    removed = '';

    const layer = stack[index++];
    if (!layer) {
      defer(done, err);
      return;
    }
    try {
      let path = parseUrl(req)?.pathname;
      if (path == null) path = '/';
      if (path.toLowerCase().indexOf(layer.route.toLowerCase()) !== 0) return next(err);
      const c = path[layer.route.length];
      if (c && c !== '/' && c !== '.') return next(err);

      removed = layer.route;
      req.url = protohost + req.url!.substring(protohost.length + removed.length);
      if (!fqdn && req.url[0] !== '/') {
        req.url = '/' + req.url;
        slashAdded = true;
      }
      if (err) callErrorHandler(layer.handle, err, req, res, next);
      // Called only below an arity of 4, as Connect asks it: a value `use` took that is
      // no function and has no length (`app.use(/^\/x/, fn)`, 4.x style, which 3.x reads
      // as `use(regexp)`; an object) is passed over, not called on every request.
      else if (layer.handle.length < 4) runHandler(layer.handle, req, res, next);
      else next();
    } catch (e) {
      next(e);
    }
  };
  next();
}
