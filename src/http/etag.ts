import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';

const EMPTY_ENTITY_TAG = '"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';

/** Entity tag of a body: hex byte length and the first 27 characters of its base64 SHA-1. */
export function entityTag(body: string | Buffer): string {
  if (body.length === 0) return EMPTY_ENTITY_TAG;
  const hash = createHash('sha1').update(body).digest('base64').substring(0, 27);
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
