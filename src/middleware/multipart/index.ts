/**
 * `multipart([options])`: Connect 2's multipart/form-data parser, streamed
 * with busboy. Fields land in `req.body` and files in `req.files`, nested by
 * bracketed names; files are written to `uploadDir` and described as Connect
 * 2.30 described them (see upload-file.ts). Errors go to `next`: 400 for a
 * malformed body, 413 past `limit`; temporary files are gone by then.
 * With `defer`, `next()` runs at once and `req.form` emits the parse events.
 */
import { getHashes } from 'node:crypto';
import * as os from 'node:os';
import { inCallerContext } from '../../http/async-context';
import { parseBytes } from '../../http/bytes';
import { deprecate } from '../../http/deprecate';
import { createHttpError } from '../../http/errors';
import { whenRequestRead } from '../../http/on-finished';
import { typeIs } from '../../http/type-is';
import type { Middleware, MiddlewareRequest } from '../types';
import { MultipartForm, removeFiles, type FormSettings } from './form';
import type { UploadedFile } from './upload-file';
import { named } from '../../named';

export type { UploadedFile } from './upload-file';
export type { MultipartForm, FormPart } from './form';

export interface MultipartOptions {
  /** Most bytes of request body (a number or `'10mb'`); default `'100mb'`. 413 past it. */
  limit?: number | string;
  /** Call `next()` at once and expose the form as `req.form`. */
  defer?: boolean;
  /** Where files are written; default `os.tmpdir()`. */
  uploadDir?: string;
  /** Keep the client's file extension on the temporary file (default true, as Connect 2.30 did). */
  keepExtensions?: boolean;
  /** A hash algorithm (`'sha1'`, `'md5'`, ...) for `file.hash`. */
  hash?: string | false;
  /** Most parts, fields and files together (default 1000). */
  maxFields?: number;
  /** Most bytes of all field values together (default 2mb). */
  maxFieldsSize?: number;
  /** Most bytes of all files together (default unlimited; `limit` still applies). */
  maxFilesSize?: number;
  /** Charset of field values whose part names none (default utf8). */
  encoding?: string;
}

interface MultipartRequest extends MiddlewareRequest {
  _body?: boolean;
  _limit?: boolean;
  form?: MultipartForm;
}

function settingsFrom(options: MultipartOptions): FormSettings & { defer: boolean } {
  const limit = parseBytes(options.limit || '100mb');
  if (limit === null) throw new Error('limit() bytes required');
  const hash = options.hash || false;
  // Refused now rather than on the first upload (multiparty threw mid-request).
  if (hash && !getHashes().some((name) => name.toLowerCase() === hash.toLowerCase()))
    throw new TypeError('multipart: unsupported hash algorithm ' + hash);
  return {
    limit,
    defer: Boolean(options.defer),
    uploadDir: options.uploadDir || os.tmpdir(),
    keepExtensions: options.keepExtensions !== false,
    hash,
    maxFields: options.maxFields || 1000,
    maxFieldsSize: options.maxFieldsSize || 2 * 1024 * 1024,
    maxFilesSize: options.maxFilesSize || Infinity,
    encoding: options.encoding || 'utf8',
    collectFiles: !options.defer,
  };
}

export function multipart(options?: MultipartOptions): Middleware {
  deprecate('multipart: use parser (multiparty, busboy, formidable) npm module instead');
  const settings = settingsFrom(options ?? {});

  return named('multipart', function (incoming, _res, callerNext) {
    const req = incoming as MultipartRequest;
    if (req._body) return callerNext();
    req.body = req.body || {};
    req.files = req.files || {};
    if (req.method === 'GET' || req.method === 'HEAD') return callerNext();
    if (!typeIs(req, ['multipart'])) return callerNext();
    req._body = true;
    // The form's events run in the connection's context: continue in the caller's.
    const next = inCallerContext(callerNext);

    // An earlier limit() middleware governs instead, as Connect's nested limit did.
    const limited = !req._limit;
    req._limit = true;
    const declared = req.headers['content-length'] ? parseInt(req.headers['content-length'], 10) : NaN;
    if (limited && declared > settings.limit) {
      const err = createHttpError(413, undefined, {
        type: 'entity.too.large',
        limit: settings.limit,
        length: declared,
      });
      // At once, as Connect's limit() does: the client learns it before sending the rest,
      // which Node reads off after the answer (the connection stays usable).
      return next(err);
    }

    const form = new MultipartForm(req, { ...settings, limit: limited ? settings.limit : Infinity });
    form.on('close', () => {
      req.body = form.fields.nest();
      const unreachable: UploadedFile[] = [];
      req.files = form.files.nest((file) => unreachable.push(file));
      // A file the app cannot see (named `__proto__`, `a[__proto__][x]`) is one it never
      // deletes: remove it before the app runs, so each such request cannot leave one behind.
      removeFiles(unreachable, () => {
        if (!settings.defer) next();
      });
    });
    if (!settings.defer) form.on('error', (err) => whenRequestRead(req, () => next(err)));
    form.parse();
    if (settings.defer) {
      req.form = form;
      next();
    }
  });
}
