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
 */
import type { IncomingMessage } from 'node:http';

/** Request, error, request, error...: the pairs seen this turn (rarely more than one). */
const passed: unknown[] = [];
let forgetQueued = false;

function forget(): void {
  passed.length = 0;
  forgetQueued = false;
}

/** Called by a router's and a route's `next` when given an error (any value but undefined). */
export function notePassedError(req: IncomingMessage, err: unknown): void {
  passed.push(req, err);
  if (!forgetQueued) {
    forgetQueued = true;
    queueMicrotask(forget);
  }
}

/** Whether `next` was given `err` for `req` earlier in this microtask turn. */
export function wasJustPassed(req: IncomingMessage, err: unknown): boolean {
  for (let i = 0; i < passed.length; i += 2) {
    if (passed[i] === req && passed[i + 1] === err) return true;
  }
  return false;
}
