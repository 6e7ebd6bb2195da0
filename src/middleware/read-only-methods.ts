/**
 * The answer favicon and directory (serve-favicon, serve-index) give to methods
 * other than GET and HEAD: 200 to OPTIONS, 405 to the rest, with `Allow` and an
 * empty body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Answers and returns true unless the request is a GET or HEAD. */
export function refuseWriteMethods(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method === 'GET' || req.method === 'HEAD') return false;
  res.statusCode = req.method === 'OPTIONS' ? 200 : 405;
  res.setHeader('Allow', 'GET, HEAD, OPTIONS');
  res.setHeader('Content-Length', '0');
  res.end();
  return true;
}
