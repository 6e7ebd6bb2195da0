/**
 * What an HTTP/2 compatibility response (`Http2ServerResponse`) gets on top of
 * Node's class, so that code written for HTTP/1 responses works on it: a layer
 * between the app's response prototype and Node's, made once per class prototype
 * (nothing is added to Node's own).
 *
 * - `_implicitHeader()`, the one member of Node's HTTP/1 response that Express
 *   middleware calls on any response: it writes the head with the status set so
 *   far. express-session calls it before writing a response whose session it saves
 *   (when `res._header` is not set, which an HTTP/2 response never has): without it,
 *   every request that saved a session over HTTP/2 failed with a TypeError.
 * - `writeHead` without HTTP/1's connection headers. HTTP/2 has no `Keep-Alive`,
 *   `Transfer-Encoding`, `Upgrade`... (RFC 9113 8.2.2: whoever turns an HTTP/1
 *   message into HTTP/2 removes them). Node drops a `Connection` header with a
 *   warning, but writing a head with any of the others throws
 *   ERR_HTTP2_INVALID_CONNECTION_HEADERS, from wherever the head is written: after
 *   express-session's store saved, a proxy's upstream response, an `on-headers`
 *   hook, where no handler catches it and the process ends. An app that sets one
 *   for its HTTP/1 clients now answers HTTP/2 clients without it, with one warning
 *   per header name.
 * - `setHeader`, `appendHeader` and `writeHead` check names and values as HTTP/1's do,
 *   with the same errors (see `checkHeader`). `appendHeader` also where Node's HTTP/2
 *   response lacks it (before 20.12; HTTP/1's has it since 18.3).
 * - `getRawHeaderNames()` and `writeProcessing()`, which HTTP/1's response has and
 *   Node's HTTP/2 one lacks (calling either threw a TypeError): the names as they go
 *   out (HTTP/2 sends them in lower case), and a 102 informational response.
 * - `write` and `end` on a stream the client has reset: dropped, as HTTP/1 drops what
 *   is written to a socket the client closed (see `closedUnder`).
 * - `write` to a response without a body (HEAD, 204, 205, 304): dropped, as HTTP/1
 *   drops it (see `bodiless`).
 * - `addTrailers` and `setTrailer` without HTTP/1's connection headers, and
 *   `addTrailers` with HTTP/1's checks and forms.
 */
import { OutgoingMessage, validateHeaderName, validateHeaderValue } from 'node:http';
import { assertSendable, assertTrailers } from './outgoing-checks';

/** The headers HTTP/2 refuses in a response, besides `Connection` (which Node itself drops). */
const CONNECTION_HEADERS: ReadonlySet<string> = new Set([
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
  'te',
]);

/** Whether HTTP/2 refuses this header (lower-case name): `TE` is allowed as `trailers` only, as Node checks it. */
function refusedOnHttp2(lowerName: string, value: unknown): boolean {
  if (!CONNECTION_HEADERS.has(lowerName)) return false;
  return lowerName !== 'te' || String(value) !== 'trailers';
}

const warned = new Set<string>();

function warnDropped(lowerName: string): void {
  if (warned.has(lowerName)) return;
  warned.add(lowerName);
  process.emitWarning(
    `HTTP/2 responses cannot carry the "${lowerName}" header: it is left out of them (RFC 9113 8.2.2).`,
    'UnsupportedWarning',
  );
}

interface Http2Response {
  stream?: {
    destroyed: boolean;
    closed: boolean;
    headRequest?: boolean;
    rstCode?: number;
    additionalHeaders(headers: Record<string, unknown>): void;
  };
  headersSent: boolean;
  writableEnded: boolean;
  getHeaderNames(): string[];
  setHeader(name: string, value: unknown): unknown;
  appendHeader?(name: string, value: unknown): unknown;
  hasHeader(name: string): boolean;
  getHeader(name: string): unknown;
  removeHeader(name: string): void;
  writeHead(statusCode: number, ...rest: unknown[]): unknown;
  statusCode: number;
}

/** Removes from the response the headers HTTP/2 refuses. */
function removeRefusedHeaders(res: Http2Response): void {
  for (const name of CONNECTION_HEADERS) {
    if (res.hasHeader(name) && refusedOnHttp2(name, res.getHeader(name))) {
      res.removeHeader(name);
      warnDropped(name);
    }
  }
}

type HeaderList = unknown[] | Record<string, unknown>;

interface ListEntry {
  name: unknown;
  value: unknown;
  /** What stands for the header in the list: its pair, or its name and value. */
  items: unknown[];
}

/**
 * The headers of a `writeHead` list, `[[name, value], ...]` or `[name, value, ...]`
 * as Node accepts both. The last name of an odd flat list is `dangling`: Node
 * refuses such a list, and is given it as the app wrote it.
 */
function listEntries(headers: unknown[]): { entries: ListEntry[]; dangling: unknown[] } {
  const entries: ListEntry[] = [];
  if (headers.length !== 0 && Array.isArray(headers[0])) {
    for (const pair of headers) {
      const [name, value] = pair as unknown[];
      entries.push({ name, value, items: [pair] });
    }
    return { entries, dangling: [] };
  }
  const whole = headers.length - (headers.length % 2);
  for (let i = 0; i < whole; i += 2) {
    entries.push({ name: headers[i], value: headers[i + 1], items: [headers[i], headers[i + 1]] });
  }
  return { entries, dangling: headers.slice(whole) };
}

/** `writeHead`'s headers argument without the headers HTTP/2 refuses (the same object when it has none). */
function withoutRefusedHeaders(headers: HeaderList): HeaderList {
  if (!Array.isArray(headers)) {
    const names = Object.keys(headers);
    if (!names.some((name) => refusedOnHttp2(name.trim().toLowerCase(), headers[name]))) return headers;
    const kept: Record<string, unknown> = {};
    for (const name of names) {
      const lower = name.trim().toLowerCase();
      if (refusedOnHttp2(lower, headers[name])) warnDropped(lower);
      else kept[name] = headers[name];
    }
    return kept;
  }
  const { entries, dangling } = listEntries(headers);
  const kept: unknown[] = [];
  for (const { name, value, items } of entries) {
    const lower = String(name).trim().toLowerCase();
    if (refusedOnHttp2(lower, value)) warnDropped(lower);
    else kept.push(...items);
  }
  kept.push(...dangling);
  return kept;
}

/**
 * Node's HTTP/1 response refuses a header value with a control character (CR, LF,
 * NUL...) or a character above U+00FF where it is set, with ERR_INVALID_CHAR. Its
 * HTTP/2 response checks only the name and sends the value: the client drops the whole
 * stream as malformed (RFC 9113 8.2.1) where the app's error handlers never see it, and
 * wider characters arrive mangled. The same check, in the same place.
 */
function checkHeader(name: unknown, value: unknown): void {
  validateHeaderName(name as string);
  validateHeaderValue(name as string, value as string);
}

/** `writeHead`'s headers argument checked as `setHeader` checks each header. */
function checkHeaderList(headers: HeaderList): void {
  if (!Array.isArray(headers)) {
    for (const name of Object.keys(headers)) checkHeader(name, headers[name]);
    return;
  }
  for (const { name, value } of listEntries(headers).entries) checkHeader(name, value);
}

/**
 * `appendHeader` where Node's HTTP/2 response has none (before 20.12): the values
 * added after those already set, through `setHeader` as Node's own does later (which
 * throws ERR_HTTP2_HEADERS_SENT once the head is out). `on-headers`, under
 * express-session, morgan and response-time, calls it for each header of a flat
 * `writeHead` list: without it, such a response failed with a TypeError.
 */
function appendThroughSetHeader(res: Http2Response, name: string, value: unknown): void {
  if (!res.hasHeader(name)) {
    res.setHeader(name, value);
    return;
  }
  const existing = res.getHeader(name);
  res.setHeader(name, (Array.isArray(existing) ? existing : [existing]).concat(value));
}

/**
 * Whether the response's stream was closed under it: the client reset the stream (a
 * cancelled fetch, a closed tab) and Node has not yet told the response, which it does
 * on the stream's `close` event, a turn later. Until then Node's `write` and `end` go
 * on to write on the closed stream, which throws ERR_HTTP2_INVALID_STREAM: out of
 * `res.send` in the error handler that a body parser's "request aborted" reaches (it
 * is called from the request's `aborted` event, in that turn), or in an app's own
 * `aborted` listener. HTTP/1 drops what is written to a socket the client closed, and
 * so do these: the response still emits `finish` and `close` when the stream closes.
 */
function closedUnder(res: Http2Response): boolean {
  const stream = res.stream;
  // Destroyed as well, it is Node's own `write` and `end` that know what to do.
  return stream !== undefined && stream.closed && !stream.destroyed;
}

/** The statuses whose head ends an HTTP/2 stream, as a HEAD request's does (Node's `respond`). */
const NO_BODY_STATUSES: ReadonlySet<number> = new Set([204, 205, 304]);

/** Node's HTTP/1 `setHeaders` (every Node line webapp supports has it). */
const http1SetHeaders = (OutgoingMessage.prototype as unknown as { setHeaders(headers: unknown): unknown }).setHeaders;

/**
 * Whether a `write` goes to a response that has no body: the answer to a HEAD request,
 * or with a status that has none. Node's HTTP/2 response ends the stream with the head
 * of such an answer, and its `write` then goes on to the ended stream: it returns false,
 * `drain` never comes and the callback gets ERR_STREAM_WRITE_AFTER_END. A handler that
 * streams (`pipe`, `pipeline`, waiting for `drain`) never reached `end`, and the
 * response never emitted `finish` or `close`: one stuck handler per HEAD request. HTTP/1
 * drops what is written to such a response, returns true and calls the callback without
 * an error; so do these, until the app ends the response (a write after that fails as
 * HTTP/1's does). A stream the client reset is left to `closedUnder`.
 */
function bodiless(res: Http2Response): boolean {
  const stream = res.stream;
  if (stream === undefined || res.writableEnded) return false;
  if (stream.headRequest !== true && !NO_BODY_STATUSES.has(res.statusCode)) return false;
  // Closed with NO_ERROR once both sides ended: the normal end of a HEAD, not a reset.
  return !stream.closed || stream.rstCode === 0;
}

/**
 * The trailer names HTTP/2 refuses: its connection headers, `Connection` as well, which
 * Node drops with a warning from a head but throws on in trailers (from the stream's
 * `wantTrailers` event, where nothing catches it and the process ends).
 */
function refusedInTrailers(lowerName: string, value: unknown): boolean {
  return lowerName === 'connection' || refusedOnHttp2(lowerName, value);
}

/** `addTrailers`' argument as name and value pairs: an object, or HTTP/1's list of pairs. */
function trailerEntries(headers: object): Array<[unknown, unknown]> {
  if (Array.isArray(headers)) return headers.map((pair) => [(pair as unknown[])[0], (pair as unknown[])[1]]);
  return Object.entries(headers);
}

/** The error a write on a reset stream gives its callback: Node's code and message for it. */
function closedStreamError(): Error {
  return Object.assign(new Error('The stream has been destroyed'), { code: 'ERR_HTTP2_INVALID_STREAM' });
}

type WriteCallback = (error?: Error | null) => void;

/** Defines `value` as the layer's own method `name`, writable and configurable as Node's are. */
function defineMethod(layer: object, name: string, value: (...args: never[]) => unknown): void {
  Object.defineProperty(layer, name, { configurable: true, writable: true, value });
}

const layers = new WeakMap<object, object>();

/** The layer for the response's class prototype `native`, made on first use. */
export function http2ResponseLayer(native: object): object {
  const made = layers.get(native);
  if (made !== undefined) return made;
  const nativeWriteHead = (native as Http2Response).writeHead;
  const nativeSetHeader = (native as Http2Response).setHeader;
  const nativeAppendHeader = (native as Http2Response).appendHeader;
  const nativeWrite = (native as { write: (...args: unknown[]) => boolean }).write;
  const nativeEnd = (native as { end: (...args: unknown[]) => unknown }).end;
  const nativeSetTrailer = (native as { setTrailer: (name: string, value: unknown) => void }).setTrailer;
  const layer = Object.create(native) as object;
  if (!('_implicitHeader' in native)) {
    defineMethod(layer, '_implicitHeader', function _implicitHeader(this: Http2Response) {
      this.writeHead(this.statusCode);
    });
  }
  if (!('getRawHeaderNames' in native)) {
    defineMethod(layer, 'getRawHeaderNames', function getRawHeaderNames(this: Http2Response) {
      return this.getHeaderNames();
    });
  }
  if (!('writeProcessing' in native)) {
    defineMethod(layer, 'writeProcessing', function writeProcessing(this: Http2Response, callback?: () => void) {
      const stream = this.stream;
      // As writeContinue does on HTTP/2: an informational head, while the final one is unsent.
      if (stream !== undefined && !stream.destroyed && !this.headersSent) stream.additionalHeaders({ ':status': 102 });
      if (typeof callback === 'function') process.nextTick(callback);
    });
  }
  // Both return the response, as HTTP/1's do (Node's HTTP/2 ones return nothing), for
  // code that chains them: `res.setHeader(name, value).end(body)`.
  defineMethod(layer, 'setHeader', function setHeader(this: Http2Response, name: string, value: unknown) {
    checkHeader(name, value);
    nativeSetHeader.call(this, name, value);
    return this;
  });
  defineMethod(layer, 'appendHeader', function appendHeader(this: Http2Response, name: string, value: unknown) {
    checkHeader(name, value);
    if (typeof nativeAppendHeader === 'function') nativeAppendHeader.call(this, name, value);
    else appendThroughSetHeader(this, name, value);
    return this;
  });
  if (!('setHeaders' in native)) {
    // HTTP/1's `setHeaders(headers)` (a Headers or a Map), which Node's HTTP/2 response
    // lacks. Node's own HTTP/1 method does it: it reads only `_header` (an HTTP/2
    // response's is `headersSent`) and sets each header through `setHeader` above, the
    // Set-Cookie values together.
    defineMethod(layer, 'setHeaders', function setHeaders(this: Http2Response, headers: unknown) {
      return http1SetHeaders.call(this, headers);
    });
  }
  /* eslint-disable prefer-rest-params */
  defineMethod(layer, 'write', function write(this: Http2Response, chunk: unknown, encoding?: unknown, cb?: unknown) {
    const callback = (typeof encoding === 'function' ? encoding : cb) as WriteCallback | undefined;
    if (bodiless(this)) {
      // As HTTP/1's `write` does: the chunk checked (null too), the head written, the chunk dropped.
      assertSendable(chunk);
      if (!this.headersSent) this.writeHead(this.statusCode);
      if (typeof callback === 'function') process.nextTick(callback);
      return true;
    }
    if (!closedUnder(this)) return nativeWrite.apply(this, arguments as unknown as unknown[]);
    // As HTTP/1's `write` on a destroyed socket: nothing written, false, the callback given an error.
    if (typeof callback === 'function') process.nextTick(callback, closedStreamError());
    return false;
  });
  defineMethod(layer, 'end', function end(this: Http2Response, chunk?: unknown, encoding?: unknown, cb?: unknown) {
    if (!closedUnder(this)) return nativeEnd.apply(this, arguments as unknown as unknown[]);
    // What Node's own `end` does once it knows the stream closed: nothing to write, the callback called.
    const callback = [chunk, encoding, cb].find((arg) => typeof arg === 'function') as WriteCallback | undefined;
    if (callback !== undefined) process.nextTick(callback);
    return this;
  });
  /* eslint-enable prefer-rest-params */
  defineMethod(layer, 'addTrailers', function addTrailers(this: Http2Response, headers: object) {
    assertTrailers(headers);
    const self = this as unknown as { setTrailer(name: unknown, value: unknown): void };
    for (const [name, value] of trailerEntries(headers)) self.setTrailer(name, value);
  });
  defineMethod(layer, 'setTrailer', function setTrailer(this: Http2Response, name: string, value: unknown) {
    const lower = typeof name === 'string' ? name.trim().toLowerCase() : '';
    if (refusedInTrailers(lower, value)) {
      warnDropped(lower);
      return;
    }
    nativeSetTrailer.call(this, name, value);
  });
  // Node's `end`, `write` and `flushHeaders` write the head through `this.writeHead`.
  defineMethod(layer, 'writeHead', function writeHead(this: Http2Response, statusCode: number, ...rest: unknown[]) {
    removeRefusedHeaders(this);
    // `writeHead(status, headers)` or `writeHead(status, message, headers)`, as Node reads them.
    const at = rest[1] !== undefined ? 1 : 0;
    const headers = rest[at];
    if (typeof headers === 'object' && headers !== null) {
      checkHeaderList(headers as HeaderList);
      rest[at] = withoutRefusedHeaders(headers as HeaderList);
    }
    return nativeWriteHead.call(this, statusCode, ...rest);
  });
  layers.set(native, layer);
  return layer;
}
