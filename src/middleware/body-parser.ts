/**
 * `bodyParser([options])`: Connect 2's all-in-one body parser, `json`, then
 * `urlencoded`, then `multipart`, each given the same options. Whichever
 * matches the Content-Type parses the body; `req.body` and `req.files` are `{}`
 * otherwise. Connect left `req.files` undefined after a JSON or urlencoded body
 * (multipart, which defaulted it, skipped those); here it is always an object,
 * so `req.files.x` never throws.
 */
import { json, type JsonOptions } from './json';
import { multipart, type MultipartOptions } from './multipart';
import type { Middleware, MiddlewareRequest } from './types';
import { urlencoded, type UrlencodedOptions } from './urlencoded';
import { named } from '../named';

export type BodyParserOptions = JsonOptions & UrlencodedOptions & MultipartOptions;

export function bodyParser(options?: BodyParserOptions): Middleware {
  const parseUrlencoded = urlencoded(options);
  const parseMultipart = multipart(options);
  const parseJson = json(options);

  return named('bodyParser', function (req, res, next) {
    const request = req as MiddlewareRequest;
    request.files = request.files || {};
    parseJson(req, res, (err) => {
      if (err) return next(err);
      parseUrlencoded(req, res, (err) => {
        if (err) return next(err);
        parseMultipart(req, res, next);
      });
    });
  });
}
