import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { tokenList } from './header-list';

const NO_CACHE = /(?:^|,)\s*?no-cache\s*?(?:,|$)/;

/**
 * Whether the client's cached copy is still fresh (RFC 7232 conditional GET):
 * If-None-Match must name the response ETag (weak comparison) and
 * If-Modified-Since must not be older than Last-Modified. `Cache-Control: no-cache`
 * from the client always makes the response stale.
 */
export function isFresh(reqHeaders: IncomingHttpHeaders, resHeaders: OutgoingHttpHeaders): boolean {
  const modifiedSince = reqHeaders['if-modified-since'];
  const noneMatch = reqHeaders['if-none-match'];
  if (!modifiedSince && !noneMatch) return false;

  const cacheControl = reqHeaders['cache-control'];
  if (cacheControl && NO_CACHE.test(cacheControl)) return false;

  if (noneMatch && noneMatch !== '*') {
    // A tag set as a number (`res.setHeader('ETag', 123)`) matches `W/123`, as fresh's `'W/' + etag` makes it.
    const tag = resHeaders['etag'];
    if (!tag) return false;
    if (!tokenList(noneMatch).some((m) => m === tag || m === 'W/' + String(tag) || 'W/' + m === tag)) return false;
  }

  if (modifiedSince) {
    const lastModified = resHeaders['last-modified'];
    if (!lastModified || !(httpDate(String(lastModified)) <= httpDate(modifiedSince))) return false;
  }
  return true;
}

/**
 * Freshness as fresh 0.3 judges it, for Express 3.21's `req.fresh` and send 0.13:
 * `no-cache` anywhere in Cache-Control makes the response stale, and an
 * If-None-Match entry matches when it is `*` (anywhere in the list), the ETag
 * as sent, or `W/` and the ETag.
 */
export function isFresh03(reqHeaders: IncomingHttpHeaders, resHeaders: OutgoingHttpHeaders): boolean {
  const modifiedSince = reqHeaders['if-modified-since'];
  const noneMatch = reqHeaders['if-none-match'];
  if (!modifiedSince && !noneMatch) return false;

  const cacheControl = reqHeaders['cache-control'];
  if (cacheControl && cacheControl.includes('no-cache')) return false;

  if (noneMatch) {
    const tag = resHeaders['etag'];
    if (!tokenList(noneMatch).some((m) => m === '*' || m === tag || m === 'W/' + String(tag))) return false;
  }

  if (modifiedSince) {
    const lastModified = resHeaders['last-modified'];
    if (!(httpDate(String(lastModified ?? '')) <= httpDate(modifiedSince))) return false;
  }
  return true;
}

function httpDate(value: string): number {
  return value ? Date.parse(value) : NaN;
}
