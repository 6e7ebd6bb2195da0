import { Buffer } from 'node:buffer';
import { detachedString } from './detached-string';
import { lazy } from './lazy';
import { ONE_BLOCK_MAX_BYTES, sha1OneBlockBase64 } from './sha1';

const EMPTY_ENTITY_TAG = '"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';
const WEAK_EMPTY_TAG = 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';

type OneShotHash = (algorithm: string, data: string | Buffer, encoding: 'base64') => string;

/**
 * SHA-1 in base64 through node:crypto, loaded by the first body longer than one
 * block (sha1.ts says why not before). Node's one-shot `crypto.hash` (20.12+)
 * skips the Hash object that createHash builds.
 */
const cryptoSha1Base64 = lazy((): ((data: string | Buffer) => string) => {
  const crypto: typeof import('node:crypto') = require('node:crypto');
  const hash = (crypto as { hash?: OneShotHash }).hash;
  return typeof hash === 'function'
    ? (data) => hash('sha1', data, 'base64')
    : (data) => crypto.createHash('sha1').update(data).digest('base64');
});

/**
 * ETag values of recent string bodies, strong and weak. Why: an app answers many
 * requests with the same text (a status document, a configuration, a page it
 * rendered once), and finding a string again costs a fraction of hashing it. A tag
 * depends on the text alone, so a remembered one is the one hashing would give;
 * strings are immutable (Buffers are not, and are always hashed).
 *
 * Two ways of finding it, by length:
 * - Short strings (up to MAPPED_STRING_MAX characters) are kept in a Map, at most
 *   TAGS_KEPT of them, dropped all at once when full, behind the last short body
 *   found: a body made anew for each request (`res.json` of the same object) is a
 *   string V8 has not seen, and a Map looks it up in V8's string table first (about
 *   600 instructions for 17 characters, Node 26), where comparing it with the last
 *   one costs a length check, or a scan when it is the same text again.
 * - A longer one is compared with the last long body alone. Looking a fresh string up
 *   in a Map hashes all its characters first, and on Node 20 that costs more than
 *   SHA-1 itself from a few hundred characters on (an 811-character page: 1.8 us
 *   against 1.5; 16,000 characters: 27 against 14); comparing with the last body costs
 *   a length check when it differs, and a scan of the text when it is the same page
 *   again (bench/README.md, "ETags of long strings").
 */
// The Map's keys are detached copies (a body cut from a request's would keep the whole
// request alive, see detachedString); the last bodies are kept as given: one each, let
// go at the next body, not worth a copy of every body sent.
const recentTags = [new Map<string, string>(), new Map<string, string>()];
const TAGS_KEPT = 128;
const MAPPED_STRING_MAX = 256;
const TAGGED_STRING_MAX = 16 * 1024;
const lastLongBody = ['', ''];
const lastLongTag = ['', ''];
// Starting as the empty body and its tags: a first body is then always a string to compare.
const lastShortBody = ['', ''];
const lastShortTag = [EMPTY_ENTITY_TAG, WEAK_EMPTY_TAG];

function rememberedTag(body: string, weak: boolean): string {
  const slot = weak ? 1 : 0;
  if (body.length > MAPPED_STRING_MAX) {
    if (body === lastLongBody[slot]) return lastLongTag[slot];
    const tag = taggedAs(body, weak);
    lastLongBody[slot] = body;
    lastLongTag[slot] = tag;
    return tag;
  }
  if (body === lastShortBody[slot]) return lastShortTag[slot];
  const tag = mappedTag(body, weak, slot);
  lastShortBody[slot] = body;
  lastShortTag[slot] = tag;
  return tag;
}

/** The tag of a short body from the Map of recent ones, hashed and kept there when it is not in it. */
function mappedTag(body: string, weak: boolean, slot: number): string {
  const recent = recentTags[slot];
  let tag = recent.get(body);
  if (tag !== undefined) return tag;
  tag = taggedAs(body, weak);
  if (recent.size >= TAGS_KEPT) {
    recentTags[0].clear();
    recentTags[1].clear();
  }
  recent.set(detachedString(body), tag);
  return tag;
}

/** The ETag header value of a body, hashed now. */
function taggedAs(body: string | Buffer, weak: boolean): string {
  if (body.length === 0) return weak ? WEAK_EMPTY_TAG : EMPTY_ENTITY_TAG;
  return tagOf(weak ? 'W/"' : '"', body);
}

/** Entity tag of a body: hex byte length and the first 27 characters of its base64 SHA-1. */
export function entityTag(body: string | Buffer): string {
  return body.length === 0 ? EMPTY_ENTITY_TAG : tagOf('"', body);
}

/**
 * `opening`, the hex byte length, `-`, the hash and `"`, joined into one flat string.
 * Why `join` and not `+`: V8 keeps a concatenation as a tree of its pieces, and a tag
 * remembered for a body goes into the head of every response that sends the body
 * again, where Node copies each piece of the tree into the head (bench/README.md,
 * "Flat header values").
 */
function tagOf(opening: string, body: string | Buffer): string {
  const length = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
  const hash =
    length <= ONE_BLOCK_MAX_BYTES ? sha1OneBlockBase64(body, length) : cryptoSha1Base64()(body).substring(0, 27);
  return [opening, length.toString(16), '-', hash, '"'].join('');
}

/** ETag header value for a body; weak tags carry the `W/` prefix. */
export function etag(body: string | Buffer, weak: boolean): string {
  if (typeof body === 'string' && body.length <= TAGGED_STRING_MAX) return rememberedTag(body, weak);
  return taggedAs(body, weak);
}
