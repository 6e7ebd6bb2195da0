/**
 * `router.process_params`: the router's `param` callbacks for a matched layer. In a
 * module of its own so that the dispatch can tell this function from a replacement:
 * APM agents (Sentry's Express integration, New Relic, Datadog) wrap the router
 * prototype's `process_params` to learn each matched layer, and Express calls it for
 * every one, with or without params. While it is this function, the dispatch calls it
 * only for layers that have param callbacks to run.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ParamCall, RoutedRequest } from './dispatch';
import { whenRejected, type Layer, type NextFunction } from './layer';
import type { ParamHandler, Router } from './index';

/**
 * Runs the `param` callbacks of the layer's parameters, in order, once per request
 * per parameter value (a value seen before restores its result, an error is replayed).
 */
export function processParams(
  this: Router,
  layer: Layer,
  called: Record<string, ParamCall>,
  rawReq: IncomingMessage,
  res: ServerResponse,
  done: NextFunction,
): void {
  const req = rawReq as RoutedRequest;
  const params = this.params;
  const keys = layer.keys;
  let i = 0;
  let paramIndex = 0;
  // A capture without a name (`*`, a RegExp group) is numbered: callbacks get the number, as in Express.
  let name: string | number;
  let paramValue: unknown;
  let callbacks: ParamHandler[] | undefined;
  let call: ParamCall;
  /** Calls of the callbacks' `next` so far: whether the chain went on since a callback returned. */
  let steps = 0;

  const nextParam = (err?: unknown): void => {
    if (err) {
      done(err);
      return;
    }
    if (i >= keys.length) {
      done();
      return;
    }
    paramIndex = 0;
    name = keys[i++].name;
    paramValue = req.params![name];
    callbacks = Object.prototype.hasOwnProperty.call(params, name) ? params[name] : undefined;
    const previous = called[name];
    if (paramValue === undefined || !callbacks) {
      nextParam();
      return;
    }
    if (previous && (previous.match === paramValue || (previous.error && previous.error !== 'route'))) {
      req.params![name] = previous.value;
      nextParam(previous.error);
      return;
    }
    called[name] = call = { error: null, match: paramValue, value: paramValue };
    paramCallback();
  };

  const paramCallback = (err?: unknown): void => {
    steps++;
    const fn = callbacks![paramIndex++];
    call.value = req.params![name];
    if (err) {
      call.error = err;
      nextParam(err);
      return;
    }
    if (!fn) {
      nextParam();
      return;
    }
    try {
      const result = fn(req, res, paramCallback, paramValue, name as string);
      whenRejected(result, forwardRejected(call, steps));
    } catch (e) {
      paramCallback(e);
    }
  };

  /**
   * A rejected callback's error, unless the callback already passed that same error
   * on: express-async-errors wraps `param` callbacks and calls `next(err)` itself on a
   * rejection, which would otherwise run the error handlers twice. A rejection without
   * a reason (undefined, null, 0, '') is `Error('Rejected promise')`, unless the chain
   * went on since the callback returned: that wrapper's `next(null)` is `next()`, and
   * the route already ran (the error handlers then ran after it too).
   */
  const forwardRejected =
    (current: ParamCall, mark: number) =>
    (reason: unknown): void => {
      if (reason ? current.error === reason : steps !== mark) return;
      paramCallback(reason || new Error('Rejected promise'));
    };

  nextParam();
}

// Express's name for it, which a wrapper that logs or copies the name sees.
Object.defineProperty(processParams, 'name', { value: 'process_params' });
