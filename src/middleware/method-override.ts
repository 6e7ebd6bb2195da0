/**
 * `methodOverride([key])`: lets a form or client that can only POST ask for
 * another verb, through `req.body[key]` (default `_method`, removed from the
 * body) or the `X-HTTP-Method-Override` header (which wins). Any request method
 * is examined, as Connect 2's shim did; the original stays in `req.originalMethod`.
 *
 * One override Connect 2.30 made is refused: HEAD, for a request that was not one.
 * The client sent a request whose answer has a body; answered as HEAD, its headers
 * announce a body that never comes (`Content-Length`), so on a kept-alive connection the
 * client, or a proxy sharing the connection among clients, reads the next response as
 * this one's body: one request desynchronised every response after it.
 */
import { METHODS } from 'node:http';
import { deprecate } from '../http/deprecate';
import { vary } from '../http/vary';
import type { Middleware, MiddlewareRequest } from './types';
import { named } from '../named';

const KNOWN_METHODS = new Set(METHODS.map((method) => method.toLowerCase()));

function override(req: MiddlewareRequest, value: unknown): void {
  const method = Array.isArray(value) ? value[0] : value;
  if (typeof method !== 'string' || !method || !KNOWN_METHODS.has(method.toLowerCase())) return;
  const upper = method.toUpperCase();
  if (upper === 'HEAD' && req.originalMethod !== 'HEAD') return;
  req.method = upper;
}

/** The first value of a (possibly comma-joined) header, trimmed. */
function firstHeaderValue(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const comma = header.indexOf(',');
  return (comma === -1 ? header : header.slice(0, comma)).trim();
}

export function methodOverride(key?: string): Middleware {
  deprecate('methodOverride: use method-override npm module instead');
  const prop = key || '_method';
  return named('methodOverride', function (request, res, next) {
    const req = request as MiddlewareRequest;
    req.originalMethod = req.originalMethod || req.method;

    const body = req.body;
    if (body && typeof body === 'object' && prop in body) {
      const value = body[prop];
      delete body[prop];
      override(req, value);
    }

    vary(res, 'X-HTTP-Method-Override');
    override(req, firstHeaderValue(req.headers['x-http-method-override'] as string | undefined));
    next();
  });
}
