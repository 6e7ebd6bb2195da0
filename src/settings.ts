/**
 * Compiles the settings whose values select behaviour (`etag`, `query parser`,
 * `trust proxy`) into the functions the request and response read on every
 * request (`etag fn`, `query parser fn`, `trust proxy fn`), as Express 4 does.
 */
import { Buffer } from 'node:buffer';
import { parse as parseSimpleQuery } from 'node:querystring';
import { etag } from './http/etag';
import { lazy } from './http/lazy';
import type { ExtendedParseOptions } from './querystring';

const proxyAddr = lazy(() => require('proxy-addr') as typeof import('proxy-addr'));
const querystring = lazy(() => require('./querystring') as typeof import('./querystring'));

export type ETagFunction = (body: string | Buffer, encoding?: BufferEncoding) => string | undefined;
// `null` for a request without a query string, as Express's query middleware passes it.
export type QueryParserFunction = (queryString: string | null) => Record<string, unknown>;
export type TrustFunction = (address: string, hop: number) => boolean;

// The compiled functions carry Express's names (`app.get('etag fn').name` is `generateETag`...).

function etagGenerator(weak: boolean): ETagFunction {
  // entityTag reads a string as UTF-8; other encodings are converted first.
  return function generateETag(body, encoding) {
    const text = typeof body !== 'string' || !encoding || encoding === 'utf8' ? body : Buffer.from(body, encoding);
    return etag(text, weak);
  };
}

/**
 * `app.get(setting)`: the app's own settings first, then those inherited from the
 * parent app's settings, but never a member of Object.prototype (Express 4.22 walks
 * the own properties of each settings object up to it). One read answers, unless it
 * found a value and Object.prototype has a member of that name (a polluted prototype
 * included): the value may be that member's, and the walk decides. Several settings
 * are read per request, and on Node 26 each own-property check is a builtin call.
 */
export function readSetting(settings: object | null | undefined, setting: string): unknown {
  if (!settings) return undefined;
  const value = (settings as Record<string, unknown>)[setting];
  if (value === undefined || !(setting in Object.prototype)) return value;
  return findOwnSetting(settings, setting);
}

/**
 * The settings read while answering every request, each by a function with the
 * setting's name written out. Why: `readSetting` takes the name as a value, so
 * V8 keeps its load cached for no one name, and each read is a lookup in V8's
 * global cache (about 300 instructions with the `in` check, callgrind on Node
 * 20); `settings['etag fn']` is a load cached for the settings object's shape.
 * Same answers as `readSetting`, including the walk when Object.prototype has a
 * member of that name. Used only by `readsOwnSettings` apps (see there). One
 * function per setting, each spelling its name out twice, on purpose: a shared
 * helper taking the name would bring the lookup back (or run the `in` check
 * before knowing that the value, most often undefined, needs it).
 */
export const hotSettings = {
  poweredBy(settings: Record<string, unknown>): unknown {
    const value = settings['x-powered-by'];
    return value === undefined || !('x-powered-by' in Object.prototype)
      ? value
      : findOwnSetting(settings, 'x-powered-by');
  },
  etagFn(settings: Record<string, unknown>): unknown {
    const value = settings['etag fn'];
    return value === undefined || !('etag fn' in Object.prototype) ? value : findOwnSetting(settings, 'etag fn');
  },
  jsonReplacer(settings: Record<string, unknown>): unknown {
    const value = settings['json replacer'];
    return value === undefined || !('json replacer' in Object.prototype)
      ? value
      : findOwnSetting(settings, 'json replacer');
  },
  jsonSpaces(settings: Record<string, unknown>): unknown {
    const value = settings['json spaces'];
    return value === undefined || !('json spaces' in Object.prototype)
      ? value
      : findOwnSetting(settings, 'json spaces');
  },
  jsonEscape(settings: Record<string, unknown>): unknown {
    const value = settings['json escape'];
    return value === undefined || !('json escape' in Object.prototype)
      ? value
      : findOwnSetting(settings, 'json escape');
  },
};

/** On a preset's `get`, `set` or `enabled`: see markPlainSettingReads. */
const kPlainSettingRead = Symbol('webapp.plainSettingRead');

/** Marks the methods that read a setting as `readSetting(this.settings, name)` does and nothing more. */
export function markPlainSettingReads(...methods: object[]): void {
  for (const method of methods) Object.defineProperty(method, kPlainSettingRead, { value: true });
}

interface SettingReader {
  get?: unknown;
  set?: unknown;
  enabled?: unknown;
  settings: Record<string, unknown>;
}

function isPlainRead(method: unknown): boolean {
  return typeof method === 'function' && (method as { [kPlainSettingRead]?: true })[kPlainSettingRead] === true;
}

/**
 * Whether `app.get(name)` (and `app.enabled(name)`) of this app only read `app.settings`,
 * so `hotSettings` give what they would: the app's `get`, `set` and `enabled` are
 * webapp's own. An app whose methods were replaced or wrapped is read through them, as
 * Express reads it, so the replacement sees every read.
 */
export function readsOwnSettings(app: SettingReader): boolean {
  return isPlainRead(app.get) && isPlainRead(app.set) && isPlainRead(app.enabled);
}

function findOwnSetting(settings: object | null, setting: string): unknown {
  while (settings && settings !== Object.prototype) {
    if (Object.prototype.hasOwnProperty.call(settings, setting)) return (settings as Record<string, unknown>)[setting];
    settings = Object.getPrototypeOf(settings);
  }
  return undefined;
}

/** The `etag fn` of the `weak` setting (and `utils.wetag` of `express/lib/utils`). */
export const weakETag = etagGenerator(true);
/** The `etag fn` of the `strong` setting (and `utils.etag`). */
export const strongETag = etagGenerator(false);

/**
 * The built-in generators hash a UTF-8 string as its bytes, so `res.send` may
 * hand them the string; a custom `etag fn` gets the Buffer, as in Express.
 */
export function hashesStrings(fn: ETagFunction): boolean {
  return fn === weakETag || fn === strongETag;
}

/** `true`/`'weak'`, `'strong'`, `false` or a custom function. */
export function compileETag(value: unknown): ETagFunction | undefined {
  return chooseETag(value, weakETag, strongETag);
}

/**
 * The `etag` setting's value to its function, given the line's weak and strong
 * generators (webapp/v3 has Express 3's): a function is kept as it is.
 */
export function chooseETag(value: unknown, weak: ETagFunction, strong: ETagFunction): ETagFunction | undefined {
  if (typeof value === 'function') return value as ETagFunction;
  switch (value) {
    case true:
    case 'weak':
      return weak;
    case false:
      return undefined;
    case 'strong':
      return strong;
    default:
      throw new TypeError('unknown value for etag function: ' + value);
  }
}

/** Express 4's extended parser: qs semantics, prototype keys allowed, arrays up to 1000 entries. */
function parseExtendedQueryString(queryString: string | null): Record<string, unknown> {
  // Most requests have no query string: the parser's module waits for one (cold start).
  if (!queryString) return {};
  return querystring().parseExtended(queryString, { allowPrototypes: true, arrayLimit: 1000 });
}

function newObject(): Record<string, unknown> {
  return {};
}

/** `'extended'`, `'simple'`/`true`, `false` (always `{}`), or a custom function. */
export function compileQueryParser(value: unknown): QueryParserFunction {
  if (typeof value === 'function') return value as QueryParserFunction;
  switch (value) {
    case true:
    case 'simple':
      return parseSimpleQuery as unknown as QueryParserFunction;
    case false:
      return newObject;
    case 'extended':
      return parseExtendedQueryString;
    default:
      throw new TypeError('unknown value for query parser function: ' + value);
  }
}

/** `trust proxy` false, the default: no proxy is trusted (req.ip is the socket's address). */
export function trustNone(): boolean {
  return false;
}

/**
 * The parser the app's query layer uses for the compiled setting. A function is
 * used as is; anything else (the setting removed by hand, or qs options) means
 * what Express 4's `query(options)` makes of it: qs semantics with those
 * options, prototype keys allowed unless they say otherwise.
 */
export function queryParserOf(setting: unknown): QueryParserFunction {
  if (typeof setting === 'function') return setting as QueryParserFunction;
  // As `webapp.query(options)` does: an option the parser would ignore is an error, not a different result.
  querystring().assertImplementedOptions(setting as object | undefined, "app.set('query parser fn')");
  const options: ExtendedParseOptions = { ...(setting as ExtendedParseOptions) };
  if (options.allowPrototypes === undefined) options.allowPrototypes = true;
  return (queryString) => querystring().parseExtended(queryString, options);
}

/** Boolean, hop count, addresses/subnets/names (string, comma list or array), or a function. */
export function compileTrust(value: unknown): TrustFunction {
  if (typeof value === 'function') return value as TrustFunction;
  if (value === true) return () => true;
  // The default (`false`, trusting no proxy) needs no address parsing.
  if (value === false || value == null) return trustNone;
  if (typeof value === 'number') return (_address, hop) => hop < value;
  let list = value;
  if (typeof list === 'string') list = list.split(',').map((entry) => entry.trim());
  return proxyAddr().compile((list || []) as string[]);
}
