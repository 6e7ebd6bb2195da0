/**
 * The 3.x request prototype: the 4.x request with Express 3's differences:
 * `req.accepts` returns `undefined` when nothing matches, `req.is` returns a
 * Boolean, `req.accepted*` list the Accept headers by quality, `req.host` is the
 * hostname, `req.range` returns `undefined` without a Range header, and the
 * `acceptsCharset`/`acceptsLanguage`/`acceptsEncoding` checks are Booleans.
 */
import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import proxyAddr = require('proxy-addr');
import { connectionOf } from '../http/connection';
import { firstListEntry } from '../http/header-list';
import { parseUrl } from '../http/parse-url';
import { isFresh03 } from '../http/fresh';
import { mediaTypeFor3 } from '../http/mime-answers';
import { parseRange } from '../http/range-parser';
import { deprecate } from '../http/deprecate';
import { definePrototype } from '../define-prototype';
import { withoutPort } from '../http/host';
import { request, type RequestPrototype } from '../request';
import { acceptsTypes, parseAccept, parseParams, splitAround } from './accepts';

/** What the 3.x request methods read from `this`. */
interface Request3 extends IncomingMessage {
  app: { get(setting: string): unknown };
  res: ServerResponse;
  params?: Record<string, unknown>;
  body?: Record<string, unknown>;
  query?: Record<string, unknown>;
  host?: string;
  fresh?: boolean;
  protocol?: string;
  acceptedEncodings: string[];
  acceptedCharsets: string[];
  acceptedLanguages: string[];
  get(name: string): string | undefined;
}

/**
 * Express 3 (mime 1.3.4) answered `application/octet-stream` for an unknown extension.
 * mime 1.x called `path.replace` on what it was given: a `String` object works, anything else threw.
 */
function lookup3(ext: string): string {
  if (typeof ext !== 'string' && !((ext as unknown) instanceof String)) {
    throw new TypeError('path.replace is not a function');
  }
  return mediaTypeFor3(String(ext)) as string;
}

/** `Basic <base64>`, the scheme in any case, spaces around: the grammar 3.21's basic-auth accepted. */
const BASIC_SCHEME = /^ *basic +([\w.~+/-]+=*) *$/i;
/** Line terminators: basic-auth's `user:pass` pattern stopped at them, so such a password was no match. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/** The user (up to the first `:`) and password (the rest, `:` included) of a Basic Authorization header. */
function basicCredentials(header: string | undefined): { username: string; password: string } | undefined {
  const match = BASIC_SCHEME.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString();
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  const password = decoded.slice(colon + 1);
  if (LINE_TERMINATOR.test(password)) return undefined;
  return { username: decoded.slice(0, colon), password };
}

/** The 3.x request prototype: the 4.x one with the methods and getters below in place of its own. */
export type Request3Prototype = Omit<RequestPrototype, keyof typeof methods3 | keyof typeof getters3 | 'header'> &
  typeof methods3 & { header: (typeof methods3)['get'] } & {
    readonly [Name in keyof typeof getters3]: ReturnType<(typeof getters3)[Name]>;
  };

const methods3 = {
  /** A request header, case-insensitive; Referer and Referrer are interchangeable. */
  get(this: Request3, name: string) {
    const key = name.toLowerCase();
    if (key === 'referer' || key === 'referrer') return this.headers.referrer || this.headers.referer;
    return this.headers[key];
  },
  /** The best of the offered types (a comma list, an array, or several arguments), or undefined. */
  accepts(this: Request3, ...types: Array<string | string[]>): string | undefined {
    const wanted = types.length > 1 ? types : types[0];
    return acceptsTypes(wanted, this.get('Accept')) as string | undefined;
  },
  acceptsEncoding(this: Request3, encoding: string) {
    return (this.acceptedEncodings as string[]).includes(encoding);
  },
  acceptsCharset(this: Request3, charset: string) {
    const accepted = this.acceptedCharsets as string[];
    return accepted.length ? accepted.includes(charset) : true;
  },
  acceptsLanguage(this: Request3, lang: string) {
    const accepted = this.acceptedLanguages as string[];
    return accepted.length ? accepted.includes(lang) : true;
  },
  range(this: Request3, size: number) {
    const header = this.get('Range');
    if (!header) return undefined;
    // range-parser 1.0, as 3.21 parses: one unsatisfiable part makes the whole header -1.
    return parseRange(size, header, { strict: true });
  },
  param(this: Request3, name: string, defaultValue?: unknown) {
    const params = this.params || {};
    const body = this.body || {};
    const query = this.query || {};
    if (params[name] != null && Object.prototype.hasOwnProperty.call(params, name)) return params[name];
    if (body[name] != null) return body[name];
    if (query[name] != null) return query[name];
    return defaultValue;
  },
  /**
   * True when the Content-Type is `type` (an extension, a MIME type, or `type/*` /
   * `*\/subtype`). `type` is searched with `indexOf` as 3.21 searched it, so anything
   * but a string fails (or matches) as it did there: `type.indexOf is not a function`,
   * and an array is looked up as mime 1.x looked it up (`path.replace is not a function`).
   */
  is(this: Request3, type: string) {
    let contentType = this.get('Content-Type');
    if (!contentType) return false;
    contentType = contentType.split(';')[0];
    if (type.indexOf('/') === -1) type = lookup3(type);
    if (type.indexOf('*') !== -1) {
      const [wantedType, wantedSubtype] = type.split('/');
      const [actualType, actualSubtype] = contentType.split('/');
      if (wantedType === '*' && wantedSubtype === actualSubtype) return true;
      if (wantedSubtype === '*' && wantedType === actualType) return true;
      return false;
    }
    return contentType.indexOf(type) !== -1;
  },
};

const getters3 = {
  ip() {
    return proxyAddr(this, this.app.get('trust proxy fn') as (addr: string, i: number) => boolean);
  },
  ips() {
    return proxyAddr
      .all(this, this.app.get('trust proxy fn') as (addr: string, i: number) => boolean)
      .slice(1)
      .reverse();
  },
  secure() {
    return this.protocol === 'https';
  },
  path() {
    return parseUrl(this as never)?.pathname;
  },
  stale() {
    return !this.fresh;
  },
  xhr() {
    return String(this.get('X-Requested-With') || '').toLowerCase() === 'xmlhttprequest';
  },
  acceptedEncodings() {
    const header = this.get('Accept-Encoding');
    return header ? splitAround(header.trim(), ',') : [];
  },
  accepted() {
    const header = this.get('Accept');
    return header ? parseAccept(header) : [];
  },
  acceptedLanguages() {
    const header = this.get('Accept-Language');
    return header ? parseParams(header).map((entry) => entry.value) : [];
  },
  acceptedCharsets() {
    const header = this.get('Accept-Charset');
    return header ? parseParams(header).map((entry) => entry.value) : [];
  },
  /** 3.x `req.host`: the hostname (no port), from X-Forwarded-Host when the proxy is trusted. */
  host() {
    const trust = this.app.get('trust proxy fn') as (addr: string | undefined, i: number) => boolean;
    let host = this.get('X-Forwarded-Host');
    if (!host || !trust(connectionOf(this)?.remoteAddress, 0)) host = this.get('Host');
    return host ? withoutPort(host) : undefined;
  },
  subdomains() {
    const host = this.host as string | undefined;
    if (!host) return [];
    const parts = !isIP(host) ? host.split('.').reverse() : [host];
    return parts.slice(this.app.get('subdomain offset') as number);
  },
  protocol() {
    const connection = connectionOf(this);
    const proto = connection?.encrypted ? 'https' : 'http';
    const trust = this.app.get('trust proxy fn') as (addr: string | undefined, i: number) => boolean;
    if (!trust(connection?.remoteAddress, 0)) return proto;
    const forwarded = this.get('X-Forwarded-Proto') || proto;
    return firstListEntry(forwarded);
  },
  /** 3.21's `req.auth` (deprecated there too): Basic credentials, or undefined. */
  auth() {
    deprecate('req.auth: Use basic-auth npm module instead');
    return basicCredentials(this.headers.authorization);
  },
  fresh() {
    const method = this.method;
    const status = this.res.statusCode;
    if (method !== 'GET' && method !== 'HEAD') return false;
    if ((status >= 200 && status < 300) || status === 304) return isFresh03(this.headers, this.res.getHeaders());
    return false;
  },
} satisfies Record<string, (this: Request3) => unknown>;

export const request3 = definePrototype<Request3Prototype>(request, {
  methods: methods3,
  aliases: { header: 'get' },
  getters: getters3,
});
