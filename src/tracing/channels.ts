/**
 * webapp's `node:diagnostics_channel` tracing channels, what they carry, and
 * whether anyone listens. `tracingChannel('webapp:request')` traces each request
 * through an app; `tracingChannel('webapp:layer')` each middleware, route handler
 * and error handler a request runs through. docs/tracing.md describes the events.
 *
 * Only this module loads with webapp: the code that publishes the traces
 * (request.ts, layer.ts) loads when a request first finds a subscriber.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
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
 * Whether someone listened to a webapp channel when a request last entered a router.
 * Why not ask the channels at every layer: that is ten `hasSubscribers` getters, about
 * 10 ns, and a request runs every layer of its chain (a tenth of the router's cost per
 * layer). So a subscription made while requests are in flight applies from the next
 * router a request enters.
 */
let layersTraced = false;

/** Asks the channels again; the router calls it as a request enters. */
export function refreshTracingState(): void {
  layersTraced = isTraced(layerChannel) || isTraced(requestChannel);
}

/** Whether a layer call must go through `traceLayer` (see refreshTracingState). */
export function isTracingActive(): boolean {
  return layersTraced;
}
