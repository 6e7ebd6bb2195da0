/**
 * The handler types and what they receive: route parameters from the path,
 * `next`, and middleware typed against another Express typing.
 */
import type { IRouterMatcher, IRouterHandler } from './router';
import type { Request } from './request';
import type { Response } from './response';

/** The shape of `req.query` under the default `extended` query parser (as `qs.ParsedQs`). */
export interface ParsedQs {
  [key: string]: undefined | string | ParsedQs | (string | ParsedQs)[];
}

export type Query = ParsedQs;

export interface ParamsDictionary {
  [key: string]: string;
}

/** What `req.params` may be: named parameters (the name @types/express-serve-static-core gives it). */
export type Params = ParamsDictionary;

export interface Locals extends Express.Locals {}

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
