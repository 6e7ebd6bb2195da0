/**
 * `vhost(hostname, handle)`: runs `handle` (a middleware, an app, or an
 * http.Server, which gets a `request` event) only for requests whose Host
 * matches `hostname` (a string where `*` matches anything, or a RegExp);
 * `req.vhost` carries the host, hostname and the wildcard captures.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { withoutPort } from '../http/host';
import type { Middleware, NextFunction } from './types';
import { named } from '../named';

type Handle =
  | ((req: IncomingMessage, res: ServerResponse, next: NextFunction) => void)
  | { emit(event: string, ...args: unknown[]): unknown };

/**
 * What a hostname is matched with: a RegExp (the caller's, anchored as vhost 3 anchors
 * it) gives its captures; a string with `*` wildcards (Connect 2's form) gives none.
 */
type HostMatcher = (hostname: string) => string[] | null;

/**
 * A string hostname as Connect 2 reads it: `*` matches any run of characters (dots and
 * nothing included), the rest is literal, without regard to case. Matched piece by
 * piece rather than as Connect's expression (each `*` a lazy `.*?`), which backtracks:
 * with three wildcards a Host header of 2 KB took a second, and the time grows with
 * the cube of its length. The leftmost place for each piece between the first and
 * the last is the right one: a later place would leave less room for the pieces after.
 */
function wildcardMatcher(hostname: string): HostMatcher {
  const pieces = caseless(hostname).split('*');
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  const NO_CAPTURES: string[] = [];
  return (name) => {
    const text = caseless(name);
    if (pieces.length === 1) return text === first ? NO_CAPTURES : null;
    const end = text.length - last.length;
    if (end < first.length || !text.startsWith(first) || !text.endsWith(last)) return null;
    let at = first.length;
    for (let i = 1; i < pieces.length - 1; i++) {
      const found = text.indexOf(pieces[i], at);
      if (found === -1 || found + pieces[i].length > end) return null;
      at = found + pieces[i].length;
    }
    return NO_CAPTURES;
  };
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * `text` with every character in the form a case-insensitive RegExp (without the `u`
 * flag) compares it in: upper case, unless that takes more than one character or takes
 * a character beyond ASCII into it.
 */
function caseless(text: string): string {
  // Host names are ASCII but for rare exceptions: upper case in one call.
  if (ASCII.test(text)) return text.toUpperCase();
  return text.replace(/[a-z]|[^\x00-\x7f]/g, (char) => {
    const upper = char.toUpperCase();
    return upper.length === 1 && !(char.charCodeAt(0) > 0x7f && upper.charCodeAt(0) <= 0x7f) ? upper : char;
  });
}

/** The caller's RegExp anchored at both ends (vhost 3 anchors one the caller did not), without regard to case. */
function regExpMatcher(pattern: RegExp): HostMatcher {
  let source = pattern.source;
  if (source[0] !== '^') source = '^' + source;
  if (!/(?:^|[^\\])(?:\\\\)*\$$/.test(source)) source += '$';
  const anchored = new RegExp(source, 'i');
  return (name) => {
    const match = anchored.exec(name);
    return match && match.slice(1);
  };
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
  const matches = typeof hostname === 'string' ? wildcardMatcher(hostname) : regExpMatcher(hostname);

  return named('vhost', function (req, res, next) {
    const host = req.headers.host;
    if (!host) return next();
    const name = withoutPort(host);
    const captures = name ? matches(name) : null;
    if (!captures) return next();
    const data: Record<string, unknown> = Object.create(null);
    data.host = host;
    data.hostname = name;
    data.length = captures.length;
    for (let i = 0; i < captures.length; i++) data[i] = captures[i];
    (req as IncomingMessage & { vhost?: unknown }).vhost = data;
    run(req, res, next);
  });
}
