/**
 * webapp's `node:diagnostics_channel` tracing channels, what they carry, and
 * whether anyone listens. `tracingChannel('webapp:request')` traces each request
 * through an app; `tracingChannel('webapp:layer')` each middleware, route handler
 * and error handler a request runs through. docs/tracing.md describes the events.
 *
 * Only this module loads with webapp: the code that publishes the traces
 * (request.ts, layer.ts) loads when a request first finds a subscriber.
 */
import * as diagnosticsChannel from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Layer } from '../router/layer';

export const REQUEST_CHANNEL = 'webapp:request';
export const LAYER_CHANNEL = 'webapp:layer';

/** What a layer is to the request: how APM tools name its span. */
export type LayerKind = 'middleware' | 'router' | 'request_handler' | 'error_handler';

/** The payload of every `webapp:request` event (one object per request). */
export interface RequestTrace {
  req: IncomingMessage;
  res: ServerResponse;
  /** The application the request entered (the outermost one). */
  app: unknown;
  /**
   * The template of the route whose handlers ran last, mount paths joined (`/api/users/:id`),
   * until one ran undefined.
   */
  route: string | undefined;
  /** The error the app's final handler received, if any. */
  error?: unknown;
}

/** The payload of every `webapp:layer` event (one object per layer call). */
export interface LayerTrace {
  req: IncomingMessage;
  res: ServerResponse;
  layer: Layer;
  /** The function's name, as `layer.name` (`<anonymous>` when it has none). */
  name: string;
  kind: LayerKind;
  /** For handlers the route template; for middleware and routers the mount path; mount paths joined. */
  route: string;
  /** The enclosing router or mounted app's trace, or undefined at the app's top level. */
  parent: LayerTrace | undefined;
  /** The request's trace, when `webapp:request` had subscribers as the request entered. */
  request: RequestTrace | undefined;
  /**
   * For an error handler, the error it was called with: what an agent reports as
   * handled, whichever layer or `param` callback raised it (callbacks have no trace).
   */
  handledError: unknown;
  /** The error the layer threw, passed to next() or rejected with. */
  error?: unknown;
}

type Channels<T extends object> = diagnosticsChannel.TracingChannel<object, T>;

export const requestChannel = diagnosticsChannel.tracingChannel(REQUEST_CHANNEL) as Channels<RequestTrace>;
export const layerChannel = diagnosticsChannel.tracingChannel(LAYER_CHANNEL) as Channels<LayerTrace>;

/**
 * Whether anyone listens to any of the channel's events. Why not always
 * `channel.hasSubscribers`: Node lines before 20.13 do not have it.
 */
export function isTraced(channel: Channels<object>): boolean {
  const own = (channel as { hasSubscribers?: boolean }).hasSubscribers;
  if (own !== undefined) return own;
  return (
    channel.start.hasSubscribers ||
    channel.end.hasSubscribers ||
    channel.asyncStart.hasSubscribers ||
    channel.asyncEnd.hasSubscribers ||
    channel.error.hasSubscribers
  );
}

/** Where a traced request keeps its `webapp:request` trace. */
export const kRequestTrace = Symbol('webapp.tracing.request');

/** Whether the request is already traced by an app it went through first. */
export function isRequestTraced(req: IncomingMessage): boolean {
  return (req as IncomingMessage & { [kRequestTrace]?: RequestTrace })[kRequestTrace] !== undefined;
}

/**
 * Whether someone listened to a webapp channel when a request last entered an app, or a
 * router outside an app. Why not ask the channels at every layer: that is a dozen
 * `hasSubscribers` getters, and a request runs every layer of its chain (a tenth of the
 * router's cost per layer). Nor at every router: an app and three nested routers asked
 * them four times per request. So a subscription made while requests are in flight
 * applies from the next request that enters an app or router.
 */
let layersTraced = false;
let requestsTraced = false;

/**
 * Whether an app is running a request on this call stack, so that the routers it enters
 * need not ask again. A flag, not the request: storing a request in this module's state
 * would cost V8 a write barrier per request, and keep the last request alive.
 */
let inApp = false;

function askChannels(): void {
  requestsTraced = isTraced(requestChannel);
  layersTraced = requestsTraced || isTraced(layerChannel);
}

/**
 * Called as a request enters an app: asks the channels. `leaveApp` follows when the
 * app's router returns. Not in a `finally`: the block kept V8 (Node 20) from inlining the
 * router's entry into the app's. Should a throw skip `leaveApp`, apps still ask at
 * every entry, and a router outside an app asks again once an app has left.
 */
export function enterApp(): void {
  askChannels();
  inApp = true;
}

/** Called as the router of the app `enterApp` was called for returns. */
export function leaveApp(): void {
  inApp = false;
}

/** Called as a request enters a router: asks the channels unless an app on this call stack has. */
export function enterRouter(): void {
  if (!inApp) askChannels();
}

/** Whether a layer call must go through `traceLayer` (see enterApp). */
export function isTracingActive(): boolean {
  return layersTraced;
}

/** Whether `webapp:request` had subscribers when the request entered (see enterApp). */
export function isRequestTracingActive(): boolean {
  return requestsTraced;
}
