/**
 * `staticCache([options])`: Connect 2's memory cache in front of `static()`.
 * It keeps up to `maxObjects` (default 128) file responses of at most
 * `maxLength` bytes (default 256kb), evicting the least recently used, and
 * answers later GET and HEAD requests for the same URL from memory with the
 * original headers plus `X-Cache: HIT` and `Age`. Other GET and HEAD requests
 * are marked `X-Cache: MISS`; Range requests and other methods pass untouched.
 *
 * It only stores what `static()` served: the static middleware emits `'static'`
 * on the request when a file body starts, as Connect's did. (In Connect 2.30
 * nothing emitted that event any more, so its staticCache never stored
 * anything; this one works as Connect's code meant to.)
 *
 * Where Connect's intent was broken or unsafe, it is fixed:
 * - `Age` counts the seconds since the response was stored or revalidated
 *   (Connect read a Date header that was never there, so its age was always 0);
 *   a stored response whose `max-age` has run out goes back to `static()`,
 *   which, with static's default `max-age=0`, means every request is a miss,
 *   exactly what Connect 2.30 answered.
 * - Eviction is least-recently-used (Connect's cache never promoted hits).
 * - The key is host + original URL (Connect: the mount-relative URL), so
 *   virtual hosts and mount points do not share entries.
 * - Responses with `Vary`, and any response when the request says `no-store`,
 *   are not stored; a response for a URL whose ETag changed drops the entry.
 */
import { Buffer } from 'node:buffer';
import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import { deprecate } from '../http/deprecate';
import { isFresh } from '../http/fresh';
import { parseOriginalUrl } from '../http/parse-url';
import type { Middleware } from './types';

export interface StaticCacheOptions {
  /** How many responses are kept (default 128). */
  maxObjects?: number;
  /** The largest body kept, in bytes (default 256kb). */
  maxLength?: number;
}

interface CachedResponse {
  /** Header names as the response spelled them, with their values. */
  headers: Array<[string, OutgoingHttpHeader]>;
  etag: string | undefined;
  lastModified: string | undefined;
  cacheControl: Directives;
  body: Buffer;
  /** When the response was stored or last found unchanged (ms). */
  validatedAt: number;
}

type Directives = Map<string, number | true>;

/** Least-recently-used store: a Map iterates in insertion order, so re-inserting on use keeps the oldest first. */
class LruStore {
  private readonly entries = new Map<string, CachedResponse>();
  constructor(private readonly limit: number) {}

  /** The entry, without counting it as a use. */
  peek(key: string): CachedResponse | undefined {
    return this.entries.get(key);
  }

  /** Marks the entry as just used. */
  touch(key: string, entry: CachedResponse): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  add(key: string, entry: CachedResponse): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as string);
  }

  remove(key: string): void {
    this.entries.delete(key);
  }
}

/** `Cache-Control` directives by lower-cased name: the number for `name=digits`, else `true`. */
function cacheDirectives(value: unknown): Directives {
  const directives: Directives = new Map();
  if (typeof value !== 'string') return directives;
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    const name = (eq === -1 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (!name) continue;
    const number =
      eq === -1
        ? NaN
        : parseInt(
            part
              .slice(eq + 1)
              .trim()
              .replace(/^"|"$/g, ''),
            10,
          );
    directives.set(name, Number.isNaN(number) ? true : number);
  }
  return directives;
}

/** A numeric `max-age`, or undefined (a bare or malformed one does not count). */
function maxAgeOf(directives: Directives): number | undefined {
  const value = directives.get('max-age');
  return typeof value === 'number' ? value : undefined;
}

function cacheKey(req: IncomingMessage): string {
  return (req.headers.host ?? '') + ' ' + (parseOriginalUrl(req)?.path ?? req.url ?? '/');
}

/** Seconds since the entry was stored or revalidated. */
function ageOf(entry: CachedResponse, now: number): number {
  return Math.max(0, now - entry.validatedAt) / 1000;
}

/**
 * Whether the stored response cannot answer this request without asking
 * `static()` again: Connect's rules, with a response's own `max-age` meaning
 * stale once reached (HTTP's rule; Connect waited one second more).
 */
function mustRevalidate(req: IncomingMessage, entry: CachedResponse, now: number): boolean {
  const stored = entry.cacheControl;
  if (stored.has('no-cache') || stored.has('must-revalidate') || stored.has('proxy-revalidate')) return true;
  const requested = cacheDirectives(req.headers['cache-control']);
  if (requested.has('no-cache')) return true;
  const age = ageOf(entry, now);
  const requestMaxAge = maxAgeOf(requested);
  if (requestMaxAge !== undefined) return requestMaxAge < age;
  const responseMaxAge = maxAgeOf(stored);
  if (responseMaxAge !== undefined) return responseMaxAge <= age;
  return false;
}

/** Headers a 304 does not carry (as static's own 304 leaves them out). */
const CONTENT_HEADERS = new Set([
  'content-encoding',
  'content-language',
  'content-length',
  'content-range',
  'content-type',
]);

function respondFromCache(req: IncomingMessage, res: ServerResponse, entry: CachedResponse, now: number): void {
  // As static does, HEAD gets a 304 too.
  const notModified = isFresh(req.headers, { etag: entry.etag, 'last-modified': entry.lastModified });
  res.setHeader('X-Cache', 'HIT');
  for (const [name, value] of entry.headers) {
    const lower = name.toLowerCase();
    if (notModified && CONTENT_HEADERS.has(lower)) continue;
    // What middleware before this one set for this request wins (a request id, say), as static
    // leaves such headers alone; the length is the stored body's.
    if (lower !== 'content-length' && res.hasHeader(name)) continue;
    res.setHeader(name, value);
  }
  res.setHeader('Age', String(Math.floor(ageOf(entry, now))));
  res.statusCode = notModified ? 304 : 200;
  if (notModified || req.method === 'HEAD') {
    res.end();
    return;
  }
  // write() then end(), as static does: end(body) with unsent headers re-encodes some header values.
  res.write(entry.body);
  res.end();
}

/**
 * The headers to store with the body `static()` is about to send, or
 * undefined when this response must not be kept.
 */
function storableHeaders(
  req: IncomingMessage,
  res: ServerResponse,
  maxLength: number,
): CachedResponse['headers'] | undefined {
  if (res.statusCode !== 200) return undefined;
  if (req.headers.cookie !== undefined) return undefined;
  if (cacheDirectives(req.headers['cache-control']).has('no-store')) return undefined;
  if (res.hasHeader('set-cookie') || res.hasHeader('content-range') || res.hasHeader('vary')) return undefined;
  const length = Number(res.getHeader('content-length'));
  if (!res.hasHeader('content-length') || !(length >= 0 && length <= maxLength)) return undefined;
  const directives = cacheDirectives(res.getHeader('cache-control'));
  if (
    directives.has('no-cache') ||
    directives.has('no-store') ||
    directives.has('private') ||
    directives.has('must-revalidate')
  ) {
    return undefined;
  }
  const headers: CachedResponse['headers'] = [];
  for (const name of headerNames(res)) {
    if (name.toLowerCase() === 'x-cache') continue;
    const value = res.getHeader(name);
    if (value !== undefined) headers.push([name, value]);
  }
  return headers;
}

/**
 * The names as static spelled them, so a hit is the same bytes on the wire (Node >=
 * 15.13; not in these @types). An HTTP/2 response has no `getRawHeaderNames`: its
 * names go out in lower case anyway.
 */
function headerNames(res: ServerResponse): string[] {
  const raw = (res as { getRawHeaderNames?: () => string[] }).getRawHeaderNames;
  return typeof raw === 'function' ? raw.call(res) : res.getHeaderNames();
}

type WriteArgs = [chunk?: unknown, encoding?: unknown, callback?: unknown];

function chunkBuffer(chunk: unknown, encoding: unknown): Buffer | undefined {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return undefined;
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.from(String(chunk), typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
}

/**
 * Called when `static()` starts sending a file for `key`: first checks the
 * stored entry against the new response (same ETag: still valid; another:
 * dropped), then, if the response may be kept, records its body on its way out
 * and stores it once it was sent whole. The decision waits for the first write,
 * when static has set every header.
 */
function recordResponse(
  req: IncomingMessage,
  res: ServerResponse,
  key: string,
  store: LruStore,
  maxLength: number,
): void {
  const write = res.write;
  const end = res.end;
  let chunks: Buffer[] | undefined;
  let headers: CachedResponse['headers'] | undefined;
  let announcedLength = -1;
  let decided = false;

  const decide = () => {
    decided = true;
    const etag = res.getHeader('etag');
    const previous = store.peek(key);
    if (previous !== undefined) {
      if (previous.etag !== undefined && previous.etag === etag) {
        previous.validatedAt = Date.now();
        return;
      }
      store.remove(key);
    }
    headers = storableHeaders(req, res, maxLength);
    if (headers === undefined) return;
    chunks = [];
    // Read now: a compressor in front removes Content-Length when the headers go out.
    announcedLength = Number(res.getHeader('content-length'));
  };
  const collect = (chunk: unknown, encoding: unknown) => {
    if (chunks === undefined) return;
    const buffer = chunkBuffer(chunk, encoding);
    if (buffer !== undefined) chunks.push(buffer);
    else if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks = undefined;
  };

  res.write = function recordingWrite(this: ServerResponse, ...args: WriteArgs) {
    if (!decided) decide();
    collect(args[0], args[1]);
    return (write as (...a: WriteArgs) => boolean).apply(this, args);
  } as ServerResponse['write'];

  res.end = function recordingEnd(this: ServerResponse, ...args: WriteArgs) {
    res.write = write;
    res.end = end;
    if (!decided) decide();
    collect(args[0], args[1]);
    const result = (end as (...a: WriteArgs) => ServerResponse).apply(this, args);
    if (chunks !== undefined && headers !== undefined) {
      const body = Buffer.concat(chunks);
      // A body cut short (or padded by someone) is not the file static announced.
      if (body.length === announcedLength) {
        store.add(key, {
          headers,
          etag: headerString(headers, 'etag'),
          lastModified: headerString(headers, 'last-modified'),
          cacheControl: cacheDirectives(headerString(headers, 'cache-control')),
          body,
          validatedAt: Date.now(),
        });
      }
    }
    return result;
  } as ServerResponse['end'];
}

function headerString(headers: CachedResponse['headers'], name: string): string | undefined {
  for (const [key, value] of headers)
    if (key.toLowerCase() === name) return typeof value === 'string' ? value : undefined;
  return undefined;
}

const DEFAULT_MAX_OBJECTS = 128;
const DEFAULT_MAX_LENGTH = 256 * 1024;

function positive(value: unknown, fallback: number): number {
  const number = Number(value);
  return value && number > 0 ? number : fallback;
}

export function staticCache(options?: StaticCacheOptions): Middleware {
  deprecate('staticCache: use varnish or similar reverse proxy caches');
  const store = new LruStore(positive(options?.maxObjects, DEFAULT_MAX_OBJECTS));
  const maxLength = positive(options?.maxLength, DEFAULT_MAX_LENGTH);

  return function staticCache(req, res, next) {
    const method = req.method;
    if ((method !== 'GET' && method !== 'HEAD') || req.headers.range !== undefined) {
      next();
      return;
    }
    const key = cacheKey(req);
    const entry = store.peek(key);
    const now = Date.now();
    // A cookie may change what is served; If-Match and If-Unmodified-Since are static's to judge (412).
    const usable =
      entry !== undefined &&
      req.headers.cookie === undefined &&
      req.headers['if-match'] === undefined &&
      req.headers['if-unmodified-since'] === undefined &&
      !mustRevalidate(req, entry, now);
    if (usable) {
      store.touch(key, entry);
      respondFromCache(req, res, entry, now);
      return;
    }
    res.setHeader('X-Cache', 'MISS');
    // HEAD carries no body to keep; static emits 'static' only when a body starts.
    if (method === 'GET') req.once('static', () => recordResponse(req, res, key, store, maxLength));
    next();
  };
}
