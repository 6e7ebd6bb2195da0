import type { IncomingMessage } from 'node:http';

/**
 * Whether a request came over HTTP/2 (Node's compatibility API, whose request has
 * its `stream`). The version number alone does not say: Node's HTTP/1 parser
 * accepts `HTTP/2.0` in a request line and reports major version 2 for a request
 * on a plain HTTP/1 connection, which is answered as HTTP/1.1 and must be treated
 * as HTTP/1 (its connection headers, its status phrase, its connection's drain).
 */
export function isHttp2Request(req: IncomingMessage): boolean {
  return req.httpVersionMajor >= 2 && (req as { stream?: unknown }).stream != null;
}
