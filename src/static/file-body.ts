/**
 * Writing a file's bytes to the response, once send.ts has decided what to send: a
 * small window read at once and ended with one write, a larger one streamed with
 * back-pressure, and an answer without a body ended where Node may refuse its head.
 * Whatever Node refuses, or fs fails to read, goes to `hooks.error`, never out of an
 * fs or stream callback.
 */
import { Buffer } from 'node:buffer';
import { close, createReadStream, open, read } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { onFinished } from '../http/on-finished';
import { fsError, type SendHooks } from './send-hooks';

export function sendBody(res: ServerResponse, path: string, offset: number, length: number, hooks: SendHooks): void {
  // An empty window is read as a small file: a stream's `end` is inclusive, so it would read one byte.
  if (length <= SMALL_FILE) sendSmallFile(res, path, offset, length, hooks);
  else streamFile(res, path, offset, Math.max(offset, offset + length - 1), hooks);
}

/**
 * Up to this many bytes, a body is read with one `read` and sent with one
 * `res.end(buffer)`: a stream, its pipe and its listeners cost more than the
 * bytes themselves (about a tenth of the server's time per 4 KB request).
 */
const SMALL_FILE = 64 * 1024;

/** Reads the window in one call; the descriptor is closed right after the read, whatever happens to the client. */
function sendSmallFile(res: ServerResponse, path: string, start: number, length: number, hooks: SendHooks): void {
  hooks.stream?.();
  open(path, 'r', (openError, fd) => {
    if (openError) {
      hooks.error(fsError(openError));
      return;
    }
    const body = Buffer.allocUnsafe(length);
    read(fd, body, 0, length, start, (readError, bytesRead) => {
      close(fd, ignore);
      if (readError) {
        hooks.error(fsError(readError));
        return;
      }
      // Someone may have ended the response meanwhile (a second file sent into it, the
      // client gone): writing would be an 'error' event. Nor is it the end of a file sent:
      // in Express the pipe's writes fail, its stream never ends, and sendFile reports
      // the file aborted once the response is done.
      if (res.writableEnded || res.destroyed) {
        hooks.unsent?.();
        return;
      }
      // write() then end(), not end(body): Node re-encodes a Content-Disposition value
      // (mangling ISO-8859-1 file names) when end() brings the body with the headers.
      try {
        res.write(bytesRead === length ? body : body.subarray(0, bytesRead));
        res.end();
      } catch (err) {
        refused(res, hooks, err);
        return;
      }
      // As with a piped stream, 'end' comes after the body was handed to the response.
      hooks.end?.();
    });
  });
}

function ignore(): void {}

/**
 * Node refused a head or a body: a status out of range, a status message or a trailer it
 * rejects, a body on a 204 under `rejectNonStandardBodyWrites`. Thrown out of an fs or a
 * stream callback, the refusal would end the process. As Node's pipe does on Node 24 and
 * later, the response is destroyed and the error goes to the callback or to next(err).
 */
function refused(res: ServerResponse, hooks: SendHooks, err: unknown): void {
  res.destroy();
  hooks.error(fsError(err as NodeJS.ErrnoException));
}

export function endResponse(res: ServerResponse): void {
  res.end();
}

/**
 * Runs `answer`, which ends `res` from here, an fs callback: an answer with no body (a
 * HEAD, a 304) or a page of its own (a directory redirect), whose head Node may refuse.
 */
export function endRefusable(res: ServerResponse, hooks: SendHooks, answer: (res: ServerResponse) => void): void {
  try {
    answer(res);
  } catch (err) {
    refused(res, hooks, err);
  }
}

/**
 * The pipe's first write makes the head, as it does in Express: a middleware that wraps
 * `res.write` to rewrite or buffer the body (express-interceptor, livereload injectors,
 * minifiers) sees `headersSent` false there and may still set headers. Node refuses some
 * heads and some bodies (see `refused`: a status out of range, a body on a 204 under
 * `rejectNonStandardBodyWrites`...); the refusal, thrown from the pipe's write inside the
 * stream's 'data' event, ends the process on Node 20 and 22. So that one write goes
 * through a guard that answers a refusal as a short file's is: the response is destroyed
 * and the error goes to the callback or next(err), as on later lines; the pipe's later
 * writes find the response destroyed, which they take without a throw, and the stream is
 * closed with it. The guard takes itself off before it writes, so the app's own `write`
 * runs as it would have. Returns what takes it off should that write never come.
 *
 * The pipe itself stays Express's, set up at once: a 'pipe' listener on the response sees
 * the stream before the head and the first chunk (a listener that sets a header or counts
 * the stream's bytes), and a first write that asks for a drain pauses the pipe until the
 * response's 'drain' (a `write` wrapper's too: compression's keeps the body). Writing the
 * first chunk by hand before piping (tried) lost both.
 */
function guardFirstWrite(res: ServerResponse, hooks: SendHooks): () => void {
  const write = res.write;
  let guarded = true;
  const unguard = (): void => {
    if (!guarded) return;
    guarded = false;
    // Wrapped again since (the guard inside another wrapper): that wrapper stays.
    if (res.write !== guard) return;
    // Assigned back, even where `write` was the prototype's: a `delete` of a property
    // that is not the response's last turns it into a dictionary object, whose every
    // later read (a 1 MB file's writes and events) is a hash lookup.
    res.write = write;
  };
  const guard = function (this: ServerResponse, ...args: Parameters<ServerResponse['write']>): boolean {
    unguard();
    try {
      return (write as (...args: unknown[]) => boolean).apply(this, args);
    } catch (err) {
      refused(res, hooks, err);
      return false;
    }
  } as ServerResponse['write'];
  res.write = guard;
  return unguard;
}

/**
 * Read size for streamed files: twice fs's default halves the read calls and the
 * writes per megabyte (measured: a fifth less server time per 1 MB download) while
 * back-pressure still holds one chunk per connection at most.
 */
const STREAM_CHUNK = 128 * 1024;

/**
 * Pipes the byte window to the response (pipe gives back-pressure: a slow client
 * pauses the reads) and destroys the stream, closing its descriptor, as soon as
 * the response is done for any reason, a client abort included.
 */
function streamFile(res: ServerResponse, path: string, start: number, end: number, hooks: SendHooks): void {
  const stream = createReadStream(path, { start, end, highWaterMark: STREAM_CHUNK });
  hooks.stream?.();
  const unguard = guardFirstWrite(res, hooks);
  stream.pipe(res);
  let closed = false;
  const cleanup = () => {
    closed = true;
    unguard();
    stream.destroy();
  };
  onFinished(res, cleanup);
  stream.on('error', (err: NodeJS.ErrnoException) => {
    // A late error of a stream destroyed on purpose has nobody left to tell.
    if (closed) return;
    cleanup();
    hooks.error(fsError(err));
  });
  stream.on('end', () => hooks.end?.());
}
