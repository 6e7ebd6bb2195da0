/** `raw(options)`: the body as a Buffer into `req.body`. */
import type { ServerResponse } from 'node:http';
import { hasBody } from '../http/type-is';
import { commonSettings, type Options } from './options';
import { readBody, type ParsedRequest } from './read';

export function raw(options?: Options) {
  const settings = commonSettings(options || {}, 'application/octet-stream');
  return function rawParser(req: ParsedRequest, res: ServerResponse, next: (err?: unknown) => void) {
    if (req._body) return next();
    req.body = req.body || {};
    if (!hasBody(req) || !settings.shouldParse(req)) return next();
    readBody(req, res, next, (buf) => buf, {
      encoding: null,
      inflate: settings.inflate,
      limit: settings.limit,
      verify: settings.verify,
    });
  };
}
