/**
 * The `webapp:layer` trace: one per layer call (middleware, router or mounted
 * app, route handler, error handler). start/end bracket the synchronous call;
 * `error` reports an error thrown, passed to next() or rejected with;
 * asyncStart/asyncEnd mark the layer finished: it called next(), or the
 * response finished without it doing so.
 *
 * It also keeps what no single layer knows: the route template with every
 * mount path joined (`/api` + `/users/:id`), and the enclosing router's trace.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { onFinished } from '../http/on-finished';
import {
  callErrorHandler,
  callHandler,
  pathPatternOf,
  type Handler,
  type Layer,
  type NextFunction,
} from '../router/layer';
import type { PathPattern } from '../router/path-pattern';
import type { Route } from '../router/route';
import { isTraced, kRequestTrace, layerChannel, type LayerKind, type LayerTrace } from './channels';
import type { TracedRequest } from './request';

const kMount = Symbol('webapp.tracing.mount');
const kRoute = Symbol('webapp.tracing.route');

/** Where the request is: the mount template and trace of the router or app it is in. */
interface Mount {
  template: string;
  trace: LayerTrace | undefined;
}

/** The route whose handlers are running, and its full template. */
interface RouteInProgress {
  route: Route;
  template: string;
}

interface RoutedRequest extends TracedRequest {
  [kMount]?: Mount;
  [kRoute]?: RouteInProgress;
}

/** Marks a call of a request handler (no error to pass) for `traceLayer`. */
export const NO_ERROR: unique symbol = Symbol('webapp.tracing.noError');

/**
 * `base` followed by a registered path, as a template:
 * `''` + `/` is `/`, `/api` + `/users/:id` is `/api/users/:id`.
 */
function joinTemplate(base: string, path: PathPattern | undefined): string {
  // A layer not made by the Layer constructor nor copied from one: its path is unknown.
  if (path === undefined) return base === '' ? '/' : base;
  // A RegExp keeps its closing `/` (`/^\/re$/`), as the Express instrumentation names it.
  let part = typeof path === 'string' ? path : Array.isArray(path) ? path.map(String).join(',') : String(path);
  if (part === '/') part = '';
  else if (typeof path === 'string' && part.length > 1 && part[part.length - 1] === '/') part = part.slice(0, -1);
  // One slash between the parts: a RegExp mount's template ends in its own `/`
  // (`/^\/v\d+/` then `/ping`), and the Express instrumentation collapses the pair.
  if (part[0] === '/' && base[base.length - 1] === '/') part = part.slice(1);
  const joined = base + (part === '' || part[0] === '/' || base[base.length - 1] === '/' ? part : '/' + part);
  return joined === '' ? '/' : joined;
}

function isRouter(handle: Handler): boolean {
  const fn = handle as Handler & { stack?: unknown; handle?: unknown };
  return (Array.isArray(fn.stack) && typeof fn.handle === 'function') || fn.name === 'mounted_app';
}

/** Calls the layer's function as Layer does, with `next` (a throw or a rejected promise goes to next too). */
function invoke(layer: Layer, error: unknown, req: IncomingMessage, res: ServerResponse, next: NextFunction): void {
  if (error === NO_ERROR) callHandler(layer.handle, req, res, next);
  else callErrorHandler(layer.handle, error, req, res, next);
}

/** Runs one layer call with its trace. `error` is NO_ERROR for request handlers and middleware. */
export function traceLayer(
  layer: Layer,
  error: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  next: NextFunction,
): void {
  const routed = req as RoutedRequest;
  const mount = routed[kMount];
  const base = mount === undefined || mount.template === '/' ? '' : mount.template;
  const route = layer.route;

  if (route !== undefined) {
    // A router's entry for a route is no span of its own: its handlers are, under the route's template.
    const outer = routed[kRoute];
    routed[kRoute] = { route, template: joinTemplate(base, route.path) };
    invoke(layer, error, req, res, (err?: unknown) => {
      routed[kRoute] = outer;
      next(err);
    });
    return;
  }

  const inRoute = routed[kRoute];
  const handler = inRoute !== undefined && inRoute.route.stack.includes(layer);
  const router = !handler && error === NO_ERROR && isRouter(layer.handle);
  const kind: LayerKind =
    error !== NO_ERROR ? 'error_handler' : handler ? 'request_handler' : router ? 'router' : 'middleware';
  const trace: LayerTrace = {
    req,
    res,
    layer,
    name: layer.name,
    kind,
    route: handler ? inRoute.template : joinTemplate(base, pathPatternOf(layer)),
    parent: mount?.trace,
    request: routed[kRequestTrace],
    handledError: error === NO_ERROR ? undefined : error,
  };
  if (handler && trace.request !== undefined) trace.request.route = trace.route;

  let finished = false;
  /** Publishes the layer's end, then runs `then` (the rest of the chain) in asyncStart's stores. */
  const finish = (err?: unknown, then?: () => void) => {
    if (finished) return then?.();
    finished = true;
    if (err && err !== 'route' && err !== 'router') {
      trace.error = err;
      layerChannel.error.publish(trace);
    }
    // Why runStores: the layers and `param` callbacks after this one run in the context a
    // subscriber binds to asyncStart, not in this layer's (webapp/otel makes the enclosing
    // router's span the active one again, as the Express instrumentation does for `next`),
    // as Node's own TracingChannel.traceCallback runs a callback.
    layerChannel.asyncStart.runStores(trace, () => {
      layerChannel.asyncEnd.publish(trace);
      then?.();
    });
  };
  // A middleware is a mount too, as a router is: what it runs itself (an app or router it
  // calls, `router.use('/x', app)`, `(req, res, next) => api(req, res, next)`) is under its
  // path and its trace, as the Express instrumentation keeps a middleware's path while it runs.
  const mounts = kind === 'router' || kind === 'middleware';
  const tracedNext: NextFunction = (err?: unknown) => {
    if (mounts) routed[kMount] = mount;
    finish(err, () => next(err));
  };
  // A handler that answers never calls next(): it is finished with the response.
  if (isTraced(layerChannel)) onFinished(res, () => finish());
  if (mounts) routed[kMount] = { template: trace.route, trace };

  layerChannel.start.runStores(trace, () => {
    try {
      invoke(layer, error, req, res, tracedNext);
    } finally {
      layerChannel.end.publish(trace);
    }
  });
}
