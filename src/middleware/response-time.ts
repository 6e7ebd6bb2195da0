/**
 * `responseTime([options | digits | fn])`: the time from this middleware to the
 * response head, in `X-Response-Time` (`digits` 3, `header`, `suffix` "ms"), or
 * handed to `fn(req, res, ms)`. An existing header is kept.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { deprecate } from '../http/deprecate';
import { onHeaders } from './on-headers';
import type { Middleware } from './types';
import { named } from '../named';

export type ResponseTimeHandler = (req: IncomingMessage, res: ServerResponse, time: number) => void;
export interface ResponseTimeOptions {
  digits?: number;
  header?: string;
  suffix?: boolean;
}

function headerSetter(options: ResponseTimeOptions): ResponseTimeHandler {
  const digits = options.digits !== undefined ? options.digits : 3;
  const header = options.header || 'X-Response-Time';
  const suffix = options.suffix !== undefined ? Boolean(options.suffix) : true;
  return (_req, res, time) => {
    if (res.getHeader(header)) return;
    res.setHeader(header, time.toFixed(digits) + (suffix ? 'ms' : ''));
  };
}

export function responseTime(options?: ResponseTimeOptions | ResponseTimeHandler | number): Middleware {
  let opts: ResponseTimeOptions | ResponseTimeHandler;
  if (typeof options === 'number') {
    deprecate('number argument: use {digits: ' + JSON.stringify(options) + '} instead', 'response-time');
    opts = { digits: options };
  } else {
    opts = options || {};
  }
  const record = typeof opts === 'function' ? opts : headerSetter(opts);
  return named('responseTime', function (req, res, next) {
    const start = process.hrtime();
    onHeaders(res, () => {
      const [seconds, nanos] = process.hrtime(start);
      record(req, res, seconds * 1e3 + nanos * 1e-6);
    });
    next();
  });
}
