/**
 * The handler types and what they receive: route parameters from the path,
 * `next`, and middleware typed against another Express typing.
 */
import type { IRouterMatcher, IRouterHandler } from './router';
import type { Request } from './request';
import type { Response } from './response';
import type { CoreLocalsAdditions } from './core-augmentations';

/** The shape of `req.query` under the default `extended` query parser (as `qs.ParsedQs`). */
export interface ParsedQs {
  [key: string]: undefined | string | ParsedQs | (string | ParsedQs)[];
}

export type Query = ParsedQs;

/**
 * The options of `webapp.query(options)`: qs's parse options, as @types/qs types them
 * (`qs.IParseOptions`, which `express.query` takes), so that a misspelt option or a
 * wrong type is an error here too. Those webapp's parser does not implement are
 * accepted by the type; a value that would change the result throws when the
 * middleware is made.
 */
export interface QueryParseOptions {
  allowDots?: boolean | undefined;
  allowEmptyArrays?: boolean | undefined;
  allowPrototypes?: boolean | undefined;
  allowSparse?: boolean | undefined;
  arrayLimit?: number | undefined;
  charset?: 'utf-8' | 'iso-8859-1' | undefined;
  charsetSentinel?: boolean | undefined;
  comma?: boolean | undefined;
  decodeDotInKeys?: boolean | undefined;
  decoder?:
    | ((
        str: string,
        defaultDecoder: (str: string, decoder?: unknown, charset?: string) => string,
        charset: string,
        type: 'key' | 'value',
      ) => any)
    | undefined;
  delimiter?: string | RegExp | undefined;
  depth?: number | false | undefined;
  duplicates?: 'combine' | 'first' | 'last' | undefined;
  ignoreQueryPrefix?: boolean | undefined;
  interpretNumericEntities?: boolean | undefined;
  parameterLimit?: number | undefined;
  parseArrays?: boolean | undefined;
  plainObjects?: boolean | undefined;
  strictDepth?: boolean | undefined;
  strictMerge?: boolean | undefined;
  strictNullHandling?: boolean | undefined;
  throwOnLimitExceeded?: boolean | undefined;
}

/** A query string parser `webapp.query` takes instead of options (`qs.parse`, or one of the app's own). */
export type QueryParserFunction = (str: string, options?: undefined) => unknown;

export interface ParamsDictionary {
  [key: string]: string;
}

/** What `req.params` may be: named parameters (the name @types/express-serve-static-core gives it). */
export type Params = ParamsDictionary;

// With what an app adds to express-serve-static-core's `Locals` (./core-augmentations).
export interface Locals extends Express.Locals, CoreLocalsAdditions {}

export interface NextFunction {
  /** Leaves the current router. */
  (deferToNext: 'router'): void;
  /** Skips the remaining handlers of the current route. */
  (deferToNext: 'route'): void;
  /**
   * Passes control to the next matching handler; with an error, to the next
   * error handler. Last of the overloads, so that inference from the type
   * (`setImmediate(next, err)`, `Parameters<NextFunction>`) sees this form.
   */
  (err?: any): void;
}

export interface Dictionary<T> {
  [key: string]: T;
}

export type Errback = (err: Error) => void;

// ---------------------------------------------------------------------------
// Route parameters from the path string: '/users/:id' gives { id: string }.
// A name ends at '/', '-' or '.'; 'name?' is optional; regex groups fall back
// to the dictionary, as @types/express-serve-static-core does.

type RemoveTail<S extends string, Tail extends string> = S extends `${infer P}${Tail}` ? P : S;
type ParameterName<S extends string> = RemoveTail<RemoveTail<RemoveTail<S, `/${string}`>, `-${string}`>, `.${string}`>;

export type RouteParameters<Route extends string> = string extends Route
  ? ParamsDictionary
  : Route extends `${string}(${string}`
    ? ParamsDictionary
    : Route extends `${string}:${infer Rest}`
      ? (ParameterName<Rest> extends never
          ? ParamsDictionary
          : ParameterName<Rest> extends `${infer Name}?`
            ? { [K in Name]?: string }
            : { [K in ParameterName<Rest>]: string }) &
          (Rest extends `${ParameterName<Rest>}${infer Next}` ? RouteParameters<Next> : unknown)
      : // A path without parameters has none: `{}`, as in @types/express.
        // eslint-disable-next-line @typescript-eslint/no-empty-object-type
        {};

export type PathParams = string | RegExp | Array<string | RegExp>;

// ---------------------------------------------------------------------------
// Handlers. They are typed as returning `void`, which also accepts `async`
// functions: webapp forwards a rejected promise to error handling.

export interface RequestHandler<
  P = ParamsDictionary,
  ResBody = any,
  ReqBody = any,
  ReqQuery = ParsedQs,
  LocalsObj extends Record<string, any> = Record<string, any>,
> {
  (req: Request<P, ResBody, ReqBody, ReqQuery, LocalsObj>, res: Response<ResBody, LocalsObj>, next: NextFunction): void;
}

export type ErrorRequestHandler<
  P = ParamsDictionary,
  ResBody = any,
  ReqBody = any,
  ReqQuery = ParsedQs,
  LocalsObj extends Record<string, any> = Record<string, any>,
> = (
  err: any,
  req: Request<P, ResBody, ReqBody, ReqQuery, LocalsObj>,
  res: Response<ResBody, LocalsObj>,
  next: NextFunction,
) => void;

export interface Handler extends RequestHandler {}

export type RequestHandlerParams<
  P = ParamsDictionary,
  ResBody = any,
  ReqBody = any,
  ReqQuery = ParsedQs,
  LocalsObj extends Record<string, any> = Record<string, any>,
> =
  | RequestHandler<P, ResBody, ReqBody, ReqQuery, LocalsObj>
  | ErrorRequestHandler<P, ResBody, ReqBody, ReqQuery, LocalsObj>
  | Array<RequestHandler<P> | ErrorRequestHandler<P>>;

export type RequestParamHandler = (req: Request, res: Response, next: NextFunction, value: any, name: string) => any;

export type ApplicationRequestHandler<T> = IRouterHandler<T> &
  IRouterMatcher<T> &
  ((...handlers: RequestHandlerParams[]) => T);
