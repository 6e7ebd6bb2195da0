/**
 * `vhost(hostname, handle)`: runs `handle` (a middleware, an app, or an
 * http.Server, which gets a `request` event) only for requests whose Host
 * matches `hostname` (a string where `*` matches anything, or a RegExp);
 * `req.vhost` carries the host, hostname and the wildcard captures.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware, NextFunction } from './types';

type Handle =
  | ((req: IncomingMessage, res: ServerResponse, next: NextFunction) => void)
  | { emit(event: string, ...args: unknown[]): unknown };

/** Connect 2's pattern: everything but word characters and `*` escaped, `*` lazy. */
function patternOf(hostname: string | RegExp): RegExp {
  if (typeof hostname !== 'string') return hostname;
  return new RegExp('^' + hostname.replace(/[^*\w]/g, '\\$&').replace(/[*]/g, '(?:.*?)') + '$', 'i');
}

/** The pattern anchored at both ends (vhost 3 anchors a RegExp the caller did not). */
function anchored(pattern: RegExp): RegExp {
  let source = pattern.source;
  if (source[0] !== '^') source = '^' + source;
  if (!/(?:^|[^\\])(?:\\\\)*\$$/.test(source)) source += '$';
  return new RegExp(source, 'i');
}

function hostnameOf(host: string): string {
  const offset = host[0] === '[' ? host.indexOf(']') + 1 : 0;
  const colon = host.indexOf(':', offset);
  return colon === -1 ? host : host.slice(0, colon);
}

export function vhost(hostname: string | RegExp, handle: Handle): Middleware {
  if (!hostname) throw new TypeError('argument hostname is required');
  if (!handle) throw new TypeError('argument handle is required');
  const run =
    typeof handle === 'function'
      ? handle
      : typeof handle.emit === 'function'
        ? (req: IncomingMessage, res: ServerResponse) => void handle.emit('request', req, res)
        : null;
  if (!run) throw new TypeError('argument handle must be a function');
  const pattern = anchored(patternOf(hostname));

  return function vhost(req, res, next) {
    const host = req.headers.host;
    if (!host) return next();
    const name = hostnameOf(host);
    const match = name ? pattern.exec(name) : null;
    if (!match) return next();
    const data: Record<string, unknown> = Object.create(null);
    data.host = host;
    data.hostname = name;
    data.length = match.length - 1;
    for (let i = 1; i < match.length; i++) data[i - 1] = match[i];
    (req as IncomingMessage & { vhost?: unknown }).vhost = data;
    run(req, res, next);
  };
}
