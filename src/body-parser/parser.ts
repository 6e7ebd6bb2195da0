/**
 * The middleware the four parsers share: what body-parser 1.20 does before a body
 * is read (a body already parsed, absent or of another type is passed over, a
 * charset the parser does not read is refused), then the read itself.
 */
import type { Buffer } from 'node:buffer';
import type { ServerResponse } from 'node:http';
import { hasBody } from '../http/type-is';
import { unsupportedCharset } from './errors';
import { requestCharset, type CommonSettings } from './options';
import { readBody, type ParsedRequest } from './read';

export type BodyParserMiddleware = (req: ParsedRequest, res: ServerResponse, next: (err?: unknown) => void) => void;

export interface ParserSpec {
  /** The charset when the Content-Type names none; null keeps the body's bytes (raw). */
  defaultCharset: string | null;
  /** The charsets the parser reads (default all): others are a 415 before anything is read. */
  readsCharset?: (charset: string) => boolean;
  /** The decoded body (a Buffer for raw) to the value of `req.body`; throws a parse error. */
  parse: (body: string | Buffer) => unknown;
}

/** The parser middleware, named `name` (`jsonParser`...) as body-parser names its functions. */
export function parserMiddleware(name: string, settings: CommonSettings, spec: ParserSpec): BodyParserMiddleware {
  const { defaultCharset, readsCharset, parse } = spec;
  // A computed method name is how a function made here gets the parser's name.
  const named: Record<string, BodyParserMiddleware> = {
    [name](req, res, next) {
      if (req._body) return next();
      req.body = req.body || {};
      if (!hasBody(req) || !settings.shouldParse(req)) return next();
      const encoding = defaultCharset === null ? null : requestCharset(req) || defaultCharset;
      if (encoding !== null && readsCharset !== undefined && !readsCharset(encoding)) {
        return next(unsupportedCharset(encoding));
      }
      readBody(req, res, next, parse, encoding, settings);
    },
  };
  return named[name];
}
