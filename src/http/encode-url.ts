/**
 * Percent-encodes a URL without double-encoding (as encodeurl 2 does): characters
 * not allowed in a URL are encoded, a `%` not followed by two hex digits becomes
 * `%25`, existing valid `%XX` escapes are kept, and a lone surrogate becomes
 * U+FFFD so encoding never throws.
 */
const ENCODE_CHARS = /(?:[^\x21\x23-\x3B\x3D\x3F-\x5F\x61-\x7A\x7C\x7E]|%(?![0-9A-Fa-f]{2}))+/g;
/** A surrogate pair (kept) or a lone surrogate (replaced). */
const SURROGATES = /([\uD800-\uDBFF][\uDC00-\uDFFF])|[\uD800-\uDFFF]/g;

export function encodeUrl(url: string): string {
  return String(url)
    .replace(SURROGATES, (_match, pair: string | undefined) => pair || '\uFFFD')
    .replace(ENCODE_CHARS, encodeURI);
}
