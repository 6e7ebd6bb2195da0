/**
 * One multipart/form-data request being parsed: busboy splits the parts,
 * fields are collected, files stream to temporary files in `uploadDir`.
 * The form is the EventEmitter Connect exposed as `req.form` with `defer`:
 * 'part', 'field', 'file', 'progress', 'aborted', 'error' and 'close'.
 * Whatever fails (bad body, limit, client gone, disk), every temporary file is
 * removed before 'error' is emitted, so a caller reacting to it sees a clean dir.
 */
import { Buffer } from 'node:buffer';
import { createHash, type Hash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { Readable, Transform } from 'node:stream';
import { createHttpError, toHttpError, type HttpError } from '../../http/errors';
import { isHttp2Request } from '../../http/http2-request';
import { BodyEdges } from './body-edges';
import { createBusboy, type BusboyParser, type FieldInfo, type PartInfo } from './busboy';
import { NamedValues } from './nest';
import { clientFilename, partHeaders, uploadPath, type OpenFile, type UploadedFile } from './upload-file';

/**
 * A client's mistake in the form: a plain `Error` with the status and the body parsers'
 * fields, as multiparty made them for Connect (its stack reads `Error: maxFields 2
 * exceeded.` on the error pages, not `BadRequestError`).
 */
const formError = (message: string, props: Record<string, unknown>): HttpError =>
  toHttpError(400, new Error(message), props);

export interface FormSettings {
  uploadDir: string;
  keepExtensions: boolean;
  /** A crypto hash algorithm for `file.hash`, or false. */
  hash: string | false;
  /** Most parts (fields and files) accepted. */
  maxFields: number;
  /** Most bytes of field values, all fields together. */
  maxFieldsSize: number;
  /** Most bytes of file contents, all files together. */
  maxFilesSize: number;
  /** Most bytes of request body; 413 past it. */
  limit: number;
  /** Charset of field values that do not name one. */
  encoding: string;
  /**
   * true: every file is written and listed in `files` (the plain middleware).
   * false (`defer`): files are written only while someone listens to 'file',
   * otherwise file parts are handed out as 'part' streams, as multiparty did.
   */
  collectFiles: boolean;
}

/**
 * A part handed to 'part' listeners (every part, fields too, as multiparty did),
 * with multiparty's extra fields; `filename` is undefined for a field.
 */
export type FormPart = Readable & { name: string; filename: string | undefined; headers: Record<string, string> };

const TRANSFER_ENCODINGS = new Set(['7bit', '8bit', 'binary', 'base64']);

export class MultipartForm extends EventEmitter {
  readonly fields = new NamedValues<string>();
  readonly files = new NamedValues<UploadedFile>();
  bytesReceived = 0;
  readonly bytesExpected: number | null;
  error: HttpError | null = null;

  private parser: BusboyParser | null = null;
  private readonly bodyEdges: BodyEdges;
  private connection: Socket | null = null;
  /** Every file created, finished or not: all are removed if the request fails. */
  private readonly written: OpenFile[] = [];
  private writing = 0;
  private parsed = false;
  private partCount = 0;
  private fieldBytes = 0;
  private fileBytes = 0;

  constructor(
    private readonly req: IncomingMessage,
    private readonly settings: FormSettings,
  ) {
    super();
    const length = req.headers['content-length'];
    // Unknown (null): a chunked HTTP/1 body, or an HTTP/2 body sent without Content-Length.
    const unknown = req.headers['transfer-encoding'] !== undefined || isHttp2Request(req);
    this.bytesExpected = length ? parseInt(length, 10) : unknown ? null : 0;
    this.bodyEdges = new BodyEdges(req.headers['content-type']);
  }

  /** Starts reading the request. Errors surface on a later tick, after listeners are attached. */
  parse(): void {
    try {
      this.parser = createBusboy({
        headers: this.req.headers,
        // Names arrive as multiparty decoded them (UTF-8); it kept client paths too.
        preservePath: true,
        defParamCharset: 'utf8',
        defCharset: this.settings.encoding,
        // Past maxFieldsSize the request fails; busboy must not truncate silently first.
        limits: { fieldSize: this.settings.maxFieldsSize + 1 },
      });
    } catch (err) {
      process.nextTick(() => this.fail(toHttpError(400, err as Error, { type: 'entity.parse.failed' })));
      return;
    }
    const parser = this.parser;
    parser.on('field', this.onField);
    parser.on('file', this.onFile);
    parser.on('error', (err) => {
      // A body that stopped just after a boundary is whole, as for multiparty (see
      // BodyEdges); busboy's 'close' follows its error and closes the form.
      if (err.message === 'Unexpected end of form' && this.bodyEdges.stoppedAfterBoundary()) return;
      this.fail(toHttpError(400, err, { type: 'entity.parse.failed' }));
    });
    parser.on('close', () => {
      this.parsed = true;
      this.maybeClose();
    });
    this.req.on('data', this.onData);
    this.req.on('close', this.onRequestClose);
    // Once the app has answered (as `defer` allows before the body is read), Node detaches
    // the request from its connection: a client leaving then closes only the socket, and
    // the request never ends. An HTTP/2 stream is the request's own and closes it; the
    // socket a serverless adapter makes up may be a plain object, with no events.
    const socket = isHttp2Request(this.req) ? null : this.req.socket;
    this.connection = socket && typeof socket.on === 'function' ? socket : null;
    this.connection?.on('close', this.onRequestClose);
    this.req.pipe(parser);
  }

  private readonly onData = (chunk: Buffer): void => {
    this.bytesReceived += chunk.length;
    if (this.bytesReceived > this.settings.limit) {
      this.fail(
        createHttpError(413, undefined, {
          type: 'entity.too.large',
          limit: this.settings.limit,
          received: this.bytesReceived,
        }),
      );
      return;
    }
    this.bodyEdges.add(chunk);
    const badOpening = this.bodyEdges.badOpening();
    if (badOpening !== undefined) {
      this.fail(formError(badOpening, { type: 'entity.parse.failed' }));
      return;
    }
    this.emit('progress', this.bytesReceived, this.bytesExpected);
  };

  /**
   * The connection (or the request with it) went away before the whole body came. A
   * stream made to look like a request has no `complete`, and may close right after its
   * end, while the parts are still being written: ended is whole.
   */
  private readonly onRequestClose = (): void => {
    if (this.req.complete || this.req.readableEnded || this.error) return;
    this.emit('aborted');
    this.fail(formError('Request aborted', { type: 'request.aborted', code: 'ECONNABORTED' }));
  };

  private readonly onField = (name: string | undefined, value: string | undefined, info: FieldInfo): void => {
    if (this.error || !this.acceptPart(info)) return;
    // busboy hands over no value (and no bytes) when it cannot decode the part's charset
    // (`charset=x-bogus`, and any it does not list, e.g. utf-16be): a client error, never a throw.
    if (value === undefined) {
      this.fail(formError('unsupported charset in a multipart field', { type: 'charset.unsupported' }));
      return;
    }
    const text = info.encoding === 'base64' ? Buffer.from(value, 'base64').toString('utf8') : value;
    if (this.listenerCount('part') > 0) this.emitFieldPart(name ?? 'null', text, info);
    this.addField(name, text, info.valueTruncated ? Infinity : Buffer.byteLength(value));
  };

  /** multiparty emitted 'part' for fields as well: a stream of the value, before 'field'. */
  private emitFieldPart(fieldName: string, value: string, info: FieldInfo): void {
    const headers: Record<string, string> = { 'content-disposition': `form-data; name="${fieldName}"` };
    // busboy reports text/plain for a part that named no type (as browsers send fields): list only a real one.
    if (info.mimeType !== 'text/plain') headers['content-type'] = info.mimeType;
    if (info.encoding !== '7bit') headers['content-transfer-encoding'] = info.encoding;
    const part: FormPart = Object.assign(Readable.from([Buffer.from(value)], { objectMode: false }), {
      name: fieldName,
      filename: undefined,
      headers,
    });
    this.emit('part', part);
  }

  private readonly onFile = (name: string | undefined, stream: Readable, info: PartInfo): void => {
    // Errors of a part (a body cut short) are the parser's too; it reports them.
    stream.on('error', () => undefined);
    if (this.error || !this.acceptPart(info)) {
      stream.resume();
      return;
    }
    const source = info.encoding === 'base64' ? stream.pipe(base64Decoder()) : stream;
    // busboy drops an empty filename: an empty browser file input (filename="",
    // application/octet-stream) arrives without one. multiparty kept it a file named ''.
    const filename = info.filename ?? '';
    const fieldName = name ?? 'null';
    const part: FormPart = Object.assign(source, {
      name: fieldName,
      filename: clientFilename(filename),
      headers: partHeaders(fieldName, filename, info),
    });
    // 'part' comes first for every file part, as multiparty's did; a file being written is
    // read by both the listener and the temporary file.
    const watched = this.listenerCount('part') > 0;
    if (watched) this.emit('part', part);
    if (this.settings.collectFiles || this.listenerCount('file') > 0) this.writeFile(fieldName, filename, source, info);
    else if (!watched) part.resume();
  };

  /** Counts the part against maxFields and refuses unknown transfer encodings, as multiparty did. */
  private acceptPart(info: PartInfo): boolean {
    if (!TRANSFER_ENCODINGS.has(info.encoding)) {
      this.fail(formError('unknown transfer-encoding: ' + info.encoding, { type: 'entity.parse.failed' }));
      return false;
    }
    if (++this.partCount > this.settings.maxFields) {
      const message = 'maxFields ' + this.settings.maxFields + ' exceeded.';
      this.fail(formError(message, { type: 'parameters.too.many' }));
      return false;
    }
    return true;
  }

  private addField(name: string | undefined, value: string, size: number): void {
    this.fieldBytes += size;
    if (this.fieldBytes > this.settings.maxFieldsSize) {
      const message = 'maxFieldsSize ' + this.settings.maxFieldsSize + ' exceeded';
      this.fail(formError(message, { type: 'entity.too.large' }));
      return;
    }
    const fieldName = name ?? 'null';
    this.fields.add(fieldName, value);
    this.emit('field', fieldName, value);
  }

  private writeFile(fieldName: string, filename: string, source: Readable, info: PartInfo): void {
    const originalFilename = clientFilename(filename);
    const file: OpenFile = {
      fieldName,
      originalFilename,
      path: uploadPath(this.settings.uploadDir, originalFilename, this.settings.keepExtensions),
      headers: partHeaders(fieldName, filename, info),
    };
    // 'wx': never write through a file (or link) someone placed at the path.
    const ws = fs.createWriteStream(file.path, { flags: 'wx' });
    file.ws = ws;
    this.written.push(file);
    if (this.settings.collectFiles) this.files.add(fieldName, file as UploadedFile);
    this.writing++;

    const hash: Hash | null = this.settings.hash ? createHash(this.settings.hash) : null;
    let size = 0;
    source.on('data', (chunk: Buffer) => {
      size += chunk.length;
      this.fileBytes += chunk.length;
      if (hash) hash.update(chunk);
      if (this.fileBytes > this.settings.maxFilesSize) {
        const message = 'maxFilesSize ' + this.settings.maxFilesSize + ' exceeded';
        this.fail(formError(message, { type: 'entity.too.large' }));
      }
    });
    source.pipe(ws);
    ws.on('error', (err) => this.fail(toHttpError(500, err)));
    ws.on('close', () => {
      this.writing--;
      if (this.error) return;
      if (hash) file.hash = hash.digest('hex');
      file.size = size;
      file.name = originalFilename;
      file.type = file.headers['content-type'] || null;
      Object.defineProperty(file, 'lastModifiedDate', { value: new Date(), writable: true, configurable: true });
      this.emit('file', fieldName, file);
      this.maybeClose();
    });
  }

  private maybeClose(): void {
    if (this.error || !this.parsed || this.writing > 0) return;
    this.detach();
    this.emit('close');
  }

  private detach(): void {
    this.req.removeListener('data', this.onData);
    this.req.removeListener('close', this.onRequestClose);
    this.connection?.removeListener('close', this.onRequestClose);
    if (this.parser) this.req.unpipe(this.parser);
  }

  /** Stops parsing, removes every temporary file, then emits 'error' (if anyone listens). */
  private fail(err: HttpError): void {
    if (this.error) return;
    this.error = err;
    this.detach();
    // Its later 'error' (the body was cut short) is ignored: this.error is set.
    if (this.parser) this.parser.destroy();
    Promise.all(this.written.map(removeFile)).then(() => {
      // A deferred form nobody watches must not crash the process (multiparty threw).
      if (this.listenerCount('error') > 0) this.emit('error', err);
    });
  }
}

/** Deletes finished files (their streams are closed), then calls `done`; a file already gone is fine. */
export function removeFiles(files: UploadedFile[], done: () => void): void {
  let pending = files.length;
  if (pending === 0) return done();
  // Counted rather than Promise.all(...).then(done): a throw inside `done` (the app's
  // next middleware) must surface as itself, not as an unhandled rejection.
  for (const file of files) {
    fs.unlink(file.path, () => {
      if (--pending === 0) done();
    });
  }
}

function removeFile(file: OpenFile): Promise<void> {
  return new Promise((resolve) => {
    const ws = file.ws as fs.WriteStream;
    const unlink = () => fs.unlink(file.path, () => resolve());
    if (ws.closed) return unlink();
    ws.once('close', unlink);
    ws.destroy();
  });
}

/** Content-Transfer-Encoding: base64 file data, decoded across chunk boundaries. */
function base64Decoder(): Transform {
  let pending = '';
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const text = pending + chunk.toString('latin1').replace(/[^A-Za-z0-9+/=]/g, '');
      const whole = text.length - (text.length % 4);
      pending = text.slice(whole);
      done(null, Buffer.from(text.slice(0, whole), 'base64'));
    },
    flush(done) {
      done(null, Buffer.from(pending, 'base64'));
    },
  });
}
