/**
 * The 3.x response prototype. Express 3 differs from 4.x in most sending
 * methods (status-first `send`/`json`/`jsonp`, `res.charset`, `sendfile`,
 * redirects relative to the mount point), and Connect 2 patched `setHeader` so
 * that Set-Cookie accumulates and Content-Type receives `res.charset`. Here those
 * patches live on the 3.x prototype only: 4.x apps in the same process are not
 * affected (Connect patched Node's ServerResponse for everyone).
 */
import { Buffer } from 'node:buffer';
import { EventEmitter } from 'node:events';
import { STATUS_CODES, ServerResponse, type IncomingMessage } from 'node:http';
import { extname } from 'node:path';
import { sameOriginPath } from '../http/same-origin-path';
import { contentDisposition } from '../http/content-disposition';
import { deprecate } from '../http/deprecate';
import { definePrototype } from '../define-prototype';
import { http2ResponseMember } from '../prototypes';
import { encodeUrl } from '../http/encode-url';
import { escapeHtml } from '../http/escape-html';
import { formatMediaType, parseMediaType, setCharset } from '../http/content-type';
import { charsetFor3, mediaTypeFor3 } from '../http/mime-answers';
import { parseOriginalUrl, resolveLegacyUrl } from '../http/parse-url';
import { appendVaryLegacy, vary } from '../http/vary';
import { normalizeType } from './accepts';
import { cookie3 } from './cookie';
import { response, type ResponsePrototype } from '../response';
import { fileMethods } from '../response/files';
import { typeArgument } from '../response/headers';
import { removeEntityHeaders } from '../response/send';
import { onHeaders } from '../middleware/on-headers';

interface Req3 extends IncomingMessage {
  app: { render(view: string, options: object, callback: (err: Error | null, html?: string) => void): void };
  query: Record<string, unknown>;
  secret?: string;
  fresh: boolean;
  next: (err?: unknown) => void;
  get(name: string): string | undefined;
  accepts(types: string[]): string | undefined;
}

/** What the 3.x response methods read from `this`. */
interface Res3 extends Omit<ServerResponse, 'req'> {
  req: Req3;
  app: { get(setting: string): unknown; path(): string };
  locals: unknown;
  charset?: string;
  get(field: string): ReturnType<ServerResponse['getHeader']>;
  set(field: string | Record<string, unknown>, value?: unknown): Res3;
  type(type: string): Res3;
  send(...args: unknown[]): Res3;
  json(...args: unknown[]): Res3;
  vary(field: string | string[]): Res3;
  cookie(name: string, value: unknown, options?: Record<string, unknown>): Res3;
  location(url: string): Res3;
  format(handlers: Record<string, ((...a: unknown[]) => void) | undefined>): Res3;
  sendfile(path: string, callback?: (err?: Error) => void): void;
}

// Node's own members, from where Connect's patch (if Connect is loaded in the same process) cannot reach.
// The 4.x prototype's setHeader: the header store where installed, else Node's own.
const nativeSetHeader = (response as unknown as ServerResponse).setHeader;
const nativeOn = EventEmitter.prototype.on;

type SetHeader = ServerResponse['setHeader'];

/**
 * The setHeader the 3.x patch calls through to. An HTTP/2 response keeps its own
 * header API: the HTTP/1 store's setHeader would put the header in an HTTP/1 slot
 * its `writeHead` never looks at (every header set by a 3.x app was lost over HTTP/2).
 */
function setHeaderBelow(res: Res3): SetHeader {
  return res instanceof ServerResponse ? nativeSetHeader : (http2ResponseMember(res, 'setHeader') as SetHeader);
}

/**
 * Connect 2's `res.charset` rule: a Content-Type that names its own charset keeps
 * it; any other gets `charset` (quoted if it is not a token); an empty one stays
 * as it is. A value that is not a media type throws, as Connect's did; an array
 * (or another object) is read as content-type 1.0 reads a request-like object,
 * for its own `content-type` header, which an array lacks.
 */
function addDefaultCharset(type: unknown, charset: string): unknown {
  if (!type) return type;
  const media = parseMediaType(typeof type === 'object' ? contentTypeOfObject(type) : (type as string));
  if (media.parameters.charset) return type;
  media.parameters.charset = charset;
  return formatMediaType(media);
}

function contentTypeOfObject(holder: object): string {
  const { getHeader, headers } = holder as { getHeader?: unknown; headers?: Record<string, unknown> | null };
  let header: unknown;
  if (typeof getHeader === 'function') header = getHeader.call(holder, 'content-type');
  else if (typeof headers === 'object') header = headers?.['content-type'];
  if (typeof header !== 'string') throw new TypeError('content-type header is missing from object');
  return header;
}

/** Express 3 (mime 1.3.4) answered `application/octet-stream` for an unknown extension. */
function lookup3(typeOrExt: string): string {
  const type = typeArgument(typeOrExt);
  return type.includes('/') ? type : String(mediaTypeFor3(type));
}

/** The 3.x response prototype: the 4.x one with the methods below in place of its own. */
export type Response3Prototype = Omit<ResponsePrototype, keyof typeof methods3 | 'header' | 'contentType' | 'charset'> &
  typeof methods3 & {
    header: (typeof methods3)['set'];
    contentType: (typeof methods3)['type'];
    charset: string | undefined;
  };

const methods3 = {
  /** Connect 2's patch: Set-Cookie values accumulate; Content-Type gets `res.charset`. */
  setHeader(this: Res3, field: string, value: number | string | readonly string[]) {
    const setHeader = setHeaderBelow(this);
    const key = field.toLowerCase();
    if (key === 'set-cookie') {
      let incoming = value;
      const previous = this.getHeader(field);
      if (Array.isArray(incoming) && incoming.length > 1) {
        const seen = ([] as unknown[]).concat(previous ?? []);
        incoming = incoming.filter((v) => !seen.includes(v));
      }
      if (!previous) return setHeader.call(this, field, incoming);
      const merged = Array.isArray(previous)
        ? previous.concat(incoming as string)
        : ([previous] as unknown[]).concat(incoming);
      return setHeader.call(this, field, merged as string[]);
    }
    if (key === 'content-type' && this.charset)
      return setHeader.call(this, field, addDefaultCharset(value, this.charset) as string);
    return setHeader.call(this, field, value);
  },

  /**
   * Connect 2's patch: a `header` listener runs once, just before the head is written
   * (by `writeHead` or implicitly).
   */
  on(this: Res3, event: string | symbol, listener: (...args: unknown[]) => void) {
    if (event !== 'header') return nativeOn.call(this, event, listener);
    deprecate('res.on("header"): use on-headers npm module instead');
    onHeaders(this as unknown as ServerResponse, listener);
    return this;
  },

  status(this: Res3, code: number) {
    this.statusCode = code;
    return this;
  },

  links(this: Res3, links: Record<string, string>) {
    let link = this.get('Link') || '';
    if (link) link += ', ';
    return this.set(
      'Link',
      link +
        Object.keys(links)
          .map((rel) => '<' + links[rel] + '>; rel="' + rel + '"')
          .join(', '),
    );
  },

  /** `send([status,] body)`, `send(body, status)` and `send(status)` (the status text as body). */
  send(this: Res3, ...args: unknown[]) {
    let body = args[0];
    const req = this.req;
    if (args.length === 2) {
      if (typeof body !== 'number' && typeof args[1] === 'number') {
        this.statusCode = args[1];
      } else {
        this.statusCode = body as number;
        body = args[1];
      }
    }
    if (typeof body === 'number' && args.length === 1) {
      if (!this.get('Content-Type')) this.type('txt');
      this.statusCode = body;
      body = STATUS_CODES[body];
    }
    switch (typeof body) {
      case 'string':
        if (!this.get('Content-Type')) {
          this.charset = this.charset || 'utf-8';
          this.type('html');
        }
        break;
      case 'boolean':
      case 'number':
      case 'object':
        if (body == null) body = '';
        else if (Buffer.isBuffer(body)) {
          if (!this.get('Content-Type')) this.type('bin');
        } else return this.json(body);
        break;
    }
    let encoding: BufferEncoding | undefined;
    if (typeof body === 'string') {
      encoding = 'utf8';
      const type = this.get('Content-Type');
      if (typeof type === 'string') this.set('Content-Type', setCharset(type, 'utf-8'));
    }
    let length: number | undefined;
    if (body !== undefined && !this.get('Content-Length')) {
      length = Buffer.isBuffer(body) ? body.length : Buffer.byteLength(body as string, encoding);
      this.set('Content-Length', length);
    }
    const generateETag = length !== undefined && this.app.get('etag fn');
    if (typeof generateETag === 'function' && !this.get('ETag')) {
      const tag = generateETag(body, encoding);
      if (tag) this.set('ETag', tag);
    }
    if (req.fresh) this.statusCode = 304;
    if (this.statusCode === 204 || this.statusCode === 304) {
      removeEntityHeaders(this);
      body = '';
    }
    if (req.method === 'HEAD') this.end();
    else this.end(body, encoding as BufferEncoding); // undefined is read as none given
    return this;
  },

  json(this: Res3, ...args: unknown[]) {
    const obj = statusFirst(this, args, 'json');
    const body = stringify3(obj, this.app);
    this.charset = this.charset || 'utf-8';
    if (!this.get('Content-Type')) this.set('Content-Type', 'application/json');
    return this.send(body);
  },

  jsonp(this: Res3, ...args: unknown[]) {
    const obj = statusFirst(this, args, 'jsonp');
    const app = this.app;
    let body = stringify3(obj, app);
    let callback = this.req.query[app.get('jsonp callback name') as string];
    if (!this.get('Content-Type')) {
      this.charset = 'utf-8';
      this.set('X-Content-Type-Options', 'nosniff');
      this.set('Content-Type', 'application/json');
    }
    if (Array.isArray(callback)) callback = callback[0];
    if (typeof callback === 'string' && callback.length !== 0) {
      this.charset = 'utf-8';
      this.set('X-Content-Type-Options', 'nosniff');
      this.set('Content-Type', 'text/javascript');
      callback = callback.replace(/[^[\]\w$.]/g, '');
      body = body.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
      body = '/**/ typeof ' + callback + " === 'function' && " + callback + '(' + body + ');';
    }
    return this.send(body);
  },

  /** 3.x download: `(path, [filename], [fn])`, built on `res.sendfile`; the filename defaults to the path. */
  download(this: Res3, path: string, filename?: string | ((err?: Error) => void), fn?: (err?: Error) => void) {
    let callback = fn;
    let name = filename;
    if (typeof name === 'function') {
      callback = name;
      name = undefined;
    }
    this.set('Content-Disposition', contentDisposition(name || path));
    return this.sendfile(path, callback);
  },

  type(this: Res3, type: string) {
    return this.set('Content-Type', lookup3(type));
  },

  format(this: Res3, handlers: Record<string, ((...a: unknown[]) => void) | undefined>) {
    const req = this.req;
    const next = req.next;
    const fallback = handlers.default;
    // 3.x took `default` out of the object it was given, in sloppy mode: a frozen one keeps it.
    if (fallback) Reflect.deleteProperty(handlers, 'default');
    const keys = Object.keys(handlers);
    const key = req.accepts(keys);
    this.vary('Accept');
    if (key) {
      // The key as 3.21 read it: a media type without its parameters, else an extension looked up whole.
      let type = normalizeType(key).value;
      // mime 1.3.4's charsets: UTF-8 for text/* only (application/json goes without).
      const charset = charsetFor3(type);
      if (charset) type += '; charset=' + String(charset);
      this.set('Content-Type', type);
      handlers[key]!(req, this, next);
    } else if (fallback) {
      fallback();
    } else {
      const err = Object.assign(new Error('Not Acceptable'), {
        status: 406,
        types: keys.map((k) => normalizeType(k).value),
      });
      next(err);
    }
    return this;
  },

  attachment(this: Res3, filename?: string) {
    if (filename) this.type(extname(filename));
    this.set('Content-Disposition', contentDisposition(filename));
    return this;
  },

  /** 3.x `set`: values become strings as given (no charset added: `res.charset` does that). */
  set(this: Res3, field: string | Record<string, unknown>, value?: unknown) {
    if (arguments.length === 2) {
      this.setHeader(field as string, Array.isArray(value) ? value.map(String) : String(value));
    } else {
      for (const key in field as Record<string, unknown>) this.set(key, (field as Record<string, unknown>)[key]);
    }
    return this;
  },

  get(this: Res3, field: string) {
    return this.getHeader(field);
  },

  clearCookie(this: Res3, name: string, options?: Record<string, unknown>) {
    const opts: Record<string, unknown> = { expires: new Date(1), path: '/' };
    // Inherited options too, as 3.21's utils-merge copied them.
    if (options) for (const key in options) opts[key] = options[key];
    return this.cookie(name, '', opts);
  },

  cookie(this: Res3, name: string, value: unknown, options?: Record<string, unknown>) {
    this.set('Set-Cookie', cookie3(name, value, options, this.req.secret));
    return this;
  },

  /**
   * A path without a leading slash is relative to the app's mount point; `.`-paths
   * to the current URL. Security fix over 3.x: the URL is percent-encoded (as 4.x
   * does), so characters that cannot go in a header no longer crash the response.
   */
  location(this: Res3, target: string) {
    const req = this.req;
    let url = target === 'back' ? req.get('Referrer') || '/' : target;
    // indexOf, as 3.21 called: a URL that is no string throws its TypeError (`url.indexOf is not a function`).
    if (url.indexOf('://') === -1 && url.indexOf('//') !== 0) {
      if (url[0] === '.') {
        let path = parseOriginalUrl(req)?.pathname ?? '/';
        path = path + (path[path.length - 1] === '/' ? '' : '/');
        // Relative to the request's own path, it stays on this site: `GET //evil.example/x`
        // (or `/\evil.example/x`, which url.resolve turns into `//`) must not make it another host.
        url = sameOriginPath(resolveLegacyUrl(path, url));
      } else if (url[0] !== '/') {
        // Relative to the mount point: at the root, a target with a leading backslash
        // (`\evil.example`, which a browser reads as `/evil.example`) made `/\evil.example`,
        // which it reads as `//evil.example`, another host.
        url = sameOriginPath(this.app.path() + '/' + url);
      }
    }
    this.set('Location', encodeUrl(url));
    return this;
  },

  redirect(this: Res3, ...args: unknown[]) {
    const head = this.req.method === 'HEAD';
    let status = 302;
    let url = args[0] as string;
    if (args.length === 2) {
      if (typeof url === 'number') {
        status = url;
        url = args[1] as string;
      } else {
        deprecate('res.redirect(url, status): Use res.redirect(status, url) instead');
        status = args[1] as number;
      }
    }
    this.location(url);
    const location = String(this.get('Location'));
    let body = '';
    this.format({
      text: () => {
        body = STATUS_CODES[status] + '. Redirecting to ' + location;
      },
      html: () => {
        const escaped = escapeHtml(location);
        body = '<p>' + STATUS_CODES[status] + '. Redirecting to <a href="' + escaped + '">' + escaped + '</a></p>';
      },
      default: () => {
        body = '';
      },
    });
    this.statusCode = status;
    this.set('Content-Length', Buffer.byteLength(body));
    this.end(head ? null : body);
  },

  vary(this: Res3, field: string | string[]) {
    if (!field || (Array.isArray(field) && !field.length)) return this;
    vary(this, field, appendVaryLegacy);
    return this;
  },

  render(this: Res3, view: string, options?: unknown, fn?: (err: Error | null, html?: string) => void) {
    const req = this.req;
    let opts = (options || {}) as Record<string, unknown>;
    let done = fn;
    if (typeof options === 'function') {
      done = options as typeof fn;
      opts = {};
    }
    // 3.x's sloppy-mode assignment: options that cannot take it (frozen, a string) render
    // without res.locals, where a strict write threw.
    if (typeof opts === 'object') Reflect.set(opts, '_locals', this.locals);
    const callback = done || ((err: Error | null, html?: string) => (err ? req.next(err) : this.send(html)));
    req.app.render(view, opts, callback);
  },

  sendfile: fileMethods.sendfile,
};

/** JSON text with the app's `json replacer` and `json spaces`. */
function stringify3(value: unknown, app: { get(setting: string): unknown }): string {
  return JSON.stringify(
    value,
    app.get('json replacer') as (key: string, value: unknown) => unknown,
    app.get('json spaces') as string | number,
  );
}

/** The 3.x status-first forms: `(status, body)`, and the deprecated `(body, status)`. */
function statusFirst(res: Res3, args: unknown[], name: string): unknown {
  let obj = args[0];
  if (args.length === 2) {
    if (typeof args[1] === 'number') {
      res.statusCode = args[1];
      deprecate(
        typeof obj === 'number'
          ? `res.${name}(obj, status): Use res.${name}(status, obj) instead`
          : `res.${name}(num, status): Use res.status(status).${name}(num) instead`,
      );
    } else {
      res.statusCode = obj as number;
      obj = args[1];
    }
  }
  return obj;
}

export const response3 = definePrototype<Response3Prototype>(response, {
  methods: methods3,
  aliases: { header: 'set', contentType: 'type' },
  /** Appended to text Content-Types by `setHeader` when set (`res.charset = 'utf-8'`). */
  values: { charset: undefined },
  getters: {
    /** Connect 2's `res.headerSent` (its name for `headersSent`, deprecated there too). */
    headerSent(this: ServerResponse) {
      deprecate('res.headerSent: use standard res.headersSent');
      return this.headersSent;
    },
  },
});
