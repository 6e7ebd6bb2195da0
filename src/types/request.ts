/**
 * The request (`req`), as handlers receive it.
 */
import type * as http from 'node:http';
import type { ParsedQs, ParamsDictionary, NextFunction } from './handlers';
import type { Response } from './response';
import type { Application } from './application';
import type { CoreRequestAdditions } from './core-augmentations';

/** One entry of `req.accepted`: a media type of the Accept header, with its quality. */
export interface MediaType {
  value: string;
  quality: number;
  type: string;
  subtype: string;
}

/** One range of `req.range()`: the first and last byte positions, inclusive. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface RequestRanges extends Array<ByteRange> {
  type: string;
}

/**
 * The request, as handlers receive it. Its members are declared on `CoreRequest`
 * and inherited, as @types/express's `Request` inherits them from
 * express-serve-static-core's: an augmentation of `Request` may then redeclare one
 * with a narrower type, as @types/cookie-parser's (`cookies: Record<string, any>`)
 * does under the npm alias (`"express": "npm:webapp"`); declared here directly, the
 * two declarations would conflict (TS2717). What an app adds to
 * express-serve-static-core's `Request` is inherited too (./core-augmentations).
 */
export interface Request<
  P = ParamsDictionary,
  ResBody = any,
  ReqBody = any,
  ReqQuery = ParsedQs,
  LocalsObj extends Record<string, any> = Record<string, any>,
>
  extends CoreRequest<P, ResBody, ReqBody, ReqQuery, LocalsObj>, CoreRequestAdditions {}

/** The members of `Request` (express-serve-static-core's `Request` to @types/express's). */
export interface CoreRequest<
  P = ParamsDictionary,
  ResBody = any,
  ReqBody = any,
  ReqQuery = ParsedQs,
  LocalsObj extends Record<string, any> = Record<string, any>,
>
  extends http.IncomingMessage {
  /**
   * A request header, case-insensitive (`Referer` and `Referrer` are interchangeable).
   * @example
   * const type = req.get('Content-Type');
   */
  get(name: 'set-cookie'): string[] | undefined;
  get(name: string): string | undefined;
  /**
   * Alias of `req.get`: a request header, case-insensitive.
   * @example
   * const agent = req.header('user-agent');
   */
  header(name: 'set-cookie'): string[] | undefined;
  header(name: string): string | undefined;

  /**
   * The best of the offered types (MIME types or extensions) for the Accept header,
   * or false when none is acceptable; with no argument, the accepted types in order.
   * @example
   * if (req.accepts(['html', 'json']) === 'json') res.json(data);
   */
  accepts(): string[];
  accepts(type: string): string | false;
  accepts(type: string[]): string | false;
  accepts(...type: string[]): string | false;
  /**
   * The best of the offered charsets for Accept-Charset, or false.
   * @example
   * const charset = req.acceptsCharsets('utf-8', 'iso-8859-1');
   */
  acceptsCharsets(): string[];
  acceptsCharsets(charset: string): string | false;
  acceptsCharsets(charset: string[]): string | false;
  acceptsCharsets(...charset: string[]): string | false;
  /**
   * The best of the offered encodings for Accept-Encoding, or false.
   * @example
   * if (req.acceptsEncodings('gzip')) res.set('Content-Encoding', 'gzip');
   */
  acceptsEncodings(): string[];
  acceptsEncodings(encoding: string): string | false;
  acceptsEncodings(encoding: string[]): string | false;
  acceptsEncodings(...encoding: string[]): string | false;
  /**
   * The best of the offered languages for Accept-Language, or false.
   * @example
   * const lang = req.acceptsLanguages('en', 'fr') || 'en';
   */
  acceptsLanguages(): string[];
  acceptsLanguages(lang: string): string | false;
  acceptsLanguages(lang: string[]): string | false;
  acceptsLanguages(...lang: string[]): string | false;

  /**
   * Parses the Range header for a resource of `size` bytes: the ranges, -1 when
   * unsatisfiable, -2 when malformed, undefined without a Range header.
   * @example
   * const ranges = req.range(stat.size, { combine: true });
   */
  range(size: number, options?: { combine?: boolean | undefined }): RequestRanges | -1 | -2 | undefined;

  accepted: MediaType[];

  /**
   * The named value from the route parameters, then the body, then the query.
   * @deprecated use `req.params`, `req.body` or `req.query`.
   * @example
   * const id = req.param('id');
   */
  param(name: string, defaultValue?: any): string;

  /**
   * The matching type when the request's Content-Type is one of `type`, false when
   * none matches, null when the request has no body.
   * @example
   * if (!req.is('application/json')) return res.sendStatus(415);
   */
  is(type: string | string[]): string | false | null;

  readonly protocol: string;
  readonly secure: boolean;
  readonly ip: string | undefined;
  readonly ips: string[];
  readonly subdomains: string[];
  readonly path: string;
  readonly hostname: string;
  /** @deprecated use `req.hostname`. */
  readonly host: string;
  readonly fresh: boolean;
  readonly stale: boolean;
  readonly xhr: boolean;

  body: ReqBody;
  cookies: any;
  method: string;
  params: P;
  query: ReqQuery;
  route: any;
  signedCookies: any;
  originalUrl: string;
  url: string;
  baseUrl: string;

  app: Application;
  res?: Response<ResBody, LocalsObj> | undefined;
  next?: NextFunction | undefined;
}
