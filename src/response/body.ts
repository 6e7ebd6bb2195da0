/**
 * Deciding what `res.send` answers, before anything is written: the Content-Type
 * by body kind (string: HTML, Buffer: binary) with its UTF-8 charset for text,
 * the Content-Length in bytes, and the ETag from the app's `etag fn`. As Koa
 * separates `ctx.body = ...` from `respond`, this module only sets headers and
 * returns the body to write; respond.ts puts it on the wire.
 */
import { Buffer } from 'node:buffer';
import { ServerResponse } from 'node:http';
import { setCharset } from '../http/content-type';
import { hashesStrings, hotSettings, readsOwnSettings, type ETagFunction } from '../settings';
import {
  headMayGoBeyondAscii,
  isPlainHeaderValue,
  ownHeaderStore,
  storeContentLength,
  storeContentType,
  storedContentType,
  storedETag,
  storeETag,
  type Store,
} from './header-store';
import { contentTypeValue, hasOwnHeaderMethods, htmlContentType } from './headers';
import { nodeOwnOrNone } from './node-own';
import type { Response } from './types';

/** Content-Type values that setCharset(type, 'utf-8') returns unchanged. */
const UTF8_TYPES = new Set(
  ['text/html', 'text/plain', 'application/json', 'text/javascript'].map((type) => type + '; charset=utf-8'),
);

/**
 * Strings under this many characters are written as strings: Node then sends
 * headers and body in one write instead of a two-buffer writev, which costs
 * more than measuring the string's bytes (and hashing it, for the ETag) twice.
 * Only while `res.end` is Node's own (see `endsUnseen`).
 */
const STRING_BODY_LIMIT = 16 * 1024;

/**
 * Node's `end` of HTTP/1 responses, which every app response inherits; none when a
 * patch was in its place at load (an agent preloaded with `-r`): see node-own.ts.
 */
const nodeEnd = nodeOwnOrNone('end');

/**
 * Whether nothing sits between `res.send` and Node's `end`, so that only the bytes on
 * the wire show what `end` is given. A wrapper of `res.end` (a logger that collects the
 * body with `Buffer.concat`, compression, an auditing middleware) is given what Express
 * gives it: a string only when no ETag is made and it is under 1,000 characters, else
 * the UTF-8 bytes as a Buffer (whose `length` counts bytes, not characters).
 */
function endsUnseen(res: Response): boolean {
  return res.end === nodeEnd;
}

/** Whether `res.send` writes `body` itself, or hands it (an object, number or boolean) to `res.json`. */
export function isSendable(body: unknown): boolean {
  switch (typeof body) {
    case 'boolean':
    case 'number':
      return false;
    case 'object':
      return body === null || Buffer.isBuffer(body);
    default:
      return true;
  }
}

/**
 * The head as `res.send` reads and writes it: the header store itself when the
 * response's header methods are webapp's own, where `res.get`, `res.set` and
 * `res.type` would only have read and set these same values (one `res.send`
 * of a string makes three reads and three writes). Otherwise (null) every read
 * and write goes through those methods, as in Express, so a wrapper sees each.
 */
type Head = Store | null;

function headOf(res: Response): Head {
  return hasOwnHeaderMethods(res) ? ownHeaderStore(res as ServerResponse) : null;
}

function readContentType(res: Response, head: Head): unknown {
  return head === null ? res.get('Content-Type') : storedContentType(head);
}

function readETag(res: Response, head: Head): unknown {
  return head === null ? res.get('ETag') : storedETag(head);
}

/** `res.set('Content-Length', value)`: digits, which setHeader would take unchecked. */
function writeContentLength(res: Response, head: Head, length: number): void {
  if (head !== null) storeContentLength(head, String(length));
  // With the number, as Express calls it (a wrapper or a test's spy of res.set sees 7,
  // not '7'); res.set stores it as a string, whatever its typings say it takes.
  else res.set('Content-Length', length as unknown as string);
}

/** `res.set('ETag', tag)` for a tag of the built-in generators (printable ASCII). */
function writeETag(res: Response, head: Head, tag: string): void {
  if (head !== null) storeETag(head, tag);
  else res.set('ETag', tag);
}

/** `res.set('Content-Type', type)` for one of the UTF-8 types send and json set themselves. */
function writeKnownContentType(res: Response, head: Head, type: string): void {
  if (head !== null) storeContentType(head, type);
  else res.set('Content-Type', type);
}

/**
 * The last Content-Type value found to need no check: responses of an app carry the
 * same few types, and comparing with the last is cheaper than testing each again.
 */
let lastPlainType = '';

/** `res.set('Content-Type', value)` for a value with its charset already added. */
function writeContentType(res: Response, head: Head, value: string): void {
  if (head !== null && (value === lastPlainType || isPlainHeaderValue(value))) {
    lastPlainType = value;
    storeContentType(head, value);
  } else {
    res.set('Content-Type', value);
  }
}

/**
 * `res.set('Content-Type', type)` unless a Content-Type is set: how `res.json` begins.
 * `value` is what that call would set (`contentTypeValue(type)`), when the caller knows it.
 */
export function setDefaultType(res: Response, type: string, value?: string): void {
  const head = headOf(res);
  if (readContentType(res, head)) return;
  if (head === null) res.set('Content-Type', type);
  else writeContentType(res, head, value ?? contentTypeValue(type));
}

/**
 * Sets the entity headers for `body` and returns what to write: a string (UTF-8),
 * a Buffer, or undefined for no body. `null` is the empty string.
 */
export function setBody(res: Response, body: unknown): string | Buffer | undefined {
  if (body === undefined) return undefined;
  const head = headOf(res);
  let type = readContentType(res, head);
  // Whether the type is set below, in Express's casing and with its charset: not again.
  const typeSetHere = !type;
  if (typeof body === 'string') {
    if (!type) {
      if (head === null) {
        res.type('html');
        type = res.get('Content-Type');
      } else {
        type = htmlContentType();
        writeContentType(res, head, type as string);
      }
    }
  } else if (Buffer.isBuffer(body)) {
    if (!type) res.type('bin');
    return setLength(res, head, body);
  } else if (body !== null) {
    throwForNoBytes(res, head, body);
  }
  // Express sets a string body's Content-Type again, which also writes its name as
  // `Content-Type` whatever casing the app set it with. The types send/json/jsonp set
  // themselves already read as setCharset would write them: no parse for those, and no
  // second write unless a wrapper of the header methods is there to see it (head null).
  if (typeof type === 'string') {
    if (!UTF8_TYPES.has(type)) res.set('Content-Type', setCharset(type, 'utf-8'));
    else if (!typeSetHere || head === null) writeKnownContentType(res, head, type);
  }
  return setLength(res, head, body === null ? '' : body);
}

/**
 * A function, symbol or bigint has no bytes: Express 4 fails measuring it, with the
 * TypeError of the call it makes (Buffer.byteLength when no ETag is to be made and
 * the value's `length`, a function's arity, is under 1,000; else Buffer.from).
 */
function throwForNoBytes(res: Response, head: Head, body: unknown): never {
  const generateETag = typeof res.app.get('etag fn') === 'function' && !readETag(res, head);
  if (!generateETag && (body as { length?: number }).length! < EXPRESS_STRING_BODY_LIMIT)
    Buffer.byteLength(body as string);
  Buffer.from(body as string);
  throw new TypeError('res.send: the body has no bytes');
}

/** Express 4 sends the body as bytes, and the head apart (as latin1), when it makes an ETag or the body is long. */
const EXPRESS_STRING_BODY_LIMIT = 1000;

/**
 * Set on a response whose string body webapp keeps as a string where Express 4 makes
 * it bytes: respond.ts then looks at the head before writing (bodyForHead). Declared
 * on every response the app's server makes (server-classes.ts), so responses keep one shape.
 */
export const kHeadCheck = Symbol('webapp.headCheck');

interface HeadChecked extends Response {
  [kHeadCheck]?: boolean;
}

/**
 * Whether `text` has a character beyond ASCII: its UTF-8 form is then longer than it.
 * Measured so (SIMD, in C++) rather than by a regular expression over the head's 200
 * or so characters: 2,100 instructions a response against about 300.
 */
function beyondAscii(text: string): boolean {
  return Buffer.byteLength(text, 'utf8') !== text.length;
}

/**
 * The body to give `end` for a string kept where Express 4 makes bytes. Node writes
 * a head beyond ASCII (a latin1 header value, a status message such as 'Caf\u00e9')
 * as latin1 on its own, but as UTF-8 together with a string: so the head is made
 * here, as `end` would make it first (a wrapper of writeHead, on-headers' listeners,
 * run as in Express), and a head beyond ASCII sends the body as bytes, apart. The head
 * is what decides, not the values webapp saw set: listeners of on-headers set theirs
 * while the head is made, after the body was decided, and Node's own methods (a
 * patch of them, appendHeader) write the store without webapp.
 */
export function bodyForHead(res: Response, chunk: string): string | Buffer {
  (res as HeadChecked)[kHeadCheck] = false;
  const out = res as NodeInternals;
  // Where `end` makes no head (a closed response) this makes none either.
  if (chunk === '' || out.destroyed || out.finished) return chunk;
  if (!out._header) {
    // As `end` does before making the head: Node reads the length there (a
    // Content-Disposition value is written as latin1 bytes when it is set).
    out._contentLength = Buffer.byteLength(chunk, 'utf8');
    out._implicitHeader();
  }
  return typeof out._header === 'string' && beyondAscii(out._header) ? Buffer.from(chunk, 'utf8') : chunk;
}

/** The fields and method of Node's OutgoingMessage that `end` uses to make the head. */
interface NodeInternals extends Response {
  _header?: string | null;
  _contentLength?: number | null;
  _implicitHeader(): void;
}

/** Whether respond.ts must call bodyForHead before writing this response's body. */
export function needsHeadCheck(res: Response): boolean {
  return (res as HeadChecked)[kHeadCheck] === true && headMayGoBeyondAscii(res as ServerResponse);
}

/**
 * Content-Length and ETag of the body; a long string (or one a custom ETag function hashes)
 * becomes its UTF-8 bytes.
 */
function setLength(res: Response, head: Head, body: string | Buffer): string | Buffer {
  const app = res.app;
  const etagFn = (readsOwnSettings(app) ? hotSettings.etagFn(app.settings) : app.get('etag fn')) as
    ETagFunction | undefined;
  const generateETag = typeof etagFn === 'function' && !readETag(res, head);
  // The built-in generators hash a string as its UTF-8 bytes, and make tags of printable ASCII.
  const builtIn = generateETag && hashesStrings(etagFn);
  let chunk = body;
  let length: number;
  if (typeof chunk !== 'string') {
    length = chunk.length;
  } else if (
    endsUnseen(res)
      ? chunk.length < STRING_BODY_LIMIT && (!generateETag || builtIn)
      : !generateETag && chunk.length < EXPRESS_STRING_BODY_LIMIT
  ) {
    length = Buffer.byteLength(chunk, 'utf8');
    if (generateETag || chunk.length >= EXPRESS_STRING_BODY_LIMIT) (res as HeadChecked)[kHeadCheck] = true;
  } else {
    // A custom ETag function receives the encoded bytes, as Express gives them.
    chunk = Buffer.from(chunk, 'utf8');
    length = chunk.length;
  }
  writeContentLength(res, head, length);

  if (generateETag) {
    const tag = etagFn(chunk, typeof chunk === 'string' ? 'utf8' : undefined);
    // A custom function's tag may be anything: res.set checks it (and makes a number a string).
    if (tag && builtIn) writeETag(res, head, tag);
    else if (tag) res.set('ETag', tag);
  }
  return chunk;
}
