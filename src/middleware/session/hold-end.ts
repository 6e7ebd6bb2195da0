/**
 * Delays the end of a response until the session store has answered, as
 * express-session does: the app's `res.end` returns at once, the head and the
 * bytes go out, and the response completes after the save (or destroy, or touch).
 */
import { Buffer } from 'node:buffer';
import type { ServerResponse } from 'node:http';
import { inCallerContext } from '../../http/async-context';
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

  res.end = function endAfterStore(this: ServerResponse, ...args: unknown[]) {
    if (ended) return this;
    ended = true;
    // end([chunk], [encoding], [callback]): keep the callback for the real end.
    const callback = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
    const [chunk, encoding] = args as [unknown, BufferEncoding | undefined];

    const work = decide();
    if (!work) return end.call(res, chunk, encoding, callback);

    let pending = true;
    // The last byte, held back from the write until the store has answered.
    let rest: Buffer | undefined;
    // The store answers from its own connection: a failure reaches `next` in the context of `end`'s caller.
    work(
      inCallerContext((err?: unknown) => {
        if (err) setImmediate(next, err);
        if (pending) {
          // The store answered at once: end normally with the whole body.
          pending = false;
          end.call(res, chunk, encoding, callback);
        } else {
          end.call(res, rest, undefined, callback);
        }
      }),
    );
    if (!pending) return this;
    if (chunk == null) {
      // The head goes out now, as the app ended the response (express-session 1.19 does
      // this; 1.11 did not): left unwritten, anything run before the store answers (a
      // timeout's 503 page) could set a status and Content-Length whose body's `end` is
      // ignored, and the client would read the next response as this one's body.
      if (!res.headersSent) (res as unknown as { _implicitHeader(): void })._implicitHeader();
      return this;
    }
    const length = Number(res.getHeader('Content-Length'));
    if (Number.isNaN(length) || length <= 0) {
      write.call(res, chunk, encoding);
      pending = false;
      return this;
    }
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), encoding);
    const last = Math.max(bytes.length - 1, 0);
    // When the write throws (Node refuses the status code, say), nothing was sent:
    // the store's answer then ends the response with the whole body, as in express-session.
    write.call(res, bytes.subarray(0, last));
    pending = false;
    if (bytes.length > 0) rest = bytes.subarray(last);
    return this;
  } as ServerResponse['end'];
}
