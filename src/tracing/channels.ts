/**
 * webapp's `node:diagnostics_channel` tracing channels and what they carry.
 * `tracingChannel('webapp:request')` traces each request through an app;
 * `tracingChannel('webapp:layer')` each middleware, route handler and error
 * handler a request runs through. docs/tracing.md describes the events.
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
