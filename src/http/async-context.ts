/**
 * Keeping the caller's async context (AsyncLocalStorage stores) across I/O.
 * A callback run from a stream or socket event executes in the context of
 * whatever emitted the event, not of the middleware that registered it: a store
 * a tracing, logging or request-id library entered before a body parser would
 * be gone in the next middleware. Middleware that continues after such events
 * binds its continuation once, when it starts the I/O, and only then: paths
 * that call `next` synchronously (or through fs/timer callbacks, which keep the
 * context already) pay nothing.
 */
import { AsyncResource } from 'node:async_hooks';

/** `fn`, bound to run in the async context current at this call (keeps `fn.length`). */
export function inCallerContext<F extends (...args: never[]) => unknown>(fn: F): F {
  return AsyncResource.bind(fn as unknown as (...args: unknown[]) => unknown) as unknown as F;
}
