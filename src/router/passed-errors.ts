/**
 * The errors a request's `next` was just given, remembered until the current
 * microtask turn ends. What for: webapp passes a handler's rejected promise to
 * `next` (forwardRejection in layer.ts), and so do wrappers that return the promise
 * they watch: express-async-errors wraps every layer's function in one that calls
 * `ret.catch(err => next(err))` and returns `ret`. The rejection then reached the
 * error handlers twice (and the final handler, which logs it, after the response).
 *
 * Both are reactions to the same promise, queued together when it rejects and run one
 * after the other, the wrapper's first (it attached its own inside the call). So when
 * webapp's runs, the wrapper's `next(err)` has just happened, in this turn, for this
 * request and this error. A turn later it is forgotten: an async error handler that
 * rethrows the error it was given is still passed on.
 *
 * A rejection without a reason (`throw undefined`, `Promise.reject()`) is a case of its
 * own: the wrapper calls `next(undefined)`, which is `next()`, and Express goes on to
 * the next route; webapp would pass `Error('Rejected promise')` as well, and the error
 * handlers ran beside the next route (one answering from a callback then threw
 * ERR_HTTP_HEADERS_SENT out of the process). So the rejection is passed on only if the
 * request has not gone on since the handler returned: a router's walk gives the request
 * a new `params` at each layer (forwardRejection compares them), and a route's `next`
 * between its own handlers, which share one `params`, is noted here while a handler's
 * promise is pending: which request the last was for, and how many there were. (Not
 * the router's `next`: one call more in its walk, run at every layer, made V8 stop
 * inlining the walk, 60 instructions a layer; only its leaving without entering a layer,
 * where a wrapper's `next(undefined)` after the handler's own `next` ends.)
 */
import type { IncomingMessage } from 'node:http';

/** Request, error, request, error...: the pairs seen this turn (rarely more than one). */
const passed: unknown[] = [];
let forgetQueued = false;
/**
 * Queues `forget` as a promise reaction, not with `queueMicrotask`: both run at the end
 * of this turn, but fake timers (Jest's modern ones, @sinonjs/fake-timers) replace the
 * global `queueMicrotask` and never run what it was given unless the test advances the
 * clock. `forget` would then never run, `forgetQueued` stay true for the rest of the
 * process, and every later error rethrown by an async error handler be taken for one
 * just passed: swallowed, and its request left without an answer. Promises cannot be faked.
 */
const resolved = Promise.resolve();

function forget(): void {
  passed.length = 0;
  forgetQueued = false;
}

/** Called by a router's and a route's `next` when given an error (any value but undefined). */
export function notePassedError(req: IncomingMessage, err: unknown): void {
  passed.push(req, err);
  if (!forgetQueued) {
    forgetQueued = true;
    void resolved.then(forget);
  }
}

/** Whether `next` was given `err` for `req` earlier in this microtask turn. */
export function wasJustPassed(req: IncomingMessage, err: unknown): boolean {
  for (let i = 0; i < passed.length; i += 2) {
    if (passed[i] === req && passed[i + 1] === err) return true;
  }
  return false;
}

/** Promises returned by handlers that have not settled yet (see forwardRejection in layer.ts). */
let pendingHandlerPromises = 0;
/**
 * `next()` calls (no error) noted while such a promise was pending, and the request of
 * the last, held weakly: a promise that never settles (a long poll, an event stream)
 * keeps the count above zero for good, and the request, its body with it, would stay
 * alive until some other request's `next()` took its place.
 */
let plainNexts = 0;
let lastPlainNextFor: WeakRef<IncomingMessage> | undefined;

/** Called by a route's `next` when given no error, and by a router's walk that leaves without entering a layer. */
export function notePlainNext(req: IncomingMessage): void {
  if (pendingHandlerPromises === 0) return;
  plainNexts++;
  if (lastPlainNextFor?.deref() !== req) lastPlainNextFor = new WeakRef(req);
}

/**
 * Watches a promise a handler returned for `req`; the answer is a test, for its
 * rejection, of whether `next()` was called for `req` since (and last): by a wrapper
 * reacting to the same rejection just before, or by the handler itself.
 */
export function watchHandlerPromise(req: IncomingMessage): () => boolean {
  pendingHandlerPromises++;
  const mark = plainNexts;
  return () => plainNexts !== mark && lastPlainNextFor?.deref() === req;
}

/** The promise watched by watchHandlerPromise settled. */
export function handlerPromiseSettled(): void {
  pendingHandlerPromises--;
  if (pendingHandlerPromises === 0) lastPlainNextFor = undefined;
}
