/**
 * What sending a file tells its caller: the hooks `sendFile` calls as the answer takes
 * shape, and the HTTP error a failed fs call becomes. Deciding the answer (send.ts) and
 * writing the file's bytes (file-body.ts) both report through them.
 */
import type { Stats } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createHttpError, fieldsOf, toHttpError, type HttpError } from '../http/errors';

export interface SendHooks {
  /** Any failure, with `status` 400, 403, 404, 412, 416 or 500 (and the fs error's `code` when there is one). */
  error(err: HttpError): void;
  /** The path names a directory (no index file was asked for). */
  directory(res: ServerResponse, urlPath: string): void;
  /** A file was found: from here on, the response is about it. */
  file?(path: string, stat: Stats): void;
  /**
   * The file found was removed while its response waited for its connection: a miss
   * after all (static falls through). `error` follows with the 404.
   */
  gone?(): void;
  /** Right before the file's headers are set: the place to set or override headers. */
  headers?(res: ServerResponse, path: string, stat: Stats): void;
  /** The body starts being read and sent. */
  stream?(): void;
  /** The whole file was read (and handed to the response). */
  end?(): void;
  /**
   * The whole file was read, but the response had ended (something else answered) or
   * was destroyed (the client left) meanwhile: none of it was written. `end` does not follow.
   */
  unsent?(): void;
}

/**
 * The error for a failed `stat` or read: a missing file is 404, anything else 500; the
 * fs error itself, its message kept from the client. Where Node's errors are not
 * `instanceof Error` in the realm this code runs in (under Jest, whose tests and the
 * modules they load run in a realm of their own), send makes a new error of the status
 * instead (a NotFoundError "Not Found", which the client may see) with the fs error's
 * fields (`code`, `errno`, `syscall`, `path`), and so does this: an app's error pages,
 * handlers and tests read the same under Jest as with Express.
 */
export function fsError(err: NodeJS.ErrnoException): HttpError {
  // `refused` passes whatever a write threw, an app's wrapper of `res.write` included: any value.
  const code = (err as Partial<NodeJS.ErrnoException> | null | undefined)?.code;
  const status = code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG' ? 404 : 500;
  if (err instanceof Error) return toHttpError(status, err, { expose: false });
  const fields = typeof err === 'object' && err !== null ? fieldsOf(err) : undefined;
  return createHttpError(status, typeof err === 'string' ? err : undefined, fields);
}
