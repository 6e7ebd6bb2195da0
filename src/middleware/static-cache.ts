/**
 * `staticCache([options])`: Connect 2.30's, as Express 3.21 runs it. It marks GET and
 * HEAD requests (but Range requests) `X-Cache: MISS` and passes every request on; it
 * keeps nothing, so `static()` and whatever runs before it answer every request.
 *
 * Why it stores nothing: in Connect 2.30 nothing emits the `'static'` event its cache
 * listens for, so 3.21 apps run with a cache that never stores. A working one (webapp
 * had it) changes what those apps answer, and unsafely: it sits in front of the app's
 * own checks and cannot know what they decided. With `basicAuth()` or an IP allow-list
 * between it and a `static()` that sets a `max-age`, a file one client was allowed to
 * fetch was then served to every client from memory, and headers set for one request
 * (CORS's `Access-Control-Allow-Origin`) were replayed to the others. Its deprecation
 * notice says where caching belongs: a reverse proxy in front of the app.
 *
 * `maxObjects` and `maxLength` are accepted and have nothing to limit.
 */
import type { IncomingMessage } from 'node:http';
import { deprecate } from '../http/deprecate';
import type { Middleware } from './types';
import { named } from '../named';

export interface StaticCacheOptions {
  /** How many responses Connect's cache would keep (default 128); nothing is kept. */
  maxObjects?: number;
  /** The largest body Connect's cache would keep (default 256kb); nothing is kept. */
  maxLength?: number;
}

/** Whether Connect's cache would look the request up: GET and HEAD without a Range. */
function isLookedUp(req: IncomingMessage): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && req.headers.range === undefined;
}

export function staticCache(_options?: StaticCacheOptions): Middleware {
  deprecate('staticCache: use varnish or similar reverse proxy caches');
  return named('staticCache', function (req, res, next) {
    if (isLookedUp(req)) res.setHeader('X-Cache', 'MISS');
    next();
  });
}
