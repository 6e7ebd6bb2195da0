/// <reference types="node" preserve="true" />
/**
 * `require('webapp/otel')`: OpenTelemetry spans from webapp's tracing channels.
 * With `@opentelemetry/instrumentation-http` (which makes the server span), it
 * names the server span `GET /users/:id`, sets `http.route`, and adds a child
 * span per middleware, router, route handler and error handler, as the Express
 * instrumentation does for Express. Each layer's span is the active span while the
 * layer runs (and in the work it starts), so spans a handler starts are its
 * children. A request no server span covers (HTTP/2, which instrumentation-http does
 * not trace) gets one of webapp's. Only this entry loads `@opentelemetry/api` (an
 * optional peer dependency of webapp).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import * as diagnosticsChannel from 'node:diagnostics_channel';
import {
  context,
  createContextKey,
  diag,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import {
  LAYER_CHANNEL,
  REQUEST_CHANNEL,
  type LayerKind,
  type LayerTrace,
  type RequestTrace,
} from '../tracing/channels';

export type { LayerKind, LayerTrace, RequestTrace };
export { LAYER_CHANNEL, REQUEST_CHANNEL };

export interface InstrumentOptions {
  /** Where spans come from (default: the global provider). */
  tracerProvider?: TracerProvider;
  /** Layer kinds that get no span of their own (e.g. `['middleware']`). */
  ignoreLayersType?: LayerKind[];
}

export interface Instrumentation {
  /** Stops making spans (unsubscribes from the channels). */
  disable(): void;
}

/** Attribute names on layer spans, beside the standard `http.route`. */
export const ATTR_LAYER_NAME = 'webapp.name';
export const ATTR_LAYER_TYPE = 'webapp.type';
const ATTR_HTTP_ROUTE = 'http.route';

/**
 * The key under which @opentelemetry/core keeps the HTTP server's RPC metadata:
 * createContextKey derives keys from the description, so this is the same key.
 * instrumentation-http names the span from its `route` when the response ends.
 */
const RPC_METADATA = createContextKey('OpenTelemetry SDK Context Key RPC_METADATA');

interface RequestState {
  context: Context;
  server: Span | undefined;
  /** Whether `server` is webapp's own span (named as it ends, from `route`). */
  own: boolean;
  /** The route the last naming layer gave the request (see requestRoute). */
  route: string | undefined;
}

const SPAN_NAMES: Record<LayerKind, (trace: LayerTrace) => string> = {
  middleware: (t) => 'middleware - ' + t.name,
  router: (t) => 'router - ' + t.route,
  request_handler: (t) => 'request handler - ' + t.route,
  error_handler: (t) => 'error handler - ' + t.name,
};

/** What `requestRoute` returns for a layer that leaves the request's route as it is. */
const KEEPS_ROUTE = Symbol('keeps route');

/**
 * The route a layer gives the request as it starts, as the Express instrumentation gives
 * it: the last layer to start wins. A route's handler gives its template; a middleware or
 * router mounted at a path gives that path (`GET /static`), until a layer after it names
 * the request again. One at the top (mounted at `/`) takes the route away, as on Express,
 * so that a request a catch-all answers after passing through `/static` is not named
 * `GET /static`. Error handlers leave the route as it is (the Express instrumentation
 * makes no span for them).
 */
function requestRoute(layer: LayerTrace): string | undefined | typeof KEEPS_ROUTE {
  if (layer.kind === 'error_handler') return KEEPS_ROUTE;
  return layer.kind === 'request_handler' || layer.route !== '/' ? layer.route : undefined;
}

/**
 * The status message of a span whose layer failed with `error`. Never throws: a
 * subscriber's throw is rethrown by diagnostics_channel as an uncaught exception,
 * and an app may pass anything to `next` (an object without a prototype, or whose
 * `toString` throws).
 */
function errorMessage(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return Object.prototype.toString.call(error);
  }
}

/**
 * A SERVER span for a request nothing else traced, named and given attributes as
 * instrumentation-http gives its own (method; the route's template once a layer names
 * it), ended when the response closes (or soon after it finished, for a response
 * that never closes), with its status (5xx an error, as there).
 */
function startServerSpan(tracer: Tracer, request: RequestTrace, parent: Context, state: RequestState): Span {
  const { req, res } = request;
  const method = req.method || 'GET';
  const span = tracer.startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': method,
        'url.path': (req.url || '/').split('?', 1)[0],
        'network.protocol.version': req.httpVersion,
      },
    },
    parent,
  );
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    // Named as it ends, as instrumentation-http names its own: the route may be taken away.
    if (state.route !== undefined) {
      span.setAttribute(ATTR_HTTP_ROUTE, state.route);
      span.updateName(method + ' ' + state.route);
    }
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  res.once('close', end);
  // A response of a serverless adapter (@codegenie/serverless-express) finishes and
  // never closes. Node's own closes on the tick after it finished, before this runs.
  res.once('finish', () => setImmediate(end));
  return span;
}

/**
 * Where the registered context manager keeps the active context, when it is
 * OpenTelemetry's AsyncLocalStorageContextManager (what `NodeTracerProvider.register()`
 * and the Node SDK install): the API gives no public way to it, so it is read from the
 * manager's fields, as other tracing-channel consumers do (opentelemetry-js issue 6088
 * asks for a public one). Undefined for any other manager, or none yet.
 */
function contextStorage(): AsyncLocalStorage<Context> | undefined {
  try {
    const api = context as unknown as { _getContextManager?: () => unknown };
    const manager = api._getContextManager?.() as { _asyncLocalStorage?: unknown } | undefined;
    const storage = manager?._asyncLocalStorage;
    return storage instanceof AsyncLocalStorage ? (storage as AsyncLocalStorage<Context>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A store transform that cannot throw: diagnostics_channel reports a transform's
 * exception as an uncaught one. On failure the context stays the one active.
 */
function guardedTransform<T>(name: string, transform: (message: T) => Context): (message: T) => Context {
  return (message) => {
    try {
      return transform(message);
    } catch (err) {
      diag.error(`webapp/otel: ${name} context failed`, err);
      return context.active();
    }
  };
}

type Handlers = Record<string, (message: unknown) => void>;

/**
 * The handlers, each made unable to throw: diagnostics_channel rethrows a subscriber's
 * exception as an uncaught one, which ends the process, and a span is never worth a
 * request (OpenTelemetry's instrumentations likewise only log their own failures).
 */
function guarded(handlers: Handlers): Handlers {
  const safe: Handlers = {};
  for (const [event, handler] of Object.entries(handlers)) {
    safe[event] = (message) => {
      try {
        handler(message);
      } catch (err) {
        diag.error(`webapp/otel: ${event} handler failed`, err);
      }
    };
  }
  return safe;
}

/** The instrumentation at work: one at a time (see `instrument`). */
let current: Instrumentation | undefined;

/**
 * Subscribes to webapp's channels and turns their events into spans until `disable()`.
 * A second call (a preload and the app's own code both instrumenting) disables the
 * instrumentation at work first: two would record every span twice, and both bind the
 * context manager's one storage, so the first one's `disable()` unbound the other's.
 */
export function instrument(options: InstrumentOptions = {}): Instrumentation {
  if (current !== undefined) {
    diag.warn('webapp/otel: instrument() called again: the earlier instrumentation is disabled');
    current.disable();
  }
  /**
   * The tracer spans come from, asked of the provider again as each request enters when
   * none was given. A tracer taken from the API's placeholder before the app registers
   * its provider is connected to it later, but only by the copy of `@opentelemetry/api`
   * that registers it: with webapp linked or in a workspace, webapp loads a copy of its
   * own, and a tracer kept from the first call would have made no span, ever.
   */
  let provider: TracerProvider | undefined;
  let tracer: Tracer;
  const resolveTracer = () => {
    const wanted = options.tracerProvider ?? trace.getTracerProvider();
    if (wanted !== provider) {
      provider = wanted;
      tracer = wanted.getTracer('webapp');
    }
  };
  resolveTracer();
  const ignored = new Set(options.ignoreLayersType ?? []);
  const requests = new WeakMap<RequestTrace, RequestState>();
  const spans = new WeakMap<LayerTrace, Span>();

  /**
   * Records the request's context: the server span's (instrumentation-http's, active
   * as the request enters), or one of webapp's own when nothing traces the server.
   * Idempotent: the store transform and the `start` subscriber both call it.
   */
  const startRequest = (request: RequestTrace): RequestState => {
    const known = requests.get(request);
    if (known !== undefined) return known;
    resolveTracer();
    const active = context.active();
    const server = trace.getSpan(active);
    // No server span: nothing traces this server (instrumentation-http makes none for
    // node:http2, nor without its being registered). One of webapp's own, so that the
    // request's layer spans are one trace under it, not a root span each.
    const state: RequestState = { context: active, server, own: server === undefined, route: undefined };
    if (state.own) {
      state.server = startServerSpan(tracer, request, active, state);
      state.context = trace.setSpan(active, state.server);
    }
    requests.set(request, state);
    return state;
  };

  const requestHandlers = guarded({
    start(message: unknown) {
      bindContextStorage();
      startRequest(message as RequestTrace);
    },
    error(message: unknown) {
      const request = message as RequestTrace;
      const state = requests.get(request);
      if (state?.server && request.error instanceof Error) state.server.recordException(request.error);
    },
  });

  /**
   * The context a layer starts in: the active one, as what ran before the layer left it
   * (a middleware's `context.with(withBaggage, next)` passes its baggage and values on,
   * as under the Express instrumentation), with its nearest traced router's span, else
   * the request's, as the active span.
   */
  const parentContext = (layer: LayerTrace): Context => {
    const active = context.active();
    for (let parent = layer.parent; parent !== undefined; parent = parent.parent) {
      const span = spans.get(parent);
      if (span) return trace.setSpan(active, span);
    }
    const requestSpan = layer.request && trace.getSpan(requests.get(layer.request)?.context ?? active);
    return requestSpan ? trace.setSpan(active, requestSpan) : active;
  };

  const nameServerSpan = (layer: LayerTrace, route: string | undefined) => {
    const state = layer.request && requests.get(layer.request);
    if (!state) return;
    state.route = route;
    const metadata = state.context.getValue(RPC_METADATA) as { route?: string } | undefined;
    // instrumentation-http names its span from the metadata as the response ends, and
    // webapp's own span is named then too: not before, since a later layer may take the
    // route away again (an attribute once set cannot be removed).
    if (metadata) metadata.route = route;
    else if (state.server && !state.own && route !== undefined) {
      state.server.setAttribute(ATTR_HTTP_ROUTE, route);
      state.server.updateName((layer.req.method || 'GET') + ' ' + route);
    }
  };

  /**
   * Names the server span from the layer and starts the layer's span (none for an
   * ignored kind); returns the context the layer runs in. Idempotent, as startRequest.
   */
  const startLayer = (layer: LayerTrace): Context => {
    const parent = parentContext(layer);
    let span = spans.get(layer);
    if (span === undefined) {
      const route = requestRoute(layer);
      if (route !== KEEPS_ROUTE) nameServerSpan(layer, route);
      if (ignored.has(layer.kind)) return parent;
      const attributes: Attributes = { [ATTR_LAYER_NAME]: layer.name, [ATTR_LAYER_TYPE]: layer.kind };
      // The route the layer gives the request, as the Express instrumentation sets it: none
      // for a middleware or router at the top (mounted at `/`), where `/` named nothing.
      const spanRoute = route === KEEPS_ROUTE ? layer.route : route;
      if (spanRoute !== undefined) attributes[ATTR_HTTP_ROUTE] = spanRoute;
      span = tracer.startSpan(SPAN_NAMES[layer.kind](layer), { attributes }, parent);
      spans.set(layer, span);
    }
    return trace.setSpan(parent, span);
  };

  const layerHandlers = guarded({
    start(message: unknown) {
      const layer = message as LayerTrace;
      // Started already by the store transform, when the context storage is bound.
      if (!spans.has(layer)) startLayer(layer);
    },
    error(message: unknown) {
      const layer = message as LayerTrace;
      const span = spans.get(layer);
      if (!span) return;
      const error = layer.error;
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
      if (error instanceof Error) span.recordException(error);
    },
    asyncStart(message: unknown) {
      const layer = message as LayerTrace;
      spans.get(layer)?.end();
    },
  });

  const requestChannel = diagnosticsChannel.tracingChannel(REQUEST_CHANNEL);
  const layerChannel = diagnosticsChannel.tracingChannel(LAYER_CHANNEL);
  const requestContext = guardedTransform('request', (request: RequestTrace) => startRequest(request).context);
  const layerContext = guardedTransform('layer', startLayer);
  /**
   * The context what follows a layer runs in once it calls `next`: the active one (its
   * baggage kept), with the span the layer started under active again, as the Express
   * instrumentation binds `next`. Else a `param` callback that runs before the next layer,
   * and the spans it starts, would be under the layer that ran before, not its router.
   */
  const nextContext = guardedTransform('next', (layer: LayerTrace) => {
    const parent = trace.getSpan(parentContext(layer));
    return parent ? trace.setSpan(context.active(), parent) : context.active();
  });

  /**
   * Makes the request's context, then each layer's, the active one while the app and
   * the layer run (webapp runs both through the channels' `runStores`), by binding the
   * context manager's storage to the `start` channels. Checked again as each request
   * enters: the manager may be registered after `instrument()` (or replaced), and the
   * first request's layers then already run in their spans. Without a storage to bind,
   * spans are made all the same; a span a handler starts is then the server span's child.
   */
  let boundStorage: AsyncLocalStorage<Context> | undefined;
  function bindContextStorage(): void {
    const storage = contextStorage();
    if (storage === boundStorage) return;
    unbindContextStorage();
    if (storage === undefined) return;
    requestChannel.start.bindStore(storage, requestContext as never);
    layerChannel.start.bindStore(storage, layerContext as never);
    layerChannel.asyncStart.bindStore(storage, nextContext as never);
    boundStorage = storage;
  }
  function unbindContextStorage(): void {
    if (boundStorage === undefined) return;
    requestChannel.start.unbindStore(boundStorage);
    layerChannel.start.unbindStore(boundStorage);
    layerChannel.asyncStart.unbindStore(boundStorage);
    boundStorage = undefined;
  }

  requestChannel.subscribe(requestHandlers as never);
  layerChannel.subscribe(layerHandlers as never);
  bindContextStorage();
  let disabled = false;
  const instrumentation: Instrumentation = {
    disable() {
      // Once: a later call must not undo what an instrumentation made since did.
      if (disabled) return;
      disabled = true;
      requestChannel.unsubscribe(requestHandlers as never);
      layerChannel.unsubscribe(layerHandlers as never);
      unbindContextStorage();
      if (current === instrumentation) current = undefined;
    },
  };
  current = instrumentation;
  return instrumentation;
}
