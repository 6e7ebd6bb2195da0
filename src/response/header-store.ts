/**
 * The response's header store: Node's header API (`setHeader`, `getHeader`,
 * `getHeaders`, `hasHeader`, `removeHeader`, `appendHeader`, `getHeaderNames`,
 * `getRawHeaderNames`, `writeHead`) over a flat array kept on the response, the
 * head written with one `writeHead(status, [name, value, ...])`.
 *
 * Why: Node keeps progressively set headers in a dictionary-mode object of
 * `[name, value]` pairs that `_storeHeader` walks with `for...in`; for the four
 * headers an Express response carries (X-Powered-By, Content-Type,
 * Content-Length, ETag) that store costs more than everything webapp's router
 * does (see bench/README.md "Profiles"). Here a header is three slots of one
 * array, a name already seen is validated and lower-cased once per process, and
 * the head goes to Node as the flat list `writeHead` accepts.
 *
 * What stays as in Node (and Express): the same validation errors (Node's own
 * validators decide every name and value the fast check does not accept), the
 * same ERR_HTTP_HEADERS_SENT errors, `removeHeader`'s effect on the automatic
 * Content-Length, Transfer-Encoding, Connection and Date headers, the order and
 * casing of the head, and headers that stay readable after the response is sent
 * (morgan reads `res.getHeader('content-length')` on finish).
 *
 * Headers set before the response took webapp's prototype (by a wrapper around
 * the app) are taken over from Node's store on first use, and given back when
 * the response leaves a webapp app for a foreign one (`releaseHeaders`). Where
 * Node's store cannot be found (its internal symbol), nothing is installed and
 * responses use Node's own API.
 */
import { OutgoingMessage, ServerResponse, validateHeaderName, validateHeaderValue } from 'node:http';

type HeaderValue = number | string | readonly string[];

/** A response as the store sees it: Node's own slots plus the staged list. */
interface StoreHolder extends ServerResponse {
  /** Node's head once written (an internal slot; `headersSent` reads it). */
  _header?: string | null;
  [kStaged]?: unknown[] | undefined;
  [slot: symbol]: unknown;
}

/** Where this response's headers live: `[lowerName, name, value]` triples. */
export const kStaged = Symbol('webapp.headers');

/** Node's own header slot (`Symbol(kOutHeaders)`), found on a fresh message. */
function findOutHeadersSymbol(): symbol | undefined {
  const probe = new OutgoingMessage();
  return Object.getOwnPropertySymbols(probe).find((symbol) => symbol.description === 'kOutHeaders');
}

const kOutHeaders = findOutHeadersSymbol();

const native = {
  setHeader: OutgoingMessage.prototype.setHeader,
  getHeader: OutgoingMessage.prototype.getHeader,
  removeHeader: OutgoingMessage.prototype.removeHeader,
  appendHeader: (OutgoingMessage.prototype as { appendHeader?: unknown }).appendHeader,
  writeHead: ServerResponse.prototype.writeHead,
};

/** Characters Node rejects in a header value (RFC 7230 field-content), for the fast check. */
const INVALID_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/** Header names already validated, with their lower-case form: apps set the same few names. */
const lowerNames = new Map<string, string>();
const LOWER_NAMES_KEPT = 512;

/** The lower-case name, after Node's validation the first time a name is seen. */
function checkedName(name: string): string {
  let lower = lowerNames.get(name);
  if (lower !== undefined) return lower;
  validateHeaderName(name);
  lower = name.toLowerCase();
  if (lowerNames.size >= LOWER_NAMES_KEPT) lowerNames.clear();
  lowerNames.set(name, lower);
  return lower;
}

/** Numbers and plain strings are checked here; anything else (arrays, bad values) by Node. */
function checkValue(name: string, value: unknown): void {
  if (typeof value === 'number' || (typeof value === 'string' && !INVALID_VALUE_CHAR.test(value))) return;
  validateHeaderValue(name, value as string);
}

/** The name argument of the readers: a string, or Node's own ERR_INVALID_ARG_TYPE. */
function checkedLookupName(res: StoreHolder, name: unknown): string {
  if (typeof name !== 'string') native.getHeader.call(res, name as string);
  return lowerNames.get(name as string) ?? (name as string).toLowerCase();
}

/**
 * The staged list, created on first use. Headers Node already holds (set before
 * the response had webapp's prototype) move into it, in their order.
 */
function staged(res: StoreHolder): unknown[] {
  let list = res[kStaged];
  if (list !== undefined) return list;
  list = [];
  const outHeaders = res[kOutHeaders!] as Record<string, [string, unknown]> | null | undefined;
  if (outHeaders) {
    for (const lower in outHeaders) list.push(lower, outHeaders[lower][0], outHeaders[lower][1]);
    res[kOutHeaders!] = null;
  }
  res[kStaged] = list;
  return list;
}

function indexOf(list: unknown[], lower: string): number {
  for (let i = 0; i < list.length; i += 3) if (list[i] === lower) return i;
  return -1;
}

/**
 * Gives the staged headers back to Node's store, for a response that leaves a
 * webapp app (`next()` out of an app mounted in another framework) and may be
 * written through Node's own API from then on.
 */
export function releaseHeaders(res: ServerResponse): void {
  const holder = res as StoreHolder;
  const list = holder[kStaged];
  // Once sent, the head is Node's; the list stays, for the readers.
  if (list === undefined || kOutHeaders === undefined || holder._header) return;
  holder[kStaged] = undefined;
  if (list.length === 0) return;
  let outHeaders = holder[kOutHeaders] as Record<string, [unknown, unknown]> | null;
  if (!outHeaders) holder[kOutHeaders] = outHeaders = Object.create(null) as Record<string, [unknown, unknown]>;
  for (let i = 0; i < list.length; i += 3) outHeaders[list[i] as string] = [list[i + 1], list[i + 2]];
}

const storeMethods = {
  setHeader(this: StoreHolder, name: string, value: HeaderValue) {
    // Sent already: Node's own method throws its ERR_HTTP_HEADERS_SENT.
    if (this._header) return native.setHeader.call(this, name, value);
    const lower = checkedName(name);
    checkValue(name, value);
    const list = staged(this);
    const index = indexOf(list, lower);
    if (index === -1) list.push(lower, name, value);
    else {
      list[index + 1] = name;
      list[index + 2] = value;
    }
    return this;
  },

  appendHeader(this: StoreHolder, name: string, value: HeaderValue): StoreHolder {
    if (this._header)
      return (native.appendHeader as (n: string, v: HeaderValue) => StoreHolder).call(this, name, value);
    const lower = checkedName(name);
    validateHeaderValue(name, value as string);
    const list = staged(this);
    const index = indexOf(list, lower);
    if (index === -1) return this.setHeader(name, value);
    // As Node does: the stored value becomes an array the new values are pushed onto.
    const current = list[index + 2];
    const values = (Array.isArray(current) ? current : (list[index + 2] = [current])) as unknown[];
    if (Array.isArray(value)) values.push(...(value as unknown[]));
    else values.push(value);
    return this;
  },

  getHeader(this: StoreHolder, name: string) {
    const lower = checkedLookupName(this, name);
    const list = staged(this);
    const index = indexOf(list, lower);
    return index === -1 ? undefined : list[index + 2];
  },

  hasHeader(this: StoreHolder, name: string) {
    return indexOf(staged(this), checkedLookupName(this, name)) !== -1;
  },

  getHeaderNames(this: StoreHolder) {
    const list = staged(this);
    const names: string[] = [];
    for (let i = 0; i < list.length; i += 3) names.push(list[i] as string);
    return names;
  },

  getRawHeaderNames(this: StoreHolder) {
    const list = staged(this);
    const names: string[] = [];
    for (let i = 0; i < list.length; i += 3) names.push(list[i + 1] as string);
    return names;
  },

  getHeaders(this: StoreHolder) {
    const list = staged(this);
    const headers = Object.create(null) as Record<string, unknown>;
    for (let i = 0; i < list.length; i += 3) headers[list[i] as string] = list[i + 2];
    return headers;
  },

  removeHeader(this: StoreHolder, name: string) {
    // Node's method validates, throws once sent, and records that an automatic
    // header (Content-Length, Transfer-Encoding, Connection, Date) was removed.
    native.removeHeader.call(this, name);
    const list = staged(this);
    const index = indexOf(list, lowerNames.get(name) ?? name.toLowerCase());
    if (index !== -1) list.splice(index, 3);
  },

  writeHead(this: StoreHolder, statusCode: number, reason?: unknown, headers?: unknown) {
    const list = this[kStaged];
    // Headers passed along with staged ones: Node merges them by its own rules
    // (which differ between Node lines), so it gets the staged ones back first.
    if (this._header || list === undefined || (typeof reason === 'string' ? headers : reason) != null) {
      releaseHeaders(this);
      return (native.writeHead as (...args: unknown[]) => ServerResponse).apply(this, arguments as never);
    }
    const flat = new Array<unknown>((list.length / 3) * 2);
    for (let i = 0, j = 0; i < list.length; i += 3, j += 2) {
      flat[j] = list[i + 1];
      flat[j + 1] = list[i + 2];
    }
    const writeHead = native.writeHead as (...args: unknown[]) => ServerResponse;
    return typeof reason === 'string'
      ? writeHead.call(this, statusCode, reason, flat)
      : writeHead.call(this, statusCode, flat);
  },
};

/** Whether responses use the staged store (false where Node's header slot was not found). */
export const headerStoreInstalled = kOutHeaders !== undefined;

const storeFunctions: ReadonlySet<unknown> = new Set(Object.values(storeMethods));

/** Whether `value` is one of the store's methods, which HTTP/2 responses (with their own header API) must not take. */
export function isHeaderStoreMethod(value: unknown): boolean {
  return storeFunctions.has(value);
}

/**
 * Installs the store on a response prototype, as non-enumerable members like
 * Node's own, so `Object.keys(res)` and `for...in` see what they see in Express.
 */
export function installHeaderStore(proto: object): void {
  if (!headerStoreInstalled) return;
  for (const [name, value] of Object.entries(storeMethods)) {
    Object.defineProperty(proto, name, { configurable: true, enumerable: false, writable: true, value });
  }
}
