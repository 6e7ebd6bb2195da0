import * as nodeUrl from 'node:url';
import type { IncomingMessage } from 'node:http';

/**
 * Node's legacy `Url` class (exported at run time, typed only as an interface). The
 * parsed URL is one of its objects, as parseurl makes them for Express: the same
 * fields (`host`, `protocol`... null for an origin-form target), and parseurl, which
 * middleware such as serve-static calls, reuses it instead of parsing again (it
 * takes only a `Url` from the cache).
 *
 * Parsed by the object's own `parse`, which is what `url.parse` runs: from Node 24 on,
 * `url.parse` (and `url.resolve`) print DEP0169 once when called from outside a
 * node_modules folder, which webapp is when linked (`npm link`, a workspace, a `file:`
 * dependency). Any client could make a server print it (or end it, under
 * `--throw-deprecation`) with an absolute-form target or a `#` in the path; parseurl,
 * inside node_modules, never does for Express.
 */
const LegacyUrl = (nodeUrl as unknown as { Url: new () => LegacyUrlObject }).Url;

interface LegacyUrlObject extends ParsedUrl {
  parse(url: string, parseQueryString: boolean, slashesDenoteHost: boolean): void;
  resolveObject(relative: LegacyUrlObject): { format(): string };
}

/** `url.parse(url)`, without its deprecation notice. */
function legacyParse(url: string, slashesDenoteHost = false): LegacyUrlObject {
  const parsed = new LegacyUrl();
  parsed.parse(url, false, slashesDenoteHost);
  return parsed;
}

/** `url.resolve(from, to)`, without its deprecation notice (its `resolve` parses `to` by `url.parse`). */
export function resolveLegacyUrl(from: string, to: string): string {
  return legacyParse(from, true).resolveObject(legacyParse(to, true)).format();
}

/** The parts of a request URL the framework reads (the fields of Node's legacy `Url`). */
export interface ParsedUrl {
  pathname: string | null;
  search: string | null;
  query: string | null;
  path: string | null;
  href: string;
  _raw: string;
}

interface UrlCarrier {
  url?: string;
  originalUrl?: string;
  _parsedUrl?: ParsedUrl | null;
  _parsedOriginalUrl?: ParsedUrl | null;
}

/**
 * Parses a request-target. Origin-form targets (`/path?query`) without characters
 * that the legacy parser rewrites are split by hand; everything else goes through
 * Node's legacy `url.parse`, which is what Express (parseurl) does too, so
 * `pathname` is the same string Express routes on.
 */
export function parseRequestTarget(url: string): ParsedUrl {
  // Anything else than a string primitive (a `String` object set as `req.url`) goes to
  // Node's parse, which refuses it as parseurl does: the router then ends routing.
  if (typeof url === 'string' && url.charCodeAt(0) === 0x2f /* / */) {
    let pathname = url;
    let query: string | null = null;
    let search: string | null = null;
    for (let i = 1; i < url.length; i++) {
      switch (url.charCodeAt(i)) {
        case 0x3f /* ? */:
          if (search === null) {
            pathname = url.substring(0, i);
            query = url.substring(i + 1);
            search = url.substring(i);
          }
          break;
        case 0x09:
        case 0x0a:
        case 0x0c:
        case 0x0d:
        case 0x20:
        case 0x23:
        case 0xa0:
        case 0xfeff:
          return fromLegacy(url);
      }
    }
    // The fields in parseurl's order, so that they enumerate as Express's do.
    const parsed = new LegacyUrl();
    parsed.path = url;
    parsed.href = url;
    parsed.pathname = pathname;
    if (search !== null) {
      parsed.query = query;
      parsed.search = search;
    }
    parsed._raw = url;
    return parsed;
  }
  return fromLegacy(url);
}

/** Node's legacy parse, all its fields kept (an absolute-form target's `host`, `protocol`...). */
function fromLegacy(url: string): ParsedUrl {
  const parsed: ParsedUrl = legacyParse(url);
  parsed._raw = url;
  return parsed;
}

/**
 * Whether a cached parse is of `url` and can be reused. Only a `Url` object counts, as
 * for parseurl: apps that rewrite `req.url` clear the cache with `req._parsedUrl = null`
 * (or set an object of their own), and the URL is then parsed again.
 */
function isParseOf(cached: ParsedUrl | null | undefined, url: string): cached is ParsedUrl {
  return cached instanceof LegacyUrl && cached._raw === url;
}

/** `req.url` parsed, cached on the request as parseurl caches it (`req._parsedUrl`). */
export function parseUrl(req: IncomingMessage): ParsedUrl | undefined {
  const carrier = req as IncomingMessage & UrlCarrier;
  const url = carrier.url;
  if (url === undefined) return undefined;
  const cached = carrier._parsedUrl;
  if (isParseOf(cached, url)) return cached;
  const parsed = parseRequestTarget(url);
  carrier._parsedUrl = parsed;
  return parsed;
}

/** `req.originalUrl` (else `req.url`) parsed and cached (`req._parsedOriginalUrl`). */
export function parseOriginalUrl(req: IncomingMessage): ParsedUrl | undefined {
  const carrier = req as IncomingMessage & UrlCarrier;
  const url = typeof carrier.originalUrl === 'string' ? carrier.originalUrl : carrier.url;
  if (typeof url !== 'string') return undefined;
  const cached = carrier._parsedOriginalUrl;
  if (isParseOf(cached, url)) return cached;
  const parsed = parseRequestTarget(url);
  carrier._parsedOriginalUrl = parsed;
  return parsed;
}
