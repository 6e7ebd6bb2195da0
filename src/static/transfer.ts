/**
 * A file response with a completion callback, as Express's `res.sendFile` and
 * `res.download` report it: `callback()` once the file was sent (or answered
 * 304/HEAD), `callback(err)` on failure, where a directory is an `EISDIR` error
 * and a client that went away mid-transfer an `ECONNABORTED` one.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { defer } from '../http/defer';
import { onFinished } from '../http/on-finished';
import type { SendSettings } from './options';
import { sendFile } from './send';
import type { SendHooks } from './send-hooks';

export type TransferCallback = (err?: NodeJS.ErrnoException) => void;

function codedError(message: string, code: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(message);
  err.code = code;
  return err;
}

/** The error a file callback gets when the client went away before the file was sent. */
export function requestAborted(): NodeJS.ErrnoException {
  return codedError('Request aborted', 'ECONNABORTED');
}

/**
 * The connection's error says the client went away: an HTTP/1 connection reset; over
 * HTTP/2 a stream reset with an error code (CANCEL, as browsers send, closes it without
 * one), or a session closed with one.
 */
export function clientLeft(err: NodeJS.ErrnoException): boolean {
  const code = err.code;
  return code === 'ECONNRESET' || code === 'ERR_HTTP2_STREAM_ERROR' || code === 'ERR_HTTP2_SESSION_ERROR';
}

export function transferFile(
  req: IncomingMessage,
  res: ServerResponse,
  urlPath: string,
  settings: SendSettings,
  headers: OutgoingHttpHeaders | undefined,
  callback: TransferCallback,
): void {
  let done = false;
  // undefined: no file yet; false: a file was found; true: its bytes are flowing.
  let streaming: boolean | undefined;

  const finish = (err?: NodeJS.ErrnoException) => {
    if (done) return;
    done = true;
    callback(err);
  };
  const aborted = () => finish(requestAborted());

  const hooks: SendHooks = {
    error: finish,
    directory: () => finish(codedError('EISDIR, read', 'EISDIR')),
    file: () => {
      streaming = false;
    },
    stream: () => {
      streaming = true;
    },
    end: () => finish(),
    // No `unsent`: a file read for a response something else had ended was not sent. The
    // response's end (below) reports it aborted, as Express does: of two files sent into
    // one response, the one that lost the race hears ECONNABORTED, never both `ok`.
    headers: headers
      ? (response) => {
          for (const name of Object.keys(headers)) response.setHeader(name, headers[name] as string);
        }
      : undefined,
  };

  onFinished(res, (err) => {
    if (err && clientLeft(err as NodeJS.ErrnoException)) return aborted();
    if (err) return finish(err);
    if (done) return;
    // The stream's own 'end' or 'error' may still be queued: decide on the next turn.
    // A response that never finished (one queued behind another on its connection when
    // the client left: a file to be opened at its turn, or a HEAD or 304 answer not yet
    // written out) sent nothing: aborted.
    defer(() => {
      if ((streaming !== false || res.writableFinished === false) && !done) aborted();
      else finish();
    });
  });

  sendFile(req, res, urlPath, settings, hooks);
}
