import * as crypto from 'node:crypto';
import type { Stats } from 'node:fs';

const EMPTY_ENTITY_TAG = '"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';

type OneShotHash = (algorithm: string, data: string | Buffer, encoding: 'base64') => string;

/**
 * Why: Node's one-shot `crypto.hash` (20.12+) skips the Hash object that
 * createHash builds; every dynamic response hashes its body for the ETag.
 */
const sha1Base64: (data: string | Buffer) => string =
  typeof (crypto as { hash?: OneShotHash }).hash === 'function'
    ? (data) => (crypto as unknown as { hash: OneShotHash }).hash('sha1', data, 'base64')
    : (data) => crypto.createHash('sha1').update(data).digest('base64');

/** Entity tag of a body: hex byte length and the first 27 characters of its base64 SHA-1. */
export function entityTag(body: string | Buffer): string {
  if (body.length === 0) return EMPTY_ENTITY_TAG;
  const hash = sha1Base64(body).substring(0, 27);
  const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
  return `"${length.toString(16)}-${hash}"`;
}

/** Entity tag of a file from its size and modification time (always used weak by file serving). */
export function statTag(stat: Pick<Stats, 'size' | 'mtime'>): string {
  return `"${stat.size.toString(16)}-${stat.mtime.getTime().toString(16)}"`;
}

/** ETag header value for a body; weak tags carry the `W/` prefix. */
export function etag(body: string | Buffer, weak: boolean): string {
  const tag = entityTag(body);
  return weak ? 'W/' + tag : tag;
}
