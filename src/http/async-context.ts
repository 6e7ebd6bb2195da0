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

/**
 * `fn`, to run in the async context current at this call. Why not
 * `AsyncResource.bind` or `AsyncLocalStorage.snapshot()`: on Node 20 and 24 they
 * cost tens of microseconds per call, a resource and a closure under one.
 */
export function inCallerContext<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
  const resource = new AsyncResource('webapp.continuation');
  return (...args: A) => resource.runInAsyncScope(fn, undefined, ...args);
}
