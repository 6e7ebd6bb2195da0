/**
 * `limit(bytes)`: rejects bodies larger than `bytes` (a number or a size such
 * as `"1mb"`): 413 at once when Content-Length says so, otherwise the request
 * is destroyed as soon as more than `bytes` have been read. Runs once per request.
 */
import { Buffer } from 'node:buffer';
import { parseBytes } from '../http/bytes';
import { deprecate } from '../http/deprecate';
import { destroyRequest } from '../http/cut-response';
import { createHttpError } from '../http/errors';
import type { Middleware } from './types';
import { named } from '../named';

export function limit(bytes: number | string): Middleware {
  deprecate('limit: Restrict request size at location of read');
  const max = typeof bytes === 'string' ? parseBytes(bytes) : bytes;
  // NaN (`limit(Number(process.env.MAX_BODY))` with the variable unset) compares false
  // with every size: Connect 2.30 took it and limited nothing.
  if (typeof max !== 'number' || Number.isNaN(max)) throw new Error('limit() bytes required');

  return named('limit', function (req, _res, next) {
    const marked = req as typeof req & { _limit?: boolean };
    if (marked._limit) return next();
    marked._limit = true;
    const declared = req.headers['content-length'] ? parseInt(req.headers['content-length'], 10) : null;
    if (declared && declared > max) return next(createHttpError(413));

    // Count only once someone reads: listening earlier would start the flow.
    let received = 0;
    const watch = (event: string | symbol) => {
      if (event !== 'data') return;
      req.removeListener('newListener', watch);
      process.nextTick(() => {
        req.on('data', (chunk: Buffer | string) => {
          received += Buffer.isBuffer(chunk) ? chunk.length : Buffer.byteLength(chunk);
          if (received > max) destroyRequest(req);
        });
      });
    };
    req.on('newListener', watch);
    next();
  });
}
