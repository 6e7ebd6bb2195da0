/** `text(options)`: the body as a string into `req.body`, in its charset (else `defaultCharset`). */
import type { ServerResponse } from 'node:http';
import { hasBody } from '../http/type-is';
import { commonSettings, requestCharset, type Options } from './options';
import { readBody, type ParsedRequest } from './read';

export interface OptionsText extends Options {
  /** Charset when the Content-Type names none (default utf-8). */
  defaultCharset?: string | undefined;
}

export function text(options?: OptionsText) {
  const opts = options || {};
  const settings = commonSettings(opts, 'text/plain');
  const defaultCharset = opts.defaultCharset || 'utf-8';
  return function textParser(req: ParsedRequest, res: ServerResponse, next: (err?: unknown) => void) {
    if (req._body) return next();
    req.body = req.body || {};
    if (!hasBody(req) || !settings.shouldParse(req)) return next();
    const charset = requestCharset(req) || defaultCharset;
    readBody(req, res, next, (body) => body, {
      encoding: charset,
      inflate: settings.inflate,
      limit: settings.limit,
      verify: settings.verify,
    });
  };
}
