/**
 * The 4.x request prototype (`webapp.request`). Every app gets its own
 * `app.request = Object.create(request)`, and requests take that as prototype,
 * so middleware that patches `app.request` (passport does) sees its methods.
 * Everything derived from headers is computed when read, never per request.
 */
import { IncomingMessage, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { connectionOf } from './http/connection';
import { withoutPort } from './http/host';
import { deprecate } from './http/deprecate';
import { isFresh } from './http/fresh';
import { parseUrl } from './http/parse-url';
import type { RangeOptions } from './http/range-parser';
import { lazy } from './http/lazy';
import { definePrototype } from './define-prototype';
import { trustNone } from './settings';

const proxyAddr = lazy(() => require('proxy-addr') as typeof import('proxy-addr'));
// Content negotiation, `req.range` and `req.is`: not needed before a request asks (cold start).
const negotiation = lazy(() => require('./http/negotiation') as typeof import('./http/negotiation'));
const rangeParser = lazy(() => require('./http/range-parser') as typeof import('./http/range-parser'));
const typeIsModule = lazy(() => require('./http/type-is') as typeof import('./http/type-is'));

/** The best of `offered` for the request's Accept-Encoding, Accept-Charset or Accept-Language, or false. */
function acceptsOf(headers: IncomingHttpHeaders, kind: 'encodings' | 'charsets' | 'languages', offered: unknown[]) {
  const { acceptsOther, offers } = negotiation();
  return acceptsOther(headers, kind, offers(offered));
}

type TrustFunction = (address: string | undefined, hop: number) => boolean;

/** What the request methods read from `this`. */
interface RequestThis extends IncomingMessage {
  app: { get(setting: string): unknown };
  res: ServerResponse & { get(field: string): unknown };
  originalUrl?: string;
  params?: Record<string, unknown>;
  body?: Record<string, unknown>;
  query: Record<string, unknown>;
  hostname: string | undefined;
  protocol: string;
  fresh: boolean;
  get(name: string): string | undefined;
}

/**
 * The request prototype: Node's request plus the methods, the `header` alias and
 * the values of the getters, all installed below. (`req.query` is the request's
 * own, set by the app's query layer: src/query.ts.)
 */
export type RequestPrototype = IncomingMessage &
  typeof methods & { header: (typeof methods)['get'] } & {
    readonly [Name in keyof typeof getters]: ReturnType<(typeof getters)[Name]>;
  };

/**
 * A header read through `req.get`, as Express reads the ones behind `protocol`,
 * `hostname` and `xhr`: an app that replaces `get` (rewriting the Host for its
 * tenants, say) changes those too.
 */
function header(req: RequestThis, name: string): string | undefined {
  const value = req.get(name);
  return Array.isArray(value) ? value.join(', ') : value;
}

const methods = {
  /** A request header, case-insensitive; Referer and Referrer are interchangeable. */
  get(this: RequestThis, name: string): string | string[] | undefined {
    if (!name) throw new TypeError('name argument is required to req.get');
    if (typeof name !== 'string') throw new TypeError('name must be a string to req.get');
    const lc = name.toLowerCase();
    if (lc === 'referer' || lc === 'referrer') return this.headers.referrer || this.headers.referer;
    return this.headers[lc];
  },

  /** The best of the offered types (MIME types or extensions) for the Accept header, or false. */
  accepts(this: RequestThis, ...types: unknown[]) {
    const { acceptsTypes, offers } = negotiation();
    // A comma splits only `req.accepts('json, html')`: one string (see splitTypeLists).
    const oneTypeList = types.length === 1 && typeof types[0] === 'string';
    return acceptsTypes(this.headers, offers(types), oneTypeList);
  },
  acceptsEncodings(this: RequestThis, ...encodings: unknown[]) {
    return acceptsOf(this.headers, 'encodings', encodings);
  },
  acceptsCharsets(this: RequestThis, ...charsets: unknown[]) {
    return acceptsOf(this.headers, 'charsets', charsets);
  },
  acceptsLanguages(this: RequestThis, ...languages: unknown[]) {
    return acceptsOf(this.headers, 'languages', languages);
  },
  acceptsEncoding(this: RequestThis, ...encodings: unknown[]) {
    deprecate('req.acceptsEncoding: Use acceptsEncodings instead');
    return acceptsOf(this.headers, 'encodings', encodings);
  },
  acceptsCharset(this: RequestThis, ...charsets: unknown[]) {
    deprecate('req.acceptsCharset: Use acceptsCharsets instead');
    return acceptsOf(this.headers, 'charsets', charsets);
  },
  acceptsLanguage(this: RequestThis, ...languages: unknown[]) {
    deprecate('req.acceptsLanguage: Use acceptsLanguages instead');
    return acceptsOf(this.headers, 'languages', languages);
  },

  /** The Range header parsed against `size`: ranges with `type`, -1 unsatisfiable, -2 malformed. */
  range(this: RequestThis, size: number, options?: RangeOptions) {
    const range = this.get('Range');
    if (!range) return undefined;
    // range-parser 1.2 reads `combine` only; `strict` is the 1.0 reading webapp/v3 asks for.
    return rangeParser().parseRange(size, range, options?.strict ? { combine: options.combine } : options);
  },

  /** Deprecated: `req.params`, then `req.body`, then `req.query`, else the default. */
  param(this: RequestThis, name: string, defaultValue?: unknown) {
    const params = this.params || {};
    const body = this.body || {};
    const query = this.query || {};
    deprecate(
      'req.param(' +
        (arguments.length === 1 ? 'name' : 'name, default') +
        '): Use req.params, req.body, or req.query instead',
    );
    if (params[name] != null && Object.prototype.hasOwnProperty.call(params, name)) return params[name];
    if (body[name] != null) return body[name];
    if (query[name] != null) return query[name];
    return defaultValue;
  },

  /** The matching type for the Content-Type, false when none matches, null without a body. */
  is(this: RequestThis, types?: unknown, ...more: unknown[]) {
    // One named parameter keeps `req.is.length` at 1, as in Express.
    const list = Array.isArray(types) ? (types as unknown[]) : arguments.length === 0 ? [] : [types, ...more];
    return typeIsModule().typeIs(this, list);
  },
};

const getters = {
  /** `https` over TLS; behind a trusted proxy, the first X-Forwarded-Proto value. */
  protocol() {
    const connection = connectionOf(this);
    const proto = connection?.encrypted ? 'https' : 'http';
    const trust = this.app.get('trust proxy fn') as TrustFunction;
    if (!trust(connection?.remoteAddress, 0)) return proto;
    const forwarded = header(this, 'X-Forwarded-Proto') || proto;
    const comma = forwarded.indexOf(',');
    return comma !== -1 ? forwarded.substring(0, comma).trim() : forwarded.trim();
  },
  secure() {
    return this.protocol === 'https';
  },
  /** The client address: the socket's, or the nearest untrusted X-Forwarded-For entry. */
  ip() {
    const trust = this.app.get('trust proxy fn') as TrustFunction;
    // Trusting no proxy (the default), proxy-addr answers the socket's address, read as it
    // reads it, after parsing X-Forwarded-For for nothing: loggers (morgan) and rate
    // limiters ask on every request (2.5% of a production stack's instructions, bench/README.md).
    if (trust === trustNone) return (this.socket ?? this.connection).remoteAddress;
    return proxyAddr()(this, trust);
  },
  /** With a trusted proxy, the X-Forwarded-For addresses, client first. */
  ips() {
    const addresses = proxyAddr().all(this, this.app.get('trust proxy fn') as TrustFunction);
    addresses.reverse().pop();
    return addresses;
  },
  subdomains() {
    const hostname = this.hostname;
    if (!hostname) return [];
    const offset = this.app.get('subdomain offset') as number;
    const parts = !isIP(hostname) ? hostname.split('.').reverse() : [hostname];
    return parts.slice(offset);
  },
  path() {
    return parseUrl(this)?.pathname;
  },
  /** Host without port; behind a trusted proxy the first X-Forwarded-Host; IPv6 literals kept whole. */
  hostname() {
    const trust = this.app.get('trust proxy fn') as TrustFunction;
    let host = header(this, 'X-Forwarded-Host');
    if (!host || !trust(connectionOf(this)?.remoteAddress, 0)) {
      host = header(this, 'Host');
    } else if (host.indexOf(',') !== -1) {
      host = host.substring(0, host.indexOf(',')).trimEnd();
    }
    return host ? withoutPort(host) : undefined;
  },
  host() {
    deprecate('req.host: Use req.hostname instead');
    return this.hostname;
  },
  /** Conditional GET: the client's cached copy matches (only GET/HEAD/QUERY with a 2xx or 304 status). */
  fresh() {
    const method = this.method;
    const res = this.res;
    const status = res.statusCode;
    // 4.22 validates GET, HEAD and QUERY only (weak freshness validation).
    if (method !== 'GET' && method !== 'HEAD' && method !== 'QUERY') return false;
    // Compared before anything else, as in Express: a status that is not a number is
    // converted here (a Symbol throws, before `res.send` calls `res.end`).
    if (!((status >= 200 && status < 300) || status === 304)) return false;
    // `req.headers` read once, as Express reads it: Node's getter is shared by every
    // request object in the process, and its loads turn megamorphic in an app whose
    // middleware add fields to requests (about 350 instructions a read).
    const headers = this.headers;
    // Most requests are unconditional: no need to read the response's validators.
    if (!headers['if-none-match'] && !headers['if-modified-since']) return false;
    // Through res.get, as Express reads them (a wrapper of res.get sees both reads).
    return isFresh(headers, {
      etag: res.get('ETag') as string | undefined,
      'last-modified': res.get('Last-Modified') as string | undefined,
    });
  },
  stale() {
    return !this.fresh;
  },
  xhr() {
    const value = header(this, 'X-Requested-With') || '';
    return value.toLowerCase() === 'xmlhttprequest';
  },
} satisfies Record<string, (this: RequestThis) => unknown>;

export const request = definePrototype<RequestPrototype>(IncomingMessage.prototype, {
  methods,
  aliases: { header: 'get' },
  getters,
});
