/**
 * `setImmediate(fn, ...args)`, or `process.nextTick` where the global is missing, as
 * finalhandler, on-finished and express-session schedule their calls. Jest's jsdom
 * environment (Jest 28 and later) has no `setImmediate`: an app tested there threw a
 * ReferenceError out of `app(req, res)` for every request whose walk passed the last
 * layer (a 404, an error without an error handler), and the client got no answer.
 */
export function defer<Args extends unknown[]>(fn: (...args: Args) => void, ...args: Args): void {
  if (typeof setImmediate === 'function') setImmediate(fn, ...args);
  else process.nextTick(fn, ...args);
}
