/**
 * `timeout([ms = 5000], { respond })`: after `ms` (a number or a duration such
 * as `"10s"`) without a response head, `req.timedout` becomes true, `req` emits
 * `timeout`, and (unless `respond: false`) a 503 `Response timeout` error
 * (`code` ETIMEDOUT, `timeout`) goes to `next`. `req.clearTimeout()` cancels.
 */
import { createHttpError } from '../http/errors';
import { parseMs } from '../http/ms';
import { onHeaders } from './on-headers';
import type { Middleware } from './types';

export interface TimeoutOptions {
  respond?: boolean;
}

type TimedRequest = { timedout?: boolean; clearTimeout?: () => void };

export function timeout(time?: number | string, options?: TimeoutOptions): Middleware {
  const opts = options || {};
  const delay = typeof time === 'string' ? (parseMs(time) as number) : Number(time || 5000);
  const respond = !('respond' in opts) || opts.respond === true;

  return function timeout(req, res, next) {
    const timed = req as typeof req & TimedRequest;
    const socket = req.socket;
    const destroy = socket.destroy;
    const timer = setTimeout(() => {
      timed.timedout = true;
      req.emit('timeout', delay);
    }, delay);
    if (respond) {
      req.on('timeout', () => next(createHttpError(503, 'Response timeout', { code: 'ETIMEDOUT', timeout: delay })));
    }
    timed.clearTimeout = () => clearTimeout(timer);
    // A destroyed socket will never be answered: stop the clock with it.
    socket.destroy = function destroyAndClear(this: typeof socket, ...args: Parameters<typeof destroy>) {
      clearTimeout(timer);
      return destroy.apply(this, args);
    };
    timed.timedout = false;
    onHeaders(res, () => clearTimeout(timer));
    next();
  };
}
