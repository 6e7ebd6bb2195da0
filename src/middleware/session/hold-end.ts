/**
 * Delays the end of a response until the session store has answered, as
 * express-session does: the app's `res.end` returns at once, the head and the
 * bytes go out, and the response completes after the save (or destroy, or touch).
 */
import { Buffer } from 'node:buffer';
import type { ServerResponse } from 'node:http';
import { inCallerContext } from '../../http/async-context';
import { defer } from '../../http/defer';
import type { NextFunction } from '../types';

/** One store operation; `done` is its callback. */
export type StoreWork = (done: (err?: unknown) => void) => void;

/**
 * Wraps `res.end` so `decide` runs first. When it returns store work, the
 * body goes out now but the response is ended only when the store answers;
 * a store error still ends the response, then reaches `next`. When a
 * Content-Length is set, the last byte is held back so the client cannot see
 * a complete response before the session is stored. A second `end` is ignored.
 */
export function holdEndUntil(res: ServerResponse, decide: () => StoreWork | undefined, next: NextFunction): void {
  const end = res.end as (...args: unknown[]) => ServerResponse;
  const write = res.write as (...args: unknown[]) => boolean;
  let ended = false;
  // Set when deciding or sending threw: the caller's error handling answers instead.
  let released = false;

  res.end = function endAfterStore(this: ServerResponse, ...args: unknown[]) {
    if (released) return end.apply(res, args);
    if (ended) return this;
    ended = true;
    // end([chunk], [encoding], [callback]): keep the callback for the real end.
    const callback = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
    const [chunk, encoding] = args as [unknown, BufferEncoding | undefined];

    let work: StoreWork | undefined;
    try {
      work = decide();
    } catch (err) {
      // The session could not be read for saving (a BigInt or a cycle in it, `req.session`
      // replaced): the caller's error handling answers, and its `end` must go through.
      // Held, it was ignored and the client waited for ever (Connect 2.30 and
      // express-session 1.19 hang there).
      released = true;
      throw err;
    }
    if (!work) return end.call(res, chunk, encoding, callback);

    let pending = true;
    // The last byte, held back from the write until the store has answered.
    let rest: Buffer | undefined;
    // The store answers from its own connection: a failure reaches `next` in the context of `end`'s caller.
    const answered = inCallerContext((err?: unknown) => {
      if (err) defer(next, err);
      if (released) return;
      if (pending) {
        // The store answered at once: end normally with the whole body.
        pending = false;
        end.call(res, chunk, encoding, callback);
      } else {
        end.call(res, rest, undefined, callback);
      }
    });
    try {
      work(answered);
    } catch (err) {
      // A store that throws instead of calling back (a value too large for it): nothing
      // was sent, and the caller's error handling answers, as above (Connect 2.30 hangs).
      if (pending) released = true;
      throw err;
    }
    if (!pending) return this;
    try {
      if (chunk == null) {
        sendEmptyHead(res);
        return this;
      }
      const length = Number(res.getHeader('Content-Length'));
      if (Number.isNaN(length) || length <= 0) {
        write.call(res, chunk, encoding);
        pending = false;
        return this;
      }
      const bytes = asBytes(chunk, encoding);
      const last = Math.max(bytes.length - 1, 0);
      write.call(res, bytes.subarray(0, last));
      pending = false;
      if (bytes.length > 0) rest = bytes.subarray(last);
      return this;
    } catch (err) {
      // Nothing was sent (Node refused the status code, say), and the caller's error
      // handling answers instead, as it would without a session: its `end` goes through,
      // and the store's answer no longer ends the response. (Held, that `end` was ignored
      // and the held one sent this body under the error page's head, its Content-Length
      // included: a keep-alive client read on into the next response. Connect 2.30 and
      // express-session 1.19 do that.) The Content-Length set for this body goes with it.
      released = true;
      res.removeHeader('Content-Length');
      throw err;
    }
  } as ServerResponse['end'];
}

/**
 * Sends the head of a response the app ended without a body, as Node's `end()` would
 * (with `Content-Length: 0` where a body may follow), while the end itself waits for
 * the store. express-session 1.19 sends the head here too; 1.11 (Connect 2.30's) waited,
 * and anything run meanwhile (a timeout's 503 page) could set a status and a
 * Content-Length whose body's `end` was ignored. The length matters before the head
 * goes out: `compress` decides by it, and would gzip an empty body of unknown length.
 */
function sendEmptyHead(res: ServerResponse): void {
  if (res.headersSent) return;
  const status = res.statusCode;
  const bodyless = status < 200 || status === 204 || status === 304 || res.req?.method === 'HEAD';
  if (!bodyless && !res.hasHeader('Content-Length') && !res.hasHeader('Transfer-Encoding'))
    res.setHeader('Content-Length', '0');
  (res as unknown as { _implicitHeader(): void })._implicitHeader();
}

/**
 * The bytes of a chunk Node's `end` takes: a string in its encoding, a Buffer, or any
 * other Uint8Array as its bytes (read as a string it became `65,66,67`, longer than the
 * Content-Length sent for it, and a keep-alive client read on into the next answer).
 */
function asBytes(chunk: unknown, encoding: BufferEncoding | undefined): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.from(String(chunk), encoding);
}
