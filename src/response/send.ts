/**
 * Sending: `send`, `json`, `jsonp`, `sendStatus` and `status`. `send` is where
 * Express 4's response rules live: the Content-Type by body kind, Content-Length
 * in bytes, the ETag from the app's `etag fn`, 304 for fresh requests, no body for
 * HEAD, 204/304 without entity headers and 205 with an empty body.
 */
import { STATUS_CODES } from 'node:http';
import { setCharset } from '../http/content-type';
import { deprecate } from '../http/deprecate';
import { hashesStrings, type ETagFunction } from '../settings';
import type { Response } from './types';

/** Content-Type values that setCharset(type, 'utf-8') returns unchanged. */
const UTF8_TYPES = new Set(
  ['text/html', 'text/plain', 'application/json', 'text/javascript'].map((type) => type + '; charset=utf-8'),
);

/**
 * Strings under this many characters are written as strings: Node then sends
 * headers and body in one write instead of a two-buffer writev, which costs
 * more than measuring the string's bytes (and hashing it, for the ETag) twice.
 */
const STRING_BODY_LIMIT = 16 * 1024;

/** 204 and 304 carry no entity: the headers describing one go (4.x and 3.x alike). */
export function removeEntityHeaders(res: { removeHeader(name: string): void }): void {
  res.removeHeader('Content-Type');
  res.removeHeader('Content-Length');
  res.removeHeader('Transfer-Encoding');
}

function send(this: Response, body?: unknown): Response {
  let chunk = body;
  let encoding: BufferEncoding | undefined;
  const req = this.req;

  if (arguments.length === 2) {
    if (typeof arguments[0] !== 'number' && typeof arguments[1] === 'number') {
      deprecate('res.send(body, status): Use res.status(status).send(body) instead');
      this.statusCode = arguments[1];
    } else {
      deprecate('res.send(status, body): Use res.status(status).send(body) instead');
      this.statusCode = arguments[0];
      chunk = arguments[1];
    }
  }

  // A lone number is the old res.send(status): the body is the status phrase.
  if (typeof chunk === 'number' && arguments.length === 1) {
    if (!this.get('Content-Type')) this.type('txt');
    deprecate('res.send(status): Use res.sendStatus(status) instead');
    this.statusCode = chunk;
    chunk = STATUS_CODES[chunk];
  }

  switch (typeof chunk) {
    case 'string':
      if (!this.get('Content-Type')) this.type('html');
      break;
    case 'boolean':
    case 'number':
    case 'object':
      if (chunk === null) {
        chunk = '';
      } else if (Buffer.isBuffer(chunk)) {
        if (!this.get('Content-Type')) this.type('bin');
      } else {
        return this.json(chunk);
      }
      break;
  }

  if (typeof chunk === 'string') {
    encoding = 'utf8';
    const type = this.get('Content-Type');
    // The types send/json/jsonp set themselves already read as setCharset would write
    // them: skip parsing and re-setting the header on that common path.
    if (typeof type === 'string' && !UTF8_TYPES.has(type)) this.set('Content-Type', setCharset(type, 'utf-8'));
  }

  const etagFn = this.app.get('etag fn') as ETagFunction | undefined;
  const generateETag = !this.get('ETag') && typeof etagFn === 'function';

  let length: number | undefined;
  if (chunk !== undefined) {
    const data = chunk as string | Buffer;
    if (Buffer.isBuffer(data)) {
      length = data.length;
    } else if (data.length < STRING_BODY_LIMIT && (!generateETag || hashesStrings(etagFn as ETagFunction))) {
      length = Buffer.byteLength(data, encoding);
    } else {
      // A custom ETag function receives the encoded bytes, as Express gives them.
      chunk = Buffer.from(data, encoding);
      encoding = undefined;
      length = (chunk as Buffer).length;
    }
    this.set('Content-Length', length);
  }

  if (generateETag && length !== undefined) {
    const tag = (etagFn as ETagFunction)(chunk as string | Buffer, encoding);
    if (tag) this.set('ETag', tag);
  }

  if (req.fresh) this.statusCode = 304;

  if (this.statusCode === 204 || this.statusCode === 304) {
    removeEntityHeaders(this);
    chunk = '';
  }

  // 205 Reset Content: "no content" by an explicit zero length.
  if (this.statusCode === 205) {
    this.set('Content-Length', '0');
    this.removeHeader('Transfer-Encoding');
    chunk = '';
  }

  if (req.method === 'HEAD') {
    this.end();
  } else {
    this.end(chunk as string | Buffer | undefined, encoding as BufferEncoding);
  }
  return this;
}

const ESCAPED: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026' };

/**
 * JSON text of a value with the app's `json replacer` and `json spaces`; with
 * `json escape`, `<`, `>` and `&` become \u escapes so the JSON is safe inside HTML.
 * `undefined` (and functions) give `undefined`, as JSON.stringify does.
 */
export function stringifyJson(value: unknown, replacer: unknown, spaces: unknown, escape: unknown): string | undefined {
  const json =
    replacer || spaces
      ? JSON.stringify(value, replacer as (this: unknown, key: string, value: unknown) => unknown, spaces as string | number)
      : JSON.stringify(value);
  if (escape && typeof json === 'string') return json.replace(/[<>&]/g, (ch) => ESCAPED[ch]);
  return json;
}

function jsonOf(res: Response, value: unknown): string | undefined {
  const app = res.app;
  return stringifyJson(value, app.get('json replacer'), app.get('json spaces'), app.get('json escape'));
}

/** The `(obj, status)` / `(status, obj)` forms Express 4 still accepts, with their deprecations. */
function legacyBody(res: Response, method: string, args: IArguments): unknown {
  if (args.length !== 2) return args[0];
  if (typeof args[1] === 'number') {
    deprecate(`res.${method}(obj, status): Use res.status(status).${method}(obj) instead`);
    res.statusCode = args[1];
    return args[0];
  }
  deprecate(`res.${method}(status, obj): Use res.status(status).${method}(obj) instead`);
  res.statusCode = args[0];
  return args[1];
}

/** Characters a JSONP callback name may keep: word characters, `$`, `.`, `[` and `]`. */
const NOT_CALLBACK_CHAR = /[^[\]\w$.]/g;

/**
 * The JSONP body: the JSON passed to the callback if it exists. `/**\/` defeats
 * Rosetta Flash (a response may not start with the attacker's bytes), and
 * U+2028/U+2029 are escaped because they end a line in older JavaScript.
 */
export function jsonpBody(callback: string, json: string | undefined): string {
  const name = callback.replace(NOT_CALLBACK_CHAR, '');
  const argument = json === undefined ? '' : json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return '/**/ typeof ' + name + " === 'function' && " + name + '(' + argument + ');';
}

export const sendMethods = {
  status(this: Response, code: number) {
    if ((typeof code === 'string' || Math.floor(code) !== code) && code > 99 && code < 1000) {
      deprecate('res.status(' + JSON.stringify(code) + '): use res.status(' + Math.floor(code) + ') instead');
    }
    this.statusCode = code;
    return this;
  },

  send,

  // `obj` is named for the method's arity (1); the body is read from `arguments` for the legacy forms.
  json(this: Response, obj?: unknown) {
    const body = jsonOf(this, legacyBody(this, 'json', arguments));
    if (!this.get('Content-Type')) this.set('Content-Type', 'application/json');
    return this.send(body);
  },

  jsonp(this: Response, obj?: unknown) {
    let body = jsonOf(this, legacyBody(this, 'jsonp', arguments));
    let callback = this.req.query[this.app.get('jsonp callback name') as string];

    if (!this.get('Content-Type')) {
      this.set('X-Content-Type-Options', 'nosniff');
      this.set('Content-Type', 'application/json');
    }
    if (Array.isArray(callback)) callback = callback[0];
    if (typeof callback === 'string' && callback.length !== 0) {
      this.set('X-Content-Type-Options', 'nosniff');
      this.set('Content-Type', 'text/javascript');
      body = jsonpBody(callback, body);
    }
    return this.send(body);
  },

  sendStatus(this: Response, statusCode: number) {
    const body = STATUS_CODES[statusCode] || String(statusCode);
    this.statusCode = statusCode;
    this.type('txt');
    return this.send(body);
  },
};
