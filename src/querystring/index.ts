/**
 * Extended query-string parsing (nested objects and arrays), as Express 4's
 * `query parser: extended` and body-parser's `urlencoded({ extended: true })` do.
 * Today this delegates to qs; it is the single seam through which webapp parses
 * extended query strings, so an own qs-compatible parser can replace it here.
 */
import qs from 'qs';

export interface ExtendedParseOptions {
  allowPrototypes?: boolean;
  arrayLimit?: number;
  depth?: number;
  parameterLimit?: number;
  strictDepth?: boolean;
  throwOnLimitExceeded?: boolean;
}

export function parseExtended(input: string, options: ExtendedParseOptions = {}): Record<string, unknown> {
  return qs.parse(input, options) as Record<string, unknown>;
}
