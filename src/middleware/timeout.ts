/**
 * `timeout([ms = 5000], { respond })`: after `ms` (a number or a duration such
 * as `"10s"`) without a response head, `req.timedout` becomes true, `req` emits
 * `timeout`, and (unless `respond: false`) a 503 `Response timeout` error
 * (`code` ETIMEDOUT, `timeout`) goes to `next`. `req.clearTimeout()` cancels;
 * so do the response's head, its end, and the connection closing.
 */
import { createHttpError } from '../http/errors';
import { onFinished } from '../http/on-finished';
import { parseMsLegacy } from '../http/ms';
import { onHeaders } from './on-headers';
import type { Middleware } from './types';
import { named } from '../named';

export interface TimeoutOptions {
  respond?: boolean;
}

type TimedRequest = { timedout?: boolean; clearTimeout?: () => void };

export function timeout(time?: number | string, options?: TimeoutOptions): Middleware {
  const opts = options || {};
  const delay = typeof time === 'string' ? (parseMsLegacy(time) as number) : Number(time || 5000);
  const respond = !('respond' in opts) || opts.respond === true;

  return named('timeout', function (req, res, next) {
    const timed = req as typeof req & TimedRequest;
    const timer = setTimeout(() => {
      timed.timedout = true;
      req.emit('timeout', delay);
    }, delay);
    if (respond) {
      req.on('timeout', () => next(createHttpError(503, 'Response timeout', { code: 'ETIMEDOUT', timeout: delay })));
    }
    timed.clearTimeout = () => clearTimeout(timer);
    timed.timedout = false;
    onHeaders(res, () => clearTimeout(timer));
    // A connection that closed will never be answered: stop the clock with it.
    // Connect 2.30 wrapped `socket.destroy` for that, once per request: on a
    // keep-alive connection the wrappers nest, and destroying a socket that had
    // carried some ten thousand requests overflowed the stack (an uncaught
    // RangeError). connect-timeout 1.9, used with Express 4, waits as here.
    onFinished(res, () => clearTimeout(timer));
    next();
  });
}
