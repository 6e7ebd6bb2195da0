/**
 * Sending: `send`, `json`, `jsonp`, `sendStatus` and `status`, with the argument
 * forms Express 4 still accepts. What `send` answers is decided in body.ts
 * (Content-Type, Content-Length, ETag) and written in respond.ts (freshness,
 * 204/205/304, HEAD).
 */
import { STATUS_CODES } from 'node:http';
import { deprecate } from '../http/deprecate';
import { isSendable, setBody, setDefaultType } from './body';
import { contentTypeValue } from './headers';
import { respond } from './respond';
import { hotSettings, readsOwnSettings } from '../settings';
import type { Response } from './types';

export { removeEntityHeaders } from './respond';

/**
 * `res.send(body)`: objects, numbers and booleans become JSON (through `res.json`);
 * strings, Buffers, null and undefined are decided by setBody and written by respond.
 */
function send(this: Response, body?: unknown): Response {
  let chunk = arguments.length === 2 ? legacySendArguments(this, arguments[0], arguments[1]) : body;
  // A lone number is the old res.send(status): the body is the status phrase.
  if (typeof chunk === 'number' && arguments.length === 1) chunk = statusAsBody(this, chunk);
  if (!isSendable(chunk)) return this.json(chunk);
  return respond(this, setBody(this, chunk));
}

/** `res.send(body, status)` and `res.send(status, body)`: sets the status, returns the body. */
function legacySendArguments(res: Response, first: unknown, second: unknown): unknown {
  if (typeof first !== 'number' && typeof second === 'number') {
    deprecate('res.send(body, status): Use res.status(status).send(body) instead');
    res.statusCode = second;
    return first;
  }
  deprecate('res.send(status, body): Use res.status(status).send(body) instead');
  res.statusCode = first as number;
  return second;
}

function statusAsBody(res: Response, status: number): string | undefined {
  if (!res.get('Content-Type')) res.type('txt');
  deprecate('res.send(status): Use res.sendStatus(status) instead');
  res.statusCode = status;
  return STATUS_CODES[status];
}

/**
 * What `res.json` sets when no Content-Type is: a media type with a slash is not
 * looked up in the MIME tables, and its charset is fixed, so this never changes.
 */
const JSON_CONTENT_TYPE = contentTypeValue('application/json');

const ESCAPED: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026' };

/**
 * JSON text of a value with the app's `json replacer` and `json spaces`; with
 * `json escape`, `<`, `>` and `&` become \u escapes so the JSON is safe inside HTML.
 * `undefined` (and functions) give `undefined`, as JSON.stringify does.
 */
export function stringifyJson(value: unknown, replacer: unknown, spaces: unknown, escape: unknown): string | undefined {
  const json =
    replacer || spaces
      ? JSON.stringify(
          value,
          replacer as (this: unknown, key: string, value: unknown) => unknown,
          spaces as string | number,
        )
      : JSON.stringify(value);
  if (escape && typeof json === 'string') return json.replace(/[<>&]/g, (ch) => ESCAPED[ch]);
  return json;
}

function jsonOf(res: Response, value: unknown): string | undefined {
  const app = res.app;
  if (readsOwnSettings(app)) {
    const settings = app.settings;
    return stringifyJson(
      value,
      hotSettings.jsonReplacer(settings),
      hotSettings.jsonSpaces(settings),
      hotSettings.jsonEscape(settings),
    );
  }
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
      deprecate(
        'res.status(' + JSON.stringify(code) + '): use res.status(' + Math.floor(code) + ') instead',
        'webapp',
        'res.status(non-integer)',
      );
    }
    this.statusCode = code;
    return this;
  },

  send,

  // `_obj` is named for the method's arity (1); the body is read from `arguments` for the legacy forms.
  json(this: Response, _obj?: unknown) {
    const body = jsonOf(this, legacyBody(this, 'json', arguments));
    setDefaultType(this, 'application/json', JSON_CONTENT_TYPE);
    return this.send(body);
  },

  jsonp(this: Response, _obj?: unknown) {
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
