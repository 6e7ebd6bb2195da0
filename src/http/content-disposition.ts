/**
 * Content-Disposition header values (RFC 6266), as `res.attachment` and
 * `res.download` send them: `attachment; filename="report.pdf"`, and for names
 * outside ISO-8859-1 also the RFC 5987 form `filename*=UTF-8''%E2%82%AC.txt`
 * beside an ISO-8859-1 fallback that old clients read.
 */
import { basename } from 'node:path';

export interface ContentDispositionOptions {
  /** Disposition type, default `attachment`. */
  type?: string;
  /**
   * The plain `filename=` for clients without RFC 5987: `true` (default) derives it
   * by replacing characters outside ISO-8859-1 with `?`, a string gives it, `false` omits it.
   */
  fallback?: string | boolean;
}

const TOKEN = /^[!#$%&'*+.0-9A-Z^_`a-z|~-]+$/;
/** What may appear inside a quoted-string, so the name can go in `filename="..."` as is. */
const QUOTABLE = /^[\x20-\x7e\x80-\xff]+$/;
const NOT_LATIN1 = /[^\x20-\x7e\xa0-\xff]/;
const NOT_LATIN1_ALL = /[^\x20-\x7e\xa0-\xff]/g;
/** A name that already looks percent-encoded is ambiguous in `filename=`, so `filename*` is added. */
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;
/** Characters encodeURIComponent leaves alone but RFC 5987 `attr-char` does not allow. */
const NOT_ATTR_CHAR = /[\x00-\x20"'()*,/:;<=>?@[\\\]{}\x7f]/g;

function toLatin1(value: string): string {
  return value.replace(NOT_LATIN1_ALL, '?');
}

function quoted(value: string): string {
  return '"' + value.replace(/[\\"]/g, '\\$&') + '"';
}

function extendedValue(value: string): string {
  const encoded = encodeURIComponent(value).replace(
    NOT_ATTR_CHAR,
    (ch) => '%' + ch.charCodeAt(0).toString(16).toUpperCase(),
  );
  return "UTF-8''" + encoded;
}

/** The header value for an optional file name (only its base name is used). */
export function contentDisposition(filename?: string, options?: ContentDispositionOptions): string {
  const type = options?.type ?? 'attachment';
  if (typeof type !== 'string' || !TOKEN.test(type)) throw new TypeError('invalid type');
  let header = type.toLowerCase();
  if (filename === undefined) return header;
  if (typeof filename !== 'string') throw new TypeError('filename must be a string');

  const fallback: unknown = options?.fallback === undefined ? true : options.fallback;
  if (typeof fallback !== 'string' && typeof fallback !== 'boolean') {
    throw new TypeError('fallback must be a string or boolean');
  }
  if (typeof fallback === 'string' && NOT_LATIN1.test(fallback)) {
    throw new TypeError('fallback must be ISO-8859-1 string');
  }

  const name = basename(filename);
  const isQuotable = QUOTABLE.test(name);
  const fallbackName = typeof fallback === 'string' ? basename(fallback) : fallback ? toLatin1(name) : undefined;
  const hasFallback = fallbackName !== undefined && fallbackName !== name;

  // Parameters in name order, as the reference implementation emits them: filename, then filename*.
  if (isQuotable || hasFallback) header += '; filename=' + quoted(hasFallback ? (fallbackName as string) : name);
  if (hasFallback || !isQuotable || PERCENT_ESCAPE.test(name)) header += '; filename*=' + extendedValue(name);
  return header;
}
