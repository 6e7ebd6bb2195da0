/**
 * Writing a decided body to the wire (see body.ts for the deciding): 304 when
 * the client's copy is fresh, no entity for 204/304, an explicit empty body for
 * 205, and no body for HEAD.
 */
import { bodyForHead, needsHeadCheck } from './body';
import type { Response } from './types';

/** 204 and 304 carry no entity: the headers describing one go (4.x and 3.x alike). */
export function removeEntityHeaders(res: { removeHeader(name: string): void }): void {
  res.removeHeader('Content-Type');
  res.removeHeader('Content-Length');
  res.removeHeader('Transfer-Encoding');
}

/** Ends the response with `body` (a string is UTF-8), applying the status and method rules. */
export function respond(res: Response, body: string | Buffer | undefined): Response {
  const req = res.req;
  let chunk = body;
  // As Express calls it, two arguments whatever the body: a wrapper of `res.end` sees the same call.
  const encoding = typeof body === 'string' ? 'utf8' : undefined;
  if (req.fresh) res.statusCode = 304;

  const status = res.statusCode;
  if (status === 204 || status === 304) {
    removeEntityHeaders(res);
    chunk = '';
  } else if (status === 205) {
    // 205 Reset Content: "no content" by an explicit zero length.
    res.set('Content-Length', '0');
    res.removeHeader('Transfer-Encoding');
    chunk = '';
  }

  if (req.method === 'HEAD') res.end();
  else {
    if (typeof chunk === 'string' && needsHeadCheck(res)) chunk = bodyForHead(res, chunk);
    // Node reads an undefined encoding as none given (its types only list the call without it).
    res.end(chunk, encoding as BufferEncoding);
  }
  return res;
}
