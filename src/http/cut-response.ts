import type { IncomingMessage, ServerResponse } from 'node:http';
import { isHttp2Request } from './http2-request';

/** nghttp2's INTERNAL_ERROR (`http2.constants.NGHTTP2_INTERNAL_ERROR`), without loading node:http2. */
const NGHTTP2_INTERNAL_ERROR = 2;

interface Http2StreamLike {
  destroyed: boolean;
  close(code: number): void;
}

/**
 * Ends a response that failed after its head went out, so that the client sees it
 * cut short rather than complete (a cache or a proxy must not keep it). On HTTP/1
 * that is closing the connection. On HTTP/2 the request's socket is a proxy whose
 * `destroy()` resets the stream with NO_ERROR, which a client reads as a normal
 * end: the stream is reset with INTERNAL_ERROR instead, and the session's other
 * streams go on.
 *
 * A response whose end reached Node is whole, and is left alone: an error that comes
 * after it (an `async` handler that throws once it has answered) would otherwise
 * close a keep-alive connection that may be carrying the next response, perhaps
 * another client's behind a proxy. Express 4 closes it there too, for a late
 * `next(err)`; its rejected promises never reach the final handler. (An end a wrapper
 * still holds, `session` until its store saves or `compress` while it compresses, is
 * not Node's yet: that response is cut, as before.)
 */
export function cutResponse(req: IncomingMessage, res: ServerResponse): void {
  if (res.writableEnded) return;
  if (isHttp2Request(req)) {
    resetStream(req);
    return;
  }
  req.socket?.destroy();
}

/** Resets an HTTP/2 request's stream with INTERNAL_ERROR (isHttp2Request checked that it has one). */
function resetStream(req: IncomingMessage): void {
  const stream = (req as IncomingMessage & { stream: Http2StreamLike }).stream;
  if (!stream.destroyed) stream.close(NGHTTP2_INTERNAL_ERROR);
}

/**
 * What `req.destroy()` does to a request on HTTP/1, on HTTP/2 too: the request is cut and
 * the client learns it (its connection closes). Node's HTTP/2 request destroys only its
 * own readable side: the stream stays open, and a client still sending, or waiting for
 * an answer nobody will write, waits for ever. Its stream is reset with INTERNAL_ERROR
 * first (the session's other streams go on), as for a response cut short.
 */
export function destroyRequest(req: IncomingMessage): void {
  if (isHttp2Request(req)) resetStream(req);
  req.destroy();
}
