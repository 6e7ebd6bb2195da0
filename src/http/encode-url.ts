/**
 * Percent-encodes a URL without double-encoding (as encodeurl 2 does): characters
 * not allowed in a URL are encoded, existing valid `%XX` escapes are kept, and a
 * lone surrogate becomes U+FFFD so encoding never throws.
 */
const ENCODE_CHARS = /(?:[^\x21\x23-\x3B\x3D\x3F-\x5F\x61-\x7A\x7C\x7E]|%(?:[^0-9A-Fa-f]|[0-9A-Fa-f][^0-9A-Fa-f]|$))+/g;
const LONE_SURROGATES = /(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uD800-\uDBFF]([^\uDC00-\uDFFF]|$)/g;

export function encodeUrl(url: string): string {
  return String(url)
    .replace(LONE_SURROGATES, '$1\uFFFD$2')
    .replace(ENCODE_CHARS, encodeURI);
}
