/**
 * The response's header store: Node's header API (`setHeader`, `getHeader`,
 * `getHeaders`, `hasHeader`, `removeHeader`, `appendHeader`, `getHeaderNames`,
 * `getRawHeaderNames`, `writeHead`) over a flat array kept on the response, the
 * head handed to Node's `writeHead` once, as a store of headers already checked.
 *
 * Why: Node keeps progressively set headers in a dictionary-mode object of
 * `[name, value]` pairs that `_storeHeader` walks with `for...in`; for the four
 * headers an Express response carries (X-Powered-By, Content-Type,
 * Content-Length, ETag) that store costs more than everything webapp's router
 * does (see bench/README.md "Profiles"). Here a header is three slots of one
 * array, a name already seen is validated and lower-cased once per process, and
 * when the head is written the list fills Node's store in one go (fast-mode
 * objects of one class), which Node writes without validating the headers again,
 * as it does for headers given to its own setHeader.
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
import { defineMembers } from '../define-prototype';

type HeaderValue = number | string | readonly string[];

/** A response as the store sees it: Node's own slots plus the staged list. */
interface StoreHolder extends ServerResponse {
  /** Node's head once written (an internal slot; `headersSent` reads it). */
  _header?: string | null;
  [kStaged]?: StagedList | null | undefined;
  [slot: symbol]: unknown;
}

/** `[lowerName, name, value]` triples, in the order the names were first set. */
type StagedList = unknown[];

/**
 * Where this response's headers live: undefined until first used, then the
 * staged list, or null once Node's own store is in charge of this response
 * (its head was written by Node merging headers passed to `writeHead`).
 */
export const kStaged = Symbol('webapp.headers');

/** Node's own header slot (`Symbol(kOutHeaders)`), found on a fresh message. */
function findOutHeadersSymbol(): symbol | undefined {
  const probe = new OutgoingMessage();
  return Object.getOwnPropertySymbols(probe).find((symbol) => symbol.description === 'kOutHeaders');
}

const kOutHeaders = findOutHeadersSymbol();

type Method = (this: ServerResponse, ...args: never[]) => unknown;

/** Node's own setHeader, as webapp found it at load: what a patch is told apart from. */
const nodeSetHeader = OutgoingMessage.prototype.setHeader;

/**
 * The header API as it is now where Node puts it (`writeHead` on ServerResponse, the
 * rest on OutgoingMessage): Node's own methods, or what code patched in their place,
 * read at each call, so a wrapper installed later still sees every call.
 */
const currentMethods = ServerResponse.prototype as unknown as Record<string, Method>;

/**
 * Calls the `name` method of `http.ServerResponse.prototype` on `res` with the
 * arguments of the store method that called it: Node's own, or a patch of it.
 */
function nodeMethod(res: ServerResponse, name: string, args: IArguments): unknown {
  return currentMethods[name].apply(res, args as unknown as never[]);
}

/**
 * Whether code has put a `setHeader` of its own in place of Node's on
 * `http.ServerResponse.prototype` (or `OutgoingMessage.prototype`) since webapp
 * loaded, or on ServerResponse's before: security tools and instrumentation patch
 * it there to see or change every header a server sets (add `Secure` to cookies,
 * drop a header). Asked as each response first stages a header; while it holds, new
 * responses keep their headers in Node's store, and every header call goes through
 * the methods there (the other patched ones too), as on Express. One method, not the
 * nine: Node's prototypes are in dictionary mode, and each read is a lookup (about
 * 85 instructions per response).
 */
function nodeHeaderApiPatched(): boolean {
  return currentMethods.setHeader !== nodeSetHeader;
}

/** Characters outside printable ASCII and tab: values with them are checked by Node. */
const NOT_PLAIN_ASCII = /[^\t\x20-\x7e]/;
const NON_ASCII = /[^\x00-\x7f]/;

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

/**
 * Whether any response so far was given a header value beyond ASCII (latin1
 * text): only then does hasNonAsciiHeader look at a response's values.
 */
let nonAsciiValueSeen = false;

function noteNonAscii(value: unknown): void {
  if (nonAsciiValueSeen) return;
  const values = Array.isArray(value) ? (value as unknown[]) : [value];
  nonAsciiValueSeen = values.some((item) => typeof item === 'string' && NON_ASCII.test(item));
}

function isPlain(value: unknown): boolean {
  return typeof value === 'number' || (typeof value === 'string' && !NOT_PLAIN_ASCII.test(value));
}

/** Whether every item is a number or a printable ASCII string (Set-Cookie lists, mostly). */
function isPlainList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!isPlain(value[i])) return false;
  return true;
}

/** Numbers and printable ASCII strings (alone or listed) pass here; anything else is Node's to accept or reject. */
function checkValue(name: string, value: unknown): void {
  if (isPlain(value) || isPlainList(value)) return;
  validateHeaderValue(name, value as string);
  noteNonAscii(value);
}

/** The lower-case form of a name the readers were given (a string: Node's methods checked that first). */
function lowerOf(name: string): string {
  return lowerNames.get(name) ?? name.toLowerCase();
}

/**
 * The staged list, created on first use, or null when Node's store is in charge.
 * Headers in Node's store (set before the response had webapp's prototype, or
 * through Node's own setHeader called directly) move into the list: in their
 * order, a name already staged taking Node's value.
 */
function staged(res: StoreHolder): StagedList | null {
  let list = res[kStaged];
  if (list === null) return null;
  if (list === undefined) {
    if (nodeHeaderApiPatched()) return (res[kStaged] = null);
    res[kStaged] = list = [];
  }
  // Once the head is written, Node's store holds what was written from the list.
  if (res[kOutHeaders!] && !res._header) takeOverNodeStore(res, list);
  return list;
}

function takeOverNodeStore(res: StoreHolder, list: StagedList): void {
  const outHeaders = res[kOutHeaders!] as Record<string, [string, unknown]>;
  for (const lower in outHeaders) {
    const [name, value] = outHeaders[lower];
    stage(list, lower, name, value);
    noteNonAscii(value);
  }
  res[kOutHeaders!] = null;
}

/**
 * Node's store as `_storeHeader` reads it (`lowerName: [name, value]`, walked with
 * `for...in`), filled once per response when its head is written. An object of a
 * class rather than Node's `Object.create(null)`: V8 keeps these in fast mode, with
 * one hidden class for the same names in the same order, and `for...in` over them
 * reuses a cached key list. The class's prototype has no prototype, so nothing
 * added to Object.prototype shows up as a header.
 */
class OutHeaders {
  [lowerName: string]: [unknown, unknown];
}
Object.setPrototypeOf(OutHeaders.prototype, null);

/**
 * Node's store for a staged list. The first four headers are stored from a line each:
 * V8 keeps one cache per line of code for `object[name] = ...`, and a loop's single line
 * sees every name (megamorphic, a lookup in a global cache per store), where a line per
 * position sees the one name an app's responses have there (X-Powered-By, then
 * Content-Type...), and stays monomorphic.
 */
function outHeadersOf(list: StagedList): OutHeaders {
  const outHeaders = new OutHeaders();
  const length = list.length;
  if (length > 0) outHeaders[list[0] as string] = [list[1], list[2]];
  if (length > 3) outHeaders[list[3] as string] = [list[4], list[5]];
  if (length > 6) outHeaders[list[6] as string] = [list[7], list[8]];
  if (length > 9) outHeaders[list[9] as string] = [list[10], list[11]];
  for (let i = 12; i < length; i += 3) outHeaders[list[i] as string] = [list[i + 1], list[i + 2]];
  return outHeaders;
}

/** Offsets within a triple. */
const LOWER_NAME = 0;
const RAW_NAME = 1;

/** One field of every triple, in order. */
function column(list: StagedList, offset: number): string[] {
  const values: string[] = [];
  for (let i = offset; i < list.length; i += 3) values.push(list[i] as string);
  return values;
}

function indexOf(list: StagedList, lower: string): number {
  for (let i = 0; i < list.length; i += 3) if (list[i] === lower) return i;
  return -1;
}

/** Sets a header in the list: a name set before keeps its place and takes the new casing and value. */
function stage(list: StagedList, lower: string, name: string, value: unknown): void {
  const index = indexOf(list, lower);
  if (index === -1) list.push(lower, name, value);
  else {
    list[index + 1] = name;
    list[index + 2] = value;
  }
}

/**
 * Gives the staged headers back to Node's store, for a response that leaves a
 * webapp app (`next()` out of an app mounted in another framework) and may be
 * written through Node's own API from then on. A webapp app it enters next
 * takes them over again.
 */
export function releaseHeaders(res: ServerResponse): void {
  const holder = res as StoreHolder;
  const list = holder[kStaged];
  // Once sent, the head and its headers are in Node's store (see the store's writeHead).
  if (!list || kOutHeaders === undefined || holder._header) return;
  holder[kStaged] = undefined;
  if (list.length === 0) return;
  let outHeaders = holder[kOutHeaders] as Record<string, [unknown, unknown]> | null;
  if (!outHeaders) holder[kOutHeaders] = outHeaders = Object.create(null) as Record<string, [unknown, unknown]>;
  for (let i = 0; i < list.length; i += 3) outHeaders[list[i] as string] = [list[i + 1], list[i + 2]];
}

/** A status message of the app's own beyond ASCII (`res.statusMessage = 'Café fermé'`): part of the head too. */
export function hasNonAsciiStatusMessage(res: ServerResponse): boolean {
  const message = res.statusMessage as string | undefined;
  return typeof message === 'string' && NON_ASCII.test(message);
}

/**
 * Whether a header staged on `res` has a value beyond ASCII. Node writes the head
 * as latin1 on its own, but as UTF-8 when it sends it in one piece with a string
 * body; Express 4 sends such a head in one piece only for a short body without an
 * ETag, so res.send asks this (and hasNonAsciiStatusMessage) before keeping a string
 * body as a string.
 */
export function hasNonAsciiHeader(res: ServerResponse): boolean {
  if (!nonAsciiValueSeen) return false;
  const list = (res as StoreHolder)[kStaged];
  if (!list) return false;
  for (let i = 2; i < list.length; i += 3) {
    const value = list[i];
    const values = Array.isArray(value) ? (value as unknown[]) : [value];
    if (values.some((item) => typeof item === 'string' && NON_ASCII.test(item))) return true;
  }
  return false;
}

const storeMethods = {
  setHeader(this: StoreHolder, name: string, value: HeaderValue) {
    // Once sent, Node's own method throws its ERR_HTTP_HEADERS_SENT.
    if (this._header) return nodeMethod(this, 'setHeader', arguments);
    const lower = checkedName(name);
    checkValue(name, value);
    const list = staged(this);
    if (list === null) return nodeMethod(this, 'setHeader', arguments);
    stage(list, lower, name, value);
    return this;
  },

  appendHeader(this: StoreHolder, name: string, value: HeaderValue): unknown {
    if (this._header) return nodeMethod(this, 'appendHeader', arguments);
    const lower = checkedName(name);
    checkValue(name, value);
    const list = staged(this);
    if (list === null) return nodeMethod(this, 'appendHeader', arguments);
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
    const list = typeof name === 'string' ? staged(this) : null;
    if (list === null) return nodeMethod(this, 'getHeader', arguments);
    const index = indexOf(list, lowerOf(name));
    return index === -1 ? undefined : list[index + 2];
  },

  hasHeader(this: StoreHolder, name: string) {
    const list = typeof name === 'string' ? staged(this) : null;
    if (list === null) return nodeMethod(this, 'hasHeader', arguments);
    return indexOf(list, lowerOf(name)) !== -1;
  },

  getHeaderNames(this: StoreHolder) {
    const list = staged(this);
    return list === null ? nodeMethod(this, 'getHeaderNames', arguments) : column(list, LOWER_NAME);
  },

  getRawHeaderNames(this: StoreHolder) {
    const list = staged(this);
    return list === null ? nodeMethod(this, 'getRawHeaderNames', arguments) : column(list, RAW_NAME);
  },

  getHeaders(this: StoreHolder) {
    const list = staged(this);
    if (list === null) return nodeMethod(this, 'getHeaders', arguments);
    const headers = Object.create(null) as Record<string, unknown>;
    for (let i = 0; i < list.length; i += 3) headers[list[i] as string] = list[i + 2];
    return headers;
  },

  removeHeader(this: StoreHolder, name: string) {
    // Node's method validates, throws once sent, and records that an automatic
    // header (Content-Length, Transfer-Encoding, Connection, Date) was removed.
    nodeMethod(this, 'removeHeader', arguments);
    const list = staged(this);
    if (list === null) return;
    const index = indexOf(list, lowerOf(name));
    if (index !== -1) list.splice(index, 3);
  },

  writeHead(this: StoreHolder, statusCode: number, reason?: unknown, headers?: unknown) {
    // A response whose headers were never touched through the store is Node's to write,
    // and from here Node's store is its own: a patch of writeHead that sets or reads a
    // header before calling Node's must find it there (see below).
    if (this[kStaged] === undefined && !this._header) this[kStaged] = null;
    const list = this._header ? null : staged(this);
    if (!list) return nodeMethod(this, 'writeHead', arguments);
    // Node's reading of the arguments: headers in place of a reason that is no string,
    // and in third place when that reason is undefined or null (`writeHead(302, undefined, {...})`).
    const given = typeof reason === 'string' ? headers : (reason ?? headers);
    if (given != null || hasNonAsciiHeader(this)) {
      // Headers passed along with staged ones: Node merges them by its own rules
      // (which differ between Node lines), so its store takes over this response.
      // So it does for values beyond ASCII, which Node writes in ways of its own
      // (a Content-Disposition becomes latin1 bytes) only from its store.
      releaseHeaders(this);
      this[kStaged] = null;
      return nodeMethod(this, 'writeHead', arguments);
    }
    const writeHead = currentMethods.writeHead as (...args: unknown[]) => ServerResponse;
    // The staged headers go into Node's store, where Node's writeHead finds them as it
    // finds headers given to setHeader: validated already (here, when they were set),
    // so it writes them without checking every name and value a second time.
    this[kOutHeaders!] = outHeadersOf(list);
    // From here Node's store is this response's: a patch of writeHead (APM agents read
    // `getHeaders()` in theirs) reads and sets headers there before Node writes them,
    // and so does any reader once the head is out. Taking them back into the list now
    // would leave Node's writeHead an empty store.
    this[kStaged] = null;
    try {
      return typeof reason === 'string' ? writeHead.call(this, statusCode, reason) : writeHead.call(this, statusCode);
    } catch (err) {
      // A status code Node refuses: nothing was written, and the list stays the only store.
      this[kOutHeaders!] = null;
      this[kStaged] = list;
      throw err;
    }
  },
};

/**
 * The staged list of a response whose header API is the store's own (nothing
 * replaced its `setHeader` or `getHeader`) and whose head is not out, for webapp's
 * own code to read and stage the headers it names itself without the method calls
 * and checks. Null otherwise: then that code goes through the response's methods,
 * so whatever wraps them sees every call.
 */
export function ownHeaderList(res: ServerResponse): StagedList | null {
  const holder = res as StoreHolder;
  if (holder.setHeader !== storeMethods.setHeader || holder.getHeader !== storeMethods.getHeader || holder._header)
    return null;
  return staged(holder);
}

/** A header's value in a list from ownHeaderList, by its lower-case name. */
export function stagedHeader(list: StagedList, lower: string): unknown {
  const index = indexOf(list, lower);
  return index === -1 ? undefined : list[index + 2];
}

/**
 * Stages a header in a list from ownHeaderList, as `res.setHeader(name, value)`
 * would, without the checks: the caller knows the name, and that the value is a
 * number or printable ASCII (or checked it with isPlainHeaderValue).
 */
export function stageValidHeader(list: StagedList, lower: string, name: string, value: unknown): void {
  stage(list, lower, name, value);
}

/** Whether setHeader would take `value` without asking Node's validator (a number, or printable ASCII). */
export const isPlainHeaderValue = isPlain;

/**
 * `res.setHeader(name, value)` for a header webapp sets on every response with a
 * name and value it knows are valid (X-Powered-By): staged without the checks.
 * Where `setHeader` is not the store's (instrumentation replaced it, or the store
 * is not installed), or the head is out, the call goes to `res.setHeader` as it is.
 */
export function setOwnHeader(res: ServerResponse, lower: string, name: string, value: string): void {
  const holder = res as StoreHolder;
  const list = holder.setHeader === storeMethods.setHeader && !holder._header ? staged(holder) : null;
  if (list === null) res.setHeader(name, value);
  else stage(list, lower, name, value);
}

/**
 * For a response an app has just taken, before any webapp app staged a header on it:
 * where code put header methods of its own on the response before (response-time or
 * morgan around the app, `onHeaders(res, ...)` in a plain server's handler), those
 * hold Node's own methods, which read and write Node's store only: the staged list
 * would never reach the head such a `writeHead` writes. Its headers then stay in
 * Node's store, as on Express. `appResponse` is the app's response prototype: a
 * method that differs from its own is the response's own.
 */
export function keepHeadersWithWrappers(res: ServerResponse, appResponse: object): void {
  const holder = res as StoreHolder;
  if (holder[kStaged] !== undefined) return;
  const own = appResponse as ServerResponse;
  if (
    res.writeHead !== own.writeHead ||
    res.getHeader !== own.getHeader ||
    res.setHeader !== own.setHeader ||
    res.removeHeader !== own.removeHeader ||
    res.hasHeader !== own.hasHeader ||
    res.getHeaders !== own.getHeaders ||
    res.getHeaderNames !== own.getHeaderNames
  )
    holder[kStaged] = null;
}

/** Whether responses use the staged store (false where Node's header slot was not found). */
const headerStoreInstalled = kOutHeaders !== undefined;

const storeFunctions: ReadonlySet<unknown> = new Set(Object.values(storeMethods));

/** Whether `value` is one of the store's methods, which HTTP/2 responses (with their own header API) must not take. */
export function isHeaderStoreMethod(value: unknown): boolean {
  return storeFunctions.has(value);
}

/**
 * Installs the store on a response prototype, with the attributes of Node's own
 * methods (enumerable: `for...in` over a response lists them in Express too).
 */
export function installHeaderStore(proto: object): void {
  if (headerStoreInstalled) defineMembers(proto, { methods: storeMethods });
}
