/**
 * The response's header store: Node's own (`res[kOutHeaders]`, `lowerName: [name,
 * value]`), kept as a fast-mode object of one class, and written by a `setHeader`
 * and read by a `getHeader` that check a name once per process.
 *
 * Why: Node keeps progressively set headers in a dictionary-mode object
 * (`{ __proto__: null }`) that `_storeHeader` walks with `for...in`, and checks
 * every name and value at every call; for the four headers an Express response
 * carries (X-Powered-By, Content-Type, Content-Length, ETag) that store cost more
 * than everything webapp's router does (bench/README.md "Profiles"). Here the
 * store is an object of a class with no prototype: V8 keeps it in fast mode, with
 * one hidden class for the same names in the same order, and `for...in` over it
 * reuses a cached key list; a name already seen is validated and lower-cased once
 * per process.
 *
 * Why Node's own slot and no list of webapp's: whatever writes or reads the
 * headers through Node's methods sees the same ones: Express 4 apps called as a
 * function (their `expressInit` swaps the response's prototype to one over
 * Node's), `http.ServerResponse.prototype.setHeader.call(res, ...)`, wrappers that
 * captured Node's methods before the app (on-headers around it), instrumentation.
 * Every other method of the header API (`writeHead`, `hasHeader`, `getHeaders`...) is
 * Node's own, on this same store; `removeHeader` too, after it has taken the header out
 * without `delete` (see `storeWithout`).
 *
 * What stays as in Node (and Express): the same validation errors (Node's own
 * validators decide every name and value the fast check does not accept), the
 * same ERR_HTTP_HEADERS_SENT errors, the order and casing of the head, and
 * headers that stay readable after the response is sent. Where Node's slot cannot
 * be found (its internal symbol), nothing is installed and responses use Node's
 * own API.
 */
import { Buffer } from 'node:buffer';
import { ServerResponse, validateHeaderName } from 'node:http';
import { defineMembers } from '../define-prototype';
import { detachedString } from '../http/detached-string';
import { kOutHeaders, nodeOwnOrNone, type Method } from './node-own';

type HeaderValue = number | string | readonly string[];

/** Node's store: `lowerName: [name, value]`. */
export type Store = Record<string, [string, unknown]>;

/** A response as the store sees it: Node's own slots. */
interface StoreHolder extends ServerResponse {
  /** Node's head once written (an internal slot; `headersSent` reads it). */
  _header?: string | null;
  [slot: symbol]: unknown;
}

/**
 * The store's class. Its prototype has no prototype and no `constructor`, so no
 * name a client or the app uses (`constructor`, `__proto__`, anything added to
 * Object.prototype) reads as a header that was not set, as with Node's own.
 */
class OutHeaders {
  [lowerName: string]: [string, unknown];
}
Object.setPrototypeOf(OutHeaders.prototype, null);
delete (OutHeaders.prototype as { constructor?: unknown }).constructor;

/**
 * Node's own setHeader and getHeader as webapp found them at load, what a patch is
 * told apart from: none (never equal) when what was there at load was a patch already.
 */
const nodeSetHeader = kOutHeaders === undefined ? undefined : nodeOwnOrNone('setHeader', 'x-probe', 'probe');
const nodeGetHeader = kOutHeaders === undefined ? undefined : nodeOwnOrNone('getHeader', 'x-probe');
const nodeRemoveHeader = kOutHeaders === undefined ? undefined : nodeOwnOrNone('removeHeader', 'x-probe');

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
 * Whether code has put a `setHeader` or `getHeader` of its own in place of Node's on
 * `http.ServerResponse.prototype` (or `OutgoingMessage.prototype`), before webapp
 * loaded or since: security tools and instrumentation patch them there to see or
 * change every header a server sets (add `Secure` to cookies, strip line breaks,
 * redact a value). Asked as each response's store is made; while it holds, new
 * responses keep Node's store, and every header call goes through the methods there
 * (the other patched ones too), as on Express. Two methods, not the nine: Node's
 * prototypes are in dictionary mode, and each read is a lookup (about 85
 * instructions per response).
 */
function nodeHeaderApiPatched(): boolean {
  return currentMethods.setHeader !== nodeSetHeader || currentMethods.getHeader !== nodeGetHeader;
}

/** Characters outside printable ASCII and tab: values with them are checked by Node. */
const NOT_PLAIN_ASCII = /[^\t\x20-\x7e]/;

/** Header names already validated, with their lower-case form: apps set the same few names. */
const lowerNames = new Map<string, string>();
const LOWER_NAMES_KEPT = 512;

/** The lower-case name, after Node's validation the first time a name is seen. */
function checkedName(name: string): string {
  let lower = lowerNames.get(name);
  if (lower !== undefined) return lower;
  validateHeaderName(name);
  const kept = detachedString(name);
  lower = kept.toLowerCase();
  if (lowerNames.size >= LOWER_NAMES_KEPT) lowerNames.clear();
  lowerNames.set(kept, lower);
  return lower;
}

/**
 * Whether any header value beyond ASCII (latin1 text) went through webapp's methods
 * in this process: until one has, a response whose every header went through them
 * has a head in ASCII (see headMayGoBeyondAscii).
 */
let nonAsciiValueSeen = false;

function noteNonAscii(value: unknown): void {
  if (nonAsciiValueSeen) return;
  const values = Array.isArray(value) ? (value as unknown[]) : [value];
  nonAsciiValueSeen = values.some(mayGoBeyondAscii);
}

/**
 * Whether Node may write a value beyond ASCII for `item`: a string beyond it, or an
 * object, which Node writes as its `toString` gives (`new String('caf\u00e9')`), not asked
 * here (that would call an app's `toString` once more than Node does).
 */
function mayGoBeyondAscii(item: unknown): boolean {
  if (typeof item === 'string') return Buffer.byteLength(item) !== item.length;
  return (typeof item === 'object' && item !== null) || typeof item === 'function';
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

/** Numbers and printable ASCII strings (alone or listed) are valid everywhere; the rest is Node's to judge. */
function isPlainValue(value: unknown): boolean {
  return isPlain(value) || isPlainList(value);
}

/**
 * Long values found plain before. The middleware in front of an app sets the same ones on
 * every response (helmet's Content-Security-Policy of a few hundred characters,
 * Strict-Transport-Security, Permissions-Policy...), and looking one up costs less than
 * testing it again character by character (helmet's headers: about 5,000 instructions a
 * response). Only the values of the headers that say an app's policies (`KEPT_NAMES`):
 * others change from response to response (an ETag, a request id), and some carry
 * secrets (a session's cookie, a redirect's token, a token an API hands out), kept
 * nowhere they need not be.
 */
const plainLongValues = new Set<string>();
const LONG_VALUE = 32;
const PLAIN_LONG_VALUES_KEPT = 256;
/** Longer values are tested each time: what the set keeps stays under a megabyte, whatever an app sets. */
const LONGEST_VALUE_KEPT = 4096;
/** The headers whose long values are kept: security and caching policies, CORS, content types (lower case). */
const KEPT_NAMES: ReadonlySet<string> = new Set([
  'accept-ch',
  'access-control-allow-headers',
  'access-control-allow-methods',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'alt-svc',
  'cache-control',
  'content-security-policy',
  'content-security-policy-report-only',
  'content-type',
  'cross-origin-embedder-policy',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'expect-ct',
  'feature-policy',
  'nel',
  'permissions-policy',
  'referrer-policy',
  'report-to',
  'reporting-endpoints',
  'strict-transport-security',
  'timing-allow-origin',
  'vary',
  'x-permitted-cross-domain-policies',
  'x-robots-tag',
]);

function isPlainLongValue(name: unknown, value: string): boolean {
  if (plainLongValues.has(value)) return true;
  if (NOT_PLAIN_ASCII.test(value)) return false;
  if (value.length > LONGEST_VALUE_KEPT || typeof name !== 'string' || !KEPT_NAMES.has(lowerOf(name))) return true;
  if (plainLongValues.size >= PLAIN_LONG_VALUES_KEPT) plainLongValues.clear();
  plainLongValues.add(detachedString(value));
  return true;
}

/** The lower-case form of a name the readers were given (a string: Node's methods checked that first). */
function lowerOf(name: string): string {
  return lowerNames.get(name) ?? name.toLowerCase();
}

/**
 * The response's store as the store's methods write it: Node's slot, an OutHeaders
 * from the first header on. Headers Node's own methods stored first (set before the
 * response had webapp's prototype) move into one, in their order. Null where Node's
 * header API is patched: then every call goes to it.
 */
function storeOf(res: StoreHolder): Store | null {
  const current = res[kOutHeaders!] as Store | null;
  if (current instanceof OutHeaders) return current;
  if (nodeHeaderApiPatched()) return null;
  const store = new OutHeaders();
  if (current) {
    for (const lower in current) {
      store[lower] = current[lower];
      noteNonAscii(current[lower][1]);
    }
  }
  res[kOutHeaders!] = store;
  return store;
}

/**
 * The store without `lower`'s header, the others in their order: what `delete` would
 * leave, in a new object. V8 turns an object whose property other than the last is
 * deleted into a dictionary, and every header set, read and written after that, for the
 * rest of the response, goes through the dictionary (about 7,000 instructions a
 * response): helmet removes X-Powered-By, the first header, from every response, and a
 * 304 removes Content-Type and Content-Length.
 */
function storeWithout(store: Store, lower: string): Store {
  const rest = new OutHeaders() as Store;
  for (const key in store) if (key !== lower) rest[key] = store[key];
  return rest;
}

const storeMethods = {
  setHeader(this: StoreHolder, name: string, value: HeaderValue) {
    // Once sent, Node's own method throws its ERR_HTTP_HEADERS_SENT; where Node's
    // method is patched, the patch sees the call first (it may clean the value).
    const store = this._header ? null : storeOf(this);
    if (store === null) return nodeMethod(this, 'setHeader', arguments);
    const plain =
      typeof value === 'string' && value.length >= LONG_VALUE ? isPlainLongValue(name, value) : isPlainValue(value);
    if (!plain) {
      // Node's method judges anything else, as the server's settings say (Node 26 lets
      // a server accept control characters), and stores it into this same store.
      nodeMethod(this, 'setHeader', arguments);
      noteNonAscii(value);
      return this;
    }
    // A name set before keeps its place and takes the new casing and value, as in Node's.
    store[checkedName(name)] = [name, value];
    return this;
  },

  /** Node's own, noting a value beyond ASCII: added to a header already set, it reaches the store without setHeader. */
  appendHeader(this: StoreHolder, name: string, value: HeaderValue) {
    nodeMethod(this, 'appendHeader', arguments);
    noteNonAscii(value);
    return this;
  },

  /**
   * Node's own, which does the work (its checks, what it notes of Content-Length, Date,
   * Connection and Transfer-Encoding), given a store that no longer has the header
   * (storeWithout): its `delete` then finds nothing. Only where Node's own is in place: a
   * patch of it (one that keeps a header) decides on the store as it was.
   */
  removeHeader(this: StoreHolder, name: string) {
    const store = this[kOutHeaders!];
    if (
      typeof name === 'string' &&
      store instanceof OutHeaders &&
      !this._header &&
      currentMethods.removeHeader === nodeRemoveHeader
    ) {
      const lower = lowerOf(name);
      if ((store as Store)[lower] !== undefined) this[kOutHeaders!] = storeWithout(store as Store, lower);
    }
    return nodeMethod(this, 'removeHeader', arguments);
  },

  getHeader(this: StoreHolder, name: string) {
    const store = this[kOutHeaders!];
    // Node's own checks the name, and reads a store it made (or a patch of it reads its own).
    if (typeof name !== 'string' || !(store instanceof OutHeaders)) return nodeMethod(this, 'getHeader', arguments);
    const entry = (store as Store)[lowerOf(name)];
    return entry === undefined ? undefined : entry[1];
  },
};

/**
 * The store of a response whose header API is the store's own (nothing replaced
 * its `setHeader` or `getHeader`) and whose head is not out, for webapp's own code
 * to read and set the headers it names itself without the method calls and checks.
 * Null otherwise: then that code goes through the response's methods, so whatever
 * wraps them sees every call.
 */
export function ownHeaderStore(res: ServerResponse): Store | null {
  const holder = res as StoreHolder;
  if (holder.setHeader !== storeMethods.setHeader || holder.getHeader !== storeMethods.getHeader || holder._header)
    return null;
  return storeOf(holder);
}

/**
 * Node's writeHead as webapp found it (none when a patch was there at load): one put
 * on a response or in its place runs code while the head is made.
 */
const nodeWriteHead = nodeOwnOrNone('writeHead', 200);

/**
 * Whether `res`'s head may have a character beyond ASCII, which Node writes as latin1
 * apart from a string body but as UTF-8 with it: a value beyond ASCII went through
 * webapp's methods, or values may reach the head without them (Node's own store
 * where its methods are patched, a wrapped writeHead whose code runs while the head
 * is made, as on-headers' listeners do, a head already made). Where this answers
 * false the head is ASCII, and res.send need not make it early to look.
 */
export function headMayGoBeyondAscii(res: ServerResponse): boolean {
  const holder = res as StoreHolder;
  return (
    nonAsciiValueSeen ||
    !(holder[kOutHeaders!] instanceof OutHeaders) ||
    holder.writeHead !== nodeWriteHead ||
    holder._header != null ||
    typeof holder.statusMessage === 'string'
  );
}

/*
 * The headers res.send and res.json read and set on every response, a function each for
 * webapp's own code, on a store from ownHeaderStore, without the method calls and checks:
 * the caller knows the value is a number or printable ASCII (or checked it with
 * isPlainHeaderValue). Why a function per name: V8 keeps what a property access has seen
 * per site, and a site that sees one name stays monomorphic, where a site shared by all
 * names goes megamorphic (a lookup in V8's global cache at each access: about 900
 * instructions per `res.json` on Node 20).
 */

export function storedContentType(store: Store): unknown {
  const entry = store['content-type'];
  return entry === undefined ? undefined : entry[1];
}

export function storedETag(store: Store): unknown {
  const entry = store.etag;
  return entry === undefined ? undefined : entry[1];
}

export function storeContentType(store: Store, value: string): void {
  store['content-type'] = ['Content-Type', value];
}

export function storeContentLength(store: Store, value: string): void {
  store['content-length'] = ['Content-Length', value];
}

export function storeETag(store: Store, value: string): void {
  store.etag = ['ETag', value];
}

/** Whether setHeader would take `value` without asking Node's validator (a number, or printable ASCII). */
export const isPlainHeaderValue = isPlain;

/**
 * `setHeader(name, value)` for a header webapp sets on every response with a name and
 * value it knows are valid (X-Powered-By), through `setHeader`: a response's method
 * as it was before the app's prototype was put in front (setHeaderBeforeAdoption), or
 * undefined for Node's (then the store's, which is Node's where Node's is patched).
 * Node's own or the store's is a store without the checks while the head is not out;
 * any other (an app's `app.response.setHeader`, instrumentation's) is called.
 */
export function setOwnHeader(
  res: ServerResponse,
  setHeader: unknown,
  lower: string,
  name: string,
  value: string,
): void {
  const holder = res as StoreHolder;
  const nodes = setHeader === undefined || setHeader === storeMethods.setHeader || setHeader === nodeSetHeader;
  if (!nodes) (setHeader as ServerResponse['setHeader']).call(res, name, value);
  else if (!headerStoreInstalled) ServerResponse.prototype.setHeader.call(res, name, value);
  else {
    const store = holder._header ? null : storeOf(holder);
    if (store === null) storeMethods.setHeader.call(holder, name, value);
    else store[lower] = [name, value];
  }
}

/** Whether responses use the store (false where Node's header slot was not found). */
const headerStoreInstalled = kOutHeaders !== undefined;

const storeFunctions: ReadonlySet<unknown> = new Set(Object.values(storeMethods));

/** The store's `setHeader`: a response whose `setHeader` is this one has no wrapper of it anywhere. */
export const storeSetHeader: unknown = storeMethods.setHeader;

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
