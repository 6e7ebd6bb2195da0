/**
 * Reading a request body for the parsers (what body-parser's read + raw-body
 * do): inflate gzip/deflate/brotli, enforce `limit` on the inflated bytes (a
 * Content-Length over the limit is refused before reading), check the length the
 * client announced, decode the charset, call `verify`, parse, and on any error
 * drain the request so a keep-alive connection stays usable.
 */
import { Buffer } from 'node:buffer';
import { IncomingMessage, type ServerResponse } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { inCallerContext } from '../http/async-context';
import { lazy } from '../http/lazy';
import { whenRequestRead } from '../http/on-finished';
import { decoderFor, type BodyDecoder } from './charset';
import {
  entityTooLarge,
  parseFailed,
  requestAborted,
  sizeMismatch,
  streamEncodingSet,
  streamFailed,
  streamNotReadable,
  unsupportedCharset,
  unsupportedEncoding,
  verifyFailed,
} from './errors';
import type { NextFunction } from '../types/public';

/**
 * Why lazy: most bodies arrive without a Content-Encoding, and on Node 26 loading
 * zlib also loads its zip archive modules (about 250 KB of source); an app that
 * parses JSON should not pay that at start or in memory until a compressed body comes.
 */
const zlib = lazy(() => require('node:zlib') as typeof import('node:zlib'));

export type Verify = (req: IncomingMessage, res: ServerResponse, buf: Buffer, encoding: string | null) => void;

/** Digits of a Content-Length whose value is exact in a double: at most 15. */
const PLAIN_LENGTH_DIGITS = 15;

/**
 * The length a request announces, read as raw-body reads it: null when `Number` finds
 * no number in the header, else `parseInt` of it, in base 10 (so `1e3` announces 1
 * and a blank value NaN). A header of digits alone, what Node's HTTP/1 parser lets
 * through, is read in one pass: V8 converts the string twice otherwise, for about
 * 1,000 instructions a body.
 */
export function announcedLength(header: string | undefined): number | null {
  if (header === undefined) return null;
  const plain = typeof header === 'string' ? digitsValue(header) : undefined;
  if (plain !== undefined) return plain;
  return isNaN(Number(header)) ? null : parseInt(header, 10);
}

/** The value of a text of 1 to PLAIN_LENGTH_DIGITS ASCII digits, else undefined. */
function digitsValue(text: string): number | undefined {
  const length = text.length;
  if (length === 0 || length > PLAIN_LENGTH_DIGITS) return undefined;
  let value = 0;
  for (let i = 0; i < length; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return value;
}

/** The parser's settings the read follows. */
export interface ReadSettings {
  inflate: boolean;
  limit: number;
  verify: Verify | false;
}

export interface ParsedRequest extends IncomingMessage {
  body?: unknown;
  _body?: boolean;
}

/** The inflating stream for the Content-Encoding (the request itself for identity); throws 415s. */
function contentStream(req: IncomingMessage, inflate: boolean): Readable {
  const header = req.headers['content-encoding'];
  if (header === undefined) return req;
  const encoding = String(header || 'identity').toLowerCase();
  if (inflate === false && encoding !== 'identity') {
    throw unsupportedEncoding(encoding, true);
  }
  let stream: Transform;
  switch (encoding) {
    case 'deflate':
      stream = zlib().createInflate();
      break;
    case 'gzip':
      stream = zlib().createGunzip();
      break;
    case 'br':
      stream = zlib().createBrotliDecompress();
      break;
    case 'identity':
      return req;
    default:
      throw unsupportedEncoding(encoding, false);
  }
  req.pipe(stream);
  return stream;
}

/**
 * Whether the request emits `aborted` whenever it closes before its end, before
 * `close`: Node's does (on every line from 20 on). Other streams (HTTP/2's request,
 * a stream made to look like a request) may only close.
 */
function emitsAbortedBeforeClose(req: object): boolean {
  return req instanceof IncomingMessage;
}

type CollectCallback = (err: Error | null, chunks?: Buffer[], length?: number) => void;

/**
 * Collects the stream's bytes, as the chunks read and their total length. Errors
 * are raw-body's, those known before reading in raw-body's order: 413
 * `entity.too.large` by the announced length, 500 `stream.encoding.set`, 500
 * `stream.not.readable`, then `charsetError` (a charset nothing decodes); while
 * reading, 413 `entity.too.large`, 400 `request.size.invalid`, 400 `request.aborted`.
 */
function collect(
  req: IncomingMessage,
  stream: Readable,
  announced: number | null,
  limit: number,
  charsetError: Error | null,
  done: CollectCallback,
): void {
  if (announced !== null && announced > limit) {
    done(entityTooLarge(limit, { expected: announced }));
    return;
  }
  const state = (stream as Readable & { _readableState?: { encoding?: unknown } })._readableState;
  if (state && state.encoding != null) {
    done(streamEncodingSet());
    return;
  }
  if (typeof stream.readable !== 'undefined' && !stream.readable) {
    done(streamNotReadable());
    return;
  }
  if (charsetError) {
    done(charsetError);
    return;
  }

  const chunks: Buffer[] = [];
  let received = 0;
  let finished = false;
  // Listening to `close` as well as `aborted` would only cost an `on` and a
  // `removeListener` per body where `aborted` always comes first.
  const closesAfterAborted = emitsAbortedBeforeClose(req);
  const finish = (err: Error | null, length?: number) => {
    if (finished) return;
    finished = true;
    stream.removeListener('data', onData);
    stream.removeListener('end', onEnd);
    stream.removeListener('error', onError);
    req.removeListener('aborted', onAborted);
    if (!closesAfterAborted) req.removeListener('close', onClose);
    done(err, chunks, length);
  };
  const onData = (data: Buffer | string) => {
    // A stream made to look like a request in tests (`Readable.from(['{"a":1}'])`) gives
    // strings: taken as their UTF-8 bytes, which body-parser decodes them as.
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    received += chunk.length;
    if (received > limit) {
      finish(entityTooLarge(limit, { received }));
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => {
    if (announced !== null && received !== announced && stream === req) {
      finish(sizeMismatch(announced, received));
      return;
    }
    finish(null, received);
  };
  const onError = (err: Error) => finish(streamFailed(err));
  const onAborted = () => {
    finish(requestAborted(announced, received));
  };
  // A stream made to look like a request has no `complete`, and may close right after
  // its end (autoDestroy), before an inflating stream has given its own end: ended is whole.
  const onClose = () => {
    if (!req.complete && !req.readableEnded) onAborted();
  };
  stream.on('data', onData);
  stream.on('end', onEnd);
  stream.on('error', onError);
  req.on('aborted', onAborted);
  if (!closesAfterAborted) req.on('close', onClose);
}

/**
 * Reads, verifies and parses the body into `req.body`, then calls `next` (with the
 * error, if any). `encoding` is the charset to decode with, or null to keep a Buffer (raw).
 */
export function readBody(
  req: ParsedRequest,
  res: ServerResponse,
  next: NextFunction,
  parse: (body: string | Buffer) => unknown,
  encoding: string | null,
  settings: ReadSettings,
): void {
  req._body = true;
  const verify = settings.verify;
  const decoder: BodyDecoder | undefined = encoding === null ? undefined : decoderFor(encoding);
  // A charset nothing decodes is refused where body-parser 1.20 refuses it: at
  // once when there is a `verify`, before any inflating stream exists; else after
  // the Content-Encoding and raw-body's own checks, once the body is read off,
  // as every read error is.
  const charsetError = encoding !== null && !decoder ? unsupportedCharset(encoding) : null;
  if (charsetError && verify) {
    next(charsetError);
    return;
  }

  let stream: Readable;
  try {
    stream = contentStream(req, settings.inflate);
  } catch (err) {
    next(err);
    return;
  }
  const announced = stream === req ? announcedLength(req.headers['content-length']) : null;

  // The body's events run in the connection's context: `verify`, the parse and `next`
  // run in the caller's, as raw-body calls back in it.
  const collected = inCallerContext<Parameters<CollectCallback>>((error, chunks, length) => {
    if (error) {
      if (stream !== req) {
        req.unpipe(stream as unknown as NodeJS.WritableStream);
        stream.destroy();
      }
      // Answer only once the client has finished sending, so it reads the error.
      whenRequestRead(req, () => next(error));
      return;
    }
    if (stream !== req) {
      req.unpipe(stream as unknown as NodeJS.WritableStream);
      stream.on('error', () => undefined);
      stream.destroy();
      req.resume();
    }
    // A body read in one chunk that only gets decoded is decoded where it lies;
    // `verify` and raw bodies get a Buffer of their own, as raw-body gives.
    const body = chunks!.length === 1 && decoder && !verify ? chunks![0] : Buffer.concat(chunks!, length);
    if (verify) {
      try {
        verify(req, res, body, encoding);
      } catch (err) {
        next(verifyFailed(err, body));
        return;
      }
    }
    let text: string | Buffer = body;
    try {
      // body-parser decodes a body as it reads it, a chunk at a time, unless `verify`
      // needs its bytes first: the decoders whose reading of a body depends on that get the chunks.
      text = decoder ? decoder.decode(body, verify ? undefined : chunks) : body;
      req.body = parse(text);
    } catch (err) {
      next(parseFailed(err, text));
      return;
    }
    next();
  });
  collect(req, stream, announced, settings.limit, charsetError, collected);
}
