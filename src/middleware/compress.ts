/**
 * `compress([options])`: gzip or deflate responses the client accepts (gzip
 * preferred), for compressible Content-Types (`filter`, default by the MIME
 * database) of at least `threshold` bytes (default 1kb) when the length is
 * known. Adds `Vary: Accept-Encoding`; leaves HEAD, 204/304, and already
 * encoded responses alone. Other options go to zlib. `res.flush()` flushes.
 */
import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as zlib from 'node:zlib';
import { parseBytesUnrounded } from '../http/bytes';
import { assertSendable } from '../http/outgoing-checks';
import { vary } from '../http/vary';
import { named } from '../named';
import { preferredEncoding } from './connect-negotiation';
import { onHeaders } from './on-headers';
import type { Middleware } from './types';

// The `compressible` flags Connect's compressible check reads, from the mime-db that npm
// installs for it today (1.54: package.json); mime-types has its own, older copy.

const mimeDb: Record<string, { compressible?: boolean }> = require('mime-db');

export interface CompressOptions extends zlib.ZlibOptions {
  threshold?: number | string;
  filter?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

const COMPRESSIBLE_TYPE = /^text\/|\+(?:json|text|xml)$/i;

/** The default filter: the Content-Type is compressible by the MIME database or by its shape. */
export function filter(_req: IncomingMessage, res: ServerResponse): boolean {
  const type = res.getHeader('Content-Type');
  if (typeof type !== 'string' || !type) return false;
  const mime = (/^\s*([^;\s]*)(?:;|\s|$)/.exec(type)?.[1] ?? '').toLowerCase();
  const known = mimeDb[mime];
  if (known && known.compressible !== undefined) return known.compressible;
  return COMPRESSIBLE_TYPE.test(mime);
}

/** The length of a chunk `assertSendable` let through (a falsy one is none). */
function byteLength(chunk: unknown, encoding?: BufferEncoding): number {
  if (!chunk) return 0;
  return typeof chunk === 'string' ? Buffer.byteLength(chunk, encoding) : (chunk as Uint8Array).byteLength;
}

function toBuffer(chunk: unknown, encoding?: BufferEncoding): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, encoding);
}

type Listener = (...args: unknown[]) => void;
type Encoding = 'gzip' | 'deflate';
type AnyFn = (...args: unknown[]) => unknown;

/**
 * A body ended whole is compressed in line up to this size, on libuv's thread pool
 * above it. The asynchronous call costs 70 to 130 us of CPU more than the synchronous
 * one (Node 20 and 26, pinned to one core or not), where compressing 4 KB of HTML takes
 * 22 us and 32 KB about 100 (bench/README.md, "gzip"): below this size the pool costs
 * more than it spares the event loop.
 */
const INLINE_LIMIT = 32 * 1024;

/**
 * One-shot compression in line; the bytes are those of `zlib.gzip`/`zlib.deflate`
 * (the same zlib calls). Options zlib rejects were refused as the head was written
 * (assertZlibTakesOptions); a failure of zlib itself (a `Z_` code) ends the response
 * without a body, as the asynchronous call's callback does.
 */
function compressInline(encoding: Encoding, body: Buffer, options: zlib.ZlibOptions): Buffer | undefined {
  try {
    return encoding === 'gzip' ? zlib.gzipSync(body, options) : zlib.deflateSync(body, options);
  } catch (err) {
    if (String((err as { code?: unknown } | null)?.code).startsWith('Z_')) return undefined;
    throw err;
  }
}

// `options` is optional without a default value, so `compress.length` stays 1 as in Connect.
function createCompress(options?: CompressOptions): Middleware {
  options = options || {};
  const shouldCompress = options.filter || filter;
  // Unrounded, as Connect's bytes 2.1 read it: `'0.7kb'` leaves a 716-byte answer uncompressed.
  const parsed = parseBytesUnrounded(options.threshold);
  // A string that is no size (`'x'`) was NaN to Connect's bytes 2.1, not the default: no
  // length is below NaN, so every answer was compressed, whatever its size.
  const threshold = parsed != null ? parsed : typeof options.threshold === 'string' ? NaN : 1024;
  const zlibOptions: zlib.ZlibOptions = options;
  /** What zlib threw for the options, per coding (null: it took them), asked once. */
  const refusals: Partial<Record<Encoding, { error: unknown } | null>> = {};
  /**
   * Throws what zlib throws for the options (a `level` of 42...) as the head is about to
   * be written: Connect made its compressor there, so the throw left the head unwritten
   * and the app's error handling answered (a 500 page). Made after the head, as here,
   * the compressor's throw could only cut the connection.
   */
  const assertZlibTakesOptions = (encoding: Encoding) => {
    let refusal = refusals[encoding];
    if (refusal === undefined) {
      try {
        (encoding === 'gzip' ? new zlib.Gzip(zlibOptions) : new zlib.Deflate(zlibOptions)).close();
        refusal = null;
      } catch (error) {
        refusal = { error };
      }
      refusals[encoding] = refusal;
    }
    if (refusal) throw refusal.error;
  };

  return named('compress', function (req, res, next) {
    const write = res.write as AnyFn;
    const end = res.end as AnyFn;
    const on = res.on as AnyFn;
    let ended = false;
    let length: number | undefined;
    let drainListeners: Listener[] | null = [];
    /** The encoding chosen when the head was written; the compressor is made on the first write. */
    let method: Encoding | undefined;
    let stream: zlib.Gzip | zlib.Deflate | undefined;
    /** The client is gone (or the response is done): writes no longer reach a compressor. */
    let closed = false;

    const startStream = (encoding: Encoding) => {
      const compressor = encoding === 'gzip' ? zlib.createGzip(options) : zlib.createDeflate(options);
      stream = compressor;
      for (const listener of drainListeners ?? []) compressor.on('drain', listener);
      compressor.on('data', (chunk: Buffer) => {
        if (write.call(res, chunk) === false) compressor.pause();
      });
      compressor.on('end', () => end.call(res));
      on.call(res, 'drain', () => compressor.resume());
      return compressor;
    };

    /**
     * Ends the response with its compressed body. HTTP/2's `end(chunk)` writes the chunk
     * through `this.write`, which is `compressWrite` by then: it must pass this one on.
     */
    let endingCompressed = false;
    const endCompressed = (compressed: Buffer | undefined) => {
      endingCompressed = true;
      try {
        end.call(res, compressed);
      } finally {
        endingCompressed = false;
      }
    };

    const compressWhole = (encoding: Encoding, body: Buffer) => {
      passThrough();
      if (body.length <= INLINE_LIMIT) {
        endCompressed(compressInline(encoding, body, options!));
        return;
      }
      const compress = encoding === 'gzip' ? zlib.gzip : zlib.deflate;
      compress(body, options!, (err, compressed) => endCompressed(err ? undefined : compressed));
    };

    (res as ServerResponse & { flush?: () => void }).flush = () => stream?.flush();

    res.write = function compressWrite(this: ServerResponse, chunk: unknown, encoding?: unknown) {
      // A destroyed response (its head refused: see static/file-body.ts) takes writes
      // without a throw in Node's own write; making its head here would throw again.
      if (endingCompressed || this.destroyed) return write.call(this, chunk, encoding) as boolean;
      if (ended) return false;
      assertSendable(chunk);
      if (!this.headersSent) this.writeHead(this.statusCode);
      const enc = typeof encoding === 'string' ? (encoding as BufferEncoding) : undefined;
      if (method === undefined || closed) return write.call(this, chunk, encoding) as boolean;
      return (stream ?? startStream(method)).write(toBuffer(chunk, enc));
    } as ServerResponse['write'];

    res.end = function compressEnd(this: ServerResponse, ...args: unknown[]) {
      if (ended) return false;
      if (this.destroyed) return end.apply(this, args) as ServerResponse;
      // end(callback) and end(chunk, callback): Node calls it once the response is finished.
      let [chunk, encoding] = args;
      let callback: AnyFn | undefined;
      if (typeof chunk === 'function') [callback, chunk] = [chunk as AnyFn, undefined];
      else if (typeof encoding === 'function') [callback, encoding] = [encoding as AnyFn, undefined];
      // Node's end takes a falsy chunk for none.
      if (chunk) assertSendable(chunk);
      const enc = typeof encoding === 'string' ? (encoding as BufferEncoding) : undefined;
      if (!this.headersSent) {
        if (!this.getHeader('Content-Length')) length = byteLength(chunk, enc);
        this.writeHead(this.statusCode);
      }
      // Not compressed: Node's end gets the call as it was made, callback included.
      if (method === undefined || closed) return end.apply(this, args) as ServerResponse;
      ended = true;
      if (callback) this.once('finish', callback);
      // The whole body at once (res.send's way): one zlib call, no stream and no
      // events. The bytes are the stream's (zlib's one-shot calls run the same one).
      if (!stream && chunk) compressWhole(method, toBuffer(chunk, enc));
      else if (chunk) (stream ?? startStream(method)).end(toBuffer(chunk, enc));
      else (stream ?? startStream(method)).end();
      return this;
    } as ServerResponse['end'];

    // Back-pressure: `drain` listeners follow the compressor once there is one.
    res.on = function compressOn(this: ServerResponse, type: string | symbol, listener: Listener) {
      if (!drainListeners || type !== 'drain') return on.call(this, type, listener);
      if (stream) return stream.on(type, listener);
      drainListeners.push(listener);
      return this;
    } as ServerResponse['on'];

    // ... and are removed from where they went. EventEmitter's once() removes
    // its wrapper through `res.removeListener`; were that not followed, every
    // `once(res, 'drain')` of a back-pressured writer would stay on the
    // compressor: one more listener per wait, each called on every later drain,
    // and Node's MaxListeners warning after ten (Connect 2.30 and compression
    // 1.8 leave them there).
    const removeListener = res.removeListener as AnyFn;
    res.removeListener = res.off = function compressRemoveListener(
      this: ServerResponse,
      type: string | symbol,
      listener: Listener,
    ) {
      if (type === 'drain' && drainListeners) {
        if (stream) stream.removeListener(type, listener);
        const at = drainListeners.lastIndexOf(listener);
        if (at !== -1) drainListeners.splice(at, 1);
      }
      return removeListener.call(this, type, listener);
    } as ServerResponse['removeListener'];

    // A client that goes away mid-response: free the compressor and what it
    // holds. Without this, a writer that does not watch for the close (a
    // periodic or event-driven push) fills the paused compressor with all it
    // writes until the response is collected (Connect 2.30 did; compression
    // 1.8, what Express 4 apps use, frees it). Later writes go to the closed
    // response, which drops them, as they would without compress.
    on.call(res, 'close', () => {
      closed = true;
      stream?.destroy();
    });

    const passThrough = () => {
      for (const listener of drainListeners ?? []) on.call(res, 'drain', listener);
      drainListeners = null;
    };

    onHeaders(res, () => {
      if (!shouldCompress(req, res)) return passThrough();
      vary(res, 'Accept-Encoding');
      if (Number(res.getHeader('Content-Length')) < threshold || (length !== undefined && length < threshold))
        return passThrough();
      if ((res.getHeader('Content-Encoding') || 'identity') !== 'identity') return passThrough();
      // Responses that carry no body are never encoded (3.x relied on their length alone).
      if (req.method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304) return passThrough();

      const acceptEncoding = req.headers['accept-encoding'];
      let accepted = preferredEncoding(acceptEncoding, ['gzip', 'deflate', 'identity']);
      if (accepted === 'deflate' && preferredEncoding(acceptEncoding, ['gzip'])) {
        accepted = preferredEncoding(acceptEncoding, ['gzip', 'identity']);
      }
      if (!accepted || accepted === 'identity') return passThrough();

      assertZlibTakesOptions(accepted as Encoding);
      method = accepted as Encoding;
      res.setHeader('Content-Encoding', method);
      res.removeHeader('Content-Length');
    });
    next();
  });
}

/**
 * `compress([options])`, with the default filter as `compress.filter`: 3.x apps
 * write their own filter on top of it (`filter: (req, res) => ... ||
 * express.compress.filter(req, res)`), as Connect's compress allowed.
 */
export const compress: typeof createCompress & { filter: typeof filter } = Object.assign(createCompress, { filter });
