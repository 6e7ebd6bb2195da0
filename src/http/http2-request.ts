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

/** What a request's connection says of its two ends; fixed for the connection's life. */
const PEER_KEYS = ['remoteAddress', 'remoteFamily', 'remotePort', 'localAddress', 'localPort', 'encrypted'];

/**
 * Gives an HTTP/2 request a `socket` (and `connection`) that keeps answering its
 * connection's addresses and encryption for the request's whole life. Node's own is a
 * proxy of the session's socket while the stream is open and of the stream once it
 * has closed, which knows neither: read at `finish` or `close`, or after an await
 * outlived the stream, `req.ip` was undefined, `req.protocol` `http` and `req.secure`
 * false, and a `trust proxy` function given undefined could throw out of a listener
 * and end the process. Everything else is Node's socket proxy's, as it answers now.
 */
export function holdHttp2Peer(req: IncomingMessage): void {
  if (Object.prototype.hasOwnProperty.call(req, 'socket')) return;
  const socket = req.socket as object | null | undefined;
  if (socket == null) return;
  const peer = new Map<PropertyKey, unknown>();
  for (const key of PEER_KEYS) peer.set(key, Reflect.get(socket, key));
  const held = new Proxy(socket, {
    get: (target, key) => (peer.has(key) ? peer.get(key) : Reflect.get(target, key)),
  });
  for (const name of ['socket', 'connection']) {
    Object.defineProperty(req, name, { value: held, writable: true, configurable: true });
  }
}
