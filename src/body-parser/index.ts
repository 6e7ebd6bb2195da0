/// <reference types="node" preserve="true" />
/**
 * `require('webapp/body-parser')`: the standalone body parsers (body-parser
 * 1.20's API). It imports nothing of the framework, so it works on a bare
 * `http.createServer` or any connect-style stack. Calling the module itself is
 * the deprecated combined json + urlencoded parser.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { deprecate } from '../http/deprecate';
import { json as jsonParser, type OptionsJson as JsonOptions } from './json';
import type { Options as CommonOptions } from './options';
import { raw as rawParser } from './raw';
import { text as textParser, type OptionsText as TextOptions } from './text';
import { urlencoded as urlencodedParser, type OptionsUrlencoded as UrlencodedOptions } from './urlencoded';

type CombinedOptions = bodyParser.OptionsJson & bodyParser.OptionsText & bodyParser.OptionsUrlencoded;
/**
 * The middleware each parser returns: @types/body-parser's (connect's
 * `NextHandleFunction`), whose `next` takes `err?: any`, so that a callback
 * reading the error (`(err) => err.message`) compiles as it does there; the same
 * type as `webapp.json()`'s.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as @types/body-parser
type Middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: any) => void) => void;

/**
 * Deprecated: json() then urlencoded() with the same options (their own `type`s).
 * Typed as @types/body-parser types it, with the text parser's options too.
 */
function bodyParser(options?: CombinedOptions): Middleware {
  deprecate('bodyParser: use individual json/urlencoded middlewares', 'body-parser');
  // Each parser keeps its own default media type: a `type` given here is ignored.
  // The options are inherited, not copied, so options on their prototype count too. Any
  // falsy value is none (`bodyParser('')`, as body-parser takes it); null is no prototype.
  const opts = Object.create(options || null, {
    type: { value: undefined, enumerable: true, writable: true, configurable: true },
  }) as bodyParser.OptionsJson & bodyParser.OptionsUrlencoded;
  const parseUrlencoded = urlencodedParser(opts);
  const parseJson = jsonParser(opts);
  return function bodyParser(req, res, next) {
    parseJson(req, res, (err?: unknown) => {
      if (err) return next(err);
      parseUrlencoded(req, res, next);
    });
  };
}

namespace bodyParser {
  // Interfaces, as @types/body-parser declares them: an app's `declare module 'body-parser'`
  // adds members to them (an alias could not be merged into).
  export interface Options extends CommonOptions {}
  export interface OptionsJson extends JsonOptions {}
  export interface OptionsText extends TextOptions {}
  export interface OptionsUrlencoded extends UrlencodedOptions {}
  // Typed here, not as the parsers' internal type (whose `next` takes `unknown`).
  export const json: (options?: OptionsJson) => Middleware = jsonParser;
  export const raw: (options?: Options) => Middleware = rawParser;
  export const text: (options?: OptionsText) => Middleware = textParser;
  export const urlencoded: (options?: OptionsUrlencoded) => Middleware = urlencodedParser;
  /** The module's own type (@types/body-parser's name for it): the deprecated parser and the four. */
  export interface BodyParser {
    (options?: CombinedOptions): Middleware;
    json(options?: OptionsJson): Middleware;
    raw(options?: Options): Middleware;
    text(options?: OptionsText): Middleware;
    urlencoded(options?: OptionsUrlencoded): Middleware;
  }
}

export = bodyParser;
