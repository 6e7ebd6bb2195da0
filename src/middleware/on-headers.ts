/**
 * Runs `listener` once, just before the response head is written (on-headers
 * semantics), so a middleware can still set headers or change the status after
 * every handler ran: response time, session cookies, compression, logging.
 * Headers and status passed to `writeHead` are applied first, so the listener
 * sees them; a status the listener changes is the one sent.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

type WriteHeadArgs = [statusCode: number, reason?: string | OutgoingHttpHeaders, headers?: OutgoingHttpHeaders];

function applyHeaders(res: ServerResponse, headers: unknown): void {
  if (Array.isArray(headers)) {
    // Either [[name, value], ...] or node's flat [name, value, name, value].
    if (headers.length && Array.isArray(headers[0])) {
      for (const [name, value] of headers as Array<[string, string]>) res.setHeader(name, value);
    } else {
      for (let i = 0; i + 1 < headers.length; i += 2) res.setHeader(String(headers[i]), headers[i + 1]);
    }
  } else if (headers && typeof headers === 'object') {
    for (const name of Object.keys(headers)) {
      const value = (headers as OutgoingHttpHeaders)[name];
      if (name && value !== undefined) res.setHeader(name, value);
    }
  }
}

export function onHeaders(res: ServerResponse, listener: (this: ServerResponse) => void): void {
  const previous = res.writeHead;
  let fired = false;
  res.writeHead = function writeHead(this: ServerResponse, ...args: unknown[]) {
    if (fired) return (previous as (...a: unknown[]) => ServerResponse).apply(this, args);
    const [statusCode, second, third] = args as WriteHeadArgs;
    const hasReason = typeof second === 'string';
    this.statusCode = statusCode;
    // Fired only once the headers given took: one Node refuses (a line break in a value)
    // throws here, and the listener runs for the head that is written in its place (the
    // error page's, which a session's cookie must still reach), as Connect and on-headers do.
    applyHeaders(this, hasReason ? third : second);
    fired = true;
    listener.call(this);
    const forwarded: unknown[] = hasReason ? [this.statusCode, second] : [this.statusCode];
    return (previous as (...a: unknown[]) => ServerResponse).apply(this, forwarded);
  } as ServerResponse['writeHead'];
}
