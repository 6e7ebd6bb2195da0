/**
 * RFC 7231 media types (`type/subtype; name=value`), parsed and formatted with
 * the content-type package's rules: token characters only, quoted-string values
 * unescaped, a malformed header is a TypeError rather than a guess.
 */
import { detachedString } from './detached-string';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const TEXT = /^[\u000b\u0020-\u007e\u0080-\u00ff]+$/;
// `; name=value` with optional spaces; the value a token or a quoted string.
const PARAMETER =
  /; *([!#$%&'*+.^_`|~0-9A-Za-z-]+) *= *("(?:[\u000b\u0020\u0021\u0023-\u005b\u005d-\u007e\u0080-\u00ff]|\\[\u000b\u0020-\u00ff])*"|[!#$%&'*+.^_`|~0-9A-Za-z-]+) */g;
const QUOTED_ESCAPE = /\\([\u000b\u0020-\u00ff])/g;

export interface MediaType {
  /** `type/subtype`, lower-cased. */
  type: string;
  /** Parameter names lower-cased; values as sent (quotes removed). */
  parameters: Record<string, string>;
}

export function parseMediaType(header: string): MediaType {
  if (!header) throw new TypeError('argument string is required');
  if (typeof header !== 'string') throw new TypeError('argument string is required to be a string');
  let index = header.indexOf(';');
  const type = (index !== -1 ? header.slice(0, index) : header).trim();
  if (!TYPE.test(type)) throw new TypeError('invalid media type');
  const result: MediaType = { type: type.toLowerCase(), parameters: Object.create(null) as Record<string, string> };
  if (index === -1) return result;

  const pattern = PARAMETER;
  pattern.lastIndex = index;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(header)) !== null) {
    if (match.index !== index) throw new TypeError('invalid parameter format');
    index += match[0].length;
    let value = match[2];
    if (value.charCodeAt(0) === 0x22) {
      value = value.slice(1, -1);
      if (value.includes('\\')) value = value.replace(QUOTED_ESCAPE, '$1');
    }
    result.parameters[match[1].toLowerCase()] = value;
  }
  if (index !== header.length) throw new TypeError('invalid parameter format');
  return result;
}

export function formatMediaType(media: { type: string; parameters?: Record<string, unknown> }): string {
  if (!media || typeof media !== 'object') throw new TypeError('argument obj is required');
  if (!media.type || !TYPE.test(media.type)) throw new TypeError('invalid type');
  const parts = [media.type];
  const parameters = media.parameters;
  if (parameters && typeof parameters === 'object') {
    for (const name of Object.keys(parameters).sort()) {
      if (!TOKEN.test(name)) throw new TypeError('invalid parameter name');
      parts.push('; ', name, '=', quoteIfNeeded(parameters[name]));
    }
  }
  // Joined, one flat string: setCharset keeps the value for the heads of many
  // responses (etag.ts, `tagOf`, says why that matters).
  return parts.join('');
}

function quoteIfNeeded(value: unknown): string {
  const text = String(value);
  if (TOKEN.test(text)) return text;
  if (text.length > 0 && !TEXT.test(text)) throw new TypeError('invalid parameter value');
  return '"' + text.replace(/([\\"])/g, '\\$1') + '"';
}

/**
 * Why a cache: every `res.send` of a string sets the charset of the same few
 * Content-Types; parsing and formatting them again each time was a measurable
 * part of a small response. Bounded, so hostile values cannot grow it.
 */
const charsetCache = new Map<string, string>();
const CHARSET_CACHE_SIZE = 256;

/** A Content-Type with its charset parameter set (Express's `setCharset`). */
export function setCharset(type: string, charset: string): string {
  if (!type || !charset) return type;
  const key = charset + '\0' + type;
  const cached = charsetCache.get(key);
  if (cached !== undefined) return cached;
  const parsed = parseMediaType(type);
  parsed.parameters.charset = charset;
  // Detached: the key and the value are made of pieces of `type` (see detachedString).
  const formatted = detachedString(formatMediaType(parsed));
  if (charsetCache.size >= CHARSET_CACHE_SIZE) charsetCache.clear();
  charsetCache.set(detachedString(key), formatted);
  return formatted;
}
